/* test_random.c - the whole core (probes -> automaton -> CPU engine ->
 * ps_scan_file on a file, and for DNA of k <= 32 the same through the k-mer
 * set engine) against a brute-force counter written here, on many
 * random cases: both alphabets, k from 1 to PS_MAX_K, probes taken from the
 * text and absent ones, duplicates, palindromes, N runs, lowercase, U, many
 * short records, line wrapping, FASTA and FASTQ, plain/gzip/BGZF, and chunks
 * made tiny so that matches straddle chunk boundaries, on 1 to 4 threads.
 *
 * The seed is printed once; PS_SEED=<seed> repeats a run. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine.h"
#include "engine_cpu.h"
#include "engine_kmer.h"
#include "kmerset.h"
#include "probes.h"
#include "scan.h"
#include "seqio.h"
#include "testutil.h"

static const char dna_syms[] = "ACGT";
static const char protein_syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

/* ---- the brute-force counter ---- */

/* Symbol index of a sequence byte, or -1 when it can never match. */
static int bf_code(ps_alpha_t a, char ch)
{
    int up = toupper((unsigned char)ch);
    if (a == PS_DNA) {
        if (up == 'U') up = 'T';
        const char *p = up ? strchr(dna_syms, up) : NULL;
        return p ? (int)(p - dna_syms) : -1;
    }
    const char *p = up ? strchr(protein_syms, up) : NULL;
    return p ? (int)(p - protein_syms) : -1;
}

/* For each probe, occurrences of it (fwd) and, when rev is not NULL, of its
 * reverse complement (DNA) at every position of every record, comparing k
 * letters each time. */
static void brute_force(ps_alpha_t a, int k, char *const *recs, int n_rec, char *const *probes,
                        uint32_t n_probes, uint64_t *fwd, uint64_t *rev)
{
    int *pf = malloc((size_t)k * sizeof *pf), *pr = malloc((size_t)k * sizeof *pr);
    ck_assert(pf && pr);
    for (uint32_t i = 0; i < n_probes; i++) {
        for (int j = 0; j < k; j++) {
            pf[j] = bf_code(a, probes[i][j]);
            ck_assert_int_ge(pf[j], 0);
        }
        if (rev)
            for (int j = 0; j < k; j++) pr[j] = 3 - pf[k - 1 - j];
        uint64_t f = 0, r = 0;
        for (int t = 0; t < n_rec; t++) {
            const char *s = recs[t];
            size_t len = strlen(s);
            for (size_t pos = 0; pos + (size_t)k <= len; pos++) {
                int mf = 1, mr = rev != NULL;
                for (int j = 0; j < k && (mf || mr); j++) {
                    int c = bf_code(a, s[pos + (size_t)j]);
                    if (c < 0) mf = mr = 0;
                    if (c != pf[j]) mf = 0;
                    if (mr && c != pr[j]) mr = 0;
                }
                f += (uint64_t)mf;
                r += (uint64_t)mr;
            }
        }
        fwd[i] = f;
        if (rev) rev[i] = r;
    }
    free(pf);
    free(pr);
}

/* ---- random cases ---- */

typedef struct {
    ps_alpha_t alpha;
    int k, both;
    int n_rec;
    char **rec;      /* raw sequences */
    uint32_t n_probes;
    char **probe;
    int fastq, wrap, crlf, final_newline, spaces, compress;
    int threads;             /* the thread budget of the scan */
    uint64_t chunk_syms;     /* 0: the engine's choice */
    uint32_t chunk_restarts; /* 0: the engine's choice */
    size_t block_bytes;      /* FASTA read block for parallel packing; 0: the engine's choice */
} case_t;

typedef struct {
    int k_lo, k_hi;          /* k range */
    int rec_lo, rec_hi;      /* record count */
    int len_hi;              /* longest record */
    int tiny_pct;            /* chance of tiny chunks */
    int fastq_pct;
    int dna_pct;
    int both_pct;            /* among DNA cases */
    int nrun_pct;            /* how often a DNA piece is an N run (0..100) */
} shape_t;

static void case_free(case_t *c)
{
    for (int i = 0; i < c->n_rec; i++) free(c->rec[i]);
    free(c->rec);
    for (uint32_t i = 0; i < c->n_probes; i++) free(c->probe[i]);
    free(c->probe);
}

static char rand_sym(tu_rng_t *r, ps_alpha_t a)
{
    return a == PS_DNA ? dna_syms[tu_rng_below(r, 4)] : protein_syms[tu_rng_below(r, 27)];
}

static char comp(char up)
{
    switch (up) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    default: return 'A';
    }
}

