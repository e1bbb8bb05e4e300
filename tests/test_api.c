/* SPDX-License-Identifier: MIT */
/* The bad-input matrix: every entry point refuses bad input with its status and a message,
 * and the world is exactly as it was (state hash, counters and memory in use unchanged). */
#include <granular/granular.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "harness.h"
#include "test_util.h"

typedef struct ctx {
    gr_world *w;
    gr_world *other;
    gr_material mat;
    gr_material other_mat;
    gr_body box;
    gr_body kin;
    gr_body removed_body;
    gr_body other_body;
    gr_body dyn;
    gr_grain g;
    gr_grain removed;
    gr_grain other_grain;
} ctx;

typedef struct bad_case {
    const char *name;
    gr_status expected;
    gr_status (*run)(ctx *c);
} bad_case;

/* The expected status is listed again in `cases` below; here it documents the case. */
#define CASE(ident, status, ...)                  \
    static gr_status ident(ctx *c)                \
    {                                             \
        (void)c;                                  \
        __VA_ARGS__                               \
    }

static const double NaN_ = NAN;

static gr_grain_def grain_def(void)
{
    gr_grain_def d;
    gr_grain_def_init(&d);
    d.radius = 0.002;
    d.position = (gr_vec3){0, 0.5, 0};
    return d;
}

static gr_body_def body_def(gr_shape_type shape)
{
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = shape;
    d.position = (gr_vec3){0, -1, 0};
    return d;
}

