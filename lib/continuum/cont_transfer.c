/* SPDX-License-Identifier: MIT */
#include "cont_transfer.h"

#include "cont_ops.h"

#include <string.h>

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

/* The fractions of x within cell coordinates c (clamped into [0, 1]: rounding at an edge). */
static void fractions(const gr_sparse_grid *g, gr_vec3 x, const int32_t c[3], double f[3])
{
    f[0] = (x.x - g->origin.x) * g->inv_h - c[0];
    f[1] = (x.y - g->origin.y) * g->inv_h - c[1];
    f[2] = (x.z - g->origin.z) * g->inv_h - c[2];
    for (int a = 0; a < 3; a++)
        f[a] = f[a] < 0 ? 0 : (f[a] > 1 ? 1 : f[a]);
}

/* A point's nodes without a block map: per axis, the two nodes of the grid at integer (0) and
 * at half-integer (1) positions: their local coordinates' share of the cell index, their block
 * step's share of the neighbour table's index (-1, 0, +1 blocks), their weights. */
typedef struct point_nodes {
    uint32_t loc[3][2][2], stp[3][2][2];
    double w1[3][2][2];
    const uint32_t *nbr; ///< the point's block's neighbour table
} point_nodes;

static inline void point_nodes_of(const gr_sparse_grid *g, uint32_t c0, const double f[3], point_nodes *pn)
{
    static const uint32_t scale_local[3] = {1, 4, 16}, scale_step[3] = {1, 3, 9};
    for (int a = 0; a < 3; a++)
        for (int half = 0; half < 2; half++) {
            int off;
            double t;
            axis_weights(f[a], half, &off, &t);
            const int l = (int)((c0 >> (2 * a)) & 3u) + off; /* -1..3 */
            for (int e = 0; e < 2; e++) {
                pn->loc[a][half][e] = ((uint32_t)(l + e) & 3u) * scale_local[a];
                pn->stp[a][half][e] = (uint32_t)((l + e + 4) >> 2) * scale_step[a];
            }
            pn->w1[a][half][0] = 1.0 - t, pn->w1[a][half][1] = t;
        }
    pn->nbr = g->block_nbr + 27 * (size_t)(c0 >> 6);
}

/* Grid `axis`'s (3: the centres') 8 nodes, k = bx + 2 by + 4 bz: their cells (GR_INVALID_INDEX
 * in an inactive block) and weights, each w_x w_y w_z in that order. */
static inline void point_corners(const point_nodes *pn, int axis, uint32_t cell[8], double w[8])
{
    const int hx = axis != 0, hy = axis != 1, hz = axis != 2;
    for (int k = 0; k < 8; k++) {
        const int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
        const uint32_t nb = pn->nbr[pn->stp[0][hx][bx] + pn->stp[1][hy][by] + pn->stp[2][hz][bz]];
        cell[k] = nb == GR_INVALID_INDEX ? nb : nb * 64u + pn->loc[0][hx][bx] + pn->loc[1][hy][by] + pn->loc[2][hz][bz];
        w[k] = pn->w1[0][hx][bx] * pn->w1[1][hy][by] * pn->w1[2][hz][bz];
    }
}

/* ---- a block's neighbourhood: P2G goes block by block ---------------------------------------- */

/* The cells within one of a block's: local coordinates -1..4 per axis, x fastest. Every node of
 * every stencil of a point in the block (nodes l - 1 .. l + 1 of its cell l) lies in it, so a
 * block's points find their nodes by one read of this map instead of the neighbour table. */
#define NB_SIDE 6
#define NB_CELLS (NB_SIDE * NB_SIDE * NB_SIDE)

static void block_map(const gr_sparse_grid *g, uint32_t b, uint32_t map[NB_CELLS])
{
    const uint32_t *nbr = g->block_nbr + 27 * (size_t)b;
    uint32_t k = 0;
    for (int z = -1; z <= 4; z++)
        for (int y = -1; y <= 4; y++)
            for (int x = -1; x <= 4; x++) {
                /* (l + 4) / 4 is 0, 1, 2 for a step of -1, 0, +1 blocks */
                const uint32_t nb = nbr[(uint32_t)((z + 4) >> 2) * 9u + (uint32_t)((y + 4) >> 2) * 3u + (uint32_t)((x + 4) >> 2)];
                map[k++] = nb == GR_INVALID_INDEX ? nb : nb * 64u + gr_sparse_local(x, y, z);
            }
}

