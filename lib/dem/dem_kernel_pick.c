/* SPDX-License-Identifier: MIT */
/* Run-time choice of the contact kernel: the widest vectors this CPU has. All kernels give
 * bit-identical results, so the choice never changes a simulation. */
#include "../core/cpu.h"
#include "dem_batch.h"

dem_kernel_fn *dem_pick_kernel(bool epsd)
{
#if defined(GR_HAVE_AVX512)
    if (gr_cpu_has_avx512())
        return epsd ? dem_kernel_hertz_history_epsd_v8avx512 : dem_kernel_hertz_history_v8avx512;
#endif
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        return epsd ? dem_kernel_hertz_history_epsd_v4avx2 : dem_kernel_hertz_history_v4avx2;
#endif
    return epsd ? dem_kernel_hertz_history_epsd_v2 : dem_kernel_hertz_history_v2;
}
