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

/* Scans path with engine e and adds its leaf counts into leaf_counts
 * [0..a->n_leaves). io_threads is passed to the reader for BGZF. */
int ps_scan_file(ps_engine_t *e, const ps_automaton_t *a, const char *path, int io_threads,
                 uint64_t *leaf_counts, ps_scan_stats_t *st, ps_progress_fn progress,
                 void *progress_ctx, ps_err_t *err);

#endif
