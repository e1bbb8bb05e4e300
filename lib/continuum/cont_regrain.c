/* SPDX-License-Identifier: MIT */
#include "cont_regrain.h"

#include "../bodies/body_shapes.h"

#include <math.h>
#include <string.h>

#include "cont_bodies.h"
#include "cont_points.h"

enum { MARK_KEEP, MARK_SPLIT, MARK_WANTS_MERGE, MARK_MERGED };

#define PLAN_ARRAYS 5
static void plan_arrays(cont_state *st, gr_array_ref a[PLAN_ARRAYS])
{
    a[0] = (gr_array_ref){(void **)&st->plan_split, sizeof(uint32_t)};
    a[1] = (gr_array_ref){(void **)&st->plan_pairs, sizeof(uint32_t)};
    a[2] = (gr_array_ref){(void **)&st->plan_slots, sizeof(uint32_t)};
    a[3] = (gr_array_ref){(void **)&st->plan_removed, sizeof(uint32_t)};
    a[4] = (gr_array_ref){(void **)&st->plan_mark, sizeof(uint8_t)};
}

void cont_regrain_free(cont_state *st)
{
    gr_array_ref a[PLAN_ARRAYS];
    plan_arrays(st, a);
    gr_mem_free_arrays(st->mem, a, PLAN_ARRAYS, st->plan_cap);
    st->plan_cap = 0;
}

static cont_blob blob_of(const cont_state *st, uint32_t i)
{
    return (cont_blob){st->m[i], st->x[i], st->v[i], st->shape[i]};
}

/* The nearest particle in i's cell (cell_start / point_order of st->grid) of i's material and
 * not yet spoken for, with which i merges into a valid particle; GR_INVALID_INDEX if none. */
static uint32_t merge_partner(const cont_state *st, uint32_t i, uint32_t first, uint32_t end)
{
    const gr_sparse_grid *g = &st->grid;
    uint32_t best = GR_INVALID_INDEX;
    double best_d = INFINITY;
    const cont_blob bi = blob_of(st, i);
    for (uint32_t a = first; a < end; a++) {
        const uint32_t j = g->point_order[a];
        const uint8_t mark = st->plan_mark[j];
        if (j == i || (mark != MARK_KEEP && mark != MARK_WANTS_MERGE) || st->mat[j] != st->mat[i])
            continue;
        const double d = v3_len2(v3_sub(st->x[j], st->x[i]));
        if (!(d < best_d))
            continue;
        const cont_blob bj = blob_of(st, j);
        const cont_blob merged = cont_shape_merge(&bi, &bj);
        if (cont_shape_valid(merged.A, st->par.radius))
            best = j, best_d = d;
    }
    return best;
}

/* Is p inside a solid body? (A split child put there would be pushed out by the next step, and
 * a free body would take that push as an impulse out of nowhere: such a particle stays whole.) */
static bool in_a_body(const cont_state *st, gr_vec3 p)
{
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t a = 0; bs && a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->shape == GR_SHAPE_CONTAINER)
            continue; /* (thin plates: nothing is inside) */
        if (b->shape == GR_SHAPE_MESH ? gr_body_contains(b, p) : gr_body_distance(b, p) < 0)
            return true;
    }
    return false;
}

/* Is p within a cell of a body that moves with the sand (dynamic or host-owned)? Merging there
 * moves mass across the coupling's faces between two steps: a box resting in sand took that as
 * a kick (one frame's energy rose by 5.6 % of its drop's, 1.0 % without merges near it). */
static bool near_a_free_body(const cont_state *st, gr_vec3 p)
{
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t a = 0; bs && a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (cont_motion_is_free(b->motion) && gr_body_distance(b, p) < st->par.cell)
            return true;
    }
    return false;
}

/* Particles a cell keeps before merges thin it (the seed samples 2 per axis at r = h / 4). */
#define CONT_CELL_PARTICLES 8u

