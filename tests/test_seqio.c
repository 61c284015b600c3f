/* test_seqio.c - the streaming reader of seqio.h on small files written
 * here: FASTA and FASTQ (single- and multi-line), CRLF, case, N runs, empty
 * and short records, gzip and BGZF, tiny chunks, and every bad input.
 *
 * What the reader produced is checked two ways against what the file says:
 * the symbols of each record (names and ordinals included), and the list of
 * k-symbol windows a scan may count, which is what the chunk layout (context,
 * restarts) exists for. Chunk invariants of pack.h are checked on the way. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <htslib/hts_log.h>
#include <htslib/sam.h>
#include <zlib.h>

#include "pack.h"
#include "seqio.h"
#include "testutil.h"

static char *g_dir;

static void setup(void)
{
    g_dir = tu_mkdtemp();
    /* The messages that matter are the reader's own; htslib's are noise here. */
    hts_set_log_level(HTS_LOG_OFF);
}
static void teardown(void)
{
    tu_rmtree(g_dir);
    g_dir = NULL;
}

typedef struct {
    const char *name; /* header line after '>' or '@' (name and description) */
    const char *seq;  /* raw sequence: letters in any case, N runs, spaces */
} rec_t;

typedef struct {
    int fastq;
    int wrap;          /* letters per line, 0 = one line */
    int crlf;
    int final_newline; /* end the file with a line break */
} fmt_t;

static const char protein_syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

/* What a byte of a sequence line is: the symbol's letter, 0 for a letter
 * outside the alphabet (a restart), -1 for whitespace (ignored). */
static int classify(ps_alpha_t a, char ch)
{
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') return -1;
    int up = toupper((unsigned char)ch);
    if (a == PS_DNA) {
        if (up == 'U') return 'T';
        if (up == 'A' || up == 'C' || up == 'G' || up == 'T') return up;
        ck_assert_msg(isalpha(up), "test data error: byte %d", ch);
        return 0;
    }
    ck_assert_msg(strchr(protein_syms, up) != NULL && up, "test data error: byte %d", ch);
    return up;
}

static void first_word(const char *hdr, tu_buf_t *out)
{
    size_t n = strcspn(hdr, " \t\r\n");
    tu_buf_put(out, hdr, n);
}

/* The expected symbol stream and window list of records. */
static void expect(const rec_t *recs, int n, ps_alpha_t a, int k, tu_buf_t *syms, tu_buf_t *wins,
                   uint64_t *n_syms)
{
    int any = 0;
    *n_syms = 0;
    tu_buf_t seg = {0};
    for (int r = 0; r < n; r++) {
        int started = 0;
        seg.n = 0;
        for (const char *p = recs[r].seq; *p; p++) {
            int c = classify(a, *p);
            if (c < 0) continue;
            if (c == 0) {
                seg.n = 0;
                continue;
            }
            if (!started) {
                if (any) tu_buf_putc(syms, '\n');
                tu_buf_printf(syms, "#%d:", r);
                first_word(recs[r].name, syms);
                tu_buf_putc(syms, '\n');
                started = any = 1;
            }
            tu_buf_putc(syms, (char)c);
            (*n_syms)++;
            tu_buf_putc(&seg, (char)c);
            if (seg.n >= (size_t)k) {
                tu_buf_put(wins, seg.p + seg.n - (size_t)k, (size_t)k);
                tu_buf_putc(wins, '\n');
            }
        }
    }
    if (any) tu_buf_putc(syms, '\n');
    if (!syms->p) tu_buf_put(syms, "", 0);
    if (!wins->p) tu_buf_put(wins, "", 0);
    tu_buf_free(&seg);
}

/* Writes the records as FASTA or FASTQ. */
static void render(tu_buf_t *out, const rec_t *recs, int n, fmt_t f, uint64_t qual_seed)
{
    const char *eol = f.crlf ? "\r\n" : "\n";
    tu_rng_t rng;
    tu_rng_seed(&rng, qual_seed);
    for (int r = 0; r < n; r++) {
        tu_buf_putc(out, f.fastq ? '@' : '>');
        tu_buf_puts(out, recs[r].name);
        tu_buf_puts(out, eol);
        size_t len = strlen(recs[r].seq);
        for (int part = 0; part < (f.fastq ? 2 : 1); part++) {
            if (part == 1) {
                tu_buf_putc(out, '+');
                tu_buf_puts(out, eol);
            }
            if (len == 0 && f.fastq) tu_buf_puts(out, eol);
            for (size_t i = 0; i < len;) {
                size_t line = f.wrap > 0 && len - i > (size_t)f.wrap ? (size_t)f.wrap : len - i;
                for (size_t j = 0; j < line; j++) {
                    /* Quality lines that begin with '@' or '+' are legal. */
                    char q = (char)('!' + tu_rng_below(&rng, 42));
                    if (j == 0 && tu_rng_chance(&rng, 30)) q = tu_rng_chance(&rng, 50) ? '@' : '+';
                    tu_buf_putc(out, part ? q : recs[r].seq[i + j]);
                }
                i += line;
                int last = r == n - 1 && i == len && part == (f.fastq ? 1 : 0);
                if (!last || f.final_newline) tu_buf_puts(out, eol);
            }
        }
    }
}

typedef struct {
    int rc;
    ps_err_t err;
    tu_buf_t syms, wins;
    ps_reader_stats_t st;
    uint64_t chunks, n_syms;
} result_t;

static void result_free(result_t *r)
{
    tu_buf_free(&r->syms);
    tu_buf_free(&r->wins);
}

/* Reads a whole file with chunks of capacity cap and cap_restart, checking
 * the chunk invariants and turning the chunks into the two streams. */
