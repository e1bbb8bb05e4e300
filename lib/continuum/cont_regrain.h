/* SPDX-License-Identifier: MIT */
/* Split and merge of the continuum particles (Narain et al. 2010 sec. 3.1), as the world drives
 * them after a step (gr_regrain, core/solver.h): a particle stretched past sqrt 2 r is split
 * along its longest axis, one compressed below r / sqrt 2 (or otherwise invalid) is merged with
 * the nearest particle of its cell and material, each only when the result is valid. Each
 * particle is a grain: a split makes one (the parent keeps its handle), a merge unmakes one (the
 * lower index keeps its handle). Mass and momentum are kept exactly, up to rounding: a grain's
 * mass is that of its radius (cont_particle_material), so the halves of a split get r / cbrt 2
 * and a merge cbrt(r_i^3 + r_j^3). */
#ifndef GR_CONTINUUM_CONT_REGRAIN_H
#define GR_CONTINUUM_CONT_REGRAIN_H

#include "cont_store.h"

/// Plan the splits (at most max_add) and merges of the particles as they are now, and reserve
/// everything apply needs. Deterministic (a function of the particles alone). Out of memory:
/// no plan (plan->add = plan->remove = 0), the particles unchanged.
gr_status cont_regrain_plan(cont_state *st, uint32_t max_add, gr_regrain *plan);
/// Carry out the last plan: the children take plan->slots; the merged-away particles' slots go
/// to plan->removed and their particles are compacted away. Cannot fail.
void cont_regrain_apply(cont_state *st, gr_regrain *plan);
/// Free the plan's arrays.
void cont_regrain_free(cont_state *st);

#endif /* GR_CONTINUUM_CONT_REGRAIN_H */
