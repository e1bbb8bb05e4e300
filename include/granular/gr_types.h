/* SPDX-License-Identifier: MIT */
/* granular: enums and definition structs.
 *
 * Every def struct starts with `uint32_t size`. Its header-inline _init function zeroes the
 * struct, sets size = sizeof as *your* header sees it and asks the library to fill the
 * documented defaults. The library reads only the first `size` bytes and gives the newer
 * fields their defaults, so structs can grow at the end in minor versions without breaking
 * binaries built against older headers (docs/abi.md). A def with size 0 is refused. */
#ifndef GRANULAR_GR_TYPES_H
#define GRANULAR_GR_TYPES_H

#include <string.h>

#include "gr_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------ */
/* Enums: explicit values, 0 = "default", 32-bit.                                        */

/// Which solver runs the world.
typedef enum gr_solver_kind {
    GR_SOLVER_DEFAULT = 0,   ///< GR_SOLVER_DEM
    GR_SOLVER_DEM = 1,       ///< discrete elements (Bell, Yu, Mucha 2005)
    GR_SOLVER_PBD = 2,       ///< position-based (Sommer & Schwanecke; docs/pbd.md)
    GR_SOLVER_CONTINUUM = 3, ///< sand as a continuum on a grid (Narain, Golas, Lin 2010; docs/continuum.md)
    /// Heightfield terrain (Sumner, O'Brien, Hodgins 1999; docs/terrain.md): resting sand as
    /// columns, a system beside a particle solver (gr_world_add_system), never a world's own
    GR_SOLVER_TERRAIN = 4,
    GR_SOLVER_FORCE_U32 = 0x7fffffff
} gr_solver_kind;

/// DEM normal force law, f_n = k_r x^b + k_d x^a xdot (Bell eq. 7; x overlap, xdot its rate).
typedef enum gr_normal_law {
    GR_NORMAL_DEFAULT = 0,   ///< GR_NORMAL_HERTZ
    GR_NORMAL_LINEAR = 1,    ///< a = 0, b = 1: spring-dashpot, k from e and t_c (eq. 8-11) or given
    GR_NORMAL_HERTZ = 2,     ///< Hertz k_r = 4/3 E* sqrt(R*) (eq. 13-15), Tsuji damping from e
    GR_NORMAL_NONLINEAR = 3, ///< general eq. 7 with exponents a, b and coefficients k_d, k_r
    GR_NORMAL_FORCE_U32 = 0x7fffffff
} gr_normal_law;

/// DEM shear (tangential) force law.
typedef enum gr_tangential_law {
    GR_TANGENTIAL_DEFAULT = 0,  ///< GR_TANGENTIAL_HISTORY
    GR_TANGENTIAL_NONE = 1,     ///< frictionless
    GR_TANGENTIAL_VISCOUS = 2,  ///< F_t = -k_t V_t (eq. 16)
    GR_TANGENTIAL_COULOMB = 3,  ///< F_t = -mu f_n V_t/|V_t| (eq. 17)
    GR_TANGENTIAL_COMBINED = 4, ///< F_t = -min(mu f_n, k_t |V_t|) V_t/|V_t| (eq. 18)
    GR_TANGENTIAL_HISTORY = 5,  ///< spring on the tangential displacement, Coulomb-capped (eq. 19)
    GR_TANGENTIAL_FORCE_U32 = 0x7fffffff
} gr_tangential_law;

/// DEM rolling resistance.
typedef enum gr_rolling_law {
    /// GR_ROLLING_EPSD: the materials' rolling_friction acts (with mu_r = 0 no torque, as NONE).
    /// (Until issue 37 it meant NONE and gr_dem_def_init set NONE: docs/materials.md.)
    GR_ROLLING_DEFAULT = 0,
    GR_ROLLING_NONE = 1,
    GR_ROLLING_CDT = 2,     ///< constant directional torque mu_r R* k_n x (rolls to a stop, chatters)
    GR_ROLLING_EPSD = 3,    ///< elastic-plastic spring-dashpot (holds a static state)
    GR_ROLLING_FORCE_U32 = 0x7fffffff
} gr_rolling_law;

/// Time integrator.
typedef enum gr_integrator {
    GR_INTEGRATOR_DEFAULT = 0,         ///< GR_INTEGRATOR_VELOCITY_VERLET
    GR_INTEGRATOR_VELOCITY_VERLET = 1, ///< 2nd order, symplectic, one force evaluation per substep
    GR_INTEGRATOR_RKF45 = 2,           ///< adaptive Runge-Kutta-Fehlberg 4(5), error-controlled (rkf_tolerance)
    GR_INTEGRATOR_FORCE_U32 = 0x7fffffff
} gr_integrator;

/// Shape of a body.
typedef enum gr_shape_type {
    GR_SHAPE_NONE = 0,      ///< invalid: a body def must name its shape
    GR_SHAPE_PLANE = 1,     ///< half-space below the plane through `position` with `normal`
    GR_SHAPE_SPHERE = 2,    ///< solid ball of `radius`
    GR_SHAPE_BOX = 3,       ///< solid box of `half_extents`
    GR_SHAPE_CONTAINER = 4, ///< hollow box: thin walls on its faces (minus `open_faces`), grains inside
    GR_SHAPE_CAPSULE = 5,   ///< segment from -half_height to +half_height on local Y, swept `radius`
    GR_SHAPE_MESH = 6,      ///< closed triangle mesh (mesh_vertices, mesh_indices), covered with particles
    GR_SHAPE_SDF = 7,       ///< host signed-distance callback: not built yet
    GR_SHAPE_HEIGHTFIELD = 8, ///< a terrain's surface: made by the terrain system, not by gr_add_body
    GR_SHAPE_FORCE_U32 = 0x7fffffff
} gr_shape_type;

