/* SPDX-License-Identifier: MIT */
/* Every kernel in the baseline instruction set: SSE2 on x86-64, plain code elsewhere. Contacts
 * in 2 double lanes; render points 8 per call (two registers per 8 floats, 4 doubles at a
 * time in the blend). */
#if defined(__SSE2__)
#include <emmintrin.h>
#define CONTACT_SQRT(x) ((kvd)_mm_sqrt_pd((__m128d)(x)))
#else
#define CONTACT_SQRT(x) contact_sqrt_lanes(x)
#endif
#define CONTACT_W 2
#if !defined(__SSE2__)
#include <math.h>
typedef double contact_sqrt_vd __attribute__((vector_size(16)));
static inline contact_sqrt_vd contact_sqrt_lanes(contact_sqrt_vd x)
{
    contact_sqrt_vd r;
    for (int l = 0; l < 2; l++)
        r[l] = sqrt(x[l]);
    return r;
}
#endif

#define CONTACT_NAME contact_v2
#define CONTACT_EPSD 0
#include "kernel_contact_body.h"
#define CONTACT_NAME contact_epsd_v2
#define CONTACT_EPSD 1
#include "kernel_contact_body.h"

#define POINT_SUMS_NAME point_sums_v8
#include "kernel_points_sums.h"
#define POINT_BLEND_NAME point_blend_v4
#include "kernel_points_blend.h"
#define POINT_HIT_NAME point_hit_v4
#include "kernel_points_hit.h"

#include "simd_kernels.h"

const gr_kernels gr_kernels_base = {
    .isa = "base",
    .contact = contact_v2,
    .contact_epsd = contact_epsd_v2,
    .point_sums = point_sums_v8,
    .point_blend = point_blend_v4,
    .point_lanes = 8,
    .point_hit = point_hit_v4,
};
