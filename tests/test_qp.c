/* SPDX-License-Identifier: MIT */
/* The box QP solvers (lib/qp): MPRGP and projected Gauss-Seidel against brute force on tiny
 * problems, against a solution known by construction, against each other on masked 3D Poisson
 * problems (regular and singular), edge cases, bad input, the no-allocation promise, the same
 * iterates for any worker count and red-black Gauss-Seidel. */
#include <math.h>
#include <stdlib.h>

#include "../lib/core/rng.h"
#include "../lib/core/tasks.h"
#include "../lib/qp/qp_box.h"
#include "../lib/qp/qp_ell.h"
#include "../lib/qp/qp_kkt.h"
#include "../lib/qp/qp_mprgp.h"
#include "../lib/qp/qp_pgs.h"
#include "harness.h"
#include "qp_poisson.h"
#include "test_util.h"

static double uniform(gr_rng *r, double a, double b) { return a + (b - a) * gr_rng_uniform(r); }

/* ---- problems --------------------------------------------------------------------------- */

/* A dense symmetric matrix, n ≤ 8. */
typedef struct dense {
    uint32_t n;
    double a[64];
} dense;

static void dense_apply(void *ctx, const double *x, double *y)
{
    const dense *d = (const dense *)ctx;
    for (uint32_t i = 0; i < d->n; i++) {
        double s = 0;
        for (uint32_t j = 0; j < d->n; j++)
            s += d->a[i * d->n + j] * x[j];
        y[i] = s;
    }
}

static double dense_row(void *ctx, uint32_t i, const double *x)
{
    const dense *d = (const dense *)ctx;
    double s = 0;
    for (uint32_t j = 0; j < d->n; j++)
        s += d->a[i * d->n + j] * x[j];
    return s;
}

/* A = BᵀB + shift I, B uniform in [-1, 1]: SPD, cond of tens. */
static void dense_random_spd(dense *d, uint32_t n, double shift, gr_rng *r)
{
    double b[64];
    d->n = n;
    for (uint32_t k = 0; k < n * n; k++)
        b[k] = uniform(r, -1, 1);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            double s = i == j ? shift : 0.0;
            for (uint32_t k = 0; k < n; k++)
                s += b[k * n + i] * b[k * n + j];
            d->a[i * n + j] = s;
        }
}

/* Solve M y = r (m × m, row stride m) by Gaussian elimination with partial pivoting. */
static bool dense_solve(uint32_t m, double *mat, double *rhs)
{
    for (uint32_t c = 0; c < m; c++) {
        uint32_t piv = c;
        for (uint32_t r = c + 1; r < m; r++)
            if (fabs(mat[r * m + c]) > fabs(mat[piv * m + c]))
                piv = r;
        if (!(fabs(mat[piv * m + c]) > 1e-300))
            return false;
        for (uint32_t k = 0; k < m; k++) {
            const double t = mat[c * m + k];
            mat[c * m + k] = mat[piv * m + k];
            mat[piv * m + k] = t;
        }
        const double t = rhs[c];
        rhs[c] = rhs[piv];
        rhs[piv] = t;
        for (uint32_t r = c + 1; r < m; r++) {
            const double f = mat[r * m + c] / mat[c * m + c];
            for (uint32_t k = c; k < m; k++)
                mat[r * m + k] -= f * mat[c * m + k];
            rhs[r] -= f * rhs[c];
        }
    }
    for (uint32_t c = m; c-- > 0;) {
        double s = rhs[c];
        for (uint32_t k = c + 1; k < m; k++)
            s -= mat[c * m + k] * rhs[k];
        rhs[c] = s / mat[c * m + c];
    }
    return true;
}

static double dense_objective(const dense *d, const double *q, const double *x)
{
    double f = 0;
    for (uint32_t i = 0; i < d->n; i++)
        f += x[i] * (0.5 * dense_row((void *)d, i, x) + q[i]);
    return f;
}

/* The minimiser by enumeration of the active sets (each variable free, at lo or at hi):
 * the equality QP on the free set for each, the feasible candidate of least objective.
 * Returns false if no candidate was feasible (never, for a strictly convex problem). */
static bool brute_force(const dense *d, const double *q, const double *lo, const double *hi, double *best)
{
    const uint32_t n = d->n;
    uint32_t combos = 1;
    for (uint32_t i = 0; i < n; i++)
        combos *= 3;
    double best_f = INFINITY;
    for (uint32_t code = 0; code < combos; code++) {
        int state[8];
        uint32_t c = code, free_idx[8], nf = 0;
        bool skip = false;
        double x[8];
        for (uint32_t i = 0; i < n; i++, c /= 3) {
            state[i] = (int)(c % 3);
            const bool fixed = lo[i] == hi[i];
            if ((fixed && state[i] != 1) || (state[i] == 1 && !isfinite(lo[i])) ||
                (state[i] == 2 && !isfinite(hi[i])))
                skip = true;
            x[i] = state[i] == 1 ? lo[i] : state[i] == 2 ? hi[i] : 0.0;
            if (state[i] == 0)
                free_idx[nf++] = i;
        }
        if (skip)
            continue;
        double mat[64], rhs[8];
        for (uint32_t a = 0; a < nf; a++) {
            const uint32_t i = free_idx[a];
            double s = -q[i];
            for (uint32_t j = 0; j < n; j++)
                if (state[j] != 0)
                    s -= d->a[i * n + j] * x[j];
            rhs[a] = s;
            for (uint32_t b = 0; b < nf; b++)
                mat[a * nf + b] = d->a[i * n + free_idx[b]];
        }
        if (nf && !dense_solve(nf, mat, rhs))
            continue;
        bool feasible = true;
        for (uint32_t a = 0; a < nf; a++) {
            const uint32_t i = free_idx[a];
            x[i] = rhs[a];
            if (x[i] < lo[i] || x[i] > hi[i])
                feasible = false;
        }
        if (!feasible)
            continue;
        const double f = dense_objective(d, q, x);
        if (f < best_f) {
            best_f = f;
            memcpy(best, x, sizeof(double) * n);
        }
    }
    return best_f < INFINITY;
}

static gr_qp_problem lap_problem(lap *L, const double *q, const double *lo, const double *hi)
{
    gr_qp_problem p = {L->n, lap_apply, lap_row, L, L->diag, q, lo, hi};
    return p;
}

static double max_abs_diff(uint32_t n, const double *a, const double *b)
{
    double m = 0;
    for (uint32_t i = 0; i < n; i++)
        m = GR_MAX(m, fabs(a[i] - b[i]));
    return m;
}

static double *vec(uint32_t n) { return (double *)calloc(n ? n : 1, sizeof(double)); }

/* ---- 1. brute force --------------------------------------------------------------------- */

static void test_qp_brute_force_small(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, 8) == GR_OK);
    gr_rng rng = {7};
    int bad = 0, trials = 0;
    unsigned long long mp_steps = 0, pgs_sweeps = 0, refused = 0;
    for (int t = 0; t < 1200; t++) {
        const uint32_t n = 1 + (uint32_t)(t % 8);
        const bool lcp = t % 5 == 4;
        dense d;
        dense_random_spd(&d, n, 0.3, &rng);
        double q[8], lo[8], hi[8], xs[8], xm[8], xp[8], x0[8];
        for (uint32_t i = 0; i < n; i++) {
            q[i] = uniform(&rng, -2, 2);
            const int kind = lcp ? 1 : (int)(gr_rng_next(&rng) % 5);
            const double a = uniform(&rng, -1, 0.5), b = a + uniform(&rng, 0.05, 1.5);
            lo[i] = lcp ? 0.0 : kind == 1 || kind == 3 || kind == 4 ? a : -INFINITY;
            hi[i] = lcp ? INFINITY : kind == 2 || kind == 3 ? b : kind == 4 ? a : INFINITY;
            x0[i] = uniform(&rng, -2, 2); /* outside the box too: projected first */
        }
        CHECK(brute_force(&d, q, lo, hi, xs));
        /* the reference is a minimiser: its certificate holds */
        gr_qp_problem prob = {n, dense_apply, dense_row, &d, NULL, q, lo, lcp ? NULL : hi};
        double diag[8], g[8];
        for (uint32_t i = 0; i < n; i++)
            diag[i] = d.a[i * n + i];
        prob.diag = diag;
        gr_qp_kkt kkt;
        CHECK(gr_qp_kkt_measure(&prob, xs, g, &kkt) == GR_OK);
        CHECK(kkt.gp_norm < 1e-9 && kkt.infeasibility == 0);
        gr_qp_settings set = gr_qp_settings_default();
        set.rel_tol = 1e-13;
        set.abs_tol = 1e-13;
        set.max_iter = 2000;
        set.jacobi = t % 2 == 1;
        set.sgs = t % 3 == 2;
        set.expansion = t % 4 < 2 ? GR_QP_EXPANSION_PROJECTED_CG : GR_QP_EXPANSION_FIXED;
        gr_qp_stats sm, sp;
        memcpy(xm, x0, sizeof xm);
        CHECK(gr_qp_mprgp(&prob, &set, &ws, xm, &sm) == GR_OK);
        set.max_iter = 1000000;
        memcpy(xp, x0, sizeof xp);
        CHECK(gr_qp_pgs(&prob, &set, &ws, xp, &sp) == GR_OK);
        double scale = 1;
        for (uint32_t i = 0; i < n; i++)
            scale = GR_MAX(scale, fabs(xs[i]));
        const double em = max_abs_diff(n, xm, xs), ep = max_abs_diff(n, xp, xs);
        trials++;
        mp_steps += sm.iterations;
        refused += sm.expansion_fallbacks;
        pgs_sweeps += sp.iterations;
        if (!sm.converged || !sp.converged || em > 1e-8 * scale || ep > 1e-8 * scale) {
            if (bad++ < 5)
                printf("  trial %d n %u%s: mprgp err %.3g (conv %d, %u it), pgs err %.3g (conv %d, %u sweeps)\n",
                       t, n, lcp ? " lcp" : "", em, sm.converged, sm.iterations, ep, sp.converged, sp.iterations);
        }
    }
    printf("  %d problems, %d wrong; mean MPRGP steps %.1f (%llu projected CG expansions refused), mean PGS "
           "sweeps %.1f\n", trials, bad, (double)mp_steps / trials, refused, (double)pgs_sweeps / trials);
    CHECK(bad == 0);
    CHECK(refused > 0); /* the safeguard's way back was taken, and still led to the minimiser */
    gr_qp_workspace_free(&ws, &mem);
    CHECK(mem.in_use == 0);
}

