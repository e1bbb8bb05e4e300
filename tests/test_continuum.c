/* SPDX-License-Identifier: MIT */
/* The continuum solver's parts (Narain, Golas, Lin 2010), white box: the particles' ellipsoids
 * under the flow (eq. 28), split and merge (sec. 3.1, eq. 29); the staggered grid's operators
 * (adjoint pairs, rigid motions stress free). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/continuum/cont_ops.h"
#include "../lib/continuum/cont_friction.h"
#include "../lib/continuum/cont_pressure.h"
#include "../lib/qp/qp_pgs.h"
#include "../lib/qp/qp_mprgp.h"
#include <string.h>
#include "../lib/continuum/cont_shape.h"
#include "../lib/continuum/cont_def.h"
#include "../lib/continuum/cont_step.h"
#include "../lib/continuum/cont_regrain.h"
#include "../lib/continuum/cont_points.h"
#include "../lib/world/world.h"
#include "../lib/core/alloc.h"
#include "../lib/core/rng.h"
#include "../lib/continuum/cont_bodies.h"
#include "../lib/continuum/cont_body_friction.h"
#include "../lib/bodies/body_shapes.h"
#include "harness.h"
#include "test_util.h"

static double rnd(gr_rng *g, double lo, double hi) { return lo + (hi - lo) * gr_rng_uniform(g); }

static double sym3_diff(cont_sym3 a, cont_sym3 b)
{
    return fabs(a.xx - b.xx) + fabs(a.yy - b.yy) + fabs(a.zz - b.zz) + fabs(a.xy - b.xy) + fabs(a.yz - b.yz) +
           fabs(a.xz - b.xz);
}

/* A random SPD shape with semi-axes in [lo, hi]: R diag(l^2) R^T for a random rotation. */
static cont_sym3 random_shape(gr_rng *g, double lo, double hi, double length[3])
{
    /* a random rotation from a random unit quaternion */
    double q[4], n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = rnd(g, -1, 1);
        n += q[k] * q[k];
    }
    n = sqrt(n);
    const double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int k = 0; k < 3; k++)
        length[k] = rnd(g, lo, hi);
    double A[3][3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            A[a][b] = 0;
            for (int k = 0; k < 3; k++)
                A[a][b] += R[a][k] * length[k] * length[k] * R[b][k];
        }
    return (cont_sym3){A[0][0], A[1][1], A[2][2], A[0][1], A[1][2], A[0][2]};
}

/* Eq. 28 under a rotation (J skew): the semi-axes keep their lengths to O(dt^2) per step; under
 * a uniform expansion J = e I the volume grows by exactly (1 + e dt)^3 per step; any J and dt
 * keep A symmetric positive semi-definite. */
static void test_shape_follows_the_flow(void)
{
    gr_rng g = {7};
    double l0[3], l[3], axes[3][3];
    const cont_sym3 A0 = random_shape(&g, 0.5, 2.0, l0);
    const double w = 3.0, dt = 1e-3; /* rad/s about z */
    const double J[9] = {0, -w, 0, w, 0, 0, 0, 0, 0};
    cont_sym3 A = A0;
    const int steps = 1000; /* 3 rad */
    for (int k = 0; k < steps; k++)
        A = cont_shape_advance(A, J, dt);
    cont_shape_axes(A, l, axes);
    double s0[3] = {l0[0], l0[1], l0[2]};
    /* ascending order, as cont_shape_axes gives them */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (s0[j] < s0[i]) { const double t = s0[i]; s0[i] = s0[j]; s0[j] = t; }
    const double bound = 1.0 + steps * dt * dt * w * w; /* (1 + dt^2 w^2)^(n/2) >= growth */
    for (int k = 0; k < 3; k++) {
        CHECK(l[k] >= s0[k] * (1 - 1e-12));
        CHECK(l[k] <= s0[k] * bound);
    }
    printf("  rotation by %.1f rad: semi-axes %.6f %.6f %.6f -> %.6f %.6f %.6f\n", w * dt * steps, s0[0], s0[1], s0[2],
           l[0], l[1], l[2]);

    const double e = 0.7;
    const double Je[9] = {e, 0, 0, 0, e, 0, 0, 0, e};
    const double v0 = cont_shape_volume(A0), v1 = cont_shape_volume(cont_shape_advance(A0, Je, dt));
    CHECK_NEAR(v1 / v0, pow(1 + e * dt, 3), 1e-12);

    for (int t = 0; t < 200; t++) {
        double Jr[9];
        for (int k = 0; k < 9; k++)
            Jr[k] = rnd(&g, -50, 50);
        const cont_sym3 B = cont_shape_advance(A0, Jr, rnd(&g, 0, 1));
        double lb[3], ab[3][3];
        cont_shape_axes(B, lb, ab);
        CHECK(isfinite(lb[0]) && isfinite(lb[2]) && lb[0] >= 0);
        CHECK(cont_shape_volume(B) >= 0);
    }
}

/* Split halves the longest axis and keeps mass, momentum and the centre of mass; merging the
 * two children by eq. 29 gives the parent back (sec. 3.1); a split whose children would be
 * invalid is refused. Merge keeps mass, momentum and the centre of mass for any pair. */
static void test_split_and_merge(void)
{
    gr_rng g = {11};
    const double r = 0.01;
    int splits = 0;
    for (int t = 0; t < 500; t++) {
        double l[3];
        cont_blob p = {rnd(&g, 0.1, 2), {rnd(&g, -1, 1), rnd(&g, -1, 1), rnd(&g, -1, 1)},
                       {rnd(&g, -3, 3), rnd(&g, -3, 3), rnd(&g, -3, 3)}, random_shape(&g, 0.75 * r, 3.2 * r, l)};
        cont_blob a, b;
        const double lmax = fmax(l[0], fmax(l[1], l[2]));
        const bool ok = cont_shape_split(&p, r, &a, &b);
        /* children valid: the halved axis and the two others inside [r/sqrt2, sqrt2 r]
         * (strictly inside by a margin: must split; outside by one: must not) */
        bool inside = true, near = true;
        for (int k = 0; k < 3; k++) {
            const double len = l[k] == lmax ? 0.5 * lmax : l[k];
            inside = inside && len >= r / sqrt(2.0) * (1 + 1e-9) && len <= sqrt(2.0) * r * (1 - 1e-9);
            near = near && len >= r / sqrt(2.0) * (1 - 1e-9) && len <= sqrt(2.0) * r * (1 + 1e-9);
        }
        CHECK(!inside || ok);
        CHECK(near || !ok);
        if (!ok)
            continue;
        splits++;
        CHECK(cont_shape_valid(a.A, r) && cont_shape_valid(b.A, r));
        CHECK_NEAR(a.m + b.m, p.m, 1e-15 * p.m);
        const gr_vec3 com = v3_scale(v3_add(v3_scale(a.x, a.m), v3_scale(b.x, b.m)), 1 / (a.m + b.m));
        CHECK(v3_len(v3_sub(com, p.x)) < 1e-14);
        const gr_vec3 mom = v3_add(v3_scale(a.v, a.m), v3_scale(b.v, b.m));
        CHECK(v3_len(v3_sub(mom, v3_scale(p.v, p.m))) < 1e-14 * (1 + p.m * v3_len(p.v)));
        double la[3], ax[3][3];
        cont_shape_axes(a.A, la, ax);
        CHECK_NEAR(cont_shape_volume(a.A), 0.5 * cont_shape_volume(p.A), 1e-9 * cont_shape_volume(p.A));
        const cont_blob back = cont_shape_merge(&a, &b);
        CHECK_NEAR(back.m, p.m, 1e-15 * p.m);
        CHECK(v3_len(v3_sub(back.x, p.x)) < 1e-14);
        CHECK(sym3_diff(back.A, p.A) < 1e-12 * lmax * lmax);
    }
    printf("  %d of 500 random shapes split (the rest would give invalid children)\n", splits);
    CHECK(splits > 50);

    /* two touching spheres merge into one along their line, mass and momentum kept */
    const cont_blob s1 = {1.0, {0, 0, 0}, {1, 0, 0}, cont_sym3_sphere(r)};
    const cont_blob s2 = {3.0, {0, 0.5 * r, 0}, {0, -1, 2}, cont_sym3_sphere(r)};
    const cont_blob m = cont_shape_merge(&s1, &s2);
    CHECK(m.m == 4.0);
    CHECK_NEAR(m.x.y, 0.375 * r, 1e-18);
    CHECK_NEAR(m.v.x, 0.25, 1e-15);
    CHECK_NEAR(m.v.y, -0.75, 1e-15);
    CHECK_NEAR(m.v.z, 1.5, 1e-15);
    CHECK_NEAR(m.A.yy, r * r + (1.0 * 0.375 * 0.375 + 3.0 * 0.125 * 0.125) / 4.0 * r * r, 1e-18);
    CHECK(m.A.xx == r * r && m.A.xy == 0);
}

/* ---- the staggered grid's operators -------------------------------------------------------- */

/* A sparse grid over three clusters of points (one at negative coordinates, one far away). */
static void cluster_grid(gr_sparse_grid *g, gr_mem *mem, double h, int halo)
{
    gr_rng r = {3};
    enum { N = 600 };
    static double pos[3 * N];
    const gr_vec3 centre[3] = {{0.1, 0.2, 0.0}, {-0.4, -0.35, 0.3}, {5.0, 1.0, -2.0}};
    for (int i = 0; i < N; i++) {
        const gr_vec3 c = centre[i % 3];
        pos[3 * i] = c.x + rnd(&r, -0.08, 0.08);
        pos[3 * i + 1] = c.y + rnd(&r, -0.05, 0.05);
        pos[3 * i + 2] = c.z + rnd(&r, -0.06, 0.06);
    }
    gr_sparse_grid_init(g);
    CHECK(gr_sparse_grid_build(g, mem, pos, 3, N, h, (gr_vec3){0.013, -0.007, 0.002}, halo));
}

static double *field(uint32_t n, gr_rng *r)
{
    double *f = (double *)malloc(sizeof(double) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++)
        f[i] = r ? rnd(r, -1, 1) : 0.0;
    return f;
}

