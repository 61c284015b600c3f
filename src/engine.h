/* engine.h - what a scanning engine (CPU or GPU) offers the pipeline.
 *
 * The pipeline (scan.h) fills chunks on one reader thread and hands each to
 * one of n_workers worker threads, which call scan(); workers run
 * concurrently, each with its own id in [0, n_workers). An engine keeps its
 * leaf counts to itself (per thread, or on the GPU) until collect(), which
 * waits for all submitted work, adds the counts since the last collect into
 * leaf_counts[0..n_leaves) and zeroes its own. Chunks come from `chunk_alloc`
 * (pinned host memory for the GPU) and are sized `chunk_syms` symbols. */
#ifndef PS_ENGINE_H
#define PS_ENGINE_H

#include <stdint.h>

#include "error.h"
#include "pack.h"

typedef struct ps_engine ps_engine_t;

/* Per-record hits of one chunk, for --by-record: for each record listed in
 * the chunk that has hits, span[i] names the record (its index in the
 * chunk's record list) and its hits leaf[first..first+n) with count[...],
 * in no particular order. */
typedef struct {
    uint32_t rec, first, n;
} ps_rec_span_t;

typedef struct {
    ps_rec_span_t *span;
    uint32_t n_span, cap_span;
    uint32_t *leaf;
    uint64_t *count;
    uint64_t n_hit, cap_hit;
} ps_rec_hits_t;

void ps_rec_hits_free(ps_rec_hits_t *h);

struct ps_engine {
    const char *name;           /* "cpu" or "gpu" */
    char device[160];           /* what it runs on, for -v and --stats */
    int n_workers;              /* worker threads the pipeline should start */
    uint64_t chunk_syms;        /* preferred chunk capacity in symbols */
    uint32_t chunk_restarts;    /* preferred restart capacity per chunk */
    int chunks_per_worker;      /* chunks in flight per worker (ring depth) */
    size_t block_bytes;         /* read block for parallel FASTA packing; 0 = default */
    ps_allocator_t chunk_alloc; /* how chunk buffers are allocated */
    int (*scan)(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err);
    int (*collect)(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err);
    /* Optional: fills h (cleared first) with c's hits per record; NULL when
     * the engine cannot attribute hits to records. */
    int (*scan_records)(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err);
    void (*destroy)(ps_engine_t *e);
    void *impl;
};

static inline void ps_engine_destroy(ps_engine_t *e)
{
    if (e && e->destroy) e->destroy(e);
}

#endif
