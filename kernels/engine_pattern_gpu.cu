/* engine_pattern_gpu.cu - the pattern set matched bit-parallel on the GPU
 * (engine_pattern_gpu.h): the device layout, the kernel and the engine.
 *
 * Layout: the strings are packed again, best fit by decreasing length, into
 * 64-bit words that no string crosses, so that a word's step needs no
 * carry from its neighbour and each word is independent work. Per word:
 * its B mask for every symbol (rows padded to 2^bits, so any packed code
 * reads a row), its masks (first and last bits; for the general layout
 * also the anchors' and the optional blocks' masks, patset.h), and per
 * last bit the string's distance-0 leaf.
 *
 * Kernel: a block holds one group of wpw units (a power of two up to 32)
 * with their B rows in shared memory; each thread takes one unit and one
 * slice of the text, lanes of a warp being wpw units times 32 / wpw
 * consecutive slices. A unit is one word, or for windows two (where the
 * set has two): the symbol's decoding and row load then serve both, and
 * their top levels share one OR. The step is the CPU engine's
 * (engine_pattern.c), less the OR of first bits into the top level.
 *
 * Windows are read forward: a thread starts afresh Lmax - 1 symbols before
 * its slice (or at the first counted position's reach, or a restart,
 * whichever is later), resets at every restart, and counts the sites that
 * end inside its slice at p >= n_ctx. Text words are read 16 DNA or 6
 * protein symbols at a time, the next one fetched while the current one is
 * matched; a whole word is matched without looking for hits beyond OR-ing
 * the top level's last bits, and is replayed from its saved state, hit by
 * hit, only when that OR is not zero (hits are rare).
 *
 * The general layout is read backward and a site counts at its start: a
 * thread owns the starts of its slice, starts afresh Lmax - 1 symbols past
 * it (or at its segment's end, whichever is first: only there may a record
 * end act), resets at every restart going down, and counts a start when
 * the CPU engine's chunk would (its segment closed, or its longest match
 * inside the chunk). Segment edges come with the restarts.
 *
 * A hit counts at the fewest mismatches with one 64-bit atomicAdd into its
 * leaf; or, for `locate`, is listed: one atomicAdd on the list's length
 * claims its slot, where its position (windows: its end; the general
 * layout: its start) and leaf go. A list that overflows is counted all the
 * same, and the chunk runs again with room for all.
 *
 * Guides with bulges (bulges.h) take their own kernel: a lane steps through
 * its positions with the windows that end and start there, forward and
 * reverse-complemented; each window whose PAM holds is compared by the
 * warp with every guide, as engine_bulges.c compares it, its sites listed
 * at their start.
 *
 * Engine: as the automaton's GPU engine (engine_gpu.cu): two or three
 * streams with a chunk buffer each, a host worker takes a free stream,
 * queues the copies and the kernel and returns once the copies are done;
 * counts stay on the device until collect(). */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_gpu.h"
#include "engine_pattern_gpu.h"
#include "guideset.h"
#include "pack.h"

namespace {

constexpr int kBlock = 256;
/* The longest slice, in packed text words: 4096 DNA or 1536 protein symbols,
 * so that the warm-up of at most 63 symbols costs a few percent at most. */
constexpr uint32_t kSliceWordsMax = 256;
constexpr uint32_t kGroupsPerLaunch = 65535; /* gridDim.y */
constexpr int kLevelsMax = PS_MAX_MM + 1;

/* The per-word masks, rows of n_gw words: windows have the first two. */
enum {
    kFirst,
    kLast,
    kFirstEnd,
    kZero,
    kZeroEnd,
    kLastStart,
    kSkipStart,
    kOptI,
    kOptF,
    kOptA,
    kMasks,
    kMasksWindows = kLast + 1
};

/* An index entry read as one 16-byte load: code; leaf | limit << 32. */
static_assert(sizeof(ps_guide_entry_t) == 16 && offsetof(ps_guide_entry_t, leaf) == 8 &&
                  offsetof(ps_guide_entry_t, lim) == 12,
              "ps_guide_entry_t is read as a ulonglong2");

/* A guide set on the device (guideset.h), as the engine holds it and the
 * guide kernels read it. */
struct gset {
    /* guides_kernel (a PAM): each string's code and care, leaf and limit,
     * and the two strands' PAM tables, pam_words each. */
    ulonglong2 *str;
    uint32_t *leaf;
    uint8_t *lim;
    uint64_t *pam;
    uint64_t full, pm;
    uint32_t m, n_plus, n, sh0, sh1, pam_words;
    /* pieces_kernel: the exact-piece index of each strand's strings, its
     * start and ent in device memory (joint: ix[0] holds both strands'; a
     * strand without strings has n 0 and none compared), the PAM tables
     * where there is a PAM (pam non-NULL). */
    ps_guide_pieces_t ix[2];
    int joint;
};

/* Blocks of the bulge kernel an SM holds at least: its register budget (80
 * registers, a few spilled, against 104 for one block: 1,000 guides with
 * bulges of 1 over 1.02 Gbp counted in 2.6 s instead of 3.0 s on an H100). */
#ifndef PS_BULGE_MIN_BLOCKS
#define PS_BULGE_MIN_BLOCKS 3
#endif

/* The bulge classes the kernel takes: bulges of up to 4 bases each kind
 * (larger sets stay on CPU threads). */
constexpr uint32_t kBulgeClasses = 9;

/* A bulge set on the device (bulges.h), as bulges_kernel reads it: per
 * guide its spacer's code and care and its limit; per guide and class its
 * first variant, first bulge position and positions; the PAM table. */
struct bset {
    uint4 *gp;           /* per guide: its spacer's bit planes (high and low bit of each base, a bit a
                          * position, the first highest), its compared positions, its limit | plain << 8
                          * (plain: its compared positions span the spacer: its classes' bounds are the set's) */
    uint8_t *jlo, *jn;
    uint32_t *var_at;
    uint64_t *pam;
    uint32_t G, C, n, a, W, dna, strands, levels;
    int pam5, all;
    /* per class, for plain guides: the bound's masks and the penalty where
     * the bound has one side (engine_bulges.c) */
    uint32_t upre[kBulgeClasses], usuf[kBulgeClasses];
    uint8_t upen[kBulgeClasses];
};

struct kparams {
    const uint32_t *text;
    const uint32_t *restart;
    const uint8_t *edge; /* per restart, or NULL: none is a record's edge */
    const uint64_t *B;   /* rows x n_gw */
    const uint64_t *mask; /* kMasks or kMasksWindows rows x n_gw */
    const uint32_t *leaf; /* 64 x n_gw */
    const uint64_t *sub;  /* n_gw: where a mismatch may fall (kWindowsSub; patset.h: sub) */
    gset gs;              /* a guide set (guides_kernel, pieces_kernel) */
    bset bs;              /* a bulge set (bulges_kernel) */
    uint32_t glane;       /* the guide kernels: positions a lane ends windows at */
    unsigned long long *counts;
    uint2 *sites;         /* listed instead of counted: (position, leaf), site_cap at most */
    unsigned long long *n_sites; /* 64 bits: a dense chunk's count must not wrap */
    uint32_t site_cap;
    uint32_t n, n_ctx, n_restart;
    uint32_t n_gw, wpw_shift, group0;
    uint32_t n_unit;      /* the threads' shares of the words: n_gw, or n_gw / 2 where windows take two */
    uint32_t slice_words, warm;
    uint32_t reach;       /* the general layout: the chunk's ownership reach (leaves.k - 1) */
    uint8_t head_edge, tail_edge;
};

/* One step of every level; D_{d-1} is read before it is overwritten.
 * Above level 0, y_prev holds the first bits already (first & b is in
 * it), so those levels take (D << 1 & b) | y_prev, and the top level's
 * y, needed by no level above, is never formed. */
template <int LV, bool SUB>
__device__ __forceinline__ void step(uint64_t (&D)[LV], uint64_t b, uint64_t first, uint64_t sub)
{
    uint64_t y_prev = D[0] << 1 | first;
    D[0] = y_prev & b;
#pragma unroll
    for (int d = 1; d < LV; d++) {
        const uint64_t s = D[d] << 1;
        /* With fixed positions (a PAM) a mismatch falls only where sub
         * allows, and first & b is no longer sure to be in y_prev & sub. */
        if constexpr (SUB) D[d] = ((s | first) & b) | (y_prev & sub);
        else D[d] = (s & b) | y_prev;
        if (d + 1 < LV) y_prev = s | first;
    }
}

/* A row's entry for a unit is NW words side by side, so that one load
 * fetches them all: 1 << entry_shift bytes; a row holds wpw entries. */
template <int NW>
__device__ __forceinline__ uint32_t entry_shift()
{
    static_assert(NW == 1 || NW == 2, "units of one or two words");
    return NW == 2 ? 4u : 3u;
}

/* The unit's entry at byte offset off of the block's rows. */
template <int NW>
__device__ __forceinline__ void unit_rows(const uint64_t *sB, uint32_t off, uint64_t (&b)[NW])
{
    const char *at = reinterpret_cast<const char *>(sB) + off;
    if constexpr (NW == 1) {
        b[0] = *reinterpret_cast<const uint64_t *>(at);
    } else {
        const ulonglong2 v = *reinterpret_cast<const ulonglong2 *>(at);
        b[0] = v.x;
        b[1] = v.y;
    }
}

/* A site of leaf at position p: counted, or listed. */
__device__ __forceinline__ void record(const kparams &k, uint32_t leaf, uint32_t p)
{
    if (k.sites) {
        const unsigned long long i = atomicAdd(k.n_sites, 1ull);
        if (i < k.site_cap) k.sites[i] = make_uint2(p, leaf);
        return;
    }
    atomicAdd(k.counts + leaf, 1ull);
}

/* Records the sites at p whose bits are in h (h not 0), each at the lowest
 * level holding it: a level holds the sites of all those below, so the
 * lowest with the bit is the site's distance. */
template <int LV>
__device__ __forceinline__ void count_bits(const uint64_t (&D)[LV], uint64_t h, const uint32_t *leaf,
                                           const kparams &k, uint32_t p)
{
    do {
        const int b = __ffsll((long long)h) - 1;
        h &= h - 1;
        uint32_t d = LV - 1;
#pragma unroll
        for (int e = LV - 2; e >= 0; e--)
            if (D[e] >> b & 1) d = (uint32_t)e;
        record(k, leaf[b] + d, p);
    } while (h);
}

/* Counts the sites ending at p (the top level holds every one), from the
 * first counted position on. */
template <int LV>
__device__ __forceinline__ void count_hits(const uint64_t (&D)[LV], uint64_t last, uint32_t p, uint32_t from,
                                           const uint32_t *leaf, const kparams &k)
{
    const uint64_t h = D[LV - 1] & last;
    if (h && p >= from) count_bits<LV>(D, h, leaf, k, p);
}

/* Symbols i0 .. i1-1 of packed word w, the first at position p, each
 * checked for hits, for the NW words of a unit. */
template <int LV, int BITS, int NW, bool SUB>
__device__ __forceinline__ void steps_counted(uint64_t (&D)[NW][LV], uint32_t w, uint32_t i0, uint32_t i1,
                                              uint32_t p, const uint64_t *sB, uint32_t at, uint32_t row_bytes_shift,
                                              const uint64_t (&first)[NW], const uint64_t (&last)[NW],
                                              const uint64_t (&sub)[NW], uint32_t from, const uint32_t *leaf,
                                              const kparams &k)
{
    constexpr uint32_t mask = (1u << BITS) - 1u;
    for (uint32_t i = i0; i < i1; i++, p++) {
        uint64_t b[NW];
        unit_rows<NW>(sB, (w >> (BITS * i) & mask) << row_bytes_shift | at, b);
#pragma unroll
        for (int j = 0; j < NW; j++) {
            step<LV, SUB>(D[j], b[j], first[j], sub[j]);
            count_hits<LV>(D[j], last[j], p, from, leaf + 64u * j, k);
        }
    }
}

/* The block's B rows into shared memory: row c of unit u's word j at
 * (c * wpw + u) * NW + j, the block's words being consecutive. */
template <int BITS, int NW>
__device__ __forceinline__ void load_rows(uint64_t *sB, const kparams &k)
{
    constexpr uint32_t ROWS = 1u << BITS;
    const uint32_t shift = k.wpw_shift + (NW == 2 ? 1u : 0u), row = 1u << shift;
    const uint32_t group = k.group0 + blockIdx.y;
    for (uint32_t i = threadIdx.x; i < ROWS * row; i += blockDim.x) {
        const uint32_t w = group * row + (i & (row - 1u));
        sB[i] = w < k.n_gw ? k.B[(size_t)(i >> shift) * k.n_gw + w] : 0;
    }
}

/* This thread's share of a launch: its lane wi among the threads of its
 * word group, its unit of words and its slice [s0, s1) of the chunk (PW
 * symbols a text word). false when it has none. */
template <uint32_t PW>
__device__ __forceinline__ bool thread_share(const kparams &k, uint32_t *wi, uint32_t *unit, uint32_t *s0,
                                             uint32_t *s1)
{
    const uint32_t wpw = 1u << k.wpw_shift;
    *wi = threadIdx.x & (wpw - 1u);
    *unit = (k.group0 + blockIdx.y) * wpw + *wi;
    if (*unit >= k.n_unit) return false;
    const uint64_t slice = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> k.wpw_shift;
    const uint64_t start = slice * k.slice_words * PW;
    if (start >= k.n) return false;
    *s0 = (uint32_t)start;
    *s1 = (uint32_t)min((uint64_t)k.n, start + (uint64_t)k.slice_words * PW);
    return true;
}

/* This thread's unit (NW words) over its slice. */
template <int LV, int BITS, int NW, bool SUB>
__device__ __forceinline__ void match_slice(const uint64_t *sB, const kparams &k)
{
    constexpr uint32_t PW = BITS == 2 ? 16u : 6u;
    constexpr uint32_t mask = (1u << BITS) - 1u;
    uint32_t wi, unit, s0, end;
    if (!thread_share<PW>(k, &wi, &unit, &s0, &end)) return;
    const uint64_t start = s0;
    if (end <= k.n_ctx) return;
    /* Sites end at from or later; the longest begins warm symbols before. */
    const uint32_t from = max((uint32_t)start, k.n_ctx);
    uint32_t p = from > k.warm ? from - k.warm : 0;

    /* The first restart after p: the state is fresh at p already. */
    uint32_t lo = 0, hi = k.n_restart;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (k.restart[mid] <= p) lo = mid + 1;
        else hi = mid;
    }
    uint32_t r = lo;
    uint32_t next = r < k.n_restart ? k.restart[r] : k.n;

