/* gpu_scan.cu - the Aho-Corasick scan kernels and their launch plans.
 *
 * Every variant walks the full DFA over thread tiles of PS_TILE_WORDS packed
 * words. A thread starts ceil((k-1)/per_word) words before its tile (never
 * below 0), from the root, so that a match straddling the tile's start is
 * found by the thread owning its end; it resets to the root at each restart
 * and counts a leaf at position p only when p lies in its tile and p >= n_ctx.
 * That is exactly ps_cpu_scan_chunk's rule: a leaf is reached only after k
 * symbols consumed since the last reset, all within the walk.
 *
 * The variants add one idea each, so that the ablation shows every step:
 *   baseline   DFA in global memory, text read one symbol at a time from
 *              global memory, one 64-bit global atomic per match
 *   shared     + DFA copied into shared memory (read-only path if too big)
 *   coalesced  + each block's text staged into shared memory by coalesced
 *              16-byte loads
 *   compact    + whole packed words consumed from registers (one shared load
 *              per 16 DNA / 6 protein symbols), restart-free words unrolled
 *   leaf       + leaf counts in 32-bit shared counters, flushed once per block
 *   best       + 16-bit DFA entries when states < 2^16 (half the shared
 *              footprint, so larger automata fit), 512-thread blocks
 * All grids are persistent (a few blocks per SM looping over tiles), so a
 * block's shared counters are flushed once per launch, not once per tile. */
#include "gpu_scan.h"

#include <stdio.h>
#include <string.h>

