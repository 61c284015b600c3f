/* test_guides.c - guides (guides.h): a PAM beside every probe, 3' or 5',
 * and each probe's own mismatch limit, through the pattern engine against
 * a brute-force search written here (random guides, IUPAC PAMs, both
 * strands, N runs, chunk cuts, threads); reading limits from a probe
 * file's third column; Cas-OFFinder input files and their refusals. */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine_guides.h"
#include "engine_pattern.h"
#include "engine_split.h"
#include "guides.h"
#include "nsites.h"
#include "patset.h"
#include "probes.h"
#include "scan.h"
#include "sites.h"
#include "testutil.h"

/* The bases of an IUPAC letter (A=1 C=2 G=4 T=8). */
static unsigned bases(char c)
{
    static const char code[] = "ACMGRSVTWYHKDBN";
    const char *at = strchr(code, toupper((unsigned char)c));
    return at && c ? (unsigned)(at - code) + 1u : 0u;
}

static char comp(char c)
{
    switch (toupper((unsigned char)c)) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    case 'T': return 'A';
    default: return 'N';
    }
}

typedef struct {
    uint32_t n;
    char **spacer, **name;
    int *limit;       /* -1: -m */
    char pam[8];
    int five, both, mm, threads;
    char **recs;
    int n_rec;
    uint64_t chunk_syms;
} gcase_t;

static const char iupac[] = "ACGTRYSWKMBDHVN";

/* Room for n_rec records and n guides (named g0, g1, ...) in a cleared c. */
static void gcase_alloc(gcase_t *c, int n_rec, uint32_t n)
{
    memset(c, 0, sizeof *c);
    c->n_rec = n_rec;
    c->n = n;
    c->recs = calloc((size_t)n_rec, sizeof *c->recs);
    c->spacer = calloc(n, sizeof *c->spacer);
    c->name = calloc(n, sizeof *c->name);
    c->limit = calloc(n, sizeof *c->limit);
    ck_assert(c->recs && c->spacer && c->name && c->limit);
    for (uint32_t i = 0; i < n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "g%u", i);
        ck_assert((c->name[i] = strdup(nm)) != NULL);
    }
}

static void make_gcase(tu_rng_t *r, gcase_t *c)
{
    const int n_rec = (int)tu_rng_range(r, 1, 4);
    gcase_alloc(c, n_rec, (uint32_t)tu_rng_range(r, 1, 8));
    /* A small alphabet now and then, so that many sites come close. */
    const int use = tu_rng_chance(r, 30) ? 2 : 4;
    for (int t = 0; t < c->n_rec; t++) {
        size_t len = (size_t)tu_rng_below(r, tu_rng_chance(r, 20) ? 30 : 600);
        char *s = malloc(len + 1);
        ck_assert(s);
        const unsigned breaks = tu_rng_chance(r, 40) ? 2 : 0;
        for (size_t j = 0; j < len; j++) {
            s[j] = tu_rng_chance(r, breaks) ? 'N' : "ACGT"[tu_rng_below(r, (uint64_t)use)];
            if (tu_rng_chance(r, 5)) s[j] = (char)tolower((unsigned char)s[j]);
        }
        s[len] = '\0';
        c->recs[t] = s;
    }
    /* No PAM now and then: plain probes with -m, which the guide engine
     * takes through its piece index. */
    int pl = tu_rng_chance(r, 25) ? 0 : (int)tu_rng_range(r, 1, 6);
    for (int j = 0; j < pl; j++)
        c->pam[j] = tu_rng_chance(r, 50) ? "ACGT"[tu_rng_below(r, use)] : iupac[tu_rng_below(r, sizeof iupac - 1)];
    c->pam[pl] = '\0';
    c->five = tu_rng_chance(r, 40);
    c->both = tu_rng_chance(r, 70);
    c->mm = (int)tu_rng_below(r, 4);
    c->threads = (int)tu_rng_range(r, 1, 3);
    /* One length most of the time (guides of a library), else several;
     * half the cases a library's plain bases, which the guide engine takes. */
    const int plain = tu_rng_chance(r, 50), one = plain || tu_rng_chance(r, 40);
    const size_t L0 = (size_t)tu_rng_range(r, 4, 24);
    for (uint32_t i = 0; i < c->n; i++) {
        const size_t L = one ? L0 : (size_t)tu_rng_range(r, 3, 30);
        char *g = malloc(L + 1);
        ck_assert(g);
        /* From a record when one is long enough, so that sites exist. */
        const char *src = c->recs[tu_rng_below(r, (uint64_t)c->n_rec)];
        size_t sl = strlen(src);
        size_t at = sl > L ? (size_t)tu_rng_below(r, sl - L) : 0;
        for (size_t j = 0; j < L; j++) {
            char ch = sl > L ? (char)toupper((unsigned char)src[at + j]) : 'N';
            if (ch == 'N' || tu_rng_chance(r, 10)) ch = "ACGT"[tu_rng_below(r, 4)];
            if (!plain && tu_rng_chance(r, 4)) ch = iupac[tu_rng_below(r, sizeof iupac - 1)];
            g[j] = ch;
        }
        g[L] = '\0';
        c->spacer[i] = g;
        c->limit[i] = tu_rng_chance(r, 40) ? (int)tu_rng_below(r, 5) : -1;
    }
    c->chunk_syms = tu_rng_chance(r, 50) ? L0 + strlen(c->pam) + 30 + tu_rng_below(r, 40) : 0;
}