/// How a body moves.
typedef enum gr_motion_type {
    GR_MOTION_DEFAULT = 0,   ///< GR_MOTION_STATIC
    GR_MOTION_STATIC = 1,    ///< never moves
    GR_MOTION_KINEMATIC = 2, ///< moves with the velocity the host sets; grains do not push it
    GR_MOTION_DYNAMIC = 3,   ///< integrated by the library (mass from its shape and material)
    GR_MOTION_HOST = 4,      ///< owned by the host engine: pose in, impulses out (gr_world_def.host)
    GR_MOTION_FORCE_U32 = 0x7fffffff
} gr_motion_type;

/// Faces of a box / container, for gr_body_def.open_faces.
enum {
    GR_FACE_POS_X = 1u << 0,
    GR_FACE_NEG_X = 1u << 1,
    GR_FACE_POS_Y = 1u << 2,
    GR_FACE_NEG_Y = 1u << 3,
    GR_FACE_POS_Z = 1u << 4,
    GR_FACE_NEG_Z = 1u << 5
};

/// Shape of a grain. Non-spherical grains are rigid clumps of overlapping spheres (Bell 2005,
/// Figure 4); `radius` is the radius of the sphere that encloses the grain.
typedef enum gr_grain_shape {
    GR_GRAIN_DEFAULT = 0,     ///< GR_GRAIN_SPHERE
    GR_GRAIN_SPHERE = 1,
    GR_GRAIN_TETRAHEDRON = 2, ///< 4 spheres at the corners of a tetrahedron
    GR_GRAIN_CUBE = 3,        ///< 8 spheres at the corners of a cube
    GR_GRAIN_PAIR = 4,        ///< 2 spheres: an elongated grain (aspect ratio 5:3)
    GR_GRAIN_CLUMP = 5,       ///< a template of yours (gr_add_clump_template), named by `clump`
    GR_GRAIN_FORCE_U32 = 0x7fffffff
} gr_grain_shape;

/// How gr_fill_box and gr_fill_mesh place grains.
typedef enum gr_fill_pattern {
    GR_FILL_DEFAULT = 0, ///< GR_FILL_LATTICE
    GR_FILL_LATTICE = 1, ///< jittered simple-cubic lattice (x fastest, then y, then z)
    GR_FILL_RANDOM = 2,  ///< random sequential addition of non-overlapping grains
    /// Poisson-disk sampling by cells (Sommer & Schwanecke 2018, sec. 4): cells of side
    /// 2 radius / sqrt(3), visited x fastest; each tries `attempts` random centres and keeps
    /// the first that fits. A dense random packing without the lattice's planes.
    GR_FILL_POISSON = 3,
    GR_FILL_FORCE_U32 = 0x7fffffff
} gr_fill_pattern;

/// Per-grain fields for bulk read/write.
typedef enum gr_field {
    GR_FIELD_NONE = 0,
    GR_FIELD_POSITION = 1,         ///< vec3 [m]
    GR_FIELD_VELOCITY = 2,         ///< vec3 [m/s]
    GR_FIELD_ANGULAR_VELOCITY = 3, ///< vec3 [rad/s]
    GR_FIELD_ORIENTATION = 4,      ///< quat (x, y, z, w)
    GR_FIELD_RADIUS = 5,           ///< scalar [m], read-only
    GR_FIELD_MASS = 6,             ///< scalar [kg], read-only
    GR_FIELD_FORCE = 7,            ///< vec3 [N], total force of the last substep, read-only
    GR_FIELD_HANDLE = 8,           ///< gr_grain as uint64, read-only (type GR_TYPE_U64)
    GR_FIELD_MATERIAL = 9,         ///< gr_material as uint64, read-only (type GR_TYPE_U64)
    GR_FIELD_FORCE_U32 = 0x7fffffff
} gr_field;

/// Element type of a caller buffer in bulk calls.
typedef enum gr_scalar_type {
    GR_TYPE_NONE = 0,
    GR_TYPE_F64 = 1, ///< double
    GR_TYPE_F32 = 2, ///< float (converted, rounded to nearest)
    GR_TYPE_U64 = 3, ///< uint64_t, for handle fields
    GR_TYPE_FORCE_U32 = 0x7fffffff
} gr_scalar_type;

/// Which def a gr_def_set_defaults call fills.
typedef enum gr_def_kind {
    GR_DEF_NONE = 0,
    GR_DEF_WORLD = 1,
    GR_DEF_DEM = 2,
    GR_DEF_MATERIAL = 3,
    GR_DEF_GRAIN = 4,
    GR_DEF_BODY = 5,
    GR_DEF_FILL = 6,
    GR_DEF_MATERIAL_PAIR = 7,
    GR_DEF_CLUMP = 8,
    GR_DEF_PBD = 9,
    GR_DEF_CONTINUUM = 10,
    GR_DEF_TERRAIN = 11,
    GR_DEF_FORCE_U32 = 0x7fffffff
} gr_def_kind;

/* ------------------------------------------------------------------------------------ */
/* Definition structs.                                                                   */