/* One random record of up to len_hi letters built from pieces. */
static char *random_record(tu_rng_t *r, ps_alpha_t a, int k, size_t len, const char *motif,
                           int nrun_pct)
{
    char *s = malloc(len + 1);
    ck_assert_ptr_nonnull(s);
    size_t i = 0;
    while (i < len) {
        size_t room = len - i, run;
        uint64_t kind = tu_rng_below(r, 100);
        if (kind < 45) { /* random letters */
            run = tu_rng_range(r, 1, 50);
            for (size_t j = 0; j < run && i < len; j++) s[i++] = rand_sym(r, a);
        } else if (kind < 65) { /* the case's motif, maybe mutated */
            size_t ml = strlen(motif);
            run = ml < room ? ml : room;
            memcpy(s + i, motif, run);
            if (tu_rng_chance(r, 40)) s[i + tu_rng_below(r, run)] = rand_sym(r, a);
            i += run;
        } else if (kind < 78 && i > 0) { /* repeat earlier text of this record */
            size_t from = tu_rng_below(r, i);
            run = tu_rng_range(r, 1, (uint64_t)k * 2 + 8);
            for (size_t j = 0; j < run && i < len; j++) s[i++] = s[from + j];
        } else if (kind < 88) { /* a periodic run */
            char unit[4];
            size_t ul = tu_rng_range(r, 1, 3);
            for (size_t j = 0; j < ul; j++) unit[j] = rand_sym(r, a);
            run = tu_rng_range(r, 1, (uint64_t)k * 3 + 10);
            for (size_t j = 0; j < run && i < len; j++) s[i++] = unit[j % ul];
        } else if (a == PS_DNA && tu_rng_chance(r, (unsigned)nrun_pct)) { /* N run, IUPAC */
            run = tu_rng_range(r, 1, (uint64_t)k + 3);
            char nc = "NNNNnRYKMSWn"[tu_rng_below(r, 12)];
            for (size_t j = 0; j < run && i < len; j++) s[i++] = nc;
        }
    }
    s[len] = '\0';
    /* Case and U. */
    int casing = (int)tu_rng_below(r, 4);
    for (size_t j = 0; j < len; j++) {
        if (casing == 1 || (casing == 2 && (j / 7) % 2))
            s[j] = (char)tolower((unsigned char)s[j]);
    }
    if (a == PS_DNA && tu_rng_chance(r, 10))
        for (size_t j = 0; j < len; j++)
            if ((s[j] == 'T' || s[j] == 't') && tu_rng_chance(r, 50)) s[j] = s[j] == 'T' ? 'U' : 'u';
    return s;
}

/* A probe: from the text, mutated, reverse complemented, absent, a
 * duplicate, a palindrome or periodic. Non-symbols are replaced (an N in a
 * DNA probe is an error by design). */
static char *random_probe(tu_rng_t *r, const case_t *c, uint32_t idx)
{
    int k = c->k;
    char *p = malloc((size_t)k + 1);
    ck_assert_ptr_nonnull(p);
    p[k] = '\0';
    uint64_t kind = tu_rng_below(r, 100);
    if (idx > 0 && kind < 8) {
        memcpy(p, c->probe[tu_rng_below(r, idx)], (size_t)k);
        return p;
    }
    if (kind < 70) {
        int tries = 0;
        for (; tries < 20; tries++) {
            int t = (int)tu_rng_below(r, (uint64_t)c->n_rec);
            size_t len = strlen(c->rec[t]);
            if (len < (size_t)k) continue;
            memcpy(p, c->rec[t] + tu_rng_below(r, len - (size_t)k + 1), (size_t)k);
            break;
        }
        if (tries == 20)
            for (int j = 0; j < k; j++) p[j] = rand_sym(r, c->alpha);
        for (int j = 0; j < k; j++)
            if (bf_code(c->alpha, p[j]) < 0) p[j] = rand_sym(r, c->alpha);
        if (kind >= 50) p[tu_rng_below(r, (uint64_t)k)] = rand_sym(r, c->alpha);
        if (c->alpha == PS_DNA && kind >= 40 && kind < 50) {
            char *q = malloc((size_t)k + 1);
            ck_assert_ptr_nonnull(q);
            for (int j = 0; j < k; j++) {
                int up = toupper((unsigned char)p[k - 1 - j]);
                q[j] = comp(up == 'U' ? 'T' : (char)up);
            }
            q[k] = '\0';
            free(p);
            p = q;
        }
        return p;
    }
    if (c->alpha == PS_DNA && kind < 80 && k % 2 == 0) {
        for (int j = 0; j < k / 2; j++) {
            p[j] = rand_sym(r, PS_DNA);
            p[k - 1 - j] = comp(p[j]);
        }
        return p;
    }
    if (kind < 88) {
        size_t ul = tu_rng_range(r, 1, 3);
        char unit[3];
        for (size_t j = 0; j < ul; j++) unit[j] = rand_sym(r, c->alpha);
        for (int j = 0; j < k; j++) p[j] = unit[(size_t)j % ul];
        return p;
    }
    for (int j = 0; j < k; j++) p[j] = rand_sym(r, c->alpha);
    if (tu_rng_chance(r, 30))
        for (int j = 0; j < k; j++) p[j] = (char)tolower((unsigned char)p[j]);
    return p;
}

