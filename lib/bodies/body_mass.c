/* SPDX-License-Identifier: MIT */
/* Mass properties of particle-covered bodies: centre of mass from the shape; mass and inertia
 * from the material's density times the shape, or given by the caller (a host engine's own
 * values, so that the library's copy of its body moves as the engine's does). Every body
 * that moves keeps them within the documented bounds (gr_base.h), so nothing derived from
 * them overflows. */
#include <math.h>
#include <stdio.h>

#include "../geom/mass_props.h"
#include "../core/vec3.h"
#include "body_mass.h"
#include "body_store.h"

/* Volume, centre and inertia (unit density) of a shape in its body frame. */
static void shape_mass_props(const gr_body_data *b, gr_mass_props *mp)
{
    memset(mp, 0, sizeof *mp);
    const double r = b->radius;
    switch (b->shape) {
    case GR_SHAPE_SPHERE: {
        const double v = 4.0 / 3.0 * GR_PI * r * r * r;
        mp->volume = v;
        for (int a = 0; a < 3; a++)
            mp->inertia[a][a] = 0.4 * v * r * r;
        break;
    }
    case GR_SHAPE_BOX: {
        const gr_vec3 h = b->half_extents;
        const double v = 8.0 * h.x * h.y * h.z;
        mp->volume = v;
        mp->inertia[0][0] = v * (h.y * h.y + h.z * h.z) / 3.0;
        mp->inertia[1][1] = v * (h.x * h.x + h.z * h.z) / 3.0;
        mp->inertia[2][2] = v * (h.x * h.x + h.y * h.y) / 3.0;
        break;
    }
    case GR_SHAPE_CAPSULE: {
        const double hh = b->half_height, H = 2 * hh;
        const double vc = GR_PI * r * r * H, vs = 4.0 / 3.0 * GR_PI * r * r * r;
        mp->volume = vc + vs;
        mp->inertia[1][1] = vc * r * r / 2.0 + vs * 0.4 * r * r;
        mp->inertia[0][0] = vc * (H * H / 12.0 + r * r / 4.0) + vs * (0.4 * r * r + H * H / 4.0 + 3.0 * H * r / 8.0);
        mp->inertia[2][2] = mp->inertia[0][0];
        break;
    }
    case GR_SHAPE_MESH:
        gr_mass_props_mesh(b->mesh_vertices, b->mesh_indices, b->mesh_triangle_count, mp);
        break;
    default:
        break;
    }
}

static bool in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

gr_status gr_body_set_mass(gr_body_data *b, double density, const gr_body_mass_given *given, char *err, size_t errlen)
{
    gr_mass_props mp;
    shape_mass_props(b, &mp);
    if (!(mp.volume > 0)) {
        snprintf(err, errlen, "the mesh encloses a negative volume (%g m^3): it is wound inside out", mp.volume);
        return GR_ERROR_INVALID_ARGUMENT;
    }
    double values[3], vec[3][3];
    gr_eigen_symmetric3(mp.inertia, values, vec);
    if (values[2] - values[0] < 1e-9 * values[2]) {
        values[0] = values[1] = values[2] = (values[0] + values[1] + values[2]) / 3.0;
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                vec[a][c] = a == c ? 1.0 : 0.0;
    }
    /* a given mass scales the shape's inertia: the shape's density becomes mass / volume */
    const bool has_mass = given && given->mass > 0;
    const bool has_inertia = given && (given->inertia.x != 0 || given->inertia.y != 0 || given->inertia.z != 0);
    const double rho = has_mass ? given->mass / mp.volume : density;
    const double mass = has_mass ? given->mass : density * mp.volume;
    const gr_vec3 inertia = has_inertia ? given->inertia : v3(rho * values[0], rho * values[1], rho * values[2]);
    if (!in_range(mass, GR_MIN_BODY_MASS, GR_MAX_BODY_MASS)) {
        snprintf(err, errlen,
                 "the body's mass %g kg (%s) is outside [%g, %g] kg: give another mass, density or size",
                 mass, has_mass ? "given" : "density x volume", GR_MIN_BODY_MASS, GR_MAX_BODY_MASS);
        return GR_ERROR_INVALID_ARGUMENT;
    }
    if (!in_range(inertia.x, GR_MIN_BODY_INERTIA, GR_MAX_BODY_INERTIA) ||
        !in_range(inertia.y, GR_MIN_BODY_INERTIA, GR_MAX_BODY_INERTIA) ||
        !in_range(inertia.z, GR_MIN_BODY_INERTIA, GR_MAX_BODY_INERTIA)) {
        snprintf(err, errlen,
                 "the body's principal moments of inertia (%g, %g, %g) kg m^2 (%s) are not all in [%g, %g] kg m^2",
                 inertia.x, inertia.y, inertia.z, has_inertia ? "given" : "from its shape", GR_MIN_BODY_INERTIA,
                 GR_MAX_BODY_INERTIA);
        return GR_ERROR_INVALID_ARGUMENT;
    }
    b->mass = mass;
    b->inertia = inertia;
    b->com = mp.centre;
    b->principal = has_inertia ? quat_normalize(given->rotation) : gr_quat_from_matrix((const double(*)[3])vec);
    return GR_OK;
}
