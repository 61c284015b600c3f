/* profscan.h - the PROSITE profiles of a probe file, scored over protein
 * FASTA inputs for `count` and `locate`.
 *
 * ps_profiles_load reads every MATRIX entry of a PROSITE data file (any
 * other probe file has none) as profile.h reads it; an entry refused gets
 * a warning naming it and the reason, and the run goes on with the rest.
 *
 * ps_profiles_scan reads one input's FASTA records in batches of about
 * PS_PRF_BATCH residues (the memory bound: the batch, and per thread the
 * profile's rows and one alignment trace), gives every (record, profile)
 * its best score (the profiles in bundles on `threads` threads, records
 * split by residues; or on the GPU, ps_profiles_engine), searches the
 * pairs whose best reaches the cut-off for their matches on the threads
 * (with GPUs, most of them on the GPUs: PS_PRF_SEARCH_GPU_NS),
 * and adds each profile's matches to counts[profile] and, with a stream,
 * writes them: per record in input order, by start, then profile order,
 * then end.
 * Rows (1-based inclusive unless said):
 *   pff  record from to accession profile_from profile_to raw_score
 *        normalised_score level (ps_scan's pff; profile_to as pfscanV3
 *        prints it, counted back from the profile's end: -1 its last
 *        position; the normalised score with 3 decimals, empty where the
 *        profile has no normalisation)
 *   bed  record start(0-based) end accession raw_score +
 *   tsv  input record start(0-based) end name id profile_start profile_end
 *        raw_score norm_score level (ps_profiles_tsv_header) */
#ifndef PS_PROFSCAN_H
#define PS_PROFSCAN_H

#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "options.h"
#include "profile.h"
#include "profile_gpu.h"
#include "sites.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A batch closes at PS_PRF_BATCH residues, or at PS_PRF_PAIRS (record,
 * profile) pairs, whose best scores the GPUs return (4 bytes each): short
 * records against many profiles. */
#define PS_PRF_BATCH (16u << 20)
#define PS_PRF_PAIRS (32u << 20)
/* A batch's best scores on CPU threads run in chunks, this many a thread,
 * taken as threads free up. */
#define PS_PRF_CHUNKS 8
/* Positions a bundle's lanes run over at most, but for a longer profile:
 * the rows' tables of a bundle (about 2.4 KB a position) stay in L2. */
#define PS_PRF_BUNDLE_POSITIONS 512u

typedef struct {
    ps_profile_t *p;
    uint32_t n;
    ps_prf_bundle_t **bundle; /* the profiles in bundles (make_bundles) */
    uint32_t n_bundle;
    uint32_t *bundle_from;    /* bundle b's profiles: order[bundle_from[b] .. bundle_from[b + 1]) */
    uint32_t *order;          /* profile numbers, bundle after bundle */
    /* The best scores on GPUs (ps_profiles_engine): GPU g scores profiles
     * gpu_from[g] .. gpu_from[g + 1] - 1; n_gpu 0: CPU threads. */
    ps_gprof_t *gpu[PS_GPUS_MAX];
    int gpu_id[PS_GPUS_MAX];
    uint32_t gpu_from[PS_GPUS_MAX + 1];
    int n_gpu;
    uint32_t refused;   /* MATRIX entries not read (warned about) */
    uint32_t patterns;  /* PATTERN entries in the file that probes.c reads (not those
                         * --skip-frequent leaves out) */
    int prosite;        /* the file is a PROSITE data file */
} ps_profiles_t;

/* Reads the MATRIX entries of path for cut-off level `level`, leaving out
 * those flagged SKIP-FLAG=TRUE where skip_frequent. A file that is no
 * PROSITE data file gives none. */
int ps_profiles_load(ps_profiles_t *out, const char *path, int level, int skip_frequent, ps_err_t *err);
void ps_profiles_free(ps_profiles_t *ps);

/* The profiles a run of count or locate takes under ps_scan's options
 * (--no-profiles: none; --profiles-only: the profiles, patterns counted
 * as none; --level: that cut-off), refusing a --profiles-only or --level
 * that finds no profile to read. */
int ps_profiles_open(ps_profiles_t *out, const char *probes, const ps_psopts_t *pso, ps_err_t *err);

int ps_profiles_tsv_header(FILE *f);

/* A run of patterns and profiles reads each input twice (the patterns'
 * scan, then the profiles'): refused, saying so, where an input is
 * standard input or a pipe, which would give the profiles nothing. */
int ps_profiles_inputs_fit(const ps_profiles_t *ps, const char *const *inputs, int n, ps_err_t *err);

