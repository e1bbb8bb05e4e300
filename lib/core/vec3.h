/* SPDX-License-Identifier: MIT */
/* Small inline vector and quaternion helpers on the public value types. */
#ifndef GR_GEOM_VEC3_H
#define GR_GEOM_VEC3_H

#include <math.h>

#include "common.h"

static inline gr_vec3 v3(double x, double y, double z) { gr_vec3 r = {x, y, z}; return r; }
static inline gr_vec3 v3_add(gr_vec3 a, gr_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline gr_vec3 v3_sub(gr_vec3 a, gr_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline gr_vec3 v3_scale(gr_vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline gr_vec3 v3_neg(gr_vec3 a) { return v3(-a.x, -a.y, -a.z); }
static inline double v3_dot(gr_vec3 a, gr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline gr_vec3 v3_cross(gr_vec3 a, gr_vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double v3_len2(gr_vec3 a) { return v3_dot(a, a); }
static inline double v3_len(gr_vec3 a) { return sqrt(v3_dot(a, a)); }
/// a + s b
static inline gr_vec3 v3_madd(gr_vec3 a, gr_vec3 b, double s) { return v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s); }
static inline bool v3_finite(gr_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static inline double v3_get(gr_vec3 a, int axis) { return axis == 0 ? a.x : (axis == 1 ? a.y : a.z); }
static inline void v3_set(gr_vec3 *a, int axis, double s)
{
    if (axis == 0) a->x = s; else if (axis == 1) a->y = s; else a->z = s;
}

static inline gr_quat quat_identity(void) { gr_quat q = {0, 0, 0, 1}; return q; }
static inline bool quat_finite(gr_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }
static inline double quat_len2(gr_quat q) { return q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w; }
static inline gr_quat quat_normalize(gr_quat q)
{
    double s = 1.0 / sqrt(quat_len2(q));
    gr_quat r = {q.x * s, q.y * s, q.z * s, q.w * s};
    return r;
}
static inline gr_quat quat_mul(gr_quat a, gr_quat b)
{
    gr_quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                 a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static inline gr_quat quat_conj(gr_quat q) { gr_quat r = {-q.x, -q.y, -q.z, q.w}; return r; }
/// Rotate v by unit quaternion q.
static inline gr_vec3 quat_rotate(gr_quat q, gr_vec3 v)
{
    gr_vec3 u = v3(q.x, q.y, q.z);
    gr_vec3 t = v3_scale(v3_cross(u, v), 2.0);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
static inline gr_vec3 quat_rotate_inv(gr_quat q, gr_vec3 v) { return quat_rotate(quat_conj(q), v); }
/// Exact rotation by angular velocity w over time h: exp(w h / 2) * q, normalised.
static inline gr_quat quat_integrate(gr_quat q, gr_vec3 w, double h)
{
    double angle = v3_len(w) * h;
    if (angle < 1e-12)
        return q;
    double s = sin(0.5 * angle) / v3_len(w);
    gr_quat dq = {w.x * s, w.y * s, w.z * s, cos(0.5 * angle)};
    return quat_normalize(quat_mul(dq, q));
}

#endif /* GR_GEOM_VEC3_H */
