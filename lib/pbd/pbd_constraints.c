/* SPDX-License-Identifier: MIT */
/* Contact and friction constraints of the PBD solver (Sommer & Schwanecke eq. 1-4, after
 * Macklin et al. 2014), solved by Jacobi iterations with constraint averaging: each particle
 * gathers its own share of every contact it takes part in (so no two threads write the same
 * particle, and the result does not depend on the worker count), then all particles move by
 * omega * sum of their shares, each share divided by D_ij = max(n_i, n_j) (contact counts of
 * the previous sweep): both ends of a contact divide by the same number, so the pair's
 * momentum balances (Macklin's averaging divides by n_i alone: a body particle touching two
 * grains moves four times what a grain touching eight moves back, and momentum leaks from
 * fast bodies into nothing). If a particle has more contacts now than D, its sum is scaled to
 * the plain average (stability first, rare).
 *
 * For a pair (i, j) at distance |x_ij| < d = r_i + r_j, with n = x_ij / |x_ij| and depth
 * delta = d - |x_ij|:
 *     dx_i = + w_i / (w_i + w_j) * delta * n                                      (eq. 1, 2)
 * then with the relative displacement over the substep dp = (x*_i - x_i) - (x*_j - x_j)
 * (positions after the normal correction) and its tangential part dt:
 *     |dt| <  mu_s delta:  the whole dt is removed (static friction)                (eq. 3)
 *     else                 dt * min(mu_k delta / |dt|, 1) is removed (kinetic)      (eq. 4)
 * in the ratio w_i / (w_i + w_j). Grain-grain pairs use the height-scaled inverse masses w*
 * (stacks converge faster, Macklin sec. 5.1); pairs with body particles use the true masses so
 * that grains and bodies exchange momentum exactly. Exact (primitive) bodies are infinitely
 * heavy: the grain takes the whole correction, after the particle contacts of the same
 * iteration (so the floor always wins over the averaging).
 *
 * Every particle reads the previous iterate and writes only itself, in fixed blocks: the
 * result does not depend on the worker count. */

#include <math.h>

#include "../bodies/body_store.h"
#include "../geom/vec3.h"
#include "pbd_internal.h"

typedef struct sweep_ctx {
    pbd_state *st;
    gr_vec3 *p;     ///< positions the constraints are evaluated at
    gr_vec3 *also;  ///< stabilisation: x* takes the same corrections
    bool friction;
    bool stabilize; ///< the stabilisation pass (kinematic exact bodies sit it out)
    bool sense;     ///< record the impulses bodies receive
    double h;
    double wake2;   ///< squared speed above which a touching mover wakes a sleeping grain
} sweep_ctx;

/* Remove the tangential slip dt as the friction law allows for depth delta: all of it below
 * mu_s delta (static), else up to mu_k delta (kinetic). Written as selects, not branches:
 * which case holds changes from contact to contact and mispredicted branches cost more than
 * the arithmetic. */
static inline gr_vec3 friction_correction(gr_vec3 dt, double delta, double mu_s, double mu_k)
{
    const double lt = v3_len(dt);
    const double kinetic = mu_k * delta, safe = lt > 0 ? lt : 1.0;
    const double kept = lt > kinetic ? kinetic / safe : 1.0;
    return v3_scale(dt, lt < mu_s * delta ? 1.0 : kept);
}

/* Contact of particle i (slip si over the substep so far) with an immovable surface of
 * normal nrm and depth delta whose own displacement this substep is sb: the whole correction
 * goes to i. */
static inline gr_vec3 boundary_correction(const sweep_ctx *c, gr_vec3 si, gr_vec3 nrm, double delta, gr_vec3 sb,
                                          const double *mu)
{
    gr_vec3 corr = v3_scale(nrm, delta);
    if (c->friction) {
        const gr_vec3 dp = v3_add(v3_sub(si, sb), corr);
        const gr_vec3 dt = v3_madd(dp, nrm, -v3_dot(dp, nrm));
        corr = v3_sub(corr, friction_correction(dt, delta, mu[0], mu[1]));
    }
    return corr;
}

/* The body received `impulse` (moment arm `lever` from its position) from particle i. */
static inline void sense(pbd_state *st, uint32_t i, uint32_t slot, gr_vec3 impulse, gr_vec3 lever)
{
    for (uint32_t k = 2 * i; k < 2 * i + 2; k++) {
        if (st->sense_slot[k] == GR_INVALID_INDEX)
            st->sense_slot[k] = slot;
        if (st->sense_slot[k] == slot) {
            st->sense_imp[k] = v3_add(st->sense_imp[k], impulse);
            st->sense_ang[k] = v3_add(st->sense_ang[k], v3_cross(lever, impulse));
            return;
        }
    }
    /* a third body in one substep: too rare to keep room for; its share is not reported */
}

