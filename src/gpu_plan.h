/* gpu_plan.h - what the GPU engine decides on the host, in plain C: the
 * kernel variants, the tables it uploads and the launch plan.
 *
 * Compiled in every build, with or without CUDA, so that a machine without a
 * GPU tests it. The CUDA side (kernels/gpu_scan.cu) only queries the device,
 * uploads what ps_gpu_host_tables_build made, asks the occupancy of the kernel
 * the plan names, and launches.
 *
 * Variants. PS_K_* ids index ps_gpu_variant_names(); "best" is the default.
 *
 * Host tables. For every automaton: the DFA as 16-bit states when they fit
 * (n_states <= 65536). For DNA with 1 <= k <= PS_KMER_MAX_K: the k-mer tables,
 * indexed by the 2k-bit code of a k-mer, its oldest symbol in the low bits:
 *   kbits  membership bitmap: bit (code & 31) of word code >> 5 is set iff the
 *          k-mer ends at a leaf when walked from the root
 *   krank  per bitmap word: the present k-mers in the words before it
 *   kpair  (k <= 8) per (k+1)-mer y, 2 bits at 2 * (y & 15) of word y >> 4:
 *          bit 0 present(y's last k-mer, y & (4^k - 1)), bit 1 present(its
 *          first, y >> 2)
 *   kleaf  rank of a present k-mer -> its leaf id (one more word, 0)
 * Every table is a whole number of 16-byte groups (the kernels copy them to
 * shared memory 16 bytes at a time); padding is zero.
 *
 * Plan. ps_gpu_plan_choose fixes, from the automaton, the variant, the tables
 * present and the device limits, which kernel runs (the k-mer lookups with
 * kmer_m positions per lookup, or a DFA walk of walk_variant with the DFA in
 * shared memory or not, 16 or 32 bits a state), its block size and its
 * dynamic shared memory: for the DFA walk [DFA copy][counters][text stage],
 * for the k-mer path [pair table (kmer_m 2)][bitmap][ranks][counters].
 * Shared memory goes to what is read at every position first (DFA or k-mer
 * tables), then to as many leaf counters as fit; leaves past cnt_shared count
 * with global atomics. ps_gpu_plan_grid then makes the grid persistent: the
 * blocks of that kernel resident per SM (the CUDA occupancy query's answer)
 * times the SMs. ps_gpu_chunk_shape splits one chunk into block tiles.
 *
 * Errors: PS_E_NOMEM (tables), PS_E_GPU (the plan cannot run on the device:
 * its shared memory exceeds the opt-in limit, or no block is resident),
 * PS_E_INTERNAL (arguments no caller should pass). */
#ifndef PS_GPU_PLAN_H
#define PS_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "automaton.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel variants; each DFA-walk one adds one idea to the one before
 * (kernels/gpu_scan.cu has the ablation). */
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

/* Block sizes, for the plan and the kernels' launch bounds alike: the DFA-walk
 * ablation steps, best's DFA walk, and the k-mer kernel (large blocks, since a
 * block's tables cost one shared copy each and its counters one flush each). */
enum { PS_STEP_THREADS = 256, PS_BEST_THREADS = 512, PS_KMER_THREADS = 1024 };

/* Variant id of a kernel name (NULL = best), or -1. */
int ps_gpu_variant(const char *name);
/* NULL-terminated names indexed by variant id, best first. */
const char *const *ps_gpu_variant_names(void);
/* The names for people, best first then the ablation from the top down:
 * "best, kmer, leaf, compact, coalesced, shared, baseline". Writes at most
 * len bytes (NUL-terminated when len > 0) and returns the length of the whole
 * list, as snprintf does. */
size_t ps_gpu_variant_list(char *buf, size_t len);

/* What the plan reads of the device. */
typedef struct {
    int n_sm;              /* multiprocessors */
    size_t smem_optin;     /* shared bytes a block may opt in to */
    size_t smem_sm;        /* shared bytes per multiprocessor */
    int max_threads_sm;    /* resident threads per multiprocessor */
    int max_blocks_sm;     /* resident blocks per multiprocessor */
} ps_gpu_limits_t;

/* Tables present on the device (a mask), as the plan's input. */
#define PS_GT_DFA16 1u /* the DFA as 16-bit states */
#define PS_GT_KMER 2u  /* the k-mer bitmap, ranks and leaves */
#define PS_GT_KPAIR 4u /* the k-mer pair table */

/* Bytes of the DFA with entry_bytes (2 or 4) per entry, padded to 16. */
size_t ps_gpu_dfa_bytes(const ps_automaton_t *a, unsigned entry_bytes);
/* Words of the k-mer bitmap (also of the rank table) and of the pair table
 * (0 when k > 8), multiples of 4. */
uint32_t ps_kmer_bit_words(int k);
uint32_t ps_kmer_pair_words(int k);

typedef struct {
    uint16_t *dfa16;       /* ps_gpu_dfa_bytes(a, 2) bytes, or NULL */
    uint32_t *kbits, *krank, *kpair, *kleaf; /* NULL when absent */
    uint32_t bit_words, pair_words, leaf_words;
} ps_gpu_host_tables_t;

/* Builds the host tables of a (see the top). The k-mer tables are built by
 * walking each of the 4^k k-mers from the root (at most 2.4 million DFA steps)
 * and left out, with PS_OK, where the ranks do not number the leaves exactly
 * (a malformed automaton: the DFA walk still counts it). */
int ps_gpu_host_tables_build(ps_gpu_host_tables_t *t, const ps_automaton_t *a, ps_err_t *err);
void ps_gpu_host_tables_free(ps_gpu_host_tables_t *t);
/* PS_GT_* mask of the tables built. */
unsigned ps_gpu_host_tables_have(const ps_gpu_host_tables_t *t);

