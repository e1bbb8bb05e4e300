/* SPDX-License-Identifier: MIT */
/* Seed snapshots: DEM spheres, tetrahedra and bodies (plane, container, dynamic box, mesh,
 * host-owned sphere), the same under RKF45, DEM with rolling histories, PBD with bodies and
 * render points. Small, so that mutations reach every field often. */
#include "fuzz_seeds.h"

#include <string.h>

static void host_get_state(gr_body body, void *ud, gr_host_body_state *state, void *user)
{
    (void)body, (void)ud, (void)state, (void)user; /* the body stays where the library has it */
}

static void host_apply_impulse(gr_body body, void *ud, gr_vec3 j, gr_vec3 aj, void *user)
{
    (void)body, (void)ud, (void)j, (void)aj, (void)user;
}

gr_host_hooks fuzz_host_hooks(void)
{
    gr_host_hooks h;
    memset(&h, 0, sizeof h);
    h.get_state = host_get_state;
    h.apply_impulse = host_apply_impulse;
    return h;
}

static int add_body(gr_world *w, gr_shape_type shape, gr_motion_type motion, gr_vec3 at, gr_body *out)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = shape;
    bd.motion = motion;
    bd.position = at;
    bd.normal = (gr_vec3){0, 1, 0};
    bd.radius = 0.012;
    bd.half_extents = (gr_vec3){0.012, 0.012, 0.012};
    bd.particle_radius = 0.006;
    gr_vec3 v[8];
    uint32_t idx[36];
    if (shape == GR_SHAPE_MESH) {
        tu_box_mesh((gr_vec3){0.012, 0.012, 0.012}, (gr_vec3){0, 0, 0}, v, idx);
        bd.mesh_vertices = v;
        bd.mesh_vertex_count = 8;
        bd.mesh_indices = idx;
        bd.mesh_triangle_count = 12;
    }
    if (shape == GR_SHAPE_CONTAINER) {
        bd.half_extents = (gr_vec3){0.05, 0.05, 0.05};
        bd.open_faces = 1u << 2; /* open top */
    }
    return gr_add_body(w, &bd, out) == GR_OK;
}

static int grains(gr_world *w, int count, int clumps, gr_grain *first)
{
    for (int k = 0; k < count; k++) {
        gr_grain_def g;
        gr_grain_def_init(&g);
        g.radius = 0.004;
        g.shape = clumps && k % 3 == 0 ? GR_GRAIN_TETRAHEDRON : GR_GRAIN_SPHERE;
        g.position = (gr_vec3){-0.02 + 0.009 * (k % 5), 0.006 + 0.009 * (k / 5), 0.002 * (k % 3)};
        if (gr_add_grain(w, &g, k < 4 ? &first[k] : NULL) != GR_OK)
            return 0;
    }
    return 1;
}

int fuzz_seed(int k, tu_stream *out, const char **name)
{
    static const char *names[FUZZ_SEED_COUNT] = {"dem_bodies", "dem_rkf45", "dem_rolling_container", "pbd_points",
                                                 "dem_removed"};
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    gr_world_def def;
    gr_world_def_init(&def, k == 3 ? GR_SOLVER_PBD : GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, -9.81, 0};
    def.host = fuzz_host_hooks();
    def.dem = &dem;
    def.pbd = &pbd;
    if (k == 1)
        dem.integrator = GR_INTEGRATOR_RKF45;
    if (k == 2)
        dem.rolling_law = GR_ROLLING_EPSD;
    if (k == 3)
        pbd.hr_radius = 0.002;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return 0;
    int ok = 1;
    gr_grain first[4];
    gr_body box;
    if (k == 2) {
        ok = add_body(w, GR_SHAPE_CONTAINER, GR_MOTION_STATIC, (gr_vec3){0, 0.05, 0}, NULL) &&
             add_body(w, GR_SHAPE_CAPSULE, GR_MOTION_KINEMATIC, (gr_vec3){0.03, 0.02, 0}, NULL) &&
             grains(w, 12, 1, first);
    } else {
        ok = add_body(w, GR_SHAPE_PLANE, GR_MOTION_STATIC, (gr_vec3){0, 0, 0}, NULL) &&
             add_body(w, GR_SHAPE_BOX, GR_MOTION_DYNAMIC, (gr_vec3){0.04, 0.013, 0}, &box) &&
             (k == 3 || add_body(w, GR_SHAPE_MESH, GR_MOTION_STATIC, (gr_vec3){-0.05, 0.013, 0}, NULL)) &&
             (k == 3 || add_body(w, GR_SHAPE_SPHERE, GR_MOTION_HOST, (gr_vec3){0.0, 0.06, 0.04}, NULL)) &&
             grains(w, k == 3 ? 12 : 15, k != 3, first);
    }
    for (int i = 0; ok && i < 6; i++)
        ok = gr_step(w, 1.0 / 120) == GR_OK;
    if (ok && k == 4) { /* removed grains and a removed body: dead records and free slots */
        ok = gr_remove_grains(w, first, 2) == GR_OK && gr_remove_body(w, box) == GR_OK;
    }
    tu_stream_init(out);
    ok = ok && gr_world_save(w, tu_stream_write, out) == GR_OK;
    gr_world_destroy(w);
    *name = names[k];
    return ok;
}
