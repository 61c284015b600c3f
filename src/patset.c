#include "patset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guideset.h"
#include "pattern.h"

void ps_patset_free(ps_patset_t *ps)
{
    if (!ps) return;
    ps_patset_free(ps->fwd);
    free(ps->leaves.probe_leaf[0]);
    free(ps->leaves.probe_leaf[1]);
    free(ps->B);
    free(ps->first);
    free(ps->last);
    free(ps->sub);
    free(ps->leaf_drop);
    free(ps->leaf_at);
    free(ps->first_end);
    free(ps->zero);
    free(ps->zero_end);
    free(ps->last_start);
    free(ps->skip_start);
    free(ps->opt_I);
    free(ps->opt_F);
    free(ps->opt_A);
    free(ps->keep);
    free(ps->len_at);
    free(ps->gate_B);
    free(ps->gate_first);
    free(ps->gate_last);
    free(ps);
}

/* Probe i as a pattern: read, or made from an exact probe's codes. */
static void probe_pattern(const ps_probes_t *p, uint32_t i, ps_pattern_t *pat)
{
    const size_t k = (size_t)p->k;
    memset(pat->opt, 0, sizeof pat->opt);
    pat->anchors = 0;
    if (p->patterns) {
        pat->len = p->len[i];
        memcpy(pat->cls, p->cls + i * k, pat->len * sizeof *pat->cls);
        memcpy(pat->opt, p->opt + i * k, pat->len);
        pat->anchors = p->anchors[i];
    } else {
        pat->len = (uint32_t)k;
        for (size_t j = 0; j < k; j++) pat->cls[j] = (ps_class_t)1 << p->code[i * k + j];
    }
    pat->min_len = 0;
    for (uint32_t j = 0; j < pat->len; j++) pat->min_len += !pat->opt[j];
}

static inline void set_bit(uint64_t *v, uint64_t b) { v[b / 64] |= 1ull << (b % 64); }

/* Where a string of len <= 64 positions goes at or after bit at: at, or the
 * next word when it would cross into it. */
static inline uint64_t place_short(uint64_t at, uint32_t len)
{
    return at % 64 + len > 64 ? (at + 63) / 64 * 64 : at;
}

/* Lays out one string from bit `at`: the pattern as written (forward) or
 * reversed, with the masks of the general layout. */
static void lay_out(ps_patset_t *ps, const ps_pattern_t *pat, const uint8_t *fixed, int reversed, uint64_t at,
                    uint32_t leaf)
{
    const size_t w = ps->n_words;
    const uint32_t m = pat->len;
    uint8_t an = pat->anchors;
    /* In reading order: q[j] is pattern position m-1-j when reversed, and
     * the anchors that act first are the record's end. */
    int first_at_end = reversed ? !!(an & PS_ANCHOR_END) : 0;
    int last_at_start = reversed ? !!(an & PS_ANCHOR_START) : 0;
#define Q(j) (reversed ? (m - 1 - (j)) : (j))
    set_bit(first_at_end ? ps->first_end : ps->first, at);
    for (uint32_t j = 0; j < m; j++) {
        ps_class_t cls = pat->cls[Q(j)];
        for (int sym = 0; sym < ps->sigma; sym++)
            if (cls >> sym & 1) ps->B[(size_t)sym * w + (at + j) / 64] |= 1ull << ((at + j) % 64);
    }
    for (uint32_t j = 0; ps->sub && j < m; j++)
        if (!fixed[j]) set_bit(ps->sub, at + j);
    set_bit(last_at_start ? ps->last_start : ps->last, at + m - 1);
    ps->leaf_at[at + m - 1] = leaf;
    ps->len_at[at + m - 1] = m;
    if (!reversed) return;
    /* Leading optional positions are done before any symbol is read. */
    uint32_t j = 0;
    while (j < m && pat->opt[Q(j)]) set_bit(first_at_end ? ps->zero_end : ps->zero, at + j++);
    /* After one of them is read, the rest may still be skipped. */
    if (j >= 2) {
        set_bit(ps->opt_I, at);
        set_bit(ps->opt_F, at + j - 1);
        for (uint32_t t = 1; t < j; t++) set_bit(ps->opt_A, at + t);
        ps->has_opt = 1;
    }
    /* [G>]: at a record's end the first position may be skipped, and the
     * optional ones after it with it. */
    if (an & PS_ANCHOR_END_OR) {
        set_bit(ps->zero_end, at);
        for (uint32_t t = 1; t < m && pat->opt[Q(t)]; t++) set_bit(ps->zero_end, at + t);
    }
    if ((an & PS_ANCHOR_START_OR) && m >= 2) {
        set_bit(ps->skip_start, at + m - 2);
        ps->leaf_at[at + m - 2] = leaf;
    }
    /* Blocks of optional positions after the first: q[i..e] skipped from
     * bit i-1 up to bit e. */
    for (; j < m; j++) {
        if (!pat->opt[Q(j)]) continue;
        uint32_t e = j;
        while (e + 1 < m && pat->opt[Q(e + 1)]) e++;
        set_bit(ps->opt_I, at + j - 1);
        set_bit(ps->opt_F, at + e);
        for (uint32_t t = j; t <= e; t++) set_bit(ps->opt_A, at + t);
        ps->has_opt = 1;
        j = e;
    }
#undef Q
}

