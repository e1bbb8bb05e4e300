/* SPDX-License-Identifier: MIT */
/* Neighbour rebuild: sort grains by cell (counting sort), permute the arrays, build the half
 * neighbour list and the grain-body candidate list, carry contact history over, cut slabs.
 *
 * Order of work keeps the world consistent on out-of-memory: everything that allocates (grid,
 * list capacity) happens before the first array is permuted. */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_rebuild.h"
#include "dem_store.h"
#include "dem_rkf45_store.h"
#include "dem_clumps.h"

enum { REBUILD_BLOCK = 512 };

/* ---- capacity --------------------------------------------------------------------------- */

/* Grow the "old" (next) list buffers to hold `need` entries; contents are not kept. */
static bool reserve_next_lists(dem_state *st, uint32_t nb_need, uint32_t bc_need)
{
    bool roll = st->law.rolling == GR_ROLLING_EPSD;
    if (nb_need > st->nb_old_cap) {
        uint32_t cap = gr_grow_capacity(st->nb_old_cap, nb_need);
        gr_array_ref a[3] = {{(void **)&st->nb_j_old, sizeof(uint32_t)},
                             {(void **)&st->nb_hist_old, sizeof(gr_vec3)},
                             {(void **)&st->nb_roll_old, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, a, roll ? 3 : 2, st->nb_old_cap, cap, 0))
            return false;
        st->nb_old_cap = cap;
    }
    if (bc_need > st->bc_old_cap) {
        uint32_t cap = gr_grow_capacity(st->bc_old_cap, bc_need);
        gr_array_ref a[3] = {{(void **)&st->bc_id_old, sizeof(uint32_t)},
                             {(void **)&st->bc_hist_old, sizeof(gr_vec3)},
                             {(void **)&st->bc_roll_old, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, a, roll ? 3 : 2, st->bc_old_cap, cap, 0))
            return false;
        st->bc_old_cap = cap;
    }
    return true;
}

bool dem_reserve_slabs(dem_state *st, uint32_t nslabs, uint32_t body_slots)
{
    const uint32_t scap = nslabs > st->slab_cap ? gr_grow_capacity(st->slab_cap, nslabs) : st->slab_cap;
    const uint32_t bs = GR_MAX(st->body_slots, body_slots);
    if (scap == st->slab_cap && bs == st->body_slots)
        return true;
    gr_mem *mem = st->mem;
    const size_t nsb = (size_t)scap * bs * 6;
    uint32_t *ss = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ((size_t)scap + 1));
    uint64_t *sc = (uint64_t *)gr_mem_calloc(mem, sizeof(uint64_t) * (size_t)scap * 2);
    double *sb = nsb ? (double *)gr_mem_calloc(mem, sizeof(double) * nsb) : NULL;
    gr_vec3 *imp = bs ? (gr_vec3 *)gr_mem_calloc(mem, sizeof(gr_vec3) * bs * 2) : NULL;
    double *bound = bs ? (double *)gr_mem_calloc(mem, sizeof(double) * bs) : NULL;
    double *reach = bs ? (double *)gr_mem_calloc(mem, sizeof(double) * bs) : NULL;
    dem_body_seen *seen = bs ? (dem_body_seen *)gr_mem_calloc(mem, sizeof(dem_body_seen) * bs) : NULL;
    if (!ss || !sc || (nsb && !sb) || (bs && (!imp || !bound || !reach || !seen))) {
        gr_mem_free(mem, ss, sizeof(uint32_t) * ((size_t)scap + 1));
        gr_mem_free(mem, sc, sizeof(uint64_t) * (size_t)scap * 2);
        gr_mem_free(mem, sb, sizeof(double) * nsb);
        gr_mem_free(mem, imp, sizeof(gr_vec3) * bs * 2);
        gr_mem_free(mem, bound, sizeof(double) * bs);
        gr_mem_free(mem, reach, sizeof(double) * bs);
        gr_mem_free(mem, seen, sizeof(dem_body_seen) * bs);
        return false;
    }
    if (st->body_slots) {
        /* the step's impulse sums survive a mid-step rebuild */
        memcpy(imp, st->body_impulse, sizeof(gr_vec3) * st->body_slots * 2);
        memcpy(bound, st->body_bound, sizeof(double) * st->body_slots);
        memcpy(reach, st->body_reach, sizeof(double) * st->body_slots);
        memcpy(seen, st->body_seen, sizeof(dem_body_seen) * st->body_slots);
    }
    dem_free_slabs(st);
    st->slab_start = ss;
    st->slab_contacts = sc;
    st->slab_body = sb;
    st->slab_cap = scap;
    st->body_impulse = imp;
    st->body_bound = bound;
    st->body_reach = reach;
    st->body_seen = seen;
    st->body_slots = bs;
    return true;
}

