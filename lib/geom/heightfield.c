/* SPDX-License-Identifier: MIT */
#include "heightfield.h"

#include <math.h>

bool gr_hf_covers(const gr_heightfield *f, double x, double z)
{
    const double u = (x - f->origin.x) / f->spacing, w = (z - f->origin.z) / f->spacing;
    return u >= 0 && w >= 0 && u <= (double)(f->nx - 1) && w <= (double)(f->nz - 1);
}

void gr_hf_cell(const gr_heightfield *f, double x, double z, uint32_t *i, uint32_t *k, double *fu, double *fw)
{
    double u = (x - f->origin.x) / f->spacing, w = (z - f->origin.z) / f->spacing;
    const double umax = (double)(f->nx - 1), wmax = (double)(f->nz - 1);
    u = u > 0 ? (u < umax ? u : umax) : 0.0; /* also NaN -> 0 */
    w = w > 0 ? (w < wmax ? w : wmax) : 0.0;
    uint32_t a = (uint32_t)u, b = (uint32_t)w;
    if (a >= f->nx - 1)
        a = f->nx - 2;
    if (b >= f->nz - 1)
        b = f->nz - 2;
    *i = a, *k = b, *fu = u - a, *fw = w - b;
}

double gr_hf_surface(const gr_heightfield *f, double x, double z, double *slope_x, double *slope_z)
{
    uint32_t i, k;
    double fu, fw;
    gr_hf_cell(f, x, z, &i, &k, &fu, &fw);
    const double *h = f->h + gr_hf_index(f, i, k);
    const double h00 = h[0], h10 = h[1], h01 = h[f->nx], h11 = h[f->nx + 1];
    const double y0 = h00 + (h10 - h00) * fu, y1 = h01 + (h11 - h01) * fu;
    /* beyond the edge the edge height goes on: level across it */
    const double u = (x - f->origin.x) / f->spacing, w = (z - f->origin.z) / f->spacing;
    const bool out_u = !(u > 0 && u < (double)(f->nx - 1)), out_w = !(w > 0 && w < (double)(f->nz - 1));
    if (slope_x)
        *slope_x = out_u ? 0.0 : ((h10 - h00) * (1 - fw) + (h11 - h01) * fw) / f->spacing;
    if (slope_z)
        *slope_z = out_w ? 0.0 : (y1 - y0) / f->spacing;
    return f->origin.y + y0 + (y1 - y0) * fw;
}

double gr_hf_distance(const gr_heightfield *f, gr_vec3 p, gr_vec3 *normal, gr_vec3 *point)
{
    double sx, sz;
    const double y = gr_hf_surface(f, p.x, p.z, &sx, &sz);
    const double inv = 1.0 / sqrt(1.0 + sx * sx + sz * sz);
    const gr_vec3 n = v3(-sx * inv, inv, -sz * inv);
    const double d = (p.y - y) * inv;
    *normal = n;
    *point = v3_madd(p, n, -d);
    return d;
}

double gr_hf_max_height(const gr_heightfield *f)
{
    double m = 0;
    const size_t n = (size_t)f->nx * f->nz;
    for (size_t c = 0; c < n; c++)
        m = f->h[c] > m ? f->h[c] : m;
    return m;
}
