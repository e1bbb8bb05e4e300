/* SPDX-License-Identifier: MIT */
/* The DEM's render points (gr_dem_def.hr_radius; lib/upsample, as PBD's): sampled in the grains'
 * volume (clumps' spheres too, bodies' particles not), following the grains' flow, saved and
 * loaded bit-identically, the same for any worker count, and refused when their settings are
 * out of range. */
#include <granular/granular.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define R_GRAIN 0.004
#define R_POINT 0.0012

static gr_status points_world(unsigned workers, double hr_radius, gr_world **out)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.hr_radius = hr_radius;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_DEM);
    d.worker_count = workers;
    d.solver_def = &dem;
    return gr_world_create(&d, out);
}

/* A floor and a block of grains on it (a lattice, a little apart); `shape` sphere or tetrahedron. */
static gr_status bed(gr_world *w, gr_grain_shape shape, uint32_t *count)
{
    gr_body_def floor;
    gr_body_def_init(&floor);
    floor.shape = GR_SHAPE_PLANE;
    gr_status s = gr_add_body(w, &floor, NULL);
    if (s != GR_OK)
        return s;
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.min = (gr_vec3){-0.03, R_GRAIN, -0.03};
    f.max = (gr_vec3){0.03, 0.05, 0.03};
    f.radius = R_GRAIN;
    f.shape = shape;
    f.max_count = 400;
    return gr_fill_box(w, &f, count, NULL, 0);
}

/* Every render point, as float quadruples. */
static float *read_points(const gr_world *w, uint32_t *n)
{
    *n = gr_world_get_render_point_count(w);
    float *p = (float *)malloc(sizeof(float) * 4 * (size_t)(*n ? *n : 1));
    if (p && *n && gr_read_render_points(w, 0, *n, p, 0) != GR_OK) {
        free(p);
        return NULL;
    }
    return p;
}

static uint64_t points_hash(const gr_world *w)
{
    uint32_t n;
    float *p = read_points(w, &n);
    const uint64_t h = p ? tu_fnv(1469598103934665603ull ^ n, p, sizeof(float) * 4 * (size_t)n) : 0;
    free(p);
    return h;
}

/* Grains added one by one get points at the next step, each within the sampling ball of a
 * grain (1.3 r_L) and above the floor, with the points' radius; a fill's region gets its points
 * at once (the fill's box: the sand's volume); without hr_radius the grains are the points. */
static void test_dem_points_fill_the_grains(void)
{
    gr_world *w;
    CHECK_OK(NULL, points_world(1, R_POINT, &w));
    gr_body_def floor;
    gr_body_def_init(&floor);
    floor.shape = GR_SHAPE_PLANE;
    CHECK_OK(w, gr_add_body(w, &floor, NULL));
    enum { SIDE = 6 };
    gr_grain_def gd[SIDE * SIDE * 3];
    uint32_t grains = 0;
    for (int i = 0; i < SIDE; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < SIDE; k++) {
                gr_grain_def_init(&gd[grains]);
                gd[grains].radius = R_GRAIN;
                gd[grains++].position = (gr_vec3){2.05 * R_GRAIN * i, R_GRAIN * (1.0 + 2.05 * j), 2.05 * R_GRAIN * k};
            }
    CHECK_OK(w, gr_add_grains(w, gd, grains, NULL));
    CHECK(gr_world_get_render_point_count(w) == 0); /* sampled at the next step */
    CHECK_OK(w, gr_step(w, 1.0 / 240));
    uint32_t n;
    float *p = read_points(w, &n);
    CHECK(p != NULL);
    double *g = (double *)malloc(sizeof(double) * 4 * grains);
    CHECK(gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, grains, g, 4 * sizeof(double)) == GR_OK);
    uint32_t far = 0, below = 0;
    for (uint32_t q = 0; q < n; q++) {
        const float *pt = p + 4 * q;
        below += pt[1] < 0.0f;
        CHECK(pt[3] == (float)R_POINT);
        double best = INFINITY;
        for (uint32_t i = 0; i < grains; i++) {
            const double dx = pt[0] - g[4 * i], dy = pt[1] - g[4 * i + 1], dz = pt[2] - g[4 * i + 2];
            best = fmin(best, dx * dx + dy * dy + dz * dz);
        }
        far += sqrt(best) > 1.3 * R_GRAIN + 0.1 * R_GRAIN; /* (the grains moved a little in the step) */
    }
    printf("  %u grains added: %u render points after a step, %u far from every grain, %u below the floor\n",
           grains, n, far, below);
    CHECK(n > 10 * grains && far == 0 && below == 0);
    free(g);
    free(p);
    gr_world_destroy(w);
    /* a fill: its region is sampled at once, and its points stay in the fill's box */
    CHECK_OK(NULL, points_world(1, R_POINT, &w));
    CHECK_OK(w, bed(w, GR_GRAIN_SPHERE, &grains));
    const uint32_t at_fill = gr_world_get_render_point_count(w);
    CHECK(at_fill > 10 * grains);
    CHECK_OK(w, gr_step(w, 1.0 / 240));
    p = read_points(w, &n);
    CHECK(p != NULL && n == at_fill);
    uint32_t outside = 0;
    for (uint32_t q = 0; q < n; q++) {
        const float *pt = p + 4 * q;
        outside += pt[0] < -0.03 - R_GRAIN || pt[0] > 0.03 + R_GRAIN || pt[1] < 0.0f || pt[1] > 0.05 + R_GRAIN ||
                   pt[2] < -0.03 - R_GRAIN || pt[2] > 0.03 + R_GRAIN;
    }
    printf("  a fill of %u grains: %u render points at once, %u outside its box\n", grains, at_fill, outside);
    CHECK(outside == 0);
    free(p);
    gr_world_destroy(w);
    /* without hr_radius the render points are the grains */
    CHECK_OK(NULL, points_world(1, 0.0, &w));
    CHECK_OK(w, bed(w, GR_GRAIN_SPHERE, &grains));
    CHECK(gr_world_get_render_point_count(w) == grains);
    gr_world_destroy(w);
}