static void read_all(const char *path, ps_alpha_t a, int k, int threads, uint64_t cap,
                     uint32_t cap_restart, result_t *res)
{
    memset(res, 0, sizeof *res);
    ps_reader_t *rd = NULL;
    /* More than one thread: BGZF is inflated on a pool. */
    hts_tpool *pool = threads > 1 ? hts_tpool_init(threads) : NULL;
    ck_assert(threads <= 1 || pool);
    res->rc = ps_reader_open(&rd, path, a, k, pool, &res->err);
    if (res->rc < 0) {
        if (pool) hts_tpool_destroy(pool);
        return;
    }
    ck_assert_ptr_nonnull(rd);
    ps_chunk_t c, prev;
    ps_err_t err = {0};
    ck_assert_msg(ps_chunk_init(&c, a, cap, cap_restart, NULL, &err) == PS_OK, "%s", err.msg);
    ck_assert_msg(ps_chunk_init(&prev, a, cap, cap_restart, NULL, &err) == PS_OK, "%s", err.msg);
    int have_prev = 0, any = 0;
    uint64_t last_id = UINT64_MAX;
    char *letters = malloc(cap + 1);
    ck_assert_ptr_nonnull(letters);
    for (;;) {
        int rc = ps_reader_next(rd, &c, &res->err);
        if (rc < 0) {
            res->rc = rc;
            break;
        }
        ck_assert_int_le(rc, 1);
        if (rc == 0) {
            ck_assert_uint_eq(c.n, 0);
            break;
        }
        res->chunks++;
        /* Chunk invariants. */
        ck_assert_int_eq(c.bits, ps_alpha_bits(a));
        ck_assert_uint_le(c.n, c.cap);
        ck_assert_uint_lt(c.n_ctx, c.n);
        ck_assert_uint_lt(c.n_ctx, (uint64_t)k);
        ck_assert_uint_le(c.n_restart, c.cap_restart);
        ck_assert_uint_le(c.n_rec, c.cap_rec);
        for (uint32_t i = 0; i < c.n_restart; i++) {
            ck_assert_uint_lt(c.restart[i], c.n);
            if (i) ck_assert_uint_gt(c.restart[i], c.restart[i - 1]);
        }
        if (c.n % c.per_word) {
            uint32_t used = (uint32_t)(c.n % c.per_word) * (uint32_t)c.bits;
            ck_assert_msg((c.text[c.n / c.per_word] >> used) == 0, "unused slots of the last word not zero");
        }
        ck_assert_msg(c.n_rec > 0 && c.rec_pos[0] == 0, "chunk %llu does not list its record at 0",
                      (unsigned long long)res->chunks);
        for (uint32_t j = 0; j < c.n_rec; j++) {
            ck_assert_uint_lt(c.rec_pos[j], c.n);
            if (j) {
                ck_assert_uint_gt(c.rec_pos[j], c.rec_pos[j - 1]);
                ck_assert_uint_gt(c.rec_id[j], c.rec_id[j - 1]);
            }
            if (c.rec_pos[j] > 0) {
                int found = 0;
                for (uint32_t i = 0; i < c.n_restart && !found; i++) found = c.restart[i] == c.rec_pos[j];
                ck_assert_msg(found, "record listed at %u is not a restart", c.rec_pos[j]);
                ck_assert_uint_ge(c.rec_pos[j], c.n_ctx);
            }
        }
        /* Context: the tail of the previous chunk, within one segment. */
        if (c.n_ctx > 0) {
            ck_assert_msg(have_prev, "the first chunk has context");
            ck_assert_uint_ge(prev.n, c.n_ctx);
            for (uint32_t i = 0; i < c.n_ctx; i++)
                ck_assert_uint_eq(ps_chunk_sym(&c, i), ps_chunk_sym(&prev, prev.n - c.n_ctx + i));
            for (uint32_t i = 0; i < prev.n_restart; i++)
                ck_assert_msg(prev.restart[i] <= prev.n - c.n_ctx,
                              "context crosses a restart of the previous chunk");
            for (uint32_t i = 0; i < c.n_restart; i++)
                ck_assert_msg(c.restart[i] >= c.n_ctx, "a restart inside the context");
            ck_assert_msg(c.rec_id[0] == last_id, "context from another record");
        }
        for (uint64_t i = 0; i < c.n; i++) letters[i] = ps_alpha_letter(a, (int)ps_chunk_sym(&c, i));
        /* Symbols by record. */
        uint32_t j = 0;
        for (uint64_t p = c.n_ctx; p < c.n; p++) {
            while (j + 1 < c.n_rec && c.rec_pos[j + 1] <= p) j++;
            if (c.rec_id[j] != last_id) {
                if (any) tu_buf_putc(&res->syms, '\n');
                tu_buf_printf(&res->syms, "#%llu:%s\n", (unsigned long long)c.rec_id[j],
                              c.rec_name + c.name_off[j]);
                last_id = c.rec_id[j];
                any = 1;
            }
            tu_buf_putc(&res->syms, letters[p]);
            res->n_syms++;
        }
        /* Windows a scan counts: ending at p >= n_ctx, no restart in (p-k+1, p]. */
        uint32_t ri = 0;
        for (uint64_t p = c.n_ctx; p < c.n; p++) {
            if (p + 1 < (uint64_t)k) continue;
            uint64_t s = p + 1 - (uint64_t)k;
            while (ri < c.n_restart && c.restart[ri] <= s) ri++;
            if (ri < c.n_restart && c.restart[ri] <= p) continue;
            tu_buf_put(&res->wins, letters + s, (size_t)k);
            tu_buf_putc(&res->wins, '\n');
        }
        /* Keep a copy for the next chunk's context check. */
        ps_chunk_clear(&prev);
        for (uint64_t i = 0; i < c.n; i++) ps_chunk_push(&prev, ps_chunk_sym(&c, i));
        memcpy(prev.restart, c.restart, c.n_restart * sizeof *c.restart);
        prev.n_restart = c.n_restart;
        have_prev = 1;
    }
    if (any) tu_buf_putc(&res->syms, '\n');
    if (!res->syms.p) tu_buf_put(&res->syms, "", 0);
    if (!res->wins.p) tu_buf_put(&res->wins, "", 0);
    if (res->rc >= 0) {
        res->st = *ps_reader_stats(rd);
        uint64_t done = 0, total = 0;
        ps_reader_progress(rd, &done, &total);
        if (total) ck_assert_uint_le(done, total);
    }
    free(letters);
    ps_chunk_free(&c, NULL);
    ps_chunk_free(&prev, NULL);
    ps_reader_close(rd);
    if (pool) hts_tpool_destroy(pool);
}

/* Shows where two long strings first differ. */
static void same_text(const char *what, const char *got, const char *want)
{
    if (!strcmp(got, want)) return;
    size_t i = 0;
    while (got[i] && got[i] == want[i]) i++;
    size_t from = i > 60 ? i - 60 : 0;
    ck_abort_msg("%s differ at byte %zu:\n got: ...%.120s\nwant: ...%.120s", what, i, got + from,
                 want + from);
}

