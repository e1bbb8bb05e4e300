/* SPDX-License-Identifier: MIT */
/* MPRGP (Dostál & Schöberl 2005; Dostál 2009 for the box): conjugate gradients on the face of
 * the free variables, an expansion step that adds constraints when CG would leave the box, and
 * a proportioning step that releases active constraints when their chopped gradient dominates.
 * Within a face it is CG (error × ~(1 - 2/√cond A) a step) where projected Gauss-Seidel
 * gains 1 - O(1/cond A) a sweep: the solver of the continuum pressure and friction problems.
 * From a cold start on a problem whose answer has most variables on bounds, each expansion
 * adds only the constraints its step reaches, and PGS can need as few sweeps as MPRGP needs
 * matvecs (bench/qp.c); warm starts change the active set little. */
#ifndef GR_QP_QP_MPRGP_H
#define GR_QP_QP_MPRGP_H

#include "qp_box.h"

/// Minimise ½ xᵀA x + qᵀx on lo ≤ x ≤ hi (qp_box.h), A symmetric positive semidefinite, with f
/// bounded below on the box. x (n entries) is the warm start, projected onto the box first, and
/// the answer. settings NULL = defaults; stats may be NULL. ws must hold n entries
/// (gr_qp_workspace_reserve); nothing is allocated. Deterministic: the vector loops run on
/// settings.tasks for large n, the sweeps too with settings.color_split, bit-identical for any
/// worker count (apply may use the caller's threads).
/// Returns GR_OK when it converged and when it stopped at settings.max_iter (stats.converged
/// tells which). Errors leave x exactly as given (restored from the workspace once the
/// iteration has begun), stats.converged false, gp_norm and objective NaN:
/// - GR_ERROR_NULL_ARGUMENT: prob, ws or (n > 0) x or apply missing; diag with jacobi or sgs;
///   row with sgs (n > 0);
/// - GR_ERROR_INVALID_ARGUMENT: lo > hi, lo = +inf, hi = -inf, diag ≤ 0 with jacobi or sgs, ws too
///   small (its MIC vectors too, where settings.mic applies: sgs on a gr_qp_ell problem),
///   color_split > n, settings out of range (GR_ERROR_UNKNOWN_ENUM: settings.expansion);
/// - GR_ERROR_NOT_FINITE: NaN in lo/hi, non-finite q, x or diag; or the iteration met a
///   non-finite value (apply returned one, or f is unbounded below on the box: A indefinite,
///   or PSD with q not orthogonal to a null direction the bounds leave open).
gr_status gr_qp_mprgp(const gr_qp_problem *prob, const gr_qp_settings *settings, gr_qp_workspace *ws, double *x,
                      gr_qp_stats *stats);

#endif /* GR_QP_QP_MPRGP_H */
