/* SPDX-License-Identifier: MIT */
/* Out-of-memory at every allocation, determinism across worker counts and job systems,
 * no allocation in steady-state steps, instability detection. */
#include <granular/granular.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

/* ---- allocation failure ------------------------------------------------------------------- */

typedef struct scenario_result {
    int oom_seen;
    int other_error;
    int unchanged_violations;
    long long scripted_calls; ///< allocations before the final check step
} scenario_result;

/* The render points, hashed (count and positions). */
static uint64_t points_hash(const gr_world *w)
{
    const uint32_t n = gr_world_get_render_point_count(w);
    uint64_t h = 1469598103934665603ull ^ n;
    float p[4];
    for (uint32_t k = 0; k < n; k++) {
        if (gr_read_render_points(w, k, 1, p, 0) != GR_OK)
            return 0;
        const unsigned char *b = (const unsigned char *)p;
        for (size_t i = 0; i < sizeof p; i++)
            h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

/* One scripted use of the library; every call must succeed or fail with OOM leaving the
 * world as it was (steps: consistent and still usable). */
static void scenario(tu_alloc *a, scenario_result *res, gr_solver_kind solver)
{
    gr_allocator hooks = tu_allocator(a);
    gr_world *w = NULL;
    gr_world_def def;
    gr_world_def_init(&def, solver);
    def.worker_count = 2;
    def.allocator = hooks;
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.hr_radius = 0.0008; /* render points too (sampled by fills and steps) */
    if (solver == GR_SOLVER_PBD)
        def.pbd = &pbd;
    gr_continuum_def cont;
    gr_continuum_def_init(&cont);
    cont.split_merge = 1; /* (their plans allocate too) */
    cont.render_points = 4;
    if (solver == GR_SOLVER_CONTINUUM)
        def.solver_def = &cont;
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.hr_radius = 0.0008;
    if (solver == GR_SOLVER_DEM)
        def.dem = &dem;
    gr_status s = gr_world_create(&def, &w);
    if (s != GR_OK) {
        res->oom_seen += s == GR_ERROR_OUT_OF_MEMORY;
        res->other_error += s != GR_ERROR_OUT_OF_MEMORY;
        return;
    }
    gr_body bodies[3] = {{0}, {0}, {0}};
#define STEP_CALL(expr, mutates_on_failure)                                       \
    do {                                                                          \
        uint64_t h0 = tu_state_hash(w, bodies, 3) ^ points_hash(w);              \
        gr_status s_ = (expr);                                                    \
        if (s_ == GR_ERROR_OUT_OF_MEMORY) {                                       \
            res->oom_seen++;                                                      \
            if (!(mutates_on_failure) && (tu_state_hash(w, bodies, 3) ^ points_hash(w)) != h0) { \
                fprintf(stderr, "  state changed by failed %s\n", #expr);        \
                res->unchanged_violations++;                                      \
            }                                                                     \
        } else if (s_ != GR_OK) {                                                 \
            fprintf(stderr, "  %s -> %s (%s)\n", #expr, gr_status_string(s_), gr_world_last_error(w)); \
            res->other_error++;                                                   \
        }                                                                         \
    } while (0)

    gr_material_def md;
    gr_material_def_init(&md);
    gr_material mat = {0};
    STEP_CALL(gr_add_material(w, &md, &mat), 0);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.02, 0.04, 0.02};
    bd.position = (gr_vec3){0, 0.04, 0};
    STEP_CALL(gr_add_body(w, &bd, &bodies[0]), 0);
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.02, 0, -0.02};
    fd.max = (gr_vec3){0.02, 0.06, 0.02};
    fd.radius = 0.002;
    fd.max_count = 150;
    STEP_CALL(gr_fill_box(w, &fd, NULL, NULL, 0), 0);
    /* a fill not cut short: its region is sampled for points at once */
    fd.min = (gr_vec3){-0.02, 0.06, -0.02};
    fd.max = (gr_vec3){0.02, 0.07, 0.02};
    fd.max_count = 0;
    STEP_CALL(gr_fill_box(w, &fd, NULL, NULL, 0), 0);
    gr_grain_def gd[8];
    for (int i = 0; i < 8; i++) {
        gr_grain_def_init(&gd[i]);
        gd[i].radius = 0.0025;
        gd[i].position = (gr_vec3){-0.015 + 0.004 * i, 0.07, 0};
    }
    gr_grain handles[8] = {{0}};
    STEP_CALL(gr_add_grains(w, gd, 8, handles), 0);
    STEP_CALL(gr_step(w, 0.004), 1);
    if (gr_grain_is_valid(w, handles[3]))
        STEP_CALL(gr_remove_grains(w, &handles[2], 3), 0);
    bd.shape = GR_SHAPE_SPHERE;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.radius = 0.005;
    bd.position = (gr_vec3){0, 0.03, 0};
    bd.linear_velocity = (gr_vec3){0.2, 0, 0};
    STEP_CALL(gr_add_body(w, &bd, &bodies[1]), 0);
    /* a dynamic box and a static mesh: both covered with particles (a continuum world meets
     * them by their shapes) */
    gr_body_def db;
    gr_body_def_init(&db);
    db.shape = GR_SHAPE_BOX;
    db.motion = GR_MOTION_DYNAMIC;
    db.half_extents = (gr_vec3){0.005, 0.004, 0.005};
    db.particle_radius = 0.002;
    db.position = (gr_vec3){0.008, 0.075, 0};
    STEP_CALL(gr_add_body(w, &db, &bodies[2]), 0);
    static const gr_vec3 tet_v[4] = {{0, 0, 0}, {0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}};
    static const uint32_t tet_i[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    gr_body_def mb;
    gr_body_def_init(&mb);
    mb.shape = GR_SHAPE_MESH;
    mb.mesh_vertices = tet_v;
    mb.mesh_indices = tet_i;
    mb.mesh_vertex_count = 4;
    mb.mesh_triangle_count = 4;
    mb.particle_radius = 0.002;
    mb.position = (gr_vec3){-0.015, 0.0, -0.015};
    gr_body mesh = {0};
    STEP_CALL(gr_add_body(w, &mb, &mesh), 0);
    gr_material_pair_def pd;
    gr_material_pair_def_init(&pd);
    pd.friction = 0.3;
    if (mat.id)
        STEP_CALL(gr_set_material_pair(w, mat, gr_world_get_default_material(w), &pd), 0);
    STEP_CALL(gr_step(w, 0.004), 1);
    tu_stream st;
    tu_stream_init(&st);
    STEP_CALL(gr_world_save(w, tu_stream_write, &st), 0);
    if (st.size > 0)
        STEP_CALL(gr_world_load(w, tu_stream_read, &st), 0);
    tu_stream_free(&st);
    STEP_CALL(gr_step(w, 0.002), 1);
    /* still usable: one more clean step must work once memory is back */
    long long saved = a->fail_at;
    a->fail_at = -1;
    res->scripted_calls = a->calls; /* the check step below may allocate (lists grow) */
    gr_status last = gr_step(w, 0.001);
    a->fail_at = saved;
    if (last != GR_OK) {
        fprintf(stderr, "  world unusable after OOM: %s\n", gr_world_last_error(w));
        res->other_error++;
    }
    gr_world_destroy(w);
#undef STEP_CALL
}

static void out_of_memory_at_every_allocation(gr_solver_kind solver)
{
    tu_alloc a;
    tu_alloc_init(&a);
    scenario_result clean = {0, 0, 0, 0};
    scenario(&a, &clean, solver);
    CHECK(clean.other_error == 0 && clean.oom_seen == 0);
    CHECK(a.live == 0 && a.live_bytes == 0);
    const long long total = clean.scripted_calls;
    CHECK(total > 50);
    int bad = 0;
    for (long long k = 0; k < total; k++) {
        tu_alloc_init(&a);
        a.fail_at = k;
        a.fail_once = 1;
        scenario_result r = {0, 0, 0, 0};
        scenario(&a, &r, solver);
        if (r.other_error || r.unchanged_violations || a.live != 0 || a.live_bytes != 0 || a.failures != 1) {
            fprintf(stderr, "  allocation %lld of %lld: errors %d, changed %d, leaked %lld blocks / %lld bytes\n", k,
                    total, r.other_error, r.unchanged_violations, a.live, a.live_bytes);
            bad++;
        }
    }
    printf("  %lld allocation sites exercised\n", total);
    CHECK(bad == 0);
}

static void test_out_of_memory_at_every_allocation(void) { out_of_memory_at_every_allocation(GR_SOLVER_DEM); }
static void test_out_of_memory_at_every_allocation_pbd(void) { out_of_memory_at_every_allocation(GR_SOLVER_PBD); }

/* Persistent failure from some point on: every call fails cleanly, nothing leaks. */
static void test_out_of_memory_persistent(void)
{
    tu_alloc a;
    int bad = 0;
    for (long long k = 0; k < 120; k += 3) {
        tu_alloc_init(&a);
        a.fail_at = k;
        scenario_result r = {0, 0, 0, 0};
        scenario(&a, &r, k % 2 ? GR_SOLVER_PBD : GR_SOLVER_DEM);
        if (r.unchanged_violations || a.live != 0)
            bad++;
    }
    CHECK(bad == 0);
}

/* ---- a failing gr_step changes nothing ------------------------------------------------------- */

/* A host-owned box that the host holds still, a little above the pour. */
static void oom_host_get_state(gr_body b, void *bu, gr_host_body_state *s, void *user)
{
    (void)b, (void)bu, (void)user;
    s->position = (gr_vec3){0.012, 0.02, 0};
    s->orientation = (gr_quat){0, 0, 0, 1};
    s->linear_velocity = (gr_vec3){0, -0.01, 0};
    s->angular_velocity = (gr_vec3){0, 0, 0};
}

static void oom_host_apply(gr_body b, void *bu, gr_vec3 i, gr_vec3 a, void *user)
{
    (void)b, (void)bu, (void)i, (void)a, (void)user;
}

/* A pour into a box: a column of grains falls in, so contact lists grow during the step. */
static gr_world *oom_pour(tu_alloc *a, gr_solver_kind solver, gr_integrator integrator, int host, gr_body bodies[2])
{
    gr_world_def def;
    gr_world_def_init(&def, solver);
    def.worker_count = 2;
    def.allocator = tu_allocator(a);
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integrator;
    def.dem = &dem;
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.hr_radius = 0.0008;
    def.pbd = &pbd;
    if (host) {
        def.host.get_state = oom_host_get_state;
        def.host.apply_impulse = oom_host_apply;
    }
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK)
        return NULL;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.02, 0.04, 0.02};
    bd.position = (gr_vec3){0, 0.04, 0};
    bodies[0] = bodies[1] = (gr_body){0};
    gr_status s = gr_add_body(w, &bd, &bodies[0]);
    if (s == GR_OK && host) {
        gr_body_def hd;
        gr_body_def_init(&hd);
        hd.shape = GR_SHAPE_BOX;
        hd.motion = GR_MOTION_HOST;
        hd.half_extents = (gr_vec3){0.004, 0.003, 0.004};
        hd.particle_radius = 0.002;
        hd.position = (gr_vec3){0.012, 0.02, 0};
        s = gr_add_body(w, &hd, &bodies[1]);
    }
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.01, 0.03, -0.01};
    fd.max = (gr_vec3){0.01, 0.09, 0.01};
    fd.radius = 0.002;
    fd.max_count = 120;
    fd.velocity = (gr_vec3){0, -0.5, 0};
    if (s == GR_OK)
        s = gr_fill_box(w, &fd, NULL, NULL, 0);
    if (s == GR_OK)
        s = gr_step(w, 0.004);
    /* more grains just before the step: its first substep's lists, grids and scratch grow */
    fd.min = (gr_vec3){-0.015, 0.1, -0.015};
    fd.max = (gr_vec3){0.015, 0.13, 0.015};
    fd.max_count = 150;
    if (s == GR_OK)
        s = gr_fill_box(w, &fd, NULL, NULL, 0);
    if (s != GR_OK) {
        gr_world_destroy(w);
        return NULL;
    }
    return w;
}

