/* SPDX-License-Identifier: MIT */
/* Several systems in one world, through the public API: a DEM world (system 0) with a null
 * system (tests/null_solver.c) beside it, coupled by tests/null_coupling.c (a free DEM sphere
 * below y = 0 goes on as a null grain, as the terrain will absorb grains). Adding systems is
 * checked and all or nothing; grains of both systems are read and written in bulk; the
 * systems step together and the coupling hands grains over with their state; snapshots keep
 * every system; bodies and fills reach the system they name. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "null_solver.h"
#include "test_util.h"

static gr_null_def null_def(double drag)
{
    gr_null_def d;
    d.size = sizeof d;
    gr_def_set_defaults(GR_DEF_NULL_TEST, &d);
    d.drag = drag;
    return d;
}

/* A DEM world with a null system (index 1). */
static gr_status two_systems(gr_world **out, const gr_allocator *alloc)
{
    gr_status s = tu_world(out, 1, alloc);
    if (s != GR_OK)
        return s;
    const gr_null_def nd = null_def(0.5);
    uint32_t index = 99;
    s = gr_world_add_system(*out, GR_SOLVER_NULL_TEST, &nd, &index);
    if (s == GR_OK && index != 1)
        s = GR_ERROR_INVALID_ARGUMENT;
    if (s != GR_OK) {
        gr_world_destroy(*out);
        *out = NULL;
    }
    return s;
}

static gr_grain add(gr_world *w, uint32_t system, gr_vec3 x, gr_vec3 v)
{
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.01;
    g.position = x;
    g.velocity = v;
    g.system = system;
    gr_grain h = {0};
    if (gr_add_grain(w, &g, &h) != GR_OK) {
        fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, gr_world_last_error(w));
        harness_failures++;
    }
    return h;
}

static void test_systems_add_checked(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    CHECK(gr_world_get_system_count(w) == 1);
    CHECK(gr_world_get_system_count(NULL) == 0);
    uint32_t index = 77;
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_add_system(NULL, GR_SOLVER_NULL_TEST, NULL, &index));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_add_system(w, GR_SOLVER_DEFAULT, NULL, &index));
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_world_add_system(w, (gr_solver_kind)99, NULL, &index));
    /* a second system moving bodies, and a pair without a coupling */
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_world_add_system(w, GR_SOLVER_PBD, NULL, &index));
    printf("  %s\n", gr_world_last_error(w));
    CHECK(strstr(gr_world_last_error(w), "moves the dynamic bodies") != NULL);
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_world_add_system(w, GR_SOLVER_DEM, NULL, &index));
    /* the null solver's def, checked by the null solver */
    gr_null_def bad = null_def(-1);
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_add_system(w, GR_SOLVER_NULL_TEST, &bad, &index));
    printf("  %s\n", gr_world_last_error(w));
    bad = null_def(0);
    bad.size = 3;
    CHECK_STATUS(GR_ERROR_STRUCT_SIZE, gr_world_add_system(w, GR_SOLVER_NULL_TEST, &bad, &index));
    /* a DEM def given for the null solver is not its def */
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    CHECK(gr_world_add_system(w, GR_SOLVER_NULL_TEST, &dem, &index) != GR_OK);
    CHECK(index == 77 && gr_world_get_system_count(w) == 1);

    const gr_null_def nd = null_def(0.25);
    CHECK_OK(w, gr_world_add_system(w, GR_SOLVER_NULL_TEST, &nd, &index));
    CHECK(index == 1 && gr_world_get_system_count(w) == 2);
    gr_solver_kind kind = GR_SOLVER_DEFAULT;
    CHECK_OK(w, gr_world_get_system_solver(w, 1, &kind));
    CHECK(kind == GR_SOLVER_NULL_TEST);
    CHECK_OK(w, gr_world_get_system_solver(w, 0, &kind));
    CHECK(kind == GR_SOLVER_DEM);
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_get_system_solver(w, 2, &kind));
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_get_system_solver(w, 1, NULL));
    /* its def reads back through the one getter */
    gr_null_def back;
    back.size = sizeof back;
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_NULL_TEST, &back));
    CHECK(back.drag == 0.25);
    /* two null systems would need a null-null coupling (none is built) */
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_world_add_system(w, GR_SOLVER_NULL_TEST, NULL, &index));
    printf("  %s\n", gr_world_last_error(w));
    CHECK(strstr(gr_world_last_error(w), "no coupling") != NULL && gr_world_get_system_count(w) == 2);
    gr_world_destroy(w);

    /* a world of the null solver takes a DEM system (the coupling works either way round) */
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_NULL_TEST);
    CHECK_OK(NULL, gr_world_create(&wd, &w));
    CHECK_OK(w, gr_world_add_system(w, GR_SOLVER_DEM, NULL, &index));
    CHECK(index == 1);
    gr_grain g = add(w, 1, (gr_vec3){0, 0.005, 0}, (gr_vec3){0, -1, 0});
    CHECK_OK(w, gr_step(w, 0.01));
    uint32_t sys = 9;
    CHECK(!gr_grain_is_valid(w, g)); /* below y = 0 within the step: handed over */
    CHECK(gr_world_get_grain_count(w) == 1);
    gr_grain moved;
    CHECK(gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 1, &moved, 0) == GR_OK);
    CHECK_OK(w, gr_grain_get_system(w, moved, &sys));
    CHECK(sys == 0);
    gr_world_destroy(w);

    /* a solver of body particles after bodies without them: refused */
    CHECK_OK(NULL, gr_world_create(&wd, &w));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_SPHERE;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.radius = 0.05;
    CHECK_OK(w, gr_add_body(w, &bd, NULL));
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_world_add_system(w, GR_SOLVER_DEM, NULL, &index));
    printf("  %s\n", gr_world_last_error(w));
    CHECK(gr_world_get_system_count(w) == 1);
    gr_world_destroy(w);
}

