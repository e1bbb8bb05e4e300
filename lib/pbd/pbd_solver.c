/* SPDX-License-Identifier: MIT */
/* PBD solver: lifetime, particles in and out, field access, and its function table. */
#include <math.h>

#include "../core/vec3.h"
#include "../simd/simd_kernels.h"
#include "pbd_internal.h"

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

#define PARTICLE_ARRAYS(st)                                                                                       \
    {(void **)&(st)->x, sizeof(gr_vec3)}, {(void **)&(st)->xp, sizeof(gr_vec3)},                                  \
        {(void **)&(st)->v, sizeof(gr_vec3)}, {(void **)&(st)->f, sizeof(gr_vec3)},                               \
        {(void **)&(st)->rest, sizeof(gr_vec3)}, {(void **)&(st)->calm, sizeof(double)},                          \
        {(void **)&(st)->stir, sizeof(uint8_t)},                                                                  \
        {(void **)&(st)->r, sizeof(double)}, {(void **)&(st)->inv_m, sizeof(double)},                             \
        {(void **)&(st)->mat, sizeof(uint32_t)},                                                                  \
        {(void **)&(st)->owner, sizeof(uint32_t)}, {(void **)&(st)->slot, sizeof(uint32_t)},                      \
        {(void **)&(st)->flag, sizeof(uint32_t)}, {(void **)&(st)->vnear, sizeof(double)},                        \
        {(void **)&(st)->sampled, sizeof(uint8_t)}, {(void **)&(st)->trap_slot, sizeof(uint32_t)},                \
        {(void **)&(st)->trap_normal, sizeof(gr_vec3)}, {(void **)&(st)->trap_at, sizeof(gr_vec3)},               \
        {(void **)&(st)->trap_depth, sizeof(double)}, {(void **)&(st)->touch, sizeof(uint32_t)},                  \
        {(void **)&(st)->trap_free, sizeof(uint32_t)},                                                            \
        /* per substep, packed (pbd_lists.c) */                                                                   \
        {(void **)&(st)->perm, sizeof(uint32_t)}, {(void **)&(st)->pos_of, sizeof(uint32_t)},                     \
        {(void **)&(st)->pk, sizeof(pbd_pk)}, {(void **)&(st)->pk_fx, sizeof(float)},                             \
        {(void **)&(st)->pk_fy, sizeof(float)}, {(void **)&(st)->pk_fz, sizeof(float)},                           \
        {(void **)&(st)->pk_fr, sizeof(float)},                                                                   \
        {(void **)&(st)->pk_tmp, sizeof(gr_vec3)}, {(void **)&(st)->hot, sizeof(pbd_hot)},                        \
        {(void **)&(st)->stage_hot, sizeof(pbd_hot)}, {(void **)&(st)->stage_x, sizeof(gr_vec3)},                 \
        {(void **)&(st)->pk_touch, sizeof(uint32_t)}, {(void **)&(st)->pk_touch_next, sizeof(uint32_t)},          \
        {(void **)&(st)->pf_start, sizeof(uint32_t)}, {(void **)&(st)->pf_end, sizeof(uint32_t)},                 \
        {(void **)&(st)->fc_start, sizeof(uint32_t)}, {(void **)&(st)->fc_end, sizeof(uint32_t)},                 \
        {(void **)&(st)->fx_j, sizeof(uint32_t)}, {(void **)&(st)->fx_xyzr, 4 * sizeof(double)},                  \
        {(void **)&(st)->fx_fx, sizeof(float)}, {(void **)&(st)->fx_fy, sizeof(float)},                           \
        {(void **)&(st)->fx_fz, sizeof(float)}, {(void **)&(st)->fx_fr, sizeof(float)},                           \
        {(void **)&(st)->rank, sizeof(uint32_t)}, {(void **)&(st)->pk_flag, sizeof(uint8_t)},                      \
        {(void **)&(st)->ex_acc, sizeof(pbd_exact_acc)}, {(void **)&(st)->tr_an, sizeof(double)},                 \
        {(void **)&(st)->tr_at, sizeof(gr_vec3)}, {(void **)&(st)->ws_start, sizeof(uint32_t)},                    \
        {(void **)&(st)->ws_end, sizeof(uint32_t)}, {(void **)&(st)->wn_start, sizeof(uint32_t)},                 \
        {(void **)&(st)->wn_count, sizeof(uint32_t)},                                                               \
        {(void **)&(st)->pk_live, sizeof(uint32_t)},                                                             \
        {(void **)&(st)->fx_now, sizeof(gr_vec3)}, {(void **)&(st)->fx_slot, sizeof(uint32_t)},                   \
        {(void **)&(st)->fx_mat, sizeof(uint32_t)}, {(void **)&(st)->mov, sizeof(uint32_t)},                       \
    {                                                                                                             \
        (void **)&(st)->deep, sizeof(uint8_t)                                                                     \
    }

