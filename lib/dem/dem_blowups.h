/* SPDX-License-Identifier: MIT */
/* The functions of dem_blowups.c. */
#ifndef GR_DEM_DEM_BLOWUPS_H
#define GR_DEM_DEM_BLOWUPS_H

#include "dem_internal.h"

/// Adds the blown-up grains of nblocks blocks (block_bad layout) to the world's count.
void dem_note_blowups(dem_state *st, const uint32_t *block_bad, uint32_t nblocks);
/// After a blow-up: no non-finite force, torque, contact history or motion bound is left.
void dem_scrub_blowup(dem_state *st);

#endif /* GR_DEM_DEM_BLOWUPS_H */