/* Mean heights of the render points and of the grains. */
static void mean_heights(const gr_world *w, uint32_t grains, double *points_y, double *grains_y)
{
    uint32_t n;
    float *p = read_points(w, &n);
    double *g = (double *)malloc(sizeof(double) * 4 * grains);
    *points_y = *grains_y = NAN;
    if (!p || !g || !n || gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, grains, g, 4 * sizeof(double)) != GR_OK) {
        free(p);
        free(g);
        return;
    }
    double py = 0, gy = 0;
    for (uint32_t q = 0; q < n; q++)
        py += p[4 * q + 1];
    for (uint32_t i = 0; i < grains; i++)
        gy += g[4 * i + 1];
    *points_y = py / n;
    *grains_y = gy / grains;
    free(p);
    free(g);
}

/* A falling block: its points fall with it (the points carried by grains move with their
 * displacement; the few with no grain in reach fly freely, to first order), and a clump's
 * spheres get points too. */
static void test_dem_points_follow_the_grains(void)
{
    for (int shape = 0; shape < 2; shape++) {
        gr_world *w;
        CHECK_OK(NULL, points_world(1, R_POINT, &w));
        gr_fill_def f;
        gr_fill_def_init(&f);
        f.min = (gr_vec3){-0.02, 1.0, -0.02};
        f.max = (gr_vec3){0.02, 1.04, 0.02};
        f.radius = R_GRAIN;
        f.shape = shape ? GR_GRAIN_TETRAHEDRON : GR_GRAIN_SPHERE;
        f.max_count = 200;
        uint32_t grains;
        CHECK_OK(w, gr_fill_box(w, &f, &grains, NULL, 0));
        double p0, g0, p1, g1;
        mean_heights(w, grains, &p0, &g0);
        for (int k = 0; k < 30; k++)
            CHECK_OK(w, gr_step(w, 1.0 / 60));
        mean_heights(w, grains, &p1, &g1);
        const uint32_t n = gr_world_get_render_point_count(w);
        const double fell = g0 - g1, points_fell = p0 - p1; /* about g t^2 / 2 = 1.23 m */
        printf("  %s: %u grains, %u points; grains fell %.4f m, points %.4f m\n", shape ? "tetrahedra" : "spheres",
               grains, n, fell, points_fell);
        CHECK(n > 5 * grains);
        CHECK(fell > 1.1);
        /* (a point no grain carries starts its free flight half a step ahead: g dt t / 2, 3 % of
         * this fall; most points are carried) */
        CHECK(fabs(points_fell - fell) < (shape ? 0.02 : 0.01) * fell);
        gr_world_destroy(w);
    }
}

