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

#include "../core/world.h"
#include "../grid/cell_grid.h"

/// A body represented by particles. Dynamic and host-owned bodies are rigid through shape
/// matching; static and kinematic (mesh) bodies place their particles from the pose.
typedef struct pbd_body {
    uint32_t slot;     ///< body store slot
    uint32_t first;    ///< first particle
    uint32_t count;
    uint32_t fixed;    ///< 1: static or kinematic (infinite mass)
    double particle_mass;
    gr_vec3 centroid;  ///< particle centroid in the body frame (shape-matching centre)
    gr_quat rot;       ///< body orientation found by the last shape matching (warm start)
    gr_vec3 momentum;  ///< free bodies: linear momentum of the particles after the last substep
    gr_vec3 spin;      ///< free bodies: their angular momentum about the centroid
} pbd_body;

/// What the contact sweeps read of a neighbour, packed (one substep's constants: built after
/// the prediction by pbd_prepare_sweeps).
typedef struct pbd_hot {
    double r;
    double w_star;  ///< grains: height-scaled inverse mass; body particles: inv_m
    double inv_m;
    double W;       ///< inverse mass of what moves: a grain's own, a body particle's body's
    uint32_t mat;
    uint32_t bits;  ///< PBD_HOT_*
} pbd_hot;

#define PBD_HOT_BODY 1u   ///< a body's particle
#define PBD_HOT_FIXED 2u  ///< inverse mass 0 (static or kinematic body)
#define PBD_HOT_ASLEEP 4u ///< a sleeping grain
#define PBD_HOT_WAKES 8u  ///< fast enough to wake a sleeping grain it touches

/// Resolved solver parameters (gr_pbd_def).
typedef struct pbd_params {
    uint32_t iterations;
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
    gr_world *world;
    gr_mem *mem;
    pbd_params par;

    /* particles */
    uint32_t n, cap;
    gr_vec3 *x;     ///< positions at the start of the substep (after the step: current)
    gr_vec3 *xp;    ///< predicted positions x*
    gr_vec3 *v;
    gr_vec3 *dx;    ///< scratch: the Jacobi delta of one iteration
    gr_vec3 *f;     ///< total force of the last substep (constraints and gravity) [N]
    double *calm;   ///< grains: time [s] spent calm in contact; asleep beyond sleep_time (pbd_step.c)
    gr_vec3 *rest;  ///< body particles: offset from the body's particle centroid (body frame)
    double *r;
    double *inv_m;  ///< true inverse mass (0: fixed)
    double *w_star; ///< inverse mass with height scaling (grains), true otherwise
    uint32_t *mat;
    uint32_t *owner; ///< body record, GR_INVALID_INDEX for grains
    uint32_t *slot;  ///< grain handle slot (GR_INVALID_INDEX for body particles and dead grains)
    uint32_t *touch; ///< contacts at the last iteration: particles | exact surfaces << 16
    uint32_t *touch_next; ///< scratch: the sweep in progress writes its counts here (then swapped)
    uint32_t *flag;  ///< scratch per substep: PBD_FLAG_* bits
    double *vnear;   ///< scratch per substep: fastest relative speed of anything touching [m/s]
    uint8_t *sampled; ///< grains: their volume has high-resolution points
    /* grains whose centre is inside a particle-covered body (pushed through its shell): they
     * leave along the body's surface normal instead of rattling between its particles */
    uint32_t *trap_slot; ///< body slot, GR_INVALID_INDEX = not trapped
    gr_vec3 *trap_normal; ///< outward surface normal at the list build
    gr_vec3 *trap_at;    ///< the grain's position then
    double *trap_depth;  ///< how far inside the surface it was then (> 0)
    uint32_t n_grains;
    uint32_t n_dead;
    double r_min, r_max; ///< radii: r_min of the movable particles (grains, free bodies'), r_max of all
    double r_min_fixed;  ///< smallest radius of a fixed (static or kinematic) body's particle

    /* bodies with particles */
    uint32_t nb, b_cap;
    pbd_body *bodies;
    uint32_t *body_of_slot; ///< [b_slot_cap] body store slot -> record (GR_INVALID_INDEX)
    uint32_t b_slot_cap;

    /* neighbour lists (CSR over particles), rebuilt every substep on x* */
    gr_cell_grid grid;
    uint32_t *nb_start;  ///< [cap + 1] particle i's neighbours are nb_j[nb_start[i] .. nb_end[i])
    uint32_t *nb_end;    ///< [cap]
    uint32_t *nb_mid;    ///< [cap] movable neighbours first: [nb_start, nb_mid), fixed ones after
    pbd_hot *hot;        ///< [cap] per substep (pbd_prepare_sweeps)
    uint32_t *nb_j;      ///< one region per block of PBD_BLOCK particles, sized by the last build
    uint32_t nb_cap;
    uint32_t *blk_base;  ///< [blk_n + 1] where each block's region starts
    uint32_t *blk_used;  ///< [blk_n] entries the block wrote (more than its region: rebuild)
    uint32_t blk_n;
    uint32_t *exact;     ///< body slots of the exact bodies this substep
    double *exact_bound; ///< their enclosing radii (infinite for planes)
    uint32_t exact_count, exact_cap;

    /* friction per material pair: mu_s, mu_k */
    double *mu;          ///< [pair_dim * pair_dim * 2]
    uint32_t pair_dim;
    uint32_t mat_revision;

    /* impulses bodies receive, recorded per particle (two bodies per particle and substep)
     * and summed in particle order: the same for any worker count */
    uint32_t *sense_slot; ///< [2 cap] body slots, GR_INVALID_INDEX = none
    gr_vec3 *sense_imp;   ///< [2 cap] impulse on the body [N s]
    gr_vec3 *sense_ang;   ///< [2 cap] its moment about the body's position [N m s]
    uint32_t sense_cap;
    uint32_t imp_slots;
    gr_vec3 *body_imp;    ///< [imp_slots * 2] accumulated over the step

    /* high-resolution points (pbd_upsample.c) */
    uint32_t hr_n, hr_cap;
    gr_vec3 *hr_x, *hr_v;
    uint8_t *hr_rest;     ///< the point's last blend gave it no velocity
    gr_cell_grid hr_grid; ///< scratch: grains and body particles by cells of the support radius
    /// scratch: per particle in hr_grid order: x, y, z, 1 (grain) or 0 (body), vx, vy, vz, 0
    /// (the points' gathers stream this instead of chasing indices)
    float *hr_sorted;
    uint32_t hr_sorted_cap;
    uint64_t hr_batches;  ///< sampling passes so far (seeds the next)
    /* scratch of the advection: the points by hr_grid cell (points outside the grid last) */
    uint32_t *hr_key;     ///< [hr_cap] the point's cell c; ncells + c: beside the grid, up to a cell out of c; 2 ncells: farther
    uint32_t *hr_order;   ///< [hr_cap] points sorted by key
    uint32_t *hr_key_start; ///< [hr_key_cap] where each key's points start in hr_order
    uint32_t hr_key_cap;

    gr_vec3 up;
    uint64_t contact_pairs, body_pairs, rebuilds;
} pbd_state;

