/* SPDX-License-Identifier: MIT */
/* A tiny test harness: one binary per group of suites, `prog [suite]` runs one suite. */
#ifndef GR_TEST_HARNESS_H
#define GR_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int harness_failures;
extern const char *harness_current;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "  FAIL %s:%d [%s] %s\n", __FILE__, __LINE__, harness_current, #cond); \
            harness_failures++;                                                            \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/// Like CHECK, printing both numbers.
#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double a_ = (a), b_ = (b), t_ = (tol);                                             \
        if (!(fabs(a_ - b_) <= t_)) {                                                      \
            fprintf(stderr, "  FAIL %s:%d [%s] |%s - %s| = |%.9g - %.9g| > %g\n", __FILE__, __LINE__, \
                    harness_current, #a, #b, a_, b_, t_);                                  \
            harness_failures++;                                                            \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/// A call that must return GR_OK (prints the world's last error otherwise).
#define CHECK_OK(world, expr)                                                              \
    do {                                                                                   \
        gr_status s_ = (expr);                                                             \
        if (s_ != GR_OK) {                                                                 \
            fprintf(stderr, "  FAIL %s:%d [%s] %s -> %s (%s)\n", __FILE__, __LINE__, harness_current, #expr, \
                    gr_status_string(s_), (world) ? gr_world_last_error(world) : "");      \
            harness_failures++;                                                            \
            return;                                                                        \
        }                                                                                  \
    } while (0)

/// A call that must fail with a given status.
#define CHECK_STATUS(expected, expr)                                                       \
    do {                                                                                   \
        gr_status s_ = (expr);                                                             \
        if (s_ != (expected)) {                                                            \
            fprintf(stderr, "  FAIL %s:%d [%s] %s -> %s, expected %s\n", __FILE__, __LINE__, harness_current, \
                    #expr, gr_status_string(s_), gr_status_string(expected));              \
            harness_failures++;                                                            \
            return;                                                                        \
        }                                                                                  \
    } while (0)

typedef struct harness_test {
    const char *name;
    void (*fn)(void);
} harness_test;

/// Run the tests named in argv[1] (all when absent); returns the process exit code.
int harness_main(int argc, char **argv, const harness_test *tests, int count);

#endif /* GR_TEST_HARNESS_H */
