/* testutil.c - helpers shared by the test suites (see testutil.h). */
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <htslib/bgzf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "alphabet.h"

void tu_rng_seed(tu_rng_t *r, uint64_t seed) { r->s = seed; }

uint64_t tu_rng_next(tu_rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tu_rng_below(tu_rng_t *r, uint64_t n) { return n ? tu_rng_next(r) % n : 0; }

uint64_t tu_rng_range(tu_rng_t *r, uint64_t lo, uint64_t hi)
{
    return lo + tu_rng_below(r, hi - lo + 1);
}

int tu_rng_chance(tu_rng_t *r, unsigned percent) { return tu_rng_below(r, 100) < percent; }

uint64_t tu_seed(void)
{
    static int have;
    static uint64_t seed;
    if (!have) {
        const char *env = getenv("PS_SEED");
        if (env && *env) {
            seed = strtoull(env, NULL, 10);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            seed = ((uint64_t)ts.tv_sec * 1000003u) ^ ((uint64_t)ts.tv_nsec << 7) ^
                   ((uint64_t)getpid() << 32);
            seed %= 1000000000000ull;
        }
        have = 1;
        printf("random tests: seed %llu (PS_SEED=%llu repeats this run)\n",
               (unsigned long long)seed, (unsigned long long)seed);
        fflush(stdout);
    }
    return seed;
}

char *tu_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *dir = tu_path(base, "probescan-test-XXXXXX");
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
    return dir;
}

static void rm_rec(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                char *sub = tu_path(path, e->d_name);
                rm_rec(sub);
                free(sub);
            }
            closedir(d);
        }
        if (rmdir(path) != 0) fprintf(stderr, "warning: rmdir %s: %s\n", path, strerror(errno));
    } else if (unlink(path) != 0) {
        fprintf(stderr, "warning: unlink %s: %s\n", path, strerror(errno));
    }
}

void tu_rmtree(char *dir)
{
    if (!dir) return;
    rm_rec(dir);
    free(dir);
}

char *tu_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    ck_assert_ptr_nonnull(p);
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

void tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_msg(len == 0 || fwrite(data, 1, len, f) == len, "write %s failed", path);
    ck_assert_msg(fclose(f) == 0, "close %s failed", path);
}

void tu_write_gzip(const char *path, const void *data, size_t len)
{
    gzFile g = gzopen(path, "wb6");
    ck_assert_msg(g != NULL, "gzopen %s failed", path);
    const char *p = data;
    while (len > 0) {
        unsigned part = len > (1u << 20) ? 1u << 20 : (unsigned)len;
        ck_assert_msg(gzwrite(g, p, part) == (int)part, "gzwrite %s failed", path);
        p += part;
        len -= part;
    }
    ck_assert_msg(gzclose(g) == Z_OK, "gzclose %s failed", path);
}

void tu_write_bgzf(const char *path, const void *data, size_t len)
{
    BGZF *b = bgzf_open(path, "w");
    ck_assert_msg(b != NULL, "bgzf_open %s failed", path);
    ck_assert_msg(len == 0 || bgzf_write(b, data, len) == (ssize_t)len, "bgzf_write %s failed",
                  path);
    ck_assert_msg(bgzf_close(b) == 0, "bgzf_close %s failed", path);
}

void tu_truncate(const char *path, uint64_t keep)
{
    ck_assert_msg(truncate(path, (off_t)keep) == 0, "truncate %s: %s", path, strerror(errno));
}

uint64_t tu_file_size(const char *path)
{
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
    return (uint64_t)st.st_size;
}