namespace {

struct ps_kargs {
    const void *dfa;        /* global DFA (uint16_t or uint32_t entries) */
    uint32_t dfa_bytes;     /* shared bytes of the DFA copy (multiple of 16) */
    uint32_t cnt_bytes;     /* shared bytes of the counters (multiple of 16) */
    uint32_t leaf_base;
    uint32_t cnt_sh;        /* leaves counted in shared memory */
    unsigned long long *counts;
    const uint32_t *text;
    uint32_t n, nw, n_ctx;  /* symbols, words, context symbols */
    const uint32_t *restart;
    uint32_t n_restart;
    uint32_t hw;            /* words a thread re-reads before its tile */
    uint32_t halo;          /* words staged before a block tile (multiple of 16) */
    uint32_t n_btiles;
};

/* DFA location: global plain loads, global read-only path, shared memory. */
enum { DM_GLOBAL = 0, DM_LDG = 1, DM_SHARED = 2 };

template <int DM, typename ST>
__device__ __forceinline__ uint32_t ps_step(const ST *dfa, uint32_t s, uint32_t c, int bits)
{
    uint32_t i = (s << bits) | c;
    if (DM == DM_LDG) return (uint32_t)__ldg(dfa + i);
    return (uint32_t)dfa[i];
}

/* Padded shared index: one spare word per 16, so that thread t reading its
 * j-th word (t * 17 + j) hits a distinct bank across the warp. */
__device__ __forceinline__ uint32_t ps_pad(uint32_t i) { return i + (i >> 4); }

template <bool LEAFSH>
__device__ __forceinline__ void ps_count(const ps_kargs &a, uint32_t *scnt, uint32_t id)
{
    if (LEAFSH && id < a.cnt_sh)
        atomicAdd(&scnt[id], 1u);
    else
        atomicAdd(&a.counts[id], 1ull);
}

template <int BITS, int DM, bool STAGED, bool WORDWISE, bool LEAFSH, typename ST, int NT>
__global__ void __launch_bounds__(NT) ps_scan_kernel(ps_kargs a)
{
    constexpr uint32_t PW = BITS == 2 ? 16u : 6u;
    constexpr uint32_t MASK = (1u << BITS) - 1u;
    constexpr uint32_t TW = PS_TILE_WORDS;
    extern __shared__ __align__(16) unsigned char ps_smem[];

    uint32_t off = DM == DM_SHARED ? a.dfa_bytes : 0u;
    uint32_t *scnt = (uint32_t *)(ps_smem + off);
    off += LEAFSH ? a.cnt_bytes : 0u;
    uint32_t *stage = (uint32_t *)(ps_smem + off);
    const ST *dfa = DM == DM_SHARED ? (const ST *)ps_smem : (const ST *)a.dfa;
    const uint32_t tid = threadIdx.x;

    if (DM == DM_SHARED) {
        const uint4 *src = (const uint4 *)a.dfa;
        uint4 *dst = (uint4 *)ps_smem;
        for (uint32_t i = tid; i < a.dfa_bytes / 16u; i += NT) dst[i] = __ldg(src + i);
    }
    if (LEAFSH)
        for (uint32_t i = tid; i < a.cnt_sh; i += NT) scnt[i] = 0;
    __syncthreads();

    for (uint32_t bt = blockIdx.x; bt < a.n_btiles; bt += gridDim.x) {
        const uint32_t wb = bt * (NT * TW);
        if (STAGED) {
            /* Coalesced 16-byte loads of [wb - halo, wb + NT*TW); words
             * outside the chunk read as 0 and are never consumed. */
            const uint32_t groups = (a.halo + NT * TW) / 4u;
            const long long base = (long long)wb - a.halo;
            for (uint32_t g = tid; g < groups; g += NT) {
                long long gw = base + 4ll * g;
                uint4 v;
                if (gw >= 0 && gw + 4 <= (long long)a.nw) {
                    v = __ldg((const uint4 *)(a.text + gw));
                } else {
                    v.x = (gw >= 0 && gw < a.nw) ? __ldg(a.text + gw) : 0u;
                    v.y = (gw + 1 >= 0 && gw + 1 < a.nw) ? __ldg(a.text + gw + 1) : 0u;
                    v.z = (gw + 2 >= 0 && gw + 2 < a.nw) ? __ldg(a.text + gw + 2) : 0u;
                    v.w = (gw + 3 >= 0 && gw + 3 < a.nw) ? __ldg(a.text + gw + 3) : 0u;
                }
                uint32_t pi = ps_pad(4u * g); /* the 4 words share one padded row */
                stage[pi] = v.x;
                stage[pi + 1] = v.y;
                stage[pi + 2] = v.z;
                stage[pi + 3] = v.w;
            }
            __syncthreads();
        }

        const uint32_t t0w = wb + tid * TW;
        if (t0w < a.nw) {
            const uint32_t t1w = min(t0w + TW, a.nw);
            const uint32_t wq = t0w > a.hw ? t0w - a.hw : 0u;
            const uint32_t cstart = max(t0w * PW, a.n_ctx);
            const uint32_t p0 = wq * PW;
            /* First restart at or after the walk's start. */
            uint32_t lo = 0, hi = a.n_restart;
            while (lo < hi) {
                uint32_t mid = (lo + hi) >> 1;
                if (__ldg(a.restart + mid) < p0) lo = mid + 1;
                else hi = mid;
            }
            uint32_t ri = lo;
            uint32_t nr = ri < a.n_restart ? __ldg(a.restart + ri) : 0xFFFFFFFFu;
            const uint32_t sbase = a.halo - wb; /* stage index = w + sbase (mod 2^32) */
            uint32_t s = 0;

            if (!WORDWISE) {
                /* One symbol at a time, its word re-read for each symbol. */
                const uint32_t pend = min(t1w * PW, a.n);
                for (uint32_t p = p0; p < pend; ++p) {
                    uint32_t w = p / PW;
                    uint32_t x = STAGED ? stage[ps_pad(w + sbase)] : a.text[w];
                    uint32_t c = (x >> ((p % PW) * BITS)) & MASK;
                    if (p == nr) {
                        s = 0;
                        ++ri;
                        nr = ri < a.n_restart ? __ldg(a.restart + ri) : 0xFFFFFFFFu;
                    }
                    s = ps_step<DM, ST>(dfa, s, c, BITS);
                    if (s >= a.leaf_base && p >= cstart) ps_count<LEAFSH>(a, scnt, s - a.leaf_base);
                }
            } else {
                for (uint32_t w = wq; w < t1w; ++w) {
                    const uint32_t x = STAGED ? stage[ps_pad(w + sbase)] : __ldg(a.text + w);
                    const uint32_t pb = w * PW;
                    if (pb >= cstart && pb + PW <= a.n && nr >= pb + PW) {
                        /* Common case: whole word counted, no restart. */
#pragma unroll
                        for (uint32_t j = 0; j < PW; ++j) {
                            s = ps_step<DM, ST>(dfa, s, (x >> (j * BITS)) & MASK, BITS);
                            if (s >= a.leaf_base) ps_count<LEAFSH>(a, scnt, s - a.leaf_base);
                        }
                    } else {
                        for (uint32_t j = 0; j < PW; ++j) {
                            const uint32_t p = pb + j;
                            if (p >= a.n) break;
                            if (p == nr) {
                                s = 0;
                                ++ri;
                                nr = ri < a.n_restart ? __ldg(a.restart + ri) : 0xFFFFFFFFu;
                            }
                            s = ps_step<DM, ST>(dfa, s, (x >> (j * BITS)) & MASK, BITS);
                            if (s >= a.leaf_base && p >= cstart)
                                ps_count<LEAFSH>(a, scnt, s - a.leaf_base);
                        }
                    }
                }
            }
        }
        if (STAGED) __syncthreads(); /* the stage is refilled next tile */
    }

    if (LEAFSH) {
        __syncthreads();
        for (uint32_t i = tid; i < a.cnt_sh; i += NT) {
            uint32_t v = scnt[i];
            if (v) atomicAdd(&a.counts[i], (unsigned long long)v);
        }
    }
}

typedef void (*ps_kfn)(ps_kargs);

template <int BITS>
ps_kfn ps_pick(int variant, int dm, int dfa16, int *threads)
{
    const bool sh = dm == DM_SHARED;
    *threads = 256;
    switch (variant) {
    case PS_K_BASELINE:
        return ps_scan_kernel<BITS, DM_GLOBAL, false, false, false, uint32_t, 256>;
    case PS_K_SHARED:
        return sh ? ps_scan_kernel<BITS, DM_SHARED, false, false, false, uint32_t, 256>
                  : ps_scan_kernel<BITS, DM_LDG, false, false, false, uint32_t, 256>;
    case PS_K_COALESCED:
        return sh ? ps_scan_kernel<BITS, DM_SHARED, true, false, false, uint32_t, 256>
                  : ps_scan_kernel<BITS, DM_LDG, true, false, false, uint32_t, 256>;
    case PS_K_COMPACT:
        return sh ? ps_scan_kernel<BITS, DM_SHARED, true, true, false, uint32_t, 256>
                  : ps_scan_kernel<BITS, DM_LDG, true, true, false, uint32_t, 256>;
    case PS_K_LEAF:
        return sh ? ps_scan_kernel<BITS, DM_SHARED, true, true, true, uint32_t, 256>
                  : ps_scan_kernel<BITS, DM_LDG, true, true, true, uint32_t, 256>;
    default:
        *threads = 512;
        if (dfa16)
            return sh ? ps_scan_kernel<BITS, DM_SHARED, true, true, true, uint16_t, 512>
                      : ps_scan_kernel<BITS, DM_LDG, true, true, true, uint16_t, 512>;
        return sh ? ps_scan_kernel<BITS, DM_SHARED, true, true, true, uint32_t, 512>
                  : ps_scan_kernel<BITS, DM_LDG, true, true, true, uint32_t, 512>;
    }
}

const char *const ps_names[] = {"best", "baseline", "shared", "coalesced", "compact", "leaf", NULL};

size_t ps_round16(size_t x) { return (x + 15u) & ~(size_t)15u; }

} // namespace

