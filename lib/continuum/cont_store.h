/* SPDX-License-Identifier: MIT */
/* The continuum solver's particle arrays: room, compaction, freeing (the bottom of the solver). */
#ifndef GR_CONTINUUM_CONT_STORE_H
#define GR_CONTINUUM_CONT_STORE_H

#include "cont_internal.h"

/// Room for n particles (grow only; all or nothing).
gr_status cont_reserve_particles(cont_state *st, uint32_t n);
/// Free the particle arrays.
void cont_free_particles(cont_state *st);
/// Remove the particles whose slot is GR_INVALID_INDEX, keeping the others' order, and publish
/// the moved ones' dense indices.
void cont_compact_particles(cont_state *st);
/// Copy particle `from`'s state (not its scratch) to index `to`.
void cont_copy_particle(cont_state *st, uint32_t to, uint32_t from);
/// The material-given values of particle i: mass, packed volume and friction coefficient.
void cont_particle_material(cont_state *st, uint32_t i);

#endif /* GR_CONTINUUM_CONT_STORE_H */
