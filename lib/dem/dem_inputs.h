/* SPDX-License-Identifier: MIT */
/* The functions of dem_inputs.c. */
#ifndef GR_DEM_DEM_INPUTS_H
#define GR_DEM_DEM_INPUTS_H

#include "dem_internal.h"

/// Remember gravity, materials and bodies as the forces at the end of this step saw them.
void dem_record_inputs(dem_state *st);
/// Start of a step, after invalidate(): rebuild and re-evaluate the forces only when gravity,
/// materials or a body differ (bitwise) from the record.
void dem_check_inputs(dem_state *st);

#endif /* GR_DEM_DEM_INPUTS_H */
