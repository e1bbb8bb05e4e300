/* SPDX-License-Identifier: MIT */
/* Adaptive Runge-Kutta-Fehlberg 4(5) (Bell 2005, section 3.4; docs/dem.md "Integration").
 *
 * State: free spheres (x, v, w), clumps and dynamic bodies (x, v, L, q). Six stages per step;
 * the 5th-order solution is kept and the difference to the embedded 4th-order one is the error
 * estimate. Step size control: h <- h min(5, max(0.2, 0.9 err^-1/5)), accepted when err <= 1.
 *
 * Contact history (the tangential spring xi, the EPSD rolling moment) is not an ODE state: each
 * stage evaluates the forces from xi_n advanced by c_s h times the stage's slip velocity, and an
 * accepted step commits xi_n+1 = xi_n + h v_t(y_n+1) with one more evaluation at y_n+1, which
 * is also the next step's first stage. A rejected step restores the histories.
 *
 * Neighbour lists: a stage that moves anything further than the lists allow aborts the step;
 * the lists are rebuilt at the step's start and the step is tried again. Bodies' force sensing
 * sums the stages' forces with the 5th-order weights. */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/blowup.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_rkf45.h"
#include "dem_params.h"
#include "dem_points.h"
#include "dem_rkf45_store.h"
#include "dem_blowups.h"
#include "dem_rebuild.h"
#include "dem_clumps.h"
#include "dem_bodies.h"
#include "dem_forces.h"
#include "dem_inputs.h"

static const double C[STAGES] = {0.0, 1.0 / 4, 3.0 / 8, 12.0 / 13, 1.0, 1.0 / 2};
static const double A[STAGES][STAGES - 1] = {
    {0},
    {1.0 / 4},
    {3.0 / 32, 9.0 / 32},
    {1932.0 / 2197, -7200.0 / 2197, 7296.0 / 2197},
    {439.0 / 216, -8.0, 3680.0 / 513, -845.0 / 4104},
    {-8.0 / 27, 2.0, -3544.0 / 2565, 1859.0 / 4104, -11.0 / 40},
};
static const double B5[STAGES] = {16.0 / 135, 0.0, 6656.0 / 12825, 28561.0 / 56430, -9.0 / 50, 2.0 / 55};
static const double B4[STAGES] = {25.0 / 216, 0.0, 1408.0 / 2565, 2197.0 / 4104, -1.0 / 5, 0.0};

/* ---- storage --------------------------------------------------------------------------------- */

/* Room for the current grains, clumps, lists and bodies. */
static gr_status reserve(dem_state *st) { return dem_rkf45_reserve(st, st->n, st->nb_count, st->bc_count); }

/* ---- the passes -------------------------------------------------------------------------------- */

typedef enum rkf_pass { PASS_SAVE, PASS_RESTORE, PASS_DERIV, PASS_STAGE, PASS_FINISH, PASS_GRAVITY } rkf_pass;

typedef struct rkf_ctx {
    dem_state *st;
    rkf_pass pass;
    int stage;    ///< PASS_DERIV: the stage to store; PASS_STAGE: the stage to set up
    double h;
    double tol;
    double vscale2; ///< g r for the velocity error scale: (g r_i) -> sqrt
    uint32_t clump_block0; ///< index of the first clump block in the block arrays
} rkf_ctx;

static inline double *sph_k(const struct dem_rkf *r, uint32_t cap, int s, uint32_t i)
{
    return r->k + ((size_t)s * cap + i) * SPH;
}

static inline double *clu_k(const struct dem_rkf *r, uint32_t cap, int s, uint32_t c)
{
    return r->ck + ((size_t)s * cap + c) * CLU;
}