    const uint32_t word = unit * NW;
    uint64_t first[NW], last[NW], sub[NW], any_last = 0;
#pragma unroll
    for (int j = 0; j < NW; j++) {
        first[j] = k.mask[(size_t)kFirst * k.n_gw + word + j];
        last[j] = k.mask[(size_t)kLast * k.n_gw + word + j];
        sub[j] = SUB ? k.sub[word + j] : ~0ull;
        any_last |= last[j];
    }
    const uint32_t *leaf = k.leaf + (size_t)word * 64u;
    /* Byte offsets into the rows: the unit's entry at `at` in each row,
     * rows 1 << rbs bytes apart (at < 1 << rbs, so OR adds). */
    const uint32_t rbs = k.wpw_shift + entry_shift<NW>(), at = wi << entry_shift<NW>();
    uint64_t D[NW][LV];
#pragma unroll
    for (int j = 0; j < NW; j++)
#pragma unroll
        for (int d = 0; d < LV; d++) D[j][d] = 0;

    while (p < end) {
        const uint32_t seg_end = min(end, next);
        /* The head, up to a word boundary. */
        const uint32_t head_end = (uint32_t)min((uint64_t)seg_end, ((uint64_t)p + PW - 1u) / PW * PW);
        if (p < head_end) {
            steps_counted<LV, BITS, NW, SUB>(D, __ldg(k.text + p / PW), p % PW, p % PW + (head_end - p), p, sB, at, rbs,
                                        first, last, sub, from, leaf, k);
            p = head_end;
        }
        /* Whole words, the next one read while this one is matched. The
         * unit's top levels are OR-ed together: a bit of one word under
         * another's last bit only costs a replay that finds nothing. */
        uint32_t kw = p / PW;
        const uint32_t kend = seg_end / PW;
        if (kw < kend) {
            uint32_t cur = __ldg(k.text + kw);
            const uint32_t rows_mask = mask << rbs;
            for (; kw < kend; kw++) {
                const uint32_t nxt = __ldg(k.text + kw + (kw + 1u < kend ? 1u : 0u));
                /* The word shifted once so that each symbol's offset is a
                 * shift, a mask and an OR. */
                const uint64_t x = (uint64_t)cur << rbs;
                uint64_t S[NW][LV];
#pragma unroll
                for (int j = 0; j < NW; j++)
#pragma unroll
                    for (int d = 0; d < LV; d++) S[j][d] = D[j][d];
                uint64_t acc = 0;
#pragma unroll
                for (uint32_t i = 0; i < PW; i++) {
                    uint64_t b[NW];
                    unit_rows<NW>(sB, ((uint32_t)(x >> (BITS * i)) & rows_mask) | at, b);
#pragma unroll
                    for (int j = 0; j < NW; j++) {
                        step<LV, SUB>(D[j], b[j], first[j], sub[j]);
                        acc |= D[j][LV - 1];
                    }
                }
                if (acc & any_last) {
#pragma unroll
                    for (int j = 0; j < NW; j++)
#pragma unroll
                        for (int d = 0; d < LV; d++) D[j][d] = S[j][d];
                    steps_counted<LV, BITS, NW, SUB>(D, cur, 0, PW, kw * PW, sB, at, rbs, first, last, sub, from, leaf, k);
                }
                cur = nxt;
            }
            p = kend * PW;
        }
        /* The tail, within one word. */
        if (p < seg_end) {
            steps_counted<LV, BITS, NW, SUB>(D, __ldg(k.text + p / PW), 0, seg_end - p, p, sB, at, rbs, first, last,
                                             sub, from, leaf, k);
            p = seg_end;
        }
        if (p == next) {
#pragma unroll
            for (int j = 0; j < NW; j++)
#pragma unroll
                for (int d = 0; d < LV; d++) D[j][d] = 0;
            r++;
            next = r < k.n_restart ? k.restart[r] : k.n;
        }
    }
}

/* One word's masks of the general layout. */
struct gmasks {
    uint64_t first, last, first_end, zero, zero_end, last_start, skip_start, I, F, A, keep;
};

/* One backward step of every level (engine_pattern.c's step_back): pre is
 * what is done before the symbol (leading optional positions), inj what
 * starts with it; then the skips over optional positions, per level. No
 * borrow crosses a word: blocks lie inside strings. */
template <int LV>
__device__ __forceinline__ void step_back(uint64_t (&D)[LV], uint64_t b, uint64_t pre, uint64_t inj,
                                          const gmasks &m)
{
    uint64_t y_prev = 0;
#pragma unroll
    for (int d = 0; d < LV; d++) {
        const uint64_t y = (((D[d] | pre) << 1) & m.keep) | inj;
        uint64_t v = (y & b) | y_prev;
        const uint64_t df = v | m.F;
        v |= m.A & (~(df - m.I) ^ df);
        D[d] = v;
        y_prev = y;
    }
}

/* A step at a segment's edge: its record's end (the first step read) or
 * its record's first letter (the last), where anchors act; counted when
 * `count`. */
template <int LV>
__device__ __forceinline__ void edge_step(uint64_t (&D)[LV], uint64_t b, bool at_end, bool at_start, bool count,
                                          const gmasks &m, const uint32_t *leaf, const kparams &k, uint32_t p)
{
    step_back<LV>(D, b, m.zero | (at_end ? m.zero_end : 0), m.first | (at_end ? m.first_end : 0), m);
    if (!count) return;
    if (!at_start) {
        const uint64_t h = D[LV - 1] & m.last;
        if (h) count_bits<LV>(D, h, leaf, k, p);
        return;
    }
    /* Start-anchored strings end here too, and [<M] may skip its last
     * position: its next-to-last bit counts for the last one (same word). */
    const uint64_t L = m.last | m.last_start;
    uint64_t M[LV];
#pragma unroll
    for (int d = 0; d < LV; d++) M[d] = (D[d] & L) | (D[d] & m.skip_start) << 1;
    if (M[LV - 1]) count_bits<LV>(M, M[LV - 1], leaf, k, p);
}

/* Edge bits of restart r (0 without an edge list). */
__device__ __forceinline__ uint32_t edge_of(const kparams &k, uint32_t r)
{
    return k.edge ? k.edge[r] : 0u;
}

/* This thread's word over the starts of its slice, read backward. */
template <int LV, int BITS>
__device__ __forceinline__ void match_slice_back(const uint64_t *sB, const kparams &k)
{
    constexpr uint32_t PW = BITS == 2 ? 16u : 6u;
    constexpr uint32_t mask = (1u << BITS) - 1u;
    uint32_t wi, word, s0, s1;
    if (!thread_share<PW>(k, &wi, &word, &s0, &s1)) return;

    /* The segment [a, b) holding s1 - 1: b is restart r, or n when r is
     * n_restart. */
    uint32_t lo = 0, hi = k.n_restart;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (k.restart[mid] <= s1 - 1u) lo = mid + 1;
        else hi = mid;
    }
    uint32_t r = lo;
    uint32_t b = r < k.n_restart ? k.restart[r] : k.n;
    /* The longest match of a start below s1 reads up to s1 + warm - 1. */
    uint32_t p = (uint32_t)min((uint64_t)b, (uint64_t)s1 + k.warm);
    bool real_end = p == b;

    gmasks m;
    const size_t gw = k.n_gw;
    m.first = k.mask[kFirst * gw + word];
    m.last = k.mask[kLast * gw + word];
    m.first_end = k.mask[kFirstEnd * gw + word];
    m.zero = k.mask[kZero * gw + word];
    m.zero_end = k.mask[kZeroEnd * gw + word];
    m.last_start = k.mask[kLastStart * gw + word];
    m.skip_start = k.mask[kSkipStart * gw + word];
    m.I = k.mask[kOptI * gw + word];
    m.F = k.mask[kOptF * gw + word];
    m.A = k.mask[kOptA * gw + word];
    m.keep = ~(m.first | m.first_end);
    const uint32_t *leaf = k.leaf + (size_t)word * 64u;
    const uint64_t *myB = sB + wi;
    const uint32_t row_shift = k.wpw_shift;
#define PS_ROW(c) myB[(uint32_t)(c) << row_shift]
    uint64_t D[LV];
#pragma unroll
    for (int d = 0; d < LV; d++) D[d] = 0;

    for (;;) {
        const uint32_t a = r > 0 ? k.restart[r - 1] : 0;
        const bool ends = real_end && ((r < k.n_restart ? edge_of(k, r) : k.tail_edge) & PS_EDGE_REC_END);
        const bool starts = ((a == 0 ? k.head_edge : edge_of(k, r - 1)) & PS_EDGE_REC_START) != 0;
        /* Starts below cnt_hi count: all of an ended segment's, else those
         * whose longest match lies in the chunk (the next chunk counts the
         * rest from its context). */
        const bool closed = b < k.n || (k.tail_edge & PS_EDGE_CLOSED);
        const uint32_t cnt_hi = closed ? s1 : min(s1, k.n > k.reach ? k.n - k.reach : 0u);
        const uint32_t low = max(a, s0);
        uint32_t q = p; /* the next symbol read is q - 1 */
        if (ends) {
            q--;
            edge_step<LV>(D, PS_ROW(__ldg(k.text + q / PW) >> (BITS * (q % PW)) & mask), true, starts && q == a,
                          q < cnt_hi, m, leaf, k, q);
        }
        const bool first_letter = starts && low == a;
        const uint32_t stop = first_letter ? a + 1 : low;
        /* Away from the edges, text word by text word. */
        while (q > stop) {
            const uint32_t wq = (q - 1u) / PW, base = wq * PW;
            const uint32_t w = __ldg(k.text + wq);
            const uint32_t i0 = stop > base ? stop - base : 0;
            if (i0 == 0 && q - base == PW && base + PW <= cnt_hi) {
                /* A whole word, every start counted. */
#pragma unroll
                for (int i = (int)PW - 1; i >= 0; i--) {
                    step_back<LV>(D, PS_ROW(w >> (BITS * i) & mask), m.zero, m.first, m);
                    const uint64_t h = D[LV - 1] & m.last;
                    if (h) count_bits<LV>(D, h, leaf, k, base + (uint32_t)i);
                }
            } else {
                for (uint32_t i = q - base; i-- > i0;) {
                    step_back<LV>(D, PS_ROW(w >> (BITS * i) & mask), m.zero, m.first, m);
                    const uint64_t h = D[LV - 1] & m.last;
                    if (h && base + i < cnt_hi) count_bits<LV>(D, h, leaf, k, base + i);
                }
            }
            q = base + i0;
        }
        if (q > low) {
            q--;
            edge_step<LV>(D, PS_ROW(__ldg(k.text + q / PW) >> (BITS * (q % PW)) & mask), false, true, q < cnt_hi, m,
                          leaf, k, q);
        }
        if (low == s0) break;
        /* On to the segment before, read from its end. */
        b = a;
        p = a;
        r--;
        real_end = true;
#pragma unroll
        for (int d = 0; d < LV; d++) D[d] = 0;
    }
