/* gpu_scan.cu - the Aho-Corasick scan kernels, their uploads and launches
 * (the plan itself is decided in src/gpu_plan.c).
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
 *   kmer       no DFA walk at all (DNA, k <= PS_KMER_MAX_K), see below
 * and, beside them, the k-mer set kernel for many probes of k <= 32 (no
 * automaton: kmerset.h's table and filter; see ps_kset_kernel).
 * All grids are persistent (a few blocks per SM looping over tiles), so a
 * block's shared counters are flushed once per launch, not once per tile.
 *
 * The k-mer path. All probes have length k and only depth-k states are
 * counted, so the leaf reached at p is a function of the last k symbols
 * alone: it is reached iff those symbols spell a probe (or, with both
 * strands, a reverse complement) and all k follow the last restart. The host
 * (src/gpu_plan.c) walks every one of the 4^k k-mers through the DFA once and
 * keeps a membership bitmap, a rank per bitmap word and a rank -> leaf map; the
 * kernel tests each position's k-mer, read straight from the packed words,
 * in the shared bitmap. Positions are independent (no dependent lookup
 * chain), so the cost is one shared load per lookup and its bank conflicts
 * (about 3.5 wavefronts per warp for random words). For k <= 8 a pair table
 * over (k+1)-mers, 2 bits each, answers two adjacent positions per load and
 * halves that cost; it is used when it fits beside all the counters. Hits are
 * collected into a 32-bit mask per 32 positions and only then ranked and
 * counted in shared counters indexed by rank (global atomics for ranks beyond
 * what fits), so the rare hit path does not run once per position. */
#include "gpu_scan.h"

#include <string.h>

