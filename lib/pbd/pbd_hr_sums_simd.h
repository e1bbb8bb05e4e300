/* SPDX-License-Identifier: MIT */
/* Body of the upsampling sums (pbd_hr_sums.h). The including file defines HR_SUMS_NAME. */
#include <string.h>

#include "pbd_hr_sums.h"

typedef float vf __attribute__((vector_size(32)));
typedef int32_t vi __attribute__((vector_size(32)));

/* (macros, not functions: a 32-byte vector passed by value would change the calling
 * convention between the builds) */
#define VF_SPLAT(x) ((vf){(x), (x), (x), (x), (x), (x), (x), (x)})
#define VF_LOAD(v, p) memcpy(&(v), (p), sizeof(v))

void HR_SUMS_NAME(const pbd_hr_list *l, float px, float py, float pz, float inv_r2, double out[5])
{
    const vf x = VF_SPLAT(px), y = VF_SPLAT(py), z = VF_SPLAT(pz), ir = VF_SPLAT(inv_r2);
    const vf one = VF_SPLAT(1.0f), zero = VF_SPLAT(0.0f);
    vf aw = zero, ag = zero, ax = zero, ay = zero, az = zero;
    for (uint32_t b = 0; b < l->n; b += 8) {
        vf ex, ey, ez, eg, evx, evy, evz;
        VF_LOAD(ex, l->x + b);
        VF_LOAD(ey, l->y + b);
        VF_LOAD(ez, l->z + b);
        VF_LOAD(eg, l->g + b);
        VF_LOAD(evx, l->vx + b);
        VF_LOAD(evy, l->vy + b);
        VF_LOAD(evz, l->vz + b);
        const vf dx = x - ex, dy = y - ey, dz = z - ez;
        vf t = one - (dx * dx + dy * dy + dz * dz) * ir;
        t = (vf)((vi)t & (t > zero)); /* max(t, 0) */
        const vf w = t * t * t;
        aw += w;
        ag += w * eg;
        ax += w * evx;
        ay += w * evy;
        az += w * evz;
    }
    /* lanes added as a tree (three dependent adds, not eight: the caller waits for them) */
    const vf acc[5] = {aw, ag, ax, ay, az};
    for (int a = 0; a < 5; a++) {
        const vf v = acc[a];
        out[a] = (double)(((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7])));
    }
}
