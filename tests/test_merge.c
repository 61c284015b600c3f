/* Tests of `probescan merge` through its entry point, ps_merge: every table
 * shape merged, and every refusal (message names the file and line, an
 * error returned, no output file left behind). Files live in a fresh
 * directory per test; the output and diagnostic streams are in memory. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/hts.h>

#include "merge.h"
#include "tablein.h"
#include "testutil.h"

#define MAX_ARGS 16

/* Headers of the table shapes. */
#define TOT "name\tsequence\tcount\n"
#define TOT5 "name\tsequence\tcount\tforward\treverse\n"
#define REC "record\tname\tsequence\tcount\n"
#define REC6 "record\tname\tsequence\tcount\tforward\treverse\n"

typedef struct {
    char *dir;
    char *path[8];     /* scratch paths handed out by tpath() */
    int npath;
    char err[4096];    /* diagnostics of the last run: warnings, then the error line */
    char out[8192];    /* what the last run wrote to its output stream */
} mt_t;

static void mt_init(mt_t *t)
{
    memset(t, 0, sizeof *t);
    t->dir = tu_mkdtemp();
}

static void mt_done(mt_t *t)
{
    for (int i = 0; i < t->npath; i++) free(t->path[i]);
    tu_rmtree(t->dir);
}

static const char *tpath(mt_t *t, const char *name)
{
    ck_assert_int_lt(t->npath, 8);
    return t->path[t->npath++] = tu_path(t->dir, name);
}

static const char *put(mt_t *t, const char *name, const char *text)
{
    const char *p = tpath(t, name);
    tu_write_file(p, text, strlen(text));
    return p;
}

/* Reads a whole file into buf; returns 0, or -1 if it does not exist. */
static int slurp(const char *path, char *buf, size_t n)
{
    size_t len;
    char *all = tu_read_gz(path, &len);
    if (!all) return -1;
    ck_assert_uint_lt(len, n);
    memcpy(buf, all, len + 1);
    free(all);
    return 0;
}

/* Copies a memory stream's text into buf and frees it. */
static void take(FILE *f, char **mem, char *buf, size_t n)
{
    ck_assert_int_eq(fclose(f), 0);
    size_t len = strlen(*mem);
    ck_assert_uint_lt(len, n);
    memcpy(buf, *mem, len + 1);
    free(*mem);
}

/* Runs ps_merge with the given arguments (NULL-terminated), its output and
 * diagnostic streams in memory. Returns the exit status main would give,
 * with the error line main would print appended to t->err. */
static int run(mt_t *t, ...)
{
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "merge";
    va_list ap;
    va_start(ap, t);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) {
        ck_assert_int_lt(argc, MAX_ARGS);
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    argv[argc] = NULL;

    char *outm = NULL, *diagm = NULL;
    size_t outn = 0, diagn = 0;
    FILE *out = open_memstream(&outm, &outn), *diag = open_memstream(&diagm, &diagn);
    ck_assert(out && diag);
    ps_err_t err = {0, ""};
    hts_set_log_level(HTS_LOG_OFF); /* as main does: the error line is ours */
    int rc = ps_merge(argc, argv, out, diag, NULL, &err);
    if (rc < 0) fprintf(diag, "probescan: %s\n", err.msg);
    take(out, &outm, t->out, sizeof t->out);
    take(diag, &diagm, t->err, sizeof t->err);
    return rc < 0 ? 1 : 0;
}

/* Asserts a successful merge into `out` with exactly the expected text. */
static void expect_file(mt_t *t, int rc, const char *out, const char *want)
{
    char got[8192];
    ck_assert_msg(rc == 0, "merge failed: %s", t->err);
    ck_assert_str_eq(t->err, "");
    ck_assert_int_eq(slurp(out, got, sizeof got), 0);
    ck_assert_str_eq(got, want);
}

/* The directory holds only the inputs: no output, no temporary file. */
static void expect_no_output(mt_t *t, int n_inputs)
{
    ck_assert_int_eq(tu_dir_entries(t->dir), n_inputs);
}

/* Asserts a refusal: status 1, one stderr line naming each given part. */
static void expect_refusal(mt_t *t, int rc, const char *part1, const char *part2)
{
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strncmp(t->err, "probescan: ", 11) == 0, "stderr: %s", t->err);
    size_t len = strlen(t->err);
    ck_assert_msg(len > 0 && t->err[len - 1] == '\n' && strchr(t->err, '\n') == t->err + len - 1,
                  "not one line: %s", t->err);
    ck_assert_msg(!part1 || strstr(t->err, part1), "'%s' not in: %s", part1, t->err);
    ck_assert_msg(!part2 || strstr(t->err, part2), "'%s' not in: %s", part2, t->err);
    ck_assert_str_eq(t->out, "");
}

/* ---------------------------------------------------------------- shapes */

START_TEST(totals_summed)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\tcount\np1\tACG\t3\np2\tTTT\t0\np3\tACG\t18446744073709551610\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\tcount\np1\tACG\t4\np2\tTTT\t0\np3\tACG\t5\n");
    const char *c = put(&t, "c.tsv", "name\tsequence\tcount\np1\tACG\t10\np2\tTTT\t1\np3\tACG\t0\n");
    const char *o = tpath(&t, "out.tsv");
    int rc = run(&t, a, b, c, "-o", o, NULL);
    expect_file(&t, rc, o, "name\tsequence\tcount\np1\tACG\t17\np2\tTTT\t1\np3\tACG\t18446744073709551615\n");
    mt_done(&t);
}
END_TEST

