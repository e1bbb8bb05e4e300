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

static double top_height(const gr_world *w, double *max_speed)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * n), *v = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    double top = 0, vmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        top = fmax(top, x[3 * i + 1]);
        vmax = fmax(vmax, sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]));
    }
    free(x);
    free(v);
    *max_speed = vmax;
    return top;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    sommer_def def = sommer_paper_def(SOMMER_SANDCASTLE);
    def.lr_target = args.grains ? args.grains : 1500;
    def.r_hr = 0.012;
    def.workers = args.workers;
    sommer_scene s;
    ex_ok(s.w, sommer_create(&def, &s), "sommer_create");
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
    double *x0 = (double *)malloc(sizeof(double) * 3 * n), *x1 = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x0, 0);
    double v_max = 0;
    for (int f = 0; f < 60; f++) { /* 2 s more: nothing may move */
        ex_ok(w, sommer_step(&s, frame), "gr_step");
        double v;
        top_height(w, &v);
        v_max = fmax(v_max, v);
    }
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x1, 0);
    double drift = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double dx = x1[3 * i] - x0[3 * i], dy = x1[3 * i + 1] - x0[3 * i + 1], dz = x1[3 * i + 2] - x0[3 * i + 2];
        drift = fmax(drift, sqrt(dx * dx + dy * dy + dz * dz));
    }
    /* the render points are the upsampled points: all above the floor */
    const uint32_t np = gr_world_get_render_point_count(w);
    float *pts = (float *)malloc(sizeof(float) * 4 * (np ? np : 1));
    gr_read_render_points(w, 0, np, pts, 4 * sizeof(float));
    double lowest = INFINITY;
    for (uint32_t k = 0; k < np; k++)
        lowest = fmin(lowest, pts[4 * k + 1] - pts[4 * k + 3]);
    printf("sandcastle: %u grains (r %.3g m), %u points (r %.3g m), castle %.2f m wide; 3 s of slumping in %.2f s "
           "wall (%.1f ms per frame)\n", n, def.r_lr, np, def.r_hr, s.size, slump_wall, 1e3 * slump_wall / 90);
    ex_check(top1 < 0.9 * top0, "the castle slumped: top from %.3f m to %.3f m", top0, top1);
    ex_check(top1 > 0.3 * top0, "into a pile, not a puddle: top %.3f m", top1);
    ex_check(v_max < 0.01, "no creep: the fastest grain over the last 2 s moved at %.2g m/s (settled: %.2g)", v_max,
             v_settled);
    ex_check(drift < 0.002, "no grain moved more than 2 mm in the last 2 s (largest %.2g m)", drift);
    ex_check(np > 10 * n, "upsampled: %u points for %u grains", np, n);
    ex_check(lowest > -1e-6, "no point below the floor (lowest point bottom %.2g m)", lowest);
    const float lo[3] = {(float)(-0.6 * s.size), 0.0f, (float)(-0.6 * s.size)};
    const float hi[3] = {(float)(0.6 * s.size), (float)(0.6 * s.size), (float)(0.6 * s.size)};
    ex_check(ex_render_png(w, &args, "sandcastle.png", lo, hi, NULL, NULL) == 0, "wrote sandcastle.png");
    if (args.ply)
        ex_write_ply(w, &args, "sandcastle.ply");
    free(x0);
    free(x1);
    free(pts);
    sommer_destroy(&s);
    return ex_failures() ? 1 : 0;
}
