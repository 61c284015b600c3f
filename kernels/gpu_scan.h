/* gpu_scan.h - the scan kernels' launch interface (CUDA C++, kernels/ only).
 *
 * A plan fixes, for one automaton and one kernel variant, where the DFA (or
 * the k-mer tables) and the leaf counters live (shared or global memory), the
 * block size and the persistent grid; ps_gpu_launch then scans one packed
 * chunk already on the device and adds its matches into the plan's 64-bit
 * device counters. */
#ifndef PS_GPU_SCAN_H
#define PS_GPU_SCAN_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "automaton.h"
#include "pack.h"
}

enum {
    PS_K_BEST = 0,
    PS_K_BASELINE,
    PS_K_SHARED,
    PS_K_COALESCED,
    PS_K_COMPACT,
    PS_K_LEAF,
    PS_K_KMER,
    PS_K_COUNT
};

/* Largest k of the k-mer path (DNA only): its 4^k-bit membership bitmap and
 * rank table (2 x 32 KB at k = 9) must fit in shared memory beside counters;
 * at k = 10 they alone would take 256 KB. */
#define PS_KMER_MAX_K 9

/* Words of packed text each thread owns in a tile. */
#define PS_TILE_WORDS 16

typedef struct {
    int variant;
    int bits;               /* 2 or 5; also the DFA row shift */
    int k;
    uint32_t n_states, leaf_base, n_leaves;
    const uint32_t *d_delta;      /* n_states << bits entries (padded to 16 bytes) */
    const uint16_t *d_delta16;    /* the same as 16-bit states, or NULL */
    unsigned long long *d_counts; /* n_leaves */
    /* k-mer tables (DNA, k <= PS_KMER_MAX_K; else NULL), indexed by the
     * 2k-bit code of a k-mer, its oldest symbol in the low bits: */
    const uint32_t *d_kbits;      /* membership bitmap, bit (code & 31) of word code >> 5 */
    const uint32_t *d_krank;      /* per bitmap word: present k-mers in the words before it */
    const uint32_t *d_kpair;      /* per (k+1)-mer y: 2 bits, present(y's first k-mer),
                                   * present(its last k-mer); NULL when k > 8 */
    const uint32_t *d_kleaf;      /* rank of a present k-mer -> its leaf id */
    int no_kmer;             /* in: best keeps the DFA walk (the ablation's DFA row) */
    int no_shared_counts;    /* in: every leaf counted with global atomics, the rest of
                              * the plan unchanged (the bench's counter-switch rows) */
    /* Chosen configuration; ps_gpu_launch only adds the chunk. */
    const void *kernel;      /* the kernel (its argument type follows kmer_m) */
    int threads, blocks;     /* block size; persistent grid size */
    size_t smem;             /* dynamic shared bytes per block */
    int dfa_shared;          /* 1: DFA copied to shared memory */
    int dfa16;               /* 1: 16-bit DFA entries */
    uint32_t dfa_bytes;      /* shared bytes of the DFA copy (0 unless dfa_shared) */
    uint32_t cnt_shared;     /* leaves [0, cnt_shared) counted in shared memory */
    uint32_t cnt_bytes;      /* their shared bytes (a multiple of 16) */
    uint32_t hw;             /* words a thread walks before its tile (DFA walk) */
    uint32_t halo_words;     /* staged words before a block tile */
    int kmer_m;              /* 0: DFA walk; 1 or 2: k-mer lookups, positions tested per lookup */
} ps_gplan_t;

/* Variant id of a kernel name (NULL = best), or -1. */
int ps_gpu_variant(const char *name);
/* NULL-terminated list of names, best first. */
const char *const *ps_gpu_variant_names(void);

/* Uploads nothing; decides the configuration for `variant` on `device` given
 * the automaton, the device buffers already filled in pl (d_delta,
 * d_delta16, d_counts, the k-mer tables) and the inputs pl->no_kmer and
 * pl->no_shared_counts. `best` takes the k-mer path whenever its tables exist
 * (DNA, k <= PS_KMER_MAX_K) unless no_kmer; `kmer` where they do not runs
 * best's DFA walk. Returns cudaSuccess or the failing call's error. */
cudaError_t ps_gpu_plan(ps_gplan_t *pl, int variant, const ps_automaton_t *a, int device);

/* One line describing the plan, for -v. */
void ps_gpu_plan_describe(const ps_gplan_t *pl, char *buf, size_t len);

/* Scans n symbols of packed text (n_ctx context) with restarts, all on the
 * device, on stream st. Returns the launch error, if any. */
cudaError_t ps_gpu_launch(const ps_gplan_t *pl, const uint32_t *d_text, uint64_t n, uint32_t n_ctx,
                          const uint32_t *d_restart, uint32_t n_restart, cudaStream_t st);

/* Device copies of an automaton's tables: 32-bit always, 16-bit when the
 * states fit, the k-mer tables for DNA with k <= PS_KMER_MAX_K; d_counts
 * zeroed. Freed with ps_gpu_tables_free. */
cudaError_t ps_gpu_tables_upload(ps_gplan_t *pl, const ps_automaton_t *a);
void ps_gpu_tables_free(ps_gplan_t *pl);

#endif