static double dot(const double *a, const double *b, uint32_t n)
{
    double s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* <D1 p, u> = -<p, D u> and <D2 s, u> = <s, D2^T u> for random fields: the pressure and friction
 * matrices built from them are symmetric, and the friction QP is the maximal-dissipation problem. */
static void test_operators_adjoint(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_sparse_grid g;
    cluster_grid(&g, &mem, 0.02, 2);
    const uint32_t n = gr_sparse_grid_cells(&g);
    gr_rng r = {5};
    double *p = field(n, &r), *d = field(n, NULL);
    cont_faces u = {{field(n, &r), field(n, &r), field(n, &r)}}, gp = {{field(n, NULL), field(n, NULL), field(n, NULL)}};
    cont_stress s = {field(n, &r), field(n, &r), field(n, &r), field(n, &r), field(n, &r)};
    cont_stress st = {field(n, NULL), field(n, NULL), field(n, NULL), field(n, NULL), field(n, NULL)};
    cont_faces ds = {{field(n, NULL), field(n, NULL), field(n, NULL)}};
    cont_div(&g, &u, d);
    cont_grad(&g, p, &gp);
    const double lhs = dot(gp.f[0], u.f[0], n) + dot(gp.f[1], u.f[1], n) + dot(gp.f[2], u.f[2], n);
    const double rhs = -dot(p, d, n);
    printf("  %u cells: <D1 p, u> = %.12g, -<p, D u> = %.12g\n", n, lhs, rhs);
    CHECK(fabs(lhs - rhs) < 1e-12 * (fabs(lhs) + n));
    cont_stress_div(&g, &s, &ds);
    cont_stress_div_t(&g, &u, &st);
    const double l2 = dot(ds.f[0], u.f[0], n) + dot(ds.f[1], u.f[1], n) + dot(ds.f[2], u.f[2], n);
    const double r2 = dot(s.a, st.a, n) + dot(s.b, st.b, n) + dot(s.xy, st.xy, n) + dot(s.yz, st.yz, n) +
                      dot(s.xz, st.xz, n);
    printf("  <D2 s, u> = %.12g, <s, D2^T u> = %.12g\n", l2, r2);
    CHECK(fabs(l2 - r2) < 1e-12 * (fabs(l2) + n));
    CHECK(fabs(lhs) > 1.0 && fabs(l2) > 1.0); /* not trivially zero */
    /* cont_friction_apply's D2 s by grid blocks (its own copy of the stencil, neighbour blocks
     * looked up once a block) is cont_stress_div_face's to the bit: u + dt inv_rho D2 s */
    double *s5 = field(5 * n, NULL);
    const double *parts[5] = {s.a, s.b, s.xy, s.yz, s.xz};
    for (int k = 0; k < 5; k++)
        memcpy(s5 + (size_t)k * n, parts[k], sizeof(double) * n);
    cont_pressure cp;
    memset(&cp, 0, sizeof cp);
    cp.g = &g, cp.dt = 0.003;
    cp.inv_rho = (cont_faces){{field(n, &r), field(n, &r), field(n, &r)}};
    cont_friction cf;
    memset(&cf, 0, sizeof cf);
    cf.cp = &cp;
    cont_faces v = {{field(n, NULL), field(n, NULL), field(n, NULL)}};
    for (int a = 0; a < 3; a++)
        memcpy(v.f[a], u.f[a], sizeof(double) * n);
    cont_friction_apply(&cf, s5, &v);
    uint32_t differ = 0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < n; c++)
            differ += v.f[a][c] != u.f[a][c] + cp.dt * cp.inv_rho.f[a][c] * cont_stress_div_face(&g, &s, c, a);
    printf("  cont_friction_apply against cont_stress_div_face: %u of %u faces differ\n", differ, 3 * n);
    CHECK(differ == 0);
    free(s5);
    for (int a = 0; a < 3; a++)
        free(cp.inv_rho.f[a]), free(v.f[a]);
    free(p), free(d);
    for (int a = 0; a < 3; a++)
        free(u.f[a]), free(gp.f[a]), free(ds.f[a]);
    free(s.a), free(s.b), free(s.xy), free(s.yz), free(s.xz);
    free(st.a), free(st.b), free(st.xy), free(st.yz), free(st.xz);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

/* A rigid motion (translation and rotation) sampled on the faces has no divergence and no
 * strain: D u = 0 and D2^T u = 0 wherever the stencils' cells are active; a linear pressure has
 * its slope as gradient on every face whose two cells are active. */
static void test_rigid_motion_stress_free(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_sparse_grid g;
    const double h = 0.02;
    cluster_grid(&g, &mem, h, 2);
    const uint32_t n = gr_sparse_grid_cells(&g);
    const gr_vec3 V = {0.3, -1.2, 0.7}, W = {2.0, -0.5, 1.5}, slope = {3.0, -7.0, 11.0};
    cont_faces u = {{field(n, NULL), field(n, NULL), field(n, NULL)}}, gp = {{field(n, NULL), field(n, NULL), field(n, NULL)}};
    double *p = field(n, NULL), *d = field(n, NULL);
    cont_stress st = {field(n, NULL), field(n, NULL), field(n, NULL), field(n, NULL), field(n, NULL)};
    for (uint32_t c = 0; c < n; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(&g, c, k);
        const gr_vec3 lo = v3_add(g.origin, v3_scale(v3(k[0], k[1], k[2]), h));
        const gr_vec3 fx = v3_add(lo, v3(0, 0.5 * h, 0.5 * h)), fy = v3_add(lo, v3(0.5 * h, 0, 0.5 * h)),
                      fz = v3_add(lo, v3(0.5 * h, 0.5 * h, 0)), centre = v3_add(lo, v3(0.5 * h, 0.5 * h, 0.5 * h));
        u.f[0][c] = v3_add(V, v3_cross(W, fx)).x;
        u.f[1][c] = v3_add(V, v3_cross(W, fy)).y;
        u.f[2][c] = v3_add(V, v3_cross(W, fz)).z;
        p[c] = v3_dot(slope, centre);
    }
    cont_div(&g, &u, d);
    cont_stress_div_t(&g, &u, &st);
    cont_grad(&g, p, &gp);
    uint32_t interior = 0, faces = 0;
    double worst = 0, worst_grad = 0;
    for (uint32_t c = 0; c < n; c++) {
        bool all = true;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    all = all && gr_sparse_grid_neighbor(&g, c, dx, dy, dz) != GR_INVALID_INDEX;
        if (all) {
            interior++;
            const double e[6] = {d[c], st.a[c], st.b[c], st.xy[c], st.yz[c], st.xz[c]};
            for (int k = 0; k < 6; k++)
                worst = fmax(worst, fabs(e[k]));
        }
        for (int a = 0; a < 3; a++)
            if (gr_sparse_grid_neighbor(&g, c, a == 0 ? -1 : 0, a == 1 ? -1 : 0, a == 2 ? -1 : 0) != GR_INVALID_INDEX) {
                faces++;
                worst_grad = fmax(worst_grad, fabs(gp.f[a][c] - v3_get(slope, a)));
            }
    }
    printf("  %u interior cells: largest divergence or strain of a rigid motion %.3g /s; %u faces: gradient "
           "error %.3g\n", interior, worst, faces, worst_grad);
    CHECK(interior > 1000);
    CHECK(worst < 1e-9);
    CHECK(worst_grad < 1e-8);
    free(p), free(d);
    for (int a = 0; a < 3; a++)
        free(u.f[a]), free(gp.f[a]);
    free(st.a), free(st.b), free(st.xy), free(st.yz), free(st.xz);
    gr_sparse_grid_free(&g, &mem);
}

/* ---- pressure and friction (eq. 6-20), stepped by a small driver -------------------------- */

/* Particles in a world of solid cells (phi_s = 1 where `solid` says), stepped by the transfers
 * and the staggered pressure and friction solves alone. */
typedef struct scene {
    double h, dt, alpha;  ///< cell edge, step, friction coefficient (eq. 15)
    gr_vec3 gravity;
    int stagger;          ///< staggered projections (0: pressure only)
    bool (*solid)(const struct scene *s, gr_vec3 centre);
    double L;             ///< the box's side (for `solid`)
    uint32_t n;
    gr_vec3 *x, *v;
    double *m, *vmin;
    /* after a step: the grid, its pressure, and the solves' statistics */
    gr_sparse_grid g;
    double *p;
    gr_qp_stats pressure, friction;
    double friction_work; ///< the friction's energy change of the step (<= 0: it dissipates)
} scene;

static double *zeros(uint32_t n) { return (double *)calloc(n ? n : 1, sizeof(double)); }
static cont_faces face_zeros(uint32_t n) { return (cont_faces){{zeros(n), zeros(n), zeros(n)}}; }
static void face_free(cont_faces *f) { free(f->f[0]), free(f->f[1]), free(f->f[2]); }
static void face_copy(const cont_faces *from, const cont_faces *to, uint32_t n)
{
    for (int a = 0; a < 3; a++)
        memcpy(to->f[a], from->f[a], sizeof(double) * n);
}

static bool box_walls(const scene *s, gr_vec3 c) { return c.x < 0 || c.x > s->L || c.y < 0 || c.z < 0 || c.z > s->L; }
static bool floor_only(const scene *s, gr_vec3 c) { (void)s; return c.y < 0; }

/* A block of particles at the critical density (8 per cell) over [lo, hi]. */
static void scene_block(scene *s, gr_vec3 lo, gr_vec3 hi, double rho)
{
    const double d = 0.5 * s->h;
    const int nx = (int)((hi.x - lo.x) / d + 0.5), ny = (int)((hi.y - lo.y) / d + 0.5), nz = (int)((hi.z - lo.z) / d + 0.5);
    s->n = (uint32_t)(nx * ny * nz);
    s->x = (gr_vec3 *)malloc(sizeof(gr_vec3) * s->n);
    s->v = (gr_vec3 *)calloc(s->n, sizeof(gr_vec3));
    s->m = zeros(s->n), s->vmin = zeros(s->n);
    uint32_t k = 0;
    for (int j = 0; j < ny; j++)
        for (int kk = 0; kk < nz; kk++)
            for (int i = 0; i < nx; i++, k++) {
                s->x[k] = v3(lo.x + (i + 0.5) * d, lo.y + (j + 0.5) * d, lo.z + (kk + 0.5) * d);
                s->vmin[k] = d * d * d;
                s->m[k] = rho * d * d * d;
            }
    gr_sparse_grid_init(&s->g);
    s->p = NULL;
}

static void scene_free(scene *s, gr_mem *mem)
{
    free(s->p), free(s->x), free(s->v), free(s->m), free(s->vmin);
    gr_sparse_grid_free(&s->g, mem);
}

static void solve(const gr_qp_problem *pr, gr_mem *mem, double *x, gr_qp_stats *st)
{
    gr_qp_workspace ws;
    memset(&ws, 0, sizeof ws);
    CHECK(gr_qp_workspace_reserve(&ws, mem, pr->n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.jacobi = true;
    set.rel_tol = 1e-8;
    set.max_iter = 5000;
    CHECK(gr_qp_mprgp(pr, &set, &ws, x, st) == GR_OK);
    gr_qp_workspace_free(&ws, mem);
}

static double face_energy(const cont_grid_mass *m, const cont_faces *u, uint32_t cells)
{
    double e = 0;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            e += 0.5 * m->mass.f[a][c] * u->f[a][c] * u->f[a][c];
    return e;
}

static void scene_step(scene *s, gr_mem *mem)
{
    gr_sparse_grid *g = &s->g;
    CHECK(gr_sparse_grid_build(g, mem, (const double *)s->x, 3, s->n, s->h, (gr_vec3){0, 0, 0}, 2) &&
          gr_sparse_grid_sort_points(g, mem));
    const uint32_t cells = gr_sparse_grid_cells(g);
    cont_grid_mass gm = {face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), NULL};
    cont_particle_view pv = {s->n, s->x, s->v, s->m, s->vmin, NULL};
    cont_particles_to_grid(g, &pv, &gm);
    cont_faces u_old = face_zeros(cells), u_star = face_zeros(cells), u_try = face_zeros(cells);
    face_copy(&gm.u, &u_old, cells);
    double *solid = zeros(cells);
    const double gv[3] = {s->gravity.x, s->gravity.y, s->gravity.z};
    for (uint32_t c = 0; c < cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        solid[c] = s->solid(s, v3((k[0] + 0.5) * s->h, (k[1] + 0.5) * s->h, (k[2] + 0.5) * s->h)) ? 1.0 : 0.0;
        for (int a = 0; a < 3; a++)
            if (gm.mass.f[a][c] > 0)
                gm.u.f[a][c] += s->dt * gv[a];
    }
    face_copy(&gm.u, &u_star, cells);
    cont_pressure cp = {g, s->dt, face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells),
                        zeros(cells), zeros(cells), zeros(cells), NULL, NULL, NULL, CONT_SEALED_UNKNOWN};
    cont_friction cf = {.cp = &cp, .scratch = face_zeros(cells), .q = zeros(5 * cells), .diag = zeros(5 * cells),
                        .lo = zeros(5 * cells), .hi = zeros(5 * cells)};
    free(s->p);
    s->p = zeros(cells);
    double *st = zeros(5 * cells);
    memset(&s->friction, 0, sizeof s->friction);
    const int rounds = s->stagger > 0 ? s->stagger : 1;
    for (int r = 0; r < rounds; r++) {
        /* pressure for the current friction (seed Fig. 8 step 3: the friction of the last round) */
        face_copy(&u_star, &u_try, cells);
        cont_friction_apply(&cf, st, &u_try);
        cont_pressure_setup(&cp, &gm, &u_try, solid);
        gr_qp_problem pp = cont_pressure_problem(&cp);
        solve(&pp, mem, s->p, &s->pressure);
        CHECK(s->pressure.converged);
        if (s->stagger == 0)
            break;
        /* friction for this pressure */
        face_copy(&u_star, &u_try, cells);
        cont_pressure_apply(&cp, s->p, &u_try);
        cont_friction_setup(&cf, &gm, &u_try, s->p, NULL, s->alpha);
        gr_qp_problem fp = cont_friction_problem(&cf);
        solve(&fp, mem, st, &s->friction);
        CHECK(s->friction.converged);
    }
    face_copy(&u_star, &gm.u, cells);
    cont_pressure_apply(&cp, s->p, &gm.u);
    face_copy(&gm.u, &u_try, cells);
    cont_friction_apply(&cf, st, &gm.u);
    s->friction_work = face_energy(&gm, &gm.u, cells) - face_energy(&gm, &u_try, cells);
    cont_grid_to_particles(g, &pv, &gm.u, &u_old, 0.05, NULL, NULL);
    for (uint32_t i = 0; i < s->n; i++) {
        gr_vec3 v;
        if (cont_velocity_at(g, &gm.u, s->x[i], &v))
            s->x[i] = v3_madd(s->x[i], v, s->dt);
    }
    face_free(&gm.mass), face_free(&gm.vol), face_free(&gm.u), free(gm.phi);
    face_free(&u_old), face_free(&u_star), face_free(&u_try), free(solid), free(st);
    face_free(&cp.w), face_free(&cp.inv_rho), face_free(&cp.scratch);
    free(cp.q), free(cp.diag), free(cp.lo), free(cp.hi);
    face_free(&cf.scratch), free(cf.q), free(cf.diag), free(cf.lo), free(cf.hi);
}

/* A column in a box of solid walls, pressure alone: it settles, and the pressure is the weight of
 * the sand above, rho_max g depth. */
static void test_hydrostatic_column(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double rho = 1500;
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {0, -9.81, 0}, .solid = box_walls, .L = 0.1};
    const double H = 0.3, d = 0.5 * s.h;
    scene_block(&s, v3(0, 0, 0), v3(s.L, H, s.L), rho);
    const int steps = 400;
    for (int k = 0; k < steps; k++) {
        scene_step(&s, &mem);
        if (k == 0 || k == steps - 1)
            printf("  step %d: MPRGP %u iterations, %u matvecs, |g^P| %.2g\n", k, s.pressure.iterations,
                   s.pressure.matvecs, s.pressure.gp_norm);
    }
    double vmax = 0, top = 0;
    for (uint32_t i = 0; i < s.n; i++) {
        vmax = fmax(vmax, v3_len(s.v[i]));
        top = fmax(top, s.x[i].y);
    }
    /* the pressure down the column's middle against rho g depth (the surface: the top particle
     * plus half a spacing) */
    const double surface = top + 0.5 * d;
    double worst = 0;
    int rows = 0;
    for (int j = 0; j < 15; j++) {
        const uint32_t c = gr_sparse_grid_cell(&s.g, 2, j, 2);
        if (c == GR_INVALID_INDEX)
            continue;
        const double depth = surface - (j + 0.5) * s.h, expect = rho * 9.81 * depth;
        if (j % 3 == 0)
            printf("  cell row %2d: p %8.1f Pa, rho g depth %8.1f Pa\n", j, s.p[c], expect);
        worst = fmax(worst, fabs(s.p[c] - expect) / (rho * 9.81 * surface));
        rows++;
    }
    printf("  after %.2f s: fastest particle %.3g m/s, surface %.4f m (built %.4f), worst pressure error %.1f %% "
           "of the bottom's\n", steps * s.dt, vmax, surface, H, 100 * worst);
    CHECK(rows >= 5);
    CHECK(worst < 0.08);
    CHECK(vmax < 0.05);
    CHECK(fabs(surface - H) < 0.1 * H);
    scene_free(&s, &mem);
}