typedef struct oom_view {
    uint64_t state;  ///< grains, time, body poses, render points
    gr_counters c;   ///< the allocator's counters zeroed
    gr_vec3 force[2], torque[2];
} oom_view;

static oom_view oom_look(const gr_world *w, const gr_body bodies[2])
{
    oom_view v;
    memset(&v, 0, sizeof v);
    v.state = tu_state_hash(w, bodies, bodies[1].id ? 2 : 1) ^ points_hash(w);
    v.c.size = sizeof v.c;
    gr_world_get_counters(w, &v.c);
    v.c.bytes_in_use = v.c.bytes_peak = v.c.allocation_count = 0; /* reservations may stay */
    for (int b = 0; b < 2; b++)
        if (bodies[b].id)
            gr_body_get_force(w, bodies[b], &v.force[b], &v.torque[b]);
    return v;
}

static bool oom_grains_finite(const gr_world *w)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *p = (double *)malloc(sizeof(double) * 4 * (n ? n : 1));
    bool ok = true;
    for (int f = 0; f < 2 && ok; f++) {
        ok = gr_read_grains(w, f ? GR_FIELD_VELOCITY : GR_FIELD_POSITION, GR_TYPE_F64, 0, n, p, 0) == GR_OK;
        for (uint32_t i = 0; ok && i < 3 * n; i++)
            ok = isfinite(p[i]);
    }
    free(p);
    return ok;
}

