/* SPDX-License-Identifier: MIT */
/* Neighbour lists of the PBD solver, built once per substep on the predicted positions with a
 * collision margin and then fixed for all iterations (Macklin 2014, sec. 5; docs/pbd.md):
 * particle pairs within r_i + r_j + margin (both directions: each particle gathers),
 * and the list of exact (primitive) bodies with their bounding radii.
 * Lists are compressed rows (start offsets + entries), counted then filled, so their order is
 * the grid's scan order: deterministic for any worker count. */
#include <math.h>

#include "../bodies/body_store.h"
#include "../geom/vec3.h"
#include "pbd_internal.h"

void pbd_free_lists(pbd_state *st)
{
    gr_mem_free(st->mem, st->nb_j, sizeof(uint32_t) * st->nb_cap);
    gr_mem_free(st->mem, st->exact, sizeof(uint32_t) * st->exact_cap);
    gr_mem_free(st->mem, st->exact_bound, sizeof(double) * st->exact_cap);
    gr_mem_free(st->mem, st->blk_base, sizeof(uint32_t) * ((size_t)st->blk_n + 1));
    gr_mem_free(st->mem, st->blk_used, sizeof(uint32_t) * ((size_t)st->blk_n + 1));
    st->nb_j = st->exact = NULL;
    st->blk_base = st->blk_used = NULL;
    st->exact_bound = NULL;
    st->nb_cap = st->exact_cap = st->blk_n = 0;
}

typedef struct list_ctx {
    pbd_state *st;
    double margin;  ///< particle pairs
    double h;       ///< substep (kinematic bodies' motion)
} list_ctx;

static bool fixed_particle(const pbd_state *st, uint32_t i) { return st->inv_m[i] == 0.0; }

/* One pass: each block of particles writes its lists into its own region of nb_j (sized from
 * the last build); a block that needs more records how much, and the build runs again. */
static void pairs_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const list_ctx *c = (const list_ctx *)vctx;
    pbd_state *st = c->st;
    const gr_cell_grid *g = &st->grid;
    uint32_t at = 0, limit = 0;
    /* ranges come in whole blocks (gr_parallel_for with PBD_BLOCK) */
    for (uint32_t i = begin; i < end; i++) {
        if (i == begin || i % PBD_BLOCK == 0) {
            const uint32_t b = i / PBD_BLOCK;
            if (i != begin)
                st->blk_used[b - 1] = at - st->blk_base[b - 1];
            at = st->blk_base[b];
            limit = st->blk_base[b + 1];
        }
        st->nb_start[i] = at;
        if (fixed_particle(st, i)) {
            st->nb_end[i] = st->nb_mid[i] = at; /* fixed particles gather nothing */
            continue;
        }
        const gr_vec3 pi = st->xp[i];
        const uint32_t own = st->owner[i];
        /* the cells within the farthest reach (cells of half of it: 0.58 of a 3x3x3 block) */
        uint32_t rb[GR_CELL_GRID_REACH_ROWS], re[GR_CELL_GRID_REACH_ROWS];
        const uint32_t rows = gr_cell_grid_reach_rows(g, pi, st->r[i] + st->r_max + c->margin, rb, re);
        for (uint32_t row = 0; row < rows; row++) {
            for (uint32_t s = rb[row]; s < re[row]; s++) {
                const uint32_t j = g->order[s];
                if (j == i || (own != GR_INVALID_INDEX && st->owner[j] == own))
                    continue;
                const double reach = st->r[i] + st->r[j] + c->margin;
                if (v3_len2(v3_sub(pi, st->xp[j])) >= reach * reach)
                    continue;
                if (at < limit)
                    st->nb_j[at] = j;
                at++;
            }
        }
        st->nb_end[i] = at;
        if (at > limit)
            continue; /* the block runs again with a larger region */
        /* movable neighbours first, in scan order (the sweeps average them, then project onto
         * the fixed ones) */
        uint32_t mid = st->nb_start[i];
        for (uint32_t k = mid; k < at; k++) {
            const uint32_t j = st->nb_j[k];
            if (fixed_particle(st, j))
                continue;
            st->nb_j[k] = st->nb_j[mid];
            st->nb_j[mid++] = j;
        }
        st->nb_mid[i] = mid;
        /* inside a particle-covered body? (its particles are in the list: test each body once) */
        st->trap_slot[i] = GR_INVALID_INDEX;
        uint32_t last = GR_INVALID_INDEX;
        for (uint32_t k = st->nb_start[i]; k < at; k++) {
            const uint32_t o = st->owner[st->nb_j[k]];
            if (o == GR_INVALID_INDEX || o == own || o == last)
                continue;
            last = o;
            const gr_body_data *b = &st->world->bodies.data[st->bodies[o].slot];
            if (!gr_body_contains(b, pi))
                continue; /* the common case, without the exact O(triangles) distance */
            gr_vec3 nrm, pt;
            const double d = gr_body_feature_distance(b, 0, pi, &nrm, &pt);
            if (d < 0) {
                st->trap_slot[i] = st->bodies[o].slot;
                st->trap_normal[i] = nrm;
                st->trap_at[i] = pi;
                st->trap_depth[i] = -d;
                break;
            }
        }
    }
    if (end > begin) {
        const uint32_t b = (end - 1) / PBD_BLOCK;
        st->blk_used[b] = at - st->blk_base[b];
    }
}

