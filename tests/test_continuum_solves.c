/* SPDX-License-Identifier: MIT */
/* The continuum solver's solves (Narain, Golas, Lin 2010), white box: the friction QP solved one
 * stress component at a time (sec. 4: block Gauss-Seidel over a, b, xy, yz, xz, each block by
 * MPRGP) against the full QP, and the density correction (sec. 2.2.1, eq. 14). A small driver
 * (after tests/test_continuum.c's) steps particles in a world of solid cells with the transfers
 * and the staggered pressure and friction solves, warm-started across steps as cont_step does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/continuum/cont_density.h"
#include "../lib/continuum/cont_friction.h"
#include "../lib/continuum/cont_ops.h"
#include "../lib/continuum/cont_pressure.h"
#include "../lib/core/alloc.h"
#include "../lib/core/rng.h"
#include "../lib/qp/qp_kkt.h"
#include "../lib/qp/qp_mprgp.h"
#include "harness.h"

static double rnd(gr_rng *g, double lo, double hi) { return lo + (hi - lo) * gr_rng_uniform(g); }
static double *zeros(size_t n) { return (double *)calloc(n ? n : 1, sizeof(double)); }
static cont_faces face_zeros(uint32_t n) { return (cont_faces){{zeros(n), zeros(n), zeros(n)}}; }
static void face_free(cont_faces *f) { free(f->f[0]), free(f->f[1]), free(f->f[2]); }
static void face_copy(const cont_faces *from, const cont_faces *to, uint32_t n)
{
    for (int a = 0; a < 3; a++)
        memcpy(to->f[a], from->f[a], sizeof(double) * n);
}
static double seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* ---- the driver ------------------------------------------------------------------------------ */

/* Particles in a world of solid cells (phi_s = 1 where `solid` says). After a step its fields
 * stay until the next one: the last round's pressure and friction problems can be inspected. */
typedef struct scene {
    double h, dt, alpha;  ///< cell edge, step (0: the CFL step of cont_step, at most 1/120 s), eq. 15's alpha
    gr_vec3 gravity;
    int stagger;          ///< staggered rounds (>= 1)
    uint32_t sweeps;      ///< friction by components with this many sweeps a round; 0: the full QP
    double tol;           ///< the QPs' relative tolerance
    int density;          ///< correct the density first (sec. 2.2.1): 1 positions, 2 and velocities
    bool (*solid)(const struct scene *s, gr_vec3 centre);
    double L;             ///< the box's side (for `solid`)
    uint32_t n;
    gr_vec3 *x, *v;
    double *m, *vmin;
    /* the last step: grid, fields, problems */
    gr_sparse_grid g, prev;
    uint32_t cells;
    cont_grid_mass gm;
    cont_faces u_old, u_star, u_try, dx;
    double *solid_frac, *p, *s, *s_in, *y;
    double *prev_p, *prev_s;
    cont_pressure cp;
    cont_friction cf;
    gr_qp_workspace ws;
    gr_mem *mem;
    /* statistics of the last step */
    gr_qp_stats pressure, friction, correction; ///< the last round's solves; the density LCP
    uint32_t pressure_matvecs, friction_matvecs; ///< the step's, over its rounds (friction: block matvecs)
    double friction_time;                       ///< seconds in the friction solves
    double friction_work;                       ///< the friction's energy change (<= 0)
} scene;

static bool box_walls(const scene *s, gr_vec3 c) { return c.x < 0 || c.x > s->L || c.y < 0 || c.z < 0 || c.z > s->L; }
static bool floor_only(const scene *s, gr_vec3 c) { (void)s; return c.y < 0; }

static void scene_init(scene *s, gr_mem *mem)
{
    gr_sparse_grid_init(&s->g);
    gr_sparse_grid_init(&s->prev);
    memset(&s->ws, 0, sizeof s->ws);
    s->mem = mem;
    if (s->tol == 0)
        s->tol = 1e-6;
    if (s->stagger == 0)
        s->stagger = 1;
}

/* A block of particles over [lo, hi] on a lattice of spacing h / 2 / cbrt(packing), each filling
 * (h / 2)^3 at the critical density rho: phi = packing inside. */
static void scene_block(scene *s, gr_mem *mem, gr_vec3 lo, gr_vec3 hi, double rho, double packing)
{
    scene_init(s, mem);
    const double d = 0.5 * s->h / cbrt(packing);
    const int nx = (int)((hi.x - lo.x) / d + 0.5), ny = (int)((hi.y - lo.y) / d + 0.5), nz = (int)((hi.z - lo.z) / d + 0.5);
    s->n = (uint32_t)(nx * ny * nz);
    s->x = (gr_vec3 *)malloc(sizeof(gr_vec3) * s->n);
    s->v = (gr_vec3 *)calloc(s->n, sizeof(gr_vec3));
    s->m = zeros(s->n), s->vmin = zeros(s->n);
    const double v0 = 0.125 * s->h * s->h * s->h;
    uint32_t k = 0;
    for (int j = 0; j < ny; j++)
        for (int kk = 0; kk < nz; kk++)
            for (int i = 0; i < nx; i++, k++) {
                s->x[k] = v3(lo.x + (i + 0.5) * d, lo.y + (j + 0.5) * d, lo.z + (kk + 0.5) * d);
                s->vmin[k] = v0;
                s->m[k] = rho * v0;
            }
}

static void fields_free(scene *s)
{
    face_free(&s->gm.mass), face_free(&s->gm.vol), face_free(&s->gm.u), free(s->gm.phi);
    face_free(&s->u_old), face_free(&s->u_star), face_free(&s->u_try), face_free(&s->dx);
    free(s->solid_frac), free(s->s_in), free(s->y);
    face_free(&s->cp.w), face_free(&s->cp.inv_rho), face_free(&s->cp.scratch);
    free(s->cp.q), free(s->cp.diag), free(s->cp.lo), free(s->cp.hi);
    face_free(&s->cf.scratch), free(s->cf.q), free(s->cf.diag), free(s->cf.lo), free(s->cf.hi);
}

static void fields_alloc(scene *s, uint32_t cells)
{
    s->cells = cells;
    s->gm = (cont_grid_mass){face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), NULL};
    s->u_old = face_zeros(cells), s->u_star = face_zeros(cells), s->u_try = face_zeros(cells), s->dx = face_zeros(cells);
    s->solid_frac = zeros(cells), s->p = zeros(cells), s->y = zeros(cells);
    s->s = zeros(5 * (size_t)cells), s->s_in = zeros(5 * (size_t)cells);
    s->cp = (cont_pressure){&s->g, s->dt, face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells),
                            zeros(cells), zeros(cells), zeros(cells), NULL, NULL, NULL, CONT_SEALED_UNKNOWN};
    s->cf = (cont_friction){.cp = &s->cp, .scratch = face_zeros(cells), .q = zeros(5 * (size_t)cells),
                            .diag = zeros(5 * (size_t)cells), .lo = zeros(5 * (size_t)cells), .hi = zeros(5 * (size_t)cells)};
}

static void scene_free(scene *s)
{
    if (s->cells)
        fields_free(s);
    free(s->p), free(s->s), free(s->prev_p), free(s->prev_s);
    free(s->x), free(s->v), free(s->m), free(s->vmin);
    gr_sparse_grid_free(&s->g, s->mem);
    gr_sparse_grid_free(&s->prev, s->mem);
    gr_qp_workspace_free(&s->ws, s->mem);
}

static gr_qp_settings settings(double tol)
{
    gr_qp_settings set = gr_qp_settings_default();
    set.jacobi = true;
    set.rel_tol = tol;
    set.max_iter = 20000;
    return set;
}

static double face_energy(const cont_grid_mass *m, const cont_faces *u, uint32_t cells)
{
    double e = 0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            e += 0.5 * m->mass.f[a][c] * u->f[a][c] * u->f[a][c];
    return e;
}

