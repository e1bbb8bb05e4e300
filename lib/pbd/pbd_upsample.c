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
 * same for any worker count. */
#include <math.h>

#include "../bodies/body_store.h"
#include "../core/rng.h"
#include "../geom/vec3.h"
#include "pbd_internal.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void pbd_free_upsampling(pbd_state *st)
{
    gr_mem_free(st->mem, st->hr_x, sizeof(gr_vec3) * st->hr_cap);
    gr_mem_free(st->mem, st->hr_v, sizeof(gr_vec3) * st->hr_cap);
    gr_mem_free(st->mem, st->hr_rest, st->hr_cap);
    gr_mem_free(st->mem, st->hr_key, sizeof(uint32_t) * st->hr_cap);
    gr_mem_free(st->mem, st->hr_order, sizeof(uint32_t) * st->hr_cap);
    gr_mem_free(st->mem, st->hr_key_start, sizeof(uint32_t) * st->hr_key_cap);
    st->hr_key = st->hr_order = st->hr_key_start = NULL;
    st->hr_key_cap = 0;
    st->hr_x = st->hr_v = NULL;
    st->hr_rest = NULL;
    st->hr_n = st->hr_cap = 0;
    gr_cell_grid_free(&st->hr_grid, st->mem);
    gr_mem_free(st->mem, st->hr_sorted, sizeof(float) * 8 * (size_t)st->hr_sorted_cap);
    st->hr_sorted = NULL;
    st->hr_sorted_cap = 0;
}

gr_status pbd_reserve_points(pbd_state *st, uint32_t need)
{
    if (need <= st->hr_cap)
        return GR_OK;
    if (need > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    const uint32_t cap = gr_grow_capacity(st->hr_cap, need);
    const gr_array_ref arrays[] = {{(void **)&st->hr_x, sizeof(gr_vec3)}, {(void **)&st->hr_v, sizeof(gr_vec3)},
                                   {(void **)&st->hr_rest, sizeof(uint8_t)}, {(void **)&st->hr_key, sizeof(uint32_t)},
                                   {(void **)&st->hr_order, sizeof(uint32_t)}};
    if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->hr_cap, cap, st->hr_n))
        return GR_ERROR_OUT_OF_MEMORY;
    st->hr_cap = cap;
    return GR_OK;
}

static inline double kernel(double d2, double inv_r2)
{
    const double t = 1.0 - d2 * inv_r2;
    return t > 0 ? t * t * t : 0.0;
}

/* ---- sampling ------------------------------------------------------------------------------ */

/* Cells of the sampling lattice, with the accepted point of each (or GR_INVALID_INDEX). */
typedef struct sample_lattice {
    gr_vec3 lo;
    double a;        ///< cell side
    int32_t dims[3];
    uint32_t *point; ///< [dims product]
    size_t count;
} sample_lattice;

static size_t lattice_index(const sample_lattice *L, int32_t i, int32_t j, int32_t k)
{
    return ((size_t)i * (size_t)L->dims[1] + (size_t)j) * (size_t)L->dims[2] + (size_t)k;
}

static bool lattice_cell(const sample_lattice *L, gr_vec3 p, int32_t c[3])
{
    const double q[3] = {(p.x - L->lo.x) / L->a, (p.y - L->lo.y) / L->a, (p.z - L->lo.z) / L->a};
    for (int d = 0; d < 3; d++) {
        if (!(q[d] >= 0) || q[d] >= (double)L->dims[d])
            return false;
        c[d] = (int32_t)q[d];
    }
    return true;
}

/* Is any accepted point within `dmin` of p? (cells within two of p's: 2 a >= dmin) */
static bool too_close(const pbd_state *st, const sample_lattice *L, gr_vec3 p, const int32_t c[3], double dmin)
{
    for (int32_t i = GR_MAX(c[0] - 2, 0); i <= GR_MIN(c[0] + 2, L->dims[0] - 1); i++)
        for (int32_t j = GR_MAX(c[1] - 2, 0); j <= GR_MIN(c[1] + 2, L->dims[1] - 1); j++)
            for (int32_t k = GR_MAX(c[2] - 2, 0); k <= GR_MIN(c[2] + 2, L->dims[2] - 1); k++) {
                const uint32_t q = L->point[lattice_index(L, i, j, k)];
                if (q != GR_INVALID_INDEX && v3_len2(v3_sub(st->hr_x[q], p)) < dmin * dmin)
                    return true;
            }
    return false;
}

