/* SPDX-License-Identifier: MIT */
/* The friction solve (Narain et al. sec. 2.3, eq. 15-20 in the materials' form 32-33): the
 * frictional stress s is the one, among those inside the linearised Drucker-Prager yield
 * surface |s_k| <= alpha p (eq. 15, one bound per stress coefficient), that takes the most
 * kinetic energy out of the flow (the principle of maximal plastic dissipation):
 *     min 1/2 s^T A2 s + b2^T s,   A2 = dt^2 D2^T W D2,   b2 = dt D2^T (phi u),
 * W = phi (1 - phi_s) / rho on the faces as in the pressure solve; the velocity then changes by
 * dt (1 - phi_s) / rho D2 s. Where the bound is slack the strain rate vanishes (the sand is
 * rigid there); where it binds, the sand slides. The unknowns are the five coefficients of
 * cont_stress, one array of cells each, one after the other. */
#ifndef GR_CONTINUUM_CONT_FRICTION_H
#define GR_CONTINUUM_CONT_FRICTION_H

#include "cont_pressure.h"

/// One friction problem; arrays over cells, the QP's vectors over 5 cells.
typedef struct cont_friction {
    const cont_pressure *cp; ///< its grid, dt, W and (1 - phi_s) / rho
    cont_faces scratch;      ///< the matvec's faces
    double *q, *diag, *lo, *hi; ///< [5 cells]
    double eps;              ///< added to the diagonal: A2 is only semi-definite
} cont_friction;

/// The five coefficient arrays of a vector of 5 cells.
static inline cont_stress cont_stress_view(double *x, uint32_t cells)
{
    return (cont_stress){x, x + cells, x + 2 * (size_t)cells, x + 3 * (size_t)cells, x + 4 * (size_t)cells};
}

/// b2, the diagonal and the bounds +-alpha p (alpha per cell; NULL: alpha0 everywhere) from the
/// velocity u (the pressure applied) and the faces' packed volumes; on edges p and alpha are the
/// means of the four cells around the edge. Coefficients with no bound or no faces stay 0.
void cont_friction_setup(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p,
                         const double *alpha, double alpha0);

/// The problem for lib/qp.
gr_qp_problem cont_friction_problem(cont_friction *cf);

/// u += dt (1 - phi_s) / rho D2 s.
void cont_friction_apply(const cont_friction *cf, const double *s, const cont_faces *u);

#endif /* GR_CONTINUUM_CONT_FRICTION_H */