/* A tent-function splat for the reference: the weight of the node at n (cell coordinates) for
 * a point at t (cell coordinates), the product over the axes of max(0, 1 - |t - n|). */
static double tent(const double t[3], const double n[3])
{
    double w = 1;
    for (int a = 0; a < 3; a++)
        w *= fmax(0.0, 1.0 - fabs(t[a] - n[a]));
    return w;
}

/* P2G and G2P give the same bits for 1, 2 and 3 workers (P2G's slabs, G2P's particles in
 * parallel; one summation order a cell); P2G's sums match a splat in particle order by tent
 * functions to rounding (every particle lands once on each of its nodes, whichever slab its
 * block is in); G2P's velocity of a linear field is exact. */
static void test_transfers_same_bits_for_any_worker_count(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    enum { N = 6000 };
    gr_rng r = {11};
    gr_vec3 *x = (gr_vec3 *)malloc(sizeof(gr_vec3) * N), *v0 = (gr_vec3 *)malloc(sizeof(gr_vec3) * N);
    double *m = zeros(N), *vmin = zeros(N), *alpha = zeros(N);
    const double h = 0.02;
    for (int i = 0; i < N; i++) {
        /* two clumps across block boundaries of both signs, a few strays, one lost point */
        const gr_vec3 c = i % 7 == 0 ? v3(-0.31, 0.05, -0.12) : v3(0.0, 0.0, 0.0);
        x[i] = v3(c.x + rnd(&r, -0.09, 0.11), c.y + rnd(&r, -0.07, 0.05), c.z + rnd(&r, -0.1, 0.1));
        if (i % 997 == 5)
            x[i] = v3(rnd(&r, -3, 3), rnd(&r, -3, 3), rnd(&r, -3, 3));
        v0[i] = v3(rnd(&r, -1, 1), rnd(&r, -1, 1), rnd(&r, -1, 1));
        m[i] = rnd(&r, 1e-5, 3e-5);
        vmin[i] = m[i] / 1600.0;
        alpha[i] = rnd(&r, 0.3, 0.7);
    }
    x[17] = v3(NAN, 0, 0);
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, (const double *)x, 3, N, h, v3(0.003, -0.001, 0.002), 1) &&
          gr_sparse_grid_sort_points(&g, &mem));
    CHECK(g.rejected == 1);
    const uint32_t cells = gr_sparse_grid_cells(&g);
    enum { RUNS = 3 };
    cont_grid_mass gm[RUNS];
    gr_vec3 *v[RUNS], *flow[RUNS];
    double *grad[RUNS];
    gr_tasks pools[RUNS];
    for (int w = 0; w < RUNS; w++) {
        gm[w] = (cont_grid_mass){face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), zeros(cells)};
        v[w] = (gr_vec3 *)malloc(sizeof(gr_vec3) * N);
        flow[w] = (gr_vec3 *)malloc(sizeof(gr_vec3) * N);
        grad[w] = zeros(9 * N);
        memcpy(v[w], v0, sizeof(gr_vec3) * N);
        CHECK(gr_tasks_init(&pools[w], &mem, (uint32_t)w + 1, NULL) == GR_OK);
        cont_particle_view pv = {N, x, v[w], m, vmin, alpha};
        cont_particles_to_grid_on(w ? &pools[w] : NULL, &g, &pv, &gm[w]);
    }
    for (int w = 1; w < RUNS; w++) {
        for (int a = 0; a < 3; a++) {
            CHECK(memcmp(gm[w].mass.f[a], gm[0].mass.f[a], sizeof(double) * cells) == 0);
            CHECK(memcmp(gm[w].vol.f[a], gm[0].vol.f[a], sizeof(double) * cells) == 0);
            CHECK(memcmp(gm[w].u.f[a], gm[0].u.f[a], sizeof(double) * cells) == 0);
        }
        CHECK(memcmp(gm[w].phi, gm[0].phi, sizeof(double) * cells) == 0);
        CHECK(memcmp(gm[w].alpha, gm[0].alpha, sizeof(double) * cells) == 0);
    }
    /* the reference: each particle's tent weights on the nodes of the 27 cells around its own */
    cont_grid_mass ref = {face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), zeros(cells)};
    double total = 0;
    for (int i = 0; i < N; i++) {
        int32_t c[3];
        if (!gr_sparse_grid_locate(&g, x[i], c))
            continue;
        total += m[i];
        const double t[3] = {(x[i].x - g.origin.x) / h, (x[i].y - g.origin.y) / h, (x[i].z - g.origin.z) / h};
        for (int d = 0; d < 27; d++) {
            const int32_t k[3] = {c[0] + d % 3 - 1, c[1] + d / 3 % 3 - 1, c[2] + d / 9 - 1};
            const uint32_t cell = gr_sparse_grid_cell(&g, k[0], k[1], k[2]);
            CHECK(cell != GR_INVALID_INDEX);
            for (int a = 0; a <= 3; a++) {
                const double n[3] = {k[0] + (a == 0 ? 0 : 0.5), k[1] + (a == 1 ? 0 : 0.5), k[2] + (a == 2 ? 0 : 0.5)};
                const double w = tent(t, n);
                if (a < 3) {
                    const double vel[3] = {v0[i].x, v0[i].y, v0[i].z};
                    ref.mass.f[a][cell] += m[i] * w;
                    ref.vol.f[a][cell] += vmin[i] * w;
                    ref.u.f[a][cell] += m[i] * w * vel[a];
                } else {
                    ref.phi[cell] += vmin[i] * w / (h * h * h);
                    ref.alpha[cell] += vmin[i] * w / (h * h * h) * alpha[i];
                }
            }
        }
    }
    double sum[3] = {0, 0, 0}, err = 0;
    for (uint32_t c = 0; c < cells; c++) {
        for (int a = 0; a < 3; a++) {
            sum[a] += gm[0].mass.f[a][c];
            const double mu = gm[0].u.f[a][c] * gm[0].mass.f[a][c];
            err = fmax(err, fabs(gm[0].mass.f[a][c] - ref.mass.f[a][c]) / 3e-5);
            err = fmax(err, fabs(gm[0].vol.f[a][c] - ref.vol.f[a][c]) / (3e-5 / 1600));
            err = fmax(err, fabs(mu - ref.u.f[a][c]) / 3e-5);
        }
        err = fmax(err, fabs(gm[0].phi[c] - ref.phi[c]) / (3e-5 / 1600 / (h * h * h)));
        const double ra = ref.phi[c] > 0 ? ref.alpha[c] / ref.phi[c] : 0.0;
        err = fmax(err, fabs(gm[0].alpha[c] - ra));
    }
    CHECK(err < 1e-9);
    for (int a = 0; a < 3; a++)
        CHECK(fabs(sum[a] - total) < 1e-12 * total);
    /* G2P on a linear field u_a = A_a . (x - origin) + b_a, u_old zero: pic 1 gives v = u at
     * the particle, its gradient A; the same bits for every pool */
    const double A[3][3] = {{0.3, -1.2, 0.5}, {2.0, 0.1, -0.7}, {-0.4, 0.9, 1.1}}, b[3] = {0.2, -0.1, 0.05};
    cont_faces u = face_zeros(cells), u_old = face_zeros(cells);
    for (uint32_t c = 0; c < cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(&g, c, k);
        for (int a = 0; a < 3; a++) {
            const double n[3] = {(k[0] + (a == 0 ? 0 : 0.5)) * h, (k[1] + (a == 1 ? 0 : 0.5)) * h,
                                 (k[2] + (a == 2 ? 0 : 0.5)) * h};
            u.f[a][c] = A[a][0] * n[0] + A[a][1] * n[1] + A[a][2] * n[2] + b[a];
        }
    }
    for (int w = 0; w < RUNS; w++) {
        cont_particle_view pv = {N, x, v[w], m, vmin, alpha};
        cont_grid_to_particles_on(w ? &pools[w] : NULL, &g, &pv, &u, &u_old, 1.0, grad[w], flow[w]);
    }
    double verr = 0, gerr = 0;
    for (int i = 0; i < N; i++) {
        if (g.point_cell[i] == GR_INVALID_INDEX) {
            CHECK(memcmp(&v[0][i], &v0[i], sizeof(gr_vec3)) == 0 && memcmp(&flow[0][i], &v0[i], sizeof(gr_vec3)) == 0);
            continue;
        }
        const double p[3] = {x[i].x - g.origin.x, x[i].y - g.origin.y, x[i].z - g.origin.z}, got[3] = {v[0][i].x, v[0][i].y, v[0][i].z};
        for (int a = 0; a < 3; a++) {
            verr = fmax(verr, fabs(got[a] - (A[a][0] * p[0] + A[a][1] * p[1] + A[a][2] * p[2] + b[a])));
            for (int d = 0; d < 3; d++)
                gerr = fmax(gerr, fabs(grad[0][9 * i + 3 * a + d] - A[a][d]));
        }
    }
    CHECK(verr < 1e-12 && gerr < 1e-9);
    /* a point's velocity by hashing its cell takes the same sums as G2P's flow */
    for (int i = 0; i < N; i++) {
        gr_vec3 at;
        CHECK(cont_velocity_at(&g, &u, x[i], &at) == (g.point_cell[i] != GR_INVALID_INDEX));
        if (g.point_cell[i] != GR_INVALID_INDEX)
            CHECK(memcmp(&at, &flow[0][i], sizeof at) == 0);
    }
    for (int w = 1; w < RUNS; w++) {
        CHECK(memcmp(v[w], v[0], sizeof(gr_vec3) * N) == 0);
        CHECK(memcmp(flow[w], flow[0], sizeof(gr_vec3) * N) == 0);
        CHECK(memcmp(grad[w], grad[0], sizeof(double) * 9 * N) == 0);
    }
    for (int w = 0; w < RUNS; w++) {
        face_free(&gm[w].mass), face_free(&gm[w].vol), face_free(&gm[w].u), free(gm[w].phi), free(gm[w].alpha);
        free(v[w]), free(flow[w]), free(grad[w]);
        gr_tasks_destroy(&pools[w]);
    }
    face_free(&ref.mass), face_free(&ref.vol), face_free(&ref.u), free(ref.phi), free(ref.alpha);
    face_free(&u), face_free(&u_old);
    free(x), free(v0), free(m), free(vmin), free(alpha);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

/* The friction matrix's rows (for Gauss-Seidel) and diagonal agree with its matvec, and so do
 * the pressure matrix's; MPRGP and PGS reach the same stress. */
