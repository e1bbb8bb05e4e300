/* SPDX-License-Identifier: MIT */
/* World entry points: version, status text, create/destroy, step, queries. */
#include <stdio.h>

#include "api_internal.h"

GR_API uint32_t gr_get_version(void) { return GR_VERSION_NUMBER; }
GR_API const char *gr_get_version_string(void) { return GR_VERSION_STRING; }
GR_API uint32_t gr_get_precision(void) { return (uint32_t)sizeof(double); }

GR_API const char *gr_status_string(gr_status s)
{
    switch (s) {
    case GR_OK: return "ok";
    case GR_ERROR_NULL_ARGUMENT: return "a required pointer is NULL";
    case GR_ERROR_INVALID_ARGUMENT: return "an argument is out of its valid range";
    case GR_ERROR_NOT_FINITE: return "a number is NaN or infinite";
    case GR_ERROR_UNKNOWN_ENUM: return "unknown enum value";
    case GR_ERROR_STRUCT_SIZE: return "def struct not initialised (size field)";
    case GR_ERROR_TOO_MANY: return "count beyond the library's limits";
    case GR_ERROR_INVALID_HANDLE: return "null or unknown handle";
    case GR_ERROR_STALE_HANDLE: return "stale handle (object removed)";
    case GR_ERROR_WRONG_WORLD: return "handle of another world";
    case GR_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GR_ERROR_UNSUPPORTED: return "not supported by this solver or build";
    case GR_ERROR_BUSY: return "world is busy (inside gr_step)";
    case GR_ERROR_IO: return "read or write callback failed";
    case GR_ERROR_CORRUPT_DATA: return "corrupt or truncated data";
    case GR_ERROR_VERSION: return "unsupported version";
    case GR_ERROR_UNSTABLE: return "simulation became unstable (non-finite state)";
    default: return "unknown status";
    }
}

/* A substep limit: finite, at least GR_MIN_SUBSTEP (0 allowed when zero_ok: automatic), so
 * that no def, given or loaded, asks one gr_step for an unbounded number of substeps. */
gr_status gr_check_substep_limit(const gr_world *w, double v, bool zero_ok, const char *f, const char *what)
{
    GR_CHECK(gr_check_positive(w, v, zero_ok, f, what));
    if (v != 0 && !(v >= GR_MIN_SUBSTEP))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "%s = %g s is below GR_MIN_SUBSTEP (%g s)", what, v,
                       GR_MIN_SUBSTEP);
    return GR_OK;
}

gr_status gr_validate_dem_def(const gr_world *w, const gr_dem_def *d, const char *f)
{
    GR_CHECK(gr_check_enum(w, (uint32_t)d->normal_law, 4, f, "dem.normal_law"));
    GR_CHECK(gr_check_enum(w, (uint32_t)d->tangential_law, 6, f, "dem.tangential_law"));
    GR_CHECK(gr_check_enum(w, (uint32_t)d->rolling_law, 4, f, "dem.rolling_law"));
    GR_CHECK(gr_check_enum(w, (uint32_t)d->integrator, 3, f, "dem.integrator"));
    GR_CHECK(gr_check_positive(w, d->rkf_tolerance, false, f, "dem.rkf_tolerance"));
    if (d->clamp_normal_force > 1)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "dem.clamp_normal_force must be 0 or 1");
    GR_CHECK(gr_check_positive(w, d->linear_stiffness, true, f, "dem.linear_stiffness"));
    GR_CHECK(gr_check_positive(w, d->linear_damping, true, f, "dem.linear_damping"));
    GR_CHECK(gr_check_positive(w, d->contact_time, false, f, "dem.contact_time"));
    GR_CHECK(gr_check_range(w, d->nonlinear_a, 0.0, 4.0, f, "dem.nonlinear_a"));
    GR_CHECK(gr_check_range(w, d->nonlinear_b, 1.0, 4.0, f, "dem.nonlinear_b"));
    GR_CHECK(gr_check_positive(w, d->nonlinear_stiffness, true, f, "dem.nonlinear_stiffness"));
    GR_CHECK(gr_check_positive(w, d->nonlinear_damping, true, f, "dem.nonlinear_damping"));
    if (d->normal_law == GR_NORMAL_NONLINEAR && d->nonlinear_stiffness == 0 && d->nonlinear_b != 1.5)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "dem.nonlinear_stiffness 0 (Hertz) needs dem.nonlinear_b = 1.5 (got %g)", d->nonlinear_b);
    GR_CHECK(gr_check_positive(w, d->tangential_stiffness_ratio, true, f, "dem.tangential_stiffness_ratio"));
    GR_CHECK(gr_check_positive(w, d->shear_damping, true, f, "dem.shear_damping"));
    GR_CHECK(gr_check_positive(w, d->coulomb_slip_speed, false, f, "dem.coulomb_slip_speed"));
    GR_CHECK(gr_check_positive(w, d->rolling_damping, true, f, "dem.rolling_damping"));
    GR_CHECK(gr_check_positive(w, d->skin, true, f, "dem.skin"));
    GR_CHECK(gr_check_range(w, d->rayleigh_fraction, 1e-6, 1.0, f, "dem.rayleigh_fraction"));
    GR_CHECK(gr_check_range(w, d->contact_time_fraction, 1e-6, 1.0, f, "dem.contact_time_fraction"));
    GR_CHECK(gr_check_positive(w, d->reference_speed, false, f, "dem.reference_speed"));
    return GR_OK;
}