static int pick_k(tu_rng_t *r, const shape_t *sh)
{
    if (sh->k_lo == sh->k_hi) return sh->k_lo;
    uint64_t u = tu_rng_below(r, 100);
    int lo = sh->k_lo, hi = sh->k_hi;
    /* Mostly small k (where matches are plenty), some anywhere. */
    if (u < 40) hi = lo + 4 < hi ? lo + 4 : hi;
    else if (u < 75) hi = 32 < hi ? 32 : hi;
    return (int)tu_rng_range(r, (uint64_t)lo, (uint64_t)(hi < lo ? lo : hi));
}

static void make_case(tu_rng_t *r, const shape_t *sh, case_t *c)
{
    memset(c, 0, sizeof *c);
    c->alpha = tu_rng_chance(r, (unsigned)sh->dna_pct) ? PS_DNA : PS_PROTEIN;
    c->k = pick_k(r, sh);
    c->both = c->alpha == PS_DNA && tu_rng_chance(r, (unsigned)sh->both_pct);
    c->n_rec = (int)tu_rng_range(r, (uint64_t)sh->rec_lo, (uint64_t)sh->rec_hi);
    c->fastq = tu_rng_chance(r, (unsigned)sh->fastq_pct);
    c->rec = calloc((size_t)c->n_rec, sizeof *c->rec);
    ck_assert_ptr_nonnull(c->rec);
    char motif[300];
    size_t ml = tu_rng_range(r, 1, (uint64_t)c->k + 10 < 299 ? (uint64_t)c->k + 10 : 299);
    for (size_t j = 0; j < ml; j++) motif[j] = rand_sym(r, c->alpha);
    motif[ml] = '\0';
    for (int t = 0; t < c->n_rec; t++) {
        size_t len;
        uint64_t u = tu_rng_below(r, 100);
        if (u < 10) len = 0;
        else if (u < 25) len = tu_rng_below(r, (uint64_t)c->k + 1); /* around k */
        else len = tu_rng_below(r, (uint64_t)sh->len_hi + 1);
        if (c->fastq && len == 0) len = 1;
        c->rec[t] = random_record(r, c->alpha, c->k, len, motif, sh->nrun_pct);
    }
    c->n_probes = (uint32_t)tu_rng_range(r, 1, 60);
    c->probe = calloc(c->n_probes, sizeof *c->probe);
    ck_assert_ptr_nonnull(c->probe);
    for (uint32_t i = 0; i < c->n_probes; i++) c->probe[i] = random_probe(r, c, i);
    c->wrap = tu_rng_chance(r, 50) ? (int)tu_rng_range(r, 1, 120) : 0;
    c->crlf = tu_rng_chance(r, 15);
    c->final_newline = !tu_rng_chance(r, 15);
    c->spaces = !c->fastq && tu_rng_chance(r, 10);
    c->compress = (int)(tu_rng_chance(r, 60) ? 0 : tu_rng_range(r, 1, 2));
    c->threads = (int)tu_rng_range(r, 1, 4);
    if (tu_rng_chance(r, (unsigned)sh->tiny_pct)) {
        c->chunk_syms = (uint64_t)c->k + tu_rng_below(r, tu_rng_chance(r, 50) ? 8 : 200);
        c->chunk_restarts = (uint32_t)tu_rng_range(r, 1, 3);
    }
    /* Small read blocks: FASTA parsed on several threads is cut often,
     * inside lines, line ends and N runs. */
    if (tu_rng_chance(r, (unsigned)sh->tiny_pct))
        c->block_bytes = tu_rng_chance(r, 30) ? 64 : (size_t)tu_rng_range(r, 64, 2000);
}

