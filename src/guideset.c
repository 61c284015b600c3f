#include "guideset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "parallel.h"

void ps_guideset_free(ps_guideset_t *g)
{
    if (!g) return;
    for (int st = 0; st < 2; st++) {
        const ps_guide_pieces_t *ix = &g->pieces[st];
        if (ix->start) munmap(ix->start, ix->start_len);
        if (ix->ent) munmap(ix->ent, ix->ent_len);
    }
    free(g->code);
    free(g->care);
    free(g->leaf);
    free(g->lim);
    free(g->pam_ok[0]);
    free(g->pam_ok[1]);
    free(g);
}

static inline int bit_at(const uint64_t *v, uint64_t b) { return (int)(v[b / 64] >> (b % 64) & 1); }

/* One string of the set as read from its bits. */
typedef struct {
    uint64_t at;         /* its first bit */
    uint32_t len, leaf;
    int strand;
} str_t;

/* The classes of string t's positions (bit c: base c), and which are fixed. */
static void classes(const ps_patset_t *ps, const str_t *t, uint8_t *cls, uint8_t *fixed)
{
    for (uint32_t j = 0; j < t->len; j++) {
        const uint64_t b = t->at + j;
        cls[j] = 0;
        for (int c = 0; c < 4; c++) cls[j] |= (uint8_t)(bit_at(ps->B + (size_t)c * ps->n_words, b) << c);
        fixed[j] = ps->sub && !bit_at(ps->sub, b);
    }
}

/* A CPU thread's time a window on an exact-piece index, by the tables'
 * size: a seed's lookup (its key, the fetch of its bucket's bounds and
 * first entries, the branch its bucket's end mispredicts) and a string
 * compared in a bucket. Fitted on machine A's 2 cores to 10^3, 10^4 and
 * 10^5 yeast 20-mers within 3 and 4 over half the yeast genome, r = 1 to
 * 4: tables in cache, 15 and 2 ns; up to 32 MB, 25 and 3 ns; beyond, the
 * lookups wait for memory, 80 and 5 ns (short buckets read line by line).
 * Guides drawn from a genome share its skew: their buckets in its windows
 * hold about twice the strings that 4^-L says (yeast: 1.3x at keys of 4
 * bases, 2x at 8, 2.3x at 10). */
#define SKEW 2.0
static double lookup_ns(double bytes, double seeds, double strings)
{
    strings *= SKEW;
    if (bytes < 4e6) return seeds * 15.0 + strings * 2.0;
    if (bytes < 32e6) return seeds * 25.0 + strings * 3.0;
    return seeds * 80.0 + strings * 5.0;
}

/* The GPU's time a window on an index, in lookups: a thread a window, so
 * that many windows' lookups wait for memory at once, a string compared
 * costs 0.4 of a lookup (fitted on an H200 to 10^4 yeast 20-mers within 3
 * and 10^5 within 4 over 1.02 Gbp, r = 1 to 4, strings by 4^-L). */
static double gpu_lookups(double seeds, double strings) { return seeds + 0.4 * strings; }
/* The most an index may take where r > 1 (r = 1 takes what it takes). */
#define MOST_BYTES (512.0 * 1048576.0)

/* Zeroed memory for an index's tables (*len: the bytes mapped), in huge
 * pages where the system gives them on request: a window's lookups land on
 * pages all over the tables, and with 4 KB pages nearly each is a TLB
 * miss. Pages are zeroed where first touched, by the thread that builds
 * them. */
static void *big_alloc(size_t bytes, size_t *len)
{
    const size_t huge = (size_t)2 << 20;
    *len = bytes < huge ? (bytes ? bytes : 1) : (bytes + huge - 1) / huge * huge;
    void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (*len >= huge) (void)madvise(p, *len, MADV_HUGEPAGE); /* advice: where refused, small pages serve */
    return p;
}

