#include "engine_pattern.h"

#include <stdlib.h>
#include <string.h>

/* The word loops below vectorise: where the CPU has AVX-512 or AVX2 (chosen
 * when the program starts), eight or four words a step instead of SSE2's
 * two (AVX-512 ran all r14 patterns 1.4x faster than AVX2 on 16 threads). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define WIDE
#endif

typedef struct {
    uint64_t *D;        /* levels x n_words state vectors */
    uint64_t *G;        /* the gate's state (patset.h), gate_words */
    uint64_t *counts;   /* n_leaves */
    uint32_t *touched;  /* scan_records: leaves with counts in the current record */
    uint32_t n_touched;
    ps_sites_t *sites;  /* scan_sites: where the sites go */
    int oom;            /* scan_sites: the list could not grow */
} worker_t;

/* What a site found does: counted, counted for its record (scan_records),
 * or listed with where it starts (scan_sites). */
enum { COUNT, TOUCH, SITES };

typedef struct {
    const ps_patset_t *ps;
    int threads;
    worker_t *w;
    uint64_t chunks;
} pat_t;

/* A site of the string whose last bit is `bit`, at distance d, starting
 * at chunk position start. */
static inline void hit(const ps_patset_t *ps, worker_t *w, uint32_t bit, int d, int mode, uint64_t start)
{
    uint32_t leaf = ps->leaf_at[bit] + (uint32_t)d;
    if (ps->leaf_drop && ps->leaf_drop[leaf]) return; /* beyond its probe's own limit */
    if (mode == SITES) {
        ps_sites_t *s = w->sites;
        ps_err_t ignored;
        if (s->n == s->cap && ps_sites_reserve(s, 1, &ignored) < 0) {
            w->oom = 1;
            return;
        }
        s->pos[s->n] = (uint32_t)start;
        s->leaf[s->n++] = leaf;
        return;
    }
    if (mode == TOUCH && w->counts[leaf] == 0) w->touched[w->n_touched++] = leaf;
    w->counts[leaf]++;
}

/* Matches c's symbols [from, to), which lie in one segment that starts at
 * `seg` (no restart in (seg, to)); the state is fresh at seg. Sites ending
 * before c->n_ctx were counted with the previous chunk. */
/* One forward step for distance d over words [from, to): in the first
 * words no string crosses into the next, so no carry is kept and the loop
 * vectorises (a bit shifted out lands on a first bit, which is set anyway,
 * or on an unused one, which B clears). */
static inline void step_fwd(const ps_patset_t *ps, uint64_t *Dd, const uint64_t *Dl, const uint64_t *B)
{
    const uint32_t nf = ps->free_words, nw = ps->n_words;
    const uint64_t *first = ps->first, *sub = ps->sub;
    if (sub) {
        /* Fixed positions (a PAM) take no mismatch. */
        if (Dl) {
            for (uint32_t i = 0; i < nf; i++)
                Dd[i] = ((Dd[i] << 1 | first[i]) & B[i]) | ((Dl[i] << 1 | first[i]) & sub[i]);
        } else {
            for (uint32_t i = 0; i < nf; i++) Dd[i] = (Dd[i] << 1 | first[i]) & B[i];
        }
        uint64_t carry = 0, carry_l = 0;
        for (uint32_t i = nf; i < nw; i++) {
            const uint64_t old = Dd[i];
            uint64_t v = (old << 1 | carry | first[i]) & B[i];
            carry = old >> 63;
            if (Dl) {
                const uint64_t ol = Dl[i];
                v |= (ol << 1 | carry_l | first[i]) & sub[i];
                carry_l = ol >> 63;
            }
            Dd[i] = v;
        }
        return;
    }
    if (Dl) {
        for (uint32_t i = 0; i < nf; i++)
            Dd[i] = ((Dd[i] << 1 | first[i]) & B[i]) | Dl[i] << 1 | first[i];
    } else {
        for (uint32_t i = 0; i < nf; i++) Dd[i] = (Dd[i] << 1 | first[i]) & B[i];
    }
    uint64_t carry = 0, carry_l = 0;
    for (uint32_t i = nf; i < nw; i++) {
        uint64_t old = Dd[i], v = ((old << 1 | carry | first[i]) & B[i]);
        carry = old >> 63;
        if (Dl) {
            uint64_t ol = Dl[i];
            v |= ol << 1 | carry_l | first[i];
            carry_l = ol >> 63;
        }
        Dd[i] = v;
    }
}

