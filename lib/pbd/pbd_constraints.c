/* SPDX-License-Identifier: MIT */
/* Contact and friction constraints of the PBD solver (Sommer & Schwanecke eq. 1-4, after
 * Macklin et al. 2014), solved by Jacobi sweeps with constraint averaging. One sweep is two
 * passes over the packed movable particles (pbd_lists.c):
 *
 *   1. pairs: every movable pair within reach is evaluated once (pbd_kernel.h: the pair's
 *      correction u, normal and friction, from the previous iterate), in vector batches;
 *   2. particles: each particle gathers its share of its pairs' corrections (group 1:
 *      averaged), moves by omega times their sum, and is then projected in turn onto its
 *      immovable surfaces (group 2: trapped-body normal, fixed body particles, exact bodies).
 *
 * Shares. End a of pair (a, b) takes + c_a u, end b - c_b u, each divided by the count of the
 * previous sweep: a grain pair by the particle's own count n (Macklin's average), a pair with
 * a free body's particle by D = max(n_a, n_b) on both ends, so that its momentum balances (with
 * n alone a body particle touching two grains moves four times what a grain touching eight
 * moves back, and momentum leaks from fast bodies into nothing). If a particle has more
 * contacts now than its divisor, its sum is scaled to the plain average (stability first).
 * Grain pairs split by the height-scaled inverse masses w* (stacks converge faster, Macklin
 * sec. 5.1), pairs with body particles by the true masses (grains and bodies exchange momentum
 * exactly). Immovable surfaces take nothing: the particle gets the whole correction.
 *
 * Friction (eq. 3-4) bounds the tangential correction by mu times the normal one of the sweep
 * (pbd_kernel.h).
 *
 * Every pass writes only its own pairs or particles and reads the previous pass: the result does
 * not depend on the worker count. */

#include <math.h>

#include "../bodies/body_store.h"
#include "../geom/vec3.h"
#include "pbd_internal.h"
#include "pbd_kernel.h"

typedef struct sweep_ctx {
    pbd_state *st;
    bool friction;
    bool stabilize;  ///< the stabilisation pass: at x, moves x and x* (kinematic exact bodies sit it out)
    bool sense;      ///< record the impulses bodies receive
    double h;
    double wake2;    ///< squared speed above which a touching mover wakes a sleeping grain
    pbd_kernel_fn *kernel;
    pbd_kernel_consts kc;
} sweep_ctx;

/* ---- pass 1: pairs ------------------------------------------------------------------------ */

static void run_batch(const sweep_ctx *c, pbd_pair_batch *b, uint32_t k0, uint32_t count)
{
    pbd_state *st = c->st;
    const pbd_pk *pk = st->pk;
    if (c->stabilize) {
        for (uint32_t m = 0; m < count; m++) {
            const uint32_t k = k0 + m;
            const gr_vec3 pa = pk[st->pr_a[k]].x, pb = pk[st->pr_b[k]].x;
            b->dx[m] = pa.x - pb.x;
            b->dy[m] = pa.y - pb.y;
            b->dz[m] = pa.z - pb.z;
            b->d[m] = st->pr_d[k];
        }
    } else {
        for (uint32_t m = 0; m < count; m++) {
            const uint32_t k = k0 + m;
            const pbd_pk *a = &pk[st->pr_a[k]], *e = &pk[st->pr_b[k]];
            b->dx[m] = a->p.x - e->p.x;
            b->dy[m] = a->p.y - e->p.y;
            b->dz[m] = a->p.z - e->p.z;
            b->sx[m] = (a->p.x - a->x.x) - (e->p.x - e->x.x);
            b->sy[m] = (a->p.y - a->x.y) - (e->p.y - e->x.y);
            b->sz[m] = (a->p.z - a->x.z) - (e->p.z - e->x.z);
            b->d[m] = st->pr_d[k];
        }
        if (!c->kc.uniform) {
            memcpy(b->mus, st->pr_mus + k0, sizeof(double) * count);
            memcpy(b->muk, st->pr_muk + k0, sizeof(double) * count);
        }
    }
    /* padding to whole lanes (of the widest kernel, 8): never in contact */
    b->n = (count + 7u) & ~7u;
    for (uint32_t m = count; m < b->n; m++) {
        b->dx[m] = 1.0;
        b->dy[m] = b->dz[m] = b->d[m] = 0.0;
        b->sx[m] = b->sy[m] = b->sz[m] = b->mus[m] = b->muk[m] = 0.0;
    }
    c->kernel(b, &c->kc);
    for (uint32_t m = 0; m < count; m++)
        st->pr_out[k0 + m] = (pbd_pair_out){b->ux[m], b->uy[m], b->uz[m], b->act[m]};
}

