#include "engine_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stretch of text walked from the root. Walking starts up to k-1 symbols
 * before the stretch proper so that the state is exact where it begins; at
 * those lead-in positions fewer than k symbols have been read, so no leaf can
 * be reached there and nothing is counted twice. */
typedef struct {
    uint64_t pos, end;
    uint32_t s;
} lane_t;

/* Yields the chunk's segments (between restarts) cut into pieces of about
 * PIECE symbols, so that several independent walks can be interleaved. */
#define PIECE 4096u
typedef struct {
    const ps_chunk_t *c;
    uint32_t r;         /* next restart index */
    uint64_t seg_start; /* current segment [seg_start, seg_end) */
    uint64_t seg_end;
    uint64_t next;      /* next piece start within it */
    uint64_t lead;      /* k - 1 */
} cursor_t;

static int next_piece(cursor_t *cu, lane_t *l)
{
    while (cu->next >= cu->seg_end) {
        if (cu->r > cu->c->n_restart) return 0;
        cu->seg_start = cu->seg_end;
        cu->seg_end = cu->r < cu->c->n_restart ? cu->c->restart[cu->r] : cu->c->n;
        cu->r++;
        cu->next = cu->seg_start;
    }
    uint64_t from = cu->next, to = from + PIECE;
    /* Keep a short remainder with this piece rather than making a tiny one. */
    if (to + PIECE / 4 > cu->seg_end) to = cu->seg_end;
    l->pos = from - cu->seg_start > cu->lead ? from - cu->lead : cu->seg_start;
    l->end = to;
    l->s = 0;
    cu->next = to;
    return 1;
}

/* Symbol i of packed text; per and bits are compile-time constants at each
 * call site, so division and shifts are cheap. */
static inline uint32_t sym_at(const uint32_t *text, uint64_t i, uint32_t per, uint32_t bits)
{
    return (text[i / per] >> ((uint32_t)(i % per) * bits)) & ((1u << bits) - 1u);
}

#define LANES 4

/* Where the walks' leaves go: counted, or listed with where they start
 * (scan_sites; then oom says the list could not grow). */
typedef struct {
    uint64_t *counts;
    ps_sites_t *sites;
    uint32_t lead; /* k - 1: a leaf at p is a site starting at p - lead */
    int oom;
} hits_t;

static inline __attribute__((always_inline)) void hit(hits_t *h, const int list, uint32_t leaf, uint64_t p)
{
    if (!list) {
        h->counts[leaf]++;
        return;
    }
    ps_sites_t *st = h->sites;
    ps_err_t ignored;
    if (st->n == st->cap && ps_sites_reserve(st, 1, &ignored) < 0) {
        h->oom = 1;
        return;
    }
    st->pos[st->n] = (uint32_t)(p - h->lead);
    st->leaf[st->n++] = leaf;
}

/* One walk over l; used for the last few pieces. */
static inline __attribute__((always_inline)) void walk_one(const uint32_t *restrict delta, int shift,
                                                          uint32_t leaf_base, const uint32_t *text, lane_t *l,
                                                          hits_t *h, const int list, uint32_t per, uint32_t bits)
{
    uint32_t s = l->s;
    for (uint64_t p = l->pos; p < l->end; p++) {
        s = delta[(s << shift) | sym_at(text, p, per, bits)];
        if (s >= leaf_base) hit(h, list, s - leaf_base, p);
    }
    l->pos = l->end;
    l->s = s;
}

/* LANES walks in lockstep: their table lookups are independent, so their
 * cache misses overlap instead of queueing behind one another. */
