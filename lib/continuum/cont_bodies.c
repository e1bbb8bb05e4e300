/* SPDX-License-Identifier: MIT */
#include "cont_bodies.h"

#include <string.h>

#include "../bodies/body_shapes.h"
#include "cont_fraction.h"

/* ---- storage ------------------------------------------------------------------------------- */

void cont_bodies_free(cont_bodies *cb, gr_mem *mem)
{
    gr_mem_free(mem, cb->b, sizeof(cont_body) * cb->cap);
    gr_mem_free(mem, cb->f, sizeof(cont_body_face) * cb->face_cap);
    gr_mem_free(mem, cb->frac, sizeof(double) * cb->cell_cap);
    gr_mem_free(mem, cb->jrow, 6 * sizeof(double) * cb->cell_cap);
    gr_mem_free(mem, cb->touch, cb->cell_cap);
    gr_mem_free(mem, cb->fixed, sizeof(double) * cb->cell_cap);
    gr_mem_free(mem, cb->at_rest, sizeof(double) * cb->cell_cap);
    gr_mem_free(mem, cb->chunk_faces, sizeof(uint32_t) * cb->chunk_cap);
    cont_static_free(&cb->stat, mem);
    const bool uncached = cb->uncached;
    memset(cb, 0, sizeof *cb);
    cb->uncached = uncached;
}

static gr_status reserve(gr_mem *mem, void **p, uint32_t *cap, uint32_t need, size_t size, uint32_t keep)
{
    if (need <= *cap)
        return GR_OK;
    const uint32_t c = gr_grow_capacity(*cap, need);
    const gr_array_ref a = {p, size};
    if (!gr_mem_grow_arrays(mem, &a, 1, *cap, c, keep))
        return GR_ERROR_OUT_OF_MEMORY;
    *cap = c;
    return GR_OK;
}

/* Cells a chunk of the face lists holds (fixed: the lists do not depend on the workers). */
#define CHUNK_BLOCKS CONT_BLOCKS_PER_TASK

