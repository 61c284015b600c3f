/* hits.h - where a CPU engine's worker puts what it finds: leaf counts
 * (count), leaf counts a record at a time (count --by-record), or sites
 * (locate), one worker each, with the engine operations that drive them.
 *
 * An engine that scans a range of a chunk with one function, scan(ctx, h,
 * c, from, to), each find added by ps_hits_add, gets its scan, collect,
 * scan_records and scan_sites from ps_hits_scan, ps_hits_collect,
 * ps_hits_records and ps_hits_sites. Counts are the worker's until
 * collected; a record's counts are moved out as its hits. */
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
    uint32_t *touched; /* by record: leaves counted in the current record (NULL: not by record) */
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

typedef void (*ps_hits_scan_fn)(const void *ctx, ps_hits_t *h, const ps_chunk_t *c, uint64_t from, uint64_t to);

/* n workers' sinks with n_leaves counts each (calloc'd; NULL: out of memory). */
ps_hits_t *ps_hits_new(int n, uint32_t n_leaves);
void ps_hits_free(ps_hits_t *h, int n);

/* The whole chunk counted by worker h. */
void ps_hits_scan(ps_hits_t *h, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c);
/* Adds n workers' counts into leaf_counts and zeroes them. */
void ps_hits_collect(ps_hits_t *h, int n, uint64_t *leaf_counts, uint32_t n_leaves);
/* The chunk's hits record by record into rh (cleared first). */
int ps_hits_records(ps_hits_t *h, uint32_t n_leaves, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c,
                    ps_rec_hits_t *rh, ps_err_t *err);
/* The chunk's sites into out (cleared first). */
int ps_hits_sites(ps_hits_t *h, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c, ps_sites_t *out,
                  ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
