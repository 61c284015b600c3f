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
                    accepted = found < PS_PRF_MAX_MATCHES;
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

/* ---- Profiles side by side in PS_PRF_LANES lanes (the filter) ----
 *
 * All against one sequence: every score of a position is one vector load
 * of pftools' 16-bit values, and a row reads the tables in order
 * (transitions by position, scores by letter, then by position). A lane
 * holds one profile or several end to end, so that profiles of unlike
 * lengths fill the lanes alike: a profile's insertion position 0 takes the
 * bundle position after the last one of the profile before it in its lane.
 * The sums are 16-bit and saturate: a sum held at -32768 is above its true
 * value, and sums and maxima only grow with their terms, so a profile's
 * best is never under its true best unless some sum met +32767. The rows
 * keep the largest of the sums that take a transition or an end next; a
 * lane where one of them came within its largest such term (or HIGH) of
 * +32767 is scored again exactly (ps_profile_best), and so is a profile
 * whose best came within HIGH. A best over the true one only sends the sequence to
 * ps_profile_matches, which finds nothing under the cut-off.
 * Nothing passes from a profile to the next in its lane: at a position 0
 * the match score, the deletion score, the transitions out of M and D and
 * the ends from M and D are -32768, so that every sum from the position
 * before is -32768 too, never above a value of the profile's own (held at
 * -32768 or over). Those terms are unused at a position 0, where a node is
 * the insertion there or a begin. A lane's end is padded with positions
 * that cost -32768 to enter, move in and leave. Exits accumulate by
 * position, and a profile's best is the largest over its positions. */
#define PAD (-32768)
#define HIGH 32000
#define LETTERS 26
#define DELV 15 /* the deletion score, in the slot of X to X (no transition) */
#define ROWS 4  /* rows a sweep (sweep) */

typedef int16_t vls __attribute__((vector_size(2 * PS_PRF_LANES)));

struct ps_prf_bundle {
    uint32_t Q;                   /* positions: the fullest lane's */
    int n;                        /* profiles */
    const ps_profile_t **prof;    /* n */
    uint32_t *lane, *at;          /* profile i: its lane, its position 0 */
    int32_t top[PS_PRF_LANES];    /* a lane's sums must stay under it (rows_avx2's high) */
    vls *tr;                      /* Q * 16: transitions from * 4 + to, [DELV] the deletion */
    vls *ms, *is;                 /* LETTERS * Q: scores of a letter at each position */
    vls *first, *last;            /* Q * 3 */
    vls *real;                    /* Q: -1 in a lane where q is a profile's position, 0 in padding */
    int lean;                     /* no transition I to D or D to I over NLOW (rows_avx2's lean rows) */
};

static int longer_first(const void *a, const void *b, void *ctx)
{
    const ps_profile_t *const *p = ctx;
    const uint32_t x = p[*(const int *)a]->len, y = p[*(const int *)b]->len;
    return x > y ? -1 : x < y ? 1 : *(const int *)a - *(const int *)b;
}

int ps_prf_pack(const ps_profile_t *const *prs, int n, uint32_t bins, uint32_t *bin, uint32_t *at)
{
    int *order = malloc(sizeof *order * (size_t)(n ? n : 1));
    uint64_t *fill = calloc(bins ? bins : 1, sizeof *fill);
    if (!order || !fill) {
        free(order);
        free(fill);
        return -1;
    }
    for (int i = 0; i < n; i++) order[i] = i;
    qsort_r(order, (size_t)n, sizeof *order, longer_first, (void *)prs);
    for (int k = 0; k < n; k++) {
        const int i = order[k];
        uint32_t e = 0;
        for (uint32_t m = 1; m < bins; m++)
            if (fill[m] < fill[e]) e = m;
        bin[i] = e;
        if (at) at[i] = (uint32_t)fill[e];
        fill[e] += prs[i]->len + 1u;
    }
    free(order);
    free(fill);
    return 0;
}

void ps_prf_bundle_free(ps_prf_bundle_t *b)
{
    if (!b) return;
    free(b->prof);
    free(b->lane);
    free(b->at);
    free(b->tr);
    free(b->ms);
    free(b->is);
    free(b->first);
    free(b->last);
    free(b->real);
    free(b);
}

