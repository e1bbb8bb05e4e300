/* SPDX-License-Identifier: MIT */
#include "cont_friction.h"

/* The faces a coefficient acts on: cell (offset from the coefficient's cell), axis and the
 * coefficient's factor there (times 1 / h), as cont_stress_div_face reads them. */
typedef struct touch {
    int8_t d[3];
    int8_t axis;
    double k;
} touch;

static const touch TOUCH_A[4] = {{{0, 0, 0}, 0, CONT_SQRT1_2}, {{1, 0, 0}, 0, -CONT_SQRT1_2},
                                 {{0, 0, 0}, 1, -CONT_SQRT1_2}, {{0, 1, 0}, 1, CONT_SQRT1_2}};
static const touch TOUCH_B[6] = {{{0, 0, 0}, 0, CONT_SQRT1_6}, {{1, 0, 0}, 0, -CONT_SQRT1_6},
                                 {{0, 0, 0}, 1, CONT_SQRT1_6}, {{0, 1, 0}, 1, -CONT_SQRT1_6},
                                 {{0, 0, 0}, 2, -2 * CONT_SQRT1_6}, {{0, 0, 1}, 2, 2 * CONT_SQRT1_6}};
static const touch TOUCH_XY[4] = {{{0, 0, 0}, 0, -1}, {{0, -1, 0}, 0, 1}, {{0, 0, 0}, 1, -1}, {{-1, 0, 0}, 1, 1}};
static const touch TOUCH_YZ[4] = {{{0, 0, 0}, 1, -1}, {{0, 0, -1}, 1, 1}, {{0, 0, 0}, 2, -1}, {{0, -1, 0}, 2, 1}};
static const touch TOUCH_XZ[4] = {{{0, 0, 0}, 0, -1}, {{0, 0, -1}, 0, 1}, {{0, 0, 0}, 2, -1}, {{-1, 0, 0}, 2, 1}};

static const touch *touches(int component, int *count)
{
    static const touch *const list[5] = {TOUCH_A, TOUCH_B, TOUCH_XY, TOUCH_YZ, TOUCH_XZ};
    *count = component == 1 ? 6 : 4;
    return list[component];
}

/* The mean of f over the 4 cells around an edge: the cell and its neighbours -e1, -e2, -e1-e2. */
static double edge_mean(const gr_sparse_grid *g, const double *f, uint32_t c, int e1, int e2)
{
    int d1[3] = {0, 0, 0}, d2[3] = {0, 0, 0};
    d1[e1] = -1, d2[e2] = -1;
    return 0.25 * (f[c] + cont_at(g, f, c, d1[0], d1[1], d1[2]) + cont_at(g, f, c, d2[0], d2[1], d2[2]) +
                   cont_at(g, f, c, d1[0] + d2[0], d1[1] + d2[1], d1[2] + d2[2]));
}

void cont_friction_setup(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p,
                         const double *alpha, double alpha0)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h, dt = cp->dt;
    /* b2 = dt D2^T (phi u) */
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            cf->scratch.f[a][c] = m->vol.f[a][c] * inv_h3 * u->f[a][c];
    const cont_stress q = cont_stress_view(cf->q, cells);
    cont_stress_div_t(g, &cf->scratch, &q);
    for (size_t i = 0; i < 5 * (size_t)cells; i++)
        cf->q[i] *= dt;
    /* the diagonal: dt^2 sum over the touched faces of (k / h)^2 W */
    const double k2 = dt * dt * g->inv_h * g->inv_h;
    double mean = 0;
    size_t counted = 0;
    for (int comp = 0; comp < 5; comp++) {
        int nt;
        const touch *t = touches(comp, &nt);
        for (uint32_t c = 0; c < cells; c++) {
            double d = 0;
            for (int j = 0; j < nt; j++) {
                const uint32_t f = gr_sparse_grid_neighbor(g, c, t[j].d[0], t[j].d[1], t[j].d[2]);
                if (f != GR_INVALID_INDEX)
                    d += t[j].k * t[j].k * cp->w.f[t[j].axis][f];
            }
            cf->diag[(size_t)comp * cells + c] = k2 * d;
            if (d > 0)
                mean += k2 * d, counted++;
        }
    }
    cf->eps = counted ? 1e-10 * mean / (double)counted : 0.0;
    /* the bounds: +-alpha p at the coefficient's place */
    for (uint32_t c = 0; c < cells; c++) {
        const double ac = alpha ? alpha[c] : alpha0;
        const double bound[5] = {
            ac * p[c],
            ac * p[c],
            (alpha ? edge_mean(g, alpha, c, 0, 1) : alpha0) * edge_mean(g, p, c, 0, 1),
            (alpha ? edge_mean(g, alpha, c, 1, 2) : alpha0) * edge_mean(g, p, c, 1, 2),
            (alpha ? edge_mean(g, alpha, c, 0, 2) : alpha0) * edge_mean(g, p, c, 0, 2),
        };
        for (int comp = 0; comp < 5; comp++) {
            const size_t i = (size_t)comp * cells + c;
            const double b = cf->diag[i] > 0 && bound[comp] > 0 ? bound[comp] : 0.0;
            cf->lo[i] = -b;
            cf->hi[i] = b;
            cf->diag[i] += cf->eps;
        }
    }
}

/* y = dt^2 D2^T W D2 x + eps x */
static void apply(void *ctx, const double *x, double *y)
{
    cont_friction *cf = (cont_friction *)ctx;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const cont_stress s = cont_stress_view((double *)x, cells), out = cont_stress_view(y, cells);
    cont_stress_div(g, &s, &cf->scratch);
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            cf->scratch.f[a][c] *= cp->w.f[a][c];
    cont_stress_div_t(g, &cf->scratch, &out);
    const double k = cp->dt * cp->dt;
    for (size_t i = 0; i < 5 * (size_t)cells; i++)
        y[i] = k * y[i] + cf->eps * x[i];
}

/* (A2 x)_i from the faces coefficient i touches. */
static double row(void *ctx, uint32_t i, const double *x)
{
    const cont_friction *cf = (const cont_friction *)ctx;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const int comp = (int)(i / cells);
    const uint32_t c = i % cells;
    const cont_stress s = cont_stress_view((double *)x, cells);
    int nt;
    const touch *t = touches(comp, &nt);
    double sum = 0;
    for (int j = 0; j < nt; j++) {
        const uint32_t f = gr_sparse_grid_neighbor(g, c, t[j].d[0], t[j].d[1], t[j].d[2]);
        if (f != GR_INVALID_INDEX && cp->w.f[t[j].axis][f] != 0)
            sum += t[j].k * g->inv_h * cp->w.f[t[j].axis][f] * cont_stress_div_face(g, &s, f, t[j].axis);
    }
    return cp->dt * cp->dt * sum + cf->eps * x[i];
}

gr_qp_problem cont_friction_problem(cont_friction *cf)
{
    return (gr_qp_problem){5 * gr_sparse_grid_cells(cf->cp->g), apply, row, cf, cf->diag, cf->q, cf->lo, cf->hi};
}

void cont_friction_apply(const cont_friction *cf, const double *s, const cont_faces *u)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const cont_stress v = cont_stress_view((double *)s, cells);
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            u->f[a][c] += cp->dt * cp->inv_rho.f[a][c] * cont_stress_div_face(g, &v, c, a);
}
