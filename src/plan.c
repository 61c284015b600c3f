#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_bulges.h"
#include "engine_cpu.h"
#include "engine_gpu.h"
#include "engine_gpus.h"
#include "engine_guides.h"
#include "engine_kmer.h"
#include "engine_later.h"
#include "engine_mixed.h"
#include "engine_pattern_gpu.h"
#include "engine_pattern.h"
#include "engine_split.h"
#include "host.h"

/* What a GPU bulge engine is made over, for ps_gpus_engine_new's maker. */
typedef struct {
    const ps_bulgeset_t *bs;
    int workers;
} bulge_make_t;

void ps_plan_free(ps_plan_t *pl)
{
    ps_automaton_free(pl->a);
    ps_kmerset_free(pl->ks);
    ps_patset_free(pl->ps);
    ps_patset_free(pl->parts[0]);
    ps_patset_free(pl->parts[1]);
    ps_patset_free(pl->parts[2]);
    ps_bulgeset_free(pl->bs);
    memset(pl, 0, sizeof *pl);
}

/* Strings an index holds: probes times strands (at most; equal ones share a leaf). */
static uint64_t index_strings(const ps_probes_t *p, int both) { return (uint64_t)p->n * (both ? 2u : 1u); }

/* Bytes of `arrays` count arrays besides the table's count columns. */
static uint64_t count_bytes(const ps_plan_opts_t *o, const ps_probes_t *p, int both, uint64_t arrays)
{
    return (arrays + o->columns) * index_strings(p, both) * sizeof(uint64_t);
}

/* Refuses, before anything large is allocated, a probe set whose
 * automaton (and per-thread counts) cannot fit in the memory this process
 * may use: the cheap bound first, the exact size only when the bound is
 * too large. */
static int check_memory(const ps_plan_opts_t *o, const ps_probes_t *p, int both, ps_err_t *err)
{
    char what[64];
    uint64_t avail = ps_host_memory(what, sizeof what), states, bytes;
    uint64_t counts = count_bytes(o, p, both, (uint64_t)o->threads + 1);
    for (int exact = 0; exact < 2; exact++) {
        int rc = ps_automaton_estimate(p, both, exact, &states, &bytes, err);
        if (rc < 0) return rc;
        if (bytes + counts <= avail) return PS_OK;
    }
    return ps_fail(err, PS_E_NOMEM,
                   "%s: %u probes of length %d make an automaton of %llu states, about %.2f GB to build and "
                   "count with %d threads, more than the %.2f GB this process may use (%s); split the probe "
                   "file, count each part and join the tables",
                   o->probes, p->n, p->k, (unsigned long long)states, (bytes + counts) / 1e9, o->threads,
                   avail / 1e9, what);
}

/* Refuses a k-mer set (and its counts) larger than the memory this process
 * may use. */
static int check_memory_kmer(const ps_plan_opts_t *o, const ps_probes_t *p, int both, ps_err_t *err)
{
    char what[64];
    uint64_t avail = ps_host_memory(what, sizeof what);
    uint64_t bytes = ps_kmerset_bytes(p, both) + count_bytes(o, p, both, 1);
    if (bytes <= avail) return PS_OK;
    return ps_fail(err, PS_E_NOMEM,
                   "%s: %u probes make a k-mer set of about %.2f GB with its counts, more than the %.2f GB this "
                   "process may use (%s); split the probe file, count each part and join the tables",
                   o->probes, p->n, bytes / 1e9, avail / 1e9, what);
}

/* Whether --kernel names one of the automaton's GPU kernels (the variants
 * other than best, for benchmarks) where a GPU may run: they walk the
 * automaton, so the k-mer set is not built for them. */
static int automaton_kernel(const ps_plan_opts_t *o)
{
    return o->kernel && strcmp(o->kernel, "best") != 0 && o->engine != PS_REQ_CPU && !o->by_record;
}

/* Whether the probes go into the k-mer set rather than the automaton: asked
 * for, or (auto) DNA of k <= 32 and many strings, on either engine. Fills
 * why for -v. */
