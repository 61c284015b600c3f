/* test_gpu.c - every GPU kernel against the CPU oracle, count for count.
 *
 * The pattern engine on the GPU is compared with the CPU pattern engine
 * the same way, over files (classes, lengths 1 to 64, mismatches, both
 * strands, N runs and records, small chunks, FASTA and FASTQ) and over
 * chunks made here, for windows and for general patterns (variable
 * repeats, anchors); the guide kernels and the bulge kernel against the
 * CPU guide and bulge engines, counts and rows.
 *
 * The runner (check_main.c) adds this suite only where a GPU is usable, and
 * otherwise reports its checks skipped. CUDA is first touched inside the
 * tests, never while the suite is built: Check forks each test, and a CUDA
 * context does not survive a fork. */
#include <check.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "bulges.h"
#include "engine.h"
#include "engine_bulges.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_gpus.h"
#include "engine_kmer.h"
#include "engine_mixed.h"
#include "engine_pattern.h"
#include "engine_pattern_gpu.h"
#include "gpu_plan.h"
#include "guides.h"
#include "guideset.h"
#include "kmerset.h"
#include "pack.h"
#include "pattern.h"
#include "patset.h"
#include "probes.h"
#include "scan.h"
#include "options.h"
#include "count.h"
#include "locate.h"
#include "sites.h"
#include "profile.h"
#include "profile_gpu.h"
#include "testutil.h"

/* The mixed engine on device 0 alone, as before several GPUs. */
static const ps_gpus_t gpu0 = {.n = 1, .id = {0}};

/* Largest k of the GPU k-mer path:
 * `kmer` and `best` must take it for every DNA automaton up to there. */
#define KMER_MAX_K PS_KMER_MAX_K

/* Random text of n symbols; a restart before each symbol with probability
 * restart_pct percent (0: one long restart-free run). */
static void make_chunk(ps_chunk_t *c, tu_rng_t *r, ps_alpha_t al, uint64_t n, unsigned restart_pct,
                       uint32_t n_ctx)
{
    ps_err_t err;
    ck_assert_int_eq(ps_chunk_init(c, al, n + 16, (uint32_t)(n / 2 + 16), NULL, &err), PS_OK);
    int sigma = ps_alpha_sigma(al);
    for (uint64_t i = 0; i < n; i++) {
        if (restart_pct && tu_rng_chance(r, restart_pct)) ck_assert_int_eq(ps_chunk_restart(c), 0);
        uint32_t s = (uint32_t)tu_rng_below(r, (uint64_t)sigma);
        ps_chunk_push(c, s);
    }
    c->n_ctx = n_ctx < n ? n_ctx : (uint32_t)n;
}

/* n probes of length k: about half cut from the chunk's text, the rest
 * random (mostly absent), some duplicated. */
static ps_probes_t *make_probes(tu_rng_t *r, ps_alpha_t al, int k, uint32_t n, const ps_chunk_t *c)
{
    char **seqs = malloc(n * sizeof *seqs);
    ck_assert_ptr_nonnull(seqs);
    int sigma = ps_alpha_sigma(al);
    for (uint32_t i = 0; i < n; i++) {
        seqs[i] = malloc((size_t)k + 1);
        ck_assert_ptr_nonnull(seqs[i]);
        if (i > 0 && tu_rng_chance(r, 3)) {
            memcpy(seqs[i], seqs[tu_rng_below(r, i)], (size_t)k + 1);
            continue;
        }
        int from_text = c->n >= (uint64_t)k && tu_rng_chance(r, 50);
        uint64_t at = from_text ? tu_rng_below(r, c->n - (uint64_t)k + 1) : 0;
        for (int j = 0; j < k; j++) {
            int s = from_text ? (int)ps_chunk_sym(c, at + (uint64_t)j) : (int)tu_rng_below(r, (uint64_t)sigma);
            seqs[i][j] = ps_alpha_letter(al, s);
        }
        seqs[i][k] = 0;
    }
    ps_probes_t *p = NULL;
    ps_err_t err;
    int rc = ps_probes_from_strings(&p, n, (const char *const *)seqs, NULL,
                                    al == PS_DNA ? PS_ALPHA_DNA : PS_ALPHA_PROTEIN, &err);
    ck_assert_msg(rc == PS_OK, "probes: %s", err.msg);
    for (uint32_t i = 0; i < n; i++) free(seqs[i]);
    free(seqs);
    return p;
}

/* Scans chunks with every kernel (alternating workers, one collect) and
 * compares with the CPU oracle. */
static void compare_all(const ps_automaton_t *a, ps_chunk_t *const *chunks, int n_chunks, const char *what)
{
    uint64_t *want = calloc(a->n_leaves, sizeof *want), *got = calloc(a->n_leaves, sizeof *got);
    ck_assert(want && got);
    for (int i = 0; i < n_chunks; i++) ps_cpu_scan_chunk(a, chunks[i], want);
    for (const char *const *kn = ps_gpu_kernel_names(); *kn; kn++) {
        ps_engine_t *e = NULL;
        ps_err_t err;
        int rc = ps_gpu_engine_new(&e, a, 0, *kn, 4, &err);
        ck_assert_msg(rc == PS_OK, "%s: %s", *kn, err.msg);
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        char device[512];
        ps_engine_describe(&in, in.workers, device, sizeof device);
        ck_assert_int_ge(in.workers, 2);
        ck_assert_int_eq(in.kind, PS_ENGINE_GPU);
        ck_assert_str_eq(in.kernel, *kn);
        int kmer_path = in.kmer_path;
        int want_kmer = a->alpha == PS_DNA && a->k <= KMER_MAX_K &&
                        (strcmp(*kn, "kmer") == 0 || strcmp(*kn, "best") == 0);
        ck_assert_msg(kmer_path == want_kmer, "%s, kernel %s: k-mer path %s (%s)", what, *kn,
                      kmer_path ? "taken" : "not taken", device);
        memset(got, 0, a->n_leaves * sizeof *got);
        for (int i = 0; i < n_chunks; i++) {
            rc = e->scan(e, i % in.workers, chunks[i], &err);
            ck_assert_msg(rc == PS_OK, "%s: %s", *kn, err.msg);
        }
        rc = e->collect(e, got, &err);
        ck_assert_msg(rc == PS_OK, "%s: %s", *kn, err.msg);
        for (uint32_t l = 0; l < a->n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "%s, kernel %s: leaf %u of %u: GPU %llu, CPU %llu", what, *kn, l,
                          a->n_leaves, (unsigned long long)got[l], (unsigned long long)want[l]);
        /* collect() zeroes the device counters. */
        memset(got, 0, a->n_leaves * sizeof *got);
        ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
        for (uint32_t l = 0; l < a->n_leaves; l++) ck_assert_uint_eq(got[l], 0);
        ps_engine_destroy(e);
    }
    /* The default engine: the CPU scans while the GPU starts, the GPU after.
     * The first pass mostly lands on the CPU, the second (after collect has
     * waited for the GPU) on the GPU. */
    ps_engine_t *e = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_mixed_engine_new(&e, a, &gpu0, -1, NULL, 3, &err), PS_OK);
    for (int pass = 0; pass < 2; pass++) {
        memset(got, 0, a->n_leaves * sizeof *got);
        for (int i = 0; i < n_chunks; i++) ck_assert_int_eq(e->scan(e, i % 3, chunks[i], &err), PS_OK);
        ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ck_assert_int_eq(in.kind, PS_ENGINE_AUTO);
        ck_assert_msg(in.gpu_started, "%s: the GPU did not start: %s", what, in.gpu_error);
        /* After a collect has waited for the start, the second pass is all GPU. */
        if (pass == 1) ck_assert_uint_gt(in.chunks_gpu, 0);
        for (uint32_t l = 0; l < a->n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "%s, mixed engine pass %d: leaf %u: %llu, CPU %llu", what, pass, l,
                          (unsigned long long)got[l], (unsigned long long)want[l]);
    }
    ps_engine_destroy(e);
    free(want);
    free(got);
}

/* One random case: an automaton and several chunks of varied restart
 * density and context. */
static void random_case(tu_rng_t *r, ps_alpha_t al, int k, uint32_t n_probes, uint64_t max_len, int both)
{
    enum { NC = 4 };
    ps_chunk_t ch[NC];
    ps_chunk_t *cp[NC];
    static const unsigned pct[NC] = {0, 1, 30, 0};
    for (int i = 0; i < NC; i++) {
        uint64_t n = tu_rng_range(r, 1, max_len);
        uint32_t ctx = (uint32_t)tu_rng_below(r, (uint64_t)k);
        make_chunk(&ch[i], r, al, n, pct[i] == 1 ? (unsigned)tu_rng_range(r, 1, 5) : pct[i], i == 3 ? ctx : 0);
        if (i == 0) ch[i].n_ctx = ctx < ch[i].n ? ctx : 0;
        cp[i] = &ch[i];
    }
    ps_probes_t *p = make_probes(r, al, k, n_probes, &ch[0]);
    ps_automaton_t *a = NULL;
    ps_err_t err;
    int rc = ps_automaton_build(&a, p, both, &err);
    ck_assert_msg(rc == PS_OK, "automaton: %s", err.msg);
    char what[160];
    snprintf(what, sizeof what, "%s k=%d probes=%u both=%d lens=%llu,%llu,%llu,%llu", ps_alpha_name(al), k,
             n_probes, both, (unsigned long long)ch[0].n, (unsigned long long)ch[1].n,
             (unsigned long long)ch[2].n, (unsigned long long)ch[3].n);
    compare_all(a, cp, NC, what);
    ps_automaton_free(a);
    ps_probes_free(p);
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
}

/* The runner found a usable GPU in another process: this test's process
 * sees it too, through both entry points, and the kernel list starts with
 * "best" (engine_gpu.h). */
START_TEST(test_gpu_presence)
{
    char why[256] = "";
    ck_assert_msg(ps_gpu_device_present(), "no NVIDIA device nodes, yet the GPU was found usable");
    ck_assert_msg(ps_gpu_usable(0, why, sizeof why), "GPU 0 not usable in the test: %s", why);
    ck_assert_msg(why[0] != '\0', "no description of GPU 0");
    const char *const *names = ps_gpu_kernel_names();
    ck_assert_ptr_nonnull(names[0]);
    ck_assert_str_eq(names[0], "best");
}
END_TEST

START_TEST(test_gpu_dna_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x51u);
    static const int ks[] = {1, 2, 3, 5, 8, 13, 16, 17, 21, 31, 32, 33, 64, 100, PS_MAX_K};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        uint32_t np = (uint32_t)tu_rng_range(&r, 1, 300);
        random_case(&r, PS_DNA, ks[i], np, 200000, (int)tu_rng_below(&r, 2));
    }
}
END_TEST

START_TEST(test_gpu_protein_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x77u);
    static const int ks[] = {1, 2, 3, 6, 7, 8, 12, 20, 50, PS_MAX_K};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        uint32_t np = (uint32_t)tu_rng_range(&r, 1, 300);
        random_case(&r, PS_PROTEIN, ks[i], np, 150000, 0);
    }
}
END_TEST

/* The k-mer path at every k it covers: both strands, dense and no restarts,
 * context, duplicate probes, a few to thousands of probes. */
START_TEST(test_gpu_kmer_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x3Du);
    for (int k = 1; k <= KMER_MAX_K; k++) {
        random_case(&r, PS_DNA, k, (uint32_t)tu_rng_range(&r, 1, 40), 200000, (int)tu_rng_below(&r, 2));
        random_case(&r, PS_DNA, k, (uint32_t)tu_rng_range(&r, 100, 3000), 400000, (int)tu_rng_below(&r, 2));
    }
}
END_TEST

/* Short texts: chunks smaller than one thread tile, a word, or k. */
START_TEST(test_gpu_tiny)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x99u);
    for (int i = 0; i < 6; i++) {
        int k = (int)tu_rng_range(&r, 1, 12);
        random_case(&r, PS_DNA, k, (uint32_t)tu_rng_range(&r, 1, 20), (uint64_t)tu_rng_range(&r, 1, 40), 1);
        random_case(&r, PS_PROTEIN, k, (uint32_t)tu_rng_range(&r, 1, 20), (uint64_t)tu_rng_range(&r, 1, 40), 0);
    }
    /* Every k of the k-mer path on chunks shorter than a word or than k. */
    for (int k = 1; k <= KMER_MAX_K; k++)
        random_case(&r, PS_DNA, k, (uint32_t)tu_rng_range(&r, 1, 20), (uint64_t)tu_rng_range(&r, 1, 24), 1);
    /* A few block tiles, with restarts and context, for the sanitizers: the
     * k-mer path with its pair table (k = 8) and without (k = 9). */
    random_case(&r, PS_DNA, 8, 40, 200000, 1);
    random_case(&r, PS_DNA, 9, 40, 300000, 1);
    random_case(&r, PS_PROTEIN, 4, 40, 100000, 0);
}
END_TEST

static void all_kmers(tu_rng_t *r, int k);

/* Probe sets whose leaf counters exceed shared memory: 50,000 and 80,000
 * probes (partitioned counters, DFA read from global memory), every 7-mer
 * (DFA in shared memory, counters partly in shared memory), and the same on
 * the k-mer path. */
START_TEST(test_gpu_large_sets)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x1234u);
    random_case(&r, PS_DNA, 12, 50000, 2000000, 0);
    random_case(&r, PS_DNA, 16, 80000, 2000000, 1);
    random_case(&r, PS_PROTEIN, 5, 60000, 1000000, 0);
    /* The k-mer path: ~40k leaves (counters all in shared memory, no pair
     * table), and up to 200k leaves (most counters global). */
    random_case(&r, PS_DNA, 8, 30000, 2000000, 1);
    random_case(&r, PS_DNA, 9, 100000, 2000000, 1);
    all_kmers(&r, 7);
    /* 65,536 leaves: more counters than shared memory holds. */
    all_kmers(&r, 8);
}
END_TEST

