/* test_host.c - what the machine lets the process use (host.h), and the
 * automaton's memory estimate that count checks against it (automaton.h).
 * Limits are changed only in child processes, so that the test binary's
 * own limits (and a sanitizer's) stay as they were. */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "automaton.h"
#include "host.h"
#include "probes.h"
#include "testutil.h"

/* Runs fn in a child and returns the number it wrote back. */
static uint64_t in_child(uint64_t (*fn)(void *), void *arg)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        uint64_t v = fn(arg);
        ssize_t w = write(fd[1], &v, sizeof v);
        _exit(w == (ssize_t)sizeof v ? 0 : 1);
    }
    close(fd[1]);
    uint64_t v = 0;
    ck_assert_int_eq(read(fd[0], &v, sizeof v), (ssize_t)sizeof v);
    close(fd[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return v;
}

static uint64_t cpus_on_one(void *arg)
{
    (void)arg;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &set)) first = c;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 0;
    return (uint64_t)ps_host_cpus();
}

/* `taskset -c 0` means one CPU, whatever the machine has. */
START_TEST(test_cpus_follow_affinity)
{
    cpu_set_t set;
    ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
    int n = ps_host_cpus();
    ck_assert_int_ge(n, 1);
    ck_assert_int_le(n, CPU_COUNT(&set));
    ck_assert_uint_eq(in_child(cpus_on_one, NULL), 1);
}
END_TEST

static uint64_t memory_under(void *arg)
{
    struct rlimit r = {*(rlim_t *)arg, *(rlim_t *)arg};
    if (setrlimit(RLIMIT_DATA, &r) != 0) return 0;
    char what[64];
    uint64_t m = ps_host_memory(what, sizeof what);
    return strcmp(what, "ulimit -d") == 0 ? m : 1;
}

/* `ulimit -d` (and -v, a cgroup limit) bound what the process may use. */
START_TEST(test_memory_follows_limits)
{
    char what[64];
    uint64_t m = ps_host_memory(what, sizeof what);
    ck_assert_uint_gt(m, 16u << 20);
    ck_assert_msg(what[0], "no reason given");
    rlim_t lim = (rlim_t)(m / 2) & ~(rlim_t)4095;
    ck_assert_uint_eq(in_child(memory_under, &lim), (uint64_t)lim);
}
END_TEST

/* The estimate bounds what the build takes: its exact state count is the
 * automaton's, its bound is no smaller, and its bytes cover the table. */
START_TEST(test_automaton_estimate)
{
    tu_rng_t r;
    tu_rng_seed(&r, tu_seed() ^ 0x657374ull);
    for (int round = 0; round < 40; round++) {
        ps_alpha_t al = tu_rng_chance(&r, 60) ? PS_DNA : PS_PROTEIN;
        int k = (int)tu_rng_range(&r, 1, round % 4 ? 12 : 40), both = al == PS_DNA && tu_rng_chance(&r, 50);
        uint32_t n = (uint32_t)tu_rng_range(&r, 1, 3000);
        int sigma = al == PS_DNA ? 4 : 20;
        char **seqs = malloc(n * sizeof *seqs);
        ck_assert_ptr_nonnull(seqs);
        for (uint32_t i = 0; i < n; i++) {
            seqs[i] = malloc((size_t)k + 1);
            ck_assert_ptr_nonnull(seqs[i]);
            for (int j = 0; j < k; j++)
                seqs[i][j] = (al == PS_DNA ? "ACGT" : "ACDEFGHIKLMNPQRSTVWY")[tu_rng_below(&r, (uint64_t)sigma)];
            seqs[i][k] = 0;
        }
        ps_probes_t *p = NULL;
        ps_automaton_t *a = NULL;
        ps_err_t err;
        ck_assert_int_eq(ps_probes_from_strings(&p, n, (const char *const *)seqs, NULL,
                                                al == PS_DNA ? PS_ALPHA_DNA : PS_ALPHA_PROTEIN, &err),
                         PS_OK);
        ck_assert_int_eq(ps_automaton_build(&a, p, both, &err), PS_OK);
        uint64_t bound, exact, bytes_bound, bytes_exact;
        ck_assert_int_eq(ps_automaton_estimate(p, both, 0, &bound, &bytes_bound, &err), PS_OK);
        ck_assert_int_eq(ps_automaton_estimate(p, both, 1, &exact, &bytes_exact, &err), PS_OK);
        ck_assert_msg(exact == a->n_states, "seed %llu round %d: exact %llu, built %u",
                      (unsigned long long)tu_seed(), round, (unsigned long long)exact, a->n_states);
        ck_assert_uint_ge(bound, exact);
        ck_assert_uint_ge(bytes_bound, bytes_exact);
        ck_assert_uint_ge(bytes_exact, ps_automaton_table_bytes(a));
        ps_automaton_free(a);
        ps_probes_free(p);
        for (uint32_t i = 0; i < n; i++) free(seqs[i]);
        free(seqs);
    }
}
END_TEST

Suite *suite_host(void)
{
    Suite *s = suite_create("host");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cpus_follow_affinity);
    tcase_add_test(tc, test_memory_follows_limits);
    tcase_add_test(tc, test_automaton_estimate);
    suite_add_tcase(s, tc);
    return s;
}