START_TEST(totals_strands_to_stdout)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\tcount\tforward\treverse\np1\tACGT\t4\t2\t2\np2\tAAAA\t1\t0\t1\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\tcount\tforward\treverse\np1\tACGT\t2\t1\t1\np2\tAAAA\t7\t7\t0\n");
    int rc = run(&t, a, b, NULL);
    ck_assert_msg(rc == 0, "merge failed: %s", t.err);
    ck_assert_str_eq(t.out, "name\tsequence\tcount\tforward\treverse\np1\tACGT\t6\t3\t3\np2\tAAAA\t8\t7\t1\n");
    mt_done(&t);
}
END_TEST

START_TEST(single_table_copied)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\tcount\np1\tACG\t3\np2\tTTT\t0\n");
    const char *o = tpath(&t, "out.tsv");
    expect_file(&t, run(&t, "--output", o, a, NULL), o, "name\tsequence\tcount\np1\tACG\t3\np2\tTTT\t0\n");
    mt_done(&t);
}
END_TEST

/* A table cut short (inside its last number, or anywhere in its last row:
 * no final line break) is refused, not merged as a smaller count. */
START_TEST(truncated_table_refused)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\tcount\np1\tACG\t135\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\tcount\np1\tACG\t16"); /* 165 cut to 16 */
    const char *o = tpath(&t, "out.tsv");
    expect_refusal(&t, run(&t, "-o", o, a, b, NULL), "b.tsv", "line 2");
    expect_no_output(&t, 2);
    const char *c = put(&t, "c.tsv", "record\tname\tsequence\tcount\nchr1\tp1\tACG\t1\nchr1\tp2\tAC");
    expect_refusal(&t, run(&t, "-o", o, c, NULL), "c.tsv", "line 3");
    mt_done(&t);
}
END_TEST

/* Tables written compressed (count -o x.tsv.gz) merge as plain ones do. */
START_TEST(compressed_tables)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT "p1\tACG\t3\n");
    const char *gz = tpath(&t, "b.tsv.gz");
    const char *text = TOT "p1\tACG\t4\n";
    tu_write_gzip(gz, text, strlen(text));
    const char *bgz = tpath(&t, "c.tsv.bgz");
    tu_write_bgzf(bgz, text, strlen(text));
    const char *o = tpath(&t, "out.tsv");
    expect_file(&t, run(&t, "-o", o, a, gz, bgz, NULL), o, TOT "p1\tACG\t11\n");
    mt_done(&t);
}
END_TEST

/* Tables that order two probes of a split record both ways: one row per
 * probe, summed, and the warning that the order is a guess. */
START_TEST(split_record_orders_disagree)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", REC "chrA\tp1\tAA\t1\nchrA\tp2\tCC\t1\n");
    const char *b = put(&t, "b.tsv", REC "chrA\tp2\tCC\t1\nchrA\tp1\tAA\t1\n");
    const char *o = tpath(&t, "out.tsv");
    int rc = run(&t, "--split-records", "-o", o, a, b, NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(t.err, "warning") != NULL, "no warning: %s", t.err);
    char got[256];
    ck_assert_int_eq(slurp(o, got, sizeof got), 0);
    ck_assert_str_eq(got, REC "chrA\tp1\tAA\t2\nchrA\tp2\tCC\t2\n");
    mt_done(&t);
}
END_TEST

/* With strand columns count must be forward + reverse. */
START_TEST(inconsistent_strands_refused)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT5 "p1\tACGT\t5\t3\t2\np2\tAAAA\t9\t7\t1\n");
    expect_refusal(&t, run(&t, a, NULL), "a.tsv", "line 3");
    const char *b = put(&t, "b.tsv", REC6 "chr1\tp1\tACGT\t4\t3\t2\n");
    const char *o = tpath(&t, "out.tsv");
    expect_refusal(&t, run(&t, "-o", o, b, NULL), "b.tsv", "line 2");
    expect_no_output(&t, 2);
    mt_done(&t);
}
END_TEST

/* The same table twice is summed twice, with a warning; a UTF-8 byte-order
 * mark before the header is not part of it. */
START_TEST(same_table_twice_warned)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "\xef\xbb\xbf" TOT "p1\tACG\t3\n");
    const char *o = tpath(&t, "out.tsv");
    int rc = run(&t, "-o", o, a, a, NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(strstr(t.err, "warning") && strstr(t.err, "a.tsv") && strstr(t.err, "twice"), "%s", t.err);
    char got[256];
    ck_assert_int_eq(slurp(o, got, sizeof got), 0);
    ck_assert_str_eq(got, TOT "p1\tACG\t6\n");
    mt_done(&t);
}
END_TEST

START_TEST(by_file_joined_and_summed)
{
    mt_t t;
    mt_init(&t);
    /* reads in one chunk, genome in two chunks whose columns sum into one */
    const char *a = put(&t, "a.tsv", "name\tsequence\treads\tgenome\np1\tACG\t1\t2\np2\tGGG\t0\t5\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\tgenome\np1\tACG\t10\np2\tGGG\t1\n");
    const char *c = put(&t, "c.tsv", "name\tsequence\tont\tgenome\np1\tACG\t7\t100\np2\tGGG\t0\t0\n");
    const char *o = tpath(&t, "m.tsv");
    int rc = run(&t, a, b, c, "-o", o, NULL);
    expect_file(&t, rc, o, "name\tsequence\treads\tgenome\tont\np1\tACG\t1\t112\t7\np2\tGGG\t0\t6\t0\n");
    mt_done(&t);
}
END_TEST

