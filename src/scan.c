#include "scan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <htslib/thread_pool.h>

#include "blocks.h"
#include "parse.h"

#define BLOCK_BYTES_MAX (1u << 20)
#define BLOCK_BYTES_MIN (64u << 10)
/* Blocks of whole proteins for a GPU: its kernels want chunks of a few
 * million residues (4 MiB of FASTA is about 3.3 M). */
#define BLOCK_BYTES_GPU (4u << 20)

double ps_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void ps_scan_opts_init(ps_scan_opts_t *o, const ps_engine_info_t *in, int threads)
{
    memset(o, 0, sizeof *o);
    o->threads = threads > 0 ? threads : 1;
    switch (in->kind) {
    case PS_ENGINE_GPU:
        /* Few large pinned chunks: two per stream keep copies and kernels
         * overlapping; more only pin more memory. */
        o->chunk_syms = 1u << 26;
        o->chunk_restarts = 1u << 20;
        o->ring = 7;
        if (in->split) {
            /* CPU threads share each chunk's work: a chunk in flight for
             * each, as for the default engine. */
            o->chunk_syms = 1u << 22;
            o->chunk_restarts = 1u << 16;
            o->ring = o->threads + 1;
        }
        break;
    case PS_ENGINE_AUTO:
        /* As large as the GPU likes them within the CPU's reach. Chunks
         * that wait for the GPU's start (engine_later.h) get a ring twice
         * as deep, so that the reading runs further ahead meanwhile (all
         * r14 patterns over 199 M residues: a third of the input read
         * during a 0.2 s start with T + 1 chunks); at most 65 chunks. */
        o->chunk_syms = 1u << 22;
        o->chunk_restarts = 1u << 16;
        o->ring = in->waits ? (o->threads < 32 ? 2 * o->threads + 1 : 65) : o->threads + 1;
        break;
    default:
        /* Small chunks keep every thread busy on small inputs; 1 Mi symbols
         * is 256 KiB of packed DNA, far above the per-chunk overhead. */
        o->chunk_syms = 1u << 20;
        o->chunk_restarts = 1u << 14;
        o->ring = 2 * o->threads + 1;
        break;
    }
    if (in->max_chunk_syms && o->chunk_syms > in->max_chunk_syms) o->chunk_syms = in->max_chunk_syms;
    if (in->max_chunk_restarts && o->chunk_restarts > in->max_chunk_restarts) o->chunk_restarts = in->max_chunk_restarts;
}

/* Per pool thread state, taken by a job for its duration: the engine worker
 * id, a parser and a chunk for blocks. At most `threads` jobs run at once,
 * so a free lane always exists. */
typedef struct lane {
    int id;
    ps_parser_t parser;
    ps_chunk_t chunk;
    ps_sites_t sites;       /* a block chunk's sites, for a sites sink */
    struct lane *next;
} lane_t;

typedef struct slot {
    struct ps_scanner *s;
    ps_block_t b;           /* block slots */
    ps_block_out_t out;
    ps_chunk_t c;           /* chunk slots */
    ps_rec_hits_t hits;
    ps_sites_t sites;
    void *rows;             /* block slots, for a sites sink: the block's rows */
    int rc;
    ps_err_t err;
    struct slot *next;      /* free list */
} slot_t;

struct ps_scanner {
    ps_engine_t *e;
    const ps_leaves_t *lv;
    ps_scan_opts_t o;
    hts_tpool *pool;
    int owns_pool;             /* made here (else borrowed: ps_scanner_new_on) */
    int block_max_given;       /* the caller set o.block_max (ps_scan_inputs' share) */
    pthread_mutex_t lane_lock;
    lane_t *lanes, *free_lanes;
    int n_lanes;               /* at most the pool's threads, and at most the slots in flight */
    slot_t *chunks, *blocks;   /* slot arrays, made on first use */
    size_t n_chunks, n_blocks;
    int chunks_list_records;   /* the ring's chunks list records (for a sink) */
    int lanes_list_records;    /* the lanes' block chunks list records (for a sites sink) */
    void (*free_rows)(void *); /* frees slots' rows */
    ps_chunk_t jsites;         /* a junction segment alone, for a sites sink */
    ps_sites_t jsites_out;
    void *jrows;               /* its rows */
    char cont_name[PS_NAME_MAX + 1]; /* the record in progress before the block being joined */
    slot_t *free_chunks, *free_blocks;
    ps_chunk_t junction;       /* block joins, scanned by the calling thread */
    /* the run in progress */
    hts_tpool_process *q;
    int in_flight;
    const ps_record_sink_t *sink;
    ps_blocks_t *bl;
    ps_parser_t reparser;      /* the calling thread's, for messages */
    int failed;                /* a job failed: stop dispatching, drop later results */
    ps_err_t err;              /* the first failure in input order */
};

