/* SPDX-License-Identifier: MIT */
/* The test build's coupling between a DEM system and a null system (null_solver.c), listed
 * through GR_COUPLING_LIST_EXTRA as a real coupling would be in solver_list.h. It stands in
 * for the terrain's absorption: a free DEM sphere whose centre passes below y = 0 leaves the
 * DEM system and goes on, with the same state, as a grain of the null system. */
#include <string.h>

#include "../lib/core/coupling.h"
#include "null_solver.h"

enum { CHUNK = 64 };

/* One chunk of DEM grains below the plane: read (all fields first), added to the null system
 * (all or nothing), then removed from the DEM. */
static gr_status hand_over(const gr_coupling_call *c, const uint32_t *slots, uint32_t n)
{
    const gr_grain_table *t = c->env->grains;
    uint32_t dense[CHUNK];
    double x[4 * CHUNK], v[4 * CHUNK], w[4 * CHUNK], q[4 * CHUNK], r[4 * CHUNK], m[4 * CHUNK];
    for (uint32_t k = 0; k < n; k++)
        dense[k] = t->dense[slots[k]];
    const gr_coupling_side *dem = &c->a;
    dem->solver->read_field(dem->state, GR_FIELD_POSITION, dense, n, x);
    dem->solver->read_field(dem->state, GR_FIELD_VELOCITY, dense, n, v);
    dem->solver->read_field(dem->state, GR_FIELD_ANGULAR_VELOCITY, dense, n, w);
    dem->solver->read_field(dem->state, GR_FIELD_ORIENTATION, dense, n, q);
    dem->solver->read_field(dem->state, GR_FIELD_RADIUS, dense, n, r);
    dem->solver->read_field(dem->state, GR_FIELD_MATERIAL, dense, n, m);
    gr_grain_init g[CHUNK];
    for (uint32_t k = 0; k < n; k++) {
        const double *xk = x + 4 * k, *vk = v + 4 * k, *wk = w + 4 * k, *qk = q + 4 * k;
        g[k] = (gr_grain_init){.radius = r[4 * k], .material = (uint32_t)m[4 * k], .slot = GR_INVALID_INDEX,
                               .clump = GR_INVALID_INDEX, .position = {xk[0], xk[1], xk[2]},
                               .velocity = {vk[0], vk[1], vk[2]}, .angular_velocity = {wk[0], wk[1], wk[2]},
                               .orientation = {qk[0], qk[1], qk[2], qk[3]}};
    }
    const gr_status s = c->ops->add_grains(c->ops->world, c->b.system, g, n);
    if (s == GR_OK)
        c->ops->remove_grains(c->ops->world, slots, n);
    return s;
}

static gr_status dem_null_exchange(const gr_coupling_call *c)
{
    const gr_grain_table *t = c->env->grains;
    uint32_t below[CHUNK], n = 0;
    /* the bulk list changes as grains are handed over: walk it from its end (removal swaps the
     * last grain into the place of the removed one, and added grains are appended) */
    const uint32_t count = t->count;
    for (uint32_t k = count; k-- > 0;) {
        const uint32_t slot = t->list[k];
        if (!gr_grain_of(t, slot, c->a.system) || (t->dense[slot] & 0x80000000u))
            continue; /* another system's, or a DEM clump (spheres only here) */
        const uint32_t d = t->dense[slot];
        double x[4];
        c->a.solver->read_field(c->a.state, GR_FIELD_POSITION, &d, 1, x);
        if (x[1] < 0)
            below[n++] = slot;
        if (n == CHUNK) {
            const gr_status s = hand_over(c, below, n);
            if (s != GR_OK)
                return s;
            n = 0;
        }
    }
    return n ? hand_over(c, below, n) : GR_OK;
}

const gr_coupling_vtable gr_null_test_coupling = {
    .name = "dem-null (test)",
    .a = GR_SOLVER_DEM,
    .b = GR_SOLVER_NULL_TEST,
    .exchange = dem_null_exchange,
};