/* Writes recs in format f (plain, gzip or BGZF by compress 0/1/2), reads
 * it back with the given chunking and checks everything. */
static void roundtrip(const rec_t *recs, int n, fmt_t f, int compress, ps_alpha_t a, int k,
                      int threads, uint64_t cap, uint32_t cap_restart)
{
    tu_buf_t text = {0};
    render(&text, recs, n, f, 42);
    if (!text.p) tu_buf_put(&text, "", 0);
    char *path = tu_path(g_dir, compress == 0 ? "in.txt" : compress == 1 ? "in.gz" : "in.bgz");
    if (compress == 0) tu_write_file(path, text.p, text.n);
    else if (compress == 1) tu_write_gzip(path, text.p, text.n);
    else tu_write_bgzf(path, text.p, text.n);
    tu_buf_t syms = {0}, wins = {0};
    uint64_t n_syms;
    expect(recs, n, a, k, &syms, &wins, &n_syms);
    result_t res;
    read_all(path, a, k, threads, cap, cap_restart, &res);
    ck_assert_msg(res.rc == 0, "reading %s (fastq %d wrap %d crlf %d, k %d cap %llu/%u): %s", path,
                  f.fastq, f.wrap, f.crlf, k, (unsigned long long)cap, cap_restart, res.err.msg);
    same_text("symbols by record", res.syms.p, syms.p);
    same_text("windows", res.wins.p, wins.p);
    ck_assert_uint_eq(res.st.records, (uint64_t)n);
    ck_assert_uint_eq(res.st.symbols, n_syms);
    ck_assert_uint_eq(res.n_syms, n_syms);
    ck_assert_int_eq(!!res.st.fastq, f.fastq);
    ck_assert_uint_eq(res.st.bytes, text.n);
    result_free(&res);
    tu_buf_free(&syms);
    tu_buf_free(&wins);
    tu_buf_free(&text);
    free(path);
}

/* The same records through several chunkings. */
static void roundtrip_chunkings(const rec_t *recs, int n, fmt_t f, ps_alpha_t a, int k)
{
    const uint64_t caps[4] = {1u << 16, (uint64_t)k, (uint64_t)k + 1, (uint64_t)k + 7};
    const uint32_t rcaps[4] = {1024, 1, 2, 3};
    for (int i = 0; i < 4; i++) roundtrip(recs, n, f, 0, a, k, 1, caps[i], rcaps[i]);
}

START_TEST(test_fasta)
{
    const rec_t recs[] = {
        {"chr1 first chromosome", "ACGTACGTTTGACCANNNNNacgtacgtGGGTTTAAAcccNgggACGU"},
        {"chr2", "ttttTTTTaaaaAAAAccccCCCCggggGGGGnnnnNNNNacgu"},
        {"chr3\twith tab", "AC GT\tAC GT"},
        {"chr4", "RYKMSWBDHVNacgtRYKM"},
    };
    for (int k = 1; k <= 6; k++)
        for (int wrap = 0; wrap <= 7; wrap += 7) {
            fmt_t f = {0, wrap, 0, 1};
            roundtrip_chunkings(recs, 4, f, PS_DNA, k);
        }
    fmt_t f = {0, 60, 0, 0};
    roundtrip_chunkings(recs, 4, f, PS_DNA, 4);
    f.wrap = 1;
    roundtrip_chunkings(recs, 4, f, PS_DNA, 9);
}
END_TEST

START_TEST(test_fastq)
{
    const rec_t recs[] = {
        {"read1 1:N:0:ACGT", "NACGTACGTTTGACCAGGTNNACG"},
        {"read2", "acgtacgtggNNNNNNNNNNNNNNNNNNNNNNNNNNttt"},
        {"read3", "A"},
        {"read4/1", "ACGTTGCAACGTTGCAACGTTGCAACGTTGCAACGTTGCA"},
    };
    for (int k = 1; k <= 5; k += 2) {
        fmt_t f = {1, 0, 0, 1};
        roundtrip_chunkings(recs, 4, f, PS_DNA, k);
        f.final_newline = 0;
        roundtrip_chunkings(recs, 4, f, PS_DNA, k);
    }
}
END_TEST

/* Multi-line FASTQ: sequence and quality wrapped, quality lines that start
 * with '@' or '+' included (render() puts them there often). */
START_TEST(test_fastq_multiline)
{
    const rec_t recs[] = {
        {"m1", "ACGTACGTTTGACCAGGTAACGATTACAGATTACA"},
        {"m2 desc", "ggggccccaaaattttNNNNacgtacgtacgtacgt"},
        {"m3", "ACGTA"},
    };
    for (int wrap = 1; wrap <= 11; wrap += 5) {
        fmt_t f = {1, wrap, 0, 1};
        roundtrip_chunkings(recs, 3, f, PS_DNA, 3);
        roundtrip_chunkings(recs, 3, f, PS_DNA, 8);
    }
}
END_TEST

START_TEST(test_crlf)
{
    const rec_t recs[] = {
        {"c1 x", "ACGTACGTNNNACGTACGT"},
        {"c2", "acgtacgtacgtTTTT"},
        {"c3", ""},
        {"c4", "GATTACA"},
    };
    fmt_t f = {0, 5, 1, 1};
    roundtrip_chunkings(recs, 4, f, PS_DNA, 4);
    f.final_newline = 0;
    roundtrip_chunkings(recs, 4, f, PS_DNA, 4);
    fmt_t q = {1, 0, 1, 1};
    roundtrip_chunkings(&recs[0], 2, q, PS_DNA, 4);
    q.wrap = 6;
    roundtrip_chunkings(&recs[0], 2, q, PS_DNA, 4);
}
END_TEST

/* Empty records and records shorter than k are not errors. */
START_TEST(test_empty_and_short)
{
    const rec_t recs[] = {
        {"e0", ""}, {"e1", "AC"}, {"e2", ""}, {"e3", "NNNN"}, {"e4", "ACGTACGT"}, {"e5", "A"}, {"e6", ""},
    };
    for (int k = 1; k <= 9; k += 4) {
        fmt_t f = {0, 0, 0, 1};
        roundtrip_chunkings(recs, 7, f, PS_DNA, k);
        f.final_newline = 0;
        roundtrip_chunkings(recs, 7, f, PS_DNA, k);
    }
    /* FASTQ with empty reads. */
    fmt_t q = {1, 0, 0, 1};
    roundtrip_chunkings(recs, 7, q, PS_DNA, 2);
    /* A file that is only empty records still has records. */
    const rec_t empty[] = {{"only", ""}, {"two", ""}};
    fmt_t f = {0, 0, 0, 1};
    roundtrip(empty, 2, f, 0, PS_DNA, 3, 1, 1000, 10);
}
END_TEST

