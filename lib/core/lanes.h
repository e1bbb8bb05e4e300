/* SPDX-License-Identifier: MIT */
/* Vector lanes for the contact kernels (DEM, PBD), with GCC/Clang vector extensions. The
 * including file first includes lanes_v2.h or lanes_avx2.h (which define VW, the lane count,
 * vd / vm, double and 64-bit integer vectors of VW lanes, and VSQRT). Every operation is
 * elementwise IEEE, so a kernel gives the same bits at any width. */
#ifndef GR_CORE_LANES_H
#define GR_CORE_LANES_H

#include <string.h>

static inline vd vload(const double *p)
{
    vd v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void vstore(double *p, vd v) { memcpy(p, &v, sizeof v); }

static inline vd vsplat(double x)
{
    vd v;
    for (int l = 0; l < VW; l++)
        v[l] = x;
    return v;
}

/* m ? a : b, lane by lane (m is all ones or all zeros per lane) */
static inline vd vsel(vm m, vd a, vd b) { return (vd)((m & (vm)a) | (~m & (vm)b)); }

#endif /* GR_CORE_LANES_H */