/* Grains of two systems: added to the system named, read and written in bulk across both, and
 * removed in one call. */
static void test_systems_grains_and_bulk(void)
{
    gr_world *w;
    CHECK_OK(NULL, two_systems(&w, NULL));
    gr_grain h[8];
    for (int k = 0; k < 8; k++)
        h[k] = add(w, (uint32_t)(k % 3 == 0), (gr_vec3){0.05 * k, 1, 0}, (gr_vec3){k, 0, 0});
    for (int k = 0; k < 8; k++) {
        uint32_t sys = 9;
        CHECK_OK(w, gr_grain_get_system(w, h[k], &sys));
        CHECK(sys == (uint32_t)(k % 3 == 0));
        gr_grain_state st;
        CHECK_OK(w, gr_grain_get_state(w, h[k], &st));
        CHECK(st.position.x == 0.05 * k && st.velocity.x == k);
    }
    /* a system the world does not hold */
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.system = 2;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_grain(w, &g, NULL));
    gr_grain_def two[2];
    gr_grain_def_init(&two[0]);
    gr_grain_def_init(&two[1]);
    two[1].system = 1;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_grains(w, two, 2, NULL));
    CHECK(gr_world_get_grain_count(w) == 8);

    /* bulk read in bulk order, mixed systems */
    double x[8][3];
    gr_grain handles[8];
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, 8, x, 0));
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 8, handles, 0));
    for (int k = 0; k < 8; k++) {
        gr_grain_state st;
        CHECK_OK(w, gr_grain_get_state(w, handles[k], &st));
        CHECK(st.position.x == x[k][0] && st.position.y == x[k][1]);
    }
    /* bulk write across both, read back per grain */
    for (int k = 0; k < 8; k++)
        x[k][2] = 0.125 * k;
    CHECK_OK(w, gr_write_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, 8, x, 0));
    for (int k = 0; k < 8; k++) {
        gr_grain_state st;
        CHECK_OK(w, gr_grain_get_state(w, handles[k], &st));
        CHECK(st.position.z == 0.125 * k);
    }
    /* render points: each system's, one after the other (no hr points: a point per grain) */
    CHECK(gr_world_get_render_point_count(w) == 8);
    float pts[8][4];
    CHECK_OK(w, gr_read_render_points(w, 0, 8, &pts[0][0], 0));
    float part[3][4];
    CHECK_OK(w, gr_read_render_points(w, 4, 3, &part[0][0], 0));
    CHECK(memcmp(part, pts[4], sizeof part) == 0);
    double zsum = 0;
    for (int k = 0; k < 8; k++)
        zsum += pts[k][2];
    CHECK_NEAR(zsum, 0.125 * 28, 1e-6);
    /* removal of a mixed set */
    gr_grain gone[3] = {h[0], h[1], h[3]};
    CHECK_OK(w, gr_remove_grains(w, gone, 3));
    CHECK(gr_world_get_grain_count(w) == 5);
    CHECK(!gr_grain_is_valid(w, h[0]) && !gr_grain_is_valid(w, h[3]) && gr_grain_is_valid(w, h[6]));
    gr_grain_state st;
    CHECK_OK(w, gr_grain_get_state(w, h[6], &st));
    CHECK(st.position.x == 0.05 * 6);
    /* a duplicate in a mixed removal changes nothing */
    gr_grain dup[3] = {h[2], h[6], h[2]};
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_remove_grains(w, dup, 3));
    CHECK(gr_world_get_grain_count(w) == 5 && gr_grain_is_valid(w, h[2]) && gr_grain_is_valid(w, h[6]));
    gr_world_destroy(w);
}

