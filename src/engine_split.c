#include "engine_split.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    ps_engine_t *part[2];
    uint32_t *map[2];
    uint32_t n[2];
    uint64_t *tmp; /* the larger part's leaf counts, for collect */
} split_t;

static int split_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    split_t *sp = e->impl;
    int rc = sp->part[0]->scan(sp->part[0], worker, c, err);
    return rc < 0 ? rc : sp->part[1]->scan(sp->part[1], worker, c, err);
}

static int split_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    split_t *sp = e->impl;
    for (int k = 0; k < 2; k++) {
        memset(sp->tmp, 0, (size_t)sp->n[k] * sizeof *sp->tmp);
        int rc = sp->part[k]->collect(sp->part[k], sp->tmp, err);
        if (rc < 0) return rc;
        for (uint32_t l = 0; l < sp->n[k]; l++) leaf_counts[sp->map[k][l]] += sp->tmp[l];
    }
    return PS_OK;
}

static void split_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const split_t *sp = e->impl;
    ps_engine_info_t b;
    sp->part[0]->info(sp->part[0], out);
    sp->part[1]->info(sp->part[1], &b);
    out->chunks_cpu += b.chunks_cpu;
    out->patterns = 1;
    out->split = 1;
}

static void split_destroy(ps_engine_t *e)
{
    split_t *sp = e->impl;
    if (sp) {
        for (int k = 0; k < 2; k++) {
            ps_engine_destroy(sp->part[k]);
            free(sp->map[k]);
        }
        free(sp->tmp);
    }
    free(sp);
    free(e);
}

int ps_split_engine_new(ps_engine_t **out, ps_engine_t *a, uint32_t *map_a, uint32_t n_a, ps_engine_t *b,
                        uint32_t *map_b, uint32_t n_b, ps_err_t *err)
{
    *out = NULL;
    ps_engine_t *e = calloc(1, sizeof *e);
    split_t *sp = calloc(1, sizeof *sp);
    uint32_t most = n_a > n_b ? n_a : n_b;
    uint64_t *tmp = malloc((size_t)(most ? most : 1) * sizeof *tmp);
    if (!e || !sp || !tmp) {
        free(e);
        free(sp);
        free(tmp);
        ps_engine_destroy(a);
        ps_engine_destroy(b);
        free(map_a);
        free(map_b);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    *sp = (split_t){.part = {a, b}, .map = {map_a, map_b}, .n = {n_a, n_b}, .tmp = tmp};
    e->impl = sp;
    e->scan = split_scan;
    e->collect = split_collect;
    e->scan_records = NULL; /* --by-record counts on the CPU alone */
    e->info = split_info;
    e->destroy = split_destroy;
    e->chunk_alloc = a->chunk_alloc;
    *out = e;
    return PS_OK;
}
