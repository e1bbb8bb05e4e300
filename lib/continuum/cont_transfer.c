/* SPDX-License-Identifier: MIT */
#include "cont_transfer.h"

#include <string.h>

/* The 8 nodes of one staggered grid around a point: the cells owning them (d in -1..1 from the
 * point's cell c0), their trilinear weights, and the weights' derivatives (per unit length). */
typedef struct stencil {
    uint32_t cell[8];
    double w[8];
    double dw[8][3];
} stencil;

/* Offset and fraction along one axis: nodes at integer positions (a face grid's normal axis) or
 * at half-integers (its other axes, and the centres). f = the point's position in its cell. */
static inline void axis_weights(double f, bool half, int *off, double *t)
{
    if (!half) {
        *off = 0;
        *t = f;
    } else if (f >= 0.5) {
        *off = 0;
        *t = f - 0.5;
    } else {
        *off = -1;
        *t = f + 0.5;
    }
}

/* The stencil of the grid whose nodes sit at integer positions along `axis` (axis 3: centres,
 * half-integers on every axis) for the point at cell coordinates c0, fractions f; the weights'
 * derivatives only when `deriv`. The 8 cells as gr_sparse_grid_neighbor finds them, found per
 * axis once: each corner's local coordinate and block step (-1, 0, 1) along each axis, then one
 * read of the block's neighbour table a corner (its own block at 13). */
static void make_stencil(const gr_sparse_grid *g, uint32_t c0, const double f[3], int axis, bool deriv, stencil *s)
{
    int off[3];
    double t[3];
    for (int a = 0; a < 3; a++)
        axis_weights(f[a], a != axis, &off[a], &t[a]);
    const double inv_h = g->inv_h;
    const uint32_t *nbr = g->block_nbr + 27 * (size_t)(c0 >> 6);
    uint32_t local[3][2], step[3][2];
    double w1[3][2], d1[2] = {-inv_h, inv_h};
    static const uint32_t scale_local[3] = {1, 4, 16}, scale_step[3] = {1, 3, 9};
    for (int a = 0; a < 3; a++) {
        const int l = (int)((c0 >> (2 * a)) & 3u) + off[a]; /* -1..3 */
        for (int b = 0; b < 2; b++) {
            const int lb = l + b; /* -1..4: a block below, this one, or the one above */
            local[a][b] = ((uint32_t)lb & 3u) * scale_local[a];
            step[a][b] = (uint32_t)((lb + 4) >> 2) * scale_step[a];
        }
        w1[a][0] = 1.0 - t[a];
        w1[a][1] = t[a];
    }
    /* corner k = (bx, by, bz) = bits of k: the x-y square's four once, then its two layers;
     * each product in the order w_x w_y w_z */
    uint32_t sxy[4], lxy[4];
    double wxy[4], dx_y[4], x_dy[4];
    for (int j = 0; j < 4; j++) {
        const int bx = j & 1, by = j >> 1;
        sxy[j] = step[0][bx] + step[1][by];
        lxy[j] = local[0][bx] + local[1][by];
        wxy[j] = w1[0][bx] * w1[1][by];
        dx_y[j] = d1[bx] * w1[1][by];
        x_dy[j] = w1[0][bx] * d1[by];
    }
    for (int bz = 0; bz < 2; bz++) {
        const double wz = w1[2][bz];
        for (int j = 0; j < 4; j++) {
            const int k = 4 * bz + j;
            const uint32_t nb = nbr[sxy[j] + step[2][bz]];
            s->cell[k] = nb == GR_INVALID_INDEX ? nb : nb * 64u + lxy[j] + local[2][bz];
            s->w[k] = wxy[j] * wz;
            if (deriv) {
                s->dw[k][0] = dx_y[j] * wz;
                s->dw[k][1] = x_dy[j] * wz;
                s->dw[k][2] = wxy[j] * d1[bz];
            }
        }
    }
}

