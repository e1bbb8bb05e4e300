/* SPDX-License-Identifier: MIT */
/* A block-sparse grid of cubic cells that follows the material: only the blocks of 4x4x4 cells
 * near points exist, so memory and time grow with the occupied cells, not with a bounding box,
 * and a point far from the rest costs a few blocks, not a grid stretched to reach it. The
 * continuum solver's staggered (MAC) grid lives on it: the solver keeps its own per-cell arrays
 * (face velocities, pressure, ...) indexed by the cell index given here.
 *
 * Cells. Cell (i, j, k) spans [origin + (i, j, k) h, origin + (i + 1, j + 1, k + 1) h]; a point p
 * lies in cell floor((p - origin) * (1 / h)) per axis (gr_sparse_grid_locate: the one rounding
 * everybody uses). Block (bi, bj, bk) = floor((i, j, k) / 4) holds the 64 cells of local
 * coordinates l = c - 4 b in 0..3, stored contiguously, x fastest:
 *     cell index = block * 64 + (lz * 4 + ly) * 4 + lx.
 * Blocks are numbered in Morton order of their coordinates: the numbering depends only on the
 * set of active blocks (not on point order or worker count), and blocks near in space tend to
 * be near in memory.
 *
 * Reach. A point is placed when its cell coordinates lie in [-GR_SPARSE_GRID_REACH,
 * GR_SPARSE_GRID_REACH) per axis, i.e. within origin + [-2^30 h, 2^30 h) (+-10 700 km at
 * h = 1 cm); the margin to int32's ends keeps every cell +-4 and every block +-1 representable.
 * Points beyond it, and non-finite points, are rejected and reported, never wrapped or clamped
 * into an edge cell: the solver removes them as blow-ups. */
#ifndef GR_GRID_SPARSE_GRID_H
#define GR_GRID_SPARSE_GRID_H

#include "../core/alloc.h"
#include "../core/vec3.h"

/// Cell coordinates of placed points lie in [-GR_SPARSE_GRID_REACH, GR_SPARSE_GRID_REACH).
#define GR_SPARSE_GRID_REACH 1073741824 /* 2^30 */
/// Most blocks a grid holds (2^25: 2^31 cells); a build needing more fails.
#define GR_SPARSE_GRID_MAX_BLOCKS 33554432u
/// Largest halo a build takes: a halo of at most 3 cells reaches at most one block away.
#define GR_SPARSE_GRID_MAX_HALO 3

/// A slot of the block hash: a block's coordinates and its index (GR_INVALID_INDEX: empty).
typedef struct gr_sparse_slot {
    int32_t b[3];
    uint32_t block;
} gr_sparse_slot;

/// A block's sort key while building: its Morton code (90 bits: hi, lo), coordinates, occupied
/// cells and index in insertion order.
typedef struct gr_sparse_key {
    uint64_t hi, lo;
    uint64_t points;
    int32_t b[3];
    uint32_t id;
} gr_sparse_key;

typedef struct gr_sparse_grid {
    gr_vec3 origin;       ///< the corner of cell (0, 0, 0) [m]
    double h;             ///< cell edge [m]
    double inv_h;         ///< 1 / h
    int halo;             ///< the last build's halo [cells]
    uint32_t block_count; ///< active blocks: cells are [0, 64 block_count)
    uint32_t n;           ///< points of the last build
    uint32_t rejected;    ///< of them, outside the reach or not finite
    bool sorted;          ///< point_order and cell_start hold the last build's points
    int32_t *block_coord;   ///< [3 block_count]: (bi, bj, bk) of each block
    uint64_t *block_points; ///< [block_count]: bit l set when local cell l holds a point
    /// [27 block_count]: the block (dx, dy, dz) in -1..1 away from block b is
    /// block_nbr[27 b + (dz + 1) 9 + (dy + 1) 3 + dx + 1] (itself at 13), GR_INVALID_INDEX when inactive
    uint32_t *block_nbr;
    gr_sparse_slot *slots; ///< [hash_cap]: open addressing, linear probing, load <= 1/2
    uint32_t hash_cap;     ///< a power of two >= 2 cap_blocks (0 before the first allocation)
    uint32_t hash_shift;   ///< 64 - log2(hash_cap): a hash's top bits pick the slot
    uint32_t *point_cell;  ///< [n]: the cell of point i, GR_INVALID_INDEX when rejected
    /// [n] after gr_sparse_grid_sort_points: the placed points by cell (in input order within a
    /// cell), then the rejected ones (in input order)
    uint32_t *point_order;
    uint32_t *cell_start; ///< [64 block_count + 1] after sorting: cell c's points are point_order[cell_start[c], cell_start[c + 1])
    /* build scratch, per block */
    gr_sparse_key *keys, *keys_tmp;
    uint32_t *remap; ///< insertion index -> final (sorted) index
    uint32_t cap_blocks, cap_points, cap_order;
    size_t cap_cells; ///< cell_start holds cap_cells + 1 entries
} gr_sparse_grid;

