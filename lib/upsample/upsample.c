/* SPDX-License-Identifier: MIT */
/* High-resolution upsampling (Sommer & Schwanecke sec. 4 after Ihmsen, Wahl, Teschner 2012;
 * docs/pbd.md "Upsampling"): many small points fill the volume of the low-resolution grains
 * and follow their flow, without colliding with each other.
 *
 * Sampling: the volume within hr_sample_radius x r_L of the grains that have no points yet
 * (the grains themselves at 1; with the default 1.3 also the voids of their packing) is cut
 * into cells of side 2 r_H / sqrt(3) (a cell's diagonal is one point diameter, so it holds at
 * most one point); each cell tries `hr_candidates` uniform random positions and keeps the
 * first one that is inside the grains' volume and at least 2 r_H from every accepted point.
 * Cells are visited in a fixed order with a seeded generator: the same seed, the same points.
 *
 * Advection, per point i with grains j within R = hr_support x r_L:
 *     w_ij = max(0, 1 - |x_i - x_j|^2 / R^2)^3,    W = sum w_ij,    vbar = sum w_ij v_j / W
 *     alpha = clamp(1 - W / (c w_rho), 0, 1),      w_rho = (1 - r_L^2 / R^2)^3
 *     v_i <- (1 - alpha) vbar + alpha (v_i + dt g)     (no grain near: v_i + dt g)
 *     x_i <- x_i + dt v_i   (in pieces of at most r_H), then pushed out of bodies (inward
 *                           normal speed removed, sliding speed cut by mu_k times that)
 * Body particles count only when at least one grain is near (a point beside a moved body with
 * no sand around falls instead of sticking to it). Points are independent: parallel and the
 * same for any worker count.
 *
 * Storage: a point is 8 floats (position, velocity, render index, rest flag), kept in the cell
 * order of its last advection (a stable counting sort each step; points move little between
 * steps, so it is nearly a stream): the advection streams through memory and the points of a
 * cell share one gathered list of their grains. hr_at maps render indices (stable while
 * points live) to storage. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/rng.h"
#include "../core/stream.h"
#include "../core/vec3.h"
#include "../geom/region.h"
#include "../grid/grid_index.h"
#include "../grid/poisson_cells.h"
#include "upsample.h"

/* Points per block of the parallel loops (any block gives the same results). */
#define UP_BLOCK 256u

bool gr_upsample_params_check(const gr_upsample_params *p, const char *prefix, gr_def_check *c)
{
    /* every input bounded: a denormal radius or step would ask for points or passes without end */
    char name[48];
#define NAME_(field) (snprintf(name, sizeof name, "%s." field, prefix), name)
    if (!gr_def_range(c, p->radius, 0.0, 1e3, NAME_("hr_radius")))
        return false;
    if (p->radius > 0 && p->radius < 1e-5)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "%s.hr_radius = %g m: give 0 (off) or a radius in [1e-5, 1e3] m",
                           prefix, p->radius);
    if (!gr_def_range(c, p->support, 1.0 + 1e-9, 10.0, NAME_("hr_support")) ||
        !gr_def_range(c, p->density, 1e-6, 1e6, NAME_("hr_density")) ||
        !gr_def_range(c, p->substep, 1e-5, 10.0, NAME_("hr_substep")))
        return false;
    if (p->candidates < 1 || p->candidates > 1000)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "%s.hr_candidates = %u: must be in [1, 1000]", prefix,
                           p->candidates);
    return gr_def_range(c, p->sample_radius, 1.0, 3.0, NAME_("hr_sample_radius"));
#undef NAME_
}

void gr_upsample_init(gr_upsample *u, const gr_solver_env *env, const gr_upsample_params *par)
{
    memset(u, 0, sizeof *u);
    u->env = *env;
    u->par = *par;
    gr_cell_grid_init(&u->grid);
    u->sums = env->kernels->point_sums;
    u->blend = env->kernels->point_blend;
    u->lanes = env->kernels->point_lanes;
    u->hit = env->kernels->point_hit;
}

void gr_upsample_free(gr_upsample *u)
{
    gr_mem_free(u->env.mem, u->pt, sizeof(gr_upsample_point) * u->cap);
    gr_mem_free(u->env.mem, u->tmp, sizeof(gr_upsample_point) * u->cap);
    gr_mem_free(u->env.mem, u->at, sizeof(uint32_t) * u->cap);
    gr_mem_free(u->env.mem, u->key, sizeof(uint32_t) * u->cap);
    gr_mem_free(u->env.mem, u->key_tmp, sizeof(uint32_t) * u->cap);
    gr_mem_free(u->env.mem, u->key_start, sizeof(uint32_t) * u->key_cap);
    u->pt = u->tmp = NULL;
    u->at = u->key = u->key_tmp = u->key_start = NULL;
    u->key_cap = 0;
    u->n = u->cap = 0;
    gr_cell_grid_free(&u->grid, u->env.mem);
    gr_mem_free(u->env.mem, u->sorted, sizeof(float) * 8 * (size_t)u->sorted_cap);
    u->sorted = NULL;
    u->sorted_cap = 0;
}

gr_status gr_upsample_reserve_points(gr_upsample *u, uint32_t need)
{
    if (need <= u->cap)
        return GR_OK;
    if (need > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    const uint32_t cap = gr_grow_capacity(u->cap, need);
    const gr_array_ref arrays[] = {{(void **)&u->pt, sizeof(gr_upsample_point)},
                                   {(void **)&u->tmp, sizeof(gr_upsample_point)},
                                   {(void **)&u->at, sizeof(uint32_t)},
                                   {(void **)&u->key, sizeof(uint32_t)},
                                   {(void **)&u->key_tmp, sizeof(uint32_t)}};
    if (!gr_mem_grow_arrays(u->env.mem, arrays, GR_COUNTOF(arrays), u->cap, cap, u->n))
        return GR_ERROR_OUT_OF_MEMORY;
    u->cap = cap;
    return GR_OK;
}

static inline gr_vec3 point_x(const gr_upsample_point *p) { return v3(p->x, p->y, p->z); }
static inline gr_vec3 point_v(const gr_upsample_point *p) { return v3(p->vx, p->vy, p->vz); }

/* ---- sampling ------------------------------------------------------------------------------ */

/* Cells of the sampling lattice, with the accepted point of each (or GR_INVALID_INDEX). */
typedef struct sample_lattice {
    gr_grid_index ix; ///< cells of side 2 r_H / sqrt 3, rows of z
    uint32_t *point;  ///< [ix.count]
} sample_lattice;


static bool lattice_cell(const sample_lattice *L, gr_vec3 p, int32_t c[3])
{
    const double q[3] = {(p.x - L->ix.lo.x) / L->ix.cell, (p.y - L->ix.lo.y) / L->ix.cell, (p.z - L->ix.lo.z) / L->ix.cell};
    for (int d = 0; d < 3; d++) {
        if (!(q[d] >= 0) || q[d] >= (double)L->ix.dims[d])
            return false;
        c[d] = (int32_t)q[d];
    }
    return true;
}

/* Lattice cells hold a point's index, GR_INVALID_INDEX (empty, nothing to try), or
 * UP_CELL_TRY: to be tried (a new grain's sampling ball reaches it; point indices stay
 * below 2^31). */
#define UP_CELL_TRY 0x80000000u

/* The accepted points that can lie within dmin of cell c (cells within two of c: 2 a >= dmin),
 * into near[] (at most `room`; returns how many, or room + 1 when there are more). Without
 * older points only the cells already visited can hold one: this pass fills cells in scan
 * order. */
static uint32_t points_near_cell(const gr_upsample *u, const sample_lattice *L, const int32_t c[3], bool older,
                                 gr_vec3 *near, uint32_t room)
{
    const size_t here = gr_grid_index_at(&L->ix, c[0], c[1], c[2]);
    uint32_t n = 0;
    for (int32_t i = GR_MAX(c[0] - 2, 0); i <= GR_MIN(c[0] + 2, L->ix.dims[0] - 1); i++)
        for (int32_t j = GR_MAX(c[1] - 2, 0); j <= GR_MIN(c[1] + 2, L->ix.dims[1] - 1); j++) {
            const size_t row = gr_grid_index_at(&L->ix, i, j, 0);
            if (!older && row > here)
                return n; /* the rows ahead are not filled yet */
            for (int32_t k = GR_MAX(c[2] - 2, 0); k <= GR_MIN(c[2] + 2, L->ix.dims[2] - 1); k++) {
                const uint32_t q = L->point[row + (size_t)k];
                if (q >= u->n)
                    continue;
                if (n == room)
                    return room + 1;
                near[n++] = point_x(&u->pt[q]);
            }
        }
    return n;
}

/* Most lattice cells one sampling pass may use (4 bytes each). */
#define UP_MAX_SAMPLE_CELLS (1u << 28)

/* Cells of side 2 r_H / sqrt(3) over lo..hi, all empty but for the existing points' (they block
 * their cells), and room for the points of a volume `vol` (packed to about 0.35: grown as we
 * go beyond). On failure the caller still closes it. */
static gr_status lattice_open(gr_upsample *u, sample_lattice *L, gr_vec3 lo, gr_vec3 hi, double rh, double vol)
{
    memset(L, 0, sizeof *L);
    double cells;
    if (!gr_poisson_cells_fit(lo, hi, 2.0 * rh, (double)UP_MAX_SAMPLE_CELLS, GR_GRID_X_SLOWEST, &L->ix, &cells))
        return GR_ERROR_TOO_MANY;
    L->point = (uint32_t *)gr_mem_alloc(u->env.mem, sizeof(uint32_t) * L->ix.count);
    if (!L->point)
        return GR_ERROR_OUT_OF_MEMORY;
    const gr_status s = gr_upsample_reserve_points(
        u, (uint32_t)GR_MIN((double)u->n + 0.35 * vol / (4.0 / 3.0 * GR_PI * rh * rh * rh) + 64, (double)GR_MAX_GRAINS));
    if (s != GR_OK)
        return s;
    for (size_t c = 0; c < L->ix.count; c++)
        L->point[c] = GR_INVALID_INDEX;
    for (uint32_t q = 0; q < u->n; q++) {
        int32_t c[3];
        if (lattice_cell(L, point_x(&u->pt[q]), c))
            L->point[gr_grid_index_at(&L->ix, c[0], c[1], c[2])] = q;
    }
    return GR_OK;
}

static void lattice_close(gr_upsample *u, sample_lattice *L) { gr_mem_free(u->env.mem, L->point, sizeof(uint32_t) * L->ix.count); }

/* The generator of this sampling pass (the world seed and the passes so far). */
static gr_rng pass_rng(const gr_upsample *u) { return (gr_rng){(*u->env.seed) ^ (0x5851f42d4c957f2dull * (u->batches + 1))}; }

/* Keep point p (velocity v) in lattice cell `cell`. */
static gr_status keep_point(gr_upsample *u, sample_lattice *L, size_t cell, gr_vec3 p, gr_vec3 v)
{
    gr_status s;
    if (u->n == u->cap && (s = gr_upsample_reserve_points(u, u->n + 1)) != GR_OK)
        return s;
    const uint32_t id = u->n++;
    u->pt[id] = (gr_upsample_point){(float)p.x, (float)p.y, (float)p.z, (float)v.x, (float)v.y, (float)v.z, id, 0};
    u->at[id] = id;
    L->point[cell] = id;
    return GR_OK;
}

/* Is any accepted point within `dmin` of p? (cells within two of p's: 2 a >= dmin) */
static bool too_close(const gr_upsample *u, const sample_lattice *L, gr_vec3 p, const int32_t c[3], double dmin)
{
    for (int32_t i = GR_MAX(c[0] - 2, 0); i <= GR_MIN(c[0] + 2, L->ix.dims[0] - 1); i++)
        for (int32_t j = GR_MAX(c[1] - 2, 0); j <= GR_MIN(c[1] + 2, L->ix.dims[1] - 1); j++)
            for (int32_t k = GR_MAX(c[2] - 2, 0); k <= GR_MIN(c[2] + 2, L->ix.dims[2] - 1); k++) {
                const uint32_t q = L->point[gr_grid_index_at(&L->ix, i, j, k)];
                if (q < u->n && v3_len2(v3_sub(point_x(&u->pt[q]), p)) < dmin * dmin)
                    return true;
            }
    return false;
}

/* Is an accepted point within 2 r_H of candidate p in cell c? From the points gathered near
 * the cell (np of them), or from the lattice when there were more than `room`. */
static bool crowded(const gr_upsample *u, const sample_lattice *L, gr_vec3 p, const int32_t c[3], const gr_vec3 *pts,
                    uint32_t np, uint32_t room, double rh)
{
    if (np > room)
        return too_close(u, L, p, c, 2.0 * rh);
    for (uint32_t m = 0; m < np; m++)
        if (v3_len2(v3_sub(pts[m], p)) < 4.0 * rh * rh)
            return true;
    return false;
}

/* The new grain whose sampling ball (cover x its radius) contains p (GR_INVALID_INDEX: none),
 * from the grid over them. */
static uint32_t containing_grain(const gr_upsample_view *pv, const gr_cell_grid *g, const uint32_t *grains, gr_vec3 p,
                                 double cover)
{
    int32_t c[3];
    gr_cell_grid_coords(g, p, c);
    uint32_t rb[9], re[9];
    const uint32_t rows = gr_cell_grid_block_rows(g, c, rb, re);
    for (uint32_t row = 0; row < rows; row++)
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const uint32_t i = grains[g->order[s]];
            if (v3_len2(v3_sub(p, pv->x[i])) <= cover * cover * pv->r[i] * pv->r[i])
                return i;
        }
    return GR_INVALID_INDEX;
}

