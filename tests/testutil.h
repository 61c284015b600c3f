/* testutil.h - helpers shared by the unit, randomised and real-data tests:
 * a seeded random generator, temporary directories, writing plain, gzip and
 * BGZF files, and a growable byte buffer. Helpers that can fail end the
 * current test through Check's assertions. */
#ifndef PS_TESTUTIL_H
#define PS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "automaton.h"
#include "probes.h"
#include "profile.h"

/* splitmix64: small, fast and good enough to pick test cases. */
typedef struct {
    uint64_t s;
} tu_rng_t;

void tu_rng_seed(tu_rng_t *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng_t *r);
/* Uniform in [0, n); n > 0. */
uint64_t tu_rng_below(tu_rng_t *r, uint64_t n);
/* Uniform in [lo, hi]. */
uint64_t tu_rng_range(tu_rng_t *r, uint64_t lo, uint64_t hi);
/* 1 with probability percent/100. */
int tu_rng_chance(tu_rng_t *r, unsigned percent);

/* The seed of this test run: PS_SEED when set, else from the time and the
 * process id. Printed on one line the first time it is asked for. */
uint64_t tu_seed(void);

/* A fresh directory under $TMPDIR (or /tmp); malloc'd path. */
char *tu_mkdtemp(void);
/* Removes dir with everything in it and frees the path. Safe on NULL. */
void tu_rmtree(char *dir);
/* dir "/" name, malloc'd. */
char *tu_path(const char *dir, const char *name);

void tu_write_file(const char *path, const void *data, size_t len);
void tu_write_gzip(const char *path, const void *data, size_t len);
void tu_write_bgzf(const char *path, const void *data, size_t len);
/* Cuts the file to its first keep bytes. */
void tu_truncate(const char *path, uint64_t keep);
uint64_t tu_file_size(const char *path);
/* Reads a whole (plain or gzip) file through zlib; malloc'd, NUL-terminated. */
char *tu_read_gz(const char *path, size_t *len);
/* Asserts that path (plain or compressed) holds exactly want. */
void tu_assert_file(const char *path, const char *want);

/* 1 when the decimal number n appears in msg as a whole number (not as
 * part of a longer run of digits). */
int tu_msg_has_number(const char *msg, unsigned long n);

/* A real-data file: $PS_DATA/name where it is there, else the copy this
 * source tree ships in fasta/ (the E. coli genome), else NULL with the
 * reason in why. malloc'd. Uses no Check assertion, so that suites can ask
 * while they are built, before any test runs. */
char *tu_data_file(const char *name, char *why, size_t why_len);

/* What a real-data suite holds: the checks it added (their files found)
 * and those it left out for want of a file, which why names. */
typedef struct {
    int n_checks, n_skipped;
    char why[1024];
} tu_data_plan_t;

/* 1 when name is found (tu_data_file), counted in plan->n_checks; else 0,
 * counted in plan->n_skipped and named in plan->why. */
int tu_data_wanted(tu_data_plan_t *plan, const char *name);

/* Real-data suites are built as `Suite *suite_NAME(tu_data_plan_t *plan)`
 * and add each test through TU_ADD_DATA_TEST, naming the file it reads: a
 * test whose file is missing is left out and reported skipped, the others
 * run (check_main.c). */
#define TU_ADD_DATA_TEST(tc, tf, plan, name) \
    do { \
        if (tu_data_wanted((plan), (name))) tcase_add_test((tc), tf); \
    } while (0)

/* Suites that need what a machine may lack (real data, a usable GPU) are
 * built as `Suite *suite_NAME(int *n_checks)` and add each test through
 * TU_ADD_TEST, so that where they cannot run the runner (check_main.c)
 * reports how many checks it skipped, and why, instead of running them. */
#define TU_ADD_TEST(tc, tf, n_checks) \
    do { \
        tcase_add_test((tc), tf); \
        ++*(n_checks); \
    } while (0)

/* A random PROSITE MATRIX entry of 1 to max_len positions into t (cap
 * bytes); its length (test_profile.c). */
size_t tu_random_profile(tu_rng_t *r, char *t, size_t cap, int max_len, int id_di);
/* The same, read into *pr (the read must succeed); its length in t. */
size_t tu_random_profile_read(tu_rng_t *r, char *t, size_t cap, int max_len, int id_di, ps_profile_t *pr);

/* Number of entries in a directory, "." and ".." not counted. */
int tu_dir_entries(const char *dir);

typedef struct {
    char *p;
    size_t n, cap;
} tu_buf_t;

void tu_buf_put(tu_buf_t *b, const void *data, size_t len);
void tu_buf_putc(tu_buf_t *b, char c);
void tu_buf_puts(tu_buf_t *b, const char *s);
void tu_buf_printf(tu_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_buf_free(tu_buf_t *b);

/* A probe set and its automaton, made from strings (names = sequences);
 * ends the test on failure. */
typedef struct {
    ps_probes_t *p;
    ps_automaton_t *a;
} tu_built_t;

tu_built_t tu_build(uint32_t n, const char *const *seqs, ps_alpha_req_t req, int both);
void tu_built_free(tu_built_t *b);
/* The n DNA k-mers of codes 0 .. n-1 (all distinct), one strand. */
tu_built_t tu_build_distinct(int k, uint32_t n);

#endif
