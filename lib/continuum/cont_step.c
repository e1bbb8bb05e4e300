/* SPDX-License-Identifier: MIT */
#include "cont_step.h"

#include <string.h>

#include "../bodies/body_store.h"
#include "../core/clock.h"
#include "../qp/qp_mprgp.h"
#include "../qp/qp_pgs.h"
#include "cont_points.h"

/* ---- storage ------------------------------------------------------------------------------- */

/* Every per-cell array of the fields, for growing and freeing them together. */
static uint32_t field_arrays(cont_fields *f, gr_array_ref *a)
{
    uint32_t k = 0;
    cont_faces *faces[] = {&f->gm.mass, &f->gm.vol, &f->gm.u, &f->u_old, &f->u_star, &f->u_try, &f->cp.w,
                           &f->cp.inv_rho, &f->cp.scratch, &f->cf.scratch, &f->dx};
    for (size_t i = 0; i < GR_COUNTOF(faces); i++)
        for (int c = 0; c < 3; c++)
            a[k++] = (gr_array_ref){(void **)&faces[i]->f[c], sizeof(double)};
    double **cells[] = {&f->gm.phi, &f->gm.alpha, &f->solid, &f->p, &f->y, &f->cp.q, &f->cp.diag, &f->cp.lo, &f->cp.hi};
    for (size_t i = 0; i < GR_COUNTOF(cells); i++)
        a[k++] = (gr_array_ref){(void **)cells[i], sizeof(double)};
    double **five[] = {&f->s, &f->cf.q, &f->cf.diag, &f->cf.lo, &f->cf.hi};
    for (size_t i = 0; i < GR_COUNTOF(five); i++)
        a[k++] = (gr_array_ref){(void **)five[i], 5 * sizeof(double)};
    a[k++] = (gr_array_ref){(void **)&f->dx_near, sizeof(uint8_t)};
    return k;
}
#define CONT_FIELD_ARRAYS 48