namespace {

/* What every kernel is given of its chunk and counters (ps_fill_chunk_args). */
struct ps_chunk_kargs {
    uint32_t cnt_sh;        /* leaves (k-mer path: ranks) counted in shared memory */
    unsigned long long *counts;
    const uint32_t *text;
    uint32_t n, nw, n_ctx;  /* symbols, words, context symbols */
    const uint32_t *restart;
    uint32_t n_restart;
    uint32_t n_btiles;
};

struct ps_kargs : ps_chunk_kargs {
    const void *dfa;        /* global DFA (uint16_t or uint32_t entries) */
    uint32_t dfa_bytes;     /* shared bytes of the DFA copy (multiple of 16) */
    uint32_t cnt_bytes;     /* shared bytes of the counters (multiple of 16) */
    uint32_t leaf_base;
    uint32_t hw;            /* words a thread re-reads before its tile */
    uint32_t halo;          /* words staged before a block tile (multiple of 16) */
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

/* Four text words from w on; words at or past nw read as 0 (their positions
 * are never counted). w is a multiple of 4 (the 16-byte load). */
__device__ __forceinline__ uint4 ps_load4(const uint32_t *text, uint32_t w, uint32_t nw)
{
    if (w + 4u <= nw) return __ldg((const uint4 *)(text + w));
    uint4 v;
    v.x = w < nw ? __ldg(text + w) : 0u;
    v.y = w + 1u < nw ? __ldg(text + w + 1u) : 0u;
    v.z = w + 2u < nw ? __ldg(text + w + 2u) : 0u;
    v.w = 0u; /* w + 3 >= nw here */
    return v;
}

/* Index of the first restart at or after position p (n_restart if none). */
template <class A>
__device__ __forceinline__ uint32_t ps_first_restart(const A &a, uint32_t p)
{
    uint32_t lo = 0, hi = a.n_restart;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (__ldg(a.restart + mid) < p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Position of restart i, or one no position reaches when there is none. */
template <class A>
__device__ __forceinline__ uint32_t ps_restart_pos(const A &a, uint32_t i)
{
    return i < a.n_restart ? __ldg(a.restart + i) : 0xFFFFFFFFu;
}

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
                const long long gw = base + 4ll * g;
                /* halo and wb are multiples of 16, so a group lies wholly
                 * before the chunk (gw < 0) or wholly at or after its start. */
                const uint4 v = gw < 0 ? make_uint4(0u, 0u, 0u, 0u) : ps_load4(a.text, (uint32_t)gw, a.nw);
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
            uint32_t ri = ps_first_restart(a, p0);
            uint32_t nr = ps_restart_pos(a, ri);
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
                        nr = ps_restart_pos(a, ++ri);
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
                                nr = ps_restart_pos(a, ++ri);
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

struct ps_kmer_kargs : ps_chunk_kargs {
    const uint32_t *pair;   /* global tables (gpu_scan.h) */
    const uint32_t *bits;
    const uint32_t *rank;
    const uint32_t *leaf_of;
    uint32_t pair_words;    /* words of the pair table (0 when M = 1) */
    uint32_t bit_words;     /* words of the bitmap and of the rank table */
};

/* Copies n words (a multiple of 4) into shared memory with 16-byte loads. */
template <int NT>
__device__ __forceinline__ void ps_copy_words(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    for (uint32_t i = threadIdx.x; i < n / 4u; i += NT) ((uint4 *)dst)[i] = __ldg((const uint4 *)src + i);
}

/* Bit j set: the k-mer ending at symbol j of word x (prev is the word before)
 * is present. One table lookup per M positions: the (K+M-1)-mer ending at
 * symbol j indexes M bits, one per k-mer it contains, oldest first. */
template <int K, int M>
__device__ __forceinline__ uint32_t ps_kmer_word(const uint32_t *table, uint32_t prev, uint32_t x)
{
    constexpr int W = K + M - 1;
    constexpr uint32_t WMASK = (1u << (2 * W)) - 1u;
    constexpr int LOG2_PER_WORD = M == 1 ? 5 : 4;
    const uint64_t v = ((uint64_t)x << 32) | prev;
    uint32_t hm = 0;
#pragma unroll
    for (int j = M - 1; j < 16; j += M) {
        /* Symbol i of x sits at bit 32 + 2i of v; the W-mer starts at i = j - W + 1 >= -8. */
        const uint32_t y = (uint32_t)(v >> (32 + 2 * (j - W + 1))) & WMASK;
        /* The funnel shift takes the bit offset (y * M) modulo 32 for free. */
        const uint32_t e = __funnelshift_r(table[y >> LOG2_PER_WORD], 0u, y * (uint32_t)M);
        hm |= (e & ((1u << M) - 1u)) << (j - M + 1);
    }
    return hm;
}

/* Mask of the positions of [gb, gb + 32) that may count: >= cstart (context
 * and the first k-1 symbols of the chunk), < n, and no restart r with
 * r <= p <= r + K - 2. ri is the first restart that can still void a position
 * >= gb (r + K - 2 >= gb), nr its position; both advance past this group. */
template <int K>
__device__ __forceinline__ uint32_t ps_kmer_valid(const ps_kmer_kargs &a, uint32_t gb, uint32_t cstart,
                                                  uint32_t &ri, uint32_t &nr)
{
    uint32_t v = ~0u;
    if (gb < cstart) v = cstart - gb >= 32u ? 0u : v << (cstart - gb);
    if (gb + 32u > a.n) v &= a.n <= gb ? 0u : ~0u >> (32u - (a.n - gb));
    if (K >= 2) {
        for (uint32_t i = ri; i < a.n_restart; ++i) {
            const uint32_t r = __ldg(a.restart + i);
            if (r > gb + 31u) break;
            const uint32_t lo = r > gb ? r - gb : 0u;
            const uint32_t hi = min(r + (uint32_t)(K - 2) - gb, 31u);
            v &= ~(((2u << (hi - lo)) - 1u) << lo);
        }
        while (ri < a.n_restart && __ldg(a.restart + ri) + (uint32_t)(K - 2) < gb + 32u) ++ri;
        nr = ps_restart_pos(a, ri);
    }
    return v;
}

/* Tests and counts the 32 positions of words w0, w1 (prev before them),
 * starting at position gb. */
template <int K, int M>
__device__ __forceinline__ void ps_kmer_group(const ps_kmer_kargs &a, const uint32_t *table, const uint32_t *sbits,
                                              const uint32_t *srank, uint32_t *scnt, uint32_t prev, uint32_t w0,
                                              uint32_t w1, uint32_t gb, uint32_t cstart, uint32_t &ri, uint32_t &nr)
{
    constexpr uint32_t KMASK = (1u << (2 * K)) - 1u;
    uint32_t hm = ps_kmer_word<K, M>(table, prev, w0) | ps_kmer_word<K, M>(table, w0, w1) << 16;
    if (gb < cstart || gb + 32u > a.n || nr <= gb + 31u) hm &= ps_kmer_valid<K>(a, gb, cstart, ri, nr);
    while (hm) {
        const uint32_t q = (uint32_t)__ffs(hm) - 1u;
        hm &= hm - 1u;
        const uint32_t lo = q < 16u ? prev : w0, hi = q < 16u ? w0 : w1;
        const uint32_t code = (uint32_t)((((uint64_t)hi << 32) | lo) >> (34u + 2u * (q & 15u) - 2u * K)) & KMASK;
        const uint32_t wi = code >> 5;
        const uint32_t rank = srank[wi] + __popc(sbits[wi] & ((1u << (code & 31u)) - 1u));
        if (rank < a.cnt_sh)
            atomicAdd(&scnt[rank], 1u);
        else
            atomicAdd(&a.counts[__ldg(a.leaf_of + rank)], 1ull);
    }
}

/* Shared layout: [pair table (M = 2)] [bitmap] [ranks] [counters], the
 * counters last so that a plan can drop them (all-global counting). */
template <int K, int M, int NT>
__global__ void __launch_bounds__(NT) ps_kmer_kernel(ps_kmer_kargs a)
{
    constexpr uint32_t TW = PS_TILE_WORDS;
    extern __shared__ __align__(16) unsigned char ps_smem[];
    uint32_t *spair = (uint32_t *)ps_smem;
    uint32_t *sbits = spair + (M == 2 ? a.pair_words : 0u);
    uint32_t *srank = sbits + a.bit_words;
    uint32_t *scnt = srank + a.bit_words;
    const uint32_t tid = threadIdx.x;

    if (M == 2) ps_copy_words<NT>(spair, a.pair, a.pair_words);
    ps_copy_words<NT>(sbits, a.bits, a.bit_words);
    ps_copy_words<NT>(srank, a.rank, a.bit_words);
    for (uint32_t i = tid; i < a.cnt_sh; i += NT) scnt[i] = 0;
    __syncthreads();
    const uint32_t *table = M == 2 ? spair : sbits;
    const uint32_t cstart = max(a.n_ctx, (uint32_t)K - 1u);

    for (uint32_t bt = blockIdx.x; bt < a.n_btiles; bt += gridDim.x) {
        const uint32_t t0w = bt * (NT * TW) + tid * TW;
        if (t0w >= a.nw) continue;
        uint32_t ri = 0, nr = 0xFFFFFFFFu;
        if (K >= 2) {
            /* First restart that can void a position of this tile. */
            const uint32_t p0 = t0w * 16u;
            ri = ps_first_restart(a, p0 > (uint32_t)(K - 2) ? p0 - (uint32_t)(K - 2) : 0u);
            nr = ps_restart_pos(a, ri);
        }
        /* The word before the tile supplies the k-1 <= 15 lead-in symbols. */
        uint32_t prev = t0w ? __ldg(a.text + t0w - 1u) : 0u;
        uint4 nxt = ps_load4(a.text, t0w, a.nw);
        for (uint32_t i = 0; i < TW; i += 4) {
            const uint32_t w = t0w + i;
            if (w >= a.nw) break;
            const uint4 cur = nxt;
            /* Next four words in flight while these are tested. */
            if (i + 4u < TW && w + 4u < a.nw) nxt = ps_load4(a.text, w + 4u, a.nw);
            ps_kmer_group<K, M>(a, table, sbits, srank, scnt, prev, cur.x, cur.y, w * 16u, cstart, ri, nr);
            ps_kmer_group<K, M>(a, table, sbits, srank, scnt, cur.y, cur.z, cur.w, w * 16u + 32u, cstart, ri, nr);
            prev = cur.w;
        }
    }

    __syncthreads();
    for (uint32_t i = tid; i < a.cnt_sh; i += NT) {
        uint32_t v = scnt[i];
        if (v) atomicAdd(&a.counts[__ldg(a.leaf_of + i)], (unsigned long long)v);
    }
}

typedef void (*ps_kmer_fn)(ps_kmer_kargs);

template <int K>
ps_kmer_fn ps_kmer_pick_k(int m)
{
    if (m == 2 && K <= 8) return ps_kmer_kernel<K, K <= 8 ? 2 : 1, PS_KMER_THREADS>;
    return ps_kmer_kernel<K, 1, PS_KMER_THREADS>;
}

ps_kmer_fn ps_kmer_pick(int k, int m)
{
    static_assert(PS_KMER_MAX_K == 9, "instantiate the k-mer kernel for every k up to PS_KMER_MAX_K");
    switch (k) {
    case 1: return ps_kmer_pick_k<1>(m);
    case 2: return ps_kmer_pick_k<2>(m);
    case 3: return ps_kmer_pick_k<3>(m);
    case 4: return ps_kmer_pick_k<4>(m);
    case 5: return ps_kmer_pick_k<5>(m);
    case 6: return ps_kmer_pick_k<6>(m);
    case 7: return ps_kmer_pick_k<7>(m);
    case 8: return ps_kmer_pick_k<8>(m);
    default: return ps_kmer_pick_k<9>(m);
    }
}

/* The k-mer set kernel: k <= 32, millions of probes. Each thread owns a
 * tile of up to PS_TILE_WORDS words (ps_gpu_chunk_shape) and rolls the
 * 2k-bit k-mer (first base high, as kmerset.h keys it) and its reverse
 * complement from ceil((k-1)/16) words before the tile, resetting at each
 * restart, exactly as the CPU k-mer engine walks a segment; the smaller of
 * the two (the canonical k-mer) is the key. Eight windows are keyed, each
 * loading its filter word as it is keyed (shared memory, or L2 through the
 * read-only path), before any word is tested, so that the loads overlap;
 * the few keys that pass probe the table in global memory and count with a
 * 64-bit global atomic. 64 registers at most (four blocks an SM) hold the
 * eight keys and words (with the filter in L2, sm_90 spills 16 bytes: the
 * reverse complement's; keyed all first and then loaded, 36). */
struct ps_kset_kargs : ps_chunk_kargs { /* cnt_sh 0: every count is a global atomic */
    const ulonglong2 *slot;  /* the set's slots: x the canonical key, y the leaves (low half: the key's) */
    const unsigned long long *filter;
    int table_bits, filter_bits;
    uint32_t k;
    unsigned long long mask; /* the low 2k bits */
    uint32_t tw;             /* words a thread owns (ps_gpu_chunk_shape) */
};

/* Counts the window whose canonical k-mer is key (rc: the window is its
 * reverse complement), where a string is that window. */
__device__ __forceinline__ void ps_kset_lookup(const ps_kset_kargs &a, unsigned long long key, uint32_t rc)
{
    const unsigned long long m = (1ull << a.table_bits) - 1ull;
    for (unsigned long long i = ps_kmer_home(key, a.table_bits);; i = (i + 1ull) & m) {
        const ulonglong2 s = __ldg(a.slot + i);
        if (s.x == key) {
            const uint32_t leaf = (uint32_t)(s.y >> (32u * rc));
            if (leaf != PS_KMERSET_EMPTY) atomicAdd(a.counts + leaf, 1ull);
            return;
        }
        if (s.x == PS_KMERSET_NOKEY) return;
    }
}

template <bool FSH, int NT>
__global__ void __launch_bounds__(NT, 4) ps_kset_kernel(ps_kset_kargs a)
{
    extern __shared__ __align__(16) unsigned char ps_smem[];
    const unsigned long long *filter = a.filter;
    if (FSH) {
        unsigned long long *sf = (unsigned long long *)ps_smem;
        ps_copy_words<NT>((uint32_t *)sf, (const uint32_t *)a.filter, 2u << a.filter_bits);
        __syncthreads();
        filter = sf;
    }
    const int fshift = 64 - a.filter_bits;
    const uint32_t lead = (a.k + 14u) / 16u; /* words holding the k - 1 symbols before a tile */
    for (uint32_t bt = blockIdx.x; bt < a.n_btiles; bt += gridDim.x) {
        const uint32_t t0w = (bt * NT + threadIdx.x) * a.tw;
        if (t0w >= a.nw) continue;
        const uint32_t w0 = t0w > lead ? t0w - lead : 0u, wend = min(t0w + a.tw, a.nw);
        const uint32_t from = max(t0w * 16u, a.n_ctx); /* the first position this thread counts */
        uint32_t ri = ps_first_restart(a, w0 * 16u), nr = ps_restart_pos(a, ri);
        unsigned long long key = 0, rkey = 0;
        uint32_t filled = 0;
        for (uint32_t w = w0; w < wend; ++w) {
            const uint32_t xw = __ldg(a.text + w);
            /* Half a word at a time: 8 keys and 8 filter words in registers. */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const uint32_t x = xw >> (16 * h), pb = w * 16u + 8u * (uint32_t)h;
                unsigned long long keys[8], f[8];
                uint32_t valid = 0; /* bit j: window j counts; bit 8 + j: it is its key's reverse complement */
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const uint32_t p = pb + (uint32_t)j, b = (x >> (2 * j)) & 3u;
                    if (p == nr) {
                        filled = 0;
                        nr = ps_restart_pos(a, ++ri);
                    }
                    key = ((key << 2) | b) & a.mask;
                    rkey = ps_kmer_rc_roll(rkey, b, (int)a.k);
                    filled = min(filled + 1u, 32u);
                    keys[j] = ps_kmer_canon(key, rkey);
                    valid |= (uint32_t)(key != keys[j]) << (8 + j);
                    const bool ok = filled >= a.k && p >= from && p < a.n;
                    valid |= (uint32_t)ok << j;
                    const unsigned long long fi = ps_kmerset_fhash(keys[j]) >> fshift;
                    f[j] = ok ? (FSH ? filter[fi] : __ldg(filter + fi)) : 0ull;
                }
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const unsigned long long m = ps_kmerset_fmask(ps_kmerset_fhash(keys[j]));
                    if ((valid >> j) & 1u && (f[j] & m) == m) ps_kset_lookup(a, keys[j], (valid >> (8 + j)) & 1u);
                }
            }
        }
    }
}

typedef void (*ps_ksfn)(ps_kset_kargs);

typedef void (*ps_kfn)(ps_kargs);

/* A kernel with its DFA in shared memory (sh) or read through the read-only path. */
template <int BITS, bool STAGED, bool WORDWISE, bool LEAFSH, typename ST, int NT>
ps_kfn ps_dm(bool sh)
{
    return sh ? ps_scan_kernel<BITS, DM_SHARED, STAGED, WORDWISE, LEAFSH, ST, NT>
              : ps_scan_kernel<BITS, DM_LDG, STAGED, WORDWISE, LEAFSH, ST, NT>;
}

/* The kernel of a DFA-walk variant (the plan's walk_variant); its block size
 * is PS_BEST_THREADS for best, PS_STEP_THREADS otherwise, as the plan says. */
template <int BITS>
ps_kfn ps_pick(int variant, bool sh, bool dfa16)
{
    constexpr int S = PS_STEP_THREADS, B = PS_BEST_THREADS;
    switch (variant) {
    case PS_K_BASELINE: return ps_scan_kernel<BITS, DM_GLOBAL, false, false, false, uint32_t, S>;
    case PS_K_SHARED: return ps_dm<BITS, false, false, false, uint32_t, S>(sh);
    case PS_K_COALESCED: return ps_dm<BITS, true, false, false, uint32_t, S>(sh);
    case PS_K_COMPACT: return ps_dm<BITS, true, true, false, uint32_t, S>(sh);
    case PS_K_LEAF: return ps_dm<BITS, true, true, true, uint32_t, S>(sh);
    default:
        return dfa16 ? ps_dm<BITS, true, true, true, uint16_t, B>(sh) : ps_dm<BITS, true, true, true, uint32_t, B>(sh);
    }
}

/* The kernel a plan names. */
const void *ps_plan_kernel(const ps_gpu_plan_t *p)
{
    if (p->kset)
        return p->filter_shared ? (const void *)ps_kset_kernel<true, PS_KSET_THREADS>
                                : (const void *)ps_kset_kernel<false, PS_KSET_THREADS>;
    if (p->kmer_m) return (const void *)ps_kmer_pick(p->k, p->kmer_m);
    return (const void *)(p->bits == 2 ? ps_pick<2>(p->walk_variant, p->dfa_shared, p->dfa16)
                                       : ps_pick<5>(p->walk_variant, p->dfa_shared, p->dfa16));
}

} // namespace

