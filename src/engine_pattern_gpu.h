/* engine_pattern_gpu.h - the pattern set (patset.h) matched bit-parallel on
 * an NVIDIA GPU, with exactly the CPU pattern engine's leaf counts.
 *
 * It takes every set whose strings are each at most 64 positions: windows
 * and the general layout (variable repeats, anchors); a longer one is
 * refused with PS_E_USAGE and a message saying why, so that the caller
 * keeps the CPU pattern engine. Counting is the CPU engine's: for windows
 * (ps->windows_only) the packed text's rule (pack.h): a site of a string
 * of length L counts iff it ends at a position >= c->n_ctx with no restart
 * among its last L - 1 positions, once, at its fewest mismatches; for the
 * general layout a site counts at its start, once, at its fewest
 * mismatches, anchors acting at the segment edges the chunk records, and a
 * start of an unclosed last segment is left to the next chunk when its
 * longest match could reach past the chunk (engine_pattern.c).
 *
 * The strings are laid out again on the device so that none crosses a
 * 64-bit word; a GPU thread owns one such word and one slice of a chunk.
 * Counts stay on the device until collect(), which waits for every chunk
 * submitted and adds them in. Chunks take at most PS_GPU_CHUNK_SYMS
 * symbols and PS_GPU_CHUNK_RESTARTS restarts (info() says so), and are best
 * placed in pinned memory through chunk_alloc. Device memory is the layout,
 * the counters and two or three chunk buffers, whatever the input size.
 *
 * For the kernel benchmark the layout and one launch are also offered
 * alone (ps_gpat_*, CUDA builds only): packed text already on the device,
 * counted on the current device. */
#ifndef PS_ENGINE_PATTERN_GPU_H
#define PS_ENGINE_PATTERN_GPU_H

#include <stdint.h>

#include "bulges.h"
#include "engine.h"
#include "error.h"
#include "patset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest string the GPU layout holds: one 64-bit word. */
#define PS_GPU_PATTERN_MAX_LEN 64

/* Why a set with a forward part (patset.h: fwd) is not the GPU's. */
#define PS_GPU_NO_MINUS_FWD \
    "the minus strand of DNA patterns of variable length or with anchors is matched by the CPU engine only"

/* Creates the engine on GPU gpu_id for `workers` concurrent scan()
 * callers (>= 1) over ps, which must outlive it. PS_E_USAGE: the set is
 * not one the GPU takes; PS_E_GPU: no usable GPU, or a CUDA failure. */
int ps_gpu_pattern_engine_new(ps_engine_t **out, const ps_patset_t *ps, int gpu_id, int workers, ps_err_t *err);

/* The same for guides with bulges (bulges.h): bulges_kernel, a warp's lanes
 * stepping through PAM positions, each candidate compared with every guide
 * as engine_bulges.c does (the same sites, counts and rows). */
int ps_gpu_bulge_engine_new(ps_engine_t **out, const ps_bulgeset_t *b, int gpu_id, int workers, ps_err_t *err);

/* The device layout of ps with its leaf counters, on the current device
 * (a guide library's index built on up to `threads` host threads). */
typedef struct ps_gpat ps_gpat_t;
int ps_gpat_new(ps_gpat_t **out, const ps_patset_t *ps, int threads, ps_err_t *err);
/* Queues the kernel on `stream` (a cudaStream_t; NULL: the default stream)
 * over n packed symbols at d_text (padded to 16 bytes past the last word)
 * with n_restart restarts at d_restart and their edges at d_edge (NULL:
 * no restart is a record's edge; windows ignore them), all in device
 * memory, and the chunk's head_edge and tail_edge (pack.h); n < 2^32. */
int ps_gpat_launch(ps_gpat_t *g, const uint32_t *d_text, uint64_t n, uint32_t n_ctx, const uint32_t *d_restart,
                   const uint8_t *d_edge, uint32_t n_restart, uint8_t head_edge, uint8_t tail_edge, void *stream,
                   ps_err_t *err);
/* Waits for the device, adds the counts into leaf_counts and zeroes them. */
int ps_gpat_collect(ps_gpat_t *g, uint64_t *leaf_counts, ps_err_t *err);
/* Device words of the layout (a thread's share of the work), for reports. */
uint32_t ps_gpat_words(const ps_gpat_t *g);
void ps_gpat_free(ps_gpat_t *g);

#ifdef __cplusplus
}
#endif

#endif
