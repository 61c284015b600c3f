/* test_output.c - the TSV table and the safe output file of output.h. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "automaton.h"
#include "output.h"
#include "probes.h"
#include "testutil.h"

static char *g_dir;

static void setup(void) { g_dir = tu_mkdtemp(); }
static void teardown(void)
{
    tu_rmtree(g_dir);
    g_dir = NULL;
}

typedef struct {
    ps_probes_t *p;
    ps_automaton_t *a;
} built_t;

static built_t build(uint32_t n, const char *const *seqs, const char *const *names,
                     ps_alpha_req_t req, int both)
{
    built_t b = {0};
    ps_err_t err = {0};
    ck_assert_msg(ps_probes_from_strings(&b.p, n, seqs, names, req, &err) == PS_OK, "%s", err.msg);
    ck_assert_msg(ps_automaton_build(&b.a, b.p, both, &err) == PS_OK, "%s", err.msg);
    return b;
}

static void built_free(built_t *b)
{
    ps_automaton_free(b->a);
    ps_probes_free(b->p);
}

/* The table written to memory. */
static char *table(const built_t *b, const uint64_t *leaf_counts, int threads)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ps_err_t err = {0};
    int rc = ps_write_counts(f, b->p, &b->a->leaves, leaf_counts, threads, &err);
    ck_assert_msg(rc == PS_OK, "ps_write_counts: %s", err.msg);
    ck_assert_int_eq(fclose(f), 0);
    return text;
}

