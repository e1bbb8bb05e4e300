/* SPDX-License-Identifier: MIT */
/* PBD storage: the particle arrays (grow, compact, free), the movable list, the material pair
 * table and the warm-start records. The bottom of the solver's files: it calls none of them. */
#include <math.h>

#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_store.h"

#define PARTICLE_ARRAYS(st)                                                                                       \
    {(void **)&(st)->x, sizeof(gr_vec3)}, {(void **)&(st)->xp, sizeof(gr_vec3)},                                  \
        {(void **)&(st)->v, sizeof(gr_vec3)}, {(void **)&(st)->f, sizeof(gr_vec3)},                               \
        {(void **)&(st)->rest, sizeof(gr_vec3)}, {(void **)&(st)->calm, sizeof(double)},                          \
        {(void **)&(st)->stir, sizeof(uint8_t)},                                                                  \
        {(void **)&(st)->r, sizeof(double)}, {(void **)&(st)->inv_m, sizeof(double)},                             \
        {(void **)&(st)->mat, sizeof(uint32_t)},                                                                  \
        {(void **)&(st)->owner, sizeof(uint32_t)}, {(void **)&(st)->slot, sizeof(uint32_t)},                      \
        {(void **)&(st)->flag, sizeof(uint32_t)}, {(void **)&(st)->vnear, sizeof(double)},                        \
        {(void **)&(st)->sampled, sizeof(uint8_t)}, {(void **)&(st)->trap_slot, sizeof(uint32_t)},                \
        {(void **)&(st)->trap_normal, sizeof(gr_vec3)}, {(void **)&(st)->trap_at, sizeof(gr_vec3)},               \
        {(void **)&(st)->trap_depth, sizeof(double)}, {(void **)&(st)->touch, sizeof(uint32_t)},                  \
        {(void **)&(st)->trap_free, sizeof(uint32_t)},                                                            \
        /* per substep, packed (pbd_lists.c) */                                                                   \
        {(void **)&(st)->perm, sizeof(uint32_t)}, {(void **)&(st)->pos_of, sizeof(uint32_t)},                     \
        {(void **)&(st)->pk, sizeof(pbd_pk)}, {(void **)&(st)->pk_fx, sizeof(float)},                             \
        {(void **)&(st)->pk_fy, sizeof(float)}, {(void **)&(st)->pk_fz, sizeof(float)},                           \
        {(void **)&(st)->pk_fr, sizeof(float)},                                                                   \
        {(void **)&(st)->pk_tmp, sizeof(gr_vec3)}, {(void **)&(st)->hot, sizeof(pbd_hot)},                        \
        {(void **)&(st)->stage_hot, sizeof(pbd_hot)}, {(void **)&(st)->stage_x, sizeof(gr_vec3)},                 \
        {(void **)&(st)->pk_touch, sizeof(uint32_t)}, {(void **)&(st)->pk_touch_next, sizeof(uint32_t)},          \
        {(void **)&(st)->pf_start, sizeof(uint32_t)}, {(void **)&(st)->pf_end, sizeof(uint32_t)},                 \
        {(void **)&(st)->fc_start, sizeof(uint32_t)}, {(void **)&(st)->fc_end, sizeof(uint32_t)},                 \
        {(void **)&(st)->fx_j, sizeof(uint32_t)}, {(void **)&(st)->fx_xyzr, 4 * sizeof(double)},                  \
        {(void **)&(st)->fx_fx, sizeof(float)}, {(void **)&(st)->fx_fy, sizeof(float)},                           \
        {(void **)&(st)->fx_fz, sizeof(float)}, {(void **)&(st)->fx_fr, sizeof(float)},                           \
        {(void **)&(st)->rank, sizeof(uint32_t)}, {(void **)&(st)->pk_flag, sizeof(uint8_t)},                      \
        {(void **)&(st)->ex_acc, sizeof(pbd_exact_acc)}, {(void **)&(st)->tr_an, sizeof(double)},                 \
        {(void **)&(st)->tr_at, sizeof(gr_vec3)}, {(void **)&(st)->ws_start, sizeof(uint32_t)},                    \
        {(void **)&(st)->ws_end, sizeof(uint32_t)}, {(void **)&(st)->wn_start, sizeof(uint32_t)},                 \
        {(void **)&(st)->wn_count, sizeof(uint32_t)},                                                               \
        {(void **)&(st)->pk_live, sizeof(uint32_t)},                                                             \
        {(void **)&(st)->fx_now, sizeof(gr_vec3)}, {(void **)&(st)->fx_slot, sizeof(uint32_t)},                   \
        {(void **)&(st)->fx_mat, sizeof(uint32_t)}, {(void **)&(st)->mov, sizeof(uint32_t)},                       \
    {                                                                                                             \
        (void **)&(st)->deep, sizeof(uint8_t)                                                                     \
    }

