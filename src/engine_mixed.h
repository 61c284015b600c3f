/* engine_mixed.h - the GPU engine with CPU threads covering its start.
 *
 * Creating a CUDA context takes a few hundred milliseconds, as long as
 * scanning a gigabase. This engine starts the GPU engine on a background
 * thread and scans on the CPU engine meanwhile; once the GPU is ready every
 * worker hands its chunks to the GPU's streams. Both engines give identical
 * leaf counts, so which one scanned a chunk does not change the result. If
 * the GPU fails to start, the CPU engine finishes the work and the failure is
 * reported in the device description. */
#ifndef PS_ENGINE_MIXED_H
#define PS_ENGINE_MIXED_H

#include "automaton.h"
#include "engine.h"
#include "error.h"
#include "kmerset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPUs are those ps_gpus_choose gives for *asked and the CPU's
 * estimate cpu_s (one per second of it; -1: every visible one), started on
 * the background thread: their count asks the driver. */
int ps_mixed_engine_new(ps_engine_t **out, const ps_automaton_t *a, const ps_gpus_t *asked, double cpu_s,
                        const char *kernel, int threads, ps_err_t *err);

/* The same over a k-mer set (ps_gpu_kmer_engine_new, with the CPU k-mer
 * engine covering its start). */
int ps_mixed_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, const ps_gpus_t *asked, double cpu_s,
                             int threads, ps_err_t *err);

/* The exact GPU engine of one device for ps_gpus_engine_new: over ctx's
 * automaton (with its kernel variant) or k-mer set. */
typedef struct {
    const ps_automaton_t *a;
    const ps_kmerset_t *ks;
    const char *kernel;
    int workers;
} ps_gpu_exact_t;
int ps_gpu_exact_make(void *ctx, int device, ps_engine_t **out, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
