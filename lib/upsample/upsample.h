/* SPDX-License-Identifier: MIT */
/* Render points for any particle solver (upsample.c; Sommer & Schwanecke sec. 4 after Ihmsen,
 * Wahl, Teschner 2012; docs/pbd.md "Upsampling"): many small points fill the volume of the
 * grains and follow their flow. The solver owns its particles and shows them through a
 * gr_upsample_view at each call; the points are this module's. */
#ifndef GR_UPSAMPLE_H
#define GR_UPSAMPLE_H

#include "../bodies/body_store.h"
#include "../core/solver.h"
#include "../grid/cell_grid.h"
#include "../simd/simd_kernels.h"

struct gr_region;

/// A render point: 8 floats (position, velocity, render index, rest flag).
typedef struct gr_upsample_point {
    float x, y, z;
    float vx, vy, vz;
    uint32_t id;   ///< its render index
    uint32_t rest; ///< 1: its last step ended without velocity
} gr_upsample_point;

/// A body met by its exact surface rather than particles (planes, boxes, spheres, capsules,
/// containers), as the solver's last substep saw it.
typedef struct gr_exact_body {
    uint32_t slot;   ///< body store slot
    uint32_t plane;  ///< 1: a plane (centre, normal below); else its features are asked
    uint32_t moving; ///< 1: kinematic
    uint32_t pad;
    double bound;    ///< enclosing radius (infinite for planes)
    gr_vec3 centre;  ///< the body's position
    gr_vec3 normal;  ///< planes: the world normal
} gr_exact_body;

/// The points' parameters (a solver's def: gr_pbd_def's hr_* fields).
typedef struct gr_upsample_params {
    double radius;        ///< r_H [m]; 0: no points
    double support;       ///< R / r_L
    double density;       ///< c: the weight sum of a grain's interior, in units of w_rho
    double substep;       ///< longest advection step [s]
    double sample_radius; ///< points fill balls of this multiple of the grain radius
    uint32_t candidates;  ///< tries per sampling cell
} gr_upsample_params;

/// The parameters of a solver def with the render points' fields (gr_dem_def, gr_pbd_def:
/// hr_radius, hr_support, hr_density, hr_substep, hr_sample_radius, hr_candidates).
#define GR_UPSAMPLE_PARAMS_OF(d)                                                                                \
    ((gr_upsample_params){(d)->hr_radius, (d)->hr_support, (d)->hr_density, (d)->hr_substep, (d)->hr_sample_radius, \
                          (d)->hr_candidates})
/// Such a def's render-point defaults: off; support 2.5, density 2, advection step 1/30 s,
/// sampling balls 1.3 grain radii, 20 candidates (gr_types.h documents them).
#define GR_UPSAMPLE_SET_DEFAULTS(d)                                                                             \
    ((d)->hr_radius = 0.0, (d)->hr_support = 2.5, (d)->hr_density = 2.0, (d)->hr_substep = 1.0 / 30.0,          \
     (d)->hr_sample_radius = 1.3, (d)->hr_candidates = 20)

/// What the solver shows of its particles for one call (nothing of it is kept).
typedef struct gr_upsample_view {
    uint32_t n;               ///< particles: grains and body particles
    const gr_vec3 *x, *v;     ///< positions, velocities
    const double *r;          ///< radii
    const uint32_t *mat;      ///< materials
    const uint32_t *owner;    ///< GR_INVALID_INDEX: a grain; else a body's particle
    uint8_t *sampled;         ///< per particle, written here: 0 no points yet, 1 has them, 2 by this step
    uint32_t body_count;      ///< bodies represented by particles among them (0: none)
    double r_max;             ///< the largest particle radius
    double r_grain;           ///< the largest moving grain's radius (the support's scale; 0: none)
    const gr_exact_body *exact;
    uint32_t exact_count;
    double rest_speed;        ///< a point among still grains slower than this comes to rest [m/s]
    /// Kinetic friction of a point on a surface of this material.
    double (*surface_mu)(const void *solver, uint32_t material);
    const void *solver;
} gr_upsample_view;

