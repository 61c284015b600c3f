#include "seqio.h"

#include "gunzip.h"
#include "twobit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts.h>
#include <htslib/kstring.h>
#include <htslib/sam.h>
#include <zlib.h>

#define PS_IO_BUF (1u << 20)

struct ps_reader {
    char *path;
    uint64_t file_size;
    /* Exactly one source: ISA-L for plain gzip where the build has it,
     * BGZF (htslib's, which also reads plain text, and plain gzip without
     * ISA-L), zlib (a file of BGZF and plain gzip members mixed), or
     * SAM/BAM/CRAM records turned into FASTA text. */
    BGZF *fp;
    gzFile gz;
    ps_gunzip_t *gunzip;   /* plain gzip, with ISA-L (gunzip.h) */
    ps_twobit_t *tb;       /* a 2bit genome, turned into FASTA text (twobit.h) */
    htsFile *hts;
    sam_hdr_t *hdr;
    bam1_t *rec;
    uint64_t n_rec;        /* SAM records read, for messages */
    kstring_t fa;          /* the current record as FASTA text */
    size_t fa_off;         /* bytes of it handed out */
    unsigned char *buf;    /* PS_IO_BUF bytes, of which len were read */
    size_t len;
    int eof;               /* the input is used up */
    int done;              /* ps_reader_next reported the end */
    size_t raw_pos;        /* raw access: bytes of buf already handed out */
    int started;           /* data was read (a byte-order mark is looked for before) */
    int raw;               /* bytes are handed out raw (ps_reader_read_raw) */
    char near[48];
    int after_cr;          /* the last byte read was a CR */
    ps_parser_t p;
    ps_reader_stats_t stats;
};

/* Outcome of walking a seekable BGZF file's block headers. */
enum { WALK_TRUNCATED, WALK_MIXED, WALK_ERROR, WALK_TRAILING };

/* A seekable file that starts as BGZF but has no end-of-file block is either
 * cut short or BGZF followed by plain gzip members (`cat a.bgz b.gz`). The
 * block headers tell which without inflating anything: each BGZF block
 * gives its own size, so the walk hops from header to header. */
static int walk_bgzf(const char *path)
{
    hFILE *f = hopen(path, "r");
    if (!f) return WALK_ERROR;
    int res = WALK_TRUNCATED, last_eof = 0;
    for (;;) {
        unsigned char h[18];
        ssize_t got = hread(f, h, sizeof h);
        if (got < 0) {
            res = WALK_ERROR;
            break;
        }
        if (got < (ssize_t)sizeof h) break; /* the end, or a cut inside a header */
        if (h[0] != 0x1f || h[1] != 0x8b) { /* not gzip: a cut, or bytes after the end */
            if (last_eof) res = WALK_TRAILING;
            break;
        }
        /* BGZF: FEXTRA with a 6-byte "BC" subfield holding the block size. */
        int bgzf = h[2] == 8 && (h[3] & 4) && h[10] == 6 && h[12] == 'B' && h[13] == 'C' && h[14] == 2;
        if (!bgzf) {
            res = WALK_MIXED;
            break;
        }
        last_eof = (h[16] | (h[17] << 8)) + 1 == 28; /* the empty end-of-file block */
        off_t next = htell(f) - (off_t)sizeof h + (off_t)(h[16] | (h[17] << 8)) + 1;
        if (hseek(f, next, SEEK_SET) < 0) {
            res = WALK_ERROR;
            break;
        }
    }
    if (hclose(f) != 0 && res != WALK_MIXED) res = WALK_ERROR;
    return res;
}

/* The compressions probescan does not read, as htslib names them and by
 * their magic bytes, with the command that decompresses each. */
static const struct {
    enum htsCompression compression;
    const char *magic, *name, *tool;
    size_t len;
} unread[] = {{bzip2_compression, "BZh", "bzip2", "bzip2 -dc", 3},
              {xz_compression, "\xfd" "7zXZ", "xz", "xz -dc", 5},
              {zstd_compression, "\x28\xb5\x2f\xfd", "zstd", "zstd -dc", 4}};
#define N_UNREAD (sizeof unread / sizeof *unread)

const char *ps_unread_compression(const void *buf, size_t n, const char **tool)
{
    for (size_t i = 0; i < N_UNREAD; i++)
        if (n >= unread[i].len && !memcmp(buf, unread[i].magic, unread[i].len)) {
            *tool = unread[i].tool;
            return unread[i].name;
        }
    return NULL;
}