static lane_t *take_lane(ps_scanner_t *s)
{
    pthread_mutex_lock(&s->lane_lock);
    lane_t *l = s->free_lanes;
    if (l) s->free_lanes = l->next;
    pthread_mutex_unlock(&s->lane_lock);
    return l;
}

static void give_lane(ps_scanner_t *s, lane_t *l)
{
    pthread_mutex_lock(&s->lane_lock);
    l->next = s->free_lanes;
    s->free_lanes = l;
    pthread_mutex_unlock(&s->lane_lock);
}

/* ---- jobs, run on the pool ---------------------------------------------- */

static void *chunk_job(void *arg)
{
    slot_t *sl = arg;
    ps_scanner_t *s = sl->s;
    lane_t *l = take_lane(s);
    if (!l) {
        sl->rc = ps_fail(&sl->err, PS_E_INTERNAL, "no free lane for a scan job");
        return sl;
    }
    const ps_record_sink_t *k = s->sink;
    if (!k) {
        sl->rc = s->e->scan(s->e, l->id, &sl->c, &sl->err);
    } else if (k->rows) {
        /* The rows too, here: their sorting and placing is the work of a
         * dense run, which the reading thread then only writes. */
        sl->rc = s->e->scan_sites(s->e, l->id, &sl->c, &sl->sites, &sl->err);
        if (sl->rc == PS_OK) sl->rc = k->rows(k->ctx, &sl->rows, NULL, NULL, 0, &sl->err);
        if (sl->rc == PS_OK) sl->rc = k->rows(k->ctx, &sl->rows, &sl->c, &sl->sites, 0, &sl->err);
    } else {
        sl->rc = s->e->scan_records(s->e, l->id, &sl->c, &sl->hits, &sl->err);
    }
    give_lane(s, l);
    return sl;
}

typedef struct {
    ps_scanner_t *s;
    lane_t *lane;
    slot_t *slot;
} scan_ctx_t;

static int scan_one(void *ctx, ps_chunk_t *c, ps_err_t *err)
{
    scan_ctx_t *sc = ctx;
    return sc->s->e->scan(sc->s->e, sc->lane->id, c, err);
}

/* A block chunk's sites, into the block's rows. */
static int scan_one_sites(void *ctx, ps_chunk_t *c, ps_err_t *err)
{
    scan_ctx_t *sc = ctx;
    const ps_record_sink_t *k = sc->s->sink;
    int rc = sc->s->e->scan_sites(sc->s->e, sc->lane->id, c, &sc->lane->sites, err);
    return rc < 0 ? rc : k->rows(k->ctx, &sc->slot->rows, c, &sc->lane->sites, 1, err);
}

static void *block_job(void *arg)
{
    slot_t *sl = arg;
    ps_scanner_t *s = sl->s;
    lane_t *l = take_lane(s);
    if (!l) {
        sl->rc = ps_fail(&sl->err, PS_E_INTERNAL, "no free lane for a block job");
        return sl;
    }
    scan_ctx_t sc = {s, l, sl};
    const ps_record_sink_t *k = s->sink;
    sl->rc = k ? k->rows(k->ctx, &sl->rows, NULL, NULL, 1, &sl->err) : PS_OK;
    if (sl->rc == PS_OK)
        sl->rc = ps_block_parse(&l->parser, &sl->b, 0, NULL, &l->chunk, k ? scan_one_sites : scan_one, &sc, &sl->out,
                                &sl->err);
    give_lane(s, l);
    return sl;
}

/* ---- the calling thread ------------------------------------------------- */

static void fail_once(ps_scanner_t *s, const ps_err_t *err)
{
    if (!s->failed) {
        s->failed = 1;
        s->err = *err;
        if (!s->err.code) s->err.code = PS_E_INTERNAL;
    }
}

/* Scans what the junction chunk holds, on the calling thread's worker id. */
static void flush_junction(ps_scanner_t *s)
{
    ps_chunk_t *j = &s->junction;
    if (!j->n) return;
    ps_err_t err;
    if (!s->failed && s->e->scan(s->e, s->o.threads, j, &err) < 0) fail_once(s, &err);
    ps_chunk_clear(j);
}

