/* SPDX-License-Identifier: MIT */
/* Bodies in the PBD solver (Sommer & Schwanecke sec. 3; docs/pbd.md): their records.
 *   - static and kinematic primitives (planes, boxes, spheres, capsules, containers) are exact
 *     surfaces (pbd_lists.c, pbd_solve.c);
 *   - meshes, dynamic and host-owned bodies are covered by surface particles (body_cover.c).
 *     Static and kinematic ones have infinite mass: their particles are placed from the pose
 *     every substep. Dynamic and host-owned ones are rigid bodies whose particles are placed
 *     from the pose the solve gives them (pbd_rigid.c). */
#include <math.h>

#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_bodies.h"
#include "pbd_store.h"

void pbd_free_bodies(pbd_state *st)
{
    gr_mem_free(st->mem, st->bodies, sizeof(pbd_body) * st->b_cap);
    gr_mem_free(st->mem, st->body_of_slot, sizeof(uint32_t) * st->b_slot_cap);
    gr_mem_free(st->mem, st->body_imp, sizeof(gr_vec3) * 2 * (size_t)st->imp_slots);
    st->bodies = NULL;
    st->body_of_slot = NULL;
    st->body_imp = NULL;
    st->b_cap = st->b_slot_cap = st->imp_slots = 0;
}

static gr_status reserve_slot_map(pbd_state *st, uint32_t slots)
{
    if (slots <= st->b_slot_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->b_slot_cap, slots);
    uint32_t *a = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
    if (!a)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < cap; k++)
        a[k] = k < st->b_slot_cap ? st->body_of_slot[k] : GR_INVALID_INDEX;
    gr_mem_free(st->mem, st->body_of_slot, sizeof(uint32_t) * st->b_slot_cap);
    st->body_of_slot = a;
    st->b_slot_cap = cap;
    return GR_OK;
}

gr_status pbd_reserve_records(pbd_state *st, uint32_t need)
{
    if (need <= st->b_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->b_cap, need);
    pbd_body *a = (pbd_body *)gr_mem_alloc(st->mem, sizeof(pbd_body) * cap);
    if (!a)
        return GR_ERROR_OUT_OF_MEMORY;
    if (st->nb)
        memcpy(a, st->bodies, sizeof(pbd_body) * st->nb);
    gr_mem_free(st->mem, st->bodies, sizeof(pbd_body) * st->b_cap);
    st->bodies = a;
    st->b_cap = cap;
    return GR_OK;
}

/* Room for the impulse sums of every body slot. */
gr_status pbd_reserve_impulses(pbd_state *st)
{
    const uint32_t slots = GR_MAX(st->env.bodies->slot_count, 1u);
    if (slots <= st->imp_slots)
        return GR_OK;
    const uint32_t sc = gr_grow_capacity(st->imp_slots, slots);
    gr_vec3 *si = (gr_vec3 *)gr_mem_calloc(st->mem, sizeof(gr_vec3) * 2 * (size_t)sc);
    if (!si)
        return GR_ERROR_OUT_OF_MEMORY;
    if (st->imp_slots)
        memcpy(si, st->body_imp, sizeof(gr_vec3) * 2 * (size_t)st->imp_slots);
    gr_mem_free(st->mem, st->body_imp, sizeof(gr_vec3) * 2 * (size_t)st->imp_slots);
    st->body_imp = si;
    st->imp_slots = sc;
    return GR_OK;
}

static bool is_fixed(const gr_body_data *b) { return b->motion == GR_MOTION_STATIC || b->motion == GR_MOTION_KINEMATIC; }

void pbd_place_body(pbd_state *st, const pbd_body *pb, gr_vec3 *dst)
{
    const gr_body_data *b = &st->env.bodies->data[pb->slot];
    const gr_vec3 c = v3_add(b->position, quat_rotate(b->orientation, pb->centroid));
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
        dst[k] = v3_add(c, quat_rotate(b->orientation, st->rest[k]));
}

static void set_velocities(pbd_state *st, const pbd_body *pb)
{
    const gr_body_data *b = &st->env.bodies->data[pb->slot];
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
        st->v[k] = gr_body_point_velocity(b, st->x[k]);
}