/* No device tables: every pointer NULL, nothing freed. */
static void ps_gplan_clear_tables(ps_gplan_t *pl)
{
    pl->d_delta = NULL;
    pl->d_delta16 = NULL;
    pl->d_counts = NULL;
    pl->d_kbits = pl->d_krank = pl->d_kpair = pl->d_kleaf = NULL;
    pl->d_kslot = NULL;
    pl->d_kfilter = NULL;
}

cudaError_t ps_gpu_tables_upload(ps_gplan_t *pl, const ps_automaton_t *a)
{
    cudaError_t e;
    const size_t entries = (size_t)a->n_states << a->shift;
    const size_t b32 = ps_gpu_dfa_bytes(a, 4u), b16 = ps_gpu_dfa_bytes(a, 2u);
    uint32_t *d32 = NULL;
    uint16_t *d16 = NULL;
    unsigned long long *dc = NULL;
    uint32_t *dk[4] = {NULL, NULL, NULL, NULL};
    ps_gplan_clear_tables(pl);
    ps_gpu_host_tables_t h;
    if (ps_gpu_host_tables_build(&h, a, NULL) != PS_OK) return cudaErrorMemoryAllocation;
    /* Padded to 16 bytes (zeros) so the shared copy can move uint4s. */
    if ((e = cudaMalloc(&d32, b32)) != cudaSuccess) goto fail;
    if ((e = cudaMemset(d32, 0, b32)) != cudaSuccess) goto fail;
    if ((e = cudaMemcpy(d32, a->delta, entries * 4u, cudaMemcpyHostToDevice)) != cudaSuccess) goto fail;
    if (h.dfa16) {
        if ((e = cudaMalloc(&d16, b16)) != cudaSuccess) goto fail;
        if ((e = cudaMemcpy(d16, h.dfa16, b16, cudaMemcpyHostToDevice)) != cudaSuccess) goto fail;
    }
    if ((e = cudaMalloc(&dc, (size_t)a->n_leaves * 8u)) != cudaSuccess) goto fail;
    if ((e = cudaMemset(dc, 0, (size_t)a->n_leaves * 8u)) != cudaSuccess) goto fail;
    {
        const uint32_t *src[4] = {h.kbits, h.krank, h.kpair, h.kleaf};
        const size_t words[4] = {h.bit_words, h.bit_words, h.pair_words, h.leaf_words};
        for (int i = 0; i < 4; i++) {
            if (!src[i]) continue;
            if ((e = cudaMalloc(&dk[i], words[i] * 4u)) != cudaSuccess) goto fail;
            if ((e = cudaMemcpy(dk[i], src[i], words[i] * 4u, cudaMemcpyHostToDevice)) != cudaSuccess) goto fail;
        }
    }
    ps_gpu_host_tables_free(&h);
    pl->d_delta = d32;
    pl->d_delta16 = d16;
    pl->d_counts = dc;
    pl->d_kbits = dk[0];
    pl->d_krank = dk[1];
    pl->d_kpair = dk[2];
    pl->d_kleaf = dk[3];
    return cudaSuccess;
fail:
    ps_gpu_host_tables_free(&h);
    cudaFree(d32);
    cudaFree(d16);
    cudaFree(dc);
    for (int i = 0; i < 4; i++) cudaFree(dk[i]);
    return e;
}