/* The fractions of x within cell coordinates c (clamped into [0, 1]: rounding at an edge). */
static void fractions(const gr_sparse_grid *g, gr_vec3 x, const int32_t c[3], double f[3])
{
    f[0] = (x.x - g->origin.x) * g->inv_h - c[0];
    f[1] = (x.y - g->origin.y) * g->inv_h - c[1];
    f[2] = (x.z - g->origin.z) * g->inv_h - c[2];
    for (int a = 0; a < 3; a++)
        f[a] = f[a] < 0 ? 0 : (f[a] > 1 ? 1 : f[a]);
}

/* The point's cell (by hashing) and its fractions; false when it has no active cell. */
static bool locate(const gr_sparse_grid *g, gr_vec3 x, uint32_t *cell, double f[3])
{
    int32_t c[3];
    if (!gr_sparse_grid_locate(g, x, c))
        return false;
    const uint32_t i = gr_sparse_grid_cell(g, c[0], c[1], c[2]);
    if (i == GR_INVALID_INDEX)
        return false;
    fractions(g, x, c, f);
    *cell = i;
    return true;
}

/* Particle i's cell from the grid's build (its position unchanged since) and its fractions. */
static bool particle_cell(const gr_sparse_grid *g, const cont_particle_view *p, uint32_t i, uint32_t *cell, double f[3])
{
    const uint32_t c0 = g->point_cell[i];
    if (c0 == GR_INVALID_INDEX)
        return false;
    int32_t c[3];
    gr_sparse_grid_cell_coords(g, c0, c);
    fractions(g, p->x[i], c, f);
    *cell = c0;
    return true;
}

void cont_particles_to_grid(const gr_sparse_grid *g, const cont_particle_view *p, const cont_grid_mass *out)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    for (int a = 0; a < 3; a++) {
        memset(out->mass.f[a], 0, sizeof(double) * cells);
        memset(out->vol.f[a], 0, sizeof(double) * cells);
        memset(out->u.f[a], 0, sizeof(double) * cells);
    }
    memset(out->phi, 0, sizeof(double) * cells);
    if (p->alpha)
        memset(out->alpha, 0, sizeof(double) * cells);
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    for (uint32_t i = 0; i < p->n; i++) {
        uint32_t c0;
        double f[3];
        if (!particle_cell(g, p, i, &c0, f))
            continue;
        const double vel[3] = {p->v[i].x, p->v[i].y, p->v[i].z};
        stencil s;
        for (int a = 0; a < 3; a++) {
            make_stencil(g, c0, f, a, false, &s);
            for (int k = 0; k < 8; k++) {
                if (s.cell[k] == GR_INVALID_INDEX)
                    continue; /* (not with a halo of 1: every node's cell is active) */
                out->mass.f[a][s.cell[k]] += p->m[i] * s.w[k];
                out->vol.f[a][s.cell[k]] += p->vmin[i] * s.w[k];
                out->u.f[a][s.cell[k]] += p->m[i] * s.w[k] * vel[a];
            }
        }
        make_stencil(g, c0, f, 3, false, &s);
        for (int k = 0; k < 8; k++)
            if (s.cell[k] != GR_INVALID_INDEX) {
                out->phi[s.cell[k]] += p->vmin[i] * s.w[k] * inv_h3;
                if (p->alpha)
                    out->alpha[s.cell[k]] += p->vmin[i] * s.w[k] * inv_h3 * p->alpha[i];
            }
    }
    if (p->alpha) /* the mean by packed volume */
        for (uint32_t c = 0; c < cells; c++)
            out->alpha[c] = out->phi[c] > 0 ? out->alpha[c] / out->phi[c] : 0.0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            out->u.f[a][c] = out->mass.f[a][c] > 0 ? out->u.f[a][c] / out->mass.f[a][c] : 0.0;
}

/* Interpolate the three face grids of u (and of u2 when given) at a located point: velocity,
 * and optionally u's gradient. One stencil per axis serves both fields. */
