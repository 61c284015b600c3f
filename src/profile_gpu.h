/* profile_gpu.h - PROSITE profiles (profile.h) against many sequences on
 * an NVIDIA GPU: ps_profile_best of every (profile, sequence) pair,
 * exactly (32-bit sums), the filter before the exact search; and that
 * search (ps_profile_matches' residue ranges and scores, pfscanV3's xalip)
 * for the pairs that pass it, a warp a pair. The matches' profile ranges
 * (xalit) are left to the caller (ps_profile_range).
 *
 * A thread scores one sequence against one profile; a block holds one
 * profile's tables in shared memory (pftools' 16-bit values, 152 bytes a
 * position) and takes its sequences in turn. A thread keeps 16 rows of the
 * dynamic programming in registers and the row under them in device
 * memory, so each node costs two shared-memory reads (its residue's
 * scores; a position's transitions are read once for the 16 rows) and
 * about 20 integer operations (max(a + b, c) is one on Hopper). A batch's
 * sequences are taken longest first, so that a warp's lanes score
 * sequences of about one length; sequences of PS_GPROF_WAVE_FROM residues
 * or more are scored as the search walks a pair (below), a warp a pair,
 * beside them. Device memory: the tables (and the search's copy of them,
 * laid out for its strips), one batch's residues and scores, and per
 * thread 8 bytes a position of the longest profile.
 *
 * The search gives each pair a warp: lane t holds positions t * S .. of
 * the profile (S = ceil((L + 1) / 32)), their row in shared memory (32
 * bytes a position), and takes each row one step after lane t - 1, so that
 * a row's deletions run from lane to lane and the warp's 32 lanes work on
 * 32 rows at once; lane 31 takes the search's decisions as each row is
 * whole. The costliest pairs start first. Device memory: the batch's
 * residues again (the search runs beside the next batch's best scores, on
 * a stream of its own), and a pair's matches (PS_GPROF_MATCHES). */
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

/* One (sequence, profile) pair for the search: its residues
 * letters[off .. off + len), the profile (numbered as in ps_gprof_new's
 * prs), and the raw cut-off. */
typedef struct {
    uint64_t off;
    uint32_t len, prof;
    int32_t cut;
} ps_gprof_pair_t;

/* Sequences from this many residues have their best scores computed a
 * warp a (sequence, profile) pair, as the search walks a pair: a thread
 * alone on one kept a batch's last threads busy. Over 199 M UniProt
 * residues (an H200): from 3,000, 2.85-2.92 s end to end; from 2,000,
 * 3.14-3.29 s; from 1,000, 4.66-4.69 s (a warp's rows cost more a node);
 * none, 3.39-3.44 s. */
#ifndef PS_GPROF_WAVE_FROM
#define PS_GPROF_WAVE_FROM 3000u
#endif

/* Matches a pair may have on the GPU; a pair with more is searched on the
 * CPU. */
#define PS_GPROF_MATCHES 32

/* ps_profile_matches of each pair, without profile ranges: n_match[i] the
 * number of pair i's matches, match[i * PS_GPROF_MATCHES ..] their from, to
 * and score in the order found (pfrom, pto 0), or n_match[i] -1 where it
 * had more than PS_GPROF_MATCHES or its profile's rows do not fit a block's
 * shared memory (over about 6,000 positions): the caller searches those.
 * May run while another thread calls ps_gprof_best on the same g. */
int ps_gprof_matches(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const ps_gprof_pair_t *pairs,
                     uint32_t n_pair, int32_t *n_match, ps_prf_match_t *match, ps_err_t *err);
void ps_gprof_free(ps_gprof_t *g);

/* The search's kernel code run on the host for one pair (letters: its
 * residues as letter numbers), the warp's lanes one after another at each
 * step: its n_match and match as ps_gprof_matches gives them. How the tests
 * check the kernel's lanes where no GPU is. PS_E_GPU in a build without
 * CUDA; PS_E_NOMEM. */
int ps_gprof_matches_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, int32_t cut, int32_t *n_match,
                          ps_prf_match_t *match, ps_err_t *err);
/* Likewise the long sequences' best-score kernel: *best as ps_gprof_best
 * gives it for a sequence of PS_GPROF_WAVE_FROM residues or more (any n
 * here). */
int ps_gprof_best_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n, int32_t *best, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