START_TEST(test_protein)
{
    const rec_t recs[] = {
        {"sp|P1|X", "MKVLAAGIVGLLLAwwwwBZXUOJ*acdefghiklmnpqrstvwy"},
        {"tr|Q2|Y desc", "MSTNPKPQRKTKRNTNRRPQDVKFPGG"},
        {"empty", ""},
        {"rare", "XXXXXBBBZZZUUOOJJ**"},
    };
    fmt_t f = {0, 10, 0, 1};
    for (int k = 1; k <= 8; k += 7) roundtrip_chunkings(recs, 4, f, PS_PROTEIN, k);
    /* Read as DNA, protein letters are restarts, not errors ('*' would be). */
    const rec_t letters_only[] = {
        {"sp|P1|X", "MKVLAAGIVGLLLAwwwwBZXUOJacdefghiklmnpqrstvwy"},
        {"tr|Q2|Y desc", "MSTNPKPQRKTKRNTNRRPQDVKFPGG"},
        {"dnaish", "GATTACAgattacaMGATTACA"},
    };
    roundtrip_chunkings(letters_only, 3, f, PS_DNA, 1);
    roundtrip_chunkings(letters_only, 3, f, PS_DNA, 2);
}
END_TEST

START_TEST(test_compressed)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xd1);
    /* Enough text for several BGZF blocks. */
    const int n = 30;
    rec_t recs[30];
    char *seqs[30], *names[30];
    for (int r = 0; r < n; r++) {
        size_t len = tu_rng_below(&rng, 20000);
        seqs[r] = malloc(len + 1);
        names[r] = malloc(32);
        ck_assert(seqs[r] && names[r]);
        for (size_t i = 0; i < len; i++)
            seqs[r][i] = tu_rng_chance(&rng, 2) ? 'n' : "ACGTacgt"[tu_rng_below(&rng, 8)];
        seqs[r][len] = '\0';
        snprintf(names[r], 32, "rec%d len=%zu", r, len);
        recs[r].name = names[r];
        recs[r].seq = seqs[r];
    }
    fmt_t f = {0, 70, 0, 1};
    for (int compress = 0; compress < 3; compress++)
        for (int threads = 1; threads <= 3; threads += 2) {
            roundtrip(recs, n, f, compress, PS_DNA, 21, threads, 1u << 16, 64);
            roundtrip(recs, n, f, compress, PS_DNA, 21, threads, 1000, 3);
        }
    fmt_t q = {1, 0, 0, 1};
    roundtrip(recs, n, q, 2, PS_DNA, 5, 2, 4096, 16);
    roundtrip(recs, n, q, 1, PS_DNA, 5, 1, 4096, 16);
    for (int r = 0; r < n; r++) {
        free(seqs[r]);
        free(names[r]);
    }
}
END_TEST

/* One long record through small chunks: memory stays the chunk's. */
START_TEST(test_long_record)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xd2);
    size_t len = 300000;
    char *seq = malloc(len + 1);
    ck_assert_ptr_nonnull(seq);
    for (size_t i = 0; i < len; i++) {
        if (tu_rng_chance(&rng, 1)) {
            size_t run = tu_rng_range(&rng, 1, 40);
            for (size_t j = 0; j < run && i < len; j++) seq[i++] = 'N';
            if (i == len) break;
        }
        seq[i] = "ACGT"[tu_rng_below(&rng, 4)];
    }
    seq[len] = '\0';
    rec_t rec = {"long", seq};
    fmt_t f = {0, 80, 0, 1};
    roundtrip(&rec, 1, f, 0, PS_DNA, 31, 1, 997, 5);
    roundtrip(&rec, 1, f, 2, PS_DNA, 31, 2, 64, 2);
    free(seq);
}
END_TEST

/* Random files of every shape against the expectation. */
START_TEST(test_random_files)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xd3);
    for (int round = 0; round < 60; round++) {
        ps_alpha_t a = tu_rng_chance(&rng, 70) ? PS_DNA : PS_PROTEIN;
        int fastq = tu_rng_chance(&rng, 40);
        int n = (int)tu_rng_range(&rng, 1, 40);
        rec_t *recs = calloc((size_t)n, sizeof *recs);
        char **bufs = calloc((size_t)n * 2, sizeof *bufs);
        ck_assert(recs && bufs);
        for (int r = 0; r < n; r++) {
            size_t len = tu_rng_chance(&rng, 10) ? 0 : tu_rng_below(&rng, tu_rng_chance(&rng, 20) ? 3000 : 60);
            if (fastq && len == 0) len = 1;
            char *s = malloc(len + 1), *nm = malloc(40);
            ck_assert(s && nm);
            for (size_t i = 0; i < len; i++) {
                if (a == PS_DNA) {
                    s[i] = tu_rng_chance(&rng, 5) ? "NnRY"[tu_rng_below(&rng, 4)]
                                                  : "ACGTacgtUu"[tu_rng_below(&rng, tu_rng_chance(&rng, 5) ? 10 : 8)];
                } else {
                    char ch = protein_syms[tu_rng_below(&rng, 27)];
                    s[i] = tu_rng_chance(&rng, 30) ? (char)tolower((unsigned char)ch) : ch;
                }
            }
            s[len] = '\0';
            snprintf(nm, 40, "r%d%s", r, tu_rng_chance(&rng, 50) ? " some description" : "");
            recs[r].seq = bufs[2 * r] = s;
            recs[r].name = bufs[2 * r + 1] = nm;
        }
        fmt_t f = {fastq, tu_rng_chance(&rng, 50) ? (int)tu_rng_range(&rng, 1, 100) : 0,
                   tu_rng_chance(&rng, 20), !tu_rng_chance(&rng, 20)};
        int k = (int)tu_rng_range(&rng, 1, tu_rng_chance(&rng, 70) ? 12 : 64);
        int compress = (int)tu_rng_below(&rng, 3);
        uint64_t cap = tu_rng_chance(&rng, 60) ? (uint64_t)k + tu_rng_below(&rng, 20) : 1u << 14;
        uint32_t rcap = (uint32_t)tu_rng_range(&rng, 1, tu_rng_chance(&rng, 60) ? 3 : 500);
        roundtrip(recs, n, f, compress, a, k, (int)tu_rng_range(&rng, 1, 2), cap, rcap);
        for (int i = 0; i < 2 * n; i++) free(bufs[i]);
        free(bufs);
        free(recs);
    }
}
END_TEST

