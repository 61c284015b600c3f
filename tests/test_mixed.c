/* test_mixed.c - the default engine where a GPU is usable (engine_mixed.h):
 * counts equal the CPU engine's whichever engine scans a chunk, and on a
 * machine without a GPU its start fails cleanly and the CPU does all. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_mixed.h"
#include "pack.h"
#include "probes.h"
#include "testutil.h"

/* The mixed engine on device 0 alone, as before several GPUs. */
static const ps_gpus_t gpu0 = {.n = 1, .id = {0}};

START_TEST(test_mixed_counts)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6d69786564ull);
    const char *seqs[] = {"ACGTAC", "GTACGT", "TTTTTT", "GAATTC", "ACGTAC"};
    ps_probes_t *p = NULL;
    ps_automaton_t *a = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_probes_from_strings(&p, 5, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
    enum { NC = 6 };
    ps_chunk_t ch[NC];
    uint64_t *want = calloc(a->n_leaves, sizeof *want), *got = calloc(a->n_leaves, sizeof *got);
    ck_assert(want && got);
    for (int i = 0; i < NC; i++) {
        uint64_t n = tu_rng_range(&r, 1, 5000);
        ck_assert_int_eq(ps_chunk_init(&ch[i], PS_DNA, n + 1, (uint32_t)n + 1, NULL, &err), PS_OK);
        for (uint64_t j = 0; j < n; j++) {
            if (tu_rng_chance(&r, 2)) ck_assert_int_eq(ps_chunk_restart(&ch[i]), 0);
            ps_chunk_push(&ch[i], (uint32_t)tu_rng_below(&r, tu_rng_chance(&r, 50) ? 2 : 4));
        }
        ps_cpu_scan_chunk(a, &ch[i], want);
    }
    ps_engine_t *e = NULL;
    ck_assert_int_eq(ps_mixed_engine_new(&e, a, &gpu0, -1, NULL, 3, &err), PS_OK);
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    ck_assert_int_eq(in.workers, 3);
    ck_assert_int_eq(in.kind, PS_ENGINE_AUTO);
    char device[512];
    for (int pass = 0; pass < 2; pass++) {
        memset(got, 0, a->n_leaves * sizeof *got);
        for (int i = 0; i < NC; i++) ck_assert_int_eq(e->scan(e, i % in.workers, &ch[i], &err), PS_OK);
        ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
        ps_engine_info(e, &in);
        ps_engine_describe(&in, in.workers, device, sizeof device);
        for (uint32_t l = 0; l < a->n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "pass %d, leaf %u: %llu, CPU %llu (%s)", pass, l,
                          (unsigned long long)got[l], (unsigned long long)want[l], device);
        ck_assert_uint_eq(in.chunks_cpu + in.chunks_gpu, (uint64_t)NC * (pass + 1));
    }
    char why[256];
    if (!ps_gpu_usable(0, why, sizeof why)) {
        ck_assert_msg(!in.gpu_started && in.gpu_error[0], "no GPU, yet: %s", device);
        ck_assert_uint_eq(in.chunks_gpu, 0);
        ck_assert_str_eq(ps_engine_ran(&in), "cpu");
        ck_assert_msg(strstr(device, "did not start") != NULL, "no GPU, yet: %s", device);
    }
    ps_engine_destroy(e);
    for (int i = 0; i < NC; i++) ps_chunk_free(&ch[i], NULL);
    free(want);
    free(got);
    ps_automaton_free(a);
    ps_probes_free(p);
}
END_TEST

Suite *suite_mixed(void)
{
    Suite *s = suite_create("mixed");
    TCase *tc = tcase_create("mixed");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_mixed_counts);
    suite_add_tcase(s, tc);
    return s;
}
