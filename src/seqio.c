#include "seqio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <htslib/bgzf.h>
#include <htslib/hfile.h>

#include "probes.h"

#define PS_IO_BUF (1u << 20)

enum state {
    S_BEGIN,   /* before the first record */
    S_HEADER,  /* inside a '>' or '@' header line */
    S_FA_SEQ,  /* FASTA sequence lines */
    S_FQ_SEQ,  /* FASTQ sequence lines, up to the '+' line */
    S_FQ_PLUS, /* rest of the '+' line */
    S_FQ_QUAL, /* FASTQ quality lines */
    S_FQ_NEXT, /* between FASTQ records */
    S_END
};

struct ps_reader {
    BGZF *fp;
    char *path;
    uint32_t sigma;
    int k;
    uint8_t tab[256];
    unsigned char *buf;
    size_t len, pos;
    int eof;
    unsigned char prev; /* byte before buf[0], for line-start tests */
    uint64_t file_size;

    enum state st;
    int fastq;
    uint64_t line;          /* 1-based number of the line being parsed */
    char name[PS_NAME_MAX + 1];
    uint32_t name_len;
    int name_done;          /* the first word of the header has ended */
    uint64_t seq_len, qual_len;
    uint64_t qual_line;     /* line where the quality of the record starts */
    int rec_has_syms;       /* the record in progress has packed symbols; implies it started and is not pending */
    int pending_record;     /* list the record before its first symbol */
    int pending_restart;    /* restart before the next symbol */
    uint8_t ctx[PS_MAX_K];  /* context carried into the next chunk */
    uint32_t n_ctx;
    ps_reader_stats_t stats;

    /* Block mode (a block parser): buf is a block of the input, not ours. */
    int block_mode;
    int open_start;         /* the block's first symbols continue the previous block's segment */
    uint64_t breaks;        /* restarts (letters outside the alphabet, records) in the block */
    unsigned char *carry;   /* main reader: bytes after the last cut, for the next block */
    size_t carry_len;
};

int ps_reader_open(ps_reader_t **out, const char *path, ps_alpha_t a, int k, int threads,
                   ps_err_t *err)
{
    *out = NULL;
    ps_reader_t *r = calloc(1, sizeof *r);
    if (!r) return ps_fail(err, PS_E_NOMEM, "out of memory");
    r->path = strdup(path);
    r->buf = malloc(PS_IO_BUF);
    if (!r->path || !r->buf) {
        ps_reader_close(r);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    struct stat sb;
    if (strcmp(path, "-") != 0) {
        if (stat(path, &sb) != 0) {
            int e = errno;
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, strerror(e));
        }
        if (S_ISDIR(sb.st_mode)) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: is a directory", path);
        }
        if (S_ISREG(sb.st_mode)) r->file_size = (uint64_t)sb.st_size;
    }
    errno = 0;
    r->fp = bgzf_open(path, "r");
    if (!r->fp) {
        int e = errno;
        ps_reader_close(r);
        return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, e ? strerror(e) : "unknown error");
    }
    if (r->fp->is_compressed && !r->fp->is_gzip) {
        /* BGZF: a missing end-of-file block means the file was cut short.
         * Threads only where the whole file could be checked that way: the
         * threaded reader does not always notice a cut inside a block, and
         * on a pipe the single-threaded one checks the end as it gets there. */
        int eof_ok = bgzf_check_EOF(r->fp);
        if (eof_ok == 0) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: truncated BGZF file (no end-of-file block)", path);
        }
        if (eof_ok == 1 && threads > 1 && bgzf_mt(r->fp, threads, 64) < 0) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: cannot start %d decompression threads", path, threads);
        }
    }
    r->sigma = (uint32_t)ps_alpha_sigma(a);
    r->k = k;
    ps_alpha_table(a, r->tab);
    r->st = S_BEGIN;
    r->line = 1;
    r->prev = '\n';
    *out = r;
    return PS_OK;
}

void ps_reader_close(ps_reader_t *r)
{
    if (!r) return;
    if (r->fp) bgzf_close(r->fp);
    free(r->path);
    if (!r->block_mode) free(r->buf);
    free(r->carry);
    free(r);
}

