/* SPDX-License-Identifier: MIT */
#include "cont_contact.h"

#include <math.h>

#include "../bodies/body_shapes.h"
#include "cont_bodies.h"

static gr_vec3 centre_of_mass(const gr_body_data *b) { return v3_add(b->position, quat_rotate(b->orientation, b->com)); }

/* I^-1 w, world frame */
static gr_vec3 inverse_inertia(const gr_body_data *b, gr_vec3 w)
{
    const gr_quat q = quat_mul(b->orientation, b->principal);
    const gr_vec3 l = quat_rotate_inv(q, w);
    return quat_rotate(q, v3(l.x / b->inertia.x, l.y / b->inertia.y, l.z / b->inertia.z));
}

/* The inverse effective mass of free body b at point p along unit d (0 for others). */
static double inverse_mass_along(const gr_body_data *b, gr_vec3 p, gr_vec3 d)
{
    if (!cont_motion_is_free(b->motion))
        return 0.0;
    const gr_vec3 rd = v3_cross(v3_sub(p, centre_of_mass(b)), d);
    return 1.0 / b->mass + v3_dot(rd, inverse_inertia(b, rd));
}

/* Free body b takes impulse J at point p (the store's linear velocity is its position's). */
static void push(gr_body_data *b, gr_vec3 p, gr_vec3 J)
{
    if (!cont_motion_is_free(b->motion))
        return;
    const gr_vec3 c = centre_of_mass(b);
    const gr_vec3 dw = inverse_inertia(b, v3_cross(v3_sub(p, c), J));
    b->angular_velocity = v3_add(b->angular_velocity, dw);
    b->linear_velocity = v3_add(b->linear_velocity, v3_add(v3_scale(J, 1.0 / b->mass), v3_cross(dw, v3_sub(b->position, c))));
}

/* Sample k of free body b's shape, body frame, and its radius; false past the last. */
static bool sample(const gr_body_data *b, uint32_t k, gr_vec3 *x, double *r)
{
    *r = 0.0;
    switch (b->shape) {
    case GR_SHAPE_SPHERE:
        *x = v3(0, 0, 0), *r = b->radius;
        return k == 0;
    case GR_SHAPE_CAPSULE:
        *x = v3(0, b->half_height * ((double)k / 2.0 - 1.0), 0), *r = b->radius;
        return k < 5;
    case GR_SHAPE_BOX: { /* the 26 points of {-1, 0, 1}^3 but the centre */
        if (k >= 26)
            return false;
        const uint32_t i = k < 13 ? k : k + 1;
        const gr_vec3 h = b->half_extents;
        *x = v3(((double)(i % 3) - 1) * h.x, ((double)(i / 3 % 3) - 1) * h.y, ((double)(i / 9) - 1) * h.z);
        return true;
    }
    case GR_SHAPE_MESH:
        if (k >= b->mesh_vertex_count)
            return false;
        *x = b->mesh_vertices[k];
        return true;
    default:
        return false;
    }
}

static void tangents(gr_vec3 n, gr_vec3 t[2])
{
    const gr_vec3 a = fabs(n.x) < 0.6 ? v3(1, 0, 0) : v3(0, 1, 0);
    const gr_vec3 u = v3_cross(n, a);
    t[0] = v3_scale(u, 1.0 / v3_len(u));
    t[1] = v3_cross(n, t[0]);
}