#undef PS_ROW
}


/* ---- guides, PAM first (guideset.h) -------------------------------------- */

/* The strings [a, b) against window code x ending at p, spread over the
 * warp's lanes: each compares every 32nd string. */
__device__ __forceinline__ void guide_compare(const kparams &k, uint32_t a, uint32_t b, uint64_t x, uint32_t p,
                                              uint32_t lane)
{
    for (uint32_t i = a + lane; i < b; i += 32) {
        const ulonglong2 sc = __ldg(k.gs.str + i);
        const uint64_t y = (x ^ sc.x) & sc.y;
        const uint32_t d = (uint32_t)__popcll((y | y >> 1) & 0x5555555555555555ull);
        if (d <= __ldg(k.gs.lim + i)) record(k, __ldg(k.gs.leaf + i) + d, p);
    }
}

/* A warp's slice of the chunk: each lane the windows ending in its own
 * glane positions, rolled in from m - 1 symbols before (or its segment's
 * start). Lanes step together; a window whose PAM holds is a candidate,
 * and the warp compares each candidate with all strings of its strand. */
__global__ void __launch_bounds__(kBlock) guides_kernel(const kparams k)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint64_t s0 = (warp * 32u + lane) * k.glane;
    const uint32_t m = k.gs.m;
    const bool mine = s0 < k.n;
    const uint32_t end = mine ? (uint32_t)min((uint64_t)k.n, s0 + k.glane) : 0u;
    /* Windows end at from or later: counted ones only (the context's were
     * counted with the chunk before). */
    const uint32_t from = mine ? max((uint32_t)s0, k.n_ctx) : 0u;
    uint32_t p = from >= m - 1 ? from - (m - 1) : 0u;
    if (!mine || from >= end) p = end; /* nothing to do, but keep stepping with the warp */
    uint32_t lo = 0, hi = k.n_restart;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (k.restart[mid] < p) lo = mid + 1;
        else hi = mid;
    }
    uint32_t r = lo, next = r < k.n_restart ? k.restart[r] : k.n;
    uint64_t x = 0;
    uint32_t run = 0, cur = 0;
    bool loaded = false;
    const uint32_t steps = k.glane + m - 1;
    for (uint32_t t = 0; t < steps; t++, p++) {
        bool c0 = false, c1 = false;
        if (p < end) {
            if (p == next) {
                run = 0;
                x = 0;
                r++;
                next = r < k.n_restart ? k.restart[r] : k.n;
            }
            if (!loaded || (p & 15u) == 0) {
                cur = __ldg(k.text + (p >> 4));
                loaded = true;
            }
            x = (x << 2 | (cur >> (2u * (p & 15u)) & 3u)) & k.gs.full;
            run++;
            if (run >= m && p >= from) {
                c0 = k.gs.n_plus > 0 && (__ldg(k.gs.pam + ((x >> k.gs.sh0 & k.gs.pm) >> 6)) >> ((x >> k.gs.sh0 & k.gs.pm) & 63) & 1);
                c1 = k.gs.n > k.gs.n_plus &&
                     (__ldg(k.gs.pam + k.gs.pam_words + ((x >> k.gs.sh1 & k.gs.pm) >> 6)) >> ((x >> k.gs.sh1 & k.gs.pm) & 63) & 1);
            }
        }
        uint32_t m0 = __ballot_sync(0xffffffffu, c0), m1 = __ballot_sync(0xffffffffu, c1);
        while (m0) {
            const uint32_t c = (uint32_t)__ffs(m0) - 1u;
            m0 &= m0 - 1;
            guide_compare(k, 0, k.gs.n_plus, __shfl_sync(0xffffffffu, x, c), __shfl_sync(0xffffffffu, p, c), lane);
        }
        while (m1) {
            const uint32_t c = (uint32_t)__ffs(m1) - 1u;
            m1 &= m1 - 1;
            guide_compare(k, k.gs.n_plus, k.gs.n, __shfl_sync(0xffffffffu, x, c), __shfl_sync(0xffffffffu, p, c), lane);
        }
    }
}

/* The strings in window x's buckets of index ix (engine_guides.c's
 * compare_pieces): each compared at every seed whose bucket holds it,
 * recorded at its first. */
__device__ __forceinline__ void seek_pieces(const kparams &k, const ps_guide_pieces_t &ix, uint64_t x, uint32_t p)
{
    const uint64_t row = (1ull << ix.bits) + 1;
    for (uint32_t s = 0; s < ix.n; s++) {
        const uint32_t *bound = ix.start + s * row + ps_guide_seed_key(&ix, s, x);
        const uint32_t a = __ldg(bound), b = __ldg(bound + 1);
        const ulonglong2 *ent = reinterpret_cast<const ulonglong2 *>(ix.ent + (uint64_t)s * ix.strings);
        for (uint32_t t = a; t < b; t++) {
            const ulonglong2 en = __ldg(ent + t);
            const uint64_t diff = (x ^ en.x) & ix.care;
            const uint32_t d = (uint32_t)__popcll((diff | diff >> 1) & 0x5555555555555555ull);
            if (d <= (uint32_t)(en.y >> 32) && ps_guide_first_seed(&ix, s, diff)) record(k, (uint32_t)en.y + d, p);
        }
    }
}

/* Whether strand st's PAM holds in window x (always, without a PAM). */
__device__ __forceinline__ bool pam_holds(const kparams &k, int st, uint64_t x)
{
    if (!k.gs.pam) return true;
    const uint64_t c = x >> (st ? k.gs.sh1 : k.gs.sh0) & k.gs.pm;
    return __ldg(k.gs.pam + (st ? k.gs.pam_words : 0) + (c >> 6)) >> (c & 63) & 1;
}

/* A guide set through its exact-piece indexes: each thread the windows
 * ending in its own glane positions (rolled in from m - 1 symbols before,
 * or its segment's start); a window whose PAM holds on a strand (any,
 * without a PAM) looks up that strand's index (the joint one once). */
__global__ void __launch_bounds__(kBlock) pieces_kernel(const kparams k)
{
    const uint64_t s0 = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * k.glane;
    if (s0 >= k.n) return;
    const uint32_t m = k.gs.m, end = (uint32_t)min((uint64_t)k.n, s0 + k.glane);
    const uint32_t from = max((uint32_t)s0, k.n_ctx);
    if (from >= end) return;
    uint32_t p = from >= m - 1 ? from - (m - 1) : 0u;
    uint32_t lo = 0, hi = k.n_restart;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (k.restart[mid] < p) lo = mid + 1;
        else hi = mid;
    }
    uint32_t r = lo, next = r < k.n_restart ? k.restart[r] : k.n;
    uint64_t x = 0;
    uint32_t run = 0, cur = __ldg(k.text + (p >> 4));
    for (; p < end; p++) {
        if (p == next) {
            run = 0;
            x = 0;
            r++;
            next = r < k.n_restart ? k.restart[r] : k.n;
        }
        if ((p & 15u) == 0) cur = __ldg(k.text + (p >> 4));
        x = (x << 2 | (cur >> (2u * (p & 15u)) & 3u)) & k.gs.full;
        if (++run < m || p < from) continue;
        if (k.gs.joint) {
            seek_pieces(k, k.gs.ix[0], x, p);
            continue;
        }
        if (k.gs.ix[0].n && pam_holds(k, 0, x)) seek_pieces(k, k.gs.ix[0], x, p);
        if (k.gs.ix[1].n && pam_holds(k, 1, x)) seek_pieces(k, k.gs.ix[1], x, p);
    }
}

/* ---- guides with bulges (bulges.h) ------------------------------------- */

/* Positions p < j of an n-position bit plane (the first highest), and p >= x. */
__device__ __forceinline__ uint32_t bpre(uint32_t n, uint32_t j) { return ((1u << n) - 1) & ~((1u << (n - j)) - 1); }
__device__ __forceinline__ uint32_t bsuf(uint32_t n, uint32_t x) { return x >= n ? 0u : (1u << (n - x)) - 1; }

/* The even bits of x, packed: one bit plane of a 2-bit code. */
__host__ __device__ __forceinline__ uint32_t even_bits(uint64_t x)
{
    x &= 0x5555555555555555ull;
    x = (x | x >> 1) & 0x3333333333333333ull;
    x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0full;
    x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
    x = (x | x >> 8) & 0x0000ffff0000ffffull;
    return (uint32_t)(x | x >> 16);
}

/* Class c >= 1 of guide g at a candidate: every bulge position j, the
 * best (or each within the limit) recorded. Rare: the bound passed. A and
 * B: the mismatched positions before and after the bulge, a bit each. */
__device__ __forceinline__ void bulge_class(const kparams &k, uint32_t g, uint32_t c, uint32_t A, uint32_t B,
                                            uint32_t lim, uint32_t s, uint32_t start)
{
    const bset &b = k.bs;
    const uint32_t n = b.n, C = b.C, del = c <= b.dna ? 0 : c - b.dna;
    const uint32_t jn = __ldg(b.jn + (size_t)g * C + c);
    if (!jn) return;
    const uint32_t jlo = __ldg(b.jlo + (size_t)g * C + c), jhi = jlo + jn - 1;
    const uint32_t v0 = __ldg(b.var_at + (size_t)g * C + c);
    uint32_t best = lim + 1, best_j = 0;
    for (uint32_t j = jlo; j <= jhi; j++) {
        const uint32_t d = (uint32_t)__popc(A & bpre(n, j)) + (uint32_t)__popc(B & bsuf(n, j + del));
        if (d > lim) continue;
        if (b.all) record(k, ((v0 + j - jlo) * b.strands + s) * b.levels + d, start);
        else if (d < best) best = d, best_j = j;
    }
    if (!b.all && best <= lim) record(k, ((v0 + best_j - jlo) * b.strands + s) * b.levels + best, start);
}

/* One candidate (a window whose PAM holds on strand s) against the guides,
 * spread over the warp's lanes: engine_bulges.c's pass 1 and pass 2 in one,
 * a lane a guide at a time, in bit planes: a base's high and low bits apart,
 * so that a view is one shift and a guide's mismatches two xors, an or and
 * an and on 32 bits. valid: a bit per class whose site lies in its segment
 * and ends past the context; its site starts at e - len[c] (end layout) or
 * at q. Plain guides take their class's bound masks, the others their own. */
