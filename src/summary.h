/* summary.h - `probescan summary`: MultiQC custom content from count tables.
 *
 * Reads totals tables (one sample each, named after the file without .gz or
 * .bgz and then .tsv or .txt: "liver.tsv.gz" is "liver"; its count is the
 * `count` column, whatever strand and mm columns follow) and --by-file
 * matrices (a sample per column); every table must hold the same probe rows
 * in the same order, and a sample name may appear once. --stats files of
 * the count runs (any valid JSON, read by jansson; plain or gzip) add, per
 * sample, the records and bases of the inputs that ps_sample_name names
 * alike; a file that is not JSON, or lacks the "inputs" list of {"path",
 * "records", "bases"}, is refused, and so is one file given twice. The two
 * columns are written only when every sample has such an input (else one
 * warning line on stderr names the first without).
 * Writes into the output folder (made with its parents when missing, after
 * every input was read), each file whole or not at all:
 *   probescan_samples_mqc.tsv   per sample: probes found (count > 0), probes,
 *                               hits, and records and bases when known
 *   probescan_top_mqc.tsv       per sample: its five most counted probes,
 *                               ties in probe-file order
 *   probescan_heatmap_mqc.tsv   with two samples or more: log10(count + 1)
 *                               of the 30 probes whose log counts vary most;
 *                               with one, a file of that name is removed, so
 *                               that no earlier run's heatmap stays beside
 * which MultiQC (1.14 and later) shows as three sections. Memory: the probe
 * and sample names and one 64-bit count per probe and sample; its own work
 * linear in the tables' size (sample names are hashed, counts stored a table
 * at a time). */
#ifndef PS_SUMMARY_H
#define PS_SUMMARY_H

#include "cleanup.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* argv[0] is "summary". Returns PS_OK, 1 after --help or --version, or a
 * negative code. */
int ps_summary_main(int argc, char **argv, ps_cleanup_t *cl, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
