/* SPDX-License-Identifier: MIT */
/* The upsampling sums in the baseline instruction set (SSE2 on x86-64: two registers per 8
 * lanes), and the choice of build at run time. */
#include "../core/cpu.h"
#define HR_SUMS_NAME pbd_hr_sums_v8
#include "pbd_hr_sums_simd.h"

pbd_hr_sums_fn *pbd_pick_hr_sums(void)
{
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        return pbd_hr_sums_v8avx2;
#endif
    return pbd_hr_sums_v8;
}