START_TEST(by_file_side_by_side)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\ts1\np1\tACG\t1\np2\tGGG\t2\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\ts2\ts3\np1\tACG\t3\t4\np2\tGGG\t5\t6\n");
    const char *o = tpath(&t, "m.tsv");
    expect_file(&t, run(&t, "-o", o, "--", a, b, NULL), o,
                "name\tsequence\ts1\ts2\ts3\np1\tACG\t1\t3\t4\np2\tGGG\t2\t5\t6\n");
    mt_done(&t);
}
END_TEST

START_TEST(by_record_concatenated)
{
    mt_t t;
    mt_init(&t);
    /* chrA is split between a and b; chrB stands alone; within b, two
     * different records both named chrC follow each other and stay apart. */
    const char *a = put(&t, "a.tsv", "record\tname\tsequence\tcount\nchrZ\tp1\tAC\t1\nchrA\tp1\tAC\t2\nchrA\tp2\tGT\t1\n");
    const char *b = put(&t, "b.tsv",
                        "record\tname\tsequence\tcount\nchrA\tp2\tGT\t3\nchrB\tp1\tAC\t1\nchrC\tp1\tAC\t1\nchrC\tp1\tAC\t1\n");
    const char *c = put(&t, "c.tsv", "record\tname\tsequence\tcount\nchrD\tp2\tGT\t9\n");
    const char *o = tpath(&t, "r.tsv");
    expect_file(&t, run(&t, "--split-records", a, b, c, "-o", o, NULL), o,
                "record\tname\tsequence\tcount\nchrZ\tp1\tAC\t1\nchrA\tp1\tAC\t2\nchrA\tp2\tGT\t4\n"
                "chrB\tp1\tAC\t1\nchrC\tp1\tAC\t1\nchrC\tp1\tAC\t1\nchrD\tp2\tGT\t9\n");
    mt_done(&t);
}
END_TEST

START_TEST(by_record_split_record_interleaved)
{
    mt_t t;
    mt_init(&t);
    /* Probe order p1 p2 p3 p4 p5. chrA's rows are spread over three chunks,
     * the middle one holding nothing but chrA. The shared probes p3 and p4
     * fix where p5 goes, but not whether p1 or p2 comes first: the probe
     * file does. Strand columns are summed too. */
    const char *probes = put(&t, "probes.fa", ">p1\nAAA\n>p2\nAAC\n>p3\nCCC\n>p4\nGGG\n>p5\nTTT\n");
    const char *a = put(&t, "a.tsv",
                        "record\tname\tsequence\tcount\tforward\treverse\n"
                        "chrA\tp1\tAAA\t1\t1\t0\nchrA\tp3\tCCC\t2\t1\t1\n");
    const char *b = put(&t, "b.tsv",
                        "record\tname\tsequence\tcount\tforward\treverse\n"
                        "chrA\tp2\tAAC\t1\t0\t1\nchrA\tp3\tCCC\t1\t1\t0\nchrA\tp4\tGGG\t5\t5\t0\n");
    const char *c = put(&t, "c.tsv",
                        "record\tname\tsequence\tcount\tforward\treverse\n"
                        "chrA\tp4\tGGG\t1\t0\t1\nchrA\tp5\tTTT\t2\t2\t0\nchrB\tp1\tAAA\t3\t3\t0\n");
    const char *o = tpath(&t, "r.tsv");
    expect_file(&t, run(&t, "--split-records", "-p", probes, a, b, c, "-o", o, NULL), o,
                "record\tname\tsequence\tcount\tforward\treverse\n"
                "chrA\tp1\tAAA\t1\t1\t0\nchrA\tp2\tAAC\t1\t0\t1\nchrA\tp3\tCCC\t3\t2\t1\n"
                "chrA\tp4\tGGG\t6\t5\t1\nchrA\tp5\tTTT\t2\t2\t0\nchrB\tp1\tAAA\t3\t3\t0\n");
    /* b then c alone: b's p3, p4 and c's p4, p5 pin the whole order. */
    expect_file(&t, run(&t, "--split-records", b, c, "-o", o, NULL), o,
                "record\tname\tsequence\tcount\tforward\treverse\n"
                "chrA\tp2\tAAC\t1\t0\t1\nchrA\tp3\tCCC\t1\t1\t0\nchrA\tp4\tGGG\t6\t5\t1\n"
                "chrA\tp5\tTTT\t2\t2\t0\nchrB\tp1\tAAA\t3\t3\t0\n");
    mt_done(&t);
}
END_TEST

START_TEST(by_record_split_order_from_probes)
{
    mt_t t;
    mt_init(&t);
    /* The two pieces of chrA share no probe, so only the probe file tells
     * that p2 comes between p1 and p4. */
    const char *probes = put(&t, "probes.fa", ">p1\nAAA\n>p2\nAAC\n>p3\nCCC\n>p4 a description\nGGG\n>p5\nTTT\n");
    const char *a = put(&t, "a.tsv", REC "chrZ\tp3\tCCC\t1\nchrA\tp1\tAAA\t1\nchrA\tp4\tGGG\t2\n");
    const char *b = put(&t, "b.tsv", REC "chrA\tp2\tAAC\t3\nchrA\tp5\tTTT\t4\nchrB\tp1\tAAA\t5\n");
    const char *o = tpath(&t, "r.tsv");
    expect_file(&t, run(&t, "--split-records", "-p", probes, a, b, "-o", o, NULL), o,
                REC "chrZ\tp3\tCCC\t1\nchrA\tp1\tAAA\t1\nchrA\tp2\tAAC\t3\nchrA\tp4\tGGG\t2\n"
                    "chrA\tp5\tTTT\t4\nchrB\tp1\tAAA\t5\n");
    /* Without it: input order kept, counts right, one warning line. */
    char got[1024];
    ck_assert_int_eq(run(&t, "--split-records", a, b, "-o", o, NULL), 0);
    ck_assert_int_eq(slurp(o, got, sizeof got), 0);
    ck_assert_str_eq(got, REC "chrZ\tp3\tCCC\t1\nchrA\tp1\tAAA\t1\nchrA\tp4\tGGG\t2\nchrA\tp2\tAAC\t3\n"
                              "chrA\tp5\tTTT\t4\nchrB\tp1\tAAA\t5\n");
    ck_assert_msg(strncmp(t.err, "probescan: warning: ", 20) == 0 && strstr(t.err, "b.tsv: line 2") &&
                      strstr(t.err, "'chrA'") && strstr(t.err, "-p") && strchr(t.err, '\n') == t.err + strlen(t.err) - 1,
                  "warning: %s", t.err);
    mt_done(&t);
}
END_TEST

