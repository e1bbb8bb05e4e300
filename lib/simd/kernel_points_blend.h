/* SPDX-License-Identifier: MIT */
/* Body of the points' blend and move in lanes (kernel_points.h: gr_point_blend_fn). The including
 * file defines POINT_BLEND_NAME and may define POINT_BLEND_W (doubles per vector: 4, the default, or
 * 8) and POINT_BLEND_LANES (the lanes this build fills: 8, the default, or 16). Every lane does,
 * in double, the operations of the one-point code in lib/upsample/upsample.c (blend_velocity, the rest
 * test, the move in pieces, the pushes out of planes with their friction, the other exact
 * surfaces' reach tests) in the same order, so a point's result is bit-identical whichever way
 * it goes. */
#include <math.h>
#include <string.h>

#include "kernel_points.h"
#include "simd_vec.h"

#ifndef POINT_BLEND_W
#define POINT_BLEND_W 4
#endif
#ifndef POINT_BLEND_LANES
#define POINT_BLEND_LANES 8
#endif

typedef GR_VEC(double, POINT_BLEND_W) bvd;
typedef GR_VEC(int64_t, POINT_BLEND_W) bvl;

typedef GR_VEC(float, POINT_BLEND_W) bvf;
typedef GR_VEC(uint32_t, POINT_BLEND_W) bvu;
typedef GR_VEC(uint8_t, POINT_BLEND_W) bvb;

#if POINT_BLEND_W == 4
#define VD_SPLAT(x) ((bvd){(x), (x), (x), (x)})
#define VL_ZERO ((bvl){0, 0, 0, 0})
#elif POINT_BLEND_W == 8
#define VD_SPLAT(x) ((bvd){(x), (x), (x), (x), (x), (x), (x), (x)})
#define VL_ZERO ((bvl){0, 0, 0, 0, 0, 0, 0, 0})
#else
#error "POINT_BLEND_W: 4 or 8"
#endif
/* POINT_BLEND_W floats from p into double lanes */
#define LOADW(v, p)                                                                                                    \
    do {                                                                                                               \
        bvf f_;                                                                                                        \
        memcpy(&f_, (p), sizeof f_);                                                                                   \
        (v) = __builtin_convertvector(f_, bvd);                                                                         \
    } while (0)
/* m ? a : b, lane by lane (m from a comparison: all bits set or none) */
#define VD_SELECT(m, a, b) GR_VSELECT(bvd, bvl, m, a, b)
/* the square root of each lane (IEEE, correctly rounded: as sqrt() gives it) */
#define VD_SQRT(r, a)                                                                                                  \
    do {                                                                                                               \
        for (int l_ = 0; l_ < POINT_BLEND_W; l_++)                                                                        \
            (r)[l_] = sqrt((a)[l_]);                                                                                   \
    } while (0)

