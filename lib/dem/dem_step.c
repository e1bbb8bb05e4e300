/* SPDX-License-Identifier: MIT */
/* DEM substeps: velocity Verlet (kick-drift, forces, kick) with the half kicks of consecutive
 * substeps fused into one pass, forces over slabs of cells in two colours (no two slabs that
 * share a grain run at once, so scattering to partners is race-free and the summation order
 * is fixed: bit-identical for any worker count). */
#include <math.h>

#include "../bodies/body_shapes.h"
#include "../core/blowup.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_step.h"
#include "dem_params.h"
#include "dem_points.h"
#include "dem_blowups.h"
#include "dem_rebuild.h"
#include "dem_clumps.h"
#include "dem_bodies.h"
#include "dem_rkf45.h"
#include "dem_forces.h"
#include "dem_inputs.h"

enum { INTEGRATE_BLOCK = 2048 };

/* ---- integration -------------------------------------------------------------------------- */

typedef struct integrate_ctx {
    dem_state *st;
    double kick1; ///< first half kick (completes the previous substep), 0 at the first
    double kick2; ///< second half kick (h/2)
    double h;     ///< drift, 0 for a kick-only pass
    double turn;  ///< kick-only pass: time over which sphere orientations turn
    gr_vec3 gravity;
} integrate_ctx;

static void integrate_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    const integrate_ctx *c = (const integrate_ctx *)vctx;
    dem_state *st = c->st;
    dem_xr *restrict xr = st->xr;
    gr_vec3 *restrict v = st->v, *restrict w = st->w;
    gr_vec3 *restrict f = st->f, *restrict t = st->t;
    const double *restrict inv_m = st->inv_m, *restrict inv_i = st->inv_i, *restrict m = st->m;
    const double k1 = c->kick1, k2 = c->kick2, h = c->h;
    double max_d2 = 0;
    uint32_t bad = 0;
    const uint32_t *restrict member = st->member;
    for (uint32_t i = begin; i < end; i++) {
        if (member[i] != GR_INVALID_INDEX)
            continue; /* a clump's sphere: its clump moves it */
        gr_vec3 vi = v[i], wi = w[i];
        const double am = inv_m[i], ai = inv_i[i];
        /* two separate half kicks: bit-identical to ending one substep and starting the next */
        vi = v3_madd(vi, f[i], k1 * am);
        wi = v3_madd(wi, t[i], k1 * ai);
        vi = v3_madd(vi, f[i], k2 * am);
        wi = v3_madd(wi, t[i], k2 * ai);
        if (h == 0) {
            if (GR_UNLIKELY(gr_blown_up(vi, wi, xr[i].r))) {
                /* stopped where it is; a non-finite force is dropped (it is the next kick's) */
                vi = wi = v3(0, 0, 0);
                if (!v3_finite(f[i]) || !v3_finite(t[i])) {
                    f[i] = v3_finite(v3_scale(c->gravity, m[i])) ? v3_scale(c->gravity, m[i]) : v3(0, 0, 0);
                    t[i] = v3(0, 0, 0);
                }
                if (bad++ == 0)
                    st->block_bad[2 * (begin / INTEGRATE_BLOCK)] = st->slot[i];
            }
            v[i] = vi;
            w[i] = wi;
            /* A sphere's orientation never acts on the dynamics: it turns once per gr_step, by
             * the final angular velocity over the whole step, instead of every substep (that
             * saves a quarter of this pass's memory traffic). */
            if (c->turn > 0)
                st->q[i] = quat_integrate(st->q[i], wi, c->turn);
            continue;
        }
        gr_vec3 xi = v3_madd(xr_pos(&xr[i]), vi, h);
        if (GR_UNLIKELY(!v3_finite(xi) || gr_blown_up(vi, wi, xr[i].r))) {
            /* keep the last finite state, stop the grain; the step reports GR_ERROR_UNSTABLE */
            v[i] = v3(0, 0, 0);
            w[i] = v3(0, 0, 0);
            if (bad++ == 0)
                st->block_bad[2 * (begin / INTEGRATE_BLOCK)] = st->slot[i];
        } else {
            xr[i].x = xi.x;
            xr[i].y = xi.y;
            xr[i].z = xi.z;
            v[i] = vi;
            w[i] = wi;
        }
        f[i] = v3_scale(c->gravity, m[i]);
        t[i] = v3(0, 0, 0);
        double d2 = v3_len2(v3_sub(xr_pos(&xr[i]), st->x_ref[i]));
        if (d2 > max_d2)
            max_d2 = d2;
    }
    /* a blown-up grain marks its block with an infinite displacement (see dem_step) */
    st->block_bad[2 * (begin / INTEGRATE_BLOCK) + 1] = bad;
    if (h != 0)
        st->block_max[begin / INTEGRATE_BLOCK] = bad ? INFINITY : max_d2;
}