static void render(const case_t *c, tu_buf_t *out, tu_rng_t *r)
{
    const char *eol = c->crlf ? "\r\n" : "\n";
    for (int t = 0; t < c->n_rec; t++) {
        tu_buf_printf(out, "%c%s%d%s", c->fastq ? '@' : '>', "rec", t, t % 3 ? " description here" : "");
        /* Now and then a header (or a FASTQ '+' line) longer than a block. */
        int long_header = tu_rng_chance(r, 5), long_plus = c->fastq && tu_rng_chance(r, 5);
        for (int j = long_header ? 150 : 0; j > 0; j--) tu_buf_putc(out, "xyz@+"[j % 5]);
        tu_buf_puts(out, eol);
        const char *s = c->rec[t];
        size_t len = strlen(s);
        for (int part = 0; part < (c->fastq ? 2 : 1); part++) {
            if (part) {
                tu_buf_putc(out, '+');
                if (long_plus) tu_buf_printf(out, "rec%d %0150d", t, 0);
                tu_buf_puts(out, eol);
            }
            for (size_t i = 0; i < len;) {
                size_t line = c->wrap && len - i > (size_t)c->wrap ? (size_t)c->wrap : len - i;
                for (size_t j = 0; j < line; j++) {
                    if (part) {
                        char q = (char)('!' + tu_rng_below(r, 41));
                        if (j == 0 && tu_rng_chance(r, 10)) q = '@';
                        tu_buf_putc(out, q);
                    } else {
                        if (c->spaces && tu_rng_chance(r, 3)) tu_buf_putc(out, tu_rng_chance(r, 50) ? ' ' : '\t');
                        tu_buf_putc(out, s[i + j]);
                    }
                }
                i += line;
                int last = t == c->n_rec - 1 && i == len && part == c->fastq;
                if (!last || c->final_newline) tu_buf_puts(out, eol);
            }
        }
        if (c->spaces && !c->fastq && tu_rng_chance(r, 20)) tu_buf_puts(out, eol); /* blank line */
    }
}

static size_t write_case(const case_t *c, const char *path, tu_rng_t *r)
{
    tu_buf_t text = {0};
    render(c, &text, r);
    if (!text.p) tu_buf_put(&text, "", 0);
    if (c->compress == 0) tu_write_file(path, text.p, text.n);
    else if (c->compress == 1) tu_write_gzip(path, text.p, text.n);
    else tu_write_bgzf(path, text.p, text.n);
    size_t bytes = text.n;
    tu_buf_free(&text);
    return bytes;
}

static void describe(const case_t *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s k=%d %s records=%d probes=%u %s wrap=%d crlf=%d spaces=%d final_nl=%d %s "
             "threads=%d chunk_syms=%llu chunk_restarts=%u block_bytes=%zu",
             c->alpha == PS_DNA ? "dna" : "protein", c->k, c->both ? "both" : "forward", c->n_rec,
             c->n_probes, c->fastq ? "fastq" : "fasta", c->wrap, c->crlf, c->spaces,
             c->final_newline, c->compress == 0 ? "plain" : c->compress == 1 ? "gzip" : "bgzf",
             c->threads, (unsigned long long)c->chunk_syms, c->chunk_restarts,
             c->block_bytes);
}

typedef struct {
    ps_probes_t *p;
    ps_automaton_t *a;
    ps_engine_t *e;
    ps_scan_opts_t so;
} core_t;

static void core_open(const case_t *c, core_t *core)
{
    ps_err_t err = {0};
    memset(core, 0, sizeof *core);
    int rc = ps_probes_from_strings(&core->p, c->n_probes, (const char *const *)c->probe, NULL,
                                    (ps_alpha_req_t)c->alpha, &err);
    ck_assert_msg(rc == PS_OK, "probes: %s", err.msg);
    rc = ps_automaton_build(&core->a, core->p, c->both, &err);
    ck_assert_msg(rc == PS_OK, "automaton: %s", err.msg);
    ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_init(&core->so, &in, c->threads);
    rc = ps_cpu_engine_new(&core->e, core->a, ps_scan_workers(&core->so), &err);
    ck_assert_msg(rc == PS_OK, "engine: %s", err.msg);
    ck_assert_uint_ge(core->so.chunk_syms, (uint64_t)c->k);
    if (c->chunk_syms) core->so.chunk_syms = c->chunk_syms;
    if (c->chunk_restarts) core->so.chunk_restarts = c->chunk_restarts;
    if (c->block_bytes) core->so.block_bytes = c->block_bytes;
}

static void core_close(core_t *core)
{
    ps_engine_destroy(core->e);
    ps_automaton_free(core->a);
    ps_probes_free(core->p);
}

/* Runs on the reader thread: only records, the test thread checks. */
static int g_progress_calls, g_progress_bad;
static void on_progress(void *ctx, const ps_reader_t *r)
{
    uint64_t done = 0, total = 0;
    ps_reader_progress(r, &done, &total);
    if (total && done > total) g_progress_bad = 1;
    (void)ctx;
    g_progress_calls++;
}

