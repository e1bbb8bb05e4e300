/* SPDX-License-Identifier: MIT */
/* The terrain's arrays (terrain_store.c): made once for the grid, grown for bodies and grain
 * slots, freed; and the bookkeeping of what changed (tiles' rectangles, erosion's active blocks). */
#ifndef GR_TERRAIN_TERRAIN_STORE_H
#define GR_TERRAIN_TERRAIN_STORE_H

#include "terrain_internal.h"

/// Every array of the grid and its tiles for the def's size, all or nothing.
bool terrain_store_alloc(terrain_state *st);
void terrain_store_free(terrain_state *st);
/// Room for impulses of `slots` body slots, all or nothing.
bool terrain_store_reserve_impulses(terrain_state *st, uint32_t slots);
/// Room for rest counters of `slots` grain slots (new ones zero), all or nothing.
bool terrain_store_reserve_rest(terrain_state *st, uint32_t slots);
/// Columns [x0, x1) x [z0, z1) changed: grow their tiles' rectangles (for the host), and wake
/// their erosion blocks.
void terrain_mark_changed(terrain_state *st, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1);
/// The same for the host's tiles only (erosion's own moves: it keeps its blocks itself).
void terrain_note_changed(terrain_state *st, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1);
/// One column changed (as terrain_mark_changed).
void terrain_mark_column(terrain_state *st, uint32_t c);
/// Bulk volume of the columns [m^3].
double terrain_volume(const terrain_state *st);

#endif /* GR_TERRAIN_TERRAIN_STORE_H */
