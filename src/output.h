/* output.h - the TSV the user gets (written safely through outfile.h).
 *
 * The table shapes are table.h's: one row per probe in probe-file order,
 * zero counts included, for totals and --by-file; rows with counts for
 * --by-record. */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "leaves.h"
#include "pack.h"
#include "error.h"
#include "outfile.h"
#include "probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* v in decimal at d, as "%" PRIu64 writes it; returns the end (d holds 20). */
char *ps_put_u64(char *d, uint64_t v);

/* Writes the totals table from leaf counts. Rows are formatted on up to
 * `threads` threads (parallel.h), about 1 MB of rows a thread at a time,
 * and written in probe order. */
int ps_write_counts(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv, const uint64_t *leaf_counts, int threads,
                    ps_err_t *err);

/* --by-file: `name  sequence` and one column per input, named cols[c], with
 * that input's count (forward + reverse); leaf_counts holds n_cols arrays of
 * lv->n_leaves counts, one per input. Threads as for ps_write_counts. */
int ps_write_matrix(FILE *f, const ps_probes_t *p, const ps_leaves_t *lv, const uint64_t *leaf_counts,
                    const char *const *cols, int n_cols, int threads, ps_err_t *err);

/* --by-record: the long table `record  name  sequence  count [forward
 * reverse]`, only rows with count > 0, records in input order and probes in
 * probe-file order within a record. It is fed chunk hits in input order
 * (a ps_record_sink_t); a record split over chunks becomes one set of rows. */
typedef struct ps_record_writer ps_record_writer_t;

int ps_record_writer_new(ps_record_writer_t **out, FILE *f, const ps_probes_t *p,
                         const ps_leaves_t *lv, ps_err_t *err);
/* Names the input whose records follow (the table's `input` column); the
 * name must outlive the writer's use of it. */
void ps_record_writer_input(ps_record_writer_t *w, const char *input);
/* A ps_record_sink_t emit function; ctx is the writer. */
int ps_record_writer_emit(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err);
/* Adds n to leaf's count in record rec (its ordinal in the input), named
 * name; records come in input order (a new one writes the one before). */
int ps_record_writer_add(ps_record_writer_t *w, uint64_t rec, const char *name, uint32_t leaf, uint64_t n,
                         ps_err_t *err);
/* Writes the pending record; call at the end of each input. */
int ps_record_writer_flush(ps_record_writer_t *w, ps_err_t *err);
void ps_record_writer_free(ps_record_writer_t *w);

#ifdef __cplusplus
}
#endif

#endif