static gr_status reserve_fields(cont_state *st, uint32_t cells)
{
    cont_fields *f = &st->f;
    if (cells > f->cap) {
        const uint32_t cap = gr_grow_capacity(f->cap, cells);
        gr_array_ref a[CONT_FIELD_ARRAYS];
        const uint32_t k = field_arrays(f, a);
        if (!gr_mem_grow_arrays(st->mem, a, k, f->cap, cap, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        f->cap = cap;
    }
    gr_status s = cont_compact_reserve(&f->compact, st->mem, cells);
    if (s == GR_OK)
        s = cont_friction_reserve(&f->cf, st->mem, cells);
    if (s == GR_OK)
        s = gr_qp_workspace_reserve(&st->qp, st->mem, 5 * cells);
    /* (MIC(0)'s vectors for the pressure's problem, a cell an unknown; the friction's five a
     * cell use none: solve) */
    return s != GR_OK ? s : gr_qp_workspace_reserve_mic(&st->qp, st->mem, cells);
}

/* The last step's pressure, stress and density potential, kept on its grid for the next step's
 * warm starts. */
static gr_status reserve_previous(cont_state *st, uint32_t cells)
{
    if (cells <= st->prev_cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->prev_cap, cells);
    gr_array_ref a[] = {{(void **)&st->prev_p, sizeof(double)},
                        {(void **)&st->prev_s, 5 * sizeof(double)},
                        {(void **)&st->prev_y, sizeof(double)}};
    /* (the last step's values are still to be read: keep them) */
    if (!gr_mem_grow_arrays(st->mem, a, GR_COUNTOF(a), st->prev_cap, cap, gr_sparse_grid_cells(&st->prev)))
        return GR_ERROR_OUT_OF_MEMORY;
    st->prev_cap = cap;
    return GR_OK;
}

void cont_free_fields(cont_state *st)
{
    gr_array_ref fa[CONT_FIELD_ARRAYS];
    const uint32_t k = field_arrays(&st->f, fa);
    for (uint32_t i = 0; i < k; i++)
        gr_mem_free(st->mem, *fa[i].ptr, fa[i].elem_size * st->f.cap);
    st->f.cap = 0;
    gr_mem_free(st->mem, st->prev_p, sizeof(double) * st->prev_cap);
    gr_mem_free(st->mem, st->prev_s, 5 * sizeof(double) * st->prev_cap);
    gr_mem_free(st->mem, st->prev_y, sizeof(double) * st->prev_cap);
    st->prev_p = st->prev_s = st->prev_y = NULL;
    st->prev_cap = 0;
    gr_sparse_grid_free(&st->grid, st->mem);
    gr_sparse_grid_free(&st->prev, st->mem);
    gr_qp_workspace_free(&st->qp, st->mem);
    cont_compact_free(&st->f.compact, st->mem);
    cont_friction_free(&st->f.cf, st->mem);
    cont_bodies_free(&st->bodies, st->mem);
    gr_mem_free(st->mem, st->imp, sizeof(gr_vec3) * 2 * (size_t)st->imp_cap);
    st->imp = NULL;
    st->imp_cap = 0;
}

/* ---- the step ------------------------------------------------------------------------------ */

double cont_stable_step(const cont_state *st)
{
    double vmax = 0;
    for (uint32_t i = 0; i < st->n; i++)
        vmax = fmax(vmax, v3_len2(st->v[i]));
    vmax = sqrt(vmax);
    if (st->n) /* a body moving through the sand pushes it as fast */
        vmax = fmax(vmax, cont_bodies_max_speed(st->env.bodies));
    const double reach = st->par.cfl * st->par.cell, g = v3_len(*st->env.gravity);
    /* dt (vmax + g dt) <= reach */
    if (!(vmax > 0) && !(g > 0))
        return st->n ? 1.0 : INFINITY;
    if (!(g > 0))
        return reach / vmax;
    return (-vmax + sqrt(vmax * vmax + 4 * g * reach)) / (2 * g);
}

typedef struct grid_job {
    cont_state *st;
    const cont_faces *from, *to;
    const cont_grid_mass *m;
    const cont_faces *u, *u_other;
    double gc[3];
    double *part; /* [2 chunks]: the two energies' sums by chunk of CONT_BLOCKS_PER_TASK blocks */
} grid_job;

/* Last step's pressure, stress and density potential at the cells of blocks [b0, b1) (0 where
 * the grid is new): a block's cells keep their local index in the last grid's block of the same
 * coordinates. */
static void warm_start_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    cont_state *st = ((const grid_job *)ctx)->st;
    const gr_sparse_grid *g = &st->grid, *old = &st->prev;
    const uint32_t cells = gr_sparse_grid_cells(g), old_cells = gr_sparse_grid_cells(old);
    const bool y = st->par.density_correction;
    for (uint32_t b = b0; b < b1; b++) {
        const int32_t *k = g->block_coord + 3 * (size_t)b;
        const uint32_t ob = old_cells ? gr_sparse_grid_block_of(old, k[0], k[1], k[2]) : GR_INVALID_INDEX;
        for (uint32_t c = 64u * b; c < 64u * b + 64u; c++) {
            const uint32_t o = ob == GR_INVALID_INDEX ? ob : 64u * ob + (c & 63u);
            st->f.p[c] = o == GR_INVALID_INDEX ? 0.0 : st->prev_p[o];
            for (int j = 0; j < 5; j++)
                st->f.s[(size_t)j * cells + c] = o == GR_INVALID_INDEX ? 0.0 : st->prev_s[(size_t)j * old_cells + o];
            if (y)
                st->f.y[c] = o == GR_INVALID_INDEX ? 0.0 : st->prev_y[o];
        }
    }
}

static void warm_start(cont_state *st)
{
    grid_job j = {.st = st};
    cont_for_blocks(st->env.tasks, st->grid.block_count, warm_start_blocks, &j);
}

static void copy_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const grid_job *j = (const grid_job *)ctx;
    if (b1 == b0)
        return; /* (no blocks: the arrays may be NULL) */
    for (int a = 0; a < 3; a++)
        memcpy(j->to->f[a] + 64u * b0, j->from->f[a] + 64u * b0, sizeof(double) * 64u * (b1 - b0));
}

