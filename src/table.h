/* table.h - the TSV tables probescan writes and merge reads: their one
 * definition (header names, column order, shapes).
 *
 * Every table is tab-separated with a header row, one row per line, each
 * line ending in a line break; counts are decimal, 64-bit unsigned.
 *   totals     name  [id]  sequence  count  [forward  reverse]  [mm0 ... mmD]
 *              (with bulges, count --dna-bulge/--rna-bulge: then dna1_mm0 ...
 *              dnaB_mmD and rna1_mm0 ... rnaB_mmD, summed as the mm columns)
 *   by-file    name  sequence  SAMPLE...            (one column per input)
 *   by-record  input  record  name  sequence  count  [forward  reverse]
 * The strand columns appear for DNA counted on both strands, where
 * count = forward + reverse. A by-record row names its input as --by-file
 * names its column (the file name without its extensions), so that two
 * records of one name in two inputs stay two records when tables merge.
 * Tables from before that column (by-record starting with `record`) are
 * still read. */
#ifndef PS_TABLE_H
#define PS_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { PS_TABLE_TOTALS = 1, PS_TABLE_BYFILE, PS_TABLE_BYRECORD } ps_table_shape_t;

/* The count columns of totals and by-record rows, in order; strands add
 * the last two. */
#define PS_TABLE_MAX_COUNTS 3
extern const char *const ps_table_count_names[PS_TABLE_MAX_COUNTS];

/* 1 when s is a column title of the tables themselves (name, sequence, id,
 * input, record, count, forward, reverse, mm0, mm1 ...): a sample column of
 * that name would make a matrix read back as another shape, so sample
 * sheets and --by-file refuse it. */
int ps_table_reserved_column(const char *s);

/* "totals", "by-file" or "by-record". */
const char *ps_table_shape_name(ps_table_shape_t s);

/* Columns before the counts in the tables written: 2 (name, sequence), or
 * 4 for by-record. */
size_t ps_table_key_columns(ps_table_shape_t s);

/* Writes the header row. strands: the forward and reverse columns (totals,
 * by-record); samples: the by-file column names. Returns 0 or -1 on a
 * write error. */
int ps_table_write_header(FILE *f, ps_table_shape_t s, int strands, const char *const *samples, size_t n_samples);
/* The same with mm distance columns mm0 ... mm{mm-1} after the counts of a
 * totals table (count --mismatches; merge sums them as it sums sample
 * columns) and, with id, an `id` column after `name` (PROSITE entries,
 * which merge does not read yet). */
int ps_table_write_header_ex(FILE *f, ps_table_shape_t s, int strands, const char *const *samples, size_t n_samples,
                             int mm, int id);

/* Recognises a header row split into fields: its shape, whether it has the
 * strand columns, how many mm distance columns a totals table has (mm0 ...
 * mm{*mm-1}, in order, after the counts: count -m) and how many columns come
 * before the counts (3 for an older by-record table without `input`).
 * by-file sample names must be non-empty and distinct; a column list that
 * starts as a totals table's (count, forward, reverse, mm0...) and then
 * strays is refused, not read as samples. On failure err says what is wrong
 * (the caller adds the file and line). */
int ps_table_parse_header(char *const *fields, size_t n, ps_table_shape_t *shape, int *strands, int *mm, size_t *keys,
                          ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