static void free_gcase(gcase_t *c)
{
    for (uint32_t i = 0; i < c->n; i++) {
        free(c->spacer[i]);
        free(c->name[i]);
    }
    for (int t = 0; t < c->n_rec; t++) free(c->recs[t]);
    free(c->spacer);
    free(c->name);
    free(c->limit);
    free(c->recs);
}

/* Guide i's whole pattern and which positions are fixed. */
static size_t whole(const gcase_t *c, uint32_t i, char *pat, uint8_t *fixed)
{
    const size_t L = strlen(c->spacer[i]), P = strlen(c->pam);
    if (c->five) {
        memcpy(pat, c->pam, P);
        memcpy(pat + P, c->spacer[i], L);
    } else {
        memcpy(pat, c->spacer[i], L);
        memcpy(pat + L, c->pam, P);
    }
    for (size_t j = 0; j < L + P; j++) fixed[j] = c->five ? j < P : j >= L;
    pat[L + P] = '\0';
    return L + P;
}

/* Sites per leaf: at each start of each record, on each strand, the site's
 * letters (reverse complemented on '-') against the whole pattern: the
 * fixed positions must match, the mismatches elsewhere counted; a letter
 * N breaks every site over it. A site counts at its mismatches when they
 * are within the probe's limit. */
static void brute(const gcase_t *c, uint64_t *want, int levels)
{
    const int strands = c->both ? 2 : 1;
    char pat[128];
    uint8_t fixed[128];
    for (uint32_t i = 0; i < c->n; i++) {
        const size_t m = whole(c, i, pat, fixed);
        const int lim = c->limit[i] < 0 ? c->mm : c->limit[i];
        for (int t = 0; t < c->n_rec; t++) {
            const char *rec = c->recs[t];
            const size_t len = strlen(rec);
            for (size_t at = 0; at + m <= len; at++) {
                for (int s = 0; s < strands; s++) {
                    int d = 0, ok = 1;
                    for (size_t j = 0; j < m && ok; j++) {
                        char ch = s ? comp(rec[at + m - 1 - j]) : (char)toupper((unsigned char)rec[at + j]);
                        if (toupper((unsigned char)rec[s ? at + m - 1 - j : at + j]) == 'N') ok = 0;
                        else if (!(bases(ch) & bases(pat[j]))) {
                            if (fixed[j]) ok = 0;
                            else d++;
                        }
                    }
                    if (ok && d <= lim) want[(i * (uint32_t)strands + (uint32_t)s) * (uint32_t)levels + (uint32_t)d]++;
                }
            }
        }
    }
}

static void write_recs(const gcase_t *c, const char *path)
{
    tu_buf_t fa = {0};
    for (int t = 0; t < c->n_rec; t++) tu_buf_printf(&fa, ">r%d\n%s\n", t, c->recs[t]);
    tu_write_file(path, fa.p ? fa.p : "", fa.n);
    tu_buf_free(&fa);
}

/* The probe file the guides come from: name<TAB>spacer[<TAB>limit]. */
static void write_probes(const gcase_t *c, const char *path)
{
    tu_buf_t b = {0};
    for (uint32_t i = 0; i < c->n; i++) {
        tu_buf_printf(&b, "%s\t%s", c->name[i], c->spacer[i]);
        if (c->limit[i] >= 0) tu_buf_printf(&b, "\t%d", c->limit[i]);
        tu_buf_putc(&b, '\n');
    }
    tu_write_file(path, b.p, b.n);
    tu_buf_free(&b);
}

/* Case c written to in (records) and pf (probes), the probes loaded as
 * guides (PAM, limits) and laid out; *mm the most mismatches any takes. */
static ps_patset_t *case_set(const gcase_t *c, int k, const char *in, const char *pf, ps_probes_t **p, int *mm)
{
    write_recs(c, in);
    write_probes(c, pf);
    ps_err_t err = {0};
    *p = NULL;
    ck_assert_msg(ps_probes_load(p, pf, PS_ALPHA_DNA, 1, &err) == PS_OK, "case %d: %s", k, err.msg);
    if (c->pam[0]) ck_assert_msg(ps_guides_add_pam(p, c->pam, c->five, pf, &err) == PS_OK, "case %d: %s", k, err.msg);
    *mm = 0;
    ck_assert_msg(ps_guides_limits(*p, c->mm, mm, pf, &err) == PS_OK, "%s", err.msg);
    ps_patset_t *ps = NULL;
    ck_assert_msg(ps_patset_build(&ps, *p, c->both, *mm, &err) == PS_OK, "%s", err.msg);
    return ps;
}

