/* SPDX-License-Identifier: MIT */
/* sandcastle: Sommer & Schwanecke's sand castle on the position-based solver. A castle-shaped
 * mesh is filled with low-resolution grains (gr_fill_mesh, Poisson pattern), which are
 * upsampled to many small render points. Without cohesion the castle slumps into a pile, and
 * the pile then stays still: checks that the towers came down, that nothing creeps for 2 s
 * afterwards (sleeping), and that the render points stay in the sand. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/sommer_scenes.h"

/* Highest grain centre and fastest grain. */
static double top_height(const gr_world *w, double *max_speed)
{
    ex_stats st;
    ex_grain_stats(w, &st);
    *max_speed = st.max_speed;
    return st.max[1];
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    sommer_scene s;
    sommer_open_example(SOMMER_SANDCASTLE, args.grains ? args.grains : 1500, 0.03, 0.012, args.workers, &s);
    const sommer_def def = s.def;
    gr_world *w = s.w;
    const uint32_t n = gr_world_get_grain_count(w);
    double v0;
    const double top0 = top_height(w, &v0);
    const double frame = 1.0 / 30;
    double t0 = ex_now();
    for (int f = 0; f < 90; f++) /* 3 s: the castle slumps */
        ex_ok(w, sommer_step(&s, frame), "gr_step");
    const double slump_wall = ex_now() - t0;
    double v_settled;
    const double top1 = top_height(w, &v_settled);
    double *x0 = ex_grain_positions(w);
    const uint32_t np0 = gr_world_get_render_point_count(w);
    float *pts0 = (float *)malloc(sizeof(float) * 4 * (np0 ? np0 : 1));
    gr_read_render_points(w, 0, np0, pts0, 4 * sizeof(float));
    double v_max = 0;
    for (int f = 0; f < 60; f++) { /* 2 s more: nothing may move */
        ex_ok(w, sommer_step(&s, frame), "gr_step");
        double v;
        top_height(w, &v);
        v_max = fmax(v_max, v);
    }
    double *x1 = ex_grain_positions(w);
    const double drift = ex_max_displacement(x0, x1, n);
    /* the render points are the upsampled points: all above the floor */
    const uint32_t np = gr_world_get_render_point_count(w);
    float *pts = (float *)malloc(sizeof(float) * 4 * (np ? np : 1));
    gr_read_render_points(w, 0, np, pts, 4 * sizeof(float));
    double lowest = INFINITY, point_drift = 0;
    for (uint32_t k = 0; k < np; k++)
        lowest = fmin(lowest, pts[4 * k + 1] - pts[4 * k + 3]);
    for (uint32_t k = 0; k < np && np == np0; k++) {
        const double dx = pts[4 * k] - pts0[4 * k], dy = pts[4 * k + 1] - pts0[4 * k + 1],
                     dz = pts[4 * k + 2] - pts0[4 * k + 2];
        point_drift = fmax(point_drift, sqrt(dx * dx + dy * dy + dz * dz));
    }
    printf("sandcastle: %u grains (r %.3g m), %u points (r %.3g m), castle %.2f m wide; 3 s of slumping in %.2f s "
           "wall (%.1f ms per frame)\n", n, def.r_lr, np, def.r_hr, s.size, slump_wall, 1e3 * slump_wall / 90);
    ex_check(top1 < 0.9 * top0, "the castle slumped: top from %.3f m to %.3f m", top0, top1);
    ex_check(top1 > 0.3 * top0, "into a pile, not a puddle: top %.3f m", top1);
    ex_check(v_max < 0.01, "no creep: the fastest grain over the last 2 s moved at %.2g m/s (settled: %.2g)", v_max,
             v_settled);
    ex_check(drift < 0.002, "no grain moved more than 2 mm in the last 2 s (largest %.2g m)", drift);
    gr_counters cn = {.size = sizeof cn};
    ex_ok(w, gr_world_get_counters(w, &cn), "gr_world_get_counters");
    ex_check(cn.sleeping_count == n && cn.frozen_count == n,
             "at rest the pile costs next to nothing: %u of %u grains asleep, %u of them frozen (not solved)",
             cn.sleeping_count, n, cn.frozen_count);
    ex_check(np > 10 * n, "upsampled: %u points for %u grains", np, n);
    ex_check(np == np0 && point_drift < 0.002, "no point moved more than 2 mm in the last 2 s either (largest %.2g m)",
             point_drift);
    ex_check(lowest > -1e-6, "no point below the floor (lowest point bottom %.2g m)", lowest);
    const float lo[3] = {(float)(-0.6 * s.size), 0.0f, (float)(-0.6 * s.size)};
    const float hi[3] = {(float)(0.6 * s.size), (float)(0.6 * s.size), (float)(0.6 * s.size)};
    ex_check(ex_render_png(w, &args, "sandcastle.png", lo, hi, NULL, NULL) == 0, "wrote sandcastle.png");
    if (args.ply)
        ex_write_ply(w, &args, "sandcastle.ply");
    free(x0);
    free(x1);
    free(pts);
    free(pts0);
    sommer_destroy(&s);
    return ex_failures() ? 1 : 0;
}
