#include "engine_guides.h"

#include <stdlib.h>
#include <string.h>

#include "hits.h"

/* The compare loop vectorises where the CPU has AVX-512's popcount
 * (chosen when the program starts); elsewhere popcnt a string. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define WIDE __attribute__((target_clones("arch=icelake-server", "popcnt", "default")))
#define POPCNT __attribute__((target_clones("popcnt", "default")))
#else
#define WIDE
#define POPCNT
#endif


/* The strings [a, b) against window code x ending at p: a flag per string
 * within its limit, in one pass that vectorises; the rare hits after. */
WIDE static uint32_t compare(const ps_guideset_t *g, uint32_t a, uint32_t b, uint64_t x, uint8_t *d_out)
{
    const uint64_t *code = g->code, *care = g->care;
    const uint8_t *lim = g->lim;
    uint32_t any = 0;
    for (uint32_t i = a; i < b; i++) {
        const uint64_t y = (x ^ code[i]) & care[i];
        const uint32_t d = (uint32_t)__builtin_popcountll((y | y >> 1) & 0x5555555555555555ull);
        d_out[i - a] = (uint8_t)d;
        any |= d <= lim[i];
    }
    return any;
}

/* Lookups in a piece index, pipelined: a window's seeds' bucket bounds
 * are fetched when it is queued, their first entries when the next is,
 * and its strings compared when the one after is, so that the cache misses
 * of several windows' independent lookups overlap instead of queueing one
 * behind another. The compares run in queue order, so hits keep the
 * windows' order. */
typedef struct {
    const ps_guide_pieces_t *ix;
    uint64_t x, start;
    const uint32_t *bound[PS_GUIDESET_MAX_SEEDS];
    const ps_guide_entry_t *at[PS_GUIDESET_MAX_SEEDS], *end[PS_GUIDESET_MAX_SEEDS];
} look_t;

typedef struct {
    look_t slot[4];
    uint64_t n; /* lookups queued */
} lookq_t;

static inline __attribute__((always_inline)) void look_bounds(look_t *l)
{
    const ps_guide_pieces_t *ix = l->ix;
    for (uint32_t s = 0; s < ix->n; s++) {
        const ps_guide_entry_t *base = ix->ent + (size_t)s * ix->strings;
        l->at[s] = base + l->bound[s][0];
        l->end[s] = base + l->bound[s][1];
        __builtin_prefetch(l->at[s]);
    }
}

/* Each string of window l's buckets compared at every seed whose bucket
 * holds it, reported at its first. */
static inline __attribute__((always_inline)) void look_compare(const look_t *l, ps_hits_t *w)
{
    const ps_guide_pieces_t *ix = l->ix;
    const uint64_t x = l->x;
    for (uint32_t s = 0; s < ix->n; s++)
        for (const ps_guide_entry_t *e = l->at[s]; e < l->end[s]; e++) {
            const uint64_t diff = (x ^ e->code) & ix->care;
            const uint32_t d = (uint32_t)__builtin_popcountll((diff | diff >> 1) & 0x5555555555555555ull);
            if (d <= e->lim && ps_guide_first_seed(ix, s, diff)) ps_hits_add(w, e->leaf + d, l->start);
        }
}

/* Queues window x (starting at start) for index ix. */
static inline __attribute__((always_inline)) void look_push(lookq_t *q, ps_hits_t *w, const ps_guide_pieces_t *ix,
                                                            uint64_t x, uint64_t start)
{
    look_t *l = &q->slot[q->n & 3];
    const size_t row = ((size_t)1 << ix->bits) + 1;
    l->ix = ix;
    l->x = x;
    l->start = start;
    for (uint32_t s = 0; s < ix->n; s++) {
        l->bound[s] = ix->start + s * row + ps_guide_seed_key(ix, s, x);
        __builtin_prefetch(l->bound[s]);
    }
    if (q->n >= 1) look_bounds(&q->slot[(q->n - 1) & 3]);
    if (q->n >= 2) look_compare(&q->slot[(q->n - 2) & 3], w);
    q->n++;
}

/* Finishes the lookups still queued. */
static void look_drain(lookq_t *q, ps_hits_t *w)
{
    if (q->n >= 2) look_compare(&q->slot[(q->n - 2) & 3], w);
    if (q->n >= 1) {
        look_bounds(&q->slot[(q->n - 1) & 3]);
        look_compare(&q->slot[(q->n - 1) & 3], w);
    }
    q->n = 0;
}

typedef struct {
    ps_hits_engine_t base; /* first: hits.h's operations take the engine as it */
    const ps_patset_t *ps;
    ps_guideset_t *g;
    uint8_t **dd;      /* per worker: the mismatches of each string of a strand against a window */
    lookq_t **q;       /* per worker: its piece lookups in flight */
} gen_t;

