/* SPDX-License-Identifier: MIT */
/* A terrain with a particle system (DEM or PBD), after every step of the world
 * (docs/terrain.md "Hybrid"):
 *   1. every grain of the particle system is read once: its top is noted over the columns
 *      it covers, and a sphere that has rested on the surface for rest_steps steps is taken
 *      into the columns (removed from the particle system, its volume / packing added);
 *      a grain striking the surface faster than disturb_speed loosens a layer of the column it
 *      strikes (one grain diameter) into sand to release;
 *   2. what moving bodies displaced in the step becomes grains of the particle system, whole
 *      grains per column on a jittered lattice above what is there, with the body's velocity;
 *      the remainder stays as height;
 *   3. in debug mode, the volume invariant (columns x packing + grains) is checked.
 * A heightfield-only terrain (hybrid 0) does none of this. On out of memory nothing is lost or
 * doubled: what could not be released stays as height. */
#include "couple_terrain.h"

#include <math.h>

#include "../core/handles.h"
#include "../terrain/terrain_hybrid.h"
#include "../terrain/terrain_internal.h"
#include "../terrain/terrain_press.h"
#include "../terrain/terrain_store.h"

enum { CHUNK = 128 };

/* Grain volume of the particle system's spheres (debug_volume). */
static double grain_volume(const gr_coupling_call *c, const gr_coupling_side *ps)
{
    const gr_grain_table *t = c->env->grains;
    double sum = 0, r[4];
    for (uint32_t k = 0; k < t->count; k++) {
        const uint32_t slot = t->list[k];
        if (!gr_grain_of(t, slot, ps->system))
            continue;
        const uint32_t d = t->dense[slot];
        ps->solver->read_field(ps->state, GR_FIELD_RADIUS, &d, 1, r);
        sum += 4.0 / 3.0 * 3.14159265358979323846 * r[0] * r[0] * r[0];
    }
    return sum;
}

static void absorb(const gr_coupling_call *c, terrain_state *st, const uint32_t *slots, const double *x, const double *r,
                   uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        terrain_absorb(st, v3(x[4 * k], x[4 * k + 1], x[4 * k + 2]), r[4 * k]);
    }
    c->ops->remove_grains(c->ops->world, slots, n);
}

/* Step 1 over the particle system's grains, from the end of the bulk list (a removal swaps the
 * last grain into the removed one's place, so the walk meets every grain once). */
static void rest_and_absorb(const gr_coupling_call *c, terrain_state *st, const gr_coupling_side *ps, bool spheres_only_dense_bit)
{
    const gr_grain_table *t = c->env->grains;
    uint32_t dense[CHUNK], slots[CHUNK], take[CHUNK];
    double x[4 * CHUNK], v[4 * CHUNK], r[4 * CHUNK], tx[4 * CHUNK], tr[4 * CHUNK];
    uint32_t k = t->count;
    while (k > 0) {
        uint32_t n = 0;
        while (k > 0 && n < CHUNK) {
            const uint32_t slot = t->list[--k];
            if (!gr_grain_of(t, slot, ps->system))
                continue;
            slots[n] = slot;
            dense[n++] = t->dense[slot];
        }
        if (!n)
            break;
        ps->solver->read_field(ps->state, GR_FIELD_POSITION, dense, n, x);
        ps->solver->read_field(ps->state, GR_FIELD_VELOCITY, dense, n, v);
        ps->solver->read_field(ps->state, GR_FIELD_RADIUS, dense, n, r);
        uint32_t m = 0;
        for (uint32_t q = 0; q < n; q++) {
            const gr_vec3 p = v3(x[4 * q], x[4 * q + 1], x[4 * q + 2]);
            terrain_tops_note(st, p, r[4 * q]);
            if (!st->p.hybrid)
                continue;
            const bool sphere = !(spheres_only_dense_bit && (dense[q] & 0x80000000u));
            const double speed = sqrt(v[4 * q] * v[4 * q] + v[4 * q + 1] * v[4 * q + 1] + v[4 * q + 2] * v[4 * q + 2]);
            terrain_disturb(st, p, r[4 * q], speed, c->dt); /* a grain striking the surface */
            uint32_t *rest = &st->rest[slots[q]];
            const uint32_t gen = (uint32_t)t->gen[slots[q]] << 16;
            if ((*rest & 0xffff0000u) != gen)
                *rest = gen; /* the slot's grain is another than the one counted */
            if (sphere && speed < st->p.rest_speed && terrain_supports(st, p, r[4 * q]))
                *rest = (*rest & 0xffffu) < 0xffffu ? *rest + 1 : *rest;
            else
                *rest = gen;
            if ((*rest & 0xffffu) >= st->p.rest_steps) {
                take[m] = slots[q];
                for (int e = 0; e < 4; e++)
                    tx[4 * m + e] = x[4 * q + e], tr[4 * m + e] = r[4 * q + e];
                m++;
            }
        }
        if (m)
            absorb(c, st, take, tx, tr, m);
    }
}

