/* SPDX-License-Identifier: MIT */
/* Closest-point queries of the analytic body shapes, in the body frame. */
#include "body_shapes.h"
#include "body_store.h"

#include "../geom/mesh.h"
#include "../core/vec3.h"

uint32_t gr_body_feature_count(const gr_body_data *b) { return b->shape == GR_SHAPE_CONTAINER ? 6u : 1u; }

bool gr_body_feature_enabled(const gr_body_data *b, uint32_t f)
{
    if (b->shape != GR_SHAPE_CONTAINER)
        return f == 0;
    return f < 6 && !(b->open_faces & (1u << f));
}

/* Unit direction of d, or `fallback` when d is (nearly) zero. */
static gr_vec3 safe_dir(gr_vec3 d, double len, gr_vec3 fallback)
{
    return len > 1e-300 ? v3_scale(d, 1.0 / len) : fallback;
}

/* A closed mesh, exactly (O(triangles): for fills and queries, not for contacts: meshes touch
 * through their particles). */
static double mesh_distance(const gr_body_data *b, gr_vec3 p, gr_vec3 *n, gr_vec3 *q)
{
    const double d = gr_mesh_signed_distance(b->mesh_vertices, b->mesh_indices, b->mesh_triangle_count, p, q);
    *n = safe_dir(v3_scale(v3_sub(p, *q), d < 0 ? -1.0 : 1.0), fabs(d), v3(0, 1, 0));
    return d;
}

static double local_distance(const gr_body_data *b, uint32_t f, gr_vec3 p, gr_vec3 *n, gr_vec3 *q)
{
    switch (b->shape) {
    case GR_SHAPE_PLANE: {
        gr_vec3 nl = b->normal_local;
        double d = v3_dot(p, nl);
        *n = nl;
        *q = v3_madd(p, nl, -d);
        return d;
    }
    case GR_SHAPE_SPHERE: {
        double len = v3_len(p);
        *n = safe_dir(p, len, v3(0, 1, 0));
        *q = v3_scale(*n, b->radius);
        return len - b->radius;
    }
    case GR_SHAPE_CAPSULE: {
        double y = p.y < -b->half_height ? -b->half_height : (p.y > b->half_height ? b->half_height : p.y);
        gr_vec3 c = v3(0, y, 0);
        gr_vec3 d = v3_sub(p, c);
        double len = v3_len(d);
        *n = safe_dir(d, len, v3(1, 0, 0));
        *q = v3_madd(c, *n, b->radius);
        return len - b->radius;
    }
    case GR_SHAPE_BOX: {
        gr_vec3 h = b->half_extents;
        gr_vec3 c = v3(GR_MAX(-h.x, GR_MIN(h.x, p.x)), GR_MAX(-h.y, GR_MIN(h.y, p.y)), GR_MAX(-h.z, GR_MIN(h.z, p.z)));
        gr_vec3 d = v3_sub(p, c);
        double len = v3_len(d);
        if (len > 0) {
            *n = v3_scale(d, 1.0 / len);
            *q = c;
            return len;
        }
        /* Inside: leave through the nearest face. */
        int axis = 0;
        double best = h.x - fabs(p.x);
        if (h.y - fabs(p.y) < best) { best = h.y - fabs(p.y); axis = 1; }
        if (h.z - fabs(p.z) < best) { best = h.z - fabs(p.z); axis = 2; }
        double sgn = v3_get(p, axis) >= 0 ? 1.0 : -1.0;
        *n = v3(0, 0, 0);
        v3_set(n, axis, sgn);
        *q = p;
        v3_set(q, axis, sgn * v3_get(h, axis));
        return -best;
    }
    case GR_SHAPE_CONTAINER: {
        /* Face f: axis f/2 at +h (even f) or -h (odd f); a thin two-sided rectangle. */
        gr_vec3 h = b->half_extents;
        int axis = (int)(f / 2);
        double side = (f % 2 == 0) ? 1.0 : -1.0;
        gr_vec3 c = v3(GR_MAX(-h.x, GR_MIN(h.x, p.x)), GR_MAX(-h.y, GR_MIN(h.y, p.y)), GR_MAX(-h.z, GR_MIN(h.z, p.z)));
        v3_set(&c, axis, side * v3_get(h, axis));
        gr_vec3 d = v3_sub(p, c);
        double len = v3_len(d);
        gr_vec3 inward = v3(0, 0, 0);
        v3_set(&inward, axis, -side);
        *n = safe_dir(d, len, inward);
        *q = c;
        return len;
    }
    case GR_SHAPE_MESH:
        if (b->mesh_vertices)
            return mesh_distance(b, p, n, q);
        /* fall through */
    default:
        *n = v3(0, 1, 0);
        *q = p;
        return INFINITY;
    }
}

void gr_body_update_frame(gr_body_data *b)
{
    b->axis[0] = quat_rotate(b->orientation, v3(1, 0, 0));
    b->axis[1] = quat_rotate(b->orientation, v3(0, 1, 0));
    b->axis[2] = quat_rotate(b->orientation, v3(0, 0, 1));
    b->normal_world = quat_rotate(b->orientation, b->normal_local);
}

