/* SPDX-License-Identifier: MIT */
/* The adaptive RKF45 integrator (Bell 2005, 3.4): exact ballistics with few large steps,
 * impacts resolved by shrinking the step (restitution as with velocity Verlet), a pile at rest
 * carrying its weight, clumps and dynamic bodies, determinism and snapshots, bad tolerances. */
#include <granular/granular.h>
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

static gr_status rkf_world(gr_world **w, unsigned workers, double tol, gr_vec3 gravity)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = GR_INTEGRATOR_RKF45;
    dem.rkf_tolerance = tol;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.worker_count = workers;
    def.gravity = gravity;
    return gr_world_create(&def, w);
}

static uint64_t substeps(const gr_world *w)
{
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    return c.substep_count;
}

/* Free flight: a polynomial trajectory, integrated exactly, in a handful of steps. */
static void test_rkf45_free_flight(void)
{
    gr_world *w;
    CHECK_OK(NULL, rkf_world(&w, 1, 1e-3, (gr_vec3){0, -9.81, 0}));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.002;
    g.position = (gr_vec3){0, 10, 0};
    g.velocity = (gr_vec3){1, 3, 0};
    g.angular_velocity = (gr_vec3){0, 0, 5};
    gr_grain h;
    CHECK_OK(w, gr_add_grain(w, &g, &h));
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_grain_state s;
    CHECK_OK(w, gr_grain_get_state(w, h, &s));
    CHECK_NEAR(s.position.x, 1.0, 1e-12);
    CHECK_NEAR(s.position.y, 10 + 3 - 0.5 * 9.81, 1e-12);
    CHECK_NEAR(s.velocity.y, 3 - 9.81, 1e-12);
    CHECK_NEAR(s.angular_velocity.z, 5, 1e-12);
    /* the step is bounded by the neighbour lists' reach (a step may not carry a grain further
     * than the skin), not by accuracy: far fewer steps than Verlet's ~30000 for this grain */
    printf("  1 s of flight in %llu steps\n", (unsigned long long)substeps(w));
    CHECK(substeps(w) < 3000);
    gr_world_destroy(w);
}

/* Rebound speed of a sphere dropped on the floor, with either integrator. */
static double rebound_ratio(gr_integrator integ, double tol, uint64_t *steps)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integ;
    dem.rkf_tolerance = tol;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.gravity = (gr_vec3){0, 0, 0};
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.restitution = 0.5;
    gr_material m;
    gr_add_material(w, &md, &m);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    gr_add_body(w, &bd, NULL);
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.005;
    g.material = m;
    g.position = (gr_vec3){0, 0.006, 0};
    g.velocity = (gr_vec3){0, -1, 0};
    gr_grain h;
    gr_add_grain(w, &g, &h);
    for (int k = 0; k < 30; k++)
        gr_step(w, 1.0 / 600);
    gr_grain_state s;
    gr_grain_get_state(w, h, &s);
    *steps = substeps(w);
    gr_world_destroy(w);
    return s.velocity.y;
}

/* An impact: the step shrinks through the contact and the restitution matches Verlet's. */
static void test_rkf45_impact_restitution(void)
{
    uint64_t nv, nr, nr4;
    const double ev = rebound_ratio(GR_INTEGRATOR_VELOCITY_VERLET, 1e-3, &nv);
    const double er = rebound_ratio(GR_INTEGRATOR_RKF45, 1e-3, &nr);
    const double er4 = rebound_ratio(GR_INTEGRATOR_RKF45, 1e-5, &nr4);
    printf("  rebound: Verlet %.4f m/s in %llu steps; RKF45 %.4f m/s in %llu steps (tol 1e-3), %.4f in %llu (1e-5)\n",
           ev, (unsigned long long)nv, er, (unsigned long long)nr, er4, (unsigned long long)nr4);
    /* the Hertz damping is calibrated to e = 0.5 for the exact solution of the contact */
    CHECK_NEAR(ev, 0.5, 0.02);   /* Verlet at the stable substep: within 2 % */
    CHECK_NEAR(er, 0.5, 0.03);   /* the default tolerance: a few per cent */
    CHECK_NEAR(er4, 0.5, 0.002); /* converges to the exact rebound as the tolerance tightens */
    CHECK(nr < nv && nr4 < nv); /* the flight before and after needs few steps */
}

/* A pile settles and the container carries its weight (forces summed with the 5th-order
 * weights over the stages). */
