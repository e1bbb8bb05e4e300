/* SPDX-License-Identifier: MIT */
/* The DEM contact law of the vectorised path, written once for scalars and vectors: the
 * contact's geometry and relative velocity, the Hertz-Mindlin normal force with
 * restitution-matched damping, the history spring (projected, Coulomb-truncated) and the EPSD
 * rolling spring (docs/dem.md, eqs. 7-19 and "Rolling resistance"). The scalar batch code
 * (dem/dem_forces.c) and the vector kernels (kernel_contact_body.h) expand the same macros, so
 * they compute the same expressions in the same order and agree bit for bit.
 *
 * Each macro is a run of declarations: it declares its results as locals of type T and reads
 * the names the macros before it declared (GR_CONTACT_HERTZ assigns the outputs it is given).
 * The caller names:
 *   T        double, or a vector of doubles (GR_VEC);
 *   K(x)     a constant of type T (x, or a splat);
 *   SQRT(x)  the square root of a T;
 *   MASK(c)  a comparison's result as a selection mask (the comparison, or a cast to the mask
 *            type);
 *   SEL(m, a, b)  a where m, else b.
 * Every operation is IEEE elementwise; nothing depends on the lanes. */
#ifndef GR_SIMD_CONTACT_LAW_H
#define GR_SIMD_CONTACT_LAW_H

/* Geometry of a touching pair from the centre offset (dx, dy, dz), its squared length d2 and
 * the radii: unit normal n, overlap delta, lever arms ai, aj from each centre to the contact
 * point; the relative velocity (vrx, vry, vrz) of i's contact point against j's, its normal
 * part vn and tangential part (vtx, vty, vtz); the effective radius and mass. */
#define GR_CONTACT_GEOMETRY(T, K, SQRT, d2, dx, dy, dz, ri_, rj_, vx, vy, vz, wix, wiy, wiz, wjx, wjy, wjz, mi, mj) \
    const T dist = SQRT(d2);                                                                                   \
    const T inv = K(1.0) / dist;                                                                               \
    const T nx = (dx) * inv, ny = (dy) * inv, nz = (dz) * inv;                                                 \
    const T ri = (ri_), rj = (rj_);                                                                            \
    const T rsum = ri + rj;                                                                                    \
    const T delta = rsum - dist;                                                                               \
    const T ai = ri - K(0.5) * delta, aj = rj - K(0.5) * delta;                                                \
    const T rwx = (wix) * ai + (wjx) * aj;                                                                     \
    const T rwy = (wiy) * ai + (wjy) * aj;                                                                     \
    const T rwz = (wiz) * ai + (wjz) * aj;                                                                     \
    const T vrx = (vx) - (rwy * nz - rwz * ny);                                                                \
    const T vry = (vy) - (rwz * nx - rwx * nz);                                                                \
    const T vrz = (vz) - (rwx * ny - rwy * nx);                                                                \
    const T vn = vrx * nx + vry * ny + vrz * nz;                                                               \
    const T vtx = vrx - vn * nx, vty = vry - vn * ny, vtz = vrz - vn * nz;                                     \
    const T reff = ri * rj / rsum;                                                                             \
    const T meff = (mi) * (mj) / ((mi) + (mj))

/* Hertz normal force with restitution-matched damping (eqs. 7-15): into kn, kt the stiffnesses
 * and into gamma_n, gamma_t the dashpots, from the pair's coefficients c1 = 4/3 E*, c2,
 * c3 = 8 G*, c4 and the contact radius a = sqrt(R* delta); into fn the normal force along n,
 * > 0 pushing apart. */
#define GR_CONTACT_HERTZ(T, SQRT, c1, c2, c3, c4, kn, gamma_n, fn, kt, gamma_t)                                 \
    const T hz_a = SQRT(reff * delta);                                                                         \
    const T hz_sam = SQRT(hz_a * meff);                                                                        \
    kn = (c1) * hz_a;                                                                                          \
    gamma_n = (c2) * hz_sam;                                                                                   \
    fn = kn * delta - gamma_n * vn;                                                                            \
    kt = (c3) * hz_a;                                                                                          \
    gamma_t = (c4) * hz_sam