/* Engine e's counts of file in, per leaf of ps (calloc'd). */
static uint64_t *scan_counts(ps_engine_t *e, const ps_patset_t *ps, const char *in, const ps_scan_opts_t *so)
{
    uint64_t *got = calloc(ps->leaves.n_leaves ? ps->leaves.n_leaves : 1, sizeof *got);
    ck_assert(got);
    ps_err_t err = {0};
    ps_scan_stats_t st;
    ck_assert_msg(ps_scan_file(e, &ps->leaves, in, so, got, NULL, &st, NULL, NULL, &err) == PS_OK, "%s", err.msg);
    return got;
}

START_TEST(test_random_pam)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x9a3ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "probes.tsv");
    uint64_t total = 0;
    int guide_sets = 0, unpammed = 0;
    for (int k = 0; k < 300; k++) {
        gcase_t c;
        make_gcase(&r, &c);
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int mm;
        ps_patset_t *ps = case_set(&c, k, in, pf, &p, &mm);
        ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &info, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        ps_engine_t *e = NULL;
        ck_assert_msg(ps_pattern_engine_new(&e, ps, ps_scan_workers(&so), &err) == PS_OK, "%s", err.msg);
        const uint32_t nl = ps->leaves.n_leaves;
        uint64_t *got = scan_counts(e, ps, in, &so), *want = calloc(nl, sizeof *want);
        ck_assert(want);
        brute(&c, want, mm + 1);
        /* The guide engine (PAM first), where the set qualifies: the same
         * counts, and the same rows. */
        ps_engine_t *ge = NULL;
        char why[160];
        int grc = ps_guide_engine_new(&ge, ps, ps_scan_workers(&so), why, sizeof why, &err);
        ck_assert_msg(grc >= 0, "%s", err.msg);
        if (grc == PS_OK) {
            guide_sets++;
            unpammed += !c.pam[0];
            uint64_t *g2 = scan_counts(ge, ps, in, &so);
            for (uint32_t l = 0; l < nl; l++)
                ck_assert_msg(g2[l] == want[l], "case %d (seed %llu): guide engine, leaf %u: %llu sites, brute force %llu",
                              k, (unsigned long long)tu_seed(), l, (unsigned long long)g2[l],
                              (unsigned long long)want[l]);
            free(g2);
            char *rows[2];
            ps_engine_t *es[2] = {e, ge};
            for (int h = 0; h < 2; h++) {
                size_t rl = 0;
                FILE *mem = open_memstream(&rows[h], &rl);
                ck_assert(mem);
                ps_site_writer_t *w = NULL;
                ck_assert(ps_site_writer_new(&w, mem, p, &ps->leaves, PS_SITES_CASOFF, 0, &err) == PS_OK);
                ps_record_sink_t sink = {NULL, w, ps_site_writer_rows, ps_site_writer_emit_rows,
                                         ps_site_writer_emit_block, ps_site_writer_free_rows, 0};
                ck_assert_msg(ps_scan_file(es[h], &ps->leaves, in, &so, NULL, &sink, NULL, NULL, NULL, &err) == PS_OK,
                              "%s", err.msg);
                ck_assert(ps_site_writer_flush(w, &err) == PS_OK);
                ps_site_writer_free(w);
                fclose(mem);
            }
            ck_assert_msg(!strcmp(rows[0], rows[1]), "case %d (seed %llu): rows differ between the engines", k,
                          (unsigned long long)tu_seed());
            free(rows[0]);
            free(rows[1]);
            ps_engine_destroy(ge);
        }
        const uint32_t levels = (uint32_t)mm + 1, strands = c.both ? 2u : 1u;
        for (uint32_t l = 0; l < nl; l++) {
            total += want[l];
            const uint32_t i = l / levels / strands;
            ck_assert_msg(got[l] == want[l],
                          "case %d (seed %llu): guide %s PAM %s %s, limit %d, -m %d, %s strands, %d threads, chunk "
                          "%llu: strand %u distance %u: %llu sites, brute force %llu",
                          k, (unsigned long long)tu_seed(), c.spacer[i], c.pam, c.five ? "5'" : "3'", c.limit[i],
                          c.mm, c.both ? "both" : "one", c.threads, (unsigned long long)so.chunk_syms,
                          (l / levels) % strands, l % levels, (unsigned long long)got[l], (unsigned long long)want[l]);
        }
        free(got);
        free(want);
        ps_engine_destroy(e);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_gcase(&c);
    }
    ck_assert_msg(total > 1000, "the cases found only %llu sites: too few to test anything",
                  (unsigned long long)total);
    ck_assert_msg(guide_sets > 100 && unpammed > 8, "only %d cases made guide sets, %d without a PAM", guide_sets,
                  unpammed);
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

/* A library: many guides of one length drawn from the records with a few
 * changes, limits per guide now and then, with or without a PAM. */
