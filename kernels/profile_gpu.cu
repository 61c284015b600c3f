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

__host__ __device__ __forceinline__ int32_t mx(int32_t a, int32_t b) { return a > b ? a : b; }

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
 * best is row[y]), sequences from + x, from + x + gridDim.x ... (a thread
 * each; those before `from` are wave_best_kernel's), the
 * sequences longest first (sequence s is the caller's idx[s]): a warp's
 * lanes take sequences of about one length, and none waits long for
 * another's. */
template <int kRows>
__global__ void best_kernel(const int16_t *tabs, const uint64_t *tab_off, const uint32_t *plen, const uint8_t *maps,
                            const uint32_t *row, const uint8_t *letters, const uint64_t *off,
                            const uint32_t *len, const uint32_t *idx, uint32_t from, uint32_t n_seq, int32_t *scratch,
                            uint64_t stride, int32_t *best)
{
    extern __shared__ int16_t sm[];
    __shared__ uint8_t map[26];
    const uint32_t prof = blockIdx.y, L = plen[prof];
    const int16_t *tab = tabs + tab_off[prof];
    for (uint32_t i = threadIdx.x; i < (L + 1) * (uint32_t)kStride; i += blockDim.x) sm[i] = tab[i];
    if (threadIdx.x < 26) map[threadIdx.x] = maps[prof * 26 + threadIdx.x];
    __syncthreads();
    const uint64_t gt = ((uint64_t)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    for (uint32_t s = from + blockIdx.x * blockDim.x + threadIdx.x; s < n_seq; s += gridDim.x * blockDim.x)
        best[(uint64_t)row[prof] * n_seq + idx[s]] =
            seq_best<kRows>(sm, L, map, letters + off[s], len[s], scratch + gt, stride);
}

/* ---- the search (pfscanV3's xalip): a warp a pair, as a wavefront ----
 *
 * A pair's rows are those of ps_profile_matches (profile_dp.c: the same
 * terms in the same order, so that ties go the same way), and lane t of
 * its warp holds the profile positions of strip t, S = ceil((L + 1) / 32)
 * of them in order, their row (M, I and the positions of iom and ioi) in
 * shared memory. A row's only dependence along the profile is the deletion
 * running from one position to the next (and the match's diagonal), so lane
 * t takes row v one step after lane t - 1 has: at step u of a pass, lane t
 * is at row u - t (row 0: the pass's first row, init_row), and hands lane
 * t + 1 what its strip's last position gives the next one (a Link), with
 * the row's best exit and its least pointers so far. Lane 31 so holds each
 * row whole 31 steps after lane 0 began it, and takes ps_profile_matches'
 * decisions there (Judge). A match accepted ends the pass: the rows the
 * other lanes had begun beyond it are dropped, and the next pass starts at
 * step 0 from its first row, which rewrites every position. Locked residues
 * and the protected range's pointers are applied as a position is read and
 * written, which leaves every value as profile_dp.c has it.
 *
 * The lanes' code (strip_row, judge_*) runs on the host too, lane after
 * lane (ps_gprof_matches_host), which is how the tests check it where no
 * GPU is. */

__host__ __device__ __forceinline__ int32_t mn(int32_t a, int32_t b) { return a < b ? a : b; }

struct Pos {
    int32_t pb, pe, sb; /* protected begin and end, sequence begin */
};

/* A position's fields in a warp's strips, field f of strip position k of
 * lane t at ((k * kFields + f) * 32 + t): M, I, then iom's and ioi's
 * pointers (pb, pe, sb). */
constexpr int kOm = 2, kOi = 5, kFields = 8;
constexpr int kWarp = 32;
constexpr int kMo = 5; /* a match as the kernel keeps it: from, to, score, locked residues lo, hi */

/* What a lane hands the next after its strip of a row. */
struct Link {
    int32_t m, kd; /* the row before's M at the strip's last position (as read: locked, floored), this row's D there */
    Pos mp, dp;    /* their pointers (iom there, and the deletion's) */
    int32_t rb;    /* the row's best exit at the positions so far (the first of equals; INT32_MIN: none yet) */
    Pos rp;        /* its pointers */
    int32_t fa, fb, fc; /* the row's least pointers so far (ps_profile_matches' fa, fb, fc) */
};

/* The search's copy of a profile's table, laid out for the strips: value
 * f of position p = t * S + k at ((k * kStride + f) * 32 + t), so that a
 * warp's lanes, each at strip position k, read one line (a residue's
 * scores, each lane at its own residue, excepted). */
__host__ __device__ __forceinline__ size_t strip_at(uint32_t t, uint32_t k, int f)
{
    return ((size_t)k * kStride + (size_t)f) * kWarp + t;
}

__host__ __device__ __forceinline__ size_t wave_at(uint32_t S, uint32_t p, int f) { return strip_at(p / S, p % S, f); }

/* Lane t's values of its strip position k. */
struct Col {
    const int16_t *b;
    __host__ __device__ __forceinline__ int32_t operator[](int f) const
    {
#ifdef __CUDA_ARCH__
        return __ldg(b + (size_t)f * kWarp);
#else
        return b[(size_t)f * kWarp];
#endif
    }
};

/* One pair as its warp sees it. */
struct Wave {
    const int16_t *tab; /* the profile's table for the strips (wave_at) */
    const uint8_t *map, *seq;
    int32_t L, n1, n2, S, n, cut;
};

/* Lane t's values at its strip position k, and where its strip (from q0
 * = t * S) ends. */
__host__ __device__ __forceinline__ Col col(const Wave &w, int t, int32_t k) { return Col{w.tab + strip_at(t, k, 0)}; }
__host__ __device__ __forceinline__ int32_t strip_end(const Wave &w, int32_t q0)
{
    return q0 + w.S < w.L + 1 ? q0 + w.S : w.L + 1;
}

/* Lane t's strip of row v of the pass that began at residue `base` (v 0:
 * its first row; else residue base + v, `locked` where that residue is). */
__host__ __device__ __forceinline__ Link strip_row(const Wave &w, int32_t *st, int t, int32_t v, int32_t base,
                                                   bool locked, const Link &in)
{
    const int32_t q0 = t * w.S, q1 = strip_end(w, q0);
    if (q0 >= q1) return in; /* an empty strip */
    const int32_t n = w.n, n1 = w.n1, n2 = w.n2;
#define SV(k, f) st[((size_t)(k) * kFields + (f)) * kWarp + (size_t)t]
    const auto get = [&](int32_t k, int f) { return Pos{SV(k, f), SV(k, f + 1), SV(k, f + 2)}; };
    const auto put = [&](int32_t k, int f, const Pos &x) { SV(k, f) = x.pb, SV(k, f + 1) = x.pe, SV(k, f + 2) = x.sb; };
    Link out = in;
    if (v == 0) { /* init_row */
        const bool at_start = base < 1;
        const Pos unprot = {n + 1, 0, base + 1}, prot = {base + 1, base + 1, base + 1};
        int32_t kopd = in.kd;
        for (int32_t p = q0; p < q1; p++) {
            const int32_t k = p - q0;
            const Col P = col(w, t, k);
            if (p == 0) {
                SV(k, M) = at_start ? P[kFirst + M] : P[X * 4 + M];
                SV(k, I) = at_start ? P[kFirst + I] : P[X * 4 + I];
                kopd = at_start ? P[kFirst + D] : P[X * 4 + D];
            } else {
                const int32_t kd = kopd + P[kDel];
                int32_t vv[3];
                for (int s = 0; s < 3; s++) {
                    const int32_t e = at_start ? P[kFirst + s] : P[X * 4 + s], d = kd + P[D * 4 + s];
                    vv[s] = d > e ? d : e;
                }
                SV(k, M) = vv[M], SV(k, I) = vv[I];
                kopd = vv[D];
            }
            const bool inside = p >= n1 && p < n2;
            put(k, kOm, inside || p + 1 == n1 ? prot : unprot);
            put(k, kOi, inside ? prot : unprot);
        }
        out.kd = kopd;
        return out;
    }
    const int32_t iseq = base + v, in1 = iseq + 1;
    const bool last = iseq == n;
    const int c = w.map[w.seq[iseq - 1]];
    const Pos temp = {n + 1, 0, in1};
    int32_t kopm = in.m, kopd = in.kd, rb = q0 == 0 ? INT32_MIN : in.rb, fa = in.fa, fb = in.fb, fc = in.fc;
    Pos kpos = in.mp, kiod = in.dp, rp = in.rp;
    for (int32_t p = q0; p < q1; p++) {
        const int32_t k = p - q0;
        const Col P = col(w, t, k);
        const bool inside = p >= n1 && p < n2, mprot = inside || p + 1 == n1;
        /* the row before as this row reads it: a locked residue's protected range held at the floor */
        const int32_t oldM = locked && mprot ? kLow : SV(k, M), oldI = locked && inside ? kLow : SV(k, I);
        const Pos jpos = get(k, kOm), ioi_old = get(k, kOi);
        if (p == 0) {
            const int32_t ki0 = oldI + P[kIs + c];
            int32_t ji = ki0 + P[I * 4 + M], x = P[X * 4 + M];
            Pos m0 = ji > x ? ioi_old : temp;
            SV(k, M) = ji > x ? ji : x;
            ji = ki0 + P[I * 4 + D], x = P[X * 4 + D];
            kopd = ji > x ? ji : x;
            kiod = ji > x ? ioi_old : temp;
            ji = ki0 + P[I * 4 + I], x = P[X * 4 + I];
            Pos o0 = ji > x ? ioi_old : temp;
            SV(k, I) = ji > x ? ji : x;
            fa = fb = iseq;
            fc = mn(mn(o0.sb, m0.sb), kiod.sb);
            if (mprot) m0.pb = mn(m0.pb, in1), m0.pe = in1;
            if (inside) o0.pb = mn(o0.pb, in1), o0.pe = in1;
            put(k, kOm, m0);
            put(k, kOi, o0);
            kopm = oldM;
            kpos = jpos;
            continue;
        }
        const int32_t km = kopm + P[kMs + c], ki = oldI + P[kIs + c], kd = kopd + P[kDel];
        const Pos kiod_old = kiod;
        int32_t vm, vi, vd;
        Pos pm, pi, pd;
#define BEST(s, b, bp, take_d)                                                                                         \
    do {                                                                                                               \
        b = P[X * 4 + (s)];                                                                                            \
        bp = temp;                                                                                                     \
        if (kd + P[D * 4 + (s)] > b) b = kd + P[D * 4 + (s)], bp = take_d;                                            \
        if (km + P[M * 4 + (s)] > b) b = km + P[M * 4 + (s)], bp = kpos;                                              \
        if (ki + P[I * 4 + (s)] > b) b = ki + P[I * 4 + (s)], bp = ioi_old;                                           \
    } while (0)
        BEST(M, vm, pm, kiod_old);
        BEST(D, vd, pd, kiod_old);
        BEST(I, vi, pi, pd);
#undef BEST
        { /* the exit: the last row's own transitions out */
            const int32_t xm = last ? P[kLast + M] : P[M * 4 + X];
            const int32_t xi = last ? P[kLast + I] : P[I * 4 + X];
            const int32_t xd = last ? P[kLast + D] : P[D * 4 + X];
            int32_t b = P[kXX];
            int e = 0;
            if (kd + xd > b) b = kd + xd, e = 3;
            if (km + xm > b) b = km + xm, e = 1;
            if (ki + xi > b) b = ki + xi, e = 2;
            if (b > rb) {
                rb = b;
                rp = e == 1 ? kpos : e == 3 ? kiod_old : ioi_old;
            }
        }
        kopm = oldM;
        kopd = vd;
        kiod = pd;
        kpos = jpos;
        const int32_t t2 = mn(mn(pi.pb, pm.pb), pd.pb);
        fa = mn(fa, t2);
        if (p > n1) fb = mn(fb, t2);
        fc = mn(fc, mn(mn(pi.sb, pm.sb), pd.sb));
        /* after the row: the protected range's pointers */
        if (mprot) pm.pb = mn(pm.pb, in1), pm.pe = in1;
        if (inside) pi.pb = mn(pi.pb, in1), pi.pe = in1;
        SV(k, M) = vm, SV(k, I) = vi;
        put(k, kOm, pm);
        put(k, kOi, pi);
    }
#undef SV
    out.m = kopm, out.kd = kopd, out.mp = kpos, out.dp = kiod;
    out.rb = rb, out.rp = rp, out.fa = fa, out.fb = fb, out.fc = fc;
    return out;
}

/* Lane 31's part: ps_profile_matches' locals across a pair's passes, and
 * its decisions after each row. */
struct Judge {
    int32_t ibeg, score, se, pb, pe, sb, last_cp, first_cp, next_cp;
};
enum { kGo = 0, kRestart = 1, kStop = 2 };

/* After a pass's first row: kStop where no row is left. */
__host__ __device__ __forceinline__ int judge_init(Judge &j, int32_t base, int32_t n, int32_t jlcp)
{
    j.score = kLow;
    j.se = j.pb = j.pe = j.sb = 0;
    j.last_cp = base;
    j.first_cp = base + 1;
    j.next_cp = base + jlcp;
    return base + 1 <= n ? kGo : kStop;
}

/* After row iseq, whole in o: kRestart with the match in m (from, to,
 * score, locked lo, hi), kStop, or kGo. */
__host__ __device__ __forceinline__ int judge_row(Judge &j, const Link &o, int32_t iseq, int32_t n, int32_t cut,
                                                  int32_t jlcp, int32_t *m)
{
    if (o.rb > j.score) {
        j.score = o.rb;
        j.se = iseq;
        j.pb = o.rp.pb, j.pe = o.rp.pe, j.sb = o.rp.sb;
    }
    if (j.score >= cut) {
        if (o.fa > j.pe || iseq == n) {
            if (j.pb == 0) j.pb = j.sb;
            if (j.pe == 0) j.pe = iseq;
            if (j.pe < j.pb) return kStop; /* pftools stops here with an error: the matches so far */
            m[0] = j.sb, m[1] = j.se, m[2] = j.score, m[3] = j.pb, m[4] = j.pe < n + 1 ? j.pe : n + 1;
            return kRestart;
        }
    } else if (iseq >= j.next_cp) {
        if (o.fb >= j.last_cp) {
            j.ibeg = j.first_cp - 1;
            j.first_cp = o.fc;
            j.last_cp = iseq;
        }
        j.next_cp += jlcp;
    }
    return iseq == n ? kStop : kGo;
}

/* Whether residue iseq is in one of the first `found` matches' locked ranges. */
__host__ __device__ __forceinline__ bool is_locked(const int32_t *lk, int found, int32_t iseq)
{
    bool l = false;
    for (int m = 0; m < found; m++) l |= iseq >= lk[2 * m] && iseq <= lk[2 * m + 1];
    return l;
}

/* Lane 31 after row v of the pass from `base` (o: the row whole): its
 * decision; a match accepted goes to mo and its locked range to lk (the
 * found-th), unless `found` is already PS_GPROF_MATCHES (*over, kStop). */
__host__ __device__ __forceinline__ int judge(Judge &j, const Wave &w, int32_t v, int32_t base, const Link &o,
                                              int found, bool *over, int32_t *mo, int32_t *lk)
{
    const int32_t jlcp = w.L / 2;
    int32_t m[kMo];
    int ctl = v == 0 ? judge_init(j, base, w.n, jlcp) : judge_row(j, o, base + v, w.n, w.cut, jlcp, m);
    if (ctl == kRestart && found == PS_GPROF_MATCHES) {
        *over = true;
        ctl = kStop;
    } else if (ctl == kRestart) {
        for (int f = 0; f < kMo; f++) mo[found * kMo + f] = m[f];
        lk[2 * found] = m[3], lk[2 * found + 1] = m[4];
    }
    return ctl;
}

/* Warps of `per_warp` bytes of shared memory a block: up to four, as
 * `most` allows (0: not one). */
__host__ __device__ __forceinline__ uint32_t warps_a_block(size_t per_warp, size_t most)
{
    uint32_t w = 4;
    while (w > 0 && w * per_warp > most) w--;
    return w;
}

/* A pair as the kernel takes it. */
struct WPair {
    uint64_t off;  /* residues */
    uint32_t len, k; /* residues; the profile's slot */
    int32_t cut;
    uint32_t out;  /* its index in the caller's order */
};

/* A warp's shared memory: its strips (S positions a lane), then its
 * matches' locked ranges. */
__host__ __device__ __forceinline__ size_t warp_ints(uint32_t S)
{
    return (size_t)S * kFields * kWarp + 2 * PS_GPROF_MATCHES;
}

__host__ __device__ __forceinline__ uint32_t strip_len(uint32_t L) { return (L + 1 + kWarp - 1) / kWarp; }

/* Warp i of the launch searches pair i (the costliest first); n_match and
 * match as ps_gprof_matches gives them (match: kMo ints a match). */
__global__ void wave_kernel(const int16_t *__restrict__ wtabs, const uint64_t *wtab_off, const uint32_t *plen,
                            const uint32_t *pn12, const uint8_t *maps, const uint8_t *letters, const WPair *pairs,
                            uint32_t n_pair, uint32_t s_max, int32_t *n_match, int32_t *match)
{
    extern __shared__ int32_t wsm[];
    const int t = (int)(threadIdx.x % kWarp);
    const uint32_t wi = threadIdx.x / kWarp, i = blockIdx.x * (blockDim.x / kWarp) + wi;
    if (i >= n_pair) return; /* the whole warp */
    const WPair wp = pairs[i];
    const Wave w = {wtabs + wtab_off[wp.k], maps + 26 * wp.k, letters + wp.off, (int32_t)plen[wp.k],
                    (int32_t)pn12[2 * wp.k], (int32_t)pn12[2 * wp.k + 1], (int32_t)strip_len(plen[wp.k]),
                    (int32_t)wp.len, wp.cut};
    int32_t *st = wsm + warp_ints(s_max) * wi, *lk = st + (size_t)s_max * kFields * kWarp;
    int32_t *mo = match + (size_t)wp.out * PS_GPROF_MATCHES * kMo;
    Judge j = {};
    int found = 0;
    bool over = false;
    int32_t base = 0;
    Link in = {};
    for (int32_t u = 0; w.n > 0; u++) {
        const int32_t v = u - t;
        const bool have = v >= 0 && base + v <= w.n;
        Link out = in;
        if (have) out = strip_row(w, st, t, v, base, v > 0 && is_locked(lk, found, base + v), in);
        int ctl = kGo;
        if (t == kWarp - 1 && have) ctl = judge(j, w, v, base, out, found, &over, mo, lk);
        ctl = __shfl_sync(0xffffffffu, ctl, kWarp - 1);
        if (ctl == kStop) break;
        if (ctl == kRestart) {
            __syncwarp(); /* lane 31's locked range, seen by all */
            found++;
            base = __shfl_sync(0xffffffffu, j.ibeg, kWarp - 1);
            u = -1;
            continue;
        }
#define UP(x) x = __shfl_up_sync(0xffffffffu, x, 1)
        UP(out.m), UP(out.kd), UP(out.mp.pb), UP(out.mp.pe), UP(out.mp.sb), UP(out.dp.pb), UP(out.dp.pe);
        UP(out.dp.sb), UP(out.rb), UP(out.rp.pb), UP(out.rp.pe), UP(out.rp.sb), UP(out.fa), UP(out.fb), UP(out.fc);
#undef UP
        in = out;
    }
    if (t == kWarp - 1) n_match[wp.out] = over ? -1 : found;
}

/* ---- the best scores of long sequences: a warp a pair, as a wavefront ----
 *
 * A thread of best_kernel takes a sequence alone, so a batch's few longest
 * sequences (a few thousand residues against the longest profiles) kept
 * its last threads busy long after the rest were done: capped at 3,000
 * residues, a batch's kernel took 0.14 s where it took 0.19 s, over 1% of
 * its residues fewer. Sequences from kWaveFrom residues are scored as the
 * search walks a pair (a warp a pair, lane t on strip t of the positions,
 * one row behind lane t - 1; rows of seq_best's terms in its order), their
 * rows' M and I in shared memory; a pair's best is the largest exit of any
 * lane. */
constexpr uint32_t kWaveFrom = PS_GPROF_WAVE_FROM;

/* Lane t's strip of row v (v 0: the row before the first residue; else
 * residue v - 1, the last where v == n); the lane's largest exit in *ex. */
__host__ __device__ __forceinline__ void best_row(const Wave &w, int32_t *st, int t, int32_t v, int32_t &kopm,
                                                  int32_t &kopd, int32_t *ex)
{
    const int32_t q0 = t * w.S, q1 = strip_end(w, q0);
    if (q0 >= q1) return;
#define SV(k, f) st[((size_t)(k) * 2 + (f)) * kWarp + (size_t)t]
    if (v == 0) {
        for (int32_t p = q0; p < q1; p++) {
            const int32_t k = p - q0;
            const Col P = col(w, t, k);
            if (p == 0) {
                SV(k, M) = P[kFirst + M], SV(k, I) = P[kFirst + I];
                kopd = P[kFirst + D];
            } else {
                const int32_t kd = kopd + P[kDel];
                SV(k, M) = mx(kd + P[D * 4 + M], P[kFirst + M]);
                SV(k, I) = mx(kd + P[D * 4 + I], P[kFirst + I]);
                kopd = mx(kd + P[D * 4 + D], P[kFirst + D]);
            }
        }
        return;
    }
    const bool last = v == w.n;
    const int c = w.map[w.seq[v - 1]];
    int32_t e = *ex;
    for (int32_t p = q0; p < q1; p++) {
        const int32_t k = p - q0;
        const Col P = col(w, t, k);
        const int32_t oldM = SV(k, M), oldI = SV(k, I);
        if (p == 0) {
            const int32_t ki = oldI + P[kIs + c];
            SV(k, M) = mx(ki + P[I * 4 + M], P[X * 4 + M]);
            SV(k, I) = mx(ki + P[I * 4 + I], P[X * 4 + I]);
            kopd = mx(ki + P[I * 4 + D], P[X * 4 + D]);
            e = mx(e, ki + (last ? P[kLast + I] : P[I * 4 + X]));
        } else {
            const int32_t km = kopm + P[kMs + c], ki = oldI + P[kIs + c], kd = kopd + P[kDel];
            SV(k, M) = mx(mx(km + P[M * 4 + M], ki + P[I * 4 + M]), mx(kd + P[D * 4 + M], P[X * 4 + M]));
            SV(k, I) = mx(mx(km + P[M * 4 + I], ki + P[I * 4 + I]), mx(kd + P[D * 4 + I], P[X * 4 + I]));
            kopd = mx(mx(km + P[M * 4 + D], ki + P[I * 4 + D]), mx(kd + P[D * 4 + D], P[X * 4 + D]));
            e = last ? mx(e, mx(mx(km + P[kLast + M], ki + P[kLast + I]), kd + P[kLast + D]))
                     : mx(e, mx(mx(km + P[M * 4 + X], ki + P[I * 4 + X]), kd + P[D * 4 + X]));
        }
        kopm = oldM;
    }
#undef SV
    *ex = e;
}

/* A warp's shared memory for best_row: M and I of its strips. */
__host__ __device__ __forceinline__ size_t best_warp_ints(uint32_t S) { return (size_t)S * 2 * kWarp; }

/* Warp i of the launch: sequence i / n_prof (the batch's i-th longest, s
 * in the kernel's order) against profile slot i % n_prof. */
__global__ void wave_best_kernel(const int16_t *__restrict__ wtabs, const uint64_t *wtab_off, const uint32_t *plen,
                                 const uint8_t *maps, const uint32_t *row, const uint8_t *letters, const uint64_t *off,
                                 const uint32_t *len, const uint32_t *idx, uint32_t n_long, uint32_t n_prof,
                                 uint32_t n_seq, uint32_t s_max, int32_t *best)
{
    extern __shared__ int32_t bsm[];
    const int t = (int)(threadIdx.x % kWarp);
    const uint32_t wi = threadIdx.x / kWarp, i = blockIdx.x * (blockDim.x / kWarp) + wi;
    if (i >= n_long * n_prof) return; /* the whole warp */
    const uint32_t s = i / n_prof, k = i % n_prof;
    const Wave w = {wtabs + wtab_off[k], maps + 26 * k, letters + off[s], (int32_t)plen[k], 0, 0,
                    (int32_t)strip_len(plen[k]), (int32_t)len[s], 0};
    int32_t *st = bsm + best_warp_ints(s_max) * wi;
    int32_t kopm = 0, kopd = 0, ex = kLow;
    /* Row v reaches lane t at step v + t; a lane hands its strip's last M
     * (the row before's) and D on. */
    for (int32_t u = 0; u < w.n + kWarp; u++) {
        const int32_t v = u - t;
        if (v >= 0 && v <= w.n) best_row(w, st, t, v, kopm, kopd, &ex);
        kopm = __shfl_up_sync(0xffffffffu, kopm, 1);
        kopd = __shfl_up_sync(0xffffffffu, kopd, 1);
    }
    for (int o = kWarp / 2; o > 0; o /= 2) ex = max(ex, __shfl_xor_sync(0xffffffffu, ex, o));
    if (t == 0) best[(uint64_t)row[k] * n_seq + idx[s]] = w.n ? ex : kLow;
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

/* A profile's table on the GPU: kStride int16 a position (pftools' values
 * fit 16 bits). */
void fill_table(const ps_profile_t *pr, int16_t *tab)
{
    for (uint32_t p = 0; p <= pr->len; p++) {
        int16_t *P = tab + (uint64_t)p * kStride;
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

/* The search's copy (wave_at) of table tab of a profile of length L. */
void fill_wave(const int16_t *tab, uint32_t L, int16_t *wt)
{
    const uint32_t S = strip_len(L);
    for (uint32_t p = 0; p <= L; p++)
        for (int f = 0; f < kStride; f++) wt[wave_at(S, p, f)] = tab[(size_t)p * kStride + (size_t)f];
}

} // namespace

struct ps_gprof {
    int device;
    uint32_t n_prof, max_len;
    size_t smem; /* the longest profile's tables */
    int16_t *d_tabs, *d_wtabs; /* the tables, and the search's copies (wave_at) */
    uint64_t *d_tab_off, *d_wtab_off;
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
    cudaStream_t stream, lstream; /* the search's; the long sequences' best scores */
    uint32_t best_wpb;            /* wave_best_kernel's warps a block (0: none fit; no wave) */
    uint32_t *d_pn12;
    uint32_t *slot, *len_of; /* profile i's slot; slot k's length */
    uint8_t *d_sletters;
    uint64_t cap_sletters;
    WPair *d_pairs;
    int32_t *d_nmatch, *d_match;
    uint32_t cap_pairs;
    size_t smem_optin; /* a block's shared memory at most */
};

extern "C" void ps_gprof_free(ps_gprof_t *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    cudaFree(g->d_tabs);
    cudaFree(g->d_tab_off);
    cudaFree(g->d_wtabs);
    cudaFree(g->d_wtab_off);
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
    if (g->stream) cudaStreamDestroy(g->stream);
    if (g->lstream) cudaStreamDestroy(g->lstream);
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
    uint64_t total = 0, wtotal = 0;
    uint64_t *off = (uint64_t *)malloc(sizeof *off * n_prof), *woff = (uint64_t *)malloc(sizeof *woff * n_prof);
    uint32_t *plen = (uint32_t *)malloc(sizeof *plen * n_prof);
    uint32_t *row = (uint32_t *)malloc(sizeof *row * n_prof);
    uint8_t *maps = (uint8_t *)malloc(26u * n_prof);
    uint32_t *pn12 = (uint32_t *)malloc(sizeof *pn12 * 2 * n_prof);
    g->slot = (uint32_t *)malloc(sizeof *g->slot * n_prof);
    g->len_of = (uint32_t *)malloc(sizeof *g->len_of * n_prof);
    int rc = 0;
    if (!off || !woff || !plen || !row || !maps || !pn12 || !g->slot || !g->len_of)
        rc = ps_fail(err, PS_E_NOMEM, "out of memory");
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
        woff[k] = wtotal;
        plen[k] = pr->len;
        pn12[2 * k] = pr->n1;
        pn12[2 * k + 1] = pr->n2;
        g->slot[row[k]] = k;
        g->len_of[k] = pr->len;
        memcpy(maps + 26u * k, pr->map, 26);
        total += (uint64_t)(pr->len + 1) * kStride;
        wtotal += (uint64_t)strip_len(pr->len) * kWarp * kStride;
        if (pr->len > g->max_len) g->max_len = pr->len;
    }
    int16_t *tabs = rc == 0 ? (int16_t *)calloc(total, sizeof *tabs) : NULL;
    int16_t *wtabs = rc == 0 ? (int16_t *)calloc(wtotal, sizeof *wtabs) : NULL;
    if (rc == 0 && (!tabs || !wtabs)) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t k = 0; rc == 0 && k < n_prof; k++) {
        fill_table(&prs[row[k]], tabs + off[k]);
        fill_wave(tabs + off[k], prs[row[k]].len, wtabs + woff[k]);
    }
    g->smem = (size_t)(g->max_len + 1) * kStride * sizeof(int16_t);
    if (rc == 0 && (ce = cudaFuncSetAttribute(best_kernel<kRows>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              (int)g->smem)) != cudaSuccess)
        rc = fail(err, ce, "a profile's tables in shared memory");
    if (rc == 0 && ((ce = cudaMalloc(&g->d_tabs, total * sizeof *tabs)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_tab_off, sizeof *off * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_wtabs, wtotal * sizeof *wtabs)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_wtab_off, sizeof *woff * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_plen, sizeof *plen * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_row, sizeof *row * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_maps, 26u * n_prof)) != cudaSuccess ||
                    (ce = cudaMalloc(&g->d_pn12, sizeof *pn12 * 2 * n_prof)) != cudaSuccess))
        rc = fail(err, ce, "cudaMalloc (profiles)");
    int optin = 0;
    if (rc == 0 && (ce = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu_id)) != cudaSuccess)
        rc = fail(err, ce, "cudaDeviceGetAttribute");
    g->smem_optin = (size_t)optin;
    /* The search's few warps first, where both kernels wait for room. */
    int least = 0, greatest = 0;
    if (rc == 0 && ((ce = cudaDeviceGetStreamPriorityRange(&least, &greatest)) != cudaSuccess ||
                    (ce = cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, greatest)) != cudaSuccess ||
                    (ce = cudaStreamCreateWithPriority(&g->lstream, cudaStreamNonBlocking, greatest)) != cudaSuccess))
        rc = fail(err, ce, "cudaStreamCreate");
    /* The warps' kernels may take a block's whole shared memory (each
     * launch asks for what its strips need); the long sequences' warps a
     * block, as the longest profile's strips allow. */
    if (rc == 0 && ((ce = cudaFuncSetAttribute(wave_best_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin)) !=
                        cudaSuccess ||
                    (ce = cudaFuncSetAttribute(wave_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin)) !=
                        cudaSuccess))
        rc = fail(err, ce, "the warps' shared memory");
    g->best_wpb = warps_a_block(best_warp_ints(strip_len(g->max_len)) * sizeof(int32_t), g->smem_optin);
    if (rc == 0 && ((ce = cudaMemcpy(g->d_tabs, tabs, total * sizeof *tabs, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_tab_off, off, sizeof *off * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_wtabs, wtabs, wtotal * sizeof *wtabs, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_wtab_off, woff, sizeof *woff * n_prof, cudaMemcpyHostToDevice)) !=
                        cudaSuccess ||
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
    free(wtabs);
    free(off);
    free(woff);
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
    /* The long sequences (the first n_long) go to wave_best_kernel. */
    uint32_t n_long = 0;
    if (g->best_wpb)
        while (n_long < n_seq && slen[n_long] >= kWaveFrom) n_long++;
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
    /* The long sequences a warp a pair, on their own stream, launched
     * first; then the rest. That stream does not wait for the default
     * one, whose copies from pageable memory may still be under way when
     * cudaMemcpy returns: they are waited for first. */
    if (n_long) {
        if ((ce = cudaStreamSynchronize(0)) != cudaSuccess) return fail(err, ce, "cudaMemcpy (sequences)");
        const uint32_t s_max = strip_len(g->max_len);
        const uint64_t warps = (uint64_t)n_long * g->n_prof;
        wave_best_kernel<<<(uint32_t)((warps + g->best_wpb - 1) / g->best_wpb), g->best_wpb * kWarp,
                           g->best_wpb * best_warp_ints(s_max) * sizeof(int32_t), g->lstream>>>(
            g->d_wtabs, g->d_wtab_off, g->d_plen, g->d_maps, g->d_row, g->d_letters, g->d_off, g->d_len, g->d_idx,
            n_long, g->n_prof, n_seq, s_max, g->d_best);
        if ((ce = cudaGetLastError()) != cudaSuccess) return fail(err, ce, "profile kernel launch (long sequences)");
    }
    /* One launch for every profile, the long ones first: they then run
     * beside the short ones (launched apart by length, the few long ones left
     * the GPU idle: 7.0 s against 4.6 s over 18 M residues). */
    const dim3 grid(g->grid_x, g->n_prof);
    best_kernel<kRows><<<grid, kThreads, g->smem>>>(g->d_tabs, g->d_tab_off, g->d_plen, g->d_maps, g->d_row,
                                                     g->d_letters, g->d_off, g->d_len, g->d_idx, n_long, n_seq,
                                                     g->d_scratch, g->scratch_threads, g->d_best);
    if ((ce = cudaGetLastError()) != cudaSuccess) return fail(err, ce, "profile kernel launch");
    if (n_long && (ce = cudaStreamSynchronize(g->lstream)) != cudaSuccess)
        return fail(err, ce, "profile kernel (long sequences)");
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
    /* The costliest pairs (residues x positions) first: their warps start
     * first, and the launch ends about when its longest pair does. A pair
     * whose profile's strips do not fit a block is left to the caller. */
    uint32_t *order = (uint32_t *)malloc(sizeof *order * n_pair);
    WPair *wp = (WPair *)malloc(sizeof *wp * n_pair);
    int32_t *mo = (int32_t *)malloc(sizeof *mo * (size_t)n_pair * PS_GPROF_MATCHES * kMo);
    uint8_t *left = (uint8_t *)calloc(n_pair, 1);
    int rc = order && wp && mo && left ? 0 : ps_fail(err, PS_E_NOMEM, "out of memory");
    uint32_t n_w = 0, s_max = 1;
    if (rc == 0) {
        for (uint32_t i = 0; i < n_pair; i++) order[i] = i;
        const void *ctx[2] = {g, pairs};
        qsort_r(order, n_pair, sizeof *order,
                [](const void *a, const void *b, void *c) -> int {
                    const ps_gprof_t *gg = (const ps_gprof_t *)((const void **)c)[0];
                    const ps_gprof_pair_t *pp = (const ps_gprof_pair_t *)((const void **)c)[1];
                    const uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
                    const uint64_t x = (uint64_t)pp[ia].len * (gg->len_of[gg->slot[pp[ia].prof]] + 1u);
                    const uint64_t y = (uint64_t)pp[ib].len * (gg->len_of[gg->slot[pp[ib].prof]] + 1u);
                    if (x != y) return x > y ? -1 : 1;
                    return (ia > ib) - (ia < ib);
                },
                (void *)ctx);
        for (uint32_t i = 0; i < n_pair; i++) {
            const ps_gprof_pair_t *p = &pairs[order[i]];
            const uint32_t k = g->slot[p->prof], S = strip_len(g->len_of[k]);
            if (warp_ints(S) * sizeof(int32_t) > g->smem_optin) {
                left[order[i]] = 1;
                continue;
            }
            wp[n_w++] = WPair{p->off, p->len, k, p->cut, order[i]};
            s_max = S > s_max ? S : s_max;
        }
    }
    /* As many warps a block as the longest profile's strips allow (one at
     * least: every pair taken fits). */
    const size_t per_warp = warp_ints(s_max) * sizeof(int32_t);
    const uint32_t wpb = warps_a_block(per_warp, g->smem_optin);
    const size_t smem = (size_t)wpb * per_warp;
    if (rc == 0 && (ce = grow(&g->d_sletters, &g->cap_sletters, n_letters + 1)) != cudaSuccess)
        rc = fail(err, ce, "cudaMalloc (search)");
    if (rc == 0 && n_pair > g->cap_pairs) {
        uint64_t c1 = 0, c2 = 0, c3 = 0;
        g->cap_pairs = 0;
        if ((ce = grow(&g->d_pairs, &c1, n_pair)) != cudaSuccess || (ce = grow(&g->d_nmatch, &c2, n_pair)) != cudaSuccess ||
            (ce = grow(&g->d_match, &c3, (uint64_t)n_pair * PS_GPROF_MATCHES * kMo)) != cudaSuccess)
            rc = fail(err, ce, "cudaMalloc (search)");
        else g->cap_pairs = n_pair;
    }
    if (rc == 0 && n_w &&
        ((ce = cudaMemcpyAsync(g->d_sletters, letters, n_letters, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess ||
         (ce = cudaMemcpyAsync(g->d_pairs, wp, sizeof *wp * n_w, cudaMemcpyHostToDevice, g->stream)) != cudaSuccess))
        rc = fail(err, ce, "cudaMemcpy (search)");
    if (rc == 0 && n_w) {
        wave_kernel<<<(n_w + wpb - 1) / wpb, wpb * kWarp, smem, g->stream>>>(
            g->d_wtabs, g->d_wtab_off, g->d_plen, g->d_pn12, g->d_maps, g->d_sletters, g->d_pairs, n_w, s_max,
            g->d_nmatch, g->d_match);
        if ((ce = cudaGetLastError()) != cudaSuccess) rc = fail(err, ce, "search kernel launch");
    }
    if (rc == 0 && n_w &&
        ((ce = cudaMemcpyAsync(n_match, g->d_nmatch, sizeof *n_match * n_pair, cudaMemcpyDeviceToHost, g->stream)) !=
             cudaSuccess ||
         (ce = cudaMemcpyAsync(mo, g->d_match, sizeof *mo * (size_t)n_pair * PS_GPROF_MATCHES * kMo,
                               cudaMemcpyDeviceToHost, g->stream)) != cudaSuccess ||
         (ce = cudaStreamSynchronize(g->stream)) != cudaSuccess))
        rc = fail(err, ce, "search kernel");
    for (uint32_t i = 0; rc == 0 && i < n_pair; i++) {
        if (left[i]) n_match[i] = -1;
        for (int32_t m = 0; m < n_match[i]; m++) {
            const int32_t *o = mo + ((size_t)i * PS_GPROF_MATCHES + (size_t)m) * kMo;
            match[(size_t)i * PS_GPROF_MATCHES + (size_t)m] = ps_prf_match_t{(uint32_t)o[0], (uint32_t)o[1], 0, 0, o[2]};
        }
    }
    free(order);
    free(wp);
    free(mo);
    free(left);
    return rc;
}

/* A warp on the host: profile pr's table for the strips (*wt) and the
 * warp's shared memory (*st, st_ints); -1 out of memory. */
static int host_warp(const ps_profile_t *pr, size_t st_ints, int16_t **wt, int32_t **st)
{
    const uint32_t S = strip_len(pr->len);
    int16_t *tab = (int16_t *)calloc((size_t)(pr->len + 1) * kStride, sizeof *tab);
    *wt = (int16_t *)calloc((size_t)S * kWarp * kStride, sizeof **wt);
    *st = (int32_t *)calloc(st_ints, sizeof **st);
    if (tab && *wt && *st) {
        fill_table(pr, tab);
        fill_wave(tab, pr->len, *wt);
        free(tab);
        return 0;
    }
    free(tab);
    free(*wt);
    free(*st);
    return -1;
}

extern "C" int ps_gprof_matches_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n_res, int32_t cut,
                                     int32_t *n_match, ps_prf_match_t *match, ps_err_t *err)
{
    const uint32_t S = strip_len(pr->len);
    int16_t *wt;
    int32_t *st;
    if (host_warp(pr, warp_ints(S), &wt, &st) < 0) return ps_fail(err, PS_E_NOMEM, "out of memory");
    const Wave w = {wt, pr->map, letters, (int32_t)pr->len, (int32_t)pr->n1, (int32_t)pr->n2, (int32_t)S,
                    (int32_t)n_res, cut};
    int32_t *lk = st + (size_t)S * kFields * kWarp, mo[PS_GPROF_MATCHES * kMo];
    Judge j = {};
    int found = 0;
    bool over = false;
    int32_t base = 0;
    Link in[kWarp] = {}, out[kWarp];
    /* wave_kernel's loop, its lanes one after another at each step. */
    for (int32_t u = 0; w.n > 0; u++) {
        int ctl = kGo;
        for (int t = 0; t < kWarp; t++) {
            const int32_t v = u - t;
            const bool have = v >= 0 && base + v <= w.n;
            out[t] = have ? strip_row(w, st, t, v, base, v > 0 && is_locked(lk, found, base + v), in[t]) : in[t];
            if (t == kWarp - 1 && have) ctl = judge(j, w, v, base, out[t], found, &over, mo, lk);
        }
        if (ctl == kStop) break;
        if (ctl == kRestart) {
            found++;
            base = j.ibeg;
            u = -1;
            continue;
        }
        for (int t = kWarp - 1; t > 0; t--) in[t] = out[t - 1];
        in[0] = out[0];
    }
    *n_match = over ? -1 : found;
    for (int m = 0; !over && m < found; m++)
        match[m] = ps_prf_match_t{(uint32_t)mo[m * kMo], (uint32_t)mo[m * kMo + 1], 0, 0, mo[m * kMo + 2]};
    free(wt);
    free(st);
    return 0;
}

extern "C" int ps_gprof_best_host(const ps_profile_t *pr, const uint8_t *letters, uint32_t n_res, int32_t *best,
                                  ps_err_t *err)
{
    const uint32_t S = strip_len(pr->len);
    int16_t *wt;
    int32_t *st;
    if (host_warp(pr, best_warp_ints(S), &wt, &st) < 0) return ps_fail(err, PS_E_NOMEM, "out of memory");
    const Wave w = {wt, pr->map, letters, (int32_t)pr->len, 0, 0, (int32_t)S, (int32_t)n_res, 0};
    int32_t kopm[kWarp] = {0}, kopd[kWarp] = {0}, ex[kWarp];
    for (int t = 0; t < kWarp; t++) ex[t] = kLow;
    /* wave_best_kernel's loop, its lanes one after another at each step. */
    for (int32_t u = 0; u < w.n + kWarp; u++) {
        for (int t = 0; t < kWarp; t++) {
            const int32_t v = u - t;
            if (v >= 0 && v <= w.n) best_row(w, st, t, v, kopm[t], kopd[t], &ex[t]);
        }
        for (int t = kWarp - 1; t > 0; t--) kopm[t] = kopm[t - 1], kopd[t] = kopd[t - 1];
    }
    int32_t b = kLow;
    for (int t = 0; t < kWarp; t++) b = mx(b, ex[t]);
    *best = w.n ? b : kLow;
    free(wt);
    free(st);
    return 0;
}
