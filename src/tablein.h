/* tablein.h - reading a probescan table (merge, summary) or a tab-separated
 * sheet a line at a time: the one way the program reads such text.
 *
 * A file may be plain, gzip or BGZF (read through htslib's BGZF layer), or
 * "-" for standard input (named "standard input" in messages). Each line is
 * split at tabs, in place, into fld[0..nfld). A line may end in LF or in
 * CR LF (a Windows text file): the CR is dropped. A UTF-8 byte-order mark
 * before the first line is dropped. Refused, with the name and the line
 * number:
 *   - a last line without its line break (a table cut short);
 *   - compressed data that is corrupt or ends early (a cut gzip stream), and
 *     BGZF data that ends without its end-of-file block (cut at a block
 *     boundary): errors, never a shorter table;
 *   - a NUL byte (binary data);
 *   - an empty line;
 *   - a row of more or fewer fields than the first line (the header).
 * Flags relax this for hand-written sheets (sample sheets):
 *   PS_TABLEIN_SKIP_BLANK  empty lines and lines starting with '#' are
 *                          skipped (they still count in line numbers);
 *   PS_TABLEIN_RAGGED      rows may have any number of fields;
 *   PS_TABLEIN_OPEN_END    the last line may lack its line break;
 *   PS_TABLEIN_SHEET       all three.
 * Memory: the longest line, its field pointers and a 64 KiB read buffer. */
#ifndef PS_TABLEIN_H
#define PS_TABLEIN_H

#include <stddef.h>
#include <stdint.h>

#include <htslib/bgzf.h>
#include <htslib/kstring.h>

#include "error.h"
#include "table.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    PS_TABLEIN_SKIP_BLANK = 1,
    PS_TABLEIN_RAGGED = 2,
    PS_TABLEIN_OPEN_END = 4,
    PS_TABLEIN_SHEET = PS_TABLEIN_SKIP_BLANK | PS_TABLEIN_RAGGED | PS_TABLEIN_OPEN_END
};

typedef struct {
    const char *show;       /* how messages name the table */
    unsigned flags;
    BGZF *fp;
    char *buf;              /* bytes read ahead of the line */
    size_t pos, len;
    kstring_t line;         /* the line last read, split in place */
    unsigned long lineno;   /* of the line last read, from 1 */
    char **fld;             /* the fields of that line */
    size_t nfld, fcap;
    size_t header_nfld;     /* fields of the first line read (the header) */
    int strands, mm;        /* what ps_tablein_header found (table.h) */
} ps_tablein_t;

/* Opens path for reading; in is zeroed first, so ps_tablein_close is safe
 * after a failed open. */
int ps_tablein_open(ps_tablein_t *in, const char *path, ps_err_t *err);
/* The same with PS_TABLEIN_* flags. */
int ps_tablein_open_ex(ps_tablein_t *in, const char *path, unsigned flags, ps_err_t *err);
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
