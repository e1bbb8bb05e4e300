/* SPDX-License-Identifier: MIT */
/* The terrain (docs/terrain.md; Sumner, O'Brien, Hodgins 1999): its API's checks, erosion
 * (volume, stop angle, symmetry, order and tile independence, the poured cone), bodies
 * pressing into it (footprints in sand, mud and snow, no burial, a carried box), the hybrid
 * with the DEM and PBD (absorption, release, the volume invariant), snapshots and worker
 * counts. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define DEG (3.14159265358979323846 / 180.0)

/* A world of the given particle solver with a terrain beside it; *sys the terrain's index. */
static gr_status terrain_world(gr_world **w, gr_solver_kind solver, unsigned workers, const gr_terrain_def *td,
                               uint32_t *sys)
{
    gr_world_def def;
    gr_world_def_init(&def, solver);
    def.worker_count = workers;
    gr_status s = gr_world_create(&def, w);
    if (s != GR_OK)
        return s;
    s = gr_world_add_system(*w, GR_SOLVER_TERRAIN, td, sys);
    if (s != GR_OK) {
        gr_world_destroy(*w);
        *w = NULL;
    }
    return s;
}

static double *heights(gr_world *w, uint32_t sys, uint32_t *nx, uint32_t *nz)
{
    gr_terrain_info info = {.size = sizeof info};
    if (gr_terrain_get_info(w, sys, &info) != GR_OK)
        return NULL;
    *nx = info.columns_x, *nz = info.columns_z;
    float *f = malloc(sizeof(float) * info.columns_x * info.columns_z);
    double *h = malloc(sizeof(double) * info.columns_x * info.columns_z);
    gr_terrain_read_heights(w, sys, 0, 0, info.columns_x, info.columns_z, f);
    for (size_t k = 0; k < (size_t)info.columns_x * info.columns_z; k++)
        h[k] = f[k];
    free(f);
    return h;
}

static double volume(gr_world *w, uint32_t sys)
{
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, sys, &info);
    return info.volume;
}

/* The steepest slope [deg] between 8-neighbours over the field. */
static double steepest(gr_world *w, uint32_t sys, double d)
{
    uint32_t nx, nz;
    double *h = heights(w, sys, &nx, &nz), m = 0;
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t i = 0; i < nx; i++)
            for (int dk = -1; dk <= 1; dk++)
                for (int di = -1; di <= 1; di++) {
                    const int a = (int)i + di, b = (int)k + dk;
                    if ((di || dk) && a >= 0 && b >= 0 && a < (int)nx && b < (int)nz) {
                        const double L = d * sqrt((double)(di * di + dk * dk));
                        const double s = atan((h[k * nx + i] - h[(size_t)b * nx + a]) / L) / DEG;
                        m = s > m ? s : m;
                    }
                }
    free(h);
    return m;
}

static void test_terrain_refusals(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    /* bad defs: refused, the world unchanged */
    gr_terrain_def bad = td;
    bad.columns_x = 1;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_add_system(w, GR_SOLVER_TERRAIN, &bad, NULL));
    bad = td, bad.spacing = NAN;
    CHECK(gr_world_add_system(w, GR_SOLVER_TERRAIN, &bad, NULL) != GR_OK);
    bad = td, bad.stop_angle = 40, bad.start_angle = 30;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_add_system(w, GR_SOLVER_TERRAIN, &bad, NULL));
    bad = td, bad.grain_radius = td.spacing;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_add_system(w, GR_SOLVER_TERRAIN, &bad, NULL));
    bad = td, bad.material.id = 12345;
    CHECK(gr_world_add_system(w, GR_SOLVER_TERRAIN, &bad, NULL) != GR_OK);
    CHECK(gr_world_get_system_count(w) == 1);
    gr_body list[4];
    CHECK(gr_world_get_bodies(w, list, 4) == 0);
    /* a good one: the system and its surface body */
    uint32_t sys = 0;
    CHECK_OK(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &sys));
    CHECK(sys == 1 && gr_world_get_system_count(w) == 2);
    gr_body tb;
    CHECK_OK(w, gr_terrain_get_body(w, sys, &tb));
    CHECK(gr_world_get_bodies(w, list, 4) == 1 && list[0].id == tb.id);
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_remove_body(w, tb));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_pose(w, tb, (gr_vec3){1, 0, 0}, (gr_quat){0, 0, 0, 1}));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_HEIGHTFIELD;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_body(w, &bd, NULL));
    /* not a terrain, not a rectangle, not a height */
    gr_terrain_info info = {.size = sizeof info};
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_terrain_get_info(w, 0, &info));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_terrain_get_info(w, 7, &info));
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    CHECK(info.columns_x == 64 && info.tiles_x == 1 && info.packing == 0.6);
    CHECK_NEAR(info.volume, 64 * 64 * 0.1 * 0.04 * 0.04, 1e-12);
    float hs[4] = {0.2f, 0.3f, -1.0f, 0.4f};
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_terrain_set_heights(w, sys, 63, 0, 2, 1, hs));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_terrain_set_heights(w, sys, 0, 0, 2, 2, hs)); /* -1 */
    hs[2] = NAN;
    CHECK_STATUS(GR_ERROR_NOT_FINITE, gr_terrain_set_heights(w, sys, 0, 0, 2, 2, hs));
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_terrain_set_heights(w, sys, 0, 0, 2, 2, NULL));
    float back[4];
    CHECK_OK(w, gr_terrain_read_heights(w, sys, 0, 0, 2, 2, back));
    CHECK(back[0] == 0.1f && back[1] == 0.1f && back[2] == 0.1f && back[3] == 0.1f); /* unchanged */
    /* changes: the whole tile once, then nothing, then what was set */
    gr_terrain_rect r;
    CHECK_OK(w, gr_terrain_take_changes(w, sys, 0, &r));
    CHECK(r.x0 == 0 && r.z0 == 0 && r.x1 == 64 && r.z1 == 64);
    CHECK_OK(w, gr_terrain_take_changes(w, sys, 0, &r));
    CHECK(r.x1 == 0 && r.z1 == 0);
    hs[2] = 0.25f;
    CHECK_OK(w, gr_terrain_set_heights(w, sys, 10, 20, 2, 2, hs));
    CHECK_OK(w, gr_terrain_take_changes(w, sys, 0, &r));
    CHECK(r.x0 == 10 && r.z0 == 20 && r.x1 == 12 && r.z1 == 22);
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_terrain_take_changes(w, sys, 1, &r));
    /* a terrain is never a world's own solver, and a second terrain... is a second system */
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_TERRAIN);
    gr_world *w2 = NULL;
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_world_create(&wd, &w2));
    /* presets */
    CHECK_OK(NULL, gr_terrain_def_preset(&td, GR_TERRAIN_SNOW));
    CHECK(td.compression == 0.7 && td.stop_angle == 45);
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_terrain_def_preset(&td, (gr_terrain_preset)7));
    gr_world_destroy(w);
}

