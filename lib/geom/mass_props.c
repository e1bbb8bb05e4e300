/* SPDX-License-Identifier: MIT */
#include "mass_props.h"

#include <math.h>

#include "../core/sort.h"

/* ---- union of spheres ----------------------------------------------------------------- */

typedef struct interval {
    double lo, hi;
} interval;

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = (const interval *)a, *y = (const interval *)b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

void gr_mass_props_spheres(const gr_vec3 *c, const double *r, uint32_t count, double cell, double *scratch,
                           gr_mass_props *out)
{
    memset(out, 0, sizeof *out);
    if (count == 0 || !(cell > 0))
        return;
    gr_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = 0; k < count; k++) {
        lo.x = GR_MIN(lo.x, c[k].x - r[k]);
        lo.y = GR_MIN(lo.y, c[k].y - r[k]);
        hi.x = GR_MAX(hi.x, c[k].x + r[k]);
        hi.y = GR_MAX(hi.y, c[k].y + r[k]);
    }
    const int nx = (int)ceil((hi.x - lo.x) / cell), ny = (int)ceil((hi.y - lo.y) / cell);
    interval *iv = (interval *)(void *)scratch, *iv_scratch = iv + count;
    /* raw moments: M0 = V, M1 = sum x, M2 = sum x x^T (about the origin) */
    double m0 = 0, m1[3] = {0, 0, 0}, m2[3][3] = {{0}};
    const double da = cell * cell;
    for (int ix = 0; ix < nx; ix++)
        for (int iy = 0; iy < ny; iy++) {
            const double x = lo.x + (ix + 0.5) * cell, y = lo.y + (iy + 0.5) * cell;
            uint32_t n = 0;
            for (uint32_t k = 0; k < count; k++) {
                const double dx = x - c[k].x, dy = y - c[k].y;
                const double h2 = r[k] * r[k] - dx * dx - dy * dy;
                if (h2 > 0) {
                    const double hz = sqrt(h2);
                    iv[n].lo = c[k].z - hz;
                    iv[n].hi = c[k].z + hz;
                    n++;
                }
            }
            if (n == 0)
                continue;
            gr_sort(iv, n, sizeof(interval), cmp_interval, iv_scratch);
            /* integrate 1, z, z^2 over the union of the chords */
            double a = iv[0].lo, b = iv[0].hi;
            for (uint32_t k = 1; k <= n; k++) {
                if (k < n && iv[k].lo <= b) {
                    b = GR_MAX(b, iv[k].hi);
                    continue;
                }
                const double l = b - a, z1 = 0.5 * (b * b - a * a), z2 = (b * b * b - a * a * a) / 3.0;
                m0 += da * l;
                m1[0] += da * x * l;
                m1[1] += da * y * l;
                m1[2] += da * z1;
                m2[0][0] += da * (x * x * l + cell * cell / 12.0 * l); /* the column's own width */
                m2[1][1] += da * (y * y * l + cell * cell / 12.0 * l);
                m2[2][2] += da * z2;
                m2[0][1] += da * x * y * l;
                m2[0][2] += da * x * z1;
                m2[1][2] += da * y * z1;
                if (k < n) {
                    a = iv[k].lo;
                    b = iv[k].hi;
                }
            }
        }
    out->volume = m0;
    if (m0 <= 0)
        return;
    const gr_vec3 cm = {m1[0] / m0, m1[1] / m0, m1[2] / m0};
    out->centre = cm;
    const double cv[3] = {cm.x, cm.y, cm.z};
    double s[3][3]; /* second moments about the centre */
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            s[i][j] = m2[i][j] - m0 * cv[i] * cv[j];
            s[j][i] = s[i][j];
        }
    const double tr = s[0][0] + s[1][1] + s[2][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->inertia[i][j] = (i == j ? tr : 0.0) - s[i][j];
}

/* ---- closed triangle mesh ------------------------------------------------------------------- */

