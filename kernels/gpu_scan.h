/* gpu_scan.h - the scan kernels' launch interface (CUDA C++, kernels/ only).
 *
 * A plan (src/gpu_plan.h, in C) fixes, for one automaton and one kernel
 * variant, where the DFA (or the k-mer tables) and the leaf counters live
 * (shared or global memory), the block size and the persistent grid; here it
 * gains the device buffers and the kernel it names. ps_gpu_launch then scans
 * one packed chunk already on the device and adds its matches into the
 * plan's 64-bit device counters. */
#ifndef PS_GPU_SCAN_H
#define PS_GPU_SCAN_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "automaton.h"
#include "gpu_plan.h"
#include "kmerset.h"
#include "pack.h"

/* The plan's decisions (ps_gpu_plan_t: inputs no_kmer and no_shared_counts,
 * kernel, block size, shared layout, grid) with the device tables it reads. */
typedef struct ps_gplan : ps_gpu_plan_t {
    const uint32_t *d_delta;      /* n_states << bits entries (padded to 16 bytes) */
    const uint16_t *d_delta16;    /* the same as 16-bit states, or NULL */
    unsigned long long *d_counts; /* n_leaves */
    /* k-mer tables (DNA, k <= PS_KMER_MAX_K; else NULL), laid out as in
     * gpu_plan.h: */
    const uint32_t *d_kbits;      /* membership bitmap */
    const uint32_t *d_krank;      /* per bitmap word: present k-mers in the words before it */
    const uint32_t *d_kpair;      /* per (k+1)-mer: 2 presence bits; NULL when k > 8 */
    const uint32_t *d_kleaf;      /* rank of a present k-mer -> its leaf id */
    /* The k-mer set (plan kset; else NULL): */
    const ps_kmer_slot_t *d_kslot;
    const unsigned long long *d_kfilter;
    const void *kernel;           /* the kernel the plan names (its argument type follows kset and kmer_m) */
} ps_gplan_t;

/* Decides the configuration for `variant` (PS_K_*) on `device` given the
 * automaton, the device buffers already filled in pl (d_delta, d_delta16,
 * d_counts, the k-mer tables) and the inputs pl->no_kmer and
 * pl->no_shared_counts: reads the device's limits, lets ps_gpu_plan_choose
 * decide, and sizes the persistent grid from the chosen kernel's occupancy.
 * Uploads nothing. Returns cudaSuccess or the failing call's error
 * (cudaErrorInvalidValue when the plan needs more shared memory than a block
 * may have, cudaErrorInvalidConfiguration when no block fits on an SM). */
cudaError_t ps_gpu_plan(ps_gplan_t *pl, int variant, const ps_automaton_t *a, int device);

/* One line describing the plan, for -v. */
void ps_gpu_plan_describe(const ps_gplan_t *pl, char *buf, size_t len);

/* Scans n symbols of packed text (n_ctx context) with restarts, all on the
 * device, on stream st. Returns the launch error, if any. */
cudaError_t ps_gpu_launch(const ps_gplan_t *pl, const uint32_t *d_text, uint64_t n, uint32_t n_ctx,
                          const uint32_t *d_restart, uint32_t n_restart, cudaStream_t st);

/* Device copies of an automaton's tables (ps_gpu_host_tables_build's, and the
 * 32-bit DFA); d_counts zeroed. Freed with ps_gpu_tables_free. */
cudaError_t ps_gpu_tables_upload(ps_gplan_t *pl, const ps_automaton_t *a);
void ps_gpu_tables_free(ps_gplan_t *pl);

/* The k-mer set's table, filter and zeroed counters on the device
 * (clearing the rest of pl), and its plan (ps_gpu_plan_kset, the grid as
 * above). Freed with ps_gpu_tables_free. */
cudaError_t ps_gpu_kset_upload(ps_gplan_t *pl, const ps_kmerset_t *ks);
cudaError_t ps_gpu_plan_kmerset(ps_gplan_t *pl, const ps_kmerset_t *ks, int device);

/* cudaSuccess when this build holds a kernel image that runs on `device`;
 * else why not (cudaErrorNoKernelImageForDevice or
 * cudaErrorInvalidDeviceFunction when none was built for its architecture,
 * cudaErrorUnsupportedPtxVersion when only PTX newer than the driver is).
 * The calling thread's current device is left as it was. */
cudaError_t ps_gpu_image_check(int device);

#endif
