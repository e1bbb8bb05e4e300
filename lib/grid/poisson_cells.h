/* SPDX-License-Identifier: MIT */
/* Cell-based Poisson-disk sampling (Sommer & Schwanecke sec. 4), the one sampler behind the
 * fills' Poisson pattern and the render points. For samples at least d apart the cells have
 * edge d / sqrt 3: a cell's diagonal is d, so it holds at most one sample. The cells are
 * visited in their index's linear order; each cell the caller admits gets up to `tries`
 * uniform candidates, and the first candidate the caller accepts is the cell's sample. What a
 * sample must keep clear of (spheres of other radii, other samples, bodies, a region's
 * boundary) is the caller's test, so one loop serves grains and render points alike.
 * Header-only: the two hooks inline into each caller's loop. */
#ifndef GR_GRID_POISSON_CELLS_H
#define GR_GRID_POISSON_CELLS_H

#include <math.h>

#include "../core/rng.h"
#include "grid_index.h"

/// A hook's answer.
typedef enum gr_sample_verdict {
    GR_SAMPLE_NO = 0,  ///< cell hook: skip the cell; candidate hook: try the next candidate
    GR_SAMPLE_YES = 1, ///< cell hook: try candidates in it; candidate hook: the cell's sample
    GR_SAMPLE_STOP = 2 ///< end the sampling (a limit reached, or an error the caller keeps)
} gr_sample_verdict;

/// Cell c (world-axis coordinates, linear index `cell`): may draw from rng before its candidates.
typedef gr_sample_verdict (*gr_sample_cell_fn)(void *ctx, const int32_t c[3], size_t cell, gr_rng *rng);
/// Candidate p in cell c: may draw from rng (after the candidate's three draws).
typedef gr_sample_verdict (*gr_sample_candidate_fn)(void *ctx, const int32_t c[3], size_t cell, gr_vec3 p, gr_rng *rng);

/// The cells for samples at least `spacing` apart over [lo, hi]: edge spacing / sqrt 3, at least
/// one per axis, in `order`. *cells is their number (a double: it may exceed any integer); false
/// (out untouched) when that is more than max_cells or not a number.
static inline bool gr_poisson_cells_fit(gr_vec3 lo, gr_vec3 hi, double spacing, double max_cells, gr_grid_order order,
                                        gr_grid_index *out, double *cells)
{
    const double a = spacing / sqrt(3.0);
    double n[3], total = 1;
    for (int d = 0; d < 3; d++) {
        const double k = ceil((v3_get(hi, d) - v3_get(lo, d)) / a);
        n[d] = k > 1.0 ? k : 1.0;
        total *= n[d];
    }
    *cells = total;
    if (!(total <= max_cells))
        return false;
    const int32_t dims[3] = {(int32_t)n[0], (int32_t)n[1], (int32_t)n[2]};
    *out = gr_grid_index_make(lo, a, dims, order);
    return true;
}

/// Visit the cells of ix in linear order (see the file comment). Candidates are drawn uniformly
/// in the cell: three draws (x, y, z) each. Returns false when a hook said GR_SAMPLE_STOP.
static inline bool gr_poisson_cells_sample(const gr_grid_index *ix, uint32_t tries, gr_rng *rng, gr_sample_cell_fn admit,
                                           gr_sample_candidate_fn accept, void *ctx)
{
    /* the loops nest as the linear index does: the axis of the largest stride outermost (equal
     * strides mean a single cell along one of the two axes, so their order does not matter) */
    int ax[3] = {0, 1, 2};
    for (int i = 0; i < 2; i++)
        for (int j = i + 1; j < 3; j++)
            if (ix->stride[ax[j]] > ix->stride[ax[i]]) {
                const int t = ax[i];
                ax[i] = ax[j];
                ax[j] = t;
            }
    const int32_t n0 = ix->dims[ax[0]], n1 = ix->dims[ax[1]], n2 = ix->dims[ax[2]];
    const size_t s2 = ix->stride[ax[2]];
    /* (in locals: the hooks write memory, so the index's fields would be read again each time) */
    const double lx = ix->lo.x, ly = ix->lo.y, lz = ix->lo.z, a = ix->cell;
    for (int32_t o = 0; o < n0; o++)
        for (int32_t m = 0; m < n1; m++) {
            /* the linear index stepped along the row (most cells are passed over at once) */
            size_t cell = (size_t)o * ix->stride[ax[0]] + (size_t)m * ix->stride[ax[1]];
            for (int32_t i = 0; i < n2; i++, cell += s2) {
                int32_t c[3];
                c[ax[0]] = o, c[ax[1]] = m, c[ax[2]] = i;
                const gr_sample_verdict go = admit(ctx, c, cell, rng);
                if (go == GR_SAMPLE_STOP)
                    return false;
                if (go == GR_SAMPLE_NO)
                    continue;
                const double fx = (double)c[0], fy = (double)c[1], fz = (double)c[2];
                for (uint32_t t = 0; t < tries; t++) {
                    /* (one draw per declarator: an initializer list's order is unspecified) */
                    const double ux = gr_rng_uniform(rng), uy = gr_rng_uniform(rng), uz = gr_rng_uniform(rng);
                    const gr_vec3 p = {lx + a * (fx + ux), ly + a * (fy + uy), lz + a * (fz + uz)};
                    const gr_sample_verdict v = accept(ctx, c, cell, p, rng);
                    if (v == GR_SAMPLE_STOP)
                        return false;
                    if (v == GR_SAMPLE_YES)
                        break;
                }
            }
        }
    return true;
}

#endif /* GR_GRID_POISSON_CELLS_H */
