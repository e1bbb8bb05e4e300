/* SPDX-License-Identifier: MIT */
/* The continuum's box QPs on their unfixed variables only. In the pressure, density and friction
 * problems most of the sparse grid's cells are fixed (lo == hi: air, and coefficients without a
 * bound: two thirds of them on the hourglass), yet a matrix-free matvec and MPRGP's vector loops
 * run over every cell. Here the cells a solve moves are listed once, the operator restricted to
 * them is assembled into an ELL matrix (lib/qp/qp_ell.h; its stencil: weighted one-directional
 * differences, A = sum over face grids of k2 Delta^T W Delta, plus eps I), the couplings to fixed
 * cells go into the linear term (q_F + A_FX x_X), and MPRGP runs on the compact vectors. Same
 * problem, same answer up to rounding (the sums of a row are taken in another order).
 * Only where no free body is coupled in (their low-rank terms span whole bodies). */
#ifndef GR_CONTINUUM_CONT_COMPACT_H
#define GR_CONTINUUM_CONT_COMPACT_H

#include "../qp/qp_ell.h"
#include "cont_ops.h"

/// Order of the compact variables. The default (0) is the grid's: with MPRGP's sequential
/// symmetric Gauss-Seidel, red-black takes 20-30 % more iterations (docs/continuum.md); it is
/// there for a red-black parallel sweep (a.color_split).
typedef enum cont_compact_order {
    CONT_COMPACT_NATURAL = 0,   ///< the grid's cell order
    CONT_COMPACT_RED_BLACK = 1, ///< cells with i + j + k even, then odd (in cell order within each)
} cont_compact_order;

/// Storage of one compact solve at a time (the pressure, density and friction solves share one).
typedef struct cont_compact {
    gr_qp_ell a;      ///< the operator on the unfixed cells (a.color_split: the red-black split)
    uint32_t *cell;   ///< [cap] compact variable -> cell
    uint32_t *index;  ///< [cap] cell -> compact variable, GR_INVALID_INDEX where fixed
    double *q, *lo, *hi, *x; ///< [cap] the compact problem's vectors
    uint32_t cap;
    uint32_t *chunk_count; ///< [chunk_cap] the numbering's counts by chunk of cells and colour
    uint32_t chunk_cap;
    cont_compact_order order;
} cont_compact;

/// Room for grids of `cells` cells. Grows only; GR_ERROR_OUT_OF_MEMORY leaves cc as it was.
gr_status cont_compact_reserve(cont_compact *cc, gr_mem *mem, uint32_t cells);
void cont_compact_free(cont_compact *cc, gr_mem *mem);

/// One face grid of a stencil: along the direction e = o * (unit vector dir), the face between
/// c - e and c carries weight w[c]; the operator adds k2 w[c] (x_c - x_{c-e})^2 / 2 to the energy.
typedef struct cont_compact_axis {
    int dir, o;
    const double *w;
    double k2;
} cont_compact_axis;

/// Select the unfixed cells (lo < hi) of a grid of `cells` cells in cc->order and assemble the
/// operator eps I + sum over the axes (at most 3) of k2 Delta^T W Delta restricted to them; the
/// compact q = q_full + the couplings to the fixed cells at their value (lo), and the compact
/// lo, hi and x (x_full clamped into the box, as MPRGP's first step does). q_full NULL: 0 (the
/// caller adds its linear term to cc->q). Returns n. On cc->a.tasks (NULL: here) by fixed chunks
/// of cells and rows: the same numbering and entries for any worker count.
uint32_t cont_compact_assemble(cont_compact *cc, const gr_sparse_grid *g, const cont_compact_axis *axes, int count,
                               double eps, const double *q_full, const double *lo, const double *hi,
                               const double *x_full);

/// MPRGP on the assembled problem from cc->x (the answer there), settings as given (their
/// tolerance that of the compact q; the sweeps by colour when the order is red-black).
gr_status cont_compact_solve(cont_compact *cc, const gr_qp_settings *settings, gr_qp_workspace *ws, gr_qp_stats *stats);

/// MPRGP (settings as given, diag from the assembled matrix) on the assembled problem, its
/// tolerance that of the full problem (rel_tol times ||q_full||, cells entries, as abs_tol), then
/// x_full <- the answer on the unfixed cells and lo on the fixed ones. stats as gr_qp_mprgp's,
/// the objective the compact problem's (the full one's less a constant). On an error x_full is
/// as given.
gr_status cont_compact_mprgp(cont_compact *cc, const gr_qp_settings *settings, const double *q_full, uint32_t cells,
                             const double *lo, gr_qp_workspace *ws, double *x_full, gr_qp_stats *stats);

#endif /* GR_CONTINUUM_CONT_COMPACT_H */
