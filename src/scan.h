/* scan.h - the pipeline from one input file to leaf counts.
 *
 * One reader thread parses and packs into a fixed ring of chunks
 * (engine->n_workers * engine->chunks_per_worker of them, each
 * engine->chunk_syms symbols); worker threads take filled chunks, call the
 * engine's scan() and return them to the ring. Memory is therefore bounded
 * by the ring, whatever the input size. */
#ifndef PS_SCAN_H
#define PS_SCAN_H

#include <stdint.h>

#include "automaton.h"
#include "engine.h"
#include "error.h"
#include "seqio.h"

typedef struct {
    ps_reader_stats_t in;  /* records, symbols, bytes of this input */
    double seconds;        /* wall time of the whole scan */
} ps_scan_stats_t;

/* Called on the reader thread after each chunk is read, with the reader
 * (for ps_reader_progress); may be NULL. */
typedef void (*ps_progress_fn)(void *ctx, const ps_reader_t *r);

/* Receives each chunk's per-record hits in input order (--by-record). */
typedef struct {
    int (*emit)(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err);
    void *ctx;
} ps_record_sink_t;

/* Scans path with engine e and adds its leaf counts into leaf_counts
 * [0..a->n_leaves). io_threads is passed to the reader for BGZF. With a
 * sink (and an engine with scan_records), hits go to the sink per record
 * instead, in input order; a chunk returns to the ring only after its hits
 * were emitted, so memory stays bounded. */
int ps_scan_file(ps_engine_t *e, const ps_automaton_t *a, const char *path, int io_threads,
                 uint64_t *leaf_counts, const ps_record_sink_t *sink, ps_scan_stats_t *st,
                 ps_progress_fn progress, void *progress_ctx, ps_err_t *err);

#endif
