#include "parse.h"

#include <stdio.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void ps_parser_init(ps_parser_t *p, const char *path, ps_alpha_t a, int k)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    p->sigma = (uint32_t)ps_alpha_sigma(a);
    p->k = k;
    ps_alpha_table(a, p->tab);
    p->st = PS_P_BEGIN;
    p->line = 1;
    p->prev = '\n';
}

void ps_parser_feed(ps_parser_t *p, const unsigned char *buf, size_t len)
{
    p->buf = buf;
    p->len = len;
    p->pos = 0;
}

void ps_parser_resume(ps_parser_t *p, ps_piece_t where, unsigned char prev, uint64_t line_base,
                      const char *cont_name)
{
    int first = where == PS_PIECE_FIRST;
    p->buf = NULL;
    p->len = p->pos = 0;
    p->prev = prev;
    p->fastq = 0;
    p->line = line_base + 1;
    p->st = first ? PS_P_BEGIN : where == PS_PIECE_HEADER ? PS_P_HEADER : PS_P_FA_SEQ;
    snprintf(p->name, sizeof p->name, "%s", cont_name ? cont_name : "");
    p->name_len = (uint32_t)strlen(p->name);
    p->name_done = 1;
    p->seq_len = p->qual_len = 0;
    /* The record in progress began in an earlier piece: it is not listed
     * again (pieces serve totals, not per-record counts). A piece that
     * starts in a header starts a new segment after it. */
    p->rec_has_syms = 0;
    p->pending_record = 0;
    p->pending_restart = where != PS_PIECE_SEQ;
    p->n_ctx = 0;
    p->open_start = where == PS_PIECE_SEQ;
    p->breaks = 0;
    p->seg_rec_start = 0; /* set for each record; a piece's first segment is not known to start one */
    p->seg_rec_end = 0;
    p->ctx_edge = 0;
    memset(&p->stats, 0, sizeof p->stats);
}

static int at_line_start(const ps_parser_t *r)
{
    return (r->pos ? r->buf[r->pos - 1] : r->prev) == '\n';
}

static const char *rec_name(const ps_parser_t *r) { return r->name; }

static int bad_byte(ps_parser_t *r, unsigned char b, ps_err_t *err)
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

static void mark_edge(ps_parser_t *r, ps_chunk_t *c, uint64_t off);

/* Packs up to `words` whole words of pw symbols of `bits` bits from q into
 * out, stopping before the first word holding a byte that is no symbol.
 * Returns the words packed. Inlined with constants for the common case. */
static inline __attribute__((always_inline)) size_t pack_words(const uint8_t *tab, uint32_t sigma,
                                                               const unsigned char *q, size_t words, uint32_t *out,
                                                               uint32_t pw, uint32_t bits)
{
    size_t i = 0;
    for (; i < words; i++, q += pw) {
        uint32_t w = 0, bad = 0;
        for (uint32_t j = 0; j < pw; j++) {
            uint32_t v = tab[q[j]];
            bad |= v >= sigma;
            w |= v << (j * bits);
        }
        if (bad) break;
        out[i] = w;
    }
    return i;
}

/* Packs the sequence bytes at the buffer position into c. Returns 0 when the
 * buffer is used up, 1 when the chunk is full, 2 when the sequence ended (the
 * state was changed), <0 on error. The hot loop keeps the partial word in a
 * register and writes it back on the way out. */
