/* test_gpu.c - every GPU kernel against the CPU oracle, count for count.
 *
 * The runner (check_main.c) adds this suite only where a GPU is usable, and
 * otherwise reports its checks skipped. CUDA is first touched inside the
 * tests, never while the suite is built: Check forks each test, and a CUDA
 * context does not survive a fork. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_mixed.h"
#include "gpu_plan.h"
#include "pack.h"
#include "probes.h"
#include "testutil.h"

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
    ck_assert_int_eq(ps_mixed_engine_new(&e, a, 0, NULL, 3, &err), PS_OK);
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

Suite *suite_gpu(int *n_checks)
{
    Suite *s = suite_create("gpu");
    /* "small" is quick enough to run under compute-sanitizer. */
    TCase *small = tcase_create("small");
    tcase_set_timeout(small, 600);
    TU_ADD_TEST(small, test_gpu_presence, n_checks);
    TU_ADD_TEST(small, test_gpu_tiny, n_checks);
    TU_ADD_TEST(small, test_gpu_bad_kernel, n_checks);
    suite_add_tcase(s, small);
    TCase *tc = tcase_create("large");
    tcase_set_timeout(tc, 600);
    TU_ADD_TEST(tc, test_gpu_dna_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_kmer_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_protein_random, n_checks);
    TU_ADD_TEST(tc, test_gpu_large_sets, n_checks);
    TU_ADD_TEST(tc, test_gpu_repeats, n_checks);
    suite_add_tcase(s, tc);
    return s;
}