/* A heightfield-only terrain with a spike at its centre, eroded to rest. */
static gr_status spike_world(gr_world **w, uint32_t *sys, unsigned workers, uint32_t tile, uint32_t n)
{
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = n;
    td.tile_size = tile;
    td.hybrid = 0;
    td.stop_angle = 30, td.start_angle = 34;
    td.erosion_sweeps = 50;
    gr_status s = terrain_world(w, GR_SOLVER_DEM, workers, &td, sys);
    if (s != GR_OK)
        return s;
    const float spike = 1.0f;
    return gr_terrain_set_heights(*w, *sys, n / 2, n / 2, 1, 1, &spike);
}

static void run_erosion(gr_world *w, int frames)
{
    for (int f = 0; f < frames; f++)
        gr_step(w, 1.0 / 60.0);
}

static void test_terrain_erosion_volume_and_stop(void)
{
    gr_world *w;
    uint32_t sys;
    CHECK_OK(NULL, spike_world(&w, &sys, 1, 16, 65));
    const double v0 = volume(w, sys);
    run_erosion(w, 400);
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    const double v1 = volume(w, sys), s = steepest(w, sys, 0.04);
    printf("  volume %.15g -> %.15g (rel %.2e), steepest %.3f deg (stop 30), active blocks %u\n", v0, v1,
           (v1 - v0) / v0, s, info.active_blocks);
    CHECK_NEAR(v1, v0, 1e-12 * v0);
    CHECK(s <= 30.0 + 0.01);
    CHECK(s > 25.0); /* it stands at the stop angle, not flattened */
    CHECK(info.active_blocks == 0); /* asleep */
    gr_world_destroy(w);
}

static void test_terrain_erosion_symmetric_and_order_free(void)
{
    /* one worker and tiles of 16 against two workers and tiles of 4: the same bits */
    gr_world *a, *b;
    uint32_t sa, sb;
    CHECK_OK(NULL, spike_world(&a, &sa, 1, 16, 33));
    CHECK_OK(NULL, spike_world(&b, &sb, 2, 4, 33));
    run_erosion(a, 60);
    run_erosion(b, 60);
    uint32_t nx, nz;
    double *ha = heights(a, sa, &nx, &nz), *hb = heights(b, sb, &nx, &nz);
    CHECK(memcmp(ha, hb, sizeof(double) * nx * nz) == 0);
    /* the grid's 8-fold symmetry about the spike */
    double worst = 0;
    const int c = 16;
    for (int k = 0; k < (int)nz; k++)
        for (int i = 0; i < (int)nx; i++) {
            const double v = ha[k * nx + i];
            const int mi = 2 * c - i, mk = 2 * c - k;
            const double mirrored[3] = {ha[k * nx + mi], ha[mk * nx + i], ha[i * nx + k]};
            for (int m = 0; m < 3; m++)
                worst = fabs(v - mirrored[m]) > worst ? fabs(v - mirrored[m]) : worst;
        }
    printf("  largest asymmetry %.3g m (spike 1 m)\n", worst);
    CHECK(worst < 1e-6);
    CHECK(ha[c * nx + c] < 0.9 && ha[c * nx + c] > 0.1);
    free(ha);
    free(hb);
    gr_world_destroy(a);
    gr_world_destroy(b);
}

