/* engine_cpu.h - the CPU engine: the automaton walked over chunks on threads.
 *
 * It is the oracle: every other engine must give the same leaf counts. */
#ifndef PS_ENGINE_CPU_H
#define PS_ENGINE_CPU_H

#include <stdint.h>

#include "automaton.h"
#include "engine.h"
#include "pack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds to leaf_counts[0..a->n_leaves) the matches that end in c at positions
 * >= c->n_ctx, honouring c's restarts. Pure; safe to call concurrently on
 * distinct count arrays. */
void ps_cpu_scan_chunk(const ps_automaton_t *a, const ps_chunk_t *c, uint64_t *leaf_counts);

/* Creates the CPU engine for `threads` workers (>= 1). */
int ps_cpu_engine_new(ps_engine_t **out, const ps_automaton_t *a, int threads, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