static void pairs_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sweep_ctx *c = (const sweep_ctx *)vctx;
    const pbd_state *st = c->st;
    pbd_pair_batch batch;
    /* ranges come in whole blocks of particles; each block's pairs are one region */
    for (uint32_t blk = begin / PBD_BLOCK; blk * PBD_BLOCK < end; blk++) {
        const uint32_t k0 = st->blk_base[blk], k1 = k0 + st->blk_used[blk];
        for (uint32_t k = k0; k < k1; k += PBD_BATCH)
            run_batch(c, &batch, k, GR_MIN(PBD_BATCH, k1 - k));
    }
}

/* ---- pass 2: particles -------------------------------------------------------------------- */

/* Remove the tangential slip t as the friction law allows for depth delta: all of it below
 * mu_s delta (static), else up to mu_k delta (kinetic), as the pair kernel does. */
static inline gr_vec3 friction_correction(gr_vec3 t, double delta, double mu_s, double mu_k)
{
    const double lt = v3_len(t);
    if (lt < mu_s * delta)
        return t; /* static: grains resting on a wall, the common case (no division) */
    const double kinetic = mu_k * delta;
    return lt > kinetic ? v3_scale(t, kinetic / lt) : t; /* (lt > kinetic >= 0: lt > 0) */
}

/* Contact of a particle (slip si over the substep so far) with an immovable surface of normal
 * nrm and depth delta whose own displacement this substep is sb: the whole correction goes
 * to the particle. */
static inline gr_vec3 boundary_correction(const sweep_ctx *c, gr_vec3 si, gr_vec3 nrm, double delta, gr_vec3 sb,
                                          const double *mu)
{
    gr_vec3 corr = v3_scale(nrm, delta);
    if (c->friction) {
        const gr_vec3 dp = v3_sub(si, sb);
        const gr_vec3 t = v3_madd(dp, nrm, -v3_dot(dp, nrm));
        corr = v3_sub(corr, friction_correction(t, delta, mu[0], mu[1]));
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
            st->sense_force[k] = v3_add(st->sense_force[k], impulse);
            st->sense_torque[k] = v3_add(st->sense_torque[k], v3_cross(lever, impulse));
            return;
        }
    }
    /* a third body in one substep: too rare to keep room for; its share is not reported */
}

/* Group 1 of packed particle s: its shares of its pairs' corrections. Grain pairs divide by
 * the particle's own count, applied once to their sum (*count receives how many are in
 * contact). */
static inline gr_vec3 gather_pairs(const pbd_state *st, uint32_t s, uint32_t *count)
{
    double ax = 0, ay = 0, az = 0, bx = 0, by = 0, bz = 0;
    uint32_t n = 0; /* (an integer add: shorter latency than the double adds it replaced) */
    const pbd_pair_out *out = st->pr_out;
    for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++) {
        const pbd_pair_out o = out[k];
        const double c = st->pr_ca[k];
        ax += o.ux * c;
        ay += o.uy * c;
        az += o.uz * c;
        n += o.act != 0.0;
    }
    for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++) {
        const pbd_pair_out o = out[st->inc_k[e]];
        const double c = st->inc_c[e];
        bx += o.ux * c;
        by += o.uy * c;
        bz += o.uz * c;
        n += o.act != 0.0;
    }
    *count = n;
    return v3(ax - bx, ay - by, az - bz);
}

