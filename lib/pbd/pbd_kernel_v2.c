/* SPDX-License-Identifier: MIT */
/* The PBD pair kernel, 2 lanes (lanes_v2.h: SSE2 on x86-64, plain code elsewhere), and the
 * choice of kernel at run time. */
#include "../core/cpu.h"
#include "../core/lanes_v2.h"
#define KERNEL_NAME pbd_kernel_v2
#include "pbd_kernel_simd.h"

pbd_kernel_fn *pbd_pick_kernel(void)
{
#if defined(GR_HAVE_AVX512)
    if (gr_cpu_has_avx512())
        return pbd_kernel_v8avx512;
#endif
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        return pbd_kernel_v4avx2;
#endif
    return pbd_kernel_v2;
}
