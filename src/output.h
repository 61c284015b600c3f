/* output.h - the TSV the user gets, written safely.
 *
 * Output to a file goes to a temporary file beside it that is renamed over
 * the target only after everything was written and flushed, so an error never
 * leaves a file that looks complete. "-" or NULL means stdout.
 *
 * Table: a header row, then one row per probe in probe-file order, zero
 * counts included:  name  sequence  count  [forward  reverse]
 * where the strand columns appear for DNA counted on both strands and
 * count = forward + reverse. */
#ifndef PS_OUTPUT_H
#define PS_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "automaton.h"
#include "engine.h"
#include "error.h"
#include "probes.h"

typedef struct ps_output ps_output_t;

int ps_output_open(ps_output_t **out, const char *path, ps_err_t *err);
FILE *ps_output_stream(ps_output_t *o);
/* Flushes, closes and renames into place; frees o. */
int ps_output_commit(ps_output_t *o, ps_err_t *err);
/* Removes the temporary file; frees o. Safe on NULL. */
void ps_output_abort(ps_output_t *o);

/* Writes the totals table from leaf counts. */
int ps_write_counts(FILE *f, const ps_probes_t *p, const ps_automaton_t *a,
                    const uint64_t *leaf_counts, ps_err_t *err);

/* --by-file: `name  sequence` and one column per input, named cols[c], with
 * that input's count (forward + reverse); leaf_counts holds n_cols arrays of
 * a->n_leaves counts, one per input. */
int ps_write_matrix(FILE *f, const ps_probes_t *p, const ps_automaton_t *a, const uint64_t *leaf_counts,
                    const char *const *cols, int n_cols, ps_err_t *err);

/* --by-record: the long table `record  name  sequence  count [forward
 * reverse]`, only rows with count > 0, records in input order and probes in
 * probe-file order within a record. It is fed chunk hits in input order
 * (a ps_record_sink_t); a record split over chunks becomes one set of rows. */
typedef struct ps_record_writer ps_record_writer_t;

int ps_record_writer_new(ps_record_writer_t **out, FILE *f, const ps_probes_t *p,
                         const ps_automaton_t *a, ps_err_t *err);
/* A ps_record_sink_t emit function; ctx is the writer. */
int ps_record_writer_emit(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err);
/* Writes the pending record; call at the end of each input. */
int ps_record_writer_flush(ps_record_writer_t *w, ps_err_t *err);
void ps_record_writer_free(ps_record_writer_t *w);

#endif
