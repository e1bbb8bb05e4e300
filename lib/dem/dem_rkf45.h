/* SPDX-License-Identifier: MIT */
/* The functions of dem_rkf45.c. */
#ifndef GR_DEM_DEM_RKF45_H
#define GR_DEM_DEM_RKF45_H

#include "dem_internal.h"

/// Advance by T seconds with the adaptive RKF45 integrator.
gr_status dem_step_rkf45(dem_state *st, double T, gr_step_report *report);

#endif /* GR_DEM_DEM_RKF45_H */
