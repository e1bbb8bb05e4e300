/* SPDX-License-Identifier: MIT */
/* Built-in solvers, one table each. A kind that is not listed answers GR_ERROR_UNSUPPORTED. */
#include "solver.h"

extern const gr_solver_vtable gr_dem_solver;
extern const gr_solver_vtable gr_pbd_solver;

const gr_solver_vtable *gr_solver_find(gr_solver_kind kind)
{
    switch (kind) {
    case GR_SOLVER_DEM: return &gr_dem_solver;
    case GR_SOLVER_PBD: return &gr_pbd_solver;
    default: return NULL;
    }
}