static void test_terrain_poured_cone(void)
{
    gr_world *w;
    uint32_t sys;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = 81;
    td.height = 0;
    td.hybrid = 0;
    td.tile_size = 16;
    td.stop_angle = 32, td.start_angle = 35;
    td.erosion_sweeps = 20;
    CHECK_OK(NULL, terrain_world(&w, GR_SOLVER_DEM, 1, &td, &sys));
    /* pour: a little sand onto the centre column every frame */
    for (int f = 0; f < 1500; f++) {
        float h;
        gr_terrain_read_heights(w, sys, 40, 40, 1, 1, &h);
        h += 0.004f;
        gr_terrain_set_heights(w, sys, 40, 40, 1, 1, &h);
        gr_step(w, 1.0 / 60.0);
    }
    run_erosion(w, 200);
    uint32_t nx, nz;
    double *h = heights(w, sys, &nx, &nz);
    /* the flank along the axes: a line fit of height over distance where the cone stands */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    const double top = h[40 * nx + 40];
    for (int dir = 0; dir < 4; dir++)
        for (int r = 2; r < 40; r++) {
            const int i = 40 + (dir == 0 ? r : dir == 1 ? -r : 0), k = 40 + (dir == 2 ? r : dir == 3 ? -r : 0);
            const double y = h[k * nx + i];
            if (y < 0.15 * top || y > 0.85 * top)
                continue;
            const double x = r * 0.04;
            sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
        }
    const double slope = -(n * sxy - sx * sy) / (n * sxx - sx * sx);
    const double angle = atan(slope) / DEG;
    printf("  cone top %.3f m, flank %.2f deg over %d columns (stop 32)\n", top, angle, n);
    CHECK(n >= 12);
    CHECK_NEAR(angle, 32.0, 1.5);
    free(h);
    gr_world_destroy(w);
}

/* A box pressed into a heightfield-only terrain of 1 cm columns and pulled out again: the
 * print of one material. */
typedef struct print_result {
    double depth;      ///< below the surface at the print's centre [m]
    double rim;        ///< highest point above the surface [m]
    double lost;       ///< bulk volume compacted [m^3]
    double displaced;  ///< the box's swept volume below the surface [m^3]
    double v0, v1;     ///< volume before, after
} print_result;

static void footprint(gr_terrain_preset preset, print_result *out)
{
    memset(out, 0, sizeof *out);
    gr_world *w;
    uint32_t sys;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    CHECK_OK(NULL, gr_terrain_def_preset(&td, preset));
    td.columns_x = td.columns_z = 64;
    td.spacing = 0.01;
    td.origin = (gr_vec3){-0.315, 0, -0.315};
    td.height = 0.1;
    td.hybrid = 0;
    td.tile_size = 16;
    td.erosion_sweeps = 20;
    CHECK_OK(NULL, terrain_world(&w, GR_SOLVER_DEM, 1, &td, &sys));
    out->v0 = volume(w, sys);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.05, 0.05, 0.13};
    bd.position = (gr_vec3){0.0, 0.1 + 0.05, 0.0};
    bd.linear_velocity = (gr_vec3){0, -0.05, 0};
    gr_body foot;
    CHECK_OK(w, gr_add_body(w, &bd, &foot));
    for (int f = 0; f < 36; f++) /* 0.6 s down: 3 cm */
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
    CHECK_OK(w, gr_body_set_velocity(w, foot, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 0}));
    for (int f = 0; f < 30; f++)
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
    gr_vec3 pos;
    CHECK_OK(w, gr_body_get_pose(w, foot, &pos, NULL));
    CHECK_OK(w, gr_body_set_pose(w, foot, (gr_vec3){0, 5, 0}, (gr_quat){0, 0, 0, 1})); /* lifted away */
    for (int f = 0; f < 120; f++)
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
    uint32_t nx, nz;
    double *h = heights(w, sys, &nx, &nz);
    out->depth = 0.1 - h[31 * nx + 31];
    for (size_t k = 0; k < (size_t)nx * nz; k++)
        out->rim = h[k] - 0.1 > out->rim ? h[k] - 0.1 : out->rim;
    free(h);
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    out->lost = info.compressed_volume;
    out->v1 = info.volume;
    out->displaced = (0.1 - (pos.y - 0.05)) * 0.10 * 0.26;
    gr_world_destroy(w);
}

