/* SPDX-License-Identifier: MIT */
/* A mesh body's signed distance as a field on a grid: a query any solver may build for a body
 * whose distance it asks often (surface particles are placed on it: body_cover.c; a grid
 * solver samples its cells' distances to a mesh body from it). In the mesh's own frame (the
 * frame of gr_body_data.mesh_vertices); > 0 outside. */
#ifndef GR_BODIES_BODY_SDF_H
#define GR_BODIES_BODY_SDF_H

#include "../core/vec3.h"
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
/// Trilinear value at p (mesh frame) and its gradient. (Inline: body covering asks it for
/// every floater at every iteration.)
static inline double gr_body_sdf_sample(const gr_body_sdf *s, gr_vec3 p, gr_vec3 *grad)
{
    const gr_grid_index *g_ = &s->ix;
    double f[3] = {(p.x - g_->lo.x) * g_->inv_cell, (p.y - g_->lo.y) * g_->inv_cell, (p.z - g_->lo.z) * g_->inv_cell};
    int32_t i[3];
    double t[3];
    for (int a = 0; a < 3; a++) {
        double fl = floor(f[a]);
        if (fl < 0)
            fl = 0;
        if (fl > g_->dims[a] - 2)
            fl = g_->dims[a] - 2;
        i[a] = (int32_t)fl;
        t[a] = GR_MAX(0.0, GR_MIN(1.0, f[a] - fl));
    }
    double c[2][2][2];
    const float *corner = s->d + gr_grid_index_at(g_, i[0], i[1], i[2]);
    const size_t sx = g_->stride[0], sy = g_->stride[1], sz = g_->stride[2];
    for (int dz = 0; dz < 2; dz++)
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++)
                c[dz][dy][dx] = corner[(size_t)dz * sz + (size_t)dy * sy + (size_t)dx * sx];
    const double x0 = 1 - t[0], y0 = 1 - t[1], z0 = 1 - t[2];
    double value = 0;
    gr_vec3 g = {0, 0, 0};
    for (int dz = 0; dz < 2; dz++)
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
                const double wx = dx ? t[0] : x0, wy = dy ? t[1] : y0, wz = dz ? t[2] : z0;
                const double cv = c[dz][dy][dx];
                value += cv * wx * wy * wz;
                g.x += cv * (dx ? 1 : -1) * wy * wz;
                g.y += cv * wx * (dy ? 1 : -1) * wz;
                g.z += cv * wx * wy * (dz ? 1 : -1);
            }
    *grad = v3_scale(g, g_->inv_cell);
    return value;
}

#endif /* GR_BODIES_BODY_SDF_H */