int ps_gpu_variant(const char *name)
{
    if (!name) return PS_K_BEST;
    for (int i = 0; ps_names[i]; i++)
        if (strcmp(ps_names[i], name) == 0) return i;
    return -1;
}

const char *const *ps_gpu_variant_names(void) { return ps_names; }

cudaError_t ps_gpu_tables_upload(ps_gplan_t *pl, const ps_automaton_t *a)
{
    cudaError_t e;
    size_t entries = (size_t)a->n_states << a->shift;
    size_t b32 = ps_round16(entries * 4u), b16 = ps_round16(entries * 2u);
    uint32_t *d32 = NULL;
    uint16_t *d16 = NULL;
    unsigned long long *dc = NULL;
    pl->d_delta = NULL;
    pl->d_delta16 = NULL;
    pl->d_counts = NULL;
    /* Padded to 16 bytes (zeros) so the shared copy can move uint4s. */
    if ((e = cudaMalloc(&d32, b32)) != cudaSuccess) goto fail;
    if ((e = cudaMemset(d32, 0, b32)) != cudaSuccess) goto fail;
    if ((e = cudaMemcpy(d32, a->delta, entries * 4u, cudaMemcpyHostToDevice)) != cudaSuccess) goto fail;
    if (a->n_states <= 65536u) {
        uint16_t *h = (uint16_t *)malloc(b16);
        if (!h) {
            e = cudaErrorMemoryAllocation;
            goto fail;
        }
        memset(h, 0, b16);
        for (size_t i = 0; i < entries; i++) h[i] = (uint16_t)a->delta[i];
        e = cudaMalloc(&d16, b16);
        if (e == cudaSuccess) e = cudaMemcpy(d16, h, b16, cudaMemcpyHostToDevice);
        free(h);
        if (e != cudaSuccess) goto fail;
    }
    if ((e = cudaMalloc(&dc, (size_t)a->n_leaves * 8u)) != cudaSuccess) goto fail;
    if ((e = cudaMemset(dc, 0, (size_t)a->n_leaves * 8u)) != cudaSuccess) goto fail;
    pl->d_delta = d32;
    pl->d_delta16 = d16;
    pl->d_counts = dc;
    return cudaSuccess;
fail:
    cudaFree(d32);
    cudaFree(d16);
    cudaFree(dc);
    return e;
}