static int pack_seq(ps_parser_t *r, ps_chunk_t *c, ps_err_t *err)
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
        /* Other alphabets whole words at a time, from where one starts,
         * while their bytes are all symbols (a protein's word: six residues). */
        if (bits != 2 && fill == 0 && !(r->pending_restart | r->pending_record)) {
            const uint32_t pw = c->per_word;
            size_t words = (len - pos) / pw;
            if ((cap - n) / pw < words) words = (size_t)((cap - n) / pw);
            size_t done = pw == 6 && bits == 5 ? pack_words(tab, sigma, buf + pos, words, text + n / pw, 6, 5)
                                               : pack_words(tab, sigma, buf + pos, words, text + n / pw, pw, bits);
            n += done * pw;
            pos += done * pw;
            if (done == words && words) continue;
        }
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
            /* The record offset of the symbol about to be packed. */
            mark_edge(r, c, r->seq_len + (n - n_entry));
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
            /* A break after symbols ends their segment short of the record's end. */
            if (!r->pending_restart) r->seg_rec_end = 0;
            r->seg_rec_start = 0;
            r->breaks++;
            r->stats.other++;
            r->stats.foreign += (b | 0x20) != 'n';
            r->pending_restart = 1;
            r->seq_len++;
            pos++;
            continue;
        }
        /* Not sequence: a new record, the FASTQ '+' line, or an error. */
        int start = (pos ? buf[pos - 1] : r->prev) == '\n';
        if (start && !r->fastq && b == '>') {
            r->st = PS_P_HEADER;
        } else if (start && r->fastq && b == '+') {
            if (!r->pending_restart) r->seg_rec_end = 1;
            r->st = PS_P_FQ_PLUS;
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
static void begin_record(ps_parser_t *r)
{
    r->st = PS_P_HEADER;
    r->name_len = 0;
    r->name[0] = '\0';
    r->name_done = 0;
    r->name_long = 0;
    r->seq_len = r->qual_len = 0;
    r->stats.records++;
    if (r->stats.symbols == 0) r->open_start = 0;
    r->breaks++;
    r->rec_has_syms = 0;
    /* The segment so far ends at its record's last letter unless a break
     * came after its last symbol (or it ended with a FASTQ sequence). */
    if (!r->pending_restart) r->seg_rec_end = 1;
    r->seg_rec_start = 1;
    r->pending_record = 1;
    r->pending_restart = 1;
}

/* Consumes header bytes; returns 1 when the header line ended. */
static int read_header(ps_parser_t *r)
{
    const unsigned char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
    size_t end = nl ? (size_t)(nl - r->buf) : r->len;
    for (size_t i = r->pos; i < end && !r->name_done; i++) {
        unsigned char b = r->buf[i];
        if (b == ' ' || b == '\t' || b == '\r') {
            if (r->name_len) r->name_done = 1; /* the name is the first word */
            continue;
        }
        if (r->name_len < PS_NAME_MAX) {
            r->name[r->name_len++] = (char)b;
            r->name[r->name_len] = '\0';
        } else if (!r->name_long) {
            r->name_long = 1;
            r->stats.names_cut++;
        }
    }
    r->pos = end;
    if (!nl) return 0;
    r->pos++;
    r->line++;
    return 1;
}

/* The one message for a quality line that does not match the bases, whether
 * too long (seen while reading) or too short (seen at the end). */
static int qual_mismatch(const ps_parser_t *r, ps_err_t *err)
{
    return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' has %llu quality characters for %llu bases",
                   r->path, (unsigned long long)r->qual_line, rec_name(r), (unsigned long long)r->qual_len,
                   (unsigned long long)r->seq_len);
}

/* Consumes quality bytes; 1 when the record's quality is complete, <0 on error. */
static int read_qual(ps_parser_t *r, ps_err_t *err)
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

/* The restart just marked before position c->n starts a segment, whose
 * first symbol lies at record offset off: record that, and how the
 * segments on either side meet their records' edges. */
static void mark_edge(ps_parser_t *r, ps_chunk_t *c, uint64_t off)
{
    uint8_t e = (uint8_t)((r->seg_rec_start ? PS_EDGE_REC_START : 0) | (r->seg_rec_end ? PS_EDGE_REC_END : 0));
    if (c->n == 0) {
        c->head_edge = e & PS_EDGE_REC_START;
        c->head_off = off;
    } else {
        c->edge[c->n_restart - 1] = e;
        c->seg_off[c->n_restart - 1] = off;
    }
    r->seg_rec_start = r->seg_rec_end = 0;
}

/* Ends the chunk: remembers the context the next chunk must repeat, or
 * says that the last segment ended here. */
static void close_chunk(ps_parser_t *r, ps_chunk_t *c)
{
    r->n_ctx = 0;
    r->ctx_edge = 0;
    if (r->pending_restart || r->pending_record) {
        c->tail_edge = (uint8_t)(PS_EDGE_CLOSED | (r->seg_rec_end ? PS_EDGE_REC_END : 0));
        return;
    }
    if (r->k <= 1) return;
    r->n_ctx = ps_chunk_tail(c, (uint32_t)r->k - 1, r->ctx);
    /* The context begins its record when the whole segment fits in it. */
    uint64_t seg = c->n_restart ? c->restart[c->n_restart - 1] : 0;
    uint8_t starts = c->n_restart ? c->edge[c->n_restart - 1] & PS_EDGE_REC_START : c->head_edge;
    if (c->n - seg <= r->n_ctx) r->ctx_edge = starts;
}

