/* progress.h - the progress line `count` and `locate` draw on standard
 * error while an input is read:
 *   probescan: [2/5] reads.fq.gz: 12.3/40.0 MB (31%), 85 MB/s, ETA 0 s
 * (bytes read of the file, compressed, and its size where known; else the
 * bytes and the rate), redrawn in place at most twice a second, and erased
 * when the input is done. Only when enabled: not -q, and standard error a
 * terminal (ps_progress_init); a caller whose output goes to the same
 * terminal as it is written keeps it off.
 *
 * ps_progress_show is a ps_progress_fn (scan.h) with the ps_progress_t as
 * its context; it runs on the reading thread only. */
#ifndef PS_PROGRESS_H
#define PS_PROGRESS_H

#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int enabled;
    const char *path;      /* the input being read */
    int index, total_files; /* its number from 1, of total_files */
    double start, last;    /* ps_now() when it began, and at the last redraw */
} ps_progress_t;

/* Enabled when wanted (not -q) and standard error is a terminal. */
void ps_progress_init(ps_progress_t *pg, int wanted, int total_files);
/* Input `index` (from 1), path, begins. */
void ps_progress_begin(ps_progress_t *pg, const char *path, int index);
void ps_progress_show(void *ctx, const ps_reader_t *r);
/* Erases the line (when enabled). */
void ps_progress_end(const ps_progress_t *pg);

#ifdef __cplusplus
}
#endif

#endif