/* Where the best scores are computed: GPUs where asked (--engine gpu), or
 * (auto) where one is usable and CPU threads would take over
 * PS_PRF_GPU_FROM_S (PS_PRF_CPU_NS a residue a thread for each position of
 * each bundle's lanes, over `bytes` of input, ps_inputs_bytes; 0: unknown,
 * CPU); else CPU threads. The GPUs are --gpu's, or by default
 * one per second of that estimate (plan.h, ps_plan_gpus); each takes a run
 * of the profiles of about equal positions, all the batch's records. -v
 * says which and why. */
#define PS_PRF_CPU_NS 0.38
/* A GPU's start, its tables and its first batch cost about half a second
 * end to end: on an H200 host, 3,000 proteins took 0.41-0.51 s on the GPU,
 * 0.30-0.33 s on 16 CPU threads, 5,000 proteins 0.46-0.49 s against
 * 0.43-0.47 s (estimated 0.45 s; CPU_NS is a thread's figure with all 16
 * busy there). */
#define PS_PRF_GPU_FROM_S 0.5
/* With GPUs, the pairs that reach their cut-off are searched there too, a
 * warp a pair, but for the costliest (residues x positions) where CPU
 * threads would finish them first: as many as the threads,
 * PS_PRF_SEARCH_CPU_NS a node each (its costliest pair alone on one),
 * finish before the GPU is done with the costliest pair left to it,
 * PS_PRF_SEARCH_GPU_NS a node of that pair. On an H200 host (16 Xeon
 * cores) a thread's figure was tuned by whole runs; a batch's search alone
 * on the GPU took 0.038 s, its costliest pair 2.1 M nodes: 18 ns a node at
 * most, so the GPU takes every pair there. A build may set either
 * (-DPS_PRF_SEARCH_CPU_NS=). */
#ifndef PS_PRF_SEARCH_CPU_NS
#define PS_PRF_SEARCH_CPU_NS 20.0
#endif
#ifndef PS_PRF_SEARCH_GPU_NS
#define PS_PRF_SEARCH_GPU_NS 18.0
#endif
/* The GPUs' search at most (their matches: PS_GPROF_MATCHES, about 640
 * bytes a pair, on both sides). */
#define PS_PRF_SEARCH_GPU_PAIRS 65536u
int ps_profiles_engine(ps_profiles_t *ps, ps_engine_req_t req, const ps_gpus_t *gpus, double bytes, int threads,
                       int verbose, ps_err_t *err);

/* locate's rows over a run: at most max_hits a profile (0: no cap), as
 * --max-hits caps a pattern's; what was written and left out. */
typedef struct {
    uint64_t max_hits;
    uint64_t *written;   /* per profile (ps_prf_rows_init) */
    uint64_t rows, dropped;
    uint32_t capped;     /* profiles that had more matches than max_hits */
} ps_prf_rows_t;

int ps_prf_rows_init(ps_prf_rows_t *r, const ps_profiles_t *ps, uint64_t max_hits);
void ps_prf_rows_free(ps_prf_rows_t *r);

/* What ps_profiles_scan read and where its time went: reading and
 * parsing (the calling thread), best scores on the GPUs, and the matches'
 * search, counting and writing; the three overlap (a batch is read while
 * the one before is scored on the GPUs and the one before that searched),
 * so seconds is less than their sum. */
typedef struct {
    uint64_t records, residues;
    double read_s, best_s, search_s, seconds;
    /* Pairs whose search stopped at PS_PRF_MAX_MATCHES (a warning on
     * stderr names the count and the first, by record then profile). */
    uint64_t pairs_full;
    char full_record[64], full_profile[32];
} ps_prf_scan_stats_t;

/* Scores one input (label: its name in tsv rows). f NULL: counts only
 * (rows NULL); else rows caps and tallies what is written. counts take
 * every match, written or not. Batches are read, scored on the GPUs
 * (ps_profiles_engine) and searched on threads at once: memory is three
 * batches of about PS_PRF_BATCH residues with their names, and with GPUs
 * the best scores of two (at most PS_PRF_PAIRS each), and the pairs that
 * reach their cut-off. A (record, profile) pair's search stops at
 * PS_PRF_MAX_MATCHES matches; where any did, a warning on stderr says so. */
int ps_profiles_scan(const ps_profiles_t *ps, const char *path, const char *label, FILE *f, ps_sites_format_t format,
                     ps_prf_rows_t *rows, uint64_t *counts, int threads, ps_prf_scan_stats_t *st, ps_err_t *err);

/* -v: one line for an input's profiles, with where the time went. */
void ps_prf_scan_say(const char *input, const ps_profiles_t *ps, const ps_prf_scan_stats_t *st);

#ifdef __cplusplus
}
#endif

#endif
