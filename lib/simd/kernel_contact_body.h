/* SPDX-License-Identifier: MIT */
/* The Hertz-Mindlin + history (+ EPSD rolling) contact kernel over a batch
 * (kernel_contact.h), written once with vector extensions and included by one file per
 * instruction set (simd_base.c, simd_avx2.c, simd_avx512.c). Every expression is the scalar
 * batch code's (dem_forces.c, batch_laws) with the same operation order, and every operation
 * is IEEE elementwise: the results are bit-identical to the scalar code on any CPU.
 *
 * The including file defines CONTACT_W (doubles per vector: 2, 4 or 8), CONTACT_SQRT(x) (the
 * lanes' square root), CONTACT_NAME and CONTACT_EPSD (0 or 1), and may include this twice
 * (without and with EPSD rolling). */
#include "kernel_contact.h"
#include "simd_vec.h"

#ifndef GR_SIMD_CONTACT_LANES /* the lanes, once per translation unit */
#define GR_SIMD_CONTACT_LANES
#define KW CONTACT_W
#define KSQRT(x) CONTACT_SQRT(x)
typedef GR_VEC(double, KW) kvd;
typedef GR_VEC(long long, KW) kvm;

static inline kvd kload(const double *p)
{
    kvd v;
    GR_VLOAD(v, p);
    return v;
}

static inline void kstore(double *p, kvd v) { GR_VSTORE(p, v); }

static inline kvd ksplat(double x)
{
    kvd v;
    for (int l = 0; l < KW; l++)
        v[l] = x;
    return v;
}

static inline kvd ksel(kvm m, kvd a, kvd b) { return GR_VSELECT(kvd, kvm, m, a, b); }

static inline kvd kabs(kvd a)
{
    kvm mask;
    for (int l = 0; l < KW; l++)
        mask[l] = 0x7fffffffffffffffll;
    return (kvd)((kvm)a & mask);
}
#endif

