/* SPDX-License-Identifier: MIT */
/* A heightfield's surface (heightfield.c): columns on a regular grid in x and z, each with a
 * height above a base, y up. The terrain (lib/terrain) owns the heights; bodies of shape
 * GR_SHAPE_HEIGHTFIELD point at one, so that every solver meets the terrain's surface as it
 * meets a static body. */
#ifndef GR_GEOM_HEIGHTFIELD_H
#define GR_GEOM_HEIGHTFIELD_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/vec3.h"

typedef struct gr_heightfield {
    uint32_t nx, nz;   ///< columns along x and z (>= 2 each)
    double spacing;    ///< column spacing d [m]
    gr_vec3 origin;    ///< column (0, 0)'s centre at the base: heights are above origin.y
    double *h;         ///< [nx nz] heights above the base, x fastest
} gr_heightfield;

/// Column index of (i, k).
static inline uint32_t gr_hf_index(const gr_heightfield *f, uint32_t i, uint32_t k) { return k * f->nx + i; }
/// Whether (x, z) lies over the field (between the first and last columns' centres).
bool gr_hf_covers(const gr_heightfield *f, double x, double z);
/// The cell (i, k) .. (i + 1, k + 1) of column centres around (x, z) and the fractions (fu, fw)
/// within it, clamped to the field (i <= nx - 2, k <= nz - 2).
void gr_hf_cell(const gr_heightfield *f, double x, double z, uint32_t *i, uint32_t *k, double *fu, double *fw);
/// Surface height (world y) at (x, z): bilinear between the four nearest column centres,
/// clamped to the field's edge outside it. *slope (may be NULL) gets (dy/dx, dy/dz) there.
double gr_hf_surface(const gr_heightfield *f, double x, double z, double *slope_x, double *slope_z);
/// Distance from p to the surface along its local normal (positive above it), the unit normal
/// in *normal and the surface point below p in *point: exact on a plane, first order on a
/// curved surface (the vertical gap times the normal's y). Outside the field's footprint the
/// edge height goes on (the field's skirt).
double gr_hf_distance(const gr_heightfield *f, gr_vec3 p, gr_vec3 *normal, gr_vec3 *point);
/// Highest height of the field (above the base), for bounds.
double gr_hf_max_height(const gr_heightfield *f);

#endif /* GR_GEOM_HEIGHTFIELD_H */