static int choose_kmer_set(const ps_plan_opts_t *o, const ps_probes_t *p, int both, char *why, size_t len,
                           ps_err_t *err)
{
    uint64_t strings = index_strings(p, both);
    if (o->index == PS_INDEX_KMER_SET) {
        if (!ps_kmerset_fits(p))
            return ps_fail(err, PS_E_USAGE, "--index kmer-set takes DNA probes of length 1 to %d, not %s of length %d",
                           PS_KMERSET_MAX_K, ps_alpha_name(p->alpha), p->k);
        snprintf(why, len, "asked for");
        return 1;
    }
    if (o->index == PS_INDEX_AUTOMATON) {
        snprintf(why, len, "asked for");
        return 0;
    }
    if (!ps_kmerset_fits(p)) snprintf(why, len, "%s probes of length %d", ps_alpha_name(p->alpha), p->k);
    else if (automaton_kernel(o)) snprintf(why, len, "--kernel %s walks the automaton", o->kernel);
    else if (strings < PS_KMER_SET_FROM)
        snprintf(why, len, "%llu strings, fewer than %d", (unsigned long long)strings, PS_KMER_SET_FROM);
    else {
        snprintf(why, len, "%llu strings of k = %d", (unsigned long long)strings, p->k);
        return 1;
    }
    return 0;
}

int ps_plan_index(ps_plan_t *pl, const ps_plan_opts_t *o, ps_probes_t *p, int both, ps_err_t *err)
{
    memset(pl, 0, sizeof *pl);
    int rc;
    if (p->bulge_dna || p->bulge_rna) {
        if (o->index != PS_INDEX_AUTO) return ps_fail(err, PS_E_USAGE, "--index applies to exact probes, not to bulges");
        if ((rc = ps_bulgeset_build(&pl->bs, p, o->mismatches, both, o->casoff_rows, err)) < 0) return rc;
        pl->lv = &pl->bs->leaves;
        snprintf(pl->why, sizeof pl->why, "bulges");
        return PS_OK;
    }
    if (p->patterns || o->mismatches > 0 || (o->locate && o->engine == PS_REQ_GPU)) {
        if (o->index != PS_INDEX_AUTO)
            return ps_fail(err, PS_E_USAGE, "--index applies to exact probes of one length, not to %s",
                           p->patterns ? "patterns" : "mismatches");
        if ((rc = ps_patset_build(&pl->ps, p, both, o->mismatches, err)) < 0) return rc;
        pl->lv = &pl->ps->leaves;
        snprintf(pl->why, sizeof pl->why, "%s", p->patterns ? "patterns" : o->mismatches > 0 ? "mismatches" : "the GPU");
        return PS_OK;
    }
    if ((rc = choose_kmer_set(o, p, both, pl->why, sizeof pl->why, err)) < 0) return rc;
    /* count's tables and per-thread counts are bounded first (locate holds
     * no table). */
    if (rc) {
        if (!o->locate && (rc = check_memory_kmer(o, p, both, err)) < 0) return rc;
        ps_probes_drop_codes(p);
        if ((rc = ps_kmerset_build(&pl->ks, p, both, o->threads, err)) < 0) return rc;
        pl->lv = &pl->ks->leaves;
        return PS_OK;
    }
    if ((!o->locate && (rc = check_memory(o, p, both, err)) < 0) || (rc = ps_automaton_build(&pl->a, p, both, err)) < 0)
        return rc;
    ps_probes_drop_codes(p);
    pl->lv = &pl->a->leaves;
    return PS_OK;
}

int ps_plan_cpu_engine(ps_engine_t **e, const ps_plan_t *pl, int workers, ps_err_t *err)
{
    if (pl->bs) return ps_bulge_engine_new(e, pl->bs, workers, err);
    if (pl->ps) {
        char why[160];
        int rc = ps_guide_engine_new(e, pl->ps, workers, why, sizeof why, err);
        return rc == 1 ? ps_pattern_engine_new(e, pl->ps, workers, err) : rc;
    }
    return pl->ks ? ps_kmer_engine_new(e, pl->ks, workers, PS_KMER_LOCAL_COUNTS_MAX, err)
                  : ps_cpu_engine_new(e, pl->a, workers, err);
}

