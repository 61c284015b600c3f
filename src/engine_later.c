#include "engine_later.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ps_later_start_fn start;
    void *ctx;
    void (*ctx_free)(void *);
    ps_engine_info_t before;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t ended_cv;
    int ended;          /* start() has returned (under lock; read atomically by info) */
    int rc;             /* start()'s result, once ended */
    ps_err_t err;       /* its error */
    ps_engine_t *made;  /* the engine it made */
    int on_cpu;         /* the CPU's, the GPU not started */
    char why[256];      /* why not the GPU */
} later_t;

static void *run_start(void *arg)
{
    later_t *l = arg;
    ps_engine_t *made = NULL;
    int on_cpu = 0;
    ps_err_t err = {0, ""};
    char why[sizeof l->why] = "";
    const int rc = l->start(l->ctx, &made, &on_cpu, why, sizeof why, &err);
    pthread_mutex_lock(&l->lock);
    l->rc = rc;
    l->err = err;
    l->made = rc == PS_OK ? made : NULL;
    l->on_cpu = on_cpu;
    memcpy(l->why, why, sizeof why);
    __atomic_store_n(&l->ended, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&l->ended_cv);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* Waits for start() to end: PS_OK with the engine made, or its error. */
static int wait_made(later_t *l, ps_engine_t **made, ps_err_t *err)
{
    if (!__atomic_load_n(&l->ended, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&l->lock);
        while (!l->ended) pthread_cond_wait(&l->ended_cv, &l->lock);
        pthread_mutex_unlock(&l->lock);
    }
    if (l->rc != PS_OK) {
        *err = l->err;
        return l->rc;
    }
    *made = l->made;
    return PS_OK;
}

static int later_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    ps_engine_t *m = NULL;
    int rc = wait_made(e->impl, &m, err);
    return rc < 0 ? rc : m->scan(m, worker, c, err);
}

static int later_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *s, ps_err_t *err)
{
    ps_engine_t *m = NULL;
    int rc = wait_made(e->impl, &m, err);
    if (rc < 0) return rc;
    if (!m->scan_sites) return ps_fail(err, PS_E_INTERNAL, "the engine started cannot place its sites");
    return m->scan_sites(m, worker, c, s, err);
}

static int later_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    ps_engine_t *m = NULL;
    int rc = wait_made(e->impl, &m, err);
    return rc < 0 ? rc : m->collect(m, leaf_counts, err);
}

static void later_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    later_t *l = e->impl;
    if (!__atomic_load_n(&l->ended, __ATOMIC_ACQUIRE) || l->rc != PS_OK) {
        *out = l->before;
        if (__atomic_load_n(&l->ended, __ATOMIC_ACQUIRE))
            snprintf(out->gpu_error, sizeof out->gpu_error, "%.255s", l->err.msg);
        return;
    }
    ps_engine_info(l->made, out);
    if (l->on_cpu) {
        out->kind = PS_ENGINE_AUTO;
        out->gpu_started = 0;
        out->chunks_cpu += out->chunks_gpu;
        out->chunks_gpu = 0;
        snprintf(out->gpu_error, sizeof out->gpu_error, "%.255s", l->why[0] ? l->why : "not started");
    }
}

static void later_destroy(ps_engine_t *e)
{
    later_t *l = e->impl;
    if (l) {
        pthread_join(l->thread, NULL);
        ps_engine_destroy(l->made);
        if (l->ctx_free) l->ctx_free(l->ctx);
        pthread_cond_destroy(&l->ended_cv);
        pthread_mutex_destroy(&l->lock);
        free(l);
    }
    free(e);
}

int ps_later_engine_new(ps_engine_t **out, ps_later_start_fn start, void *ctx, void (*ctx_free)(void *),
                        const ps_engine_info_t *before, ps_err_t *err)
{
    *out = NULL;
    ps_engine_t *e = calloc(1, sizeof *e);
    later_t *l = calloc(1, sizeof *l);
    int locks = 0, rc = PS_OK;
    if (!e || !l) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto fail;
    }
    l->start = start;
    l->ctx = ctx;
    l->ctx_free = ctx_free;
    l->before = *before;
    l->before.kind = PS_ENGINE_AUTO;
    l->before.gpu_started = 0;
    l->before.waits = 1;
    if (pthread_mutex_init(&l->lock, NULL) == 0) locks++;
    if (locks == 1 && pthread_cond_init(&l->ended_cv, NULL) == 0) locks++;
    if (locks < 2 || pthread_create(&l->thread, NULL, run_start, l) != 0) {
        rc = ps_fail(err, PS_E_INTERNAL, "cannot start the GPU start-up thread");
        goto fail;
    }
    e->impl = l;
    e->scan = later_scan;
    e->scan_sites = later_scan_sites;
    e->collect = later_collect;
    e->info = later_info;
    e->destroy = later_destroy;
    /* chunk_alloc left NULL: ordinary memory, as the header says. */
    *out = e;
    return PS_OK;
fail:
    if (locks > 1) pthread_cond_destroy(&l->ended_cv);
    if (locks > 0) pthread_mutex_destroy(&l->lock);
    free(e);
    free(l);
    if (ctx_free) ctx_free(ctx);
    return rc;
}