static uint64_t choose(uint32_t n, uint32_t k)
{
    uint64_t c = 1;
    for (uint32_t i = 0; i < k; i++) c = c * (n - i) / (i + 1);
    return c;
}

/* The index of n strings over compared positions [c0, c0 + span) with D
 * mismatches at most and r exact pieces: its layout in ix (no tables);
 * returns its estimated time a window (ns), or -1 where it does not fit. */
static double plan_pieces(ps_guide_pieces_t *ix, uint32_t m, uint32_t c0, uint32_t span, uint32_t n, uint32_t D,
                          uint32_t r)
{
    const uint32_t np = D + r;
    if (np > span || np > PS_GUIDESET_MAX_PIECES) return -1;
    const uint64_t seeds = choose(np, r);
    if (seeds > PS_GUIDESET_MAX_SEEDS) return -1;
    memset(ix, 0, sizeof *ix);
    ix->pieces = np;
    ix->need = r;
    ix->strings = n;
    /* Two buckets a string for D + 1 pieces, four for more seeds: a
     * hashed key's bucket holds strings of other keys half (a quarter of)
     * a string a lookup, which many seeds add up. */
    uint32_t bits = 4;
    while (bits < 24 && (1ull << bits) < (r > 1 ? 4ull : 2ull) * n) bits++;
    ix->bits = bits;
    for (uint32_t q = 0; q < np; q++) {
        const uint32_t from = c0 + q * span / np, len = c0 + (q + 1) * span / np - from;
        ix->psh[q] = 2 * (m - from - len);
        ix->plen2[q] = 2 * len;
        ix->pkm[q] = len == 32 ? ~0ull : (1ull << (2 * len)) - 1;
        ix->pmask[q] = ix->pkm[q] << ix->psh[q];
    }
    /* The seeds: every r of the pieces, in lexicographic order. */
    uint32_t pick[PS_GUIDESET_MAX_NEED];
    for (uint32_t i = 0; i < r; i++) pick[i] = i;
    double expect = 0;
    for (;;) {
        uint32_t comb = 0, l2 = 0;
        for (uint32_t i = 0; i < r; i++) comb |= 1u << pick[i], l2 += ix->plen2[pick[i]];
        ix->comb[ix->n] = (uint16_t)comb;
        ix->klen2[ix->n] = (uint8_t)l2;
        ix->n++;
        expect += (double)n * (ldexp(1.0, -(int)l2) + (l2 > bits ? ldexp(1.0, -(int)bits) : 0));
        int i = (int)r - 1;
        while (i >= 0 && pick[i] == np - r + (uint32_t)i) i--;
        if (i < 0) break;
        pick[i]++;
        for (uint32_t j = (uint32_t)i + 1; j < r; j++) pick[j] = pick[j - 1] + 1;
    }
    ix->expect = expect;
    ix->bytes = (double)ix->n * ((double)((1ull << bits) + 1) * 4.0 + (double)n * sizeof(ps_guide_entry_t));
    if (r > 1 && ix->bytes > MOST_BYTES) return -1;
    return lookup_ns(ix->bytes, ix->n, expect);
}

/* Seeds handed out to the threads that build an index's tables. */
typedef struct {
    ps_guide_pieces_t *ix;
    const ps_guideset_t *g;
    uint32_t a;          /* the index's first string in g */
    uint32_t next;       /* the next seed to build (atomic) */
} build_t;

/* Seed s's buckets and entries (key: n words of scratch). */
static void build_seed(const build_t *b, uint32_t s, uint64_t *key)
{
    const ps_guide_pieces_t *ix = b->ix;
    const uint32_t n = ix->strings;
    const uint64_t buckets = 1ull << ix->bits;
    uint32_t *start = ix->start + s * (buckets + 1);
    ps_guide_entry_t *ent = ix->ent + (size_t)s * n;
    const uint64_t *code = b->g->code + b->a;
    for (uint32_t i = 0; i < n; i++) {
        key[i] = ps_guide_seed_key(ix, s, code[i]);
        start[key[i] + 1]++;
    }
    for (uint64_t k = 0; k < buckets; k++) start[k + 1] += start[k];
    /* Filled in place, then moved back one bucket. */
    for (uint32_t i = 0; i < n; i++)
        ent[start[key[i]]++] = (ps_guide_entry_t){code[i], b->g->leaf[b->a + i], b->g->lim[b->a + i]};
    for (uint64_t k = buckets; k > 0; k--) start[k] = start[k - 1];
    start[0] = 0;
}