void ps_plan_say_guides(const ps_engine_info_t *in)
{
    if (in->guide_seeds)
        fprintf(stderr,
                "probescan: engine: guides, a window's PAM tested first (where there is one), then looked up by %u "
                "exact pieces of %u (%u lookups)\n",
                in->guide_need, in->guide_pieces, in->guide_seeds);
    else fprintf(stderr, "probescan: engine: guides, a window's PAM tested first, then compared with every guide\n");
}

/* -v: the CPU runs, and with --engine auto why not the GPU. */
static void say_cpu(const ps_plan_opts_t *o, const char *what, const char *why)
{
    if (!o->verbose) return;
    if (o->engine == PS_REQ_AUTO)
        fprintf(stderr, "probescan: engine: cpu, %d threads%s (not the GPU: %s)\n", o->threads, what, why);
    else
        fprintf(stderr, "probescan: engine: cpu, %d threads%s\n", o->threads, what);
}

int ps_plan_gpus(const ps_gpus_t *asked, ps_engine_req_t engine, double cpu_s, double repay_s, ps_gpus_t *use,
                 char *why, size_t len, ps_err_t *err)
{
    char w[320];
    if (ps_gpus_pick(asked, cpu_s, repay_s, use, w, sizeof w) == 0) return 0;
    if (engine == PS_REQ_GPU) return ps_fail(err, PS_E_GPU, "--engine gpu: no usable GPU: %s", w);
    snprintf(why, len, "%s", w);
    return 1;
}

/* -v: where a CPU part of the set reads backward only near its windows'
 * matches (patset.h's gate). */
static void say_gate(const ps_plan_opts_t *o, const ps_patset_t *ps)
{
    if (o->verbose && ps && ps->gate_words)
        fprintf(stderr, "probescan: engine: CPU threads read %u pattern%s by starts only near a match of %s rarest "
                        "window (%u word%s; about %.2g%% of random text)\n",
                ps->n_strings, ps->n_strings == 1 ? "" : "s", ps->n_strings == 1 ? "its" : "each one's",
                ps->gate_words, ps->gate_words == 1 ? "" : "s", 100 * ps->gate_share);
}

/* The pattern set on the GPUs (o->gpus, or by default as many as
 * ps_patset_gpu_share gives of the CPU's estimate cpu_s): PS_OK; 1 with
 * why where auto takes CPU threads instead (no GPU usable, or none of the
 * set for it); an error (--engine gpu). work: the estimate's words, for -v. */
static int gpu_patterns(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, const ps_probes_t *p, int workers,
                        double cpu_s, const char *work, char *why, size_t why_len, ps_err_t *err)
{
    ps_gpus_t use;
    int rc = ps_plan_gpus(&o->gpus, o->engine, ps_patset_gpu_share(pl->ps, cpu_s), 1.0, &use, why, why_len, err);
    if (rc != 0) return rc;
    uint32_t n_gpu;
    char name[96];
    ps_gpus_name(&use, name, sizeof name);
    rc = ps_gpu_patterns_new(e, p, pl->ps, &use, workers, o->engine == PS_REQ_GPU, o->count_windows, pl->parts, &n_gpu,
                             why, why_len, err);
    if (rc != PS_OK) return rc;
    if (o->verbose && n_gpu < p->n)
        fprintf(stderr, "probescan: engine: %s for %u patterns, %d CPU threads for the other %u\n", name, n_gpu,
                o->threads, p->n - n_gpu);
    if (o->verbose)
        fprintf(stderr, "probescan: engine: %s, patterns (%s%s%s)\n", name, o->engine == PS_REQ_GPU ? "asked for" : "",
                o->engine == PS_REQ_GPU && work[0] ? "; " : "", work);
    if (n_gpu < p->n) say_gate(o, pl->parts[2] ? pl->parts[2] : pl->parts[1]);
    return PS_OK;
}

