/* test_pattern.c - patterns: reading IUPAC and PROSITE syntax, and the
 * pattern engine against a brute-force matcher written here (classes,
 * mixed lengths, mismatches, both strands, records, N runs, chunk cuts);
 * and `locate`'s rows (every engine's sites, placed and ordered by the
 * site writer) against a brute-force locator on the same cases. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "engine_kmer.h"
#include "engine_pattern.h"
#include "engine_split.h"
#include "kmerset.h"
#include "pattern.h"
#include "patset.h"
#include "scan.h"
#include "sites.h"
#include "testutil.h"

static const char dna_syms[] = "ACGT";
static const char protein_syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

static ps_pattern_t g_pat; /* the last pattern parse_ok read */

static int parse_ok(ps_alpha_t a, const char *s, ps_class_t *cls)
{
    char why[160];
    int rc = ps_pattern_parse(a, s, strlen(s), &g_pat, why, sizeof why);
    ck_assert_msg(rc == 0, "'%s': %s", s, why);
    memcpy(cls, g_pat.cls, g_pat.len * sizeof *cls);
    return (int)g_pat.len;
}

static void parse_fails(ps_alpha_t a, const char *s, const char *want)
{
    ps_pattern_t pat;
    char why[160] = "";
    int rc = ps_pattern_parse(a, s, strlen(s), &pat, why, sizeof why);
    ck_assert_msg(rc < 0, "'%s' was accepted", s);
    ck_assert_msg(strstr(why, want), "'%s': '%s' does not say '%s'", s, why, want);
}

/* Bit of protein residue ch. */
static ps_class_t pbit(char ch) { return (ps_class_t)1 << (strchr(protein_syms, ch) - protein_syms); }

START_TEST(test_parse_iupac)
{
    ps_class_t c[PS_PATTERN_MAX];
    ck_assert_int_eq(parse_ok(PS_DNA, "ACGTURYSWKMBDHVN", c), 16);
    const ps_class_t want[16] = {1, 2, 4, 8, 8, 5, 10, 6, 9, 12, 3, 14, 13, 11, 7, 15};
    for (int i = 0; i < 16; i++) ck_assert_uint_eq(c[i], want[i]);
    ck_assert_int_eq(parse_ok(PS_DNA, "acgtn", c), 5);
    ck_assert_uint_eq(c[4], 15);
    ck_assert(!ps_pattern_is_exact(&g_pat) && ps_pattern_is_window(&g_pat));
    parse_ok(PS_DNA, "acgt", c);
    ck_assert(ps_pattern_is_exact(&g_pat));
    parse_fails(PS_DNA, "ACGXT", "'X' is not a dna letter");
    /* Protein: X is the residue X in a plain string. */
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "AXC", c), 3);
    ck_assert_uint_eq(c[1], pbit('X'));
}
END_TEST

START_TEST(test_parse_prosite)
{
    ps_class_t c[PS_PATTERN_MAX];
    /* PS00016, the RGD cell attachment motif, and a zinc-finger-like one. */
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "R-G-D.", c), 3);
    ck_assert_uint_eq(c[0], pbit('R'));
    int n = parse_ok(PS_PROTEIN, "C-x(2)-[DE]-{P}-H-x-X", c);
    ck_assert_int_eq(n, 8);
    ck_assert_uint_eq(c[1], (1u << PS_PROTEIN_SIGMA) - 1); /* x: every residue, rare ones too */
    /* As ps_scan reads them: D and E bring B and Z, the residues that may be either. */
    ck_assert_uint_eq(c[3], pbit('D') | pbit('E') | pbit('B') | pbit('Z'));
    ck_assert_uint_eq(c[4], ((1u << PS_PROTEIN_SIGMA) - 1) & ~pbit('P'));
    ck_assert_uint_eq(c[7], (1u << PS_PROTEIN_SIGMA) - 1);
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "[ST](3)", c), 3);
    ck_assert_uint_eq(c[2], pbit('S') | pbit('T'));
    /* DNA in PROSITE syntax takes IUPAC codes, and x is any base. */
    ck_assert_int_eq(parse_ok(PS_DNA, "A-R-x(2)-{A}", c), 5);
    ck_assert_uint_eq(c[1], 5);
    ck_assert_uint_eq(c[3], 15);
    ck_assert_uint_eq(c[4], 14);
    /* Variable repeats: the extra copies are optional. */
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "C-x(2,4)-C", c), 6);
    ck_assert_uint_eq(g_pat.min_len, 4);
    const uint8_t opt[6] = {0, 0, 0, 1, 1, 0};
    for (int i = 0; i < 6; i++) ck_assert_uint_eq(g_pat.opt[i], opt[i]);
    ck_assert(!ps_pattern_is_window(&g_pat));
    /* Anchors, plain and inside a class. */
    parse_ok(PS_PROTEIN, "<M-x-K", c);
    ck_assert_uint_eq(g_pat.anchors, PS_ANCHOR_START);
    parse_ok(PS_PROTEIN, "K-D-E-L>.", c);
    ck_assert_uint_eq(g_pat.anchors, PS_ANCHOR_END);
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "[<M]-K-[G>]", c), 3);
    ck_assert_uint_eq(g_pat.anchors, PS_ANCHOR_START_OR | PS_ANCHOR_END_OR);
    ck_assert_uint_eq(c[0], pbit('M'));
    ck_assert_uint_eq(c[2], pbit('G'));
    ck_assert(!ps_pattern_is_window(&g_pat));
    parse_ok(PS_PROTEIN, "<x(0,11)-C-[GS].", c);
    ck_assert_uint_eq(g_pat.min_len, 2);
    parse_fails(PS_PROTEIN, "x(0,3)", "empty string");
    parse_fails(PS_PROTEIN, "[<M]-x(0,2)", "empty string");
    parse_fails(PS_PROTEIN, "C-[<M]", "only the first element");
    parse_fails(PS_PROTEIN, "[G>]-C", "only the last element");
    parse_fails(PS_PROTEIN, "K>-C", "must end the pattern");
    parse_fails(PS_PROTEIN, "{<M}-C", "inside {}");
    parse_fails(PS_PROTEIN, "[G>](2)", "class with an anchor");
    parse_fails(PS_PROTEIN, "C-x(4,2)", "m < n");
    parse_fails(PS_PROTEIN, "C--C", "element is missing");
    parse_fails(PS_PROTEIN, "C-[DE", "not closed");
    parse_fails(PS_PROTEIN, "C-[]", "empty");
    parse_fails(PS_PROTEIN, "C-x(a)", "not (n) or (n,m)");
    parse_fails(PS_PROTEIN, "CC-x", "expected '-'");
    parse_fails(PS_PROTEIN, "C-x(200)-x(100)", "more than 256");
    parse_fails(PS_DNA, "{ACGT}-A", "matches nothing");
}
END_TEST

