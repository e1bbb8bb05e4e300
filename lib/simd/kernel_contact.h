/* SPDX-License-Identifier: MIT */
/* The DEM's contact kernels' interface: a batch of touching pairs, laws' inputs and outputs
 * side by side (lib/dem gathers and scatters it, dem_forces.c), and the kernel that runs the
 * Hertz-Mindlin + history (+ EPSD rolling) law over it (kernel_contact_body.h). */
#ifndef GR_SIMD_KERNEL_CONTACT_H
#define GR_SIMD_KERNEL_CONTACT_H

#include "../core/common.h"

/// Touching pairs evaluated together.
#define GR_CONTACT_BATCH 32

/// One batch of touching pairs.
struct gr_contact_batch {
    uint32_t n;
    uint32_t e[GR_CONTACT_BATCH], i[GR_CONTACT_BATCH], j[GR_CONTACT_BATCH];
    double dx[GR_CONTACT_BATCH], dy[GR_CONTACT_BATCH], dz[GR_CONTACT_BATCH], d2[GR_CONTACT_BATCH];
    double ri[GR_CONTACT_BATCH], rj[GR_CONTACT_BATCH], mi[GR_CONTACT_BATCH], mj[GR_CONTACT_BATCH];
    double vx[GR_CONTACT_BATCH], vy[GR_CONTACT_BATCH], vz[GR_CONTACT_BATCH]; /* v_i - v_j */
    double wix[GR_CONTACT_BATCH], wiy[GR_CONTACT_BATCH], wiz[GR_CONTACT_BATCH];
    double wjx[GR_CONTACT_BATCH], wjy[GR_CONTACT_BATCH], wjz[GR_CONTACT_BATCH];
    double hx[GR_CONTACT_BATCH], hy[GR_CONTACT_BATCH], hz[GR_CONTACT_BATCH];    /* tangential spring: in, then out */
    double mx[GR_CONTACT_BATCH], my[GR_CONTACT_BATCH], mz[GR_CONTACT_BATCH];    /* rolling spring (EPSD): in; rolling moment: out */
    double rhx[GR_CONTACT_BATCH], rhy[GR_CONTACT_BATCH], rhz[GR_CONTACT_BATCH]; /* tangential spring if sliding */
    double rlx[GR_CONTACT_BATCH], rly[GR_CONTACT_BATCH], rlz[GR_CONTACT_BATCH]; /* rolling spring out */
    double slide[GR_CONTACT_BATCH];                                             /* 1: sliding (Coulomb cap reached) */
    double mu[GR_CONTACT_BATCH], mur[GR_CONTACT_BATCH], c1[GR_CONTACT_BATCH], c2[GR_CONTACT_BATCH],
        c3[GR_CONTACT_BATCH], c4[GR_CONTACT_BATCH];
    /* one material pair for the whole batch (all grains of one material): the coefficients
     * are these scalars and the arrays above are not filled */
    int uniform;
    double u_mu, u_mur, u_c1, u_c2, u_c3, u_c4;
    double fx[GR_CONTACT_BATCH], fy[GR_CONTACT_BATCH], fz[GR_CONTACT_BATCH]; /* force on i */
    double cx[GR_CONTACT_BATCH], cy[GR_CONTACT_BATCH], cz[GR_CONTACT_BATCH]; /* n x F_t */
    double ai[GR_CONTACT_BATCH], aj[GR_CONTACT_BATCH];                       /* lever arms to the contact point */
};

/// Constants of the contact kernels.
typedef struct gr_contact_consts {
    double h;             ///< substep (history increment)
    double clamp;         ///< 1: clamp the normal force at 0
    double roll_damping;  ///< EPSD dashpot ratio (0 at h = 0)
    double shear_damping; ///< 1: the sticking dashpot; 0 at h = 0 (dem_contact_laws)
} gr_contact_consts;

/// Hertz normal + history tangential (+ EPSD rolling) over b->n pairs (inputs gathered; the
/// lanes past n are filled by the caller with copies of lane 0). Bit-identical to the scalar
/// batch code in dem_forces.c.
typedef void gr_contact_kernel_fn(struct gr_contact_batch *b, const gr_contact_consts *c);

#endif /* GR_SIMD_KERNEL_CONTACT_H */
