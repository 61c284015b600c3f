/* Runs every Check suite linked into the test binary. Suites are optional
 * (weak), so a build without one of the test files still runs the rest. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define SUITES(X) X(pack) X(automaton) X(probes) X(output) X(seqio) X(random) X(data) X(gpu) X(mixed) X(merge)
#define DECL(n) Suite *suite_##n(void) __attribute__((weak));
SUITES(DECL)

int main(void)
{
    SRunner *sr = NULL;
#define ADD(n) \
    if (suite_##n) { \
        if (!sr) sr = srunner_create(suite_##n()); \
        else srunner_add_suite(sr, suite_##n()); \
    }
    SUITES(ADD)
    if (!sr) {
        fprintf(stderr, "no test suites linked\n");
        return EXIT_FAILURE;
    }
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