/* Profile pr's values at bundle position q = its position p, lane l. */
static void fill_position(ps_prf_bundle_t *b, const ps_profile_t *pr, uint32_t q, uint32_t p, int l)
{
    const size_t Q = b->Q;
    vls *tr = b->tr + (size_t)q * 16, *f = b->first + (size_t)q * 3, *la = b->last + (size_t)q * 3;
    /* Every value fits 16 bits: pftools' scores and its checked begin and end sums. */
    for (int a = 0; a < LETTERS; a++) {
        const unsigned c = pr->map[a];
        b->ms[(size_t)a * Q + q][l] = (int16_t)(p ? MS(p, c) : PAD);
        b->is[(size_t)a * Q + q][l] = (int16_t)IS(p, c);
    }
    for (int k = 0; k < 16; k++) tr[k][l] = (int16_t)pr->trans[(size_t)p * 16 + k];
    tr[DELV][l] = (int16_t)(p ? MS(p, DEL) : PAD);
    b->real[q][l] = -1;
    for (int t = 0; t < 3; t++) {
        f[t][l] = (int16_t)pr->first[p * 4 + t];
        la[t][l] = (int16_t)pr->last[p * 4 + t];
    }
    /* The largest term added to a kept sum: transitions out of M, I, D and
     * the ends at the last residue. */
    for (int from = PS_PRF_M; from <= PS_PRF_D; from++) {
        for (int to = 0; to < 4; to++)
            b->top[l] = min32(b->top[l], 32767 - max32(0, pr->trans[(size_t)p * 16 + (size_t)(from * 4 + to)]));
        b->top[l] = min32(b->top[l], 32767 - max32(0, pr->last[p * 4 + from]));
    }
    if (p == 0) { /* the barrier between a lane's profiles (above) */
        for (int to = 0; to < 4; to++) tr[PS_PRF_M * 4 + to][l] = tr[PS_PRF_D * 4 + to][l] = PAD;
        la[PS_PRF_M][l] = la[PS_PRF_D][l] = PAD;
    }
}

int ps_prf_bundle_new(ps_prf_bundle_t **out, const ps_profile_t *const *prs, int n)
{
    ps_prf_bundle_t *b = calloc(1, sizeof *b);
    if (!b) return -1;
    b->n = n;
    b->prof = malloc(sizeof *b->prof * (size_t)(n ? n : 1));
    b->lane = malloc(sizeof *b->lane * (size_t)(n ? n : 1));
    b->at = malloc(sizeof *b->at * (size_t)(n ? n : 1));
    if (!b->prof || !b->lane || !b->at) goto fail;
    for (int l = 0; l < PS_PRF_LANES; l++) b->top[l] = HIGH;
    if (ps_prf_pack(prs, n, PS_PRF_LANES, b->lane, b->at) < 0) goto fail;
    b->Q = 1;
    for (int i = 0; i < n; i++) {
        b->prof[i] = prs[i];
        b->Q = b->at[i] + prs[i]->len + 1 > b->Q ? b->at[i] + prs[i]->len + 1 : b->Q;
    }
    const size_t Q = b->Q;
    b->tr = aligned_alloc(32, sizeof(vls) * Q * 16);
    b->ms = aligned_alloc(32, sizeof(vls) * Q * LETTERS);
    b->is = aligned_alloc(32, sizeof(vls) * Q * LETTERS);
    b->first = aligned_alloc(32, sizeof(vls) * Q * 3);
    b->last = aligned_alloc(32, sizeof(vls) * Q * 3);
    b->real = aligned_alloc(32, sizeof(vls) * Q);
    if (!b->tr || !b->ms || !b->is || !b->first || !b->last || !b->real) goto fail;
    memset(b->real, 0, sizeof(vls) * Q);
    /* Padding first; then each profile over its positions. */
    memset(b->ms, 0, sizeof(vls) * Q * LETTERS);
    memset(b->is, 0, sizeof(vls) * Q * LETTERS);
    for (size_t q = 0; q < Q; q++)
        for (int l = 0; l < PS_PRF_LANES; l++) {
            for (int k = 0; k < 16; k++) b->tr[q * 16 + (size_t)k][l] = PAD;
            b->tr[q * 16 + DELV][l] = 0;
            for (int t = 0; t < 3; t++) b->first[q * 3 + (size_t)t][l] = b->last[q * 3 + (size_t)t][l] = PAD;
        }
    for (int i = 0; i < n; i++)
        for (uint32_t p = 0; p <= prs[i]->len; p++) fill_position(b, prs[i], b->at[i] + p, p, (int)b->lane[i]);
    b->lean = 1;
    for (size_t q = 1; q < Q; q++)
        for (int l = 0; l < PS_PRF_LANES; l++)
            if (b->tr[q * 16 + PS_PRF_I * 4 + PS_PRF_D][l] > NLOW || b->tr[q * 16 + PS_PRF_D * 4 + PS_PRF_I][l] > NLOW)
                b->lean = 0;
    *out = b;
    return 0;
fail:
    ps_prf_bundle_free(b);
    return -1;
}

