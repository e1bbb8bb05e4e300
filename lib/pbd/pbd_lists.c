/* SPDX-License-Identifier: MIT */
/* Neighbour lists of the PBD solver, built once per substep on the predicted positions with a
 * collision margin and then fixed for all sweeps (Macklin 2014, sec. 5; docs/pbd.md).
 *
 *   - The movable particles (grains and free bodies' particles) are sorted into the cells of a
 *     grid and copied, in that order, into packed arrays (positions, starts, per-substep
 *     constants): the sweeps stream through them and neighbours sit close in memory.
 *   - Movable pairs within r_a + r_b + margin are listed once each (the first end before the
 *     second in packed order), with their per-substep constants; each particle also knows the
 *     pairs it is the second end of (a counting sort: the incidence lists).
 *   - Fixed particles (static and kinematic bodies') live in a grid of their own that is
 *     rebuilt only when they move; each movable particle lists the fixed ones within reach.
 *   - Exact (primitive) bodies are listed with their bounding radii.
 * Each block of PBD_BLOCK packed particles writes its lists into its own region, sized from
 * the last build (a block that needs more records how much, and the pass runs again), in the
 * grid's scan order: the result is the same for any worker count. */
#include <math.h>
#include <stdatomic.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_lists.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- storage -------------------------------------------------------------------------------- */

#define PAIR_ARRAYS(st)                                                                                           \
    {(void **)&(st)->pr_a, sizeof(uint32_t)}, {(void **)&(st)->pr_b, sizeof(uint32_t)},                           \
        {(void **)&(st)->pr_d, sizeof(double)}, {(void **)&(st)->pr_body, sizeof(uint8_t)},                       \
        {(void **)&(st)->pr_ln, sizeof(double)}, {(void **)&(st)->pr_lt, sizeof(gr_vec3)},                        \
        {(void **)&(st)->pr_s0, sizeof(double)}, {(void **)&(st)->pr_hit, sizeof(uint8_t)},                       \
    {                                                                                                             \
        (void **)&(st)->inc_k, sizeof(uint32_t)                                                                   \
    }

#define FIXED_CONTACT_ARRAYS(st)                                                                                  \
    {(void **)&(st)->fc_u, sizeof(uint32_t)}, {(void **)&(st)->fc_an, sizeof(double)},                            \
        {(void **)&(st)->fc_at, sizeof(gr_vec3)}, {                                                               \
        (void **)&(st)->fc_xyzr, 4 * sizeof(double)                                                               \
    }

static void free_regions(gr_mem *mem, uint32_t **base, uint32_t **used, uint32_t *blocks)
{
    if (*base) {
        gr_mem_free(mem, *base, sizeof(uint32_t) * ((size_t)*blocks + 1));
        gr_mem_free(mem, *used, sizeof(uint32_t) * ((size_t)*blocks + 1));
    }
    *base = *used = NULL;
    *blocks = 0;
}

void pbd_free_lists(pbd_state *st)
{
    gr_mem *mem = st->mem;
    const gr_array_ref pairs[] = {PAIR_ARRAYS(st)}, fixed[] = {FIXED_CONTACT_ARRAYS(st)};
    gr_mem_free_arrays(mem, pairs, GR_COUNTOF(pairs), st->pair_cap);
    gr_mem_free_arrays(mem, fixed, GR_COUNTOF(fixed), st->fc_cap);
    st->pair_cap = st->fc_cap = 0;
    free_regions(mem, &st->blk_base, &st->blk_used, &st->blk_n);
    free_regions(mem, &st->fblk_base, &st->fblk_used, &st->fblk_n);
    gr_mem_free(mem, st->exact, sizeof(pbd_exact) * st->exact_cap);
    gr_mem_free(mem, st->inc_count, sizeof(uint32_t) * st->inc_count_cap);
    st->inc_count = NULL;
    st->inc_count_cap = 0;
    st->exact = NULL;
    st->exact_cap = 0;
    gr_cell_grid_free(&st->grid, mem);
    gr_cell_grid_free(&st->fgrid, mem);
    st->fixed_dirty = true;
}

/* Block regions: each block's room is what it used last time (or asked for, after an
 * overflow) plus a quarter, at least min_per per particle. Returns the total (UINT64_MAX when
 * out of memory). */
