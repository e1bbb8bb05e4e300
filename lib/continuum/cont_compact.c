/* SPDX-License-Identifier: MIT */
#include "cont_compact.h"

#include "../qp/qp_mprgp.h"

static uint32_t arrays(cont_compact *cc, gr_array_ref *a)
{
    uint32_t k = 0;
    a[k++] = (gr_array_ref){(void **)&cc->cell, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&cc->index, sizeof(uint32_t)};
    double **v[] = {&cc->q, &cc->lo, &cc->hi, &cc->x};
    for (size_t i = 0; i < GR_COUNTOF(v); i++)
        a[k++] = (gr_array_ref){(void **)v[i], sizeof(double)};
    return k;
}
#define COMPACT_ARRAYS 6

gr_status cont_compact_reserve(cont_compact *cc, gr_mem *mem, uint32_t cells)
{
    if (cells <= cc->cap)
        return GR_OK;
    const gr_status s = gr_qp_ell_reserve(&cc->a, mem, cells);
    if (s != GR_OK)
        return s;
    const uint32_t cap = cc->a.cap; /* (the same growth: one capacity for both) */
    gr_array_ref a[COMPACT_ARRAYS];
    if (!gr_mem_grow_arrays(mem, a, arrays(cc, a), cc->cap, cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    cc->cap = cap;
    return GR_OK;
}

void cont_compact_free(cont_compact *cc, gr_mem *mem)
{
    gr_array_ref a[COMPACT_ARRAYS];
    gr_mem_free_arrays(mem, a, arrays(cc, a), cc->cap);
    cc->cap = 0;
    gr_qp_ell_free(&cc->a, mem);
}

/* i + j + k of a cell is odd: a block's corner is a multiple of 4 on each axis, so the local
 * coordinates decide. */
static inline uint32_t parity(uint32_t c) { return ((c & 3u) + ((c >> 2) & 3u) + ((c >> 4) & 3u)) & 1u; }

/* One coupling of row i to cell nb with value v into slot j: to an unfixed cell a matrix entry,
 * to a fixed one a term of the linear part (nb at its value lo[nb]). */
static inline void couple(cont_compact *cc, uint32_t i, uint32_t j, uint32_t nb, double v, const double *lo, double *qi)
{
    const uint32_t col = cc->index[nb];
    if (col != GR_INVALID_INDEX)
        gr_qp_ell_set(&cc->a, i, j, col, v);
    else
        *qi += v * lo[nb];
}

uint32_t cont_compact_assemble(cont_compact *cc, const gr_sparse_grid *g, const cont_compact_axis *axes, int count,
                               double eps, const double *q_full, const double *lo, const double *hi,
                               const double *x_full)
{
    const uint32_t cells = gr_sparse_grid_cells(g);
    uint32_t n = 0, split = 0;
    for (uint32_t c = 0; c < cells; c++)
        cc->index[c] = GR_INVALID_INDEX;
    const uint32_t passes = cc->order == CONT_COMPACT_RED_BLACK ? 2u : 1u;
    for (uint32_t pass = 0; pass < passes; pass++) {
        for (uint32_t c = 0; c < cells; c++)
            if (lo[c] < hi[c] && (passes == 1 || parity(c) == pass)) {
                cc->cell[n] = c;
                cc->index[c] = n++;
            }
        if (pass == 0)
            split = n;
    }
    gr_qp_ell_shape(&cc->a, n, 2u * (uint32_t)count); /* (each row filled whole below) */
    if (passes == 2)
        cc->a.color_split = split;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t c = cc->cell[i];
        double d = eps, qi = q_full ? q_full[c] : 0.0;
        gr_qp_ell_clear_row(&cc->a, i);
        for (int j = 0; j < count; j++) {
            const cont_compact_axis *ax = &axes[j];
            const int dx = ax->dir == 0 ? ax->o : 0, dy = ax->dir == 1 ? ax->o : 0, dz = ax->dir == 2 ? ax->o : 0;
            const uint32_t back = gr_sparse_grid_neighbor(g, c, -dx, -dy, -dz);
            const uint32_t ahead = gr_sparse_grid_neighbor(g, c, dx, dy, dz);
            /* the face to c - e (outside the grid: a neighbour held at 0, the diagonal's term only) */
            const double wb = ax->k2 * ax->w[c];
            d += wb;
            if (back != GR_INVALID_INDEX)
                couple(cc, i, 2u * (uint32_t)j, back, -wb, lo, &qi);
            if (ahead != GR_INVALID_INDEX) {
                const double wa = ax->k2 * ax->w[ahead];
                d += wa;
                couple(cc, i, 2u * (uint32_t)j + 1u, ahead, -wa, lo, &qi);
            }
        }
        cc->a.diag[i] = d;
        cc->q[i] = qi;
        cc->lo[i] = lo[c];
        cc->hi[i] = hi[c];
        cc->x[i] = gr_qp_clamp(x_full[c], lo[c], hi[c]);
    }
    return n;
}

gr_status cont_compact_solve(cont_compact *cc, const gr_qp_settings *settings, gr_qp_workspace *ws, gr_qp_stats *stats)
{
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    /* (red-black rows: the sweeps by colour, each colour's rows on the workers) */
    if (set.sgs && cc->a.color_split < cc->a.n)
        set.color_split = cc->a.color_split;
    const gr_qp_problem pr = gr_qp_ell_problem(&cc->a, cc->q, cc->lo, cc->hi);
    return gr_qp_mprgp(&pr, &set, ws, cc->x, stats);
}

gr_status cont_compact_mprgp(cont_compact *cc, const gr_qp_settings *settings, const double *q_full, uint32_t cells,
                             const double *lo, gr_qp_workspace *ws, double *x_full, gr_qp_stats *stats)
{
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    /* the full problem's tolerance: its ||q|| holds the fixed cells' entries too (as MPRGP's, up
     * to the order of the sum) */
    const double rel = set.rel_tol == 0 && set.abs_tol == 0 ? gr_qp_settings_default().rel_tol : set.rel_tol;
    double qn = 0.0;
    for (uint32_t c = 0; c < cells; c++)
        qn += q_full[c] * q_full[c];
    const double tol = GR_MAX(set.abs_tol, rel * sqrt(qn));
    if (tol > 0 && isfinite(tol)) {
        set.abs_tol = tol;
        set.rel_tol = 0;
    }
    const gr_status s = cont_compact_solve(cc, &set, ws, stats);
    if (s != GR_OK)
        return s;
    for (uint32_t c = 0; c < cells; c++) {
        const uint32_t i = cc->index[c];
        x_full[c] = i == GR_INVALID_INDEX ? lo[c] : cc->x[i];
    }
    return GR_OK;
}