static void sphere_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const rkf_ctx *c = (const rkf_ctx *)vctx;
    dem_state *st = c->st;
    struct dem_rkf *r = st->rkf;
    const uint32_t cap = r->cap;
    const gr_vec3 g = (*st->env.gravity);
    double max_d2 = 0, max_err = 0;
    for (uint32_t i = begin; i < end; i++) {
        if (st->member[i] != GR_INVALID_INDEX) {
            if (c->pass == PASS_GRAVITY) {
                st->f[i] = v3(0, 0, 0);
                st->t[i] = v3(0, 0, 0);
            } else if ((c->pass == PASS_STAGE || c->pass == PASS_FINISH) && st->slot[i] != GR_INVALID_INDEX) {
                const double d2 = v3_len2(v3_sub(xr_pos(&st->xr[i]), st->x_ref[i]));
                max_d2 = d2 > max_d2 ? d2 : max_d2; /* placed by the clump pass before */
            }
            continue;
        }
        double *y0 = r->y0 + (size_t)i * SPH;
        switch (c->pass) {
        case PASS_SAVE:
            y0[0] = st->xr[i].x, y0[1] = st->xr[i].y, y0[2] = st->xr[i].z;
            y0[3] = st->v[i].x, y0[4] = st->v[i].y, y0[5] = st->v[i].z;
            y0[6] = st->w[i].x, y0[7] = st->w[i].y, y0[8] = st->w[i].z;
            break;
        case PASS_RESTORE:
            st->xr[i].x = y0[0], st->xr[i].y = y0[1], st->xr[i].z = y0[2];
            st->v[i] = v3(y0[3], y0[4], y0[5]);
            st->w[i] = v3(y0[6], y0[7], y0[8]);
            break;
        case PASS_GRAVITY:
            st->f[i] = v3_scale(g, st->m[i]);
            st->t[i] = v3(0, 0, 0);
            break;
        case PASS_DERIV: {
            double *k = sph_k(r, cap, c->stage, i);
            const double am = st->inv_m[i], ai = st->inv_i[i];
            k[0] = st->v[i].x, k[1] = st->v[i].y, k[2] = st->v[i].z;
            k[3] = st->f[i].x * am, k[4] = st->f[i].y * am, k[5] = st->f[i].z * am;
            k[6] = st->t[i].x * ai, k[7] = st->t[i].y * ai, k[8] = st->t[i].z * ai;
            break;
        }
        case PASS_STAGE:
        case PASS_FINISH: {
            double y[SPH], e[SPH];
            for (int a = 0; a < SPH; a++) {
                y[a] = y0[a];
                e[a] = 0;
            }
            const int s = c->stage;
            for (int j = 0; j < (c->pass == PASS_FINISH ? STAGES : s); j++) {
                const double *k = sph_k(r, cap, j, i);
                const double w = c->pass == PASS_FINISH ? B5[j] : A[s][j];
                const double we = c->pass == PASS_FINISH ? B5[j] - B4[j] : 0.0;
                for (int a = 0; a < SPH; a++) {
                    y[a] += c->h * w * k[a];
                    e[a] += c->h * we * k[a];
                }
            }
            st->xr[i].x = y[0], st->xr[i].y = y[1], st->xr[i].z = y[2];
            st->v[i] = v3(y[3], y[4], y[5]);
            st->w[i] = v3(y[6], y[7], y[8]);
            const double d2 = v3_len2(v3_sub(xr_pos(&st->xr[i]), st->x_ref[i]));
            max_d2 = d2 > max_d2 || d2 != d2 ? d2 : max_d2;
            if (c->pass == PASS_FINISH) {
                /* mixed absolute / relative scales: a tolerance of the radius for positions,
                 * of the speed (at least sqrt(g r)) for velocities */
                const double ri = st->xr[i].r;
                const double vs = c->tol * (sqrt(c->vscale2 * ri) + sqrt(y0[3] * y0[3] + y0[4] * y0[4] + y0[5] * y0[5]));
                const double ex = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / (c->tol * ri);
                const double ev = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]) / vs;
                const double ew = sqrt(e[6] * e[6] + e[7] * e[7] + e[8] * e[8]) * ri / vs;
                double err = ex > ev ? ex : ev;
                err = ew > err ? ew : err;
                max_err = err > max_err || err != err ? err : max_err;
            }
            break;
        }
        }
    }
    const uint32_t b = begin / RKF_BLOCK;
    r->block_disp[b] = max_d2;
    r->block_err[b] = max_err;
}

/* World angular velocity of a clump from its momentum. */
static gr_vec3 clump_omega(gr_quat q, gr_vec3 inertia, gr_vec3 L)
{
    const gr_vec3 l = quat_rotate_inv(q, L);
    return quat_rotate(q, v3(l.x / inertia.x, l.y / inertia.y, l.z / inertia.z));
}

