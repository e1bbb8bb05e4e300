/* SPDX-License-Identifier: MIT */
/* The pressure solve (Narain et al. sec. 2.2, eq. 6-13 with the materials' form 30-31 and the
 * solids' 24-27): the volume fraction may not exceed what solids leave free,
 * phi^{n+1} + phi_s <= 1, and pressure only holds it there (p >= 0, p (1 - phi_s - phi^{n+1}) = 0),
 * a linear complementarity problem A1 p + b1 >= 0 with
 *     A1 = dt^2 D1^T W D1,  W = phi (1 - phi_s) / rho on the faces,
 *     b1 = 1 - phi_s - phi^{n+1}|p=0,  phi^{n+1}|p=0 = phi^n - dt D (phi u)     (eq. 7)
 * solved as min 1/2 p^T A1 p + b1^T p, p >= 0 (eq. 12-13). The velocity then changes by
 * -dt (1 - phi_s) / rho D1 p (eq. 5, 27). */
#ifndef GR_CONTINUUM_CONT_PRESSURE_H
#define GR_CONTINUUM_CONT_PRESSURE_H

#include "../qp/qp_box.h"
#include "cont_bodies.h"
#include "cont_compact.h"
#include "cont_transfer.h"

/// What cont_pressure_bound knows of the groups of unfixed cells that touch no fixed cell.
/// Unknown is 0, so that a zeroed cont_pressure never skips the search.
typedef enum cont_sealed { CONT_SEALED_UNKNOWN = 0, CONT_SEALED_NONE, CONT_SEALED_SOME } cont_sealed;

/// One pressure problem over the grid's cells. The caller owns every array (each over cells).
typedef struct cont_pressure {
    const gr_sparse_grid *g;
    double dt;
    cont_faces w;         ///< W on the faces (set by cont_pressure_setup)
    cont_faces inv_rho;   ///< (1 - phi_s) / rho on the faces: the velocity's response to -dt D1 p
    cont_faces scratch;   ///< the matvec's gradient
    double *q, *diag, *lo, *hi;
    /// The bodies coupled into A1 and b1 (cont_bodies.h): set by the caller after
    /// cont_pressure_weights (which leaves it as it is); NULL: none.
    cont_bodies *bodies;
    gr_tasks *tasks;      ///< the matvecs run on these (NULL: in the calling thread)
    /// storage for solves on the unfixed cells (cont_compact.h, cont_pressure_solve); NULL:
    /// matrix-free over every cell
    cont_compact *compact;
    /// Whether a group of unfixed cells touches no fixed cell under the current W and bounds
    /// (cont_pressure_bound's cache; cont_pressure_weights resets it, as does a zeroed struct).
    cont_sealed sealed;
} cont_pressure;

/// Fill W, (1 - phi_s) / rho, b1, the diagonal and the bounds from the grid's masses, velocities
/// u (after gravity) and the cells' solid fractions (NULL: none). Air cells (neither material
/// nor solid) are fixed at p = 0: the free surface.
void cont_pressure_setup(cont_pressure *cp, const cont_grid_mass *m, const cont_faces *u, const double *solid);
/// The part of cont_pressure_setup that does not depend on the velocity: W, (1 - phi_s) / rho,
/// the diagonal and the bounds.
void cont_pressure_weights(cont_pressure *cp, const cont_grid_mass *m, const double *solid);
/// The most cells the pressure moves a face's material in one step to undo over-packing: b1 is
/// kept at or above -CONT_PRESSURE_REACH sum_faces phi_f (the CFL's half cell).
#define CONT_PRESSURE_REACH 0.5
/// The part that does: b1 for the velocity u (over-packing capped as above). The caller adds
/// the bodies' part (cont_bodies_rhs) and then calls cont_pressure_bound; cont_pressure_setup
/// does all but the bodies.
void cont_pressure_rhs(cont_pressure *cp, const cont_grid_mass *m, const cont_faces *u, const double *solid);

/// A group of unfixed cells joined by material that touches no fixed cell has no solution when its
/// b1 sums below 0 (cont_pressure_bound): it keeps at least CONT_PRESSURE_SLACK of its empty
/// volume (sum of max(0, 1 - phi_s - phi)) as the sum, and CONT_PRESSURE_LEAST a cell.
#define CONT_PRESSURE_SLACK 0.1
#define CONT_PRESSURE_LEAST 1e-6
/// Keep the LCP bounded below (after b1 is set; uses cp->scratch): each such group whose b1 sums
/// below that gives up the standing over-packing (min(0, 1 - phi_s - phi)) of its open cells,
/// scaled down until the sum is the target; if that is not enough (sand in the walls' cells),
/// its open cells share the rest. Without it A1's null vector (1 on the group) makes the
/// objective fall without bound: a block packed at 1.3x wall to wall in a container.
/// raised: the bodies whose part cont_bodies_rhs added to b1 (it counts the over-packing next
/// to a free body down already), or NULL.
void cont_pressure_bound(cont_pressure *cp, const cont_grid_mass *m, const double *solid, const cont_bodies *raised);

/// The problem for lib/qp (apply, row, diag, q, bounds) over all cells.
gr_qp_problem cont_pressure_problem(cont_pressure *cp);

/// MPRGP on the problem of cont_pressure_problem from x (the warm start and the answer): on the
/// operator assembled over the unfixed cells (cont_compact.h, the same problem up to rounding)
/// when cp->compact is set and no free body is coupled in, else matrix-free. ws holds cells
/// entries. As gr_qp_mprgp otherwise (the compact solve's stats.objective is the full one's less
/// a constant).
gr_status cont_pressure_solve(cont_pressure *cp, gr_qp_workspace *ws, const gr_qp_settings *settings, double *x,
                              gr_qp_stats *stats);

/// u -= dt (1 - phi_s) / rho D1 p.
void cont_pressure_apply(const cont_pressure *cp, const double *p, const cont_faces *u);

#endif /* GR_CONTINUUM_CONT_PRESSURE_H */