/* gr_step with the k-th allocation of the call failing, for every k until the step succeeds.
 * A failure before the first substep leaves the world bit-identical and stepping on gives what
 * a world that never failed gives; a failure after completed substeps leaves the world at the
 * end of the last of them (time, counters say so; the step counted; finite) and usable. */
static void failing_step(gr_solver_kind solver, gr_integrator integrator, int host)
{
    const double DT = 0.03, DT2 = 0.01;
    tu_alloc a;
    tu_alloc_init(&a);
    gr_body bodies[2];
    gr_world *w = oom_pour(&a, solver, integrator, host, bodies);
    CHECK(w != NULL);
    if (!w)
        return;
    CHECK_OK(w, gr_step(w, DT));
    CHECK_OK(w, gr_step(w, DT2));
    const oom_view ref = oom_look(w, bodies);
    gr_world_destroy(w);
    int clean = 0, partial = 0, bad = 0;
    long long k = 0;
    for (; k < 5000; k++) {
        tu_alloc_init(&a);
        w = oom_pour(&a, solver, integrator, host, bodies);
        CHECK(w != NULL);
        if (!w)
            return;
        const oom_view before = oom_look(w, bodies);
        a.fail_at = a.calls + k;
        a.fail_once = 1;
        const gr_status s = gr_step(w, DT);
        a.fail_at = -1;
        const long long failures = a.failures;
        if (failures == 0) { /* the step needs fewer allocations: done */
            CHECK(s == GR_OK);
            gr_world_destroy(w);
            break;
        }
        oom_view after = oom_look(w, bodies);
        /* RKF45: a step that sorted the grains for new lists and then failed on the next
         * rebuild before its first accepted step counts the first (documented) */
        if (integrator == GR_INTEGRATOR_RKF45 && after.c.substep_count == before.c.substep_count)
            after.c.neighbor_rebuilds = before.c.neighbor_rebuilds;
        bool ok = s == GR_OK || s == GR_ERROR_OUT_OF_MEMORY;
        if (!ok)
            fprintf(stderr, "  step: %s\n", gr_world_last_error(w));
        if (s == GR_ERROR_OUT_OF_MEMORY && after.c.substep_count == before.c.substep_count) {
            clean++;
            if (memcmp(&after, &before, sizeof after) != 0) {
                fprintf(stderr, "  state %d counters %d forces %d differ\n", after.state != before.state,
                        memcmp(&after.c, &before.c, sizeof after.c) != 0,
                        memcmp(after.force, before.force, sizeof after.force) != 0);
                ok = false;
            }
            ok = ok && gr_step(w, DT) == GR_OK && gr_step(w, DT2) == GR_OK;
            if (!ok)
                fprintf(stderr, "  %s\n", gr_world_last_error(w));
            const oom_view end = oom_look(w, bodies);
            if (ok && memcmp(&end, &ref, sizeof end) != 0) {
                fprintf(stderr, "  stepped on: state %d counters %d forces %d differ from a world that never failed\n",
                        end.state != ref.state, memcmp(&end.c, &ref.c, sizeof end.c) != 0,
                        memcmp(end.force, ref.force, sizeof end.force) != 0);
                ok = false;
            }
        } else if (s == GR_ERROR_OUT_OF_MEMORY) {
            partial++;
            ok = ok && after.c.step_count == before.c.step_count + 1 && after.c.time == gr_world_get_time(w) &&
                 after.c.time > before.c.time && after.c.time <= before.c.time + DT && after.c.last_substep > 0 &&
                 oom_grains_finite(w);
            if (!ok)
                fprintf(stderr, "  partial step: steps %llu -> %llu, t %g -> %g\n", (unsigned long long)before.c.step_count,
                        (unsigned long long)after.c.step_count, before.c.time, after.c.time);
            ok = ok && gr_step(w, DT2) == GR_OK && oom_grains_finite(w);
            if (!ok)
                fprintf(stderr, "  stepping on: %s\n", gr_world_last_error(w));
        } else if (s == GR_OK) { /* a failure the step did without: nothing may differ */
            ok = ok && gr_step(w, DT2) == GR_OK;
            const oom_view end = oom_look(w, bodies);
            ok = ok && memcmp(&end, &ref, sizeof end) == 0;
            if (!ok)
                fprintf(stderr, "  a failure the step did without changed the result\n");
        }
        gr_world_destroy(w);
        if (a.live != 0 || a.live_bytes != 0) {
            fprintf(stderr, "  leaked %lld blocks\n", a.live);
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "  allocation %lld of the step: %s, not as promised\n", k, gr_status_string(s));
            bad++;
        }
    }
    printf("  %lld allocations of the step: %d failed before the first substep, %d after completed ones\n", k,
           clean, partial);
    CHECK(k > 0 && k < 5000);
    CHECK(clean > 0);
    CHECK(bad == 0);
}

static void test_failing_step_changes_nothing_dem(void) { failing_step(GR_SOLVER_DEM, GR_INTEGRATOR_VELOCITY_VERLET, 0); }
static void test_failing_step_changes_nothing_dem_host(void) { failing_step(GR_SOLVER_DEM, GR_INTEGRATOR_VELOCITY_VERLET, 1); }
static void test_failing_step_changes_nothing_rkf45(void) { failing_step(GR_SOLVER_DEM, GR_INTEGRATOR_RKF45, 0); }
static void test_failing_step_changes_nothing_pbd(void) { failing_step(GR_SOLVER_PBD, GR_INTEGRATOR_VELOCITY_VERLET, 1); }