static void clump_range_rkf(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const rkf_ctx *c = (const rkf_ctx *)vctx;
    dem_state *st = c->st;
    struct dem_rkf *r = st->rkf;
    const uint32_t cap = r->c_cap;
    const gr_vec3 g = (*st->env.gravity);
    double max_err = 0;
    for (uint32_t i = begin; i < end; i++) {
        if (st->c_slot[i] == GR_INVALID_INDEX)
            continue;
        if (st->c_fixed[i]) {
            /* static or kinematic: follows its body (posed for the stage's time) */
            if (c->pass == PASS_GRAVITY) {
                st->c_f[i] = v3(0, 0, 0);
                st->c_t[i] = v3(0, 0, 0);
            } else if (c->pass == PASS_STAGE || c->pass == PASS_FINISH || c->pass == PASS_RESTORE) {
                dem_sync_body_clump(st, i);
            }
            continue;
        }
        double *y0 = r->cy0 + (size_t)i * CLU;
        switch (c->pass) {
        case PASS_SAVE:
            y0[0] = st->c_x[i].x, y0[1] = st->c_x[i].y, y0[2] = st->c_x[i].z;
            y0[3] = st->c_v[i].x, y0[4] = st->c_v[i].y, y0[5] = st->c_v[i].z;
            y0[6] = st->c_L[i].x, y0[7] = st->c_L[i].y, y0[8] = st->c_L[i].z;
            y0[9] = st->c_q[i].x, y0[10] = st->c_q[i].y, y0[11] = st->c_q[i].z, y0[12] = st->c_q[i].w;
            break;
        case PASS_RESTORE:
            st->c_x[i] = v3(y0[0], y0[1], y0[2]);
            st->c_v[i] = v3(y0[3], y0[4], y0[5]);
            st->c_L[i] = v3(y0[6], y0[7], y0[8]);
            st->c_q[i] = (gr_quat){y0[9], y0[10], y0[11], y0[12]};
            st->c_w[i] = clump_omega(st->c_q[i], st->c_inertia[i], st->c_L[i]);
            dem_place_members(st, i);
            break;
        case PASS_GRAVITY:
            st->c_f[i] = v3_scale(g, st->c_m[i]);
            st->c_t[i] = v3(0, 0, 0);
            break;
        case PASS_DERIV: {
            double *k = clu_k(r, cap, c->stage, i);
            const double am = 1.0 / st->c_m[i];
            const gr_vec3 w = st->c_w[i];
            const gr_quat q = st->c_q[i];
            k[0] = st->c_v[i].x, k[1] = st->c_v[i].y, k[2] = st->c_v[i].z;
            k[3] = st->c_f[i].x * am, k[4] = st->c_f[i].y * am, k[5] = st->c_f[i].z * am;
            k[6] = st->c_t[i].x, k[7] = st->c_t[i].y, k[8] = st->c_t[i].z;
            /* dq/dt = 1/2 (w, 0) q */
            const gr_quat wq = quat_mul((gr_quat){w.x, w.y, w.z, 0.0}, q);
            k[9] = 0.5 * wq.x, k[10] = 0.5 * wq.y, k[11] = 0.5 * wq.z, k[12] = 0.5 * wq.w;
            break;
        }
        case PASS_STAGE:
        case PASS_FINISH: {
            double y[CLU], e[CLU];
            for (int a = 0; a < CLU; a++) {
                y[a] = y0[a];
                e[a] = 0;
            }
            const int s = c->stage;
            for (int j = 0; j < (c->pass == PASS_FINISH ? STAGES : s); j++) {
                const double *k = clu_k(r, cap, j, i);
                const double w = c->pass == PASS_FINISH ? B5[j] : A[s][j];
                const double we = c->pass == PASS_FINISH ? B5[j] - B4[j] : 0.0;
                for (int a = 0; a < CLU; a++) {
                    y[a] += c->h * w * k[a];
                    e[a] += c->h * we * k[a];
                }
            }
            st->c_x[i] = v3(y[0], y[1], y[2]);
            st->c_v[i] = v3(y[3], y[4], y[5]);
            st->c_L[i] = v3(y[6], y[7], y[8]);
            st->c_q[i] = quat_normalize((gr_quat){y[9], y[10], y[11], y[12]});
            st->c_w[i] = clump_omega(st->c_q[i], st->c_inertia[i], st->c_L[i]);
            dem_place_members(st, i);
            if (c->pass == PASS_FINISH) {
                const double ri = st->c_radius[i];
                const double vs = c->tol * (sqrt(c->vscale2 * ri) + sqrt(y0[3] * y0[3] + y0[4] * y0[4] + y0[5] * y0[5]));
                const gr_vec3 in = st->c_inertia[i];
                const double imax = GR_MAX(in.x, GR_MAX(in.y, in.z));
                const double ex = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / (c->tol * ri);
                const double ev = sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]) / vs;
                const double eL = sqrt(e[6] * e[6] + e[7] * e[7] + e[8] * e[8]) * ri / (imax * vs);
                const double eq = sqrt(e[9] * e[9] + e[10] * e[10] + e[11] * e[11] + e[12] * e[12]) / c->tol;
                double err = GR_MAX(GR_MAX(ex, ev), GR_MAX(eL, eq));
                max_err = err > max_err || err != err ? err : max_err;
            }
            break;
        }
        }
    }
    r->block_err[c->clump_block0 + begin / RKF_CLUMP_BLOCK] = max_err;
    r->block_disp[c->clump_block0 + begin / RKF_CLUMP_BLOCK] = 0;
}