/* A part takes seeds until none is left (parallel.h). */
static void build_part(void *ctx, int part, int parts)
{
    (void)part;
    (void)parts;
    build_t *b = ctx;
    uint64_t *key = malloc((size_t)b->ix->strings * sizeof *key);
    if (!key) return; /* the seeds are left to the parts that have memory */
    for (uint32_t s; (s = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED)) < b->ix->n;) build_seed(b, s, key);
    free(key);
}

/* The exact-piece index of strings [a, b): where they share one compared
 * block of positions, with r = need exact pieces (the most that fit below
 * it where it does not), or the r of the least estimated work (need 0).
 * Left empty (n 0) where it would not cut the compares to a quarter.
 * *expect: strings compared a window; *cost: a thread's time on it (ns). */
static int index_pieces(ps_guideset_t *g, int st, uint32_t a, uint32_t b, int need, int flags, int threads,
                        double *expect, double *cost)
{
    ps_guide_pieces_t *ix = &g->pieces[st];
    const uint32_t n = b - a, m = g->m;
    *expect = n;
    *cost = n * 1.0;
    if (n == 0) return 0;
    const uint64_t care = g->care[a];
    uint32_t D = 0;
    for (uint32_t i = a; i < b; i++) {
        if (g->care[i] != care) return 0;
        if (g->lim[i] > D) D = g->lim[i];
    }
    /* The compared positions, one block: symbols c0 .. c1 - 1 from the window's start. */
    uint32_t c0 = 0;
    while (c0 < m && !(care >> (2 * (m - 1 - c0)) & 3)) c0++;
    uint32_t c1 = c0;
    while (c1 < m && (care >> (2 * (m - 1 - c1)) & 3)) c1++;
    for (uint32_t j = c1; j < m; j++)
        if (care >> (2 * (m - 1 - j)) & 3) return 0;
    ps_guide_pieces_t best, trial;
    double best_ns = -1, best_work = -1;
    const uint32_t r0 = need > 0 ? (uint32_t)need : 1, r1 = need > 0 ? (uint32_t)need : PS_GUIDESET_MAX_NEED;
    for (uint32_t r = r0; r <= r1; r++) {
        const double ns = plan_pieces(&trial, m, c0, c1 - c0, n, D, r);
        if (ns < 0) continue;
        const double work = flags & PS_GUIDESET_GPU ? gpu_lookups(trial.n, trial.expect) : ns;
        if (best_work < 0 || work < best_work) best = trial, best_ns = ns, best_work = work;
    }
    /* A forced r that does not fit: the most that does. */
    for (uint32_t r = r0; best_ns < 0 && need > 0 && r > 1; r--) best_ns = plan_pieces(&best, m, c0, c1 - c0, n, D, r - 1);
    /* Asked for, an index is built wherever it fits. */
    if (best_ns < 0 || (need == 0 && best.expect > n / 4.0)) return 0;
    best.care = care;
    *ix = best;
    *expect = ix->expect;
    *cost = best_ns;
    if (!(flags & PS_GUIDESET_TABLES)) return 0;
    const uint64_t row = (1ull << ix->bits) + 1;
    ix->start = big_alloc((size_t)(ix->n * row) * sizeof(uint32_t), &ix->start_len);
    ix->ent = big_alloc((size_t)ix->n * n * sizeof(ps_guide_entry_t), &ix->ent_len);
    if (!ix->start || !ix->ent) return -1;
    /* The seeds' tables are independent: built on up to `threads` threads
     * (this one among them), a seed at a time. */
    build_t job = {ix, g, a, 0};
    ps_parallel_run(threads < (int)ix->n ? threads : (int)ix->n, build_part, &job);
    /* Where no part had memory for its keys, no seed was built. */
    return job.next < ix->n ? -1 : 0;
}

