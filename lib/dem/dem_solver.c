/* SPDX-License-Identifier: MIT */
/* DEM solver: lifetime, grains in and out, field access, and its function table. */
#include <math.h>

#include "../core/vec3.h"
#include "../simd/simd_kernels.h"
#include "dem_batch.h"
#include "dem_internal.h"
#include "dem_params.h"
#include "dem_points.h"
#include "dem_def.h"
#include "dem_store.h"
#include "dem_rkf45_store.h"
#include "dem_rebuild.h"
#include "dem_clumps.h"
#include "dem_bodies.h"
#include "dem_step.h"
#include "dem_forces.h"
#include "dem_snapshot.h"

static gr_status dem_create(const gr_solver_env *env, void **out)
{
    dem_state *st = (dem_state *)gr_mem_calloc(env->mem, sizeof(dem_state));
    if (!st)
        return GR_ERROR_OUT_OF_MEMORY;
    st->env = *env;
    st->def = (const gr_dem_def *)env->def;
    st->mem = env->mem;
    dem_law_init(&st->law, st->def);
    const gr_upsample_params points = GR_UPSAMPLE_PARAMS_OF(st->def);
    gr_upsample_init(&st->points, env, &points);
    st->kernel = st->law.rolling == GR_ROLLING_EPSD ? env->kernels->contact_epsd : env->kernels->contact;
    gr_cell_grid_init(&st->grid);
    st->need_rebuild = true;
    st->forces_stale = true;
    st->uniform_material = GR_INVALID_INDEX;
    *out = st;
    return GR_OK;
}

static void dem_destroy(void *state)
{
    dem_state *st = (dem_state *)state;
    if (!st)
        return;
    gr_mem *mem = st->mem;
    dem_free_particles(st);
    dem_free_lists(st);
    dem_free_slabs(st);
    dem_free_blocks(st);
    dem_free_batches(st);
    dem_free_clumps(st);
    dem_free_body_map(st);
    dem_free_rkf(st);
    dem_free_points(st);
    gr_cell_grid_free(&st->grid, mem);
    gr_mem_free(mem, st->pairs, sizeof(dem_pair_params) * st->pair_dim * st->pair_dim);
    gr_mem_free(mem, st->mat_rmin, sizeof(double) * st->mat_rmin_cap);
    gr_mem_free(mem, st, sizeof(dem_state));
}

static gr_status reserve_materials(dem_state *st, uint32_t count)
{
    if (count <= st->mat_rmin_cap)
        return GR_OK;
    uint32_t cap = GR_MAX(count, 8u);
    double *a = (double *)gr_mem_alloc(st->mem, sizeof(double) * cap);
    if (!a)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < cap; k++)
        a[k] = k < st->mat_rmin_cap ? st->mat_rmin[k] : INFINITY;
    gr_mem_free(st->mem, st->mat_rmin, sizeof(double) * st->mat_rmin_cap);
    st->mat_rmin = a;
    st->mat_rmin_cap = cap;
    return GR_OK;
}

static gr_status dem_reserve(void *state, const gr_grain_init *g, uint32_t count)
{
    dem_state *st = (dem_state *)state;
    const gr_clump_store *cs = st->env.clumps;
    uint64_t spheres = 0, clumps = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (g[k].clump == GR_INVALID_INDEX) {
            spheres++;
        } else {
            clumps++;
            spheres += cs->templates[g[k].clump].count;
        }
    }
    if ((uint64_t)st->n + spheres > GR_MAX_GRAINS || st->nm + spheres > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    gr_status s = reserve_materials(st, st->env.materials->count);
    if (s == GR_OK)
        s = dem_reserve_particles(st, (uint32_t)(st->n + spheres));
    if (s == GR_OK && clumps)
        s = dem_reserve_clumps(st, (uint32_t)clumps, (uint32_t)(spheres - (count - clumps)));
    return s;
}

