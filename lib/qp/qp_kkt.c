/* SPDX-License-Identifier: MIT */
#include "qp_kkt.h"

double gr_qp_projected_gradient_norm(uint32_t n, const double *x, const double *g, const double *lo,
                                     const double *hi)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double gp = gr_qp_gp_component(x[i], g[i], lo ? lo[i] : -INFINITY, hi ? hi[i] : INFINITY);
        s += gp * gp;
    }
    return sqrt(s);
}

gr_status gr_qp_kkt_measure(const gr_qp_problem *prob, const double *x, double *g, gr_qp_kkt *out)
{
    if (!prob || !out)
        return GR_ERROR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    const uint32_t n = prob->n;
    if (n == 0)
        return GR_OK;
    if (!prob->apply || !x || !g)
        return GR_ERROR_NULL_ARGUMENT;
    prob->apply(prob->ctx, x, g);
    double gp2 = 0.0, xax = 0.0, qx = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const double lo = gr_qp_lo(prob, i), hi = gr_qp_hi(prob, i), q = prob->q ? prob->q[i] : 0.0;
        xax += x[i] * g[i];
        qx += q * x[i];
        g[i] += q;
        const double out_of_box = GR_MAX(lo - x[i], x[i] - hi);
        out->infeasibility = GR_MAX(out->infeasibility, out_of_box);
        const double gp = gr_qp_gp_component(x[i], g[i], lo, hi);
        gp2 += gp * gp;
        out->gp_max = GR_MAX(out->gp_max, fabs(gp));
        const double dist = GR_MIN(fabs(x[i] - lo), fabs(hi - x[i]));
        if (isfinite(dist))
            out->complementarity = GR_MAX(out->complementarity, fabs(g[i]) * dist);
    }
    out->gp_norm = sqrt(gp2);
    out->objective = 0.5 * xax + qx;
    return GR_OK;
}
