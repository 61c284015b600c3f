/* test_mixed.c - the default engine where a GPU is usable (engine_mixed.h):
 * counts equal the CPU engine's whichever engine scans a chunk, and on a
 * machine without a GPU its start fails cleanly and the CPU does all; and
 * an engine started while the input is read (engine_later.h), with a start
 * the test holds back, lets fail or lets fall back to the CPU. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_later.h"
#include "engine_mixed.h"
#include "pack.h"
#include "probes.h"
#include "scan.h"
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

/* What the test's start function makes: a CPU engine over the automaton,
 * once the test lets it go on (go), as the GPU (how 0), as the CPU after
 * a GPU that did not start (1), or nothing: a failed start (2). */
typedef struct {
    const ps_automaton_t *a;
    int how, workers;
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int go, freed;
} later_ctx_t;

static int later_start(void *ctx, ps_engine_t **out, int *on_cpu, char *why, size_t why_len, ps_err_t *err)
{
    later_ctx_t *x = ctx;
    pthread_mutex_lock(&x->lock);
    while (!x->go) pthread_cond_wait(&x->cv, &x->lock);
    pthread_mutex_unlock(&x->lock);
    if (x->how == 2) return ps_fail(err, PS_E_GPU, "GPU 0: test start failed");
    if (x->how == 1) {
        *on_cpu = 1;
        snprintf(why, why_len, "test: no GPU");
    }
    return ps_cpu_engine_new(out, x->a, x->workers, err);
}

static void later_free(void *ctx) { ((later_ctx_t *)ctx)->freed++; }

static void *later_scan_thread(void *arg)
{
    void **v = arg;
    ps_engine_t *e = v[0];
    ps_err_t err;
    *(int *)v[3] = e->scan(e, *(int *)v[2], v[1], &err);
    return NULL;
}

