/* SPDX-License-Identifier: MIT */
/* The PBD pair kernel, 8 lanes of AVX-512. Built with the AVX-512 flags (no FMA contraction:
 * bit-identical to the 2-lane build) and chosen at run time when the CPU has them. */
#include "../core/lanes_avx512.h"
#define KERNEL_NAME pbd_kernel_v8avx512
#include "pbd_kernel_simd.h"
