/* SPDX-License-Identifier: MIT */
/* PBD solver: lifetime, particles in and out, field access, and its function table. */
#include <math.h>

#include "../core/vec3.h"
#include "../simd/simd_kernels.h"
#include "pbd_internal.h"
#include "pbd_store.h"
#include "pbd_lists.h"
#include "pbd_solve.h"
#include "pbd_bodies.h"
#include "pbd_points.h"
#include "pbd_freeze.h"
#include "pbd_step.h"
#include "pbd_snapshot.h"
#include "pbd_def.h"

static void params_from_def(pbd_params *p, const gr_pbd_def *d)
{
    p->iterations = d->iterations;
    p->max_iterations = d->max_iterations;
    p->stabilization_iterations = d->stabilization_iterations;
    p->relaxation = d->relaxation;
    p->margin_fraction = d->collision_margin;
    p->mass_scaling = d->mass_scaling;
    p->sleep_threshold = d->sleep_threshold;
    p->sleep_time = d->sleep_time;
    p->cfl = d->cfl;
    p->max_substep = d->max_substep;
}

static gr_status pbd_create(const gr_solver_env *env, void **out)
{
    pbd_state *st = (pbd_state *)gr_mem_calloc(env->mem, sizeof(pbd_state));
    if (!st)
        return GR_ERROR_OUT_OF_MEMORY;
    st->env = *env;
    st->def = (const gr_pbd_def *)env->def;
    st->mem = env->mem;
    params_from_def(&st->par, st->def);
    gr_cell_grid_init(&st->grid);
    gr_cell_grid_init(&st->fgrid);
    const gr_upsample_params points = GR_UPSAMPLE_PARAMS_OF(st->def);
    gr_upsample_init(&st->points, env, &points);
    st->fixed_dirty = true;
    st->mov_dirty = true;
    st->gravity_seen = (*env->gravity);
    st->r_min = INFINITY;
    st->r_max = 0;
    st->mat_revision = UINT32_MAX;
    *out = st;
    return GR_OK;
}

static void pbd_destroy(void *state)
{
    pbd_state *st = (pbd_state *)state;
    if (!st)
        return;
    gr_mem *mem = st->mem;
    pbd_free_particles(st);
    pbd_free_lists(st);
    pbd_free_solve(st);
    gr_upsample_free(&st->points);
    pbd_free_freeze(st);
    {
        const gr_array_ref sensing[] = {{(void **)&st->sense_slot, 2 * sizeof(uint32_t)},
                                        {(void **)&st->sense_force, 2 * sizeof(gr_vec3)},
                                        {(void **)&st->sense_torque, 2 * sizeof(gr_vec3)}};
        gr_mem_free_arrays(mem, sensing, GR_COUNTOF(sensing), st->sense_cap);
    }
    pbd_free_bodies(st);
    gr_mem_free(mem, st->mu, sizeof(double) * 2 * st->pair_dim * st->pair_dim);
    gr_mem_free(mem, st, sizeof(pbd_state));
}

static gr_status pbd_reserve(void *state, const gr_grain_init *g, uint32_t count)
{
    pbd_state *st = (pbd_state *)state;
    for (uint32_t k = 0; k < count; k++)
        if (g[k].clump != GR_INVALID_INDEX)
            return GR_ERROR_UNSUPPORTED;
    if ((uint64_t)st->n + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    return pbd_reserve_particles(st, st->n + count);
}

static void pbd_add_grains(void *state, const gr_grain_init *g, uint32_t count)
{
    pbd_state *st = (pbd_state *)state;
    const gr_materials *mats = st->env.materials;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = st->n++;
        const double r = g[k].radius;
        const double m = mats->defs[g[k].material].density * 4.0 / 3.0 * GR_PI * r * r * r;
        st->x[i] = st->xp[i] = g[k].position;
        st->v[i] = g[k].velocity;
        st->f[i] = st->rest[i] = v3(0, 0, 0);
        st->calm[i] = 0;
        st->stir[i] = 0;
        st->r[i] = r;
        st->inv_m[i] = 1.0 / m;
        st->mat[i] = g[k].material;
        st->owner[i] = GR_INVALID_INDEX;
        st->slot[i] = g[k].slot;
        st->touch[i] = 0;
        /* a fill whose region has its points already (pbd_fill_region): 1 */
        st->sampled[i] = gr_upsample_take_presampled(&st->points) ? 1 : 0;
        st->env.grains->dense[g[k].slot] = i;
        st->r_min = GR_MIN(st->r_min, r);
        st->r_max = GR_MAX(st->r_max, r);
        st->n_grains++;
    }
    st->mov_dirty = true;
}

static void pbd_remove_grains(void *state, const uint32_t *dense, uint32_t count)
{
    pbd_state *st = (pbd_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        st->slot[dense[k]] = GR_INVALID_INDEX;
        st->owner[dense[k]] = GR_INVALID_INDEX;
        st->n_dead++;
        st->n_grains--;
    }
    gr_upsample_unrest(&st->points); /* points among the removed grains must not hang where they were */
    st->thaw = true;       /* nor may frozen grains that leant on them */
    pbd_compact(st); /* dense indices stay valid for the API between calls */
}