/* The windows ending in [seg, to) of one segment that starts at seg
 * (ps_hits_segment_fn). */
POPCNT static void scan_segment(const void *engine, ps_hits_t *w, const ps_chunk_t *c, uint64_t seg, uint64_t to)
{
    const gen_t *ge = engine;
    uint8_t *dd = ge->dd[w - ge->base.h];
    const ps_guideset_t *g = ge->g;
    const uint32_t m = g->m;
    const uint64_t full = m == 32 ? ~0ull : (1ull << (2 * m)) - 1, pm = g->pam_mask;
    const uint32_t sh0 = g->pam_shift[0], sh1 = g->pam_shift[1];
    const uint32_t ranges[2][2] = {{0, g->n_plus}, {g->n_plus, g->n}};
    uint64_t x = 0, p = seg;
    /* The first m - 1 symbols, and those of the context, end no counted window. */
    const uint64_t first = seg + m - 1 > c->n_ctx ? seg + m - 1 : c->n_ctx;
    for (; p < to && p < first; p++) x = (x << 2 | ps_chunk_sym(c, p)) & full;
    lookq_t *q = ge->q[w - ge->base.h];
    q->n = 0;
    if (g->joint) {
        for (; p < to; p++) {
            x = (x << 2 | ps_chunk_sym(c, p)) & full;
            look_push(q, w, &g->pieces[0], x, p + 1 - m);
        }
        look_drain(q, w);
        return;
    }
    for (; p < to; p++) {
        x = (x << 2 | ps_chunk_sym(c, p)) & full;
        for (int s = 0; s < 2; s++) {
            if (ranges[s][0] == ranges[s][1] || !ps_guideset_pam(g, s, x >> (s ? sh1 : sh0) & pm)) continue;
            if (g->pieces[s].n) {
                look_push(q, w, &g->pieces[s], x, p + 1 - m);
                continue;
            }
            const uint32_t a = ranges[s][0], b = ranges[s][1];
            if (!compare(g, a, b, x, dd)) continue;
            for (uint32_t i = a; i < b; i++)
                if (dd[i - a] <= g->lim[i]) ps_hits_add(w, g->leaf[i] + dd[i - a], p + 1 - m);
        }
    }
    look_drain(q, w);
}

static void gen_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const gen_t *ge = e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_CPU;
    out->workers = ge->base.threads;
    out->gpu_id = -1;
    out->patterns = 1;
    out->guides = 1;
    const ps_guide_pieces_t *ix = ge->g->pieces[0].n ? &ge->g->pieces[0] : &ge->g->pieces[1];
    out->guide_need = ix->need;
    out->guide_pieces = ix->pieces;
    out->guide_seeds = ix->n;
    out->chunks_cpu = ps_hits_engine_chunks(&ge->base);
}

static void gen_destroy(ps_engine_t *e)
{
    gen_t *ge = e->impl;
    if (ge) {
        for (int t = 0; t < ge->base.threads && ge->dd; t++) free(ge->dd[t]);
        for (int t = 0; t < ge->base.threads && ge->q; t++) free(ge->q[t]);
        free(ge->q);
        ps_hits_engine_free(&ge->base);
        free(ge->dd);
        ps_guideset_free(ge->g);
    }
    free(ge);
    free(e);
}

int ps_guide_engine_new(ps_engine_t **out, const ps_patset_t *ps, int threads, char *why, size_t len, ps_err_t *err)
{
    *out = NULL;
    ps_guideset_t *g = NULL;
    int rc = ps_guideset_build(&g, ps, ps->guide_need, PS_GUIDESET_TABLES, threads, why, len, err);
    if (rc != PS_OK) return rc;
    ps_engine_t *e = calloc(1, sizeof *e);
    gen_t *ge = calloc(1, sizeof *ge);
    if (!e || !ge) {
        free(e);
        free(ge);
        ps_guideset_free(g);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    e->impl = ge;
    ge->ps = ps;
    ge->g = g;
    ps_hits_engine_ops(e, 1);
    e->info = gen_info;
    e->destroy = gen_destroy;
    if ((rc = ps_hits_engine_init(&ge->base, threads, ps->leaves.n_leaves, scan_segment, err)) < 0) {
        gen_destroy(e);
        return rc;
    }
    if (!(ge->dd = calloc((size_t)threads, sizeof *ge->dd)) || !(ge->q = calloc((size_t)threads, sizeof *ge->q)))
        goto nomem;
    for (int t = 0; t < threads; t++)
        if (!(ge->dd[t] = malloc(g->n ? g->n : 1)) || !(ge->q[t] = malloc(sizeof *ge->q[t]))) goto nomem;
    *out = e;
    return PS_OK;
nomem:
    gen_destroy(e);
    return ps_fail(err, PS_E_NOMEM, "out of memory for the guide engine's counts");
}
