/* SPDX-License-Identifier: MIT */
/* The functions of dem_step.c. */
#ifndef GR_DEM_DEM_STEP_H
#define GR_DEM_DEM_STEP_H

#include "dem_internal.h"

gr_status dem_step(void *state, uint32_t n, double h, gr_step_report *report);
void dem_free_blocks(dem_state *st);

#endif /* GR_DEM_DEM_STEP_H */