/* ---- steady state allocates nothing --------------------------------------------------------- */

static void test_steady_state_step_allocates_nothing(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    gr_allocator hooks = tu_allocator(&a);
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 2, &hooks));
    CHECK_OK(w, tu_pile(w, 0.03, 0.002, 1500, NULL));
    CHECK_OK(w, gr_step(w, 0.6));
    long long before = a.calls;
    gr_counters c0, c1;
    c0.size = c1.size = sizeof c0;
    gr_world_get_counters(w, &c0);
    for (int i = 0; i < 30; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_world_get_counters(w, &c1);
    long long after = a.calls;
    gr_world_destroy(w);
    printf("  %llu rebuilds during the measured steps\n", (unsigned long long)(c1.neighbor_rebuilds - c0.neighbor_rebuilds));
    CHECK(after == before);
    CHECK(c1.allocation_count == c0.allocation_count);
}

/* ---- determinism -------------------------------------------------------------------------- */

/* A host "job system": one thread per task (enough to prove the hooks are honoured). */
typedef struct host_job {
    pthread_t thread;
    gr_task_fn *fn;
    void *ctx;
} host_job;

static void *host_job_main(void *p)
{
    host_job *j = (host_job *)p;
    j->fn(j->ctx);
    return NULL;
}

static int host_enqueued;

static void *host_enqueue(gr_task_fn *fn, void *ctx, void *user)
{
    (void)user;
    host_enqueued++;
    if (host_enqueued % 5 == 0) {
        fn(ctx); /* sometimes run inline: returning NULL is allowed */
        return NULL;
    }
    host_job *j = (host_job *)malloc(sizeof *j);
    j->fn = fn;
    j->ctx = ctx;
    if (pthread_create(&j->thread, NULL, host_job_main, j) != 0) {
        fn(ctx);
        free(j);
        return NULL;
    }
    return j;
}

static void host_finish(void *handle, void *user)
{
    (void)user;
    host_job *j = (host_job *)handle;
    pthread_join(j->thread, NULL);
    free(j);
}

static uint64_t run_determinism_scene(unsigned workers, int host)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_EPSD;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    def.dem = &dem;
    if (host) {
        def.tasks.enqueue = host_enqueue;
        def.tasks.finish = host_finish;
    }
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return 0;
    gr_body box, paddle;
    tu_pile(w, 0.03, 0.0015, 1500, &box);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.02, 0.01, 0.002};
    bd.position = (gr_vec3){0, 0.015, 0};
    bd.angular_velocity = (gr_vec3){0, 6, 0};
    gr_add_body(w, &bd, &paddle);
    /* clumps too: tetrahedra and pairs poured on top */
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.03, 0.08, -0.03};
    fd.max = (gr_vec3){0.03, 0.11, 0.03};
    fd.radius = 0.003;
    fd.shape = GR_GRAIN_TETRAHEDRON;
    fd.max_count = 150;
    gr_fill_box(w, &fd, NULL, NULL, 0);
    fd.min.y = 0.115;
    fd.max.y = 0.13;
    fd.shape = GR_GRAIN_PAIR;
    gr_fill_box(w, &fd, NULL, NULL, 0);
    for (int i = 0; i < 6; i++)
        gr_step(w, 1.0 / 60);
    gr_body bodies[2] = {box, paddle};
    uint64_t h = tu_state_hash(w, bodies, 2);
    gr_world_destroy(w);
    return h;
}

static void test_determinism_across_workers(void)
{
    const unsigned workers[] = {2, 3, 8};
    uint64_t ref = run_determinism_scene(1, 0);
    CHECK(ref != 0);
    for (int i = 0; i < 3; i++) {
        uint64_t h = run_determinism_scene(workers[i], 0);
        printf("  workers %u: %016llx\n", workers[i], (unsigned long long)h);
        CHECK(h == ref);
    }
    host_enqueued = 0;
    uint64_t hh = run_determinism_scene(3, 1);
    printf("  host job system: %016llx (%d tasks)\n", (unsigned long long)hh, host_enqueued);
    CHECK(hh == ref);
    CHECK(host_enqueued > 0);
}

/* The continuum solver's step on 1, 2 and 3 workers and on a host's job system: the same bits
 * (its parallel phases write per grid block or per particle, its sums run in a fixed order). A
 * box of sand large enough for every parallel phase to be shared out (over 8 grid blocks and
 * 1024 particles), stirred by a kinematic paddle. `wide`: a wider, shallower bed with a free box
 * sinking into it, for the passes that stay in the calling thread on small grids (over 64
 * blocks: the cheap per-cell passes; over 1024 unfixed cells: the compact rows) and a free
 * body's faces. */
static uint64_t run_continuum_determinism(unsigned workers, int host, bool wide)
{
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = 0.01;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.worker_count = workers;
    def.solver_def = &cd;
    if (host) {
        def.tasks.enqueue = host_enqueue;
        def.tasks.finish = host_finish;
    }
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return 0;
    gr_body box, paddle;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    const double half = wide ? 0.11 : 0.06;
    bd.half_extents = (gr_vec3){half, 0.06, half};
    bd.position = (gr_vec3){0, 0.06, 0};
    bool ok = gr_add_body(w, &bd, &box) == GR_OK;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    if (wide) { /* a free box of the sand's density, falling on it */
        bd.motion = GR_MOTION_DYNAMIC;
        bd.half_extents = (gr_vec3){0.02, 0.02, 0.02};
        bd.mass = 1500 * 8 * 0.02 * 0.02 * 0.02;
        bd.position = (gr_vec3){0.01, 0.065, -0.005};
    } else {
        bd.motion = GR_MOTION_KINEMATIC;
        bd.half_extents = (gr_vec3){0.04, 0.01, 0.005};
        bd.position = (gr_vec3){0, 0.03, 0};
        bd.angular_velocity = (gr_vec3){0, 6, 0};
    }
    ok = ok && gr_add_body(w, &bd, &paddle) == GR_OK;
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-half + 0.005, 0.0, -half + 0.005};
    fd.max = (gr_vec3){half - 0.005, wide ? 0.04 : 0.08, half - 0.005};
    fd.radius = 0.0024;
    fd.spacing = wide ? 0.0065 : 0.005;
    fd.avoid_overlap = 0;
    uint32_t n = 0;
    ok = ok && gr_fill_box(w, &fd, &n, NULL, 0) == GR_OK && n > 4 * 1024;
    for (int i = 0; i < 3 && ok; i++)
        ok = gr_step(w, 1.0 / 60) == GR_OK;
    gr_body bodies[2] = {box, paddle};
    const uint64_t h = ok ? tu_state_hash(w, bodies, 2) : 0;
    gr_world_destroy(w);
    return h;
}

