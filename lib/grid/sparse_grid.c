/* SPDX-License-Identifier: MIT */
/* The sparse grid's build: one pass over the points finds the blocks holding them (a hash set,
 * with each block's occupied cells as a 64-bit mask), the halo adds the neighbouring blocks
 * those cells reach, a sort by Morton code numbers the blocks, and the hash, the points' cells
 * and the neighbour tables are rewritten in that numbering. */
#include "sparse_grid.h"

#include "../core/sort.h"

void gr_sparse_grid_init(gr_sparse_grid *g)
{
    memset(g, 0, sizeof *g);
    g->h = 1.0;
    g->inv_h = 1.0;
}

/* The per-block arrays, for gr_mem_grow_arrays. */
static size_t block_arrays(gr_sparse_grid *g, gr_array_ref a[6])
{
    a[0] = (gr_array_ref){(void **)&g->block_coord, 3 * sizeof(int32_t)};
    a[1] = (gr_array_ref){(void **)&g->block_points, sizeof(uint64_t)};
    a[2] = (gr_array_ref){(void **)&g->block_nbr, 27 * sizeof(uint32_t)};
    a[3] = (gr_array_ref){(void **)&g->keys, sizeof(gr_sparse_key)};
    a[4] = (gr_array_ref){(void **)&g->keys_tmp, sizeof(gr_sparse_key)};
    a[5] = (gr_array_ref){(void **)&g->remap, sizeof(uint32_t)};
    return 6;
}

void gr_sparse_grid_free(gr_sparse_grid *g, gr_mem *mem)
{
    gr_array_ref a[6];
    gr_mem_free_arrays(mem, a, block_arrays(g, a), g->cap_blocks);
    gr_mem_free(mem, g->slots, sizeof(gr_sparse_slot) * (size_t)g->hash_cap);
    gr_mem_free(mem, g->point_cell, sizeof(uint32_t) * (size_t)g->cap_points);
    gr_mem_free(mem, g->point_order, sizeof(uint32_t) * (size_t)g->cap_order);
    gr_mem_free(mem, g->cell_start, sizeof(uint32_t) * (g->cap_cells + 1));
    gr_sparse_grid_init(g);
}

size_t gr_sparse_grid_bytes(const gr_sparse_grid *g)
{
    const size_t per_block = 3 * sizeof(int32_t) + sizeof(uint64_t) + 27 * sizeof(uint32_t) +
                             2 * sizeof(gr_sparse_key) + sizeof(uint32_t);
    return per_block * g->cap_blocks + sizeof(gr_sparse_slot) * (size_t)g->hash_cap +
           sizeof(uint32_t) * ((size_t)g->cap_points + g->cap_order) +
           (g->cell_start ? sizeof(uint32_t) * (g->cap_cells + 1) : 0);
}

/* Insert block index `id` at coordinates b (known absent). */
static void hash_put(gr_sparse_grid *g, const int32_t b[3], uint32_t id)
{
    const uint32_t mask = g->hash_cap - 1;
    uint32_t s = gr_sparse_hash(g, b[0], b[1], b[2]);
    while (g->slots[s].block != GR_INVALID_INDEX)
        s = (s + 1) & mask;
    g->slots[s] = (gr_sparse_slot){{b[0], b[1], b[2]}, id};
}

/* Every slot empty, then block i of the table at its coordinates. */
static void hash_fill(gr_sparse_grid *g)
{
    memset(g->slots, 0xff, sizeof(gr_sparse_slot) * (size_t)g->hash_cap);
    for (uint32_t i = 0; i < g->block_count; i++)
        hash_put(g, g->block_coord + 3 * (size_t)i, i);
}

/* Room for `need` blocks (the first block_count kept). The hash grows first and is rebuilt
 * from block_coord, so that hash_cap >= 2 cap_blocks holds whatever fails (load <= 1/2: every
 * probe ends at an empty slot). */
