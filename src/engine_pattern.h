/* engine_pattern.h - the pattern engine: the pattern set (patset.h) matched
 * bit-parallel over the text on CPU threads.
 *
 * Windows (patset.h: windows_only) count by the packed text's rule (pack.h),
 * each string with its own length: a site of a string of length L counts
 * iff it ends at a position >= c->n_ctx with no restart among its last L - 1
 * positions (chunks repeat k - 1 symbols of context, k the longest string).
 * Otherwise a site is owned by its start, with the chunk's segment edges:
 * a chunk counts the starts whose every match it holds whole, that is those
 * in a segment that ends inside it (or at its end, when tail_edge says the
 * segment ends there) or at least k - 1 symbols before its end; the others
 * lie in the next chunk's context, which counts them. This needs chunks
 * read in order with edges (leaves.sequential). A site counts once, at its
 * distance: the fewest mismatches with which the string matches there.
 * Counts are kept per worker. */
#ifndef PS_ENGINE_PATTERN_H
#define PS_ENGINE_PATTERN_H

#include "engine.h"
#include "patset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates the engine for `threads` workers (>= 1) over ps, which must
 * outlive it. */
int ps_pattern_engine_new(ps_engine_t **out, const ps_patset_t *ps, int threads, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