/* ---- bad input: an error naming the file, never a crash ---- */

static void read_fails(const char *path, ps_alpha_t a, unsigned long line)
{
    result_t res;
    read_all(path, a, 3, 1, 1u << 16, 64, &res);
    ck_assert_msg(res.rc < 0, "reading %s should fail", path);
    ck_assert_int_eq(res.err.code, res.rc);
    ck_assert_msg(strstr(res.err.msg, path) != NULL, "message does not name %s: \"%s\"", path,
                  res.err.msg);
    ck_assert_msg(strchr(res.err.msg, '\n') == NULL, "message is more than one line: \"%s\"",
                  res.err.msg);
    if (line)
        ck_assert_msg(tu_msg_has_number(res.err.msg, line), "message does not give line %lu: \"%s\"",
                      line, res.err.msg);
    result_free(&res);
    /* A small chunk reaches the error too. */
    read_all(path, a, 3, 1, 5, 1, &res);
    ck_assert_msg(res.rc < 0, "reading %s with small chunks should fail", path);
    ck_assert_msg(strstr(res.err.msg, path) != NULL, "message does not name %s: \"%s\"", path,
                  res.err.msg);
    result_free(&res);
}

static char *write_text(const char *name, const char *text)
{
    char *path = tu_path(g_dir, name);
    tu_write_file(path, text, strlen(text));
    return path;
}

/* A few hundred kilobytes of FASTA. */
static void big_fasta(tu_buf_t *b)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, 7);
    for (int r = 0; r < 8; r++) {
        tu_buf_printf(b, ">big%d\n", r);
        for (int line = 0; line < 800; line++) {
            for (int i = 0; i < 60; i++) tu_buf_putc(b, "ACGT"[tu_rng_below(&rng, 4)]);
            tu_buf_putc(b, '\n');
        }
    }
}

START_TEST(test_bad_missing)
{
    char *path = tu_path(g_dir, "does-not-exist.fa");
    read_fails(path, PS_DNA, 0);
    free(path);
}
END_TEST

START_TEST(test_bad_truncated_gzip)
{
    tu_buf_t b = {0};
    big_fasta(&b);
    char *path = tu_path(g_dir, "cut.fa.gz");
    tu_write_gzip(path, b.p, b.n);
    uint64_t size = tu_file_size(path);
    tu_truncate(path, size * 6 / 10);
    read_fails(path, PS_DNA, 0);
    /* Cut inside the 8-byte trailer: all data there, the check missing. */
    tu_write_gzip(path, b.p, b.n);
    tu_truncate(path, size - 4);
    read_fails(path, PS_DNA, 0);
    free(path);
    tu_buf_free(&b);
}
END_TEST

/* Plain gzip as several members (`cat a.gz b.gz c.gz`), cut at random
 * points: read as the same text, plain (cli.sh does the same on a genome
 * larger than the reader's input buffer). Then bytes after the last member,
 * a damaged CRC-32 and zeros appended: refused. */
START_TEST(test_gzip_members)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0x6a);
    tu_buf_t b = {0};
    for (int r = 0; r < 3; r++) {
        tu_buf_printf(&b, ">m%d\n", r);
        for (int line = 0; line < 2000; line++) {
            for (int i = 0; i < 70; i++) tu_buf_putc(&b, "ACGT"[tu_rng_below(&rng, 4)]);
            tu_buf_putc(&b, '\n');
        }
    }
    char *plain = tu_path(g_dir, "members.fa"), *gz = tu_path(g_dir, "members.fa.gz");
    tu_write_file(plain, b.p, b.n);
    size_t cut[2] = {tu_rng_below(&rng, b.n), tu_rng_below(&rng, b.n)};
    if (cut[0] > cut[1]) {
        size_t t = cut[0];
        cut[0] = cut[1];
        cut[1] = t;
    }
    tu_write_gzip(gz, b.p, cut[0]);
    for (int m = 0; m < 2; m++) {
        gzFile g = gzopen(gz, "ab"); /* zlib appends a new member */
        ck_assert(g != NULL);
        size_t to = m == 0 ? cut[1] : b.n;
        if (to > cut[m]) ck_assert_int_eq(gzwrite(g, b.p + cut[m], (unsigned)(to - cut[m])), (int)(to - cut[m]));
        ck_assert_int_eq(gzclose(g), Z_OK);
    }
    result_t want, got;
    read_all(plain, PS_DNA, 5, 1, 1u << 16, 64, &want);
    read_all(gz, PS_DNA, 5, 1, 1u << 16, 64, &got);
    ck_assert_msg(got.rc == 0, "members cut at %zu and %zu (seed %llu): %s", cut[0], cut[1],
                  (unsigned long long)tu_seed(), got.err.msg);
    same_text("symbols by record", got.syms.p, want.syms.p);
    same_text("windows", got.wins.p, want.wins.p);
    ck_assert_uint_eq(got.st.records, 3);
    ck_assert_uint_eq(got.st.bytes, b.n);
    result_free(&want);
    result_free(&got);

    uint64_t size = tu_file_size(gz);
    FILE *f = fopen(gz, "ab");
    ck_assert(f && fputs("not gzip", f) >= 0 && fclose(f) == 0);
    read_fails(gz, PS_DNA, 0);
    tu_truncate(gz, size);
    f = fopen(gz, "ab");
    ck_assert(f && fwrite("\0\0\0\0\0\0\0\0", 1, 8, f) == 8 && fclose(f) == 0);
    read_fails(gz, PS_DNA, 0);
    tu_truncate(gz, size);
    f = fopen(gz, "r+b"); /* the last member's CRC-32: 8 bytes before the end */
    ck_assert(f && fseek(f, (long)size - 8, SEEK_SET) == 0);
    int c = fgetc(f);
    ck_assert(c != EOF && fseek(f, (long)size - 8, SEEK_SET) == 0 && fputc(c ^ 0x5a, f) != EOF && fclose(f) == 0);
    read_fails(gz, PS_DNA, 0);
    free(plain);
    free(gz);
    tu_buf_free(&b);
}
END_TEST

