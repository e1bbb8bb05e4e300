/* SPDX-License-Identifier: MIT */
/* Particle-covered bodies in the DEM (Bell 2005, section 3.3): a body's surface particles are
 * the member spheres of one clump, so they take part in contacts through the same neighbour
 * lists as grains: grain-body and body-body contacts need no code of their own.
 *   - dynamic bodies integrate exactly like clump grains (gravity, contact forces, the
 *     symplectic rotation) and hand their pose and velocity back to the body store;
 *   - host-owned bodies start every step from the pose and velocity the host reported and
 *     then move as dynamic bodies through the substeps, with the mass and inertia the host
 *     gave (gr_body_def.mass, gr_body_set_mass_properties): the motion the host's own
 *     integrator will give them (gravity and the grains' impulse), resolved at the grains'
 *     time step, so a crate rests on sand without the jitter of coupling once per frame;
 *   - static and kinematic bodies are "fixed" clumps: their pose comes from the body every
 *     substep, they do not answer forces, and pairs of fixed particles are never listed
 *     (they could not act on anything);
 *   - every covered body senses the contact force and torque on it (force = sum over its
 *     particles), which gr_body_get_force and the host hooks report.
 * The clump frame is the body's principal frame: x = position + R com, q = orientation *
 * principal; member offsets are the particles in that frame. */
#include <math.h>

#include "../bodies/body_cover.h"
#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_bodies.h"
#include "dem_store.h"
#include "dem_clumps.h"

static gr_status reserve_body_map(dem_state *st, uint32_t slots)
{
    if (slots <= st->body_clump_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->body_clump_cap, slots);
    uint32_t *a = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
    if (!a)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < cap; k++)
        a[k] = k < st->body_clump_cap ? st->body_clump[k] : GR_INVALID_INDEX;
    gr_mem_free(st->mem, st->body_clump, sizeof(uint32_t) * st->body_clump_cap);
    st->body_clump = a;
    st->body_clump_cap = cap;
    return GR_OK;
}

void dem_free_body_map(dem_state *st)
{
    gr_mem_free(st->mem, st->body_clump, sizeof(uint32_t) * st->body_clump_cap);
    st->body_clump = NULL;
    st->body_clump_cap = 0;
}

gr_status dem_reset_body_map(dem_state *st)
{
    gr_status s = reserve_body_map(st, GR_MAX(st->env.bodies->slot_count, 1u));
    if (s != GR_OK)
        return s;
    for (uint32_t k = 0; k < st->body_clump_cap; k++)
        st->body_clump[k] = GR_INVALID_INDEX;
    return GR_OK;
}

static inline uint32_t clump_of(const dem_state *st, uint32_t body)
{
    return body < st->body_clump_cap ? st->body_clump[body] : GR_INVALID_INDEX;
}

/* L = R I R^T w for the clump's current frame. */
static gr_vec3 momentum_from(gr_quat q, gr_vec3 inertia, gr_vec3 w)
{
    const gr_vec3 wl = quat_rotate_inv(q, w);
    return quat_rotate(q, v3(wl.x * inertia.x, wl.y * inertia.y, wl.z * inertia.z));
}

