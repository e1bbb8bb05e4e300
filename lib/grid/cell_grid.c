/* SPDX-License-Identifier: MIT */
#include "cell_grid.h"

#include <math.h>

#include "../core/sort.h"

void gr_cell_grid_init(gr_cell_grid *g) { memset(g, 0, sizeof *g); }

void gr_cell_grid_free(gr_cell_grid *g, gr_mem *mem)
{
    gr_mem_free(mem, g->cell_start, sizeof(uint32_t) * ((size_t)g->cap_cells + 1));
    gr_mem_free(mem, g->order, sizeof(uint32_t) * g->cap_points);
    gr_mem_free(mem, g->cell_of, sizeof(uint32_t) * g->cap_points);
    gr_cell_grid_init(g);
}


/* Sample quantiles of one coordinate (stride-sampled, sorted): robust to far outliers. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void robust_range(const double *pos, size_t stride, uint32_t n, int axis, double *lo, double *hi)
{
    double sample[1024], scratch[1024];
    uint32_t m = n < 1024u ? n : 1024u;
    for (uint32_t k = 0; k < m; k++)
        sample[k] = pos[(size_t)((uint64_t)k * n / m) * stride + (size_t)axis];
    gr_sort(sample, m, sizeof(double), cmp_double, scratch);
    double a = sample[m / 100], b = sample[m - 1 - m / 100];
    double margin = 0.25 * (b - a);
    *lo = GR_MAX(*lo, a - margin);
    *hi = GR_MIN(*hi, b + margin);
}

static double cell_count(const double ext[3], double cell)
{
    double total = 1;
    for (int a = 0; a < 3; a++)
        total *= floor(ext[a] / cell) + 1;
    return total;
}

bool gr_cell_grid_reserve(gr_cell_grid *g, gr_mem *mem, uint32_t points, uint32_t cells)
{
    if (cells > g->cap_cells) {
        uint32_t cap = gr_grow_capacity(g->cap_cells, cells);
        uint32_t *cs = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ((size_t)cap + 1));
        if (!cs)
            return false;
        if (g->cell_start)
            memcpy(cs, g->cell_start, sizeof(uint32_t) * (g->index.count + 1)); /* the grid stays usable */
        gr_mem_free(mem, g->cell_start, sizeof(uint32_t) * ((size_t)g->cap_cells + 1));
        g->cell_start = cs;
        g->cap_cells = cap;
    }
    if (points > g->cap_points) {
        uint32_t cap = gr_grow_capacity(g->cap_points, points);
        gr_array_ref arrays[2] = {{(void **)&g->order, sizeof(uint32_t)}, {(void **)&g->cell_of, sizeof(uint32_t)}};
        if (!gr_mem_grow_arrays(mem, arrays, 2, g->cap_points, cap, g->n))
            return false;
        g->cap_points = cap;
    }
    return true;
}

bool gr_cell_grid_build(gr_cell_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n,
                        double cell_size, uint32_t max_cells)
{
    return gr_cell_grid_build_padded(g, mem, pos, stride, n, cell_size, max_cells, 0.0);
}