void gr_mass_props_mesh(const gr_vec3 *v, const uint32_t *idx, uint32_t triangles, gr_mass_props *out)
{
    memset(out, 0, sizeof *out);
    /* covariance of the canonical tetrahedron (0, e1, e2, e3) with unit determinant */
    static const double canon[3][3] = {{2.0 / 120, 1.0 / 120, 1.0 / 120},
                                       {1.0 / 120, 2.0 / 120, 1.0 / 120},
                                       {1.0 / 120, 1.0 / 120, 2.0 / 120}};
    double vol = 0, cm[3] = {0, 0, 0}, cov[3][3] = {{0}};
    for (uint32_t t = 0; t < triangles; t++) {
        const gr_vec3 a = v[idx[3 * t]], b = v[idx[3 * t + 1]], c = v[idx[3 * t + 2]];
        const double A[3][3] = {{a.x, b.x, c.x}, {a.y, b.y, c.y}, {a.z, b.z, c.z}};
        const double det = a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x);
        const double tv = det / 6.0;
        vol += tv;
        cm[0] += tv * (a.x + b.x + c.x) / 4.0;
        cm[1] += tv * (a.y + b.y + c.y) / 4.0;
        cm[2] += tv * (a.z + b.z + c.z) / 4.0;
        /* cov += det A canon A^T */
        double ac[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                ac[i][j] = A[i][0] * canon[0][j] + A[i][1] * canon[1][j] + A[i][2] * canon[2][j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                cov[i][j] += det * (ac[i][0] * A[j][0] + ac[i][1] * A[j][1] + ac[i][2] * A[j][2]);
    }
    out->volume = vol;
    if (vol == 0)
        return;
    const double c[3] = {cm[0] / vol, cm[1] / vol, cm[2] / vol};
    out->centre = (gr_vec3){c[0], c[1], c[2]};
    double s[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s[i][j] = cov[i][j] - vol * c[i] * c[j];
    const double tr = s[0][0] + s[1][1] + s[2][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->inertia[i][j] = (i == j ? tr : 0.0) - s[i][j];
}

/* ---- symmetric eigen-decomposition ---------------------------------------------------------- */

void gr_eigen_symmetric3(const double m[3][3], double values[3], double vectors[3][3])
{
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(a, m, sizeof a);
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (off <= 1e-15 * scale || off == 0)
            break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0)
                    continue;
                /* rotation that zeroes a[p][q] */
                const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double cs = 1.0 / sqrt(t * t + 1.0), sn = t * cs;
                for (int k = 0; k < 3; k++) {
                    const double akp = a[k][p], akq = a[k][q];
                    a[k][p] = cs * akp - sn * akq;
                    a[k][q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < 3; k++) {
                    const double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = cs * apk - sn * aqk;
                    a[q][k] = sn * apk + cs * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    const double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = cs * vkp - sn * vkq;
                    v[k][q] = sn * vkp + cs * vkq;
                }
            }
    }
    /* sort ascending, keep columns with their values */
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (a[order[j]][order[j]] < a[order[i]][order[i]]) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    for (int i = 0; i < 3; i++) {
        values[i] = a[order[i]][order[i]];
        for (int k = 0; k < 3; k++)
            vectors[k][i] = v[k][order[i]];
    }
    /* right-handed: third column = first x second */
    const double cx = vectors[1][0] * vectors[2][1] - vectors[2][0] * vectors[1][1];
    const double cy = vectors[2][0] * vectors[0][1] - vectors[0][0] * vectors[2][1];
    const double cz = vectors[0][0] * vectors[1][1] - vectors[1][0] * vectors[0][1];
    if (cx * vectors[0][2] + cy * vectors[1][2] + cz * vectors[2][2] < 0)
        for (int k = 0; k < 3; k++)
            vectors[k][2] = -vectors[k][2];
}

gr_quat gr_quat_from_matrix(const double r[3][3])
{
    gr_quat q;
    const double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0) {
        const double s = 2.0 * sqrt(tr + 1.0);
        q.w = 0.25 * s;
        q.x = (r[2][1] - r[1][2]) / s;
        q.y = (r[0][2] - r[2][0]) / s;
        q.z = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        const double s = 2.0 * sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
        q.w = (r[2][1] - r[1][2]) / s;
        q.x = 0.25 * s;
        q.y = (r[0][1] + r[1][0]) / s;
        q.z = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        const double s = 2.0 * sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
        q.w = (r[0][2] - r[2][0]) / s;
        q.x = (r[0][1] + r[1][0]) / s;
        q.y = 0.25 * s;
        q.z = (r[1][2] + r[2][1]) / s;
    } else {
        const double s = 2.0 * sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
        q.w = (r[1][0] - r[0][1]) / s;
        q.x = (r[0][2] + r[2][0]) / s;
        q.y = (r[1][2] + r[2][1]) / s;
        q.z = 0.25 * s;
    }
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q.x /= n;
    q.y /= n;
    q.z /= n;
    q.w /= n;
    return q;
}