static void test_friction_rows_and_solvers_agree(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    scene s = {.h = 0.02, .dt = 2e-3, .gravity = {3.0, -9.0, 1.0}, .solid = floor_only, .alpha = 0.4, .stagger = 1};
    scene_block(&s, v3(0, 0, 0), v3(0.12, 0.06, 0.08), 1500);
    for (int k = 0; k < 3; k++)
        scene_step(&s, &mem);
    /* rebuild one step's problems by hand */
    gr_sparse_grid *g = &s.g;
    CHECK(gr_sparse_grid_build(g, &mem, (const double *)s.x, 3, s.n, s.h, (gr_vec3){0, 0, 0}, 2) &&
          gr_sparse_grid_sort_points(g, &mem));
    const uint32_t cells = gr_sparse_grid_cells(g);
    cont_grid_mass gm = {face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), NULL};
    cont_particle_view pv = {s.n, s.x, s.v, s.m, s.vmin, NULL};
    cont_particles_to_grid(g, &pv, &gm);
    double *solid = zeros(cells), *p = zeros(cells);
    for (uint32_t c = 0; c < cells; c++) {
        int32_t k[3];
        gr_sparse_grid_cell_coords(g, c, k);
        solid[c] = k[1] < 0 ? 1.0 : 0.0;
        if (gm.mass.f[1][c] > 0)
            gm.u.f[1][c] -= s.dt * 9.81;
    }
    cont_pressure cp = {g, s.dt, face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells),
                        zeros(cells), zeros(cells), zeros(cells), NULL, NULL, NULL, CONT_SEALED_UNKNOWN};
    cont_pressure_setup(&cp, &gm, &gm.u, solid);
    gr_qp_problem pp = cont_pressure_problem(&cp);
    gr_qp_stats st;
    solve(&pp, &mem, p, &st);
    cont_pressure_apply(&cp, p, &gm.u);
    cont_friction cf = {.cp = &cp, .scratch = face_zeros(cells), .q = zeros(5 * cells), .diag = zeros(5 * cells),
                        .lo = zeros(5 * cells), .hi = zeros(5 * cells)};
    cont_friction_setup(&cf, &gm, &gm.u, p, NULL, 0.4);
    /* b2 by grid blocks (cont_friction.c's own D2^T stencil) is dt D2^T (phi u) of
     * cont_stress_div_t to the bit */
    {
        const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
        cont_faces phiu = face_zeros(cells);
        for (int a = 0; a < 3; a++)
            for (uint32_t c = 0; c < cells; c++)
                phiu.f[a][c] = gm.vol.f[a][c] * inv_h3 * gm.u.f[a][c];
        double *b2 = zeros(5 * cells);
        const cont_stress out = cont_stress_view(b2, cells);
        cont_stress_div_t(g, &phiu, &out);
        uint32_t differ = 0, nonzero = 0;
        for (size_t i = 0; i < 5 * (size_t)cells; i++) {
            differ += cf.q[i] != b2[i] * s.dt;
            nonzero += cf.q[i] != 0;
        }
        printf("  b2 against dt cont_stress_div_t: %u of %zu differ (%u nonzero)\n", differ, 5 * (size_t)cells, nonzero);
        CHECK(differ == 0 && nonzero > 0);
        free(b2);
        face_free(&phiu);
    }
    gr_qp_problem fp = cont_friction_problem(&cf);
    gr_rng r = {9};
    double worst_row = 0, worst_diag = 0, scale = 0;
    for (int which = 0; which < 2; which++) {
        const gr_qp_problem *pr = which ? &fp : &pp;
        double *x = field(pr->n, &r), *y = zeros(pr->n), *e = zeros(pr->n), *ye = zeros(pr->n);
        pr->apply(pr->ctx, x, y);
        for (uint32_t i = 0; i < pr->n; i++) {
            worst_row = fmax(worst_row, fabs(pr->row(pr->ctx, i, x) - y[i]));
            scale = fmax(scale, fabs(y[i]));
        }
        for (uint32_t i = 0; i < pr->n; i += 37) {
            e[i] = 1;
            pr->apply(pr->ctx, e, ye);
            worst_diag = fmax(worst_diag, fabs(ye[i] - pr->diag[i]) / fmax(pr->diag[i], 1e-300));
            e[i] = 0;
        }
        free(x), free(y), free(e), free(ye);
    }
    printf("  rows against the matvec: %.2g (of %.2g); diagonal: %.2g relative\n", worst_row, scale, worst_diag);
    CHECK(worst_row <= 1e-12 * scale);
    CHECK(worst_diag < 1e-9);
    /* MPRGP and PGS on the friction problem */
    double *a = zeros(fp.n), *b = zeros(fp.n);
    gr_qp_stats sa, sb;
    solve(&fp, &mem, a, &sa);
    gr_qp_workspace ws;
    memset(&ws, 0, sizeof ws);
    CHECK(gr_qp_workspace_reserve(&ws, &mem, fp.n) == GR_OK);
    gr_qp_settings set = gr_qp_settings_default();
    set.rel_tol = 1e-8;
    set.max_iter = 20000;
    CHECK(gr_qp_pgs(&fp, &set, &ws, b, &sb) == GR_OK);
    gr_qp_workspace_free(&ws, &mem);
    uint32_t at_bound = 0;
    for (uint32_t i = 0; i < fp.n; i++)
        at_bound += fp.hi[i] > 0 && (a[i] >= fp.hi[i] * (1 - 1e-9) || a[i] <= fp.lo[i] * (1 - 1e-9));
    printf("  friction QP, %u unknowns (%u at their yield bound): MPRGP %u matvecs, f %.10g; PGS %u sweeps, f %.10g\n",
           fp.n, at_bound, sa.matvecs, sa.objective, sb.iterations, sb.objective);
    CHECK(sa.converged && sb.converged);
    CHECK(fabs(sa.objective - sb.objective) <= 1e-6 * fabs(sa.objective) + 1e-12);
    free(a), free(b), free(p), free(solid);
    face_free(&gm.mass), face_free(&gm.vol), face_free(&gm.u), free(gm.phi);
    face_free(&cp.w), face_free(&cp.inv_rho), face_free(&cp.scratch);
    free(cp.q), free(cp.diag), free(cp.lo), free(cp.hi);
    face_free(&cf.scratch), free(cf.q), free(cf.diag), free(cf.lo), free(cf.hi);
    scene_free(&s, &mem);
}

/* A sand layer on a floor under gravity tilted by theta (an incline): with friction coefficient
 * alpha it stays put when tan theta is well below alpha and slides when well above; friction only
 * ever takes energy out. */
static void test_incline_stick_and_slip(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double alpha = 0.5;
    const double angles[2] = {10.0, 45.0};
    double speed[2];
    for (int t = 0; t < 2; t++) {
        const double th = angles[t] * GR_PI / 180;
        scene s = {.h = 0.02, .dt = 2e-3, .gravity = {9.81 * sin(th), -9.81 * cos(th), 0}, .solid = floor_only,
                   .alpha = alpha, .stagger = 2};
        scene_block(&s, v3(0, 0, 0), v3(0.16, 0.06, 0.1), 1500);
        double worst_work = -INFINITY;
        const int steps = 75;
        for (int k = 0; k < steps; k++) {
            scene_step(&s, &mem);
            worst_work = fmax(worst_work, s.friction_work);
        }
        double vx = 0, mass = 0;
        for (uint32_t i = 0; i < s.n; i++)
            vx += s.m[i] * s.v[i].x, mass += s.m[i];
        speed[t] = vx / mass;
        printf("  incline %.0f deg (tan %.2f, alpha %.2f): mean downhill speed after %.1f s %.3f m/s (free slide "
               "%.2f); friction solve %u matvecs; largest energy friction gave %.2g J\n",
               angles[t], tan(th), alpha, steps * s.dt, speed[t], 9.81 * sin(th) * steps * s.dt, s.friction.matvecs,
               worst_work);
        CHECK(worst_work <= 1e-9);
        scene_free(&s, &mem);
    }
    CHECK(fabs(speed[0]) < 0.05);
    CHECK(speed[1] > 0.3);
}

/* ---- the solver's step (cont_step) ------------------------------------------------------------ */

/* A continuum state over a world's bodies and gravity (the world only lends them), with a block
 * of particles at the critical density (8 per cell) over [lo, hi]. */
static void state_block(cont_state *st, gr_mem *mem, gr_world *w, double h, double alpha, gr_vec3 lo, gr_vec3 hi)
{
    memset(st, 0, sizeof *st);
    st->mem = mem;
    st->env.mem = mem;
    st->env.bodies = &w->bodies;
    st->env.gravity = &w->def.gravity;
    gr_continuum_def def;
    cont_def_defaults(&def);
    def.cell_size = h;
    st->par = cont_def_params(&def); /* the defaults (h / 4 particles, friction by blocks, density correction) */
    st->par.tolerance = 1e-6;
    st->par.max_iterations = 2000;
    gr_sparse_grid_init(&st->grid);
    gr_sparse_grid_init(&st->prev);
    const double d = 0.5 * h, rho = 1500;
    const int nx = (int)((hi.x - lo.x) / d + 0.5), ny = (int)((hi.y - lo.y) / d + 0.5), nz = (int)((hi.z - lo.z) / d + 0.5);
    st->env.materials = &w->materials;
    CHECK(cont_reserve_particles(st, (uint32_t)(nx * ny * nz)) == GR_OK);
    for (int j = 0; j < ny; j++)
        for (int k = 0; k < nz; k++)
            for (int i = 0; i < nx; i++) {
                const uint32_t q = st->n++;
                st->x[q] = v3(lo.x + (i + 0.5) * d, lo.y + (j + 0.5) * d, lo.z + (k + 0.5) * d);
                st->v[q] = v3(0, 0, 0);
                st->vmin[q] = d * d * d;
                st->m[q] = rho * d * d * d;
                st->alpha[q] = alpha;
                st->radius[q] = 0.5 * d;
                st->mat[q] = 0;
                st->slot[q] = q;
                st->shape[q] = cont_sym3_sphere(st->par.radius);
            }
}

static gr_world *floor_world(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK)
        abort();
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_PLANE;
    if (gr_add_body(w, &b, NULL) != GR_OK)
        abort();
    return w;
}

/* A column released on a floor (the seed's Fig. 11 scene, 2:1): it spreads and comes to rest,
 * its energy (kinetic + potential) never rises, nothing passes through the floor, and with more
 * friction it spreads less. (At h = 2 cm the pile is two cells tall: the grid, not the friction,
 * limits how steep it stands; bench/ measures the repose angles at finer grids.) */
static void test_column_collapse(void)
{
    const double alphas[2] = {0.2, 0.6};
    double spread[2];
    for (int t = 0; t < 2; t++) {
        gr_mem mem;
        gr_mem_init(&mem, NULL);
        gr_world *w = floor_world();
        cont_state st;
        const double h = 0.02;
        state_block(&st, &mem, w, h, alphas[t], v3(-0.04, 0, -0.04), v3(0.04, 0.16, 0.04));
        st.par.tolerance = 1e-5; /* (looser: unconverged friction leaves velocity changes FLIP carries as energy) */
        double e_prev = INFINITY, worst_rise = 0, time = 0;
        uint32_t steps = 0, lost_total = 0;
        const double e_scale = 1500 * 0.08 * 0.16 * 0.08 * 9.81 * 0.08;
        bool failed = false;
        while (time < 1.2 && !failed) {
            const double dt = fmin(cont_stable_step(&st), 1.0 / 120);
            uint32_t lost;
            const gr_status ss = cont_step(&st, dt, &lost);
            CHECK(ss == GR_OK);
            failed = ss != GR_OK;
            lost_total += lost;
            time += dt;
            steps++;
            double e = 0;
            for (uint32_t i = 0; i < st.n; i++)
                e += st.m[i] * (0.5 * v3_len2(st.v[i]) + 9.81 * st.x[i].y);
            if (e_prev < INFINITY)
                worst_rise = fmax(worst_rise, (e - e_prev) / e_scale);
            e_prev = e;
        }
        double mean_r = 0, ymin = INFINITY, vmean = 0;
        for (uint32_t i = 0; i < st.n; i++) {
            mean_r += sqrt(st.x[i].x * st.x[i].x + st.x[i].z * st.x[i].z) / st.n;
            ymin = fmin(ymin, st.x[i].y);
            vmean += v3_len(st.v[i]) / st.n;
        }
        spread[t] = mean_r;
        printf("  alpha %.2f: %u steps to %.1f s; mean distance from the axis %.3f m (column: 0.030); mean speed "
               "%.3f m/s; lowest particle %.4f m; largest energy rise %.2g of m g w; last step %u + %u matvecs on "
               "%u cells\n", alphas[t], steps, time, mean_r, vmean, ymin, worst_rise, st.stats.pressure_matvecs,
               st.stats.friction_matvecs, st.stats.cells);
        CHECK(lost_total == 0);
        CHECK(mean_r > 0.045);     /* it spread */
        CHECK(vmean < 0.08);       /* and stopped */
        CHECK(ymin > -0.5 * h);    /* on the floor, not through it */
        CHECK(worst_rise < 0.01);  /* no energy from nowhere */
        cont_free_fields(&st);
        cont_free_particles(&st);
        CHECK(mem.in_use == 0);
        gr_world_destroy(w);
    }
    CHECK(spread[0] > spread[1] + 0.02); /* more friction, less spreading */
}

/* ---- the density correction warm-started and capped (CONT_DENSITY_STEPS) -------------------- */

typedef struct density_run {
    double ke_max, ke_rest;   ///< kinetic energy per mass [J/kg]: the largest, the mean over the rest
    double top, fill;         ///< the highest particle [m]; max phi + phi_s after the last correction
    double density_it, pressure_it; ///< MPRGP iterations a step (the correction; the pressure's rounds)
    double fill_late;         ///< the largest of those over the second half of the steps
    uint32_t steps, warm;     ///< steps; those whose correction kept its warm start
    bool failed;              ///< a step failed or lost particles
} density_run;

/* Grains of `radius` on a cubic lattice of spacing s filling |x|, |z| < half, 0 < y < H. */
static gr_status add_lattice(gr_world *w, gr_material sand, double half, double H, double s, double radius)
{
    const int nx = (int)(2 * half / s + 0.5), ny = (int)(H / s + 0.5);
    gr_grain_def *g = (gr_grain_def *)malloc(sizeof(gr_grain_def) * (size_t)(nx * ny * nx));
    if (!g)
        return GR_ERROR_OUT_OF_MEMORY;
    uint32_t n = 0;
    for (int j = 0; j < ny; j++)
        for (int k = 0; k < nx; k++)
            for (int i = 0; i < nx; i++) {
                gr_grain_def_init(&g[n]);
                g[n].radius = radius;
                g[n].material = sand;
                g[n++].position = v3(-half + (i + 0.5) * s, (j + 0.5) * s, -half + (k + 0.5) * s);
            }
    const gr_status added = gr_add_grains(w, g, n, NULL);
    free(g);
    return added;
}

/* The largest phi + phi_s the step's correction left (its fields are on its grid, now prev). */
static double corrected_fill(const cont_state *st)
{
    double fill = 0;
    const uint32_t cells = gr_sparse_grid_cells(&st->prev);
    for (uint32_t c = 0; c < cells; c++)
        fill = fmax(fill, st->f.gm.phi[c] + st->f.solid[c]);
    return fill;
}

/* A continuum world (cells of h, sand of friction 0.6) holding a block of side 2 b and height H
 * on a lattice of h / 2 whose grains' solid volume is `fraction` of its cells' (the critical
 * density: the def's packing, 0.6), in a static container of side 0.12 m open at the top, stepped
 * in frames of 1/30 s for `seconds` (the rest: the last quarter) with the step's correction
 * (reference: uncapped and cold-started, as before CONT_DENSITY_STEPS). */