gr_status dem_body_added(void *state, uint32_t bs)
{
    dem_state *st = (dem_state *)state;
    const gr_body_data *b = &st->env.bodies->data[bs];
    if (!gr_body_needs_particles(b))
        return GR_OK;
    const uint32_t count = b->particle_count;
    if ((uint64_t)st->n + count > GR_MAX_GRAINS || (uint64_t)st->nm + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    gr_status s = reserve_body_map(st, bs + 1);
    if (s == GR_OK)
        s = dem_reserve_particles(st, st->n + count);
    if (s == GR_OK)
        s = dem_reserve_clumps(st, 1, count);
    if (s != GR_OK)
        return s;

    const bool fixed = dem_body_is_fixed(b);
    const uint32_t c = st->nc++;
    dem_clump_pose_from_body(st, c, b);
    st->c_m[c] = b->mass;
    st->c_inertia[c] = b->inertia;
    st->c_L[c] = momentum_from(st->c_q[c], b->inertia, st->c_w[c]);
    st->c_f[c] = v3(0, 0, 0);
    st->c_t[c] = v3(0, 0, 0);
    st->c_slot[c] = DEM_BODY_SLOT;
    st->c_mat[c] = b->material;
    st->c_body[c] = bs;
    st->c_fixed[c] = fixed ? 1 : 0;
    st->c_frame[c] = b->principal;
    st->c_first[c] = st->nm;
    st->c_count[c] = count;
    double reach = 0;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t m = st->nm++;
        const uint32_t i = st->n++;
        st->m_offset[m] = quat_rotate_inv(b->principal, v3_sub(b->particles[k], b->com));
        reach = GR_MAX(reach, v3_len(st->m_offset[m]));
        st->m_sphere[m] = i;
        st->m_clump[m] = c;
        st->member[i] = m;
        st->sampled[i] = 1; /* bodies get no render points */
        st->xr[i].r = b->particle_radius;
        st->m[i] = fixed ? DEM_IMMOVABLE_MASS : b->mass;
        st->inv_m[i] = 0;
        st->inv_i[i] = 0;
        st->q[i] = quat_identity();
        st->f[i] = v3(0, 0, 0);
        st->t[i] = v3(0, 0, 0);
        st->mat[i] = b->material;
        st->slot[i] = DEM_BODY_SLOT;
    }
    st->c_radius[c] = reach + b->particle_radius;
    dem_place_members(st, c);
    for (uint32_t k = st->c_first[c]; k < st->c_first[c] + count; k++)
        st->x_ref[st->m_sphere[k]] = xr_pos(&st->xr[st->m_sphere[k]]);
    st->body_clump[bs] = c;
    st->need_rebuild = true;
    st->forces_stale = true;
    return GR_OK;
}

void dem_body_removed(void *state, uint32_t bs)
{
    dem_state *st = (dem_state *)state;
    const uint32_t c = clump_of(st, bs);
    if (c == GR_INVALID_INDEX)
        return;
    for (uint32_t m = st->c_first[c]; m < st->c_first[c] + st->c_count[c]; m++)
        st->slot[st->m_sphere[m]] = GR_INVALID_INDEX;
    st->n_dead += st->c_count[c];
    st->c_slot[c] = GR_INVALID_INDEX;
    st->nc_dead++;
    st->body_clump[bs] = GR_INVALID_INDEX;
    st->need_rebuild = true;
    st->forces_stale = true;
}

/* The clump's mass, inertia, frame and member offsets from the body (they change with
 * gr_body_set_mass_properties; otherwise this recomputes the same values). */
static bool mass_from_body(dem_state *st, uint32_t c, const gr_body_data *b)
{
    if (st->c_fixed[c])
        return false;
    const bool changed = memcmp(&st->c_m[c], &b->mass, sizeof b->mass) ||
                         memcmp(&st->c_inertia[c], &b->inertia, sizeof b->inertia) ||
                         memcmp(&st->c_frame[c], &b->principal, sizeof b->principal);
    st->c_m[c] = b->mass;
    st->c_inertia[c] = b->inertia;
    st->c_frame[c] = b->principal;
    for (uint32_t k = 0; k < st->c_count[c]; k++) {
        const uint32_t m = st->c_first[c] + k;
        st->m_offset[m] = quat_rotate_inv(b->principal, v3_sub(b->particles[k], b->com));
        st->m[st->m_sphere[m]] = b->mass;
    }
    return changed;
}

/* The body's pose and velocity are those of its clump: as pose_from_body sets them from the
 * body, or (a dynamic clump) as dem_write_back_bodies gave them to the body, its orientation
 * possibly normalised once more by the API. */