/* Scans path into leaf (added to) and returns the stats. */
static void scan_ok(core_t *core, const char *path, uint64_t *leaf,
                    ps_scan_stats_t *st, const char *what)
{
    ps_err_t err = {0};
    g_progress_calls = g_progress_bad = 0;
    int rc = ps_scan_file(core->e, &core->a->leaves, path, &core->so, leaf, NULL, st, on_progress, NULL, &err);
    ck_assert_msg(rc == PS_OK, "%s: ps_scan_file: %s", what, err.msg);
    /* Called after each chunk read: at least once when there were symbols. */
    ck_assert_msg(g_progress_calls >= 1 || st->in.symbols == 0, "%s: progress never called", what);
    ck_assert_msg(!g_progress_bad, "%s: progress past the file size", what);
}

/* Runs one case end to end; on a mismatch, says what and how to repeat. */
static void run_case(const case_t *c, const char *dir, tu_rng_t *r, const char *test, int idx)
{
    char desc[512], what[700];
    describe(c, desc, sizeof desc);
    snprintf(what, sizeof what, "%s case %d (seed %llu; %s)", test, idx,
             (unsigned long long)tu_seed(), desc);
    char *path = tu_path(dir, "input");
    size_t bytes = write_case(c, path, r);

    core_t core;
    core_open(c, &core);
    uint64_t *leaf = calloc(core.a->n_leaves, sizeof *leaf);
    uint64_t *fwd = malloc(c->n_probes * sizeof *fwd), *rev = malloc(c->n_probes * sizeof *rev);
    ck_assert(leaf && fwd && rev);
    ps_scan_stats_t st;
    memset(&st, 0, sizeof st);
    scan_ok(&core, path, leaf, &st, what);

    brute_force(c->alpha, c->k, c->rec, c->n_rec, c->probe, c->n_probes, fwd, c->both ? rev : NULL);
    for (uint32_t i = 0; i < c->n_probes; i++) {
        uint64_t gf = leaf[core.a->leaves.probe_leaf[0][i]];
        uint64_t gr = c->both ? leaf[core.a->leaves.probe_leaf[1][i]] : 0;
        uint64_t wr = c->both ? rev[i] : 0;
        ck_assert_msg(gf == fwd[i] && gr == wr,
                      "%s: probe %u %s: forward %llu reverse %llu, brute force %llu %llu", what, i,
                      c->probe[i], (unsigned long long)gf, (unsigned long long)gr,
                      (unsigned long long)fwd[i], (unsigned long long)wr);
    }
    /* The k-mer set engine, where the probes fit it, on the same file with
     * the same pipeline settings: the same counts as the brute force, with
     * counts per worker in even cases and one shared array in odd ones. */
    if (ps_kmerset_fits(core.p)) {
        ps_err_t err = {0};
        ps_kmerset_t *ks = NULL;
        ps_engine_t *ke = NULL;
        ck_assert_msg(ps_kmerset_build(&ks, core.p, c->both, 2, &err) == PS_OK, "%s: k-mer set: %s", what, err.msg);
        ck_assert_msg(ps_kmer_engine_new(&ke, ks, ps_scan_workers(&core.so), idx % 2 ? 0 : PS_KMER_LOCAL_COUNTS_MAX,
                                         &err) == PS_OK,
                      "%s: %s", what, err.msg);
        uint64_t *kl = calloc(ks->leaves.n_leaves + 1, sizeof *kl);
        ck_assert(kl);
        ps_scan_stats_t kst;
        int rc = ps_scan_file(ke, &ks->leaves, path, &core.so, kl, NULL, &kst, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "%s: k-mer set scan: %s", what, err.msg);
        for (uint32_t i = 0; i < c->n_probes; i++) {
            uint64_t gf = kl[ks->leaves.probe_leaf[0][i]];
            uint64_t gr = c->both ? kl[ks->leaves.probe_leaf[1][i]] : 0;
            uint64_t wr = c->both ? rev[i] : 0;
            ck_assert_msg(gf == fwd[i] && gr == wr,
                          "%s: k-mer set: probe %u %s: forward %llu reverse %llu, brute force %llu %llu", what, i,
                          c->probe[i], (unsigned long long)gf, (unsigned long long)gr,
                          (unsigned long long)fwd[i], (unsigned long long)wr);
        }
        free(kl);
        ps_engine_destroy(ke);
        ps_kmerset_free(ks);
    }
    if (getenv("PS_TEST_VERBOSE")) {
        uint64_t total = 0, hit = 0;
        for (uint32_t i = 0; i < c->n_probes; i++) {
            total += fwd[i] + (c->both ? rev[i] : 0);
            hit += fwd[i] + (c->both ? rev[i] : 0) > 0;
        }
        printf("%s: %llu matches, %llu of %u probes found\n", what, (unsigned long long)total,
               (unsigned long long)hit, c->n_probes);
    }
    uint64_t syms = 0;
    for (int t = 0; t < c->n_rec; t++)
        for (const char *s = c->rec[t]; *s; s++) syms += bf_code(c->alpha, *s) >= 0;
    ck_assert_msg(st.in.records == (uint64_t)c->n_rec, "%s: %llu records read", what,
                  (unsigned long long)st.in.records);
    ck_assert_msg(st.in.symbols == syms, "%s: %llu symbols read, %llu in the file", what,
                  (unsigned long long)st.in.symbols, (unsigned long long)syms);
    ck_assert_msg(!!st.in.fastq == c->fastq, "%s: fastq flag %d", what, st.in.fastq);
    ck_assert_msg(st.in.bytes == bytes, "%s: %llu bytes read of %zu", what,
                  (unsigned long long)st.in.bytes, bytes);
    free(leaf);
    free(fwd);
    free(rev);
    core_close(&core);
    free(path);
}