/* Formats that htslib could name but that are no sequence text we read. */
static int refuse_format(const char *path, const htsFormat *fmt, ps_err_t *err)
{
    for (size_t i = 0; i < N_UNREAD; i++)
        if (fmt->compression == unread[i].compression)
            return ps_fail(err, PS_E_FORMAT,
                           "%s: %s-compressed input is not read directly; decompress it on the fly, "
                           "e.g. `%s %s | probescan count ... -`",
                           path, unread[i].name, unread[i].tool, path);
    return PS_OK;
}

int ps_reader_open(ps_reader_t **out, const char *path, ps_alpha_t a, int k, hts_tpool *pool,
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
    ps_parser_init(&r->p, r->path, a, k);
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
        /* A 2bit genome: its sequences as FASTA text. */
        unsigned char magic[4];
        FILE *f = S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
        const int twobit = f && fread(magic, 1, 4, f) == 4 && ps_twobit_magic(magic, 4);
        if (f) fclose(f);
        if (twobit) {
            int rc = ps_twobit_open(&r->tb, path, err);
            if (rc < 0) {
                ps_reader_close(r);
                return rc;
            }
            r->stats.format = "2bit";
            *out = r;
            return PS_OK;
        }
    }
    errno = 0;
    hFILE *hf = hopen(path, "r");
    if (!hf) {
        int e = errno;
        ps_reader_close(r);
        return ps_fail(err, PS_E_IO, "%s: cannot open: %s", path, e ? strerror(e) : "unknown error");
    }
    htsFormat fmt;
    if (hts_detect_format(hf, &fmt) < 0) {
        int e = errno;
        hclose_abruptly(hf);
        ps_reader_close(r);
        return ps_fail(err, PS_E_IO, "%s: cannot read: %s", path, e ? strerror(e) : "unknown error");
    }
    int rc = refuse_format(path, &fmt, err);
    if (rc < 0) {
        hclose_abruptly(hf);
        ps_reader_close(r);
        return rc;
    }
    if (fmt.format == sam || fmt.format == bam || fmt.format == cram) {
        /* Reads as sequencers now deliver them (PacBio HiFi, ONT): records
         * back in their original orientation, as samtools fastq gives them. */
        r->stats.format = fmt.format == sam ? "sam" : fmt.format == bam ? "bam" : "cram";
        r->hts = hts_hopen(hf, path, "r");
        if (!r->hts) hclose_abruptly(hf);
        if (!r->hts || !(r->hdr = sam_hdr_read(r->hts)) || !(r->rec = bam_init1())) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_FORMAT, "%s: cannot read the %s header", path, fmt.format == sam ? "SAM"
                                                                                   : fmt.format == bam ? "BAM" : "CRAM");
        }
        /* BAM and CRAM inflate on the pool; SAM text is read on the calling
         * thread (htslib's threaded SAM parser waits at the end of a
         * shared pool's input). */
        if (pool && fmt.format != sam && hts_set_thread_pool(r->hts, &(htsThreadPool){pool, 0}) < 0) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: cannot start decompression on the thread pool", path);
        }
        *out = r;
        return PS_OK;
    }
    if (fmt.compression == gzip && ps_gunzip_available()) {
        rc = ps_gunzip_open(&r->gunzip, hf, r->path, err);
        if (rc < 0) {
            ps_reader_close(r);
            return rc;
        }
        *out = r;
        return PS_OK;
    }
    r->fp = bgzf_hopen(hf, "r");
    if (!r->fp) {
        hclose_abruptly(hf);
        ps_reader_close(r);
        return ps_fail(err, PS_E_IO, "%s: cannot open", path);
    }
    if (r->fp->is_compressed && !r->fp->is_gzip) {
        /* BGZF: a missing end-of-file block means the file was cut short, or
         * plain gzip members follow (read those with zlib, on one thread).
         * The pool only where the whole file could be checked that way: the
         * threaded reader does not always notice a cut inside a block, and
         * on a pipe the single-threaded one checks the end as it gets there. */
        int eof_ok = bgzf_check_EOF(r->fp);
        if (eof_ok == 0) {
            int walk = walk_bgzf(path);
            if (walk != WALK_MIXED) {
                ps_reader_close(r);
                return walk == WALK_ERROR      ? ps_fail(err, PS_E_IO, "%s: read error", path)
                       : walk == WALK_TRAILING ? ps_fail(err, PS_E_FORMAT,
                                                         "%s: bytes that are not gzip after the BGZF end-of-file block",
                                                         path)
                                               : ps_fail(err, PS_E_IO, "%s: truncated BGZF file (no end-of-file block)", path);
            }
            bgzf_close(r->fp);
            r->fp = NULL;
            if (!(r->gz = gzopen(path, "rb")) || gzbuffer(r->gz, 1u << 20) != 0) {
                ps_reader_close(r);
                return ps_fail(err, PS_E_IO, "%s: cannot open", path);
            }
        }
        if (eof_ok == 1 && pool && bgzf_thread_pool(r->fp, pool, 2 * hts_tpool_size(pool)) < 0) {
            ps_reader_close(r);
            return ps_fail(err, PS_E_IO, "%s: cannot start decompression on the thread pool", path);
        }
    }
    *out = r;
    return PS_OK;
}