/* A record that ends one table and starts the next: one record cut in two
 * (a chromosome split over chunks) or two records of one name (mates of a
 * pair, `@frag1 1:N:0` and `@frag1 2:N:0`, dealt to two chunks). The tables
 * cannot tell, so merge asks where the two readings differ. */
START_TEST(by_record_edge_records)
{
    mt_t t;
    mt_init(&t);
    const char *probes = put(&t, "probes.fa", ">p1\nAAA\n>p2\nAAC\n>p3\nCCC\n");
    /* frag1's mates share p1 */
    const char *a = put(&t, "a.tsv", "input\t" REC "reads\tfrag0\tp3\tCCC\t1\nreads\tfrag1\tp1\tAAA\t1\n"
                                     "reads\tfrag1\tp3\tCCC\t1\n");
    const char *b = put(&t, "b.tsv", "input\t" REC "reads\tfrag1\tp1\tAAA\t1\nreads\tfrag1\tp2\tAAC\t1\n"
                                     "reads\tfrag2\tp1\tAAA\t1\n");
    const char *o = tpath(&t, "r.tsv");
    expect_refusal(&t, run(&t, a, b, "-o", o, NULL), "b.tsv: line 2: record 'frag1' of input 'reads' ends",
                   "a.tsv and starts this table");
    ck_assert_ptr_nonnull(strstr(t.err, "--split-records"));
    ck_assert_ptr_nonnull(strstr(t.err, "--whole-records"));
    expect_refusal(&t, run(&t, "-p", probes, a, b, "-o", o, NULL), "b.tsv: line 2", "--whole-records");
    expect_no_output(&t, 3);
    /* Two records: kept apart, as one run over both chunks writes them. */
    expect_file(&t, run(&t, "--whole-records", a, b, "-o", o, NULL), o,
                "input\t" REC "reads\tfrag0\tp3\tCCC\t1\nreads\tfrag1\tp1\tAAA\t1\nreads\tfrag1\tp3\tCCC\t1\n"
                "reads\tfrag1\tp1\tAAA\t1\nreads\tfrag1\tp2\tAAC\t1\nreads\tfrag2\tp1\tAAA\t1\n");
    /* One record: joined, in probe-file order. */
    expect_file(&t, run(&t, "--split-records", "-p", probes, a, b, "-o", o, NULL), o,
                "input\t" REC "reads\tfrag0\tp3\tCCC\t1\nreads\tfrag1\tp1\tAAA\t2\nreads\tfrag1\tp2\tAAC\t1\n"
                "reads\tfrag1\tp3\tCCC\t1\nreads\tfrag2\tp1\tAAA\t1\n");
    /* Where both readings give one table (with -p: b's rows all after a's),
     * no option is needed, and nothing is said. */
    const char *c = put(&t, "c.tsv", "input\t" REC "reads\tfrag1\tp1\tAAA\t1\n");
    const char *d = put(&t, "d.tsv", "input\t" REC "reads\tfrag1\tp2\tAAC\t1\nreads\tfrag1\tp3\tCCC\t1\n");
    expect_file(&t, run(&t, "-p", probes, c, d, "-o", o, NULL), o,
                "input\t" REC "reads\tfrag1\tp1\tAAA\t1\nreads\tfrag1\tp2\tAAC\t1\nreads\tfrag1\tp3\tCCC\t1\n");
    /* Without -p the same table, and a warning that the order would be a
     * guess for one record cut in two. */
    ck_assert_int_eq(run(&t, c, d, "-o", o, NULL), 0);
    ck_assert_msg(strstr(t.err, "warning: ") && strstr(t.err, "d.tsv: line 2") && strstr(t.err, "-p"), "%s", t.err);
    expect_refusal(&t, run(&t, "--split-records", "--whole-records", a, b, NULL), "--split-records and --whole-records",
                   NULL);
    mt_done(&t);
}
END_TEST