START_TEST(test_revcomp)
{
    ps_class_t c[PS_PATTERN_MAX], want[PS_PATTERN_MAX];
    ps_pattern_t in, r;
    int n = parse_ok(PS_DNA, "<A-R-Y-x(0,2)-[GT>]", c);
    in = g_pat;
    ps_pattern_revcomp(&in, &r);
    ck_assert_int_eq(parse_ok(PS_DNA, "[<AC]-x(0,2)-R-Y-T>", want), n);
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(r.cls[i], want[i]);
        ck_assert_uint_eq(r.opt[i], g_pat.opt[i]);
    }
    ck_assert_uint_eq(r.anchors, g_pat.anchors);
    ck_assert_uint_eq(r.min_len, g_pat.min_len);
}
END_TEST

/* ---- the engine against brute force ------------------------------------ */

/* A generated pattern: elements with repeats, as the generator meant them
 * (the oracle never reads the text the engine parses). */
typedef struct {
    ps_class_t cls;
    int lo, hi;
} elem_t;

typedef struct {
    int n;
    elem_t e[8];
    uint8_t anchors; /* PS_ANCHOR_* */
} gpat_t;

typedef struct {
    ps_alpha_t alpha;
    int both, mm, threads;
    uint32_t n;
    char **text;  /* the probes as written */
    gpat_t *pat;  /* and as generated */
    char **recs;
    int n_rec;
    uint64_t chunk_syms;
    uint32_t chunk_restarts;
} pcase_t;

/* A protein class as PROSITE syntax can spell it: B stands for N or D and
 * goes with them, Z with Q and E (pattern.h), in [..] and {..} alike. */
static ps_class_t bz_closed(ps_alpha_t a, ps_class_t c)
{
    if (a != PS_PROTEIN) return c;
    const ps_class_t ndb = pbit('N') | pbit('D') | pbit('B'), qez = pbit('Q') | pbit('E') | pbit('Z');
    if (c & ndb) c |= ndb;
    if (c & qez) c |= qez;
    return c;
}

static ps_class_t random_class_any(tu_rng_t *r, ps_alpha_t a);

static ps_class_t random_class(tu_rng_t *r, ps_alpha_t a) { return bz_closed(a, random_class_any(r, a)); }

static ps_class_t random_class_any(tu_rng_t *r, ps_alpha_t a)
{
    int sigma = a == PS_DNA ? 4 : PS_PROTEIN_SIGMA;
    ps_class_t all = (ps_class_t)((1ull << sigma) - 1);
    unsigned roll = (unsigned)tu_rng_below(r, 100);
    if (roll < 55) return (ps_class_t)1 << tu_rng_below(r, (uint64_t)sigma);
    if (roll < 70) return all;
    ps_class_t c = 0;
    int picks = (int)tu_rng_range(r, 1, a == PS_DNA ? 3 : 4);
    for (int i = 0; i < picks; i++) c |= (ps_class_t)1 << tu_rng_below(r, (uint64_t)sigma);
    if (roll < 85 || a == PS_DNA) return c;
    return all & ~c ? all & ~c : c; /* written {...} below */
}

static const char *iupac_of(ps_class_t c)
{
    static const char *codes[16] = {"", "A", "C", "M", "G", "R", "S", "V", "T", "W", "Y", "H", "K", "D", "B", "N"};
    return codes[c & 15];
}

/* One element's class. edge: '<' or '>' inside the brackets, or 0. */
static void put_class(tu_buf_t *b, ps_alpha_t a, ps_class_t c, int prosite, char edge, tu_rng_t *r)
{
    int sigma = a == PS_DNA ? 4 : PS_PROTEIN_SIGMA;
    ps_class_t all = (ps_class_t)((1ull << sigma) - 1);
    const char *syms = a == PS_DNA ? dna_syms : protein_syms;
    if (!edge && a == PS_DNA && (!prosite || tu_rng_chance(r, 50)) && c != all) {
        tu_buf_puts(b, iupac_of(c));
        return;
    }
    if (!edge && c == all) {
        tu_buf_putc(b, !prosite ? 'N' : tu_rng_chance(r, 80) ? 'x' : 'X');
        return;
    }
    /* PROSITE's X is any: [X] is the residue. */
    if (!edge && !(c & (c - 1)) && !(prosite && syms[__builtin_ctz(c)] == 'X')) {
        char ch = syms[__builtin_ctz(c)];
        tu_buf_putc(b, tu_rng_chance(r, 20) ? (char)tolower((unsigned char)ch) : ch);
        return;
    }
    /* A class: as [..] or, when shorter, {..}. */
    int n_in = __builtin_popcount(c);
    int neg = !edge && sigma - n_in < n_in && a == PS_PROTEIN;
    ps_class_t show = neg ? all & ~c : c;
    tu_buf_putc(b, neg ? '{' : '[');
    if (edge == '<') tu_buf_putc(b, '<');
    for (int s = 0; s < sigma; s++)
        if (show >> s & 1) tu_buf_putc(b, syms[s]);
    if (edge == '>') tu_buf_putc(b, '>');
    tu_buf_putc(b, neg ? '}' : ']');
}