static inline gr_vec3 to_local(const gr_body_data *b, gr_vec3 d)
{
    return v3(v3_dot(d, b->axis[0]), v3_dot(d, b->axis[1]), v3_dot(d, b->axis[2]));
}

static inline gr_vec3 to_world(const gr_body_data *b, gr_vec3 l)
{
    return v3_add(v3_add(v3_scale(b->axis[0], l.x), v3_scale(b->axis[1], l.y)), v3_scale(b->axis[2], l.z));
}

double gr_body_solid_feature_distance(const gr_body_data *b, uint32_t f, gr_vec3 p, gr_vec3 *normal,
                                      gr_vec3 *point)
{
    if (b->shape == GR_SHAPE_HEIGHTFIELD) /* world axes: a terrain neither turns nor moves */
        return b->field ? gr_hf_distance(b->field, p, normal, point) : (*normal = v3(0, 1, 0), *point = p, INFINITY);
    gr_vec3 pl = to_local(b, v3_sub(p, b->position));
    gr_vec3 nl, ql;
    double d = local_distance(b, f, pl, &nl, &ql);
    *normal = to_world(b, nl);
    *point = v3_add(b->position, to_world(b, ql));
    return d;
}

uint32_t gr_body_container_faces_near(const gr_body_data *b, gr_vec3 p, double r)
{
    /* a face is no nearer than its plane */
    const gr_vec3 l = to_local(b, v3_sub(p, b->position)), h = b->half_extents;
    uint32_t mask = 0;
    for (uint32_t f = 0; f < 6; f++) {
        const int axis = (int)(f / 2);
        const double plane = (f % 2 == 0 ? 1.0 : -1.0) * v3_get(h, axis);
        if (!(b->open_faces & (1u << f)) && fabs(v3_get(l, axis) - plane) < r)
            mask |= 1u << f;
    }
    return mask;
}

bool gr_body_uncross(const gr_body_data *b, gr_vec3 from, gr_vec3 *x, double r, gr_vec3 *normal)
{
    if (b->shape != GR_SHAPE_CONTAINER)
        return false;
    const gr_vec3 h = b->half_extents;
    const gr_vec3 l0 = to_local(b, v3_sub(from, b->position));
    gr_vec3 l1 = to_local(b, v3_sub(*x, b->position));
    bool moved = false;
    for (uint32_t f = 0; f < 6; f++) {
        if (b->open_faces & (1u << f))
            continue;
        const int axis = (int)(f / 2);
        const double plane = (f % 2 == 0 ? 1.0 : -1.0) * v3_get(h, axis);
        const double a = v3_get(l0, axis) - plane, c = v3_get(l1, axis) - plane;
        if ((a > 0) == (c > 0) || a == 0)
            continue;
        /* where the segment meets the face's plane: inside the plate? */
        const double t = a / (a - c);
        const gr_vec3 m = v3_add(l0, v3_scale(v3_sub(l1, l0), t));
        bool inside = true;
        for (int d = 0; d < 3; d++)
            inside &= d == axis || fabs(v3_get(m, d)) <= v3_get(h, d);
        if (!inside)
            continue;
        const double side = a > 0 ? 1.0 : -1.0;
        v3_set(&l1, axis, plane + side * r);
        gr_vec3 nl = v3(0, 0, 0);
        v3_set(&nl, axis, side);
        *normal = to_world(b, nl);
        moved = true;
    }
    if (moved)
        *x = v3_add(b->position, to_world(b, l1));
    return moved;
}

double gr_body_distance(const gr_body_data *b, gr_vec3 p)
{
    double best = INFINITY;
    gr_vec3 n, q;
    for (uint32_t f = 0; f < gr_body_feature_count(b); f++)
        if (gr_body_feature_enabled(b, f)) {
            double d = gr_body_feature_distance(b, f, p, &n, &q);
            if (d < best)
                best = d;
        }
    return best;
}

double gr_body_distance_within(gr_body_data *b, gr_vec3 p, double limit)
{
    if (b->shape == GR_SHAPE_MESH && b->mesh_query.start)
        return -gr_mesh_query_depth(&b->mesh_query, to_local(b, v3_sub(p, b->position)), limit);
    const double d = gr_body_distance(b, p);
    return d > limit ? limit : (d < -limit ? -limit : d);
}

double gr_body_bound_radius(const gr_body_data *b)
{
    switch (b->shape) {
    case GR_SHAPE_SPHERE: return b->radius;
    case GR_SHAPE_CAPSULE: return b->radius + b->half_height;
    case GR_SHAPE_BOX:
    case GR_SHAPE_CONTAINER: return v3_len(b->half_extents);
    case GR_SHAPE_MESH: return b->mesh_bound;
    default: return INFINITY;
    }
}

void gr_body_integrate(gr_body_data *b, double h)
{
    b->position = v3_madd(b->position, b->linear_velocity, h);
    b->orientation = quat_integrate(b->orientation, b->angular_velocity, h);
    gr_body_update_frame(b);
}

bool gr_body_contains(const gr_body_data *b, gr_vec3 p)
{
    if (b->shape == GR_SHAPE_MESH && b->mesh_query.start)
        return gr_mesh_query_inside(&b->mesh_query, to_local(b, v3_sub(p, b->position)));
    return gr_body_distance(b, p) < 0;
}