/* A point's 1-D weights along each axis for nodes at integer positions (`in`: the first node
 * in the point's own cell) and at half-integers (`hf`: the first node one cell below or in
 * it), as axis_weights gives them, and the first nodes' map coordinates (cell l at l + 1). */
typedef struct point_weights {
    double in[3][2], hf[3][2];
    uint32_t pos_in[3], pos_hf[3];
} point_weights;

static inline void point_weights_of(uint32_t c0, const double f[3], point_weights *pw)
{
    for (int a = 0; a < 3; a++) {
        const uint32_t l = (c0 >> (2 * a)) & 3u;
        int off;
        double t;
        axis_weights(f[a], false, &off, &t);
        pw->in[a][0] = 1.0 - t, pw->in[a][1] = t;
        pw->pos_in[a] = l + 1;
        axis_weights(f[a], true, &off, &t);
        pw->hf[a][0] = 1.0 - t, pw->hf[a][1] = t;
        pw->pos_hf[a] = (uint32_t)((int)l + 1 + off);
    }
}

/* Grid `axis`'s (3: the centres') 1-D weights and first map index for the point. */
static inline uint32_t grid_weights(const point_weights *pw, int axis, const double *w1[3])
{
    static const uint32_t stride[3] = {1, NB_SIDE, NB_SIDE * NB_SIDE};
    uint32_t base = 0;
    for (int a = 0; a < 3; a++) {
        const bool on = a == axis;
        w1[a] = on ? pw->in[a] : pw->hf[a];
        base += (on ? pw->pos_in[a] : pw->pos_hf[a]) * stride[a];
    }
    return base;
}

/* The map offsets of the x-y square's corners (j = bx + 2 by) and of the upper layer. */
static const uint32_t corner_xy[4] = {0, 1, NB_SIDE, NB_SIDE + 1};
#define LAYER (NB_SIDE * NB_SIDE)

/* Grid `axis`'s 8 nodes for the point, k = bx + 2 by + 4 bz: their cells from the block's map
 * and their weights, each w_x w_y w_z in that order (point_corners' products). */
static inline void corners(const point_weights *pw, const uint32_t *map, int axis, uint32_t cell[8], double w[8])
{
    const double *w1[3];
    const uint32_t base = grid_weights(pw, axis, w1);
    for (int q = 0; q < 4; q++) {
        const double wxy = w1[0][q & 1] * w1[1][q >> 1];
        for (int bz = 0; bz < 2; bz++) {
            cell[4 * bz + q] = map[base + corner_xy[q] + LAYER * (uint32_t)bz];
            w[4 * bz + q] = wxy * w1[2][bz];
        }
    }
}

/* ---- particles to grid ---------------------------------------------------------------------- */

/* The scatter goes by slabs: the blocks whose coordinate along the grid's longest axis is the
 * same. A block's particles reach only the cells within one of it, so two slabs two or more
 * apart touch no cell in common: the even slabs run in parallel, then the odd ones, each slab's
 * blocks in their order by one task. Two passes (not the eight of a colouring by the three
 * parities), each slab a task of some thousand particles. */
typedef struct p2g_job {
    const gr_sparse_grid *g;
    const cont_particle_view *p;
    const cont_grid_mass *out;
    double inv_h3;
    int axis;        ///< the slabs' normal: the axis along which the blocks spread most
    int32_t lo;      ///< the lowest block coordinate along it
    uint32_t parity; ///< the slabs this pass scatters from: lo + 2 s + parity
    uint32_t tasks;  ///< the pass's tasks: task t takes the slabs s with s % tasks == t
} p2g_job;

