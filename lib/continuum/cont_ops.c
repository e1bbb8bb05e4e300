/* SPDX-License-Identifier: MIT */
#include "cont_ops.h"

void cont_div(const gr_sparse_grid *g, const cont_faces *u, double *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    for (uint32_t c = 0; c < cells; c++)
        out[c] = (cont_at(g, u->f[0], c, 1, 0, 0) - u->f[0][c] + cont_at(g, u->f[1], c, 0, 1, 0) - u->f[1][c] +
                  cont_at(g, u->f[2], c, 0, 0, 1) - u->f[2][c]) * inv_h;
}

void cont_grad(const gr_sparse_grid *g, const double *p, const cont_faces *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double inv_h = g->inv_h;
    for (uint32_t c = 0; c < cells; c++) {
        out->f[0][c] = (p[c] - cont_at(g, p, c, -1, 0, 0)) * inv_h;
        out->f[1][c] = (p[c] - cont_at(g, p, c, 0, -1, 0)) * inv_h;
        out->f[2][c] = (p[c] - cont_at(g, p, c, 0, 0, -1)) * inv_h;
    }
}

typedef struct stress_div_job {
    const gr_sparse_grid *g;
    const cont_stress *s;
    const cont_faces *out;
} stress_div_job;

static void stress_div_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const stress_div_job *j = (const stress_div_job *)ctx;
    for (uint32_t b = b0; b < b1; b++) {
        const cont_near_blocks nb = cont_near_blocks_of(j->g, b);
        for (uint32_t l = 0; l < 64; l++) {
            const uint32_t c = 64u * b + l;
            double d[3];
            cont_stress_div_faces_at(j->g, j->s, c, l, &nb, d);
            for (int a = 0; a < 3; a++)
                j->out->f[a][c] = d[a];
        }
    }
}

void cont_stress_div_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_stress *s, const cont_faces *out)
{
    stress_div_job j = {g, s, out};
    cont_for_blocks(tasks, g->block_count, stress_div_blocks, &j);
}

void cont_stress_div(const gr_sparse_grid *g, const cont_stress *s, const cont_faces *out)
{
    cont_stress_div_on(NULL, g, s, out);
}

typedef struct stress_div_t_job {
    const gr_sparse_grid *g;
    const cont_faces *u;
    const cont_stress *out;
} stress_div_t_job;

static void stress_div_t_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const stress_div_t_job *j = (const stress_div_t_job *)ctx;
    const cont_stress *out = j->out;
    for (uint32_t b = b0; b < b1; b++) {
        const cont_near_blocks nb = cont_near_blocks_of(j->g, b);
        for (uint32_t l = 0; l < 64; l++) {
            const uint32_t c = 64u * b + l;
            double t[5];
            cont_stress_div_t_at(j->g, j->u, c, l, &nb, 1.0, t);
            out->a[c] = t[0], out->b[c] = t[1], out->xy[c] = t[2], out->yz[c] = t[3], out->xz[c] = t[4];
        }
    }
}

void cont_stress_div_t_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_faces *u, const cont_stress *out)
{
    stress_div_t_job j = {g, u, out};
    cont_for_blocks(tasks, g->block_count, stress_div_t_blocks, &j);
}

void cont_stress_div_t(const gr_sparse_grid *g, const cont_faces *u, const cont_stress *out)
{
    cont_stress_div_t_on(NULL, g, u, out);
}