/* Where particle i goes in this sweep (from positions p). */
static gr_vec3 solve_particle(const sweep_ctx *c, uint32_t i)
{
    pbd_state *st = c->st;
    const gr_vec3 *p = c->p;
    const gr_body_store *bs = &st->world->bodies;
    const pbd_hot *hot = st->hot;
    const pbd_hot hi = hot[i];
    const gr_vec3 pi = p[i], si = v3_sub(st->xp[i], st->x[i]);
    const bool grain_i = !(hi.bits & PBD_HOT_BODY);
    /* group 1: contacts with movable particles, each from the previous iterate, averaged */
    gr_vec3 sum = {0, 0, 0};
    uint32_t count = 0, boundary = 0;
    /* a sleeping grain touched by something that moves faster than the sleep threshold wakes
     * (its own averaged correction may stay below it while it stops the mover like a wall);
     * grains must be ten times faster to wake: a settling pile's rattle must not
     * (PBD_HOT_WAKES, pbd_prepare_sweeps) */
    const bool asleep = hi.bits & PBD_HOT_ASLEEP;
    bool disturbed = false;
    /* fastest relative speed of a free body's particle touching, squared (grains and
     * immovable surfaces give nothing: a grain squeezed by a kinematic tool or in a crowd
     * keeps the max_acceleration bound) */
    double vrel2 = 0;
    const gr_vec3 vi = st->v[i];
    const uint32_t ni_prev = st->touch[i] & 0xffffu;
    /* grain-grain: Macklin's average over the particle's contacts */
    const double grain_share = 1.0 / (double)GR_MAX(ni_prev, 1u);
    const uint32_t mid = st->nb_mid[i];
    for (uint32_t k = st->nb_start[i]; k < mid; k++) {
        const uint32_t j = st->nb_j[k];
        const pbd_hot *hj = &hot[j];
        const double d = hi.r + hj->r;
        const gr_vec3 xij = v3_sub(pi, p[j]);
        const double l2 = v3_len2(xij);
        if (l2 >= d * d)
            continue;
        const double len = sqrt(l2);
        disturbed |= asleep && (hj->bits & PBD_HOT_WAKES);
        const bool body_j = hj->bits & PBD_HOT_BODY;
        if (body_j)
            vrel2 = GR_MAX(vrel2, v3_len2(v3_sub(st->v[j], vi)));
        /* coincident centres: separate along "up", the lower index below */
        const gr_vec3 nrm = len > 1e-9 * d ? v3_scale(xij, 1.0 / len) : (i < j ? st->up : v3_neg(st->up));
        const double delta = d - len;
        double ai, share;
        if (grain_i && !body_j) {
            /* grains: height-scaled inverse masses (stacks converge faster) */
            ai = hi.w_star / (hi.w_star + hj->w_star);
            share = grain_share;
        } else {
            /* a body particle splits with its whole body's inverse mass W (a grain's W is its
             * w), and takes w_i / (W_i + W_j): shape matching spreads a particle's move over
             * the body's n particles, so the body moves W_i / (W_i + W_j) and momentum balances
             * (with the particle's own mass in the denominator the body would barely move:
             * soft coupling); both ends divide by the pair's common divisor */
            ai = hi.inv_m / (hi.W + hj->W);
            share = 1.0 / (double)GR_MAX(GR_MAX(ni_prev, st->touch[j] & 0xffffu), 1u);
        }
        gr_vec3 corr = v3_scale(nrm, ai * delta);
        if (c->friction) {
            const gr_vec3 sj = v3_sub(p[j], st->x[j]); /* p is x* in the friction sweeps */
            /* dp with the pair's normal correction (delta in all) included */
            const gr_vec3 dp = v3_add(v3_sub(si, sj), v3_scale(nrm, delta));
            const gr_vec3 dt = v3_madd(dp, nrm, -v3_dot(dp, nrm));
            const double *mu = pbd_mu(st, hi.mat, hj->mat);
            corr = v3_madd(corr, friction_correction(dt, delta, mu[0], mu[1]), -ai);
        }
        sum = v3_madd(sum, corr, share);
        count++;
    }
    const double guard = count > GR_MAX(ni_prev, 1u) ? (double)GR_MAX(ni_prev, 1u) / (double)count : 1.0;
    gr_vec3 q = count ? v3_madd(pi, sum, st->par.relaxation * guard) : pi;
    /* group 2: immovable surfaces (exact bodies, fixed body particles), each projected in
     * turn onto the particle's updated position */
    const double m_over_h = c->sense ? 1.0 / (st->inv_m[i] * c->h) : 0.0;
    const uint32_t trapped = st->trap_slot[i];
    if (trapped != GR_INVALID_INDEX && !c->stabilize) {
        /* inside a body: out along its surface normal (Macklin 2014 sec. 5.2, with the body's
         * exact distance instead of a stored SDF) */
        const gr_vec3 nrm = st->trap_normal[i];
        const double delta = st->trap_depth[i] + st->r[i] - v3_dot(v3_sub(q, st->trap_at[i]), nrm);
        if (delta > 0) {
            const gr_body_data *b = &bs->data[trapped];
            const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(q, pi)), nrm, delta,
                                                     v3_scale(gr_body_point_velocity(b, q), c->h),
                                                     pbd_mu(st, st->mat[i], b->material));
            q = v3_add(q, corr);
            boundary++;
            if (c->sense)
                sense(st, i, trapped, v3_scale(corr, -m_over_h), v3_sub(q, b->position));
        }
    }
    for (uint32_t k = mid; k < st->nb_end[i]; k++) {
        const uint32_t j = st->nb_j[k];
        if (trapped != GR_INVALID_INDEX && st->bodies[st->owner[j]].slot == trapped)
            continue; /* the normal above replaces this body's particles */
        const pbd_hot *hj = &hot[j];
        const double d = hi.r + hj->r;
        const gr_vec3 xij = v3_sub(q, p[j]);
        const double l2 = v3_len2(xij);
        if (l2 >= d * d)
            continue;
        const double len = sqrt(l2);
        disturbed |= asleep && (hj->bits & PBD_HOT_WAKES);
        const gr_vec3 nrm = len > 1e-9 * d ? v3_scale(xij, 1.0 / len) : st->up;
        const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(q, pi)), nrm, d - len,
                                                 v3_sub(st->xp[j], st->x[j]), pbd_mu(st, hi.mat, hj->mat));
        q = v3_add(q, corr);
        boundary++;
        if (c->sense) {
            const uint32_t slot = st->bodies[st->owner[j]].slot;
            sense(st, i, slot, v3_scale(corr, -m_over_h), v3_sub(p[j], bs->data[slot].position));
        }
    }
    /* exact surfaces: every one, every iteration (they are few, and a particle pushed far in
     * one sweep must still meet the wall) */
    for (uint32_t e = 0; e < st->exact_count; e++) {
        const uint32_t slot = st->exact[e];
        const gr_body_data *b = &bs->data[slot];
        if (c->stabilize && b->motion == GR_MOTION_KINEMATIC)
            continue; /* its push must become velocity */
        const double bound = st->exact_bound[e];
        if (bound < INFINITY && v3_len2(v3_sub(q, b->position)) > (bound + st->r[i]) * (bound + st->r[i]))
            continue;
        const uint32_t nf = gr_body_feature_count(b);
        for (uint32_t f = 0; f < nf; f++) {
            if (!gr_body_feature_enabled(b, f))
                continue;
            gr_vec3 nrm, pt;
            const double delta = st->r[i] - gr_body_feature_distance(b, f, q, &nrm, &pt);
            if (!(delta > 0))
                continue;
            const gr_vec3 vb = gr_body_point_velocity(b, pt);
            disturbed |= asleep && v3_len2(vb) > c->wake2;
            const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(q, pi)), nrm, delta,
                                                     v3_scale(gr_body_point_velocity(b, pt), c->h),
                                                     pbd_mu(st, st->mat[i], b->material));
            q = v3_add(q, corr);
            boundary++;
            if (c->sense)
                sense(st, i, slot, v3_scale(corr, -m_over_h), v3_sub(pt, b->position));
        }
    }
    st->touch_next[i] = GR_MIN(count, 0xffffu) | GR_MIN(boundary, 0xffffu) << 16;
    if (!c->stabilize) {
        if (disturbed)
            st->flag[i] |= PBD_FLAG_DISTURBED;
        st->vnear[i] = GR_MAX(st->vnear[i], sqrt(vrel2));
    }
    return q;
}

