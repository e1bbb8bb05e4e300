/* SPDX-License-Identifier: MIT */
/* One PBD substep (Sommer & Schwanecke, Algorithm 1; Macklin et al. 2014; docs/pbd.md):
 *   1. kinematic bodies advance; fixed body particles are placed at the new pose
 *   2. sleeping grains deep in still sand freeze for the substep (pbd_freeze.c); predict
 *      x* = x + h (v + h g); height-scaled inverse masses w* for the contacts
 *   3. neighbour lists on x* with a margin (fixed for the rest of the substep)
 *   4. stabilisation: contacts only, evaluated at x, the correction applied to x and x*
 *      alike (removes leftover overlap without creating velocity)
 *   5. solver iterations: contacts with friction by projected Gauss-Seidel with accumulated,
 *      warm-started multipliers in a symmetric colour order; free bodies as rigid bodies
 *      (pbd_solve.c, pbd_rigid.c)
 *   6. v = (x* - x) / h; grains calm in contact for a while sleep (keep x until woken).
 * Every phase runs in fixed blocks whose order does not depend on the worker count, so the
 * result is bit-identical for any worker count. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/blowup.h"
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_step.h"
#include "pbd_store.h"
#include "pbd_lists.h"
#include "pbd_solve.h"
#include "pbd_rigid.h"
#include "pbd_bodies.h"
#include "pbd_points.h"
#include "pbd_freeze.h"

/* Most pieces the CFL rule cuts one substep into (an absurd speed, e.g. from a host's write,
 * must not stall gr_step: beyond this the step is taken with larger pieces). */
#define PBD_MAX_SPLIT 8u

typedef struct predict_ctx {
    pbd_state *st;
    double h;
    gr_vec3 g;
    double wake2;            ///< squared speed that wakes a sleeping grain (pbd_stage)
    _Atomic uint64_t lowest; ///< the lowest grain's height along up, as the bits of a double
} predict_ctx;

/* *a = min(*a, v) for doubles kept as their bits: the same for any order of the calls. */
static void atomic_min_double(_Atomic uint64_t *a, double v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed), want;
    memcpy(&want, &v, sizeof want);
    for (;;) {
        double c;
        memcpy(&c, &cur, sizeof c);
        if (!(v < c) || atomic_compare_exchange_weak_explicit(a, &cur, want, memory_order_relaxed, memory_order_relaxed))
            return;
    }
}

/* x* = x + h (v + h g); also the lists' input (rank, pk_tmp: pbd_build_lists) and the lowest
 * grain's height for the mass scaling (a minimum per block, then over the blocks). */
static void predict_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    predict_ctx *c = (predict_ctx *)vctx;
    pbd_state *st = c->st;
    const double h = c->h;
    double lowest = INFINITY;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = st->mov[k];
        st->vnear[i] = 0; /* (flag: pbd_freeze cleared it; the sweeps add bits, the finish reads them) */
        /* a frozen grain does not sag: nothing would lift it back; free bodies' particles are
         * where their body's predicted pose puts them (pbd_rigid_predict) */
        const gr_vec3 p = st->owner[i] != GR_INVALID_INDEX ? st->xp[i]
                          : st->flag[i] & PBD_FLAG_FROZEN  ? st->x[i]
                                                           : v3_madd(st->x[i], v3_madd(st->v[i], c->g, h), h);
        st->rank[k] = i; /* (x* goes to xp at the unpack) */
        st->pk_tmp[k] = p;
        pbd_stage(st, k, i, c->wake2);
        if (st->owner[i] == GR_INVALID_INDEX)
            lowest = GR_MIN(lowest, v3_dot(p, st->up));
    }
    if (lowest < INFINITY)
        atomic_min_double(&c->lowest, lowest);
}

typedef struct finish_ctx {
    pbd_state *st;
    double h;
    gr_vec3 g;
    atomic_uint blowups;    ///< grains stopped (gr_blown_up)
    atomic_uint first;      ///< the first one's place in mov (the same for any worker count)
} finish_ctx;

