/* SPDX-License-Identifier: MIT */
/* World entry points: version, status text, create/destroy, step, queries. */
#include <stdio.h>

#include "../bodies/body_store.h"
#include "../core/handle_tags.h"
#include "../simd/simd_kernels.h"
#include "../world/world_errors.h"
#include "../world/world_step.h"
#include "../world/world_systems.h"
#include "api_internal.h"
#include "api_world.h"
#include "api_defaults.h"
#include "api_terrain.h"

GR_API uint32_t gr_get_version(void) { return GR_VERSION_NUMBER; }
GR_API const char *gr_get_version_string(void) { return GR_VERSION_STRING; }
GR_API uint32_t gr_get_precision(void) { return (uint32_t)sizeof(double); }

/* A substep limit: finite, at least GR_MIN_SUBSTEP (0 allowed when zero_ok: automatic), so
 * that no def, given or loaded, asks one gr_step for an unbounded number of substeps. */
gr_status gr_check_substep_limit(const gr_world *w, double v, bool zero_ok, const char *f, const char *what)
{
    gr_def_check c;
    gr_def_check_init(&c);
    gr_def_substep_limit(&c, v, zero_ok, what);
    return gr_check_def(w, &c, f);
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
    /* GR_MATERIAL_DERIVED (exactly -1) or a coefficient */
    if (d->static_friction != GR_MATERIAL_DERIVED)
        GR_CHECK(gr_check_range(w, d->static_friction, 0.0, 1e3, f, "material.static_friction"));
    if (d->kinetic_friction != GR_MATERIAL_DERIVED)
        GR_CHECK(gr_check_range(w, d->kinetic_friction, 0.0, 1e3, f, "material.kinetic_friction"));
    if (d->continuum_friction != GR_MATERIAL_DERIVED)
        GR_CHECK(gr_check_range(w, d->continuum_friction, 0.0, 1e3, f, "material.continuum_friction"));
    return GR_OK;
}

/* The def given for solver s in gr_world_def's own field for it (dem, pbd: the fields from
 * before solver_def), if any, and the field's name for messages. */
static const void *field_def(const gr_world_def *d, const gr_solver_vtable *s, const char **what)
{
    *what = s->def_kind == GR_DEF_DEM ? "def.dem" : s->def_kind == GR_DEF_PBD ? "def.pbd" : "def.solver_def";
    return s->def_kind == GR_DEF_DEM ? (const void *)d->dem : s->def_kind == GR_DEF_PBD ? (const void *)d->pbd : NULL;
}

/* The def given for solver s: solver_def for the world's own solver, else its field. */
static const void *given_def(const gr_world_def *d, const gr_solver_vtable *s, gr_solver_kind kind, const char **what)
{
    if (s->kind == kind && d->solver_def) {
        *what = "def.solver_def";
        return d->solver_def;
    }
    return field_def(d, s, what);
}

gr_status gr_validate_solver_def(const gr_world *w, const gr_solver_vtable *s, const void *def, const char *f)
{
    gr_def_check c;
    gr_def_check_init(&c);
    s->def_validate(def, &c);
    return gr_check_def(w, &c, f);
}

/* A world def is checked before the world exists: messages go to the def's logger through a
 * stand-in world (see gr_world_create). gr_world_load checks a snapshot's settings here too. */
gr_status gr_validate_world_def(const gr_world *w, const gr_world_def *d, const char *f, void *solver_def_out)
{
    /* a kind of the public enum (built or not: UNSUPPORTED below), or one a build registered */
    if (!gr_solver_find(d->solver))
        GR_CHECK(gr_check_enum(w, (uint32_t)d->solver, 5, f, "def.solver"));
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
    const gr_solver_kind kind = d->solver == GR_SOLVER_DEFAULT ? GR_SOLVER_DEM : d->solver;
    if (d->solver_def) {
        const gr_solver_vtable *own = gr_solver_find(kind);
        const char *what;
        if (own && field_def(d, own, &what))
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "give def.solver_def or %s, not both", what);
    }
    /* every def given is checked by its solver, the world's own and any other (a mistake in a
     * def the world does not use is still a mistake); the world keeps its own solver's */
    for (uint32_t i = 0; gr_solver_at(i); i++) {
        const gr_solver_vtable *s = gr_solver_at(i);
        const char *what;
        const void *given = given_def(d, s, kind, &what);
        gr_def_buffer def;
        gr_def_defaults_full(s->def_kind, &def);
        if (given)
            GR_CHECK(gr_def_read(w, s->def_kind, given, &def, f, what));
        GR_CHECK(gr_validate_solver_def(w, s, &def, f));
        if (s->kind == kind && solver_def_out)
            memcpy(solver_def_out, &def, s->def_size);
    }
    if (!gr_solver_find(kind)) {
        char built[64] = "";
        for (uint32_t i = 0, len = 0; gr_solver_at(i) && len < sizeof built; i++)
            len += (uint32_t)snprintf(built + len, sizeof built - len, "%s%s", i ? ", " : "", gr_solver_at(i)->name);
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "solver %u is not built yet (built: %s)", (unsigned)d->solver, built);
    }
    if (kind == GR_SOLVER_TERRAIN)
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f,
                       "def.solver: a terrain holds no grains of its own; create the world with a particle solver and "
                       "add the terrain beside it (gr_world_add_system with GR_SOLVER_TERRAIN)");
    return GR_OK;
}

