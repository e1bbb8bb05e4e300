/* SPDX-License-Identifier: MIT */
/* granular: base types shared by every public header: export macros, status codes, math
 * structs, handles and the host hooks (allocator, logger, job system). */
#ifndef GRANULAR_GR_BASE_H
#define GRANULAR_GR_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "gr_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GR_API marks every exported symbol. Define it yourself before including to override. */
#ifndef GR_API
#  if defined(_WIN32) && defined(GR_BUILDING_SHARED)
#    define GR_API __declspec(dllexport)
#  elif defined(_WIN32) && defined(GR_USING_SHARED)
#    define GR_API __declspec(dllimport)
#  elif defined(__GNUC__) || defined(__clang__)
#    define GR_API __attribute__((visibility("default")))
#  else
#    define GR_API
#  endif
#endif

/// Result of every fallible call. Values are fixed forever and never reused; groups leave gaps.
/// On any error the world is exactly as it was before the call, and gr_world_last_error()
/// holds a message naming the argument at fault. Exceptions, both in gr_step: UNSTABLE (the
/// step stopped, see its comment), and OUT_OF_MEMORY after at least one completed substep (the
/// world is consistent at the end of the last of them; gr_step's comment says what holds).
typedef enum gr_status {
    GR_OK = 0,
    /* 1..19: the caller's arguments */
    GR_ERROR_NULL_ARGUMENT = 1,    ///< a required pointer was NULL
    GR_ERROR_INVALID_ARGUMENT = 2, ///< a value out of its documented range (zero/negative size...)
    GR_ERROR_NOT_FINITE = 3,       ///< a NaN or infinite number
    GR_ERROR_UNKNOWN_ENUM = 4,     ///< an enum value this library does not know
    GR_ERROR_STRUCT_SIZE = 5,      ///< a struct's size field is 0, absurd, or ends inside a field (a size
                                   ///< is sizeof the struct of this or an older header): call its _init
    GR_ERROR_TOO_MANY = 6,         ///< a count beyond the library's limits (GR_MAX_GRAINS, ...)
    /* 20..29: handles */
    GR_ERROR_INVALID_HANDLE = 20,  ///< a null handle, or one this world never issued
    GR_ERROR_STALE_HANDLE = 21,    ///< the object was removed; the handle is dead
    GR_ERROR_WRONG_WORLD = 22,     ///< the handle belongs to another world
    /* 40..59: resources and capabilities */
    GR_ERROR_OUT_OF_MEMORY = 40,   ///< the allocator returned NULL; nothing was changed (gr_step: see there)
    GR_ERROR_UNSUPPORTED = 41,     ///< the chosen solver (or this build) lacks the capability
    GR_ERROR_BUSY = 42,            ///< the world is inside gr_step (a callback called back in)
    /* 60..79: snapshots and streams */
    GR_ERROR_IO = 60,              ///< a read or write callback reported failure / short data
    GR_ERROR_CORRUPT_DATA = 61,    ///< bad magic, checksum mismatch, truncated or inconsistent data
    GR_ERROR_VERSION = 62,         ///< a snapshot format this library cannot read
    /* 80..99: simulation */
    GR_ERROR_INVARIANT = 81,       ///< a debug check of an invariant failed (gr_terrain_def.debug_volume)
    GR_ERROR_UNSTABLE = 80,        ///< grains blew up (non-finite, or faster than GR_MAX_SPEED); stopped, see docs
    GR_STATUS_FORCE_U32 = 0x7fffffff
} gr_status;

/// A 3-vector in SI units (metres, m/s, N...). Double precision: see docs/guide.md "Precision".
typedef struct gr_vec3 {
    double x, y, z;
} gr_vec3;

/// A rotation as a unit quaternion (x, y, z vector part, w scalar part). Identity is (0,0,0,1).
typedef struct gr_quat {
    double x, y, z, w;
} gr_quat;

/// The world: opaque. Create with gr_world_create(), destroy with gr_world_destroy().
typedef struct gr_world gr_world;

/// Handles are small values: store them as a uint64_t freely; their bits are opaque. An
/// all-zero handle is null. What holds, exactly:
/// - A handle of a removed object is refused (GR_ERROR_STALE_HANDLE) for ever: a slot reused
///   65,535 times is retired, never reused, so no handle becomes valid again.
/// - A handle of another world is refused (GR_ERROR_WRONG_WORLD), live or destroyed, whatever
///   allocator, unless 2^21 - 1 = 2,097,151 or more worlds were created in this process
///   between the two (each world takes the next of 2^21 - 1 tags from a process-wide atomic
///   counter: the library's only process-wide state, lock-free).
/// - A value no world issued (zero tag or slot bits, an index never used) is refused
///   (GR_ERROR_INVALID_HANDLE); one with another world's tag bits, GR_ERROR_WRONG_WORLD.
/// - gr_world_load: the world keeps its tag. The snapshot's objects get handles of this world
///   with the slots and generations they had when saved: the saving world's own handles are
///   refused here (read GR_FIELD_HANDLE, gr_world_get_bodies for this world's), and this
///   world's handles from before the load name the snapshot's object in that slot and
///   generation, if any.
typedef struct gr_grain { uint64_t id; } gr_grain;
typedef struct gr_body { uint64_t id; } gr_body;
typedef struct gr_material { uint64_t id; } gr_material;
typedef struct gr_clump { uint64_t id; } gr_clump; ///< a clump template (grain shape)

/// Allocator hook, per world. Both functions or neither (NULL, NULL = malloc/free).
/// `align` is a power of two <= 64; `free` receives the size that was allocated.
/// Called only from the thread that calls into the world, never from worker threads.
typedef struct gr_allocator {
    void *(*alloc)(size_t size, size_t align, void *user);
    void (*free)(void *ptr, size_t size, void *user);
    void *user;
} gr_allocator;