/* Is grain i (solved this substep) paired with a frozen grain? */
static bool next_to_frozen(const pbd_state *st, uint32_t i)
{
    if (!st->n_frozen)
        return false;
    const uint32_t s = st->pos_of[i];
    for (uint32_t k = st->pf_start[s]; k < st->pf_end[s]; k++)
        if (st->hot[st->pr_b[k]].bits & PBD_HOT_FROZEN)
            return true;
    for (uint32_t e = st->inc_start[s]; e < st->inc_start[s + 1]; e++)
        if (st->hot[st->pr_a[st->inc_k[e]]].bits & PBD_HOT_FROZEN)
            return true;
    return false;
}

static void finish_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    finish_ctx *c = (finish_ctx *)vctx;
    pbd_state *st = c->st;
    const double inv_h = 1.0 / c->h, sleep = st->par.sleep_threshold * v3_len(c->g) * c->h;
    uint32_t bad = 0, first = UINT32_MAX;
    const gr_vec3 zero = {0, 0, 0};
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = st->mov[k];
        const bool disturbed = st->flag[i] & PBD_FLAG_DISTURBED, touched = st->flag[i] & PBD_FLAG_TOUCHED;
        if (st->flag[i] & PBD_FLAG_FROZEN) { /* still asleep, where it was (pbd_freeze.c); the
                                                * flag stays for pbd_collect_impulses */
            st->calm[i] += c->h;
            st->v[i] = st->f[i] = v3(0, 0, 0);
            st->xp[i] = st->x[i];
            continue;
        }
        st->flag[i] = 0;
        const double vnear = st->vnear[i];
        gr_vec3 vn = v3_scale(v3_sub(st->xp[i], st->x[i]), inv_h);
        if (GR_UNLIKELY(!v3_finite(vn))) {
blown_up:
            /* keep the last finite state, stopped; the step reports GR_ERROR_UNSTABLE */
            st->v[i] = zero;
            st->xp[i] = st->x[i];
            st->f[i] = zero;
            first = bad++ ? first : k;
            continue;
        }
        const gr_vec3 v_free = v3_madd(st->v[i], c->g, c->h); /* without constraints */
        const double m = 1.0 / st->inv_m[i];
        /* the constraints' velocity change is bounded (the position correction is not): by
         * max_acceleration, plus twice the relative speed of the free bodies touching (a body
         * hitting a grain may give it that much; without this a fast body would lose momentum
         * that no grain receives) */
        const gr_vec3 dv = v3_sub(vn, v_free);
        const double dv2 = v3_len2(dv), dv_max = st->def->max_acceleration * c->h + 2.0 * vnear;
        if (dv2 > dv_max * dv_max)
            vn = v3_madd(v_free, dv, dv_max / sqrt(dv2));
        /* sleeping (Macklin 2014 sec. 4.6, with a delay): a grain in contact that stays slower
         * than the threshold for sleep_time keeps its position: what the solve would still
         * move it by is the unconverged remainder of a few Jacobi iterations, which otherwise
         * makes piles creep. The delay lets a grain that starts to slide from rest reach the
         * threshold speed first. It wakes when the solve would move it faster again (hit,
         * undermined, pushed by a body), and all wake when gravity changes (pbd_step). */
        if (sleep > 0 && st->owner[i] == GR_INVALID_INDEX && touched && v3_len2(vn) < sleep * sleep &&
            !disturbed) {
            st->calm[i] += c->h;
            if (pbd_asleep(st, i)) {
                st->xp[i] = st->x[i];
                st->v[i] = st->f[i] = v3(0, 0, 0);
                continue;
            }
        } else if (!disturbed && pbd_asleep(st, i) && next_to_frozen(st, i)) {
            /* a sleeper beside frozen grains that would wake by its own probe sees them stand
             * still instead of iterating along: a reading within that bias is ignored (else the
             * same sleepers thaw their blocks again and again, and settled sand never reaches
             * the all-frozen substep); above it, its block thaws for a while and it asks again
             * next substep, among neighbours that are solved (pbd_freeze.c) */
            if (v3_len2(vn) > PBD_FROZEN_PROBE_BIAS * PBD_FROZEN_PROBE_BIAS * sleep * sleep)
                st->stir[i] = PBD_STIR_SUBSTEPS;
            st->xp[i] = st->x[i];
            st->v[i] = st->f[i] = v3(0, 0, 0);
            continue;
        } else {
            st->calm[i] = 0;
        }
        const gr_vec3 fi = v3_madd(v3_scale(v3_sub(vn, v_free), m * inv_h), c->g, m);
        if (GR_UNLIKELY(gr_blown_up(vn, zero, 0.0) || !v3_finite(fi) || !v3_finite(st->xp[i])))
            goto blown_up;
        st->f[i] = fi;
        st->v[i] = vn;
        st->x[i] = st->xp[i];
    }
    if (bad) {
        atomic_fetch_add_explicit(&c->blowups, bad, memory_order_relaxed);
        unsigned cur = atomic_load_explicit(&c->first, memory_order_relaxed);
        while (first < cur &&
               !atomic_compare_exchange_weak_explicit(&c->first, &cur, first, memory_order_relaxed, memory_order_relaxed)) {
        }
    }
}

