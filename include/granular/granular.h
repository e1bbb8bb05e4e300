/* SPDX-License-Identifier: MIT */
/* granular: simulate granular material (sand, gravel, grain, powder) in your engine.
 *
 * Naming rule, applied everywhere:
 *   gr_world_<verb>        the world itself: gr_world_create, gr_world_save, gr_world_get_time
 *   gr_<verb>[_<noun>]     what a world does to its contents: gr_step, gr_add_grain,
 *                          gr_fill_box, gr_fill_mesh, gr_read_grains, gr_remove_body
 *   gr_<noun>_<verb>       one object: gr_grain_get_state, gr_body_set_velocity
 * The world is always the first argument. Every fallible call returns gr_status; on error the
 * world is exactly as it was and gr_world_last_error() tells why.
 *
 * Threading: a world is used by one thread at a time. Distinct worlds are fully independent
 * (no global state). gr_step may use worker threads internally (see gr_world_def).
 */
#ifndef GRANULAR_GRANULAR_H
#define GRANULAR_GRANULAR_H

#include "gr_base.h"
#include "gr_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library ------------------------------------------------------------------------ */

/// Library version as GR_VERSION_NUMBER (major*10000 + minor*100 + patch).
GR_API uint32_t gr_get_version(void);
/// Library version as "major.minor.patch".
GR_API const char *gr_get_version_string(void);
/// Size in bytes of the floating-point type of the simulation state (8: double precision).
GR_API uint32_t gr_get_precision(void);
/// A short English description of a status code (never NULL).
GR_API const char *gr_status_string(gr_status status);

/// Compare the header you compiled against with the library you run against: returns GR_OK
/// when the major versions agree (the ABI promise, docs/abi.md), GR_ERROR_VERSION otherwise.
static inline gr_status gr_check_version(void)
{
    return (gr_get_version() / 10000u == (uint32_t)GR_VERSION_MAJOR) ? GR_OK : GR_ERROR_VERSION;
}

/* ---- world -------------------------------------------------------------------------- */

/// Create a world. *out is set only on success. Errors are also sent to def->logger.
GR_API gr_status gr_world_create(const gr_world_def *def, gr_world **out);
/// Destroy a world and free everything it owns. NULL is ignored.
GR_API void gr_world_destroy(gr_world *world);

/// Advance the world by dt seconds (dt > 0, finite). The step is split into n equal substeps
/// no longer than the world's substep. Returns GR_ERROR_UNSTABLE if the state became
/// non-finite (the offending grains keep their last finite state; see docs/guide.md).
/// A dt needing more than GR_MAX_SUBSTEPS_PER_STEP substeps is refused
/// (GR_ERROR_INVALID_ARGUMENT) before anything moves.
GR_API gr_status gr_step(gr_world *world, double dt);

/// Message of the last failed call on this world ("" if none). Valid until the next call.
GR_API const char *gr_world_last_error(const gr_world *world);
/// Simulated time [s]. 0 for NULL.
GR_API double gr_world_get_time(const gr_world *world);
/// The substep [s] the next gr_step will use at most (resolved when automatic).
GR_API double gr_world_get_substep(const gr_world *world);
/// Fill counters; set out->size = sizeof(gr_counters) first.
GR_API gr_status gr_world_get_counters(const gr_world *world, gr_counters *out);
/// The world's def as resolved at creation (defaults filled, dem copied into *dem_out when
/// non-NULL). Set the size fields of both outputs first.
GR_API gr_status gr_world_get_def(const gr_world *world, gr_world_def *out, gr_dem_def *dem_out);
/// The world's PBD parameters as resolved at creation (defaults filled). Set out->size first.
/// Any solver kind answers (a DEM world reports the defaults it would use).
GR_API gr_status gr_world_get_pbd_def(const gr_world *world, gr_pbd_def *out);
/// Change gravity [m/s^2] between steps (tilting a scene, switching Y-up to Z-up).
/// Setters given the value the world already has (this one, gr_body_set_pose,
/// gr_grain_set_state; bitwise, after the API normalises orientations) change nothing: the
/// trajectory is bit-identical to one without the call. (PBD: not yet for a dynamic body's
/// pose, which re-places its particles.)
GR_API gr_status gr_world_set_gravity(gr_world *world, gr_vec3 gravity);
GR_API void *gr_world_get_user_data(const gr_world *world);