START_TEST(test_bad_truncated_bgzf)
{
    tu_buf_t b = {0};
    big_fasta(&b);
    char *path = tu_path(g_dir, "cut.fa.bgz");
    tu_write_bgzf(path, b.p, b.n);
    uint64_t size = tu_file_size(path);
    tu_truncate(path, size * 6 / 10);
    read_fails(path, PS_DNA, 0);
    /* Threads decompressing ahead must report it too. */
    result_t res;
    read_all(path, PS_DNA, 3, 3, 1u << 16, 64, &res);
    ck_assert_msg(res.rc < 0, "truncated BGZF read with threads should fail");
    ck_assert_msg(strstr(res.err.msg, path) != NULL, "message does not name %s: \"%s\"", path,
                  res.err.msg);
    result_free(&res);
    free(path);
    tu_buf_free(&b);
}
END_TEST

START_TEST(test_bad_fastq)
{
    char *path = write_text("short_qual.fq", "@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\nIII\n@r3\nACGT\n+\nIIII\n");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = write_text("long_qual.fq", "@r1\nACGT\n+\nIIIII\n");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = write_text("no_qual.fq", "@r1\nACGT\n+\n");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = write_text("no_plus.fq", "@r1\nACGT\nIIII\n@r2\nACGT\n+\nIIII\n");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = write_text("no_plus_end.fq", "@r1\nACGT\n+\nIIII\n@r2\nACGT\n");
    read_fails(path, PS_DNA, 0);
    free(path);
}
END_TEST

START_TEST(test_bad_binary)
{
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        2,    0,   0x3e, 0, 1, 0, 0, 0, 0x40, 0x10, 0, 0};
    char *path = tu_path(g_dir, "a.out");
    tu_write_file(path, elf, sizeof elf);
    read_fails(path, PS_DNA, 0);
    free(path);
    /* A FASTA header, then bytes that are no sequence. */
    static const char garbage[] = ">x\nACGT\x01\x02\x00\xff\xfeGGG\n";
    path = tu_path(g_dir, "garbage.fa");
    tu_write_file(path, garbage, sizeof garbage - 1);
    read_fails(path, PS_DNA, 0);
    free(path);
    /* Text that is not FASTA or FASTQ. */
    path = write_text("notes.txt", "These are my notes.\nACGT\n");
    read_fails(path, PS_DNA, 0);
    free(path);
}
END_TEST

/* An empty input (no bytes, blank lines, an empty gzip or BGZF file) is
 * zero records, not an error: one empty sample must not stop a workflow. */
static void reads_empty(const char *path)
{
    result_t res;
    read_all(path, PS_DNA, 3, 1, 1u << 16, 64, &res);
    ck_assert_msg(res.rc == 0, "%s: %s", path, res.err.msg);
    ck_assert_uint_eq(res.st.records, 0);
    ck_assert_uint_eq(res.n_syms, 0);
    result_free(&res);
}

START_TEST(test_empty_inputs)
{
    char *path = write_text("empty.fa", "");
    reads_empty(path);
    free(path);
    path = write_text("blank.fa", "\n\n\n");
    reads_empty(path);
    free(path);
    path = tu_path(g_dir, "empty.fa.gz");
    tu_write_gzip(path, "", 0);
    reads_empty(path);
    free(path);
    path = tu_path(g_dir, "empty.bgz");
    tu_write_bgzf(path, "", 0);
    reads_empty(path);
    free(path);
    /* Not sequence is still an error. */
    path = write_text("words.fa", "hello\n");
    read_fails(path, PS_DNA, 1);
    free(path);
}
END_TEST

START_TEST(test_bad_bytes_in_sequence)
{
    char *path = write_text("digit.fa", ">r1 x\nACGT\nAC1T\n");
    read_fails(path, PS_DNA, 3);
    free(path);
    path = write_text("digit2.fa", ">r1\nACGT\n>r2\nACGT\nACGT\nACGT7\n");
    read_fails(path, PS_DNA, 6);
    free(path);
    path = write_text("digit.fq", "@r1\nAC1T\n+\nIIII\n");
    read_fails(path, PS_DNA, 2);
    free(path);
    path = write_text("hash.fa", ">p\nMKV#LA\n");
    read_fails(path, PS_PROTEIN, 2);
    free(path);
}
END_TEST

/* Reads path and want (a plain FASTA/FASTQ of what path should read as)
 * and checks that both give the same records, symbols and windows. */
static void reads_like(const char *path, const char *want, ps_alpha_t a, int threads)
{
    result_t got, ref;
    read_all(path, a, 3, threads, 1000, 8, &got);
    ck_assert_msg(got.rc == 0, "%s: %s", path, got.err.msg);
    read_all(want, a, 3, 1, 1000, 8, &ref);
    ck_assert_msg(ref.rc == 0, "%s: %s", want, ref.err.msg);
    same_text(path, got.syms.p, ref.syms.p);
    same_text(path, got.wins.p, ref.wins.p);
    ck_assert_uint_eq(got.st.records, ref.st.records);
    ck_assert_uint_eq(got.st.other, ref.st.other);
    result_free(&got);
    result_free(&ref);
}

/* No-call and gap characters in DNA ('.', '-', '*') break windows as N
 * does, and are counted as other symbols; in protein '.' and '-' too. */
START_TEST(test_no_call_characters)
{
    char *dots = write_text("dots.fq", "@r1\nAC.GTA-CG*TT.\n+\nIIIIIIIIIIIII\n");
    char *ns = write_text("ns.fq", "@r1\nACNGTANCGNTTN\n+\nIIIIIIIIIIIII\n");
    /* The quality line matches the sequence with the no-calls. */
    result_t res;
    read_all(dots, PS_DNA, 3, 1, 1000, 8, &res);
    ck_assert_msg(res.rc == 0, "%s", res.err.msg);
    ck_assert_uint_eq(res.st.other, 4);
    ck_assert_uint_eq(res.n_syms, 9);
    result_free(&res);
    reads_like(dots, ns, PS_DNA, 1);
    free(ns);
    char *fa = write_text("dots.fa", ">p\nACGT.ACGT-ACGT*ACGTN\n");
    char *fn = write_text("ns.fa", ">p\nACGTNACGTNACGTNACGTN\n");
    reads_like(fa, fn, PS_DNA, 1);
    free(fa);
    free(fn);
    free(dots);
    /* In protein too, as in gapped alignments: "MKV", then "LA". */
    char *gap = write_text("gap.fa", ">p\nMKV-L.A\n");
    read_all(gap, PS_PROTEIN, 3, 1, 1000, 8, &res);
    ck_assert_msg(res.rc == 0, "%s", res.err.msg);
    ck_assert_uint_eq(res.st.other, 2);
    ck_assert_uint_eq(res.n_syms, 5);
    result_free(&res);
    free(gap);
}
END_TEST

