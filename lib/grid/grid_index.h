/* SPDX-License-Identifier: MIT */
/* The index of a uniform grid: its corner, cell edge and cell counts, how a point finds its
 * cell, and how cell coordinates become one linear index. Every uniform grid of the library is
 * laid out by one (the cell grid's counting sort, the fills' overlap buckets, the mesh query's
 * triangle bins, the mesh distance field, the freeze marks, the render points' sampling
 * lattice); each keeps its own sizing rule and contents. Coordinates are per world axis
 * (x, y, z); the order given at creation says which axis varies slowest in the linear index
 * (the strides hold it). */
#ifndef GR_GRID_GRID_INDEX_H
#define GR_GRID_GRID_INDEX_H

#include <math.h>
#include <stddef.h>

#include "../core/vec3.h"

/// The linear order of the cells: the world axis that varies slowest first.
typedef enum gr_grid_order {
    GR_GRID_X_SLOWEST, ///< ((x d_y + y) d_z + z): rows of z
    GR_GRID_Z_SLOWEST  ///< ((z d_y + y) d_x + x): rows of x
} gr_grid_order;

typedef struct gr_grid_index {
    gr_vec3 lo;       ///< the corner of cell (0, 0, 0)
    double cell;      ///< cell edge [m]
    double inv_cell;  ///< 1 / cell
    int32_t dims[3];  ///< cells along x, y, z (each >= 1)
    size_t count;     ///< dims[0] dims[1] dims[2]
    double lo_axis[3];  ///< lo by axis (the lookups index it)
    size_t stride[3];   ///< linear index = x stride[0] + y stride[1] + z stride[2]
} gr_grid_index;

/// An index of dims cells (per world axis) of edge `cell` from corner lo, whose linear order
/// has world axis slowest_first[0] slowest and slowest_first[2] fastest.
static inline gr_grid_index gr_grid_index_make_axes(gr_vec3 lo, double cell, const int32_t dims[3],
                                                    const int slowest_first[3])
{
    gr_grid_index g = {lo, cell, 1.0 / cell, {dims[0], dims[1], dims[2]}, 0, {lo.x, lo.y, lo.z}, {0, 0, 0}};
    const size_t fast = (size_t)dims[slowest_first[2]], mid = (size_t)dims[slowest_first[1]];
    g.count = (size_t)dims[slowest_first[0]] * mid * fast;
    g.stride[slowest_first[2]] = 1;
    g.stride[slowest_first[1]] = fast;
    g.stride[slowest_first[0]] = mid * fast;
    return g;
}

/// An index of dims cells of edge `cell` from corner lo.
static inline gr_grid_index gr_grid_index_make(gr_vec3 lo, double cell, const int32_t dims[3], gr_grid_order order)
{
    static const int x_slowest[3] = {0, 1, 2}, z_slowest[3] = {2, 1, 0};
    return gr_grid_index_make_axes(lo, cell, dims, order == GR_GRID_X_SLOWEST ? x_slowest : z_slowest);
}

/// Cells of at least `cell` covering [lo, lo + ext] (floor(ext / cell) + 1 per axis), the edge
/// grown by 1.25 until at most max_cells cells.
static inline gr_grid_index gr_grid_index_fit(gr_vec3 lo, gr_vec3 ext, double cell, double max_cells,
                                              gr_grid_order order)
{
    for (;;) {
        double total = 1;
        for (int a = 0; a < 3; a++)
            total *= floor(v3_get(ext, a) / cell) + 1;
        if (total <= max_cells)
            break;
        cell *= 1.25;
    }
    int32_t dims[3];
    for (int a = 0; a < 3; a++)
        dims[a] = (int32_t)(floor(v3_get(ext, a) / cell) + 1);
    return gr_grid_index_make(lo, cell, dims, order);
}

/// The cell coordinate of x along world axis a, clamped into the grid (below: 0, beyond: the
/// last cell, not a number: 0).
static inline int32_t gr_grid_index_clamp(const gr_grid_index *g, double x, int a)
{
    const double t = floor((x - g->lo_axis[a]) * g->inv_cell);
    return !(t >= 0) ? 0 : (t >= g->dims[a] ? g->dims[a] - 1 : (int32_t)t);
}

/// The cell of p, false when p lies outside the grid (or is not finite).
static inline bool gr_grid_index_cell(const gr_grid_index *g, gr_vec3 p, int32_t c[3])
{
    for (int a = 0; a < 3; a++) {
        const double t = (v3_get(p, a) - g->lo_axis[a]) * g->inv_cell;
        if (!(t >= 0 && t < (double)g->dims[a]))
            return false;
        c[a] = (int32_t)t;
    }
    return true;
}

/// The linear index of cell (x, y, z).
static inline size_t gr_grid_index_at(const gr_grid_index *g, int32_t x, int32_t y, int32_t z)
{
    return (size_t)x * g->stride[0] + (size_t)y * g->stride[1] + (size_t)z * g->stride[2];
}

#endif /* GR_GRID_GRID_INDEX_H */
