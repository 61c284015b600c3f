/* profile_gpu.cu - the best scores of PROSITE profiles on the GPU
 * (profile_gpu.h): pfscanV3's xali1 of every (profile, sequence) pair. */
#include "profile_gpu.h"

#include "engine_gpu.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kThreads = 128; /* a block (256 or 512 measured no faster) */
constexpr int kRows = 16;     /* rows a thread keeps in registers (8: 3.4-3.7 s against 2.8-3.1 s over 18 M residues) */
/* int16 a position: 16 transitions ([15]: the deletion), 27 match, 27
 * insertion, 3 first, 3 last, the begin-to-end transition (X to X, which
 * [15] holds no room for; the search's exits start from it), padding. */
constexpr int kStride = 80;
constexpr int kMs = 16, kIs = 43, kFirst = 70, kLast = 73, kDel = 15, kXX = 76;
constexpr int M = PS_PRF_M, I = PS_PRF_I, D = PS_PRF_D, X = PS_PRF_X;
constexpr int32_t kLow = PS_PRF_NLOW;

__device__ __forceinline__ int32_t mx(int32_t a, int32_t b) { return a > b ? a : b; }

#define S(p, t) scr[((size_t)(p) * 2 + (t)) * stride] /* t: M or I; a row's deletions start anew in each strip */
#define TT(P, a, b) ((int32_t)(P)[(a) * 4 + (b)])

/* Rows j0 .. j0 + kRows - 1 of one sequence: the row above them is in scr,
 * the row under them goes there. kTail: the sequence's last strip (rows
 * past its end are computed and not read; its last row ends at the
 * sequence's end, E0); else every row is inside and none is the last. */
template <int kRows, bool kTail>
__device__ __forceinline__ int32_t strip(const int16_t *sm, uint32_t L, const uint8_t *map, const uint8_t *seq,
                                         uint32_t n, uint32_t j0, int32_t *scr, uint64_t stride, int32_t best)
{
    int c[kRows];
    bool valid[kRows], last[kRows];
    int32_t Mp[kRows], Dp[kRows];
#pragma unroll
    for (int r = 0; r < kRows; r++) {
        const uint32_t j = j0 + (uint32_t)r;
        valid[r] = !kTail || j < n;
        last[r] = kTail && j + 1 == n;
        c[r] = valid[r] ? map[seq[j]] : 0;
    }
    /* Position 0: insertions and begins only. */
    const int16_t *P = sm;
    int32_t topM = S(0, M), up = S(0, I);
#pragma unroll
    for (int r = 0; r < kRows; r++) {
        const int32_t ki = up + P[kIs + c[r]];
        Mp[r] = mx(ki + TT(P, I, M), TT(P, X, M));
        const int32_t vi = mx(ki + TT(P, I, I), TT(P, X, I));
        Dp[r] = mx(ki + TT(P, I, D), TT(P, X, D));
        if (valid[r]) best = mx(best, ki + (last[r] ? (int32_t)P[kLast + I] : TT(P, I, X)));
        up = vi;
    }
    /* The row under the strip is read a position ahead, so that its
     * device-memory latency is hidden behind a position's work; its
     * deletions are never read (each strip starts them anew). */
    int32_t nextM = S(1, M), nextI = S(1, I);
    S(0, M) = Mp[kRows - 1];
    S(0, I) = up;
    for (uint32_t p = 1; p <= L; p++) {
        P = sm + (size_t)p * kStride;
        int32_t diag = topM;
        topM = nextM;
        up = nextI;
        if (p < L) {
            nextM = S(p + 1, M);
            nextI = S(p + 1, I);
        }
        const int32_t del = P[kDel];
        const int32_t mm = TT(P, M, M), im = TT(P, I, M), dm = TT(P, D, M), xm = TT(P, X, M);
        const int32_t mi = TT(P, M, I), ii = TT(P, I, I), di = TT(P, D, I), xi = TT(P, X, I);
        const int32_t md = TT(P, M, D), id = TT(P, I, D), dd = TT(P, D, D), xd = TT(P, X, D);
        const int32_t mx_ = TT(P, M, X), ix = TT(P, I, X), dx = TT(P, D, X);
#pragma unroll
        for (int r = 0; r < kRows; r++) {
            const int32_t km = diag + P[kMs + c[r]];
            const int32_t ki = up + P[kIs + c[r]];
            const int32_t kd = Dp[r] + del;
            /* max(a + b, c) is one instruction on Hopper (DPX), emulated
             * before it: 3 a state where adds and maxes took 7. */
            const int32_t vm = __viaddmax_s32(km, mm, __viaddmax_s32(ki, im, __viaddmax_s32(kd, dm, xm)));
            const int32_t vi = __viaddmax_s32(km, mi, __viaddmax_s32(ki, ii, __viaddmax_s32(kd, di, xi)));
            const int32_t vd = __viaddmax_s32(km, md, __viaddmax_s32(ki, id, __viaddmax_s32(kd, dd, xd)));
            if (!kTail) {
                best = __viaddmax_s32(km, mx_, __viaddmax_s32(ki, ix, __viaddmax_s32(kd, dx, best)));
            } else if (valid[r]) {
                const int32_t x = last[r] ? mx(mx(km + P[kLast + M], ki + P[kLast + I]), kd + P[kLast + D])
                                          : mx(mx(km + mx_, ki + ix), kd + dx);
                best = mx(best, x);
            }
            diag = Mp[r];
            Mp[r] = vm;
            Dp[r] = vd;
            up = vi;
        }
        S(p, M) = Mp[kRows - 1];
        S(p, I) = up;
    }
    return best;
}