/* Line ends: a lone CR (old Mac files) ends a line as LF and CRLF do, in
 * headers, sequence and FASTQ quality lines, and line numbers stay right. */
START_TEST(test_cr_line_ends)
{
    const char *fa = ">r1 one\nACGTAC\nGTACGT\n>r2\nTTTTGG\n";
    const char *fq = "@q1 x\nACGTACGT\n+\nIIIIIIII\n@q2\nGGGT\n+q2\nIIII\n";
    const char *texts[] = {fa, fq};
    const char *names[] = {"lf.fa", "lf.fq"};
    for (int t = 0; t < 2; t++) {
        char *lf = write_text(names[t], texts[t]);
        char cr[256], crlf[512];
        size_t n = 0, m = 0;
        for (const char *c = texts[t]; *c; c++) {
            cr[n++] = *c == '\n' ? '\r' : *c;
            if (*c == '\n') crlf[m++] = '\r';
            crlf[m++] = *c;
        }
        cr[n] = crlf[m] = 0;
        char *p_cr = write_text(t ? "cr.fq" : "cr.fa", cr), *p_crlf = write_text(t ? "crlf.fq" : "crlf.fa", crlf);
        reads_like(p_cr, lf, PS_DNA, 1);
        reads_like(p_crlf, lf, PS_DNA, 1);
        free(p_cr);
        free(p_crlf);
        free(lf);
    }
    /* A CR-only file with an error on line 4 says line 4. */
    char *bad = write_text("bad_cr.fa", ">r1\rACGT\r>r2\rAC9T\r");
    read_fails(bad, PS_DNA, 4);
    free(bad);
    /* A CRLF cut between two reads of the input (1 MiB apart) is one line end. */
    tu_buf_t b = {0}, want = {0};
    tu_buf_puts(&b, ">long\r\n");
    tu_buf_puts(&want, ">long\n");
    while (b.n < (1u << 20) - 1) {
        tu_buf_putc(&b, 'A');
        tu_buf_putc(&want, 'A');
    }
    tu_buf_puts(&b, "\r\n>next\r\nACGT\r\n");
    tu_buf_puts(&want, "\n>next\nACGT\n");
    ck_assert_uint_eq(b.p[(1u << 20) - 1], '\r');
    char *p1 = tu_path(g_dir, "cut_crlf.fa"), *p2 = tu_path(g_dir, "cut_lf.fa");
    tu_write_file(p1, b.p, b.n);
    tu_write_file(p2, want.p, want.n);
    reads_like(p1, p2, PS_DNA, 1);
    free(p1);
    free(p2);
    tu_buf_free(&b);
    tu_buf_free(&want);
}
END_TEST

/* A UTF-8 byte-order mark at the start of an input is skipped. */
START_TEST(test_byte_order_mark)
{
    const char *fa = ">r1\nACGTACGT\n", *fq = "@r1\nACGT\n+\nIIII\n";
    char with[64];
    snprintf(with, sizeof with, "\xef\xbb\xbf%s", fa);
    char *a = write_text("bom.fa", with), *b = write_text("nobom.fa", fa);
    reads_like(a, b, PS_DNA, 1);
    char *gz = tu_path(g_dir, "bom.fa.gz");
    tu_write_gzip(gz, with, strlen(with));
    reads_like(gz, b, PS_DNA, 1);
    snprintf(with, sizeof with, "\xef\xbb\xbf%s", fq);
    char *c = write_text("bom.fq", with), *d = write_text("nobom.fq", fq);
    reads_like(c, d, PS_DNA, 1);
    free(a);
    free(b);
    free(c);
    free(d);
    free(gz);
}
END_TEST

/* BGZF and plain gzip members in one file (`cat a.fa.bgz b.fa.gz`) read as
 * zcat reads them; a cut in either part is still an error. */
/* Writes one as BGZF, then two as a plain gzip member after it; returns
 * the size of the BGZF part. */
static uint64_t write_mixed(const char *path, const tu_buf_t *one, const tu_buf_t *two)
{
    tu_write_bgzf(path, one->p, one->n);
    uint64_t bgzf_bytes = tu_file_size(path);
    gzFile g = gzopen(path, "ab"); /* zlib appends a new gzip member */
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, two->p, (unsigned)two->n), (int)two->n);
    ck_assert_int_eq(gzclose(g), Z_OK);
    return bgzf_bytes;
}

/* BGZF and plain gzip members in one file (`cat a.fa.bgz b.fa.gz`) read as
 * zcat reads them; a cut in either part is still an error. */
START_TEST(test_bgzf_then_gzip)
{
    tu_buf_t one = {0}, two = {0}, plain = {0};
    big_fasta(&one);
    tu_buf_puts(&two, ">tail\nACGTACGTTTGACCA\n>tail2\nGGGGACGT\n");
    tu_buf_put(&plain, one.p, one.n);
    tu_buf_put(&plain, two.p, two.n);
    char *mixed = tu_path(g_dir, "mixed.fa.gz"), *want = tu_path(g_dir, "mixed.fa");
    uint64_t bgzf_bytes = write_mixed(mixed, &one, &two);
    tu_write_file(want, plain.p, plain.n);
    reads_like(mixed, want, PS_DNA, 1);
    reads_like(mixed, want, PS_DNA, 3);
    /* Cut inside the gzip member, then inside the BGZF part. */
    char *cut = tu_path(g_dir, "cut.fa.gz");
    write_mixed(cut, &one, &two);
    tu_truncate(cut, tu_file_size(cut) - 5);
    read_fails(cut, PS_DNA, 0);
    write_mixed(cut, &one, &two);
    tu_truncate(cut, bgzf_bytes / 2);
    read_fails(cut, PS_DNA, 0);
    /* A whole BGZF file with padding after its end-of-file block: said so. */
    tu_write_bgzf(cut, one.p, one.n);
    FILE *f = fopen(cut, "ab");
    ck_assert_ptr_nonnull(f);
    static const char zeros[512];
    ck_assert_uint_eq(fwrite(zeros, 1, sizeof zeros, f), sizeof zeros);
    ck_assert_int_eq(fclose(f), 0);
    result_t res;
    read_all(cut, PS_DNA, 3, 1, 1000, 8, &res);
    ck_assert_msg(res.rc < 0 && strstr(res.err.msg, "after the BGZF end-of-file block"), "%s", res.err.msg);
    result_free(&res);
    free(mixed);
    free(want);
    free(cut);
    tu_buf_free(&one);
    tu_buf_free(&two);
    tu_buf_free(&plain);
}
END_TEST