static void test_terrain_footprints(void)
{
    print_result sand, mud, snow;
    footprint(GR_TERRAIN_SAND, &sand);
    footprint(GR_TERRAIN_MUD, &mud);
    footprint(GR_TERRAIN_SNOW, &snow);
    const print_result *r[3] = {&sand, &mud, &snow};
    const char *name[3] = {"sand", "mud", "snow"};
    for (int k = 0; k < 3; k++)
        printf("  %-4s: print %.1f mm deep, rim %.1f mm, displaced %.3g m^3, compacted %.3g m^3, volume %.6g -> %.6g\n",
               name[k], 1e3 * r[k]->depth, 1e3 * r[k]->rim, r[k]->displaced, r[k]->lost, r[k]->v0, r[k]->v1);
    /* sand and mud keep their volume; snow loses alpha of what the foot pressed */
    CHECK_NEAR(sand.v1, sand.v0, 1e-12 * sand.v0);
    CHECK_NEAR(mud.v1, mud.v0, 1e-12 * mud.v0);
    CHECK_NEAR(snow.v0 - snow.v1, snow.lost, 1e-12 * snow.v0);
    CHECK_NEAR(snow.lost, 0.7 * snow.displaced, 0.02 * snow.displaced);
    /* three prints: snow keeps its sharp print and a low rim; sand slumps into a print of the
     * sand's angle with a rim; mud flows back nearly level */
    CHECK(snow.depth > 0.027 && sand.depth > 0.010 && mud.depth < sand.depth);
    CHECK(sand.rim > snow.rim && sand.rim > 0.002);
    CHECK(mud.rim < sand.rim);
}

/* Columns under a body never gain sand while the body is there, though a mound beside it
 * erodes towards it. */
static void test_terrain_no_burial(void)
{
    gr_world *w;
    uint32_t sys;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = 48;
    td.spacing = 0.02;
    td.height = 0.1;
    td.hybrid = 0;
    td.tile_size = 16;
    td.stop_angle = 30, td.start_angle = 33;
    CHECK_OK(NULL, terrain_world(&w, GR_SOLVER_DEM, 1, &td, &sys));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.1, 0.1, 0.1};
    bd.position = (gr_vec3){0.47, 0.1 + 0.1 - 0.03, 0.47}; /* 3 cm into the sand */
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &bd, &box));
    CHECK_OK(w, gr_step(w, 1.0 / 60.0));
    /* a mound right beside the box */
    float mound[16];
    for (int k = 0; k < 16; k++)
        mound[k] = 0.4f;
    CHECK_OK(w, gr_terrain_set_heights(w, sys, 30, 20, 4, 4, mound));
    uint32_t nx, nz;
    double *h0 = heights(w, sys, &nx, &nz);
    double gained = 0;
    for (int f = 0; f < 240; f++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
        double *h = heights(w, sys, &nx, &nz);
        for (uint32_t k = 0; k < nz; k++)
            for (uint32_t i = 0; i < nx; i++) {
                const double x = i * 0.02, z = k * 0.02;
                if (fabs(x - 0.47) < 0.1 - 0.011 && fabs(z - 0.47) < 0.1 - 0.011) /* under the box */
                    gained = h[k * nx + i] - h0[k * nx + i] > gained ? h[k * nx + i] - h0[k * nx + i] : gained;
            }
        free(h);
    }
    double *h = heights(w, sys, &nx, &nz);
    const double mound_top = h[21 * nx + 31];
    printf("  under the box: most gained %.3g m; the mound went from 0.4 to %.3f m\n", gained, mound_top);
    CHECK(gained <= 0);
    CHECK(mound_top < 0.3); /* it did erode */
    free(h);
    free(h0);
    gr_world_destroy(w);
}

/* A dynamic box dropped on the terrain comes to rest on it, pressed in by its elastic depth
 * (its weight is below the bearing pressure); a heavier one sinks until the base holds it. */
static void drop_box(double density, double bearing, double gradient, double *sink, double *speed)
{
    *sink = NAN, *speed = NAN;
    gr_world *w;
    uint32_t sys;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = 32;
    td.spacing = 0.04;
    td.height = 0.1;
    td.hybrid = 0;
    td.bearing_pressure = bearing;
    td.bearing_gradient = gradient;
    CHECK_OK(NULL, terrain_world(&w, GR_SOLVER_DEM, 1, &td, &sys));
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = density;
    gr_material m;
    CHECK_OK(w, gr_add_material(w, &md, &m));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.material = m;
    bd.half_extents = (gr_vec3){0.1, 0.1, 0.1};
    bd.position = (gr_vec3){0.62, 0.1 + 0.1 + 0.05, 0.62};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &bd, &box));
    for (int f = 0; f < 120; f++)
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
    gr_vec3 p, v, f;
    CHECK_OK(w, gr_body_get_pose(w, box, &p, NULL));
    CHECK_OK(w, gr_body_get_velocity(w, box, &v, NULL));
    CHECK_OK(w, gr_body_get_force(w, box, &f, NULL));
    double mass;
    CHECK_OK(w, gr_body_get_mass(w, box, &mass));
    *sink = 0.1 - (p.y - 0.1);
    *speed = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    /* the force the world reports is the terrain's push, once: the weight */
    CHECK_NEAR(f.y, mass * 9.81, 0.02 * mass * 9.81);
    gr_world_destroy(w);
}

