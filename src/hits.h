/* hits.h - where a CPU engine's worker puts what it finds: leaf counts
 * (count), leaf counts a record at a time (count --by-record), or sites
 * (locate), one worker each; and the engine operations around them.
 *
 * An engine whose work is one function over a segment of a chunk (pack.h:
 * no restart inside), each find added by ps_hits_add, starts its engine
 * struct with a ps_hits_engine_t and takes its scan, collect, scan_sites
 * (and scan_records) from ps_hits_engine_ops: a chunk, or a record of it,
 * is cut into segments here. Counts are the worker's until collected; a
 * record's counts are moved out as its hits. */
#ifndef PS_HITS_H
#define PS_HITS_H

#include <stdint.h>

#include "engine.h"
#include "error.h"
#include "pack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t *counts;  /* n_leaves */
    uint32_t *touched; /* by record: leaves counted in the current record */
    uint32_t n_touched;
    int by_record;
    ps_sites_t *sites; /* listing: where the sites go; NULL: counting */
    int oom;
} ps_hits_t;

/* A find: the site starting at `start` of the chunk, of leaf `leaf`. */
static inline void ps_hits_add(ps_hits_t *h, uint32_t leaf, uint64_t start)
{
    if (h->sites) {
        ps_sites_t *s = h->sites;
        ps_err_t ignored;
        if (s->n == s->cap && ps_sites_reserve(s, 1, &ignored) < 0) {
            h->oom = 1;
            return;
        }
        s->pos[s->n] = (uint32_t)start;
        s->leaf[s->n++] = leaf;
        return;
    }
    if (h->by_record && h->counts[leaf] == 0) h->touched[h->n_touched++] = leaf;
    h->counts[leaf]++;
}

/* The engine's work on segment [s0, s1) of c, for worker h (one of its
 * ps_hits_engine_t's h); engine is the engine struct. */
typedef void (*ps_hits_segment_fn)(const void *engine, ps_hits_t *h, const ps_chunk_t *c, uint64_t s0, uint64_t s1);

typedef struct {
    ps_hits_t *h;                /* per worker */
    int threads;
    uint32_t n_leaves;
    ps_hits_segment_fn segment;
    uint64_t chunks;             /* chunks scanned (atomic), for info() */
} ps_hits_engine_t;

/* Sets b up for `threads` workers with n_leaves counts each. */
int ps_hits_engine_init(ps_hits_engine_t *b, int threads, uint32_t n_leaves, ps_hits_segment_fn segment,
                        ps_err_t *err);
void ps_hits_engine_free(ps_hits_engine_t *b);
/* e's scan, collect and scan_sites, and scan_records where by_record; e->impl
 * starts with an initialised ps_hits_engine_t. */
void ps_hits_engine_ops(ps_engine_t *e, int by_record);
uint64_t ps_hits_engine_chunks(const ps_hits_engine_t *b);

#ifdef __cplusplus
}
#endif

#endif