static bool body_as_clump_says(const dem_state *st, uint32_t c, const gr_body_data *b)
{
    gr_quat q;
    gr_vec3 x, v;
    const gr_vec3 w = st->c_w[c];
    gr_body_principal_pose(b, &x, &q);
    v = v3_add(b->linear_velocity, v3_cross(b->angular_velocity, v3_sub(x, b->position)));
    if (!memcmp(&x, &st->c_x[c], sizeof x) && !memcmp(&q, &st->c_q[c], sizeof q) &&
        !memcmp(&v, &st->c_v[c], sizeof v) && !memcmp(&b->angular_velocity, &w, sizeof w))
        return true;
    if (st->c_fixed[c])
        return false;
    q = quat_normalize(quat_mul(st->c_q[c], quat_conj(b->principal)));
    const gr_quat qq = quat_normalize(q);
    x = v3_sub(st->c_x[c], quat_rotate(q, b->com));
    v = v3_add(st->c_v[c], v3_cross(w, v3_sub(x, st->c_x[c])));
    return (!memcmp(&q, &b->orientation, sizeof q) || !memcmp(&qq, &b->orientation, sizeof q)) &&
           !memcmp(&x, &b->position, sizeof x) && !memcmp(&v, &b->linear_velocity, sizeof v) &&
           !memcmp(&w, &b->angular_velocity, sizeof w);
}

void dem_body_moved(void *state, uint32_t bs)
{
    dem_state *st = (dem_state *)state;
    const uint32_t c = clump_of(st, bs);
    if (c == GR_INVALID_INDEX)
        return;
    const gr_body_data *b = &st->env.bodies->data[bs];
    const bool mass_changed = mass_from_body(st, c, b);
    if (!mass_changed && body_as_clump_says(st, c, b))
        return; /* set to the pose and velocity it has: nothing to redo (bit-identical) */
    dem_clump_pose_from_body(st, c, b);
    st->c_L[c] = momentum_from(st->c_q[c], st->c_inertia[c], st->c_w[c]);
    dem_place_members(st, c);
    st->need_rebuild = true;
    st->forces_stale = true;
}

void dem_sync_bodies_in(dem_state *st)
{
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const gr_body_data *b = &bodies->data[bodies->active[a]];
        const uint32_t c = clump_of(st, bodies->active[a]);
        if (c == GR_INVALID_INDEX || (!st->c_fixed[c] && b->motion != GR_MOTION_HOST))
            continue;
        dem_clump_pose_from_body(st, c, b);
        if (!st->c_fixed[c])
            st->c_L[c] = momentum_from(st->c_q[c], st->c_inertia[c], st->c_w[c]);
        dem_place_members(st, c);
    }
}

void dem_write_back_bodies(dem_state *st)
{
    gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        const uint32_t c = clump_of(st, bs);
        if (c == GR_INVALID_INDEX || st->c_fixed[c])
            continue;
        gr_body_data *b = &bodies->data[bs];
        b->orientation = quat_normalize(quat_mul(st->c_q[c], quat_conj(b->principal)));
        b->position = v3_sub(st->c_x[c], quat_rotate(b->orientation, b->com));
        b->angular_velocity = st->c_w[c];
        b->linear_velocity = v3_add(st->c_v[c], v3_cross(st->c_w[c], v3_sub(b->position, st->c_x[c])));
        gr_body_update_frame(b);
    }
}

void dem_sense_bodies(dem_state *st, double h)
{
    const gr_body_store *bodies = st->env.bodies;
    const gr_vec3 g = (*st->env.gravity);
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        const uint32_t c = clump_of(st, bs);
        if (c == GR_INVALID_INDEX || bs >= st->body_slots)
            continue;
        /* a dynamic clump's sum starts from its weight: the contacts are the rest */
        gr_vec3 f = st->c_fixed[c] ? st->c_f[c] : v3_sub(st->c_f[c], v3_scale(g, st->c_m[c]));
        gr_vec3 tc = st->c_t[c];
        const gr_body_data *b = &bodies->data[bs];
        if (b->ext_active && !st->c_fixed[c]) {
            /* what another system (a terrain) pushed with is its to report, not the grains' */
            f = v3_sub(f, b->ext_force);
            tc = v3_sub(tc, v3_add(b->ext_torque, v3_cross(v3_sub(b->position, st->c_x[c]), b->ext_force)));
        }
        const gr_vec3 t = v3_add(tc, v3_cross(v3_sub(st->c_x[c], b->position), f));
        st->body_impulse[2 * bs] = v3_madd(st->body_impulse[2 * bs], f, h);
        st->body_impulse[2 * bs + 1] = v3_madd(st->body_impulse[2 * bs + 1], t, h);
    }
}