static void p2g_zero(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const p2g_job *j = (const p2g_job *)ctx;
    const cont_grid_mass *o = j->out;
    const size_t c0 = 64 * (size_t)b0, bytes = sizeof(double) * 64 * (size_t)(b1 - b0);
    for (int a = 0; a < 3; a++) {
        memset(o->mass.f[a] + c0, 0, bytes);
        memset(o->vol.f[a] + c0, 0, bytes);
        memset(o->u.f[a] + c0, 0, bytes);
    }
    memset(o->phi + c0, 0, bytes);
    if (j->p->alpha)
        memset(o->alpha + c0, 0, bytes);
}

/* A particle's share of face grid `axis`: mass, packed volume, momentum. */
static inline void p2g_face(const uint32_t *map, const point_weights *pw, int axis, double m, double vmin, double vel,
                            double *restrict mass, double *restrict vol, double *restrict mu)
{
    uint32_t cell[8];
    double w[8];
    corners(pw, map, axis, cell, w);
    for (int k = 0; k < 8; k++) {
        if (cell[k] == GR_INVALID_INDEX)
            continue; /* (not with a halo of 1: every node's cell is active) */
        const double mw = m * w[k];
        mass[cell[k]] += mw;
        vol[cell[k]] += vmin * w[k];
        mu[cell[k]] += mw * vel;
    }
}

/* Particle i's share of the faces (mass, packed volume, momentum) and of the centres (phi,
 * alpha); `map` is its block's. */
static inline void p2g_point(const p2g_job *j, const uint32_t *map, uint32_t i)
{
    const gr_sparse_grid *g = j->g;
    const cont_particle_view *p = j->p;
    const cont_grid_mass *o = j->out;
    const uint32_t c0 = g->point_cell[i];
    int32_t c[3];
    double f[3];
    gr_sparse_grid_cell_coords(g, c0, c);
    fractions(g, p->x[i], c, f);
    point_weights pw;
    point_weights_of(c0, f, &pw);
    const double m = p->m[i], vmin = p->vmin[i];
    const double vel[3] = {p->v[i].x, p->v[i].y, p->v[i].z};
    /* (the grids one by one, each with its axis a constant: the selects go at compile time) */
    p2g_face(map, &pw, 0, m, vmin, vel[0], o->mass.f[0], o->vol.f[0], o->u.f[0]);
    p2g_face(map, &pw, 1, m, vmin, vel[1], o->mass.f[1], o->vol.f[1], o->u.f[1]);
    p2g_face(map, &pw, 2, m, vmin, vel[2], o->mass.f[2], o->vol.f[2], o->u.f[2]);
    uint32_t cell[8];
    double w[8];
    corners(&pw, map, 3, cell, w);
    double *restrict phi = o->phi, *restrict alpha = o->alpha;
    const double al = p->alpha ? p->alpha[i] : 0.0;
    for (int k = 0; k < 8; k++) {
        if (cell[k] == GR_INVALID_INDEX)
            continue;
        const double vw = vmin * w[k] * j->inv_h3;
        phi[cell[k]] += vw;
        if (p->alpha)
            alpha[cell[k]] += vw * al;
    }
}

/* The bits set in v (portable C: no compiler builtin). */
static uint32_t bits_set(uint64_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Tasks [t0, t1) of the pass: task t scatters the particles of the pass's slabs lo + 2 s + parity
 * with s % tasks == t, block by block in the grid's order, cell by cell, each cell's in index
 * order. A cell takes from one slab a pass (slabs two apart share none), so which task runs a
 * slab, and in which order the slabs run, changes no sum: the same bits for any task count. Each
 * task reads every block's coordinate once (the slabs' extent does not count: a stray grain a
 * kilometre away adds one block, not a million slabs). */
static void p2g_slabs(void *ctx, uint32_t t0, uint32_t t1, uint32_t worker)
{
    (void)worker;
    const p2g_job *j = (const p2g_job *)ctx;
    const gr_sparse_grid *g = j->g;
    uint32_t map[NB_CELLS];
    for (uint32_t t = t0; t < t1; t++)
        for (uint32_t b = 0; b < g->block_count; b++) {
            const uint64_t s = (uint64_t)((int64_t)g->block_coord[3 * (size_t)b + j->axis] - j->lo);
            if ((s & 1u) != j->parity || (s >> 1) % j->tasks != t)
                continue;
            const uint32_t first = g->cell_start[64 * (size_t)b], end = g->cell_start[64 * (size_t)b + 64];
            if (first == end)
                continue;
            block_map(g, b, map);
            for (uint32_t k = first; k < end; k++)
                p2g_point(j, map, g->point_order[k]);
        }
}

