/* SPDX-License-Identifier: MIT */
/* The null solver (null_solver.c), registered through the solver list as a new solver would
 * be, used through nothing but the public API: its own def (defaults, older sizes, checks,
 * the generic getter, snapshots), its physics (exact flight under gravity and drag), grains in
 * and out, world bounds, snapshots. test_robustness_null holds it to the shared tests. */
#include <granular/granular.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "harness.h"
#include "null_solver.h"
#include "test_util.h"

static gr_status null_world(double drag, gr_world **out)
{
    gr_null_def nd;
    nd.size = sizeof nd;
    if (gr_def_set_defaults(GR_DEF_NULL_TEST, &nd) != GR_OK)
        return GR_ERROR_INVALID_ARGUMENT;
    nd.drag = drag;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_NULL_TEST);
    d.solver_def = &nd;
    return gr_world_create(&d, out);
}

static gr_grain add(gr_world *w, gr_vec3 x, gr_vec3 v)
{
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.01;
    g.position = x;
    g.velocity = v;
    gr_grain h = {0};
    gr_add_grain(w, &g, &h);
    return h;
}

/* Its def through the API, which knows nothing of it but what its table says. */
static void test_null_def_through_the_api(void)
{
    gr_null_def d;
    memset(&d, 0xff, sizeof d);
    d.size = sizeof d;
    CHECK(gr_def_set_defaults(GR_DEF_NULL_TEST, &d) == GR_OK);
    CHECK(d.reserved0 == 0 && d.drag == 0.0);
    d.size = (uint32_t)offsetof(gr_null_def, drag) + 4; /* inside drag: no header's struct ends there */
    CHECK(gr_def_set_defaults(GR_DEF_NULL_TEST, &d) == GR_ERROR_STRUCT_SIZE);

    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_NULL_TEST);
    gr_null_def bad;
    bad.size = sizeof bad;
    gr_def_set_defaults(GR_DEF_NULL_TEST, &bad);
    bad.drag = -1;
    wd.solver_def = &bad;
    gr_world *w = NULL;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&wd, &w));
    CHECK(w == NULL);
    bad.drag = NAN;
    CHECK_STATUS(GR_ERROR_NOT_FINITE, gr_world_create(&wd, &w));
    bad.drag = 0;
    bad.reserved0 = 1;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&wd, &w));
    /* an older header's def without drag: the default */
    gr_null_def old;
    memset(&old, 0, sizeof old);
    old.size = (uint32_t)offsetof(gr_null_def, drag);
    wd.solver_def = &old;
    CHECK_OK(NULL, gr_world_create(&wd, &w));
    gr_null_def back;
    back.size = sizeof back;
    back.drag = 9;
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_NULL_TEST, &back));
    CHECK(back.drag == 0.0 && back.size == sizeof back);
    /* the built-in solvers' defs: their defaults */
    gr_dem_def dem, dem_defaults;
    gr_dem_def_init(&dem);
    gr_dem_def_init(&dem_defaults);
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_DEM, &dem));
    CHECK(memcmp(&dem, &dem_defaults, sizeof dem) == 0);
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_world_get_solver_def(w, (gr_def_kind)0x7eff, &back));
    gr_world_destroy(w);
    /* a kind nobody registered */
    gr_world_def_init(&wd, (gr_solver_kind)0x7eff);
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_world_create(&wd, &w));
}

/* Free flight, exact to rounding: x = x0 + v0 t + g t^2 / 2 without drag; with drag k,
 * v = g / k + (v0 - g / k) e^(-k t). */
