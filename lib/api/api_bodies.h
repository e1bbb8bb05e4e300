/* SPDX-License-Identifier: MIT */
/* The functions of api_bodies.c: the checks of a caller's mesh arrays, a body's insertion. */
#ifndef GR_API_BODIES_H
#define GR_API_BODIES_H

#include "../world/world.h"

/// Mesh arrays from the caller: present, sized within limits, finite, indices in range.
gr_status gr_check_mesh_arrays(const gr_world *w, const gr_vec3 *vertices, uint32_t vertex_count, const uint32_t *indices,
                               uint32_t triangle_count, const char *f, const char *vname, const char *iname);

/// Insert a prepared body and tell every system (all or nothing: on failure the store is as it
/// was and *failed names the system that refused).
gr_status gr_body_insert_told(gr_world *w, gr_body_data *b, uint32_t *slot, uint32_t *failed);

#endif /* GR_API_BODIES_H */
