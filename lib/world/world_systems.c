/* SPDX-License-Identifier: MIT */
/* The systems of a world: each a solver with its own grains (core/solver.h), coupled in pairs
 * (core/coupling.h). System 0 is the world's own solver; gr_world_add_system adds others. */
#include <string.h>

#include "../bodies/body_cover.h"
#include "world.h"
#include "world_systems.h"
#include "world_env.h"
#include "world_errors.h"

bool gr_world_body_particles(const gr_world *w)
{
    for (uint32_t i = 0; i < w->system_count; i++)
        if (w->systems[i].solver->body_particles)
            return true;
    return false;
}

void gr_world_invalidate(gr_world *w)
{
    for (uint32_t i = 0; i < w->system_count; i++)
        w->systems[i].solver->invalidate(w->systems[i].state);
}

void gr_world_free_systems(gr_world *w)
{
    for (uint32_t i = w->system_count; i-- > 0;) {
        gr_system *sys = &w->systems[i];
        if (sys->state)
            sys->solver->destroy(sys->state);
        if (sys->def)
            gr_mem_free(&w->mem, sys->def, sys->solver->def_size);
        *sys = (gr_system){0};
    }
    w->system_count = 0;
    w->coupling_count = 0;
    gr_mem_free(&w->mem, w->impulse_sum, sizeof(gr_vec3) * 2 * (size_t)w->impulse_cap);
    w->impulse_sum = NULL;
    w->impulse_cap = 0;
}

/* Whether a system of `solver` may join: a free place, at most one system moving bodies, body
 * particles only where the bodies have them, and a coupling with every system there. */
