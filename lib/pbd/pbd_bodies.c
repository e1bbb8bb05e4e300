/* SPDX-License-Identifier: MIT */
/* Bodies in the PBD solver (Sommer & Schwanecke sec. 3; docs/pbd.md):
 *   - static and kinematic primitives (planes, boxes, spheres, capsules, containers) are exact
 *     surfaces (pbd_lists.c, pbd_constraints.c);
 *   - meshes, dynamic and host-owned bodies are covered by surface particles (body_cover.c).
 *     Static and kinematic ones have infinite mass: their particles are placed from the pose
 *     every substep. Dynamic and host-owned ones are particles of equal mass (the body's mass
 *     shared out) that take part in contacts like grains, and after every solver iteration a
 *     shape-matching constraint (Mueller et al. 2005) puts them back into the body's shape:
 *         c = sum m_k x*_k / M,   A = sum m_k (x*_k - c) q_k^T,   A = R S (polar),
 *         x*_k <- c + R q_k
 *     where q_k is particle k's rest offset from the particles' centroid. The contact
 *     corrections the grains gave the particles thus move and turn the body as a whole (two-way
 *     coupling), with momentum conserved because the goal positions keep the centroid.
 *   The rotation R is extracted by the iteration of Mueller et al. 2016 ("A robust method to
 *   extract the rotational part of deformations"), warm-started with the last rotation. */
#include <math.h>

#include "../bodies/body_store.h"
#include "../geom/vec3.h"
#include "pbd_internal.h"

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
    const uint32_t slots = GR_MAX(st->world->bodies.slot_count, 1u);
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
    const gr_body_data *b = &st->world->bodies.data[pb->slot];
    const gr_vec3 c = v3_add(b->position, quat_rotate(b->orientation, pb->centroid));
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
        dst[k] = v3_add(c, quat_rotate(b->orientation, st->rest[k]));
}

/* Linear momentum and angular momentum about the centroid of a body's particles. */
static void particle_momenta(const pbd_state *st, const pbd_body *pb, gr_vec3 *momentum, gr_vec3 *spin)
{
    gr_vec3 c = {0, 0, 0}, p = {0, 0, 0}, l = {0, 0, 0};
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++) {
        c = v3_add(c, st->x[k]);
        p = v3_add(p, st->v[k]);
    }
    c = v3_scale(c, 1.0 / (double)pb->count);
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
        l = v3_add(l, v3_cross(v3_sub(st->x[k], c), st->v[k]));
    *momentum = v3_scale(p, pb->particle_mass);
    *spin = v3_scale(l, pb->particle_mass);
}

static void set_velocities(pbd_state *st, pbd_body *pb)
{
    const gr_body_data *b = &st->world->bodies.data[pb->slot];
    for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
        st->v[k] = gr_body_point_velocity(b, st->x[k]);
    particle_momenta(st, pb, &pb->momentum, &pb->spin);
}

gr_status pbd_body_added(void *state, uint32_t slot)
{
    pbd_state *st = (pbd_state *)state;
    const gr_body_data *b = &st->world->bodies.data[slot];
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
        pb->particle_mass = st->world->bodies.data[slot].mass / (double)pb->count;
        const double inv_m = 1.0 / pb->particle_mass;
        for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
            st->inv_m[k] = inv_m;
    }
    pb->rot = st->world->bodies.data[slot].orientation;
    pbd_place_body(st, pb, st->x);
    memcpy(st->xp + pb->first, st->x + pb->first, sizeof(gr_vec3) * pb->count);
    set_velocities(st, pb);
}

void pbd_bodies_sync_in(pbd_state *st)
{
    bool host = false;
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        const gr_body_data *b = &st->world->bodies.data[pb->slot];
        if (b->motion == GR_MOTION_HOST) { /* the host's state of this frame */
            pbd_body_moved(st, pb->slot);
            host = true;
        }
    }
    if (host)
        pbd_points_unrest(st); /* the host may have put its bodies anywhere */
}

/* ---- shape matching ------------------------------------------------------------------------ */

typedef struct mat3 {
    double m[3][3]; /* row-major */
} mat3;

static gr_vec3 mat3_col(const mat3 *a, int c) { return v3(a->m[0][c], a->m[1][c], a->m[2][c]); }

static mat3 quat_to_mat3(gr_quat q)
{
    mat3 r;
    const gr_vec3 ex = quat_rotate(q, v3(1, 0, 0)), ey = quat_rotate(q, v3(0, 1, 0)), ez = quat_rotate(q, v3(0, 0, 1));
    const gr_vec3 cols[3] = {ex, ey, ez};
    for (int c = 0; c < 3; c++) {
        r.m[0][c] = cols[c].x;
        r.m[1][c] = cols[c].y;
        r.m[2][c] = cols[c].z;
    }
    return r;
}