static void copy_faces(cont_state *st, const cont_faces *from, const cont_faces *to)
{
    grid_job j = {.st = st, .from = from, .to = to};
    cont_for_blocks_cheap(st->env.tasks, st->grid.block_count, copy_blocks, &j);
}

/* Gravity's dt g on every face with mass. */
static void gravity_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const grid_job *j = (const grid_job *)ctx;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 64u * b0; c < 64u * b1; c++)
            if (j->m->mass.f[a][c] > 0)
                j->u->f[a][c] += j->gc[a];
}

/* The kinetic energies of u and u_other on blocks [b0, b1), by chunk. */
static void energy_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const grid_job *j = (const grid_job *)ctx;
    for (uint32_t k = b0 / CONT_BLOCKS_PER_TASK; k * CONT_BLOCKS_PER_TASK < b1; k++) {
        const uint32_t end = GR_MIN(b1, (k + 1) * CONT_BLOCKS_PER_TASK);
        double e[2] = {0, 0};
        for (int a = 0; a < 3; a++)
            for (uint32_t c = 64u * k * CONT_BLOCKS_PER_TASK; c < 64u * end; c++) {
                e[0] += 0.5 * j->m->mass.f[a][c] * j->u->f[a][c] * j->u->f[a][c];
                e[1] += 0.5 * j->m->mass.f[a][c] * j->u_other->f[a][c] * j->u_other->f[a][c];
            }
        j->part[2 * k] = e[0];
        j->part[2 * k + 1] = e[1];
    }
}

/* The grid's kinetic energy with u less that with u_other: the sums by chunk of
 * CONT_BLOCKS_PER_TASK blocks, added in chunk order (the same bits for any worker count). The
 * chunks' sums in `scratch` ([cells], free here). */
static double grid_energy_change(cont_state *st, const cont_grid_mass *m, const cont_faces *u, const cont_faces *u_other,
                                 double *scratch)
{
    const uint32_t blocks = st->grid.block_count, chunks = (blocks + CONT_BLOCKS_PER_TASK - 1) / CONT_BLOCKS_PER_TASK;
    grid_job j = {.st = st, .m = m, .u = u, .u_other = u_other, .part = scratch};
    cont_for_blocks_cheap(st->env.tasks, blocks, energy_blocks, &j);
    double e = 0, e_other = 0;
    for (uint32_t k = 0; k < chunks; k++)
        e += scratch[2 * k], e_other += scratch[2 * k + 1];
    return e - e_other;
}

/* MPRGP steps a friction block may take in one staggered round (at most max_iterations). A block
 * need not converge within a round: the next round and the next step start from where it stopped
 * (the same reason a round runs one sweep). 8 keeps the piles' angles, runouts and flow rates of
 * the uncapped solve at about half its steps; 4 lets a slab below its friction angle creep.
 * More accuracy: raise friction_sweeps (each sweep gives every block its 8 steps again).
 * par.friction_block_steps overrides it (tests: the slab's friction angle is the same at 64,
 * test continuum_friction_angle_mapping). */
#define CONT_FRICTION_BLOCK_STEPS 8u

/* MPRGP steps the density correction takes a step (at most max_iterations; par.density_steps
 * overrides it). It starts from the last step's y (warm_start), so what one step leaves the next
 * goes on with, as the friction's blocks do. Cold-started (y = 0) it took ~30 steps a step on
 * the hourglass and 48 on a column at rest (h 1 cm, 18 cells), and capped cold at 8 it left the
 * column's long-wave over-packing to the pressure (180x its kinetic energy at rest, measured
 * before MIC(0)). Warm-started, the column's kinetic energy at rest (the last frame of 2 s)
 * against the uncapped correction's: 20x at 8, 7x at 12, 1.2x at 16 (test
 * density_warm_column_at_rest; docs/continuum.md). */
