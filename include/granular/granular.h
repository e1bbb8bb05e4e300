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
 * Error codes: each fallible call lists under "Errors:" every gr_status it can return besides
 * GR_OK, without the GR_ERROR_ prefix. One kind of bad input has one code on every path:
 * NULL for a required pointer -> NULL_ARGUMENT; NaN or infinity -> NOT_FINITE; a quaternion
 * that is no rotation (zero, or a length that overflows) -> INVALID_ARGUMENT; a struct size
 * field 0, above 4096 or inside a field -> STRUCT_SIZE; a null handle, a value with no tag or
 * slot bits, or a slot or generation this world never issued -> INVALID_HANDLE; another world's
 * tag -> WRONG_WORLD; a removed grain or body -> STALE_HANDLE; a call from inside gr_step (a
 * host callback) -> BUSY; a snapshot of another solver kind -> INVALID_ARGUMENT. Calls that
 * return something other than gr_status never fail (they answer 0 or NULL for bad input).
 *
 * Threading: a world is used by one thread at a time. Distinct worlds are fully independent
 * (the only process-wide state is the lock-free counter that gives each world its handle tag,
 * gr_base.h). gr_step may use worker threads internally (see gr_world_def).
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

/// Create a world. *out is set only on success. Errors are also sent to def->logger, whenever
/// def->size covers the logger field (a def of size 0, never initialised, cannot be logged).
/// Errors: NULL_ARGUMENT, STRUCT_SIZE, UNKNOWN_ENUM, NOT_FINITE, INVALID_ARGUMENT, TOO_MANY
///    (worker_count), UNSUPPORTED (a solver not built), OUT_OF_MEMORY.
GR_API gr_status gr_world_create(const gr_world_def *def, gr_world **out);
/// Destroy a world and free everything it owns. NULL is ignored.
GR_API void gr_world_destroy(gr_world *world);

/// Advance the world by dt seconds (dt > 0, finite). The step is split into n equal substeps
/// no longer than the world's substep. Returns GR_ERROR_UNSTABLE if grains blew up (a
/// non-finite state, or faster than GR_MAX_SPEED): each is stopped at its last finite state
/// with zero velocity, the step ends after that substep, gr_world_last_error says how many and
/// the first one's bulk index; nothing non-finite stays in the world or reaches the host hooks
/// (see docs/guide.md).
/// A dt needing more than GR_MAX_SUBSTEPS_PER_STEP substeps is refused
/// (GR_ERROR_INVALID_ARGUMENT) before anything moves.
/// OUT_OF_MEMORY: every allocation of the first substep (and of the step's own bookkeeping)
/// comes before anything moves, so a failure there leaves the world exactly as it was (time,
/// step and substep counts, grains, bodies, render points). Contact lists that grow later in
/// the step can still fail: then the world stops at the end of its last completed substep,
/// consistent (gr_world_get_time and the counters say when; that can be the whole dt when only
/// the rebuild closing the step failed; the step counts in step_count; the host's
/// apply_impulse is not called), and stepping on continues from there. Results then may
/// differ in the last bits from a world that never failed. See docs/guide.md "Errors".
/// Errors: NULL_ARGUMENT (world), BUSY, NOT_FINITE, INVALID_ARGUMENT (dt; a host body's zero
///    orientation), OUT_OF_MEMORY, TOO_MANY, UNSTABLE.
GR_API gr_status gr_step(gr_world *world, double dt);

