/* SPDX-License-Identifier: MIT */
/* The functions of dem_params.c. */
#ifndef GR_DEM_DEM_PARAMS_H
#define GR_DEM_DEM_PARAMS_H

#include "dem_internal.h"

gr_status dem_update_pairs(dem_state *st);
double dem_stable_substep(void *state);
void dem_law_init(dem_law *law, const gr_dem_def *def);

#endif /* GR_DEM_DEM_PARAMS_H */