/// DEM solver parameters (pointed to by gr_world_def.dem; NULL = all defaults).
/// Contact laws are per world; coefficients per material pair. See docs/dem.md.
typedef struct gr_dem_def {
    uint32_t size;                    ///< sizeof(gr_dem_def), set by gr_dem_def_init
    gr_normal_law normal_law;         ///< default GR_NORMAL_HERTZ
    gr_tangential_law tangential_law; ///< default GR_TANGENTIAL_HISTORY
    gr_rolling_law rolling_law;       ///< default GR_ROLLING_DEFAULT (EPSD); NONE skips the rolling torque's cost
    gr_integrator integrator;         ///< default GR_INTEGRATOR_VELOCITY_VERLET
    /// 1: the normal force never pulls (f_n clamped at 0 at the end of a damped contact).
    /// 0 (default, as LIGGGHTS): the small attractive tail of a damped contact is kept.
    uint32_t clamp_normal_force;
    /// Linear law: stiffness k_r [N/m] and damping k_d [N s/m] for every pair. 0 (default):
    /// derived per pair from restitution e and contact_time with the pair's reduced mass
    /// (Bell eq. 9-11).
    double linear_stiffness;
    double linear_damping;
    /// Linear law with derived coefficients: contact duration t_c [s]. Default 1e-3 s.
    double contact_time;
    /// Nonlinear law (eq. 7): exponents a (damping) and b (elastic). Default a = 0.5, b = 1.5
    /// (Kuwabara-Kono: restitution falls with impact speed, as measured).
    double nonlinear_a;
    double nonlinear_b;
    /// Nonlinear law: k_r [N/m^b]; 0 (default) = Hertz 4/3 E* sqrt(R*). Only with b = 1.5.
    double nonlinear_stiffness;
    /// Nonlinear law: k_d [N s / m^(1+a)]. Default 0 = elastic.
    double nonlinear_damping;
    /// Tangential spring stiffness as a fraction of the normal stiffness for the linear and
    /// nonlinear laws (Hertz uses Mindlin's 8 G* a). Default 2/7.
    double tangential_stiffness_ratio;
    /// Viscous shear coefficient k_t [N s/m] of eq. 16 and 18. 0 (default): the pair's normal
    /// damping coefficient (for e = 1 that is 0: set it explicitly).
    double shear_damping;
    /// Coulomb law regularisation: below this slip speed [m/s] the force ramps linearly.
    /// Default 1e-6 m/s.
    double coulomb_slip_speed;
    /// EPSD rolling: viscous damping ratio eta_r of the rolling dashpot. Default 0.3.
    double rolling_damping;
    /// Neighbour-list skin [m]: lists are rebuilt when a grain moved half of it. 0 (default):
    /// 0.4 x the largest grain radius.
    double skin;
    /// Automatic substep as a fraction of the Rayleigh time (Hertz laws). Default 0.15.
    double rayleigh_fraction;
    /// Automatic substep as a fraction of the contact time (linear, nonlinear). Default 0.05.
    double contact_time_fraction;
    /// Impact speed [m/s] used to estimate the contact time of the nonlinear law. Default 1.
    double reference_speed;
    /// RKF45: the error allowed per step, relative: positions to this fraction of a grain's
    /// radius, velocities to this fraction of its speed (at least sqrt(g r)). Default 1e-3.
    double rkf_tolerance;
    /// Render points (the same upsampling as gr_pbd_def's, docs/dem.md "Render points"):
    /// radius [m] of points that fill the grains' volume and follow their flow; they become the
    /// world's render points. 0 (default): off (the render points are the grains); else in
    /// [1e-5, 1e3]. A bed of 20k grains shows as half a million sand points.
    double hr_radius;
    /// Support radius of the point-to-grain weights, in grain radii: (1, 10], default 2.5.
    double hr_support;
    /// Sparse-region blend c (as gr_pbd_def.hr_density): [1e-6, 1e6], default 2.
    double hr_density;
    /// Largest step of the points' advection [s] in [1e-5, 10], default 1/30.
    double hr_substep;
    /// Points fill the balls of this multiple of the grain radius around the grains: [1, 3],
    /// default 1.3 (the voids of the packing too).
    double hr_sample_radius;
    /// Random candidates tried per sampling cell, 1..1000, default 20.
    uint32_t hr_candidates;
    uint32_t reserved0; ///< must be 0
} gr_dem_def;