/* The new grains whose sampling balls can reach into the cell around `centre` (half diagonal
 * hd), into near[] (at most room; room + 1 when there are more). */
static uint32_t grains_near_cell(const gr_upsample_view *pv, const gr_cell_grid *g, const uint32_t *grains, gr_vec3 centre,
                                 double hd, double cover, uint32_t *near, uint32_t room)
{
    int32_t c[3];
    gr_cell_grid_coords(g, centre, c);
    uint32_t rb[9], re[9];
    const uint32_t rows = gr_cell_grid_block_rows(g, c, rb, re);
    uint32_t n = 0;
    for (uint32_t row = 0; row < rows; row++)
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const uint32_t i = grains[g->order[s]];
            const double reach = cover * pv->r[i] + hd;
            if (v3_len2(v3_sub(centre, pv->x[i])) > reach * reach)
                continue;
            if (n == room)
                return room + 1;
            near[n++] = i;
        }
    return n;
}

/* Is p inside a body's solid, or within r_H of an exact surface? (a point sampled in the
 * ball around a grain that rests on a wall must not start inside the wall) Bodies whose
 * bounding sphere is farther are passed over at once. */
static bool in_a_body(const gr_upsample *u, gr_vec3 p, double rh)
{
    const gr_body_store *bs = u->env.bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        const double bound = gr_body_bound_radius(b);
        if (bound < INFINITY && v3_len2(v3_sub(p, b->position)) > (bound + rh) * (bound + rh))
            continue;
        if (b->shape == GR_SHAPE_MESH ? gr_body_contains(b, p) : gr_body_distance(b, p) < rh)
            return true;
    }
    return false;
}

/* Is any body within `reach` of p (its solid included)? */
static bool bodies_near(const gr_upsample *u, gr_vec3 p, double reach)
{
    gr_body_store *bs = u->env.bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        gr_body_data *b = &bs->data[bs->active[a]];
        const double bound = gr_body_bound_radius(b);
        if (bound < INFINITY && v3_len2(v3_sub(p, b->position)) > (bound + reach) * (bound + reach))
            continue;
        if (gr_body_distance_within(b, p, 2.0 * reach) < reach)
            return true;
    }
    return false;
}

/* A region's lattice cells for its points: outside (no point's sphere centred in the cell
 * lies inside), deep inside, or at the edge (each candidate asks); and whether a body is near. */
enum { CELL_OUT = 0, CELL_DEEP = 1, CELL_EDGE = 2, CELL_NEAR_BODY = 4, CLASSIFY_TOP = 16 };

typedef struct classify_ctx {
    const gr_upsample *u;
    const sample_lattice *L;
    gr_region *r;
    double hd, rh; ///< a cell's half diagonal, the points' radius
    uint8_t *cls;
} classify_ctx;

/* Classify the block of size^3 cells at (i0, j0, k0) (clipped to the lattice): from the depth
 * at its centre when that settles the whole block (the depth changes no faster than the
 * distance), else by its eight halves; cells alone by their centre's depth. near: a body may
 * be near (asked again on blocks of 4 and more). */
static void classify(const classify_ctx *c, int32_t i0, int32_t j0, int32_t k0, int32_t size, bool near)
{
    const sample_lattice *L = c->L;
    if (i0 >= L->ix.dims[0] || j0 >= L->ix.dims[1] || k0 >= L->ix.dims[2])
        return;
    const double a = L->ix.cell;
    const gr_vec3 centre = {L->ix.lo.x + a * (i0 + 0.5 * size), L->ix.lo.y + a * (j0 + 0.5 * size),
                            L->ix.lo.z + a * (k0 + 0.5 * size)};
    const double bh = size > 1 ? 0.8660254037844386 * a * size : 0.0; /* past the cells' centres */
    const double dc = gr_region_depth(c->r, centre, bh + c->hd + c->rh);
    uint8_t kind = 0xff;
    if (dc + bh + c->hd < c->rh)
        kind = CELL_OUT;
    else if (dc - bh - c->hd >= c->rh)
        kind = CELL_DEEP;
    else if (size == 1)
        kind = CELL_EDGE;
    if (kind != CELL_OUT && near && size >= 4)
        near = bodies_near(c->u, centre, bh + c->hd + c->rh);
    if (kind == 0xff) {
        const int32_t h = size / 2;
        for (int q = 0; q < 8; q++)
            classify(c, i0 + (q & 1) * h, j0 + (q >> 1 & 1) * h, k0 + (q >> 2) * h, h, near);
        return;
    }
    if (kind != CELL_OUT && near)
        kind |= CELL_NEAR_BODY;
    for (int32_t i = i0; i < GR_MIN(i0 + size, L->ix.dims[0]); i++)
        for (int32_t j = j0; j < GR_MIN(j0 + size, L->ix.dims[1]); j++)
            memset(c->cls + gr_grid_index_at(&L->ix, i, j, k0), kind, (size_t)(GR_MIN(k0 + size, L->ix.dims[2]) - k0));
}


/* A lattice cell is worth trying when its centre lies within the sampling ball of a new grain
 * grown by the cell's half diagonal: each grain marks the cells of its ball's bounding box. */
