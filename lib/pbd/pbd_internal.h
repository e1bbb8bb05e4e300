/* SPDX-License-Identifier: MIT */
/* Position-based granular solver (Macklin et al. 2014 as used by Sommer & Schwanecke; see
 * docs/pbd.md). Every particle is a sphere: grains, and the surface particles of bodies that
 * need them (meshes, dynamic and host-owned bodies). Static and kinematic primitive shapes
 * (planes, boxes, spheres, capsules, containers) are exact surfaces, not particles.
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

/* pbd_store.c: the storage primitives (the bottom of the solver's files) */
gr_status pbd_reserve_particles(pbd_state *st, uint32_t need);
void pbd_free_particles(pbd_state *st);
/// The movable list (and pos_of cleared for every particle) after particles came or went.
void pbd_refresh_movable(pbd_state *st);
void pbd_compact(pbd_state *st);
gr_status pbd_update_materials(pbd_state *st);
/// Room for `pairs` warm-start records (the current ones kept). All or nothing.
gr_status pbd_reserve_warm_start(pbd_state *st, uint32_t pairs);
/// Storage indices were renumbered (old i -> map[i], GR_INVALID_INDEX: gone; n_old of them):
/// the warm-start records follow.
void pbd_warm_start_renumber(pbd_state *st, const uint32_t *map, uint32_t n_old);
static inline const double *pbd_mu(const pbd_state *st, uint32_t a, uint32_t b)
{
    return st->mu + 2 * ((size_t)a * st->pair_dim + b);
}

/* pbd_lists.c */
/// The fixed particles' grid (rebuilt only when they moved), before the prediction: it uses
/// rank and pk_tmp as scratch. Nothing moves; all or nothing.
gr_status pbd_build_fixed_grid(pbd_state *st);
/// Pack the movable particles (x*, x, constants) in cell order and list their pairs, fixed
/// neighbours and the exact bodies. Expects the fixed grid built, and rank[k] = mov[k],
/// pk_tmp[k] = its x* and its staged record (the prediction writes them: pbd_stage). Nothing
/// moves; all or nothing.
gr_status pbd_build_lists(pbd_state *st);
/// What the prediction records of movable particle i (mov[k] = i) for the lists of a substep
/// whose squared wake speed is wake2 (pbd_build_lists).
static inline void pbd_stage(pbd_state *st, uint32_t k, uint32_t i, double wake2)
{
    const uint32_t o = st->owner[i];
    const bool asleep = pbd_asleep(st, i);
    uint32_t bits = 0;
    if (o != GR_INVALID_INDEX)
        bits |= PBD_HOT_BODY;
    if (asleep)
        bits |= PBD_HOT_ASLEEP;
    /* a grain must be ten times faster than a body to wake a sleeper: a settling pile's
     * rattle must not */
    if (!asleep && v3_len2(st->v[i]) > (o == GR_INVALID_INDEX ? 100.0 : 1.0) * wake2)
        bits |= PBD_HOT_WAKES;
    if (st->flag[i] & PBD_FLAG_FROZEN)
        bits |= PBD_HOT_FROZEN;
    const double inv_m = st->inv_m[i];
    st->stage_hot[k] = (pbd_hot){st->r[i], inv_m, inv_m,
                                 o == GR_INVALID_INDEX ? inv_m : inv_m / (double)st->bodies[o].count,
                                 st->mat[i], bits, o, st->touch[i]};
    st->stage_x[k] = st->x[i];
}
/// Write the packed x*, x and contact counts back to the particles.
void pbd_unpack(pbd_state *st);
/// After kinematic bodies advanced: their fixed particles' and exact records' new poses.
void pbd_fixed_advanced(pbd_state *st);
void pbd_free_lists(pbd_state *st);

/* pbd_constraints.c */
/// Add the recorded body forces of this substep of h (times h) to body_imp. The records stay
/// until the particle is solved again (pbd_freeze clears them): a frozen grain presses on as
/// it did when it froze.
void pbd_collect_impulses(pbd_state *st, double h);
gr_status pbd_reserve_sensing(pbd_state *st);


/// A body received a force [N] with moment arm `lever` from its position, from
/// movable particle i (storage index) over this substep: recorded per particle (two bodies
/// each) and summed in particle order by pbd_collect_impulses (the same for any worker count).
static inline void pbd_sense(pbd_state *st, uint32_t i, uint32_t slot, gr_vec3 force, gr_vec3 lever)
{
    for (uint32_t k = 2 * i; k < 2 * i + 2; k++) {
        if (st->sense_slot[k] == GR_INVALID_INDEX)
            st->sense_slot[k] = slot;
        if (st->sense_slot[k] == slot) {
            const gr_vec3 f = v3_add(st->sense_force[k], force), t = v3_add(st->sense_torque[k], v3_cross(lever, force));
            if (v3_finite(f) && v3_finite(t)) { /* (a grain blowing up reports nothing) */
                st->sense_force[k] = f;
                st->sense_torque[k] = t;
            }
            return;
        }
    }
    /* a third body in one substep: too rare to keep room for; its share is not reported */
}

