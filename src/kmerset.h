/* kmerset.h - the k-mer set: DNA probes of one length k <= 32 as 2-bit
 * integers in an open-addressing hash table, for probe sets too large for
 * the automaton to be worth building.
 *
 * A k-mer is read first base in the high bits: ACGT = 0123, so "AC" is
 * 0b0001. Every probe (and, with both strands, its reverse complement) is
 * a key; equal keys share a leaf, numbered 0.. in order of first insertion
 * (probe order, then reverse complements), so the leaves view says the
 * same as the automaton's would up to the numbering. Text is walked with a
 * rolling k-mer: one lookup per window, no state beyond the last k bases.
 *
 * In front of the table sits a blocked Bloom filter: two bits of one 64-bit
 * word per key, at least 16 bits a key. Most windows of a real text are no
 * probe; the filter answers them from a few MB that stay in cache, with a
 * branch that is nearly always predicted, where the table alone would cost
 * a cache miss and, when it is small and full, a mispredicted branch.
 *
 * Memory: 16 bytes a slot, a power of two of slots at least 4/3 of the keys
 * (under 8/3 x 16 = 43 bytes a key; a probe is two keys with both strands),
 * at most 4 bytes a key of filter, plus the leaves view's 4 bytes a probe
 * and strand; while building, 4 bytes a string more. Building is linear in
 * the probes and spread over the threads it is given. */
#ifndef PS_KMERSET_H
#define PS_KMERSET_H

#include <stdint.h>

#include "error.h"
#include "leaves.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The hashes below are the GPU kernel's too (kernels/gpu_scan.cu): one
 * definition, so that both sides look in the same slots and filter words. */
#ifdef __CUDACC__
#define PS_KS_FN static inline __host__ __device__
#else
#define PS_KS_FN static inline
#endif

#define PS_KMERSET_MAX_K 32
#define PS_KMERSET_EMPTY UINT32_MAX

/* Strings (probes times strands) from which the k-mer set is chosen over
 * the automaton by default: below it the automaton's table stays in cache
 * and walks faster than hashing; above it the automaton grows by k states a
 * string and takes longer to build than the scan it serves (BENCHMARKS.md,
 * "index"). */
#define PS_KMER_SET_FROM 12000

typedef struct {
    uint64_t key;  /* the k-mer */
    uint32_t leaf; /* its leaf; PS_KMERSET_EMPTY in an empty slot */
    uint32_t pad;
} ps_kmer_slot_t;

typedef struct {
    int k;
    uint64_t mask;         /* the low 2k bits */
    ps_kmer_slot_t *slot;  /* 1 << bits slots */
    int bits;
    uint64_t n_slots;
    uint64_t *filter;      /* 1 << filter_bits words */
    int filter_bits;
    ps_leaves_t leaves;
} ps_kmerset_t;

/* Whether p can go into a k-mer set: DNA, k <= PS_KMERSET_MAX_K. */
int ps_kmerset_fits(const ps_probes_t *p);

/* Bytes a k-mer set of p takes (table and leaves view), and the 4 bytes a
 * string more that building it on several threads takes for a while. */
uint64_t ps_kmerset_bytes(const ps_probes_t *p, int both_strands);

/* Builds the set on up to `threads` threads (parallel.h); the leaves are the
 * same on any number. */
int ps_kmerset_build(ps_kmerset_t **out, const ps_probes_t *p, int both_strands, int threads, ps_err_t *err);
void ps_kmerset_free(ps_kmerset_t *ks);

/* The home slot of key in a table of 1 << bits slots: Fibonacci hashing, so
 * that k-mers that differ only in their last bases (the low bits) land far
 * apart. */
PS_KS_FN uint64_t ps_kmer_home(uint64_t key, int bits) { return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits); }

static inline uint64_t ps_kmerset_home(const ps_kmerset_t *ks, uint64_t key) { return ps_kmer_home(key, ks->bits); }

/* The filter's hash of key: a second mixing, independent of the home slot's. */
PS_KS_FN uint64_t ps_kmerset_fhash(uint64_t key)
{
    key ^= key >> 31;
    return key * 0xD6E8FEB86659FD93ull;
}

static inline const uint64_t *ps_kmerset_fword(const ps_kmerset_t *ks, uint64_t fh)
{
    return &ks->filter[fh >> (64 - ks->filter_bits)];
}

PS_KS_FN uint64_t ps_kmerset_fmask(uint64_t fh)
{
    return (1ull << (fh & 63)) | (1ull << ((fh >> 6) & 63));
}

/* Whether key may be in the set (never 0 for a key that is). */
static inline int ps_kmerset_maybe(const ps_kmerset_t *ks, uint64_t fh)
{
    const uint64_t m = ps_kmerset_fmask(fh);
    return (*ps_kmerset_fword(ks, fh) & m) == m;
}

/* The leaf of key, or PS_KMERSET_EMPTY when no probe is key. */
static inline uint32_t ps_kmerset_find(const ps_kmerset_t *ks, uint64_t key, uint64_t home)
{
    const uint64_t m = ks->n_slots - 1;
    for (uint64_t i = home;; i = (i + 1) & m) {
        const ps_kmer_slot_t *s = &ks->slot[i];
        if (s->leaf == PS_KMERSET_EMPTY) return PS_KMERSET_EMPTY;
        if (s->key == key) return s->leaf;
    }
}

#ifdef __cplusplus
}
#endif

#endif
