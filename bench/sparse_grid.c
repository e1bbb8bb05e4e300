/* SPDX-License-Identifier: MIT */
/* Benchmark of the sparse grid (lib/grid/sparse_grid.h): build and sort times for 100k and 1M
 * points in a region of 50 x 100 x 50 cells, the points in random order and sorted by cell (as
 * a solver that reorders its particles keeps them), and the bytes held per cell. Prints one
 * line per case:
 *   sparse-grid N=<n> order=<random|sorted> halo=<h> build_ms=<t> sort_ms=<t> blocks=<b>
 *   occupied_cells=<c> cells=<a> bytes=<B> grid_bytes_per_occupied_cell=<x> grid_bytes_per_cell=<y>
 * bytes is everything the grid holds; grid_bytes leaves out the per-point arrays (point_cell,
 * point_order: 8 bytes a point), per occupied cell (holding points) and per active cell (of the
 * active blocks). Times are the best of several warm builds (which allocate nothing). A
 * harness, not a test: it prints figures and checks nothing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../lib/core/rng.h"
#include "../lib/grid/sparse_grid.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t popcount64(uint64_t x)
{
    uint32_t k = 0;
    for (; x; x &= x - 1)
        k++;
    return k;
}

static void run(uint32_t n, int sorted, int halo)
{
    const double h = 0.02;
    const double ext[3] = {50 * h, 100 * h, 50 * h};
    gr_rng rng = {1234};
    double *p = (double *)malloc(sizeof(double) * 3 * n);
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            p[3 * i + a] = ext[a] * gr_rng_uniform(&rng);
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    if (!gr_sparse_grid_build(&g, &mem, p, 3, n, h, v3(0, 0, 0), halo) || !gr_sparse_grid_sort_points(&g, &mem)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (sorted) { /* the points in the grid's order */
        double *q = (double *)malloc(sizeof(double) * 3 * n);
        for (uint32_t k = 0; k < n; k++)
            for (int a = 0; a < 3; a++)
                q[3 * k + a] = p[3 * (size_t)g.point_order[k] + a];
        free(p);
        p = q;
    }
    double best_build = 1e30, best_sort = 1e30;
    for (int rep = 0; rep < 7; rep++) {
        const double t0 = now();
        const bool ok = gr_sparse_grid_build(&g, &mem, p, 3, n, h, v3(0, 0, 0), halo);
        const double t1 = now();
        const bool ok_sort = gr_sparse_grid_sort_points(&g, &mem);
        const double t2 = now();
        if (!ok || !ok_sort) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        best_build = t1 - t0 < best_build ? t1 - t0 : best_build;
        best_sort = t2 - t1 < best_sort ? t2 - t1 : best_sort;
    }
    uint32_t occupied = 0;
    for (uint32_t b = 0; b < g.block_count; b++)
        occupied += popcount64(g.block_points[b]);
    const size_t bytes = gr_sparse_grid_bytes(&g);
    const double grid = (double)(bytes - sizeof(uint32_t) * ((size_t)g.cap_points + g.cap_order));
    printf("sparse-grid N=%u order=%s halo=%d build_ms=%.2f sort_ms=%.2f blocks=%u occupied_cells=%u cells=%u bytes=%zu "
           "grid_bytes_per_occupied_cell=%.1f grid_bytes_per_cell=%.1f\n",
           n, sorted ? "sorted" : "random", halo, 1e3 * best_build, 1e3 * best_sort, g.block_count, occupied,
           gr_sparse_grid_cells(&g), bytes, grid / occupied, grid / gr_sparse_grid_cells(&g));
    gr_sparse_grid_free(&g, &mem);
    free(p);
}

int main(void)
{
    const uint32_t sizes[] = {100000, 1000000};
    for (int s = 0; s < 2; s++)
        for (int sorted = 0; sorted <= 1; sorted++)
            run(sizes[s], sorted, 1);
    run(1000000, 1, 3);
    return 0;
}
