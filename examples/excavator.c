/* SPDX-License-Identifier: MIT */
/* excavator: Sommer & Schwanecke's excavator scene on the position-based solver. A kinematic
 * bucket (a particle-covered mesh driven by the host through its velocity) digs into a bed of
 * sand, curls, lifts the sand, carries it beyond the bed and pours it out onto the floor.
 * Checks that the bucket holds a load while lifted, keeps it while carried, empties when
 * tipped, that the poured sand lands on the floor, and that no upsampled point is left
 * floating where the bucket was. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/sommer_scenes.h"

/* Render points away from the sand (farther than `reach` from every grain centre) that are
 * still moving: they would be floating. Also the largest distance of any point from a grain. */
static uint32_t loose_points(sommer_scene *s, double reach, double *farthest, uint32_t *resting)
{
    gr_world *w = s->w;
    const uint32_t n = gr_world_get_grain_count(w), np = gr_world_get_render_point_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    float *p0 = (float *)malloc(sizeof(float) * 4 * (np ? np : 1)), *p1 = (float *)malloc(sizeof(float) * 4 * (np ? np : 1));
    gr_read_render_points(w, 0, np, p0, 4 * sizeof(float));
    ex_ok(w, sommer_step(s, 1.0 / 30), "sommer_step");
    uint32_t moving = 0;
    *resting = 0;
    *farthest = 0;
    if (gr_world_get_render_point_count(w) == np) {
        gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
        gr_read_render_points(w, 0, np, p1, 4 * sizeof(float));
        for (uint32_t k = 0; k < np; k++) {
            double best = INFINITY;
            for (uint32_t i = 0; i < n; i++) {
                const double dx = p1[4 * k] - x[3 * i], dy = p1[4 * k + 1] - x[3 * i + 1], dz = p1[4 * k + 2] - x[3 * i + 2];
                best = fmin(best, dx * dx + dy * dy + dz * dz);
            }
            *farthest = fmax(*farthest, sqrt(best));
            if (sqrt(best) <= reach)
                continue;
            const double mx = p1[4 * k] - p0[4 * k], my = p1[4 * k + 1] - p0[4 * k + 1], mz = p1[4 * k + 2] - p0[4 * k + 2];
            if (sqrt(mx * mx + my * my + mz * mz) < 1e-3)
                (*resting)++;
            else
                moving++;
        }
    } else {
        moving = UINT32_MAX; /* points appeared or vanished: not expected here */
    }
    free(x);
    free(p0);
    free(p1);
    return moving;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    sommer_scene s;
    sommer_open_example(SOMMER_EXCAVATOR, args.grains ? args.grains : 2500, 0.02, 0.01, args.workers, &s);
    const sommer_def def = s.def;
    gr_world *w = s.w;
    const uint32_t n = gr_world_get_grain_count(w);
    const double frame = 1.0 / 30, r = def.r_lr;
    const gr_vec3 h = s.bucket_half;
    const double t = s.bucket_wall;
    const double capacity = 2 * (h.x - t) * 2 * (h.z - t) * (2 * h.y - t) * 0.36 / (4.0 / 3.0 * 3.14159265 * r * r * r);
    uint32_t lifted = 0, carried = 0, poured = 0;
    double t0 = ex_now();
    int frames = 0;
    while (s.t < SOMMER_EXCAVATOR_END - 1e-9) {
        const double before = s.t;
        ex_ok(w, sommer_step(&s, frame), "sommer_step");
        frames++;
        if (before < SOMMER_LIFTED + 0.3 && s.t >= SOMMER_LIFTED + 0.3)
            lifted = sommer_grains_in_bucket(&s);
        if (before < SOMMER_POUR && s.t >= SOMMER_POUR) {
            carried = sommer_grains_in_bucket(&s);
            const float lo[3] = {(float)(-0.8 * s.size), 0.0f, (float)(-0.7 * s.size)};
            const float hi[3] = {(float)(1.3 * s.size), (float)(1.0 * s.size), (float)(0.7 * s.size)};
            ex_points bucket_pts;
            const unsigned char steel[3] = {150, 160, 175};
            if (ex_body_points(w, s.bucket, steel, &bucket_pts) == 0) {
                ex_check(ex_render_png_with(w, &args, "excavator.png", lo, hi, NULL, NULL, &bucket_pts, 1) == 0,
                         "wrote excavator.png (the loaded bucket)");
                ex_points_free(&bucket_pts);
            }
        }
    }
    const double wall = ex_now() - t0;
    poured = sommer_grains_in_bucket(&s);
    /* grains that left the bed's container: on the floor beyond its +x wall */
    double *x = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    uint32_t outside = 0, lost = 0;
    for (uint32_t i = 0; i < n; i++) {
        outside += x[3 * i] > 0.7 * s.size + r;
        lost += x[3 * i + 1] < -r;
    }
    free(x);
    double far;
    uint32_t resting;
    const uint32_t floating = loose_points(&s, 2 * r, &far, &resting);
    printf("excavator: %u grains (r %.3g m), %u points (r %.3g m), bucket holds about %.0f grains; %d frames in %.2f s "
           "wall (%.1f ms per frame)\n", n, r, gr_world_get_render_point_count(w), def.r_hr, capacity, frames, wall,
           1e3 * wall / frames);
    ex_check(lifted > 0.2 * capacity, "the lifted bucket holds %u grains (%.0f%% of its volume)", lifted,
             100.0 * lifted / capacity);
    ex_check(carried > 0.85 * lifted, "and keeps them while carried: %u of %u", carried, lifted);
    ex_check(poured < 0.1 * lifted, "tipped, it empties: %u grains left in it", poured);
    ex_check(outside > 0.8 * lifted, "the load lies on the floor beyond the bed: %u grains", outside);
    ex_check(lost == 0, "no grain fell through the floor (%u)", lost);
    ex_check(floating == 0, "no point floats away from the sand: %u of the points farther than 2 r_L from a grain "
             "still move, %u lie still on a surface (farthest %.3f m)", floating, resting, far);
    const float lo[3] = {(float)(-0.8 * s.size), 0.0f, (float)(-0.7 * s.size)};
    const float hi[3] = {(float)(1.3 * s.size), (float)(1.0 * s.size), (float)(0.7 * s.size)};
    ex_check(ex_render_png(w, &args, "excavator_poured.png", lo, hi, NULL, NULL) == 0, "wrote excavator_poured.png");
    sommer_destroy(&s);
    return ex_failures() ? 1 : 0;
}