/// Number of live grains (0 for NULL). Bulk reads index grains 0 .. count-1.
GR_API uint32_t gr_world_get_grain_count(const gr_world *world);
/// Number of render points gr_read_render_points can return (DEM: one per sphere).
GR_API uint32_t gr_world_get_render_point_count(const gr_world *world);

/// Write a snapshot of the whole simulation state (not the hooks) through `write`. The format
/// is versioned and checksummed; loading it and stepping is bit-identical to stepping on.
GR_API gr_status gr_world_save(gr_world *world, gr_write_fn *write, void *user);
/// Replace the world's simulation state by a snapshot. The solver kind must match. On any
/// error (truncated, corrupt, wrong version, out of memory) the world is unchanged.
GR_API gr_status gr_world_load(gr_world *world, gr_read_fn *read, void *user);

/* ---- materials ---------------------------------------------------------------------- */

/// Add a material. Every world has a default material (gr_world_get_default_material).
GR_API gr_status gr_add_material(gr_world *world, const gr_material_def *def, gr_material *out);
GR_API gr_material gr_world_get_default_material(const gr_world *world);
GR_API gr_status gr_material_get_def(const gr_world *world, gr_material material, gr_material_def *out);
/// Override the mixing rule for one pair of materials (order does not matter).
GR_API gr_status gr_set_material_pair(gr_world *world, gr_material a, gr_material b,
                                      const gr_material_pair_def *def);

/* ---- grain shapes -------------------------------------------------------------------- */

/// Register a clump template (a grain shape made of spheres). Every world already has the
/// tetrahedron, cube and pair of GR_GRAIN_*; templates cannot be removed.
GR_API gr_status gr_add_clump_template(gr_world *world, const gr_clump_def *def, gr_clump *out);

/* ---- grains ------------------------------------------------------------------------- */

/// Add one grain. *out (may be NULL) receives its handle.
GR_API gr_status gr_add_grain(gr_world *world, const gr_grain_def *def, gr_grain *out);
/// Add `count` grains from an array of defs (all with the same size field: it is the
/// stride). All or nothing. out (may be NULL) receives `count` handles. New grains always
/// take the bulk indices right after the existing ones, in the order given (also for
/// gr_add_grain and gr_fill_box).
GR_API gr_status gr_add_grains(gr_world *world, const gr_grain_def *defs, uint32_t count, gr_grain *out);
/// Fill an axis-aligned region. *added (may be NULL) receives the number of grains placed;
/// they are the bulk indices [count before, count before + added). out_handles (may be NULL)
/// receives up to out_capacity of their handles (or read GR_FIELD_HANDLE over that range).
GR_API gr_status gr_fill_box(gr_world *world, const gr_fill_def *def, uint32_t *added,
                             gr_grain *out_handles, uint32_t out_capacity);
/// Fill the inside of a closed, outward-wound triangle mesh (world coordinates; checked like a
/// mesh body's, read during the call only) like gr_fill_box fills a box: every grain wholly
/// inside. def->min and def->max are ignored. The mesh must be one surface: where closed
/// parts overlap, their inner faces count as surface and leave seams free of grains.
GR_API gr_status gr_fill_mesh(gr_world *world, const gr_fill_def *def, const gr_vec3 *vertices,
                              uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count,
                              uint32_t *added, gr_grain *out_handles, uint32_t out_capacity);
/// Remove a grain: its handle becomes stale. The last grain in bulk order takes its index.
GR_API gr_status gr_remove_grain(gr_world *world, gr_grain grain);
/// Remove several grains (all valid and distinct, or nothing is removed).
GR_API gr_status gr_remove_grains(gr_world *world, const gr_grain *grains, uint32_t count);

