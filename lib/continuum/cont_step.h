/* SPDX-License-Identifier: MIT */
/* One step of the continuum solver (Narain et al. Fig. 8): particles to grid, gravity, the
 * staggered pressure and friction solves (sec. 2.5), the velocity of eq. 5/27, and the particles'
 * FLIP update, motion and shapes (sec. 3). */
#ifndef GR_CONTINUUM_CONT_STEP_H
#define GR_CONTINUUM_CONT_STEP_H

#include "cont_store.h"

/// Free the grids, fields and workspaces (not the particles: cont_store.h).
void cont_free_fields(cont_state *st);
/// The longest step for which no particle travels more than par.cfl cells (sec. 4), counting
/// what gravity adds over it; INFINITY without particles.
double cont_stable_step(const cont_state *st);
/// One step of dt. Everything it needs is reserved first: on failure (out of memory) the
/// particles are unchanged. Particles outside the grid's reach or not finite fly on freely
/// (*lost counts them: the world's bounds or blow-up handling removes them).
gr_status cont_step(cont_state *st, double dt, uint32_t *lost);

#endif /* GR_CONTINUUM_CONT_STEP_H */
