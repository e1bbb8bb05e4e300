/* SPDX-License-Identifier: MIT */
/* The built-in solvers, listed once: X(kind, table) per solver, the table being the solver's
 * gr_solver_vtable (lib/<solver>/<solver>_solver.c). Adding a solver is one line here. */
#ifndef GR_CORE_SOLVER_LIST_H
#define GR_CORE_SOLVER_LIST_H

#define GR_SOLVER_LIST(X)              \
    X(GR_SOLVER_DEM, gr_dem_solver)    \
    X(GR_SOLVER_PBD, gr_pbd_solver)    \
    X(GR_SOLVER_CONTINUUM, gr_continuum_solver) \
    X(GR_SOLVER_TERRAIN, gr_terrain_solver) \
    GR_SOLVER_LIST_EXTRA(X)

/* A build may append solvers of its own by defining this (only solver_registry.c expands the
 * list): the tests register a null solver so (tests/null_solver.c, docs/architecture.md). */
#ifndef GR_SOLVER_LIST_EXTRA
#define GR_SOLVER_LIST_EXTRA(X)
#endif

/* The built-in couplings between systems of two kinds, X(table) each (core/coupling.h; the
 * tables live in lib/couple). A build may append its own, as the tests do. */
#define GR_COUPLING_LIST(X) X(gr_terrain_dem_coupling) X(gr_terrain_pbd_coupling) GR_COUPLING_LIST_EXTRA(X)
#ifndef GR_COUPLING_LIST_EXTRA
#define GR_COUPLING_LIST_EXTRA(X)
#endif

/// How many solvers are built: the list's length.
#define GR_SOLVER_COUNT_ONE_(kind, table) +1
enum { GR_SOLVER_BUILTIN_COUNT = 0 GR_SOLVER_LIST(GR_SOLVER_COUNT_ONE_) };

#endif /* GR_CORE_SOLVER_LIST_H */
