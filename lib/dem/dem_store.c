/* SPDX-License-Identifier: MIT */
/* DEM storage: the sphere, clump and member arrays (grow, free) and the fixed clumps' active
 * members. The bottom of the solver's files: it calls none of them. */
#include "dem_internal.h"
#include "dem_store.h"

static void particle_arrays(dem_state *st, gr_array_ref *a, size_t *n)
{
    size_t k = 0;
    a[k++] = (gr_array_ref){(void **)&st->xr, sizeof(dem_xr)};
    a[k++] = (gr_array_ref){(void **)&st->v, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->w, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->f, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->t, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->x_ref, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->q, sizeof(gr_quat)};
    a[k++] = (gr_array_ref){(void **)&st->m, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->inv_m, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->inv_i, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->mat, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->slot, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->member, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->sampled, sizeof(uint8_t)};
    a[k++] = (gr_array_ref){(void **)&st->up_x, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->up_r, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->up_owner, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->up_x0, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->up_v, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->spare, 32};
    a[k++] = (gr_array_ref){(void **)&st->cell_tmp, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->perm, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->sorted_fixed, sizeof(uint8_t)};
    a[k++] = (gr_array_ref){(void **)&st->nb_start, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->nb_start_old, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->bc_start, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->bc_start_old, sizeof(uint32_t)};
    *n = k;
}

/* Every per-grain array has cap + 1 elements (the CSR starts need one more). */
gr_status dem_reserve_particles(dem_state *st, uint32_t need)
{
    if (need <= st->cap)
        return GR_OK;
    uint32_t cap = gr_grow_capacity(st->cap, need);
    gr_array_ref a[32];
    size_t n;
    particle_arrays(st, a, &n);
    if (!gr_mem_grow_arrays(st->mem, a, n, st->cap ? st->cap + 1 : 0, cap + 1, st->cap ? st->n + 1 : 0))
        return GR_ERROR_OUT_OF_MEMORY;
    if (st->cap == 0) {
        st->nb_start[0] = 0;
        st->bc_start[0] = 0;
    }
    st->cap = cap;
    return GR_OK;
}

void dem_free_particles(dem_state *st)
{
    gr_array_ref a[32];
    size_t n;
    particle_arrays(st, a, &n);
    gr_mem_free_arrays(st->mem, a, n, st->cap ? st->cap + 1 : 0);
    st->cap = 0;
}

void dem_clump_arrays(dem_state *st, gr_array_ref *a, size_t *n)
{
    size_t k = 0;
    a[k++] = (gr_array_ref){(void **)&st->c_x, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_v, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_w, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_L, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_f, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_t, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_q, sizeof(gr_quat)};
    a[k++] = (gr_array_ref){(void **)&st->c_m, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->c_inertia, sizeof(gr_vec3)};
    a[k++] = (gr_array_ref){(void **)&st->c_radius, sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&st->c_first, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_count, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_slot, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_mat, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_body, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_fixed, sizeof(uint8_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_frame, sizeof(gr_quat)};
    a[k++] = (gr_array_ref){(void **)&st->c_fa_first, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&st->c_fa_count, sizeof(uint32_t)};
    *n = k;
}

void dem_member_arrays(dem_state *st, gr_array_ref *a)
{
    a[0] = (gr_array_ref){(void **)&st->m_sphere, sizeof(uint32_t)};
    a[1] = (gr_array_ref){(void **)&st->m_offset, sizeof(gr_vec3)};
    a[2] = (gr_array_ref){(void **)&st->m_clump, sizeof(uint32_t)};
}

gr_status dem_reserve_clumps(dem_state *st, uint32_t clumps, uint32_t members)
{
    gr_array_ref a[24];
    size_t n;
    uint32_t ccap = st->c_cap, mcap = st->m_cap;
    if ((uint64_t)st->nc + clumps > st->c_cap) {
        ccap = gr_grow_capacity(st->c_cap, st->nc + clumps);
        dem_clump_arrays(st, a, &n);
        if (!gr_mem_grow_arrays(st->mem, a, n, st->c_cap, ccap, st->nc))
            return GR_ERROR_OUT_OF_MEMORY;
        st->c_cap = ccap;
    }
    if ((uint64_t)st->nm + members > st->m_cap) {
        mcap = gr_grow_capacity(st->m_cap, st->nm + members);
        dem_member_arrays(st, a);
        if (!gr_mem_grow_arrays(st->mem, a, DEM_MEMBER_ARRAYS, st->m_cap, mcap, st->nm))
            return GR_ERROR_OUT_OF_MEMORY; /* the clump arrays grew: harmless extra capacity */
        st->m_cap = mcap;
    }
    return GR_OK;
}

bool dem_reserve_fixed_active(dem_state *st)
{
    if (st->nm <= st->fa_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(st->fa_cap, st->nm);
    uint32_t *a = (uint32_t *)gr_mem_alloc(st->mem, sizeof(uint32_t) * cap);
    if (!a)
        return false;
    gr_mem_free(st->mem, st->fa_member, sizeof(uint32_t) * st->fa_cap);
    st->fa_member = a;
    st->fa_cap = cap;
    return true;
}

void dem_free_clumps(dem_state *st)
{
    gr_array_ref a[24];
    size_t n;
    dem_clump_arrays(st, a, &n);
    gr_mem_free_arrays(st->mem, a, n, st->c_cap);
    dem_member_arrays(st, a);
    gr_mem_free_arrays(st->mem, a, DEM_MEMBER_ARRAYS, st->m_cap);
    gr_mem_free(st->mem, st->fa_member, sizeof(uint32_t) * st->fa_cap);
    st->fa_member = NULL;
    st->fa_cap = 0;
    st->c_cap = st->m_cap = st->nc = st->nm = st->nc_dead = 0;
}
