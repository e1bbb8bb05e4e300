/* SPDX-License-Identifier: MIT */
/* Position-based granular solver (Macklin et al. 2014 as used by Sommer & Schwanecke; see
 * docs/pbd.md). Every particle is a sphere: grains, and the surface particles of bodies that
 * need them (meshes, dynamic and host-owned bodies). Static and kinematic primitive shapes
 * (planes, boxes, spheres, capsules, containers) are exact surfaces, not particles.
 * The state and its types only: each file's functions are declared in its own header
 * (pbd_<file>.h).
 *
 * Storage is one structure-of-arrays over all particles; a body's particles are contiguous
 * (added together, compaction keeps the order). */
#ifndef GR_PBD_INTERNAL_H
#define GR_PBD_INTERNAL_H

#include "../bodies/body_store.h"
#include "../core/solver.h"
#include "../geom/clump_store.h"
#include "../core/vec3.h"
#include "../grid/cell_grid.h"
#include "../upsample/upsample.h"

/// A body represented by particles. Dynamic and host-owned bodies are rigid bodies of the
/// solve (pbd_rigid.c); static and kinematic (mesh) bodies place their particles from the pose.
typedef struct pbd_body {
    uint32_t slot;     ///< body store slot
    uint32_t first;    ///< first particle
    uint32_t count;
    uint32_t fixed;    ///< 1: static or kinematic (infinite mass)
    double particle_mass;
    gr_vec3 centroid;  ///< particle centroid in the body frame (shape-matching centre)
    gr_quat rot;       ///< body orientation after the last substep
    /* free bodies during a substep (pbd_rigid.c): the centre of mass x and the body frame's
     * orientation q at the substep's start (0) and now (c) */
    gr_vec3 x0, xc;
    gr_quat q0, qc;
    gr_vec3 w0;          ///< angular velocity of the prediction
    gr_vec3 pc;          ///< particle centroid - centre of mass (body frame)
    gr_quat principal;   ///< principal axes in the body frame
    double inv_mass;
    gr_vec3 inv_inertia; ///< about the principal axes
    bool moved;          ///< the last sweep moved it by more than the tolerance somewhere
    gr_vec3 acc_j;       ///< positional impulses applied this substep [kg m]: sum j
    gr_vec3 acc_m;       ///< and their moments about x0: sum (p - x0) x j
} pbd_body;

/// The solve sweeps a region until no particle in or next to it moved by more than this
/// fraction of the smallest radius in the last sweep (at least gr_pbd_def.iterations sweeps
/// over everything, at most PBD_MAX_SWEEPS). 1e-2: a 100 d column keeps 99.8 % of its height,
/// a dropped pile gains no measurable energy; 3e-2 lost 9 % of the column (bench fidelity).
#define PBD_SOLVE_TOLERANCE 1e-2
#define PBD_MAX_SWEEPS 64u
/// A pair closing faster than this many g h (h the substep) is a collision: solved with the
/// true masses, not the height-scaled ones (momentum is kept in collisions).
#define PBD_IMPACT_GH2 2.0

/// Warm-start records of exact-surface contacts: this bit | body slot << 4 | feature.
#define PBD_WS_EXACT 0x80000000u
/// A warm-start record of a pair solved as a collision (with the true masses, pr_hit).
#define PBD_WS_HIT 0x40000000u

/// Number of exact-surface contacts a particle keeps multipliers for within a substep.
#define PBD_EXACT_SLOTS 4u

/// A packed particle's contacts with exact surfaces during a substep (pbd_solve.c): feature
/// keys (exact record << 8 | feature, UINT32_MAX = free), accumulated pushes along the normal
/// and tangential (grains: displacements [m]; free bodies' particles: multipliers [kg m]).
typedef struct pbd_exact_acc {
    uint32_t key[PBD_EXACT_SLOTS];
    double an[PBD_EXACT_SLOTS];
    gr_vec3 at[PBD_EXACT_SLOTS];
    gr_vec3 nrm[PBD_EXACT_SLOTS]; ///< the normal at the last projection
} pbd_exact_acc;