/* The friction solve of one round: the full QP, or `sweeps` sweeps by components. */
static void friction_solve(scene *s, gr_qp_stats *st)
{
    const gr_qp_settings set = settings(s->tol);
    const double t0 = seconds();
    if (s->sweeps == 0) {
        gr_qp_problem fp = cont_friction_problem(&s->cf);
        CHECK(gr_qp_mprgp(&fp, &set, &s->ws, s->s, st) == GR_OK);
    } else
        CHECK(cont_friction_solve_blocks(&s->cf, &s->ws, &set, s->sweeps, s->s, st) == GR_OK);
    s->friction_time += seconds() - t0;
}

static void scene_step(scene *s)
{
    /* keep the last step's grid, pressure and stress for the warm start */
    const gr_sparse_grid t = s->prev;
    s->prev = s->g;
    s->g = t;
    free(s->prev_p), free(s->prev_s);
    s->prev_p = s->p, s->prev_s = s->s;
    const uint32_t prev_cells = s->cells;
    if (s->cells)
        fields_free(s);
    double dt = s->dt;
    if (dt == 0) { /* cont_stable_step: dt (vmax + g dt) <= h / 2, at most 1/120 s */
        double vmax = 0;
        for (uint32_t i = 0; i < s->n; i++)
            vmax = fmax(vmax, v3_len(s->v[i]));
        const double reach = 0.5 * s->h, gl = v3_len(s->gravity);
        dt = fmin(1.0 / 120, (-vmax + sqrt(vmax * vmax + 4 * gl * reach)) / (2 * gl));
    }
    gr_sparse_grid *g = &s->g;
    CHECK(gr_sparse_grid_build(g, s->mem, (const double *)s->x, 3, s->n, s->h, (gr_vec3){0, 0, 0}, 2) &&
          gr_sparse_grid_sort_points(g, s->mem));
    const uint32_t cells = gr_sparse_grid_cells(g);
    fields_alloc(s, cells);
    s->cp.dt = dt;
    CHECK(gr_qp_workspace_reserve(&s->ws, s->mem, 5 * cells) == GR_OK);
    for (uint32_t c = 0; c < cells && prev_cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        const uint32_t o = gr_sparse_grid_cell(&s->prev, k[0], k[1], k[2]);
        if (o == GR_INVALID_INDEX)
            continue;
        s->p[c] = s->prev_p[o];
        for (int j = 0; j < 5; j++)
            s->s[(size_t)j * cells + c] = s->prev_s[(size_t)j * prev_cells + o];
    }
    /* particles to grid, gravity, solids */
    cont_particle_view pv = {s->n, s->x, s->v, s->m, s->vmin, NULL};
    cont_particles_to_grid(g, &pv, &s->gm);
    face_copy(&s->gm.u, &s->u_old, cells);
    const double gv[3] = {s->gravity.x, s->gravity.y, s->gravity.z};
    for (uint32_t c = 0; c < cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        s->solid_frac[c] = s->solid(s, v3((k[0] + 0.5) * s->h, (k[1] + 0.5) * s->h, (k[2] + 0.5) * s->h)) ? 1.0 : 0.0;
        for (int a = 0; a < 3; a++)
            if (s->gm.mass.f[a][c] > 0)
                s->gm.u.f[a][c] += dt * gv[a];
    }
    face_copy(&s->gm.u, &s->u_star, cells);
    /* density correction (sec. 2.2.1), on the pressure problem's arrays */
    if (s->density) {
        gr_qp_settings set = settings(0);
        set.abs_tol = 1e-8;
        CHECK(cont_density_correct(&s->cp, &s->gm, s->solid_frac, &s->ws, &set, s->y, &s->dx, &s->correction, NULL) == GR_OK);
        s->cp.dt = dt;
    }
    /* staggered projections */
    cont_pressure_weights(&s->cp, &s->gm, s->solid_frac);
    s->pressure_matvecs = s->friction_matvecs = 0;
    s->friction_time = 0;
    for (int r = 0; r < s->stagger; r++) {
        face_copy(&s->u_star, &s->u_try, cells);
        cont_friction_apply(&s->cf, s->s, &s->u_try);
        cont_pressure_rhs(&s->cp, &s->gm, &s->u_try, s->solid_frac);
        cont_pressure_bound(&s->cp, &s->gm, s->solid_frac, NULL);
        gr_qp_problem pp = cont_pressure_problem(&s->cp);
        const gr_qp_settings set = settings(s->tol);
        CHECK(gr_qp_mprgp(&pp, &set, &s->ws, s->p, &s->pressure) == GR_OK);
        s->pressure_matvecs += s->pressure.matvecs;
        face_copy(&s->u_star, &s->u_try, cells);
        cont_pressure_apply(&s->cp, s->p, &s->u_try);
        cont_friction_setup(&s->cf, &s->gm, &s->u_try, s->p, NULL, s->alpha);
        memcpy(s->s_in, s->s, sizeof(double) * 5 * cells);
        friction_solve(s, &s->friction);
        s->friction_matvecs += s->friction.matvecs;
    }
    face_copy(&s->u_star, &s->gm.u, cells);
    cont_pressure_apply(&s->cp, s->p, &s->gm.u);
    face_copy(&s->gm.u, &s->u_try, cells);
    cont_friction_apply(&s->cf, s->s, &s->gm.u);
    s->friction_work = face_energy(&s->gm, &s->gm.u, cells) - face_energy(&s->gm, &s->u_try, cells);
    cont_grid_to_particles(g, &pv, &s->gm.u, &s->u_old, 0.05, NULL, NULL);
    /* the density correction's displacement first, then the flow (sec. 3) */
    for (uint32_t i = 0; i < s->n; i++) {
        gr_vec3 v, d = {0, 0, 0};
        if (s->density)
            d = cont_density_particle(g, &s->dx, s->x[i], dt, s->density == 2 ? &s->v[i] : NULL);
        if (cont_velocity_at(g, &s->gm.u, s->x[i], &v))
            s->x[i] = v3_add(s->x[i], v3_madd(d, v, dt));
    }
}

/* ---- friction by components (sec. 4) ------------------------------------------------------- */

static double max_abs_diff(const double *a, const double *b, size_t n, double *scale)
{
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        if (scale)
            *scale = fmax(*scale, fabs(a[i]));
    }
    return d;
}

/* f(x) and the certificate of the full friction problem. */
static gr_qp_kkt certificate(cont_friction *cf, const double *s, uint32_t cells)
{
    gr_qp_problem fp = cont_friction_problem(cf);
    double *g = zeros(5 * (size_t)cells);
    gr_qp_kkt k;
    gr_qp_kkt_measure(&fp, s, g, &k);
    free(g);
    return k;
}

/* One component's block against the full problem: its matvec is the full matvec's block (x in
 * that component alone), its rows match its matvec, its diagonal is the full diagonal's slice,
 * and its norm bound is above its largest eigenvalue (and not far above); the full figures
 * cont_friction_solve_blocks reports from its kept D2 s match a full matvec's certificate. */