/* A tetrahedron, wound counter-clockwise seen from outside. */
static const gr_vec3 tet_v[4] = {{0, 0, 0}, {0.1, 0, 0}, {0, 0.1, 0}, {0, 0, 0.1}};
static const uint32_t tet_idx[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static gr_body_def mesh_def(const uint32_t *idx)
{
    gr_body_def d = body_def(GR_SHAPE_MESH);
    d.mesh_vertices = tet_v;
    d.mesh_indices = idx;
    d.mesh_vertex_count = 4;
    d.mesh_triangle_count = 4;
    return d;
}

static gr_material_def mat_def(void)
{
    gr_material_def d;
    gr_material_def_init(&d);
    return d;
}

static gr_fill_def fill_def(void)
{
    gr_fill_def d;
    gr_fill_def_init(&d);
    d.min = (gr_vec3){0, 1, 0};
    d.max = (gr_vec3){0.02, 1.02, 0.02};
    d.radius = 0.002;
    return d;
}

/* ---- step, world ---- */
CASE(step_zero, GR_ERROR_INVALID_ARGUMENT, return gr_step(c->w, 0.0);)
CASE(step_negative, GR_ERROR_INVALID_ARGUMENT, return gr_step(c->w, -0.01);)
CASE(step_nan, GR_ERROR_NOT_FINITE, return gr_step(c->w, NaN_);)
CASE(step_inf, GR_ERROR_NOT_FINITE, return gr_step(c->w, INFINITY);)
CASE(step_absurd, GR_ERROR_INVALID_ARGUMENT, return gr_step(c->w, 1e30);)
CASE(step_null, GR_ERROR_NULL_ARGUMENT, return gr_step(NULL, 0.01);)
CASE(gravity_nan, GR_ERROR_NOT_FINITE, return gr_world_set_gravity(c->w, (gr_vec3){0, NaN_, 0});)
CASE(counters_null, GR_ERROR_NULL_ARGUMENT, return gr_world_get_counters(c->w, NULL);)
CASE(counters_size0, GR_ERROR_STRUCT_SIZE, gr_counters k; memset(&k, 0, sizeof k); return gr_world_get_counters(c->w, &k);)
CASE(get_def_null, GR_ERROR_NULL_ARGUMENT, return gr_world_get_def(c->w, NULL, NULL);)
CASE(get_pbd_def_null, GR_ERROR_NULL_ARGUMENT, return gr_world_get_pbd_def(c->w, NULL);)
CASE(get_pbd_def_size, GR_ERROR_STRUCT_SIZE, gr_pbd_def d; d.size = 0; return gr_world_get_pbd_def(c->w, &d);)
CASE(save_null, GR_ERROR_NULL_ARGUMENT, return gr_world_save(c->w, NULL, NULL);)
CASE(load_null, GR_ERROR_NULL_ARGUMENT, return gr_world_load(c->w, NULL, NULL);)
CASE(load_garbage, GR_ERROR_CORRUPT_DATA, tu_stream s; tu_stream_init(&s);
     for (int i = 0; i < 100; i++) tu_stream_write(&s, "garbage!", 8);
     gr_status r = gr_world_load(c->w, tu_stream_read, &s); tu_stream_free(&s); return r;)
CASE(load_empty, GR_ERROR_CORRUPT_DATA, tu_stream s; tu_stream_init(&s);
     gr_status r = gr_world_load(c->w, tu_stream_read, &s); tu_stream_free(&s); return r;)

/* ---- materials ---- */
CASE(mat_null, GR_ERROR_NULL_ARGUMENT, return gr_add_material(c->w, NULL, NULL);)
CASE(mat_size0, GR_ERROR_STRUCT_SIZE, gr_material_def d = mat_def(); d.size = 0; return gr_add_material(c->w, &d, NULL);)
CASE(mat_size_absurd, GR_ERROR_STRUCT_SIZE, gr_material_def d = mat_def(); d.size = 1u << 30; return gr_add_material(c->w, &d, NULL);)
CASE(mat_density0, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.density = 0; return gr_add_material(c->w, &d, NULL);)
CASE(mat_density_neg, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.density = -1; return gr_add_material(c->w, &d, NULL);)
CASE(mat_density_nan, GR_ERROR_NOT_FINITE, gr_material_def d = mat_def(); d.density = NaN_; return gr_add_material(c->w, &d, NULL);)
CASE(mat_young0, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.youngs_modulus = 0; return gr_add_material(c->w, &d, NULL);)
CASE(mat_young_inf, GR_ERROR_NOT_FINITE, gr_material_def d = mat_def(); d.youngs_modulus = INFINITY; return gr_add_material(c->w, &d, NULL);)
CASE(mat_poisson_half, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.poisson_ratio = 0.5; return gr_add_material(c->w, &d, NULL);)
CASE(mat_poisson_neg, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.poisson_ratio = -0.1; return gr_add_material(c->w, &d, NULL);)
CASE(mat_rest0, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.restitution = 0; return gr_add_material(c->w, &d, NULL);)
CASE(mat_rest_big, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.restitution = 1.5; return gr_add_material(c->w, &d, NULL);)
CASE(mat_friction_neg, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.friction = -0.1; return gr_add_material(c->w, &d, NULL);)
CASE(mat_rolling_nan, GR_ERROR_NOT_FINITE, gr_material_def d = mat_def(); d.rolling_friction = NaN_; return gr_add_material(c->w, &d, NULL);)
CASE(mat_reserved, GR_ERROR_INVALID_ARGUMENT, gr_material_def d = mat_def(); d.reserved0 = 1; return gr_add_material(c->w, &d, NULL);)
CASE(pair_rest_big, GR_ERROR_INVALID_ARGUMENT, gr_material_pair_def d; gr_material_pair_def_init(&d); d.restitution = 2;
     return gr_set_material_pair(c->w, c->mat, c->mat, &d);)
CASE(pair_other_world, GR_ERROR_WRONG_WORLD, gr_material_pair_def d; gr_material_pair_def_init(&d);
     return gr_set_material_pair(c->w, c->mat, c->other_mat, &d);)
CASE(pair_garbage_handle, GR_ERROR_INVALID_HANDLE, gr_material_pair_def d; gr_material_pair_def_init(&d);
     gr_material m = {c->mat.id + 1000}; return gr_set_material_pair(c->w, c->mat, m, &d);)
CASE(mat_get_null, GR_ERROR_NULL_ARGUMENT, return gr_material_get_def(c->w, c->mat, NULL);)
/* a size field inside a field (half a double): refused for every sized struct */
CASE(mat_size_cut, GR_ERROR_STRUCT_SIZE, gr_material_def d = mat_def(); d.size = 12; return gr_add_material(c->w, &d, NULL);)
CASE(pair_size_cut, GR_ERROR_STRUCT_SIZE, gr_material_pair_def d; gr_material_pair_def_init(&d); d.size = 20;
     return gr_set_material_pair(c->w, c->mat, c->mat, &d);)
CASE(mat_get_size_cut, GR_ERROR_STRUCT_SIZE, gr_material_def d; d.size = 36; return gr_material_get_def(c->w, c->mat, &d);)
CASE(grain_size_cut, GR_ERROR_STRUCT_SIZE, gr_grain_def d = grain_def(); d.size = (uint32_t)offsetof(gr_grain_def, position) + 8;
     return gr_add_grain(c->w, &d, NULL);)
CASE(grains_size_cut, GR_ERROR_STRUCT_SIZE, gr_grain_def d[2] = {grain_def(), grain_def()};
     d[0].size = d[1].size = (uint32_t)offsetof(gr_grain_def, orientation) + 24; return gr_add_grains(c->w, d, 1, NULL);)
CASE(body_size_cut, GR_ERROR_STRUCT_SIZE, gr_body_def d = body_def(GR_SHAPE_BOX); d.size = (uint32_t)offsetof(gr_body_def, half_extents) + 4;
     return gr_add_body(c->w, &d, NULL);)
CASE(fill_size_cut, GR_ERROR_STRUCT_SIZE, gr_fill_def d = fill_def(); d.size = (uint32_t)offsetof(gr_fill_def, seed) + 4;
     return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(clump_size_cut, GR_ERROR_STRUCT_SIZE, gr_clump_def d; gr_clump_def_init(&d); d.size = (uint32_t)offsetof(gr_clump_def, centres) + 4;
     return gr_add_clump_template(c->w, &d, NULL);)
CASE(counters_size_cut, GR_ERROR_STRUCT_SIZE, gr_counters k; memset(&k, 0, sizeof k); k.size = (uint32_t)offsetof(gr_counters, time) + 4;
     return gr_world_get_counters(c->w, &k);)
CASE(get_def_size_cut, GR_ERROR_STRUCT_SIZE, gr_world_def d; d.size = (uint32_t)offsetof(gr_world_def, seed) + 4;
     return gr_world_get_def(c->w, &d, NULL);)
CASE(get_dem_def_size_cut, GR_ERROR_STRUCT_SIZE, gr_world_def d; d.size = sizeof d; gr_dem_def dd; dd.size = 44;
     return gr_world_get_def(c->w, &d, &dd);)
CASE(get_pbd_def_size_cut, GR_ERROR_STRUCT_SIZE, gr_pbd_def d; d.size = (uint32_t)offsetof(gr_pbd_def, cfl) + 2;
     return gr_world_get_pbd_def(c->w, &d);)

/* ---- grains ---- */
CASE(grain_null, GR_ERROR_NULL_ARGUMENT, return gr_add_grain(c->w, NULL, NULL);)
CASE(grain_size0, GR_ERROR_STRUCT_SIZE, gr_grain_def d = grain_def(); d.size = 0; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_radius0, GR_ERROR_INVALID_ARGUMENT, gr_grain_def d = grain_def(); d.radius = 0; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_radius_neg, GR_ERROR_INVALID_ARGUMENT, gr_grain_def d = grain_def(); d.radius = -1; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_radius_nan, GR_ERROR_NOT_FINITE, gr_grain_def d = grain_def(); d.radius = NaN_; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_radius_huge, GR_ERROR_INVALID_ARGUMENT, gr_grain_def d = grain_def(); d.radius = 1e9; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_pos_nan, GR_ERROR_NOT_FINITE, gr_grain_def d = grain_def(); d.position.y = NaN_; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_vel_inf, GR_ERROR_NOT_FINITE, gr_grain_def d = grain_def(); d.velocity.x = -INFINITY; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_spin_nan, GR_ERROR_NOT_FINITE, gr_grain_def d = grain_def(); d.angular_velocity.z = NaN_; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_quat_zero, GR_ERROR_INVALID_ARGUMENT, gr_grain_def d = grain_def(); d.orientation = (gr_quat){0, 0, 0, 0}; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_quat_nan, GR_ERROR_NOT_FINITE, gr_grain_def d = grain_def(); d.orientation.w = NaN_; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_shape_bad, GR_ERROR_UNKNOWN_ENUM, gr_grain_def d = grain_def(); d.shape = (gr_grain_shape)99; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_mat_other, GR_ERROR_WRONG_WORLD, gr_grain_def d = grain_def(); d.material = c->other_mat; return gr_add_grain(c->w, &d, NULL);)
CASE(grain_mat_garbage, GR_ERROR_INVALID_HANDLE, gr_grain_def d = grain_def(); d.material.id = c->mat.id + 77; return gr_add_grain(c->w, &d, NULL);)
CASE(grains_null, GR_ERROR_NULL_ARGUMENT, return gr_add_grains(c->w, NULL, 3, NULL);)
CASE(grains_too_many, GR_ERROR_TOO_MANY, gr_grain_def d = grain_def(); return gr_add_grains(c->w, &d, 0xffffffffu, NULL);)
CASE(grains_mixed_sizes, GR_ERROR_STRUCT_SIZE, gr_grain_def d[3] = {grain_def(), grain_def(), grain_def()};
     d[1].size = 8; return gr_add_grains(c->w, d, 3, NULL);)
CASE(grains_one_bad, GR_ERROR_NOT_FINITE, gr_grain_def d[5] = {grain_def(), grain_def(), grain_def(), grain_def(), grain_def()};
     for (int i = 0; i < 5; i++) d[i].position.x = 0.01 * i; d[2].velocity.y = NaN_; return gr_add_grains(c->w, d, 5, NULL);)
CASE(fill_null, GR_ERROR_NULL_ARGUMENT, return gr_fill_box(c->w, NULL, NULL, NULL, 0);)
CASE(fill_min_max, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.max.x = d.min.x; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_radius0, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.radius = 0; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_rmax_small, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.radius_max = 0.001; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_spacing_small, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.spacing = 0.003; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_jitter_big, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.jitter = 2; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_pattern_bad, GR_ERROR_UNKNOWN_ENUM, gr_fill_def d = fill_def(); d.pattern = (gr_fill_pattern)7; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_attempts0, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); d.attempts = 0; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_absurd_lattice, GR_ERROR_TOO_MANY, gr_fill_def d = fill_def(); d.max = (gr_vec3){1e3, 1e3, 1e3}; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_nan, GR_ERROR_NOT_FINITE, gr_fill_def d = fill_def(); d.min.z = NaN_; return gr_fill_box(c->w, &d, NULL, NULL, 0);)
CASE(fill_out_null, GR_ERROR_NULL_ARGUMENT, gr_fill_def d = fill_def(); return gr_fill_box(c->w, &d, NULL, NULL, 5);)
/* gr_fill_mesh: a 2 cm box mesh at y = 1, spoiled one way per case */
typedef struct fill_mesh_case {
    gr_vec3 v[8];
    uint32_t idx[36];
} fill_mesh_case;
static fill_mesh_case mesh_case(void)
{
    fill_mesh_case m;
    tu_box_mesh((gr_vec3){0.01, 0.01, 0.01}, (gr_vec3){0.01, 1.01, 0.01}, m.v, m.idx);
    return m;
}
CASE(fill_mesh_null, GR_ERROR_NULL_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     return gr_fill_mesh(c->w, &d, NULL, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_open, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 11, NULL, NULL, 0);)
CASE(fill_mesh_inside_out, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     for (int t = 0; t < 12; t++) { uint32_t x = m.idx[3 * t + 1]; m.idx[3 * t + 1] = m.idx[3 * t + 2]; m.idx[3 * t + 2] = x; }
     return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_index, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     m.idx[7] = 8; return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_nan, GR_ERROR_NOT_FINITE, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     m.v[3].y = NaN_; return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_degenerate, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     m.v[1] = m.v[0]; return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_poisson_cells, GR_ERROR_TOO_MANY, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     d.pattern = GR_FILL_POISSON; d.radius = 1e-6; return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(fill_mesh_radius0, GR_ERROR_INVALID_ARGUMENT, gr_fill_def d = fill_def(); fill_mesh_case m = mesh_case();
     d.radius = 0; return gr_fill_mesh(c->w, &d, m.v, 8, m.idx, 12, NULL, NULL, 0);)
CASE(remove_null_handle, GR_ERROR_INVALID_HANDLE, gr_grain g = {0}; return gr_remove_grain(c->w, g);)
CASE(remove_stale, GR_ERROR_STALE_HANDLE, return gr_remove_grain(c->w, c->removed);)
CASE(remove_other_world, GR_ERROR_WRONG_WORLD, return gr_remove_grain(c->w, c->other_grain);)
CASE(remove_garbage, GR_ERROR_INVALID_HANDLE, gr_grain g = {c->g.id + 100000}; return gr_remove_grain(c->w, g);)
CASE(remove_duplicates, GR_ERROR_INVALID_ARGUMENT, gr_grain g[2] = {c->g, c->g}; return gr_remove_grains(c->w, g, 2);)
CASE(remove_one_stale, GR_ERROR_STALE_HANDLE, gr_grain g[2] = {c->g, c->removed}; return gr_remove_grains(c->w, g, 2);)
CASE(remove_many_null, GR_ERROR_NULL_ARGUMENT, return gr_remove_grains(c->w, NULL, 2);)
CASE(state_stale, GR_ERROR_STALE_HANDLE, gr_grain_state s; return gr_grain_get_state(c->w, c->removed, &s);)
CASE(state_null, GR_ERROR_NULL_ARGUMENT, return gr_grain_get_state(c->w, c->g, NULL);)
CASE(set_state_nan, GR_ERROR_NOT_FINITE, gr_grain_state s; gr_grain_get_state(c->w, c->g, &s); s.velocity.x = NaN_;
     return gr_grain_set_state(c->w, c->g, &s);)
CASE(set_state_quat0, GR_ERROR_INVALID_ARGUMENT, gr_grain_state s; gr_grain_get_state(c->w, c->g, &s);
     s.orientation = (gr_quat){0, 0, 0, 0}; return gr_grain_set_state(c->w, c->g, &s);)
CASE(set_state_other, GR_ERROR_WRONG_WORLD, gr_grain_state s; gr_grain_get_state(c->w, c->g, &s);
     return gr_grain_set_state(c->w, c->other_grain, &s);)
CASE(radius_null, GR_ERROR_NULL_ARGUMENT, return gr_grain_get_radius(c->w, c->g, NULL);)
CASE(index_stale, GR_ERROR_STALE_HANDLE, uint32_t k; return gr_grain_get_index(c->w, c->removed, &k);)
CASE(read_field_bad, GR_ERROR_UNKNOWN_ENUM, double b[64]; return gr_read_grains(c->w, (gr_field)99, GR_TYPE_F64, 0, 1, b, 0);)
CASE(read_type_bad, GR_ERROR_UNKNOWN_ENUM, double b[64]; return gr_read_grains(c->w, GR_FIELD_POSITION, (gr_scalar_type)9, 0, 1, b, 0);)
CASE(read_handle_f64, GR_ERROR_INVALID_ARGUMENT, double b[64]; return gr_read_grains(c->w, GR_FIELD_HANDLE, GR_TYPE_F64, 0, 1, b, 0);)
CASE(read_pos_u64, GR_ERROR_INVALID_ARGUMENT, double b[64]; return gr_read_grains(c->w, GR_FIELD_POSITION, GR_TYPE_U64, 0, 1, b, 0);)
CASE(read_range, GR_ERROR_INVALID_ARGUMENT, double b[64]; return gr_read_grains(c->w, GR_FIELD_POSITION, GR_TYPE_F64, gr_world_get_grain_count(c->w), 1, b, 0);)
CASE(read_range_wrap, GR_ERROR_INVALID_ARGUMENT, double b[64]; return gr_read_grains(c->w, GR_FIELD_POSITION, GR_TYPE_F64, 1, 0xffffffffu, b, 0);)
CASE(read_null, GR_ERROR_NULL_ARGUMENT, return gr_read_grains(c->w, GR_FIELD_POSITION, GR_TYPE_F64, 0, 1, NULL, 0);)
CASE(read_stride, GR_ERROR_INVALID_ARGUMENT, double b[64]; return gr_read_grains(c->w, GR_FIELD_POSITION, GR_TYPE_F64, 0, 2, b, 8);)
CASE(write_readonly, GR_ERROR_INVALID_ARGUMENT, double b[64] = {0}; return gr_write_grains(c->w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, 1, b, 0);)
CASE(write_nan_middle, GR_ERROR_NOT_FINITE, double b[12] = {1, 1, 1, 2, 2, 2, 3, NAN, 3, 4, 4, 4};
     return gr_write_grains(c->w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, 4, b, 0);)
CASE(write_quat0, GR_ERROR_INVALID_ARGUMENT, float b[8] = {0, 0, 0, 1, 0, 0, 0, 0};
     return gr_write_grains(c->w, GR_FIELD_ORIENTATION, GR_TYPE_F32, 0, 2, b, 0);)
CASE(render_range, GR_ERROR_INVALID_ARGUMENT, float b[8]; return gr_read_render_points(c->w, 0, 1000000, b, 0);)
CASE(render_null, GR_ERROR_NULL_ARGUMENT, return gr_read_render_points(c->w, 0, 1, NULL, 0);)
CASE(render_stride, GR_ERROR_INVALID_ARGUMENT, float b[8]; return gr_read_render_points(c->w, 0, 1, b, 4);)

/* ---- bodies ---- */
CASE(body_null, GR_ERROR_NULL_ARGUMENT, return gr_add_body(c->w, NULL, NULL);)
CASE(body_shape_none, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_NONE); return gr_add_body(c->w, &d, NULL);)
CASE(body_shape_bad, GR_ERROR_UNKNOWN_ENUM, gr_body_def d = body_def((gr_shape_type)42); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh, GR_ERROR_NULL_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_MESH); return gr_add_body(c->w, &d, NULL);)
CASE(body_dynamic, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_PLANE); d.motion = GR_MOTION_DYNAMIC; return gr_add_body(c->w, &d, NULL);)
CASE(body_host_no_hooks, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_BOX); d.motion = GR_MOTION_HOST; return gr_add_body(c->w, &d, NULL);)
CASE(body_sdf, GR_ERROR_UNSUPPORTED, gr_body_def d = body_def(GR_SHAPE_SDF); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_few, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = mesh_def(tet_idx); d.mesh_triangle_count = 3; return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_index, GR_ERROR_INVALID_ARGUMENT, uint32_t i[12]; memcpy(i, tet_idx, sizeof i); i[7] = 4;
     gr_body_def d = mesh_def(i); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_nan, GR_ERROR_NOT_FINITE, gr_vec3 v[4]; memcpy(v, tet_v, sizeof v); v[2].y = NaN_;
     gr_body_def d = mesh_def(tet_idx); d.mesh_vertices = v; return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_open, GR_ERROR_INVALID_ARGUMENT, uint32_t i[12]; memcpy(i, tet_idx, sizeof i); i[9] = 0; i[10] = 2; i[11] = 1;
     gr_body_def d = mesh_def(i); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_winding, GR_ERROR_INVALID_ARGUMENT, uint32_t i[12]; memcpy(i, tet_idx, sizeof i); i[10] = 3; i[11] = 2;
     gr_body_def d = mesh_def(i); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_inside_out, GR_ERROR_INVALID_ARGUMENT, uint32_t i[12];
     for (int k = 0; k < 4; k++) { i[3 * k] = tet_idx[3 * k]; i[3 * k + 1] = tet_idx[3 * k + 2]; i[3 * k + 2] = tet_idx[3 * k + 1]; }
     gr_body_def d = mesh_def(i); return gr_add_body(c->w, &d, NULL);)