static void test_continuum_determinism_across_workers(void)
{
    for (int wide = 0; wide < 2; wide++) {
        printf("  %s\n", wide ? "wide bed, free box" : "box, paddle");
        const uint64_t ref = run_continuum_determinism(1, 0, wide);
        printf("  1 worker: %016llx\n", (unsigned long long)ref);
        CHECK(ref != 0);
        const unsigned workers[] = {2, 3};
        for (int i = 0; i < 2; i++) {
            const uint64_t h = run_continuum_determinism(workers[i], 0, wide);
            printf("  workers %u: %016llx\n", workers[i], (unsigned long long)h);
            CHECK(h == ref);
        }
        host_enqueued = 0;
        const uint64_t hh = run_continuum_determinism(2, 1, wide);
        printf("  host job system: %016llx (%d tasks)\n", (unsigned long long)hh, host_enqueued);
        CHECK(hh == ref);
        CHECK(host_enqueued > 0);
    }
}

/* ---- instability is reported, not propagated ----------------------------------------------- */

/* A grain squeezed between two half-spaces with a substep far beyond the stable one: the
 * explicit integrator's error grows without bound until the state is non-finite. */
static void test_instability_detected(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.substep = 1e-3;
    def.gravity = (gr_vec3){0, 0, 0};
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    gr_material_def md;
    gr_material_def_init(&md);
    md.youngs_modulus = 1e12;
    md.restitution = 1.0;
    gr_material m;
    CHECK_OK(w, gr_add_material(w, &md, &m));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    bd.position = (gr_vec3){-0.01, 0, 0};
    bd.normal = (gr_vec3){1, 0, 0};
    CHECK_OK(w, gr_add_body(w, &bd, NULL));
    bd.position = (gr_vec3){0.01, 0, 0};
    bd.normal = (gr_vec3){-1, 0, 0};
    CHECK_OK(w, gr_add_body(w, &bd, NULL));
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = m;
    gd.radius = 0.01;
    gd.position = (gr_vec3){0.001, 0, 0};
    gr_grain g, calm;
    CHECK_OK(w, gr_add_grain(w, &gd, &g));
    gd.position = (gr_vec3){0, 1, 0};
    gd.velocity = (gr_vec3){0, 0.5, 0};
    CHECK_OK(w, gr_add_grain(w, &gd, &calm)); /* far away, must be unaffected */
    gr_status s = GR_OK;
    int steps = 0;
    for (; steps < 2000 && s == GR_OK; steps++)
        s = gr_step(w, 1e-2);
    printf("  reported after %d steps: %s\n", steps, gr_world_last_error(w));
    CHECK(s == GR_ERROR_UNSTABLE);
    CHECK(strstr(gr_world_last_error(w), "non-finite") != NULL);
    gr_grain_state a, b;
    CHECK_OK(w, gr_grain_get_state(w, g, &a));
    CHECK_OK(w, gr_grain_get_state(w, calm, &b));
    CHECK(isfinite(a.position.x) && isfinite(a.velocity.x));
    CHECK_NEAR(b.velocity.y, 0.5, 1e-12);
    /* the world goes on (the stopped grain keeps misbehaving, the step says so again) */
    s = gr_step(w, 1e-2);
    CHECK(s == GR_OK || s == GR_ERROR_UNSTABLE);
    gr_world_destroy(w);
}

/* ---- every blow-up of the audit is stopped and reported, in every solver ---------------------- */

typedef struct blowup_host {
    int calls;
    int non_finite;
} blowup_host;

static void blowup_get_state(gr_body body, void *ud, gr_host_body_state *state, void *user)
{
    (void)body, (void)ud, (void)state, (void)user; /* the engine agrees with the library's copy */
}

static void blowup_apply(gr_body body, void *ud, gr_vec3 j, gr_vec3 l, void *user)
{
    (void)body, (void)ud;
    blowup_host *h = (blowup_host *)user;
    h->calls++;
    h->non_finite += !(isfinite(j.x) && isfinite(j.y) && isfinite(j.z) && isfinite(l.x) && isfinite(l.y) && isfinite(l.z));
}

enum { BLOWUP_FAST, BLOWUP_ONE_POINT, BLOWUP_DEEP, BLOWUP_GRAVITY, BLOWUP_FAST_FINITE, BLOWUP_FAST_CLUMP, BLOWUP_CASES };
static const char *const blowup_names[BLOWUP_CASES] = {"grain at 1e300 m/s", "50 grains at one point",
                                                      "grain 1e300 m inside the floor", "gravity 1e300",
                                                      "grain at 8.7e18 m/s", "clump at 1e300 m/s"};

/* CHECK_OK for a function that returns whether its case passed */
#define BLOWUP_OK(world, expr)                                                                      \
    do {                                                                                           \
        gr_status s_ = (expr);                                                                     \
        if (s_ != GR_OK) {                                                                         \
            printf("    %s -> %s (%s)\n", #expr, gr_status_string(s_), gr_world_last_error(world)); \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

/* Every grain's position, velocity, angular velocity and force, and every body's force and
 * pose finite, and no grain faster than GR_MAX_SPEED? */
static int world_finite(gr_world *w, const gr_body *bodies, int nb)
{
    const uint32_t n = gr_world_get_grain_count(w);
    const gr_field fields[] = {GR_FIELD_POSITION, GR_FIELD_VELOCITY, GR_FIELD_ANGULAR_VELOCITY, GR_FIELD_FORCE};
    double v[3];
    for (uint32_t i = 0; i < n; i++)
        for (int f = 0; f < 4; f++) {
            if (gr_read_grains(w, fields[f], GR_TYPE_F64, i, 1, v, 0) != GR_OK)
                return 0;
            if (!(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2])))
                return 0;
            if (fields[f] == GR_FIELD_VELOCITY && !(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] <= GR_MAX_SPEED * GR_MAX_SPEED))
                return 0;
        }
    for (int b = 0; b < nb; b++) {
        gr_vec3 force, torque, p;
        gr_quat q;
        if (gr_body_get_force(w, bodies[b], &force, &torque) != GR_OK || gr_body_get_pose(w, bodies[b], &p, &q) != GR_OK)
            return 0;
        if (!(isfinite(force.x) && isfinite(force.y) && isfinite(force.z) && isfinite(torque.x) &&
              isfinite(torque.y) && isfinite(torque.z) && isfinite(p.x) && isfinite(p.y) && isfinite(p.z)))
            return 0;
    }
    return 1;
}

