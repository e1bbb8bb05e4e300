/* SPDX-License-Identifier: MIT */
/* The vectorised contact kernel, 4 lanes of AVX2. Built with -mavx2 (no FMA: results stay
 * bit-identical to the other kernels) and chosen at run time when the CPU has AVX2. */
#include "../core/lanes_avx2.h"
#include "dem_kernel_simd.h"

void dem_kernel_hertz_history_v4avx2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(0) }
void dem_kernel_hertz_history_epsd_v4avx2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(1) }