/* Body a's samples near body b's surface into cc (a free, b any other). */
static void find(cont_contacts *cc, const gr_body_store *bs, const gr_materials *mats, uint32_t sa, uint32_t sb, double dt)
{
    const gr_body_data *a = &bs->data[sa], *b = &bs->data[sb];
    const double reach_a = gr_body_bound_radius(a), reach_b = gr_body_bound_radius(b);
    const double closing = v3_len(v3_sub(a->linear_velocity, b->linear_velocity)) +
                           reach_a * v3_len(a->angular_velocity) +
                           (isfinite(reach_b) ? reach_b * v3_len(b->angular_velocity) : 0.0);
    const double margin = 2 * closing * dt + 1e-4; /* (a sample further away cannot reach b within dt) */
    if (isfinite(reach_b) && v3_len(v3_sub(a->position, b->position)) > reach_a + reach_b + margin)
        return;
    gr_pair_coeffs pc;
    gr_materials_pair(mats, a->material, b->material, &pc);
    gr_vec3 x;
    double r;
    for (uint32_t k = 0; sample(a, k, &x, &r) && cc->n < CONT_MAX_CONTACTS; k++) {
        const gr_vec3 p = v3_add(a->position, quat_rotate(a->orientation, x));
        const uint32_t near = gr_body_features_near(b, p, r + margin);
        for (uint32_t f = 0; f < gr_body_feature_count(b) && cc->n < CONT_MAX_CONTACTS; f++) {
            if (!(near & (1u << f)) || !gr_body_feature_enabled(b, f))
                continue;
            gr_vec3 n, q;
            double d = gr_body_feature_distance(b, f, p, &n, &q);
            /* (a container's faces are thin two-sided plates: the body keeps to its centre's side) */
            if (b->shape == GR_SHAPE_CONTAINER && v3_dot(n, v3_sub(centre_of_mass(a), q)) < 0)
                n = v3_neg(n), d = -d;
            d -= r;
            if (!(d < margin))
                continue;
            cont_contact *c = &cc->c[cc->n++];
            c->a = sa, c->b = sb;
            c->p = q, c->n = n;
            tangents(n, c->t);
            c->target = d >= 0 ? -d / dt : -0.2 * d / dt;
            c->wn = inverse_mass_along(a, q, n) + inverse_mass_along(b, q, n);
            for (int j = 0; j < 2; j++)
                c->wt[j] = inverse_mass_along(a, q, c->t[j]) + inverse_mass_along(b, q, c->t[j]);
            c->mu = pc.friction;
            c->jn = c->jt[0] = c->jt[1] = 0.0;
        }
    }
}

static void apply(gr_body_store *bs, const cont_contact *c, gr_vec3 J)
{
    push(&bs->data[c->a], c->p, J);
    push(&bs->data[c->b], c->p, v3_neg(J));
}

static void report_one(gr_vec3 *report, uint32_t slots, uint32_t slot, const gr_body_data *b, gr_vec3 p, gr_vec3 J)
{
    if (slot >= slots)
        return;
    report[2 * (size_t)slot] = v3_add(report[2 * (size_t)slot], J);
    report[2 * (size_t)slot + 1] = v3_add(report[2 * (size_t)slot + 1], v3_cross(v3_sub(p, b->position), J));
}

void cont_contacts_solve(cont_contacts *cc, gr_body_store *bs, const gr_materials *mats, double dt, gr_vec3 *report,
                         uint32_t slots)
{
    cc->n = 0;
    for (uint32_t i = 0; i < bs->count; i++) {
        const uint32_t sa = bs->active[i];
        if (!cont_motion_is_free(bs->data[sa].motion))
            continue;
        for (uint32_t j = 0; j < bs->count; j++)
            if (j != i)
                find(cc, bs, mats, sa, bs->active[j], dt);
    }
    for (uint32_t sweep = 0; sweep < CONT_CONTACT_SWEEPS; sweep++)
        for (uint32_t k = 0; k < cc->n; k++) {
            cont_contact *c = &cc->c[k];
            const gr_body_data *a = &bs->data[c->a], *b = &bs->data[c->b];
            if (!(c->wn > 0))
                continue;
            /* the normal impulse: v_n up to the target, never pulling */
            gr_vec3 v = v3_sub(gr_body_point_velocity(a, c->p), gr_body_point_velocity(b, c->p));
            const double jn = fmax(c->jn + (c->target - v3_dot(v, c->n)) / c->wn, 0.0);
            apply(bs, c, v3_scale(c->n, jn - c->jn));
            c->jn = jn;
            /* friction: each tangent's impulse within mu jn */
            for (int t = 0; t < 2; t++) {
                v = v3_sub(gr_body_point_velocity(a, c->p), gr_body_point_velocity(b, c->p));
                const double lim = c->mu * c->jn;
                double jt = c->jt[t] - v3_dot(v, c->t[t]) / c->wt[t];
                jt = jt > lim ? lim : (jt < -lim ? -lim : jt);
                apply(bs, c, v3_scale(c->t[t], jt - c->jt[t]));
                c->jt[t] = jt;
            }
        }
    for (uint32_t k = 0; k < cc->n; k++) {
        const cont_contact *c = &cc->c[k];
        const gr_vec3 J = v3_add(v3_scale(c->n, c->jn), v3_add(v3_scale(c->t[0], c->jt[0]), v3_scale(c->t[1], c->jt[1])));
        report_one(report, slots, c->a, &bs->data[c->a], c->p, J);
        report_one(report, slots, c->b, &bs->data[c->b], c->p, v3_neg(J));
    }
}