/* One audit case in one solver: a floor, a host-owned box on it, a few grains at rest beside,
 * and the case. The step says UNSTABLE, and nothing non-finite is left in the world or
 * reaches the host; the world saves, loads and steps on. */
static int blowup_case(gr_solver_kind solver, gr_integrator integrator, int which)
{
    int ok = 1;
    blowup_host host = {0, 0};
    gr_world_def def;
    gr_world_def_init(&def, solver);
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integrator;
    if (solver == GR_SOLVER_DEM)
        def.dem = &dem;
    def.host.get_state = blowup_get_state;
    def.host.apply_impulse = blowup_apply;
    def.host.user = &host;
    gr_world *w = NULL;
    BLOWUP_OK(NULL, gr_world_create(&def, &w));
    gr_material_def md;
    gr_material_def_init(&md);
    md.youngs_modulus = 1e6;
    gr_material m;
    BLOWUP_OK(w, gr_add_material(w, &md, &m));
    gr_body bodies[2];
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    BLOWUP_OK(w, gr_add_body(w, &bd, &bodies[0]));
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_HOST;
    bd.material = m;
    bd.half_extents = (gr_vec3){0.03, 0.03, 0.03};
    bd.position = (gr_vec3){0.2, 0.03, 0};
    BLOWUP_OK(w, gr_add_body(w, &bd, &bodies[1]));
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = m;
    gd.radius = 0.01;
    for (int k = 0; k < 4; k++) {
        gd.position = (gr_vec3){-0.1 + 0.03 * k, 0.01, 0};
        BLOWUP_OK(w, gr_add_grain(w, &gd, NULL));
    }
    switch (which) {
    case BLOWUP_FAST:
    case BLOWUP_FAST_FINITE:
    case BLOWUP_FAST_CLUMP:
        gd.position = (gr_vec3){0.1, 0.03, 0};
        gd.velocity = (gr_vec3){which == BLOWUP_FAST_FINITE ? 8.7e18 : 1e300, 0, 0}; /* at the box */
        if (which == BLOWUP_FAST_CLUMP)
            gd.shape = GR_GRAIN_TETRAHEDRON;
        BLOWUP_OK(w, gr_add_grain(w, &gd, NULL));
        break;
    case BLOWUP_ONE_POINT: /* on the box, touching it */
        gd.position = (gr_vec3){0.2, 0.065, 0};
        for (int k = 0; k < 50; k++)
            BLOWUP_OK(w, gr_add_grain(w, &gd, NULL));
        break;
    case BLOWUP_DEEP:
        gd.position = (gr_vec3){0.5, -1e300, 0};
        BLOWUP_OK(w, gr_add_grain(w, &gd, NULL));
        break;
    case BLOWUP_GRAVITY:
        BLOWUP_OK(w, gr_world_set_gravity(w, (gr_vec3){0, -1e300, 0}));
        break;
    }
    gr_status s = GR_OK;
    int steps = 0;
    for (; steps < 5 && s == GR_OK; steps++)
        s = gr_step(w, 1.0 / 60);
    const char *msg = gr_world_last_error(w);
    printf("    %s after %d step(s): %s\n", gr_status_string(s), steps, s == GR_OK ? "" : msg);
    /* PBD may resolve a deep overlap at a bounded speed (its velocity change per substep is
     * bounded): no blow-up, then the step is fine */
    const int may_resolve = solver == GR_SOLVER_PBD && (which == BLOWUP_ONE_POINT || which == BLOWUP_DEEP);
    /* RKF45 may find no grain at fault: its step size collapses before any step is accepted */
    ok &= (s == GR_ERROR_UNSTABLE && (strstr(msg, "blew up") || (integrator == GR_INTEGRATOR_RKF45 && strstr(msg, "fell below")))) ||
          (may_resolve && s == GR_OK);
    ok &= world_finite(w, bodies, 2);
    /* a snapshot of the stopped world loads, and both step on */
    tu_stream snap;
    tu_stream_init(&snap);
    ok &= gr_world_save(w, tu_stream_write, &snap) == GR_OK;
    gr_world *w2 = NULL;
    BLOWUP_OK(NULL, gr_world_create(&def, &w2));
    gr_status ls = gr_world_load(w2, tu_stream_read, &snap);
    if (ls != GR_OK)
        printf("    load: %s\n", gr_world_last_error(w2));
    ok &= ls == GR_OK;
    for (int k = 0; k < 3; k++) {
        s = gr_step(w, 1.0 / 60);
        ok &= (s == GR_OK || s == GR_ERROR_UNSTABLE) && world_finite(w, bodies, 2);
        if (ls == GR_OK) {
            s = gr_step(w2, 1.0 / 60);
            ok &= s == GR_OK || s == GR_ERROR_UNSTABLE;
        }
    }
    /* the host hears of every step that moved something; an RKF45 step stopped before it
     * accepted a substep moved nothing, and hands no impulse (gr_step's comment) */
    ok &= (host.calls > 0 || integrator == GR_INTEGRATOR_RKF45) && host.non_finite == 0;
    if (host.non_finite)
        printf("    the host received %d non-finite impulse(s)\n", host.non_finite);
    tu_stream_free(&snap);
    gr_world_destroy(w2);
    gr_world_destroy(w);
    return ok;
}

static void test_blowups_stopped_all_solvers(void)
{
    const struct {
        gr_solver_kind solver;
        gr_integrator integrator;
        const char *name;
    } solvers[] = {{GR_SOLVER_DEM, GR_INTEGRATOR_VELOCITY_VERLET, "dem verlet"},
                   {GR_SOLVER_DEM, GR_INTEGRATOR_RKF45, "dem rkf45"},
                   {GR_SOLVER_PBD, GR_INTEGRATOR_DEFAULT, "pbd"}};
    int failed = 0;
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < BLOWUP_CASES; c++) {
            if (c == BLOWUP_FAST_CLUMP && solvers[k].solver == GR_SOLVER_PBD)
                continue; /* (spheres only) */
            printf("  %s, %s\n", solvers[k].name, blowup_names[c]);
            if (!blowup_case(solvers[k].solver, solvers[k].integrator, c)) {
                printf("    FAILED\n");
                failed++;
            }
        }
    CHECK(failed == 0);
}