/* Adds a junction segment as a segment of its own. */
static void add_junction(ps_scanner_t *s, const uint8_t *seg, uint32_t len)
{
    ps_chunk_t *j = &s->junction;
    if (j->n && (j->n + len > j->cap || j->n_restart == j->cap_restart)) flush_junction(s);
    if (j->n) ps_chunk_restart(j);
    for (uint32_t i = 0; i < len; i++) ps_chunk_push(j, seg[i]);
}

/* Joins a block for a sites sink: the sites of the junction before it
 * (a segment of its own, in the record in progress), then its rows. */
static void join_sites(ps_scanner_t *s, slot_t *sl)
{
    const ps_record_sink_t *k = s->sink;
    ps_block_place_t at;
    ps_blocks_place(s->bl, &at);
    snprintf(s->cont_name, sizeof s->cont_name, "%s", at.cont_name);
    at.cont_name = s->cont_name;
    uint8_t seg[2 * PS_MAX_K];
    uint32_t n = ps_blocks_join(s->bl, &sl->out, seg);
    ps_err_t err;
    if (n) {
        ps_chunk_t *j = &s->jsites;
        ps_chunk_clear(j);
        /* Both parts lie in the record in progress: T before the cut, H after. */
        if (ps_chunk_record(j, at.rec_base - 1, at.cont_name, (uint32_t)strlen(at.cont_name)) < 0) {
            ps_fail(&err, PS_E_INTERNAL, "junction chunk lists too small");
            fail_once(s, &err);
            return;
        }
        for (uint32_t i = 0; i < n; i++) ps_chunk_push(j, seg[i]);
        j->head_off = at.cont_off - (n - sl->out.head_len);
        j->tail_edge = PS_EDGE_CLOSED;
        if (s->e->scan_sites(s->e, s->o.threads, j, &s->jsites_out, &err) < 0 ||
            k->rows(k->ctx, &s->jrows, NULL, NULL, 0, &err) < 0 ||
            k->rows(k->ctx, &s->jrows, j, &s->jsites_out, 0, &err) < 0 || k->emit_rows(k->ctx, j, s->jrows, &err) < 0) {
            fail_once(s, &err);
            return;
        }
    }
    if (k->emit_block(k->ctx, sl->rows, &at, &err) < 0) fail_once(s, &err);
}

/* Takes the next result in input order (waiting for it, or only if it is
 * ready) and finishes it: emits per-record hits, or joins a block; then
 * its slot is free again. Returns 1 when it took one. */
static int take_result(ps_scanner_t *s, int wait)
{
    hts_tpool_result *res = wait ? hts_tpool_next_result_wait(s->q) : hts_tpool_next_result(s->q);
    if (!res) {
        if (!wait) return 0;
        ps_err_t e;
        ps_fail(&e, PS_E_INTERNAL, "the thread pool returned no result");
        fail_once(s, &e);
        s->in_flight = 0; /* nothing more will come */
        return 0;
    }
    slot_t *sl = hts_tpool_result_data(res);
    hts_tpool_delete_result(res, 0);
    s->in_flight--;
    int is_block = s->blocks && sl >= s->blocks && sl < s->blocks + s->n_blocks;
    if (sl->rc < 0 && !s->failed) {
        if (is_block) {
            /* Every earlier block is joined: parse it again knowing where it
             * starts, so that the message names the line and the record. */
            ps_err_t e2 = sl->err;
            ps_chunk_t scratch;
            if (ps_chunk_init_lists(&scratch, s->lv->alpha, s->junction.cap, s->junction.cap_restart, 0, NULL,
                                    &e2) == PS_OK) {
                ps_blocks_reparse(s->bl, &s->reparser, &sl->b, &scratch, &sl->err, &e2);
                ps_chunk_free(&scratch, NULL);
            }
            fail_once(s, &e2);
        } else {
            fail_once(s, &sl->err);
        }
    }
    if (!s->failed) {
        if (is_block && s->sink) {
            join_sites(s, sl);
        } else if (is_block) {
            uint8_t seg[2 * PS_MAX_K];
            uint32_t n = ps_blocks_join(s->bl, &sl->out, seg);
            if (n) add_junction(s, seg, n);
        } else if (s->sink) {
            ps_err_t e;
            int rc = s->sink->rows ? s->sink->emit_rows(s->sink->ctx, &sl->c, sl->rows, &e)
                                   : s->sink->emit(s->sink->ctx, &sl->c, &sl->hits, &e);
            if (rc < 0) fail_once(s, &e);
        }
    }
    slot_t **list = is_block ? &s->free_blocks : &s->free_chunks;
    sl->next = *list;
    *list = sl;
    return 1;
}