void dem_free_slabs(dem_state *st)
{
    gr_mem *mem = st->mem;
    const uint32_t scap = st->slab_cap, bs = st->body_slots;
    gr_mem_free(mem, st->slab_start, sizeof(uint32_t) * ((size_t)scap + 1));
    gr_mem_free(mem, st->slab_contacts, sizeof(uint64_t) * (size_t)scap * 2);
    gr_mem_free(mem, st->slab_body, sizeof(double) * (size_t)scap * bs * 6);
    gr_mem_free(mem, st->body_impulse, sizeof(gr_vec3) * bs * 2);
    gr_mem_free(mem, st->body_bound, sizeof(double) * bs);
    gr_mem_free(mem, st->body_reach, sizeof(double) * bs);
    gr_mem_free(mem, st->body_seen, sizeof(dem_body_seen) * bs);
    st->body_seen = NULL;
    st->slab_start = NULL;
    st->slab_contacts = NULL;
    st->slab_body = NULL;
    st->body_impulse = NULL;
    st->body_bound = NULL;
    st->body_reach = NULL;
    st->slab_cap = 0;
    st->body_slots = 0;
}

void dem_free_lists(dem_state *st)
{
    gr_mem *mem = st->mem;
    gr_mem_free(mem, st->nb_j, sizeof(uint32_t) * st->nb_cap);
    gr_mem_free(mem, st->nb_hist, sizeof(gr_vec3) * st->nb_cap);
    gr_mem_free(mem, st->nb_roll, sizeof(gr_vec3) * st->nb_cap);
    gr_mem_free(mem, st->nb_j_old, sizeof(uint32_t) * st->nb_old_cap);
    gr_mem_free(mem, st->nb_hist_old, sizeof(gr_vec3) * st->nb_old_cap);
    gr_mem_free(mem, st->nb_roll_old, sizeof(gr_vec3) * st->nb_old_cap);
    gr_mem_free(mem, st->bc_id, sizeof(uint32_t) * st->bc_cap);
    gr_mem_free(mem, st->bc_hist, sizeof(gr_vec3) * st->bc_cap);
    gr_mem_free(mem, st->bc_roll, sizeof(gr_vec3) * st->bc_cap);
    gr_mem_free(mem, st->bc_id_old, sizeof(uint32_t) * st->bc_old_cap);
    gr_mem_free(mem, st->bc_hist_old, sizeof(gr_vec3) * st->bc_old_cap);
    gr_mem_free(mem, st->bc_roll_old, sizeof(gr_vec3) * st->bc_old_cap);
    st->nb_j = st->nb_j_old = NULL;
    st->nb_hist = st->nb_hist_old = st->nb_roll = st->nb_roll_old = NULL;
    st->bc_id = st->bc_id_old = NULL;
    st->bc_hist = st->bc_hist_old = st->bc_roll = st->bc_roll_old = NULL;
    st->nb_cap = st->nb_old_cap = st->bc_cap = st->bc_old_cap = 0;
    st->nb_count = st->bc_count = 0;
}

