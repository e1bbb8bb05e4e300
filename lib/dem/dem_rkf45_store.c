/* SPDX-License-Identifier: MIT */
/* The RKF45 integrator's scratch: grown with the solver's arrays (dem_rebuild reserves it among
 * its allocations, so a step never fails after a rebuild), freed with the solver. */
#include "dem_internal.h"
#include "dem_rkf45_store.h"

void dem_free_rkf(dem_state *st)
{
    struct dem_rkf *r = st->rkf;
    if (!r)
        return;
    gr_mem *mem = st->mem;
    gr_mem_free(mem, r->y0, sizeof(double) * SPH * r->cap);
    gr_mem_free(mem, r->k, sizeof(double) * STAGES * SPH * r->cap);
    gr_mem_free(mem, r->cy0, sizeof(double) * CLU * r->c_cap);
    gr_mem_free(mem, r->ck, sizeof(double) * STAGES * CLU * r->c_cap);
    gr_mem_free(mem, r->nb_j, sizeof(uint32_t) * r->nb_cap);
    gr_mem_free(mem, r->nb_hist, sizeof(gr_vec3) * r->nb_cap);
    gr_mem_free(mem, r->nb_roll, sizeof(gr_vec3) * r->nb_cap);
    gr_mem_free(mem, r->bc_hist, sizeof(gr_vec3) * r->bc_cap);
    gr_mem_free(mem, r->bc_roll, sizeof(gr_vec3) * r->bc_cap);
    gr_mem_free(mem, r->pose_x, sizeof(gr_vec3) * r->body_cap);
    gr_mem_free(mem, r->pose_q, sizeof(gr_quat) * r->body_cap);
    gr_mem_free(mem, r->impulse0, sizeof(gr_vec3) * 2 * r->body_cap);
    gr_mem_free(mem, r->force1, sizeof(gr_vec3) * 2 * r->body_cap);
    gr_mem_free(mem, r->block_err, sizeof(double) * r->blocks_cap);
    gr_mem_free(mem, r->block_disp, sizeof(double) * r->blocks_cap);
    gr_mem_free(mem, r, sizeof *r);
    st->rkf = NULL;
}

/* Grow buffers of one capacity together, all or nothing (contents are not kept), so that each
 * buffer's size is always elem x its group's capacity. */
static bool grow_all(gr_mem *mem, void **const *p, const size_t *elem, int count, uint32_t old_cap, uint32_t cap)
{
    void *fresh[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < count; i++) {
        fresh[i] = gr_mem_alloc(mem, elem[i] * cap);
        if (!fresh[i]) {
            while (i-- > 0)
                gr_mem_free(mem, fresh[i], elem[i] * cap);
            return false;
        }
    }
    for (int i = 0; i < count; i++) {
        gr_mem_free(mem, *p[i], elem[i] * old_cap);
        *p[i] = fresh[i];
    }
    return true;
}

/* Room for n grains, the current clumps and bodies, and lists of nb and bc entries. All or
 * nothing per buffer; a failure leaves the integrator's scratch consistent (capacities only
 * grow with their buffers). dem_rebuild calls it for the lists it is about to build, among
 * its allocations before anything changes, so a step never fails after a rebuild. */
gr_status dem_rkf45_reserve(dem_state *st, uint32_t n_need, uint32_t nb_need, uint32_t bc_need)
{
    gr_mem *mem = st->mem;
    if (!st->rkf) {
        st->rkf = (struct dem_rkf *)gr_mem_calloc(mem, sizeof(struct dem_rkf));
        if (!st->rkf)
            return GR_ERROR_OUT_OF_MEMORY;
    }
    struct dem_rkf *r = st->rkf;
    const bool roll = st->law.rolling == GR_ROLLING_EPSD;
    const uint32_t n = GR_MAX(n_need, 1u), nc = GR_MAX(st->nc, 1u);
    const uint32_t nb = GR_MAX(nb_need, 1u), bc = GR_MAX(bc_need, 1u);
    const uint32_t bodies = GR_MAX(st->env.bodies->slot_count, 1u);
    const uint32_t blocks = (n + RKF_BLOCK - 1) / RKF_BLOCK + (nc + RKF_CLUMP_BLOCK - 1) / RKF_CLUMP_BLOCK + 2;
    if (n > r->cap) {
        const uint32_t cap = gr_grow_capacity(r->cap, n);
        void **p[] = {(void **)&r->y0, (void **)&r->k};
        const size_t e[] = {sizeof(double) * SPH, sizeof(double) * SPH * STAGES};
        if (!grow_all(mem, p, e, 2, r->cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->cap = cap;
    }
    if (nc > r->c_cap) {
        const uint32_t cap = gr_grow_capacity(r->c_cap, nc);
        void **p[] = {(void **)&r->cy0, (void **)&r->ck};
        const size_t e[] = {sizeof(double) * CLU, sizeof(double) * CLU * STAGES};
        if (!grow_all(mem, p, e, 2, r->c_cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->c_cap = cap;
    }
    if (nb > r->nb_cap) {
        const uint32_t cap = gr_grow_capacity(r->nb_cap, nb);
        void **p[] = {(void **)&r->nb_j, (void **)&r->nb_hist, (void **)&r->nb_roll};
        const size_t e[] = {sizeof(uint32_t), sizeof(gr_vec3), sizeof(gr_vec3)};
        if (!grow_all(mem, p, e, roll ? 3 : 2, r->nb_cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->nb_cap = cap;
    }
    if (bc > r->bc_cap) {
        const uint32_t cap = gr_grow_capacity(r->bc_cap, bc);
        void **p[] = {(void **)&r->bc_hist, (void **)&r->bc_roll};
        const size_t e[] = {sizeof(gr_vec3), sizeof(gr_vec3)};
        if (!grow_all(mem, p, e, roll ? 2 : 1, r->bc_cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->bc_cap = cap;
    }
    if (bodies > r->body_cap) {
        const uint32_t cap = gr_grow_capacity(r->body_cap, bodies);
        void **p[] = {(void **)&r->pose_x, (void **)&r->pose_q, (void **)&r->impulse0, (void **)&r->force1};
        const size_t e[] = {sizeof(gr_vec3), sizeof(gr_quat), sizeof(gr_vec3) * 2, sizeof(gr_vec3) * 2};
        if (!grow_all(mem, p, e, 4, r->body_cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->body_cap = cap;
    }
    if (blocks > r->blocks_cap) {
        const uint32_t cap = gr_grow_capacity(r->blocks_cap, blocks);
        void **p[] = {(void **)&r->block_err, (void **)&r->block_disp};
        const size_t e[] = {sizeof(double), sizeof(double)};
        if (!grow_all(mem, p, e, 2, r->blocks_cap, cap))
            return GR_ERROR_OUT_OF_MEMORY;
        r->blocks_cap = cap;
    }
    return GR_OK;
}