static void mark_cells(const gr_upsample_view *pv, sample_lattice *L, const uint32_t *grains, uint32_t count, double cover)
{
    const double half_diag = 0.8660254037844386 * L->ix.cell;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = grains[k];
        const gr_vec3 x = pv->x[i];
        const double reach = cover * pv->r[i] + half_diag;
        int32_t lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            const double o = v3_get(L->ix.lo, d);
            lo[d] = GR_MAX((int32_t)floor((v3_get(x, d) - reach - o) / L->ix.cell), 0);
            hi[d] = GR_MIN((int32_t)floor((v3_get(x, d) + reach - o) / L->ix.cell), L->ix.dims[d] - 1);
        }
        for (int32_t a = lo[0]; a <= hi[0]; a++)
            for (int32_t b = lo[1]; b <= hi[1]; b++)
                for (int32_t c = lo[2]; c <= hi[2]; c++) {
                    const gr_vec3 centre = {L->ix.lo.x + (a + 0.5) * L->ix.cell, L->ix.lo.y + (b + 0.5) * L->ix.cell,
                                            L->ix.lo.z + (c + 0.5) * L->ix.cell};
                    uint32_t *cell = &L->point[gr_grid_index_at(&L->ix, a, b, c)];
                    if (*cell == GR_INVALID_INDEX && v3_len2(v3_sub(centre, x)) <= reach * reach)
                        *cell = UP_CELL_TRY;
                }
    }
}

/* Most near points or grains a lattice cell gathers for its candidates (more: each candidate
 * asks the grids; points far smaller than the grains' spacing, or the other way round). */
#define UP_NEAR_ROOM 128

/* A sampling pass over new grains, for the sampler's hooks. */
typedef struct group_sampling {
    gr_upsample *u;
    const gr_upsample_view *pv;
    sample_lattice *L;
    const gr_cell_grid *g;  ///< the new grains by cells
    const uint32_t *grains;
    double cover, rh, hd;   ///< sampling ball factor, point radius, the cells' half diagonal
    bool older;             ///< points from earlier passes exist
    uint32_t np, ng;        ///< gathered for the current cell
    gr_status status;
    gr_vec3 pts[UP_NEAR_ROOM];
    uint32_t near[UP_NEAR_ROOM];
} group_sampling;

/* A cell some new grain's ball reaches and no point holds: gather what its candidates are
 * tested against, once. */
static gr_sample_verdict group_cell(void *vctx, const int32_t c[3], size_t cell, gr_rng *rng)
{
    (void)rng;
    group_sampling *s = (group_sampling *)vctx;
    uint32_t *slot = &s->L->point[cell];
    if (*slot == GR_INVALID_INDEX || !(*slot & UP_CELL_TRY))
        return GR_SAMPLE_NO; /* no new grain's ball reaches it, or taken */
    *slot = GR_INVALID_INDEX;
    const gr_grid_index *ix = &s->L->ix;
    const gr_vec3 centre = {ix->lo.x + ix->cell * (c[0] + 0.5), ix->lo.y + ix->cell * (c[1] + 0.5),
                            ix->lo.z + ix->cell * (c[2] + 0.5)};
    s->np = points_near_cell(s->u, s->L, c, s->older, s->pts, UP_NEAR_ROOM);
    s->ng = grains_near_cell(s->pv, s->g, s->grains, centre, s->hd, s->cover, s->near, UP_NEAR_ROOM);
    return GR_SAMPLE_YES;
}

/* A candidate inside a new grain's ball, 2 r_H from every point and outside bodies is kept,
 * with that grain's velocity. */
static gr_sample_verdict group_candidate(void *vctx, const int32_t c[3], size_t cell, gr_vec3 p, gr_rng *rng)
{
    (void)rng;
    group_sampling *s = (group_sampling *)vctx;
    const gr_upsample_view *pv = s->pv;
    uint32_t owner = GR_INVALID_INDEX;
    if (s->ng > UP_NEAR_ROOM) {
        owner = containing_grain(pv, s->g, s->grains, p, s->cover);
    } else {
        for (uint32_t m = 0; m < s->ng && owner == GR_INVALID_INDEX; m++) {
            const uint32_t gi = s->near[m];
            if (v3_len2(v3_sub(p, pv->x[gi])) <= s->cover * s->cover * pv->r[gi] * pv->r[gi])
                owner = gi;
        }
    }
    if (owner == GR_INVALID_INDEX)
        return GR_SAMPLE_NO;
    if (crowded(s->u, s->L, p, c, s->pts, s->np, UP_NEAR_ROOM, s->rh) || in_a_body(s->u, p, s->rh))
        return GR_SAMPLE_NO;
    s->status = keep_point(s->u, s->L, cell, p, pv->v[owner]);
    return s->status == GR_OK ? GR_SAMPLE_YES : GR_SAMPLE_STOP;
}

/* One sampling pass over new grains (grains[k] at pos[k]): a lattice over their sampling balls'
 * bounding box, the cells some ball reaches tried in lattice order. Appends points only. */
static gr_status sample_group(gr_upsample *u, const gr_upsample_view *pv, const uint32_t *grains, const gr_vec3 *pos, uint32_t nnew, gr_rng *rngp)
{
    gr_mem *mem = u->env.mem;
    const double rh = u->par.radius, cover = u->par.sample_radius;
    gr_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0;
    for (uint32_t m = 0; m < nnew; m++) {
        const uint32_t i = grains[m];
        const double r = cover * pv->r[i];
        rmax = GR_MAX(rmax, r);
        lo = v3(GR_MIN(lo.x, pv->x[i].x - r), GR_MIN(lo.y, pv->x[i].y - r), GR_MIN(lo.z, pv->x[i].z - r));
        hi = v3(GR_MAX(hi.x, pv->x[i].x + r), GR_MAX(hi.y, pv->x[i].y + r), GR_MAX(hi.z, pv->x[i].z + r));
    }
    gr_cell_grid g;
    gr_cell_grid_init(&g);
    sample_lattice L;
    const bool older = u->n > 0;
    gr_status status = lattice_open(u, &L, lo, hi, rh, (double)nnew * 4.0 / 3.0 * GR_PI * rmax * rmax * rmax);
    if (status == GR_OK && !gr_cell_grid_build(&g, mem, (const double *)pos, 3, nnew, 2.0 * rmax, GR_MAX(4u * nnew, 64u)))
        status = GR_ERROR_OUT_OF_MEMORY;
    if (status == GR_OK) {
        mark_cells(pv, &L, grains, nnew, cover);
        group_sampling gs = {.u = u, .pv = pv, .L = &L, .g = &g, .grains = grains, .cover = cover, .rh = rh,
                             .hd = 0.8660254037844386 * L.ix.cell, .older = older, .status = GR_OK};
        gr_rng rng = *rngp;
        gr_poisson_cells_sample(&L.ix, u->par.candidates, &rng, group_cell, group_candidate, &gs);
        status = gs.status;
        *rngp = rng;
    }
    gr_cell_grid_free(&g, mem);
    lattice_close(u, &L);
    return status;
}

/* Grains farther than this from the origin [m] get no points: their points' single-precision
 * coordinates could not tell them apart (and a lattice there could not be indexed). */
#define UP_FAR 1e15
/* A group of new grains is sampled in one lattice when its bounding box has at most this many
 * cells, or at most UP_GROUP_SPARSITY times the cells of its grains' balls: grains spread
 * thinly (far apart) are split into groups instead, so that a far grain costs its own ball,
 * not the box between it and the others. */
#define UP_GROUP_CELLS (1u << 20)
#define UP_GROUP_SPARSITY 64.0

/* Lattice cells of a group (doubles: a sparse group's box may hold more than any integer). */
static bool group_is_compact(const gr_upsample *u, const gr_vec3 *pos, uint32_t n, double rmax)
{
    const double a = 2.0 * u->par.radius / sqrt(3.0);
    gr_vec3 lo = pos[0], hi = pos[0];
    for (uint32_t k = 1; k < n; k++) {
        lo = v3(GR_MIN(lo.x, pos[k].x), GR_MIN(lo.y, pos[k].y), GR_MIN(lo.z, pos[k].z));
        hi = v3(GR_MAX(hi.x, pos[k].x), GR_MAX(hi.y, pos[k].y), GR_MAX(hi.z, pos[k].z));
    }
    double cells = 1;
    for (int d = 0; d < 3; d++)
        cells *= GR_MAX(1.0, ceil((v3_get(hi, d) - v3_get(lo, d) + 2.0 * rmax) / a));
    const double ball = pow(2.0 * rmax / a + 1.0, 3.0);
    return cells <= (double)UP_MAX_SAMPLE_CELLS && (cells <= (double)UP_GROUP_CELLS || cells <= UP_GROUP_SPARSITY * ball * n);
}