/// An empty grid (no allocation).
void gr_sparse_grid_init(gr_sparse_grid *g);
/// Free everything and leave an empty grid.
void gr_sparse_grid_free(gr_sparse_grid *g, gr_mem *mem);
/// Room for builds of up to `points` points into up to `blocks` blocks, and for sorting them:
/// such a build and sort allocate nothing. The grid's contents are kept. False on failure (the
/// grid usable and unchanged, though some of its arrays may have grown).
bool gr_sparse_grid_reserve(gr_sparse_grid *g, gr_mem *mem, uint32_t points, uint32_t blocks);

/// Build over n points (pos[i * stride + 0..2] is point i's x, y, z) with cells of edge h from
/// `origin`: the active blocks are those holding a cell within `halo` cells (Chebyshev distance,
/// 0..GR_SPARSE_GRID_MAX_HALO) of a point's cell. Fills point_cell, counts the rejected points
/// (see Reach above), sets the block table, hash and neighbours; the points are not sorted
/// (gr_sparse_grid_sort_points). O(n + blocks log blocks) expected time, one hash probe per
/// point whose block differs from the previous point's. Serial: the points' pass inserts into
/// one hash (a parallel one would need a concurrent hash or per-worker sets merged in a fixed
/// order; not yet worth it), and the rest is per block.
/// Arrays only grow: a build within the capacity of earlier ones allocates nothing.
/// Returns false, allocating nothing and changing nothing, for h not positive and finite, a
/// non-finite origin or a halo out of range. Out of memory (or more than
/// GR_SPARSE_GRID_MAX_BLOCKS blocks) returns false too: the grid is unchanged when the points'
/// arrays could not grow, otherwise left empty (no blocks, no points), valid, to be rebuilt or freed.
bool gr_sparse_grid_build(gr_sparse_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n, double h,
                          gr_vec3 origin, int halo);
/// Sort the last build's points by cell (a stable counting sort): fills point_order and
/// cell_start, sets `sorted`. O(n + 64 blocks) time, 4 n + 4 (64 blocks + 1) bytes. Within the
/// capacity of earlier sorts (or a reserve) it allocates nothing; false on out of memory (the
/// grid otherwise unchanged, `sorted` false).
bool gr_sparse_grid_sort_points(gr_sparse_grid *g, gr_mem *mem);
/// Bytes the grid holds (every array at its capacity): for bytes per occupied cell.
size_t gr_sparse_grid_bytes(const gr_sparse_grid *g);

/// The number of cells (64 per active block).
static inline uint32_t gr_sparse_grid_cells(const gr_sparse_grid *g) { return g->block_count * 64u; }

/// floor(c / 4), without relying on >> of a negative number (implementation-defined in C11).
static inline int32_t gr_sparse_floor4(int32_t c) { return c >= 0 ? c >> 2 : ~(~c >> 2); }

/// The local index of cell coordinates c within their block.
static inline uint32_t gr_sparse_local(int32_t i, int32_t j, int32_t k)
{
    return (((uint32_t)k & 3u) * 4u + ((uint32_t)j & 3u)) * 4u + ((uint32_t)i & 3u);
}

/// The hash slot a block starts probing from.
static inline uint32_t gr_sparse_hash(const gr_sparse_grid *g, int32_t bi, int32_t bj, int32_t bk)
{
    uint64_t k = (uint64_t)(uint32_t)bi * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)bj * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(uint32_t)bk * 0x165667B19E3779F9ull;
    k ^= k >> 29;
    k *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(k >> g->hash_shift);
}

/// The index of block (bi, bj, bk), GR_INVALID_INDEX when inactive.
static inline uint32_t gr_sparse_grid_block_of(const gr_sparse_grid *g, int32_t bi, int32_t bj, int32_t bk)
{
    if (g->hash_cap == 0)
        return GR_INVALID_INDEX;
    const uint32_t mask = g->hash_cap - 1;
    for (uint32_t s = gr_sparse_hash(g, bi, bj, bk);; s = (s + 1) & mask) {
        const gr_sparse_slot *e = &g->slots[s];
        if (e->block == GR_INVALID_INDEX)
            return GR_INVALID_INDEX;
        if (e->b[0] == bi && e->b[1] == bj && e->b[2] == bk)
            return e->block;
    }
}