/* All 4^k k-mers as probes: every position past the first k-1 is a hit. */
static void all_kmers(tu_rng_t *r, int k)
{
    tu_built_t b = tu_build_distinct(k, 1u << (2 * k));
    ps_chunk_t c[2];
    ps_chunk_t *cp[2] = {&c[0], &c[1]};
    make_chunk(&c[0], r, PS_DNA, 3000001, 0, 3);
    make_chunk(&c[1], r, PS_DNA, 777777, 2, 0);
    char what[32];
    snprintf(what, sizeof what, "all %d-mers", k);
    compare_all(b.a, cp, 2, what);
    tu_built_free(&b);
    ps_chunk_free(&c[0], NULL);
    ps_chunk_free(&c[1], NULL);
}

/* Low-entropy text (one symbol repeated, then a two-symbol cycle): many
 * threads hit the same counter at once. */
START_TEST(test_gpu_repeats)
{
    const char *seqs[] = {"AAAAAAAA", "ACACACAC", "CACACACA", "AAAAAAAC", "GGGGGGGG"};
    ps_probes_t *p = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_probes_from_strings(&p, 5, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ps_automaton_t *a = NULL;
    ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
    ps_chunk_t c;
    ps_chunk_t *cp = &c;
    ck_assert_int_eq(ps_chunk_init(&c, PS_DNA, 1500000, 64, NULL, &err), PS_OK);
    for (uint32_t i = 0; i < 1000000; i++) ps_chunk_push(&c, 0);
    ck_assert_int_eq(ps_chunk_restart(&c), 0);
    for (uint32_t i = 0; i < 400003; i++) ps_chunk_push(&c, i & 1u);
    compare_all(a, &cp, 1, "repeats");
    ps_chunk_free(&c, NULL);
    ps_automaton_free(a);
    ps_probes_free(p);
}
END_TEST

/* ---- the k-mer set on the GPU ---- */

/* Scans chunks with the GPU k-mer set engine (alternating workers, one
 * collect) and the default (mixed) one in two passes, and compares each with
 * the CPU k-mer set engine, leaf for leaf. */
static void kset_compare(const ps_kmerset_t *ks, ps_chunk_t *const *chunks, int n_chunks, const char *what)
{
    const uint32_t nl = ks->leaves.n_leaves ? ks->leaves.n_leaves : 1;
    uint64_t *want = calloc(nl, sizeof *want), *got = calloc(nl, sizeof *got);
    ck_assert(want && got);
    ps_engine_t *e = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_kmer_engine_new(&e, ks, 1, PS_KMER_LOCAL_COUNTS_MAX, &err), PS_OK);
    for (int i = 0; i < n_chunks; i++) ck_assert_int_eq(e->scan(e, 0, chunks[i], &err), PS_OK);
    ck_assert_int_eq(e->collect(e, want, &err), PS_OK);
    ps_engine_destroy(e);
    uint64_t hits = 0;
    for (uint32_t l = 0; l < ks->leaves.n_leaves; l++) hits += want[l];

    int rc = ps_gpu_kmer_engine_new(&e, ks, 0, 4, &err);
    ck_assert_msg(rc == PS_OK, "%s: %s", what, err.msg);
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    ck_assert_int_eq(in.kind, PS_ENGINE_GPU);
    ck_assert_int_eq(in.kmer_set, 1);
    ck_assert_str_eq(in.kernel, "kmer-set");
    for (int i = 0; i < n_chunks; i++) {
        rc = e->scan(e, i % in.workers, chunks[i], &err);
        ck_assert_msg(rc == PS_OK, "%s: %s", what, err.msg);
    }
    ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
    for (uint32_t l = 0; l < ks->leaves.n_leaves; l++)
        ck_assert_msg(got[l] == want[l], "%s: leaf %u of %u: GPU %llu, CPU %llu (%llu hits in all)", what, l,
                      ks->leaves.n_leaves, (unsigned long long)got[l], (unsigned long long)want[l],
                      (unsigned long long)hits);
    /* collect() zeroes the device counters. */
    memset(got, 0, nl * sizeof *got);
    ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
    for (uint32_t l = 0; l < ks->leaves.n_leaves; l++) ck_assert_uint_eq(got[l], 0);
    ps_engine_destroy(e);

    ck_assert_int_eq(ps_mixed_kmer_engine_new(&e, ks, &gpu0, -1, 3, &err), PS_OK);
    for (int pass = 0; pass < 2; pass++) {
        memset(got, 0, nl * sizeof *got);
        for (int i = 0; i < n_chunks; i++) ck_assert_int_eq(e->scan(e, i % 3, chunks[i], &err), PS_OK);
        ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
        ps_engine_info(e, &in);
        ck_assert_int_eq(in.kind, PS_ENGINE_AUTO);
        ck_assert_int_eq(in.kmer_set, 1);
        ck_assert_msg(in.gpu_started, "%s: the GPU did not start: %s", what, in.gpu_error);
        if (pass == 1) ck_assert_uint_gt(in.chunks_gpu, 0);
        for (uint32_t l = 0; l < ks->leaves.n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "%s, mixed engine pass %d: leaf %u: %llu, CPU %llu", what, pass, l,
                          (unsigned long long)got[l], (unsigned long long)want[l]);
    }
    ps_engine_destroy(e);
    free(want);
    free(got);
}

/* A chunk of a short random unit repeated (low entropy: many threads hit
 * one counter), with the occasional restart. */
static void make_repeat_chunk(ps_chunk_t *c, tu_rng_t *r, uint64_t n)
{
    ps_err_t err;
    ck_assert_int_eq(ps_chunk_init(c, PS_DNA, n + 16, (uint32_t)(n / 2 + 16), NULL, &err), PS_OK);
    uint32_t unit[5], len = (uint32_t)tu_rng_range(r, 1, 5);
    for (uint32_t i = 0; i < len; i++) unit[i] = (uint32_t)tu_rng_below(r, 4);
    for (uint64_t i = 0; i < n; i++) {
        if (tu_rng_below(r, 5000) == 0) ck_assert_int_eq(ps_chunk_restart(c), 0);
        ps_chunk_push(c, unit[i % len]);
    }
}

/* One random k-mer set case: n probes of length k (half cut from the text,
 * some repeated, and a few from the repeat chunk), chunks with no, sparse
 * and dense restarts, context, and one of a repeated unit. */
static void kset_case(tu_rng_t *r, int k, uint32_t n_probes, uint64_t max_len, int both)
{
    enum { NC = 5 };
    ps_chunk_t ch[NC];
    ps_chunk_t *cp[NC];
    static const unsigned pct[NC] = {0, 1, 30, 0, 0};
    for (int i = 0; i < NC; i++) {
        uint64_t n = tu_rng_range(r, 1, max_len);
        uint32_t ctx = (uint32_t)tu_rng_below(r, (uint64_t)k);
        if (i == 4) make_repeat_chunk(&ch[i], r, n);
        else make_chunk(&ch[i], r, PS_DNA, n, pct[i] == 1 ? (unsigned)tu_rng_range(r, 1, 5) : pct[i], i == 3 ? ctx : 0);
        cp[i] = &ch[i];
    }
    ps_probes_t *p = make_probes(r, PS_DNA, k, n_probes, &ch[0]);
    if (ch[4].n >= (uint64_t)k) {
        ps_probes_t *q = make_probes(r, PS_DNA, k, 8, &ch[4]);
        char **seqs = malloc((p->n + q->n) * sizeof *seqs);
        ck_assert_ptr_nonnull(seqs);
        for (uint32_t i = 0; i < p->n; i++) seqs[i] = p->seq[i];
        for (uint32_t i = 0; i < q->n; i++) seqs[p->n + i] = q->seq[i];
        ps_probes_t *pq = NULL;
        ps_err_t err;
        ck_assert_int_eq(ps_probes_from_strings(&pq, p->n + q->n, (const char *const *)seqs, NULL, PS_ALPHA_DNA, &err),
                         PS_OK);
        free(seqs);
        ps_probes_free(p);
        ps_probes_free(q);
        p = pq;
    }
    ps_kmerset_t *ks = NULL;
    ps_err_t err;
    ck_assert_msg(ps_kmerset_build(&ks, p, both, 2, &err) == PS_OK, "k-mer set: %s", err.msg);
    char what[200];
    snprintf(what, sizeof what, "k-mer set k=%d probes=%u both=%d filter=%llu KiB lens=%llu,%llu,%llu,%llu,%llu", k,
             p->n, both, (8ull << ks->filter_bits) >> 10, (unsigned long long)ch[0].n, (unsigned long long)ch[1].n,
             (unsigned long long)ch[2].n, (unsigned long long)ch[3].n, (unsigned long long)ch[4].n);
    kset_compare(ks, cp, NC, what);
    ps_kmerset_free(ks);
    ps_probes_free(p);
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
}

/* Long chunks (up to the GPU engine's largest, so that threads own several
 * words, up to all PS_TILE_WORDS: ps_gpu_chunk_shape) of the given restart
 * densities, kept within the restarts a chunk may carry; n probes of k cut
 * from the first or random. */
static void kset_long(tu_rng_t *r, int k, uint32_t n_probes, int n_chunks, const uint64_t *len,
                      const unsigned *pct)
{
    ps_chunk_t ch[3];
    ps_chunk_t *cp[3] = {&ch[0], &ch[1], &ch[2]};
    for (int i = 0; i < n_chunks; i++) make_chunk(&ch[i], r, PS_DNA, len[i], pct[i], i == 0 ? (uint32_t)k - 1 : 0);
    ps_probes_t *p = make_probes(r, PS_DNA, k, n_probes, &ch[0]);
    ps_kmerset_t *set = NULL;
    ps_err_t err;
    ck_assert_msg(ps_kmerset_build(&set, p, 1, 2, &err) == PS_OK, "k-mer set: %s", err.msg);
    char what[200];
    snprintf(what, sizeof what, "k-mer set k=%d, %u probes, filter %llu KiB, chunks of %llu, %llu and %llu symbols", k,
             n_probes, (8ull << set->filter_bits) >> 10, (unsigned long long)ch[0].n,
             (unsigned long long)(n_chunks > 1 ? ch[1].n : 0), (unsigned long long)(n_chunks > 2 ? ch[2].n : 0));
    kset_compare(set, cp, n_chunks, what);
    ps_kmerset_free(set);
    ps_probes_free(p);
    for (int i = 0; i < n_chunks; i++) ps_chunk_free(&ch[i], NULL);
}

/* Small sets (the filter in shared memory), every k from 1 to 32, both
 * strands or one, on chunks of up to a word or two and up to a few tiles;
 * quick enough for compute-sanitizer. */
START_TEST(test_gpu_kset_small)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5E7u);
    for (int k = 1; k <= PS_KMERSET_MAX_K; k++) {
        kset_case(&r, k, (uint32_t)tu_rng_range(&r, 1, 300), 60, (int)tu_rng_below(&r, 2));
        kset_case(&r, k, (uint32_t)tu_rng_range(&r, 1, 300), 40000, (int)tu_rng_below(&r, 2));
    }
}
END_TEST

/* Sets on either side of the shared filter's limit and well past it (a
 * filter in global memory, a table of millions of slots), long chunks, and
 * threads owning several words, with the filter shared and global. */
START_TEST(test_gpu_kset_large)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5E8u);
    static const int ks[] = {2, 11, 16, 17, 18, 21, 25, 31, 32};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        kset_case(&r, ks[i], (uint32_t)tu_rng_range(&r, 12000, 20000), 1500000, 1);
        kset_case(&r, ks[i], (uint32_t)tu_rng_range(&r, 30000, 250000), 3000000, (int)tu_rng_below(&r, 2));
    }
    /* A large set (global filter) over chunks up to 2^26 symbols. */
    const uint64_t big[3] = {PS_GPU_CHUNK_SYMS - tu_rng_below(&r, 1000), tu_rng_range(&r, 1, PS_GPU_CHUNK_SYMS / 2),
                             tu_rng_range(&r, 1, PS_GPU_CHUNK_SYMS / 8)};
    static const unsigned big_pct[3] = {0, 1, 0};
    kset_long(&r, 31, 200000, 3, big, big_pct);
    /* A small set (shared filter) over dense restarts at several words a
     * thread: 5% of 2^24 and 1% of 2^26 symbols stay under 2^20 restarts. */
    const uint64_t dense[2] = {1u << 24, PS_GPU_CHUNK_SYMS - tu_rng_below(&r, 1000)};
    static const unsigned dense_pct[2] = {5, 1};
    kset_long(&r, (int)tu_rng_range(&r, 17, 19), 2000, 2, dense, dense_pct);
}
END_TEST

