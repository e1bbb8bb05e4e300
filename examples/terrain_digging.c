/* SPDX-License-Identifier: MIT */
/* terrain_digging: a kinematic blade (60 cm wide) drags through a sand terrain 5 cm deep
 * beside a DEM system (docs/terrain.md "Hybrid"). What it displaces becomes DEM grains,
 * which it pushes before it; lifted out, it leaves them to pour off, settle and go back into
 * the columns. The terrain checks its volume invariant (columns x packing + grains) after
 * every step (debug_volume: a drift fails the step). Writes terrain_digging.png: the trench
 * and the grains. */
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
    const uint32_t NX = args.smoke ? 40 : 64, NZ = 32;
    const double d = 0.04, H = 0.2, depth = 0.05, width = args.smoke ? 0.3 : 0.6;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = NX, td.columns_z = NZ;
    td.spacing = d;
    td.height = H;
    td.tile_size = 16;
    td.material = sand;
    td.grain_radius = 0.015;
    td.debug_volume = 1;
    uint32_t terrain;
    ex_ok(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &terrain), "gr_world_add_system (terrain)");
    const double zc = 0.5 * (NZ - 1) * d;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.material = sand;
    bd.half_extents = (gr_vec3){0.015, 0.15, 0.5 * width};
    bd.position = (gr_vec3){0.3, H + 0.15 - depth, zc};
    bd.linear_velocity = (gr_vec3){0.5, 0, 0};
    gr_body blade;
    ex_ok(w, gr_add_body(w, &bd, &blade), "gr_add_body (blade)");
    const double x_end = (NX - 1) * d - 1.0; /* its pile stays on the field */
    const double t0 = ex_now();
    uint32_t peak = 0;
    double force_sum = 0;
    int force_n = 0, frames = 0;
    gr_vec3 at;
    for (;; frames++) {
        gr_body_get_pose(w, blade, &at, NULL);
        if (at.x >= x_end)
            break;
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step (digging)");
        const uint32_t n = gr_world_get_grain_count(w);
        peak = n > peak ? n : peak;
        gr_vec3 f;
        gr_body_get_force(w, blade, &f, NULL);
        if (at.x > 0.8)
            force_sum += f.x, force_n++;
    }
    const uint32_t dug_frames = (uint32_t)frames;
    /* out of the sand; the grains pour off and settle */
    ex_ok(w, gr_body_set_velocity(w, blade, (gr_vec3){0, 1.0, 0}, (gr_vec3){0, 0, 0}), "gr_body_set_velocity");
    for (int f = 0; f < 30; f++)
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step (lifting)");
    ex_ok(w, gr_remove_body(w, blade), "gr_remove_body");
    const int settle = args.smoke ? 120 : 900;
    for (int f = 0; f < settle && gr_world_get_grain_count(w) > 0; f++)
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step (settling)");
    const double wall = ex_now() - t0;
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, terrain, &info);
    float *h = (float *)malloc(sizeof(float) * NX * NZ);
    gr_terrain_read_heights(w, terrain, 0, 0, NX, NZ, h);
    double trench = 0, rim = 0;
    int n = 0;
    for (uint32_t i = (uint32_t)(0.8 / d); i < (uint32_t)((x_end - 0.2) / d); i++, n++) {
        trench += H - h[(uint32_t)lround(zc / d) * NX + i];
        for (uint32_t k = 0; k < NZ; k++)
            rim = h[k * NX + i] - H > rim ? h[k * NX + i] - H : rim;
    }
    trench /= n ? n : 1;
    free(h);
    const uint32_t left = gr_world_get_grain_count(w);
    printf("%u x %u columns of %.0f cm; blade %.0f cm wide, %.0f cm deep, %u frames digging; %.1f s wall\n", NX, NZ,
           100 * d, 100 * width, 100 * depth, dug_frames, wall);
    printf("released %llu grains (peak %u at once), absorbed %llu, %u left; trench %.1f mm, rim %.1f mm; "
           "mean blade force %.1f N\n",
           (unsigned long long)info.grains_released, peak, (unsigned long long)info.grains_absorbed, left,
           1e3 * trench, 1e3 * rim, force_n ? force_sum / force_n : 0.0);
    ex_check(info.grains_released > (args.smoke ? 50u : 300u), "the blade's dig became grains (%llu)",
             (unsigned long long)info.grains_released);
    ex_check(info.grains_absorbed >= info.grains_released * 8 / 10, "most went back into the terrain (%llu of %llu)",
             (unsigned long long)info.grains_absorbed, (unsigned long long)info.grains_released);
    ex_check(info.grains_absorbed + left == info.grains_released, "every grain is a grain or a column again");
    ex_check(trench > 0.5 * depth, "a trench along the path (%.1f mm of %.0f)", 1e3 * trench, 1e3 * depth);
    ex_check(force_n > 0 && force_sum / force_n < 0, "the sand resists the blade (%.1f N along its motion)",
             force_n ? force_sum / force_n : 0.0);
    ex_check(ex_terrain_png(w, terrain, &args, "terrain_digging.png", 8, H) == 0, "wrote terrain_digging.png");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