static bool grow_blocks(gr_sparse_grid *g, gr_mem *mem, uint32_t need)
{
    if (need > GR_SPARSE_GRID_MAX_BLOCKS)
        return false;
    if (need <= g->cap_blocks)
        return true;
    const uint32_t cap = GR_MIN(gr_grow_capacity(g->cap_blocks, need), GR_SPARSE_GRID_MAX_BLOCKS);
    if (g->hash_cap < 2 * cap) {
        uint32_t hcap = 64, shift = 58;
        while (hcap < 2 * cap) {
            hcap *= 2;
            shift--;
        }
        gr_sparse_slot *slots = (gr_sparse_slot *)gr_mem_alloc(mem, sizeof(gr_sparse_slot) * (size_t)hcap);
        if (!slots)
            return false;
        gr_mem_free(mem, g->slots, sizeof(gr_sparse_slot) * (size_t)g->hash_cap);
        g->slots = slots;
        g->hash_cap = hcap;
        g->hash_shift = shift;
        hash_fill(g);
    }
    gr_array_ref a[6];
    if (!gr_mem_grow_arrays(mem, a, block_arrays(g, a), g->cap_blocks, cap, g->block_count))
        return false;
    g->cap_blocks = cap;
    return true;
}

static bool grow_points(gr_sparse_grid *g, gr_mem *mem, uint32_t n)
{
    if (n <= g->cap_points)
        return true;
    const uint32_t cap = gr_grow_capacity(g->cap_points, n);
    gr_array_ref a = {(void **)&g->point_cell, sizeof(uint32_t)};
    if (!gr_mem_grow_arrays(mem, &a, 1, g->cap_points, cap, g->n))
        return false;
    g->cap_points = cap;
    return true;
}

/* Room for sorting n points into `cells` cells, contents kept. */
static bool grow_order(gr_sparse_grid *g, gr_mem *mem, uint32_t n, size_t cells)
{
    if (n > g->cap_order) {
        const uint32_t cap = gr_grow_capacity(g->cap_order, n);
        gr_array_ref a = {(void **)&g->point_order, sizeof(uint32_t)};
        if (!gr_mem_grow_arrays(mem, &a, 1, g->cap_order, cap, g->sorted ? g->n : 0))
            return false;
        g->cap_order = cap;
    }
    if (cells > g->cap_cells || !g->cell_start) {
        const size_t cap = GR_MAX(cells, g->cap_cells + g->cap_cells / 2);
        uint32_t *cs = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * (cap + 1));
        if (!cs)
            return false;
        if (g->cell_start && g->sorted)
            memcpy(cs, g->cell_start, sizeof(uint32_t) * ((size_t)g->block_count * 64 + 1));
        gr_mem_free(mem, g->cell_start, sizeof(uint32_t) * (g->cap_cells + 1));
        g->cell_start = cs;
        g->cap_cells = cap;
    }
    return true;
}

bool gr_sparse_grid_reserve(gr_sparse_grid *g, gr_mem *mem, uint32_t points, uint32_t blocks)
{
    if (blocks > GR_SPARSE_GRID_MAX_BLOCKS)
        return false;
    return grow_points(g, mem, points) && grow_blocks(g, mem, GR_MAX(blocks, 1u)) &&
           grow_order(g, mem, points, (size_t)blocks * 64);
}

/* The block at b: its index, inserted (occupying no cell) when absent. GR_INVALID_INDEX when
 * the tables could not grow. */
static uint32_t find_or_add(gr_sparse_grid *g, gr_mem *mem, const int32_t b[3])
{
    uint32_t s = gr_sparse_hash(g, b[0], b[1], b[2]);
    for (;; s = (s + 1) & (g->hash_cap - 1)) {
        const gr_sparse_slot *e = &g->slots[s];
        if (e->block == GR_INVALID_INDEX)
            break;
        if (e->b[0] == b[0] && e->b[1] == b[1] && e->b[2] == b[2])
            return e->block;
    }
    const uint32_t id = g->block_count;
    if (id == g->cap_blocks) {
        if (!grow_blocks(g, mem, id + 1))
            return GR_INVALID_INDEX;
        hash_put(g, b, id); /* the slot found above moved with the rehash */
    } else {
        g->slots[s] = (gr_sparse_slot){{b[0], b[1], b[2]}, id};
    }
    memcpy(g->block_coord + 3 * (size_t)id, b, 3 * sizeof(int32_t));
    g->block_points[id] = 0;
    g->block_count = id + 1;
    return id;
}