START_TEST(test_gpu_bad_kernel)
{
    const char *seqs[] = {"ACGT"};
    ps_probes_t *p = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_probes_from_strings(&p, 1, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ps_automaton_t *a = NULL;
    ck_assert_int_eq(ps_automaton_build(&a, p, 0, &err), PS_OK);
    ps_engine_t *e = NULL;
    ck_assert_int_ne(ps_gpu_engine_new(&e, a, 0, "nosuch", 2, &err), PS_OK);
    ck_assert_ptr_null(e);
    ck_assert_ptr_nonnull(strstr(err.msg, "nosuch"));
    ck_assert_int_ne(ps_gpu_engine_new(&e, a, 999, NULL, 2, &err), PS_OK);
    ps_automaton_free(a);
    ps_probes_free(p);
}
END_TEST

/* ---- the pattern engine: the GPU against the CPU ------------------------ */

static const char gp_dna[] = "ACGT";
/* Protein patterns use the 20 standard residues (in PROSITE syntax X means
 * any residue); the text has all 27 symbols. */
static const char gp_res[] = "ACDEFGHIKLMNPQRSTVWY";
static const char gp_protein[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

/* IUPAC letter of a set of bases (bit 0 A, 1 C, 2 G, 3 T; never empty). */
static char gp_iupac(unsigned m) { return "-ACMGRSVTWYHKDBN"[m & 15]; }

/* One record's letters: symbols (of one or two letters now and then, so
 * that long patterns match), runs of breaks (N and other IUPAC codes in
 * DNA, '-' and '.' in protein), DNA partly lower case. */
static char *gp_record(tu_rng_t *r, ps_alpha_t al, size_t len)
{
    char *s = malloc(len + 1);
    ck_assert_ptr_nonnull(s);
    const char *syms = al == PS_DNA ? gp_dna : gp_protein;
    size_t use = tu_rng_chance(r, 20) ? (size_t)tu_rng_range(r, 1, 2) : strlen(syms);
    int breaks = tu_rng_chance(r, 70);
    size_t run = 0;
    for (size_t j = 0; j < len; j++) {
        if (!run && breaks && tu_rng_below(r, 1000) < 4) run = (size_t)tu_rng_range(r, 1, 20);
        if (run) {
            run--;
            s[j] = al == PS_DNA ? (tu_rng_chance(r, 80) ? 'N' : 'R') : (tu_rng_chance(r, 50) ? '-' : '.');
            continue;
        }
        char ch = syms[tu_rng_below(r, use)];
        s[j] = al == PS_DNA && tu_rng_chance(r, 5) ? (char)tolower((unsigned char)ch) : ch;
    }
    s[len] = '\0';
    return s;
}

/* A class of 20 standard residues, written [..] or {..}. */
static void gp_class(tu_buf_t *b, uint32_t m, int neg)
{
    tu_buf_putc(b, neg ? '{' : '[');
    for (int i = 0; i < 20; i++)
        if (m >> i & 1) tu_buf_putc(b, gp_res[i]);
    tu_buf_putc(b, neg ? '}' : ']');
}

/* A pattern of len positions as the probe reader takes it: DNA in IUPAC
 * letters, protein in PROSITE syntax. When cut from text (len letters),
 * each position is that symbol, a class holding it, or now and then
 * something else (a mismatch, or nothing matched through a break); else
 * random. */
static char *gp_probe(tu_rng_t *r, ps_alpha_t al, uint32_t len, const char *text)
{
    tu_buf_t b = {0};
    for (uint32_t j = 0; j < len; j++) {
        int ch = text ? toupper((unsigned char)text[j]) : 0;
        unsigned roll = (unsigned)tu_rng_below(r, 100);
        if (al == PS_DNA) {
            const char *at = ch ? strchr(gp_dna, ch) : NULL;
            unsigned m = at ? 1u << (at - gp_dna) : 1u << tu_rng_below(r, 4);
            if (roll >= 95) m = 15;
            else if (roll >= 82) m |= (unsigned)tu_rng_below(r, 16);
            else if (roll >= 76) m = 1u << tu_rng_below(r, 4);
            tu_buf_putc(&b, gp_iupac(m));
            continue;
        }
        if (j) tu_buf_putc(&b, '-');
        const char *at = ch ? strchr(gp_res, ch) : NULL;
        int res = at ? (int)(at - gp_res) : (int)tu_rng_below(r, 20);
        if (roll >= 92) {
            tu_buf_putc(&b, tu_rng_chance(r, 80) ? 'x' : 'X');
        } else if (roll >= 80) {
            uint32_t m = 1u << res;
            for (int k = (int)tu_rng_range(r, 1, 3); k; k--) m |= 1u << tu_rng_below(r, 20);
            gp_class(&b, m, 0);
        } else if (roll >= 74) {
            uint32_t m = 0;
            for (int k = (int)tu_rng_range(r, 1, 3); k; k--) m |= 1u << tu_rng_below(r, 20);
            m &= ~(1u << res);
            if (!m) m = 1u << (res + 1) % 20;
            gp_class(&b, m, 1);
        } else {
            tu_buf_putc(&b, gp_res[roll >= 68 ? (int)tu_rng_below(r, 20) : res]);
        }
    }
    if (al == PS_PROTEIN) tu_buf_putc(&b, '.');
    tu_buf_putc(&b, '\0');
    return b.p;
}

typedef struct {
    ps_alpha_t al;
    int both, mm, threads, fastq;
    uint32_t n;
    char **probe;
    int n_rec;
    char **rec;
} gp_case_t;

/* Records of up to max_rec letters and n probes of 1 to 64 positions (of
 * one length now and then), most cut from the records. */
static void gp_make(tu_rng_t *r, gp_case_t *c, ps_alpha_t al, uint32_t n, size_t max_rec)
{
    memset(c, 0, sizeof *c);
    c->al = al;
    c->both = al == PS_DNA && tu_rng_chance(r, 60);
    c->mm = (int)tu_rng_below(r, 4);
    c->threads = (int)tu_rng_range(r, 1, 4);
    c->n_rec = (int)tu_rng_range(r, 1, 5);
    c->rec = calloc((size_t)c->n_rec, sizeof *c->rec);
    ck_assert_ptr_nonnull(c->rec);
    for (int t = 0; t < c->n_rec; t++) c->rec[t] = gp_record(r, al, (size_t)tu_rng_below(r, max_rec + 1));
    c->n = n;
    c->probe = calloc(n, sizeof *c->probe);
    ck_assert_ptr_nonnull(c->probe);
    uint32_t one_len = tu_rng_chance(r, 25) ? (uint32_t)tu_rng_range(r, 1, 64) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = one_len;
        if (!len) {
            unsigned roll = (unsigned)tu_rng_below(r, 100);
            len = roll < 10 ? 64 : roll < 20 ? (uint32_t)tu_rng_range(r, 1, 3) : (uint32_t)tu_rng_range(r, 1, 64);
        }
        const char *from = NULL;
        int t = (int)tu_rng_below(r, (uint64_t)c->n_rec);
        size_t rl = strlen(c->rec[t]);
        if (rl >= len && tu_rng_chance(r, 70)) from = c->rec[t] + tu_rng_below(r, rl - len + 1);
        c->probe[i] = gp_probe(r, al, len, from);
    }
}

/* One position of a general pattern in PROSITE syntax, matching text
 * letter ch (when not 0) or now and then not (a mismatch). */
static void gg_class(tu_rng_t *r, tu_buf_t *b, ps_alpha_t al, int ch)
{
    unsigned roll = (unsigned)tu_rng_below(r, 100);
    if (roll >= 90) {
        tu_buf_putc(b, 'x');
        return;
    }
    if (al == PS_DNA) {
        const char *at = ch ? strchr(gp_dna, toupper(ch)) : NULL;
        unsigned m = at ? 1u << (at - gp_dna) : 1u << tu_rng_below(r, 4);
        if (roll >= 78) m |= (unsigned)tu_rng_below(r, 16);
        else if (roll >= 72) m = 1u << tu_rng_below(r, 4);
        tu_buf_putc(b, m == 15 ? 'x' : gp_iupac(m));
        return;
    }
    const char *at = ch ? strchr(gp_res, toupper(ch)) : NULL;
    int res = at ? (int)(at - gp_res) : (int)tu_rng_below(r, 20);
    if (roll >= 78) {
        uint32_t m = 1u << res;
        for (int k = (int)tu_rng_range(r, 1, 3); k; k--) m |= 1u << tu_rng_below(r, 20);
        gp_class(b, m, 0);
    } else if (roll >= 74) {
        uint32_t m = 1u << tu_rng_below(r, 20);
        m &= ~(1u << res);
        gp_class(b, m ? m : 1u << (res + 1) % 20, 1);
    } else {
        tu_buf_putc(b, gp_res[roll >= 68 ? (int)tu_rng_below(r, 20) : res]);
    }
}

/* A class with an anchor inside, [<..] or [..>], holding letter ch. */
static void gg_edge(tu_rng_t *r, tu_buf_t *b, ps_alpha_t al, int ch, char edge)
{
    const char *syms = al == PS_DNA ? gp_dna : gp_res;
    const char *at = ch ? strchr(syms, toupper(ch)) : NULL;
    tu_buf_putc(b, '[');
    if (edge == '<') tu_buf_putc(b, '<');
    tu_buf_putc(b, at ? *at : syms[tu_rng_below(r, strlen(syms))]);
    if (tu_rng_chance(r, 30)) tu_buf_putc(b, syms[tu_rng_below(r, strlen(syms))]);
    if (edge == '>') tu_buf_putc(b, '>');
    tu_buf_putc(b, ']');
}

/* A general pattern of at most 64 positions in PROSITE syntax: variable
 * repeats e(n,m), fixed ones, '<' '>' anchors and [<M] [G>] classes. When
 * text is given it is mostly cut from it (from its start or near its end
 * when anchored there), so that it matches. */
static char *gp_general(tu_rng_t *r, ps_alpha_t al, const char *text)
{
    for (;;) {
        size_t tl = text ? strlen(text) : 0, t = 0;
        int start = tu_rng_chance(r, 15), end = tu_rng_chance(r, 15);
        int start_or = !start && tu_rng_chance(r, 12), end_or = !end && tu_rng_chance(r, 12);
        if (tl && tu_rng_chance(r, 80)) {
            if ((start || start_or) && tu_rng_chance(r, 70)) t = 0;
            else if ((end || end_or) && tu_rng_chance(r, 70)) t = tl - (size_t)tu_rng_range(r, 1, tl < 16 ? tl : 16);
            else t = (size_t)tu_rng_below(r, tl);
        } else {
            tl = 0;
        }
        tu_buf_t b = {0};
        int n_el = (int)tu_rng_range(r, 1, 8), total = 0, mandatory = 0, floor = 1;
        if (start) tu_buf_putc(&b, '<');
        for (int i = 0; i < n_el && total < 64; i++) {
            if (i) tu_buf_putc(&b, '-');
            int ch = t < tl ? text[t] : 0;
            char edge = i == 0 && start_or ? '<' : i == n_el - 1 && end_or ? '>' : 0;
            if (edge) {
                gg_edge(r, &b, al, ch, edge);
                total++, mandatory++, floor++, t++;
                continue;
            }
            unsigned roll = (unsigned)tu_rng_below(r, 100);
            int lo = 1, hi = 1;
            if (roll < 18) {
                lo = (int)tu_rng_below(r, 3);
                hi = lo + (int)tu_rng_range(r, 1, 3);
            } else if (roll < 21) {
                lo = hi = (int)tu_rng_range(r, 8, 30); /* long strings, up to a whole word */
            } else if (roll < 30) {
                lo = hi = (int)tu_rng_range(r, 2, 4);
            }
            if (total + hi > 64) hi = 64 - total, lo = lo < hi ? lo : hi;
            if (hi > 1 || lo != hi) {
                /* Repeats mostly of any letter, so that cut text matches. */
                if (tu_rng_chance(r, 80)) tu_buf_putc(&b, 'x');
                else gg_class(r, &b, al, ch);
                if (lo == hi) tu_buf_printf(&b, "(%d)", lo);
                else tu_buf_printf(&b, "(%d,%d)", lo, hi);
                t += (size_t)tu_rng_range(r, (uint64_t)lo, (uint64_t)hi);
            } else {
                gg_class(r, &b, al, ch);
                t++;
            }
            total += hi;
            mandatory += lo;
        }
        if (end) tu_buf_putc(&b, '>');
        if (mandatory < floor) { /* the reader refuses what may match nothing */
            tu_buf_free(&b);
            continue;
        }
        if (!ps_pattern_is_prosite(b.p, b.n)) tu_buf_putc(&b, '.');
        tu_buf_putc(&b, '\0');
        return b.p;
    }
}

/* A case of general patterns (a few plain windows among them): records
 * long and short (anchors act at both ends of short ones), FASTQ now and
 * then. */
static void gp_make_general(tu_rng_t *r, gp_case_t *c, ps_alpha_t al, uint32_t n, size_t max_rec)
{
    memset(c, 0, sizeof *c);
    c->al = al;
    /* Both strands rarely: such sets are the CPU's (gp_refused_fwd). */
    c->both = al == PS_DNA && tu_rng_chance(r, 15);
    c->mm = (int)tu_rng_below(r, 4);
    c->threads = (int)tu_rng_range(r, 1, 4);
    c->fastq = tu_rng_chance(r, 25);
    c->n_rec = (int)tu_rng_range(r, 1, 12);
    c->rec = calloc((size_t)c->n_rec, sizeof *c->rec);
    ck_assert_ptr_nonnull(c->rec);
    for (int t = 0; t < c->n_rec; t++)
        c->rec[t] = gp_record(r, al, (size_t)tu_rng_below(r, tu_rng_chance(r, 30) ? 12 : max_rec + 1));
    c->n = n;
    c->probe = calloc(n, sizeof *c->probe);
    ck_assert_ptr_nonnull(c->probe);
    for (uint32_t i = 0; i < n; i++) {
        const char *rec = c->rec[tu_rng_below(r, (uint64_t)c->n_rec)];
        if (tu_rng_chance(r, 10)) {
            uint32_t len = (uint32_t)tu_rng_range(r, 1, 64);
            size_t rl = strlen(rec);
            c->probe[i] = gp_probe(r, al, len, rl >= len ? rec + tu_rng_below(r, rl - len + 1) : NULL);
        } else {
            c->probe[i] = gp_general(r, al, rec);
        }
    }
}

static void gp_free(gp_case_t *c)
{
    for (uint32_t i = 0; i < c->n; i++) free(c->probe[i]);
    for (int t = 0; t < c->n_rec; t++) free(c->rec[t]);
    free(c->probe);
    free(c->rec);
}

static ps_patset_t *gp_patset(ps_probes_t **p, uint32_t n, char *const *probes, ps_alpha_t al, int both, int mm,
                              const char *what)
{
    ps_err_t err;
    int rc = ps_probes_from_strings(p, n, (const char *const *)probes, NULL,
                                    al == PS_DNA ? PS_ALPHA_DNA : PS_ALPHA_PROTEIN, &err);
    ck_assert_msg(rc == PS_OK, "%s: probes: %s", what, err.msg);
    ps_patset_t *ps = NULL;
    rc = ps_patset_build(&ps, *p, both, mm, &err);
    ck_assert_msg(rc == PS_OK, "%s: pattern set: %s", what, err.msg);
    return ps;
}

/* The GPU pattern engine for `workers`, checked to say what it is. */
static ps_engine_t *gp_engine(const ps_patset_t *ps, int workers, const char *what)
{
    ps_engine_t *e = NULL;
    ps_err_t err;
    int rc = ps_gpu_pattern_engine_new(&e, ps, 0, workers, &err);
    ck_assert_msg(rc == PS_OK, "%s: GPU pattern engine: %s", what, err.msg);
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    ck_assert_int_eq(in.kind, PS_ENGINE_GPU);
    ck_assert_int_eq(in.patterns, 1);
    ck_assert_int_eq(in.workers, workers);
    ck_assert_int_eq(in.gpu_started, 1);
    ck_assert_msg(in.gpu_name[0] && in.gpu_sms > 0 && in.gpu_mem_gib > 0, "%s: no device described", what);
    ck_assert_uint_eq(in.max_chunk_syms, PS_GPU_CHUNK_SYMS);
    return e;
}

/* A set whose minus strand is read forward (patset.h: fwd) is the CPU's
 * alone: the GPU refuses it as usage, saying why (the caller then keeps
 * the CPU). 1 when ps is such a set. */
static int gp_refused_fwd(const ps_patset_t *ps, const char *what)
{
    if (!ps->fwd) return 0;
    ps_engine_t *e = NULL;
    ps_err_t err;
    ck_assert_msg(ps_gpu_pattern_engine_new(&e, ps, 0, 2, &err) == PS_E_USAGE && !e,
                  "%s: the GPU took a set whose minus strand is read forward", what);
    ck_assert_msg(strstr(err.msg, "minus strand"), "%s: '%s' does not say why", what, err.msg);
    return 1;
}

/* Leaf for leaf; then the GPU engine's counters read zero. */
static void gp_compare(ps_engine_t *e, const ps_patset_t *ps, const uint64_t *got, const uint64_t *want,
                       const char *what)
{
    const uint32_t levels = (uint32_t)ps->max_mm + 1, strands = ps->leaves.both_strands ? 2u : 1u;
    for (uint32_t l = 0; l < ps->leaves.n_leaves; l++)
        ck_assert_msg(got[l] == want[l], "%s: probe %u strand %u distance %u: GPU %llu sites, CPU %llu", what,
                      l / levels / strands, l / levels % strands, l % levels, (unsigned long long)got[l],
                      (unsigned long long)want[l]);
    uint64_t *again = calloc(ps->leaves.n_leaves + 1, sizeof *again);
    ck_assert_ptr_nonnull(again);
    ps_err_t err;
    ck_assert_int_eq(e->collect(e, again, &err), PS_OK);
    for (uint32_t l = 0; l < ps->leaves.n_leaves; l++) ck_assert_uint_eq(again[l], 0);
    free(again);
}

/* Case c through files: the CPU pattern engine with its own settings, the
 * GPU one with chunks mostly just longer than the longest pattern (so that
 * context and cut restarts are everywhere), blocks now and then. */
static void gp_run_file(tu_rng_t *r, const gp_case_t *c, const char *dir, int idx)
{
    char *path = tu_path(dir, "in.fa");
    tu_buf_t fa = {0};
    for (int t = 0; t < c->n_rec; t++) {
        if (c->fastq) {
            tu_buf_printf(&fa, "@r%d rec\n%s\n+\n", t, c->rec[t]);
            for (size_t j = strlen(c->rec[t]); j > 0; j--) tu_buf_putc(&fa, 'I');
            tu_buf_putc(&fa, '\n');
            continue;
        }
        tu_buf_printf(&fa, ">r%d rec\n", t);
        size_t len = strlen(c->rec[t]), width = tu_rng_chance(r, 50) ? (size_t)tu_rng_range(r, 10, 120) : len + 1;
        for (size_t at = 0; at < len; at += width) {
            tu_buf_put(&fa, c->rec[t] + at, len - at < width ? len - at : width);
            tu_buf_putc(&fa, '\n');
        }
    }
    tu_write_file(path, fa.p ? fa.p : "", fa.n);
    tu_buf_free(&fa);

    char what[256];
    snprintf(what, sizeof what, "case %d (seed %llu; %s, %u probes, %s strands, -m %d, %d threads, %s)", idx,
             (unsigned long long)tu_seed(), ps_alpha_name(c->al), c->n, c->both ? "both" : "one", c->mm,
             c->threads, c->fastq ? "fastq" : "fasta");
    ps_probes_t *p = NULL;
    ps_patset_t *ps = gp_patset(&p, c->n, c->probe, c->al, c->both, c->mm, what);
    const uint32_t nl = ps->leaves.n_leaves;
    uint64_t *want = calloc(nl + 1, sizeof *want), *got = calloc(nl + 1, sizeof *got);
    ck_assert(want && got);
    ps_err_t err;

    ps_engine_info_t cin = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t co;
    ps_scan_opts_init(&co, &cin, 1);
    ps_engine_t *ce = NULL;
    ck_assert_int_eq(ps_pattern_engine_new(&ce, ps, ps_scan_workers(&co), &err), PS_OK);
    int rc = ps_scan_file(ce, &ps->leaves, path, &co, want, NULL, NULL, NULL, NULL, &err);
    ck_assert_msg(rc == PS_OK, "%s: CPU scan: %s", what, err.msg);
    ps_engine_destroy(ce);
    if (gp_refused_fwd(ps, what)) {
        free(want);
        free(got);
        ps_patset_free(ps);
        ps_probes_free(p);
        free(path);
        return;
    }

    ps_engine_info_t gin = {.kind = PS_ENGINE_GPU, .max_chunk_syms = PS_GPU_CHUNK_SYMS,
                            .max_chunk_restarts = PS_GPU_CHUNK_RESTARTS};
    ps_scan_opts_t go;
    ps_scan_opts_init(&go, &gin, c->threads);
    unsigned roll = (unsigned)tu_rng_below(r, 100);
    if (roll < 70) go.chunk_syms = (uint64_t)ps->leaves.k + tu_rng_below(r, 300);
    else if (roll < 90) go.chunk_syms = tu_rng_range(r, 1000, 100000);
    if (tu_rng_chance(r, 30)) go.chunk_restarts = (uint32_t)tu_rng_range(r, ps->windows_only ? 4 : 1, 64);
    if (tu_rng_chance(r, 30)) go.block_bytes = (size_t)tu_rng_range(r, 1, 64);
    snprintf(what + strlen(what), sizeof what - strlen(what), ", GPU chunks of %llu, %u restarts, blocks %zu",
             (unsigned long long)go.chunk_syms, go.chunk_restarts, go.block_bytes);
    ps_engine_t *ge = gp_engine(ps, ps_scan_workers(&go), what);
    rc = ps_scan_file(ge, &ps->leaves, path, &go, got, NULL, NULL, NULL, NULL, &err);
    ck_assert_msg(rc == PS_OK, "%s: GPU scan: %s", what, err.msg);
    gp_compare(ge, ps, got, want, what);
    /* `locate` (a third of the cases, for time): the GPU's rows are the
     * CPU's, byte for byte. */
    char *rows[2] = {NULL, NULL};
    const int locate = tu_rng_chance(r, 30);
    /* PROSITE patterns over proteins: ps_scan's rules, with options drawn
     * at random, and ps_scan's rows half the time. */
    ps_psopts_t pso = {.included = tu_rng_chance(r, 30), .no_overlaps = tu_rng_chance(r, 30),
                       .shortest = tu_rng_chance(r, 30), .max_x = (int)tu_rng_below(r, 3)};
    const int rules = ps_opt_psscan_rules(p, c->mm);
    const ps_sites_format_t fmt = rules && tu_rng_chance(r, 50) ? PS_SITES_PFF : PS_SITES_TSV;
    if (locate && rules)
        snprintf(what + strlen(what), sizeof what - strlen(what), ", ps_scan's rules (-i %d -v %d -g %d -x %d)",
                 pso.included, pso.no_overlaps, pso.shortest, pso.max_x);
    for (int g = 0; locate && g < 2; g++) {
        size_t len = 0;
        FILE *mem = open_memstream(&rows[g], &len);
        ck_assert(mem);
        ps_site_writer_t *w = NULL;
        ck_assert(ps_site_writer_new(&w, mem, p, &ps->leaves, fmt, 0, &err) == PS_OK);
        uint32_t n_rules;
        if (rules) ck_assert_msg(ps_site_writer_rules(w, &pso, &n_rules, &err) == PS_OK, "%s", err.msg);
        ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                                 ps_site_writer_free_rows, 0};
        ps_engine_t *le = NULL;
        if (g) le = gp_engine(ps, ps_scan_workers(&go), what);
        else ck_assert_int_eq(ps_pattern_engine_new(&le, ps, ps_scan_workers(&co), &err), PS_OK);
        rc = ps_scan_file(le, &ps->leaves, path, g ? &go : &co, NULL, &sink, NULL, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "%s: %s sites: %s", what, g ? "GPU" : "CPU", err.msg);
        ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
        ps_site_writer_free(w);
        ps_engine_destroy(le);
        fclose(mem);
    }
    ck_assert_msg(!locate || !strcmp(rows[0], rows[1]), "%s: locate's rows differ between the CPU and the GPU", what);
    free(rows[0]);
    free(rows[1]);
    ps_engine_info_t in;
    ps_engine_info(ge, &in);
    uint64_t letters = 0;
    for (int t = 0; t < c->n_rec; t++) letters += strlen(c->rec[t]);
    if (letters >= 1000) ck_assert_msg(in.chunks_gpu > 0, "%s: no chunk reached the GPU", what);
    ps_engine_destroy(ge);
    free(want);
    free(got);
    ps_patset_free(ps);
    ps_probes_free(p);
    free(path);
}