static bool grow_u32(gr_mem *mem, uint32_t **a, uint32_t *cap, uint64_t need)
{
    if (need <= *cap)
        return true;
    if (need > UINT32_MAX)
        return false;
    const uint32_t nc = gr_grow_capacity(*cap, (uint32_t)need);
    uint32_t *p = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * nc);
    if (!p)
        return false;
    gr_mem_free(mem, *a, sizeof(uint32_t) * *cap);
    *a = p;
    *cap = nc;
    return true;
}

/* Block regions: each block's room is what it used last time (or asked for, after an
 * overflow) plus a quarter, at least 16 per particle. Grows the arrays only; false when out
 * of memory. */
static bool size_regions(pbd_state *st, uint32_t n)
{
    const uint32_t nblk = (n + PBD_BLOCK - 1) / PBD_BLOCK;
    if (!st->blk_base || nblk > st->blk_n) {
        const uint32_t cap = gr_grow_capacity(st->blk_n, nblk + 1);
        uint32_t *base = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * ((size_t)cap + 1));
        uint32_t *used = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * ((size_t)cap + 1));
        if (!base || !used) {
            gr_mem_free(st->mem, base, sizeof(uint32_t) * ((size_t)cap + 1));
            gr_mem_free(st->mem, used, sizeof(uint32_t) * ((size_t)cap + 1));
            return false;
        }
        memset(used, 0, sizeof(uint32_t) * ((size_t)cap + 1));
        if (st->blk_base) {
            memcpy(used, st->blk_used, sizeof(uint32_t) * ((size_t)st->blk_n + 1));
            gr_mem_free(st->mem, st->blk_base, sizeof(uint32_t) * ((size_t)st->blk_n + 1));
            gr_mem_free(st->mem, st->blk_used, sizeof(uint32_t) * ((size_t)st->blk_n + 1));
        }
        st->blk_base = base;
        st->blk_used = used;
        st->blk_n = cap;
    }
    uint64_t total = 0;
    for (uint32_t b = 0; b < nblk; b++) {
        const uint32_t members = GR_MIN(PBD_BLOCK, n - b * PBD_BLOCK);
        const uint64_t room = (uint64_t)st->blk_used[b] + st->blk_used[b] / 4;
        st->blk_base[b] = (uint32_t)GR_MIN(total, (uint64_t)UINT32_MAX);
        total += GR_MAX(room, 16u * (uint64_t)members);
    }
    st->blk_base[nblk] = (uint32_t)GR_MIN(total, (uint64_t)UINT32_MAX);
    return total <= UINT32_MAX && grow_u32(st->mem, &st->nb_j, &st->nb_cap, GR_MAX(total, 1u));
}

gr_status pbd_build_lists(pbd_state *st, double h)
{
    gr_world *world = st->world;
    const uint32_t n = st->n;
    /* exact bodies: every live body without particles */
    const gr_body_store *bs = &world->bodies;
    if (bs->count > st->exact_cap) {
        const uint32_t cap = gr_grow_capacity(st->exact_cap, bs->count);
        uint32_t *e = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
        double *eb = (double *)gr_mem_alloc(st->mem, sizeof(double) * cap);
        if (!e || !eb) {
            gr_mem_free(st->mem, e, sizeof(uint32_t) * cap);
            gr_mem_free(st->mem, eb, sizeof(double) * cap);
            return GR_ERROR_OUT_OF_MEMORY;
        }
        gr_mem_free(st->mem, st->exact, sizeof(uint32_t) * st->exact_cap);
        gr_mem_free(st->mem, st->exact_bound, sizeof(double) * st->exact_cap);
        st->exact = e;
        st->exact_bound = eb;
        st->exact_cap = cap;
    }
    st->exact_count = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->particles)
            continue;
        st->exact_bound[st->exact_count] = gr_body_bound_radius(b);
        st->exact[st->exact_count++] = bs->active[a];
    }

    const double margin = st->par.margin_fraction * st->r_max;
    const double cell = 0.5 * (2.0 * st->r_max + margin);
    if (n && !gr_cell_grid_build(&st->grid, st->mem, (const double *)st->xp, 3, n, cell, GR_MAX(16u * n, 64u)))
        return GR_ERROR_OUT_OF_MEMORY;
    list_ctx c = {st, margin, h};
    gr_tasks *tasks = &world->tasks;
    const uint32_t nblk = (n + PBD_BLOCK - 1) / PBD_BLOCK;
    /* one pass in the steady state; a block that outgrew its region asks for another */
    while (n) {
        if (!size_regions(st, n))
            return GR_ERROR_OUT_OF_MEMORY;
        gr_parallel_for(tasks, n, PBD_BLOCK, pairs_range, &c);
        bool fits = true;
        for (uint32_t b = 0; b < nblk; b++)
            fits &= st->blk_base[b] + st->blk_used[b] <= st->blk_base[b + 1];
        if (fits)
            break;
    }
    st->rebuilds++;
    return GR_OK;
}
