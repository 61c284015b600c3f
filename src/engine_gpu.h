/* engine_gpu.h - the GPU engine (kernels/), or its absence.
 *
 * Built from kernels/ when nvcc was found, else from src/gpu_none.c, which
 * reports that this build has no GPU support. The GPU engine gives exactly the
 * CPU engine's leaf counts for every chunk. */
#ifndef PS_ENGINE_GPU_H
#define PS_ENGINE_GPU_H

#include <stddef.h>

#include "automaton.h"
#include "engine.h"
#include "error.h"
#include "kmerset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest chunk the GPU engine takes: 2^26 symbols is 16 MiB of packed
 * DNA, enough to keep a launch well above its fixed cost while bounding
 * device memory. */
#define PS_GPU_CHUNK_SYMS (1ull << 26)
#define PS_GPU_CHUNK_RESTARTS (1u << 20)

/* 1 when this machine shows NVIDIA device nodes, a check that costs nothing;
 * 0 means no GPU can be usable. It does not start CUDA. */
int ps_gpu_device_present(void);

/* 1 when GPU `device` can run the engine; else 0 and the reason in why.
 * This starts the CUDA driver (about 0.1 s on a machine with a GPU). */
int ps_gpu_usable(int device, char *why, size_t why_len);

/* The CUDA devices visible to this process (CUDA_VISIBLE_DEVICES applies);
 * 0 where none is, or the build has no CUDA. Starts the CUDA driver. */
int ps_gpu_count(void);

/* The CUDA runtime this build carries and the installed driver, for bug
 * reports ("runtime 13.0, driver 12.8"; "built without CUDA"). Starts no
 * GPU context. */
void ps_gpu_versions(char *buf, size_t len);

/* NULL-terminated list of kernel names accepted by --kernel ("best" first). */
const char *const *ps_gpu_kernel_names(void);

/* Creates the GPU engine on `device` with the named kernel (NULL = "best"),
 * for host_threads workers (its scan() takes worker ids below that). */
int ps_gpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int device, const char *kernel,
                      int host_threads, ps_err_t *err);

/* Creates the GPU engine over a k-mer set (DNA, k <= 32; kmerset.h), which
 * must outlive it: the table and filter are copied to the device, every
 * window of the text looked up there (kernels/gpu_scan.cu, ps_kset_kernel),
 * and the leaves counted in the set's numbering, as ps_kmer_engine_new's. */
int ps_gpu_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, int device, int host_threads, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
