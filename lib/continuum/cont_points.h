/* SPDX-License-Identifier: MIT */
/* The continuum particles' render points (Narain et al. 2010 sec. 5): par.points per particle,
 * sampled uniformly inside its ellipsoid and kept as offsets d from its centre. A step moves them
 * with the particle's deformation, d <- (I + dt J) d, the map eq. 28 applies to the ellipsoid
 * (A <- F A F^T): a point inside stays inside exactly (d^T A^-1 d is invariant), and the points
 * follow the flow's local shear and rotation at no grid cost. On a split each child takes the
 * parent's points on its side of the split plane; on a merge the merged particle keeps the
 * innermost of both sets; either way points left outside their new ellipsoid, and missing ones,
 * are sampled afresh. Sampling is seeded by the particle's state: deterministic, no stored seed.
 * (The shared upsampler, lib/upsample, fills volumes with points that no particle owns; these
 * belong to their particle, as split and merge need.) */
#ifndef GR_CONTINUUM_CONT_POINTS_H
#define GR_CONTINUUM_CONT_POINTS_H

#include "cont_internal.h"

/// Sample particle i's points [from, par.points) inside its ellipsoid.
void cont_points_sample(cont_state *st, uint32_t i, uint32_t from);
/// Move particle i's points by its deformation over dt (J row-major, as cont_shape_advance).
void cont_points_advance(cont_state *st, uint32_t i, const double J[9], double dt);
/// Particle i (at old centre x_old) split into i and j (both already placed and shaped, along
/// axis e): each takes the old points on its side (d . e <= 0: i), the rest are sampled.
void cont_points_split(cont_state *st, uint32_t i, uint32_t j, gr_vec3 x_old, gr_vec3 e, const gr_vec3 *old);
/// Particles i (its points in old_i, centre xi) and j merged into i (already placed and shaped):
/// i keeps the points of both nearest its centre in its ellipsoid's measure.
void cont_points_merge(cont_state *st, uint32_t i, const gr_vec3 *old_i, gr_vec3 xi, uint32_t j);
/// Whether offset d lies inside shape A (d^T A^-1 d <= 1 + slack).
bool cont_points_inside(cont_sym3 A, gr_vec3 d, double slack);

#endif /* GR_CONTINUUM_CONT_POINTS_H */