void ps_gpu_tables_free(ps_gplan_t *pl)
{
    cudaFree((void *)pl->d_delta);
    cudaFree((void *)pl->d_delta16);
    cudaFree(pl->d_counts);
    pl->d_delta = NULL;
    pl->d_delta16 = NULL;
    pl->d_counts = NULL;
}

cudaError_t ps_gpu_plan(ps_gplan_t *pl, int variant, const ps_automaton_t *a, int device)
{
    cudaError_t e;
    int optin = 0, n_sm = 0;
    if ((e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) != cudaSuccess)
        return e;
    if ((e = cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return e;
    pl->variant = variant;
    pl->bits = a->shift; /* 2 or 5, equal to the packing width */
    pl->k = a->k;
    pl->n_states = a->n_states;
    pl->leaf_base = a->leaf_base;
    pl->n_leaves = a->n_leaves;

    const uint32_t pw = PS_PER_WORD(pl->bits);
    const uint32_t hw = (uint32_t)(a->k - 1 + pw - 1) / pw;
    const bool staged = variant != PS_K_BASELINE && variant != PS_K_SHARED;
    const int threads = variant == PS_K_BEST ? 512 : 256;
    pl->halo_words = staged ? (hw + 15u) & ~15u : 0u;
    size_t stage = 0;
    if (staged) {
        size_t words = pl->halo_words + (size_t)threads * PS_TILE_WORDS;
        stage = ps_round16((words + words / 16u) * 4u);
    }
    size_t budget = (size_t)optin > stage ? (size_t)optin - stage : 0;

    /* Shared memory goes to the DFA first (read at every symbol), then to as
     * many leaf counters as fit; leaves beyond cnt_shared use global atomics.
     * This is the switch between the shared and the partitioned count paths. */
    pl->dfa16 = variant == PS_K_BEST && pl->d_delta16 != NULL;
    size_t entries = (size_t)a->n_states << a->shift;
    size_t dfa_bytes = ps_round16(entries * (pl->dfa16 ? 2u : 4u));
    pl->dfa_shared = variant != PS_K_BASELINE && dfa_bytes <= budget;
    if (pl->dfa_shared) budget -= dfa_bytes;
    pl->cnt_shared = 0;
    if (variant == PS_K_LEAF || variant == PS_K_BEST) {
        size_t fit = budget / 4u;
        /* Keep a 16-byte multiple so the stage stays aligned. */
        pl->cnt_shared = (uint32_t)(fit >= a->n_leaves ? a->n_leaves : fit & ~(size_t)3u);
    }
    pl->smem = (pl->dfa_shared ? dfa_bytes : 0) + ps_round16((size_t)pl->cnt_shared * 4u) + stage;

    int thr = 0;
    ps_kfn fn = pl->bits == 2 ? ps_pick<2>(variant, pl->dfa_shared ? DM_SHARED : DM_LDG, pl->dfa16, &thr)
                              : ps_pick<5>(variant, pl->dfa_shared ? DM_SHARED : DM_LDG, pl->dfa16, &thr);
    pl->threads = thr;
    if ((e = cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)pl->smem)) != cudaSuccess)
        return e;
    int per_sm = 0;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, thr, pl->smem)) != cudaSuccess)
        return e;
    if (per_sm < 1) return cudaErrorInvalidConfiguration;
    pl->blocks = per_sm * n_sm;
    return cudaSuccess;
}