static void dem_add_grains(void *state, const gr_grain_init *g, uint32_t count)
{
    dem_state *st = (dem_state *)state;
    const gr_materials *mats = st->env.materials;
    for (uint32_t k = 0; k < count; k++) {
        if (g[k].clump != GR_INVALID_INDEX) {
            dem_add_clump(st, &g[k], g[k].clump);
            continue;
        }
        const uint32_t i = st->n++;
        const double rho = mats->defs[g[k].material].density;
        const double r = g[k].radius;
        const double m = rho * 4.0 / 3.0 * GR_PI * r * r * r;
        st->xr[i] = (dem_xr){g[k].position.x, g[k].position.y, g[k].position.z, r};
        st->x_ref[i] = g[k].position;
        st->v[i] = g[k].velocity;
        st->w[i] = g[k].angular_velocity;
        st->q[i] = g[k].orientation;
        st->f[i] = v3(0, 0, 0);
        st->t[i] = v3(0, 0, 0);
        st->m[i] = m;
        st->inv_m[i] = 1.0 / m;
        st->inv_i[i] = 1.0 / (0.4 * m * r * r);
        st->mat[i] = g[k].material;
        st->slot[i] = g[k].slot;
        st->member[i] = GR_INVALID_INDEX;
        /* a fill whose region has its points already (dem_fill_region): 1 */
        st->sampled[i] = gr_upsample_take_presampled(&st->points) ? 1 : 0;
        st->env.grains->dense[g[k].slot] = i;
        st->render_count++;
        if (r < st->mat_rmin[g[k].material])
            st->mat_rmin[g[k].material] = r;
    }
    st->need_rebuild = true;
    st->forces_stale = true;
}

static void dem_remove_grains(void *state, const uint32_t *dense, uint32_t count)
{
    dem_state *st = (dem_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        if (dense[k] & DEM_CLUMP_BIT) {
            const uint32_t c = dense[k] & ~DEM_CLUMP_BIT;
            for (uint32_t m = st->c_first[c]; m < st->c_first[c] + st->c_count[c]; m++)
                st->slot[st->m_sphere[m]] = GR_INVALID_INDEX;
            st->n_dead += st->c_count[c];
            st->render_count -= st->c_count[c];
            st->c_slot[c] = GR_INVALID_INDEX;
            st->nc_dead++;
            continue;
        }
        st->slot[dense[k]] = GR_INVALID_INDEX;
        st->n_dead++;
        st->render_count--;
    }
    gr_upsample_unrest(&st->points); /* points among the removed grains must not hang where they were */
    st->need_rebuild = true;
    st->forces_stale = true;
}

static void dem_read_field(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out)
{
    const dem_state *st = (const dem_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        double *o = out + 4 * (size_t)k;
        if (i & DEM_CLUMP_BIT) {
            dem_clump_read(st, i & ~DEM_CLUMP_BIT, field, o);
            continue;
        }
        gr_vec3 a = {0, 0, 0};
        switch (field) {
        case GR_FIELD_POSITION: a = xr_pos(&st->xr[i]); break;
        case GR_FIELD_VELOCITY: a = st->v[i]; break;
        case GR_FIELD_ANGULAR_VELOCITY: a = st->w[i]; break;
        case GR_FIELD_FORCE: a = st->f[i]; break;
        case GR_FIELD_ORIENTATION:
            o[0] = st->q[i].x; o[1] = st->q[i].y; o[2] = st->q[i].z; o[3] = st->q[i].w;
            continue;
        case GR_FIELD_RADIUS: o[0] = st->xr[i].r; continue;
        case GR_FIELD_MASS: o[0] = st->m[i]; continue;
        case GR_FIELD_MATERIAL: o[0] = (double)st->mat[i]; continue;
        default: continue;
        }
        o[0] = a.x; o[1] = a.y; o[2] = a.z;
    }
}

/* The value a write would give is the one the grain has (as a read returns it, or normalised
 * as the API normalises orientations): writing it would still round a clump's momentum and
 * frame, so it is skipped and the trajectory stays bit-identical. */
static bool field_unchanged(const dem_state *st, gr_field field, uint32_t i, const double *p)
{
    double cur[4] = {0, 0, 0, 0};
    dem_read_field(st, field, &i, 1, cur);
    if (field != GR_FIELD_ORIENTATION)
        return !memcmp(cur, p, 3 * sizeof(double));
    if (!memcmp(cur, p, 4 * sizeof(double)))
        return true;
    const gr_quat q = quat_normalize((gr_quat){cur[0], cur[1], cur[2], cur[3]});
    const double qn[4] = {q.x, q.y, q.z, q.w};
    return !memcmp(qn, p, 4 * sizeof(double));
}