gr_status pbd_reserve_particles(pbd_state *st, uint32_t need)
{
    if (need <= st->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->cap, need);
    const gr_array_ref arrays[] = {PARTICLE_ARRAYS(st)};
    /* the incidence heads have cap + 1 entries: grow them first (all or nothing) */
    uint32_t *inc = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * ((size_t)cap + 1));
    if (!inc || !gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->cap, cap, st->n)) {
        gr_mem_free(st->mem, inc, sizeof(uint32_t) * ((size_t)cap + 1));
        return GR_ERROR_OUT_OF_MEMORY;
    }
    if (st->cap)
        gr_mem_free(st->mem, st->inc_start, sizeof(uint32_t) * ((size_t)st->cap + 1));
    memset(inc, 0, sizeof(uint32_t) * ((size_t)cap + 1));
    st->inc_start = inc;
    st->cap = cap;
    return GR_OK;
}

void pbd_free_particles(pbd_state *st)
{
    const gr_array_ref arrays[] = {PARTICLE_ARRAYS(st)};
    gr_mem_free_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->cap);
    if (st->cap)
        gr_mem_free(st->mem, st->inc_start, sizeof(uint32_t) * ((size_t)st->cap + 1));
}

/* Friction coefficients of every material pair (static, kinetic), refreshed when the
 * materials change. */
gr_status pbd_update_materials(pbd_state *st)
{
    const gr_materials *m = st->env.materials;
    if (st->mat_revision == m->revision && st->pair_dim == m->count)
        return GR_OK;
    const uint32_t dim = m->count;
    double *mu = st->mu;
    if (dim != st->pair_dim) {
        mu = (double *)gr_mem_alloc(st->mem, sizeof(double) * 2 * dim * dim);
        if (!mu)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->mu, sizeof(double) * 2 * st->pair_dim * st->pair_dim);
    }
    for (uint32_t a = 0; a < dim; a++) {
        for (uint32_t b = 0; b < dim; b++) {
            gr_pair_coeffs c;
            gr_materials_pair(m, a, b, &c);
            mu[2 * ((size_t)a * dim + b)] = c.static_friction;
            mu[2 * ((size_t)a * dim + b) + 1] = GR_MIN(c.kinetic_friction, c.static_friction);
        }
    }
    st->mu = mu;
    st->pair_dim = dim;
    st->mat_revision = m->revision;
    return GR_OK;
}

void pbd_refresh_movable(pbd_state *st)
{
    if (!st->mov_dirty)
        return;
    uint32_t m = 0;
    st->r_mov_max = st->r_fix_max = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        st->pos_of[i] = GR_INVALID_INDEX;
        if (st->inv_m[i] == 0.0) {
            st->r_fix_max = GR_MAX(st->r_fix_max, st->r[i]);
        } else {
            st->r_mov_max = GR_MAX(st->r_mov_max, st->r[i]);
            st->mov[m++] = i;
        }
    }
    st->n_mov = m;
    st->mov_dirty = false;
}

