/* SPDX-License-Identifier: MIT */
/* host_body: two-way coupling with a rigid body the host engine owns. A tiny stand-in
 * "engine" below owns a wooden crate: it integrates the crate with gravity and with the
 * impulses the sand reports after every gr_step, and tells the library the crate's pose at
 * the start of every step. Dropped on a sand bed, the crate settles at rest, and the force
 * the sand reports equals the crate's weight within 2 %. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/example_util.h"

/* ---- the stand-in engine: one rigid box, semi-implicit Euler at the frame rate ---------- */

typedef struct engine_body {
    double mass;
    double inertia[3]; ///< principal moments, body axes
    double x[3], v[3], w[3];
    gr_quat q;
} engine_body;

typedef struct engine {
    engine_body crate;
    double dt;
    double gravity;
    double last_impulse[3];
    int impulses;
} engine;

static void quat_rotate(gr_quat q, const double a[3], double out[3])
{
    /* out = q a q^-1 */
    const double tx = 2 * (q.y * a[2] - q.z * a[1]), ty = 2 * (q.z * a[0] - q.x * a[2]), tz = 2 * (q.x * a[1] - q.y * a[0]);
    out[0] = a[0] + q.w * tx + (q.y * tz - q.z * ty);
    out[1] = a[1] + q.w * ty + (q.z * tx - q.x * tz);
    out[2] = a[2] + q.w * tz + (q.x * ty - q.y * tx);
}

/* The library asks for the crate's state at the start of each gr_step (on the caller's thread). */
static void engine_get_state(gr_body body, void *body_user, gr_host_body_state *s, void *user)
{
    (void)body;
    (void)user;
    const engine_body *b = (const engine_body *)body_user;
    s->position = (gr_vec3){b->x[0], b->x[1], b->x[2]};
    s->orientation = b->q;
    s->linear_velocity = (gr_vec3){b->v[0], b->v[1], b->v[2]};
    s->angular_velocity = (gr_vec3){b->w[0], b->w[1], b->w[2]};
}

