/* SPDX-License-Identifier: MIT */
/* The solver interface: a table of functions per solver kind, registered once in
 * world/solver_registry.c. The API layer validates every argument and resolves handles first, so a
 * solver sees only valid input. Grains are addressed by the solver's own dense index, which
 * it publishes in env->grains->dense[slot]. Capabilities a solver lacks are NULL slots and
 * answer GR_ERROR_UNSUPPORTED from the API layer. */
#ifndef GR_CORE_SOLVER_H
#define GR_CORE_SOLVER_H

#include "alloc.h"
#include "common.h"
#include "def_check.h"
#include "handles.h"
#include "materials.h"
#include "solver_list.h"
#include "tasks.h"

struct gr_body_store;
struct gr_clump_store;
struct gr_kernels;
struct gr_stream_writer;
struct gr_stream_reader;
struct gr_region;

/// A resolved, validated grain to add (material is an index, orientation normalised).
typedef struct gr_grain_init {
    double radius;     ///< sphere radius, or a clump's bounding radius
    uint32_t material;
    uint32_t slot;
    uint32_t clump;    ///< clump template index, GR_INVALID_INDEX for a sphere
    gr_vec3 position;
    gr_vec3 velocity;
    gr_vec3 angular_velocity;
    gr_quat orientation;
} gr_grain_init;

/// What a solver's step tells the world that drives it. The world fills the inputs and the
/// current values before the step (no blow-ups, no impulses) and applies the outputs after
/// it; the solver writes only here, never the world's clock or counters.
typedef struct gr_step_report {
    double time;          ///< in: the world's time; out: at the end of the last completed substep
    double last_substep;  ///< in: the last substep's length; out: this step's last one [s]
    /// out: sum over the substeps of h_k t_k (t_k from the step's start at the substep's end):
    /// a body in free fall moved by g x this (body_host.c). In: dt^2 / 2 (exact integrators).
    double fall;
    uint32_t substeps;    ///< out: substeps completed
    uint32_t blowups;     ///< out: grains or body particles stopped (GR_MAX_SPEED), 0: none
    uint32_t blowup_slot; ///< out: handle slot of the first of them (GR_INVALID_INDEX: a body)
    /// out: what the grains gave each body over impulse_time seconds, two vectors per body slot
    /// below impulse_slots (linear, angular impulse); the world turns them into the bodies'
    /// reported force and torque (their averages). impulse_time 0: the forces stay as they are.
    const gr_vec3 *body_impulse;
    uint32_t impulse_slots;
    double impulse_time;
} gr_step_report;

/// What a solver sees of the world that holds it: never the world itself. The pointers stay
/// valid for the solver's life; what they point at changes as the host edits the world
/// (between steps; the solver hears of it through invalidate and the body callbacks).
typedef struct gr_solver_env {
    gr_mem *mem;                          ///< every allocation goes here
    gr_tasks *tasks;                      ///< worker threads or the host's job system
    /// Bodies: read, except that a solver integrating dynamic bodies with its grains writes
    /// their pose and velocity (body_host.c hands host-owned ones back through the report).
    struct gr_body_store *bodies;
    const gr_materials *materials;
    const struct gr_clump_store *clumps;  ///< clump templates
    gr_grain_table *grains;               ///< the solver writes dense[] of its own grains only
    const gr_vec3 *gravity;               ///< [m/s^2]
    const uint64_t *seed;                 ///< the world's random seed
    const gr_vec3 *bounds_min, *bounds_max; ///< grains leaving these are removed by the world
    const void *def;                      ///< the solver's own def (gr_dem_def, gr_pbd_def), validated
    /// Which of the world's systems this solver is: its grains are the live slots with
    /// grains->system[slot] == system (a world may hold several systems, each one solver).
    uint32_t system;
    const struct gr_kernels *kernels;     ///< the vectorised kernels for this CPU (simd/simd_kernels.h)
} gr_solver_env;

/// A solver's own change of its grain set after a step (the continuum solver's split and merge
/// of its particles, Narain et al. 2010 sec. 3.1): planned by the solver, applied by the world
/// at the end of gr_step, so that handles follow: a made grain gets a new slot (a handle), an
/// unmade one's slot is released (its handle goes stale). The arrays are the solver's.
typedef struct gr_regrain {
    uint32_t add;        ///< grains the solver makes: the world takes their slots into slots[0..add)
    uint32_t remove;     ///< grains it unmakes: apply writes their slots to removed[0..remove)
    uint32_t *slots;     ///< [add]
    uint32_t *removed;   ///< [remove]
} gr_regrain;