void dem_free_blocks(dem_state *st)
{
    gr_mem_free(st->mem, st->block_max, sizeof(double) * st->block_cap);
    gr_mem_free(st->mem, st->block_bad, 2 * sizeof(uint32_t) * st->block_cap);
    st->block_max = NULL;
    st->block_bad = NULL;
    st->block_cap = 0;
}

static gr_status reserve_blocks(dem_state *st)
{
    /* sphere blocks, then clump blocks at the tail (dem_clumps.c) */
    uint32_t nblocks = (st->n + INTEGRATE_BLOCK - 1) / INTEGRATE_BLOCK + 1 + (st->nc + 511) / 512 + 1;
    if (nblocks <= st->block_cap)
        return GR_OK;
    uint32_t cap = gr_grow_capacity(st->block_cap, nblocks);
    double *b = (double *)gr_mem_alloc(st->mem, sizeof(double) * cap);
    uint32_t *bad = (uint32_t *)gr_mem_alloc(st->mem, 2 * sizeof(uint32_t) * cap);
    if (!b || !bad) {
        gr_mem_free(st->mem, b, sizeof(double) * cap);
        gr_mem_free(st->mem, bad, 2 * sizeof(uint32_t) * cap);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    dem_free_blocks(st);
    st->block_max = b;
    st->block_bad = bad;
    st->block_cap = cap;
    return GR_OK;
}

/* Largest squared displacement since the last rebuild (INFINITY if a grain blew up: it was
 * stopped, see gr_blown_up). */
static double integrate(dem_state *st, double kick1, double kick2, double h, double turn)
{
    integrate_ctx c = {st, kick1, kick2, h, turn, (*st->env.gravity)};
    gr_parallel_for_affine(st->env.tasks, st->n, INTEGRATE_BLOCK, integrate_range, &c);
    const uint32_t nblocks = (st->n + INTEGRATE_BLOCK - 1) / INTEGRATE_BLOCK;
    dem_note_blowups(st, st->block_bad, nblocks);
    double m = dem_integrate_clumps(st, kick1, kick2, h);
    if (st->report->blowups)
        st->blowup_pass = true;
    if (h > 0)
        for (uint32_t b = 0; b < nblocks; b++)
            m = st->block_max[b] > m ? st->block_max[b] : m;
    return m;
}

/* ---- the step ------------------------------------------------------------------------------ */

static bool bodies_moved_too_far(dem_state *st, double max_disp)
{
    const gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        if (bs < st->body_slots && max_disp + st->body_bound[bs] > st->skin)
            return true;
    }
    return false;
}

static void advance_bodies(dem_state *st, double h)
{
    gr_body_store *bodies = st->env.bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        gr_body_data *b = &bodies->data[bs];
        if (b->motion != GR_MOTION_KINEMATIC)
            continue;
        gr_body_integrate(b, h);
        if (bs < st->body_slots && !b->particles) /* covered bodies: their particles are checked */
            st->body_bound[bs] += v3_len(b->linear_velocity) * h + v3_len(b->angular_velocity) * h * st->body_reach[bs];
    }
}