typedef struct gr_upsample {
    gr_solver_env env;
    gr_upsample_params par;
    uint32_t n, cap;          ///< points, room
    /// The last advection left every one of the `idle` points as it was (all at rest among
    /// particles at rest): while nothing moves the next one would too.
    uint32_t idle;
    bool idle_valid;
    gr_upsample_point *pt;    ///< [cap] in the cell order of the last advection
    gr_upsample_point *tmp;   ///< [cap] scratch: where the sort puts them
    uint32_t *at;             ///< [cap] render index -> storage position
    uint32_t *key;            ///< [cap] scratch: each point's cell key
    uint32_t *key_tmp;        ///< [cap] scratch: the keys in the sorted order
    uint32_t *key_start;      ///< [key_cap] scratch of the sort: a count per key and chunk
    uint32_t key_cap;
    gr_cell_grid grid;        ///< scratch: particles by cells of the support radius
    /// scratch: per particle in grid order: x, y, z, 1 (grain) or 0 (body), vx, vy, vz, 0
    float *sorted;
    uint32_t sorted_cap;
    uint64_t batches;         ///< sampling passes so far (seeds the next)
    bool sample_pending;      ///< new grains were sampled: kept once a step moved them
    uint32_t sample_undo_n;   ///< the point count before that sampling
    uint32_t presampled;      ///< the next grains added come with their region's points
    uint32_t presample_mark;  ///< n before that region was sampled (gr_upsample_fill_cancel)
    uint64_t presample_batches; ///< batches then
    gr_point_sums_fn *sums;   ///< the kernels of this CPU (env.kernels)
    gr_point_blend_fn *blend;
    uint32_t lanes;
    gr_point_hit_fn *hit;
} gr_upsample;

/// The parameters' checks, worded "<prefix>.hr_radius ..." (the def's fields).
bool gr_upsample_params_check(const gr_upsample_params *p, const char *prefix, gr_def_check *check);
void gr_upsample_init(gr_upsample *u, const gr_solver_env *env, const gr_upsample_params *par);
void gr_upsample_free(gr_upsample *u);
static inline bool gr_upsample_on(const gr_upsample *u) { return u->par.radius > 0; }
gr_status gr_upsample_reserve_points(gr_upsample *u, uint32_t need);
/// Fill the volume of the grains not sampled yet (view->sampled 0) with points; they are
/// marked 2 until gr_upsample_keep. All or nothing.
gr_status gr_upsample_sample_new(gr_upsample *u, const gr_upsample_view *view);
/// The step that sampled new grains moved them: their points stay.
void gr_upsample_keep(gr_upsample *u, const gr_upsample_view *view);
/// The step failed before anything moved: the new grains' points go, as if never sampled.
void gr_upsample_undo(gr_upsample *u, const gr_upsample_view *view);
/// A fill's region sampled at once (its next `grains` grains then need none). All or nothing.
gr_status gr_upsample_fill_region(gr_upsample *u, const struct gr_region *region, uint32_t grains, gr_vec3 velocity);
void gr_upsample_fill_cancel(gr_upsample *u);
/// Whether the next grain added comes with its points (a sampled fill's): counts it down.
bool gr_upsample_take_presampled(gr_upsample *u);
/// The world changed (bodies, gravity, materials, grains removed): resting points look again.
void gr_upsample_unrest(gr_upsample *u);
/// Room for gr_upsample_advect over n particles, taken before the step moves anything.
gr_status gr_upsample_reserve_advect(gr_upsample *u, uint32_t n);
/// Move the points by dt after the particles' step.
gr_status gr_upsample_advect(gr_upsample *u, const gr_upsample_view *view, double dt);
/// Points outside the world bounds are dropped; the others keep their render order.
void gr_upsample_cull(gr_upsample *u);
/// Render points [first, first + count) as x, y, z, r_H floats, `stride` bytes apart.
void gr_upsample_read(const gr_upsample *u, uint32_t first, uint32_t count, float *dst, size_t stride);
/// Snapshot: the sampling passes, the points in storage order.
void gr_upsample_save(const gr_upsample *u, struct gr_stream_writer *w);
/// Read what gr_upsample_save wrote (checked: finite, render indices a permutation).
gr_status gr_upsample_load(gr_upsample *u, struct gr_stream_reader *r);

#endif /* GR_UPSAMPLE_H */