static int is_window(const gpat_t *g)
{
    if (g->anchors) return 0;
    for (int i = 0; i < g->n; i++)
        if (g->e[i].lo != g->e[i].hi) return 0;
    return 1;
}

static char *render(tu_rng_t *r, ps_alpha_t a, const gpat_t *g)
{
    tu_buf_t b = {0};
    int prosite = !is_window(g) || (a == PS_PROTEIN ? tu_rng_chance(r, 85) : tu_rng_chance(r, 40));
    for (int i = 0; i < g->n && !prosite && a == PS_PROTEIN; i++)
        if (g->e[i].cls & (g->e[i].cls - 1)) prosite = 1;
    if (g->anchors & PS_ANCHOR_START) tu_buf_putc(&b, '<');
    for (int i = 0; i < g->n; i++) {
        const elem_t *e = &g->e[i];
        char edge = i == 0 && (g->anchors & PS_ANCHOR_START_OR) ? '<'
                    : i == g->n - 1 && (g->anchors & PS_ANCHOR_END_OR) ? '>' : 0;
        if (prosite) {
            if (i) tu_buf_putc(&b, '-');
            put_class(&b, a, e->cls, 1, edge, r);
            if (e->lo != e->hi) tu_buf_printf(&b, "(%d,%d)", e->lo, e->hi);
            else if (!edge && (e->lo != 1 || tu_rng_chance(r, 5))) tu_buf_printf(&b, "(%d)", e->lo);
        } else {
            for (int j = 0; j < e->lo; j++) put_class(&b, a, e->cls, 0, 0, r);
        }
    }
    if (g->anchors & PS_ANCHOR_END) tu_buf_putc(&b, '>');
    if (prosite && tu_rng_chance(r, 20)) tu_buf_putc(&b, '.');
    /* A one-element PROSITE probe without syntax would read as plain. */
    if (prosite && !ps_pattern_is_prosite(b.p, b.n)) tu_buf_putc(&b, '.');
    tu_buf_putc(&b, '\0');
    return b.p;
}

static void random_gpat(tu_rng_t *r, ps_alpha_t a, int general, gpat_t *g)
{
    for (;;) {
        memset(g, 0, sizeof *g);
        g->n = (int)tu_rng_range(r, 1, general ? 6 : 8);
        int mandatory = 0;
        for (int i = 0; i < g->n; i++) {
            elem_t *e = &g->e[i];
            e->cls = random_class(r, a);
            unsigned roll = (unsigned)tu_rng_below(r, 100);
            e->lo = e->hi = roll < 80 ? 1 : (int)tu_rng_range(r, 2, 4);
            if (general && roll >= 90) {
                e->lo = (int)tu_rng_range(r, 0, 2);
                e->hi = e->lo + (int)tu_rng_range(r, 1, 3);
            }
            if (tu_rng_chance(r, 3)) e->lo = e->hi = (int)tu_rng_range(r, 20, 40); /* long strings, across words */
            mandatory += e->lo;
        }
        if (general) {
            if (tu_rng_chance(r, 20)) g->anchors |= PS_ANCHOR_START;
            if (tu_rng_chance(r, 20)) g->anchors |= PS_ANCHOR_END;
            if (tu_rng_chance(r, 15) && g->e[0].lo == 1 && g->e[0].hi == 1) g->anchors |= PS_ANCHOR_START_OR;
            if (tu_rng_chance(r, 15) && g->e[g->n - 1].lo == 1 && g->e[g->n - 1].hi == 1 &&
                !(g->n == 1 && (g->anchors & PS_ANCHOR_START_OR)))
                g->anchors |= PS_ANCHOR_END_OR;
        }
        int floor = 1 + !!(g->anchors & PS_ANCHOR_START_OR) + !!(g->anchors & PS_ANCHOR_END_OR);
        if (mandatory >= floor) return;
    }
}

static void make_pcase(tu_rng_t *r, pcase_t *c)
{
    memset(c, 0, sizeof *c);
    c->alpha = tu_rng_chance(r, 65) ? PS_DNA : PS_PROTEIN;
    c->both = c->alpha == PS_DNA && tu_rng_chance(r, 60);
    c->mm = (int)tu_rng_below(r, 4);
    c->threads = (int)tu_rng_range(r, 1, 3);
    c->n = (uint32_t)tu_rng_range(r, 1, 7);
    c->text = calloc(c->n, sizeof *c->text);
    c->pat = calloc(c->n, sizeof *c->pat);
    ck_assert(c->text && c->pat);
    int general = tu_rng_chance(r, 60);
    for (uint32_t i = 0; i < c->n; i++) {
        random_gpat(r, c->alpha, general && tu_rng_chance(r, 70), &c->pat[i]);
        c->text[i] = render(r, c->alpha, &c->pat[i]);
    }
    c->n_rec = (int)tu_rng_range(r, 1, 5);
    c->recs = calloc((size_t)c->n_rec, sizeof *c->recs);
    const char *syms = c->alpha == PS_DNA ? dna_syms : protein_syms;
    size_t sigma = strlen(syms);
    /* A small alphabet of text now and then, so that long classes match. */
    size_t use = tu_rng_chance(r, 30) ? (size_t)tu_rng_range(r, 1, 2) : sigma;
    for (int t = 0; t < c->n_rec; t++) {
        size_t len = (size_t)tu_rng_below(r, tu_rng_chance(r, 30) ? 12 : 400);
        char *s = malloc(len + 1);
        ck_assert(s);
        unsigned breaks = tu_rng_chance(r, 50) ? 2 : 0;
        for (size_t j = 0; j < len; j++) {
            if (tu_rng_chance(r, breaks)) s[j] = c->alpha == PS_DNA ? 'N' : tu_rng_chance(r, 50) ? '-' : '.';
            else s[j] = syms[tu_rng_below(r, use)];
            if (c->alpha == PS_DNA && tu_rng_chance(r, 5)) s[j] = (char)tolower((unsigned char)s[j]);
        }
        s[len] = '\0';
        c->recs[t] = s;
    }
    uint32_t kmax = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t len = 0;
        for (int e = 0; e < c->pat[i].n; e++) len += (uint32_t)c->pat[i].e[e].hi;
        kmax = len > kmax ? len : kmax;
    }
    c->chunk_syms = tu_rng_chance(r, 60) ? kmax + tu_rng_below(r, 40) : 0;
    c->chunk_restarts = tu_rng_chance(r, 20) ? (uint32_t)tu_rng_range(r, 1, 3) : 0;
}

