/* SPDX-License-Identifier: MIT */
/* What the CPU can run, for the kernels chosen at run time (every choice gives the same bits). */
#ifndef GR_CORE_CPU_H
#define GR_CORE_CPU_H

#include "common.h"

/// Was the library built with the AVX2 kernels, and does this CPU have AVX2?
static inline bool gr_cpu_has_avx2(void)
{
#if defined(GR_HAVE_AVX2)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/// Was the library built with the AVX-512 kernels, and does this CPU have AVX-512 F, DQ, VL
/// and BW (what they are compiled for)?
static inline bool gr_cpu_has_avx512(void)
{
#if defined(GR_HAVE_AVX512)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
    return false;
#endif
}

#endif /* GR_CORE_CPU_H */
