/* SPDX-License-Identifier: MIT */
/* The step as the world drives it (docs/architecture.md): split dt into substeps, pull host
 * bodies, let the solver step, then apply its report: clock, counters, body forces, host
 * impulses, world bounds, and the wording of any failure. */
#include <math.h>
#include <stdio.h>

#include "../bodies/body_host.h"
#include "../bodies/body_shapes.h"
#include "../core/vec3.h"
#include "world.h"
#include "world_step.h"
#include "world_env.h"
#include "world_errors.h"
#include "world_systems.h"

double gr_world_max_substep(const gr_world *w)
{
    if (w->def.substep > 0)
        return w->def.substep;
    double h = INFINITY; /* the shortest of the systems' */
    for (uint32_t i = 0; i < w->system_count; i++) {
        const double hi = w->systems[i].solver->stable_substep(w->systems[i].state);
        if (hi < h || i == 0)
            h = hi;
    }
    return h;
}

static bool has_bounds(const gr_world *w)
{
    const gr_vec3 a = w->def.bounds_min, b = w->def.bounds_max;
    return a.x != b.x || a.y != b.y || a.z != b.z;
}

/* The world's side of gr_coupling_ops. */
static gr_status couple_add_grains(void *world, uint32_t system, gr_grain_init *grains, uint32_t count)
{
    return gr_world_add_grains((gr_world *)world, system, grains, count);
}

static void couple_remove_grains(void *world, const uint32_t *slots, uint32_t count)
{
    gr_world_remove_grains((gr_world *)world, slots, count);
}

/* Remove grains outside the world bounds. Walks the bulk list backwards so that the
 * swap-removal only moves grains that were already checked. Never allocates. */
static void remove_out_of_bounds(gr_world *w)
{
    const gr_vec3 lo = w->def.bounds_min, hi = w->def.bounds_max;
    gr_grain_table *t = &w->grains;
    uint32_t dense[256];
    double pos[4 * 256];
    uint32_t end = t->count;
    while (end > 0) {
        uint32_t begin = end > 256 ? end - 256 : 0;
        for (uint32_t k = begin; k < end; k++)
            dense[k - begin] = t->dense[t->list[k]];
        gr_world_grain_field(w, GR_FIELD_POSITION, t->list + begin, dense, end - begin, pos, NULL);
        for (uint32_t k = end; k-- > begin;) {
            const double *p = pos + 4 * (size_t)(k - begin);
            if (p[0] >= lo.x && p[0] <= hi.x && p[1] >= lo.y && p[1] <= hi.y && p[2] >= lo.z && p[2] <= hi.z)
                continue;
            const uint32_t slot = t->list[k];
            gr_world_remove_grains(w, &slot, 1);
            w->grains_removed++;
        }
        end = begin;
    }
}

/* Host-owned bodies: every state first (checked), then all are applied, so a bad report
 * leaves the world as it was. */
static gr_status pull_host_states(gr_world *w, const char *f)
{
    gr_body_store *bs = &w->bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const uint32_t slot = bs->active[a];
        gr_body_data *b = &bs->data[slot];
        if (b->motion != GR_MOTION_HOST)
            continue;
        gr_host_body_state *hs = &b->host_state;
        hs->position = b->position;
        hs->orientation = b->orientation;
        hs->linear_velocity = b->linear_velocity;
        hs->angular_velocity = b->angular_velocity;
        const gr_body handle = {gr_handle_make(w->tag, bs->gen[slot], slot)};
        w->def.host.get_state(handle, b->user_data, hs, w->def.host.user);
        const double l2 = quat_len2(hs->orientation);
        if (!v3_finite(hs->position) || !v3_finite(hs->linear_velocity) || !v3_finite(hs->angular_velocity) ||
            !quat_finite(hs->orientation))
            return gr_fail(w, GR_ERROR_NOT_FINITE, f,
                           "host get_state gave body slot %u a non-finite state; nothing was stepped", slot);
        if (!(l2 > 1e-12) || !isfinite(l2)) /* as every zero quaternion: INVALID_ARGUMENT (gr_check_quat) */
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                           "host get_state gave body slot %u an orientation of length %g: not a rotation; nothing "
                           "was stepped", slot, sqrt(l2));
    }
    for (uint32_t a = 0; a < bs->count; a++) {
        const uint32_t slot = bs->active[a];
        gr_body_data *b = &bs->data[slot];
        if (b->motion != GR_MOTION_HOST)
            continue;
        b->host_before = (gr_host_body_state){b->position, b->orientation, b->linear_velocity, b->angular_velocity};
        b->position = b->host_state.position;
        b->orientation = quat_normalize(b->host_state.orientation);
        b->linear_velocity = b->host_state.linear_velocity;
        b->angular_velocity = b->host_state.angular_velocity;
        gr_body_update_frame(b);
    }
    return GR_OK;
}

