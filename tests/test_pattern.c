/* test_pattern.c - patterns: reading IUPAC and PROSITE syntax, and the
 * pattern engine against a brute-force matcher written here (classes,
 * mixed lengths, mismatches, both strands, records, N runs, chunk cuts). */
#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "engine_pattern.h"
#include "pattern.h"
#include "patset.h"
#include "scan.h"
#include "testutil.h"

static const char dna_syms[] = "ACGT";
static const char protein_syms[] = "ACDEFGHIKLMNPQRSTVWYBZXUOJ*";

static int parse_ok(ps_alpha_t a, const char *s, ps_class_t *cls)
{
    uint32_t len = 0;
    char why[160];
    int rc = ps_pattern_parse(a, s, strlen(s), cls, &len, why, sizeof why);
    ck_assert_msg(rc == 0, "'%s': %s", s, why);
    return (int)len;
}

static void parse_fails(ps_alpha_t a, const char *s, const char *want)
{
    ps_class_t cls[PS_PATTERN_MAX];
    uint32_t len = 0;
    char why[160] = "";
    int rc = ps_pattern_parse(a, s, strlen(s), cls, &len, why, sizeof why);
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
    ck_assert(!ps_pattern_is_exact(c, 5) && ps_pattern_is_exact(c, 4));
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
    ck_assert_uint_eq(c[3], pbit('D') | pbit('E'));
    ck_assert_uint_eq(c[4], ((1u << PS_PROTEIN_SIGMA) - 1) & ~pbit('P'));
    ck_assert_uint_eq(c[7], (1u << PS_PROTEIN_SIGMA) - 1);
    ck_assert_int_eq(parse_ok(PS_PROTEIN, "[ST](3)", c), 3);
    ck_assert_uint_eq(c[2], pbit('S') | pbit('T'));
    /* DNA in PROSITE syntax takes IUPAC codes, and x is any base. */
    ck_assert_int_eq(parse_ok(PS_DNA, "A-R-x(2)-{A}", c), 5);
    ck_assert_uint_eq(c[1], 5);
    ck_assert_uint_eq(c[3], 15);
    ck_assert_uint_eq(c[4], 14);
    parse_fails(PS_PROTEIN, "C-x(2,4)-C", "variable repeat (2,4) is not counted yet");
    parse_fails(PS_PROTEIN, "<M-x-K", "anchor '<'");
    parse_fails(PS_PROTEIN, "K-D-E-L>", "anchor '>'");
    parse_fails(PS_PROTEIN, "[G>]", "anchor '>'");
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
    ps_class_t c[PS_PATTERN_MAX], r[PS_PATTERN_MAX], want[PS_PATTERN_MAX];
    int n = parse_ok(PS_DNA, "ARYN", c);
    ps_pattern_revcomp(c, (uint32_t)n, r);
    ck_assert_int_eq(parse_ok(PS_DNA, "NRYT", want), 4);
    for (int i = 0; i < n; i++) ck_assert_uint_eq(r[i], want[i]);
}
END_TEST

/* ---- the engine against brute force ------------------------------------ */

typedef struct {
    ps_alpha_t alpha;
    int both, mm, threads;
    uint32_t n;
    char **text;       /* the probes as written */
    ps_class_t **cls;  /* and as classes, from the generator */
    uint32_t *len;
    char **recs;
    int n_rec;
    uint64_t chunk_syms;
} pcase_t;

static ps_class_t random_class(tu_rng_t *r, ps_alpha_t a)
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

