#include "engine_mixed.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_gpus.h"
#include "engine_kmer.h"

typedef struct {
    const ps_automaton_t *a;   /* the automaton, or */
    const ps_kmerset_t *ks;    /* the k-mer set */
    ps_gpus_t asked;           /* --gpu */
    double cpu_s;              /* the CPU's estimate, for how many GPUs */
    int threads;
    const char *kernel;
    ps_engine_t *cpu;
    ps_engine_t *gpu;          /* published by the start thread once ready */
    int gpu_ready;             /* atomic flag: gpu may be used */
    pthread_t starter;
    int started, joined;
    int start_rc;
    ps_err_t start_err;
    uint64_t cpu_chunks, gpu_chunks; /* atomic counters, for info */
} mixed_t;

int ps_gpu_exact_make(void *ctx, int device, ps_engine_t **out, ps_err_t *err)
{
    const ps_gpu_exact_t *x = ctx;
    return x->ks ? ps_gpu_kmer_engine_new(out, x->ks, device, x->workers, err)
                 : ps_gpu_engine_new(out, x->a, device, x->kernel, x->workers, err);
}

static void *start_gpu(void *arg)
{
    mixed_t *m = arg;
    ps_engine_t *g = NULL;
    ps_gpus_t use;
    char why[320];
    if (ps_gpus_pick(&m->asked, m->cpu_s, 1.0, &use, why, sizeof why) < 0) {
        m->start_rc = ps_fail(&m->start_err, PS_E_GPU, "%s", why);
    } else {
        ps_gpu_exact_t x = {.a = m->a, .ks = m->ks, .kernel = m->kernel, .workers = m->threads};
        m->start_rc = ps_gpus_engine_new(&g, &use, ps_gpu_exact_make, &x, &m->start_err);
    }
    if (m->start_rc == PS_OK) {
        m->gpu = g;
        __atomic_store_n(&m->gpu_ready, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void join_start(mixed_t *m)
{
    if (m->started && !m->joined) {
        pthread_join(m->starter, NULL);
        m->joined = 1;
    }
}

static int mixed_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    mixed_t *m = e->impl;
    if (__atomic_load_n(&m->gpu_ready, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&m->gpu_chunks, 1, __ATOMIC_RELAXED);
        return m->gpu->scan(m->gpu, worker, c, err);
    }
    __atomic_add_fetch(&m->cpu_chunks, 1, __ATOMIC_RELAXED);
    return m->cpu->scan(m->cpu, worker, c, err);
}

static int mixed_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    mixed_t *m = e->impl;
    join_start(m);
    int rc = m->cpu->collect(m->cpu, leaf_counts, err);
    if (rc == PS_OK && m->gpu) rc = m->gpu->collect(m->gpu, leaf_counts, err);
    return rc;
}

static void mixed_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const mixed_t *m = e->impl;
    if (__atomic_load_n(&m->gpu_ready, __ATOMIC_ACQUIRE)) {
        ps_engine_info(m->gpu, out);
    } else {
        memset(out, 0, sizeof *out);
        /* The start thread writes start_err before it ends; read it only then. */
        if (m->joined && m->start_rc != PS_OK) snprintf(out->gpu_error, sizeof out->gpu_error, "%.255s", m->start_err.msg);
    }
    out->kind = PS_ENGINE_AUTO;
    out->kmer_set = m->ks != NULL;
    out->workers = m->threads;
    if (!out->n_gpus) out->gpu_id = m->asked.n ? m->asked.id[0] : 0;
    out->chunks_cpu = __atomic_load_n(&m->cpu_chunks, __ATOMIC_RELAXED);
    out->chunks_gpu = __atomic_load_n(&m->gpu_chunks, __ATOMIC_RELAXED);
    /* Chunks may go to either side: the GPU's limits hold. */
    out->max_chunk_syms = PS_GPU_CHUNK_SYMS;
    out->max_chunk_restarts = PS_GPU_CHUNK_RESTARTS;
}

static void mixed_destroy(ps_engine_t *e)
{
    mixed_t *m = e->impl;
    if (m) {
        join_start(m);
        ps_engine_destroy(m->gpu);
        ps_engine_destroy(m->cpu);
        free(m);
    }
    free(e);
}

static int mixed_new(ps_engine_t **out, const ps_automaton_t *a, const ps_kmerset_t *ks, const ps_gpus_t *asked,
                     double cpu_s, const char *kernel, int threads, ps_err_t *err)
{
    *out = NULL;
    if (threads < 1) threads = 1;
    ps_engine_t *e = calloc(1, sizeof *e);
    mixed_t *m = calloc(1, sizeof *m);
    if (!e || !m) {
        free(e);
        free(m);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    e->impl = m;
    e->destroy = mixed_destroy;
    m->a = a;
    m->ks = ks;
    m->asked = *asked;
    m->cpu_s = cpu_s;
    m->kernel = kernel;
    m->threads = threads;
    int rc = ks ? ps_kmer_engine_new(&m->cpu, ks, threads, PS_KMER_LOCAL_COUNTS_MAX, err)
                : ps_cpu_engine_new(&m->cpu, a, threads, err);
    if (rc < 0) {
        mixed_destroy(e);
        return rc;
    }
    if (pthread_create(&m->starter, NULL, start_gpu, m)) {
        mixed_destroy(e);
        return ps_fail(err, PS_E_INTERNAL, "cannot start the GPU start-up thread");
    }
    m->started = 1;
    /* Chunks stay ordinary memory: pinned memory needs the GPU's context,
     * not there yet. */
    e->scan = mixed_scan;
    e->collect = mixed_collect;
    e->info = mixed_info;
    *out = e;
    return PS_OK;
}

int ps_mixed_engine_new(ps_engine_t **out, const ps_automaton_t *a, const ps_gpus_t *asked, double cpu_s,
                        const char *kernel, int threads, ps_err_t *err)
{
    return mixed_new(out, a, NULL, asked, cpu_s, kernel, threads, err);
}

int ps_mixed_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, const ps_gpus_t *asked, double cpu_s,
                             int threads, ps_err_t *err)
{
    return mixed_new(out, NULL, ks, asked, cpu_s, NULL, threads, err);
}
