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
    /* --by-record only: chunks are emitted to the sink in reading order. */
    const ps_record_sink_t *sink;
    ps_chunk_t *chunks;     /* the ring, to map chunk pointers to slots */
    size_t n_chunks;
    uint64_t *seq;          /* per slot: its reading order */
    ps_rec_hits_t *hits;    /* per slot */
    int *done;              /* per slot: scanned, waiting to be emitted */
    size_t *slot_of;        /* reading order modulo n_chunks -> slot */
    uint64_t next_read, next_emit;
    int emit_failed;        /* stop emitting once anything failed */
    pthread_mutex_t emit_lock;
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

void ps_rec_hits_free(ps_rec_hits_t *h)
{
    free(h->span);
    free(h->leaf);
    free(h->count);
    memset(h, 0, sizeof *h);
}

/* Per-record mode: stores a scanned chunk's hits, then emits every chunk that
 * is next in reading order and returns it to the ring. A chunk waits in the
 * ring until emitted, so at most n_chunks results are ever held. */
static int emit_in_order(pipe_t *p, size_t slot, int failed, ps_err_t *err)
{
    int rc = PS_OK;
    pthread_mutex_lock(&p->emit_lock);
    p->done[slot] = 1;
    if (failed) p->emit_failed = 1;
    for (;;) {
        size_t next = p->slot_of[p->next_emit % p->n_chunks];
        if (!p->done[next] || p->seq[next] != p->next_emit) break;
        if (!p->emit_failed) {
            rc = p->sink->emit(p->sink->ctx, &p->chunks[next], &p->hits[next], err);
            if (rc < 0) p->emit_failed = 1;
        }
        p->done[next] = 0;
        p->next_emit++;
        pthread_mutex_lock(&p->lock);
        fifo_push(&p->free, &p->chunks[next]);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&p->emit_lock);
    return rc;
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
        int rc = PS_OK;
        if (p->sink) {
            size_t slot = (size_t)(c - p->chunks);
            p->hits[slot].n_span = 0;
            p->hits[slot].n_hit = 0;
            if (!skip) rc = p->e->scan_records(p->e, w->id, c, &p->hits[slot], &err);
            /* Emit even after a failure: that is what returns chunks to the ring. */
            int erc = emit_in_order(p, slot, skip || rc < 0, rc < 0 ? NULL : &err);
            if (rc == PS_OK) rc = erc;
            pthread_mutex_lock(&p->lock);
        } else {
            if (!skip) rc = p->e->scan(p->e, w->id, c, &err);
            pthread_mutex_lock(&p->lock);
            fifo_push(&p->free, c);
        }
        if (rc < 0 && !p->failed) {
            p->failed = 1;
            p->err = err;
        }
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
                 uint64_t *leaf_counts, const ps_record_sink_t *sink, ps_scan_stats_t *st,
                 ps_progress_fn progress, void *progress_ctx, ps_err_t *err)
{
    if (sink && !e->scan_records)
        return ps_fail(err, PS_E_INTERNAL, "the %s engine cannot count per record", e->name);
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
    int lock_ok = 0, emit_lock_ok = 0, fifos = 0, started = 0;
    size_t made = 0;
    p.sink = sink;
    p.chunks = chunks;
    p.n_chunks = n_chunks;
    if (sink) {
        p.seq = calloc(n_chunks, sizeof *p.seq);
        p.hits = calloc(n_chunks, sizeof *p.hits);
        p.done = calloc(n_chunks, sizeof *p.done);
        p.slot_of = calloc(n_chunks, sizeof *p.slot_of);
        if (!p.seq || !p.hits || !p.done || !p.slot_of || pthread_mutex_init(&p.emit_lock, NULL)) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory");
            goto out;
        }
        emit_lock_ok = 1;
    }
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
        if (got > 0 && sink) {
            size_t slot = (size_t)(c - chunks);
            p.seq[slot] = p.next_read;
            p.slot_of[p.next_read % n_chunks] = slot;
            p.next_read++;
        }
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
    if (rc == PS_OK && !sink) rc = e->collect(e, leaf_counts, err);
    if (rc == PS_OK && st) {
        st->in = *ps_reader_stats(r);
        st->seconds = now_s() - t0;
    }

out:
    for (size_t i = 0; i < made; i++) ps_chunk_free(&chunks[i], &e->chunk_alloc);
    if (p.hits)
        for (size_t i = 0; i < n_chunks; i++) ps_rec_hits_free(&p.hits[i]);
    free(p.hits);
    free(p.seq);
    free(p.done);
    free(p.slot_of);
    if (emit_lock_ok) pthread_mutex_destroy(&p.emit_lock);
    if (fifos >= 1) fifo_destroy(&p.filled);
    if (fifos >= 2) fifo_destroy(&p.free);
    if (lock_ok) pthread_mutex_destroy(&p.lock);
    free(chunks);
    free(tid);
    free(args);
    ps_reader_close(r);
    return rc;
}
