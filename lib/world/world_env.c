/* SPDX-License-Identifier: MIT */
/* The narrow view of a world that its solver gets (core/solver.h). */
#include "../simd/simd_kernels.h"
#include "world.h"
#include "world_env.h"

gr_solver_env gr_world_solver_env(gr_world *world, uint32_t system, const void *def)
{
    /* Pointers into the world: a snapshot load swaps the stores' contents in place, so a
     * solver created before it still sees the world it belongs to. */
    return (gr_solver_env){
        .mem = &world->mem,
        .tasks = &world->tasks,
        .bodies = &world->bodies,
        .materials = &world->materials,
        .clumps = &world->clumps,
        .grains = &world->grains,
        .gravity = &world->def.gravity,
        .seed = &world->def.seed,
        .bounds_min = &world->def.bounds_min,
        .bounds_max = &world->def.bounds_max,
        .def = def,
        .system = system,
        .kernels = world->kernels,
    };
}
