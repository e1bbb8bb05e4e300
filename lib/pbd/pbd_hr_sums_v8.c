/* SPDX-License-Identifier: MIT */
/* The points' sums and blend in the baseline instruction set (SSE2 on x86-64: two registers
 * per 8 float lanes or 4 double lanes), and the choice of build at run time. */
#include "../core/cpu.h"
#define HR_SUMS_NAME pbd_hr_sums_v8
#include "pbd_hr_sums_simd.h"
#define HR_BLEND_NAME pbd_hr_blend_v4
#include "pbd_hr_blend_simd.h"
#define HR_HIT_NAME pbd_hr_hit_v4
#include "pbd_hr_hit_simd.h"

pbd_hr_kernels pbd_pick_hr(void)
{
#if defined(GR_HAVE_AVX512)
    if (gr_cpu_has_avx512())
        return (pbd_hr_kernels){pbd_hr_sums_v16avx512, pbd_hr_blend_v8avx512, 16, pbd_hr_hit_v8avx512};
#endif
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        return (pbd_hr_kernels){pbd_hr_sums_v8avx2, pbd_hr_blend_v4avx2, 8, pbd_hr_hit_v4avx2};
#endif
    return (pbd_hr_kernels){pbd_hr_sums_v8, pbd_hr_blend_v4, 8, pbd_hr_hit_v4};
}