/* Sites (pos, leaf) packed for sorting. */
static int cmp_site(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The two engines' sites of chunk c, as sorted lists, must be the same. */
static void gp_compare_sites(ps_engine_t *ce, ps_engine_t *ge, int worker, const ps_chunk_t *c, const char *what)
{
    ps_sites_t a = {0}, b = {0};
    ps_err_t err;
    ck_assert_msg(ce->scan_sites(ce, 0, c, &a, &err) == PS_OK, "%s: CPU sites: %s", what, err.msg);
    ck_assert_msg(ge->scan_sites(ge, worker, c, &b, &err) == PS_OK, "%s: GPU sites: %s", what, err.msg);
    ck_assert_msg(a.n == b.n, "%s: %llu sites on the CPU, %llu on the GPU", what, (unsigned long long)a.n,
                  (unsigned long long)b.n);
    uint64_t *x = malloc((a.n + 1) * sizeof *x), *y = malloc((b.n + 1) * sizeof *y);
    ck_assert(x && y);
    for (uint64_t i = 0; i < a.n; i++) x[i] = (uint64_t)a.pos[i] << 32 | a.leaf[i];
    for (uint64_t i = 0; i < b.n; i++) y[i] = (uint64_t)b.pos[i] << 32 | b.leaf[i];
    qsort(x, a.n, sizeof *x, cmp_site);
    qsort(y, b.n, sizeof *y, cmp_site);
    for (uint64_t i = 0; i < a.n; i++)
        ck_assert_msg(x[i] == y[i], "%s: site %llu: CPU at %llu leaf %llu, GPU at %llu leaf %llu", what,
                      (unsigned long long)i, (unsigned long long)(x[i] >> 32), (unsigned long long)(x[i] & 0xffffffffu),
                      (unsigned long long)(y[i] >> 32), (unsigned long long)(y[i] & 0xffffffffu));
    free(x);
    free(y);
    ps_sites_free(&a);
    ps_sites_free(&b);
}

/* Chunks made here (random symbols, restarts sparse to dense, context;
 * for general patterns random segment edges, the last segment closed or
 * not), each counted by both engines directly; the GPU gets every chunk
 * twice, from different workers, and must count twice the CPU's. */
static void gp_run_chunks(tu_rng_t *r, ps_alpha_t al, uint32_t n_probes, uint64_t max_len, int general, int idx)
{
    enum { NC = 3 };
    ps_chunk_t ch[NC];
    static const unsigned pct[NC] = {0, 1, 20};
    for (int i = 0; i < NC; i++)
        make_chunk(&ch[i], r, al, tu_rng_range(r, 1, max_len), pct[i] == 1 ? (unsigned)tu_rng_range(r, 1, 3) : pct[i],
                   0);
    char **probes = calloc(n_probes, sizeof *probes);
    ck_assert_ptr_nonnull(probes);
    char text[81];
    for (uint32_t i = 0; i < n_probes; i++) {
        uint32_t len = (uint32_t)tu_rng_range(r, 1, 64);
        const ps_chunk_t *c = &ch[tu_rng_below(r, NC)];
        if (general) {
            /* Cut from up to 80 letters of the chunk, or from its start. */
            uint64_t at = tu_rng_chance(r, 20) || c->n <= 80 ? 0 : tu_rng_below(r, c->n - 80);
            uint32_t got = 0;
            for (; got < 80 && at + got < c->n; got++) text[got] = ps_alpha_letter(al, (int)ps_chunk_sym(c, at + got));
            text[got] = '\0';
            probes[i] = gp_general(r, al, text);
            continue;
        }
        const char *from = NULL;
        if (c->n >= len && tu_rng_chance(r, 70)) {
            uint64_t at = tu_rng_below(r, c->n - len + 1);
            for (uint32_t j = 0; j < len; j++) text[j] = ps_alpha_letter(al, (int)ps_chunk_sym(c, at + j));
            text[len] = '\0';
            from = text;
        }
        probes[i] = gp_probe(r, al, len, from);
    }
    int both = al == PS_DNA && tu_rng_chance(r, 50), mm = (int)tu_rng_below(r, 4);
    char what[200];
    snprintf(what, sizeof what,
             "%s chunk case %d (seed %llu; %s, %u probes, %s strands, -m %d, lengths %llu %llu %llu)",
             general ? "general" : "windows", idx, (unsigned long long)tu_seed(), ps_alpha_name(al), n_probes,
             both ? "both" : "one", mm, (unsigned long long)ch[0].n, (unsigned long long)ch[1].n,
             (unsigned long long)ch[2].n);
    ps_probes_t *p = NULL;
    ps_patset_t *ps = gp_patset(&p, n_probes, probes, al, both, mm, what);
    /* Context: up to the longest pattern less one, as chunks carry. */
    for (int i = 0; i < NC; i++) {
        uint32_t ctx = (uint32_t)tu_rng_below(r, (uint64_t)ps->leaves.k);
        ch[i].n_ctx = ctx < ch[i].n ? ctx : 0;
        if (!general) continue;
        for (uint32_t j = 0; j < ch[i].n_restart; j++) ch[i].edge[j] = (uint8_t)tu_rng_below(r, 4);
        ch[i].head_edge = (uint8_t)tu_rng_below(r, 2);
        ch[i].tail_edge = (uint8_t)(tu_rng_below(r, 4) * 2); /* PS_EDGE_REC_END, PS_EDGE_CLOSED */
    }
    const uint32_t nl = ps->leaves.n_leaves;
    uint64_t *want = calloc(nl + 1, sizeof *want), *got = calloc(nl + 1, sizeof *got);
    ck_assert(want && got);
    ps_err_t err;
    if (!gp_refused_fwd(ps, what)) {
        ps_engine_t *ce = NULL, *ge = gp_engine(ps, 3, what);
        ck_assert_int_eq(ps_pattern_engine_new(&ce, ps, 1, &err), PS_OK);
        for (int i = 0; i < NC; i++) ck_assert_int_eq(ce->scan(ce, 0, &ch[i], &err), PS_OK);
        ck_assert_int_eq(ce->collect(ce, want, &err), PS_OK);
        for (uint32_t l = 0; l < nl; l++) want[l] *= 2;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < NC; i++) {
                int rc = ge->scan(ge, (i + pass) % 3, &ch[i], &err);
                ck_assert_msg(rc == PS_OK, "%s: %s", what, err.msg);
            }
        ck_assert_int_eq(ge->collect(ge, got, &err), PS_OK);
        gp_compare(ge, ps, got, want, what);
        /* `locate`: the same sites, where they start. */
        for (int i = 0; i < NC; i++) gp_compare_sites(ce, ge, i % 3, &ch[i], what);
        ps_engine_destroy(ce);
        ps_engine_destroy(ge);
    }
    free(want);
    free(got);
    ps_patset_free(ps);
    ps_probes_free(p);
    for (uint32_t i = 0; i < n_probes; i++) free(probes[i]);
    free(probes);
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
}