static inline __attribute__((always_inline)) void scan_lanes(const ps_automaton_t *a, const ps_chunk_t *c, hits_t *h,
                                                            const int list, uint32_t per, uint32_t bits)
{
    const uint32_t *restrict delta = a->delta;
    const int shift = a->shift;
    const uint32_t leaf_base = a->leaf_base;
    const uint32_t *text = c->text;
    cursor_t cu = {.c = c, .r = 0, .seg_start = 0, .seg_end = 0, .next = 0, .lead = (uint64_t)a->k - 1};
    lane_t L[LANES];
    int live = 0;
    while (live < LANES && next_piece(&cu, &L[live])) live++;
    while (live == LANES) {
        uint64_t m = L[0].end - L[0].pos;
        for (int i = 1; i < LANES; i++)
            if (L[i].end - L[i].pos < m) m = L[i].end - L[i].pos;
        uint32_t s0 = L[0].s, s1 = L[1].s, s2 = L[2].s, s3 = L[3].s;
        const uint64_t p0 = L[0].pos, p1 = L[1].pos, p2 = L[2].pos, p3 = L[3].pos;
        for (uint64_t t = 0; t < m; t++) {
            s0 = delta[(s0 << shift) | sym_at(text, p0 + t, per, bits)];
            s1 = delta[(s1 << shift) | sym_at(text, p1 + t, per, bits)];
            s2 = delta[(s2 << shift) | sym_at(text, p2 + t, per, bits)];
            s3 = delta[(s3 << shift) | sym_at(text, p3 + t, per, bits)];
            if (s0 >= leaf_base) hit(h, list, s0 - leaf_base, p0 + t);
            if (s1 >= leaf_base) hit(h, list, s1 - leaf_base, p1 + t);
            if (s2 >= leaf_base) hit(h, list, s2 - leaf_base, p2 + t);
            if (s3 >= leaf_base) hit(h, list, s3 - leaf_base, p3 + t);
        }
        L[0].s = s0, L[1].s = s1, L[2].s = s2, L[3].s = s3;
        L[0].pos = p0 + m, L[1].pos = p1 + m, L[2].pos = p2 + m, L[3].pos = p3 + m;
        /* Refill the lanes that finished; leave lockstep when pieces run out. */
        for (int i = 0; i < LANES && live == LANES; i++)
            if (L[i].pos == L[i].end && !next_piece(&cu, &L[i])) {
                L[i] = L[LANES - 1];
                live--;
            }
    }
    for (int i = 0; i < live; i++) walk_one(delta, shift, leaf_base, text, &L[i], h, list, per, bits);
    lane_t l;
    while (next_piece(&cu, &l)) walk_one(delta, shift, leaf_base, text, &l, h, list, per, bits);
}

void ps_cpu_scan_chunk(const ps_automaton_t *a, const ps_chunk_t *c, uint64_t *leaf_counts)
{
    hits_t h = {leaf_counts, NULL, 0, 0};
    if (c->bits == 2)
        scan_lanes(a, c, &h, 0, 16, 2);
    else
        scan_lanes(a, c, &h, 0, 6, 5);
}

typedef struct {
    const ps_automaton_t *a;
    int threads;
    uint64_t chunks;  /* scanned, for info (atomic) */
    uint64_t *counts; /* threads * n_leaves */
    uint64_t **rec_dense;  /* per thread, for scan_records: counts of the current record */
    uint32_t **rec_touched; /* per thread: leaves counted in the current record */
} cpu_t;

/* Walks [from, to) of c (from a restart or record start) honouring restarts,
 * counting into dense and listing newly hit leaves in touched. */
static uint32_t walk_touch(const ps_automaton_t *a, const ps_chunk_t *c, uint64_t from, uint64_t to,
                           uint64_t *dense, uint32_t *touched, uint32_t nt)
{
    uint32_t lo = ps_chunk_restart_after(c, from);
    const uint32_t per = c->per_word, bits = (uint32_t)c->bits;
    uint32_t s = 0;
    for (uint64_t p = from; p < to; p++) {
        if (lo < c->n_restart && c->restart[lo] == p) {
            s = 0;
            lo++;
        }
        s = a->delta[(s << a->shift) | sym_at(c->text, p, per, bits)];
        if (s >= a->leaf_base && dense[s - a->leaf_base]++ == 0) touched[nt++] = s - a->leaf_base;
    }
    return nt;
}