/* The new grain whose sampling ball (hr_sample_radius x its radius) contains p
 * (GR_INVALID_INDEX: none), from the grid over them. */
static uint32_t containing_grain(const pbd_state *st, const gr_cell_grid *g, const uint32_t *grains, gr_vec3 p)
{
    const double c2 = st->world->pbd.hr_sample_radius * st->world->pbd.hr_sample_radius;
    int32_t c[3];
    gr_cell_grid_coords(g, p, c);
    uint32_t rb[9], re[9];
    const uint32_t rows = gr_cell_grid_block_rows(g, c, rb, re);
    for (uint32_t row = 0; row < rows; row++)
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const uint32_t i = grains[g->order[s]];
            if (v3_len2(v3_sub(p, st->x[i])) <= c2 * st->r[i] * st->r[i])
                return i;
        }
    return GR_INVALID_INDEX;
}

/* Is p inside a body's solid, or within r_H of an exact surface? (a point sampled in the
 * ball around a grain that rests on a wall must not start inside the wall) */
static bool in_a_body(const pbd_state *st, gr_vec3 p, double rh)
{
    const gr_body_store *bs = &st->world->bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->shape == GR_SHAPE_MESH ? gr_body_contains(b, p) : gr_body_distance(b, p) < rh)
            return true;
    }
    return false;
}

/* Most lattice cells one sampling pass may use (4 bytes each). */
#define PBD_MAX_SAMPLE_CELLS (1u << 28)