int ps_guideset_build(ps_guideset_t **out, const ps_patset_t *ps, int need, int flags, int threads, char *why,
                      size_t len, ps_err_t *err)
{
    *out = NULL;
    if (ps->leaves.alpha != PS_DNA || !ps->windows_only || ps->fwd || ps->n_strings == 0) {
        snprintf(why, len, "not DNA windows");
        return 1;
    }
    const uint32_t nw = ps->n_words, levels = (uint32_t)ps->max_mm + 1, strands = ps->leaves.both_strands ? 2u : 1u;
    str_t *s = malloc(ps->n_strings * sizeof *s);
    if (!s) return ps_fail(err, PS_E_NOMEM, "out of memory");
    uint32_t n = 0;
    int rc = 1;
    for (uint64_t b = 0; b < (uint64_t)nw * 64 && n < ps->n_strings; b++) {
        if (!bit_at(ps->first, b)) continue;
        uint64_t e = b;
        while (e < (uint64_t)nw * 64 && !bit_at(ps->last, e)) e++;
        if (e == (uint64_t)nw * 64) break;
        const uint32_t leaf = ps->leaf_at[e];
        s[n++] = (str_t){b, (uint32_t)(e - b + 1), leaf, (int)(leaf / levels % strands)};
        b = e;
    }
    ps_guideset_t *g = NULL;
    uint8_t cls[PS_GUIDESET_MAX_LEN], fx[PS_GUIDESET_MAX_LEN];
    /* Per strand: the PAM block (offset, length, classes) of its first string. */
    int have[2] = {0, 0};
    uint32_t off[2] = {0, 0}, P = 0;
    uint8_t pcls[2][PS_GUIDESET_MAX_PAM];
    const uint32_t m = n ? s[0].len : 0;
    if (n != ps->n_strings) {
        snprintf(why, len, "strings not found in the layout");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].len != m || m > PS_GUIDESET_MAX_LEN) {
            snprintf(why, len, "probes of more than one length, or over %d positions", PS_GUIDESET_MAX_LEN);
            goto done;
        }
        classes(ps, &s[i], cls, fx);
        uint32_t o = 0, p = 0;
        while (o < m && !fx[o]) o++;
        while (o + p < m && fx[o + p]) p++;
        if (p == 0) o = 0;
        for (uint32_t j = o + p; j < m; j++)
            if (fx[j]) {
                snprintf(why, len, "fixed positions in more than one block");
                goto done;
            }
        if (p > PS_GUIDESET_MAX_PAM) {
            snprintf(why, len, "a PAM of %u positions (at most %d are tested first)", p, PS_GUIDESET_MAX_PAM);
            goto done;
        }
        for (uint32_t j = 0; j < m; j++)
            if (!fx[j] && cls[j] != 15 && (cls[j] & (cls[j] - 1))) {
                snprintf(why, len, "a probe position with a class of bases (only single bases and N are compared)");
                goto done;
            }
        const int st = s[i].strand;
        if (i && p != P) {
            snprintf(why, len, "probes with different PAMs");
            goto done;
        }
        P = p;
        if (!have[st]) {
            have[st] = 1;
            off[st] = o;
            memcpy(pcls[st], cls + o, p);
        } else if (o != off[st] || memcmp(pcls[st], cls + o, p)) {
            snprintf(why, len, "probes with different PAMs");
            goto done;
        }
    }
    if (!(g = calloc(1, sizeof *g))) goto oom;
    g->m = m;
    g->P = P;
    g->n = n;
    g->pam_mask = P ? (1ull << (2 * P)) - 1 : 0;
    double pass = 1;
    if (P) {
        const uint64_t codes = 1ull << (2 * P);
        pass = 0;
        for (int st = 0; st < 2; st++) {
            if (!(g->pam_ok[st] = calloc(codes / 64 + 1, sizeof(uint64_t)))) goto oom;
            g->pam_shift[st] = 2 * (m - off[st] - P);
            if (!have[st]) continue;
            uint64_t ok = 0;
            for (uint64_t c = 0; c < codes; c++) {
                int yes = 1;
                for (uint32_t j = 0; j < P && yes; j++) yes = pcls[st][j] >> (c >> (2 * (P - 1 - j)) & 3) & 1;
                if (yes) g->pam_ok[st][c >> 6] |= 1ull << (c & 63), ok++;
            }
            if ((double)ok / (double)codes > pass) pass = (double)ok / (double)codes;
        }
    }
    g->pass = pass;
    g->code = malloc(n * sizeof *g->code);
    g->care = malloc(n * sizeof *g->care);
    g->leaf = malloc(n * sizeof *g->leaf);
    g->lim = malloc(n);
    if (!g->code || !g->care || !g->leaf || !g->lim) goto oom;
    /* Plus strand first, then minus, each in layout order. */
    uint32_t k = 0;
    for (int st = 0; st < 2; st++) {
        for (uint32_t i = 0; i < n; i++) {
            if (s[i].strand != st) continue;
            classes(ps, &s[i], cls, fx);
            uint64_t code = 0, care = 0;
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t sh = 2 * (m - 1 - j);
                if (fx[j] || cls[j] == 15) continue;
                code |= (uint64_t)__builtin_ctz(cls[j]) << sh;
                care |= 3ull << sh;
            }
            int lim = ps->max_mm;
            for (int d = 0; ps->leaf_drop && d <= ps->max_mm; d++)
                if (ps->leaf_drop[s[i].leaf + (uint32_t)d]) {
                    lim = d - 1;
                    break;
                }
            g->code[k] = code;
            g->care[k] = care;
            g->leaf[k] = s[i].leaf;
            g->lim[k] = (uint8_t)(lim < 0 ? 0 : lim);
            k++;
        }
        if (st == 0) g->n_plus = k;
    }
    double expect[2] = {0, 0}, ns[2] = {0, 0};
    /* Without a PAM both strands' strings share one index, where they
     * share their compared positions: half the lookups a window. */
    int joint = P == 0 && g->n_plus < n;
    for (uint32_t i = 1; joint && i < n; i++) joint = g->care[i] == g->care[0];
    if (joint) {
        if (index_pieces(g, 0, 0, n, need, flags, threads, &expect[0], &ns[0]) < 0) goto oom;
        g->joint = g->pieces[0].n > 0;
    }
    if (!g->joint && (index_pieces(g, 0, 0, g->n_plus, need, flags, threads, &expect[0], &ns[0]) < 0 ||
                      index_pieces(g, 1, g->n_plus, g->n, need, flags, threads, &expect[1], &ns[1]) < 0))
        goto oom;
    g->compares = pass * (expect[0] + expect[1]);
    /* A thread's time a window, parsing included: about 20 ns to parse a
     * base, form the window and test its PAM (fitted to 1,000 yeast guides
     * over yeast x 10 and x 84 on an H200 host's 16 threads: 21 ns a
     * window with NGG), then each strand's index (plan_pieces), or 1 ns a
     * string compared in the loop over all. */
    g->cost_ns = 20.0 + pass * (ns[0] + ns[1]);
    if (pass > 0.25 && g->compares > n / 4.0) {
        snprintf(why, len, "no PAM or piece index that would save work");
        goto done;
    }
    *out = g;
    g = NULL;
    rc = PS_OK;
    goto done;
oom:
    rc = ps_fail(err, PS_E_NOMEM, "out of memory for the guide set");
done:
    ps_guideset_free(g);
    free(s);
    return rc;
}