/* ---- the gate (patset.h) ------------------------------------------------ */

/* A letter's share of real sequence, to choose selective windows (an
 * estimate only: the gate is exact whatever it chooses): amino acids as
 * in Swiss-Prot, in percent; rare symbols (X, B, Z, U, ...) next to none. */
static double letter_share(ps_alpha_t a, char ch)
{
    if (a == PS_DNA) return ch && strchr("ACGT", ch) ? 0.25 : 0.001;
    static const char aa[] = "ARNDCQEGHILKMFPSTWYV";
    static const double pct[] = {8.3, 5.5, 4.1, 5.5, 1.4, 3.9, 6.7, 7.1, 2.3, 5.9,
                                 9.7, 5.8, 2.4, 3.9, 4.7, 6.6, 5.3, 1.1, 2.9, 6.9};
    const char *at = ch ? strchr(aa, ch) : NULL;
    return at ? pct[at - aa] / 100 : 0.001;
}

typedef struct {
    uint32_t st, len; /* positions [st, st + len) of the pattern */
    double share;     /* the chance that random text matches them at a letter */
} gate_win_t;

/* The window of pat that random text matches least often: a run of at most
 * 64 positions, none optional and none an edge may stand for ([<M], [G>]),
 * the shortest of the rarest; len 0 where every run matches anything. */
static gate_win_t gate_window(const ps_pattern_t *pat, ps_alpha_t a, int sigma)
{
    double cp[PS_PATTERN_MAX];
    for (uint32_t j = 0; j < pat->len; j++) {
        double sh = 0;
        for (int c = 0; c < sigma; c++)
            if (pat->cls[j] >> c & 1) sh += letter_share(a, ps_alpha_letter(a, c));
        cp[j] = sh < 1 ? sh : 1;
    }
    gate_win_t best = {0, 0, 1};
    const uint32_t lo = pat->anchors & PS_ANCHOR_START_OR ? 1 : 0;
    const uint32_t hi = pat->len - (pat->anchors & PS_ANCHOR_END_OR ? 1 : 0);
    for (uint32_t s = lo; s < hi; s++) {
        if (pat->opt[s] || cp[s] >= 1) continue; /* a window starts where it selects */
        double prod = 1;
        for (uint32_t l = 1; s + l <= hi && l <= 64 && !pat->opt[s + l - 1]; l++) {
            prod *= cp[s + l - 1];
            if (prod < best.share * (1 - 1e-9)) best = (gate_win_t){s, l, prod};
        }
    }
    return best;
}

/* The gate of an exact set in the general layout on one strand, where its
 * windows are few words and rare enough that reading backward only near
 * them pays (expected to cover under a quarter of random text); else none. */