static void interpolate(const gr_sparse_grid *g, uint32_t c0, const double f[3], const cont_faces *u, double v[3],
                        double *grad, const cont_faces *u2, double v2[3])
{
    stencil s;
    for (int a = 0; a < 3; a++) {
        make_stencil(g, c0, f, a, grad != NULL, &s);
        double sum = 0, d[3] = {0, 0, 0}, sum2 = 0;
        for (int k = 0; k < 8; k++) {
            if (s.cell[k] == GR_INVALID_INDEX)
                continue;
            const double x = u->f[a][s.cell[k]];
            sum += s.w[k] * x;
            if (grad)
                d[0] += s.dw[k][0] * x, d[1] += s.dw[k][1] * x, d[2] += s.dw[k][2] * x;
            if (u2)
                sum2 += s.w[k] * u2->f[a][s.cell[k]];
        }
        v[a] = sum;
        if (u2)
            v2[a] = sum2;
        if (grad)
            grad[3 * a] = d[0], grad[3 * a + 1] = d[1], grad[3 * a + 2] = d[2];
    }
}

bool cont_velocity_at(const gr_sparse_grid *g, const cont_faces *u, gr_vec3 x, gr_vec3 *v)
{
    uint32_t c0;
    double f[3], w[3];
    if (!locate(g, x, &c0, f)) {
        *v = v3(0, 0, 0);
        return false;
    }
    interpolate(g, c0, f, u, w, NULL, NULL, NULL);
    *v = v3(w[0], w[1], w[2]);
    return true;
}

typedef struct g2p_job {
    const gr_sparse_grid *g;
    const cont_particle_view *p;
    const cont_faces *u, *u_old;
    double pic;
    double *grad;
    gr_vec3 *flow;
} g2p_job;

/* Particles [i0, i1): each writes only its own velocity, gradient and flow. */
static void g2p_range(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const g2p_job *j = (const g2p_job *)ctx;
    const gr_sparse_grid *g = j->g;
    const cont_particle_view *p = j->p;
    const double pic = j->pic;
    double *grad = j->grad;
    gr_vec3 *flow = j->flow;
    for (uint32_t i = i0; i < i1; i++) {
        uint32_t c0;
        double f[3];
        if (!particle_cell(g, p, i, &c0, f)) {
            if (grad)
                memset(grad + 9 * (size_t)i, 0, sizeof(double) * 9);
            if (flow)
                flow[i] = p->v[i];
            continue;
        }
        double now[3], before[3];
        interpolate(g, c0, f, j->u, now, grad ? grad + 9 * (size_t)i : NULL, j->u_old, before);
        const double old[3] = {p->v[i].x, p->v[i].y, p->v[i].z};
        double nv[3];
        for (int a = 0; a < 3; a++)
            nv[a] = (1.0 - pic) * (old[a] + now[a] - before[a]) + pic * now[a];
        p->v[i] = v3(nv[0], nv[1], nv[2]);
        if (flow)
            flow[i] = v3(now[0], now[1], now[2]);
    }
}

void cont_grid_to_particles_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_particle_view *p,
                               const cont_faces *u, const cont_faces *u_old, double pic, double *grad, gr_vec3 *flow)
{
    g2p_job j = {g, p, u, u_old, pic, grad, flow};
    if (!tasks || tasks->worker_count <= 1 || p->n <= CONT_PARTICLES_PER_TASK)
        g2p_range(&j, 0, p->n, 0);
    else
        gr_parallel_for(tasks, p->n, CONT_PARTICLES_PER_TASK, g2p_range, &j);
}

void cont_grid_to_particles(const gr_sparse_grid *g, const cont_particle_view *p, const cont_faces *u,
                            const cont_faces *u_old, double pic, double *grad, gr_vec3 *flow)
{
    cont_grid_to_particles_on(NULL, g, p, u, u_old, pic, grad, flow);
}