void ps_parser_end_chunk(ps_parser_t *r, ps_chunk_t *c)
{
    if (r->st == PS_P_FA_SEQ && !r->pending_restart) r->seg_rec_end = 1;
    c->tail_edge = (uint8_t)(PS_EDGE_CLOSED | (r->seg_rec_end ? PS_EDGE_REC_END : 0));
}

int ps_parser_finish(const ps_parser_t *r, ps_err_t *err)
{
    switch (r->st) {
    case PS_P_BEGIN:
        return PS_OK; /* nothing but blank lines: an empty input, zero records */
    case PS_P_HEADER:
        if (r->fastq)
            return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' is truncated after its header",
                           r->path, (unsigned long long)r->line, rec_name(r));
        return PS_OK;
    case PS_P_FQ_SEQ:
    case PS_P_FQ_PLUS:
        return ps_fail(err, PS_E_FORMAT, "%s: line %llu: FASTQ record '%s' has no '+' line or quality (truncated?)",
                       r->path, (unsigned long long)r->line, rec_name(r));
    case PS_P_FQ_QUAL:
        if (r->qual_len != r->seq_len)
            return qual_mismatch(r, err);
        return PS_OK;
    default:
        return PS_OK;
    }
}


int ps_parser_chunk(ps_parser_t *r, ps_chunk_t *c, ps_err_t *err)
{
    ps_chunk_clear(c);
    /* Repeat the unfinished segment's tail, and list the record it belongs to
     * (rec_has_syms alone says a record is open and already listed once). */
    if (r->rec_has_syms && ps_chunk_record(c, r->stats.records - 1, r->name, r->name_len) < 0)
        return ps_fail(err, PS_E_INTERNAL, "chunk lists too small");
    for (uint32_t j = 0; j < r->n_ctx; j++) ps_chunk_push(c, r->ctx[j]);
    c->n_ctx = r->n_ctx;
    c->head_edge = r->n_ctx ? r->ctx_edge : 0;
    /* The context ends just before the record's next letter. */
    c->head_off = r->seq_len - r->n_ctx;
    return PS_OK;
}

int ps_parser_fill(ps_parser_t *r, ps_chunk_t *c, ps_err_t *err)
{
    while (r->pos < r->len) {
        switch (r->st) {
        case PS_P_BEGIN:
        case PS_P_FQ_NEXT:
            while (r->pos < r->len) {
                unsigned char b = r->buf[r->pos];
                if (b == '\n') {
                    r->line++;
                    r->pos++;
                } else if (b == ' ' || b == '\t' || b == '\r') {
                    r->pos++;
                } else if (r->st == PS_P_BEGIN && (b == '>' || b == '@') && at_line_start(r)) {
                    r->fastq = b == '@';
                    r->pos++;
                    begin_record(r);
                    break;
                } else if (r->st == PS_P_FQ_NEXT && b == '@' && at_line_start(r)) {
                    r->pos++;
                    begin_record(r);
                    break;
                } else if (r->st == PS_P_BEGIN) {
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
        case PS_P_HEADER:
            if (read_header(r)) r->st = r->fastq ? PS_P_FQ_SEQ : PS_P_FA_SEQ;
            break;
        case PS_P_FA_SEQ:
        case PS_P_FQ_SEQ: {
            int rc = pack_seq(r, c, err);
            if (rc < 0) return rc;
            if (rc == 1) {
                close_chunk(r, c);
                return 1;
            }
            if (rc == 2 && r->st == PS_P_HEADER) begin_record(r);
            break;
        }
        case PS_P_FQ_PLUS: {
            const unsigned char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
            if (!nl) {
                r->pos = r->len;
                break;
            }
            r->pos = (size_t)(nl - r->buf) + 1;
            r->line++;
            r->st = PS_P_FQ_QUAL;
            r->qual_len = 0;
            r->qual_line = r->line;
            break;
        }
        case PS_P_FQ_QUAL: {
            int rc = read_qual(r, err);
            if (rc < 0) return rc;
            if (rc == 1) {
                r->st = PS_P_FQ_NEXT;
                r->pending_restart = 1;
            }
            break;
        }
        }
    }
    /* The buffer is used up (its owner may overwrite it now): keep its last
     * byte for the line-start test at the next one's first byte. */
    if (r->len) r->prev = r->buf[r->len - 1];
    r->len = r->pos = 0;
    return 0;
}