gr_status dem_step(void *state, uint32_t nsub, double h, gr_step_report *report)
{
    dem_state *st = (dem_state *)state;
    const gr_solver_env *env = &st->env;
    gr_status s;
    if (st->def->integrator == GR_INTEGRATOR_RKF45)
        return dem_step_rkf45(st, h * nsub, report); /* adaptive: the world passes dt whole (nsub 1) */
    st->report = report;

    /* Everything that may allocate, before any state changes. */
    if ((s = dem_update_pairs(st)) != GR_OK || (s = reserve_blocks(st)) != GR_OK ||
        (s = dem_reserve_batches(st)) != GR_OK)
        return s;
    dem_check_inputs(st);
    dem_sync_bodies_in(st); /* static bodies teleported, host bodies' new states */
    if (st->need_rebuild || st->n_dead || st->bodies_revision != env->bodies->revision) {
        if ((s = dem_rebuild(st)) != GR_OK)
            return s;
    }
    if ((s = dem_points_begin(st)) != GR_OK)
        return s;
    if (st->forces_stale) {
        dem_compute_forces(st);
        st->forces_stale = false;
    }
    const gr_body_store *bodies = env->bodies;
    for (uint32_t a = 0; a < bodies->count; a++) {
        uint32_t bs = bodies->active[a];
        if (bs < st->body_slots)
            st->body_impulse[2 * bs] = st->body_impulse[2 * bs + 1] = v3(0, 0, 0);
    }
    st->blowup_pass = false;
    gr_status result = GR_OK;
    const double t0 = report->time; /* time as t0 + k h, not a running sum that drifts */

    for (uint32_t k = 0; k < nsub; k++) {
        advance_bodies(st, h); /* first: fixed body clumps take the new pose while integrating */
        double max_d2 = integrate(st, k == 0 ? 0.0 : 0.5 * h, 0.5 * h, h, 0.0);
        dem_write_back_bodies(st);
        if (max_d2 == INFINITY) {
            result = GR_ERROR_UNSTABLE;
            max_d2 = 0;
            for (uint32_t i = 0; i < st->n; i++) {
                double d2 = v3_len2(v3_sub(xr_pos(&st->xr[i]), st->x_ref[i]));
                max_d2 = d2 > max_d2 ? d2 : max_d2;
            }
        }
        const double max_disp = sqrt(max_d2);
        if (2.0 * max_disp > st->skin || bodies_moved_too_far(st, max_disp) ||
            st->bodies_revision != env->bodies->revision) {
            gr_status rs = dem_rebuild(st);
            if (rs != GR_OK && result == GR_OK) {
                /* keep going on the old lists (still a valid state); retry at the next substep */
                result = rs;
                st->need_rebuild = true;
            }
        }
        dem_forces(st, h, h);
        dem_reduce_clumps(st);
        dem_sense_bodies(st, h);
        st->substeps_since_rebuild++;
        report->time = t0 + (double)(k + 1) * h;
        report->substeps++;
        if (result != GR_OK) {
            nsub = k + 1; /* stop after completing this substep */
            break;
        }
    }
    integrate(st, 0.5 * h, 0.0, 0.0, h * nsub);
    if (report->blowups)
        result = GR_ERROR_UNSTABLE; /* (found by the last kick) */
    if (result == GR_ERROR_UNSTABLE)
        dem_scrub_blowup(st);
    dem_write_back_bodies(st);
    report->last_substep = h;
    report->body_impulse = st->body_impulse;
    report->impulse_slots = st->body_slots;
    report->impulse_time = h * nsub;
    dem_record_inputs(st);
    if (result == GR_ERROR_UNSTABLE)
        st->unstable_count++;
    /* the render points follow the grains over the time just simulated */
    const gr_status ps = dem_points_end(st, h * nsub);
    return result != GR_OK ? result : ps;
}