/* Step 2: the pending columns' grains, a chunk at a time. */
static gr_status release(const gr_coupling_call *c, terrain_state *st, const gr_coupling_side *ps)
{
    gr_grain_init g[CHUNK];
    gr_status s = GR_OK;
    for (uint32_t q = 0; q < st->pending_count; q++) {
        const uint32_t col = st->pending_list[q];
        while (s == GR_OK && st->pending[col] > 0) {
            const uint32_t n = terrain_release_column(st, col, g, CHUNK);
            if (!n)
                break;
            s = c->ops->add_grains(c->ops->world, ps->system, g, n);
            if (s != GR_OK)
                terrain_unrelease(st, col, n);
        }
        if (st->pending[col] > 0) { /* after a failure: the rest stays as height */
            st->field.h[col] += st->pending[col] / st->p.area;
            st->pending[col] = 0;
            terrain_mark_column(st, col);
        }
    }
    st->pending_count = 0;
    return s;
}

static gr_status exchange(const gr_coupling_call *c, const gr_coupling_side *terrain, const gr_coupling_side *ps,
                          bool dem)
{
    terrain_state *st = (terrain_state *)terrain->state;
    if (!terrain_store_reserve_rest(st, c->env->grains->slot_count)) {
        terrain_settle_pending(st);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    terrain_tops_clear(st);
    if (c->env->grains->count != st->grains_seen)
        st->volume_ref = NAN; /* grains came or went other than through the terrain: a new reference */
    rest_and_absorb(c, st, ps, dem);
    const gr_status s = release(c, st, ps);
    terrain_tops_clear(st);
    st->grains_seen = c->env->grains->count;
    if (st->p.debug_volume) {
        const double now = st->p.packing * terrain_bulk_volume(st) + grain_volume(c, ps) +
                           st->p.packing * st->compressed;
        if (isnan(st->volume_ref))
            st->volume_ref = now;
        else if (fabs(now - st->volume_ref) > 1e-9 * (fabs(st->volume_ref) + 1e-12))
            return s != GR_OK ? s : GR_ERROR_INVARIANT;
    }
    return s;
}

static gr_status terrain_dem_exchange(const gr_coupling_call *c) { return exchange(c, &c->a, &c->b, true); }
static gr_status terrain_pbd_exchange(const gr_coupling_call *c) { return exchange(c, &c->a, &c->b, false); }

const gr_coupling_vtable gr_terrain_dem_coupling = {
    .name = "terrain-dem",
    .a = GR_SOLVER_TERRAIN,
    .b = GR_SOLVER_DEM,
    .exchange = terrain_dem_exchange,
};

const gr_coupling_vtable gr_terrain_pbd_coupling = {
    .name = "terrain-pbd",
    .a = GR_SOLVER_TERRAIN,
    .b = GR_SOLVER_PBD,
    .exchange = terrain_pbd_exchange,
};