static void free_pcase(pcase_t *c)
{
    for (uint32_t i = 0; i < c->n; i++) free(c->text[i]);
    for (int t = 0; t < c->n_rec; t++) free(c->recs[t]);
    free(c->text);
    free(c->pat);
    free(c->recs);
}

static int sym_of(ps_alpha_t a, char ch)
{
    int up = toupper((unsigned char)ch);
    const char *syms = a == PS_DNA ? dna_syms : protein_syms;
    const char *p = strchr(syms, up);
    return p && up ? (int)(p - syms) : -1;
}

#define FAR 1000000

/* The fewest mismatches with which elements e.. match the record text from
 * position t on (every way of repeating each), FAR when none does. */
static int best_from(const pcase_t *c, const gpat_t *g, const char *rec, int len, int e, int t)
{
    if (e == g->n) return !(g->anchors & PS_ANCHOR_END) || t == len ? 0 : FAR;
    int best = FAR;
    /* [G>]: the last element may stand for the record's end. */
    if (e == g->n - 1 && (g->anchors & PS_ANCHOR_END_OR) && t == len) best = 0;
    const elem_t *el = &g->e[e];
    int cost = 0;
    for (int rpt = 0; rpt <= el->hi; rpt++) {
        if (rpt >= el->lo) {
            int rest = best_from(c, g, rec, len, e + 1, t + rpt);
            if (cost + rest < best) best = cost + rest;
        }
        if (rpt == el->hi || t + rpt >= len) break;
        int sym = sym_of(c->alpha, rec[t + rpt]);
        if (sym < 0) break;
        cost += !(el->cls >> sym & 1);
    }
    return best;
}

/* The reverse complement of a DNA record (letters the generator uses). */
static char *revcomp_rec(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    ck_assert(o);
    for (size_t i = 0; i < n; i++) {
        char ch = s[n - 1 - i];
        const char *from = "ACGTacgt", *to = "TGCAtgca", *at = strchr(from, ch);
        o[i] = ch && at ? to[at - from] : ch;
    }
    o[n] = '\0';
    return o;
}

/* Sites of every probe and strand at each distance, start by start, each
 * on its own strand: the minus strand's are the probe's sites in the
 * record's reverse complement (so a site of variable length counts once
 * per start there, not per start on the plus strand). */
static void brute(const pcase_t *c, uint64_t *want)
{
    const int strands = c->both ? 2 : 1, levels = c->mm + 1;
    for (uint32_t i = 0; i < c->n; i++) {
        for (int s = 0; s < strands; s++) {
            const gpat_t g = c->pat[i];
            for (int t = 0; t < c->n_rec; t++) {
                char *rc = s ? revcomp_rec(c->recs[t]) : NULL;
                const char *rec = s ? rc : c->recs[t];
                int len = (int)strlen(rec);
                for (int at = 0; at < len; at++) {
                    if ((g.anchors & PS_ANCHOR_START) && at) break;
                    int d = best_from(c, &g, rec, len, 0, at);
                    if (at == 0 && (g.anchors & PS_ANCHOR_START_OR)) {
                        int d2 = best_from(c, &g, rec, len, 1, 0);
                        d = d2 < d ? d2 : d;
                    }
                    if (d <= c->mm) want[(i * (uint32_t)strands + (uint32_t)s) * (uint32_t)levels + (uint32_t)d]++;
                }
                free(rc);
            }
        }
    }
}

/* Record t's name: "r<t>" and then some of this, so that names differ in
 * length as well as in letters. */
#define REC_PAD(t) ((t) * 5 % 7), "_abcdef"

/* Writes c's records to path: FASTQ now and then (returns 1), else FASTA
 * on one line or wrapped. */
static int write_pcase(tu_rng_t *r, const pcase_t *c, const char *path)
{
    tu_buf_t fa = {0};
    int fastq = tu_rng_chance(r, 20);
    for (int t = 0; t < c->n_rec; t++) {
        if (fastq) {
            tu_buf_printf(&fa, "@r%d%.*s\n%s\n+\n", t, REC_PAD(t), c->recs[t]);
            for (size_t j = strlen(c->recs[t]); j > 0; j--) tu_buf_putc(&fa, 'I');
            tu_buf_putc(&fa, '\n');
        } else if (tu_rng_chance(r, 50)) {
            tu_buf_printf(&fa, ">r%d%.*s\n%s\n", t, REC_PAD(t), c->recs[t]);
        } else { /* wrapped lines */
            tu_buf_printf(&fa, ">r%d%.*s desc\n", t, REC_PAD(t));
            size_t len = strlen(c->recs[t]), wrap = (size_t)tu_rng_range(r, 1, 60);
            for (size_t j = 0; j < len; j += wrap) {
                tu_buf_put(&fa, c->recs[t] + j, len - j < wrap ? len - j : wrap);
                tu_buf_putc(&fa, '\n');
            }
        }
    }
    tu_write_file(path, fa.p ? fa.p : "", fa.n);
    tu_buf_free(&fa);
    return fastq;
}

