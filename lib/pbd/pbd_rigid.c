/* SPDX-License-Identifier: MIT */
/* Free bodies (dynamic and host-owned) in the PBD solve: rigid bodies with a pose, a mass and
 * the solid's inertia, as in Mueller et al. 2020 ("Detailed rigid body simulation with
 * extended position based dynamics"), whose surface particles meet grains and everything
 * else (docs/pbd.md, "Bodies").
 *
 *   - Prediction: the centre of mass moves with v + h g, the orientation turns with the
 *     angular velocity (with the gyroscopic term); the particles are placed from that pose.
 *   - Every sweep, after the grains' colours, each body's contacts are projected in a fixed
 *     order (one thread: bodies may share grains): a contact at point p with normal n has the
 *     generalised inverse mass w = 1/M + (r x n) . I^-1 (r x n), r = p - centre, and its
 *     multiplier change dl moves the centre by dl n / M and turns the body by I^-1 (r x dl n).
 *     The multipliers accumulate and are warm-started as the grains' are (pbd_solve.c).
 *   - After the sweeps: the particles take the final pose; the body's velocity is that of the
 *     substep's move; the contact impulses are the force the body sensed.
 * A grain hitting a body thus moves the body as a whole at once, with the body's true inertia:
 * light bodies float on sand, and momentum and angular momentum are exchanged exactly. */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/blowup.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_rigid.h"
#include "pbd_store.h"
#include "pbd_solve.h"
#include "pbd_bodies.h"
#include "pbd_marks.h"

/* ---- poses ----------------------------------------------------------------------------------- */

/* Offset of body particle i from the centre of mass, in the body frame. */
static inline gr_vec3 body_offset(const pbd_state *st, const pbd_body *pb, uint32_t i)
{
    return v3_add(pb->pc, st->rest[i]);
}

static inline gr_vec3 body_point_now(const pbd_state *st, const pbd_body *pb, uint32_t i)
{
    return v3_add(pb->xc, quat_rotate(pb->qc, body_offset(st, pb, i)));
}

static inline gr_vec3 body_point_start(const pbd_state *st, const pbd_body *pb, uint32_t i)
{
    return v3_add(pb->x0, quat_rotate(pb->q0, body_offset(st, pb, i)));
}

/* I^-1 v in world coordinates at the body's current orientation. */
static inline gr_vec3 inv_inertia_world(const pbd_body *pb, gr_vec3 v)
{
    const gr_quat qp = quat_mul(pb->qc, pb->principal);
    const gr_vec3 l = quat_rotate_inv(qp, v);
    return quat_rotate(qp, v3(l.x * pb->inv_inertia.x, l.y * pb->inv_inertia.y, l.z * pb->inv_inertia.z));
}

/* Generalised inverse mass of the body at world point p along unit direction n. */
static inline double body_inv_mass(const pbd_body *pb, gr_vec3 p, gr_vec3 n)
{
    const gr_vec3 rn = v3_cross(v3_sub(p, pb->xc), n);
    return pb->inv_mass + v3_dot(rn, inv_inertia_world(pb, rn));
}

/* A positional impulse j (kg m) at world point p. */
static inline void body_push(pbd_body *pb, gr_vec3 p, gr_vec3 j)
{
    pb->acc_j = v3_add(pb->acc_j, j); /* (what it sensed: exactly what moved it) */
    pb->acc_m = v3_add(pb->acc_m, v3_cross(v3_sub(p, pb->x0), j));
    pb->xc = v3_madd(pb->xc, j, pb->inv_mass);
    const gr_vec3 t = inv_inertia_world(pb, v3_cross(v3_sub(p, pb->xc), j));
    const gr_quat dq = quat_mul((gr_quat){t.x, t.y, t.z, 0}, pb->qc);
    pb->qc = quat_normalize((gr_quat){pb->qc.x + 0.5 * dq.x, pb->qc.y + 0.5 * dq.y, pb->qc.z + 0.5 * dq.z,
                                      pb->qc.w + 0.5 * dq.w});
}

