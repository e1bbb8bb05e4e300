/* SPDX-License-Identifier: MIT */
/* Projected Gauss-Seidel for the box QP (qp_box.h): the reference MPRGP is compared with.
 * Coordinate descent, each variable in index order minimised exactly (ω = 1) and clamped into
 * its bounds; converges for A positive definite, slowly (rate 1 - O(1/cond A)). */
#ifndef GR_QP_QP_PGS_H
#define GR_QP_QP_PGS_H

#include "qp_box.h"

/// x_i ← clamp(x_i - ω ((A x)_i + q_i) / A_ii, lo_i, hi_i) for i = 0 … n-1 (fixed variables
/// skipped), sweep after sweep, until ‖g^P‖ ≤ tolerance (tested before each sweep on g = A x + q
/// from apply, or from n rows when apply is NULL: one matvec a sweep) or settings.max_iter
/// sweeps. Needs prob->row and prob->diag; x is the warm start (projected first) and the
/// answer; settings NULL = defaults; stats may be NULL (iterations = sweeps). Returns and
/// errors as gr_qp_mprgp (qp_mprgp.h): GR_OK also at max_iter; on error x is as given.
gr_status gr_qp_pgs(const gr_qp_problem *prob, const gr_qp_settings *settings, gr_qp_workspace *ws, double *x,
                    gr_qp_stats *stats);

#endif /* GR_QP_QP_PGS_H */