/* Matches c's symbols [from, to), which lie in one segment that starts at
 * `seg` (no restart in (seg, to)); the state is fresh at seg. Sites ending
 * before c->n_ctx were counted with the previous chunk. */
WIDE static void scan_segment(const ps_patset_t *ps, worker_t *w, const ps_chunk_t *c, uint64_t seg, uint64_t to,
                         int mode)
{
    const uint32_t nw = ps->n_words;
    const int top = ps->max_mm;
    uint64_t *D = w->D;
    memset(D, 0, (size_t)(top + 1) * nw * sizeof *D);
    const uint64_t *first = ps->first, *last = ps->last;
    const uint32_t nf = ps->free_words;
    for (uint64_t p = seg; p < to; p++) {
        const uint64_t *B = ps->B + (size_t)ps_chunk_sym(c, p) * nw;
        uint64_t any = 0;
        if (top == 0) {
            /* Exact: the step and the test for a last bit in one pass. */
            for (uint32_t i = 0; i < nf; i++) {
                const uint64_t v = (D[i] << 1 | first[i]) & B[i];
                D[i] = v;
                any |= v & last[i];
            }
            uint64_t carry = 0;
            for (uint32_t i = nf; i < nw; i++) {
                const uint64_t old = D[i], v = (old << 1 | carry | first[i]) & B[i];
                carry = old >> 63;
                D[i] = v;
                any |= v & last[i];
            }
        } else {
            /* Distances from the top down, so that D_{d-1} is still the
             * old vector when D_d reads it. */
            for (int d = top; d >= 0; d--) step_fwd(ps, D + (size_t)d * nw, d ? D + (size_t)(d - 1) * nw : NULL, B);
            const uint64_t *Dt = D + (size_t)top * nw;
            for (uint32_t i = 0; i < nw; i++) any |= Dt[i] & last[i];
        }
        if (p < c->n_ctx || !any) continue;
        const uint64_t *Dt = D + (size_t)top * nw;
        for (uint32_t i = 0; i < nw; i++) {
            uint64_t acc = Dt[i] & ps->last[i];
            while (acc) {
                int b = __builtin_ctzll(acc);
                acc &= acc - 1;
                uint32_t bit = i * 64u + (uint32_t)b;
                /* The state was fresh at seg: a last bit is set only once
                 * the whole string lies in the segment. */
                int d = 0;
                while (d < top && !(D[(size_t)d * nw + i] >> b & 1)) d++;
                hit(ps, w, bit, d, mode, p + 1 - ps->len_at[bit]);
            }
        }
    }
}

/* Bit g of the vector v. */
static inline int bit_at(const uint64_t *v, uint64_t g) { return (int)(v[g / 64] >> (g % 64) & 1); }

/* One step of the backward scan over symbol sym: shift, class, mismatch
 * and skips over optional positions (Navarro and Raffinot's subtraction,
 * its borrow running along with the words), for each distance; at_end: the
 * symbol is its record's last, where end-anchored strings begin. The first
 * words (no string across them) go without carries or borrows, so that
 * they vectorise. Compiled apart for each constant combination. */
static inline __attribute__((always_inline)) void advance_back(const ps_patset_t *ps, uint64_t *D, uint32_t sym,
                                                              const int top, const int has_opt, const int at_end)
{
    const uint32_t nw = ps->n_words, nf = ps->free_words;
    const uint64_t *B = ps->B + (size_t)sym * nw;
    const uint64_t *zero = ps->zero, *first = ps->first, *keep = ps->keep;
    const uint64_t *oF = ps->opt_F, *oI = ps->opt_I, *oA = ps->opt_A;
    for (int d = top; d >= 0; d--) {
        uint64_t *Dd = D + (size_t)d * nw;
        const uint64_t *Dl = d ? Dd - nw : NULL;
        /* Per word: z, the positions done before this symbol (leading
         * optional ones, and at a record's end those that may stand for
         * it); f, where strings begin; what shifts out of one string must
         * not start the next (keep). */
#define PRE(i) (zero[i] | (at_end ? ps->zero_end[i] : 0))
#define FIRST(i) (first[i] | (at_end ? ps->first_end[i] : 0))
        for (uint32_t i = 0; i < nf; i++) {
            const uint64_t z = PRE(i), f = FIRST(i);
            uint64_t v = ((((Dd[i] | z) << 1) & keep[i]) | f) & B[i];
            if (Dl) v |= (((Dl[i] | z) << 1) & keep[i]) | f;
            if (has_opt) {
                uint64_t df = v | oF[i], sub = df - oI[i];
                v |= oA[i] & (~sub ^ df);
            }
            Dd[i] = v;
        }
        uint64_t carry = 0, carry_l = 0, borrow = 0;
        for (uint32_t i = nf; i < nw; i++) {
            const uint64_t z = PRE(i), f = FIRST(i), k = keep[i];
            uint64_t old = Dd[i] | z, v = (((old << 1 | carry) & k) | f) & B[i];
            carry = old >> 63;
            if (Dl) {
                uint64_t ol = Dl[i] | z;
                v |= ((ol << 1 | carry_l) & k) | f;
                carry_l = ol >> 63;
            }
            if (has_opt) {
                uint64_t df = v | oF[i], I = oI[i], sub = df - I - borrow;
                borrow = (df < I) || (df - I < borrow);
                v |= oA[i] & (~sub ^ df);
            }
            Dd[i] = v;
        }
#undef PRE
#undef FIRST
    }
}

