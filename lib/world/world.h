/* SPDX-License-Identifier: MIT */
/* The world object: everything one simulation owns (its state; each world_*.c declares its
 * functions in a header of its own). */
#ifndef GR_WORLD_WORLD_H
#define GR_WORLD_WORLD_H

#include "../bodies/body_store.h"
#include "../core/alloc.h"
#include "../core/coupling.h"
#include "../geom/clump_store.h"
#include "../core/handles.h"
#include "../core/materials.h"
#include "../core/solver.h"
#include "../core/tasks.h"
#include "solver_registry.h"

/// One system of a world: a solver, its state and its def. System 0 is the world's own
/// (gr_world_def.solver); gr_world_add_system adds the others.
typedef struct gr_system {
    const gr_solver_vtable *solver;
    void *state;
    void *def;  ///< the solver's def (solver->def_size bytes of mem), validated
} gr_system;

/// A coupling between two systems (core/coupling.h), run after every step.
typedef struct gr_world_coupling {
    const gr_coupling_vtable *table;
    uint32_t a, b; ///< the systems of the table's kinds a and b
} gr_world_coupling;

struct gr_world {
    gr_mem mem;
    gr_world_def def;  ///< resolved; its dem, pbd and solver_def are NULL (systems[0].def holds it)
    uint32_t tag;      ///< stamped into every handle this world issues (gr_handle_new_tag)
    bool busy;         ///< inside gr_step
    char last_error[256];
    gr_tasks tasks;
    gr_materials materials;
    gr_clump_store clumps;
    gr_grain_table grains;
    gr_body_store bodies;
    const struct gr_kernels *kernels; ///< picked once at creation (simd/simd_pick.c)
    gr_system systems[GR_MAX_SYSTEMS];
    uint32_t system_count;  ///< >= 1 once created
    gr_world_coupling couplings[GR_MAX_SYSTEMS * (GR_MAX_SYSTEMS - 1) / 2];
    uint32_t coupling_count;
    gr_vec3 *impulse_sum;   ///< [2 impulse_cap] what several systems gave the bodies over a step
    uint32_t impulse_cap;
    double time;
    double last_substep;
    uint64_t step_count;
    uint64_t substep_count;
    uint64_t fill_count;  ///< fills so far (seeds each fill differently)
    uint64_t grains_removed; ///< by the world bounds
    uint32_t default_material;
};

/// The system that owns a live grain slot.
static inline gr_system *gr_grain_system(const gr_world *w, uint32_t slot)
{
    return (gr_system *)&w->systems[w->grains.system[slot]];
}

#endif /* GR_WORLD_WORLD_H */
