/* test_prosite.c - PROSITE patterns matched as ps_scan.pl matches them
 * (prosite.c), against brute-force oracles written here from the Perl
 * (pftools' ps_scan.pl: prositeToRegexp and scanPattern):
 *   - one start: every expansion of the pattern's elements (each repeat
 *     count, and for [<M] / [G>] the class or the edge) is enumerated, and
 *     the one Perl's backtracking takes first is picked by its preference
 *     rank (greedy: counts high to low, the first element first; lazy
 *     (--shortest): low to high; the class before the edge); its length,
 *     counts, X's and ps_scan's text are compared with ps_psrule_match and
 *     ps_psrule_text;
 *   - a whole sequence: scanPattern's loop transcribed (leftmost match from
 *     pos, pos = start + 1 or the end with -v, the included and X rules)
 *     against the program's pipeline (every start where ps_psrule_match
 *     succeeds, offered to ps_psscan_report), for every combination of
 *     --included, --no-overlaps, --shortest and --max-x 0..2;
 *   - hand-written cases checked against ps_scan.pl's own output.
 * Classes follow the Perl text rules (B/Z/X), not ps_psscan_class.
 *
 * Two things ps_scan.pl does are not copied on purpose (README, counting
 * rules; no PROSITE pattern has them), and the oracle follows the program:
 *   - '^' of an element [<M] is Perl's start of substr($sequence, $pos), so
 *     the edge also holds at every search position, not only at the
 *     sequence's first residue ([<M]-A on MAA: ps_scan reports 1-2 and 3-3);
 *   - a class holding X ([CX], {X}) becomes "." in Perl: any residue. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "prosite.h"
#include "testutil.h"

static const char syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

enum { OMAX = 12, SEQMAX = 64, SITEMAX = 2 * SEQMAX };

/* ck_assert_msg marks every passing check (a write in fork mode); the
 * random cases make millions, so they fail through this instead. */
#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) ck_abort_msg(__VA_ARGS__); \
    } while (0)

static void encode(const char *s, uint8_t *out)
{
    for (size_t i = 0; s[i]; i++) {
        const char *p = strchr(syms, s[i]);
        REQUIRE(s[i] && p, "'%c' is not a protein symbol", s[i]);
        out[i] = (uint8_t)(p - syms);
    }
}

/* ---- the oracle's pattern, read from the text as prositeToRegexp reads it */

typedef struct {
    char kind;      /* 'x', '[' (a letter or [...]) or '{' */
    char state[40]; /* prositeToRegexp's class text: B/Z rules applied, X added to a positive one */
    int lo, hi;
    int repeat;  /* written with (n) or (n,m) */
    int biggest; /* the last number written in the repeat (the text's padding) */
    int or_start, or_end;
} oel_t;

typedef struct {
    oel_t el[OMAX];
    int n, start, end; /* start: '<' ("^" before everything); end: '>' */
} opat_t;

