/* test_scan.c - the pipeline's own promises (scan.h), apart from counting
 * right (test_random.c): one thread budget whatever the input, per-record
 * hits in input order on any number of threads, one scanner reused across
 * inputs of both kinds, and engine workers checked up front. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "automaton.h"
#include "engine_cpu.h"
#include "probes.h"
#include "scan.h"
#include "testutil.h"

/* Threads of this process now. */
static int task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

typedef struct {
    int most;       /* most threads seen during the scan */
} budget_t;

static void on_progress(void *ctx, const ps_reader_t *r)
{
    (void)r;
    budget_t *b = ctx;
    int n = task_count();
    if (n > b->most) b->most = n;
}

/* A genome-like FASTA of n bases in records of up to 50 kbases. */
static void random_fasta(tu_buf_t *t, tu_rng_t *r, size_t n)
{
    size_t rec = 0, left = 0;
    for (size_t i = 0; i < n; i++) {
        if (!left) {
            tu_buf_printf(t, "%s>r%zu\n", i ? "\n" : "", rec++);
            left = tu_rng_range(r, 1, 50000);
        }
        tu_buf_putc(t, "ACGT"[tu_rng_below(r, 4)]);
        if (--left && i % 60 == 59) tu_buf_putc(t, '\n');
    }
    tu_buf_putc(t, '\n');
}

/* Four probes of k = 5, both strands. */
static tu_built_t make_probes(void)
{
    static const char *const seqs[] = {"ACGTA", "TTTTT", "GATTA", "CCCGG"};
    return tu_build(4, seqs, PS_ALPHA_DNA, 1);
}

/* With a budget of T threads, a scan of BGZF FASTA (blocks on the pool,
 * BGZF inflated on the same pool) runs on T pool threads, the caller and
 * htslib's one BGZF reading thread: never a pool per stage. */
START_TEST(test_thread_budget)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x627564676574ull);
    char *dir = tu_mkdtemp();
    char *bgz = tu_path(dir, "in.fa.gz"), *fq = tu_path(dir, "in.fq");
    tu_buf_t t = {0};
    random_fasta(&t, &r, 6u << 20);
    tu_write_bgzf(bgz, t.p, t.n);
    tu_buf_free(&t);
    for (int i = 0; i < 20000; i++) {
        tu_buf_printf(&t, "@q%d\n", i);
        for (int j = 0; j < 150; j++) tu_buf_putc(&t, "ACGT"[tu_rng_below(&r, 4)]);
        tu_buf_puts(&t, "\n+\n");
        for (int j = 0; j < 150; j++) tu_buf_putc(&t, 'I');
        tu_buf_putc(&t, '\n');
    }
    tu_write_file(fq, t.p, t.n);
    tu_buf_free(&t);

    tu_built_t pr = make_probes();
    const int threads = 4;
    int before = task_count();
    ck_assert_int_gt(before, 0);
    ps_engine_t *e = NULL;
    ps_err_t err;
    ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t so;
    ps_scan_opts_init(&so, &in, threads);
    ck_assert_int_eq(ps_cpu_engine_new(&e, pr.a, ps_scan_workers(&so), &err), PS_OK);
    ps_scanner_t *s = NULL;
    ck_assert_int_eq(ps_scanner_new(&s, e, &pr.a->leaves, &so, &err), PS_OK);
    uint64_t *leaf = calloc(pr.a->n_leaves, sizeof *leaf);
    ck_assert_ptr_nonnull(leaf);
    const char *inputs[] = {bgz, fq, bgz};
    for (int i = 0; i < 3; i++) {
        budget_t b = {0};
        ps_scan_stats_t st;
        int rc = ps_scanner_run(s, inputs[i], leaf, NULL, &st, on_progress, &b, &err);
        ck_assert_msg(rc == PS_OK, "%s: %s", inputs[i], err.msg);
        ck_assert_int_gt(b.most, 0);
        ck_assert_msg(b.most <= before + threads + 1, "%s: %d threads with a budget of %d (%d before)", inputs[i],
                      b.most, threads, before);
    }
    /* The same scanner, twice over the same input: twice the counts. */
    uint64_t *once = calloc(pr.a->n_leaves, sizeof *once);
    ck_assert_ptr_nonnull(once);
    ck_assert_int_eq(ps_scanner_run(s, bgz, once, NULL, NULL, NULL, NULL, &err), PS_OK);
    uint64_t *fq_only = calloc(pr.a->n_leaves, sizeof *fq_only);
    ck_assert_ptr_nonnull(fq_only);
    ck_assert_int_eq(ps_scanner_run(s, fq, fq_only, NULL, NULL, NULL, NULL, &err), PS_OK);
    for (uint32_t l = 0; l < pr.a->n_leaves; l++) ck_assert_uint_eq(leaf[l], 2 * once[l] + fq_only[l]);

    /* Several inputs at once, two reading threads on one pool, a column
     * that two inputs share: each column what its inputs give alone. */
    ps_engine_t *e2 = NULL;
    ck_assert_int_eq(ps_cpu_engine_new(&e2, pr.a, ps_scan_workers(&so), &err), PS_OK);
    ps_engine_t *engines[2] = {e, e2};
    const char *four[] = {bgz, fq, bgz, fq};
    const size_t col[] = {0, 1, 0, 2};
    uint64_t *cols = calloc(3 * (size_t)pr.a->n_leaves, sizeof *cols);
    ps_scan_stats_t st4[4];
    ck_assert_ptr_nonnull(cols);
    int rc = ps_scan_inputs(engines, 2, &pr.a->leaves, &so, four, 4, col, cols, st4, &err);
    ck_assert_msg(rc == PS_OK, "ps_scan_inputs: %s", err.msg);
    for (uint32_t l = 0; l < pr.a->n_leaves; l++) {
        ck_assert_uint_eq(cols[l], 2 * once[l]);
        ck_assert_uint_eq(cols[pr.a->n_leaves + l], fq_only[l]);
        ck_assert_uint_eq(cols[2 * pr.a->n_leaves + l], fq_only[l]);
    }
    ck_assert_uint_eq(st4[0].in.symbols, st4[2].in.symbols);
    ck_assert_uint_eq(st4[1].in.records, 20000);
    /* A missing input: its error, the first in input order. */
    const char *bad[] = {bgz, "no/such/first.fa", fq, "no/such/second.fa"};
    rc = ps_scan_inputs(engines, 2, &pr.a->leaves, &so, bad, 4, col, cols, st4, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_msg(strstr(err.msg, "no/such/first.fa") != NULL, "%s", err.msg);
    free(cols);
    ps_engine_destroy(e2);
    ps_scanner_free(s);
    ps_engine_destroy(e);
    free(leaf);
    free(once);
    free(fq_only);
    tu_built_free(&pr);
    free(bgz);
    free(fq);
    tu_rmtree(dir);
}
END_TEST

