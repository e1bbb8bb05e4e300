/* SPDX-License-Identifier: MIT */
/* Particles to grid and back (Narain et al. sec. 3, FLIP after Brackbill & Ruppel, Zhu &
 * Bridson): each particle is a point mass split among its 8 nearest nodes of each staggered
 * grid by trilinear weights; the grid's velocity change goes back to the particles (FLIP) with
 * a PIC fraction of the grid's velocity itself, and the particles move through the grid's
 * velocity field (forward Euler: forces act at the step's start, sec. 4). */
#ifndef GR_CONTINUUM_CONT_TRANSFER_H
#define GR_CONTINUUM_CONT_TRANSFER_H

#include "cont_ops.h"

/// The particles as the transfers read them (arrays of n).
typedef struct cont_particle_view {
    uint32_t n;
    const gr_vec3 *x;
    gr_vec3 *v;
    const double *m;    ///< mass [kg]
    const double *vmin; ///< the volume the mass fills at the critical density, m / rho_max [m^3]
    const double *alpha; ///< friction coefficient (eq. 4, 15); NULL: not splatted
} cont_particle_view;

/// What the particles give the grid. Faces: mass and packed volume by the faces' weights, the
/// mass-weighted velocity; centres: the volume fraction phi (eq. 6, 30: accumulated from vmin).
typedef struct cont_grid_mass {
    cont_faces mass;  ///< sum of m w [kg]
    cont_faces vol;   ///< sum of vmin w [m^3]
    cont_faces u;     ///< velocity [m/s] (0 where no mass)
    double *phi;      ///< sum of vmin w / h^3 at centres
    double *alpha;    ///< the particles' friction coefficient at centres, by packed volume (when splatted)
} cont_grid_mass;

/// Particles to grid. `g` was built over the particles' positions with a halo of at least 1
/// (every particle's point_cell valid or the particle rejected: rejected ones are skipped) and
/// sorted (gr_sparse_grid_sort_points). The arrays are over the grid's cells; they are
/// overwritten. The sums run in 2 passes over slabs of blocks (the blocks with one coordinate
/// along an axis; the even slabs, then the odd: slabs two apart touch no cell in common), a
/// slab's blocks in the grid's order, within a block cell by cell, within a cell in particle
/// order: a cell's sums in one order for any worker count, so the same bits.
void cont_particles_to_grid(const gr_sparse_grid *g, const cont_particle_view *p, const cont_grid_mass *out);

/// Particles a parallel job's range takes at a time; fewer particles than this run serially.
#define CONT_PARTICLES_PER_TASK 1024u

/// cont_particles_to_grid on `tasks` (NULL: in the calling thread); a pass's slabs in parallel.
void cont_particles_to_grid_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_particle_view *p,
                               const cont_grid_mass *out);

/// Grid to particles: v <- (1 - pic) (v + I[u - u_old]) + pic I[u] (FLIP with a PIC fraction).
/// Optional outputs per particle: grad (9 doubles, row-major d v_a / d x_b) the velocity gradient
/// of the new field for the particle's shape (eq. 28), flow the new field's velocity I[u] that
/// moves the particle. Particles without a cell get neither (grad zero, flow their v). `g` built
/// as for cont_particles_to_grid (the particles go in index order: no sort needed).
void cont_grid_to_particles(const gr_sparse_grid *g, const cont_particle_view *p, const cont_faces *u,
                            const cont_faces *u_old, double pic, double *grad, gr_vec3 *flow);

/// cont_grid_to_particles on `tasks` (NULL: in the calling thread), ranges of particles in
/// parallel: each particle's result is its own, the same for any worker count.
void cont_grid_to_particles_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_particle_view *p,
                               const cont_faces *u, const cont_faces *u_old, double pic, double *grad, gr_vec3 *flow);

/// The grid's velocity at x (trilinear on each face grid); x must lie in an active cell whose
/// halo of 1 is active (false otherwise, v zero).
bool cont_velocity_at(const gr_sparse_grid *g, const cont_faces *u, gr_vec3 x, gr_vec3 *v);

#endif /* GR_CONTINUUM_CONT_TRANSFER_H */
