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
    printf("  volume %.15g -> %.15g (rel %.2e), steepest %.3f deg (stop 30), active tiles %u\n", v0, v1,
           (v1 - v0) / v0, s, info.active_tiles);
    CHECK_NEAR(v1, v0, 1e-12 * v0);
    CHECK(s <= 30.0 + 0.01);
    CHECK(s > 25.0); /* it stands at the stop angle, not flattened */
    CHECK(info.active_tiles == 0); /* asleep */
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

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"terrain_refusals", test_terrain_refusals},
        {"terrain_erosion_volume_and_stop", test_terrain_erosion_volume_and_stop},
        {"terrain_erosion_symmetric_and_order_free", test_terrain_erosion_symmetric_and_order_free},
        {"terrain_poured_cone", test_terrain_poured_cone},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