/* Blocks [b0, b1): sums to means (velocity by mass, alpha by packed volume). */
static void p2g_finish(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const p2g_job *j = (const p2g_job *)ctx;
    const cont_grid_mass *o = j->out;
    const uint32_t c1 = 64 * b1;
    if (j->p->alpha)
        for (uint32_t c = 64 * b0; c < c1; c++)
            o->alpha[c] = o->phi[c] > 0 ? o->alpha[c] / o->phi[c] : 0.0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 64 * b0; c < c1; c++)
            o->u.f[a][c] = o->mass.f[a][c] > 0 ? o->u.f[a][c] / o->mass.f[a][c] : 0.0;
}


void cont_particles_to_grid_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_particle_view *p,
                               const cont_grid_mass *out)
{
    p2g_job j = {g, p, out, g->inv_h * g->inv_h * g->inv_h, 0, 0, 0, 1};
    if (g->block_count == 0) /* (no cells: no arrays to offset) */
        return;
    cont_for_blocks(p->n > CONT_PARTICLES_PER_TASK ? tasks : NULL, g->block_count, p2g_zero, &j);
    if (!g->sorted) /* (a stale cell_start would be read out of range: no sums instead) */
        return;
    /* the slabs' axis: the one with the most distinct block coordinates (counted modulo 64: a
     * pile's spread, which a stray grain far off along another axis does not outweigh) */
    int32_t lo[3];
    uint64_t seen[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++)
        lo[a] = g->block_coord[a];
    for (uint32_t b = 0; b < g->block_count; b++)
        for (int a = 0; a < 3; a++) {
            const int32_t c = g->block_coord[3 * (size_t)b + a];
            lo[a] = c < lo[a] ? c : lo[a];
            seen[a] |= 1ull << ((uint32_t)c & 63u);
        }
    for (int a = 1; a < 3; a++)
        if (bits_set(seen[a]) > bits_set(seen[j.axis]))
            j.axis = a;
    j.lo = lo[j.axis];
    const bool parallel = tasks && tasks->worker_count > 1 && p->n > CONT_PARTICLES_PER_TASK;
    j.tasks = parallel ? tasks->worker_count : 1;
    for (j.parity = 0; j.parity < 2; j.parity++) {
        if (j.tasks > 1)
            gr_parallel_for(tasks, j.tasks, 1, p2g_slabs, &j);
        else
            p2g_slabs(&j, 0, 1, 0);
    }
    cont_for_blocks(p->n > CONT_PARTICLES_PER_TASK ? tasks : NULL, g->block_count, p2g_finish, &j);
}

void cont_particles_to_grid(const gr_sparse_grid *g, const cont_particle_view *p, const cont_grid_mass *out)
{
    cont_particles_to_grid_on(NULL, g, p, out);
}

/* ---- grid to particles ---------------------------------------------------------------------- */

typedef struct g2p_job {
    const gr_sparse_grid *g;
    const cont_particle_view *p;
    const cont_faces *u, *u_old;
    double pic;
    double *grad;
    gr_vec3 *flow;
} g2p_job;

