/* SPDX-License-Identifier: MIT */
/* The functions of api_world.c: the checks of a world's, a solver's and a material's defs. */
#ifndef GR_API_WORLD_H
#define GR_API_WORLD_H

#include "../world/world.h"

/// Everything gr_world_create checks of a def; *solver_def_out (a gr_def_buffer, or NULL)
/// receives the complete def of the world's solver.
gr_status gr_validate_world_def(const gr_world *w, const gr_world_def *d, const char *func, void *solver_def_out);
/// A complete def of solver s, checked by the solver and worded on the world.
gr_status gr_validate_solver_def(const gr_world *w, const struct gr_solver_vtable *s, const void *def, const char *func);
/// A substep limit [s]: finite, >= GR_MIN_SUBSTEP (or 0 when zero_ok). The loader checks a
/// world def's substep with it too.
gr_status gr_check_substep_limit(const gr_world *w, double v, bool zero_ok, const char *f, const char *what);
gr_status gr_validate_material_def(const gr_world *w, const gr_material_def *d, const char *func);

#endif /* GR_API_WORLD_H */