/* The history spring xi (hx, hy, hz: last substep's), advanced by the tangential slip over h,
 * projected into the tangent plane, truncated at Coulomb's mu |fn| (eqs. 16-19): the shear
 * force (ftx, fty, ftz), with the dashpot gamma_t while sticking; the spring after the substep,
 * (xx, xy, xz) while sticking or (slx, sly, slz) * ikt after sliding, chosen by `slide`. */
#define GR_CONTACT_HISTORY(T, K, SQRT, MASK, SEL, hx, hy, hz, h, mu, fn_abs, gamma_t)                            \
    T xx = (hx) + vtx * (h), xy = (hy) + vty * (h), xz = (hz) + vtz * (h);                                     \
    const T xn = xx * nx + xy * ny + xz * nz;                                                                  \
    xx = xx - xn * nx;                                                                                         \
    xy = xy - xn * ny;                                                                                         \
    xz = xz - xn * nz;                                                                                         \
    const T sx = -kt * xx, sy = -kt * xy, sz = -kt * xz;                                                       \
    const T ft2 = sx * sx + sy * sy + sz * sz;                                                                 \
    const T fmax = (mu) * (fn_abs);                                                                            \
    const T scale = fmax / SQRT(SEL(MASK(ft2 > K(0.0)), ft2, K(1.0)));                                         \
    const T ikt = SEL(MASK(kt > K(0.0)), -K(1.0) / SEL(MASK(kt > K(0.0)), kt, K(1.0)), K(0.0));                \
    const T slx = sx * scale, sly = sy * scale, slz = sz * scale;                                              \
    const T stx = sx - (gamma_t) * vtx, sty = sy - (gamma_t) * vty, stz = sz - (gamma_t) * vtz

/* The relative rolling velocity (wrx, wry, wrz): the spin difference in the tangent plane. */
#define GR_CONTACT_ROLLING_VELOCITY(T, wix, wiy, wiz, wjx, wjy, wjz)                                            \
    const T wrx0 = (wix) - (wjx), wry0 = (wiy) - (wjy), wrz0 = (wiz) - (wjz);                                  \
    const T wn = wrx0 * nx + wry0 * ny + wrz0 * nz;                                                            \
    const T wrx = wrx0 - wn * nx, wry = wry0 - wn * ny, wrz = wrz0 - wn * nz

/* The EPSD rolling spring (mx, my, mz: last substep's moment) under the relative rolling
 * velocity, projected, truncated at mu_r R* |fn|; its viscous part with the critical-damping
 * fraction roll_damping while not at the cap. Results: the spring (qx, qy, qz) and the moment
 * (qx + damp wrx, ...); mi, mj: the spheres' masses. */
#define GR_CONTACT_EPSD(T, K, SQRT, MASK, SEL, mx, my, mz, h, mur, fn_abs, roll_damping, mi, mj)                   \
    const T kr = K(2.25) * kn * (mur) * (mur) * reff * reff;                                                   \
    T qx = (mx) + kr * wrx * (h), qy = (my) + kr * wry * (h), qz = (mz) + kr * wrz * (h);                      \
    const T qn = qx * nx + qy * ny + qz * nz;                                                                  \
    qx = qx - qn * nx;                                                                                         \
    qy = qy - qn * ny;                                                                                         \
    qz = qz - qn * nz;                                                                                         \
    const T mmax = (mur) * reff * (fn_abs);                                                                    \
    const T m2 = qx * qx + qy * qy + qz * qz;                                                                  \
    const T rscale = SEL(MASK(m2 > mmax * mmax), mmax / SQRT(SEL(MASK(m2 > K(0.0)), m2, K(1.0))), K(1.0));     \
    qx = qx * rscale;                                                                                          \
    qy = qy * rscale;                                                                                          \
    qz = qz * rscale;                                                                                          \
    const T roll_ia = (mi) * ri * ri, roll_ib = (mj) * rj * rj;                                                \
    const T damp_any = (roll_damping) * K(2.0) * SQRT(K(1.4) * roll_ia * roll_ib / (roll_ia + roll_ib) * kr);  \
    const T damp = SEL(MASK(m2 > mmax * mmax), K(0.0), damp_any)

#endif /* GR_SIMD_CONTACT_LAW_H */