/* One step away from a record's edges, then the sites that start there,
 * counted when `count`. */
static inline __attribute__((always_inline)) void step_back(const ps_patset_t *ps, worker_t *w, uint64_t *D,
                                                           uint32_t sym, uint64_t p, int count, int mode, const int top,
                                                           const int has_opt)
{
    const uint32_t nw = ps->n_words;
    advance_back(ps, D, sym, top, has_opt, 0);
    if (!count) return;
    const uint64_t *Dt = D + (size_t)top * nw;
    uint64_t any = 0;
    for (uint32_t i = 0; i < nw; i++) any |= Dt[i] & ps->last[i];
    if (!any) return;
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t acc = Dt[i] & ps->last[i];
        while (acc) {
            int bb = __builtin_ctzll(acc);
            acc &= acc - 1;
            int dd = 0;
            while (dd < top && !(D[(size_t)dd * nw + i] >> bb & 1)) dd++;
            hit(ps, w, i * 64u + (uint32_t)bb, dd, mode, p);
        }
    }
}

/* The sites found by the step just taken at a record's edge, position p:
 * strings that end there, and at the record's start (at_start) those whose
 * first element may stand for it ([<M]). */
static void edge_hits(const ps_patset_t *ps, worker_t *w, int at_start, uint64_t p, int mode)
{
    const uint32_t nw = ps->n_words;
    const int top = ps->max_mm;
    const uint64_t *D = w->D, *Dt = D + (size_t)top * nw;
    uint64_t carry_s = 0;
    for (uint32_t i = 0; i < nw; i++) {
        uint64_t L = ps->last[i] | (at_start ? ps->last_start[i] : 0);
        uint64_t S = at_start ? ps->skip_start[i] & Dt[i] : 0;
        uint64_t acc = (Dt[i] & L) | S << 1 | carry_s;
        carry_s = S >> 63;
        while (acc) {
            int bb = __builtin_ctzll(acc);
            acc &= acc - 1;
            uint64_t g = (uint64_t)i * 64u + (uint64_t)bb;
            int d = 0;
            for (; d < top; d++) {
                const uint64_t *Dd = D + (size_t)d * nw;
                if ((bit_at(Dd, g) && (L >> bb & 1)) ||
                    (at_start && g && bit_at(ps->skip_start, g - 1) && bit_at(Dd, g - 1)))
                    break;
            }
            hit(ps, w, (uint32_t)g, d, mode, p);
        }
    }
}

/* The general layout (patset.h): the segment [a, b) read backward, a site
 * counted at its start. starts_rec / ends_rec: the segment begins at its
 * record's first letter / ends at its last; closed: it ends at b (else it
 * goes on into the next chunk, which repeats k - 1 symbols as context and
 * counts the starts whose longest match could reach past b). */
