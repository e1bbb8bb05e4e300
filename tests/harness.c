/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <stdlib.h>
#include <time.h>

int harness_failures = 0;
const char *harness_current = "";

int harness_main(int argc, char **argv, const harness_test *tests, int count)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int ran = 0, failed_tests = 0;
    for (int i = 0; i < count; i++) {
        if (only && strcmp(only, tests[i].name) != 0)
            continue;
        harness_current = tests[i].name;
        int before = harness_failures;
        clock_t t0 = clock();
        tests[i].fn();
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        ran++;
        if (harness_failures != before)
            failed_tests++;
        printf("%s %s (%.2f s)\n", harness_failures != before ? "FAIL" : "ok  ", tests[i].name, secs);
    }
    if (ran == 0) {
        fprintf(stderr, "no test named '%s'\n", only ? only : "");
        return 2;
    }
    printf("%d tests, %d failed\n", ran, failed_tests);
    return failed_tests ? 1 : 0;
}
