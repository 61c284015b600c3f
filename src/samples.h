/* samples.h - a sample sheet: which files make up which sample.
 *
 * `--samples sheet.tsv` lines are `sample<TAB>file` (a sample may have several
 * lines: its reads in R1 and R2, in lanes); the sheet may be plain or gzip
 * (bzip2, xz and zstd are refused, saying how to decompress them); blank
 * lines and lines starting with '#' are skipped, as is a first line
 * `sample<TAB>file` (any case). Paths are used as written (relative ones
 * from the current directory). A sample's name is the table's column name,
 * as given, never derived from a path: it must be non-empty, hold no tab,
 * CR or line break and be none of the table's own column titles
 * (ps_table_reserved_column; refused with file and line). One file listed twice,
 * however spelt, is refused by the caller (options.h:
 * ps_check_inputs_distinct). Samples are numbered in order of first
 * appearance; loading is linear in the sheet's size. */
#ifndef PS_SAMPLES_H
#define PS_SAMPLES_H

#include <stddef.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char **name;     /* n_samples names */
    size_t n_samples;
    char **file;     /* n_files paths, in sheet order */
    int *sample;     /* per file: its sample's index */
    size_t n_files;
} ps_samples_t;

int ps_samples_load(ps_samples_t **out, const char *path, ps_err_t *err);
void ps_samples_free(ps_samples_t *s);

/* An input's name where no sheet names it (a --by-file column, a --by-record
 * input, a summary's sample): its base name without the compression
 * (.gz .bgz .bgzf) and then the format (.fa .fasta .fna .faa .fq .fastq)
 * extension; "-" is "stdin". Cut to fit n bytes. */
#define PS_SAMPLE_NAME_MAX 4096
void ps_sample_name(const char *path, char *out, size_t n);

/* The rule behind ps_sample_name, for other kinds of file: the base name of
 * path without one of zext and then one of fext (NULL-ended lists, matched
 * without case); "-" is "stdin". */
void ps_path_stem(const char *path, const char *const *zext, const char *const *fext, char *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