START_TEST(probes_checked)
{
    mt_t t;
    mt_init(&t);
    const char *probes = put(&t, "probes.txt", "p1\tacg\np2\tTTT\n"); /* name<TAB>sequence, any case */
    const char *a = put(&t, "a.tsv", TOT "p1\tACG\t1\np2\tTTT\t2\n");
    const char *b = put(&t, "b.tsv", "name\tsequence\tx\np1\tACG\t1\np9\tTTT\t2\n");
    const char *c = put(&t, "c.tsv", "name\tsequence\tx\np1\tACG\t1\n");
    const char *d = put(&t, "d.tsv", REC "r1\tp1\tACG\t1\nr1\tp2\tTTA\t1\n");
    const char *a2 = put(&t, "a2.tsv", TOT "p1\tACG\t1\np2\tTTT\t2\n");
    const char *o = tpath(&t, "out.tsv");
    expect_file(&t, run(&t, "--probes", probes, a, a2, "-o", o, NULL), o, TOT "p1\tACG\t2\np2\tTTT\t4\n");
    ck_assert_int_eq(unlink(o), 0);
    expect_refusal(&t, run(&t, "-p", probes, b, "-o", o, NULL), "b.tsv: line 3", "probes.txt");
    expect_refusal(&t, run(&t, "-p", probes, c, "-o", o, NULL), "c.tsv: 1 probe rows", "probes.txt has 2");
    expect_refusal(&t, run(&t, "-p", probes, d, "-o", o, NULL), "d.tsv: line 3", "'TTA' is not in");
    expect_refusal(&t, run(&t, "-p", tpath(&t, "none.fa"), a, "-o", o, NULL), "none.fa", NULL);
    expect_no_output(&t, 6);
    mt_done(&t);
}
END_TEST

START_TEST(by_record_empty_tables)
{
    mt_t t;
    mt_init(&t);
    /* A chunk without any match has only the header. */
    const char *a = put(&t, "a.tsv", "record\tname\tsequence\tcount\n");
    const char *b = put(&t, "b.tsv", "record\tname\tsequence\tcount\nr1\tp1\tAC\t2\n");
    const char *c = put(&t, "c.tsv", "record\tname\tsequence\tcount\n");
    const char *o = tpath(&t, "r.tsv");
    expect_file(&t, run(&t, a, b, c, "-o", o, NULL), o, "record\tname\tsequence\tcount\nr1\tp1\tAC\t2\n");
    mt_done(&t);
}
END_TEST

/* -o naming a table or the probe file is refused, as count refuses -o
 * naming an input: a re-run would merge its own result in. Compared as
 * files, not names: another spelling or a link is the same file. */
START_TEST(output_over_input)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT "p1\tACG\t3\n");
    const char *b = put(&t, "b.tsv", TOT "p1\tACG\t4\n");
    const char *probes = put(&t, "p.txt", "p1\tACG\n");
    expect_refusal(&t, run(&t, a, b, "-o", a, NULL), "-o", "it would be overwritten");
    char other[400];
    snprintf(other, sizeof other, "%s/./b.tsv", t.dir);
    expect_refusal(&t, run(&t, a, b, "-o", other, NULL), "is the input", b);
    const char *link = tpath(&t, "link.tsv");
    ck_assert_int_eq(symlink(a, link), 0);
    expect_refusal(&t, run(&t, a, b, "--output", link, NULL), "is the input", NULL);
    expect_refusal(&t, run(&t, "-p", probes, a, b, "-o", probes, NULL), "the probe file", NULL);
    char got[256];
    ck_assert_int_eq(slurp(a, got, sizeof got), 0);
    ck_assert_str_eq(got, TOT "p1\tACG\t3\n");
    ck_assert_int_eq(slurp(b, got, sizeof got), 0);
    ck_assert_str_eq(got, TOT "p1\tACG\t4\n");
    ck_assert_int_eq(slurp(probes, got, sizeof got), 0);
    ck_assert_str_eq(got, "p1\tACG\n");
    expect_no_output(&t, 4);
    mt_done(&t);
}
END_TEST

START_TEST(stdin_and_option_forms)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT "p1\tACG\t3\n");
    const char *b = put(&t, "b.tsv", TOT "p1\tACG\t4\n");
    const char *probes = put(&t, "p.txt", "p1\tACG\n");
    const char *o = tpath(&t, "out.tsv");
    char opt_o[300], opt_p[300];
    snprintf(opt_o, sizeof opt_o, "-o%s", o);
    snprintf(opt_p, sizeof opt_p, "--probes=%s", probes);
    /* a.tsv arrives on standard input as '-' */
    int save_in = dup(0), fd = open(a, O_RDONLY);
    ck_assert(save_in >= 0 && fd >= 0 && dup2(fd, 0) == 0 && close(fd) == 0);
    clearerr(stdin);
    int rc = run(&t, opt_p, "-", opt_o, b, NULL);
    ck_assert(dup2(save_in, 0) == 0 && close(save_in) == 0);
    clearerr(stdin);
    expect_file(&t, rc, o, TOT "p1\tACG\t7\n");
    snprintf(opt_o, sizeof opt_o, "--output=%s", o);
    expect_file(&t, run(&t, opt_o, "--", b, NULL), o, TOT "p1\tACG\t4\n");
    mt_done(&t);
}
END_TEST

