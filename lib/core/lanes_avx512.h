/* SPDX-License-Identifier: MIT */
/* 8 lanes of doubles with AVX-512 (see lanes.h). Only for files built with the AVX-512 flags
 * (no FMA contraction: the results stay bit-identical to the 2-lane build), called when the
 * CPU has them (gr_cpu_has_avx512). */
#ifndef GR_CORE_LANES_AVX512_H
#define GR_CORE_LANES_AVX512_H

#include <immintrin.h>

#define VW 8
typedef double vd __attribute__((vector_size(64)));
typedef long long vm __attribute__((vector_size(64)));
#define VSQRT(x) ((vd)_mm512_sqrt_pd((__m512d)(x)))

#include "lanes.h"

#endif /* GR_CORE_LANES_AVX512_H */
