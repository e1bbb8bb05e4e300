/* SPDX-License-Identifier: MIT */
/* The points' sums and blend with AVX-512: 16 points per call, one 16-float register per sum
 * and 8 doubles at a time in the blend. Built with -mavx512f/dq/vl/bw (no FMA contraction: the
 * same bits as the other builds, lane for lane) and chosen at run time when the CPU has them. */
#define HR_SUMS_NAME pbd_hr_sums_v16avx512
#define HR_SUMS_LANES 16
#include "pbd_hr_sums_simd.h"
#define HR_BLEND_NAME pbd_hr_blend_v8avx512
#define HR_BLEND_W 8
#define HR_BLEND_LANES 16
#include "pbd_hr_blend_simd.h"
#define HR_HIT_NAME pbd_hr_hit_v8avx512
#define HR_HIT_W 8
#include "pbd_hr_hit_simd.h"
