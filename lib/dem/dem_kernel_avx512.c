/* SPDX-License-Identifier: MIT */
/* The vectorised contact kernel, 8 lanes of AVX-512. Built with the AVX-512 flags (no FMA
 * contraction: results stay bit-identical to the other kernels) and chosen at run time when
 * the CPU has them. */
#include "../core/lanes_avx512.h"
#include "dem_kernel_simd.h"

void dem_kernel_hertz_history_v8avx512(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(0) }
void dem_kernel_hertz_history_epsd_v8avx512(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(1) }
