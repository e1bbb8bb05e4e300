/* SPDX-License-Identifier: MIT */
/* The world object: everything one simulation owns. */
#ifndef GR_WORLD_WORLD_H
#define GR_WORLD_WORLD_H

#include "../bodies/body_store.h"
#include "../core/alloc.h"
#include "../geom/clump_store.h"
#include "../core/handles.h"
#include "../core/materials.h"
#include "../core/solver.h"
#include "../core/tasks.h"

struct gr_world {
    gr_mem mem;
    gr_world_def def;  ///< resolved; its dem, pbd and solver_def are NULL (solver_def holds it)
    void *solver_def;  ///< the solver's def (solver->def_size bytes of mem), validated
    uint32_t tag;      ///< stamped into every handle this world issues (gr_handle_new_tag)
    bool busy;         ///< inside gr_step
    char last_error[256];
    gr_tasks tasks;
    gr_materials materials;
    gr_clump_store clumps;
    gr_grain_table grains;
    gr_body_store bodies;
    const struct gr_kernels *kernels; ///< picked once at creation (simd/simd_pick.c)
    const gr_solver_vtable *solver;
    void *solver_state;
    double time;
    double last_substep;
    uint64_t step_count;
    uint64_t substep_count;
    uint64_t fill_count;  ///< fills so far (seeds each fill differently)
    uint64_t grains_removed; ///< by the world bounds
    uint32_t default_material;
};

/// What the world's solver sees of it (gr_solver_env, core/solver.h): its stores, gravity,
/// seed, bounds and the solver's own def.
gr_solver_env gr_world_solver_env(gr_world *world);

/// The longest substep: gr_world_def.substep, or the solver's stable substep (may be infinite
/// when nothing constrains it).
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
