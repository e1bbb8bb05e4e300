/* SPDX-License-Identifier: MIT */
/* Benchmark: velocity Verlet against adaptive RKF45 (Bell 2005, 3.4) for the same accuracy.
 * Three scenes, each with an exact or a converged reference:
 *   impact  one sphere (r = 5 mm, Hertz, e = 0.5) hits a floor at 1 m/s, then flies 0.1 s:
 *           error = |rebound speed - 0.5 m/s| (the damping is calibrated on the exact contact);
 *   sparse  200 grains rain through an empty box for 0.5 s, few collisions: error = RMS
 *           distance to a reference run (RKF45 at 1e-8) at the end;
 *   pile    800 grains settle in a box for 1.5 s: error = |container force / weight - 1|.
 * Verlet runs at the stable substep and at 1/2, 1/4, 1/8 of it; RKF45 at tolerances 1e-2 to
 * 1e-6. Each line: scene integrator setting steps force_evals wall_ms error. A harness, not a
 * test. */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct run_result {
    double wall_ms, error;
    unsigned long long steps;
    double *positions; ///< sparse scene: for the reference comparison
} run_result;

static gr_world *make(gr_integrator integ, double tol, double substep_scale, gr_vec3 gravity, double *stable)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integ;
    dem.rkf_tolerance = tol;
    dem.rayleigh_fraction *= substep_scale; /* Verlet's substep: the stable one, scaled */
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.gravity = gravity;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        exit(1);
    (void)stable;
    return w;
}

static run_result impact(gr_integrator integ, double tol, double scale)
{
    gr_world *w = make(integ, tol, scale, (gr_vec3){0, 0, 0}, NULL);
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
    const double t0 = now();
    for (int k = 0; k < 60; k++)
        gr_step(w, 0.1 / 60);
    run_result r = {1e3 * (now() - t0), 0, 0, NULL};
    gr_grain_state s;
    gr_grain_get_state(w, h, &s);
    r.error = fabs(s.velocity.y - 0.5);
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    r.steps = c.substep_count;
    gr_world_destroy(w);
    return r;
}

static run_result sparse(gr_integrator integ, double tol, double scale)
{
    gr_world *w = make(integ, tol, scale, (gr_vec3){0, -9.81, 0}, NULL);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.2, 0.2, 0.2};
    bd.position = (gr_vec3){0, 0.2, 0};
    gr_add_body(w, &bd, NULL);
    enum { N = 200 };
    gr_grain_def g[N];
    uint64_t seed = 99;
    for (int i = 0; i < N; i++) {
        gr_grain_def_init(&g[i]);
        g[i].radius = 0.004;
        double u[3];
        for (int a = 0; a < 3; a++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            u[a] = (double)(seed >> 11) / 9007199254740992.0;
        }
        g[i].position = (gr_vec3){-0.18 + 0.36 * u[0], 0.05 + 0.3 * u[1], -0.18 + 0.36 * u[2]};
        g[i].velocity = (gr_vec3){2 * u[2] - 1, 0, 1 - 2 * u[0]};
    }
    gr_add_grains(w, g, N, NULL);
    const double t0 = now();
    for (int k = 0; k < 30; k++)
        gr_step(w, 0.5 / 30);
    run_result r = {1e3 * (now() - t0), 0, 0, NULL};
    r.positions = (double *)malloc(sizeof(double) * 3 * N);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, N, r.positions, 0);
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    r.steps = c.substep_count;
    gr_world_destroy(w);
    return r;
}

static run_result pile(gr_integrator integ, double tol, double scale)
{
    gr_world *w = make(integ, tol, scale, (gr_vec3){0, -9.81, 0}, NULL);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.05, 0.1, 0.05};
    bd.position = (gr_vec3){0, 0.1, 0};
    gr_body box;
    gr_add_body(w, &bd, &box);
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.05, 0, -0.05};
    fd.max = (gr_vec3){0.05, 0.2, 0.05};
    fd.radius = 0.004;
    fd.max_count = 800;
    fd.seed = 7;
    uint32_t n;
    gr_fill_box(w, &fd, &n, NULL, 0);
    const double t0 = now();
    for (int k = 0; k < 90; k++)
        gr_step(w, 1.0 / 60);
    run_result r = {1e3 * (now() - t0), 0, 0, NULL};
    double *m = (double *)malloc(sizeof(double) * n), mass = 0;
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    for (uint32_t i = 0; i < n; i++)
        mass += m[i];
    free(m);
    gr_vec3 f;
    gr_body_get_force(w, box, &f, NULL);
    r.error = fabs(-f.y / (9.81 * mass) - 1);
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    r.steps = c.substep_count;
    gr_world_destroy(w);
    return r;
}

static void report(const char *scene, gr_integrator integ, double setting, run_result r)
{
    const bool rk = integ == GR_INTEGRATOR_RKF45;
    printf("%-7s %-6s %s=%-8.3g steps=%-7llu force_evals=%-7llu wall_ms=%-9.1f error=%.3e\n", scene, rk ? "rkf45" : "verlet",
           rk ? "tol" : "h/h_stable", setting, r.steps, r.steps * (rk ? 6ull : 1ull), r.wall_ms, r.error);
}

int main(void)
{
    static const double scales[] = {1.0, 0.5, 0.25, 0.125};
    static const double tols[] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
    for (size_t k = 0; k < 4; k++)
        report("impact", GR_INTEGRATOR_VELOCITY_VERLET, scales[k], impact(GR_INTEGRATOR_VELOCITY_VERLET, 1e-3, scales[k]));
    for (size_t k = 0; k < 5; k++)
        report("impact", GR_INTEGRATOR_RKF45, tols[k], impact(GR_INTEGRATOR_RKF45, tols[k], 1));
    run_result ref = sparse(GR_INTEGRATOR_RKF45, 1e-8, 1);
    for (int v = 0; v < 9; v++) {
        const bool rk = v >= 4;
        run_result r = rk ? sparse(GR_INTEGRATOR_RKF45, tols[v - 4], 1) : sparse(GR_INTEGRATOR_VELOCITY_VERLET, 1e-3, scales[v]);
        double s2 = 0;
        for (int i = 0; i < 3 * 200; i++)
            s2 += (r.positions[i] - ref.positions[i]) * (r.positions[i] - ref.positions[i]);
        r.error = sqrt(s2 / 200);
        report("sparse", rk ? GR_INTEGRATOR_RKF45 : GR_INTEGRATOR_VELOCITY_VERLET, rk ? tols[v - 4] : scales[v], r);
        free(r.positions);
    }
    free(ref.positions);
    for (size_t k = 0; k < 2; k++)
        report("pile", GR_INTEGRATOR_VELOCITY_VERLET, scales[k], pile(GR_INTEGRATOR_VELOCITY_VERLET, 1e-3, scales[k]));
    for (size_t k = 0; k < 3; k++)
        report("pile", GR_INTEGRATOR_RKF45, tols[k], pile(GR_INTEGRATOR_RKF45, tols[k], 1));
    return 0;
}