uint32_t ps_prf_bundle_positions(const ps_prf_bundle_t *b) { return b->Q; }

int ps_prf_bundle_lean(const ps_prf_bundle_t *b) { return b->lean; }

#if defined(__x86_64__)
#include <immintrin.h>
#define LD(x) _mm256_load_si256((const __m256i *)(const void *)(x))
#define ST(x, v) _mm256_store_si256((__m256i *)(void *)(x), (v))
#define MX(a, b) _mm256_max_epi16((a), (b))
#define AD(a, b) _mm256_adds_epi16((a), (b))
#define GT16(a, b) _mm256_cmpgt_epi16((a), (b))

/* Position 0's state `to` of a row whose insertion there sums ki: the
 * insertion or a begin. */
#define START(ki, to) MX(AD((ki), LD(&tr[PS_PRF_I * 4 + (to)])), LD(&tr[PS_PRF_X * 4 + (to)]))
/* An exit at position q joins the best there. */
#define EXIT(q, v) ST(&VX[q], MX(LD(&VX[q]), (v)))

/* Rows `rows` (ROWS at most, none the last) of residues letters[0..rows)
 * in one sweep over the positions: node (j + 1, q) needs (j, q - 1) and
 * (j, q) only, so one sweep gives them all, and a position's transitions
 * (L2-resident for long bundles) come from L2 once for the rows, from L1
 * for the rows after the first. Four rows a sweep ran 1.2x two on machine
 * A's cores (six alike, eight slower). Inlined for each constant `rows`.
 * A node's sums km, kip and kd only join their position's maxima (XM,
 * XI, XD): the exits' terms and the largest value are taken from those
 * once the sweeps are done (rows_avx2), as a saturating sum is monotone
 * in each term. That is 3 operations a node where they took 9.
 * Lean rows (`lean`, constant where inlined) leave out the sums through a
 * transition I to D or D to I; rows_avx2 then checks that none of them
 * could have been a node's largest. */
__attribute__((target("avx2"), always_inline)) static inline void sweep(const ps_prf_bundle_t *b,
                                                                         const uint8_t *letters, int rows,
                                                                         __m256i *VM, __m256i *VI, __m256i *XM,
                                                                         __m256i *XI, __m256i *XD, __m256i *vhigh,
                                                                         int lean)
{
    const size_t Q = b->Q;
    const vls *tr = b->tr;
    const vls *ms[ROWS], *is[ROWS];
    __m256i pm[ROWS], pd[ROWS]; /* each row's M and D at the position before */
    __m256i high = *vhigh;
    for (int r = 0; r < rows; r++) {
        ms[r] = b->ms + (size_t)letters[r] * Q;
        is[r] = b->is + (size_t)letters[r] * Q;
    }
    __m256i kopm = LD(&VM[0]), ip = LD(&VI[0]), xi = LD(&XI[0]);
    for (int r = 0; r < rows; r++) {
        const __m256i ki = AD(ip, LD(&is[r][0]));
        pm[r] = START(ki, PS_PRF_M);
        ip = START(ki, PS_PRF_I);
        pd[r] = START(ki, PS_PRF_D);
        high = MX(high, pd[r]);
        xi = MX(xi, ki);
    }
    ST(&VM[0], pm[rows - 1]);
    ST(&VI[0], ip);
    ST(&XI[0], xi);
    for (size_t q = 1; q < Q; q++) {
        const vls *t = tr + q * 16;
        const __m256i dl = LD(&t[DELV]), bi = LD(&t[PS_PRF_X * 4 + PS_PRF_I]), bd = LD(&t[PS_PRF_X * 4 + PS_PRF_D]);
        __m256i up = kopm; /* the row before's M at q - 1 */
        kopm = LD(&VM[q]);
        ip = LD(&VI[q]); /* the row before's I at q */
        __m256i xm = LD(&XM[q]), xd = LD(&XD[q]);
        xi = LD(&XI[q]);
        for (int r = 0; r < rows; r++) {
            const __m256i km = AD(up, LD(&ms[r][q])), kip = AD(ip, LD(&is[r][q])), kd = AD(pd[r], dl);
            up = pm[r];
            ip = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_I])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_I]))),
                    lean ? bi : MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_I])), bi));
            pm[r] = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_M])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_M]))),
                       MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_M])), LD(&t[PS_PRF_X * 4 + PS_PRF_M])));
            pd[r] = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_D])), AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D]))),
                       lean ? bd : MX(AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_D])), bd));
            /* km, kip and kd hold every sum a node takes. */
            xm = MX(xm, km);
            xi = MX(xi, kip);
            xd = MX(xd, kd);
        }
        ST(&VM[q], pm[rows - 1]);
        ST(&VI[q], ip);
        ST(&XM[q], xm);
        ST(&XI[q], xi);
        ST(&XD[q], xd);
    }
    *vhigh = high;
}