typedef enum gr_log_level {
    GR_LOG_ERROR = 1,
    GR_LOG_WARNING = 2,
    GR_LOG_INFO = 3,
    GR_LOG_FORCE_U32 = 0x7fffffff
} gr_log_level;

/// Log hook, per world. Without one the library is silent. Called from the thread that calls
/// into the world. The message is valid only during the call.
typedef struct gr_logger {
    void (*func)(gr_log_level level, const char *message, void *user);
    void *user;
} gr_logger;

/// A unit of work the library hands to the host's job system.
typedef void gr_task_fn(void *task_context);

/// Host job-system hooks (Box2D v3 shape). `enqueue` must run task(task_context) exactly once
/// on some thread and return a handle, or run it inline and return NULL. `finish` waits for a
/// non-NULL handle. The library splits ranges itself; the host's wait must not run jobs that
/// touch this world. Both or neither.
typedef struct gr_task_hooks {
    void *(*enqueue)(gr_task_fn *task, void *task_context, void *user);
    void (*finish)(void *handle, void *user);
    void *user;
} gr_task_hooks;

/// The pose and velocities of a host-owned body, as the host engine reports them.
typedef struct gr_host_body_state {
    gr_vec3 position;         ///< [m] the body's origin (its frame's origin)
    gr_quat orientation;      ///< unit quaternion
    gr_vec3 linear_velocity;  ///< [m/s] of the origin
    gr_vec3 angular_velocity; ///< [rad/s]
} gr_host_body_state;

/// Hooks for bodies owned by the host engine's rigid-body solver (GR_MOTION_HOST): two-way
/// coupling. Both are called on the thread that calls gr_step, never from worker threads, and
/// must not call into the world.
typedef struct gr_host_hooks {
    /// At the start of gr_step, for each host-owned body: write its pose and velocities now.
    void (*get_state)(gr_body body, void *body_user_data, gr_host_body_state *state, void *user);
    /// At the end of gr_step, for each host-owned body: the impulse [N s] and angular impulse
    /// [N m s] (world frame, about the body's centre of mass) the grains gave it over the step.
    /// Within the step the library moves its copy of the body as a free body (gravity and the
    /// grains, at the grains' time step) with the body's mass and inertia: give it the
    /// engine's (gr_body_def.mass, .inertia, .inertia_rotation; gr_body_set_mass_properties
    /// when the engine's change), else density x shape is used and must match the engine's.
    /// The impulse is the one that makes an engine of that mass and inertia integrating
    /// symplectic Euler (v += J/m + g dt; x += v dt, likewise for rotation) land the body
    /// where the library moved it: a resting body stays put, it does not jitter. A step in
    /// which the body touched nothing hands back zero: it falls as the engine makes it fall.
    /// On average it is the contact impulse (gr_body_get_force reports the contact force).
    void (*apply_impulse)(gr_body body, void *body_user_data, gr_vec3 impulse, gr_vec3 angular_impulse,
                          void *user);
    void *user;
} gr_host_hooks;

/// Snapshot stream callbacks: return the number of bytes actually transferred; anything
/// short of `size` is treated as an I/O error (write) or end of data (read).
typedef size_t gr_write_fn(void *user, const void *data, size_t size);
typedef size_t gr_read_fn(void *user, void *data, size_t size);

/// Limits enforced on input (GR_ERROR_TOO_MANY beyond them).
#define GR_MAX_GRAINS 100000000u
#define GR_MAX_BODIES 65536u
#define GR_MAX_MATERIALS 256u
#define GR_MAX_CLUMP_TEMPLATES 1000000u ///< the built-in ones included
#define GR_MAX_WORKERS 64u
/// Systems one world holds: its own solver (system 0) and those gr_world_add_system adds.
#define GR_MAX_SYSTEMS 4u
/// Most substeps one gr_step may run: a dt that needs more (dt / substep) is refused with
/// GR_ERROR_INVALID_ARGUMENT before anything moves (step in shorter calls, or raise the
/// substep). Bounds the work of one call.
#define GR_MAX_SUBSTEPS_PER_STEP 16777216u
/// Smallest substep limit [s] a def may give (gr_world_def.substep when not 0,
/// gr_pbd_def.max_substep, gr_pbd_def.hr_substep); GR_ERROR_INVALID_ARGUMENT below it.
#define GR_MIN_SUBSTEP 1e-12
/// A grain blows up when its position, velocity or force is not finite or it moves faster than
/// GR_MAX_SPEED [m/s] (its centre, or its surface by spinning): gr_step stops it at its last
/// finite state with zero velocity and returns GR_ERROR_UNSTABLE. Far beyond any granular
/// flow; a host that needs faster grains has a units problem.
#define GR_MAX_SPEED 1e5

/// Bounds on bodies (GR_ERROR_INVALID_ARGUMENT beyond them): a body's sizes (radius,
/// half_height, half_extents, particle_radius, |particle_offset|, a mesh's vertices' distance
/// from its origin) are at most GR_MAX_BODY_SIZE [m]; a dynamic or host-owned body's mass [kg]
/// and principal moments of inertia [kg m^2], given or derived from density x shape, lie in
/// these ranges.
#define GR_MAX_BODY_SIZE 1e6
#define GR_MIN_BODY_MASS 1e-12
#define GR_MAX_BODY_MASS 1e18
#define GR_MIN_BODY_INERTIA 1e-24
#define GR_MAX_BODY_INERTIA 1e30

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_GR_BASE_H */
