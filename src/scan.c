#include "scan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Fixed-capacity FIFO of chunk pointers; NULL is the workers' stop signal. */
typedef struct {
    void **item;
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
static void fifo_push(fifo_t *f, void *c)
{
    f->item[(f->head + f->count++) % f->cap] = c;
    pthread_cond_signal(&f->ready);
}

static void *fifo_pop(fifo_t *f, pthread_mutex_t *lock)
{
    while (f->count == 0) pthread_cond_wait(&f->ready, lock);
    void *c = f->item[f->head];
    f->head = (f->head + 1) % f->cap;
    f->count--;
    return c;
}

/* Pop and push on one of the fifos that p->lock guards (chunks or blocks),
 * taking the lock for just that. */
static void *locked_pop(pipe_t *p, fifo_t *f)
{
    pthread_mutex_lock(&p->lock);
    void *item = fifo_pop(f, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return item;
}

static void locked_push(pipe_t *p, fifo_t *f, void *item)
{
    pthread_mutex_lock(&p->lock);
    fifo_push(f, item);
    pthread_mutex_unlock(&p->lock);
}

/* Records the first failure; the reader and the packers stop on it. */
static void set_failed(pipe_t *p, const ps_err_t *err)
{
    pthread_mutex_lock(&p->lock);
    if (!p->failed) {
        p->failed = 1;
        p->err = *err;
    }
    pthread_mutex_unlock(&p->lock);
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
        locked_push(p, &p->free, &p->chunks[next]);
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
            /* scan_records clears the slot's hits itself. A skipped or failed
             * slot may hold stale ones, but emit_in_order(failed) stops the
             * sink for good before this slot can be emitted: never read. */
            if (!skip) rc = p->e->scan_records(p->e, w->id, c, &p->hits[slot], &err);
            /* Emit even after a failure: that is what returns chunks to the ring. */
            int erc = emit_in_order(p, slot, skip || rc < 0, rc < 0 ? NULL : &err);
            if (rc == PS_OK) rc = erc;
            if (rc < 0) set_failed(p, &err);
        } else {
            if (!skip) rc = p->e->scan(p->e, w->id, c, &err);
            /* The failure first: whoever takes the chunk back must see it. */
            if (rc < 0) set_failed(p, &err);
            locked_push(p, &p->free, c);
        }
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- Block-parallel FASTA -------------------------------------------------
 * The calling thread only reads: it cuts the input into blocks (1 MiB, less
 * for files too small to give every thread a few, or the engine's
 * block_bytes), never inside a header line. Packer threads parse blocks into chunks on
 * their own, each block starting without context, and hand the chunks
 * straight to the engine's workers. Then, strictly in input order, each
 * block is "sequenced": the matches that straddle the cut before it are
 * found by pairing the last k-1 symbols of the open segment before the cut
 * (T) with the first k-1 after it (H) in a junction chunk (any match in T+H
 * has symbols on both sides, so none is counted twice), and record and line
 * numbers are carried on. */
#define BLOCK_BYTES_DEFAULT (1u << 20)
#define BLOCK_BYTES_MIN (64u << 10)

typedef struct {
    ps_block_t b;
    uint64_t seq;
    ps_block_info_t info;
    uint8_t head[PS_MAX_K], tail[PS_MAX_K];
    uint32_t head_len, tail_len;
    int done;
} block_slot_t;

typedef struct {
    pipe_t *p;
    const ps_automaton_t *a;
    block_slot_t *slots;
    size_t n_slots;
    fifo_t todo, free_blocks;  /* guarded by p->lock */
    pthread_mutex_t seq_lock;
    pthread_cond_t seq_moved;
    uint64_t next_seq;         /* the next block to sequence */
    uint8_t t[PS_MAX_K];       /* open tail before the next block */
    uint32_t t_len;
    ps_chunk_t *junction;      /* being filled; NULL until needed */
    uint64_t records, symbols, lines;
    char last_name[PS_NAME_MAX + 1];
} blocks_t;

typedef struct {
    blocks_t *bl;
    ps_reader_t *parser;
} packer_arg_t;

static int pipe_failed(pipe_t *p)
{
    pthread_mutex_lock(&p->lock);
    int f = p->failed;
    pthread_mutex_unlock(&p->lock);
    return f;
}

/* Appends T+H as one segment to the junction chunk (seq_lock held). */
static void add_junction(blocks_t *bl, const uint8_t *h, uint32_t h_len)
{
    pipe_t *p = bl->p;
    ps_chunk_t *j = bl->junction;
    uint32_t len = bl->t_len + h_len;
    if (j && (j->n + len > j->cap || j->n_restart == j->cap_restart)) {
        locked_push(p, &p->filled, j);
        j = NULL;
    }
    if (!j) {
        j = locked_pop(p, &p->free);
        ps_chunk_clear(j);
    }
    if (j->n) ps_chunk_restart(j);
    for (uint32_t i = 0; i < bl->t_len; i++) ps_chunk_push(j, bl->t[i]);
    for (uint32_t i = 0; i < h_len; i++) ps_chunk_push(j, h[i]);
    bl->junction = j;
}

/* Sequences every finished block that is next in input order (seq_lock held). */
static void sequence_blocks(blocks_t *bl)
{
    const uint32_t k1 = (uint32_t)bl->a->k - 1;
    for (;;) {
        block_slot_t *s = &bl->slots[bl->next_seq % bl->n_slots];
        if (!s->done || s->seq != bl->next_seq) break;
        const ps_block_info_t *in = &s->info;
        if (bl->t_len && in->open_start && s->head_len) add_junction(bl, s->head, s->head_len);
        if (!in->open_end) {
            bl->t_len = 0;
        } else if (in->one_segment && in->symbols < k1) {
            /* A short block inside one long segment: T grows across it. */
            uint8_t both[2 * PS_MAX_K];
            uint32_t n = 0;
            for (uint32_t i = 0; i < bl->t_len; i++) both[n++] = bl->t[i];
            for (uint32_t i = 0; i < s->head_len; i++) both[n++] = s->head[i];
            uint32_t keep = n < k1 ? n : k1;
            memcpy(bl->t, both + n - keep, keep);
            bl->t_len = keep;
        } else {
            memcpy(bl->t, s->tail, s->tail_len);
            bl->t_len = s->tail_len;
        }
        bl->records += in->records;
        bl->symbols += in->symbols;
        bl->lines += in->lines;
        if (in->records) snprintf(bl->last_name, sizeof bl->last_name, "%s", in->last_name);
        s->done = 0;
        bl->next_seq++;
        locked_push(bl->p, &bl->free_blocks, s);
    }
    pthread_cond_broadcast(&bl->seq_moved);
}

/* Parses one block into chunks; fills the slot's head, tail and info. */
static int pack_block(blocks_t *bl, ps_reader_t *bp, block_slot_t *s, uint64_t line_base, const char *name,
                      ps_err_t *err)
{
    pipe_t *p = bl->p;
    const uint32_t k1 = (uint32_t)bl->a->k - 1;
    ps_block_parser_start(bp, &s->b, line_base, name);
    s->head_len = s->tail_len = 0;
    int first = 1;
    for (;;) {
        ps_chunk_t *c = locked_pop(p, &p->free);
        int got = ps_reader_next(bp, c, err);
        if (got <= 0) {
            locked_push(p, &p->free, c);
            if (got < 0) return got;
            break;
        }
        if (first) {
            s->head_len = ps_chunk_head(c, k1, s->head);
            first = 0;
        }
        s->tail_len = ps_chunk_tail(c, k1, s->tail);
        locked_push(p, &p->filled, c);
    }
    ps_block_end(bp, &s->info);
    return PS_OK;
}

static void *packer(void *arg)
{
    packer_arg_t *pa = arg;
    blocks_t *bl = pa->bl;
    pipe_t *p = bl->p;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        block_slot_t *s = fifo_pop(&bl->todo, &p->lock);
        int skip = p->failed;
        pthread_mutex_unlock(&p->lock);
        if (!s) break;
        ps_err_t err;
        int rc = skip ? PS_OK : pack_block(bl, pa->parser, s, 0, NULL, &err);
        pthread_mutex_lock(&bl->seq_lock);
        if (rc < 0) {
            /* Parse errors name a line and a record: wait until every earlier
             * block is sequenced, then parse again knowing both. */
            while (bl->next_seq != s->seq) pthread_cond_wait(&bl->seq_moved, &bl->seq_lock);
            ps_err_t err2;
            if (pack_block(bl, pa->parser, s, bl->lines, bl->last_name, &err2) < 0) err = err2;
            set_failed(p, &err);
        }
        if (rc < 0 || skip) memset(&s->info, 0, sizeof s->info);
        s->done = 1;
        sequence_blocks(bl);
        pthread_mutex_unlock(&bl->seq_lock);
    }
    return NULL;
}

/* Reads the whole input as blocks; the packers and workers do the rest. */
static int read_blocks(pipe_t *p, const ps_automaton_t *a, ps_reader_t *r, int n_packers,
                       size_t block_bytes, ps_progress_fn progress, void *progress_ctx, ps_reader_stats_t *in,
                       ps_err_t *err)
{
    blocks_t bl;
    memset(&bl, 0, sizeof bl);
    bl.p = p;
    bl.a = a;
    bl.n_slots = (size_t)n_packers + 2;
    packer_arg_t *pargs = calloc((size_t)n_packers, sizeof *pargs);
    pthread_t *tid = calloc((size_t)n_packers, sizeof *tid);
    bl.slots = calloc(bl.n_slots, sizeof *bl.slots);
    int rc = PS_OK, started = 0, sync_ok = 0;
    if (!pargs || !tid || !bl.slots || fifo_init(&bl.todo, bl.n_slots + (size_t)n_packers)) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto out;
    }
    if (fifo_init(&bl.free_blocks, bl.n_slots)) {
        fifo_destroy(&bl.todo);
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto out;
    }
    if (pthread_mutex_init(&bl.seq_lock, NULL) || pthread_cond_init(&bl.seq_moved, NULL)) {
        rc = ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
        goto fifos;
    }
    sync_ok = 1;
    for (size_t i = 0; i < bl.n_slots; i++) {
        bl.slots[i].b.cap = block_bytes;
        if (!(bl.slots[i].b.buf = malloc(block_bytes))) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory for read blocks");
            goto fifos;
        }
        fifo_push(&bl.free_blocks, &bl.slots[i]);
    }
    for (; started < n_packers; started++) {
        pargs[started].bl = &bl;
        if (ps_block_parser_new(&pargs[started].parser, r, err) < 0) {
            rc = PS_E_NOMEM;
            break;
        }
        if (pthread_create(&tid[started], NULL, packer, &pargs[started])) {
            ps_reader_close(pargs[started].parser);
            rc = ps_fail(err, PS_E_INTERNAL, "cannot start packer thread %d", started);
            break;
        }
    }
    for (uint64_t seq = 0; rc == PS_OK && !pipe_failed(p); seq++) {
        block_slot_t *s = locked_pop(p, &bl.free_blocks);
        int got = ps_reader_next_block(r, &s->b, err);
        if (got <= 0) {
            rc = got;
            locked_push(p, &bl.free_blocks, s);
            break;
        }
        s->seq = seq;
        locked_push(p, &bl.todo, s);
        if (progress) progress(progress_ctx, r);
    }
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < started; i++) fifo_push(&bl.todo, NULL);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        ps_reader_close(pargs[i].parser);
    }
    if (bl.junction) locked_push(p, &p->filled, bl.junction);
    *in = *ps_reader_stats(r);
    in->records = bl.records;
    in->symbols = bl.symbols;
    /* No check for an input without records here: this path starts only when
     * ps_reader_is_fasta() saw '>' first, and that '>' begins a record in the
     * first block that holds it or the parse fails (seqio reports empty input). */
