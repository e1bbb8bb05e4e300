/* SPDX-License-Identifier: MIT */
/* MPRGP for the box, step by step as in docs/ (Dostál & Schöberl 2005). At a feasible x with
 * g = A x + q, on the free set F = {lo < x < hi}:
 *   φ   free gradient (g on F, 0 elsewhere); z = φ, or M⁻¹ φ preconditioned in face (M the
 *       diagonal of A_FF with Jacobi, its symmetric Gauss-Seidel splitting with sgs);
 *   β   chopped gradient (at a bound, the part of g that would move x into the box);
 *   φ̃   reduced free gradient: φ limited to what a step of ᾱ can take before a bound.
 * x is proportional when ‖β‖² ≤ Γ² φ̃ᵀφ; then a CG step along p, or, if the CG step would
 * leave the box, an expansion (the CG step projected onto the box, or to the boundary and
 * x ← P(x - ᾱ φ): qp_box.h, gr_qp_expansion); otherwise a proportioning step along β.
 * Every loop is sequential in index order: the sums, and so the iterates, are the same on
 * every run. */
#include "qp_mprgp.h"

#include "../core/rng.h"
#include "qp_kkt.h"

#define LANCZOS_STEPS 20u

typedef struct mp {
    const gr_qp_problem *prob;
    uint32_t n;
    const double *lo, *hi; /* NULL = unbounded */
    const double *q;       /* NULL = 0 */
    const double *jacobi;  /* diag when Jacobi preconditioning is on, else NULL */
    double *sgs;           /* scratch when symmetric Gauss-Seidel preconditioning is on, else NULL */
    double inv_abar;       /* 1 / ᾱ */
    double tol2;           /* the tolerance squared: a point within it needs no preconditioned z */
} mp;

/* The figures of one point, all from one pass over x and g. */
typedef struct mp_measure {
    double gp2;     /* ‖g^P‖² = ‖φ‖² + ‖β‖² */
    double beta2;   /* ‖β‖² */
    double phitphi; /* φ̃ᵀφ */
    double poison;  /* 0 unless some g_i is not finite (g_i · 0) */
} mp_measure;

static inline double lo_of(const mp *m, uint32_t i) { return m->lo ? m->lo[i] : -INFINITY; }
static inline double hi_of(const mp *m, uint32_t i) { return m->hi ? m->hi[i] : INFINITY; }

static double dot(uint32_t n, const double *a, const double *b)
{
    double s = 0.0;
    for (uint32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* g = A x + q */
static void gradient(const mp *m, const double *x, double *g)
{
    m->prob->apply(m->prob->ctx, x, g);
    if (m->q)
        for (uint32_t i = 0; i < m->n; i++)
            g[i] += m->q[i];
}

/* z ← M⁻¹ z on the free set, M = (D + L) D⁻¹ (D + U) the symmetric Gauss-Seidel splitting of
 * A restricted to the free variables (SPD when A is and D > 0): a forward sweep into the
 * scratch y, then a backward one into z. Rows read only the entries already swept (the others
 * are 0), so a row callback's (A v)_i is the sum over the swept neighbours. Index order:
 * deterministic. */
static void sgs_in_face(const mp *m, const double *x, double *z)
{
    const gr_qp_problem *pr = m->prob;
    double *y = m->sgs;
    memset(y, 0, sizeof(double) * m->n);
    for (uint32_t i = 0; i < m->n; i++)
        if (lo_of(m, i) < x[i] && x[i] < hi_of(m, i))
            y[i] = (z[i] - pr->row(pr->ctx, i, y)) / pr->diag[i];
    memset(z, 0, sizeof(double) * m->n);
    for (uint32_t i = m->n; i-- > 0;)
        if (lo_of(m, i) < x[i] && x[i] < hi_of(m, i))
            z[i] = y[i] - pr->row(pr->ctx, i, z) / pr->diag[i];
}

/* The measures of (x, g); z = the (preconditioned) free gradient. */
static mp_measure measure(const mp *m, const double *x, const double *g, double *z)
{
    mp_measure r = {0, 0, 0, 0};
    for (uint32_t i = 0; i < m->n; i++) {
        const double lo = lo_of(m, i), hi = hi_of(m, i), gi = g[i], xi = x[i];
        r.poison += gi * 0.0;
        z[i] = 0.0;
        if (lo == hi)
            continue;
        if (xi <= lo || xi >= hi) {
            const double b = xi <= lo ? GR_MIN(gi, 0.0) : GR_MAX(gi, 0.0);
            r.beta2 += b * b;
            continue;
        }
        /* free: how far a step of ᾱ along -φ can go before the bound it heads for */
        const double room = gi > 0 ? (xi - lo) * m->inv_abar : (xi - hi) * m->inv_abar;
        const double reduced = gi > 0 ? GR_MIN(room, gi) : GR_MAX(room, gi);
        r.phitphi += reduced * gi;
        r.gp2 += gi * gi;
        z[i] = m->jacobi ? gi / m->jacobi[i] : gi;
    }
    r.gp2 += r.beta2;
    if (m->sgs && r.gp2 > m->tol2) /* (at the answer z is not used: no sweeps) */
        sgs_in_face(m, x, z);
    return r;
}

/* The chopped gradient β into d. */
static void chopped(const mp *m, const double *x, const double *g, double *d)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const double lo = lo_of(m, i), hi = hi_of(m, i);
        d[i] = lo == hi ? 0.0 : x[i] <= lo ? GR_MIN(g[i], 0.0) : x[i] >= hi ? GR_MAX(g[i], 0.0) : 0.0;
    }
}