static density_run run_density_block(double h, double b, double fraction, double H, double seconds, bool reference)
{
    density_run r = {0};
    const double a = 0.06, s = 0.5 * h, radius = s * cbrt(fraction * 3.0 / (4.0 * 3.14159265358979323846));
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = h;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.solver_def = &cd;
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK) {
        r.failed = true;
        return r;
    }
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 2500;
    md.friction = 0.6;
    md.continuum_friction = md.friction; /* alpha = mu: the model's own coefficient */
    gr_material sand;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.half_extents = v3(a, 2 * H, a);
    bd.position = v3(0, 2 * H, 0);
    bd.open_faces = GR_FACE_POS_Y;
    r.failed = gr_add_material(w, &md, &sand) != GR_OK || gr_add_body(w, &bd, NULL) != GR_OK;
    bd.material = sand;
    r.failed = r.failed || add_lattice(w, sand, b, H, s, radius) != GR_OK;
    cont_state *st = (cont_state *)w->systems[0].state;
    if (reference) {
        st->par.density_steps = st->par.max_iterations;
        st->par.density_cold = true;
    }
    const cont_timing t0 = st->timing;
    const int frames = (int)(30 * seconds + 0.5);
    double rest = 0, mass = 0;
    for (uint32_t i = 0; i < st->n; i++)
        mass += st->m[i];
    for (int f = 0; f < frames && !r.failed; f++) {
        if (gr_step(w, 1.0 / 30) != GR_OK) {
            printf("  frame %d: %s\n", f, gr_world_last_error(w));
            r.failed = true;
            break;
        }
        double ke = 0;
        for (uint32_t i = 0; i < st->n; i++)
            ke += 0.5 * st->m[i] * v3_len2(st->v[i]);
        r.ke_max = fmax(r.ke_max, ke / mass);
        r.fill = corrected_fill(st);
        if (f >= frames / 2)
            r.fill_late = fmax(r.fill_late, r.fill);
        if (f >= frames - frames / 4)
            r.ke_rest += ke / mass, rest++;
    }
    r.ke_rest /= rest > 0 ? rest : 1;
    r.steps = (uint32_t)(st->timing.steps - t0.steps);
    r.warm = (uint32_t)(st->timing.density_warm - t0.density_warm);
    r.density_it = (double)(st->timing.density_iterations - t0.density_iterations) / (r.steps ? r.steps : 1);
    r.pressure_it = (double)(st->timing.pressure_iterations - t0.pressure_iterations) / (r.steps ? r.steps : 1);
    for (uint32_t i = 0; i < st->n; i++)
        r.top = fmax(r.top, st->x[i].y);
    printf("  %s: %u steps (%u warm-started); kinetic energy at most %.3g J/kg, at rest %.3g J/kg; top %.4f m; "
           "max phi + phi_s %.6f (second half: up to %.6f); MPRGP a step: density %.1f, pressure %.1f\n",
           reference ? "uncapped, cold" : "capped, warm ", r.steps, r.warm, r.ke_max, r.ke_rest, r.top, r.fill,
           r.fill_late, r.density_it, r.pressure_it);
    gr_world_destroy(w);
    return r;
}

/* A block spawned at 1.3x the critical density (half as wide as its container) relaxes under the
 * cap as without it: it spreads as far (as low), its kinetic energy stays bounded (no explosion:
 * below the reference's twice, and below the block's own potential energy), and over the second
 * half of the second the corrections leave phi + phi_s within 1e-3 of 1. (Filling its container
 * wall to wall: packed_block_wall_to_wall.) */
static void test_density_warm_packed_block_relaxes(void)
{
    const double H = 0.08;
    const density_run ref = run_density_block(0.02, 0.04, 1.3 * 0.6, H, 1.0, true),
                      cap = run_density_block(0.02, 0.04, 1.3 * 0.6, H, 1.0, false);
    CHECK(!ref.failed && !cap.failed);
    CHECK(ref.top < 0.6 * H); /* (the reference relaxes: the block spreads) */
    CHECK(fabs(cap.top - ref.top) < 0.05 * H);
    CHECK(cap.fill_late < 1 + 1e-3);
    CHECK(cap.ke_max < 2 * ref.ke_max);
    CHECK(cap.ke_max < 9.81 * 0.5 * H);
    CHECK(cap.ke_rest < 2 * ref.ke_rest);
    CHECK(cap.density_it < ref.density_it);
}

/* A column near the critical density (0.55 / 0.6) at rest in a container that just holds it (h = 1
 * cm, 18 cells tall: the hydrostatic column of docs/continuum.md): warm-started and capped, its kinetic energy
 * at rest stays at the uncapped, cold-started correction's (within 2x), for fewer MPRGP steps.
 * (Warm-started and capped at 8: 6x.) */
static void test_density_warm_column_at_rest(void)
{
    const density_run ref = run_density_block(0.01, 0.06, 0.55, 0.18, 2.0, true),
                      cap = run_density_block(0.01, 0.06, 0.55, 0.18, 2.0, false);
    CHECK(!ref.failed && !cap.failed);
    CHECK(cap.ke_rest < 2 * ref.ke_rest);
    CHECK(cap.warm > cap.steps / 2);
    CHECK(cap.density_it < 0.5 * ref.density_it);
    CHECK(fabs(cap.top - ref.top) < 0.01 * 0.18);
}

/* A world on the continuum solver (cells of h) with a container of inner half width a, floor at
 * y = 0, `top` tall (open at the top or not), filled wall to wall to height H with grains on a
 * lattice of spacing h / 2 whose volumes add up to `pack` x the critical density 0.6. */
static void packed_box(double h, double a, double H, double top, int open, double pack, gr_material *sand, gr_world **out)
{
    const double s = 0.5 * h;
    const double radius = s * cbrt(pack * 0.6 * 3.0 / (4.0 * 3.14159265358979323846));
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = h;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.solver_def = &cd;
    gr_world *w = NULL;
    *out = NULL;
    CHECK(gr_world_create(&def, &w) == GR_OK);
    *out = w;
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 2500;
    md.friction = 0.6;
    md.continuum_friction = md.friction; /* alpha = mu: the model's own coefficient */
    CHECK(gr_add_material(w, &md, sand) == GR_OK);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.material = *sand;
    bd.half_extents = v3(a, 0.5 * top, a);
    bd.position = v3(0, 0.5 * top, 0);
    bd.open_faces = open ? GR_FACE_POS_Y : 0;
    CHECK(gr_add_body(w, &bd, NULL) == GR_OK);
    CHECK(add_lattice(w, *sand, a, H, s, radius) == GR_OK);
}

/* What 60 frames of 1/30 s did to the sand of a packed_box (half width a). */
typedef struct packed_run {
    int failed;                ///< the frame whose step failed, or -1
    uint32_t bad;              ///< non-finite positions or velocities seen
    double ke_max, ke;         ///< kinetic energy per mass, the largest and the last [J/kg]
    double ymin, ytop, xout;   ///< the lowest and highest particle, the farthest past a side wall [m]
    double mass_change;        ///< relative
} packed_run;

static packed_run run_packed(gr_world *w, double a, int frames)
{
    const cont_state *st = (const cont_state *)w->systems[0].state;
    double m0 = 0;
    for (uint32_t i = 0; i < st->n; i++)
        m0 += st->m[i];
    packed_run r = {-1, 0, 0, 0, 0, 0, 0, 0};
    for (int f = 0; f < frames && r.failed < 0; f++) {
        if (gr_step(w, 1.0 / 30) != GR_OK) {
            printf("  frame %d: %s\n", f, gr_world_last_error(w));
            r.failed = f;
        }
        double ke = 0, mass = 0;
        r.ytop = r.xout = 0;
        r.ymin = INFINITY;
        for (uint32_t i = 0; i < st->n; i++) {
            const gr_vec3 x = st->x[i], v = st->v[i];
            r.bad += !(isfinite(x.x) && isfinite(x.y) && isfinite(x.z) && isfinite(v.x) && isfinite(v.y) && isfinite(v.z));
            ke += 0.5 * st->m[i] * v3_len2(v);
            mass += st->m[i];
            r.ytop = fmax(r.ytop, x.y), r.ymin = fmin(r.ymin, x.y);
            r.xout = fmax(r.xout, fmax(fabs(x.x), fabs(x.z)) - a);
        }
        r.ke = ke / mass;
        r.ke_max = fmax(r.ke_max, r.ke);
        r.mass_change = mass / m0 - 1;
    }
    return r;
}

/* A block spawned at 1.3x the critical density (grains overlapping) that fills its container
 * wall to wall. Its density correction's LCP had no solution: the cells the block fills form a
 * group with no cell held at y = 0 and less room than over-packing, so the objective fell without
 * bound along y = constant and MPRGP returned GR_ERROR_NOT_FINITE at the first step (h = 2 cm),
 * or stopped with a huge y and flung the sand 0.7 m up (h = 1 cm). cont_pressure_bound asks such
 * a group only for what its room takes. Open at the top, the block rises to its packed height
 * (1.3 x its height, less the correction's last slack) and comes to rest. Closed, it stays in
 * the box, its sand only leaving the walls' cells, and comes to rest (before the bound let
 * gravity through the floor, its sand fell 20 m in 2 s; with the flow's expansion given up too,
 * it crept down and packed itself 1.7x tighter). */
static void test_packed_block_wall_to_wall(void)
{
    const struct { double h, a, H; int open; } runs[] = {{0.02, 0.06, 0.08, 1}, {0.02, 0.06, 0.08, 0}, {0.01, 0.03, 0.04, 1}, {0.01, 0.03, 0.04, 0}};
    for (int k = 0; k < 4; k++) {
        const double h = runs[k].h, a = runs[k].a, H = runs[k].H;
        const int open = runs[k].open;
        gr_material sand;
        gr_world *w;
        packed_box(h, a, H, open ? 4 * H : H, open, 1.3, &sand, &w);
        if (!w)
            return;
        const packed_run r = run_packed(w, a, 60);
        printf("  h %.0f cm, %s: %s; kinetic energy at most %.3g J/kg, at 2 s %.3g J/kg; particles from %.4f to %.4f m, "
               "at most %.4f m past a side wall; mass changed by %.2g\n",
               100 * h, open ? "open top" : "closed  ", r.failed < 0 ? "2 s stepped" : "FAILED", r.ke_max, r.ke, r.ymin,
               r.ytop, r.xout, r.mass_change);
        CHECK(r.failed < 0);
        CHECK(r.bad == 0);
        CHECK(fabs(r.mass_change) < 1e-12);
        CHECK(r.ytop < (open ? 1.3 * H + h : H - 0.5 * h + 1e-3));
        CHECK(r.ymin > 0.5 * h - 1e-3 && r.xout < 1e-3); /* in the box, out of its walls' cells */
        CHECK(r.ke_max < 9.81 * 0.3 * H);                /* no explosion: below the rise's potential energy */
        CHECK(r.ke < 1e-5);                              /* and at rest */
        if (open)
            CHECK(r.ytop > 1.15 * H);                    /* it relaxed upwards */
        else
            CHECK(r.ytop > H - 0.5 * h - 2e-3);          /* and did not pack itself down */
        gr_world_destroy(w);
    }
}

/* cont_pressure_bound on a hand-made problem: the 2 x 2 x 2 cells of a 4^3 block joined by faces
 * with material, over-packed (phi 1.3, b1 -0.3 each), the faces to the air around them empty.
 * Sealed: b1 sums to the target afterwards (no empty volume: CONT_PRESSURE_LEAST a cell, all of
 * it shared out once the over-packing is given up), and the cache says so. One face with material
 * to an air cell (held at 0): b1 is left as it is and the cache says none; a second call, with
 * that cell freed by hand, trusts the cache (skipped) until it is forgotten, as
 * cont_pressure_weights does. */
