/* SPDX-License-Identifier: MIT */
/* splash: a steel ball hits a bed of grains behind a glass wall (Bell 2005, Figure 5). The
 * ball throws grains up, digs a crater and comes to rest in it. Checks: the splash, the ball at
 * rest below the old surface, and that momentum adds up: the ball's change of momentum is the
 * impulse the grains gave it plus its weight's, and the whole system's change is the walls'
 * impulse plus gravity's. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

/* Total momentum of the grains [kg m/s] and their mass. */
static gr_vec3 grain_momentum(const gr_world *w, double *mass)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *v = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *m = (double *)malloc(sizeof(double) * (n ? n : 1));
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    gr_vec3 p = {0, 0, 0};
    *mass = 0;
    for (uint32_t i = 0; i < n; i++) {
        p.x += m[i] * v[3 * i];
        p.y += m[i] * v[3 * i + 1];
        p.z += m[i] * v[3 * i + 2];
        *mass += m[i];
    }
    free(v);
    free(m);
    return p;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 5000;

    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    const double g = 9.81;

    gr_material_def sand_def;
    gr_material_def_init(&sand_def);
    sand_def.youngs_modulus = 5e6;
    sand_def.friction = 0.5;
    sand_def.restitution = 0.3;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &sand_def, &sand), "gr_add_material (sand)");
    gr_material_def steel_def = sand_def;
    steel_def.density = 7800;
    steel_def.youngs_modulus = 2e11; /* the pair's stiffness is the sand's: the step stays the grains' */
    steel_def.poisson_ratio = 0.29;
    gr_material steel;
    ex_ok(w, gr_add_material(w, &steel_def, &steel), "gr_add_material (steel)");

    /* a slab of sand 30 cm wide, 6 cm deep: the ball (5 cm) touches the glass, its front wall (-z) */
    const double hx = 0.15, hz = 0.03, hy = 0.12;
    gr_body_def box_def;
    gr_body_def_init(&box_def);
    box_def.shape = GR_SHAPE_CONTAINER;
    box_def.open_faces = GR_FACE_POS_Y;
    box_def.half_extents = (gr_vec3){hx, hy, hz};
    box_def.position = (gr_vec3){0, hy, 0};
    box_def.material = sand;
    gr_body box;
    ex_ok(w, gr_add_body(w, &box_def, &box), "gr_add_body (box)");
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.min = (gr_vec3){-hx, 0, -hz};
    fill.max = (gr_vec3){hx, 0.2, hz};
    fill.radius = 0.0035;
    fill.radius_max = 0.0042;
    fill.material = sand;
    fill.max_count = grains;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");
    const double dt = 1.0 / 120;
    for (int f = 0; f < 60; f++)
        ex_ok(w, gr_step(w, dt), "gr_step (settling)");
    ex_stats bed;
    ex_grain_stats(w, &bed);
    /* the bed's surface: the mean height of the top layer (grains above the 90th-percentile-ish) */
    const double surface = bed.max[1] - 0.006;

    /* the steel ball: 2.5 cm radius, thrown down at 3 m/s from 10 cm above the surface */
    const double R = 0.025;
    gr_body_def ball_def;
    gr_body_def_init(&ball_def);
    ball_def.shape = GR_SHAPE_SPHERE;
    ball_def.motion = GR_MOTION_DYNAMIC;
    ball_def.radius = R;
    ball_def.position = (gr_vec3){0, surface + 0.1 + R, 0};
    ball_def.linear_velocity = (gr_vec3){0, -3.0, 0};
    ball_def.material = steel;
    ball_def.particle_radius = 0.0035;
    ball_def.particle_offset = -0.0035; /* particles inside the surface: the ball's outline stays R */
    gr_body ball;
    ex_ok(w, gr_add_body(w, &ball_def, &ball), "gr_add_body (ball)");
    double M;
    gr_body_get_mass(w, ball, &M);

    double grain_mass;
    const gr_vec3 p_grains0 = grain_momentum(w, &grain_mass);
    gr_vec3 v_ball0;
    gr_body_get_velocity(w, ball, &v_ball0, NULL);
    gr_vec3 ball_impulse = {0, 0, 0}, wall_impulse = {0, 0, 0};
    double splash_height = 0, impact_speed = 0, t = 0;
    int crater_frame = -1;
    const double t_start = ex_now();
    for (int f = 0; f < 150; f++) {
        ex_ok(w, gr_step(w, dt), "gr_step");
        t += dt;
        gr_vec3 fb, fw;
        gr_body_get_force(w, ball, &fb, NULL);
        gr_body_get_force(w, box, &fw, NULL);
        ball_impulse = (gr_vec3){ball_impulse.x + fb.x * dt, ball_impulse.y + fb.y * dt, ball_impulse.z + fb.z * dt};
        wall_impulse = (gr_vec3){wall_impulse.x + fw.x * dt, wall_impulse.y + fw.y * dt, wall_impulse.z + fw.z * dt};
        ex_stats s;
        ex_grain_stats(w, &s);
        splash_height = fmax(splash_height, s.max[1] - bed.max[1]);
        gr_vec3 vb;
        gr_body_get_velocity(w, ball, &vb, NULL);
        if (f < 10)
            impact_speed = fmax(impact_speed, -vb.y);
        if (f == 14) {
            /* the crater, a moment after impact (the picture Bell shows) */
            const float lo[3] = {(float)-hx, 0.0f, (float)-hz}, hi[3] = {(float)hx, (float)(2 * hy), (float)hz};
            const float view[3] = {0.0f, -0.3f, 1.0f}; /* through the glass */
            const unsigned char grey[3] = {170, 175, 185};
            ex_points pts;
            ex_body_points(w, ball, grey, &pts);
            ex_render_png_with(w, &args, "splash.png", lo, hi, view, NULL, &pts, 1);
            ex_points_free(&pts);
            crater_frame = f;
        }
    }
    const double wall = ex_now() - t_start;
    gr_vec3 p_ball, v_ball;
    gr_body_get_pose(w, ball, &p_ball, NULL);
    gr_body_get_velocity(w, ball, &v_ball, NULL);
    double gm;
    const gr_vec3 p_grains1 = grain_momentum(w, &gm);
    ex_stats end;
    ex_grain_stats(w, &end);
    printf("%u grains, ball of %.3f kg with %u particles, %.2f s simulated in %.2f s wall\n", added, M,
           gr_body_get_particle_count(w, ball), t, wall);

    /* the ball: M dv = J_grains + M g T */
    const double dv_ball = M * (v_ball.y - v_ball0.y), expect_ball = ball_impulse.y - M * g * t;
    /* everything: d(P_grains + P_ball) = J_walls + (m + M) g T; the walls' impulse on the
     * system is minus what the grains put on the walls */
    const double dp_all = (p_grains1.y - p_grains0.y) + M * (v_ball.y - v_ball0.y);
    const double expect_all = -wall_impulse.y - (grain_mass + M) * g * t;
    ex_check(splash_height > 0.03, "the impact threw grains up (%.1f cm above the old surface)", 100 * splash_height);
    ex_check(sqrt(v_ball.x * v_ball.x + v_ball.y * v_ball.y + v_ball.z * v_ball.z) < 0.01,
             "the ball came to rest (%.2e m/s)", sqrt(v_ball.x * v_ball.x + v_ball.y * v_ball.y + v_ball.z * v_ball.z));
    ex_check(p_ball.y - R < surface - 0.3 * R, "it lies in a crater: its bottom %.1f cm below the old surface",
             100 * (surface - (p_ball.y - R)));
    ex_check(fabs(dv_ball - expect_ball) < 0.02 * fabs(M * v_ball0.y),
             "ball momentum: change %.4f = grains' impulse + weight's %.4f N s", dv_ball, expect_ball);
    ex_check(fabs(dp_all - expect_all) < 0.02 * (grain_mass + M) * g * t,
             "system momentum: change %.4f = walls' impulse + gravity's %.4f N s", dp_all, expect_all);
    ex_check(end.min[1] > 0 && fabs(end.mean[2]) < hz, "all grains stayed behind the glass");
    ex_check(crater_frame > 0, "wrote splash.png");
    if (args.ply)
        ex_write_ply(w, &args, "splash.ply");
    (void)impact_speed;
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