/* Fill the volume of the grains not sampled yet with points. All or nothing. */
gr_status pbd_sample_new_grains(pbd_state *st)
{
    const double rh = st->world->pbd.hr_radius;
    if (!(rh > 0))
        return GR_OK;
    uint32_t nnew = 0;
    for (uint32_t i = 0; i < st->n; i++)
        nnew += st->owner[i] == GR_INVALID_INDEX && !st->sampled[i];
    if (!nnew)
        return GR_OK;
    gr_mem *mem = st->mem;
    /* the new grains, their bounding box and a grid over them */
    uint32_t *grains = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * nnew);
    gr_vec3 *pos = (gr_vec3 *)gr_mem_alloc(mem, sizeof(gr_vec3) * nnew);
    if (!grains || !pos) {
        gr_mem_free(mem, grains, sizeof(uint32_t) * nnew);
        gr_mem_free(mem, pos, sizeof(gr_vec3) * nnew);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    gr_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    double rmax = 0;
    uint32_t m = 0;
    const double cover = st->world->pbd.hr_sample_radius;
    for (uint32_t i = 0; i < st->n; i++) {
        if (st->owner[i] != GR_INVALID_INDEX || st->sampled[i])
            continue;
        grains[m] = i;
        pos[m++] = st->x[i];
        const double r = cover * st->r[i];
        rmax = GR_MAX(rmax, r);
        lo = v3(GR_MIN(lo.x, st->x[i].x - r), GR_MIN(lo.y, st->x[i].y - r), GR_MIN(lo.z, st->x[i].z - r));
        hi = v3(GR_MAX(hi.x, st->x[i].x + r), GR_MAX(hi.y, st->x[i].y + r), GR_MAX(hi.z, st->x[i].z + r));
    }
    gr_cell_grid g;
    gr_cell_grid_init(&g);
    sample_lattice L;
    L.a = 2.0 * rh / sqrt(3.0);
    L.lo = lo;
    double cells = 1;
    for (int d = 0; d < 3; d++) {
        const double span = v3_get(hi, d) - v3_get(lo, d);
        L.dims[d] = (int32_t)GR_MAX(1.0, ceil(span / L.a));
        cells *= L.dims[d];
    }
    gr_status status = GR_OK;
    L.point = NULL;
    L.count = 0;
    if (cells > PBD_MAX_SAMPLE_CELLS) {
        status = GR_ERROR_TOO_MANY;
    } else {
        L.count = (size_t)cells;
        L.point = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * L.count);
        if (!L.point || !gr_cell_grid_build(&g, mem, (const double *)pos, 3, nnew, 2.0 * rmax, GR_MAX(4u * nnew, 64u)))
            status = GR_ERROR_OUT_OF_MEMORY;
    }
    /* room for a full lattice's worth of points would be too much: grow as we go, from an
     * estimate of the packing (about 0.3 of the volume) */
    const double vol = (double)nnew * 4.0 / 3.0 * GR_PI * rmax * rmax * rmax;
    const double estimate = 0.35 * vol / (4.0 / 3.0 * GR_PI * rh * rh * rh) + 64;
    if (status == GR_OK)
        status = pbd_reserve_points(st, (uint32_t)GR_MIN((double)st->hr_n + estimate, (double)GR_MAX_GRAINS));
    const uint32_t first_new = st->hr_n;
    if (status == GR_OK) {
        for (size_t c = 0; c < L.count; c++)
            L.point[c] = GR_INVALID_INDEX;
        for (uint32_t q = 0; q < st->hr_n; q++) { /* existing points block their cells */
            int32_t c[3];
            if (lattice_cell(&L, st->hr_x[q], c))
                L.point[lattice_index(&L, c[0], c[1], c[2])] = q;
        }
        gr_rng rng = {st->world->def.seed ^ (0x5851f42d4c957f2dull * (st->hr_batches + 1))};
        const uint32_t tries = st->world->pbd.hr_candidates;
        for (int32_t i = 0; i < L.dims[0] && status == GR_OK; i++)
            for (int32_t j = 0; j < L.dims[1] && status == GR_OK; j++)
                for (int32_t k = 0; k < L.dims[2] && status == GR_OK; k++) {
                    const size_t cell = lattice_index(&L, i, j, k);
                    if (L.point[cell] != GR_INVALID_INDEX)
                        continue;
                    const int32_t c[3] = {i, j, k};
                    for (uint32_t t = 0; t < tries; t++) {
                        const gr_vec3 p = {lo.x + L.a * (i + gr_rng_uniform(&rng)), lo.y + L.a * (j + gr_rng_uniform(&rng)),
                                           lo.z + L.a * (k + gr_rng_uniform(&rng))};
                        const uint32_t owner = containing_grain(st, &g, grains, p);
                        if (owner == GR_INVALID_INDEX || too_close(st, &L, p, c, 2.0 * rh) || in_a_body(st, p, rh))
                            continue;
                        if (st->hr_n == st->hr_cap && (status = pbd_reserve_points(st, st->hr_n + 1)) != GR_OK)
                            break;
                        st->hr_x[st->hr_n] = p;
                        st->hr_v[st->hr_n] = st->v[owner];
                        st->hr_rest[st->hr_n] = 0;
                        L.point[cell] = st->hr_n++;
                        break;
                    }
                }
    }
    if (status != GR_OK) {
        st->hr_n = first_new; /* all or nothing */
    } else {
        for (uint32_t k = 0; k < nnew; k++)
            st->sampled[grains[k]] = 1;
        st->hr_batches++;
    }
    gr_cell_grid_free(&g, mem);
    gr_mem_free(mem, L.point, sizeof(uint32_t) * L.count);
    gr_mem_free(mem, grains, sizeof(uint32_t) * nnew);
    gr_mem_free(mem, pos, sizeof(gr_vec3) * nnew);
    return status;
}

/* ---- advection ----------------------------------------------------------------------------- */

typedef struct advect_ctx {
    pbd_state *st;
    double dt;
    gr_vec3 g;
    double inv_r2;    ///< 1 / R^2
    double support;   ///< R
    double dense;     ///< c w_rho
} advect_ctx;

/* The blend of one point from its sums over the grains (wg: weights of grains, W: of grains
 * and body particles, vsum: weighted velocities of both). */
static gr_vec3 blend_velocity(const advect_ctx *c, gr_vec3 v_old, double wg, double W, gr_vec3 vsum)
{
    gr_vec3 v = v3_madd(v_old, c->g, c->dt); /* free flight */
    if (wg > 0) { /* body particles only count next to sand */
        const gr_vec3 vbar = v3_scale(vsum, 1.0 / W);
        double alpha = 1.0 - W / c->dense;
        alpha = alpha < 0 ? 0 : (alpha > 1 ? 1 : alpha);
        v = v3_add(v3_scale(vbar, 1.0 - alpha), v3_scale(v, alpha));
    }
    return v;
}

