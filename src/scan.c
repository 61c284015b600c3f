#include "scan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Fixed-capacity FIFO of chunk pointers; NULL is the workers' stop signal. */
typedef struct {
    ps_chunk_t **item;
    size_t cap, head, count;
    pthread_cond_t ready;
} fifo_t;

typedef struct {
    pthread_mutex_t lock;
    fifo_t filled, free;
    ps_engine_t *e;
    int failed;       /* a worker failed: the reader stops */
    ps_err_t err;     /* the first worker error */
} pipe_t;

static int fifo_init(fifo_t *f, size_t cap)
{
    f->item = calloc(cap, sizeof *f->item);
    f->cap = cap;
    f->head = f->count = 0;
    if (!f->item) return -1;
    if (pthread_cond_init(&f->ready, NULL)) {
        free(f->item);
        return -1;
    }
    return 0;
}

static void fifo_destroy(fifo_t *f)
{
    pthread_cond_destroy(&f->ready);
    free(f->item);
}

/* Both called with the lock held; capacity is never exceeded by design
 * (the ring holds every chunk plus one stop signal per worker). */
static void fifo_push(fifo_t *f, ps_chunk_t *c)
{
    f->item[(f->head + f->count++) % f->cap] = c;
    pthread_cond_signal(&f->ready);
}

static ps_chunk_t *fifo_pop(fifo_t *f, pthread_mutex_t *lock)
{
    while (f->count == 0) pthread_cond_wait(&f->ready, lock);
    ps_chunk_t *c = f->item[f->head];
    f->head = (f->head + 1) % f->cap;
    f->count--;
    return c;
}

typedef struct {
    pipe_t *p;
    int id;
} worker_arg_t;

static void *worker(void *arg)
{
    worker_arg_t *w = arg;
    pipe_t *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        ps_chunk_t *c = fifo_pop(&p->filled, &p->lock);
        int skip = p->failed;
        pthread_mutex_unlock(&p->lock);
        if (!c) break;
        ps_err_t err;
        int rc = skip ? PS_OK : p->e->scan(p->e, w->id, c, &err);
        pthread_mutex_lock(&p->lock);
        if (rc < 0 && !p->failed) {
            p->failed = 1;
            p->err = err;
        }
        fifo_push(&p->free, c);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ps_scan_file(ps_engine_t *e, const ps_automaton_t *a, const char *path, int io_threads,
                 uint64_t *leaf_counts, ps_scan_stats_t *st, ps_progress_fn progress,
                 void *progress_ctx, ps_err_t *err)
{
    double t0 = now_s();
    int nw = e->n_workers > 0 ? e->n_workers : 1;
    int per = e->chunks_per_worker > 0 ? e->chunks_per_worker : 2;
    size_t n_chunks = (size_t)nw * (size_t)per + 1;
    /* A chunk must hold its context and at least one new symbol. */
    uint64_t cap = e->chunk_syms > (uint64_t)a->k * 2 ? e->chunk_syms : (uint64_t)a->k * 2;
    uint32_t cap_restart = e->chunk_restarts ? e->chunk_restarts : 1;

    ps_reader_t *r = NULL;
    int rc = ps_reader_open(&r, path, a->alpha, a->k, io_threads, err);
    if (rc < 0) return rc;

    pipe_t p;
    memset(&p, 0, sizeof p);
    p.e = e;
    ps_chunk_t *chunks = calloc(n_chunks, sizeof *chunks);
    pthread_t *tid = calloc((size_t)nw, sizeof *tid);
    worker_arg_t *args = calloc((size_t)nw, sizeof *args);
    int lock_ok = 0, fifos = 0, started = 0;
    size_t made = 0;
    if (!chunks || !tid || !args) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto out;
    }
    if (pthread_mutex_init(&p.lock, NULL)) {
        rc = ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
        goto out;
    }
    lock_ok = 1;
    if (fifo_init(&p.filled, n_chunks + (size_t)nw) || (fifos = 1, fifo_init(&p.free, n_chunks))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto out;
    }
    fifos = 2;
    for (; made < n_chunks; made++) {
        rc = ps_chunk_init(&chunks[made], a->alpha, cap, cap_restart, &e->chunk_alloc, err);
        if (rc < 0) goto out;
        fifo_push(&p.free, &chunks[made]);
    }
    for (; started < nw; started++) {
        args[started] = (worker_arg_t){&p, started};
        if (pthread_create(&tid[started], NULL, worker, &args[started])) {
            rc = ps_fail(err, PS_E_INTERNAL, "cannot start worker thread %d", started);
            break;
        }
    }

    /* The reader: fill free chunks and hand them to the workers. */
    while (rc == PS_OK) {
        pthread_mutex_lock(&p.lock);
        ps_chunk_t *c = fifo_pop(&p.free, &p.lock);
        int failed = p.failed;
        pthread_mutex_unlock(&p.lock);
        int got = failed ? 0 : ps_reader_next(r, c, err);
        if (got < 0) rc = got;
        pthread_mutex_lock(&p.lock);
        fifo_push(got > 0 ? &p.filled : &p.free, c);
        pthread_mutex_unlock(&p.lock);
        if (got <= 0) break;
        if (progress) progress(progress_ctx, r);
    }
    pthread_mutex_lock(&p.lock);
    for (int i = 0; i < started; i++) fifo_push(&p.filled, NULL);
    pthread_mutex_unlock(&p.lock);
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    if (rc == PS_OK && p.failed) {
        *err = p.err;
        rc = p.err.code ? p.err.code : PS_E_INTERNAL;
    }
    if (rc == PS_OK) rc = e->collect(e, leaf_counts, err);
    if (rc == PS_OK && st) {
        st->in = *ps_reader_stats(r);
        st->seconds = now_s() - t0;
    }

out:
    for (size_t i = 0; i < made; i++) ps_chunk_free(&chunks[i], &e->chunk_alloc);
    if (fifos >= 1) fifo_destroy(&p.filled);
    if (fifos >= 2) fifo_destroy(&p.free);
    if (lock_ok) pthread_mutex_destroy(&p.lock);
    free(chunks);
    free(tid);
    free(args);
    ps_reader_close(r);
    return rc;
}