/// An exact (primitive) body as the sweeps test it (pbd_lists.c), and the render points too.
typedef gr_exact_body pbd_exact;


/// A movable particle's positions during the solve (packed in cell order).
typedef struct pbd_pk {
    gr_vec3 p; ///< x*
    gr_vec3 x; ///< x at the substep's start (the stabilisation moves it too)
} pbd_pk;

/// What the contact sweeps read of a movable particle, packed (one substep's constants: built
/// with the lists, in packed order).
typedef struct pbd_hot {
    double r;
    double w_star;  ///< grains: height-scaled inverse mass; body particles: inv_m
    double inv_m;
    double W;       ///< inverse mass of what moves: a grain's own, a body particle's body's
    uint32_t mat;
    uint32_t bits;  ///< PBD_HOT_*
    uint32_t owner; ///< body record, GR_INVALID_INDEX for grains
    uint32_t pad;   ///< 0 (a staged record carries the contact count here: pbd_stage)
} pbd_hot;

#define PBD_HOT_BODY 1u   ///< a body's particle
#define PBD_HOT_FIXED 2u  ///< inverse mass 0 (static or kinematic body)
#define PBD_HOT_ASLEEP 4u ///< a sleeping grain
#define PBD_HOT_WAKES 8u  ///< fast enough to wake a sleeping grain it touches
#define PBD_HOT_FROZEN 16u ///< a sleeping grain deep in still sand: not solved (pbd_freeze.c)

/// Resolved solver parameters (gr_pbd_def).
typedef struct pbd_params {
    uint32_t iterations;
    uint32_t max_iterations; ///< 0: PBD_MAX_SWEEPS
    uint32_t stabilization_iterations;
    double relaxation;
    double margin_fraction;  ///< collision margin / particle radius
    double mass_scaling;     ///< k per particle diameter
    double sleep_threshold;  ///< multiple of |g| h, 0 = off
    double sleep_time;       ///< [s] calm before a grain sleeps
    double cfl;              ///< most radii a particle may travel per substep
    double max_substep;      ///< [s]
} pbd_params;