gr_status gr_validate_material_def(const gr_world *w, const gr_material_def *d, const char *f)
{
    if (d->reserved0 != 0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "material.reserved0 must be 0");
    GR_CHECK(gr_check_positive(w, d->density, false, f, "material.density"));
    GR_CHECK(gr_check_positive(w, d->youngs_modulus, false, f, "material.youngs_modulus"));
    GR_CHECK(gr_check_range(w, d->poisson_ratio, 0.0, 0.4999, f, "material.poisson_ratio"));
    GR_CHECK(gr_check_range(w, d->restitution, 1e-6, 1.0, f, "material.restitution"));
    GR_CHECK(gr_check_range(w, d->friction, 0.0, 1e3, f, "material.friction"));
    GR_CHECK(gr_check_range(w, d->rolling_friction, 0.0, 1e3, f, "material.rolling_friction"));
    GR_CHECK(gr_check_range(w, d->static_friction, 0.0, 1e3, f, "material.static_friction"));
    GR_CHECK(gr_check_range(w, d->kinetic_friction, 0.0, 1e3, f, "material.kinetic_friction"));
    return GR_OK;
}

gr_status gr_validate_pbd_def(const gr_world *w, const gr_pbd_def *d, const char *f)
{
    if (d->iterations < 1 || d->iterations > 1000)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.iterations = %u: must be in [1, 1000]", d->iterations);
    if (d->stabilization_iterations > 1000)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.stabilization_iterations = %u: at most 1000",
                       d->stabilization_iterations);
    if (d->reserved0 != 0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.reserved0 must be 0");
    GR_CHECK(gr_check_positive(w, d->relaxation, false, f, "pbd.relaxation"));
    if (!(d->relaxation < 2.0))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.relaxation = %g: must be below 2 (over-relaxation "
                       "beyond that diverges)", d->relaxation);
    GR_CHECK(gr_check_range(w, d->collision_margin, 0.0, 10.0, f, "pbd.collision_margin"));
    GR_CHECK(gr_check_range(w, d->mass_scaling, 0.0, 50.0, f, "pbd.mass_scaling"));
    GR_CHECK(gr_check_range(w, d->sleep_threshold, 0.0, 1.0, f, "pbd.sleep_threshold"));
    GR_CHECK(gr_check_range(w, d->cfl, 1e-6, 10.0, f, "pbd.cfl"));
    GR_CHECK(gr_check_substep_limit(w, d->max_substep, false, f, "pbd.max_substep"));
    /* render points: every input bounded (a denormal radius or step would ask for points or
     * passes without end) */
    GR_CHECK(gr_check_range(w, d->hr_radius, 0.0, 1e3, f, "pbd.hr_radius"));
    if (d->hr_radius > 0 && d->hr_radius < 1e-5)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.hr_radius = %g m: give 0 (off) or a radius in [1e-5, 1e3] m",
                       d->hr_radius);
    GR_CHECK(gr_check_range(w, d->hr_support, 1.0 + 1e-9, 10.0, f, "pbd.hr_support"));
    GR_CHECK(gr_check_range(w, d->hr_density, 1e-6, 1e6, f, "pbd.hr_density"));
    GR_CHECK(gr_check_range(w, d->hr_substep, 1e-5, 10.0, f, "pbd.hr_substep"));
    if (d->hr_candidates < 1 || d->hr_candidates > 1000)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.hr_candidates = %u: must be in [1, 1000]",
                       d->hr_candidates);
    if (d->max_iterations > 1000)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "pbd.max_iterations = %u: must be 0 (the library's) or in [1, 1000]",
                       d->max_iterations);
    GR_CHECK(gr_check_positive(w, d->max_acceleration, false, f, "pbd.max_acceleration"));
    GR_CHECK(gr_check_range(w, d->sleep_time, 0.0, 1e6, f, "pbd.sleep_time"));
    GR_CHECK(gr_check_range(w, d->hr_sample_radius, 1.0, 3.0, f, "pbd.hr_sample_radius"));
    return GR_OK;
}

