/* SPDX-License-Identifier: MIT */
/* The world object: everything one simulation owns. */
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

/// What a system's solver sees of the world (gr_solver_env, core/solver.h): its stores,
/// gravity, seed, bounds, the system's index and its solver's own def (`def`, which the
/// system will keep).
gr_solver_env gr_world_solver_env(gr_world *world, uint32_t system, const void *def);

/// The system that owns a live grain slot.
static inline gr_system *gr_grain_system(const gr_world *w, uint32_t slot)
{
    return (gr_system *)&w->systems[w->grains.system[slot]];
}

/// Whether any system meets bodies by their surface particles (the world covers them then).
bool gr_world_body_particles(const gr_world *w);
/// Every system hears that something outside them changed (bodies, materials, gravity).
void gr_world_invalidate(gr_world *w);
/// Add a system of this solver with this (validated) def to a created world: the coupling
/// checks come first (worded on the world in the name of `func`). All or nothing.
gr_status gr_world_attach_system(gr_world *w, const gr_solver_vtable *solver, const void *def, uint32_t *out,
                                 const char *func);
/// Add resolved grains to a system: all or nothing, their slots set in g[k].slot. Failures are
/// not worded: TOO_MANY (GR_MAX_GRAINS, or the solver's own limit), OUT_OF_MEMORY,
/// UNSUPPORTED (a shape the solver lacks).
gr_status gr_world_add_grains(gr_world *w, uint32_t system, gr_grain_init *g, uint32_t count);
/// Remove live grains of any systems by handle slot (each once). Cannot fail.
void gr_world_remove_grains(gr_world *w, const uint32_t *slots, uint32_t count);
/// Read (out) or write (in, out NULL) a field of n grains, given their slots and dense
/// indices, four doubles per grain, through their systems' solvers.
void gr_world_grain_field(const gr_world *w, gr_field field, const uint32_t *slots, const uint32_t *dense, uint32_t n,
                          double *out, const double *in);
/// Free every system (their states and defs).
void gr_world_free_systems(gr_world *w);

/// The longest substep: gr_world_def.substep, or the shortest of the systems' stable substeps
/// (may be infinite when nothing constrains it).
double gr_world_max_substep(const gr_world *w);
/// Advance by dt > 0 (checked by the caller): docs/architecture.md, "The step". Failures are
/// worded on the world in the name of `func`.
gr_status gr_world_step(gr_world *w, double dt, const char *func);

/// Record an error on the world (message + log hook) and return `status`. The message stays
/// until the next failure (gr_world_last_error).
gr_status gr_fail(const gr_world *world, gr_status status, const char *func, const char *fmt, ...)
    GR_PRINTF_LIKE(4, 5);
/// Log through the world's hook (no-op without one).
void gr_log(const gr_world *world, gr_log_level level, const char *fmt, ...) GR_PRINTF_LIKE(3, 4);

/// Resolve handles of this world (status + message on failure).
gr_status gr_resolve_grain(const gr_world *w, gr_grain g, uint32_t *slot, const char *func);
gr_status gr_resolve_body(const gr_world *w, gr_body b, uint32_t *slot, const char *func);
gr_status gr_resolve_material(const gr_world *w, gr_material m, uint32_t *index, const char *func);
/// Template index of a grain shape (GR_INVALID_INDEX for a sphere); checks the clump handle.
gr_status gr_resolve_grain_shape(const gr_world *w, gr_grain_shape shape, gr_clump clump, uint32_t *index,
                                 const char *func);
/// Material handle for an index.
gr_material gr_material_handle(const gr_world *w, uint32_t index);

#endif /* GR_WORLD_WORLD_H */