/* A whole file, NUL-terminated; ends the test when it cannot be read. */
static char *read_all(const char *path)
{
    char *p = tu_read_gz(path, NULL);
    ck_assert_msg(p != NULL, "cannot read %s", path);
    return p;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(test_table_by_hand)
{
    /* ACG and CGT are each other's reverse complement. */
    const char *seqs[2] = {"ACG", "CGT"};
    const char *names[2] = {"a", "b"};
    built_t b = build(2, seqs, names, PS_ALPHA_DNA, 1);
    ck_assert_uint_eq(b.a->n_leaves, 2);
    uint64_t counts[2];
    counts[b.a->leaves.probe_leaf[0][0]] = 5; /* ACG */
    counts[b.a->leaves.probe_leaf[0][1]] = 7; /* CGT */
    char *t = table(&b, counts, 1);
    ck_assert_str_eq(t, "name\tsequence\tcount\tforward\treverse\n"
                        "a\tACG\t12\t5\t7\n"
                        "b\tCGT\t12\t7\t5\n");
    free(t);
    built_free(&b);

    /* Forward only: three columns. */
    b = build(2, seqs, names, PS_ALPHA_DNA, 0);
    counts[b.a->leaves.probe_leaf[0][0]] = 5;
    counts[b.a->leaves.probe_leaf[0][1]] = 7;
    t = table(&b, counts, 1);
    ck_assert_str_eq(t, "name\tsequence\tcount\n"
                        "a\tACG\t5\n"
                        "b\tCGT\t7\n");
    free(t);
    built_free(&b);

    /* Protein: three columns, literal residues, names default to sequences. */
    const char *pep[3] = {"MKX*", "wwww", "MKX*"};
    b = build(3, pep, NULL, PS_ALPHA_PROTEIN, 0);
    ck_assert_uint_eq(b.a->n_leaves, 2);
    counts[b.a->leaves.probe_leaf[0][0]] = 0;
    counts[b.a->leaves.probe_leaf[0][1]] = 18446744073709551615ull;
    t = table(&b, counts, 1);
    ck_assert_msg(!strncmp(t, "name\tsequence\tcount\n", 20), "header: %s", t);
    /* Row names are the sequences (as the caller wrote them or upper-cased). */
    char *row = strchr(t, '\n') + 1;
    ck_assert_msg(!strncmp(row, "MKX*\tMKX*\t0\n", 12), "row 1: %s", row);
    row = strchr(row, '\n') + 1;
    ck_assert_msg(!strncasecmp(row, "wwww\tWWWW\t18446744073709551615\n", 31), "row 2: %s", row);
    row = strchr(row, '\n') + 1;
    ck_assert_str_eq(row, "MKX*\tMKX*\t0\n");
    free(t);
    built_free(&b);
}
END_TEST

/* The --by-file matrix: one column per input, each forward + reverse. */
START_TEST(test_matrix_by_hand)
{
    const char *seqs[2] = {"ACG", "CGT"};
    const char *names[2] = {"a", "b"};
    const char *cols[3] = {"reads", "genome", "ont"};
    for (int both = 0; both <= 1; both++) {
        built_t b = build(2, seqs, names, PS_ALPHA_DNA, both);
        uint32_t nl = b.a->n_leaves;
        uint64_t *counts = calloc(3 * (size_t)nl, sizeof *counts);
        ck_assert_ptr_nonnull(counts);
        for (int c = 0; c < 3; c++) {
            counts[(size_t)c * nl + b.a->leaves.probe_leaf[0][0]] = 1 + (uint64_t)c;  /* ACG */
            counts[(size_t)c * nl + b.a->leaves.probe_leaf[0][1]] = 10 * (uint64_t)c; /* CGT */
        }
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        ps_err_t err = {0};
        ck_assert_msg(ps_write_matrix(f, b.p, &b.a->leaves, counts, cols, 3, 1, &err) == PS_OK, "%s", err.msg);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_str_eq(text, both ? "name\tsequence\treads\tgenome\tont\n"
                                      "a\tACG\t1\t12\t23\n"
                                      "b\tCGT\t1\t12\t23\n"
                                    : "name\tsequence\treads\tgenome\tont\n"
                                      "a\tACG\t1\t2\t3\n"
                                      "b\tCGT\t0\t10\t20\n");
        free(text);
        free(counts);
        built_free(&b);
    }
}
END_TEST

START_TEST(test_palindrome_and_duplicates)
{
    /* GAATTC is its own reverse complement: both columns read its one leaf,
     * so it counts twice per occurrence. */
    const char *seqs[4] = {"GAATTC", "AAAAAA", "GAATTC", "TTTTTT"};
    const char *names[4] = {"eco", "polyA", "eco_again", "polyT"};
    built_t b = build(4, seqs, names, PS_ALPHA_DNA, 1);
    uint64_t *counts = calloc(b.a->n_leaves, sizeof *counts);
    ck_assert_ptr_nonnull(counts);
    counts[b.a->leaves.probe_leaf[0][0]] = 3;
    counts[b.a->leaves.probe_leaf[0][1]] = 10;
    counts[b.a->leaves.probe_leaf[0][3]] = 1ull << 40;
    char *t = table(&b, counts, 1);
    ck_assert_str_eq(t, "name\tsequence\tcount\tforward\treverse\n"
                        "eco\tGAATTC\t6\t3\t3\n"
                        "polyA\tAAAAAA\t1099511627786\t10\t1099511627776\n"
                        "eco_again\tGAATTC\t6\t3\t3\n"
                        "polyT\tTTTTTT\t1099511627786\t1099511627776\t10\n");
    free(t);
    free(counts);
    built_free(&b);
}
END_TEST

/* Rows for many random probes follow the leaf map exactly. */
START_TEST(test_table_random)
{
    tu_rng_t rng;
    tu_rng_seed(&rng, tu_seed() ^ 0xc1);
    for (int round = 0; round < 20; round++) {
        int both = round % 2;
        int k = (int)tu_rng_range(&rng, 1, 12);
        /* Every fourth round is large enough to be formatted on several
         * threads, with one name far longer than a thread's buffer. */
        int large = round % 4 == 3, threads = large ? (int)tu_rng_range(&rng, 2, 5) : (int)tu_rng_range(&rng, 1, 3);
        uint32_t n = large ? (uint32_t)tu_rng_range(&rng, 40000, 90000) : (uint32_t)tu_rng_range(&rng, 1, 300);
        uint32_t long_at = large ? (uint32_t)tu_rng_below(&rng, n) : UINT32_MAX;
        char **seqs = malloc(n * sizeof *seqs), **names = malloc(n * sizeof *names);
        ck_assert(seqs && names);
        for (uint32_t i = 0; i < n; i++) {
            seqs[i] = malloc((size_t)k + 1);
            ck_assert_ptr_nonnull(seqs[i]);
            for (int j = 0; j < k; j++) seqs[i][j] = "ACGT"[tu_rng_below(&rng, 4)];
            seqs[i][k] = '\0';
            names[i] = seqs[i];
            if (i == long_at) {
                ck_assert_ptr_nonnull(names[i] = malloc(1500001));
                memset(names[i], 'n', 1500000);
                names[i][1500000] = '\0';
            }
        }
        built_t b = build(n, (const char *const *)seqs, (const char *const *)names, PS_ALPHA_DNA, both);
        uint64_t *counts = malloc(b.a->n_leaves * sizeof *counts);
        ck_assert_ptr_nonnull(counts);
        for (uint32_t l = 0; l < b.a->n_leaves; l++) counts[l] = tu_rng_below(&rng, 1ull << 50);
        char *t = table(&b, counts, threads);
        tu_buf_t want = {0};
        tu_buf_puts(&want, both ? "name\tsequence\tcount\tforward\treverse\n" : "name\tsequence\tcount\n");
        for (uint32_t i = 0; i < n; i++) {
            uint64_t f = counts[b.a->leaves.probe_leaf[0][i]];
            if (both) {
                uint64_t r = counts[b.a->leaves.probe_leaf[1][i]];
                tu_buf_printf(&want, "%s\t%s\t%llu\t%llu\t%llu\n", names[i], seqs[i],
                              (unsigned long long)(f + r), (unsigned long long)f,
                              (unsigned long long)r);
            } else {
                tu_buf_printf(&want, "%s\t%s\t%llu\n", names[i], seqs[i], (unsigned long long)f);
            }
        }
        ck_assert_msg(!strcmp(t, want.p), "round %d: %u probes on %d threads: the table differs from printf's", round,
                      n, threads);
        if (large) {
            /* The by-file matrix of the same counts (as two inputs): the same
             * on several threads as on one. */
            const char *cols[2] = {"a", "b"};
            char *m[2];
            for (int run = 0; run < 2; run++) {
                size_t len = 0;
                FILE *f = open_memstream(&m[run], &len);
                ck_assert_ptr_nonnull(f);
                ps_err_t err = {0};
                ck_assert_msg(ps_write_matrix(f, b.p, &b.a->leaves, counts, cols, 1, run ? threads : 1, &err) == PS_OK,
                              "%s", err.msg);
                ck_assert_int_eq(fclose(f), 0);
            }
            ck_assert_msg(!strcmp(m[0], m[1]), "round %d: the matrix on %d threads differs from one thread's", round,
                          threads);
            free(m[0]);
            free(m[1]);
        }
        tu_buf_free(&want);
        free(t);
        free(counts);
        built_free(&b);
        for (uint32_t i = 0; i < n; i++) free(seqs[i]);
        if (long_at != UINT32_MAX) free(names[long_at]);
        free(seqs);
        free(names);
    }
}
END_TEST

/* Counts of every number of digits, and a name longer than the buffer in
 * which rows are put together: the rows printf would write. */
START_TEST(test_table_digits_and_long_names)
{
    uint64_t edge[3 * 19 + 4];
    size_t ne = 0;
    edge[ne++] = 0;
    edge[ne++] = 7;
    for (uint64_t p10 = 10, j = 1; j <= 19; j++, p10 *= 10) {
        edge[ne++] = p10 - 1;
        edge[ne++] = p10;
        edge[ne++] = p10 + 1;
    }
    edge[ne++] = UINT64_MAX - 1;
    edge[ne++] = UINT64_MAX;
    const uint32_t n = 64;
    char seqs[64][9], *names[64];
    const size_t long_len = 300000;
    for (uint32_t i = 0; i < n; i++) {
        for (int j = 0; j < 8; j++) seqs[i][j] = "ACGT"[(i >> (2 * j)) & 3];
        seqs[i][8] = '\0';
        names[i] = malloc(i == 5 ? long_len + 1 : 16);
        ck_assert_ptr_nonnull(names[i]);
        if (i == 5) {
            memset(names[i], 'n', long_len);
            names[i][long_len] = '\0';
        } else {
            snprintf(names[i], 16, "p%u", i);
        }
    }
    const char *seq_ptrs[64];
    for (uint32_t i = 0; i < n; i++) seq_ptrs[i] = seqs[i];
    for (int both = 0; both <= 1; both++) {
        built_t b = build(n, seq_ptrs, (const char *const *)names, PS_ALPHA_DNA, both);
        uint32_t nl = b.a->n_leaves;
        uint64_t *counts = malloc(2 * (size_t)nl * sizeof *counts);
        ck_assert_ptr_nonnull(counts);
        for (uint32_t l = 0; l < 2 * nl; l++) counts[l] = edge[l % ne];

        char *t = table(&b, counts, 2);
        tu_buf_t want = {0};
        tu_buf_puts(&want, both ? "name\tsequence\tcount\tforward\treverse\n" : "name\tsequence\tcount\n");
        for (uint32_t i = 0; i < n; i++) {
            uint64_t f = counts[b.a->leaves.probe_leaf[0][i]], r = both ? counts[b.a->leaves.probe_leaf[1][i]] : 0;
            tu_buf_printf(&want, "%s\t%s\t%" PRIu64, names[i], seqs[i], f + r);
            if (both) tu_buf_printf(&want, "\t%" PRIu64 "\t%" PRIu64, f, r);
            tu_buf_putc(&want, '\n');
        }
        ck_assert_msg(!strcmp(t, want.p), "the totals table differs from printf's (strands %d)", both + 1);
        tu_buf_free(&want);
        free(t);

        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        ps_err_t err = {0};
        const char *cols[2] = {"one", "two"};
        ck_assert_msg(ps_write_matrix(f, b.p, &b.a->leaves, counts, cols, 2, 1 + both, &err) == PS_OK, "%s", err.msg);
        ck_assert_int_eq(fclose(f), 0);
        tu_buf_t wm = {0};
        tu_buf_puts(&wm, "name\tsequence\tone\ttwo\n");
        for (uint32_t i = 0; i < n; i++) {
            tu_buf_printf(&wm, "%s\t%s", names[i], seqs[i]);
            for (uint32_t c = 0; c < 2; c++) {
                const uint64_t *cc = counts + (size_t)c * nl;
                uint64_t sum = cc[b.a->leaves.probe_leaf[0][i]] + (both ? cc[b.a->leaves.probe_leaf[1][i]] : 0);
                tu_buf_printf(&wm, "\t%" PRIu64, sum);
            }
            tu_buf_putc(&wm, '\n');
        }
        ck_assert_msg(!strcmp(text, wm.p), "the matrix differs from printf's (strands %d)", both + 1);
        tu_buf_free(&wm);
        free(text);
        free(counts);
        built_free(&b);
    }
    for (uint32_t i = 0; i < n; i++) free(names[i]);
}
END_TEST

START_TEST(test_output_commit)
{
    char *target = tu_path(g_dir, "out.tsv");
    ps_output_t *o = NULL;
    ps_err_t err = {0};
    ck_assert_msg(ps_output_open(&o, target, NULL, &err) == PS_OK, "%s", err.msg);
    FILE *f = ps_output_stream(o);
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 20000; i++) ck_assert_int_gt(fprintf(f, "row\t%d\n", i), 0);
    ck_assert_int_eq(fflush(f), 0);
    /* Until the commit the target does not exist; the data sits beside it. */
    ck_assert_msg(!exists(target), "%s exists before the commit", target);
    ck_assert_int_eq(tu_dir_entries(g_dir), 1);
    ck_assert_msg(ps_output_commit(o, &err) == PS_OK, "%s", err.msg);
    ck_assert(exists(target));
    ck_assert_int_eq(tu_dir_entries(g_dir), 1);
    char *got = read_all(target);
    tu_buf_t want = {0};
    for (int i = 0; i < 20000; i++) tu_buf_printf(&want, "row\t%d\n", i);
    ck_assert_str_eq(got, want.p);
    free(got);
    tu_buf_free(&want);

    /* Committing over an existing file replaces it. */
    ck_assert_msg(ps_output_open(&o, target, NULL, &err) == PS_OK, "%s", err.msg);
    fputs("new\n", ps_output_stream(o));
    got = read_all(target);
    ck_assert_int_eq(strncmp(got, "row\t0\n", 6), 0); /* old content intact until the commit */
    free(got);
    ck_assert_msg(ps_output_commit(o, &err) == PS_OK, "%s", err.msg);
    got = read_all(target);
    ck_assert_str_eq(got, "new\n");
    free(got);
    ck_assert_int_eq(tu_dir_entries(g_dir), 1);
    free(target);
}
END_TEST

