/* merge.h - `probescan merge`: combine count tables made from one probe set.
 *
 * Scatter/gather: a workflow counts chunks of its inputs separately (per
 * sample, per genome piece) and merges the tables. The merge of scattered
 * chunks equals the table of one run over all of them, byte for byte.
 *
 * Table shapes, recognised from the header row (all made by probescan count):
 *   totals     name sequence count [forward reverse] [mm0 ... mmD]
 *              same header and probe rows in every input; counts summed.
 *   by-file    name sequence <sample>...
 *              same probe rows; columns joined side by side, a sample column
 *              present in several inputs summed (one sample scattered over
 *              chunks), new samples appended in first-seen order.
 *   by-record  input record name sequence count [forward reverse]
 *              same header; rows concatenated in input order. A record is
 *              its input and its name: records of one name from two inputs
 *              are never joined. (Older tables without the input column are
 *              read as before.) A record whose rows end one table while the
 *              next starts with the same record is either one record cut in
 *              pieces (a chromosome split over chunks) or two records of one
 *              name (the mates of a pair, `@frag1 1:N:0` and `@frag1 2:N:0`,
 *              dealt to two chunks); the tables cannot tell. With
 *              --split-records it is joined: rows with equal (record, name,
 *              sequence) summed, the others in probe-file order. With
 *              --whole-records the rows are kept apart, concatenated. With
 *              neither, the join stands where it equals keeping them apart,
 *              and is refused (naming both tables, the record and the two
 *              options) where it does not. Only the probe file (-p) fixes
 *              the order of a joined record in every case; without it, rows
 *              the tables leave unordered keep input order, and one warning
 *              line says so.
 * Memory: the cells of a totals or by-file table (8 bytes each) and its
 * names, linear in its size however many samples it has; by-record tables
 * stream, holding the rows of one record.
 * Counts are 64-bit unsigned; a sum that overflows is an error. Inputs of
 * different shapes, different probe rows or different totals columns are
 * refused with one line naming the file, line and first difference. */
#ifndef PS_MERGE_H
#define PS_MERGE_H

#include <stdio.h>

#include "cleanup.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `probescan merge`. argv[0] is the command name ("merge"); options and
 * input tables follow:  [-o OUT] [-p PROBES] [--split-records |
 * --whole-records] [-q] [-h] [--version] TABLE...  ('-' = standard input,
 * at most once; -q is accepted and changes nothing: merge has no progress
 * line). OUT may not be one of the tables or PROBES, compared as files
 * (refused: it would be overwritten). PROBES, the probe file the tables were
 * counted with, is optional: totals and by-file probe rows are checked
 * against it, and by-record rows of split records are ordered by it. Output
 * goes to OUT through a temporary file beside it, renamed into place only
 * on success (cl, if not NULL, removes it on a signal); default the stream
 * out, which also gets the help and the version. Warnings go to diag.
 * Returns 0 on success, 1 when it only printed the help (also with no
 * arguments at all) or the version, or a negative PS_E_* code with err
 * filled (also where the help or version could not be written); it prints
 * no error itself. */
int ps_merge(int argc, char **argv, FILE *out, FILE *diag, ps_cleanup_t *cl, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