/* pbd_solve.c */
/// The slot of exact contact `key` in a particle's accumulators (a new one if it has none and
/// `open`); PBD_EXACT_SLOTS if none.
static inline uint32_t pbd_exact_slot(pbd_exact_acc *ea, uint32_t key, bool open)
{
    uint32_t free_slot = PBD_EXACT_SLOTS;
    for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++) {
        if (ea->key[m] == key)
            return m;
        if (ea->key[m] == UINT32_MAX && free_slot == PBD_EXACT_SLOTS)
            free_slot = m;
    }
    if (open && free_slot < PBD_EXACT_SLOTS) {
        ea->key[free_slot] = key;
        ea->an[free_slot] = 0;
        ea->at[free_slot] = v3(0, 0, 0);
        ea->nrm[free_slot] = v3(0, 0, 0);
    }
    return open ? free_slot : PBD_EXACT_SLOTS;
}

/// Room for the solve of this substep's lists (blocks, warm-start records). All or nothing.
gr_status pbd_solve_reserve(pbd_state *st);
/// Start of the solve after the lists: multipliers from the warm start, the colouring, and
/// the stabilisation at x.
void pbd_solve_begin(pbd_state *st, double h);
/// The solver iterations (after kinematic bodies advanced), then contact counts, wake flags,
/// the forces bodies sensed, and the warm start of the next substep.
void pbd_solve_iterate(pbd_state *st, double h);
void pbd_free_solve(pbd_state *st);

/* pbd_rigid.c */
/// Free bodies' predicted poses, their particles placed there (xp).
void pbd_rigid_predict(pbd_state *st, double h);
/// One sweep over the free bodies' contacts (warm: apply the pairs' warm start first).
void pbd_rigid_sweep(pbd_state *st, double h, bool warm, bool reverse);
/// After the sweeps: body particles at the final pose, the bodies' contact impulses.
void pbd_rigid_end(pbd_state *st, double h);

/* pbd_bodies.c */
gr_status pbd_body_added(void *state, uint32_t slot);
/// Room for `need` body records. All or nothing.
gr_status pbd_reserve_records(pbd_state *st, uint32_t need);
void pbd_body_removed(void *state, uint32_t slot);
void pbd_body_moved(void *state, uint32_t slot);
void pbd_free_bodies(pbd_state *st);
/// Place a body's particles from its pose (into `dst`).
void pbd_place_body(pbd_state *st, const pbd_body *b, gr_vec3 *dst);
/// After the substep: free bodies take the solve's pose and its velocity. Returns how many blew
/// up (non-finite or faster than GR_MAX_SPEED: those keep their last state, stopped).
uint32_t pbd_bodies_write_back(pbd_state *st, double h);
/// Host-owned bodies restart from the host's state; static bodies that were teleported.
void pbd_bodies_sync_in(pbd_state *st);
gr_status pbd_reserve_impulses(pbd_state *st);

/* pbd_points.c: the render points (lib/upsample) fed by the particles */
/// The particles as the render points see them; rest_speed: the grains' sleeping speed of the
/// last substep (0 before a step).
gr_upsample_view pbd_points_view(pbd_state *st, double rest_speed);
gr_status pbd_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
void pbd_fill_region_cancel(void *state);

/* pbd_freeze.c */
/// At a substep's start: which sleeping grains are frozen for it (PBD_FLAG_FROZEN; every
/// other movable particle's flag is cleared). Nothing moves; without memory nothing freezes.
void pbd_freeze(pbd_state *st);
void pbd_free_freeze(pbd_state *st);

/* pbd_step.c */
gr_status pbd_step(void *state, uint32_t n, double h, gr_step_report *report);
double pbd_stable_substep(void *state);

/* pbd_snapshot.c */
gr_status pbd_save(const void *state, struct gr_stream_writer *w);
gr_status pbd_load(void *state, struct gr_stream_reader *r);

/* pbd_def.c: gr_pbd_def for the solver table */
extern const gr_def_layout pbd_def_layout;
void pbd_def_defaults(void *def);
bool pbd_def_validate(const void *def, gr_def_check *check);
void pbd_def_save(const void *def, struct gr_stream_writer *w);
bool pbd_def_load(void *def, struct gr_stream_reader *r);

#endif /* GR_PBD_INTERNAL_H */