static uint32_t chunks_of(uint32_t blocks) { return (blocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS; }

/* fn over chunks [0, chunks) on `tasks`, here below CONT_PARALLEL_MIN_BLOCKS blocks (a cheap
 * pass then costs about what a dispatch does). */
static void run_chunks(gr_tasks *tasks, uint32_t chunks, gr_range_fn *fn, void *ctx)
{
    if (!tasks || tasks->worker_count <= 1 || chunks * CHUNK_BLOCKS < CONT_PARALLEL_MIN_BLOCKS)
        fn(ctx, 0, chunks, 0);
    else
        gr_parallel_for(tasks, chunks, 1, fn, ctx);
}

static gr_status reserve_cells(cont_bodies *cb, gr_mem *mem, uint32_t cells)
{
    if (cells <= cb->cell_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(cb->cell_cap, cells);
    gr_status s = reserve(mem, (void **)&cb->chunk_faces, &cb->chunk_cap, chunks_of(cap / 64 + 1), sizeof(uint32_t), 0);
    if (s != GR_OK)
        return s;
    const gr_array_ref a[] = {{(void **)&cb->frac, sizeof(double)},
                              {(void **)&cb->jrow, 6 * sizeof(double)},
                              {(void **)&cb->touch, 1},
                              {(void **)&cb->fixed, sizeof(double)},
                              {(void **)&cb->at_rest, sizeof(double)}};
    if (!gr_mem_grow_arrays(mem, a, GR_COUNTOF(a), cb->cell_cap, cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    memset(cb->jrow, 0, 6 * sizeof(double) * cap); /* (kept zero between uses) */
    cb->cell_cap = cap;
    return GR_OK;
}

/* ---- the fractions --------------------------------------------------------------------------- */

static uint32_t below(const gr_sparse_grid *g, uint32_t c, uint32_t axis)
{
    return gr_sparse_grid_neighbor(g, c, axis == 0 ? -1 : 0, axis == 1 ? -1 : 0, axis == 2 ? -1 : 0);
}

/* The solid fraction of cell c's low face: the mean of the two cells (the one alone at the
 * grid's edge), as cont_pressure's face_solid. */
static double face_fraction(const double *frac, uint32_t c, uint32_t nb)
{
    return nb == GR_INVALID_INDEX ? frac[c] : 0.5 * (frac[c] + frac[nb]);
}

/* ---- the bodies' velocities and inverse mass --------------------------------------------- */


void cont_body_inverse_mass(const cont_body *b, double r[6])
{
    for (int k = 0; k < 3; k++)
        r[k] *= b->inv_m;
    const gr_vec3 l = quat_rotate_inv(b->principal, v3(r[3], r[4], r[5]));
    const gr_vec3 w = quat_rotate(b->principal, v3(l.x * b->inv_inertia.x, l.y * b->inv_inertia.y,
                                                   l.z * b->inv_inertia.z));
    r[3] = w.x, r[4] = w.y, r[5] = w.z;
}

static void set_body(cont_body *e, const gr_body_data *b, uint32_t slot, gr_vec3 gravity, double dt)
{
    memset(e, 0, sizeof *e);
    e->slot = slot;
    e->motion = b->motion;
    e->free = cont_motion_is_free(b->motion);
    e->com = v3_add(b->position, quat_rotate(b->orientation, b->com));
    if (b->motion != GR_MOTION_STATIC) {
        gr_vec3 v = v3_add(b->linear_velocity, v3_cross(b->angular_velocity, v3_sub(e->com, b->position)));
        if (e->free)
            v = v3_madd(v, gravity, dt);
        const double w[6] = {v.x, v.y, v.z, b->angular_velocity.x, b->angular_velocity.y, b->angular_velocity.z};
        memcpy(e->v, w, sizeof w);
        memcpy(e->u, w, sizeof w);
    }
    if (e->free) {
        e->inv_m = 1.0 / b->mass;
        e->principal = quat_mul(b->orientation, b->principal);
        e->inv_inertia = v3(1.0 / b->inertia.x, 1.0 / b->inertia.y, 1.0 / b->inertia.z);
    }
}

/* ---- build ------------------------------------------------------------------------------------ */

/* Whether a cell of block i can have a centre within r of p (the block's box within r). */
static bool block_within(const gr_sparse_grid *g, uint32_t i, gr_vec3 p, double r)
{
    const int32_t *b = g->block_coord + 3 * (size_t)i;
    const double o[3] = {g->origin.x, g->origin.y, g->origin.z}, q[3] = {p.x, p.y, p.z};
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        const double lo = o[a] + 4.0 * b[a] * g->h, hi = lo + 4.0 * g->h;
        const double d = q[a] < lo ? lo - q[a] : (q[a] > hi ? q[a] - hi : 0.0);
        d2 += d * d;
    }
    return d2 <= r * r;
}

typedef struct build_job {
    cont_bodies *cb;
    const gr_sparse_grid *g;
    const gr_body_data *b;
    bool all, free, at_rest;
    double reach;
    double *solid;
    const cont_body *e;
} build_job;

/* frac[] = b's fraction of the cells of blocks [b0, b1): measured in the blocks its reach
 * (cont_fraction_reach) touches, 0 elsewhere (`all`: everywhere, the reference). */
static void measure_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const build_job *j = (const build_job *)ctx;
    const gr_sparse_grid *g = j->g;
    const double h = g->h;
    for (uint32_t i = b0; i < b1; i++) {
        double *f = j->cb->frac + 64 * (size_t)i;
        if (!j->all && isfinite(j->reach) && !block_within(g, i, j->b->position, j->reach)) {
            memset(f, 0, 64 * sizeof(double));
            continue;
        }
        for (uint32_t l = 0; l < 64; l++) {
            int32_t k[3];
            gr_sparse_grid_cell_coords(g, 64 * i + l, k);
            const gr_vec3 centre = v3_add(g->origin, v3((k[0] + 0.5) * h, (k[1] + 0.5) * h, (k[2] + 0.5) * h));
            f[l] = cont_cell_fraction(j->b, centre, h);
        }
    }
}

static void measure(cont_bodies *cb, const gr_body_data *b, const gr_sparse_grid *g)
{
    build_job j = {.cb = cb, .g = g, .b = b, .all = cb->uncached, .reach = cont_fraction_reach(b, g->h)};
    /* (a mesh's distance query is not thread-safe: its stamps) */
    if (b->shape == GR_SHAPE_MESH)
        measure_blocks(&j, 0, g->block_count, 0);
    else
        cont_for_blocks(cb->tasks, g->block_count, measure_blocks, &j);
}

/* The body's fractions into solid, fixed and at_rest on chunks [k0, k1) (of CHUNK_BLOCKS
 * blocks), and the count of its faces there (those with a fraction above 0) by chunk. */
static void merge_chunks(void *ctx, uint32_t k0, uint32_t k1, uint32_t worker)
{
    (void)worker;
    const build_job *j = (const build_job *)ctx;
    cont_bodies *cb = j->cb;
    const gr_sparse_grid *g = j->g;
    const double *frac = cb->frac;
    for (uint32_t k = k0; k < k1; k++) {
        const uint32_t end = 64u * GR_MIN(g->block_count, (k + 1) * CHUNK_BLOCKS);
        uint32_t count = 0;
        for (uint32_t c = 64u * CHUNK_BLOCKS * k; c < end; c++) {
            j->solid[c] = fmax(j->solid[c], frac[c]);
            if (!j->free)
                cb->fixed[c] = fmax(cb->fixed[c], frac[c]);
            if (j->at_rest)
                cb->at_rest[c] = fmax(cb->at_rest[c], frac[c]);
            for (uint32_t ax = 0; ax < 3; ax++)
                count += face_fraction(frac, c, below(g, c, ax)) > 0;
        }
        cb->chunk_faces[k] = count;
    }
}

/* The body's faces of chunks [k0, k1), each chunk's from its first (chunk_faces now holds the
 * offsets): in cell order, then by axis. A free body's faces mark the cells its J has a row in. */
static void face_chunks(void *ctx, uint32_t k0, uint32_t k1, uint32_t worker)
{
    (void)worker;
    const build_job *j = (const build_job *)ctx;
    cont_bodies *cb = j->cb;
    const gr_sparse_grid *g = j->g;
    const cont_body *e = j->e;
    const double h = g->h;
    for (uint32_t k = k0; k < k1; k++) {
        const uint32_t end = 64u * GR_MIN(g->block_count, (k + 1) * CHUNK_BLOCKS);
        cont_body_face *f = cb->f + cb->chunk_faces[k];
        for (uint32_t c = 64u * CHUNK_BLOCKS * k; c < end; c++) {
            int32_t kc[3];
            gr_sparse_grid_cell_coords(g, c, kc);
            for (uint32_t ax = 0; ax < 3; ax++) {
                const uint32_t nb = below(g, c, ax);
                const double phi = face_fraction(cb->frac, c, nb);
                if (!(phi > 0))
                    continue;
                double x[3] = {(kc[0] + 0.5) * h, (kc[1] + 0.5) * h, (kc[2] + 0.5) * h};
                x[ax] -= 0.5 * h;
                const gr_vec3 r = v3_sub(v3_add(g->origin, v3(x[0], x[1], x[2])), e->com);
                const gr_vec3 n = v3(ax == 0, ax == 1, ax == 2);
                const gr_vec3 m = v3_cross(r, n);
                f->cell = c, f->nb = nb, f->axis = ax;
                const double gv[6] = {phi * n.x, phi * n.y, phi * n.z, phi * m.x, phi * m.y, phi * m.z};
                memcpy(f->g, gv, sizeof gv);
                f->fk = 1.0;
                f++;
            }
            if (!e->free)
                continue;
            /* (a face marks its cell and the one below: c's own low faces and those of the
             * cells above whose low face is c's high one; each chunk writes its own cells) */
            for (uint32_t ax = 0; ax < 3 && !cb->touch[c]; ax++) {
                const uint32_t up = gr_sparse_grid_neighbor(g, c, ax == 0, ax == 1, ax == 2);
                if (face_fraction(cb->frac, c, below(g, c, ax)) > 0 ||
                    (up != GR_INVALID_INDEX && face_fraction(cb->frac, up, c) > 0))
                    cb->touch[c] = 1;
            }
        }
    }
}

/* The fastest a point of b moves (within its bound) [m/s]. */
static double point_speed(const gr_body_data *b)
{
    const double r = gr_body_bound_radius(b);
    return v3_len(b->linear_velocity) + (isfinite(r) ? r * v3_len(b->angular_velocity) : 0.0);
}

gr_status cont_bodies_build(cont_bodies *cb, gr_mem *mem, const gr_sparse_grid *g, const gr_body_store *bs,
                            gr_vec3 gravity, double dt, double *solid)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    gr_status s;
    if ((s = reserve_cells(cb, mem, cells)) != GR_OK ||
        (s = reserve(mem, (void **)&cb->b, &cb->cap, bs->count, sizeof(cont_body), 0)) != GR_OK)
        return s;
    if (!cb->uncached && (s = cont_static_update(&cb->stat, mem, cb->tasks, g, bs)) != GR_OK)
        return s;
    const double h = g->h;
    cb->n = cb->faces = cb->free_count = 0;
    uint32_t rank = 0; /* among the static bodies */
    memset(solid, 0, sizeof(double) * cells);
    memset(cb->fixed, 0, sizeof(double) * cells);
    memset(cb->at_rest, 0, sizeof(double) * cells);
    memset(cb->touch, 0, cells);
    const uint32_t chunks = chunks_of(g->block_count);
    /* (a free body slower than one step's allowance would push it, CONT_BODY_OVERLAP h / dt, is
     * at rest: the density correction takes its over-packing, cont_bodies_correction_solid) */
    const double rest = CONT_BODY_OVERLAP * h / dt;
    for (uint32_t a = 0; a < bs->count; a++) {
        const uint32_t slot = bs->active[a];
        const gr_body_data *b = &bs->data[slot];
        if (b->motion == GR_MOTION_STATIC && !cb->uncached)
            cont_static_fractions(&cb->stat, cb->tasks, rank, cb->frac);
        else
            measure(cb, b, g);
        rank += b->motion == GR_MOTION_STATIC;
        const bool free = cont_motion_is_free(b->motion);
        /* (where the body fills no cell, merging its fractions changes nothing) */
        build_job j = {.cb = cb, .g = g, .b = b, .free = free, .at_rest = free && point_speed(b) < rest, .solid = solid};
        run_chunks(cb->tasks, chunks, merge_chunks, &j);
        /* the faces' offsets by chunk, in chunk order */
        uint32_t count = 0;
        for (uint32_t k = 0; k < chunks; k++) {
            const uint32_t m = cb->chunk_faces[k];
            cb->chunk_faces[k] = cb->faces + count;
            count += m;
        }
        /* a moving body away from the sand still moves (with no faces); a cell with a fraction
         * above 0 has a face with one (its low faces' means) */
        if (count == 0 && b->motion == GR_MOTION_STATIC)
            continue;
        if ((s = reserve(mem, (void **)&cb->f, &cb->face_cap, cb->faces + count, sizeof(cont_body_face), cb->faces)) !=
            GR_OK)
            return s;
        cont_body *e = &cb->b[cb->n++];
        set_body(e, b, slot, gravity, dt);
        e->first = cb->faces;
        cb->free_count += e->free;
        j.e = e;
        if (count)
            run_chunks(cb->tasks, chunks, face_chunks, &j);
        cb->faces += count;
        e->count = count;
    }
    return GR_OK;
}

/* ---- the pressure problem's body terms -------------------------------------------------- */

static double dot6(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Add F to cell c's divergence and take it from nb's: the flux F through c's low face, dt D. */
static void scatter_flux(double *y, const cont_body_face *f, double k)
{
    y[f->cell] -= k;
    if (f->nb != GR_INVALID_INDEX)
        y[f->nb] += k;
}

void cont_bodies_rhs(const cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *phi,
                     const double *solid, double *q)
{
    const double k = dt * g->inv_h;
    if (cb->free_count) {
        const uint32_t cells = gr_sparse_grid_cells(g);
        for (uint32_t c = 0; c < cells; c++) {
            const double over = 1.0 - solid[c] - phi[c];
            if (cb->touch[c] && over < -CONT_BODY_OVERLAP)
                q[c] += -CONT_BODY_OVERLAP - over;
        }
    }
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        if (e->motion == GR_MOTION_STATIC)
            continue;
        for (uint32_t j = e->first; j < e->first + e->count; j++)
            scatter_flux(q, &cb->f[j], k * dot6(cb->f[j].g, e->u));
    }
}

/* e->jx = M^-1 h^3 J^T x, J^T x = dt sum_f g_f (D^T x)_f, (D^T x)_f = (x_nb - x_c) / h */
static void body_response(const cont_bodies *cb, const cont_body *e, const gr_sparse_grid *g, double dt,
                          const double *x, double jx[6])
{
    double r[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t j = e->first; j < e->first + e->count; j++) {
        const cont_body_face *f = &cb->f[j];
        const double d = (f->nb != GR_INVALID_INDEX ? x[f->nb] : 0.0) - x[f->cell];
        for (int k = 0; k < 6; k++)
            r[k] += f->g[k] * d;
    }
    const double s = g->h * g->h * dt; /* h^3 dt / h */
    for (int k = 0; k < 6; k++)
        r[k] *= s;
    cont_body_inverse_mass(e, r);
    memcpy(jx, r, sizeof r);
}

void cont_bodies_apply(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *x, double *y)
{
    const double k = dt * g->inv_h;
    for (uint32_t i = 0; i < cb->n; i++) {
        cont_body *e = &cb->b[i];
        if (!e->free)
            continue;
        body_response(cb, e, g, dt, x, e->jx);
        for (uint32_t j = e->first; j < e->first + e->count; j++)
            scatter_flux(y, &cb->f[j], k * dot6(cb->f[j].g, e->jx));
    }
}

double cont_bodies_row(const cont_bodies *cb, const gr_sparse_grid *g, double dt, uint32_t c, const double *x)
{
    if (!cb->touch[c])
        return 0.0;
    const double k = dt * g->inv_h;
    double y = 0;
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        if (!e->free)
            continue;
        double jc[6] = {0, 0, 0, 0, 0, 0}; /* row c of J / k */
        bool here = false;
        for (uint32_t j = e->first; j < e->first + e->count; j++) {
            const cont_body_face *f = &cb->f[j];
            const double s = f->cell == c ? -1.0 : (f->nb == c ? 1.0 : 0.0);
            if (s == 0)
                continue;
            here = true;
            for (int m = 0; m < 6; m++)
                jc[m] += s * f->g[m];
        }
        if (!here)
            continue;
        double jx[6];
        body_response(cb, e, g, dt, x, jx);
        y += k * dot6(jc, jx);
    }
    return y;
}

