/* SPDX-License-Identifier: MIT */
/* Every kernel with AVX2: contacts in 4 double lanes; render points 8 per call (one register
 * per 8 floats or 4 doubles). Built with -mavx2 (no FMA: bit-identical to the baseline) and
 * used only when the CPU has AVX2 (simd_pick.c). */
#include <immintrin.h>

#define CONTACT_W 4
#define CONTACT_SQRT(x) ((kvd)_mm256_sqrt_pd((__m256d)(x)))
#define CONTACT_NAME contact_v4avx2
#define CONTACT_EPSD 0
#include "kernel_contact_body.h"
#define CONTACT_NAME contact_epsd_v4avx2
#define CONTACT_EPSD 1
#include "kernel_contact_body.h"

#define POINT_SUMS_NAME point_sums_v8avx2
#include "kernel_points_sums.h"
#define POINT_BLEND_NAME point_blend_v4avx2
#include "kernel_points_blend.h"
#define POINT_HIT_NAME point_hit_v4avx2
#include "kernel_points_hit.h"

#include "simd_kernels.h"

const gr_kernels gr_kernels_avx2 = {
    .isa = "avx2",
    .contact = contact_v4avx2,
    .contact_epsd = contact_epsd_v4avx2,
    .point_sums = point_sums_v8avx2,
    .point_blend = point_blend_v4avx2,
    .point_lanes = 8,
    .point_hit = point_hit_v4avx2,
};