GR_API gr_status gr_world_create(const gr_world_def *user_def, gr_world **out)
{
    /* a stand-in world so that messages reach the caller's logger before a world exists */
    static const char func[] = "gr_world_create";
    gr_world_def def;
    gr_def_buffer solver_def;
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
    GR_CHECK(gr_validate_world_def(&probe, &def, func, &solver_def));
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
    /* the caller's def pointers are not kept: the world's solver's def is copied below */
    tmp->def.dem = NULL;
    tmp->def.pbd = NULL;
    tmp->def.solver_def = NULL;
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
    tmp->kernels = gr_kernels_pick();
    s = gr_world_attach_system(tmp, gr_solver_find(def.solver), &solver_def, NULL, func); /* (worded there) */
    if (s != GR_OK) {
        gr_world_destroy(tmp);
        return s;
    }
    *out = tmp;
    return GR_OK;
}

GR_API void gr_world_destroy(gr_world *w)
{
    if (!w)
        return;
    gr_world_free_systems(w);
    gr_tasks_destroy(&w->tasks);
    gr_materials_free(&w->materials, &w->mem);
    gr_clump_store_free(&w->clumps, &w->mem);
    gr_grain_table_free(&w->grains, &w->mem);
    gr_body_store_free(&w->bodies, &w->mem);
    gr_mem mem = w->mem;
    gr_mem_free(&mem, w, sizeof(gr_world));
}

GR_API gr_status gr_step(gr_world *w, double dt)
{
    static const char f[] = "gr_step";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_check_positive(w, dt, false, f, "dt"));
    return gr_world_step(w, dt, f);
}

GR_API const char *gr_world_last_error(const gr_world *w) { return w ? w->last_error : "world is NULL"; }
GR_API double gr_world_get_time(const gr_world *w) { return w ? w->time : 0.0; }
GR_API void *gr_world_get_user_data(const gr_world *w) { return w ? w->def.user_data : NULL; }
GR_API uint32_t gr_world_get_grain_count(const gr_world *w) { return w ? w->grains.count : 0; }

GR_API uint32_t gr_world_get_render_point_count(const gr_world *w)
{
    if (!w)
        return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->system_count; i++)
        n += w->systems[i].solver->render_point_count(w->systems[i].state);
    return n;
}

GR_API double gr_world_get_substep(const gr_world *w)
{
    if (!w)
        return 0.0;
    double h = gr_world_max_substep(w);
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
    for (uint32_t i = 0; i < w->system_count; i++) { /* every system's, summed */
        const gr_system *sys = &w->systems[i];
        uint64_t pairs, body_pairs, rebuilds;
        sys->solver->contact_counts(sys->state, &pairs, &body_pairs, &rebuilds);
        c.contact_count += pairs;
        c.body_contact_count += body_pairs;
        c.neighbor_rebuilds += rebuilds;
        if (sys->solver->sleep_counts) {
            uint32_t sleeping, frozen;
            sys->solver->sleep_counts(sys->state, &sleeping, &frozen);
            c.sleeping_count += sleeping;
            c.frozen_count += frozen;
        }
        if (sys->solver->regrain_counts) {
            uint64_t made, unmade;
            sys->solver->regrain_counts(sys->state, &made, &unmade);
            c.grains_split += made;
            c.grains_merged += unmade;
        }
    }
    c.step_count = w->step_count;
    c.substep_count = w->substep_count;
    c.time = w->time;
    c.last_substep = w->last_substep;
    c.bytes_in_use = w->mem.in_use;
    c.bytes_peak = w->mem.peak;
    c.allocation_count = w->mem.count;
    c.grains_removed = w->grains_removed;
    memcpy(out, &c, out->size < sizeof c ? out->size : sizeof c);
    return GR_OK;
}

/* A solver's def into a caller's struct of `size` bytes (checked): that of the world's first
 * system of this solver, or the solver's defaults when it has none. Only the first `size`
 * bytes are written; the size stays. */