void cont_bodies_diag(cont_bodies *cb, const gr_sparse_grid *g, double dt, double *diag)
{
    const double k = dt * g->inv_h, h3 = g->h * g->h * g->h;
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        if (!e->free)
            continue;
        /* the rows of J on the cells it touches, then each one's J_c M^-1 J_c^T once (the row
         * is zeroed when added: the cell's other faces then add nothing) */
        for (uint32_t j = e->first; j < e->first + e->count; j++) {
            const cont_body_face *f = &cb->f[j];
            for (int m = 0; m < 6; m++) {
                cb->jrow[6 * (size_t)f->cell + m] -= k * f->g[m];
                if (f->nb != GR_INVALID_INDEX)
                    cb->jrow[6 * (size_t)f->nb + m] += k * f->g[m];
            }
        }
        for (uint32_t j = e->first; j < e->first + e->count; j++) {
            const cont_body_face *f = &cb->f[j];
            const uint32_t at[2] = {f->cell, f->nb};
            for (int t = 0; t < 2; t++) {
                if (at[t] == GR_INVALID_INDEX)
                    continue;
                double *row = cb->jrow + 6 * (size_t)at[t];
                double w[6];
                memcpy(w, row, sizeof w);
                cont_body_inverse_mass(e, w);
                diag[at[t]] += h3 * dot6(row, w);
                memset(row, 0, sizeof w);
            }
        }
    }
}