const ps_reader_stats_t *ps_reader_stats(const ps_reader_t *r) { return &r->stats; }

void ps_reader_progress(const ps_reader_t *r, uint64_t *done, uint64_t *total)
{
    int64_t off = r->fp && r->fp->fp ? htell(r->fp->fp) : -1;
    *done = off > 0 ? (uint64_t)off : 0;
    *total = r->file_size;
}

/* Reads up to len bytes into dst. At the end of the input sets r->eof and,
 * for BGZF, checks for the end-of-file marker block: without it the data
 * was cut short (threaded decompression can otherwise miss a cut that falls
 * inside a block). Returns the bytes read or a negative code. */
static ssize_t read_input(ps_reader_t *r, void *dst, size_t len, ps_err_t *err)
{
    ssize_t got = bgzf_read(r->fp, dst, len);
    if (got < 0)
        return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated compressed data near line %llu",
                       r->path, (unsigned long long)r->line);
    r->stats.bytes += (uint64_t)got;
    if (got == 0) {
        r->eof = 1;
        if (r->fp->is_compressed && !r->fp->is_gzip && !r->fp->last_block_eof)
            return ps_fail(err, PS_E_IO, "%s: truncated BGZF file (no end-of-file block)", r->path);
    }
    return got;
}

/* Refills the buffer. Returns 1 with data, 0 at end of input, <0 on error. */
static int refill(ps_reader_t *r, ps_err_t *err)
{
    if (r->eof) return 0;
    if (r->block_mode) { /* the block is all there is */
        r->eof = 1;
        return 0;
    }
    if (r->len) r->prev = r->buf[r->len - 1];
    ssize_t got = read_input(r, r->buf, PS_IO_BUF, err);
    if (got < 0) return (int)got;
    r->len = (size_t)got;
    r->pos = 0;
    return got > 0;
}

static int at_line_start(const ps_reader_t *r)
{
    return (r->pos ? r->buf[r->pos - 1] : r->prev) == '\n';
}

static const char *rec_name(const ps_reader_t *r) { return r->name; }

static int bad_byte(ps_reader_t *r, unsigned char b, ps_err_t *err)
{
    if (b >= 0x21 && b < 0x7f)
        return ps_fail(err, PS_E_FORMAT, "%s: line %llu: unexpected character '%c' in the sequence of record '%s'",
                       r->path, (unsigned long long)r->line, b, rec_name(r));
    return ps_fail(err, PS_E_FORMAT, "%s: line %llu: unexpected byte 0x%02x in the sequence of record '%s' (binary file?)",
                   r->path, (unsigned long long)r->line, b, rec_name(r));
}

#if defined(__SSE2__)
/* DNA fast path over the 16 bytes at p: returns how many leading bytes are
 * bases (A, C, G, T or U, any case) and their 2-bit codes in *out (symbol i
 * at bits 2i; bits past the valid prefix are zero). */
static inline uint32_t pack16_dna(const unsigned char *p, uint32_t *out)
{
    __m128i b = _mm_loadu_si128((const __m128i *)p);
    __m128i u = _mm_and_si128(b, _mm_set1_epi8((char)0xDF)); /* upper case */
    __m128i a = _mm_cmpeq_epi8(u, _mm_set1_epi8('A'));
    __m128i cc = _mm_cmpeq_epi8(u, _mm_set1_epi8('C'));
    __m128i g = _mm_cmpeq_epi8(u, _mm_set1_epi8('G'));
    __m128i t = _mm_or_si128(_mm_cmpeq_epi8(u, _mm_set1_epi8('T')), _mm_cmpeq_epi8(u, _mm_set1_epi8('U')));
    __m128i ok = _mm_or_si128(_mm_or_si128(a, cc), _mm_or_si128(g, t));
    uint32_t valid = (uint32_t)__builtin_ctz(~(uint32_t)_mm_movemask_epi8(ok)); /* 0..16 */
    if (valid == 0) return 0;
    /* Codes A0 C1 G2 T3, one per byte. */
    __m128i code = _mm_or_si128(_mm_and_si128(cc, _mm_set1_epi8(1)),
                                _mm_or_si128(_mm_and_si128(g, _mm_set1_epi8(2)), _mm_and_si128(t, _mm_set1_epi8(3))));
    /* Pairs of bytes -> 4 bits in each 16-bit lane, pairs of lanes -> 8 bits
     * in each 32-bit lane, then narrow to the 4 low bytes. */
    __m128i x = _mm_and_si128(_mm_or_si128(code, _mm_srli_epi16(code, 6)), _mm_set1_epi16(0x000F));
    x = _mm_and_si128(_mm_or_si128(x, _mm_srli_epi32(x, 12)), _mm_set1_epi32(0x000000FF));
    x = _mm_packs_epi32(x, x);
    x = _mm_packus_epi16(x, x);
    uint32_t w = (uint32_t)_mm_cvtsi128_si32(x);
    *out = valid == 16 ? w : w & ((1u << (2 * valid)) - 1u);
    return valid;
}
#endif

