/* engine_later.h - an engine made on a background thread while the input
 * is read: a GPU engine, whose start (the driver, the context, the
 * tables: 0.2-0.3 s on an H100 host) then overlaps the reading of the
 * first chunks instead of coming before it.
 *
 * ps_later_engine_new returns at once; a thread runs start(ctx), which
 * makes the engine that does the work: the GPU's, or, where the GPU does
 * not start and the run may take the CPU (--engine auto), a CPU engine of
 * the same counts, with why it took it. scan(), scan_sites() and collect()
 * wait for start() to end and then go to that engine; a start that failed
 * is every later call's error (--engine gpu), once the chunks already read
 * are handed back. Every count and site is the made engine's, so the
 * output is what that engine gives alone.
 *
 * Until start() ends, info() says what `before` says: the kind
 * PS_ENGINE_AUTO (so the pipeline sizes chunks for either side, scan.h)
 * and the GPU's chunk limits; chunks are ordinary memory (pinned memory
 * needs the context that is starting). Afterwards info() is the made
 * engine's, with kind PS_ENGINE_AUTO and why in gpu_error where the CPU
 * took the work. The engine places sites (scan_sites) and never counts per
 * record; start() must make such an engine. It owns what start() made and
 * frees ctx with ctx_free (may be NULL) once the thread has ended. */
#ifndef PS_ENGINE_LATER_H
#define PS_ENGINE_LATER_H

#include <stddef.h>

#include "engine.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the engine on the start thread: PS_OK with *out (and *on_cpu 1,
 * why filled, where it is the CPU's because the GPU did not start), or an
 * error in err. */
typedef int (*ps_later_start_fn)(void *ctx, ps_engine_t **out, int *on_cpu, char *why, size_t why_len,
                                 ps_err_t *err);

int ps_later_engine_new(ps_engine_t **out, ps_later_start_fn start, void *ctx, void (*ctx_free)(void *),
                        const ps_engine_info_t *before, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