/* Point q's blend from the grid's rows around it (points outside the grid, or beside a cell
 * too crowded for the cache). */
static void blend_point_rows(const advect_ctx *c, uint32_t q)
{
    pbd_state *st = c->st;
    const gr_cell_grid *g = &st->hr_grid;
    const gr_vec3 x = st->hr_x[q];
    double wg = 0, W = 0;
    gr_vec3 vs = {0, 0, 0};
    uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS];
    const uint32_t rows = st->n ? gr_cell_grid_reach_rows(g, x, c->support, rb, re) : 0;
    const float px = (float)x.x, py = (float)x.y, pz = (float)x.z, inv_r2 = (float)c->inv_r2;
    bool still = true;
    for (uint32_t row = 0; row < rows; row++) {
        /* float sums per row, folded into doubles: render precision, streamed memory */
        float sw = 0, sg = 0, sx = 0, sy = 0, sz = 0;
        for (uint32_t s = rb[row]; s < re[row]; s++) {
            const float *e = st->hr_sorted + 8 * (size_t)s;
            const float dx = px - e[0], dy = py - e[1], dz = pz - e[2];
            const float t = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2;
            if (!(t > 0))
                continue;
            const float w = t * t * t;
            still &= e[4] == 0.0f && e[5] == 0.0f && e[6] == 0.0f;
            sw += w;
            sg += w * e[3];
            sx += w * e[4];
            sy += w * e[5];
            sz += w * e[6];
        }
        W += sw;
        wg += sg;
        vs = v3_add(vs, v3(sx, sy, sz));
    }
    /* at rest among grains at rest: the blend would give zero again */
    if (st->hr_rest[q] && still)
        return;
    const gr_vec3 v = blend_velocity(c, st->hr_v[q], wg, W, vs);
    st->hr_v[q] = v;
    st->hr_rest[q] = v.x == 0 && v.y == 0 && v.z == 0;
}

/* Grains and body particles near one grid cell, as float lanes: every point of the cell
 * gathers from the same short list, without branches (padded to whole lanes with entries
 * too far to count). */
#define HR_LANES 8u
#define HR_PREFETCH 16u

#define HR_CACHE 512u
typedef struct hr_cache {
    float x[HR_CACHE], y[HR_CACHE], z[HR_CACHE], g[HR_CACHE], vx[HR_CACHE], vy[HR_CACHE], vz[HR_CACHE];
    uint32_t n;
    bool still;    ///< every entry at rest
    bool overflow; ///< the cell's neighbourhood did not fit: its points take the row path
} hr_cache;

/* Fill the cache for cell `key`: the particles of the 5x5x5 cells around it (the union of
 * its points' reach, cells being half the support) within R + half a cell diagonal of its
 * centre (for points beside the grid: R + 1.5 diagonals). */
static void fill_cache(const advect_ctx *c, uint32_t key, hr_cache *k)
{
    const pbd_state *st = c->st;
    const gr_cell_grid *g = &st->hr_grid;
    /* points beside the grid (key - ncells) lie up to a cell beyond their cell's box */
    const bool beside = key >= g->ncells;
    key -= beside ? g->ncells : 0;
    int32_t cc[3];
    cc[2] = (int32_t)(key % (uint32_t)g->dims[2]);
    cc[1] = (int32_t)(key / (uint32_t)g->dims[2] % (uint32_t)g->dims[1]);
    cc[0] = (int32_t)(key / ((uint32_t)g->dims[2] * (uint32_t)g->dims[1]));
    gr_vec3 centre = g->origin;
    for (int d = 0; d < 3; d++)
        v3_set(&centre, g->axis[d], v3_get(g->origin, g->axis[d]) + ((double)cc[d] + 0.5) * g->cell);
    const double reach = c->support + (beside ? 2.598076211353316 : 0.8660254037844386) * g->cell;
    const float r2 = (float)(reach * reach), ox = (float)centre.x, oy = (float)centre.y, oz = (float)centre.z;
    int32_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = cc[d] - 2 < 0 ? 0 : cc[d] - 2;
        hi[d] = cc[d] + 2 >= g->dims[d] ? g->dims[d] - 1 : cc[d] + 2;
    }
    uint32_t n = 0;
    bool still = true;
    k->overflow = false;
    for (int32_t a = lo[0]; a <= hi[0]; a++)
        for (int32_t b = lo[1]; b <= hi[1]; b++) {
            const int32_t c0[3] = {a, b, lo[2]};
            const uint32_t first = gr_cell_grid_index(g, c0);
            const uint32_t s0 = g->cell_start[first], s1 = g->cell_start[first + (uint32_t)(hi[2] - lo[2]) + 1];
            for (uint32_t s = s0; s < s1; s++) {
                const float *e = st->hr_sorted + 8 * (size_t)s;
                const float dx = e[0] - ox, dy = e[1] - oy, dz = e[2] - oz;
                if (dx * dx + dy * dy + dz * dz > r2)
                    continue;
                if (n == HR_CACHE) {
                    k->overflow = true;
                    return;
                }
                k->x[n] = e[0], k->y[n] = e[1], k->z[n] = e[2], k->g[n] = e[3];
                k->vx[n] = e[4], k->vy[n] = e[5], k->vz[n] = e[6];
                still &= e[4] == 0.0f && e[5] == 0.0f && e[6] == 0.0f;
                n++;
            }
        }
    for (; n % HR_LANES; n++) { /* whole lanes: far entries weigh nothing */
        k->x[n] = k->y[n] = k->z[n] = 1e15f;
        k->g[n] = k->vx[n] = k->vy[n] = k->vz[n] = 0;
    }
    k->n = n;
    k->still = still;
}

