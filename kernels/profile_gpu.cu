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
constexpr int kStride = 76;   /* int16 a position: 16 transitions ([15]: the deletion), 27 match, 27 insertion, 3 first, 3 last */
constexpr int kMs = 16, kIs = 43, kFirst = 70, kLast = 73, kDel = 15;
constexpr int M = PS_PRF_M, I = PS_PRF_I, D = PS_PRF_D, X = PS_PRF_X;
constexpr int32_t kLow = PS_PRF_NLOW;

__device__ __forceinline__ int32_t mx(int32_t a, int32_t b) { return a > b ? a : b; }

#define S(p, t) scr[((size_t)(p) * 3 + (t)) * stride]
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
    S(0, M) = Mp[kRows - 1];
    S(0, I) = up;
    S(0, D) = Dp[kRows - 1];
    for (uint32_t p = 1; p <= L; p++) {
        P = sm + (size_t)p * kStride;
        int32_t diag = topM;
        topM = S(p, M);
        up = S(p, I);
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
            const int32_t vm = mx(mx(km + mm, ki + im), mx(kd + dm, xm));
            const int32_t vi = mx(mx(km + mi, ki + ii), mx(kd + di, xi));
            const int32_t vd = mx(mx(km + md, ki + id), mx(kd + dd, xd));
            if (!kTail) {
                best = mx(best, mx(mx(km + mx_, ki + ix), kd + dx));
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
        S(p, D) = Dp[kRows - 1];
    }
    return best;
}

/* One sequence against the block's profile (sm, L): the best score. The
 * row under the thread's registers lives at scr[(p * 3 + t) * stride]. */
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
        S(0, D) = kopd;
        for (uint32_t p = 1; p <= L; p++) {
            P = sm + (size_t)p * kStride;
            const int32_t kd = kopd + P[kDel];
            S(p, M) = mx(kd + TT(P, D, M), P[kFirst + M]);
            S(p, I) = mx(kd + TT(P, D, I), P[kFirst + I]);
            kopd = mx(kd + TT(P, D, D), P[kFirst + D]);
            S(p, D) = kopd;
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
 * best is row[y]), sequences x, x + gridDim.x ... (a thread each). */
template <int kRows>
__global__ void best_kernel(const int16_t *tabs, const uint64_t *tab_off, const uint32_t *plen, const uint8_t *maps,
                            const uint32_t *row, const uint8_t *letters, const uint64_t *off,
                            const uint32_t *len, uint32_t n_seq, int32_t *scratch, uint64_t stride, int32_t *best)
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
        best[(uint64_t)row[prof] * n_seq + s] = seq_best<kRows>(sm, L, map, letters + off[s], len[s], scratch + gt, stride);
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
    uint32_t *d_len;
    int32_t *d_best;
    uint32_t cap_seq;
    int32_t *d_scratch;
    uint64_t scratch_threads;
    uint32_t grid_x;
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
    cudaFree(g->d_best);
    cudaFree(g->d_scratch);
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
    int rc = 0;
    if (!off || !plen || !row || !maps) rc = ps_fail(err, PS_E_NOMEM, "out of memory");
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
                    (ce = cudaMalloc(&g->d_maps, 26u * n_prof)) != cudaSuccess))
        rc = fail(err, ce, "cudaMalloc (profiles)");
    if (rc == 0 && ((ce = cudaMemcpy(g->d_tabs, tabs, total * sizeof *tabs, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_tab_off, off, sizeof *off * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_plen, plen, sizeof *plen * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_row, row, sizeof *row * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess ||
                    (ce = cudaMemcpy(g->d_maps, maps, 26u * n_prof, cudaMemcpyHostToDevice)) != cudaSuccess))
        rc = fail(err, ce, "cudaMemcpy (profiles)");
    /* Enough blocks a profile to fill the GPU, the scratch rows at most 1 GB. */
    if (rc == 0) {
        int sms = 1;
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gpu_id);
        uint32_t gx = (uint32_t)(sms * 8 + n_prof - 1) / n_prof;
        const uint64_t per_thread = (uint64_t)(g->max_len + 1) * 3 * sizeof(int32_t);
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
    if (n_letters + 1 > g->cap_letters) {
        cudaFree(g->d_letters);
        g->d_letters = NULL;
        g->cap_letters = 0;
        if ((ce = cudaMalloc(&g->d_letters, n_letters + 1)) != cudaSuccess) return fail(err, ce, "cudaMalloc (residues)");
        g->cap_letters = n_letters + 1;
    }
    if (n_seq > g->cap_seq) {
        cudaFree(g->d_off);
        cudaFree(g->d_len);
        cudaFree(g->d_best);
        g->d_off = NULL;
        g->d_len = NULL;
        g->d_best = NULL;
        g->cap_seq = 0;
        if ((ce = cudaMalloc(&g->d_off, sizeof *off * n_seq)) != cudaSuccess ||
            (ce = cudaMalloc(&g->d_len, sizeof *len * n_seq)) != cudaSuccess ||
            (ce = cudaMalloc(&g->d_best, sizeof *best * (uint64_t)n_seq * g->n_prof)) != cudaSuccess)
            return fail(err, ce, "cudaMalloc (sequences)");
        g->cap_seq = n_seq;
    }
    if ((ce = cudaMemcpy(g->d_letters, letters, n_letters, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->d_off, off, sizeof *off * n_seq, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (ce = cudaMemcpy(g->d_len, len, sizeof *len * n_seq, cudaMemcpyHostToDevice)) != cudaSuccess)
        return fail(err, ce, "cudaMemcpy (sequences)");
    /* One launch for every profile, the long ones first: they then run
     * beside the short ones (launched apart by length, the few long ones left
     * the GPU idle: 7.0 s against 4.6 s over 18 M residues). */
    const dim3 grid(g->grid_x, g->n_prof);
    best_kernel<kRows><<<grid, kThreads, g->smem>>>(g->d_tabs, g->d_tab_off, g->d_plen, g->d_maps, g->d_row,
                                                     g->d_letters, g->d_off, g->d_len, n_seq, g->d_scratch,
                                                     g->scratch_threads, g->d_best);
    if ((ce = cudaGetLastError()) != cudaSuccess) return fail(err, ce, "profile kernel launch");
    if ((ce = cudaMemcpy(best, g->d_best, sizeof *best * (uint64_t)n_seq * g->n_prof, cudaMemcpyDeviceToHost)) !=
        cudaSuccess)
        return fail(err, ce, "profile kernel");
    return 0;
}