/* ---- per-substep packing -------------------------------------------------------------------- */

typedef struct hot_ctx {
    pbd_state *st;
    double wake2; ///< squared speed that wakes a sleeping grain (see solve_particle)
} hot_ctx;

static void hot_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const hot_ctx *c = (const hot_ctx *)vctx;
    pbd_state *st = c->st;
    for (uint32_t i = begin; i < end; i++) {
        const uint32_t o = st->owner[i];
        const bool asleep = pbd_asleep(st, i);
        const double v2 = v3_len2(st->v[i]);
        uint32_t bits = 0;
        if (o != GR_INVALID_INDEX)
            bits |= PBD_HOT_BODY;
        if (st->inv_m[i] == 0.0)
            bits |= PBD_HOT_FIXED;
        if (asleep)
            bits |= PBD_HOT_ASLEEP;
        /* a grain must be ten times faster than a body to wake a sleeper: a settling pile's
         * rattle must not */
        if (!asleep && v2 > (o == GR_INVALID_INDEX ? 100.0 : 1.0) * c->wake2)
            bits |= PBD_HOT_WAKES;
        st->hot[i] = (pbd_hot){st->r[i], st->w_star[i], st->inv_m[i],
                               o == GR_INVALID_INDEX ? st->inv_m[i] : st->inv_m[i] / (double)st->bodies[o].count,
                               st->mat[i], bits};
    }
}

