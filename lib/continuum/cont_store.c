/* SPDX-License-Identifier: MIT */
#include "cont_store.h"

#include "../core/material_map.h"

#include <math.h>

#define CONT_PARTICLE_ARRAYS 12
/* The particle arrays; the render points' only when there are any. Returns their number. */
static uint32_t arrays_of(cont_state *st, gr_array_ref a[CONT_PARTICLE_ARRAYS])
{
    const gr_array_ref all[CONT_PARTICLE_ARRAYS] = {
        {(void **)&st->x, sizeof(gr_vec3)},      {(void **)&st->v, sizeof(gr_vec3)},
        {(void **)&st->m, sizeof(double)},       {(void **)&st->vmin, sizeof(double)},
        {(void **)&st->alpha, sizeof(double)},   {(void **)&st->radius, sizeof(double)},
        {(void **)&st->mat, sizeof(uint32_t)},   {(void **)&st->slot, sizeof(uint32_t)},
        {(void **)&st->shape, sizeof(cont_sym3)}, {(void **)&st->grad, 9 * sizeof(double)},
        {(void **)&st->flow, sizeof(gr_vec3)},   {(void **)&st->pts, sizeof(gr_vec3) * st->par.points},
    };
    for (int k = 0; k < CONT_PARTICLE_ARRAYS; k++)
        a[k] = all[k];
    return st->par.points ? CONT_PARTICLE_ARRAYS : CONT_PARTICLE_ARRAYS - 1;
}

gr_status cont_reserve_particles(cont_state *st, uint32_t n)
{
    if (n <= st->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->cap, n);
    gr_array_ref a[CONT_PARTICLE_ARRAYS];
    const uint32_t k = arrays_of(st, a);
    if (!gr_mem_grow_arrays(st->mem, a, k, st->cap, cap, st->n))
        return GR_ERROR_OUT_OF_MEMORY;
    st->cap = cap;
    return GR_OK;
}

void cont_free_particles(cont_state *st)
{
    gr_array_ref a[CONT_PARTICLE_ARRAYS];
    const uint32_t k = arrays_of(st, a);
    gr_mem_free_arrays(st->mem, a, k, st->cap);
    st->cap = st->n = 0;
}

void cont_copy_particle(cont_state *st, uint32_t to, uint32_t from)
{
    st->x[to] = st->x[from], st->v[to] = st->v[from];
    st->m[to] = st->m[from], st->vmin[to] = st->vmin[from], st->alpha[to] = st->alpha[from];
    st->radius[to] = st->radius[from], st->mat[to] = st->mat[from], st->slot[to] = st->slot[from];
    st->shape[to] = st->shape[from];
    const uint32_t K = st->par.points;
    for (uint32_t k = 0; k < K; k++)
        st->pts[(size_t)K * to + k] = st->pts[(size_t)K * from + k];
}

void cont_compact_particles(cont_state *st)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        if (st->slot[i] == GR_INVALID_INDEX)
            continue;
        if (out != i) {
            cont_copy_particle(st, out, i);
            if (st->env.grains)
                st->env.grains->dense[st->slot[out]] = out;
        }
        out++;
    }
    st->n = out;
}

void cont_particle_material(cont_state *st, uint32_t i)
{
    const gr_material_def *m = &st->env.materials->defs[st->mat[i]];
    const double r = st->radius[i], volume = 4.0 / 3.0 * GR_PI * r * r * r;
    st->m[i] = m->density * volume;
    st->vmin[i] = volume / st->par.packing;
    /* eq. 15's bound s_max = alpha p on each stress coefficient: the material's own
     * continuum_friction, or the alpha whose heap stands at the DEM's angle for the grains'
     * friction and rolling resistance (core/material_map.c). The seed's sqrt(2/3) sin(theta)
     * (sec. 2.1, for the round cone of eq. 4) leaves sand far flatter (docs/continuum.md) */
    st->alpha[i] = gr_material_continuum_resolve(m);
}