/* The longest α with x - α d in the box (INFINITY if unbounded along -d). */
static double feasible_step(const mp *m, const double *x, const double *d)
{
    double a = INFINITY;
    for (uint32_t i = 0; i < m->n; i++) {
        if (d[i] > 0)
            a = GR_MIN(a, (x[i] - lo_of(m, i)) / d[i]);
        else if (d[i] < 0)
            a = GR_MIN(a, (x[i] - hi_of(m, i)) / d[i]);
    }
    return a;
}

/* x ← x - α d, clamped into the box; a variable whose bound is reached within α lands on it
 * exactly (the same quotient as feasible_step), so the blocking variable leaves the free set. */
static void step_to_boundary(const mp *m, double *x, const double *d, double alpha)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const double lo = lo_of(m, i), hi = hi_of(m, i);
        if (d[i] > 0)
            x[i] = (x[i] - lo) / d[i] <= alpha ? lo : GR_MAX(x[i] - alpha * d[i], lo);
        else if (d[i] < 0)
            x[i] = (x[i] - hi) / d[i] <= alpha ? hi : GR_MIN(x[i] - alpha * d[i], hi);
    }
}

/* x ← x - α d inside the box (the step stays within it up to rounding, which the clamp takes). */
static void step_inside(const mp *m, double *x, const double *d, double alpha)
{
    for (uint32_t i = 0; i < m->n; i++)
        x[i] = gr_qp_clamp(x[i] - alpha * d[i], lo_of(m, i), hi_of(m, i));
}

static void axpy(uint32_t n, double *y, double a, const double *x)
{
    for (uint32_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* The expansion's projected gradient step on the free set: x ← P(x - ᾱ φ(x)). */
static void expand(const mp *m, double *x, const double *g, double abar)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const double lo = lo_of(m, i), hi = hi_of(m, i);
        if (lo < x[i] && x[i] < hi)
            x[i] = gr_qp_clamp(x[i] - abar * g[i], lo, hi);
    }
}

/* The largest eigenvalue of the symmetric tridiagonal (a[0..k), b[0..k-1)) by bisection on the
 * Sturm count: the upper end of the last bracket (never below it). */