/* Sums over the cache for a point at (px, py, pz): weight, grain weight, weighted velocity.
 * Lanes of 8 (two SSE registers where there are, else plain loops the same shape): the
 * same sums in the same order either way within one build. */
static void cache_sums(const hr_cache *k, float px, float py, float pz, float inv_r2, float out[5])
{
#if defined(__SSE2__)
    const __m128 x4 = _mm_set1_ps(px), y4 = _mm_set1_ps(py), z4 = _mm_set1_ps(pz), ir = _mm_set1_ps(inv_r2);
    const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    __m128 aw[2] = {zero, zero}, ag[2] = {zero, zero}, ax[2] = {zero, zero}, ay[2] = {zero, zero},
           az[2] = {zero, zero};
    for (uint32_t b = 0; b < k->n; b += HR_LANES)
        for (int h = 0; h < 2; h++) {
            const uint32_t o = b + 4u * (uint32_t)h;
            const __m128 dx = _mm_sub_ps(x4, _mm_loadu_ps(k->x + o)), dy = _mm_sub_ps(y4, _mm_loadu_ps(k->y + o)),
                         dz = _mm_sub_ps(z4, _mm_loadu_ps(k->z + o));
            const __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
            const __m128 t = _mm_max_ps(_mm_sub_ps(one, _mm_mul_ps(d2, ir)), zero);
            const __m128 w = _mm_mul_ps(_mm_mul_ps(t, t), t);
            aw[h] = _mm_add_ps(aw[h], w);
            ag[h] = _mm_add_ps(ag[h], _mm_mul_ps(w, _mm_loadu_ps(k->g + o)));
            ax[h] = _mm_add_ps(ax[h], _mm_mul_ps(w, _mm_loadu_ps(k->vx + o)));
            ay[h] = _mm_add_ps(ay[h], _mm_mul_ps(w, _mm_loadu_ps(k->vy + o)));
            az[h] = _mm_add_ps(az[h], _mm_mul_ps(w, _mm_loadu_ps(k->vz + o)));
        }
    float lanes[5][HR_LANES];
    const __m128 *acc[5] = {aw, ag, ax, ay, az};
    for (int a = 0; a < 5; a++) {
        _mm_storeu_ps(lanes[a], acc[a][0]);
        _mm_storeu_ps(lanes[a] + 4, acc[a][1]);
    }
#else
    float lanes[5][HR_LANES] = {{0}};
    for (uint32_t b = 0; b < k->n; b += HR_LANES)
        for (uint32_t l = 0; l < HR_LANES; l++) {
            const float dx = px - k->x[b + l], dy = py - k->y[b + l], dz = pz - k->z[b + l];
            float t = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2;
            t = t > 0 ? t : 0;
            const float w = t * t * t;
            lanes[0][l] += w;
            lanes[1][l] += w * k->g[b + l];
            lanes[2][l] += w * k->vx[b + l];
            lanes[3][l] += w * k->vy[b + l];
            lanes[4][l] += w * k->vz[b + l];
        }
#endif
    for (int a = 0; a < 5; a++) {
        float s = 0;
        for (uint32_t l = 0; l < HR_LANES; l++)
            s += lanes[a][l];
        out[a] = s;
    }
}

