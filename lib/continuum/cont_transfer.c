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
 * half-integers on every axis) for the point at cell coordinates c0, fractions f. */
static void make_stencil(const gr_sparse_grid *g, uint32_t c0, const double f[3], int axis, stencil *s)
{
    int off[3];
    double t[3];
    for (int a = 0; a < 3; a++)
        axis_weights(f[a], a != axis, &off[a], &t[a]);
    const double inv_h = g->inv_h;
    for (int k = 0; k < 8; k++) {
        const int b[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
        double w1[3], d1[3];
        for (int a = 0; a < 3; a++) {
            w1[a] = b[a] ? t[a] : 1.0 - t[a];
            d1[a] = (b[a] ? 1.0 : -1.0) * inv_h;
        }
        s->cell[k] = gr_sparse_grid_neighbor(g, c0, off[0] + b[0], off[1] + b[1], off[2] + b[2]);
        s->w[k] = w1[0] * w1[1] * w1[2];
        s->dw[k][0] = d1[0] * w1[1] * w1[2];
        s->dw[k][1] = w1[0] * d1[1] * w1[2];
        s->dw[k][2] = w1[0] * w1[1] * d1[2];
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
            make_stencil(g, c0, f, a, &s);
            for (int k = 0; k < 8; k++) {
                if (s.cell[k] == GR_INVALID_INDEX)
                    continue; /* (not with a halo of 1: every node's cell is active) */
                out->mass.f[a][s.cell[k]] += p->m[i] * s.w[k];
                out->vol.f[a][s.cell[k]] += p->vmin[i] * s.w[k];
                out->u.f[a][s.cell[k]] += p->m[i] * s.w[k] * vel[a];
            }
        }
        make_stencil(g, c0, f, 3, &s);
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

/* Interpolate the three face grids at a located point: velocity, and optionally its gradient. */
static void interpolate(const gr_sparse_grid *g, uint32_t c0, const double f[3], const cont_faces *u, double v[3],
                        double *grad)
{
    stencil s;
    for (int a = 0; a < 3; a++) {
        make_stencil(g, c0, f, a, &s);
        double sum = 0, d[3] = {0, 0, 0};
        for (int k = 0; k < 8; k++) {
            if (s.cell[k] == GR_INVALID_INDEX)
                continue;
            const double x = u->f[a][s.cell[k]];
            sum += s.w[k] * x;
            d[0] += s.dw[k][0] * x, d[1] += s.dw[k][1] * x, d[2] += s.dw[k][2] * x;
        }
        v[a] = sum;
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
    interpolate(g, c0, f, u, w, NULL);
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
        interpolate(g, c0, f, j->u, now, grad ? grad + 9 * (size_t)i : NULL);
        interpolate(g, c0, f, j->u_old, before, NULL);
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