/* The sink sees records in input order, each record's hits once per
 * chunk, whatever the threads and however small the chunks. */
typedef struct {
    int64_t last_rec;
    uint64_t chunks, hits;
    int out_of_order;
} order_t;

static int check_order(void *ctx, const ps_chunk_t *c, const ps_rec_hits_t *h, ps_err_t *err)
{
    (void)err;
    order_t *o = ctx;
    o->chunks++;
    for (uint32_t i = 0; i < h->n_span; i++) {
        int64_t id = (int64_t)c->rec_id[h->span[i].rec];
        if (id < o->last_rec) o->out_of_order = 1;
        o->last_rec = id;
        for (uint32_t j = 0; j < h->span[i].n; j++) o->hits += h->count[h->span[i].first + j];
    }
    return PS_OK;
}

START_TEST(test_record_order)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x6f72646572ull);
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "in.fa");
    tu_buf_t t = {0};
    random_fasta(&t, &r, 400000);
    tu_write_file(path, t.p, t.n);
    tu_buf_free(&t);
    tu_built_t pr = make_probes();
    uint64_t *leaf = calloc(pr.a->n_leaves, sizeof *leaf);
    ck_assert_ptr_nonnull(leaf);
    uint64_t total = 0;
    for (int threads = 1; threads <= 4; threads++) {
        ps_engine_t *e = NULL;
        ps_err_t err;
        ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
        ps_scan_opts_t so;
        ps_scan_opts_init(&so, &in, threads);
        so.chunk_syms = 1000; /* many chunks, a record over several */
        so.chunk_restarts = 4;
        ck_assert_int_eq(ps_cpu_engine_new(&e, pr.a, ps_scan_workers(&so), &err), PS_OK);
        if (threads == 1) {
            ck_assert_int_eq(ps_scan_file(e, &pr.a->leaves, path, &so, leaf, NULL, NULL, NULL, NULL, &err), PS_OK);
            for (uint32_t l = 0; l < pr.a->n_leaves; l++) total += leaf[l];
            ck_assert_uint_gt(total, 0);
        }
        order_t o = {-1, 0, 0, 0};
        ps_record_sink_t sink = {check_order, &o, NULL, NULL, NULL, NULL, 0};
        ck_assert_int_eq(ps_scan_file(e, &pr.a->leaves, path, &so, NULL, &sink, NULL, NULL, NULL, &err), PS_OK);
        ck_assert_msg(!o.out_of_order, "threads %d: records out of order", threads);
        ck_assert_uint_gt(o.chunks, 100);
        ck_assert_msg(o.hits == total, "threads %d: %llu hits by record, %llu in total", threads,
                      (unsigned long long)o.hits, (unsigned long long)total);
        ps_engine_destroy(e);
    }
    free(leaf);
    tu_built_free(&pr);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* Header lines longer than a read block (1 MiB) are read whatever the
 * threads, with the same counts as one thread gives; so are headers that
 * end right at a cut. */
