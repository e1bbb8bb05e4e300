/* SPDX-License-Identifier: MIT */
/* terrain_footprints: a foot-sized box (10 x 26 cm) pressed 3 cm into a heightfield terrain
 * of sand, of mud and of snow (gr_terrain_def_preset), held, and lifted out: three different
 * prints (docs/terrain.md). Sand leaves a print that slumps to its angle with a rim, mud flows
 * back nearly level, snow packs down (70 % of what the foot pressed is compacted) and keeps a
 * sharp print with a low rim. Sand and mud keep their volume to round-off. Writes
 * terrain_footprints.png: the three prints side by side. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/terrain_image.h"

typedef struct print {
    gr_world *world;
    uint32_t terrain;
    double depth, rim, v0, v1, compacted, pressed;
} print;

static void press_foot(const ex_args *args, gr_terrain_preset preset, print *p)
{
    gr_material sand;
    gr_world *w = p->world = ex_sand_world(args, &sand);
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    ex_ok(NULL, gr_terrain_def_preset(&td, preset), "gr_terrain_def_preset");
    td.columns_x = td.columns_z = 64;
    td.spacing = 0.01;
    td.origin = (gr_vec3){-0.315, 0, -0.315};
    td.height = 0.1;
    td.hybrid = 0; /* a heightfield alone: the print is the terrain's */
    td.tile_size = 16;
    td.erosion_sweeps = 20;
    td.material = sand;
    ex_ok(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &p->terrain), "gr_world_add_system (terrain)");
    gr_terrain_info info = {.size = sizeof info};
    gr_terrain_get_info(w, p->terrain, &info);
    p->v0 = info.volume;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.half_extents = (gr_vec3){0.05, 0.05, 0.13};
    bd.position = (gr_vec3){0, 0.1 + 0.05, 0};
    bd.linear_velocity = (gr_vec3){0, -0.05, 0};
    gr_body foot;
    ex_ok(w, gr_add_body(w, &bd, &foot), "gr_add_body (foot)");
    for (int f = 0; f < 36; f++) /* down 3 cm in 0.6 s */
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step");
    ex_ok(w, gr_body_set_velocity(w, foot, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 0}), "gr_body_set_velocity");
    for (int f = 0; f < 30; f++)
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step");
    gr_vec3 at;
    gr_body_get_pose(w, foot, &at, NULL);
    p->pressed = (0.1 - (at.y - 0.05)) * 0.10 * 0.26;
    ex_ok(w, gr_remove_body(w, foot), "gr_remove_body");
    for (int f = 0; f < 120; f++) /* the print settles */
        ex_ok(w, gr_step(w, 1.0 / 60.0), "gr_step");
    float *h = (float *)malloc(sizeof(float) * 64 * 64);
    gr_terrain_read_heights(w, p->terrain, 0, 0, 64, 64, h);
    p->depth = 0.1 - h[31 * 64 + 31];
    p->rim = 0;
    for (int k = 0; k < 64 * 64; k++)
        p->rim = h[k] - 0.1 > p->rim ? h[k] - 0.1 : p->rim;
    free(h);
    gr_terrain_get_info(w, p->terrain, &info);
    p->v1 = info.volume;
    p->compacted = info.compressed_volume;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    static const char *names[3] = {"sand", "mud", "snow"};
    static const gr_terrain_preset presets[3] = {GR_TERRAIN_SAND, GR_TERRAIN_MUD, GR_TERRAIN_SNOW};
    static const unsigned char tints[3][3] = {{226, 196, 140}, {140, 105, 75}, {235, 240, 248}};
    print p[3];
    for (int k = 0; k < 3; k++) {
        press_foot(&args, presets[k], &p[k]);
        printf("%-4s: print %.1f mm deep, rim %.1f mm; volume %.6f -> %.6f m^3, compacted %.6f of %.6f m^3 pressed\n",
               names[k], 1e3 * p[k].depth, 1e3 * p[k].rim, p[k].v0, p[k].v1, p[k].compacted, p[k].pressed);
    }
    ex_check(fabs(p[0].v1 - p[0].v0) < 1e-12 * p[0].v0, "sand keeps its volume (%.3g m^3 off)", p[0].v1 - p[0].v0);
    ex_check(fabs(p[1].v1 - p[1].v0) < 1e-12 * p[1].v0, "mud keeps its volume (%.3g m^3 off)", p[1].v1 - p[1].v0);
    ex_check(fabs(p[2].compacted - 0.7 * p[2].pressed) < 0.02 * p[2].pressed,
             "snow compacts 70 %% of what the foot pressed (%.1f %%)", 100 * p[2].compacted / p[2].pressed);
    ex_check(p[2].depth > 0.027, "snow keeps a sharp print (%.1f mm of 30)", 1e3 * p[2].depth);
    ex_check(p[0].depth > 0.01 && p[0].depth < p[2].depth, "sand slumps into a shallower print (%.1f mm)",
             1e3 * p[0].depth);
    ex_check(p[1].depth < p[0].depth && p[1].rim < p[0].rim, "mud flows back further (%.1f mm deep, rim %.1f mm)",
             1e3 * p[1].depth, 1e3 * p[1].rim);
    ex_check(p[0].rim > p[2].rim && p[0].rim > 0.002, "sand's rim stands highest (%.1f mm; snow %.1f mm)",
             1e3 * p[0].rim, 1e3 * p[2].rim);
    ex_canvas c;
    if (ex_canvas_init(&c, 3 * 64 * 4 + 2 * 8, 64 * 4) == 0) {
        for (int k = 0; k < 3; k++)
            ex_canvas_terrain(&c, p[k].world, p[k].terrain, k * (64 * 4 + 8), 0, 4, tints[k], 0.1, 0);
        ex_check(ex_canvas_save(&c, &args, "terrain_footprints.png") == 0, "wrote terrain_footprints.png");
        ex_canvas_free(&c);
    }
    for (int k = 0; k < 3; k++)
        gr_world_destroy(p[k].world);
    return ex_failures() ? 1 : 0;
}