static bool is_free(const pbd_state *st, const pbd_body *pb)
{
    (void)st;
    return !pb->fixed;
}

void pbd_rigid_predict(pbd_state *st, double h)
{
    const gr_vec3 g = (*st->env.gravity);
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        if (!is_free(st, pb))
            continue;
        const gr_body_data *b = &st->env.bodies->data[pb->slot];
        pb->inv_mass = b->mass > 0 ? 1.0 / b->mass : 0.0;
        pb->inv_inertia = v3(b->inertia.x > 0 ? 1.0 / b->inertia.x : 0.0, b->inertia.y > 0 ? 1.0 / b->inertia.y : 0.0,
                             b->inertia.z > 0 ? 1.0 / b->inertia.z : 0.0);
        pb->principal = b->principal;
        pb->pc = v3_sub(pb->centroid, b->com);
        pb->q0 = b->orientation;
        pb->x0 = v3_add(b->position, quat_rotate(b->orientation, b->com));
        gr_vec3 vc = v3_madd(gr_body_point_velocity(b, pb->x0), g, h);
        if (b->ext_active) /* what another system (a terrain) puts on the body */
            vc = v3_madd(vc, b->ext_force, h * pb->inv_mass);
        /* free rotation with the gyroscopic term, in the principal frame (explicit, as in
         * Mueller et al. 2020) */
        const gr_quat qp = quat_mul(pb->q0, pb->principal);
        gr_vec3 w = quat_rotate_inv(qp, b->angular_velocity);
        const gr_vec3 iw = v3(w.x * b->inertia.x, w.y * b->inertia.y, w.z * b->inertia.z);
        const gr_vec3 tq = v3_cross(iw, w); /* -(w x I w) */
        w = v3_add(w, v3(tq.x * pb->inv_inertia.x * h, tq.y * pb->inv_inertia.y * h, tq.z * pb->inv_inertia.z * h));
        if (b->ext_active) {
            const gr_vec3 te = quat_rotate_inv(
                qp, v3_add(b->ext_torque, v3_cross(v3_sub(b->position, pb->x0), b->ext_force)));
            w = v3_add(w, v3(te.x * pb->inv_inertia.x * h, te.y * pb->inv_inertia.y * h, te.z * pb->inv_inertia.z * h));
        }
        pb->w0 = quat_rotate(qp, w);
        pb->xc = v3_madd(pb->x0, vc, h);
        pb->qc = quat_integrate(pb->q0, pb->w0, h);
        pb->acc_j = pb->acc_m = v3(0, 0, 0);
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++)
            st->xp[i] = body_point_now(st, pb, i);
    }
}

/* ---- contacts ---------------------------------------------------------------------------------- */

/* One end of a contact as the rigid pass sees it: a particle that moves alone (a grain, w its
 * inverse mass, 0 when frozen), a free body's particle, or something immovable. */
typedef struct rb_end {
    pbd_body *body; ///< free body, or NULL
    uint32_t s;     ///< packed position (grains, body particles)
    uint32_t i;     ///< storage index (body particles)
    double w;       ///< grains: inverse mass
    double r;       ///< radius
} rb_end;

static inline gr_vec3 end_now(const pbd_state *st, const rb_end *e)
{
    return e->body ? body_point_now(st, e->body, e->i) : st->pk[e->s].p;
}

static inline gr_vec3 end_start(const pbd_state *st, const rb_end *e)
{
    return e->body ? body_point_start(st, e->body, e->i) : st->pk[e->s].x;
}

static inline double end_inv_mass(const rb_end *e, gr_vec3 p, gr_vec3 n)
{
    return e->body ? body_inv_mass(e->body, p, n) : e->w;
}

/* (a move larger than the solve's tolerance: the grain's neighbourhood, or the whole body's,
 * is swept again) */
