/* SPDX-License-Identifier: MIT */
/* The vectorised contact kernel, 2 lanes: SSE2 on x86-64, NEON on AArch64, plain code elsewhere. */
#include <math.h>

#define VW 2
typedef double vd __attribute__((vector_size(16)));
typedef long long vm __attribute__((vector_size(16)));

#if defined(__SSE2__)
#  include <emmintrin.h>
#  define VSQRT(x) ((vd)_mm_sqrt_pd((__m128d)(x)))
#else
static inline vd vsqrt_lanes(vd x)
{
    vd r;
    for (int l = 0; l < VW; l++)
        r[l] = sqrt(x[l]);
    return r;
}
#  define VSQRT(x) vsqrt_lanes(x)
#endif

#include "dem_kernel_simd.h"

void dem_kernel_hertz_history_v2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(0) }
void dem_kernel_hertz_history_epsd_v2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(1) }