static void run_cases(const shape_t *sh, int n_cases, uint64_t salt, const char *test)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ salt);
    char *dir = tu_mkdtemp();
    for (int i = 0; i < n_cases; i++) {
        case_t c;
        make_case(&r, sh, &c);
        run_case(&c, dir, &r, test, i);
        case_free(&c);
    }
    tu_rmtree(dir);
}

START_TEST(test_random_dna)
{
    shape_t sh = {1, PS_MAX_K, 1, 30, 2000, 40, 30, 100, 75, 100};
    run_cases(&sh, 150, 0xe1, "random_dna");
}
END_TEST

START_TEST(test_random_protein)
{
    shape_t sh = {1, PS_MAX_K, 1, 30, 2000, 40, 30, 0, 0, 0};
    run_cases(&sh, 80, 0xe2, "random_protein");
}
END_TEST

/* Chunks of k plus a few symbols and one to three restarts: nearly every
 * match straddles a boundary and most records span several chunks. */
START_TEST(test_tiny_chunks)
{
    shape_t sh = {1, 40, 1, 12, 600, 100, 30, 70, 70, 100};
    run_cases(&sh, 120, 0xe3, "tiny_chunks");
}
END_TEST

START_TEST(test_k_extremes)
{
    shape_t one = {1, 1, 1, 20, 500, 50, 30, 50, 50, 100};
    run_cases(&one, 16, 0xe4, "k=1");
    shape_t max = {PS_MAX_K, PS_MAX_K, 1, 6, 3000, 50, 30, 50, 50, 20};
    run_cases(&max, 12, 0xe5, "k=max");
    shape_t near = {PS_MAX_K - 3, PS_MAX_K, 1, 4, 2000, 100, 0, 100, 100, 20};
    run_cases(&near, 4, 0xe6, "k=max tiny chunks");
}
END_TEST

START_TEST(test_many_short_records)
{
    shape_t sh = {1, 12, 300, 2000, 25, 40, 40, 70, 70, 100};
    run_cases(&sh, 12, 0xe7, "short_records");
}
END_TEST

/* Long records: segments far longer than any internal piece or batch the
 * engine may cut them into, with the default chunk size and tiny ones. */
START_TEST(test_long_records)
{
    shape_t sh = {1, 40, 1, 4, 40000, 30, 20, 70, 70, 0};
    run_cases(&sh, 12, 0xe9, "long_records");
    sh.nrun_pct = 2;
    run_cases(&sh, 8, 0xea, "long_records_few_n");
}
END_TEST

/* Counts add up across scans into the same array, and across files. */
START_TEST(test_accumulate)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xe8);
    char *dir = tu_mkdtemp();
    shape_t sh = {2, 10, 3, 10, 500, 50, 30, 100, 100, 100};
    for (int round = 0; round < 5; round++) {
        case_t c;
        make_case(&r, &sh, &c);
        char *p1 = tu_path(dir, "one"), *p2 = tu_path(dir, "two");
        write_case(&c, p1, &r);
        core_t core;
        core_open(&c, &core);
        uint64_t *once = calloc(core.a->n_leaves, sizeof *once);
        uint64_t *acc = calloc(core.a->n_leaves, sizeof *acc);
        ck_assert(once && acc);
        ps_scan_stats_t st;
        scan_ok(&core, p1, once, &st, "accumulate once");
        scan_ok(&core, p1, acc, &st, "accumulate 1");
        c.compress = 2;
        write_case(&c, p2, &r);
        scan_ok(&core, p2, acc, &st, "accumulate 2");
        scan_ok(&core, p1, acc, &st, "accumulate 3");
        for (uint32_t l = 0; l < core.a->n_leaves; l++) ck_assert_uint_eq(acc[l], 3 * once[l]);
        free(once);
        free(acc);
        core_close(&core);
        free(p1);
        free(p2);
        case_free(&c);
    }
    tu_rmtree(dir);
}
END_TEST

