#include "parallel.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    ps_parallel_fn fn;
    void *ctx;
    int part, parts;
} part_t;

static void *part_main(void *arg)
{
    part_t *t = arg;
    t->fn(t->ctx, t->part, t->parts);
    return NULL;
}

void ps_parallel_run(int parts, ps_parallel_fn fn, void *ctx)
{
    if (parts <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    part_t *t = malloc((size_t)parts * sizeof *t);
    pthread_t *tid = malloc((size_t)parts * sizeof *tid);
    char *started = calloc((size_t)parts, 1);
    if (!t || !tid || !started) {
        /* No room to start threads: the same parts, one after another. */
        for (int p = 0; p < parts; p++) fn(ctx, p, parts);
    } else {
        for (int p = 1; p < parts; p++) {
            t[p] = (part_t){fn, ctx, p, parts};
            started[p] = pthread_create(&tid[p], NULL, part_main, &t[p]) == 0;
        }
        fn(ctx, 0, parts);
        for (int p = 1; p < parts; p++) {
            if (started[p]) pthread_join(tid[p], NULL);
            else fn(ctx, p, parts);
        }
    }
    free(t);
    free(tid);
    free(started);
}

int ps_parallel_parts(int threads, uint64_t n, uint64_t grain)
{
    uint64_t by_work = grain ? n / grain : n;
    int parts = threads < 1 ? 1 : threads;
    if (by_work < (uint64_t)parts) parts = (int)by_work;
    return parts < 1 ? 1 : parts;
}