/* Fill the volume of the grains not sampled yet with points. All or nothing. */
gr_status gr_upsample_sample_new(gr_upsample *u, const gr_upsample_view *pv)
{
    const double rh = u->par.radius;
    if (!(rh > 0))
        return GR_OK;
    uint32_t nnew = 0;
    for (uint32_t i = 0; i < pv->n; i++)
        nnew += pv->owner[i] == GR_INVALID_INDEX && !pv->sampled[i];
    if (!nnew)
        return GR_OK;
    gr_mem *mem = u->env.mem;
    /* the new grains within reach of single precision, their positions, and scratch for the
     * groups (a split's halves, the stack of groups to do) */
    const size_t bytes = (sizeof(uint32_t) * 4 + sizeof(gr_vec3) * 2) * (size_t)nnew + sizeof(uint32_t) * 2;
    char *buf = (char *)gr_mem_alloc(mem, bytes);
    if (!buf)
        return GR_ERROR_OUT_OF_MEMORY;
    gr_vec3 *pos = (gr_vec3 *)buf, *pos_tmp = pos + nnew;
    uint32_t *grains = (uint32_t *)(pos_tmp + nnew), *grains_tmp = grains + nnew, *stack = grains_tmp + nnew;
    const double cover = u->par.sample_radius;
    uint32_t m = 0;
    double rmax = 0;
    for (uint32_t i = 0; i < pv->n; i++) {
        if (pv->owner[i] != GR_INVALID_INDEX || pv->sampled[i])
            continue;
        const gr_vec3 x = pv->x[i];
        if (!(fabs(x.x) <= UP_FAR && fabs(x.y) <= UP_FAR && fabs(x.z) <= UP_FAR))
            continue; /* no points (it counts as sampled below) */
        grains[m] = i;
        pos[m++] = x;
        rmax = GR_MAX(rmax, cover * pv->r[i]);
    }
    const uint32_t first_new = u->n;
    gr_rng rng = pass_rng(u);
    gr_status status = GR_OK;
    /* groups [begin, end) of grains[], depth first: a group that is not compact is split in two
     * at the middle of its centres' longest extent (stable, so the order is deterministic); the
     * stack holds at most one group per level, and there are at most m levels */
    uint32_t top = 0;
    if (m) {
        stack[top++] = 0;
        stack[top++] = m;
    }
    while (top && status == GR_OK) {
        const uint32_t end = stack[--top], begin = stack[--top], n = end - begin;
        if (!group_is_compact(u, pos + begin, n, rmax)) {
            gr_vec3 lo = pos[begin], hi = pos[begin];
            for (uint32_t k = begin + 1; k < end; k++) {
                lo = v3(GR_MIN(lo.x, pos[k].x), GR_MIN(lo.y, pos[k].y), GR_MIN(lo.z, pos[k].z));
                hi = v3(GR_MAX(hi.x, pos[k].x), GR_MAX(hi.y, pos[k].y), GR_MAX(hi.z, pos[k].z));
            }
            int axis = 0;
            for (int d = 1; d < 3; d++)
                if (v3_get(hi, d) - v3_get(lo, d) > v3_get(hi, axis) - v3_get(lo, axis))
                    axis = d;
            const double mid = 0.5 * (v3_get(lo, axis) + v3_get(hi, axis));
            uint32_t left = 0;
            for (uint32_t k = begin; k < end; k++)
                left += v3_get(pos[k], axis) < mid;
            if (left > 0 && left < n) {
                uint32_t l = 0, r = left;
                for (uint32_t k = begin; k < end; k++) {
                    const uint32_t to = v3_get(pos[k], axis) < mid ? l++ : r++;
                    grains_tmp[to] = grains[k];
                    pos_tmp[to] = pos[k];
                }
                memcpy(grains + begin, grains_tmp, sizeof(uint32_t) * n);
                memcpy(pos + begin, pos_tmp, sizeof(gr_vec3) * n);
                stack[top++] = begin + left; /* the right half after the left */
                stack[top++] = end;
                stack[top++] = begin;
                stack[top++] = begin + left;
                continue;
            }
        }
        status = sample_group(u, pv, grains + begin, pos + begin, n, &rng);
    }
    if (status != GR_OK) {
        u->n = first_new; /* all or nothing (new points were only appended) */
    } else {
        /* 2: sampled by this step, until gr_upsample_keep (gr_upsample_undo takes them back) */
        for (uint32_t i = 0; i < pv->n; i++)
            if (pv->owner[i] == GR_INVALID_INDEX && !pv->sampled[i])
                pv->sampled[i] = 2;
        u->batches++;
        u->sample_undo_n = first_new;
        u->sample_pending = true;
    }
    gr_mem_free(mem, buf, bytes);
    return status;
}

/* The step that sampled new grains moved them: their points stay. */
void gr_upsample_keep(gr_upsample *u, const gr_upsample_view *pv)
{
    if (!u->sample_pending)
        return;
    for (uint32_t i = 0; i < pv->n; i++)
        pv->sampled[i] = pv->sampled[i] ? 1 : 0;
    u->sample_pending = false;
}

/* The step failed before anything moved: the new grains' points go, as if never sampled. */
void gr_upsample_undo(gr_upsample *u, const gr_upsample_view *pv)
{
    if (!u->sample_pending)
        return;
    for (uint32_t i = 0; i < pv->n; i++)
        pv->sampled[i] = pv->sampled[i] == 2 ? 0 : pv->sampled[i];
    u->n = u->sample_undo_n;
    u->batches--;
    u->sample_pending = false;
}

/* A region's sampling, for the sampler's hooks. */
typedef struct region_sampling {
    gr_upsample *u;
    sample_lattice *L;
    const gr_region *r;
    const uint8_t *cls; ///< the cells' classes
    double rh;
    gr_vec3 velocity;
    bool older;
    bool check_each;    ///< the current cell is near the region's surface
    uint32_t np;
    gr_status status;
    gr_vec3 pts[UP_NEAR_ROOM];
} region_sampling;

static gr_sample_verdict region_cell(void *vctx, const int32_t c[3], size_t cell, gr_rng *rng)
{
    (void)rng;
    region_sampling *s = (region_sampling *)vctx;
    if (s->L->point[cell] != GR_INVALID_INDEX)
        return GR_SAMPLE_NO; /* an older point holds it */
    const uint8_t kb = s->cls[cell];
    if ((kb & 3) == CELL_OUT)
        return GR_SAMPLE_NO; /* no point's sphere centred in this cell lies inside */
    s->check_each = (kb & 3) == CELL_EDGE;
    s->np = points_near_cell(s->u, s->L, c, s->older, s->pts, UP_NEAR_ROOM);
    return GR_SAMPLE_YES;
}

static gr_sample_verdict region_candidate(void *vctx, const int32_t c[3], size_t cell, gr_vec3 p, gr_rng *rng)
{
    (void)rng;
    region_sampling *s = (region_sampling *)vctx;
    if (s->check_each && gr_region_depth(s->r, p, s->rh) < s->rh)
        return GR_SAMPLE_NO;
    if (crowded(s->u, s->L, p, c, s->pts, s->np, UP_NEAR_ROOM, s->rh) ||
        ((s->cls[cell] & CELL_NEAR_BODY) && in_a_body(s->u, p, s->rh)))
        return GR_SAMPLE_NO;
    s->status = keep_point(s->u, s->L, cell, p, s->velocity);
    return s->status == GR_OK ? GR_SAMPLE_YES : GR_SAMPLE_STOP;
}

/* Fill a region with points (the seed's sampling of the fill's mesh for both resolutions):
 * cells of side 2 r_H / sqrt(3) over its box, classified by their centre's depth (cells no
 * point fits in are passed over; deep ones need no test per candidate; blocks of cells are
 * classified first), `hr_candidates` each,
 * the first inside the region (a point's sphere within it), outside bodies and 2 r_H from every
 * point kept. All or nothing. */
gr_status gr_upsample_fill_region(gr_upsample *u, const struct gr_region *region, uint32_t grains, gr_vec3 velocity)
{
    const double rh = u->par.radius;
    u->presample_mark = u->n; /* what a cancel goes back to */
    u->presample_batches = u->batches;
    u->presampled = 0;
    if (!(rh > 0) || !grains)
        return GR_OK;
    gr_region r = *region;
    sample_lattice L;
    const uint32_t first_new = u->n;
    gr_status status =
        lattice_open(u, &L, r.lo, r.hi, rh, (r.hi.x - r.lo.x) * (r.hi.y - r.lo.y) * (r.hi.z - r.lo.z));
    uint8_t *cls = NULL;
    if (status == GR_OK) {
        const bool older = first_new > 0;
        gr_rng rng = pass_rng(u);
        const double hd = 0.8660254037844386 * L.ix.cell;
        /* every cell classified by blocks halving down to the region's surface: outside,
         * deep inside, or near the surface (its candidates ask), and near a body or not */
        cls = (uint8_t *)gr_mem_alloc(u->env.mem, L.ix.count);
        if (!cls) {
            status = GR_ERROR_OUT_OF_MEMORY;
        } else {
            classify_ctx cc = {u, &L, &r, hd, rh, cls};
            for (int32_t i = 0; i < L.ix.dims[0]; i += CLASSIFY_TOP)
                for (int32_t j = 0; j < L.ix.dims[1]; j += CLASSIFY_TOP)
                    for (int32_t k = 0; k < L.ix.dims[2]; k += CLASSIFY_TOP)
                        classify(&cc, i, j, k, CLASSIFY_TOP, true);
        }
        if (status == GR_OK) {
            region_sampling rs = {.u = u, .L = &L, .r = &r, .cls = cls, .rh = rh, .velocity = velocity, .older = older,
                                  .status = GR_OK};
            gr_poisson_cells_sample(&L.ix, u->par.candidates, &rng, region_cell, region_candidate, &rs);
            status = rs.status;
        }
    }
    gr_mem_free(u->env.mem, cls, L.ix.count);
    lattice_close(u, &L);
    if (status != GR_OK) {
        u->n = first_new;
        return status;
    }
    u->batches++;
    u->presampled = grains;
    return GR_OK;
}

void gr_upsample_fill_cancel(gr_upsample *u)
{
    u->n = u->presample_mark;
    u->batches = u->presample_batches;
    u->presampled = 0;
}

/* ---- advection ----------------------------------------------------------------------------- */

void gr_upsample_unrest(gr_upsample *u)
{
    u->idle_valid = false;
    for (uint32_t q = 0; q < u->n; q++)
        u->pt[q].rest = 0;
}

/* Most exact bodies the lanes test (beyond, points are blended and moved one by one). */
#define UP_LANE_EXACT 16u