/* A world def is checked before the world exists: messages go to the def's logger through a
 * stand-in world (see gr_world_create). gr_world_load checks a snapshot's settings here too. */
gr_status gr_validate_world_def(const gr_world *w, const gr_world_def *d, const char *f, gr_dem_def *dem_out,
                                gr_pbd_def *pbd_out)
{
    GR_CHECK(gr_check_enum(w, (uint32_t)d->solver, 4, f, "def.solver"));
    GR_CHECK(gr_check_vec(w, d->gravity, f, "def.gravity"));
    GR_CHECK(gr_check_substep_limit(w, d->substep, true, f, "def.substep"));
    if (d->worker_count > GR_MAX_WORKERS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "def.worker_count %u exceeds GR_MAX_WORKERS (%u)", d->worker_count,
                       GR_MAX_WORKERS);
    if (d->reserved0 != 0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.reserved0 must be 0");
    if (!d->allocator.alloc != !d->allocator.free)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.allocator: set both alloc and free, or neither");
    GR_CHECK(gr_check_vec(w, d->bounds_min, f, "def.bounds_min"));
    GR_CHECK(gr_check_vec(w, d->bounds_max, f, "def.bounds_max"));
    bool bounded = d->bounds_min.x != d->bounds_max.x || d->bounds_min.y != d->bounds_max.y ||
                   d->bounds_min.z != d->bounds_max.z;
    if (bounded && !(d->bounds_min.x < d->bounds_max.x && d->bounds_min.y < d->bounds_max.y &&
                     d->bounds_min.z < d->bounds_max.z))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.bounds_min must be below def.bounds_max on every axis");
    if (!d->tasks.enqueue != !d->tasks.finish)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.tasks: set both enqueue and finish, or neither");
    if (!d->host.get_state != !d->host.apply_impulse)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.host: set both get_state and apply_impulse, or neither");
    gr_def_defaults_full(GR_DEF_DEM, dem_out);
    if (d->dem)
        GR_CHECK(gr_def_read(w, GR_DEF_DEM, d->dem, dem_out, f, "def.dem"));
    GR_CHECK(gr_validate_dem_def(w, dem_out, f));
    gr_def_defaults_full(GR_DEF_PBD, pbd_out);
    if (d->pbd)
        GR_CHECK(gr_def_read(w, GR_DEF_PBD, d->pbd, pbd_out, f, "def.pbd"));
    GR_CHECK(gr_validate_pbd_def(w, pbd_out, f));
    if (!gr_solver_find(d->solver == GR_SOLVER_DEFAULT ? GR_SOLVER_DEM : d->solver)) {
        char built[64] = "";
        for (uint32_t i = 0, len = 0; gr_solver_at(i) && len < sizeof built; i++)
            len += (uint32_t)snprintf(built + len, sizeof built - len, "%s%s", i ? ", " : "", gr_solver_at(i)->name);
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "solver %u is not built yet (built: %s)", (unsigned)d->solver, built);
    }
    return GR_OK;
}