/* The pattern set on CPU threads (why: not the GPU, for -v). */
static int cpu_patterns(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, const ps_probes_t *p, int workers,
                        const char *why, ps_err_t *err)
{
    say_cpu(o, ", patterns", why);
    /* Windows apart from the rest, where the set has both (on the GPUs too,
     * above, where the windows are counted); --by-record takes the whole
     * set, as the split engine counts no records. */
    int rc = o->by_record ? 1 : ps_split_windows_new(e, p, pl->ps, workers, o->count_windows, pl->parts, err);
    if (rc != 1) {
        if (rc == PS_OK && o->verbose)
            fprintf(stderr, "probescan: engine: patterns in two parts: windows read forward%s, the rest by starts\n",
                    o->count_windows ? " (counted)" : "");
        if (rc == PS_OK) say_gate(o, pl->parts[2] ? pl->parts[2] : pl->parts[1]);
        return rc;
    }
    rc = ps_plan_cpu_engine(e, pl, workers, err);
    if (rc == PS_OK && o->verbose) {
        ps_engine_info_t in;
        ps_engine_info(*e, &in);
        if (in.guides) ps_plan_say_guides(&in);
        else say_gate(o, pl->ps);
    }
    return rc;
}

/* What the start thread of a pattern set's GPUs works from (engine_later.h). */
typedef struct {
    ps_plan_t *pl;
    const ps_plan_opts_t *o;
    const ps_probes_t *p;
    int workers;
    double cpu_s;
    char work[160];
} pattern_start_t;

/* On the start thread: the GPUs, or where they do not start under auto,
 * CPU threads (the plan's parts are the GPUs' until then: a failed split
 * drops them). */
static int start_patterns(void *ctx, ps_engine_t **out, int *on_cpu, char *why, size_t why_len, ps_err_t *err)
{
    const pattern_start_t *s = ctx;
    int rc = gpu_patterns(out, s->pl, s->o, s->p, s->workers, s->cpu_s, s->work, why, why_len, err);
    if (rc != 1) return rc;
    *on_cpu = 1;
    return cpu_patterns(out, s->pl, s->o, s->p, s->workers, why, err);
}

/* Over the pattern set: the GPU when asked, or (auto) where one is present
 * and the work repays its start; the GPU takes the whole set, or the part
 * it can; else CPU threads. Where the GPUs would take the set in parts
 * (its chunks then sized as for the default engine's CPU side) and are
 * likely to start, they start on a thread while the input is read. */
static int pattern_engine(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, const ps_probes_t *p, int workers,
                          int *on_gpu, ps_err_t *err)
{
    char why[sizeof err->msg] = "no NVIDIA GPU device found", work[160] = "";
    int want_gpu = o->engine == PS_REQ_GPU;
    double cpu_s = -1;
    if (o->engine == PS_REQ_AUTO && o->by_record) {
        snprintf(why, sizeof why, "--by-record counts on the CPU");
    } else if (o->engine == PS_REQ_AUTO && ps_gpu_device_present()) {
        cpu_s = ps_patset_cpu_seconds(pl->ps, o->bytes, o->threads, work, sizeof work);
        want_gpu = cpu_s < 0 || cpu_s > 1.0;
        snprintf(why, sizeof why, "%s", work);
    } else if (o->engine == PS_REQ_GPU && !o->gpus.n) {
        /* How many GPUs the default list takes. */
        cpu_s = ps_patset_cpu_seconds(pl->ps, o->bytes, o->threads, work, sizeof work);
    }
    if (want_gpu && !o->by_record && ps_gpus_likely() && ps_gpu_patterns_split(p, pl->ps, o->count_windows)) {
        pattern_start_t *s = malloc(sizeof *s);
        if (!s) return ps_fail(err, PS_E_NOMEM, "out of memory");
        *s = (pattern_start_t){.pl = pl, .o = o, .p = p, .workers = workers, .cpu_s = cpu_s};
        snprintf(s->work, sizeof s->work, "%s", work);
        const ps_engine_info_t before = {.workers = workers,
                                         .gpu_id = o->gpus.n ? o->gpus.id[0] : 0,
                                         .patterns = 1,
                                         .split = 1,
                                         .max_chunk_syms = PS_GPU_CHUNK_SYMS,
                                         .max_chunk_restarts = PS_GPU_CHUNK_RESTARTS};
        *on_gpu = 1;
        return ps_later_engine_new(e, start_patterns, s, free, &before, err);
    }
    if (want_gpu) {
        int rc = gpu_patterns(e, pl, o, p, workers, cpu_s, work, why, sizeof why, err);
        if (rc != 1) {
            *on_gpu = rc == PS_OK;
            return rc;
        }
    }
    return cpu_patterns(e, pl, o, p, workers, why, err);
}