static void test_terrain_dynamic_box_carried(void)
{
    double sink, speed;
    drop_box(2000, 40e3, 2.5e5, &sink, &speed); /* 3.9 kPa on 40 kPa sand */
    printf("  light box: sank %.2f mm, speed %.2g m/s (elastic depth 10 mm x 3.9 / 40)\n", 1e3 * sink, speed);
    CHECK(speed < 0.01);
    CHECK(sink > 0 && sink < 0.004);
    drop_box(2000, 1e3, 1e5, &sink, &speed); /* 3.9 kPa on 1 kPa + 100 kPa/m: sinks until its depth bears it */
    printf("  heavy box, soft ground: sank %.1f mm, speed %.2g m/s ((3.9 - 1) / 100 kPa/m = 29 mm below its rim)\n",
           1e3 * sink, speed);
    CHECK(speed < 0.02);
    CHECK(sink > 0.01 && sink < 0.06);
    drop_box(2000, 1e3, 0, &sink, &speed); /* no depth term: through to the base, which holds it */
    printf("  heavy box, no depth term: sank %.1f mm into 100 mm, speed %.2g m/s\n", 1e3 * sink, speed);
    CHECK(speed < 0.02);
    CHECK(sink > 0.09 && sink < 0.14);
}

static uint32_t grain_count(gr_world *w)
{
    gr_counters c = {.size = sizeof c};
    gr_world_get_counters(w, &c);
    return c.grain_count;
}

/* A world of the solver with the dry-sand preset as a material in *sand. */
static gr_status sand_world(gr_world **w, gr_solver_kind solver, unsigned workers, gr_material *sand)
{
    gr_world_def def;
    gr_world_def_init(&def, solver);
    def.worker_count = workers;
    gr_status s = gr_world_create(&def, w);
    if (s != GR_OK)
        return s;
    gr_material_def md;
    gr_material_def_init(&md);
    gr_material_def_set_preset(&md, GR_MATERIAL_PRESET_DRY_SAND);
    return gr_add_material(*w, &md, sand);
}

/* A hybrid terrain of the dry-sand preset (*sand_out) beside a DEM or PBD system, checking its
 * volume invariant every step. */
static gr_status hybrid_world(gr_world **w, gr_solver_kind solver, unsigned workers, uint32_t *sys, gr_material *sand_out)
{
    gr_status s = sand_world(w, solver, workers, sand_out);
    if (s != GR_OK)
        return s;
    const gr_material sand = *sand_out;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = 40, td.columns_z = 24;
    td.spacing = 0.04;
    td.height = 0.12;
    td.tile_size = 8;
    td.grain_radius = 0.015;
    td.debug_volume = 1;
    td.rest_steps = 20;
    td.material = sand;
    return gr_world_add_system(*w, GR_SOLVER_TERRAIN, &td, sys);
}

/* Grains poured onto the terrain settle and go into its columns; the invariant holds. */
static void pour_absorbed(gr_solver_kind solver)
{
    gr_world *w;
    uint32_t sys;
    gr_material sand;
    CHECK_OK(NULL, hybrid_world(&w, solver, 1, &sys, &sand));
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.material = sand;
    fd.min = (gr_vec3){0.5, 0.2, 0.3};
    fd.max = (gr_vec3){1.0, 0.4, 0.6};
    fd.radius = 0.015;
    uint32_t added = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &added, NULL, 0));
    const double v0 = volume(w, sys);
    for (int f = 0; f < 600 && grain_count(w) > 0; f++)
        CHECK_OK(w, gr_step(w, 1.0 / 60.0)); /* fails with GR_ERROR_INVARIANT on any drift */
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    const double grain_v = 4.0 / 3.0 * 3.14159265358979323846 * 0.015 * 0.015 * 0.015;
    printf("  %u grains poured: %u left as grains, %llu absorbed; columns gained %.4g m^3 (= %.4g grains' bulk)\n",
           added, grain_count(w), (unsigned long long)info.grains_absorbed, info.volume - v0,
           (info.volume - v0) * info.packing / grain_v);
    CHECK(info.grains_absorbed + grain_count(w) == added);
    CHECK(info.grains_absorbed > added * 9 / 10);
    CHECK_NEAR((info.volume - v0) * info.packing, info.grains_absorbed * grain_v, 1e-9);
    gr_world_destroy(w);
}

static void test_terrain_pour_absorbed_dem(void) { pour_absorbed(GR_SOLVER_DEM); }
static void test_terrain_pour_absorbed_pbd(void) { pour_absorbed(GR_SOLVER_PBD); }

/* A blade dragged through the sand: what it lifts becomes grains, which it pushes, which
 * pour off, settle and go back into the columns; the volume is kept all along. */
