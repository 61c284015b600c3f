/* test_twobit.c - 2bit genomes (twobit.h): random sequences written here
 * as 2bit files (versions 0 and 1, both byte orders, N runs, soft-masked
 * runs, lengths of every remainder mod 4, empty sequences) read back as the
 * FASTA text they hold, and counted as that FASTA is; broken files refused
 * with one message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "probes.h"
#include "scan.h"
#include "twobit.h"
#include "testutil.h"

typedef struct {
    int n;
    char **name, **seq; /* seq: upper case, N in its N runs */
    uint32_t **nb;      /* per sequence: pairs (start, size) of N runs, 0-terminated count first */
    int *n_nb;
} gen_t;

static void put32(tu_buf_t *b, uint32_t v, int swap)
{
    if (swap) v = __builtin_bswap32(v);
    tu_buf_put(b, &v, 4);
}

/* Writes g as a 2bit file: version 0 or 1, swapped byte order or not,
 * soft-masked runs listed (they change nothing). */
static void write_2bit(const gen_t *g, const char *path, int version, int swap, tu_rng_t *r)
{
    tu_buf_t hdr = {0}, body = {0};
    put32(&hdr, 0x1A412743u, swap);
    put32(&hdr, (uint32_t)version, swap);
    put32(&hdr, (uint32_t)g->n, swap);
    put32(&hdr, 0, swap);
    size_t index = 0;
    for (int i = 0; i < g->n; i++) index += 1 + strlen(g->name[i]) + (version ? 8 : 4);
    const size_t base = hdr.n + index;
    tu_buf_t idx = {0};
    for (int i = 0; i < g->n; i++) {
        const uint64_t off = base + body.n;
        const unsigned char len = (unsigned char)strlen(g->name[i]);
        tu_buf_put(&idx, &len, 1);
        tu_buf_put(&idx, g->name[i], len);
        if (version) {
            put32(&idx, swap ? (uint32_t)(off >> 32) : (uint32_t)off, swap);
            put32(&idx, swap ? (uint32_t)off : (uint32_t)(off >> 32), swap);
        } else {
            put32(&idx, (uint32_t)off, swap);
        }
        const uint32_t size = (uint32_t)strlen(g->seq[i]);
        put32(&body, size, swap);
        put32(&body, (uint32_t)g->n_nb[i], swap);
        for (int j = 0; j < g->n_nb[i]; j++) put32(&body, g->nb[i][2 * j], swap);
        for (int j = 0; j < g->n_nb[i]; j++) put32(&body, g->nb[i][2 * j + 1], swap);
        const uint32_t n_mask = size ? (uint32_t)tu_rng_below(r, 3) : 0;
        put32(&body, n_mask, swap);
        for (uint32_t j = 0; j < n_mask; j++) put32(&body, (uint32_t)tu_rng_below(r, size), swap);
        for (uint32_t j = 0; j < n_mask; j++) put32(&body, 1, swap);
        put32(&body, 0, swap);
        for (uint32_t j = 0; j < size; j += 4) {
            unsigned char byte = 0;
            for (uint32_t q = 0; q < 4; q++) {
                const char c = j + q < size ? g->seq[i][j + q] : 'T';
                /* T C A G; an N run's bases are any (here what was drawn). */
                const unsigned v = c == 'T' ? 0 : c == 'C' ? 1 : c == 'A' ? 2 : c == 'G' ? 3 : (unsigned)(j + q) % 4;
                byte |= (unsigned char)(v << (6 - 2 * q));
            }
            tu_buf_put(&body, &byte, 1);
        }
    }
    tu_buf_t all = {0};
    tu_buf_put(&all, hdr.p, hdr.n);
    tu_buf_put(&all, idx.p, idx.n);
    if (body.n) tu_buf_put(&all, body.p, body.n);
    tu_write_file(path, all.p, all.n);
    tu_buf_free(&hdr);
    tu_buf_free(&idx);
    tu_buf_free(&body);
    tu_buf_free(&all);
}