START_TEST(test_output_abort)
{
    char *target = tu_path(g_dir, "out.tsv");
    ps_output_t *o = NULL;
    ps_err_t err = {0};
    ck_assert_msg(ps_output_open(&o, target, NULL, &err) == PS_OK, "%s", err.msg);
    fputs("name\tsequence\tcount\npartial\tACGT\t", ps_output_stream(o));
    ck_assert_int_eq(fflush(ps_output_stream(o)), 0);
    ps_output_abort(o);
    ck_assert_msg(!exists(target), "abort left %s", target);
    ck_assert_int_eq(tu_dir_entries(g_dir), 0);

    /* An abort keeps an older file of that name as it was. */
    tu_write_file(target, "old\n", 4);
    ck_assert_msg(ps_output_open(&o, target, NULL, &err) == PS_OK, "%s", err.msg);
    fputs("half", ps_output_stream(o));
    ps_output_abort(o);
    char *got = read_all(target);
    ck_assert_str_eq(got, "old\n");
    free(got);
    ck_assert_int_eq(tu_dir_entries(g_dir), 1);

    ps_output_abort(NULL);
    free(target);
}
END_TEST

START_TEST(test_output_bad_path)
{
    char *target = tu_path(g_dir, "no/such/dir/out.tsv");
    ps_output_t *o = NULL;
    ps_err_t err = {0};
    int rc = ps_output_open(&o, target, NULL, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_msg(strstr(err.msg, target) != NULL, "message does not name %s: %s", target, err.msg);
    free(target);
}
END_TEST

/* "-" and NULL write to standard output. Run in a child whose stdout is a
 * file, so that whatever the writer does to stdout stays there. */
static void stdout_case(const char *path_arg, const char *capture)
{
    fflush(stdout);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(capture, "w", stdout)) _exit(10);
        ps_output_t *o = NULL;
        ps_err_t err = {0};
        if (ps_output_open(&o, path_arg, NULL, &err) != PS_OK) _exit(11);
        if (ps_output_stream(o) != stdout) _exit(12);
        if (fputs("to stdout\n", ps_output_stream(o)) < 0) _exit(13);
        if (ps_output_commit(o, &err) != PS_OK) _exit(14);
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed with status %d",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    char *got = read_all(capture);
    ck_assert_str_eq(got, "to stdout\n");
    free(got);
}

START_TEST(test_output_stdout)
{
    char *capture = tu_path(g_dir, "captured");
    stdout_case("-", capture);
    stdout_case(NULL, capture);
    /* Nothing but the capture file appeared. */
    ck_assert_int_eq(tu_dir_entries(g_dir), 1);
    free(capture);
}
END_TEST

Suite *suite_output(void)
{
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("output");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_table_by_hand);
    tcase_add_test(tc, test_matrix_by_hand);
    tcase_add_test(tc, test_palindrome_and_duplicates);
    tcase_add_test(tc, test_table_random);
    tcase_add_test(tc, test_table_digits_and_long_names);
    tcase_add_test(tc, test_output_commit);
    tcase_add_test(tc, test_output_abort);
    tcase_add_test(tc, test_output_bad_path);
    tcase_add_test(tc, test_output_stdout);
    suite_add_tcase(s, tc);
    return s;
}