CASE(body_mesh_degenerate, GR_ERROR_INVALID_ARGUMENT, uint32_t i[12]; memcpy(i, tet_idx, sizeof i); i[1] = i[0];
     gr_body_def d = mesh_def(i); return gr_add_body(c->w, &d, NULL);)
CASE(body_particle_r_neg, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.motion = GR_MOTION_DYNAMIC;
     d.particle_radius = -0.01; return gr_add_body(c->w, &d, NULL);)
CASE(body_particle_density0, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.motion = GR_MOTION_DYNAMIC;
     d.particle_density = 0; return gr_add_body(c->w, &d, NULL);)
CASE(body_particle_offset_nan, GR_ERROR_NOT_FINITE, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.motion = GR_MOTION_DYNAMIC;
     d.particle_offset = NaN_; return gr_add_body(c->w, &d, NULL);)
CASE(body_particle_offset_through, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_SPHERE);
     d.motion = GR_MOTION_DYNAMIC; d.radius = 0.05; d.particle_offset = -0.05; return gr_add_body(c->w, &d, NULL);)
CASE(body_particles_too_many, GR_ERROR_TOO_MANY, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.motion = GR_MOTION_DYNAMIC;
     d.radius = 10; d.particle_radius = 1e-4; return gr_add_body(c->w, &d, NULL);)
CASE(body_mass_null, GR_ERROR_NULL_ARGUMENT, return gr_body_get_mass(c->w, c->dyn, NULL);)
CASE(body_mass_stale, GR_ERROR_STALE_HANDLE, double m; return gr_body_get_mass(c->w, c->removed_body, &m);)
CASE(body_particles_null, GR_ERROR_NULL_ARGUMENT, return gr_read_body_particles(c->w, c->dyn, 0, 1, NULL, 0);)
CASE(body_particles_range, GR_ERROR_INVALID_ARGUMENT, float b[8];
     return gr_read_body_particles(c->w, c->dyn, gr_body_get_particle_count(c->w, c->dyn), 1, b, 0);)
CASE(body_particles_stride, GR_ERROR_INVALID_ARGUMENT, float b[8]; return gr_read_body_particles(c->w, c->dyn, 0, 1, b, 8);)
CASE(body_pose_host_static, GR_ERROR_INVALID_ARGUMENT, return gr_body_set_velocity(c->w, c->box, (gr_vec3){1, 0, 0}, (gr_vec3){0, 0, 0});)
CASE(body_motion_bad, GR_ERROR_UNKNOWN_ENUM, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.motion = (gr_motion_type)17; return gr_add_body(c->w, &d, NULL);)
CASE(body_static_moving, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.linear_velocity.x = 1; return gr_add_body(c->w, &d, NULL);)
CASE(body_plane_normal0, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_PLANE); d.normal = (gr_vec3){0, 0, 0}; return gr_add_body(c->w, &d, NULL);)
CASE(body_sphere_r0, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_SPHERE); d.radius = 0; return gr_add_body(c->w, &d, NULL);)
CASE(body_capsule_h_neg, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_CAPSULE); d.half_height = -1; return gr_add_body(c->w, &d, NULL);)
CASE(body_box_neg, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_BOX); d.half_extents.y = -0.1; return gr_add_body(c->w, &d, NULL);)
CASE(body_container_open, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_CONTAINER); d.open_faces = 0x3f; return gr_add_body(c->w, &d, NULL);)
CASE(body_faces_bad, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_CONTAINER); d.open_faces = 0x40; return gr_add_body(c->w, &d, NULL);)
CASE(body_pos_nan, GR_ERROR_NOT_FINITE, gr_body_def d = body_def(GR_SHAPE_BOX); d.position.z = NaN_; return gr_add_body(c->w, &d, NULL);)
CASE(body_quat0, GR_ERROR_INVALID_ARGUMENT, gr_body_def d = body_def(GR_SHAPE_BOX); d.orientation = (gr_quat){0, 0, 0, 0}; return gr_add_body(c->w, &d, NULL);)
CASE(body_mat_other, GR_ERROR_WRONG_WORLD, gr_body_def d = body_def(GR_SHAPE_BOX); d.material = c->other_mat; return gr_add_body(c->w, &d, NULL);)
CASE(body_remove_stale, GR_ERROR_STALE_HANDLE, return gr_remove_body(c->w, c->removed_body);)
CASE(body_remove_other, GR_ERROR_WRONG_WORLD, return gr_remove_body(c->w, c->other_body);)
CASE(body_vel_static, GR_ERROR_INVALID_ARGUMENT, return gr_body_set_velocity(c->w, c->box, (gr_vec3){1, 0, 0}, (gr_vec3){0, 0, 0});)
CASE(body_vel_nan, GR_ERROR_NOT_FINITE, return gr_body_set_velocity(c->w, c->kin, (gr_vec3){NaN_, 0, 0}, (gr_vec3){0, 0, 0});)
CASE(body_vel_stale, GR_ERROR_STALE_HANDLE, return gr_body_set_velocity(c->w, c->removed_body, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 0});)
CASE(body_pose_nan, GR_ERROR_NOT_FINITE, return gr_body_set_pose(c->w, c->kin, (gr_vec3){0, INFINITY, 0}, (gr_quat){0, 0, 0, 1});)
CASE(body_pose_quat0, GR_ERROR_INVALID_ARGUMENT, return gr_body_set_pose(c->w, c->kin, (gr_vec3){0, 0, 0}, (gr_quat){0, 0, 0, 0});)
CASE(body_force_null, GR_ERROR_NULL_ARGUMENT, return gr_body_get_force(c->w, c->box, NULL, NULL);)
CASE(body_pose_null, GR_ERROR_NULL_ARGUMENT, return gr_body_get_pose(c->w, c->box, NULL, NULL);)