void ps_gpu_tables_free(ps_gplan_t *pl)
{
    cudaFree((void *)pl->d_delta);
    cudaFree((void *)pl->d_delta16);
    cudaFree(pl->d_counts);
    cudaFree((void *)pl->d_kbits);
    cudaFree((void *)pl->d_krank);
    cudaFree((void *)pl->d_kpair);
    cudaFree((void *)pl->d_kleaf);
    cudaFree((void *)pl->d_kslot);
    cudaFree((void *)pl->d_kfilter);
    ps_gplan_clear_tables(pl);
}

/* What the plan reads of the device. */
static cudaError_t ps_gpu_limits(ps_gpu_limits_t *lim, int device)
{
    cudaError_t e;
    int optin = 0, smem_sm = 0;
    if ((e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&lim->n_sm, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&lim->max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device)) !=
            cudaSuccess ||
        (e = cudaDeviceGetAttribute(&lim->max_blocks_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device)) !=
            cudaSuccess)
        return e;
    lim->smem_optin = (size_t)optin;
    lim->smem_sm = (size_t)smem_sm;
    return cudaSuccess;
}

/* The kernel the plan names, its shared memory and its persistent grid. */
static cudaError_t ps_gpu_plan_finish(ps_gplan_t *pl, const ps_gpu_limits_t *lim)
{
    cudaError_t e;
    pl->kernel = ps_plan_kernel(pl);
    /* The grid: as many blocks of the chosen kernel as fit on every SM (persistent). */
    if ((e = cudaFuncSetAttribute(pl->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)pl->smem)) !=
        cudaSuccess)
        return e;
    int per_sm = 0;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pl->kernel, pl->threads, pl->smem)) !=
        cudaSuccess)
        return e;
    if (ps_gpu_plan_grid(pl, per_sm, lim, NULL) != PS_OK) return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

