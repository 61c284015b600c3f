#include "hits.h"

#include <stdlib.h>

int ps_hits_engine_init(ps_hits_engine_t *b, int threads, uint32_t n_leaves, ps_hits_segment_fn segment,
                        ps_err_t *err)
{
    b->threads = threads;
    b->n_leaves = n_leaves;
    b->segment = segment;
    b->chunks = 0;
    if (!(b->h = calloc((size_t)threads, sizeof *b->h))) return ps_fail(err, PS_E_NOMEM, "out of memory for counts");
    for (int t = 0; t < threads; t++)
        if (!(b->h[t].counts = calloc(n_leaves ? n_leaves : 1, sizeof *b->h[t].counts)))
            return ps_fail(err, PS_E_NOMEM, "out of memory for counts");
    return PS_OK;
}

void ps_hits_engine_free(ps_hits_engine_t *b)
{
    for (int t = 0; b->h && t < b->threads; t++) {
        free(b->h[t].counts);
        free(b->h[t].touched);
    }
    free(b->h);
    b->h = NULL;
}

uint64_t ps_hits_engine_chunks(const ps_hits_engine_t *b) { return __atomic_load_n(&b->chunks, __ATOMIC_RELAXED); }

/* [from, to) of c, segment by segment. */
static void scan_range(const ps_hits_engine_t *b, ps_hits_t *h, const ps_chunk_t *c, uint64_t from, uint64_t to)
{
    uint32_t r = ps_chunk_restart_after(c, from);
    uint64_t seg = from;
    while (seg < to) {
        uint64_t end = r < c->n_restart && c->restart[r] < to ? c->restart[r] : to;
        if (end > seg) b->segment(b, h, c, seg, end);
        seg = end;
        r++;
    }
}

static int op_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    (void)err;
    ps_hits_engine_t *b = e->impl;
    scan_range(b, &b->h[worker], c, 0, c->n);
    __atomic_fetch_add(&b->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static int op_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    (void)err;
    ps_hits_engine_t *b = e->impl;
    for (int t = 0; t < b->threads; t++) ps_counts_drain(leaf_counts, b->h[t].counts, b->n_leaves);
    return PS_OK;
}

static int op_scan_records(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *rh, ps_err_t *err)
{
    ps_hits_engine_t *b = e->impl;
    ps_hits_t *h = &b->h[worker];
    if (!h->touched && !(h->touched = malloc((b->n_leaves ? b->n_leaves : 1) * sizeof *h->touched)))
        return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
    /* The worker's counts hold one record's at a time here. */
    rh->n_span = 0;
    rh->n_hit = 0;
    h->by_record = 1;
    int rc = PS_OK;
    for (uint32_t j = 0; j < c->n_rec && rc == PS_OK; j++) {
        uint64_t to = j + 1 < c->n_rec ? c->rec_pos[j + 1] : c->n;
        h->n_touched = 0;
        scan_range(b, h, c, c->rec_pos[j], to);
        if (!h->n_touched) continue;
        if ((rc = ps_rec_hits_reserve(rh, h->n_touched, err)) < 0) break;
        rh->span[rh->n_span++] = (ps_rec_span_t){j, (uint32_t)rh->n_hit, h->n_touched};
        for (uint32_t i = 0; i < h->n_touched; i++) {
            uint32_t l = h->touched[i];
            rh->leaf[rh->n_hit] = l;
            rh->count[rh->n_hit++] = h->counts[l];
            h->counts[l] = 0;
        }
    }
    h->by_record = 0;
    if (rc == PS_OK) __atomic_fetch_add(&b->chunks, 1, __ATOMIC_RELAXED);
    return rc;
}

static int op_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    ps_hits_engine_t *b = e->impl;
    ps_hits_t *h = &b->h[worker];
    out->n = 0;
    h->sites = out;
    h->oom = 0;
    scan_range(b, h, c, 0, c->n);
    h->sites = NULL;
    if (h->oom) return ps_fail(err, PS_E_NOMEM, "out of memory for the sites of a chunk");
    __atomic_fetch_add(&b->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

void ps_hits_engine_ops(ps_engine_t *e, int by_record)
{
    e->scan = op_scan;
    e->collect = op_collect;
    e->scan_sites = op_scan_sites;
    e->scan_records = by_record ? op_scan_records : NULL;
}