/* One sequence against the block's profile (sm, L): the best score. The
 * row under the thread's registers lives at scr[(p * 2 + t) * stride]. */
template <int kRows>
__device__ int32_t seq_best(const int16_t *sm, uint32_t L, const uint8_t *map, const uint8_t *seq, uint32_t n,
                            int32_t *scr, uint64_t stride)
{
    if (n == 0) return kLow;
    {
        const int16_t *P = sm;
        int32_t kopd = P[kFirst + D];
        S(0, M) = P[kFirst + M];
        S(0, I) = P[kFirst + I];
        for (uint32_t p = 1; p <= L; p++) {
            P = sm + (size_t)p * kStride;
            const int32_t kd = kopd + P[kDel];
            S(p, M) = mx(kd + TT(P, D, M), P[kFirst + M]);
            S(p, I) = mx(kd + TT(P, D, I), P[kFirst + I]);
            kopd = mx(kd + TT(P, D, D), P[kFirst + D]);
        }
    }
    int32_t best = kLow;
    uint32_t j0 = 0;
    for (; j0 + kRows < n; j0 += kRows) best = strip<kRows, false>(sm, L, map, seq, n, j0, scr, stride, best);
    return strip<kRows, true>(sm, L, map, seq, n, j0, scr, stride, best);
}
#undef S
#undef TT

/* Block (x, y): profile y (in length order, longest first; its row of
 * best is row[y]), sequences x, x + gridDim.x ... (a thread each), the
 * sequences longest first (sequence s is the caller's idx[s]): a warp's
 * lanes take sequences of about one length, and none waits long for
 * another's. */
template <int kRows>
__global__ void best_kernel(const int16_t *tabs, const uint64_t *tab_off, const uint32_t *plen, const uint8_t *maps,
                            const uint32_t *row, const uint8_t *letters, const uint64_t *off,
                            const uint32_t *len, const uint32_t *idx, uint32_t n_seq, int32_t *scratch, uint64_t stride,
                            int32_t *best)
{
    extern __shared__ int16_t sm[];
    __shared__ uint8_t map[26];
    const uint32_t prof = blockIdx.y, L = plen[prof];
    const int16_t *tab = tabs + tab_off[prof];
    for (uint32_t i = threadIdx.x; i < (L + 1) * (uint32_t)kStride; i += blockDim.x) sm[i] = tab[i];
    if (threadIdx.x < 26) map[threadIdx.x] = maps[prof * 26 + threadIdx.x];
    __syncthreads();
    const uint64_t gt = ((uint64_t)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < n_seq; s += gridDim.x * blockDim.x)
        best[(uint64_t)row[prof] * n_seq + idx[s]] =
            seq_best<kRows>(sm, L, map, letters + off[s], len[s], scratch + gt, stride);
}

/* ---- the search (pfscanV3's xalip), a lane a pair ---- */

struct Pos {
    int32_t pb, pe, sb; /* protected begin and end, sequence begin */
};

/* A pair as the kernel takes it; a warp's pairs share one profile. */
struct SPair {
    uint64_t off;    /* residues */
    uint64_t base;   /* its row in scratch: its warp's base + its lane */
    uint32_t len, k; /* residues; the profile's slot (length order) */
    int32_t cut;
    uint32_t out;    /* its index in the caller's order; kNoPair: a lane left empty */
};

constexpr uint32_t kNoPair = 0xffffffffu;
/* A position's row: M, I (its deletion runs along the row in a register,
 * never read back), then the positions of iom and ioi (pb, pe, sb). */
constexpr int kOm = 2, kOi = 5, kFields = 8;
static_assert(kFields * 4 == PS_GPROF_ROW_BYTES, "profile_gpu.h's row size");
constexpr int kLanes = PS_GPROF_WARP; /* a warp's rows interleaved: field f of position p at ((p * 8 + f) * 32) */
constexpr int kMo = 5;     /* a match as the kernel keeps it: from, to, score, locked residues lo, hi */

