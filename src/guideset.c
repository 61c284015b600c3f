#include "guideset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ps_guideset_free(ps_guideset_t *g)
{
    if (!g) return;
    for (int st = 0; st < 2; st++)
        for (uint32_t q = 0; q < g->pieces[st].n; q++) {
            free(g->pieces[st].start[q]);
            free(g->pieces[st].ent[q]);
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

/* The exact-piece index of strings [a, b): where they share one compared
 * block of positions [c0, c1), cut into D + 1 pieces (D the largest limit),
 * each keyed by up to `most` of its first positions. Left empty (n 0) where
 * it would not cut the compares to a quarter. *expect: strings compared a
 * window. */
static int index_pieces(ps_guideset_t *g, int st, uint32_t a, uint32_t b, double *expect)
{
    ps_guide_pieces_t *ix = &g->pieces[st];
    const uint32_t n = b - a, m = g->m;
    *expect = n;
    if (n == 0) return 0;
    const uint64_t care = g->care[a];
    int D = 0;
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
    const uint32_t np = (uint32_t)D + 1, span = c1 - c0;
    if (np > span || np > PS_GUIDESET_MAX_PIECES) return 0;
    /* Keys of about log4(n) + 2 symbols: buckets of a string or fewer. */
    uint32_t most = 2;
    while (most < 11 && (1ull << (2 * (most - 2))) < n) most++;
    double want = 0;
    uint32_t from[PS_GUIDESET_MAX_PIECES], len[PS_GUIDESET_MAX_PIECES];
    for (uint32_t q = 0; q < np; q++) {
        from[q] = c0 + q * span / np;
        const uint32_t to = c0 + (q + 1) * span / np;
        len[q] = to - from[q] < most ? to - from[q] : most;
        want += (double)n / (double)(1ull << (2 * len[q]));
    }
    if (want > n / 4.0) return 0;
    ix->care = care;
    for (uint32_t q = 0; q < np; q++) {
        const uint64_t keys = 1ull << (2 * len[q]);
        ix->shift[q] = 2 * (m - from[q] - len[q]);
        ix->key_mask[q] = keys - 1;
        ix->exact[q] = (keys - 1) << ix->shift[q];
        ix->start[q] = calloc(keys + 1, sizeof(uint32_t));
        ix->ent[q] = malloc(n * sizeof(ps_guide_entry_t));
        ix->n = q + 1;
        if (!ix->start[q] || !ix->ent[q]) return -1;
        for (uint32_t i = a; i < b; i++) ix->start[q][(g->code[i] >> ix->shift[q] & (keys - 1)) + 1]++;
        for (uint64_t k = 0; k < keys; k++) ix->start[q][k + 1] += ix->start[q][k];
        uint32_t *fill = ix->start[q]; /* filled in place, then moved back one bucket */
        for (uint32_t i = a; i < b; i++)
            ix->ent[q][fill[g->code[i] >> ix->shift[q] & (keys - 1)]++] = (ps_guide_entry_t){g->code[i], g->leaf[i], g->lim[i]};
        for (uint64_t k = keys; k > 0; k--) fill[k] = fill[k - 1];
        fill[0] = 0;
    }
    *expect = want;
    return 0;
}

int ps_guideset_build(ps_guideset_t **out, const ps_patset_t *ps, char *why, size_t len, ps_err_t *err)
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
    double expect[2] = {0, 0};
    /* Without a PAM both strands' strings share one index, where they
     * share their compared positions: half the keys a window. */
    int joint = P == 0 && g->n_plus < n;
    for (uint32_t i = 1; joint && i < n; i++) joint = g->care[i] == g->care[0];
    if (joint) {
        if (index_pieces(g, 0, 0, n, &expect[0]) < 0) goto oom;
        g->joint = g->pieces[0].n > 0;
    }
    if (!g->joint && (index_pieces(g, 0, 0, g->n_plus, &expect[0]) < 0 ||
                      index_pieces(g, 1, g->n_plus, g->n, &expect[1]) < 0))
        goto oom;
    g->compares = pass * (expect[0] + expect[1]);
    /* A thread's time a window, parsing included, fitted to runs on the
     * H200 host's 16 threads (1,000 yeast guides over yeast x 10 and x 84:
     * 21 ns a window with NGG, 131 ns without a PAM): about 20 ns to parse
     * a base, form the window and test its PAM, 14 ns a string compared
     * through the index (a bucket's fetch, a branch it mispredicts; real
     * genomes fill the guides' buckets more than the 4^L estimate says),
     * 1 ns a string compared in the loop over all. */
    g->cost_ns = 20.0;
    for (int st = 0; st < 2; st++) g->cost_ns += pass * expect[st] * (g->pieces[st].n ? 14.0 : 1.0);
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