void pbd_prepare_sweeps(pbd_state *st, double h)
{
    const double wake = st->par.sleep_threshold * v3_len(st->world->def.gravity) * h;
    hot_ctx c = {st, wake * wake};
    gr_parallel_for_affine(&st->world->tasks, st->n, PBD_BLOCK, hot_range, &c);
}

/* ---- Jacobi ------------------------------------------------------------------------------- */

static void jacobi_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sweep_ctx *c = (const sweep_ctx *)vctx;
    pbd_state *st = c->st;
    for (uint32_t i = begin; i < end; i++)
        if (st->inv_m[i] == 0.0) {
            st->dx[i] = v3(0, 0, 0);
            st->touch_next[i] = 0;
        } else {
            st->dx[i] = v3_sub(solve_particle(c, i), c->p[i]);
        }
}

static void apply_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sweep_ctx *c = (const sweep_ctx *)vctx;
    for (uint32_t i = begin; i < end; i++) {
        const gr_vec3 d = c->st->dx[i];
        if (c->also) {
            /* stabilisation moves x: a sleeping grain keeps its place */
            if (pbd_asleep(c->st, i))
                continue;
            c->also[i] = v3_add(c->also[i], d);
        }
        c->p[i] = v3_add(c->p[i], d);
    }
}

/* ---- sensing ------------------------------------------------------------------------------ */

gr_status pbd_reserve_sensing(pbd_state *st)
{
    if (st->sense_cap >= st->cap)
        return GR_OK;
    const gr_array_ref arrays[] = {{(void **)&st->sense_slot, 2 * sizeof(uint32_t)},
                                   {(void **)&st->sense_imp, 2 * sizeof(gr_vec3)},
                                   {(void **)&st->sense_ang, 2 * sizeof(gr_vec3)}};
    if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->sense_cap, st->cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    st->sense_cap = st->cap;
    for (uint32_t k = 0; k < 2 * st->cap; k++) {
        st->sense_slot[k] = GR_INVALID_INDEX;
        st->sense_imp[k] = st->sense_ang[k] = v3(0, 0, 0);
    }
    return GR_OK;
}

void pbd_collect_impulses(pbd_state *st)
{
    for (uint32_t k = 0; k < 2 * st->n; k++) {
        const uint32_t slot = st->sense_slot[k];
        if (slot == GR_INVALID_INDEX)
            continue;
        if (slot < st->imp_slots) {
            st->body_imp[2 * slot] = v3_add(st->body_imp[2 * slot], st->sense_imp[k]);
            st->body_imp[2 * slot + 1] = v3_add(st->body_imp[2 * slot + 1], st->sense_ang[k]);
        }
        st->sense_slot[k] = GR_INVALID_INDEX;
        st->sense_imp[k] = st->sense_ang[k] = v3(0, 0, 0);
    }
}

void pbd_contact_sweep(pbd_state *st, gr_vec3 *p, bool friction, bool stabilize, double h)
{
    const uint32_t n = st->n;
    if (!n)
        return;
    const double wake = st->par.sleep_threshold * v3_len(st->world->def.gravity) * h;
    sweep_ctx c = {st, p, stabilize ? st->xp : NULL, friction, stabilize, friction && st->sense_cap > 0, h, wake * wake};
    gr_parallel_for(&st->world->tasks, n, PBD_BLOCK, jacobi_range, &c);
    gr_parallel_for_affine(&st->world->tasks, n, PBD_BLOCK, apply_range, &c);
    uint32_t *t = st->touch; /* this sweep's counts are the next one's D */
    st->touch = st->touch_next;
    st->touch_next = t;
}