typedef struct advect_ctx {
    gr_upsample *u;
    const gr_upsample_view *pv;
    double dt;
    gr_vec3 g;
    double inv_r2;    ///< 1 / R^2
    double support;   ///< R
    double inv_dense; ///< 1 / (c w_rho)
    double body_reach;///< r_max + r_H: body particles a point can touch
    bool exact_moving;///< a kinematic exact body (it may push resting points)
    atomic_uint *moved;///< points that were blended or moved (not skipped at rest)
    double rest2;     ///< squared speed below which a point among still grains rests
    bool lanes;       ///< blend and move batches in lanes (gr_point_blend_fn)
    gr_point_blend_consts blend;
    double exact[GR_POINT_EXACT_VALUES * UP_LANE_EXACT]; ///< the exact bodies for the lanes
} advect_ctx;

/* The blend of one point from its sums over the grains (wg: weights of grains, W: of grains
 * and body particles, vsum: weighted velocities of both). */
static gr_vec3 blend_velocity(const advect_ctx *c, gr_vec3 v_old, double wg, double W, gr_vec3 vsum)
{
    gr_vec3 v = v3_madd(v_old, c->g, c->dt); /* free flight */
    if (wg > 0) { /* body particles only count next to sand */
        const gr_vec3 vbar = v3_scale(vsum, 1.0 / W);
        double alpha = 1.0 - W * c->inv_dense;
        alpha = alpha < 0 ? 0 : (alpha > 1 ? 1 : alpha);
        v = v3_add(v3_scale(vbar, 1.0 - alpha), v3_scale(v, alpha));
    }
    return v;
}

/* Grains and body particles near one grid cell, as float arrays: every point of the cell
 * gathers from the same short list, 8 or 16 points at a time (lib/simd/kernel_points.h); and the body
 * particles near the cell, for the points' collisions. */
#define HR_CACHE 1024u
#define HR_BODY_CACHE 256u
typedef struct hr_cache {
    float x[HR_CACHE], y[HR_CACHE], z[HR_CACHE], g[HR_CACHE], vx[HR_CACHE], vy[HR_CACHE], vz[HR_CACHE];
    uint32_t n;
    uint32_t body[HR_BODY_CACHE]; ///< grid positions of the body particles near
    double bx[HR_BODY_CACHE], by[HR_BODY_CACHE], bz[HR_BODY_CACHE], breach2[HR_BODY_CACHE]; ///< their x, (r + r_H)^2
    uint32_t nbody;
    bool still;    ///< every entry at rest
    bool overflow; ///< the neighbourhood did not fit: its points gather from the grid rows
    bool body_overflow;
    int32_t cell[3]; ///< the cell's coordinates
} hr_cache;

/* Fill the cache for cell `key`: the particles of the 3x3x3 cells around it (cells are at
 * least the support) within R + half a cell diagonal of its centre. */
static void fill_cache(const advect_ctx *c, uint32_t key, hr_cache *k)
{
    const gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    const gr_cell_grid *g = &u->grid;
    int32_t cc[3];
    cc[2] = (int32_t)(key % (uint32_t)g->dims[2]);
    cc[1] = (int32_t)(key / (uint32_t)g->dims[2] % (uint32_t)g->dims[1]);
    cc[0] = (int32_t)(key / ((uint32_t)g->dims[2] * (uint32_t)g->dims[1]));
    gr_vec3 centre = g->index.lo;
    for (int d = 0; d < 3; d++)
        v3_set(&centre, g->axis[d], g->index.lo_axis[g->axis[d]] + ((double)cc[d] + 0.5) * g->index.cell);
    const double spread = 0.8660254037844386 * g->index.cell;
    const double reach = c->support + spread, breach = c->body_reach + spread, rh = u->par.radius;
    const float r2 = (float)(reach * reach), b2 = (float)(breach * breach);
    const float ox = (float)centre.x, oy = (float)centre.y, oz = (float)centre.z;
    uint32_t rb[9], re[9];
    const uint32_t rows = gr_cell_grid_block_rows(g, cc, rb, re);
    k->cell[0] = cc[0], k->cell[1] = cc[1], k->cell[2] = cc[2];
    uint32_t n = 0, nb = 0;
    bool still = true;
    k->overflow = k->body_overflow = false;
    for (uint32_t row = 0; row < rows; row++)
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const float *e = u->sorted + 8 * (size_t)s;
            const float dx = e[0] - ox, dy = e[1] - oy, dz = e[2] - oz, d2 = dx * dx + dy * dy + dz * dz;
            if (e[3] == 0.0f && d2 <= b2) {
                if (nb == HR_BODY_CACHE) {
                    k->body_overflow = true;
                } else {
                    const uint32_t j = g->order[s];
                    const double reach = pv->r[j] + rh; /* (as push_from_particle has it) */
                    k->bx[nb] = pv->x[j].x, k->by[nb] = pv->x[j].y, k->bz[nb] = pv->x[j].z;
                    k->breach2[nb] = reach * reach;
                    k->body[nb++] = s;
                }
                /* a moving body particle that can reach the cell's points stirs them */
                still &= e[4] == 0.0f && e[5] == 0.0f && e[6] == 0.0f;
            }
            if (d2 > r2 || k->overflow)
                continue;
            if (n == HR_CACHE) {
                k->overflow = true;
                continue;
            }
            k->x[n] = e[0], k->y[n] = e[1], k->z[n] = e[2], k->g[n] = e[3];
            k->vx[n] = e[4], k->vy[n] = e[5], k->vz[n] = e[6];
            still &= e[4] == 0.0f && e[5] == 0.0f && e[6] == 0.0f;
            n++;
        }
    k->n = n;
    k->nbody = nb;
    k->still = still;
}

/* The same sums from the grid's rows around x (points far outside the grid, or in a cell too
 * crowded for the cache). still: every particle in the support is at rest. */
static void row_sums(const advect_ctx *c, gr_vec3 x, double out[5], bool *still)
{
    const gr_upsample *u = c->u;
    const gr_cell_grid *g = &u->grid;
    uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS];
    const uint32_t rows = gr_cell_grid_reach_rows(g, x, c->support, rb, re);
    const float px = (float)x.x, py = (float)x.y, pz = (float)x.z, inv_r2 = (float)c->inv_r2;
    float sw = 0, sg = 0, sx = 0, sy = 0, sz = 0;
    *still = true;
    for (uint32_t row = 0; row < rows; row++)
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const float *e = u->sorted + 8 * (size_t)s;
            const float dx = px - e[0], dy = py - e[1], dz = pz - e[2];
            const float t = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2;
            if (!(t > 0))
                continue;
            const float w = t * t * t;
            *still &= e[4] == 0.0f && e[5] == 0.0f && e[6] == 0.0f;
            sw += w;
            sg += w * e[3];
            sx += w * e[4];
            sy += w * e[5];
            sz += w * e[6];
        }
    out[0] = sw, out[1] = sg, out[2] = sx, out[3] = sy, out[4] = sz;
}

/* The cell key of a point: its hr_grid cell, or ncells outside the grid (the grid reaches the
 * support beyond every particle: nothing to gather there unless far outliers were clamped
 * into its edge cells). */
static uint32_t point_key(const gr_cell_grid *g, gr_vec3 p)
{
    uint32_t key = 0;
    for (int d = 0; d < 3; d++) {
        /* (truncation is floor here: t >= 0, and dims is whole) */
        const double t = (v3_get(p, g->axis[d]) - g->index.lo_axis[g->axis[d]]) * g->index.inv_cell;
        if (!(t >= 0 && t < (double)g->dims[d]))
            return gr_cell_grid_cells(g);
        key = key * (uint32_t)g->dims[d] + (uint32_t)t;
    }
    return key;
}

/* A point hitting a surface (normal nrm, surface velocity vs): the approaching normal speed
 * goes, and Coulomb friction mu_k takes up to mu_k times that from the sliding speed (a point
 * that leaves the sand stops on the floor instead of gliding away). */
static inline gr_vec3 point_contact(gr_vec3 v, gr_vec3 vs, gr_vec3 nrm, double mu_k)
{
    const gr_vec3 rel = v3_sub(v, vs);
    const double vn = v3_dot(rel, nrm);
    if (!(vn < 0))
        return v;
    const gr_vec3 vt = v3_madd(rel, nrm, -vn);
    const double lt = v3_len(vt), cut = -mu_k * vn;
    const gr_vec3 vt_new = lt > cut ? v3_scale(vt, 1.0 - cut / lt) : v3(0, 0, 0);
    return v3_add(vs, vt_new);
}

/* Push point (x, v) out of body particle j (its grid position s in hr_sorted). */
static inline void push_from_particle(const gr_upsample *u, const gr_upsample_view *pv, uint32_t s, double rh, gr_vec3 *x, gr_vec3 *v)
{
    const uint32_t j = u->grid.order[s];
    const gr_vec3 dxj = v3_sub(*x, pv->x[j]);
    const double reach = pv->r[j] + rh, d2 = v3_len2(dxj);
    if (d2 >= reach * reach || !(d2 > 0))
        return;
    const double len = sqrt(d2);
    const gr_vec3 nrm = v3_scale(dxj, 1.0 / len);
    *x = v3_madd(*x, nrm, reach - len);
    *v = point_contact(*v, pv->v[j], nrm, pv->surface_mu(pv->solver, pv->mat[j]));
}

/* Point (x, v) pushed out of the body particles of cache k in the cache's order, each from
 * where the pushes before left it: the scan for the next particle it is inside of runs in
 * vector lanes (gr_point_hit_fn, the same test as push_from_particle's). True if one pushed it. */
