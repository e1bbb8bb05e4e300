/* SPDX-License-Identifier: MIT */
/* hello: the smallest complete use of granular. Create a world, add a floor and one grain,
 * step, read the grain back. Checks that the grain falls and comes to rest on the floor. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "common/example_util.h"

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);

    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM); /* gravity (0, -9.81, 0), automatic substep */
    def.logger.func = ex_log_stderr;
    gr_world *world;
    ex_ok(NULL, gr_world_create(&def, &world), "gr_world_create");

    gr_body_def floor_def;
    gr_body_def_init(&floor_def);
    floor_def.shape = GR_SHAPE_PLANE; /* the plane y = 0, normal +y */
    ex_ok(world, gr_add_body(world, &floor_def, NULL), "gr_add_body");

    gr_grain_def grain_def;
    gr_grain_def_init(&grain_def);
    grain_def.radius = 0.01;
    grain_def.position = (gr_vec3){0.0, 0.5, 0.0};
    gr_grain grain;
    ex_ok(world, gr_add_grain(world, &grain_def, &grain), "gr_add_grain");

    for (int frame = 0; frame < 120; frame++) /* two seconds at 60 frames per second */
        ex_ok(world, gr_step(world, 1.0 / 60), "gr_step");

    gr_grain_state s;
    ex_ok(world, gr_grain_get_state(world, grain, &s), "gr_grain_get_state");
    printf("after %.2f s the grain is at (%.4f, %.6f, %.4f) m, speed %.2e m/s\n", gr_world_get_time(world),
           s.position.x, s.position.y, s.position.z,
           sqrt(s.velocity.x * s.velocity.x + s.velocity.y * s.velocity.y + s.velocity.z * s.velocity.z));
    ex_check(fabs(s.position.y - 0.01) < 1e-4, "the grain rests on the floor (y = %.6f, radius 0.01)", s.position.y);
    ex_check(fabs(s.velocity.y) < 1e-3, "the grain is at rest");
    gr_world_destroy(world);
    return ex_failures() ? 1 : 0;
}
