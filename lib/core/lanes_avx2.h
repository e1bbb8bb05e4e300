/* SPDX-License-Identifier: MIT */
/* 4 lanes of doubles with AVX2 (see lanes.h). Only for files built with -mavx2 (no FMA: the
 * results stay bit-identical to the 2-lane build), called when the CPU has AVX2. */
#ifndef GR_CORE_LANES_AVX2_H
#define GR_CORE_LANES_AVX2_H

#include <immintrin.h>

#define VW 4
typedef double vd __attribute__((vector_size(32)));
typedef long long vm __attribute__((vector_size(32)));
#define VSQRT(x) ((vd)_mm256_sqrt_pd((__m256d)(x)))

#include "lanes.h"

#endif /* GR_CORE_LANES_AVX2_H */
