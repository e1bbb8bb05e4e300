/* SPDX-License-Identifier: MIT */
/* avalanche: sand slides down a ramp into a stack of light boxes and knocks it over; then a
 * kinematic bulldozer blade (a mesh) pushes what is left across the floor (Bell 2005,
 * Figures 7 and 8). Checks: the avalanche topples or shoves the boxes, the blade sweeps its
 * path clean (grains and boxes end up ahead of it), and the load on the blade opposes its
 * motion. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"

enum { BOXES = 6 };

/* Angle [deg] between a body's local up axis and the world's. */
static double tilt(gr_quat q)
{
    const double up_y = 1 - 2 * (q.x * q.x + q.z * q.z); /* y component of R e_y */
    return acos(fmax(-1.0, fmin(1.0, up_y))) * 180.0 / 3.14159265358979323846;
}

/* The blade: a box mesh 2 x 16 x 20 cm (8 vertices, 12 triangles, wound outwards). */
static void blade_mesh(gr_vec3 v[8], uint32_t idx[36])
{
    const double h[3] = {0.01, 0.08, 0.1};
    for (int k = 0; k < 8; k++)
        v[k] = (gr_vec3){k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]};
    static const uint32_t faces[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                       2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    for (int k = 0; k < 36; k++)
        idx[k] = faces[k];
}

