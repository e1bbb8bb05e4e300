/* SPDX-License-Identifier: MIT */
/* The functions of dem_bodies.c. */
#ifndef GR_DEM_DEM_BODIES_H
#define GR_DEM_DEM_BODIES_H

#include "dem_internal.h"

/// Slot of a body's particle spheres and of its clump (alive, but not a grain).
#define DEM_BODY_SLOT 0xfffffffeu
/// Member mass of immovable bodies: the contact's reduced mass m_i M / (m_i + M) is then m_i.
#define DEM_IMMOVABLE_MASS 1e200
gr_status dem_body_added(void *state, uint32_t body);
void dem_body_removed(void *state, uint32_t body);
void dem_body_moved(void *state, uint32_t body);
void dem_free_body_map(dem_state *st);
/// body_clump[] sized for the world's body slots, all empty (snapshot load fills it).
gr_status dem_reset_body_map(dem_state *st);
/// Static and kinematic bodies: clumps that take their pose from the body.
static inline bool dem_body_is_fixed(const struct gr_body_data *b)
{
    return b->motion == GR_MOTION_STATIC || b->motion == GR_MOTION_KINEMATIC;
}
/// Start of a step: fixed clumps and host-owned bodies' clumps take their body's pose and
/// velocity (teleports, the host's new state).
void dem_sync_bodies_in(dem_state *st);
/// Dynamic bodies take their clump's pose and velocity.
void dem_write_back_bodies(dem_state *st);
/// Add the contact force and torque on every particle-covered body over a substep of h.
void dem_sense_bodies(dem_state *st, double h);

#endif /* GR_DEM_DEM_BODIES_H */