static void test_friction_block_operators(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {3.0, -9.0, 1.0}, .solid = floor_only, .alpha = 0.4};
    scene_block(&s, &mem, v3(0, 0, 0), v3(0.12, 0.06, 0.08), 1500, 1.0);
    for (int k = 0; k < 3; k++)
        scene_step(&s);
    const uint32_t cells = s.cells;
    const size_t n = 5 * (size_t)cells;
    gr_qp_problem fp = cont_friction_problem(&s.cf);
    gr_rng r = {17};
    double *x = zeros(n), *y = zeros(n), *yb = zeros(cells), *e = zeros(cells), *q = zeros(cells);
    double worst_apply = 0, worst_row = 0, worst_diag = 0, scale = 0;
    for (int k = 0; k < 5; k++) {
        cont_friction_block b = {&s.cf, k};
        gr_qp_problem bp = cont_friction_block_problem(&b, q);
        memset(x, 0, sizeof(double) * n);
        for (uint32_t c = 0; c < cells; c++)
            x[(size_t)k * cells + c] = rnd(&r, -1, 1);
        fp.apply(fp.ctx, x, y);
        bp.apply(bp.ctx, x + (size_t)k * cells, yb);
        worst_apply = fmax(worst_apply, max_abs_diff(y + (size_t)k * cells, yb, cells, &scale));
        for (uint32_t c = 0; c < cells; c++)
            worst_row = fmax(worst_row, fabs(bp.row(bp.ctx, c, x + (size_t)k * cells) - yb[c]));
        for (uint32_t c = 0; c < cells; c += 29) {
            e[c] = 1;
            bp.apply(bp.ctx, e, yb);
            worst_diag = fmax(worst_diag, fabs(yb[c] - bp.diag[c]) / bp.diag[c]);
            e[c] = 0;
        }
        /* the largest eigenvalue on the unfixed coefficients by 300 power steps */
        double lambda = 0;
        for (uint32_t c = 0; c < cells; c++)
            e[c] = bp.lo[c] < bp.hi[c] ? rnd(&r, -1, 1) : 0;
        for (int it = 0; it < 300; it++) {
            bp.apply(bp.ctx, e, yb);
            double nn = 0, ee = 0;
            for (uint32_t c = 0; c < cells; c++) {
                yb[c] = bp.lo[c] < bp.hi[c] ? yb[c] : 0;
                nn += yb[c] * yb[c], ee += e[c] * e[c];
            }
            lambda = sqrt(nn / ee);
            for (uint32_t c = 0; c < cells; c++)
                e[c] = yb[c] / sqrt(nn);
        }
        memset(e, 0, sizeof(double) * cells);
        const double bound = cont_friction_block_norm_bound(&s.cf, k);
        printf("  component %d: largest eigenvalue %.4g, bound %.4g (%.2fx)\n", k, lambda, bound, bound / lambda);
        CHECK(lambda <= bound * (1 + 1e-9));
        CHECK(bound <= 1.5 * lambda);
    }
    /* what a matvec costs: the full one against each block's */
    {
        const int reps = 200;
        double t0 = seconds();
        for (int it = 0; it < reps; it++)
            fp.apply(fp.ctx, x, y);
        const double t_full = (seconds() - t0) / reps;
        printf("  one matvec: full %.1f us; blocks", 1e6 * t_full);
        for (int k = 0; k < 5; k++) {
            cont_friction_block b = {&s.cf, k};
            gr_qp_problem bp = cont_friction_block_problem(&b, q);
            t0 = seconds();
            for (int it = 0; it < reps; it++)
                bp.apply(bp.ctx, x, yb);
            const double t_block = (seconds() - t0) / reps;
            printf(" %.1f us (1/%.1f)", 1e6 * t_block, t_full / t_block);
        }
        printf("\n");
    }
    printf("  %u cells: block matvecs against the full one %.2g (of %.2g), rows %.2g, diagonal %.2g relative\n",
           cells, worst_apply, scale, worst_row, worst_diag);
    CHECK(worst_apply <= 1e-12 * scale);
    CHECK(worst_row <= 1e-12 * scale);
    CHECK(worst_diag < 1e-12);
    /* the figures from the kept D2 s against the certificate: at a random feasible s (no sweep),
     * and after sweeps (D2 s updated block by block) */
    gr_qp_settings set = settings(1e-8);
    for (size_t i = 0; i < n; i++)
        x[i] = rnd(&r, s.cf.lo[i], s.cf.hi[i]);
    for (int sweeps = 0; sweeps <= 3; sweeps += 3) {
        gr_qp_stats st;
        CHECK(cont_friction_solve_blocks(&s.cf, &s.ws, &set, (uint32_t)sweeps, x, &st) == GR_OK);
        const gr_qp_kkt k = certificate(&s.cf, x, cells);
        printf("  after %d sweeps: f %.12g (certificate %.12g), |g^P| %.6g (%.6g)\n", sweeps, st.objective, k.objective,
               st.gp_norm, k.gp_norm);
        CHECK(fabs(st.objective - k.objective) <= 1e-9 * fabs(k.objective));
        CHECK(fabs(st.gp_norm - k.gp_norm) <= 1e-7 * k.gp_norm + 1e-12 * scale);
        CHECK(k.infeasibility == 0);
    }
    /* errors */
    gr_qp_workspace small;
    memset(&small, 0, sizeof small);
    CHECK(gr_qp_workspace_reserve(&small, &mem, cells) == GR_OK);
    CHECK(cont_friction_solve_blocks(&s.cf, &small, &set, 1, x, NULL) == GR_ERROR_INVALID_ARGUMENT);
    CHECK(cont_friction_solve_blocks(&s.cf, NULL, &set, 1, x, NULL) == GR_ERROR_NULL_ARGUMENT);
    gr_qp_workspace_free(&small, &mem);
    free(x), free(y), free(yb), free(e), free(q);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* The friction problem of the scene's last step: the full QP by MPRGP against sweeps by
 * components, from the step's warm start and from zero. Prints and checks: the objective falls
 * at every sweep; enough sweeps reach the full QP's minimum; one and two sweeps from the warm
 * start come within `few` (relative to |f*|) of it; the final answer's KKT certificate. */
static void compare_on_scene(scene *s, const char *what, double few, uint32_t max_sweeps)
{
    const uint32_t cells = s->cells;
    const size_t n = 5 * (size_t)cells;
    cont_friction *cf = &s->cf;
    gr_qp_problem fp = cont_friction_problem(cf);
    const double tol = 1e-6; /* cont_step's */
    double *x = zeros(n), *ref = zeros(n);
    /* the reference minimum: full MPRGP, tight */
    gr_qp_stats st;
    gr_qp_settings tight = settings(1e-11);
    tight.max_iter = 200000;
    CHECK(gr_qp_mprgp(&fp, &tight, &s->ws, ref, &st) == GR_OK);
    const double fstar = st.objective;
    uint32_t at_bound = 0, unfixed = 0;
    for (size_t i = 0; i < n; i++) {
        unfixed += cf->lo[i] < cf->hi[i];
        at_bound += cf->lo[i] < cf->hi[i] && (ref[i] == cf->lo[i] || ref[i] == cf->hi[i]);
    }
    printf("  %s: %u cells, %u unknowns free to move, %u of them at the yield bound at the minimum f* = %.10g\n", what,
           cells, unfixed, at_bound, fstar);
    const gr_qp_settings set = settings(tol);
    for (int warm = 1; warm >= 0; warm--) {
        const double *start = warm ? s->s_in : NULL;
        /* the full QP at cont_step's tolerance */
        if (start)
            memcpy(x, start, sizeof(double) * n);
        else
            memset(x, 0, sizeof(double) * n);
        double t0 = seconds();
        CHECK(gr_qp_mprgp(&fp, &set, &s->ws, x, &st) == GR_OK);
        const double t_full = seconds() - t0;
        const double f_full = st.objective;
        const uint32_t mv_full = st.matvecs;
        CHECK(st.converged);
        /* sweeps one at a time */
        if (start)
            memcpy(x, start, sizeof(double) * n);
        else
            memset(x, 0, sizeof(double) * n);
        /* (the sweeps start from the start projected onto the box: the last step's stress may lie
         * outside this step's bounds, and below f* there) */
        for (size_t i = 0; i < n; i++)
            x[i] = gr_qp_clamp(x[i], cf->lo[i], cf->hi[i]);
        const double f0 = certificate(cf, x, cells).objective;
        printf("  %s start (f %.6g, gap %.3g of |f*|): full QP %u matvecs (%.1f ms), f - f* = %.3g\n",
               warm ? "warm" : "cold", f0, (f0 - fstar) / fabs(fstar), mv_full, 1e3 * t_full, f_full - fstar);
        double f_prev = f0, t_blocks = 0;
        uint32_t mv = 0, sweep = 0;
        bool converged = false, monotone = true;
        while (sweep < max_sweeps && !converged) {
            t0 = seconds();
            CHECK(cont_friction_solve_blocks(cf, &s->ws, &set, 1, x, &st) == GR_OK);
            t_blocks += seconds() - t0;
            sweep++;
            mv += st.matvecs;
            converged = st.converged;
            monotone = monotone && st.objective <= f_prev + 1e-12 * fabs(fstar);
            const double gap = (st.objective - fstar) / fabs(fstar);
            if (sweep <= 2 || converged || (sweep & (sweep - 1)) == 0)
                printf("    sweep %3u: %5u block matvecs (%.1f ms), f - f* = %.3g of |f*| (%.3g of the start's gap), "
                       "|g^P| %.3g (tol %.3g)\n", sweep, mv, 1e3 * t_blocks, gap,
                       (st.objective - fstar) / fmax(f0 - fstar, 1e-300), st.gp_norm, st.tolerance);
            if (warm && sweep <= 2) {
                CHECK(gap <= few);
                /* a block matvec costs a fifth (b) to a seventh of a full one */
                CHECK(mv / 5.0 < 0.5 * mv_full);
            }
            f_prev = st.objective;
        }
        CHECK(monotone);
        CHECK(converged);
        CHECK(fabs(f_prev - fstar) <= 1e-6 * fabs(fstar));
        const gr_qp_kkt k = certificate(cf, x, cells);
        printf("    converged after %u sweeps, %u block matvecs (%.1f ms; full QP %u matvecs, %.1f ms): certificate "
               "|g^P| %.3g, max %.3g, complementarity %.3g, infeasibility %.3g\n", sweep, mv, 1e3 * t_blocks, mv_full,
               1e3 * t_full, k.gp_norm, k.gp_max, k.complementarity, k.infeasibility);
        CHECK(k.infeasibility == 0);
        CHECK(k.gp_norm <= st.tolerance * 1.0000001);
        CHECK(k.complementarity <= 1e-3 * fabs(fstar));
    }
    free(x), free(ref);
}

