#include "engine_mixed.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_cpu.h"
#include "engine_gpu.h"

#define MAX_SLOTS 8

typedef struct {
    const ps_automaton_t *a;
    int device, threads;
    const char *kernel;
    ps_engine_t *cpu;
    ps_engine_t *gpu;          /* published by the start thread once ready */
    int gpu_ready;             /* atomic flag: gpu may be used */
    pthread_t starter;
    int started, joined;
    int start_rc;
    ps_err_t start_err;
    pthread_mutex_t slot[MAX_SLOTS]; /* one host thread per GPU stream at a time */
    int n_slots;
    uint64_t cpu_chunks, gpu_chunks; /* atomic counters, for the report */
} mixed_t;

static void *start_gpu(void *arg)
{
    mixed_t *m = arg;
    ps_engine_t *g = NULL;
    m->start_rc = ps_gpu_engine_new(&g, m->a, m->device, m->kernel, m->threads, &m->start_err);
    if (m->start_rc == PS_OK) {
        m->gpu = g;
        m->n_slots = g->n_workers < MAX_SLOTS ? g->n_workers : MAX_SLOTS;
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

/* Takes a GPU stream: any free one, else waits for this worker's own. */
static int lock_slot(mixed_t *m, int worker)
{
    for (int i = 0; i < m->n_slots; i++) {
        int s = (worker + i) % m->n_slots;
        if (pthread_mutex_trylock(&m->slot[s]) == 0) return s;
    }
    int s = worker % m->n_slots;
    pthread_mutex_lock(&m->slot[s]);
    return s;
}

static int mixed_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    mixed_t *m = e->impl;
    if (__atomic_load_n(&m->gpu_ready, __ATOMIC_ACQUIRE)) {
        int s = lock_slot(m, worker);
        int rc = m->gpu->scan(m->gpu, s, c, err);
        pthread_mutex_unlock(&m->slot[s]);
        __atomic_add_fetch(&m->gpu_chunks, 1, __ATOMIC_RELAXED);
        return rc;
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
    if (m->gpu)
        snprintf(e->device, sizeof e->device, "%.100s; CPU while it started: %llu of %llu chunks", m->gpu->device,
                 (unsigned long long)m->cpu_chunks, (unsigned long long)(m->cpu_chunks + m->gpu_chunks));
    else
        snprintf(e->device, sizeof e->device, "CPU, %d threads (the GPU did not start: %.100s)", m->threads,
                 m->start_err.msg);
    return rc;
}

static void mixed_destroy(ps_engine_t *e)
{
    mixed_t *m = e->impl;
    if (m) {
        join_start(m);
        ps_engine_destroy(m->gpu);
        ps_engine_destroy(m->cpu);
        for (int i = 0; i < MAX_SLOTS; i++) pthread_mutex_destroy(&m->slot[i]);
        free(m);
    }
    free(e);
}

int ps_mixed_engine_new(ps_engine_t **out, const ps_automaton_t *a, int device, const char *kernel, int threads,
                        ps_err_t *err)
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
    for (int i = 0; i < MAX_SLOTS; i++) pthread_mutex_init(&m->slot[i], NULL);
    m->a = a;
    m->device = device;
    m->kernel = kernel;
    m->threads = threads;
    int rc = ps_cpu_engine_new(&m->cpu, a, threads, err);
    if (rc < 0) {
        mixed_destroy(e);
        return rc;
    }
    if (pthread_create(&m->starter, NULL, start_gpu, m)) {
        mixed_destroy(e);
        return ps_fail(err, PS_E_INTERNAL, "cannot start the GPU start-up thread");
    }
    m->started = 1;
    e->name = "gpu";
    snprintf(e->device, sizeof e->device, "GPU %d, starting; CPU, %d threads meanwhile", device, threads);
    e->n_workers = threads;
    /* Chunks are ordinary memory (pinned memory needs the GPU's context, not
     * there yet) and as large as the GPU likes them within the CPU's reach. */
    e->chunk_syms = 1u << 22;
    e->chunk_restarts = 1u << 16;
    e->chunks_per_worker = 1;
    e->scan = mixed_scan;
    e->collect = mixed_collect;
    *out = e;
    return PS_OK;
}
