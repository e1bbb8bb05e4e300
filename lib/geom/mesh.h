/* SPDX-License-Identifier: MIT */
/* Closed triangle meshes as solids: the closedness check bodies and fills share, and the exact
 * signed distance (nearest triangle for the magnitude, winding number for the side). */
#ifndef GR_GEOM_MESH_H
#define GR_GEOM_MESH_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/alloc.h"

/// Closed and consistently wound: no degenerate triangle, every directed edge once and its
/// reverse once. Indices must already be below the vertex count. On failure `err` says why.
gr_status gr_mesh_check_closed(gr_mem *mem, const gr_vec3 *vertices, const uint32_t *indices, uint32_t triangles,
                               char *err, size_t errlen);

/// Pseudo-normals (Baerentzen and Aanaes 2005): unit face normals fn[triangles], edge normals
/// en[3 triangles] (edges ab, bc, ca of each triangle: the sum of the two faces that share it)
/// and vertex normals vn[vertex_count] (face normals weighted by their angle at the vertex).
/// The side of a point is then that of its closest feature's normal. *closed is whether that
/// holds: every edge joins exactly two triangles running it in opposite directions and no
/// triangle is degenerate (else the normals are partial and must not be used for sides).
gr_status gr_mesh_pseudo_normals(gr_mem *mem, const gr_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                                 uint32_t triangles, gr_vec3 *fn, gr_vec3 *en, gr_vec3 *vn, bool *closed);

/// Signed distance from p to a closed mesh (negative inside), exactly, in O(triangles);
/// *closest receives the nearest surface point. For fills and queries, not inner loops.
double gr_mesh_signed_distance(const gr_vec3 *vertices, const uint32_t *indices, uint32_t triangles, gr_vec3 p,
                               gr_vec3 *closest);

#endif /* GR_GEOM_MESH_H */