static inline void end_push(pbd_state *st, const rb_end *e, gr_vec3 p, gr_vec3 j)
{
    if (e->body) {
        const double jl = v3_len(j);
        if (jl > 0 && jl * body_inv_mass(e->body, p, v3_scale(j, 1.0 / jl)) > st->gs_tol)
            e->body->moved = true;
        body_push(e->body, p, j);
    } else {
        const gr_vec3 dx = v3_scale(j, e->w);
        st->pk[e->s].p = v3_add(st->pk[e->s].p, dx);
        if (v3_len2(dx) > st->gs_tol * st->gs_tol)
            pbd_solve_mark(st, e->s);
    }
}

static rb_end end_of(pbd_state *st, uint32_t s)
{
    const pbd_hot *h = &st->hot[s];
    rb_end e = {NULL, s, st->perm[s], h->bits & PBD_HOT_FROZEN ? 0.0 : h->inv_m, h->r};
    if (h->bits & PBD_HOT_BODY)
        e.body = &st->bodies[h->owner];
    return e;
}

static inline gr_vec3 friction_step(gr_vec3 lt, gr_vec3 t, double w, double ln, const double *mu)
{
    const gr_vec3 want = v3_madd(lt, t, -1.0 / w);
    const double l2 = v3_len2(want), cap_s = mu[0] * ln;
    if (l2 <= cap_s * cap_s)
        return want;
    return v3_scale(want, mu[1] * ln / sqrt(l2));
}

/* A contact between end a (pushed along +n) and end b: a at pa, b at pb (b immovable when
 * b->w == 0 and !b->body; then sb is its displacement this substep), penetration depth delta,
 * accumulated multipliers *ln, *lt (on a). Contact points: a's surface and b's. */
static void project(pbd_state *st, const rb_end *a, const rb_end *b, gr_vec3 n, double delta, gr_vec3 ca, gr_vec3 cb,
                    gr_vec3 sb, const double *mu, double *ln, gr_vec3 *lt)
{
    const double wn = end_inv_mass(a, ca, n) + end_inv_mass(b, cb, n);
    if (!(wn > 0))
        return;
    double ln_new = *ln + delta / wn;
    ln_new = ln_new > 0 ? ln_new : 0.0;
    const gr_vec3 jn = v3_scale(n, ln_new - *ln);
    end_push(st, a, ca, jn);
    end_push(st, b, cb, v3_scale(jn, -1.0));
    *ln = ln_new;
    gr_vec3 lt_new = {0, 0, 0};
    if (ln_new > 0) {
        /* the slip of the two particles' centres over the substep, tangential part */
        const gr_vec3 da = v3_sub(end_now(st, a), end_start(st, a));
        const gr_vec3 db = b->body || b->w > 0 ? v3_sub(end_now(st, b), end_start(st, b)) : sb;
        const gr_vec3 s = v3_sub(da, db);
        const gr_vec3 t = v3_madd(s, n, -v3_dot(s, n));
        const double tl = v3_len(t);
        if (tl > 0) {
            const gr_vec3 dir = v3_scale(t, 1.0 / tl);
            const double wt = end_inv_mass(a, ca, dir) + end_inv_mass(b, cb, dir);
            lt_new = friction_step(*lt, t, wt, ln_new, mu);
        } else {
            lt_new = *lt;
            const double cap = mu[0] * ln_new;
            if (v3_len2(lt_new) > cap * cap)
                lt_new = v3_scale(lt_new, mu[1] * ln_new / v3_len(lt_new));
        }
    }
    const gr_vec3 jt = v3_sub(lt_new, *lt);
    end_push(st, a, ca, jt);
    end_push(st, b, cb, v3_scale(jt, -1.0));
    *lt = lt_new;
}