static void CONTACT_NAME(struct gr_contact_batch *b, const gr_contact_consts *c)
{
    const kvd one = ksplat(1.0), zero = ksplat(0.0), half = ksplat(0.5), h = ksplat(c->h);
    const kvm clamp = (kvm)(ksplat(c->clamp) != zero);
    const int uniform = b->uniform;
    const kvd u_c1 = ksplat(b->u_c1), u_c2 = ksplat(b->u_c2), u_c3 = ksplat(b->u_c3);
    const kvd u_c4 = ksplat(b->u_c4), u_mu = ksplat(b->u_mu), u_mur = ksplat(b->u_mur);
    const kvd roll_damping = ksplat(c->roll_damping);
    const kvd shear_damping = ksplat(c->shear_damping);
    for (uint32_t k = 0; k < b->n; k += KW) {
        const kvd dist = KSQRT(kload(b->d2 + k));
        const kvd inv = one / dist;
        const kvd nx = kload(b->dx + k) * inv, ny = kload(b->dy + k) * inv, nz = kload(b->dz + k) * inv;
        const kvd ri = kload(b->ri + k), rj = kload(b->rj + k);
        const kvd rsum = ri + rj;
        const kvd delta = rsum - dist;
        const kvd ai = ri - half * delta, aj = rj - half * delta;
        const kvd wix = kload(b->wix + k), wiy = kload(b->wiy + k), wiz = kload(b->wiz + k);
        const kvd wjx = kload(b->wjx + k), wjy = kload(b->wjy + k), wjz = kload(b->wjz + k);
        const kvd rwx = wix * ai + wjx * aj;
        const kvd rwy = wiy * ai + wjy * aj;
        const kvd rwz = wiz * ai + wjz * aj;
        const kvd vrx = kload(b->vx + k) - (rwy * nz - rwz * ny);
        const kvd vry = kload(b->vy + k) - (rwz * nx - rwx * nz);
        const kvd vrz = kload(b->vz + k) - (rwx * ny - rwy * nx);
        const kvd vn = vrx * nx + vry * ny + vrz * nz;
        const kvd mi = kload(b->mi + k), mj = kload(b->mj + k);
        const kvd reff = ri * rj / rsum;
        const kvd meff = mi * mj / (mi + mj);
        /* Hertz normal force with restitution-matched damping */
        const kvd a = KSQRT(reff * delta);
        const kvd sam = KSQRT(a * meff);
        const kvd kn = (uniform ? u_c1 : kload(b->c1 + k)) * a;
        const kvd gamma_n = (uniform ? u_c2 : kload(b->c2 + k)) * sam;
        kvd fn = kn * delta - gamma_n * vn;
        const kvd kt = (uniform ? u_c3 : kload(b->c3 + k)) * a;
        const kvd gamma_t = (uniform ? u_c4 : kload(b->c4 + k)) * sam * shear_damping;
        fn = ksel(clamp & (kvm)(fn < zero), zero, fn);
        const kvd fn_abs = kabs(fn);
        const kvd vtx = vrx - vn * nx, vty = vry - vn * ny, vtz = vrz - vn * nz;
        /* history spring, projected, Coulomb-truncated */
        kvd xx = kload(b->hx + k) + vtx * h, xy = kload(b->hy + k) + vty * h, xz = kload(b->hz + k) + vtz * h;
        const kvd xn = xx * nx + xy * ny + xz * nz;
        xx = xx - xn * nx;
        xy = xy - xn * ny;
        xz = xz - xn * nz;
        const kvd sx = -kt * xx, sy = -kt * xy, sz = -kt * xz;
        const kvd ft2 = sx * sx + sy * sy + sz * sz;
        const kvd fmax = (uniform ? u_mu : kload(b->mu + k)) * fn_abs;
        const kvm slide = (kvm)(ft2 > fmax * fmax);
        const kvd scale = fmax / KSQRT(ksel((kvm)(ft2 > zero), ft2, one));
        const kvm kt_pos = (kvm)(kt > zero);
        const kvd ikt = ksel(kt_pos, -one / ksel(kt_pos, kt, one), zero);
        const kvd slx = sx * scale, sly = sy * scale, slz = sz * scale;
        const kvd ftx = ksel(slide, slx, sx - gamma_t * vtx);
        const kvd fty = ksel(slide, sly, sy - gamma_t * vty);
        const kvd ftz = ksel(slide, slz, sz - gamma_t * vtz);
        kstore(b->hx + k, ksel(slide, slx * ikt, xx));
        kstore(b->hy + k, ksel(slide, sly * ikt, xy));
        kstore(b->hz + k, ksel(slide, slz * ikt, xz));
        kstore(b->fx + k, ftx + fn * nx);
        kstore(b->fy + k, fty + fn * ny);
        kstore(b->fz + k, ftz + fn * nz);
        kstore(b->cx + k, ny * ftz - nz * fty);
        kstore(b->cy + k, nz * ftx - nx * ftz);
        kstore(b->cz + k, nx * fty - ny * ftx);
        kstore(b->ai + k, ai);
        kstore(b->aj + k, aj);
        if (CONTACT_EPSD) {
            const kvd wrx0 = wix - wjx, wry0 = wiy - wjy, wrz0 = wiz - wjz;
            const kvd wn = wrx0 * nx + wry0 * ny + wrz0 * nz;
            const kvd wrx = wrx0 - wn * nx, wry = wry0 - wn * ny, wrz = wrz0 - wn * nz;
            const kvd mur = uniform ? u_mur : kload(b->mur + k);
            const kvd kr = ksplat(2.25) * kn * mur * mur * reff * reff;
            kvd qx = kload(b->mx + k) + kr * wrx * h, qy = kload(b->my + k) + kr * wry * h,
               qz = kload(b->mz + k) + kr * wrz * h;
            const kvd qn = qx * nx + qy * ny + qz * nz;
            qx = qx - qn * nx;
            qy = qy - qn * ny;
            qz = qz - qn * nz;
            const kvd mmax = mur * reff * fn_abs;
            const kvd m2 = qx * qx + qy * qy + qz * qz;
            const kvm full = (kvm)(m2 > mmax * mmax);
            const kvd rscale = ksel(full, mmax / KSQRT(ksel((kvm)(m2 > zero), m2, one)), one);
            qx = qx * rscale;
            qy = qy * rscale;
            qz = qz * rscale;
            const kvd ia = mi * ri * ri, ib = mj * rj * rj;
            const kvd damp_any = roll_damping * ksplat(2.0) * KSQRT(ksplat(1.4) * ia * ib / (ia + ib) * kr);
            const kvd damp = ksel(full, zero, damp_any);
            kstore(b->rlx + k, qx);
            kstore(b->rly + k, qy);
            kstore(b->rlz + k, qz);
            kstore(b->mx + k, qx + damp * wrx);
            kstore(b->my + k, qy + damp * wry);
            kstore(b->mz + k, qz + damp * wrz);
        }
    }
}

#undef CONTACT_NAME
#undef CONTACT_EPSD
