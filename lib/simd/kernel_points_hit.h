/* SPDX-License-Identifier: MIT */
/* Body of the points' first-hit scan over a cell's body particles (kernel_points.h:
 * gr_point_hit_fn). The including file defines POINT_HIT_NAME and may define POINT_HIT_W (doubles per
 * vector: 4, the default, or 8). The test is push_from_particle's (lib/upsample/upsample.c), in the
 * same operations, so every build finds the same particle. */
#include <string.h>

#include "kernel_points.h"
#include "simd_vec.h"

#ifndef POINT_HIT_W
#define POINT_HIT_W 4
#endif

typedef GR_VEC(double, POINT_HIT_W) vdh;
typedef GR_VEC(int64_t, POINT_HIT_W) vlh;

static uint32_t POINT_HIT_NAME(const double *bx, const double *by, const double *bz, const double *reach2, uint32_t b,
                     uint32_t n, double x, double y, double z)
{
    vdh px, py, pz, zero;
    for (int l = 0; l < POINT_HIT_W; l++)
        px[l] = x, py[l] = y, pz[l] = z, zero[l] = 0.0;
    for (; b + POINT_HIT_W <= n; b += POINT_HIT_W) {
        vdh qx, qy, qz, r2;
        memcpy(&qx, bx + b, sizeof qx);
        memcpy(&qy, by + b, sizeof qy);
        memcpy(&qz, bz + b, sizeof qz);
        memcpy(&r2, reach2 + b, sizeof r2);
        const vdh dx = px - qx, dy = py - qy, dz = pz - qz;
        const vdh d2 = dx * dx + dy * dy + dz * dz;
        const vlh hit = (d2 < r2) & (d2 > zero);
        int64_t any = 0;
        for (int l = 0; l < POINT_HIT_W; l++)
            any |= hit[l];
        if (__builtin_expect(any != 0, 0))
            for (int l = 0; l < POINT_HIT_W; l++)
                if (hit[l])
                    return b + (uint32_t)l;
    }
    for (; b < n; b++) {
        const double dx = x - bx[b], dy = y - by[b], dz = z - bz[b], d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < reach2[b] && d2 > 0)
            return b;
    }
    return n;
}

#undef POINT_HIT_NAME
#undef POINT_HIT_W
