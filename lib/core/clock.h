/* SPDX-License-Identifier: MIT */
/* A monotonic clock for the solvers' time statistics (never for results: nothing a step
 * computes may depend on it). */
#ifndef GR_CORE_CLOCK_H
#define GR_CORE_CLOCK_H

#include <time.h>

/// Seconds since an arbitrary fixed point (CLOCK_MONOTONIC).
static inline double gr_clock_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif /* GR_CORE_CLOCK_H */