static void test_null_flight_is_exact(void)
{
    const gr_vec3 x0 = {1, 2, 3}, v0 = {0.5, 4, -1}, g = {0, -9.81, 0};
    for (int with_drag = 0; with_drag < 2; with_drag++) {
        const double k = with_drag ? 2.0 : 0.0;
        gr_world *w;
        CHECK_OK(NULL, null_world(k, &w));
        gr_grain h = add(w, x0, v0);
        for (int i = 0; i < 60; i++)
            CHECK_OK(w, gr_step(w, 1.0 / 60));
        gr_grain_state s;
        CHECK_OK(w, gr_grain_get_state(w, h, &s));
        const double t = gr_world_get_time(w);
        CHECK_NEAR(t, 1.0, 1e-13);
        const double v0s[3] = {v0.x, v0.y, v0.z}, x0s[3] = {x0.x, x0.y, x0.z}, gs[3] = {g.x, g.y, g.z};
        for (int c = 0; c < 3; c++) {
            double x, v;
            if (k > 0) {
                const double vinf = gs[c] / k, e = exp(-k * t);
                v = vinf + (v0s[c] - vinf) * e;
                x = x0s[c] + vinf * t + (v0s[c] - vinf) * (1 - e) / k;
            } else {
                v = v0s[c] + gs[c] * t;
                x = x0s[c] + v0s[c] * t + 0.5 * gs[c] * t * t;
            }
            const double *sx = &s.position.x, *sv = &s.velocity.x;
            CHECK_NEAR(sx[c], x, 1e-12);
            CHECK_NEAR(sv[c], v, 1e-12);
        }
        /* energy: without drag kinetic + potential is kept; with drag it falls */
        gr_counters cnt;
        cnt.size = sizeof cnt;
        CHECK_OK(w, gr_world_get_counters(w, &cnt));
        CHECK(cnt.contact_count == 0 && cnt.substep_count == 60 && cnt.grain_count == 1);
        gr_world_destroy(w);
    }
}

/* Grains in and out: removal keeps the other grains' handles, the bounds remove what leaves. */
static void test_null_grains_in_and_out(void)
{
    gr_null_def nd;
    nd.size = sizeof nd;
    gr_def_set_defaults(GR_DEF_NULL_TEST, &nd);
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_NULL_TEST);
    d.solver_def = &nd;
    d.bounds_min = (gr_vec3){-1, -1, -1};
    d.bounds_max = (gr_vec3){1, 1, 1};
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    gr_grain h[5];
    for (int i = 0; i < 5; i++)
        h[i] = add(w, (gr_vec3){0.1 * i, 0, 0}, (gr_vec3){0, i == 4 ? -100.0 : 0.0, 0});
    CHECK_OK(w, gr_remove_grain(w, h[1]));
    CHECK(!gr_grain_is_valid(w, h[1]));
    /* several in one call, the last and the first among them: the others keep their state */
    gr_grain more[3];
    for (int i = 0; i < 3; i++)
        more[i] = add(w, (gr_vec3){0.5, 0.1 * i, 0}, (gr_vec3){0.25 * i, 0, 0});
    const gr_grain both[2] = {more[2], h[0]};
    CHECK_OK(w, gr_remove_grains(w, both, 2));
    CHECK(!gr_grain_is_valid(w, more[2]) && !gr_grain_is_valid(w, h[0]));
    gr_grain_state ms;
    CHECK_OK(w, gr_grain_get_state(w, more[1], &ms));
    CHECK(ms.position.x == 0.5 && ms.position.y == 0.1 && ms.velocity.x == 0.25);
    CHECK_OK(w, gr_remove_grains(w, more, 2));
    h[0] = add(w, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 0});
    gr_grain_state s;
    CHECK_OK(w, gr_grain_get_state(w, h[3], &s));
    CHECK(s.position.x == 0.30000000000000004 || s.position.x == 0.3);
    CHECK_OK(w, gr_step(w, 0.1)); /* grain 4 leaves the bounds */
    CHECK(gr_world_get_grain_count(w) == 3 && !gr_grain_is_valid(w, h[4]));
    for (int i = 0; i < 4; i += 2) {
        CHECK_OK(w, gr_grain_get_state(w, h[i], &s));
        CHECK_NEAR(s.position.x, 0.1 * i, 1e-15);
    }
    /* spheres only: a clump shape is refused, the world unchanged */
    gr_grain_def tet;
    gr_grain_def_init(&tet);
    tet.shape = GR_GRAIN_TETRAHEDRON;
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_add_grain(w, &tet, NULL));
    CHECK(gr_world_get_grain_count(w) == 3);
    CHECK(gr_world_get_render_point_count(w) == 3);
    gr_world_destroy(w);
}

