/* SPDX-License-Identifier: MIT */
/* The Hertz-Mindlin + history (+ EPSD rolling) contact kernel over a batch
 * (kernel_contact.h), written once with vector extensions and included by one file per
 * instruction set (simd_base.c, simd_avx2.c, simd_avx512.c). The law itself is contact_law.h's,
 * which the scalar batch code (dem_forces.c, batch_laws) expands too, and every operation is
 * IEEE elementwise: the results are bit-identical to the scalar code on any CPU.
 *
 * The including file defines CONTACT_W (doubles per vector: 2, 4 or 8), CONTACT_SQRT(x) (the
 * lanes' square root), CONTACT_NAME and CONTACT_EPSD (0 or 1), and may include this twice
 * (without and with EPSD rolling). */
#include "contact_law.h"
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
#define KMASK(c) ((kvm)(c))

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
    const kvd zero = ksplat(0.0), h = ksplat(c->h);
    const kvm clamp = (kvm)(ksplat(c->clamp) != zero);
    const int uniform = b->uniform;
    const kvd u_c1 = ksplat(b->u_c1), u_c2 = ksplat(b->u_c2), u_c3 = ksplat(b->u_c3);
    const kvd u_c4 = ksplat(b->u_c4), u_mu = ksplat(b->u_mu), u_mur = ksplat(b->u_mur);
    const kvd roll_damping = ksplat(c->roll_damping);
    const kvd shear_damping = ksplat(c->shear_damping);
    for (uint32_t k = 0; k < b->n; k += KW) {
        GR_CONTACT_GEOMETRY(kvd, ksplat, KSQRT, kload(b->d2 + k), kload(b->dx + k), kload(b->dy + k), kload(b->dz + k),
                            kload(b->ri + k), kload(b->rj + k), kload(b->vx + k), kload(b->vy + k), kload(b->vz + k),
                            kload(b->wix + k), kload(b->wiy + k), kload(b->wiz + k), kload(b->wjx + k),
                            kload(b->wjy + k), kload(b->wjz + k), kload(b->mi + k), kload(b->mj + k));
        kvd kn, gamma_n, fn_raw, kt, gamma_t_raw;
        GR_CONTACT_HERTZ(kvd, KSQRT, uniform ? u_c1 : kload(b->c1 + k), uniform ? u_c2 : kload(b->c2 + k),
                         uniform ? u_c3 : kload(b->c3 + k), uniform ? u_c4 : kload(b->c4 + k), kn, gamma_n, fn_raw,
                         kt, gamma_t_raw);
        const kvd gamma_t = gamma_t_raw * shear_damping;
        const kvd fn = ksel(clamp & (kvm)(fn_raw < zero), zero, fn_raw);
        const kvd fn_abs = kabs(fn);
        GR_CONTACT_HISTORY(kvd, ksplat, KSQRT, KMASK, ksel, kload(b->hx + k), kload(b->hy + k), kload(b->hz + k), h,
                           uniform ? u_mu : kload(b->mu + k), fn_abs, gamma_t);
        const kvm slide = (kvm)(ft2 > fmax * fmax);
        const kvd ftx = ksel(slide, slx, stx);
        const kvd fty = ksel(slide, sly, sty);
        const kvd ftz = ksel(slide, slz, stz);
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
            GR_CONTACT_ROLLING_VELOCITY(kvd, kload(b->wix + k), kload(b->wiy + k), kload(b->wiz + k),
                                        kload(b->wjx + k), kload(b->wjy + k), kload(b->wjz + k));
            GR_CONTACT_EPSD(kvd, ksplat, KSQRT, KMASK, ksel, kload(b->mx + k), kload(b->my + k), kload(b->mz + k), h,
                            uniform ? u_mur : kload(b->mur + k), fn_abs, roll_damping, kload(b->mi + k),
                            kload(b->mj + k));
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