/* ---- after the solve ------------------------------------------------------------------------ */

/* body e's impulse of p and s (either NULL: none of it) into imp */
static void body_impulse(const cont_bodies *cb, const cont_body *e, const gr_sparse_grid *g, double dt, const double *p,
                         const cont_stress *s, double imp[6])
{
    const double k = g->h * g->h * g->h * dt;
    double r[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t j = e->first; j < e->first + e->count; j++) {
        const cont_body_face *f = &cb->f[j];
        double d = p ? ((f->nb != GR_INVALID_INDEX ? p[f->nb] : 0.0) - p[f->cell]) * g->inv_h : 0.0;
        if (s)
            d += f->fk * cont_stress_div_face(g, s, f->cell, (int)f->axis);
        for (int m = 0; m < 6; m++)
            r[m] += f->g[m] * d;
    }
    for (int m = 0; m < 6; m++)
        imp[m] = k * r[m];
}

void cont_bodies_shares(cont_bodies *cb, const gr_sparse_grid *g, const cont_faces *mass, const cont_faces *inv_rho,
                        const double *solid)
{
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    for (uint32_t j = 0; j < cb->faces; j++) {
        cont_body_face *f = &cb->f[j];
        const double phi = face_fraction(solid, f->cell, f->nb);
        const double sand = mass->f[f->axis][f->cell] * inv_rho->f[f->axis][f->cell] * inv_h3;
        /* (phi > 0 on a body's face; sand <= 1 - phi up to rounding) */
        f->fk = phi > 0 ? fmax(0.0, 1.0 - sand) / phi : 1.0;
    }
}