/* Kinematic bodies move by h; their particles are placed at the new pose (static bodies'
 * stay where they are: only gr_body_set_pose moves them, pbd_body_moved). */
static void advance_fixed_bodies(pbd_state *st, double h)
{
    gr_body_store *bs = st->env.bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion == GR_MOTION_KINEMATIC)
            gr_body_integrate(b, h);
    }
    for (uint32_t r = 0; r < st->nb; r++) {
        const pbd_body *pb = &st->bodies[r];
        if (pb->fixed && bs->data[pb->slot].motion == GR_MOTION_KINEMATIC)
            pbd_place_body(st, pb, st->xp);
    }
}

/* After the substep: kinematic bodies' particles take the step they made as their velocity. */
static void finish_fixed_bodies(pbd_state *st, double h)
{
    for (uint32_t r = 0; r < st->nb; r++) {
        const pbd_body *pb = &st->bodies[r];
        if (!pb->fixed || st->env.bodies->data[pb->slot].motion != GR_MOTION_KINEMATIC)
            continue;
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++) {
            st->v[i] = v3_scale(v3_sub(st->xp[i], st->x[i]), 1.0 / h);
            st->x[i] = st->xp[i];
        }
    }
}

static void count_contacts(pbd_state *st)
{
    uint64_t pairs = 0, bodies = 0;
    uint32_t asleep = 0;
    for (uint32_t k = 0; k < st->n_mov; k++) {
        const uint32_t i = st->mov[k];
        pairs += st->touch[i] & 0xffffu;
        bodies += st->touch[i] >> 16;
        asleep += st->owner[i] == GR_INVALID_INDEX && pbd_asleep(st, i);
    }
    st->n_sleeping = asleep;
    st->contact_pairs = pairs / 2;
    st->body_pairs = bodies;
}

/* Fastest free particle or kinematic body point [m/s]. */
static double fastest(const pbd_state *st)
{
    /* four running maxima: one would wait on the last comparison at every particle (a
     * serial scan, twice per substep) */
    double m[4] = {0, 0, 0, 0};
    uint32_t k = 0;
    for (; k + 4 <= st->n_mov; k += 4)
        for (int l = 0; l < 4; l++)
            m[l] = GR_MAX(m[l], v3_len2(st->v[st->mov[k + (uint32_t)l]]));
    for (; k < st->n_mov; k++)
        m[0] = GR_MAX(m[0], v3_len2(st->v[st->mov[k]]));
    double v2 = GR_MAX(GR_MAX(m[0], m[1]), GR_MAX(m[2], m[3]));
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion != GR_MOTION_KINEMATIC)
            continue;
        const double bound = gr_body_bound_radius(b);
        const double vb = v3_len(b->linear_velocity) + (isfinite(bound) ? bound * v3_len(b->angular_velocity) : 0.0);
        v2 = GR_MAX(v2, vb * vb);
    }
    return sqrt(v2);
}

/* Smallest particle radius of a kinematic (moving, infinite-mass) body's covering; infinite
 * when there is none. */
static double kinematic_particle_radius(const pbd_state *st)
{
    double r = INFINITY;
    for (uint32_t k = 0; k < st->nb; k++) {
        const gr_body_data *b = &st->env.bodies->data[st->bodies[k].slot];
        if (st->bodies[k].fixed && b->motion == GR_MOTION_KINEMATIC)
            r = GR_MIN(r, b->particle_radius);
    }
    return r;
}

/* CFL: no particle travels more than cfl x r_min in one substep of h (with the speed gravity
 * adds during it), r_min the smallest movable radius: half the contact distance of two of
 * them, so two movers meeting head-on close by at most cfl x their contact distance. A static
 * body's particle does not move: a grain closes on it by its own travel only, less than
 * their contact distance r_min + r_f for cfl <= 1 whatever r_f (the glass of the hourglass,
 * of 0.75 r particles, set 14% more substeps when it counted like a mover). A kinematic
 * body's particles move, at up to the fastest speed: a smaller one than the grains lowers
 * the bound to half their contact distance with it. */
