#include "engine_kmer.h"

#include <stdlib.h>
#include <string.h>

/* Lookups in flight at once: enough to cover a memory latency with the
 * time a window takes to roll, few enough to stay in registers and L1. */
#define BATCH 32

typedef struct {
    uint32_t *leaf;
    size_t n, cap;
} hits_t;

typedef struct {
    const ps_kmerset_t *ks;
    int threads;
    int local;        /* counts per worker (else shared, atomic) */
    uint64_t chunks;  /* scanned, for info (atomic) */
    uint64_t *counts; /* local: threads * n_leaves; else n_leaves */
    hits_t *rec;      /* per worker, for scan_records */
} kmer_t;

/* Where a batch's hits go: counted (atomically or not), listed, or listed
 * with where they start. */
typedef enum { TO_LOCAL, TO_SHARED, TO_LIST, TO_SITES } sink_kind_t;

/* Looks up a batch of keys that passed the filter, whose home slots were
 * prefetched as they were added. */
static inline __attribute__((always_inline)) int flush(const ps_kmerset_t *ks, const uint64_t *key,
                                                       uint32_t rcs, const uint64_t *home, const uint32_t *start, int n,
                                                       sink_kind_t kind, uint64_t *counts, hits_t *list,
                                                       ps_sites_t *sites)
{
    if (kind == TO_SITES && sites->n + (uint64_t)n > sites->cap) {
        ps_err_t ignored;
        if (ps_sites_reserve(sites, (uint64_t)n, &ignored) < 0) return -1;
    }
    if (kind == TO_LIST && list->n + (size_t)n > list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 4096;
        while (cap < list->n + (size_t)n) cap *= 2;
        uint32_t *l = realloc(list->leaf, cap * sizeof *l);
        if (!l) return -1;
        list->leaf = l;
        list->cap = cap;
    }
    for (int i = 0; i < n; i++) {
        uint32_t leaf = ps_kmerset_find(ks, key[i], (int)(rcs >> i & 1u), home[i]);
        if (leaf == PS_KMERSET_EMPTY) continue;
        if (kind == TO_LOCAL) counts[leaf]++;
        else if (kind == TO_SHARED) __atomic_fetch_add(&counts[leaf], 1, __ATOMIC_RELAXED);
        else if (kind == TO_LIST) list->leaf[list->n++] = leaf;
        else {
            sites->pos[sites->n] = start[i];
            sites->leaf[sites->n++] = leaf;
        }
    }
    return 0;
}

/* Looks up every countable window ending in [from, to) of c, from a
 * segment start (a restart, a record start or 0): the k-mer and its reverse
 * complement roll from empty there, and the smaller is looked up. Returns
 * 0, or -1 when the hit list cannot grow. */
static inline __attribute__((always_inline)) int walk(const ps_kmerset_t *ks, const ps_chunk_t *c, uint64_t from,
                                                      uint64_t to, sink_kind_t kind, uint64_t *counts,
                                                      hits_t *list, ps_sites_t *sites)
{
    uint32_t r = ps_chunk_restart_after(c, from);
    uint64_t next_restart = r < c->n_restart ? c->restart[r] : UINT64_MAX;
    const uint64_t mask = ks->mask, n_ctx = c->n_ctx;
    const uint32_t k = (uint32_t)ks->k;
    const uint32_t *text = c->text;
    uint64_t key = 0, rc = 0, keys[BATCH], homes[BATCH];
    uint32_t starts[BATCH], rcs = 0; /* bit i: keys[i] is the window's reverse complement */
    uint32_t filled = 0;
    int nb = 0;
    for (uint64_t p = from; p < to; p++) {
        if (p == next_restart) {
            filled = 0;
            r++;
            next_restart = r < c->n_restart ? c->restart[r] : UINT64_MAX;
        }
        const uint32_t b = (text[p >> 4] >> ((p & 15u) << 1)) & 3u;
        key = (key << 2 | b) & mask;
        rc = ps_kmer_rc_roll(rc, b, (int)k);
        if (++filled < k || p < n_ctx) continue;
        filled = k; /* no overflow on long segments */
        const uint64_t canon = ps_kmer_canon(key, rc);
        /* The filter word is loaded in the loop itself: the branch on it is
         * predicted, so the loads of later windows issue while it is in
         * flight; only the few keys that pass wait for the table. */
        if (__builtin_expect(!ps_kmerset_maybe(ks, ps_kmerset_fhash(canon)), 1)) continue;
        uint64_t h = ps_kmerset_home(ks, canon);
        __builtin_prefetch(&ks->slot[h]);
        keys[nb] = canon;
        rcs |= (uint32_t)(key != canon) << nb;
        if (kind == TO_SITES) starts[nb] = (uint32_t)(p + 1 - k);
        homes[nb++] = h;
        if (nb == BATCH) {
            if (flush(ks, keys, rcs, homes, starts, nb, kind, counts, list, sites)) return -1;
            nb = 0;
            rcs = 0;
        }
    }
    return flush(ks, keys, rcs, homes, starts, nb, kind, counts, list, sites);
}