/* ---- setters with unchanged values change nothing ------------------------------------------- */

enum { SETTER_NONE, SETTER_GRAVITY, SETTER_BODY_POSE, SETTER_GRAIN_STATE, SETTER_ALL };

/* A pile poured into a container with a dynamic box dropped on it (sliding, colliding and
 * resting contacts), stepped in frames; before each frame the host sets values the world
 * already has. Returns the combined state hashes of every frame. */
static void setter_run(gr_solver_kind solver, gr_integrator integrator, int setter, uint64_t *out)
{
    *out = 0;
    gr_world_def def;
    gr_world_def_init(&def, solver);
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integrator;
    def.dem = &dem;
    def.worker_count = 2;
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    gr_material_def md;
    gr_material_def_init(&md);
    md.youngs_modulus = 1e5; /* soft: long substeps, a quick test */
    gr_material soft;
    CHECK_OK(w, gr_add_material(w, &md, &soft));
    gr_body bodies[2];
    gr_body_def cd;
    gr_body_def_init(&cd);
    cd.shape = GR_SHAPE_CONTAINER;
    cd.open_faces = GR_FACE_POS_Y;
    cd.half_extents = (gr_vec3){0.02, 0.06, 0.02};
    cd.position = (gr_vec3){0, 0.06, 0};
    cd.material = soft;
    CHECK_OK(w, gr_add_body(w, &cd, &bodies[0]));
    gr_grain grains[80];
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.02, 0, -0.02};
    fd.max = (gr_vec3){0.02, 0.03, 0.02};
    fd.radius = 0.002;
    fd.max_count = 80;
    fd.seed = 7;
    fd.material = soft;
    fd.velocity = (gr_vec3){0.2, 0, 0.1}; /* sliding along the walls */
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &n, grains, 80));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.006, 0.004, 0.006};
    bd.position = (gr_vec3){0.003, 0.04, 0};
    bd.orientation = (gr_quat){0.5, 0.5, 0.5, 0.5}; /* exactly unit: the API's normalisation keeps it */
    bd.material = soft;
    CHECK_OK(w, gr_add_body(w, &bd, &bodies[1]));
    uint64_t hash = 1469598103934665603ull;
    for (int frame = 0; frame < 16; frame++) {
        if (setter == SETTER_GRAVITY || setter == SETTER_ALL) {
            gr_world_def d;
            gr_world_def_init(&d, solver);
            CHECK_OK(w, gr_world_get_def(w, &d, NULL));
            CHECK_OK(w, gr_world_set_gravity(w, d.gravity));
        }
        if (setter == SETTER_BODY_POSE || setter == SETTER_ALL)
            /* PBD: the container only (a dynamic body's pose set again re-places its particles,
             * pbd_bodies.c) */
            for (int b = 0; b < (solver == GR_SOLVER_PBD ? 1 : 2); b++) {
                gr_vec3 p;
                gr_quat q;
                CHECK_OK(w, gr_body_get_pose(w, bodies[b], &p, &q));
                CHECK_OK(w, gr_body_set_pose(w, bodies[b], p, q));
            }
        if (setter == SETTER_GRAIN_STATE || setter == SETTER_ALL)
            for (uint32_t k = 0; k < n; k += 1 + (uint32_t)frame % 3) {
                gr_grain_state st;
                CHECK_OK(w, gr_grain_get_state(w, grains[k], &st));
                CHECK_OK(w, gr_grain_set_state(w, grains[k], &st));
            }
        CHECK_OK(w, gr_step(w, 1.0 / 240));
        hash = (hash ^ tu_state_hash(w, bodies, 2)) * 1099511628211ull;
    }
    gr_world_destroy(w);
    *out = hash;
}

static void test_unchanged_setters_change_nothing(void)
{
    static const char *const names[] = {"none", "gravity", "body pose", "grain state", "all three"};
    const struct {
        gr_solver_kind solver;
        gr_integrator integrator;
        const char *name;
    } cases[] = {{GR_SOLVER_DEM, GR_INTEGRATOR_VELOCITY_VERLET, "dem verlet"},
                 {GR_SOLVER_DEM, GR_INTEGRATOR_RKF45, "dem rkf45"},
                 {GR_SOLVER_PBD, GR_INTEGRATOR_DEFAULT, "pbd"}};
    int all_same = 1;
    for (int c = 0; c < 3; c++) {
        uint64_t ref, h;
        setter_run(cases[c].solver, cases[c].integrator, SETTER_NONE, &ref);
        for (int setter = SETTER_GRAVITY; setter <= SETTER_ALL; setter++) {
            setter_run(cases[c].solver, cases[c].integrator, setter, &h);
            printf("  %-10s %-12s %s\n", cases[c].name, names[setter], h == ref ? "bit-identical" : "DIFFERS");
            all_same &= h == ref;
        }
    }
    CHECK(all_same);
}

/* ---- the work of one step is bounded ---------------------------------------------------------- */

static void test_step_work_is_bounded(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    gr_world *w = NULL;
    def.substep = GR_MIN_SUBSTEP / 2;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&def, &w));
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.max_substep = 4.5e-22;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    def.pbd = &pbd;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&def, &w));
    pbd.max_substep = 1.0 / 120;
    pbd.hr_substep = 1e-15;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&def, &w));

    /* a legal substep, and a dt that would need more than GR_MAX_SUBSTEPS_PER_STEP of them:
     * refused before anything moves */
    const gr_solver_kind kinds[] = {GR_SOLVER_DEM, GR_SOLVER_PBD};
    for (int k = 0; k < 2; k++) {
        gr_world_def_init(&def, kinds[k]);
        def.substep = 1e-9;
        CHECK_OK(NULL, gr_world_create(&def, &w));
        gr_grain_def gd;
        gr_grain_def_init(&gd);
        gd.radius = 0.01;
        gd.velocity = (gr_vec3){1, 0, 0};
        gr_grain g;
        CHECK_OK(w, gr_add_grain(w, &gd, &g));
        const uint64_t before = tu_state_hash(w, NULL, 0);
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_step(w, 1.0));
        CHECK(strstr(gr_world_last_error(w), "GR_MAX_SUBSTEPS_PER_STEP") != NULL);
        CHECK(tu_state_hash(w, NULL, 0) == before);
        gr_counters c;
        c.size = sizeof c;
        CHECK_OK(w, gr_world_get_counters(w, &c));
        CHECK(c.step_count == 0 && c.substep_count == 0 && c.time == 0);
        CHECK_OK(w, gr_step(w, 1e-5)); /* 10^4 substeps: fine */
        gr_world_destroy(w);
    }
}

