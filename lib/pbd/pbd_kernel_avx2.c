/* SPDX-License-Identifier: MIT */
/* The PBD pair kernel, 4 lanes of AVX2. Built with -mavx2 (no FMA: bit-identical to the
 * 2-lane build) and chosen at run time when the CPU has AVX2. */
#include "../core/lanes_avx2.h"
#define KERNEL_NAME pbd_kernel_v4avx2
#include "pbd_kernel_simd.h"
