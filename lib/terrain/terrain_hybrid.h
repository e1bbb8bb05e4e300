/* SPDX-License-Identifier: MIT */
/* The terrain's side of the hybrid with a particle system (terrain_hybrid.c): which grains
 * rest on it, taking a grain into the columns, and the grains a disturbed column turns into.
 * The coupling (lib/couple/couple_terrain.c) drives these after every step. */
#ifndef GR_TERRAIN_TERRAIN_HYBRID_H
#define GR_TERRAIN_TERRAIN_HYBRID_H

#include "terrain_internal.h"

/// Forget the grain tops of the last exchange.
void terrain_tops_clear(terrain_state *st);
/// A grain of the particle system at x with radius r: note its top over the columns it covers.
void terrain_tops_note(terrain_state *st, gr_vec3 x, double r);
/// Whether a sphere at x of radius r rests on the surface (its bottom within r / 4 of it, over
/// the field, no column under it pressed by a body or about to release).
bool terrain_supports(const terrain_state *st, gr_vec3 x, double r);
/// Take a sphere's volume into the columns (bulk = volume / packing, spread bilinearly over
/// the four columns around its centre, so that the surface rises smoothly).
void terrain_absorb(terrain_state *st, gr_vec3 x, double r);
/// The grains pending column c turns into now (whole grains of the release radius; the rest
/// of its volume goes back into its height), written to out: at most max, and while more whole
/// grains are left they stay pending for the next call. Positions on a jittered lattice inside the column, above its highest
/// neighbour and the grains over it; velocity that of the body that displaced the sand.
uint32_t terrain_release_column(terrain_state *st, uint32_t c, gr_grain_init *out, uint32_t max);
/// A grain at x of radius r moving at `speed` reached the surface within the last step of dt
/// seconds (its gap below a quarter radius + speed x dt): if faster than
/// disturb_speed, a layer of one grain diameter of the column it strikes (not under a body,
/// not already releasing) becomes sand to release, at rest. Returns whether it did.
bool terrain_disturb(terrain_state *st, gr_vec3 x, double r, double speed, double dt);
/// Put back what a failed add took (count grains of column c) as height.
void terrain_unrelease(terrain_state *st, uint32_t c, uint32_t count);
/// Bulk volume of the columns plus what is pending [m^3].
double terrain_bulk_volume(const terrain_state *st);

#endif /* GR_TERRAIN_TERRAIN_HYBRID_H */