#ifdef GR_TEST_NULL_SOLVER
/* The same tests for the test build's null solver (tests/null_solver.c): a solver registered
 * the way a new one is keeps the contract the built-in ones keep. */
#include "null_solver.h"

static void test_null_out_of_memory_at_every_allocation(void) { out_of_memory_at_every_allocation(GR_SOLVER_NULL_TEST); }
/* Its step allocates nothing at all: with every allocation failing, steps still succeed (a
 * failing step is then impossible, and failing_step's premise with it). */
static void test_null_step_allocates_nothing(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    gr_body bodies[2];
    gr_world *w = oom_pour(&a, GR_SOLVER_NULL_TEST, GR_INTEGRATOR_DEFAULT, 1, bodies);
    CHECK(w != NULL);
    CHECK(gr_world_get_grain_count(w) > 100);
    a.fail_at = a.calls; /* every allocation from here on fails */
    for (int i = 0; i < 20; i++)
        CHECK_OK(w, gr_step(w, 0.01));
    CHECK(a.failures == 0);
    gr_world_destroy(w);
    CHECK(a.live == 0);
}

static void test_null_blowups_stopped(void)
{
    int failed = 0;
    for (int c = 0; c < BLOWUP_CASES; c++) {
        if (c == BLOWUP_FAST_CLUMP || c == BLOWUP_DEEP || c == BLOWUP_ONE_POINT)
            continue; /* spheres only; no contacts: overlaps and floors push nothing */
        printf("  null, %s\n", blowup_names[c]);
        if (!blowup_case(GR_SOLVER_NULL_TEST, GR_INTEGRATOR_DEFAULT, c)) {
            printf("    FAILED\n");
            failed++;
        }
    }
    CHECK(failed == 0);
}

/* The continuum solver, registered in the test build until its def is public. */
static void test_continuum_out_of_memory_at_every_allocation(void)
{
    out_of_memory_at_every_allocation(GR_SOLVER_CONTINUUM);
}

/* Once its grid has grown to the pile's size, a continuum step allocates nothing. */
static void test_continuum_steady_state_allocates_nothing(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    gr_allocator hooks = tu_allocator(&a);
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.worker_count = 2;
    def.allocator = hooks;
    gr_world *w;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){0.06, 0.06, 0.06};
    bd.position = (gr_vec3){0, 0.06, 0};
    CHECK_OK(w, gr_add_body(w, &bd, NULL));
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-0.05, 0.0, -0.05};
    fd.max = (gr_vec3){0.05, 0.06, 0.05};
    fd.radius = 0.004;
    fd.spacing = 0.0083;
    CHECK_OK(w, gr_fill_box(w, &fd, NULL, NULL, 0));
    /* a dynamic box resting in it (the coupling's arrays grow to its faces) */
    gr_body_def db;
    gr_body_def_init(&db);
    db.shape = GR_SHAPE_BOX;
    db.motion = GR_MOTION_DYNAMIC;
    db.half_extents = (gr_vec3){0.02, 0.02, 0.02};
    db.mass = 0.5 * 1500 * 0.04 * 0.04 * 0.04;
    db.position = (gr_vec3){0, 0.055, 0};
    CHECK_OK(w, gr_add_body(w, &db, NULL));
    /* (in frames: particles split and merge at the end of each gr_step, until the pile's
     * particles settle too) */
    for (int i = 0; i < 30; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const long long before = a.calls;
    for (int i = 0; i < 20; i++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    printf("  %lld allocations in 20 steps of a settled box with a dynamic box in it\n", a.calls - before);
    CHECK(a.calls == before);
    gr_world_destroy(w);
    CHECK(a.live == 0);
}

static void test_null_unchanged_setters_change_nothing(void)
{
    uint64_t ref, h;
    setter_run(GR_SOLVER_NULL_TEST, GR_INTEGRATOR_DEFAULT, SETTER_NONE, &ref);
    for (int setter = SETTER_GRAVITY; setter <= SETTER_ALL; setter++) {
        setter_run(GR_SOLVER_NULL_TEST, GR_INTEGRATOR_DEFAULT, setter, &h);
        CHECK(h == ref);
    }
}
#endif

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
#ifdef GR_TEST_NULL_SOLVER
        {"null_out_of_memory_at_every_allocation", test_null_out_of_memory_at_every_allocation},
        {"null_step_allocates_nothing", test_null_step_allocates_nothing},
        {"null_blowups_stopped", test_null_blowups_stopped},
        {"null_unchanged_setters_change_nothing", test_null_unchanged_setters_change_nothing},
        {"continuum_out_of_memory_at_every_allocation", test_continuum_out_of_memory_at_every_allocation},
        {"continuum_steady_state_allocates_nothing", test_continuum_steady_state_allocates_nothing},
#endif
        {"out_of_memory_at_every_allocation", test_out_of_memory_at_every_allocation},
        {"out_of_memory_at_every_allocation_pbd", test_out_of_memory_at_every_allocation_pbd},
        {"out_of_memory_persistent", test_out_of_memory_persistent},
        {"steady_state_step_allocates_nothing", test_steady_state_step_allocates_nothing},
        {"determinism_across_workers", test_determinism_across_workers},
        {"continuum_determinism_across_workers", test_continuum_determinism_across_workers},
        {"instability_detected", test_instability_detected},
        {"blowups_stopped_all_solvers", test_blowups_stopped_all_solvers},
        {"unchanged_setters_change_nothing", test_unchanged_setters_change_nothing},
        {"step_work_is_bounded", test_step_work_is_bounded},
        {"failing_step_changes_nothing_dem", test_failing_step_changes_nothing_dem},
        {"failing_step_changes_nothing_dem_host", test_failing_step_changes_nothing_dem_host},
        {"failing_step_changes_nothing_rkf45", test_failing_step_changes_nothing_rkf45},
        {"failing_step_changes_nothing_pbd", test_failing_step_changes_nothing_pbd},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