gr_status pbd_reserve_particles(pbd_state *st, uint32_t need)
{
    if (need <= st->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->cap, need);
    const gr_array_ref arrays[] = {PARTICLE_ARRAYS(st)};
    /* the incidence heads have cap + 1 entries: grow them first (all or nothing) */
    uint32_t *inc = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * ((size_t)cap + 1));
    if (!inc || !gr_mem_grow_arrays(st->mem, arrays, GR_COUNTOF(arrays), st->cap, cap, st->n)) {
        gr_mem_free(st->mem, inc, sizeof(uint32_t) * ((size_t)cap + 1));
        return GR_ERROR_OUT_OF_MEMORY;
    }
    if (st->cap)
        gr_mem_free(st->mem, st->inc_start, sizeof(uint32_t) * ((size_t)st->cap + 1));
    memset(inc, 0, sizeof(uint32_t) * ((size_t)cap + 1));
    st->inc_start = inc;
    st->cap = cap;
    return GR_OK;
}

static void pbd_destroy(void *state)
{
    pbd_state *st = (pbd_state *)state;
    if (!st)
        return;
    gr_mem *mem = st->mem;
    const gr_array_ref arrays[] = {PARTICLE_ARRAYS(st)};
    gr_mem_free_arrays(mem, arrays, GR_COUNTOF(arrays), st->cap);
    if (st->cap)
        gr_mem_free(mem, st->inc_start, sizeof(uint32_t) * ((size_t)st->cap + 1));
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

/* Friction coefficients of every material pair (static, kinetic), refreshed when the
 * materials change. */
gr_status pbd_update_materials(pbd_state *st)
{
    const gr_materials *m = st->env.materials;
    if (st->mat_revision == m->revision && st->pair_dim == m->count)
        return GR_OK;
    const uint32_t dim = m->count;
    double *mu = st->mu;
    if (dim != st->pair_dim) {
        mu = (double *)gr_mem_alloc(st->mem, sizeof(double) * 2 * dim * dim);
        if (!mu)
            return GR_ERROR_OUT_OF_MEMORY;
        gr_mem_free(st->mem, st->mu, sizeof(double) * 2 * st->pair_dim * st->pair_dim);
    }
    for (uint32_t a = 0; a < dim; a++) {
        for (uint32_t b = 0; b < dim; b++) {
            gr_pair_coeffs c;
            gr_materials_pair(m, a, b, &c);
            mu[2 * ((size_t)a * dim + b)] = c.static_friction;
            mu[2 * ((size_t)a * dim + b) + 1] = GR_MIN(c.kinetic_friction, c.static_friction);
        }
    }
    st->mu = mu;
    st->pair_dim = dim;
    st->mat_revision = m->revision;
    return GR_OK;
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

void pbd_refresh_movable(pbd_state *st)
{
    if (!st->mov_dirty)
        return;
    uint32_t m = 0;
    st->r_mov_max = st->r_fix_max = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        st->pos_of[i] = GR_INVALID_INDEX;
        if (st->inv_m[i] == 0.0) {
            st->r_fix_max = GR_MAX(st->r_fix_max, st->r[i]);
        } else {
            st->r_mov_max = GR_MAX(st->r_mov_max, st->r[i]);
            st->mov[m++] = i;
        }
    }
    st->n_mov = m;
    st->mov_dirty = false;
}

/* Drop dead grains, keeping the order (so a body's particles stay contiguous), and renumber. */
void pbd_compact(pbd_state *st)
{
    if (!st->n_dead)
        return;
    uint32_t out = 0;
    /* old index -> new, for the warm start (pos_of is free here: rebuilt, mov_dirty below) */
    uint32_t *map = st->pos_of;
    for (uint32_t i = 0; i < st->n; i++) {
        const bool dead = st->owner[i] == GR_INVALID_INDEX && st->slot[i] == GR_INVALID_INDEX;
        map[i] = dead ? GR_INVALID_INDEX : out;
        if (dead)
            continue;
        if (out != i) {
            st->x[out] = st->x[i];
            st->xp[out] = st->xp[i];
            st->v[out] = st->v[i];
            st->f[out] = st->f[i];
            st->rest[out] = st->rest[i];
            st->calm[out] = st->calm[i];
            st->stir[out] = st->stir[i];
            st->r[out] = st->r[i];
            st->inv_m[out] = st->inv_m[i];
            st->mat[out] = st->mat[i];
            st->owner[out] = st->owner[i];
            st->slot[out] = st->slot[i];
            st->touch[out] = st->touch[i];
            st->sampled[out] = st->sampled[i];
        }
        if (st->owner[out] == GR_INVALID_INDEX)
            st->env.grains->dense[st->slot[out]] = out;
        out++;
    }
    /* bodies keep their particles contiguous: the first of each is the smallest new index */
    for (uint32_t b = 0; b < st->nb; b++)
        st->bodies[b].first = UINT32_MAX;
    for (uint32_t i = 0; i < out; i++) {
        const uint32_t o = st->owner[i];
        if (o != GR_INVALID_INDEX && st->bodies[o].first == UINT32_MAX)
            st->bodies[o].first = i;
    }
    pbd_warm_start_renumber(st, map, st->n);
    st->n = out;
    st->n_dead = 0;
    st->fixed_dirty = true; /* fixed particles may have been renumbered */
    st->mov_dirty = true;
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