/* Does a pair partner fast enough to wake a sleeper touch packed particle s? */
static bool woken_by_pairs(const pbd_state *st, uint32_t s)
{
    bool wake = false;
    for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
        wake |= st->pr_out[k].act != 0.0 && (st->hot[st->pr_b[k]].bits & PBD_HOT_WAKES);
    for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++) {
        const uint32_t k = st->inc_k[e];
        wake |= st->pr_out[k].act != 0.0 && (st->hot[st->pr_a[k]].bits & PBD_HOT_WAKES);
    }
    return wake;
}

/* The particles with pairs of free bodies' particles: shares per pair (such a pair divides by
 * the pair's common count), the fastest body particle touching (vrel2), and whether a fast
 * mover touches a sleeper. */
static gr_vec3 gather_pairs_shared(const sweep_ctx *c, uint32_t s, double own_share, uint32_t n_own, double *vrel2,
                                   bool *disturbed)
{
    const pbd_state *st = c->st;
    const bool asleep = st->hot[s].bits & PBD_HOT_ASLEEP;
    const gr_vec3 vi = st->v[st->perm[s]];
    gr_vec3 sum = {0, 0, 0};
    for (int side = 0; side < 2; side++) {
        const uint32_t e0 = side ? st->inc_start[s] : st->pf_start[s];
        const uint32_t e1 = side ? st->inc_start[s + 1] : st->pf_end[s];
        for (uint32_t e = e0; e < e1; e++) {
            const uint32_t k = side ? st->inc_k[e] : e;
            const pbd_pair_out o = st->pr_out[k];
            if (o.act == 0.0)
                continue;
            const uint32_t other = side ? st->pr_a[k] : st->pr_b[k];
            double share = own_share;
            if (st->pr_body[k]) {
                share = 1.0 / (double)GR_MAX(n_own, st->pk_touch[other] & 0xffffu);
                if (st->hot[other].bits & PBD_HOT_BODY)
                    *vrel2 = GR_MAX(*vrel2, v3_len2(v3_sub(st->v[st->perm[other]], vi)));
            }
            *disturbed |= asleep && (st->hot[other].bits & PBD_HOT_WAKES);
            sum = v3_madd(sum, v3(o.ux, o.uy, o.uz), side ? -st->pr_cb[k] * share : st->pr_ca[k] * share);
        }
    }
    return sum;
}

/* A particle (hot record hi, particle i, at q) meets an exact body ex it may reach: each
 * feature within reach projects q in turn. */
static GR_NOINLINE void exact_features(const sweep_ctx *c, const pbd_exact *ex, const pbd_hot *hi, uint32_t i, gr_vec3 pi,
                           gr_vec3 si, bool asleep, gr_vec3 *q, uint32_t *boundary, bool *disturbed)
{
    pbd_state *st = c->st;
    const uint32_t slot = ex->slot;
    const gr_body_data *b = &st->world->bodies.data[slot];
    /* a correction's force over the substep: m dx / h^2 */
    const double m_over_h = c->sense ? 1.0 / (hi->inv_m * c->h * c->h) : 0.0;
    for (uint32_t near = gr_body_features_near(b, *q, hi->r); near; near &= near - 1) {
        const uint32_t f = gr_lowest_bit(near);
        gr_vec3 nrm, pt;
        const double delta = hi->r - gr_body_feature_distance(b, f, *q, &nrm, &pt);
        if (!(delta > 0))
            continue;
        const gr_vec3 vb = gr_body_point_velocity(b, pt);
        *disturbed |= asleep && v3_len2(vb) > c->wake2;
        const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(*q, pi)), nrm, delta, v3_scale(vb, c->h),
                                                 pbd_mu(st, hi->mat, b->material));
        *q = v3_add(*q, corr);
        (*boundary)++;
        if (c->sense)
            sense(st, i, slot, v3_scale(corr, -m_over_h), v3_sub(pt, b->position));
    }
}