static void blend_point_cached(const advect_ctx *c, const hr_cache *k, uint32_t q)
{
    pbd_state *st = c->st;
    /* at rest among grains at rest: the blend would give zero again (sand that sleeps
     * costs its points nothing) */
    if (st->hr_rest[q] && k->still)
        return;
    const gr_vec3 x = st->hr_x[q];
    float sums[5];
    cache_sums(k, (float)x.x, (float)x.y, (float)x.z, (float)c->inv_r2, sums);
    const gr_vec3 v = blend_velocity(c, st->hr_v[q], sums[1], sums[0], v3(sums[2], sums[3], sums[4]));
    st->hr_v[q] = v;
    st->hr_rest[q] = v.x == 0 && v.y == 0 && v.z == 0;
}

/* The s-th point in cell order (sort_points; without grains there is no grid, and the order
 * is the storage order). */
static inline uint32_t point_at(const pbd_state *st, uint32_t s) { return st->n ? st->hr_order[s] : s; }

/* The points' new velocities from the grains around them (once per advection step: the
 * grains do not move while the points catch up with them), in cell order: a block of sorted
 * points gathers each cell's neighbourhood once. Every point's sums run over its cell's list
 * in list order, so the result does not depend on the blocks. */
static void blend_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const advect_ctx *c = (const advect_ctx *)vctx;
    pbd_state *st = c->st;
    const uint32_t outside = 2 * st->hr_grid.ncells;
    hr_cache cache;
    cache.n = 0;
    cache.still = cache.overflow = false;
    uint32_t cached = GR_INVALID_INDEX;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t q = point_at(st, s);
        if (st->n && s + HR_PREFETCH < end) {
            /* points in cell order are scattered in memory: ask for the next ones early */
            const uint32_t ahead = st->hr_order[s + HR_PREFETCH];
            GR_PREFETCH(&st->hr_x[ahead]);
            GR_PREFETCH((const char *)&st->hr_x[ahead] + sizeof(gr_vec3) - 1);
            GR_PREFETCH(&st->hr_v[ahead]);
            GR_PREFETCH((const char *)&st->hr_v[ahead] + sizeof(gr_vec3) - 1);
            GR_PREFETCH(&st->hr_key[ahead]);
            GR_PREFETCH(&st->hr_rest[ahead]);
        }
        const uint32_t key = st->hr_key[q];
        if (key >= outside || !st->n) {
            blend_point_rows(c, q);
            continue;
        }
        if (key != cached) {
            fill_cache(c, key, &cache);
            cached = key;
        }
        if (cache.overflow)
            blend_point_rows(c, q);
        else
            blend_point_cached(c, &cache, q);
    }
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

/* Move the points by c->dt with their velocities, in pieces of at most one point radius, and
 * push them out of bodies. */
