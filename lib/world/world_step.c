/* SPDX-License-Identifier: MIT */
/* The step as the world drives it (docs/architecture.md): split dt into substeps, pull host
 * bodies, let the solver step, then apply its report: clock, counters, body forces, host
 * impulses, world bounds, and the wording of any failure. */
#include <math.h>

#include "../core/vec3.h"
#include "world.h"

double gr_world_max_substep(const gr_world *w)
{
    if (w->def.substep > 0)
        return w->def.substep;
    return w->solver->stable_substep(w->solver_state);
}

static bool has_bounds(const gr_world *w)
{
    const gr_vec3 a = w->def.bounds_min, b = w->def.bounds_max;
    return a.x != b.x || a.y != b.y || a.z != b.z;
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
        w->solver->read_field(w->solver_state, GR_FIELD_POSITION, dense, end - begin, pos);
        for (uint32_t k = end; k-- > begin;) {
            const double *p = pos + 4 * (size_t)(k - begin);
            if (p[0] >= lo.x && p[0] <= hi.x && p[1] >= lo.y && p[1] <= hi.y && p[2] >= lo.z && p[2] <= hi.z)
                continue;
            uint32_t slot = t->list[k];
            uint32_t d = t->dense[slot];
            w->solver->remove_grains(w->solver_state, &d, 1);
            gr_grain_table_release(t, slot);
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
    w->busy = true;
    if (w->def.host.get_state) {
        gr_status hs = pull_host_states(w, f);
        if (hs != GR_OK) {
            w->busy = false;
            return hs;
        }
    }
    /* the world's clock and counters are written here, from what the solver reports (exact
     * integrators move a free-falling body by g dt^2 / 2; a solver whose integrator differs
     * says so in fall) */
    gr_step_report rep = {.time = t0, .last_substep = w->last_substep, .fall = 0.5 * dt * dt,
                          .blowup_slot = GR_INVALID_INDEX};
    /* an adaptive integrator takes the step whole and chooses its own steps (the split above still
     * bounds its work: GR_MAX_SUBSTEPS_PER_STEP) */
    const bool adaptive = w->solver->adaptive && w->solver->adaptive(w->solver_state);
    /* (as n h, not dt: the bits of the integrations before the adaptive flag; the world's clock
     * still reads t0 + dt) */
    gr_status s = adaptive ? w->solver->step(w->solver_state, 1, h * (double)n, &rep)
                           : w->solver->step(w->solver_state, n, h, &rep);
    /* the step length the messages name: the substep, or the integrator's last own step */
    const double shown = adaptive ? rep.last_substep : h;
    w->time = rep.time;
    w->last_substep = rep.last_substep;
    w->substep_count += rep.substeps;
    set_body_forces(w, &rep);
    /* A solver fails before its first substep with nothing moved (every allocation of it comes
     * first), or after completed substeps with the world at the end of the last of them. */
    const bool moved = s == GR_OK || rep.substeps != 0;
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
    if (s == GR_ERROR_UNSTABLE) {
        /* the bodies' reported forces stay finite too (a blown-up grain may have pushed one) */
        for (uint32_t a = 0; a < w->bodies.count; a++) {
            gr_body_data *b = &w->bodies.data[w->bodies.active[a]];
            if (!v3_finite(b->force) || !v3_finite(b->torque))
                b->force = b->torque = v3(0, 0, 0);
        }
        if (rep.blowup_slot < w->grains.slot_count && w->grains.alive[rep.blowup_slot])
            return gr_fail(w, s, f,
                           "%u grain(s) blew up (non-finite, or faster than GR_MAX_SPEED = %g m/s), the first at "
                           "index %u; stopped at their last finite state (substep %g s; set a smaller "
                           "gr_world_def.substep)",
                           rep.blowups, GR_MAX_SPEED, w->grains.pos[rep.blowup_slot], shown);
        if (!rep.blowups)
            return gr_fail(w, s, f,
                           "the adaptive step size fell below its floor (substep %g s): the state is too stiff or "
                           "absurd; the world is at its last accepted state",
                           shown);
        return gr_fail(w, s, f,
                       "%u grain(s) or body particle(s) blew up (non-finite, or faster than GR_MAX_SPEED = %g m/s); "
                       "stopped at their last finite state (substep %g s; set a smaller gr_world_def.substep)",
                       rep.blowups, GR_MAX_SPEED, shown);
    }
    if (s != GR_OK && !moved)
        return gr_fail(w, s, f, "%s before the first substep; nothing was stepped", gr_status_string(s));
    if (s != GR_OK)
        return gr_fail(w, s, f, "%s during the step; the world is consistent at the end of its last completed "
                       "substep, t = %g s", gr_status_string(s), w->time);
    return GR_OK;
}