static void dem_write_field(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in)
{
    dem_state *st = (dem_state *)state;
    bool changed = false;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        const double *p = in + 4 * (size_t)k;
        if (field_unchanged(st, field, i, p))
            continue;
        changed = true;
        if (i & DEM_CLUMP_BIT) {
            dem_clump_write(st, i & ~DEM_CLUMP_BIT, field, p);
            continue;
        }
        switch (field) {
        case GR_FIELD_POSITION:
            st->xr[i].x = p[0];
            st->xr[i].y = p[1];
            st->xr[i].z = p[2];
            st->need_rebuild = true;
            break;
        case GR_FIELD_VELOCITY: st->v[i] = v3(p[0], p[1], p[2]); break;
        case GR_FIELD_ANGULAR_VELOCITY: st->w[i] = v3(p[0], p[1], p[2]); break;
        case GR_FIELD_ORIENTATION: { gr_quat q = {p[0], p[1], p[2], p[3]}; st->q[i] = q; break; }
        default: break;
        }
    }
    if (changed)
        st->forces_stale = true;
}

static uint32_t dem_render_point_count(const void *state)
{
    const dem_state *st = (const dem_state *)state;
    return gr_upsample_on(&st->points) ? st->points.n : st->render_count;
}

/* Render points: the spheres of the grains in bulk order (a clump gives all its members). */
static void dem_read_render_points(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    const dem_state *st = (const dem_state *)state;
    if (gr_upsample_on(&st->points)) { /* the points that fill the grains' volume */
        gr_upsample_read(&st->points, first, count, dst, stride);
        return;
    }
    const gr_grain_table *t = st->env.grains;
    uint32_t point = 0, written = 0;
    for (uint32_t k = 0; k < t->count && written < count; k++) {
        if (!gr_grain_of(t, t->list[k], st->env.system))
            continue; /* another system's */
        const uint32_t d = t->dense[t->list[k]];
        uint32_t sphere = d, spheres = 1, member0 = 0;
        if (d & DEM_CLUMP_BIT) {
            const uint32_t c = d & ~DEM_CLUMP_BIT;
            spheres = st->c_count[c];
            member0 = st->c_first[c];
        }
        if (point + spheres <= first) {
            point += spheres;
            continue;
        }
        for (uint32_t m = 0; m < spheres && written < count; m++, point++) {
            if (point < first)
                continue;
            if (d & DEM_CLUMP_BIT)
                sphere = st->m_sphere[member0 + m];
            const float p[4] = {(float)st->xr[sphere].x, (float)st->xr[sphere].y, (float)st->xr[sphere].z,
                                (float)st->xr[sphere].r};
            memcpy((char *)dst + (size_t)written++ * stride, p, sizeof p);
        }
    }
}

static void dem_contact_counts(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds)
{
    const dem_state *st = (const dem_state *)state;
    *pairs = st->contacts;
    *body_pairs = st->body_contacts;
    *rebuilds = st->rebuilds;
}

static void dem_invalidate(void *state)
{
    /* gravity, materials or bodies may have changed: the next step compares them with what the
     * forces were computed for, and rebuilds and re-evaluates only if something did */
    ((dem_state *)state)->inputs_maybe_changed = true;
    gr_upsample_unrest(&((dem_state *)state)->points); /* resting render points look again */
}

/* no sleep_counts (DEM grains do not sleep): that slot stays NULL */
static bool dem_adaptive(const void *state)
{
    return ((const dem_state *)state)->def->integrator == GR_INTEGRATOR_RKF45;
}

const gr_solver_vtable gr_dem_solver = {
    .kind = GR_SOLVER_DEM,
    .name = "dem",
    .def_kind = GR_DEF_DEM,
    .def_size = sizeof(gr_dem_def),
    .def_layout = &dem_def_layout,
    .def_defaults = dem_def_defaults,
    .def_validate = dem_def_validate,
    .def_save = dem_def_save,
    .oldest_format = 3,
    .def_load = dem_def_load,
    .create = dem_create,
    .destroy = dem_destroy,
    .reserve = dem_reserve,
    .add_grains = dem_add_grains,
    .remove_grains = dem_remove_grains,
    .step = dem_step,
    .adaptive = dem_adaptive,
    .stable_substep = dem_stable_substep,
    .read_field = dem_read_field,
    .write_field = dem_write_field,
    .render_point_count = dem_render_point_count,
    .read_render_points = dem_read_render_points,
    .contact_counts = dem_contact_counts,
    .save = dem_save,
    .load = dem_load,
    .invalidate = dem_invalidate,
    .integrates_bodies = true,
    .body_particles = true,
    .body_added = dem_body_added,
    .body_removed = dem_body_removed,
    .body_moved = dem_body_moved,
    .fill_region = dem_fill_region,
    .fill_region_cancel = dem_fill_region_cancel,
};