static void move_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const advect_ctx *c = (const advect_ctx *)vctx;
    pbd_state *st = c->st;
    const gr_cell_grid *g = &st->hr_grid;
    const gr_body_store *bs = &st->world->bodies;
    const double rh = st->world->pbd.hr_radius;
    for (uint32_t s = begin; s < end; s++) {
        /* in cell order: neighbouring points scan the same rows */
        const uint32_t q = point_at(st, s);
        if (st->n && s + HR_PREFETCH < end) {
            const uint32_t ahead = st->hr_order[s + HR_PREFETCH];
            GR_PREFETCH(&st->hr_x[ahead]);
            GR_PREFETCH((const char *)&st->hr_x[ahead] + sizeof(gr_vec3) - 1);
            GR_PREFETCH(&st->hr_v[ahead]);
            GR_PREFETCH((const char *)&st->hr_v[ahead] + sizeof(gr_vec3) - 1);
        }
        gr_vec3 x = st->hr_x[q], v = st->hr_v[q];
        const double travel = v3_len(v) * c->dt;
        const uint32_t pieces = travel > rh ? (uint32_t)GR_MIN(ceil(travel / rh), 64.0) : 1u;
        const double h = c->dt / pieces;
        for (uint32_t piece = 0; piece < pieces; piece++) {
            x = v3_madd(x, v, h);
            for (uint32_t e = 0; e < st->exact_count; e++) {
                const gr_body_data *b = &bs->data[st->exact[e]];
                const double bound = st->exact_bound[e];
                if (bound < INFINITY && v3_len2(v3_sub(x, b->position)) > (bound + rh) * (bound + rh))
                    continue;
                const uint32_t nf = gr_body_feature_count(b);
                for (uint32_t f = 0; f < nf; f++) {
                    if (!gr_body_feature_enabled(b, f))
                        continue;
                    gr_vec3 nrm, pt;
                    const double depth = rh - gr_body_feature_distance(b, f, x, &nrm, &pt);
                    if (!(depth > 0))
                        continue;
                    x = v3_madd(x, nrm, depth);
                    v = point_contact(v, gr_body_point_velocity(b, pt), nrm, pbd_mu(st, b->material, b->material)[1]);
                }
            }
        }
        if (st->nb && st->n) {
            uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS];
            const uint32_t rows = gr_cell_grid_reach_rows(g, x, st->r_max + rh, rb, re);
            const float freach2 = (float)((st->r_max + rh) * (st->r_max + rh));
            for (uint32_t row = 0; row < rows; row++)
                for (uint32_t t = rb[row]; t < re[row]; t++) {
                    const float *e = st->hr_sorted + 8 * (size_t)t;
                    if (e[3] != 0.0f)
                        continue; /* a grain */
                    /* the float copy rejects the far ones without touching the particle */
                    const float fx = (float)x.x - e[0], fy = (float)x.y - e[1], fz = (float)x.z - e[2];
                    if (fx * fx + fy * fy + fz * fz > 1.01f * freach2)
                        continue;
                    const uint32_t j = g->order[t];
                    const gr_vec3 dxj = v3_sub(x, st->x[j]);
                    const double reach = st->r[j] + rh, d2 = v3_len2(dxj);
                    if (d2 >= reach * reach || !(d2 > 0))
                        continue;
                    const double len = sqrt(d2);
                    const gr_vec3 nrm = v3_scale(dxj, 1.0 / len);
                    x = v3_madd(x, nrm, reach - len);
                    v = point_contact(v, st->v[j], nrm, pbd_mu(st, st->mat[j], st->mat[j])[1]);
                }
        }
        st->hr_x[q] = x;
        st->hr_v[q] = v;
    }
}

static void key_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = (pbd_state *)vctx;
    const gr_cell_grid *g = &st->hr_grid;
    for (uint32_t q = begin; q < end; q++) {
        const gr_vec3 p = st->hr_x[q];
        /* the grid spans the grains' centres: the points of the sand's surface lie up to a
         * cell beyond it (they take the nearest cell's list, gathered wider); farther ones
         * take the row path */
        uint32_t key = 0;
        bool beside = false;
        for (int d = 0; d < 3; d++) {
            double t = floor((v3_get(p, g->axis[d]) - v3_get(g->origin, g->axis[d])) * g->inv_cell);
            if (!(t >= -1 && t <= (double)g->dims[d])) {
                key = 2 * g->ncells;
                break;
            }
            beside |= t < 0 || t >= (double)g->dims[d];
            t = t < 0 ? 0 : (t >= (double)g->dims[d] ? (double)(g->dims[d] - 1) : t);
            key = key * (uint32_t)g->dims[d] + (uint32_t)t;
        }
        st->hr_key[q] = key < 2 * g->ncells && beside ? key + g->ncells : key;
    }
}

/* The points in hr_grid cell order (a stable counting sort: deterministic). */
static gr_status sort_points(pbd_state *st)
{
    const uint32_t keys = 2 * st->hr_grid.ncells + 1;
    if (keys + 1 > st->hr_key_cap) {
        const uint32_t cap = gr_grow_capacity(st->hr_key_cap, keys + 1);
        uint32_t *a = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
        if (!a)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->hr_key_start, sizeof(uint32_t) * st->hr_key_cap);
        st->hr_key_start = a;
        st->hr_key_cap = cap;
    }
    gr_parallel_for_affine(&st->world->tasks, st->hr_n, PBD_BLOCK, key_range, st);
    uint32_t *start = st->hr_key_start;
    memset(start, 0, sizeof(uint32_t) * ((size_t)keys + 1));
    for (uint32_t q = 0; q < st->hr_n; q++)
        start[st->hr_key[q] + 1]++;
    for (uint32_t k = 0; k < keys; k++)
        start[k + 1] += start[k];
    for (uint32_t q = 0; q < st->hr_n; q++)
        st->hr_order[start[st->hr_key[q]]++] = q;
    return GR_OK;
}

