/* plan.h - the one place `count` and `locate` choose what the probes are
 * matched in (the index) and by what (the engine).
 *
 * The index: the bulge set (bulges.h) for guides with DNA or RNA bulges;
 * the pattern set (patset.h) for patterns, mismatches, a PAM or limits per
 * probe (and for `locate --engine gpu`, whose GPU kernels match patterns);
 * else the k-mer set (kmerset.h) where it is asked for, or for DNA of
 * k <= 32 from PS_KMER_SET_FROM strings on; else the Aho-Corasick
 * automaton. Before building the k-mer set or the automaton for `count`,
 * one that could not fit with its counts in the memory this process may
 * use is refused.
 *
 * The engine, over the bulge set: the GPU where asked for, or (auto) where
 * one is present and the CPU bulge engine (engine_bulges.h) would take over
 * half a second; else CPU threads. Over the pattern set: the GPU where asked
 * for, or (auto) where one is present and the work repays starting it (the
 * CPU alone would take over a second: ps_patset_gpu_worth), not for
 * per-record counts; the GPU takes the patterns of up to 64 positions, CPU
 * threads beside it the longer ones (engine_split.h). Else CPU threads:
 * windows apart from the rest where the set has both (engine_split.h), a
 * guide library PAM first (engine_guides.h), or the pattern engine. Over
 * the k-mer set or the automaton: for `count`, the GPU when asked for, or
 * (auto) the GPU with CPU threads scanning while it starts (engine_mixed.h)
 * where the CPU alone would take over a second; for `locate`, which places
 * exact probes as fast as the input is read, CPU threads. -v says what ran
 * and why. */
#ifndef PS_PLAN_H
#define PS_PLAN_H

#include <stdint.h>

#include "automaton.h"
#include "bulges.h"
#include "engine.h"
#include "error.h"
#include "kmerset.h"
#include "options.h"
#include "patset.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --index (count): what exact probes are looked up in. */
typedef enum { PS_INDEX_AUTO, PS_INDEX_AUTOMATON, PS_INDEX_KMER_SET } ps_index_req_t;

/* What the run asks for and what the choices depend on. */
typedef struct {
    int locate;             /* sites are listed (`locate`), not counted */
    ps_engine_req_t engine; /* --engine */
    ps_index_req_t index;   /* --index */
    const char *kernel;     /* --kernel (the automaton's GPU variants), or NULL */
    ps_gpus_t gpus;         /* --gpu */
    int threads, verbose;
    int by_record;          /* counts per record (the CPU alone) */
    int mismatches;         /* the most any probe takes */
    int count_windows;      /* windows counted, not listed, on CPU threads and GPUs (engine_split.h) */
    int casoff_rows;        /* bulges: every bulge position a row (Cas-OFFinder's rows, bulges.h) */
    double bytes;           /* the inputs' sequence bytes (ps_inputs_bytes; 0: unknown) */
    uint64_t columns;       /* count columns of the table, for the memory bound */
    const char *probes;     /* the probe file, for messages */
} ps_plan_opts_t;

/* What was built: one index, its leaves, and the parts a split engine
 * matches (freed with the plan, after the engine). */
typedef struct {
    ps_automaton_t *a;
    ps_kmerset_t *ks;
    ps_patset_t *ps;
    ps_patset_t *parts[3];  /* windows or the GPU's, the rest, and the rest's long gated strings */
    ps_bulgeset_t *bs;      /* guides with bulges: the bulge set, its variants the probes of the rows */
    const ps_leaves_t *lv;
    char why[160];          /* why this index, for -v */
} ps_plan_t;

/* -v: how a guide engine (in->guides) finds its guides' sites. */
void ps_plan_say_guides(const ps_engine_info_t *in);

/* Builds the index for probes p (strands: both); pl is cleared first. The
 * automaton and the k-mer set keep what they need of the probes' codes,
 * which are freed (ps_probes_drop_codes): before the k-mer set is built,
 * which reads the sequences' text, and after the automaton is. */
int ps_plan_index(ps_plan_t *pl, const ps_plan_opts_t *o, ps_probes_t *p, int both, ps_err_t *err);

/* The engine for `workers` worker ids over the plan's index; *on_gpu says
 * whether the GPU was started (auto: it may still hand chunks back, or,
 * started while the input is read, not start after all). That engine may
 * still be starting on a thread of its own (engine_later.h), reading pl,
 * o and p and filling pl->parts: they must outlive it. */
int ps_plan_engine(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, const ps_probes_t *p, int workers,
                   int *on_gpu, ps_err_t *err);

/* The GPUs an engine takes (engine_gpus.h): --gpu's list, or by default
 * one per repay_s seconds of the CPU threads' estimate cpu_s (-1: unknown,
 * every visible one). Returns 0 with *use; 1 with why where none can be
 * used (auto: the caller takes CPU threads); for --engine gpu that is the
 * run's error (PS_E_GPU). Asks the CUDA driver. */
int ps_plan_gpus(const ps_gpus_t *asked, ps_engine_req_t engine, double cpu_s, double repay_s, ps_gpus_t *use,
                 char *why, size_t len, ps_err_t *err);

/* CPU threads alone over the plan's index: the engine of a further reading
 * thread (several inputs at once). */
int ps_plan_cpu_engine(ps_engine_t **e, const ps_plan_t *pl, int workers, ps_err_t *err);

void ps_plan_free(ps_plan_t *pl);

#ifdef __cplusplus
}
#endif

#endif
