/* SPDX-License-Identifier: MIT */
/* 2 lanes of doubles: SSE2 on x86-64, plain code elsewhere (see lanes.h). */
#ifndef GR_CORE_LANES_V2_H
#define GR_CORE_LANES_V2_H

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

#include "lanes.h"

#endif /* GR_CORE_LANES_V2_H */