START_TEST(test_later_engine)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6c61746572ull);
    const char *seqs[] = {"ACGTAC", "GTACGT", "TTTTTT", "GAATTC", "CCCGGG"};
    ps_probes_t *p = NULL;
    ps_automaton_t *a = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_probes_from_strings(&p, 5, seqs, NULL, PS_ALPHA_DNA, &err), PS_OK);
    ck_assert_int_eq(ps_automaton_build(&a, p, 1, &err), PS_OK);
    enum { NC = 5, W = 3 };
    ps_chunk_t ch[NC];
    uint64_t *want = calloc(a->n_leaves, sizeof *want), *got = calloc(a->n_leaves, sizeof *got);
    ck_assert(want && got);
    for (int i = 0; i < NC; i++) {
        uint64_t n = tu_rng_range(&r, 1, 4000);
        ck_assert_int_eq(ps_chunk_init(&ch[i], PS_DNA, n + 1, (uint32_t)n + 1, NULL, &err), PS_OK);
        for (uint64_t j = 0; j < n; j++) {
            if (tu_rng_chance(&r, 2)) ck_assert_int_eq(ps_chunk_restart(&ch[i]), 0);
            ps_chunk_push(&ch[i], (uint32_t)tu_rng_below(&r, 4));
        }
        ps_cpu_scan_chunk(a, &ch[i], want);
    }
    /* The sites of a CPU engine alone, for scan_sites. */
    ps_engine_t *alone = NULL;
    ck_assert_int_eq(ps_cpu_engine_new(&alone, a, W, &err), PS_OK);
    ps_sites_t want_sites[NC], got_sites = {0};
    for (int i = 0; i < NC; i++) {
        memset(&want_sites[i], 0, sizeof want_sites[i]);
        ck_assert_int_eq(alone->scan_sites(alone, 0, &ch[i], &want_sites[i], &err), PS_OK);
    }
    ps_engine_destroy(alone);
    const ps_engine_info_t before = {.workers = W, .gpu_id = 1, .max_chunk_syms = 12345, .max_chunk_restarts = 678};
    for (int how = 0; how < 3; how++) {
        later_ctx_t x = {.a = a, .how = how, .workers = W};
        ck_assert_int_eq(pthread_mutex_init(&x.lock, NULL), 0);
        ck_assert_int_eq(pthread_cond_init(&x.cv, NULL), 0);
        ps_engine_t *e = NULL;
        ck_assert_int_eq(ps_later_engine_new(&e, later_start, &x, later_free, &before, &err), PS_OK);
        ck_assert(e->scan_sites != NULL && e->scan_records == NULL && e->chunk_alloc.alloc == NULL);
        /* Before the start ends: the caller's limits, the kind AUTO, waiting. */
        ps_engine_info_t in;
        char device[512];
        ps_engine_info(e, &in);
        ps_engine_describe(&in, W, device, sizeof device);
        ck_assert_int_eq(in.kind, PS_ENGINE_AUTO);
        ck_assert(in.waits && !in.gpu_started && in.max_chunk_syms == 12345 && in.max_chunk_restarts == 678);
        ck_assert_str_eq(ps_engine_ran(&in), "gpu");
        ck_assert_msg(strstr(device, "GPU 1, starting while the input is read") != NULL, "%s", device);
        /* Chunks sized within the caller's limits, the ring twice as deep. */
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, W);
        ck_assert_uint_eq(so.chunk_syms, 12345);
        ck_assert_uint_eq(so.chunk_restarts, 678);
        ck_assert_int_eq(so.ring, 2 * W + 1);
        ps_scan_opts_init(&so, &in, 40);
        ck_assert_int_eq(so.ring, 65);
        /* A chunk handed over meanwhile waits for the start. */
        int w0 = 0, rc0 = 12345;
        void *arg[4] = {e, &ch[0], &w0, &rc0};
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, later_scan_thread, arg), 0);
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        ck_assert_int_eq(__atomic_load_n(&rc0, __ATOMIC_SEQ_CST), 12345);
        pthread_mutex_lock(&x.lock);
        x.go = 1;
        pthread_cond_broadcast(&x.cv);
        pthread_mutex_unlock(&x.lock);
        pthread_join(th, NULL);
        if (how == 2) {
            ck_assert_int_eq(rc0, PS_E_GPU);
            ck_assert_int_eq(e->scan(e, 1, &ch[1], &err), PS_E_GPU);
            ck_assert_msg(strstr(err.msg, "test start failed") != NULL, "%s", err.msg);
            ck_assert_int_eq(e->collect(e, got, &err), PS_E_GPU);
            ps_engine_info(e, &in);
            ck_assert_msg(strstr(in.gpu_error, "test start failed") != NULL, "%s", in.gpu_error);
            ck_assert_str_eq(ps_engine_ran(&in), "cpu");
        } else {
            ck_assert_int_eq(rc0, PS_OK);
            memset(got, 0, a->n_leaves * sizeof *got);
            for (int i = 1; i < NC; i++) ck_assert_int_eq(e->scan(e, i % W, &ch[i], &err), PS_OK);
            ck_assert_int_eq(e->collect(e, got, &err), PS_OK);
            for (uint32_t l = 0; l < a->n_leaves; l++)
                ck_assert_msg(got[l] == want[l], "start %d, leaf %u: %llu, CPU alone %llu", how, l,
                              (unsigned long long)got[l], (unsigned long long)want[l]);
            for (int i = 0; i < NC; i++) {
                ck_assert_int_eq(e->scan_sites(e, i % W, &ch[i], &got_sites, &err), PS_OK);
                ck_assert_uint_eq(got_sites.n, want_sites[i].n);
                for (uint64_t k = 0; k < got_sites.n; k++)
                    ck_assert(got_sites.pos[k] == want_sites[i].pos[k] && got_sites.leaf[k] == want_sites[i].leaf[k]);
            }
            ps_engine_info(e, &in);
            ps_engine_describe(&in, W, device, sizeof device);
            if (how == 1) {
                ck_assert_int_eq(in.kind, PS_ENGINE_AUTO);
                ck_assert_str_eq(ps_engine_ran(&in), "cpu");
                ck_assert_msg(strstr(device, "did not start: test: no GPU") != NULL, "%s", device);
            } else {
                /* The made engine's own description (here a CPU engine standing for the GPU's). */
                ck_assert_int_eq(in.kind, PS_ENGINE_CPU);
                ck_assert(!in.waits);
            }
        }
        ps_engine_destroy(e);
        ck_assert_int_eq(x.freed, 1);
        pthread_cond_destroy(&x.cv);
        pthread_mutex_destroy(&x.lock);
    }
    for (int i = 0; i < NC; i++) {
        ps_sites_free(&want_sites[i]);
        ps_chunk_free(&ch[i], NULL);
    }
    ps_sites_free(&got_sites);
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
    tcase_add_test(tc, test_later_engine);
    suite_add_tcase(s, tc);
    return s;
}
