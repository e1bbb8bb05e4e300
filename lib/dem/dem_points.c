/* SPDX-License-Identifier: MIT */
/* The DEM's render points: lib/upsample fed by its spheres (docs/dem.md "Render points"). A
 * grain clump's member spheres are grains to the points; a particle-covered body's are body
 * particles (points are pushed out of them); bodies without particles are met by their exact
 * surfaces. */
#include "../bodies/body_shapes.h"
#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_points.h"

/* A point on a surface of material m slides with that material's friction. */
static double point_mu(const void *solver, uint32_t m)
{
    return ((const dem_state *)solver)->env.materials->defs[m].friction;
}

gr_status dem_points_reserve(dem_state *st)
{
    const uint32_t need = GR_MAX(st->env.bodies->count, 1u);
    if (need <= st->up_exact_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->up_exact_cap, need);
    gr_exact_body *a = (gr_exact_body *)gr_mem_alloc(st->mem, sizeof(gr_exact_body) * cap);
    if (!a)
        return GR_ERROR_OUT_OF_MEMORY;
    gr_mem_free(st->mem, st->up_exact, sizeof(gr_exact_body) * st->up_exact_cap);
    st->up_exact = a;
    st->up_exact_cap = cap;
    return GR_OK;
}

void dem_free_points(dem_state *st)
{
    gr_upsample_free(&st->points);
    gr_mem_free(st->mem, st->up_exact, sizeof(gr_exact_body) * st->up_exact_cap);
    st->up_exact = NULL;
    st->up_exact_cap = 0;
}

gr_upsample_view dem_points_view(dem_state *st, double moved)
{
    double r_max = 0, r_grain = 0;
    uint32_t body_spheres = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        const double r = st->xr[i].r;
        const uint32_t m = st->member[i];
        const uint32_t body = m == GR_INVALID_INDEX ? GR_INVALID_INDEX : st->c_body[st->m_clump[m]];
        st->up_x[i] = xr_pos(&st->xr[i]);
        st->up_r[i] = r;
        if (moved > 0)
            st->up_v[i] = v3_scale(v3_sub(st->up_x[i], st->up_x0[i]), 1.0 / moved);
        st->up_owner[i] = body;
        r_max = GR_MAX(r_max, r);
        if (body == GR_INVALID_INDEX)
            r_grain = GR_MAX(r_grain, r);
        else
            body_spheres++;
    }
    /* the bodies without particles, as they stand now (dem_points_reserve made the room) */
    const gr_body_store *bs = st->env.bodies;
    uint32_t ne = 0;
    for (uint32_t a = 0; a < bs->count && ne < st->up_exact_cap; a++) {
        const uint32_t slot = bs->active[a];
        const gr_body_data *b = &bs->data[slot];
        if (b->particles)
            continue;
        st->up_exact[ne++] = (gr_exact_body){
            .slot = slot,
            .plane = b->shape == GR_SHAPE_PLANE,
            .moving = b->motion == GR_MOTION_KINEMATIC,
            .bound = gr_body_bound_radius(b),
            .centre = b->position,
            .normal = b->normal_world,
        };
    }
    return (gr_upsample_view){
        .n = st->n,
        .x = st->up_x,
        .v = moved > 0 ? st->up_v : st->v,
        .r = st->up_r,
        .mat = st->mat,
        .owner = st->up_owner,
        .sampled = st->sampled,
        .body_count = body_spheres,
        .r_max = r_max,
        .r_grain = r_grain,
        .exact = st->up_exact,
        .exact_count = ne,
        .rest_speed = 0.0, /* DEM grains never stand exactly still: points follow them */
        .surface_mu = point_mu,
        .solver = st,
    };
}

gr_status dem_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity)
{
    return gr_upsample_fill_region(&((dem_state *)state)->points, region, grains, velocity);
}

void dem_fill_region_cancel(void *state) { gr_upsample_fill_cancel(&((dem_state *)state)->points); }

gr_status dem_points_begin(dem_state *st)
{
    gr_upsample *u = &st->points;
    if (!gr_upsample_on(u))
        return GR_OK;
    gr_status s = dem_points_reserve(st);
    if (s != GR_OK)
        return s;
    const gr_upsample_view view = dem_points_view(st, 0.0);
    if ((s = gr_upsample_sample_new(u, &view)) != GR_OK || (s = gr_upsample_reserve_advect(u, st->n)) != GR_OK) {
        gr_upsample_undo(u, &view);
        return s;
    }
    for (uint32_t i = 0; i < st->n; i++) /* where the step starts (dem_points_view) */
        st->up_x0[i] = st->up_x[i];
    return GR_OK;
}

gr_status dem_points_end(dem_state *st, double moved)
{
    gr_upsample *u = &st->points;
    if (!gr_upsample_on(u))
        return GR_OK;
    const gr_upsample_view view = dem_points_view(st, moved);
    if (!(moved > 0)) {
        gr_upsample_undo(u, &view); /* nothing moved: as if never sampled */
        return GR_OK;
    }
    gr_upsample_keep(u, &view);
    const gr_status s = gr_upsample_advect(u, &view, moved);
    gr_upsample_cull(u);
    return s;
}