/// Message of the most recent failed call on this world ("" if none failed yet). Successful
/// calls leave it as it is, so it may describe an earlier failure: look at it when a call
/// returned an error. Valid until the next call on the world.
GR_API const char *gr_world_last_error(const gr_world *world);
/// Simulated time [s]. 0 for NULL.
GR_API double gr_world_get_time(const gr_world *world);
/// The substep [s] the next gr_step will use at most (resolved when automatic).
GR_API double gr_world_get_substep(const gr_world *world);
/// Fill counters; set out->size = sizeof(gr_counters) first.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (out), STRUCT_SIZE.
GR_API gr_status gr_world_get_counters(const gr_world *world, gr_counters *out);
/// The world's def as resolved at creation (defaults filled; its dem, pbd and solver_def
/// pointers NULL). *dem_out, when non-NULL, receives the DEM def: a DEM world's own, another
/// world's the defaults (gr_world_get_solver_def serves any solver's). Set the size fields of
/// both outputs first.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (out), STRUCT_SIZE.
GR_API gr_status gr_world_get_def(const gr_world *world, gr_world_def *out, gr_dem_def *dem_out);
/// The world's PBD parameters as resolved at creation (defaults filled). Set out->size first.
/// Any solver kind answers (another world than a PBD one reports the defaults: a world keeps
/// its own solver's def only).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (out), STRUCT_SIZE.
GR_API gr_status gr_world_get_pbd_def(const gr_world *world, gr_pbd_def *out);
/// A solver's parameters as this world resolved them, for any solver: `kind` names the def
/// struct (GR_DEF_DEM, GR_DEF_PBD, GR_DEF_CONTINUUM) and `out` points at one with its size field set (its
/// _init). The world's own solver reports its def; another solver's kind reports that
/// solver's defaults (a world keeps the def of its own solver only).
/// Errors: NULL_ARGUMENT (world, out), BUSY, UNKNOWN_ENUM (kind is not a built solver's
/// def), STRUCT_SIZE.
GR_API gr_status gr_world_get_solver_def(const gr_world *world, gr_def_kind kind, void *out);
/// Add a system: another solver, with grains of its own, beside the world's own solver
/// (system 0, gr_world_def.solver). Grains choose their system (gr_grain_def.system,
/// gr_fill_def.system); bodies, materials, gravity and the clock are shared, and the systems
/// step substep by substep, each in turn. Two systems share a world only where the
/// library couples their solvers (the coupling runs after every step and moves material
/// between them); at most one system moves the dynamic bodies. `solver_def` is that solver's
/// def struct (its size field set by its _init), NULL for the defaults; it is checked and
/// copied. *out_system (may be NULL) receives the system's index, 1 .. GR_MAX_SYSTEMS - 1.
/// Errors: NULL_ARGUMENT (world), BUSY, UNKNOWN_ENUM (solver), UNSUPPORTED (solver not
/// built; no coupling with a system there; a second system moving bodies; a solver of body
/// particles added after bodies without them), TOO_MANY (GR_MAX_SYSTEMS), the def's own
/// errors (STRUCT_SIZE, INVALID_ARGUMENT, ...), OUT_OF_MEMORY; the world is unchanged on any.
GR_API gr_status gr_world_add_system(gr_world *world, gr_solver_kind solver, const void *solver_def,
                                     uint32_t *out_system);
/// Systems in the world (1 for a world without gr_world_add_system; 0 for NULL).
GR_API uint32_t gr_world_get_system_count(const gr_world *world);
/// The solver of a system.
/// Errors: NULL_ARGUMENT (world, out), BUSY, INVALID_ARGUMENT (no such system).
GR_API gr_status gr_world_get_system_solver(const gr_world *world, uint32_t system, gr_solver_kind *out);

/* Terrain (docs/terrain.md). A terrain is a system (gr_world_add_system with GR_SOLVER_TERRAIN
 * and a gr_terrain_def) beside the world's particle solver: `system` below is its index. */

/// Set a def's material parameters to a preset: sand, mud or snow (angles, compression,
/// bearing pressure, moving fraction; the rest of the def is left as it is).
/// Errors: NULL_ARGUMENT (def), STRUCT_SIZE, UNKNOWN_ENUM (preset).
GR_API gr_status gr_terrain_def_preset(gr_terrain_def *def, gr_terrain_preset preset);
/// The terrain's sizes, resolved parameters and what it holds. Set out->size first.
/// Errors: NULL_ARGUMENT (world, out), BUSY, INVALID_ARGUMENT (system is not a terrain),
/// STRUCT_SIZE.
GR_API gr_status gr_terrain_get_info(const gr_world *world, uint32_t system, gr_terrain_info *out);
/// The terrain's own body: its surface, a static body of shape GR_SHAPE_HEIGHTFIELD that the
/// grains collide with (its force is what the grains put on the terrain). It goes with the
/// terrain: gr_remove_body refuses it.
/// Errors: NULL_ARGUMENT (world, out), BUSY, INVALID_ARGUMENT (system is not a terrain).
GR_API gr_status gr_terrain_get_body(const gr_world *world, uint32_t system, gr_body *out);
/// Set the heights [m above the base] of the columns [x0, x0 + nx) x [z0, z0 + nz), x fastest,
/// `heights[k * nx + i]` for column (x0 + i, z0 + k); each finite and in [0, 1e4]. The sand's
/// volume changes by what the heights say (an edit, not a simulation).
/// Errors: NULL_ARGUMENT (world, heights), BUSY, INVALID_ARGUMENT (system, the rectangle
/// outside the terrain, a height out of range); the terrain is unchanged on any.
GR_API gr_status gr_terrain_set_heights(gr_world *world, uint32_t system, uint32_t x0, uint32_t z0, uint32_t nx,
                                        uint32_t nz, const float *heights);