#define ENTRY(ident, status) {#ident, status, ident}
static const bad_case cases[] = {
    ENTRY(step_zero, GR_ERROR_INVALID_ARGUMENT), ENTRY(step_negative, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(step_nan, GR_ERROR_NOT_FINITE), ENTRY(step_inf, GR_ERROR_NOT_FINITE),
    ENTRY(step_absurd, GR_ERROR_INVALID_ARGUMENT), ENTRY(step_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(gravity_nan, GR_ERROR_NOT_FINITE), ENTRY(counters_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(counters_size0, GR_ERROR_STRUCT_SIZE), ENTRY(get_def_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(get_pbd_def_null, GR_ERROR_NULL_ARGUMENT), ENTRY(get_pbd_def_size, GR_ERROR_STRUCT_SIZE),
    ENTRY(save_null, GR_ERROR_NULL_ARGUMENT), ENTRY(load_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(load_garbage, GR_ERROR_CORRUPT_DATA), ENTRY(load_empty, GR_ERROR_CORRUPT_DATA),
    ENTRY(mat_null, GR_ERROR_NULL_ARGUMENT), ENTRY(mat_size0, GR_ERROR_STRUCT_SIZE),
    ENTRY(mat_size_absurd, GR_ERROR_STRUCT_SIZE), ENTRY(mat_density0, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(mat_density_neg, GR_ERROR_INVALID_ARGUMENT), ENTRY(mat_density_nan, GR_ERROR_NOT_FINITE),
    ENTRY(mat_young0, GR_ERROR_INVALID_ARGUMENT), ENTRY(mat_young_inf, GR_ERROR_NOT_FINITE),
    ENTRY(mat_poisson_half, GR_ERROR_INVALID_ARGUMENT), ENTRY(mat_poisson_neg, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(mat_rest0, GR_ERROR_INVALID_ARGUMENT), ENTRY(mat_rest_big, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(mat_friction_neg, GR_ERROR_INVALID_ARGUMENT), ENTRY(mat_rolling_nan, GR_ERROR_NOT_FINITE),
    ENTRY(mat_reserved, GR_ERROR_INVALID_ARGUMENT), ENTRY(pair_rest_big, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(pair_other_world, GR_ERROR_WRONG_WORLD), ENTRY(pair_garbage_handle, GR_ERROR_INVALID_HANDLE),
    ENTRY(mat_get_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(mat_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(pair_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(mat_get_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(grain_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(grains_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(body_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(fill_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(clump_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(counters_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(get_def_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(get_dem_def_size_cut, GR_ERROR_STRUCT_SIZE), ENTRY(get_pbd_def_size_cut, GR_ERROR_STRUCT_SIZE),
    ENTRY(grain_null, GR_ERROR_NULL_ARGUMENT), ENTRY(grain_size0, GR_ERROR_STRUCT_SIZE),
    ENTRY(grain_radius0, GR_ERROR_INVALID_ARGUMENT), ENTRY(grain_radius_neg, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(grain_radius_nan, GR_ERROR_NOT_FINITE), ENTRY(grain_radius_huge, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(grain_pos_nan, GR_ERROR_NOT_FINITE), ENTRY(grain_vel_inf, GR_ERROR_NOT_FINITE),
    ENTRY(grain_spin_nan, GR_ERROR_NOT_FINITE), ENTRY(grain_quat_zero, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(grain_quat_nan, GR_ERROR_NOT_FINITE), ENTRY(grain_shape_bad, GR_ERROR_UNKNOWN_ENUM),
    ENTRY(grain_mat_other, GR_ERROR_WRONG_WORLD), ENTRY(grain_mat_garbage, GR_ERROR_INVALID_HANDLE),
    ENTRY(grains_null, GR_ERROR_NULL_ARGUMENT), ENTRY(grains_too_many, GR_ERROR_TOO_MANY),
    ENTRY(grains_mixed_sizes, GR_ERROR_STRUCT_SIZE), ENTRY(grains_one_bad, GR_ERROR_NOT_FINITE),
    ENTRY(fill_null, GR_ERROR_NULL_ARGUMENT), ENTRY(fill_min_max, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_radius0, GR_ERROR_INVALID_ARGUMENT), ENTRY(fill_rmax_small, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_spacing_small, GR_ERROR_INVALID_ARGUMENT), ENTRY(fill_jitter_big, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_pattern_bad, GR_ERROR_UNKNOWN_ENUM), ENTRY(fill_attempts0, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_absurd_lattice, GR_ERROR_TOO_MANY), ENTRY(fill_nan, GR_ERROR_NOT_FINITE),
    ENTRY(fill_out_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(fill_mesh_null, GR_ERROR_NULL_ARGUMENT), ENTRY(fill_mesh_open, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_mesh_inside_out, GR_ERROR_INVALID_ARGUMENT), ENTRY(fill_mesh_index, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_mesh_nan, GR_ERROR_NOT_FINITE), ENTRY(fill_mesh_degenerate, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(fill_mesh_poisson_cells, GR_ERROR_TOO_MANY), ENTRY(fill_mesh_radius0, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(remove_null_handle, GR_ERROR_INVALID_HANDLE), ENTRY(remove_stale, GR_ERROR_STALE_HANDLE),
    ENTRY(remove_other_world, GR_ERROR_WRONG_WORLD), ENTRY(remove_garbage, GR_ERROR_INVALID_HANDLE),
    ENTRY(remove_duplicates, GR_ERROR_INVALID_ARGUMENT), ENTRY(remove_one_stale, GR_ERROR_STALE_HANDLE),
    ENTRY(remove_many_null, GR_ERROR_NULL_ARGUMENT), ENTRY(state_stale, GR_ERROR_STALE_HANDLE),
    ENTRY(state_null, GR_ERROR_NULL_ARGUMENT), ENTRY(set_state_nan, GR_ERROR_NOT_FINITE),
    ENTRY(set_state_quat0, GR_ERROR_INVALID_ARGUMENT), ENTRY(set_state_other, GR_ERROR_WRONG_WORLD),
    ENTRY(radius_null, GR_ERROR_NULL_ARGUMENT), ENTRY(index_stale, GR_ERROR_STALE_HANDLE),
    ENTRY(read_field_bad, GR_ERROR_UNKNOWN_ENUM), ENTRY(read_type_bad, GR_ERROR_UNKNOWN_ENUM),
    ENTRY(read_handle_f64, GR_ERROR_INVALID_ARGUMENT), ENTRY(read_pos_u64, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(read_range, GR_ERROR_INVALID_ARGUMENT), ENTRY(read_range_wrap, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(read_null, GR_ERROR_NULL_ARGUMENT), ENTRY(read_stride, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(write_readonly, GR_ERROR_INVALID_ARGUMENT), ENTRY(write_nan_middle, GR_ERROR_NOT_FINITE),
    ENTRY(write_quat0, GR_ERROR_INVALID_ARGUMENT), ENTRY(render_range, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(render_null, GR_ERROR_NULL_ARGUMENT), ENTRY(render_stride, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_null, GR_ERROR_NULL_ARGUMENT), ENTRY(body_shape_none, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_shape_bad, GR_ERROR_UNKNOWN_ENUM), ENTRY(body_mesh, GR_ERROR_NULL_ARGUMENT),
    ENTRY(body_dynamic, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_motion_bad, GR_ERROR_UNKNOWN_ENUM),
    ENTRY(body_host_no_hooks, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_sdf, GR_ERROR_UNSUPPORTED),
    ENTRY(body_mesh_few, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_mesh_index, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_mesh_nan, GR_ERROR_NOT_FINITE), ENTRY(body_mesh_open, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_mesh_winding, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_mesh_inside_out, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_mesh_degenerate, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_particle_r_neg, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_particle_density0, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_particle_offset_nan, GR_ERROR_NOT_FINITE),
    ENTRY(body_particle_offset_through, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_particles_too_many, GR_ERROR_TOO_MANY),
    ENTRY(body_mass_null, GR_ERROR_NULL_ARGUMENT), ENTRY(body_mass_stale, GR_ERROR_STALE_HANDLE),
    ENTRY(body_particles_null, GR_ERROR_NULL_ARGUMENT), ENTRY(body_particles_range, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_particles_stride, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_pose_host_static, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_static_moving, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_plane_normal0, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_sphere_r0, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_capsule_h_neg, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_box_neg, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_container_open, GR_ERROR_INVALID_ARGUMENT),
    ENTRY(body_faces_bad, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_pos_nan, GR_ERROR_NOT_FINITE),
    ENTRY(body_quat0, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_mat_other, GR_ERROR_WRONG_WORLD),
    ENTRY(body_remove_stale, GR_ERROR_STALE_HANDLE), ENTRY(body_remove_other, GR_ERROR_WRONG_WORLD),
    ENTRY(body_vel_static, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_vel_nan, GR_ERROR_NOT_FINITE),
    ENTRY(body_vel_stale, GR_ERROR_STALE_HANDLE), ENTRY(body_pose_nan, GR_ERROR_NOT_FINITE),
    ENTRY(body_pose_quat0, GR_ERROR_INVALID_ARGUMENT), ENTRY(body_force_null, GR_ERROR_NULL_ARGUMENT),
    ENTRY(body_pose_null, GR_ERROR_NULL_ARGUMENT),
};

/* Failures logged on the matrix's world: each refused call logs once (the message is kept
 * until the next failure, so a fresh log line shows this call set it). */
static int matrix_logs;
static void matrix_log(gr_log_level level, const char *message, void *user)
{
    (void)user;
    if (level == GR_LOG_ERROR && message && message[0])
        matrix_logs++;
}

static int make_ctx(ctx *c)
{
    memset(c, 0, sizeof *c);
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_DEM);
    wd.worker_count = 2;
    wd.logger.func = matrix_log;
    if (gr_world_create(&wd, &c->w) != GR_OK || tu_world(&c->other, 1, NULL) != GR_OK)
        return -1;
    gr_material_def md = mat_def();
    gr_add_material(c->w, &md, &c->mat);
    gr_add_material(c->other, &md, &c->other_mat);
    if (tu_pile(c->w, 0.02, 0.002, 60, &c->box) != GR_OK)
        return -1;
    gr_body_def kd = body_def(GR_SHAPE_SPHERE);
    kd.motion = GR_MOTION_KINEMATIC;
    kd.radius = 0.05;
    gr_add_body(c->w, &kd, &c->kin);
    gr_add_body(c->w, &kd, &c->removed_body);
    gr_remove_body(c->w, c->removed_body);
    gr_add_body(c->other, &kd, &c->other_body);
    gr_body_def dd = body_def(GR_SHAPE_BOX);
    dd.motion = GR_MOTION_DYNAMIC;
    dd.position = (gr_vec3){0.3, 0.2, 0};
    dd.half_extents = (gr_vec3){0.02, 0.02, 0.02};
    dd.particle_radius = 0.004;
    if (gr_add_body(c->w, &dd, &c->dyn) != GR_OK)
        return -1;
    gr_grain_def gd = grain_def();
    gr_add_grain(c->w, &gd, &c->g);
    gr_add_grain(c->w, &gd, &c->removed);
    gr_remove_grain(c->w, c->removed);
    gr_add_grain(c->other, &gd, &c->other_grain);
    gr_step(c->w, 0.01);
    return 0;
}

static uint64_t world_fingerprint(const ctx *c, gr_counters *k)
{
    gr_body bodies[2] = {c->box, c->kin};
    k->size = sizeof *k;
    gr_world_get_counters(c->w, k);
    return tu_state_hash(c->w, bodies, 2);
}

static void test_bad_input_matrix(void)
{
    ctx c;
    CHECK(make_ctx(&c) == 0);
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_counters k0, k1;
        uint64_t h0 = world_fingerprint(&c, &k0);
        const int logs = matrix_logs;
        gr_status s = cases[i].run(&c);
        char msg[256];
        snprintf(msg, sizeof msg, "%s", gr_world_last_error(c.w));
        const bool logged = matrix_logs == logs + 1;
        uint64_t h1 = world_fingerprint(&c, &k1);
        bool message_ok = s == GR_ERROR_NULL_ARGUMENT && strstr(cases[i].name, "null") ? true : msg[0] != 0 && logged;
        if (cases[i].name[0] == 's' && strcmp(cases[i].name, "step_null") == 0)
            message_ok = true; /* no world to hold a message */
        if (s != cases[i].expected || h0 != h1 || k0.grain_count != k1.grain_count || k0.body_count != k1.body_count ||
            k0.material_count != k1.material_count || k0.bytes_in_use != k1.bytes_in_use || !message_ok) {
            fprintf(stderr, "  case %s: got %s (expected %s), state %s, memory %lld -> %lld, message '%s'\n",
                    cases[i].name, gr_status_string(s), gr_status_string(cases[i].expected),
                    h0 == h1 ? "unchanged" : "CHANGED", (long long)k0.bytes_in_use, (long long)k1.bytes_in_use, msg);
            bad++;
        }
    }
    /* the world still works after all that */
    gr_status s = gr_step(c.w, 0.01);
    gr_world_destroy(c.w);
    gr_world_destroy(c.other);
    CHECK(bad == 0);
    CHECK(s == GR_OK);
}

/* World creation: every bad def is refused, with a message through the logger. */
static int log_count;
static void count_log(gr_log_level level, const char *message, void *user)
{
    (void)level;
    (void)user;
    if (message && message[0])
        log_count++;
}

static void test_bad_world_defs(void)
{
    gr_world *w = NULL;
    gr_world_def d;
    gr_dem_def dem;
#define BAD_DEF(expected, mutate)                                        \
    do {                                                                 \
        gr_world_def_init(&d, GR_SOLVER_DEM);                            \
        gr_dem_def_init(&dem);                                           \
        d.logger.func = count_log;                                       \
        d.dem = &dem;                                                    \
        mutate;                                                          \
        int before = log_count;                                          \
        CHECK_STATUS(expected, gr_world_create(&d, &w));                 \
        /* the def's logger hears every error when the size covers it */  \
        int logs = d.size < offsetof(gr_world_def, logger) + sizeof(gr_logger) ? 0 : 1; \
        if (log_count != before + logs)                                  \
            fprintf(stderr, "  %d log lines for %s\n", log_count - before, #mutate); \
        CHECK(log_count == before + logs);                               \
        CHECK(w == NULL);                                                \
    } while (0)
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_create(NULL, &w));
    gr_world_def_init(&d, GR_SOLVER_DEM);
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_create(&d, NULL));
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = 0);
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = 100000); /* logged: the size covers the logger */
    /* sizes that end inside a field: half of gravity (not logged: before the logger), half of
     * bounds_min (logged), inside the pointer to the DEM def */
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = (uint32_t)offsetof(gr_world_def, gravity) + 8);
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = (uint32_t)offsetof(gr_world_def, bounds_min) + 16);
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = (uint32_t)offsetof(gr_world_def, dem) + 4);
    BAD_DEF(GR_ERROR_STRUCT_SIZE, dem.size = (uint32_t)offsetof(gr_dem_def, contact_time) + 4);
    BAD_DEF(GR_ERROR_UNKNOWN_ENUM, d.solver = (gr_solver_kind)9);
    gr_pbd_def bad_pbd;
    memset(&bad_pbd, 0, sizeof bad_pbd); /* size 0: never initialised */
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.solver = GR_SOLVER_PBD; d.pbd = &bad_pbd);
    gr_pbd_def_init(&bad_pbd);
    bad_pbd.iterations = 0;
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.solver = GR_SOLVER_PBD; d.pbd = &bad_pbd);
    gr_continuum_def bad_cont;
    gr_continuum_def_init(&bad_cont);
    bad_cont.cell_size = 0;
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.solver = GR_SOLVER_CONTINUUM; d.solver_def = &bad_cont);
    bad_cont.size = 6;
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.solver = GR_SOLVER_CONTINUUM; d.solver_def = &bad_cont);
    BAD_DEF(GR_ERROR_NOT_FINITE, d.gravity.y = NAN);
    BAD_DEF(GR_ERROR_NOT_FINITE, d.gravity.x = INFINITY);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.substep = -1e-5);
    BAD_DEF(GR_ERROR_NOT_FINITE, d.substep = NAN);
    BAD_DEF(GR_ERROR_TOO_MANY, d.worker_count = 1000);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.reserved0 = 3);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.allocator.free = (void (*)(void *, size_t, void *))1);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.tasks.finish = (void (*)(void *, void *))1);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.host.apply_impulse = (void (*)(gr_body, void *, gr_vec3, gr_vec3, void *))1);
    BAD_DEF(GR_ERROR_STRUCT_SIZE, dem.size = 0);
    BAD_DEF(GR_ERROR_UNKNOWN_ENUM, dem.normal_law = (gr_normal_law)12);
    BAD_DEF(GR_ERROR_UNKNOWN_ENUM, dem.tangential_law = (gr_tangential_law)12);
    BAD_DEF(GR_ERROR_UNKNOWN_ENUM, dem.rolling_law = (gr_rolling_law)12);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.integrator = GR_INTEGRATOR_RKF45; dem.rkf_tolerance = 0);
    BAD_DEF(GR_ERROR_NOT_FINITE, dem.rkf_tolerance = INFINITY);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.skin = -1);
    BAD_DEF(GR_ERROR_NOT_FINITE, dem.contact_time = NAN);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.contact_time = 0);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.rayleigh_fraction = 2);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.clamp_normal_force = 2);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.normal_law = GR_NORMAL_NONLINEAR; dem.nonlinear_b = 2.0);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.nonlinear_b = 0.5);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, dem.coulomb_slip_speed = 0);
    /* the generic solver_def: checked by the world's solver; not together with that solver's
     * own field; a bad def of a solver the world does not use is refused too */
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.solver = GR_SOLVER_PBD; d.pbd = NULL; d.solver_def = &bad_pbd);
    gr_pbd_def good_pbd;
    gr_pbd_def_init(&good_pbd);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.solver = GR_SOLVER_PBD; d.pbd = &good_pbd; d.solver_def = &good_pbd);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.solver_def = &dem); /* DEM world: dem and solver_def both */
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.dem = NULL; dem.size = 7; d.solver_def = &dem);
    BAD_DEF(GR_ERROR_INVALID_ARGUMENT, d.pbd = &bad_pbd); /* DEM world, bad PBD def */
    BAD_DEF(GR_ERROR_STRUCT_SIZE, d.size = (uint32_t)offsetof(gr_world_def, solver_def) + 4);
}

/* Any solver's def through one call: the world's own solver reports its def (given through
 * solver_def or the solver's field, an older header's shorter struct taking the defaults of
 * the newer fields), another solver its defaults; bad kinds and sizes are refused. */
static void test_solver_def_getter(void)
{
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.iterations = 7;
    pbd.max_acceleration = 123.0;
    pbd.size = (uint32_t)offsetof(gr_pbd_def, max_iterations); /* an older header: no max_acceleration */
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_PBD);
    d.solver_def = &pbd;
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    gr_pbd_def got;
    gr_pbd_def_init(&got);
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_PBD, &got));
    CHECK(got.iterations == 7 && got.max_acceleration == 500.0 && got.size == sizeof got);
    gr_pbd_def old_call;
    gr_pbd_def_init(&old_call);
    CHECK_OK(w, gr_world_get_pbd_def(w, &old_call));
    CHECK(memcmp(&old_call, &got, sizeof got) == 0);
    gr_dem_def dem, dem_defaults;
    gr_dem_def_init(&dem);
    gr_dem_def_init(&dem_defaults);
    dem.contact_time = 7.0;
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_DEM, &dem)); /* not its solver: the defaults */
    CHECK(memcmp(&dem, &dem_defaults, sizeof dem) == 0);
    /* a shorter out struct: only its bytes are written */
    struct {
        gr_pbd_def def;
        uint64_t canary;
    } shortened;
    memset(&shortened, 0xab, sizeof shortened);
    shortened.def.size = (uint32_t)offsetof(gr_pbd_def, relaxation);
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_PBD, &shortened.def));
    CHECK(shortened.def.iterations == 7 && shortened.def.size == offsetof(gr_pbd_def, relaxation));
    const unsigned char *tail = (const unsigned char *)&shortened.def + offsetof(gr_pbd_def, relaxation);
    CHECK(tail[0] == 0xab && shortened.canary == 0xababababababababull);
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_world_get_solver_def(w, GR_DEF_MATERIAL, &got));
    CHECK_STATUS(GR_ERROR_UNKNOWN_ENUM, gr_world_get_solver_def(w, (gr_def_kind)77, &got));
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_get_solver_def(w, GR_DEF_PBD, NULL));
    got.size = 0;
    CHECK_STATUS(GR_ERROR_STRUCT_SIZE, gr_world_get_solver_def(w, GR_DEF_PBD, &got));
    got.size = (uint32_t)offsetof(gr_pbd_def, cfl) + 2;
    CHECK_STATUS(GR_ERROR_STRUCT_SIZE, gr_world_get_solver_def(w, GR_DEF_PBD, &got));
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_world_get_solver_def(NULL, GR_DEF_PBD, &got));
    gr_world_destroy(w);
    /* a DEM world through its legacy field reports it through the generic call */
    gr_world_def_init(&d, GR_SOLVER_DEM);
    gr_dem_def_init(&dem);
    dem.contact_time = 2e-3;
    d.dem = &dem;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    gr_dem_def back;
    gr_dem_def_init(&back);
    CHECK_OK(w, gr_world_get_solver_def(w, GR_DEF_DEM, &back));
    CHECK(back.contact_time == 2e-3);
    gr_world_destroy(w);
}

