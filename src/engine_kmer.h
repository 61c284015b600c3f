/* engine_kmer.h - the k-mer set engine: the text's k-mers looked up in the
 * k-mer set (kmerset.h) on CPU threads.
 *
 * It counts what the CPU engine counts, leaf for leaf in the set's
 * numbering: a window counts iff it ends at a position >= c->n_ctx with no
 * restart among its last k - 1 positions, and its k-mer is a key. Lookups go
 * in batches whose slots are prefetched first, so that the cache misses of
 * a table larger than the cache overlap instead of queueing. Counts are kept
 * per worker while they take at most 64 MiB in all, beyond that in one array
 * updated atomically (hits are rare beside lookups, and a million probes
 * times sixteen threads would be 256 MB of counters). */
#ifndef PS_ENGINE_KMER_H
#define PS_ENGINE_KMER_H

#include "engine.h"
#include "kmerset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-worker counts up to this many bytes in all, by default. */
#define PS_KMER_LOCAL_COUNTS_MAX (64ull << 20)

/* Creates the engine for `threads` workers (>= 1) over ks, which must
 * outlive it; counts per worker while they take at most local_max bytes
 * in all (PS_KMER_LOCAL_COUNTS_MAX; 0 always shares one array). */
int ps_kmer_engine_new(ps_engine_t **out, const ps_kmerset_t *ks, int threads, uint64_t local_max, ps_err_t *err);

#ifdef __cplusplus
}
#endif

#endif