/* The rows in 16-bit lanes: VX[q], the best exit at each position, and
 * *high, the largest value met, per lane. Lean rows (`lean`) leave out
 * the sums through I to D and D to I, which PROSITE's profiles never
 * allow (NLOW, -16383, against a begin there of -12285 at least): where
 * no node's sum through them came over the begin into the same state,
 * every node equals the full rows' (each node in turn takes the same
 * terms), and 0 is returned; else 1, and the caller runs the full rows.
 * A node's kd and kip are under their position's XD and XI; positions of
 * a lane's padding (b->real) feed no profile and are not checked. */
__attribute__((target("avx2"))) static int rows_avx2(const ps_prf_bundle_t *b, const uint8_t *letters, uint32_t n,
                                                     ps_prf_work_t *w, int16_t *high, int lean)
{
    const size_t Q = b->Q;
    /* VD holds the deletions of the row before the first residue only: a
     * row's deletions run along it in kopd, so rows never store them.
     * XM, XI and XD: the largest km, kip and kd at each position over the
     * rows before the last, from -32768 (so that they are those sums). */
    __m256i *VM = (__m256i *)(void *)w->v8, *VI = VM + Q, *VD = VI + Q, *VX = VD + Q;
    __m256i *XM = VX + Q, *XI = XM + Q, *XD = XI + Q;
    const vls *tr = b->tr, *fi = b->first, *la = b->last;
    const __m256i low = _mm256_set1_epi16(NLOW), bottom = _mm256_set1_epi16(PAD);
    ST(&VM[0], LD(&fi[PS_PRF_M]));
    ST(&VI[0], LD(&fi[PS_PRF_I]));
    ST(&VD[0], LD(&fi[PS_PRF_D]));
    ST(&XI[0], bottom);
    __m256i vhigh = low;
    for (size_t q = 1; q < Q; q++) {
        const vls *t = tr + q * 16, *f = fi + q * 3;
        const __m256i kd = AD(LD(&VD[q - 1]), LD(&t[DELV]));
        vhigh = MX(vhigh, kd);
        ST(&VM[q], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_M])), LD(&f[PS_PRF_M])));
        ST(&VI[q], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_I])), LD(&f[PS_PRF_I])));
        ST(&VD[q], MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D])), LD(&f[PS_PRF_D])));
        ST(&XM[q], bottom);
        ST(&XI[q], bottom);
        ST(&XD[q], bottom);
    }
    uint32_t j = 0;
    if (lean) {
        for (; j + ROWS < n; j += ROWS) sweep(b, letters + j, ROWS, VM, VI, XM, XI, XD, &vhigh, 1);
        for (; j + 1 < n; j++) sweep(b, letters + j, 1, VM, VI, XM, XI, XD, &vhigh, 1);
    } else {
        for (; j + ROWS < n; j += ROWS) sweep(b, letters + j, ROWS, VM, VI, XM, XI, XD, &vhigh, 0);
        for (; j + 1 < n; j++) sweep(b, letters + j, 1, VM, VI, XM, XI, XD, &vhigh, 0);
    }
    __m256i over = _mm256_setzero_si256(); /* lean rows: lanes where a sum left out may have counted */
    /* The exits of the rows before the last, from their positions' maxima
     * (none where the sequence is one residue long). */
    if (n > 1) {
        vhigh = MX(vhigh, LD(&XI[0]));
        ST(&VX[0], MX(low, AD(LD(&XI[0]), LD(&tr[PS_PRF_I * 4 + PS_PRF_X]))));
        for (size_t q = 1; q < Q; q++) {
            const vls *t = tr + q * 16;
            const __m256i xm = LD(&XM[q]), xi = LD(&XI[q]), xd = LD(&XD[q]);
            vhigh = MX(vhigh, MX(MX(xm, xi), xd));
            if (lean)
                over = _mm256_or_si256(
                    over, _mm256_and_si256(LD(&b->real[q]), _mm256_or_si256(GT16(AD(xd, LD(&t[PS_PRF_D * 4 + PS_PRF_I])),
                                                                                  LD(&t[PS_PRF_X * 4 + PS_PRF_I])),
                                                                             GT16(AD(xi, LD(&t[PS_PRF_I * 4 + PS_PRF_D])),
                                                                                  LD(&t[PS_PRF_X * 4 + PS_PRF_D])))));
            ST(&VX[q], MX(MX(low, AD(xm, LD(&t[PS_PRF_M * 4 + PS_PRF_X]))),
                          MX(AD(xi, LD(&t[PS_PRF_I * 4 + PS_PRF_X])), AD(xd, LD(&t[PS_PRF_D * 4 + PS_PRF_X])))));
        }
    } else
        for (size_t q = 0; q < Q; q++) ST(&VX[q], low);
    /* The last residue: ends at the sequence's end (E0) only. */
    const vls *ms = b->ms + (size_t)letters[j] * Q, *is = b->is + (size_t)letters[j] * Q;
    __m256i kopm = LD(&VM[0]);
    const __m256i ki = AD(LD(&VI[0]), LD(&is[0]));
    __m256i kopd = START(ki, PS_PRF_D);
    vhigh = MX(vhigh, MX(ki, kopd));
    EXIT(0, AD(ki, LD(&la[PS_PRF_I])));
    for (size_t q = 1; q < Q; q++) {
        const vls *t = tr + q * 16, *e = la + q * 3;
        const __m256i km = AD(kopm, LD(&ms[q]));
        kopm = LD(&VM[q]);
        const __m256i kip = AD(LD(&VI[q]), LD(&is[q]));
        const __m256i kd = AD(kopd, LD(&t[DELV]));
        kopd = MX(MX(AD(km, LD(&t[PS_PRF_M * 4 + PS_PRF_D])), AD(kip, LD(&t[PS_PRF_I * 4 + PS_PRF_D]))),
                  MX(AD(kd, LD(&t[PS_PRF_D * 4 + PS_PRF_D])), LD(&t[PS_PRF_X * 4 + PS_PRF_D])));
        vhigh = MX(vhigh, MX(MX(km, kip), kd));
        EXIT(q, MX(MX(AD(km, LD(&e[PS_PRF_M])), AD(kip, LD(&e[PS_PRF_I]))), AD(kd, LD(&e[PS_PRF_D]))));
    }
    _mm256_storeu_si256((__m256i *)(void *)high, vhigh);
    return !_mm256_testz_si256(over, over);
}
#undef START
#undef EXIT
#endif

