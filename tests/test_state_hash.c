/* SPDX-License-Identifier: MIT */
/* Committed state hashes, one scene per solver path (as Box2D keeps an expected hash): the
 * whole observable state after a fixed run, hashed, must equal the value written here, for 1
 * and 2 workers. A restructuring that must not change results (issue 21) keeps these green;
 * a change that is meant to change results updates the constant and says why in its commit.
 * Every SIMD kernel gives the same bits (lib/simd/simd_kernels.h), so the hash does not
 * depend on the CPU, and GCC and Clang builds agree (the release build is GCC's, the sanitizer
 * build Clang's: both run this test); it does depend on libm (glibc's sin, cos, exp, pow). On a
 * mismatch the test prints the hash it found. */
#include <granular/granular.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define MAX_BODIES 4

typedef struct scene {
    gr_world *w;
    gr_body bodies[MAX_BODIES];
    int nbodies;
} scene;

/* tu_state_hash (grains, time, body poses) plus each body's velocities and sensed force and
 * torque, and every render point. */
static uint64_t full_hash(const scene *s)
{
    uint64_t h = tu_state_hash(s->w, s->bodies, s->nbodies);
    for (int b = 0; b < s->nbodies; b++) {
        gr_vec3 v[4];
        memset(v, 0, sizeof v);
        if (gr_body_get_velocity(s->w, s->bodies[b], &v[0], &v[1]) == GR_OK)
            h = tu_fnv(h, v, 2 * sizeof v[0]);
        if (gr_body_get_force(s->w, s->bodies[b], &v[2], &v[3]) == GR_OK)
            h = tu_fnv(h, v + 2, 2 * sizeof v[0]);
    }
    const uint32_t n = gr_world_get_render_point_count(s->w);
    h = tu_fnv(h, &n, sizeof n);
    if (n) {
        float *p = (float *)malloc(sizeof(float) * 4 * n);
        if (!p || gr_read_render_points(s->w, 0, n, p, 0) != GR_OK) {
            free(p);
            return 0;
        }
        h = tu_fnv(h, p, sizeof(float) * 4 * n);
        free(p);
    }
    return h;
}

static gr_status add_body(scene *s, const gr_body_def *bd)
{
    return gr_add_body(s->w, bd, &s->bodies[s->nbodies++]);
}

/* The bodies every scene has: an open container 10 cm wide, a dynamic box dropped into it,
 * and a kinematic paddle turning through the sand. */
static gr_status add_common_bodies(scene *s, double particle_radius)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.05, 0.1, 0.05};
    bd.position = (gr_vec3){0, 0.1, 0};
    gr_status st = add_body(s, &bd);
    if (st != GR_OK)
        return st;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.012, 0.008, 0.01};
    bd.position = (gr_vec3){0.015, 0.09, -0.01};
    bd.particle_radius = particle_radius;
    if ((st = add_body(s, &bd)) != GR_OK)
        return st;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.03, 0.01, 0.003};
    bd.position = (gr_vec3){-0.015, 0.015, 0.01};
    bd.angular_velocity = (gr_vec3){0, 6.0, 0};
    return add_body(s, &bd);
}

static gr_status fill(scene *s, gr_material m, double r, uint32_t count, double y0, double y1)
{
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.material = m;
    fd.radius = r;
    fd.min = (gr_vec3){-0.05, y0, -0.05};
    fd.max = (gr_vec3){0.05, y1, 0.05};
    fd.max_count = count;
    fd.seed = 11;
    return gr_fill_box(s->w, &fd, NULL, NULL, 0);
}

static gr_status sand(scene *s, gr_material *out)
{
    gr_material_def md;
    gr_material_def_init(&md);
    gr_status st = gr_material_def_set_preset(&md, GR_MATERIAL_PRESET_DRY_SAND);
    return st == GR_OK ? gr_add_material(s->w, &md, out) : st;
}

/* A world of wd's solver with `workers` workers: the sand preset, the common bodies (a dynamic
 * box covered with particles of particle_radius) and up to `count` grains of 4 mm filled
 * from 3 cm up to y1. */
static gr_status open_scene(scene *s, gr_world_def *wd, unsigned workers, double particle_radius, uint32_t count,
                            double y1, gr_material *m)
{
    memset(s, 0, sizeof *s);
    wd->worker_count = workers;
    gr_status st = gr_world_create(wd, &s->w);
    if (st == GR_OK && (st = sand(s, m)) == GR_OK && (st = add_common_bodies(s, particle_radius)) == GR_OK)
        st = fill(s, *m, 0.004, count, 0.03, y1);
    return st;
}

/* DEM, Hertz with history friction and EPSD rolling resistance, velocity Verlet (0.2 s) or
 * RKF45 (0.1 s): spheres, three-sphere clumps and the common bodies, frames of 1/120 s. */