/// Read the heights of a rectangle of columns (as gr_terrain_set_heights lays them out) into out.
/// Errors: NULL_ARGUMENT (world, out), BUSY, INVALID_ARGUMENT (system, the rectangle).
GR_API gr_status gr_terrain_read_heights(const gr_world *world, uint32_t system, uint32_t x0, uint32_t z0,
                                         uint32_t nx, uint32_t nz, float *out);
/// The columns of tile `tile` (tile_x + tile_z * tiles_x) whose height changed since the last
/// call for this tile, as one rectangle in terrain columns (empty: none), and forget them: an
/// engine uploads only what moved. A new terrain reports every tile whole once.
/// Errors: NULL_ARGUMENT (world, out), BUSY, INVALID_ARGUMENT (system, tile).
GR_API gr_status gr_terrain_take_changes(gr_world *world, uint32_t system, uint32_t tile, gr_terrain_rect *out);
/// Change gravity [m/s^2] between steps (tilting a scene, switching Y-up to Z-up).
/// Setters given the value the world already has (this one, gr_body_set_pose,
/// gr_grain_set_state; bitwise, after the API normalises orientations) change nothing: the
/// trajectory is bit-identical to one without the call. (PBD: not yet for a dynamic body's
/// pose, which re-places its particles.)
/// Errors: NULL_ARGUMENT (world), BUSY, NOT_FINITE.
GR_API gr_status gr_world_set_gravity(gr_world *world, gr_vec3 gravity);
GR_API void *gr_world_get_user_data(const gr_world *world);

/// Number of live grains (0 for NULL). Bulk reads index grains 0 .. count-1.
GR_API uint32_t gr_world_get_grain_count(const gr_world *world);
/// Number of render points gr_read_render_points can return (without render points of the
/// solver's def, hr_radius: one per sphere).
GR_API uint32_t gr_world_get_render_point_count(const gr_world *world);

/// Write a snapshot of the whole simulation state (not the hooks) through `write`. The format
/// is versioned and checksummed; loading it and stepping is bit-identical to stepping on.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (write), OUT_OF_MEMORY, IO.
GR_API gr_status gr_world_save(gr_world *world, gr_write_fn *write, void *user);
/// Replace the world's simulation state by a snapshot. The solver kind must match. Every
/// index and range is checked and the saved settings pass the checks of gr_world_create, so
/// whatever loads can be stepped. Memory grows with the bytes actually read, whatever size the
/// header declares. Formats read: the current one (6); for DEM also 3 to 5, for PBD also 5
/// (the fields they lack take their defaults; see docs/abi.md). Errors (the world unchanged,
/// gr_world_last_error says which rule the data breaks):
///   GR_ERROR_CORRUPT_DATA     truncated, checksum mismatch, or content that breaks a rule
///   GR_ERROR_VERSION          a newer format, or an older one this library no longer reads
///   GR_ERROR_INVALID_ARGUMENT a snapshot of another solver; a host-owned body while this
///                             world has no host hooks (gr_world_def.host)
///   GR_ERROR_OUT_OF_MEMORY, GR_ERROR_NULL_ARGUMENT, GR_ERROR_BUSY
GR_API gr_status gr_world_load(gr_world *world, gr_read_fn *read, void *user);

/* ---- materials ---------------------------------------------------------------------- */