static void test_pressure_bound_sealed_group(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double h = 0.1, h3 = h * h * h;
    const double pos[3] = {1.5 * h, 1.5 * h, 1.5 * h};
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, pos, 3, 1, h, (gr_vec3){0, 0, 0}, 0));
    const uint32_t cells = gr_sparse_grid_cells(&g);
    cont_grid_mass gm = {face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells), NULL};
    uint32_t group[8], n = 0;
    for (int i = 1; i <= 2; i++)
        for (int j = 1; j <= 2; j++)
            for (int k = 1; k <= 2; k++) {
                const uint32_t c = gr_sparse_grid_cell(&g, i, j, k);
                CHECK(c != GR_INVALID_INDEX);
                if (c == GR_INVALID_INDEX)
                    return;
                group[n++] = c;
                gm.phi[c] = 1.3;
                const int at[3] = {i, j, k};
                for (int a = 0; a < 3; a++)
                    if (at[a] == 2) /* (the face below is between two of the group) */
                        gm.vol.f[a][c] = 0.5 * h3, gm.mass.f[a][c] = 2500 * 0.5 * h3;
            }
    cont_pressure cp = {&g, 0.01, face_zeros(cells), face_zeros(cells), face_zeros(cells), zeros(cells),
                        zeros(cells), zeros(cells), zeros(cells), NULL, NULL, NULL, CONT_SEALED_UNKNOWN};
    for (int link = 0; link < 2; link++) {
        if (link) { /* cell (1,1,1)'s low x face to the air cell (0,1,1) */
            const uint32_t c = gr_sparse_grid_cell(&g, 1, 1, 1);
            gm.vol.f[0][c] = 0.5 * h3, gm.mass.f[0][c] = 2500 * 0.5 * h3;
        }
        cont_pressure_weights(&cp, &gm, NULL);
        CHECK(cp.sealed == CONT_SEALED_UNKNOWN);
        for (uint32_t c = 0; c < cells; c++)
            cp.q[c] = 1.0 - gm.phi[c];
        uint32_t unfixed = 0;
        for (uint32_t c = 0; c < cells; c++)
            unfixed += cp.lo[c] < cp.hi[c];
        CHECK(unfixed == 8);
        cont_pressure_bound(&cp, &gm, NULL, NULL);
        double sum = 0;
        for (int e = 0; e < 8; e++)
            sum += cp.q[group[e]];
        printf("  %s: b1 sums to %.3g after the bound, cache %d\n", link ? "one face to the air" : "sealed", sum, (int)cp.sealed);
        if (!link) {
            CHECK(fabs(sum - 8 * CONT_PRESSURE_LEAST) < 1e-15);
            CHECK(cp.sealed == CONT_SEALED_SOME);
        } else {
            for (int e = 0; e < 8; e++)
                CHECK(cp.q[group[e]] == 1.0 - 1.3); /* untouched */
            CHECK(cp.sealed == CONT_SEALED_NONE);
            /* the cache is trusted until cont_pressure_weights: the air cell freed by hand (its
             * group then sealed) is not seen */
            cp.hi[gr_sparse_grid_cell(&g, 0, 1, 1)] = INFINITY;
            for (int e = 0; e < 8; e++)
                cp.q[group[e]] = -1.0;
            cont_pressure_bound(&cp, &gm, NULL, NULL);
            for (int e = 0; e < 8; e++)
                CHECK(cp.q[group[e]] == -1.0);
            cp.sealed = CONT_SEALED_UNKNOWN; /* (what cont_pressure_weights does) */
            cont_pressure_bound(&cp, &gm, NULL, NULL);
            CHECK(cp.sealed == CONT_SEALED_SOME && cp.q[group[0]] > -1.0);
        }
    }
    face_free(&gm.mass), face_free(&gm.vol), face_free(&gm.u), free(gm.phi);
    face_free(&cp.w), face_free(&cp.inv_rho), face_free(&cp.scratch);
    free(cp.q), free(cp.diag), free(cp.lo), free(cp.hi);
    gr_sparse_grid_free(&g, &mem);
}

/* A kinematic press the width of its container (or 1 cm narrower on each side) driven at 5 cm/s
 * into the sand that fills the container to the rim at the critical density. The press is
 * irresistible and the sand has nowhere to go (without the gap): no answer keeps it at its
 * density, and the pressure's LCP had none (GR_ERROR_NOT_FINITE at the first step, and with the
 * gap at the fourth). The bound gives way: the sand under the press packs tighter, or rises
 * through the gap, and stays in the container, below the press where it cannot pass. */
static void test_press_into_packed_sand(void)
{
    const double h = 0.02, a = 0.06, H = 0.08, speed = 0.05;
    for (int gap = 0; gap <= 1; gap++) {
        gr_material sand;
        gr_world *w;
        packed_box(h, a, H, 2 * H, 1, 1.0, &sand, &w);
        if (!w)
            return;
        gr_body_def pd;
        gr_body_def_init(&pd);
        pd.shape = GR_SHAPE_BOX;
        pd.material = sand;
        pd.motion = GR_MOTION_KINEMATIC;
        pd.half_extents = v3(a - 0.5 * h * gap, 0.02, a - 0.5 * h * gap);
        pd.position = v3(0, H + 0.02, 0);
        pd.linear_velocity = v3(0, -speed, 0);
        CHECK(gr_add_body(w, &pd, NULL) == GR_OK);
        const packed_run r = run_packed(w, a, 30);
        const double bottom = H - speed * 1.0; /* the press's face after 1 s */
        printf("  %s: %s; kinetic energy at most %.3g J/kg; particles from %.4f to %.4f m (the press at %.4f m), "
               "at most %.4f m past a side wall\n",
               gap ? "1 cm gaps" : "no gap   ", r.failed < 0 ? "1 s stepped" : "FAILED", r.ke_max, r.ymin, r.ytop, bottom,
               r.xout);
        CHECK(r.failed < 0);
        CHECK(r.bad == 0);
        CHECK(fabs(r.mass_change) < 1e-12);
        CHECK(r.ymin > 0.25 * h && r.xout < 1e-3); /* (pressed: closer to the floor than h / 2) */
        CHECK(r.ke_max < 0.01); /* (the press moves at 5 cm/s: 1.25e-3 J/kg) */
        if (gap)
            CHECK(r.ytop > bottom + 0.01); /* through the gap */
        else
            CHECK(r.ytop < bottom);
        gr_world_destroy(w);
    }
}

/* A free box (half the sand's density) buried in sand packed at 1.3x that fills a closed
 * container: the sand and the box form one sealed group (cont_pressure_bound, with the bodies'
 * part of b1 counted once). Nothing is flung, nothing leaves the container, and the motion dies
 * out (measured: the box, lighter than the sand, rises 2.2 cm as the sand relaxes around it and
 * stops at 1.7 mm/s; the sand's kinetic energy falls to a tenth of its most in 2 s: at most
 * 1.16e-3 J/kg, 1.08e-4 at 2 s; with the over-packing next to the box given up a second time,
 * 1.87e-3 and 2.31e-4, which the bounds below catch). */
static void test_free_body_in_sealed_sand(void)
{
    const double h = 0.02, a = 0.06, H = 0.08;
    gr_material sand;
    gr_world *w;
    packed_box(h, a, H, H, 0, 1.3, &sand, &w);
    if (!w)
        return;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.material = sand;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = v3(0.02, 0.015, 0.02);
    bd.mass = 0.5 * 2500 * 0.6 * 8 * bd.half_extents.x * bd.half_extents.y * bd.half_extents.z;
    bd.position = v3(0.005, 0.04, -0.003);
    gr_body box;
    CHECK(gr_add_body(w, &bd, &box) == GR_OK);
    const packed_run r = run_packed(w, a, 60);
    gr_vec3 x, v, om;
    gr_quat q;
    CHECK(gr_body_get_pose(w, box, &x, &q) == GR_OK);
    CHECK(gr_body_get_velocity(w, box, &v, &om) == GR_OK);
    printf("  %s; sand kinetic energy at most %.3g J/kg, at 2 s %.3g; particles from %.4f to %.4f m, at most %.4f m "
           "past a side wall; the box at (%.4f, %.4f, %.4f) m, %.2g m/s\n",
           r.failed < 0 ? "2 s stepped" : "FAILED", r.ke_max, r.ke, r.ymin, r.ytop, r.xout, x.x, x.y, x.z, v3_len(v));
    CHECK(r.failed < 0 && r.bad == 0);
    CHECK(fabs(r.mass_change) < 1e-12);
    CHECK(r.ymin > 0.25 * h && r.ytop < H && r.xout < 1e-3);
    CHECK(r.ke_max < 9.81 * 0.3 * H && r.ke < 0.2 * r.ke_max); /* bounded, and dying out */
    CHECK(r.ke_max < 1.5e-3 && r.ke < 1.6e-4);                /* the bodies' part counted once */
    CHECK(x.y > 0.05 && x.y < H - 0.015);                       /* it rose, and stays in the box */
    CHECK(v3_len(v) < 0.01); /* (at rest: 1.7 mm/s, where the sand's mean speed peaked at 5 cm/s) */
    gr_world_destroy(w);
}

/* Split and merge as the world drives them (cont_regrain, sec. 3.1): particles stretched past
 * sqrt 2 r split, compressed ones merge with a neighbour of their cell and material; the mass of
 * each material, the momentum and the centre of mass are kept to rounding; the grain table
 * follows (new slots for children, merged-away slots released, dense indices right); every
 * particle the plan touched is valid after it; and the same state plans the same bits. */
static gr_vec3 unit(gr_vec3 a) { return v3_scale(a, 1.0 / v3_len(a)); }

static void regrain_scene(cont_state *st, gr_mem *mem, gr_world *w, gr_grain_table *t, uint32_t n)
{
    memset(st, 0, sizeof *st);
    st->mem = mem;
    st->env.mem = mem;
    st->env.materials = &w->materials;
    st->env.grains = t;
    gr_continuum_def def;
    cont_def_defaults(&def);
    st->par = cont_def_params(&def);
    st->par.points = 6;
    st->par.split_merge = true;
    gr_sparse_grid_init(&st->grid);
    gr_sparse_grid_init(&st->prev);
    gr_grain_table_init(t);
    CHECK(gr_grain_table_reserve(t, mem, n));
    CHECK(cont_reserve_particles(st, n) == GR_OK);
    const double r = st->par.radius, h = st->par.cell;
    gr_rng g = {7};
    double length[3];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t kind = i % 4; /* 0 valid, 1 stretched, 2 and 3 a compressed pair */
        gr_vec3 x = v3(rnd(&g, 0, 4 * h), rnd(&g, 0, 2 * h), rnd(&g, 0, 2 * h));
        if (kind == 3) /* near its pair's first */
            x = v3_add(st->x[i - 1], v3(rnd(&g, -0.4, 0.4) * r, rnd(&g, -0.4, 0.4) * r, rnd(&g, -0.4, 0.4) * r));
        st->x[i] = x;
        st->v[i] = v3(rnd(&g, -1, 1), rnd(&g, -1, 1), rnd(&g, -1, 1));
        st->radius[i] = rnd(&g, 0.5, 1.5) * 0.004;
        st->mat[i] = (i / 4) % 2;
        if (kind == 0)
            st->shape[i] = random_shape(&g, 0.8 * r, 1.3 * r, length);
        if (kind == 1) { /* one long axis, two ordinary ones */
            cont_sym3 A = random_shape(&g, 0.85 * r, 1.1 * r, length);
            const gr_vec3 e = unit(v3(rnd(&g, -1, 1), rnd(&g, -1, 1), rnd(&g, -1, 1)));
            const double c = (rnd(&g, 1.6, 1.95) * r) * (rnd(&g, 1.6, 1.95) * r);
            A.xx += c * e.x * e.x, A.yy += c * e.y * e.y, A.zz += c * e.z * e.z;
            A.xy += c * e.x * e.y, A.yz += c * e.y * e.z, A.xz += c * e.x * e.z;
            st->shape[i] = A;
        }
        if (kind >= 2) { /* flat: two ordinary axes, one short */
            cont_sym3 A = random_shape(&g, 0.45 * r, 0.6 * r, length);
            const gr_vec3 e = unit(v3(rnd(&g, -1, 1), rnd(&g, -1, 1), rnd(&g, -1, 1)));
            const gr_vec3 f = unit(v3_cross(e, v3(rnd(&g, -1, 1), rnd(&g, -1, 1), rnd(&g, -1, 1))));
            const double c = 0.6 * r * r;
            A.xx += c * (e.x * e.x + f.x * f.x), A.yy += c * (e.y * e.y + f.y * f.y), A.zz += c * (e.z * e.z + f.z * f.z);
            A.xy += c * (e.x * e.y + f.x * f.y), A.yz += c * (e.y * e.z + f.y * f.z), A.xz += c * (e.x * e.z + f.x * f.z);
            st->shape[i] = A;
        }
        st->slot[i] = gr_grain_table_take(t, 0);
        t->dense[st->slot[i]] = i;
        st->n = i + 1;
        cont_particle_material(st, i);
        cont_points_sample(st, i, 0);
    }
}

typedef struct regrain_sums {
    double mass[2], momentum[3], centre[3], speed_mass;
} regrain_sums;