fifos:
    fifo_destroy(&bl.todo);
    fifo_destroy(&bl.free_blocks);
out:
    if (bl.slots)
        for (size_t i = 0; i < bl.n_slots; i++) free(bl.slots[i].b.buf);
    if (sync_ok) {
        pthread_mutex_destroy(&bl.seq_lock);
        pthread_cond_destroy(&bl.seq_moved);
    }
    free(bl.slots);
    free(pargs);
    free(tid);
    return rc;
}

int ps_scan_file(ps_engine_t *e, const ps_automaton_t *a, const char *path, int io_threads,
                 uint64_t *leaf_counts, const ps_record_sink_t *sink, ps_scan_stats_t *st,
                 ps_progress_fn progress, void *progress_ctx, ps_err_t *err)
{
    if (sink && !e->scan_records)
        return ps_fail(err, PS_E_INTERNAL, "the %s engine cannot count per record", e->name);
    double t0 = now_s();
    ps_reader_t *r = NULL;
    int rc = ps_reader_open(&r, path, a->alpha, a->k, io_threads, err);
    if (rc < 0) return rc;

    /* FASTA is packed by several threads when there are threads to spare and
     * per-record order is not needed; FASTQ and by-record go the simple way. */
    int packers = !sink && io_threads > 1 ? io_threads : 0;
    if (packers) {
        int fasta = ps_reader_is_fasta(r, err);
        if (fasta < 0) {
            ps_reader_close(r);
            return fasta;
        }
        if (!fasta) packers = 0;
    }
    int nw = e->n_workers > 0 ? e->n_workers : 1;
    int per = e->chunks_per_worker > 0 ? e->chunks_per_worker : 2;
    size_t n_chunks = (size_t)nw * (size_t)per + 1 + (packers ? (size_t)packers + 1 : 0);
    /* A chunk must hold its context and at least one new symbol; a block
     * never fills more than BLOCK_BYTES symbols, so chunks need no more. */
    size_t block_bytes = e->block_bytes;
    if (!block_bytes) {
        /* A small file still gets a few blocks per thread, so that all of
         * them work; a large one (or a pipe) gets the default. */
        uint64_t done, total;
        ps_reader_progress(r, &done, &total);
        block_bytes = BLOCK_BYTES_DEFAULT;
        if (packers && total && total / (4u * (uint64_t)packers) < block_bytes)
            block_bytes = (size_t)(total / (4u * (uint64_t)packers));
        if (block_bytes < BLOCK_BYTES_MIN) block_bytes = BLOCK_BYTES_MIN;
    }
    if (block_bytes < 64) block_bytes = 64;
    uint64_t cap = e->chunk_syms;
    if (packers && cap > block_bytes) cap = block_bytes;
    if (cap < (uint64_t)a->k * 2) cap = (uint64_t)a->k * 2;
    uint32_t cap_restart = e->chunk_restarts ? e->chunk_restarts : 1;
    /* Block chunks are small: size their restart lists to match (a chunk
     * that runs out of room simply closes early). */
    if (packers && cap_restart > cap / 64 + 1024) cap_restart = (uint32_t)(cap / 64 + 1024);

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
        rc = ps_chunk_init_lists(&chunks[made], a->alpha, cap, cap_restart, sink ? cap_restart : 0,
                                 &e->chunk_alloc, err);
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

    ps_reader_stats_t in_stats;
    if (rc == PS_OK && packers) rc = read_blocks(&p, a, r, packers, block_bytes, progress, progress_ctx, &in_stats, err);
    /* Or the reader alone fills free chunks and hands them to the workers. */
    while (rc == PS_OK && !packers) {
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
        locked_push(&p, got > 0 ? &p.filled : &p.free, c);
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
    if (rc != PS_OK && !sink) {
        /* Drain what the failed scan counted, so that a later scan with the
         * same engine starts from zero. */
        uint64_t *scratch = calloc(a->n_leaves, sizeof *scratch);
        ps_err_t ignored;
        if (scratch) e->collect(e, scratch, &ignored);
        free(scratch);
    }
    if (rc == PS_OK && st) {
        st->in = packers ? in_stats : *ps_reader_stats(r);
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