/* Exact surfaces: every one, every sweep (they are few, and a particle pushed far in one sweep
 * must still meet the wall); the test whether one is in reach is all most particles need. */
static GR_FORCE_INLINE void exact_surfaces(const sweep_ctx *c, const pbd_hot *hi, uint32_t i, gr_vec3 pi, gr_vec3 si,
                                  bool asleep, gr_vec3 *q, uint32_t *boundary, bool *disturbed)
{
    const pbd_state *st = c->st;
    for (uint32_t e = 0; e < st->exact_count; e++) {
        const pbd_exact *ex = &st->exact[e];
        if (c->stabilize && ex->moving)
            continue; /* its push must become velocity */
        if (ex->plane ? hi->r - v3_dot(v3_sub(*q, ex->centre), ex->normal) <= 0
                      : v3_len2(v3_sub(*q, ex->centre)) > (ex->bound + hi->r) * (ex->bound + hi->r))
            continue; /* clear of it (planes: the common floor) */
        exact_features(c, ex, hi, i, pi, si, asleep, q, boundary, disturbed);
    }
}

/* From pi, omega times the sum of the pair shares (each already divided by n_own); scaled back
 * to the plain average when more pairs touch now than n_own counted (stability first). */
static inline gr_vec3 averaged_move(const pbd_state *st, gr_vec3 pi, gr_vec3 sum, uint32_t n_own, uint32_t count)
{
    const double guard = count > n_own ? (double)n_own / (double)count : 1.0;
    return count ? v3_madd(pi, sum, st->par.relaxation * guard) : pi;
}