/* The systems step together: null grains fly exactly (drag 0.5), DEM grains fall, and the
 * coupling hands every DEM grain that passes y = 0 to the null system with its state. */
static void test_systems_step_and_coupling(void)
{
    gr_world *w;
    CHECK_OK(NULL, two_systems(&w, NULL));
    const gr_grain n0 = add(w, 1, (gr_vec3){0, 2, 0}, (gr_vec3){1, 0, 0});
    gr_grain d[4];
    for (int k = 0; k < 4; k++)
        d[k] = add(w, 0, (gr_vec3){0.1 * k, 0.02 + 0.01 * k, 0.5}, (gr_vec3){0, -1, 0});
    const double dt = 1.0 / 240;
    for (int i = 0; i < 24; i++)
        CHECK_OK(w, gr_step(w, dt));
    const double t = gr_world_get_time(w);
    CHECK_NEAR(t, 0.1, 1e-12);
    /* null flight with drag k: v = g/k + (v0 - g/k) e^{-kt}, x = x0 + g t/k + (v0 - g/k)(1 - e^{-kt})/k */
    const double k = 0.5, gy = -9.81, e = exp(-k * t);
    gr_grain_state st;
    CHECK_OK(w, gr_grain_get_state(w, n0, &st));
    CHECK_NEAR(st.position.x, (1 - e) / k, 1e-9);
    CHECK_NEAR(st.position.y, 2 + gy * t / k - gy / k * (1 - e) / k, 1e-9);
    /* every DEM grain fell below y = 0 in 0.1 s and now belongs to the null system */
    for (int j = 0; j < 4; j++)
        CHECK(!gr_grain_is_valid(w, d[j]));
    CHECK(gr_world_get_grain_count(w) == 5);
    gr_grain all[5];
    double v[5][3], x[5][3];
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 5, all, 0));
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, 5, v, 0));
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, 5, x, 0));
    int handed = 0;
    for (int j = 0; j < 5; j++) {
        uint32_t sys = 9;
        CHECK_OK(w, gr_grain_get_system(w, all[j], &sys));
        CHECK(sys == 1);
        if (all[j].id == n0.id)
            continue;
        handed++;
        /* handed over with their state: they kept falling (faster than the 1 m/s they had,
         * slower than free fall without drag) and kept their x and z */
        CHECK(v[j][1] < -1.0 && v[j][1] > -1.0 + gy * t - 1e-9);
        CHECK(x[j][2] == 0.5);
        double r;
        CHECK_OK(w, gr_grain_get_radius(w, all[j], &r));
        CHECK(r == 0.01);
    }
    CHECK(handed == 4);
    gr_counters c;
    c.size = sizeof c;
    CHECK_OK(w, gr_world_get_counters(w, &c));
    CHECK(c.grain_count == 5 && c.step_count == 24);
    gr_world_destroy(w);

    /* without the plane crossing, the DEM grains are exactly those of a DEM world alone */
    gr_world *solo;
    CHECK_OK(NULL, two_systems(&w, NULL));
    CHECK_OK(NULL, tu_world(&solo, 1, NULL));
    CHECK_OK(w, tu_pile(w, 0.05, 0.004, 200, NULL));
    CHECK_OK(solo, tu_pile(solo, 0.05, 0.004, 200, NULL));
    add(w, 1, (gr_vec3){0, 5, 0}, (gr_vec3){0, 0, 0});
    for (int i = 0; i < 30; i++) {
        CHECK_OK(w, gr_step(w, dt));
        CHECK_OK(solo, gr_step(solo, dt));
    }
    const uint32_t n = gr_world_get_grain_count(solo);
    CHECK(n > 50 && gr_world_get_grain_count(w) == n + 1);
    static double a[4096][3], b[4096][3];
    CHECK(n <= 4096);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, a, 0));
    CHECK_OK(solo, gr_read_grains(solo, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, b, 0));
    CHECK(memcmp(a, b, sizeof(double) * 3 * n) == 0);
    gr_world_destroy(w);
    gr_world_destroy(solo);
}

