/* SPDX-License-Identifier: MIT */
/* terrain_tracks: a kinematic wheel (a capsule of 30 cm radius lying across its path) rolls
 * 2 m across a sand heightfield, pressed 3 cm in, and leaves a rut with a rim on each side
 * (docs/terrain.md "Bodies"); the sand it displaces goes to the rims, more of it ahead of the
 * wheel (ploughing), and slumps to the sand's angle. The sand's volume is kept to round-off.
 * Writes terrain_tracks.png: the terrain from above. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/terrain_image.h"

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    gr_material sand;
    gr_world *w = ex_sand_world(&args, &sand);
    const uint32_t NX = 150, NZ = 60;
    const double d = 0.02, H = 0.2;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = NX, td.columns_z = NZ;
    td.spacing = d;
    td.height = H;
    td.hybrid = 0;
    td.tile_size = 16;
    td.material = sand;
    uint32_t terrain;
    ex_ok(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &terrain), "gr_world_add_system (terrain)");
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, terrain, &info);
    const double v0 = info.volume, zc = 0.5 * (NZ - 1) * d;

    const double R = 0.3, speed = 1.0, sink = 0.03;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CAPSULE;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.radius = R;
    bd.half_height = 0.08;
    bd.orientation = (gr_quat){0.70710678118654752, 0, 0, 0.70710678118654752}; /* its axis across the path (z) */
    bd.position = (gr_vec3){0.4, H + R - sink, zc};
    bd.linear_velocity = (gr_vec3){speed, 0, 0};
    bd.angular_velocity = (gr_vec3){0, 0, -speed / R}; /* rolling, not sliding */
    gr_body wheel;
    ex_ok(w, gr_add_body(w, &bd, &wheel), "gr_add_body (wheel)");
    const double t0 = ex_now();
    const int frames = 132; /* 2.2 s: to x = 2.6 */
    for (int f = 0; f < frames; f++)
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step");
    const double wall = ex_now() - t0;
    ex_ok(w, gr_remove_body(w, wheel), "gr_remove_body");
    for (int f = 0; f < 60; f++)
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step");
    gr_terrain_get_info(w, terrain, &info);
    float *h = (float *)malloc(sizeof(float) * NX * NZ);
    gr_terrain_read_heights(w, terrain, 0, 0, NX, NZ, h);
    /* the rut along the path (x 0.8 .. 2.2), and each side's rim */
    const uint32_t kc = (uint32_t)lround(zc / d);
    double rut = 0, rim_lo = 0, rim_hi = 0, untouched = 0;
    int n = 0;
    for (uint32_t i = (uint32_t)(0.8 / d); i <= (uint32_t)(2.2 / d); i++, n++) {
        rut += H - h[kc * NX + i];
        double lo = 0, hi = 0;
        for (uint32_t k = 0; k < NZ; k++) {
            const double e = h[k * NX + i] - H;
            if (k < kc - 8)
                lo = e > lo ? e : lo;
            if (k > kc + 8)
                hi = e > hi ? e : hi;
        }
        rim_lo += lo, rim_hi += hi;
    }
    rut /= n, rim_lo /= n, rim_hi /= n;
    for (uint32_t k = 0; k < NZ; k++) /* behind where the wheel started */
        untouched = fabs(h[k * NX + 2] - H) > untouched ? fabs(h[k * NX + 2] - H) : untouched;
    free(h);
    printf("%u x %u columns of %.0f cm; wheel rolled 2.2 m in %d frames, %.2f ms per frame\n", NX, NZ, 100 * d, frames,
           1e3 * wall / frames);
    printf("rut %.1f mm deep (pressed %.0f mm), rims %.1f and %.1f mm; volume %.9f -> %.9f m^3\n", 1e3 * rut,
           1e3 * sink, 1e3 * rim_lo, 1e3 * rim_hi, v0, info.volume);
    ex_check(rut > 0.015 && rut <= sink + 1e-3, "a rut along the path (%.1f mm)", 1e3 * rut);
    ex_check(rim_lo > 0.003 && rim_hi > 0.003, "a rim on each side (%.1f, %.1f mm)", 1e3 * rim_lo, 1e3 * rim_hi);
    ex_check(fabs(rim_lo - rim_hi) < 0.2 * (rim_lo + rim_hi), "the rims alike on both sides");
    ex_check(fabs(info.volume - v0) < 1e-12 * v0, "the sand's volume kept (%.3g m^3 off)", info.volume - v0);
    ex_check(untouched < 1e-6, "the sand behind the start untouched (heights read as floats)");
    ex_check(ex_terrain_png(w, terrain, &args, "terrain_tracks.png", 4, H) == 0, "wrote terrain_tracks.png");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