/* Packs the sequence bytes at the buffer position into c. Returns 0 when the
 * buffer is used up, 1 when the chunk is full, 2 when the sequence ended (the
 * state was changed), <0 on error. The hot loop keeps the partial word in a
 * register and writes it back on the way out. */
static int pack_seq(ps_reader_t *r, ps_chunk_t *c, ps_err_t *err)
{
    const uint8_t *tab = r->tab;
    const uint32_t sigma = r->sigma, bits = (uint32_t)c->bits, full = c->per_word * bits;
    uint32_t *text = c->text;
    uint64_t n = c->n, cap = c->cap, n_entry = c->n;
    uint32_t fill = c->word_fill;
    uint32_t acc = fill ? text[n / c->per_word] : 0;
    const unsigned char *buf = r->buf;
    size_t pos = r->pos, len = r->len;
    int ret = 0;

#define SYNC_OUT() do { \
        if (fill) text[n / c->per_word] = acc; \
        c->n = n; c->word_fill = fill; r->pos = pos; \
    } while (0)

    while (pos < len) {
#if defined(__SSE2__)
        /* Up to sixteen plain bases at a time while nothing needs attention;
         * the byte that stops a run (a line end, an N) goes the slow way. */
        if (bits == 2 && pos + 16 <= len && n + 16 <= cap && !(r->pending_restart | r->pending_record)) {
            uint32_t w, m = pack16_dna(buf + pos, &w);
            if (m) {
                uint64_t cur = (uint64_t)acc | ((uint64_t)w << fill);
                fill += 2 * m;
                if (fill >= 32) {
                    text[n / 16] = (uint32_t)cur;
                    cur >>= 32;
                    fill -= 32;
                }
                acc = (uint32_t)cur;
                n += m;
                pos += m;
                continue;
            }
        }
#endif
        unsigned char b = buf[pos];
        uint32_t v = tab[b];
        if (__builtin_expect(v < sigma && !(r->pending_restart | r->pending_record) && n < cap, 1)) {
            acc |= v << fill;
            fill += bits;
            n++;
            if (fill == full) {
                text[(n - 1) / c->per_word] = acc;
                acc = 0;
                fill = 0;
            }
            pos++;
            continue;
        }
        if (v < sigma) {
            /* A symbol that first needs a record entry or restart, or room. */
            if (n >= cap) { ret = 1; break; }
            SYNC_OUT();
            if (r->pending_record) {
                if (ps_chunk_record(c, r->stats.records - 1, r->name, r->name_len) < 0) { ret = 1; break; }
                r->pending_record = 0;
                r->rec_has_syms = 1;
            } else if (ps_chunk_restart(c) < 0) {
                ret = 1;
                break;
            }
            r->pending_restart = 0;
            continue; /* the symbol is packed on the next pass */
        }
        if (v == PS_SYM_SKIP) {
            if (b == '\n') r->line++;
            pos++;
            continue;
        }
        if (v == PS_SYM_BREAK) {
            if (r->stats.symbols == 0 && n == n_entry) r->open_start = 0;
            r->breaks++;
            r->pending_restart = 1;
            r->seq_len++;
            pos++;
            continue;
        }
        /* Not sequence: a new record, the FASTQ '+' line, or an error. */
        int start = (pos ? buf[pos - 1] : r->prev) == '\n';
        if (start && !r->fastq && b == '>') {
            r->st = S_HEADER;
        } else if (start && r->fastq && b == '+') {
            r->st = S_FQ_PLUS;
        } else if (start && r->fastq && b == '@') {
            SYNC_OUT();
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' has no '+' line", r->path,
                           (unsigned long long)r->line, rec_name(r));
        } else {
            SYNC_OUT();
            return bad_byte(r, b, err);
        }
        pos++;
        ret = 2;
        break;
    }
    SYNC_OUT();