static bool push_from_cached_bodies(const gr_upsample *u, const gr_upsample_view *pv, const hr_cache *k, double rh, gr_vec3 *x, gr_vec3 *v)
{
    bool pushed = false;
    for (uint32_t b = 0;; b++) {
        b = u->hit(k->bx, k->by, k->bz, k->breach2, b, k->nbody, x->x, x->y, x->z);
        if (b >= k->nbody)
            return pushed;
        push_from_particle(u, pv, k->body[b], rh, x, v);
        pushed = true;
    }
}

/* Push point (x, v) out of the exact surfaces it is within r_H of. from: where it was before
 * another push (a body particle's), NULL: it moved by itself in a piece of at most r_H. A push
 * must not carry it through a container's thin wall: it goes back to its side. */
static void push_from_exact(const gr_upsample *u, const gr_upsample_view *pv, double rh, const gr_vec3 *from, gr_vec3 *xp, gr_vec3 *vp)
{
    const gr_body_store *bs = u->env.bodies;
    gr_vec3 x = *xp, v = *vp;
    for (uint32_t e = 0; e < pv->exact_count; e++) {
        const gr_exact_body *ex = &pv->exact[e];
        gr_vec3 nrm;
        if (from && !ex->plane && gr_body_uncross(&bs->data[ex->slot], *from, &x, rh, &nrm))
            v = point_contact(v, gr_body_point_velocity(&bs->data[ex->slot], x), nrm,
                              pv->surface_mu(pv->solver, bs->data[ex->slot].material));
        if (ex->plane ? v3_dot(v3_sub(x, ex->centre), ex->normal) >= rh
                      : v3_len2(v3_sub(x, ex->centre)) > (ex->bound + rh) * (ex->bound + rh))
            continue; /* clear of it (planes: the common floor) */
        const gr_body_data *b = &bs->data[ex->slot];
        for (uint32_t near = gr_body_features_near(b, x, rh); near; near &= near - 1) {
            const uint32_t f = gr_lowest_bit(near);
            gr_vec3 nrm, pt;
            const double depth = rh - gr_body_feature_distance(b, f, x, &nrm, &pt);
            if (!(depth > 0))
                continue;
            x = v3_madd(x, nrm, depth);
            v = point_contact(v, gr_body_point_velocity(b, pt), nrm, pv->surface_mu(pv->solver, b->material));
        }
    }
    *xp = x;
    *vp = v;
}

/* Push point (x, v) out of body particles (the cache of its cell `key` if it is still in that
 * cell, else the grid's rows around it), and back to its side of any exact surface that push
 * carried it through. */
static void push_from_bodies(const advect_ctx *c, const hr_cache *k, uint32_t key, gr_vec3 *xp, gr_vec3 *vp)
{
    const gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    if (!pv->body_count || !pv->n)
        return;
    const double rh = u->par.radius;
    gr_vec3 x = *xp, v = *vp;
    const gr_vec3 before = x;
    /* body particles: from the cache while the point is still in its cell (the cache holds
     * every body particle that can reach into the cell), else from the grid around it
     * (outside the grid there are none, unless outliers were clamped into it) */
    const uint32_t now = point_key(&u->grid, x);
    if (now == gr_cell_grid_cells(&u->grid) && !u->grid.clamped) {
        /* nothing near */
    } else if (k && !k->body_overflow && now == key) {
        push_from_cached_bodies(u, pv, k, rh, &x, &v);
    } else {
        uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS];
        const uint32_t rows = gr_cell_grid_reach_rows(&u->grid, x, c->body_reach, rb, re);
        for (uint32_t row = 0; row < rows; row++)
            for (uint32_t s = rb[row]; s < re[row]; s++)
                if (u->sorted[8 * (size_t)s + 3] == 0.0f)
                    push_from_particle(u, pv, s, rh, &x, &v);
    }
    /* a body particle's push must not leave the point through a wall or the floor */
    push_from_exact(u, pv, rh, &before, &x, &v);
    *xp = x;
    *vp = v;
}

/* Move point (x, v) by dt in pieces of at most r_H, pushed out of exact surfaces after each
 * piece, then out of body particles (push_from_bodies). The lanes (lib/simd/kernel_points_blend.h) do the
 * first part for a point that moves in one piece and touches no exact surface. */
static void move_point(const advect_ctx *c, const hr_cache *k, uint32_t key, gr_vec3 *xp, gr_vec3 *vp)
{
    const gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    const double rh = u->par.radius;
    gr_vec3 x = *xp, v = *vp;
    /* (the common short move without the square root: it sat on every point's critical path) */
    const double l2 = v3_len2(v) * (c->dt * c->dt);
    const uint32_t pieces = l2 > rh * rh ? (uint32_t)GR_MIN(ceil(sqrt(l2) / rh), 64.0) : 1u;
    const double h = c->dt / pieces;
    for (uint32_t piece = 0; piece < pieces; piece++) {
        x = v3_madd(x, v, h);
        push_from_exact(u, pv, rh, NULL, &x, &v);
    }
    push_from_bodies(c, k, key, &x, &v);
    *xp = x;
    *vp = v;
}

/* A point's new state. At rest when the step ends without speed: among resting grains (no
 * blend), or on a surface that took all of it. With the grains still, the same step would do
 * the same again (a point on the floor where the sand is thin sinks by its share of gravity and
 * is pushed back), so it is skipped until they move, or the world changes (gr_upsample_unrest). */
static inline void store_point(gr_upsample_point *pt, gr_vec3 x, gr_vec3 v)
{
    const uint32_t rest = v.x == 0 && v.y == 0 && v.z == 0;
    *pt = (gr_upsample_point){(float)x.x, (float)x.y, (float)x.z, (float)v.x, (float)v.y, (float)v.z, pt->id, rest};
}

/* A point at rest among particles at rest (its cell's cache) is skipped: the blend would
 * give zero again. The batching of the sums relies on this one test. */
static inline bool skipped_at_rest(const advect_ctx *c, const hr_cache *k, const gr_upsample_point *p)
{
    return p->rest && k->still && !c->exact_moving;
}

/* The lanes lanes[0..n) of a batch (moved, still in the cell of cache k) pushed out of the
 * cache's body particles (push_from_bodies' work for a point in its cell), and put back to
 * their side of exact surfaces if one pushed them. */
static void push_lanes_from_bodies(const advect_ctx *c, const hr_cache *k, gr_point_blend_out *o, const uint32_t *lanes,
                                   uint32_t n)
{
    const gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    const double rh = u->par.radius;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t l = lanes[i];
        const gr_vec3 before = v3(o->x[l], o->y[l], o->z[l]);
        gr_vec3 x = before, v = v3(o->vx[l], o->vy[l], o->vz[l]);
        if (!push_from_cached_bodies(u, pv, k, rh, &x, &v))
            continue; /* (untouched, it is where the lanes left it: clear of every exact surface) */
        push_from_exact(u, pv, rh, &before, &x, &v);
        o->x[l] = x.x, o->y[l] = x.y, o->z[l] = x.z;
        o->vx[l] = v.x, o->vy[l] = v.y, o->vz[l] = v.z;
    }
}

/* The end of lane l's point (gr_point_blend_fn) in the cell `key` of cache k; bodies_done: its
 * push out of body particles was done in lanes. */
static inline void finish_lane(const advect_ctx *c, const hr_cache *k, uint32_t key, const gr_point_blend_out *o,
                               uint32_t l, bool bodies_done, gr_upsample_point *pt)
{
    const uint32_t how = o->how[l] & GR_POINT_HOW;
    if (how == GR_POINT_RESTS) {
        pt->vx = pt->vy = pt->vz = 0;
        pt->rest = 1;
        return;
    }
    gr_vec3 x, v = v3(o->vx[l], o->vy[l], o->vz[l]);
    if (how == GR_POINT_MOVE_ONE_BY_ONE) {
        x = point_x(pt);
        move_point(c, k, key, &x, &v);
    } else {
        x = v3(o->x[l], o->y[l], o->z[l]);
        if (c->pv->body_count && !bodies_done) /* (push_from_bodies asks too; the common case without a call) */
            push_from_bodies(c, k, key, &x, &v);
    }
    store_point(pt, x, v);
}

/* Blend and move the points [begin, end) of storage (cell order): each cell's neighbourhood
 * is gathered once for its points. A point's sums run over its cell's list in list order, so
 * the result does not depend on the blocks. */