static void make_library(tu_rng_t *r, gcase_t *c)
{
    const int n_rec = (int)tu_rng_range(r, 1, 3);
    gcase_alloc(c, n_rec, (uint32_t)tu_rng_range(r, 20, 400));
    const int use = tu_rng_chance(r, 20) ? 2 : 4;
    for (int t = 0; t < c->n_rec; t++) {
        const size_t len = (size_t)tu_rng_range(r, 200, 3000);
        char *s = malloc(len + 1);
        ck_assert(s);
        for (size_t j = 0; j < len; j++) s[j] = tu_rng_chance(r, 1) ? 'N' : "ACGT"[tu_rng_below(r, (uint64_t)use)];
        s[len] = '\0';
        c->recs[t] = s;
    }
    if (tu_rng_chance(r, 50)) {
        const char *pams[] = {"NGG", "NRG", "TTTV", "NNGRRT"};
        const int w = (int)tu_rng_below(r, 4);
        strcpy(c->pam, pams[w]);
        c->five = w == 2;
    }
    c->both = tu_rng_chance(r, 80);
    c->mm = (int)tu_rng_below(r, 5);
    c->threads = (int)tu_rng_range(r, 1, 3);
    const size_t L = (size_t)tu_rng_range(r, 8, 32 - strlen(c->pam));
    for (uint32_t i = 0; i < c->n; i++) {
        char *g = malloc(L + 1);
        ck_assert(g);
        const char *src = c->recs[tu_rng_below(r, (uint64_t)c->n_rec)];
        const size_t at = (size_t)tu_rng_below(r, strlen(src) - L);
        for (size_t j = 0; j < L; j++) {
            char ch = src[at + j];
            if (ch == 'N' || tu_rng_chance(r, 8)) ch = "ACGT"[tu_rng_below(r, 4)];
            g[j] = ch;
        }
        g[L] = '\0';
        c->spacer[i] = g;
        c->limit[i] = tu_rng_chance(r, 20) ? (int)tu_rng_below(r, (uint64_t)c->mm + 1) : -1;
    }
    c->chunk_syms = tu_rng_chance(r, 50) ? L + strlen(c->pam) + 30 + tu_rng_below(r, 400) : 0;
}

/* The exact-piece index at every r it fits (guideset.h): libraries of
 * hundreds of guides within up to 4 mismatches, counted by the guide
 * engine with r = 1 to 4 exact pieces of D + r and with r chosen, against
 * brute force: each site once, at its first seed. */
START_TEST(test_piece_index)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x51dull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "probes.tsv");
    uint64_t total = 0;
    int built[PS_GUIDESET_MAX_NEED + 1] = {0};
    for (int k = 0; k < 40; k++) {
        gcase_t c;
        make_library(&r, &c);
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int mm;
        ps_patset_t *ps = case_set(&c, k, in, pf, &p, &mm);
        const uint32_t nl = ps->leaves.n_leaves;
        uint64_t *want = calloc(nl, sizeof *want);
        ck_assert(want);
        brute(&c, want, mm + 1);
        for (uint32_t l = 0; l < nl; l++) total += want[l];
        ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &info, c.threads);
        if (c.chunk_syms) so.chunk_syms = c.chunk_syms;
        for (int need = 0; need <= PS_GUIDESET_MAX_NEED; need++) {
            ps->guide_need = need;
            ps_guideset_t *g = NULL;
            char why[160];
            ck_assert(ps_guideset_build(&g, ps, need, 0, 1, why, sizeof why, &err) >= 0);
            const int r_used = g && g->pieces[0].n ? (int)g->pieces[0].need : 0;
            if (need && r_used == need) built[need]++;
            ps_guideset_free(g);
            ps_engine_t *ge = NULL;
            const int grc = ps_guide_engine_new(&ge, ps, ps_scan_workers(&so), why, sizeof why, &err);
            ck_assert_msg(grc >= 0, "%s", err.msg);
            if (grc != PS_OK) continue;
            uint64_t *got = scan_counts(ge, ps, in, &so);
            for (uint32_t l = 0; l < nl; l++)
                ck_assert_msg(got[l] == want[l],
                              "case %d (seed %llu): %u guides of %zu, PAM '%s', -m %d, r %d (used %d): leaf %u: "
                              "%llu sites, brute force %llu",
                              k, (unsigned long long)tu_seed(), c.n, strlen(c.spacer[0]), c.pam, c.mm, need, r_used,
                              l, (unsigned long long)got[l], (unsigned long long)want[l]);
            free(got);
            ps_engine_destroy(ge);
        }
        free(want);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_gcase(&c);
    }
    ck_assert_msg(total > 1000, "the libraries found only %llu sites", (unsigned long long)total);
    for (int need = 1; need <= PS_GUIDESET_MAX_NEED; need++)
        ck_assert_msg(built[need] >= 4, "only %d cases built an index of %d exact pieces", built[need], need);
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

/* The same cases split in two parts (engine_split.h), as the GPU engine's
 * CPU share and the windows/rest split run them. */
