/* SPDX-License-Identifier: MIT */
/* hourglass: tetrahedral grains (4-sphere clumps, Bell 2005 Figure 4) drain through the neck
 * of an hourglass, a static triangle mesh covered with particles (Bell Figure 1). Checks: the
 * flow rate stays constant (within 10 %) over the middle half of the draining, as it does in
 * a real hourglass whatever the height of the grains above; every grain passes; the pile
 * below comes to rest. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/hourglass_mesh.h"

#define PI 3.14159265358979323846

/* the inner profile: bulbs of 3 cm radius, a neck of 1.25 cm, a wall 6 mm thick */
static const double bulb_r = 0.03, neck_r = 0.0125, bulb_h = 0.035, cone_h = 0.03, thick = 0.006;

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 1800;

    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    gr_material_def md;
    gr_material_def_init(&md);
    md.youngs_modulus = 1e6;
    md.friction = 0.4;
    md.restitution = 0.3;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &md, &sand), "gr_add_material");

    const hourglass_shape shape = {bulb_r, neck_r, bulb_h, cone_h, thick};
    gr_body glass;
    ex_ok(w, hourglass_add_body(w, &shape, sand, 0.002, &glass), "gr_add_body (hourglass)");
    gr_body_def fd;
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    fd.material = sand;
    ex_ok(w, gr_add_body(w, &fd, NULL), "gr_add_body (floor)");
    /* a plug in the neck while the upper bulb fills */
    const double neck_y = bulb_h + cone_h;
    gr_body_def pd;
    gr_body_def_init(&pd);
    pd.shape = GR_SHAPE_SPHERE;
    pd.radius = neck_r + 0.002;
    pd.position = (gr_vec3){0, neck_y + 0.004, 0};
    pd.material = sand;
    gr_body plug;
    ex_ok(w, gr_add_body(w, &pd, &plug), "gr_add_body (plug)");

    /* tetrahedral grains of 2.5 mm (enclosing radius) poured into the upper bulb from a column
     * inside its cylinder */
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.shape = GR_GRAIN_TETRAHEDRON;
    const double col = 0.6 * bulb_r; /* corners well inside the rim */
    fill.min = (gr_vec3){-col, neck_y + cone_h, -col};
    fill.max = (gr_vec3){col, neck_y + cone_h + 0.24, col};
    fill.radius = 0.0025;
    fill.radius_max = 0.0027;
    fill.material = sand;
    fill.max_count = grains;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");
    const double dt = 1.0 / 120, t0 = ex_now();
    for (int f = 0; f < 45; f++)
        ex_ok(w, gr_step(w, dt), "gr_step (filling)");
    double *x = (double *)malloc(sizeof(double) * 3 * added);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, added, x, 0);
    unsigned above = 0;
    for (uint32_t i = 0; i < added; i++)
        above += x[3 * i + 1] > neck_y;
    ex_check(above == added, "the upper bulb holds all %u grains behind the plug (%u)", added, above);

    /* pull the plug: count the grains below the neck every frame */
    ex_ok(w, gr_remove_body(w, plug), "gr_remove_body (plug)");
    enum { MAX_FRAMES = 600 };
    static double t_of[MAX_FRAMES];
    static unsigned below_of[MAX_FRAMES];
    int frames = 0, drained_at = -1;
    for (; frames < MAX_FRAMES; frames++) {
        ex_ok(w, gr_step(w, dt), "gr_step (draining)");
        gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, added, x, 0);
        unsigned below = 0;
        for (uint32_t i = 0; i < added; i++)
            below += x[3 * i + 1] < neck_y - 0.005;
        t_of[frames] = (frames + 1) * dt;
        below_of[frames] = below;
        if (below == added && drained_at < 0)
            drained_at = frames;
        if (drained_at >= 0 && frames > drained_at + 36)
            break; /* 0.3 s to settle */
        if (frames == 30) {
            /* the picture: the back half of the glass, grains flowing */
            ex_points wall;
            const unsigned char glass_rgb[3] = {120, 150, 175};
            ex_body_points(w, glass, glass_rgb, &wall);
            uint32_t keep = 0;
            for (uint32_t k = 0; k < wall.count; k++)
                if (wall.xyzr[4 * k + 2] < 0)
                    for (int c = 0; c < 4; c++)
                        wall.xyzr[4 * keep + c] = wall.xyzr[4 * k + c], c == 3 ? keep++ : 0;
            wall.count = keep;
            const float lo[3] = {(float)-bulb_r, 0.0f, (float)-bulb_r};
            const float hi[3] = {(float)bulb_r, (float)(2 * (bulb_h + cone_h)), (float)bulb_r};
            const float view[3] = {0.0f, -0.15f, -1.0f};
            ex_render_png_with(w, &args, "hourglass.png", lo, hi, view, NULL, &wall, 1);
            ex_points_free(&wall);
        }
    }
    const double wall_time = ex_now() - t0;
    free(x);

    /* the middle half of the draining: from 25 % to 75 % of the grains through */
    int f25 = -1, f75 = -1;
    for (int f = 0; f < frames; f++) {
        if (f25 < 0 && below_of[f] >= added / 4)
            f25 = f;
        if (f75 < 0 && below_of[f] >= 3 * added / 4)
            f75 = f;
    }
    double rate = 0, worst = 0;
    if (f25 >= 0 && f75 > f25 + 8) {
        rate = (below_of[f75] - below_of[f25]) / (t_of[f75] - t_of[f25]);
        /* the rate over each half of that window against the whole window's */
        for (int q = 0; q < 2; q++) {
            const int a = f25 + (f75 - f25) * q / 2, b = f25 + (f75 - f25) * (q + 1) / 2;
            const double r = (below_of[b] - below_of[a]) / (t_of[b] - t_of[a]);
            printf("  %s half of the middle half: %.0f grains/s\n", q ? "second" : "first", r);
            worst = fmax(worst, fabs(r / rate - 1));
        }
    }
    ex_stats s;
    ex_grain_stats(w, &s);
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    printf("substep %.2e s, %llu substeps\n", c.last_substep, (unsigned long long)c.substep_count);
    printf("%u tetrahedral grains (%u spheres), hourglass of %u particles; %.2f s simulated in %.2f s wall\n", added,
           gr_world_get_render_point_count(w), gr_body_get_particle_count(w, glass), c.time, wall_time);
    ex_check(drained_at >= 0, "every grain went through the neck (by %.2f s)", drained_at >= 0 ? t_of[drained_at] : -1.0);
    ex_check(rate > 0 && worst < 0.10, "constant flow over the middle half: %.0f grains/s, halves within %.1f %%",
             rate, 100 * worst);
    ex_check(s.max_speed < 0.02, "the pile below came to rest (max speed %.2e m/s)", s.max_speed);
    const double reach = fmax(fmax(-s.min[0], s.max[0]), fmax(-s.min[2], s.max[2]));
    ex_check(s.min[1] > 0 && s.max[1] < neck_y && reach < bulb_r,
             "all grains in the lower bulb (y %.3f..%.3f m, %.3f m from the axis)", s.min[1], s.max[1], reach);
    if (args.ply)
        ex_write_ply(w, &args, "hourglass.ply");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
