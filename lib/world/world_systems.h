/* SPDX-License-Identifier: MIT */
/* The functions of world_systems.c: a world's systems, their grains and their couplings. */
#ifndef GR_WORLD_WORLD_SYSTEMS_H
#define GR_WORLD_WORLD_SYSTEMS_H

#include "world.h"

/// Whether any system meets bodies by their surface particles (the world covers them then).
bool gr_world_body_particles(const gr_world *w);
/// Every system hears that something outside them changed (bodies, materials, gravity).
void gr_world_invalidate(gr_world *w);
/// Add a system of this solver with this (validated) def to a created world: the coupling
/// checks come first (worded on the world in the name of `func`). All or nothing.
gr_status gr_world_attach_system(gr_world *w, const gr_solver_vtable *solver, const void *def, uint32_t *out,
                                 const char *func);
/// Take back the last system attached (the world as before gr_world_attach_system).
void gr_world_detach_last_system(gr_world *w);
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

#endif /* GR_WORLD_WORLD_SYSTEMS_H */