static void blade_dig(gr_solver_kind solver, unsigned workers, uint64_t *hash, uint32_t *peak_grains,
                      uint64_t *released, uint64_t *absorbed)
{
    gr_world *w;
    uint32_t sys;
    gr_material sand;
    CHECK_OK(NULL, hybrid_world(&w, solver, workers, &sys, &sand));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.01, 0.1, 0.2};
    bd.position = (gr_vec3){0.2, 0.12 + 0.1 - 0.04, 0.46}; /* 4 cm deep */
    bd.linear_velocity = (gr_vec3){0.4, 0, 0};
    gr_body blade;
    CHECK_OK(w, gr_add_body(w, &bd, &blade));
    *peak_grains = 0;
    for (int f = 0; f < 120; f++) {
        if (f == 60) /* out of the sand, and away */
            CHECK_OK(w, gr_body_set_velocity(w, blade, (gr_vec3){0, 1.0, 0}, (gr_vec3){0, 0, 0}));
        CHECK_OK(w, gr_step(w, 1.0 / 60.0));
        const uint32_t n = grain_count(w);
        *peak_grains = n > *peak_grains ? n : *peak_grains;
    }
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    *released = info.grains_released, *absorbed = info.grains_absorbed;
    uint32_t nx, nz;
    double *h = heights(w, sys, &nx, &nz);
    *hash = tu_fnv(tu_state_hash(w, NULL, 0), h, sizeof(double) * nx * nz);
    /* the trench: below the surface where the blade went, a rim beside it */
    const double trench = 0.12 - h[(uint32_t)(0.46 / 0.04) * nx + (uint32_t)(0.6 / 0.04)];
    printf("  %s: released %llu, absorbed %llu, peak %u grains, %u left; trench %.1f mm\n",
           solver == GR_SOLVER_DEM ? "DEM" : "PBD", (unsigned long long)info.grains_released,
           (unsigned long long)info.grains_absorbed, *peak_grains, grain_count(w), 1e3 * trench);
    CHECK(trench > 0.02);
    free(h);
    gr_world_destroy(w);
}

static void test_terrain_blade_digs(void)
{
    uint64_t h1, h2, r, a;
    uint32_t peak;
    blade_dig(GR_SOLVER_DEM, 1, &h1, &peak, &r, &a);
    CHECK(r > 50 && peak > 20 && a > 0);
    blade_dig(GR_SOLVER_DEM, 2, &h2, &peak, &r, &a);
    CHECK(h1 == h2); /* any worker count: the same bits */
    blade_dig(GR_SOLVER_PBD, 1, &h1, &peak, &r, &a);
    CHECK(r > 50 && peak > 20 && a > 0);
    blade_dig(GR_SOLVER_PBD, 2, &h2, &peak, &r, &a);
    CHECK(h1 == h2);
}

/* A dig of a blade in a hybrid world, for snapshots and out-of-memory runs. */
static gr_status dig_scene(gr_world **w, uint32_t *sys, gr_body *blade, const gr_allocator *al, uint32_t columns)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    if (al)
        def.allocator = *al;
    gr_status s = gr_world_create(&def, w);
    if (s != GR_OK)
        return s;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = columns, td.columns_z = columns / 2;
    td.spacing = 0.04;
    td.height = 0.12;
    td.tile_size = 8;
    td.grain_radius = 0.015;
    td.rest_steps = 5;
    td.debug_volume = 1;
    if ((s = gr_world_add_system(*w, GR_SOLVER_TERRAIN, &td, sys)) != GR_OK)
        return s;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.01, 0.1, 0.1};
    bd.position = (gr_vec3){0.1, 0.12 + 0.1 - 0.04, 0.02 * columns};
    bd.linear_velocity = (gr_vec3){0.5, 0, 0};
    return gr_add_body(*w, &bd, blade);
}

static uint64_t world_hash(gr_world *w, uint32_t sys)
{
    uint32_t nx, nz;
    double *h = heights(w, sys, &nx, &nz);
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, sys, &info);
    uint64_t x = tu_fnv(tu_state_hash(w, NULL, 0), h, sizeof(double) * nx * nz);
    x = tu_fnv(x, &info.grains_released, sizeof info.grains_released);
    x = tu_fnv(x, &info.grains_absorbed, sizeof info.grains_absorbed);
    free(h);
    return x;
}

