/* SPDX-License-Identifier: MIT */
/* The functions of api_bodies.c: the checks of a caller's mesh arrays. */
#ifndef GR_API_BODIES_H
#define GR_API_BODIES_H

#include "../world/world.h"

/// Mesh arrays from the caller: present, sized within limits, finite, indices in range.
gr_status gr_check_mesh_arrays(const gr_world *w, const gr_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                               uint32_t triangle_count, const char *f, const char *vname, const char *iname);

#endif /* GR_API_BODIES_H */
