/* SPDX-License-Identifier: MIT */
/* Benchmark: MPRGP against projected Gauss-Seidel on the shape of the continuum solver's solves.
 * A heap of sand in an N³ box (tests/qp_poisson.h, LAP_SAND: no holes): weighted 7-point
 * Laplacian, face weights log-uniform in [0.2, 5], Neumann at walls and floor, Dirichlet to the
 * air, shift 1e-3. Two problems per size:
 *   lcp  p ≥ 0, q uniform in [-1, 0.6] plus 1 in the top 15% of the heap (separating);
 *   box  |x_i| ≤ 0.2 · depth_i (friction bounds ∝ the heap's pressure), 5% fixed at 0,
 *        q uniform in [-0.7, 1.3]: most of the answer on its bounds, reached from far away.
 * Each is solved cold (x = 0), then warm: q moved by 1% noise, from the cold answer (the
 * staggered projections' case). Relative tolerance 1e-6 on ‖g^P‖. One line per solve:
 *   problem n solver iterations matvecs ms |gP| tolerance objective
 * PGS: iterations are sweeps, each with one matvec for its stopping test (in its ms too).
 * MPRGP: cold solves estimate ᾱ (20 matvecs, counted); warm ones reuse it. ms: the least of
 * three runs (PGS: one run). A harness, not a test: `bench_qp [N ...]` (default 32 64).
 *
 * `bench_qp --lap [--workers W] N ...`: MPRGP's workers (settings.tasks) on the full N³ box
 * (Dirichlet walls, weights as above), a box QP |x_i| ≤ μ_i, μ uniform in [0, 0.3] (5% fixed),
 * q uniform in [-0.7, 1.3], cold; the matvec on the same pool. Solvers: Jacobi, SGS in index
 * order, SGS on the red-black reordered problem in index order and by colour (color_split). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../lib/core/tasks.h"
#include "../lib/qp/qp_box.h"
#include "../lib/qp/qp_mprgp.h"
#include "../lib/qp/qp_pgs.h"
#include "../tests/qp_poisson.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { MPRGP, MPRGP_JACOBI, MPRGP_FIXED, PGS, SOLVERS };
static const char *solver_names[SOLVERS] = {"mprgp", "mprgp_jacobi", "mprgp_fixed", "pgs"};

/* One solve from x_start into x; returns the stats and the least wall time. */
static gr_qp_stats solve(int s, const gr_qp_problem *prob, gr_qp_workspace *ws, double alpha_bar,
                         const double *x_start, double *x, double *ms)
{
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-6;
    set.max_iter = s == PGS ? 30000 : 20000;
    set.jacobi = s == MPRGP_JACOBI;
    set.expansion = s == MPRGP_FIXED ? GR_QP_EXPANSION_FIXED : GR_QP_EXPANSION_PROJECTED_CG;
    set.alpha_bar = alpha_bar;
    gr_qp_stats st;
    memset(&st, 0, sizeof st);
    *ms = 1e300;
    for (int run = 0; run < (s == PGS ? 1 : 3); run++) {
        memcpy(x, x_start, sizeof(double) * prob->n);
        const double t0 = now();
        const gr_status r = s == PGS ? gr_qp_pgs(prob, &set, ws, x, &st) : gr_qp_mprgp(prob, &set, ws, x, &st);
        const double t = 1e3 * (now() - t0);
        *ms = t < *ms ? t : *ms;
        if (r != GR_OK)
            printf("error %d\n", (int)r);
    }
    return st;
}

static void report(const char *name, uint32_t n, int s, const gr_qp_stats *st, double ms)
{
    printf("%-8s %7u %-13s %6u %6u %9.1f %.2e %.2e %.10g%s\n", name, n, solver_names[s], st->iterations, st->matvecs,
           ms, st->gp_norm, st->tolerance, st->objective, st->converged ? "" : " (not converged)");
    if (s != PGS)
        printf("%-8s %7s %-13s cg %u, expansion %u (refused %u), proportioning %u\n", "", "", "", st->cg_steps,
               st->expansion_steps, st->expansion_fallbacks, st->proportioning_steps);
    fflush(stdout);
}

static void run(const char *name, lap *L, double *q, const double *lo, const double *hi, gr_mem *mem, gr_rng *rng)
{
    const uint32_t n = L->n;
    gr_qp_problem prob = {n, lap_apply, lap_row, L, L->diag, q, lo, hi};
    gr_qp_workspace ws = {0};
    if (gr_qp_workspace_reserve(&ws, mem, n) != GR_OK)
        return;
    double *zero = (double *)calloc(n, sizeof(double)), *x = (double *)malloc(sizeof(double) * n);
    double *cold[SOLVERS], alpha_bar[SOLVERS], ms;
    for (int s = 0; s < SOLVERS; s++) {
        cold[s] = (double *)malloc(sizeof(double) * n);
        const gr_qp_stats st = solve(s, &prob, &ws, 0.0, zero, cold[s], &ms);
        alpha_bar[s] = st.alpha_bar;
        report(name, n, s, &st, ms);
    }
    double qmax = 0;
    for (uint32_t i = 0; i < n; i++)
        qmax = fabs(q[i]) > qmax ? fabs(q[i]) : qmax;
    for (uint32_t i = 0; i < n; i++)
        q[i] += 0.01 * qmax * (2 * gr_rng_uniform(rng) - 1);
    char warm[32];
    snprintf(warm, sizeof warm, "%s_w", name);
    for (int s = 0; s < SOLVERS; s++) {
        const gr_qp_stats st = solve(s, &prob, &ws, alpha_bar[s], cold[s], x, &ms);
        report(warm, n, s, &st, ms);
        free(cold[s]);
    }
    free(zero), free(x);
    gr_qp_workspace_free(&ws, mem);
}