/* Pair k (one end a free body's particle): projected, or (warm) its warm start applied. */
static void body_pair(pbd_state *st, uint32_t k, bool warm)
{
    const rb_end a = end_of(st, st->pr_a[k]), b = end_of(st, st->pr_b[k]);
    const gr_vec3 pa = end_now(st, &a), pb = end_now(st, &b);
    const gr_vec3 xab = v3_sub(pa, pb);
    const double d = st->pr_d[k] - st->pr_s0[k], l2 = v3_len2(xab);
    if (st->pr_ln[k] == 0.0 && (warm || l2 >= d * d))
        return;
    const double len = sqrt(l2);
    const gr_vec3 n = len > 1e-9 * d ? v3_scale(xab, 1.0 / len) : st->up;
    const gr_vec3 ca = v3_madd(pa, n, -a.r), cb = v3_madd(pb, n, b.r);
    if (warm) {
        /* the last substep's multipliers, along this substep's normal */
        st->pr_lt[k] = v3_madd(st->pr_lt[k], n, -v3_dot(st->pr_lt[k], n));
        const gr_vec3 j = v3_madd(st->pr_lt[k], n, st->pr_ln[k]);
        end_push(st, &a, ca, j);
        end_push(st, &b, cb, v3_scale(j, -1.0));
        return;
    }
    project(st, &a, &b, n, d - len, ca, cb, v3(0, 0, 0), pbd_mu(st, st->hot[a.s].mat, st->hot[b.s].mat), &st->pr_ln[k],
            &st->pr_lt[k]);
}

/* Body particle s against fixed particles and exact surfaces. */
static void body_boundaries(pbd_state *st, uint32_t s, double h)
{
    const rb_end a = end_of(st, s);
    const rb_end none = {NULL, 0, 0, 0.0, 0.0};
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
        const double *e = st->fc_xyzr + 4 * (size_t)k;
        const gr_vec3 old = v3(e[0], e[1], e[2]);
        const uint32_t u = st->fc_u[k];
        const gr_vec3 now = st->fixed_moving ? st->fx_now[u] : old;
        const gr_vec3 pa = end_now(st, &a), xij = v3_sub(pa, now);
        const double d = a.r + e[3], l2 = v3_len2(xij);
        if (st->fc_an[k] == 0.0 && l2 >= d * d)
            continue;
        const double len = sqrt(l2);
        const gr_vec3 n = len > 1e-9 * d ? v3_scale(xij, 1.0 / len) : st->up;
        project(st, &a, &none, n, d - len, v3_madd(pa, n, -a.r), v3_madd(now, n, e[3]), v3_sub(now, old),
                pbd_mu(st, st->hot[s].mat, st->fx_mat[u]), &st->fc_an[k], &st->fc_at[k]);
    }
    pbd_exact_acc *ea = &st->ex_acc[s];
    for (uint32_t e = 0; e < st->exact_count; e++) {
        const pbd_exact *ex = &st->exact[e];
        if (bs->data[ex->slot].shape == GR_SHAPE_HEIGHTFIELD)
            continue; /* a terrain carries bodies itself (lib/terrain/terrain_press.c) */
        const gr_vec3 pa = end_now(st, &a);
        if (ex->plane ? a.r - v3_dot(v3_sub(pa, ex->centre), ex->normal) <= 0
                      : v3_len2(v3_sub(pa, ex->centre)) > (ex->bound + a.r) * (ex->bound + a.r)) {
            bool held = false; /* a slot that pressed before is taken back when apart */
            for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++)
                held |= ea->key[m] >> 8 == e && ea->an[m] > 0;
            if (!held)
                continue;
        }
        const gr_body_data *b = &bs->data[ex->slot];
        for (uint32_t f = 0; f < gr_body_feature_count(b); f++) {
            if (!gr_body_feature_enabled(b, f))
                continue;
            const gr_vec3 p = end_now(st, &a);
            gr_vec3 nrm, pt;
            const double delta = a.r - gr_body_feature_distance(b, f, p, &nrm, &pt);
            const uint32_t key = e << 8 | f;
            uint32_t m = pbd_exact_slot(ea, key, false);
            if (m == PBD_EXACT_SLOTS && (!(delta > 0) || (m = pbd_exact_slot(ea, key, true)) == PBD_EXACT_SLOTS))
                continue;
            const gr_vec3 sb = ex->moving ? v3_scale(gr_body_point_velocity(b, pt), h) : v3(0, 0, 0);
            project(st, &a, &none, nrm, delta, v3_madd(p, nrm, -a.r), pt, sb, pbd_mu(st, st->hot[s].mat, b->material),
                    &ea->an[m], &ea->at[m]);
            ea->nrm[m] = nrm;
        }
    }
}