/* A step that failed before its first substep: host-owned bodies get back the state they had
 * before pull_host_states (their solver copies are taken from the host again at the next step). */
static void restore_host_states(gr_world *w)
{
    gr_body_store *bs = &w->bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion != GR_MOTION_HOST)
            continue;
        b->position = b->host_before.position;
        b->orientation = b->host_before.orientation;
        b->linear_velocity = b->host_before.linear_velocity;
        b->angular_velocity = b->host_before.angular_velocity;
        gr_body_update_frame(b);
    }
}

/* The force and torque a body reports: the average over the step of what the grains gave it. */
static void set_body_forces(gr_world *w, const gr_step_report *rep)
{
    if (!(rep->impulse_time > 0))
        return;
    const double inv = 1.0 / rep->impulse_time;
    for (uint32_t a = 0; a < w->bodies.count; a++) {
        const uint32_t slot = w->bodies.active[a];
        if (slot < rep->impulse_slots) {
            w->bodies.data[slot].force = v3_scale(rep->body_impulse[2 * (size_t)slot], inv);
            w->bodies.data[slot].torque = v3_scale(rep->body_impulse[2 * (size_t)slot + 1], inv);
        }
    }
}

/* The systems' own changes of their grain sets after a completed step (gr_regrain: the
 * continuum solver's split and merge): each planned by its system, given slots for the grains
 * it makes and rid of those it unmakes. All or nothing per system: out of memory leaves that
 * system's grains as the step left them (it plans again after the next step). */
static gr_status regrain_systems(gr_world *w)
{
    gr_grain_table *t = &w->grains;
    for (uint32_t i = 0; i < w->system_count; i++) {
        const gr_system *sys = &w->systems[i];
        if (!sys->solver->regrain_plan)
            continue;
        const uint64_t used = (uint64_t)t->count + t->retired;
        const uint32_t room = used < GR_MAX_GRAINS ? (uint32_t)(GR_MAX_GRAINS - used) : 0;
        gr_regrain plan = {0};
        const gr_status s = sys->solver->regrain_plan(sys->state, room, &plan);
        if (s != GR_OK)
            return s;
        if (plan.add == 0 && plan.remove == 0)
            continue;
        if (plan.add && !gr_grain_table_reserve(t, &w->mem, plan.add))
            return GR_ERROR_OUT_OF_MEMORY; /* (room was counted: only memory is short) */
        for (uint32_t k = 0; k < plan.add; k++)
            plan.slots[k] = gr_grain_table_take(t, i);
        sys->solver->regrain_apply(sys->state, &plan);
        for (uint32_t k = 0; k < plan.remove; k++)
            gr_grain_table_release(t, plan.removed[k]);
    }
    return GR_OK;
}

/* Run the couplings between the systems, once each, after a completed step. */
static gr_status run_couplings(gr_world *w, double dt, uint32_t *failed)
{
    const gr_solver_env env = gr_world_solver_env(w, GR_INVALID_INDEX, NULL); /* (the stores: no system's) */
    const gr_coupling_ops ops = {w, couple_add_grains, couple_remove_grains};
    for (uint32_t c = 0; c < w->coupling_count; c++) {
        const gr_world_coupling *wc = &w->couplings[c];
        const gr_system *a = &w->systems[wc->a], *b = &w->systems[wc->b];
        const gr_coupling_call call = {&env, {a->solver, a->state, wc->a}, {b->solver, b->state, wc->b}, &ops, dt};
        const gr_status s = wc->table->exchange(&call);
        if (s != GR_OK) {
            *failed = c;
            return s;
        }
    }
    return GR_OK;
}

static void push_host_impulses(gr_world *w, double dt, double fall)
{
    const gr_body_store *bs = &w->bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const uint32_t slot = bs->active[a];
        const gr_body_data *b = &bs->data[slot];
        if (b->motion != GR_MOTION_HOST)
            continue;
        const gr_body handle = {gr_handle_make(w->tag, bs->gen[slot], slot)};
        gr_vec3 impulse, angular;
        gr_body_host_impulse(b, w->def.gravity, dt, fall, &impulse, &angular);
        if (!v3_finite(impulse) || !v3_finite(angular))
            continue; /* never hand the host a non-finite value (the step reports the blow-up) */
        w->def.host.apply_impulse(handle, b->user_data, impulse, angular, w->def.host.user);
    }
}

/* One system: it takes the n substeps in one call (an adaptive integrator takes the step whole
 * and chooses its own steps; the split still bounds its work: GR_MAX_SUBSTEPS_PER_STEP). */