/* ---- list construction --------------------------------------------------------------------- */

typedef struct rebuild_ctx {
    dem_state *st;
    const dem_xr *xr;    ///< positions and radii in new order
    uint32_t n;
    double skin;
    uint32_t *nb_count;  ///< [n + 1] counts, then starts
    uint32_t *bc_count;
    bool fill;
} rebuild_ctx;

/* Candidate partners j > i of grain i: at most 5 contiguous runs of the cell order (the rest
 * of i's cell and the cell above it on the minor axis; the next row; the next layer's 3 rows). */
static uint32_t candidate_runs(const gr_cell_grid *g, uint32_t cell, uint32_t i, uint32_t beg[5], uint32_t end[5])
{
    const int32_t d1 = g->dims[1], d2 = g->dims[2];
    const int32_t c2 = (int32_t)(cell % (uint32_t)d2);
    const int32_t c1 = (int32_t)((cell / (uint32_t)d2) % (uint32_t)d1);
    const int32_t c0 = (int32_t)(cell / ((uint32_t)d2 * (uint32_t)d1));
    const int32_t lo2 = c2 > 0 ? c2 - 1 : 0, hi2 = c2 + 1 < d2 ? c2 + 1 : d2 - 1;
    static const int8_t da[5] = {0, 0, 1, 1, 1}, db[5] = {0, 1, -1, 0, 1};
    uint32_t n = 0;
    for (int k = 0; k < 5; k++) {
        int32_t a = c0 + da[k], b = c1 + db[k];
        if (a >= g->dims[0] || b < 0 || b >= d1)
            continue;
        uint32_t base = ((uint32_t)a * (uint32_t)d1 + (uint32_t)b) * (uint32_t)d2;
        beg[n] = k == 0 ? i + 1 : g->cell_start[base + (uint32_t)lo2];
        end[n] = g->cell_start[base + (uint32_t)hi2 + 1];
        n++;
    }
    return n;
}

static bool body_candidate(const gr_body_data *b, uint32_t f, gr_vec3 p, double reach)
{
    gr_vec3 n, q;
    return gr_body_feature_distance(b, f, p, &n, &q) < reach;
}