static void advect_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const advect_ctx *c = (const advect_ctx *)vctx;
    gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    const uint32_t outside = gr_cell_grid_cells(&u->grid);
    hr_cache cache;
    cache.n = cache.nbody = 0;
    cache.still = cache.overflow = cache.body_overflow = false;
    uint32_t cached = GR_INVALID_INDEX, moved = 0;
    const float inv_r2 = (float)c->inv_r2;
    gr_point_list list = {cache.x, cache.y, cache.z, cache.g, cache.vx, cache.vy, cache.vz, 0};
    /* the batch of up to hr_lanes (8 or 16) points of one cell whose sums (and, with lanes,
     * blends and moves) were taken together */
    const uint32_t lanes = u->lanes;
    uint32_t batch[GR_POINT_LANES], batch_n = 0, batch_at = 0;
    gr_point_blend_in bin;
    gr_point_blend_out bout;
    gr_point_blend_consts bk = c->blend;
    for (uint32_t q = begin; q < end; q++) {
        gr_upsample_point *pt = &u->pt[q];
        const uint32_t key = pv->n ? u->key[q] : outside;
        double sums[5];
        bool still;
        const hr_cache *k = NULL;
        if (key < outside) {
            if (key != cached) {
                fill_cache(c, key, &cache);
                cached = key;
                list.n = cache.n;
            }
            k = &cache;
            if (!cache.overflow) {
                /* at rest among grains at rest: the blend would give zero again (sand that
                 * sleeps costs its points nothing) */
                if (skipped_at_rest(c, &cache, pt))
                    continue;
                if (batch_at == batch_n || batch[batch_at] != q) {
                    /* the next up to `lanes` points of this cell that are not skipped (a point
                     * changes only itself, so the test gives the same answer when each of
                     * them comes) */
                    batch_n = batch_at = 0;
                    for (uint32_t r = q; r < end && batch_n < lanes && u->key[r] == key; r++) {
                        const gr_upsample_point *o = &u->pt[r];
                        if (skipped_at_rest(c, &cache, o))
                            continue;
                        batch[batch_n] = r;
                        bin.x[batch_n] = o->x, bin.y[batch_n] = o->y, bin.z[batch_n] = o->z;
                        bin.vx[batch_n] = o->vx, bin.vy[batch_n] = o->vy, bin.vz[batch_n] = o->vz;
                        bin.rest[batch_n] = o->rest;
                        batch_n++;
                    }
                    for (uint32_t l = batch_n; l < lanes; l++) {
                        bin.x[l] = bin.y[l] = bin.z[l] = 1e15f; /* (far from everything: weighs nothing) */
                        bin.vx[l] = bin.vy[l] = bin.vz[l] = 0.0f;
                        bin.rest[l] = 0;
                    }
                    u->sums(&list, bin.x, bin.y, bin.z, inv_r2, bin.sums);
                    if (c->lanes) {
                        /* the lanes do what the code below does for one point: the whole batch
                         * is done here */
                        bk.still = cache.still;
                        for (int d = 0; d < 3; d++)
                            bk.cell[d] = (double)cache.cell[d];
                        u->blend(&bin, &bk, &bout);
                        /* the points still in the cell meet the cache's body particles in lanes */
                        const bool lanes_push = pv->body_count && pv->n && !cache.body_overflow;
                        uint32_t in_cell[GR_POINT_LANES], n_in = 0;
                        for (uint32_t l = 0; lanes_push && l < batch_n; l++)
                            if (bout.how[l] == (GR_POINT_MOVED | GR_POINT_IN_CELL))
                                in_cell[n_in++] = l;
                        if (n_in && cache.nbody)
                            push_lanes_from_bodies(c, &cache, &bout, in_cell, n_in);
                        for (uint32_t l = 0; l < batch_n; l++)
                            finish_lane(c, k, key, &bout, l, lanes_push && bout.how[l] == (GR_POINT_MOVED | GR_POINT_IN_CELL),
                                        &u->pt[batch[l]]);
                        moved += batch_n;
                        q = batch[batch_n - 1];
                        batch_at = batch_n;
                        continue;
                    }
                }
                const uint32_t l = batch_at++;
                for (int a = 0; a < 5; a++)
                    sums[a] = bin.sums[a][l];
                still = cache.still;
            } else {
                row_sums(c, point_x(pt), sums, &still);
            }
        } else if (pv->n && u->grid.clamped) {
            row_sums(c, point_x(pt), sums, &still);
        } else {
            sums[0] = sums[1] = sums[2] = sums[3] = sums[4] = 0;
            still = true;
        }
        gr_vec3 x = point_x(pt), v = point_v(pt);
        if (pt->rest && still) {
            /* at rest among resting particles: nothing to blend; only a moving exact body can
             * still push it */
            if (!c->exact_moving)
                continue;
        } else {
            v = blend_velocity(c, v, sums[1], sums[0], v3(sums[2], sums[3], sums[4]));
            if (still && !c->exact_moving && (v3_len2(v) < c->rest2 || sums[1] > 0)) {
                /* among still grains and slower than they sleep, or within reach of a grain: at
                 * rest (else a point where the sand is thin, such as a heap's surface, sinks by
                 * its share of gravity for ever, and one in a pore of loose sand falls through
                 * it: the points are the sand's volume, and the sand stands still) */
                moved++;
                pt->vx = pt->vy = pt->vz = 0;
                pt->rest = 1;
                continue;
            }
        }
        moved++;
        move_point(c, k, key, &x, &v);
        store_point(pt, x, v);
    }
    if (moved)
        atomic_fetch_add_explicit(c->moved, moved, memory_order_relaxed);
}

/* The points' sort (a stable counting sort by key, in chunks that count and place their own
 * points: a stable sort has one result, so it is the same for any number of chunks). */
typedef struct sort_ctx {
    gr_upsample *u;
    uint32_t chunks;
    uint32_t keys;
} sort_ctx;

static inline uint32_t chunk_begin(const sort_ctx *c, uint32_t k)
{
    return (uint32_t)((uint64_t)c->u->n * k / c->chunks);
}

/* Chunk k: its points' keys and how many of each (counts[k * keys + key]). */
static void count_chunk(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sort_ctx *c = (const sort_ctx *)vctx;
    gr_upsample *u = c->u;
    for (uint32_t k = begin; k < end; k++) {
        uint32_t *count = u->key_start + (size_t)k * c->keys;
        memset(count, 0, sizeof(uint32_t) * c->keys);
        for (uint32_t q = chunk_begin(c, k); q < chunk_begin(c, k + 1); q++) {
            const uint32_t key = point_key(&u->grid, point_x(&u->pt[q]));
            u->key[q] = key;
            count[key]++;
        }
    }
}

/* Chunk k places its points from its cursors (counts turned into starts). */
static void place_chunk(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sort_ctx *c = (const sort_ctx *)vctx;
    gr_upsample *u = c->u;
    for (uint32_t k = begin; k < end; k++) {
        uint32_t *cursor = u->key_start + (size_t)k * c->keys;
        for (uint32_t q = chunk_begin(c, k); q < chunk_begin(c, k + 1); q++) {
            const uint32_t key = u->key[q], to = cursor[key]++;
            u->tmp[to] = u->pt[q];
            u->key_tmp[to] = key;
        }
    }
}

static void map_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    gr_upsample *u = (gr_upsample *)vctx;
    for (uint32_t q = begin; q < end; q++)
        u->at[u->pt[q].id] = q;
}

/* Re-store the points in key order and map their render indices again. */
static gr_status sort_points(gr_upsample *u)
{
    gr_tasks *tasks = u->env.tasks;
    const uint32_t keys = gr_cell_grid_cells(&u->grid) + 1;
    const uint32_t chunks = GR_MAX(GR_MIN(tasks->worker_count, u->n / 4096u), 1u);
    const uint64_t need = (uint64_t)keys * chunks;
    if (need > UINT32_MAX)
        return GR_ERROR_OUT_OF_MEMORY;
    if (need > u->key_cap) {
        const uint32_t cap = gr_grow_capacity(u->key_cap, (uint32_t)need);
        uint32_t *a = (uint32_t *)gr_mem_alloc(u->env.mem, sizeof(uint32_t) * cap);
        if (!a)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(u->env.mem, u->key_start, sizeof(uint32_t) * u->key_cap);
        u->key_start = a;
        u->key_cap = cap;
    }
    sort_ctx c = {u, chunks, keys};
    gr_parallel_for(tasks, chunks, 1, count_chunk, &c);
    /* starts: key by key, chunk by chunk within a key (stable) */
    uint32_t at = 0;
    for (uint32_t key = 0; key < keys; key++)
        for (uint32_t k = 0; k < chunks; k++) {
            uint32_t *e = u->key_start + (size_t)k * keys + key;
            const uint32_t n = *e;
            *e = at;
            at += n;
        }
    gr_parallel_for(tasks, chunks, 1, place_chunk, &c);
    gr_upsample_point *t = u->pt;
    u->pt = u->tmp;
    u->tmp = t;
    uint32_t *k = u->key;
    u->key = u->key_tmp;
    u->key_tmp = k;
    gr_parallel_for(tasks, u->n, UP_BLOCK, map_range, u);
    return GR_OK;
}

/* The particles as floats in grid order (x, y, z, grain?, v). */
typedef struct sorted_ctx {
    gr_upsample *u;
    const gr_upsample_view *pv;
} sorted_ctx;

static void sorted_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sorted_ctx *c = (const sorted_ctx *)vctx;
    gr_upsample *u = c->u;
    const gr_upsample_view *pv = c->pv;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t j = u->grid.order[s];
        float *e = u->sorted + 8 * (size_t)s;
        e[0] = (float)pv->x[j].x, e[1] = (float)pv->x[j].y, e[2] = (float)pv->x[j].z;
        e[3] = pv->owner[j] == GR_INVALID_INDEX ? 1.0f : 0.0f;
        e[4] = (float)pv->v[j].x, e[5] = (float)pv->v[j].y, e[6] = (float)pv->v[j].z, e[7] = 0;
    }
}

/* Every particle (grains and bodies') without velocity? */
static bool particles_still(const gr_upsample_view *pv)
{
    for (uint32_t i = 0; i < pv->n; i++)
        if (pv->v[i].x != 0 || pv->v[i].y != 0 || pv->v[i].z != 0)
            return false;
    return true;
}

