/* SPDX-License-Identifier: MIT */
#include "cont_fraction.h"

#include "../bodies/body_shapes.h"

/* A container's closed faces are thin plates to the particle solvers; to the grid each is a
 * wall `thick` deep behind the face, reaching `thick` past its edges. */
static bool in_container_wall(const gr_body_data *b, gr_vec3 p, double thick)
{
    const gr_vec3 d = v3_sub(p, b->position);
    const double l[3] = {v3_dot(d, b->axis[0]), v3_dot(d, b->axis[1]), v3_dot(d, b->axis[2])};
    const double h[3] = {b->half_extents.x, b->half_extents.y, b->half_extents.z};
    for (uint32_t f = 0; f < 6; f++) {
        if (b->open_faces & (1u << f))
            continue;
        const int a = (int)(f / 2);
        const double beyond = (f % 2 == 0 ? l[a] : -l[a]) - h[a];
        if (!(beyond >= 0 && beyond <= thick))
            continue;
        bool within = true;
        for (int o = 0; o < 3; o++)
            within = within && (o == a || fabs(l[o]) <= h[o] + thick);
        if (within)
            return true;
    }
    return false;
}

static bool in_body(const gr_body_data *b, gr_vec3 p, double thick)
{
    if (b->shape == GR_SHAPE_CONTAINER)
        return in_container_wall(b, p, thick);
    if (b->shape == GR_SHAPE_MESH)
        return gr_body_contains(b, p);
    return gr_body_distance(b, p) < 0;
}

double cont_cell_fraction(const gr_body_data *b, gr_vec3 centre, double h)
{
    const double half_diag = 0.8660254037844386 * h, thick = 2 * h;
    /* (a container's distance is to its plates: within half a diagonal plus the walls' depth of
     * one, the cell may hold wall) */
    const double near = b->shape == GR_SHAPE_CONTAINER ? half_diag + thick : half_diag;
    /* (a mesh's distance from its triangles binned near the centre, exact below `near` and its
     * sign right beyond: the whole mesh's signed distance at every cell of every step was nine
     * tenths of an hourglass's step) */
    const double d = b->shape == GR_SHAPE_MESH ? gr_body_distance_within((gr_body_data *)b, centre, near)
                                               : gr_body_distance(b, centre);
    if (fabs(d) >= near && b->shape != GR_SHAPE_CONTAINER)
        return d < 0 ? 1.0 : 0.0;
    if (d >= near)
        return 0.0;
    uint32_t inside = 0;
    for (int s = 0; s < 8; s++) {
        const gr_vec3 q = v3_add(centre, v3((s & 1 ? 0.25 : -0.25) * h, (s & 2 ? 0.25 : -0.25) * h,
                                            (s & 4 ? 0.25 : -0.25) * h));
        inside += in_body(b, q, thick);
    }
    return inside / 8.0;
}

double cont_fraction_reach(const gr_body_data *b, double h)
{
    const double bound = gr_body_bound_radius(b);
    if (!isfinite(bound))
        return INFINITY;
    /* a cell's centre or a sample (0.43 h from it) inside the body, or for a container inside
     * a wall: 2 h deep past each face, so 2 h sqrt 3 beyond the box's corner; a cell more */
    return bound + (b->shape == GR_SHAPE_CONTAINER ? 3.5 * h : 0.0) + h;
}