static gr_status scene_dem(scene *s, unsigned workers, gr_integrator integrator, double seconds, double frame)
{
    gr_dem_def dd;
    gr_dem_def_init(&dd);
    dd.rolling_law = GR_ROLLING_EPSD;
    dd.integrator = integrator;
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_DEM);
    wd.dem = &dd;
    gr_material m;
    gr_status st = open_scene(s, &wd, workers, 0.003, integrator == GR_INTEGRATOR_RKF45 ? 120 : 300, 0.08, &m);
    if (st != GR_OK)
        return st;
    static const gr_vec3 centres[3] = {{-1, 0, 0}, {0, 0, 0}, {1, 0.3, 0}};
    static const double radii[3] = {0.8, 1.0, 0.8};
    gr_clump_def cd;
    gr_clump_def_init(&cd);
    cd.count = 3;
    cd.centres = centres;
    cd.radii = radii;
    gr_clump tmpl;
    if ((st = gr_add_clump_template(s->w, &cd, &tmpl)) != GR_OK)
        return st;
    for (int i = 0; i < 12; i++) {
        gr_grain_def g;
        gr_grain_def_init(&g);
        g.shape = GR_GRAIN_CLUMP;
        g.clump = tmpl;
        g.material = m;
        g.radius = 0.006;
        g.position = (gr_vec3){-0.03 + 0.015 * (i % 4), 0.1 + 0.014 * (i / 4), 0.02};
        g.velocity = (gr_vec3){0, -0.5, 0};
        g.angular_velocity = (gr_vec3){1.0 * i, 0, 2.0};
        if ((st = gr_add_grain(s->w, &g, NULL)) != GR_OK)
            return st;
    }
    const int frames = (int)lround(seconds / frame);
    for (int f = 0; f < frames && st == GR_OK; f++)
        st = gr_step(s->w, frame);
    return st;
}

/* PBD at its defaults with render points: spheres and the common bodies, 0.5 s at 60 Hz. */
static gr_status scene_pbd(scene *s, unsigned workers)
{
    gr_pbd_def pd;
    gr_pbd_def_init(&pd);
    pd.hr_radius = 0.002;
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_PBD);
    wd.pbd = &pd;
    gr_material m;
    gr_status st = open_scene(s, &wd, workers, 0.004, 500, 0.1, &m);
    if (st != GR_OK)
        return st;
    for (int f = 0; f < 30 && st == GR_OK; f++)
        st = gr_step(s->w, 1.0 / 60);
    return st;
}

typedef struct hash_case {
    const char *name;
    uint64_t expected;
} hash_case;

static void check_hash(const hash_case *c, int which)
{
    uint64_t got[2] = {0, 0};
    for (unsigned workers = 1; workers <= 2; workers++) {
        scene s;
        /* (RKF45 also at a frame of 12.3 ms, split into substeps whose sum is not the frame:
         * the adaptive step must get the same length as ever) */
        gr_status st = which == 0   ? scene_dem(&s, workers, GR_INTEGRATOR_VELOCITY_VERLET, 0.2, 1.0 / 120)
                       : which == 1 ? scene_dem(&s, workers, GR_INTEGRATOR_RKF45, 0.1, 1.0 / 120)
                       : which == 3 ? scene_dem(&s, workers, GR_INTEGRATOR_RKF45, 0.0984, 0.0123)
                                    : scene_pbd(&s, workers);
        CHECK_OK(s.w, st);
        printf("  %s, %u worker%s: %u grains, %u render points, hash 0x%016" PRIx64 "\n", c->name, workers,
               workers > 1 ? "s" : "", gr_world_get_grain_count(s.w), gr_world_get_render_point_count(s.w),
               got[workers - 1] = full_hash(&s));
        gr_world_destroy(s.w);
    }
    CHECK(got[0] == got[1]);
    if (got[0] != c->expected)
        printf("  expected 0x%016" PRIx64 ": the results changed (if meant, update the constant and say why)\n",
               c->expected);
    CHECK(got[0] == c->expected);
}

static const hash_case cases[] = {
    {"dem_verlet", 0x03a1ad977bf55b7full},
    {"dem_rkf45", 0xc5ff836ec7c278c3ull},
    {"pbd", 0x1395d3c95e1a3d6bull} /* issue 37: derived PBD friction, the warm start of a grown substep (was 0xae01bf66c48213ba) */,
    {"dem_rkf45_odd_frame", 0x5b3024c8f385bd49ull}, /* (the same as before the adaptive flag, 66494c4) */
};

static void test_state_hash_dem_verlet(void) { check_hash(&cases[0], 0); }
static void test_state_hash_dem_rkf45(void) { check_hash(&cases[1], 1); }
static void test_state_hash_pbd(void) { check_hash(&cases[2], 2); }
static void test_state_hash_dem_rkf45_odd_frame(void) { check_hash(&cases[3], 3); }

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"state_hash_dem_verlet", test_state_hash_dem_verlet},
        {"state_hash_dem_rkf45", test_state_hash_dem_rkf45},
        {"state_hash_pbd", test_state_hash_pbd},
        {"state_hash_dem_rkf45_odd_frame", test_state_hash_dem_rkf45_odd_frame},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
