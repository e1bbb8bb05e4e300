/* SPDX-License-Identifier: MIT */
#include "cont_density.h"

#include <string.h>

#include "../qp/qp_mprgp.h"

void cont_density_setup(cont_pressure *cp, const cont_grid_mass *m, const double *solid)
{
    const uint32_t cells = gr_sparse_grid_cells(cp->g);
    cp->dt = 1.0;
    cont_pressure_weights(cp, m, solid);
    for (uint32_t c = 0; c < cells; c++)
        cp->q[c] = 1.0 - (solid ? solid[c] : 0.0) - m->phi[c];
    cont_pressure_bound(cp, m, solid, NULL);
}

void cont_density_displacement(const cont_pressure *cp, const cont_grid_mass *m, const double *y,
                               const cont_faces *dx)
{
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    cont_grad(g, y, &cp->scratch);
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++) {
            dx->f[a][c] = -cp->dt * cp->inv_rho.f[a][c] * cp->scratch.f[a][c];
            cp->scratch.f[a][c] = m->vol.f[a][c] * inv_h3 * dx->f[a][c];
        }
    /* eq. 14: phi <- phi - D (phi_f dx), the divergence into q's array, then subtracted */
    cont_div(g, &cp->scratch, cp->q);
    for (uint32_t c = 0; c < cells; c++)
        m->phi[c] -= cp->q[c];
}

double cont_density_objective(const cont_pressure *cp, const double *y)
{
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    /* (A1 = dt^2 D1^T W D1 with D1 the gradient of cont_grad: the face below c on axis a) */
    cont_grad(g, y, &cp->scratch);
    double quad = 0, lin = 0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            quad += cp->w.f[a][c] * cp->scratch.f[a][c] * cp->scratch.f[a][c];
    for (uint32_t c = 0; c < cells; c++)
        lin += cp->q[c] * y[c];
    return 0.5 * cp->dt * cp->dt * quad + lin;
}

/* The warm start onto the bounds; zero unless below the cold start's objective (cont_density.h). */
static bool warm_start(const cont_pressure *cp, double *y)
{
    const uint32_t cells = gr_sparse_grid_cells(cp->g);
    bool any = false;
    for (uint32_t c = 0; c < cells; c++) {
        y[c] = gr_qp_clamp(y[c], cp->lo[c], cp->hi[c]);
        any = any || y[c] != 0;
    }
    if (!any)
        return false;
    if (cont_density_objective(cp, y) < 0)
        return true;
    memset(y, 0, sizeof(double) * cells);
    return false;
}

gr_status cont_density_correct(cont_pressure *cp, const cont_grid_mass *m, const double *solid, gr_qp_workspace *ws,
                               const gr_qp_settings *settings, double *y, const cont_faces *dx, gr_qp_stats *stats,
                               bool *warm)
{
    cont_density_setup(cp, m, solid);
    const bool kept = warm_start(cp, y);
    if (warm)
        *warm = kept;
    const gr_qp_problem pr = cont_pressure_problem(cp);
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    if (set.alpha_bar == 0) {
        /* A1 is a weighted Laplacian: a row's off-diagonals (-W of its faces) sum to at most its
         * diagonal, so 2 max diag (over the unfixed cells) bounds its norm: no Lanczos estimate */
        double d = 0;
        for (uint32_t c = 0; c < pr.n; c++)
            if (cp->lo[c] < cp->hi[c])
                d = fmax(d, cp->diag[c]);
        set.alpha_bar = d > 0 ? 1.9 / (2 * d) : 1.0;
    }
    const gr_status s = cont_pressure_solve(cp, ws, &set, y, stats);
    if (s != GR_OK)
        return s;
    cont_density_displacement(cp, m, y, dx);
    return GR_OK;
}

bool cont_density_displacement_at(const gr_sparse_grid *g, const cont_faces *dx, gr_vec3 x, gr_vec3 *d)
{
    return cont_velocity_at(g, dx, x, d);
}

gr_vec3 cont_density_particle(const gr_sparse_grid *g, const cont_faces *dx, gr_vec3 x, double dt, gr_vec3 *v)
{
    gr_vec3 d;
    if (!cont_velocity_at(g, dx, x, &d))
        return d;
    const double n = v3_len(d);
    if (v && n > 0 && dt > 0) {
        const double vn = v3_dot(*v, d) / n; /* the speed along d: < 0 against it */
        if (vn < 0)
            *v = v3_madd(*v, d, -fmax(vn, -n / dt) / n);
    }
    return d;
}

void cont_density_reach(const gr_sparse_grid *g, const cont_faces *dx, uint8_t *near)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    if (cells == 0) /* (no grid: near may be NULL) */
        return;
    memset(near, 0, cells);
    for (uint32_t c = 0; c < cells; c++) {
        if (dx->f[0][c] == 0 && dx->f[1][c] == 0 && dx->f[2][c] == 0)
            continue;
        for (int k = -1; k <= 1; k++)
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    const uint32_t n = gr_sparse_grid_neighbor(g, c, i, j, k);
                    if (n != GR_INVALID_INDEX)
                        near[n] = 1;
                }
    }
}