/* Run a pass over clumps, then spheres (members are placed by their clump first); returns the
 * largest squared displacement and error of the pass. */
static void run(dem_state *st, rkf_pass pass, int stage, double h, double *disp2, double *err)
{
    struct dem_rkf *r = st->rkf;
    const uint32_t nsb = (st->n + RKF_BLOCK - 1) / RKF_BLOCK, ncb = (st->nc + RKF_CLUMP_BLOCK - 1) / RKF_CLUMP_BLOCK;
    const double g = v3_len((*st->env.gravity));
    rkf_ctx c = {st, pass, stage, h, st->def->rkf_tolerance, g, nsb};
    for (uint32_t b = 0; b < nsb + ncb; b++)
        r->block_err[b] = r->block_disp[b] = 0;
    if (st->nc)
        gr_parallel_for_affine(st->env.tasks, st->nc, RKF_CLUMP_BLOCK, clump_range_rkf, &c);
    if (st->n)
        gr_parallel_for_affine(st->env.tasks, st->n, RKF_BLOCK, sphere_range, &c);
    double d = 0, e = 0;
    for (uint32_t b = 0; b < nsb + ncb; b++) {
        d = r->block_disp[b] > d || r->block_disp[b] != r->block_disp[b] ? r->block_disp[b] : d;
        e = r->block_err[b] > e || r->block_err[b] != r->block_err[b] ? r->block_err[b] : e;
    }
    if (disp2)
        *disp2 = d;
    if (err)
        *err = e;
}

/* ---- bodies and histories ------------------------------------------------------------------------ */

/* memcpy that accepts empty (possibly NULL) arrays. */
static inline void copy(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memcpy(dst, src, bytes);
}

static void save_step(dem_state *st)
{
    struct dem_rkf *r = st->rkf;
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    copy(r->nb_j, st->nb_j, sizeof(uint32_t) * st->nb_count);
    copy(r->nb_hist, st->nb_hist, sizeof(gr_vec3) * st->nb_count);
    copy(r->bc_hist, st->bc_hist, sizeof(gr_vec3) * st->bc_count);
    if (roll) {
        copy(r->nb_roll, st->nb_roll, sizeof(gr_vec3) * st->nb_count);
        copy(r->bc_roll, st->bc_roll, sizeof(gr_vec3) * st->bc_count);
    }
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        r->pose_x[bs] = bodies->data[bs].position;
        r->pose_q[bs] = bodies->data[bs].orientation;
        if (bs < st->body_slots) {
            r->impulse0[2 * bs] = st->body_impulse[2 * bs];
            r->impulse0[2 * bs + 1] = st->body_impulse[2 * bs + 1];
        }
    }
    run(st, PASS_SAVE, 0, 0, NULL, NULL);
}

static void restore_histories(dem_state *st)
{
    struct dem_rkf *r = st->rkf;
    copy(st->nb_j, r->nb_j, sizeof(uint32_t) * st->nb_count);
    copy(st->nb_hist, r->nb_hist, sizeof(gr_vec3) * st->nb_count);
    copy(st->bc_hist, r->bc_hist, sizeof(gr_vec3) * st->bc_count);
    if (st->law.rolling == GR_ROLLING_EPSD) {
        copy(st->nb_roll, r->nb_roll, sizeof(gr_vec3) * st->nb_count);
        copy(st->bc_roll, r->bc_roll, sizeof(gr_vec3) * st->bc_count);
    }
}