static int cpu_scan_records(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err)
{
    cpu_t *cpu = e->impl;
    const ps_automaton_t *a = cpu->a;
    if (!cpu->rec_dense[worker]) {
        cpu->rec_dense[worker] = calloc(a->n_leaves, sizeof(uint64_t));
        cpu->rec_touched[worker] = malloc((size_t)a->n_leaves * sizeof(uint32_t));
        if (!cpu->rec_dense[worker] || !cpu->rec_touched[worker])
            return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
    }
    uint64_t *dense = cpu->rec_dense[worker];
    uint32_t *touched = cpu->rec_touched[worker];
    h->n_span = 0;
    h->n_hit = 0;
    for (uint32_t j = 0; j < c->n_rec; j++) {
        uint64_t to = j + 1 < c->n_rec ? c->rec_pos[j + 1] : c->n;
        uint32_t nt = walk_touch(a, c, c->rec_pos[j], to, dense, touched, 0);
        if (!nt) continue;
        int rc = ps_rec_hits_reserve(h, nt, err);
        if (rc < 0) return rc;
        h->span[h->n_span++] = (ps_rec_span_t){j, (uint32_t)h->n_hit, nt};
        for (uint32_t i = 0; i < nt; i++) {
            h->leaf[h->n_hit] = touched[i];
            h->count[h->n_hit++] = dense[touched[i]];
            dense[touched[i]] = 0;
        }
    }
    return PS_OK;
}

/* Every site c owns, by its start: the same walks, listing their leaves
 * (none can be reached in a chunk's context, which is shorter than k). */
static int cpu_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    (void)worker;
    const ps_automaton_t *a = ((cpu_t *)e->impl)->a;
    hits_t h = {NULL, out, (uint32_t)a->k - 1, 0};
    out->n = 0;
    if (c->bits == 2)
        scan_lanes(a, c, &h, 1, 16, 2);
    else
        scan_lanes(a, c, &h, 1, 6, 5);
    if (h.oom) return ps_fail(err, PS_E_NOMEM, "out of memory for the sites of a chunk");
    return PS_OK;
}

static int cpu_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    cpu_t *cpu = e->impl;
    if (worker < 0 || worker >= cpu->threads) return ps_fail(err, PS_E_INTERNAL, "cpu engine: bad worker %d", worker);
    ps_cpu_scan_chunk(cpu->a, c, cpu->counts + (size_t)worker * cpu->a->n_leaves);
    __atomic_add_fetch(&cpu->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static int cpu_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    (void)err;
    cpu_t *cpu = e->impl;
    size_t nl = cpu->a->n_leaves;
    for (int t = 0; t < cpu->threads; t++) {
        ps_counts_drain(leaf_counts, cpu->counts + (size_t)t * nl, nl);
    }
    return PS_OK;
}

static void cpu_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const cpu_t *cpu = e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_CPU;
    out->workers = cpu->threads;
    out->gpu_id = -1;
    out->chunks_cpu = __atomic_load_n(&cpu->chunks, __ATOMIC_RELAXED);
}

static void cpu_destroy(ps_engine_t *e)
{
    cpu_t *cpu = e->impl;
    if (cpu) {
        for (int t = 0; t < cpu->threads && cpu->rec_dense; t++) {
            free(cpu->rec_dense[t]);
            free(cpu->rec_touched[t]);
        }
        free(cpu->rec_dense);
        free(cpu->rec_touched);
        free(cpu->counts);
    }
    free(cpu);
    free(e);
}

int ps_cpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int threads, ps_err_t *err)
{
    *out = NULL;
    if (threads < 1) threads = 1;
    ps_engine_t *e = calloc(1, sizeof *e);
    cpu_t *cpu = calloc(1, sizeof *cpu);
    if (e) e->impl = cpu;
    if (cpu) cpu->threads = threads;
    if (!e || !cpu || !(cpu->counts = calloc((size_t)threads * a->n_leaves, sizeof(uint64_t))) ||
        !(cpu->rec_dense = calloc((size_t)threads, sizeof *cpu->rec_dense)) ||
        !(cpu->rec_touched = calloc((size_t)threads, sizeof *cpu->rec_touched))) {
        if (e) cpu_destroy(e);
        else free(cpu);
        return ps_fail(err, PS_E_NOMEM, "out of memory for %d threads' counts", threads);
    }
    cpu->a = a;
    e->scan = cpu_scan;
    e->collect = cpu_collect;
    e->scan_records = cpu_scan_records;
    e->scan_sites = cpu_scan_sites;
    e->info = cpu_info;
    e->destroy = cpu_destroy;
    *out = e;
    return PS_OK;
}