START_TEST(help_and_no_arguments)
{
    mt_t t;
    mt_init(&t);
    ck_assert_int_eq(run(&t, "--help", NULL), 0);
    ck_assert_ptr_nonnull(strstr(t.out, "Usage: probescan merge"));
    ck_assert_ptr_nonnull(strstr(t.out, "--output"));
    ck_assert_int_eq(run(&t, "-h", NULL), 0);
    ck_assert_ptr_nonnull(strstr(t.out, "Usage: probescan merge"));
    ck_assert_int_eq(run(&t, NULL), 0);
    ck_assert_ptr_nonnull(strstr(t.out, "Usage: probescan merge"));
    ck_assert_str_eq(t.err, "");
    /* The bare version, as `probescan --version` prints it; -q accepted. */
    ck_assert_int_eq(run(&t, "--version", NULL), 0);
    ck_assert_str_eq(t.out, PS_VERSION "\n");
    ck_assert_ptr_nonnull(strstr(t.out, "."));
    const char *a = put(&t, "a.tsv", TOT "p1\tACG\t3\n");
    ck_assert_int_eq(run(&t, "-q", a, NULL), 0);
    ck_assert_str_eq(t.out, TOT "p1\tACG\t3\n");
    ck_assert_int_eq(run(&t, "--quiet", a, NULL), 0);
    ck_assert_str_eq(t.err, "");
    /* Help or version that cannot be written is an error, not a success. */
    static char *const help[] = {"merge", "--help", NULL}, *const version[] = {"merge", "--version", NULL};
    char *const *args[] = {help, version};
    for (int i = 0; i < 2; i++) {
        FILE *full = fopen("/dev/full", "w");
        if (!full) continue; /* not on this system */
        ps_err_t err = {0, ""};
        ck_assert_int_lt(ps_merge(2, (char **)args[i], full, stderr, NULL, &err), 0);
        ck_assert_msg(strstr(err.msg, "error writing standard output") != NULL, "%s", err.msg);
        fclose(full);
    }
    mt_done(&t);
}
END_TEST

/* --------------------------------------------------------- reading tables */

/* A totals table of n rows with counts that do not compress away. */
static char *many_rows(size_t n)
{
    tu_buf_t b = {0};
    tu_buf_puts(&b, TOT);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        tu_buf_printf(&b, "p%zu\tACGT\t%llu\n", i, (unsigned long long)(x % 100000));
    }
    return b.p;
}

/* A gzip stream cut anywhere is an error, never a table that ends early:
 * in the middle, and just before its trailer (whole rows, no checksum). */
START_TEST(cut_gzip_refused)
{
    mt_t t;
    mt_init(&t);
    char *text = many_rows(20000);
    const char *gz = tpath(&t, "a.tsv.gz");
    const char *o = tpath(&t, "out.tsv");
    uint64_t cuts[2] = {0, 8};
    for (int i = 0; i < 2; i++) {
        tu_write_gzip(gz, text, strlen(text));
        uint64_t size = tu_file_size(gz);
        tu_truncate(gz, cuts[i] ? size - cuts[i] : size / 2);
        expect_refusal(&t, run(&t, "-o", o, gz, NULL), "a.tsv.gz: after line", "corrupt or cut short");
        expect_no_output(&t, 1);
    }
    free(text);
    mt_done(&t);
}
END_TEST

/* BGZF blocks check themselves, so a file cut between two blocks inflates
 * cleanly: only the missing end-of-file block tells, from a file or a pipe. */
START_TEST(bgzf_without_eof_block_refused)
{
    mt_t t;
    mt_init(&t);
    char *text = many_rows(20000); /* several 64 KiB blocks */
    const char *bgz = tpath(&t, "a.tsv.gz");
    tu_write_bgzf(bgz, text, strlen(text));
    tu_truncate(bgz, tu_file_size(bgz) - 28); /* the empty end-of-file block */
    const char *o = tpath(&t, "out.tsv");
    expect_refusal(&t, run(&t, "-o", o, bgz, NULL), "a.tsv.gz: after line", "end-of-file block");
    int save_in = dup(0), fd = open(bgz, O_RDONLY);
    ck_assert(save_in >= 0 && fd >= 0 && dup2(fd, 0) == 0 && close(fd) == 0);
    int rc = run(&t, "-o", o, "-", NULL);
    ck_assert(dup2(save_in, 0) == 0 && close(save_in) == 0);
    expect_refusal(&t, rc, "standard input: after line", "end-of-file block");
    expect_no_output(&t, 1);
    free(text);
    mt_done(&t);
}
END_TEST

/* Tables saved by a Windows editor end their lines in CR LF: read as the
 * same table, the CR never part of a count or a column name. */
START_TEST(crlf_tables_read)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", "name\tsequence\tcount\r\np1\tACG\t3\r\np2\tTTT\t0\r\n");
    const char *b = put(&t, "b.tsv", TOT "p1\tACG\t4\np2\tTTT\t1\n");
    const char *c = put(&t, "c.tsv", "name\tsequence\ts1\r\np1\tACG\t1\r\np2\tTTT\t2\r\n");
    const char *d = put(&t, "d.tsv", "name\tsequence\ts1\np1\tACG\t10\np2\tTTT\t20\n");
    const char *o = tpath(&t, "out.tsv");
    expect_file(&t, run(&t, "-o", o, a, b, NULL), o, TOT "p1\tACG\t7\np2\tTTT\t1\n");
    expect_file(&t, run(&t, "-o", o, c, d, NULL), o, "name\tsequence\ts1\np1\tACG\t11\np2\tTTT\t22\n");
    mt_done(&t);
}
END_TEST

/* The sheet flags: comments and blank lines skipped but counted, rows of
 * any width, a last line without its break; without them the same file is
 * refused at its first blank line. */