static slot_t *get_slot(ps_scanner_t *s, slot_t **list)
{
    /* Results that are ready go first: their slots come back sooner, and
     * the pool never waits on a full output queue. */
    while (s->in_flight && take_result(s, 0)) {}
    while (!*list && s->in_flight) take_result(s, 1);
    slot_t *sl = *list;
    if (sl) *list = sl->next;
    return sl;
}

static int dispatch(ps_scanner_t *s, slot_t *sl, void *(*job)(void *))
{
    sl->rc = PS_OK;
    if (hts_tpool_dispatch(s->pool, s->q, job, sl) < 0) {
        ps_err_t e;
        ps_fail(&e, PS_E_INTERNAL, "cannot queue work on the thread pool");
        fail_once(s, &e);
        return -1;
    }
    s->in_flight++;
    return 0;
}

/* ---- memory ------------------------------------------------------------- */

static void free_slots(ps_scanner_t *s, slot_t *v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) {
        ps_chunk_free(&v[i].c, &s->e->chunk_alloc);
        ps_rec_hits_free(&v[i].hits);
        ps_sites_free(&v[i].sites);
        if (v[i].rows && s->free_rows) s->free_rows(v[i].rows);
        free(v[i].b.buf);
    }
    free(v);
}

/* The ring of chunk slots, with record lists when a sink needs them. */
static int make_chunk_slots(ps_scanner_t *s, int lists, ps_err_t *err)
{
    if (s->chunks && s->chunks_list_records == lists) return PS_OK;
    free_slots(s, s->chunks, s->n_chunks);
    s->chunks = NULL;
    s->free_chunks = NULL;
    size_t n = s->o.ring > 0 ? (size_t)s->o.ring : 1;
    uint64_t cap = s->o.chunk_syms;
    if (cap < (uint64_t)s->lv->k * 2) cap = (uint64_t)s->lv->k * 2;
    uint32_t rst = s->o.chunk_restarts ? s->o.chunk_restarts : 1;
    if (!(s->chunks = calloc(n, sizeof *s->chunks))) return ps_fail(err, PS_E_NOMEM, "out of memory");
    s->n_chunks = n;
    s->chunks_list_records = lists;
    for (size_t i = 0; i < n; i++) {
        slot_t *sl = &s->chunks[i];
        sl->s = s;
        int rc = ps_chunk_init_lists(&sl->c, s->lv->alpha, cap, rst, lists ? rst : 0, &s->e->chunk_alloc, err);
        if (rc < 0) return rc;
        sl->next = s->free_chunks;
        s->free_chunks = sl;
    }
    return PS_OK;
}

/* Block slots: 2T + 2, the number scan.h's memory bound counts, or the
 * reader's share of them (ps_scan_inputs). */
static size_t block_slots(const ps_scanner_t *s)
{
    return s->o.block_slots > 0 ? (size_t)s->o.block_slots : 2 * (size_t)s->o.threads + 2;
}

/* Block slots, the lanes' chunks (listing records for a sites sink) and
 * the junction chunks. */
static int make_block_slots(ps_scanner_t *s, int lists, ps_err_t *err)
{
    size_t bmax = s->o.block_bytes ? s->o.block_bytes : s->o.block_max;
    if (!s->blocks) {
        size_t n = block_slots(s);
        if (!(s->blocks = calloc(n, sizeof *s->blocks))) return ps_fail(err, PS_E_NOMEM, "out of memory");
        s->n_blocks = n;
        s->lanes_list_records = -1; /* the lanes' chunks are not made yet */
        for (size_t i = 0; i < n; i++) {
            slot_t *sl = &s->blocks[i];
            sl->s = s;
            if (!(sl->b.buf = malloc(bmax))) return ps_fail(err, PS_E_NOMEM, "out of memory for read blocks");
            sl->b.alloc = bmax;
            sl->next = s->free_blocks;
            s->free_blocks = sl;
        }
    }
    if (s->lanes_list_records == lists) return PS_OK;
    /* A block never packs more symbols than it has bytes, so its chunks
     * need no more; their restart lists are sized to match (a chunk that
     * runs out of room simply closes early). */
    uint64_t cap = s->o.chunk_syms < bmax ? s->o.chunk_syms : bmax;
    if (cap < (uint64_t)s->lv->k * 2) cap = (uint64_t)s->lv->k * 2;
    uint32_t rst = s->o.chunk_restarts ? s->o.chunk_restarts : 1;
    if (rst > cap / 64 + 1024) rst = (uint32_t)(cap / 64 + 1024);
    for (int i = 0; i < s->n_lanes; i++) {
        ps_chunk_free(&s->lanes[i].chunk, &s->e->chunk_alloc);
        int rc = ps_chunk_init_lists(&s->lanes[i].chunk, s->lv->alpha, cap, rst, lists ? rst : 0, &s->e->chunk_alloc,
                                     err);
        if (rc < 0) return rc;
    }
    ps_chunk_free(&s->junction, &s->e->chunk_alloc);
    int rc = ps_chunk_init_lists(&s->junction, s->lv->alpha, cap, rst, 0, &s->e->chunk_alloc, err);
    if (rc < 0) return rc;
    if (lists && !s->jsites.text &&
        (rc = ps_chunk_init_lists(&s->jsites, s->lv->alpha, 2 * PS_MAX_K, 4, 1, NULL, err)) < 0)
        return rc;
    s->lanes_list_records = lists;
    return PS_OK;
}