#define CONT_DENSITY_STEPS 16u

/* sgs: symmetric Gauss-Seidel in face (about half the MPRGP steps of Jacobi) where the problem's
 * rows are cheap; Jacobi otherwise. */
static gr_status solve(cont_state *st, const gr_qp_problem *pr, cont_pressure *cp, bool sgs, double *x,
                       uint32_t *iterations, uint32_t *matvecs)
{
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = st->par.tolerance;
    set.max_iter = st->par.max_iterations;
    set.jacobi = true;
    set.sgs = sgs;
    /* (the pressure's compact solve with MIC(0) in face, the seed's preconditioner (sec. 4): a
     * pile's pressure problem is a Laplacian with smooth weights, where it takes about half
     * SGS's steps when deep. Not the density correction's: measured cold-started, its free set
     * grew at nearly every proportioning step and each refactorization cost more than it saved;
     * warm-started and capped at 16 it still hits the cap, and costs 5-8 % more instructions
     * (bench/results-narain.md)) */
    set.mic = cp != NULL;
    set.tasks = st->env.tasks;
    gr_qp_stats qs;
    /* (the pressure on its unfixed cells: cont_pressure_solve) */
    const gr_status s = st->par.pgs ? gr_qp_pgs(pr, &set, &st->qp, x, &qs)
                        : cp       ? cont_pressure_solve(cp, &st->qp, &set, x, &qs)
                                   : gr_qp_mprgp(pr, &set, &st->qp, x, &qs);
    *iterations += qs.iterations;
    *matvecs += qs.matvecs;
    st->stats.converged = st->stats.converged && qs.converged;
    return s;
}

typedef struct advect_job {
    cont_state *st;
    double dt;
} advect_job;

/* Particles [i0, i1) move through the grid's flow (eq. 28 for their shapes): each writes only
 * its own state. */
static void advect_range(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const advect_job *j = (const advect_job *)ctx;
    cont_state *st = j->st;
    const double dt = j->dt;
    const gr_sparse_grid *g = &st->grid;
    const cont_fields *f = &st->f;
    const gr_vec3 gv = *st->env.gravity;
    for (uint32_t i = i0; i < i1; i++) {
        if (g->point_cell[i] == GR_INVALID_INDEX) { /* no grid here: free flight */
            st->x[i] = v3_madd(st->x[i], st->v[i], dt);
            st->v[i] = v3_madd(st->v[i], gv, dt);
            continue;
        }
        gr_vec3 d = {0, 0, 0};
        /* (far from any displacement d is zero: cont_density_reach) */
        if (st->par.density_correction && f->dx_near[g->point_cell[i]])
            d = cont_density_particle(g, &f->dx, st->x[i], dt, &st->v[i]);
        st->x[i] = v3_add(st->x[i], v3_madd(d, st->flow[i], dt));
        /* (a step deforms a particle by at most half its size: beside a wall one step's gradient
         * from the grid can be of order 1 / dt, and it would stretch an ellipsoid metres long) */
        double *J = st->grad + 9 * (size_t)i, n2 = 0;
        for (int k = 0; k < 9; k++)
            n2 += J[k] * J[k];
        if (dt * dt * n2 > 0.25) {
            const double scale = 0.5 / (dt * sqrt(n2));
            for (int k = 0; k < 9; k++)
                J[k] *= scale;
        }
        st->shape[i] = cont_shape_advance(st->shape[i], J, dt);
        if (st->par.points)
            cont_points_advance(st, i, st->grad + 9 * (size_t)i, dt);
    }
}

/* The time since *clock into *share; *clock = now. */
static void lap(double *clock, double *share)
{
    const double t = gr_clock_seconds();
    *share += t - *clock;
    *clock = t;
}