void ps_reader_close(ps_reader_t *r)
{
    if (!r) return;
    if (r->fp) bgzf_close(r->fp);
    if (r->gz) gzclose(r->gz);
    ps_gunzip_close(r->gunzip);
    ps_twobit_close(r->tb);
    sam_hdr_destroy(r->hdr);
    if (r->hts) hts_close(r->hts);
    bam_destroy1(r->rec);
    free(r->fa.s);
    free(r->path);
    free(r->buf);
    free(r);
}

const char *ps_reader_path(const ps_reader_t *r) { return r->path; }

const ps_reader_stats_t *ps_reader_stats(const ps_reader_t *r) { return &r->stats; }

/* Compressed bytes consumed so far, or -1. */
static int64_t consumed(const ps_reader_t *r)
{
    if (r->fp && r->fp->fp) return htell(r->fp->fp);
    if (r->gz) return gzoffset(r->gz);
    if (r->gunzip) return ps_gunzip_consumed(r->gunzip);
    if (r->tb) return (int64_t)ps_twobit_consumed(r->tb);
    if (r->hts && r->hts->is_bgzf && r->hts->fp.bgzf->fp) return htell(r->hts->fp.bgzf->fp);
    return -1;
}

void ps_reader_progress(const ps_reader_t *r, uint64_t *done, uint64_t *total)
{
    int64_t off = consumed(r);
    *done = off > 0 ? (uint64_t)off : 0;
    *total = r->file_size;
}

/* Lone CRs (old Mac files) end lines as LF and CRLF do: each CR becomes an
 * LF and an LF right after a CR is dropped, so the parser sees LFs only and
 * line numbers stay the file's. Returns the new length. */
static size_t fold_cr(unsigned char *b, size_t n, int *after_cr)
{
    if (!n) return 0;
    size_t from = *after_cr && b[0] == '\n'; /* the LF of a CRLF cut between reads */
    int ends_cr = b[n - 1] == '\r';
    unsigned char *cr = memchr(b + from, '\r', n - from);
    size_t w, rd;
    if (!cr) {
        if (from) memmove(b, b + 1, n - 1);
        *after_cr = 0;
        return n - from;
    }
    w = (size_t)(cr - b) - from;
    if (from) memmove(b, b + 1, w);
    for (rd = (size_t)(cr - b); rd < n; rd++) {
        if (b[rd] != '\r') {
            b[w++] = b[rd];
            continue;
        }
        b[w++] = '\n';
        if (rd + 1 < n && b[rd + 1] == '\n') rd++;
    }
    *after_cr = ends_cr;
    return w;
}

/* The next SAM/BAM/CRAM records as FASTA text, at most len bytes: primary
 * records only (secondary and supplementary ones repeat a read), each in
 * the orientation it was sequenced in. Returns the bytes written (fewer than
 * len only at the end) or a negative code. */