START_TEST(test_pam_split)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x5b17ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "probes.tsv");
    for (int k = 0; k < 60; k++) {
        gcase_t c;
        do make_gcase(&r, &c);
        while (c.n < 2 && (free_gcase(&c), 1));
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int mm;
        ps_patset_t *ps = case_set(&c, k, in, pf, &p, &mm), *parts[2] = {NULL, NULL};
        /* A random split of the probes in two (either may be empty). */
        uint32_t *sel[2], n_sel[2] = {0, 0};
        sel[0] = malloc(p->n * sizeof *sel[0]);
        sel[1] = malloc(p->n * sizeof *sel[1]);
        ck_assert(sel[0] && sel[1]);
        for (uint32_t i = 0; i < p->n; i++) {
            int h = tu_rng_chance(&r, 50);
            sel[h][n_sel[h]++] = i;
        }
        if (!n_sel[0] || !n_sel[1]) { /* each part holds one at least */
            int h = n_sel[0] ? 0 : 1;
            sel[!h][n_sel[!h]++] = sel[h][--n_sel[h]];
        }
        ps_engine_info_t info = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &info, c.threads);
        ps_engine_t *pe[2] = {NULL, NULL};
        uint32_t *map[2], nlp[2];
        const uint32_t strands = c.both ? 2u : 1u, levels = (uint32_t)mm + 1;
        for (int h = 0; h < 2; h++) {
            ck_assert(n_sel[h] > 0);
            ck_assert(ps_patset_build_part(&parts[h], p, sel[h], n_sel[h], c.both, mm, &err) == PS_OK);
            nlp[h] = parts[h]->leaves.n_leaves;
            ck_assert((map[h] = malloc((nlp[h] ? nlp[h] : 1) * sizeof *map[h])) != NULL);
            for (uint32_t j = 0; j < n_sel[h]; j++)
                for (uint32_t t = 0; t < strands; t++)
                    for (uint32_t d = 0; d < levels; d++)
                        map[h][(j * strands + t) * levels + d] = (sel[h][j] * strands + t) * levels + d;
            ck_assert(ps_pattern_engine_new(&pe[h], parts[h], ps_scan_workers(&so), &err) == PS_OK);
        }
        ps_engine_t *e = NULL;
        ck_assert(ps_split_engine_new(&e, pe[0], map[0], nlp[0], pe[1], map[1], nlp[1], &err) == PS_OK);
        const uint32_t nl = ps->leaves.n_leaves;
        uint64_t *got = scan_counts(e, ps, in, &so), *want = calloc(nl, sizeof *want);
        ck_assert(want);
        brute(&c, want, mm + 1);
        for (uint32_t l = 0; l < nl; l++)
            ck_assert_msg(got[l] == want[l], "case %d (seed %llu): leaf %u: %llu sites, brute force %llu", k,
                          (unsigned long long)tu_seed(), l, (unsigned long long)got[l], (unsigned long long)want[l]);
        free(got);
        free(want);
        free(sel[0]);
        free(sel[1]);
        ps_engine_destroy(e);
        ps_patset_free(parts[0]);
        ps_patset_free(parts[1]);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_gcase(&c);
    }
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_limit_column)
{
    char *dir = tu_mkdtemp(), *pf = tu_path(dir, "p.tsv");
    ps_err_t err = {0};
    ps_probes_t *p = NULL;
    /* A number is the limit; anything else in the third column is not. */
    const char *text = "a\tACGTACGT\t2\nb\tACGTACGA\nc\tACGTACGC\tTm=61\nd\tACGTAAGC\t0 \r\n";
    tu_write_file(pf, text, strlen(text));
    ck_assert(ps_probes_load(&p, pf, PS_ALPHA_AUTO, 1, &err) == PS_OK);
    ck_assert_ptr_nonnull(p->limit);
    ck_assert_int_eq(p->limit[0], 2);
    ck_assert_int_eq(p->limit[1], PS_NO_LIMIT);
    ck_assert_int_eq(p->limit[2], PS_NO_LIMIT);
    ck_assert_int_eq(p->limit[3], 0);
    int mm = -1;
    ck_assert(ps_guides_limits(p, 1, &mm, pf, &err) == PS_OK);
    ck_assert_int_eq(mm, 2);
    ck_assert_int_eq(p->limit[1], 1);
    ps_probes_free(p);
    /* No third column anywhere: no limits. */
    tu_write_file(pf, "a\tACGT\n", 7);
    ck_assert(ps_probes_load(&p, pf, PS_ALPHA_AUTO, 1, &err) == PS_OK);
    ck_assert_ptr_null(p->limit);
    ck_assert(ps_guides_limits(p, 3, &mm, pf, &err) == PS_OK);
    ck_assert_int_eq(mm, 3);
    ps_probes_free(p);
    /* Over PS_MAX_MM: refused as the file is read, naming line and probe. */
    tu_write_file(pf, "w\tACGT\nx\tACGT\t9\n", 16);
    ck_assert(ps_probes_load(&p, pf, PS_ALPHA_AUTO, 1, &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "line 2: probe 'x'") && strstr(err.msg, "9"), "%s", err.msg);
    /* As Cas-OFFinder reads its limits: blanks around, a '+'; a '-' is
     * refused naming the line. */
    text = "a\tACGTACGT\t 2\nb\tACGTACGA\t+1\n";
    tu_write_file(pf, text, strlen(text));
    ck_assert(ps_probes_load(&p, pf, PS_ALPHA_AUTO, 1, &err) == PS_OK);
    ck_assert_int_eq(p->limit[0], 2);
    ck_assert_int_eq(p->limit[1], 1);
    ps_probes_free(p);
    text = "a\tACGTACGT\t1\nb\tACGTACGA\t-1\n";
    tu_write_file(pf, text, strlen(text));
    ck_assert(ps_probes_load(&p, pf, PS_ALPHA_AUTO, 1, &err) == PS_E_FORMAT);
    ck_assert_msg(strstr(err.msg, "line 2") && strstr(err.msg, "'-1'"), "%s", err.msg);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_pam_refusals)
{
    ps_err_t err = {0};
    ck_assert(ps_guides_check_pam("NGG", "--pam", &err) == PS_OK);
    ck_assert(ps_guides_check_pam("TTTV", "--pam5", &err) == PS_OK);
    ck_assert(ps_guides_check_pam("NGX", "--pam", &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "'X'"), "%s", err.msg);
    ck_assert(ps_guides_check_pam("", "--pam", &err) == PS_E_USAGE);
    ps_probes_t *p = NULL;
    const char *prot[] = {"MKVLAAGG"};
    ck_assert(ps_probes_from_strings(&p, 1, prot, NULL, PS_ALPHA_PROTEIN, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "NGG", 0, "p", &err) == PS_E_USAGE);
    ps_probes_free(p);
    const char *pro[] = {"A-C-G-x(2)-T"};
    ck_assert(ps_probes_from_strings(&p, 1, pro, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "NGG", 0, "p", &err) == PS_E_USAGE);
    ck_assert_msg(strstr(err.msg, "PROSITE"), "%s", err.msg);
    ps_probes_free(p);
    /* The PAM's positions are fixed, the query writes them as N. */
    const char *g[] = {"ACGTAC", "GGA"};
    ck_assert(ps_probes_from_strings(&p, 2, g, NULL, PS_ALPHA_DNA, &err) == PS_OK);
    ck_assert(ps_guides_add_pam(&p, "tTv", 1, "p", &err) == PS_OK);
    ck_assert_str_eq(p->seq[0], "TTVACGTAC");
    ck_assert_str_eq(p->seq[1], "TTVGGA");
    ck_assert_str_eq(p->query[0], "NNNACGTAC");
    ck_assert_str_eq(p->name[1], "TTVGGA"); /* unnamed: named by its sequence, PAM included */
    const size_t k = (size_t)p->k;
    for (size_t j = 0; j < 9; j++) ck_assert_int_eq(p->fixed[j], j < 3);
    for (size_t j = 0; j < 6; j++) ck_assert_int_eq(p->fixed[k + j], j < 3);
    ps_probes_free(p);
}
END_TEST