/// 1 if the handle names a live grain of this world, else 0. Never fails.
GR_API int gr_grain_is_valid(const gr_world *world, gr_grain grain);
GR_API gr_status gr_grain_get_state(const gr_world *world, gr_grain grain, gr_grain_state *out);
/// Teleport / re-velocity one grain. Orientation is normalised; all values must be finite.
GR_API gr_status gr_grain_set_state(gr_world *world, gr_grain grain, const gr_grain_state *state);
GR_API gr_status gr_grain_get_radius(const gr_world *world, gr_grain grain, double *out);
GR_API gr_status gr_grain_get_material(const gr_world *world, gr_grain grain, gr_material *out);
/// Index of the grain in bulk order (valid until the next add/remove).
GR_API gr_status gr_grain_get_index(const gr_world *world, gr_grain grain, uint32_t *out);

/// Read one field of grains [first, first+count) in bulk order into dst. Vector fields write
/// 3 (quat: 4) scalars per grain; `stride` is the byte distance between grains (0 = packed).
GR_API gr_status gr_read_grains(const gr_world *world, gr_field field, gr_scalar_type type,
                                uint32_t first, uint32_t count, void *dst, size_t stride);
/// Write position, velocity, angular velocity or orientation of grains [first, first+count).
/// Every value is checked before anything is written.
GR_API gr_status gr_write_grains(gr_world *world, gr_field field, gr_scalar_type type,
                                 uint32_t first, uint32_t count, const void *src, size_t stride);
/// Render points [first, first+count) as 4 floats each (x, y, z, radius), `stride` bytes apart
/// (0 = 16). DEM: the grains' spheres.
GR_API gr_status gr_read_render_points(const gr_world *world, uint32_t first, uint32_t count,
                                       float *dst, size_t stride);

/* ---- bodies ------------------------------------------------------------------------- */

GR_API gr_status gr_add_body(gr_world *world, const gr_body_def *def, gr_body *out);
GR_API gr_status gr_remove_body(gr_world *world, gr_body body);
GR_API int gr_body_is_valid(const gr_world *world, gr_body body);
/// Kinematic and dynamic bodies: the velocity [m/s] and angular velocity [rad/s] about the
/// body's position that the body moves with from now on (a dynamic body then goes on under
/// gravity and the grains' forces).
GR_API gr_status gr_body_set_velocity(gr_world *world, gr_body body, gr_vec3 linear, gr_vec3 angular);
GR_API gr_status gr_body_get_velocity(const gr_world *world, gr_body body, gr_vec3 *linear, gr_vec3 *angular);
/// Teleport a static or kinematic body (grains are not swept, they are pushed out next step).
GR_API gr_status gr_body_set_pose(gr_world *world, gr_body body, gr_vec3 position, gr_quat orientation);
GR_API gr_status gr_body_get_pose(const gr_world *world, gr_body body, gr_vec3 *position, gr_quat *orientation);
/// Force [N] and torque [N m] (about the body position) that the grains and other bodies put
/// on the body, averaged over the last gr_step (force sensing: an excavator's load). Either
/// output may be NULL.
GR_API gr_status gr_body_get_force(const gr_world *world, gr_body body, gr_vec3 *force, gr_vec3 *torque);
GR_API void *gr_body_get_user_data(const gr_world *world, gr_body body);
/// Mass [kg] of a dynamic or host-owned body (from its shape and material), 0 for others.
GR_API gr_status gr_body_get_mass(const gr_world *world, gr_body body, double *mass);
/// Number of surface particles of a particle-covered body (0 for others).
GR_API uint32_t gr_body_get_particle_count(const gr_world *world, gr_body body);
/// The body's surface particles [first, first+count) as x, y, z, radius floats (world frame),
/// `stride` bytes apart (0 = 16): to draw or check the covering.
GR_API gr_status gr_read_body_particles(const gr_world *world, gr_body body, uint32_t first, uint32_t count,
                                        float *dst, size_t stride);

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_GRANULAR_H */
