/* check_main.c - runs the Check suites linked into the test binary.
 *
 *   check_probescan         every suite that can run on this machine; each
 *                           one that cannot, or the tests of a real-data
 *                           suite whose files are missing, are reported in
 *                           one line, "suite NAME: N skipped (gpu|data:
 *                           reason)", and neither run nor counted as passed
 *   check_probescan --gpu   only the suites that need a GPU; fails, saying
 *                           why, when any of them cannot run, except the
 *                           two-GPU suite on a machine with one GPU, which
 *                           is reported skipped
 *
 * Check's own CK_RUN_SUITE / CK_RUN_CASE narrow either further.
 *
 * Suites are optional (weak), so a build without one of the test files
 * still runs the rest. Suites that need a usable GPU are built with a count
 * of their checks (TU_ADD_TEST in testutil.h); real-data suites add only the
 * tests whose files are found and count the others (TU_ADD_DATA_TEST), so
 * that a PS_DATA holding some of the files runs what it can. htslib's own
 * log is off, as in the program (main.c): tests that feed it damaged input
 * check our messages, and its lines would only be noise. Whether a GPU is
 * usable is asked once, in a child process: Check forks each test and a CUDA
 * context does not survive a fork, so this process never starts CUDA. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <htslib/hts.h>

#include "engine_gpu.h"
#include "testutil.h"

enum { NEED_DATA = 1, NEED_GPU = 2, NEED_GPU2 = 4, NEED_CUDA = 8 };
enum { WHY_LEN = 1024 }; /* a skip reason, as tu_data_plan_t holds it */

/* Suites that run everywhere. */
#define PLAIN_SUITES(X) \
    X(pack) X(automaton) X(probes) X(output) X(outfile) X(seqio) X(random) X(scan) X(host) X(gpu_plan) X(gpus) X(mixed) X(merge) X(pattern) X(prosite) X(guides) X(bulges) X(profile) X(twobit)
/* Suites that need a usable GPU. */
/* Suites that need two usable GPUs (gpu2: where fewer are visible it is
 * reported skipped, and check_probescan --gpu still passes on one GPU). */
/* Suites that need a build with CUDA (its device code run on the host),
 * not a GPU. */
#define NEEDY_SUITES(X) X(gpu, NEED_GPU) X(gpu2, NEED_GPU | NEED_GPU2) X(gpu_host, NEED_CUDA)
/* Suites over real data ($PS_DATA), and whether they need a GPU too. */
#define DATA_SUITES(X) X(data, NEED_DATA) X(gpu_data, NEED_GPU | NEED_DATA)

#define DECL_PLAIN(n) Suite *suite_##n(void) __attribute__((weak));
#define DECL_NEEDY(n, needs) Suite *suite_##n(int *n_checks) __attribute__((weak));
#define DECL_DATA(n, needs) Suite *suite_##n(tu_data_plan_t *plan) __attribute__((weak));
PLAIN_SUITES(DECL_PLAIN)
NEEDY_SUITES(DECL_NEEDY)
DATA_SUITES(DECL_DATA)

/* ps_gpu_usable(0) and ps_gpu_usable(1) asked in a child process; the
 * answer comes back through a pipe as two bytes ('1' usable, '0' not: GPU
 * 0, then GPU 1) and GPU 0's reason. *second: GPU 1 is usable too. */
static int gpu_usable(char *why, size_t why_len, int *second)
{
    *second = 0;
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(why, why_len, "cannot ask: pipe: %s", strerror(errno));
        return 0;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_len, "cannot ask: fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    if (pid == 0) {
        char msg[512] = {0}, why1[256];
        msg[0] = ps_gpu_usable(0, msg + 2, sizeof msg - 2) ? '1' : '0';
        msg[1] = msg[0] == '1' && ps_gpu_usable(1, why1, sizeof why1) ? '1' : '0';
        size_t len = 2 + strlen(msg + 2);
        _exit(write(fd[1], msg, len) == (ssize_t)len ? 0 : 1);
    }
    close(fd[1]);
    char msg[512];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(fd[0], msg + got, sizeof msg - 1 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        if (got == sizeof msg - 1) break;
    }
    msg[got] = '\0';
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            snprintf(why, why_len, "the GPU check ended with signal %d", WTERMSIG(status));
        else
            snprintf(why, why_len, "the GPU check gave no answer (status %d)", WEXITSTATUS(status));
        return 0;
    }
    snprintf(why, why_len, "%s", got > 1 ? msg + 2 : "");
    *second = got > 1 && msg[1] == '1';
    return msg[0] == '1';
}