gr_status cont_regrain_plan(cont_state *st, uint32_t max_add, gr_regrain *plan)
{
    *plan = (gr_regrain){0};
    st->plan_splits = st->plan_merges = 0;
    const uint32_t n = st->n;
    if (n == 0 || !st->par.split_merge)
        return GR_OK;
    if (n > st->plan_cap) {
        const uint32_t cap = gr_grow_capacity(st->plan_cap, n);
        gr_array_ref a[PLAN_ARRAYS];
        plan_arrays(st, a);
        if (!gr_mem_grow_arrays(st->mem, a, PLAN_ARRAYS, st->plan_cap, cap, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        st->plan_cap = cap;
    }
    const double r = st->par.radius, lo = r * 0.70710678118654752, hi = r * 1.4142135623730951;
    uint32_t splits = 0, wanting = 0;
    for (uint32_t i = 0; i < n; i++) {
        st->plan_mark[i] = MARK_KEEP;
        if (!v3_finite(st->x[i]))
            continue;
        double length[3], axes[3][3];
        cont_shape_axes(st->shape[i], length, axes);
        if (length[0] >= lo && length[2] <= hi)
            continue; /* valid */
        cont_blob p = blob_of(st, i), a, b;
        if (length[2] > hi && length[2] < st->par.cell && splits < max_add && cont_shape_split(&p, r, &a, &b) &&
            !in_a_body(st, a.x) && !in_a_body(st, b.x)) { /* (children within a cell of it) */
            st->plan_split[splits++] = i;
            st->plan_mark[i] = MARK_SPLIT;
        } else {
            st->plan_mark[i] = MARK_WANTS_MERGE;
            wanting++;
        }
    }
    uint32_t merges = 0;
    if (wanting) {
        /* the particles by cell, on the step's grid (scratch between steps: rebuilt by the next) */
        gr_sparse_grid *g = &st->grid;
        if (!gr_sparse_grid_build(g, st->mem, (const double *)st->x, 3, n, st->par.cell, (gr_vec3){0, 0, 0}, 0) ||
            !gr_sparse_grid_sort_points(g, st->mem))
            return GR_ERROR_OUT_OF_MEMORY;
        const uint32_t cells = gr_sparse_grid_cells(g);
        for (uint32_t c = 0; c < cells; c++) {
            /* only a cell holding more than the seed's sampling (8 at r = h / 4) loses particles:
             * else the flattening of settling sand would merge a bed down to a few a cell, and
             * the grid, seeing fewer particles, turns noisier (a box resting on such a bed kept
             * rocking at 6 cm/s) */
            const uint32_t held = g->cell_start[c + 1] - g->cell_start[c];
            uint32_t allowed = held > CONT_CELL_PARTICLES ? held - CONT_CELL_PARTICLES : 0;
            for (uint32_t a = g->cell_start[c]; a < g->cell_start[c + 1] && allowed; a++) {
                const uint32_t i = g->point_order[a];
                if (st->plan_mark[i] != MARK_WANTS_MERGE || near_a_free_body(st, st->x[i]))
                    continue;
                const uint32_t j = merge_partner(st, i, g->cell_start[c], g->cell_start[c + 1]);
                if (j == GR_INVALID_INDEX)
                    continue;
                st->plan_mark[i] = st->plan_mark[j] = MARK_MERGED;
                st->plan_pairs[2 * merges] = i < j ? i : j;
                st->plan_pairs[2 * merges + 1] = i < j ? j : i;
                merges++;
                allowed--;
            }
        }
    }
    if (cont_reserve_particles(st, n + splits) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    st->plan_splits = splits;
    st->plan_merges = merges;
    *plan = (gr_regrain){splits, merges, st->plan_slots, st->plan_removed};
    return GR_OK;
}

void cont_regrain_apply(cont_state *st, gr_regrain *plan)
{
    const double r = st->par.radius;
    const double shrink = 0.79370052598409973738; /* 2^(-1/3): half the solid volume */
    for (uint32_t k = 0; k < st->plan_splits; k++) {
        const uint32_t i = st->plan_split[k], j = st->n++;
        const cont_blob p = blob_of(st, i);
        cont_blob a = p, b = p;
        (void)cont_shape_split(&p, r, &a, &b); /* (true: the plan asked the same question) */
        cont_copy_particle(st, j, i); /* (j holds the parent's points meanwhile) */
        st->x[i] = a.x, st->shape[i] = a.A;
        st->x[j] = b.x, st->shape[j] = b.A;
        st->radius[i] = st->radius[j] = st->radius[i] * shrink;
        cont_particle_material(st, i);
        cont_particle_material(st, j);
        st->slot[j] = plan->slots[k];
        st->env.grains->dense[st->slot[j]] = j;
        if (st->par.points) {
            gr_vec3 old[CONT_MAX_POINTS];
            memcpy(old, st->pts + (size_t)st->par.points * j, sizeof(gr_vec3) * st->par.points);
            cont_points_split(st, i, j, p.x, v3_sub(b.x, a.x), old);
        }
    }
    for (uint32_t k = 0; k < st->plan_merges; k++) {
        const uint32_t i = st->plan_pairs[2 * k], j = st->plan_pairs[2 * k + 1];
        const cont_blob bi = blob_of(st, i), bj = blob_of(st, j);
        const cont_blob m = cont_shape_merge(&bi, &bj);
        const double ri = st->radius[i], rj = st->radius[j];
        gr_vec3 old[CONT_MAX_POINTS];
        if (st->par.points)
            memcpy(old, st->pts + (size_t)st->par.points * i, sizeof(gr_vec3) * st->par.points);
        st->x[i] = m.x, st->v[i] = m.v, st->shape[i] = m.A;
        if (st->par.points)
            cont_points_merge(st, i, old, bi.x, j);
        st->radius[i] = cbrt(ri * ri * ri + rj * rj * rj);
        cont_particle_material(st, i);
        plan->removed[k] = st->slot[j];
        st->slot[j] = GR_INVALID_INDEX;
    }
    if (st->plan_merges)
        cont_compact_particles(st);
    st->splits += st->plan_splits;
    st->merges += st->plan_merges;
    st->plan_splits = st->plan_merges = 0;
}
