/* scan.h - the pipeline from input files to leaf counts, on one thread pool.
 *
 * A scanner owns one htslib thread pool of `threads` threads: the whole
 * thread budget of a run. The calling thread reads; the pool parses, scans
 * and (for BGZF input) inflates. Work goes to the pool through one ordered
 * queue (hts_tpool_process), whose results come back strictly in input
 * order; that order is the only ordering mechanism: it joins the blocks of
 * block-parallel FASTA (blocks.h) and emits per-record hits in input order.
 *
 * Two ways to read an input:
 *   - FASTA, with more than one thread and no per-record counts (sites of
 *     probes of one length are fine): the caller cuts blocks, each parsed
 *     and scanned whole on a pool thread; protein sets whose sites vary in
 *     length or need record edges take blocks of whole records where they
 *     are counted, and on CPU threads where their rows are written;
 *   - otherwise (FASTQ, one thread, --by-record, DNA sets whose sites vary
 *     in length or need record edges, a GPU writing such a set's rows): the
 *     caller parses chunks in order and the pool scans them.
 *
 * Memory is bounded by design, whatever the input size: a ring of `ring`
 * chunks of `chunk_syms` symbols when reading chunks, or 2 * threads + 2
 * blocks of at most block_max (1 MiB; 4 MiB for whole records on a GPU,
 * unless the caller set it) plus one chunk per thread when reading blocks
 * (a block of whole records grows, by doubling, to hold a longer record),
 * plus the reader's 1 MiB buffer and the engine's counts.
 *
 * The engine must take ps_scan_workers() worker ids: one per pool thread,
 * and one for the calling thread, which scans the junctions between blocks. */
#ifndef PS_SCAN_H
#define PS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <htslib/thread_pool.h>

#include "leaves.h"
#include "engine.h"
#include "error.h"
#include "seqio.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    ps_reader_stats_t in;  /* records, symbols, bytes of this input */
    double seconds;        /* wall time of the whole scan */
} ps_scan_stats_t;

/* Called on the reading thread after each chunk or block is read, with the
 * reader (for ps_reader_progress); may be NULL. */
typedef void (*ps_progress_fn)(void *ctx, const ps_reader_t *r);

/* Receives each chunk, in input order, with its per-record hits
 * (--by-record: emit, and an engine with scan_records), or its sites
 * (`locate`: rows, emit_rows, free_rows, and an engine with scan_sites).
 * rows turns a chunk's sites into rows on the pool thread that found them,
 * into the slot's *rows (made on first use; c NULL: emptied); block says c
 * is a chunk of a FASTA block, whose records are its own (pack.h's
 * ps_block_place_t). emit_rows then writes a chunk's rows in input order;
 * a sink with emit_block also takes blocks, whose rows it writes placed by
 * `at` (else the input is read in chunks). free_rows frees rows.
 * rows_counted says the rows are only counted (`count` under ps_scan's
 * rules), never written: a GPU then takes blocks too. */
typedef struct {
    int (*emit)(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err);
    void *ctx;
    int (*rows)(void *ctx, void **rows, const ps_chunk_t *c, const ps_sites_t *s, int block, ps_err_t *err);
    int (*emit_rows)(void *ctx, const ps_chunk_t *c, void *rows, ps_err_t *err);
    int (*emit_block)(void *ctx, void *rows, const ps_block_place_t *at, ps_err_t *err);
    void (*free_rows)(void *rows);
    int rows_counted;
} ps_record_sink_t;

/* The pipeline's settings. */
typedef struct {
    int threads;             /* the thread budget: pool threads (>= 1) */
    uint64_t chunk_syms;     /* chunk capacity in symbols, when reading chunks */
    uint32_t chunk_restarts; /* restarts (and listed records) a chunk holds */
    int ring;                /* chunks in flight, when reading chunks */
    int block_slots;         /* blocks in flight, when reading blocks; 0: 2 * threads + 2 */
    size_t block_bytes;      /* block size for block-parallel FASTA; 0: by input size (at most block_max) */
    size_t block_max;        /* the largest block chosen by input size; 0: 1 MiB (4 MiB for
                              * whole records on a GPU) */
} ps_scan_opts_t;

/* Settings that suit the engine described by `in` (chunk sizes within its
 * limits, pinned ring depth for the GPU) for a budget of `threads`. */
void ps_scan_opts_init(ps_scan_opts_t *o, const ps_engine_info_t *in, int threads);

/* Worker ids the engine must take for these settings. */
static inline int ps_scan_workers(const ps_scan_opts_t *o) { return o->threads + 1; }

typedef struct ps_scanner ps_scanner_t;

int ps_scanner_new(ps_scanner_t **out, ps_engine_t *e, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                   ps_err_t *err);

/* Scans path and adds its leaf counts into leaf_counts[0..lv->n_leaves); or,
 * with a sink, hands the hits per record or the sites to the sink in input
 * order instead (per chunk or block in flight: the ring's chunks, or the
 * 2T + 2 block slots, each holding its own hits or rows). After a failure the engine holds no
 * counts of the failed input. */
int ps_scanner_run(ps_scanner_t *s, const char *path, uint64_t *leaf_counts, const ps_record_sink_t *sink,
                   ps_scan_stats_t *st, ps_progress_fn progress, void *progress_ctx, ps_err_t *err);

/* The same on a pool of o->threads threads that the caller owns and
 * destroys after the scanner; several scanners may share it. */
int ps_scanner_new_on(ps_scanner_t **out, ps_engine_t *e, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                      hts_tpool *pool, ps_err_t *err);

void ps_scanner_free(ps_scanner_t *s);

/* Several inputs at once: `readers` reading threads, each with its own
 * scanner and engine (engines[0..readers)), share one pool of o->threads
 * threads. They claim inputs in input order; input i's counts are added to
 * leaf_counts + col[i] * lv->n_leaves (columns may repeat: a sample of
 * several files) and its statistics go to st[i]. Each input's counts are
 * exactly those of scanning it alone. On failure: the error of the first
 * failed input in input order; inputs after it are not started (those
 * under way finish). Memory: each reader's blocks and chunks are a
 * readers-th of one scanner's (blocks of at least 64 KiB, chunks of at
 * least 64 Ki symbols), so all together stay near the bound above; plus
 * one array of counts a reader. */
int ps_scan_inputs(ps_engine_t *const *engines, int readers, const ps_leaves_t *lv, const ps_scan_opts_t *o,
                   const char *const *inputs, int n_inputs, const size_t *col, uint64_t *leaf_counts,
                   ps_scan_stats_t *st, ps_err_t *err);

/* One input with a scanner of its own (tests, one-off scans). */
int ps_scan_file(ps_engine_t *e, const ps_leaves_t *lv, const char *path, const ps_scan_opts_t *o,
                 uint64_t *leaf_counts, const ps_record_sink_t *sink, ps_scan_stats_t *st, ps_progress_fn progress,
                 void *progress_ctx, ps_err_t *err);

/* Seconds on a monotonic clock. */
double ps_now(void);

#ifdef __cplusplus
}
#endif

#endif