static void make_gen(tu_rng_t *r, gen_t *g)
{
    g->n = (int)tu_rng_range(r, 1, 6);
    g->name = calloc((size_t)g->n, sizeof *g->name);
    g->seq = calloc((size_t)g->n, sizeof *g->seq);
    g->nb = calloc((size_t)g->n, sizeof *g->nb);
    g->n_nb = calloc((size_t)g->n, sizeof *g->n_nb);
    ck_assert(g->name && g->seq && g->nb && g->n_nb);
    for (int i = 0; i < g->n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "chr%d_%u", i, (unsigned)tu_rng_below(r, 1000));
        g->name[i] = strdup(nm);
        const size_t len = tu_rng_chance(r, 10) ? 0 : (size_t)tu_rng_below(r, tu_rng_chance(r, 20) ? 9000000 : 3000);
        char *s = malloc(len + 1);
        ck_assert(s && g->name[i]);
        for (size_t j = 0; j < len; j++) s[j] = "ACGT"[tu_rng_below(r, 4)];
        s[len] = '\0';
        g->nb[i] = malloc(2 * 8 * sizeof(uint32_t));
        ck_assert(g->nb[i]);
        /* Up to 8 N runs, disjoint, in order (the reader sorts them anyway). */
        uint32_t at = 0;
        for (int k = 0; k < 8 && len && tu_rng_chance(r, 50); k++) {
            if (at >= len) break;
            const uint32_t s0 = at + (uint32_t)tu_rng_below(r, (uint64_t)(len - at));
            const uint32_t sz = (uint32_t)tu_rng_range(r, 1, (uint64_t)(len - s0 < 50 ? len - s0 : 50));
            memset(s + s0, 'N', sz);
            g->nb[i][2 * g->n_nb[i]] = s0;
            g->nb[i][2 * g->n_nb[i] + 1] = sz;
            g->n_nb[i]++;
            at = s0 + sz + 1;
        }
        g->seq[i] = s;
    }
}

static void free_gen(gen_t *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->name[i]);
        free(g->seq[i]);
        free(g->nb[i]);
    }
    free(g->name);
    free(g->seq);
    free(g->nb);
    free(g->n_nb);
}

START_TEST(test_twobit_text)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x2b17ull);
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "g.2bit");
    for (int k = 0; k < 40; k++) {
        gen_t g;
        make_gen(&r, &g);
        const int version = (int)tu_rng_below(&r, 2), swap = tu_rng_chance(&r, 30);
        write_2bit(&g, path, version, swap, &r);
        tu_buf_t want = {0};
        for (int i = 0; i < g.n; i++) tu_buf_printf(&want, ">%s\n%s\n", g.name[i], g.seq[i]);
        ps_err_t err = {0};
        ps_twobit_t *t = NULL;
        ck_assert_msg(ps_twobit_open(&t, path, &err) == PS_OK, "case %d: %s", k, err.msg);
        tu_buf_t got = {0};
        unsigned char buf[7919];
        for (;;) {
            /* Reads of odd sizes, to cut headers and runs anywhere. */
            size_t want_n = (size_t)tu_rng_range(&r, 1, sizeof buf);
            ssize_t n = ps_twobit_read(t, buf, want_n, &err);
            ck_assert_msg(n >= 0, "case %d: %s", k, err.msg);
            if (n == 0) break;
            tu_buf_put(&got, buf, (size_t)n);
        }
        ck_assert_msg(got.n == want.n && !memcmp(got.p, want.p, want.n),
                      "case %d (seed %llu; version %d, swapped %d): the text differs (%zu bytes, want %zu)", k,
                      (unsigned long long)tu_seed(), version, swap, got.n, want.n);
        ps_twobit_close(t);
        tu_buf_free(&want);
        tu_buf_free(&got);
        free_gen(&g);
    }
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* Counted as the same FASTA is, through the whole reader (threads, blocks). */
START_TEST(test_twobit_counts)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x2b18ull);
    char *dir = tu_mkdtemp(), *tb = tu_path(dir, "g.2bit"), *fa = tu_path(dir, "g.fa");
    for (int k = 0; k < 10; k++) {
        gen_t g;
        make_gen(&r, &g);
        write_2bit(&g, tb, (int)tu_rng_below(&r, 2), tu_rng_chance(&r, 30), &r);
        tu_buf_t text = {0};
        for (int i = 0; i < g.n; i++) tu_buf_printf(&text, ">%s\n%s\n", g.name[i], g.seq[i]);
        tu_write_file(fa, text.p, text.n);
        tu_buf_free(&text);
        const char *probes[] = {"ACGT", "TTTT", "GATC", "CCCC", "ACGA"};
        ps_err_t err = {0};
        ps_probes_t *p = NULL;
        ck_assert(ps_probes_from_strings(&p, 5, probes, NULL, PS_ALPHA_DNA, &err) == PS_OK);
        ps_automaton_t *a = NULL;
        ck_assert(ps_automaton_build(&a, p, 1, &err) == PS_OK);
        uint64_t *c2 = calloc(a->leaves.n_leaves, sizeof *c2), *cf = calloc(a->leaves.n_leaves, sizeof *cf);
        ck_assert(c2 && cf);
        for (int h = 0; h < 2; h++) {
            ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
            ps_scan_opts_t so;
            ps_scan_opts_init(&so, &in, (int)tu_rng_range(&r, 1, 3));
            if (tu_rng_chance(&r, 50)) so.block_bytes = (size_t)tu_rng_range(&r, 64, 4096);
            ps_engine_t *e = NULL;
            ck_assert(ps_cpu_engine_new(&e, a, ps_scan_workers(&so), &err) == PS_OK);
            ps_scan_stats_t st;
            ck_assert_msg(ps_scan_file(e, &a->leaves, h ? fa : tb, &so, h ? cf : c2, NULL, &st, NULL, NULL, &err) ==
                              PS_OK,
                          "%s", err.msg);
            ck_assert_uint_eq(st.in.records, (uint64_t)g.n);
            ps_engine_destroy(e);
        }
        for (uint32_t l = 0; l < a->leaves.n_leaves; l++)
            ck_assert_msg(c2[l] == cf[l], "case %d (seed %llu): leaf %u: 2bit %llu, FASTA %llu", k,
                          (unsigned long long)tu_seed(), l, (unsigned long long)c2[l], (unsigned long long)cf[l]);
        free(c2);
        free(cf);
        ps_automaton_free(a);
        ps_probes_free(p);
        free_gen(&g);
    }
    free(tb);
    free(fa);
    tu_rmtree(dir);
}
END_TEST

