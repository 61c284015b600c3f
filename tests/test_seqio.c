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
    res->rc = ps_reader_open(&rd, path, a, k, threads, &res->err);
    if (res->rc < 0) return;
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
        ck_assert_int_eq(c.alpha, a);
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

START_TEST(test_bad_no_records)
{
    char *path = write_text("empty.fa", "");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = write_text("blank.fa", "\n\n\n");
    read_fails(path, PS_DNA, 0);
    free(path);
    path = tu_path(g_dir, "empty.fa.gz");
    tu_write_gzip(path, "", 0);
    read_fails(path, PS_DNA, 0);
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
    path = write_text("gap.fa", ">p\nMKV-LA\n");
    read_fails(path, PS_PROTEIN, 2);
    free(path);
    path = write_text("dot.fa", ">p\nACGT.ACGT\n");
    read_fails(path, PS_DNA, 2);
    free(path);
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
    tcase_add_test(bad, test_bad_binary);
    tcase_add_test(bad, test_bad_no_records);
    tcase_add_test(bad, test_bad_bytes_in_sequence);
    suite_add_tcase(s, bad);
    return s;
}
