/* SPDX-License-Identifier: MIT */
/* DEM solver state (Bell, Yu, Mucha 2005; docs/dem.md). Grains are spheres stored as
 * structure-of-arrays in cell order (re-sorted at every neighbour rebuild). */
#ifndef GR_DEM_INTERNAL_H
#define GR_DEM_INTERNAL_H

#include "../bodies/body_store.h"
#include "../core/solver.h"
#include "../simd/kernel_contact.h"
#include "../upsample/upsample.h"
#include "../geom/clump_store.h"
#include "../grid/cell_grid.h"

/// Contact coefficients of one material pair, precomputed from gr_pair_coeffs.
typedef struct dem_pair_params {
    double mu;        ///< sliding friction
    double mu_roll;   ///< rolling friction
    double kn_coef;   ///< Hertz: 4/3 E*  (k_n = kn_coef sqrt(R* x))
    double st_coef;   ///< Hertz-Mindlin: 8 G* (k_t = st_coef sqrt(R* x))
    double gn_coef;   ///< Hertz: -2 sqrt(5/6) beta sqrt(2 E*) (gamma_n = gn_coef (R* x)^1/4 sqrt(m*))
    double gt_coef;   ///< Hertz: -2 sqrt(5/6) beta sqrt(8 G*)
    double kr_per_m;  ///< linear, derived: k_r / m* = (ln^2 e + pi^2) / t_c^2   (eq. 10)
    double kd_per_m;  ///< linear, derived: k_d / m* = -2 ln e / t_c             (eq. 9)
    double hertz_kr;  ///< nonlinear with b = 3/2 and no explicit k_r: 4/3 E* (times sqrt(R*))
} dem_pair_params;

/// World-constant law selection and parameters, flattened for the kernel.
typedef struct dem_law {
    gr_normal_law normal;
    gr_tangential_law tangential;
    gr_rolling_law rolling;
    bool clamp;
    double lin_kr, lin_kd;   ///< explicit linear coefficients (0: derived per pair)
    double nl_a, nl_b, nl_kr, nl_kd;
    double kt_ratio;
    double shear_damping;
    double coulomb_eps;
    double roll_damping;
} dem_law;

/// Position and radius of a grain in one 32-byte record: the neighbour scan reads one line.
typedef struct dem_xr {
    double x, y, z, r;
} dem_xr;

static inline gr_vec3 xr_pos(const dem_xr *a)
{
    gr_vec3 p = {a->x, a->y, a->z};
    return p;
}

/// Top bit of a neighbour entry: the pair touched at the last force evaluation (so a pair that
/// does not touch now only needs its history cleared when this bit is set).
#define DEM_TOUCHING 0x80000000u
#define DEM_INDEX_MASK 0x7fffffffu


/// A body as the current forces and lists saw it (dem_inputs.c).
typedef struct dem_body_seen {
    uint32_t gen, motion;
    gr_vec3 x;
    gr_quat q;
    gr_vec3 v, w;
} dem_body_seen;

