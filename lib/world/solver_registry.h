/* SPDX-License-Identifier: MIT */
/* The solvers and couplings this build has (solver_registry.c, from core/solver_list.h). */
#ifndef GR_WORLD_SOLVER_REGISTRY_H
#define GR_WORLD_SOLVER_REGISTRY_H

#include "../core/coupling.h"
#include "../core/solver.h"

/// The table for a solver kind, or NULL when that solver is not built.
const gr_solver_vtable *gr_solver_find(gr_solver_kind kind);
/// The built solver whose def struct is of this kind, or NULL.
const gr_solver_vtable *gr_solver_find_def(gr_def_kind kind);
/// The index-th built-in solver (0 .. GR_SOLVER_BUILTIN_COUNT - 1, solver_list.h), or NULL.
const gr_solver_vtable *gr_solver_at(uint32_t index);

/// The coupling between systems of kinds a and b (in either order; *swapped says that the
/// table's `a` is kind b), or NULL when none is built.
const gr_coupling_vtable *gr_coupling_find(gr_solver_kind a, gr_solver_kind b, bool *swapped);

#endif /* GR_WORLD_SOLVER_REGISTRY_H */