static regrain_sums regrain_measure(const cont_state *st)
{
    regrain_sums s = {{0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
    for (uint32_t i = 0; i < st->n; i++) {
        const double m = st->m[i];
        s.mass[st->mat[i]] += m;
        const double v[3] = {st->v[i].x, st->v[i].y, st->v[i].z}, x[3] = {st->x[i].x, st->x[i].y, st->x[i].z};
        for (int a = 0; a < 3; a++)
            s.momentum[a] += m * v[a], s.centre[a] += m * x[a];
        s.speed_mass += m * v3_len(st->v[i]);
    }
    return s;
}

static void test_regrain_conserves(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_world *w = floor_world();
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 4000; /* a second material, heavier: a merge across materials would show in its mass */
    CHECK(gr_add_material(w, &md, NULL) == GR_OK);
    const uint32_t n0 = 400;
    cont_state st, twin;
    gr_grain_table t, tt;
    regrain_scene(&st, &mem, w, &t, n0);
    regrain_scene(&twin, &mem, w, &tt, n0);
    const double r = st.par.radius;
    uint32_t invalid_before = 0;
    for (uint32_t i = 0; i < st.n; i++)
        invalid_before += !cont_shape_valid(st.shape[i], r);
    const regrain_sums a = regrain_measure(&st);
    gr_regrain plan;
    CHECK(cont_regrain_plan(&st, UINT32_MAX, &plan) == GR_OK);
    const uint32_t add = plan.add, remove = plan.remove;
    CHECK(gr_grain_table_reserve(&t, &mem, plan.add));
    for (uint32_t k = 0; k < plan.add; k++)
        plan.slots[k] = gr_grain_table_take(&t, 0);
    cont_regrain_apply(&st, &plan);
    for (uint32_t k = 0; k < plan.remove; k++)
        gr_grain_table_release(&t, plan.removed[k]);
    const regrain_sums b = regrain_measure(&st);
    uint32_t invalid_after = 0, table_bad = 0, outside = 0;
    for (uint32_t i = 0; i < st.n; i++) {
        for (uint32_t k = 0; k < st.par.points; k++) /* render points: in their particle */
            outside += !cont_points_inside(st.shape[i], st.pts[(size_t)st.par.points * i + k], 1e-9);
        invalid_after += !cont_shape_valid(st.shape[i], r);
        table_bad += !(t.alive[st.slot[i]] && t.dense[st.slot[i]] == i);
    }
    double dm = 0, dp = 0, dc = 0;
    for (int k = 0; k < 2; k++)
        dm = fmax(dm, fabs(b.mass[k] - a.mass[k]) / a.mass[k]);
    const double mt = a.mass[0] + a.mass[1];
    for (int k = 0; k < 3; k++) {
        dp = fmax(dp, fabs(b.momentum[k] - a.momentum[k]) / a.speed_mass);
        dc = fmax(dc, fabs(b.centre[k] - a.centre[k]) / (mt * st.par.cell));
    }
    printf("  %u particles: %u split, %u merged -> %u; invalid %u -> %u; relative change of mass %.2g (worst "
           "material), momentum %.2g, centre of mass %.2g\n",
           n0, add, remove, st.n, invalid_before, invalid_after, dm, dp, dc);
    CHECK(add > 50 && remove > 20);
    CHECK(st.n == n0 + add - remove && t.count == st.n);
    CHECK(table_bad == 0);
    CHECK(outside == 0);
    CHECK(invalid_after < invalid_before - add - remove / 2);
    CHECK(dm < 1e-14 && dp < 1e-14 && dc < 1e-14);
    /* the twin plans and applies the same bits */
    CHECK(cont_regrain_plan(&twin, UINT32_MAX, &plan) == GR_OK);
    CHECK(plan.add == add && plan.remove == remove);
    CHECK(gr_grain_table_reserve(&tt, &mem, plan.add));
    for (uint32_t k = 0; k < plan.add; k++)
        plan.slots[k] = gr_grain_table_take(&tt, 0);
    cont_regrain_apply(&twin, &plan);
    CHECK(twin.n == st.n && memcmp(twin.x, st.x, sizeof(gr_vec3) * st.n) == 0 &&
          memcmp(twin.pts, st.pts, sizeof(gr_vec3) * st.par.points * st.n) == 0 &&
          memcmp(twin.v, st.v, sizeof(gr_vec3) * st.n) == 0 && memcmp(twin.shape, st.shape, sizeof(cont_sym3) * st.n) == 0);
    /* a cap on what may be made: no more splits than it */
    CHECK(cont_regrain_plan(&st, 3, &plan) == GR_OK && plan.add <= 3);
    cont_state *both[2] = {&st, &twin};
    gr_grain_table *tables[2] = {&t, &tt};
    for (int k = 0; k < 2; k++) {
        cont_free_fields(both[k]);
        cont_free_particles(both[k]);
        cont_regrain_free(both[k]);
        gr_grain_table_free(tables[k], &mem);
    }
    CHECK(mem.in_use == 0);
    gr_world_destroy(w);
}

/* ---- bodies (cont_bodies.c) ---------------------------------------------------------------- */

/* The coupling's operators on a random grid around a turned dynamic box: J is the adjoint the
 * body's impulse uses (h^3 p . J V = imp . V for random p, V), the low-rank term is symmetric,
 * its rows (Gauss-Seidel) and diagonal (Jacobi) agree with the matvec, and a rigid motion of a
 * body inside the grid moves no net solid (sum of J V = 0 with every face inside). */
static void test_body_coupling_operators(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_world *w = floor_world();
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.031, 0.023, 0.027};
    bd.position = (gr_vec3){0.004, 0.1, -0.003};
    bd.orientation = (gr_quat){0.1, 0.2, -0.05, 0.97};
    bd.mass = 0.7;
    bd.linear_velocity = (gr_vec3){0.3, -0.2, 0.1};
    bd.angular_velocity = (gr_vec3){1, -2, 0.5};
    CHECK(gr_add_body(w, &bd, NULL) == GR_OK);
    /* a grid around it: points on a lattice over a cube wider than the box */
    gr_rng r = {5};
    const uint32_t np = 2000;
    double *pts = (double *)malloc(sizeof(double) * 3 * np);
    for (uint32_t i = 0; i < np; i++) {
        pts[3 * i] = rnd(&r, -0.07, 0.07);
        pts[3 * i + 1] = rnd(&r, 0.03, 0.17);
        pts[3 * i + 2] = rnd(&r, -0.07, 0.07);
    }
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, pts, 3, np, 0.01, v3(0, 0, 0), 2));
    const uint32_t cells = gr_sparse_grid_cells(&g);
    cont_bodies cb;
    memset(&cb, 0, sizeof cb);
    double *solid = zeros(cells), *x = zeros(cells), *y = zeros(cells), *ax = zeros(cells), *ay = zeros(cells);
    double *diag = zeros(cells), *q = zeros(cells), *phi = zeros(cells);
    const double dt = 0.004;
    CHECK(cont_bodies_build(&cb, &mem, &g, &w->bodies, w->def.gravity, dt, solid) == GR_OK);
    CHECK(cb.free_count == 1);
    for (uint32_t c = 0; c < cells; c++) {
        x[c] = rnd(&r, 0, 1);
        y[c] = rnd(&r, 0, 1);
        phi[c] = 1.0 - solid[c]; /* (no over-packing: the rhs is J V alone) */
    }
    /* adjointness: h^3 p . (J V*) = imp . V* */
    cont_bodies_rhs(&cb, &g, dt, phi, solid, q);
    cont_bodies_impulse(&cb, &g, dt, x, NULL);
    double lhs = 0, net = 0, rhs = 0;
    for (uint32_t c = 0; c < cells; c++)
        lhs += x[c] * q[c] * g.h * g.h * g.h, net += q[c];
    for (int k = 0; k < 6; k++)
        rhs += cb.b[0].imp[k] * cb.b[0].v[k];
    printf("  %u cells, %u faces of the box; <p, J V> h^3 = %.9e, <J^T p, V> h^3 = %.9e; net solid moved %.2e\n",
           cells, cb.b[0].count, lhs, rhs, net);
    CHECK(fabs(lhs - rhs) <= 1e-10 * fabs(lhs));
    CHECK(fabs(lhs) > 0);
    CHECK(fabs(net) < 1e-12);
    /* symmetry, rows, diagonal */
    cont_bodies_apply(&cb, &g, dt, x, ax);
    cont_bodies_apply(&cb, &g, dt, y, ay);
    double xay = 0, yax = 0, row_err = 0, diag_err = 0, scale = 0;
    for (uint32_t c = 0; c < cells; c++) {
        xay += x[c] * ay[c], yax += y[c] * ax[c];
        row_err = fmax(row_err, fabs(cont_bodies_row(&cb, &g, dt, c, x) - ax[c]));
        scale = fmax(scale, fabs(ax[c]));
    }
    cont_bodies_diag(&cb, &g, dt, diag);
    double *e = zeros(cells), *ae = zeros(cells);
    uint32_t checked = 0;
    for (uint32_t c = 0; c < cells; c += 7) {
        memset(ae, 0, sizeof(double) * cells);
        e[c] = 1;
        cont_bodies_apply(&cb, &g, dt, e, ae);
        e[c] = 0;
        diag_err = fmax(diag_err, fabs(ae[c] - diag[c]));
        checked += diag[c] > 0;
    }
    printf("  <x, A y> = %.9e, <y, A x> = %.9e; worst row error %.2e, diagonal error %.2e (of %.2e; %u touched "
           "diagonals checked)\n",
           xay, yax, row_err, diag_err, scale, checked);
    CHECK(fabs(xay - yax) <= 1e-10 * fabs(xay));
    CHECK(row_err <= 1e-10 * scale);
    CHECK(diag_err <= 1e-10 * scale && checked > 10);
    free(e), free(ae), free(solid), free(x), free(y), free(ax), free(ay), free(diag), free(q), free(phi), free(pts);
    cont_bodies_free(&cb, &mem);
    gr_sparse_grid_free(&g, &mem);
    gr_world_destroy(w);
}

/* The friction's body terms (eq. 26, cont_body_friction.c) around the same turned, moving box:
 * b2's term is the adjoint of the friction's impulse on the body (h^3 s . b2 = imp(s) . u), the
 * low-rank term is symmetric, its full and block rows, its blocks and its diagonal agree with
 * the matvec, the blocks' linear-term helper gives the matvec's component from D2 s, and the
 * trace over the blocks is the sum of the diagonal's additions. */
static void test_body_friction_operators(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_world *w = floor_world();
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.031, 0.023, 0.027};
    bd.position = (gr_vec3){0.004, 0.1, -0.003};
    bd.orientation = (gr_quat){0.1, 0.2, -0.05, 0.97};
    bd.mass = 0.7;
    bd.linear_velocity = (gr_vec3){0.3, -0.2, 0.1};
    bd.angular_velocity = (gr_vec3){1, -2, 0.5};
    CHECK(gr_add_body(w, &bd, NULL) == GR_OK);
    gr_rng r = {7};
    const uint32_t np = 2000;
    double *pts = (double *)malloc(sizeof(double) * 3 * np);
    for (uint32_t i = 0; i < np; i++) {
        pts[3 * i] = rnd(&r, -0.07, 0.07);
        pts[3 * i + 1] = rnd(&r, 0.03, 0.17);
        pts[3 * i + 2] = rnd(&r, -0.07, 0.07);
    }
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, pts, 3, np, 0.01, v3(0, 0, 0), 2));
    const uint32_t cells = gr_sparse_grid_cells(&g), n = 5 * cells;
    cont_bodies cb;
    memset(&cb, 0, sizeof cb);
    double *solid = zeros(cells);
    const double dt = 0.004, h3 = g.h * g.h * g.h;
    CHECK(cont_bodies_build(&cb, &mem, &g, &w->bodies, w->def.gravity, dt, solid) == GR_OK);
    CHECK(cb.free_count == 1);
    cont_pressure cp;
    memset(&cp, 0, sizeof cp);
    cp.g = &g, cp.dt = dt, cp.bodies = &cb;
    cont_friction cf;
    memset(&cf, 0, sizeof cf);
    cf.cp = &cp, cf.q = zeros(n), cf.diag = zeros(n), cf.lo = zeros(n), cf.hi = zeros(n);
    double *x = zeros(n), *y = zeros(n), *ax = zeros(n), *ay = zeros(n), *e = zeros(n), *ae = zeros(n);
    for (uint32_t i = 0; i < n; i++) {
        cf.lo[i] = -1, cf.hi[i] = (i % 11) ? 1 : -1; /* (some fixed: the trace leaves them out) */
        x[i] = rnd(&r, -1, 1), y[i] = rnd(&r, -1, 1);
    }
    /* the friction's face weights fk (cont_bodies_shares) away from 1: faces with packed sand, a
     * sliver of it, or none */
    cont_faces mass = face_zeros(cells), inv_rho = face_zeros(cells);
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++) {
            const uint32_t nb = gr_sparse_grid_neighbor(&g, c, -(a == 0), -(a == 1), -(a == 2));
            const double u = rnd(&r, 0, 1), open = 1 - (nb != GR_INVALID_INDEX ? 0.5 * (solid[c] + solid[nb]) : solid[c]);
            mass.f[a][c] = u < 0.3 ? 0.0 : rnd(&r, 0.1, 1) * 1500 * h3;
            inv_rho.f[a][c] = mass.f[a][c] > 0 ? open / (u < 0.6 ? mass.f[a][c] / h3 : 1500.0) : 0.0;
        }
    cont_bodies_shares(&cb, &g, &mass, &inv_rho, solid);
    double fk_lo = INFINITY, fk_hi = 0;
    for (uint32_t j = 0; j < cb.faces; j++)
        fk_lo = fmin(fk_lo, cb.f[j].fk), fk_hi = fmax(fk_hi, cb.f[j].fk);
    printf("  the friction's face weights fk from %.3f to %.3f\n", fk_lo, fk_hi);
    CHECK(fk_lo > 0.999 && fk_lo < 1.001 && fk_hi > 2);
    cont_friction_bodies_setup(&cf);
    /* adjointness of b2's term and the impulse */
    const cont_stress sx = cont_stress_view(x, cells);
    cont_bodies_impulse(&cb, &g, dt, NULL, &sx);
    double lhs = 0, rhs = 0;
    for (uint32_t i = 0; i < n; i++)
        lhs += h3 * x[i] * cf.q[i];
    for (int k = 0; k < 6; k++)
        rhs += cb.b[0].imp[k] * cb.b[0].u[k];
    /* symmetry, rows */
    cont_friction_bodies_apply(&cf, x, ax);
    cont_friction_bodies_apply(&cf, y, ay);
    double xay = 0, yax = 0, scale = 0, row_err = 0;
    for (uint32_t i = 0; i < n; i++) {
        xay += x[i] * ay[i], yax += y[i] * ax[i];
        scale = fmax(scale, fabs(ax[i]));
        row_err = fmax(row_err, fabs(cont_friction_bodies_row(&cf, i, x) - ax[i]));
    }
    /* the blocks: component k of A applied to x's component k alone, their rows, the gradient */
    cont_faces F = face_zeros(cells);
    cont_stress_div(&g, &sx, &F);
    double block_err = 0, grad_err = 0;
    for (int k = 0; k < 5; k++) {
        double *xk = x + (size_t)k * cells;
        memset(e, 0, sizeof(double) * n);
        memcpy(e + (size_t)k * cells, xk, sizeof(double) * cells);
        memset(ae, 0, sizeof(double) * n);
        cont_friction_bodies_apply(&cf, e, ae);
        double *bk = zeros(cells), *gk = zeros(cells);
        cont_friction_bodies_apply_block(&cf, k, xk, bk);
        cont_friction_bodies_gradient(&cf, k, &F, gk);
        for (uint32_t c = 0; c < cells; c++) {
            block_err = fmax(block_err, fabs(bk[c] - ae[(size_t)k * cells + c]));
            block_err = fmax(block_err, fabs(cont_friction_bodies_row_block(&cf, k, c, xk) - bk[c]));
            grad_err = fmax(grad_err, fabs(gk[c] - ax[(size_t)k * cells + c]));
        }
        free(bk), free(gk);
    }
    /* the diagonal and the trace */
    double diag_err = 0, trace = 0, traced = 0;
    uint32_t checked = 0;
    for (uint32_t i = 0; i < n; i++)
        trace += cf.lo[i] < cf.hi[i] ? cf.diag[i] : 0.0;
    for (int k = 0; k < 5; k++)
        traced += cf.body_trace[k];
    memset(e, 0, sizeof(double) * n);
    for (uint32_t i = 0; i < n; i += 5) {
        memset(ae, 0, sizeof(double) * n);
        e[i] = 1;
        cont_friction_bodies_apply(&cf, e, ae);
        e[i] = 0;
        diag_err = fmax(diag_err, fabs(ae[i] - cf.diag[i]));
        checked += cf.diag[i] > 0;
    }
    printf("  %u cells, %u faces; h^3 s . b2 = %.9e, imp(s) . u = %.9e; <x, B y> = %.9e, <y, B x> = %.9e; "
           "worst row error %.2e, block %.2e, gradient %.2e, diagonal %.2e (of %.2e; %u touched diagonals); trace "
           "%.6e = %.6e\n",
           cells, cb.b[0].count, lhs, rhs, xay, yax, row_err, block_err, grad_err, diag_err, scale, checked, traced,
           trace);
    CHECK(fabs(lhs) > 0 && fabs(lhs - rhs) <= 1e-10 * fabs(lhs));
    CHECK(fabs(xay) > 0 && fabs(xay - yax) <= 1e-10 * fabs(xay));
    CHECK(row_err <= 1e-10 * scale && block_err <= 1e-10 * scale && grad_err <= 1e-10 * scale);
    CHECK(diag_err <= 1e-10 * scale && checked > 10);
    CHECK(traced > 0 && fabs(traced - trace) <= 1e-10 * trace);
    free(x), free(y), free(ax), free(ay), free(e), free(ae), free(solid), free(pts);
    free(cf.q), free(cf.diag), free(cf.lo), free(cf.hi);
    face_free(&F), face_free(&mass), face_free(&inv_rho);
    cont_bodies_free(&cb, &mem);
    gr_sparse_grid_free(&g, &mem);
    gr_world_destroy(w);
}

