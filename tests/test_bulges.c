/* test_bulges.c - guides with DNA and RNA bulges (bulges.h) through the
 * bulge engine against a brute force written here from the definition:
 * every start, strand and bulge of every guide tried on the text itself.
 * Random guides (some with N at their ends), 3' and 5' PAMs or none, bulges
 * of 0 to 2 bases each kind, limits per guide, sites planted with bulges
 * and mismatches on both strands, N runs, several records, small chunks,
 * threads; both ways of listing (the best position of a site, and every
 * position as Cas-OFFinder lists them); rows through the site writer; and
 * the refusals. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulges.h"
#include "engine_bulges.h"
#include "guides.h"
#include "probes.h"
#include "scan.h"
#include "sites.h"
#include "testutil.h"

static char comp(char c) { return c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N'; }

/* The bases of an IUPAC letter (A=1 C=2 G=4 T=8). */
static unsigned bases(char c)
{
    static const char code[] = "ACMGRSVTWYHKDBN";
    const char *at = strchr(code, toupper((unsigned char)c));
    return at && c ? (unsigned)(at - code) + 1u : 0u;
}

typedef struct {
    uint32_t n, len;  /* guides, spacer length */
    char **spacer;
    int *limit;       /* -1: -m */
    const char *pam;
    int five, both, mm, dna, rna, threads, all;
    char **recs;
    int n_rec;
    uint64_t chunk_syms;
} bcase_t;

static const char *const pams[] = {"NGG", "NRG", "TTTV", "NNGRRT", ""};

static void random_bases(tu_rng_t *r, char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) s[i] = "ACGT"[tu_rng_below(r, 4)];
}

/* A site of guide g on its strand: a bulge, a few mismatches, its PAM. */
static size_t plant(tu_rng_t *r, const bcase_t *c, uint32_t g, char *out)
{
    char sp[64];
    size_t n = c->len;
    memcpy(sp, c->spacer[g], n);
    for (size_t i = 0; i < n; i++)
        if (sp[i] == 'N') sp[i] = "ACGT"[tu_rng_below(r, 4)];
    const int kind = (int)tu_rng_below(r, 3);
    if (kind == 1 && c->dna) {
        const size_t i = tu_rng_range(r, 1, (uint64_t)c->dna), j = tu_rng_below(r, n + 1);
        memmove(sp + j + i, sp + j, n - j);
        random_bases(r, sp + j, i);
        n += i;
    } else if (kind == 2 && c->rna) {
        const size_t i = tu_rng_range(r, 1, (uint64_t)c->rna), j = tu_rng_below(r, n - i);
        memmove(sp + j, sp + j + i, n - j - i);
        n -= i;
    }
    for (int m = (int)tu_rng_below(r, 3); m > 0; m--) sp[tu_rng_below(r, n)] = "ACGT"[tu_rng_below(r, 4)];
    const size_t a = strlen(c->pam);
    char pam[8];
    for (size_t q = 0; q < a; q++) {
        unsigned b = bases(c->pam[q]);
        int k;
        do k = (int)tu_rng_below(r, 4);
        while (!(b >> k & 1));
        pam[q] = "ACGT"[k];
    }
    if (c->five) {
        memcpy(out, pam, a);
        memcpy(out + a, sp, n);
    } else {
        memcpy(out, sp, n);
        memcpy(out + n, pam, a);
    }
    return n + a;
}