/* The warm start of body particle s's immovable contacts (loaded by pbd_solve.c). */
static void body_boundaries_warm(pbd_state *st, uint32_t s)
{
    const rb_end a = end_of(st, s);
    for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
        if (!(st->fc_an[k] > 0))
            continue;
        const double *e = st->fc_xyzr + 4 * (size_t)k;
        const gr_vec3 pa = end_now(st, &a), xij = v3_sub(pa, v3(e[0], e[1], e[2]));
        const double len = v3_len(xij);
        const gr_vec3 n = len > 0 ? v3_scale(xij, 1.0 / len) : st->up;
        st->fc_at[k] = v3_madd(st->fc_at[k], n, -v3_dot(st->fc_at[k], n));
        body_push(a.body, v3_madd(pa, n, -a.r), v3_madd(st->fc_at[k], n, st->fc_an[k]));
    }
    pbd_exact_acc *ea = &st->ex_acc[s];
    for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++) {
        if (ea->key[m] == UINT32_MAX || !(ea->an[m] > 0))
            continue;
        const gr_vec3 pa = end_now(st, &a), n = ea->nrm[m];
        body_push(a.body, v3_madd(pa, n, -a.r), v3_madd(ea->at[m], n, ea->an[m]));
    }
}

/* Does packed pair k belong to the rigid pass as seen from its second end s? (Pairs of two
 * bodies' particles are solved from their first end.) */
static inline bool from_second(const pbd_state *st, uint32_t k)
{
    return st->pr_body[k] && !(st->hot[st->pr_a[k]].bits & PBD_HOT_BODY);
}

static void body_contacts(pbd_state *st, const pbd_body *pb, double h, bool warm, bool reverse)
{
    if (warm) { /* the pairs' warm start first (immovable contacts have none) */
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++) {
            const uint32_t s = st->pos_of[i];
            if (s == GR_INVALID_INDEX)
                continue;
            for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
                body_pair(st, k, true);
            for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++)
                if (from_second(st, st->inc_k[e]))
                    body_pair(st, st->inc_k[e], true);
            body_boundaries_warm(st, s);
        }
    }
    for (uint32_t n = 0; n < pb->count; n++) {
        const uint32_t i = pb->first + (reverse ? pb->count - 1 - n : n), s = st->pos_of[i];
        if (s == GR_INVALID_INDEX)
            continue;
        if (!reverse) {
            for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
                body_pair(st, k, false);
            for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++)
                if (from_second(st, st->inc_k[e]))
                    body_pair(st, st->inc_k[e], false);
            body_boundaries(st, s, h);
        } else {
            body_boundaries(st, s, h);
            for (uint32_t e = st->inc_start[s + 1]; e-- > st->inc_start[s];)
                if (from_second(st, st->inc_k[e]))
                    body_pair(st, st->inc_k[e], false);
            for (uint32_t k = st->pf_end[s]; k-- > st->pf_start[s];)
                body_pair(st, k, false);
        }
    }
}

/* Grain s trapped inside free body pb (its centre passed the shell; found at the start pose):
 * the surface point above it and its normal, carried along with the body since the start. */
static void trap_surface(const pbd_state *st, const pbd_body *pb, uint32_t s, gr_vec3 *at, gr_vec3 *n)
{
    const gr_quat turn = quat_mul(pb->qc, quat_conj(pb->q0));
    *n = quat_rotate(turn, st->trap_normal[s]);
    const gr_vec3 inside = v3_add(pb->xc, quat_rotate(turn, v3_sub(st->trap_at[s], pb->x0)));
    *at = v3_madd(inside, *n, st->trap_depth[s]);
}

/* It leaves along that normal, and the body takes the reaction; no friction (it is on its way
 * out through the shell). */