/* A block of sand on a floor under gravity tilted by 20 degrees (alpha 0.5: it sticks, held by
 * friction at and inside the yield bound), a few steps in: the friction QP of its last step. */
static void test_friction_blocks_on_incline(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double th = 20 * GR_PI / 180;
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {9.81 * sin(th), -9.81 * cos(th), 0}, .solid = floor_only,
               .alpha = 0.5, .stagger = 2};
    scene_block(&s, &mem, v3(0, 0.01, 0), v3(0.16, 0.07, 0.1), 1500, 1.0);
    for (int k = 0; k < 10; k++)
        scene_step(&s);
    compare_on_scene(&s, "block on a 20 deg incline", 0.05, 2000);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* A column (the seed's Fig. 11 scene, 2:1, as test_continuum's column_collapse) released on a
 * floor with alpha 0.6, stepped for 1.2 s with the full friction QP until it rests: the friction
 * QP of its last step, the solve cont_step spends most of its time on. */
static void test_friction_blocks_on_settled_pile(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .gravity = {0, -9.81, 0}, .solid = floor_only, .alpha = 0.6, .stagger = 2, .tol = 1e-5};
    scene_block(&s, &mem, v3(-0.04, 0, -0.04), v3(0.04, 0.16, 0.04), 1500, 1.0);
    double time = 0;
    uint32_t steps = 0;
    while (time < 1.2) {
        scene_step(&s);
        time += s.cp.dt;
        steps++;
    }
    double vmean = 0;
    for (uint32_t i = 0; i < s.n; i++)
        vmean += v3_len(s.v[i]) / s.n;
    printf("  after %u steps (%.2f s): mean speed %.3f m/s; last step's friction solves %u matvecs\n", steps, time,
           vmean, s.friction_matvecs);
    CHECK(vmean < 0.08);
    compare_on_scene(&s, "settled pile", 0.05, 12000);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* The column collapse with the staggered loop's friction by components (1 and 2 sweeps a round)
 * against the full QP: the pile spreads as far (within 10 %), comes to rest, friction never adds
 * energy, and the friction solves cost far fewer matvecs and less time. */
static void test_column_collapse_by_blocks(void)
{
    const uint32_t modes[3] = {0, 1, 2};
    double spread[3], full_time = 0, full_mv = 0;
    for (int t = 0; t < 3; t++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        scene s = {.h = 0.02, .gravity = {0, -9.81, 0}, .solid = floor_only, .alpha = 0.6, .stagger = 2, .tol = 1e-5,
                   .sweeps = modes[t]};
        scene_block(&s, &mem, v3(-0.04, 0, -0.04), v3(0.04, 0.16, 0.04), 1500, 1.0);
        double time = 0, worst_work = -INFINITY, mv = 0, ftime = 0, mv_last = 0;
        uint32_t steps = 0;
        while (time < 1.2) {
            scene_step(&s);
            time += s.cp.dt;
            steps++;
            mv += s.friction_matvecs;
            ftime += s.friction_time;
            worst_work = fmax(worst_work, s.friction_work);
            mv_last = s.friction_matvecs;
        }
        double mean_r = 0, vmean = 0, ymin = INFINITY;
        for (uint32_t i = 0; i < s.n; i++) {
            mean_r += sqrt(s.x[i].x * s.x[i].x + s.x[i].z * s.x[i].z) / s.n;
            vmean += v3_len(s.v[i]) / s.n;
            ymin = fmin(ymin, s.x[i].y);
        }
        spread[t] = mean_r;
        if (t == 0)
            full_time = ftime, full_mv = mv;
        printf("  %s: %u steps; mean distance from the axis %.4f m, mean speed %.3f m/s, lowest %.4f m; friction "
               "%.0f %smatvecs in all (last step %.0f), %.2f s; largest friction work %.2g J\n",
               modes[t] ? (modes[t] == 1 ? "1 sweep a round " : "2 sweeps a round") : "full QP        ", steps, mean_r,
               vmean, ymin, mv, modes[t] ? "block " : "", mv_last, ftime, worst_work);
        CHECK(vmean < 0.08);
        CHECK(ymin > -0.5 * s.h);
        CHECK(worst_work <= 1e-9);
        if (t > 0) {
            CHECK(fabs(spread[t] - spread[0]) <= 0.1 * spread[0]);
            CHECK(ftime < full_time);
            CHECK(mv < full_mv);
        }
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
}

/* ---- density correction (sec. 2.2.1, eq. 14) ---------------------------------------------- */

/* The scene's grid and masses (no step): grid over the particles, P2G, solid fractions. */
static void scene_splat(scene *s)
{
    if (s->cells)
        fields_free(s);
    free(s->p), free(s->s);
    gr_sparse_grid *g = &s->g;
    CHECK(gr_sparse_grid_build(g, s->mem, (const double *)s->x, 3, s->n, s->h, (gr_vec3){0, 0, 0}, 2) &&
          gr_sparse_grid_sort_points(g, s->mem));
    const uint32_t cells = gr_sparse_grid_cells(g);
    fields_alloc(s, cells);
    s->cp.dt = 1;
    CHECK(gr_qp_workspace_reserve(&s->ws, s->mem, 5 * cells) == GR_OK);
    cont_particle_view pv = {s->n, s->x, s->v, s->m, s->vmin, NULL};
    cont_particles_to_grid(g, &pv, &s->gm);
    for (uint32_t c = 0; c < cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        s->solid_frac[c] = s->solid(s, v3((k[0] + 0.5) * s->h, (k[1] + 0.5) * s->h, (k[2] + 0.5) * s->h)) ? 1.0 : 0.0;
    }
}

/* The largest phi + phi_s over the cells. */
static double max_fill(const scene *s)
{
    double m = 0;
    for (uint32_t c = 0; c < s->cells; c++)
        m = fmax(m, s->gm.phi[c] + s->solid_frac[c]);
    return m;
}

/* Correct the scene's density and move its particles by dx (the correction alone, no flow). */
static void correct(scene *s, gr_qp_stats *st, double *moved_max)
{
    gr_qp_settings set = settings(0);
    set.abs_tol = 1e-9;
    memset(s->y, 0, sizeof(double) * s->cells);
    CHECK(cont_density_correct(&s->cp, &s->gm, s->solid_frac, &s->ws, &set, s->y, &s->dx, st, NULL) == GR_OK);
    CHECK(st->converged);
    *moved_max = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        gr_vec3 d;
        CHECK(cont_density_displacement_at(&s->g, &s->dx, s->x[i], &d));
        s->x[i] = v3_add(s->x[i], d);
        *moved_max = fmax(*moved_max, v3_len(d));
    }
}

static gr_vec3 centre_of_mass(const scene *s)
{
    gr_vec3 c = {0, 0, 0};
    double m = 0;
    for (uint32_t i = 0; i < s->n; i++)
        c = v3_madd(c, s->x[i], s->m[i]), m += s->m[i];
    return v3_scale(c, 1 / m);
}

