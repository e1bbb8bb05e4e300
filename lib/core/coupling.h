/* SPDX-License-Identifier: MIT */
/* Couplings between the systems of one world. A world may hold several systems (each one
 * solver with its own grains); two systems share a world only where a coupling for their
 * kinds is listed (GR_COUPLING_LIST, solver_list.h), since grains of uncoupled systems would
 * pass through each other. A coupling runs after every step of the world, once per coupled
 * pair, and moves material between the two systems (a terrain absorbs resting grains and
 * gives them back where it is dug). Couplings hold no state of their own: what they remember
 * belongs in a system's state. */
#ifndef GR_CORE_COUPLING_H
#define GR_CORE_COUPLING_H

#include "solver.h"

/// One system of a world as a coupling sees it.
typedef struct gr_coupling_side {
    const gr_solver_vtable *solver;
    void *state;
    uint32_t system;  ///< its index in the world (env->grains->system[slot] of its grains)
} gr_coupling_side;

/// What a coupling may change in the world: through these, never the world itself.
typedef struct gr_coupling_ops {
    void *world;
    /// Add grains to a system (their slots are set in grains[k].slot), all or nothing:
    /// GR_ERROR_OUT_OF_MEMORY or GR_ERROR_TOO_MANY with nothing added.
    gr_status (*add_grains)(void *world, uint32_t system, gr_grain_init *grains, uint32_t count);
    /// Remove live grains by handle slot (of any system; each slot once). Cannot fail.
    void (*remove_grains)(void *world, const uint32_t *slots, uint32_t count);
} gr_coupling_ops;

/// A coupling's exchange, after a step of dt seconds. `a` is of the kind the table names
/// first. On failure (out of memory) every grain is still in exactly one system: nothing is
/// lost or doubled, though part of the exchange may have happened.
typedef struct gr_coupling_call {
    const gr_solver_env *env;   ///< the world's stores (allocator, grain table, bodies, ...); no def or system
    gr_coupling_side a, b;
    const gr_coupling_ops *ops;
    double dt;
} gr_coupling_call;

typedef struct gr_coupling_vtable {
    const char *name;
    gr_solver_kind a, b;  ///< the two kinds it couples (a system of kind a with one of kind b)
    gr_status (*exchange)(const gr_coupling_call *call);
} gr_coupling_vtable;

#endif /* GR_CORE_COUPLING_H */