static void trapped_contact(pbd_state *st, uint32_t s)
{
    pbd_body *pb = &st->bodies[st->body_of_slot[st->trap_slot[s]]];
    const rb_end a = end_of(st, s), b = {pb, s, pb->first, 0.0, 0.0};
    gr_vec3 sp, n;
    trap_surface(st, pb, s, &sp, &n);
    const gr_vec3 q = st->pk[s].p;
    const double delta = a.r - v3_dot(v3_sub(q, sp), n);
    if (st->tr_an[s] == 0.0 && !(delta > 0))
        return;
    static const double frictionless[2] = {0.0, 0.0};
    project(st, &a, &b, n, delta, v3_madd(q, n, -a.r), sp, v3(0, 0, 0), frictionless, &st->tr_an[s], &st->tr_at[s]);
}

void pbd_rigid_sweep(pbd_state *st, double h, bool warm, bool reverse)
{
    for (uint32_t k = 0; k < st->trap_free_n; k++)
        trapped_contact(st, st->trap_free[reverse ? st->trap_free_n - 1 - k : k]);
    for (uint32_t n = 0; n < st->nb; n++) {
        pbd_body *pb = &st->bodies[reverse ? st->nb - 1 - n : n];
        if (!is_free(st, pb))
            continue;
        pb->moved = false;
        body_contacts(st, pb, h, warm, reverse);
        if (pb->moved)
            for (uint32_t i = pb->first; i < pb->first + pb->count; i++)
                if (st->pos_of[i] != GR_INVALID_INDEX)
                    pbd_solve_mark(st, st->pos_of[i]);
    }
}

/* ---- after the sweeps ------------------------------------------------------------------------ */

/* A free body's contact impulse this substep [N s] and its moment about the body position:
 * the positional impulses that moved it, over h. */
static void body_impulse(pbd_state *st, const pbd_body *pb, double h)
{
    if (pb->slot >= st->imp_slots)
        return;
    const gr_body_data *b = &st->env.bodies->data[pb->slot];
    const gr_vec3 position = v3_sub(pb->xc, quat_rotate(pb->qc, b->com));
    const gr_vec3 m = v3_add(pb->acc_m, v3_cross(v3_sub(pb->x0, position), pb->acc_j));
    st->body_imp[2 * pb->slot] = v3_madd(st->body_imp[2 * pb->slot], pb->acc_j, 1.0 / h);
    st->body_imp[2 * pb->slot + 1] = v3_madd(st->body_imp[2 * pb->slot + 1], m, 1.0 / h);
}

void pbd_rigid_end(pbd_state *st, double h)
{
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t k = 0; k < st->trap_free_n; k++) {
        const uint32_t s = st->trap_free[k];
        if (!(st->tr_an[s] > 0))
            continue;
        const pbd_body *pb = &st->bodies[st->body_of_slot[st->trap_slot[s]]];
        gr_vec3 sp, n;
        trap_surface(st, pb, s, &sp, &n);
        const uint32_t gi = st->perm[s];
        const gr_vec3 vb = gr_body_point_velocity(&bs->data[pb->slot], sp);
        st->vnear[gi] = GR_MAX(st->vnear[gi], v3_len(v3_sub(vb, st->v[gi])));
    }
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        if (!is_free(st, pb))
            continue;
        body_impulse(st, pb, h);
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++) {
            const uint32_t s = st->pos_of[i];
            if (s == GR_INVALID_INDEX)
                continue;
            const gr_vec3 p = body_point_now(st, pb, i);
            st->pk[s].p = p;
            const double m_over_h = 1.0 / (h * h); /* (a multiplier in kg m is an impulse times h) */
            /* pairs: grains touching learn its speed (the body's force: body_impulse) */
            for (int side = 0; side < 2; side++) {
                const uint32_t e0 = side ? st->inc_start[s] : st->pf_start[s];
                const uint32_t e1 = side ? st->inc_start[s + 1] : st->pf_end[s];
                for (uint32_t e = e0; e < e1; e++) {
                    const uint32_t k = side ? st->inc_k[e] : e;
                    if (!(st->pr_ln[k] > 0))
                        continue;
                    const uint32_t o = side ? st->pr_a[k] : st->pr_b[k];
                    if (!(st->hot[o].bits & PBD_HOT_BODY)) {
                        const uint32_t gi = st->perm[o];
                        st->vnear[gi] = GR_MAX(st->vnear[gi], v3_len(v3_sub(st->v[i], st->v[gi])));
                    }
                }
            }
            /* immovable things: the body's force on them */
            for (uint32_t k = st->fc_start[s]; k < st->fc_end[s]; k++) {
                if (!(st->fc_an[k] > 0))
                    continue;
                const uint32_t u = st->fc_u[k];
                const double *e = st->fc_xyzr + 4 * (size_t)k;
                const gr_vec3 now = st->fixed_moving ? st->fx_now[u] : v3(e[0], e[1], e[2]);
                const gr_vec3 xij = v3_sub(p, now);
                const double len = v3_len(xij);
                const gr_vec3 n = len > 0 ? v3_scale(xij, 1.0 / len) : st->up;
                const gr_vec3 j = v3_madd(st->fc_at[k], n, st->fc_an[k]);
                const uint32_t slot = st->fx_slot[u];
                pbd_sense(st, i, slot, v3_scale(j, -m_over_h), v3_sub(now, bs->data[slot].position));
            }
            const pbd_exact_acc *ea = &st->ex_acc[s];
            for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++) {
                if (ea->key[m] == UINT32_MAX || !(ea->an[m] > 0))
                    continue;
                const pbd_exact *ex = &st->exact[ea->key[m] >> 8];
                const gr_vec3 j = v3_madd(ea->at[m], ea->nrm[m], ea->an[m]);
                const gr_vec3 pt = v3_madd(p, ea->nrm[m], -st->r[i]);
                pbd_sense(st, i, ex->slot, v3_scale(j, -m_over_h), v3_sub(pt, bs->data[ex->slot].position));
            }
        }
    }
}