#define PBD_BLOCK 256u

/* flag bits (per particle, per substep) */
#define PBD_FLAG_NOT_FINITE 1u
#define PBD_FLAG_DISTURBED 2u

/// A sleeping grain keeps its position until the solve would move it faster than the
/// threshold (pbd_step.c).
static inline bool pbd_asleep(const pbd_state *st, uint32_t i)
{
    return st->par.sleep_threshold > 0 && st->calm[i] > st->par.sleep_time;
}

/* pbd_solver.c */
gr_status pbd_reserve_particles(pbd_state *st, uint32_t need);
void pbd_compact(pbd_state *st);
gr_status pbd_update_materials(pbd_state *st);
static inline const double *pbd_mu(const pbd_state *st, uint32_t a, uint32_t b)
{
    return st->mu + 2 * ((size_t)a * st->pair_dim + b);
}

/* pbd_lists.c */
gr_status pbd_build_lists(pbd_state *st, double h);
void pbd_free_lists(pbd_state *st);

/* pbd_constraints.c */
/// Add the recorded body impulses of this substep to body_imp and clear the records.
void pbd_collect_impulses(pbd_state *st);
gr_status pbd_reserve_sensing(pbd_state *st);

/// Fill st->hot for a substep of h (after the prediction and the mass scaling).
void pbd_prepare_sweeps(pbd_state *st, double h);
/// One Jacobi sweep of the contact constraints at positions `p` (x* in the solve, x in the
/// stabilisation). friction: also the positional friction; sense: accumulate body impulses.
void pbd_contact_sweep(pbd_state *st, gr_vec3 *p, bool friction, bool stabilize, double h);

/* pbd_bodies.c */
gr_status pbd_body_added(void *state, uint32_t slot);
/// Room for `need` body records. All or nothing.
gr_status pbd_reserve_records(pbd_state *st, uint32_t need);
void pbd_body_removed(void *state, uint32_t slot);
void pbd_body_moved(void *state, uint32_t slot);
void pbd_free_bodies(pbd_state *st);
/// Place a body's particles from its pose (into `dst`).
void pbd_place_body(pbd_state *st, const pbd_body *b, gr_vec3 *dst);
/// Shape matching of every free body (positions x*), then the bodies' poses follow.
void pbd_shape_match(pbd_state *st);
/// After the substep: free bodies take pose and velocity from their particles.
void pbd_bodies_write_back(pbd_state *st, double h);
/// Host-owned bodies restart from the host's state; static bodies that were teleported.
void pbd_bodies_sync_in(pbd_state *st);
gr_status pbd_reserve_impulses(pbd_state *st);

/* pbd_upsample.c */
gr_status pbd_reserve_points(pbd_state *st, uint32_t need);
gr_status pbd_sample_new_grains(pbd_state *st);
gr_status pbd_advect_points(pbd_state *st, double dt);
void pbd_cull_points(pbd_state *st);
void pbd_free_upsampling(pbd_state *st);

/* pbd_step.c */
gr_status pbd_step(void *state, uint32_t n, double h);
double pbd_stable_substep(void *state);

/* pbd_snapshot.c */
gr_status pbd_save(const void *state, struct gr_stream_writer *w);
gr_status pbd_load(void *state, struct gr_stream_reader *r);

#endif /* GR_PBD_INTERNAL_H */