/* Stale handles never touch another object, also after their slot is reused. */
static void test_stale_handles_after_reuse(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    gr_grain_def gd = grain_def();
    gr_grain a, b;
    CHECK_OK(w, gr_add_grain(w, &gd, &a));
    CHECK_OK(w, gr_remove_grain(w, a));
    gd.radius = 0.003;
    CHECK_OK(w, gr_add_grain(w, &gd, &b)); /* reuses a's slot */
    CHECK(gr_grain_is_valid(w, b) && !gr_grain_is_valid(w, a));
    double r;
    CHECK_STATUS(GR_ERROR_STALE_HANDLE, gr_grain_get_radius(w, a, &r));
    CHECK_OK(w, gr_grain_get_radius(w, b, &r));
    CHECK(r == 0.003);
    /* bulk order: swap-remove */
    gr_grain g[4];
    for (int i = 0; i < 4; i++) {
        gd.position.x = i;
        CHECK_OK(w, gr_add_grain(w, &gd, &g[i]));
    }
    CHECK_OK(w, gr_remove_grain(w, g[0]));
    uint32_t idx;
    CHECK_OK(w, gr_grain_get_index(w, g[3], &idx));
    CHECK(idx == 1); /* the last grain took the hole */
    uint64_t ids[4];
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 4, ids, 0));
    CHECK(ids[0] == b.id && ids[1] == g[3].id && ids[2] == g[1].id && ids[3] == g[2].id);
    CHECK(gr_world_get_grain_count(w) == 4);
    CHECK_OK(w, gr_step(w, 0.01));
    CHECK(gr_grain_is_valid(w, g[3]) && !gr_grain_is_valid(w, g[0]));
    gr_world_destroy(w);
}

