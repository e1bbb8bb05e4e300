/* SPDX-License-Identifier: MIT */
/* continuum_impact: a wooden box dropped into a sand bed simulated as a continuum (Narain,
 * Golas, Lin 2010). The box is a dynamic body coupled two ways with the sand (the pressure that
 * keeps the sand from entering it pushes it back, sec. 2.4): it falls, splashes into the bed,
 * and comes to rest carried by the sand. Checks: it enters the sand, does not pass through it,
 * comes to rest, the sand's force on it is its weight, no sand is lost. Writes
 * continuum_impact.png. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

/* The box's surface as spheres for the picture (a continuum world gives bodies no surface
 * particles: the grid meets them by their shapes). */
static void box_points(const gr_world *w, gr_body box, double a, ex_points *out)
{
    const int k = 8; /* points per edge */
    out->count = 6 * k * k;
    out->xyzr = (float *)malloc(sizeof(float) * 4 * out->count);
    out->rgb[0] = 170, out->rgb[1] = 110, out->rgb[2] = 60;
    gr_vec3 p;
    gr_quat q;
    ex_ok((gr_world *)w, gr_body_get_pose(w, box, &p, &q), "gr_body_get_pose");
    uint32_t n = 0;
    for (int f = 0; f < 6; f++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++) {
                double l[3];
                const int ax = f / 2;
                l[ax] = f % 2 ? -a : a;
                l[(ax + 1) % 3] = -a + 2 * a * (i + 0.5) / k;
                l[(ax + 2) % 3] = -a + 2 * a * (j + 0.5) / k;
                /* rotate by q: v + 2 w (u x v) + 2 u x (u x v) */
                const double u[3] = {q.x, q.y, q.z};
                const double c1[3] = {u[1] * l[2] - u[2] * l[1], u[2] * l[0] - u[0] * l[2], u[0] * l[1] - u[1] * l[0]};
                const double c2[3] = {u[1] * c1[2] - u[2] * c1[1], u[2] * c1[0] - u[0] * c1[2],
                                      u[0] * c1[1] - u[1] * c1[0]};
                float *o = out->xyzr + 4 * n++;
                o[0] = (float)(p.x + l[0] + 2 * (q.w * c1[0] + c2[0]));
                o[1] = (float)(p.y + l[1] + 2 * (q.w * c1[1] + c2[1]));
                o[2] = (float)(p.z + l[2] + 2 * (q.w * c1[2] + c2[2]));
                o[3] = (float)(a / k);
            }
}

static double sand_top(const gr_world *w)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = ex_grain_positions(w), top = -INFINITY;
    for (uint32_t i = 0; i < n; i++)
        top = fmax(top, x[3 * i + 1]);
    free(x);
    return top;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    gr_world *w = ex_continuum_world(&args, 0.02);

    /* an open bin, filled with sand (--grains: fewer, a shallower bed) */
    const double L = 0.08, H = args.grains ? fmax(0.02, 0.12 * args.grains / 4200.0) : 0.12, a = 0.03;
    gr_body_def bin;
    gr_body_def_init(&bin);
    bin.shape = GR_SHAPE_CONTAINER;
    bin.open_faces = GR_FACE_POS_Y;
    bin.half_extents = (gr_vec3){L, 2 * H, L};
    bin.position = (gr_vec3){0, 2 * H, 0};
    ex_ok(w, gr_add_body(w, &bin, NULL), "gr_add_body (bin)");
    /* sand of friction 0.365 (alpha = mu, docs/continuum.md): at the default 0.5 the box stops on
     * the surface, its bottom on the top grains, and does not enter the bed ("A body resting on
     * sand" in the known limits) */
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.365;
    md.continuum_friction = 0.365;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &md, &sand), "gr_add_material");
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = sand;
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-L + 0.004, 0.004, -L + 0.004};
    f.max = (gr_vec3){L - 0.004, H, L - 0.004};
    uint32_t n = 0;
    ex_ok(w, gr_fill_box(w, &f, &n, NULL, 0), "gr_fill_box");
    for (int k = 0; k < 20; k++) /* the bed settles */
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
    const double surface = sand_top(w);

    /* a box of half the packed sand's density (2500 kg/m^3 grains x packing 0.6), 4 cm above */
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){a, a, a};
    bd.mass = 0.5 * 1500 * 8 * a * a * a;
    bd.position = (gr_vec3){0, surface + a + 0.04, 0};
    bd.orientation = (gr_quat){0, 0.0998, 0, 0.995}; /* turned a little about the vertical */
    gr_body box;
    ex_ok(w, gr_add_body(w, &bd, &box), "gr_add_body (box)");

    const double t0 = ex_now();
    double vmax = 0, vlate = 0, force = 0;
    gr_vec3 p0 = {0, 0, 0}, p, v, om, fo, to;
    gr_quat q;
    const int frames = 120, late = 30;
    for (int k = 0; k < frames; k++) {
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
        ex_ok(w, gr_body_get_velocity(w, box, &v, &om), "gr_body_get_velocity");
        ex_ok(w, gr_body_get_pose(w, box, &p, &q), "gr_body_get_pose");
        vmax = fmax(vmax, fabs(v.y));
        if (k == frames - late)
            p0 = p;
        if (k >= frames - late) {
            ex_ok(w, gr_body_get_force(w, box, &fo, &to), "gr_body_get_force");
            vlate += sqrt(v.x * v.x + v.y * v.y + v.z * v.z) / late;
            force += fo.y / late;
        }
        if (!args.quiet && k % 20 == 0)
            printf("t %.2f s: box bottom %.4f m (sand surface %.4f m), speed %.3f m/s\n", (k + 1) / 60.0, p.y - a,
                   surface, fabs(v.y));
    }
    const double weight = bd.mass * 9.81;
    printf("%u particles, %d frames in %.1f s; box: fastest %.3f m/s, bottom %.4f m (surface %.4f m), last 0.5 s "
           "moved %.4f m at %.4f m/s, sand's force %.3f N (weight %.3f N)\n",
           n, frames, ex_now() - t0, vmax, p.y - a, surface, fabs(p.y - p0.y), vlate, force, weight);
    ex_check(vmax > 0.5, "the box fell (fastest %.3f m/s)", vmax);
    ex_check(p.y - a < surface - 0.1 * a, "it entered the sand (bottom %.4f m, surface %.4f m)", p.y - a, surface);
    ex_check(p.y - a > 0.5 * surface, "it did not pass through the bed (bottom %.4f m)", p.y - a);
    ex_check(fabs(p.y - p0.y) < 0.005 && vlate < 0.05, "it came to rest");
    ex_check(fabs(force - weight) < 0.1 * weight, "the sand carries its weight (%.3f N of %.3f N)", force, weight);
    gr_counters cn;
    cn.size = sizeof cn;
    ex_ok(w, gr_world_get_counters(w, &cn), "gr_world_get_counters");
    /* (particles split and merge: the count changes by those only) */
    ex_check(gr_world_get_grain_count(w) == n + cn.grains_split - cn.grains_merged && cn.grains_removed == 0,
             "no sand lost");

    ex_points pts;
    box_points(w, box, a, &pts);
    const float lo[3] = {(float)-L, 0, (float)-L}, hi[3] = {(float)L, (float)(2 * H), (float)L};
    if (pts.xyzr)
        ex_render_png_with(w, &args, "continuum_impact.png", lo, hi, NULL, NULL, &pts, 1);
    ex_points_free(&pts);
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