/* Face grid `axis` at a point: u, u2 when given, and when grad is given u's gradient there (3 doubles). */
static inline void g2p_face(const point_nodes *pn, int axis, const double d1[2], const double *u, const double *u2,
                            double *now, double *before, double *grad)
{
    uint32_t cell[8];
    double w[8];
    point_corners(pn, axis, cell, w);
    double sum = 0, sum2 = 0;
    for (int k = 0; k < 8; k++)
        if (cell[k] != GR_INVALID_INDEX) {
            sum += w[k] * u[cell[k]];
            if (u2)
                sum2 += w[k] * u2[cell[k]];
        }
    *now = sum;
    if (before)
        *before = sum2;
    if (!grad)
        return;
    /* d w / d x_b: the factor along b replaced by its derivative -1/h, 1/h */
    const int hx = axis != 0, hy = axis != 1, hz = axis != 2;
    const double(*w1)[2][2] = pn->w1;
    double d[3] = {0, 0, 0};
    for (int k = 0; k < 8; k++) {
        if (cell[k] == GR_INVALID_INDEX)
            continue;
        const int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
        const double x = u[cell[k]], wz = w1[2][hz][bz];
        d[0] += d1[bx] * w1[1][hy][by] * wz * x;
        d[1] += w1[0][hx][bx] * d1[by] * wz * x;
        d[2] += w1[0][hx][bx] * w1[1][hy][by] * d1[bz] * x;
    }
    grad[0] = d[0], grad[1] = d[1], grad[2] = d[2];
}

/* Particles [i0, i1) in index order (their memory's order): u and u_old at each, u's gradient
 * when asked, the FLIP update. Each writes only its own velocity, gradient and flow. */
static void g2p_range(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const g2p_job *j = (const g2p_job *)ctx;
    const gr_sparse_grid *g = j->g;
    const cont_particle_view *p = j->p;
    const double d1[2] = {-g->inv_h, g->inv_h}, pic = j->pic;
    for (uint32_t i = i0; i < i1; i++) {
        double *grad = j->grad ? j->grad + 9 * (size_t)i : NULL;
        const uint32_t c0 = g->point_cell[i];
        if (c0 == GR_INVALID_INDEX) { /* no grid here: the particle keeps its velocity */
            if (grad)
                memset(grad, 0, sizeof(double) * 9);
            if (j->flow)
                j->flow[i] = p->v[i];
            continue;
        }
        int32_t c[3];
        double f[3];
        gr_sparse_grid_cell_coords(g, c0, c);
        fractions(g, p->x[i], c, f);
        point_nodes pn;
        point_nodes_of(g, c0, f, &pn);
        double now[3], before[3];
        /* (the grids one by one, each with its axis a constant: the selects go at compile time) */
        g2p_face(&pn, 0, d1, j->u->f[0], j->u_old->f[0], &now[0], &before[0], grad);
        g2p_face(&pn, 1, d1, j->u->f[1], j->u_old->f[1], &now[1], &before[1], grad ? grad + 3 : NULL);
        g2p_face(&pn, 2, d1, j->u->f[2], j->u_old->f[2], &now[2], &before[2], grad ? grad + 6 : NULL);
        const double old[3] = {p->v[i].x, p->v[i].y, p->v[i].z};
        double nv[3];
        for (int a = 0; a < 3; a++)
            nv[a] = (1.0 - pic) * (old[a] + now[a] - before[a]) + pic * now[a];
        p->v[i] = v3(nv[0], nv[1], nv[2]);
        if (j->flow)
            j->flow[i] = v3(now[0], now[1], now[2]);
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

/* ---- the velocity at a point ---------------------------------------------------------------- */

bool cont_velocity_at(const gr_sparse_grid *g, const cont_faces *u, gr_vec3 x, gr_vec3 *v)
{
    int32_t c[3];
    uint32_t b;
    if (!gr_sparse_grid_locate(g, x, c) ||
        (b = gr_sparse_grid_block_of(g, gr_sparse_floor4(c[0]), gr_sparse_floor4(c[1]), gr_sparse_floor4(c[2]))) ==
            GR_INVALID_INDEX) {
        *v = v3(0, 0, 0);
        return false;
    }
    double f[3], w[3];
    fractions(g, x, c, f);
    point_nodes pn;
    point_nodes_of(g, b * 64u + gr_sparse_local(c[0], c[1], c[2]), f, &pn);
    g2p_face(&pn, 0, NULL, u->f[0], NULL, &w[0], NULL, NULL);
    g2p_face(&pn, 1, NULL, u->f[1], NULL, &w[1], NULL, NULL);
    g2p_face(&pn, 2, NULL, u->f[2], NULL, &w[2], NULL, NULL);
    *v = v3(w[0], w[1], w[2]);
    return true;
}