static double cfl_substep(const pbd_state *st, double h)
{
    const double vmax = fastest(st) + v3_len((*st->env.gravity)) * h;
    if (!(vmax > 0) || !isfinite(vmax) || !st->n_grains)
        return h;
    const double scale = GR_MIN(st->r_min, 0.5 * (st->r_min + kinematic_particle_radius(st)));
    return GR_MIN(h, st->par.cfl * scale / vmax);
}

double pbd_stable_substep(void *state)
{
    /* never below an eighth of the largest substep: a trapped grain's velocity (v = overlap /
     * h) must not shrink the substep without bound (with the split inside the step, speeds up
     * to 64 x the CFL speed are followed; beyond that grains may tunnel) */
    pbd_state *st = (pbd_state *)state;
    pbd_refresh_movable(st);
    return GR_MAX(cfl_substep(st, st->par.max_substep), st->par.max_substep / PBD_MAX_SPLIT);
}

/* The end of a substep of h: velocities (and sleep) from the moves, bodies' new states, the
 * forces bodies received. */
static bool finish_substep(pbd_state *st, double h)
{
    finish_ctx fc = {st, h, (*st->env.gravity), 0, UINT32_MAX};
    gr_parallel_for(st->env.tasks, st->n_mov, PBD_BLOCK, finish_range, &fc);
    finish_fixed_bodies(st, h);
    const uint32_t bad_bodies = pbd_bodies_write_back(st, h);
    pbd_collect_impulses(st, h);
    st->report->substeps++;
    const uint32_t bad_grains = atomic_load_explicit(&fc.blowups, memory_order_relaxed), bad = bad_grains + bad_bodies;
    if (bad) {
        st->report->blowups = bad;
        st->report->blowup_slot = bad_grains ? st->slot[st->mov[atomic_load_explicit(&fc.first, memory_order_relaxed)]]
                                             : GR_INVALID_INDEX; /* (a body) */
    }
    return bad == 0;
}

/* One substep of h (the algorithm at the top of this file). */
static gr_status substep(pbd_state *st, double h)
{
    gr_tasks *tasks = st->env.tasks;
    const gr_vec3 g = (*st->env.gravity);
    const double gl = v3_len(g);
    gr_status s;
    const bool thaw = st->thaw; /* pbd_freeze uses it up: a failed substep gives it back */
    pbd_freeze(st);
    if (st->n_frozen && st->n_frozen == st->n_mov) {
        /* all that could move sleeps deep in still sand: only the bodies far from it move */
        advance_fixed_bodies(st, h);
        finish_substep(st, h); /* (frozen grains keep their finite state) */
        return GR_OK;
    }
    if ((s = pbd_build_fixed_grid(st)) != GR_OK) {
        st->thaw = thaw;
        return s; /* (nothing has moved yet) */
    }
    pbd_rigid_predict(st, h);
    const double wake = st->par.sleep_threshold * gl * h;
    predict_ctx pc = {st, h, g, wake * wake, 0};
    const double none = INFINITY;
    uint64_t none_bits;
    memcpy(&none_bits, &none, sizeof none_bits);
    atomic_init(&pc.lowest, none_bits);
    gr_parallel_for(tasks, st->n_mov, PBD_BLOCK, predict_range, &pc);
    /* mass scaling, applied where the lists pack the particles: w* = w exp(k (height - lowest
     * grain's height) / diameter) */
    const uint64_t lowest_bits = atomic_load_explicit(&pc.lowest, memory_order_relaxed);
    st->scaling = st->par.mass_scaling > 0 && gl > 0 && st->n_grains;
    st->scale_k = st->par.mass_scaling / (2.0 * st->r_max);
    memcpy(&st->scale_ref, &lowest_bits, sizeof st->scale_ref);
    /* lists (on the predicted positions of this substep): if they cannot be allocated,
     * nothing has moved yet */
    s = pbd_build_lists(st);
    if (s == GR_OK && (s = pbd_solve_reserve(st)) != GR_OK)
        st->rebuilds--; /* (the lists were built but never used) */
    if (s != GR_OK) {
        for (uint32_t k = 0; k < st->n_mov; k++)
            st->xp[st->mov[k]] = st->x[st->mov[k]];
        st->thaw = thaw;
        return s;
    }
    pbd_solve_begin(st, h);
    advance_fixed_bodies(st, h);
    pbd_fixed_advanced(st);
    pbd_solve_iterate(st, h);
    pbd_unpack(st);
    return finish_substep(st, h) ? GR_OK : GR_ERROR_UNSTABLE;
}