/// Position-based solver parameters (pointed to by gr_world_def.pbd; NULL = all defaults).
/// See docs/pbd.md (Sommer & Schwanecke; Macklin et al. 2014).
typedef struct gr_pbd_def {
    uint32_t size;                     ///< sizeof(gr_pbd_def), set by gr_pbd_def_init
    uint32_t iterations;               ///< least solver sweeps per substep >= 1, default 4
    /// Contact-only passes applied to positions and predictions alike (remove overlap
    /// without creating velocity), default 1.
    uint32_t stabilization_iterations;
    uint32_t reserved0;                ///< must be 0
    double relaxation;                 ///< omega of the averaged Jacobi update, in (0, 2), default 1
    /// Neighbour-list margin as a fraction of the largest particle radius, >= 0, default 0.25.
    double collision_margin;
    /// Mass scaling k for stable piles: inverse mass x exp(k x height above the lowest grain
    /// / particle diameter) in grain contacts. >= 0, 0 = off, default 0.25.
    double mass_scaling;
    /// Sleeping: a grain in contact that has stayed slower than this multiple of |g| x
    /// substep for sleep_time keeps its position (no creep) until the solve would move it
    /// faster than that again (a grain that loses its support gains 1 x |g| h in one
    /// substep). In [0, 1]; 0 = off, default 0.5.
    double sleep_threshold;
    /// Automatic substep: no particle travels more than cfl x half the shortest contact
    /// distance r_i + r_j of two movable particles (or of one and a kinematic body's particle)
    /// per substep. > 0, default 1 (0.5 also keeps two grains meeting head-on from passing).
    double cfl;
    /// Largest automatic substep [s] > 0, default 1/120.
    double max_substep;
    /// High-resolution upsampling (Ihmsen et al. 2012 as Sommer & Schwanecke use it): radius
    /// [m] of points that fill the grains' volume and follow their flow; they become the
    /// world's render points. 0 (default): off (the render points are the grains); else in
    /// [1e-5, 1e3]. Points are single precision: grains farther than 1e15 m from the origin get
    /// none.
    double hr_radius;
    /// Support radius of the point-to-grain weights, as a multiple of the grain radius.
    /// In (1, 10], default 2.5 (2 to 3 for position-based grains; the gather cost grows as its
    /// cube).
    double hr_support;
    /// Sparse-region blend c: a point is guided fully where its weights sum to at least c x
    /// the weight at one grain radius, and falls freely where no grain is near. In [1e-6, 1e6],
    /// default 2.
    double hr_density;
    /// Largest step of the points' advection [s] in [1e-5, 10], default 1/30 (decoupled from
    /// the grains' substep; the points move after the grains each gr_step, in at most 1000
    /// steps).
    double hr_substep;
    /// Random candidates tried per sampling cell, 1..1000, default 20.
    uint32_t hr_candidates;
    /// Most solver sweeps per substep (the solve repeats sweeps where it has not converged,
    /// docs/pbd.md "Contacts"): 0 = the library's (64), else in [1, 1000]; below `iterations`
    /// it is `iterations`. A budget for interactive scenes: fewer sweeps leave impacts and
    /// squeezed sand unconverged (overlap, and energy from its removal).
    uint32_t max_iterations;
    /// Largest velocity change the constraints may give a grain, as an acceleration [m/s^2]
    /// (positions are still corrected in full). Keeps grains squeezed between a moving body
    /// and a wall from being shot out. > 0, default 500 (about 50 g).
    double max_acceleration;
    /// Time [s] a grain must stay below the sleep threshold before it sleeps, >= 0, default
    /// 0.25 (a block just steeper than its friction angle must reach the threshold speed
    /// first; 0 sleeps at once and can stop such slow slides).
    double sleep_time;
    /// Points fill the balls of this multiple of the grain radius around the grains: 1 = the
    /// grains' own volume (a packing's voids stay empty, about 17 points per grain at r_L / r_H
    /// = 3), the default 1.3 covers the voids too (the sand's bulk, about 35 per grain; its
    /// surface stands 0.3 r_L proud of the grains). In [1, 3].
    double hr_sample_radius;
} gr_pbd_def;

/// Continuum solver parameters (gr_world_def.solver_def of a GR_SOLVER_CONTINUUM world; NULL
/// = all defaults). See docs/continuum.md (Narain, Golas, Lin 2010): every grain is one
/// particle of sand; the grid does the physics.
typedef struct gr_continuum_def {
    uint32_t size;                ///< sizeof(gr_continuum_def), set by gr_continuum_def_init
    uint32_t qp_solver;           ///< 0: MPRGP (default), 1: projected Gauss-Seidel (the reference)
    double cell_size;             ///< grid cell edge h [m], in [1e-6, 1e3]; default 0.02
    /// The particles' shape radius r [m] (sec. 3.1), in [0, cell_size]; 0 (default): h / 4.
    double particle_radius;
    /// The critical (packed) density as a fraction of the grains' material density, in
    /// [1e-3, 1]: packed sand holds its grains' volume / packing. Default 0.6.
    double packing;
    double pic_fraction;          ///< PIC share of the particles' velocity update, in [0, 1]; default 0.05
    uint32_t stagger_iterations;  ///< pressure and friction rounds per step (sec. 4: 2), in [1, 50]
    uint32_t max_iterations;      ///< per QP solve, in [1, 1e6]; default 1000
    double cfl;                   ///< most cells a particle travels per step (sec. 4: 0.5), in [1e-3, 2]
    double tolerance;             ///< the QPs' relative tolerance, in [1e-14, 0.1]; default 1e-5
    /// Friction by components (sec. 4: one component of the stress at a time, each by MPRGP):
    /// block sweeps per staggered round, in [0, 20]; 0 solves the whole friction QP at once.
    /// Default 1. (The reference solver, qp_solver 1, solves the whole QP.)
    uint32_t friction_sweeps;
    uint32_t density_correction;  ///< 1 (default): the density correction of sec. 2.2.1; 0: off
    /// Render points per particle, in [0, 64] (sec. 5: sampled in the particle's ellipsoid and
    /// carried with it, reassigned on split and merge). 0 (default): the render points are the
    /// particles themselves.
    uint32_t render_points;
    /// 1: split stretched and merge compressed particles (sec. 3.1, docs/continuum.md "Split and
    /// merge"); 0 (default): every grain stays one particle. Off by default while the noise it
    /// adds is worked on (a collapse threw one grain out of the pile).
    uint32_t split_merge;
} gr_continuum_def;

