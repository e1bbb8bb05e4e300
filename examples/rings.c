/* SPDX-License-Identifier: MIT */
/* rings: rigid rings, each a clump of 110 spheres, rain down onto four poles and come to rest
 * on and around them (Bell 2005, Figure 9). Run twice: with slippery rings (friction 0.1) and
 * with rough ones (0.9). Checks: every ring comes to rest above the floor, many are threaded
 * on a pole, and some rough rings jam high up the poles at steep angles, while every slippery
 * one slides down onto the stack at the pole's foot. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

#define PI 3.14159265358979323846
enum { RING_SPHERES = 110, POLES = 4 };

static const double pole_x[POLES] = {-0.075, 0.075, -0.075, 0.075};
static const double pole_z[POLES] = {-0.075, -0.075, 0.075, 0.075};
static const double pole_r = 0.022, pole_h = 0.2;

typedef struct outcome {
    unsigned rings;
    unsigned threaded;
    double mean_tilt;   ///< [deg] of all rings
    double mean_height; ///< of the ring centres [m]
    unsigned jammed;    ///< rings caught steeply tilted high up a pole, above the stack
    double max_speed;
    double min_y;
    double wall;
} outcome;

/* Tilt [deg] of a ring: the angle between its axis (local y) and the vertical. */
static double ring_tilt(const double q[4])
{
    const double up_y = 1 - 2 * (q[0] * q[0] + q[2] * q[2]);
    return acos(fmin(1.0, fabs(up_y))) * 180.0 / PI; /* a ring is the same upside down */
}

