/* SPDX-License-Identifier: MIT */
/* Fast inside/depth queries against a closed mesh for fills: the triangles binned in a uniform
 * grid. The side comes from the winding number along a ray in +y (signed crossings of the
 * triangles above the point, with a top-left rule so that a ray through a shared edge or
 * vertex counts once, and in the one cell its crossing point lies in); the distance from the
 * triangles in the cells within the query's limit (not thread-safe: a stamp per triangle
 * skips those met in several cells). */
#ifndef GR_GEOM_MESH_QUERY_H
#define GR_GEOM_MESH_QUERY_H

#include "../core/alloc.h"
#include "../grid/grid_index.h"

typedef struct gr_mesh_query {
    const gr_vec3 *v;
    const uint32_t *idx;
    uint32_t nt;
    gr_grid_index ix; ///< the bins
    uint32_t *start;  ///< [cells + 1] CSR into tris
    uint32_t *tris;   ///< triangle ids per cell
    uint32_t *stamp;  ///< [nt] last query that visited the triangle
    uint32_t query;
    size_t nentries;
    gr_mem *mem;
    /* angle-weighted pseudo-normals (Baerentzen and Aanaes 2005): the side of a point from its
     * closest feature, without a ray; only for a closed, consistently oriented mesh */
    bool pseudo;           ///< the normals below exist
    uint32_t nv;           ///< vertices referenced (largest index + 1)
    gr_vec3 *face_normal;  ///< [nt] unit
    gr_vec3 *edge_normal;  ///< [3 nt] edges ab, bc, ca of each triangle: the sum of both faces'
    gr_vec3 *vertex_normal;///< [nv] faces' normals weighted by their angle at the vertex
} gr_mesh_query;

/// Bin the triangles (the arrays are referenced, not copied). All or nothing.
gr_status gr_mesh_query_build(gr_mesh_query *q, gr_mem *mem, const gr_vec3 *vertices, const uint32_t *indices,
                              uint32_t triangles);
void gr_mesh_query_free(gr_mesh_query *q);
/// How deep p is inside the mesh (negative: outside), exact when its magnitude is below
/// `limit`, else +-limit.
double gr_mesh_query_depth(gr_mesh_query *q, gr_vec3 p, double limit);
/// Is p inside the mesh? Reads the query only: safe from several threads.
bool gr_mesh_query_inside(const gr_mesh_query *q, gr_vec3 p);

#endif /* GR_GEOM_MESH_QUERY_H */