START_TEST(test_random_patterns)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a77e4ull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "in.fa");
    for (int k = 0; k < 200; k++) {
        pcase_t c;
        make_pcase(&r, &c);
        const int fastq = write_pcase(&r, &c, path);

        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int rc = ps_probes_from_strings(&p, c.n, (const char *const *)c.text, NULL, (ps_alpha_req_t)c.alpha, &err);
        ck_assert_msg(rc == PS_OK, "case %d (seed %llu): probes: %s", k, (unsigned long long)tu_seed(), err.msg);
        ps_patset_t *ps = NULL;
        ck_assert_msg(ps_patset_build(&ps, p, c.both, c.mm, &err) == PS_OK, "%s", err.msg);
        ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        if (c.chunk_restarts) so.chunk_restarts = c.chunk_restarts;
        if (tu_rng_chance(&r, 30)) so.block_bytes = (size_t)tu_rng_range(&r, 1, 64);
        ps_engine_t *e = NULL;
        ck_assert_msg(ps_pattern_engine_new(&e, ps, ps_scan_workers(&so), &err) == PS_OK, "%s", err.msg);
        uint64_t *got = calloc(ps->leaves.n_leaves, sizeof *got), *want = calloc(ps->leaves.n_leaves, sizeof *want);
        ck_assert(got && want);
        ps_scan_stats_t st;
        rc = ps_scan_file(e, &ps->leaves, path, &so, got, NULL, &st, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "scan: %s", err.msg);
        brute(&c, want);
        for (uint32_t l = 0; l < ps->leaves.n_leaves; l++) {
            uint32_t levels = (uint32_t)c.mm + 1, strands = c.both ? 2u : 1u;
            ck_assert_msg(got[l] == want[l],
                          "case %d (seed %llu; %s, %s strands, -m %d, %d threads, chunk %llu/%u, block %zu, %s): "
                          "probe '%s' strand %u distance %u: %llu sites, brute force %llu",
                          k, (unsigned long long)tu_seed(), ps_alpha_name(c.alpha), c.both ? "both" : "one", c.mm,
                          c.threads, (unsigned long long)so.chunk_syms, so.chunk_restarts, so.block_bytes,
                          fastq ? "fastq" : "fasta", c.text[l / levels / strands], (l / levels) % strands, l % levels,
                          (unsigned long long)got[l], (unsigned long long)want[l]);
        }
        free(got);
        free(want);
        ps_engine_destroy(e);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_pcase(&c);
    }
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* Text that matches g: each element repeated within its range, each letter
 * drawn from its class (written into out, at most cap letters). */
static int plant(tu_rng_t *r, ps_alpha_t a, const gpat_t *g, char *out, int cap)
{
    const char *syms = a == PS_DNA ? dna_syms : protein_syms;
    int n = 0;
    for (int i = 0; i < g->n; i++) {
        int rep = (int)tu_rng_range(r, (uint64_t)g->e[i].lo, (uint64_t)g->e[i].hi);
        for (int j = 0; j < rep && n < cap; j++) {
            ps_class_t c = g->e[i].cls;
            int pick = (int)tu_rng_below(r, (uint64_t)__builtin_popcount(c));
            while (pick--) c &= c - 1;
            out[n++] = syms[__builtin_ctz(c)];
        }
    }
    return n;
}

/* The gate (patset.h): exact sets of patterns on one strand, whose backward
 * reading is confined to the ranges around their rarest windows' matches,
 * count what brute force counts, over long records with planted sites,
 * in chunks and blocks of every size. */