/* The mean distance of the particles from their centre of mass. */
static double mean_radius(const scene *s)
{
    const gr_vec3 c = centre_of_mass(s);
    double r = 0;
    for (uint32_t i = 0; i < s->n; i++)
        r += v3_len(v3_sub(s->x[i], c)) / s->n;
    return r;
}

/* A block packed to 1.3x the critical density, in a box of solid cells: floating free in its
 * middle; resting on its floor; and sunk into the floor by a quarter cell (its lowest particles
 * in the bottom cell's lower half: their splats reach into the floor's cells, what advection's
 * errors leave); then one packed to 1.05x, resting. One correction brings eq. 14's phi + phi_s
 * to <= 1 and spreads the particles apart; the centre of mass stays wherever no wall pushes
 * (every axis but the sunk block's vertical one, which the floor lifts); no particle enters a
 * solid. Re-splatting the moved particles shows what eq. 14's grid model misses: the particles
 * follow the faces' displacement only as trilinear interpolation carries it to them, and their
 * splats spread over 2 cells, so where the displacement changes sharply (the block's faces and
 * edges) a pass removes only half to three quarters of the excess; repeating the correction, as
 * the next steps do, keeps reducing it. */
static void test_density_overpacked_block(void)
{
    const char *names[4] = {"1.3x floating", "1.3x on the floor", "1.3x sunk a quarter cell", "1.05x on the floor"};
    const double packing[4] = {1.3, 1.3, 1.3, 1.05}, base[4] = {0.08, 0.01, 0.0, 0.01};
    for (int t = 0; t < 4; t++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        const double h = 0.02;
        scene s = {.h = h, .solid = box_walls, .L = 0.24};
        scene_block(&s, &mem, v3(0.08, base[t], 0.08), v3(0.16, base[t] + 0.08, 0.16), 1500, packing[t]);
        scene_splat(&s);
        const gr_vec3 com0 = centre_of_mass(&s);
        const double r0 = mean_radius(&s), fill0 = max_fill(&s);
        double fill_prev = fill0;
        for (int pass = 0; pass < 3; pass++) {
            gr_qp_stats st;
            double moved;
            correct(&s, &st, &moved);
            const double after = max_fill(&s); /* eq. 14's phi */
            CHECK(after <= 1 + 1e-6);
            scene_splat(&s);
            const double fill = max_fill(&s);
            const gr_vec3 com = centre_of_mass(&s);
            double lowest = INFINITY;
            for (uint32_t i = 0; i < s.n; i++)
                lowest = fmin(lowest, s.x[i].y);
            printf("  %s, pass %d: max phi + phi_s %.4f -> %.2g (eq. 14) -> %.4f re-splatted; LCP %u matvecs; "
                   "largest move %.3f h; centre of mass moved (%.1g, %.2g, %.1g) h; mean radius x%.4f; lowest particle "
                   "%.4f m\n", names[t], pass, fill_prev, after, fill, st.matvecs, moved / h, (com.x - com0.x) / h,
                   (com.y - com0.y) / h, (com.z - com0.z) / h, mean_radius(&s) / r0, lowest);
            CHECK(lowest >= 0);
            CHECK(fill < fill_prev);
            if (pass == 0) {
                CHECK(moved > 0.01 * h && moved < 0.5 * h);
                CHECK(mean_radius(&s) > (t == 3 ? 1.001 : 1.01) * r0);
                CHECK(fill - 1 < 0.6 * (fill0 - 1)); /* most of the excess gone at once */
            }
            CHECK(fabs(com.x - com0.x) < 1e-9 * h && fabs(com.z - com0.z) < 1e-9 * h);
            if (t == 2)
                CHECK(com.y - com0.y > 0.02 * h);
            else
                CHECK(fabs(com.y - com0.y) < 1e-9 * h);
            fill_prev = fill;
        }
        CHECK(fill_prev < 1.05);
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
}

/* A block at the critical density (8 particles of (h/2)^3 a cell: phi = 1 inside up to rounding)
 * and one below it (phi 0.8), resting in the box: no displacement at all. */
static void test_density_valid_state_untouched(void)
{
    for (int loose = 0; loose < 2; loose++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        scene s = {.h = 0.02, .solid = box_walls, .L = 0.24};
        scene_block(&s, &mem, v3(0.08, 0.01, 0.08), v3(0.16, 0.09, 0.16), 1500, loose ? 0.8 : 1.0);
        scene_splat(&s);
        const double fill = max_fill(&s);
        gr_qp_stats st;
        double moved;
        correct(&s, &st, &moved);
        double dmax = 0, ymax = 0;
        for (uint32_t c = 0; c < s.cells; c++) {
            ymax = fmax(ymax, s.y[c]);
            for (int a = 0; a < 3; a++)
                dmax = fmax(dmax, fabs(s.dx.f[a][c]));
        }
        printf("  phi up to %.17g: LCP %u matvecs, largest y %.3g, largest face displacement %.3g m, largest particle "
               "move %.3g m\n", fill, st.matvecs, ymax, dmax, moved);
        CHECK(fill <= 1 + 1e-12);
        CHECK(dmax == 0 && moved == 0);
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
}

/* A loose region (phi 0.7) with one cell over-packed (its 8 particles 3.7 times as big: phi 1.5
 * there, every other cell below 1): the correction pushes the excess into the neighbours only;
 * nothing farther than 2 cells from it moves. (For so sharp a peak the particles, moved by the
 * trilinear interpolation of a displacement that lives on the cell's 6 faces, carry only about
 * a quarter of eq. 14's change into the re-splatted phi; the corrections of the next steps take
 * the rest, geometrically.) */
static void test_density_single_cell_spreads_locally(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double h = 0.02;
    scene s = {.h = h, .solid = box_walls, .L = 0.24};
    scene_block(&s, &mem, v3(0.02, 0.01, 0.02), v3(0.22, 0.17, 0.22), 1500, 1.0);
    const int32_t target[3] = {5, 4, 6};
    for (uint32_t i = 0; i < s.n; i++) {
        s.vmin[i] *= 0.7, s.m[i] *= 0.7;
        int32_t k[3];
        CHECK(gr_sparse_grid_locate_in((gr_vec3){0, 0, 0}, 1 / h, s.x[i], k));
        if (k[0] == target[0] && k[1] == target[1] && k[2] == target[2])
            s.vmin[i] *= 3.7, s.m[i] *= 3.7;
    }
    scene_splat(&s);
    const uint32_t tc = gr_sparse_grid_cell(&s.g, target[0], target[1], target[2]);
    uint32_t over = 0;
    double second = 0;
    for (uint32_t c = 0; c < s.cells; c++) {
        over += s.gm.phi[c] > 1;
        if (c != tc)
            second = fmax(second, s.gm.phi[c]);
    }
    printf("  phi %.3f in the over-packed cell, at most %.3f elsewhere (%u cells above 1)\n", s.gm.phi[tc], second, over);
    CHECK(over == 1 && s.gm.phi[tc] > 1.4);
    gr_vec3 *x0 = (gr_vec3 *)malloc(sizeof(gr_vec3) * s.n);
    memcpy(x0, s.x, sizeof(gr_vec3) * s.n);
    gr_qp_stats st;
    double moved;
    correct(&s, &st, &moved);
    CHECK(max_fill(&s) <= 1 + 1e-6);
    uint32_t positive = 0, displaced = 0, far_moved = 0;
    int reach = 0;
    for (uint32_t c = 0; c < s.cells; c++) {
        positive += s.y[c] > 0;
        int32_t k[3];
        gr_sparse_grid_cell_coords(&s.g, c, k);
        const int dist = (int)fmax(fabs((double)(k[0] - target[0])), fmax(fabs((double)(k[1] - target[1])),
                                                                          fabs((double)(k[2] - target[2]))));
        for (int a = 0; a < 3; a++)
            if (s.dx.f[a][c] != 0)
                reach = dist > reach ? dist : reach;
    }
    const gr_vec3 centre = v3((target[0] + 0.5) * h, (target[1] + 0.5) * h, (target[2] + 0.5) * h);
    for (uint32_t i = 0; i < s.n; i++) {
        const double d = v3_len(v3_sub(s.x[i], x0[i]));
        const gr_vec3 r = v3_sub(x0[i], centre);
        const double cheb = fmax(fabs(r.x), fmax(fabs(r.y), fabs(r.z)));
        displaced += d > 0;
        far_moved += d > 0 && cheb > 2 * h;
    }
    scene_splat(&s);
    printf("  LCP %u matvecs; y > 0 in %u cells; faces displaced up to %d cells away; %u of %u particles moved (%u "
           "beyond 2 cells), the most by %.3f h; re-splatted phi at most %.3f\n", st.matvecs, positive, reach,
           displaced, s.n, far_moved, moved / h, max_fill(&s));
    CHECK(positive >= 1 && positive <= 7);
    CHECK(reach <= 1);
    CHECK(far_moved == 0);
    CHECK(displaced > 0 && displaced < s.n / 20);
    /* the next steps' corrections keep taking a quarter of what is left */
    double fill_prev = max_fill(&s);
    for (int pass = 1; pass < 8; pass++) {
        correct(&s, &st, &moved);
        scene_splat(&s);
        const double fill = max_fill(&s);
        printf("  pass %d: LCP %u matvecs, largest move %.3f h, re-splatted phi at most %.3f\n", pass, st.matvecs,
               moved / h, fill);
        CHECK(fill < fill_prev);
        fill_prev = fill;
    }
    CHECK(fill_prev < 1.05);
    free(x0);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* cont_density_reach marks where the displacement reaches: after correcting one over-packed cell
 * (and a block on a floor whose splats reach into it), every particle in an unmarked cell gets
 * d = 0 and keeps its velocity from cont_density_particle, so the step may skip it; the marked
 * cells hold every particle the correction moves, and in the single cell's case few others. */
static void test_density_reach_covers_displacement(void)
{
    for (int t = 0; t < 2; t++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        const double h = 0.02;
        scene s = {.h = h, .solid = box_walls, .L = 0.24};
        if (t == 0) { /* one cell at phi 1.5 in a loose region (as density_single_cell_spreads_locally) */
            scene_block(&s, &mem, v3(0.02, 0.01, 0.02), v3(0.22, 0.17, 0.22), 1500, 1.0);
            for (uint32_t i = 0; i < s.n; i++) {
                s.vmin[i] *= 0.7, s.m[i] *= 0.7;
                int32_t k[3];
                CHECK(gr_sparse_grid_locate_in((gr_vec3){0, 0, 0}, 1 / h, s.x[i], k));
                if (k[0] == 5 && k[1] == 4 && k[2] == 6)
                    s.vmin[i] *= 3.7, s.m[i] *= 3.7;
            }
        } else /* a block sunk a quarter cell into the floor */
            scene_block(&s, &mem, v3(0.08, 0.0, 0.08), v3(0.16, 0.08, 0.16), 1500, 1.0);
        scene_splat(&s);
        gr_qp_settings set = settings(0);
        set.abs_tol = 1e-9;
        gr_qp_stats st;
        memset(s.y, 0, sizeof(double) * s.cells);
        CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, s.y, &s.dx, &st, NULL) == GR_OK);
        uint8_t *near = (uint8_t *)malloc(s.cells);
        cont_density_reach(&s.g, &s.dx, near);
        uint32_t marked = 0, inside = 0, moved = 0, moved_inside = 0;
        for (uint32_t c = 0; c < s.cells; c++)
            marked += near[c];
        for (uint32_t i = 0; i < s.n; i++) {
            const uint32_t c = s.g.point_cell[i];
            gr_vec3 v = v3(0.1, -0.2, 0.3); /* against any d somewhere */
            const gr_vec3 d = cont_density_particle(&s.g, &s.dx, s.x[i], 1.0 / 120, &v);
            const bool any = d.x != 0 || d.y != 0 || d.z != 0;
            moved += any;
            if (near[c]) {
                inside++;
                moved_inside += any;
            } else {
                CHECK(!any);
                CHECK(v.x == 0.1 && v.y == -0.2 && v.z == 0.3);
            }
        }
        printf("  %s: %u of %u cells marked; %u of %u particles in them, %u moved (all inside: %u)\n",
               t ? "block on the floor" : "single cell", marked, s.cells, inside, s.n, moved, moved_inside);
        CHECK(moved > 0 && moved_inside == moved);
        if (t == 0)
            CHECK(marked < s.cells / 10 && inside < s.n / 10);
        free(near);
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
}

/* The seed's reason for the correction: a block at the critical density whose lowest particles
 * sit in the bottom cell's lower half (their splats reach into the floor's cells: phi + phi_s > 1
 * there) makes the pressure solve push it out of the floor in one step, and it pops up and
 * bounces. Corrected first at every step, the same block is displaced by a fraction of a cell
 * and stays about as calm as one built a quarter cell higher (which needs no correction, and
 * settles by that quarter cell). */
static void test_density_correction_stops_popping(void)
{
    double fastest[3], pmax[3], lift[3];
    for (int corrected = 0; corrected < 3; corrected++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        scene s = {.h = 0.02, .dt = 2e-3, .gravity = {0, -9.81, 0}, .solid = box_walls, .L = 0.16, .alpha = 0.5,
                   .stagger = 2, .density = corrected == 1 ? 2 : 0};
        const double y0 = corrected == 2 ? 0.01 : 0;
        scene_block(&s, &mem, v3(0.04, y0, 0.04), v3(0.12, y0 + 0.06, 0.12), 1500, 1.0);
        const gr_vec3 com0 = centre_of_mass(&s);
        fastest[corrected] = pmax[corrected] = lift[corrected] = 0;
        uint32_t correction_matvecs = 0;
        for (int k = 0; k < 50; k++) {
            scene_step(&s);
            correction_matvecs += s.correction.matvecs;
            for (uint32_t c = 0; c < s.cells; c++)
                pmax[corrected] = fmax(pmax[corrected], s.p[c]);
            for (uint32_t i = 0; i < s.n; i++)
                fastest[corrected] = fmax(fastest[corrected], v3_len(s.v[i]));
            lift[corrected] = fmax(lift[corrected], centre_of_mass(&s).y - com0.y);
        }
        printf("  %s: over 0.1 s the fastest particle %.3f m/s, highest pressure %.0f Pa (rho g H %.0f Pa), the centre "
               "of mass rose by up to %.3f h%s", corrected ? (corrected == 1 ? "corrected  " : "not sunk   ") : "uncorrected", fastest[corrected],
               pmax[corrected], 1500 * 9.81 * 0.06, lift[corrected] / s.h, corrected != 1 ? "\n" : "");
        if (corrected == 1)
            printf("; density LCPs %u matvecs in all\n", correction_matvecs);
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
    CHECK(pmax[1] < 0.1 * pmax[0] && pmax[1] < pmax[2]);
    CHECK(lift[1] < 0.25 * lift[0]);
    CHECK(fastest[1] < 0.5 * fastest[0] && fastest[1] < 1.2 * fastest[2]);
}

/* A layer thinner than half a cell on a floor (the end of a low-friction collapse): its splats
 * reach into the floor's cells at every step. Corrected by displacement alone (the seed), the
 * layer stays in place but its particles keep the step's gravity as a downward velocity that the
 * displacement undoes every step, for ever; with that velocity taken out as well
 * (cont_density_particle) it comes to rest. (Uncorrected, the pressure pops it out of the floor
 * once and then holds it, nearly still.) */
static void test_density_thin_layer_comes_to_rest(void)
{
    double speed[3], energy[3];
    const char *names[3] = {"uncorrected            ", "displacement only (seed)", "displacement + velocity "};
    for (int mode = 0; mode < 3; mode++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        scene s = {.h = 0.02, .dt = 1.0 / 120, .gravity = {0, -9.81, 0}, .solid = box_walls, .L = 0.16, .alpha = 0.2,
                   .stagger = 2, .sweeps = 1, .density = mode};
        scene_block(&s, &mem, v3(0.0, 0.0, 0.0), v3(0.16, 0.008, 0.16), 1500, 1.0);
        double lowest = INFINITY;
        for (int k = 0; k < 120; k++)
            scene_step(&s);
        speed[mode] = energy[mode] = 0;
        for (uint32_t i = 0; i < s.n; i++) {
            speed[mode] += v3_len(s.v[i]) / s.n;
            energy[mode] += 0.5 * s.m[i] * v3_len2(s.v[i]);
            lowest = fmin(lowest, s.x[i].y);
        }
        printf("  %s: after 1 s mean speed %.2g m/s (g dt = %.3f), kinetic energy %.2g J, lowest particle %.4f m\n",
               names[mode], speed[mode], 9.81 * s.dt, energy[mode], lowest);
        CHECK(lowest > 0);
        scene_free(&s);
        CHECK(mem.in_use == 0);
    }
    CHECK(speed[1] > 0.5 * 9.81 / 120);  /* the seed's correction: hovering at about g dt */
    CHECK(speed[2] < 0.05 * speed[1]);   /* with the velocity: at rest */
    CHECK(speed[2] < 0.5 * speed[0]);
}

/* cont_density_correct's warm start: the last answer as the start is kept (*warm) and solved in
 * at most a step; a start projected onto the bounds (a negative entry, a nonzero air cell) is the
 * same start; a stale one whose objective is above the cold start's, f(y) >= f(0) = 0 (here the
 * answer times 50: f = 1250 y*.A y* - 50 y*.A y* > 0, by complementarity q.y* = -y*.A y*), is
 * dropped, and the solve gives the cold start's bits. */
static void test_density_warm_start_guarded(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .solid = box_walls, .L = 0.24};
    scene_block(&s, &mem, v3(0.08, 0.01, 0.08), v3(0.16, 0.09, 0.16), 1500, 1.3);
    scene_splat(&s);
    const uint32_t cells = s.cells;
    double *phi0 = zeros(cells), *cold = zeros(cells), *y = zeros(cells);
    memcpy(phi0, s.gm.phi, sizeof(double) * cells);
    gr_qp_settings set = settings(0);
    set.abs_tol = 1e-9;
    gr_qp_stats a, b;
    bool warm = true;
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, cold, &s.dx, &a, &warm) == GR_OK);
    CHECK(a.converged && !warm && a.iterations > 4);
    memcpy(s.gm.phi, phi0, sizeof(double) * cells);
    cont_density_setup(&s.cp, &s.gm, s.solid_frac); /* (the correction reused q's array) */
    const double f_cold = cont_density_objective(&s.cp, cold);
    /* the answer as the start */
    memcpy(s.gm.phi, phi0, sizeof(double) * cells);
    memcpy(y, cold, sizeof(double) * cells);
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, y, &s.dx, &b, &warm) == GR_OK);
    printf("  cold: %u iterations, f %.6g; from its answer: %u iterations (kept: %d)\n", a.iterations, f_cold,
           b.iterations, warm);
    CHECK(warm && b.converged && b.iterations <= 1);
    /* projected onto the bounds: the same start */
    uint32_t air = GR_INVALID_INDEX, inside = GR_INVALID_INDEX;
    for (uint32_t c = 0; c < cells; c++) {
        if (s.cp.lo[c] == s.cp.hi[c] && air == GR_INVALID_INDEX)
            air = c;
        if (s.cp.lo[c] < s.cp.hi[c] && cold[c] == 0 && inside == GR_INVALID_INDEX)
            inside = c;
    }
    CHECK(air != GR_INVALID_INDEX && inside != GR_INVALID_INDEX);
    double *y2 = zeros(cells);
    memcpy(y2, cold, sizeof(double) * cells);
    y2[air] = 5, y2[inside] = -1;
    memcpy(s.gm.phi, phi0, sizeof(double) * cells);
    gr_qp_stats c2;
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, y2, &s.dx, &c2, &warm) == GR_OK);
    CHECK(warm && c2.iterations == b.iterations && !memcmp(y2, y, sizeof(double) * cells));
    /* stale: dropped, the cold start's bits */
    for (uint32_t c = 0; c < cells; c++)
        y2[c] = 50 * cold[c];
    memcpy(s.gm.phi, phi0, sizeof(double) * cells);
    cont_density_setup(&s.cp, &s.gm, s.solid_frac);
    CHECK(f_cold < 0 && cont_density_objective(&s.cp, y2) > 0);
    gr_qp_stats d;
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, y2, &s.dx, &d, &warm) == GR_OK);
    CHECK(!warm && d.iterations == a.iterations && !memcmp(y2, cold, sizeof(double) * cells));
    free(phi0), free(cold), free(y), free(y2);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* ---- solves on the unfixed cells (cont_compact.h) --------------------------------------------- */