/* ---- 2. known solution ------------------------------------------------------------------ */

static void test_qp_known_solution(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap L;
    lap_build(&L, 12, 0.8, 0.5, 2.0, 0.5, LAP_DIRICHLET, 11);
    const uint32_t n = L.n;
    double *xs = vec(n), *q = vec(n), *lo = vec(n), *hi = vec(n), *lam = vec(n), *x = vec(n);
    gr_rng rng = {3};
    uint32_t at_bound = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double u = gr_rng_uniform(&rng);
        lo[i] = u < 0.1 ? -INFINITY : uniform(&rng, -1, 0);
        hi[i] = u > 0.9 ? INFINITY : uniform(&rng, 0.1, 1);
        const double v = gr_rng_uniform(&rng);
        if (v < 0.05) { /* fixed: any multiplier */
            hi[i] = lo[i] = isfinite(lo[i]) ? lo[i] : -0.5;
            xs[i] = lo[i];
            lam[i] = uniform(&rng, -1, 1);
        } else if (v < 0.35 && isfinite(lo[i])) {
            xs[i] = lo[i];
            lam[i] = v < 0.32 ? uniform(&rng, 0.05, 1) : 0.0; /* a few degenerate: on the bound, λ = 0 */
            at_bound++;
        } else if (v < 0.6 && isfinite(hi[i])) {
            xs[i] = hi[i];
            lam[i] = v < 0.57 ? -uniform(&rng, 0.05, 1) : 0.0;
            at_bound++;
        } else {
            xs[i] = uniform(&rng, isfinite(lo[i]) ? lo[i] : -1, isfinite(hi[i]) ? hi[i] : 1);
            lam[i] = 0.0;
        }
    }
    /* q = λ - A x*: g(x*) = λ, of the sign that makes x* a KKT point */
    lap_apply(&L, xs, q);
    for (uint32_t i = 0; i < n; i++)
        q[i] = lam[i] - q[i];
    gr_qp_problem prob = lap_problem(&L, q, lo, hi);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-12;
    set.max_iter = 100000;
    static const char *names[] = {"MPRGP", "MPRGP+Jacobi", "MPRGP fixed expansion", "PGS"};
    for (int solver = 0; solver < 4; solver++) {
        memset(x, 0, sizeof(double) * n);
        set.jacobi = solver == 1;
        set.expansion = solver == 2 ? GR_QP_EXPANSION_FIXED : GR_QP_EXPANSION_DEFAULT;
        gr_qp_stats st;
        CHECK((solver < 3 ? gr_qp_mprgp(&prob, &set, &ws, x, &st) : gr_qp_pgs(&prob, &set, &ws, x, &st)) == GR_OK);
        const double err = max_abs_diff(n, x, xs);
        printf("  n %u (%u on a bound) %s: %u iterations, %u matvecs, max |x - x*| %.2e\n", n, at_bound,
               names[solver], st.iterations, st.matvecs, err);
        CHECK(st.converged);
        CHECK(err < 1e-9);
    }
    gr_qp_workspace_free(&ws, &mem);
    lap_free(&L);
    free(xs), free(q), free(lo), free(hi), free(lam), free(x);
}

/* ---- 3. masked Poisson problems --------------------------------------------------------- */

enum {
    CMP_LCP = 1,      /* check w ≥ -tol too */
    CMP_CHEAPER = 2,  /* MPRGP needs fewer matvecs than PGS sweeps */
    CMP_UNIQUE = 4,   /* A positive definite: the answers agree, not just their objectives */
};

/* MPRGP (plain, Jacobi and symmetric Gauss-Seidel in face) and PGS on one problem: all converge, the certificate holds,
 * objectives agree (and answers, when unique); what `flags` asks besides. */
static void compare_on(lap *L, const double *q, const double *lo, const double *hi, const char *name, int flags)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const uint32_t n = L->n;
    gr_qp_problem prob = lap_problem(L, q, lo, hi);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-8;
    set.max_iter = 200000;
    double *x[4], *g = vec(n);
    gr_qp_stats st[4];
    for (int s = 0; s < 4; s++) {
        x[s] = vec(n);
        set.jacobi = s == 1;
        set.sgs = s == 2;
        const gr_status got =
            s < 3 ? gr_qp_mprgp(&prob, &set, &ws, x[s], &st[s]) : gr_qp_pgs(&prob, &set, &ws, x[s], &st[s]);
        CHECK(got == GR_OK);
        gr_qp_kkt kkt;
        CHECK(gr_qp_kkt_measure(&prob, x[s], g, &kkt) == GR_OK);
        uint32_t active = 0;
        for (uint32_t i = 0; i < n; i++)
            active += (lo && x[s][i] == lo[i]) || (hi && x[s][i] == hi[i]);
        printf("  %s n %u %-13s: %6u it (%u cg, %u exp, %u prop) %6u matvecs, |gP| %.2e (tol %.2e), f %.12g, "
               "%u active, compl %.1e\n",
               name, n, s == 0 ? "MPRGP" : s == 1 ? "MPRGP+Jacobi" : s == 2 ? "MPRGP+SGS" : "PGS", st[s].iterations, st[s].cg_steps,
               st[s].expansion_steps, st[s].proportioning_steps, st[s].matvecs, st[s].gp_norm, st[s].tolerance,
               st[s].objective, active, kkt.complementarity);
        CHECK(st[s].converged);
        CHECK(kkt.infeasibility == 0);
        CHECK_NEAR(kkt.gp_norm, st[s].gp_norm, 1e-9 * st[s].tolerance + 1e-300);
        CHECK_NEAR(kkt.objective, st[s].objective, 1e-12 * fabs(kkt.objective));
        if (flags & CMP_LCP)
            CHECK(kkt.gp_max <= st[s].tolerance); /* w ≥ -tol */
    }
    const double f = st[3].objective;
    printf("  %s: |f_mprgp - f_pgs| / |f| = %.1e, %.1e, %.1e; max |x_mprgp - x_pgs| = %.1e\n", name,
           fabs(st[0].objective - f) / fabs(f), fabs(st[1].objective - f) / fabs(f), fabs(st[2].objective - f) / fabs(f),
           max_abs_diff(n, x[0], x[3]));
    for (int s = 0; s < 3; s++)
        CHECK_NEAR(st[s].objective, f, 1e-12 * fabs(f));
    if (flags & CMP_UNIQUE) /* |x - x*| ≲ ‖g^P‖ / λ_min: λ_min ≥ 1e-3 here */
        for (int s = 0; s < 3; s++)
            CHECK(max_abs_diff(n, x[s], x[3]) < 1e-5);
    if (flags & CMP_CHEAPER) {
        for (int s = 0; s < 3; s++)
            CHECK(st[s].matvecs < st[3].iterations);
        /* the Gauss-Seidel splitting in face takes fewer steps than the diagonal */
        CHECK(st[2].iterations < st[1].iterations);
    }
    for (int s = 0; s < 4; s++)
        free(x[s]);
    free(g);
    gr_qp_workspace_free(&ws, &mem);
}

static void test_qp_poisson_lcp(void)
{
    for (int trial = 0; trial < 2; trial++) {
        lap L;
        lap_build(&L, trial ? 24 : 16, 0.97, 0.2, 5.0, 1e-3, LAP_SAND, 100 + (uint64_t)trial);
        const uint32_t n = L.n;
        double *q = vec(n), *lo = vec(n);
        gr_rng rng = {5 + (uint64_t)trial};
        for (uint32_t i = 0; i < n; i++) /* compressed below (q < 0 pushes), separating near the surface */
            q[i] = uniform(&rng, -1, 0.6) + (L.depth[i] < 0.15 * (trial ? 24 : 16) ? 1.0 : 0.0);
        compare_on(&L, q, lo, NULL, trial ? "lcp 24^3" : "lcp 16^3", CMP_LCP | CMP_CHEAPER | CMP_UNIQUE);
        lap_free(&L);
        free(q), free(lo);
    }
}