/* Room for one sorted 8-float record per grain (kept between steps). */
static bool reserve_sorted(gr_upsample *u, uint32_t n)
{
    if (n <= u->sorted_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(u->sorted_cap, n);
    float *f = (float *)gr_mem_alloc(u->env.mem, sizeof(float) * 8 * (size_t)cap);
    if (!f)
        return false;
    gr_mem_free(u->env.mem, u->sorted, sizeof(float) * 8 * (size_t)u->sorted_cap);
    u->sorted = f;
    u->sorted_cap = cap;
    return true;
}

/* Room for gr_upsample_advect at the end of this step (n particles), taken before the step
 * moves anything: the points always follow the grains that moved. */
gr_status gr_upsample_reserve_advect(gr_upsample *u, uint32_t n)
{
    if (!(u->par.radius > 0) || !u->n || !n)
        return GR_OK;
    if (!gr_cell_grid_reserve(&u->grid, u->env.mem, n, GR_MAX(8u * n, 64u)))
        return GR_ERROR_OUT_OF_MEMORY;
    if (!reserve_sorted(u, n))
        return GR_ERROR_OUT_OF_MEMORY;
    return GR_OK;
}

/* Move the points by dt after the particles' step. */
gr_status gr_upsample_advect(gr_upsample *u, const gr_upsample_view *pv, double dt)
{
    const gr_upsample_params *d = &u->par;
    if (!(d->radius > 0) || !u->n)
        return GR_OK;
    bool exact_moving = false;
    for (uint32_t e = 0; e < pv->exact_count; e++)
        exact_moving |= pv->exact[e].moving != 0;
    if (u->idle_valid && u->idle == u->n && !exact_moving && particles_still(pv))
        return GR_OK; /* every point would be skipped again, and their order stays sorted */
    /* grains' radius for the support: the largest moving grain */
    double rl = pv->r_grain;
    if (!(rl > 0))
        rl = pv->r_max > 0 ? pv->r_max : d->radius;
    const double R = d->support * rl;
    /* cells of the larger reach (the support R, a body particle's r + r_H): a point gathers
     * the 3x3x3 cells around its own (smaller cells would give each point fewer candidates,
     * but cost more in gathering them per cell: measured slower) */
    const double body_reach = pv->r_max + d->radius;
    const double cell = GR_MAX(R, body_reach);
    /* padded by the larger reach: every point that can gather anything is inside */
    if (pv->n && !gr_cell_grid_build_padded(&u->grid, u->env.mem, (const double *)pv->x, 3, pv->n, cell,
                                            GR_MAX(8u * pv->n, 64u), cell))
        return GR_ERROR_OUT_OF_MEMORY;
    if (!reserve_sorted(u, pv->n))
        return GR_ERROR_OUT_OF_MEMORY;
    sorted_ctx sc = {u, pv};
    gr_parallel_for(u->env.tasks, pv->n, UP_BLOCK, sorted_range, &sc);
    const double w_rho = 1.0 - rl * rl / (R * R);
    /* steps no longer than hr_substep; each point moves in pieces of at most its radius (body
     * surfaces are thin: a point must not step across one) */
    const uint32_t steps = (uint32_t)GR_MIN(GR_MAX(ceil(dt / d->substep * (1.0 - 1e-12)), 1.0), 1000.0);
    atomic_uint moved = 0;
    advect_ctx c = {u, pv, dt / steps, (*u->env.gravity), 1.0 / (R * R), R, 1.0 / (d->density * w_rho * w_rho * w_rho),
                    body_reach, exact_moving, &moved, 0.0, false, {{0}, 0, 0, 0, 0, false, false, 0, NULL, {0}, {0}, 0, {0}}, {0}};
    /* the grains' sleeping speed (the solver's) */
    const double rest = pv->rest_speed;
    c.rest2 = rest * rest;
    /* the lanes' constants (they test the exact bodies' reach; the one-point code pushes) */
    c.lanes = pv->exact_count <= UP_LANE_EXACT;
    c.blend = (gr_point_blend_consts){{c.g.x, c.g.y, c.g.z}, c.dt, c.inv_dense, c.rest2, d->radius, false,
                                    exact_moving, pv->exact_count, c.exact, {0, 1, 2}, {0}, u->grid.index.inv_cell, {0}};
    for (int a = 0; a < 3; a++) {
        c.blend.axis[a] = u->grid.axis[a];
        c.blend.origin[a] = u->grid.index.lo_axis[u->grid.axis[a]];
    }
    for (uint32_t e = 0; c.lanes && e < pv->exact_count; e++) {
        const gr_exact_body *ex = &pv->exact[e];
        const gr_body_data *b = &u->env.bodies->data[ex->slot];
        double *o = c.exact + GR_POINT_EXACT_VALUES * (size_t)e;
        /* (push_from_exact's values: for a plane its pose is the record's, b->position and
         * b->normal_world) */
        o[0] = ex->centre.x, o[1] = ex->centre.y, o[2] = ex->centre.z;
        o[3] = ex->normal.x, o[4] = ex->normal.y, o[5] = ex->normal.z;
        o[6] = ex->bound, o[7] = ex->plane ? 1.0 : 0.0;
        o[8] = b->linear_velocity.x, o[9] = b->linear_velocity.y, o[10] = b->linear_velocity.z;
        o[11] = b->angular_velocity.x, o[12] = b->angular_velocity.y, o[13] = b->angular_velocity.z;
        o[14] = pv->surface_mu(pv->solver, b->material), o[15] = 0.0;
    }
    u->idle_valid = false;
    for (uint32_t k = 0; k < steps; k++) {
        if (pv->n && sort_points(u) != GR_OK)
            return GR_ERROR_OUT_OF_MEMORY;
        atomic_store_explicit(&moved, 0, memory_order_relaxed);
        gr_parallel_for(u->env.tasks, u->n, UP_BLOCK, advect_range, &c);
    }
    /* (the last pass skipped every point: its sort left them in order and none moved, so
     * while nothing changes the next advection would do the same) */
    u->idle_valid = atomic_load_explicit(&moved, memory_order_relaxed) == 0;
    u->idle = u->n;
    return GR_OK;
}

/* Points outside the world bounds are dropped (as grains are); the others keep their order
 * of render indices. */
void gr_upsample_cull(gr_upsample *u)
{
    const gr_vec3 lo = (*u->env.bounds_min), hi = (*u->env.bounds_max);
    if (lo.x == hi.x && lo.y == hi.y && lo.z == hi.z)
        return;
    /* hr_at as scratch: 1 for the render indices that go */
    uint32_t *gone = u->at;
    bool any = false;
    for (uint32_t q = 0; q < u->n; q++) {
        const gr_upsample_point *p = &u->pt[q];
        const bool out = p->x < lo.x || p->y < lo.y || p->z < lo.z || p->x > hi.x || p->y > hi.y || p->z > hi.z;
        gone[p->id] = out;
        any |= out;
    }
    if (!any) {
        for (uint32_t q = 0; q < u->n; q++)
            u->at[u->pt[q].id] = q;
        return;
    }
    /* new render index: the number of survivors before (hr_at turns into that) */
    uint32_t alive = 0;
    for (uint32_t id = 0; id < u->n; id++) {
        const uint32_t out = gone[id];
        gone[id] = out ? GR_INVALID_INDEX : alive;
        alive += !out;
    }
    uint32_t w = 0;
    for (uint32_t q = 0; q < u->n; q++) {
        const uint32_t id = gone[u->pt[q].id];
        if (id == GR_INVALID_INDEX)
            continue;
        u->pt[w] = u->pt[q];
        u->pt[w++].id = id;
    }
    u->n = w;
    for (uint32_t q = 0; q < u->n; q++)
        u->at[u->pt[q].id] = q;
}

bool gr_upsample_take_presampled(gr_upsample *u)
{
    if (!u->presampled)
        return false;
    u->presampled--;
    return true;
}

void gr_upsample_read(const gr_upsample *u, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    const float rh = (float)u->par.radius;
    for (uint32_t k = 0; k < count; k++) {
        const gr_upsample_point *pt = &u->pt[u->at[first + k]];
        const float p[4] = {pt->x, pt->y, pt->z, rh};
        memcpy((char *)dst + (size_t)k * stride, p, sizeof p);
    }
}

/* ---- snapshot ------------------------------------------------------------------------------ */

void gr_upsample_save(const gr_upsample *u, gr_stream_writer *w)
{
    gr_writer_u64(w, u->batches);
    gr_writer_u32(w, u->n);
    for (uint32_t q = 0; q < u->n; q++) { /* storage order: the next advection's start */
        uint32_t words[8];
        memcpy(words, &u->pt[q], sizeof words);
        gr_writer_u32s(w, words, 8);
    }
}

#define LOAD_CHECK(cond, what) GR_LOAD_CHECK(r, cond, what)

gr_status gr_upsample_load(gr_upsample *u, gr_stream_reader *r)
{
    u->batches = gr_reader_u64(r);
    const uint32_t n = gr_reader_u32(r);
    LOAD_CHECK(n <= GR_MAX_GRAINS && n <= gr_reader_left(r) / sizeof(gr_upsample_point),
               "the render point count is out of range");
    if (gr_upsample_reserve_points(u, GR_MAX(n, 1u)) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t id = 0; id < n; id++)
        u->at[id] = GR_INVALID_INDEX;
    for (uint32_t q = 0; q < n; q++) {
        uint32_t words[8];
        gr_reader_u32s(r, words, 8);
        gr_upsample_point *p = &u->pt[q];
        memcpy(p, words, sizeof *p);
        /* finite, and the render indices a permutation */
        LOAD_CHECK(isfinite(p->x) && isfinite(p->y) && isfinite(p->z) && isfinite(p->vx) && isfinite(p->vy) &&
                       isfinite(p->vz) && p->rest <= 1,
                   "a render point is not finite");
        LOAD_CHECK(p->id < n && u->at[p->id] == GR_INVALID_INDEX, "the render points' indices are not each index once");
        u->at[p->id] = q;
    }
    u->n = n;
    return GR_OK;
}