static void lists_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    rebuild_ctx *c = (rebuild_ctx *)vctx;
    dem_state *st = c->st;
    const gr_cell_grid *g = &st->grid;
    const gr_body_store *bodies = st->env.bodies;
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    for (uint32_t i = begin; i < end; i++) {
        const gr_vec3 xi = xr_pos(&c->xr[i]);
        const double ri = c->xr[i].r;
        const uint32_t cell = st->cell_tmp[i];
        uint32_t k = c->fill ? c->nb_count[i] : 0;
        /* old list of this grain, for carrying the contact history over */
        const uint32_t oi = st->perm[i];
        const bool has_old = c->fill && oi < st->n_built;
        uint32_t rb[5], re[5];
        const uint32_t nruns = candidate_runs(g, cell, i, rb, re);
        /* spheres of one clump never touch each other */
        const uint32_t mi = st->member[oi];
        const uint32_t ci = mi != GR_INVALID_INDEX ? st->m_clump[mi] : GR_INVALID_INDEX;
        /* particles of fixed bodies neither touch each other nor the analytic bodies */
        const bool fixed_i = st->sorted_fixed[i];
        const uint8_t *restrict fixed = st->sorted_fixed;
        for (uint32_t run = 0; run < nruns; run++)
        for (uint32_t j = rb[run]; j < re[run]; j++) {
            if (fixed_i && fixed[j])
                continue; /* two fixed bodies' particles: nothing could move either */
            gr_vec3 d = v3_sub(xi, xr_pos(&c->xr[j]));
            double cut = ri + c->xr[j].r + c->skin;
            if (v3_len2(d) < cut * cut) {
                if (ci != GR_INVALID_INDEX) {
                    const uint32_t mj = st->member[st->perm[j]];
                    if (mj != GR_INVALID_INDEX && st->m_clump[mj] == ci)
                        continue;
                }
                if (c->fill) {
                    gr_vec3 hist = {0, 0, 0}, rh = {0, 0, 0};
                    const uint32_t oj = st->perm[j];
                    bool found = false;
                    if (has_old) {
                        for (uint32_t e = st->nb_start[oi]; e < st->nb_start[oi + 1]; e++)
                            if ((st->nb_j[e] & DEM_INDEX_MASK) == oj) {
                                hist = st->nb_hist[e];
                                if (roll) rh = st->nb_roll[e];
                                found = true;
                                break;
                            }
                    }
                    if (!found && oj < st->n_built) {
                        /* the pair was owned by the other grain: its history has the other sign */
                        for (uint32_t e = st->nb_start[oj]; e < st->nb_start[oj + 1]; e++)
                            if ((st->nb_j[e] & DEM_INDEX_MASK) == oi) {
                                hist = v3_neg(st->nb_hist[e]);
                                if (roll) rh = v3_neg(st->nb_roll[e]);
                                break;
                            }
                    }
                    /* a carried-over history marks the pair as touching */
                    const bool touching = hist.x != 0 || hist.y != 0 || hist.z != 0 || rh.x != 0 || rh.y != 0 || rh.z != 0;
                    st->nb_j_old[k] = j | (touching ? DEM_TOUCHING : 0u);
                    st->nb_hist_old[k] = hist;
                    if (roll)
                        st->nb_roll_old[k] = rh;
                }
                k++;
            }
        }
        if (!c->fill)
            c->nb_count[i + 1] = k;

        /* grain-body candidates */
        uint32_t kb = c->fill ? c->bc_count[i] : 0;
        const double reach = ri + c->skin;
        const uint32_t nbodies = fixed_i ? 0 : bodies->count;
        for (uint32_t a = 0; a < nbodies; a++) {
            const uint32_t bs = bodies->active[a];
            const gr_body_data *b = &bodies->data[bs];
            if (b->particles)
                continue; /* covered bodies touch through their particles */
            if (b->shape == GR_SHAPE_HEIGHTFIELD && ci != GR_INVALID_INDEX && st->c_body[ci] != GR_INVALID_INDEX)
                continue; /* a terrain carries bodies itself (lib/terrain/terrain_press.c) */
            double br = gr_body_bound_radius(b);
            if (isfinite(br) && v3_len(v3_sub(xi, b->position)) > br + reach)
                continue;
            const uint32_t nf = gr_body_feature_count(b);
            for (uint32_t f = 0; f < nf; f++) {
                if (!gr_body_feature_enabled(b, f) || !body_candidate(b, f, xi, reach))
                    continue;
                if (c->fill) {
                    const uint32_t id = bs << 3 | f;
                    gr_vec3 hist = {0, 0, 0}, rh = {0, 0, 0};
                    if (has_old)
                        for (uint32_t e = st->bc_start[oi]; e < st->bc_start[oi + 1]; e++)
                            if (st->bc_id[e] == id) {
                                hist = st->bc_hist[e];
                                if (roll) rh = st->bc_roll[e];
                                break;
                            }
                    st->bc_id_old[kb] = id;
                    st->bc_hist_old[kb] = hist;
                    if (roll)
                        st->bc_roll_old[kb] = rh;
                }
                kb++;
            }
        }
        if (!c->fill)
            c->bc_count[i + 1] = kb;
    }
}

/* ---- permutation ------------------------------------------------------------------------- */

/* Parallel passes of the rebuild over grain ranges. */
enum rebuild_pass { PASS_SORTED, PASS_GATHER, PASS_COPY_BACK, PASS_XREF };