/* ---- the fractions' cache and bounds (cont_static.c, cont_bodies.c) -------------------------- */

/* Two builds agree bit for bit: the bodies, their faces, the fractions and the touched cells. */
static bool bodies_agree(const cont_bodies *a, const double *sa, const cont_bodies *b, const double *sb,
                         uint32_t cells)
{
    if (a->n != b->n || a->faces != b->faces || a->free_count != b->free_count)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->b[i].slot != b->b[i].slot || a->b[i].first != b->b[i].first || a->b[i].count != b->b[i].count ||
            memcmp(a->b[i].v, b->b[i].v, sizeof a->b[i].v) != 0)
            return false;
    for (uint32_t j = 0; j < a->faces; j++)
        if (a->f[j].cell != b->f[j].cell || a->f[j].nb != b->f[j].nb || a->f[j].axis != b->f[j].axis ||
            memcmp(a->f[j].g, b->f[j].g, sizeof a->f[j].g) != 0)
            return false;
    return memcmp(sa, sb, sizeof(double) * cells) == 0 && memcmp(a->fixed, b->fixed, sizeof(double) * cells) == 0 &&
           memcmp(a->touch, b->touch, cells) == 0;
}

static gr_body add_shape(gr_world *w, gr_shape_type shape, gr_motion_type motion, gr_vec3 at, gr_vec3 size,
                         const gr_vec3 *mv, const uint32_t *mi)
{
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = shape;
    d.motion = motion;
    d.position = at;
    d.orientation = quat_normalize((gr_quat){0.2, -0.3, 0.1, 1});
    d.radius = size.x;
    d.half_height = size.y;
    d.half_extents = size;
    d.normal = (gr_vec3){0.1, 1, 0.2};
    d.open_faces = GR_FACE_POS_Y;
    if (motion == GR_MOTION_KINEMATIC)
        d.angular_velocity = (gr_vec3){1, 2, -1};
    if (shape == GR_SHAPE_MESH) {
        d.mesh_vertices = mv;
        d.mesh_indices = mi;
        d.mesh_vertex_count = 8;
        d.mesh_triangle_count = 12;
    }
    gr_body out = {0};
    if (gr_add_body(w, &d, &out) != GR_OK)
        abort();
    return out;
}

/* The step's build (static bodies' fractions from the cache, the others' measured only within
 * their reach) on 3 workers against a fresh build in the calling thread measuring every body in
 * every cell, over a sequence of overlapping grids while static bodies are moved, removed and
 * added: the same bits each time (the new blocks' measurement, a mesh's query with each worker's
 * stamps, the face lists by chunk); the cache is used where the geometry stayed and dropped
 * where it changed. */
static void test_body_fractions_cached_and_bounded(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_world *w = floor_world(); /* a static plane through the origin, under the grid */
    gr_vec3 mv[8];
    uint32_t mi[36];
    tu_box_mesh(v3(0.025, 0.018, 0.021), v3(0.003, 0, -0.002), mv, mi);
    const double h = 0.01;
    gr_body smesh = add_shape(w, GR_SHAPE_MESH, GR_MOTION_STATIC, v3(0.01, 0.06, 0.0), v3(0, 0, 0), mv, mi);
    gr_body ssphere = add_shape(w, GR_SHAPE_SPHERE, GR_MOTION_STATIC, v3(-0.03, 0.09, 0.02), v3(0.021, 0, 0), NULL, NULL);
    add_shape(w, GR_SHAPE_CONTAINER, GR_MOTION_STATIC, v3(0, 0.06, 0), v3(0.05, 0.05, 0.05), NULL, NULL);
    add_shape(w, GR_SHAPE_BOX, GR_MOTION_STATIC, v3(0.04, 0.03, -0.03), v3(0.012, 0.02, 0.009), NULL, NULL);
    add_shape(w, GR_SHAPE_BOX, GR_MOTION_KINEMATIC, v3(-0.02, 0.04, -0.02), v3(0.013, 0.011, 0.017), NULL, NULL);
    add_shape(w, GR_SHAPE_CAPSULE, GR_MOTION_KINEMATIC, v3(0.02, 0.1, 0.03), v3(0.011, 0.015, 0), NULL, NULL);
    add_shape(w, GR_SHAPE_MESH, GR_MOTION_KINEMATIC, v3(-0.04, 0.1, -0.03), v3(0, 0, 0), mv, mi);
    add_shape(w, GR_SHAPE_CONTAINER, GR_MOTION_KINEMATIC, v3(0.03, 0.08, 0.03), v3(0.011, 0.013, 0.012), NULL, NULL);
    add_shape(w, GR_SHAPE_PLANE, GR_MOTION_KINEMATIC, v3(0, 0.015, 0), v3(0, 0, 0), NULL, NULL);
    gr_body_def dd;
    gr_body_def_init(&dd);
    dd.shape = GR_SHAPE_SPHERE;
    dd.motion = GR_MOTION_DYNAMIC;
    dd.radius = 0.017;
    dd.position = (gr_vec3){0.0, 0.11, -0.04};
    CHECK(gr_add_body(w, &dd, NULL) == GR_OK);

    gr_rng r = {11};
    const uint32_t np = 3000;
    double *pts = (double *)malloc(sizeof(double) * 3 * np);
    cont_bodies cached, fresh;
    memset(&cached, 0, sizeof cached);
    memset(&fresh, 0, sizeof fresh);
    fresh.uncached = true;
    gr_tasks pool;
    CHECK(gr_tasks_init(&pool, &mem, 3, NULL) == GR_OK);
    cached.tasks = &pool;
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    static const char *const what[] = {"first grid", "shifted", "static mesh moved", "static sphere removed",
                                       "static capsule added", "same grid again", "shifted back"};
    const double shift[7][3] = {{0, 0, 0}, {0.013, 0.02, -0.01}, {0.02, 0.01, 0}, {0.005, 0.0, 0.01},
                                {0.0, 0.01, 0.012}, {0.0, 0.01, 0.012}, {0, 0, 0}};
    uint64_t reused_before = 0;
    for (int k = 0; k < 7; k++) {
        if (k == 2)
            CHECK(gr_body_set_pose(w, smesh, v3(0.023, 0.051, 0.004), quat_normalize((gr_quat){0.5, 0.1, 0, 1})) == GR_OK);
        if (k == 3)
            CHECK(gr_remove_body(w, ssphere) == GR_OK);
        if (k == 4)
            add_shape(w, GR_SHAPE_CAPSULE, GR_MOTION_STATIC, v3(0.0, 0.08, 0.0), v3(0.012, 0.02, 0), NULL, NULL);
        gr_rng rk = r; /* the same cloud, shifted */
        for (uint32_t i = 0; i < np; i++)
            for (int a = 0; a < 3; a++)
                pts[3 * i + a] = rnd(&rk, a == 1 ? 0.0 : -0.07, a == 1 ? 0.14 : 0.07) + shift[k][a];
        CHECK(gr_sparse_grid_build(&g, &mem, pts, 3, np, h, v3(0, 0, 0), 2));
        const uint32_t cells = gr_sparse_grid_cells(&g);
        double *sa = zeros(cells), *sb = zeros(cells);
        const uint64_t measured = cached.stat.measured;
        CHECK(cont_bodies_build(&cached, &mem, &g, &w->bodies, w->def.gravity, 0.004, sa) == GR_OK);
        CHECK(cont_bodies_build(&fresh, &mem, &g, &w->bodies, w->def.gravity, 0.004, sb) == GR_OK);
        const bool same = bodies_agree(&cached, sa, &fresh, sb, cells);
        const uint64_t reused = cached.stat.reused - reused_before, new_blocks = cached.stat.measured - measured;
        uint32_t solid_cells = 0;
        for (uint32_t c = 0; c < cells; c++)
            solid_cells += sa[c] > 0;
        printf("  %-22s %5u cells (%4u with solid), %3u faces: blocks reused %3llu, measured %3llu: %s\n", what[k],
               cells, solid_cells, cached.faces, (unsigned long long)reused, (unsigned long long)new_blocks,
               same ? "bit-identical" : "DIFFERS");
        CHECK(same);
        CHECK(cached.faces > 100 && solid_cells > 100);
        /* the cache serves every block the last grid had unless the static geometry changed */
        if (k == 1 || k == 6)
            CHECK(reused > 0 && new_blocks > 0);
        if (k >= 2 && k <= 4)
            CHECK(reused == 0);
        if (k == 5)
            CHECK(new_blocks == 0 && reused == g.block_count);
        reused_before = cached.stat.reused;
        free(sa), free(sb);
        /* the kinematic and dynamic bodies move on (their fractions are never cached) */
        for (uint32_t a = 0; a < w->bodies.count; a++) {
            gr_body_data *b = &w->bodies.data[w->bodies.active[a]];
            if (b->motion != GR_MOTION_STATIC) {
                b->position = v3_add(b->position, v3(0.004, -0.003, 0.005));
                gr_body_integrate(b, 0.05);
            }
        }
    }
    free(pts);
    cont_bodies_free(&cached, &mem);
    cont_bodies_free(&fresh, &mem);
    gr_tasks_destroy(&pool);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"shape_follows_the_flow", test_shape_follows_the_flow},
        {"split_and_merge", test_split_and_merge},
        {"regrain_conserves", test_regrain_conserves},
        {"pressure_bound_sealed_group", test_pressure_bound_sealed_group},
        {"packed_block_wall_to_wall", test_packed_block_wall_to_wall},
        {"press_into_packed_sand", test_press_into_packed_sand},
        {"free_body_in_sealed_sand", test_free_body_in_sealed_sand},
        {"operators_adjoint", test_operators_adjoint},
        {"rigid_motion_stress_free", test_rigid_motion_stress_free},
        {"hydrostatic_column", test_hydrostatic_column},
        {"transfers_same_bits_for_any_worker_count", test_transfers_same_bits_for_any_worker_count},
        {"friction_rows_and_solvers_agree", test_friction_rows_and_solvers_agree},
        {"incline_stick_and_slip", test_incline_stick_and_slip},
        {"column_collapse", test_column_collapse},
        {"body_coupling_operators", test_body_coupling_operators},
        {"body_friction_operators", test_body_friction_operators},
        {"body_fractions_cached_and_bounded", test_body_fractions_cached_and_bounded},
        {"density_warm_packed_block_relaxes", test_density_warm_packed_block_relaxes},
        {"density_warm_column_at_rest", test_density_warm_column_at_rest},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