__device__ void bulge_compare(const kparams &k, uint64_t run, uint32_t s, uint32_t valid, bool at_end, uint32_t e,
                              uint32_t q, uint32_t lane)
{
    const bset &b = k.bs;
    const uint32_t n = b.n, C = b.C, dna = b.dna;
    const uint32_t mask = (1u << n) - 1;
    const uint32_t rlo = even_bits(run), rhi = even_bits(run >> 1);
    const uint32_t sh0 = b.pam5 ? dna : 0;
    const uint32_t v0h = rhi >> sh0 & mask, v0l = rlo >> sh0 & mask;
    uint32_t vh[kBulgeClasses], vl[kBulgeClasses];
#pragma unroll
    for (uint32_t c = 1; c < kBulgeClasses; c++) {
        const bool isdna = c <= dna;
        const uint32_t i = isdna ? c : c - dna;
        if (b.pam5) {
            const uint32_t sh = isdna ? dna - i : dna + i;
            vh[c] = rhi >> sh & mask;
            vl[c] = rlo >> sh & mask;
        } else if (isdna) {
            vh[c] = rhi >> i & mask;
            vl[c] = rlo >> i & mask;
        } else {
            vh[c] = rhi << i & mask;
            vl[c] = rlo << i & mask;
        }
    }
    const uint32_t base = b.n + b.a;
    for (uint32_t g = lane; g < b.G; g += 32) {
        const uint4 gp = __ldg(b.gp + g);
        const uint32_t lim = gp.w & 0xffu;
        const bool plain = gp.w >> 8 & 1u;
        const uint32_t m0 = ((v0h ^ gp.x) | (v0l ^ gp.y)) & gp.z;
        if (valid & 1u) {
            const uint32_t d0 = (uint32_t)__popc(m0);
            if (d0 <= lim)
                record(k, (__ldg(b.var_at + (size_t)g * C) * b.strands + s) * b.levels + d0, at_end ? e - base : q);
        }
#pragma unroll
        for (uint32_t c = 1; c < kBulgeClasses; c++) {
            if (c >= C) break;
            if (!(valid >> c & 1u)) continue;
            const uint32_t ms = ((vh[c] ^ gp.x) | (vl[c] ^ gp.y)) & gp.z;
            const uint32_t A = b.pam5 ? m0 : ms, B = b.pam5 ? ms : m0;
            uint32_t bound;
            if (plain) {
                bound = min((uint32_t)__popc(A & b.upre[c]), (uint32_t)__popc(B & b.usuf[c]) + b.upen[c]);
            } else {
                const uint32_t jn = __ldg(b.jn + (size_t)g * C + c);
                if (!jn) continue;
                const uint32_t del = c <= dna ? 0 : c - dna;
                const uint32_t jlo = __ldg(b.jlo + (size_t)g * C + c), h = (2 * jlo + jn) / 2;
                bound = (uint32_t)__popc(A & bpre(n, h));
                if (h > jlo) bound = min(bound, (uint32_t)__popc(B & bsuf(n, h - 1 + del)));
            }
            if (bound > lim) continue;
            const uint32_t len = c <= dna ? base + c : base - (c - dna);
            bulge_class(k, g, c, A, B, lim, s, at_end ? e - len : q);
        }
    }
}

/* A warp's slice of positions: each lane the positions q of its own glane,
 * with four rolling codes of W symbols: the window ending at q (its PAM at
 * its end) and the one starting at q (its PAM at its start), each forward
 * and reverse-complemented. A window whose PAM holds on a strand is a
 * candidate; the warp compares each with every guide. A site ends at its
 * window's end or starts at its window's start, so each is found once. */
__global__ void __launch_bounds__(kBlock, PS_BULGE_MIN_BLOCKS) bulges_kernel(const kparams k)
{
    const bset &b = k.bs;
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint64_t s0 = (warp * 32u + lane) * k.glane;
    const bool mine = s0 < k.n;
    const uint32_t q0 = mine ? (uint32_t)s0 : k.n, q1 = mine ? (uint32_t)min((uint64_t)k.n, s0 + k.glane) : k.n;
    const uint32_t W = b.W, a = b.a, C = b.C;
    const uint64_t full = W == 32 ? ~0ull : (1ull << (2 * W)) - 1, pm = (1ull << (2 * a)) - 1;
    const uint64_t run_mask = b.n + b.dna == 32 ? ~0ull : (1ull << (2 * (b.n + b.dna))) - 1;
    const uint32_t base = b.n + b.a;
    /* the segment of q: [seg_lo, seg_hi) */
    uint32_t lo = 0, hi = k.n_restart;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (k.restart[mid] <= q0) lo = mid + 1;
        else hi = mid;
    }
    uint32_t r = lo;
    uint32_t seg_lo = r ? k.restart[r - 1] : 0u, seg_hi = r < k.n_restart ? k.restart[r] : k.n;
    uint64_t Fe = 0, Re = 0, Fs = 0, Rs = 0;
    /* symbol at p (0 outside the chunk) */
    auto sym = [&](int64_t p) -> uint64_t {
        if (p < 0 || p >= (int64_t)k.n) return 0;
        return __ldg(k.text + (p >> 4)) >> (2u * ((uint32_t)p & 15u)) & 3u;
    };
    const uint32_t sh = 2 * (W - 1);
    /* Warm-up: the codes as they stand before q0. */
    for (int64_t t = (int64_t)q0 - (int64_t)W; t < (int64_t)q0; t++) {
        const uint64_t xe = sym(t), xs = sym(t + W - 1);
        Fe = (Fe << 2 | xe) & full;
        Re = Re >> 2 | (3 ^ xe) << sh;
        Fs = (Fs << 2 | xs) & full;
        Rs = Rs >> 2 | (3 ^ xs) << sh;
    }
    const uint32_t steps = k.glane;
    for (uint32_t t = 0; t < steps; t++) {
        const uint32_t q = q0 + t;
        bool ce = false, cs = false;
        uint32_t ve = 0, vs = 0;
        uint64_t run_e = 0, run_s = 0;
        if (q < q1) {
            const uint64_t xe = sym((int64_t)q), xs = sym((int64_t)q + W - 1);
            Fe = (Fe << 2 | xe) & full;
            Re = Re >> 2 | (3 ^ xe) << sh;
            Fs = (Fs << 2 | xs) & full;
            Rs = Rs >> 2 | (3 ^ xs) << sh;
            while (q >= seg_hi && r < k.n_restart) {
                r++;
                seg_lo = seg_hi;
                seg_hi = r < k.n_restart ? k.restart[r] : k.n;
            }
            /* PAM at the window's end: 3' plus (Fe), 5' minus (Re). */
            const uint32_t se = b.pam5 ? 1u : 0u, ss = 1u - se;
            if (se == 0 || b.strands == 2) {
                const uint64_t X = b.pam5 ? Re : Fe, pam = b.pam5 ? X >> (2 * (W - a)) : X & pm;
                if (__ldg(b.pam + (pam >> 6)) >> (pam & 63) & 1) {
                    const uint32_t e = q + 1;
                    for (uint32_t c = 0; c < C; c++) {
                        const uint32_t len = c == 0 ? base : c <= b.dna ? base + c : base - (c - b.dna);
                        if (e >= seg_lo + len && e <= seg_hi && e - 1 >= k.n_ctx) ve |= 1u << c;
                    }
                    ce = ve != 0;
                    run_e = b.pam5 ? X & run_mask : X >> (2 * a);
                }
            }
            /* PAM at the window's start: 3' minus (Rs), 5' plus (Fs). */
            if (ss == 0 || b.strands == 2) {
                const uint64_t X = b.pam5 ? Fs : Rs, pam = b.pam5 ? X >> (2 * (W - a)) : X & pm;
                if (__ldg(b.pam + (pam >> 6)) >> (pam & 63) & 1) {
                    for (uint32_t c = 0; c < C; c++) {
                        const uint32_t len = c == 0 ? base : c <= b.dna ? base + c : base - (c - b.dna);
                        if (q >= seg_lo && q + len <= seg_hi && q + len - 1 >= k.n_ctx) vs |= 1u << c;
                    }
                    cs = vs != 0;
                    run_s = b.pam5 ? X & run_mask : X >> (2 * a);
                }
            }
        }
        uint32_t me = __ballot_sync(0xffffffffu, ce), ms = __ballot_sync(0xffffffffu, cs);
        const uint32_t se = b.pam5 ? 1u : 0u;
        while (me) {
            const uint32_t c = (uint32_t)__ffs(me) - 1u;
            me &= me - 1;
            bulge_compare(k, __shfl_sync(0xffffffffu, run_e, c), se, __shfl_sync(0xffffffffu, ve, c), true,
                          __shfl_sync(0xffffffffu, q + 1, c), 0, lane);
        }
        while (ms) {
            const uint32_t c = (uint32_t)__ffs(ms) - 1u;
            ms &= ms - 1;
            bulge_compare(k, __shfl_sync(0xffffffffu, run_s, c), 1u - se, __shfl_sync(0xffffffffu, vs, c), false, 0,
                          __shfl_sync(0xffffffffu, q, c), lane);
        }
    }
}

/* The kernels' kinds: windows with units of one or two words, the general layout. */
enum { kWindows1, kWindows2, kGeneral, kWindowsSub, kKinds };

template <int LV, int BITS, int KIND>
__global__ void __launch_bounds__(kBlock) pattern_kernel(const kparams k)
{
    constexpr int NW = KIND == kWindows2 ? 2 : 1;
    /* Fixed positions are a PAM's: DNA only. */
    if constexpr (KIND == kWindowsSub && BITS != 2) return;
    __shared__ __align__(16) uint64_t sB[(1u << BITS) * 32 * NW];
    load_rows<BITS, NW>(sB, k);
    __syncthreads();
    if constexpr (KIND == kGeneral) match_slice_back<LV, BITS>(sB, k);
    else match_slice<LV, BITS, NW, KIND == kWindowsSub>(sB, k);
}

typedef void (*kernel_fn)(const kparams);

/* Every kind, level count and alphabet, by [kind][bits == 5][levels - 1]. */
static_assert(kLevelsMax == 9, "one kernel per level count: extend the table");
#define PS_PK(bits, kind) \
    {pattern_kernel<1, bits, kind>, pattern_kernel<2, bits, kind>, pattern_kernel<3, bits, kind>, \
     pattern_kernel<4, bits, kind>, pattern_kernel<5, bits, kind>, pattern_kernel<6, bits, kind>, \
     pattern_kernel<7, bits, kind>, pattern_kernel<8, bits, kind>, pattern_kernel<9, bits, kind>}
const kernel_fn kKernels[kKinds][2][kLevelsMax] = {{PS_PK(2, kWindows1), PS_PK(5, kWindows1)},
                                                   {PS_PK(2, kWindows2), PS_PK(5, kWindows2)},
                                                   {PS_PK(2, kGeneral), PS_PK(5, kGeneral)},
                                                   {PS_PK(2, kWindowsSub), PS_PK(5, kWindowsSub)}};
#undef PS_PK

int cuda_fail(ps_err_t *err, cudaError_t e, const char *what)
{
    return ps_fail(err, PS_E_GPU, "GPU error: %s: %s", what, cudaGetErrorString(e));
}

/* One string of the patset's layout: its first bit and its length. */
struct str_at {
    uint32_t pos, len;
};

/* Bits of word w of the general layout's mask v (NULL in windows sets). */
inline uint64_t word_of(const uint64_t *v, uint32_t w) { return v ? v[w] : 0; }

/* The longest string of ps, by its last bits (start-anchored ones too). */
uint32_t longest(const ps_patset_t *ps)
{
    uint32_t L = 0;
    for (uint32_t w = 0; w < ps->n_words; w++)
        for (uint64_t m = ps->last[w] | word_of(ps->last_start, w); m; m &= m - 1) {
            uint32_t len = ps->len_at[w * 64u + (uint32_t)__builtin_ctzll(m)];
            if (len > L) L = len;
        }
    return L;
}

/* Whether the GPU takes ps; else PS_E_USAGE saying why. */
int check_set(const ps_patset_t *ps, ps_err_t *err)
{
    if (!ps->windows_only && (!ps->first_end || !ps->zero || !ps->zero_end || !ps->last_start ||
                              !ps->skip_start || !ps->opt_I || !ps->opt_F || !ps->opt_A))
        return ps_fail(err, PS_E_INTERNAL, "GPU pattern engine: a general pattern set without its masks");
    if (ps->fwd) return ps_fail(err, PS_E_USAGE, "%s", PS_GPU_NO_MINUS_FWD);
    uint32_t L = longest(ps);
    if (L > PS_GPU_PATTERN_MAX_LEN)
        return ps_fail(err, PS_E_USAGE,
                       "the GPU pattern engine takes patterns of at most %d positions; this set has one of %u",
                       PS_GPU_PATTERN_MAX_LEN, L);
    if (ps->max_mm < 0 || ps->max_mm >= kLevelsMax)
        return ps_fail(err, PS_E_USAGE, "the GPU pattern engine takes 0 to %d mismatches, not %d", kLevelsMax - 1,
                       ps->max_mm);
    return PS_OK;
}

/* The host side of the device layout. */
struct layout {
    uint32_t n_gw, rows, lmax, n_masks;
    uint32_t n_words; /* holding strings: n_gw less the empty one that evens a set of two-word units */
    uint32_t nw;      /* words per unit (a thread's share) */
    uint64_t *B, *mask; /* mask: n_masks rows of n_gw words (kFirst, ...) */
    uint64_t *sub;      /* n_gw words: patset.h's sub; NULL without fixed positions */
    uint32_t *leaf;
};

