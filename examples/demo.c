/* SPDX-License-Identifier: MIT */
/* demo: sand poured from a spout into an open box builds a conical pile. Writes a picture of
 * the pile (demo.png) and prints how long the simulation took. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    if (args.workers < 2)
        args.workers = 2;
    const unsigned target = args.grains ? args.grains : 15000;

    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_EPSD; /* rolling resistance: spheres heap like real sand */
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");

    gr_material_def sand_def;
    gr_material_def_init(&sand_def);
    sand_def.youngs_modulus = 1e6; /* soft grains: a larger stable step, same heap */
    sand_def.friction = 0.7;
    sand_def.rolling_friction = 0.25;
    sand_def.restitution = 0.3;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &sand_def, &sand), "gr_add_material");

    const double half = 0.12, wall = 0.08;
    gr_body_def box_def;
    gr_body_def_init(&box_def);
    box_def.shape = GR_SHAPE_CONTAINER;
    box_def.open_faces = GR_FACE_POS_Y;
    box_def.half_extents = (gr_vec3){half, wall / 2, half};
    box_def.position = (gr_vec3){0, wall / 2, 0};
    box_def.material = sand;
    ex_ok(w, gr_add_body(w, &box_def, NULL), "gr_add_body");

    /* the spout: each frame, a thin layer of grains appears above the box centre, moving down
     * (gently: from higher up, the grains' impacts flatten the heap) */
    gr_fill_def spout;
    gr_fill_def_init(&spout);
    spout.min = (gr_vec3){-0.025, 0.14, -0.025};
    spout.max = (gr_vec3){0.025, 0.155, 0.025};
    spout.radius = 0.0022;
    spout.radius_max = 0.0027;
    spout.velocity = (gr_vec3){0, -0.6, 0};
    spout.material = sand;

    const double frame = 1.0 / 60;
    double t0 = ex_now(), sim_time = 0;
    uint32_t total = 0;
    int frames = 0;
    while (total < target || frames < 30) {
        if (total < target) {
            spout.max_count = target - total;
            spout.seed = 1000 + (uint64_t)frames;
            uint32_t added = 0;
            ex_ok(w, gr_fill_box(w, &spout, &added, NULL, 0), "gr_fill_box");
            total += added;
        } else {
            frames++; /* settling frames after the last grain */
        }
        ex_ok(w, gr_step(w, frame), "gr_step");
        sim_time += frame;
        if (!args.quiet && ((int)(sim_time / frame) % 30) == 0)
            printf("t = %.2f s: %u grains\n", sim_time, total);
    }
    for (int k = 0; k < 60; k++) /* a last second to come to rest */
        ex_ok(w, gr_step(w, frame), "gr_step");
    double elapsed = ex_now() - t0;

    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    ex_stats s;
    ex_grain_stats(w, &s);
    /* heap shape: grains near the centre stand much higher than near the walls */
    uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    double centre_top = 0, edge_top = 0;
    for (uint32_t i = 0; i < n; i++) {
        double rr = sqrt(x[3 * i] * x[3 * i] + x[3 * i + 2] * x[3 * i + 2]);
        if (rr < 0.02 && x[3 * i + 1] > centre_top)
            centre_top = x[3 * i + 1];
        if (rr > 0.08 && rr < 0.10 && x[3 * i + 1] > edge_top)
            edge_top = x[3 * i + 1];
    }
    free(x);
    double slope = atan2(centre_top - edge_top, 0.08) * 180 / 3.14159265358979;
    printf("\n%u grains poured into a %.0f x %.0f cm box: %.2f s simulated in %llu substeps (%.1e s each)\n", n,
           200 * half, 200 * half, c.time, (unsigned long long)c.substep_count, c.last_substep);
    printf("simulation took %.2f s wall with %u workers (%llu neighbour rebuilds); %.0f bytes per grain; heap slope "
           "about %.0f degrees\n",
           elapsed, args.workers, (unsigned long long)c.neighbor_rebuilds, (double)c.bytes_in_use / n, slope);
    ex_check(n == target, "poured %u grains", n);
    ex_check(s.max_speed < 0.02, "the pile is at rest (max speed %.3f m/s)", s.max_speed);
    ex_check(s.min[1] > 0 && fabs(s.min[0]) < half && fabs(s.max[0]) < half && fabs(s.min[2]) < half && fabs(s.max[2]) < half,
             "all grains are in the box");
    ex_check(centre_top > edge_top + 0.02, "a heap formed: %.1f mm high at the centre, %.1f mm near the walls",
             1000 * centre_top, 1000 * edge_top);
    const float lo[3] = {(float)-half, 0.0f, (float)-half}, hi[3] = {(float)half, (float)wall, (float)half};
    ex_check(ex_render_png(w, &args, "demo.png", lo, hi, NULL, NULL) == 0, "wrote the picture");
    if (args.ply)
        ex_write_ply(w, &args, "demo.ply");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
