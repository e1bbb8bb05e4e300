/* SPDX-License-Identifier: MIT */
/* terrain_vehicle: a host-owned box (a 1000 kg vehicle body, 1.2 x 0.4 x 0.8 m) driven across
 * a snow terrain by a stand-in engine (docs/terrain.md "Bodies"). The engine owns the body: it
 * integrates gravity and the impulse the library reports after every gr_step, and drives it at
 * 1 m/s (as wheels would). The terrain carries it: its footprint sinks until the snow bears
 * it (bearing pressure plus Terzaghi's depth term), then stays level, and the body leaves a
 * packed track behind it. Writes terrain_vehicle.png. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/example_util.h"
#include "common/terrain_image.h"

typedef struct engine {
    double mass, dt, drive;
    double x[3], v[3];
    gr_quat q;
} engine;

static void get_state(gr_body body, void *body_user, gr_host_body_state *s, void *user)
{
    (void)body, (void)user;
    const engine *e = (const engine *)body_user;
    s->position = (gr_vec3){e->x[0], e->x[1], e->x[2]};
    s->orientation = e->q;
    s->linear_velocity = (gr_vec3){e->v[0], e->v[1], e->v[2]};
    s->angular_velocity = (gr_vec3){0, 0, 0};
}

/* The engine's integrator: the sand's impulse and gravity on the vertical; the drive holds the
 * speed along x (the wheels' job); it keeps the body upright (a vehicle's suspension). */
static void apply_impulse(gr_body body, void *body_user, gr_vec3 impulse, gr_vec3 angular, void *user)
{
    (void)body, (void)angular, (void)user;
    engine *e = (engine *)body_user;
    e->v[1] += impulse.y / e->mass - 9.81 * e->dt;
    e->v[0] = e->drive;
    e->v[2] = 0;
    for (int k = 0; k < 3; k++)
        e->x[k] += e->v[k] * e->dt;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    engine eng;
    memset(&eng, 0, sizeof eng);
    eng.mass = 1000, eng.dt = 1.0 / 60, eng.drive = 1.0;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    def.host.get_state = get_state;
    def.host.apply_impulse = apply_impulse;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    const uint32_t NX = 125, NZ = 40;
    const double d = 0.04, H = 0.3;
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    ex_ok(NULL, gr_terrain_def_preset(&td, GR_TERRAIN_SNOW), "gr_terrain_def_preset");
    td.columns_x = NX, td.columns_z = NZ;
    td.spacing = d;
    td.height = H;
    td.hybrid = 0;
    td.tile_size = 16;
    uint32_t terrain;
    ex_ok(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &terrain), "gr_world_add_system (terrain)");
    const double hx = 0.6, hy = 0.2, hz = 0.4, zc = 0.5 * (NZ - 1) * d;
    eng.x[0] = 0.8, eng.x[1] = H + hy + 0.02, eng.x[2] = zc;
    eng.q = (gr_quat){0, 0, 0, 1};
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_HOST;
    bd.half_extents = (gr_vec3){hx, hy, hz};
    bd.position = (gr_vec3){eng.x[0], eng.x[1], eng.x[2]};
    bd.mass = eng.mass;
    bd.inertia = (gr_vec3){eng.mass * (hy * hy + hz * hz) / 3, eng.mass * (hx * hx + hz * hz) / 3,
                           eng.mass * (hx * hx + hy * hy) / 3};
    bd.particle_radius = 0.05;
    bd.user_data = &eng;
    gr_body car;
    ex_ok(w, gr_add_body(w, &bd, &car), "gr_add_body (vehicle)");
    const double pressure = eng.mass * 9.81 / (4 * hx * hz);
    const double t0 = ex_now();
    double y_min = 1e9, y_max = -1e9;
    const int frames = 180; /* 3 s: 3 m */
    for (int f = 0; f < frames; f++) {
        ex_ok(w, gr_step(w, eng.dt), "gr_step");
        if (f >= 60) { /* after it has settled in */
            y_min = eng.x[1] < y_min ? eng.x[1] : y_min;
            y_max = eng.x[1] > y_max ? eng.x[1] : y_max;
        }
    }
    const double wall = ex_now() - t0;
    const double sink = H - (eng.x[1] - hy);
    float *h = (float *)malloc(sizeof(float) * NX * NZ);
    gr_terrain_read_heights(w, terrain, 0, 0, NX, NZ, h);
    /* the track: between where it started and where it is now, under its path */
    double track = 0;
    int n = 0;
    for (uint32_t i = (uint32_t)((0.8 + hx + 0.2) / d); i < (uint32_t)((eng.x[0] - hx - 0.2) / d); i++, n++)
        track += H - h[(uint32_t)lround(zc / d) * NX + i];
    track /= n ? n : 1;
    free(h);
    printf("%.0f kg on %.2f m^2 of snow (%.1f kPa; bearing 8 kPa + 100 kPa/m); %d frames in %.2f s wall\n", eng.mass,
           4 * hx * hz, 1e-3 * pressure, frames, wall);
    printf("it sank %.1f mm and rode level within %.2f mm; track behind it %.1f mm deep; drove to x = %.2f m\n",
           1e3 * sink, 1e3 * (y_max - y_min), 1e3 * track, eng.x[0]);
    ex_check(sink > 0.005 && sink < 0.1, "the snow carries it after a little sinkage (%.1f mm)", 1e3 * sink);
    ex_check(y_max - y_min < 0.005, "it rides level while driven (%.2f mm)", 1e3 * (y_max - y_min));
    ex_check(track > 0.005, "it leaves a track (%.1f mm)", 1e3 * track);
    ex_check(eng.x[0] > 3.5, "it drove across (x = %.2f m)", eng.x[0]);
    ex_check(ex_terrain_png(w, terrain, &args, "terrain_vehicle.png", 4, H) == 0, "wrote terrain_vehicle.png");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