static void make_case(tu_rng_t *r, bcase_t *c)
{
    memset(c, 0, sizeof *c);
    c->pam = pams[tu_rng_below(r, 5)];
    c->five = !strcmp(c->pam, "TTTV");
    c->len = (uint32_t)tu_rng_range(r, 6, 20);
    do {
        c->dna = (int)tu_rng_below(r, 3);
        c->rna = (int)tu_rng_below(r, 3);
    } while (!c->dna && !c->rna);
    if ((uint32_t)c->rna >= c->len) c->rna = 1;
    c->mm = (int)tu_rng_below(r, 4);
    c->both = tu_rng_chance(r, 80);
    c->all = tu_rng_chance(r, 50);
    c->threads = (int)tu_rng_range(r, 1, 3);
    c->chunk_syms = tu_rng_chance(r, 50) ? tu_rng_range(r, 64, 400) : 0;
    c->n = (uint32_t)tu_rng_range(r, 1, 6);
    c->spacer = calloc(c->n, sizeof *c->spacer);
    c->limit = calloc(c->n, sizeof *c->limit);
    ck_assert(c->spacer && c->limit);
    for (uint32_t g = 0; g < c->n; g++) {
        c->spacer[g] = calloc(c->len + 1, 1);
        ck_assert(c->spacer[g]);
        random_bases(r, c->spacer[g], c->len);
        /* N at an end moves the first or last compared position. */
        if (tu_rng_chance(r, 15)) c->spacer[g][0] = 'N';
        if (tu_rng_chance(r, 10)) c->spacer[g][c->len - 1] = 'N';
        c->limit[g] = tu_rng_chance(r, 30) ? (int)tu_rng_below(r, 4) : -1;
    }
    c->n_rec = (int)tu_rng_range(r, 1, 3);
    c->recs = calloc((size_t)c->n_rec, sizeof *c->recs);
    ck_assert(c->recs);
    for (int k = 0; k < c->n_rec; k++) {
        const size_t L = tu_rng_range(r, 5, 700);
        char *s = c->recs[k] = calloc(L + 1, 1);
        ck_assert(s);
        /* A small alphabet now and then: near-misses everywhere. */
        const int skew = tu_rng_chance(r, 30);
        for (size_t i = 0; i < L; i++) s[i] = skew ? "ACGG"[tu_rng_below(r, 4)] : "ACGT"[tu_rng_below(r, 4)];
        for (int p = (int)tu_rng_below(r, 8); p > 0; p--) {
            char site[80];
            size_t n = plant(r, c, (uint32_t)tu_rng_below(r, c->n), site);
            if (n > L) continue;
            if (tu_rng_chance(r, 50)) {
                for (size_t q = 0; q < n / 2; q++) {
                    char t = site[q];
                    site[q] = comp(site[n - 1 - q]);
                    site[n - 1 - q] = comp(t);
                }
                if (n % 2) site[n / 2] = comp(site[n / 2]);
            }
            memcpy(s + tu_rng_below(r, L - n + 1), site, n);
        }
        if (tu_rng_chance(r, 40)) {
            size_t at = tu_rng_below(r, L), run = tu_rng_range(r, 1, 6);
            for (size_t i = at; i < L && i < at + run; i++) s[i] = 'N';
        }
    }
}

static void free_case(bcase_t *c)
{
    for (uint32_t g = 0; g < c->n; g++) free(c->spacer[g]);
    free(c->spacer);
    free(c->limit);
    for (int k = 0; k < c->n_rec; k++) free(c->recs[k]);
    free(c->recs);
}

/* The mismatches of guide spacer S (n) against spacer region sp of a site,
 * its bulge of type t and size i at j (bulges.h), compared base by base. */
static int align(const char *S, uint32_t n, const char *sp, int t, int i, int j)
{
    int d = 0;
    for (int p = 0; p < (int)n; p++) {
        if (S[p] == 'N') continue;
        int q;
        if (t == PS_BULGE_X) q = p;
        else if (t == PS_BULGE_DNA) q = p < j ? p : p + i;
        else if (p < j) q = p;
        else if (p < j + i) continue; /* no genome base */
        else q = p - i;
        d += S[p] != sp[q];
    }
    return d;
}

