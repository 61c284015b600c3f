#include "progress.h"

#include <stdio.h>
#include <unistd.h>

void ps_progress_init(ps_progress_t *pg, int wanted, int total_files)
{
    *pg = (ps_progress_t){.enabled = wanted && isatty(STDERR_FILENO), .total_files = total_files};
}

void ps_progress_begin(ps_progress_t *pg, const char *path, int index)
{
    pg->path = path;
    pg->index = index;
    pg->start = pg->last = ps_now();
}

/* Called on the reader thread after every chunk; redraws at most twice a second. */
void ps_progress_show(void *ctx, const ps_reader_t *r)
{
    ps_progress_t *pg = ctx;
    double t = ps_now();
    if (t - pg->last < 0.5) return;
    pg->last = t;
    uint64_t done, total;
    ps_reader_progress(r, &done, &total);
    double rate = (t > pg->start) ? (double)done / (t - pg->start) : 0;
    if (total && done <= total && rate > 0)
        fprintf(stderr, "\rprobescan: [%d/%d] %s: %.1f/%.1f MB (%.0f%%), %.0f MB/s, ETA %.0f s   ", pg->index,
                pg->total_files, pg->path, done / 1e6, total / 1e6, 100.0 * done / total, rate / 1e6,
                (total - done) / rate);
    else
        fprintf(stderr, "\rprobescan: [%d/%d] %s: %.1f MB, %.0f MB/s   ", pg->index, pg->total_files, pg->path,
                done / 1e6, rate / 1e6);
}

void ps_progress_end(const ps_progress_t *pg)
{
    if (pg->enabled) fputs("\r\033[K", stderr);
}