/// Terrain parameters (gr_world_add_system(world, GR_SOLVER_TERRAIN, &def, &system); NULL = all
/// defaults). See docs/terrain.md: resting sand is a heightfield of columns (y up: the terrain
/// assumes gravity along -y), bodies press into it, steep slopes erode, and where the sand is
/// disturbed it turns into grains of the world's particle system and back where they rest.
/// Angles are in degrees, lengths in metres.
typedef struct gr_terrain_def {
    uint32_t size;            ///< sizeof(gr_terrain_def), set by gr_terrain_def_init
    uint32_t columns_x;       ///< columns along x, in [2, 16384]; default 64
    uint32_t columns_z;       ///< columns along z, in [2, 16384]; default 64
    uint32_t tile_size;       ///< columns per tile edge (changed rectangles, active work), in [4, 4096]; default 64
    double spacing;           ///< column spacing d [m], in [1e-4, 1e3]; default 0.04
    gr_vec3 origin;           ///< column (0, 0)'s centre on the base; heights are above origin.y
    double height;            ///< every column's height at creation [m], in [0, 1e4]; default 0.1
    /// The sand's material (0: the world's default): its friction gives the slopes (one sand,
    /// one angle: the heap angle the DEM measures for it, docs/materials.md), its grains the
    /// released grains' material.
    gr_material material;
    /// The slope at which a moving avalanche stops [deg], in [1, 89]; GR_MATERIAL_DERIVED
    /// (default): the material's heap angle.
    double stop_angle;
    /// The slope at which resting sand starts to slide [deg], in [stop_angle, 89];
    /// GR_MATERIAL_DERIVED (default): stop_angle + 4.
    double start_angle;
    /// sigma: the share of its excess slope a column hands on per erosion sweep, in
    /// [0.01, 0.5]; default 0.25.
    double moving_fraction;
    uint32_t erosion_sweeps;  ///< Jacobi sweeps per erosion pass, in [0, 1000]; default 8
    uint32_t hybrid;          ///< 1 (default): exchange grains with the particle system; 0: heightfield only
    double erosion_interval;  ///< time between erosion passes [s], in [0, 10]; default 1/60
    /// alpha: the share of the material a body presses down that is compacted (lost) rather
    /// than pushed aside, in [0, 1]; default 0 (sand; mud 0, snow 0.7: gr_terrain_def_preset).
    double compression;
    /// Pressure [Pa] above which the columns under a dynamic or host-owned body yield (the
    /// body sinks until its footprint carries it), in [1, 1e9]; default 40e3.
    double bearing_pressure;
    /// How much more the sand bears per metre a footprint lies below its rim [Pa/m] (the
    /// depth term of Terzaghi's bearing capacity: a body sinks until footprint and depth carry
    /// it), in [0, 1e12]; default 2.5e5 (dry sand's unit weight x N_q of about 16).
    double bearing_gradient;
    /// Penetration at the bearing pressure [m] (the support's elastic depth), in [0, 1e3];
    /// 0 (default): spacing / 4.
    double elastic_depth;
    /// Ploughing: displaced material goes to the rim columns in shares 1 + plough cos(angle
    /// between the column and the body's motion), none where that is negative; in [0, 10].
    /// 0: evenly all round; 1: none straight behind; default 1.5: none behind or diagonally
    /// behind (a blade or wheel does not fill its own trench or rut).
    double plough;
    /// Packing fraction phi of the sand the columns hold (grain volume / bulk volume), in
    /// [0.05, 1]; default 0.6 (the DEM's random packing of its sand). The grains a column
    /// releases and absorbs hold phi x its bulk volume.
    double packing;
    /// Radius of the grains the terrain releases [m], in [spacing / 1000, spacing / 2.1]; 0
    /// (default): spacing / 4.
    double grain_radius;
    /// A body moving faster than this [m/s] releases what it displaces as grains (hybrid),
    /// in [0, 1e3]; default 0.05.
    double release_speed;
    /// Grains slower than this [m/s] are at rest (hybrid), in [0, 1e3]; default 0.05.
    double rest_speed;
    /// Steps a grain stays at rest on the surface before the terrain absorbs it, in [1, 65535];
    /// default 30.
    uint32_t rest_steps;
    /// A grain striking the surface faster than this [m/s] disturbs it: a layer of one grain
    /// diameter of the column it strikes turns into grains (hybrid), in [0, 1e3]; 0 (default):
    /// never (a pour from height then churns the surface for a while: opt in where splashes
    /// matter).
    double disturb_speed;
    /// 1: check the volume invariant (columns x packing + grains) after every step, failing
    /// the step with GR_ERROR_INVARIANT when it drifts; 0 (default): off. The reference is taken
    /// anew whenever grains are added or removed other than by the terrain, or heights set.
    uint32_t debug_volume;
} gr_terrain_def;

/// What a terrain is and holds now (gr_terrain_get_info).
typedef struct gr_terrain_info {
    uint32_t size;            ///< sizeof(gr_terrain_info): set it before the call
    uint32_t columns_x, columns_z;
    uint32_t tile_size, tiles_x, tiles_z;
    double spacing;
    gr_vec3 origin;
    double stop_angle, start_angle; ///< as resolved [deg] (of the terrain's material)
    double packing;
    /// Bulk volume of the columns [m^3] (heights x spacing^2), with what bodies displaced in the
    /// last step that is yet to become grains
    double volume;
    double compressed_volume; ///< bulk volume compacted away by bodies so far [m^3]
    uint64_t grains_released; ///< grains the columns turned into so far
    uint64_t grains_absorbed; ///< grains the columns took back so far
    uint32_t active_blocks;   ///< erosion's blocks of 16 x 16 columns the last pass started on
    uint32_t body;            ///< the index of the terrain's own body (gr_terrain_get_body gives its handle)
} gr_terrain_info;

/// A rectangle of columns [x0, x1) x [z0, z1) (empty when x0 == x1).
typedef struct gr_terrain_rect {
    uint32_t x0, z0, x1, z1;
} gr_terrain_rect;

/// Material presets of the terrain (gr_terrain_def_preset).
typedef enum gr_terrain_preset {
    GR_TERRAIN_SAND = 0, ///< dry sand: slopes of its material, no compaction, firm
    GR_TERRAIN_MUD = 1,  ///< mud: flows far (10-14 deg), no compaction, soft
    GR_TERRAIN_SNOW = 2, ///< snow: stands steep (45-55 deg), packs down (alpha 0.7), soft
    GR_TERRAIN_PRESET_FORCE_U32 = 0x7fffffff
} gr_terrain_preset;

