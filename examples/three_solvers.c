/* SPDX-License-Identifier: MIT */
/* three_solvers: one scene, the column collapse (Narain, Golas, Lin 2010, Fig. 11), run on the
 * three solvers by changing only gr_world_def.solver: DEM (spheres with rolling resistance),
 * PBD (position-based) and the continuum. The same fill of the same column of dry sand (the
 * material preset, which sets each solver's friction) on the same rough floor; the piles side
 * by side in one picture (DEM left in blue-grey, PBD middle in green-grey, continuum right in
 * sand colours) and the runout of each printed. Checks: each column spread and stopped, no
 * grain lost or through the floor. The three runouts differ (different models of the same
 * material); they are printed, not compared. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/collapse_scene.h"
#include "common/example_util.h"

static const char *names[3] = {"DEM", "PBD", "continuum"};

/* A world's render points as a set of spheres in one colour. */
static int points_of(const gr_world *w, const unsigned char rgb[3], ex_points *out)
{
    out->count = gr_world_get_render_point_count(w);
    out->xyzr = (float *)malloc(sizeof(float) * 4 * (out->count ? out->count : 1));
    for (int k = 0; k < 3; k++)
        out->rgb[k] = rgb[k];
    return out->xyzr && gr_read_render_points(w, 0, out->count, out->xyzr, 0) == GR_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const gr_solver_kind kinds[3] = {GR_SOLVER_DEM, GR_SOLVER_PBD, GR_SOLVER_CONTINUUM};
    const double spacing = 0.3; /* between the columns' axes [m] */
    collapse_scene s[3];
    collapse_pile p0[3], p[3];
    double drift[3], wall[3], ymin[3];
    unsigned long long removed[3];
    for (int k = 0; k < 3; k++) {
        collapse_def d = collapse_default(); /* 6 x 6 x 12 cm, grains 1/8 of a 1 cm cell */
        d.solver = kinds[k];
        d.workers = args.workers;
        d.preset = GR_MATERIAL_PRESET_DRY_SAND;
        d.gap = 0.3; /* grains a little apart, placed at random in their sites: else the particle
                      * solvers' friction holds the lattice up as a standing column */
        d.cx = (k - 1) * spacing;
        if (args.smoke)
            d.cell = 0.02;
        ex_ok(NULL, collapse_create(&d, &s[k]), "collapse_create");
        collapse_measure(&s[k], 0, &p0[k]);
        const double t0 = ex_now();
        for (int f = 0; f < (args.smoke ? 30 : 90); f++) /* 1.5 s */
            ex_ok(s[k].w, collapse_step(&s[k], 1.0 / 60), "gr_step");
        wall[k] = ex_now() - t0;
        collapse_measure(&s[k], 0, &p[k]);
        double *x0 = ex_grain_positions(s[k].w);
        for (int f = 0; f < 20; f++)
            ex_ok(s[k].w, collapse_step(&s[k], 1.0 / 60), "gr_step");
        double *x1 = ex_grain_positions(s[k].w);
        drift[k] = ex_max_displacement(x0, x1, gr_world_get_grain_count(s[k].w));
        free(x0);
        free(x1);
        ymin[k] = INFINITY;
        for (uint32_t i = 0; i < s[k].g.n; i++)
            ymin[k] = fmin(ymin[k], s[k].g.x[3 * i + 1]);
        gr_counters c;
        c.size = sizeof c;
        gr_world_get_counters(s[k].w, &c);
        removed[k] = (unsigned long long)c.grains_removed;
        printf("%-9s: %u grains of r %.2f mm; foot %.3f -> %.3f m, runout %.3f m; height %.3f m; slope %.1f deg (fit), "
               "%.1f deg (atan height/foot); mean speed %.4f m/s; %llu steps, %.1f s wall\n", names[k], s[k].grains,
               1e3 * s[k].grain_radius, p0[k].foot, p[k].foot, p[k].foot - p0[k].foot, p[k].height, p[k].angle,
               p[k].angle_hr, p[k].mean_speed, (unsigned long long)c.substep_count, wall[k]);
    }
    for (int k = 0; k < 3; k++) {
        ex_check(removed[k] == 0 && ymin[k] > -0.25 * s[k].def.cell, "%s: no grain lost (%llu) or through the floor (lowest %.4f m)",
                 names[k], removed[k], ymin[k]);
        ex_check(p[k].foot > p0[k].foot + 0.25 * s[k].def.half_width && p[k].height < 0.8 * s[k].def.height,
                 "%s: the column collapsed: runout %.3f m, height %.3f m", names[k], p[k].foot - p0[k].foot, p[k].height);
        ex_check(p[k].mean_speed < 0.02, "%s: and stopped: mean speed %.4f m/s, largest displacement over 1/3 s %.4f m",
                 names[k], p[k].mean_speed, drift[k]);
    }
    printf("runout: DEM %.3f m, PBD %.3f m, continuum %.3f m\n", p[0].foot - p0[0].foot, p[1].foot - p0[1].foot,
           p[2].foot - p0[2].foot);
    /* the picture: the continuum world's points in sand colours, the others' in one colour each */
    ex_points other[2];
    const unsigned char dem_rgb[3] = {150, 165, 190}, pbd_rgb[3] = {150, 185, 150};
    const int ok = points_of(s[0].w, dem_rgb, &other[0]) == 0 && points_of(s[1].w, pbd_rgb, &other[1]) == 0;
    const float lo[3] = {(float)(-spacing - 0.15), 0.0f, -0.15f}, hi[3] = {(float)(spacing + 0.15), 0.08f, 0.15f};
    const float view[3] = {0.0f, -0.5f, -1.0f};
    ex_check(ok && ex_render_png_with(s[2].w, &args, "three_solvers.png", lo, hi, view, NULL, other, 2) == 0,
             "wrote three_solvers.png");
    for (int k = 0; k < 2; k++)
        ex_points_free(&other[k]);
    for (int k = 0; k < 3; k++)
        collapse_destroy(&s[k]);
    return ex_failures() ? 1 : 0;
}
