#include "engine_bulges.h"

#include <stdlib.h>
#include <string.h>

#include "hits.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define POPCNT __attribute__((target_clones("popcnt", "default")))
#define WIDE __attribute__((target_clones("arch=icelake-server", "popcnt", "default")))
#else
#define POPCNT
#define WIDE
#endif

#define EVEN 0x5555555555555555ull

typedef struct bound bound_t;

typedef struct {
    ps_hits_engine_t base; /* first: hits.h's operations take the engine as it */
    const ps_bulgeset_t *b;
    bound_t *bd;
    uint64_t **m0;     /* per worker and guide: its mismatch mask against the window, no bulge */
    uint8_t **flag;    /* per worker and guide: within reach of a site (pass 1) */
} gen_t;

/* Positions p < j of an n-position mask, and positions p >= x. */
static inline uint64_t pre(uint32_t n, uint32_t j) { return ((1ull << (2 * n)) - 1) & ~((1ull << (2 * (n - j))) - 1); }
static inline uint64_t suf(uint32_t n, uint32_t x) { return x >= n ? 0 : (1ull << (2 * (n - x))) - 1; }
static inline uint32_t pc(uint64_t x) { return (uint32_t)__builtin_popcountll(x); }

/* The bound of class c >= 1 for guide g (bulges.h: count(j) = |A before j|
 * + |B from j + del|): with h the middle position, a site at j >= h costs at
 * least |A before h|, one at j < h at least |B from h - 1 + del|. Laid out
 * a class at a time, a guide a lane. */
struct bound {
    uint64_t *pre, *suf; /* per class and guide: the masks */
    uint8_t *pen;        /* 64 where no j < h exists (that side has no bound) */
    int8_t *lim;         /* the guide's limit, -1 where the class has no position */
};

/* Pass 1, no bulge: each guide's mismatch mask m0, and the flag of those
 * within their limit. */
WIDE static void pass_x(const ps_bulgeset_t *b, uint64_t v0, int valid, uint64_t *m0, uint8_t *flag)
{
    const uint64_t *code = b->code, *care = b->care;
    const uint8_t *lim = b->lim;
    for (uint32_t g = 0; g < b->n_guides; g++) {
        const uint64_t t = (v0 ^ code[g]) & care[g], m = (t | t >> 1) & EVEN;
        m0[g] = m;
        flag[g] = (uint8_t)(valid & ((uint32_t)__builtin_popcountll(m) <= lim[g]));
    }
}

/* Pass 1, class c: flags the guides whose bound fits their limit. */
WIDE static void pass_c(const ps_bulgeset_t *b, const bound_t *bd, uint32_t c, uint64_t vc, const uint64_t *m0,
                        uint8_t *flag)
{
    const uint32_t G = b->n_guides;
    const uint64_t *code = b->code, *care = b->care, *pre = bd->pre + (size_t)c * G, *suf = bd->suf + (size_t)c * G;
    const uint8_t *pen = bd->pen + (size_t)c * G;
    const int8_t *lim = bd->lim + (size_t)c * G;
    if (b->pam5) {
        for (uint32_t g = 0; g < G; g++) {
            const uint64_t t = (vc ^ code[g]) & care[g], ms = (t | t >> 1) & EVEN;
            const int lo = __builtin_popcountll(m0[g] & pre[g]), hi = __builtin_popcountll(ms & suf[g]) + pen[g];
            flag[g] |= (uint8_t)((lo < hi ? lo : hi) <= lim[g]);
        }
    } else {
        for (uint32_t g = 0; g < G; g++) {
            const uint64_t t = (vc ^ code[g]) & care[g], ms = (t | t >> 1) & EVEN;
            const int lo = __builtin_popcountll(ms & pre[g]), hi = __builtin_popcountll(m0[g] & suf[g]) + pen[g];
            flag[g] |= (uint8_t)((lo < hi ? lo : hi) <= lim[g]);
        }
    }
}

/* Pass 2, a flagged guide: its sites, each class at its best position (or
 * every position within the limit). */
static void exact(const ps_bulgeset_t *b, ps_hits_t *w, uint32_t g, uint64_t v0, const uint64_t *vs, int s,
                  const int *valid, const uint64_t *start)
{
    const uint32_t n = b->n, C = b->n_classes, dna = (uint32_t)b->dna;
    const uint32_t strands = b->leaves.both_strands ? 2u : 1u, levels = (uint32_t)b->leaves.levels;
    const uint64_t code = b->code[g], care = b->care[g];
    const uint32_t lim = b->lim[g];
    uint64_t t = (v0 ^ code) & care;
    const uint64_t m0 = (t | t >> 1) & EVEN;
    const uint32_t d0 = pc(m0);
    const uint32_t *at = b->var_at + (size_t)g * C;
    if (valid[0] && d0 <= lim) ps_hits_add(w, (at[0] * strands + (uint32_t)s) * levels + d0, start[0]);
    for (uint32_t c = 1; c < C; c++) {
        const uint32_t jn = b->jn[(size_t)g * C + c];
        if (!valid[c] || !jn) continue;
        const uint32_t jlo = b->jlo[(size_t)g * C + c], jhi = jlo + jn - 1;
        const uint32_t del = c <= dna ? 0 : c - dna;
        t = (vs[c] ^ code) & care;
        const uint64_t ms = (t | t >> 1) & EVEN;
        const uint64_t A = b->pam5 ? m0 : ms, B = b->pam5 ? ms : m0;
        uint32_t best = lim + 1, best_j = 0;
        for (uint32_t j = jlo; j <= jhi; j++) {
            const uint32_t d = pc(A & pre(n, j)) + pc(B & suf(n, j + del));
            if (d > lim) continue;
            if (b->all_positions) {
                ps_hits_add(w, ((at[c] + j - jlo) * strands + (uint32_t)s) * levels + d, start[c]);
            } else if (d < best) {
                best = d;
                best_j = j;
            }
        }
        if (best <= lim) ps_hits_add(w, ((at[c] + best_j - jlo) * strands + (uint32_t)s) * levels + best, start[c]);
    }
}