static void put_class(tu_buf_t *b, ps_alpha_t a, ps_class_t c, int prosite, tu_rng_t *r)
{
    int sigma = a == PS_DNA ? 4 : PS_PROTEIN_SIGMA;
    ps_class_t all = (ps_class_t)((1ull << sigma) - 1);
    const char *syms = a == PS_DNA ? dna_syms : protein_syms;
    if (a == PS_DNA && (!prosite || tu_rng_chance(r, 50)) && c != all) {
        tu_buf_puts(b, iupac_of(c));
        return;
    }
    if (c == all && prosite) {
        tu_buf_putc(b, tu_rng_chance(r, 80) ? 'x' : 'X');
        return;
    }
    if (c == all) { /* plain DNA */
        tu_buf_putc(b, 'N');
        return;
    }
    if (!(c & (c - 1)) && !(prosite && syms[__builtin_ctz(c)] == 'X')) { /* PROSITE's X is any: [X] is the residue */
        char ch = syms[__builtin_ctz(c)];
        tu_buf_putc(b, tu_rng_chance(r, 20) ? (char)tolower((unsigned char)ch) : ch);
        return;
    }
    /* A class: as [..] or, when shorter, {..}. */
    int n_in = __builtin_popcount(c);
    int neg = sigma - n_in < n_in && a == PS_PROTEIN;
    ps_class_t show = neg ? all & ~c : c;
    tu_buf_putc(b, neg ? '{' : '[');
    for (int s = 0; s < sigma; s++)
        if (show >> s & 1) tu_buf_putc(b, syms[s]);
    tu_buf_putc(b, neg ? '}' : ']');
}

static char *render(tu_rng_t *r, ps_alpha_t a, const ps_class_t *cls, uint32_t len)
{
    tu_buf_t b = {0};
    int prosite = a == PS_PROTEIN ? tu_rng_chance(r, 85) : tu_rng_chance(r, 40);
    if (!prosite && a == PS_PROTEIN)
        for (uint32_t i = 0; i < len; i++)
            if (cls[i] & (cls[i] - 1)) prosite = 1;
    for (uint32_t i = 0; i < len;) {
        uint32_t run = 1;
        while (prosite && i + run < len && cls[i + run] == cls[i]) run++;
        if (prosite && i) tu_buf_putc(&b, '-');
        put_class(&b, a, cls[i], prosite, r);
        if (prosite && run > 1) tu_buf_printf(&b, "(%u)", run);
        i += prosite ? run : 1;
    }
    if (prosite && tu_rng_chance(r, 20)) tu_buf_putc(&b, '.');
    /* A one-element PROSITE probe without syntax would read as plain. */
    if (prosite && !ps_pattern_is_prosite(b.p, b.n)) tu_buf_putc(&b, '.');
    tu_buf_putc(&b, '\0');
    return b.p;
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
    c->cls = calloc(c->n, sizeof *c->cls);
    c->len = calloc(c->n, sizeof *c->len);
    ck_assert(c->text && c->cls && c->len);
    int one_len = tu_rng_chance(r, 30);
    uint32_t L0 = (uint32_t)tu_rng_range(r, 1, 12);
    for (uint32_t i = 0; i < c->n; i++) {
        c->len[i] = one_len ? L0 : (uint32_t)tu_rng_range(r, 1, 12);
        if (tu_rng_chance(r, 3)) c->len[i] = (uint32_t)tu_rng_range(r, 60, 140); /* across words */
        ck_assert((c->cls[i] = malloc(c->len[i] * sizeof(ps_class_t))) != NULL);
        for (uint32_t j = 0; j < c->len[i]; j++) c->cls[i][j] = random_class(r, c->alpha);
        c->text[i] = render(r, c->alpha, c->cls[i], c->len[i]);
    }
    c->n_rec = (int)tu_rng_range(r, 1, 4);
    c->recs = calloc((size_t)c->n_rec, sizeof *c->recs);
    const char *syms = c->alpha == PS_DNA ? dna_syms : protein_syms;
    size_t sigma = strlen(syms);
    /* A small alphabet of text now and then, so that long classes match. */
    size_t use = tu_rng_chance(r, 30) ? (size_t)tu_rng_range(r, 1, 2) : sigma;
    for (int t = 0; t < c->n_rec; t++) {
        size_t len = (size_t)tu_rng_below(r, 400);
        char *s = malloc(len + 1);
        ck_assert(s);
        for (size_t j = 0; j < len; j++) {
            if (tu_rng_chance(r, 2)) s[j] = c->alpha == PS_DNA ? 'N' : tu_rng_chance(r, 50) ? '-' : '.';
            else s[j] = syms[tu_rng_below(r, use)];
            if (c->alpha == PS_DNA && tu_rng_chance(r, 5)) s[j] = (char)tolower((unsigned char)s[j]);
        }
        s[len] = '\0';
        c->recs[t] = s;
    }
    uint32_t kmax = 0;
    for (uint32_t i = 0; i < c->n; i++) kmax = c->len[i] > kmax ? c->len[i] : kmax;
    c->chunk_syms = tu_rng_chance(r, 60) ? kmax + tu_rng_below(r, 40) : 0;
}

