/* SPDX-License-Identifier: MIT */
#include "cont_body_friction.h"

#include <string.h>

static double dot6(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Component k's face grid normal to `axis` (NULL: k acts on no such face). */
static const cont_block_axis *axis_of(int k, uint32_t axis)
{
    for (int j = 0; j < CONT_BLOCK_AXIS_COUNT[k]; j++)
        if ((uint32_t)CONT_BLOCK_AXES[k][j].axis == axis)
            return &CONT_BLOCK_AXES[k][j];
    return NULL;
}

/* The coefficient cell c + o e along ax's direction (o = -1: the other coefficient a face at c
 * reads; o = 1: the other face a coefficient at c acts on). */
static uint32_t along(const gr_sparse_grid *g, uint32_t c, const cont_block_axis *ax, int o)
{
    int d[3] = {0, 0, 0};
    d[ax->dir] = o * ax->sgn;
    return gr_sparse_grid_neighbor(g, c, d[0], d[1], d[2]);
}

/* (D2_k x)_f, x the coefficients of component k. */
static double block_face(const gr_sparse_grid *g, int k, const cont_body_face *f, const double *x)
{
    const cont_block_axis *ax = axis_of(k, f->axis);
    if (!ax)
        return 0.0;
    const uint32_t b = along(g, f->cell, ax, -1);
    return ax->k * g->inv_h * (x[f->cell] - (b != GR_INVALID_INDEX ? x[b] : 0.0));
}

/* r = M^-1 h^3 dt sum_f g_f v_f over body e's faces, v_f the face values of: F (not NULL), else
 * D2 x (k < 0, x all five components) or D2_k x (x component k's). */
static void response(const cont_friction *cf, const cont_body *e, const double *x, int k, const cont_faces *F,
                     double r[6])
{
    const cont_bodies *cb = cf->cp->bodies;
    const gr_sparse_grid *g = cf->cp->g;
    /* (the five components' view only of an x that holds them: no offsets from NULL) */
    const cont_stress s = x && k < 0 ? cont_stress_view((double *)x, gr_sparse_grid_cells(g)) : (cont_stress){0};
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t j = e->first; j < e->first + e->count; j++) {
        const cont_body_face *f = &cb->f[j];
        const double v = F ? F->f[f->axis][f->cell]
                           : (k < 0 ? cont_stress_div_face(g, &s, f->cell, (int)f->axis) : block_face(g, k, f, x));
        for (int m = 0; m < 6; m++)
            acc[m] += f->g[m] * (f->fk * v);
    }
    const double scale = g->h * g->h * g->h * cf->cp->dt;
    for (int m = 0; m < 6; m++)
        acc[m] *= scale;
    cont_body_inverse_mass(e, acc);
    memcpy(r, acc, sizeof acc);
}

/* y += dt D2_k^T (G z) over body e's faces (y: component k's cells). */
static void scatter(const cont_friction *cf, const cont_body *e, int k, const double z[6], double *y)
{
    const cont_bodies *cb = cf->cp->bodies;
    const gr_sparse_grid *g = cf->cp->g;
    const double dt = cf->cp->dt;
    for (uint32_t j = e->first; j < e->first + e->count; j++) {
        const cont_body_face *f = &cb->f[j];
        const cont_block_axis *ax = axis_of(k, f->axis);
        if (!ax)
            continue;
        const double v = dt * ax->k * g->inv_h * f->fk * dot6(f->g, z);
        y[f->cell] += v;
        const uint32_t b = along(g, f->cell, ax, -1);
        if (b != GR_INVALID_INDEX)
            y[b] -= v;
    }
}

void cont_friction_bodies_setup(cont_friction *cf)
{
    memset(cf->body_trace, 0, sizeof cf->body_trace);
    cont_bodies *cb = cf->cp->bodies;
    if (!cb)
        return;
    const gr_sparse_grid *g = cf->cp->g;
    const size_t cells = gr_sparse_grid_cells(g);
    const double dt = cf->cp->dt, h3 = g->h * g->h * g->h;
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        if (e->motion == GR_MOTION_STATIC)
            continue;
        for (int k = 0; k < 5; k++)
            scatter(cf, e, k, e->u, cf->q + (size_t)k * cells);
        if (!e->free)
            continue;
        /* the columns of G^T D2_k at the coefficients the body's faces read (cb->jrow, kept
         * zero), then each one's h^3 dt^2 col^T M^-1 col once (zeroed when added) */
        for (int k = 0; k < 5; k++) {
            for (uint32_t j = e->first; j < e->first + e->count; j++) {
                const cont_body_face *f = &cb->f[j];
                const cont_block_axis *ax = axis_of(k, f->axis);
                if (!ax)
                    continue;
                const double kk = ax->k * g->inv_h * f->fk;
                const uint32_t b = along(g, f->cell, ax, -1);
                for (int m = 0; m < 6; m++) {
                    cb->jrow[6 * (size_t)f->cell + m] += kk * f->g[m];
                    if (b != GR_INVALID_INDEX)
                        cb->jrow[6 * (size_t)b + m] -= kk * f->g[m];
                }
            }
            for (uint32_t j = e->first; j < e->first + e->count; j++) {
                const cont_body_face *f = &cb->f[j];
                const cont_block_axis *ax = axis_of(k, f->axis);
                if (!ax)
                    continue;
                const uint32_t at[2] = {f->cell, along(g, f->cell, ax, -1)};
                for (int t = 0; t < 2; t++) {
                    if (at[t] == GR_INVALID_INDEX)
                        continue;
                    double *row = cb->jrow + 6 * (size_t)at[t], w[6];
                    memcpy(w, row, sizeof w);
                    cont_body_inverse_mass(e, w);
                    const double d = h3 * dt * dt * dot6(row, w);
                    const size_t c = (size_t)k * cells + at[t];
                    cf->diag[c] += d;
                    if (cf->lo[c] < cf->hi[c])
                        cf->body_trace[k] += d;
                    memset(row, 0, sizeof w);
                }
            }
        }
    }
}