bool gr_cell_grid_build_padded(gr_cell_grid *g, gr_mem *mem, const double *pos, size_t stride, uint32_t n,
                               double cell_size, uint32_t max_cells, double pad)
{
    gr_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        const double *p = pos + (size_t)i * stride;
        lo.x = p[0] < lo.x ? p[0] : lo.x; hi.x = p[0] > hi.x ? p[0] : hi.x;
        lo.y = p[1] < lo.y ? p[1] : lo.y; hi.y = p[1] > hi.y ? p[1] : hi.y;
        lo.z = p[2] < lo.z ? p[2] : lo.z; hi.z = p[2] > hi.z ? p[2] : hi.z;
    }
    if (n == 0) {
        lo = (gr_vec3){0, 0, 0};
        hi = lo;
    }
    if (pad > 0 && n > 0) {
        lo = (gr_vec3){lo.x - pad, lo.y - pad, lo.z - pad};
        hi = (gr_vec3){hi.x + pad, hi.y + pad, hi.z + pad};
    }
    if (max_cells < 1)
        max_cells = 1;
    g->lo = lo;
    g->hi = hi;
    double cell = cell_size > 0 ? cell_size : 1.0;
    double ext[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    for (int a = 0; a < 3; a++)
        if (!(ext[a] <= 1e300))
            ext[a] = 1e300; /* overflowing spans: the cell growth below still terminates */
    bool clamped = false;
    if (cell_count(ext, cell) > (double)max_cells && n > 0) {
        clamped = true;
        /* A few far grains (splashed, falling) would stretch the grid. Cover the bulk instead:
         * points outside are clamped into the edge cells, which keeps every pair within one
         * cell of each other in adjacent cells (clamping never moves two points apart). */
        double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
        for (int a = 0; a < 3; a++) {
            robust_range(pos, stride, n, a, &l[a], &h[a]);
            ext[a] = GR_MIN(h[a] - l[a], 1e300);
        }
        lo = (gr_vec3){l[0], l[1], l[2]};
    }
    double dims_d[3];
    for (;;) {
        double total = 1;
        for (int a = 0; a < 3; a++) {
            dims_d[a] = floor(ext[a] / cell) + 1;
            total *= dims_d[a];
        }
        if (total <= (double)max_cells || !isfinite(cell))
            break;
        cell *= fmax(1.01, cbrt(total / (double)max_cells));
    }
    /* Longest axis first (most slabs for parallel work), then the others by extent. */
    int axis[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (dims_d[axis[j]] > dims_d[axis[i]]) { int t = axis[i]; axis[i] = axis[j]; axis[j] = t; }
    uint32_t ncells = (uint32_t)(dims_d[0] * dims_d[1] * dims_d[2]);

    if (ncells > g->cap_cells) {
        uint32_t cap = gr_grow_capacity(g->cap_cells, ncells);
        uint32_t *cs = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ((size_t)cap + 1));
        if (!cs)
            return false;
        gr_mem_free(mem, g->cell_start, sizeof(uint32_t) * ((size_t)g->cap_cells + 1));
        g->cell_start = cs;
        g->cap_cells = cap;
    }
    if (n > g->cap_points) {
        uint32_t cap = gr_grow_capacity(g->cap_points, n);
        gr_array_ref arrays[2] = {{(void **)&g->order, sizeof(uint32_t)}, {(void **)&g->cell_of, sizeof(uint32_t)}};
        if (!gr_mem_grow_arrays(mem, arrays, 2, g->cap_points, cap, 0))
            return false;
        g->cap_points = cap;
    }
    const int32_t dims[3] = {(int32_t)dims_d[0], (int32_t)dims_d[1], (int32_t)dims_d[2]};
    g->index = gr_grid_index_make_axes(lo, cell, dims, axis);
    for (int k = 0; k < 3; k++) {
        g->axis[k] = axis[k];
        g->dims[k] = dims[axis[k]];
    }
    g->n = n;
    g->clamped = clamped;

    uint32_t *count = g->cell_start;
    memset(count, 0, sizeof(uint32_t) * ((size_t)ncells + 1));
    for (uint32_t i = 0; i < n; i++) {
        const double *p = pos + (size_t)i * stride;
        int32_t c[3];
        gr_cell_grid_coords(g, (gr_vec3){p[0], p[1], p[2]}, c);
        uint32_t idx = gr_cell_grid_index(g, c);
        g->cell_of[i] = idx;
        count[idx + 1]++;
    }
    for (uint32_t c = 0; c < ncells; c++)
        count[c + 1] += count[c];
    /* Scatter using cell_start as a running cursor, then shift it back. */
    for (uint32_t i = 0; i < n; i++)
        g->order[count[g->cell_of[i]]++] = i;
    for (uint32_t c = ncells; c > 0; c--)
        count[c] = count[c - 1];
    count[0] = 0;
    return true;
}