/* Each lane searches its pair as ps_profile_matches does (profile_dp.c:
 * the same steps in the same order, so that ties go the same way), and
 * the warp's lanes step together: every step is one row of each lane's
 * pass over the profile's positions, either the first row of a pass
 * (init_row) or the next residue's (next_row), so that the lanes walk the
 * positions in lockstep and their rows' reads are one line. What
 * profile_dp.c does to the row before a residue (locked residues) and
 * after it (the protected range's positions) is done at each position as
 * it is read or written, which leaves every value the same. */
__global__ void search_kernel(const int16_t *tabs, const uint64_t *tab_off, const uint32_t *plen, const uint32_t *pn12,
                              const uint8_t *maps, const uint8_t *letters, const SPair *pairs, uint32_t n_thr,
                              int32_t *scratch, int32_t *n_match, int32_t *match)
{
    const uint32_t gi = blockIdx.x * blockDim.x + threadIdx.x;
    if (gi >= n_thr) return; /* whole warps: n_thr is a multiple of kLanes */
    const SPair sp = pairs[gi];
    const int16_t *tab = tabs + tab_off[sp.k];
    const uint32_t L = plen[sp.k], n1 = pn12[2 * sp.k], n2 = pn12[2 * sp.k + 1];
    const uint8_t *map = maps + 26 * sp.k, *seq = letters + sp.off;
    const int32_t n = (int32_t)sp.len, cut = sp.cut, jlcp = (int32_t)(L / 2);
    int32_t *row = scratch + sp.base;
    int32_t *mo = sp.out == kNoPair ? NULL : match + (size_t)sp.out * PS_GPROF_MATCHES * kMo;
#define R(p, f) row[((size_t)(p) * kFields + (f)) * kLanes]
    const auto get = [&](uint32_t p, int f) { return Pos{R(p, f), R(p, f + 1), R(p, f + 2)}; };
    const auto put = [&](uint32_t p, int f, const Pos &v) { R(p, f) = v.pb, R(p, f + 1) = v.pe, R(p, f + 2) = v.sb; };
    enum { INIT, ROW, DONE };
    int mode = sp.out != kNoPair && n > 0 ? INIT : DONE;
    int found = 0;
    bool over = false;
    int32_t ibeg = 0, iseq = 0, score = kLow, se = 0, pb = 0, pe = 0, sb = 0, fa = 0, fb = 0, fc = 0;
    int32_t last_cp = 0, first_cp = 0, next_cp = 0;
    while (__any_sync(0xffffffffu, mode != DONE)) {
        const bool init = mode == INIT, step = mode == ROW;
        /* This step's residue (a row), or the pass's start (init). */
        const bool at_start = ibeg < 1, last = step && iseq == n;
        const int c = step ? map[seq[iseq - 1]] : 0;
        const int32_t in = iseq + 1;
        bool locked = false;
        for (int m = 0; step && m < found; m++) locked |= iseq >= mo[m * kMo + 3] && iseq <= mo[m * kMo + 4];
        const Pos temp = {n + 1, 0, in}, unprot = {n + 1, 0, ibeg + 1}, prot = {ibeg + 1, ibeg + 1, ibeg + 1};
        int32_t kopm = 0, kopd = 0;
        Pos kpos = {0, 0, 0}, kiod = {0, 0, 0}, fpos = {pb, pe, sb};
        /* Position 0. */
        if (init) {
            for (int t = 0; t < 2; t++) R(0, t) = at_start ? tab[kFirst + t] : tab[X * 4 + t]; /* M, I */
            kopd = at_start ? tab[kFirst + D] : tab[X * 4 + D];
            const bool inside = 0 >= n1 && 0 < n2;
            const Pos a = inside || 1 == n1 ? prot : unprot, b = inside ? prot : unprot;
            put(0, kOm, a);
            put(0, kOi, b);
        } else if (step) {
            kopm = locked && n1 == 1 ? kLow : R(0, M);
            kpos = get(0, kOm);
            const Pos i0 = get(0, kOi);
            const int32_t ki0 = R(0, I) + tab[kIs + c];
            int32_t ji = ki0 + tab[I * 4 + M], x = tab[X * 4 + M];
            Pos m0 = ji > x ? i0 : temp;
            R(0, M) = ji > x ? ji : x;
            ji = ki0 + tab[I * 4 + D];
            x = tab[X * 4 + D];
            kopd = ji > x ? ji : x;
            kiod = ji > x ? i0 : temp;
            ji = ki0 + tab[I * 4 + I];
            x = tab[X * 4 + I];
            Pos o0 = ji > x ? i0 : temp;
            R(0, I) = ji > x ? ji : x;
            fa = fb = iseq;
            fc = min(min(o0.sb, m0.sb), kiod.sb);
            if (n1 == 1) { /* after the row: the protected range's entry */
                m0.pb = min(m0.pb, in);
                m0.pe = in;
            }
            put(0, kOm, m0);
            put(0, kOi, o0);
        }
        /* Positions 1 .. L; a row's reads of position p + 1 are issued
         * before position p is written. */
        int32_t cM = 0, cI = 0;
        Pos cOm = {0, 0, 0}, cOi = {0, 0, 0};
        if (step && L >= 1) {
            cM = R(1, M), cI = R(1, I);
            cOm = get(1, kOm);
            cOi = get(1, kOi);
        }
        for (uint32_t p = 1; p <= L; p++) {
            const int16_t *P = tab + (size_t)p * kStride;
            const bool inside = p >= n1 && p < n2;
            if (init) {
                const int32_t kd = kopd + P[kDel];
                int32_t v[3];
                for (int t = 0; t < 3; t++) {
                    const int32_t e = at_start ? P[kFirst + t] : P[X * 4 + t];
                    const int32_t d = kd + P[D * 4 + t];
                    v[t] = d > e ? d : e;
                }
                R(p, M) = v[M], R(p, I) = v[I];
                kopd = v[D];
                const Pos a = inside || p + 1 == n1 ? prot : unprot, b = inside ? prot : unprot;
                put(p, kOm, a);
                put(p, kOi, b);
            } else if (step) {
                int32_t nM = 0, nI = 0;
                Pos nOm = {0, 0, 0}, nOi = {0, 0, 0};
                if (p < L) {
                    nM = R(p + 1, M), nI = R(p + 1, I);
                    nOm = get(p + 1, kOm);
                    nOi = get(p + 1, kOi);
                }
                /* locked residues: the protected range's M and I (and M
                 * before it) held at the floor for this row */
                const int32_t oldM = locked && (inside || p + 1 == n1) ? kLow : cM;
                const int32_t oldI = locked && inside ? kLow : cI;
                const int32_t km = kopm + P[kMs + c];
                kopm = oldM;
                const int32_t ki = oldI + P[kIs + c];
                const int32_t kd = kopd + P[kDel];
                const Pos jpos = cOm, ioi_old = cOi, kiod_old = kiod;
                int32_t vm, vi, vd;
                Pos pm, pi, pd;
#define BEST(t, b, bp, take_d)                                                                                         \
    do {                                                                                                               \
        b = P[X * 4 + (t)];                                                                                            \
        bp = temp;                                                                                                     \
        if (kd + P[D * 4 + (t)] > b) b = kd + P[D * 4 + (t)], bp = take_d;                                            \
        if (km + P[M * 4 + (t)] > b) b = km + P[M * 4 + (t)], bp = kpos;                                              \
        if (ki + P[I * 4 + (t)] > b) b = ki + P[I * 4 + (t)], bp = ioi_old;                                           \
    } while (0)
                BEST(M, vm, pm, kiod_old);
                BEST(D, vd, pd, kiod_old);
                BEST(I, vi, pi, pd);
#undef BEST
                {
                    const int32_t xm = last ? P[kLast + M] : P[M * 4 + X];
                    const int32_t xi = last ? P[kLast + I] : P[I * 4 + X];
                    const int32_t xd = last ? P[kLast + D] : P[D * 4 + X];
                    int32_t b = P[kXX];
                    int k = 0;
                    if (kd + xd > b) b = kd + xd, k = 3;
                    if (km + xm > b) b = km + xm, k = 1;
                    if (ki + xi > b) b = ki + xi, k = 2;
                    if (b > score) {
                        score = b;
                        se = iseq;
                        fpos = k == 1 ? kpos : k == 3 ? kiod_old : ioi_old;
                    }
                }
                kopd = vd;
                kiod = pd;
                kpos = jpos;
                const int32_t t2 = min(min(pi.pb, pm.pb), pd.pb);
                fa = min(fa, t2);
                if (p > n1) fb = min(fb, t2);
                fc = min(fc, min(min(pi.sb, pm.sb), pd.sb));
                /* after the row: the protected range's positions */
                if (inside || p + 1 == n1) {
                    pm.pb = min(pm.pb, in);
                    pm.pe = in;
                }
                if (inside) {
                    pi.pb = min(pi.pb, in);
                    pi.pe = in;
                }
                R(p, M) = vm, R(p, I) = vi;
                put(p, kOm, pm);
                put(p, kOi, pi);
                cM = nM, cI = nI, cOm = nOm, cOi = nOi;
            }
        }
        if (init) { /* a pass begins at ibeg */
            score = kLow;
            se = pb = pe = sb = 0;
            last_cp = ibeg;
            first_cp = ibeg + 1;
            next_cp = last_cp + jlcp;
            iseq = ibeg + 1;
            mode = iseq <= n ? ROW : DONE;
        } else if (step) { /* ps_profile_matches' decisions after the row */
            pb = fpos.pb;
            pe = fpos.pe;
            sb = fpos.sb;
            bool next_pass = false;
            if (score >= cut) {
                if (fa > pe || iseq == n) {
                    if (pb == 0) pb = sb;
                    if (pe == 0) pe = iseq;
                    if (pe < pb) {
                        mode = DONE;
                    } else if (found == PS_GPROF_MATCHES) {
                        over = true;
                        mode = DONE;
                    } else {
                        int32_t *o = mo + found * kMo;
                        o[0] = sb, o[1] = se, o[2] = score;
                        o[3] = pb, o[4] = pe < n + 1 ? pe : n + 1;
                        found++;
                        next_pass = true;
                        mode = INIT;
                    }
                }
            } else if (iseq >= next_cp) {
                if (fb >= last_cp) {
                    ibeg = first_cp - 1;
                    first_cp = fc;
                    last_cp = iseq;
                }
                next_cp += jlcp;
            }
            if (mode == ROW && !next_pass && ++iseq > n) mode = DONE;
        }
    }
#undef R
    if (sp.out != kNoPair) n_match[sp.out] = over ? -1 : found;
}

