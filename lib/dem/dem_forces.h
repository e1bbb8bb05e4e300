/* SPDX-License-Identifier: MIT */
/* The functions of dem_forces.c. */
#ifndef GR_DEM_DEM_FORCES_H
#define GR_DEM_DEM_FORCES_H

#include "dem_internal.h"

/// Contact forces at the current state: contact histories advance by h (0: not at all), and
/// the analytic bodies' impulses grow by their force times w_impulse.
void dem_forces(dem_state *st, double h, double w_impulse);
/// Gravity plus contact forces from scratch (after the state was edited).
void dem_compute_forces(dem_state *st);
gr_status dem_reserve_batches(dem_state *st);
void dem_free_batches(dem_state *st);

#endif /* GR_DEM_DEM_FORCES_H */