void layout_free(layout *l)
{
    free(l->B);
    free(l->mask);
    free(l->sub);
    free(l->leaf);
}

/* Packs ps's strings into words that none crosses: longest first, each
 * into the fullest word it fits (best fit), found through lists of words
 * by free bits. */
int layout_build(layout *l, const ps_patset_t *ps, int bits, ps_err_t *err)
{
    memset(l, 0, sizeof *l);
    const uint32_t n = ps->n_strings, nw = ps->n_words;
    str_at *s = (str_at *)malloc((n ? n : 1) * sizeof *s);
    uint32_t *order = (uint32_t *)malloc((n ? n : 1) * sizeof *order);
    uint32_t *place = (uint32_t *)malloc((n ? n : 1) * 2 * sizeof *place); /* word, bit */
    uint32_t *nextw = (uint32_t *)malloc((n ? n : 1) * sizeof *nextw), *freeb = (uint32_t *)malloc((n ? n : 1) * sizeof *freeb);
    int rc = PS_OK;
    if (!s || !order || !place || !nextw || !freeb) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory laying out %u patterns for the GPU", n);
        goto done;
    }
    {
        /* The strings, in bit order: a first bit opens one, a last bit
         * closes it (in the general layout, those of anchored ends too). */
        uint32_t got = 0, open = 0;
        int is_open = 0;
        for (uint32_t w = 0; w < nw && rc == PS_OK; w++) {
            const uint64_t fw = ps->first[w] | word_of(ps->first_end, w), lw = ps->last[w] | word_of(ps->last_start, w);
            for (uint64_t m = fw | lw; m; m &= m - 1) {
                const uint32_t b = (uint32_t)__builtin_ctzll(m), bit = w * 64u + b;
                if (fw >> b & 1) open = bit, is_open = 1;
                if (lw >> b & 1) {
                    if (!is_open || got == n || ps->len_at[bit] != bit - open + 1) {
                        rc = ps_fail(err, PS_E_INTERNAL, "GPU pattern layout: malformed pattern set at bit %u", bit);
                        break;
                    }
                    s[got++] = {open, bit - open + 1};
                    is_open = 0;
                }
            }
        }
        if (rc == PS_OK && got != n)
            rc = ps_fail(err, PS_E_INTERNAL, "GPU pattern layout: %u strings found, %u expected", got, n);
        if (rc < 0) goto done;

        /* Longest first (counting sort), then best fit. */
        uint32_t cnt[PS_GPU_PATTERN_MAX_LEN + 2] = {0};
        for (uint32_t i = 0; i < n; i++) {
            if (s[i].len < 1 || s[i].len > PS_GPU_PATTERN_MAX_LEN) {
                rc = ps_fail(err, PS_E_USAGE, "the GPU pattern engine takes patterns of at most %d positions",
                             PS_GPU_PATTERN_MAX_LEN);
                goto done;
            }
            cnt[PS_GPU_PATTERN_MAX_LEN - s[i].len + 1]++;
            if (s[i].len > l->lmax) l->lmax = s[i].len;
        }
        for (int i = 1; i <= PS_GPU_PATTERN_MAX_LEN + 1; i++) cnt[i] += cnt[i - 1];
        for (uint32_t i = 0; i < n; i++) order[cnt[PS_GPU_PATTERN_MAX_LEN - s[i].len]++] = i;
        const uint32_t none = UINT32_MAX;
        uint32_t head[64];
        for (int i = 0; i < 64; i++) head[i] = none;
        uint32_t n_gw = 0;
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t i = order[k], L = s[i].len;
            uint32_t f = L;
            while (f < 64 && head[f] == none) f++;
            uint32_t w;
            if (f < 64) {
                w = head[f];
                head[f] = nextw[w];
            } else {
                w = n_gw++;
                freeb[w] = 64;
            }
            place[2 * i] = w;
            place[2 * i + 1] = 64 - freeb[w];
            freeb[w] -= L;
            if (freeb[w]) {
                nextw[w] = head[freeb[w]];
                head[freeb[w]] = w;
            }
        }

        /* Windows take two words a thread, sharing the symbol's decoding
         * and row load, where there are two; an odd count gets an empty
         * word (no first or last bits: it never leaves the zero state). */
        l->n_words = n_gw;
        l->nw = ps->windows_only && !ps->sub && n_gw >= 2 ? 2 : 1;
        n_gw = (n_gw + l->nw - 1) / l->nw * l->nw;
        l->n_gw = n_gw;
        l->rows = 1u << bits;
        l->B = (uint64_t *)calloc((size_t)l->rows * (n_gw ? n_gw : 1), sizeof *l->B);
        l->n_masks = ps->windows_only ? kMasksWindows : kMasks;
        l->mask = (uint64_t *)calloc((size_t)l->n_masks * (n_gw ? n_gw : 1), sizeof *l->mask);
        l->leaf = (uint32_t *)calloc((size_t)64 * (n_gw ? n_gw : 1), sizeof *l->leaf);
        if (ps->sub) l->sub = (uint64_t *)calloc(n_gw ? n_gw : 1, sizeof *l->sub);
        if (!l->B || !l->mask || !l->leaf || (ps->sub && !l->sub)) {
            rc = ps_fail(err, PS_E_NOMEM, "out of memory laying out %u patterns for the GPU", n);
            goto done;
        }
        const uint32_t sigma = (uint32_t)ps->sigma < l->rows ? (uint32_t)ps->sigma : l->rows;
        /* Each mask's bits of a string move with it, in order. */
        const uint64_t *const from[kMasks] = {ps->first,      ps->last,       ps->first_end, ps->zero,
                                              ps->zero_end,   ps->last_start, ps->skip_start, ps->opt_I,
                                              ps->opt_F,      ps->opt_A};
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t w = place[2 * i], at = place[2 * i + 1], L = s[i].len;
            l->leaf[(size_t)w * 64u + at + L - 1] = ps->leaf_at[s[i].pos + L - 1];
            for (uint32_t j = 0; j < L; j++) {
                const uint32_t src = s[i].pos + j;
                for (uint32_t c = 0; c < sigma; c++)
                    if (ps->B[(size_t)c * nw + src / 64] >> (src % 64) & 1)
                        l->B[(size_t)c * n_gw + w] |= 1ull << (at + j);
                for (uint32_t k = 0; k < l->n_masks; k++)
                    if (from[k][src / 64] >> (src % 64) & 1) l->mask[(size_t)k * n_gw + w] |= 1ull << (at + j);
                if (l->sub && (ps->sub[src / 64] >> (src % 64) & 1)) l->sub[w] |= 1ull << (at + j);
            }
        }
    }
done:
    free(s);
    free(order);
    free(place);
    free(nextw);
    free(freeb);
    if (rc < 0) layout_free(l);
    return rc;
}

} // namespace

struct ps_gpat {
    int bits, levels, general;
    uint32_t n_gw, n_masks, wpw_shift, warm, n_leaves, reach;
    uint32_t n_words, n_unit; /* words holding strings; the threads' shares (kparams) */
    uint32_t resident; /* threads the device holds at once */
    uint64_t *d_B, *d_mask, *d_sub;
    uint32_t *d_leaf;
    const uint8_t *drop; /* patset.h's leaf_drop (host), or NULL */
    /* A guide set (guideset.h): its strings and PAM tables on the device. */
    int guides, pieces; /* the guide kernel (a PAM) or the piece kernel (none) */
    gset gs;            /* for either, its arrays on the device */
    int bulges;         /* a bulge set (bulges.h): bulges_kernel, sites listed at their start */
    bset bs;
    unsigned long long *d_counts;
    uint64_t *h_counts;
    kernel_fn kernel;
};