static int kmer_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    kmer_t *km = e->impl;
    if (worker < 0 || worker >= km->threads) return ps_fail(err, PS_E_INTERNAL, "k-mer engine: bad worker %d", worker);
    if (c->bits != 2) return ps_fail(err, PS_E_INTERNAL, "k-mer engine: a chunk of %d-bit symbols", c->bits);
    if (km->local)
        walk(km->ks, c, 0, c->n, TO_LOCAL, km->counts + (size_t)worker * km->ks->leaves.n_leaves, NULL, NULL);
    else
        walk(km->ks, c, 0, c->n, TO_SHARED, km->counts, NULL, NULL);
    __atomic_add_fetch(&km->chunks, 1, __ATOMIC_RELAXED);
    return PS_OK;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Per record: the hits listed, sorted, and counted by runs; no per-leaf
 * array, so memory follows the hits, not the probes. */
static int kmer_scan_records(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err)
{
    kmer_t *km = e->impl;
    if (worker < 0 || worker >= km->threads) return ps_fail(err, PS_E_INTERNAL, "k-mer engine: bad worker %d", worker);
    hits_t *list = &km->rec[worker];
    h->n_span = 0;
    h->n_hit = 0;
    for (uint32_t j = 0; j < c->n_rec; j++) {
        uint64_t to = j + 1 < c->n_rec ? c->rec_pos[j + 1] : c->n;
        list->n = 0;
        if (walk(km->ks, c, c->rec_pos[j], to, TO_LIST, NULL, list, NULL))
            return ps_fail(err, PS_E_NOMEM, "out of memory for per-record counts");
        if (!list->n) continue;
        qsort(list->leaf, list->n, sizeof *list->leaf, cmp_u32);
        uint32_t distinct = 1;
        for (size_t i = 1; i < list->n; i++) distinct += list->leaf[i] != list->leaf[i - 1];
        int rc = ps_rec_hits_reserve(h, distinct, err);
        if (rc < 0) return rc;
        h->span[h->n_span++] = (ps_rec_span_t){j, (uint32_t)h->n_hit, distinct};
        for (size_t i = 0; i < list->n;) {
            size_t run = i + 1;
            while (run < list->n && list->leaf[run] == list->leaf[i]) run++;
            h->leaf[h->n_hit] = list->leaf[i];
            h->count[h->n_hit++] = run - i;
            i = run;
        }
    }
    return PS_OK;
}

static int kmer_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    kmer_t *km = e->impl;
    if (worker < 0 || worker >= km->threads) return ps_fail(err, PS_E_INTERNAL, "k-mer engine: bad worker %d", worker);
    out->n = 0;
    if (walk(km->ks, c, 0, c->n, TO_SITES, NULL, NULL, out))
        return ps_fail(err, PS_E_NOMEM, "out of memory for the sites of a chunk");
    return PS_OK;
}

static int kmer_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    (void)err;
    kmer_t *km = e->impl;
    size_t nl = km->ks->leaves.n_leaves;
    for (int t = 0; t < (km->local ? km->threads : 1); t++) {
        ps_counts_drain(leaf_counts, km->counts + (size_t)t * nl, nl);
    }
    return PS_OK;
}

static void kmer_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const kmer_t *km = e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_CPU;
    out->workers = km->threads;
    out->gpu_id = -1;
    out->kmer_set = 1;
    out->chunks_cpu = __atomic_load_n(&km->chunks, __ATOMIC_RELAXED);
}

static void kmer_destroy(ps_engine_t *e)
{
    kmer_t *km = e->impl;
    if (km) {
        for (int t = 0; t < km->threads && km->rec; t++) free(km->rec[t].leaf);
        free(km->rec);
        free(km->counts);
    }
    free(km);
    free(e);
}

int ps_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, int threads, uint64_t local_max, ps_err_t *err)
{
    *out = NULL;
    if (threads < 1) threads = 1;
    const size_t nl = ks->leaves.n_leaves ? ks->leaves.n_leaves : 1;
    ps_engine_t *e = calloc(1, sizeof *e);
    kmer_t *km = calloc(1, sizeof *km);
    if (e) e->impl = km;
    if (km) {
        km->ks = ks;
        km->threads = threads;
        km->local = (uint64_t)threads * nl * sizeof(uint64_t) <= local_max;
    }
    if (!e || !km || !(km->counts = calloc(km->local ? (size_t)threads * nl : nl, sizeof(uint64_t))) ||
        !(km->rec = calloc((size_t)threads, sizeof *km->rec))) {
        if (e) kmer_destroy(e);
        else free(km);
        return ps_fail(err, PS_E_NOMEM, "out of memory for the k-mer engine's counts (%d threads)", threads);
    }
    e->scan = kmer_scan;
    e->collect = kmer_collect;
    e->scan_records = kmer_scan_records;
    e->scan_sites = kmer_scan_sites;
    e->info = kmer_info;
    e->destroy = kmer_destroy;
    *out = e;
    return PS_OK;
}
