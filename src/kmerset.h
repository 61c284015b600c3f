/* kmerset.h - the k-mer set: DNA probes of one length k <= 32 as 2-bit
 * integers in an open-addressing hash table, for probe sets too large for
 * the automaton to be worth building.
 *
 * A k-mer is read first base in the high bits: ACGT = 0123, so "AC" is
 * 0b0001. Every probe (and, with both strands, its reverse complement) is
 * a string; equal strings share a leaf, numbered 0.. in order of first
 * insertion (probe order, then reverse complements), so the leaves view
 * says the same as the automaton's would up to the numbering. A slot holds
 * a canonical k-mer (the smaller of a k-mer and its reverse complement as
 * integers) with two leaves: the string that is the canonical k-mer, and
 * the one that is its reverse complement; so a probe and its reverse
 * complement take one slot. Text is walked with a rolling k-mer and its
 * rolling reverse complement: one lookup per window, of the smaller, no
 * state beyond the last k bases.
 *
 * In front of the table sits a blocked Bloom filter: two bits of one 64-bit
 * word per canonical k-mer, at least 16 bits a k-mer. Most windows of a
 * real text are no probe; the filter answers them from a few MB that stay
 * in cache, with a branch that is nearly always predicted, where the table
 * alone would cost a cache miss and, when it is small and full, a
 * mispredicted branch.
 *
 * Memory: 16 bytes a slot, a power of two of slots at least 4/3 of the
 * probes (under 8/3 x 16 = 43 bytes a probe, either strand mode), at most
 * 4 bytes a probe of filter, plus the leaves view's 4 bytes a probe and
 * strand; while building, 4 bytes a string more. Building is linear in the
 * probes and spread over the threads it is given. */
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
/* The key of an empty slot: no canonical k-mer is all ones (that of T...T
 * is A...A, 0). */
#define PS_KMERSET_NOKEY UINT64_MAX

/* Strings (probes times strands) from which the k-mer set is chosen over
 * the automaton by default: below it the automaton's table stays in cache
 * and walks faster than hashing; above it the automaton grows by k states a
 * string and takes longer to build than the scan it serves (BENCHMARKS.md,
 * "index"). */
#define PS_KMER_SET_FROM 12000

typedef struct {
    uint64_t key;     /* the canonical k-mer; PS_KMERSET_NOKEY in an empty slot */
    uint32_t leaf[2]; /* the leaf of the string that is key [0], of the one that is its reverse
                       * complement [1] (a palindrome's: [0]); PS_KMERSET_EMPTY where no string is */
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

/* The reverse complement of a k-mer rolled on by base b (0..3): the
 * complement of b comes in at the high end of the 2k bits. */
PS_KS_FN uint64_t ps_kmer_rc_roll(uint64_t rc, uint32_t b, int k)
{
    return rc >> 2 | (uint64_t)(3u - b) << (2 * (k - 1));
}

/* A k-mer's slot key, given the k-mer and its reverse complement. */
PS_KS_FN uint64_t ps_kmer_canon(uint64_t fw, uint64_t rc) { return fw < rc ? fw : rc; }

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

/* The leaf of the k-mer whose canonical k-mer is canon (home its home slot;
 * rc 1 where the k-mer is not canon itself but its reverse complement), or
 * PS_KMERSET_EMPTY when no string is that k-mer. */
static inline uint32_t ps_kmerset_find(const ps_kmerset_t *ks, uint64_t canon, int rc, uint64_t home)
{
    const uint64_t m = ks->n_slots - 1;
    for (uint64_t i = home;; i = (i + 1) & m) {
        const ps_kmer_slot_t *s = &ks->slot[i];
        if (s->key == canon) return s->leaf[rc];
        if (s->key == PS_KMERSET_NOKEY) return PS_KMERSET_EMPTY;
    }
}

#ifdef __cplusplus
}
#endif

#endif
