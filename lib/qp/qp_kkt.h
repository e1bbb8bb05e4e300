/* SPDX-License-Identifier: MIT */
/* The optimality certificate of a box QP (qp_box.h): x is a minimiser iff it is feasible and
 * its projected gradient g^P vanishes (the KKT conditions of a convex problem). The solvers
 * stop on ‖g^P‖; tests and debug statistics read the whole certificate. */
#ifndef GR_QP_QP_KKT_H
#define GR_QP_QP_KKT_H

#include "qp_box.h"

/// How far x is from optimal, each figure 0 at a minimiser.
typedef struct gr_qp_kkt {
    double infeasibility;   ///< max_i of how far x_i lies outside [lo_i, hi_i]
    double gp_norm;         ///< ‖g^P‖₂, the solvers' stopping figure
    double gp_max;          ///< ‖g^P‖∞; for an LCP (lo = 0, no hi): w_i ≥ -gp_max for every i
    /// max_i |g_i| · (distance from x_i to its nearer finite bound): |p_i w_i| for an LCP;
    /// variables with no finite bound count 0 (g^P holds them)
    double complementarity;
    double objective;       ///< f(x) = ½ xᵀA x + qᵀx
} gr_qp_kkt;

/// ‖g^P‖₂ at x given its gradient g = A x + q (lo, hi NULL = unbounded). x need not be feasible:
/// a variable beyond a bound counts as on it.
double gr_qp_projected_gradient_norm(uint32_t n, const double *x, const double *g, const double *lo,
                                     const double *hi);

/// The certificate of x: computes g = A x + q into g (n entries, the caller's) with one call of
/// prob->apply, then every figure. GR_ERROR_NULL_ARGUMENT without apply, x or g (n > 0).
gr_status gr_qp_kkt_measure(const gr_qp_problem *prob, const double *x, double *g, gr_qp_kkt *out);

#endif /* GR_QP_QP_KKT_H */
