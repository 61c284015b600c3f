/* test_gpus.c - one engine over several GPUs (engine_gpus.h), tested
 * without a GPU: its devices' engines are CPU engines made by the test's
 * maker, so what is checked is the wrapper itself: chunks spread over the
 * devices by load, counts and sites equal to one engine's, each device's
 * share, a device that fails to start; and --gpu's list and the choice of
 * how many GPUs a run takes. The GPU suite (test_gpu.c) runs it on GPUs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "engine_gpus.h"
#include "engine_split.h"
#include "options.h"
#include "pack.h"
#include "patset.h"
#include "probes.h"
#include "testutil.h"

typedef struct {
    const ps_automaton_t *a;
    int workers;
    int fail_device; /* this device fails to start; -1: none */
    int made;        /* atomic: engines made */
} maker_t;

static int make_cpu(void *ctx, int device, ps_engine_t **out, ps_err_t *err)
{
    maker_t *m = ctx;
    if (device == m->fail_device) return ps_fail(err, PS_E_GPU, "device %d: out of order", device);
    __atomic_add_fetch(&m->made, 1, __ATOMIC_RELAXED);
    return ps_cpu_engine_new(out, m->a, m->workers, err);
}

START_TEST(test_gpus_counts)
{
    tu_rng_t r;
    const uint64_t seed = tu_seed() ^ 0x67707573ull;
    tu_rng_seed(&r, seed);
    const char *seqs[] = {"ACGTAC", "GTACGT", "TTTTTT", "GAATTC", "CGTACG"};
    ps_probes_t *p = NULL;
    ps_automaton_t *a = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_probes_from_strings(&p, 5, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
    enum { NC = 24, WORKERS = 4 };
    ps_chunk_t ch[NC];
    uint64_t *want = calloc(a->n_leaves, sizeof *want), *got = calloc(a->n_leaves, sizeof *got), syms = 0;
    ck_assert(want && got);
    for (int i = 0; i < NC; i++) {
        uint64_t n = tu_rng_range(&r, 1, 4000);
        syms += n;
        ck_assert_int_eq(ps_chunk_init(&ch[i], PS_DNA, n + 1, (uint32_t)n + 1, NULL, &err), PS_OK);
        for (uint64_t j = 0; j < n; j++) {
            if (tu_rng_chance(&r, 2)) ck_assert_int_eq(ps_chunk_restart(&ch[i]), 0);
            ps_chunk_push(&ch[i], (uint32_t)tu_rng_below(&r, tu_rng_chance(&r, 50) ? 2 : 4));
        }
        ps_cpu_scan_chunk(a, &ch[i], want);
    }
    for (int n_dev = 1; n_dev <= 3; n_dev++) {
        ps_gpus_t use = {.n = n_dev};
        for (int d = 0; d < n_dev; d++) use.id[d] = 2 * d + 1; /* ids need not be 0.. */
        maker_t m = {.a = a, .workers = WORKERS, .fail_device = -1};
        ps_engine_t *e = NULL;
        ck_assert_int_eq(ps_gpus_engine_new(&e, &use, make_cpu, &m, &err), PS_OK);
        ck_assert_int_eq(m.made, n_dev);
        for (int pass = 0; pass < 2; pass++) {
            memset(got, 0, a->n_leaves * sizeof *got);
            for (int i = 0; i < NC; i++) ck_assert_int_eq(e->scan(e, i % WORKERS, &ch[i], &err), PS_OK);
            ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
            for (uint32_t l = 0; l < a->n_leaves; l++)
                ck_assert_msg(got[l] == want[l], "seed %llu, %d devices, pass %d, leaf %u: %llu, one engine %llu",
                              (unsigned long long)seed, n_dev, pass, l, (unsigned long long)got[l],
                              (unsigned long long)want[l]);
        }
        ps_engine_info_t in;
        ps_engine_info(e, &in);
        ck_assert_int_eq(in.n_gpus, n_dev);
        uint64_t chunks = 0, symbols = 0;
        for (int d = 0; d < n_dev; d++) {
            ck_assert_int_eq(in.gpu[d].id, 2 * d + 1);
            /* One caller at a time: every device is idle when asked, and
             * the search starts in turn, so each takes its share. */
            ck_assert_uint_eq(in.gpu[d].chunks, 2 * NC / n_dev);
            ck_assert(in.gpu[d].seconds >= 0);
            chunks += in.gpu[d].chunks;
            symbols += in.gpu[d].symbols;
        }
        ck_assert_uint_eq(chunks, 2 * NC);
        ck_assert_uint_eq(symbols, 2 * syms);
        ck_assert_int_eq(in.workers, WORKERS);
        char device[512];
        ps_engine_describe(&in, WORKERS, device, sizeof device);
        ps_engine_destroy(e);
    }
    /* A device that fails: the engine is not made, the error is its. */
    ps_gpus_t use = {.n = 3, .id = {0, 1, 2}};
    maker_t m = {.a = a, .workers = WORKERS, .fail_device = 1};
    ps_engine_t *e = NULL;
    ck_assert_int_eq(ps_gpus_engine_new(&e, &use, make_cpu, &m, &err), PS_E_GPU);
    ck_assert_ptr_null(e);
    ck_assert_msg(strstr(err.msg, "device 1") != NULL, "%s", err.msg);
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
    free(want);
    free(got);
    ps_automaton_free(a);
    ps_probes_free(p);
}
END_TEST

START_TEST(test_gpus_option)
{
    ps_gpus_t g;
    ps_err_t err;
    ck_assert_int_eq(ps_opt_gpu("0", &g, &err), PS_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_int_eq(g.id[0], 0);
    ck_assert_int_eq(ps_opt_gpu("3,1,2", &g, &err), PS_OK);
    ck_assert_int_eq(g.n, 3);
    ck_assert_int_eq(g.id[0], 3);
    ck_assert_int_eq(g.id[2], 2);
    ck_assert_int_eq(ps_opt_gpu("all", &g, &err), PS_OK);
    ck_assert(g.all && g.n == 0);
    const char *bad[] = {"", ",", "0,", ",1", "1,,2", "a", "-1", "0,0", "1.5", "all,0", "1025"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(ps_opt_gpu(bad[i], &g, &err) == PS_E_USAGE && strstr(err.msg, "--gpu"), "'%s' taken", bad[i]);
}
END_TEST

START_TEST(test_gpus_choose)
{
    ps_gpus_t dflt = {0}, all = {.all = 1}, two = {.n = 2, .id = {1, 0}}, far = {.n = 1, .id = {4}}, use;
    char why[128];
    /* Default: one GPU per repay_s of the CPU's estimate, 1 at least, the
     * visible ones at most; every one where the estimate is unknown. */
    const struct {
        int visible;
        double cpu_s;
        int want;
    } cases[] = {{1, 0.5, 1}, {1, 30, 1}, {4, 1.5, 1}, {4, 2.0, 2}, {4, 3.9, 3}, {4, 100, 4}, {4, -1, 4}, {2, 0.1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ck_assert_int_eq(ps_gpus_choose(&dflt, cases[i].visible, cases[i].cpu_s, 1.0, &use, why, sizeof why), 0);
        ck_assert_msg(use.n == cases[i].want, "%d visible, %.1f s: %d GPUs, not %d", cases[i].visible, cases[i].cpu_s,
                      use.n, cases[i].want);
        for (int d = 0; d < use.n; d++) ck_assert_int_eq(use.id[d], d);
    }
    ck_assert_int_eq(ps_gpus_choose(&all, 4, 0.1, 1.0, &use, why, sizeof why), 0);
    ck_assert_int_eq(use.n, 4);
    ck_assert_int_eq(ps_gpus_choose(&two, 2, 0.1, 1.0, &use, why, sizeof why), 0);
    ck_assert(use.n == 2 && use.id[0] == 1 && use.id[1] == 0);
    ck_assert_int_eq(ps_gpus_choose(&far, 2, 10, 1.0, &use, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "GPU 4") != NULL, "%s", why);
    ck_assert_int_eq(ps_gpus_choose(&dflt, 0, 10, 1.0, &use, why, sizeof why), -1);
    char name[64];
    ps_gpus_name(&two, name, sizeof name);
    ck_assert_str_eq(name, "GPUs 1,0");
    ps_gpus_name(&far, name, sizeof name);
    ck_assert_str_eq(name, "GPU 4");
}
END_TEST

/* How many GPUs a pattern set keeps busy (patset.h): protein patterns by
 * their words against the reading thread, DNA windows by the CPU estimate,
 * an unknown size unknown. */
START_TEST(test_gpus_pattern_share)
{
    const char *prot[] = {"C-x(2,4)-C-x(3)-[LIVMFYWC]-x(8)-H-x(3,5)-H", "[ST]-x-[RK]", "N-{P}-[ST]-{P}"};
    const char *dna[] = {"ACGTACGTACGTACGTACGT", "TTGACCATGGCAAGTCCAGA"};
    ps_err_t err;
    ps_probes_t *p = NULL;
    ps_patset_t *ps = NULL;
    ck_assert(ps_probes_from_strings(&p, 3, prot, NULL, PS_ALPHA_PROTEIN, &err) == PS_OK);
    ck_assert(ps_patset_build(&ps, p, 0, 0, &err) == PS_OK);
    const double words = ps->n_words / 500.0;
    ck_assert(ps_patset_gpu_share(ps, 40.0) == words);
    ck_assert(ps_patset_gpu_share(ps, 0.001) == 0.001);
    ck_assert(ps_patset_gpu_share(ps, -1) == -1);
    ps_gpus_t asked = {0}, use;
    char why[200];
    ck_assert_int_eq(ps_gpus_choose(&asked, 4, ps_patset_gpu_share(ps, 40.0), 1.0, &use, why, sizeof why), 0);
    ck_assert_int_eq(use.n, 1); /* 40 CPU-seconds of patterns: still one GPU */
    /* Windows and a variable pattern: in parts where the windows are counted. */
    ck_assert_int_eq(ps_gpu_patterns_split(p, ps, 1), 1);
    ck_assert_int_eq(ps_gpu_patterns_split(p, ps, 0), 0);
    ps_patset_free(ps);
    ps_probes_free(p);
    ck_assert(ps_probes_from_strings(&p, 2, dna, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_patset_build(&ps, p, 1, 3, &err) == PS_OK);
    ck_assert(ps_patset_gpu_share(ps, 40.0) == 40.0);
    ck_assert_int_eq(ps_gpu_patterns_split(p, ps, 1), 0); /* windows only */
    ck_assert_int_eq(ps_gpus_choose(&asked, 4, ps_patset_gpu_share(ps, 2.5), 1.0, &use, why, sizeof why), 0);
    ck_assert_int_eq(use.n, 2);
    ps_patset_free(ps);
    ps_probes_free(p);
}
END_TEST

/* Which CUDA_VISIBLE_DEVICES values hide every GPU (CUDA reads the list up
 * to its first entry it cannot read), and that such a value makes a GPU
 * unlikely whatever the device nodes say. */
START_TEST(test_gpus_hidden)
{
    ck_assert_int_eq(ps_gpus_list_hides_all(NULL), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all("0"), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all("1,0"), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all(" 2"), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all("GPU-8f6e3a2b-0000-0000-0000-000000000000"), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all("MIG-0c1d2e3f-0000-0000-0000-000000000000"), 0);
    ck_assert_int_eq(ps_gpus_list_hides_all(""), 1);
    ck_assert_int_eq(ps_gpus_list_hides_all("-1"), 1);
    ck_assert_int_eq(ps_gpus_list_hides_all("none"), 1);
    ck_assert_int_eq(ps_gpus_list_hides_all("NoDevFiles"), 1);
    const char *was = getenv("CUDA_VISIBLE_DEVICES");
    char *keep = was ? strdup(was) : NULL;
    ck_assert(!was || keep);
    ck_assert_int_eq(setenv("CUDA_VISIBLE_DEVICES", "", 1), 0);
    ck_assert_int_eq(ps_gpus_likely(), 0);
    ck_assert_int_eq(keep ? setenv("CUDA_VISIBLE_DEVICES", keep, 1) : unsetenv("CUDA_VISIBLE_DEVICES"), 0);
    free(keep);
}
END_TEST

Suite *suite_gpus(void)
{
    Suite *s = suite_create("gpus");
    TCase *tc = tcase_create("gpus");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gpus_counts);
    tcase_add_test(tc, test_gpus_option);
    tcase_add_test(tc, test_gpus_choose);
    tcase_add_test(tc, test_gpus_pattern_share);
    tcase_add_test(tc, test_gpus_hidden);
    suite_add_tcase(s, tc);
    return s;
}
