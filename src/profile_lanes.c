/* profile_lanes.c - pairs of one profile searched for their matches side
 * by side, a 32-bit AVX2 lane a pair (profile.h, ps_profile_matches_lanes).
 *
 * Each lane runs its own pfscanV3 xalip search, exactly as
 * ps_profile_matches (profile_dp.c) runs it: passes of rows, a match
 * accepted once no live path can still enter its protected part, its
 * residues locked, the search restarted from the last check point. The
 * lanes step together, one row each a step (the residue of its own pass),
 * over the profile's positions in order: the transitions are one broadcast
 * for all lanes, the residue scores the lanes' rows of a table by residue,
 * transposed once a step. Between steps each lane's
 * decisions (accept, check point, a new pass, done) are its own, in
 * scalar code; a new pass's first row is written for its lane alone. */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#define ROW 28
#define DEL 27
#define NLOW PS_PRF_NLOW
#define T(p, a, b) pr->trans[(size_t)(p) * 16 + (a) * 4 + (b)]
#define MS(p, c) pr->match[(size_t)((p) - 1) * ROW + (c)] /* match position p, p >= 1 */
#define W PS_PRF_SEARCH_LANES

static int search_each(const ps_profile_t *pr, int k, const uint8_t *const *idx, const uint32_t *n,
                       const int32_t *cut, ps_prf_work_t *w, ps_prf_match_t **out, size_t *cap, int *nm)
{
    for (int i = 0; i < k; i++)
        if ((nm[i] = ps_profile_matches(pr, idx[i], n[i], cut[i], w, &out[i], &cap[i])) < 0) return -1;
    return 0;
}

#if defined(__x86_64__)
#include <immintrin.h>

/* A position's fields, lanes side by side: the M and I values, and the
 * pointers (protected begin, end, sequence begin) of iom and ioi. */
enum { F_M, F_I, F_OM, F_OI = F_OM + 3, FIELDS = F_OI + 3 };

/* One lane's pass, between steps. */
typedef struct {
    const uint8_t *idx;
    int32_t n, cut;
    int state; /* ST_INIT: a pass starts; ST_ROW; ST_DONE */
    int32_t ibeg, iseq, last_cp, first_cp, next_cp;
    uint8_t *lock; /* n + 2 */
} lane_t;
enum { ST_INIT, ST_ROW, ST_DONE };

/* The pass's running values, a lane each (loaded and kept between steps). */
typedef struct {
    int32_t score[W], se[W], pb[W], pe[W], sb[W], fa[W], fb[W], fc[W];
} run_t;

/* Lane l's row before its pass's first residue (init_row). */
static void init_lane(const ps_profile_t *pr, int32_t *R, int l, int32_t ibeg, int32_t n)
{
    const uint32_t L = pr->len, n1 = pr->n1, n2 = pr->n2;
    const int at_start = ibeg < 1;
#define RL(p, f) R[((size_t)(p) * FIELDS + (f)) * W + (size_t)l]
    RL(0, F_M) = at_start ? pr->first[PS_PRF_M] : T(0, PS_PRF_X, PS_PRF_M);
    RL(0, F_I) = at_start ? pr->first[PS_PRF_I] : T(0, PS_PRF_X, PS_PRF_I);
    int32_t kopd = at_start ? pr->first[PS_PRF_D] : T(0, PS_PRF_X, PS_PRF_D);
    for (uint32_t p = 1; p <= L; p++) {
        const int32_t kd = kopd + MS(p, DEL);
        int32_t v[3];
        for (int t = 0; t < 3; t++) {
            const int32_t e = at_start ? pr->first[p * 4 + t] : T(p, PS_PRF_X, t), d = kd + T(p, PS_PRF_D, t);
            v[t] = d > e ? d : e;
        }
        RL(p, F_M) = v[PS_PRF_M];
        RL(p, F_I) = v[PS_PRF_I];
        kopd = v[PS_PRF_D];
    }
    const int32_t unprot[3] = {n + 1, 0, ibeg + 1}, prot[3] = {ibeg + 1, ibeg + 1, ibeg + 1};
    for (uint32_t p = 0; p <= L; p++) {
        const int inside = p >= n1 && p < n2;
        const int32_t *om = inside || p + 1 == n1 ? prot : unprot, *oi = inside ? prot : unprot;
        for (int f = 0; f < 3; f++) {
            RL(p, F_OM + f) = om[f];
            RL(p, F_OI + f) = oi[f];
        }
    }
#undef RL
}

typedef struct {
    __m256i pb, pe, sb;
} vpos_t;

#define B(x) _mm256_set1_epi32(x)
#define ADD(a, b) _mm256_add_epi32((a), (b))
#define GT(a, b) _mm256_cmpgt_epi32((a), (b))
#define MIN(a, b) _mm256_min_epi32((a), (b))
#define SEL(m, a, b) _mm256_blendv_epi8((b), (a), (m)) /* m ? a : b */
#define LDV(p, f) _mm256_load_si256((const __m256i *)(const void *)&R[((size_t)(p) * FIELDS + (f)) * W])
#define STV(p, f, v) _mm256_store_si256((__m256i *)(void *)&R[((size_t)(p) * FIELDS + (f)) * W], (v))

__attribute__((target("avx2"))) static inline vpos_t psel(__m256i m, vpos_t a, vpos_t b)
{
    return (vpos_t){SEL(m, a.pb, b.pb), SEL(m, a.pe, b.pe), SEL(m, a.sb, b.sb)};
}

__attribute__((target("avx2"))) static inline vpos_t pload(const int32_t *R, uint32_t p, int f)
{
    return (vpos_t){LDV(p, f), LDV(p, f + 1), LDV(p, f + 2)};
}

__attribute__((target("avx2"))) static inline void pstore(int32_t *R, uint32_t p, int f, vpos_t v)
{
    STV(p, f, v.pb);
    STV(p, f + 1, v.pe);
    STV(p, f + 2, v.sb);
}

/* The step's residue scores, lanes side by side: SM[p - 1] the match
 * scores at position p (1..L), SI[p] the insertion scores (0..L), from the
 * profile's tables by residue (MT, IT: a row of `stride` a residue index),
 * eight positions at a time by a transpose of the lanes' rows. A gather
 * a position each took about 40% of the search (machine A). */
__attribute__((target("avx2"))) static void columns(const int32_t *MT, const int32_t *IT, size_t stride,
                                                     const int32_t *c32, uint32_t L, __m256i *SM, __m256i *SI)
{
    for (int t = 0; t < 2; t++) {
        const int32_t *tab = t ? IT : MT;
        __m256i *out = t ? SI : SM;
        const uint32_t n = t ? L + 1 : L;
        const int32_t *row[W];
        for (int l = 0; l < W; l++) row[l] = tab + (size_t)c32[l] * stride;
        for (uint32_t p = 0; p < n; p += 8) {
#define RD(l) _mm256_loadu_si256((const __m256i *)(const void *)(row[l] + p))
            const __m256i t0 = _mm256_unpacklo_epi32(RD(0), RD(1)), t1 = _mm256_unpackhi_epi32(RD(0), RD(1));
            const __m256i t2 = _mm256_unpacklo_epi32(RD(2), RD(3)), t3 = _mm256_unpackhi_epi32(RD(2), RD(3));
            const __m256i t4 = _mm256_unpacklo_epi32(RD(4), RD(5)), t5 = _mm256_unpackhi_epi32(RD(4), RD(5));
            const __m256i t6 = _mm256_unpacklo_epi32(RD(6), RD(7)), t7 = _mm256_unpackhi_epi32(RD(6), RD(7));
#undef RD
            const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
            const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
            const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
            const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
            _mm256_store_si256(&out[p + 0], _mm256_permute2x128_si256(u0, u4, 0x20));
            _mm256_store_si256(&out[p + 1], _mm256_permute2x128_si256(u1, u5, 0x20));
            _mm256_store_si256(&out[p + 2], _mm256_permute2x128_si256(u2, u6, 0x20));
            _mm256_store_si256(&out[p + 3], _mm256_permute2x128_si256(u3, u7, 0x20));
            _mm256_store_si256(&out[p + 4], _mm256_permute2x128_si256(u0, u4, 0x31));
            _mm256_store_si256(&out[p + 5], _mm256_permute2x128_si256(u1, u5, 0x31));
            _mm256_store_si256(&out[p + 6], _mm256_permute2x128_si256(u2, u6, 0x31));
            _mm256_store_si256(&out[p + 7], _mm256_permute2x128_si256(u3, u7, 0x31));
        }
    }
}

/* One step: the next row of every lane (next_row), the lanes' residue
 * scores in SM and SI (columns), rows iseq (last: a lane's last residue),
 * lanes in `locked` at a locked residue. */
__attribute__((target("avx2"))) static void step(const ps_profile_t *pr, int32_t *R, const __m256i *SM,
                                                  const __m256i *SI, const int32_t *iseq32, const int32_t *n32,
                                                  const int32_t *last32, const int32_t *lock32, run_t *run)
{
    const uint32_t L = pr->len, n1 = pr->n1, n2 = pr->n2;
    const __m256i iseq = _mm256_loadu_si256((const __m256i *)(const void *)iseq32);
    const __m256i last = _mm256_loadu_si256((const __m256i *)(const void *)last32);
    const __m256i locked = _mm256_loadu_si256((const __m256i *)(const void *)lock32);
    const __m256i in = ADD(iseq, B(1)), low = B(NLOW);
#define LDR(a) _mm256_loadu_si256((const __m256i *)(const void *)(a))
    if (!_mm256_testz_si256(locked, locked)) {
        STV(n1 - 1, F_M, SEL(locked, low, LDV(n1 - 1, F_M)));
        for (uint32_t p = n1; p < n2; p++) {
            STV(p, F_M, SEL(locked, low, LDV(p, F_M)));
            STV(p, F_I, SEL(locked, low, LDV(p, F_I)));
        }
    }
    const vpos_t temp = {ADD(LDR(n32), B(1)), _mm256_setzero_si256(), in};
    __m256i kopm = LDV(0, F_M);
    vpos_t kpos = pload(R, 0, F_OM), kiod;
    const vpos_t ioi0 = pload(R, 0, F_OI);
    const __m256i ki0 = ADD(LDV(0, F_I), _mm256_load_si256(&SI[0]));
    __m256i ji = ADD(ki0, B(T(0, PS_PRF_I, PS_PRF_M))), x = B(T(0, PS_PRF_X, PS_PRF_M)), m = GT(ji, x);
    STV(0, F_M, SEL(m, ji, x));
    pstore(R, 0, F_OM, psel(m, ioi0, temp));
    ji = ADD(ki0, B(T(0, PS_PRF_I, PS_PRF_D))), x = B(T(0, PS_PRF_X, PS_PRF_D)), m = GT(ji, x);
    __m256i kopd = SEL(m, ji, x);
    kiod = psel(m, ioi0, temp);
    ji = ADD(ki0, B(T(0, PS_PRF_I, PS_PRF_I))), x = B(T(0, PS_PRF_X, PS_PRF_I)), m = GT(ji, x);
    STV(0, F_I, SEL(m, ji, x));
    const vpos_t oi0 = psel(m, ioi0, temp);
    pstore(R, 0, F_OI, oi0);
    __m256i fa = iseq, fb = iseq, fc = MIN(MIN(oi0.sb, LDV(0, F_OM + 2)), kiod.sb);
    __m256i score = LDR(run->score), se = LDR(run->se);
    vpos_t fpos = {LDR(run->pb), LDR(run->pe), LDR(run->sb)};
    for (uint32_t p = 1; p <= L; p++) {
        const int32_t *tm = &T(p, PS_PRF_M, 0), *ti = &T(p, PS_PRF_I, 0), *td = &T(p, PS_PRF_D, 0),
                      *tx = &T(p, PS_PRF_X, 0), *lt = pr->last + p * 4;
        const __m256i km = ADD(kopm, _mm256_load_si256(&SM[p - 1]));
        kopm = LDV(p, F_M);
        const __m256i ki = ADD(LDV(p, F_I), _mm256_load_si256(&SI[p]));
        const __m256i kd = ADD(kopd, B(MS(p, DEL)));
        const vpos_t jpos = pload(R, p, F_OM), ioi_old = pload(R, p, F_OI), kiod_old = kiod;
        /* Ties to the earlier, in pftools' order: begin, deletion, match,
         * insertion (ps_profile_matches' next_row). */
#define BEST(t, out, outp, take_d)                                                                                     \
    do {                                                                                                               \
        __m256i b_ = B(tx[t]), v_, m_;                                                                                 \
        vpos_t bp_ = temp;                                                                                             \
        v_ = ADD(kd, B(td[t])), m_ = GT(v_, b_), b_ = SEL(m_, v_, b_), bp_ = psel(m_, take_d, bp_);                    \
        v_ = ADD(km, B(tm[t])), m_ = GT(v_, b_), b_ = SEL(m_, v_, b_), bp_ = psel(m_, kpos, bp_);                      \
        v_ = ADD(ki, B(ti[t])), m_ = GT(v_, b_), b_ = SEL(m_, v_, b_), bp_ = psel(m_, ioi_old, bp_);                   \
        out = b_;                                                                                                      \
        outp = bp_;                                                                                                    \
    } while (0)
        __m256i vm, vi, vd;
        vpos_t pm, pi, pd;
        BEST(PS_PRF_M, vm, pm, kiod_old);
        BEST(PS_PRF_D, vd, pd, kiod_old);
        BEST(PS_PRF_I, vi, pi, pd);
#undef BEST
        /* The exit: the last row's own transitions out. */
        {
            const __m256i xm = SEL(last, B(lt[PS_PRF_M]), B(tm[PS_PRF_X]));
            const __m256i xi = SEL(last, B(lt[PS_PRF_I]), B(ti[PS_PRF_X]));
            const __m256i xd = SEL(last, B(lt[PS_PRF_D]), B(td[PS_PRF_X]));
            __m256i b = B(tx[PS_PRF_X]), v;
            vpos_t f = ioi_old;
            v = ADD(kd, xd), m = GT(v, b), b = SEL(m, v, b), f = psel(m, kiod_old, f);
            v = ADD(km, xm), m = GT(v, b), b = SEL(m, v, b), f = psel(m, kpos, f);
            v = ADD(ki, xi), m = GT(v, b), b = SEL(m, v, b), f = psel(m, ioi_old, f);
            m = GT(b, score);
            score = SEL(m, b, score);
            se = SEL(m, iseq, se);
            fpos = psel(m, f, fpos);
        }
        STV(p, F_M, vm);
        STV(p, F_I, vi);
        kopd = vd;
        pstore(R, p, F_OM, pm);
        kiod = pd;
        pstore(R, p, F_OI, pi);
        kpos = jpos;
        const __m256i t2 = MIN(MIN(pi.pb, pm.pb), pd.pb);
        fa = MIN(fa, t2);
        if (p > n1) fb = MIN(fb, t2);
        fc = MIN(fc, MIN(MIN(pi.sb, pm.sb), pd.sb));
    }
#define STR(a, v) _mm256_storeu_si256((__m256i *)(void *)(a), (v))
    STR(run->score, score);
    STR(run->se, se);
    STR(run->pb, fpos.pb);
    STR(run->pe, fpos.pe);
    STR(run->sb, fpos.sb);
    STR(run->fa, fa);
    STR(run->fb, fb);
    STR(run->fc, fc);
#undef STR
#undef LDR
    /* The protected range: entered and left at this row at the latest. */
    STV(n1 - 1, F_OM, MIN(LDV(n1 - 1, F_OM), in));
    STV(n1 - 1, F_OM + 1, in);
    for (uint32_t p = n1; p < n2; p++) {
        STV(p, F_OM, MIN(LDV(p, F_OM), in));
        STV(p, F_OM + 1, in);
        STV(p, F_OI, MIN(LDV(p, F_OI), in));
        STV(p, F_OI + 1, in);
    }
}

/* A match of lane i's pass into out[i]; -1 when out of memory. */
static int add_match(ps_prf_match_t **out, size_t *cap, int *nm, int32_t sb, int32_t se, int32_t score)
{
    if ((size_t)*nm == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        ps_prf_match_t *g = realloc(*out, nc * sizeof *g);
        if (!g) return -1;
        *out = g;
        *cap = nc;
    }
    (*out)[(*nm)++] = (ps_prf_match_t){.from = (uint32_t)sb, .to = (uint32_t)se, .score = score};
    return 0;
}

static int search_lanes(const ps_profile_t *pr, int k, const uint8_t *const *idx, const uint32_t *n,
                        const int32_t *cut, ps_prf_work_t *w, ps_prf_match_t **out, size_t *cap, int *nm)
{
    const uint32_t L = pr->len;
    const int32_t jlcp = (int32_t)(L / 2);
    int32_t *R = aligned_alloc(32, sizeof(int32_t) * W * FIELDS * (L + 1));
    /* The scores by residue index (rows of `stride`, eight positions past
     * the last read as zeros), and a step's columns. */
    const size_t stride = (L + 1 + 7) & ~(size_t)7;
    int32_t *MT = calloc(PS_PRF_LETTERS * stride * 2, sizeof *MT), *IT = MT ? MT + PS_PRF_LETTERS * stride : NULL;
    __m256i *SM = aligned_alloc(32, sizeof *SM * stride * 2), *SI = SM ? SM + stride : NULL;
    if (MT)
        for (int c = 0; c < PS_PRF_LETTERS; c++) {
            for (uint32_t p = 1; p <= L; p++) MT[(size_t)c * stride + p - 1] = MS(p, c);
            for (uint32_t p = 0; p <= L; p++) IT[(size_t)c * stride + p] = pr->ins[(size_t)p * ROW + (size_t)c];
        }
    lane_t lane[W];
    size_t lock_bytes = 0;
    for (int i = 0; i < k; i++) lock_bytes += n[i] + 2u;
    uint8_t *locks = calloc(lock_bytes ? lock_bytes : 1, 1);
    int rc = R && locks && MT && SM ? 0 : -1;
    run_t run;
    int32_t c32[W], iseq32[W], n32[W], last32[W], lock32[W];
    uint8_t *at = locks;
    for (int i = 0; i < W; i++) {
        lane[i] = (lane_t){.state = ST_DONE};
        if (i < k) {
            nm[i] = 0;
            lane[i] = (lane_t){.idx = idx[i], .n = (int32_t)n[i], .cut = cut[i], .state = n[i] ? ST_INIT : ST_DONE,
                               .lock = at};
            at += n[i] + 2u;
        }
        n32[i] = lane[i].n;
    }
    while (rc == 0) {
        int active = 0;
        for (int i = 0; i < W; i++) {
            lane_t *ln = &lane[i];
            if (ln->state == ST_INIT) {
                /* A pass: its first row, its check points, nothing found. */
                run.score[i] = NLOW;
                run.se[i] = run.pb[i] = run.pe[i] = run.sb[i] = 0;
                init_lane(pr, R, i, ln->ibeg, ln->n);
                ln->iseq = ln->ibeg + 1;
                ln->last_cp = ln->ibeg;
                ln->first_cp = ln->ibeg + 1;
                ln->next_cp = ln->last_cp + jlcp;
                ln->state = ln->iseq <= ln->n ? ST_ROW : ST_DONE; /* no row left after the check point */
            }
            const int on = ln->state == ST_ROW;
            active += on;
            c32[i] = on ? ln->idx[ln->iseq - 1] : 0;
            iseq32[i] = on ? ln->iseq : 0;
            last32[i] = on && ln->iseq == ln->n ? -1 : 0;
            lock32[i] = on && ln->lock[ln->iseq] ? -1 : 0;
        }
        if (!active) break;
        columns(MT, IT, stride, c32, L, SM, SI);
        step(pr, R, SM, SI, iseq32, n32, last32, lock32, &run);
        /* Each lane's decisions after its row, as ps_profile_matches takes them. */
        for (int i = 0; i < W && rc == 0; i++) {
            lane_t *ln = &lane[i];
            if (ln->state != ST_ROW) continue;
            const int32_t iseq = ln->iseq;
            if (run.score[i] >= ln->cut) {
                if (run.fa[i] > run.pe[i] || iseq == ln->n) {
                    if (run.pb[i] == 0) run.pb[i] = run.sb[i];
                    if (run.pe[i] == 0) run.pe[i] = iseq;
                    if (run.pe[i] < run.pb[i]) { /* pftools stops here with an error: the matches so far */
                        ln->state = ST_DONE;
                        continue;
                    }
                    if (add_match(&out[i], &cap[i], &nm[i], run.sb[i], run.se[i], run.score[i]) < 0) rc = -1;
                    for (int32_t j = run.pb[i]; j <= run.pe[i] && j <= ln->n + 1; j++) ln->lock[j] = 1;
                    ln->state = nm[i] < PS_PRF_MAX_MATCHES ? ST_INIT : ST_DONE;
                    continue;
                }
            } else if (iseq >= ln->next_cp) {
                if (run.fb[i] >= ln->last_cp) {
                    ln->ibeg = ln->first_cp - 1;
                    ln->first_cp = run.fc[i];
                    ln->last_cp = iseq;
                }
                ln->next_cp += jlcp;
            }
            if (iseq == ln->n) ln->state = ST_DONE; /* the pass ends without a match */
            else ln->iseq++;
        }
    }
    free(R);
    free(locks);
    free(MT);
    free(SM);
    /* Profile ranges, with nothing locked (as pfscanV3 does). */
    for (int i = 0; i < k && rc == 0; i++)
        for (int h = 0; h < nm[i] && rc == 0; h++)
            if (ps_profile_range(pr, idx[i], n[i], &out[i][h], w) < 0) rc = -1;
    return rc;
}
#endif

int ps_profile_matches_lanes(const ps_profile_t *pr, int k, const uint8_t *const *idx, const uint32_t *n,
                             const int32_t *cut, ps_prf_work_t *w, ps_prf_match_t **out, size_t *cap, int *nm)
{
#if defined(__x86_64__)
    if (k > 1 && __builtin_cpu_supports("avx2")) return search_lanes(pr, k, idx, n, cut, w, out, cap, nm);
#endif
    return search_each(pr, k, idx, n, cut, w, out, cap, nm);
}
