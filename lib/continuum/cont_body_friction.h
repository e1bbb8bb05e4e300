/* SPDX-License-Identifier: MIT */
/* The bodies in the friction problem (Narain et al. sec. 2.4, eq. 26): the friction minimises
 * the kinetic energy of sand and bodies together. A free body takes the share phi_s of the
 * faces' stress, V = V_p + M^-1 h^3 dt G^T D2 s (cont_bodies.h: G the rows g_f, V_p the velocity
 * with the pressure's impulse, cont_bodies_seen), so its energy over h^3 (the friction objective
 * is an energy density, cont_friction.h) adds
 *     dt D2^T (G V_p)                    to b2 (a kinematic body's velocity alone: M^-1 = 0),
 *     h^3 dt^2 D2^T G M^-1 G^T D2        to A2 (free bodies: rank <= 6 a body, never formed).
 * Sand dragged along a moving body and a body held by the sand's friction come from these two.
 * The terms are applied after the grid's matvecs (serial: sums over each body's faces), in the
 * full problem and in each component's block (D2_k, G's faces of that component's axes).
 * Nothing here allocates. */
#ifndef GR_CONTINUUM_CONT_BODY_FRICTION_H
#define GR_CONTINUUM_CONT_BODY_FRICTION_H

#include "cont_friction.h"

/// After cont_friction_setup, with cf->cp->bodies set and their u from cont_bodies_seen:
/// b2 += dt D2^T (G u) over the moving bodies; diag += the diagonal of the free bodies' term
/// and cf->body_trace[k] its trace over block k's unfixed coefficients.
void cont_friction_bodies_setup(cont_friction *cf);
/// y += h^3 dt^2 D2^T G M^-1 G^T D2 x (x, y: 5 cells).
void cont_friction_bodies_apply(const cont_friction *cf, const double *x, double *y);
/// Row i of the same (projected Gauss-Seidel; O(faces of the bodies) where a body is near i).
double cont_friction_bodies_row(const cont_friction *cf, uint32_t i, const double *x);
/// Block k: y += h^3 dt^2 D2_k^T G M^-1 G^T D2_k x (x, y: cells).
void cont_friction_bodies_apply_block(const cont_friction *cf, int k, const double *x, double *y);
/// Row c of block k's term.
double cont_friction_bodies_row_block(const cont_friction *cf, int k, uint32_t c, const double *x);
/// out += h^3 dt^2 D2_k^T G M^-1 G^T F (out: cells) for the face field F: with F = D2 s the
/// bodies' part of the gradient's component k, with F = D2 s - D2_k s_k that of block k's
/// linear term.
void cont_friction_bodies_gradient(const cont_friction *cf, int k, const cont_faces *F, double *out);

#endif /* GR_CONTINUUM_CONT_BODY_FRICTION_H */