/* Two-sided boxes: friction-like bounds ±μ·depth (the pressure of a heap grows with depth;
 * 5% fixed at 0), where the free set is large and connected; and tight random bounds (|x| ≤
 * 0.3 or fixed), where it falls apart into small clusters and Gauss-Seidel's local updates are
 * at their best: there only the answers are compared. */
static void test_qp_poisson_box(void)
{
    for (int trial = 0; trial < 3; trial++) {
        lap L;
        lap_build(&L, trial == 1 ? 24 : 16, 0.97, 0.2, 5.0, 1e-3, LAP_SAND, 200 + (uint64_t)trial);
        const uint32_t n = L.n;
        double *q = vec(n), *lo = vec(n), *hi = vec(n);
        gr_rng rng = {9 + (uint64_t)trial};
        for (uint32_t i = 0; i < n; i++) {
            q[i] = uniform(&rng, -1, 1);
            const double u = gr_rng_uniform(&rng);
            const double mu = trial < 2 ? (u < 0.05 ? 0.0 : 0.2 * L.depth[i])
                                        : (u < 0.1 ? 0.0 : uniform(&rng, 0.0, 0.3));
            lo[i] = u > 0.97 ? -INFINITY : -mu;
            hi[i] = u > 0.98 ? INFINITY : mu;
        }
        static const char *names[] = {"box 16^3", "box 24^3", "tight 16^3"};
        compare_on(&L, q, lo, hi, names[trial], (trial < 2 ? CMP_CHEAPER : 0) | CMP_UNIQUE);
        lap_free(&L);
        free(q), free(lo), free(hi);
    }
}

/* Face weights over four decades (densities of mixed materials): Jacobi in face pays. */
static void test_qp_jacobi_helps(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap L;
    lap_build(&L, 20, 0.8, 0.01, 100.0, 1e-3, LAP_DIRICHLET, 300);
    const uint32_t n = L.n;
    double *q = vec(n), *lo = vec(n), *x = vec(n);
    gr_rng rng = {13};
    for (uint32_t i = 0; i < n; i++)
        q[i] = uniform(&rng, -1, 0.5);
    gr_qp_problem prob = lap_problem(&L, q, lo, NULL);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-8;
    set.max_iter = 20000;
    gr_qp_stats plain, jac;
    CHECK(gr_qp_mprgp(&prob, &set, &ws, x, &plain) == GR_OK);
    memset(x, 0, sizeof(double) * n);
    set.jacobi = true;
    CHECK(gr_qp_mprgp(&prob, &set, &ws, x, &jac) == GR_OK);
    printf("  n %u, weights 1e-2..1e2: MPRGP %u matvecs, MPRGP+Jacobi %u matvecs; f %.12g vs %.12g\n", n,
           plain.matvecs, jac.matvecs, plain.objective, jac.objective);
    CHECK(plain.converged && jac.converged);
    CHECK_NEAR(plain.objective, jac.objective, 1e-7 * fabs(jac.objective));
    CHECK(jac.matvecs < plain.matvecs);
    gr_qp_workspace_free(&ws, &mem);
    lap_free(&L);
    free(q), free(lo), free(x);
}

/* ---- 4. singular (PSD) but consistent --------------------------------------------------- */

static void test_qp_singular_consistent(void)
{
    lap L;
    lap_build(&L, 14, 0.7, 0.2, 5.0, 0.0, LAP_NEUMANN, 400); /* pure Neumann: constants per component are null */
    const uint32_t n = L.n;
    uint32_t *comp = lap_components(&L);
    uint32_t ncomp = 0;
    for (uint32_t i = 0; i < n; i++)
        ncomp += comp[i] == i;
    printf("  n %u, %u components (null space dimension)\n", n, ncomp);
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *sum = vec(n), *cnt = vec(n);
    gr_rng rng = {17};
    for (uint32_t i = 0; i < n; i++) {
        q[i] = uniform(&rng, -1, 1);
        sum[comp[i]] += q[i];
        cnt[comp[i]] += 1;
    }
    /* (a) q ⊥ null space, unbounded: pure CG on a consistent singular system */
    for (uint32_t i = 0; i < n; i++)
        q[i] -= sum[comp[i]] / cnt[comp[i]];
    compare_on(&L, q, NULL, NULL, "neumann free", CMP_CHEAPER);
    /* (b) a finite box everywhere: bounded below whatever q */
    for (uint32_t i = 0; i < n; i++) {
        q[i] = uniform(&rng, -1, 1);
        lo[i] = -uniform(&rng, 0.0, 0.5);
        hi[i] = uniform(&rng, 0.0, 0.5);
    }
    compare_on(&L, q, lo, hi, "neumann box", 0);
    /* (c) lower bounds only: bounded below iff every component's q sums to ≥ 0 */
    memset(sum, 0, sizeof(double) * n);
    for (uint32_t i = 0; i < n; i++) {
        q[i] = uniform(&rng, -1, 1);
        sum[comp[i]] += q[i];
        lo[i] = 0.0;
    }
    for (uint32_t i = 0; i < n; i++)
        q[i] -= sum[comp[i]] / cnt[comp[i]] - 0.05;
    compare_on(&L, q, lo, NULL, "neumann lcp", CMP_LCP | CMP_CHEAPER);
    lap_free(&L);
    free(comp);
    free(q), free(lo), free(hi), free(sum), free(cnt);
}

/* ---- 5. edge cases ---------------------------------------------------------------------- */

