/* SPDX-License-Identifier: MIT */
/* The functions of dem_points.c: render points (lib/upsample) fed by the spheres. */
#ifndef GR_DEM_DEM_POINTS_H
#define GR_DEM_DEM_POINTS_H

#include "dem_internal.h"

/// Room for the view of the bodies without particles (before a step moves anything).
gr_status dem_points_reserve(dem_state *st);
/// The spheres as the render points see them (fills the up_* scratch; after a rebuild: no
/// removed spheres among them).
/// moved > 0: the time the step simulated; the spheres' velocities are then their mean over it
/// (their displacement over moved, so that points carried by them land where the integrator
/// took them). 0: their velocities.
gr_upsample_view dem_points_view(dem_state *st, double moved);
gr_status dem_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
void dem_fill_region_cancel(void *state);
void dem_free_points(dem_state *st);
/// At a step's start, after the rebuild (no removed spheres): new grains sampled, room for the
/// advection. All or nothing, before anything moves.
gr_status dem_points_begin(dem_state *st);
/// At its end: the points follow the spheres over the `moved` seconds simulated (0: the step
/// moved nothing, its sampling is undone).
gr_status dem_points_end(dem_state *st, double moved);

#endif /* GR_DEM_DEM_POINTS_H */
