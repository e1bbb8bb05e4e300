/* SPDX-License-Identifier: MIT */
/* hourglass_pbd: Sommer & Schwanecke's hourglass on the position-based solver. Grains fill the
 * upper bulb of a static particle-covered hourglass mesh and run through the neck; upsampled
 * points render them. Checks that the flow through the neck is nearly constant (as for real
 * hourglasses: the rate does not depend on the height of sand above the neck, Beverloo 1961)
 * and that the pile below comes to rest and stays still. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/sommer_scenes.h"

/* Grains below height y; *vmax the fastest grain's speed. */
static uint32_t count_below(const gr_world *w, double y, double *vmax)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = ex_grain_positions(w);
    uint32_t below = 0;
    for (uint32_t i = 0; i < n; i++)
        below += x[3 * i + 1] < y;
    free(x);
    ex_stats st;
    ex_grain_stats(w, &st);
    *vmax = st.max_speed;
    return below;
}

/* The picture: the grains' points and the far half of the glass. */
static void render(const sommer_scene *ps, const ex_args *args)
{
    const sommer_scene s = *ps;
    gr_world *w = s.w;
    const float lo[3] = {(float)(-1.2 * s.size), 0.0f, (float)(-1.2 * s.size)};
    const float hi[3] = {(float)(1.2 * s.size), (float)(2 * s.neck_y), (float)(1.2 * s.size)};
    const float view[3] = {0.0f, -0.15f, -1.0f};
    ex_points glass;
    const unsigned char tint[3] = {120, 140, 170};
    if (ex_body_points(w, s.glass, tint, &glass) == 0) {
        /* only the far half of the glass, so the sand shows */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < glass.count; k++)
            if (glass.xyzr[4 * k + 2] < 0) {
                for (int c = 0; c < 4; c++)
                    glass.xyzr[4 * kept + c] = glass.xyzr[4 * k + c];
                kept++;
            }
        glass.count = kept;
        ex_check(ex_render_png_with(w, args, "hourglass_pbd.png", lo, hi, view, NULL, &glass, 1) == 0,
                 "wrote hourglass_pbd.png");
        ex_points_free(&glass);
    }
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    sommer_scene s;
    sommer_open_example(SOMMER_HOURGLASS, args.grains ? args.grains : 3000, 0.02, 0.012, args.workers, &s);
    const sommer_def def = s.def;
    gr_world *w = s.w;
    const uint32_t n = gr_world_get_grain_count(w);
    const double frame = 1.0 / 30;
    /* the fraction below the neck over time */
    enum { MAX_FRAMES = 900 };
    static double below[MAX_FRAMES + 1];
    double vmax = 0;
    int frames = 0;
    const double t0 = ex_now();
    below[0] = count_below(w, s.neck_y, &vmax) / (double)n;
    while (frames < MAX_FRAMES && below[frames] < 0.999 && !(frames > 60 && below[frames] == below[frames - 60])) {
        ex_ok(w, sommer_step(&s, frame), "sommer_step");
        frames++;
        below[frames] = count_below(w, s.neck_y, &vmax) / (double)n;
        if (below[frames] >= 0.5 && below[frames - 1] < 0.5)
            render(&s, &args); /* half way: the stream shows */
    }
    const double wall = ex_now() - t0;
    /* flow rate over the second and the third quarter of the draining (the first has the
     * start-up, the last the emptying of the cone) */
    int f25 = 0, f50 = 0, f75 = 0;
    while (f25 < frames && below[f25] < 0.25) f25++;
    while (f50 < frames && below[f50] < 0.5) f50++;
    while (f75 < frames && below[f75] < 0.75) f75++;
    const double rate1 = (below[f50] - below[f25]) / ((f50 - f25) * frame);
    const double rate2 = (below[f75] - below[f50]) / ((f75 - f50) * frame);
    /* then the pile below must come to rest and stay */
    for (int k = 0; k < 90; k++) /* the heap below settles (it churns while it is fed) */
        ex_ok(w, sommer_step(&s, frame), "sommer_step");
    const uint32_t nb = gr_world_get_grain_count(w);
    double *x0 = ex_grain_positions(w);
    double v_rest = 0;
    for (int k = 0; k < 30; k++) {
        ex_ok(w, sommer_step(&s, frame), "sommer_step");
        double v;
        count_below(w, s.neck_y, &v);
        v_rest = fmax(v_rest, v);
    }
    double *x1 = ex_grain_positions(w);
    const double drift = ex_max_displacement(x0, x1, nb);
    printf("hourglass_pbd: %u grains (r %.3g m), %u points, neck radius %.3f m; drained %.0f%% in %.2f s (%d frames, "
           "%.2f s wall, %.1f ms per frame)\n", n, def.r_lr, gr_world_get_render_point_count(w), 8 * def.r_lr,
           100 * below[frames], frames * frame, frames, wall, 1e3 * wall / frames);
    ex_check(below[frames] > 0.98, "the upper bulb drained: %.1f%% below the neck", 100 * below[frames]);
    ex_check(f25 < f50 && f50 < f75, "the flow has a middle part (25%%, 50%%, 75%% at %.2f, %.2f, %.2f s)", f25 * frame,
             f50 * frame, f75 * frame);
    ex_check(fabs(rate1 - rate2) < 0.15 * fmax(rate1, rate2),
             "near-constant flow: %.1f%% then %.1f%% of the grains per second (%.1f%% apart)", 100 * rate1, 100 * rate2,
             100 * fabs(rate1 - rate2) / fmax(rate1, rate2));
    ex_check(v_rest < 0.01, "the pile below rests: fastest grain %.2g m/s", v_rest);
    ex_check(drift < 0.002, "and stays: largest displacement over 1 s %.2g m", drift);
    free(x0);
    free(x1);
    sommer_destroy(&s);
    return ex_failures() ? 1 : 0;
}