gr_status pbd_step(void *state, uint32_t nsub, double h, gr_step_report *report)
{
    pbd_state *st = (pbd_state *)state;
    st->report = report;
    const gr_solver_env *env = &st->env;
    gr_status s;
    gr_upsample *points = &st->points;
    if ((s = pbd_update_materials(st)) != GR_OK || (s = pbd_reserve_impulses(st)) != GR_OK ||
        (s = pbd_reserve_sensing(st)) != GR_OK) 
        return s;
    if (gr_upsample_on(points)) {
        const gr_upsample_view view = pbd_points_view(st, 0.0);
        if ((s = gr_upsample_sample_new(points, &view)) != GR_OK ||
            (s = gr_upsample_reserve_advect(points, st->n)) != GR_OK) {
            gr_upsample_undo(points, &view);
            return s;
        }
    }
    pbd_bodies_sync_in(st);
    pbd_refresh_movable(st);
    memset(st->body_imp, 0, sizeof(gr_vec3) * 2 * (size_t)st->imp_slots);
    const gr_vec3 g = (*env->gravity);
    const double gl = v3_len(g);
    st->up = gl > 0 ? v3_scale(g, -1.0 / gl) : v3(0, 1, 0);
    /* gravity changed (a world tilted, a level loaded): every sleeper wakes and looks again,
     * else sand would hang on a slope that is now too steep for it (redone if this step fails) */
    const bool new_gravity = g.x != st->gravity_seen.x || g.y != st->gravity_seen.y || g.z != st->gravity_seen.z;
    if (new_gravity)
        for (uint32_t i = 0; i < st->n; i++)
            st->calm[i] = 0;
    const double t0 = report->time;
    gr_status result = GR_OK;
    double total = 0, last = h;
    report->fall = 0;
    for (uint32_t k = 0; k < nsub && result == GR_OK; k++) {
        /* the caller's substep, split further when grains got fast during the step (the CFL
         * rule holds for every substep, not only at the start of gr_step) */
        const double hc = cfl_substep(st, h);
        const double parts = ceil(h / hc * (1.0 - 1e-12));
        const uint32_t m = parts > 1 ? (parts < PBD_MAX_SPLIT ? (uint32_t)parts : PBD_MAX_SPLIT) : 1u;
        const double hs = h / (double)m;
        for (uint32_t j = 0; j < m && result == GR_OK; j++) {
            result = substep(st, hs);
            if (result == GR_ERROR_OUT_OF_MEMORY)
                break; /* nothing moved in this substep */
            total += hs;
            last = hs;
            report->fall += hs * total; /* symplectic Euler: sum of h_k t_k (body_host.c) */
            report->time = j + 1 == m ? t0 + (double)(k + 1) * h : t0 + (double)k * h + (double)(j + 1) * hs;
        }
    }
    if (total == 0) {
        const gr_upsample_view view = pbd_points_view(st, 0.0);
        gr_upsample_undo(points, &view);
        return result; /* failed in the first substep: nothing moved, nothing to report */
    }
    {
        const gr_upsample_view view = pbd_points_view(st, 0.0);
        gr_upsample_keep(points, &view);
    }
    st->gravity_seen = g;
    count_contacts(st);
    report->last_substep = last;
    {
        /* the render points follow the grains over the time just simulated; a point among
         * still grains rests below their sleeping speed */
        if (gr_upsample_on(points)) {
            const gr_upsample_view view = pbd_points_view(st, st->par.sleep_threshold * v3_len(g) * last);
            const gr_status a = gr_upsample_advect(points, &view, total);
            if (a != GR_OK && result == GR_OK)
                result = a;
        }
        gr_upsample_cull(points);
    }
    report->body_impulse = st->body_imp;
    report->impulse_slots = st->imp_slots;
    report->impulse_time = total;
    return result;
}
