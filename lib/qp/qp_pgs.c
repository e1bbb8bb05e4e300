/* SPDX-License-Identifier: MIT */
#include "qp_pgs.h"

#include "qp_kkt.h"

/* g = A x + q, from apply when there is one, else row by row */
static void gradient(const gr_qp_problem *prob, const double *x, double *g)
{
    if (prob->apply)
        prob->apply(prob->ctx, x, g);
    else
        for (uint32_t i = 0; i < prob->n; i++)
            g[i] = prob->row(prob->ctx, i, x);
    if (prob->q)
        for (uint32_t i = 0; i < prob->n; i++)
            g[i] += prob->q[i];
}

gr_status gr_qp_pgs(const gr_qp_problem *prob, const gr_qp_settings *settings, gr_qp_workspace *ws, double *x,
                    gr_qp_stats *stats)
{
    gr_qp_stats st;
    memset(&st, 0, sizeof st);
    st.gp_norm = st.objective = NAN;
    gr_qp_settings set;
    gr_status status = gr_qp_check_input(prob, settings, ws, x, true, &set);
    if (status == GR_OK && prob->n > 0 && !prob->row)
        status = GR_ERROR_NULL_ARGUMENT;
    if (status != GR_OK) {
        if (stats)
            *stats = st;
        return status;
    }
    const uint32_t n = prob->n;
    const double *q = prob->q, *diag = prob->diag;
    double qnorm = 0.0;
    for (uint32_t i = 0; q && i < n; i++)
        qnorm += q[i] * q[i];
    st.tolerance = GR_MAX(set.abs_tol, set.rel_tol * sqrt(qnorm));
    if (n == 0) {
        st.converged = true;
        st.gp_norm = st.objective = 0.0;
        if (stats)
            *stats = st;
        return GR_OK;
    }
    double *g = ws->g;
    memcpy(ws->x0, x, sizeof(double) * n);
    for (uint32_t i = 0; i < n; i++)
        x[i] = gr_qp_clamp(x[i], gr_qp_lo(prob, i), gr_qp_hi(prob, i));
    for (;;) {
        gradient(prob, x, g);
        st.matvecs++;
        st.gp_norm = gr_qp_projected_gradient_norm(n, x, g, prob->lo, prob->hi);
        if (!isfinite(st.gp_norm))
            break;
        if (st.gp_norm <= st.tolerance || st.iterations == set.max_iter)
            break;
        for (uint32_t i = 0; i < n; i++) {
            const double lo = gr_qp_lo(prob, i), hi = gr_qp_hi(prob, i);
            if (lo == hi)
                continue;
            const double r = prob->row(prob->ctx, i, x) + (q ? q[i] : 0.0);
            x[i] = gr_qp_clamp(x[i] - set.omega * r / diag[i], lo, hi);
        }
        st.iterations++;
    }
    double f = 0.0; /* f = ½ xᵀ(g + q) */
    for (uint32_t i = 0; i < n; i++)
        f += x[i] * (g[i] + (q ? q[i] : 0.0));
    st.objective = 0.5 * f;
    if (!isfinite(st.gp_norm) || !isfinite(st.objective)) {
        memcpy(x, ws->x0, sizeof(double) * n);
        st.gp_norm = st.objective = NAN;
        if (stats)
            *stats = st;
        return GR_ERROR_NOT_FINITE;
    }
    st.converged = st.gp_norm <= st.tolerance;
    if (stats)
        *stats = st;
    return GR_OK;
}