/* ---- handles never alias (gr_base.h) ---- */

/* An arena: a level reload hands the next world exactly the memory of the last one. */
typedef struct arena {
    unsigned char *base;
    size_t size, used;
} arena;
static void *arena_alloc(size_t size, size_t align, void *user)
{
    arena *a = (arena *)user;
    size_t at = (a->used + align - 1) & ~(align - 1);
    if (at + size > a->size)
        return NULL;
    a->used = at + size;
    return a->base + at;
}
static void arena_free(void *ptr, size_t size, void *user) { (void)ptr, (void)size, (void)user; }

static void test_handles_arena_reload(void)
{
    arena ar = {(unsigned char *)malloc(64u << 20), 64u << 20, 0};
    const gr_allocator alloc = {arena_alloc, arena_free, &ar};
    gr_world *a, *b;
    CHECK_OK(NULL, tu_world(&a, 1, &alloc));
    gr_grain_def gd = grain_def();
    gr_grain ga;
    gr_body floor_a;
    CHECK_OK(a, gr_add_grain(a, &gd, &ga));
    gr_body_def pd = body_def(GR_SHAPE_PLANE);
    CHECK_OK(a, gr_add_body(a, &pd, &floor_a));
    const gr_material ma = gr_world_get_default_material(a);
    gr_world_destroy(a);
    ar.used = 0; /* the reload: same memory, same def, same seed */
    CHECK_OK(NULL, tu_world(&b, 1, &alloc));
    CHECK((void *)b == (void *)a);
    gr_grain gb;
    gr_body floor_b;
    CHECK_OK(b, gr_add_grain(b, &gd, &gb));
    CHECK_OK(b, gr_add_body(b, &pd, &floor_b));
    gr_grain_state st;
    CHECK(!gr_grain_is_valid(b, ga) && !gr_body_is_valid(b, floor_a));
    CHECK_STATUS(GR_ERROR_WRONG_WORLD, gr_grain_get_state(b, ga, &st));
    CHECK_STATUS(GR_ERROR_WRONG_WORLD, gr_remove_body(b, floor_a));
    gr_material_def md;
    md.size = sizeof md;
    CHECK_STATUS(GR_ERROR_WRONG_WORLD, gr_material_get_def(b, ma, &md));
    CHECK_OK(b, gr_grain_get_state(b, gb, &st));
    gr_world_destroy(b);
    free(ar.base);
}

/* Many live worlds: none accepts another's handles. */
static void test_handles_many_worlds(void)
{
    enum { N = 1000 }; /* 16-bit tags from addresses collided among ~420 */
    gr_world **w = (gr_world **)calloc(N, sizeof *w);
    gr_grain *g = (gr_grain *)calloc(N, sizeof *g);
    gr_body *b = (gr_body *)calloc(N, sizeof *b);
    gr_grain_def gd = grain_def();
    gr_body_def pd = body_def(GR_SHAPE_PLANE);
    for (int i = 0; i < N; i++) {
        CHECK_OK(NULL, tu_world(&w[i], 1, NULL));
        CHECK_OK(w[i], gr_add_grain(w[i], &gd, &g[i]));
        CHECK_OK(w[i], gr_add_body(w[i], &pd, &b[i]));
    }
    int accepted = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            const int own = i == j;
            double r;
            gr_vec3 p;
            gr_quat q;
            accepted += gr_grain_is_valid(w[i], g[j]) != own || gr_body_is_valid(w[i], b[j]) != own;
            if (!own)
                accepted += gr_grain_get_radius(w[i], g[j], &r) != GR_ERROR_WRONG_WORLD ||
                            gr_body_get_pose(w[i], b[j], &p, &q) != GR_ERROR_WRONG_WORLD;
        }
    CHECK(accepted == 0);
    for (int i = 0; i < N; i++)
        gr_world_destroy(w[i]);
    free(w);
    free(g);
    free(b);
}

/* One grain slot and one body slot reused past the 16-bit generation: no handle ever issued
 * becomes valid again. */
static void test_handles_slot_reuse(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    enum { CYCLES = 65536 + 64 };
    gr_grain_def gd = grain_def();
    gr_body_def pd = body_def(GR_SHAPE_PLANE);
    gr_grain first_g, g;
    gr_body first_b, b;
    CHECK_OK(w, gr_add_grain(w, &gd, &first_g));
    CHECK_OK(w, gr_add_body(w, &pd, &first_b));
    gr_grain prev_g = first_g;
    gr_body prev_b = first_b;
    int revived = 0;
    for (int k = 0; k < CYCLES; k++) {
        CHECK_OK(w, gr_remove_grain(w, prev_g));
        CHECK_OK(w, gr_remove_body(w, prev_b));
        CHECK_OK(w, gr_add_grain(w, &gd, &g));
        CHECK_OK(w, gr_add_body(w, &pd, &b));
        revived += gr_grain_is_valid(w, first_g) + gr_grain_is_valid(w, prev_g) + gr_body_is_valid(w, first_b) +
                   gr_body_is_valid(w, prev_b) + (g.id == first_g.id) + (b.id == first_b.id);
        prev_g = g;
        prev_b = b;
    }
    CHECK(revived == 0);
    CHECK(gr_world_get_grain_count(w) == 1 && gr_grain_is_valid(w, g) && gr_body_is_valid(w, b));
    /* the retired slots survive a snapshot: still dead after a reload, and never reused */
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    CHECK_OK(w, gr_world_load(w, tu_stream_read, &s));
    CHECK(gr_grain_is_valid(w, g) && gr_body_is_valid(w, b) && !gr_grain_is_valid(w, first_g) &&
          !gr_body_is_valid(w, first_b));
    gr_grain g2;
    gr_body b2;
    CHECK_OK(w, gr_add_grain(w, &gd, &g2));
    CHECK_OK(w, gr_add_body(w, &pd, &b2));
    CHECK(!gr_grain_is_valid(w, first_g) && !gr_body_is_valid(w, first_b) && g2.id != first_g.id && b2.id != first_b.id);
    tu_stream_free(&s);
    gr_world_destroy(w);
}

/* A world that loads another's snapshot keeps its own tag: the other's handles stay foreign. */
static void test_handles_load_keeps_tag(void)
{
    gr_world *a, *b;
    CHECK_OK(NULL, tu_world(&a, 1, NULL));
    CHECK_OK(NULL, tu_world(&b, 1, NULL));
    gr_grain_def gd = grain_def();
    gr_grain ga[3];
    gr_body fa;
    gr_body_def pd = body_def(GR_SHAPE_PLANE);
    CHECK_OK(a, gr_add_body(a, &pd, &fa));
    for (int i = 0; i < 3; i++) {
        gd.position.x = 0.01 * i;
        CHECK_OK(a, gr_add_grain(a, &gd, &ga[i]));
    }
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    CHECK(gr_world_get_grain_count(b) == 3);
    gr_grain_state st;
    for (int i = 0; i < 3; i++) {
        CHECK(!gr_grain_is_valid(b, ga[i]));
        CHECK_STATUS(GR_ERROR_WRONG_WORLD, gr_grain_get_state(b, ga[i], &st));
    }
    CHECK(!gr_body_is_valid(b, fa));
    /* b's own handles of the restored grains work in b and only there */
    uint64_t ids[3];
    CHECK_OK(b, gr_read_grains(b, GR_FIELD_HANDLE, GR_TYPE_U64, 0, 3, ids, 0));
    for (int i = 0; i < 3; i++) {
        gr_grain gb = {ids[i]};
        CHECK(gr_grain_is_valid(b, gb) && !gr_grain_is_valid(a, gb));
        CHECK((ids[i] & 0x7ffffffffffull) == (ga[i].id & 0x7ffffffffffull)); /* same slot and generation */
    }
    tu_stream_free(&s);
    gr_world_destroy(a);
    gr_world_destroy(b);
}

/* gr_world_last_error keeps the most recent failure's message through successful calls. */
static void test_last_error_kept(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    CHECK(gr_world_last_error(w)[0] == 0);
    gr_grain_def gd = grain_def();
    gr_grain g;
    CHECK_OK(w, gr_add_grain(w, &gd, &g));
    gd.radius = -1;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_grain(w, &gd, NULL));
    char msg[256];
    snprintf(msg, sizeof msg, "%s", gr_world_last_error(w));
    CHECK(strstr(msg, "radius") != NULL);
    /* getters, setters, a step: all succeed and leave the message */
    gr_grain_state st;
    gr_counters k;
    k.size = sizeof k;
    CHECK_OK(w, gr_grain_get_state(w, g, &st));
    CHECK_OK(w, gr_world_get_counters(w, &k));
    CHECK_OK(w, gr_world_set_gravity(w, (gr_vec3){0, -9.81, 0}));
    CHECK_OK(w, gr_grain_set_state(w, g, &st));
    CHECK_OK(w, gr_step(w, 0.001));
    CHECK(strcmp(gr_world_last_error(w), msg) == 0);
    /* the next failure replaces it */
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_grain_get_state(w, g, NULL));
    CHECK(strcmp(gr_world_last_error(w), msg) != 0 && gr_world_last_error(w)[0] != 0);
    gr_world_destroy(w);
}