static double tridiag_max_eig(const double *a, const double *b, uint32_t k)
{
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t j = 0; j < k; j++) {
        const double r = (j > 0 ? fabs(b[j - 1]) : 0.0) + (j + 1 < k ? fabs(b[j]) : 0.0);
        lo = GR_MIN(lo, a[j] - r);
        hi = GR_MAX(hi, a[j] + r);
    }
    for (int it = 0; it < 200 && hi - lo > 1e-13 * GR_MAX(fabs(lo), fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        uint32_t below = 0; /* eigenvalues < mid */
        double d = 1.0;
        for (uint32_t j = 0; j < k; j++) {
            d = a[j] - mid - (j > 0 ? b[j - 1] * b[j - 1] / d : 0.0);
            if (d == 0.0)
                d = -1e-300; /* mid on an eigenvalue of a leading block: nudge, count it below */
            below += d < 0.0;
        }
        if (below == k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* ᾱ = 1.9 / (1.05 λ), λ the largest Ritz value of LANCZOS_STEPS Lanczos steps on A restricted to
 * the unfixed variables (a lower bound of its largest eigenvalue, close after a few steps; the
 * extremes converge first). Deterministic start vector. Uses v0, v1, u as scratch. */
static double estimate_alpha_bar(const mp *m, double *v0, double *v1, double *u, uint32_t *matvecs)
{
    const uint32_t n = m->n;
    gr_rng rng = {0x5eed0f0a1b2c3d4eull};
    uint32_t unfixed = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bool fixed = lo_of(m, i) == hi_of(m, i);
        v1[i] = fixed ? 0.0 : gr_rng_uniform(&rng) - 0.5;
        v0[i] = 0.0;
        unfixed += !fixed;
    }
    const double norm = sqrt(dot(n, v1, v1));
    if (!(norm > 0))
        return 1.0;
    for (uint32_t i = 0; i < n; i++)
        v1[i] /= norm;
    const uint32_t steps = GR_MIN(LANCZOS_STEPS, unfixed);
    double a[LANCZOS_STEPS], b[LANCZOS_STEPS];
    double beta = 0.0;
    uint32_t k = 0;
    while (k < steps) {
        m->prob->apply(m->prob->ctx, v1, u);
        (*matvecs)++;
        for (uint32_t i = 0; i < n; i++)
            if (lo_of(m, i) == hi_of(m, i))
                u[i] = 0.0;
        const double alpha = dot(n, v1, u);
        for (uint32_t i = 0; i < n; i++)
            u[i] -= alpha * v1[i] + beta * v0[i];
        a[k++] = alpha;
        beta = sqrt(dot(n, u, u));
        if (!(beta > 1e-12 * fabs(alpha)) || k == steps)
            break; /* an invariant subspace: its Ritz values are eigenvalues */
        b[k - 1] = beta;
        double *t = v0;
        v0 = v1;
        v1 = u;
        u = t;
        for (uint32_t i = 0; i < n; i++)
            v1[i] /= beta;
    }
    const double lambda = tridiag_max_eig(a, b, k);
    if (!isfinite(lambda + beta))
        return NAN; /* apply returned a non-finite value */
    /* not positive: A ≈ 0 on the free variables (f linear), where any step is a descent step */
    return lambda > 0 ? 1.9 / (1.05 * lambda) : 1.0;
}

static double objective(const mp *m, const double *x, const double *g)
{
    /* f = ½ xᵀA x + qᵀx = ½ xᵀ(g + q) */
    double s = 0.0;
    for (uint32_t i = 0; i < m->n; i++)
        s += x[i] * (g[i] + (m->q ? m->q[i] : 0.0));
    return 0.5 * s;
}

static bool finite_measure(mp_measure r) { return isfinite(r.gp2 + r.phitphi) && r.poison == 0.0; }

gr_status gr_qp_mprgp(const gr_qp_problem *prob, const gr_qp_settings *settings, gr_qp_workspace *ws, double *x,
                      gr_qp_stats *stats)
{
    gr_qp_stats st;
    memset(&st, 0, sizeof st);
    st.gp_norm = st.objective = NAN;
    gr_qp_settings set;
    gr_status status = gr_qp_check_input(prob, settings, ws, x, settings && (settings->jacobi || settings->sgs), &set);
    if (status == GR_OK && prob->n > 0 && (!prob->apply || (set.sgs && !prob->row)))
        status = GR_ERROR_NULL_ARGUMENT;
    if (status != GR_OK) {
        if (stats)
            *stats = st;
        return status;
    }
    const uint32_t n = prob->n;
    mp m = {prob, n, prob->lo, prob->hi, prob->q, set.jacobi && !set.sgs ? prob->diag : NULL, set.sgs ? ws->v : NULL, 0.0, 0.0};
    const double qnorm = m.q ? sqrt(dot(n, m.q, m.q)) : 0.0;
    st.tolerance = GR_MAX(set.abs_tol, set.rel_tol * qnorm);
    m.tol2 = st.tolerance * st.tolerance;
    if (n == 0) {
        st.converged = true;
        st.gp_norm = st.objective = 0.0;
        if (stats)
            *stats = st;
        return GR_OK;
    }
    double *g = ws->g, *p = ws->p, *ap = ws->ap, *w = ws->w;
    memcpy(ws->x0, x, sizeof(double) * n);
    for (uint32_t i = 0; i < n; i++)
        x[i] = gr_qp_clamp(x[i], lo_of(&m, i), hi_of(&m, i));
    gradient(&m, x, g);
    st.matvecs = 1;
    bool g_exact = true; /* g from apply, not from the recurrence */
    double gp = gr_qp_projected_gradient_norm(n, x, g, m.lo, m.hi);
    mp_measure r = {0, 0, 0, 0};
    if (!isfinite(gp))
        goto not_finite;
    if (gp > st.tolerance) {
        st.alpha_bar = set.alpha_bar > 0 ? set.alpha_bar : estimate_alpha_bar(&m, p, ap, w, &st.matvecs);
        if (!isfinite(st.alpha_bar))
            goto not_finite;
        m.inv_abar = 1.0 / st.alpha_bar;
        r = measure(&m, x, g, w);
        memcpy(p, w, sizeof(double) * n);
    }
    const double gamma2 = set.gamma * set.gamma;
    while (gp > st.tolerance && st.iterations < set.max_iter) {
        st.iterations++;
        if (r.beta2 <= gamma2 * r.phitphi) {
            prob->apply(prob->ctx, p, ap);
            st.matvecs++;
            const double pap = dot(n, p, ap);
            const double a_feasible = feasible_step(&m, x, p);
            const double a_cg = pap > 0 ? dot(n, g, p) / pap : INFINITY;
            if (a_cg <= a_feasible) { /* conjugate gradient step */
                st.cg_steps++;
                step_inside(&m, x, p, a_cg);
                axpy(n, g, -a_cg, ap);
                g_exact = false;
                r = measure(&m, x, g, w);
                const double beta = dot(n, w, ap) / pap;
                for (uint32_t i = 0; i < n; i++)
                    p[i] = w[i] - beta * p[i];
            } else { /* expansion */
                if (!isfinite(a_feasible))
                    goto not_finite; /* no positive curvature and no bound: f unbounded below */
                st.expansion_steps++;
                bool done = false;
                if (set.expansion != GR_QP_EXPANSION_FIXED && isfinite(a_cg)) {
                    /* the projected CG step, kept if it ends below the half step to the boundary
                     * (f(x - α_f p) = f(x) - α_f gᵀp + ½ α_f² pᵀAp): f decreases at every step */
                    const double f_half = objective(&m, x, g) - a_feasible * dot(n, g, p) +
                                          0.5 * a_feasible * a_feasible * pap;
                    memcpy(ws->v, x, sizeof(double) * n);
                    memcpy(w, g, sizeof(double) * n);
                    step_inside(&m, x, p, a_cg);
                    gradient(&m, x, g);
                    st.matvecs++;
                    done = objective(&m, x, g) <= f_half;
                    if (!done) { /* back to x and its gradient */
                        st.expansion_fallbacks++;
                        memcpy(x, ws->v, sizeof(double) * n);
                        memcpy(g, w, sizeof(double) * n);
                    }
                }
                if (!done) { /* to the boundary, then a projected gradient step of length ᾱ */
                    step_to_boundary(&m, x, p, a_feasible);
                    axpy(n, g, -a_feasible, ap);
                    expand(&m, x, g, st.alpha_bar);
                    gradient(&m, x, g);
                    st.matvecs++;
                }
                g_exact = true;
                r = measure(&m, x, g, w);
                memcpy(p, w, sizeof(double) * n);
            }
        } else { /* proportioning: release the active constraints whose β dominates */
            st.proportioning_steps++;
            chopped(&m, x, g, w);
            prob->apply(prob->ctx, w, ap);
            st.matvecs++;
            const double dad = dot(n, w, ap);
            const double a_feasible = feasible_step(&m, x, w); /* a narrow box can be crossed */
            const double a_min = dad > 0 ? dot(n, g, w) / dad : INFINITY;
            const double a = GR_MIN(a_min, a_feasible);
            if (!isfinite(a))
                goto not_finite;
            if (a == a_feasible)
                step_to_boundary(&m, x, w, a);
            else
                step_inside(&m, x, w, a);
            axpy(n, g, -a, ap);
            g_exact = false;
            r = measure(&m, x, g, w);
            memcpy(p, w, sizeof(double) * n);
        }
        if (!finite_measure(r))
            goto not_finite;
        gp = sqrt(r.gp2);
        if (gp <= st.tolerance && !g_exact) {
            /* the recurrence drifts from A x + q: confirm on the true gradient, restart if short */
            gradient(&m, x, g);
            st.matvecs++;
            g_exact = true;
            r = measure(&m, x, g, w);
            if (!finite_measure(r))
                goto not_finite;
            gp = sqrt(r.gp2);
            memcpy(p, w, sizeof(double) * n);
        }
    }
    if (!g_exact) { /* stopped at max_iter: report the true figures */
        gradient(&m, x, g);
        st.matvecs++;
        gp = gr_qp_projected_gradient_norm(n, x, g, m.lo, m.hi);
    }
    st.gp_norm = gp;
    st.objective = objective(&m, x, g);
    if (!isfinite(st.gp_norm) || !isfinite(st.objective))
        goto not_finite;
    st.converged = gp <= st.tolerance;
    if (stats)
        *stats = st;
    return GR_OK;

not_finite:
    memcpy(x, ws->x0, sizeof(double) * n);
    st.converged = false;
    st.gp_norm = st.objective = NAN;
    if (stats)
        *stats = st;
    return GR_ERROR_NOT_FINITE;
}