/* A bad file mid-way through a threaded scan: an error naming the file,
 * all threads and chunks cleaned up (ASan checks), the engine reusable. */
START_TEST(test_scan_errors)
{
    char *dir = tu_mkdtemp();
    tu_buf_t text = {0};
    tu_rng_t r;
    tu_rng_seed(&r, 99);
    tu_buf_puts(&text, ">ok\n");
    for (int i = 0; i < 20000; i++) {
        tu_buf_putc(&text, dna_syms[tu_rng_below(&r, 4)]);
        if (i % 60 == 59) tu_buf_putc(&text, '\n');
    }
    tu_buf_puts(&text, "\n>digit_record\nACGT\n");
    unsigned long bad_line = 1;
    for (size_t i = 0; i < text.n; i++) bad_line += text.p[i] == '\n';
    tu_buf_puts(&text, "AC9T\n>more\nACGTACGT\n");
    char *bad = tu_path(dir, "bad.fa"), *good = tu_path(dir, "good.fa");
    tu_write_file(bad, text.p, text.n);
    tu_write_file(good, ">g\nACGTACGTACGT\n", 16);
    char *missing = tu_path(dir, "missing.fa");

    const char *seqs[2] = {"ACG", "GTA"};
    for (int tiny = 0; tiny < 2; tiny++) {
        ps_probes_t *p = NULL;
        ps_automaton_t *a = NULL;
        ps_engine_t *e = NULL;
        ps_err_t err = {0};
        ck_assert_int_eq(ps_probes_from_strings(&p, 2, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
        ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
        ck_assert_int_eq(ps_cpu_engine_new(&e, a, 4, &err), PS_OK);
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ps_scan_opts_t so[2]; /* one thread reads chunks; three read FASTA in blocks */
        for (int i = 0; i < 2; i++) {
            ps_scan_opts_init(&so[i], &in, i ? 3 : 1);
            if (tiny) {
                so[i].chunk_syms = 8;
                so[i].chunk_restarts = 2;
                so[i].block_bytes = 100;
            }
        }
        uint64_t *leaf = calloc(a->n_leaves, sizeof *leaf);
        ck_assert_ptr_nonnull(leaf);
        ps_scan_stats_t st;
        for (int io = 0; io < 2; io++) {
            int rc = ps_scan_file(e, &a->leaves, bad, &so[io], leaf, NULL, &st, NULL, NULL, &err);
            ck_assert_int_lt(rc, 0);
            ck_assert_msg(strstr(err.msg, bad) != NULL, "message does not name %s: %s", bad, err.msg);
            ck_assert_msg(tu_msg_has_number(err.msg, bad_line), "io=%d tiny=%d: message does not give line %lu: %s",
                          io, tiny, bad_line, err.msg);
            ck_assert_msg(strstr(err.msg, "digit_record") != NULL, "message does not name the record: %s",
                          err.msg);
        }
        int rc;
        rc = ps_scan_file(e, &a->leaves, missing, &so[0], leaf, NULL, &st, NULL, NULL, &err);
        ck_assert_int_lt(rc, 0);
        ck_assert_msg(strstr(err.msg, missing) != NULL, "message does not name %s: %s", missing,
                      err.msg);
        /* The engine still works after a failed scan (its counts from the
         * failed scan are not defined), and a fresh one counts exactly. */
        rc = ps_scan_file(e, &a->leaves, good, &so[0], leaf, NULL, &st, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "after errors: %s", err.msg);
        ps_engine_destroy(e);
        ck_assert_int_eq(ps_cpu_engine_new(&e, a, 4, &err), PS_OK);
        memset(leaf, 0, a->n_leaves * sizeof *leaf);
        rc = ps_scan_file(e, &a->leaves, good, &so[0], leaf, NULL, &st, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "fresh engine: %s", err.msg);
        /* ACGTACGTACGT: ACG 3, CGT 3, GTA 2, TAC 2. */
        ck_assert_uint_eq(leaf[a->leaves.probe_leaf[0][0]], 3);
        ck_assert_uint_eq(leaf[a->leaves.probe_leaf[1][0]], 3);
        ck_assert_uint_eq(leaf[a->leaves.probe_leaf[0][1]], 2);
        ck_assert_uint_eq(leaf[a->leaves.probe_leaf[1][1]], 2);
        free(leaf);
        ps_engine_destroy(e);
        ps_automaton_free(a);
        ps_probes_free(p);
    }
    free(bad);
    free(good);
    free(missing);
    tu_buf_free(&text);
    tu_rmtree(dir);
}
END_TEST

/* The k-mer set built on several threads is the one built on one: the same
 * leaves for every probe and strand, the same number of leaves, and every
 * key found with its leaf and passed by the filter. Sets of tens of
 * thousands of probes (so that the threads engage), with many repeats and
 * palindromes at small k and the all-T key at k = 32. */
START_TEST(test_kmerset_threads)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6b6d);
    for (int round = 0; round < 6; round++) {
        int k = round == 0 ? 32 : round == 1 ? 5 : (int)tu_rng_range(&r, 1, 32);
        uint32_t n = (uint32_t)tu_rng_range(&r, 40000, 100000);
        int both = round % 2 == 0 || tu_rng_chance(&r, 50), threads = (int)tu_rng_range(&r, 2, 7);
        /* Few distinct letters at random places: repeats even at large k. */
        unsigned skew = (unsigned)tu_rng_below(&r, 3);
        char *text = malloc((size_t)n * (size_t)(k + 1));
        const char **seqs = malloc(n * sizeof *seqs);
        ck_assert(text && seqs);
        for (uint32_t i = 0; i < n; i++) {
            char *q = text + (size_t)i * (size_t)(k + 1);
            if (i && tu_rng_chance(&r, 10)) {
                memcpy(q, seqs[tu_rng_below(&r, i)], (size_t)k + 1); /* a repeated probe */
            } else {
                for (int j = 0; j < k; j++) q[j] = dna_syms[tu_rng_below(&r, 4 - skew)];
                if (i % 97 == 0) memset(q, 'T', (size_t)k);
                q[k] = '\0';
            }
            seqs[i] = q;
        }
        ps_probes_t *p = NULL;
        ps_err_t err = {0};
        ck_assert_msg(ps_probes_from_strings(&p, n, seqs, NULL, PS_ALPHA_DNA, &err) == PS_OK, "%s", err.msg);
        ps_kmerset_t *one = NULL, *many = NULL;
        ck_assert_msg(ps_kmerset_build(&one, p, both, 1, &err) == PS_OK, "%s", err.msg);
        ck_assert_msg(ps_kmerset_build(&many, p, both, threads, &err) == PS_OK, "%s", err.msg);
        ck_assert_msg(one->leaves.n_leaves == many->leaves.n_leaves,
                      "k %d n %u both %d threads %d: %u leaves on one thread, %u on several", k, n, both, threads,
                      one->leaves.n_leaves, many->leaves.n_leaves);
        for (int st = 0; st < (both ? 2 : 1); st++)
            for (uint32_t i = 0; i < n; i++)
                ck_assert_msg(one->leaves.probe_leaf[st][i] == many->leaves.probe_leaf[st][i],
                              "k %d n %u threads %d: probe %u strand %d: leaf %u on one thread, %u on several", k, n,
                              threads, i, st, one->leaves.probe_leaf[st][i], many->leaves.probe_leaf[st][i]);
        uint64_t keys = 0;
        for (uint64_t i = 0; i < many->n_slots; i++) {
            const ps_kmer_slot_t *sl = &many->slot[i];
            if (sl->key == PS_KMERSET_NOKEY) continue;
            uint64_t key = sl->key;
            ck_assert(sl->leaf[0] != PS_KMERSET_EMPTY || sl->leaf[1] != PS_KMERSET_EMPTY);
            ck_assert(ps_kmerset_maybe(many, ps_kmerset_fhash(key)));
            for (int side = 0; side < 2; side++) {
                if (sl->leaf[side] == PS_KMERSET_EMPTY) continue;
                keys++; /* a string: a leaf */
                ck_assert_uint_eq(ps_kmerset_find(one, key, side, ps_kmerset_home(one, key)), sl->leaf[side]);
                ck_assert_uint_eq(ps_kmerset_find(many, key, side, ps_kmerset_home(many, key)), sl->leaf[side]);
            }
        }
        ck_assert_uint_eq(keys, one->leaves.n_leaves);
        ps_kmerset_free(one);
        ps_kmerset_free(many);
        ps_probes_free(p);
        free(seqs);
        free(text);
    }
}
END_TEST

Suite *suite_random(void)
{
    tu_seed(); /* prints the seed once, before any test runs */
    Suite *s = suite_create("random");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_dna);
    tcase_add_test(tc, test_random_protein);
    tcase_add_test(tc, test_tiny_chunks);
    tcase_add_test(tc, test_k_extremes);
    tcase_add_test(tc, test_many_short_records);
    tcase_add_test(tc, test_long_records);
    tcase_add_test(tc, test_accumulate);
    tcase_add_test(tc, test_scan_errors);
    tcase_add_test(tc, test_kmerset_threads);
    suite_add_tcase(s, tc);
    return s;
}