/* Kinematic bodies at time t0 + tau (their velocities are constant through a step). */
static void pose_bodies(dem_state *st, double tau)
{
    struct dem_rkf *r = st->rkf;
    gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        gr_body_data *b = &bodies->data[bs];
        if (b->motion != GR_MOTION_KINEMATIC)
            continue;
        b->position = r->pose_x[bs];
        b->orientation = r->pose_q[bs];
        if (tau > 0)
            gr_body_integrate(b, tau);
        else
            gr_body_update_frame(b);
    }
}

static void restore_step(dem_state *st)
{
    struct dem_rkf *r = st->rkf;
    restore_histories(st);
    pose_bodies(st, 0);
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs < st->body_slots) {
            st->body_impulse[2 * bs] = r->impulse0[2 * bs];
            st->body_impulse[2 * bs + 1] = r->impulse0[2 * bs + 1];
        }
    }
    run(st, PASS_RESTORE, 0, 0, NULL, NULL);
}

/* Forces at the current state: histories advanced by h_hist from the step's start, body
 * impulses weighted by w_impulse. */
static void evaluate(dem_state *st, double h_hist, double w_impulse)
{
    restore_histories(st);
    run(st, PASS_GRAVITY, 0, 0, NULL, NULL);
    dem_forces(st, h_hist, w_impulse);
    dem_reduce_clumps(st);
    dem_sense_bodies(st, w_impulse);
}

/* The force and torque on every body from the last evaluation (stage 1 of the next step):
 * the slabs' sums for analytic bodies, the particle sums for covered ones. */
static void body_forces_now(dem_state *st)
{
    struct dem_rkf *r = st->rkf;
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs >= st->body_slots)
            continue;
        gr_vec3 f = {0, 0, 0}, t = {0, 0, 0};
        for (uint32_t sl = 0; sl < st->nslabs; sl++) {
            const double *sb = st->slab_body + ((size_t)sl * st->body_slots + bs) * 6;
            f = v3_add(f, v3(sb[0], sb[1], sb[2]));
            t = v3_add(t, v3(sb[3], sb[4], sb[5]));
        }
        r->force1[2 * bs] = f;
        r->force1[2 * bs + 1] = t;
        st->body_impulse[2 * bs] = st->body_impulse[2 * bs + 1] = v3(0, 0, 0);
    }
    /* covered bodies' sums, through the same code as the substeps (weight 1) into a zeroed
     * impulse array, then moved over */
    dem_sense_bodies(st, 1.0);
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs >= st->body_slots)
            continue;
        r->force1[2 * bs] = v3_add(r->force1[2 * bs], st->body_impulse[2 * bs]);
        r->force1[2 * bs + 1] = v3_add(r->force1[2 * bs + 1], st->body_impulse[2 * bs + 1]);
        st->body_impulse[2 * bs] = r->impulse0[2 * bs];
        st->body_impulse[2 * bs + 1] = r->impulse0[2 * bs + 1];
    }
}

/* Stage 1's share of the step's body impulses. */
static void add_stage1_impulse(dem_state *st, double w)
{
    struct dem_rkf *r = st->rkf;
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs < st->body_slots) {
            st->body_impulse[2 * bs] = v3_madd(st->body_impulse[2 * bs], r->force1[2 * bs], w);
            st->body_impulse[2 * bs + 1] = v3_madd(st->body_impulse[2 * bs + 1], r->force1[2 * bs + 1], w);
        }
    }
}

/* Anything moved past what the lists cover (grains, or bodies against the grains)? */
static bool lists_exceeded(const dem_state *st, double disp2, double body_extra)
{
    const double d = sqrt(disp2);
    if (!(2.0 * d <= st->skin))
        return true; /* also NaN */
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs < st->body_slots && d + st->body_bound[bs] + body_extra > st->skin &&
            bodies->data[bs].motion == GR_MOTION_KINEMATIC && !bodies->data[bs].particles)
            return true;
    }
    return false;
}