namespace {

/* Copies the counts (the device idle for g), adds them in, zeroes them. */
int take_counts(ps_gpat_t *g, uint64_t *leaf_counts, ps_err_t *err)
{
    cudaError_t ce;
    const size_t bytes = (size_t)g->n_leaves * sizeof(uint64_t);
    if (!bytes) return PS_OK;
    if ((ce = cudaMemcpy(g->h_counts, g->d_counts, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess)
        return cuda_fail(err, ce, "copying pattern counts from the GPU");
    if ((ce = cudaMemset(g->d_counts, 0, bytes)) != cudaSuccess) return cuda_fail(err, ce, "clearing GPU counts");
    /* The engine's streams do not wait for the default stream's memset. */
    if ((ce = cudaDeviceSynchronize()) != cudaSuccess) return cuda_fail(err, ce, "clearing GPU counts");
    for (uint32_t i = 0; i < g->n_leaves; i++)
        if (!g->drop || !g->drop[i]) leaf_counts[i] += g->h_counts[i];
    return PS_OK;
}

/* Where a launch's sites go when they are listed rather than counted. */
struct site_list {
    uint2 *sites;
    unsigned long long *n;
    uint32_t cap;
};

/* A guide set's launch: a lane the windows ending in glane positions,
 * glane chosen so that the device holds a few waves of warps. */
cudaError_t guides_launch(ps_gpat_t *g, const uint32_t *d_text, uint32_t n, uint32_t n_ctx, const uint32_t *d_restart,
                          uint32_t n_restart, const site_list *list, cudaStream_t stream)
{
    kparams k;
    memset(&k, 0, sizeof k);
    k.text = d_text;
    k.restart = d_restart;
    k.counts = g->d_counts;
    k.sites = list ? list->sites : NULL;
    k.n_sites = list ? list->n : NULL;
    k.site_cap = list ? list->cap : 0;
    k.n = n;
    k.n_ctx = n_ctx;
    k.n_restart = n_restart;
    k.gs = g->gs;
    /* Lanes of a few waves: the piece kernel's windows each cost far more. */
    uint64_t lane = (uint64_t)n / (4ull * g->resident);
    const uint64_t most = g->pieces ? 256 : 1024;
    lane = lane < 32 ? 32 : lane > most ? most : lane;
    k.glane = (uint32_t)lane;
    const uint64_t lanes = ((uint64_t)n + lane - 1) / lane;
    const uint64_t blocks = (lanes + kBlock - 1) / kBlock;
    if (blocks > 0x7fffffffull) return cudaErrorInvalidValue;
    if (g->pieces) pieces_kernel<<<(unsigned)blocks, kBlock, 0, stream>>>(k);
    else guides_kernel<<<(unsigned)blocks, kBlock, 0, stream>>>(k);
    return cudaGetLastError();
}

/* A bulge set's launch: a lane the PAM positions of glane, a few waves. */
cudaError_t bulges_launch(ps_gpat_t *g, const uint32_t *d_text, uint32_t n, uint32_t n_ctx, const uint32_t *d_restart,
                          uint32_t n_restart, const site_list *list, cudaStream_t stream)
{
    kparams k;
    memset(&k, 0, sizeof k);
    k.text = d_text;
    k.restart = d_restart;
    k.counts = g->d_counts;
    k.sites = list ? list->sites : NULL;
    k.n_sites = list ? list->n : NULL;
    k.site_cap = list ? list->cap : 0;
    k.n = n;
    k.n_ctx = n_ctx;
    k.n_restart = n_restart;
    k.bs = g->bs;
    uint64_t lane = (uint64_t)n / (4ull * g->resident);
    lane = lane < 64 ? 64 : lane > 1024 ? 1024 : lane;
    k.glane = (uint32_t)lane;
    const uint64_t lanes = ((uint64_t)n + lane - 1) / lane;
    const uint64_t blocks = (lanes + kBlock - 1) / kBlock;
    if (blocks > 0x7fffffffull) return cudaErrorInvalidValue;
    bulges_kernel<<<(unsigned)blocks, kBlock, 0, stream>>>(k);
    return cudaGetLastError();
}

cudaError_t gpat_launch(ps_gpat_t *g, const uint32_t *d_text, uint32_t n, uint32_t n_ctx, const uint32_t *d_restart,
                        uint32_t n_restart, const uint8_t *d_edge, uint8_t head_edge, uint8_t tail_edge,
                        const site_list *list, cudaStream_t stream)
{
    /* Windows ending in the context were counted before; starts there
     * were left to this chunk. */
    if (n == 0 || (!g->general && n <= n_ctx) || g->n_gw == 0) return cudaSuccess;
    if (g->bulges) return bulges_launch(g, d_text, n, n_ctx, d_restart, n_restart, list, stream);
    if (g->guides || g->pieces) return guides_launch(g, d_text, n, n_ctx, d_restart, n_restart, list, stream);
    const uint32_t pw = g->bits == 2 ? 16u : 6u;
    const uint32_t wpw = 1u << g->wpw_shift, groups = (g->n_unit + wpw - 1) / wpw;
    const uint64_t text_words = (n + pw - 1) / pw;
    /* Slices as long as the device stays full: several waves of threads
     * (words times slices), but never shorter than a few warm-ups. */
    uint32_t min_words = (4u * g->warm + pw - 1) / pw;
    if (min_words < 4) min_words = 4;
    uint32_t sw = kSliceWordsMax;
    const uint64_t want = 4ull * g->resident;
    while (sw / 2 >= min_words && (text_words + sw - 1) / sw * (uint64_t)groups * wpw < want) sw /= 2;
    const uint64_t slices = (text_words + sw - 1) / sw;
    const uint64_t blocks_x = (slices * wpw + kBlock - 1) / kBlock;
    if (blocks_x > 0x7fffffffull) return cudaErrorInvalidValue;
    kparams k;
    k.text = d_text;
    k.restart = d_restart;
    k.B = g->d_B;
    k.edge = d_edge;
    k.mask = g->d_mask;
    k.leaf = g->d_leaf;
    k.sub = g->d_sub;
    k.counts = g->d_counts;
    k.sites = list ? list->sites : NULL;
    k.n_sites = list ? list->n : NULL;
    k.site_cap = list ? list->cap : 0;
    k.n = n;
    k.n_ctx = n_ctx;
    k.n_restart = n_restart;
    k.n_gw = g->n_gw;
    k.n_unit = g->n_unit;
    k.wpw_shift = g->wpw_shift;
    k.slice_words = sw;
    k.warm = g->warm;
    k.reach = g->reach;
    k.head_edge = head_edge;
    k.tail_edge = tail_edge;
    for (uint32_t g0 = 0; g0 < groups; g0 += kGroupsPerLaunch) {
        k.group0 = g0;
        const uint32_t gy = groups - g0 < kGroupsPerLaunch ? groups - g0 : kGroupsPerLaunch;
        g->kernel<<<dim3((unsigned)blocks_x, gy), kBlock, 0, stream>>>(k);
        cudaError_t ce = cudaGetLastError();
        if (ce != cudaSuccess) return ce;
    }
    return cudaSuccess;
}

} // namespace

extern "C" uint32_t ps_gpat_words(const ps_gpat_t *g) { return g->n_words; }

extern "C" void ps_gpat_free(ps_gpat_t *g)
{
    if (!g) return;
    cudaFree(g->d_B);
    cudaFree(g->d_mask);
    cudaFree(g->d_leaf);
    cudaFree(g->d_sub);
    cudaFree(g->gs.str);
    cudaFree(g->gs.leaf);
    cudaFree(g->gs.lim);
    cudaFree(g->gs.pam);
    for (int st = 0; st < 2; st++) {
        cudaFree(g->gs.ix[st].start);
        cudaFree(g->gs.ix[st].ent);
    }
    cudaFree(g->bs.gp);
    cudaFree(g->bs.jlo);
    cudaFree(g->bs.jn);
    cudaFree(g->bs.var_at);
    cudaFree(g->bs.pam);

    cudaFree(g->d_counts);
    free(g->h_counts);
    free(g);
}

/* Strand st's exact-piece index (guideset.h) on the device: the host's
 * layout, its tables copied as they are. */
static int upload_pieces(ps_gpat_t *g, const ps_guideset_t *gs, int st, ps_err_t *err)
{
    const ps_guide_pieces_t *ix = &gs->pieces[st];
    ps_guide_pieces_t *d = &g->gs.ix[st];
    if (!ix->n) return PS_OK;
    *d = *ix;
    d->start = NULL;
    d->ent = NULL;
    const size_t n_start = (size_t)ix->n * ((1ull << ix->bits) + 1), n_ent = (size_t)ix->n * ix->strings;
    cudaError_t ce;
    if ((ce = cudaMalloc(&d->start, n_start * sizeof *ix->start)) != cudaSuccess ||
        (ce = cudaMalloc(&d->ent, (n_ent ? n_ent : 1) * sizeof *ix->ent)) != cudaSuccess ||
        (ce = cudaMemcpy(d->start, ix->start, n_start * sizeof *ix->start, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (n_ent && (ce = cudaMemcpy(d->ent, ix->ent, n_ent * sizeof *ix->ent, cudaMemcpyHostToDevice)) != cudaSuccess))
        return cuda_fail(err, ce, "uploading the GPU guide index");
    return PS_OK;
}

/* The PAM tables of guide set gs on the device (none without a PAM). */
static int upload_pam(ps_gpat_t *g, const ps_guideset_t *gs, ps_err_t *err)
{
    g->gs.m = gs->m;
    g->gs.full = gs->m == 32 ? ~0ull : (1ull << (2 * gs->m)) - 1;
    g->gs.n_plus = gs->n_plus;
    g->gs.n = gs->n;
    if (!gs->P) return PS_OK;
    const size_t pw = (size_t)((gs->pam_mask + 1) / 64 + 1);
    uint64_t *pam = (uint64_t *)malloc(2 * pw * sizeof *pam);
    if (!pam) return ps_fail(err, PS_E_NOMEM, "out of memory for the GPU guide set");
    memcpy(pam, gs->pam_ok[0], pw * sizeof *pam);
    memcpy(pam + pw, gs->pam_ok[1], pw * sizeof *pam);
    cudaError_t ce;
    int rc = PS_OK;
    if ((ce = cudaMalloc(&g->gs.pam, 2 * pw * sizeof *pam)) != cudaSuccess ||
        (ce = cudaMemcpy(g->gs.pam, pam, 2 * pw * sizeof *pam, cudaMemcpyHostToDevice)) != cudaSuccess)
        rc = cuda_fail(err, ce, "uploading the GPU guide set");
    free(pam);
    g->gs.pm = gs->pam_mask;
    g->gs.sh0 = gs->pam_shift[0];
    g->gs.sh1 = gs->pam_shift[1];
    g->gs.pam_words = (uint32_t)pw;
    return rc;
}

/* A guide set (guideset.h), where ps is one: its strings and PAM tables
 * on the device, and a guide kernel instead of the pattern kernels. */
static int upload_guides(ps_gpat_t *g, const ps_patset_t *ps, int threads, ps_err_t *err)
{
    ps_guideset_t *gs = NULL;
    char why[160];
    int rc = ps_guideset_build(&gs, ps, ps->guide_need, PS_GUIDESET_TABLES | PS_GUIDESET_GPU, threads, why, sizeof why,
                                err);
    if (rc == 1) return PS_OK;
    if (rc < 0) return rc;
    /* The piece kernel where every strand with strings has an index (a
     * joint one for both without a PAM); else, with a PAM few windows
     * pass, the guide kernel compares each that passes with every string
     * of its strand; else the bit-parallel kernels do as well. */
    const int indexed = gs->joint || ((!gs->n_plus || gs->pieces[0].n) && (gs->n_plus == gs->n || gs->pieces[1].n));
    if (indexed) {
        g->gs.joint = gs->joint;
        if ((rc = upload_pam(g, gs, err)) == PS_OK && (rc = upload_pieces(g, gs, 0, err)) == PS_OK &&
            (rc = upload_pieces(g, gs, 1, err)) == PS_OK)
            g->pieces = 1;
        ps_guideset_free(gs);
        return rc;
    }
    if (!gs->P || gs->pass > 0.25) {
        ps_guideset_free(gs);
        return PS_OK;
    }
    const size_t n = gs->n ? gs->n : 1;
    ulonglong2 *str = (ulonglong2 *)malloc(n * sizeof *str);
    cudaError_t ce = cudaSuccess;
    if (!str) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for the GPU guide set");
        goto done;
    }
    for (uint32_t i = 0; i < gs->n; i++) str[i] = make_ulonglong2(gs->code[i], gs->care[i]);
    if ((rc = upload_pam(g, gs, err)) < 0) goto done;
    if ((ce = cudaMalloc(&g->gs.str, n * sizeof *str)) != cudaSuccess ||
        (ce = cudaMalloc(&g->gs.leaf, n * sizeof(uint32_t))) != cudaSuccess ||
        (ce = cudaMalloc(&g->gs.lim, n)) != cudaSuccess ||
        (ce = cudaMemcpy(g->gs.str, str, gs->n * sizeof *str, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->gs.leaf, gs->leaf, gs->n * sizeof(uint32_t), cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->gs.lim, gs->lim, gs->n, cudaMemcpyHostToDevice)) != cudaSuccess) {
        rc = cuda_fail(err, ce, "uploading the GPU guide set");
        goto done;
    }
    g->guides = 1;
    rc = PS_OK;
done:
    free(str);
    ps_guideset_free(gs);
    return rc;
}

extern "C" int ps_gpat_new(ps_gpat_t **out, const ps_patset_t *ps, int threads, ps_err_t *err)
{
    *out = NULL;
    int rc = check_set(ps, err);
    if (rc < 0) return rc;
    const int bits = ps_alpha_bits(ps->leaves.alpha);
    layout l;
    if ((rc = layout_build(&l, ps, bits, err)) < 0) return rc;
    ps_gpat_t *g = (ps_gpat_t *)calloc(1, sizeof *g);
    if (!g) {
        layout_free(&l);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    g->bits = bits;
    g->levels = ps->max_mm + 1;
    g->n_gw = l.n_gw;
    g->n_words = l.n_words;
    g->n_unit = l.n_gw / l.nw;
    g->warm = l.lmax ? l.lmax - 1 : 0;
    g->n_leaves = ps->leaves.n_leaves;
    g->general = !ps->windows_only;
    g->n_masks = l.n_masks;
    g->reach = ps->leaves.k > 0 ? (uint32_t)ps->leaves.k - 1 : 0;
    g->drop = ps->leaf_drop;
    /* Fixed positions take units of one word (their own kernel). */
    if (l.sub && l.nw != 1) {
        layout_free(&l);
        free(g);
        return ps_fail(err, PS_E_INTERNAL, "GPU pattern layout: fixed positions in units of two words");
    }
    g->kernel = kKernels[g->general ? kGeneral : l.sub ? kWindowsSub : l.nw == 2 ? kWindows2 : kWindows1][bits == 5]
                        [g->levels - 1];
    while (g->wpw_shift < 5 && (1u << g->wpw_shift) < g->n_unit) g->wpw_shift++;
    const size_t nw = l.n_gw ? l.n_gw : 1;
    cudaError_t ce;
    int dev = 0, sms = 0, per_sm = 0;
    if ((ce = cudaGetDevice(&dev)) != cudaSuccess ||
        (ce = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (ce = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev)) != cudaSuccess) {
        rc = cuda_fail(err, ce, "querying the GPU");
        goto fail;
    }
    g->resident = (uint32_t)sms * (uint32_t)per_sm;
    if (!(g->h_counts = (uint64_t *)malloc(((size_t)g->n_leaves + 1) * sizeof(uint64_t)))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
        goto fail;
    }
    if ((ce = cudaMalloc(&g->d_B, (size_t)l.rows * nw * sizeof(uint64_t))) != cudaSuccess ||
        (ce = cudaMalloc(&g->d_mask, l.n_masks * nw * sizeof(uint64_t))) != cudaSuccess ||
        (ce = cudaMalloc(&g->d_leaf, 64 * nw * sizeof(uint32_t))) != cudaSuccess ||
        (ce = cudaMalloc(&g->d_counts, ((size_t)g->n_leaves + 1) * sizeof(uint64_t))) != cudaSuccess) {
        rc = cuda_fail(err, ce, "allocating the GPU pattern layout");
        goto fail;
    }
    if ((ce = cudaMemcpy(g->d_B, l.B, (size_t)l.rows * nw * sizeof(uint64_t), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (ce = cudaMemcpy(g->d_mask, l.mask, l.n_masks * nw * sizeof(uint64_t), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (ce = cudaMemcpy(g->d_leaf, l.leaf, 64 * nw * sizeof(uint32_t), cudaMemcpyHostToDevice)) != cudaSuccess ||
        (l.sub && (ce = cudaMalloc(&g->d_sub, nw * sizeof(uint64_t))) != cudaSuccess) ||
        (l.sub && (ce = cudaMemcpy(g->d_sub, l.sub, nw * sizeof(uint64_t), cudaMemcpyHostToDevice)) != cudaSuccess) ||
        (ce = cudaMemset(g->d_counts, 0, ((size_t)g->n_leaves + 1) * sizeof(uint64_t))) != cudaSuccess) {
        rc = cuda_fail(err, ce, "uploading the GPU pattern layout");
        goto fail;
    }
    /* Kernels on other streams must see the cleared counters. */
    if ((ce = cudaDeviceSynchronize()) != cudaSuccess) {
        rc = cuda_fail(err, ce, "uploading the GPU pattern layout");
        goto fail;
    }
    layout_free(&l);
    if ((rc = upload_guides(g, ps, threads, err)) < 0) goto fail2;
    *out = g;
    return PS_OK;
fail2:
    ps_gpat_free(g);
    return rc;
fail:
    layout_free(&l);
    ps_gpat_free(g);
    return rc;
}

/* The bulge set on the current device, with its leaf counters. */
static int gpat_new_bulges(ps_gpat_t **out, const ps_bulgeset_t *b, ps_err_t *err)
{
    *out = NULL;
    if (b->n_classes > kBulgeClasses)
        return ps_fail(err, PS_E_USAGE, "the GPU takes bulges of up to %u bases each kind; these are searched on CPU "
                       "threads", (kBulgeClasses - 1) / 2);
    ps_gpat_t *g = (ps_gpat_t *)calloc(1, sizeof *g);
    if (!g) return ps_fail(err, PS_E_NOMEM, "out of memory");
    g->bits = 2;
    g->levels = b->leaves.levels;
    g->n_gw = 1; /* work to launch */
    g->n_leaves = b->leaves.n_leaves;
    g->bulges = 1;
    const size_t G = b->n_guides, C = b->n_classes, pw = ((size_t)1 << (2 * b->a)) / 64 + 1;
    const size_t gc = G * C > 0 ? G * C : 1; /* cudaMalloc takes no 0 */
    uint4 *gp = (uint4 *)malloc((G ? G : 1) * sizeof *gp);
    cudaError_t ce;
    int rc = PS_OK, dev = 0, sms = 0, per_sm = 0;
    if (!gp || !(g->h_counts = (uint64_t *)malloc(((size_t)g->n_leaves + 1) * sizeof(uint64_t)))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for the GPU bulge set");
        goto done;
    }
    /* A plain guide compares its spacer's first and last positions: its
     * classes' ranges, and so their bounds, are the set's (bulges.c). */
    for (size_t i = 0; i < G; i++) {
        const uint32_t care = even_bits(b->care[i]), ends = 1u << (b->n - 1) | 1u;
        gp[i] = make_uint4(even_bits(b->code[i] >> 1), even_bits(b->code[i]), care,
                           (uint32_t)b->lim[i] | (uint32_t)((care & ends) == ends) << 8);
    }
    for (uint32_t c = 1; c < C && c < kBulgeClasses; c++) {
        int lo, cnt;
        ps_bulge_class_range(b, c, 0, (int)b->n - 1, &lo, &cnt);
        const uint32_t del = c <= (uint32_t)b->dna ? 0 : c - (uint32_t)b->dna, n = b->n;
        const uint32_t jlo = (uint32_t)lo, h = (2 * jlo + (uint32_t)cnt) / 2, m = (1u << n) - 1;
        g->bs.upre[c] = cnt ? m & ~((1u << (n - h)) - 1) : m;
        g->bs.usuf[c] = cnt && h > jlo && h - 1 + del < n ? (1u << (n - (h - 1 + del))) - 1 : 0;
        g->bs.upen[c] = cnt && h > jlo ? 0 : 64;
    }
    if ((ce = cudaGetDevice(&dev)) != cudaSuccess ||
        (ce = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (ce = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev)) != cudaSuccess ||
        (ce = cudaMalloc(&g->bs.gp, (G ? G : 1) * sizeof *gp)) != cudaSuccess ||
        (ce = cudaMalloc(&g->bs.jlo, gc)) != cudaSuccess ||
        (ce = cudaMalloc(&g->bs.jn, gc)) != cudaSuccess ||
        (ce = cudaMalloc(&g->bs.var_at, (G * C + 1) * sizeof(uint32_t))) != cudaSuccess ||
        (ce = cudaMalloc(&g->bs.pam, pw * sizeof(uint64_t))) != cudaSuccess ||

        (ce = cudaMalloc(&g->d_counts, ((size_t)g->n_leaves + 1) * sizeof(uint64_t))) != cudaSuccess ||
        (ce = cudaMemcpy(g->bs.gp, gp, G * sizeof *gp, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->bs.jlo, b->jlo, G * C, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->bs.jn, b->jn, G * C, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->bs.var_at, b->var_at, (G * C + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice)) !=
            cudaSuccess ||
        (ce = cudaMemcpy(g->bs.pam, b->pam_ok, pw * sizeof(uint64_t), cudaMemcpyHostToDevice)) != cudaSuccess ||

        (ce = cudaMemset(g->d_counts, 0, ((size_t)g->n_leaves + 1) * sizeof(uint64_t))) != cudaSuccess ||
        (ce = cudaDeviceSynchronize()) != cudaSuccess) {
        rc = cuda_fail(err, ce, "uploading the GPU bulge set");
        goto done;
    }
    g->resident = (uint32_t)sms * (uint32_t)per_sm;
    g->bs.G = (uint32_t)G;
    g->bs.C = (uint32_t)C;
    g->bs.n = b->n;
    g->bs.a = b->a;
    g->bs.W = b->W;
    g->bs.dna = (uint32_t)b->dna;
    g->bs.strands = b->leaves.both_strands ? 2u : 1u;
    g->bs.levels = (uint32_t)b->leaves.levels;
    g->bs.pam5 = b->pam5;
    g->bs.all = b->all_positions;
done:
    free(gp);
    if (rc < 0) ps_gpat_free(g);
    else *out = g;
    return rc;
}

extern "C" int ps_gpat_launch(ps_gpat_t *g, const uint32_t *d_text, uint64_t n, uint32_t n_ctx,
                              const uint32_t *d_restart, const uint8_t *d_edge, uint32_t n_restart, uint8_t head_edge,
                              uint8_t tail_edge, void *stream, ps_err_t *err)
{
    if (n > UINT32_MAX) return ps_fail(err, PS_E_INTERNAL, "GPU pattern kernel: %llu symbols, more than 2^32 - 1",
                                       (unsigned long long)n);
    cudaError_t ce = gpat_launch(g, d_text, (uint32_t)n, n_ctx, d_restart, n_restart, d_edge, head_edge, tail_edge,
                                 NULL, (cudaStream_t)stream);
    return ce == cudaSuccess ? PS_OK : cuda_fail(err, ce, "launching the pattern kernel");
}

extern "C" int ps_gpat_collect(ps_gpat_t *g, uint64_t *leaf_counts, ps_err_t *err)
{
    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) return cuda_fail(err, ce, "pattern kernel");
    return take_counts(g, leaf_counts, err);
}

/* ---- the engine -------------------------------------------------------- */

namespace {

struct pstream {
    pthread_mutex_t lock; /* one host thread on this stream at a time */
    int lock_ok;
    cudaStream_t stream;
    cudaEvent_t copied;
    uint32_t *d_text, *d_restart;
    uint8_t *d_edge; /* the general layout's segment edges, per restart */
    /* scan_sites: the list on the device, its length, and a pinned copy */
    uint2 *d_sites, *h_sites;
    unsigned long long *d_n_sites, *h_n_sites;
    uint32_t site_cap;
};

struct pengine {
    int device;
    cudaDeviceProp prop;
    int workers, n_streams;
    pstream *s;
    ps_gpat_t *g;
    uint32_t *leaf_len; /* windows: each leaf's string length, to turn a site's end into its start */
    uint64_t chunks; /* scanned, for info (atomic) */
};

void *pinned_alloc(void *ctx, size_t bytes)
{
    (void)ctx;
    void *p = NULL;
    /* Portable: the chunk may be filled and copied from any thread. */
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) return NULL;
    return p;
}

void pinned_release(void *ctx, void *p)
{
    (void)ctx;
    if (p) cudaFreeHost(p);
}

/* Any free stream, else the worker's own once it is free. */
pstream *take_stream(pengine *pe, int worker)
{
    for (int i = 0; i < pe->n_streams; i++) {
        pstream *s = &pe->s[(worker + i) % pe->n_streams];
        if (pthread_mutex_trylock(&s->lock) == 0) return s;
    }
    pstream *s = &pe->s[worker % pe->n_streams];
    pthread_mutex_lock(&s->lock);
    return s;
}

/* Queues the chunk's copies to the device. */
int upload(pengine *pe, pstream *s, const ps_chunk_t *c, ps_err_t *err)
{
    cudaError_t ce;
    if ((ce = cudaSetDevice(pe->device)) != cudaSuccess) return cuda_fail(err, ce, "cudaSetDevice");
    if ((ce = cudaMemcpyAsync(s->d_text, c->text, ps_chunk_text_bytes(c), cudaMemcpyHostToDevice, s->stream)) !=
        cudaSuccess)
        return cuda_fail(err, ce, "copying a chunk to the GPU");
    if (c->n_restart && (ce = cudaMemcpyAsync(s->d_restart, c->restart, (size_t)c->n_restart * sizeof(uint32_t),
                                              cudaMemcpyHostToDevice, s->stream)) != cudaSuccess)
        return cuda_fail(err, ce, "copying restarts to the GPU");
    if (pe->g->general && c->n_restart &&
        (ce = cudaMemcpyAsync(s->d_edge, c->edge, c->n_restart, cudaMemcpyHostToDevice, s->stream)) != cudaSuccess)
        return cuda_fail(err, ce, "copying segment edges to the GPU");
    return PS_OK;
}

cudaError_t launch_on(pengine *pe, pstream *s, const ps_chunk_t *c, const site_list *list)
{
    return gpat_launch(pe->g, s->d_text, (uint32_t)c->n, c->n_ctx, s->d_restart, c->n_restart,
                       pe->g->general ? s->d_edge : NULL, c->head_edge, c->tail_edge, list, s->stream);
}

int scan_on(pengine *pe, pstream *s, const ps_chunk_t *c, ps_err_t *err)
{
    cudaError_t ce;
    int rc = upload(pe, s, c, err);
    if (rc < 0) return rc;
    if ((ce = cudaEventRecord(s->copied, s->stream)) != cudaSuccess) return cuda_fail(err, ce, "cudaEventRecord");
    if ((ce = launch_on(pe, s, c, NULL)) != cudaSuccess) return cuda_fail(err, ce, "launching the pattern kernel");
    /* The chunk's host memory may be refilled once its copies are done. */
    if ((ce = cudaEventSynchronize(s->copied)) != cudaSuccess) return cuda_fail(err, ce, "waiting for a chunk copy");
    return PS_OK;
}

/* Room for cap sites on the device and in the pinned copy. */
int site_room(pstream *s, uint32_t cap, ps_err_t *err)
{
    cudaError_t ce;
    if (cap <= s->site_cap) return PS_OK;
    cudaFree(s->d_sites);
    cudaFreeHost(s->h_sites);
    s->d_sites = s->h_sites = NULL;
    s->site_cap = 0;
    if ((ce = cudaMalloc(&s->d_sites, (size_t)cap * sizeof(uint2))) != cudaSuccess ||
        (ce = cudaHostAlloc(&s->h_sites, (size_t)cap * sizeof(uint2), cudaHostAllocDefault)) != cudaSuccess)
        return cuda_fail(err, ce, "allocating the GPU's site list");
    s->site_cap = cap;
    return PS_OK;
}

/* The chunk's sites: the kernel lists them; when the list overflows, the
 * chunk runs again with room for the count it reported. Waits for all. */
int sites_on(pengine *pe, pstream *s, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    cudaError_t ce;
    int rc = upload(pe, s, c, err);
    if (rc < 0) return rc;
    if ((!s->d_n_sites && (ce = cudaMalloc(&s->d_n_sites, sizeof *s->d_n_sites)) != cudaSuccess) ||
        (!s->h_n_sites && (ce = cudaHostAlloc(&s->h_n_sites, sizeof *s->h_n_sites, cudaHostAllocDefault)) != cudaSuccess))
        return cuda_fail(err, ce, "allocating the GPU's site list");
    /* Room for a dense chunk's sites from the start: a list that overflows
     * runs its chunk again (8 MB a stream; 1,000 guides with bulges over
     * 1.02 Gbp: 2.6 s for 1.3 million BED rows, 3.0 s with 64 Ki). */
    if ((rc = site_room(s, 1u << 20, err)) < 0) return rc;
    for (;;) {
        const site_list list = {s->d_sites, s->d_n_sites, s->site_cap};
        if ((ce = cudaMemsetAsync(s->d_n_sites, 0, sizeof *s->d_n_sites, s->stream)) != cudaSuccess ||
            (ce = launch_on(pe, s, c, &list)) != cudaSuccess ||
            (ce = cudaMemcpyAsync(s->h_n_sites, s->d_n_sites, sizeof *s->d_n_sites, cudaMemcpyDeviceToHost,
                                  s->stream)) != cudaSuccess ||
            (ce = cudaStreamSynchronize(s->stream)) != cudaSuccess)
            return cuda_fail(err, ce, "listing sites on the GPU");
        if (*s->h_n_sites <= s->site_cap) break;
        /* A chunk's list is bounded by its symbols times the strings that
         * may match at one position; past 2^31 sites (16 GB) it is refused. */
        if (*s->h_n_sites > (1ull << 31))
            return ps_fail(err, PS_E_NOMEM, "%llu sites in one chunk of %llu symbols: too many to list on the GPU; "
                           "use --engine cpu, or fewer or more specific probes",
                           (unsigned long long)*s->h_n_sites, (unsigned long long)c->n);
        const uint64_t want = (uint64_t)*s->h_n_sites + *s->h_n_sites / 4;
        if ((rc = site_room(s, want > UINT32_MAX ? UINT32_MAX : (uint32_t)want, err)) < 0) return rc;
    }
    const uint32_t n = (uint32_t)*s->h_n_sites;
    if (n && ((ce = cudaMemcpyAsync(s->h_sites, s->d_sites, (size_t)n * sizeof(uint2), cudaMemcpyDeviceToHost,
                                    s->stream)) != cudaSuccess ||
              (ce = cudaStreamSynchronize(s->stream)) != cudaSuccess))
        return cuda_fail(err, ce, "copying sites from the GPU");
    if ((rc = ps_sites_reserve(out, n, err)) < 0) return rc;
    for (uint32_t i = 0; i < n; i++) {
        const uint2 v = s->h_sites[i];
        if (pe->g->drop && pe->g->drop[v.y]) continue; /* beyond its probe's own limit */
        /* Windows are listed at their end, the general layout at its start. */
        out->pos[out->n] = pe->g->general || pe->g->bulges ? v.x : v.x + 1u - pe->leaf_len[v.y];
        out->leaf[out->n++] = v.y;
    }
    return PS_OK;
}

/* Checks a chunk against the engine's buffers and alphabet. */
int check_chunk(const pengine *pe, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    if (worker < 0 || worker >= pe->workers)
        return ps_fail(err, PS_E_INTERNAL, "GPU pattern engine: worker %d out of range", worker);
    if (c->n > PS_GPU_CHUNK_SYMS || c->n_restart > PS_GPU_CHUNK_RESTARTS)
        return ps_fail(err, PS_E_INTERNAL, "GPU pattern engine: chunk larger than its device buffers");
    if (c->bits != pe->g->bits)
        return ps_fail(err, PS_E_INTERNAL, "GPU pattern engine: a chunk of %d-bit symbols for %d-bit patterns",
                       c->bits, pe->g->bits);
    return PS_OK;
}

int pe_scan_sites(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_sites_t *out, ps_err_t *err)
{
    pengine *pe = (pengine *)e->impl;
    out->n = 0;
    int rc = check_chunk(pe, worker, c, err);
    if (rc < 0 || c->n == 0) return rc;
    pstream *s = take_stream(pe, worker);
    rc = sites_on(pe, s, c, out, err);
    pthread_mutex_unlock(&s->lock);
    if (rc == PS_OK) __atomic_add_fetch(&pe->chunks, 1, __ATOMIC_RELAXED);
    return rc;
}

int pe_scan(ps_engine_t *e, int worker, const ps_chunk_t *c, ps_err_t *err)
{
    pengine *pe = (pengine *)e->impl;
    int rc = check_chunk(pe, worker, c, err);
    if (rc < 0 || c->n == 0) return rc;
    pstream *s = take_stream(pe, worker);
    rc = scan_on(pe, s, c, err);
    pthread_mutex_unlock(&s->lock);
    if (rc == PS_OK) __atomic_add_fetch(&pe->chunks, 1, __ATOMIC_RELAXED);
    return rc;
}

int pe_collect(ps_engine_t *e, uint64_t *leaf_counts, ps_err_t *err)
{
    pengine *pe = (pengine *)e->impl;
    cudaError_t ce;
    if ((ce = cudaSetDevice(pe->device)) != cudaSuccess) return cuda_fail(err, ce, "cudaSetDevice");
    /* The streams do not wait for the default stream's copy: wait for them. */
    for (int i = 0; i < pe->n_streams; i++)
        if ((ce = cudaStreamSynchronize(pe->s[i].stream)) != cudaSuccess) return cuda_fail(err, ce, "pattern kernel");
    return take_counts(pe->g, leaf_counts, err);
}

void pe_info(const ps_engine_t *e, ps_engine_info_t *out)
{
    const pengine *pe = (const pengine *)e->impl;
    memset(out, 0, sizeof *out);
    out->kind = PS_ENGINE_GPU;
    out->workers = pe->workers;
    out->gpu_id = pe->device;
    out->gpu_started = 1;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%.95s", pe->prop.name);
    out->gpu_sms = pe->prop.multiProcessorCount;
    out->gpu_mem_gib = pe->prop.totalGlobalMem / 1073741824.0;
    out->patterns = 1;
    snprintf(out->kernel, sizeof out->kernel, "%s",
             pe->g->bulges ? "bulges" : pe->g->guides ? "guides" : pe->g->pieces ? "pieces" : "pattern");
    out->guides = pe->g->guides || pe->g->pieces || pe->g->bulges;
    if (pe->g->pieces) {
        const ps_guide_pieces_t *ix = pe->g->gs.ix[0].n ? &pe->g->gs.ix[0] : &pe->g->gs.ix[1];
        out->guide_need = ix->need;
        out->guide_pieces = ix->pieces;
        out->guide_seeds = ix->n;
    }
    out->bulges = pe->g->bulges;
    out->chunks_gpu = __atomic_load_n(&pe->chunks, __ATOMIC_RELAXED);
    out->max_chunk_syms = PS_GPU_CHUNK_SYMS;
    out->max_chunk_restarts = PS_GPU_CHUNK_RESTARTS;
}

void pe_destroy(ps_engine_t *e)
{
    if (!e) return;
    pengine *pe = (pengine *)e->impl;
    if (pe) {
        cudaSetDevice(pe->device);
        for (int i = 0; pe->s && i < pe->n_streams; i++) {
            pstream *s = &pe->s[i];
            if (s->stream) {
                cudaStreamSynchronize(s->stream);
                cudaStreamDestroy(s->stream);
            }
            if (s->copied) cudaEventDestroy(s->copied);
            if (s->lock_ok) pthread_mutex_destroy(&s->lock);
            cudaFree(s->d_text);
            cudaFree(s->d_restart);
            cudaFree(s->d_edge);
            cudaFree(s->d_sites);
            cudaFree(s->d_n_sites);
            cudaFreeHost(s->h_sites);
            cudaFreeHost(s->h_n_sites);
        }
        free(pe->s);
        free(pe->leaf_len);
        ps_gpat_free(pe->g);
        free(pe);
    }
    free(e);
}

} // namespace

/* The engine over a pattern set ps or a bulge set b (one of them). */
static int engine_new(ps_engine_t **out, const ps_patset_t *ps, const ps_bulgeset_t *b, int gpu_id, int workers,
                      ps_err_t *err)
{
    *out = NULL;
    int rc = ps ? check_set(ps, err) : PS_OK;
    if (rc < 0) return rc;
    char why[384];
    if (!ps_gpu_usable(gpu_id, why, sizeof why))
        return ps_fail(err, PS_E_GPU, "GPU pattern engine unavailable: %s", why);

    ps_engine_t *e = (ps_engine_t *)calloc(1, sizeof *e);
    pengine *pe = (pengine *)calloc(1, sizeof *pe);
    if (!e || !pe) {
        free(e);
        free(pe);
        return ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU pattern engine");
    }
    e->impl = pe;
    e->destroy = pe_destroy;
    pe->device = gpu_id;
    pe->workers = workers > 0 ? workers : 1;
    /* Two streams at least, so that one's copy overlaps the other's kernel. */
    pe->n_streams = workers >= 3 ? 3 : 2;
    const int bits = ps ? ps_alpha_bits(ps->leaves.alpha) : 2;
    /* Padded past the last word for the kernel's one-word read-ahead. */
    const size_t text_bytes = ((size_t)(PS_GPU_CHUNK_SYMS / PS_PER_WORD(bits) + 1) * sizeof(uint32_t) + 31) & ~(size_t)15;
    cudaError_t ce;
    if ((ce = cudaSetDevice(gpu_id)) != cudaSuccess) {
        rc = cuda_fail(err, ce, "cudaSetDevice");
        goto fail;
    }
    if ((ce = cudaGetDeviceProperties(&pe->prop, gpu_id)) != cudaSuccess) {
        rc = cuda_fail(err, ce, "cudaGetDeviceProperties");
        goto fail;
    }
    if ((rc = ps ? ps_gpat_new(&pe->g, ps, pe->workers, err) : gpat_new_bulges(&pe->g, b, err)) < 0) goto fail;
    if (!(pe->s = (pstream *)calloc((size_t)pe->n_streams, sizeof *pe->s))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU pattern engine");
        goto fail;
    }
    for (int i = 0; i < pe->n_streams; i++) {
        pstream *s = &pe->s[i];
        if (pthread_mutex_init(&s->lock, NULL) != 0) {
            rc = ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
            goto fail;
        }
        s->lock_ok = 1;
        if ((ce = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
            (ce = cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming)) != cudaSuccess ||
            (ce = cudaMalloc(&s->d_text, text_bytes)) != cudaSuccess ||
            (ce = cudaMalloc(&s->d_restart, (size_t)PS_GPU_CHUNK_RESTARTS * sizeof(uint32_t))) != cudaSuccess ||
            (pe->g->general && (ce = cudaMalloc(&s->d_edge, PS_GPU_CHUNK_RESTARTS)) != cudaSuccess)) {
            rc = cuda_fail(err, ce, "creating the GPU pattern engine's streams");
            goto fail;
        }
    }
    /* Each leaf's length, from the last bits that carry its string's
     * (sites of a bulge set are listed at their start). */
    if (ps && !(pe->leaf_len = (uint32_t *)calloc((size_t)ps->leaves.n_leaves + 1, sizeof *pe->leaf_len))) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory creating the GPU pattern engine");
        goto fail;
    }
    for (uint32_t w = 0; ps && w < ps->n_words; w++)
        for (uint64_t m = ps->last[w]; m; m &= m - 1) {
            const uint32_t bit = w * 64u + (uint32_t)__builtin_ctzll(m);
            for (int d = 0; d <= ps->max_mm; d++) pe->leaf_len[ps->leaf_at[bit] + (uint32_t)d] = ps->len_at[bit];
        }
    e->chunk_alloc.alloc = pinned_alloc;
    e->chunk_alloc.release = pinned_release;
    e->chunk_alloc.ctx = pe;
    e->scan = pe_scan;
    e->collect = pe_collect;
    e->scan_sites = pe_scan_sites;
    e->info = pe_info;
    *out = e;
    return PS_OK;
fail:
    pe_destroy(e);
    return rc;
}

extern "C" int ps_gpu_pattern_engine_new(ps_engine_t **out, const ps_patset_t *ps, int gpu_id, int workers,
                                         ps_err_t *err)
{
    return engine_new(out, ps, NULL, gpu_id, workers, err);
}

extern "C" int ps_gpu_bulge_engine_new(ps_engine_t **out, const ps_bulgeset_t *b, int gpu_id, int workers,
                                       ps_err_t *err)
{
    return engine_new(out, NULL, b, gpu_id, workers, err);
}