/* The same points for any worker count; a snapshot continues bit-identically. */
static void test_dem_points_deterministic_and_saved(void)
{
    uint64_t h[2];
    for (unsigned workers = 1; workers <= 2; workers++) {
        gr_world *w;
        CHECK_OK(NULL, points_world(workers, R_POINT, &w));
        CHECK_OK(w, bed(w, GR_GRAIN_SPHERE, NULL));
        for (int k = 0; k < 10; k++)
            CHECK_OK(w, gr_step(w, 1.0 / 120));
        h[workers - 1] = points_hash(w);
        if (workers == 2) {
            tu_stream s;
            tu_stream_init(&s);
            CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
            gr_world *b;
            CHECK_OK(NULL, points_world(1, 0.0, &b)); /* the snapshot brings its settings */
            CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
            tu_stream_free(&s);
            CHECK(points_hash(b) == points_hash(w));
            for (int k = 0; k < 10; k++) {
                CHECK_OK(w, gr_step(w, 1.0 / 120));
                CHECK_OK(b, gr_step(b, 1.0 / 120));
            }
            CHECK(points_hash(b) == points_hash(w));
            CHECK(tu_state_hash(b, NULL, 0) == tu_state_hash(w, NULL, 0));
            gr_dem_def back;
            gr_dem_def_init(&back);
            CHECK_OK(b, gr_world_get_solver_def(b, GR_DEF_DEM, &back));
            CHECK(back.hr_radius == R_POINT);
            gr_world_destroy(b);
        }
        gr_world_destroy(w);
    }
    CHECK(h[0] == h[1] && h[0] != 0);
}

/* Out-of-range settings are refused with the field's name; an older header's gr_dem_def
 * (without the render points) gets the default: off. */
static void test_dem_points_settings(void)
{
    gr_dem_def dem;
    gr_world_def d;
    gr_world *w = NULL;
    struct {
        double radius, support, sample;
        uint32_t candidates, reserved;
        gr_status expected;
        const char *field;
    } bad[] = {{1e-7, 2.5, 1.3, 20, 0, GR_ERROR_INVALID_ARGUMENT, "dem.hr_radius"},
               {NAN, 2.5, 1.3, 20, 0, GR_ERROR_NOT_FINITE, "dem.hr_radius"},
               {0.001, 1.0, 1.3, 20, 0, GR_ERROR_INVALID_ARGUMENT, "dem.hr_support"},
               {0.001, 2.5, 4.0, 20, 0, GR_ERROR_INVALID_ARGUMENT, "dem.hr_sample_radius"},
               {0.001, 2.5, 1.3, 0, 0, GR_ERROR_INVALID_ARGUMENT, "dem.hr_candidates"},
               {0.001, 2.5, 1.3, 20, 1, GR_ERROR_INVALID_ARGUMENT, "dem.reserved0"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gr_dem_def_init(&dem);
        dem.hr_radius = bad[k].radius;
        dem.hr_support = bad[k].support;
        dem.hr_sample_radius = bad[k].sample;
        dem.hr_candidates = bad[k].candidates;
        dem.reserved0 = bad[k].reserved;
        gr_world_def_init(&d, GR_SOLVER_DEM);
        d.dem = &dem;
        CHECK_STATUS(bad[k].expected, gr_world_create(&d, &w));
        CHECK(w == NULL);
    }
    gr_dem_def_init(&dem);
    dem.hr_radius = 0.001;
    dem.size = (uint32_t)offsetof(gr_dem_def, hr_radius); /* an older header's struct */
    gr_world_def_init(&d, GR_SOLVER_DEM);
    d.dem = &dem;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    gr_dem_def back;
    gr_dem_def_init(&back);
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_DEM, &back));
    CHECK(back.hr_radius == 0.0 && back.hr_candidates == 20);
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"dem_points_fill_the_grains", test_dem_points_fill_the_grains},
        {"dem_points_follow_the_grains", test_dem_points_follow_the_grains},
        {"dem_points_deterministic_and_saved", test_dem_points_deterministic_and_saved},
        {"dem_points_settings", test_dem_points_settings},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
