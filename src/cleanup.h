/* cleanup.h - no half-written file left behind when the run is stopped.
 *
 * ps_cleanup_start blocks SIGINT, SIGTERM and SIGHUP in the calling thread
 * (threads made after it inherit the mask, so call it first) and starts one
 * thread that waits for them. When one arrives, every file registered with
 * ps_cleanup_add is removed, then the signal is raised again with its
 * default action, so the process ends as the signal asks (the shell sees
 * status 128 + n). The registry lives until the process ends. */
#ifndef PS_CLEANUP_H
#define PS_CLEANUP_H

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_cleanup ps_cleanup_t;

int ps_cleanup_start(ps_cleanup_t **out, ps_err_t *err);

/* Registers path (copied) for removal; <0 when out of memory. Safe on NULL c
 * (nothing is registered: no signal handling in that process). */
int ps_cleanup_add(ps_cleanup_t *c, const char *path, ps_err_t *err);

/* Forgets path (the file was renamed into place or removed). */
void ps_cleanup_drop(ps_cleanup_t *c, const char *path);

#ifdef __cplusplus
}
#endif

#endif