static void free_pcase(pcase_t *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        free(c->text[i]);
        free(c->cls[i]);
    }
    for (int t = 0; t < c->n_rec; t++) free(c->recs[t]);
    free(c->text);
    free(c->cls);
    free(c->len);
    free(c->recs);
}

static int sym_of(ps_alpha_t a, char ch)
{
    int up = toupper((unsigned char)ch);
    const char *syms = a == PS_DNA ? dna_syms : protein_syms;
    const char *p = strchr(syms, up);
    return p && up ? (int)(p - syms) : -1;
}

/* Sites of every probe and strand at each distance, window by window. */
static void brute(const pcase_t *c, uint64_t *want)
{
    const int strands = c->both ? 2 : 1, levels = c->mm + 1;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t L = c->len[i];
        ps_class_t *rc = malloc(L * sizeof *rc);
        ck_assert(rc);
        for (uint32_t j = 0; j < L; j++) { /* reversed, each base complemented */
            ps_class_t x = c->cls[i][L - 1 - j], y = 0;
            for (int b = 0; b < 4; b++)
                if (x >> b & 1) y |= 1u << (3 - b);
            rc[j] = y;
        }
        for (int s = 0; s < strands; s++) {
            const ps_class_t *p = s ? rc : c->cls[i];
            for (int t = 0; t < c->n_rec; t++) {
                size_t n = strlen(c->recs[t]);
                for (size_t at = 0; at + L <= n; at++) {
                    int d = 0, ok = 1;
                    for (uint32_t j = 0; j < L && ok; j++) {
                        int sym = sym_of(c->alpha, c->recs[t][at + j]);
                        if (sym < 0) ok = 0;
                        else if (!(p[j] >> sym & 1)) d++;
                    }
                    if (ok && d <= c->mm) want[(i * (uint32_t)strands + (uint32_t)s) * (uint32_t)levels + (uint32_t)d]++;
                }
            }
        }
        free(rc);
    }
}

START_TEST(test_random_patterns)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a77e4ull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "in.fa");
    for (int k = 0; k < 150; k++) {
        pcase_t c;
        make_pcase(&r, &c);
        tu_buf_t fa = {0};
        for (int t = 0; t < c.n_rec; t++) tu_buf_printf(&fa, ">r%d\n%s\n", t, c.recs[t]);
        tu_write_file(path, fa.p, fa.n);
        tu_buf_free(&fa);

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
                          "case %d (seed %llu; %s, %s strands, -m %d, %d threads, chunk %llu, block %zu): probe '%s' "
                          "strand %u distance %u: %llu sites, brute force %llu",
                          k, (unsigned long long)tu_seed(), ps_alpha_name(c.alpha), c.both ? "both" : "one", c.mm,
                          c.threads, (unsigned long long)so.chunk_syms, so.block_bytes,
                          c.text[l / levels / strands], (l / levels) % strands, l % levels,
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

Suite *suite_pattern(void)
{
    Suite *s = suite_create("pattern");
    TCase *tc = tcase_create("pattern");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_parse_iupac);
    tcase_add_test(tc, test_parse_prosite);
    tcase_add_test(tc, test_revcomp);
    tcase_add_test(tc, test_random_patterns);
    suite_add_tcase(s, tc);
    return s;
}