/* Sets the GPU does not take (a string of over 64 positions, windows or
 * general, anchored or not) are refused as usage, saying why, so that the
 * caller keeps the CPU engine; 64 positions are taken, general sets too. */
START_TEST(test_gpu_pattern_refused)
{
    char long_probe[66], *seqs[2] = {long_probe, (char *)"ACGTN"};
    for (int i = 0; i < 65; i++) long_probe[i] = "ACGT"[i * 7 % 4];
    long_probe[65] = '\0';
    ps_probes_t *p = NULL;
    ps_patset_t *ps = gp_patset(&p, 2, seqs, PS_DNA, 1, 1, "65 positions");
    ps_engine_t *e = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_gpu_pattern_engine_new(&e, ps, 0, 2, &err), PS_E_USAGE);
    ck_assert_ptr_null(e);
    ck_assert_msg(strstr(err.msg, "64") && strstr(err.msg, "65"), "'%s' does not say why", err.msg);
    ps_patset_free(ps);
    ps_probes_free(p);

    long_probe[64] = '\0';
    ps = gp_patset(&p, 2, seqs, PS_DNA, 1, 1, "64 positions");
    e = gp_engine(ps, 2, "64 positions");
    ps_engine_destroy(e);
    ps_patset_free(ps);
    ps_probes_free(p);

    /* General sets: 64 positions at most, counting optional ones and
     * strings anchored at either end. */
    static const char *const general[][2] = {
        {"<A-x(0,62)-C", "C-x(2,4)-[GT>]"}, /* taken */
        {"A-x(2,63)-C", "<C-G"},           /* 65 positions */
        {"<A-x(63)-C", "C-x(2,4)-G"},      /* 65, anchored at the start */
        {"A-x(0,63)-C>", "A-[CG]"},        /* 65, anchored at the end */
    };
    for (size_t i = 0; i < sizeof general / sizeof *general; i++) {
        char *g[2] = {(char *)general[i][0], (char *)general[i][1]};
        ps = gp_patset(&p, 2, g, i % 2 ? PS_PROTEIN : PS_DNA, 0, 2, general[i][0]);
        ck_assert_int_eq(ps->windows_only, 0);
        if (i == 0) {
            e = gp_engine(ps, 2, general[i][0]);
        } else {
            ck_assert_int_eq(ps_gpu_pattern_engine_new(&e, ps, 0, 2, &err), PS_E_USAGE);
            ck_assert_msg(strstr(err.msg, "64") && strstr(err.msg, "65"), "%s: '%s' does not say why",
                          general[i][0], err.msg);
        }
        ps_engine_destroy(e);
        e = NULL;
        ps_patset_free(ps);
        ps_probes_free(p);
    }

    /* A general DNA set on both strands reads the minus strand forward
     * (patset.h: fwd), which only the CPU does. */
    char *g[2] = {(char *)general[0][0], (char *)general[0][1]};
    ps = gp_patset(&p, 2, g, PS_DNA, 1, 2, "general, both strands");
    ck_assert_ptr_nonnull(ps->fwd);
    ck_assert_int_eq(ps_gpu_pattern_engine_new(&e, ps, 0, 2, &err), PS_E_USAGE);
    ck_assert_ptr_null(e);
    ck_assert_msg(strstr(err.msg, "minus strand"), "'%s' does not say why", err.msg);
    ps_patset_free(ps);
    ps_probes_free(p);
}
END_TEST

/* A few small cases of every kind: quick enough for compute-sanitizer. */
START_TEST(test_gpu_pattern_small)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a7u);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 10; k++) {
        gp_case_t c;
        gp_make(&r, &c, k % 3 == 2 ? PS_PROTEIN : PS_DNA, (uint32_t)tu_rng_range(&r, 1, 12), 3000);
        gp_run_file(&r, &c, dir, k);
        gp_free(&c);
    }
    gp_run_chunks(&r, PS_DNA, 20, 20000, 0, 0);
    gp_run_chunks(&r, PS_PROTEIN, 20, 20000, 0, 1);
    tu_rmtree(dir);
}
END_TEST

/* General patterns, a few small cases of files and chunks: quick enough
 * for compute-sanitizer. */
START_TEST(test_gpu_pattern_general_small)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9b1u);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 8; k++) {
        gp_case_t c;
        gp_make_general(&r, &c, k % 2 ? PS_PROTEIN : PS_DNA, (uint32_t)tu_rng_range(&r, 1, 12), 2000);
        gp_run_file(&r, &c, dir, k);
        gp_free(&c);
    }
    gp_run_chunks(&r, PS_DNA, 16, 20000, 1, 0);
    gp_run_chunks(&r, PS_PROTEIN, 16, 20000, 1, 1);
    tu_rmtree(dir);
}
END_TEST

/* General patterns over many random files: anchors, variable repeats,
 * classes, mismatches, both strands, records and breaks, FASTA and FASTQ,
 * chunks and restart lists so small that context, deferred starts and
 * edges are everywhere; many word groups now and then. */
START_TEST(test_gpu_pattern_general)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9b2u);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 120; k++) {
        gp_case_t c;
        ps_alpha_t al = tu_rng_chance(&r, 50) ? PS_DNA : PS_PROTEIN;
        uint32_t n = tu_rng_chance(&r, 15) ? (uint32_t)tu_rng_range(&r, 100, 400) : (uint32_t)tu_rng_range(&r, 1, 40);
        gp_make_general(&r, &c, al, n, tu_rng_chance(&r, 20) ? 100000 : 3000);
        gp_run_file(&r, &c, dir, k);
        gp_free(&c);
    }
    for (int k = 0; k < 12; k++) {
        ps_alpha_t al = k % 2 ? PS_PROTEIN : PS_DNA;
        uint32_t n = k % 4 == 3 ? (uint32_t)tu_rng_range(&r, 100, 300) : (uint32_t)tu_rng_range(&r, 1, 30);
        gp_run_chunks(&r, al, n, k % 4 == 1 ? 2000000 : 300000, 1, k);
    }
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_gpu_pattern_files)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a8u);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 60; k++) {
        gp_case_t c;
        ps_alpha_t al = tu_rng_chance(&r, 65) ? PS_DNA : PS_PROTEIN;
        /* Now and then enough patterns for many word groups, or long records. */
        uint32_t n = tu_rng_chance(&r, 15) ? (uint32_t)tu_rng_range(&r, 100, 400) : (uint32_t)tu_rng_range(&r, 1, 40);
        gp_make(&r, &c, al, n, tu_rng_chance(&r, 20) ? 200000 : 20000);
        gp_run_file(&r, &c, dir, k);
        gp_free(&c);
    }
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_gpu_pattern_chunks)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a9u);
    for (int k = 0; k < 16; k++) {
        ps_alpha_t al = k % 2 ? PS_PROTEIN : PS_DNA;
        uint32_t n = k % 4 == 3 ? (uint32_t)tu_rng_range(&r, 100, 300) : (uint32_t)tu_rng_range(&r, 1, 30);
        gp_run_chunks(&r, al, n, k % 4 == 1 ? 2000000 : 300000, 0, k);
    }
}
END_TEST

/* ---- guides: a PAM beside every probe, limits per probe ---------------- */

/* Guides with a PAM (3' or 5', IUPAC), some with their own limit, over
 * DNA records with N runs: the GPU's counts and its cas-offinder rows are
 * the CPU's. Sets of up to 400 guides span many device words. */
static void gg_case(tu_rng_t *r, const char *dir, int idx, uint32_t most)
{
    /* "": no PAM, plain bases: the piece kernel (a joint exact-piece index). */
    static const char *const pams[] = {"NGG", "NRG", "NNGRRT", "TTTV", "TTN", "G", "", ""};
    const int np = (int)(sizeof pams / sizeof *pams), pi = (int)tu_rng_below(r, (uint64_t)np);
    const int five = pams[pi][0] == 'T' && pams[pi][1] == 'T';
    const int n_rec = (int)tu_rng_range(r, 1, 4);
    char **rec = calloc((size_t)n_rec, sizeof *rec);
    ck_assert(rec);
    tu_buf_t fa = {0};
    for (int t = 0; t < n_rec; t++) {
        rec[t] = gp_record(r, PS_DNA, (size_t)tu_rng_below(r, 30000));
        tu_buf_printf(&fa, ">r%d\n%s\n", t, rec[t]);
    }
    char *path = tu_path(dir, "guides.fa");
    tu_write_file(path, fa.p ? fa.p : "", fa.n);
    tu_buf_free(&fa);
    const uint32_t n = (uint32_t)tu_rng_range(r, 1, most);
    const size_t L = (size_t)tu_rng_range(r, 15, 24);
    char **g = calloc(n, sizeof *g);
    ck_assert(g);
    for (uint32_t i = 0; i < n; i++) {
        const char *src = rec[tu_rng_below(r, (uint64_t)n_rec)];
        const size_t sl = strlen(src);
        g[i] = gp_probe(r, PS_DNA, (uint32_t)L, sl > L ? src + tu_rng_below(r, sl - L) : NULL);
        for (size_t j = 0; g[i][j]; j++)
            if (!strchr(pams[pi][0] ? "ACGTRYSWKMBDHVN" : "ACGT", g[i][j])) g[i][j] = "ACGT"[tu_rng_below(r, 4)];
    }
    ps_err_t err;
    ps_probes_t *p = NULL;
    ck_assert_msg(ps_probes_from_strings(&p, n, (const char *const *)g, NULL, PS_ALPHA_DNA, &err) == PS_OK, "%s",
                  err.msg);
    if (pams[pi][0]) ck_assert_msg(ps_guides_add_pam(&p, pams[pi], five, "guides", &err) == PS_OK, "%s", err.msg);
    const int mm0 = (int)tu_rng_below(r, 5) + !pams[pi][0]; /* without a PAM, mismatches make it a pattern set */
    if (tu_rng_chance(r, 50)) {
        ck_assert((p->limit = malloc(n)) != NULL);
        for (uint32_t i = 0; i < n; i++) p->limit[i] = tu_rng_chance(r, 50) ? (uint8_t)tu_rng_below(r, 5) : PS_NO_LIMIT;
    }
    int mm = 0;
    ck_assert(ps_guides_limits(p, mm0, &mm, "guides", &err) == PS_OK);
    const int both = tu_rng_chance(r, 80);
    ps_patset_t *ps = NULL;
    ck_assert_msg(ps_patset_build(&ps, p, both, mm, &err) == PS_OK, "%s", err.msg);
    /* The exact-piece index at each r now and then (guideset.h). */
    if (tu_rng_chance(r, 60)) ps->guide_need = (int)tu_rng_range(r, 1, PS_GUIDESET_MAX_NEED);
    char what[256];
    snprintf(what, sizeof what, "guides case %d (seed %llu; %u guides of %zu + %s %s, -m %d%s, %s strands, r %d)", idx,
             (unsigned long long)tu_seed(), n, L, pams[pi], five ? "5'" : "3'", mm0,
             p->limit ? " and limits" : "", both ? "both" : "one", ps->guide_need);
    const uint32_t nl = ps->leaves.n_leaves;
    uint64_t *want = calloc(nl + 1, sizeof *want), *got = calloc(nl + 1, sizeof *got);
    ck_assert(want && got);
    ps_engine_info_t cin = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t co;
    ps_scan_opts_init(&co, &cin, 2);
    ps_engine_t *ce = NULL;
    ck_assert_int_eq(ps_pattern_engine_new(&ce, ps, ps_scan_workers(&co), &err), PS_OK);
    ck_assert_msg(ps_scan_file(ce, &ps->leaves, path, &co, want, NULL, NULL, NULL, NULL, &err) == PS_OK, "%s",
                  err.msg);
    ps_engine_destroy(ce);
    ps_engine_info_t gin = {.kind = PS_ENGINE_GPU, .max_chunk_syms = PS_GPU_CHUNK_SYMS,
                            .max_chunk_restarts = PS_GPU_CHUNK_RESTARTS};
    ps_scan_opts_t go;
    ps_scan_opts_init(&go, &gin, 2);
    if (tu_rng_chance(r, 60)) go.chunk_syms = (uint64_t)ps->leaves.k + tu_rng_below(r, 3000);
    ps_engine_t *ge = gp_engine(ps, ps_scan_workers(&go), what);
    ck_assert_msg(ps_scan_file(ge, &ps->leaves, path, &go, got, NULL, NULL, NULL, NULL, &err) == PS_OK, "%s: %s",
                  what, err.msg);
    gp_compare(ge, ps, got, want, what);
    ps_engine_destroy(ge);
    uint64_t sites = 0;
    for (uint32_t l = 0; l < nl; l++) sites += want[l];
    /* The rows, Cas-OFFinder's and the TSV. */
    char *rows[2] = {NULL, NULL};
    const ps_sites_format_t fmt = tu_rng_chance(r, 50) ? PS_SITES_CASOFF : PS_SITES_TSV;
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        FILE *mem = open_memstream(&rows[k], &len);
        ck_assert(mem);
        ps_site_writer_t *w = NULL;
        ck_assert(ps_site_writer_new(&w, mem, p, &ps->leaves, fmt, 0, &err) == PS_OK);
        ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                                 ps_site_writer_free_rows, 0};
        ps_engine_t *le = NULL;
        if (k) le = gp_engine(ps, ps_scan_workers(&go), what);
        else ck_assert_int_eq(ps_pattern_engine_new(&le, ps, ps_scan_workers(&co), &err), PS_OK);
        ck_assert_msg(ps_scan_file(le, &ps->leaves, path, k ? &go : &co, NULL, &sink, NULL, NULL, NULL, &err) == PS_OK,
                      "%s: %s", what, err.msg);
        ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
        ps_site_writer_free(w);
        ps_engine_destroy(le);
        fclose(mem);
    }
    ck_assert_msg(!strcmp(rows[0], rows[1]), "%s: the rows differ between the CPU and the GPU", what);
    free(rows[0]);
    free(rows[1]);
    free(want);
    free(got);
    ps_patset_free(ps);
    ps_probes_free(p);
    for (uint32_t i = 0; i < n; i++) free(g[i]);
    free(g);
    for (int t = 0; t < n_rec; t++) free(rec[t]);
    free(rec);
    free(path);
    (void)sites;
}