START_TEST(test_gated_patterns)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6a7eull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "in.fa");
    int gated = 0;
    uint64_t sites = 0;
    for (int k = 0; k < 150; k++) {
        pcase_t c;
        /* Mostly sets the gate takes: drawn again while it would not. */
        for (int tries = 0;; tries++) {
            make_pcase(&r, &c);
            c.mm = 0;
            c.both = 0;
            ps_err_t e0 = {0};
            ps_probes_t *p0 = NULL;
            ps_patset_t *ps0 = NULL;
            ck_assert(ps_probes_from_strings(&p0, c.n, (const char *const *)c.text, NULL, (ps_alpha_req_t)c.alpha,
                                             &e0) == PS_OK);
            ck_assert(ps_patset_build(&ps0, p0, 0, 0, &e0) == PS_OK);
            int takes = ps0->gate_words > 0;
            ps_patset_free(ps0);
            ps_probes_free(p0);
            if (takes || tries == 30 || k % 10 == 0) break;
            free_pcase(&c);
        }
        /* Records of up to 3,000 letters, some sites planted in them. */
        const char *syms = c.alpha == PS_DNA ? dna_syms : protein_syms;
        for (int t = 0; t < c.n_rec; t++) {
            size_t len = (size_t)tu_rng_below(&r, 3000);
            char *s = realloc(c.recs[t], len + 1);
            ck_assert(s);
            for (size_t j = 0; j < len; j++) s[j] = syms[tu_rng_below(&r, strlen(syms))];
            for (int m = (int)tu_rng_below(&r, 4); m > 0 && len > 0; m--) {
                char buf[512];
                int n = plant(&r, c.alpha, &c.pat[tu_rng_below(&r, c.n)], buf, (int)sizeof buf);
                size_t at = (size_t)tu_rng_below(&r, len);
                if (tu_rng_chance(&r, 15)) at = 0;
                if (tu_rng_chance(&r, 15)) at = len > (size_t)n ? len - (size_t)n : 0;
                for (int j = 0; j < n && at + (size_t)j < len; j++) s[at + (size_t)j] = buf[j];
            }
            s[len] = '\0';
            c.recs[t] = s;
        }
        c.chunk_syms = tu_rng_chance(&r, 50) ? 0 : tu_rng_range(&r, 300, 5000);
        write_pcase(&r, &c, path);
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        ck_assert(ps_probes_from_strings(&p, c.n, (const char *const *)c.text, NULL, (ps_alpha_req_t)c.alpha, &err) ==
                  PS_OK);
        ps_patset_t *ps = NULL;
        ck_assert_msg(ps_patset_build(&ps, p, 0, 0, &err) == PS_OK, "%s", err.msg);
        gated += ps->gate_words > 0;
        ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        if (tu_rng_chance(&r, 30)) so.block_bytes = (size_t)tu_rng_range(&r, 64, 4096);
        ps_engine_t *e = NULL;
        ck_assert(ps_pattern_engine_new(&e, ps, ps_scan_workers(&so), &err) == PS_OK);
        uint64_t *got = calloc(ps->leaves.n_leaves, sizeof *got), *want = calloc(ps->leaves.n_leaves, sizeof *want);
        ck_assert(got && want);
        ps_scan_stats_t st;
        ck_assert_msg(ps_scan_file(e, &ps->leaves, path, &so, got, NULL, &st, NULL, NULL, &err) == PS_OK, "%s",
                      err.msg);
        brute(&c, want);
        for (uint32_t l = 0; l < ps->leaves.n_leaves; l++) {
            sites += want[l];
            ck_assert_msg(got[l] == want[l],
                          "gated case %d (seed %llu; %s, gate %u words, %d threads, chunk %llu, block %zu): probe "
                          "'%s': %llu sites, brute force %llu",
                          k, (unsigned long long)tu_seed(), ps_alpha_name(c.alpha), ps->gate_words, c.threads,
                          (unsigned long long)so.chunk_syms, so.block_bytes, c.text[l],
                          (unsigned long long)got[l], (unsigned long long)want[l]);
        }
        free(got);
        free(want);
        ps_engine_destroy(e);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_pcase(&c);
    }
    /* The gate must have been taken, and sites found through it. */
    ck_assert_msg(gated >= 100 && sites > 100, "seed %llu: %d of 150 cases gated, %llu sites",
                  (unsigned long long)tu_seed(), gated, (unsigned long long)sites);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* One engine made of two parts (engine_split.h), here two CPU engines over
 * a random split of the probes: the whole set's counts, leaf for leaf. */
START_TEST(test_split_engine)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5b11ull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "in.fa");
    for (int k = 0; k < 60; k++) {
        pcase_t c;
        do make_pcase(&r, &c);
        while (c.n < 2 && (free_pcase(&c), 1));
        tu_buf_t fa = {0};
        for (int t = 0; t < c.n_rec; t++) tu_buf_printf(&fa, ">r%d\n%s\n", t, c.recs[t]);
        tu_write_file(path, fa.p, fa.n);
        tu_buf_free(&fa);
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        ck_assert(ps_probes_from_strings(&p, c.n, (const char *const *)c.text, NULL, (ps_alpha_req_t)c.alpha, &err) ==
                  PS_OK);
        ps_patset_t *whole = NULL, *part[3] = {NULL, NULL, NULL};
        ck_assert(ps_patset_build(&whole, p, c.both, c.mm, &err) == PS_OK);
        uint32_t idx[8], n0 = (uint32_t)tu_rng_range(&r, 1, c.n - 1);
        /* A random split: a shuffled order, the first n0 to part 0. */
        for (uint32_t i = 0; i < c.n; i++) idx[i] = i;
        for (uint32_t i = c.n - 1; i > 0; i--) {
            uint32_t j = (uint32_t)tu_rng_below(&r, i + 1), t = idx[i];
            idx[i] = idx[j];
            idx[j] = t;
        }
        ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        ps_engine_t *pe[2];
        uint32_t *map[2], nl[2];
        const uint32_t strands = c.both ? 2u : 1u, levels = (uint32_t)c.mm + 1;
        /* Every other case: windows apart from the rest, as count and
         * locate split a set of both kinds (when this one has both). */
        ps_engine_t *e = NULL;
        int rc_w = k % 2 ? ps_split_windows_new(&e, p, whole, ps_scan_workers(&so), 1, part, &err) : 1;
        ck_assert_msg(rc_w >= 0, "%s", err.msg);
        for (int h = 0; h < 2 && rc_w == 1; h++) {
            const uint32_t *sel = idx + (h ? n0 : 0), n_sel = h ? c.n - n0 : n0;
            ck_assert(ps_patset_build_part(&part[h], p, sel, n_sel, c.both, c.mm, &err) == PS_OK);
            nl[h] = part[h]->leaves.n_leaves;
            ck_assert((map[h] = malloc(nl[h] * sizeof *map[h])) != NULL);
            for (uint32_t j = 0; j < n_sel; j++)
                for (uint32_t st = 0; st < strands; st++)
                    for (uint32_t d = 0; d < levels; d++)
                        map[h][(j * strands + st) * levels + d] = (sel[j] * strands + st) * levels + d;
            ck_assert(ps_pattern_engine_new(&pe[h], part[h], ps_scan_workers(&so), &err) == PS_OK);
        }
        if (rc_w == 1) ck_assert(ps_split_engine_new(&e, pe[0], map[0], nl[0], pe[1], map[1], nl[1], &err) == PS_OK);
        uint64_t *got = calloc(whole->leaves.n_leaves, sizeof *got), *want = calloc(whole->leaves.n_leaves, sizeof *want);
        ck_assert(got && want);
        ps_scan_stats_t st;
        ck_assert_msg(ps_scan_file(e, &whole->leaves, path, &so, got, NULL, &st, NULL, NULL, &err) == PS_OK, "%s",
                      err.msg);
        brute(&c, want);
        for (uint32_t l = 0; l < whole->leaves.n_leaves; l++)
            ck_assert_msg(got[l] == want[l], "split case %d (seed %llu): leaf %u: %llu, brute force %llu", k,
                          (unsigned long long)tu_seed(), l, (unsigned long long)got[l], (unsigned long long)want[l]);
        free(got);
        free(want);
        ps_engine_destroy(e);
        ps_patset_free(part[0]);
        ps_patset_free(part[1]);
        ps_patset_free(part[2]);
        ps_patset_free(whole);
        ps_probes_free(p);
        free_pcase(&c);
    }
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* ---- locate against brute force ----------------------------------------- */

