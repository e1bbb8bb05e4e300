/* SPDX-License-Identifier: MIT */
/* The functions of dem_store.c: the storage primitives (the bottom of the solver's files). */
#ifndef GR_DEM_DEM_STORE_H
#define GR_DEM_DEM_STORE_H

#include "dem_internal.h"

gr_status dem_reserve_particles(dem_state *st, uint32_t cap);
void dem_free_particles(dem_state *st);
gr_status dem_reserve_clumps(dem_state *st, uint32_t clumps, uint32_t members);
void dem_free_clumps(dem_state *st);
/// The clump arrays (at most 24; *n of them) and the DEM_MEMBER_ARRAYS member arrays, each with
/// its element size: what grows, frees and permutes them together.
void dem_clump_arrays(dem_state *st, gr_array_ref *a, size_t *n);
enum { DEM_MEMBER_ARRAYS = 3 };
void dem_member_arrays(dem_state *st, gr_array_ref *a);
/// Room for the active member lists of fixed clumps (before a rebuild changes anything).
bool dem_reserve_fixed_active(dem_state *st);

#endif /* GR_DEM_DEM_STORE_H */