/* Drop dead grains, keeping the order (so a body's particles stay contiguous), and renumber. */
void pbd_compact(pbd_state *st)
{
    if (!st->n_dead)
        return;
    uint32_t out = 0;
    /* old index -> new, for the warm start (pos_of is free here: rebuilt, mov_dirty below) */
    uint32_t *map = st->pos_of;
    for (uint32_t i = 0; i < st->n; i++) {
        const bool dead = st->owner[i] == GR_INVALID_INDEX && st->slot[i] == GR_INVALID_INDEX;
        map[i] = dead ? GR_INVALID_INDEX : out;
        if (dead)
            continue;
        if (out != i) {
            st->x[out] = st->x[i];
            st->xp[out] = st->xp[i];
            st->v[out] = st->v[i];
            st->f[out] = st->f[i];
            st->rest[out] = st->rest[i];
            st->calm[out] = st->calm[i];
            st->stir[out] = st->stir[i];
            st->r[out] = st->r[i];
            st->inv_m[out] = st->inv_m[i];
            st->mat[out] = st->mat[i];
            st->owner[out] = st->owner[i];
            st->slot[out] = st->slot[i];
            st->touch[out] = st->touch[i];
            st->sampled[out] = st->sampled[i];
        }
        if (st->owner[out] == GR_INVALID_INDEX)
            st->env.grains->dense[st->slot[out]] = out;
        out++;
    }
    /* bodies keep their particles contiguous: the first of each is the smallest new index */
    for (uint32_t b = 0; b < st->nb; b++)
        st->bodies[b].first = UINT32_MAX;
    for (uint32_t i = 0; i < out; i++) {
        const uint32_t o = st->owner[i];
        if (o != GR_INVALID_INDEX && st->bodies[o].first == UINT32_MAX)
            st->bodies[o].first = i;
    }
    pbd_warm_start_renumber(st, map, st->n);
    st->n = out;
    st->n_dead = 0;
    st->fixed_dirty = true; /* fixed particles may have been renumbered */
    st->mov_dirty = true;
}

/* Room for `pairs` warm-start records, old and new (the old ones kept). */
gr_status pbd_reserve_warm_start(pbd_state *st, uint32_t pairs)
{
    if (pairs > st->ws_cap) {
        /* the new records: the old ones are read while these are written */
        const uint32_t cap = gr_grow_capacity(st->ws_cap, pairs);
        const gr_array_ref arrays[] = {{(void **)&st->wn_other, sizeof(uint32_t)},
                                       {(void **)&st->wn_ln, sizeof(double)},
                                       {(void **)&st->wn_lt, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->ws_cap, cap, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        const gr_array_ref old[] = {{(void **)&st->ws_other, sizeof(uint32_t)},
                                    {(void **)&st->ws_ln, sizeof(double)},
                                    {(void **)&st->ws_lt, sizeof(gr_vec3)}};
        if (!gr_mem_grow_arrays(st->mem, old, GR_COUNTOF(old), st->ws_cap, cap, st->ws_count)) {
            /* (the new arrays stay larger: harmless, freed with the rest) */
            const gr_array_ref back[] = {{(void **)&st->wn_other, sizeof(uint32_t)},
                                         {(void **)&st->wn_ln, sizeof(double)},
                                         {(void **)&st->wn_lt, sizeof(gr_vec3)}};
            gr_mem_free_arrays(st->mem, back, GR_COUNTOF(back), cap);
            const gr_array_ref again[] = {{(void **)&st->wn_other, sizeof(uint32_t)},
                                          {(void **)&st->wn_ln, sizeof(double)},
                                          {(void **)&st->wn_lt, sizeof(gr_vec3)}};
            if (!gr_mem_grow_arrays(st->mem, again, GR_COUNTOF(again), 0, st->ws_cap, 0))
                st->ws_cap = 0, st->ws_count = 0, st->ws_n = 0; /* (cannot happen: smaller) */
            return GR_ERROR_OUT_OF_MEMORY;
        }
        st->ws_cap = cap;
    }
    return GR_OK;
}

void pbd_warm_start_renumber(pbd_state *st, const uint32_t *map, uint32_t n_old)
{
    if (!st->ws_n)
        return;
    uint32_t n_new = 0;
    for (uint32_t i = 0; i < n_old; i++) {
        const uint32_t j = map[i];
        if (j == GR_INVALID_INDEX)
            continue;
        /* (j <= i: the ranges move forward, each read before it is overwritten) */
        st->ws_start[j] = i < st->ws_n ? st->ws_start[i] : 0;
        st->ws_end[j] = i < st->ws_n ? st->ws_end[i] : 0;
        n_new = j + 1;
    }
    for (uint32_t e = 0; e < st->ws_count; e++) {
        const uint32_t o = st->ws_other[e];
        if (!(o & PBD_WS_EXACT)) {
            const uint32_t j = o & ~PBD_WS_HIT;
            st->ws_other[e] = j < n_old && map[j] != GR_INVALID_INDEX ? map[j] | (o & PBD_WS_HIT)
                                                                      : GR_INVALID_INDEX; /* (never matches: gone) */
        }
    }
    st->ws_n = n_new;
}
