/* SPDX-License-Identifier: MIT */
/* The render points of the PBD solver: lib/upsample fed by its particles (docs/pbd.md
 * "Upsampling"). */
#include "../core/vec3.h"
#include "pbd_internal.h"
#include "pbd_points.h"
#include "pbd_store.h"

/* A point on a surface of material m slides with the material's own kinetic friction. */
static double point_mu(const void *solver, uint32_t m) { return pbd_mu((const pbd_state *)solver, m, m)[1]; }

gr_upsample_view pbd_points_view(pbd_state *st, double rest_speed)
{
    /* the support's scale: the largest moving grain */
    double rl = 0;
    for (uint32_t k = 0; k < st->n_mov; k++)
        if (st->owner[st->mov[k]] == GR_INVALID_INDEX)
            rl = GR_MAX(rl, st->r[st->mov[k]]);
    return (gr_upsample_view){
        .n = st->n,
        .x = st->x,
        .v = st->v,
        .r = st->r,
        .mat = st->mat,
        .owner = st->owner,
        .sampled = st->sampled,
        .body_count = st->nb,
        .r_max = st->r_max,
        .r_grain = rl,
        .exact = st->exact,
        .exact_count = st->exact_count,
        .rest_speed = rest_speed,
        .surface_mu = point_mu,
        .solver = st,
    };
}

gr_status pbd_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity)
{
    return gr_upsample_fill_region(&((pbd_state *)state)->points, region, grains, velocity);
}

void pbd_fill_region_cancel(void *state) { gr_upsample_fill_cancel(&((pbd_state *)state)->points); }
