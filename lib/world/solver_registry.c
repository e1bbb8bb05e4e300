/* SPDX-License-Identifier: MIT */
/* The solvers and couplings a build has, one table each (core/solver_list.h): the world layer
 * holds the list, since it names tables of the layers below. A kind that is not listed answers
 * GR_ERROR_UNSUPPORTED. */
#include "solver_registry.h"

#define GR_SOLVER_DECLARE(kind, table) extern const gr_solver_vtable table;
GR_SOLVER_LIST(GR_SOLVER_DECLARE)
#undef GR_SOLVER_DECLARE

#define GR_SOLVER_ENTRY(kind, table) &table,
static const gr_solver_vtable *const builtin[] = {GR_SOLVER_LIST(GR_SOLVER_ENTRY)};
#undef GR_SOLVER_ENTRY

const gr_solver_vtable *gr_solver_find(gr_solver_kind kind)
{
    for (uint32_t i = 0; i < (uint32_t)GR_SOLVER_BUILTIN_COUNT; i++)
        if (builtin[i]->kind == kind)
            return builtin[i];
    return NULL;
}

const gr_solver_vtable *gr_solver_at(uint32_t index)
{
    return index < (uint32_t)GR_SOLVER_BUILTIN_COUNT ? builtin[index] : NULL;
}

const gr_solver_vtable *gr_solver_find_def(gr_def_kind kind)
{
    for (uint32_t i = 0; i < (uint32_t)GR_SOLVER_BUILTIN_COUNT; i++)
        if (builtin[i]->def_kind == kind)
            return builtin[i];
    return NULL;
}

#define GR_COUPLING_DECLARE(table) extern const gr_coupling_vtable table;
GR_COUPLING_LIST(GR_COUPLING_DECLARE)
#undef GR_COUPLING_DECLARE

#define GR_COUPLING_ENTRY(table) &table,
static const gr_coupling_vtable *const couplings[] = {GR_COUPLING_LIST(GR_COUPLING_ENTRY) NULL};
#undef GR_COUPLING_ENTRY

const gr_coupling_vtable *gr_coupling_find(gr_solver_kind a, gr_solver_kind b, bool *swapped)
{
    for (uint32_t i = 0; couplings[i]; i++) {
        if (couplings[i]->a == a && couplings[i]->b == b) {
            *swapped = false;
            return couplings[i];
        }
        if (couplings[i]->a == b && couplings[i]->b == a) {
            *swapped = true;
            return couplings[i];
        }
    }
    return NULL;
}