static outcome run(const ex_args *args, double friction, unsigned nrings, const char *png)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args->workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 1200; /* plastic */
    md.youngs_modulus = 5e6;
    md.friction = friction;
    md.restitution = 0.4;
    gr_material plastic;
    ex_ok(w, gr_add_material(w, &md, &plastic), "gr_add_material");

    /* the ring: 110 spheres on a circle, unit radius, sphere radius 0.06 (neighbours overlap) */
    gr_vec3 centres[RING_SPHERES];
    double radii[RING_SPHERES];
    for (int k = 0; k < RING_SPHERES; k++) {
        const double a = 2 * PI * k / RING_SPHERES;
        centres[k] = (gr_vec3){cos(a), 0, sin(a)};
        radii[k] = 0.06;
    }
    gr_clump_def cd;
    gr_clump_def_init(&cd);
    cd.count = RING_SPHERES;
    cd.centres = centres;
    cd.radii = radii;
    gr_clump ring;
    ex_ok(w, gr_add_clump_template(w, &cd, &ring), "gr_add_clump_template");

    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = plastic;
    ex_ok(w, gr_add_body(w, &bd, NULL), "floor");
    for (int p = 0; p < POLES; p++) {
        gr_body_def pd;
        gr_body_def_init(&pd);
        pd.shape = GR_SHAPE_CAPSULE;
        pd.radius = pole_r;
        pd.half_height = 0.5 * pole_h;
        pd.position = (gr_vec3){pole_x[p], 0.5 * pole_h, pole_z[p]};
        pd.material = plastic;
        ex_ok(w, gr_add_body(w, &pd, NULL), "pole");
    }

    /* rings of 5 cm radius rain down over the poles, a little tilted, one after another */
    const double ring_radius = 0.05;
    srand(11);
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.shape = GR_GRAIN_CLUMP;
    gd.clump = ring;
    gd.material = plastic;
    gd.radius = ring_radius;
    const double dt = 1.0 / 60;
    double t0 = ex_now();
    for (unsigned k = 0; k < nrings; k++) {
        const int p = (int)(k % POLES);
        const double jx = 0.06 * ((double)rand() / RAND_MAX - 0.5), jz = 0.06 * ((double)rand() / RAND_MAX - 0.5);
        gd.position = (gr_vec3){pole_x[p] + jx, pole_h + 0.1, pole_z[p] + jz};
        const double ang = 1.6 * ((double)rand() / RAND_MAX - 0.5), az = 2 * PI * rand() / RAND_MAX;
        gd.orientation = (gr_quat){sin(ang / 2) * cos(az), 0, sin(ang / 2) * sin(az), cos(ang / 2)};
        ex_ok(w, gr_add_grain(w, &gd, NULL), "gr_add_grain");
        for (int f = 0; f < 6; f++) /* a ring every 0.1 s */
            ex_ok(w, gr_step(w, dt), "gr_step");
    }
    for (int f = 0; f < 210; f++)
        ex_ok(w, gr_step(w, dt), "gr_step (settling)");
    outcome o = {.rings = nrings, .min_y = 1e9, .wall = ex_now() - t0};

    double *x = (double *)malloc(sizeof(double) * 3 * nrings), *q = (double *)malloc(sizeof(double) * 4 * nrings);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, nrings, x, 0);
    gr_read_grains(w, GR_FIELD_ORIENTATION, GR_TYPE_F64, 0, nrings, q, 0);
    for (unsigned k = 0; k < nrings; k++) {
        /* threaded: a pole's axis passes through the ring's hole (centre within the hole's
         * radius of the axis, horizontally) and the ring is below the pole's top */
        for (int p = 0; p < POLES; p++) {
            const double d = hypot(x[3 * k] - pole_x[p], x[3 * k + 2] - pole_z[p]);
            if (d < ring_radius - pole_r && x[3 * k + 1] < pole_h + pole_r)
                o.threaded++;
        }
        o.mean_tilt += ring_tilt(q + 4 * k) / nrings;
        /* jammed: tilted against the pole (a flat ring has a tilt of 0) and well above the
         * stack at the foot (a ring is 6 mm thick; 24 rings on 4 poles stack about 3 cm) */
        o.jammed += ring_tilt(q + 4 * k) > 40 && x[3 * k + 1] > 0.5 * pole_h;
        o.mean_height += x[3 * k + 1] / nrings;
    }
    free(x);
    free(q);
    ex_stats s;
    ex_grain_stats(w, &s);
    o.max_speed = s.max_speed;
    o.min_y = s.min[1];
    /* the poles, drawn as columns of spheres */
    ex_points poles;
    const int per = (int)(pole_h / (0.25 * pole_r)) + 1;
    poles.count = (uint32_t)(POLES * per);
    poles.xyzr = (float *)malloc(sizeof(float) * 4 * poles.count);
    poles.rgb[0] = 150, poles.rgb[1] = 160, poles.rgb[2] = 175;
    for (int p = 0; p < POLES; p++)
        for (int k = 0; k < per; k++) {
            float *e = poles.xyzr + 4 * (p * per + k);
            e[0] = (float)pole_x[p], e[1] = (float)(k * 0.25 * pole_r), e[2] = (float)pole_z[p], e[3] = (float)pole_r;
        }
    const float lo[3] = {-0.15f, 0.0f, -0.15f}, hi[3] = {0.15f, 0.25f, 0.15f};
    ex_render_png_with(w, args, png, lo, hi, NULL, NULL, &poles, 1);
    ex_points_free(&poles);
    gr_world_destroy(w);
    return o;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned nrings = args.grains ? args.grains : 24;
    const outcome lo = run(&args, 0.1, nrings, "rings_slippery.png");
    const outcome hi = run(&args, 0.9, nrings, "rings_rough.png");
    const outcome *o[2] = {&lo, &hi};
    const char *name[2] = {"slippery", "rough"};
    for (int v = 0; v < 2; v++) {
        printf("%s rings: %u of %u threaded on poles, %u jammed high up, mean tilt %.1f deg, mean height %.1f cm "
               "(%.1f s wall)\n",
               name[v], o[v]->threaded, o[v]->rings, o[v]->jammed, o[v]->mean_tilt, 100 * o[v]->mean_height, o[v]->wall);
        ex_check(o[v]->max_speed < 0.02, "%s: every ring at rest (max speed %.2e m/s)", name[v], o[v]->max_speed);
        ex_check(o[v]->min_y > 0, "%s: no ring below the floor", name[v]);
        ex_check(o[v]->threaded >= o[v]->rings / 3, "%s: %u rings threaded on the poles", name[v], o[v]->threaded);
    }
    ex_check(hi.jammed > 0 && lo.jammed == 0, "rough rings jam high up the poles (%u), slippery ones never do (%u)",
             hi.jammed, lo.jammed);
    ex_check(hi.mean_height > lo.mean_height + 0.01, "and stay higher up the poles (%.1f cm against %.1f cm)",
             100 * hi.mean_height, 100 * lo.mean_height);
    return ex_failures() ? 1 : 0;
}
