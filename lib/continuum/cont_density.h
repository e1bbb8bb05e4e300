/* SPDX-License-Identifier: MIT */
/* Density correction (Narain et al. sec. 2.2.1, eq. 14): advection's errors leave the splatted
 * volume fraction slightly above what (6) / (24) allow, phi + phi_s > 1, and the pressure solve
 * would answer with a spurious corrective pressure (and oscillations). So the step starts by
 * moving the material, frozen in time, by a displacement dx that makes the state valid:
 *     phi <- phi - D (phi_f dx)                                             (eq. 14)
 * with dx = -(1 - phi_s) / rho D1 y for a potential y >= 0 (the seed's dx = -grad y / rho, with
 * the solids' factor of eq. 27). That is the pressure LCP (eq. 7-13, cont_pressure.h) with dx for
 * the velocity, 1 for dt and a zero velocity:
 *     A1 y + b1 >= 0,  y >= 0,  y^T (A1 y + b1) = 0,   A1 = D1^T W D1,  b1 = 1 - phi_s - phi,
 * W = phi_f (1 - phi_s) / rho as for the pressure, and A1 y + b1 = 1 - phi_s - phi_corrected: y
 * is nonzero only where the material is over-packed, and pushes just enough material out into
 * cells with room (air cells hold y = 0: the free surface; a solid cell takes no material and
 * pushes out what splatted into it).
 * The step then uses the corrected phi (the faces' masses and packed volumes stay: W = (1 - phi_s)
 * / rho_max does not depend on the packing for one material, to first order neither does the
 * flux phi_f u), and moves each particle by dx interpolated at it before advancing it with the
 * velocity (sec. 3: "First the displacement dx for density correction is applied, then particle
 * positions are advanced using the velocity field"). The particles carry the faces' displacement
 * only as trilinear interpolation lets them, and re-splat over 2 cells: where dx changes sharply
 * (a block's faces and edges, a single over-packed cell) one correction removes a quarter to
 * three quarters of the excess the particles show, the next steps' corrections the rest
 * (tests/test_continuum_solves.c). cont_density_particle also takes the velocity that pushed a
 * particle into the over-packing out of it (not in the seed; see there). */
#ifndef GR_CONTINUUM_CONT_DENSITY_H
#define GR_CONTINUUM_CONT_DENSITY_H

#include "cont_pressure.h"

/// Set cp (its arrays the caller's, as for the pressure) up as the correction's LCP: cp->dt = 1;
/// W, (1 - phi_s) / rho, the diagonal and the bounds by cont_pressure_weights; q = 1 - phi_s - phi,
/// raised by cont_pressure_bound where a group of cells with no room could not be solved for.
/// (The step's pressure problem may lend its arrays: set its dt and call cont_pressure_weights
/// again afterwards.) solid NULL: none.
void cont_density_setup(cont_pressure *cp, const cont_grid_mass *m, const double *solid);

/// From the LCP's answer y: dx = -(1 - phi_s) / rho D1 y on the faces (overwritten; that is
/// cont_pressure_apply on a zero field with dt 1) and m->phi <- phi - D(phi_f dx) (eq. 14),
/// phi_f = vol / h^3 the faces' packed fractions. Uses cp->scratch.
void cont_density_displacement(const cont_pressure *cp, const cont_grid_mass *m, const double *y,
                               const cont_faces *dx);

/// f(y) = 1/2 y^T A1 y + q^T y of the LCP cont_density_setup made (cp->dt 1): 1/2 sum over the
/// faces of W (D1 y)^2 plus q.y. The cold start's is f(0) = 0. Uses cp->scratch.
double cont_density_objective(const cont_pressure *cp, const double *y);

/// The whole correction: cont_density_setup, MPRGP on the LCP (cont_pressure_solve: on the
/// unfixed cells when cp->compact is set) from y (the warm start: zero, or the last step's y
/// mapped to this grid; the answer on return), cont_density_displacement.
/// A warm start is projected onto the bounds (cells that are air now are fixed at 0) and kept
/// only when its objective is below the cold start's, f(y) < f(0) = 0; else the solve starts
/// from y = 0 (a stale start: the material moved away from where its potential was). MPRGP's
/// rate bounds f(y_k) - f(y*) by a factor of f(y_0) - f(y*), and f(y_0) - f(y*) >= 1/2 |y_0 -
/// y*|_A1^2, so the lower objective is the start with the smaller bound on both; *warm (may be
/// NULL) says whether a nonzero start was kept.
/// settings NULL = lib/qp's defaults; Jacobi preconditioning (settings->jacobi) is recommended;
/// alpha_bar 0 becomes 1.9 / (2 max diag), a bound of A1's norm (a Laplacian), not an estimate.
/// The LCP's projected gradient is the remaining over-packing in volume fraction where y > 0:
/// abs_tol (e.g. 1e-6) states how much of it may stay. ws holds cells entries; nothing is
/// allocated. stats may be NULL. On an error of the solve (qp_mprgp.h) dx and m are as given
/// and y is the start the solve was given (projected, or zero).
gr_status cont_density_correct(cont_pressure *cp, const cont_grid_mass *m, const double *solid, gr_qp_workspace *ws,
                               const gr_qp_settings *settings, double *y, const cont_faces *dx, gr_qp_stats *stats,
                               bool *warm);

/// The displacement at x (trilinear on the three face grids, as velocities: cont_velocity_at);
/// false (d zero) where x has no active cell with an active halo of 1.
bool cont_density_displacement_at(const gr_sparse_grid *g, const cont_faces *dx, gr_vec3 x, gr_vec3 *d);

/// A particle's share of the correction: returns its displacement d (cont_density_displacement_at
/// at x; zero where x has no cell) for the caller to add to the position before the flow's dt u
/// (sec. 3), and, when v is not NULL, takes out of v the part that drove the particle against d:
/// with n = d / |d| and v.n < 0, v -= max(v.n, -|d| / dt) n. Not in the seed: the correction
/// moves a particle back out of the over-packing its velocity carried it into, and (as the
/// pressure is inelastic, sec. 2.2: it "only just maintains the constraint, but does not cause
/// any additional bounce") that velocity goes too, up to the correction's own speed |d| / dt.
/// Without it, where the correction recurs every step (a layer thinner than a cell on a floor:
/// its splat reaches into the floor's cells) the particles keep the step's gravity as velocity
/// while d holds them in place, and such a layer never comes to rest.
gr_vec3 cont_density_particle(const gr_sparse_grid *g, const cont_faces *dx, gr_vec3 x, double dt, gr_vec3 *v);

/// near[c] (cells entries) = 1 for the cells within one cell (the 27 around) of a face whose
/// displacement is not zero, else 0. A particle's stencils (cont_velocity_at) reach the faces of
/// the cells within one of its own, so in an unmarked cell it interpolates dx from zeros only:
/// cont_density_particle would return d = 0 and leave v as it is, and the caller may skip it.
void cont_density_reach(const gr_sparse_grid *g, const cont_faces *dx, uint8_t *near);

#endif /* GR_CONTINUUM_CONT_DENSITY_H */