void ps_gpu_plan_describe(const ps_gplan_t *pl, char *buf, size_t len)
{
    snprintf(buf, len,
             "kernel %s: %u states, %u leaves; DFA %s (%d-bit); leaf counters %u of %u in shared "
             "memory; %d blocks x %d threads, %zu bytes shared",
             ps_names[pl->variant], pl->n_states, pl->n_leaves,
             pl->dfa_shared ? "in shared memory" : pl->variant == PS_K_BASELINE ? "in global memory"
                                                                                 : "read-only from global",
             pl->dfa16 ? 16 : 32, pl->cnt_shared, pl->n_leaves, pl->blocks, pl->threads, pl->smem);
}

cudaError_t ps_gpu_launch(const ps_gplan_t *pl, const uint32_t *d_text, uint64_t n, uint32_t n_ctx,
                          const uint32_t *d_restart, uint32_t n_restart, cudaStream_t st)
{
    if (n == 0) return cudaSuccess;
    const uint32_t pw = PS_PER_WORD(pl->bits);
    ps_kargs a;
    memset(&a, 0, sizeof a);
    a.dfa = pl->dfa16 ? (const void *)pl->d_delta16 : (const void *)pl->d_delta;
    size_t entries = (size_t)pl->n_states << pl->bits;
    a.dfa_bytes = pl->dfa_shared ? (uint32_t)ps_round16(entries * (pl->dfa16 ? 2u : 4u)) : 0u;
    a.cnt_bytes = (uint32_t)ps_round16((size_t)pl->cnt_shared * 4u);
    a.leaf_base = pl->leaf_base;
    a.cnt_sh = pl->cnt_shared;
    a.counts = pl->d_counts;
    a.text = d_text;
    a.n = (uint32_t)n;
    a.nw = (uint32_t)((n + pw - 1) / pw);
    a.n_ctx = n_ctx;
    a.restart = d_restart;
    a.n_restart = n_restart;
    a.hw = (uint32_t)(pl->k - 1 + pw - 1) / pw;
    a.halo = pl->halo_words;
    const uint32_t tile = (uint32_t)pl->threads * PS_TILE_WORDS;
    a.n_btiles = (a.nw + tile - 1) / tile;
    int thr = 0;
    int dm = pl->dfa_shared ? DM_SHARED : DM_LDG;
    ps_kfn fn = pl->bits == 2 ? ps_pick<2>(pl->variant, dm, pl->dfa16, &thr)
                              : ps_pick<5>(pl->variant, dm, pl->dfa16, &thr);
    unsigned grid = (unsigned)(a.n_btiles < (uint32_t)pl->blocks ? a.n_btiles : (uint32_t)pl->blocks);
    fn<<<grid, thr, pl->smem, st>>>(a);
    return cudaGetLastError();
}
