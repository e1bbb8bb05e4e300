/* SPDX-License-Identifier: MIT */
/* A mesh body's signed distance as a field on a grid: a query any solver may build for a body
 * whose distance it asks often (surface particles are placed on it: body_cover.c; a grid
 * solver samples its cells' distances to a mesh body from it). In the mesh's own frame (the
 * frame of gr_body_data.mesh_vertices); > 0 outside. */
#ifndef GR_BODIES_BODY_SDF_H
#define GR_BODIES_BODY_SDF_H

#include "../grid/grid_index.h"
#include "body_store.h"

typedef struct gr_body_sdf {
    gr_grid_index ix;
    float *d;     ///< [ix.count] signed distance, clamped to +-band outside the band
    double band;  ///< exact within this distance of the surface [m]
} gr_body_sdf;

/// The field of a closed mesh body with cells of about h (coarser for huge meshes: under 2^24
/// cells), exact within `band` of the surface. All or nothing (GR_ERROR_OUT_OF_MEMORY).
gr_status gr_body_sdf_build(gr_body_sdf *sdf, gr_mem *mem, const gr_body_data *b, double h, double band);
void gr_body_sdf_free(gr_body_sdf *sdf, gr_mem *mem);
/// Trilinear value at p (mesh frame) and its gradient.
double gr_body_sdf_sample(const gr_body_sdf *sdf, gr_vec3 p, gr_vec3 *grad);

#endif /* GR_BODIES_BODY_SDF_H */
