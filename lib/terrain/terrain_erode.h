/* SPDX-License-Identifier: MIT */
/* Erosion of steep slopes (terrain_erode.c; Sumner et al. 1999, docs/terrain.md "Erosion"):
 * Jacobi sweeps over the active blocks, order independent and volume exact. */
#ifndef GR_TERRAIN_TERRAIN_ERODE_H
#define GR_TERRAIN_TERRAIN_ERODE_H

#include "terrain_internal.h"

/// Up to `sweeps` sweeps over the active blocks (fewer when nothing moves); the blocks where
/// nothing moved go to sleep. Returns the sweeps run.
uint32_t terrain_erode(terrain_state *st, uint32_t sweeps);

#endif /* GR_TERRAIN_TERRAIN_ERODE_H */