#undef SYNC_OUT
    r->seq_len += n - n_entry;
    r->stats.symbols += n - n_entry;
    return ret;
}

/* Starts a header: a new record, which also ends the previous segment. */
static void begin_record(ps_reader_t *r)
{
    r->st = S_HEADER;
    r->name_len = 0;
    r->name[0] = '\0';
    r->name_done = 0;
    r->seq_len = r->qual_len = 0;
    r->stats.records++;
    if (r->stats.symbols == 0) r->open_start = 0;
    r->breaks++;
    r->rec_has_syms = 0;
    r->pending_record = 1;
    r->pending_restart = 1;
}

/* Consumes header bytes; returns 1 when the header line ended. */
static int read_header(ps_reader_t *r)
{
    const unsigned char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
    size_t end = nl ? (size_t)(nl - r->buf) : r->len;
    for (size_t i = r->pos; i < end && !r->name_done; i++) {
        unsigned char b = r->buf[i];
        if (b == ' ' || b == '\t' || b == '\r') {
            if (r->name_len) r->name_done = 1; /* the name is the first word */
            continue;
        }
        if (r->name_len < PS_NAME_MAX) r->name[r->name_len++] = (char)b;
        r->name[r->name_len] = '\0';
    }
    r->pos = end;
    if (!nl) return 0;
    r->pos++;
    r->line++;
    return 1;
}

/* The one message for a quality line that does not match the bases, whether
 * too long (seen while reading) or too short (seen at the end). */
static int qual_mismatch(const ps_reader_t *r, ps_err_t *err)
{
    return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' has %llu quality characters for %llu bases",
                   r->path, (unsigned long long)r->qual_line, rec_name(r), (unsigned long long)r->qual_len,
                   (unsigned long long)r->seq_len);
}

/* Consumes quality bytes; 1 when the record's quality is complete, <0 on error. */
static int read_qual(ps_reader_t *r, ps_err_t *err)
{
    while (r->pos < r->len) {
        const unsigned char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        size_t end = nl ? (size_t)(nl - r->buf) : r->len;
        size_t n = end - r->pos;
        if (n && r->buf[end - 1] == '\r' && nl) n--;
        r->qual_len += n;
        r->pos = end;
        if (r->qual_len > r->seq_len)
            return qual_mismatch(r, err);
        if (!nl) return 0;
        r->pos++;
        r->line++;
        if (r->qual_len == r->seq_len) return 1;
    }
    return 0;
}

/* Ends the chunk: remembers the context the next chunk must repeat. */
static void close_chunk(ps_reader_t *r, ps_chunk_t *c)
{
    r->n_ctx = 0;
    if (r->pending_restart || r->pending_record || r->k <= 1) return;
    r->n_ctx = ps_chunk_tail(c, (uint32_t)r->k - 1, r->ctx);
}

static int finish_input(ps_reader_t *r, ps_err_t *err)
{
    switch (r->st) {
    case S_BEGIN:
        return ps_fail(err, PS_E_FORMAT, "%s: no sequence records found (empty input?)", r->path);
    case S_HEADER:
        if (r->fastq)
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' is truncated after its header",
                           r->path, (unsigned long long)r->line, rec_name(r));
        return PS_OK;
    case S_FQ_SEQ:
    case S_FQ_PLUS:
        return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' has no '+' line or quality (truncated?)",
                       r->path, (unsigned long long)r->line, rec_name(r));
    case S_FQ_QUAL:
        if (r->qual_len != r->seq_len)
            return qual_mismatch(r, err);
        return PS_OK;
    default:
        return PS_OK;
    }
}