START_TEST(test_gpu_guides_small)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6a1du);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 6; k++) gg_case(&r, dir, k, 40);
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_gpu_guides)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6a2du);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 40; k++) gg_case(&r, dir, k, k % 4 == 3 ? 400 : 60);
    tu_rmtree(dir);
}
END_TEST

/* Guides with bulges (bulges.h): the GPU bulge engine against the CPU's,
 * counts and rows (TSV at each site's best position, or Cas-OFFinder's
 * rows at every position), random guides from the records, PAMs 3' and 5'
 * or none, bulges of 0 to 2 bases each kind, limits, chunk cuts. */
static void gb_case(tu_rng_t *r, const char *dir, int idx, uint32_t most)
{
    static const char *const pams[] = {"NGG", "NRG", "TTTV", ""};
    const int pi = (int)tu_rng_below(r, 4), five = pi == 2;
    const int n_rec = (int)tu_rng_range(r, 1, 4);
    char **rec = calloc((size_t)n_rec, sizeof *rec);
    ck_assert(rec);
    tu_buf_t fa = {0};
    for (int t = 0; t < n_rec; t++) {
        rec[t] = gp_record(r, PS_DNA, (size_t)tu_rng_below(r, 30000));
        tu_buf_printf(&fa, ">r%d\n%s\n", t, rec[t]);
    }
    char *path = tu_path(dir, "bulges.fa");
    tu_write_file(path, fa.p ? fa.p : "", fa.n);
    tu_buf_free(&fa);
    const uint32_t n = (uint32_t)tu_rng_range(r, 1, most);
    const size_t L = (size_t)tu_rng_range(r, 12, 22);
    char **g = calloc(n, sizeof *g);
    ck_assert(g);
    for (uint32_t i = 0; i < n; i++) {
        const char *src = rec[tu_rng_below(r, (uint64_t)n_rec)];
        const size_t sl = strlen(src);
        g[i] = gp_probe(r, PS_DNA, (uint32_t)L, sl > L ? src + tu_rng_below(r, sl - L) : NULL);
        for (size_t j = 0; g[i][j]; j++)
            if (!strchr("ACGT", g[i][j])) g[i][j] = "ACGT"[tu_rng_below(r, 4)];
    }
    ps_err_t err;
    ps_probes_t *p = NULL;
    ck_assert_msg(ps_probes_from_strings(&p, n, (const char *const *)g, NULL, PS_ALPHA_DNA, &err) == PS_OK, "%s",
                  err.msg);
    if (pams[pi][0]) ck_assert_msg(ps_guides_add_pam(&p, pams[pi], five, "guides", &err) == PS_OK, "%s", err.msg);
    do {
        p->bulge_dna = (uint8_t)tu_rng_below(r, 3);
        p->bulge_rna = (uint8_t)tu_rng_below(r, 3);
    } while (!p->bulge_dna && !p->bulge_rna);
    const int mm0 = (int)tu_rng_below(r, 4);
    if (tu_rng_chance(r, 40)) {
        ck_assert((p->limit = malloc(n)) != NULL);
        for (uint32_t i = 0; i < n; i++) p->limit[i] = tu_rng_chance(r, 50) ? (uint8_t)tu_rng_below(r, 4) : PS_NO_LIMIT;
    }
    int mm = 0;
    ck_assert(ps_guides_limits(p, mm0, &mm, "guides", &err) == PS_OK);
    const int both = tu_rng_chance(r, 80), all = tu_rng_chance(r, 50);
    ps_bulgeset_t *b = NULL;
    ck_assert_msg(ps_bulgeset_build(&b, p, mm, both, all, &err) == PS_OK, "%s", err.msg);
    char what[256];
    snprintf(what, sizeof what, "bulges case %d (seed %llu; %u guides of %zu + %s %s, bulges %d/%d, -m %d%s, %s strands%s)",
             idx, (unsigned long long)tu_seed(), n, L, pams[pi], five ? "5'" : "3'", p->bulge_dna, p->bulge_rna, mm0,
             p->limit ? " and limits" : "", both ? "both" : "one", all ? ", every position" : "");
    const uint32_t nl = b->leaves.n_leaves;
    uint64_t *want = calloc(nl + 1, sizeof *want), *got = calloc(nl + 1, sizeof *got);
    ck_assert(want && got);
    ps_engine_info_t cin = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t co;
    ps_scan_opts_init(&co, &cin, 2);
    ps_engine_t *ce = NULL, *ge = NULL;
    ck_assert_int_eq(ps_bulge_engine_new(&ce, b, ps_scan_workers(&co), &err), PS_OK);
    ck_assert_msg(ps_scan_file(ce, &b->leaves, path, &co, want, NULL, NULL, NULL, NULL, &err) == PS_OK, "%s",
                  err.msg);
    ps_engine_info_t gin = {.kind = PS_ENGINE_GPU, .max_chunk_syms = PS_GPU_CHUNK_SYMS,
                            .max_chunk_restarts = PS_GPU_CHUNK_RESTARTS};
    ps_scan_opts_t go;
    ps_scan_opts_init(&go, &gin, 2);
    if (tu_rng_chance(r, 60)) go.chunk_syms = (uint64_t)b->leaves.k + tu_rng_below(r, 3000);
    ck_assert_msg(ps_gpu_bulge_engine_new(&ge, b, 0, ps_scan_workers(&go), &err) == PS_OK, "%s: %s", what, err.msg);
    ck_assert_msg(ps_scan_file(ge, &b->leaves, path, &go, got, NULL, NULL, NULL, NULL, &err) == PS_OK, "%s: %s",
                  what, err.msg);
    for (uint32_t l = 0; l < nl; l++)
        ck_assert_msg(got[l] == want[l], "%s: leaf %u: GPU %llu, CPU %llu", what, l, (unsigned long long)got[l],
                      (unsigned long long)want[l]);
    char *rows[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        FILE *mem = open_memstream(&rows[k], &len);
        ck_assert(mem);
        ps_site_writer_t *w = NULL;
        ck_assert(ps_site_writer_new_bulges(&w, mem, b, all ? PS_SITES_CASOFF : PS_SITES_TSV, 0, &err) == PS_OK);
        ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                                 ps_site_writer_free_rows, 0};
        ck_assert_msg(ps_scan_file(k ? ge : ce, &b->leaves, path, k ? &go : &co, NULL, &sink, NULL, NULL, NULL,
                                   &err) == PS_OK, "%s: %s", what, err.msg);
        ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
        ps_site_writer_free(w);
        fclose(mem);
    }
    ck_assert_msg(!strcmp(rows[0], rows[1]), "%s: the rows differ between the CPU and the GPU", what);
    free(rows[0]);
    free(rows[1]);
    ps_engine_destroy(ce);
    ps_engine_destroy(ge);
    free(want);
    free(got);
    ps_bulgeset_free(b);
    ps_probes_free(p);
    for (uint32_t i = 0; i < n; i++) free(g[i]);
    free(g);
    for (int t = 0; t < n_rec; t++) free(rec[t]);
    free(rec);
    free(path);
}

START_TEST(test_gpu_bulges_small)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xb51du);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 6; k++) gb_case(&r, dir, k, 30);
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_gpu_bulges)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xb52du);
    char *dir = tu_mkdtemp();
    for (int k = 0; k < 40; k++) gb_case(&r, dir, k, k % 4 == 3 ? 300 : 50);
    tu_rmtree(dir);
}
END_TEST

/* A case of the suite, run with CK_RUN_CASE=name; 600 s each, since a GPU
 * under compute-sanitizer runs far slower. */
static TCase *gpu_case(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return tc;
}

/* `count` and `locate` of PROSITE patterns by ps_scan's rules, as users
 * run them: windows, variable repeats, anchors and patterns of over 64
 * positions in one set (the GPUs count the windows, list the rest's sites,
 * CPU threads take the long ones; with a window of over 64 positions, the
 * GPUs list every site of theirs), over random proteins, under each rule
 * option: the GPU's table and rows are the CPU's, byte for byte. */
static int run_cmd(int locate, const char *const *args, int n)
{
    char *argv[24];
    for (int i = 0; i < n; i++) argv[i] = (char *)args[i];
    argv[n] = NULL;
    ps_err_t err = {0};
    int rc = locate ? ps_locate_main(n, argv, NULL, &err) : ps_count_main(n, argv, NULL, &err);
    ck_assert_msg(rc == PS_OK, "%s: %s", args[0], err.msg);
    return rc;
}

/* `count` or `locate --format pff` of probes on the CPU or the GPU, four
 * threads, into out: the first n arguments of args. */
static int engine_args(const char **args, int locate, int gpu, const char *probes, const char *out)
{
    const char *head[] = {locate ? "locate" : "count", "-q", "--engine", gpu ? "gpu" : "cpu", "-t", "4",
                          "-p", probes, "-o", out, "--format", "pff"};
    const int n = locate ? 12 : 10;
    for (int i = 0; i < n; i++) args[i] = head[i];
    return n;
}

START_TEST(test_gpu_prosite_commands)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9051734ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa");
    char *pat_file[2] = {tu_path(dir, "p.tsv"), tu_path(dir, "p_long_window.tsv")};
    char *out[2] = {tu_path(dir, "cpu.out"), tu_path(dir, "gpu.out")};
    const char *pats = "PKC\t[ST]-x-[RK]\nGLYC\tN-{P}-[ST]-{P}\nCC\tC-x(2)-C\nPLOOP\tG-x(4)-G-K-[ST]\n"
                       "ZNF\tC-x(2,4)-C-x(3)-[LIVMFYWC]-x(8)-H-x(3,5)-H\nNTERM\t<M-x(0,3)-K\n"
                       "CTERM\t[DE]-x(2,5)-[KR]>\nSTARTOR\t[<M]-K-x(1,2)-[DE]\n"
                       "ANCHLONG\t<x(10,115)-[DENF]-[ST]-[LIVMF]-V\nREP\tW-x(0,2)-[FY]-x(1,6)-W\n"
                       "LONGVAR\tC-x(50,56)-C-x(10)-C\n";
    const char *long_window = "LONGWIN\tC-x(56)-C-x(10)-C\n";
    tu_write_file(pat_file[0], pats, strlen(pats));
    char *both = malloc(strlen(pats) + strlen(long_window) + 1);
    ck_assert_ptr_nonnull(both);
    strcat(strcpy(both, pats), long_window);
    tu_write_file(pat_file[1], both, strlen(both));
    free(both);
    const char *aa = "ACDEFGHIKLMNPQRSTVWY";
    tu_buf_t fa = {0};
    for (int t = 0; t < 3000; t++) {
        tu_buf_printf(&fa, ">r%d\n", t);
        int len = (int)tu_rng_range(&r, 20, 900);
        for (int j = 0; j < len; j++) {
            char ch = aa[tu_rng_below(&r, 20)];
            if (tu_rng_chance(&r, 1)) ch = "XBZ"[tu_rng_below(&r, 3)];
            tu_buf_putc(&fa, ch);
            if (j % 60 == 59) tu_buf_putc(&fa, '\n');
        }
        tu_buf_putc(&fa, '\n');
    }
    tu_write_file(in, fa.p, fa.n);
    tu_buf_free(&fa);
    const char *opts[][3] = {{NULL}, {"--included"}, {"--shortest"}, {"--max-x", "1"}, {"--no-overlaps"}};
    for (size_t o = 0; o < 2 * sizeof opts / sizeof *opts; o++) {
        const char *pat = pat_file[o % 2];
        for (int locate = 0; locate < 2; locate++) {
            for (int g = 0; g < 2; g++) {
                const char *args[24];
                int n = engine_args(args, locate, g, pat, out[g]);
                for (int i = 0; i < 2 && opts[o / 2][i]; i++) args[n++] = opts[o / 2][i];
                args[n++] = in;
                run_cmd(locate, args, n);
            }
            size_t la = 0, lb = 0;
            char *a = tu_read_gz(out[0], &la), *b = tu_read_gz(out[1], &lb);
            ck_assert_msg(la > 100 && la == lb && !memcmp(a, b, la),
                          "seed %llu: %s %s, %s: the GPU's output differs from the CPU's (%zu and %zu bytes)",
                          (unsigned long long)tu_seed(), locate ? "locate --format pff" : "count",
                          opts[o / 2][0] ? opts[o / 2][0] : "(ps_scan's defaults)", pat, la, lb);
            free(a);
            free(b);
        }
    }
    for (int g = 0; g < 2; g++) {
        free(out[g]);
        free(pat_file[g]);
    }
    free(in);
    tu_rmtree(dir);
}
END_TEST