/// Add a material. Every world has a default material (gr_world_get_default_material).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def), STRUCT_SIZE, NOT_FINITE,
///    INVALID_ARGUMENT, UNKNOWN_ENUM, TOO_MANY (GR_MAX_MATERIALS), OUT_OF_MEMORY.
GR_API gr_status gr_add_material(gr_world *world, const gr_material_def *def, gr_material *out);
GR_API gr_material gr_world_get_default_material(const gr_world *world);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, WRONG_WORLD, NULL_ARGUMENT (out),
///    STRUCT_SIZE.
GR_API gr_status gr_material_get_def(const gr_world *world, gr_material material, gr_material_def *out);
/// Fill a material def (initialised: its size set) with a preset's values: the defaults, then
/// the preset's density, restitution and friction coefficients for both solvers. Needs no
/// world; change any field afterwards (e.g. the density of your sand).
/// Errors: NULL_ARGUMENT (def), STRUCT_SIZE, UNKNOWN_ENUM (preset); def is unchanged on error.
GR_API gr_status gr_material_def_set_preset(gr_material_def *def, gr_material_preset preset);
/// What each solver takes from a material: the fields of def left at GR_MATERIAL_DERIVED
/// (static_friction, kinetic_friction, continuum_friction) are replaced by the coefficients the
/// library derives from its friction and rolling_friction (docs/materials.md); the fields given
/// stay. A material so derived behaves as the original on every solver. Needs no world.
/// Errors: NULL_ARGUMENT (def), STRUCT_SIZE, INVALID_ARGUMENT (a field out of the ranges of
/// gr_add_material); def is unchanged on error.
GR_API gr_status gr_material_def_derive(gr_material_def *def);
/// Override the mixing rule for one pair of materials (order does not matter).
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, WRONG_WORLD, NULL_ARGUMENT (def),
///    STRUCT_SIZE, NOT_FINITE, INVALID_ARGUMENT, OUT_OF_MEMORY.
GR_API gr_status gr_set_material_pair(gr_world *world, gr_material a, gr_material b,
                                      const gr_material_pair_def *def);

/* ---- grain shapes -------------------------------------------------------------------- */

/// Register a clump template (a grain shape made of spheres). Every world already has the
/// tetrahedron, cube and pair of GR_GRAIN_*; templates cannot be removed.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def, its arrays), STRUCT_SIZE, NOT_FINITE,
///    INVALID_ARGUMENT, TOO_MANY (GR_MAX_CLUMP_TEMPLATES), OUT_OF_MEMORY.
GR_API gr_status gr_add_clump_template(gr_world *world, const gr_clump_def *def, gr_clump *out);

/* ---- grains ------------------------------------------------------------------------- */

/// Add one grain. *out (may be NULL) receives its handle.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def), STRUCT_SIZE, NOT_FINITE,
///    INVALID_ARGUMENT, UNKNOWN_ENUM, INVALID_HANDLE, WRONG_WORLD (material, clump), UNSUPPORTED (a
///    clump shape in a solver of spheres), TOO_MANY, OUT_OF_MEMORY.
GR_API gr_status gr_add_grain(gr_world *world, const gr_grain_def *def, gr_grain *out);
/// Add `count` grains from an array of defs (all with the same size field: it is the
/// stride). All or nothing. out (may be NULL) receives `count` handles. New grains always
/// take the bulk indices right after the existing ones, in the order given (also for
/// gr_add_grain and gr_fill_box).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (defs), STRUCT_SIZE, NOT_FINITE,
///    INVALID_ARGUMENT, UNKNOWN_ENUM, INVALID_HANDLE, WRONG_WORLD (material, clump), UNSUPPORTED,
///    TOO_MANY, OUT_OF_MEMORY.
GR_API gr_status gr_add_grains(gr_world *world, const gr_grain_def *defs, uint32_t count, gr_grain *out);
/// Fill an axis-aligned region. *added (may be NULL) receives the number of grains placed;
/// they are the bulk indices [count before, count before + added). out_handles (may be NULL)
/// receives up to out_capacity of their handles (or read GR_FIELD_HANDLE over that range).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def; out_handles with out_capacity > 0),
///    STRUCT_SIZE, NOT_FINITE, INVALID_ARGUMENT, UNKNOWN_ENUM, INVALID_HANDLE, WRONG_WORLD
///    (material, clump), UNSUPPORTED, TOO_MANY, OUT_OF_MEMORY.
GR_API gr_status gr_fill_box(gr_world *world, const gr_fill_def *def, uint32_t *added,
                             gr_grain *out_handles, uint32_t out_capacity);
/// Fill the inside of a closed, outward-wound triangle mesh (world coordinates; checked like a
/// mesh body's, read during the call only) like gr_fill_box fills a box: every grain wholly
/// inside. def->min and def->max are ignored. The mesh must be one surface: where closed
/// parts overlap, their inner faces count as surface and leave seams free of grains.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def, the mesh arrays; out_handles with
///    out_capacity > 0), STRUCT_SIZE, NOT_FINITE, INVALID_ARGUMENT, UNKNOWN_ENUM, INVALID_HANDLE,
///    WRONG_WORLD (material, clump), UNSUPPORTED, TOO_MANY, OUT_OF_MEMORY.
GR_API gr_status gr_fill_mesh(gr_world *world, const gr_fill_def *def, const gr_vec3 *vertices,
                              uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count,
                              uint32_t *added, gr_grain *out_handles, uint32_t out_capacity);
