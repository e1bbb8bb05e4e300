/* SPDX-License-Identifier: MIT */
/* The batch of touching pairs the contact kernels work on, and the vectorised kernels. */
#ifndef GR_DEM_BATCH_H
#define GR_DEM_BATCH_H

#include "dem_internal.h"

enum { BATCH = DEM_BATCH_SIZE };

/* One batch of touching pairs, laws' inputs and outputs side by side. */
struct dem_batch {
    uint32_t n;
    uint32_t e[BATCH], i[BATCH], j[BATCH];
    double dx[BATCH], dy[BATCH], dz[BATCH], d2[BATCH];
    double ri[BATCH], rj[BATCH], mi[BATCH], mj[BATCH];
    double vx[BATCH], vy[BATCH], vz[BATCH];       /* v_i - v_j */
    double wix[BATCH], wiy[BATCH], wiz[BATCH];
    double wjx[BATCH], wjy[BATCH], wjz[BATCH];
    double hx[BATCH], hy[BATCH], hz[BATCH];       /* tangential spring: in, then out */
    double mx[BATCH], my[BATCH], mz[BATCH];       /* rolling spring (EPSD): in; rolling moment: out */
    double rhx[BATCH], rhy[BATCH], rhz[BATCH];    /* tangential spring if sliding */
    double rlx[BATCH], rly[BATCH], rlz[BATCH];    /* rolling spring out */
    double slide[BATCH];                          /* 1: sliding (Coulomb cap reached) */
    double mu[BATCH], mur[BATCH], c1[BATCH], c2[BATCH], c3[BATCH], c4[BATCH];
    /* one material pair for the whole batch (all grains of one material): the coefficients
     * are these scalars and the arrays above are not filled */
    int uniform;
    double u_mu, u_mur, u_c1, u_c2, u_c3, u_c4;
    double fx[BATCH], fy[BATCH], fz[BATCH];       /* force on i */
    double cx[BATCH], cy[BATCH], cz[BATCH];       /* n x F_t */
    double ai[BATCH], aj[BATCH];                  /* lever arms to the contact point */
};

/// Constants of the vectorised Hertz-Mindlin kernels.
struct dem_kernel_consts {
    double h;            ///< substep (history increment)
    double clamp;        ///< 1: clamp the normal force at 0
    double roll_damping; ///< EPSD dashpot ratio (0 at h = 0)
    double shear_damping; ///< 1: the sticking dashpot; 0 at h = 0 (dem_contact_laws)
};
typedef struct dem_kernel_consts dem_kernel_consts;

/// Hertz normal + history tangential (+ EPSD rolling) over b->n pairs (inputs gathered; the
/// lanes past n are filled by the caller with copies of lane 0). Bit-identical to the scalar
/// batch code in dem_forces.c.
typedef void dem_kernel_fn(struct dem_batch *b, const dem_kernel_consts *c);

void dem_kernel_hertz_history_v2(struct dem_batch *b, const dem_kernel_consts *c);
void dem_kernel_hertz_history_epsd_v2(struct dem_batch *b, const dem_kernel_consts *c);
#if defined(GR_HAVE_AVX2) /* set by the build when it compiled the AVX2 kernel */
void dem_kernel_hertz_history_v4avx2(struct dem_batch *b, const dem_kernel_consts *c);
void dem_kernel_hertz_history_epsd_v4avx2(struct dem_batch *b, const dem_kernel_consts *c);
void dem_kernel_hertz_history_v8avx512(struct dem_batch *b, const dem_kernel_consts *c);      /* GR_HAVE_AVX512 */
void dem_kernel_hertz_history_epsd_v8avx512(struct dem_batch *b, const dem_kernel_consts *c); /* GR_HAVE_AVX512 */
#endif

/// The scalar reference (tests): Hertz + history (+ EPSD) through the generic batch code.
void dem_kernel_reference(struct dem_batch *b, const dem_law *law, bool epsd, double h);

/// The fastest kernel this CPU runs (rolling: EPSD or none).
dem_kernel_fn *dem_pick_kernel(bool epsd);

#endif /* GR_DEM_BATCH_H */