/* PROSITE profiles: the GPU's best score of every (profile, sequence) pair
 * equals ps_profile_best, profiles of 1 to 40 positions and one of 400,
 * sequences of up to 300 residues and nine longer ones (the long
 * sequences' kernel, from PS_GPROF_WAVE_FROM); on one device, or with the profiles split between devices 0 and 1 as
 * profscan.c splits them (split 1). And the GPU's search of every pair, at
 * the profile's cut-off, at its best score or at a random one under it
 * (sequences of repeated consensus: several matches, locks and restarts),
 * equals ps_profile_matches' matches: residues, scores, order. */
static void profiles_case(int split)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9e0f11eull);
    enum { NP = 24, NS = 500, MAXN = PS_GPROF_WAVE_FROM + 600 };
    static ps_profile_t prs[NP];
    char *text = malloc(1 << 20);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < NP; i++) {
        tu_random_profile_read(&r, text, 1 << 20, i == 0 ? 400 : 40, i % 2, &prs[i]);
    }
    uint64_t *off = malloc(sizeof *off * NS);
    uint32_t *len = malloc(sizeof *len * NS);
    uint8_t *letters = malloc(NS * 320 + 8 * MAXN);
    char *seq = malloc(NS * 320 + 8 * MAXN);
    int32_t *best = malloc(sizeof *best * NP * NS);
    uint64_t at = 0;
    for (int s = 0; s < NS; s++) {
        off[s] = at;
        /* Nine long ones, for the long sequences' kernel (PS_GPROF_WAVE_FROM). */
        len[s] = s == 7 ? 0 : s % 61 == 3 ? (uint32_t)tu_rng_range(&r, PS_GPROF_WAVE_FROM, MAXN)
                                          : (uint32_t)tu_rng_range(&r, 1, 300);
        const ps_profile_t *pr = &prs[tu_rng_below(&r, NP)];
        for (uint32_t i = 0; i < len[s]; i++) {
            seq[at + i] = tu_rng_chance(&r, 60) ? pr->consensus[i % pr->len] : (char)('A' + tu_rng_below(&r, 26));
            letters[at + i] = (uint8_t)(seq[at + i] - 'A');
        }
        at += len[s];
    }
    ps_gprof_t *g, *g2 = NULL;
    ps_err_t err = {0};
    const int half = split ? NP / 2 : NP;
    ck_assert_msg(ps_gprof_new(&g, prs, (uint32_t)half, 0, &err) == 0, "%s", err.msg);
    ck_assert_msg(ps_gprof_best(g, letters, at, off, len, NS, best, &err) == 0, "%s", err.msg);
    if (split) {
        ck_assert_msg(ps_gprof_new(&g2, prs + half, NP - half, 1, &err) == 0, "%s", err.msg);
        ck_assert_msg(ps_gprof_best(g2, letters, at, off, len, NS, best + (size_t)half * NS, &err) == 0, "%s",
                      err.msg);
    }
    ps_prf_work_t w = {0};
    static uint8_t idx[MAXN];
    for (int p = 0; p < NP; p++)
        for (int s = 0; s < NS; s++) {
            ps_profile_index(&prs[p], letters + off[s], len[s], idx);
            const int32_t want = len[s] ? ps_profile_best(&prs[p], idx, len[s], &w) : PS_PRF_NLOW;
            ck_assert_msg(best[(size_t)p * NS + s] == want, "profile %d (length %u), sequence %d (length %u), seed %llu: GPU %d, CPU %d",
                          p, prs[p].len, s, len[s], (unsigned long long)tu_seed(), best[(size_t)p * NS + s], want);
        }
    /* The search: every pair but the empty sequence, each GPU its own
     * profiles (numbered from 0 there). */
    const uint32_t np = (uint32_t)NP * (NS - 1);
    ps_gprof_pair_t *pairs = malloc(sizeof *pairs * np);
    int32_t *nm = malloc(sizeof *nm * np);
    ps_prf_match_t *gm = malloc(sizeof *gm * np * PS_GPROF_MATCHES), *m = NULL;
    ck_assert(pairs && nm && gm);
    uint32_t k = 0, several = 0, over = 0;
    for (int p = 0; p < NP; p++)
        for (int s = 0; s < NS; s++) {
            if (!len[s]) continue;
            const int32_t b = best[(size_t)p * NS + s], how = (int32_t)tu_rng_below(&r, 3);
            const int32_t cut = how == 0 ? prs[p].cut : how == 1 ? b : b - (int32_t)tu_rng_below(&r, 120);
            pairs[k++] = (ps_gprof_pair_t){off[s], len[s], (uint32_t)(p < half ? p : p - half), cut};
        }
    ck_assert_msg(ps_gprof_matches(g, letters, at, pairs, (uint32_t)half * (NS - 1), nm, gm, &err) == 0, "%s", err.msg);
    if (split) {
        const size_t h = (size_t)half * (NS - 1);
        ck_assert_msg(ps_gprof_matches(g2, letters, at, pairs + h, np - (uint32_t)h, nm + h, gm + h * PS_GPROF_MATCHES,
                                       &err) == 0, "%s", err.msg);
    }
    size_t cap = 0;
    k = 0;
    for (int p = 0; p < NP; p++)
        for (int s = 0; s < NS; s++) {
            if (!len[s]) continue;
            const uint32_t q = k++;
            ps_profile_index(&prs[p], letters + off[s], len[s], idx);
            const int want = ps_profile_matches(&prs[p], idx, len[s], pairs[q].cut, &w, &m, &cap);
            ck_assert_int_ge(want, 0);
            if (want > PS_GPROF_MATCHES) {
                ck_assert_msg(nm[q] == -1, "profile %d, sequence %d, seed %llu: %d matches, GPU says %d", p, s,
                              (unsigned long long)tu_seed(), want, nm[q]);
                over++;
                continue;
            }
            ck_assert_msg(nm[q] == want, "profile %d (length %u), sequence %d (length %u), cut %d, seed %llu: GPU %d matches, CPU %d",
                          p, prs[p].len, s, len[s], pairs[q].cut, (unsigned long long)tu_seed(), nm[q], want);
            several += want > 1;
            for (int i = 0; i < want; i++) {
                const ps_prf_match_t *x = &gm[(size_t)q * PS_GPROF_MATCHES + (size_t)i];
                ck_assert_msg(x->from == m[i].from && x->to == m[i].to && x->score == m[i].score,
                              "profile %d, sequence %d, cut %d, seed %llu, match %d: GPU %u-%u %d, CPU %u-%u %d", p, s,
                              pairs[q].cut, (unsigned long long)tu_seed(), i, x->from, x->to, x->score, m[i].from,
                              m[i].to, m[i].score);
            }
        }
    ck_assert_msg(several > 0, "seed %llu: no pair had several matches", (unsigned long long)tu_seed());
    (void)over;
    free(pairs);
    free(nm);
    free(gm);
    free(m);
    ps_gprof_free(g);
    ps_gprof_free(g2);
    ps_prf_work_free(&w);
    for (int i = 0; i < NP; i++) ps_profile_free(&prs[i]);
    free(text);
    free(off);
    free(len);
    free(letters);
    free(seq);
    free(best);
}

START_TEST(test_gpu_profiles) { profiles_case(0); }
END_TEST

/* PROSITE profiles as users run them: `locate --format pff` and `count`
 * over random proteins (many built from the profiles' own consensus,
 * repeated, so that pairs have several matches, and some more than the
 * GPU keeps), random profiles of 12 to 40 positions and one of up to 150
 * (random profiles score random residues above 0 on average: their
 * matches are many, and the proteins few and short): the
 * GPU's rows and table (best scores and most of the search on the GPU,
 * the costliest pairs and the profile ranges on CPU threads) are the
 * CPU's, byte for byte. */
START_TEST(test_gpu_profile_commands)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5ea2c4ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *dat = tu_path(dir, "p.dat");
    char *out[2] = {tu_path(dir, "cpu.out"), tu_path(dir, "gpu.out")};
    enum { NP = 30 };
    char *text = malloc(1 << 20);
    char *cons[NP];
    ck_assert_ptr_nonnull(text);
    tu_buf_t pf = {0};
    for (int i = 0; i < NP; i++) {
        /* 12 positions at least: shorter ones match nearly everywhere */
        size_t len;
        ps_profile_t pr;
        do {
            len = tu_random_profile_read(&r, text, 1 << 20, i == 0 ? 150 : 40, i % 2, &pr);
            if (pr.len < 12) ps_profile_free(&pr);
        } while (pr.len < 12);
        cons[i] = strdup(pr.consensus);
        ck_assert_ptr_nonnull(cons[i]);
        /* A cut-off of half the consensus' own score (20 at least), as
         * real profiles' are set (random ones' would match nearly
         * everywhere). */
        uint8_t *lt = malloc(pr.len), *ix = malloc(pr.len);
        ck_assert(lt && ix);
        for (uint32_t k = 0; k < pr.len; k++) lt[k] = (uint8_t)(pr.consensus[k] - 'A');
        ps_profile_index(&pr, lt, pr.len, ix);
        ps_prf_work_t w = {0};
        const int32_t self = ps_profile_best(&pr, ix, pr.len, &w);
        ps_prf_work_free(&w);
        free(lt);
        free(ix);
        ps_profile_free(&pr);
        /* its own name, accession and cut-off */
        const char *rest = strchr(text, '\n'), *cut = strstr(text, "/CUT_OFF: LEVEL=0; SCORE=");
        ck_assert(rest && cut);
        const char *after = strchr(cut, ';') + 1;
        after = strchr(after, ';');
        tu_buf_printf(&pf, "ID   RND%d; MATRIX.\nAC   PS9%04d;", i, i);
        tu_buf_put(&pf, rest, (size_t)(cut - rest));
        tu_buf_printf(&pf, "/CUT_OFF: LEVEL=0; SCORE=%d", self / 2 > 20 ? self / 2 : 20);
        tu_buf_put(&pf, after, len - (size_t)(after - text));
    }
    tu_write_file(dat, pf.p, pf.n);
    tu_buf_free(&pf);
    const char *aa = "ACDEFGHIKLMNPQRSTVWY";
    tu_buf_t fa = {0};
    for (int t = 0; t < 300; t++) {
        tu_buf_printf(&fa, ">r%d\n", t);
        const int len = (int)tu_rng_range(&r, 20, 400);
        const char *c = cons[tu_rng_below(&r, NP)];
        const size_t cl = strlen(c);
        const int from_profile = tu_rng_chance(&r, 60);
        for (int j = 0; j < len; j++) {
            char ch = from_profile && tu_rng_chance(&r, 85) ? c[(size_t)j % cl] : aa[tu_rng_below(&r, 20)];
            tu_buf_putc(&fa, ch);
            if (j % 60 == 59) tu_buf_putc(&fa, '\n');
        }
        tu_buf_putc(&fa, '\n');
    }
    tu_write_file(in, fa.p, fa.n);
    tu_buf_free(&fa);
    for (int locate = 0; locate < 2; locate++) {
        for (int g = 0; g < 2; g++) {
            const char *args[16];
            int n = engine_args(args, locate, g, dat, out[g]);
            args[n++] = in;
            run_cmd(locate, args, n);
        }
        size_t la = 0, lb = 0;
        char *a = tu_read_gz(out[0], &la), *b = tu_read_gz(out[1], &lb);
        ck_assert_msg(la > 1000 && la == lb && !memcmp(a, b, la),
                      "seed %llu: %s: the GPU's output differs from the CPU's (%zu and %zu bytes)",
                      (unsigned long long)tu_seed(), locate ? "locate --format pff" : "count", la, lb);
        free(a);
        free(b);
    }
    for (int i = 0; i < NP; i++) free(cons[i]);
    for (int g = 0; g < 2; g++) free(out[g]);
    free(text);
    free(in);
    free(dat);
    tu_rmtree(dir);
}
END_TEST

/* A profile whose search accepts the same match again and again
 * (tests/fuzz/endless.dat): on the GPU too the run ends, each pair's
 * matches stopping at PS_PRF_MAX_MATCHES (the GPU keeps fewer and hands
 * the pair to CPU threads), with the CPU engine's rows byte for byte. */
START_TEST(test_gpu_profile_endless)
{
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa");
    char *out[2] = {tu_path(dir, "cpu.out"), tu_path(dir, "gpu.out")};
    const char *fa = ">g\nG\n>h\nAG\n>i\nGAAAG\n>j\nMKVLAAGIVGG\n";
    tu_write_file(in, fa, strlen(fa));
    for (int g = 0; g < 2; g++) {
        const char *args[16];
        int n = engine_args(args, 1, g, TU_SRCDIR "/tests/fuzz/endless.dat", out[g]);
        args[n++] = in;
        run_cmd(1, args, n);
    }
    size_t la = 0, lb = 0;
    char *a = tu_read_gz(out[0], &la), *b = tu_read_gz(out[1], &lb);
    size_t rows = 0;
    for (size_t i = 0; i < la; i++) rows += a[i] == '\n';
    ck_assert_msg(rows >= 3 * PS_PRF_MAX_MATCHES && la == lb && !memcmp(a, b, la),
                  "the GPU's rows differ from the CPU's (%zu and %zu bytes, %zu rows)", la, lb, rows);
    free(a);
    free(b);
    for (int g = 0; g < 2; g++) free(out[g]);
    free(in);
    tu_rmtree(dir);
}
END_TEST