/// World parameters.
typedef struct gr_world_def {
    uint32_t size;          ///< sizeof(gr_world_def), set by gr_world_def_init
    gr_solver_kind solver;  ///< default GR_SOLVER_DEM
    gr_vec3 gravity;        ///< [m/s^2], default (0, -9.81, 0); any direction (Y-up, Z-up, ...)
    /// Largest substep [s]. 0 (default): automatic from the materials and grain sizes (the
    /// solver's stable step, re-derived when grains or materials are added).
    double substep;
    /// Threads that run a step: 0 or 1 (default) = the calling thread only. With task hooks
    /// set, the number of tasks the host's job system receives per parallel phase.
    uint32_t worker_count;
    uint32_t reserved0;     ///< must be 0
    uint64_t seed;          ///< random seed for fills and sampling. Default 0x9e3779b97f4a7c15
    gr_allocator allocator; ///< default malloc/free
    gr_logger logger;       ///< default: silent
    gr_task_hooks tasks;    ///< default: the built-in pthread pool when worker_count > 1
    /// DEM parameters; NULL = defaults. Checked, and copied at creation by a DEM world (a world
    /// keeps its own solver's def only).
    const gr_dem_def *dem;
    void *user_data;        ///< yours; gr_world_get_user_data returns it
    /// World bounds [m]: grains whose centre leaves this box are removed at the end of gr_step
    /// (their handles become stale; gr_counters.grains_removed counts them). Use it so that
    /// grains that fall off the scene stop costing time. min == max (default): unbounded.
    gr_vec3 bounds_min;
    gr_vec3 bounds_max;
    gr_host_hooks host;     ///< for host-owned bodies (GR_MOTION_HOST); both hooks or neither
    /// PBD parameters; NULL = defaults. Checked, and copied at creation by a PBD world.
    const gr_pbd_def *pbd;
    /// The world's solver's parameters, in the def struct that solver takes (gr_dem_def for
    /// GR_SOLVER_DEM, gr_pbd_def for GR_SOLVER_PBD, gr_continuum_def for GR_SOLVER_CONTINUUM), its size field set by its _init. NULL:
    /// the dem or pbd field above, or the defaults. Give this or that field, not both. Any
    /// def given is checked, also one the world's solver does not use. Copied at creation.
    const void *solver_def;
} gr_world_def;

/// A solver-specific coefficient of gr_material_def left to the library (the default): derived
/// from the material's shared fields (friction, rolling_friction) by the solver's calibrated
/// mapping, so that one material heaps and flows alike on every solver (docs/materials.md).
#define GR_MATERIAL_DERIVED (-1.0)

/// Material properties (SI). Pair rules: E* and G* by Hertz-Mindlin; restitution, friction
/// and rolling friction by the geometric mean sqrt(a b) unless set with gr_set_material_pair.
typedef struct gr_material_def {
    uint32_t size;           ///< sizeof(gr_material_def), set by gr_material_def_init
    uint32_t reserved0;      ///< must be 0
    double density;          ///< [kg/m^3], default 2500 (quartz sand)
    double youngs_modulus;   ///< E [Pa], default 5e6 (softened sand, see docs/dem.md)
    double poisson_ratio;    ///< nu in [0, 0.5), default 0.3
    double restitution;      ///< e in (0, 1], default 0.5
    /// Sliding friction mu >= 0 of two grains, default 0.5. With rolling_friction it is the
    /// material's friction on every solver: the DEM's Coulomb cone; PBD's static and kinetic
    /// friction and the continuum's Drucker-Prager coefficient are derived from the two so that
    /// the bulk (heap angle) matches the DEM's (docs/materials.md).
    double friction;
    /// Rolling resistance mu_r >= 0 (dimensionless), default 0 (round spheres that roll freely);
    /// stands in for the grains' angularity. Acts in the DEM through its default rolling law.
    double rolling_friction;
    /// Position-based solver: static mu_s >= 0, or GR_MATERIAL_DERIVED (default): derived from
    /// friction and rolling_friction (or from kinetic_friction x 1.2 when only that is given).
    double static_friction;
    /// Position-based solver: kinetic mu_k >= 0, or GR_MATERIAL_DERIVED (default): derived (or
    /// static_friction / 1.2 when only that is given).
    double kinetic_friction;
    /// Continuum solver: the Drucker-Prager coefficient alpha >= 0 of eq. 15's bound |s| <=
    /// alpha p, or GR_MATERIAL_DERIVED (default): derived from friction and rolling_friction.
    /// (Added in issue 37; before it the continuum took alpha = friction.)
    double continuum_friction;
} gr_material_def;

/// Material presets (gr_material_def_set_preset): measured starting points for common dry
/// materials. Each sets density and restitution, and each solver's friction coefficients chosen
/// so that a heap poured in that solver stands at the material's angle of repose (PBD spheres
/// do not roll, so they need less friction than DEM's for the same angle). docs/materials.md
/// lists the coefficients and the angles measured with them.
typedef enum gr_material_preset {
    GR_MATERIAL_PRESET_DEFAULT = 0,     ///< the library's defaults (as gr_material_def_init)
    GR_MATERIAL_PRESET_DRY_SAND = 1,    ///< dry quartz sand: repose 30-35 degrees
    GR_MATERIAL_PRESET_GRAVEL = 2,      ///< crushed stone: repose 38-45 degrees
    GR_MATERIAL_PRESET_GLASS_BEADS = 3, ///< smooth glass spheres: repose 20-26 degrees, bouncy
    GR_MATERIAL_PRESET_FORCE_U32 = 0x7fffffff
} gr_material_preset;