/* Where packed particle s goes in this sweep. */
static gr_vec3 solve_particle(const sweep_ctx *c, uint32_t s)
{
    pbd_state *st = c->st;
    const gr_body_store *bs = &st->world->bodies;
    const pbd_hot hi = st->hot[s];
    const uint32_t i = st->perm[s];
    const pbd_pk pk = st->pk[s];
    const gr_vec3 pi = c->stabilize ? pk.x : pk.p;
    const gr_vec3 si = v3_sub(pk.p, pk.x);
    /* a sleeping grain touched by something that moves faster than the sleep threshold wakes
     * (its own averaged correction may stay below it while it stops the mover like a wall);
     * grains must be ten times faster to wake: a settling pile's rattle must not
     * (PBD_HOT_WAKES, pbd_lists.c) */
    const bool asleep = hi.bits & PBD_HOT_ASLEEP;
    bool disturbed = false;
    /* fastest relative speed of a free body's particle touching, squared (grains and
     * immovable surfaces give nothing: a grain squeezed by a kinematic tool or in a crowd
     * keeps the max_acceleration bound) */
    double vrel2 = 0;
    /* group 1: the pairs, averaged */
    const uint32_t n_own = GR_MAX(st->pk_touch[s] & 0xffffu, 1u);
    const double own_share = 1.0 / (double)n_own;
    uint32_t count;
    gr_vec3 sum = gather_pairs(st, s, &count);
    if (GR_UNLIKELY(st->pk_bodypair[s])) {
        sum = gather_pairs_shared(c, s, own_share, n_own, &vrel2, &disturbed);
    } else {
        sum = v3_scale(sum, own_share);
        disturbed = asleep && !c->stabilize && st->pk_nearwake[s] && woken_by_pairs(st, s);
    }
    gr_vec3 q = averaged_move(st, pi, sum, n_own, count);
    /* group 2: immovable surfaces (exact bodies, fixed body particles), each projected in
     * turn onto the particle's updated position */
    /* a correction's force over the substep: m dx / h^2 (hoisted: cheaper than lazily) */
    const double m_over_h = c->sense ? 1.0 / (hi.inv_m * c->h * c->h) : 0.0;
    uint32_t boundary = 0;
    const uint32_t trapped = st->trap_slot[s];
    if (trapped != GR_INVALID_INDEX && !c->stabilize) {
        /* inside a body: out along its surface normal (Macklin 2014 sec. 5.2, with the body's
         * exact distance instead of a stored SDF) */
        const gr_vec3 nrm = st->trap_normal[s];
        const double delta = st->trap_depth[s] + hi.r - v3_dot(v3_sub(q, st->trap_at[s]), nrm);
        if (delta > 0) {
            const gr_body_data *b = &bs->data[trapped];
            const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(q, pi)), nrm, delta,
                                                     v3_scale(gr_body_point_velocity(b, q), c->h),
                                                     pbd_mu(st, hi.mat, b->material));
            q = v3_add(q, corr);
            boundary++;
            if (c->sense)
                sense(st, i, trapped, v3_scale(corr, -m_over_h), v3_sub(q, b->position));
        }
    }
    for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
        const double *e = st->fc_xyzr + 4 * (size_t)k; /* x, radius */
        const gr_vec3 old = v3(e[0], e[1], e[2]);
        const uint32_t u = st->fc_u[k];
        const gr_vec3 now = st->fixed_moving ? st->fx_now[u] : old; /* (static: x* = x) */
        const gr_vec3 pj = c->stabilize ? old : now;
        const double d = hi.r + e[3];
        const gr_vec3 xij = v3_sub(q, pj);
        const double l2 = v3_len2(xij);
        if (l2 >= d * d)
            continue;
        const uint32_t slot = st->fx_slot[u];
        if (trapped == slot)
            continue; /* the normal above replaces this body's particles */
        const double len = sqrt(l2);
        const gr_vec3 moved = v3_sub(now, old);
        disturbed |= asleep && v3_len2(moved) > c->wake2 * c->h * c->h;
        const gr_vec3 nrm = len > 1e-9 * d ? v3_scale(xij, 1.0 / len) : st->up;
        const gr_vec3 corr = boundary_correction(c, v3_add(si, v3_sub(q, pi)), nrm, d - len, moved,
                                                 pbd_mu(st, hi.mat, st->fx_mat[u]));
        q = v3_add(q, corr);
        boundary++;
        if (c->sense)
            sense(st, i, slot, v3_scale(corr, -m_over_h), v3_sub(pj, bs->data[slot].position));
    }
    exact_surfaces(c, &hi, i, pi, si, asleep, &q, &boundary, &disturbed);
    st->pk_touch_next[s] = GR_MIN(count, 0xffffu) | GR_MIN(boundary, 0xffffu) << 16;
    if (!c->stabilize) {
        /* touching in any sweep (a grain resting on a plane touches it in the first sweep only:
         * the rest find it exactly at its radius) */
        st->pk_flag[s] |= (uint8_t)((disturbed ? PBD_FLAG_DISTURBED : 0u) | (count || boundary ? PBD_FLAG_TOUCHED : 0u));
        if (vrel2 > 0)
            st->vnear[i] = GR_MAX(st->vnear[i], sqrt(vrel2));
    }
    return q;
}

/* solve_particle for a plain particle (pk_plain: awake, no pair with a free body's particle, no
 * fixed particle within reach, not trapped): the same operations in the same order, without
 * the branches it does not take. */
static GR_FORCE_INLINE gr_vec3 solve_plain(const sweep_ctx *c, uint32_t s)
{
    pbd_state *st = c->st;
    const pbd_hot *hi = &st->hot[s];
    const pbd_pk *pk = &st->pk[s];
    const gr_vec3 pi = c->stabilize ? pk->x : pk->p;
    const uint32_t n_own = GR_MAX(st->pk_touch[s] & 0xffffu, 1u);
    uint32_t count;
    const gr_vec3 sum = v3_scale(gather_pairs(st, s, &count), 1.0 / (double)n_own);
    gr_vec3 q = averaged_move(st, pi, sum, n_own, count);
    uint32_t boundary = 0;
    bool disturbed = false;
    exact_surfaces(c, hi, st->perm[s], pi, v3_sub(pk->p, pk->x), false, &q, &boundary, &disturbed);
    st->pk_touch_next[s] = GR_MIN(count, 0xffffu) | GR_MIN(boundary, 0xffffu) << 16;
    if (!c->stabilize && (count || boundary))
        st->pk_flag[s] |= PBD_FLAG_TOUCHED;
    return q;
}