static void POINT_BLEND_NAME(const gr_point_blend_in *in, const gr_point_blend_consts *k, gr_point_blend_out *out)
{
    const bvd zero = VD_SPLAT(0.0), one = VD_SPLAT(1.0);
    const double rh2 = k->rh * k->rh;
    const bvd dt = VD_SPLAT(k->dt), dt2 = VD_SPLAT(k->dt * k->dt), rh = VD_SPLAT(k->rh), inv_dense = VD_SPLAT(k->inv_dense), rest2 = VD_SPLAT(k->rest2);
    const bvd gx = VD_SPLAT(k->g[0]), gy = VD_SPLAT(k->g[1]), gz = VD_SPLAT(k->g[2]);
    const bvl still = k->still ? ~VL_ZERO : VL_ZERO;
    const bvl may_rest = k->still && !k->exact_moving ? ~VL_ZERO : VL_ZERO;
    for (int h = 0; h < POINT_BLEND_LANES; h += POINT_BLEND_W) {
        bvd x, y, z, vx0, vy0, vz0, W, wg, sx, sy, sz;
        bvl rest;
        /* (float to double, as the one-point code reads them) */
        LOADW(x, in->x + h);
        LOADW(y, in->y + h);
        LOADW(z, in->z + h);
        LOADW(vx0, in->vx + h);
        LOADW(vy0, in->vy + h);
        LOADW(vz0, in->vz + h);
        LOADW(W, in->sums[0] + h);
        LOADW(wg, in->sums[1] + h);
        LOADW(sx, in->sums[2] + h);
        LOADW(sy, in->sums[3] + h);
        LOADW(sz, in->sums[4] + h);
        {
            bvu r;
            memcpy(&r, in->rest + h, sizeof r);
            rest = __builtin_convertvector(r, bvl) != VL_ZERO;
        }
        /* blend_velocity */
        bvd vx = vx0 + gx * dt, vy = vy0 + gy * dt, vz = vz0 + gz * dt;
        const bvd inv = one / W;
        bvd alpha = one - W * inv_dense;
        alpha = VD_SELECT(alpha < zero, zero, VD_SELECT(alpha > one, one, alpha));
        const bvd beta = one - alpha;
        const bvl blend = wg > zero;
        vx = VD_SELECT(blend, sx * inv * beta + vx * alpha, vx);
        vy = VD_SELECT(blend, sy * inv * beta + vy * alpha, vy);
        vz = VD_SELECT(blend, sz * inv * beta + vz * alpha, vz);
        /* a point at rest among still particles keeps its velocity (only a moving exact body
         * can push it) */
        const bvl kept = rest & still;
        vx = VD_SELECT(kept, vx0, vx);
        vy = VD_SELECT(kept, vy0, vy);
        vz = VD_SELECT(kept, vz0, vz);
        const bvd v2 = vx * vx + vy * vy + vz * vz;
        const bvl to_rest = ~kept & may_rest & ((v2 < rest2) | blend); /* (as lib/upsample/upsample.c's one-point code) */
        /* in pieces of at most r_H (move_point), each clear of every exact surface; else the
         * one-point code moves it (and pushes it out) */
        const bvd l2 = v2 * dt2;
        bvd pieces = one, step = dt;
        int most = 1;
        bool long_move = false;
        for (int l = 0; l < POINT_BLEND_W; l++)
            long_move |= l2[l] > rh2;
        if (__builtin_expect(long_move, 0))
            for (int l = 0; l < POINT_BLEND_W; l++) {
                double m = 1.0;
                if (l2[l] > rh2) {
                    m = ceil(sqrt(l2[l]) / k->rh);
                    m = m < 64.0 ? m : 64.0;
                }
                pieces[l] = m;
                step[l] = k->dt / m;
                most = m > most ? (int)m : most;
            }
        bvl near = VL_ZERO;
        const bvd bvx = vx, bvy = vy, bvz = vz; /* (the blend's: a lane the one-point code moves starts from it) */
        for (int piece = 0; piece < most; piece++) {
            const bvl active = VD_SPLAT((double)piece) < pieces;
            x = VD_SELECT(active, x + vx * step, x);
            y = VD_SELECT(active, y + vy * step, y);
            z = VD_SELECT(active, z + vz * step, z);
            for (uint32_t e = 0; e < k->exact_count; e++) {
                const double *s = k->exact + GR_POINT_EXACT_VALUES * (size_t)e;
                const bvd dx = x - VD_SPLAT(s[0]), dy = y - VD_SPLAT(s[1]), dz = z - VD_SPLAT(s[2]);
                if (s[7] != 0.0) {
                    /* a plane pushes the lanes within r_H of it out, and its Coulomb friction
                     * takes from their sliding (push_from_exact and point_contact, in order) */
                    const bvd nx = VD_SPLAT(s[3]), ny = VD_SPLAT(s[4]), nz = VD_SPLAT(s[5]);
                    const bvd d = dx * nx + dy * ny + dz * nz;
                    const bvl inside = active & ~(d >= rh);
                    int64_t any = 0;
                    for (int l = 0; l < POINT_BLEND_W; l++)
                        any |= inside[l];
                    if (!any)
                        continue;
                    const bvd depth = rh - d;
                    const bvl push = inside & (depth > zero);
                    const bvd nd = -d;
                    const bvd px = x + nx * nd, py = y + ny * nd, pz = z + nz * nd; /* closest point */
                    x = VD_SELECT(push, x + nx * depth, x);
                    y = VD_SELECT(push, y + ny * depth, y);
                    z = VD_SELECT(push, z + nz * depth, z);
                    /* the plane's velocity there: linear + angular x (point - centre) */
                    const bvd ax = VD_SPLAT(s[11]), ay = VD_SPLAT(s[12]), az = VD_SPLAT(s[13]);
                    const bvd rx = px - VD_SPLAT(s[0]), ry = py - VD_SPLAT(s[1]), rz = pz - VD_SPLAT(s[2]);
                    const bvd sx = VD_SPLAT(s[8]) + (ay * rz - az * ry), sy = VD_SPLAT(s[9]) + (az * rx - ax * rz),
                             sz = VD_SPLAT(s[10]) + (ax * ry - ay * rx);
                    const bvd relx = vx - sx, rely = vy - sy, relz = vz - sz;
                    const bvd vn = relx * nx + rely * ny + relz * nz;
                    const bvl contact = push & (vn < zero);
                    const bvd mvn = -vn;
                    const bvd tx = relx + nx * mvn, ty = rely + ny * mvn, tz = relz + nz * mvn;
                    const bvd lt2 = tx * tx + ty * ty + tz * tz, cut = -VD_SPLAT(s[14]) * vn;
                    bvd lt;
                    VD_SQRT(lt, lt2);
                    const bvl slide = lt > cut;
                    const bvd keep = one - cut / VD_SELECT(slide, lt, one);
                    vx = VD_SELECT(contact, sx + VD_SELECT(slide, tx * keep, zero), vx);
                    vy = VD_SELECT(contact, sy + VD_SELECT(slide, ty * keep, zero), vy);
                    vz = VD_SELECT(contact, sz + VD_SELECT(slide, tz * keep, zero), vz);
                } else {
                    const bvd reach = VD_SPLAT(s[6]) + rh;
                    near |= active & ~((dx * dx + dy * dy + dz * dz) > reach * reach);
                }
            }
        }
        memcpy(out->x + h, &x, sizeof x);
        memcpy(out->y + h, &y, sizeof y);
        memcpy(out->z + h, &z, sizeof z);
        vx = VD_SELECT(near, bvx, vx);
        vy = VD_SELECT(near, bvy, vy);
        vz = VD_SELECT(near, bvz, vz);
        memcpy(out->vx + h, &vx, sizeof vx);
        memcpy(out->vy + h, &vy, sizeof vy);
        memcpy(out->vz + h, &vz, sizeof vz);
        /* still in the batch's cell (point_key's arithmetic) */
        bvl in_cell = ~VL_ZERO;
        for (int d = 0; d < 3; d++) {
            const bvd t = ((k->axis[d] == 0 ? x : (k->axis[d] == 1 ? y : z)) - VD_SPLAT(k->origin[d])) *
                         VD_SPLAT(k->inv_cell);
            in_cell &= (t >= VD_SPLAT(k->cell[d])) & (t < VD_SPLAT(k->cell[d] + 1.0));
        }
        const bvl how = (to_rest & GR_POINT_RESTS) |
                       (~to_rest & ((near & GR_POINT_MOVE_ONE_BY_ONE) | (~near & in_cell & GR_POINT_IN_CELL)));
        const bvb how8 = __builtin_convertvector(how, bvb);
        memcpy(out->how + h, &how8, sizeof how8);
    }
}

#undef VD_SPLAT
#undef VL_ZERO
#undef LOADW
#undef VD_SELECT
#undef VD_SQRT
#undef POINT_BLEND_NAME
#undef POINT_BLEND_W
#undef POINT_BLEND_LANES
