/* engine_gpus.h - one engine over several GPUs, and which GPUs a run takes.
 *
 * ps_gpus_engine_new makes a GPU engine on each device of the list (all at
 * once, on a thread each: a CUDA context takes a few hundred milliseconds to
 * start) through the caller's maker, and hands each chunk to the device with
 * the fewest chunks in flight. Every engine counts exactly what the others
 * would, and the pipeline (scan.h) puts chunks' results back in input
 * order, so counts and rows are those of one GPU whatever the device that
 * scanned a chunk. collect() adds every device's counts. info() is the
 * first device's, with every device's chunks summed and each device's share
 * (ps_gpu_share_t). Chunks are placed as the first device's engine asks
 * (portable pinned memory, which every device copies from). A list of one
 * device gets the same wrapper, so that its share is reported alike. The
 * engine owns the devices' engines; a device that fails to start fails the
 * whole engine, with that device's error, and the others are freed.
 *
 * ps_gpus_choose resolves --gpu: the devices asked for (each must be
 * visible), every visible one for `all`, and by default every visible one
 * the work repays: one per repay_s seconds of the CPU threads' estimate
 * (cpu_s; unknown, <= 0: every one), at least one. */
#ifndef PS_ENGINE_GPUS_H
#define PS_ENGINE_GPUS_H

#include <stddef.h>

#include "engine.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the engine of one device; ctx is the caller's. */
typedef int (*ps_gpu_maker_fn)(void *ctx, int device, ps_engine_t **out, ps_err_t *err);

int ps_gpus_engine_new(ps_engine_t **out, const ps_gpus_t *use, ps_gpu_maker_fn make, void *ctx, ps_err_t *err);

/* Fills *use from *asked; visible is the count of CUDA devices
 * (ps_gpu_count). Returns 0, or -1 with why when no device can be used
 * (none visible, or one asked for beyond the visible ones). */
int ps_gpus_choose(const ps_gpus_t *asked, int visible, double cpu_s, double repay_s, ps_gpus_t *use, char *why,
                   size_t len);

/* 1 when every device of *use can run the engines (ps_gpu_usable); else 0
 * and the first failure, naming its device, in why. */
int ps_gpus_usable(const ps_gpus_t *use, char *why, size_t len);

/* ps_gpus_choose over the devices the CUDA driver shows, each then checked
 * usable: 0 with *use, or -1 with why (none visible: the driver's or the
 * build's own reason). Starts the CUDA driver. */
int ps_gpus_pick(const ps_gpus_t *asked, double cpu_s, double repay_s, ps_gpus_t *use, char *why, size_t len);

/* Whether a CUDA_VISIBLE_DEVICES value hides every device: its first
 * entry is neither a device number nor a GPU-/MIG- UUID (CUDA shows the
 * devices listed before the first entry it cannot read, so none), or it
 * is empty. NULL (not set) hides none. */
int ps_gpus_list_hides_all(const char *visible);

/* Whether the GPUs are likely to start, asked without the driver (which
 * takes 0.1 s to load): a device node /dev/nvidiaN is present and
 * CUDA_VISIBLE_DEVICES does not hide every device. An engine that starts
 * its GPUs while the input is read (engine_later.h) is chosen only then:
 * a start that fails leaves CPU threads on chunks sized for a GPU. */
int ps_gpus_likely(void);

/* "GPU 0" or "GPUs 0,1,2" (in list order). */
void ps_gpus_name(const ps_gpus_t *use, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