typedef struct gr_solver_vtable {
    gr_solver_kind kind;
    const char *name;

    /* The solver's def: a public struct beginning with uint32_t size, handled here so that the
     * API layer serves any solver's def (defaults, older and newer sizes, checks, snapshots). */
    gr_def_kind def_kind;
    size_t def_size;             ///< sizeof the library's def struct
    const gr_def_layout *def_layout;
    void (*def_defaults)(void *def); ///< every field but size
    /// Everything gr_world_create checks of the def; false with the failure in *check.
    bool (*def_validate)(const void *def, gr_def_check *check);
    void (*def_save)(const void *def, struct gr_stream_writer *w);
    /// The oldest snapshot format its load reads (up to the library's own). def_load reads the
    /// def sections of every format the world part has (3 on: a DEM snapshot holds a PBD section).
    uint32_t oldest_format;
    /// Read what def_save wrote, in the reader's format (r->format); missing fields get their
    /// defaults. False: not a def of that format.
    bool (*def_load)(void *def, struct gr_stream_reader *r);

    /// A solver for this environment (copied: the solver keeps *env, not the pointer).
    gr_status (*create)(const gr_solver_env *env, void **state);
    void (*destroy)(void *state);
    /// Room for these grains (before they are added); all or nothing (GR_ERROR_OUT_OF_MEMORY).
    gr_status (*reserve)(void *state, const gr_grain_init *grains, uint32_t count);
    /// Append grains (after reserve: cannot fail). Sets env->grains->dense[] for them.
    void (*add_grains)(void *state, const gr_grain_init *grains, uint32_t count);
    /// Remove grains by dense index (cannot fail; storage is compacted lazily).
    void (*remove_grains)(void *state, const uint32_t *dense, uint32_t count);
    /// Advance by n substeps of h seconds, reporting in *report. An adaptive integrator gets
    /// n = 1 and the whole step, and chooses its own steps.
    gr_status (*step)(void *state, uint32_t n, double h, gr_step_report *report);
    /// Whether the solver integrates adaptively now (DEM: with RKF45). NULL: never.
    bool (*adaptive)(const void *state);
    /// The stable substep for the current grains and materials [s].
    double (*stable_substep)(void *state);
    /// Read up to 4 doubles per grain of a field for `count` dense indices into out[4*k..].
    void (*read_field)(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out);
    /// Write a field (position, velocity, angular velocity, orientation) from in[4*k..].
    void (*write_field)(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in);
    uint32_t (*render_point_count)(const void *state);
    /// Render points [first, first+count) as x, y, z, radius floats, `stride` bytes apart.
    void (*read_render_points)(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride);
    /// Contacts touching at the last substep: grain-grain and grain-body.
    void (*contact_counts)(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds);
    gr_status (*save)(const void *state, struct gr_stream_writer *w);
    /// Load into a freshly created state (on failure the caller destroys it).
    gr_status (*load)(void *state, struct gr_stream_reader *r);
    /// Something outside the solver changed: bodies (added/removed/teleported) or materials.
    void (*invalidate)(void *state);
    /// The solver moves dynamic bodies with its grains (DEM, PBD). A world holds at most one
    /// such system: the others meet bodies as moving boundaries.
    bool integrates_bodies;
    /// The solver represents dynamic, host-owned and mesh bodies by surface particles: the
    /// world covers them (bodies/body_cover.c) before body_added. False: bodies keep their
    /// shapes only (gr_body_distance, gr_body_contains), as a grid solver wants them.
    bool body_particles;
    /// A body was added (after it is in the body store): a solver that represents bodies by
    /// particles sets them up. All or nothing. NULL: nothing to set up.
    gr_status (*body_added)(void *state, uint32_t body);
    /// A body is about to leave the body store.
    void (*body_removed)(void *state, uint32_t body);
    /// The host set a body's pose or velocity (teleport): solver copies follow. A solver with
    /// body_particles hears of particle-covered bodies only; one without, of every body.
    void (*body_moved)(void *state, uint32_t body);
    /// The next `grains` grains to be added fill this region (gr_fill_box, gr_fill_mesh) with
    /// this velocity: a solver with render points of its own samples the region for them now.
    /// All or nothing. NULL: nothing to do.
    gr_status (*fill_region)(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
    /// The grains of the last fill_region could not be added: undo it.
    void (*fill_region_cancel)(void *state);
    /// Grains asleep after the last step, and how many of them the last substep did not
    /// solve. NULL: the solver has no sleeping.
    void (*sleep_counts)(const void *state, uint32_t *sleeping, uint32_t *frozen);
    /// After a completed step: the grains the solver would make and unmake now (gr_regrain),
    /// at most max_add made. All or nothing: out of memory changes nothing the world can see
    /// (room is reserved here, so apply cannot fail). NULL: the solver's grain set changes only
    /// through add_grains and remove_grains.
    gr_status (*regrain_plan)(void *state, uint32_t max_add, gr_regrain *plan);
    /// Carry out the last plan: the made grains take plan->slots (dense[] set by the solver), the
    /// unmade ones' slots are written to plan->removed (already out of the solver: the world
    /// releases them). Cannot fail.
    void (*regrain_apply)(void *state, gr_regrain *plan);
    /// Grains made and unmade by regrain so far (saved with the solver's state).
    void (*regrain_counts)(const void *state, uint64_t *made, uint64_t *unmade);
} gr_solver_vtable;

#endif /* GR_CORE_SOLVER_H */