/* gr_body_set_user_data: checked like every entry point; the host hooks receive the pointer;
 * after loading into another world it is NULL until the host sets it again. */
static void *seen_user_data;
static void ud_get_state(gr_body body, void *body_user_data, gr_host_body_state *state, void *user)
{
    (void)body, (void)state, (void)user;
    seen_user_data = body_user_data;
}
static void ud_apply(gr_body body, void *body_user_data, gr_vec3 impulse, gr_vec3 angular, void *user)
{
    (void)body, (void)body_user_data, (void)impulse, (void)angular, (void)user;
}

static void test_body_user_data(void)
{
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_DEM);
    wd.host.get_state = ud_get_state;
    wd.host.apply_impulse = ud_apply;
    gr_world *a, *b, *other;
    CHECK_OK(NULL, gr_world_create(&wd, &a));
    CHECK_OK(NULL, gr_world_create(&wd, &b));
    CHECK_OK(NULL, tu_world(&other, 1, NULL));
    int tag_a = 1, tag_b = 2;
    gr_body_def bd = body_def(GR_SHAPE_BOX);
    bd.motion = GR_MOTION_HOST;
    bd.half_extents = (gr_vec3){0.05, 0.05, 0.05};
    bd.particle_radius = 0.01;
    bd.user_data = &tag_a;
    gr_body host, gone, foreign;
    gr_body_def pd = body_def(GR_SHAPE_PLANE);
    CHECK_OK(a, gr_add_body(a, &pd, &gone));
    CHECK_OK(a, gr_add_body(a, &bd, &host));
    CHECK_OK(a, gr_remove_body(a, gone));
    CHECK_OK(other, gr_add_body(other, &pd, &foreign));
    CHECK(gr_body_get_user_data(a, host) == &tag_a);
    CHECK_OK(a, gr_body_set_user_data(a, host, &tag_b));
    CHECK(gr_body_get_user_data(a, host) == &tag_b);
    CHECK_OK(a, gr_step(a, 0.001));
    CHECK(seen_user_data == &tag_b);
    /* bad input: the world is unchanged */
    CHECK_STATUS(GR_ERROR_NULL_ARGUMENT, gr_body_set_user_data(NULL, host, &tag_a));
    CHECK_STATUS(GR_ERROR_INVALID_HANDLE, gr_body_set_user_data(a, (gr_body){0}, &tag_a));
    CHECK_STATUS(GR_ERROR_STALE_HANDLE, gr_body_set_user_data(a, gone, &tag_a));
    CHECK_STATUS(GR_ERROR_WRONG_WORLD, gr_body_set_user_data(a, foreign, &tag_a));
    CHECK(gr_body_get_user_data(a, host) == &tag_b);
    /* the list of bodies */
    gr_body list[4];
    CHECK(gr_world_get_bodies(a, NULL, 0) == 1 && gr_world_get_bodies(a, list, 4) == 1 && list[0].id == host.id);
    /* a reload of the world's own snapshot keeps the pointer; another world's load has none */
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(a, gr_world_save(a, tu_stream_write, &s));
    CHECK_OK(a, gr_world_load(a, tu_stream_read, &s));
    CHECK(gr_body_get_user_data(a, host) == &tag_b);
    s.pos = 0;
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    CHECK(gr_world_get_bodies(b, list, 4) == 1 && gr_body_get_user_data(b, list[0]) == NULL);
    seen_user_data = &tag_a;
    CHECK_OK(b, gr_step(b, 0.001));
    CHECK(seen_user_data == NULL);
    CHECK_OK(b, gr_body_set_user_data(b, list[0], &tag_a));
    CHECK_OK(b, gr_step(b, 0.001));
    CHECK(seen_user_data == &tag_a);
    tu_stream_free(&s);
    gr_world_destroy(a);
    gr_world_destroy(b);
    gr_world_destroy(other);
}

/* One documented code per kind of bad input, on every path: a quaternion that is no rotation
 * (zero, or a length that overflows), a garbage handle of each class, a snapshot of another
 * solver. */
static gr_quat host_quat;
static void bad_quat_get_state(gr_body body, void *ud, gr_host_body_state *state, void *user)
{
    (void)body, (void)ud, (void)user;
    state->orientation = host_quat;
}

static const gr_vec3 zero3 = {0, 0, 0};

static int handle_codes(gr_world *w, uint64_t id, gr_status expected)
{
    int bad = 0;
    const gr_grain g = {id};
    const gr_body b = {id};
    const gr_material m = {id};
    const gr_clump cl = {id};
    gr_grain_state st;
    memset(&st, 0, sizeof st);
    st.orientation.w = 1;
    double r;
    uint32_t k;
    gr_material mo;
    gr_vec3 v, v2;
    gr_quat q;
    float pts[4];
    gr_material_def md;
    md.size = sizeof md;
    gr_material_pair_def pd;
    gr_material_pair_def_init(&pd);
    gr_grain_def gd = grain_def();
    gd.material = m;
    gr_grain_def cd = grain_def();
    cd.shape = GR_GRAIN_CLUMP;
    cd.clump = cl;
    gr_body_def bd = body_def(GR_SHAPE_BOX);
    bd.material = m;
    gr_fill_def fd = fill_def();
    fd.material = m;
    const gr_status got[] = {
        gr_grain_get_state(w, g, &st), gr_grain_set_state(w, g, &st), gr_grain_get_radius(w, g, &r),
        gr_grain_get_material(w, g, &mo), gr_grain_get_index(w, g, &k), gr_remove_grain(w, g),
        gr_remove_grains(w, &g, 1), gr_remove_body(w, b), gr_body_set_velocity(w, b, zero3, zero3),
        gr_body_get_velocity(w, b, &v, &v2), gr_body_set_pose(w, b, zero3, (gr_quat){0, 0, 0, 1}),
        gr_body_get_pose(w, b, &v, &q), gr_body_get_force(w, b, &v, &v2), gr_body_set_user_data(w, b, NULL),
        gr_body_get_mass(w, b, &r), gr_read_body_particles(w, b, 0, 0, pts, 0), gr_material_get_def(w, m, &md),
        gr_set_material_pair(w, m, gr_world_get_default_material(w), &pd), gr_add_grain(w, &gd, NULL),
        gr_add_grain(w, &cd, NULL), gr_add_body(w, &bd, NULL), gr_fill_box(w, &fd, NULL, NULL, 0),
    };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        if (got[i] != expected) {
            fprintf(stderr, "  handle 0x%016llx, call %zu: %s (expected %s)\n", (unsigned long long)id, i,
                    gr_status_string(got[i]), gr_status_string(expected));
            bad++;
        }
    bad += gr_grain_is_valid(w, g) + gr_body_is_valid(w, b) + (gr_body_get_user_data(w, b) != NULL) +
           (gr_body_get_particle_count(w, b) != 0);
    return bad;
}

static void test_codes_consistent(void)
{
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_DEM);
    wd.host.get_state = bad_quat_get_state;
    wd.host.apply_impulse = ud_apply;
    gr_world *w, *other, *pbd;
    CHECK_OK(NULL, gr_world_create(&wd, &w));
    CHECK_OK(NULL, tu_world(&other, 1, NULL));
    gr_world_def pdf;
    gr_world_def_init(&pdf, GR_SOLVER_PBD);
    CHECK_OK(NULL, gr_world_create(&pdf, &pbd));
    gr_grain_def gd = grain_def();
    gr_grain g, og;
    CHECK_OK(w, gr_add_grain(w, &gd, &g));
    CHECK_OK(other, gr_add_grain(other, &gd, &og));
    gr_body_def bd = body_def(GR_SHAPE_BOX);
    bd.motion = GR_MOTION_KINEMATIC;
    gr_body kin;
    CHECK_OK(w, gr_add_body(w, &bd, &kin));
    const uint64_t h0 = tu_state_hash(w, &kin, 1);
    /* quaternions that are no rotation: INVALID_ARGUMENT on every path */
    const gr_quat no_rotation[] = {{0, 0, 0, 0}, {1e-200, 0, 0, 1e-200}, {1e200, 0, 0, 0}, {0, 1e300, 1e300, 0}};
    for (size_t i = 0; i < sizeof no_rotation / sizeof no_rotation[0]; i++) {
        const gr_quat q = no_rotation[i];
        gr_grain_def d = grain_def();
        d.orientation = q;
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_grain(w, &d, NULL));
        gr_grain_state st;
        CHECK_OK(w, gr_grain_get_state(w, g, &st));
        st.orientation = q;
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_grain_set_state(w, g, &st));
        gr_body_def b = body_def(GR_SHAPE_BOX);
        b.orientation = q;
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_add_body(w, &b, NULL));
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_pose(w, kin, zero3, q));
        const double qa[4] = {q.x, q.y, q.z, q.w};
        CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_write_grains(w, GR_FIELD_ORIENTATION, GR_TYPE_F64, 0, 1, qa, 0));
        CHECK(tu_state_hash(w, &kin, 1) == h0);
    }
    /* the host's engine reports one: the same code, nothing stepped */
    gr_body_def hd = body_def(GR_SHAPE_BOX);
    hd.motion = GR_MOTION_HOST;
    hd.half_extents = (gr_vec3){0.05, 0.05, 0.05};
    hd.particle_radius = 0.01;
    hd.position = (gr_vec3){10, 10, 10}; /* clear of the grains: only the codes are tested here */
    gr_body host;
    CHECK_OK(w, gr_add_body(w, &hd, &host));
    host_quat = (gr_quat){0, 0, 0, 0};
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_step(w, 0.001));
    host_quat = (gr_quat){0, 0, NAN, 1};
    CHECK_STATUS(GR_ERROR_NOT_FINITE, gr_step(w, 0.001));
    host_quat = (gr_quat){0, 0, 0, 1};
    CHECK_OK(w, gr_step(w, 0.001));
    /* garbage handles: no tag or slot bits, or a slot never issued -> INVALID_HANDLE; another
     * world's tag -> WRONG_WORLD; on every call that takes a handle */
    int bad = 0;
    const uint64_t tag_bits = g.id & ~0x7ffffffffffull;
    bad += handle_codes(w, 12345, GR_ERROR_INVALID_HANDLE);
    bad += handle_codes(w, 0xdeadbeefull, GR_ERROR_INVALID_HANDLE);
    bad += handle_codes(w, tag_bits | (1ull << 27), GR_ERROR_INVALID_HANDLE);           /* slot bits 0 */
    bad += handle_codes(w, tag_bits | (1ull << 27) | 5000000u, GR_ERROR_INVALID_HANDLE); /* slot never used */
    bad += handle_codes(w, og.id, GR_ERROR_WRONG_WORLD);
    bad += handle_codes(w, UINT64_MAX, (g.id >> 43) == 0x1fffff ? GR_ERROR_INVALID_HANDLE : GR_ERROR_WRONG_WORLD);
    CHECK(bad == 0);
    /* a snapshot of another solver: INVALID_ARGUMENT, both ways */
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(other, gr_world_save(other, tu_stream_write, &s));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(pbd, tu_stream_read, &s));
    tu_stream_free(&s);
    tu_stream_init(&s);
    CHECK_OK(pbd, gr_world_save(pbd, tu_stream_write, &s));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_load(other, tu_stream_read, &s));
    tu_stream_free(&s);
    gr_world_destroy(w);
    gr_world_destroy(other);
    gr_world_destroy(pbd);
}