/// Remove a grain: its handle becomes stale. The last grain in bulk order takes its index.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD.
GR_API gr_status gr_remove_grain(gr_world *world, gr_grain grain);
/// Remove several grains (all valid and distinct, or nothing is removed).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (grains), INVALID_HANDLE, STALE_HANDLE,
///    WRONG_WORLD, INVALID_ARGUMENT (a grain twice), OUT_OF_MEMORY.
GR_API gr_status gr_remove_grains(gr_world *world, const gr_grain *grains, uint32_t count);

/// 1 if the handle names a live grain of this world, else 0. Never fails.
GR_API int gr_grain_is_valid(const gr_world *world, gr_grain grain);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (out).
GR_API gr_status gr_grain_get_state(const gr_world *world, gr_grain grain, gr_grain_state *out);
/// Teleport / re-velocity one grain. Orientation is normalised; all values must be finite.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (state), NOT_FINITE, INVALID_ARGUMENT (a zero orientation).
GR_API gr_status gr_grain_set_state(gr_world *world, gr_grain grain, const gr_grain_state *state);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (out).
GR_API gr_status gr_grain_get_radius(const gr_world *world, gr_grain grain, double *out);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (out).
GR_API gr_status gr_grain_get_material(const gr_world *world, gr_grain grain, gr_material *out);
/// Index of the grain in bulk order (valid until the next add/remove).
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (out).
GR_API gr_status gr_grain_get_index(const gr_world *world, gr_grain grain, uint32_t *out);
/// The system that owns the grain (0: the world's own solver; gr_world_add_system). A
/// coupling may hand a grain to another system: it goes on there under a new handle.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (out).
GR_API gr_status gr_grain_get_system(const gr_world *world, gr_grain grain, uint32_t *out);