/* The compact solves (operator assembled over the unfixed cells, couplings to fixed ones in the
 * linear term) against the matrix-free ones on a scene's last problems: the pressure, the
 * density LCP and the friction blocks reach the same answers (up to rounding, the same tolerance)
 * in as many iterations; the red-black order has no coupling within a colour, and converges to
 * the same answer within the tolerance. */
static void test_compact_solves_match(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {3.0, -9.0, 1.0}, .solid = floor_only, .alpha = 0.4, .stagger = 2};
    scene_block(&s, &mem, v3(0, 0, 0), v3(0.12, 0.06, 0.08), 1500, 1.0);
    for (int k = 0; k < 3; k++)
        scene_step(&s);
    const uint32_t cells = s.cells;
    const size_t n5 = 5 * (size_t)cells;
    cont_compact cc;
    memset(&cc, 0, sizeof cc);
    CHECK(cont_compact_reserve(&cc, &mem, cells) == GR_OK);
    gr_qp_settings set = settings(1e-8);
    set.jacobi = false;
    set.sgs = true;
    /* the pressure of the last round, from zero */
    double *p0 = zeros(cells), *p1 = zeros(cells), *s0 = zeros(n5), *s1 = zeros(n5), scale = 0;
    gr_qp_stats a, b;
    CHECK(cont_pressure_solve(&s.cp, &s.ws, &set, p0, &a) == GR_OK && a.converged); /* (cp.compact NULL) */
    s.cp.compact = &cc;
    CHECK(cont_pressure_solve(&s.cp, &s.ws, &set, p1, &b) == GR_OK && b.converged);
    uint32_t unfixed = 0;
    for (uint32_t c = 0; c < cells; c++)
        unfixed += s.cp.lo[c] < s.cp.hi[c];
    const double dp = max_abs_diff(p0, p1, cells, &scale);
    printf("  pressure: %u of %u cells unfixed; %u / %u iterations (matrix-free / compact), |dp| %.3g of %.3g\n", unfixed,
           cells, a.iterations, b.iterations, dp, scale);
    CHECK(cc.a.n == unfixed && unfixed > 0 && unfixed < cells);
    CHECK(a.iterations == b.iterations && fabs(a.gp_norm - b.gp_norm) <= 1e-6 * a.gp_norm + 1e-9 * a.tolerance);
    /* (the tolerance from the full ||q||: MPRGP sums it in blocks, the compact solve in one pass) */
    CHECK(fabs(a.tolerance - b.tolerance) <= 1e-14 * a.tolerance && dp <= 1e-9 * scale);
    /* red-black: no coupling within a colour; the same answer within the tolerance */
    cc.order = CONT_COMPACT_RED_BLACK;
    memset(p1, 0, sizeof(double) * cells);
    CHECK(cont_pressure_solve(&s.cp, &s.ws, &set, p1, &b) == GR_OK && b.converged);
    bool split = cc.a.color_split > 0 && cc.a.color_split < cc.a.n;
    for (uint32_t i = 0; i < cc.a.n; i++)
        for (uint32_t j = 0; j < cc.a.width; j++) {
            const size_t at = (size_t)i * cc.a.width + j;
            split = split && (cc.a.val[at] == 0 || (i < cc.a.color_split) != (cc.a.col[at] < cc.a.color_split));
        }
    const double drb = max_abs_diff(p0, p1, cells, NULL);
    printf("  red-black pressure: %u iterations, split %u of %u, |dp| %.3g\n", b.iterations, cc.a.color_split, cc.a.n, drb);
    CHECK(split && drb <= 1e-4 * scale);
    cc.order = CONT_COMPACT_NATURAL;
    /* MIC(0) in face on the compact rows: the same answer within the tolerance (its vectors
     * reserved apart, as the step does) */
    set.mic = true;
    CHECK(gr_qp_workspace_reserve_mic(&s.ws, s.mem, cells) == GR_OK);
    memset(p1, 0, sizeof(double) * cells);
    CHECK(cont_pressure_solve(&s.cp, &s.ws, &set, p1, &b) == GR_OK && b.converged);
    const double dmic = max_abs_diff(p0, p1, cells, NULL);
    printf("  MIC(0) pressure: %u iterations, |dp| %.3g\n", b.iterations, dmic);
    CHECK(dmic <= 1e-4 * scale);
    set.mic = false;
    /* the friction blocks: two sweeps from the step's warm start */
    memcpy(s0, s.s_in, sizeof(double) * n5);
    memcpy(s1, s.s_in, sizeof(double) * n5);
    CHECK(cont_friction_solve_blocks(&s.cf, &s.ws, &set, 2, s0, &a) == GR_OK); /* (cf.compact NULL) */
    s.cf.compact = &cc;
    CHECK(cont_friction_solve_blocks(&s.cf, &s.ws, &set, 2, s1, &b) == GR_OK);
    scale = 0;
    const double ds = max_abs_diff(s0, s1, n5, &scale);
    printf("  friction blocks: %u / %u iterations, f %.12g / %.12g, |ds| %.3g of %.3g\n", a.iterations, b.iterations,
           a.objective, b.objective, ds, scale);
    CHECK(a.iterations == b.iterations && ds <= 1e-9 * scale && scale > 0);
    CHECK(fabs(a.objective - b.objective) <= 1e-12 * fabs(a.objective));
    /* the density LCP (its own setup on the pressure's arrays) */
    s.cp.compact = NULL;
    set = settings(0);
    set.abs_tol = 1e-9;
    set.sgs = true;
    cont_faces dx = face_zeros(cells);
    memset(p0, 0, sizeof(double) * cells);
    memset(p1, 0, sizeof(double) * cells);
    double *phi = zeros(cells);
    memcpy(phi, s.gm.phi, sizeof(double) * cells);
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, p0, &dx, &a, NULL) == GR_OK && a.converged);
    memcpy(s.gm.phi, phi, sizeof(double) * cells);
    s.cp.compact = &cc;
    CHECK(cont_density_correct(&s.cp, &s.gm, s.solid_frac, &s.ws, &set, p1, &dx, &b, NULL) == GR_OK && b.converged);
    scale = 0;
    const double dy = max_abs_diff(p0, p1, cells, &scale);
    printf("  density: %u / %u iterations, |dy| %.3g of %.3g\n", a.iterations, b.iterations, dy, scale);
    CHECK(a.iterations == b.iterations && dy <= 1e-9 * scale + 1e-15);
    s.cp.compact = NULL, s.cf.compact = NULL;
    cont_compact_free(&cc, &mem);
    face_free(&dx);
    free(p0), free(p1), free(s0), free(s1), free(phi);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