static uint64_t size_regions(gr_mem *mem, uint32_t **base, uint32_t **used, uint32_t *blocks, uint32_t n,
                             uint32_t min_per)
{
    const uint32_t nblk = (n + PBD_BLOCK - 1) / PBD_BLOCK;
    if (!*base || nblk > *blocks) {
        const uint32_t cap = gr_grow_capacity(*blocks, nblk + 1);
        uint32_t *b = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ((size_t)cap + 1));
        uint32_t *u = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ((size_t)cap + 1));
        if (!b || !u) {
            gr_mem_free(mem, b, sizeof(uint32_t) * ((size_t)cap + 1));
            gr_mem_free(mem, u, sizeof(uint32_t) * ((size_t)cap + 1));
            return UINT64_MAX;
        }
        memset(u, 0, sizeof(uint32_t) * ((size_t)cap + 1));
        if (*base) {
            memcpy(u, *used, sizeof(uint32_t) * ((size_t)*blocks + 1));
            gr_mem_free(mem, *base, sizeof(uint32_t) * ((size_t)*blocks + 1));
            gr_mem_free(mem, *used, sizeof(uint32_t) * ((size_t)*blocks + 1));
        }
        *base = b;
        *used = u;
        *blocks = cap;
    }
    uint64_t total = 0;
    for (uint32_t b = 0; b < nblk; b++) {
        const uint32_t members = GR_MIN(PBD_BLOCK, n - b * PBD_BLOCK);
        const uint64_t room = (uint64_t)(*used)[b] + (*used)[b] / 4;
        (*base)[b] = (uint32_t)GR_MIN(total, (uint64_t)UINT32_MAX);
        total += GR_MAX(room, (uint64_t)min_per * members);
    }
    (*base)[nblk] = (uint32_t)GR_MIN(total, (uint64_t)UINT32_MAX);
    return total;
}

static bool regions_fit(const uint32_t *base, const uint32_t *used, uint32_t n)
{
    const uint32_t nblk = (n + PBD_BLOCK - 1) / PBD_BLOCK;
    bool fits = true;
    for (uint32_t b = 0; b < nblk; b++)
        fits &= base[b] + used[b] <= base[b + 1];
    return fits;
}

/* ---- exact bodies ------------------------------------------------------------------------- */

static gr_status list_exact_bodies(pbd_state *st)
{
    const gr_body_store *bs = st->env.bodies;
    if (bs->count > st->exact_cap) {
        const uint32_t cap = gr_grow_capacity(st->exact_cap, bs->count);
        pbd_exact *e = (pbd_exact *)gr_mem_alloc(st->mem, sizeof(pbd_exact) * cap);
        if (!e)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->exact, sizeof(pbd_exact) * st->exact_cap);
        st->exact = e;
        st->exact_cap = cap;
    }
    st->exact_count = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->particles)
            continue;
        st->exact[st->exact_count++] = (pbd_exact){bs->active[a], b->shape == GR_SHAPE_PLANE,
                                                   b->motion == GR_MOTION_KINEMATIC, 0, gr_body_bound_radius(b),
                                                   b->position, b->normal_world};
    }
    return GR_OK;
}

/* ---- grids and packing -------------------------------------------------------------------- */

/* The fixed particles' grid, when they moved (kinematic bodies every substep). fx_j and
 * fx_xyzr hold them in grid order. Its cells are of the farthest reach: the 3x3x3 block around
 * a movable particle's cell holds every fixed neighbour. (rank and pk_tmp are its scratch: it
 * runs before the prediction fills them for the lists.) */
gr_status pbd_build_fixed_grid(pbd_state *st)
{
    const double cell = st->r_mov_max + st->r_fix_max + st->par.margin_fraction * st->r_max;
    bool moving = false;
    for (uint32_t r = 0; r < st->nb && !moving; r++)
        moving = st->bodies[r].fixed && st->env.bodies->data[st->bodies[r].slot].motion == GR_MOTION_KINEMATIC;
    st->fixed_moving = moving;
    if (!st->fixed_dirty && !moving && st->fixed_cell == cell)
        return GR_OK;
    uint32_t m = 0;
    for (uint32_t i = 0; i < st->n; i++)
        if (st->inv_m[i] == 0.0) {
            st->rank[m] = i;
            st->pk_tmp[m++] = st->xp[i];
        }
    if (m && !gr_cell_grid_build(&st->fgrid, st->mem, (const double *)st->pk_tmp, 3, m, cell, GR_MAX(16u * m, 64u)))
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t u = 0; u < m; u++) {
        const uint32_t k = st->fgrid.order[u], j = st->rank[k];
        st->fx_j[u] = j;
        double *e = st->fx_xyzr + 4 * (size_t)u;
        e[0] = st->pk_tmp[k].x, e[1] = st->pk_tmp[k].y, e[2] = st->pk_tmp[k].z, e[3] = st->r[j];
        st->fx_fx[u] = (float)e[0], st->fx_fy[u] = (float)e[1], st->fx_fz[u] = (float)e[2], st->fx_fr[u] = (float)e[3];
        st->fx_now[u] = st->pk_tmp[k];
        st->fx_slot[u] = st->bodies[st->owner[j]].slot;
        st->fx_mat[u] = st->mat[j];
    }
    st->n_fixed = m;
    st->fixed_cell = cell;
    st->fixed_dirty = false;
    return GR_OK;
}

