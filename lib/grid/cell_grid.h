/* SPDX-License-Identifier: MIT */
/* Uniform cell grid over the points' bounding box, built by a counting sort (O(N + cells),
 * stable, so the order is deterministic). Linear cell index c = (i0 * d1 + i1) * d2 + i2 where
 * axis[0] is the longest axis (slabs of cells along it are the units of parallel work) and
 * axis[2] the fastest: the 3 cells (i0, i1, i2-1..i2+1) are one contiguous run of points. */
#ifndef GR_GRID_CELL_GRID_H
#define GR_GRID_CELL_GRID_H

#include <math.h>

#include "../core/alloc.h"
#include "../core/vec3.h"
#include "grid_index.h"

typedef struct gr_cell_grid {
    /// the cells: corner (of the points' bulk when outliers are far), edge (>= the requested
    /// size), counts per world axis, linear order axis[0] slowest
    gr_grid_index index;
    gr_vec3 lo, hi;      ///< the points' exact bounding box
    int32_t dims[3];     ///< index.dims in major..minor order: cells along axis[0], axis[1], axis[2]
    int axis[3];         ///< world axes in major..minor order
    uint32_t n;          ///< points in the last build
    bool clamped;        ///< far outliers lie outside the grid (clamped into its edge cells)
    uint32_t *cell_start;  ///< [index.count + 1]: sorted points of cell c are [cell_start[c], cell_start[c+1])
    uint32_t *order;       ///< [n]: sorted position -> input index
    uint32_t *cell_of;     ///< [n]: input index -> cell
    uint32_t cap_cells;
    uint32_t cap_points;
} gr_cell_grid;

void gr_cell_grid_init(gr_cell_grid *g);
void gr_cell_grid_free(gr_cell_grid *g, gr_mem *mem);
/// Build over n points (pos[i * stride] is point i's x, then y, z, in doubles). Cells are at
/// least `cell_size`; if that would need more than `max_cells` cells the cells are enlarged.
/// Allocates (grows) only; on failure the grid is unchanged and false is returned.
bool gr_cell_grid_build(gr_cell_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n,
                        double cell_size, uint32_t max_cells);
/// Room for a build over up to `points` points into up to `cells` cells (a build within both
/// allocates nothing). The grid's contents are kept. False on failure (grid unchanged).
bool gr_cell_grid_reserve(gr_cell_grid *g, gr_mem *mem, uint32_t points, uint32_t cells);
/// The same over the points' bounding box grown by `pad` on every side (so that queries
/// within pad of any point fall inside the grid).
bool gr_cell_grid_build_padded(gr_cell_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n,
                               double cell_size, uint32_t max_cells, double pad);
/// Cell coordinates (major, mid, minor order) of a point, clamped into the grid. (Inline: the
/// lists ask it for every particle every substep.)
static inline void gr_cell_grid_coords(const gr_cell_grid *g, gr_vec3 p, int32_t c[3])
{
    const double d[3] = {p.x - g->index.lo.x, p.y - g->index.lo.y, p.z - g->index.lo.z};
    for (int k = 0; k < 3; k++) {
        /* truncation is floor for t >= 0, and dims is whole: the same cell as floor() without
         * its call (no SSE4.1 rounding in the baseline build; this ran per particle per pass) */
        const double t = d[g->axis[k]] * g->index.inv_cell;
        c[k] = !(t >= 0) ? 0 : (t >= (double)g->dims[k] ? g->dims[k] - 1 : (int32_t)t);
    }
}
/// The number of cells.
static inline uint32_t gr_cell_grid_cells(const gr_cell_grid *g) { return (uint32_t)g->index.count; }
/// The linear index of cell coordinates c (major..minor order): index's order.
static inline uint32_t gr_cell_grid_index(const gr_cell_grid *g, const int32_t c[3])
{
    return ((uint32_t)c[0] * (uint32_t)g->dims[1] + (uint32_t)c[1]) * (uint32_t)g->dims[2] + (uint32_t)c[2];
}

/// The 3x3x3 block of cells around cell coordinates c (clamped to the grid) as sorted-position
/// ranges [begin[k], end[k]): one per row (i0, i1), since a row's cells i2-1..i2+1 are
/// contiguous. Returns the number of rows (at most 9).
static inline uint32_t gr_cell_grid_block_rows(const gr_cell_grid *g, const int32_t c[3], uint32_t begin[9],
                                               uint32_t end[9])
{
    uint32_t rows = 0;
    const int32_t k0 = c[2] > 0 ? c[2] - 1 : 0, k1 = c[2] + 1 < g->dims[2] ? c[2] + 1 : g->dims[2] - 1;
    for (int32_t a = c[0] - 1; a <= c[0] + 1; a++) {
        if (a < 0 || a >= g->dims[0])
            continue;
        for (int32_t b = c[1] - 1; b <= c[1] + 1; b++) {
            if (b < 0 || b >= g->dims[1])
                continue;
            const int32_t lo[3] = {a, b, k0};
            const uint32_t first = gr_cell_grid_index(g, lo);
            begin[rows] = g->cell_start[first];
            end[rows++] = g->cell_start[first + (uint32_t)(k1 - k0) + 1];
        }
    }
    return rows;
}

/// Most rows gr_cell_grid_reach_rows returns: a reach of up to two cell edges spans at most
/// 5 cells per axis.
#define GR_CELL_GRID_REACH_ROWS 25u

/// The cell coordinates [lo, hi] (grid axis order, clamped) that the cube of half side
/// `reach` around p overlaps; reach <= 2 cell edges (at most 5 cells per axis).
static inline void gr_cell_grid_reach_cells(const gr_cell_grid *g, gr_vec3 p, double reach, int32_t lo[3],
                                            int32_t hi[3])
{
    for (int d = 0; d < 3; d++) {
        const double o = g->index.lo_axis[g->axis[d]], x = v3_get(p, g->axis[d]);
        double a = floor((x - reach - o) * g->index.inv_cell), b = floor((x + reach - o) * g->index.inv_cell);
        const double top = (double)(g->dims[d] - 1);
        a = !(a >= 0) ? 0 : (a > top ? top : a);
        b = !(b >= 0) ? 0 : (b > top ? top : b);
        lo[d] = (int32_t)a;
        hi[d] = (int32_t)b > lo[d] + 4 ? lo[d] + 4 : (int32_t)b;
    }
}

/// The cells of gr_cell_grid_reach_cells as sorted-position ranges, one per row as in
/// gr_cell_grid_block_rows. Returns the number of rows. With cells of half the reach the
/// cells visited hold about 0.58 of the points a 3x3x3 block of reach-sized cells holds.
static inline uint32_t gr_cell_grid_reach_rows(const gr_cell_grid *g, gr_vec3 p, double reach,
                                               uint32_t begin[GR_CELL_GRID_REACH_ROWS],
                                               uint32_t end[GR_CELL_GRID_REACH_ROWS])
{
    int32_t lo[3], hi[3];
    gr_cell_grid_reach_cells(g, p, reach, lo, hi);
    uint32_t rows = 0;
    for (int32_t a = lo[0]; a <= hi[0]; a++)
        for (int32_t b = lo[1]; b <= hi[1]; b++) {
            const int32_t c0[3] = {a, b, lo[2]};
            const uint32_t first = gr_cell_grid_index(g, c0);
            begin[rows] = g->cell_start[first];
            end[rows++] = g->cell_start[first + (uint32_t)(hi[2] - lo[2]) + 1];
        }
    return rows;
}

#endif /* GR_GRID_CELL_GRID_H */
