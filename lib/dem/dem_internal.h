/* SPDX-License-Identifier: MIT */
/* DEM solver state (Bell, Yu, Mucha 2005; docs/dem.md). Grains are spheres stored as
 * structure-of-arrays in cell order (re-sorted at every neighbour rebuild). The state and its
 * types only: each file's functions are declared in its own header (dem_<file>.h). */
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
    bool pairs_roll; ///< some pair has rolling friction (else EPSD is NONE: the cheaper kernel)
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

#endif /* GR_DEM_INTERNAL_H */