/* The first end (smallest) of a match of elements e.. from position t with
 * at most budget mismatches, FAR when none. */
static int first_end(const pcase_t *c, const gpat_t *g, const char *rec, int len, int e, int t, int budget)
{
    if (budget < 0) return FAR;
    if (e == g->n) return !(g->anchors & PS_ANCHOR_END) || t == len ? t : FAR;
    int best = FAR;
    if (e == g->n - 1 && (g->anchors & PS_ANCHOR_END_OR) && t == len) best = t;
    const elem_t *el = &g->e[e];
    int cost = 0;
    for (int rpt = 0; rpt <= el->hi; rpt++) {
        if (rpt >= el->lo) {
            int end = first_end(c, g, rec, len, e + 1, t + rpt, budget - cost);
            if (end < best) best = end;
        }
        if (rpt == el->hi || t + rpt >= len) break;
        int sym = sym_of(c->alpha, rec[t + rpt]);
        if (sym < 0) break;
        cost += !(el->cls >> sym & 1);
    }
    return best;
}

typedef struct {
    int start, end, d;
    uint32_t probe;
    int strand;
} brow_t;

static int cmp_brow(const void *x, const void *y)
{
    const brow_t *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->probe != b->probe) return a->probe < b->probe ? -1 : 1;
    if (a->strand != b->strand) return a->strand - b->strand;
    return (a->end > b->end) - (a->end < b->end);
}

/* Every row locate must write, in its order: record, start, probe, strand
 * (then end: minus-strand sites of a variable pattern may share a start).
 * A site is one per start on its own strand at its fewest mismatches,
 * ending where its shortest match at that distance ends; the minus
 * strand's are found in the record's reverse complement and placed back. */
static void brute_rows(const pcase_t *c, tu_buf_t *out)
{
    const int strands = c->both ? 2 : 1;
    for (int t = 0; t < c->n_rec; t++) {
        int len = (int)strlen(c->recs[t]);
        brow_t *rows = malloc(((size_t)len * c->n * (size_t)strands + 1) * sizeof *rows);
        ck_assert(rows);
        size_t n = 0;
        for (int s = 0; s < strands; s++) {
            char *rc = s ? revcomp_rec(c->recs[t]) : NULL;
            const char *rec = s ? rc : c->recs[t];
            for (int at = 0; at < len; at++)
                for (uint32_t i = 0; i < c->n; i++) {
                    const gpat_t g = c->pat[i];
                    if ((g.anchors & PS_ANCHOR_START) && at) continue;
                    int d = best_from(c, &g, rec, len, 0, at);
                    int d2 = at == 0 && (g.anchors & PS_ANCHOR_START_OR) ? best_from(c, &g, rec, len, 1, 0) : FAR;
                    if (d2 < d) d = d2;
                    if (d > c->mm) continue;
                    int end = first_end(c, &g, rec, len, 0, at, d);
                    int end2 = d2 <= d ? first_end(c, &g, rec, len, 1, 0, d) : FAR;
                    if (end2 < end) end = end2;
                    rows[n++] = s ? (brow_t){len - end, len - at, d, i, 1} : (brow_t){at, end, d, i, 0};
                }
            free(rc);
        }
        qsort(rows, n, sizeof *rows, cmp_brow);
        for (size_t j = 0; j < n; j++)
            tu_buf_printf(out, "r%d%.*s\t%d\t%d\t%s\t%d\t%c\n", t, REC_PAD(t), rows[j].start, rows[j].end,
                          c->text[rows[j].probe], rows[j].d, rows[j].strand ? '-' : '+');
        free(rows);
    }
}