/* A step's later rounds set the friction problem up again with only b2 and the bounds anew
 * (cont_friction_setup_again: the diagonal, eps and the coefficients with faces listed once),
 * and the block solves loop over those lists: the same bits as a whole setup and full loops. */
static void test_friction_setup_again_same_bits(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {3.0, -9.0, 1.0}, .solid = floor_only, .alpha = 0.4, .stagger = 2};
    scene_block(&s, &mem, v3(0, 0, 0), v3(0.12, 0.06, 0.08), 1500, 1.0);
    for (int k = 0; k < 3; k++)
        scene_step(&s);
    const uint32_t cells = s.cells;
    const size_t n5 = 5 * (size_t)cells;
    cont_compact cc;
    memset(&cc, 0, sizeof cc);
    CHECK(cont_compact_reserve(&cc, &mem, cells) == GR_OK);
    gr_qp_settings set = settings(1e-8);
    set.jacobi = false;
    set.sgs = true;
    double *q = zeros(n5), *diag = zeros(n5), *lo = zeros(n5), *hi = zeros(n5), *s0 = zeros(n5), *s1 = zeros(n5),
           *p_other = zeros(cells);
    /* (another round's pressure: half of it, and none in every third cell) */
    uint32_t zeroed = 0;
    for (uint32_t c = 0; c < cells; c++) {
        p_other[c] = c % 3 == 0 ? 0.0 : 0.5 * s.p[c];
        zeroed += c % 3 == 0 && s.p[c] > 0;
    }
    for (int compact = 0; compact < 2; compact++) {
        s.cf.compact = compact ? &cc : NULL;
        /* unreserved: the whole setup and every cell */
        cont_friction_setup(&s.cf, &s.gm, &s.u_try, s.p, NULL, s.alpha);
        CHECK(!s.cf.listed);
        memcpy(q, s.cf.q, sizeof(double) * n5), memcpy(diag, s.cf.diag, sizeof(double) * n5);
        memcpy(lo, s.cf.lo, sizeof(double) * n5), memcpy(hi, s.cf.hi, sizeof(double) * n5);
        const double eps = s.cf.eps;
        memcpy(s0, s.s_in, sizeof(double) * n5);
        gr_qp_stats a, b;
        CHECK(cont_friction_solve_blocks(&s.cf, &s.ws, &set, 2, s0, &a) == GR_OK);
        /* reserved: a round with another pressure first, then again with this one */
        CHECK(cont_friction_reserve(&s.cf, &mem, cells) == GR_OK);
        cont_friction_setup(&s.cf, &s.gm, &s.u_try, p_other, NULL, s.alpha);
        CHECK(s.cf.listed && memcmp(lo, s.cf.lo, sizeof(double) * n5) != 0);
        cont_friction_setup_again(&s.cf, &s.gm, &s.u_try, s.p);
        CHECK(s.cf.eps == eps && !memcmp(q, s.cf.q, sizeof(double) * n5) && !memcmp(diag, s.cf.diag, sizeof(double) * n5));
        CHECK(!memcmp(lo, s.cf.lo, sizeof(double) * n5) && !memcmp(hi, s.cf.hi, sizeof(double) * n5));
        memcpy(s1, s.s_in, sizeof(double) * n5);
        CHECK(cont_friction_solve_blocks(&s.cf, &s.ws, &set, 2, s1, &b) == GR_OK);
        printf("  %s: %u / %u iterations, f %.17g / %.17g, %u cells' pressure zeroed\n", compact ? "compact" : "matrix-free",
               a.iterations, b.iterations, a.objective, b.objective, zeroed);
        CHECK(!memcmp(s0, s1, sizeof(double) * n5) && a.iterations == b.iterations && a.iterations > 0);
        CHECK(a.objective == b.objective && a.gp_norm == b.gp_norm && a.tolerance == b.tolerance);
        cont_friction_free(&s.cf, &mem);
    }
    s.cf.compact = NULL;
    cont_compact_free(&cc, &mem);
    free(q), free(diag), free(lo), free(hi), free(s0), free(s1), free(p_other);
    scene_free(&s);
    CHECK(mem.in_use == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"compact_solves_match", test_compact_solves_match},
        {"friction_setup_again_same_bits", test_friction_setup_again_same_bits},
        {"friction_block_operators", test_friction_block_operators},
        {"friction_blocks_on_incline", test_friction_blocks_on_incline},
        {"friction_blocks_on_settled_pile", test_friction_blocks_on_settled_pile},
        {"column_collapse_by_blocks", test_column_collapse_by_blocks},
        {"density_overpacked_block", test_density_overpacked_block},
        {"density_valid_state_untouched", test_density_valid_state_untouched},
        {"density_single_cell_spreads_locally", test_density_single_cell_spreads_locally},
        {"density_reach_covers_displacement", test_density_reach_covers_displacement},
        {"density_correction_stops_popping", test_density_correction_stops_popping},
        {"density_thin_layer_comes_to_rest", test_density_thin_layer_comes_to_rest},
        {"density_warm_start_guarded", test_density_warm_start_guarded},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
