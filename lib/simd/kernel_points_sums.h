/* SPDX-License-Identifier: MIT */
/* Body of the upsampling sums (kernel_points.h). The including file defines POINT_SUMS_NAME and
 * may define POINT_SUMS_LANES (8, the default, or 16): the lanes this build fills. */
#include <string.h>

#include "kernel_points.h"
#include "simd_vec.h"

#ifndef POINT_SUMS_LANES
#define POINT_SUMS_LANES 8
#endif

typedef GR_VEC(float, POINT_SUMS_LANES) svf;
typedef GR_VEC(int32_t, POINT_SUMS_LANES) svi;

/* (macros, not functions: a vector passed by value would change the calling convention
 * between the builds) */
#if POINT_SUMS_LANES == 8
#define VF_SPLAT(x) ((svf){(x), (x), (x), (x), (x), (x), (x), (x)})
#elif POINT_SUMS_LANES == 16
#define VF_SPLAT(x) ((svf){(x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x)})
#else
#error "POINT_SUMS_LANES: 8 or 16"
#endif
#define VF_LOAD(v, p) GR_VLOAD(v, p)

static void POINT_SUMS_NAME(const gr_point_list *l, const float px[GR_POINT_LANES], const float py[GR_POINT_LANES],
                  const float pz[GR_POINT_LANES], float inv_r2, float out[5][GR_POINT_LANES])
{
    svf x, y, z;
    VF_LOAD(x, px);
    VF_LOAD(y, py);
    VF_LOAD(z, pz);
    const svf ir = VF_SPLAT(inv_r2), one = VF_SPLAT(1.0f), zero = VF_SPLAT(0.0f);
    svf aw = zero, ag = zero, ax = zero, ay = zero, az = zero;
    for (uint32_t j = 0; j < l->n; j++) {
        const svf dx = x - VF_SPLAT(l->x[j]), dy = y - VF_SPLAT(l->y[j]), dz = z - VF_SPLAT(l->z[j]);
        svf t = one - (dx * dx + dy * dy + dz * dz) * ir;
        t = (svf)((svi)t & (t > zero)); /* max(t, 0) */
        const svf w = t * t * t;
        aw += w;
        ag += w * VF_SPLAT(l->g[j]);
        ax += w * VF_SPLAT(l->vx[j]);
        ay += w * VF_SPLAT(l->vy[j]);
        az += w * VF_SPLAT(l->vz[j]);
    }
    memcpy(out[0], &aw, sizeof aw);
    memcpy(out[1], &ag, sizeof ag);
    memcpy(out[2], &ax, sizeof ax);
    memcpy(out[3], &ay, sizeof ay);
    memcpy(out[4], &az, sizeof az);
}

#undef VF_SPLAT
#undef VF_LOAD
#undef POINT_SUMS_NAME
#undef POINT_SUMS_LANES