/* ...and hands over the sand's impulse at the end: the engine integrates its body. */
static void engine_apply_impulse(gr_body body, void *body_user, gr_vec3 impulse, gr_vec3 angular, void *user)
{
    (void)body;
    engine *e = (engine *)user;
    engine_body *b = (engine_body *)body_user;
    const double J[3] = {impulse.x, impulse.y, impulse.z};
    for (int k = 0; k < 3; k++) {
        b->v[k] += J[k] / b->mass + (k == 1 ? -e->gravity * e->dt : 0.0);
        e->last_impulse[k] = J[k];
    }
    /* angular: w += R I^-1 R^T L, with the box's principal inertia */
    const gr_quat qi = {-b->q.x, -b->q.y, -b->q.z, b->q.w};
    const double L[3] = {angular.x, angular.y, angular.z};
    double l[3], dw[3];
    quat_rotate(qi, L, l);
    for (int k = 0; k < 3; k++)
        l[k] /= b->inertia[k];
    quat_rotate(b->q, l, dw);
    for (int k = 0; k < 3; k++) {
        b->w[k] += dw[k];
        b->x[k] += b->v[k] * e->dt;
    }
    /* q += dt/2 (0, w) q */
    const gr_quat q = b->q;
    const double h = 0.5 * e->dt;
    gr_quat n = {q.x + h * (b->w[0] * q.w + b->w[1] * q.z - b->w[2] * q.y),
                 q.y + h * (b->w[1] * q.w + b->w[2] * q.x - b->w[0] * q.z),
                 q.z + h * (b->w[2] * q.w + b->w[0] * q.y - b->w[1] * q.x),
                 q.w - h * (b->w[0] * q.x + b->w[1] * q.y + b->w[2] * q.z)};
    const double len = sqrt(n.x * n.x + n.y * n.y + n.z * n.z + n.w * n.w);
    b->q = (gr_quat){n.x / len, n.y / len, n.z / len, n.w / len};
    e->impulses++;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 3000;

    engine eng;
    memset(&eng, 0, sizeof eng);
    eng.dt = 1.0 / 60;
    eng.gravity = 9.81;

    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    def.host.get_state = engine_get_state;
    def.host.apply_impulse = engine_apply_impulse;
    def.host.user = &eng;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");

    gr_material_def sand_def;
    gr_material_def_init(&sand_def);
    sand_def.youngs_modulus = 2e6;
    sand_def.friction = 0.5;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &sand_def, &sand), "gr_add_material");

    /* a sand bed in an open box, 16 x 16 cm */
    gr_body_def box_def;
    gr_body_def_init(&box_def);
    box_def.shape = GR_SHAPE_CONTAINER;
    box_def.open_faces = GR_FACE_POS_Y;
    box_def.half_extents = (gr_vec3){0.08, 0.06, 0.08};
    box_def.position = (gr_vec3){0, 0.06, 0};
    box_def.material = sand;
    ex_ok(w, gr_add_body(w, &box_def, NULL), "gr_add_body (box)");
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.min = (gr_vec3){-0.08, 0.0, -0.08};
    fill.max = (gr_vec3){0.08, 0.12, 0.08};
    fill.radius = 0.0035;
    fill.radius_max = 0.004;
    fill.material = sand;
    fill.max_count = grains;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");
    for (int f = 0; f < 45; f++)
        ex_ok(w, gr_step(w, eng.dt), "gr_step (settling the bed)");

    /* the engine's crate: 8 x 6 x 8 cm of wood (600 kg/m^3), dropped from 10 cm above the bed,
     * turning a little. The library's copy gets the same density so its mass agrees. */
    const double hx = 0.04, hy = 0.03, hz = 0.04, rho = 600;
    engine_body *c = &eng.crate;
    c->mass = rho * 8 * hx * hy * hz;
    c->inertia[0] = c->mass * (hy * hy + hz * hz) / 3;
    c->inertia[1] = c->mass * (hx * hx + hz * hz) / 3;
    c->inertia[2] = c->mass * (hx * hx + hy * hy) / 3;
    ex_stats bed;
    ex_grain_stats(w, &bed);
    c->x[1] = bed.max[1] + hy + 0.1;
    c->q = (gr_quat){0.05, 0, 0.03, 1};
    const double ql = sqrt(0.05 * 0.05 + 0.03 * 0.03 + 1);
    c->q = (gr_quat){c->q.x / ql, c->q.y / ql, c->q.z / ql, c->q.w / ql};
    gr_material_def wood_def;
    gr_material_def_init(&wood_def);
    wood_def.density = rho;
    wood_def.youngs_modulus = 2e6;
    wood_def.friction = 0.5;
    gr_material wood;
    ex_ok(w, gr_add_material(w, &wood_def, &wood), "gr_add_material (wood)");
    gr_body_def crate_def;
    gr_body_def_init(&crate_def);
    crate_def.shape = GR_SHAPE_BOX;
    crate_def.motion = GR_MOTION_HOST;
    crate_def.half_extents = (gr_vec3){hx, hy, hz};
    crate_def.position = (gr_vec3){c->x[0], c->x[1], c->x[2]};
    crate_def.orientation = c->q;
    crate_def.material = wood;
    crate_def.particle_radius = 0.0035; /* about the grains' size: a close fit */
    crate_def.user_data = c;
    gr_body crate;
    ex_ok(w, gr_add_body(w, &crate_def, &crate), "gr_add_body (crate)");
    double lib_mass;
    gr_body_get_mass(w, crate, &lib_mass);

    const double t0 = ex_now();
    double sum_impulse = 0;
    const int frames = 120, averaged = 30;
    for (int f = 0; f < frames; f++) {
        ex_ok(w, gr_step(w, eng.dt), "gr_step");
        if (f >= frames - averaged)
            sum_impulse += eng.last_impulse[1];
    }
    const double wall = ex_now() - t0;
    const double weight = c->mass * eng.gravity, force = sum_impulse / (averaged * eng.dt);
    const double speed = sqrt(c->v[0] * c->v[0] + c->v[1] * c->v[1] + c->v[2] * c->v[2]);
    printf("%u grains, crate of %.4f kg with %u surface particles; %d frames in %.2f s wall\n", added, c->mass,
           gr_body_get_particle_count(w, crate), frames, wall);
    ex_check(fabs(lib_mass - c->mass) < 1e-12 * c->mass, "the library's crate mass matches the engine's (%.6f kg)",
             lib_mass);
    ex_check(eng.impulses == frames, "the engine got an impulse every frame (%d)", eng.impulses);
    ex_check(speed < 2e-3, "the crate is at rest (%.2e m/s)", speed);
    ex_check(c->x[1] > bed.max[1] - 0.5 * hy && c->x[1] < bed.max[1] + hy + 0.01,
             "it rests on the sand (centre %.4f m, bed top %.4f m)", c->x[1], bed.max[1]);
    ex_check(fabs(force - weight) < 0.02 * weight, "the sand carries its weight: %.4f N of %.4f N (%+.2f %%)", force,
             weight, 100 * (force / weight - 1));
    const float lo[3] = {-0.08f, 0.0f, -0.08f}, hi[3] = {0.08f, 0.12f, 0.08f};
    const unsigned char brown[3] = {150, 95, 55};
    ex_points crate_pts;
    ex_body_points(w, crate, brown, &crate_pts);
    ex_check(ex_render_png_with(w, &args, "host_body.png", lo, hi, NULL, NULL, &crate_pts, 1) == 0,
             "wrote host_body.png");
    ex_points_free(&crate_pts);
    if (args.ply)
        ex_write_ply(w, &args, "host_body.ply");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