static void test_qp_edge_cases(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_qp_workspace ws = {0};
    gr_qp_stats st;
    gr_qp_settings set = gr_qp_settings_default();
    /* n = 0, with an empty workspace and no vectors */
    gr_qp_problem empty = {0, dense_apply, dense_row, NULL, NULL, NULL, NULL, NULL};
    CHECK(gr_qp_mprgp(&empty, NULL, &ws, NULL, &st) == GR_OK && st.converged && st.iterations == 0);
    CHECK(gr_qp_pgs(&empty, NULL, &ws, NULL, &st) == GR_OK && st.converged && st.iterations == 0);
    CHECK(gr_qp_workspace_reserve(&ws, &mem, 64) == GR_OK);

    /* every variable fixed: x = lo, nothing to iterate (one matvec for the gradient) */
    gr_rng rng = {21};
    dense d;
    dense_random_spd(&d, 8, 0.3, &rng);
    double q[8], lo[8], hi[8], x[8], xs[8], diag[8];
    for (uint32_t i = 0; i < 8; i++) {
        q[i] = uniform(&rng, -1, 1);
        lo[i] = hi[i] = uniform(&rng, -1, 1);
        x[i] = 5;
        diag[i] = d.a[i * 9];
    }
    gr_qp_problem fixed = {8, dense_apply, dense_row, &d, diag, q, lo, hi};
    CHECK(gr_qp_mprgp(&fixed, NULL, &ws, x, &st) == GR_OK);
    CHECK(st.converged && st.iterations == 0 && st.matvecs == 1 && memcmp(x, lo, sizeof x) == 0);
    for (uint32_t i = 0; i < 8; i++)
        x[i] = -5;
    CHECK(gr_qp_pgs(&fixed, NULL, &ws, x, &st) == GR_OK);
    CHECK(st.converged && st.iterations == 0 && memcmp(x, lo, sizeof x) == 0);

    /* unbounded SPD: MPRGP is (preconditioned) CG, finite termination up to rounding */
    double mat[64];
    memcpy(mat, d.a, sizeof mat);
    for (uint32_t i = 0; i < 8; i++)
        xs[i] = -q[i];
    CHECK(dense_solve(8, mat, xs));
    gr_qp_problem unb = {8, dense_apply, dense_row, &d, diag, q, NULL, NULL};
    set.rel_tol = 1e-12;
    for (int j = 0; j < 2; j++) {
        set.jacobi = j;
        memset(x, 0, sizeof x);
        CHECK(gr_qp_mprgp(&unb, &set, &ws, x, &st) == GR_OK);
        printf("  unbounded n 8%s: %u CG steps, %u matvecs (%.3g alpha_bar)\n", j ? " Jacobi" : "", st.cg_steps,
               st.matvecs, st.alpha_bar);
        CHECK(st.converged && st.cg_steps == st.iterations && st.iterations <= 12);
        CHECK(max_abs_diff(8, x, xs) < 1e-9);
    }

    /* warm start at the solution: no iteration; max_iter reached: converged false, GR_OK */
    lap L;
    lap_build(&L, 10, 0.8, 0.5, 2.0, 1e-2, LAP_DIRICHLET, 500);
    const uint32_t n = L.n;
    double *lq = vec(n), *llo = vec(n), *lhi = vec(n), *lx = vec(n), *ly = vec(n);
    for (uint32_t i = 0; i < n; i++) {
        lq[i] = uniform(&rng, -1, 1);
        llo[i] = -0.2, lhi[i] = 0.2;
    }
    gr_qp_problem lp = lap_problem(&L, lq, llo, lhi);
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    set = gr_qp_settings_default();
    set.rel_tol = 1e-9;
    set.max_iter = 5000;
    CHECK(gr_qp_mprgp(&lp, &set, &ws, lx, &st) == GR_OK && st.converged);
    const double f = st.objective;
    const uint32_t first = st.iterations;
    CHECK(gr_qp_mprgp(&lp, &set, &ws, lx, &st) == GR_OK);
    printf("  warm start: %u iterations cold, %u warm (MPRGP)", first, st.iterations);
    CHECK(st.converged && st.iterations <= 1 && st.objective <= f);
    set.max_iter = 100000;
    CHECK(gr_qp_pgs(&lp, &set, &ws, lx, &st) == GR_OK);
    printf(", %u warm (PGS)\n", st.iterations);
    CHECK(st.converged && st.iterations <= 1);
    /* determinism: bit for bit the same iterates and figures */
    gr_qp_stats st2;
    memset(lx, 0, sizeof(double) * n);
    set.jacobi = true;
    CHECK(gr_qp_mprgp(&lp, &set, &ws, lx, &st) == GR_OK);
    CHECK(gr_qp_mprgp(&lp, &set, &ws, ly, &st2) == GR_OK);
    CHECK(memcmp(lx, ly, sizeof(double) * n) == 0 && st.iterations == st2.iterations && st.gp_norm == st2.gp_norm);
    set.jacobi = false;
    set.max_iter = 3;
    for (int s = 0; s < 2; s++) {
        memset(lx, 0, sizeof(double) * n);
        CHECK((s ? gr_qp_pgs(&lp, &set, &ws, lx, &st) : gr_qp_mprgp(&lp, &set, &ws, lx, &st)) == GR_OK);
        CHECK(!st.converged && st.iterations == 3 && isfinite(st.gp_norm) && st.gp_norm > st.tolerance);
    }

    /* the estimated ᾱ is admissible (≤ 2/λ_max) and not timid (≥ 1.5/λ_max): λ_max from a long
     * power iteration */
    for (uint32_t i = 0; i < n; i++)
        lx[i] = uniform(&rng, -1, 1);
    double lambda = 0;
    for (int it = 0; it < 3000; it++) {
        lap_apply(&L, lx, ly);
        double nn = 0, xy = 0, xx = 0;
        for (uint32_t i = 0; i < n; i++)
            nn += ly[i] * ly[i], xy += lx[i] * ly[i], xx += lx[i] * lx[i];
        lambda = xy / xx;
        for (uint32_t i = 0; i < n; i++)
            lx[i] = ly[i] / sqrt(nn);
    }
    set = gr_qp_settings_default();
    memset(lx, 0, sizeof(double) * n);
    gr_qp_problem lu = lap_problem(&L, lq, NULL, NULL);
    CHECK(gr_qp_mprgp(&lu, &set, &ws, lx, &st) == GR_OK);
    printf("  alpha_bar lambda_max = %.4f (power iteration lambda_max %.6g)\n", st.alpha_bar * lambda, lambda);
    CHECK(st.alpha_bar * lambda <= 2.0 && st.alpha_bar * lambda >= 1.5);

    /* no minimum: indefinite A, or singular A with q along its null space; x left as given */
    dense ind = {2, {1, 0, 0, -1}};
    double iq[2] = {1, 1}, ix[2] = {0.25, -0.5};
    gr_qp_problem indef = {2, dense_apply, dense_row, &ind, NULL, iq, NULL, NULL};
    CHECK(gr_qp_mprgp(&indef, NULL, &ws, ix, &st) == GR_ERROR_NOT_FINITE);
    CHECK(ix[0] == 0.25 && ix[1] == -0.5 && !st.converged);
    dense sing = {2, {1, -1, -1, 1}}; /* null space (1, 1) */
    gr_qp_problem unbounded = {2, dense_apply, dense_row, &sing, NULL, iq, NULL, NULL};
    CHECK(gr_qp_mprgp(&unbounded, NULL, &ws, ix, &st) == GR_ERROR_NOT_FINITE);
    CHECK(ix[0] == 0.25 && ix[1] == -0.5);
    double ilo[2] = {-1, -INFINITY}; /* one bound closes the null direction: a minimum, (-1, -2) */
    unbounded.lo = ilo;
    set = gr_qp_settings_default();
    set.rel_tol = 1e-12;
    CHECK(gr_qp_mprgp(&unbounded, &set, &ws, ix, &st) == GR_OK);
    CHECK(st.converged && ix[0] == -1 && fabs(ix[1] + 2) < 1e-12 && fabs(st.objective + 2.5) < 1e-12);
    gr_qp_workspace_free(&ws, &mem);
    lap_free(&L);
    free(lq), free(llo), free(lhi), free(lx), free(ly);
}

