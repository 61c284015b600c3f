/* tablein.h - reading a probescan table (merge, summary) a line at a time.
 *
 * A table may be plain, gzip or BGZF, or "-" for standard input (named
 * "standard input" in messages). Each line is split at tabs, in place, into
 * fld[0..nfld). The first line is the header. Refused, with the name and
 * line number: a last line without its line break (a table cut short), a NUL
 * byte, an empty line, a row of more or fewer fields than the header. A UTF-8
 * byte-order mark before the first line is dropped. Memory: the longest
 * line and its field pointers. */
#ifndef PS_TABLEIN_H
#define PS_TABLEIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *show;       /* how messages name the table */
    FILE *f;
    char *line;
    size_t cap;
    unsigned long lineno;   /* of the line last read, from 1 */
    char **fld;             /* the fields of that line */
    size_t nfld, fcap;
    size_t header_nfld;     /* fields of line 1 */
    int strands, mm;        /* what ps_tablein_header found (table.h) */
} ps_tablein_t;

int ps_tablein_open(ps_tablein_t *in, const char *path, ps_err_t *err);
/* Reads the next line: 1 for a line, 0 at the end, or a negative PS_E_* code. */
int ps_tablein_next(ps_tablein_t *in, ps_err_t *err);
void ps_tablein_close(ps_tablein_t *in);
/* The shape of the table from its header (the line just read, line 1), as
 * table.h reads it, also setting in->strands and in->mm; keys may be NULL. */
int ps_tablein_header(ps_tablein_t *in, ps_table_shape_t *shape, size_t *keys, ps_err_t *err);
/* Field `field` of the current line as a count: decimal digits only, below
 * 2^64; else an error naming the table, line and column. */
int ps_tablein_count(const ps_tablein_t *in, size_t field, const char *column, uint64_t *out, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
