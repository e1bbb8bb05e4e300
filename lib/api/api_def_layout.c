/* SPDX-License-Identifier: MIT */
/* Where the fields of every sized struct begin and end: a caller's size field must fall on
 * one of these boundaries (an older, shorter header's struct ends at one), or be at least the
 * whole struct (a newer header's). A size inside a field would make the library read half a
 * number. Each list names the struct's top-level fields in order; the assertions below fail
 * to compile when a field is appended without being listed. */
#include "api_internal.h"
#include "api_def_layout.h"

#define WORLD_FIELDS(X)                                                                                        \
    X(gr_world_def, size) X(gr_world_def, solver) X(gr_world_def, gravity) X(gr_world_def, substep)            \
    X(gr_world_def, worker_count) X(gr_world_def, reserved0) X(gr_world_def, seed) X(gr_world_def, allocator)  \
    X(gr_world_def, logger) X(gr_world_def, tasks) X(gr_world_def, dem) X(gr_world_def, user_data)             \
    X(gr_world_def, bounds_min) X(gr_world_def, bounds_max) X(gr_world_def, host) X(gr_world_def, pbd)   \
    X(gr_world_def, solver_def)
#define WORLD_LAST solver_def

#define MATERIAL_FIELDS(X)                                                                                     \
    X(gr_material_def, size) X(gr_material_def, reserved0) X(gr_material_def, density)                         \
    X(gr_material_def, youngs_modulus) X(gr_material_def, poisson_ratio) X(gr_material_def, restitution)       \
    X(gr_material_def, friction) X(gr_material_def, rolling_friction) X(gr_material_def, static_friction)      \
    X(gr_material_def, kinetic_friction) X(gr_material_def, continuum_friction)
#define MATERIAL_LAST continuum_friction

#define PAIR_FIELDS(X)                                                                                         \
    X(gr_material_pair_def, size) X(gr_material_pair_def, reserved0) X(gr_material_pair_def, restitution)      \
    X(gr_material_pair_def, friction) X(gr_material_pair_def, rolling_friction)
#define PAIR_LAST rolling_friction

#define GRAIN_FIELDS(X)                                                                                        \
    X(gr_grain_def, size) X(gr_grain_def, shape) X(gr_grain_def, material) X(gr_grain_def, radius)             \
    X(gr_grain_def, position) X(gr_grain_def, velocity) X(gr_grain_def, angular_velocity)                      \
    X(gr_grain_def, orientation) X(gr_grain_def, clump) X(gr_grain_def, system)
#define GRAIN_LAST system

#define CLUMP_FIELDS(X) X(gr_clump_def, size) X(gr_clump_def, count) X(gr_clump_def, centres) X(gr_clump_def, radii)
#define CLUMP_LAST radii

#define BODY_FIELDS(X)                                                                                         \
    X(gr_body_def, size) X(gr_body_def, shape) X(gr_body_def, motion) X(gr_body_def, open_faces)               \
    X(gr_body_def, material) X(gr_body_def, position) X(gr_body_def, orientation)                              \
    X(gr_body_def, linear_velocity) X(gr_body_def, angular_velocity) X(gr_body_def, normal)                    \
    X(gr_body_def, radius) X(gr_body_def, half_height) X(gr_body_def, half_extents) X(gr_body_def, user_data)  \
    X(gr_body_def, particle_radius) X(gr_body_def, particle_density) X(gr_body_def, particle_offset)           \
    X(gr_body_def, mesh_vertices) X(gr_body_def, mesh_indices) X(gr_body_def, mesh_vertex_count)               \
    X(gr_body_def, mesh_triangle_count) X(gr_body_def, mass) X(gr_body_def, inertia)                           \
    X(gr_body_def, inertia_rotation)
#define BODY_LAST inertia_rotation

#define FILL_FIELDS(X)                                                                                         \
    X(gr_fill_def, size) X(gr_fill_def, pattern) X(gr_fill_def, material) X(gr_fill_def, min)                  \
    X(gr_fill_def, max) X(gr_fill_def, radius) X(gr_fill_def, radius_max) X(gr_fill_def, spacing)             \
    X(gr_fill_def, jitter) X(gr_fill_def, velocity) X(gr_fill_def, max_count) X(gr_fill_def, attempts)         \
    X(gr_fill_def, seed) X(gr_fill_def, avoid_overlap) X(gr_fill_def, system) X(gr_fill_def, shape)         \
    X(gr_fill_def, reserved1) X(gr_fill_def, clump)