/* Defs built against an older, shorter header work: missing fields take the defaults. */
typedef struct old_material_def {
    uint32_t size;
    uint32_t reserved0;
    double density;
    double youngs_modulus;
} old_material_def;

static void test_shorter_def_gets_defaults(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    old_material_def old;
    memset(&old, 0, sizeof old);
    old.size = sizeof old;
    old.density = 1234;
    old.youngs_modulus = 2e6;
    gr_material m;
    CHECK_OK(w, gr_add_material(w, (const gr_material_def *)(const void *)&old, &m));
    gr_material_def back;
    back.size = sizeof back;
    CHECK_OK(w, gr_material_get_def(w, m, &back));
    gr_material_def defaults;
    gr_material_def_init(&defaults);
    CHECK(back.density == 1234 && back.youngs_modulus == 2e6);
    CHECK(back.restitution == defaults.restitution && back.friction == defaults.friction &&
          back.poisson_ratio == defaults.poisson_ratio);
    /* a longer (newer) def: extra bytes are ignored */
    struct { gr_material_def d; double future[4]; } newer;
    memset(&newer, 0, sizeof newer);
    gr_material_def_init(&newer.d);
    newer.d.size = sizeof newer;
    newer.future[0] = 42;
    CHECK_OK(w, gr_add_material(w, &newer.d, NULL));
    /* a size that ends inside a field is no header's struct */
    gr_material_def cut;
    cut.size = (uint32_t)offsetof(gr_material_def, youngs_modulus) + 4;
    CHECK(gr_def_set_defaults(GR_DEF_MATERIAL, &cut) == GR_ERROR_STRUCT_SIZE);
    cut.size = (uint32_t)offsetof(gr_material_def, youngs_modulus);
    CHECK(gr_def_set_defaults(GR_DEF_MATERIAL, &cut) == GR_OK && cut.density == defaults.density);
    gr_world_destroy(w);
}

/* Presets fill every field (over the defaults), only the fields a shorter (older) struct has,
 * and refuse bad input without touching the def. */
static void test_material_presets(void)
{
    gr_material_def defaults, sand, gravel, beads, keep;
    gr_material_def_init(&defaults);
    gr_material_def_init(&sand);
    sand.youngs_modulus = 1; /* the preset starts from the defaults, not from what was there */
    CHECK(gr_material_def_set_preset(&sand, GR_MATERIAL_PRESET_DRY_SAND) == GR_OK);
    CHECK(sand.youngs_modulus == defaults.youngs_modulus && sand.size == sizeof sand);
    gr_material_def_init(&gravel);
    CHECK(gr_material_def_set_preset(&gravel, GR_MATERIAL_PRESET_GRAVEL) == GR_OK);
    gr_material_def_init(&beads);
    CHECK(gr_material_def_set_preset(&beads, GR_MATERIAL_PRESET_GLASS_BEADS) == GR_OK);
    /* a preset sets the grains' shared fields and leaves each solver's to be derived */
    CHECK(sand.static_friction == GR_MATERIAL_DERIVED && sand.kinetic_friction == GR_MATERIAL_DERIVED &&
          sand.continuum_friction == GR_MATERIAL_DERIVED);
    /* ordered by how steep each stands: glass beads < sand < gravel, in the shared fields and in
     * what every solver derives from them */
    CHECK(beads.friction < sand.friction && sand.friction < gravel.friction);
    CHECK(beads.rolling_friction < sand.rolling_friction && sand.rolling_friction < gravel.rolling_friction);
    CHECK(beads.restitution > sand.restitution);
    gr_material_def db = beads, ds = sand, dg = gravel;
    CHECK(gr_material_def_derive(&db) == GR_OK && gr_material_def_derive(&ds) == GR_OK && gr_material_def_derive(&dg) == GR_OK);
    CHECK(db.kinetic_friction < ds.kinetic_friction && ds.kinetic_friction < dg.kinetic_friction);
    CHECK(db.static_friction < ds.static_friction && ds.static_friction < dg.static_friction);
    CHECK(db.continuum_friction < ds.continuum_friction && ds.continuum_friction < dg.continuum_friction);
    CHECK(ds.static_friction > ds.kinetic_friction && ds.kinetic_friction > 0);
    CHECK(ds.friction == sand.friction && ds.density == sand.density); /* the shared fields stay */
    printf("  derived mu_s / mu_k / alpha: glass %.3f / %.3f / %.3f, sand %.3f / %.3f / %.3f, gravel %.3f / %.3f / %.3f\n",
           db.static_friction, db.kinetic_friction, db.continuum_friction, ds.static_friction, ds.kinetic_friction,
           ds.continuum_friction, dg.static_friction, dg.kinetic_friction, dg.continuum_friction);
    /* given fields are kept; one PBD field given gives the other by the ratio 1.2 */
    gr_material_def given = sand;
    given.kinetic_friction = 0.5;
    given.continuum_friction = 0.4;
    CHECK(gr_material_def_derive(&given) == GR_OK);
    CHECK(given.kinetic_friction == 0.5 && fabs(given.static_friction - 0.6) < 1e-12 && given.continuum_friction == 0.4);
    /* deriving twice changes nothing; bad input refused with the def unchanged */
    gr_material_def twice = ds;
    CHECK(gr_material_def_derive(&twice) == GR_OK && memcmp(&twice, &ds, sizeof ds) == 0);
    CHECK(gr_material_def_derive(NULL) == GR_ERROR_NULL_ARGUMENT);
    gr_material_def bad = sand;
    bad.friction = -0.1;
    gr_material_def bad_keep = bad;
    CHECK(gr_material_def_derive(&bad) == GR_ERROR_INVALID_ARGUMENT && memcmp(&bad, &bad_keep, sizeof bad) == 0);
    bad = sand;
    bad.static_friction = -0.5; /* only exactly GR_MATERIAL_DERIVED means derived */
    CHECK(gr_material_def_derive(&bad) == GR_ERROR_INVALID_ARGUMENT);
    bad = sand;
    bad.size = 3;
    CHECK(gr_material_def_derive(&bad) == GR_ERROR_STRUCT_SIZE);
    for (int i = 0; i < 4; i++) { /* every preset is a valid material */
        gr_world *w;
        CHECK_OK(NULL, tu_world(&w, 1, NULL));
        gr_material_def d;
        gr_material_def_init(&d);
        CHECK(gr_material_def_set_preset(&d, (gr_material_preset)i) == GR_OK);
        CHECK_OK(w, gr_add_material(w, &d, NULL));
        if (i == 0)
            CHECK(memcmp(&d, &defaults, sizeof d) == 0);
        gr_world_destroy(w);
    }
    /* an older, shorter struct gets only its own fields */
    struct { gr_material_def d; double guard; } old;
    memset(&old, 0, sizeof old);
    old.d.size = (uint32_t)offsetof(gr_material_def, static_friction);
    old.guard = 7;
    old.d.static_friction = 5;
    CHECK(gr_material_def_set_preset(&old.d, GR_MATERIAL_PRESET_GRAVEL) == GR_OK);
    CHECK(old.d.friction == gravel.friction && old.d.rolling_friction == gravel.rolling_friction);
    CHECK(old.d.static_friction == 5 && old.guard == 7);
    /* bad input: a clear code, the def unchanged */
    CHECK(gr_material_def_set_preset(NULL, GR_MATERIAL_PRESET_DRY_SAND) == GR_ERROR_NULL_ARGUMENT);
    keep = sand;
    CHECK(gr_material_def_set_preset(&sand, (gr_material_preset)4) == GR_ERROR_UNKNOWN_ENUM);
    CHECK(gr_material_def_set_preset(&sand, (gr_material_preset)-1) == GR_ERROR_UNKNOWN_ENUM);
    CHECK(memcmp(&keep, &sand, sizeof sand) == 0);
    sand.size = 3;
    CHECK(gr_material_def_set_preset(&sand, GR_MATERIAL_PRESET_GRAVEL) == GR_ERROR_STRUCT_SIZE);
    sand.size = keep.size;
    CHECK(memcmp(&keep, &sand, sizeof sand) == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"bad_input_matrix", test_bad_input_matrix},
        {"material_presets", test_material_presets},
        {"bad_world_defs", test_bad_world_defs},
        {"solver_def_getter", test_solver_def_getter},
        {"stale_handles_after_reuse", test_stale_handles_after_reuse},
        {"shorter_def_gets_defaults", test_shorter_def_gets_defaults},
        {"last_error_kept", test_last_error_kept},
        {"body_user_data", test_body_user_data},
        {"codes_consistent", test_codes_consistent},
        {"handles_arena_reload", test_handles_arena_reload},
        {"handles_many_worlds", test_handles_many_worlds},
        {"handles_slot_reuse", test_handles_slot_reuse},
        {"handles_load_keeps_tag", test_handles_load_keeps_tag},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