typedef struct dem_state {
    gr_solver_env env;     ///< what the solver sees of its world
    const gr_dem_def *def; ///< validated; owned by the world
    gr_step_report *report; ///< of the step under way (dem_step)
    bool blowup_pass;       ///< a pass of this step found blow-ups already (the count is that pass's)
    gr_mem *mem;
    dem_law law;

    /* grains (spheres), dense order = cell order after each rebuild */
    uint32_t n;
    uint32_t cap;
    dem_xr *xr; ///< position and radius
    gr_vec3 *v, *w, *f, *t, *x_ref;
    gr_quat *q;
    double *m, *inv_m, *inv_i;
    uint32_t *mat;
    uint32_t *slot; ///< handle slot (of the clump for members); GR_INVALID_INDEX when removed
    uint32_t *member; ///< member record of a clump's sphere, GR_INVALID_INDEX for a free sphere
    uint8_t *sampled; ///< its volume has render points (gr_upsample_view.sampled; permuted with the rest)
    gr_vec3 *up_x;    ///< scratch: positions for the render points (dem_points.c)
    double *up_r;     ///< scratch: radii for them
    uint32_t *up_owner; ///< scratch: GR_INVALID_INDEX for a grain's sphere, else its body's slot
    gr_vec3 *up_x0;   ///< with render points: positions at the step's start (permuted with the rest)
    gr_vec3 *up_v;    ///< scratch: the spheres' mean velocity over the step
    uint32_t n_dead;
    uint32_t render_count; ///< spheres of live grains (render points)
    /* scratch for permuting the arrays (32 bytes per grain: the largest element) */
    unsigned char *spare;

    /* clumps: rigid grains made of member spheres (Bell 3.1). The spheres above carry the
     * contacts; a clump integrates as one rigid body and places its members every substep. */
    uint32_t nc, c_cap, nc_dead;
    gr_vec3 *c_x, *c_v, *c_w, *c_L, *c_f, *c_t; ///< centre, velocity, angular velocity and momentum (world), force, torque
    gr_quat *c_q;
    double *c_m;          ///< mass
    gr_vec3 *c_inertia;   ///< principal moments (body frame = principal axes)
    double *c_radius;     ///< bounding radius
    uint32_t *c_first, *c_count; ///< member records
    uint32_t *c_slot;     ///< grain handle slot; GR_INVALID_INDEX when removed
    uint32_t *c_mat;
    uint32_t *c_body;     ///< body slot of a body's particle clump, GR_INVALID_INDEX for a grain
    uint8_t *c_fixed;     ///< a body clump that does not answer forces (static, kinematic)
    gr_quat *c_frame;     ///< principal axes in the caller's frame: orientation = c_q * conj(c_frame)
    uint32_t *c_fa_first, *c_fa_count; ///< fixed clumps: their members in a neighbour pair (fa_member)
    uint32_t nm, m_cap;   ///< member records
    uint32_t *fa_member;  ///< [fa_cap] members of fixed clumps that have a neighbour (set at rebuild):
    uint32_t fa_cap;      ///< only they can feel a force until the next rebuild
    uint32_t *m_sphere;   ///< current index of the member's sphere
    uint32_t *m_clump;    ///< the member's clump
    gr_vec3 *m_offset;    ///< member centre in the clump's body frame

    /* particle-covered bodies (Bell 3.3) are clumps too: c_slot DEM_BODY_SLOT, c_body their
     * body; this maps a body slot to its clump */
    uint32_t *body_clump; ///< [body_clump_cap]
    uint32_t body_clump_cap;

    /* half neighbour list in CSR form: pairs (i, j > i) within r_i + r_j + skin, double-buffered */
    uint32_t *nb_start, *nb_start_old; ///< [cap + 1]
    uint32_t nb_cap, nb_count, nb_old_cap;
    uint32_t *nb_j, *nb_j_old; ///< partner index | DEM_TOUCHING when touching at the last evaluation
    gr_vec3 *nb_hist, *nb_hist_old; ///< tangential spring xi (history law)
    gr_vec3 *nb_roll, *nb_roll_old; ///< rolling spring moment (EPSD), NULL otherwise

    /* grain-body candidate contacts in CSR form, double-buffered */
    uint32_t *bc_start, *bc_start_old;
    uint32_t bc_cap, bc_count, bc_old_cap;
    uint32_t *bc_id, *bc_id_old; ///< body slot << 3 | feature
    gr_vec3 *bc_hist, *bc_hist_old;
    gr_vec3 *bc_roll, *bc_roll_old;

    /* render points (lib/upsample, dem_points.c), when def->hr_radius > 0 */
    gr_upsample points;
    gr_exact_body *up_exact; ///< [up_exact_cap] the bodies without particles, as the points meet them
    uint32_t up_exact_cap;

    gr_cell_grid grid;
    uint32_t *cell_tmp; ///< [cap] scratch: cell of each sorted grain at rebuild
    uint32_t *perm;     ///< [cap] scratch: new index -> old index at rebuild
    uint8_t *sorted_fixed; ///< [cap] scratch: at rebuild, whether sorted grain k belongs to a fixed body
    uint32_t n_built;   ///< grains when the current lists were built (newer ones have no list)

    /* slabs of cell layers along the grid's major axis: the units of parallel force work */
    uint32_t nslabs, slab_cap;
    uint32_t *slab_start;          ///< [slab_cap + 1]
    uint64_t *slab_contacts;       ///< [slab_cap * 2]: grain-grain, grain-body
    double *slab_body;             ///< [slab_cap * body_slots * 6]: force, torque
    uint32_t body_slots;           ///< body slot count the slab arrays are sized for
    gr_vec3 *body_impulse;         ///< [body_slots * 2] over the current step
    double *body_bound;            ///< [body_slots] motion bound since the last rebuild [m]
    double *body_reach;            ///< [body_slots] distance of the farthest grain from the body at rebuild
    dem_body_seen *body_seen;      ///< [body_slots] bodies at the end of the last step (dem_inputs.c)
    uint32_t bodies_seen;          ///< active bodies recorded in body_seen
    uint32_t materials_seen;       ///< materials revision at the end of the last step
    gr_vec3 gravity_seen;          ///< gravity at the end of the last step
    bool inputs_maybe_changed;     ///< invalidate() since: compare with the record at the next step

    double *block_max; ///< [block_cap] per-block max squared displacement
    uint32_t *block_bad; ///< [2 block_cap] per block: first blown-up grain's slot, their count
    uint32_t block_cap;

    struct gr_contact_batch *batches; ///< [batch_count] per-worker scratch of the force kernel
    uint32_t batch_count;
    gr_contact_kernel_fn *kernel; ///< vectorised contact kernel (env.kernels)

    dem_pair_params *pairs; ///< [pair_dim * pair_dim]
    uint32_t pair_dim;
    uint32_t pairs_revision;
    double *mat_rmin; ///< [pair_dim] smallest radius seen per material (for the stable step)
    uint32_t mat_rmin_cap;

    uint32_t uniform_material; ///< the material of every grain, or GR_INVALID_INDEX (set at rebuild)
    double skin;      ///< resolved skin of the current lists
    double skin_auto; ///< automatic skin, adapted to how long lists last (dem.skin == 0)
    uint32_t substeps_since_rebuild;
    double r_max;     ///< largest radius at the last rebuild
    bool need_rebuild;
    bool forces_stale;
    uint32_t bodies_revision;
    uint64_t rebuilds;
    uint64_t contacts, body_contacts;
    uint32_t unstable_count;
    struct dem_rkf *rkf; ///< RKF45 scratch (dem_rkf45.c), allocated on first use
    double rkf_h;        ///< RKF45: the step size to try next (0: the stable substep)
} dem_state;