static void test_systems_snapshot(void)
{
    gr_world *w;
    CHECK_OK(NULL, two_systems(&w, NULL));
    CHECK_OK(w, tu_pile(w, 0.05, 0.004, 120, NULL));
    for (int k = 0; k < 6; k++)
        add(w, 1, (gr_vec3){0.02 * k, 0.3, 0.1}, (gr_vec3){0, 0.5, 0});
    for (int i = 0; i < 10; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 240));
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    for (int i = 0; i < 10; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 240));
    const uint64_t expected = tu_state_hash(w, NULL, 0);

    /* into a world with the same systems (another null def: the snapshot's is taken) */
    gr_world *v;
    CHECK_OK(NULL, tu_world(&v, 2, NULL));
    gr_null_def nd = null_def(3.0);
    CHECK_OK(v, gr_world_add_system(v, GR_SOLVER_NULL_TEST, &nd, NULL));
    s.pos = 0;
    CHECK_OK(v, gr_world_load(v, tu_stream_read, &s));
    gr_null_def back;
    back.size = sizeof back;
    CHECK_OK(v, gr_world_get_solver_def(v, GR_DEF_NULL_TEST, &back));
    CHECK(back.drag == 0.5);
    for (int i = 0; i < 10; i++)
        CHECK_OK(v, gr_step(v, 1.0 / 240));
    CHECK(tu_state_hash(v, NULL, 0) == expected);
    gr_world_destroy(v);

    /* into a world without the null system: refused by name, the world unchanged */
    CHECK_OK(NULL, tu_world(&v, 1, NULL));
    add(v, 0, (gr_vec3){0, 1, 0}, (gr_vec3){0, 0, 0});
    const uint64_t before = tu_state_hash(v, NULL, 0);
    s.pos = 0;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(v, tu_stream_read, &s));
    printf("  %s\n", gr_world_last_error(v));
    CHECK(strstr(gr_world_last_error(v), "2 system") != NULL);
    CHECK(tu_state_hash(v, NULL, 0) == before);
    gr_world_destroy(v);

    /* crafted: a grain of a system that does not exist, a system of another solver */
    tu_snap_map m;
    CHECK(!tu_snap_walk(s.data, s.size, GR_SOLVER_DEM, &m)); /* (the walk stops at the 2 systems) */
    CHECK(tu_get32(s.data + m.systems) == 2 && tu_get32(s.data + m.systems + 4) == (uint32_t)GR_SOLVER_NULL_TEST);
    const size_t owners = m.systems + 8 + 8; /* count, kind, the null def (drag) */
    const uint32_t slots = tu_get32(s.data + m.grains);
    uint32_t ones = 0;
    for (uint32_t i = 0; i < slots; i++)
        ones += s.data[owners + i] == 1;
    CHECK(ones == 6);
    for (int edit = 0; edit < 3; edit++) {
        tu_stream c;
        tu_stream_init(&c);
        tu_stream_write(&c, s.data, s.size);
        if (edit == 0)
            c.data[owners] = 2; /* the first grain in a third system */
        else if (edit == 1)
            c.data[owners + slots - 1] ^= 1; /* a null grain claimed by the DEM (or the other way) */
        else
            tu_put32(c.data + m.systems + 4, (uint32_t)GR_SOLVER_PBD);
        tu_reseal(&c);
        gr_world *x;
        CHECK_OK(NULL, two_systems(&x, NULL));
        const gr_status st = gr_world_load(x, tu_stream_read, &c);
        printf("  edit %d: %s\n", edit, gr_world_last_error(x));
        CHECK(st == (edit == 2 ? GR_ERROR_INVALID_ARGUMENT : GR_ERROR_CORRUPT_DATA));
        CHECK(gr_world_get_grain_count(x) == 0);
        gr_world_destroy(x);
        tu_stream_free(&c);
    }
    gr_world_destroy(w);
    tu_stream_free(&s);
}

