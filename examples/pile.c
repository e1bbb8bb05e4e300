/* SPDX-License-Identifier: MIT */
/* pile: a block of sand released in an open box collapses and settles into a bed. Checks:
 * every grain stays in the box, the bed comes to rest, and the box carries the sand's weight. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "common/example_util.h"

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 2500;

    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_EPSD; /* spheres need rolling resistance to pile like sand */
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    /* anything that leaves the scene is removed rather than simulated falling forever */
    def.bounds_min = (gr_vec3){-0.5, -0.1, -0.5};
    def.bounds_max = (gr_vec3){0.5, 1.0, 0.5};
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");

    gr_material_def sand_def;
    gr_material_def_init(&sand_def);
    sand_def.youngs_modulus = 1e6; /* soft grains take a larger stable substep */
    sand_def.friction = 0.6;
    sand_def.rolling_friction = 0.1;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &sand_def, &sand), "gr_add_material");

    /* an open-topped box, 10 x 8 x 10 cm, floor at y = 0 */
    gr_body_def box_def;
    gr_body_def_init(&box_def);
    box_def.shape = GR_SHAPE_CONTAINER;
    box_def.open_faces = GR_FACE_POS_Y;
    box_def.half_extents = (gr_vec3){0.05, 0.04, 0.05};
    box_def.position = (gr_vec3){0, 0.04, 0};
    box_def.material = sand;
    gr_body box;
    ex_ok(w, gr_add_body(w, &box_def, &box), "gr_add_body");

    /* a tall block of grains in one half of the box: it will slump */
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.min = (gr_vec3){-0.05, 0.0, -0.05};
    fill.max = (gr_vec3){0.0, 0.12, 0.05};
    fill.radius = 0.0022;
    fill.radius_max = 0.0026;
    fill.material = sand;
    fill.max_count = grains;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");

    double t0 = ex_now();
    for (int frame = 0; frame < 90; frame++) /* 1.5 s */
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
    double wall = ex_now() - t0;
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    printf("%u grains, %.2f s simulated in %llu substeps of %.2e s: %.2f s wall (%.1fM grain-substeps/s)\n", added,
           c.time, (unsigned long long)c.substep_count, c.last_substep, wall, added * (double)c.substep_count / wall / 1e6);

    ex_stats s;
    ex_grain_stats(w, &s);
    gr_vec3 force;
    gr_body_get_force(w, box, &force, NULL);
    double mass = 0, m[1];
    for (uint32_t i = 0; i < added; i++) {
        gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, i, 1, m, 0);
        mass += m[0];
    }
    ex_check(added == grains && c.grains_removed == 0, "filled %u grains, none lost", added);
    ex_check(s.min[0] > -0.05 && s.max[0] < 0.05 && s.min[2] > -0.05 && s.max[2] < 0.05 && s.min[1] > 0,
             "all grains inside the box (x %.4f..%.4f, y from %.4f)", s.min[0], s.max[0], s.min[1]);
    ex_check(s.max_speed < 0.01, "the bed is at rest (max speed %.2e m/s)", s.max_speed);
    ex_check(s.mean[0] > -0.022, "the block slumped towards the empty half (mean x %.4f m)", s.mean[0]);
    ex_check(fabs(force.y + 9.81 * mass) < 0.02 * 9.81 * mass, "the box carries the weight: %.4f N of %.4f N",
             -force.y, 9.81 * mass);
    const float lo[3] = {-0.05f, 0.0f, -0.05f}, hi[3] = {0.05f, 0.08f, 0.05f};
    ex_check(ex_render_png(w, &args, "pile.png", lo, hi, NULL, NULL) == 0, "wrote pile.png");
    if (args.ply)
        ex_write_ply(w, &args, "pile.ply");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