typedef struct pack_ctx {
    pbd_state *st;
    uint32_t mat0;     ///< the first packed particle's material
    atomic_uint mixed; ///< set by a block that has another one
} pack_ctx;

/* Largest exponent of the mass scaling: exp(50) keeps far inside double range. */
#define PBD_MAX_SCALING_EXPONENT 50.0

/* Packed copies of the movable particles in grid order, with their per-substep constants (one
 * staged record each, pbd_stage). */
static void pack_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pack_ctx *c = (pack_ctx *)vctx;
    pbd_state *st = c->st;
    uint32_t mixed = 0;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t k = st->grid.order[s], i = st->rank[k];
        st->perm[s] = i;
        st->pos_of[i] = s;
        const gr_vec3 p = st->pk_tmp[k];
        pbd_hot hot = st->stage_hot[k];
        st->pk[s] = (pbd_pk){p, st->stage_x[k]};
        st->pk_fx[s] = (float)p.x, st->pk_fy[s] = (float)p.y, st->pk_fz[s] = (float)p.z, st->pk_fr[s] = (float)hot.r;
        st->pk_touch[s] = hot.pad;
        hot.pad = 0;
        st->trap_slot[s] = GR_INVALID_INDEX; /* trap_range finds the trapped ones */
        /* grain pairs share by the height-scaled inverse masses (Macklin 2014 sec. 5.1) */
        if (st->scaling && hot.owner == GR_INVALID_INDEX) {
            double e = st->scale_k * (v3_dot(p, st->up) - st->scale_ref);
            e = e < 0 ? 0 : (e > PBD_MAX_SCALING_EXPONENT ? PBD_MAX_SCALING_EXPONENT : e);
            hot.w_star = hot.inv_m * exp(e);
        }
        st->hot[s] = hot;
        mixed |= hot.mat != c->mat0;
    }
    if (mixed)
        atomic_store_explicit(&c->mixed, 1u, memory_order_relaxed);
}

/* ---- lists -------------------------------------------------------------------------------- */

typedef struct list_ctx {
    pbd_state *st;
    double margin;
} list_ctx;

/* The pair (s, t) and its constants at index k (a pair with a free body's particle is solved
 * with the body as a rigid body: pbd_rigid.c). */
static void write_pair(pbd_state *st, uint32_t k, uint32_t s, uint32_t t)
{
    const pbd_hot *a = &st->hot[s], *b = &st->hot[t];
    st->pr_a[k] = s;
    st->pr_b[k] = t;
    st->pr_d[k] = a->r + b->r;
    st->pr_body[k] = ((a->bits | b->bits) & PBD_HOT_BODY) != 0;
}

/* Overlaps deeper than this fraction of the contact distance make a particle ask whether it
 * was pushed through a body's shell (at rest against a wall it overlaps less; to get through
 * the shell its centre must pass within about half a contact distance of a shell particle). */
#define PBD_DEEP_FRACTION 0.75

/* Candidates of one grid row examined at a time. */
#define PBD_ROW_MAX 64u

/* Float copies of points (x, y, z, radius: arrays of n) for the lists' scans in lanes. */
typedef struct scan_points {
    const float *x, *y, *z, *r;
    uint32_t n;
} scan_points;

/* The points t in [t0, t1) of sp closer to (px, py, pz) than rm + their radius, in floats,
 * into found[] in order; returns how many. */
