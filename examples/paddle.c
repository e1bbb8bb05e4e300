/* SPDX-License-Identifier: MIT */
/* paddle: a kinematic paddle stirs a bed of sand. The host sets the paddle's angular velocity;
 * the sand pushes back (the torque the paddle feels opposes its rotation). Checks that the sand
 * is stirred, stays in its bowl and that the reaction torque has the right sign. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 3000;

    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");

    gr_body_def box_def;
    gr_body_def_init(&box_def);
    box_def.shape = GR_SHAPE_CONTAINER;
    box_def.open_faces = GR_FACE_POS_Y;
    box_def.half_extents = (gr_vec3){0.05, 0.05, 0.05};
    box_def.position = (gr_vec3){0, 0.05, 0};
    gr_body box;
    ex_ok(w, gr_add_body(w, &box_def, &box), "gr_add_body");
    gr_material_def soft;
    gr_material_def_init(&soft);
    soft.youngs_modulus = 1e6; /* soft grains take a larger stable substep */
    gr_material sand;
    ex_ok(w, gr_add_material(w, &soft, &sand), "gr_add_material");

    /* a vertical blade standing in the bowl; the sand is poured around it */
    gr_body_def paddle_def;
    gr_body_def_init(&paddle_def);
    paddle_def.shape = GR_SHAPE_BOX;
    paddle_def.motion = GR_MOTION_KINEMATIC;
    paddle_def.half_extents = (gr_vec3){0.035, 0.02, 0.003};
    paddle_def.position = (gr_vec3){0, 0.025, 0};
    gr_body paddle;
    ex_ok(w, gr_add_body(w, &paddle_def, &paddle), "gr_add_body paddle");
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.min = (gr_vec3){-0.05, 0.0, -0.05};
    fill.max = (gr_vec3){0.05, 0.1, 0.05};
    fill.radius = 0.0025;
    fill.max_count = grains;
    fill.material = sand;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");
    for (int frame = 0; frame < 30; frame++) /* let the sand settle first */
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
    double *before = (double *)malloc(sizeof(double) * 3 * added);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, added, before, 0);

    double torque_sum = 0;
    double t0 = ex_now();
    for (int frame = 0; frame < 60; frame++) {
        double spin = fmin(1.0, frame / 10.0) * 4.0; /* ramp up to 4 rad/s */
        ex_ok(w, gr_body_set_velocity(w, paddle, (gr_vec3){0, 0, 0}, (gr_vec3){0, spin, 0}), "set_velocity");
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
        gr_vec3 torque;
        gr_body_get_force(w, paddle, NULL, &torque);
        if (frame >= 20)
            torque_sum += torque.y;
    }
    double wall = ex_now() - t0;
    gr_quat q;
    gr_body_get_pose(w, paddle, NULL, &q);
    double *after = (double *)malloc(sizeof(double) * 3 * added);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, added, after, 0);
    double moved = 0;
    unsigned escaped = 0;
    for (uint32_t i = 0; i < added; i++) {
        double dx = after[3 * i] - before[3 * i], dz = after[3 * i + 2] - before[3 * i + 2];
        moved += sqrt(dx * dx + dz * dz) / added;
        escaped += fabs(after[3 * i]) > 0.05 || fabs(after[3 * i + 2]) > 0.05 || after[3 * i + 1] < 0;
    }
    printf("%u grains stirred for 1 s in %.2f s wall; paddle turned %.2f rad\n", added, wall,
           2 * atan2(sqrt(q.x * q.x + q.y * q.y + q.z * q.z), q.w));
    ex_check(moved > 0.003, "the sand was stirred (mean horizontal displacement %.4f m)", moved);
    ex_check(escaped == 0, "no grain left the bowl (%u outside)", escaped);
    ex_check(torque_sum / 40 < -1e-4, "the sand resists the paddle: mean torque %.4f N m (spin is +y)", torque_sum / 40);
    const float lo[3] = {-0.05f, 0.0f, -0.05f}, hi[3] = {0.05f, 0.1f, 0.05f};
    ex_check(ex_render_png(w, &args, "paddle.png", lo, hi, NULL, NULL) == 0, "wrote paddle.png");
    if (args.ply)
        ex_write_ply(w, &args, "paddle.ply");
    free(before);
    free(after);
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