/* Bodies reach every system; fills add to the system they name. */
static void test_systems_bodies_and_fill(void)
{
    gr_world *w;
    CHECK_OK(NULL, two_systems(&w, NULL));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.02, 0.02, 0.02};
    bd.position = (gr_vec3){0, 0.5, 0};
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &bd, &b));
    CHECK_OK(w, gr_body_set_velocity(w, b, (gr_vec3){0, 1, 0}, (gr_vec3){0, 0, 0}));
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.05, 1, -0.05};
    fd.max = (gr_vec3){0.05, 1.05, 0.05};
    fd.radius = 0.005;
    fd.system = 1;
    uint32_t added = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &added, NULL, 0));
    CHECK(added > 10 && gr_world_get_grain_count(w) == added);
    gr_grain first;
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 1, &first, 0));
    uint32_t sys = 9;
    CHECK_OK(w, gr_grain_get_system(w, first, &sys));
    CHECK(sys == 1);
    fd.system = 5;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_fill_box(w, &fd, &added, NULL, 0));
    CHECK(gr_world_get_grain_count(w) > 10);
    /* the DEM system moves the dynamic body (the null system does not) */
    for (int i = 0; i < 12; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 120));
    gr_vec3 p;
    gr_quat q;
    CHECK_OK(w, gr_body_get_pose(w, b, &p, &q));
    const double t = 0.1;
    CHECK_NEAR(p.y, 0.5 + t - 0.5 * 9.81 * t * t, 1e-3);
    CHECK_OK(w, gr_remove_body(w, b));
    CHECK_OK(w, gr_step(w, 1.0 / 120));
    gr_world_destroy(w);
}

/* A step that fails in one system leaves the systems at most one substep apart, and the world's
 * clock at the last substep all completed: out of memory at every allocation of a step of a
 * null world (its grain falls freely: its height tells its time) with a DEM system whose grains
 * need lists. */
static void test_systems_failure_keeps_clock(void)
{
    int failures = 0;
    for (long long k = 0; k < 400; k++) {
        tu_alloc a;
        tu_alloc_init(&a);
        const gr_allocator al = tu_allocator(&a);
        gr_world_def wd;
        gr_world_def_init(&wd, GR_SOLVER_NULL_TEST);
        wd.allocator = al;
        gr_world *w;
        CHECK_OK(NULL, gr_world_create(&wd, &w));
        CHECK_OK(w, gr_world_add_system(w, GR_SOLVER_DEM, NULL, NULL));
        const gr_grain probe = add(w, 0, (gr_vec3){0, 10, 0}, (gr_vec3){0, 0, 0});
        for (int g = 0; g < 40; g++)
            add(w, 1, (gr_vec3){0.021 * (g % 7), 0.5 + 0.021 * (g / 7), 0}, (gr_vec3){0, 0, 0});
        const double h = gr_world_get_substep(w);
        a.fail_at = a.calls + k;
        a.fail_once = 1;
        const gr_status s = gr_step(w, 20 * h);
        const double t = gr_world_get_time(w);
        gr_grain_state st;
        CHECK_OK(w, gr_grain_get_state(w, probe, &st));
        const double t_null = sqrt(2 * (10 - st.position.y) / 9.81);
        if (!(t_null >= t - 1e-9 && t_null <= t + h + 1e-9)) {
            printf("  allocation %lld: %s; clock %g s, the null system at %g s (substep %g s)\n", k,
                   gr_world_last_error(w), t, t_null, h);
            CHECK(0);
        }
        const int failed = s != GR_OK;
        if (failed && failures == 0)
            printf("  %s\n", gr_world_last_error(w));
        failures += failed;
        if (failed)
            CHECK(s == GR_ERROR_OUT_OF_MEMORY);
        gr_world_destroy(w);
        CHECK(a.live == 0);
        if (!failed && a.failures == 0)
            break; /* past the step's last allocation */
    }
    printf("  %d failing steps checked\n", failures);
    CHECK(failures > 0);
}