cudaError_t ps_gpu_plan(ps_gplan_t *pl, int variant, const ps_automaton_t *a, int device)
{
    ps_gpu_limits_t lim;
    cudaError_t e = ps_gpu_limits(&lim, device);
    if (e != cudaSuccess) return e;
    const unsigned tables = (pl->d_delta16 ? PS_GT_DFA16 : 0u) | (pl->d_kbits ? PS_GT_KMER : 0u) |
                            (pl->d_kpair ? PS_GT_KPAIR : 0u);
    /* The one failure left to the device is too much shared memory: what
     * cudaFuncSetAttribute would have refused. */
    if (ps_gpu_plan_choose(pl, variant, a, tables, &lim, NULL) != PS_OK) return cudaErrorInvalidValue;
    return ps_gpu_plan_finish(pl, &lim);
}

cudaError_t ps_gpu_kset_upload(ps_gplan_t *pl, const ps_kmerset_t *ks)
{
    cudaError_t e;
    const size_t slot_bytes = (size_t)ks->n_slots * sizeof(ps_kmer_slot_t), filter_bytes = (size_t)8 << ks->filter_bits;
    const size_t count_bytes = (size_t)(ks->leaves.n_leaves ? ks->leaves.n_leaves : 1) * 8u;
    void *ds = NULL, *df = NULL, *dc = NULL;
    ps_gplan_clear_tables(pl);
    if ((e = cudaMalloc(&ds, slot_bytes)) != cudaSuccess || (e = cudaMalloc(&df, filter_bytes)) != cudaSuccess ||
        (e = cudaMalloc(&dc, count_bytes)) != cudaSuccess ||
        (e = cudaMemcpy(ds, ks->slot, slot_bytes, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(df, ks->filter, filter_bytes, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemset(dc, 0, count_bytes)) != cudaSuccess) {
        cudaFree(ds);
        cudaFree(df);
        cudaFree(dc);
        return e;
    }
    pl->d_kslot = (const ps_kmer_slot_t *)ds;
    pl->d_kfilter = (const unsigned long long *)df;
    pl->d_counts = (unsigned long long *)dc;
    return cudaSuccess;
}

cudaError_t ps_gpu_plan_kmerset(ps_gplan_t *pl, const ps_kmerset_t *ks, int device)
{
    ps_gpu_limits_t lim;
    cudaError_t e = ps_gpu_limits(&lim, device);
    if (e != cudaSuccess) return e;
    if (ps_gpu_plan_kset(pl, ks->k, ks->bits, ks->filter_bits, ks->leaves.n_leaves, &lim, NULL) != PS_OK)
        return cudaErrorInvalidValue;
    return ps_gpu_plan_finish(pl, &lim);
}

void ps_gpu_plan_describe(const ps_gplan_t *pl, char *buf, size_t len) { ps_gpu_plan_format(pl, buf, len); }

cudaError_t ps_gpu_image_check(int device)
{
    int prev = 0;
    cudaError_t e, r;
    if ((e = cudaGetDevice(&prev)) != cudaSuccess) return e;
    if ((e = cudaSetDevice(device)) != cudaSuccess) return e;
    /* Every kernel is built for the same architectures, so one stands for all. */
    cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, (const void *)ps_kmer_pick(1, 1));
    /* Not left behind for the next launch's cudaGetLastError. */
    if (e != cudaSuccess) (void)cudaGetLastError();
    r = prev == device ? cudaSuccess : cudaSetDevice(prev);
    return e != cudaSuccess ? e : r;
}

/* The chunk and counter fields every kernel family shares. */
static void ps_fill_chunk_args(ps_chunk_kargs &a, const ps_gplan_t *pl, const ps_gpu_chunk_shape_t &cs, const uint32_t *d_text,
                               uint32_t n_ctx, const uint32_t *d_restart, uint32_t n_restart)
{
    a.cnt_sh = pl->cnt_shared;
    a.counts = pl->d_counts;
    a.text = d_text;
    a.n = cs.n;
    a.nw = cs.nw;
    a.n_ctx = n_ctx;
    a.restart = d_restart;
    a.n_restart = n_restart;
    a.n_btiles = cs.n_btiles;
}

cudaError_t ps_gpu_launch(const ps_gplan_t *pl, const uint32_t *d_text, uint64_t n, uint32_t n_ctx,
                          const uint32_t *d_restart, uint32_t n_restart, cudaStream_t st)
{
    if (n == 0) return cudaSuccess;
    /* Everything but the chunk comes from the plan; a block per tile of the
     * chunk, at most the plan's persistent grid. */
    ps_gpu_chunk_shape_t cs;
    ps_gpu_chunk_shape(pl, n, &cs);
    if (pl->kset) {
        ps_kset_kargs a;
        memset(&a, 0, sizeof a);
        a.slot = (const ulonglong2 *)pl->d_kslot;
        a.filter = pl->d_kfilter;
        a.table_bits = pl->table_bits;
        a.filter_bits = pl->filter_bits;
        a.k = (uint32_t)pl->k;
        a.mask = pl->k == 32 ? ~0ull : (1ull << (2 * pl->k)) - 1ull;
        ps_fill_chunk_args(a, pl, cs, d_text, n_ctx, d_restart, n_restart);
        a.tw = cs.tw;
        reinterpret_cast<ps_ksfn>(pl->kernel)<<<cs.grid, pl->threads, pl->smem, st>>>(a);
        return cudaGetLastError();
    }
    if (pl->kmer_m) {
        ps_kmer_kargs a;
        memset(&a, 0, sizeof a);
        a.pair = pl->d_kpair;
        a.bits = pl->d_kbits;
        a.rank = pl->d_krank;
        a.leaf_of = pl->d_kleaf;
        a.pair_words = pl->pair_words;
        a.bit_words = pl->bit_words;
        ps_fill_chunk_args(a, pl, cs, d_text, n_ctx, d_restart, n_restart);
        reinterpret_cast<ps_kmer_fn>(pl->kernel)<<<cs.grid, pl->threads, pl->smem, st>>>(a);
        return cudaGetLastError();
    }
    ps_kargs a;
    memset(&a, 0, sizeof a);
    a.dfa = pl->dfa16 ? (const void *)pl->d_delta16 : (const void *)pl->d_delta;
    a.dfa_bytes = pl->dfa_bytes;
    a.cnt_bytes = pl->cnt_bytes;
    a.leaf_base = pl->leaf_base;
    ps_fill_chunk_args(a, pl, cs, d_text, n_ctx, d_restart, n_restart);
    a.hw = pl->hw;
    a.halo = pl->halo_words;
    reinterpret_cast<ps_kfn>(pl->kernel)<<<cs.grid, pl->threads, pl->smem, st>>>(a);
    return cudaGetLastError();
}
