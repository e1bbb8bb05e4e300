/* SPDX-License-Identifier: MIT */
/* The functions of world_env.c: the view of a world that a system's solver gets. */
#ifndef GR_WORLD_WORLD_ENV_H
#define GR_WORLD_WORLD_ENV_H

#include "world.h"

/// What a system's solver sees of the world (gr_solver_env, core/solver.h): its stores,
/// gravity, seed, bounds, the system's index and its solver's own def (`def`, which the
/// system will keep).
gr_solver_env gr_world_solver_env(gr_world *world, uint32_t system, const void *def);

#endif /* GR_WORLD_WORLD_ENV_H */
