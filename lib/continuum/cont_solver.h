/* SPDX-License-Identifier: MIT */
/* The continuum solver's table, for the solver list. */
#ifndef GR_CONTINUUM_CONT_SOLVER_H
#define GR_CONTINUUM_CONT_SOLVER_H

#include "../core/solver.h"

extern const gr_solver_vtable gr_continuum_solver;

#endif /* GR_CONTINUUM_CONT_SOLVER_H */