/* The brute force: counts per leaf of b's layout, every site of the text. */
static void brute(const bcase_t *c, const ps_bulgeset_t *b, uint64_t *want)
{
    const int a = (int)strlen(c->pam), n = (int)c->len, strands = c->both ? 2 : 1, levels = c->mm + 1;
    for (int k = 0; k < c->n_rec; k++) {
        const char *rec = c->recs[k];
        const int L = (int)strlen(rec);
        for (uint32_t g = 0; g < c->n; g++) {
            const char *S = c->spacer[g];
            const int lim = c->limit[g] < 0 ? c->mm : c->limit[g];
            int f = -1, l = -1;
            for (int p = 0; p < n; p++)
                if (S[p] != 'N') {
                    if (f < 0) f = p;
                    l = p;
                }
            for (int cls = 0; cls <= c->dna + c->rna; cls++) {
                const int t = cls == 0 ? PS_BULGE_X : cls <= c->dna ? PS_BULGE_DNA : PS_BULGE_RNA;
                const int i = cls == 0 ? 0 : cls <= c->dna ? cls : cls - c->dna;
                int jlo = 0, jhi = 0;
                if (t == PS_BULGE_DNA) jlo = c->five ? f : f + 1, jhi = c->five ? l : l + 1;
                if (t == PS_BULGE_RNA) jlo = f, jhi = l - i;
                if (t != PS_BULGE_X && (f < 0 || jhi < jlo)) continue;
                const int len = a + (t == PS_BULGE_DNA ? n + i : t == PS_BULGE_RNA ? n - i : n);
                for (int x = 0; x + len <= L; x++) {
                    char site[80];
                    int clean = 1;
                    for (int q = 0; q < len; q++) clean &= rec[x + q] != 'N';
                    if (!clean) continue;
                    for (int s = 0; s < strands; s++) {
                        for (int q = 0; q < len; q++) site[q] = s ? comp(rec[x + len - 1 - q]) : rec[x + q];
                        const char *pam = c->five ? site : site + len - a, *sp = c->five ? site + a : site;
                        int pam_ok = 1;
                        for (int q = 0; q < a; q++) pam_ok &= (bases(c->pam[q]) & bases(pam[q])) != 0;
                        if (!pam_ok) continue;
                        int best = lim + 1, best_j = 0;
                        for (int j = jlo; j <= jhi; j++) {
                            const int d = align(S, c->len, sp, t, i, j);
                            if (d > lim) continue;
                            if (c->all) {
                                const uint32_t v = b->var_at[(size_t)g * b->n_classes + (uint32_t)cls] + (uint32_t)(j - jlo);
                                want[ps_bulge_leaf(b, v, s, d)]++;
                            } else if (d < best) {
                                best = d;
                                best_j = j;
                            }
                        }
                        if (!c->all && best <= lim) {
                            const uint32_t v = b->var_at[(size_t)g * b->n_classes + (uint32_t)cls] + (uint32_t)(best_j - jlo);
                            want[ps_bulge_leaf(b, v, s, best)]++;
                        }
                    }
                }
            }
        }
    }
    (void)levels;
}

static void write_case(const bcase_t *c, const char *in, const char *pf)
{
    FILE *f = fopen(in, "w");
    ck_assert(f);
    for (int k = 0; k < c->n_rec; k++) fprintf(f, ">r%d\n%s\n", k, c->recs[k]);
    fclose(f);
    f = fopen(pf, "w");
    ck_assert(f);
    for (uint32_t g = 0; g < c->n; g++) {
        fprintf(f, "g%u\t%s", g, c->spacer[g]);
        if (c->limit[g] >= 0) fprintf(f, "\t%d", c->limit[g]);
        fputc('\n', f);
    }
    fclose(f);
}

static ps_probes_t *load_case(const bcase_t *c, const char *pf, int *mm)
{
    ps_err_t err = {0};
    ps_probes_t *p = NULL;
    ck_assert_msg(ps_probes_load(&p, pf, PS_ALPHA_DNA, 1, &err) == PS_OK, "%s", err.msg);
    if (c->pam[0]) ck_assert_msg(ps_guides_add_pam(&p, c->pam, c->five, pf, &err) == PS_OK, "%s", err.msg);
    ck_assert_msg(ps_guides_limits(p, c->mm, mm, pf, &err) == PS_OK, "%s", err.msg);
    p->bulge_dna = (uint8_t)c->dna;
    p->bulge_rna = (uint8_t)c->rna;
    return p;
}

