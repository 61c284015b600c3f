/* outfile.h - writing a file the user named, safely.
 *
 * A regular file (or a path not there yet; through a symlink, the file it
 * resolves to) is written under a temporary name beside it and renamed over
 * it only after everything was written and flushed, so an error or a
 * signal never leaves a file that looks complete, nor a temporary one (it
 * is registered with ps_cleanup). Anything else - a character device such
 * as /dev/null, a FIFO, /dev/stdout, /dev/fd/N as `>(cmd)` gives - is opened
 * and written directly, never replaced. "-" or NULL means standard output.
 * A name ending in .gz or .bgz is written BGZF-compressed (gzip-readable). */
#ifndef PS_OUTFILE_H
#define PS_OUTFILE_H

#include <stdio.h>

#include "cleanup.h"
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_output ps_output_t;

/* cl (may be NULL) removes the temporary file if the process is stopped. */
int ps_output_open(ps_output_t **out, const char *path, ps_cleanup_t *cl, ps_err_t *err);
/* An output on a stream already open (standard output, a test's memory
 * stream): written directly, flushed on commit, never closed. */
int ps_output_open_stream(ps_output_t **out, FILE *f, ps_err_t *err);
FILE *ps_output_stream(ps_output_t *o);
/* Flushes, closes and (for a regular file) renames into place; frees o. */
int ps_output_commit(ps_output_t *o, ps_err_t *err);
/* Removes the temporary file (what went straight to a device stays); frees
 * o. Safe on NULL. */
void ps_output_abort(ps_output_t *o);

/* Writes s to f as a JSON string, quoted and escaped (statistics files). */
void ps_json_str(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif
