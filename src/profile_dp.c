/* profile_dp.c - a profile against one sequence: the best score, and the
 * matches with their ranges as pfscanV3 finds them (profile.h).
 *
 * The dynamic programming runs over rows (residues) and insertion positions
 * 0..L. A node (row j, position p) holds, for each state t of M, I, D, the
 * best score of a path that has used residues up to j and profile
 * positions up to p and goes on in t (M: matches position p + 1 with
 * residue j + 1 next); its exit value (X) is the score of an alignment
 * that ends there. A node takes the best of: beginning there (the X to t
 * term), a match of residue j at position p from node (j - 1, p - 1), an
 * insertion of residue j at p from (j - 1, p), a deletion of position p
 * from (j, p - 1). Ties go to the first of begin, deletion, match,
 * insertion, as pftools compares them; the positions each node carries
 * (where its path began, where it entered and left the protected range)
 * follow that choice. */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#define ROW 28
#define DEL 27
#define NLOW PS_PRF_NLOW

typedef struct {
    int32_t pb, pe, sb; /* protected begin and end, sequence begin */
} pos_t;

static inline int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }
static inline int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

static int work_fit(ps_prf_work_t *w, uint32_t L, uint32_t n)
{
    size_t need = (size_t)(L + 1) * 4;
    if (need > w->cap_v) {
        int32_t *v = realloc(w->v, need * sizeof *v);
        int32_t *p = realloc(w->pos, (size_t)(L + 1) * 2 * sizeof(pos_t)); /* iom and ioi */
        if (v) w->v = v;
        if (p) w->pos = p;
        if (!v || !p) return -1;
        w->cap_v = need;
    }
    if ((size_t)n + 2 > w->cap_lock) {
        uint8_t *l = realloc(w->lock, (size_t)n + 2);
        if (!l) return -1;
        w->lock = l;
        w->cap_lock = (size_t)n + 2;
    }
    return 0;
}

#define T(p, a, b) pr->trans[(size_t)(p) * 16 + (a) * 4 + (b)]
#define MS(p, c) pr->match[(size_t)((p) - 1) * ROW + (c)] /* match position p, p >= 1 */
#define IS(p, c) pr->ins[(size_t)(p) * ROW + (c)]

int32_t ps_profile_best(const ps_profile_t *pr, const uint8_t *idx, uint32_t n, ps_prf_work_t *w)
{
    const uint32_t L = pr->len;
    if (n == 0 || work_fit(w, L, n) < 0) return NLOW;
    int32_t *V = w->v;
    for (int t = 0; t < 3; t++) V[t] = pr->first[t];
    int32_t kopd = V[PS_PRF_D];
    for (uint32_t p = 1; p <= L; p++) {
        const int32_t kd = kopd + MS(p, DEL);
        for (int t = 0; t < 3; t++) V[p * 4 + t] = max32(kd + T(p, PS_PRF_D, t), pr->first[p * 4 + t]);
        kopd = V[p * 4 + PS_PRF_D];
    }
    int32_t score = NLOW;
    for (uint32_t j = 0; j + 1 < n; j++) {
        const unsigned c = idx[j];
        int32_t kopm = V[PS_PRF_M];
        int32_t ki = V[PS_PRF_I] + IS(0, c);
        for (int t = 0; t < 3; t++) V[t] = max32(ki + T(0, PS_PRF_I, t), T(0, PS_PRF_X, t));
        score = max32(score, ki + T(0, PS_PRF_I, PS_PRF_X));
        kopd = V[PS_PRF_D];
        for (uint32_t p = 1; p <= L; p++) {
            int32_t *v = V + p * 4;
            const int32_t km = kopm + MS(p, c), kd = kopd + MS(p, DEL);
            ki = v[PS_PRF_I] + IS(p, c);
            kopm = v[PS_PRF_M];
            for (int t = 0; t < 3; t++)
                v[t] = max32(max32(km + T(p, PS_PRF_M, t), ki + T(p, PS_PRF_I, t)),
                             max32(kd + T(p, PS_PRF_D, t), T(p, PS_PRF_X, t)));
            score = max32(max32(score, km + T(p, PS_PRF_M, PS_PRF_X)),
                          max32(ki + T(p, PS_PRF_I, PS_PRF_X), kd + T(p, PS_PRF_D, PS_PRF_X)));
            kopd = v[PS_PRF_D];
        }
    }
    /* The last residue: exits at the sequence's end (E0). */
    const unsigned c = idx[n - 1];
    int32_t ki = V[PS_PRF_I] + IS(0, c);
    int32_t ikopd = max32(ki + T(0, PS_PRF_I, PS_PRF_D), T(0, PS_PRF_X, PS_PRF_D));
    score = max32(score, ki + pr->last[PS_PRF_I]);
    int32_t kopm = V[PS_PRF_M];
    for (uint32_t p = 1; p <= L; p++) {
        const int32_t *v = V + p * 4, *l = pr->last + p * 4;
        const int32_t km = kopm + MS(p, c), kd = ikopd + MS(p, DEL);
        ki = v[PS_PRF_I] + IS(p, c);
        kopm = v[PS_PRF_M];
        ikopd = max32(max32(km + T(p, PS_PRF_M, PS_PRF_D), T(p, PS_PRF_X, PS_PRF_D)),
                      max32(ki + T(p, PS_PRF_I, PS_PRF_D), kd + T(p, PS_PRF_D, PS_PRF_D)));
        score = max32(max32(score, km + l[PS_PRF_M]), max32(ki + l[PS_PRF_I], kd + l[PS_PRF_D]));
    }
    return score;
}

/* The search state of one pass (pftools' xalip). */
typedef struct {
    const ps_profile_t *pr;
    const uint8_t *idx;
    int32_t n;
    int32_t *V;
    pos_t *iom, *ioi;
    const uint8_t *lock;
    int32_t fa, fb, fc;                 /* the least protected begins (all, past N1) and sequence begin */
    int32_t score, se, pb, pe, sb;      /* the best alignment so far */
} pass_t;

static void init_row(pass_t *s, int32_t ibeg)
{
    const ps_profile_t *pr = s->pr;
    const uint32_t L = pr->len;
    int32_t *V = s->V;
    const int at_start = ibeg < 1;
    for (int t = 0; t < 3; t++) V[t] = at_start ? pr->first[t] : T(0, PS_PRF_X, t);
    int32_t kopd = V[PS_PRF_D];
    for (uint32_t p = 1; p <= L; p++) {
        const int32_t kd = kopd + MS(p, DEL);
        for (int t = 0; t < 3; t++) {
            const int32_t e = at_start ? pr->first[p * 4 + t] : T(p, PS_PRF_X, t);
            const int32_t d = kd + T(p, PS_PRF_D, t);
            V[p * 4 + t] = d > e ? d : e;
        }
        kopd = V[p * 4 + PS_PRF_D];
    }
    const pos_t unprot = {s->n + 1, 0, ibeg + 1}, prot = {ibeg + 1, ibeg + 1, ibeg + 1};
    const uint32_t n1 = pr->n1, n2 = pr->n2;
    for (uint32_t p = 0; p <= L; p++) {
        const int inside = p >= n1 && p < n2;
        s->iom[p] = inside || p + 1 == n1 ? prot : unprot;
        s->ioi[p] = inside ? prot : unprot;
    }
}

/* One residue row (iseq, 1-based); last: the sequence's last residue. */
static void next_row(pass_t *s, int32_t iseq, int last)
{
    const ps_profile_t *pr = s->pr;
    const uint32_t L = pr->len, n1 = pr->n1, n2 = pr->n2;
    int32_t *V = s->V;
    pos_t *iom = s->iom, *ioi = s->ioi;
    const unsigned c = s->idx[iseq - 1];
    const int32_t in = iseq + 1;
    if (s->lock[iseq]) {
        V[(n1 - 1) * 4 + PS_PRF_M] = NLOW;
        for (uint32_t p = n1; p < n2; p++) V[p * 4 + PS_PRF_M] = V[p * 4 + PS_PRF_I] = NLOW;
    }
    int32_t kopm = V[PS_PRF_M];
    pos_t kpos = iom[0], kiod;
    const pos_t temp = {s->n + 1, 0, in};
    const int32_t ki0 = V[PS_PRF_I] + IS(0, c);
    int32_t ji = ki0 + T(0, PS_PRF_I, PS_PRF_M), x = T(0, PS_PRF_X, PS_PRF_M);
    if (ji > x) {
        V[PS_PRF_M] = ji;
        iom[0] = ioi[0];
    } else {
        V[PS_PRF_M] = x;
        iom[0] = temp;
    }
    int32_t kopd;
    ji = ki0 + T(0, PS_PRF_I, PS_PRF_D);
    x = T(0, PS_PRF_X, PS_PRF_D);
    if (ji > x) {
        kopd = ji;
        kiod = ioi[0];
    } else {
        kopd = x;
        kiod = temp;
    }
    ji = ki0 + T(0, PS_PRF_I, PS_PRF_I);
    x = T(0, PS_PRF_X, PS_PRF_I);
    if (ji > x) {
        V[PS_PRF_I] = ji;
    } else {
        V[PS_PRF_I] = x;
        ioi[0] = temp;
    }
    s->fa = s->fb = iseq;
    s->fc = min32(min32(ioi[0].sb, iom[0].sb), kiod.sb);
    pos_t fpos = {s->pb, s->pe, s->sb};
    for (uint32_t p = 1; p <= L; p++) {
        int32_t *v = V + p * 4;
        const int32_t km = kopm + MS(p, c);
        kopm = v[PS_PRF_M];
        const int32_t ki = v[PS_PRF_I] + IS(p, c);
        const int32_t kd = kopd + MS(p, DEL);
        const int32_t *lt = pr->last + p * 4;
        const int32_t *tm = &T(p, PS_PRF_M, 0), *ti = &T(p, PS_PRF_I, 0), *td = &T(p, PS_PRF_D, 0),
                      *tx = &T(p, PS_PRF_X, 0);
        const pos_t jpos = iom[p], ioi_old = ioi[p], kiod_old = kiod;
        /* Each state's best of begin, match, insertion and deletion (ties
         * to the earlier, in pftools' order: begin, deletion, match,
         * insertion), and the position its pointer takes from the winner:
         * begin temp, match kpos, insertion ioi_old, deletion kiod_old; the
         * insertion's deletion reads the deletion's new pointer, as
         * pftools' does. Selects, not a table of pointers: which term wins
         * is data, and a load through a chosen pointer waits for it. */
#define BEST(t, xm, xi, xd, b, bp, take_d)                                                                             \
    do {                                                                                                               \
        b = tx[t];                                                                                                     \
        bp = temp;                                                                                                     \
        if (kd + (xd) > b) b = kd + (xd), bp = take_d;                                                               \
        if (km + (xm) > b) b = km + (xm), bp = kpos;                                                                 \
        if (ki + (xi) > b) b = ki + (xi), bp = ioi_old;                                                              \
    } while (0)
        int32_t vm, vi, vd;
        pos_t pm, pi, pd;
        BEST(PS_PRF_M, tm[PS_PRF_M], ti[PS_PRF_M], td[PS_PRF_M], vm, pm, kiod_old);
        BEST(PS_PRF_D, tm[PS_PRF_D], ti[PS_PRF_D], td[PS_PRF_D], vd, pd, kiod_old);
        BEST(PS_PRF_I, tm[PS_PRF_I], ti[PS_PRF_I], td[PS_PRF_I], vi, pi, pd);
#undef BEST
        /* The exit: the last row's own transitions out. */
        {
            const int32_t xm = last ? lt[PS_PRF_M] : tm[PS_PRF_X], xi = last ? lt[PS_PRF_I] : ti[PS_PRF_X],
                          xd = last ? lt[PS_PRF_D] : td[PS_PRF_X];
            int32_t b = tx[PS_PRF_X];
            int k = 0;
            if (kd + xd > b) b = kd + xd, k = 3;
            if (km + xm > b) b = km + xm, k = 1;
            if (ki + xi > b) b = ki + xi, k = 2;
            if (b > s->score) {
                s->score = b;
                s->se = iseq;
                fpos = k == 1 ? kpos : k == 3 ? kiod_old : ioi_old;
            }
        }
        v[PS_PRF_M] = vm;
        v[PS_PRF_I] = vi;
        v[PS_PRF_D] = vd;
        kopd = vd;
        iom[p] = pm;
        kiod = pd;
        ioi[p] = pi;
        kpos = jpos;
        const int32_t t2 = min32(min32(ioi[p].pb, iom[p].pb), kiod.pb);
        s->fa = min32(s->fa, t2);
        if (p > n1) s->fb = min32(s->fb, t2);
        s->fc = min32(s->fc, min32(min32(ioi[p].sb, iom[p].sb), kiod.sb));
    }
    s->pb = fpos.pb;
    s->pe = fpos.pe;
    s->sb = fpos.sb;
    iom[n1 - 1].pb = min32(iom[n1 - 1].pb, in);
    iom[n1 - 1].pe = in;
    for (uint32_t p = n1; p < n2; p++) {
        iom[p].pb = min32(iom[p].pb, in);
        iom[p].pe = in;
        ioi[p].pb = min32(ioi[p].pb, in);
        ioi[p].pe = in;
    }
}

/* A match's profile range (pftools' xalit): the alignment of residues
 * sb..se redone with free begins, ended where an exit first reaches its
 * score, and traced back to where it began. */
int ps_profile_range(const ps_profile_t *pr, const uint8_t *idx, uint32_t n_res, ps_prf_match_t *m, ps_prf_work_t *w)
{
    const uint32_t L = pr->len;
    const int32_t n = (int32_t)n_res;
    if (work_fit(w, L, n_res) < 0) return -1;
    const int32_t sb = (int32_t)m->from, se = (int32_t)m->to, cut = m->score;
    const size_t need = (size_t)(L + 1) * (size_t)(se - sb + 2);
    if (need > w->cap_trace) {
        uint8_t *t = realloc(w->trace, need);
        if (!t) return -1;
        w->trace = t;
        w->cap_trace = need;
    }
    uint8_t *code = w->trace;
    int32_t *V = w->v;
    size_t k1 = 0;
    /* One node: the best of begin (bx), deletion, match, insertion; codes
     * 0 begin, 1 insertion, 2 match, 3 deletion. */
#define NODE(p, bx, km, ki, kd)                                                                                    \
    do {                                                                                                           \
        unsigned cd = 0;                                                                                           \
        for (int t = 0; t < 3; t++) {                                                                              \
            int32_t b = (bx)[t];                                                                                   \
            unsigned k = 0;                                                                                        \
            if ((kd) + T(p, PS_PRF_D, t) > b) b = (kd) + T(p, PS_PRF_D, t), k = 3;                                 \
            if ((km) + T(p, PS_PRF_M, t) > b) b = (km) + T(p, PS_PRF_M, t), k = 2;                                 \
            if ((ki) + T(p, PS_PRF_I, t) > b) b = (ki) + T(p, PS_PRF_I, t), k = 1;                                 \
            V[(p) * 4 + t] = b;                                                                                    \
            cd |= k << (t == PS_PRF_M ? 4 : t == PS_PRF_I ? 2 : 0);                                                \
        }                                                                                                          \
        code[k1] = (uint8_t)cd;                                                                                    \
    } while (0)
    int32_t bx[3];
    for (uint32_t p = 0; p <= L; p++) {
        for (int t = 0; t < 3; t++) bx[t] = sb == 1 ? pr->first[p * 4 + t] : T(p, PS_PRF_X, t);
        const int32_t kd = p ? V[(p - 1) * 4 + PS_PRF_D] + MS(p, DEL) : NLOW;
        if (p) k1++;
        NODE(p, bx, NLOW, NLOW, kd);
    }
    uint32_t k3 = L;
    int js = 0;
    for (int32_t iseq = sb; iseq <= se; iseq++) {
        const unsigned c = idx[iseq - 1];
        const int last_row = iseq == se, at_end = last_row && se == n;
        int32_t kopm = V[PS_PRF_M];
        int32_t ki = V[PS_PRF_I] + IS(0, c);
        for (int t = 0; t < 3; t++) bx[t] = at_end ? pr->last[t] : T(0, PS_PRF_X, t);
        k1++;
        NODE(0, bx, NLOW, ki, NLOW);
        if (last_row && ki + T(0, PS_PRF_I, PS_PRF_X) >= cut) {
            k3 = 0;
            js = 1;
            break;
        }
        for (uint32_t p = 1; p <= L; p++) {
            const int32_t km = kopm + MS(p, c);
            ki = V[p * 4 + PS_PRF_I] + IS(p, c);
            const int32_t kd = V[(p - 1) * 4 + PS_PRF_D] + MS(p, DEL);
            kopm = V[p * 4 + PS_PRF_M];
            for (int t = 0; t < 3; t++) bx[t] = T(p, PS_PRF_X, t);
            k1++;
            NODE(p, bx, km, ki, kd);
            if (last_row) {
                const int32_t *l = pr->last + p * 4;
                const int32_t xi = at_end ? l[PS_PRF_I] : T(p, PS_PRF_I, PS_PRF_X);
                const int32_t xm = at_end ? l[PS_PRF_M] : T(p, PS_PRF_M, PS_PRF_X);
                const int32_t xd = at_end ? l[PS_PRF_D] : T(p, PS_PRF_D, PS_PRF_X);
                if (ki + xi >= cut) js = 1;
                else if (km + xm >= cut) js = 2;
                else if (kd + xd >= cut) js = 3;
                if (js) {
                    k3 = p;
                    break;
                }
            }
        }
    }
#undef NODE
    const uint32_t end = k3;
    long k = (long)k1;
    do {
        if (js == 1) k -= (long)L + 1;
        else if (js == 2) k -= (long)L + 2, k3--;
        else if (js == 3) k -= 1, k3--;
        if (k < 0) break; /* not reached by a path that began in the stretch */
        const unsigned cd = code[k];
        js = js == 1 ? (int)((cd >> 2) & 3) : js == 2 ? (int)((cd >> 4) & 3) : js == 3 ? (int)(cd & 3) : 0;
    } while (js > 0);
    if (k3 >= L) k3 = 0;
    m->pfrom = (int32_t)k3 + 1;
    m->pto = (int32_t)end - (int32_t)L - 1;
    return 0;
}

int ps_profile_matches(const ps_profile_t *pr, const uint8_t *idx, uint32_t n, int32_t cut, ps_prf_work_t *w,
                       ps_prf_match_t **out, size_t *cap)
{
    const uint32_t L = pr->len;
    if (n == 0) return 0;
    if (work_fit(w, L, n) < 0) return -1;
    memset(w->lock, 0, (size_t)n + 2);
    pass_t s = {.pr = pr, .idx = idx, .n = (int32_t)n, .V = w->v, .lock = w->lock};
    s.iom = (pos_t *)(void *)w->pos;
    s.ioi = s.iom + L + 1;
    int found = 0;
    int32_t ibeg = 0;
    const int32_t jlcp = (int32_t)(L / 2);
    for (;;) {
        int32_t iseq = ibeg;
        s.score = NLOW;
        s.se = s.pb = s.pe = s.sb = 0;
        init_row(&s, iseq);
        int32_t last_cp = iseq, first_cp = iseq + 1, next_cp = last_cp + jlcp;
        int accepted = 0;
        for (iseq++; iseq <= (int32_t)n; iseq++) {
            next_row(&s, iseq, iseq == (int32_t)n);
            if (s.score >= cut) {
                if (s.fa > s.pe || iseq == (int32_t)n) {
                    if (s.pb == 0) s.pb = s.sb;
                    if (s.pe == 0) s.pe = iseq;
                    if (s.pe < s.pb) break; /* pftools stops here with an error: the matches so far */
                    if ((size_t)found == *cap) {
                        size_t nc = *cap ? *cap * 2 : 16;
                        ps_prf_match_t *g = realloc(*out, nc * sizeof *g);
                        if (!g) return -1;
                        *out = g;
                        *cap = nc;
                    }
                    (*out)[found++] = (ps_prf_match_t){.from = (uint32_t)s.sb, .to = (uint32_t)s.se, .score = s.score};
                    for (int32_t j = s.pb; j <= s.pe && j <= (int32_t)n + 1; j++) w->lock[j] = 1;
                    accepted = 1;
                    break;
                }
            } else if (iseq >= next_cp) {
                if (s.fb >= last_cp) {
                    ibeg = first_cp - 1;
                    first_cp = s.fc;
                    last_cp = iseq;
                }
                next_cp += jlcp;
            }
        }
        if (!accepted || s.pe < s.pb) break;
    }
    /* Profile ranges, with nothing locked (as pfscanV3 does). */
    for (int i = 0; i < found; i++)
        if (ps_profile_range(pr, idx, n, &(*out)[i], w) < 0) return -1;
    return found;
}

/* ---- PS_PRF_LANES profiles side by side (the filter) ----
 *
 * A lane a profile, all against one sequence: every score of a position is
 * one vector load of pftools' 16-bit values, and a row reads the tables in
 * order (transitions by position, scores by letter, then by position). The
 * sums are 16-bit and saturate: a sum held at -32768 is above its true
 * value, and sums and maxima only grow with their terms, so a lane's best
 * is never under the profile's true best unless some value met +32767; a
 * lane whose values came within PS_PRF_HIGH of it is scored again exactly
 * (ps_profile_best). A best over the true one only sends the sequence to
 * ps_profile_matches, which finds nothing under the cut-off. Lanes are
 * padded to the longest profile with positions that cost -32768 to enter,
 * move in and leave; a lane's nodes depend on lower positions only. */
#define PAD (-32768)
#define HIGH 32000
#define LETTERS 26
#define DELV 15 /* the deletion score, in the slot of X to X (no transition) */

typedef int16_t vls __attribute__((vector_size(2 * PS_PRF_LANES)));

struct ps_prf_bundle {
    uint32_t L;                   /* the longest */
    int n;                        /* profiles (lanes in use) */
    const ps_profile_t *prof[PS_PRF_LANES];
    vls *tr;                      /* (L + 1) * 16: transitions from * 4 + to, [DELV] the deletion */
    vls *ms, *is;                 /* LETTERS * (L + 1): scores of a letter at each position */
    vls *first, *last;            /* (L + 1) * 3 */
};

int ps_prf_bundle_new(ps_prf_bundle_t **out, const ps_profile_t *const *prs, int n)
{
    ps_prf_bundle_t *b = calloc(1, sizeof *b);
    if (!b) return -1;
    b->n = n;
    for (int l = 0; l < n; l++) {
        b->L = prs[l]->len > b->L ? prs[l]->len : b->L;
        b->prof[l] = prs[l];
    }
    const size_t P = b->L + 1;
    b->tr = aligned_alloc(32, sizeof(vls) * P * 16);
    b->ms = aligned_alloc(32, sizeof(vls) * P * LETTERS);
    b->is = aligned_alloc(32, sizeof(vls) * P * LETTERS);
    b->first = aligned_alloc(32, sizeof(vls) * P * 3 + 32);
    b->last = aligned_alloc(32, sizeof(vls) * P * 3 + 32);
    if (!b->tr || !b->ms || !b->is || !b->first || !b->last) {
        ps_prf_bundle_free(b);
        return -1;
    }
    memset(b->ms, 0, sizeof(vls) * P * LETTERS);
    memset(b->is, 0, sizeof(vls) * P * LETTERS);
    for (uint32_t p = 0; p <= b->L; p++) {
        vls *tr = b->tr + p * 16, *f = b->first + p * 3, *la = b->last + p * 3;
        for (int l = 0; l < PS_PRF_LANES; l++) {
            const ps_profile_t *pr = l < n ? prs[l] : NULL;
            if (!pr || p > pr->len) {
                for (int k = 0; k < 16; k++) tr[k][l] = PAD;
                tr[DELV][l] = 0;
                for (int t = 0; t < 3; t++) f[t][l] = la[t][l] = PAD;
                continue;
            }
            /* Every value fits 16 bits: pftools' scores and its checked begin and end sums. */
            for (int a = 0; a < LETTERS; a++) {
                const unsigned c = pr->map[a];
                b->ms[(size_t)a * P + p][l] = (int16_t)(p ? MS(p, c) : 0);
                b->is[(size_t)a * P + p][l] = (int16_t)IS(p, c);
            }
            for (int k = 0; k < 16; k++) tr[k][l] = (int16_t)pr->trans[(size_t)p * 16 + k];
            tr[DELV][l] = (int16_t)(p ? MS(p, DEL) : 0);
            for (int t = 0; t < 3; t++) {
                f[t][l] = (int16_t)pr->first[p * 4 + t];
                la[t][l] = (int16_t)pr->last[p * 4 + t];
            }
        }
    }
    *out = b;
    return 0;
}

void ps_prf_bundle_free(ps_prf_bundle_t *b)
{
    if (!b) return;
    free(b->tr);
    free(b->ms);
    free(b->is);
    free(b->first);
    free(b->last);
    free(b);
}

#if defined(__x86_64__)
#include <immintrin.h>
#define LD(x) _mm256_load_si256((const __m256i *)(const void *)(x))
#define ST(x, v) _mm256_store_si256((__m256i *)(void *)(x), (v))
#define MX(a, b) _mm256_max_epi16((a), (b))
#define AD(a, b) _mm256_adds_epi16((a), (b))

/* The rows in 16-bit lanes; *high: the largest value met, per lane. */
__attribute__((target("avx2"))) static void rows_avx2(const ps_prf_bundle_t *b, const uint8_t *letters, uint32_t n,
                                                      ps_prf_work_t *w, int16_t *out, int16_t *high)
{
    const uint32_t L = b->L;
    const size_t P = (size_t)L + 1;
    /* VD holds the deletions of the row before the first residue only: a
     * row's deletions run along it in kopd, so rows never store them. */
    __m256i *VM = (__m256i *)(void *)w->v8, *VI = VM + P, *VD = VI + P;
    const vls *tr = b->tr, *fi = b->first, *la = b->last;
    /* Position 0's state `to` of a row whose insertion there sums ki: the
     * insertion or a begin. */
#define START(ki, to) MX(AD((ki), LD(&tr[PS_PRF_I * 4 + (to)])), LD(&tr[PS_PRF_X * 4 + (to)]))
    ST(&VM[0], LD(&fi[PS_PRF_M]));
    ST(&VI[0], LD(&fi[PS_PRF_I]));
    ST(&VD[0], LD(&fi[PS_PRF_D]));
    for (uint32_t p = 1; p <= L; p++) {
        const vls *t = tr + p * 16, *f = fi + p * 3;
        const __m256i kd = AD(LD(&VD[p - 1]), LD(&t[DELV]));
        ST(&VM[p], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_M])), LD(&f[PS_PRF_M])));
        ST(&VI[p], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_I])), LD(&f[PS_PRF_I])));
        ST(&VD[p], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D])), LD(&f[PS_PRF_D])));
    }
    __m256i vbest = _mm256_set1_epi16(NLOW), vhigh = _mm256_set1_epi16(NLOW);
    /* Two rows a sweep while neither is the last: node (j + 1, p) needs
     * (j, p - 1) and (j, p) only, so one sweep over the positions gives
     * both, and a position's transitions (L2-resident for long bundles)
     * are read once for two residues. */
    uint32_t j = 0;
    for (; j + 2 < n; j += 2) {
        const vls *ms0 = b->ms + (size_t)letters[j] * P, *is0 = b->is + (size_t)letters[j] * P;
        const vls *ms1 = b->ms + (size_t)letters[j + 1] * P, *is1 = b->is + (size_t)letters[j + 1] * P;
        __m256i kopm0 = LD(&VM[0]);
        const __m256i ki0 = AD(LD(&VI[0]), LD(&is0[0]));
        __m256i prevm = START(ki0, PS_PRF_M);
        const __m256i i0 = START(ki0, PS_PRF_I);
        __m256i kopd0 = START(ki0, PS_PRF_D);
        vhigh = MX(vhigh, MX(ki0, kopd0));
        vbest = MX(vbest, AD(ki0, LD(&tr[PS_PRF_I * 4 + PS_PRF_X])));
        const __m256i ki1 = AD(i0, LD(&is1[0]));
        ST(&VM[0], START(ki1, PS_PRF_M));
        ST(&VI[0], START(ki1, PS_PRF_I));
        __m256i kopd1 = START(ki1, PS_PRF_D);
        vhigh = MX(vhigh, MX(ki1, kopd1));
        vbest = MX(vbest, AD(ki1, LD(&tr[PS_PRF_I * 4 + PS_PRF_X])));
        for (uint32_t p = 1; p <= L; p++) {
            const vls *t = tr + p * 16;
            const __m256i km0 = AD(kopm0, LD(&ms0[p]));
            kopm0 = LD(&VM[p]);
            const __m256i kip0 = AD(LD(&VI[p]), LD(&is0[p]));
            const __m256i dl = LD(&t[DELV]);
            const __m256i kd0 = AD(kopd0, dl), kd1 = AD(kopd1, dl);
            const __m256i km1 = AD(prevm, LD(&ms1[p]));
            __m256i tm = LD(&t[PS_PRF_M * 4 + PS_PRF_I]), ti = LD(&t[PS_PRF_I * 4 + PS_PRF_I]);
            __m256i td = LD(&t[PS_PRF_D * 4 + PS_PRF_I]), tx = LD(&t[PS_PRF_X * 4 + PS_PRF_I]);
            const __m256i vi0 = MX(MX(AD(km0, tm), AD(kip0, ti)), MX(AD(kd0, td), tx));
            const __m256i kip1 = AD(vi0, LD(&is1[p]));
            ST(&VI[p], MX(MX(AD(km1, tm), AD(kip1, ti)), MX(AD(kd1, td), tx)));
            tm = LD(&t[PS_PRF_M * 4 + PS_PRF_M]), ti = LD(&t[PS_PRF_I * 4 + PS_PRF_M]);
            td = LD(&t[PS_PRF_D * 4 + PS_PRF_M]), tx = LD(&t[PS_PRF_X * 4 + PS_PRF_M]);
            prevm = MX(MX(AD(km0, tm), AD(kip0, ti)), MX(AD(kd0, td), tx));
            ST(&VM[p], MX(MX(AD(km1, tm), AD(kip1, ti)), MX(AD(kd1, td), tx)));
            tm = LD(&t[PS_PRF_M * 4 + PS_PRF_D]), ti = LD(&t[PS_PRF_I * 4 + PS_PRF_D]);
            td = LD(&t[PS_PRF_D * 4 + PS_PRF_D]), tx = LD(&t[PS_PRF_X * 4 + PS_PRF_D]);
            kopd0 = MX(MX(AD(km0, tm), AD(kip0, ti)), MX(AD(kd0, td), tx));
            kopd1 = MX(MX(AD(km1, tm), AD(kip1, ti)), MX(AD(kd1, td), tx));
            vhigh = MX(vhigh, MX(MX(MX(km0, kip0), kd0), MX(MX(km1, kip1), kd1)));
            tm = LD(&t[PS_PRF_M * 4 + PS_PRF_X]), ti = LD(&t[PS_PRF_I * 4 + PS_PRF_X]);
            td = LD(&t[PS_PRF_D * 4 + PS_PRF_X]);
            vbest = MX(vbest, MX(MX(MX(AD(km0, tm), AD(kip0, ti)), AD(kd0, td)),
                                 MX(MX(AD(km1, tm), AD(kip1, ti)), AD(kd1, td))));
        }
    }
    for (; j < n; j++) {
        const unsigned a = letters[j];
        const vls *ms = b->ms + (size_t)a * P, *is = b->is + (size_t)a * P;
        const int last = j + 1 == n;
        __m256i kopm = LD(&VM[0]);
        const __m256i ki = AD(LD(&VI[0]), LD(&is[0]));
        ST(&VM[0], START(ki, PS_PRF_M));
        ST(&VI[0], START(ki, PS_PRF_I));
        __m256i kopd = START(ki, PS_PRF_D);
        vhigh = MX(vhigh, MX(ki, kopd));
        vbest = MX(vbest, AD(ki, LD(last ? &la[PS_PRF_I] : &tr[PS_PRF_I * 4 + PS_PRF_X])));
        if (!last) {
            for (uint32_t p = 1; p <= L; p++) {
                const vls *t = tr + p * 16;
                const __m256i km = AD(kopm, LD(&ms[p]));
                kopm = LD(&VM[p]);
                const __m256i kip = AD(LD(&VI[p]), LD(&is[p]));
                const __m256i kd = AD(kopd, LD(&t[DELV]));
                const __m256i vm = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_M])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_M]))),
                                      MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_M])), LD(&t[PS_PRF_X * 4 + PS_PRF_M])));
                const __m256i vi = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_I])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_I]))),
                                      MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_I])), LD(&t[PS_PRF_X * 4 + PS_PRF_I])));
                kopd = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_D])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_D]))),
                          MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D])), LD(&t[PS_PRF_X * 4 + PS_PRF_D])));
                ST(&VM[p], vm);
                ST(&VI[p], vi);
                /* km, kip and kd hold every sum a node of this row takes. */
                vhigh = MX(vhigh, MX(MX(km, kip), kd));
                vbest = MX(vbest, MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_X])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_X]))),
                                     AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_X]))));
            }
        } else { /* the last residue: ends at the sequence's end (E0) only */
            for (uint32_t p = 1; p <= L; p++) {
                const vls *t = tr + p * 16, *e = la + p * 3;
                const __m256i km = AD(kopm, LD(&ms[p]));
                kopm = LD(&VM[p]);
                const __m256i kip = AD(LD(&VI[p]), LD(&is[p]));
                const __m256i kd = AD(kopd, LD(&t[DELV]));
                kopd = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_D])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_D]))),
                          MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D])), LD(&t[PS_PRF_X * 4 + PS_PRF_D])));
                vhigh = MX(vhigh, MX(MX(km, kip), kd));
                vbest = MX(vbest, MX(MX(AD(km, LD(&e[PS_PRF_M])), AD(kip, LD(&e[PS_PRF_I]))), AD(kd, LD(&e[PS_PRF_D]))));
            }
        }
    }
    _mm256_storeu_si256((__m256i *)(void *)out, vbest);
    _mm256_storeu_si256((__m256i *)(void *)high, vhigh);
#undef START
}
#endif

void ps_prf_bundle_best(const ps_prf_bundle_t *b, const uint8_t *letters, uint32_t n, int32_t best[PS_PRF_LANES],
                        ps_prf_work_t *w)
{
    for (int l = 0; l < PS_PRF_LANES; l++) best[l] = NLOW;
    if (n == 0) return;
    int16_t out[PS_PRF_LANES], high[PS_PRF_LANES];
    int fast = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        const size_t need = ((size_t)b->L + 1) * 3 * PS_PRF_LANES / 2; /* int32 units */
        if (need > w->cap_v8) {
            free(w->v8);
            w->v8 = aligned_alloc(32, need * sizeof(int32_t));
            w->cap_v8 = w->v8 ? need : 0;
        }
        if (w->v8) {
            rows_avx2(b, letters, n, w, out, high);
            fast = 1;
        }
    }
#endif
    uint8_t *idx = NULL;
    for (int l = 0; l < b->n; l++) {
        if (fast && high[l] < HIGH && out[l] < HIGH) {
            best[l] = out[l];
            continue;
        }
        /* Exactly, one profile at a time: no AVX2, or a value near the top. */
        if (!idx && !(idx = malloc(n))) {
            best[0] = INT32_MIN;
            return;
        }
        ps_profile_index(b->prof[l], letters, n, idx);
        best[l] = ps_profile_best(b->prof[l], idx, n, w);
    }
    free(idx);
}
