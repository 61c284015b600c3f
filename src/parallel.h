/* parallel.h - one step of work split over threads, for the stages that run
 * before the scanner's pool exists or after it is gone (loading probes,
 * building the k-mer set, writing the table).
 *
 * ps_parallel_run calls fn(ctx, part, parts) once for each part 0 ..
 * parts - 1, part 0 on the calling thread and the others on threads started
 * for the call, and returns when all have returned. A thread that cannot
 * be started costs speed, never the result: its part runs on the calling
 * thread afterwards. Parts are whole: fn decides from part and parts which
 * share of the work is its own, and must not wait on another part.
 *
 * ps_parallel_parts says how many parts n items are worth on a budget of
 * threads: one part per `grain` items at least, threads at most. */
#ifndef PS_PARALLEL_H
#define PS_PARALLEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*ps_parallel_fn)(void *ctx, int part, int parts);

/* Runs fn on parts parts (parts < 1 is taken as 1). */
void ps_parallel_run(int parts, ps_parallel_fn fn, void *ctx);

/* min(threads, n / grain), at least 1. */
int ps_parallel_parts(int threads, uint64_t n, uint64_t grain);

/* The first item of part `part` when n items are split into parts even
 * shares: part p holds [ps_parallel_share(n, p, parts), ps_parallel_share(n, p + 1, parts)). */
static inline uint64_t ps_parallel_share(uint64_t n, int part, int parts)
{
    return (uint64_t)((unsigned __int128)n * (unsigned)part / (unsigned)parts);
}

#ifdef __cplusplus
}
#endif

#endif