static gr_status check_joins(const gr_world *w, const gr_solver_vtable *solver, const char *f)
{
    if (w->system_count >= GR_MAX_SYSTEMS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u systems", GR_MAX_SYSTEMS);
    for (uint32_t i = 0; i < w->system_count; i++) {
        const gr_solver_vtable *other = w->systems[i].solver;
        if (solver->integrates_bodies && other->integrates_bodies)
            return gr_fail(w, GR_ERROR_UNSUPPORTED, f,
                           "system %u (%s) already moves the dynamic bodies; a %s system would move them too", i,
                           other->name, solver->name);
        bool swapped;
        if (!gr_coupling_find(other->kind, solver->kind, &swapped))
            return gr_fail(w, GR_ERROR_UNSUPPORTED, f,
                           "no coupling between the %s and the %s solver is built: their grains would pass through "
                           "each other",
                           other->name, solver->name);
    }
    if (solver->body_particles && !gr_world_body_particles(w))
        for (uint32_t a = 0; a < w->bodies.count; a++)
            if (gr_body_needs_particles(&w->bodies.data[w->bodies.active[a]]))
                return gr_fail(w, GR_ERROR_UNSUPPORTED, f,
                               "the %s solver meets bodies by their surface particles, which the bodies already in "
                               "the world do not have: add this system before them",
                               solver->name);
    return GR_OK;
}

gr_status gr_world_attach_system(gr_world *w, const gr_solver_vtable *solver, const void *def, uint32_t *out,
                                 const char *f)
{
    const gr_status joins = check_joins(w, solver, f);
    if (joins != GR_OK)
        return joins;
    const uint32_t index = w->system_count;
    gr_system sys = {.solver = solver};
    sys.def = gr_mem_alloc(&w->mem, solver->def_size);
    if (!sys.def)
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the %s solver's def failed", solver->name);
    memcpy(sys.def, def, solver->def_size);
    const gr_solver_env env = gr_world_solver_env(w, index, sys.def);
    gr_status s = solver->create(&env, &sys.state);
    /* the bodies already there, all or nothing */
    uint32_t added = 0;
    for (; s == GR_OK && added < w->bodies.count && solver->body_added; added++)
        s = solver->body_added(sys.state, w->bodies.active[added]);
    if (s != GR_OK) {
        if (sys.state) {
            for (uint32_t a = 0; a + 1 < added && solver->body_removed; a++)
                solver->body_removed(sys.state, w->bodies.active[a]);
            solver->destroy(sys.state);
        }
        gr_mem_free(&w->mem, sys.def, solver->def_size);
        return gr_fail(w, s, f, "creating the %s solver failed (%s)", solver->name, gr_status_string(s));
    }
    /* the couplings with the systems there */
    for (uint32_t i = 0; i < index; i++) {
        bool swapped;
        const gr_coupling_vtable *c = gr_coupling_find(w->systems[i].solver->kind, solver->kind, &swapped);
        w->couplings[w->coupling_count++] = (gr_world_coupling){c, swapped ? index : i, swapped ? i : index};
    }
    w->systems[index] = sys;
    w->system_count = index + 1;
    if (out)
        *out = index;
    return GR_OK;
}

void gr_world_detach_last_system(gr_world *w)
{
    const uint32_t index = w->system_count - 1;
    gr_system *sys = &w->systems[index];
    for (uint32_t a = 0; a < w->bodies.count && sys->solver->body_removed; a++)
        sys->solver->body_removed(sys->state, w->bodies.active[a]);
    sys->solver->destroy(sys->state);
    gr_mem_free(&w->mem, sys->def, sys->solver->def_size);
    *sys = (gr_system){0};
    uint32_t kept = 0; /* its couplings go with it */
    for (uint32_t c = 0; c < w->coupling_count; c++)
        if (w->couplings[c].a != index && w->couplings[c].b != index)
            w->couplings[kept++] = w->couplings[c];
    w->coupling_count = kept;
    w->system_count = index;
}

gr_status gr_world_add_grains(gr_world *w, uint32_t system, gr_grain_init *g, uint32_t count)
{
    if ((uint64_t)w->grains.count + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    if (!gr_grain_table_reserve(&w->grains, &w->mem, count))
        return GR_ERROR_OUT_OF_MEMORY;
    const gr_system *sys = &w->systems[system];
    const gr_status s = sys->solver->reserve(sys->state, g, count);
    if (s != GR_OK)
        return s;
    for (uint32_t k = 0; k < count; k++)
        g[k].slot = gr_grain_table_take(&w->grains, system);
    sys->solver->add_grains(sys->state, g, count);
    return GR_OK;
}

void gr_world_remove_grains(gr_world *w, const uint32_t *slots, uint32_t count)
{
    /* each system's grains in calls of up to a chunk (a solver may compact at every call: the
     * dense indices are read just before each call) */
    enum { CHUNK = 256 };
    uint32_t dense[CHUNK];
    for (uint32_t i = 0; i < w->system_count; i++) {
        const gr_system *sys = &w->systems[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < count; k++) {
            if (w->grains.system[slots[k]] != i)
                continue;
            dense[n++] = w->grains.dense[slots[k]];
            if (n == CHUNK) {
                sys->solver->remove_grains(sys->state, dense, n);
                n = 0;
            }
        }
        if (n)
            sys->solver->remove_grains(sys->state, dense, n);
    }
    for (uint32_t k = 0; k < count; k++)
        gr_grain_table_release(&w->grains, slots[k]);
}

void gr_world_grain_field(const gr_world *w, gr_field field, const uint32_t *slots, const uint32_t *dense, uint32_t n,
                          double *out, const double *in)
{
    for (uint32_t a = 0; a < n;) { /* one solver call per run of grains of one system */
        const uint8_t system = w->grains.system[slots[a]];
        uint32_t b = a + 1;
        while (b < n && w->grains.system[slots[b]] == system)
            b++;
        const gr_system *sys = &w->systems[system];
        if (out)
            sys->solver->read_field(sys->state, field, dense + a, b - a, out + 4 * (size_t)a);
        else
            sys->solver->write_field(sys->state, field, dense + a, b - a, in + 4 * (size_t)a);
        a = b;
    }
}