static void test_qp_bad_input(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, 4) == GR_OK);
    gr_rng rng = {31};
    dense d;
    dense_random_spd(&d, 4, 0.3, &rng);
    double q[4] = {1, -1, 0.5, 0}, lo[4] = {0, -1, -INFINITY, 0}, hi[4] = {1, 1, 2, INFINITY};
    double diag[4] = {d.a[0], d.a[5], d.a[10], d.a[15]};
    const double x_in[4] = {0.5, 3, -2, 7};
    double x[4];
    typedef enum { EDIT_NONE, LO_ABOVE_HI, LO_PLUS_INF, HI_MINUS_INF, LO_NAN, Q_NAN, Q_INF, X_NAN, DIAG_ZERO,
                   DIAG_NAN, NO_DIAG, NO_APPLY, NO_ROW, NO_X, OMEGA_TWO, GAMMA_NEG, TOL_NAN, WS_SMALL, BAD_EXPANSION,
                   EDIT_COUNT } edit;
    /* expected by edit, for MPRGP with Jacobi, MPRGP without, PGS */
    static const gr_status want[EDIT_COUNT][3] = {
        [EDIT_NONE] = {GR_OK, GR_OK, GR_OK},
        [LO_ABOVE_HI] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [LO_PLUS_INF] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [HI_MINUS_INF] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [LO_NAN] = {GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE},
        [Q_NAN] = {GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE},
        [Q_INF] = {GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE},
        [X_NAN] = {GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE},
        [DIAG_ZERO] = {GR_ERROR_INVALID_ARGUMENT, GR_OK, GR_ERROR_INVALID_ARGUMENT},
        [DIAG_NAN] = {GR_ERROR_NOT_FINITE, GR_OK, GR_ERROR_NOT_FINITE},
        [NO_DIAG] = {GR_ERROR_NULL_ARGUMENT, GR_OK, GR_ERROR_NULL_ARGUMENT},
        [NO_APPLY] = {GR_ERROR_NULL_ARGUMENT, GR_ERROR_NULL_ARGUMENT, GR_OK}, /* PGS: rows suffice */
        [NO_ROW] = {GR_OK, GR_OK, GR_ERROR_NULL_ARGUMENT},
        [NO_X] = {GR_ERROR_NULL_ARGUMENT, GR_ERROR_NULL_ARGUMENT, GR_ERROR_NULL_ARGUMENT},
        [OMEGA_TWO] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [GAMMA_NEG] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [TOL_NAN] = {GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE, GR_ERROR_NOT_FINITE},
        [WS_SMALL] = {GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT, GR_ERROR_INVALID_ARGUMENT},
        [BAD_EXPANSION] = {GR_ERROR_UNKNOWN_ENUM, GR_ERROR_UNKNOWN_ENUM, GR_ERROR_UNKNOWN_ENUM},
    };
    int wrong = 0;
    for (int e = 0; e < EDIT_COUNT; e++)
        for (int s = 0; s < 3; s++) {
            double elo[4], ehi[4], eq[4], ediag[4];
            memcpy(elo, lo, sizeof elo), memcpy(ehi, hi, sizeof ehi), memcpy(eq, q, sizeof eq);
            memcpy(ediag, diag, sizeof ediag), memcpy(x, x_in, sizeof x);
            gr_qp_problem prob = {4, dense_apply, dense_row, &d, ediag, eq, elo, ehi};
            gr_qp_settings set = gr_qp_settings_default();
            set.jacobi = s == 0;
            gr_qp_workspace small = ws;
            double *px = x;
            switch ((edit)e) {
            case LO_ABOVE_HI: elo[1] = 1.5; break;
            case LO_PLUS_INF: elo[3] = INFINITY, ehi[3] = INFINITY; break;
            case HI_MINUS_INF: elo[2] = ehi[2] = -INFINITY; break;
            case LO_NAN: elo[0] = NAN; break;
            case Q_NAN: eq[2] = NAN; break;
            case Q_INF: eq[2] = -INFINITY; break;
            case X_NAN: x[3] = NAN; break;
            case DIAG_ZERO: ediag[1] = 0; break;
            case DIAG_NAN: ediag[1] = NAN; break;
            case NO_DIAG: prob.diag = NULL; break;
            case NO_APPLY: prob.apply = NULL; break;
            case NO_ROW: prob.row = NULL; break;
            case NO_X: px = NULL; break;
            case OMEGA_TWO: set.omega = 2; break;
            case GAMMA_NEG: set.gamma = -1; break;
            case TOL_NAN: set.rel_tol = NAN; break;
            case WS_SMALL: small.cap = 3; break;
            case BAD_EXPANSION: set.expansion = (gr_qp_expansion)3; break;
            default: break;
            }
            double before[4];
            memcpy(before, x, sizeof before);
            gr_qp_stats st;
            const gr_status got =
                s < 2 ? gr_qp_mprgp(&prob, &set, &small, px, &st) : gr_qp_pgs(&prob, &set, &small, px, &st);
            const bool untouched = got == GR_OK || memcmp(before, x, sizeof x) == 0;
            if (got != want[e][s] || !untouched || (got != GR_OK && st.converged)) {
                if (wrong++ < 8)
                    printf("  edit %d solver %d: %s, expected %s%s\n", e, s, gr_status_string(got),
                           gr_status_string(want[e][s]), untouched ? "" : ", x changed");
            }
            if (got == GR_OK && !st.converged)
                wrong++;
        }
    /* a fixed variable needs no diagonal */
    double fdiag[4] = {diag[0], 0, diag[2], diag[3]}, flo[4] = {0, 0.5, -INFINITY, 0}, fhi[4] = {1, 0.5, 2, INFINITY};
    gr_qp_problem fixed = {4, dense_apply, dense_row, &d, fdiag, q, flo, fhi};
    memcpy(x, x_in, sizeof x);
    CHECK(gr_qp_pgs(&fixed, NULL, &ws, x, NULL) == GR_OK && x[1] == 0.5);
    /* symmetric Gauss-Seidel in face reads rows and the diagonal: refused without either, x as given */
    gr_qp_settings sgs = gr_qp_settings_default();
    sgs.sgs = true;
    gr_qp_problem no_row = {4, dense_apply, NULL, &d, diag, q, NULL, NULL}, no_diag = no_row;
    no_diag.row = dense_row, no_diag.diag = NULL;
    memcpy(x, x_in, sizeof x);
    CHECK(gr_qp_mprgp(&no_row, &sgs, &ws, x, NULL) == GR_ERROR_NULL_ARGUMENT);
    CHECK(gr_qp_mprgp(&no_diag, &sgs, &ws, x, NULL) == GR_ERROR_NULL_ARGUMENT);
    CHECK(memcmp(x, x_in, sizeof x) == 0);
    no_row.row = dense_row;
    CHECK(gr_qp_mprgp(&no_row, &sgs, &ws, x, NULL) == GR_OK);
    /* the iteration meets a NaN (apply returns one on its 3rd call): x as given */
    lap L;
    lap_build(&L, 8, 0.8, 0.5, 2.0, 1e-2, LAP_DIRICHLET, 600);
    double *lq = vec(L.n), *lx = vec(L.n), *lx0 = vec(L.n);
    for (uint32_t i = 0; i < L.n; i++)
        lq[i] = uniform(&rng, -1, 1), lx[i] = lx0[i] = uniform(&rng, -1, 1);
    CHECK(gr_qp_workspace_reserve(&ws, &mem, L.n) == GR_OK);
    gr_qp_problem lp = lap_problem(&L, lq, NULL, NULL);
    gr_qp_stats clean;
    CHECK(gr_qp_mprgp(&lp, NULL, &ws, lx, &clean) == GR_OK && clean.converged);
    memcpy(lx, lx0, sizeof(double) * L.n);
    for (uint32_t at = 1; at <= clean.matvecs; at++) {
        L.calls = 0, L.poison_at = at;
        gr_qp_stats st;
        const gr_status got = gr_qp_mprgp(&lp, NULL, &ws, lx, &st);
        CHECK(got == GR_ERROR_NOT_FINITE && !st.converged && isnan(st.objective));
        CHECK(memcmp(lx, lx0, sizeof(double) * L.n) == 0);
        L.calls = 0;
        const gr_status pgs = gr_qp_pgs(&lp, NULL, &ws, lx, &st); /* one apply a sweep: may converge first */
        CHECK(pgs == GR_ERROR_NOT_FINITE || (pgs == GR_OK && st.matvecs < at));
        if (pgs != GR_OK)
            CHECK(memcmp(lx, lx0, sizeof(double) * L.n) == 0);
        memcpy(lx, lx0, sizeof(double) * L.n);
    }
    printf("  %d edits x 3 solvers, %d wrong\n", (int)EDIT_COUNT, wrong);
    CHECK(wrong == 0);
    lap_free(&L);
    free(lq), free(lx), free(lx0);
    gr_qp_workspace_free(&ws, &mem);
}

/* ---- 6. the workspace ------------------------------------------------------------------- */

static void test_qp_workspace_allocates_once(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    const gr_allocator hooks = tu_allocator(&a);
    gr_mem mem;
    gr_mem_init(&mem, &hooks);
    lap L;
    lap_build(&L, 12, 0.8, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 700);
    const uint32_t n = L.n;
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *x = vec(n);
    gr_rng rng = {41};
    for (uint32_t i = 0; i < n; i++)
        q[i] = uniform(&rng, -1, 1), lo[i] = -0.3, hi[i] = i % 3 ? 0.3 : INFINITY;
    gr_qp_problem prob = lap_problem(&L, q, lo, hi);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    CHECK(a.calls == 1 && ws.cap >= n && ws.cap % 8 == 0);
    CHECK(((uintptr_t)ws.g & 63) == 0 && ((uintptr_t)ws.w & 63) == 0);
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n / 2) == GR_OK && a.calls == 1); /* grows only */
    gr_qp_settings set = gr_qp_settings_default();
    set.max_iter = 50000;
    for (int k = 0; k < 4; k++) {
        gr_qp_stats st;
        set.jacobi = k & 1;
        set.alpha_bar = k >= 2 ? 0.0 : 0.1;
        CHECK(gr_qp_mprgp(&prob, &set, &ws, x, &st) == GR_OK && st.converged);
        memset(x, 0, sizeof(double) * n);
        CHECK(gr_qp_pgs(&prob, &set, &ws, x, &st) == GR_OK && st.converged);
    }
    CHECK(a.calls == 1 && mem.count == 1);
    /* growing: all or nothing */
    const gr_qp_workspace before = ws;
    a.fail_at = a.calls;
    CHECK(gr_qp_workspace_reserve(&ws, &mem, 2 * n) == GR_ERROR_OUT_OF_MEMORY);
    CHECK(memcmp(&before, &ws, sizeof ws) == 0 && a.live == 1);
    a.fail_at = -1;
    CHECK(gr_qp_workspace_reserve(&ws, &mem, 2 * n) == GR_OK && ws.cap >= 2 * n && a.live == 1);
    /* MIC(0)'s vectors: none until asked for, then one allocation of their own, 16 B an entry,
     * growing only, all or nothing */
    CHECK(ws.mic == NULL && ws.mic_upper == NULL && ws.mic_cap == 0);
    const uint64_t plain = mem.in_use;
    CHECK(gr_qp_workspace_reserve_mic(&ws, &mem, n) == GR_OK && a.live == 2 && ws.mic_cap >= n && ws.mic_cap % 8 == 0);
    CHECK(mem.in_use - plain == 16u * ws.mic_cap && ws.mic_upper == ws.mic + ws.mic_cap);
    CHECK(((uintptr_t)ws.mic & 63) == 0 && ((uintptr_t)ws.mic_upper & 63) == 0);
    const long long calls = a.calls;
    CHECK(gr_qp_workspace_reserve_mic(&ws, &mem, n / 2) == GR_OK && a.calls == calls);
    const gr_qp_workspace with_mic = ws;
    a.fail_at = a.calls;
    CHECK(gr_qp_workspace_reserve_mic(&ws, &mem, 3 * n) == GR_ERROR_OUT_OF_MEMORY);
    CHECK(memcmp(&with_mic, &ws, sizeof ws) == 0 && a.live == 2);
    a.fail_at = -1;
    CHECK(gr_qp_workspace_reserve_mic(&ws, &mem, 3 * n) == GR_OK && ws.mic_cap >= 3 * n && a.live == 2);
    CHECK(gr_qp_workspace_reserve_mic(NULL, &mem, n) == GR_ERROR_NULL_ARGUMENT &&
          gr_qp_workspace_reserve_mic(&ws, NULL, n) == GR_ERROR_NULL_ARGUMENT);
    gr_qp_workspace_free(&ws, &mem);
    CHECK(a.live == 0 && mem.in_use == 0 && ws.cap == 0 && ws.g == NULL && ws.mic == NULL && ws.mic_cap == 0);
    gr_qp_workspace_free(&ws, &mem); /* twice is harmless */
    lap_free(&L);
    free(q), free(lo), free(hi), free(x);
}

