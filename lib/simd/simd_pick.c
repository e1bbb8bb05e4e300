/* SPDX-License-Identifier: MIT */
/* The one run-time choice of kernels: the widest table this CPU runs (simd_kernels.h). */
#include "../core/cpu.h"
#include "simd_kernels.h"

const gr_kernels *gr_kernels_pick(void)
{
#if defined(GR_HAVE_AVX512)
    if (gr_cpu_has_avx512())
        return &gr_kernels_avx512;
#endif
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        return &gr_kernels_avx2;
#endif
    return &gr_kernels_base;
}