static gr_status step(cont_state *st, double dt, uint32_t *lost, double *clock)
{
    gr_status s;
    const gr_vec3 gv = *st->env.gravity;
    if (st->n == 0) { /* the bodies alone: gravity, their contacts, their motion */
        cont_bodies_fall(st->env.bodies, gv, dt);
        cont_contacts_solve(&st->contacts, st->env.bodies, st->env.materials, dt, st->imp, st->imp ? st->imp_cap : 0);
        cont_bodies_move(st->env.bodies, dt);
        return GR_OK;
    }
    cont_timing *tm = &st->timing;
    /* everything allocated first: the grid, its fields, the warm-start store. Cells within one
     * of a particle's hold the stencils and the free surface's air; with a moving body two, so
     * the body's faces around the sand close (at one, a sand block meeting a free box in zero
     * gravity changed the total momentum by its own). One instead of two: 40 % fewer cells on
     * the hourglass, and as much less time */
    const uint32_t halo = cont_bodies_any_moving(st->env.bodies) ? 2 : 1;
    /* (the particles sorted by cell: the transfers go block by block) */
    if (!gr_sparse_grid_build(&st->grid, st->mem, (const double *)st->x, 3, st->n, st->par.cell, (gr_vec3){0, 0, 0}, halo) ||
        !gr_sparse_grid_sort_points(&st->grid, st->mem))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_sparse_grid *g = &st->grid;
    const uint32_t cells = gr_sparse_grid_cells(g);
    if ((s = reserve_fields(st, cells)) != GR_OK || (s = reserve_previous(st, cells)) != GR_OK)
        return s;
    cont_fields *f = &st->f;
    f->cp.g = g;
    f->cp.dt = dt;
    f->cp.tasks = st->env.tasks;
    f->cf.cp = &f->cp;
    f->cp.compact = f->cf.compact = &f->compact;
    st->stats = (cont_stats){.cells = cells, .blocks = g->block_count, .converged = true};
    *lost = g->rejected;
    lap(clock, &tm->grid);

    /* 1. particles to grid; gravity on every face with mass */
    cont_particle_view pv = {st->n, st->x, st->v, st->m, st->vmin, st->alpha};
    cont_particles_to_grid_on(st->env.tasks, g, &pv, &f->gm);
    copy_faces(st, &f->gm.u, &f->u_old);
    grid_job gj = {.m = &f->gm, .u = &f->gm.u, .gc = {gv.x * dt, gv.y * dt, gv.z * dt}};
    cont_for_blocks_cheap(st->env.tasks, g->block_count, gravity_blocks, &gj);
    copy_faces(st, &f->gm.u, &f->u_star);
    lap(clock, &tm->particles);
    /* the bodies' fractions, faces and velocities (the last allocation of the step) */
    st->bodies.tasks = st->env.tasks;
    if ((s = cont_bodies_build(&st->bodies, st->mem, g, st->env.bodies, gv, dt, f->solid)) != GR_OK)
        return s;
    f->cp.bodies = &st->bodies;
    /* the last step's answers mapped here: the starts of the density correction and the solves */
    warm_start(st);
    lap(clock, &tm->grid);

    /* 1b. density correction (sec. 2.2.1, Fig. 8 step 2), on the pressure problem's arrays */
    if (st->par.density_correction) {
        gr_qp_settings ds = gr_qp_settings_default();
        ds.rel_tol = 0;
        ds.abs_tol = 1e-6; /* over-packing left, in volume fraction */
        const uint32_t cap = st->par.density_steps ? st->par.density_steps : CONT_DENSITY_STEPS;
        ds.max_iter = st->par.max_iterations < cap ? st->par.max_iterations : cap;
        ds.sgs = true; /* (symmetric Gauss-Seidel in face: half the steps of Jacobi) */
        ds.tasks = st->env.tasks;
        gr_qp_stats qs;
        if (st->par.density_cold)
            memset(f->y, 0, sizeof(double) * cells);
        /* (against fixed solids and free bodies at rest: where sand and a moving free body
         * overlap, the pressure pushes both apart, cont_bodies_rhs; a body at rest the sand
         * leaves by displacement, CONT_BODY_OVERLAP a step at most, so no velocity rocks it) */
        f->cp.bodies = NULL;
        const double *solid = cont_bodies_correction_solid(&st->bodies, cells, f->gm.phi);
        if ((s = cont_density_correct(&f->cp, &f->gm, solid, &st->qp, &ds, f->y, &f->dx, &qs,
                                      &st->stats.density_warm)) != GR_OK)
            return s;
        cont_density_reach(g, &f->dx, f->dx_near);
        f->cp.bodies = &st->bodies;
        st->stats.density_iterations = qs.iterations;
        f->cp.dt = dt;
    }
    lap(clock, &tm->pressure);

    /* 2. staggered projections (sec. 2.5, Fig. 8 step 3), warm-started from the last step */
    cont_pressure_weights(&f->cp, &f->gm, f->solid);
    cont_bodies_diag(&st->bodies, g, dt, f->cp.diag);
    cont_bodies_shares(&st->bodies, g, &f->gm.mass, &f->cp.inv_rho, f->solid);
    const uint32_t rounds = st->par.stagger ? st->par.stagger : 1;
    const cont_stress sv = cont_stress_view(f->s, cells);
    for (uint32_t r = 0; r < rounds; r++) {
        copy_faces(st, &f->u_star, &f->u_try);
        cont_friction_apply(&f->cf, f->s, &f->u_try);
        /* (the bodies, like the sand, move by the friction's last answer in the pressure solve
         * and by the pressure's in the friction solve: eq. 25-26 in staggered rounds) */
        cont_bodies_seen(&st->bodies, g, dt, NULL, &sv);
        lap(clock, &tm->friction);
        cont_pressure_rhs(&f->cp, &f->gm, &f->u_try, f->solid);
        cont_bodies_rhs(&st->bodies, g, dt, f->gm.phi, f->solid, f->cp.q);
        /* (after the bodies' part: a kinematic body pressing into a sealed group of sand is one
         * more way for b1 to sum below 0) */
        cont_pressure_bound(&f->cp, &f->gm, f->solid, &st->bodies);
        gr_qp_problem pp = cont_pressure_problem(&f->cp);
        /* (a free body's row sums over all its faces: SGS's sweeps would cost its faces squared) */
        if ((s = solve(st, &pp, &f->cp, st->bodies.free_count == 0, f->p, &st->stats.pressure_iterations, &st->stats.pressure_matvecs)) != GR_OK)
            return s;
        lap(clock, &tm->pressure);
        if (st->par.stagger == 0)
            break;
        copy_faces(st, &f->u_star, &f->u_try);
        cont_pressure_apply(&f->cp, f->p, &f->u_try);
        cont_bodies_seen(&st->bodies, g, dt, f->p, NULL);
        lap(clock, &tm->pressure);
        /* (the diagonal, the candidates and the block operators once a step) */
        if (r == 0)
            cont_friction_setup(&f->cf, &f->gm, &f->u_try, f->p, f->gm.alpha, 0.0);
        else
            cont_friction_setup_again(&f->cf, &f->gm, &f->u_try, f->p);
        if (st->par.friction_sweeps && !st->par.pgs) {
            gr_qp_settings set = gr_qp_settings_default();
            set.rel_tol = st->par.tolerance;
            const uint32_t cap = st->par.friction_block_steps ? st->par.friction_block_steps : CONT_FRICTION_BLOCK_STEPS;
            set.max_iter = st->par.max_iterations < cap ? st->par.max_iterations : cap;
            /* (symmetric Gauss-Seidel in face: each block is a sum of one-directional weighted
             * Laplacians, whose splitting takes about half Jacobi's steps and expansions; Jacobi
             * with a free body, whose rows (eq. 26) sum over all its faces as the pressure's do) */
            set.sgs = st->bodies.free_count == 0;
            set.tasks = st->env.tasks;
            gr_qp_stats qs;
            if ((s = cont_friction_solve_blocks(&f->cf, &st->qp, &set, st->par.friction_sweeps, f->s, &qs)) != GR_OK)
                return s;
            /* (a round's sweeps need not converge: the rounds go on from where they stopped) */
            st->stats.friction_iterations += qs.iterations;
            st->stats.friction_matvecs += qs.matvecs;
        } else {
            gr_qp_problem fp = cont_friction_problem(&f->cf);
            if ((s = solve(st, &fp, NULL, st->bodies.free_count == 0, f->s, &st->stats.friction_iterations, &st->stats.friction_matvecs)) != GR_OK)
                return s;
        }
        lap(clock, &tm->friction);
    }
    if (st->par.stagger == 0)
        memset(f->s, 0, sizeof(double) * 5 * cells);

    /* 3. the velocity of eq. 5 / 27 */
    copy_faces(st, &f->u_star, &f->gm.u);
    cont_pressure_apply(&f->cp, f->p, &f->gm.u);
    lap(clock, &tm->pressure);
    copy_faces(st, &f->gm.u, &f->u_try);
    cont_friction_apply(&f->cf, f->s, &f->gm.u);
    st->stats.friction_work = grid_energy_change(st, &f->gm, &f->gm.u, &f->u_try, f->cp.scratch.f[0]);
    lap(clock, &tm->friction);

    /* 3b. the bodies take what the sand gave them (eq. 23) and move */
    cont_bodies_impulse(&st->bodies, g, dt, f->p, &sv);
    cont_bodies_finish(&st->bodies, st->env.bodies, st->imp, st->imp ? st->imp_cap : 0);
    /* (free bodies meet the other bodies with their new velocities, then all move) */
    cont_contacts_solve(&st->contacts, st->env.bodies, st->env.materials, dt, st->imp, st->imp ? st->imp_cap : 0);
    cont_bodies_move(st->env.bodies, dt);

    /* 4. particles: FLIP velocities, motion, shapes (eq. 28) */
    cont_grid_to_particles_on(st->env.tasks, g, &pv, &f->gm.u, &f->u_old, st->par.pic, st->grad, st->flow);
    advect_job aj = {st, dt};
    if (!st->env.tasks || st->env.tasks->worker_count <= 1 || st->n <= CONT_PARTICLES_PER_TASK)
        advect_range(&aj, 0, st->n, 0);
    else
        gr_parallel_for(st->env.tasks, st->n, CONT_PARTICLES_PER_TASK, advect_range, &aj);
    lap(clock, &tm->particles);

    cont_bodies_push_out(&st->bodies, st->env.bodies, st->n, st->x, st->v, st->m, st->imp, st->imp ? st->imp_cap : 0);

    /* 5. keep this step's solution for the next one's warm start */
    memcpy(st->prev_p, f->p, sizeof(double) * cells);
    memcpy(st->prev_s, f->s, 5 * sizeof(double) * cells);
    if (st->par.density_correction)
        memcpy(st->prev_y, f->y, sizeof(double) * cells);
    else
        memset(st->prev_y, 0, sizeof(double) * cells);
    const gr_sparse_grid t = st->prev;
    st->prev = st->grid;
    st->grid = t;
    lap(clock, &tm->grid);
    return GR_OK;
}

gr_status cont_step(cont_state *st, double dt, uint32_t *lost)
{
    *lost = 0;
    const double t0 = gr_clock_seconds();
    double clock = t0;
    const gr_status s = step(st, dt, lost, &clock);
    cont_timing *tm = &st->timing;
    tm->total += clock - t0;
    tm->steps++;
    tm->pressure_iterations += st->stats.pressure_iterations;
    tm->friction_iterations += st->stats.friction_iterations;
    tm->density_iterations += st->stats.density_iterations;
    tm->density_warm += st->stats.density_warm;
    return s;
}