char *tu_read_gz(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    if (gzbuffer(g, 1u << 18) != 0) {
        gzclose(g);
        return NULL;
    }
    size_t cap = 1u << 22, n = 0;
    char *p = malloc(cap + 1);
    for (;;) {
        if (!p) break;
        if (cap - n < (1u << 20)) {
            char *q = realloc(p, cap * 2 + 1);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
        int got = gzread(g, p + n, (unsigned)(cap - n));
        if (got < 0) {
            free(p);
            p = NULL;
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (gzclose(g) != Z_OK) {
        free(p);
        p = NULL;
    }
    if (p) {
        p[n] = '\0';
        if (len) *len = n;
    }
    return p;
}

int tu_msg_has_number(const char *msg, unsigned long n)
{
    char num[32];
    snprintf(num, sizeof num, "%lu", n);
    size_t len = strlen(num);
    for (const char *p = msg; (p = strstr(p, num)) != NULL; p++) {
        int before = p > msg && p[-1] >= '0' && p[-1] <= '9';
        int after = p[len] >= '0' && p[len] <= '9';
        if (!before && !after) return 1;
    }
    return 0;
}

/* The source tree, where fasta/ is: the Makefile passes it, so that the
 * tests find it from any working directory. */
#ifndef TU_SRCDIR
#define TU_SRCDIR "."
#endif

/* dir "/" name malloc'd when that is a regular file; else NULL. */
static char *file_in(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *path = malloc(len);
    if (!path) return NULL;
    snprintf(path, len, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return path;
    free(path);
    return NULL;
}

char *tu_data_file(const char *name, char *why, size_t why_len)
{
    const char *dir = getenv("PS_DATA");
    char *path = dir && *dir ? file_in(dir, name) : NULL;
    if (!path) path = file_in(TU_SRCDIR "/fasta", name);
    if (!path) {
        if (dir && *dir) snprintf(why, why_len, "PS_DATA=%s has no %s", dir, name);
        else snprintf(why, why_len, "PS_DATA is not set: no %s", name);
    }
    return path;
}

int tu_data_wanted(tu_data_plan_t *plan, const char *name)
{
    char why[1024];
    char *path = tu_data_file(name, why, sizeof why);
    if (path) {
        free(path);
        plan->n_checks++;
        return 1;
    }
    plan->n_skipped++;
    /* The first reason whole, then each further missing file once. */
    size_t used = strlen(plan->why);
    if (!used) snprintf(plan->why, sizeof plan->why, "%s", why);
    else if (!strstr(plan->why, name)) snprintf(plan->why + used, sizeof plan->why - used, ", %s", name);
    return 0;
}

int tu_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void buf_reserve(tu_buf_t *b, size_t extra)
{
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    ck_assert_ptr_nonnull(p);
    b->p = p;
    b->cap = cap;
}

void tu_buf_put(tu_buf_t *b, const void *data, size_t len)
{
    buf_reserve(b, len);
    if (len) memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
}

void tu_buf_putc(tu_buf_t *b, char c) { tu_buf_put(b, &c, 1); }

void tu_buf_puts(tu_buf_t *b, const char *s) { tu_buf_put(b, s, strlen(s)); }

void tu_buf_printf(tu_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(need, 0);
    buf_reserve(b, (size_t)need);
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

void tu_buf_free(tu_buf_t *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

tu_built_t tu_build(uint32_t n, const char *const *seqs, ps_alpha_req_t req, int both)
{
    tu_built_t b = {0};
    ps_err_t err = {0};
    int rc = ps_probes_from_strings(&b.p, n, seqs, NULL, req, &err);
    ck_assert_msg(rc == PS_OK, "ps_probes_from_strings: %s", err.msg);
    rc = ps_automaton_build(&b.a, b.p, both, &err);
    ck_assert_msg(rc == PS_OK, "ps_automaton_build: %s", err.msg);
    return b;
}

void tu_built_free(tu_built_t *b)
{
    ps_automaton_free(b->a);
    ps_probes_free(b->p);
}

/* The n DNA k-mers of codes 0 .. n-1 (all distinct), one strand. */
tu_built_t tu_build_distinct(int k, uint32_t n)
{
    char **seqs = malloc(n * sizeof *seqs);
    ck_assert_ptr_nonnull(seqs);
    for (uint32_t i = 0; i < n; i++) {
        seqs[i] = malloc((size_t)k + 1);
        ck_assert_ptr_nonnull(seqs[i]);
        for (int j = 0; j < k; j++) seqs[i][j] = ps_alpha_letter(PS_DNA, (int)((i >> (2 * j)) & 3u));
        seqs[i][k] = 0;
    }
    tu_built_t b = tu_build(n, (const char *const *)seqs, PS_ALPHA_DNA, 0);
    for (uint32_t i = 0; i < n; i++) free(seqs[i]);
    free(seqs);
    return b;
}

void tu_assert_file(const char *path, const char *want)
{
    char *got = tu_read_gz(path, NULL);
    ck_assert_msg(got != NULL, "cannot read %s", path);
    ck_assert_str_eq(got, want);
    free(got);
}