typedef struct pbd_state {
    gr_solver_env env;     ///< what the solver sees of its world
    const gr_pbd_def *def; ///< validated; owned by the world
    gr_step_report *report; ///< of the step under way (pbd_step)
    gr_mem *mem;
    pbd_params par;

    /* particles */
    uint32_t n, cap;
    gr_vec3 *x;     ///< positions at the start of the substep (after the step: current)
    gr_vec3 *xp;    ///< predicted positions x*
    gr_vec3 *v;
    gr_vec3 *f;     ///< total force of the last substep (constraints and gravity) [N]
    double *calm;   ///< grains: time [s] spent calm in contact; asleep beyond sleep_time (pbd_step.c)
    uint8_t *stir;  ///< grains: substeps their cell stays thawed for (pbd_freeze.c)
    gr_vec3 *rest;  ///< body particles: offset from the body's particle centroid (body frame)
    double *r;
    double *inv_m;  ///< true inverse mass (0: fixed)
    /* this substep's height-based mass scaling (pbd_step.c), applied where the lists pack the
     * particles: a grain's inverse mass in grain pairs is inv_m exp(clamp(scale_k (height -
     * scale_ref), 0, 50)) */
    bool scaling;
    double scale_k, scale_ref;
    uint32_t *mat;
    uint32_t *owner; ///< body record, GR_INVALID_INDEX for grains
    uint32_t *slot;  ///< grain handle slot (GR_INVALID_INDEX for body particles and dead grains)
    uint32_t *touch; ///< contacts at the last iteration: particles | surfaces << 16
    uint32_t *flag;  ///< scratch per substep: PBD_FLAG_* bits
    double *vnear;   ///< scratch per substep: fastest relative speed of anything touching [m/s]
    uint8_t *sampled; ///< grains: their volume has render points (gr_upsample_view.sampled)
    uint32_t n_grains;
    uint32_t n_dead;
    /* the movable particles (grains, free bodies' particles) in storage order: the per-substep
     * passes skip the fixed ones (a static mesh's particles may outnumber the grains) */
    uint32_t *mov;       ///< [cap]
    uint32_t n_mov;
    bool mov_dirty;      ///< particles came or went: rebuild mov (pbd_refresh_movable)
    double r_mov_max, r_fix_max; ///< largest radius of a movable / fixed particle
    double r_min, r_max; ///< radii: r_min of the movable particles (grains, free bodies'), r_max of all

    /* bodies with particles */
    uint32_t nb, b_cap;
    pbd_body *bodies;
    uint32_t *body_of_slot; ///< [b_slot_cap] body store slot -> record (GR_INVALID_INDEX)
    uint32_t b_slot_cap;

    /* The movable particles (grains, free bodies' particles) of this substep in the cell order
     * of their predicted positions (pbd_lists.c): the sweeps work on these packed copies and
     * the end of the solve writes them back. */
    uint32_t nm;           ///< movable particles this substep
    uint32_t *perm;        ///< [cap] packed position -> particle
    uint32_t *pos_of;      ///< [cap] particle -> packed position (GR_INVALID_INDEX: fixed)
    pbd_pk *pk;            ///< [cap] x* and x
    gr_vec3 *pk_tmp;       ///< [cap] scratch: positions in storage order (grid builds)
    /// [cap] the prediction's records of the movable particles in mov order, for the packing
    /// to gather one record each: the hot constants but w_star (touch in pad), and x
    pbd_hot *stage_hot;
    gr_vec3 *stage_x;
    float *pk_fx, *pk_fy, *pk_fz, *pk_fr; ///< [cap] x* and radius in floats: what the list scan streams
    pbd_hot *hot;          ///< [cap]
    uint32_t *pk_touch;    ///< [cap] contacts at the last sweep: movable | surfaces << 16
    uint32_t *pk_touch_next; ///< [cap] the sweep in progress writes here (then swapped)
    gr_cell_grid grid;     ///< movable particles; grid order = packed order
    /* movable pairs within reach, each once (first end before the second in packed order),
     * in one region per block of PBD_BLOCK first ends, sized by the last build */
    uint32_t pair_cap;
    uint32_t *pr_a, *pr_b; ///< packed ends
    double *pr_d;          ///< contact distance r_a + r_b
    uint8_t *pr_body;      ///< 1: a free body's particle takes part (solved in pbd_rigid.c)
    double *pr_ln;         ///< accumulated normal multiplier [kg m] (pbd_solve.c)
    double *pr_s0;         ///< overlap at x after the stabilisation: kept, not pushed out
    uint8_t *pr_hit;       ///< 1: the ends meet faster than resting contact: true masses (pbd_solve.c)
    gr_vec3 *pr_lt;        ///< accumulated friction multiplier, acting on the first end [kg m]
    bool one_material;     ///< this substep's movable particles share one material
    uint32_t *pf_start, *pf_end; ///< [cap] packed s's pairs as first end
    uint32_t *inc_start;   ///< [cap + 1] packed s's pairs as second end: inc_k[inc_start[s] ..]
    uint32_t *inc_k;       ///< [pair_cap]
    uint32_t *inc_count;   ///< scratch of the incidence sort: a count per particle and chunk
    uint32_t inc_count_cap;
    uint8_t *pk_flag;      ///< [cap] packed: PBD_FLAG_TOUCHED, _DISTURBED of the sweeps (to flag at the unpack)
    uint32_t *blk_base;    ///< [blk_n + 1] where each block's pair region starts
    uint32_t *blk_used;    ///< [blk_n] pairs the block wrote (more than its region: rebuild)
    uint32_t blk_n;
    /* fixed particles (static and kinematic bodies'): their own grid, rebuilt only when they
     * moved (kinematic bodies every substep, static ones when added, removed or moved) */
    uint32_t n_fixed;
    uint32_t *fx_j;        ///< [cap] the fixed particles in fgrid order
    double *fx_xyzr;       ///< [4 cap] their positions at the substep's start (x), radii
    float *fx_fx, *fx_fy, *fx_fz, *fx_fr; ///< [cap] the same in floats (the lists' scans)
    gr_vec3 *fx_now;       ///< [cap] their positions after the bodies advanced (x*)
    uint32_t *fx_slot;     ///< [cap] their bodies' slots
    uint32_t *fx_mat;      ///< [cap] their materials
    bool fixed_moving;     ///< a kinematic body has fixed particles
    gr_cell_grid fgrid;
    double fixed_cell;     ///< the cell size fgrid was asked for
    bool fixed_dirty;      ///< a fixed particle was added, removed or moved: rebuild fgrid
    uint32_t *rank;        ///< [cap] scratch of the grid builds: rank -> particle
    /* each movable particle's fixed neighbours, in one region per block like the pairs */
    uint32_t fc_cap;
    uint32_t *fc_u;        ///< fixed particle, by its fgrid position
    /// a copy of its fx_xyzr (x at the list build, radius): the sweeps stream these instead of
    /// reading the fixed particles out of order
    double *fc_xyzr;
    uint32_t *fc_start, *fc_end; ///< [cap]
    double *fc_an;         ///< accumulated push along the normal (pbd_solve.c, pbd_exact_acc's units)
    gr_vec3 *fc_at;        ///< accumulated friction push
    uint32_t *fblk_base, *fblk_used;
    uint32_t fblk_n;
    uint8_t *deep;         ///< [cap] packed: a body's particle overlaps it by more than a quarter
    /* deep sleep (pbd_freeze.c): frozen grains this substep (PBD_FLAG_FROZEN), and how many
     * unfrozen particles come before each packed position (the list scan of a frozen one
     * skips rows without any) */
    uint32_t n_frozen;
    uint32_t *pk_live;     ///< [cap] unfrozen packed particles before s (valid when n_frozen)
    uint32_t n_live;       ///< unfrozen packed particles in all
    bool thaw;             ///< the world changed: the next substep freezes nothing
    gr_vec3 gravity_seen;  ///< gravity of the last step (a change wakes every sleeper)
    uint8_t *fz_mark;      ///< [fz_cap] scratch: marked cells
    size_t fz_cap;
    /* packed particles pushed through a particle-covered body's shell (centre inside its
     * solid): they leave along the body's surface normal instead of rattling between its
     * particles */
    uint32_t *trap_slot;   ///< [cap] body slot, GR_INVALID_INDEX = not trapped
    gr_vec3 *trap_normal;  ///< [cap] outward surface normal at the list build
    gr_vec3 *trap_at;      ///< [cap] the particle's position then
    double *trap_depth;    ///< [cap] how far inside the surface it was then (> 0)
    uint32_t *trap_free;   ///< [cap] the packed particles trapped in a free body (the rigid pass's)
    uint32_t trap_free_n;
    pbd_exact_acc *ex_acc; ///< [cap] packed: exact-surface contacts of the substep
    double *tr_an;         ///< [cap] packed: trapped particles' accumulated push (as fc_an)
    gr_vec3 *tr_at;        ///< [cap]
    /* the solve's order (pbd_solve.c): the non-empty blocks of 2x2x2 list cells by colour */
    uint32_t *gs_blocks;
    double *gs_resid;      ///< [gs_blocks_cap] largest correction of each block in the last sweep
    uint32_t gs_blocks_cap;
    /* active blocks: a block is swept while it or a neighbouring block still moved by more
     * than the tolerance (pbd_solve.c) */
    uint32_t *gs_mark;     ///< [gs_mark_cap] by block of the grid: the sweep stamp it is active in
    uint32_t gs_mark_cap;
    uint32_t *gs_block_of; ///< [gs_blocks_cap] packed particle -> its block (with free bodies)
    uint32_t gs_stamp;     ///< stamp of the coming sweep (0 is never used: a fresh mark is 0)
    uint32_t gs_hot;       ///< blocks marked for the coming sweep
    double gs_tol;         ///< the solve tolerance (m) of this substep
    uint64_t sweeps;       ///< solver sweeps so far (statistics)
    uint64_t block_sweeps; ///< blocks swept so far (statistics: the active set's work)
    uint32_t gs_colour_start[9];
    /* warm start: the last substep's contacts with a multiplier, by first end (storage index
     * i < ws_n: records ws_start[i] .. ws_end[i]); wn_* are the next substep's, written while
     * these are read, then swapped */
    uint32_t ws_n, ws_count, ws_cap;
    double ws_h;           ///< the substep they are for (0: none)
    uint32_t *ws_start, *ws_end; ///< [cap] by storage index
    uint32_t *ws_other;    ///< the other end (storage index)
    double *ws_ln;
    gr_vec3 *ws_lt;        ///< on the first end
    uint32_t *wn_other;
    double *wn_ln;
    gr_vec3 *wn_lt;
    uint32_t *wn_start, *wn_count; ///< [cap] packed: scratch of the save
    pbd_exact *exact;    ///< the exact bodies this substep
    uint32_t exact_count, exact_cap;

    /* friction per material pair: mu_s, mu_k */
    double *mu;          ///< [pair_dim * pair_dim * 2]
    uint32_t pair_dim;
    uint32_t mat_revision;

    /* impulses bodies receive, recorded per particle (two bodies per particle and substep)
     * and summed in particle order: the same for any worker count */
    uint32_t *sense_slot; ///< [2 cap] body slots, GR_INVALID_INDEX = none
    gr_vec3 *sense_force;  ///< [2 cap] force on the body over the last substep it was solved [N]
    gr_vec3 *sense_torque; ///< [2 cap] its moment about the body's position [N m]
    uint32_t sense_cap;
    uint32_t imp_slots;
    gr_vec3 *body_imp;    ///< [imp_slots * 2] accumulated over the step

    gr_upsample points; ///< the render points (lib/upsample), when def->hr_radius > 0
    gr_vec3 up;
    uint64_t contact_pairs, body_pairs, rebuilds;
    uint32_t n_sleeping;   ///< grains asleep after the last step (gr_counters)
} pbd_state;

#define PBD_BLOCK 256u

/* flag bits (per particle, per substep) */
#define PBD_FLAG_DISTURBED 2u
#define PBD_FLAG_FROZEN 4u ///< set for the substep by pbd_freeze
#define PBD_FLAG_TOUCHED 8u ///< in contact in some sweep of the substep

/// Substeps a sleeper's block stays thawed after it nearly woke beside frozen grains.
#define PBD_STIR_SUBSTEPS 16u

/// Beside frozen grains a sleeper's probe reads high: they stand still where solved sleepers
/// would iterate along (in the four Sommer scenes at rest up to 1.65 x the wake threshold).
/// Below this multiple it is not believed at all; above it the sleeper's block thaws and it
/// asks again among solved neighbours. A sleeper that lost all support reads 2.
#define PBD_FROZEN_PROBE_BIAS 1.75

/// A sleeping grain keeps its position until the solve would move it faster than the
/// threshold (pbd_step.c).
static inline bool pbd_asleep(const pbd_state *st, uint32_t i)
{
    return st->par.sleep_threshold > 0 && st->calm[i] > st->par.sleep_time;
}

#endif /* GR_PBD_INTERNAL_H */
