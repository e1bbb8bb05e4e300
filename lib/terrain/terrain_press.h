/* SPDX-License-Identifier: MIT */
/* Bodies pressing into the columns (terrain_press.c; Sumner et al. 1999 sec. 3, docs/terrain.md
 * "Bodies"): the columns under a body go down to its surface, what they held goes to the
 * footprint's rim (or, from a moving body in a hybrid terrain, to the grains to be released),
 * and the columns push back on the body. */
#ifndef GR_TERRAIN_TERRAIN_PRESS_H
#define GR_TERRAIN_TERRAIN_PRESS_H

#include "terrain_internal.h"

/// Press every body into the columns for a substep of h seconds: heights, contact flags,
/// pending grains, and each body's force (st->impulse over h; ext_force for the body mover).
void terrain_press(terrain_state *st, double h);
/// Hand a column's pending volume on as height (when it will not become grains).
void terrain_settle_pending(terrain_state *st);

#endif /* GR_TERRAIN_TERRAIN_PRESS_H */