int ps_scanner_new(ps_scanner_t **out, ps_engine_t *e, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                   ps_err_t *err)
{
    return ps_scanner_new_on(out, e, lv, o, NULL, err);
}

int ps_scanner_new_on(ps_scanner_t **out, ps_engine_t *e, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                      hts_tpool *pool, ps_err_t *err)
{
    *out = NULL;
    ps_engine_info_t in;
    ps_engine_info(e, &in);
    if (o->threads < 1) return ps_fail(err, PS_E_INTERNAL, "a scan needs at least one thread");
    if (in.workers < ps_scan_workers(o))
        return ps_fail(err, PS_E_INTERNAL, "the engine takes %d workers, the scan needs %d", in.workers,
                       ps_scan_workers(o));
    ps_scanner_t *s = calloc(1, sizeof *s);
    if (!s) return ps_fail(err, PS_E_NOMEM, "out of memory");
    s->e = e;
    s->lv = lv;
    s->o = *o;
    if (s->o.block_bytes && s->o.block_bytes < 64) s->o.block_bytes = 64;
    s->block_max_given = s->o.block_max != 0;
    if (!s->o.block_max || s->o.block_max > BLOCK_BYTES_MAX) s->o.block_max = BLOCK_BYTES_MAX;
    if (s->o.block_max < BLOCK_BYTES_MIN) s->o.block_max = BLOCK_BYTES_MIN;
    if (pthread_mutex_init(&s->lane_lock, NULL)) {
        free(s);
        return ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
    }
    /* A job holds a lane while it runs, and runs only from a slot in
     * flight: lanes beyond the slots (or the pool's threads) never serve. */
    size_t most = block_slots(s) > (size_t)(o->ring > 0 ? o->ring : 1) ? block_slots(s) : (size_t)o->ring;
    s->n_lanes = most < (size_t)o->threads ? (int)most : o->threads;
    if (!(s->lanes = calloc((size_t)s->n_lanes, sizeof *s->lanes))) {
        ps_scanner_free(s);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    for (int i = s->n_lanes - 1; i >= 0; i--) {
        s->lanes[i].id = i;
        s->lanes[i].next = s->free_lanes;
        s->free_lanes = &s->lanes[i];
    }
    if (pool && hts_tpool_size(pool) != o->threads) {
        ps_scanner_free(s);
        return ps_fail(err, PS_E_INTERNAL, "a pool of %d threads for a scan of %d", hts_tpool_size(pool),
                       o->threads);
    }
    s->owns_pool = !pool;
    if (!(s->pool = pool ? pool : hts_tpool_init(o->threads))) {
        ps_scanner_free(s);
        return ps_fail(err, PS_E_INTERNAL, "cannot start %d threads", o->threads);
    }
    *out = s;
    return PS_OK;
}

void ps_scanner_free(ps_scanner_t *s)
{
    if (!s) return;
    if (s->pool && s->owns_pool) hts_tpool_destroy(s->pool);
    free_slots(s, s->chunks, s->n_chunks);
    free_slots(s, s->blocks, s->n_blocks);
    if (s->lanes)
        for (int i = 0; i < s->n_lanes; i++) {
            ps_chunk_free(&s->lanes[i].chunk, &s->e->chunk_alloc);
            ps_sites_free(&s->lanes[i].sites);
        }
    ps_chunk_free(&s->junction, &s->e->chunk_alloc);
    ps_chunk_free(&s->jsites, NULL);
    ps_sites_free(&s->jsites_out);
    if (s->jrows && s->free_rows) s->free_rows(s->jrows);
    free(s->lanes);
    pthread_mutex_destroy(&s->lane_lock);
    free(s);
}

/* ---- the two ways of reading -------------------------------------------- */

/* The caller parses chunks in order; the pool scans them. */
static int read_chunks(ps_scanner_t *s, ps_reader_t *r, ps_progress_fn progress, void *pctx, ps_err_t *err)
{
    int rc = make_chunk_slots(s, s->sink != NULL, err);
    while (rc == PS_OK && !s->failed) {
        slot_t *sl = get_slot(s, &s->free_chunks);
        if (!sl) return ps_fail(err, PS_E_INTERNAL, "no free chunk");
        int got = ps_reader_next(r, &sl->c, err);
        if (got <= 0 || dispatch(s, sl, chunk_job) < 0) {
            sl->next = s->free_chunks;
            s->free_chunks = sl;
            rc = got < 0 ? got : PS_OK;
            break;
        }
        if (progress) progress(pctx, r);
    }
    return rc;
}

/* The caller cuts FASTA blocks; the pool parses and scans each whole. */
static int read_blocks(ps_scanner_t *s, ps_reader_t *r, size_t block_bytes, ps_progress_fn progress, void *pctx,
                       ps_err_t *err)
{
    int rc = make_block_slots(s, s->sink != NULL, err);
    if (rc < 0) return rc;
    size_t cap = s->o.block_bytes ? s->o.block_bytes : s->o.block_max;
    if ((rc = ps_blocks_new(&s->bl, r, s->lv->k, cap, err)) < 0) return rc;
    if (s->lv->mixed_lengths || s->lv->sequential) ps_blocks_whole_records(s->bl);
    for (int i = 0; i < s->n_lanes; i++) ps_parser_init(&s->lanes[i].parser, ps_reader_path(r), s->lv->alpha, s->lv->k);
    ps_parser_init(&s->reparser, ps_reader_path(r), s->lv->alpha, s->lv->k);
    ps_chunk_clear(&s->junction);
    while (!s->failed) {
        slot_t *sl = get_slot(s, &s->free_blocks);
        if (!sl) return ps_fail(err, PS_E_INTERNAL, "no free block");
        sl->b.cap = block_bytes;
        int got = ps_blocks_cut(s->bl, &sl->b, err);
        if (got <= 0 || dispatch(s, sl, block_job) < 0) {
            sl->next = s->free_blocks;
            s->free_blocks = sl;
            rc = got < 0 ? got : PS_OK;
            break;
        }
        if (progress) progress(pctx, r);
    }
    return rc;
}

/* A small file still gets a few blocks per thread, so that all of them
 * work; a large one (or a pipe) gets the largest. */
static size_t block_size(const ps_scanner_t *s, const ps_reader_t *r)
{
    if (s->o.block_bytes) return s->o.block_bytes;
    uint64_t done, total;
    ps_reader_progress(r, &done, &total);
    size_t b = s->o.block_max;
    uint64_t per = 4u * (uint64_t)s->o.threads;
    if (total && total / per < b) b = (size_t)(total / per);
    return b < BLOCK_BYTES_MIN ? BLOCK_BYTES_MIN : b;
}

int ps_scanner_run(ps_scanner_t *s, const char *path, uint64_t *leaf_counts, const ps_record_sink_t *sink,
                   ps_scan_stats_t *st, ps_progress_fn progress, void *progress_ctx, ps_err_t *err)
{
    if (sink && (sink->rows ? !s->e->scan_sites : !s->e->scan_records)) {
        ps_engine_info_t in;
        ps_engine_info(s->e, &in);
        return ps_fail(err, PS_E_INTERNAL, "the %s engine cannot %s", ps_engine_ran(&in),
                       sink->rows ? "place its sites" : "count per record");
    }
    double t0 = ps_now();
    ps_reader_t *r = NULL;
    int rc = ps_reader_open(&r, path, s->lv->alpha, s->lv->k, s->o.threads > 1 ? s->pool : NULL, err);
    if (rc < 0) return rc;
    int blocks = 0;
    /* Sets of several lengths or of sites owned by their starts take blocks
     * of whole records (blocks.h) where records are proteins (a genome's
     * records would make blocks of chromosomes): always where they are
     * counted (no sink, or rows only counted), so that the reading thread
     * only cuts the input (it parsed 530 Mresidues/s in order, the bound of
     * a GPU run); where their rows are written, on CPU threads only (a
     * sink's rows: no junction to count), as a GPU's rows written from
     * blocks ran 1.4x slower than from chunks read in order. A GPU gets
     * blocks of 4 MiB, of about the chunks its kernels like. */
    ps_engine_info_t ein;
    ps_engine_info(s->e, &ein);
    const int whole = s->lv->mixed_lengths || s->lv->sequential;
    const int protein_blocks =
        s->lv->alpha == PS_PROTEIN &&
        (!sink || (sink->rows && (sink->rows_counted || ein.kind == PS_ENGINE_CPU)));
    if ((!sink || sink->emit_block) && s->o.threads > 1 && (!whole || protein_blocks)) {
        blocks = ps_reader_is_fasta(r, err);
        if (blocks < 0) {
            ps_reader_close(r);
            return blocks;
        }
        if (blocks && whole && ein.kind != PS_ENGINE_CPU && !s->o.block_bytes && !s->block_max_given && !s->blocks)
            s->o.block_max = BLOCK_BYTES_GPU;
    }
    s->sink = sink;
    if (sink && sink->free_rows) s->free_rows = sink->free_rows;
    s->failed = 0;
    s->in_flight = 0;
    s->bl = NULL;
    /* Room for every slot twice over: htslib's workers take no new job while
     * the output queue is near full, and results wait there for the
     * reading thread. Memory is bounded by the slots, not by this. */
    size_t qsize = 2 * ((blocks ? block_slots(s) : (size_t)(s->o.ring > 0 ? s->o.ring : 1)) + 1);
    if (!(s->q = hts_tpool_process_init(s->pool, (int)qsize, 0))) {
        ps_reader_close(r);
        return ps_fail(err, PS_E_INTERNAL, "cannot create a work queue");
    }
    rc = blocks ? read_blocks(s, r, block_size(s, r), progress, progress_ctx, err)
                : read_chunks(s, r, progress, progress_ctx, err);
    while (s->in_flight) take_result(s, 1);
    if (blocks && !s->failed) flush_junction(s);
    /* A failed job comes before a failed read: it is earlier in the input. */
    if (s->failed) {
        *err = s->err;
        rc = s->err.code;
    }
    if (rc == PS_OK && !sink) rc = s->e->collect(s->e, leaf_counts, err);
    if (rc != PS_OK && !sink) {
        /* Drain what the failed scan counted, so that a later scan with the
         * same engine starts from zero. */
        uint64_t *scratch = calloc(s->lv->n_leaves, sizeof *scratch);
        ps_err_t ignored;
        if (scratch) s->e->collect(s->e, scratch, &ignored);
        free(scratch);
    }
    if (rc == PS_OK && st) {
        st->in = *ps_reader_stats(r);
        if (blocks) ps_blocks_counts(s->bl, &st->in);
        st->seconds = ps_now() - t0;
    }
    hts_tpool_process_destroy(s->q);
    s->q = NULL;
    ps_blocks_free(s->bl);
    s->bl = NULL;
    ps_reader_close(r);
    return rc;
}

int ps_scan_file(ps_engine_t *e, const ps_leaves_t *lv, const char *path, const ps_scan_opts_t *o,
                 uint64_t *leaf_counts, const ps_record_sink_t *sink, ps_scan_stats_t *st, ps_progress_fn progress,
                 void *progress_ctx, ps_err_t *err)
{
    ps_scanner_t *s;
    int rc = ps_scanner_new(&s, e, lv, o, err);
    if (rc < 0) return rc;
    rc = ps_scanner_run(s, path, leaf_counts, sink, st, progress, progress_ctx, err);
    ps_scanner_free(s);
    return rc;
}

/* ---- several inputs at once --------------------------------------------- */

typedef struct {
    hts_tpool *pool;
    const ps_leaves_t *lv;
    const ps_scan_opts_t *o;
    const char *const *inputs;
    const size_t *col;
    uint64_t *leaf_counts;
    ps_scan_stats_t *st;
    int n_inputs;
    pthread_mutex_t lock;     /* guards next, failed_at, err and leaf_counts */
    int next;                 /* the next input to claim */
    int failed_at;            /* the first input (in input order) that failed; n_inputs: none */
    ps_err_t err;
} inputs_t;

typedef struct {
    inputs_t *in;
    ps_engine_t *e;
    int rc;                   /* set-up failure of this reader */
    ps_err_t err;
} reader_arg_t;

/* One reading thread: claims inputs in order, scans each into its own
 * counts, adds them to the input's column under the lock. An input after
 * one that failed is not started. */
static void *reader_main(void *arg)
{
    reader_arg_t *ra = arg;
    inputs_t *in = ra->in;
    ps_scanner_t *s = NULL;
    uint64_t *mine = calloc(in->lv->n_leaves ? in->lv->n_leaves : 1, sizeof *mine);
    if (!mine) ra->rc = ps_fail(&ra->err, PS_E_NOMEM, "out of memory for counts");
    else ra->rc = ps_scanner_new_on(&s, ra->e, in->lv, in->o, in->pool, &ra->err);
    for (;;) {
        pthread_mutex_lock(&in->lock);
        int i = in->next < in->failed_at ? in->next++ : in->n_inputs;
        if (ra->rc < 0 && i < in->n_inputs) {
            /* A reader that could not start fails the input it would read. */
            if (i < in->failed_at) {
                in->failed_at = i;
                in->err = ra->err;
            }
            i = in->n_inputs;
        }
        pthread_mutex_unlock(&in->lock);
        if (i >= in->n_inputs) break;
        ps_err_t err = {0};
        memset(mine, 0, in->lv->n_leaves * sizeof *mine);
        int rc = ps_scanner_run(s, in->inputs[i], mine, NULL, &in->st[i], NULL, NULL, &err);
        pthread_mutex_lock(&in->lock);
        if (rc < 0) {
            if (i < in->failed_at) {
                in->failed_at = i;
                in->err = err;
            }
        } else {
            uint64_t *to = in->leaf_counts + in->col[i] * in->lv->n_leaves;
            for (uint32_t l = 0; l < in->lv->n_leaves; l++) to[l] += mine[l];
        }
        pthread_mutex_unlock(&in->lock);
    }
    ps_scanner_free(s);
    free(mine);
    return NULL;
}

int ps_scan_inputs(ps_engine_t *const *engines, int readers, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                   const char *const *inputs, int n_inputs, const size_t *col, uint64_t *leaf_counts,
                   ps_scan_stats_t *st, ps_err_t *err)
{
    if (readers < 1 || o->threads < 1) return ps_fail(err, PS_E_INTERNAL, "a scan needs a reader and a thread");
    /* Each reader's buffers a readers-th of one scanner's, so that all of
     * them together stay within the bound of one (scan.h). */
    ps_scan_opts_t shared = *o;
    shared.block_max = BLOCK_BYTES_MAX / (size_t)readers; /* at least BLOCK_BYTES_MIN: ps_scanner_new_on */
    if (shared.block_bytes > shared.block_max) shared.block_bytes = shared.block_max;
    /* ... and a readers-th of the slots in flight (a few at least), so
     * that many readers of a large budget do not grow with its square. */
    shared.block_slots = (2 * o->threads + 2 + readers - 1) / readers;
    if (shared.block_slots < 4) shared.block_slots = 4;
    if (shared.ring > 0) {
        shared.ring = (shared.ring + readers - 1) / readers;
        if (shared.ring < 2) shared.ring = 2;
    }
    uint64_t cs = shared.chunk_syms / (uint64_t)readers, cs_min = 1u << 16;
    if (cs_min < 2 * (uint64_t)lv->k) cs_min = 2 * (uint64_t)lv->k;
    shared.chunk_syms = cs > cs_min ? cs : shared.chunk_syms < cs_min ? shared.chunk_syms : cs_min;
    inputs_t in = {.lv = lv, .o = &shared, .inputs = inputs, .col = col, .leaf_counts = leaf_counts, .st = st,
                   .n_inputs = n_inputs, .failed_at = n_inputs};
    reader_arg_t *ra = calloc((size_t)readers, sizeof *ra);
    pthread_t *tid = calloc((size_t)readers, sizeof *tid);
    if (!ra || !tid) {
        free(ra);
        free(tid);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    if (pthread_mutex_init(&in.lock, NULL)) {
        free(ra);
        free(tid);
        return ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
    }
    int rc = PS_OK, started = 0;
    if (!(in.pool = hts_tpool_init(o->threads))) rc = ps_fail(err, PS_E_INTERNAL, "cannot start %d threads", o->threads);
    for (int j = 0; rc == PS_OK && j < readers; j++) {
        ra[j] = (reader_arg_t){.in = &in, .e = engines[j]};
        if (pthread_create(&tid[j], NULL, reader_main, &ra[j])) {
            /* The readers already started read every input between them. */
            if (!started) rc = ps_fail(err, PS_E_INTERNAL, "cannot start a reading thread");
            break;
        }
        started++;
    }
    for (int j = 0; j < started; j++) pthread_join(tid[j], NULL);
    if (rc == PS_OK && in.failed_at < n_inputs) {
        *err = in.err;
        rc = in.err.code;
    }
    if (in.pool) hts_tpool_destroy(in.pool);
    pthread_mutex_destroy(&in.lock);
    free(ra);
    free(tid);
    return rc;
}