gr_status pbd_body_added(void *state, uint32_t slot)
{
    pbd_state *st = (pbd_state *)state;
    const gr_body_data *b = &st->env.bodies->data[slot];
    if (!b->particles)
        return GR_OK; /* an exact surface */
    const uint32_t count = b->particle_count;
    if ((uint64_t)st->n + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    gr_status s = reserve_slot_map(st, slot + 1);
    if (s == GR_OK)
        s = pbd_reserve_records(st, st->nb + 1);
    if (s == GR_OK)
        s = pbd_reserve_particles(st, st->n + count);
    if (s != GR_OK)
        return s;
    pbd_body *pb = &st->bodies[st->nb];
    pb->slot = slot;
    pb->first = st->n;
    pb->count = count;
    pb->fixed = is_fixed(b) ? 1u : 0u;
    pb->particle_mass = b->mass / (double)count;
    pb->rot = b->orientation;
    gr_vec3 centroid = {0, 0, 0};
    for (uint32_t k = 0; k < count; k++)
        centroid = v3_add(centroid, b->particles[k]);
    pb->centroid = v3_scale(centroid, 1.0 / (double)count);
    const double inv_m = pb->fixed ? 0.0 : 1.0 / pb->particle_mass;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = st->n + k;
        st->rest[i] = v3_sub(b->particles[k], pb->centroid);
        st->r[i] = b->particle_radius;
        st->inv_m[i] = inv_m;
        st->mat[i] = b->material;
        st->owner[i] = st->nb;
        st->slot[i] = GR_INVALID_INDEX;
        st->touch[i] = 0;
        st->sampled[i] = 1; /* bodies are not upsampled */
        st->f[i] = v3(0, 0, 0);
        st->calm[i] = 0;
        st->stir[i] = 0;
    }
    st->n += count;
    st->nb++;
    pbd_place_body(st, pb, st->x);
    memcpy(st->xp + pb->first, st->x + pb->first, sizeof(gr_vec3) * count);
    set_velocities(st, pb);
    if (!pb->fixed)
        st->r_min = GR_MIN(st->r_min, b->particle_radius);
    st->r_max = GR_MAX(st->r_max, b->particle_radius);
    st->body_of_slot[slot] = st->nb - 1;
    st->fixed_dirty |= pb->fixed != 0;
    st->mov_dirty = true;
    return GR_OK;
}

void pbd_body_removed(void *state, uint32_t slot)
{
    pbd_state *st = (pbd_state *)state;
    if (slot >= st->b_slot_cap || st->body_of_slot[slot] == GR_INVALID_INDEX)
        return;
    const uint32_t rec = st->body_of_slot[slot];
    const pbd_body gone = st->bodies[rec];
    for (uint32_t k = gone.first; k < gone.first + gone.count; k++) {
        st->owner[k] = GR_INVALID_INDEX; /* dead: no owner and no grain slot */
        st->slot[k] = GR_INVALID_INDEX;
    }
    st->n_dead += gone.count;
    /* the last record takes the hole */
    const uint32_t last = st->nb - 1;
    if (rec != last) {
        st->bodies[rec] = st->bodies[last];
        const pbd_body *mv = &st->bodies[rec];
        for (uint32_t k = mv->first; k < mv->first + mv->count; k++)
            st->owner[k] = rec;
        st->body_of_slot[mv->slot] = rec;
    }
    st->nb--;
    st->body_of_slot[slot] = GR_INVALID_INDEX;
    st->fixed_dirty = true;
    pbd_compact(st);
}

void pbd_body_moved(void *state, uint32_t slot)
{
    pbd_state *st = (pbd_state *)state;
    if (slot >= st->b_slot_cap || st->body_of_slot[slot] == GR_INVALID_INDEX)
        return;
    pbd_body *pb = &st->bodies[st->body_of_slot[slot]];
    st->fixed_dirty |= pb->fixed != 0;
    if (!pb->fixed) { /* the mass may have changed (gr_body_set_mass_properties) */
        pb->particle_mass = st->env.bodies->data[slot].mass / (double)pb->count;
        const double inv_m = 1.0 / pb->particle_mass;
        for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
            st->inv_m[k] = inv_m;
    }
    pb->rot = st->env.bodies->data[slot].orientation;
    pbd_place_body(st, pb, st->x);
    memcpy(st->xp + pb->first, st->x + pb->first, sizeof(gr_vec3) * pb->count);
    set_velocities(st, pb);
}

void pbd_bodies_sync_in(pbd_state *st)
{
    bool host = false;
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        const gr_body_data *b = &st->env.bodies->data[pb->slot];
        if (b->motion == GR_MOTION_HOST) { /* the host's state of this frame */
            pbd_body_moved(st, pb->slot);
            host = true;
        }
    }
    if (host)
        gr_upsample_unrest(&st->points); /* the host may have put its bodies anywhere */
}
