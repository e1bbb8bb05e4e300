/* SPDX-License-Identifier: MIT */
#include "cont_shape.h"

#include "../geom/mass_props.h"

static void sym3_to_matrix(cont_sym3 A, double m[3][3])
{
    m[0][0] = A.xx, m[1][1] = A.yy, m[2][2] = A.zz;
    m[0][1] = m[1][0] = A.xy;
    m[1][2] = m[2][1] = A.yz;
    m[0][2] = m[2][0] = A.xz;
}

cont_sym3 cont_shape_advance(cont_sym3 A, const double J[9], double dt)
{
    double F[3][3], m[3][3], FA[3][3];
    sym3_to_matrix(A, m);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            F[a][b] = (a == b ? 1.0 : 0.0) + dt * J[3 * a + b];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            FA[a][b] = F[a][0] * m[0][b] + F[a][1] * m[1][b] + F[a][2] * m[2][b];
    /* (F A F^T)_ab = sum_c FA_ac F_bc: only the upper triangle, so the result is exactly
     * symmetric */
    double r[6];
    static const int ia[6] = {0, 1, 2, 0, 1, 0}, ib[6] = {0, 1, 2, 1, 2, 2};
    for (int k = 0; k < 6; k++)
        r[k] = FA[ia[k]][0] * F[ib[k]][0] + FA[ia[k]][1] * F[ib[k]][1] + FA[ia[k]][2] * F[ib[k]][2];
    return (cont_sym3){r[0], r[1], r[2], r[3], r[4], r[5]};
}

void cont_shape_axes(cont_sym3 A, double length[3], double axes[3][3])
{
    double m[3][3], values[3];
    sym3_to_matrix(A, m);
    gr_eigen_symmetric3(m, values, axes);
    for (int k = 0; k < 3; k++)
        length[k] = sqrt(values[k] > 0 ? values[k] : 0.0);
}

double cont_shape_volume(cont_sym3 A)
{
    const double det = A.xx * (A.yy * A.zz - A.yz * A.yz) - A.xy * (A.xy * A.zz - A.yz * A.xz) +
                       A.xz * (A.xy * A.yz - A.yy * A.xz);
    return 4.0 / 3.0 * GR_PI * sqrt(det > 0 ? det : 0.0);
}

static bool lengths_valid(const double length[3], double r)
{
    const double lo = r * 0.70710678118654752, hi = r * 1.4142135623730951;
    for (int k = 0; k < 3; k++)
        if (!(length[k] >= lo && length[k] <= hi))
            return false;
    return true;
}

bool cont_shape_valid(cont_sym3 A, double r)
{
    double length[3], axes[3][3];
    cont_shape_axes(A, length, axes);
    return lengths_valid(length, r);
}

bool cont_shape_split(const cont_blob *p, double r, cont_blob *a, cont_blob *b)
{
    double length[3], axes[3][3];
    cont_shape_axes(p->A, length, axes);
    const double half[3] = {length[0], length[1], 0.5 * length[2]};
    if (!lengths_valid(half, r))
        return false;
    const gr_vec3 e = v3(axes[0][2], axes[1][2], axes[2][2]);
    const double lambda = length[2] * length[2];
    /* A - 3/4 lambda e e^T: the longest axis halved, the others as they were */
    const double c = 0.75 * lambda;
    const cont_sym3 Ac = {p->A.xx - c * e.x * e.x, p->A.yy - c * e.y * e.y, p->A.zz - c * e.z * e.z,
                          p->A.xy - c * e.x * e.y, p->A.yz - c * e.y * e.z, p->A.xz - c * e.x * e.z};
    const gr_vec3 d = v3_scale(e, 0.86602540378443865 * length[2]);
    *a = (cont_blob){0.5 * p->m, v3_sub(p->x, d), p->v, Ac};
    *b = (cont_blob){0.5 * p->m, v3_add(p->x, d), p->v, Ac};
    return true;
}

cont_blob cont_shape_merge(const cont_blob *i, const cont_blob *j)
{
    const double m = i->m + j->m, wi = i->m / m, wj = j->m / m;
    const gr_vec3 x = v3_add(v3_scale(i->x, wi), v3_scale(j->x, wj));
    const gr_vec3 v = v3_add(v3_scale(i->v, wi), v3_scale(j->v, wj));
    const gr_vec3 di = v3_sub(i->x, x), dj = v3_sub(j->x, x);
    const cont_sym3 A = {
        wi * (i->A.xx + di.x * di.x) + wj * (j->A.xx + dj.x * dj.x),
        wi * (i->A.yy + di.y * di.y) + wj * (j->A.yy + dj.y * dj.y),
        wi * (i->A.zz + di.z * di.z) + wj * (j->A.zz + dj.z * dj.z),
        wi * (i->A.xy + di.x * di.y) + wj * (j->A.xy + dj.x * dj.y),
        wi * (i->A.yz + di.y * di.z) + wj * (j->A.yz + dj.y * dj.z),
        wi * (i->A.xz + di.x * di.z) + wj * (j->A.xz + dj.x * dj.z),
    };
    return (cont_blob){m, x, v, A};
}