/* Grows a device buffer to hold `need` elements (its contents are not kept). */
template <typename T> cudaError_t grow(T **p, uint64_t *cap, uint64_t need)
{
    if (need <= *cap) return cudaSuccess;
    cudaFree(*p);
    *p = NULL;
    *cap = 0;
    cudaError_t ce = cudaMalloc(p, need * sizeof(T));
    if (ce == cudaSuccess) *cap = need;
    return ce;
}

int fail(ps_err_t *err, cudaError_t e, const char *what)
{
    return ps_fail(err, PS_E_GPU, "GPU error: %s: %s", what, cudaGetErrorString(e));
}

} // namespace

struct ps_gprof {
    int device;
    uint32_t n_prof, max_len;
    size_t smem; /* the longest profile's tables */
    int16_t *d_tabs;
    uint64_t *d_tab_off;
    uint32_t *d_plen, *d_row;
    uint8_t *d_maps;
    /* One batch's buffers, grown as needed. */
    uint8_t *d_letters;
    uint64_t cap_letters;
    uint64_t *d_off;
    uint32_t *d_len, *d_idx; /* the batch's sequences, longest first, and their places */
    int32_t *d_best;
    uint32_t cap_seq;
    int32_t *d_scratch;
    uint64_t scratch_threads;
    uint32_t grid_x;
    /* The search: its own stream and buffers (it runs beside the best
     * scores of the next batch), each profile's slot and length. */
    cudaStream_t stream;
    uint32_t *d_pn12;
    uint32_t *slot, *len_of; /* profile i's slot; slot k's length */
    uint8_t *d_sletters;
    uint64_t cap_sletters;
    SPair *d_pairs;
    int32_t *d_nmatch, *d_match;
    uint32_t cap_pairs;
    int32_t *d_sscratch;
    uint64_t cap_sscratch;
};

