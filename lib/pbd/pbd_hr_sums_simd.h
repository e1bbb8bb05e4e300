/* SPDX-License-Identifier: MIT */
/* Body of the upsampling sums (pbd_hr_sums.h). The including file defines HR_SUMS_NAME and
 * may define HR_SUMS_LANES (8, the default, or 16): the lanes this build fills. */
#include <string.h>

#include "pbd_hr_sums.h"

#ifndef HR_SUMS_LANES
#define HR_SUMS_LANES 8
#endif

typedef float vf __attribute__((vector_size(4 * HR_SUMS_LANES)));
typedef int32_t vi __attribute__((vector_size(4 * HR_SUMS_LANES)));

/* (macros, not functions: a vector passed by value would change the calling convention
 * between the builds) */
#if HR_SUMS_LANES == 8
#define VF_SPLAT(x) ((vf){(x), (x), (x), (x), (x), (x), (x), (x)})
#elif HR_SUMS_LANES == 16
#define VF_SPLAT(x) ((vf){(x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x), (x)})
#else
#error "HR_SUMS_LANES: 8 or 16"
#endif
#define VF_LOAD(v, p) memcpy(&(v), (p), sizeof(v))

void HR_SUMS_NAME(const pbd_hr_list *l, const float px[PBD_HR_LANES], const float py[PBD_HR_LANES],
                  const float pz[PBD_HR_LANES], float inv_r2, float out[5][PBD_HR_LANES])
{
    vf x, y, z;
    VF_LOAD(x, px);
    VF_LOAD(y, py);
    VF_LOAD(z, pz);
    const vf ir = VF_SPLAT(inv_r2), one = VF_SPLAT(1.0f), zero = VF_SPLAT(0.0f);
    vf aw = zero, ag = zero, ax = zero, ay = zero, az = zero;
    for (uint32_t j = 0; j < l->n; j++) {
        const vf dx = x - VF_SPLAT(l->x[j]), dy = y - VF_SPLAT(l->y[j]), dz = z - VF_SPLAT(l->z[j]);
        vf t = one - (dx * dx + dy * dy + dz * dz) * ir;
        t = (vf)((vi)t & (t > zero)); /* max(t, 0) */
        const vf w = t * t * t;
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