static ssize_t read_records(ps_reader_t *r, unsigned char *dst, size_t len, ps_err_t *err)
{
    /* Complements of htslib's 4-bit base codes: the code with its bits reversed. */
    static const uint8_t comp16[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    size_t have = 0;
    while (have < len) {
        if (r->fa_off == r->fa.l) {
            int ret;
            do {
                ret = sam_read1(r->hts, r->hdr, r->rec);
            } while (ret >= 0 && (r->rec->core.flag & (BAM_FSECONDARY | BAM_FSUPPLEMENTARY)));
            if (ret == -1) break;
            if (ret < -1 && !strcmp(r->stats.format, "cram") && sam_hdr_nref(r->hdr) > 0)
                /* Aligned CRAM stores bases against its reference: without
                 * it htslib can only report a decoding failure. */
                return ps_fail(err, PS_E_FORMAT,
                               "%s: cannot decode CRAM record %llu: aligned CRAM needs the reference "
                               "it was made against (its @SQ M5 checksums), and it was not found; set REF_PATH "
                               "(e.g. REF_PATH=/refs/cache/%%2s/%%2s/%%s, filled by htslib's seq_cache_populate.pl) "
                               "or stream it: samtools fastq --reference ref.fa %s | probescan ... -",
                               r->path, (unsigned long long)r->n_rec + 1, r->path);
            if (ret < -1)
                return ps_fail(err, PS_E_FORMAT, "%s: corrupt or truncated %s data after record %llu", r->path,
                               r->stats.format, (unsigned long long)r->n_rec);
            r->n_rec++;
            const bam1_t *b = r->rec;
            const uint8_t *sq = bam_get_seq(b);
            int n = b->core.l_qseq, rev = (b->core.flag & BAM_FREVERSE) != 0;
            r->fa.l = 0;
            r->fa_off = 0;
            if (ks_resize(&r->fa, (size_t)n + b->core.l_qname + 4) < 0)
                return ps_fail(err, PS_E_NOMEM, "out of memory for a %d-base record", n);
            kputc('>', &r->fa);
            kputs(bam_get_qname(b), &r->fa);
            kputc('\n', &r->fa);
            for (int i = 0; i < n; i++)
                r->fa.s[r->fa.l++] = seq_nt16_str[rev ? comp16[bam_seqi(sq, n - 1 - i)] : bam_seqi(sq, i)];
            kputc('\n', &r->fa);
        }
        size_t n = r->fa.l - r->fa_off;
        if (n > len - have) n = len - have;
        memcpy(dst + have, r->fa.s + r->fa_off, n);
        r->fa_off += n;
        have += n;
    }
    return (ssize_t)have;
}

/* " near line N" where the reader's own parser knows N; "" where the input
 * is handed out raw (blocks are parsed elsewhere, lines counted there). */
static const char *near_line(ps_reader_t *r)
{
    if (r->raw) return "";
    snprintf(r->near, sizeof r->near, " near line %llu", (unsigned long long)r->p.line);
    return r->near;
}

/* Up to len bytes from whichever source the input has; 0 at its end. */
static ssize_t read_source(ps_reader_t *r, unsigned char *dst, size_t len, ps_err_t *err)
{
    if (r->hts) return read_records(r, dst, len, err);
    if (r->tb) return ps_twobit_read(r->tb, dst, len, err);
    if (r->gunzip) return ps_gunzip_read(r->gunzip, dst, len, near_line(r), err);
    ssize_t got;
    if (r->gz) {
        unsigned want = len > (1u << 30) ? 1u << 30 : (unsigned)len;
        got = gzread(r->gz, dst, want);
        int zerr = Z_OK;
        if (got <= 0) gzerror(r->gz, &zerr);
        if (got < 0 || (got == 0 && zerr != Z_OK))
            return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated gzip data%s", r->path, near_line(r));
        return got;
    }
    got = bgzf_read(r->fp, dst, len);
    if (got < 0)
        return ps_fail(err, PS_E_IO, "%s: read error: corrupt or truncated compressed data%s", r->path, near_line(r));
    if (got == 0 && r->fp->is_compressed && !r->fp->is_gzip && !r->fp->last_block_eof)
        return ps_fail(err, PS_E_IO, "%s: truncated BGZF file (no end-of-file block)", r->path);
    return got;
}

/* Reads up to len bytes into dst, with line ends folded and a leading UTF-8
 * byte-order mark dropped; fewer than len only at the end of the input.
 * At the end sets r->eof and checks that the input was whole: for BGZF the
 * end-of-file marker block (threaded decompression can otherwise miss a cut
 * that falls inside a block), for a regular file that it did not shrink
 * while being read. Returns the bytes read or a negative code. */
static ssize_t read_input(ps_reader_t *r, void *dst, size_t len, ps_err_t *err)
{
    unsigned char *d = dst;
    size_t have = 0;
    while (have < len && !r->eof) {
        ssize_t got = read_source(r, d + have, len - have, err);
        if (got < 0) return got;
        r->stats.bytes += (uint64_t)got;
        if (got == 0) {
            r->eof = 1;
            int64_t at = consumed(r);
            if (r->file_size && at >= 0 && (uint64_t)at < r->file_size)
                return ps_fail(err, PS_E_IO, "%s: the file shrank while being read (%lld of %llu bytes there)",
                               r->path, (long long)at, (unsigned long long)r->file_size);
            break;
        }
        unsigned char *at = d + have;
        size_t n = (size_t)got;
        if (!r->started) {
            r->started = 1;
            if (n >= 3 && at[0] == 0xEF && at[1] == 0xBB && at[2] == 0xBF) {
                memmove(at, at + 3, n - 3);
                n -= 3;
            }
        }
        have += fold_cr(at, n, &r->after_cr);
    }
    return (ssize_t)have;
}

/* Reads the next buffer. Returns 1 with data, 0 at end of input, <0 on error. */
static int refill(ps_reader_t *r, ps_err_t *err)
{
    if (r->eof) return 0;
    ssize_t got = read_input(r, r->buf, PS_IO_BUF, err);
    if (got < 0) return (int)got;
    r->len = (size_t)got;
    r->raw_pos = 0;
    return got > 0;
}

int ps_reader_next(ps_reader_t *r, ps_chunk_t *c, ps_err_t *err)
{
    if (r->done) {
        ps_chunk_clear(c);
        return 0;
    }
    int rc = ps_parser_chunk(&r->p, c, err);
    while (rc == PS_OK) {
        rc = ps_parser_fill(&r->p, c, err);
        if (rc != 0) break; /* full, or an error */
        int got = refill(r, err);
        if (got < 0) return got;
        if (got == 0) {
            r->done = 1;
            if ((rc = ps_parser_finish(&r->p, err)) < 0) return rc;
            ps_parser_end_chunk(&r->p, c);
            rc = ps_parser_chunk_has_syms(c);
            break;
        }
        ps_parser_feed(&r->p, r->buf, r->len);
    }
    r->stats.records = r->p.stats.records;
    r->stats.symbols = r->p.stats.symbols;
    r->stats.other = r->p.stats.other;
    r->stats.foreign = r->p.stats.foreign;
    r->stats.names_cut = r->p.stats.names_cut;
    r->stats.fastq = r->p.fastq;
    return rc;
}

int ps_reader_is_fasta(ps_reader_t *r, ps_err_t *err)
{
    if (r->len == 0) {
        int got = refill(r, err);
        if (got <= 0) return got; /* an empty input goes the simple way and fails there */
        ps_parser_feed(&r->p, r->buf, r->len);
    }
    /* Leading blank lines stay in the buffer for the parser, which counts them. */
    for (size_t i = r->raw_pos; i < r->len; i++) {
        unsigned char b = r->buf[i];
        if (b != ' ' && b != '\t' && b != '\r' && b != '\n') return b == '>';
    }
    return 0;
}

ssize_t ps_reader_read_raw(ps_reader_t *r, void *dst, size_t len, ps_err_t *err)
{
    r->raw = 1;
    /* What was peeked at first, then straight from the input. */
    if (r->raw_pos < r->len) {
        size_t n = r->len - r->raw_pos;
        if (n > len) n = len;
        memcpy(dst, r->buf + r->raw_pos, n);
        r->raw_pos += n;
        return (ssize_t)n;
    }
    if (r->eof) return 0;
    return read_input(r, dst, len, err);
}

double ps_inputs_bytes(const char *const *inputs, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (!strcmp(inputs[i], "-") || stat(inputs[i], &st) != 0 || !S_ISREG(st.st_mode)) return 0;
        unsigned char magic[4] = {0, 0, 0, 0};
        FILE *f = fopen(inputs[i], "rb");
        if (f) {
            if (fread(magic, 1, 4, f) != 4) magic[0] = 0;
            fclose(f);
        }
        /* gzip holds about 3.5 bytes a byte of text, 2bit 4 bases a byte. */
        total += (double)st.st_size * (magic[0] == 0x1f && magic[1] == 0x8b ? 3.5 : ps_twobit_magic(magic, 4) ? 4.0 : 1.0);
    }
    return total;
}