GR_API gr_status gr_world_create(const gr_world_def *user_def, gr_world **out)
{
    /* a stand-in world so that messages reach the caller's logger before a world exists */
    static const char func[] = "gr_world_create";
    gr_world_def def;
    gr_dem_def dem;
    gr_pbd_def pbd;
    gr_world *tmp;
    gr_world probe;
    memset(&probe, 0, sizeof probe);
    if (user_def) {
        uint32_t size;
        memcpy(&size, user_def, sizeof size);
        /* errors go to the def's logger whenever its size covers the logger field (a def too
         * short for it, such as an uninitialised one of size 0, cannot be logged) */
        if (size >= offsetof(gr_world_def, logger) + sizeof(gr_logger))
            probe.def.logger = user_def->logger;
    }
    if (!out)
        return gr_fail(&probe, GR_ERROR_NULL_ARGUMENT, func, "out is NULL");
    GR_CHECK(gr_def_read(&probe, GR_DEF_WORLD, user_def, &def, func, "def"));
    probe.def.logger = def.logger;
    GR_CHECK(gr_validate_world_def(&probe, &def, func, &dem, &pbd));
    if (def.solver == GR_SOLVER_DEFAULT)
        def.solver = GR_SOLVER_DEM;
    if (def.worker_count == 0)
        def.worker_count = 1;

    gr_mem mem;
    gr_mem_init(&mem, &def.allocator);
    tmp = (gr_world *)gr_mem_calloc(&mem, sizeof(gr_world));
    if (!tmp)
        return gr_fail(&probe, GR_ERROR_OUT_OF_MEMORY, func, "allocating the world failed");
    tmp->mem = mem;
    tmp->def = def;
    tmp->dem = dem;
    tmp->def.dem = &tmp->dem;
    tmp->pbd = pbd;
    tmp->def.pbd = &tmp->pbd;
    tmp->tag = gr_handle_new_tag();
    gr_materials_init(&tmp->materials);
    gr_clump_store_init(&tmp->clumps);
    gr_grain_table_init(&tmp->grains);
    gr_body_store_init(&tmp->bodies);

    gr_status s = gr_tasks_init(&tmp->tasks, &tmp->mem, def.worker_count, &def.tasks);
    if (s != GR_OK) {
        gr_mem m = tmp->mem; /* the counters live in the block being freed */
        gr_mem_free(&m, tmp, sizeof(gr_world));
        return gr_fail(&probe, s, func, "starting %u worker threads failed", def.worker_count);
    }
    gr_material_def mat;
    gr_def_defaults_full(GR_DEF_MATERIAL, &mat);
    if (!gr_materials_add(&tmp->materials, &tmp->mem, &mat)) {
        gr_world_destroy(tmp);
        return gr_fail(&probe, GR_ERROR_OUT_OF_MEMORY, func, "allocating the default material failed");
    }
    tmp->default_material = 0;
    if (!gr_clump_store_add_builtins(&tmp->clumps, &tmp->mem)) {
        gr_world_destroy(tmp);
        return gr_fail(&probe, GR_ERROR_OUT_OF_MEMORY, func, "allocating the built-in grain shapes failed");
    }
    tmp->solver = gr_solver_find(def.solver);
    const gr_solver_env env = gr_world_solver_env(tmp);
    s = tmp->solver->create(&env, &tmp->solver_state);
    if (s != GR_OK) {
        tmp->solver_state = NULL;
        gr_world_destroy(tmp);
        return gr_fail(&probe, s, func, "creating the %s solver failed", gr_solver_find(def.solver)->name);
    }
    *out = tmp;
    return GR_OK;
}

GR_API void gr_world_destroy(gr_world *w)
{
    if (!w)
        return;
    if (w->solver && w->solver_state)
        w->solver->destroy(w->solver_state);
    gr_tasks_destroy(&w->tasks);
    gr_materials_free(&w->materials, &w->mem);
    gr_clump_store_free(&w->clumps, &w->mem);
    gr_grain_table_free(&w->grains, &w->mem);
    gr_body_store_free(&w->bodies, &w->mem);
    gr_mem mem = w->mem;
    gr_mem_free(&mem, w, sizeof(gr_world));
}

static double resolved_substep(const gr_world *w)
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

