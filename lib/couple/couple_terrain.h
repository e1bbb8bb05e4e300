/* SPDX-License-Identifier: MIT */
/* The couplings of a terrain with the particle solvers (couple_terrain.c). */
#ifndef GR_COUPLE_COUPLE_TERRAIN_H
#define GR_COUPLE_COUPLE_TERRAIN_H

#include "../core/coupling.h"

extern const gr_coupling_vtable gr_terrain_dem_coupling;
extern const gr_coupling_vtable gr_terrain_pbd_coupling;

#endif /* GR_COUPLE_COUPLE_TERRAIN_H */