/* Out of memory at every allocation of adding a system, grains to it, a coupled step and a
 * snapshot: each call fails cleanly, the world as it was, nothing leaked. */
static int oom_scenario(tu_alloc *a, int *unchanged_violations)
{
    const gr_allocator al = tu_allocator(a);
    gr_world *w = NULL;
    gr_status s = tu_world(&w, 1, &al);
    if (s != GR_OK)
        return s == GR_ERROR_OUT_OF_MEMORY ? 0 : 1;
    int other = 0;
    const gr_null_def nd = null_def(0.1);
    s = gr_world_add_system(w, GR_SOLVER_NULL_TEST, &nd, NULL);
    if (s != GR_OK) {
        other += s != GR_ERROR_OUT_OF_MEMORY;
        *unchanged_violations += gr_world_get_system_count(w) != 1;
        gr_world_destroy(w);
        return other;
    }
    gr_grain_def g[20];
    for (int k = 0; k < 20; k++) {
        gr_grain_def_init(&g[k]);
        g[k].radius = 0.01;
        g[k].position = (gr_vec3){0.03 * k, 0.001 + 0.0005 * k, 0};
        g[k].velocity = (gr_vec3){0, -0.5, 0};
    }
    s = gr_add_grains(w, g, 20, NULL);
    other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
    for (int k = 0; k < 20; k++)
        g[k].system = 1;
    const uint32_t before = gr_world_get_grain_count(w);
    s = gr_add_grains(w, g, 5, NULL);
    other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
    *unchanged_violations += s != GR_OK && gr_world_get_grain_count(w) != before;
    for (int i = 0; i < 4; i++) {
        const uint32_t n = gr_world_get_grain_count(w);
        s = gr_step(w, 1.0 / 240);
        other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
        *unchanged_violations += gr_world_get_grain_count(w) != n; /* handed over, never lost */
    }
    tu_stream st;
    tu_stream_init(&st);
    s = gr_world_save(w, tu_stream_write, &st);
    other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
    if (s == GR_OK) {
        const uint64_t h = tu_state_hash(w, NULL, 0);
        s = gr_world_load(w, tu_stream_read, &st);
        other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
        *unchanged_violations += tu_state_hash(w, NULL, 0) != h;
    }
    tu_stream_free(&st);
    gr_world_destroy(w);
    return other;
}

static void test_systems_out_of_memory(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    int changed = 0;
    CHECK(oom_scenario(&a, &changed) == 0 && changed == 0 && a.failures == 0 && a.live == 0);
    const long long total = a.calls;
    CHECK(total > 20);
    int bad = 0;
    for (long long k = 0; k < total; k++) {
        tu_alloc_init(&a);
        a.fail_at = k;
        a.fail_once = 1;
        changed = 0;
        const int other = oom_scenario(&a, &changed);
        if (other || changed || a.live != 0 || a.live_bytes != 0) {
            fprintf(stderr, "  allocation %lld of %lld: errors %d, changed %d, leaked %lld blocks\n", k, total, other,
                    changed, a.live);
            bad++;
        }
    }
    printf("  %lld allocation sites exercised\n", total);
    CHECK(bad == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"systems_add_checked", test_systems_add_checked},
        {"systems_grains_and_bulk", test_systems_grains_and_bulk},
        {"systems_step_and_coupling", test_systems_step_and_coupling},
        {"systems_snapshot", test_systems_snapshot},
        {"systems_bodies_and_fill", test_systems_bodies_and_fill},
        {"systems_out_of_memory", test_systems_out_of_memory},
        {"systems_failure_keeps_clock", test_systems_failure_keeps_clock},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
