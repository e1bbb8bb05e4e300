/* SPDX-License-Identifier: MIT */
/* A body's solid fraction of a grid cell (docs/continuum.md, "Bodies"): 0 or 1 from the cell's
 * centre where the surface is farther than half its diagonal, else the share of 8 samples
 * inside. A container's closed faces are walls two cells deep to the grid. */
#ifndef GR_CONTINUUM_CONT_FRACTION_H
#define GR_CONTINUUM_CONT_FRACTION_H

#include "../bodies/body_store.h"

/// The fraction of the cell about `centre` (edge h) inside body b: 0, 1 or k / 8. A mesh's
/// query stamps are written (not thread-safe for meshes).
double cont_cell_fraction(const gr_body_data *b, gr_vec3 centre, double h);

/// The radius about b->position beyond which a cell's centre has fraction 0 (a bound, INFINITY
/// for a plane): the body's bound, a container's walls, the samples' reach and a margin.
double cont_fraction_reach(const gr_body_data *b, double h);

#endif /* GR_CONTINUUM_CONT_FRACTION_H */
