/* SPDX-License-Identifier: MIT */
/* The points' sums and blend with AVX2 (one register per 8 float or 4 double lanes). Built
 * with -mavx2 (no FMA: bit-identical to the baseline build) and chosen at run time when the
 * CPU has AVX2. */
#define HR_SUMS_NAME pbd_hr_sums_v8avx2
#include "pbd_hr_sums_simd.h"
#define HR_BLEND_NAME pbd_hr_blend_v4avx2
#include "pbd_hr_blend_simd.h"
#define HR_HIT_NAME pbd_hr_hit_v4avx2
#include "pbd_hr_hit_simd.h"
