/* SPDX-License-Identifier: MIT */
/* An hourglass as a closed triangle mesh (for the hourglass example and the bell-hourglass
 * benchmark): a shell of revolution around the y axis, standing on y = 0. */
#ifndef GRANULAR_EXAMPLES_HOURGLASS_MESH_H
#define GRANULAR_EXAMPLES_HOURGLASS_MESH_H

#include <granular/granular.h>

enum { HOURGLASS_AROUND = 48, HOURGLASS_PROFILE = 5 };
#define HOURGLASS_MAX_VERTICES (2 * HOURGLASS_PROFILE * HOURGLASS_AROUND)
#define HOURGLASS_MAX_TRIANGLES (4 * HOURGLASS_PROFILE * HOURGLASS_AROUND)

/// Inner profile from the bottom up: a cylindrical bulb of `bulb_h`, a cone of `cone_h` to the
/// neck, a cone out and the upper bulb. The wall is `thick` thick; rings close it at the bottom
/// and the top (open ends: the floor and the air).
typedef struct hourglass_shape {
    double bulb_r, neck_r, bulb_h, cone_h, thick;
} hourglass_shape;

/// Height of the neck.
double hourglass_neck_y(const hourglass_shape *s);
/// Vertices and triangles (counter-clockwise seen from outside the solid wall).
void hourglass_mesh(const hourglass_shape *s, gr_vec3 *v, uint32_t *idx, uint32_t *nv, uint32_t *nt);

/// Add the hourglass as a static particle-covered mesh body (the mesh is built here and
/// copied by the library).
gr_status hourglass_add_body(gr_world *w, const hourglass_shape *s, gr_material material, double particle_radius,
                             gr_body *out);

#endif