START_TEST(test_long_headers)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x68656164ull);
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "in.fa");
    tu_buf_t t = {0};
    for (int rec = 0; rec < 6; rec++) {
        size_t hl = rec % 2 ? tu_rng_range(&r, 1u << 20, 3u << 20) : tu_rng_range(&r, 1, 100);
        tu_buf_printf(&t, ">h%d ", rec);
        for (size_t i = 0; i < hl; i++) tu_buf_putc(&t, "ACGTN x"[tu_rng_below(&r, 7)]);
        tu_buf_putc(&t, '\n');
        size_t n = tu_rng_range(&r, 0, 300000);
        for (size_t i = 0; i < n; i++) {
            tu_buf_putc(&t, "ACGT"[tu_rng_below(&r, 4)]);
            if (i % 70 == 69) tu_buf_putc(&t, '\n');
        }
        tu_buf_putc(&t, '\n');
    }
    tu_write_file(path, t.p, t.n);
    tu_buf_free(&t);
    tu_built_t pr = make_probes();
    uint64_t *want = calloc(pr.a->n_leaves, sizeof *want), *got = calloc(pr.a->n_leaves, sizeof *got);
    ck_assert(want && got);
    for (int threads = 1; threads <= 4; threads += 3) {
        for (int small = 0; small < 2; small++) {
            ps_engine_t *e = NULL;
            ps_err_t err;
            ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
            ps_scan_opts_t so;
            ps_scan_opts_init(&so, &in, threads);
            if (small) so.block_bytes = 4096 + tu_rng_below(&r, 4096);
            ck_assert_int_eq(ps_cpu_engine_new(&e, pr.a, ps_scan_workers(&so), &err), PS_OK);
            uint64_t *into = threads == 1 && !small ? want : got;
            memset(into, 0, pr.a->n_leaves * sizeof *into);
            ps_scan_stats_t st;
            int rc = ps_scan_file(e, &pr.a->leaves, path, &so, into, NULL, &st, NULL, NULL, &err);
            ck_assert_msg(rc == PS_OK, "threads %d, block %zu: %s", threads, so.block_bytes, err.msg);
            ck_assert_uint_eq(st.in.records, 6);
            if (into == got)
                for (uint32_t l = 0; l < pr.a->n_leaves; l++)
                    ck_assert_msg(got[l] == want[l], "threads %d, block %zu: leaf %u: %llu, want %llu", threads,
                                  so.block_bytes, l, (unsigned long long)got[l], (unsigned long long)want[l]);
            ps_engine_destroy(e);
        }
    }
    free(want);
    free(got);
    tu_built_free(&pr);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* An engine made for fewer workers than the scan needs is refused before
 * anything runs. */
START_TEST(test_workers_checked)
{
    tu_built_t pr = make_probes();
    ps_engine_t *e = NULL;
    ps_err_t err;
    ps_engine_info_t in = {.kind = PS_ENGINE_CPU};
    ps_scan_opts_t so;
    ps_scan_opts_init(&so, &in, 3);
    ck_assert_int_eq(ps_cpu_engine_new(&e, pr.a, 3, &err), PS_OK);
    ps_scanner_t *s = NULL;
    ck_assert_int_lt(ps_scanner_new(&s, e, &pr.a->leaves, &so, &err), 0);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.msg, "workers") != NULL, "%s", err.msg);
    ps_engine_destroy(e);
    tu_built_free(&pr);
}
END_TEST

Suite *suite_scan(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_thread_budget);
    tcase_add_test(tc, test_record_order);
    tcase_add_test(tc, test_workers_checked);
    tcase_add_test(tc, test_long_headers);
    suite_add_tcase(s, tc);
    return s;
}