#define FILL_LAST clump

#define COUNTERS_FIELDS(X)                                                                                     \
    X(gr_counters, size) X(gr_counters, grain_count) X(gr_counters, body_count) X(gr_counters, material_count)  \
    X(gr_counters, contact_count) X(gr_counters, body_contact_count) X(gr_counters, step_count)                \
    X(gr_counters, substep_count) X(gr_counters, neighbor_rebuilds) X(gr_counters, time)                       \
    X(gr_counters, last_substep) X(gr_counters, bytes_in_use) X(gr_counters, bytes_peak)                       \
    X(gr_counters, allocation_count) X(gr_counters, grains_removed) X(gr_counters, sleeping_count)             \
    X(gr_counters, frozen_count) X(gr_counters, grains_split) X(gr_counters, grains_merged)
#define COUNTERS_LAST grains_merged

#define BOUNDS GR_DEF_FIELD_BOUNDS
#define LISTED_TO_END GR_DEF_LISTED_TO_END
LISTED_TO_END(gr_world_def, WORLD_LAST);
LISTED_TO_END(gr_material_def, MATERIAL_LAST);
LISTED_TO_END(gr_material_pair_def, PAIR_LAST);
LISTED_TO_END(gr_grain_def, GRAIN_LAST);
LISTED_TO_END(gr_clump_def, CLUMP_LAST);
LISTED_TO_END(gr_body_def, BODY_LAST);
LISTED_TO_END(gr_fill_def, FILL_LAST);
LISTED_TO_END(gr_counters, COUNTERS_LAST);

static const uint16_t world_bounds[] = {WORLD_FIELDS(BOUNDS)};
static const uint16_t material_bounds[] = {MATERIAL_FIELDS(BOUNDS)};
static const uint16_t pair_bounds[] = {PAIR_FIELDS(BOUNDS)};
static const uint16_t grain_bounds[] = {GRAIN_FIELDS(BOUNDS)};
static const uint16_t clump_bounds[] = {CLUMP_FIELDS(BOUNDS)};
static const uint16_t body_bounds[] = {BODY_FIELDS(BOUNDS)};
static const uint16_t fill_bounds[] = {FILL_FIELDS(BOUNDS)};
static const uint16_t counters_bounds[] = {COUNTERS_FIELDS(BOUNDS)};

static bool on_boundary(const uint16_t *b, size_t n, size_t full, uint32_t size)
{
    if (size >= full)
        return true; /* this struct or a newer, longer one */
    for (size_t i = 0; i < n; i++)
        if (b[i] == size)
            return true;
    return false;
}

bool gr_struct_size_ok(gr_struct_kind kind, uint32_t size)
{
    if (size < sizeof(uint32_t) || size > GR_MAX_DEF_SIZE)
        return false;
#define CASE_(k, arr, T) \
    case k: return on_boundary(arr, GR_COUNTOF(arr), sizeof(T), size);
    switch (kind) {
    CASE_(GR_STRUCT_WORLD_DEF, world_bounds, gr_world_def)
    CASE_(GR_STRUCT_MATERIAL_DEF, material_bounds, gr_material_def)
    CASE_(GR_STRUCT_PAIR_DEF, pair_bounds, gr_material_pair_def)
    CASE_(GR_STRUCT_GRAIN_DEF, grain_bounds, gr_grain_def)
    CASE_(GR_STRUCT_CLUMP_DEF, clump_bounds, gr_clump_def)
    CASE_(GR_STRUCT_BODY_DEF, body_bounds, gr_body_def)
    CASE_(GR_STRUCT_FILL_DEF, fill_bounds, gr_fill_def)
    CASE_(GR_STRUCT_COUNTERS, counters_bounds, gr_counters)
    default: {
        /* a solver's def: the solver lists its fields (gr_def_layout) */
        const gr_solver_vtable *s = gr_solver_find_def((gr_def_kind)kind);
        return s && on_boundary(s->def_layout->bounds, s->def_layout->count, s->def_size, size);
    }
    }
#undef CASE_
}