/* ---- workers and red-black sweeps ------------------------------------------------------ */


/* A box QP on the full N³ box (Dirichlet walls): q in [-0.7, 1.3], |x_i| ≤ μ_i, μ in [0, 0.3],
 * 5% fixed at 0; much of the answer on its bounds (expansions and proportioning steps). */
static void box_qp(uint32_t n, gr_rng *rng, double *q, double *lo, double *hi, double *x0)
{
    for (uint32_t i = 0; i < n; i++) {
        q[i] = uniform(rng, -0.7, 1.3);
        const double mu = gr_rng_uniform(rng) < 0.05 ? 0.0 : uniform(rng, 0.0, 0.3);
        lo[i] = -mu, hi[i] = mu;
        x0[i] = uniform(rng, -0.4, 0.4); /* a warm start, projected by the solver */
    }
}

/* The iterates do not depend on the worker count: x and the stats bit for bit with no pool and
 * with pools of 1, 2 and 3 workers (the matvec on the same pool), for each preconditioner and
 * expansion, on a problem cut into several chunks that runs on the pool. */
static void test_qp_workers_bit_identical(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap L;
    lap_build(&L, 18, 1.0, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 900);
    const uint32_t split = lap_red_black(&L, NULL);
    const uint32_t n = L.n;
    CHECK(n == 18 * 18 * 18 && split == n / 2);
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *x0 = vec(n), *x[4];
    gr_rng rng = {77};
    box_qp(n, &rng, q, lo, hi, x0);
    par_lap P = {&L, NULL, NULL, NULL};
    gr_qp_problem prob = {n, par_apply, par_row, &P, L.diag, q, lo, hi};
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_tasks pools[3];
    for (uint32_t w = 0; w < 3; w++)
        CHECK(gr_tasks_init(&pools[w], &mem, w + 1, NULL) == GR_OK);
    for (int variant = 0; variant < 5; variant++) {
        gr_qp_settings set = gr_qp_settings_default();
        set.rel_tol = 1e-8;
        set.max_iter = 5000;
        set.jacobi = variant == 1;
        set.sgs = variant >= 2 && variant <= 3;
        set.color_split = variant == 3 ? split : 0;
        set.expansion = variant == 4 ? GR_QP_EXPANSION_FIXED : GR_QP_EXPANSION_PROJECTED_CG;
        gr_qp_stats st[4];
        for (int k = 0; k < 4; k++) {
            x[k] = vec(n);
            memcpy(x[k], x0, sizeof(double) * n);
            P.tasks = set.tasks = k ? &pools[k - 1] : NULL;
            CHECK(gr_qp_mprgp(&prob, &set, &ws, x[k], &st[k]) == GR_OK);
        }
        printf("  variant %d: %u it (%u cg, %u exp, %u prop), %u matvecs, |gP| %.2e, f %.15g\n", variant,
               st[0].iterations, st[0].cg_steps, st[0].expansion_steps, st[0].proportioning_steps, st[0].matvecs,
               st[0].gp_norm, st[0].objective);
        CHECK(st[0].converged && st[0].expansion_steps > 0 && st[0].cg_steps > 0);
        for (int k = 1; k < 4; k++) {
            CHECK(memcmp(x[k], x[0], sizeof(double) * n) == 0);
            CHECK(st[k].iterations == st[0].iterations && st[k].matvecs == st[0].matvecs);
            CHECK(memcmp(&st[k].objective, &st[0].objective, sizeof(double)) == 0);
            CHECK(memcmp(&st[k].gp_norm, &st[0].gp_norm, sizeof(double)) == 0);
            CHECK(st[k].alpha_bar == st[0].alpha_bar);
        }
        for (int k = 0; k < 4; k++)
            free(x[k]);
    }
    for (uint32_t w = 0; w < 3; w++)
        gr_tasks_destroy(&pools[w]);
    gr_qp_workspace_free(&ws, &mem);
    lap_free(&L);
    free(q), free(lo), free(hi), free(x0);
}

/* Red-black symmetric Gauss-Seidel (settings.color_split) on a 3D Laplacian box QP ordered
 * red-black: the same sweeps as in index order (x bit for bit, on 1 and 2 workers), and the
 * same answer (KKT certificate) as the plain sweeps on the natural order. */