static void lap_bench(int N, uint32_t workers, gr_mem *mem)
{
    lap L;
    lap_build(&L, N, 1.0, 0.2, 5.0, 1e-3, LAP_DIRICHLET, 3000 + (uint64_t)N);
    const uint32_t n = L.n;
    double *q = (double *)malloc(sizeof(double) * n), *lo = (double *)malloc(sizeof(double) * n);
    double *hi = (double *)malloc(sizeof(double) * n), *x = (double *)malloc(sizeof(double) * n);
    gr_rng rng = {(uint64_t)N};
    for (uint32_t i = 0; i < n; i++) {
        q[i] = -0.7 + 2 * gr_rng_uniform(&rng);
        const double mu = gr_rng_uniform(&rng) < 0.05 ? 0.0 : 0.3 * gr_rng_uniform(&rng);
        lo[i] = -mu, hi[i] = mu;
    }
    gr_tasks tasks;
    if (gr_tasks_init(&tasks, mem, workers, NULL) != GR_OK)
        return;
    gr_qp_workspace ws = {0};
    if (gr_qp_workspace_reserve(&ws, mem, n) != GR_OK)
        return;
    par_lap P = {&L, &tasks, NULL, NULL};
    static const char *names[4] = {"jacobi", "sgs", "sgs_rb_order", "sgs_red_black"};
    uint32_t split = 0;
    for (int s = 0; s < 4; s++) {
        if (s == 2) { /* reorder once: the problem's q and bounds with it */
            uint32_t *old_of = (uint32_t *)malloc(sizeof(uint32_t) * n);
            split = lap_red_black(&L, old_of);
            double *t = (double *)malloc(sizeof(double) * 3 * n);
            for (uint32_t u = 0; u < n; u++)
                t[u] = q[old_of[u]], t[n + u] = lo[old_of[u]], t[2 * n + u] = hi[old_of[u]];
            memcpy(q, t, sizeof(double) * n), memcpy(lo, t + n, sizeof(double) * n);
            memcpy(hi, t + 2 * n, sizeof(double) * n);
            free(t), free(old_of);
        }
        gr_qp_problem prob = {n, par_apply, par_row, &P, L.diag, q, lo, hi};
        gr_qp_settings set = gr_qp_settings_default();
        set.rel_tol = 1e-6;
        set.max_iter = 20000;
        set.jacobi = s == 0;
        set.sgs = s > 0;
        set.color_split = s == 3 ? split : 0;
        set.tasks = &tasks;
        gr_qp_stats st;
        double best = 1e300;
        for (int run = 0; run < 3; run++) {
            memset(x, 0, sizeof(double) * n);
            const double t0 = now();
            if (gr_qp_mprgp(&prob, &set, &ws, x, &st) != GR_OK)
                printf("error\n");
            const double t = 1e3 * (now() - t0);
            best = t < best ? t : best;
        }
        printf("lap%-5d %7u %-13s %6u %6u %9.1f %.2e %.2e %.10g workers %u%s\n", N, n, names[s], st.iterations,
               st.matvecs, best, st.gp_norm, st.tolerance, st.objective, workers, st.converged ? "" : " (not converged)");
        fflush(stdout);
    }
    gr_qp_workspace_free(&ws, mem);
    gr_tasks_destroy(&tasks);
    lap_free(&L);
    free(q), free(lo), free(hi), free(x);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--lap") == 0) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        uint32_t workers = 1;
        for (int a = 2; a < argc; a++) {
            if (strcmp(argv[a], "--workers") == 0 && a + 1 < argc)
                workers = (uint32_t)atoi(argv[++a]);
            else
                lap_bench(atoi(argv[a]), workers, &mem);
        }
        return 0;
    }
    int sizes[8] = {32, 64}, count = 2;
    if (argc > 1) {
        count = 0;
        for (int a = 1; a < argc && count < 8; a++)
            sizes[count++] = atoi(argv[a]);
    }
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    printf("%-8s %7s %-13s %6s %6s %9s %-8s %-8s %s\n", "problem", "n", "solver", "iter", "matvec", "ms", "|gP|",
           "tol", "objective");
    for (int k = 0; k < count; k++) {
        const int N = sizes[k];
        if (N < 2 || N > 256)
            continue;
        lap L;
        lap_build(&L, N, 1.0, 0.2, 5.0, 1e-3, LAP_SAND, 1000 + (uint64_t)N);
        const uint32_t n = L.n;
        double *q = (double *)malloc(sizeof(double) * n), *lo = (double *)malloc(sizeof(double) * n);
        double *hi = (double *)malloc(sizeof(double) * n);
        gr_rng rng = {(uint64_t)N};
        for (uint32_t i = 0; i < n; i++) {
            q[i] = -1 + 1.6 * gr_rng_uniform(&rng) + (L.depth[i] < 0.15 * N ? 1.0 : 0.0);
            lo[i] = 0.0;
        }
        char name[32];
        snprintf(name, sizeof name, "lcp%d", N);
        run(name, &L, q, lo, NULL, &mem, &rng);
        for (uint32_t i = 0; i < n; i++) {
            q[i] = -0.7 + 2 * gr_rng_uniform(&rng);
            const double u = gr_rng_uniform(&rng);
            const double mu = u < 0.05 ? 0.0 : 0.2 * L.depth[i];
            lo[i] = -mu;
            hi[i] = mu;
        }
        snprintf(name, sizeof name, "box%d", N);
        run(name, &L, q, lo, hi, &mem, &rng);
        lap_free(&L);
        free(q), free(lo), free(hi);
    }
    return 0;
}