static int build_gate(ps_patset_t *ps, const ps_probes_t *p, const uint32_t *idx, uint32_t n_idx, ps_pattern_t *pat,
                      ps_err_t *err)
{
    gate_win_t *win = malloc((size_t)(n_idx ? n_idx : 1) * sizeof *win);
    if (!win) return ps_fail(err, PS_E_NOMEM, "out of memory");
    uint64_t bits = 0;
    uint32_t before = 0, after = 0;
    double rate = 0;
    int ok = n_idx > 0;
    for (uint32_t j = 0; j < n_idx && ok; j++) {
        probe_pattern(p, idx ? idx[j] : j, pat);
        win[j] = gate_window(pat, p->alpha, ps->sigma);
        if (!win[j].len) ok = 0;
        bits = place_short(bits, win[j].len) + win[j].len;
        /* A site starts at most st positions before the window and ends at
         * most len - st after the window's start. */
        const uint32_t b = win[j].st + win[j].len - 1, f = pat->len - win[j].st - win[j].len + 1;
        before = b > before ? b : before;
        after = f > after ? f : after;
        rate += win[j].share;
    }
    const uint32_t words = (uint32_t)((bits + 63) / 64);
    const double share = rate * (before + after);
    if (!ok || share > 0.25 || words > ps->n_words) {
        free(win);
        return PS_OK;
    }
    const uint32_t stride = words <= 4 ? 4 : words;
    ps->gate_B = calloc((size_t)ps->sigma * stride, sizeof *ps->gate_B);
    ps->gate_first = calloc(stride, sizeof *ps->gate_first);
    ps->gate_last = calloc(stride, sizeof *ps->gate_last);
    if (!ps->gate_B || !ps->gate_first || !ps->gate_last) {
        free(win);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    uint64_t at = 0;
    for (uint32_t j = 0; j < n_idx; j++) {
        probe_pattern(p, idx ? idx[j] : j, pat);
        at = place_short(at, win[j].len);
        set_bit(ps->gate_first, at);
        for (uint32_t t = 0; t < win[j].len; t++)
            for (int c = 0; c < ps->sigma; c++)
                if (pat->cls[win[j].st + t] >> c & 1) set_bit(ps->gate_B + (size_t)c * stride, at + t);
        at += win[j].len;
        set_bit(ps->gate_last, at - 1);
    }
    free(win);
    ps->gate_words = words;
    ps->gate_stride = stride;
    ps->gate_before = before;
    ps->gate_after = after;
    ps->gate_share = share;
    return PS_OK;
}

int ps_patset_build(ps_patset_t **out, const ps_probes_t *p, int both_strands, int max_mm, ps_err_t *err)
{
    return ps_patset_build_part(out, p, NULL, p->n, both_strands, max_mm, err);
}

/* Which strings a set lays out: all; with the minus strand read forward
 * (fwd), the main set leaves out the reverse complements of variable-length
 * patterns, which its `fwd` set holds as the patterns themselves. */
enum { ALL, MAIN, FWD };

/* 1 when string (probe pattern pat, strand s) belongs in a set of kind
 * `which`. Every pattern that is not a window goes forward on the minus
 * strand: optional positions, and [<M] or [G>] whose edge may stand for a
 * letter, make its sites vary in length; for an anchored one of fixed
 * length either way counts the same. */
static int takes(int which, int s, const ps_pattern_t *pat)
{
    int var = !ps_pattern_is_window(pat);
    if (which == ALL) return 1;
    if (which == MAIN) return s == 0 || !var;
    return s == 1 && var;
}

static int build(ps_patset_t **out, const ps_probes_t *p, const uint32_t *idx, uint32_t n_idx, int strands,
                 int max_mm, int windows_only, int which, ps_err_t *err)
{
    *out = NULL;
    ps_patset_t *ps = calloc(1, sizeof *ps);
    ps_pattern_t *pat = malloc(2 * sizeof *pat);
    if (!ps || !pat) {
        free(ps);
        free(pat);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    ps->max_mm = max_mm;
    ps->guide_need = p->exact_pieces;
    ps->sigma = ps_alpha_sigma(p->alpha);
    /* Strings of up to 64 positions first, none across a word boundary;
     * longer ones after them, from a word boundary. */
    uint64_t short_at = 0, long_bits = 0;
    ps->min_len = UINT32_MAX;
    ps->windows_only = windows_only;
    for (uint32_t j = 0; j < n_idx; j++) {
        probe_pattern(p, idx ? idx[j] : j, pat);
        for (int s = 0; s < strands; s++) {
            if (!takes(which, s, pat)) continue;
            ps->n_strings++;
            if (pat->len <= 64) short_at = place_short(short_at, pat->len) + pat->len;
            else long_bits += pat->len;
        }
        if (pat->len < ps->min_len) ps->min_len = pat->len;
    }
    ps->free_words = (uint32_t)((short_at + 63) / 64);
    uint64_t bits = (uint64_t)ps->free_words * 64 + long_bits;
    int rc = PS_OK;
    if (bits > (uint64_t)UINT32_MAX / 2) {
        rc = ps_fail(err, PS_E_USAGE, "%u patterns are too many (%llu positions)", p->n, (unsigned long long)bits);
        goto fail;
    }
    ps->n_words = (uint32_t)((bits + 63) / 64);
    const size_t w = ps->n_words ? ps->n_words : 1;
    ps->B = calloc((size_t)ps->sigma * w, sizeof *ps->B);
    ps->first = calloc(w, sizeof *ps->first);
    ps->last = calloc(w, sizeof *ps->last);
    ps->leaf_at = calloc(64 * w, sizeof *ps->leaf_at);
    ps->len_at = calloc(64 * w, sizeof *ps->len_at);
    int bad = !ps->B || !ps->first || !ps->last || !ps->leaf_at || !ps->len_at;
    if (p->fixed) {
        if (!windows_only) {
            rc = ps_fail(err, PS_E_USAGE, "a PAM goes beside probes of fixed length");
            goto fail;
        }
        bad |= !(ps->sub = calloc(w, sizeof *ps->sub));
    }
    const uint32_t n_leaves = n_idx * (uint32_t)strands * ((uint32_t)max_mm + 1);
    if (p->limit) bad |= !(ps->leaf_drop = calloc(n_leaves ? n_leaves : 1, 1));
    if (!ps->windows_only) {
        uint64_t **general[] = {&ps->first_end, &ps->zero, &ps->zero_end, &ps->last_start, &ps->skip_start,
                                &ps->opt_I, &ps->opt_F, &ps->opt_A, &ps->keep};
        for (size_t g = 0; g < sizeof general / sizeof *general; g++) bad |= !(*general[g] = calloc(w, sizeof(uint64_t)));
    }
    for (int s = 0; s < strands && which != FWD; s++)
        bad |= !(ps->leaves.probe_leaf[s] = malloc((size_t)(n_idx ? n_idx : 1) * sizeof(uint32_t)));
    if (bad) {
        rc = ps_fail(err, PS_E_NOMEM, "out of memory for %u patterns", p->n);
        goto fail;
    }
    const uint32_t levels = (uint32_t)max_mm + 1;
    uint64_t at_short = 0, at_long = (uint64_t)ps->free_words * 64;
    uint8_t fx[2][PS_PATTERN_MAX];
    for (uint32_t j = 0; j < n_idx; j++) {
        const uint32_t i = idx ? idx[j] : j;
        probe_pattern(p, i, &pat[0]);
        if (strands == 2) ps_pattern_revcomp(&pat[0], &pat[1]);
        const uint32_t len = pat[0].len;
        for (uint32_t t = 0; ps->sub && t < len; t++)
            fx[0][t] = fx[1][len - 1 - t] = p->fixed[(size_t)i * (size_t)p->k + t];
        for (int s = 0; s < strands; s++) {
            uint32_t leaf = (j * (uint32_t)strands + (uint32_t)s) * levels;
            if (which != FWD) ps->leaves.probe_leaf[s][j] = leaf;
            for (uint32_t d = p->limit ? p->limit[i] + 1u : levels; ps->leaf_drop && d < levels; d++)
                ps->leaf_drop[leaf + d] = 1;
            if (!takes(which, s, &pat[0])) continue;
            /* The forward set reads the complement of the text forward:
             * the pattern itself then matches where its reverse complement
             * lies, a site found at its right end (its start on the minus
             * strand). */
            const ps_pattern_t *q = which == FWD ? &pat[0] : &pat[s];
            uint64_t at;
            if (q->len <= 64) {
                at = place_short(at_short, q->len);
                at_short = at + q->len;
            } else {
                at = at_long;
                at_long += q->len;
            }
            lay_out(ps, q, fx[which == FWD ? 0 : s], !ps->windows_only, at, leaf);
        }
    }
    if (!windows_only && strands == 1 && max_mm == 0 && !p->fixed && which == ALL &&
        (rc = build_gate(ps, p, idx, n_idx, pat, err)) < 0)
        goto fail;
    free(pat);
    for (size_t i = 0; ps->keep && i < w; i++) ps->keep[i] = ~(ps->first[i] | ps->first_end[i]);
    ps->leaves.alpha = p->alpha;
    ps->leaves.k = p->k;
    ps->leaves.levels = (int)levels;
    ps->leaves.both_strands = strands == 2;
    ps->leaves.n_leaves = n_idx * (uint32_t)strands * levels;
    ps->leaves.mixed_lengths = ps->min_len < (uint32_t)p->k;
    ps->leaves.sequential = !ps->windows_only;
    *out = ps;
    return PS_OK;
fail:
    free(pat);
    ps_patset_free(ps);
    return rc;
}

int ps_patset_build_part(ps_patset_t **out, const ps_probes_t *p, const uint32_t *idx, uint32_t n_idx,
                         int both_strands, int max_mm, ps_err_t *err)
{
    *out = NULL;
    if (max_mm < 0 || max_mm > PS_MAX_MM)
        return ps_fail(err, PS_E_USAGE, "--mismatches must be 0 to %d, not %d", PS_MAX_MM, max_mm);
    const int strands = both_strands && p->alpha == PS_DNA ? 2 : 1;
    int windows_only = 1;
    ps_pattern_t *pat = malloc(sizeof *pat);
    if (!pat) return ps_fail(err, PS_E_NOMEM, "out of memory");
    for (uint32_t j = 0; j < n_idx && windows_only; j++) {
        probe_pattern(p, idx ? idx[j] : j, pat);
        if (!ps_pattern_is_window(pat)) windows_only = 0;
    }
    free(pat);
    /* A site counts once per start on its own strand: read backward, the
     * reverse complement of a variable-length pattern would count once per
     * left end, the minus strand's end; so it is matched forward instead. */
    const int split = strands == 2 && !windows_only;
    int rc = build(out, p, idx, n_idx, strands, max_mm, windows_only, split ? MAIN : ALL, err);
    if (rc == PS_OK && split && (rc = build(&(*out)->fwd, p, idx, n_idx, strands, max_mm, 0, FWD, err)) < 0) {
        ps_patset_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The words a symbol steps: the set's and its forward part's. */
static uint32_t set_words(const ps_patset_t *ps) { return ps->n_words + (ps->fwd ? ps->fwd->n_words : 0); }

double ps_patset_gpu_share(const ps_patset_t *ps, double cpu_s)
{
    if (cpu_s < 0) return -1;
    /* DNA windows (guide libraries among them): the CPU's rule, one GPU a
     * second (10^4 and 10^5 guides ran 1.3x and 1.6x faster on two). */
    if (ps->leaves.alpha == PS_DNA && ps->windows_only && !ps->fwd) return cpu_s;
    /* Two GPUs ran all r14 patterns (423 words) over 797 M residues no
     * faster than one, in order or from blocks parsed on every thread: the
     * GPU's work (about 0.34 s) is a third of the 1.0-1.1 s run. */
    const double share = (double)set_words(ps) * (ps->max_mm + 1) / 500.0;
    return share < cpu_s ? share : cpu_s;
}

double ps_patset_cpu_seconds(const ps_patset_t *ps, double bytes, int threads, char *why, size_t len)
{
    if (bytes == 0) {
        snprintf(why, len, "input size unknown");
        return -1;
    }
    /* A guide library: the guide engine's rate (guideset.h). */
    ps_guideset_t *g = NULL;
    char gwhy[160];
    ps_err_t gerr;
    if (ps_guideset_build(&g, ps, ps->guide_need, 0, 1, gwhy, sizeof gwhy, &gerr) == PS_OK) {
        const double s = bytes * g->cost_ns * 1e-9 / threads;
        const ps_guide_pieces_t *ix = &g->pieces[0];
        char how[96];
        if (ix->n)
            snprintf(how, sizeof how, "by %u exact pieces of %u (%u lookups a window, %.0f strings compared)",
                     ix->need, ix->pieces, ix->n, ix->expect);
        else snprintf(how, sizeof how, "all");
        snprintf(why, len, "about %.0f MB of sequence, guides compared %s%s, %.2f s on %d CPU threads", bytes / 1e6,
                 g->P ? "where their PAM holds, " : "", how, s, threads);
        ps_guideset_free(g);
        return s;
    }
    /* The forward part is a pass of its own over the same text. */
    uint32_t words = set_words(ps);
    /* A gated set reads its windows, and its words only where they match. */
    if (ps->gate_words) words = ps->gate_words + (uint32_t)(ps->gate_share * ps->n_words + 0.5);
    /* Sets that are no window: 1 ns a word and byte on a thread since their
     * windows go apart (ps_split_windows_new); measured 0.80 ns (all r14
     * patterns, 253 MB, 16 threads, H200 host) and 0.56 ns (2 cores). */
    double cpu_s = bytes * words * (ps->max_mm + 1) * (ps->windows_only ? 2e-9 : 1e-9) / threads;
    snprintf(why, len, "about %.0f MB of sequence x %u words x %d levels, %.2f s on %d CPU threads", bytes / 1e6,
             words, ps->max_mm + 1, cpu_s, threads);
    return cpu_s;
}