static void particles_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const sweep_ctx *c = (const sweep_ctx *)vctx;
    pbd_state *st = c->st;
    for (uint32_t s = begin; s < end; s++) {
        if (st->hot[s].bits & PBD_HOT_FROZEN) { /* sits the substep out (pbd_freeze.c) */
            st->pk_touch_next[s] = st->pk_touch[s];
            continue;
        }
        const gr_vec3 q = st->pk_plain[s] ? solve_plain(c, s) : solve_particle(c, s);
        pbd_pk *pk = &st->pk[s];
        if (c->stabilize) {
            /* the stabilisation moves x and x* alike (no velocity); a sleeping grain keeps its
             * place */
            if (st->hot[s].bits & PBD_HOT_ASLEEP)
                continue;
            pk->p = v3_add(pk->p, v3_sub(q, pk->x));
            pk->x = q;
        } else {
            pk->p = q;
        }
    }
}

/* ---- sensing ------------------------------------------------------------------------------ */

gr_status pbd_reserve_sensing(pbd_state *st)
{
    if (st->sense_cap >= st->cap)
        return GR_OK;
    const gr_array_ref arrays[] = {{(void **)&st->sense_slot, 2 * sizeof(uint32_t)},
                                   {(void **)&st->sense_force, 2 * sizeof(gr_vec3)},
                                   {(void **)&st->sense_torque, 2 * sizeof(gr_vec3)}};
    if (!gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->sense_cap, st->cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    st->sense_cap = st->cap;
    for (uint32_t k = 0; k < 2 * st->cap; k++) {
        st->sense_slot[k] = GR_INVALID_INDEX;
        st->sense_force[k] = st->sense_torque[k] = v3(0, 0, 0);
    }
    return GR_OK;
}

void pbd_collect_impulses(pbd_state *st, double h)
{
    for (uint32_t m = 0; m < st->n_mov; m++) { /* only movable particles sense */
        const uint32_t i = st->mov[m];
        if (st->sense_slot[2 * i] == GR_INVALID_INDEX)
            continue; /* (records fill their first place first) */
        for (uint32_t k = 2 * i; k < 2 * i + 2; k++) {
            const uint32_t slot = st->sense_slot[k];
            if (slot == GR_INVALID_INDEX || slot >= st->imp_slots)
                continue;
            st->body_imp[2 * slot] = v3_madd(st->body_imp[2 * slot], st->sense_force[k], h);
            st->body_imp[2 * slot + 1] = v3_madd(st->body_imp[2 * slot + 1], st->sense_torque[k], h);
        }
    }
}

/* ---- a sweep -------------------------------------------------------------------------------- */

void pbd_contact_sweep(pbd_state *st, bool friction, bool stabilize, double h)
{
    const uint32_t nm = st->nm;
    if (!nm)
        return;
    const double wake = st->par.sleep_threshold * v3_len(st->world->def.gravity) * h;
    sweep_ctx c = {st, friction, stabilize, friction && st->sense_cap > 0, h, wake * wake, st->kernel, {{0}, 0, 0, 0, 0}};
    c.kc.up[0] = st->up.x;
    c.kc.up[1] = st->up.y;
    c.kc.up[2] = st->up.z;
    c.kc.friction = friction;
    c.kc.uniform = st->one_material;
    if (st->one_material) {
        const double *mu = pbd_mu(st, st->hot[0].mat, st->hot[0].mat);
        c.kc.mu_s = mu[0];
        c.kc.mu_k = mu[1];
    }
    gr_parallel_for(&st->world->tasks, nm, PBD_BLOCK, pairs_range, &c);
    gr_parallel_for(&st->world->tasks, nm, PBD_BLOCK, particles_range, &c);
    uint32_t *t = st->pk_touch; /* this sweep's counts are the next one's divisors */
    st->pk_touch = st->pk_touch_next;
    st->pk_touch_next = t;
}