WIDE static void scan_segment_back(const ps_patset_t *ps, worker_t *w, const ps_chunk_t *c, uint64_t a, uint64_t b,
                              int starts_rec, int ends_rec, int closed, int mode)
{
    const uint32_t nw = ps->n_words;
    const int top = ps->max_mm;
    const uint64_t reach = (uint64_t)ps->leaves.k - 1;
    uint64_t *D = w->D;
    memset(D, 0, (size_t)(top + 1) * nw * sizeof *D);
    for (uint64_t p = b; p-- > a;) {
        const int at_end = p + 1 == b && ends_rec, at_start = p == a && starts_rec;
        if (!at_end && !at_start) {
            /* The common cases compiled on their own. */
            uint32_t sym = ps_chunk_sym(c, p);
            int count = closed || p + reach < c->n;
            if (top == 0 && ps->has_opt) step_back(ps, w, D, sym, p, count, mode, 0, 1);
            else if (top == 0) step_back(ps, w, D, sym, p, count, mode, 0, 0);
            else step_back(ps, w, D, sym, p, count, mode, top, ps->has_opt);
            continue;
        }
        /* A record's edge: rare, so compiled once for any case. */
        if (at_end) advance_back(ps, D, ps_chunk_sym(c, p), top, 1, 1);
        else advance_back(ps, D, ps_chunk_sym(c, p), top, 1, 0);
        if (!closed && p + reach >= c->n) continue; /* the next chunk counts it */
        edge_hits(ps, w, at_start, p, mode);
    }
}

/* The forward set of the minus strand (patset.h: fwd): the segment [a, b)
 * read forward, each DNA symbol complemented, which is the reverse
 * complement read backward; a site is found, counted and listed at its
 * right end p (its start on the minus strand). The record's start is the
 * complement's end, where its first step is taken, and the record's end
 * its start. Sites ending before c->n_ctx were counted with the previous
 * chunk. */
WIDE static void scan_segment_fwdc(const ps_patset_t *ps, worker_t *w, const ps_chunk_t *c, uint64_t a, uint64_t b,
                              int starts_rec, int ends_rec, int mode)
{
    const uint32_t nw = ps->n_words;
    const int top = ps->max_mm;
    uint64_t *D = w->D;
    memset(D, 0, (size_t)(top + 1) * nw * sizeof *D);
    for (uint64_t p = a; p < b; p++) {
        const uint32_t sym = 3u - ps_chunk_sym(c, p);
        const int at_end = p == a && starts_rec, at_start = p + 1 == b && ends_rec;
        if (!at_end && !at_start) {
            int count = p >= c->n_ctx;
            if (top == 0) step_back(ps, w, D, sym, p, count, mode, 0, ps->has_opt);
            else step_back(ps, w, D, sym, p, count, mode, top, ps->has_opt);
            continue;
        }
        advance_back(ps, D, sym, top, 1, at_end);
        if (p < c->n_ctx) continue;
        edge_hits(ps, w, at_start, p, mode);
    }
}

/* A closed segment [a, b) of a gated set (patset.h): its windows read
 * forward, and the segment read backward only over the ranges around their
 * matches (merged where they meet), each range standing for the segment
 * where it reaches one of its edges. Every site lies whole in one range,
 * and a range finds no site that the whole segment would not. */
/* A gate of up to 4 words as one 256-bit vector (patset.h: gate_stride). */
typedef uint64_t gate_vec_t __attribute__((vector_size(32)));

static inline int gate_vec_any(gate_vec_t v) { return (v[0] | v[1] | v[2] | v[3]) != 0; }

/* The gate's windows read forward from p with state G: the position of the
 * next window match's last letter, or b where none ends before b. Up to 4
 * words the state is one vector in registers, and with bits a constant (2
 * or 5) whole packed words are read PW symbols at a time, tested for a
 * match once a word: a word that holds one is read again symbol by symbol
 * from its saved state. The step's three operations in a chain (shift, or,
 * and) bound it, not the words: a vector takes all of them at once. */
static inline __attribute__((always_inline)) uint64_t gate_next(const ps_patset_t *ps, uint64_t *G,
                                                                const ps_chunk_t *c, uint64_t p, uint64_t b,
                                                                const uint32_t bits)
{
    const uint32_t pw = bits == 2 ? 16u : 6u, m = (1u << bits) - 1u;
    gate_vec_t g, f, l, any = {0, 0, 0, 0};
    memcpy(&g, G, sizeof g);
    memcpy(&f, ps->gate_first, sizeof f);
    memcpy(&l, ps->gate_last, sizeof l);
    const uint64_t *gB = ps->gate_B;
#define GATE_STEP(sym)                                                                                                 \
    do {                                                                                                               \
        gate_vec_t r_;                                                                                                 \
        memcpy(&r_, gB + (size_t)(sym) * 4u, sizeof r_);                                                              \
        g = (g << 1 | f) & r_;                                                                                         \
        any |= g & l;                                                                                                  \
    } while (0)
    /* The head, up to a word boundary. */
    for (; p < b && p % pw; p++) {
        GATE_STEP(ps_chunk_sym(c, p));
        if (gate_vec_any(any)) goto done;
    }
    if (p < b) { /* p at a word's start */
        uint64_t kw = p / pw;
        const uint64_t kend = b / pw;
        for (; kw < kend; kw++) {
            const uint32_t x = c->text[kw];
            const gate_vec_t saved = g;
            for (uint32_t j = 0; j < pw; j++) GATE_STEP(x >> (bits * j) & m);
            if (gate_vec_any(any)) {
                g = saved;
                any = (gate_vec_t){0, 0, 0, 0};
                break;
            }
        }
        p = kw * pw;
    }
    /* The tail, or the word that holds the match. */
    for (; p < b; p++) {
        GATE_STEP(ps_chunk_sym(c, p));
        if (gate_vec_any(any)) break;
    }
#undef GATE_STEP
done:
    memcpy(G, &g, sizeof g);
    return p;
}