START_TEST(tablein_sheet_flags)
{
    mt_t t;
    mt_init(&t);
    const char *p = put(&t, "s.tsv", "\xef\xbb\xbf# samples\n\nsample\tfile\r\ns1\ta.fq\tx\n#\ns2\tb.fq");
    ps_tablein_t in;
    ps_err_t err = {0, ""};
    ck_assert_int_eq(ps_tablein_open_ex(&in, p, PS_TABLEIN_SHEET, &err), 0);
    static const unsigned long lines[] = {3, 4, 6};
    static const size_t widths[] = {2, 3, 2};
    static const char *const last[] = {"file", "x", "b.fq"};
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(ps_tablein_next(&in, &err) == 1, "line %d: %s", i, err.msg);
        ck_assert_uint_eq(in.lineno, lines[i]);
        ck_assert_uint_eq(in.nfld, widths[i]);
        ck_assert_str_eq(in.fld[in.nfld - 1], last[i]);
    }
    ck_assert_int_eq(ps_tablein_next(&in, &err), 0);
    ps_tablein_close(&in);
    ck_assert_int_eq(ps_tablein_open(&in, p, &err), 0);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_str_eq(in.fld[0], "# samples");
    ck_assert_int_lt(ps_tablein_next(&in, &err), 0);
    ck_assert_msg(strstr(err.msg, "s.tsv: line 2: empty line") != NULL, "%s", err.msg);
    ps_tablein_close(&in);
    /* Each flag alone. */
    const char *q = put(&t, "q.tsv", "a\tb\n#\na\n");
    ck_assert_int_eq(ps_tablein_open_ex(&in, q, PS_TABLEIN_RAGGED, &err), 0);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_str_eq(in.fld[0], "#");
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_uint_eq(in.nfld, 1);
    ps_tablein_close(&in);
    ck_assert_int_eq(ps_tablein_open_ex(&in, q, PS_TABLEIN_SKIP_BLANK, &err), 0);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_int_lt(ps_tablein_next(&in, &err), 0);
    ck_assert_msg(strstr(err.msg, "q.tsv: line 3: 1 columns where the header has 2") != NULL, "%s", err.msg);
    ps_tablein_close(&in);
    const char *r = put(&t, "r.tsv", "a\tb\nc\td");
    ck_assert_int_eq(ps_tablein_open_ex(&in, r, PS_TABLEIN_OPEN_END, &err), 0);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_int_eq(ps_tablein_next(&in, &err), 1);
    ck_assert_str_eq(in.fld[1], "d");
    ck_assert_int_eq(ps_tablein_next(&in, &err), 0);
    ps_tablein_close(&in);
    mt_done(&t);
}
END_TEST

/* -------------------------------------------------------------- refusals */

/* One refusal case: the tables to merge, in order, and what the message
 * must name. An existing output file must survive untouched. */
typedef struct {
    const char *what;
    const char *a, *b;       /* contents of a.tsv and b.tsv (b may be NULL) */
    const char *part1, *part2;
} refusal_t;


static const refusal_t refusals[] = {
    {"totals with by-file", TOT "p1\tAC\t1\n", "name\tsequence\tsample\np1\tAC\t1\n", "b.tsv: line 1", "by-file"},
    {"by-file with totals", "name\tsequence\tsample\np1\tAC\t1\n", TOT "p1\tAC\t1\n", "b.tsv: line 1", "totals"},
    {"totals with by-record", TOT "p1\tAC\t1\n", REC "r\tp1\tAC\t1\n", "b.tsv: line 1", "by-record"},
    {"by-record with by-file", REC "r\tp1\tAC\t1\n", "name\tsequence\ts\np1\tAC\t1\n", "b.tsv: line 1", "a.tsv"},
    {"probe name differs", TOT "p1\tAC\t1\np2\tGT\t1\n", TOT "p1\tAC\t1\nq2\tGT\t1\n", "b.tsv: line 3", "'q2'"},
    {"probe sequence differs", TOT "p1\tAC\t1\np2\tGT\t1\n", TOT "p1\tAA\t1\np2\tGT\t1\n", "b.tsv: line 2", "'AA'"},
    {"by-file probe rows differ", "name\tsequence\ts1\np1\tAC\t1\n", "name\tsequence\ts2\np9\tAC\t1\n", "b.tsv: line 2",
     "a.tsv"},
    {"fewer probe rows", TOT "p1\tAC\t1\np2\tGT\t1\n", TOT "p1\tAC\t1\n", "b.tsv: line 3", "1 probe rows"},
    {"more probe rows", TOT "p1\tAC\t1\n", TOT "p1\tAC\t1\np2\tGT\t1\n", "b.tsv: line 3", "'p2'"},
    {"totals strand columns differ", TOT "p1\tAC\t1\n", TOT5 "p1\tAC\t1\t1\t0\n", "b.tsv: line 1", "'forward'"},
    {"totals strand columns missing", TOT5 "p1\tAC\t1\t1\t0\n", TOT "p1\tAC\t1\n", "b.tsv: line 1", "'forward'"},
    {"by-record strand columns differ", REC "r\tp1\tAC\t1\n", REC6 "r\tp1\tAC\t1\t1\t0\n", "b.tsv: line 1", "'forward'"},
    {"sum overflows", TOT "p1\tAC\t18446744073709551615\n", TOT "p1\tAC\t1\n", "b.tsv: line 2", "overflow"},
    {"by-record sum overflows", REC "r\tp1\tAC\t18446744073709551615\n", REC "r\tp1\tAC\t1\n", "b.tsv: line 2",
     "overflow"},
    {"count too large", TOT "p1\tAC\t18446744073709551616\n", NULL, "a.tsv: line 2", "not a count"},
    {"negative count", TOT "p1\tAC\t1\n", TOT "p1\tAC\t-1\n", "b.tsv: line 2", "'-1'"},
    {"count not a number", "name\tsequence\ts\np1\tAC\t1x\n", NULL, "a.tsv: line 2", "'1x'"},
    {"empty count", REC "r\tp1\tAC\t\n", NULL, "a.tsv: line 2", "not a count"},
    {"too few columns", TOT "p1\tAC\t1\np2\tGT\n", NULL, "a.tsv: line 3", "columns"},
    {"too many columns", REC "r\tp1\tAC\t1\t2\n", NULL, "a.tsv: line 2", "columns"},
    {"empty file", "", NULL, "a.tsv", "empty"},
    {"empty line", TOT "p1\tAC\t1\n\n", NULL, "a.tsv: line 3", "empty line"},
    {"not a table", "hello world\n", NULL, "a.tsv: line 1", "not a probescan table"},
    {"FASTA given", ">chr1\nACGT\n", NULL, "a.tsv: line 1", "not a probescan table"},
    {"bad by-record header", "record\tname\tsequence\n", NULL, "a.tsv: line 1", "by-record"},
    {"duplicate sample column", "name\tsequence\ts1\ts1\np1\tAC\t1\t1\n", NULL, "a.tsv: line 1", "'s1'"},
    {"first repeated sample named", "name\tsequence\ts1\ts2\ts2\ts1\np1\tAC\t1\t1\t1\t1\n", NULL,
     "'s2' appears twice", "columns 4 and 5"},
    {"empty sample column", "name\tsequence\t\np1\tAC\t1\n", NULL, "a.tsv: line 1", "empty name"},
};