extern "C" void ps_gprof_free(ps_gprof_t *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    cudaFree(g->d_tabs);
    cudaFree(g->d_tab_off);
    cudaFree(g->d_plen);
    cudaFree(g->d_row);
    cudaFree(g->d_maps);
    cudaFree(g->d_letters);
    cudaFree(g->d_off);
    cudaFree(g->d_len);
    cudaFree(g->d_idx);
    cudaFree(g->d_best);
    cudaFree(g->d_scratch);
    cudaFree(g->d_pn12);
    cudaFree(g->d_sletters);
    cudaFree(g->d_pairs);
    cudaFree(g->d_nmatch);
    cudaFree(g->d_match);
    cudaFree(g->d_sscratch);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g->slot);
    free(g->len_of);
    free(g);
}

extern "C" int ps_gprof_new(ps_gprof_t **out, const ps_profile_t *prs, uint32_t n_prof, int gpu_id, ps_err_t *err)
{
    *out = NULL;
    char why[384];
    if (!ps_gpu_usable(gpu_id, why, sizeof why))
        return ps_fail(err, PS_E_GPU, "GPU profile engine unavailable: %s", why);
    cudaError_t ce;
    if ((ce = cudaSetDevice(gpu_id)) != cudaSuccess) return fail(err, ce, "cudaSetDevice");
    ps_gprof_t *g = (ps_gprof_t *)calloc(1, sizeof *g);
    if (!g) return ps_fail(err, PS_E_NOMEM, "out of memory");
    g->device = gpu_id;
    g->n_prof = n_prof;
    uint64_t total = 0;
    uint64_t *off = (uint64_t *)malloc(sizeof *off * n_prof);
    uint32_t *plen = (uint32_t *)malloc(sizeof *plen * n_prof);
    uint32_t *row = (uint32_t *)malloc(sizeof *row * n_prof);
    uint8_t *maps = (uint8_t *)malloc(26u * n_prof);
    uint32_t *pn12 = (uint32_t *)malloc(sizeof *pn12 * 2 * n_prof);
    g->slot = (uint32_t *)malloc(sizeof *g->slot * n_prof);
    g->len_of = (uint32_t *)malloc(sizeof *g->len_of * n_prof);
    int rc = 0;
    if (!off || !plen || !row || !maps || !pn12 || !g->slot || !g->len_of) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    /* Longest first (insertion sort: a few hundred profiles), so that the
     * blocks that take longest start first; row[] maps back. */
    for (uint32_t k = 0; rc == 0 && k < n_prof; k++) {
        uint32_t i = k;
        while (i > 0 && prs[row[i - 1]].len < prs[k].len) {
            row[i] = row[i - 1];
            i--;
        }
        row[i] = k;
    }
    for (uint32_t k = 0; rc == 0 && k < n_prof; k++) {
        const ps_profile_t *pr = &prs[row[k]];
        off[k] = total;
        plen[k] = pr->len;
        pn12[2 * k] = pr->n1;
        pn12[2 * k + 1] = pr->n2;
        g->slot[row[k]] = k;
        g->len_of[k] = pr->len;
        memcpy(maps + 26u * k, pr->map, 26);
        total += (uint64_t)(pr->len + 1) * kStride;
        if (pr->len > g->max_len) g->max_len = pr->len;
    }
    int16_t *tabs = rc == 0 ? (int16_t *)calloc(total, sizeof *tabs) : NULL;
    if (rc == 0 && !tabs) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t k = 0; rc == 0 && k < n_prof; k++) {
        const ps_profile_t *pr = &prs[row[k]];
        for (uint32_t p = 0; p <= pr->len; p++) {
            int16_t *P = tabs + off[k] + (uint64_t)p * kStride;
            for (int i = 0; i < 16; i++) P[i] = (int16_t)pr->trans[(size_t)p * 16 + i];
            P[kDel] = (int16_t)(p ? pr->match[(size_t)(p - 1) * 28 + 27] : 0);
            P[kXX] = (int16_t)pr->trans[(size_t)p * 16 + PS_PRF_X * 4 + PS_PRF_X];
            for (int c = 0; c < PS_PRF_LETTERS; c++) {
                P[kMs + c] = (int16_t)(p ? pr->match[(size_t)(p - 1) * 28 + c] : 0);
                P[kIs + c] = (int16_t)pr->ins[(size_t)p * 28 + c];
            }
            for (int t = 0; t < 3; t++) {
                P[kFirst + t] = (int16_t)pr->first[p * 4 + t];
                P[kLast + t] = (int16_t)pr->last[p * 4 + t];
            }
        }
    }
    g->smem = (size_t)(g->max_len + 1) * kStride * sizeof(int16_t);
    if (rc == 0 && (ce = cudaFuncSetAttribute(best_kernel<kRows>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int)g->smem)) != cudaSuccess)
        rc = fail(err, ce, "a profile's tables in shared memory");
    if (rc == 0 && ((ce = cudaMalloc(&g->d_tabs, total * sizeof *tabs)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_tab_off, sizeof *off * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_plen, sizeof *plen * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_row, sizeof *row * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_maps, 26u * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_pn12, sizeof *pn12 * 2 * n_prof)) != cudaSuccess))
        rc = fail(err, ce, "cudaMalloc (profiles)");
    /* The search's few warps first, where both kernels wait for room. */
    int least = 0, greatest = 0;
    if (rc == 0 && ((ce = cudaDeviceGetStreamPriorityRange(&least, &greatest)) != cudaSuccess ||
                    (ce = cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, greatest)) != cudaSuccess))
        rc = fail(err, ce, "cudaStreamCreate");
    if (rc == 0 && ((ce = cudaMemcpy(g->d_tabs, tabs, total * sizeof *tabs, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_tab_off, off, sizeof *off * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_plen, plen, sizeof *plen * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_row, row, sizeof *row * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_maps, maps, 26u * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_pn12, pn12, sizeof *pn12 * 2 * n_prof, cudaMemcpyHostToDevice)) !=
                        cudaSuccess))
        rc = fail(err, ce, "cudaMemcpy (profiles)");
    /* Enough blocks a profile to fill the GPU, the scratch rows at most 1 GB. */
    if (rc == 0) {
        int sms = 1;
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu_id);
        uint32_t gx = (uint32_t)(sms * 8 + n_prof - 1) / n_prof;
        const uint64_t per_thread = (uint64_t)(g->max_len + 1) * 2 * sizeof(int32_t);
        while (gx > 1 && (uint64_t)gx * kThreads * n_prof * per_thread > (1ull << 30)) gx--;
        g->grid_x = gx ? gx : 1;
        g->scratch_threads = (uint64_t)g->grid_x * kThreads * n_prof;
        if ((ce = cudaMalloc(&g->d_scratch, g->scratch_threads * per_thread)) != cudaSuccess)
            rc = fail(err, ce, "cudaMalloc (rows)");
    }
    free(tabs);
    free(off);
    free(plen);
    free(row);
    free(maps);
    free(pn12);
    if (rc < 0) {
        ps_gprof_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

extern "C" int ps_gprof_best(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const uint64_t *off,
                             const uint32_t *len, uint32_t n_seq, int32_t *best, ps_err_t *err)
{
    if (n_seq == 0) return 0;
    cudaError_t ce;
    if ((ce = cudaSetDevice(g->device)) != cudaSuccess) return fail(err, ce, "cudaSetDevice");
    if ((ce = grow(&g->d_letters, &g->cap_letters, n_letters + 1)) != cudaSuccess)
        return fail(err, ce, "cudaMalloc (residues)");
    if (n_seq > g->cap_seq) {
        cudaFree(g->d_off);
        cudaFree(g->d_len);
        cudaFree(g->d_idx);
        cudaFree(g->d_best);
        g->d_off = NULL;
        g->d_len = g->d_idx = NULL;
        g->d_best = NULL;
        g->cap_seq = 0;
        if ((ce = cudaMalloc(&g->d_off, sizeof *off * n_seq)) != cudaSuccess ||
            (ce = cudaMalloc(&g->d_len, sizeof *len * n_seq)) != cudaSuccess ||
            (ce = cudaMalloc(&g->d_idx, sizeof *len * n_seq)) != cudaSuccess ||
            (ce = cudaMalloc(&g->d_best, sizeof *best * (uint64_t)n_seq * g->n_prof)) != cudaSuccess)
            return fail(err, ce, "cudaMalloc (sequences)");
        g->cap_seq = n_seq;
    }
    /* The sequences longest first (measured: a warp's lanes waited for the
     * longest of 32 sequences in file order). */
    uint32_t *idx = (uint32_t *)malloc(sizeof *idx * n_seq), *slen = (uint32_t *)malloc(sizeof *slen * n_seq);
    uint64_t *soff = (uint64_t *)malloc(sizeof *soff * n_seq);
    if (!idx || !slen || !soff) {
        free(idx);
        free(slen);
        free(soff);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    for (uint32_t s = 0; s < n_seq; s++) idx[s] = s;
    qsort_r(idx, n_seq, sizeof *idx,
            [](const void *a, const void *b, void *c) -> int {
                const uint32_t *l = (const uint32_t *)c, x = *(const uint32_t *)a, y = *(const uint32_t *)b;
                if (l[x] != l[y]) return l[x] > l[y] ? -1 : 1;
                return (x > y) - (x < y);
            },
            (void *)len);
    for (uint32_t s = 0; s < n_seq; s++) {
        soff[s] = off[idx[s]];
        slen[s] = len[idx[s]];
    }
    if ((ce = cudaMemcpy(g->d_letters, letters, n_letters, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->d_off, soff, sizeof *off * n_seq, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->d_len, slen, sizeof *len * n_seq, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->d_idx, idx, sizeof *idx * n_seq, cudaMemcpyHostToDevice)) != cudaSuccess) {
        free(idx);
        free(slen);
        free(soff);
        return fail(err, ce, "cudaMemcpy (sequences)");
    }
    free(idx);
    free(slen);
    free(soff);
    /* One launch for every profile, the long ones first: they then run
     * beside the short ones (launched apart by length, the few long ones left
     * the GPU idle: 7.0 s against 4.6 s over 18 M residues). */
    const dim3 grid(g->grid_x, g->n_prof);
    best_kernel<kRows><<<grid, kThreads, g->smem>>>(g->d_tabs, g->d_tab_off, g->d_plen, g->d_maps, g->d_row,
                                                     g->d_letters, g->d_off, g->d_len, g->d_idx, n_seq, g->d_scratch,
                                                     g->scratch_threads, g->d_best);
    if ((ce = cudaGetLastError()) != cudaSuccess) return fail(err, ce, "profile kernel launch");
    if ((ce = cudaMemcpy(best, g->d_best, sizeof *best * (uint64_t)n_seq * g->n_prof, cudaMemcpyDeviceToHost)) !=
        cudaSuccess)
        return fail(err, ce, "profile kernel");
    return 0;
}


extern "C" int ps_gprof_matches(ps_gprof_t *g, const uint8_t *letters, uint64_t n_letters, const ps_gprof_pair_t *pairs,
                                uint32_t n_pair, int32_t *n_match, ps_prf_match_t *match, ps_err_t *err)
{
    if (n_pair == 0) return 0;
    cudaError_t ce;
    if ((ce = cudaSetDevice(g->device)) != cudaSuccess) return fail(err, ce, "cudaSetDevice");
    /* By profile slot, then the longest sequences first: a warp's lanes
     * walk one profile together and end at about the same time. Each
     * profile's last warp is filled with empty lanes. */
    const uint64_t max_thr = (uint64_t)n_pair + (kLanes - 1ull) * (n_pair < g->n_prof ? n_pair : g->n_prof);
    uint32_t *order = (uint32_t *)malloc(sizeof *order * n_pair);
    SPair *sp = (SPair *)malloc(sizeof *sp * max_thr);
    int32_t *mo = (int32_t *)malloc(sizeof *mo * (size_t)n_pair * PS_GPROF_MATCHES * kMo);
    int rc = order && sp && mo ? 0 : ps_fail(err, PS_E_NOMEM, "out of memory");
    uint64_t rows = 0;
    uint32_t n_thr = 0;
    if (rc == 0) {
        for (uint32_t i = 0; i < n_pair; i++) order[i] = i;
        const void *ctx[2] = {g, pairs};
        qsort_r(order, n_pair, sizeof *order,
                [](const void *a, const void *b, void *c) -> int {
                    const ps_gprof_t *gg = (const ps_gprof_t *)((const void **)c)[0];
                    const ps_gprof_pair_t *pp = (const ps_gprof_pair_t *)((const void **)c)[1];
                    const uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
                    const ps_gprof_pair_t *x = &pp[ia], *y = &pp[ib];
                    const uint32_t kx = gg->slot[x->prof], ky = gg->slot[y->prof];
                    if (kx != ky) return kx < ky ? -1 : 1;
                    if (x->len != y->len) return x->len > y->len ? -1 : 1;
                    return (ia > ib) - (ia < ib);
                },
                (void *)ctx);
        for (uint32_t i = 0; i < n_pair;) {
            const uint32_t k = g->slot[pairs[order[i]].prof], L = g->len_of[k];
            uint32_t l = 0;
            for (; l < kLanes && i < n_pair && g->slot[pairs[order[i]].prof] == k; l++, i++) {
                const ps_gprof_pair_t *p = &pairs[order[i]];
                sp[n_thr + l] = SPair{p->off, rows + l, p->len, k, p->cut, order[i]};
            }
            for (; l < kLanes; l++) sp[n_thr + l] = SPair{0, rows + l, 0, k, 0, kNoPair};
            n_thr += kLanes;
            rows += (uint64_t)(L + 1) * kFields * kLanes;
        }
    }
    if (rc == 0 && ((ce = grow(&g->d_sletters, &g->cap_sletters, n_letters + 1)) != cudaSuccess ||
                    (ce = grow(&g->d_sscratch, &g->cap_sscratch, rows)) != cudaSuccess))
        rc = fail(err, ce, "cudaMalloc (search)");
    if (rc == 0 && max_thr > g->cap_pairs) { /* room for max_thr lanes, and as many pairs' matches */
        uint64_t c1 = 0, c2 = 0, c3 = 0;
        g->cap_pairs = 0;
        if ((ce = grow(&g->d_pairs, &c1, max_thr)) != cudaSuccess || (ce = grow(&g->d_nmatch, &c2, max_thr)) != cudaSuccess ||
            (ce = grow(&g->d_match, &c3, max_thr * PS_GPROF_MATCHES * kMo)) != cudaSuccess)
            rc = fail(err, ce, "cudaMalloc (search)");
        else g->cap_pairs = (uint32_t)max_thr;
    }
    if (rc == 0 &&
        ((ce = cudaMemcpyAsync(g->d_sletters, letters, n_letters, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess ||
         (ce = cudaMemcpyAsync(g->d_pairs, sp, sizeof *sp * n_thr, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess))
        rc = fail(err, ce, "cudaMemcpy (search)");
    if (rc == 0) {
        constexpr int kBlock = 64;
        search_kernel<<<(n_thr + kBlock - 1) / kBlock, kBlock, 0, g->stream>>>(
            g->d_tabs, g->d_tab_off, g->d_plen, g->d_pn12, g->d_maps, g->d_sletters, g->d_pairs, n_thr, g->d_sscratch,
            g->d_nmatch, g->d_match);
        if ((ce = cudaGetLastError()) != cudaSuccess) rc = fail(err, ce, "search kernel launch");
    }
    if (rc == 0 &&
        ((ce = cudaMemcpyAsync(n_match, g->d_nmatch, sizeof *n_match * n_pair, cudaMemcpyDeviceToHost, g->stream)) !=
             cudaSuccess ||
         (ce = cudaMemcpyAsync(mo, g->d_match, sizeof *mo * (size_t)n_pair * PS_GPROF_MATCHES * kMo,
                               cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess ||
         (ce = cudaStreamSynchronize(g->stream)) != cudaSuccess))
        rc = fail(err, ce, "search kernel");
    for (uint32_t i = 0; rc == 0 && i < n_pair; i++)
        for (int32_t m = 0; m < n_match[i]; m++) {
            const int32_t *o = mo + ((size_t)i * PS_GPROF_MATCHES + (size_t)m) * kMo;
            match[(size_t)i * PS_GPROF_MATCHES + (size_t)m] = ps_prf_match_t{(uint32_t)o[0], (uint32_t)o[1], 0, 0, o[2]};
        }
    free(order);
    free(sp);
    free(mo);
    return rc;
}