/// Explicit coefficients for one pair of materials (overrides the mixing rule).
typedef struct gr_material_pair_def {
    uint32_t size;           ///< set by gr_material_pair_def_init
    uint32_t reserved0;
    double restitution;      ///< (0, 1], default 0.5
    double friction;         ///< >= 0, default 0.5
    double rolling_friction; ///< >= 0, default 0
} gr_material_pair_def;

/// One grain.
typedef struct gr_grain_def {
    uint32_t size;            ///< set by gr_grain_def_init
    gr_grain_shape shape;     ///< default sphere
    gr_material material;     ///< null = the world's default material
    double radius;            ///< [m] > 0, default 0.005
    gr_vec3 position;         ///< [m], default origin
    gr_vec3 velocity;         ///< [m/s], default 0
    gr_vec3 angular_velocity; ///< [rad/s], default 0
    gr_quat orientation;      ///< default identity; normalised on input, must be non-zero
    gr_clump clump;           ///< shape GR_GRAIN_CLUMP: the template
    /// The system that gets the grain: 0 (default) the world's own solver, or one that
    /// gr_world_add_system returned. gr_add_grains adds to one system per call.
    uint32_t system;
} gr_grain_def;

/// A clump template: spheres (centres and radii, any frame and unit) that make one rigid grain.
/// The library computes its mass properties (overlaps counted once) and principal axes, and
/// scales it so that a grain's `radius` is its enclosing radius.
typedef struct gr_clump_def {
    uint32_t size;          ///< set by gr_clump_def_init
    uint32_t count;         ///< spheres, 1 .. 4096
    const gr_vec3 *centres; ///< count sphere centres
    const double *radii;    ///< count radii > 0
} gr_clump_def;

/// One body (a wall, a container, a kinematic tool...).
typedef struct gr_body_def {
    uint32_t size;            ///< set by gr_body_def_init
    gr_shape_type shape;      ///< required
    gr_motion_type motion;    ///< default static
    uint32_t open_faces;      ///< container only: GR_FACE_* bits of faces without a wall; default 0
    gr_material material;     ///< null = the world's default material
    gr_vec3 position;         ///< [m] centre (plane: a point on it); default origin
    gr_quat orientation;      ///< default identity
    gr_vec3 linear_velocity;  ///< [m/s] kinematic only, default 0
    gr_vec3 angular_velocity; ///< [rad/s] kinematic only, about `position`, default 0
    gr_vec3 normal;           ///< plane: outward normal in the body frame, default (0,1,0)
    double radius;            ///< sphere, capsule [m] > 0, default 0.5
    double half_height;       ///< capsule: half length of the core segment [m] >= 0, default 0.5
    gr_vec3 half_extents;     ///< box, container [m] > 0, default (0.5, 0.5, 0.5)
    void *user_data;          ///< yours; gr_body_get_user_data returns it
    /// Dynamic, host-owned and mesh bodies are covered with particles (Bell 2005, 3.3) that
    /// touch grains and other bodies. Their radius [m]; 0 (default): the body's enclosing
    /// radius / 16. Use about the grains' radius for a close fit.
    double particle_radius;
    /// Bell's D: particles per area pi r^2 of surface (more: a smoother surface). Default 1.
    double particle_density;
    /// Particle centres this far outside the surface (negative: inside) [m]. Default 0.
    double particle_offset;
    /// Shape GR_SHAPE_MESH: vertices in the body frame and triangles (3 indices each, counter-
    /// clockwise seen from outside). The mesh must be closed and consistently wound; it is
    /// copied. Its volume, centre of mass and inertia come from the mesh (volume integrals).
    const gr_vec3 *mesh_vertices;
    const uint32_t *mesh_indices;
    uint32_t mesh_vertex_count;
    uint32_t mesh_triangle_count;
    /// Dynamic and host-owned bodies: mass [kg], in [GR_MIN_BODY_MASS, GR_MAX_BODY_MASS].
    /// 0 (default): the material's density x the shape's volume. Give a host-owned body its
    /// engine's mass (here or with gr_body_set_mass_properties): the library moves its copy
    /// through the step with this mass and hands back the impulse an engine of this mass needs
    /// to land where the copy did; with another mass the two fight (a resting crate jitters).
    /// Static and kinematic bodies have no mass: leave it 0.
    double mass;
    /// Dynamic and host-owned bodies: principal moments of inertia [kg m^2] about the centre
    /// of mass (the shape's centroid), each in [GR_MIN_BODY_INERTIA, GR_MAX_BODY_INERTIA]
    /// (any positive moments: the triangle inequality of a real solid is not required).
    /// (0, 0, 0) (default): the shape's, for the body's mass (the shape's density scaled).
    gr_vec3 inertia;
    /// The principal axes of `inertia` in the body frame: the inertia tensor in body
    /// coordinates is R diag(inertia) R^T with R this rotation (as Unity's
    /// inertiaTensorRotation or PhysX's mass-space pose; identity when the engine's tensor is
    /// diagonal in the body frame, as Bullet's). Read only when the inertia is given; default
    /// identity, normalised on input, must be non-zero.
    gr_quat inertia_rotation;
} gr_body_def;

