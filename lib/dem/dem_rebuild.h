/* SPDX-License-Identifier: MIT */
/* The functions of dem_rebuild.c. */
#ifndef GR_DEM_DEM_REBUILD_H
#define GR_DEM_DEM_REBUILD_H

#include "dem_internal.h"

gr_status dem_rebuild(dem_state *st);
/// Set uniform_material: the material every grain has, or GR_INVALID_INDEX.
void dem_update_uniform_material(dem_state *st);
void dem_free_slabs(dem_state *st);
/// Slab and per-body arrays for nslabs slabs and body_slots bodies (grow only).
bool dem_reserve_slabs(dem_state *st, uint32_t nslabs, uint32_t body_slots);
void dem_free_lists(dem_state *st);

#endif /* GR_DEM_DEM_REBUILD_H */