/* Rotational part of A (Mueller et al. 2016, eq. 6-7), starting from q. */
static gr_quat extract_rotation(const mat3 *a, gr_quat q, int iterations)
{
    const gr_vec3 a0 = mat3_col(a, 0), a1 = mat3_col(a, 1), a2 = mat3_col(a, 2);
    for (int it = 0; it < iterations; it++) {
        const mat3 r = quat_to_mat3(q);
        const gr_vec3 r0 = mat3_col(&r, 0), r1 = mat3_col(&r, 1), r2 = mat3_col(&r, 2);
        const gr_vec3 num = v3_add(v3_add(v3_cross(r0, a0), v3_cross(r1, a1)), v3_cross(r2, a2));
        const double den = fabs(v3_dot(r0, a0) + v3_dot(r1, a1) + v3_dot(r2, a2)) + 1e-300;
        const gr_vec3 omega = v3_scale(num, 1.0 / den);
        const double w = v3_len(omega);
        if (w < 1e-12)
            break;
        const double s = sin(0.5 * w) / w;
        const gr_quat dq = {omega.x * s, omega.y * s, omega.z * s, cos(0.5 * w)};
        q = quat_normalize(quat_mul(dq, q));
    }
    return q;
}

typedef struct match_ctx {
    pbd_state *st;
} match_ctx;

static void match_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((const match_ctx *)vctx)->st;
    for (uint32_t r = begin; r < end; r++) {
        pbd_body *pb = &st->bodies[r];
        if (pb->fixed)
            continue;
        /* the particles' x* are the packed copies during the solve (pbd_lists.c) */
        const uint32_t k0 = pb->first, k1 = pb->first + pb->count;
        pbd_pk *pk = st->pk;
        const uint32_t *at = st->pos_of;
        gr_vec3 c = {0, 0, 0};
        for (uint32_t k = k0; k < k1; k++)
            c = v3_add(c, pk[at[k]].p);
        c = v3_scale(c, 1.0 / (double)pb->count);
        mat3 a;
        memset(&a, 0, sizeof a);
        for (uint32_t k = k0; k < k1; k++) {
            const gr_vec3 p = v3_sub(pk[at[k]].p, c), q = st->rest[k];
            const double pv[3] = {p.x, p.y, p.z}, qv[3] = {q.x, q.y, q.z};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    a.m[i][j] += pv[i] * qv[j];
        }
        pb->rot = extract_rotation(&a, pb->rot, 20);
        for (uint32_t k = k0; k < k1; k++)
            pk[at[k]].p = v3_add(c, quat_rotate(pb->rot, st->rest[k]));
    }
}

void pbd_shape_match(pbd_state *st)
{
    if (!st->nb)
        return;
    match_ctx c = {st};
    gr_parallel_for(&st->world->tasks, st->nb, 1, match_range, &c);
}

/* Free bodies take the pose the shape matching found and the velocity of the substep. */
void pbd_bodies_write_back(pbd_state *st, double h)
{
    gr_body_store *bs = &st->world->bodies;
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        if (pb->fixed)
            continue;
        gr_body_data *b = &bs->data[pb->slot];
        const gr_vec3 c_old = v3_add(b->position, quat_rotate(b->orientation, pb->centroid));
        gr_vec3 c = {0, 0, 0};
        for (uint32_t k = pb->first; k < pb->first + pb->count; k++)
            c = v3_add(c, st->xp[k]);
        c = v3_scale(c, 1.0 / (double)pb->count);
        /* angular velocity from the turn of this substep: dq = q_new q_old^-1 */
        gr_quat dq = quat_mul(pb->rot, quat_conj(b->orientation));
        if (dq.w < 0)
            dq = (gr_quat){-dq.x, -dq.y, -dq.z, -dq.w};
        const double sn = sqrt(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z);
        const double angle = 2.0 * atan2(sn, dq.w);
        const gr_vec3 w = sn > 1e-300 ? v3_scale(v3(dq.x, dq.y, dq.z), angle / (sn * h)) : v3(0, 0, 0);
        const gr_vec3 vc = v3_scale(v3_sub(c, c_old), 1.0 / h);
        b->orientation = pb->rot;
        b->position = v3_sub(c, quat_rotate(pb->rot, pb->centroid));
        b->angular_velocity = w;
        b->linear_velocity = v3_add(vc, v3_cross(w, v3_sub(b->position, c)));
        gr_body_update_frame(b);
        /* sensed force: the momentum the contacts gave the body this substep (its weight's
         * share taken out), as for the DEM */
        gr_vec3 mom, spin;
        particle_momenta(st, pb, &mom, &spin);
        if (pb->slot < st->imp_slots) {
            const double mass = pb->particle_mass * (double)pb->count;
            const gr_vec3 imp = v3_madd(v3_sub(mom, pb->momentum), st->world->def.gravity, -mass * h);
            const gr_vec3 ang = v3_add(v3_sub(spin, pb->spin), v3_cross(v3_sub(c, b->position), imp));
            st->body_imp[2 * pb->slot] = v3_add(st->body_imp[2 * pb->slot], imp);
            st->body_imp[2 * pb->slot + 1] = v3_add(st->body_imp[2 * pb->slot + 1], ang);
        }
        pb->momentum = mom;
        pb->spin = spin;
    }
}