START_TEST(test_casoff_file)
{
    char *dir = tu_mkdtemp(), *f = tu_path(dir, "in.txt"), *g = tu_path(dir, "genome");
    tu_buf_t b = {0};
    tu_buf_printf(&b, "%s\nNNNNNNRG\nACGTACNN 2\nacgtgcNN 0\nTTTTTTNR 3\n\nignored after a blank line\n", g);
    tu_write_file(f, b.p, b.n);
    tu_buf_free(&b);
    char *genome = NULL;
    ck_assert_int_eq(ps_casoff_detect(f, &genome), 1);
    ck_assert_str_eq(genome, g);
    free(genome);
    ps_err_t err = {0};
    ps_probes_t *p = NULL;
    ck_assert_msg(ps_casoff_load(&p, f, &err) == PS_OK, "%s", err.msg);
    ck_assert_uint_eq(p->n, 3);
    ck_assert_str_eq(p->seq[0], "ACGTACRG");
    ck_assert_str_eq(p->seq[1], "ACGTGCRG");
    /* The guide's R where the pattern asks for G: never a mismatch. */
    ck_assert_str_eq(p->seq[2], "TTTTTTRG");
    ck_assert_str_eq(p->query[1], "ACGTGCNN");
    ck_assert_str_eq(p->name[0], "ACGTACNN");
    ck_assert_int_eq(p->limit[0], 2);
    ck_assert_int_eq(p->limit[1], 0);
    ck_assert_int_eq(p->limit[2], 3);
    for (int j = 0; j < 8; j++) ck_assert_int_eq(p->fixed[16 + j], j >= 6);
    ps_probes_free(p);
    /* Inputs: the folder's files, by name. */
    ck_assert(mkdir(g, 0700) == 0);
    char *f2 = tu_path(g, "b.fa"), *f1 = tu_path(g, "a.fa");
    tu_write_file(f2, ">b\nACGT\n", 8);
    tu_write_file(f1, ">a\nACGT\n", 8);
    char **in = NULL;
    int n = 0;
    ck_assert(ps_casoff_inputs(g, &in, &n, &err) == PS_OK);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(in[0], f1);
    ck_assert_str_eq(in[1], f2);
    ps_casoff_inputs_free(in, n);
    /* Refusals: bulges (for now), a base both ask for that differ, a limit
     * over the most, lengths that differ, fields that differ. */
    static const char *const bad[][2] = {
        {"NNNNNNGG 1 9\nACGTACNN 2\n", "bulge sizes"},
        {"NNNNNNGG 1 x\nACGTACNN 2\n", "bulge sizes"},
        {"NNNNNNGG\nACGTACNC 2\n", "position 8"},
        {"NNNNNNGG\nACGTACNN 9\n", "9 mismatches"},
        {"NNNNNNGG\nACGTACNN 1\nACGTACN 1\n", "long"},
        {"NNNNNNGG\nACGTACNN 1 id1\nACGTACNN 1\n", "fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tu_buf_t t = {0};
        tu_buf_printf(&t, "%s\n%s", g, bad[i][0]);
        tu_write_file(f, t.p, t.n);
        tu_buf_free(&t);
        ck_assert_int_eq(ps_casoff_load(&p, f, &err) < 0, 1);
        ck_assert_msg(strstr(err.msg, bad[i][1]), "case %zu: '%s' lacks '%s'", i, err.msg, bad[i][1]);
    }
    /* Malformed guide lines, the first included, still make the file
     * Cas-OFFinder's (loading names the line); a limit is digits, maybe
     * after '+'. */
    static const char *const shaped[][3] = {
        {"NNNNNNGG\nACGTACNN\nACGTACNN\n", "line 3: a guide line", ""},
        {"NNNNNNGG\nACGTACN 2\nACGTACNN 2\n", "line 3: the guide is 7 long", ""},
        {"NNNNNNGG\nACGTACNN -1\n", "line 3: '-1'", ""},
        {"NNNNNNGG\nACGTACNN 2x\n", "line 3: '2x'", ""},
        {"NNNNNNGG\nACGTACNN +2\n", NULL, ""},
        {"NNNNNNGG 1 1\nACGTACNN 2\n", NULL, "bulges"},
    };
    for (size_t i = 0; i < sizeof shaped / sizeof *shaped; i++) {
        tu_buf_t t = {0};
        tu_buf_printf(&t, "%s\n%s", g, shaped[i][0]);
        tu_write_file(f, t.p, t.n);
        tu_buf_free(&t);
        ck_assert_int_eq(ps_casoff_detect(f, &genome), shaped[i][2][0] ? 2 : 1);
        free(genome);
        if (shaped[i][1]) {
            ck_assert_int_eq(ps_casoff_load(&p, f, &err) < 0, 1);
            ck_assert_msg(strstr(err.msg, shaped[i][1]), "case %zu: '%s' lacks '%s'", i, err.msg, shaped[i][1]);
        } else {
            ck_assert_msg(ps_casoff_load(&p, f, &err) == PS_OK, "%s", err.msg);
            ck_assert_int_eq(p->limit[0], 2);
            ps_probes_free(p);
            p = NULL;
        }
    }
    /* Bulge sizes on the pattern line are the probes' (bulges.h). */
    {
        tu_buf_t t = {0};
        tu_buf_printf(&t, "%s\nNNNNNNGG 2 1\nACGTACNN 2\n", g);
        tu_write_file(f, t.p, t.n);
        tu_buf_free(&t);
        ck_assert_msg(ps_casoff_load(&p, f, &err) == PS_OK, "%s", err.msg);
        ck_assert_uint_eq(p->bulge_dna, 2);
        ck_assert_uint_eq(p->bulge_rna, 1);
        ps_probes_free(p);
        p = NULL;
    }
    /* Not its shape: a plain probe list, a FASTA file. */
    tu_write_file(f, "ACGTACGT\nACGTAAAA\nACGTCCCC\n", 27);
    ck_assert_int_eq(ps_casoff_detect(f, &genome), 0);
    tu_write_file(f, "ACGTACGN\nACGTAAAN\nACGTCCCC\n", 27);
    ck_assert_int_eq(ps_casoff_detect(f, &genome), 0);
    tu_write_file(f, "CC\nCC\nCC   ACGT 2\n", 18); /* a PROSITE file's head */
    ck_assert_int_eq(ps_casoff_detect(f, &genome), 0);
    tu_write_file(f, ">a\nACGT\n>b\nACGT\n", 16);
    ck_assert_int_eq(ps_casoff_detect(f, &genome), 0);
    free(f);
    free(f1);
    free(f2);
    free(g);
    tu_rmtree(dir);
}
END_TEST

/* Cas-OFFinder's rule for letters that are no base (nsites.h), against a
 * brute force written from it: random genomes holding N, n, IUPAC codes,
 * '.' and '-' (runs and single letters), random guides with IUPAC letters
 * and PAMs 3' or 5', both strands; every site that holds such a letter is
 * listed once, with its mismatches and letters, in row order. */
static int nb_letter(char ch)
{
    const char u = (char)toupper((unsigned char)ch);
    return u != 'A' && u != 'C' && u != 'G' && u != 'T';
}

START_TEST(test_nsites_random)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x45c1ull);
    char *dir = tu_mkdtemp(), *in = tu_path(dir, "in.fa"), *pf = tu_path(dir, "probes.tsv");
    static const char odd[] = "NNNNnnRYKV.-";
    uint64_t total = 0, with_pam = 0;
    for (int k = 0; k < 200; k++) {
        gcase_t c;
        make_gcase(&r, &c);
        /* Letters that are no base, in runs and alone. */
        for (int t = 0; t < c.n_rec; t++) {
            char *s = c.recs[t];
            const size_t len = strlen(s);
            for (size_t j = 0; j < len; j++)
                if (tu_rng_chance(&r, 4)) {
                    const size_t run = tu_rng_chance(&r, 20) ? (size_t)tu_rng_range(&r, 2, 40) : 1;
                    for (size_t q = 0; q < run && j + q < len; q++) s[j + q] = odd[tu_rng_below(&r, sizeof odd - 1)];
                }
        }
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        int mm;
        ps_patset_t *ps = case_set(&c, k, in, pf, &p, &mm);
        ps_nsites_t ns = {0};
        ck_assert_msg(ps_nsites_find(&ns, in, p, c.both, c.mm, &err) == PS_OK, "%s", err.msg);
        size_t at_site = 0;
        char pat[128], want_letters[128];
        uint8_t fixed[128];
        /* Row order: record, start, probe, strand. */
        for (int t = 0; t < c.n_rec; t++) {
            const char *rec = c.recs[t];
            const size_t len = strlen(rec);
            for (size_t at = 0; at < len; at++)
                for (uint32_t i = 0; i < c.n; i++) {
                    const size_t m = whole(&c, i, pat, fixed);
                    const int lim = c.limit[i] < 0 ? c.mm : c.limit[i];
                    if (at + m > len) continue;
                    int holds = 0;
                    for (size_t j = 0; j < m; j++) holds |= nb_letter(rec[at + j]);
                    if (!holds) continue;
                    for (int st = 0; st < (c.both ? 2 : 1); st++) {
                        int d = 0, ok = 1;
                        for (size_t j = 0; j < m && ok; j++) {
                            const char g = rec[st ? at + m - 1 - j : at + j];
                            const unsigned pb = bases(pat[j]);
                            int hit;
                            if (nb_letter(g)) hit = (pb & (pb - 1)) != 0;
                            else hit = (bases(st ? comp(g) : g) & pb) != 0;
                            if (!hit && (fixed[j] || ++d > lim)) ok = 0;
                        }
                        if (!ok) continue;
                        for (size_t j = 0; j < m; j++) want_letters[j] = (char)toupper((unsigned char)rec[at + j]);
                        ck_assert_msg(at_site < ns.n, "case %d (seed %llu): record %d, %zu, guide %u, strand %d: "
                                      "missing (%zu listed)", k, (unsigned long long)tu_seed(), t, at, i, st, ns.n);
                        const ps_nsite_t *x = &ns.site[at_site++];
                        ck_assert_msg(x->rec == (uint64_t)t && x->start == at && x->probe == i && x->strand == st &&
                                          x->dist == d && x->len == m && !memcmp(ns.text + x->letters, want_letters, m),
                                      "case %d (seed %llu): record %d, %zu, guide %u, strand %d, %d mismatches: "
                                      "listed as record %llu, %llu, guide %u, strand %d, %d", k,
                                      (unsigned long long)tu_seed(), t, at, i, st, d, (unsigned long long)x->rec,
                                      (unsigned long long)x->start, x->probe, x->strand, x->dist);
                        char nm[16];
                        snprintf(nm, sizeof nm, "r%d", t);
                        ck_assert_str_eq(ns.names + x->name, nm);
                        total++;
                        with_pam += c.pam[0] != 0;
                    }
                }
        }
        ck_assert_msg(at_site == ns.n, "case %d (seed %llu): %zu sites listed, %zu by the brute force", k,
                      (unsigned long long)tu_seed(), ns.n, at_site);
        ps_nsites_free(&ns);
        ps_patset_free(ps);
        ps_probes_free(p);
        free_gcase(&c);
    }
    ck_assert_msg(total > 200 && with_pam > 100, "seed %llu: only %llu sites holding N (%llu with a PAM)",
                  (unsigned long long)tu_seed(), (unsigned long long)total, (unsigned long long)with_pam);
    free(in);
    free(pf);
    tu_rmtree(dir);
}
END_TEST

Suite *suite_guides(void)
{
    Suite *s = suite_create("guides");
    TCase *tc = tcase_create("guides");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_pam);
    tcase_add_test(tc, test_piece_index);
    tcase_add_test(tc, test_pam_split);
    tcase_add_test(tc, test_limit_column);
    tcase_add_test(tc, test_pam_refusals);
    tcase_add_test(tc, test_casoff_file);
    tcase_add_test(tc, test_nsites_random);
    suite_add_tcase(s, tc);
    return s;
}