/* need[d]: the local cells whose halo reaches the block in direction d (index as block_nbr).
 * Per axis a cell at l reaches the block below when l < halo, the one above when l >= 4 - halo;
 * the Chebyshev ball is the product of the axes. */
static void halo_masks(int halo, uint64_t need[27])
{
    for (int d = 0; d < 27; d++) {
        const int dir[3] = {d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1};
        uint64_t m = 0;
        for (uint32_t l = 0; l < 64; l++) {
            const int loc[3] = {(int)(l & 3u), (int)((l >> 2) & 3u), (int)(l >> 4)};
            bool reach = true;
            for (int a = 0; a < 3; a++)
                reach = reach && (dir[a] == 0 || (dir[a] < 0 ? loc[a] < halo : loc[a] >= 4 - halo));
            if (reach)
                m |= 1ull << l;
        }
        need[d] = m;
    }
}

/* Bits 0..20 of v spread to every third bit. */
static uint64_t spread3(uint64_t v)
{
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

static int cmp_key(const void *pa, const void *pb)
{
    const gr_sparse_key *a = (const gr_sparse_key *)pa, *b = (const gr_sparse_key *)pb;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Number the blocks in Morton order: block_coord, block_points, the hash and remap. */
static void sort_blocks(gr_sparse_grid *g)
{
    const uint32_t nb = g->block_count;
    for (uint32_t i = 0; i < nb; i++) {
        gr_sparse_key *k = &g->keys[i];
        const int32_t *b = g->block_coord + 3 * (size_t)i;
        /* block coordinates lie in [-2^28 - 1, 2^28]: biased by 2^29 they fit 30 bits */
        uint64_t u[3];
        for (int a = 0; a < 3; a++)
            u[a] = (uint64_t)((int64_t)b[a] + (1 << 29));
        k->lo = spread3(u[0]) | spread3(u[1]) << 1 | spread3(u[2]) << 2;
        k->hi = spread3(u[0] >> 21) | spread3(u[1] >> 21) << 1 | spread3(u[2] >> 21) << 2;
        k->points = g->block_points[i];
        memcpy(k->b, b, sizeof k->b);
        k->id = i;
    }
    gr_sort(g->keys, nb, sizeof(gr_sparse_key), cmp_key, g->keys_tmp); /* keys are distinct: any sort agrees */
    for (uint32_t i = 0; i < nb; i++) {
        const gr_sparse_key *k = &g->keys[i];
        memcpy(g->block_coord + 3 * (size_t)i, k->b, sizeof k->b);
        g->block_points[i] = k->points;
        g->remap[k->id] = i;
    }
    for (uint32_t s = 0; s < g->hash_cap; s++)
        if (g->slots[s].block != GR_INVALID_INDEX)
            g->slots[s].block = g->remap[g->slots[s].block];
}

/* Neighbourhood is symmetric (the block d away from b has b in direction 26 - d), so only the
 * 13 directions after "itself" are looked up, each answer filled in both blocks: half the
 * probes, each a likely cache miss (the hash scatters neighbours over memory). */
static void fill_neighbors(gr_sparse_grid *g)
{
    memset(g->block_nbr, 0xff, sizeof(uint32_t) * 27 * (size_t)g->block_count);
    for (uint32_t i = 0; i < g->block_count; i++) {
        const int32_t *b = g->block_coord + 3 * (size_t)i;
        g->block_nbr[27 * (size_t)i + 13] = i;
        for (int d = 14; d < 27; d++) {
            const uint32_t j = gr_sparse_grid_block_of(g, b[0] + d % 3 - 1, b[1] + d / 3 % 3 - 1, b[2] + d / 9 - 1);
            if (j != GR_INVALID_INDEX) {
                g->block_nbr[27 * (size_t)i + (size_t)d] = j;
                g->block_nbr[27 * (size_t)j + (size_t)(26 - d)] = i;
            }
        }
    }
}

/* After a failure mid-build: an empty grid, every array kept. */
static void make_empty(gr_sparse_grid *g)
{
    g->block_count = 0;
    g->n = 0;
    g->rejected = 0;
    g->sorted = false;
    if (g->slots)
        memset(g->slots, 0xff, sizeof(gr_sparse_slot) * (size_t)g->hash_cap);
}

bool gr_sparse_grid_build(gr_sparse_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n, double h,
                          gr_vec3 origin, int halo)
{
    if (!(h > 0 && isfinite(h) && isfinite(1.0 / h)) || !v3_finite(origin) || halo < 0 ||
        halo > GR_SPARSE_GRID_MAX_HALO)
        return false;
    if (!grow_points(g, mem, n))
        return false; /* nothing changed yet */
    make_empty(g);
    if (!grow_blocks(g, mem, 1)) /* the hash exists from here on */
        return false;
    g->origin = origin;
    g->h = h;
    g->inv_h = 1.0 / h;
    g->halo = halo;

    /* The points' blocks, each with the cells its points occupy. Consecutive points tend to
     * share a block (solvers keep their particles sorted): the last one is remembered. */
    uint32_t rejected = 0, last = GR_INVALID_INDEX;
    int32_t last_b[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const double *p = pos + (size_t)i * stride;
        int32_t c[3];
        if (!gr_sparse_grid_locate_in(origin, g->inv_h, (gr_vec3){p[0], p[1], p[2]}, c)) {
            g->point_cell[i] = GR_INVALID_INDEX;
            rejected++;
            continue;
        }
        const int32_t b[3] = {gr_sparse_floor4(c[0]), gr_sparse_floor4(c[1]), gr_sparse_floor4(c[2])};
        if (last == GR_INVALID_INDEX || b[0] != last_b[0] || b[1] != last_b[1] || b[2] != last_b[2]) {
            last = find_or_add(g, mem, b);
            if (last == GR_INVALID_INDEX) {
                make_empty(g);
                return false;
            }
            memcpy(last_b, b, sizeof b);
        }
        const uint32_t l = gr_sparse_local(c[0], c[1], c[2]);
        g->block_points[last] |= 1ull << l;
        g->point_cell[i] = last * 64u + l; /* in insertion numbering until remapped */
    }

    /* The halo: the blocks the occupied cells reach (only the points' own blocks reach out). */
    uint64_t need[27];
    halo_masks(halo, need);
    const uint32_t seeds = g->block_count;
    for (uint32_t s = 0; halo > 0 && s < seeds; s++) {
        const uint64_t occupied = g->block_points[s];
        int32_t b[3];
        memcpy(b, g->block_coord + 3 * (size_t)s, sizeof b); /* the arrays may move below */
        for (int d = 0; d < 27; d++) {
            if (d == 13 || !(occupied & need[d]))
                continue;
            const int32_t nb[3] = {b[0] + d % 3 - 1, b[1] + d / 3 % 3 - 1, b[2] + d / 9 - 1};
            if (find_or_add(g, mem, nb) == GR_INVALID_INDEX) {
                make_empty(g);
                return false;
            }
        }
    }

    sort_blocks(g);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t c = g->point_cell[i];
        if (c != GR_INVALID_INDEX)
            g->point_cell[i] = g->remap[c >> 6] * 64u + (c & 63u);
    }
    fill_neighbors(g);
    g->n = n;
    g->rejected = rejected;
    return true;
}

bool gr_sparse_grid_sort_points(gr_sparse_grid *g, gr_mem *mem)
{
    const size_t cells = (size_t)g->block_count * 64;
    if (!grow_order(g, mem, g->n, cells)) {
        g->sorted = false;
        return false;
    }
    uint32_t *start = g->cell_start;
    memset(start, 0, sizeof(uint32_t) * (cells + 1));
    for (uint32_t i = 0; i < g->n; i++)
        if (g->point_cell[i] != GR_INVALID_INDEX)
            start[g->point_cell[i] + 1]++;
    for (size_t c = 0; c < cells; c++)
        start[c + 1] += start[c];
    /* Scatter with cell_start as the running cursor (then shifted back); the rejected points
     * go after the placed ones. */
    uint32_t tail = g->n - g->rejected;
    for (uint32_t i = 0; i < g->n; i++) {
        const uint32_t c = g->point_cell[i];
        g->point_order[c != GR_INVALID_INDEX ? start[c]++ : tail++] = i;
    }
    for (size_t c = cells; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
    g->sorted = true;
    return true;
}
