/* SPDX-License-Identifier: MIT */
/* The functions of api_terrain.c that other API files call. */
#ifndef GR_API_TERRAIN_H
#define GR_API_TERRAIN_H

#include "../world/world.h"

/// gr_world_add_system for a terrain (its def read and validated): the system, its material
/// and its surface body, all or nothing.
gr_status gr_world_add_terrain(gr_world *w, const void *def, uint32_t *out, const char *f);

#endif /* GR_API_TERRAIN_H */