/* Move the points by dt after the grains' step. */
gr_status pbd_advect_points(pbd_state *st, double dt)
{
    const gr_pbd_def *d = &st->world->pbd;
    if (!(d->hr_radius > 0) || !st->hr_n)
        return GR_OK;
    /* grains' radius for the support: the largest grain */
    double rl = 0;
    for (uint32_t i = 0; i < st->n; i++)
        if (st->owner[i] == GR_INVALID_INDEX)
            rl = GR_MAX(rl, st->r[i]);
    if (!(rl > 0))
        rl = st->r_max > 0 ? st->r_max : d->hr_radius;
    const double R = d->hr_support * rl;
    /* cells of half the larger reach (the support R, a body particle's r + r_H): points gather
     * the cells within reach (gr_cell_grid_reach_rows) */
    const double cell = 0.5 * GR_MAX(R, st->r_max + d->hr_radius);
    if (st->n && !gr_cell_grid_build(&st->hr_grid, st->mem, (const double *)st->x, 3, st->n, cell,
                                     GR_MAX(4u * st->n, 64u)))
        return GR_ERROR_OUT_OF_MEMORY;
    if (st->n > st->hr_sorted_cap) {
        const uint32_t cap = gr_grow_capacity(st->hr_sorted_cap, st->n);
        float *f = (float *)gr_mem_alloc(st->mem, sizeof(float) * 8 * (size_t)cap);
        if (!f)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->hr_sorted, sizeof(float) * 8 * (size_t)st->hr_sorted_cap);
        st->hr_sorted = f;
        st->hr_sorted_cap = cap;
    }
    for (uint32_t s = 0; s < st->n; s++) {
        const uint32_t j = st->hr_grid.order[s];
        float *e = st->hr_sorted + 8 * (size_t)s;
        e[0] = (float)st->x[j].x, e[1] = (float)st->x[j].y, e[2] = (float)st->x[j].z;
        e[3] = st->owner[j] == GR_INVALID_INDEX ? 1.0f : 0.0f;
        e[4] = (float)st->v[j].x, e[5] = (float)st->v[j].y, e[6] = (float)st->v[j].z, e[7] = 0;
    }
    if (st->n && sort_points(st) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    const double w_rho = kernel(rl * rl, 1.0 / (R * R));
    /* steps no longer than hr_substep; each point moves in pieces of at most its radius (body
     * surfaces are thin: a point must not step across one) */
    const uint32_t steps = (uint32_t)GR_MIN(GR_MAX(ceil(dt / d->hr_substep * (1.0 - 1e-12)), 1.0), 1000.0);
    advect_ctx c = {st, dt / steps, st->world->def.gravity, 1.0 / (R * R), R, d->hr_density * w_rho};
    for (uint32_t k = 0; k < steps; k++) {
        gr_parallel_for(&st->world->tasks, st->hr_n, PBD_BLOCK, blend_range, &c);
        gr_parallel_for(&st->world->tasks, st->hr_n, PBD_BLOCK, move_range, &c);
    }
    return GR_OK;
}

/* Points outside the world bounds are dropped (as grains are). */
void pbd_cull_points(pbd_state *st)
{
    const gr_vec3 lo = st->world->def.bounds_min, hi = st->world->def.bounds_max;
    if (lo.x == hi.x && lo.y == hi.y && lo.z == hi.z)
        return;
    uint32_t out = 0;
    for (uint32_t q = 0; q < st->hr_n; q++) {
        const gr_vec3 p = st->hr_x[q];
        if (p.x < lo.x || p.y < lo.y || p.z < lo.z || p.x > hi.x || p.y > hi.y || p.z > hi.z)
            continue;
        st->hr_x[out] = p;
        st->hr_rest[out] = st->hr_rest[q];
        st->hr_v[out++] = st->hr_v[q];
    }
    st->hr_n = out;
}