typedef struct pass_ctx {
    dem_state *st;
    enum rebuild_pass pass;
    dem_xr *sorted;        ///< PASS_SORTED: records in the new order
    unsigned char *array;  ///< PASS_GATHER / PASS_COPY_BACK: the array being permuted
    size_t size;           ///< its element size (<= 32 bytes, the scratch's unit)
} pass_ctx;

static void pass_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const pass_ctx *c = (const pass_ctx *)vctx;
    dem_state *st = c->st;
    switch (c->pass) {
    case PASS_SORTED: {
        const gr_cell_grid *g = &st->grid;
        for (uint32_t k = begin; k < end; k++) {
            const uint32_t o = st->perm[k];
            c->sorted[k] = st->xr[o];
            st->cell_tmp[k] = g->cell_of[g->order[k]];
            st->sorted_fixed[k] = st->member[o] != GR_INVALID_INDEX && st->c_fixed[st->m_clump[st->member[o]]];
        }
        break;
    }
    case PASS_GATHER:
        for (uint32_t k = begin; k < end; k++)
            memcpy(st->spare + (size_t)k * c->size, c->array + (size_t)st->perm[k] * c->size, c->size);
        break;
    case PASS_COPY_BACK:
        memcpy(c->array + (size_t)begin * c->size, st->spare + (size_t)begin * c->size, (size_t)(end - begin) * c->size);
        break;
    case PASS_XREF:
        for (uint32_t i = begin; i < end; i++)
            st->x_ref[i] = xr_pos(&st->xr[i]);
        break;
    }
}

enum { PASS_BLOCK = 4096 };

static void run_pass(dem_state *st, pass_ctx *c, uint32_t n)
{
    gr_parallel_for_affine(st->env.tasks, n, PASS_BLOCK, pass_range, c);
}

/* arr[k] = arr[perm[k]] for k < n, through the scratch buffer. */
static void permute_array(dem_state *st, void *arr, size_t size, uint32_t n)
{
    pass_ctx c = {st, PASS_GATHER, NULL, (unsigned char *)arr, size};
    run_pass(st, &c, n);
    c.pass = PASS_COPY_BACK;
    run_pass(st, &c, n);
}

static void permute_all(dem_state *st, uint32_t n, const dem_xr *sorted_xr)
{
    memcpy(st->xr, sorted_xr, sizeof(dem_xr) * n);
    permute_array(st, st->q, sizeof(gr_quat), n);
    permute_array(st, st->v, sizeof(gr_vec3), n);
    permute_array(st, st->w, sizeof(gr_vec3), n);
    permute_array(st, st->f, sizeof(gr_vec3), n);
    permute_array(st, st->t, sizeof(gr_vec3), n);
    permute_array(st, st->m, sizeof(double), n);
    permute_array(st, st->inv_m, sizeof(double), n);
    permute_array(st, st->inv_i, sizeof(double), n);
    permute_array(st, st->mat, sizeof(uint32_t), n);
    permute_array(st, st->slot, sizeof(uint32_t), n);
    permute_array(st, st->member, sizeof(uint32_t), n);
    if (gr_upsample_on(&st->points)) { /* (without render points their flags are never read) */
        permute_array(st, st->sampled, sizeof(uint8_t), n);
        permute_array(st, st->up_x0, sizeof(gr_vec3), n);
    }
    uint32_t *dense = st->env.grains->dense;
    for (uint32_t k = 0; k < n; k++) {
        if (st->member[k] == GR_INVALID_INDEX)
            dense[st->slot[k]] = k; /* a free sphere is its grain */
        else
            st->m_sphere[st->member[k]] = k;
    }
}

void dem_update_uniform_material(dem_state *st)
{
    st->uniform_material = st->n ? st->mat[0] : GR_INVALID_INDEX;
    for (uint32_t i = 1; i < st->n && st->uniform_material != GR_INVALID_INDEX; i++)
        if (st->mat[i] != st->uniform_material)
            st->uniform_material = GR_INVALID_INDEX;
}