/* gate_next for any number of words, the state in memory. */
static uint64_t gate_next_words(const ps_patset_t *ps, uint64_t *G, const ps_chunk_t *c, uint64_t p, uint64_t b)
{
    const uint32_t gw = ps->gate_words;
    const uint64_t *gf = ps->gate_first, *gl = ps->gate_last;
    for (; p < b; p++) {
        const uint64_t *row = ps->gate_B + (size_t)ps_chunk_sym(c, p) * gw;
        uint64_t any = 0;
        for (uint32_t i = 0; i < gw; i++) {
            G[i] = (G[i] << 1 | gf[i]) & row[i];
            any |= G[i] & gl[i];
        }
        if (any) break;
    }
    return p;
}

WIDE static void scan_gated(const ps_patset_t *ps, worker_t *w, const ps_chunk_t *c, uint64_t a, uint64_t b,
                            int starts_rec, int ends_rec, int mode)
{
    const uint32_t gw = ps->gate_words;
    const uint64_t before = ps->gate_before, after = ps->gate_after;
    uint64_t *G = w->G;
    memset(G, 0, ps->gate_stride * sizeof *G);
    uint64_t r0 = 0, r1 = 0; /* the range being gathered; empty when r1 == 0 */
    for (uint64_t p = a;; p++) {
        if (gw > 4) p = gate_next_words(ps, G, c, p, b);
        else if (c->bits == 2) p = gate_next(ps, G, c, p, b, 2);
        else p = gate_next(ps, G, c, p, b, 5);
        if (p >= b) break;
        const uint64_t lo = p >= a + before ? p - before : a, hi = b - p > after ? p + after : b;
        if (r1 && lo <= r1) {
            r1 = hi;
            continue;
        }
        if (r1) scan_segment_back(ps, w, c, r0, r1, starts_rec && r0 == a, 0, 1, mode);
        r0 = lo;
        r1 = hi;
    }
    if (r1) scan_segment_back(ps, w, c, r0, r1, starts_rec && r0 == a, ends_rec && r1 == b, 1, mode);
}

/* Matches [from, to) segment by segment. */
static void scan_range(const ps_patset_t *ps, worker_t *w, const ps_chunk_t *c, uint64_t from, uint64_t to, int mode)
{
    uint32_t r = ps_chunk_restart_after(c, from);
    uint64_t seg = from;
    while (seg < to) {
        uint64_t end = r < c->n_restart && c->restart[r] < to ? c->restart[r] : to;
        if (ps->windows_only) {
            scan_segment(ps, w, c, seg, end, mode);
        } else {
            /* The restart at seg, if any, is the one before r. */
            int starts = seg == 0 ? c->head_edge & PS_EDGE_REC_START
                                  : r > 0 && c->restart[r - 1] == seg && (c->edge[r - 1] & PS_EDGE_REC_START);
            int at_restart = r < c->n_restart && c->restart[r] == end;
            int ends = at_restart ? c->edge[r] & PS_EDGE_REC_END : end == c->n ? c->tail_edge & PS_EDGE_REC_END : 0;
            int closed = end < c->n || (c->tail_edge & PS_EDGE_CLOSED);
            if (ps->gate_words && closed)
                scan_gated(ps, w, c, seg, end, !!starts, !!ends, mode);
            else
                scan_segment_back(ps, w, c, seg, end, !!starts, !!ends, closed, mode);
            if (ps->fwd) scan_segment_fwdc(ps->fwd, w, c, seg, end, !!starts, !!ends, mode);
        }
        seg = end;
        r++;
    }
}