Suite *suite_gpu(int *n_checks)
{
    Suite *s = suite_create("gpu");
    /* "small" is quick enough to run under compute-sanitizer. */
    TCase *small = gpu_case(s, "small");
    TU_ADD_TEST(small, test_gpu_presence, n_checks);
    TU_ADD_TEST(small, test_gpu_tiny, n_checks);
    TU_ADD_TEST(small, test_gpu_bad_kernel, n_checks);
    TCase *tc = gpu_case(s, "large");
    TU_ADD_TEST(tc, test_gpu_dna_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_kmer_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_protein_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_large_sets, n_checks);
    TU_ADD_TEST(tc, test_gpu_repeats, n_checks);
    /* The k-mer set engine: "kmer_set_small" for compute-sanitizer. */
    TU_ADD_TEST(gpu_case(s, "kmer_set_small"), test_gpu_kset_small, n_checks);
    TU_ADD_TEST(gpu_case(s, "kmer_set"), test_gpu_kset_large, n_checks);
    /* The pattern engine: "pattern_small" is quick enough for
     * compute-sanitizer, "pattern" is the wide random comparison; the
     * same for general patterns below. */
    TCase *ps = gpu_case(s, "pattern_small");
    TU_ADD_TEST(ps, test_gpu_pattern_refused, n_checks);
    TU_ADD_TEST(ps, test_gpu_pattern_small, n_checks);
    TCase *pl = gpu_case(s, "pattern");
    TU_ADD_TEST(pl, test_gpu_pattern_files, n_checks);
    TU_ADD_TEST(pl, test_gpu_pattern_chunks, n_checks);
    /* General patterns: "pattern_general_small" for compute-sanitizer. */
    TU_ADD_TEST(gpu_case(s, "pattern_general_small"), test_gpu_pattern_general_small, n_checks);
    TU_ADD_TEST(gpu_case(s, "pattern_general"), test_gpu_pattern_general, n_checks);
    TU_ADD_TEST(gpu_case(s, "prosite_commands"), test_gpu_prosite_commands, n_checks);
    /* Guides (PAM, limits): "guides_small" for compute-sanitizer. */
    TU_ADD_TEST(gpu_case(s, "guides_small"), test_gpu_guides_small, n_checks);
    TU_ADD_TEST(gpu_case(s, "guides"), test_gpu_guides, n_checks);
    /* Bulges: "bulges_small" for compute-sanitizer. */
    TU_ADD_TEST(gpu_case(s, "bulges_small"), test_gpu_bulges_small, n_checks);
    TU_ADD_TEST(gpu_case(s, "bulges"), test_gpu_bulges, n_checks);
    TU_ADD_TEST(gpu_case(s, "profiles"), test_gpu_profiles, n_checks);
    TU_ADD_TEST(gpu_case(s, "profile_commands"), test_gpu_profile_commands, n_checks);
    TU_ADD_TEST(gpu_case(s, "profile_endless"), test_gpu_profile_endless, n_checks);
    return s;
}

/* ---- two GPUs (engine_gpus.h): suite gpu2, where two are usable -------- */

static const ps_gpus_t gpus01 = {.n = 2, .id = {0, 1}};

typedef struct {
    ps_engine_t *e;
    ps_chunk_t *const *chunks;
    int n_chunks, worker, workers, rc;
    ps_err_t err;
} scan_job_t;

static void *scan_thread(void *arg)
{
    scan_job_t *j = arg;
    j->rc = PS_OK;
    for (int i = j->worker; i < j->n_chunks && j->rc == PS_OK; i += j->workers)
        j->rc = j->e->scan(j->e, j->worker, j->chunks[i], &j->err);
    return NULL;
}

/* Every chunk scanned once, by `workers` threads at once, then collected. */
static void scan_at_once(ps_engine_t *e, ps_chunk_t *const *chunks, int n_chunks, int workers, uint64_t *got,
                         const char *what)
{
    scan_job_t j[8];
    pthread_t th[8];
    ck_assert_int_le(workers, 8);
    for (int w = 0; w < workers; w++) {
        j[w] = (scan_job_t){.e = e, .chunks = chunks, .n_chunks = n_chunks, .worker = w, .workers = workers};
        ck_assert_int_eq(pthread_create(&th[w], NULL, scan_thread, &j[w]), 0);
    }
    for (int w = 0; w < workers; w++) pthread_join(th[w], NULL);
    for (int w = 0; w < workers; w++) ck_assert_msg(j[w].rc == PS_OK, "%s: worker %d: %s", what, w, j[w].err.msg);
    ps_err_t err;
    ck_assert_msg(e->collect(e, got, &err) == PS_OK, "%s: %s", what, err.msg);
}

/* The engine ran on both devices, each with some chunks. */
static void both_devices(const ps_engine_t *e, const char *what)
{
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    char device[512];
    ps_engine_describe(&in, in.workers, device, sizeof device);
    ck_assert_msg(in.n_gpus == 2 && in.gpu[0].id == 0 && in.gpu[1].id == 1, "%s: %s", what, device);
    ck_assert_msg(in.gpu[0].chunks > 0 && in.gpu[1].chunks > 0, "%s: chunks %llu and %llu (%s)", what,
                  (unsigned long long)in.gpu[0].chunks, (unsigned long long)in.gpu[1].chunks, device);
    ck_assert_msg(strstr(device, "GPUs 0,1") != NULL, "%s: %s", what, device);
}

/* Exact probes (the automaton's kernels and the k-mer set): counts on GPUs
 * 0 and 1 together equal the CPU's, chunks handed out by 4 threads at once;
 * the default engine over both GPUs too. */
START_TEST(test_gpu2_exact)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x67707532ull);
    enum { NC = 16, W = 4 };
    ps_chunk_t ch[NC];
    ps_chunk_t *cp[NC];
    for (int i = 0; i < NC; i++) {
        make_chunk(&ch[i], &r, PS_DNA, tu_rng_range(&r, 1, 400000), (unsigned)tu_rng_below(&r, 3), 0);
        cp[i] = &ch[i];
    }
    for (int kset = 0; kset < 2; kset++) {
        const int k = kset ? 21 : (int)tu_rng_range(&r, 4, 12);
        ps_probes_t *p = make_probes(&r, PS_DNA, k, (uint32_t)tu_rng_range(&r, 1, 3000), &ch[0]);
        ps_err_t err;
        ps_automaton_t *a = NULL;
        ps_kmerset_t *ks = NULL;
        ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
        if (kset) ck_assert_msg(ps_kmerset_build(&ks, p, 1, 2, &err) == PS_OK, "%s", err.msg);
        const uint32_t nl = kset ? ks->leaves.n_leaves : a->n_leaves;
        uint64_t *want = calloc(nl, sizeof *want), *got = calloc(nl, sizeof *got);
        ck_assert(want && got);
        ps_engine_t *ce = NULL;
        ck_assert_int_eq(kset ? ps_kmer_engine_new(&ce, ks, 1, PS_KMER_LOCAL_COUNTS_MAX, &err)
                              : ps_cpu_engine_new(&ce, a, 1, &err),
                         PS_OK);
        for (int i = 0; i < NC; i++) ck_assert_int_eq(ce->scan(ce, 0, &ch[i], &err), PS_OK);
        ck_assert_int_eq(ce->collect(ce, want, &err), PS_OK);
        ps_engine_destroy(ce);
        char what[160];
        snprintf(what, sizeof what, "two GPUs, %s, k %d (seed %llu)", kset ? "k-mer set" : "automaton", k,
                 (unsigned long long)tu_seed());
        ps_gpu_exact_t x = {.a = kset ? NULL : a, .ks = ks, .kernel = NULL, .workers = W};
        ps_engine_t *e = NULL;
        ck_assert_msg(ps_gpus_engine_new(&e, &gpus01, ps_gpu_exact_make, &x, &err) == PS_OK, "%s: %s", what, err.msg);
        scan_at_once(e, cp, NC, W, got, what);
        for (uint32_t l = 0; l < nl; l++)
            ck_assert_msg(got[l] == want[l], "%s: leaf %u: GPUs %llu, CPU %llu", what, l, (unsigned long long)got[l],
                          (unsigned long long)want[l]);
        both_devices(e, what);
        ps_engine_destroy(e);
        /* The default engine (CPU threads while the GPUs start). */
        ck_assert_int_eq(kset ? ps_mixed_kmer_engine_new(&e, ks, &gpus01, -1, W, &err)
                              : ps_mixed_engine_new(&e, a, &gpus01, -1, NULL, W, &err),
                         PS_OK);
        for (int pass = 0; pass < 2; pass++) {
            memset(got, 0, nl * sizeof *got);
            scan_at_once(e, cp, NC, W, got, what);
            for (uint32_t l = 0; l < nl; l++)
                ck_assert_msg(got[l] == want[l], "%s, default engine pass %d: leaf %u: %llu, CPU %llu", what, pass, l,
                              (unsigned long long)got[l], (unsigned long long)want[l]);
        }
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ck_assert_msg(in.gpu_started && in.n_gpus == 2, "%s, default engine: %d GPUs started (%s)", what, in.n_gpus,
                      in.gpu_error);
        ps_engine_destroy(e);
        free(want);
        free(got);
        ps_kmerset_free(ks);
        ps_automaton_free(a);
        ps_probes_free(p);
    }
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
}
END_TEST

typedef struct {
    const ps_patset_t *ps;
    int workers;
} gpu2_pat_t;

static int gpu2_make_patterns(void *ctx, int device, ps_engine_t **out, ps_err_t *err)
{
    const gpu2_pat_t *m = ctx;
    return ps_gpu_pattern_engine_new(out, m->ps, device, m->workers, err);
}

/* Patterns with mismatches (windows and general ones, DNA and protein):
 * counts and sites on GPUs 0 and 1 equal the CPU pattern engine's. */
START_TEST(test_gpu2_patterns)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x67707533ull);
    enum { NC = 12, W = 4 };
    for (int idx = 0; idx < 6; idx++) {
        const ps_alpha_t al = idx % 2 ? PS_PROTEIN : PS_DNA;
        const int general = idx >= 3;
        ps_chunk_t ch[NC];
        ps_chunk_t *cp[NC];
        for (int i = 0; i < NC; i++) {
            make_chunk(&ch[i], &r, al, tu_rng_range(&r, 1, 200000), (unsigned)tu_rng_below(&r, 3), 0);
            cp[i] = &ch[i];
        }
        const uint32_t n = (uint32_t)tu_rng_range(&r, 1, 200);
        char **probes = calloc(n, sizeof *probes);
        ck_assert_ptr_nonnull(probes);
        char text[81];
        for (uint32_t i = 0; i < n; i++) {
            const ps_chunk_t *c = &ch[tu_rng_below(&r, NC)];
            const uint32_t len = (uint32_t)tu_rng_range(&r, 4, 40);
            /* Cut from the chunk (from its start where it is short). */
            const uint64_t at = c->n > 80 ? tu_rng_below(&r, c->n - 80) : 0;
            uint32_t got = 0;
            for (; got < (general ? 80u : len) && at + got < c->n; got++)
                text[got] = ps_alpha_letter(al, (int)ps_chunk_sym(c, at + got));
            text[got] = '\0';
            probes[i] = general ? gp_general(&r, al, text) : gp_probe(&r, al, len, got == len ? text : NULL);
        }
        const int both = al == PS_DNA && tu_rng_chance(&r, 50), mm = (int)tu_rng_below(&r, 3);
        char what[200];
        snprintf(what, sizeof what, "two GPUs, %s %s patterns case %d (seed %llu; %u probes, -m %d)",
                 ps_alpha_name(al), general ? "general" : "window", idx, (unsigned long long)tu_seed(), n, mm);
        ps_probes_t *p = NULL;
        ps_patset_t *ps = gp_patset(&p, n, probes, al, both, mm, what);
        for (int i = 0; i < NC && general; i++) {
            for (uint32_t j = 0; j < ch[i].n_restart; j++) ch[i].edge[j] = (uint8_t)tu_rng_below(&r, 4);
            ch[i].head_edge = (uint8_t)tu_rng_below(&r, 2);
            ch[i].tail_edge = (uint8_t)(tu_rng_below(&r, 4) * 2);
        }
        if (!gp_refused_fwd(ps, what)) {
            const uint32_t nl = ps->leaves.n_leaves;
            uint64_t *want = calloc(nl + 1, sizeof *want), *got = calloc(nl + 1, sizeof *got);
            ck_assert(want && got);
            ps_err_t err;
            ps_engine_t *ce = NULL, *ge = NULL;
            ck_assert_int_eq(ps_pattern_engine_new(&ce, ps, 1, &err), PS_OK);
            for (int i = 0; i < NC; i++) ck_assert_int_eq(ce->scan(ce, 0, &ch[i], &err), PS_OK);
            ck_assert_int_eq(ce->collect(ce, want, &err), PS_OK);
            gpu2_pat_t m = {.ps = ps, .workers = W};
            ck_assert_msg(ps_gpus_engine_new(&ge, &gpus01, gpu2_make_patterns, &m, &err) == PS_OK, "%s: %s", what,
                          err.msg);
            scan_at_once(ge, cp, NC, W, got, what);
            gp_compare(ge, ps, got, want, what);
            for (int i = 0; i < NC; i++) gp_compare_sites(ce, ge, i % W, &ch[i], what);
            both_devices(ge, what);
            ps_engine_destroy(ce);
            ps_engine_destroy(ge);
            free(want);
            free(got);
        }
        ps_patset_free(ps);
        ps_probes_free(p);
        for (uint32_t i = 0; i < n; i++) free(probes[i]);
        free(probes);
        for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
    }
}
END_TEST

/* Profiles split between GPUs 0 and 1 score as on one. */
START_TEST(test_gpu2_profiles) { profiles_case(1); }
END_TEST

Suite *suite_gpu2(int *n_checks)
{
    Suite *s = suite_create("gpu2");
    TU_ADD_TEST(gpu_case(s, "gpu2_exact"), test_gpu2_exact, n_checks);
    TU_ADD_TEST(gpu_case(s, "gpu2_patterns"), test_gpu2_patterns, n_checks);
    TU_ADD_TEST(gpu_case(s, "gpu2_profiles"), test_gpu2_profiles, n_checks);
    return s;
}
