#include "kmerset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

static int table_bits(uint64_t keys)
{
    int bits = 6;
    while ((1ull << bits) < 2 * keys) bits++;
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
    uint64_t keys = (uint64_t)p->n * (both_strands ? 2u : 1u);
    return (sizeof(ps_kmer_slot_t) << table_bits(keys)) + (sizeof(uint64_t) << filter_bits(keys)) +
           keys * sizeof(uint32_t);
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

/* The leaf of key, inserting it as a new leaf when absent. */
static uint32_t insert(ps_kmerset_t *ks, uint64_t key, uint64_t home)
{
    const uint64_t m = ks->n_slots - 1;
    for (uint64_t i = home;; i = (i + 1) & m) {
        ps_kmer_slot_t *s = &ks->slot[i];
        if (s->leaf == PS_KMERSET_EMPTY) {
            uint64_t fh = ps_kmerset_fhash(key);
            ks->filter[fh >> (64 - ks->filter_bits)] |= ps_kmerset_fmask(fh);
            s->key = key;
            s->leaf = ks->leaves.n_leaves++;
            return s->leaf;
        }
        if (s->key == key) return s->leaf;
    }
}

int ps_kmerset_build(ps_kmerset_t **out, const ps_probes_t *p, int both_strands, ps_err_t *err)
{
    *out = NULL;
    if (!ps_kmerset_fits(p))
        return ps_fail(err, PS_E_INTERNAL, "k-mer set: %s probes of length %d do not fit (DNA, k <= %d)",
                       ps_alpha_name(p->alpha), p->k, PS_KMERSET_MAX_K);
    const int k = p->k, strands = both_strands ? 2 : 1;
    ps_kmerset_t *ks = calloc(1, sizeof *ks);
    if (!ks) goto nomem;
    ks->k = k;
    ks->mask = k == 32 ? ~0ull : (1ull << (2 * k)) - 1;
    ks->bits = table_bits((uint64_t)p->n * (uint64_t)strands);
    ks->n_slots = 1ull << ks->bits;
    ks->leaves = (ps_leaves_t){.alpha = PS_DNA, .k = k, .levels = 1, .both_strands = both_strands};
    ks->filter_bits = filter_bits((uint64_t)p->n * (uint64_t)strands);
    if (!(ks->slot = table_alloc(ks->n_slots * sizeof *ks->slot))) goto nomem;
    if (!(ks->filter = table_alloc(sizeof *ks->filter << ks->filter_bits))) goto nomem;
    memset(ks->filter, 0, sizeof *ks->filter << ks->filter_bits);
    /* All-ones bytes make every leaf PS_KMERSET_EMPTY. */
    memset(ks->slot, 0xFF, ks->n_slots * sizeof *ks->slot);
    for (int s = 0; s < strands; s++)
        if (!(ks->leaves.probe_leaf[s] = malloc((size_t)p->n * sizeof(uint32_t)))) goto nomem;
    /* Forward sequences first, then reverse complements, as the automaton
     * inserts them; in batches whose slots are prefetched first, so that
     * the misses of a table larger than the cache overlap. */
    enum { BUILD_BATCH = 64 };
    uint64_t key[BUILD_BATCH], home[BUILD_BATCH];
    for (int s = 0; s < strands; s++)
        for (uint32_t i0 = 0; i0 < p->n; i0 += BUILD_BATCH) {
            uint32_t nb = p->n - i0 < BUILD_BATCH ? p->n - i0 : BUILD_BATCH;
            for (uint32_t b = 0; b < nb; b++) {
                const uint8_t *c = p->code + (size_t)(i0 + b) * k;
                uint64_t v = 0;
                if (s == 0)
                    for (int j = 0; j < k; j++) v = v << 2 | c[j];
                else
                    for (int j = k - 1; j >= 0; j--) v = v << 2 | (3u - c[j]);
                key[b] = v;
                home[b] = ps_kmerset_home(ks, v);
                __builtin_prefetch(&ks->slot[home[b]], 1);
                __builtin_prefetch(ps_kmerset_fword(ks, ps_kmerset_fhash(v)), 1);
            }
            for (uint32_t b = 0; b < nb; b++) ks->leaves.probe_leaf[s][i0 + b] = insert(ks, key[b], home[b]);
        }
    *out = ks;
    return PS_OK;
nomem:
    ps_kmerset_free(ks);
    return ps_fail(err, PS_E_NOMEM, "out of memory for the k-mer set of %u probes", p->n);
}