/* Free bodies take the pose of the solve and the velocity of the substep's move. */
uint32_t pbd_bodies_write_back(pbd_state *st, double h)
{
    gr_body_store *bs = st->env.bodies;
    uint32_t bad = 0;
    for (uint32_t r = 0; r < st->nb; r++) {
        pbd_body *pb = &st->bodies[r];
        if (!is_free(st, pb))
            continue;
        gr_body_data *b = &bs->data[pb->slot];
        /* angular velocity from the turn of this substep: dq = q q0^-1 */
        gr_quat dq = quat_mul(pb->qc, quat_conj(pb->q0));
        if (dq.w < 0)
            dq = (gr_quat){-dq.x, -dq.y, -dq.z, -dq.w};
        const double sn = sqrt(dq.x * dq.x + dq.y * dq.y + dq.z * dq.z);
        const double angle = 2.0 * atan2(sn, dq.w);
        const gr_vec3 w = sn > 1e-300 ? v3_scale(v3(dq.x, dq.y, dq.z), angle / (sn * h)) : v3(0, 0, 0);
        const gr_vec3 vc = v3_scale(v3_sub(pb->xc, pb->x0), 1.0 / h);
        if (GR_UNLIKELY(!v3_finite(pb->xc) || !quat_finite(pb->qc) || gr_blown_up(vc, w, gr_body_bound_radius(b)))) {
            /* blown up: it keeps its last finite state, stopped, its particles where they were
             * (the step reports GR_ERROR_UNSTABLE) */
            b->linear_velocity = b->angular_velocity = v3(0, 0, 0);
            pbd_place_body(st, pb, st->x);
            for (uint32_t i = pb->first; i < pb->first + pb->count; i++) {
                st->xp[i] = st->x[i];
                st->v[i] = st->f[i] = v3(0, 0, 0);
            }
            bad++;
            continue;
        }
        b->orientation = pb->qc;
        b->position = v3_sub(pb->xc, quat_rotate(pb->qc, b->com));
        b->angular_velocity = w;
        b->linear_velocity = v3_add(vc, v3_cross(w, v3_sub(b->position, pb->xc)));
        gr_body_update_frame(b);
        pb->rot = pb->qc;
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++)
            st->v[i] = gr_body_point_velocity(b, st->x[i]);
    }
    return bad;
}