START_TEST(test_twobit_broken)
{
    char *dir = tu_mkdtemp(), *path = tu_path(dir, "b.2bit");
    ps_err_t err = {0};
    ps_twobit_t *t = NULL;
    /* A header cut short, a version from the future, an offset past the end. */
    const unsigned char cut[] = {0x43, 0x27, 0x41, 0x1A, 0, 0};
    tu_write_file(path, cut, sizeof cut);
    ck_assert(ps_twobit_open(&t, path, &err) == PS_E_FORMAT);
    ck_assert_msg(strstr(err.msg, "header"), "%s", err.msg);
    const unsigned char v2[] = {0x43, 0x27, 0x41, 0x1A, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    tu_write_file(path, v2, sizeof v2);
    ck_assert(ps_twobit_open(&t, path, &err) == PS_E_FORMAT);
    ck_assert_msg(strstr(err.msg, "version 2"), "%s", err.msg);
    const unsigned char far[] = {0x43, 0x27, 0x41, 0x1A, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 9};
    tu_write_file(path, far, sizeof far);
    ck_assert(ps_twobit_open(&t, path, &err) == PS_E_FORMAT);
    ck_assert_msg(strstr(err.msg, "offset"), "%s", err.msg);
    /* Bases cut short: the record says 100 bases, the file holds none. */
    const unsigned char shortb[] = {0x43, 0x27, 0x41, 0x1A, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 'a', 22, 0, 0, 0,
                                    100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    tu_write_file(path, shortb, sizeof shortb);
    ck_assert(ps_twobit_open(&t, path, &err) == PS_OK);
    unsigned char buf[256];
    ck_assert(ps_twobit_read(t, buf, sizeof buf, &err) < 0);
    ck_assert_msg(strstr(err.msg, "past the end"), "%s", err.msg);
    ps_twobit_close(t);
    free(path);
    tu_rmtree(dir);
}
END_TEST

Suite *suite_twobit(void)
{
    Suite *s = suite_create("twobit");
    TCase *tc = tcase_create("twobit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_twobit_text);
    tcase_add_test(tc, test_twobit_counts);
    tcase_add_test(tc, test_twobit_broken);
    suite_add_tcase(s, tc);
    return s;
}