START_TEST(test_random_bulges)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0xb01e5ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "probes.tsv");
    uint64_t total = 0, bulged = 0;
    for (int k = 0; k < 400; k++) {
        bcase_t c;
        make_case(&r, &c);
        write_case(&c, in, pf);
        int mm;
        ps_probes_t *p = load_case(&c, pf, &mm);
        ps_err_t err = {0};
        ps_bulgeset_t *b = NULL;
        ck_assert_msg(ps_bulgeset_build(&b, p, mm, c.both, c.all, &err) == PS_OK, "case %d: %s", k, err.msg);
        ck_assert_uint_eq(b->n, c.len);
        ck_assert_int_eq(b->pam5, c.five);
        /* The layout: each variant is its guide's class at its position. */
        for (uint32_t v = 0; v < b->n_var; v++) {
            const ps_bulge_var_t *x = &b->var[v];
            ck_assert_uint_lt(x->guide, c.n);
            ck_assert_uint_eq(v - b->var_at[(size_t)x->guide * b->n_classes + x->cls],
                              (uint32_t)x->pos - b->jlo[(size_t)x->guide * b->n_classes + x->cls]);
        }
        ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &info, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        ps_engine_t *e = NULL;
        ck_assert_msg(ps_bulge_engine_new(&e, b, ps_scan_workers(&so), &err) == PS_OK, "%s", err.msg);
        const uint32_t nl = b->leaves.n_leaves;
        uint64_t *got = calloc(nl, sizeof *got), *want = calloc(nl, sizeof *want);
        ck_assert(got && want);
        ps_scan_stats_t st;
        ck_assert_msg(ps_scan_file(e, &b->leaves, in, &so, got, NULL, &st, NULL, NULL, &err) == PS_OK, "%s", err.msg);
        brute(&c, b, want);
        uint64_t sum = 0;
        for (uint32_t l = 0; l < nl; l++) {
            const uint32_t v = l / (uint32_t)b->leaves.levels / (c.both ? 2u : 1u);
            const ps_bulge_var_t *x = &b->var[v];
            ck_assert_msg(got[l] == want[l],
                          "case %d (seed %llu): guide %s PAM %s%s, bulges %d/%d, -m %d, %s, %s strands, %d threads, "
                          "chunk %llu: variant %s %d at %d, strand %u, distance %u: %llu sites, brute force %llu",
                          k, (unsigned long long)tu_seed(), c.spacer[x->guide], c.pam, c.five ? " (5')" : "", c.dna,
                          c.rna, c.mm, c.all ? "every position" : "best position", c.both ? "both" : "one", c.threads,
                          (unsigned long long)so.chunk_syms, ps_bulge_type_name(x->type), x->size, x->pos,
                          (l / (uint32_t)b->leaves.levels) % (c.both ? 2u : 1u), l % (uint32_t)b->leaves.levels,
                          (unsigned long long)got[l], (unsigned long long)want[l]);
            sum += want[l];
            if (x->type != PS_BULGE_X) bulged += want[l];
        }
        total += sum;
        /* The rows: as many as the counts, through the site writer. */
        char *rows = NULL;
        size_t rl = 0;
        FILE *mem = open_memstream(&rows, &rl);
        ck_assert(mem);
        ps_site_writer_t *w = NULL;
        ck_assert(ps_site_writer_new_bulges(&w, mem, b, c.all ? PS_SITES_CASOFF : PS_SITES_TSV, 0, &err) == PS_OK);
        ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                                 ps_site_writer_free_rows, 0};
        ck_assert_msg(ps_scan_file(e, &b->leaves, in, &so, NULL, &sink, NULL, NULL, NULL, &err) == PS_OK, "%s",
                      err.msg);
        ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
        ps_site_writer_free(w);
        fclose(mem);
        uint64_t lines = 0;
        for (size_t q = 0; q < rl; q++) lines += rows[q] == '\n';
        ck_assert_msg(lines == sum + (c.all ? 2 : 1), "case %d (seed %llu): %llu lines for %llu sites", k,
                      (unsigned long long)tu_seed(), (unsigned long long)lines, (unsigned long long)sum);
        free(rows);
        free(got);
        free(want);
        ps_engine_destroy(e);
        ps_bulgeset_free(b);
        ps_probes_free(p);
        free_case(&c);
    }
    ck_assert_msg(total > 2000 && bulged > 500, "the cases found only %llu sites (%llu with a bulge): too few",
                  (unsigned long long)total, (unsigned long long)bulged);
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