START_TEST(refused)
{
    const refusal_t *r = &refusals[_i];
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", r->a);
    const char *b = r->b ? put(&t, "b.tsv", r->b) : NULL;
    const char *o = put(&t, "out.tsv", "previous\n");
    int rc = b ? run(&t, a, b, "-o", o, NULL) : run(&t, a, "-o", o, NULL);
    ck_assert_msg(rc == 1, "%s: accepted", r->what);
    expect_refusal(&t, rc, r->part1, r->part2);
    char got[64];
    ck_assert_int_eq(slurp(o, got, sizeof got), 0);
    ck_assert_str_eq(got, "previous\n");
    expect_no_output(&t, b ? 3 : 2);
    mt_done(&t);
}
END_TEST

START_TEST(refused_binary)
{
    mt_t t;
    mt_init(&t);
    static const char bin[] = "name\tsequence\tcount\np1\tAC\0\t1\n";
    const char *a = tpath(&t, "a.tsv");
    tu_write_file(a, bin, sizeof bin - 1);
    expect_refusal(&t, run(&t, a, NULL), "a.tsv: line 2", "binary");
    mt_done(&t);
}
END_TEST

START_TEST(refused_no_output_created)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT "p1\tAC\t1\n");
    const char *b = put(&t, "b.tsv", TOT "p2\tAC\t1\n");
    const char *o = tpath(&t, "out.tsv");
    expect_refusal(&t, run(&t, a, b, "-o", o, NULL), "b.tsv: line 2", "'p2'");
    expect_no_output(&t, 2);
    mt_done(&t);
}
END_TEST

START_TEST(refused_command_line)
{
    mt_t t;
    mt_init(&t);
    const char *a = put(&t, "a.tsv", TOT "p1\tAC\t1\n");
    expect_refusal(&t, run(&t, "--frobnicate", a, NULL), "unknown option '--frobnicate'", NULL);
    expect_refusal(&t, run(&t, a, "-o", NULL), "'-o' needs a value", NULL);
    expect_refusal(&t, run(&t, "-o", tpath(&t, "x.tsv"), NULL), "no tables to merge", NULL);
    expect_refusal(&t, run(&t, "-", a, "-", NULL), "standard input", NULL);
    expect_refusal(&t, run(&t, a, tpath(&t, "missing.tsv"), NULL), "missing.tsv: cannot open", NULL);
    expect_refusal(&t, run(&t, a, "-o", tpath(&t, "no/such/dir.tsv"), NULL), "no/such/dir.tsv", NULL);
    expect_no_output(&t, 1);
    mt_done(&t);
}
END_TEST

Suite *suite_merge(void)
{
    Suite *s = suite_create("merge");
    TCase *tc = tcase_create("shapes");
    tcase_add_test(tc, totals_summed);
    tcase_add_test(tc, totals_strands_to_stdout);
    tcase_add_test(tc, truncated_table_refused);
    tcase_add_test(tc, inconsistent_strands_refused);
    tcase_add_test(tc, same_table_twice_warned);
    tcase_add_test(tc, split_record_orders_disagree);
    tcase_add_test(tc, compressed_tables);
    tcase_add_test(tc, single_table_copied);
    tcase_add_test(tc, by_file_joined_and_summed);
    tcase_add_test(tc, by_file_side_by_side);
    tcase_add_test(tc, by_record_concatenated);
    tcase_add_test(tc, by_record_split_record_interleaved);
    tcase_add_test(tc, by_record_split_order_from_probes);
    tcase_add_test(tc, by_record_empty_tables);
    tcase_add_test(tc, by_record_edge_records);
    tcase_add_test(tc, probes_checked);
    tcase_add_test(tc, output_over_input);
    tcase_add_test(tc, stdin_and_option_forms);
    tcase_add_test(tc, help_and_no_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("reading");
    tcase_add_test(tc, cut_gzip_refused);
    tcase_add_test(tc, bgzf_without_eof_block_refused);
    tcase_add_test(tc, crlf_tables_read);
    tcase_add_test(tc, tablein_sheet_flags);
    suite_add_tcase(s, tc);
    tc = tcase_create("refusals");
    tcase_add_loop_test(tc, refused, 0, (int)(sizeof refusals / sizeof refusals[0]));
    tcase_add_test(tc, refused_binary);
    tcase_add_test(tc, refused_no_output_created);
    tcase_add_test(tc, refused_command_line);
    suite_add_tcase(s, tc);
    return s;
}
