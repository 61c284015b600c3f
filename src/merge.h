/* merge.h - `probescan merge`: combine count tables made from one probe set.
 *
 * Scatter/gather: a workflow counts chunks of its inputs separately (per
 * sample, per genome piece) and merges the tables. The merge of scattered
 * chunks equals the table of one run over all of them, byte for byte.
 *
 * Table shapes, recognised from the header row (all made by probescan count):
 *   totals     name sequence count [forward reverse]
 *              same header and probe rows in every input; counts summed.
 *   by-file    name sequence <sample>...
 *              same probe rows; columns joined side by side, a sample column
 *              present in several inputs summed (one sample scattered over
 *              chunks), new samples appended in first-seen order.
 *   by-record  record name sequence count [forward reverse]
 *              same header; rows concatenated in input order. A record whose
 *              rows end one input and start the next (a record split over
 *              chunks) is joined: rows with equal (record, name, sequence)
 *              are summed, the others kept in probe-file order. Only the
 *              probe file (-p) fixes that order in every case; without it,
 *              rows the tables leave unordered keep input order, and one
 *              warning line says so.
 * Counts are 64-bit unsigned; a sum that overflows is an error. Inputs of
 * different shapes, different probe rows or different totals columns are
 * refused with one line naming the file, line and first difference. */
#ifndef PS_MERGE_H
#define PS_MERGE_H

/* Runs `probescan merge`. argv[0] is the command name ("merge"); options and
 * input tables follow:  [-o OUT] [-p PROBES] [-h] TABLE...  ('-' = standard
 * input, at most once). PROBES, the probe file the tables were counted with,
 * is optional: totals and by-file probe rows are checked against it, and
 * by-record rows of split records are ordered by it. Output goes to OUT
 * through a temporary file beside it, renamed into place only on success;
 * default standard output. Errors print one line "probescan merge: <message>"
 * on stderr. Returns the process exit status: 0 on success (or help, also
 * printed when there are no arguments at all), 1 on any error. */
int ps_merge_main(int argc, char **argv);

#endif
