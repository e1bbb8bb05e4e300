/* SPDX-License-Identifier: MIT */
/* The terrain's table (terrain_solver.c) and what the API and the couplings ask of a terrain
 * beyond it. */
#ifndef GR_TERRAIN_TERRAIN_SOLVER_H
#define GR_TERRAIN_TERRAIN_SOLVER_H

#include "terrain_internal.h"

extern const gr_solver_vtable gr_terrain_solver;
/// Give a new terrain its material (index) and its body (slot in the body store).
void terrain_bind(terrain_state *st, uint32_t material, uint32_t body);
/// The resolved angles of a material [deg] (as the erosion uses them).
void terrain_angles(const terrain_state *st, uint32_t material, double *stop_deg, double *start_deg);

#endif /* GR_TERRAIN_TERRAIN_SOLVER_H */