int ps_reader_next(ps_reader_t *r, ps_chunk_t *c, ps_err_t *err)
{
    ps_chunk_clear(c);
    if (r->st == S_END || r->eof == 2) return 0;
    /* Repeat the unfinished segment's tail, and list the record it belongs to
     * (rec_has_syms alone says a record is open and already listed once). */
    if (r->rec_has_syms && ps_chunk_record(c, r->stats.records - 1, r->name, r->name_len) < 0)
        return ps_fail(err, PS_E_INTERNAL, "chunk lists too small");
    for (uint32_t j = 0; j < r->n_ctx; j++) ps_chunk_push(c, r->ctx[j]);
    c->n_ctx = r->n_ctx;

    for (;;) {
        if (r->pos == r->len) {
            int got = refill(r, err);
            if (got < 0) return got;
            if (got == 0) {
                int rc = r->block_mode ? PS_OK : finish_input(r, err);
                if (rc < 0) return rc;
                if (r->block_mode) r->eof = 2; /* keep the parse state for ps_block_end */
                else r->st = S_END;
                return c->n > c->n_ctx ? 1 : 0;
            }
        }
        switch (r->st) {
        case S_BEGIN:
        case S_FQ_NEXT:
            while (r->pos < r->len) {
                unsigned char b = r->buf[r->pos];
                if (b == '\n') {
                    r->line++;
                    r->pos++;
                } else if (b == ' ' || b == '\t' || b == '\r') {
                    r->pos++;
                } else if (r->st == S_BEGIN && (b == '>' || b == '@') && at_line_start(r)) {
                    r->fastq = b == '@';
                    r->stats.fastq = r->fastq;
                    r->pos++;
                    begin_record(r);
                    break;
                } else if (r->st == S_FQ_NEXT && b == '@' && at_line_start(r)) {
                    r->pos++;
                    begin_record(r);
                    break;
                } else if (r->st == S_BEGIN) {
                    if (b >= 0x20 && b < 0x7f)
                        return ps_fail(err, PS_E_FORMAT, "%s: line %llu: not FASTA or FASTQ (starts with '%c', expected '>' or '@')",
                                       r->path, (unsigned long long)r->line, b);
                    return ps_fail(err, PS_E_FORMAT, "%s: not FASTA or FASTQ (binary data, byte 0x%02x)", r->path, b);
                } else {
                    return ps_fail(err, PS_E_FORMAT, "%s: line %llu: expected '@' to start the FASTQ record after '%s'",
                                   r->path, (unsigned long long)r->line, rec_name(r));
                }
            }
            break;
        case S_HEADER:
            if (read_header(r)) r->st = r->fastq ? S_FQ_SEQ : S_FA_SEQ;
            break;
        case S_FA_SEQ:
        case S_FQ_SEQ: {
            int rc = pack_seq(r, c, err);
            if (rc < 0) return rc;
            if (rc == 1) {
                close_chunk(r, c);
                return 1;
            }
            if (rc == 2 && r->st == S_HEADER) begin_record(r);
            break;
        }
        case S_FQ_PLUS: {
            const unsigned char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
            if (!nl) {
                r->pos = r->len;
                break;
            }
            r->pos = (size_t)(nl - r->buf) + 1;
            r->line++;
            r->st = S_FQ_QUAL;
            r->qual_len = 0;
            r->qual_line = r->line;
            break;
        }
        case S_FQ_QUAL: {
            int rc = read_qual(r, err);
            if (rc < 0) return rc;
            if (rc == 1) {
                r->st = S_FQ_NEXT;
                r->pending_restart = 1;
            }
            break;
        }
            case S_END:
            return 0;
        }
    }
}

int ps_reader_is_fasta(ps_reader_t *r, ps_err_t *err)
{
    if (r->pos == r->len) {
        int got = refill(r, err);
        if (got <= 0) return got; /* an empty input goes the simple way and fails there */
    }
    /* Leading blank lines stay in the buffer for the parser, which counts them. */
    for (size_t i = r->pos; i < r->len; i++) {
        unsigned char b = r->buf[i];
        if (b != ' ' && b != '\t' && b != '\r' && b != '\n') return b == '>';
    }
    return 0;
}