static uint32_t scan_row(const scan_points *sp, uint32_t t0, uint32_t t1, float px, float py, float pz, float rm,
                         uint32_t *found)
{
    uint32_t nf = 0, t = t0;
#if defined(__SSE2__)
    const __m128 x4 = _mm_set1_ps(px), y4 = _mm_set1_ps(py), z4 = _mm_set1_ps(pz), r4 = _mm_set1_ps(rm);
    /* whole lanes while the arrays go on (lanes past t1 are masked off) */
    for (; t < t1 && t + 4 <= sp->n; t += 4) {
        const __m128 dx = _mm_sub_ps(x4, _mm_loadu_ps(sp->x + t)), dy = _mm_sub_ps(y4, _mm_loadu_ps(sp->y + t)),
                     dz = _mm_sub_ps(z4, _mm_loadu_ps(sp->z + t));
        const __m128 reach = _mm_add_ps(r4, _mm_loadu_ps(sp->r + t));
        const __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
        uint32_t m = (uint32_t)_mm_movemask_ps(_mm_cmplt_ps(d2, _mm_mul_ps(reach, reach)));
        if (t + 4 > t1)
            m &= (1u << (t1 - t)) - 1u;
        for (; m; m &= m - 1)
            found[nf++] = t + gr_lowest_bit(m);
    }
#endif
    for (; t < t1; t++) {
        const float dx = px - sp->x[t], dy = py - sp->y[t], dz = pz - sp->z[t];
        const float reach = rm + sp->r[t];
        found[nf] = t;
        nf += dx * dx + dy * dy + dz * dz < reach * reach;
    }
    return nf;
}

/* Unfrozen packed particles before position e (e <= nm). */
static inline uint32_t live_before(const pbd_state *st, uint32_t e) { return e < st->nm ? st->pk_live[e] : st->n_live; }

/* One pass: each block of packed particles writes its pairs and fixed contacts into its own
 * regions; a block that needs more records how much. */