static gr_status step_system(gr_world *w, uint32_t n, double h, gr_step_report *rep, bool *moved, double *shown)
{
    const gr_system *sys = &w->systems[0];
    const bool adaptive = sys->solver->adaptive && sys->solver->adaptive(sys->state);
    /* (as n h, not dt: the bits of the integrations before the adaptive flag; the world's
     * clock still reads t0 + dt) */
    const gr_status s = adaptive ? sys->solver->step(sys->state, 1, h * (double)n, rep)
                                 : sys->solver->step(sys->state, n, h, rep);
    *shown = adaptive ? rep->last_substep : h;
    *moved = s == GR_OK || rep->substeps != 0;
    set_body_forces(w, rep);
    return s;
}

/* Room for the body impulses the systems give over a step (world-owned: several systems add
 * theirs). */
static bool reserve_impulses(gr_world *w)
{
    const uint32_t slots = w->bodies.slot_count;
    if (slots <= w->impulse_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(w->impulse_cap, slots);
    gr_vec3 *a = (gr_vec3 *)gr_mem_alloc(&w->mem, sizeof(gr_vec3) * 2 * (size_t)cap);
    if (!a)
        return false;
    gr_mem_free(&w->mem, w->impulse_sum, sizeof(gr_vec3) * 2 * (size_t)w->impulse_cap);
    w->impulse_sum = a;
    w->impulse_cap = cap;
    return true;
}

/* Several systems: substep by substep, each system in turn, so that the systems are never
 * more than one substep apart. A system that fails stops the step; the systems before it have
 * taken the substep it failed in, and the world's clock reads the last substep they all
 * completed. The body forces are the sum of the systems' impulses over the time covered. */
static gr_status step_interleaved(gr_world *w, uint32_t n, double h, gr_step_report *rep, uint32_t *failed,
                                  bool *moved)
{
    const double t0 = rep->time;
    const uint32_t slots = w->bodies.slot_count;
    for (size_t k = 0; k < 2 * (size_t)slots; k++)
        w->impulse_sum[k] = v3(0, 0, 0);
    double covered = 0, fall = 0;
    bool mover = false; /* a system moves the bodies: its integrator's fall counts */
    gr_status s = GR_OK;
    uint32_t done = 0;
    for (uint32_t j = 0; j < n && s == GR_OK; j++) {
        const double tj = t0 + (double)j * h;
        bool pushed = false;
        for (uint32_t i = 0; i < w->system_count && s == GR_OK; i++) {
            const gr_system *sys = &w->systems[i];
            gr_step_report r = {.time = tj, .last_substep = rep->last_substep, .fall = 0.5 * h * h,
                                .blowup_slot = GR_INVALID_INDEX};
            s = sys->solver->step(sys->state, 1, h, &r);
            if (s != GR_OK)
                *failed = i;
            *moved = *moved || s == GR_OK || r.substeps != 0;
            if (rep->blowup_slot == GR_INVALID_INDEX && !rep->blowups)
                rep->blowup_slot = r.blowup_slot;
            rep->blowups += r.blowups;
            if (r.substeps && (i == 0 || r.last_substep < rep->last_substep))
                rep->last_substep = r.last_substep;
            if (sys->solver->integrates_bodies && r.substeps) {
                mover = true;
                fall += r.fall + h * (tj - t0); /* this window's share of sum h_k t_k */
            }
            if (r.impulse_time > 0) {
                pushed = true;
                const uint32_t m = r.impulse_slots < slots ? r.impulse_slots : slots;
                for (size_t k = 0; k < 2 * (size_t)m; k++)
                    w->impulse_sum[k] = v3_add(w->impulse_sum[k], r.body_impulse[k]);
            }
        }
        if (s == GR_OK)
            done = j + 1;
        if (pushed)
            covered += h;
    }
    rep->time = t0 + (double)done * h;
    rep->substeps = done;
    if (mover)
        rep->fall = fall;
    if (covered > 0) {
        const gr_step_report sum = {.body_impulse = w->impulse_sum, .impulse_slots = slots, .impulse_time = covered};
        set_body_forces(w, &sum);
    }
    return s;
}

gr_status gr_world_step(gr_world *w, double dt, const char *f)
{
    double hmax = gr_world_max_substep(w);
    if (!(hmax > 0) || !isfinite(hmax))
        hmax = dt; /* nothing constrains the step (no grains) */
    /* equal substeps; the tolerance keeps dt = k * hmax at exactly k substeps */
    double nd = ceil(dt / hmax * (1.0 - 1e-12));
    if (nd < 1)
        nd = 1;
    if (nd > (double)GR_MAX_SUBSTEPS_PER_STEP)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "dt = %g s needs %.3g substeps of %g s: more than GR_MAX_SUBSTEPS_PER_STEP (%u); "
                       "nothing was stepped (step in shorter calls)",
                       dt, nd, hmax, GR_MAX_SUBSTEPS_PER_STEP);
    uint32_t n = (uint32_t)nd;
    double h = dt / (double)n;
    const double t0 = w->time;
    if (w->system_count > 1 && !reserve_impulses(w))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the body impulses failed; nothing was stepped");
    w->busy = true;
    if (w->def.host.get_state) {
        gr_status hs = pull_host_states(w, f);
        if (hs != GR_OK) {
            w->busy = false;
            return hs;
        }
    }
    /* the world's clock and counters are written here, from what the solvers report (exact
     * integrators move a free-falling body by g dt^2 / 2; a solver whose integrator differs
     * says so in fall) */
    gr_step_report rep = {.time = t0, .last_substep = w->last_substep, .fall = 0.5 * dt * dt,
                          .blowup_slot = GR_INVALID_INDEX};
    uint32_t failed = 0;  /* the system that failed */
    bool moved = false;   /* any system completed a substep */
    double shown = h;     /* the step length the messages name */
    const gr_status s = w->system_count == 1 ? step_system(w, n, h, &rep, &moved, &shown)
                                             : step_interleaved(w, n, h, &rep, &failed, &moved);
    const gr_status rs = s == GR_OK ? regrain_systems(w) : GR_OK;
    uint32_t failed_coupling = 0;
    const gr_status cs = s == GR_OK && w->coupling_count ? run_couplings(w, dt, &failed_coupling) : GR_OK;
    w->time = rep.time;
    w->last_substep = rep.last_substep;
    w->substep_count += rep.substeps;
    /* A solver fails before its first substep with nothing moved (every allocation of it comes
     * first), or after completed substeps with the world at the end of the last of them. */
    if (!moved && w->def.host.get_state)
        restore_host_states(w);
    if (w->def.host.apply_impulse && moved && (s == GR_OK || s == GR_ERROR_UNSTABLE))
        push_host_impulses(w, dt, rep.fall);
    w->busy = false;
    if (s == GR_OK)
        w->time = t0 + dt; /* exactly the sum of the steps the caller asked for */
    if (moved) {
        w->step_count++;
        if (has_bounds(w))
            remove_out_of_bounds(w);
    }
    /* with several systems, the messages name the one that failed */
    char who[64] = "";
    if (w->system_count > 1)
        snprintf(who, sizeof who, "system %u (%s): ", failed, w->systems[failed].solver->name);
    if (s == GR_ERROR_UNSTABLE) {
        /* the bodies' reported forces stay finite too (a blown-up grain may have pushed one) */
        for (uint32_t a = 0; a < w->bodies.count; a++) {
            gr_body_data *b = &w->bodies.data[w->bodies.active[a]];
            if (!v3_finite(b->force) || !v3_finite(b->torque))
                b->force = b->torque = v3(0, 0, 0);
        }
        if (rep.blowup_slot < w->grains.slot_count && w->grains.alive[rep.blowup_slot])
            return gr_fail(w, s, f,
                           "%s%u grain(s) blew up (non-finite, or faster than GR_MAX_SPEED = %g m/s), the first at "
                           "index %u; stopped at their last finite state (substep %g s; set a smaller "
                           "gr_world_def.substep)",
                           who, rep.blowups, GR_MAX_SPEED, w->grains.pos[rep.blowup_slot], shown);
        if (!rep.blowups)
            return gr_fail(w, s, f,
                           "%sthe adaptive step size fell below its floor (substep %g s): the state is too stiff or "
                           "absurd; the world is at its last accepted state",
                           who, shown);
        return gr_fail(w, s, f,
                       "%s%u grain(s) or body particle(s) blew up (non-finite, or faster than GR_MAX_SPEED = %g m/s); "
                       "stopped at their last finite state (substep %g s; set a smaller gr_world_def.substep)",
                       who, rep.blowups, GR_MAX_SPEED, shown);
    }
    if (s != GR_OK && !moved)
        return gr_fail(w, s, f, "%s%s before the first substep; nothing was stepped", who, gr_status_string(s));
    if (s != GR_OK && w->system_count > 1)
        return gr_fail(w, s, f, "%s%s during the step; the systems before it took the substep it failed in, the "
                       "others stopped before it: the world's clock reads the last substep all completed, t = %g s",
                       who, gr_status_string(s), w->time);
    if (s != GR_OK)
        return gr_fail(w, s, f, "%s%s during the step; the world is consistent at the end of its last completed "
                       "substep, t = %g s", who, gr_status_string(s), w->time);
    if (rs != GR_OK)
        return gr_fail(w, rs, f, "the step completed (t = %g s), but splitting and merging particles ran out of "
                       "memory and was left for the next step; the grains are as the step left them", w->time);
    if (cs != GR_OK)
        return gr_fail(w, cs, f, "the %s coupling failed after the step (%s); every grain is in one system",
                       w->couplings[failed_coupling].table->name, gr_status_string(cs));
    return GR_OK;
}