/* The farthest a kinematic analytic body's surface moves in tau. */
static double body_motion(const dem_state *st, double tau)
{
    const gr_body_store *bodies = st->env.bodies;
    double m = 0;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        const gr_body_data *b = &bodies->data[bs];
        if (b->motion == GR_MOTION_KINEMATIC && !b->particles && bs < st->body_slots)
            m = GR_MAX(m, v3_len(b->linear_velocity) * tau + v3_len(b->angular_velocity) * tau * st->body_reach[bs]);
    }
    return m;
}

/* ---- the step ------------------------------------------------------------------------------------- */

/* After the steps: grains that blew up (gr_blown_up; a rejected step restores y_n, which may
 * itself hold an absurd speed, and an accepted one may reach one) are stopped where they are.
 * One pass per gr_step, not per stage. Returns how many. */
static uint32_t stop_blowups(dem_state *st, gr_step_report *report)
{
    const gr_vec3 zero = {0, 0, 0};
    uint32_t bad = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        if (st->member[i] != GR_INVALID_INDEX ||
            !GR_UNLIKELY(gr_blown_up(st->v[i], st->w[i], st->xr[i].r) || !v3_finite(xr_pos(&st->xr[i])) ||
                         !v3_finite(st->f[i]) || !v3_finite(st->t[i])))
            continue;
        st->v[i] = st->w[i] = zero;
        if (bad++ == 0)
            report->blowup_slot = st->slot[i];
    }
    for (uint32_t c = 0; c < st->nc; c++) {
        if (st->c_slot[c] == GR_INVALID_INDEX || st->c_fixed[c] ||
            !GR_UNLIKELY(gr_blown_up(st->c_v[c], st->c_w[c], st->c_radius[c]) || !v3_finite(st->c_L[c]) ||
                         !v3_finite(st->c_f[c]) || !v3_finite(st->c_t[c])))
            continue;
        st->c_v[c] = st->c_w[c] = st->c_L[c] = zero;
        if (bad++ == 0)
            report->blowup_slot = st->c_body[c] == GR_INVALID_INDEX ? st->c_slot[c] : GR_INVALID_INDEX;
    }
    report->blowups = bad;
    return bad;
}

