/* SPDX-License-Identifier: MIT */
/* The functions of pbd_points.c: the render points (lib/upsample) fed by the particles. */
#ifndef GR_PBD_PBD_POINTS_H
#define GR_PBD_PBD_POINTS_H

#include "pbd_internal.h"

/// The particles as the render points see them; rest_speed: the grains' sleeping speed of the
/// last substep (0 before a step).
gr_upsample_view pbd_points_view(pbd_state *st, double rest_speed);
gr_status pbd_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
void pbd_fill_region_cancel(void *state);

#endif /* GR_PBD_PBD_POINTS_H */