/* dem_params.c */
gr_status dem_update_pairs(dem_state *st);
double dem_stable_substep(void *state);

/* dem_points.c: render points (lib/upsample) fed by the spheres */
/// Room for the view of the bodies without particles (before a step moves anything).
gr_status dem_points_reserve(dem_state *st);
/// The spheres as the render points see them (fills the up_* scratch; after a rebuild: no
/// removed spheres among them).
/// moved > 0: the time the step simulated; the spheres' velocities are then their mean over it
/// (their displacement over moved, so that points carried by them land where the integrator
/// took them). 0: their velocities.
gr_upsample_view dem_points_view(dem_state *st, double moved);
gr_status dem_fill_region(void *state, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
void dem_fill_region_cancel(void *state);
void dem_free_points(dem_state *st);
/// At a step's start, after the rebuild (no removed spheres): new grains sampled, room for the
/// advection. All or nothing, before anything moves.
gr_status dem_points_begin(dem_state *st);
/// At its end: the points follow the spheres over the `moved` seconds simulated (0: the step
/// moved nothing, its sampling is undone).
gr_status dem_points_end(dem_state *st, double moved);

/* dem_def.c: gr_dem_def for the solver table */
extern const gr_def_layout dem_def_layout;
void dem_def_defaults(void *def);
bool dem_def_validate(const void *def, gr_def_check *check);
void dem_def_save(const void *def, struct gr_stream_writer *w);
bool dem_def_load(void *def, struct gr_stream_reader *r);
void dem_law_init(dem_law *law, const gr_dem_def *def);

/* dem_store.c: the storage primitives (the bottom of the solver's files) */
gr_status dem_reserve_particles(dem_state *st, uint32_t cap);
void dem_free_particles(dem_state *st);
gr_status dem_reserve_clumps(dem_state *st, uint32_t clumps, uint32_t members);
void dem_free_clumps(dem_state *st);
/// The clump arrays (at most 24; *n of them) and the DEM_MEMBER_ARRAYS member arrays, each with
/// its element size: what grows, frees and permutes them together.
void dem_clump_arrays(dem_state *st, gr_array_ref *a, size_t *n);
enum { DEM_MEMBER_ARRAYS = 3 };
void dem_member_arrays(dem_state *st, gr_array_ref *a);
/// Room for the active member lists of fixed clumps (before a rebuild changes anything).
bool dem_reserve_fixed_active(dem_state *st);

/* dem_rkf45_store.c */
/// RKF45's room for n grains and lists of nb, bc entries (dem_rebuild reserves it up front).
gr_status dem_rkf45_reserve(dem_state *st, uint32_t n, uint32_t nb, uint32_t bc);
void dem_free_rkf(dem_state *st);

/* dem_blowups.c */
/// Adds the blown-up grains of nblocks blocks (block_bad layout) to the world's count.
void dem_note_blowups(dem_state *st, const uint32_t *block_bad, uint32_t nblocks);
/// After a blow-up: no non-finite force, torque, contact history or motion bound is left.
void dem_scrub_blowup(dem_state *st);

/* dem_rebuild.c */
gr_status dem_rebuild(dem_state *st);
/// Set uniform_material: the material every grain has, or GR_INVALID_INDEX.
void dem_update_uniform_material(dem_state *st);
void dem_free_slabs(dem_state *st);
/// Slab and per-body arrays for nslabs slabs and body_slots bodies (grow only).
bool dem_reserve_slabs(dem_state *st, uint32_t nslabs, uint32_t body_slots);
void dem_free_lists(dem_state *st);

/* dem_clumps.c */
/// Encoding of a clump in the grain table's dense index.
#define DEM_CLUMP_BIT 0x80000000u
/// Append a clump grain of template `tmpl` with its member spheres (after reserving).
void dem_add_clump(dem_state *st, const gr_grain_init *g, uint32_t tmpl);
/// Kick (k1 then k2 times F/M) and, when h > 0, drift the clumps and place their members.
/// Returns the largest squared displacement of a member since the last rebuild.
double dem_integrate_clumps(dem_state *st, double k1, double k2, double h);
/// F = M g + member forces, T = member torques and moments, per clump.
void dem_reduce_clumps(dem_state *st);
/// Members' positions and velocities from their clump's state.
void dem_place_members(dem_state *st, uint32_t c);
/// Drop removed clumps and their member records (after the spheres were compacted).
void dem_compact_clumps(dem_state *st);
/// Clumps and member records in the order of their spheres (after a rebuild's permutation).
void dem_sort_clumps(dem_state *st);
/// The members of fixed clumps that appear in the neighbour list (after a rebuild or a load):
/// a static wall's other particles cost nothing per substep.
void dem_update_fixed_active(dem_state *st);
void dem_clump_read(const dem_state *st, uint32_t c, gr_field field, double *out);
void dem_clump_write(dem_state *st, uint32_t c, gr_field field, const double *in);
/// A body's clump takes the body's pose and velocity; false for a static body (its pose
/// never changes within a step).
bool dem_clump_pose_from_body(dem_state *st, uint32_t c, const struct gr_body_data *b);
/// A fixed body clump: pose and velocity from its body (clump integration pass); false for a
/// static body (nothing moved).
bool dem_sync_body_clump(dem_state *st, uint32_t c);

/* dem_bodies.c */
/// Slot of a body's particle spheres and of its clump (alive, but not a grain).
#define DEM_BODY_SLOT 0xfffffffeu
/// Member mass of immovable bodies: the contact's reduced mass m_i M / (m_i + M) is then m_i.
#define DEM_IMMOVABLE_MASS 1e200
gr_status dem_body_added(void *state, uint32_t body);
void dem_body_removed(void *state, uint32_t body);
void dem_body_moved(void *state, uint32_t body);
void dem_free_body_map(dem_state *st);
/// body_clump[] sized for the world's body slots, all empty (snapshot load fills it).
gr_status dem_reset_body_map(dem_state *st);
/// Static and kinematic bodies: clumps that take their pose from the body.
static inline bool dem_body_is_fixed(const struct gr_body_data *b)
{
    return b->motion == GR_MOTION_STATIC || b->motion == GR_MOTION_KINEMATIC;
}
/// Start of a step: fixed clumps and host-owned bodies' clumps take their body's pose and
/// velocity (teleports, the host's new state).
void dem_sync_bodies_in(dem_state *st);
/// Dynamic bodies take their clump's pose and velocity.
void dem_write_back_bodies(dem_state *st);
/// Add the contact force and torque on every particle-covered body over a substep of h.
void dem_sense_bodies(dem_state *st, double h);

/* dem_step.c */
gr_status dem_step(void *state, uint32_t n, double h, gr_step_report *report);

/* dem_rkf45.c */
/// Advance by T seconds with the adaptive RKF45 integrator.
gr_status dem_step_rkf45(dem_state *st, double T, gr_step_report *report);

/* dem_forces.c */
/// Contact forces at the current state: contact histories advance by h (0: not at all), and
/// the analytic bodies' impulses grow by their force times w_impulse.
void dem_forces(dem_state *st, double h, double w_impulse);
/// Gravity plus contact forces from scratch (after the state was edited).
void dem_compute_forces(dem_state *st);
gr_status dem_reserve_batches(dem_state *st);
void dem_free_batches(dem_state *st);
void dem_free_blocks(dem_state *st);

/* dem_inputs.c */
/// Remember gravity, materials and bodies as the forces at the end of this step saw them.
void dem_record_inputs(dem_state *st);
/// Start of a step, after invalidate(): rebuild and re-evaluate the forces only when gravity,
/// materials or a body differ (bitwise) from the record.
void dem_check_inputs(dem_state *st);

/* dem_snapshot.c */
gr_status dem_save(const void *state, struct gr_stream_writer *w);
gr_status dem_load(void *state, struct gr_stream_reader *r);

#endif /* GR_DEM_INTERNAL_H */
