/* profile_gpu.h - the best scores of PROSITE profiles (profile.h) against
 * many sequences on an NVIDIA GPU: ps_profile_best of every (profile,
 * sequence) pair, exactly (32-bit sums), for the filter before the exact
 * search for matches, which stays on the CPU (profscan.c).
 *
 * A thread scores one sequence against one profile; a block holds one
 * profile's tables in shared memory (pftools' 16-bit values, 152 bytes a
 * position) and takes its sequences in turn. A thread keeps 16 rows of the
 * dynamic programming in registers and the row under them in device
 * memory, so each node costs two shared-memory reads (its residue's
 * scores; a position's transitions are read once for the 16 rows) and
 * about 40 integer operations. Device memory: the tables, one batch's residues and
 * scores, and per thread 12 bytes a position of the longest profile. */
#ifndef PS_PROFILE_GPU_H
#define PS_PROFILE_GPU_H

#include <stdint.h>

#include "error.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_gprof ps_gprof_t;

/* Uploads n_prof profiles to GPU gpu_id. PS_E_GPU (with why) where no GPU
 * is usable, or the build has no CUDA. */
int ps_gprof_new(ps_gprof_t **out, const ps_profile_t *prs, uint32_t n_prof, int gpu_id, ps_err_t *err);
/* letters[off[s] .. off[s] + len[s]): sequence s's residues as letter
 * numbers 0..25. best: n_prof * n_seq scores, profile by profile. */
int ps_gprof_best(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const uint64_t *off, const uint32_t *len,
                  uint32_t n_seq, int32_t *best, ps_err_t *err);
void ps_gprof_free(ps_gprof_t *g);

#ifdef __cplusplus
}
#endif

#endif