/* Where a GPU is present, whether the work ahead can repay starting it:
 * exact counting scans at memory speed on the CPU, and starting CUDA costs
 * about 0.25 s, which a small input then waits for at the end. So the GPU
 * is started only when the CPU alone would need over a second, or when the
 * input size is unknown. The CPU's rate a thread, measured on the H100
 * host: the automaton's walk about 150 MB/s while the DFA stays in cache,
 * a third of that beyond; the k-mer set's lookups also 150 MB/s while its
 * table stays in cache, about 40 MB/s (a cache miss a lookup) for a
 * million 31-mers. Fills why. */
static double exact_cpu_seconds(const ps_plan_opts_t *o, const ps_plan_t *pl, char *why, size_t len)
{
    if (o->bytes == 0) {
        snprintf(why, len, "input size unknown");
        return -1;
    }
    const ps_kmerset_t *ks = pl->ks;
    double rate = ks ? (ks->n_slots * sizeof *ks->slot <= (16u << 20) ? 150e6 : 40e6)
                     : (ps_automaton_table_bytes(pl->a) <= (16u << 20) ? 150e6 : 50e6);
    double cpu_s = o->bytes / (rate * o->threads);
    snprintf(why, len, "about %.0f MB of sequence, %.2f s%s on %d CPU threads", o->bytes / 1e6, cpu_s,
             ks ? " of k-mer set lookups" : "", o->threads);
    return cpu_s;
}

/* Whether the GPU repays its start on a bulge set: the CPU engine's time,
 * PAM windows (both strands) times guides times classes at BULGE_NS a
 * class and guide on a thread, over half a second (the GPU's start and its
 * first chunk take about 0.4 s: 1,000 guides with NGG and bulges of 1 over
 * one yeast genome took 0.6 s on an H100). Measured: 2.8 ns on the GPU
 * machine's host (AVX-512; the same over yeast x 10, 16 threads: 8.0 s),
 * 4 ns on 2 cores without AVX-512 (E. coli). */
#define BULGE_NS 2.8
#define BULGE_REPAY_S 0.5
static double bulge_cpu_seconds(const ps_plan_opts_t *o, const ps_bulgeset_t *b, char *why, size_t len)
{
    if (o->bytes == 0) {
        snprintf(why, len, "input size unknown");
        return -1;
    }
    uint64_t pass = 0;
    const uint64_t codes = (uint64_t)1 << (2 * b->a);
    for (uint64_t w = 0; w < codes / 64 + 1; w++) pass += (uint64_t)__builtin_popcountll(b->pam_ok[w]);
    const double windows = o->bytes * (b->leaves.both_strands ? 2.0 : 1.0) * (double)pass / (double)codes;
    const double cpu_s = windows * b->n_guides * b->n_classes * BULGE_NS * 1e-9 / o->threads;
    snprintf(why, len, "%.3g PAM windows x %u guides x %u bulge classes, about %.2f s on %d CPU threads", windows,
             b->n_guides, b->n_classes, cpu_s, o->threads);
    return cpu_s;
}

static int make_bulges(void *ctx, int device, ps_engine_t **out, ps_err_t *err)
{
    const bulge_make_t *m = ctx;
    return ps_gpu_bulge_engine_new(out, m->bs, device, m->workers, err);
}

/* Over a bulge set: the GPU when asked, or (auto) where one is present and
 * the work repays its start; else CPU threads. */