/* Reports n checks of suite name skipped, for a reason of kind what; s (if
 * not NULL) goes to the runner that is never run, which frees it. */
static void skip_suite(SRunner *unrun, Suite *s, const char *name, int n, const char *what, const char *why,
                       int *n_skipped, char first_why[WHY_LEN])
{
    if (s) srunner_add_suite(unrun, s);
    printf("suite %s: %d skipped (%s: %s)\n", name, n, what, why);
    *n_skipped += n;
    if (!*first_why) snprintf(first_why, WHY_LEN, "%s", why);
}

static int usage(FILE *f)
{
    fprintf(f, "usage: check_probescan [--gpu]\n"
               "  --gpu  run only the suites that need a GPU; fail when one cannot run\n");
    return f == stdout ? EXIT_SUCCESS : 2;
}

int main(int argc, char **argv)
{
    int gpu_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpu")) gpu_only = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(stdout);
        else return usage(stderr);
    }

    hts_set_log_level(HTS_LOG_OFF);
    char gpu_why[512];
    int have_gpu2;
    int have_gpu = gpu_usable(gpu_why, sizeof gpu_why, &have_gpu2);
    if (have_gpu) printf("gpu: %s%s\n", gpu_why, have_gpu2 ? "; GPU 1 usable too" : "");
    int n_skipped_gpu2 = 0; /* two-GPU checks on a machine with one GPU */
    char gpu2_why[WHY_LEN] = "";

    /* Suites that cannot run are still built, to count their checks, and
     * handed to a runner that is never run, which frees them. */
    SRunner *sr = srunner_create(NULL), *unrun = srunner_create(NULL);
    int n_run = 0, n_skipped = 0;
    char first_why[WHY_LEN] = "";
#define ADD_PLAIN(n) \
    if (suite_##n && !gpu_only) { \
        srunner_add_suite(sr, suite_##n()); \
        n_run++; \
    }
#define ADD_NEEDY(n, needs) \
    if (suite_##n && (!gpu_only || ((needs) & NEED_GPU))) { \
        int checks = 0; \
        Suite *s = suite_##n(&checks); \
        if (((needs) & NEED_GPU) && !have_gpu) skip_suite(unrun, s, #n, checks, "gpu", gpu_why, &n_skipped, first_why); \
        else if (((needs) & NEED_CUDA) && !PS_CUDA_ARCHS[0]) \
            skip_suite(unrun, s, #n, checks, "cuda", "this build has no CUDA (make NO_CUDA=1, or no nvcc)", &n_skipped, \
                       first_why); \
        else if (((needs) & NEED_GPU2) && !have_gpu2) \
            skip_suite(unrun, s, #n, checks, "gpu", "two GPUs needed, and GPU 1 is not usable here", &n_skipped_gpu2, \
                       gpu2_why); \
        else { \
            srunner_add_suite(sr, s); \
            n_run++; \
        } \
    }
/* A real-data suite runs the tests whose files it found and reports the
 * others skipped; without a GPU, gpu_data skips them all. */
#define ADD_DATA(n, needs) \
    if (suite_##n && (!gpu_only || ((needs) & NEED_GPU))) { \
        tu_data_plan_t plan = {0, 0, ""}; \
        Suite *s = suite_##n(&plan); \
        if (((needs) & NEED_GPU) && !have_gpu) \
            skip_suite(unrun, s, #n, plan.n_checks + plan.n_skipped, "gpu", gpu_why, &n_skipped, first_why); \
        else { \
            if (plan.n_skipped) \
                skip_suite(NULL, NULL, #n, plan.n_skipped, "data", plan.why, &n_skipped, first_why); \
            srunner_add_suite(plan.n_checks ? sr : unrun, s); \
            n_run += plan.n_checks > 0; \
        } \
    }
    PLAIN_SUITES(ADD_PLAIN)
    NEEDY_SUITES(ADD_NEEDY)
    DATA_SUITES(ADD_DATA)
    fflush(stdout);

    int failed = 0;
    if (n_run) {
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
    }
    srunner_free(sr);
    srunner_free(unrun);
    if (!n_run && !n_skipped) {
        fprintf(stderr, "check_probescan: no test suites linked%s\n", gpu_only ? " that need a GPU" : "");
        return EXIT_FAILURE;
    }
    if (gpu_only && n_skipped) {
        fprintf(stderr, "check_probescan --gpu: %d GPU checks could not run: %s\n", n_skipped, first_why);
        return EXIT_FAILURE;
    }
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
