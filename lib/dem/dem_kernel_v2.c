/* SPDX-License-Identifier: MIT */
/* The vectorised contact kernel, 2 lanes (lanes_v2.h: SSE2 on x86-64, plain code elsewhere). */
#include "../core/lanes_v2.h"
#include "dem_kernel_simd.h"

void dem_kernel_hertz_history_v2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(0) }
void dem_kernel_hertz_history_epsd_v2(struct dem_batch *b, const dem_kernel_consts *c) { KERNEL_BODY(1) }