static void test_terrain_snapshot_continues(void)
{
    gr_world *a;
    uint32_t sa;
    gr_body blade;
    CHECK_OK(NULL, dig_scene(&a, &sa, &blade, NULL, 24));
    for (int f = 0; f < 45; f++)
        CHECK_OK(a, gr_step(a, 1.0 / 60.0));
    tu_stream snap;
    tu_stream_init(&snap);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &snap));
    for (int f = 0; f < 30; f++)
        CHECK_OK(a, gr_step(a, 1.0 / 60.0));
    const uint64_t ha = world_hash(a, sa);
    /* a world of the same systems takes the snapshot and goes on bit for bit */
    gr_world *b;
    uint32_t sb;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    CHECK_OK(NULL, terrain_world(&b, GR_SOLVER_DEM, 2, &td, &sb));
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &snap));
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(b, gr_terrain_get_info(b, sb, &info));
    CHECK(info.columns_x == 24 && info.columns_z == 12);
    for (int f = 0; f < 30; f++)
        CHECK_OK(b, gr_step(b, 1.0 / 60.0));
    const uint64_t hb = world_hash(b, sb);
    printf("  released %llu, absorbed %llu; hashes %016llx %016llx\n", (unsigned long long)info.grains_released,
           (unsigned long long)info.grains_absorbed, (unsigned long long)ha, (unsigned long long)hb);
    CHECK(info.grains_released > 0);
    CHECK(ha == hb);
    /* a world without the terrain refuses it, unchanged */
    gr_world *c;
    CHECK_OK(NULL, tu_world(&c, 1, NULL));
    snap.pos = 0;
    CHECK(gr_world_load(c, tu_stream_read, &snap) != GR_OK);
    CHECK(gr_world_get_system_count(c) == 1);
    /* cut or flipped snapshots are refused, the world unchanged */
    const uint64_t hb0 = world_hash(b, sb);
    for (size_t cut = 40; cut < snap.size; cut += snap.size / 7) {
        tu_stream t;
        tu_stream_init(&t);
        tu_stream_write(&t, snap.data, cut);
        CHECK(gr_world_load(b, tu_stream_read, &t) != GR_OK);
        tu_stream_free(&t);
    }
    CHECK(world_hash(b, sb) == hb0);
    tu_stream_free(&snap);
    gr_world_destroy(a);
    gr_world_destroy(b);
    gr_world_destroy(c);
}

/* Bulk volume x packing + grain volume, the hybrid's invariant. */
static double held_volume(gr_world *w, uint32_t sys)
{
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, sys, &info);
    const double r = 0.015;
    return info.packing * (info.volume + info.compressed_volume) +
           gr_world_get_grain_count(w) * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
}

static int terrain_oom_scenario(tu_alloc *a, int *violations)
{
    const gr_allocator al = tu_allocator(a);
    gr_world *w = NULL;
    uint32_t sys = 0;
    gr_body blade;
    gr_status s = dig_scene(&w, &sys, &blade, &al, 12);
    int other = 0;
    if (s != GR_OK) {
        other += s != GR_ERROR_OUT_OF_MEMORY;
        if (w) {
            const uint32_t n = gr_world_get_system_count(w);
            gr_body list[4];
            const uint32_t nb = gr_world_get_bodies(w, list, 4);
            *violations += !(n == 2 || (n == 1 && nb == 0)); /* the terrain came whole or not at all */
            gr_world_destroy(w);
        }
        return other;
    }
    for (int f = 0; f < 12; f++) {
        const double v = held_volume(w, sys);
        s = gr_step(w, 1.0 / 60.0);
        other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
        *violations += fabs(held_volume(w, sys) - v) > 1e-9; /* nothing lost or doubled */
        if (fabs(held_volume(w, sys) - v) > 1e-9)
            fprintf(stderr, "  frame %d: %s, held volume %.12g -> %.12g\n", f, gr_status_string(s), v, held_volume(w, sys));
    }
    tu_stream st;
    tu_stream_init(&st);
    s = gr_world_save(w, tu_stream_write, &st);
    other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
    if (s == GR_OK) {
        const uint64_t h = world_hash(w, sys);
        s = gr_world_load(w, tu_stream_read, &st);
        other += s != GR_OK && s != GR_ERROR_OUT_OF_MEMORY;
        *violations += world_hash(w, sys) != h;
    }
    tu_stream_free(&st);
    gr_world_destroy(w);
    return other;
}

static void test_terrain_out_of_memory(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    int changed = 0;
    CHECK(terrain_oom_scenario(&a, &changed) == 0 && changed == 0 && a.failures == 0 && a.live == 0);
    const long long total = a.calls;
    int bad = 0;
    for (long long k = 0; k < total; k++) {
        tu_alloc_init(&a);
        a.fail_at = k;
        a.fail_once = 1;
        changed = 0;
        const int other = terrain_oom_scenario(&a, &changed);
        if (other || changed || a.live != 0 || a.live_bytes != 0) {
            fprintf(stderr, "  allocation %lld of %lld: errors %d, changed %d, leaked %lld blocks\n", k, total, other,
                    changed, a.live);
            bad++;
        }
    }
    printf("  %lld allocation sites exercised\n", total);
    CHECK(total > 30);
    CHECK(bad == 0);
}

/* A mesh presses as its analytic shape does: a box given as a closed mesh and as a box leave
 * the same print, and a kinematic sphere its round one (every body kind meets the columns
 * through its distance). */
