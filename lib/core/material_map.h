/* SPDX-License-Identifier: MIT */
/* One material on every solver (docs/materials.md "One material, three solvers"): a material's
 * shared fields (sliding friction mu, rolling resistance mu_r) describe the grains; the bulk
 * friction angle they give is the DEM's, measured; each other solver takes the coefficient that
 * gives the same angle in it, measured likewise. Tables, not formulas: each is a calibration
 * (bench/run fidelity --scene heap --mu M --mu-r R --solver dem measures a point again). */
#ifndef GR_CORE_MATERIAL_MAP_H
#define GR_CORE_MATERIAL_MAP_H

#include "common.h"

/// The repose angle [deg] of a heap of spheres of sliding friction mu and rolling resistance
/// mu_r (EPSD), restitution 0.5, as the DEM builds it: the angle every solver aims at.
double gr_material_repose_angle(double mu, double mu_r);

/// PBD's static and kinetic friction whose heap stands at `angle_deg` (mu_k = mu_s / 1.2, the
/// library's ratio). Below PBD's least angle (about 23 deg, set by the spheres' packing) the
/// least friction that reaches it; above its table the table's last.
void gr_material_pbd_friction(double angle_deg, double *mu_s, double *mu_k);

/// The continuum's Drucker-Prager coefficient alpha (eq. 15's box s <= alpha p) whose heap
/// stands at `angle_deg`.
double gr_material_continuum_friction(double angle_deg);

/// Resolve a material's PBD coefficients: each left at GR_DERIVED is derived (from the other
/// when only one is given, by the ratio 1.2; from friction and rolling_friction when neither).
void gr_material_pbd_resolve(const gr_material_def *m, double *mu_s, double *mu_k);

/// Resolve a material's continuum coefficient: continuum_friction, or derived when GR_DERIVED.
double gr_material_continuum_resolve(const gr_material_def *m);

#endif /* GR_CORE_MATERIAL_MAP_H */