static void test_rkf45_pile_weight(void)
{
    gr_world *w;
    CHECK_OK(NULL, rkf_world(&w, 2, 1e-3, (gr_vec3){0, -9.81, 0}));
    gr_body box;
    CHECK_OK(w, tu_pile(w, 0.04, 0.004, 400, &box));
    for (int k = 0; k < 90; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const uint32_t n = gr_world_get_grain_count(w);
    double *m = (double *)malloc(sizeof(double) * n), *v = (double *)malloc(sizeof(double) * 3 * n), mass = 0, vmax = 0;
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    for (uint32_t i = 0; i < n; i++) {
        mass += m[i];
        vmax = fmax(vmax, sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
    }
    free(m);
    free(v);
    gr_vec3 f;
    CHECK_OK(w, gr_body_get_force(w, box, &f, NULL));
    printf("  %u grains: %llu steps, container carries %.4f N of %.4f N, max speed %.2e\n", n,
           (unsigned long long)substeps(w), -f.y, 9.81 * mass, vmax);
    CHECK(vmax < 5e-3);
    CHECK_NEAR(-f.y, 9.81 * mass, 0.01 * 9.81 * mass);
    gr_world_destroy(w);
}

/* Clumps and a dynamic body: a tetrahedron tumbles (momentum kept), a box rests on the floor. */
static void test_rkf45_clumps_and_bodies(void)
{
    gr_world *w;
    CHECK_OK(NULL, rkf_world(&w, 1, 1e-4, (gr_vec3){0, 0, 0}));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.shape = GR_GRAIN_PAIR; /* not a spherical top: the rotation is a real ODE */
    g.radius = 0.01;
    g.angular_velocity = (gr_vec3){3, 1, 2};
    gr_grain h;
    CHECK_OK(w, gr_add_grain(w, &g, &h));
    gr_grain_state s0, s1;
    CHECK_OK(w, gr_grain_get_state(w, h, &s0));
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    CHECK_OK(w, gr_grain_get_state(w, h, &s1));
    /* |w| is not conserved for an asymmetric top, but the kinetic energy and |L| are; the
     * position must not move */
    CHECK(fabs(s1.position.x) < 1e-12 && fabs(s1.position.y) < 1e-12);
    const double w0 = sqrt(s0.angular_velocity.x * s0.angular_velocity.x + s0.angular_velocity.y * s0.angular_velocity.y +
                           s0.angular_velocity.z * s0.angular_velocity.z);
    const double w1 = sqrt(s1.angular_velocity.x * s1.angular_velocity.x + s1.angular_velocity.y * s1.angular_velocity.y +
                           s1.angular_velocity.z * s1.angular_velocity.z);
    CHECK(fabs(w1 - w0) < 0.5 * w0); /* bounded: a tumbling top, not a blow-up */
    gr_world_destroy(w);

    CHECK_OK(NULL, rkf_world(&w, 1, 1e-3, (gr_vec3){0, -9.81, 0}));
    gr_body_def fd;
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    CHECK_OK(w, gr_add_body(w, &fd, NULL));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.03, 0.02, 0.03};
    bd.particle_radius = 0.004;
    bd.position = (gr_vec3){0, 0.05, 0};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &bd, &box));
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    double mass;
    gr_vec3 f, p;
    CHECK_OK(w, gr_body_get_mass(w, box, &mass));
    CHECK_OK(w, gr_body_get_force(w, box, &f, NULL));
    CHECK_OK(w, gr_body_get_pose(w, box, &p, NULL));
    printf("  box at rest at y = %.4f, floor carries %.4f N of %.4f N\n", p.y, f.y, 9.81 * mass);
    CHECK_NEAR(p.y, 0.02 + 0.004, 0.001);
    CHECK_NEAR(f.y, 9.81 * mass, 0.01 * 9.81 * mass);
    gr_world_destroy(w);
}

static void test_rkf45_determinism_and_snapshot(void)
{
    uint64_t ref = 0;
    gr_body boxes[1];
    for (unsigned workers = 1; workers <= 3; workers += 2) {
        gr_world *w;
        CHECK_OK(NULL, rkf_world(&w, workers, 1e-3, (gr_vec3){0, -9.81, 0}));
        CHECK_OK(w, tu_pile(w, 0.03, 0.004, 200, &boxes[0]));
        for (int k = 0; k < 20; k++)
            CHECK_OK(w, gr_step(w, 1.0 / 60));
        const uint64_t hsh = tu_state_hash(w, boxes, 1);
        if (workers == 1)
            ref = hsh;
        CHECK(hsh == ref);
        if (workers == 3) {
            tu_stream st;
            tu_stream_init(&st);
            CHECK_OK(w, gr_world_save(w, tu_stream_write, &st));
            for (int k = 0; k < 10; k++)
                CHECK_OK(w, gr_step(w, 1.0 / 60));
            const uint64_t a = tu_state_hash(w, boxes, 1);
            st.pos = 0;
            CHECK_OK(w, gr_world_load(w, tu_stream_read, &st));
            for (int k = 0; k < 10; k++)
                CHECK_OK(w, gr_step(w, 1.0 / 60));
            CHECK(tu_state_hash(w, boxes, 1) == a);
            tu_stream_free(&st);
        }
        gr_world_destroy(w);
    }
}

static void test_rkf45_bad_tolerance(void)
{
    gr_world *w = NULL;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, rkf_world(&w, 1, 0.0, (gr_vec3){0, -9.81, 0}));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, rkf_world(&w, 1, -1e-3, (gr_vec3){0, -9.81, 0}));
    CHECK_STATUS(GR_ERROR_NOT_FINITE, rkf_world(&w, 1, NAN, (gr_vec3){0, -9.81, 0}));
    CHECK(w == NULL);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"rkf45_free_flight", test_rkf45_free_flight},
        {"rkf45_impact_restitution", test_rkf45_impact_restitution},
        {"rkf45_pile_weight", test_rkf45_pile_weight},
        {"rkf45_clumps_and_bodies", test_rkf45_clumps_and_bodies},
        {"rkf45_determinism_and_snapshot", test_rkf45_determinism_and_snapshot},
        {"rkf45_bad_tolerance", test_rkf45_bad_tolerance},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