void cont_bodies_impulse(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *p, const cont_stress *s)
{
    for (uint32_t i = 0; i < cb->n; i++)
        body_impulse(cb, &cb->b[i], g, dt, p, s, cb->b[i].imp);
}

void cont_bodies_seen(cont_bodies *cb, const gr_sparse_grid *g, double dt, const double *p, const cont_stress *s)
{
    for (uint32_t i = 0; i < cb->n; i++) {
        cont_body *e = &cb->b[i];
        if (!e->free) /* (static and kinematic bodies do not answer: u = V*) */
            continue;
        double v[6];
        body_impulse(cb, e, g, dt, p, s, v);
        cont_body_inverse_mass(e, v);
        for (int m = 0; m < 6; m++)
            e->u[m] = e->v[m] + v[m];
    }
}

void cont_bodies_finish(const cont_bodies *cb, gr_body_store *bs, gr_vec3 *report, uint32_t slots)
{
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        gr_body_data *b = &bs->data[e->slot];
        const gr_vec3 force = v3(e->imp[0], e->imp[1], e->imp[2]);
        if (e->slot < slots) {
            const gr_vec3 moment = v3_add(v3(e->imp[3], e->imp[4], e->imp[5]),
                                          v3_cross(v3_sub(e->com, b->position), force));
            report[2 * (size_t)e->slot] = v3_add(report[2 * (size_t)e->slot], force);
            report[2 * (size_t)e->slot + 1] = v3_add(report[2 * (size_t)e->slot + 1], moment);
        }
        if (e->free) {
            double v[6];
            memcpy(v, e->imp, sizeof v);
            cont_body_inverse_mass(e, v);
            for (int m = 0; m < 6; m++)
                v[m] += e->v[m];
            const gr_vec3 w = v3(v[3], v[4], v[5]);
            b->angular_velocity = w;
            /* (the store's linear velocity is its position's) */
            b->linear_velocity = v3_sub(v3(v[0], v[1], v[2]), v3_cross(w, v3_sub(e->com, b->position)));
        }
    }
}

