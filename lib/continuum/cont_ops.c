/* SPDX-License-Identifier: MIT */
#include "cont_ops.h"

#define SQRT1_2 0.70710678118654752440 /* 1 / sqrt 2 */
#define SQRT1_6 0.40824829046386301637 /* 1 / sqrt 6 */

/* The value of field f at the cell d away from c, zero outside the active blocks. */
static inline double at(const gr_sparse_grid *g, const double *f, uint32_t c, int dx, int dy, int dz)
{
    const uint32_t n = gr_sparse_grid_neighbor(g, c, dx, dy, dz);
    return n == GR_INVALID_INDEX ? 0.0 : f[n];
}

void cont_div(const gr_sparse_grid *g, const cont_faces *u, double *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    for (uint32_t c = 0; c < cells; c++)
        out[c] = (at(g, u->f[0], c, 1, 0, 0) - u->f[0][c] + at(g, u->f[1], c, 0, 1, 0) - u->f[1][c] +
                  at(g, u->f[2], c, 0, 0, 1) - u->f[2][c]) * inv_h;
}

void cont_grad(const gr_sparse_grid *g, const double *p, const cont_faces *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    for (uint32_t c = 0; c < cells; c++) {
        out->f[0][c] = (p[c] - at(g, p, c, -1, 0, 0)) * inv_h;
        out->f[1][c] = (p[c] - at(g, p, c, 0, -1, 0)) * inv_h;
        out->f[2][c] = (p[c] - at(g, p, c, 0, 0, -1)) * inv_h;
    }
}

/* The diagonal stress components of the traceless coefficients at cell c. */
static inline void diagonal(const cont_stress *s, uint32_t c, double d[3])
{
    const double a = s->a[c] * SQRT1_2, b = s->b[c] * SQRT1_6;
    d[0] = a + b;
    d[1] = b - a;
    d[2] = -2.0 * b;
}

static inline double diagonal_at(const gr_sparse_grid *g, const cont_stress *s, uint32_t c, int axis)
{
    const int d[3] = {axis == 0 ? -1 : 0, axis == 1 ? -1 : 0, axis == 2 ? -1 : 0};
    const uint32_t n = gr_sparse_grid_neighbor(g, c, d[0], d[1], d[2]);
    if (n == GR_INVALID_INDEX)
        return 0.0;
    double v[3];
    diagonal(s, n, v);
    return v[axis];
}

void cont_stress_div(const gr_sparse_grid *g, const cont_stress *s, const cont_faces *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    for (uint32_t c = 0; c < cells; c++) {
        double d[3];
        diagonal(s, c, d);
        out->f[0][c] = (d[0] - diagonal_at(g, s, c, 0) + at(g, s->xy, c, 0, 1, 0) - s->xy[c] +
                        at(g, s->xz, c, 0, 0, 1) - s->xz[c]) * inv_h;
        out->f[1][c] = (at(g, s->xy, c, 1, 0, 0) - s->xy[c] + d[1] - diagonal_at(g, s, c, 1) +
                        at(g, s->yz, c, 0, 0, 1) - s->yz[c]) * inv_h;
        out->f[2][c] = (at(g, s->xz, c, 1, 0, 0) - s->xz[c] + at(g, s->yz, c, 0, 1, 0) - s->yz[c] + d[2] -
                        diagonal_at(g, s, c, 2)) * inv_h;
    }
}

void cont_stress_div_t(const gr_sparse_grid *g, const cont_faces *u, const cont_stress *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    const double *ux = u->f[0], *uy = u->f[1], *uz = u->f[2];
    for (uint32_t c = 0; c < cells; c++) {
        /* the diagonal's transposes, then through the basis */
        const double gxx = (ux[c] - at(g, ux, c, 1, 0, 0)) * inv_h, gyy = (uy[c] - at(g, uy, c, 0, 1, 0)) * inv_h,
                     gzz = (uz[c] - at(g, uz, c, 0, 0, 1)) * inv_h;
        out->a[c] = (gxx - gyy) * SQRT1_2;
        out->b[c] = (gxx + gyy - 2.0 * gzz) * SQRT1_6;
        out->xy[c] = (at(g, ux, c, 0, -1, 0) - ux[c] + at(g, uy, c, -1, 0, 0) - uy[c]) * inv_h;
        out->yz[c] = (at(g, uy, c, 0, 0, -1) - uy[c] + at(g, uz, c, 0, -1, 0) - uz[c]) * inv_h;
        out->xz[c] = (at(g, ux, c, 0, 0, -1) - ux[c] + at(g, uz, c, -1, 0, 0) - uz[c]) * inv_h;
    }
}