static double *press_print(gr_shape_type shape, double *vol)
{
    gr_world *w;
    uint32_t sys;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = 32;
    td.spacing = 0.01;
    td.height = 0.1;
    td.hybrid = 0;
    td.erosion_sweeps = 0;
    if (terrain_world(&w, GR_SOLVER_DEM, 1, &td, &sys) != GR_OK)
        return NULL;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.motion = GR_MOTION_KINEMATIC;
    bd.shape = shape;
    gr_vec3 v[8];
    uint32_t idx[36];
    const gr_vec3 h = {0.05, 0.05, 0.08}, c = {0.155, 0.1 + 0.05 - 0.02, 0.155};
    if (shape == GR_SHAPE_MESH) {
        tu_box_mesh(h, (gr_vec3){0, 0, 0}, v, idx);
        bd.mesh_vertices = v, bd.mesh_indices = idx, bd.mesh_vertex_count = 8, bd.mesh_triangle_count = 12;
    } else if (shape == GR_SHAPE_SPHERE) {
        bd.radius = 0.05;
    } else {
        bd.half_extents = h;
    }
    bd.position = c;
    if (gr_add_body(w, &bd, NULL) != GR_OK || gr_step(w, 1.0 / 60.0) != GR_OK) {
        gr_world_destroy(w);
        return NULL;
    }
    uint32_t nx, nz;
    double *out = heights(w, sys, &nx, &nz);
    *vol = volume(w, sys);
    gr_world_destroy(w);
    return out;
}

static void test_terrain_every_shape_presses(void)
{
    double vb, vm, vs;
    double *box = press_print(GR_SHAPE_BOX, &vb), *mesh = press_print(GR_SHAPE_MESH, &vm);
    double *ball = press_print(GR_SHAPE_SPHERE, &vs);
    CHECK(box && mesh && ball);
    double worst = 0, ball_min = 1, box_min = 1;
    for (int k = 0; k < 32 * 32; k++) {
        worst = fabs(box[k] - mesh[k]) > worst ? fabs(box[k] - mesh[k]) : worst;
        ball_min = ball[k] < ball_min ? ball[k] : ball_min;
        box_min = box[k] < box_min ? box[k] : box_min;
    }
    printf("  box and mesh prints differ by %.2g m at most; box floor %.4f, ball's lowest %.4f (ball bottom 0.08)\n",
           worst, box_min, ball_min);
    CHECK(worst < 1e-4);
    CHECK_NEAR(box_min, 0.08, 1e-4);
    CHECK_NEAR(ball_min, 0.08, 2e-3); /* the ball's lowest point over the nearest column */
    CHECK_NEAR(vb, vm, 1e-9);
    CHECK_NEAR(vs, 32 * 32 * 0.1 * 1e-4, 1e-12); /* volume kept */
    free(box);
    free(mesh);
    free(ball);
}

/* Opt-in: a grain striking the surface faster than disturb_speed loosens a layer of the column
 * it strikes into grains (at rest), which settle and go back in; the invariant holds. */
static void test_terrain_strike_disturbs(void)
{
    gr_world *w;
    uint32_t sys;
    gr_material sand;
    CHECK_OK(NULL, sand_world(&w, GR_SOLVER_DEM, 1, &sand));
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = td.columns_z = 24;
    td.height = 0.1;
    td.grain_radius = 0.015;
    td.material = sand;
    td.disturb_speed = 1.0;
    td.debug_volume = 1;
    td.rest_steps = 10;
    CHECK_OK(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &sys));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.015;
    g.material = sand;
    g.position = (gr_vec3){0.46, 0.1 + 0.5, 0.46}; /* strikes at 3.1 m/s */
    CHECK_OK(w, gr_add_grain(w, &g, NULL));
    uint32_t peak = 0;
    for (int f = 0; f < 300; f++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60.0)); /* GR_ERROR_INVARIANT on any drift */
        peak = grain_count(w) > peak ? grain_count(w) : peak;
    }
    gr_terrain_info info = {.size = sizeof info};
    CHECK_OK(w, gr_terrain_get_info(w, sys, &info));
    printf("  one grain struck: %llu released, %llu absorbed, peak %u grains, %u left\n",
           (unsigned long long)info.grains_released, (unsigned long long)info.grains_absorbed, peak, grain_count(w));
    CHECK(info.grains_released >= 1 && peak >= 2);
    CHECK(1 + info.grains_released == info.grains_absorbed + grain_count(w));
    CHECK(grain_count(w) <= 2);
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"terrain_refusals", test_terrain_refusals},
        {"terrain_erosion_volume_and_stop", test_terrain_erosion_volume_and_stop},
        {"terrain_erosion_symmetric_and_order_free", test_terrain_erosion_symmetric_and_order_free},
        {"terrain_poured_cone", test_terrain_poured_cone},
        {"terrain_footprints", test_terrain_footprints},
        {"terrain_no_burial", test_terrain_no_burial},
        {"terrain_every_shape_presses", test_terrain_every_shape_presses},
        {"terrain_dynamic_box_carried", test_terrain_dynamic_box_carried},
        {"terrain_pour_absorbed_dem", test_terrain_pour_absorbed_dem},
        {"terrain_pour_absorbed_pbd", test_terrain_pour_absorbed_pbd},
        {"terrain_blade_digs", test_terrain_blade_digs},
        {"terrain_strike_disturbs", test_terrain_strike_disturbs},
        {"terrain_snapshot_continues", test_terrain_snapshot_continues},
        {"terrain_out_of_memory", test_terrain_out_of_memory},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