/* The automatic skin: 0.4 r_max suits a slow, dense bed; a stream of fast grains would rebuild
 * every few substeps with it. Lists that lasted under 8 substeps grow the skin by half (up to
 * 1.2 r_max), lists that lasted over 40 shrink it back towards 0.4 r_max: the cost of rebuilding
 * balances the cost of longer lists. */
static double adapt_skin(const dem_state *st, double r_max)
{
    /* RKF45's steps are long (and its stages many): a wider skin that lets a step run pays */
    const double lo = 0.4 * r_max, hi = (st->def->integrator == GR_INTEGRATOR_RKF45 ? 4.0 : 1.2) * r_max;
    double s = st->skin_auto;
    if (!(s > 0) || st->rebuilds == 0)
        s = lo;
    else if (st->substeps_since_rebuild < 8)
        s *= 1.5;
    else if (st->substeps_since_rebuild > 40)
        s *= 0.8;
    return GR_MAX(lo, GR_MIN(hi, s)); /* stored by a rebuild that succeeds (a failed one changes nothing) */
}

/* ---- the rebuild ----------------------------------------------------------------------------- */

gr_status dem_rebuild(dem_state *st)
{
    const gr_solver_env *env = &st->env;
    const uint32_t n_old = st->n;
    /* the CSR start arrays must exist even for an empty world */
    if (st->cap == 0 && dem_reserve_particles(st, 1) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;

    /* 1. alive grains and their positions (compaction of removed grains happens here); the
     * grid reads positions with a stride of 4 doubles straight from the records */
    const double *pos = (const double *)st->xr;
    uint32_t n = n_old;
    dem_xr *tmp = (dem_xr *)(void *)st->spare; /* 32-byte records: the scratch buffer's unit */
    if (st->n_dead) {
        n = 0;
        for (uint32_t i = 0; i < n_old; i++)
            if (st->slot[i] != GR_INVALID_INDEX) {
                st->cell_tmp[n] = i;
                tmp[n++] = st->xr[i];
            }
        pos = (const double *)tmp;
    }
    double r_max = 0;
    for (uint32_t i = 0; i < n_old; i++)
        if (st->slot[i] != GR_INVALID_INDEX && st->xr[i].r > r_max)
            r_max = st->xr[i].r;
    const double skin = st->def->skin > 0 ? st->def->skin : adapt_skin(st, r_max);
    const double cell = GR_MAX(2.0 * r_max + skin, 1e-9);
    const uint32_t max_cells = GR_MAX(4u * n, 4096u);
    if (!gr_cell_grid_build(&st->grid, st->mem, pos, 4, n, cell, max_cells))
        return GR_ERROR_OUT_OF_MEMORY;
    const gr_cell_grid *g = &st->grid;

    /* 2. permutation and sorted records / cells (scratch only) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t src = g->order[k];
        st->perm[k] = st->n_dead ? st->cell_tmp[src] : src;
    }
    pass_ctx sorted_pass = {st, PASS_SORTED, tmp, NULL, 0};
    run_pass(st, &sorted_pass, n);

    /* 3. count list entries (into the "old" start arrays, which become the new ones) */
    const gr_body_store *bodies = env->bodies;
    rebuild_ctx c = {st, tmp, n, skin, st->nb_start_old, st->bc_start_old, false};
    c.nb_count[0] = 0;
    c.bc_count[0] = 0;
    gr_parallel_for(env->tasks, n, REBUILD_BLOCK, lists_range, &c);
    for (uint32_t i = 0; i < n; i++) {
        c.nb_count[i + 1] += c.nb_count[i];
        c.bc_count[i + 1] += c.bc_count[i];
    }
    const uint32_t nb_total = c.nb_count[n], bc_total = c.bc_count[n];

    /* 4. everything that allocates, before the state changes */
    if (!dem_reserve_fixed_active(st) || !reserve_next_lists(st, nb_total, bc_total) ||
        (st->def->integrator == GR_INTEGRATOR_RKF45 && dem_rkf45_reserve(st, n, nb_total, bc_total) != GR_OK) ||
        !dem_reserve_slabs(st, (uint32_t)g->dims[0], bodies->slot_count)) /* the slabs last: they keep no contents */
        return GR_ERROR_OUT_OF_MEMORY;

    /* 5. fill the new lists (reading the old ones through perm), then permute the grains */
    c.fill = true;
    gr_parallel_for(env->tasks, n, REBUILD_BLOCK, lists_range, &c);
    /* the sorted records are in the scratch buffer, which permute_array reuses: keep a copy in
     * the position array first (it is the first array permuted) */
    permute_all(st, n, tmp);
    st->n = n;
    st->n_dead = 0;
    dem_compact_clumps(st);
    dem_sort_clumps(st);

    /* 6. the new lists become current */
    { uint32_t *t = st->nb_start; st->nb_start = st->nb_start_old; st->nb_start_old = t; }
    { uint32_t *t = st->nb_j; st->nb_j = st->nb_j_old; st->nb_j_old = t; }
    { gr_vec3 *t = st->nb_hist; st->nb_hist = st->nb_hist_old; st->nb_hist_old = t; }
    { gr_vec3 *t = st->nb_roll; st->nb_roll = st->nb_roll_old; st->nb_roll_old = t; }
    { uint32_t t = st->nb_cap; st->nb_cap = st->nb_old_cap; st->nb_old_cap = t; }
    { uint32_t *t = st->bc_start; st->bc_start = st->bc_start_old; st->bc_start_old = t; }
    { uint32_t *t = st->bc_id; st->bc_id = st->bc_id_old; st->bc_id_old = t; }
    { gr_vec3 *t = st->bc_hist; st->bc_hist = st->bc_hist_old; st->bc_hist_old = t; }
    { gr_vec3 *t = st->bc_roll; st->bc_roll = st->bc_roll_old; st->bc_roll_old = t; }
    { uint32_t t = st->bc_cap; st->bc_cap = st->bc_old_cap; st->bc_old_cap = t; }
    st->nb_count = nb_total;
    st->bc_count = bc_total;
    st->n_built = n;
    dem_update_fixed_active(st);

    /* 7. slabs: one per cell layer along the major axis */
    const uint32_t layer = (uint32_t)g->dims[1] * (uint32_t)g->dims[2];
    st->nslabs = (uint32_t)g->dims[0];
    for (uint32_t s = 0; s < st->nslabs; s++)
        st->slab_start[s] = g->cell_start[s * layer];
    st->slab_start[st->nslabs] = n;

    /* 8. displacement references */
    pass_ctx xref_pass = {st, PASS_XREF, NULL, NULL, 0};
    run_pass(st, &xref_pass, n);
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        const gr_body_data *b = &bodies->data[bs];
        st->body_bound[bs] = 0;
        double reach = gr_body_bound_radius(b);
        if (!isfinite(reach)) {
            /* an unbounded shape (plane) turning about its position sweeps the grains up to
             * the farthest corner of their bounding box */
            reach = 0;
            for (int corner = 0; corner < 8; corner++) {
                gr_vec3 c = v3(corner & 1 ? g->hi.x : g->lo.x, corner & 2 ? g->hi.y : g->lo.y,
                               corner & 4 ? g->hi.z : g->lo.z);
                reach = GR_MAX(reach, v3_len(v3_sub(c, b->position)));
            }
        }
        st->body_reach[bs] = reach + skin;
    }
    dem_update_uniform_material(st);
    if (!(st->def->skin > 0))
        st->skin_auto = skin;
    st->skin = skin;
    st->r_max = r_max;
    st->need_rebuild = false;
    st->bodies_revision = bodies->revision;
    st->rebuilds++;
    st->substeps_since_rebuild = 0;
    return GR_OK;
}
