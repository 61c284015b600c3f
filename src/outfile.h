/* outfile.h - writing a file the user named, safely.
 *
 * A regular file (or a path not there yet; through a symlink, the file it
 * resolves to) is written under a temporary name beside it and renamed over
 * it only after everything was written and flushed, so an error or a
 * signal never leaves a file that looks complete, nor a temporary one (it
 * is registered with ps_cleanup). Anything else - a character device such
 * as /dev/null, a FIFO, /dev/stdout, /dev/fd/N as `>(cmd)` gives - is opened
 * and written directly, never replaced. "-" or NULL means standard output.
 * A name ending in .gz or .bgz is written BGZF-compressed (gzip-readable).
 *
 * Statistics files (--stats) are JSON made and written by jansson, so they
 * are valid JSON whatever the names in them: ps_json_text makes a JSON
 * string of any bytes (a file name need not be UTF-8: each byte that does
 * not begin a well-formed UTF-8 sequence becomes U+FFFD, the replacement
 * character, so such a name is shown, not reproduced); ps_json_save writes
 * an object whole or not at all, as above, laid out one member a line and
 * an array's elements one a line (what a line-oriented reader of the older
 * files expects): {"a": 1, "b": [x, y]} is written
 *     {
 *       "a": 1,
 *       "b": [
 *         x,
 *         y
 *       ]
 *     }
 * with x and y, and any other value, on one line (", " and ": " between
 * items, as jansson writes them); reals with up to 15 significant digits. */
#ifndef PS_OUTFILE_H
#define PS_OUTFILE_H

#include <stdio.h>

#include "cleanup.h"
#include "engine.h"
#include "error.h"

/* jansson's value type, declared as jansson.h does, so that including this
 * header does not bring in all of jansson's names. */
typedef struct json_t json_t;

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

/* A new JSON string of s, U+FFFD for each byte outside well-formed UTF-8;
 * NULL when out of memory. */
json_t *ps_json_text(const char *s);
/* A JSON number of seconds, rounded to microseconds; NULL when out of
 * memory or s is not finite. */
json_t *ps_json_seconds(double s);
/* --stats "gpus": each GPU's share of the scan (engine_gpus.h) as
 * {"id", "chunks", "bases", "seconds"}; an empty array where the scan ran
 * on no GPU. NULL when out of memory. */
json_t *ps_json_gpus(const ps_engine_info_t *in);
/* Writes obj, a JSON object, to path (ps_output_open's rules; cl as there).
 * Takes obj's reference, also on failure; obj NULL (a failed json_pack or
 * the like) is out of memory. */
int ps_json_save(const char *path, json_t *obj, ps_cleanup_t *cl, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