typedef struct {
    /* In, set before ps_gpu_plan_choose: */
    int no_kmer;             /* best keeps the DFA walk (the ablation's DFA row) */
    int no_shared_counts;    /* every leaf counted with global atomics, the rest of
                              * the plan unchanged (the bench's counter-switch rows) */
    /* Copied from the call: */
    int variant;             /* as asked */
    int bits;                /* 2 or 5; also the DFA row shift */
    int k;
    uint32_t n_states, leaf_base, n_leaves;
    unsigned tables;         /* PS_GT_* mask */
    /* Chosen: */
    int kmer_m;              /* 0: DFA walk; 1 or 2: k-mer lookups, positions tested per lookup */
    int walk_variant;        /* the DFA walk's kernel (kmer without its tables runs best's) */
    int threads, blocks;     /* block size; persistent grid size (ps_gpu_plan_grid) */
    size_t smem;             /* dynamic shared bytes per block */
    int dfa_shared;          /* 1: DFA copied to shared memory */
    int dfa16;               /* 1: 16-bit DFA entries */
    uint32_t dfa_bytes;      /* shared bytes of the DFA copy (0 unless dfa_shared) */
    uint32_t cnt_shared;     /* leaves (k-mer path: ranks) [0, cnt_shared) counted in shared memory */
    uint32_t cnt_bytes;      /* their shared bytes (a multiple of 16) */
    uint32_t hw;             /* words a thread walks before its tile (DFA walk) */
    uint32_t halo_words;     /* staged words before a block tile (a multiple of 16) */
    uint32_t bit_words;      /* k-mer path: words of the shared bitmap and of the ranks */
    uint32_t pair_words;     /* k-mer path: words of the shared pair table (0 unless kmer_m 2) */
    /* The k-mer set kernel (ps_gpu_plan_kset), else all 0: */
    int kset;                /* 1: the text's k-mers looked up in a k-mer set (kmerset.h) */
    int table_bits;          /* its table: 1 << table_bits 16-byte slots, in global memory */
    int filter_bits;         /* its filter: 1 << filter_bits 64-bit words */
    int filter_shared;       /* 1: each block copies the filter to shared memory */
} ps_gpu_plan_t;

/* Chooses everything but blocks for variant (PS_K_*) given the automaton,
 * the PS_GT_* tables present and the device; reads p->no_kmer and
 * p->no_shared_counts. `best` takes the k-mer path whenever its tables exist
 * (DNA, k <= PS_KMER_MAX_K) unless no_kmer; `kmer` where they do not runs
 * best's DFA walk. PS_E_GPU when the plan's shared memory exceeds
 * lim->smem_optin, PS_E_INTERNAL for a variant out of range or a DFA row
 * shift other than 2 or 5. */
int ps_gpu_plan_choose(ps_gpu_plan_t *p, int variant, const ps_automaton_t *a, unsigned tables,
                       const ps_gpu_limits_t *lim, ps_err_t *err);

/* The k-mer set kernel's plan (kernels/gpu_scan.cu): DNA k-mers of
 * 1 <= k <= 32 looked up in a set of 1 << table_bits slots behind a filter
 * of 1 << filter_bits words, n_leaves counted with global atomics (a hit is
 * rare beside a lookup, and a million leaves do not fit a block). Every
 * position costs a filter probe, so the filter goes to shared memory when
 * it leaves room for PS_KSET_SMEM_BLOCKS blocks an SM (up to 32,768 keys,
 * a 64 KiB filter, on a 228 KB SM); a larger one is read through L2, where
 * the H100's 50 MB holds the 4 MB filter of a million keys.
 * no_shared_counts, set before, keeps the filter in global memory too (the
 * bench's switch). No variant but best; PS_E_INTERNAL for k (1..32),
 * table_bits or filter_bits (1..40) out of range. */
#define PS_KSET_THREADS 256
#define PS_KSET_SMEM_BLOCKS 3
int ps_gpu_plan_kset(ps_gpu_plan_t *p, int k, int table_bits, int filter_bits, uint32_t n_leaves,
                     const ps_gpu_limits_t *lim, ps_err_t *err);

/* Most blocks of the plan's kernel that shared memory, threads and the block
 * limit let reside on one SM (registers aside): an upper bound of what the
 * occupancy query can answer. */
int ps_gpu_plan_resident_max(const ps_gpu_plan_t *p, const ps_gpu_limits_t *lim);

/* The persistent grid: blocks = per_sm x SMs, per_sm being the blocks of the
 * chosen kernel resident per SM (from the occupancy query). PS_E_GPU when
 * per_sm < 1 or above ps_gpu_plan_resident_max. */
int ps_gpu_plan_grid(ps_gpu_plan_t *p, int per_sm, const ps_gpu_limits_t *lim, ps_err_t *err);

/* One line describing the plan, for -v and the bench. */
void ps_gpu_plan_format(const ps_gpu_plan_t *p, char *buf, size_t len);

/* One chunk of n symbols (n < 2^32) under a plan: its words, the words a
 * thread owns (PS_TILE_WORDS; the k-mer set kernel fewer, down to 1, while
 * the chunk has fewer than that many words for each thread of the grid), its
 * block tiles (threads x tw words each) and the grid that runs them (a block
 * per tile, at most the plan's persistent grid; a plan without its grid yet
 * counts as one block). */
typedef struct {
    uint32_t n, nw, tw, n_btiles;
    unsigned grid;
} ps_gpu_chunk_shape_t;
void ps_gpu_chunk_shape(const ps_gpu_plan_t *p, uint64_t n, ps_gpu_chunk_shape_t *out);

#ifdef __cplusplus
}
#endif

#endif
