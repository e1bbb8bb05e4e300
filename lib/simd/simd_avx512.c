/* SPDX-License-Identifier: MIT */
/* Every kernel with AVX-512 (Zen 4/5, Intel since Skylake-X): contacts in 8 double lanes;
 * render points 16 per call (one 16-float register per sum, 8 doubles at a time in the
 * blend). Built with -mavx512f/dq/vl/bw (no FMA contraction: bit-identical to the baseline)
 * and used only when the CPU has them (simd_pick.c). */
#include <immintrin.h>

#define CONTACT_W 8
#define CONTACT_SQRT(x) ((kvd)_mm512_sqrt_pd((__m512d)(x)))
#define CONTACT_NAME contact_v8avx512
#define CONTACT_EPSD 0
#include "kernel_contact_body.h"
#define CONTACT_NAME contact_epsd_v8avx512
#define CONTACT_EPSD 1
#include "kernel_contact_body.h"

#define POINT_SUMS_NAME point_sums_v16avx512
#define POINT_SUMS_LANES 16
#include "kernel_points_sums.h"
#define POINT_BLEND_NAME point_blend_v8avx512
#define POINT_BLEND_W 8
#define POINT_BLEND_LANES 16
#include "kernel_points_blend.h"
#define POINT_HIT_NAME point_hit_v8avx512
#define POINT_HIT_W 8
#include "kernel_points_hit.h"

#include "simd_kernels.h"

const gr_kernels gr_kernels_avx512 = {
    .isa = "avx512",
    .contact = contact_v8avx512,
    .contact_epsd = contact_epsd_v8avx512,
    .point_sums = point_sums_v16avx512,
    .point_blend = point_blend_v8avx512,
    .point_lanes = 16,
    .point_hit = point_hit_v8avx512,
};