/* Cas-OFFinder 3.0.0's row of each kind, written out by hand. */
START_TEST(test_casoff_rows)
{
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "g.cof");
    /* guide ACGTACGTAC + NGG; sites: exact at 3; a DNA bulge at 19, its
     * extra T in a run of two (ACG-T or ACGT-, two rows); an RNA bulge at
     * 36 (ACGTA_GTAC lacks the C); and inside the exact site, at 4, the
     * same guide lacking its first base (an RNA bulge at position 0, which
     * Cas-OFFinder's range takes) */
    const char *text = ">chr1 first\nTTTACGTACGTACTGGTTTACGTTACGTACAGGTTTACGTAGTACAGGTTT\n";
    tu_write_file(in, text, strlen(text));
    FILE *f = fopen(pf, "w");
    ck_assert(f);
    fprintf(f, "%s\nNNNNNNNNNNNGG 1 1\nACGTACGTACNNN 0 myguide\n", in);
    fclose(f);
    ps_err_t err = {0};
    ps_probes_t *p = NULL;
    ck_assert_msg(ps_casoff_load(&p, pf, &err) == PS_OK, "%s", err.msg);
    int mm;
    ck_assert(ps_guides_limits(p, 0, &mm, pf, &err) == PS_OK);
    ck_assert_uint_eq(p->bulge_dna, 1);
    ck_assert_uint_eq(p->bulge_rna, 1);
    ps_bulgeset_t *b = NULL;
    ck_assert_msg(ps_bulgeset_build(&b, p, mm, 1, 1, &err) == PS_OK, "%s", err.msg);
    ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t so;
    ps_scan_opts_init(&so, &info, 1);
    ps_engine_t *e = NULL;
    ck_assert(ps_bulge_engine_new(&e, b, ps_scan_workers(&so), &err) == PS_OK);
    char *rows = NULL;
    size_t rl = 0;
    FILE *mem = open_memstream(&rows, &rl);
    ps_site_writer_t *w = NULL;
    ck_assert(ps_site_writer_new_bulges(&w, mem, b, PS_SITES_CASOFF, 0, &err) == PS_OK);
    ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows, ps_site_writer_emit_block,
                             ps_site_writer_free_rows, 0};
    ck_assert_msg(ps_scan_file(e, &b->leaves, in, &so, NULL, &sink, NULL, NULL, NULL, &err) == PS_OK, "%s", err.msg);
    ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
    ps_site_writer_free(w);
    fclose(mem);
    const char *want = "##Generated by Cas-OFFinder 3.0.0\n"
                       "#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\tMismatches\tBulge Size\n"
                       "myguide\tX\tACGTACGTACNNN\tACGTACGTACTGG\tchr1\t3\t+\t0\t0\n"
                       "myguide\tRNA\tACGTACGTACNNN\t-CGTACGTACTGG\tchr1\t4\t+\t0\t1\n"
                       "myguide\tDNA\tACG-TACGTACNNN\tACGTTACGTACAGG\tchr1\t19\t+\t0\t1\n"
                       "myguide\tDNA\tACGT-ACGTACNNN\tACGTTACGTACAGG\tchr1\t19\t+\t0\t1\n"
                       "myguide\tRNA\tACGTACGTACNNN\tACGTA-GTACAGG\tchr1\t36\t+\t0\t1\n";
    ck_assert_msg(!strcmp(rows, want), "rows:\n%s", rows);
    free(rows);
    ps_engine_destroy(e);
    ps_bulgeset_free(b);
    ps_probes_free(p);
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

/* What the bulge set refuses, saying why. */
START_TEST(test_bulge_refusals)
{
    ps_err_t err = {0};
    const char *mixed[] = {"ACGTACGTAC", "ACGTACGTACG"};
    ps_probes_t *p = NULL;
    ck_assert(ps_probes_from_strings(&p, 2, mixed, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "NGG", 0, "x", &err) == PS_OK);
    p->bulge_dna = 1;
    ps_bulgeset_t *b = NULL;
    ck_assert(ps_bulgeset_build(&b, p, 1, 1, 0, &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "differ in length"), "%s", err.msg);
    ps_probes_free(p);
    const char *iupac[] = {"ACGTRCGTAC"};
    ck_assert(ps_probes_from_strings(&p, 1, iupac, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "NGG", 0, "x", &err) == PS_OK);
    p->bulge_rna = 1;
    ck_assert(ps_bulgeset_build(&b, p, 1, 1, 0, &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "A, C, G, T and N"), "%s", err.msg);
    ps_probes_free(p);
    const char *longg[] = {"ACGTACGTACGTACGTACGTACGTACGT"};
    ck_assert(ps_probes_from_strings(&p, 1, longg, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "NGG", 0, "x", &err) == PS_OK);
    p->bulge_dna = 2;
    ck_assert(ps_bulgeset_build(&b, p, 1, 1, 0, &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "at most 32"), "%s", err.msg);
    ps_probes_free(p);
}
END_TEST

Suite *suite_bulges(void)
{
    Suite *s = suite_create("bulges");
    TCase *tc = tcase_create("bulges");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_bulges);
    tcase_add_test(tc, test_casoff_rows);
    tcase_add_test(tc, test_bulge_refusals);
    suite_add_tcase(s, tc);
    return s;
}