GR_API gr_status gr_step(gr_world *w, double dt)
{
    static const char f[] = "gr_step";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_check_positive(w, dt, false, f, "dt"));
    double hmax = resolved_substep(w);
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
    gr_status s = w->solver->step(w->solver_state, n, h, &rep);
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
                           rep.blowups, GR_MAX_SPEED, w->grains.pos[rep.blowup_slot], h);
        if (!rep.blowups)
            return gr_fail(w, s, f,
                           "the adaptive step size fell below its floor (substep %g s): the state is too stiff or "
                           "absurd; the world is at its last accepted state",
                           h);
        return gr_fail(w, s, f,
                       "%u grain(s) or body particle(s) blew up (non-finite, or faster than GR_MAX_SPEED = %g m/s); "
                       "stopped at their last finite state (substep %g s; set a smaller gr_world_def.substep)",
                       rep.blowups, GR_MAX_SPEED, h);
    }
    if (s != GR_OK && !moved)
        return gr_fail(w, s, f, "%s before the first substep; nothing was stepped", gr_status_string(s));
    if (s != GR_OK)
        return gr_fail(w, s, f, "%s during the step; the world is consistent at the end of its last completed "
                       "substep, t = %g s", gr_status_string(s), w->time);
    return GR_OK;
}

GR_API const char *gr_world_last_error(const gr_world *w) { return w ? w->last_error : "world is NULL"; }
GR_API double gr_world_get_time(const gr_world *w) { return w ? w->time : 0.0; }
GR_API void *gr_world_get_user_data(const gr_world *w) { return w ? w->def.user_data : NULL; }
GR_API uint32_t gr_world_get_grain_count(const gr_world *w) { return w ? w->grains.count : 0; }

GR_API uint32_t gr_world_get_render_point_count(const gr_world *w)
{
    return w ? w->solver->render_point_count(w->solver_state) : 0;
}

GR_API double gr_world_get_substep(const gr_world *w)
{
    if (!w)
        return 0.0;
    double h = resolved_substep(w);
    return isfinite(h) ? h : 0.0;
}

GR_API gr_status gr_world_get_counters(const gr_world *w, gr_counters *out)
{
    static const char f[] = "gr_world_get_counters";
    GR_CHECK(gr_check_world(w, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_COUNTERS, out->size, f, "out"));
    gr_counters c;
    memset(&c, 0, sizeof c);
    c.size = out->size;
    c.grain_count = w->grains.count;
    c.body_count = w->bodies.count;
    c.material_count = w->materials.count;
    w->solver->contact_counts(w->solver_state, &c.contact_count, &c.body_contact_count, &c.neighbor_rebuilds);
    c.step_count = w->step_count;
    c.substep_count = w->substep_count;
    c.time = w->time;
    c.last_substep = w->last_substep;
    c.bytes_in_use = w->mem.in_use;
    c.bytes_peak = w->mem.peak;
    c.allocation_count = w->mem.count;
    c.grains_removed = w->grains_removed;
    if (w->solver->sleep_counts)
        w->solver->sleep_counts(w->solver_state, &c.sleeping_count, &c.frozen_count);
    memcpy(out, &c, out->size < sizeof c ? out->size : sizeof c);
    return GR_OK;
}

GR_API gr_status gr_world_get_def(const gr_world *w, gr_world_def *out, gr_dem_def *dem_out)
{
    static const char f[] = "gr_world_get_def";
    GR_CHECK(gr_check_world(w, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_WORLD_DEF, out->size, f, "out"));
    if (dem_out)
        GR_CHECK(gr_check_struct_size(w, GR_STRUCT_DEM_DEF, dem_out->size, f, "dem_out"));
    gr_world_def d = w->def;
    d.dem = dem_out;
    d.pbd = NULL; /* gr_world_get_pbd_def reads it */
    uint32_t size = out->size;
    memcpy(out, &d, size < sizeof d ? size : sizeof d);
    out->size = size;
    if (dem_out) {
        uint32_t ds = dem_out->size;
        memcpy(dem_out, &w->dem, ds < sizeof w->dem ? ds : sizeof w->dem);
        dem_out->size = ds;
    }
    return GR_OK;
}

GR_API gr_status gr_world_get_pbd_def(const gr_world *w, gr_pbd_def *out)
{
    static const char f[] = "gr_world_get_pbd_def";
    GR_CHECK(gr_check_world(w, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_PBD_DEF, out->size, f, "out"));
    const uint32_t size = out->size;
    memcpy(out, &w->pbd, size < sizeof w->pbd ? size : sizeof w->pbd);
    out->size = size;
    return GR_OK;
}

GR_API gr_status gr_world_set_gravity(gr_world *w, gr_vec3 g)
{
    static const char f[] = "gr_world_set_gravity";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_check_vec(w, g, f, "gravity"));
    w->def.gravity = g;
    /* forces include gravity: refresh them at the next step */
    w->solver->invalidate(w->solver_state);
    return GR_OK;
}
