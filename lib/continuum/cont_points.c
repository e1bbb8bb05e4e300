/* SPDX-License-Identifier: MIT */
#include "cont_points.h"

#include <string.h>

#include "../core/rng.h"

/* A = L L^T (lower L as l[0..5]: 00, 10, 11, 20, 21, 22); false when A is not positive definite. */
static bool cholesky(cont_sym3 A, double l[6])
{
    l[0] = sqrt(A.xx);
    if (!(l[0] > 0))
        return false;
    l[1] = A.xy / l[0];
    l[3] = A.xz / l[0];
    const double d1 = A.yy - l[1] * l[1];
    if (!(d1 > 0))
        return false;
    l[2] = sqrt(d1);
    l[4] = (A.yz - l[3] * l[1]) / l[2];
    const double d2 = A.zz - l[3] * l[3] - l[4] * l[4];
    if (!(d2 > 0))
        return false;
    l[5] = sqrt(d2);
    return true;
}

/* d^T A^-1 d, as |L^-1 d|^2; infinite for a degenerate A. */
static double measure(const double l[6], gr_vec3 d)
{
    const double y0 = d.x / l[0], y1 = (d.y - l[1] * y0) / l[2], y2 = (d.z - l[3] * y0 - l[4] * y1) / l[5];
    return y0 * y0 + y1 * y1 + y2 * y2;
}

bool cont_points_inside(cont_sym3 A, gr_vec3 d, double slack)
{
    double l[6];
    return cholesky(A, l) && measure(l, d) <= 1 + slack;
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

void cont_points_sample(cont_state *st, uint32_t i, uint32_t from)
{
    const uint32_t K = st->par.points;
    gr_vec3 *p = st->pts + (size_t)K * i;
    double l[6];
    if (!cholesky(st->shape[i], l)) { /* (a degenerate shape: the points sit at the centre) */
        for (uint32_t k = from; k < K; k++)
            p[k] = v3(0, 0, 0);
        return;
    }
    /* seeded by the particle's state, so that the same state samples the same points */
    gr_rng g = {bits(st->x[i].x) ^ (bits(st->x[i].y) * 0x9E3779B97F4A7C15ull) ^ (bits(st->x[i].z) << 17) ^
                ((uint64_t)st->slot[i] << 32) ^ from};
    for (uint32_t k = from; k < K; k++) {
        double u[3], r2;
        do { /* uniform in the unit ball, then by L into the ellipsoid */
            for (int a = 0; a < 3; a++)
                u[a] = 2 * gr_rng_uniform(&g) - 1;
            r2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        } while (r2 > 1);
        p[k] = v3(l[0] * u[0], l[1] * u[0] + l[2] * u[1], l[3] * u[0] + l[4] * u[1] + l[5] * u[2]);
    }
}

void cont_points_advance(cont_state *st, uint32_t i, const double J[9], double dt)
{
    const uint32_t K = st->par.points;
    gr_vec3 *p = st->pts + (size_t)K * i;
    for (uint32_t k = 0; k < K; k++) {
        const gr_vec3 d = p[k];
        p[k] = v3(d.x + dt * (J[0] * d.x + J[1] * d.y + J[2] * d.z), d.y + dt * (J[3] * d.x + J[4] * d.y + J[5] * d.z),
                  d.z + dt * (J[6] * d.x + J[7] * d.y + J[8] * d.z));
    }
}

/* Keep the points (world positions `pos`, count m) that lie inside particle i's ellipsoid, the
 * innermost first, at most par.points of them; sample the rest. */
static void take_points(cont_state *st, uint32_t i, const gr_vec3 *pos, uint32_t m)
{
    const uint32_t K = st->par.points;
    double l[6], q[2 * CONT_MAX_POINTS];
    uint32_t order[2 * CONT_MAX_POINTS], kept = 0;
    if (cholesky(st->shape[i], l))
        for (uint32_t a = 0; a < m; a++) {
            const double qa = measure(l, v3_sub(pos[a], st->x[i]));
            if (!(qa <= 1))
                continue;
            uint32_t b = kept++; /* insertion by q, ties in input order */
            while (b > 0 && q[b - 1] > qa) {
                q[b] = q[b - 1], order[b] = order[b - 1];
                b--;
            }
            q[b] = qa, order[b] = a;
        }
    if (kept > K)
        kept = K;
    gr_vec3 *p = st->pts + (size_t)K * i;
    for (uint32_t k = 0; k < kept; k++)
        p[k] = v3_sub(pos[order[k]], st->x[i]);
    cont_points_sample(st, i, kept);
}

void cont_points_split(cont_state *st, uint32_t i, uint32_t j, gr_vec3 x_old, gr_vec3 e, const gr_vec3 *old)
{
    const uint32_t K = st->par.points;
    gr_vec3 side[2][CONT_MAX_POINTS];
    uint32_t count[2] = {0, 0};
    for (uint32_t k = 0; k < K; k++) {
        const int s = v3_dot(old[k], e) > 0;
        side[s][count[s]++] = v3_add(x_old, old[k]);
    }
    take_points(st, i, side[0], count[0]);
    take_points(st, j, side[1], count[1]);
}

void cont_points_merge(cont_state *st, uint32_t i, const gr_vec3 *old_i, gr_vec3 xi, uint32_t j)
{
    const uint32_t K = st->par.points;
    gr_vec3 pos[2 * CONT_MAX_POINTS];
    for (uint32_t k = 0; k < K; k++) {
        pos[k] = v3_add(xi, old_i[k]);
        pos[K + k] = v3_add(st->x[j], st->pts[(size_t)K * j + k]);
    }
    take_points(st, i, pos, 2 * K);
}