/* y += dt D2^T G M^-1 h^3 dt G^T v over the free bodies, v from x, k or F as response() reads
 * them; into component `out`'s cells of y, or (out < 0) into all five components of y. */
static void add_free_bodies(const cont_friction *cf, const double *x, int k, const cont_faces *F, int out, double *y)
{
    const cont_bodies *cb = cf->cp->bodies;
    if (!cb || !cb->free_count)
        return;
    const size_t cells = gr_sparse_grid_cells(cf->cp->g);
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        if (!e->free)
            continue;
        double r[6];
        response(cf, e, x, k, F, r);
        if (out >= 0)
            scatter(cf, e, out, r, y);
        else
            for (int c = 0; c < 5; c++)
                scatter(cf, e, c, r, y + (size_t)c * cells);
    }
}

void cont_friction_bodies_apply(const cont_friction *cf, const double *x, double *y)
{
    add_free_bodies(cf, x, -1, NULL, -1, y);
}

void cont_friction_bodies_apply_block(const cont_friction *cf, int k, const double *x, double *y)
{
    add_free_bodies(cf, x, k, NULL, k, y);
}

void cont_friction_bodies_gradient(const cont_friction *cf, int k, const cont_faces *F, double *out)
{
    add_free_bodies(cf, NULL, -1, F, k, out);
}

/* dt (D2_k^T G)_c over body e's faces: the coefficient at c touches the faces (c, axis) with
 * factor k / h and (c + e, axis) with -k / h; false when it touches none of e's. */
static bool column(const cont_friction *cf, const cont_body *e, int k, uint32_t c, double col[6])
{
    const cont_bodies *cb = cf->cp->bodies;
    const gr_sparse_grid *g = cf->cp->g;
    uint32_t ahead[3];
    for (int j = 0; j < CONT_BLOCK_AXIS_COUNT[k]; j++)
        ahead[j] = along(g, c, &CONT_BLOCK_AXES[k][j], 1);
    bool any = false;
    memset(col, 0, 6 * sizeof(double));
    for (uint32_t j = e->first; j < e->first + e->count; j++) {
        const cont_body_face *f = &cb->f[j];
        for (int a = 0; a < CONT_BLOCK_AXIS_COUNT[k]; a++) {
            const cont_block_axis *ax = &CONT_BLOCK_AXES[k][a];
            if ((uint32_t)ax->axis != f->axis)
                continue;
            const double s = f->cell == c ? 1.0 : (f->cell == ahead[a] ? -1.0 : 0.0);
            if (s == 0)
                continue;
            any = true;
            for (int m = 0; m < 6; m++)
                col[m] += s * cf->cp->dt * ax->k * g->inv_h * f->fk * f->g[m];
        }
    }
    return any;
}

/* Is any free body's face among those coefficient (k, c) touches? (cont_bodies.touch) */
static bool near(const cont_friction *cf, int k, uint32_t c)
{
    const cont_bodies *cb = cf->cp->bodies;
    if (!cb || !cb->free_count)
        return false;
    bool t = cb->touch[c];
    for (int j = 0; j < CONT_BLOCK_AXIS_COUNT[k] && !t; j++) {
        const uint32_t a = along(cf->cp->g, c, &CONT_BLOCK_AXES[k][j], 1);
        t = a != GR_INVALID_INDEX && cb->touch[a];
    }
    return t;
}

static double row_of(const cont_friction *cf, int k, uint32_t c, const double *x, int source)
{
    if (!near(cf, k, c))
        return 0.0;
    const cont_bodies *cb = cf->cp->bodies;
    double y = 0;
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        double col[6], r[6];
        if (!e->free || !column(cf, e, k, c, col))
            continue;
        response(cf, e, x, source, NULL, r);
        y += dot6(col, r);
    }
    return y;
}

double cont_friction_bodies_row(const cont_friction *cf, uint32_t i, const double *x)
{
    const uint32_t cells = gr_sparse_grid_cells(cf->cp->g);
    return row_of(cf, (int)(i / cells), i % cells, x, -1);
}

double cont_friction_bodies_row_block(const cont_friction *cf, int k, uint32_t c, const double *x)
{
    return row_of(cf, k, c, x, k);
}
