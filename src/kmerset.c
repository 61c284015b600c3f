#include "kmerset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "parallel.h"

/* Tables of millions of keys are touched at random, a TLB miss a lookup
 * with 4 KiB pages: ask for huge pages where the kernel gives them on
 * request (transparent huge pages in "madvise" mode). A hint only. */
static void *table_alloc(size_t bytes)
{
    const size_t huge = 2u << 20;
    if (bytes < huge) return malloc(bytes);
    void *p = aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
    if (p) (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

int ps_kmerset_fits(const ps_probes_t *p)
{
    return p->alpha == PS_DNA && p->k >= 1 && p->k <= PS_KMERSET_MAX_K;
}

/* Slots: a power of two at least 4/3 of the keys (filled at most three
 * quarters, at least three eighths): linear probing at 3/4 takes 2.5 slots
 * on average for a key present, and absent ones mostly stop at the filter.
 * Ten million 31-mers (both strands, load 0.6) over 122 Mbp scanned in
 * 0.148 s on 16 threads as at load 0.3, in half the table (537 MB); a
 * probe and its reverse complement share a slot, so they take 268 MB. */
static int table_bits(uint64_t keys)
{
    int bits = 6;
    while ((1ull << bits) * 3 < 4 * keys) bits++;
    return bits;
}

/* Filter words: a power of two with at least 16 bits a key, 8 KiB at least. */
static int filter_bits(uint64_t keys)
{
    int bits = 10;
    while ((64ull << bits) < 16 * keys) bits++;
    return bits;
}

uint64_t ps_kmerset_bytes(const ps_probes_t *p, int both_strands)
{
    /* A key a probe at most, either strand mode; the leaves view, and each
     * string's slot while several threads build. */
    uint64_t strings = (uint64_t)p->n * (both_strands ? 2u : 1u);
    return (sizeof(ps_kmer_slot_t) << table_bits(p->n)) + (sizeof(uint64_t) << filter_bits(p->n)) +
           strings * sizeof(uint32_t) * 2;
}

void ps_kmerset_free(ps_kmerset_t *ks)
{
    if (!ks) return;
    free(ks->slot);
    free(ks->filter);
    free(ks->leaves.probe_leaf[0]);
    free(ks->leaves.probe_leaf[1]);
    free(ks);
}

/* The 2-bit code of a letter of an exact DNA probe's text: A C G T/U as
 * the loader codes them (probes.c; a probe that is no pattern holds no
 * other letter, upper-cased). */
static inline uint64_t base_code(char c) { return ((unsigned char)c >> 1 ^ (unsigned char)c >> 2) & 3u; }

/* The canonical key of string j (probe j's sequence, or for j >= n the
 * reverse complement of probe j - n), and in *rc whether the string is the
 * key's reverse complement. Read from the sequences' text, so that the
 * probes' codes may be freed before the set is built (plan.c). */
static inline uint64_t string_key(const ps_probes_t *p, uint64_t j, int *rc)
{
    const int k = p->k;
    const char *c = p->seq[j >= p->n ? j - p->n : j];
    uint64_t fw = 0, rv = 0;
    for (int i = 0; i < k; i++) {
        const uint32_t b = (uint32_t)base_code(c[i]);
        fw = fw << 2 | b;
        rv = ps_kmer_rc_roll(rv, b, k);
    }
    if (j >= p->n) {
        const uint64_t t = fw;
        fw = rv;
        rv = t;
    }
    *rc = fw > rv;
    return ps_kmer_canon(fw, rv);
}

/* Where string j's leaf goes: probe j's forward leaf, or for j >= n the
 * reverse leaf of probe j - n. */
static inline uint32_t *string_leaf(ps_kmerset_t *ks, const ps_probes_t *p, uint64_t j)
{
    return &ks->leaves.probe_leaf[j >= p->n][j >= p->n ? j - p->n : j];
}

static void set_filter(ps_kmerset_t *ks, uint64_t key)
{
    uint64_t fh = ps_kmerset_fhash(key);
    ks->filter[fh >> (64 - ks->filter_bits)] |= ps_kmerset_fmask(fh);
}

/* Strings are inserted in batches whose slots are prefetched first, so that
 * the misses of a table larger than the cache overlap. */
enum { BUILD_BATCH = 64 };

/* The leaf of the string (key, rc), inserting it as a new leaf when absent. */
static uint32_t insert(ps_kmerset_t *ks, uint64_t key, int rc, uint64_t home)
{
    const uint64_t m = ks->n_slots - 1;
    for (uint64_t i = home;; i = (i + 1) & m) {
        ps_kmer_slot_t *s = &ks->slot[i];
        if (s->key == PS_KMERSET_NOKEY) {
            set_filter(ks, key);
            s->key = key;
        } else if (s->key != key) {
            continue;
        }
        if (s->leaf[rc] == PS_KMERSET_EMPTY) s->leaf[rc] = ks->leaves.n_leaves++;
        return s->leaf[rc];
    }
}

/* One thread: forward sequences first, then reverse complements, as the
 * automaton inserts them, so leaves are numbered in that order. */
static void build_serial(ps_kmerset_t *ks, const ps_probes_t *p, int strands)
{
    uint64_t key[BUILD_BATCH], home[BUILD_BATCH];
    int rc[BUILD_BATCH];
    const uint64_t n = (uint64_t)p->n * (uint64_t)strands;
    for (uint64_t j0 = 0; j0 < n; j0 += BUILD_BATCH) {
        uint32_t nb = n - j0 < BUILD_BATCH ? (uint32_t)(n - j0) : BUILD_BATCH;
        for (uint32_t b = 0; b < nb; b++) {
            key[b] = string_key(p, j0 + b, &rc[b]);
            home[b] = ps_kmerset_home(ks, key[b]);
            __builtin_prefetch(&ks->slot[home[b]], 1);
            __builtin_prefetch(ps_kmerset_fword(ks, ps_kmerset_fhash(key[b])), 1);
        }
        for (uint32_t b = 0; b < nb; b++) *string_leaf(ks, p, j0 + b) = insert(ks, key[b], rc[b], home[b]);
    }
}

/* Several threads give the same leaves as one. Each string j (numbered as
 * build_serial inserts them) goes into the table at once: its key takes an
 * empty slot by one compare-and-swap (or finds the slot that holds it), and
 * the slot's leaf on the string's side keeps the smallest j of that string,
 * the one that build_serial would have made the leaf; then the leaves are
 * numbered by a prefix sum over those first strings, and every string takes
 * its first string's leaf. While strings go in, a slot's leaves hold first
 * strings; the steps after it run as separate calls, each seeing all of the
 * step before. */
typedef struct {
    ps_kmerset_t *ks;
    const ps_probes_t *p;
    uint64_t n;           /* strings */
    uint32_t *at;         /* each string's slot, its side (rc) in the top bit */
    uint32_t *firsts;     /* per part: first strings in it, then the leaf its first one gets */
} par_build_t;

#define SIDE_BIT 0x80000000u

/* The part's share of the strings. */
static void share(const par_build_t *b, int part, int parts, uint64_t *lo, uint64_t *hi)
{
    *lo = ps_parallel_share(b->n, part, parts);
    *hi = ps_parallel_share(b->n, part + 1, parts);
}

static uint32_t *leaf_of(par_build_t *b, uint64_t j) { return string_leaf(b->ks, b->p, j); }

/* Pages of the table and filter are first touched by the threads that fill
 * them: the kernel's page clearing is spread too. */
static void par_clear(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    ps_kmerset_t *ks = b->ks;
    uint64_t lo = ps_parallel_share(ks->n_slots, part, parts), hi = ps_parallel_share(ks->n_slots, part + 1, parts);
    memset(ks->slot + lo, 0xFF, (hi - lo) * sizeof *ks->slot);
    uint64_t words = 1ull << ks->filter_bits;
    lo = ps_parallel_share(words, part, parts);
    hi = ps_parallel_share(words, part + 1, parts);
    memset(ks->filter + lo, 0, (hi - lo) * sizeof *ks->filter);
}

static void par_insert_one(par_build_t *b, uint64_t key, int rc, uint64_t home, uint32_t j)
{
    ps_kmerset_t *ks = b->ks;
    const uint64_t m = ks->n_slots - 1;
    for (uint64_t i = home;; i = (i + 1) & m) {
        ps_kmer_slot_t *s = &ks->slot[i];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
        if (k == PS_KMERSET_NOKEY) {
            if (__atomic_compare_exchange_n(&s->key, &k, key, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
                uint64_t fh = ps_kmerset_fhash(key);
                __atomic_fetch_or(&ks->filter[fh >> (64 - ks->filter_bits)], ps_kmerset_fmask(fh), __ATOMIC_RELAXED);
                k = key;
            }
            /* else k is the key that took the slot meanwhile */
        }
        if (k != key) continue;
        /* The key's slot: its side keeps the smaller first string. */
        uint32_t l = __atomic_load_n(&s->leaf[rc], __ATOMIC_RELAXED);
        while (j < l && !__atomic_compare_exchange_n(&s->leaf[rc], &l, j, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
        b->at[j] = (uint32_t)i | (rc ? SIDE_BIT : 0u);
        return;
    }
}

static void par_insert(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    ps_kmerset_t *ks = b->ks;
    uint64_t lo, hi, key[BUILD_BATCH], home[BUILD_BATCH];
    int rc[BUILD_BATCH];
    share(b, part, parts, &lo, &hi);
    for (uint64_t j0 = lo; j0 < hi; j0 += BUILD_BATCH) {
        uint32_t nb = hi - j0 < BUILD_BATCH ? (uint32_t)(hi - j0) : BUILD_BATCH;
        for (uint32_t i = 0; i < nb; i++) {
            key[i] = string_key(b->p, j0 + i, &rc[i]);
            home[i] = ps_kmerset_home(ks, key[i]);
            __builtin_prefetch(&ks->slot[home[i]], 1);
        }
        for (uint32_t i = 0; i < nb; i++) par_insert_one(b, key[i], rc[i], home[i], (uint32_t)(j0 + i));
    }
}

/* A string's first string (its slot's leaf on its side), read while no one
 * writes it. */
static uint32_t first_of(const par_build_t *b, uint64_t j)
{
    const uint32_t a = b->at[j];
    return b->ks->slot[a & ~SIDE_BIT].leaf[a >> 31];
}

static void par_count_firsts(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    uint64_t lo, hi;
    share(b, part, parts, &lo, &hi);
    uint32_t c = 0;
    for (uint64_t j = lo; j < hi; j++) c += first_of(b, j) == j;
    b->firsts[part] = c;
}

/* First strings take their leaves, in string order. */
static void par_number_firsts(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    uint64_t lo, hi;
    share(b, part, parts, &lo, &hi);
    uint32_t leaf = b->firsts[part];
    for (uint64_t j = lo; j < hi; j++)
        if (first_of(b, j) == j) *leaf_of(b, j) = leaf++;
}

/* The other strings take their first string's leaf. */
static void par_number_rest(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    uint64_t lo, hi;
    share(b, part, parts, &lo, &hi);
    for (uint64_t j = lo; j < hi; j++) {
        uint32_t f = first_of(b, j);
        if (f != j) *leaf_of(b, j) = *leaf_of(b, f);
    }
}

/* Slots trade their first strings for their leaves. */
static void par_slot_leaves(void *ctx, int part, int parts)
{
    par_build_t *b = ctx;
    ps_kmerset_t *ks = b->ks;
    uint64_t lo = ps_parallel_share(ks->n_slots, part, parts), hi = ps_parallel_share(ks->n_slots, part + 1, parts);
    for (uint64_t i = lo; i < hi; i++)
        for (int side = 0; side < 2; side++)
            if (ks->slot[i].leaf[side] != PS_KMERSET_EMPTY) ks->slot[i].leaf[side] = *leaf_of(b, ks->slot[i].leaf[side]);
}

/* Strings a part inserts at least: below it, starting threads costs more
 * than it saves. */
#define PAR_GRAIN 16384

int ps_kmerset_build(ps_kmerset_t **out, const ps_probes_t *p, int both_strands, int threads, ps_err_t *err)
{
    *out = NULL;
    if (!ps_kmerset_fits(p))
        return ps_fail(err, PS_E_INTERNAL, "k-mer set: %s probes of length %d do not fit (DNA, k <= %d)",
                       ps_alpha_name(p->alpha), p->k, PS_KMERSET_MAX_K);
    const int k = p->k, strands = both_strands ? 2 : 1;
    const uint64_t n = (uint64_t)p->n * (uint64_t)strands;
    par_build_t b = {.p = p, .n = n};
    ps_kmerset_t *ks = calloc(1, sizeof *ks);
    if (!ks) goto nomem;
    b.ks = ks;
    ks->k = k;
    ks->mask = k == 32 ? ~0ull : (1ull << (2 * k)) - 1;
    /* A probe's strings share their slot: a key a probe at most. */
    ks->bits = table_bits(p->n);
    ks->n_slots = 1ull << ks->bits;
    ks->leaves = (ps_leaves_t){.alpha = PS_DNA, .k = k, .levels = 1, .both_strands = both_strands};
    ks->filter_bits = filter_bits(p->n);
    if (!(ks->slot = table_alloc(ks->n_slots * sizeof *ks->slot))) goto nomem;
    if (!(ks->filter = table_alloc(sizeof *ks->filter << ks->filter_bits))) goto nomem;
    for (int s = 0; s < strands; s++)
        if (!(ks->leaves.probe_leaf[s] = malloc((size_t)p->n * sizeof(uint32_t)))) goto nomem;
    /* Strings are numbered in 32 bits on several threads (EMPTY is none),
     * and slots in 31 beside their side. */
    int parts = n < PS_KMERSET_EMPTY && ks->n_slots <= SIDE_BIT ? ps_parallel_parts(threads, n, PAR_GRAIN) : 1;
    if (parts > 1 && (!(b.at = malloc(n * sizeof *b.at)) || !(b.firsts = malloc((size_t)parts * sizeof *b.firsts)))) {
        parts = 1; /* the one-thread build needs neither */
    }
    /* All-ones bytes make every key PS_KMERSET_NOKEY, every leaf
     * PS_KMERSET_EMPTY. */
    ps_parallel_run(parts, par_clear, &b);
    if (parts == 1) {
        build_serial(ks, p, strands);
    } else {
        ps_parallel_run(parts, par_insert, &b);
        ps_parallel_run(parts, par_count_firsts, &b);
        uint32_t leaves = 0;
        for (int i = 0; i < parts; i++) {
            uint32_t c = b.firsts[i];
            b.firsts[i] = leaves;
            leaves += c;
        }
        ks->leaves.n_leaves = leaves;
        ps_parallel_run(parts, par_number_firsts, &b);
        ps_parallel_run(parts, par_number_rest, &b);
        ps_parallel_run(parts, par_slot_leaves, &b);
    }
    free(b.at);
    free(b.firsts);
    *out = ks;
    return PS_OK;
nomem:
    free(b.at);
    free(b.firsts);
    ps_kmerset_free(ks);
    return ps_fail(err, PS_E_NOMEM, "out of memory for the k-mer set of %u probes", p->n);
}