/* Spheres on a box's top face (local +y), to draw an analytic body. */
static ex_points box_top_points(gr_vec3 c, gr_quat q, gr_vec3 h, float r, const unsigned char rgb[3])
{
    ex_points p;
    const int nx = (int)(2 * h.x / (1.6 * r)) + 1, nz = (int)(2 * h.z / (1.6 * r)) + 1;
    p.count = (uint32_t)(nx * nz);
    p.xyzr = (float *)malloc(sizeof(float) * 4 * p.count);
    for (int k = 0; k < 3; k++)
        p.rgb[k] = rgb[k];
    const double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    const double R[3][3] = {{1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)},
                            {2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)},
                            {2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)}};
    uint32_t n = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < nz; j++) {
            const double l[3] = {-h.x + 2 * h.x * i / (nx - 1), h.y - r, -h.z + 2 * h.z * j / (nz - 1)};
            for (int a = 0; a < 3; a++)
                p.xyzr[4 * n + a] = (float)((a == 0 ? c.x : a == 1 ? c.y : c.z) + R[a][0] * l[0] + R[a][1] * l[1] +
                                            R[a][2] * l[2]);
            p.xyzr[4 * n + 3] = r;
            n++;
        }
    return p;
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const unsigned grains = args.grains ? args.grains : 4000;

    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_EPSD;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.worker_count = args.workers;
    def.logger.func = ex_log_stderr;
    def.bounds_min = (gr_vec3){-1, -0.1, -0.5};
    def.bounds_max = (gr_vec3){1.5, 1, 0.5};
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");

    gr_material_def sand_def;
    gr_material_def_init(&sand_def);
    sand_def.youngs_modulus = 5e6;
    sand_def.friction = 0.45;
    sand_def.rolling_friction = 0.05;
    gr_material sand;
    ex_ok(w, gr_add_material(w, &sand_def, &sand), "gr_add_material (sand)");
    gr_material_def box_mat_def = sand_def;
    box_mat_def.density = 250; /* light boxes: a cardboard stack */
    box_mat_def.friction = 0.9;
    box_mat_def.rolling_friction = 0.0;
    gr_material cardboard;
    ex_ok(w, gr_add_material(w, &box_mat_def, &cardboard), "gr_add_material (cardboard)");
    /* boxes slip on each other but grip the ground: the sand pulls the bottom row out */
    gr_material_pair_def slip;
    gr_material_pair_def_init(&slip);
    slip.friction = 0.15;
    slip.restitution = 0.3;
    ex_ok(w, gr_set_material_pair(w, cardboard, cardboard, &slip), "gr_set_material_pair");

    /* a channel 20 cm wide: floor, two side walls and a back wall */
    gr_body_def wall;
    gr_body_def_init(&wall);
    wall.shape = GR_SHAPE_PLANE;
    wall.material = sand;
    ex_ok(w, gr_add_body(w, &wall, NULL), "floor");
    wall.normal = (gr_vec3){0, 0, 1};
    wall.position = (gr_vec3){0, 0, -0.1};
    ex_ok(w, gr_add_body(w, &wall, NULL), "side wall");
    wall.normal = (gr_vec3){0, 0, -1};
    wall.position = (gr_vec3){0, 0, 0.1};
    ex_ok(w, gr_add_body(w, &wall, NULL), "side wall");
    wall.normal = (gr_vec3){1, 0, 0};
    wall.position = (gr_vec3){-0.45, 0, 0};
    ex_ok(w, gr_add_body(w, &wall, NULL), "back wall");
    /* the ramp: a slab tilted 35 degrees, its foot on the floor at x = 0 */
    const double slope = 35.0 * 3.14159265358979323846 / 180.0;
    gr_body_def ramp;
    gr_body_def_init(&ramp);
    ramp.shape = GR_SHAPE_BOX;
    ramp.material = sand;
    ramp.half_extents = (gr_vec3){0.28, 0.02, 0.1};
    ramp.orientation = (gr_quat){0, 0, sin(-slope / 2), cos(-slope / 2)}; /* rises towards -x */
    ramp.position = (gr_vec3){-0.28 * cos(slope) + 0.02 * sin(slope), 0.28 * sin(slope) - 0.02 * cos(slope), 0};
    ex_ok(w, gr_add_body(w, &ramp, NULL), "ramp");

    /* the sand, dropped in a heap onto the top of the ramp (the fill skips the ramp itself) */
    gr_fill_def fill;
    gr_fill_def_init(&fill);
    fill.min = (gr_vec3){-0.42, 0.31, -0.1};
    fill.max = (gr_vec3){-0.16, 0.58, 0.1};
    fill.radius = 0.004;
    fill.radius_max = 0.0048;
    fill.material = sand;
    fill.max_count = grains;
    uint32_t added;
    ex_ok(w, gr_fill_box(w, &fill, &added, NULL, 0), "gr_fill_box");

    /* the boxes: two rows of three tall boxes (3 x 12 x 6 cm) standing ahead of the ramp */
    gr_body boxes[BOXES];
    for (int k = 0; k < BOXES; k++) {
        gr_body_def bd;
        gr_body_def_init(&bd);
        bd.shape = GR_SHAPE_BOX;
        bd.motion = GR_MOTION_DYNAMIC;
        bd.half_extents = (gr_vec3){0.015, 0.06, 0.03};
        bd.position = (gr_vec3){0.12 + 0.08 * (k / 2), 0.0605, k % 2 ? 0.045 : -0.045};
        bd.material = cardboard;
        bd.particle_radius = 0.004;
        bd.particle_offset = -0.004; /* the boxes keep their size */
        ex_ok(w, gr_add_body(w, &bd, &boxes[k]), "gr_add_body (box)");
    }
    gr_vec3 start[BOXES];
    for (int k = 0; k < BOXES; k++)
        gr_body_get_pose(w, boxes[k], &start[k], NULL);

    const double dt = 1.0 / 60, t0 = ex_now();
    /* 1. the avalanche */
    for (int f = 0; f < 90; f++)
        ex_ok(w, gr_step(w, dt), "gr_step (avalanche)");
    int toppled = 0, shoved = 0;
    for (int k = 0; k < BOXES; k++) {
        gr_vec3 p;
        gr_quat q;
        gr_body_get_pose(w, boxes[k], &p, &q);
        const double moved = hypot(p.x - start[k].x, p.z - start[k].z);
        toppled += tilt(q) > 30;
        shoved += moved > 0.03;
        printf("box %d: moved %.1f cm, tilted %.0f deg\n", k, 100 * moved, tilt(q));
    }
    const float lo[3] = {-0.45f, 0.0f, -0.1f}, hi[3] = {0.9f, 0.4f, 0.1f};
    const unsigned char brown[3] = {165, 120, 80}, steel[3] = {120, 140, 170};
    const unsigned char grey[3] = {95, 100, 110};
    ex_points pts[BOXES + 2];
    pts[BOXES + 1] = box_top_points(ramp.position, ramp.orientation, ramp.half_extents, 0.004f, grey);
    for (int k = 0; k < BOXES; k++)
        ex_body_points(w, boxes[k], brown, &pts[k]);
    pts[BOXES] = pts[BOXES + 1];
    const float view[3] = {0.35f, -0.45f, -1.0f};
    ex_render_png_with(w, &args, "avalanche.png", lo, hi, view, NULL, pts, BOXES + 1);
    for (int k = 0; k < BOXES; k++)
        ex_points_free(&pts[k]);

    /* 2. the bulldozer: a kinematic blade drives along the floor through what came down */
    gr_vec3 bv[8];
    uint32_t bi[36];
    blade_mesh(bv, bi);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_MESH;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.mesh_vertices = bv;
    bd.mesh_indices = bi;
    bd.mesh_vertex_count = 8;
    bd.mesh_triangle_count = 12;
    bd.material = sand;
    bd.particle_radius = 0.004;
    /* it comes down from above the heap at the ramp's foot (a blade created inside the grains
     * would blast them away), then drives along the floor */
    const double lowered_y = 0.084, drop = 0.3, down_speed = 0.9;
    bd.position = (gr_vec3){0.02, lowered_y + drop, 0};
    bd.linear_velocity = (gr_vec3){0, -down_speed, 0};
    gr_body blade;
    ex_ok(w, gr_add_body(w, &bd, &blade), "gr_add_body (blade)");
    for (int f = 0; f < 20; f++) /* 1/3 s: 0.3 m down */
        ex_ok(w, gr_step(w, dt), "gr_step (lowering the blade)");
    gr_vec3 bp;
    gr_body_get_pose(w, blade, &bp, NULL);
    ex_check(fabs(bp.y - lowered_y) < 1e-9, "the kinematic blade followed its velocity exactly (y %.6f)", bp.y);
    ex_ok(w, gr_body_set_velocity(w, blade, (gr_vec3){0.5, 0, 0}, (gr_vec3){0, 0, 0}), "gr_body_set_velocity");

    /* the grains in the blade's path now (ahead of it, below its top): it must clear them */
    const uint32_t n0 = gr_world_get_grain_count(w);
    double *x0 = (double *)malloc(sizeof(double) * 3 * (n0 ? n0 : 1));
    uint64_t *in_path = (uint64_t *)malloc(sizeof(uint64_t) * (n0 ? n0 : 1));
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n0, x0, 0);
    uint32_t path = 0;
    for (uint32_t i = 0; i < n0; i++)
        if (x0[3 * i] > bp.x + 0.02 && x0[3 * i + 1] < 0.12) /* clear of its face by a grain */
            gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, i, 1, &in_path[path++], 0);
    free(x0);
    double load = 0;
    for (int f = 0; f < 72; f++) {
        ex_ok(w, gr_step(w, dt), "gr_step (bulldozer)");
        gr_vec3 fb;
        gr_body_get_force(w, blade, &fb, NULL);
        load += fb.x / 72;
    }
    const double wall_time = ex_now() - t0;
    gr_body_get_pose(w, blade, &bp, NULL);
    /* where those grains are now: ahead of the blade, or lifted over it (or gone off the end) */
    uint32_t behind = 0;
    for (uint32_t k = 0; k < path; k++) {
        gr_grain_state gs;
        const gr_grain gh = {in_path[k]};
        if (!gr_grain_is_valid(w, gh))
            continue; /* left the world's bounds: pushed off the end */
        ex_ok(w, gr_grain_get_state(w, gh, &gs), "gr_grain_get_state");
        behind += gs.position.x < bp.x - 0.02 && gs.position.y < 0.12;
    }
    free(in_path);
    int boxes_ahead = 0;
    for (int k = 0; k < BOXES; k++) {
        gr_vec3 p;
        gr_body_get_pose(w, boxes[k], &p, NULL);
        boxes_ahead += p.x > bp.x;
    }
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    printf("%u grains, %d boxes, blade at x = %.3f: %.2f s simulated in %.2f s wall\n", added, BOXES, bp.x, c.time,
           wall_time);
    ex_check(toppled >= 2, "the avalanche toppled %d of the %d boxes (and shoved %d)", toppled, BOXES, shoved);
    ex_check(path > added / 4, "the avalanche ran out past the ramp's foot (%u grains)", path);
    ex_check(behind == 0, "the blade swept its path: %u of the %u grains in it left behind", behind, path);
    ex_check(boxes_ahead == BOXES, "all %d boxes pushed ahead of the blade (%d)", BOXES, boxes_ahead);
    ex_check(load < 0, "the load opposes the blade (%.3f N)", load);
    for (int k = 0; k < BOXES; k++)
        ex_body_points(w, boxes[k], brown, &pts[k]);
    ex_body_points(w, blade, steel, &pts[BOXES]);
    ex_check(ex_render_png_with(w, &args, "bulldozer.png", lo, hi, view, NULL, pts, BOXES + 2) == 0,
             "wrote avalanche.png and bulldozer.png");
    for (int k = 0; k < BOXES + 2; k++)
        ex_points_free(&pts[k]);
    if (args.ply)
        ex_write_ply(w, &args, "avalanche.ply");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