void ps_prf_bundle_best(const ps_prf_bundle_t *b, const uint8_t *letters, uint32_t n, int32_t *best, ps_prf_work_t *w)
{
    for (int i = 0; i < b->n; i++) best[i] = NLOW;
    if (n == 0 || b->n == 0) return;
    int16_t high[PS_PRF_LANES];
    int fast = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        const size_t need = (size_t)b->Q * 7 * PS_PRF_LANES / 2; /* int32 units */
        if (need > w->cap_v8) {
            free(w->v8);
            w->v8 = aligned_alloc(32, need * sizeof(int32_t));
            w->cap_v8 = w->v8 ? need : 0;
        }
        if (w->v8) {
            if (rows_avx2(b, letters, n, w, high, b->lean)) rows_avx2(b, letters, n, w, high, 0);
            fast = 1;
        }
    }
#endif
    uint8_t *idx = NULL;
    for (int i = 0; i < b->n; i++) {
        const uint32_t l = b->lane[i];
        if (fast && high[l] < b->top[l]) {
            const vls *VX = (const vls *)(const void *)w->v8 + (size_t)b->Q * 3;
            int32_t m = NLOW;
            for (uint32_t q = b->at[i]; q <= b->at[i] + b->prof[i]->len; q++) m = max32(m, VX[q][l]);
            if (m < HIGH) {
                best[i] = m;
                continue;
            }
        }
        /* Exactly, one profile at a time: no AVX2, or a value near the top. */
        if (!idx && !(idx = malloc(n))) {
            best[0] = INT32_MIN;
            return;
        }
        ps_profile_index(b->prof[i], letters, n, idx);
        best[i] = ps_profile_best(b->prof[i], idx, n, w);
    }
    free(idx);
}