void cont_bodies_fall(gr_body_store *bs, gr_vec3 gravity, double dt)
{
    for (uint32_t a = 0; a < bs->count; a++) {
        gr_body_data *b = &bs->data[bs->active[a]];
        if (cont_motion_is_free(b->motion))
            b->linear_velocity = v3_madd(b->linear_velocity, gravity, dt);
    }
}

void cont_bodies_move(gr_body_store *bs, double dt)
{
    for (uint32_t a = 0; a < bs->count; a++) {
        gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion != GR_MOTION_STATIC)
            gr_body_integrate(b, dt);
    }
}

bool cont_bodies_any_moving(const gr_body_store *bs)
{
    for (uint32_t a = 0; a < bs->count; a++)
        if (bs->data[bs->active[a]].motion != GR_MOTION_STATIC)
            return true;
    return false;
}

double cont_bodies_max_speed(const gr_body_store *bs)
{
    double v = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion == GR_MOTION_STATIC)
            continue;
        v = fmax(v, point_speed(b));
    }
    return v;
}

const double *cont_bodies_correction_solid(const cont_bodies *cb, uint32_t cells, const double *phi)
{
    if (!cb->free_count)
        return cb->fixed;
    double *e = cb->frac;
    for (uint32_t c = 0; c < cells; c++) {
        /* the room against the static and kinematic bodies, and against the bodies at rest too:
         * of the over-packing the latter add at most CONT_BODY_OVERLAP a step. (All at once, what
         * a box had sunk into the bed while moving rose in one frame as the sand's potential
         * energy: 2.7 % of the drop's in continuum_dynamic_box_sinks.) */
        const double least = fmin(1.0 - cb->fixed[c] - phi[c], 0.0) - CONT_BODY_OVERLAP;
        const double settled = fmax(cb->fixed[c], cb->at_rest[c]);
        e[c] = 1.0 - settled - phi[c] >= least ? settled : 1.0 - phi[c] - least;
    }
    return e;
}

