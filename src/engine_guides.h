/* engine_guides.h - the guide engine: a guide library (guideset.h) matched
 * PAM first on CPU threads.
 *
 * It counts and lists exactly what the pattern engine does over the same
 * pattern set (windows: a site of length m counts iff it ends at a position
 * >= c->n_ctx with no restart among its last m - 1 positions, once, at its
 * mismatches), leaf for leaf; counts are kept per worker. */
#ifndef PS_ENGINE_GUIDES_H
#define PS_ENGINE_GUIDES_H

#include "engine.h"
#include "guideset.h"
#include "patset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the engine for `threads` workers (>= 1) over ps, which must
 * outlive it; 1 (nothing made; why says why) where ps is no guide set. */
int ps_guide_engine_new(ps_engine_t **out, const ps_patset_t *ps, int threads, char *why, size_t len,
                        ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