static void pbd_read_field(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out)
{
    const pbd_state *st = (const pbd_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        double *o = out + 4 * (size_t)k;
        gr_vec3 a = {0, 0, 0};
        switch (field) {
        case GR_FIELD_POSITION: a = st->x[i]; break;
        case GR_FIELD_VELOCITY: a = st->v[i]; break;
        case GR_FIELD_FORCE: a = st->f[i]; break;
        case GR_FIELD_ORIENTATION: o[0] = o[1] = o[2] = 0; o[3] = 1; continue;
        case GR_FIELD_RADIUS: o[0] = st->r[i]; continue;
        case GR_FIELD_MASS: o[0] = 1.0 / st->inv_m[i]; continue;
        case GR_FIELD_MATERIAL: o[0] = (double)st->mat[i]; continue;
        default: break; /* angular velocity: PBD grains do not spin */
        }
        o[0] = a.x;
        o[1] = a.y;
        o[2] = a.z;
    }
}

static void pbd_write_field(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in)
{
    pbd_state *st = (pbd_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        const double *p = in + 4 * (size_t)k;
        switch (field) {
        /* a grain the host moves or pushes is awake */
        case GR_FIELD_POSITION: st->x[i] = st->xp[i] = v3(p[0], p[1], p[2]); st->calm[i] = 0; break;
        case GR_FIELD_VELOCITY: st->v[i] = v3(p[0], p[1], p[2]); st->calm[i] = 0; break;
        default: break; /* orientation and spin of a PBD sphere have no effect */
        }
    }
    /* grains that leant on a moved grain may be frozen far from where it went */
    st->thaw |= field == GR_FIELD_POSITION && count > 0;
}

static uint32_t pbd_render_point_count(const void *state)
{
    const pbd_state *st = (const pbd_state *)state;
    return gr_upsample_on(&st->points) ? st->points.n : st->n_grains;
}

/* Render points: the high-resolution points when upsampling, else the grains in bulk order. */
static void pbd_read_render_points(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    const pbd_state *st = (const pbd_state *)state;
    if (gr_upsample_on(&st->points)) {
        gr_upsample_read(&st->points, first, count, dst, stride);
        return;
    }
    const gr_grain_table *t = st->env.grains;
    const bool all_own = st->n_grains == t->count; /* else skip other systems' grains */
    for (uint32_t k = 0, seen = 0, at = 0; k < count; at++) {
        const uint32_t slot = all_own ? t->list[first + k] : t->list[at];
        if (!all_own && (!gr_grain_of(t, slot, st->env.system) || seen++ < first))
            continue;
        const uint32_t i = t->dense[slot];
        const float p[4] = {(float)st->x[i].x, (float)st->x[i].y, (float)st->x[i].z, (float)st->r[i]};
        memcpy((char *)dst + (size_t)k++ * stride, p, sizeof p);
    }
}

static void pbd_contact_counts(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds)
{
    const pbd_state *st = (const pbd_state *)state;
    *pairs = st->contact_pairs;
    *body_pairs = st->body_pairs;
    *rebuilds = st->rebuilds;
}

static void pbd_sleep_counts(const void *state, uint32_t *sleeping, uint32_t *frozen)
{
    const pbd_state *st = (const pbd_state *)state;
    *sleeping = st->n_sleeping;
    *frozen = st->n_frozen;
}

static void pbd_invalidate(void *state)
{
    /* lists are rebuilt every substep; the fixed particles' grid only when they changed; points
     * resting on what changed must not stay there (bodies added, removed, moved; gravity; a
     * material pair's friction) */
    ((pbd_state *)state)->fixed_dirty = true;
    ((pbd_state *)state)->thaw = true; /* and every sleeper looks again (pbd_freeze.c) */
    gr_upsample_unrest(&((pbd_state *)state)->points);
}

const gr_solver_vtable gr_pbd_solver = {
    .kind = GR_SOLVER_PBD,
    .name = "pbd",
    .def_kind = GR_DEF_PBD,
    .def_size = sizeof(gr_pbd_def),
    .def_layout = &pbd_def_layout,
    .def_defaults = pbd_def_defaults,
    .def_validate = pbd_def_validate,
    .def_save = pbd_def_save,
    .oldest_format = 5,
    .def_load = pbd_def_load,
    .create = pbd_create,
    .destroy = pbd_destroy,
    .reserve = pbd_reserve,
    .add_grains = pbd_add_grains,
    .remove_grains = pbd_remove_grains,
    .step = pbd_step,
    .stable_substep = pbd_stable_substep,
    .read_field = pbd_read_field,
    .write_field = pbd_write_field,
    .render_point_count = pbd_render_point_count,
    .read_render_points = pbd_read_render_points,
    .contact_counts = pbd_contact_counts,
    .save = pbd_save,
    .load = pbd_load,
    .invalidate = pbd_invalidate,
    .integrates_bodies = true,
    .body_particles = true,
    .body_added = pbd_body_added,
    .body_removed = pbd_body_removed,
    .body_moved = pbd_body_moved,
    .fill_region = pbd_fill_region,
    .fill_region_cancel = pbd_fill_region_cancel,
    .sleep_counts = pbd_sleep_counts,
};