static int pat_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    (void)err;
    pat_t *pt = e->impl;
    scan_range(pt->ps, &pt->w[worker], c, 0, c->n, COUNT);
    __atomic_fetch_add(&pt->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static int pat_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    (void)err;
    pat_t *pt = e->impl;
    const uint32_t n = pt->ps->leaves.n_leaves;
    for (int t = 0; t < pt->threads; t++) {
        ps_counts_drain(leaf_counts, pt->w[t].counts, n);
    }
    return PS_OK;
}

static int pat_scan_records(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err)
{
    pat_t *pt = e->impl;
    worker_t *w = &pt->w[worker];
    if (!w->touched && !(w->touched = malloc((size_t)pt->ps->leaves.n_leaves * sizeof *w->touched)))
        return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
    /* This worker's totals are not in use on this path: it holds one
     * record's counts at a time, and is left zeroed. */
    h->n_span = 0;
    h->n_hit = 0;
    for (uint32_t j = 0; j < c->n_rec; j++) {
        uint64_t to = j + 1 < c->n_rec ? c->rec_pos[j + 1] : c->n;
        w->n_touched = 0;
        scan_range(pt->ps, w, c, c->rec_pos[j], to, TOUCH);
        if (!w->n_touched) continue;
        int rc = ps_rec_hits_reserve(h, w->n_touched, err);
        if (rc < 0) return rc;
        h->span[h->n_span++] = (ps_rec_span_t){j, (uint32_t)h->n_hit, w->n_touched};
        for (uint32_t i = 0; i < w->n_touched; i++) {
            uint32_t l = w->touched[i];
            h->leaf[h->n_hit] = l;
            h->count[h->n_hit++] = w->counts[l];
            w->counts[l] = 0;
        }
    }
    __atomic_fetch_add(&pt->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static int pat_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    pat_t *pt = e->impl;
    worker_t *w = &pt->w[worker];
    out->n = 0;
    w->sites = out;
    w->oom = 0;
    scan_range(pt->ps, w, c, 0, c->n, SITES);
    w->sites = NULL;
    if (w->oom) return ps_fail(err, PS_E_NOMEM, "out of memory for the sites of a chunk");
    __atomic_fetch_add(&pt->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static void pat_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const pat_t *pt = e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_CPU;
    out->workers = pt->threads;
    out->gpu_id = -1;
    out->patterns = 1;
    out->chunks_cpu = __atomic_load_n(&pt->chunks, __ATOMIC_RELAXED);
}

static void pat_destroy(ps_engine_t *e)
{
    pat_t *pt = e->impl;
    if (pt) {
        for (int t = 0; t < pt->threads && pt->w; t++) {
            free(pt->w[t].D);
            free(pt->w[t].G);
            free(pt->w[t].counts);
            free(pt->w[t].touched);
        }
        free(pt->w);
    }
    free(pt);
    free(e);
}

int ps_pattern_engine_new(ps_engine_t **out, const ps_patset_t *ps, int threads, ps_err_t *err)
{
    *out = NULL;
    ps_engine_t *e = calloc(1, sizeof *e);
    pat_t *pt = calloc(1, sizeof *pt);
    if (!e || !pt) {
        free(e);
        free(pt);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    e->impl = pt;
    pt->ps = ps;
    pt->threads = threads;
    e->scan = pat_scan;
    e->collect = pat_collect;
    e->scan_records = pat_scan_records;
    e->scan_sites = pat_scan_sites;
    e->info = pat_info;
    e->destroy = pat_destroy;
    if (!(pt->w = calloc((size_t)threads, sizeof *pt->w))) goto nomem;
    for (int t = 0; t < threads; t++) {
        uint32_t nw = ps->fwd && ps->fwd->n_words > ps->n_words ? ps->fwd->n_words : ps->n_words;
        pt->w[t].D = malloc((size_t)(ps->max_mm + 1) * nw * sizeof(uint64_t));
        pt->w[t].counts = calloc(ps->leaves.n_leaves, sizeof(uint64_t));
        if (!pt->w[t].D || !pt->w[t].counts) goto nomem;
        if (ps->gate_words && !(pt->w[t].G = malloc(ps->gate_stride * sizeof(uint64_t)))) goto nomem;
    }
    *out = e;
    return PS_OK;
nomem:
    pat_destroy(e);
    return ps_fail(err, PS_E_NOMEM, "out of memory for the pattern engine's state");
}