/* The window's site on strand s: its spacer region `run` (n + dna bases as
 * the strand reads them; bulges.h), valid[c] where class c's site lies in
 * the segment and ends in this chunk's own part, and each class's start. */
static void test_run(const ps_bulgeset_t *b, const bound_t *bd, ps_hits_t *w, uint64_t *m0, uint8_t *flag,
                     uint64_t run, int s, const int *valid, const uint64_t *start)
{
    const uint32_t n = b->n, C = b->n_classes, dna = (uint32_t)b->dna;
    const uint64_t mask = (1ull << (2 * n)) - 1;
    uint64_t v0, vs[PS_BULGE_CLASSES];
    if (b->pam5) {
        v0 = run >> (2 * dna) & mask;
        for (uint32_t c = 1; c < C; c++)
            vs[c] = c <= dna ? run >> (2 * (dna - c)) & mask : run >> (2 * (dna + (c - dna))) & mask;
    } else {
        v0 = run & mask;
        for (uint32_t c = 1; c < C; c++) vs[c] = c <= dna ? run >> (2 * c) & mask : run << (2 * (c - dna)) & mask;
    }
    pass_x(b, v0, valid[0], m0, flag);
    for (uint32_t c = 1; c < C; c++)
        if (valid[c]) pass_c(b, bd, c, vs[c], m0, flag);
    for (uint32_t g = 0; g < b->n_guides; g++)
        if (flag[g]) exact(b, w, g, v0, vs, s, valid, start);
}

/* The site length of class c. */
static inline uint32_t class_len(const ps_bulgeset_t *b, uint32_t c)
{
    const uint32_t base = b->n + b->a;
    return c == 0 ? base : c <= (uint32_t)b->dna ? base + c : base - (c - (uint32_t)b->dna);
}

/* The sites of segment [s0, s1). The window [e - W, e) is read forward
 * (F) and reverse-complemented (R); for a 3' PAM the plus strand's site
 * ends at e with its PAM (F's last a symbols) and the minus strand's starts
 * at e - W with its PAM (R's last a symbols); a 5' PAM the other way round.
 * Past s1 the window takes padding, which no valid site reaches. */
