/* SPDX-License-Identifier: MIT */
/* The Hertz-Mindlin + history (+ EPSD rolling) contact kernel over a batch, written once with
 * GCC/Clang vector extensions and included by one file per vector width / instruction set.
 * Every expression is the scalar batch code's (dem_forces.c, batch_laws) with the same
 * operation order, and every operation is IEEE elementwise: the results are bit-identical to
 * the scalar code on any CPU.
 *
 * The including file first includes ../core/lanes_v2.h or lanes_avx2.h (VW, vd, vm, VSQRT
 * and the lane helpers). */
#include "dem_batch.h"

static inline vd vabs(vd a)
{
    vm mask;
    for (int l = 0; l < VW; l++)
        mask[l] = 0x7fffffffffffffffll;
    return (vd)((vm)a & mask);
}

#define KERNEL_BODY(EPSD)                                                                            \
    const vd one = vsplat(1.0), zero = vsplat(0.0), half = vsplat(0.5), h = vsplat(c->h);            \
    const vm clamp = (vm)(vsplat(c->clamp) != zero);                                                       \
    const int uniform = b->uniform;                                                                  \
    const vd u_c1 = vsplat(b->u_c1), u_c2 = vsplat(b->u_c2), u_c3 = vsplat(b->u_c3);                 \
    const vd u_c4 = vsplat(b->u_c4), u_mu = vsplat(b->u_mu), u_mur = vsplat(b->u_mur);               \
    const vd roll_damping = vsplat(c->roll_damping);                                                 \
    const vd shear_damping = vsplat(c->shear_damping);                                               \
    for (uint32_t k = 0; k < b->n; k += VW) {                                                        \
        const vd dist = VSQRT(vload(b->d2 + k));                                                     \
        const vd inv = one / dist;                                                                   \
        const vd nx = vload(b->dx + k) * inv, ny = vload(b->dy + k) * inv, nz = vload(b->dz + k) * inv; \
        const vd ri = vload(b->ri + k), rj = vload(b->rj + k);                                       \
        const vd rsum = ri + rj;                                                                     \
        const vd delta = rsum - dist;                                                                \
        const vd ai = ri - half * delta, aj = rj - half * delta;                                     \
        const vd wix = vload(b->wix + k), wiy = vload(b->wiy + k), wiz = vload(b->wiz + k);          \
        const vd wjx = vload(b->wjx + k), wjy = vload(b->wjy + k), wjz = vload(b->wjz + k);          \
        const vd rwx = wix * ai + wjx * aj;                                                          \
        const vd rwy = wiy * ai + wjy * aj;                                                          \
        const vd rwz = wiz * ai + wjz * aj;                                                          \
        const vd vrx = vload(b->vx + k) - (rwy * nz - rwz * ny);                                     \
        const vd vry = vload(b->vy + k) - (rwz * nx - rwx * nz);                                     \
        const vd vrz = vload(b->vz + k) - (rwx * ny - rwy * nx);                                     \
        const vd vn = vrx * nx + vry * ny + vrz * nz;                                                \
        const vd mi = vload(b->mi + k), mj = vload(b->mj + k);                                       \
        const vd reff = ri * rj / rsum;                                                              \
        const vd meff = mi * mj / (mi + mj);                                                         \
        /* Hertz normal force with restitution-matched damping */                                   \
        const vd a = VSQRT(reff * delta);                                                            \
        const vd sam = VSQRT(a * meff);                                                              \
        const vd kn = (uniform ? u_c1 : vload(b->c1 + k)) * a;                                       \
        const vd gamma_n = (uniform ? u_c2 : vload(b->c2 + k)) * sam;                                \
        vd fn = kn * delta - gamma_n * vn;                                                           \
        const vd kt = (uniform ? u_c3 : vload(b->c3 + k)) * a;                                       \
        const vd gamma_t = (uniform ? u_c4 : vload(b->c4 + k)) * sam * shear_damping;                \
        fn = vsel(clamp & (vm)(fn < zero), zero, fn);                                                    \
        const vd fn_abs = vabs(fn);                                                                  \
        const vd vtx = vrx - vn * nx, vty = vry - vn * ny, vtz = vrz - vn * nz;                      \
        /* history spring, projected, Coulomb-truncated */                                         \
        vd xx = vload(b->hx + k) + vtx * h, xy = vload(b->hy + k) + vty * h, xz = vload(b->hz + k) + vtz * h; \
        const vd xn = xx * nx + xy * ny + xz * nz;                                                   \
        xx = xx - xn * nx;                                                                           \
        xy = xy - xn * ny;                                                                           \
        xz = xz - xn * nz;                                                                           \
        const vd sx = -kt * xx, sy = -kt * xy, sz = -kt * xz;                                        \
        const vd ft2 = sx * sx + sy * sy + sz * sz;                                                  \
        const vd fmax = (uniform ? u_mu : vload(b->mu + k)) * fn_abs;                                \
        const vm slide = (vm)(ft2 > fmax * fmax);                                                          \
        const vd scale = fmax / VSQRT(vsel((vm)(ft2 > zero), ft2, one));                                   \
        const vm kt_pos = (vm)(kt > zero);                                                                 \
        const vd ikt = vsel(kt_pos, -one / vsel(kt_pos, kt, one), zero);                             \
        const vd slx = sx * scale, sly = sy * scale, slz = sz * scale;                               \
        const vd ftx = vsel(slide, slx, sx - gamma_t * vtx);                                         \
        const vd fty = vsel(slide, sly, sy - gamma_t * vty);                                         \
        const vd ftz = vsel(slide, slz, sz - gamma_t * vtz);                                         \
        vstore(b->hx + k, vsel(slide, slx * ikt, xx));                                               \
        vstore(b->hy + k, vsel(slide, sly * ikt, xy));                                               \
        vstore(b->hz + k, vsel(slide, slz * ikt, xz));                                               \
        vstore(b->fx + k, ftx + fn * nx);                                                            \
        vstore(b->fy + k, fty + fn * ny);                                                            \
        vstore(b->fz + k, ftz + fn * nz);                                                            \
        vstore(b->cx + k, ny * ftz - nz * fty);                                                      \
        vstore(b->cy + k, nz * ftx - nx * ftz);                                                      \
        vstore(b->cz + k, nx * fty - ny * ftx);                                                      \
        vstore(b->ai + k, ai);                                                                       \
        vstore(b->aj + k, aj);                                                                       \
        if (EPSD) {                                                                                  \
            const vd wrx0 = wix - wjx, wry0 = wiy - wjy, wrz0 = wiz - wjz;                           \
            const vd wn = wrx0 * nx + wry0 * ny + wrz0 * nz;                                         \
            const vd wrx = wrx0 - wn * nx, wry = wry0 - wn * ny, wrz = wrz0 - wn * nz;               \
            const vd mur = uniform ? u_mur : vload(b->mur + k);                                      \
            const vd kr = vsplat(2.25) * kn * mur * mur * reff * reff;                               \
            vd qx = vload(b->mx + k) + kr * wrx * h, qy = vload(b->my + k) + kr * wry * h,           \
               qz = vload(b->mz + k) + kr * wrz * h;                                                 \
            const vd qn = qx * nx + qy * ny + qz * nz;                                               \
            qx = qx - qn * nx;                                                                       \
            qy = qy - qn * ny;                                                                       \
            qz = qz - qn * nz;                                                                       \
            const vd mmax = mur * reff * fn_abs;                                                     \
            const vd m2 = qx * qx + qy * qy + qz * qz;                                               \
            const vm full = (vm)(m2 > mmax * mmax);                                                        \
            const vd rscale = vsel(full, mmax / VSQRT(vsel((vm)(m2 > zero), m2, one)), one);               \
            qx = qx * rscale;                                                                        \
            qy = qy * rscale;                                                                        \
            qz = qz * rscale;                                                                        \
            const vd ia = mi * ri * ri, ib = mj * rj * rj;                                           \
            const vd damp_any = roll_damping * vsplat(2.0) * VSQRT(vsplat(1.4) * ia * ib / (ia + ib) * kr); \
            const vd damp = vsel(full, zero, damp_any);                                              \
            vstore(b->rlx + k, qx);                                                                  \
            vstore(b->rly + k, qy);                                                                  \
            vstore(b->rlz + k, qz);                                                                  \
            vstore(b->mx + k, qx + damp * wrx);                                                      \
            vstore(b->my + k, qy + damp * wry);                                                      \
            vstore(b->mz + k, qz + damp * wrz);                                                      \
        }                                                                                            \
    }