static void lists_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const list_ctx *c = (const list_ctx *)vctx;
    pbd_state *st = c->st;
    const gr_cell_grid *g = &st->grid, *fg = &st->fgrid;
    const double margin = c->margin, deep2 = PBD_DEEP_FRACTION * PBD_DEEP_FRACTION;
    uint32_t at = 0, limit = 0, fat = 0, flimit = 0;
    const scan_points movers = {st->pk_fx, st->pk_fy, st->pk_fz, st->pk_fr, st->nm};
    const scan_points fixed = {st->fx_fx, st->fx_fy, st->fx_fz, st->fx_fr, st->n_fixed};
    /* the rows of the cell blocks last visited (the packed order is the grid's: the next
     * particle is often in the same cell) */
    uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS], frb[GR_CELL_GRID_REACH_ROWS],
        fre[GR_CELL_GRID_REACH_ROWS];
    uint32_t cell = UINT32_MAX, fcell = UINT32_MAX, rows = 0, frows = 0;
    /* ranges come in whole blocks (gr_parallel_for with PBD_BLOCK) */
    for (uint32_t s = begin; s < end; s++) {
        if (s == begin || s % PBD_BLOCK == 0) {
            const uint32_t b = s / PBD_BLOCK;
            if (s != begin) {
                st->blk_used[b - 1] = at - st->blk_base[b - 1];
                st->fblk_used[b - 1] = fat - st->fblk_base[b - 1];
            }
            at = st->blk_base[b];
            limit = st->blk_base[b + 1];
            fat = st->fblk_base[b];
            flimit = st->fblk_base[b + 1];
        }
        const gr_vec3 ps = st->pk[s].p;
        const double px = ps.x, py = ps.y, pz = ps.z, rs = st->hot[s].r;
        const uint32_t own = st->hot[s].owner;
        bool deep = false;
        int32_t cc[3];
        st->pf_start[s] = at;
        /* a frozen particle pairs only with unfrozen ones, and has no other contacts */
        const bool frozen = st->hot[s].bits & PBD_HOT_FROZEN;
        gr_cell_grid_coords(g, ps, cc);
        if (gr_cell_grid_index(g, cc) != cell) {
            cell = gr_cell_grid_index(g, cc);
            rows = gr_cell_grid_block_rows(g, cc, rb, re);
        }
        const float fx = st->pk_fx[s], fy = st->pk_fy[s], fz = st->pk_fz[s];
        for (uint32_t row = 0; row < rows; row++) {
            /* each pair once: only the later ends (the packed order is the grid's); the
             * candidates within reach are found in lanes, then written */
            uint32_t found[PBD_ROW_MAX];
            const uint32_t first = GR_MAX(rb[row], s + 1);
            if (frozen && (first >= re[row] || live_before(st, re[row]) == live_before(st, first)))
                continue;
            for (uint32_t t0 = first; t0 < re[row]; t0 += PBD_ROW_MAX) {
                /* (in floats: the margin dwarfs their rounding) */
                const uint32_t nf = scan_row(&movers, t0, GR_MIN(re[row], t0 + PBD_ROW_MAX), fx, fy, fz,
                                             st->pk_fr[s] + (float)margin, found);
                for (uint32_t f = 0; f < nf; f++) {
                    const uint32_t t = found[f];
                    if (frozen && (st->hot[t].bits & PBD_HOT_FROZEN))
                        continue;
                    const uint32_t ot = st->hot[t].owner;
                    if (own != GR_INVALID_INDEX && ot == own)
                        continue; /* one body's particles never collide */
                    if (ot != GR_INVALID_INDEX || own != GR_INVALID_INDEX) {
                        const double d2 = v3_len2(v3_sub(ps, st->pk[t].p)), dc = rs + st->hot[t].r;
                        deep |= d2 < deep2 * dc * dc;
                    }
                    if (at < limit)
                        write_pair(st, at, s, t);
                    at++;
                }
            }
        }
        st->pf_end[s] = at;
        st->fc_start[s] = fat;
        if (st->n_fixed && !frozen) {
            gr_cell_grid_coords(fg, ps, cc);
            if (gr_cell_grid_index(fg, cc) != fcell) {
                fcell = gr_cell_grid_index(fg, cc);
                frows = gr_cell_grid_block_rows(fg, cc, frb, fre);
            }
            /* candidates in float lanes with some slack for their rounding, then the exact
             * test in doubles */
            const float slack = (float)(1e-3 * (rs + margin) + 1e-6 * (fabs(px) + fabs(py) + fabs(pz)));
            const float rmf = (float)(rs + margin) + slack;
            for (uint32_t row = 0; row < frows; row++) {
                uint32_t found[PBD_ROW_MAX];
                for (uint32_t u0 = frb[row]; u0 < fre[row]; u0 += PBD_ROW_MAX) {
                    const uint32_t nf = scan_row(&fixed, u0, GR_MIN(fre[row], u0 + PBD_ROW_MAX), fx, fy, fz, rmf, found);
                    for (uint32_t f = 0; f < nf; f++) {
                        const uint32_t u = found[f];
                        const double *e = st->fx_xyzr + 4 * (size_t)u;
                        const double dx = px - e[0], dy = py - e[1], dz = pz - e[2], d2 = dx * dx + dy * dy + dz * dz;
                        const double reach = rs + e[3] + margin;
                        if (d2 >= reach * reach)
                            continue;
                        deep |= d2 < deep2 * (rs + e[3]) * (rs + e[3]);
                        if (fat < flimit) {
                            st->fc_u[fat] = u;
                            memcpy(st->fc_xyzr + 4 * (size_t)fat, e, 4 * sizeof(double));
                        }
                        fat++;
                    }
                }
            }
        }
        st->fc_end[s] = fat;
        st->deep[s] = deep && !frozen;
    }
    if (end > begin) {
        const uint32_t b = (end - 1) / PBD_BLOCK;
        st->blk_used[b] = at - st->blk_base[b];
        st->fblk_used[b] = fat - st->fblk_base[b];
    }
}

/* Is packed particle s's centre inside the solid of body record o (its particles are near)?
 * Then it leaves along the body's surface normal this substep (pbd_constraints.c). */
static bool trap_test(pbd_state *st, uint32_t s, uint32_t o)
{
    const gr_body_data *b = &st->env.bodies->data[st->bodies[o].slot];
    const gr_vec3 p = st->pk[s].p;
    if (!gr_body_contains(b, p))
        return false; /* the common case, without the exact O(triangles) distance */
    gr_vec3 nrm, pt;
    const double d = gr_body_feature_distance(b, 0, p, &nrm, &pt);
    if (!(d < 0))
        return false;
    st->trap_slot[s] = st->bodies[o].slot;
    st->trap_normal[s] = nrm;
    st->trap_at[s] = p;
    st->trap_depth[s] = -d;
    return true;
}