/* Unaligned (and aligned) SAM, BAM and CRAM: the primary records, each in
 * the orientation it was sequenced in, as samtools fastq gives them. */
START_TEST(test_alignment_formats)
{
    const char *sam = "@HD\tVN:1.6\tSO:unsorted\n"
                      "r1\t4\t*\t0\t0\t*\t*\t0\t0\tACGTTGCA\tIIIIIIII\n"
                      "r2\t16\t*\t0\t0\t*\t*\t0\t0\tAACCGGTTA\tIIIIIIIII\n"
                      "r2\t256\t*\t0\t0\t*\t*\t0\t0\tGGGGGGGG\tIIIIIIII\n"
                      "r2\t2048\t*\t0\t0\t*\t*\t0\t0\tCCCCCCCC\tIIIIIIII\n"
                      "r3\t4\t*\t0\t0\t*\t*\t0\t0\tACNGT\t*\n";
    /* r2 is stored reverse-complemented: it was read as TAACCGGTT. */
    char *want = write_text("want.fa", ">r1\nACGTTGCA\n>r2\nTAACCGGTT\n>r3\nACNGT\n");
    char *ps = write_text("reads.sam", sam);
    reads_like(ps, want, PS_DNA, 1);
    const char *modes[] = {"wb", "wc"}, *names[] = {"reads.bam", "reads.cram"};
    for (int m = 0; m < 2; m++) {
        char *out = tu_path(g_dir, names[m]);
        samFile *in = sam_open(ps, "r"), *o = sam_open(out, modes[m]);
        ck_assert(in && o);
        sam_hdr_t *h = sam_hdr_read(in);
        ck_assert_ptr_nonnull(h);
        ck_assert_int_eq(sam_hdr_write(o, h), 0);
        bam1_t *b = bam_init1();
        while (sam_read1(in, h, b) >= 0) ck_assert_int_ge(sam_write1(o, h, b), 0);
        bam_destroy1(b);
        sam_hdr_destroy(h);
        ck_assert_int_eq(sam_close(in), 0);
        ck_assert_int_eq(sam_close(o), 0);
        reads_like(out, want, PS_DNA, 1);
        reads_like(out, want, PS_DNA, 3);
        free(out);
    }
    free(ps);
    free(want);
}
END_TEST

/* A regular file that shrinks while it is read (another process truncates
 * it) is an error, not a silently smaller count. */
START_TEST(test_file_shrinks)
{
    tu_buf_t b = {0};
    for (int i = 0; i < 4; i++) big_fasta(&b);
    char *path = tu_path(g_dir, "shrinks.fa");
    tu_write_file(path, b.p, b.n);
    ps_reader_t *rd = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_reader_open(&rd, path, PS_DNA, 5, NULL, &err), PS_OK);
    tu_truncate(path, b.n / 3);
    ps_chunk_t c;
    ck_assert_int_eq(ps_chunk_init(&c, PS_DNA, 1u << 16, 64, NULL, &err), PS_OK);
    int rc;
    while ((rc = ps_reader_next(rd, &c, &err)) > 0) {}
    ck_assert_msg(rc < 0, "a file cut to a third while read gave no error");
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "shrank"), "%s", err.msg);
    ps_chunk_free(&c, NULL);
    ps_reader_close(rd);
    free(path);
    tu_buf_free(&b);
}
END_TEST

/* Compressions htslib does not inflate here get a message that says how. */
START_TEST(test_other_compressions)
{
    static const char *const magic[] = {"BZh91AY&SY", "\xfd" "7zXZ\x00\x00\x04", "\x28\xb5\x2f\xfd\x24\x00\x01"};
    static const char *const tool[] = {"bzip2", "xz", "zstd"};
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "in.%d", i);
        char *path = tu_path(g_dir, name);
        tu_write_file(path, magic[i], i == 1 ? 7 : strlen(magic[i]) + 1);
        ps_reader_t *rd = NULL;
        ps_err_t err;
        ck_assert_int_lt(ps_reader_open(&rd, path, PS_DNA, 5, NULL, &err), 0);
        ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, tool[i]), "%s", err.msg);
        free(path);
    }
}
END_TEST

Suite *suite_seqio(void)
{
    Suite *s = suite_create("seqio");
    TCase *tc = tcase_create("seqio");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fasta);
    tcase_add_test(tc, test_fastq);
    tcase_add_test(tc, test_fastq_multiline);
    tcase_add_test(tc, test_crlf);
    tcase_add_test(tc, test_empty_inputs);
    tcase_add_test(tc, test_no_call_characters);
    tcase_add_test(tc, test_cr_line_ends);
    tcase_add_test(tc, test_byte_order_mark);
    tcase_add_test(tc, test_bgzf_then_gzip);
    tcase_add_test(tc, test_alignment_formats);
    tcase_add_test(tc, test_file_shrinks);
    tcase_add_test(tc, test_other_compressions);
    tcase_add_test(tc, test_empty_and_short);
    tcase_add_test(tc, test_protein);
    tcase_add_test(tc, test_compressed);
    tcase_add_test(tc, test_long_record);
    tcase_add_test(tc, test_random_files);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad input");
    tcase_set_timeout(bad, 60);
    tcase_add_checked_fixture(bad, setup, teardown);
    tcase_add_test(bad, test_bad_missing);
    tcase_add_test(bad, test_bad_truncated_gzip);
    tcase_add_test(bad, test_bad_truncated_bgzf);
    tcase_add_test(bad, test_bad_fastq);
    tcase_add_test(bad, test_gzip_members);
    tcase_add_test(bad, test_bad_binary);
    tcase_add_test(bad, test_bad_bytes_in_sequence);
    suite_add_tcase(s, bad);
    return s;
}
