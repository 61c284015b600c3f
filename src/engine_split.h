/* engine_split.h - one engine made of two, each counting a part of the
 * probes on the same chunks: the GPU taking the patterns it can and the CPU
 * the rest, or on CPU threads the windows read forward and the rest read
 * by starts.
 *
 * Each part has its own leaves, numbered from 0; map_a[l] (map_b[l]) is
 * the leaf of the whole set that part a's (b's) leaf l stands for, so that
 * collect() adds the parts' counts into the whole set's leaf counts. Every
 * scan() goes to both parts, a first (it may return before its counting
 * is done, as a GPU engine does, so b's work overlaps it). The engine
 * reports part a's kind, device and chunk limits, and places chunks as a
 * asks (pinned memory for a GPU); it does not count per record (the CPU
 * alone does), and lists sites (`locate`) where both parts do, a's first.
 * It owns both parts and the maps once made, also on failure. */
#ifndef PS_ENGINE_SPLIT_H
#define PS_ENGINE_SPLIT_H

#include <stdint.h>

#include "engine.h"
#include "patset.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

int ps_split_engine_new(ps_engine_t **out, ps_engine_t *a, uint32_t *map_a, uint32_t n_a, ps_engine_t *b,
                        uint32_t *map_b, uint32_t n_b, ps_err_t *err);

/* The pattern set ps of probes p split so: the GPU pattern engine on each
 * of gpus (engine_gpus.h) for the patterns of at most 64 positions, the
 * CPU pattern engine
 * for the longer ones; their part sets built into parts[0] and parts[1]
 * (the caller frees them after the engine), *n_gpu the probes the GPU
 * takes. PS_E_USAGE when either part would be empty. */
int ps_split_patterns_new(ps_engine_t **out, const ps_probes_t *p, const ps_patset_t *ps, const ps_gpus_t *gpus,
                          int workers, ps_patset_t *parts[2], uint32_t *n_gpu, ps_err_t *err);

/* The pattern set ps of probes p on CPU threads in two parts, where it has
 * both kinds: its windows (strings of one length, no anchor), read forward
 * at a few word operations a symbol, and the rest, read backward by starts
 * (patset.h), which costs more a word; parts[0] and parts[1] as above.
 * count_windows: scan_sites() counts the windows' sites (collect() gives
 * them) and lists only the rest's: `count` under ps_scan's rules, where a
 * window's site is never left out by the sites before it. Returns 1,
 * nothing made, where the set is of one kind (or has a minus strand read
 * forward). The rest splits again where its strings of over 64 positions
 * take a gate (patset.h) on their own: those, read backward only near
 * their windows' matches, in parts[2] (else NULL), the shorter ones in
 * parts[1]. */
int ps_split_windows_new(ps_engine_t **out, const ps_probes_t *p, const ps_patset_t *ps, int workers, int count_windows,
                         ps_patset_t *parts[3], ps_err_t *err);

/* The pattern set on the GPUs gpus: whole, or split as above where some
 * pattern is too long for them; with count_windows, where the set has
 * windows and other patterns, the windows apart on the GPUs, counted there
 * (scan_sites lists only the rest's sites, as ps_split_windows_new's), the
 * rest on the GPUs too and its patterns of over 64 positions on CPU
 * threads (sets in parts[0..2]); *n_gpu the probes the GPUs take. required
 * (--engine gpu): a GPU that fails to start or a set it cannot take is the run's
 * error, saying to use --engine cpu. Else such a failure returns 1, with
 * why[0..why_len) saying what failed and err cleared: the caller takes CPU
 * threads. */
int ps_gpu_patterns_new(ps_engine_t **out, const ps_probes_t *p, const ps_patset_t *ps, const ps_gpus_t *gpus,
                        int workers, int required, int count_windows, ps_patset_t *parts[3], uint32_t *n_gpu,
                        char *why, size_t why_len, ps_err_t *err);

/* Whether ps_gpu_patterns_new makes an engine in parts (the windows
 * counted apart, or patterns of over 64 positions on CPU threads) where
 * its GPUs start: the pipeline then sizes chunks as for the default
 * engine's CPU side (scan.h). */
int ps_gpu_patterns_split(const ps_probes_t *p, const ps_patset_t *ps, int count_windows);

#ifdef __cplusplus
}
#endif

#endif
