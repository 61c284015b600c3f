/* engine_bulges.h - the bulge engine: guides with DNA and RNA bulges
 * (bulges.h) matched PAM first on CPU threads.
 *
 * Each segment (pack.h: no N, one record) is read through one window of W =
 * n + dna + a symbols, forward and reverse-complemented at once. Where the
 * window's PAM end holds the PAM on a strand, the n + dna bases beside it,
 * read on that strand, are compared with every guide: its spacer at the
 * site's own alignment (no bulge) and shifted by each bulge size (the
 * bases before and after a bulge align at different shifts), each as a
 * mask of mismatched positions; a bulge at j costs the prefix's mismatches
 * of one shift and the suffix's of the other. A cheap bound (the prefix up
 * to a middle position, or the suffix from it, must already fit the limit)
 * passes over most guides before any position is tried.
 *
 * A site counts in the chunk where it ends (at or past c->n_ctx), once:
 * one variant (bulges.h: the position of fewest mismatches), or with
 * all_positions every position within the guide's limit. Counts are kept
 * per worker. */
#ifndef PS_ENGINE_BULGES_H
#define PS_ENGINE_BULGES_H

#include "bulges.h"
#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The engine for `threads` workers over b, which must outlive it. */
int ps_bulge_engine_new(ps_engine_t **out, const ps_bulgeset_t *b, int threads, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