static void copy_solver_def(const gr_world *w, const gr_solver_vtable *s, void *out)
{
    uint32_t size;
    memcpy(&size, out, sizeof size);
    gr_def_buffer def;
    uint32_t i = 0;
    while (i < w->system_count && w->systems[i].solver != s)
        i++;
    if (i < w->system_count)
        memcpy(&def, w->systems[i].def, s->def_size);
    else
        gr_def_defaults_full(s->def_kind, &def);
    memcpy(out, &def, size < s->def_size ? size : s->def_size);
    memcpy(out, &size, sizeof size);
}

/* Checks of the def getters: kind is a built solver's def, out is one of its sizes. */
static gr_status check_solver_def_out(const gr_world *w, gr_def_kind kind, const void *out, const char *f,
                                      const char *what, const gr_solver_vtable **solver)
{
    *solver = gr_solver_find_def(kind);
    if (!*solver)
        return gr_fail(w, GR_ERROR_UNKNOWN_ENUM, f, "kind = %u is not the def of a built solver", (unsigned)kind);
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "%s is NULL", what);
    uint32_t size;
    memcpy(&size, out, sizeof size);
    return gr_check_struct_size(w, (gr_struct_kind)kind, size, f, what);
}

GR_API gr_status gr_world_get_def(const gr_world *w, gr_world_def *out, gr_dem_def *dem_out)
{
    static const char f[] = "gr_world_get_def";
    GR_CHECK(gr_check_world(w, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_WORLD_DEF, out->size, f, "out"));
    const gr_solver_vtable *dem = NULL;
    if (dem_out)
        GR_CHECK(check_solver_def_out(w, GR_DEF_DEM, dem_out, f, "dem_out", &dem));
    gr_world_def d = w->def;
    d.dem = dem_out;
    d.pbd = NULL; /* gr_world_get_pbd_def and gr_world_get_solver_def read the solvers' defs */
    d.solver_def = NULL;
    uint32_t size = out->size;
    memcpy(out, &d, size < sizeof d ? size : sizeof d);
    out->size = size;
    if (dem_out)
        copy_solver_def(w, dem, dem_out);
    return GR_OK;
}

GR_API gr_status gr_world_get_pbd_def(const gr_world *w, gr_pbd_def *out)
{
    static const char f[] = "gr_world_get_pbd_def";
    GR_CHECK(gr_check_world(w, f));
    const gr_solver_vtable *s;
    GR_CHECK(check_solver_def_out(w, GR_DEF_PBD, out, f, "out", &s));
    copy_solver_def(w, s, out);
    return GR_OK;
}

GR_API gr_status gr_world_get_solver_def(const gr_world *w, gr_def_kind kind, void *out)
{
    static const char f[] = "gr_world_get_solver_def";
    GR_CHECK(gr_check_world(w, f));
    const gr_solver_vtable *s;
    GR_CHECK(check_solver_def_out(w, kind, out, f, "out", &s));
    copy_solver_def(w, s, out);
    return GR_OK;
}

GR_API gr_status gr_world_add_system(gr_world *w, gr_solver_kind kind, const void *user_def, uint32_t *out)
{
    static const char f[] = "gr_world_add_system";
    GR_CHECK(gr_check_world(w, f));
    if (kind == GR_SOLVER_DEFAULT)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "solver: name the solver (GR_SOLVER_DEFAULT names none)");
    const gr_solver_vtable *solver = gr_solver_find(kind);
    if (!solver) {
        GR_CHECK(gr_check_enum(w, (uint32_t)kind, 5, f, "solver"));
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "solver %u is not built", (unsigned)kind);
    }
    gr_def_buffer def;
    gr_def_defaults_full(solver->def_kind, &def);
    if (user_def)
        GR_CHECK(gr_def_read(w, solver->def_kind, user_def, &def, f, "solver_def"));
    GR_CHECK(gr_validate_solver_def(w, solver, &def, f));
    if (kind == GR_SOLVER_TERRAIN)
        return gr_world_add_terrain(w, &def, out, f); /* api_terrain.c: the system and its surface */
    GR_CHECK(gr_world_attach_system(w, solver, &def, out, f));
    return GR_OK;
}

GR_API uint32_t gr_world_get_system_count(const gr_world *w) { return w ? w->system_count : 0; }

GR_API gr_status gr_world_get_system_solver(const gr_world *w, uint32_t system, gr_solver_kind *out)
{
    static const char f[] = "gr_world_get_system_solver";
    GR_CHECK(gr_check_world(w, f));
    if (system >= w->system_count)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "system %u: the world holds %u", system, w->system_count);
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    *out = w->systems[system].solver->kind;
    return GR_OK;
}

GR_API gr_status gr_world_set_gravity(gr_world *w, gr_vec3 g)
{
    static const char f[] = "gr_world_set_gravity";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_check_vec(w, g, f, "gravity"));
    w->def.gravity = g;
    /* forces include gravity: refresh them at the next step */
    gr_world_invalidate(w);
    return GR_OK;
}