POPCNT static void scan_segment(const void *engine, ps_hits_t *w, const ps_chunk_t *c, uint64_t s0, uint64_t s1)
{
    const gen_t *ge = engine;
    const ps_bulgeset_t *b = ge->b;
    const bound_t *bd = ge->bd;
    uint64_t *m0 = ge->m0[w - ge->base.h];
    uint8_t *flag = ge->flag[w - ge->base.h];
    const uint32_t W = b->W, a = b->a, C = b->n_classes, Lr = b->n + (uint32_t)b->dna;
    const uint64_t full = W == 32 ? ~0ull : (1ull << (2 * W)) - 1, pm = (1ull << (2 * a)) - 1;
    const uint64_t run_mask = Lr == 32 ? ~0ull : (1ull << (2 * Lr)) - 1;
    const int both = b->leaves.both_strands;
    uint32_t len[PS_BULGE_CLASSES], min_len = ~0u;
    for (uint32_t k = 0; k < C; k++) {
        len[k] = class_len(b, k);
        if (len[k] < min_len) min_len = len[k];
    }
    if (s1 - s0 < min_len) return;
    const uint64_t own = c->n_ctx; /* a site counts here when it ends past the context */
    int valid[PS_BULGE_CLASSES];
    uint64_t start[PS_BULGE_CLASSES];
    uint64_t F = 0, R = 0;
    const uint64_t stop = s1 - min_len + W; /* the last window start that can hold a site is s1 - min_len */
    for (uint64_t p = s0; p < stop; p++) {
        const uint64_t sym = p < s1 ? ps_chunk_sym(c, p) : 0;
        F = (F << 2 | sym) & full;
        R = R >> 2 | (3 ^ sym) << (2 * (W - 1));
        const uint64_t e = p + 1;
        /* The PAM at the window's end: 3' plus (F), 5' minus (R). */
        const int s_end = b->pam5 ? 1 : 0;
        if (p < s1 && (both || s_end == 0)) {
            const uint64_t X = b->pam5 ? R : F;
            const uint64_t pam = b->pam5 ? X >> (2 * (W - a)) : X & pm;
            if (b->pam_ok[pam >> 6] >> (pam & 63) & 1) {
                int any = 0;
                for (uint32_t k = 0; k < C; k++) {
                    valid[k] = e >= s0 + len[k] && e - 1 >= own;
                    start[k] = e - len[k];
                    any |= valid[k];
                }
                if (any) test_run(b, bd, w, m0, flag, b->pam5 ? X & run_mask : X >> (2 * a), s_end, valid, start);
            }
        }
        /* The PAM at the window's start: 3' minus (R), 5' plus (F). */
        const int s_start = b->pam5 ? 0 : 1;
        if (e >= s0 + W && (both || s_start == 0)) {
            const uint64_t ws = e - W;
            const uint64_t X = b->pam5 ? F : R;
            const uint64_t pam = b->pam5 ? X >> (2 * (W - a)) : X & pm;
            if (b->pam_ok[pam >> 6] >> (pam & 63) & 1) {
                int any = 0;
                for (uint32_t k = 0; k < C; k++) {
                    valid[k] = ws + len[k] <= s1 && ws + len[k] - 1 >= own;
                    start[k] = ws;
                    any |= valid[k];
                }
                if (any) test_run(b, bd, w, m0, flag, b->pam5 ? X & run_mask : X >> (2 * a), s_start, valid, start);
            }
        }
    }
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
    out->bulges = 1;
    /* A chunk's windows cost far more than reading it: chunks of 256 Ki
     * symbols spread a small genome over every thread (1 Mi left a yeast
     * genome's 12 chunks to 16 threads: 2.3-2.9 s, against 0.8 s of work). */
    out->max_chunk_syms = 1u << 18;
    out->chunks_cpu = ps_hits_engine_chunks(&ge->base);
}

static void gen_destroy(ps_engine_t *e)
{
    gen_t *ge = e->impl;
    if (ge) {
        for (int t = 0; t < ge->base.threads; t++) {
            if (ge->m0) free(ge->m0[t]);
            if (ge->flag) free(ge->flag[t]);
        }
        free(ge->m0);
        free(ge->flag);
        ps_hits_engine_free(&ge->base);
        if (ge->bd) {
            free(ge->bd->pre);
            free(ge->bd->suf);
            free(ge->bd->pen);
            free(ge->bd->lim);
            free(ge->bd);
        }
    }
    free(ge);
    free(e);
}

int ps_bulge_engine_new(ps_engine_t **out, const ps_bulgeset_t *b, int threads, ps_err_t *err)
{
    *out = NULL;
    ps_engine_t *e = calloc(1, sizeof *e);
    gen_t *ge = calloc(1, sizeof *ge);
    if (!e || !ge) {
        free(e);
        free(ge);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    e->impl = ge;
    ge->b = b;
    ps_hits_engine_ops(e, 0); /* count --by-record takes no bulges */
    e->info = gen_info;
    e->destroy = gen_destroy;
    int rc = ps_hits_engine_init(&ge->base, threads, b->leaves.n_leaves, scan_segment, err);
    if (rc < 0) {
        gen_destroy(e);
        return rc;
    }
    const size_t G = b->n_guides, C = b->n_classes;
    if (!(ge->m0 = calloc((size_t)threads, sizeof *ge->m0)) || !(ge->flag = calloc((size_t)threads, sizeof *ge->flag)))
        goto nomem;
    for (int t = 0; t < threads; t++)
        if (!(ge->m0[t] = malloc(G * sizeof(uint64_t))) || !(ge->flag[t] = malloc(G))) goto nomem;
    bound_t *bd = ge->bd = calloc(1, sizeof *bd);
    if (!bd || !(bd->pre = calloc(G * C, sizeof *bd->pre)) || !(bd->suf = calloc(G * C, sizeof *bd->suf)) ||
        !(bd->pen = calloc(G * C, 1)) || !(bd->lim = calloc(G * C, 1)))
        goto nomem;
    for (size_t c = 1; c < C; c++)
        for (size_t g = 0; g < G; g++) {
            const size_t x = c * G + g;
            const uint32_t jn = b->jn[g * C + c], jlo = b->jlo[g * C + c];
            const uint32_t del = c <= (size_t)b->dna ? 0 : (uint32_t)c - (uint32_t)b->dna;
            if (!jn) {
                bd->lim[x] = -1;
                continue;
            }
            const uint32_t h = (jlo + jlo + jn - 1 + 1) / 2;
            bd->lim[x] = (int8_t)b->lim[g];
            bd->pre[x] = pre(b->n, h);
            bd->suf[x] = h > jlo ? suf(b->n, h - 1 + del) : 0;
            bd->pen[x] = h > jlo ? 0 : 64;
        }
    *out = e;
    return PS_OK;
nomem:
    gen_destroy(e);
    return ps_fail(err, PS_E_NOMEM, "out of memory for the bulge engine's counts");
}