/* Particles pushed through a particle-covered body's shell: those overlapped deeply by a
 * body's particles ask each body whose particles are near once (consecutive duplicates
 * skipped). */
static void trap_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = (pbd_state *)vctx;
    for (uint32_t s = begin; s < end; s++) {
        if (!st->deep[s])
            continue;
        const uint32_t own = st->hot[s].owner;
        uint32_t last = GR_INVALID_INDEX;
        bool found = false;
        for (uint32_t k = st->fc_start[s]; k < st->fc_end[s] && !found; k++) {
            const uint32_t o = st->owner[st->fx_j[st->fc_u[k]]];
            if (o != last && o != own)
                found = trap_test(st, s, o);
            last = o;
        }
        for (uint32_t k = st->pf_start[s]; k < st->pf_end[s] && !found; k++) {
            const uint32_t o = st->hot[st->pr_b[k]].owner;
            if (o != GR_INVALID_INDEX && o != last && o != own)
                found = trap_test(st, s, o);
            last = o;
        }
        for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1] && !found; e++) {
            const uint32_t o = st->hot[st->pr_a[st->inc_k[e]]].owner;
            if (o != GR_INVALID_INDEX && o != last && o != own)
                found = trap_test(st, s, o);
            last = o;
        }
    }
}

/* Each particle's pairs as the second end, in pair order: a stable counting sort by second end
 * in chunks of blocks (its result is unique: the same for any chunking), with the second
 * end's share; then which particles have pairs with free bodies' particles or with particles
 * fast enough to wake a sleeper. */
typedef struct inc_ctx {
    pbd_state *st;
    uint32_t chunks, nblk;
} inc_ctx;

static void inc_count_chunk(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const inc_ctx *c = (const inc_ctx *)vctx;
    pbd_state *st = c->st;
    for (uint32_t ch = begin; ch < end; ch++) {
        uint32_t *count = st->inc_count + (size_t)ch * st->nm;
        memset(count, 0, sizeof(uint32_t) * st->nm);
        for (uint32_t b = c->nblk * ch / c->chunks; b < c->nblk * (ch + 1) / c->chunks; b++)
            for (uint32_t k = st->blk_base[b]; k < st->blk_base[b] + st->blk_used[b]; k++)
                count[st->pr_b[k]]++;
    }
}

static void inc_place_chunk(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const inc_ctx *c = (const inc_ctx *)vctx;
    pbd_state *st = c->st;
    for (uint32_t ch = begin; ch < end; ch++) {
        uint32_t *cursor = st->inc_count + (size_t)ch * st->nm;
        for (uint32_t b = c->nblk * ch / c->chunks; b < c->nblk * (ch + 1) / c->chunks; b++)
            for (uint32_t k = st->blk_base[b]; k < st->blk_base[b] + st->blk_used[b]; k++) {
                const uint32_t e = cursor[st->pr_b[k]]++;
                st->inc_k[e] = k;
            }
    }
}

static gr_status build_incidence(pbd_state *st)
{
    gr_tasks *tasks = st->env.tasks;
    const uint32_t nm = st->nm, nblk = (nm + PBD_BLOCK - 1) / PBD_BLOCK;
    const uint32_t chunks = GR_MAX(GR_MIN(tasks->worker_count, nblk), 1u);
    const uint64_t need = (uint64_t)chunks * nm;
    if (need > UINT32_MAX)
        return GR_ERROR_OUT_OF_MEMORY;
    if (need > st->inc_count_cap) {
        const uint32_t cap = gr_grow_capacity(st->inc_count_cap, (uint32_t)need);
        uint32_t *a = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
        if (!a)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->inc_count, sizeof(uint32_t) * st->inc_count_cap);
        st->inc_count = a;
        st->inc_count_cap = cap;
    }
    inc_ctx c = {st, chunks, nblk};
    gr_parallel_for(tasks, chunks, 1, inc_count_chunk, &c);
    /* starts: particle by particle, chunk by chunk within one (stable) */
    uint32_t at = 0;
    for (uint32_t s = 0; s < nm; s++) {
        st->inc_start[s] = at;
        for (uint32_t ch = 0; ch < chunks; ch++) {
            uint32_t *e = st->inc_count + (size_t)ch * nm + s;
            const uint32_t n = *e;
            *e = at;
            at += n;
        }
    }
    st->inc_start[nm] = at;
    gr_parallel_for(tasks, chunks, 1, inc_place_chunk, &c);
    return GR_OK;
}

