/* SPDX-License-Identifier: MIT */
/* The continuum solver's state (Narain, Golas, Lin 2010): its particles, its grid and the
 * fields and solver workspaces a step reuses. Arrays grow only, so a steady step allocates
 * nothing. */
#ifndef GR_CONTINUUM_CONT_INTERNAL_H
#define GR_CONTINUUM_CONT_INTERNAL_H

#include "../core/solver.h"
#include "../qp/qp_box.h"
#include "cont_bodies.h"
#include "cont_contact.h"
#include "cont_density.h"
#include "cont_friction.h"
#include "cont_shape.h"

/// The solver's settings (documented in docs/continuum.md; defaults in cont_defaults).
typedef struct cont_params {
    double cell;          ///< grid cell edge h [m]
    double radius;        ///< particle size r [m] (sec. 3.1: h / 4)
    double packing;       ///< the critical density as a fraction of the material's density
    double pic;           ///< PIC fraction of the particles' velocity update
    uint32_t stagger;     ///< staggered projections per step (sec. 4: 2)
    double cfl;           ///< most cells a particle travels in one step (sec. 4: 1/2)
    double tolerance;     ///< the QPs' relative tolerance on the projected gradient
    uint32_t max_iterations; ///< per QP solve
    bool pgs;             ///< projected Gauss-Seidel instead of MPRGP (the reference)
    uint32_t friction_sweeps; ///< friction by components (sec. 4): block sweeps a round; 0: the whole QP
    bool density_correction;  ///< sec. 2.2.1
    uint32_t points;          ///< render points per particle (0: the particles are the render points)
    bool split_merge;         ///< sec. 3.1 (cont_regrain.h)
    /* not in the def (0 / false from it): tests compare against the uncapped, cold-started correction */
    uint32_t density_steps;   ///< the density correction's MPRGP steps a step; 0: CONT_DENSITY_STEPS
    bool density_cold;        ///< start the correction from y = 0 at every step (no warm start)
    uint32_t friction_block_steps; ///< a friction block's MPRGP steps a round; 0: CONT_FRICTION_BLOCK_STEPS
} cont_params;

/// Most render points a particle carries.
#define CONT_MAX_POINTS 64

/// What the last step's solves did.
typedef struct cont_stats {
    uint32_t cells, blocks;
    uint32_t pressure_iterations, friction_iterations; ///< summed over the staggered rounds
    uint32_t pressure_matvecs, friction_matvecs;
    uint32_t density_iterations; ///< the density correction's solve
    bool density_warm;  ///< it started from the last step's y (not from 0: cont_density_correct)
    bool converged;     ///< every solve reached its tolerance
    double friction_work; ///< the friction's change of the grid's kinetic energy [J] (<= 0)
} cont_stats;

/// Where the steps' time went, summed since the solver was created (for benchmarks: read the
/// difference over a stretch of steps; a monotonic clock, never used for results) [s]. The
/// pressure share holds the density correction and the pressure solves and applies, the friction
/// share the friction setups, solves and applies, the particles share both transfers, the
/// advection and the shapes; grid: the sparse grid's build, the solids and the warm start.
typedef struct cont_timing {
    double total, grid, pressure, friction, particles;
    uint64_t steps;                                     ///< cont_step calls that did a step
    uint64_t pressure_iterations, friction_iterations;  ///< MPRGP (or PGS) iterations, summed
    uint64_t density_iterations;
    uint64_t density_warm;                              ///< steps whose correction kept its warm start
} cont_timing;

/// The fields over the grid's cells a step uses (all grown together).
typedef struct cont_fields {
    uint32_t cap;               ///< cells each array holds
    cont_grid_mass gm;
    cont_faces u_old, u_star, u_try;
    double *solid;
    double *p, *p_prev;         ///< this step's pressure, and last step's (warm start) mapped here
    double *s;                  ///< [5 cap] friction stress
    double *y;                  ///< the density correction's potential (sec. 2.2.1)
    cont_faces dx;              ///< the density correction's displacement
    uint8_t *dx_near;           ///< cells within one of a nonzero dx (cont_density_reach)
    cont_pressure cp;
    cont_friction cf;
    cont_compact compact;       ///< the pressure, density and friction solves' compact problems
} cont_fields;

typedef struct cont_state {
    gr_solver_env env;
    gr_mem *mem;
    cont_params par;
    /* particles (one per grain) */
    uint32_t n, cap;
    gr_vec3 *x, *v;
    double *m, *vmin, *alpha;  ///< mass, m / rho_max, friction coefficient (eq. 4, 15): from the material
    double *radius;            ///< the grain's radius [m]: its solid volume 4/3 pi r^3 is the particle's
    uint32_t *mat, *slot;      ///< material index, grain table slot
    cont_sym3 *shape;          ///< the ellipsoids (eq. 28)
    gr_vec3 *pts;              ///< [par.points cap] render points: offsets from their particle (cont_points.h)
    double *grad;              ///< [9 cap] velocity gradient at each particle (a step's scratch)
    gr_vec3 *flow;             ///< the grid's velocity at each particle (a step's scratch)
    /* grid: this step's and the last one's (for warm starts) */
    gr_sparse_grid grid, prev;
    double *prev_p;            ///< pressure on prev's cells
    double *prev_s;            ///< [5 prev cells] friction stress on prev's cells
    double *prev_y;            ///< the density correction's potential on prev's cells (0 without it)
    uint32_t prev_cap;
    cont_fields f;
    gr_qp_workspace qp;
    /* split and merge (sec. 3.1, cont_regrain.h): the last plan, its scratch, the counts so far */
    uint32_t plan_cap;         ///< particles the plan arrays hold
    uint32_t *plan_split;      ///< [plan_cap] particles to split
    uint32_t *plan_pairs;      ///< [plan_cap] merge pairs (kept, gone), two entries each
    uint32_t *plan_slots;      ///< [plan_cap] the world's slots for the split children
    uint32_t *plan_removed;    ///< [plan_cap] the slots of the merged-away particles
    uint8_t *plan_mark;        ///< [plan_cap] what the plan does with each particle
    uint32_t plan_splits, plan_merges;
    uint64_t splits, merges;   ///< so far (saved with the particles)
    cont_bodies bodies;        ///< the bodies in this step's grid (cont_bodies.h)
    cont_contacts contacts;    ///< this step's body-body contacts (cont_contact.h)
    gr_vec3 *imp;              ///< [2 imp_cap] the bodies' impulses over a world step, by body slot
    uint32_t imp_cap;
    cont_stats stats;
    cont_timing timing;
} cont_state;

#endif /* GR_CONTINUUM_CONT_INTERNAL_H */
