/* SPDX-License-Identifier: MIT */
/* The functions of dem_clumps.c. */
#ifndef GR_DEM_DEM_CLUMPS_H
#define GR_DEM_DEM_CLUMPS_H

#include "dem_internal.h"

/// Encoding of a clump in the grain table's dense index.
#define DEM_CLUMP_BIT 0x80000000u
/// Append a clump grain of template `tmpl` with its member spheres (after reserving).
void dem_add_clump(dem_state *st, const gr_grain_init *g, uint32_t tmpl);
/// Kick (k1 then k2 times F/M) and, when h > 0, drift the clumps and place their members.
/// Returns the largest squared displacement of a member since the last rebuild.
double dem_integrate_clumps(dem_state *st, double k1, double k2, double h);
/// F = M g + member forces, T = member torques and moments, per clump.
void dem_reduce_clumps(dem_state *st);
/// Members' positions and velocities from their clump's state.
void dem_place_members(dem_state *st, uint32_t c);
/// Drop removed clumps and their member records (after the spheres were compacted).
void dem_compact_clumps(dem_state *st);
/// Clumps and member records in the order of their spheres (after a rebuild's permutation).
void dem_sort_clumps(dem_state *st);
/// The members of fixed clumps that appear in the neighbour list (after a rebuild or a load):
/// a static wall's other particles cost nothing per substep.
void dem_update_fixed_active(dem_state *st);
void dem_clump_read(const dem_state *st, uint32_t c, gr_field field, double *out);
void dem_clump_write(dem_state *st, uint32_t c, gr_field field, const double *in);
/// A body's clump takes the body's pose and velocity; false for a static body (its pose
/// never changes within a step).
bool dem_clump_pose_from_body(dem_state *st, uint32_t c, const struct gr_body_data *b);
/// A fixed body clump: pose and velocity from its body (clump integration pass); false for a
/// static body (nothing moved).
bool dem_sync_body_clump(dem_state *st, uint32_t c);

#endif /* GR_DEM_DEM_CLUMPS_H */