/// The index of cell (i, j, k) (any int32), GR_INVALID_INDEX when its block is inactive.
static inline uint32_t gr_sparse_grid_cell(const gr_sparse_grid *g, int32_t i, int32_t j, int32_t k)
{
    const uint32_t b = gr_sparse_grid_block_of(g, gr_sparse_floor4(i), gr_sparse_floor4(j), gr_sparse_floor4(k));
    return b == GR_INVALID_INDEX ? b : b * 64u + gr_sparse_local(i, j, k);
}

/// The coordinates of an active cell.
static inline void gr_sparse_grid_cell_coords(const gr_sparse_grid *g, uint32_t cell, int32_t c[3])
{
    const int32_t *b = g->block_coord + 3 * (size_t)(cell >> 6);
    c[0] = b[0] * 4 + (int32_t)(cell & 3u);
    c[1] = b[1] * 4 + (int32_t)((cell >> 2) & 3u);
    c[2] = b[2] * 4 + (int32_t)((cell >> 4) & 3u);
}

/// The cell (dx, dy, dz) away from an active cell, |d| <= 4 per axis (at most one block step),
/// GR_INVALID_INDEX when inactive: through the block's neighbour table, no hashing.
static inline uint32_t gr_sparse_grid_neighbor(const gr_sparse_grid *g, uint32_t cell, int dx, int dy, int dz)
{
    const int lx = (int)(cell & 3u) + dx, ly = (int)((cell >> 2) & 3u) + dy, lz = (int)((cell >> 4) & 3u) + dz;
    if (GR_LIKELY((unsigned)(lx | ly | lz) < 4u)) /* inside the block (a negative l fails too) */
        return (uint32_t)((int64_t)cell + dx + 4 * dy + 16 * dz);
    /* (l + 4) / 4 is 0, 1, 2 for a step of -1, 0, +1 blocks */
    const uint32_t nb = g->block_nbr[27 * (size_t)(cell >> 6) + (uint32_t)((lz + 4) >> 2) * 9u +
                                     (uint32_t)((ly + 4) >> 2) * 3u + (uint32_t)((lx + 4) >> 2)];
    return nb == GR_INVALID_INDEX ? nb : nb * 64u + ((((uint32_t)lz & 3u) * 4u + ((uint32_t)ly & 3u)) * 4u + ((uint32_t)lx & 3u));
}

/// Whether block a comes before block b in the grids' numbering (Morton order of the
/// coordinates biased by 2^29, z the highest bit of each triple): the axis whose biased
/// coordinates differ in the highest bit decides. Two grids' block lists merge in one pass.
static inline bool gr_sparse_block_less(const int32_t a[3], const int32_t b[3])
{
    int axis = -1;
    uint32_t best = 0;
    for (int k = 0; k < 3; k++) {
        const uint32_t x = ((uint32_t)a[k] + (1u << 29)) ^ ((uint32_t)b[k] + (1u << 29));
        if (x && !(x < best && x < (x ^ best))) /* msb(x) >= msb(best): later axes win ties */
            axis = k, best = x;
    }
    return axis >= 0 && a[axis] < b[axis];
}

/// The block (dx, dy, dz) in -1..1 away from an active block, GR_INVALID_INDEX when inactive.
static inline uint32_t gr_sparse_grid_neighbor_block(const gr_sparse_grid *g, uint32_t block, int dx, int dy, int dz)
{
    return g->block_nbr[27 * (size_t)block + (uint32_t)((dz + 1) * 9 + (dy + 1) * 3 + dx + 1)];
}

/// The cell coordinates of point p in a grid of edge 1 / inv_h from origin; false when p is
/// not finite or beyond the reach (c then undefined). Truncation then a step down: floor
/// without its call (no SSE4.1 rounding in the baseline build).
static inline bool gr_sparse_grid_locate_in(gr_vec3 origin, double inv_h, gr_vec3 p, int32_t c[3])
{
    const double t[3] = {(p.x - origin.x) * inv_h, (p.y - origin.y) * inv_h, (p.z - origin.z) * inv_h};
    for (int a = 0; a < 3; a++) {
        if (!(t[a] >= -(double)GR_SPARSE_GRID_REACH && t[a] < (double)GR_SPARSE_GRID_REACH))
            return false;
        const int32_t i = (int32_t)t[a];
        c[a] = (double)i > t[a] ? i - 1 : i;
    }
    return true;
}

/// The cell coordinates of point p in the grid's last build; false when p would be rejected.
static inline bool gr_sparse_grid_locate(const gr_sparse_grid *g, gr_vec3 p, int32_t c[3])
{
    return gr_sparse_grid_locate_in(g->origin, g->inv_h, p, c);
}

#endif /* GR_GRID_SPARSE_GRID_H */