static int bulge_engine(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, int workers, int *on_gpu,
                        ps_err_t *err)
{
    char why[sizeof err->msg] = "no NVIDIA GPU device found", work[200] = "";
    int want_gpu = o->engine == PS_REQ_GPU;
    const double cpu_s = bulge_cpu_seconds(o, pl->bs, work, sizeof work);
    if (o->engine == PS_REQ_AUTO && ps_gpu_device_present()) {
        want_gpu = cpu_s < 0 || cpu_s > BULGE_REPAY_S;
        snprintf(why, sizeof why, "%s", work);
    }
    ps_gpus_t use;
    if (want_gpu) {
        int rc = ps_plan_gpus(&o->gpus, o->engine, cpu_s, BULGE_REPAY_S, &use, why, sizeof why, err);
        if (rc < 0) return rc;
        want_gpu = rc == 0;
    }
    if (want_gpu) {
        bulge_make_t m = {.bs = pl->bs, .workers = workers};
        int rc = ps_gpus_engine_new(e, &use, make_bulges, &m, err);
        if (rc == PS_OK) {
            *on_gpu = 1;
            if (o->verbose) {
                char name[96];
                ps_gpus_name(&use, name, sizeof name);
                fprintf(stderr, "probescan: engine: %s, bulges (%s)\n", name, work[0] ? work : "asked for");
            }
            return rc;
        }
        if (o->engine == PS_REQ_GPU) return rc;
        snprintf(why, sizeof why, "%s", err->msg);
        err->code = 0;
        err->msg[0] = '\0';
    }
    say_cpu(o, ", bulges", why);
    return ps_plan_cpu_engine(e, pl, workers, err);
}

int ps_plan_engine(ps_engine_t **e, ps_plan_t *pl, const ps_plan_opts_t *o, const ps_probes_t *p, int workers,
                   int *on_gpu, ps_err_t *err)
{
    *on_gpu = 0;
    if (pl->bs) return bulge_engine(e, pl, o, workers, on_gpu, err);
    if (pl->ps) return pattern_engine(e, pl, o, p, workers, on_gpu, err);
    char why[sizeof err->msg] = "no NVIDIA GPU device found";
    const char *what = pl->ks ? ", k-mer set" : "";
    if (o->locate) {
        /* Exact probes are placed as fast as the input is read. */
        snprintf(why, sizeof why, "exact probes: as fast as the input is read");
    } else if (o->engine == PS_REQ_GPU) {
        char work[160];
        ps_gpus_t use;
        const double cpu_s = exact_cpu_seconds(o, pl, work, sizeof work);
        int rc = ps_plan_gpus(&o->gpus, o->engine, cpu_s, 1.0, &use, why, sizeof why, err);
        if (rc < 0) return rc;
        *on_gpu = 1;
        ps_gpu_exact_t x = {.a = pl->a, .ks = pl->ks, .kernel = o->kernel, .workers = workers};
        return ps_gpus_engine_new(e, &use, ps_gpu_exact_make, &x, err);
    } else if (o->engine == PS_REQ_AUTO && o->by_record) {
        snprintf(why, sizeof why, "--by-record counts on the CPU");
    } else if (o->engine == PS_REQ_AUTO && ps_gpu_device_present()) {
        char work[160];
        const double cpu_s = exact_cpu_seconds(o, pl, work, sizeof work);
        if (cpu_s < 0 || cpu_s > 1.0) {
            if (o->verbose)
                fprintf(stderr, "probescan: engine: auto: the GPU%s, the CPU while it starts (%s)\n", what, work);
            *on_gpu = 1;
            /* Which GPUs and how many is the mixed engine's start (their
             * count asks the driver, which the CPU threads cover). */
            return pl->ks ? ps_mixed_kmer_engine_new(e, pl->ks, &o->gpus, cpu_s, workers, err)
                          : ps_mixed_engine_new(e, pl->a, &o->gpus, cpu_s, o->kernel, workers, err);
        }
        snprintf(why, sizeof why, "%s: less than starting the GPU repays", work);
    }
    int rc = ps_plan_cpu_engine(e, pl, workers, err);
    if (rc == PS_OK) say_cpu(o, what, why);
    return rc;
}
