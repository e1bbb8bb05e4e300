/* SPDX-License-Identifier: MIT */
/* The continuum solver through the public API, as a host uses it: registered in the test build
 * (tests/meson.build) until its def is public. A world of grains filled into a box on a floor
 * settles into a pile; snapshots continue bit-identically; bad defs, clumps and dynamic bodies
 * are refused with the world unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/continuum/cont_def.h"
#include "harness.h"
#include "test_util.h"

static gr_status continuum_world(double cell, gr_world **out)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    if (gr_def_set_defaults(GR_DEF_CONTINUUM, &cd) != GR_OK)
        return GR_ERROR_INVALID_ARGUMENT;
    cd.cell_size = cell;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    gr_status s = gr_world_create(&d, out);
    if (s != GR_OK)
        return s;
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_PLANE;
    return gr_add_body(*out, &b, NULL);
}

static void positions(const gr_world *w, double *p, uint32_t n)
{
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, p, 0));
}

/* A box of grains dropped on the floor: they land, spread a little, rest; none is lost, none
 * is below the floor, and the total mass is the grains' solid mass. */
static void test_continuum_fill_and_settle(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world(0.02, &w));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.05, 0.02, -0.05};
    f.max = (gr_vec3){0.05, 0.12, 0.05};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    printf("  %u grains\n", n);
    CHECK(n > 1000);
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    CHECK(gr_world_get_grain_count(w) == n);
    double *p = (double *)malloc(sizeof(double) * 3 * n), *v = (double *)malloc(sizeof(double) * 3 * n);
    positions(w, p, n);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0));
    double ymin = INFINITY, ymax = -INFINITY, vmean = 0;
    for (uint32_t i = 0; i < n; i++) {
        ymin = fmin(ymin, p[3 * i + 1]);
        ymax = fmax(ymax, p[3 * i + 1]);
        vmean += sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]) / n;
    }
    printf("  after 1 s: heights %.4f .. %.4f m, mean speed %.4f m/s\n", ymin, ymax, vmean);
    CHECK(ymin > -0.01);
    CHECK(ymax < 0.12);
    CHECK(vmean < 0.05);
    free(p), free(v);
    gr_world_destroy(w);
}

/* A saved world continues exactly as the original (the particles, their shapes and the last
 * step's pressure and stress that the next one warm-starts from). */
static void test_continuum_snapshot_continues(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world(0.02, &w));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.04, 0.0, -0.04};
    f.max = (gr_vec3){0.04, 0.1, 0.04};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    for (int k = 0; k < 10; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    gr_world *b = NULL;
    CHECK_OK(NULL, continuum_world(0.02, &b));
    s.pos = 0;
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    for (int k = 0; k < 10; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        CHECK_OK(b, gr_step(b, 1.0 / 60));
    }
    double *pa = (double *)malloc(sizeof(double) * 3 * n), *pb = (double *)malloc(sizeof(double) * 3 * n);
    positions(w, pa, n);
    positions(b, pb, n);
    CHECK(memcmp(pa, pb, sizeof(double) * 3 * n) == 0);
    free(pa), free(pb);
    tu_stream_free(&s);
    gr_world_destroy(b);
    gr_world_destroy(w);
}

/* Refusals: a bad def, a clump grain, a dynamic body; the world is left as it was. */
static void test_continuum_refusals(void)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    CHECK_OK(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    cd.cell_size = -1;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    gr_world *w = NULL;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&d, &w));
    CHECK(w == NULL);
    CHECK_OK(NULL, continuum_world(0.02, &w));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.01;
    g.shape = GR_GRAIN_TETRAHEDRON;
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_add_grain(w, &g, NULL));
    CHECK(gr_world_get_grain_count(w) == 0);
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_SPHERE;
    b.motion = GR_MOTION_DYNAMIC;
    b.position = (gr_vec3){0, 1, 0};
    gr_body h = {0};
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_add_body(w, &b, &h));
    CHECK(h.id == 0);
    printf("  refused: %s\n", gr_world_last_error(w));
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"continuum_fill_and_settle", test_continuum_fill_and_settle},
        {"continuum_snapshot_continues", test_continuum_snapshot_continues},
        {"continuum_refusals", test_continuum_refusals},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