START_TEST(test_random_locate)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x10ca7eull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "in.fa");
    uint64_t rows = 0, engines[3] = {0, 0, 0};
    for (int k = 0; k < 150; k++) {
        pcase_t c;
        make_pcase(&r, &c);
        /* Exact strings of one length now and then, for the automaton and
         * the k-mer set; some copied from the text, so that they hit. */
        if (tu_rng_chance(&r, 35)) {
            c.mm = tu_rng_chance(&r, 70) ? 0 : c.mm;
            int kk = (int)tu_rng_range(&r, 1, 8); /* gpat_t holds 8 elements */
            for (uint32_t i = 0; i < c.n; i++) {
                const char *src = c.recs[tu_rng_below(&r, (uint64_t)c.n_rec)];
                size_t sl = strlen(src);
                const char *syms = c.alpha == PS_DNA ? dna_syms : protein_syms;
                free(c.text[i]);
                c.text[i] = malloc((size_t)kk + 1);
                size_t from = sl > (size_t)kk ? (size_t)tu_rng_below(&r, sl - (size_t)kk) : 0;
                memset(&c.pat[i], 0, sizeof c.pat[i]);
                c.pat[i].n = kk;
                for (int j = 0; j < kk; j++) {
                    int sym = from + (size_t)j < sl ? sym_of(c.alpha, src[from + (size_t)j]) : -1;
                    /* PROSITE's X is any; keep exact strings exact. */
                    if (sym < 0 || tu_rng_chance(&r, 10) || syms[sym] == 'X' || syms[sym] == '*')
                        sym = (int)tu_rng_below(&r, c.alpha == PS_DNA ? 4 : 20);
                    c.text[i][j] = syms[sym];
                    c.pat[i].e[j].cls = (ps_class_t)1 << sym;
                    c.pat[i].e[j].lo = c.pat[i].e[j].hi = 1;
                }
                c.text[i][kk] = '\0';
            }
        }
        const int fastq = write_pcase(&r, &c, path);

        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int rc = ps_probes_from_strings(&p, c.n, (const char *const *)c.text, NULL, (ps_alpha_req_t)c.alpha, &err);
        ck_assert_msg(rc == PS_OK, "locate case %d (seed %llu): probes: %s", k, (unsigned long long)tu_seed(), err.msg);
        ps_patset_t *ps = NULL;
        ps_automaton_t *a = NULL;
        ps_kmerset_t *ks = NULL;
        const ps_leaves_t *lv;
        ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        if (c.chunk_restarts) so.chunk_restarts = c.chunk_restarts;
        ps_engine_t *e = NULL;
        const char *engine;
        if (p->patterns || c.mm) {
            ck_assert_msg(ps_patset_build(&ps, p, c.both, c.mm, &err) == PS_OK, "%s", err.msg);
            lv = &ps->leaves;
            ck_assert(ps_pattern_engine_new(&e, ps, ps_scan_workers(&so), &err) == PS_OK);
            engine = "patterns";
            engines[0]++;
        } else if (ps_kmerset_fits(p) && tu_rng_chance(&r, 50)) {
            ck_assert_msg(ps_kmerset_build(&ks, p, c.both, c.threads, &err) == PS_OK, "%s", err.msg);
            lv = &ks->leaves;
            ck_assert(ps_kmer_engine_new(&e, ks, ps_scan_workers(&so), 1u << 20, &err) == PS_OK);
            engine = "k-mer set";
            engines[1]++;
        } else {
            ck_assert_msg(ps_automaton_build(&a, p, c.both, &err) == PS_OK, "%s", err.msg);
            lv = &a->leaves;
            ck_assert(ps_cpu_engine_new(&e, a, ps_scan_workers(&so), &err) == PS_OK);
            engine = "automaton";
            engines[2]++;
        }
        char *got = NULL;
        size_t got_len = 0;
        FILE *mem = open_memstream(&got, &got_len);
        ck_assert(mem);
        ps_site_writer_t *w = NULL;
        ck_assert(ps_site_writer_new(&w, mem, p, lv, PS_SITES_BED, 0, &err) == PS_OK);
        ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, NULL, ps_site_writer_free_rows, 0};
        if (tu_rng_chance(&r, 50)) { /* blocks where they serve: FASTA, probes of one length */
            sink.emit_block = ps_site_writer_emit_block;
            if (tu_rng_chance(&r, 50)) so.block_bytes = (size_t)tu_rng_range(&r, 1, 64);
        }
        ps_scan_stats_t st;
        rc = ps_scan_file(e, lv, path, &so, NULL, &sink, &st, NULL, NULL, &err);
        ck_assert_msg(rc == PS_OK, "locate case %d (seed %llu): %s", k, (unsigned long long)tu_seed(), err.msg);
        ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
        fclose(mem);
        tu_buf_t want = {0};
        brute_rows(&c, &want);
        tu_buf_putc(&want, '\0');
        if (strcmp(got, want.p)) {
            /* Name the first row that differs. */
            size_t i = 0, line = 0;
            while (got[i] && got[i] == want.p[i]) line += got[i++] == '\n';
            while (i > 0 && got[i - 1] != '\n') i--;
            ck_abort_msg("locate case %d (seed %llu; %s, %s, %s strands, -m %d, %d threads, chunk %llu/%u, %s): "
                         "row %zu differs:\n got: %.80s\nwant: %.80s",
                         k, (unsigned long long)tu_seed(), engine, ps_alpha_name(c.alpha), c.both ? "both" : "one",
                         c.mm, c.threads, (unsigned long long)so.chunk_syms, so.chunk_restarts,
                         fastq ? "fastq" : "fasta", line + 1, got + i, want.p + i);
        }
        for (size_t i = 0; got[i]; i++) rows += got[i] == '\n';
        free(got);
        tu_buf_free(&want);
        ps_site_writer_free(w);
        ps_engine_destroy(e);
        ps_patset_free(ps);
        ps_automaton_free(a);
        ps_kmerset_free(ks);
        ps_probes_free(p);
        free_pcase(&c);
    }
    /* The cases must have placed sites, on every engine. */
    ck_assert_msg(rows > 1000 && engines[0] && engines[1] && engines[2],
                  "seed %llu: %llu rows; cases: %llu patterns, %llu k-mer set, %llu automaton",
                  (unsigned long long)tu_seed(), (unsigned long long)rows, (unsigned long long)engines[0],
                  (unsigned long long)engines[1], (unsigned long long)engines[2]);
    free(path);
    tu_rmtree(dir);
}
END_TEST

Suite *suite_pattern(void)
{
    Suite *s = suite_create("pattern");
    TCase *tc = tcase_create("pattern");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_parse_iupac);
    tcase_add_test(tc, test_parse_prosite);
    tcase_add_test(tc, test_revcomp);
    tcase_add_test(tc, test_random_patterns);
    tcase_add_test(tc, test_split_engine);
    tcase_add_test(tc, test_gated_patterns);
    tcase_add_test(tc, test_random_locate);
    suite_add_tcase(s, tc);
    return s;
}