gr_status dem_step_rkf45(dem_state *st, double T, gr_step_report *report)
{
    const gr_solver_env *env = &st->env;
    gr_status s;
    /* Everything that may allocate, before any state changes (a rebuild reserves the
     * integrator's room for its new lists before it changes anything). */
    if ((s = dem_update_pairs(st)) != GR_OK || (s = dem_reserve_batches(st)) != GR_OK || (s = reserve(st)) != GR_OK)
        return s;
    dem_check_inputs(st);
    dem_check_inputs(st);
    dem_sync_bodies_in(st);
    if (st->need_rebuild || st->n_dead || st->bodies_revision != env->bodies->revision) {
        if ((s = dem_rebuild(st)) != GR_OK)
            return s;
        st->forces_stale = true;
    }
    if ((s = dem_points_begin(st)) != GR_OK)
        return s;
    const gr_body_store *bodies = env->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs < st->body_slots)
            st->body_impulse[2 * bs] = st->body_impulse[2 * bs + 1] = v3(0, 0, 0);
    }
    if (st->forces_stale) {
        save_step(st);
        evaluate(st, 0.0, 0.0); /* forces at the start, histories as they are */
        st->forces_stale = false;
    }
    const double h_stable = dem_stable_substep(st);
    const double h_min = 1e-6 * (isfinite(h_stable) ? h_stable : T);
    double h = st->rkf_h > 0 ? st->rkf_h : (isfinite(h_stable) ? h_stable : T);
    const double t0 = report->time;
    double t = 0;
    gr_status result = GR_OK;
    uint32_t aborts = 0;
    bool k1_valid = false; /* after a rejection k1 (at y_n) is still in k[0] */
    /* the work of one call is bounded: 64 times the steps of the stable explicit substep (a
     * loaded absurd state can hold the step just above its floor, 1e-6 of that: a million
     * steps per substep, found by the fuzzer) */
    const double most = 1000.0 + (isfinite(h_stable) && h_stable > 0 ? 64.0 * ceil(T / h_stable) : 0.0);
    double attempts = 0;
    while (t < T && result == GR_OK) {
        if (++attempts > most) {
            result = GR_ERROR_UNSTABLE;
            break;
        }
        /* the last step lands exactly on T (and never leaves a sliver) */
        double step = h;
        if (t + step >= T || t + 1.5 * step >= T)
            step = t + step >= T ? T - t : 0.5 * (T - t);
        if (!k1_valid) {
            save_step(st);
            run(st, PASS_DERIV, 0, 0, NULL, NULL); /* k1: the forces at y_n */
            body_forces_now(st);
        }
        k1_valid = false;
        add_stage1_impulse(st, B5[0] * step);
        bool aborted = false;
        double disp2 = 0, err = 0;
        for (int sg = 1; sg < STAGES && !aborted; sg++) {
            pose_bodies(st, C[sg] * step);
            run(st, PASS_STAGE, sg, step, &disp2, NULL);
            if (lists_exceeded(st, disp2, body_motion(st, C[sg] * step))) {
                aborted = true;
                break;
            }
            evaluate(st, C[sg] * step, B5[sg] * step);
            run(st, PASS_DERIV, sg, 0, NULL, NULL);
        }
        if (!aborted) {
            pose_bodies(st, step);
            run(st, PASS_FINISH, 0, step, &disp2, &err);
            aborted = lists_exceeded(st, disp2, body_motion(st, step));
        }
        if (aborted) {
            /* rebuild the lists at y_n and try again (with a shorter step after a second try) */
            restore_step(st);
            if ((s = dem_rebuild(st)) != GR_OK || (s = reserve(st)) != GR_OK) {
                result = s;
                break;
            }
            save_step(st);
            evaluate(st, 0.0, 0.0);
            if (++aborts > 1)
                h = 0.5 * step;
            if (h < h_min) { /* a grain outruns any list (loaded absurd state): never loop */
                result = GR_ERROR_UNSTABLE;
                break;
            }
            continue;
        }
        if (!(err <= 1.0)) {
            /* rejected: shrink and retry from y_n (k1 and the saved state stay valid) */
            restore_step(st);
            k1_valid = true;
            h = err == err ? step * GR_MAX(0.2, 0.9 * pow(err, -0.2)) : 0.25 * step;
            if (h < h_min) {
                result = GR_ERROR_UNSTABLE;
                break;
            }
            continue;
        }
        /* accepted: the stage forces were summed into the body impulses with the 5th-order
         * weights already; commit the histories with one more evaluation at y_n+1 (the next
         * step's first stage) */
        evaluate(st, step, 0.0);
        aborts = 0;
        t += step;
        for (uint32_t a = 0; a < bodies->count; a++) {
            const uint32_t bs = bodies->active[a];
            const gr_body_data *b = &bodies->data[bs];
            if (bs < st->body_slots && b->motion == GR_MOTION_KINEMATIC && !b->particles)
                st->body_bound[bs] += v3_len(b->linear_velocity) * step + v3_len(b->angular_velocity) * step * st->body_reach[bs];
        }
        dem_write_back_bodies(st);
        report->time = t0 + t;
        report->substeps++;
        st->substeps_since_rebuild++;
        if (step >= h) /* a shortened last step says nothing about the next */
            h = step * (err > 0 ? GR_MIN(5.0, GR_MAX(0.2, 0.9 * pow(err, -0.2))) : 5.0);
        report->last_substep = step;
        if (16.0 * disp2 > st->skin * st->skin) {
            /* half way through the skin: rebuild now rather than abort a step later */
            if ((s = dem_rebuild(st)) != GR_OK || (s = reserve(st)) != GR_OK)
                result = s;
        }
    }
    st->rkf_h = h;
    if (stop_blowups(st, report)) {
        result = GR_ERROR_UNSTABLE;
        dem_write_back_bodies(st);
    }
    if (result == GR_ERROR_UNSTABLE)
        dem_scrub_blowup(st);
    /* spheres' orientations turn with their final angular velocity (they never act) */
    for (uint32_t i = 0; i < st->n; i++)
        if (st->member[i] == GR_INVALID_INDEX)
            st->q[i] = quat_integrate(st->q[i], st->w[i], t);
    report->body_impulse = st->body_impulse;
    report->impulse_slots = st->body_slots;
    report->impulse_time = t;
    dem_record_inputs(st);
    if (result == GR_ERROR_UNSTABLE)
        st->unstable_count++;
    /* the render points follow the grains over the time accepted (none: sampling undone) */
    const gr_status ps = dem_points_end(st, t);
    return result != GR_OK ? result : ps;
}
