/* SPDX-License-Identifier: MIT */
#include "terrain_store.h"

#include <string.h>

#define ARRAYS(X)                                   \
    X(field.h, double) X(mat, uint8_t) X(flags, uint8_t) X(factor, double) X(next, double) \
    X(dist, int32_t) X(push, double) X(pending, double) X(pending_body, uint32_t)         \
    X(pending_list, uint32_t) X(contacts, uint32_t) X(contacts_prev, uint32_t) X(grain_top, double) X(top_list, uint32_t)
#define TILE_ARRAYS(X) X(changed, gr_terrain_rect)
#define BLOCK_ARRAYS(X) \
    X(block_active, uint8_t) X(block_region, uint8_t) X(block_moved, uint8_t) X(block_list, uint32_t) \
    X(block_rect, gr_terrain_rect)

bool terrain_store_alloc(terrain_state *st)
{
    const size_t n = st->n, t = st->tile_count, b = st->block_count;
#define ALLOC(f, T) st->f = gr_mem_calloc(st->env.mem, sizeof(T) * n); ok = ok && st->f;
#define ALLOC_T(f, T) st->f = gr_mem_calloc(st->env.mem, sizeof(T) * t); ok = ok && st->f;
#define ALLOC_B(f, T) st->f = gr_mem_calloc(st->env.mem, sizeof(T) * b); ok = ok && st->f;
    bool ok = true;
    ARRAYS(ALLOC)
    TILE_ARRAYS(ALLOC_T)
    BLOCK_ARRAYS(ALLOC_B)
#undef ALLOC
#undef ALLOC_T
#undef ALLOC_B
    if (!ok)
        terrain_store_free(st);
    return ok;
}

void terrain_store_free(terrain_state *st)
{
    const size_t n = st->n, t = st->tile_count, b = st->block_count;
#define FREE(f, T) gr_mem_free(st->env.mem, st->f, sizeof(T) * n), st->f = NULL;
#define FREE_T(f, T) gr_mem_free(st->env.mem, st->f, sizeof(T) * t), st->f = NULL;
#define FREE_B(f, T) gr_mem_free(st->env.mem, st->f, sizeof(T) * b), st->f = NULL;
    ARRAYS(FREE)
    TILE_ARRAYS(FREE_T)
    BLOCK_ARRAYS(FREE_B)
#undef FREE
#undef FREE_T
#undef FREE_B
    gr_mem_free(st->env.mem, st->impulse, sizeof(gr_vec3) * 2 * (size_t)st->impulse_cap);
    st->impulse = NULL, st->impulse_cap = 0;
    gr_mem_free(st->env.mem, st->rest, sizeof(uint32_t) * (size_t)st->rest_cap);
    st->rest = NULL, st->rest_cap = 0;
}

bool terrain_store_reserve_impulses(terrain_state *st, uint32_t slots)
{
    if (slots <= st->impulse_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(st->impulse_cap, slots);
    gr_vec3 *p = gr_mem_calloc(st->env.mem, sizeof(gr_vec3) * 2 * (size_t)cap);
    if (!p)
        return false;
    gr_mem_free(st->env.mem, st->impulse, sizeof(gr_vec3) * 2 * (size_t)st->impulse_cap);
    st->impulse = p, st->impulse_cap = cap;
    return true;
}

bool terrain_store_reserve_rest(terrain_state *st, uint32_t slots)
{
    if (slots <= st->rest_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(st->rest_cap, slots);
    uint32_t *p = gr_mem_calloc(st->env.mem, sizeof(uint32_t) * (size_t)cap);
    if (!p)
        return false;
    if (st->rest_cap)
        memcpy(p, st->rest, sizeof(uint32_t) * st->rest_cap);
    gr_mem_free(st->env.mem, st->rest, sizeof(uint32_t) * (size_t)st->rest_cap);
    st->rest = p, st->rest_cap = cap;
    return true;
}

static void grow_rect(gr_terrain_rect *r, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1)
{
    if (r->x0 >= r->x1 || r->z0 >= r->z1) {
        *r = (gr_terrain_rect){x0, z0, x1, z1};
        return;
    }
    r->x0 = x0 < r->x0 ? x0 : r->x0, r->z0 = z0 < r->z0 ? z0 : r->z0;
    r->x1 = x1 > r->x1 ? x1 : r->x1, r->z1 = z1 > r->z1 ? z1 : r->z1;
}

void terrain_note_changed(terrain_state *st, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1)
{
    if (x0 >= x1 || z0 >= z1)
        return;
    const uint32_t T = st->tile;
    for (uint32_t tz = z0 / T; tz <= (z1 - 1) / T; tz++)
        for (uint32_t tx = x0 / T; tx <= (x1 - 1) / T; tx++) {
            const uint32_t ax = tx * T, az = tz * T;
            const uint32_t bx = ax + T < st->field.nx ? ax + T : st->field.nx;
            const uint32_t bz = az + T < st->field.nz ? az + T : st->field.nz;
            grow_rect(&st->changed[tz * st->tiles_x + tx], x0 > ax ? x0 : ax, z0 > az ? z0 : az, x1 < bx ? x1 : bx,
                      z1 < bz ? z1 : bz);
        }
}

void terrain_mark_changed(terrain_state *st, uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1)
{
    if (x0 >= x1 || z0 >= z1)
        return;
    terrain_note_changed(st, x0, z0, x1, z1);
    const uint32_t B = TERRAIN_BLOCK;
    for (uint32_t bz = z0 / B; bz <= (z1 - 1) / B; bz++)
        for (uint32_t bx = x0 / B; bx <= (x1 - 1) / B; bx++)
            st->block_active[bz * st->blocks_x + bx] = 1;
}

void terrain_mark_column(terrain_state *st, uint32_t c)
{
    const uint32_t i = c % st->field.nx, k = c / st->field.nx;
    terrain_mark_changed(st, i, k, i + 1, k + 1);
}

double terrain_volume(const terrain_state *st)
{
    double s = 0;
    for (uint32_t c = 0; c < st->n; c++)
        s += st->field.h[c];
    return s * st->p.area;
}
