/* SPDX-License-Identifier: MIT */
/* Point-triangle queries for meshes: the closest point, and the solid angle a triangle
 * subtends (summed over a closed mesh: 4 pi inside, 0 outside: the winding number). */
#ifndef GR_GEOM_TRIANGLE_H
#define GR_GEOM_TRIANGLE_H

#include <math.h>

#include "../core/vec3.h"

/* Closest point on triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5); *region
 * is 0-2 for vertices a, b, c, 3-5 for edges ab, bc, ca, 6 for the face. */
static inline gr_vec3 gr_closest_on_triangle(gr_vec3 p, gr_vec3 a, gr_vec3 b, gr_vec3 c, int *region)
{
    const gr_vec3 ab = v3_sub(b, a), ac = v3_sub(c, a), ap = v3_sub(p, a);
    const double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { *region = 0; return a; }
    const gr_vec3 bp = v3_sub(p, b);
    const double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { *region = 1; return b; }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) { *region = 3; return v3_madd(a, ab, d1 / (d1 - d3)); }
    const gr_vec3 cp = v3_sub(p, c);
    const double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { *region = 2; return c; }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) { *region = 5; return v3_madd(a, ac, d2 / (d2 - d6)); }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        *region = 4;
        return v3_madd(b, v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    const double denom = 1.0 / (va + vb + vc);
    *region = 6;
    return v3_add(a, v3_add(v3_scale(ab, vb * denom), v3_scale(ac, vc * denom)));
}

/* Signed solid angle of triangle abc seen from p (Van Oosterom and Strackee 1983). */
static inline double gr_triangle_solid_angle(gr_vec3 p, gr_vec3 a, gr_vec3 b, gr_vec3 c)
{
    const gr_vec3 x = v3_sub(a, p), y = v3_sub(b, p), z = v3_sub(c, p);
    const double lx = v3_len(x), ly = v3_len(y), lz = v3_len(z);
    const double num = v3_dot(x, v3_cross(y, z));
    const double den = lx * ly * lz + v3_dot(x, y) * lz + v3_dot(y, z) * lx + v3_dot(z, x) * ly;
    return 2.0 * atan2(num, den);
}

#endif /* GR_GEOM_TRIANGLE_H */