/* ---- particles out of moving bodies ---------------------------------------------------------- */

void cont_bodies_push_out(const cont_bodies *cb, gr_body_store *bs, uint32_t n, gr_vec3 *x, gr_vec3 *v,
                          const double *m, gr_vec3 *report, uint32_t slots)
{
    for (uint32_t i = 0; i < cb->n; i++) {
        const cont_body *e = &cb->b[i];
        gr_body_data *b = &bs->data[e->slot];
        if (e->motion == GR_MOTION_STATIC || b->shape == GR_SHAPE_CONTAINER || b->shape == GR_SHAPE_PLANE)
            continue;
        const double bound = gr_body_bound_radius(b);
        gr_vec3 imp = {0, 0, 0}, moment = {0, 0, 0}; /* about the centre of mass */
        const gr_vec3 com = v3_add(b->position, quat_rotate(b->orientation, b->com));
        for (uint32_t k = 0; k < n; k++) {
            if (v3_len2(v3_sub(x[k], b->position)) > bound * bound)
                continue;
            gr_vec3 normal, point;
            const double d = gr_body_feature_distance(b, 0, x[k], &normal, &point);
            if (!(d < 0))
                continue;
            x[k] = point;
            const double vn = v3_dot(v3_sub(v[k], gr_body_point_velocity(b, point)), normal);
            if (!(vn < 0))
                continue;
            const gr_vec3 dp = v3_scale(normal, -vn * m[k]); /* the particle's gain, the body's loss */
            v[k] = v3_madd(v[k], normal, -vn);
            imp = v3_sub(imp, dp);
            moment = v3_sub(moment, v3_cross(v3_sub(point, com), dp));
        }
        if (e->slot < slots) {
            report[2 * (size_t)e->slot] = v3_add(report[2 * (size_t)e->slot], imp);
            report[2 * (size_t)e->slot + 1] = v3_add(report[2 * (size_t)e->slot + 1],
                                                     v3_add(moment, v3_cross(v3_sub(com, b->position), imp)));
        }
        if (e->free) {
            double r[6] = {imp.x, imp.y, imp.z, moment.x, moment.y, moment.z};
            cont_body_inverse_mass(e, r);
            const gr_vec3 dw = v3(r[3], r[4], r[5]);
            b->angular_velocity = v3_add(b->angular_velocity, dw);
            b->linear_velocity = v3_add(b->linear_velocity,
                                        v3_sub(v3(r[0], r[1], r[2]), v3_cross(dw, v3_sub(com, b->position))));
        }
    }
}
