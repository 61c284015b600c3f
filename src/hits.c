#include "hits.h"

#include <stdlib.h>

ps_hits_t *ps_hits_new(int n, uint32_t n_leaves)
{
    ps_hits_t *h = calloc((size_t)n, sizeof *h);
    for (int t = 0; h && t < n; t++)
        if (!(h[t].counts = calloc(n_leaves ? n_leaves : 1, sizeof *h[t].counts))) {
            ps_hits_free(h, t);
            return NULL;
        }
    return h;
}

void ps_hits_free(ps_hits_t *h, int n)
{
    for (int t = 0; h && t < n; t++) {
        free(h[t].counts);
        free(h[t].touched);
    }
    free(h);
}

void ps_hits_scan(ps_hits_t *h, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c)
{
    scan(ctx, h, c, 0, c->n);
}

void ps_hits_collect(ps_hits_t *h, int n, uint64_t *leaf_counts, uint32_t n_leaves)
{
    for (int t = 0; t < n; t++) ps_counts_drain(leaf_counts, h[t].counts, n_leaves);
}

int ps_hits_records(ps_hits_t *h, uint32_t n_leaves, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c,
                    ps_rec_hits_t *rh, ps_err_t *err)
{
    if (!h->touched && !(h->touched = malloc((n_leaves ? n_leaves : 1) * sizeof *h->touched)))
        return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
    /* The worker's counts hold one record's at a time here. */
    rh->n_span = 0;
    rh->n_hit = 0;
    h->by_record = 1;
    int rc = PS_OK;
    for (uint32_t j = 0; j < c->n_rec && rc == PS_OK; j++) {
        uint64_t to = j + 1 < c->n_rec ? c->rec_pos[j + 1] : c->n;
        h->n_touched = 0;
        scan(ctx, h, c, c->rec_pos[j], to);
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
    return rc;
}

int ps_hits_sites(ps_hits_t *h, ps_hits_scan_fn scan, const void *ctx, const ps_chunk_t *c, ps_sites_t *out,
                  ps_err_t *err)
{
    out->n = 0;
    h->sites = out;
    h->oom = 0;
    scan(ctx, h, c, 0, c->n);
    h->sites = NULL;
    if (h->oom) return ps_fail(err, PS_E_NOMEM, "out of memory for the sites of a chunk");
    return PS_OK;
}