static void test_qp_red_black_sgs(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap N0, RB;
    lap_build(&N0, 20, 1.0, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 901);
    lap_build(&RB, 20, 1.0, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 901);
    const uint32_t n = N0.n;
    uint32_t *old_of = (uint32_t *)malloc(sizeof(uint32_t) * n);
    const uint32_t split = lap_red_black(&RB, old_of);
    CHECK(split == n / 2);
    for (uint32_t u = 0; u < n; u++) /* no row couples to its own colour */
        for (int k = 0; k < 6; k++)
            CHECK(RB.nb[6 * u + k] == UINT32_MAX || (RB.nb[6 * u + k] < split) != (u < split));
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *x0 = vec(n), *g = vec(n);
    double *rq = vec(n), *rlo = vec(n), *rhi = vec(n), *rx0 = vec(n);
    gr_rng rng = {78};
    box_qp(n, &rng, q, lo, hi, x0);
    for (uint32_t u = 0; u < n; u++)
        rq[u] = q[old_of[u]], rlo[u] = lo[old_of[u]], rhi[u] = hi[old_of[u]], rx0[u] = x0[old_of[u]];
    par_lap PN = {&N0, NULL, NULL, NULL}, PR = {&RB, NULL, NULL, NULL};
    gr_qp_problem natural = {n, par_apply, par_row, &PN, N0.diag, q, lo, hi};
    gr_qp_problem red_black = {n, par_apply, par_row, &PR, RB.diag, rq, rlo, rhi};
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_tasks pool;
    CHECK(gr_tasks_init(&pool, &mem, 2, NULL) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-9;
    set.max_iter = 5000;
    set.sgs = true;
    double *x[4];
    gr_qp_stats st[4];
    for (int k = 0; k < 4; k++) { /* natural; red-black in index order; coloured; coloured on 2 workers */
        x[k] = vec(n);
        memcpy(x[k], k ? rx0 : x0, sizeof(double) * n);
        set.color_split = k >= 2 ? split : 0;
        PR.tasks = set.tasks = k == 3 ? &pool : NULL;
        const gr_qp_problem *pr = k ? &red_black : &natural;
        CHECK(gr_qp_mprgp(pr, &set, &ws, x[k], &st[k]) == GR_OK && st[k].converged);
        gr_qp_kkt kkt;
        CHECK(gr_qp_kkt_measure(pr, x[k], g, &kkt) == GR_OK);
        CHECK(kkt.infeasibility == 0 && kkt.gp_norm <= st[k].tolerance);
        printf("  %s: %u it (%u cg, %u exp, %u prop), |gP| %.2e (tol %.2e), f %.15g\n",
               k == 0 ? "natural order  " : k == 1 ? "red-black order" : k == 2 ? "red-black split" : "split, 2 workers",
               st[k].iterations, st[k].cg_steps, st[k].expansion_steps, st[k].proportioning_steps, kkt.gp_norm,
               st[k].tolerance, kkt.objective);
    }
    for (int k = 2; k < 4; k++) {
        CHECK(memcmp(x[k], x[1], sizeof(double) * n) == 0);
        CHECK(st[k].iterations == st[1].iterations);
    }
    CHECK_NEAR(st[1].objective, st[0].objective, 1e-12 * fabs(st[0].objective));
    double dmax = 0; /* |x - x*| ≲ ‖g^P‖ / λ_min, λ_min ≥ 1e-3 */
    for (uint32_t u = 0; u < n; u++)
        dmax = GR_MAX(dmax, fabs(x[1][u] - x[0][old_of[u]]));
    CHECK(dmax < 1e-6);
    /* a split past n is refused */
    set.color_split = n + 1;
    CHECK(gr_qp_mprgp(&red_black, &set, &ws, x[1], NULL) == GR_ERROR_INVALID_ARGUMENT);
    for (int k = 0; k < 4; k++)
        free(x[k]);
    gr_tasks_destroy(&pool);
    gr_qp_workspace_free(&ws, &mem);
    lap_free(&N0), lap_free(&RB);
    free(old_of), free(q), free(lo), free(hi), free(x0), free(g), free(rq), free(rlo), free(rhi), free(rx0);
}

/* ---- 7. the assembled ELL operator ---------------------------------------------------------- */

/* The Laplacian of L into m: diag, then -w of each of the six neighbours (unused slots empty). */
static void ell_from_lap(gr_qp_ell *m, const lap *L)
{
    gr_qp_ell_begin(m, L->n, 6);
    for (uint32_t i = 0; i < L->n; i++) {
        m->diag[i] = L->diag[i];
        for (uint32_t f = 0; f < 6; f++)
            if (L->nb[6 * i + f] != UINT32_MAX)
                gr_qp_ell_set(m, i, f, L->nb[6 * i + f], -L->w[6 * i + f]);
    }
}

/* The ELL matrix of a masked Laplacian applies, rows and solves as the matrix-free stencil (the
 * same sums in the same order: bit for bit), in parallel as serially, and its storage grows only,
 * all or nothing. */
static void test_qp_ell_matches_stencil(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    const gr_allocator hooks = tu_allocator(&a);
    gr_mem mem;
    gr_mem_init(&mem, &hooks);
    lap L;
    lap_build(&L, 20, 0.8, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 77);
    const uint32_t n = L.n;
    CHECK(n > 2 * GR_QP_ELL_ROWS_PER_TASK); /* (the parallel apply splits it) */
    gr_qp_ell m = {0};
    CHECK(gr_qp_ell_reserve(&m, &mem, n) == GR_OK && m.cap >= n);
    const long long calls = a.calls;
    CHECK(gr_qp_ell_reserve(&m, &mem, n / 2) == GR_OK && a.calls == calls); /* grows only */
    ell_from_lap(&m, &L);
    CHECK(m.color_split == n);
    double *x = vec(n), *y0 = vec(n), *y1 = vec(n), *y2 = vec(n), *q = vec(n), *lo = vec(n), *hi = vec(n);
    gr_rng rng = {5};
    for (uint32_t i = 0; i < n; i++)
        x[i] = uniform(&rng, -1, 1), q[i] = uniform(&rng, -1, 0.5), lo[i] = 0, hi[i] = i % 7 ? INFINITY : 0;
    lap_apply(&L, x, y0);
    gr_qp_ell_apply(&m, x, y1);
    gr_tasks tasks;
    CHECK(gr_tasks_init(&tasks, &mem, 3, NULL) == GR_OK);
    m.tasks = &tasks;
    gr_qp_ell_apply(&m, x, y2);
    bool same = true;
    for (uint32_t i = 0; i < n; i++)
        same = same && y0[i] == y1[i] && y1[i] == y2[i] && gr_qp_ell_row(&m, i, x) == y0[i];
    CHECK(same);
    /* MPRGP with symmetric Gauss-Seidel on both: the same iterates */
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.sgs = true;
    set.max_iter = 5000;
    gr_qp_stats s0, s1;
    const gr_qp_problem p0 = lap_problem(&L, q, lo, hi), p1 = gr_qp_ell_problem(&m, q, lo, hi);
    CHECK(p1.n == n && p1.diag == m.diag && p1.q == q && p1.lo == lo && p1.hi == hi);
    memset(y0, 0, sizeof(double) * n);
    memset(y1, 0, sizeof(double) * n);
    CHECK(gr_qp_mprgp(&p0, &set, &ws, y0, &s0) == GR_OK && s0.converged);
    CHECK(gr_qp_mprgp(&p1, &set, &ws, y1, &s1) == GR_OK && s1.converged);
    printf("  n %u: MPRGP+SGS %u iterations on the stencil, %u on the ELL matrix\n", n, s0.iterations, s1.iterations);
    CHECK(s0.iterations == s1.iterations && max_abs_diff(n, y0, y1) == 0.0);
    /* growing: all or nothing */
    const gr_qp_ell before = m;
    a.fail_at = a.calls + 1; /* the second of its three arrays */
    CHECK(gr_qp_ell_reserve(&m, &mem, 4 * n) == GR_ERROR_OUT_OF_MEMORY);
    CHECK(memcmp(&before, &m, sizeof m) == 0);
    a.fail_at = -1;
    CHECK(gr_qp_ell_reserve(&m, &mem, 4 * n) == GR_OK && m.cap >= 4 * n);
    gr_tasks_destroy(&tasks);
    gr_qp_workspace_free(&ws, &mem);
    gr_qp_ell_free(&m, &mem);
    CHECK(m.cap == 0 && m.diag == NULL);
    gr_qp_ell_free(&m, &mem); /* twice is harmless */
    CHECK(a.live == 0 && mem.in_use == 0);
    lap_free(&L);
    free(x), free(y0), free(y1), free(y2), free(q), free(lo), free(hi);
}

/* MPRGP's sweeps read an ELL matrix directly (no row callback): on a red-black Laplacian, by
 * colour on 1 and 2 workers, the iterates are those of the stencil's row callback bit for bit. */
static void test_qp_ell_red_black_sweeps(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap RB;
    lap_build(&RB, 24, 0.9, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 4242);
    const uint32_t n = RB.n, split = lap_red_black(&RB, NULL);
    CHECK(split >= 4096 && n - split >= 4096); /* (colours large enough to run on the pool) */
    gr_qp_ell m = {0};
    CHECK(gr_qp_ell_reserve(&m, &mem, n) == GR_OK);
    ell_from_lap(&m, &RB);
    m.color_split = split;
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *x0 = vec(n);
    gr_rng rng = {91};
    box_qp(n, &rng, q, lo, hi, x0);
    par_lap P = {&RB, NULL, NULL, NULL};
    const gr_qp_problem stencil = {n, par_apply, par_row, &P, RB.diag, q, lo, hi};
    const gr_qp_problem ell = gr_qp_ell_problem(&m, q, lo, hi);
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_tasks pool;
    CHECK(gr_tasks_init(&pool, &mem, 2, NULL) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-9;
    set.max_iter = 5000;
    set.sgs = true;
    double *x[3];
    gr_qp_stats st[3];
    for (int k = 0; k < 3; k++) { /* the stencil by colour; the ELL matrix by colour on 1, 2 workers */
        x[k] = vec(n);
        memcpy(x[k], x0, sizeof(double) * n);
        set.color_split = split;
        m.tasks = set.tasks = k == 2 ? &pool : NULL;
        CHECK(gr_qp_mprgp(k ? &ell : &stencil, &set, &ws, x[k], &st[k]) == GR_OK && st[k].converged);
    }
    printf("  n %u: %u iterations by the row callback, %u and %u on the ELL matrix (1, 2 workers)\n", n,
           st[0].iterations, st[1].iterations, st[2].iterations);
    for (int k = 1; k < 3; k++)
        CHECK(st[k].iterations == st[0].iterations && memcmp(x[k], x[0], sizeof(double) * n) == 0);
    for (int k = 0; k < 3; k++)
        free(x[k]);
    gr_tasks_destroy(&pool);
    gr_qp_workspace_free(&ws, &mem);
    gr_qp_ell_free(&m, &mem);
    lap_free(&RB);
    free(q), free(lo), free(hi), free(x0);
}

/* MIC(0) in face (settings.mic) on ELL matrices: the same answers as SGS's sweeps (objective and
 * KKT), fewer steps on a deep sand LCP; by colour (where it takes more steps than SGS: MIC in
 * red-black order drops most of the fill), the same iterates on 1 and 2 workers; and a matrix
 * with positive couplings, where pivots fall back to the diagonal, still converges. */
static void test_qp_mic_preconditioner(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_qp_workspace ws = {0};
    gr_tasks pool;
    CHECK(gr_tasks_init(&pool, &mem, 2, NULL) == GR_OK);
    for (int trial = 0; trial < 4; trial++) {
        /* 0: sand LCP; 1: friction-like box; 2: red-black box on 1 and 2 workers; 3: positive couplings */
        lap L;
        /* (the LCP's face weights within 2x of each other, as a pile's densities: MIC(0) pays
         * on smooth coefficients; on weights over a decade at random it need not) */
        lap_build(&L, trial == 2 ? 24 : 20, trial == 0 ? 1.0 : 0.97, trial == 0 ? 0.5 : 0.2, trial == 0 ? 2.0 : 5.0, 1e-3,
                  trial == 0 ? LAP_SAND : LAP_DIRICHLET, 700 + (uint64_t)trial);
        const uint32_t n = L.n, split = trial == 2 ? lap_red_black(&L, NULL) : n;
        gr_qp_ell m = {0};
        CHECK(gr_qp_ell_reserve(&m, &mem, n) == GR_OK && gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
        if (trial == 0) { /* MIC without its vectors: refused, x as given */
            double y[8] = {0.5, 0, 0, 0, 0, 0, 0, 0};
            gr_qp_ell one = {.n = 1, .width = 1, .cap = 1, .color_split = 1, .col = (uint32_t[]){0}, .val = (double[]){0},
                             .diag = (double[]){2}};
            gr_qp_problem p1 = gr_qp_ell_problem(&one, (const double[]){-1}, NULL, NULL);
            gr_qp_settings s1 = gr_qp_settings_default();
            s1.sgs = s1.mic = true;
            gr_qp_stats st1;
            CHECK(gr_qp_mprgp(&p1, &s1, &ws, y, &st1) == GR_ERROR_INVALID_ARGUMENT && y[0] == 0.5 && !st1.converged);
            s1.mic = false; /* (SGS alone needs none) */
            CHECK(gr_qp_mprgp(&p1, &s1, &ws, y, &st1) == GR_OK && st1.converged && fabs(y[0] - 0.5) < 1e-12);
        }
        CHECK(gr_qp_workspace_reserve_mic(&ws, &mem, n) == GR_OK);
        ell_from_lap(&m, &L);
        if (trial == 3) /* flip a third of the couplings' signs: not an M-matrix, still SPD (shifted) */
            for (uint32_t i = 0; i < n; i++) {
                m.diag[i] *= 1.5;
                for (uint32_t k = 0; k < m.width; k++) {
                    const uint32_t j = m.col[(size_t)i * m.width + k];
                    if ((i + j) % 3 == 0)
                        m.val[(size_t)i * m.width + k] = -m.val[(size_t)i * m.width + k];
                }
            }
        m.color_split = split;
        double *q = vec(n), *lo = vec(n), *hi = vec(n), *x0 = vec(n), *g = vec(n);
        gr_rng rng = {31 + (uint64_t)trial};
        if (trial == 0)
            for (uint32_t i = 0; i < n; i++) {
                q[i] = -0.3 + 0.05 * uniform(&rng, -1, 1) + (L.depth[i] < 3 ? 1.0 : 0.0);
                lo[i] = 0, hi[i] = INFINITY, x0[i] = 0;
            }
        else
            box_qp(n, &rng, q, lo, hi, x0);
        const gr_qp_problem pr = gr_qp_ell_problem(&m, q, lo, hi);
        gr_qp_settings set = gr_qp_settings_default();
        set.rel_tol = 1e-9;
        set.max_iter = 20000;
        set.sgs = true;
        set.color_split = split < n ? split : 0;
        double *x[3];
        gr_qp_stats st[3];
        for (int k = 0; k < 3; k++) { /* SGS, MIC, MIC on 2 workers */
            x[k] = vec(n);
            memcpy(x[k], x0, sizeof(double) * n);
            set.mic = k > 0;
            m.tasks = set.tasks = k == 2 ? &pool : NULL;
            CHECK(gr_qp_mprgp(&pr, &set, &ws, x[k], &st[k]) == GR_OK && st[k].converged);
            gr_qp_kkt kkt;
            CHECK(gr_qp_kkt_measure(&pr, x[k], g, &kkt) == GR_OK && kkt.infeasibility == 0);
            CHECK(kkt.gp_norm <= st[k].tolerance * (1 + 1e-9));
        }
        printf("  trial %d n %u: SGS %u iterations, MIC(0) %u (2 workers: %u); f %.12g / %.12g\n", trial, n,
               st[0].iterations, st[1].iterations, st[2].iterations, st[0].objective, st[1].objective);
        CHECK_NEAR(st[1].objective, st[0].objective, 1e-10 * fabs(st[0].objective));
        if (trial == 0)
            CHECK(st[1].iterations < 0.8 * st[0].iterations);
        CHECK(st[2].iterations == st[1].iterations && memcmp(x[2], x[1], sizeof(double) * n) == 0);
        for (int k = 0; k < 3; k++)
            free(x[k]);
        free(q), free(lo), free(hi), free(x0), free(g);
        gr_qp_ell_free(&m, &mem);
        lap_free(&L);
    }
    gr_tasks_destroy(&pool);
    gr_qp_workspace_free(&ws, &mem);
}

/* The ELL matrix behind callbacks of another name: MPRGP then takes its general passes (apply,
 * then the pass; the sweeps after the measure) instead of the fused ones. */
static void other_apply(void *ctx, const double *x, double *y) { gr_qp_ell_apply(ctx, x, y); }
static double other_row(void *ctx, uint32_t i, const double *x) { return gr_qp_ell_row(ctx, i, x); }

/* MPRGP fuses its passes with an ELL matrix (the matvec into the scan's and the gradient's pass,
 * the forward sweep into the measure's) and picks branch-free variants by the bounds' kind (lower
 * bounds only, a box, fixed variables): the iterates and stats are those of the general passes
 * bit for bit, for widths 6 and 4, each kind, both expansions, stopped early or converged, with and
 * without preconditioning, serially and on 2 workers. */
static void test_qp_ell_fused_passes(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    lap L;
    lap_build(&L, 17, 0.95, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 5150);
    const uint32_t n = L.n;
    CHECK(n > 4096); /* (the passes run on the pool) */
    gr_qp_ell m = {0};
    CHECK(gr_qp_ell_reserve(&m, &mem, n) == GR_OK);
    double *q = vec(n), *lo = vec(n), *hi = vec(n), *x0 = vec(n), *x[2];
    x[0] = vec(n), x[1] = vec(n);
    gr_rng rng = {31337};
    gr_qp_workspace ws = {0};
    CHECK(gr_qp_workspace_reserve(&ws, &mem, n) == GR_OK);
    gr_tasks pool;
    CHECK(gr_tasks_init(&pool, &mem, 2, NULL) == GR_OK);
    uint32_t cases = 0, tried = 0, proportioning = 0;
    for (uint32_t width = 6; width >= 4; width -= 2) {
        ell_from_lap(&m, &L);
        if (width == 4) /* (the z neighbours dropped, both ways: still symmetric, diagonally dominant) */
            for (uint32_t i = 0; i < n; i++) {
                double v[4];
                uint32_t c[4];
                for (uint32_t f = 0; f < 4; f++)
                    v[f] = m.val[6 * i + f], c[f] = m.col[6 * i + f];
                m.width = 4;
                for (uint32_t f = 0; f < 4; f++)
                    gr_qp_ell_set(&m, i, f, c[f], v[f]);
            }
        for (int kind = 0; kind < 3; kind++) { /* lower bounds only; a box; a box with fixed variables */
            box_qp(n, &rng, q, lo, hi, x0);
            for (uint32_t i = 0; i < n; i++) {
                if (kind == 0)
                    lo[i] = 0.0;
                else if (kind == 1 && lo[i] == hi[i])
                    hi[i] = 0.1;
            }
            const gr_qp_problem fused = gr_qp_ell_problem(&m, q, lo, kind == 0 ? NULL : hi);
            gr_qp_problem general = fused;
            general.apply = other_apply, general.row = other_row;
            for (int v = 0; v < 8; v++) {
                gr_qp_settings set = gr_qp_settings_default();
                set.sgs = (v & 1) == 0;
                set.jacobi = !set.sgs;
                set.expansion = v & 2 ? GR_QP_EXPANSION_FIXED : GR_QP_EXPANSION_PROJECTED_CG;
                set.max_iter = v & 4 ? 7 : 5000;
                set.rel_tol = 1e-9;
                set.tasks = m.tasks = kind == 1 ? &pool : NULL;
                gr_qp_stats st[2];
                for (int k = 0; k < 2; k++) {
                    memcpy(x[k], x0, sizeof(double) * n);
                    CHECK(gr_qp_mprgp(k ? &general : &fused, &set, &ws, x[k], &st[k]) == GR_OK);
                }
                CHECK(memcmp(x[0], x[1], sizeof(double) * n) == 0);
                CHECK(st[0].iterations == st[1].iterations && st[0].matvecs == st[1].matvecs &&
                      st[0].cg_steps == st[1].cg_steps && st[0].expansion_steps == st[1].expansion_steps &&
                      st[0].proportioning_steps == st[1].proportioning_steps &&
                      st[0].expansion_fallbacks == st[1].expansion_fallbacks && st[0].converged == st[1].converged);
                CHECK(memcmp(&st[0].gp_norm, &st[1].gp_norm, sizeof(double)) == 0 &&
                      memcmp(&st[0].objective, &st[1].objective, sizeof(double)) == 0);
                CHECK(st[0].converged == !(v & 4));
                cases++, proportioning += st[0].proportioning_steps;
                tried += set.expansion == GR_QP_EXPANSION_PROJECTED_CG ? st[0].expansion_steps : 0;
            }
        }
    }
    printf("  n %u: %u solves alike, %u projected CG expansions, %u proportioning steps among them\n", n, cases, tried,
           proportioning);
    CHECK(tried > 0 && proportioning > 0); /* (the paths the fused passes take part in) */
    gr_tasks_destroy(&pool);
    gr_qp_workspace_free(&ws, &mem);
    gr_qp_ell_free(&m, &mem);
    lap_free(&L);
    free(x[0]), free(x[1]), free(q), free(lo), free(hi), free(x0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"qp_brute_force_small", test_qp_brute_force_small},
        {"qp_known_solution", test_qp_known_solution},
        {"qp_poisson_lcp", test_qp_poisson_lcp},
        {"qp_poisson_box", test_qp_poisson_box},
        {"qp_jacobi_helps", test_qp_jacobi_helps},
        {"qp_singular_consistent", test_qp_singular_consistent},
        {"qp_edge_cases", test_qp_edge_cases},
        {"qp_bad_input", test_qp_bad_input},
        {"qp_workspace_allocates_once", test_qp_workspace_allocates_once},
        {"qp_workers_bit_identical", test_qp_workers_bit_identical},
        {"qp_red_black_sgs", test_qp_red_black_sgs},
        {"qp_ell_matches_stencil", test_qp_ell_matches_stencil},
        {"qp_ell_red_black_sweeps", test_qp_ell_red_black_sweeps},
        {"qp_mic_preconditioner", test_qp_mic_preconditioner},
        {"qp_ell_fused_passes", test_qp_ell_fused_passes},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