/// Fill a region with grains: an axis-aligned box (gr_fill_box) or the inside of a closed
/// mesh (gr_fill_mesh). Every grain lies wholly inside the region.
typedef struct gr_fill_def {
    uint32_t size;           ///< set by gr_fill_def_init
    gr_fill_pattern pattern; ///< default lattice
    gr_material material;    ///< null = default material
    gr_vec3 min;             ///< box corner [m], default (0,0,0); gr_fill_mesh ignores it
    gr_vec3 max;             ///< opposite corner [m], default (0.1, 0.1, 0.1); ignored likewise
    double radius;           ///< [m] > 0, default 0.005
    /// Largest radius for a polydisperse fill, uniform in [radius, radius_max]; 0 (default)
    /// = monodisperse.
    double radius_max;
    /// Lattice spacing [m]; 0 (default) = 2.2 x the largest radius.
    double spacing;
    /// Lattice jitter per coordinate as a fraction of the gap (spacing - 2 r_max) / 2, in
    /// [0, 1]; default 0.5.
    double jitter;
    gr_vec3 velocity;        ///< initial velocity [m/s], default 0
    /// Upper bound on the grains added; 0 (default) = as many as fit (<= GR_MAX_GRAINS).
    uint32_t max_count;
    /// Random pattern: attempts per grain placed before giving up; Poisson pattern:
    /// candidates per cell. Default 50.
    uint32_t attempts;
    /// Random seed; 0 (default) = derived from the world seed and the fill count.
    uint64_t seed;
    /// 1 (default): skip sites overlapping existing grains or bodies. 0: place regardless.
    uint32_t avoid_overlap;
    /// The system that gets the grains: 0 (default) the world's own solver, or one that
    /// gr_world_add_system returned.
    uint32_t system;
    gr_grain_shape shape;    ///< grain shape, default sphere; clumps get random orientations
    uint32_t reserved1;
    gr_clump clump;          ///< shape GR_GRAIN_CLUMP: the template
} gr_fill_def;

/// Kinematic state of one grain.
typedef struct gr_grain_state {
    gr_vec3 position;
    gr_vec3 velocity;
    gr_vec3 angular_velocity;
    gr_quat orientation;
} gr_grain_state;

/// World counters (gr_world_get_counters). Set size = sizeof before the call.
typedef struct gr_counters {
    uint32_t size;
    uint32_t grain_count;
    uint32_t body_count;
    uint32_t material_count;
    uint64_t contact_count;      ///< grain-grain pairs touching at the last substep
    uint64_t body_contact_count; ///< grain-body contacts touching at the last substep
    uint64_t step_count;         ///< gr_step calls that advanced time
    uint64_t substep_count;
    uint64_t neighbor_rebuilds;
    double time;                 ///< simulated time [s]
    double last_substep;         ///< [s]
    uint64_t bytes_in_use;       ///< through the world's allocator
    uint64_t bytes_peak;
    uint64_t allocation_count;   ///< calls to the allocator so far
    uint64_t grains_removed;     ///< grains removed for leaving the world bounds, so far
    /// Grains asleep after the last step (position-based solver; 0 for the others).
    uint32_t sleeping_count;
    /// Of those, grains deep asleep in still sand that the last substep did not solve
    /// (position-based solver, docs/pbd.md "Deep sleep"; 0 for the others).
    uint32_t frozen_count;
    /// Grains made by splitting stretched particles, so far (continuum solver, docs/continuum.md
    /// "Split and merge": each split makes one grain; the parent keeps its handle). 0 for the others.
    uint64_t grains_split;
    /// Grains unmade by merging compressed particles, so far (continuum solver: each merge
    /// unmakes one grain, whose handle goes stale). 0 for the others.
    uint64_t grains_merged;
} gr_counters;

/* ------------------------------------------------------------------------------------ */
/* Def initialisers: header-inline so that `size` is the size *your* header knows.       */

/// Fill the library's defaults into every field within def->size. Used by the _init helpers.
/// Errors: UNKNOWN_ENUM (kind), NULL_ARGUMENT, STRUCT_SIZE.
GR_API gr_status gr_def_set_defaults(gr_def_kind kind, void *def);

#define GR__DEF_INIT(kind, def) \
    do { memset((def), 0, sizeof *(def)); (def)->size = (uint32_t)sizeof *(def); \
         (void)gr_def_set_defaults((kind), (def)); } while (0)

/// Initialise a world def for a solver (GR_SOLVER_DEFAULT = DEM).
static inline void gr_world_def_init(gr_world_def *def, gr_solver_kind solver)
{
    GR__DEF_INIT(GR_DEF_WORLD, def);
    def->solver = solver;
}
static inline void gr_dem_def_init(gr_dem_def *def) { GR__DEF_INIT(GR_DEF_DEM, def); }
static inline void gr_material_def_init(gr_material_def *def) { GR__DEF_INIT(GR_DEF_MATERIAL, def); }
static inline void gr_material_pair_def_init(gr_material_pair_def *def) { GR__DEF_INIT(GR_DEF_MATERIAL_PAIR, def); }
static inline void gr_grain_def_init(gr_grain_def *def) { GR__DEF_INIT(GR_DEF_GRAIN, def); }
static inline void gr_body_def_init(gr_body_def *def) { GR__DEF_INIT(GR_DEF_BODY, def); }
static inline void gr_fill_def_init(gr_fill_def *def) { GR__DEF_INIT(GR_DEF_FILL, def); }
static inline void gr_clump_def_init(gr_clump_def *def) { GR__DEF_INIT(GR_DEF_CLUMP, def); }
static inline void gr_pbd_def_init(gr_pbd_def *def) { GR__DEF_INIT(GR_DEF_PBD, def); }
static inline void gr_continuum_def_init(gr_continuum_def *def) { GR__DEF_INIT(GR_DEF_CONTINUUM, def); }
static inline void gr_terrain_def_init(gr_terrain_def *def) { GR__DEF_INIT(GR_DEF_TERRAIN, def); }

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_GR_TYPES_H */
