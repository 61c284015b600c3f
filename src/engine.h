/* engine.h - what a scanning engine is: its operations and a typed report.
 *
 * An engine counts the matches in packed chunks (pack.h gives the layout
 * and the counting rule). It is made for `workers` concurrent callers:
 * scan() may run at once on several threads, each with its own worker id in
 * [0, workers). It keeps its leaf counts to itself (per worker, or on the
 * GPU) until collect(), which waits for all submitted work, adds the counts
 * since the last collect into leaf_counts[0..n_leaves) and zeroes its own.
 * scan() may return before the counting is done, but the chunk may be
 * refilled as soon as it returns.
 *
 * How chunks are read, sized and handed out is the pipeline's business
 * (scan.h); an engine only says, through chunk_alloc, where chunk memory is
 * best placed (pinned host memory for the GPU), and reports what it did
 * through info(). A new engine is one new file that fills this struct and
 * one line where count.c chooses engines. */
#ifndef PS_ENGINE_H
#define PS_ENGINE_H

#include <stdint.h>

#include "error.h"
#include "pack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_engine ps_engine_t;

/* The GPUs a run may take (--gpu LIST): n device numbers, or all of them;
 * n == 0 and all == 0: the default (every visible GPU the work repays,
 * engine_gpus.h). */
#define PS_GPUS_MAX 16
typedef struct {
    int n, all;
    int id[PS_GPUS_MAX];
} ps_gpus_t;

/* One GPU's share of a run on several (engine_gpus.h): its chunks, their
 * symbols, and the wall seconds its scan calls took (copies, and for
 * `locate` the kernels and the sites' return; a counting kernel that is
 * still running when its call returns is waited for by collect). */
typedef struct {
    int id;
    uint64_t chunks, symbols;
    double seconds;
} ps_gpu_share_t;

typedef enum {
    PS_ENGINE_CPU,   /* CPU threads: the automaton walked, the k-mer set looked up, or patterns matched */
    PS_ENGINE_GPU,   /* the GPU alone */
    PS_ENGINE_AUTO   /* the GPU, with CPU threads scanning while it starts */
} ps_engine_kind_t;

/* What an engine is and what it did so far; read with ps_engine_info. */
typedef struct {
    ps_engine_kind_t kind;
    int workers;            /* concurrent scan() callers it takes */
    int gpu_id;             /* the GPU asked for; -1 for the CPU engine */
    int gpu_started;        /* the GPU is ready to scan (AUTO: may come after the first chunks) */
    char gpu_name[96];      /* the GPU's name, once started */
    int gpu_sms;            /* its multiprocessors */
    double gpu_mem_gib;     /* its memory */
    char kernel[16];        /* the GPU kernel variant ("best", ...); "" on the CPU */
    int kmer_path;          /* the GPU kernel takes the direct k-mer path, not the DFA walk */
    int kmer_set;           /* probes are looked up in the k-mer set (kmerset.h), not walked in the automaton */
    int patterns;           /* probes are matched as patterns (patset.h): classes, lengths, mismatches */
    int guides;             /* patterns matched PAM first (guideset.h): a guide library with its PAM */
    uint32_t guide_need, guide_pieces, guide_seeds; /* its exact-piece index: r of D + r pieces, seeds (0: none) */
    int bulges;             /* guides with DNA and RNA bulges (bulges.h) */
    int split;              /* GPU: CPU threads count the patterns it does not take, on the same chunks */
    uint64_t chunks_cpu;    /* chunks scanned on CPU threads */
    uint64_t chunks_gpu;    /* chunks scanned on the GPU */
    char gpu_error[256];    /* AUTO: why the GPU did not start ("" while it may still) */
    int waits;              /* AUTO: chunks wait for the GPU's start instead of going to CPU threads
                             * meanwhile (engine_later.h) */
    int n_gpus;                   /* GPUs the chunks went to (engine_gpus.h); 0: none, or not counted */
    ps_gpu_share_t gpu[PS_GPUS_MAX]; /* their shares */
    uint64_t max_chunk_syms;      /* the largest chunk scan() takes; 0: any */
    uint32_t max_chunk_restarts;  /* the most restarts a chunk may carry; 0: any */
} ps_engine_info_t;

struct ps_engine {
    int (*scan)(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err);
    int (*collect)(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err);
    /* Optional: fills h (cleared first) with c's hits per record instead of
     * counting them; NULL when the engine cannot attribute hits to records. */
    int (*scan_records)(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_rec_hits_t *h, ps_err_t *err);
    /* Optional: fills s (cleared first) with the sites c owns, where each
     * starts and its leaf, in no particular order (`locate`); NULL when the
     * engine cannot place its sites. */
    int (*scan_sites)(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *s, ps_err_t *err);
    void (*info)(const ps_engine_t *e, ps_engine_info_t *out);
    void (*destroy)(ps_engine_t *e);
    ps_allocator_t chunk_alloc; /* where chunk memory goes; alloc NULL = malloc */
    void *impl;
};

static inline void ps_engine_info(const ps_engine_t *e, ps_engine_info_t *out) { e->info(e, out); }

static inline void ps_engine_destroy(ps_engine_t *e)
{
    if (e && e->destroy) e->destroy(e);
}

/* Adds from[0..n) into into[0..n) and zeroes from, for an engine's
 * collect(): a page of from that holds only zeros is read, never written,
 * so per-thread counts that a run never touched (millions of probes, few
 * hits) stay unmapped instead of being faulted in and cleared; a whole page
 * of from that was added is given back (it reads as zeros again), so from
 * and into together hold about one array of counts at a time. from must be
 * private anonymous memory (malloc's). */
void ps_counts_drain(uint64_t *into, uint64_t *from, size_t n);

/* "cpu" or "gpu": where the scanning ran (AUTO: "gpu" once the GPU took a
 * chunk, or while chunks wait for its start; else "cpu", also when the GPU
 * started too late to take any). */
const char *ps_engine_ran(const ps_engine_info_t *in);

/* One line for people (-v, --stats "device"): the device, the threads
 * (the run's thread budget, which the engine is not told) or the kernel,
 * and for AUTO how the chunks were shared or why the GPU did not start. */
void ps_engine_describe(const ps_engine_info_t *in, int threads, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