/* s/C/with/g on in; 1 when C was there. */
static int subst(const char *in, char c, const char *with, char *out)
{
    int hit = 0;
    for (; *in; in++) {
        if (*in == c) {
            strcpy(out, with);
            out += strlen(with);
            hit = 1;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return hit;
}

/* s/([two])/$1C/g on in. */
static void add_after(const char *in, const char *two, char c, char *out)
{
    for (; *in; in++) {
        *out++ = *in;
        if (strchr(two, *in)) *out++ = c;
    }
    *out = '\0';
}

/* prositeToRegexp:
 *   if ($not) { s/B/NDB/g; s/Z/QEZ/g }
 *   else { s/B/NDB/g or s/([ND])/$1B/g; s/Z/QEZ/g or s/([QE])/$1Z/g; .= "X" } */
static void perl_state(const char *letters, int negated, char *out)
{
    char t[40];
    if (negated) {
        subst(letters, 'B', "NDB", t);
        subst(t, 'Z', "QEZ", out);
        return;
    }
    if (!subst(letters, 'B', "NDB", t)) add_after(letters, "ND", 'B', t);
    if (!subst(t, 'Z', "QEZ", out)) add_after(t, "QE", 'Z', out);
    strcat(out, "X");
}

static void oparse(const char *s, opat_t *p)
{
    memset(p, 0, sizeof *p);
    size_t i = 0, n = strlen(s);
    if (s[i] == '<') p->start = 1, i++;
    while (i < n) {
        REQUIRE(p->n < OMAX, "pattern %s is too long", s);
        oel_t *e = &p->el[p->n++];
        char letters[16] = "";
        size_t nl = 0;
        if (s[i] == 'x' || s[i] == 'X') {
            e->kind = 'x';
            i++;
        } else if (s[i] == '[' || s[i] == '{') {
            e->kind = s[i];
            const char close = s[i] == '[' ? ']' : '}';
            for (i++; s[i] != close; i++) {
                REQUIRE(s[i] && nl < sizeof letters - 1, "bad pattern %s", s);
                if (s[i] == '<') e->or_start = 1;
                else if (s[i] == '>') e->or_end = 1;
                else letters[nl++] = s[i];
            }
            i++;
        } else {
            e->kind = '[';
            letters[nl++] = s[i++];
        }
        letters[nl] = '\0';
        /* if ($state =~ /x/i) { $state = "." }: any residue, [<>] and all */
        if (strpbrk(letters, "xX")) e->kind = 'x', e->or_start = e->or_end = 0;
        if (e->kind != 'x') perl_state(letters, e->kind == '{', e->state);
        e->lo = e->hi = 1;
        if (s[i] == '(') {
            char *end;
            e->repeat = 1;
            e->lo = e->hi = (int)strtol(s + i + 1, &end, 10);
            if (*end == ',') e->hi = (int)strtol(end + 1, &end, 10);
            REQUIRE(*end == ')', "bad pattern %s", s);
            e->biggest = e->hi;
            i = (size_t)(end - s) + 1;
        }
        if (s[i] == '>') p->end = 1, i++;
        if (s[i] == '-') i++;
    }
}

static int in_class(const oel_t *e, char c)
{
    if (e->kind == 'x') return 1;
    const int has = strchr(e->state, c) != NULL;
    return e->kind == '{' ? !has : has;
}

/* ---- one start: every expansion, the first in Perl's order kept */

typedef struct {
    int found, len, nx;
    int cnt[OMAX];
} omatch_t;

typedef struct {
    const opat_t *p;
    const char *seq;
    int L, s, caret, lazy; /* caret: where Perl's '^' holds */
    int cnt[OMAX], rank[OMAX], best_rank[OMAX];
    omatch_t best;
} odfs_t;

static void odfs(odfs_t *d, int i, int t)
{
    const opat_t *p = d->p;
    if (i == p->n) {
        if (p->end && t != d->L) return;
        if (p->start && d->s != d->caret) return;
        if (d->best.found) {
            int j = 0;
            while (j < p->n && d->rank[j] == d->best_rank[j]) j++;
            if (j == p->n || d->rank[j] > d->best_rank[j]) return;
        }
        d->best.found = 1;
        d->best.len = t - d->s;
        d->best.nx = 0;
        int at = d->s;
        for (int j = 0; j < p->n; j++) {
            d->best.cnt[j] = d->cnt[j];
            d->best_rank[j] = d->rank[j];
            for (int k = 0; k < d->cnt[j]; k++, at++)
                if (p->el[j].kind == '[' && d->seq[at] == 'X') d->best.nx++;
        }
        return;
    }
    const oel_t *e = &p->el[i];
    const int edge = e->or_start || e->or_end;
    for (int c = e->lo; c <= e->hi; c++) {
        int ok = t + c <= d->L;
        for (int k = 0; ok && k < c; k++) ok = in_class(e, d->seq[t + k]);
        if (!ok) continue;
        d->cnt[i] = c;
        d->rank[i] = edge ? 0 : d->lazy ? c - e->lo : e->hi - c;
        odfs(d, i + 1, t + c);
    }
    /* (?:[M]|^) and (?:[G]|$): the edge, taking nothing, after the class */
    if ((e->or_start && t == d->caret) || (e->or_end && t == d->L)) {
        d->cnt[i] = 0;
        d->rank[i] = 1;
        odfs(d, i + 1, t);
    }
}

static omatch_t omatch(const opat_t *p, const char *seq, int s, int caret, int lazy)
{
    odfs_t d;
    memset(&d, 0, sizeof d);
    d.p = p;
    d.seq = seq;
    d.L = (int)strlen(seq);
    d.s = s;
    d.caret = caret;
    d.lazy = lazy;
    odfs(&d, 0, s);
    return d.best;
}

/* scanPattern's text of a match: x's residues in lower case, then '.' up
 * to the repeat's last number where one is written. */
static void otext(const opat_t *p, const char *seq, int s, const omatch_t *m, char *out)
{
    for (int j = 0; j < p->n; j++) {
        const oel_t *e = &p->el[j];
        for (int k = 0; k < m->cnt[j]; k++, s++) *out++ = e->kind == 'x' ? (char)tolower(seq[s]) : seq[s];
        if (e->repeat)
            for (int k = m->cnt[j]; k < e->biggest; k++) *out++ = '.';
    }
    *out = '\0';
}

/* ---- a whole sequence: scanPattern's loop */

/* memo[lazy][s]: omatch at s with '^' at 0 (NULL: compute, '^' at pos
 * where perl_caret). Returns the number of sites; sites[2k], sites[2k+1]:
 * start (0-based) and stop. */
static int oscan(const opat_t *p, const char *seq, int included, int no_overlaps, int lazy, int max_x, int perl_caret,
                 const omatch_t *memo, int *sites)
{
    const int L = (int)strlen(seq);
    int pos = 0, prevstop = -1, n = 0;
    for (;;) {
        omatch_t m = {0};
        int s;
        for (s = pos; s <= L; s++) {
            m = memo && !perl_caret && s < L ? memo[s] : omatch(p, seq, s, perl_caret ? pos : 0, lazy);
            if (m.found) break;
        }
        if (s > L) break;
        const int length = m.len, stop = s + length;
        pos = stop;
        if (!no_overlaps) pos -= (length ? length : 1) - 1;
        if (pos > L) break;
        if (length) {
            if (included || stop > prevstop) {
                if (m.nx <= max_x) {
                    REQUIRE(n < SITEMAX, "too many sites");
                    sites[2 * n] = s;
                    sites[2 * n + 1] = stop;
                    n++;
                    prevstop = stop;
                }
            }
        } else {
            pos++;
        }
        if (p->start && pos) break;
    }
    return n;
}

/* The program's way: every start where ps_psrule_match succeeds, offered
 * to ps_psscan_report. */
static int pscan(const ps_psrule_t *r, const uint8_t *codes, int L, const ps_psopts_t *o, ps_psstate_t *st,
                 uint64_t rec, int *sites)
{
    int n = 0;
    for (int s = 0; s < L; s++) {
        ps_psmatch_t m;
        const int ok = ps_psrule_match(r, codes + s, (uint32_t)(L - s), s == 0, 1, o->shortest, &m, NULL);
        REQUIRE(ok >= 0, "ps_psrule_match: %d", ok);
        if (ok && ps_psscan_report(o, st, rec, (uint64_t)s, (uint64_t)s + m.len, m.n_x)) {
            REQUIRE(n < SITEMAX, "too many sites");
            sites[2 * n] = s;
            sites[2 * n + 1] = s + (int)m.len;
            n++;
        }
    }
    return n;
}

static void sites_str(const int *sites, int n, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < n && o < len; k++)
        o += (size_t)snprintf(out + o, len - o, "%s%d-%d", k ? " " : "", sites[2 * k] + 1, sites[2 * k + 1]);
}

/* ---- helpers for hand-written cases */

static ps_psrule_t *compile_ok(const char *pat)
{
    char why[160] = "";
    ps_pattern_t pp;
    REQUIRE(ps_pattern_parse(PS_PROTEIN, pat, strlen(pat), &pp, why, sizeof why) == 0, "'%s': %s", pat, why);
    ps_psrule_t *r = NULL;
    REQUIRE(ps_psrule_compile(pat, strlen(pat), &r, why, sizeof why) == 0 && r, "'%s': %s", pat, why);
    return r;
}

static int g_perl_caret; /* the oracle's '^' of [<M]: 0 the sequence's start, 1 Perl's */

/* The program's sites for pat on seq, 1-based as ps_scan prints them, and
 * the oracle's, which must agree. */
static void expect_sites(const char *pat, const char *seq, int included, int no_overlaps, int shortest, int max_x,
                         const char *want)
{
    ps_psrule_t *r = compile_ok(pat);
    uint8_t codes[SEQMAX];
    const int L = (int)strlen(seq);
    REQUIRE(L <= SEQMAX, "sequence too long");
    encode(seq, codes);
    ps_psopts_t o = {.included = included, .no_overlaps = no_overlaps, .shortest = shortest, .max_x = max_x};
    ps_psstate_t st = {0};
    int sites[2 * SITEMAX];
    char got[512], oracle[512];
    sites_str(sites, pscan(r, codes, L, &o, &st, 0, sites), got, sizeof got);
    opat_t op;
    oparse(pat, &op);
    sites_str(sites, oscan(&op, seq, included, no_overlaps, shortest, max_x, g_perl_caret, NULL, sites), oracle, sizeof oracle);
    REQUIRE(!strcmp(oracle, want), "oracle: '%s' on %s (i%d v%d g%d x%d): '%s', ps_scan '%s'", pat, seq,
                  included, no_overlaps, shortest, max_x, oracle, want);
    REQUIRE(!strcmp(got, want), "'%s' on %s (i%d v%d g%d x%d): '%s', ps_scan '%s'", pat, seq, included,
                  no_overlaps, shortest, max_x, got, want);
    ps_psrule_free(r);
}

/* ps_psrule_match at seq[start] and its text; want_len 0: no match. */
static void expect_text(const char *pat, const char *seq, int start, int lazy, uint32_t want_len, uint32_t want_x,
                        const char *want)
{
    ps_psrule_t *r = compile_ok(pat);
    uint8_t codes[SEQMAX];
    const int L = (int)strlen(seq);
    encode(seq, codes);
    ps_psmatch_t m = {0};
    uint16_t counts[OMAX];
    const int ok = ps_psrule_match(r, codes + start, (uint32_t)(L - start), start == 0, 1, lazy, &m, counts);
    REQUIRE(ok == (want_len > 0), "'%s' on %s at %d: match %d", pat, seq, start + 1, ok);
    if (ok) {
        REQUIRE(m.len == want_len && m.n_x == want_x, "'%s' on %s at %d: length %u, %u X, want %u, %u", pat,
                      seq, start + 1, m.len, m.n_x, want_len, want_x);
        char out[2 * PS_PATTERN_MAX + 1];
        const size_t n = ps_psrule_text(r, codes + start, counts, out);
        REQUIRE(n == strlen(out) && !strcmp(out, want), "'%s' on %s at %d: text '%s', ps_scan '%s'", pat, seq,
                      start + 1, out, want);
    }
    ps_psrule_free(r);
}

/* ---- hand-written cases (expected values from ps_scan.pl's own output) */

START_TEST(test_text)
{
    /* PS00017 ATP_GTP_A; ps_scan: "3-10 GknerGKS" */
    expect_text("[AG]-x(4)-G-K-[ST]", "MAGKNERGKSAA", 2, 0, 8, 0, "GknerGKS");
    expect_text("[AG]-x(4)-G-K-[ST]", "MAGKNERGKSAA", 1, 0, 0, 0, "");
    /* x(2,4): padded to 4 */
    expect_text("C-x(2,4)-C", "CAAC", 0, 0, 4, 0, "Caa..C");
    expect_text("C-x(2,4)-C", "CAACAC", 0, 0, 6, 0, "CaacaC");
    /* a repeat on a residue is padded too; (1) and x(3) have nothing to pad */
    expect_text("A-C(2,3)", "ACCACCC", 0, 0, 3, 0, "ACC.");
    expect_text("A-C(2,3)", "ACCACCC", 3, 0, 4, 0, "ACCC");
    expect_text("A(1)-C", "AC", 0, 0, 2, 0, "AC");
    expect_text("G-x(3)-K", "GAAAK", 0, 0, 5, 0, "GaaaK");
    expect_text("A-x(0,2)-C", "AC", 0, 0, 2, 0, "A..C");
    /* X written as an element is x */
    expect_text("G-X-K", "GAK", 0, 0, 3, 0, "GaK");
    expect_text("G-x-K", "GXK", 0, 0, 3, 0, "GxK");
    /* greedy and lazy */
    expect_text("A-x(1,3)-C", "AACAC", 0, 0, 5, 0, "AacaC");
    expect_text("A-x(1,3)-C", "AACAC", 0, 1, 3, 0, "Aa..C");
    expect_text("A-x(1,3)-C", "AACAC", 1, 1, 4, 0, "Aca.C");
    expect_text("C-C(0,2)-x(1,2)", "CCCCC", 0, 0, 5, 0, "CCCcc");
    expect_text("C-C(0,2)-x(1,2)", "CCCCC", 0, 1, 2, 0, "C..c.");
    /* X's at residues counted, at x and {} not */
    expect_text("A-x(0,3)-C", "XACCC", 0, 0, 5, 1, "XaccC");
    expect_text("[DE]-x-[DE]", "DXEXBXZ", 1, 0, 3, 2, "XeX");
    expect_text("G-{P}-K", "GXK", 0, 0, 3, 0, "GXK");
    /* [G>]: the class, else the end */
    expect_text("A-[G>]", "AG", 0, 0, 2, 0, "AG");
    expect_text("A-[G>]", "A", 0, 0, 1, 0, "A");
    expect_text("A-[G>]", "AA", 0, 0, 0, 0, "");
    expect_text("[<M]-A", "AM", 0, 0, 1, 0, "A");
    expect_text("[<M]-A", "MA", 0, 0, 2, 0, "MA");
}
END_TEST

START_TEST(test_rules)
{
    /* greedy and lazy ends differ; the included rule drops 2-5 after 1-5 */
    expect_sites("A-x(1,3)-C", "AACAC", 0, 0, 0, 0, "1-5");
    expect_sites("A-x(1,3)-C", "AACAC", 1, 0, 0, 0, "1-5 2-5");
    expect_sites("A-x(1,3)-C", "AACAC", 0, 0, 1, 0, "1-3 2-5");
    expect_sites("A-x(1,3)-C", "AACAC", 1, 0, 1, 0, "1-3 2-5");
    expect_sites("A-x(1,3)-C", "AACAC", 0, 1, 1, 0, "1-3");
    expect_sites("A-x(1,3)-C", "AACAC", 0, 1, 0, 0, "1-5");
    expect_sites("C-C(0,2)-x(1,2)", "CCCCC", 0, 0, 0, 0, "1-5");
    expect_sites("C-C(0,2)-x(1,2)", "CCCCC", 1, 0, 0, 0, "1-5 2-5 3-5 4-5");
    expect_sites("C-C(0,2)-x(1,2)", "CCCCC", 0, 0, 1, 0, "1-2 2-3 3-4 4-5");
    expect_sites("C-C(0,2)-x(1,2)", "CCCCC", 0, 1, 1, 0, "1-2 3-4");
    expect_sites("C-C(0,2)-x(1,2)", "CCCCC", 0, 1, 0, 0, "1-5");
    /* an X drops a site, which then does not count for the included rule */
    expect_sites("A-x(0,3)-C", "XACCC", 0, 0, 0, 0, "2-5");
    expect_sites("A-x(0,3)-C", "XACCC", 0, 0, 0, 1, "1-5");
    expect_sites("A-x(0,3)-C", "XACCC", 1, 0, 0, 1, "1-5 2-5");
    expect_sites("[DE]-x-[DE]", "DXEXBXZ", 0, 0, 0, 0, "1-3 3-5 5-7");
    expect_sites("[DE]-x-[DE]", "DXEXBXZ", 0, 0, 0, 1, "1-3 3-5 5-7");
    expect_sites("[DE]-x-[DE]", "DXEXBXZ", 0, 0, 0, 2, "1-3 2-4 3-5 4-6 5-7");
    /* with -v the search goes on from the end of a dropped match too */
    expect_sites("[DE]-x-[DE]", "DXEXBXZ", 0, 1, 0, 0, "1-3");
    expect_sites("[DE]-x-[DE]", "DXEXBXZ", 0, 1, 0, 2, "1-3 4-6");
    /* B and Z */
    expect_sites("G-[DE]-K", "GXKGEKGBKGZK", 0, 0, 0, 0, "4-6 7-9 10-12");
    expect_sites("G-[DE]-K", "GXKGEKGBKGZK", 0, 0, 0, 1, "1-3 4-6 7-9 10-12");
    expect_sites("G-B-K", "GNKGDKGBKGXKGQK", 0, 0, 0, 0, "1-3 4-6 7-9");
    expect_sites("G-Z-K", "GQKGEKGZKGXKGNK", 0, 0, 0, 0, "1-3 4-6 7-9");
    expect_sites("G-N-K", "GBKGDK", 0, 0, 0, 0, "1-3");
    expect_sites("G-{N}-K", "GBKGNK", 0, 0, 0, 0, "1-3");
    expect_sites("G-{B}-K", "GBKGNKGXKGDK", 0, 0, 0, 0, "7-9");
    expect_sites("G-{Z}-K", "GQKGEKGZKGDK", 0, 0, 0, 0, "10-12");
    /* X at x and at {} is not counted */
    expect_sites("G-x-K", "GXK", 0, 0, 0, 0, "1-3");
    expect_sites("G-{P}-K", "GXK", 0, 0, 0, 0, "1-3");
    /* anchors */
    expect_sites("<A-C", "ACAC", 0, 0, 0, 0, "1-2");
    expect_sites("<A-C", "CACAC", 0, 0, 0, 0, "");
    expect_sites("A-C>", "ACAC", 0, 0, 0, 0, "3-4");
    expect_sites("A-[G>]", "AGAAGA", 0, 0, 0, 0, "1-2 4-5 6-6");
    expect_sites("[<M]-A", "AMAMA", 0, 0, 0, 0, "1-1 2-3 4-5");
}
END_TEST


/* ---- random cases */

static const char pat_letters[] = "ABCDEGKNQZ";
static const char seq_letters[] = "ABCDEGKNQXZ";

static void rand_letters(tu_rng_t *r, char *out)
{
    const int k = (int)tu_rng_range(r, 1, 3);
    int n = 0;
    while (n < k) {
        const char c = pat_letters[tu_rng_below(r, sizeof pat_letters - 1)];
        if (!memchr(out, c, (size_t)n)) out[n++] = c;
    }
    out[n] = '\0';
}

/* A random pattern that ps_pattern_parse accepts. */
static void rand_pattern(tu_rng_t *r, char *out, size_t len)
{
    for (;;) {
        tu_buf_t b = {0};
        const int n = (int)tu_rng_range(r, 1, 5);
        if (tu_rng_chance(r, 12)) tu_buf_putc(&b, '<');
        for (int i = 0; i < n; i++) {
            char letters[8];
            int edge = 0;
            if (i) tu_buf_putc(&b, '-');
            if (i == 0 && tu_rng_chance(r, 12)) {
                rand_letters(r, letters);
                tu_buf_printf(&b, "[<%s]", letters);
                edge = 1;
            } else if (i == n - 1 && tu_rng_chance(r, 15)) {
                rand_letters(r, letters);
                tu_buf_printf(&b, "[%s>]", letters);
                edge = 1;
            } else {
                const unsigned k = (unsigned)tu_rng_below(r, 100);
                rand_letters(r, letters);
                if (k < 30) tu_buf_putc(&b, letters[0]);
                else if (k < 50) tu_buf_putc(&b, tu_rng_chance(r, 15) ? 'X' : 'x');
                else if (k < 80) tu_buf_printf(&b, "[%s]", letters);
                else tu_buf_printf(&b, "{%s}", letters);
            }
            if (!edge && tu_rng_chance(r, 50)) {
                if (tu_rng_chance(r, 40)) {
                    tu_buf_printf(&b, "(%d)", (int)tu_rng_range(r, tu_rng_chance(r, 10) ? 0 : 1, 3));
                } else {
                    const int lo = (int)tu_rng_range(r, 0, 2);
                    tu_buf_printf(&b, "(%d,%d)", lo, lo + (int)tu_rng_range(r, 0, 3));
                }
            }
        }
        if (tu_rng_chance(r, 12)) tu_buf_putc(&b, '>');
        tu_buf_putc(&b, '\0');
        ps_pattern_t pp;
        char why[160];
        const int ok = b.n <= len && ps_pattern_parse(PS_PROTEIN, b.p, b.n - 1, &pp, why, sizeof why) == 0;
        if (ok) memcpy(out, b.p, b.n);
        tu_buf_free(&b);
        if (ok) return;
    }
}

static char rand_residue(tu_rng_t *r) { return seq_letters[tu_rng_below(r, sizeof seq_letters - 1)]; }

/* A random sequence, often with a match of p planted in it. */
static void rand_sequence(tu_rng_t *r, const opat_t *p, char *out)
{
    char plant[SEQMAX];
    int np = 0;
    const int with = tu_rng_chance(r, 60);
    if (with) {
        for (int j = 0; j < p->n; j++) {
            const oel_t *e = &p->el[j];
            const int c = (e->or_start || e->or_end) && tu_rng_chance(r, 30) ? 0
                                                                             : (int)tu_rng_range(r, (uint64_t)e->lo,
                                                                                                 (uint64_t)e->hi);
            for (int k = 0; k < c; k++) {
                char ch = rand_residue(r);
                for (int tries = 0; tries < 30 && !in_class(e, ch); tries++)
                    ch = e->kind == '[' ? e->state[tu_rng_below(r, strlen(e->state))] : rand_residue(r);
                plant[np++] = ch;
            }
        }
    }
    const int before = with && p->start ? 0 : (int)tu_rng_range(r, 0, 10);
    const int after = with && p->end ? 0 : (int)tu_rng_range(r, 0, 10);
    int n = 0;
    for (int k = 0; k < before; k++) out[n++] = rand_residue(r);
    memcpy(out + n, plant, (size_t)np);
    n += np;
    for (int k = 0; k < after; k++) out[n++] = rand_residue(r);
    out[n] = '\0';
}

START_TEST(test_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9705173ull);
    const unsigned long long seed = (unsigned long long)tu_seed();
    const int n_patterns = 3000, n_seqs = 8;
    for (int k = 0; k < n_patterns; k++) {
        char pat[128];
        rand_pattern(&r, pat, sizeof pat);
        opat_t op;
        oparse(pat, &op);
        ps_psrule_t *rule = compile_ok(pat);
        uint32_t max_len = 0;
        for (int j = 0; j < op.n; j++) max_len += (uint32_t)op.el[j].hi;
        REQUIRE(ps_psrule_max_len(rule) == max_len, "'%s': max_len %u, want %u", pat, ps_psrule_max_len(rule), max_len);
        REQUIRE(ps_psrule_elements(rule) == (uint32_t)op.n, "'%s': %u elements, want %d", pat, ps_psrule_elements(rule), op.n);
        /* half the patterns keep one state over their sequences, as records */
        const int shared = tu_rng_chance(&r, 50);
        ps_psstate_t states[24];
        memset(states, 0, sizeof states);
        for (int q = 0; q < n_seqs; q++) {
            char seq[SEQMAX];
            uint8_t codes[SEQMAX];
            rand_sequence(&r, &op, seq);
            const int L = (int)strlen(seq);
            encode(seq, codes);

            /* 1: every start, both ways */
            omatch_t memo[2][SEQMAX];
            for (int lazy = 0; lazy < 2; lazy++) {
                for (int s = 0; s < L; s++) {
                    const omatch_t w = memo[lazy][s] = omatch(&op, seq, s, 0, lazy);
                    for (int cut = 0; cut < 2; cut++) {
                        /* cut: only the longest match's worth of text, not the record's end */
                        if (cut && (uint32_t)(L - s) <= max_len) continue;
                        const uint32_t n = cut ? max_len : (uint32_t)(L - s);
                        ps_psmatch_t m = {0};
                        uint16_t counts[OMAX];
                        const int ok =
                            ps_psrule_match(rule, codes + s, n, s == 0, !cut, lazy, &m, (q & 1) ? counts : NULL);
                        REQUIRE(ok == w.found,
                                      "case %d.%d (seed %llu): '%s' on %s at %d (%s, n %u): match %d, oracle %d", k,
                                      q, seed, pat, seq, s + 1, lazy ? "lazy" : "greedy", n, ok, w.found);
                        if (!ok) continue;
                        REQUIRE(m.len == (uint32_t)w.len && m.n_x == (uint32_t)w.nx,
                                      "case %d.%d (seed %llu): '%s' on %s at %d (%s, n %u): length %u, %u X; "
                                      "oracle %d, %d X",
                                      k, q, seed, pat, seq, s + 1, lazy ? "lazy" : "greedy", n, m.len, m.n_x, w.len,
                                      w.nx);
                        if (!(q & 1)) continue;
                        for (int j = 0; j < op.n; j++)
                            REQUIRE(counts[j] == w.cnt[j],
                                          "case %d.%d (seed %llu): '%s' on %s at %d (%s): element %d took %u, "
                                          "oracle %d",
                                          k, q, seed, pat, seq, s + 1, lazy ? "lazy" : "greedy", j + 1, counts[j],
                                          w.cnt[j]);
                        char got[2 * PS_PATTERN_MAX + 1], want[2 * PS_PATTERN_MAX + 1];
                        const size_t tl = ps_psrule_text(rule, codes + s, counts, got);
                        otext(&op, seq, s, &w, want);
                        REQUIRE(tl == strlen(got) && !strcmp(got, want),
                                      "case %d.%d (seed %llu): '%s' on %s at %d (%s): text '%s', oracle '%s'", k, q,
                                      seed, pat, seq, s + 1, lazy ? "lazy" : "greedy", got, want);
                    }
                }
            }

            /* 2: the whole sequence, every combination of the options */
            int combo = 0;
            for (int included = 0; included < 2; included++)
                for (int no_overlaps = 0; no_overlaps < 2; no_overlaps++)
                    for (int lazy = 0; lazy < 2; lazy++)
                        for (int max_x = 0; max_x < 3; max_x++, combo++) {
                            ps_psopts_t o = {.included = included,
                                             .no_overlaps = no_overlaps,
                                             .shortest = lazy,
                                             .max_x = max_x};
                            ps_psstate_t fresh = {0}, *st = shared ? &states[combo] : &fresh;
                            int ws[2 * SITEMAX], gs[2 * SITEMAX];
                            const int wn = oscan(&op, seq, included, no_overlaps, lazy, max_x, 0, memo[lazy], ws);
                            const int gn = pscan(rule, codes, L, &o, st, shared ? (uint64_t)q : 7, gs);
                            char want[1024], got[1024];
                            sites_str(ws, wn, want, sizeof want);
                            sites_str(gs, gn, got, sizeof got);
                            REQUIRE(!strcmp(got, want),
                                          "case %d.%d (seed %llu): '%s' on %s (included %d, no-overlaps %d, "
                                          "shortest %d, max-x %d%s): sites '%s', oracle '%s'",
                                          k, q, seed, pat, seq, included, no_overlaps, lazy, max_x,
                                          shared ? ", state kept over records" : "", got, want);
                        }
        }
        ps_psrule_free(rule);
    }
}
END_TEST

Suite *suite_prosite(void)
{
    Suite *s = suite_create("prosite");
    TCase *tc = tcase_create("prosite");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_text);
    tcase_add_test(tc, test_rules);
    tcase_add_test(tc, test_random);
    suite_add_tcase(s, tc);
    return s;
}
