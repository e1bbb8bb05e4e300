/* SPDX-License-Identifier: MIT */
/* A region to fill: a box, or the inside of a closed mesh (its triangles binned). */
#ifndef GR_GEOM_REGION_H
#define GR_GEOM_REGION_H

#include "mesh_query.h"
#include "../core/vec3.h"

typedef struct gr_region {
    gr_vec3 lo, hi;       ///< the box, or the mesh's bounding box
    gr_mesh_query *mesh;  ///< NULL: the box itself
} gr_region;

/// How deep p lies inside the region (negative: outside); for a mesh exact within `limit`.
/// Not thread-safe for meshes (the query's stamps).
static inline double gr_region_depth(const gr_region *r, gr_vec3 p, double limit)
{
    if (r->mesh)
        return gr_mesh_query_depth(r->mesh, p, limit);
    const double d[6] = {p.x - r->lo.x, p.y - r->lo.y, p.z - r->lo.z, r->hi.x - p.x, r->hi.y - p.y, r->hi.z - p.z};
    double m = d[0];
    for (int k = 1; k < 6; k++)
        m = GR_MIN(m, d[k]);
    return m;
}

#endif /* GR_GEOM_REGION_H */