gr_status pbd_build_lists(pbd_state *st)
{
    gr_status s;
    if ((s = list_exact_bodies(st)) != GR_OK)
        return s;
    const double r_mov = st->r_mov_max;
    uint32_t nm = st->n_mov;
    const double margin = st->par.margin_fraction * st->r_max;
    st->nm = nm;
    /* (rank[k] = mov[k] and pk_tmp[k] = its x*: written by the prediction, pbd_step.c) */
    if (nm && !gr_cell_grid_build(&st->grid, st->mem, (const double *)st->pk_tmp, 3, nm, 2.0 * r_mov + margin,
                                  GR_MAX(8u * nm, 64u)))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_tasks *tasks = st->env.tasks;
    pack_ctx pc = {st, nm ? st->mat[st->rank[st->grid.order[0]]] : 0, 0};
    gr_parallel_for(tasks, nm, PBD_BLOCK, pack_range, &pc);
    st->one_material = !atomic_load_explicit(&pc.mixed, memory_order_relaxed);
    if (st->n_frozen) { /* where the list scan of a frozen particle finds nobody to pair with */
        uint32_t live = 0;
        for (uint32_t k = 0; k < nm; k++) {
            st->pk_live[k] = live;
            live += !(st->hot[k].bits & PBD_HOT_FROZEN);
        }
        st->n_live = live;
    }
    list_ctx c = {st, margin};
    /* one pass in the steady state; a block that outgrew a region asks for another */
    while (nm) {
        const uint64_t pairs = size_regions(st->mem, &st->blk_base, &st->blk_used, &st->blk_n, nm, 8);
        const uint64_t fixed = size_regions(st->mem, &st->fblk_base, &st->fblk_used, &st->fblk_n, nm, 2);
        if (pairs > UINT32_MAX || fixed > UINT32_MAX)
            return GR_ERROR_OUT_OF_MEMORY;
        if (pairs > st->pair_cap) {
            const uint32_t cap = gr_grow_capacity(st->pair_cap, (uint32_t)pairs);
            const gr_array_ref arrays[] = {PAIR_ARRAYS(st)};
            if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->pair_cap, cap, 0))
                return GR_ERROR_OUT_OF_MEMORY;
            st->pair_cap = cap;
        }
        if (fixed > st->fc_cap) {
            const uint32_t cap = gr_grow_capacity(st->fc_cap, (uint32_t)fixed);
            const gr_array_ref arrays[] = {FIXED_CONTACT_ARRAYS(st)};
            if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->fc_cap, cap, 0))
                return GR_ERROR_OUT_OF_MEMORY;
            st->fc_cap = cap;
        }
        gr_parallel_for(tasks, nm, PBD_BLOCK, lists_range, &c);
        if (regions_fit(st->blk_base, st->blk_used, nm) && regions_fit(st->fblk_base, st->fblk_used, nm))
            break;
    }
    if (nm && (s = build_incidence(st)) != GR_OK)
        return s;
    if (st->nb)
        gr_parallel_for(tasks, nm, PBD_BLOCK, trap_range, st);
    st->rebuilds++;
    return GR_OK;
}

typedef struct unpack_ctx {
    pbd_state *st;
} unpack_ctx;

static void unpack_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((const unpack_ctx *)vctx)->st;
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t i = st->perm[s];
        st->xp[i] = st->pk[s].p;
        st->x[i] = st->pk[s].x;
        st->touch[i] = st->pk_touch[s];
        st->flag[i] |= st->pk_flag[s];
    }
}

void pbd_fixed_advanced(pbd_state *st)
{
    for (uint32_t e = 0; e < st->exact_count; e++) { /* kinematic exact bodies moved too */
        pbd_exact *ex = &st->exact[e];
        if (!ex->moving)
            continue;
        const gr_body_data *b = &st->env.bodies->data[ex->slot];
        ex->centre = b->position;
        ex->normal = b->normal_world;
    }
    if (!st->fixed_moving)
        return; /* static particles: x* = x, as at the grid's build */
    for (uint32_t u = 0; u < st->n_fixed; u++)
        st->fx_now[u] = st->xp[st->fx_j[u]];
}

void pbd_unpack(pbd_state *st)
{
    unpack_ctx c = {st};
    gr_parallel_for(st->env.tasks, st->nm, PBD_BLOCK, unpack_range, &c);
}