int ps_reader_next_block(ps_reader_t *r, ps_block_t *b, ps_err_t *err)
{
    b->len = 0;
    b->first = r->carry == NULL; /* the carry buffer comes with the first block */
    if (r->eof && r->pos == r->len && r->carry_len == 0) return 0;
    if (b->first && !(r->carry = malloc(b->cap)))
        return ps_fail(err, PS_E_NOMEM, "out of memory for a %zu-byte block", b->cap);
    b->prev = r->prev;
    /* Bytes already here: what the last cut left over, then the peek buffer. */
    memcpy(b->buf, r->carry, r->carry_len);
    b->len = r->carry_len;
    r->carry_len = 0;
    size_t have = r->len - r->pos;
    if (have > b->cap - b->len) have = b->cap - b->len;
    memcpy(b->buf + b->len, r->buf + r->pos, have);
    b->len += have;
    r->pos += have;
    while (b->len < b->cap && !r->eof) {
        ssize_t got = read_input(r, b->buf + b->len, b->cap - b->len, err);
        if (got < 0) return (int)got;
        b->len += (size_t)got;
    }
    if (b->len == 0) return 0;
    /* Cut where a parser can start on its own: never inside a header line.
     * A header that starts in this block and has not ended moves whole to
     * the next block. */
    size_t cut = b->len;
    if (!(r->eof && r->pos == r->len)) {
        const unsigned char *nl = memrchr(b->buf, '\n', b->len);
        if (nl) {
            size_t line = (size_t)(nl - b->buf) + 1;
            if (line < b->len && b->buf[line] == '>') cut = line;
        } else if (b->prev == '\n' && b->buf[0] == '>') {
            return ps_fail(err, PS_E_FORMAT, "%s: a header line is longer than %zu bytes", r->path, b->cap);
        }
    }
    r->carry_len = b->len - cut;
    memcpy(r->carry, b->buf + cut, r->carry_len);
    b->len = cut;
    r->prev = b->buf[cut - 1];
    return 1;
}

int ps_block_parser_new(ps_reader_t **out, const ps_reader_t *main, ps_err_t *err)
{
    ps_reader_t *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(main->path))) {
        free(r);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    r->block_mode = 1;
    r->sigma = main->sigma;
    r->k = main->k;
    memcpy(r->tab, main->tab, sizeof r->tab);
    *out = r;
    return PS_OK;
}

void ps_block_parser_start(ps_reader_t *r, const ps_block_t *b, uint64_t line_base, const char *cont_name)
{
    r->buf = b->buf;
    r->len = b->len;
    r->pos = 0;
    r->eof = 0;
    r->prev = b->prev;
    r->fastq = 0;
    r->line = line_base + 1;
    r->st = b->first ? S_BEGIN : S_FA_SEQ;
    snprintf(r->name, sizeof r->name, "%s", cont_name ? cont_name : "");
    r->name_len = (uint32_t)strlen(r->name);
    r->name_done = 1;
    r->seq_len = r->qual_len = 0;
    /* The record in progress began in an earlier block: it is not listed
     * again (block mode serves totals, not per-record counts). */
    r->rec_has_syms = 0;
    r->pending_record = 0;
    r->pending_restart = b->first;
    r->n_ctx = 0;
    r->open_start = !b->first;
    r->breaks = 0;
    memset(&r->stats, 0, sizeof r->stats);
}

void ps_block_end(const ps_reader_t *r, ps_block_info_t *info)
{
    info->open_start = r->open_start;
    info->open_end = r->st == S_FA_SEQ && !r->pending_restart && !r->pending_record;
    info->one_segment = info->open_start && info->open_end && r->breaks == 0;
    info->records = r->stats.records;
    info->symbols = r->stats.symbols;
    info->lines = r->line - 1;
    snprintf(info->last_name, sizeof info->last_name, "%s", r->name);
}