/* A snapshot carries its def (a section of its own after the built-in ones) and its grains;
 * the loaded world continues bit-identically; damaged or foreign snapshots are refused. */
static void test_null_snapshot(void)
{
    gr_world *a, *b;
    CHECK_OK(NULL, null_world(0.5, &a));
    CHECK_OK(NULL, null_world(0.0, &b));
    for (int i = 0; i < 20; i++)
        add(a, (gr_vec3){0.01 * i, 0.1, 0}, (gr_vec3){0, 0.1 * i, 0});
    CHECK_OK(a, gr_step(a, 0.01));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    gr_null_def back;
    back.size = sizeof back;
    CHECK_OK(b, gr_world_get_solver_def(b, GR_DEF_NULL_TEST, &back));
    CHECK(back.drag == 0.5);
    for (int i = 0; i < 5; i++) {
        CHECK_OK(a, gr_step(a, 0.01));
        CHECK_OK(b, gr_step(b, 0.01));
    }
    CHECK(tu_state_hash(a, NULL, 0) == tu_state_hash(b, NULL, 0));
    /* cut short: refused, the world as it was */
    const uint64_t before = tu_state_hash(b, NULL, 0);
    tu_stream cut = s;
    cut.size = s.size - 9;
    cut.pos = 0;
    CHECK(gr_world_load(b, tu_stream_read, &cut) != GR_OK);
    CHECK(tu_state_hash(b, NULL, 0) == before);
    /* a DEM world refuses a null solver's snapshot */
    gr_world *dem;
    CHECK_OK(NULL, tu_world(&dem, 1, NULL));
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(dem, tu_stream_read, &s));
    gr_world_destroy(dem);
    tu_stream_free(&s);
    gr_world_destroy(a);
    gr_world_destroy(b);
}

/* A solver that does not ask for body particles gets bodies with their mass properties and
 * shapes but no particles; they save and load so. */
static void test_null_bodies_without_particles(void)
{
    gr_world *w, *back;
    CHECK_OK(NULL, null_world(0.0, &w));
    CHECK_OK(NULL, null_world(0.0, &back));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.1, 0.2, 0.3};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &bd, &box));
    static const gr_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const uint32_t idx[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_MESH;
    bd.mesh_vertices = v;
    bd.mesh_indices = idx;
    bd.mesh_vertex_count = 4;
    bd.mesh_triangle_count = 4;
    gr_body mesh;
    CHECK_OK(w, gr_add_body(w, &bd, &mesh));
    CHECK(gr_body_get_particle_count(w, box) == 0 && gr_body_get_particle_count(w, mesh) == 0);
    double m;
    CHECK_OK(w, gr_body_get_mass(w, box, &m));
    CHECK_NEAR(m, 2500.0 * 0.2 * 0.4 * 0.6, 1e-9); /* the default material's density */
    add(w, (gr_vec3){0, 1, 0}, (gr_vec3){0, 0, 0});
    CHECK_OK(w, gr_step(w, 0.01));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    CHECK_OK(back, gr_world_load(back, tu_stream_read, &s));
    tu_stream_free(&s);
    gr_counters k;
    k.size = sizeof k;
    CHECK_OK(back, gr_world_get_counters(back, &k));
    CHECK(k.body_count == 2 && k.grain_count == 1);
    CHECK_OK(w, gr_remove_body(w, mesh));
    CHECK_OK(w, gr_step(w, 0.01));
    gr_world_destroy(w);
    gr_world_destroy(back);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"null_def_through_the_api", test_null_def_through_the_api},
        {"null_flight_is_exact", test_null_flight_is_exact},
        {"null_grains_in_and_out", test_null_grains_in_and_out},
        {"null_snapshot", test_null_snapshot},
        {"null_bodies_without_particles", test_null_bodies_without_particles},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