/// Read one field of grains [first, first+count) in bulk order into dst. Vector fields write
/// 3 (quat: 4) scalars per grain; `stride` is the byte distance between grains (0 = packed).
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (dst), UNKNOWN_ENUM, INVALID_ARGUMENT (range,
///    stride, a type the field has not).
GR_API gr_status gr_read_grains(const gr_world *world, gr_field field, gr_scalar_type type,
                                uint32_t first, uint32_t count, void *dst, size_t stride);
/// Write position, velocity, angular velocity or orientation of grains [first, first+count).
/// Every value is checked before anything is written.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (src), UNKNOWN_ENUM, INVALID_ARGUMENT (range,
///    stride, a read-only field, a zero orientation), NOT_FINITE.
GR_API gr_status gr_write_grains(gr_world *world, gr_field field, gr_scalar_type type,
                                 uint32_t first, uint32_t count, const void *src, size_t stride);
/// Render points [first, first+count) as 4 floats each (x, y, z, radius), `stride` bytes apart
/// (0 = 16). DEM: the grains' spheres.
/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (dst), INVALID_ARGUMENT (range, stride).
GR_API gr_status gr_read_render_points(const gr_world *world, uint32_t first, uint32_t count,
                                       float *dst, size_t stride);

/* ---- bodies ------------------------------------------------------------------------- */

/// Errors: NULL_ARGUMENT (world), BUSY, NULL_ARGUMENT (def, a mesh's arrays), STRUCT_SIZE,
///    NOT_FINITE, INVALID_ARGUMENT, UNKNOWN_ENUM, INVALID_HANDLE, WRONG_WORLD (material),
///    UNSUPPORTED, TOO_MANY (GR_MAX_BODIES, particles, mesh size), OUT_OF_MEMORY.
GR_API gr_status gr_add_body(gr_world *world, const gr_body_def *def, gr_body *out);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD.
GR_API gr_status gr_remove_body(gr_world *world, gr_body body);
GR_API int gr_body_is_valid(const gr_world *world, gr_body body);
/// Kinematic and dynamic bodies: the velocity [m/s] and angular velocity [rad/s] about the
/// body's position that the body moves with from now on (a dynamic body then goes on under
/// gravity and the grains' forces).
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NOT_FINITE,
///    INVALID_ARGUMENT (a static or host-owned body).
GR_API gr_status gr_body_set_velocity(gr_world *world, gr_body body, gr_vec3 linear, gr_vec3 angular);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (both outputs).
GR_API gr_status gr_body_get_velocity(const gr_world *world, gr_body body, gr_vec3 *linear, gr_vec3 *angular);
/// Teleport a static or kinematic body (grains are not swept, they are pushed out next step).
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NOT_FINITE,
///    INVALID_ARGUMENT (a zero orientation; a host-owned body).
GR_API gr_status gr_body_set_pose(gr_world *world, gr_body body, gr_vec3 position, gr_quat orientation);
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (both outputs).
GR_API gr_status gr_body_get_pose(const gr_world *world, gr_body body, gr_vec3 *position, gr_quat *orientation);
/// Force [N] and torque [N m] (about the body position) that the grains and other bodies put
/// on the body, averaged over the last gr_step (force sensing: an excavator's load). Either
/// output may be NULL.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (both outputs).
GR_API gr_status gr_body_get_force(const gr_world *world, gr_body body, gr_vec3 *force, gr_vec3 *torque);
/// The body's user data (gr_body_def.user_data or the last gr_body_set_user_data); NULL for
/// NULL, an invalid handle, or a body a snapshot load restored without one. Never fails.
GR_API void *gr_body_get_user_data(const gr_world *world, gr_body body);
/// Set the pointer the host hooks receive with the body (and gr_body_get_user_data returns).
/// Not saved in snapshots: after gr_world_load into another world every body's is NULL; set it
/// again (gr_world_get_bodies lists the bodies).
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD.
GR_API gr_status gr_body_set_user_data(gr_world *world, gr_body body, void *user_data);
/// Handles of the live bodies, in creation-slot order: writes min(count, capacity) of them to
/// out (may be NULL when capacity is 0) and returns the count (0 for NULL). Never fails.
GR_API uint32_t gr_world_get_bodies(const gr_world *world, gr_body *out, uint32_t capacity);
/// Mass [kg] of a dynamic or host-owned body (given, or from its shape and material), 0 for
/// others.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (mass).
GR_API gr_status gr_body_get_mass(const gr_world *world, gr_body body, double *mass);
/// Change a dynamic or host-owned body's mass [kg] and principal moments of inertia [kg m^2]
/// with their axes in the body frame (as gr_body_def.mass, .inertia, .inertia_rotation: mass 0
/// = density x shape, inertia (0, 0, 0) = the shape's for that mass; same bounds). Engines
/// change masses: call it when yours does, so that the library's copy of a host-owned body
/// keeps the engine's mass. Takes effect at the next step; the velocities are kept.
/// GR_ERROR_INVALID_ARGUMENT for other bodies or out-of-bounds values (nothing changes).
GR_API gr_status gr_body_set_mass_properties(gr_world *world, gr_body body, double mass, gr_vec3 inertia,
                                             gr_quat inertia_rotation);
/// A dynamic or host-owned body's mass, principal moments of inertia and their axes in the body
/// frame (R diag(inertia) R^T is its inertia tensor about the centre of mass in body
/// coordinates). Any output may be NULL. GR_ERROR_INVALID_ARGUMENT for other bodies.
GR_API gr_status gr_body_get_mass_properties(const gr_world *world, gr_body body, double *mass, gr_vec3 *inertia,
                                             gr_quat *inertia_rotation);
/// A dynamic or host-owned body's centre of mass in world coordinates [m]. Its momentum is
/// mass x (linear + angular x (centre - position)): gr_body_get_velocity's linear velocity is
/// the body position's. GR_ERROR_INVALID_ARGUMENT for other bodies.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (center), INVALID_ARGUMENT.
GR_API gr_status gr_body_get_center_of_mass(const gr_world *world, gr_body body, gr_vec3 *center);
/// Number of surface particles of a particle-covered body (0 for others).
GR_API uint32_t gr_body_get_particle_count(const gr_world *world, gr_body body);
/// The body's surface particles [first, first+count) as x, y, z, radius floats (world frame),
/// `stride` bytes apart (0 = 16): to draw or check the covering.
/// Errors: NULL_ARGUMENT (world), BUSY, INVALID_HANDLE, STALE_HANDLE, WRONG_WORLD, NULL_ARGUMENT
///    (dst), INVALID_ARGUMENT (range, stride).
GR_API gr_status gr_read_body_particles(const gr_world *world, gr_body body, uint32_t first, uint32_t count,
                                        float *dst, size_t stride);

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_GRANULAR_H */
