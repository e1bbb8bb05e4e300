/* SPDX-License-Identifier: MIT */
/* The friction solve (Narain et al. sec. 2.3, eq. 15-20 in the materials' form 32-33): the
 * frictional stress s is the one, among those inside the linearised Drucker-Prager yield
 * surface |s_k| <= alpha p (eq. 15, one bound per stress coefficient), that takes the most
 * kinetic energy out of the flow (the principle of maximal plastic dissipation):
 *     min 1/2 s^T A2 s + b2^T s,   A2 = dt^2 D2^T W D2,   b2 = dt D2^T (phi u),
 * W = phi (1 - phi_s) / rho on the faces as in the pressure solve; the velocity then changes by
 * dt (1 - phi_s) / rho D2 s. Where the bound is slack the strain rate vanishes (the sand is
 * rigid there); where it binds, the sand slides. The unknowns are the five coefficients of
 * cont_stress, one array of cells each, one after the other. */
#ifndef GR_CONTINUUM_CONT_FRICTION_H
#define GR_CONTINUUM_CONT_FRICTION_H

#include "cont_pressure.h"

/// One friction problem; arrays over cells, the QP's vectors over 5 cells.
typedef struct cont_friction {
    const cont_pressure *cp; ///< its grid, dt, W and (1 - phi_s) / rho
    cont_faces scratch;      ///< the matvec's faces
    double *q, *diag, *lo, *hi; ///< [5 cells]
    double eps;              ///< added to the diagonal: A2 is only semi-definite
    /// the trace of the bodies' term in each component's block over its unfixed coefficients
    /// (cont_body_friction.h; 0 without free bodies): a bound of its largest eigenvalue
    double body_trace[5];
    /// storage for the block solves on the unfixed coefficients (cont_compact.h) where no free
    /// body is coupled in; NULL: matrix-free over every cell
    cont_compact *compact;
    /* What a step's rounds share (cont_friction_setup, reused by cont_friction_setup_again):
     * the diagonal, eps and, per component, the coefficients that touch a face with weight (the
     * only ones a bound can leave unfixed) with the alpha of each. Storage from
     * cont_friction_reserve; none (cap 0): every setup and loop over every cell, as without it
     * (the same bits either way). */
    uint32_t cap;       ///< cells reserved
    uint32_t *cand;     ///< [5 cap]: component k's at k cells, in cell order
    double *cand_alpha; ///< [5 cap]: alpha at each (the mean of the edge's four cells on edges)
    uint32_t cand_n[5]; ///< how many each component has
    /// [6 chunk_cap]: the setup's counts by chunk of cells (CONT_BLOCKS_PER_TASK grid blocks):
    /// each component's candidates (then their first index), and the coefficients with weight
    uint32_t *chunk_n;
    uint32_t chunk_cap; ///< chunks reserved
    bool listed;        ///< the last cont_friction_setup listed them
    const double *alpha;       ///< the last cont_friction_setup's alpha and alpha0
    double alpha0;
} cont_friction;

/// Room for grids of `cells` cells for what a step's rounds share. Grows only;
/// GR_ERROR_OUT_OF_MEMORY leaves cf as it was.
gr_status cont_friction_reserve(cont_friction *cf, gr_mem *mem, uint32_t cells);
void cont_friction_free(cont_friction *cf, gr_mem *mem);

/// The five coefficient arrays of a vector of 5 cells.
static inline cont_stress cont_stress_view(double *x, uint32_t cells)
{
    return (cont_stress){x, x + cells, x + 2 * (size_t)cells, x + 3 * (size_t)cells, x + 4 * (size_t)cells};
}

/// b2, the diagonal and the bounds +-alpha p (alpha per cell; NULL: alpha0 everywhere) from the
/// velocity u (the pressure applied) and the faces' packed volumes; on edges p and alpha are the
/// means of the four cells around the edge. Coefficients with no bound or no faces stay 0.
/// b2 and the listed coefficients' bounds run by grid blocks on cp->tasks (the same bits for any
/// worker count); the diagonal and the lists in the calling thread.
void cont_friction_setup(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p,
                         const double *alpha, double alpha0);

/// cont_friction_setup again on the same grid, weights, dt and alpha, for new u and p (the next
/// staggered round): b2 and the bounds (at the listed coefficients) anew, the diagonal, eps and
/// the lists kept where cf is reserved and no free body is coupled in (a free body's diagonal
/// changes with it: a whole cont_friction_setup then); the same bits as cont_friction_setup.
void cont_friction_setup_again(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p);

/// The problem for lib/qp.
gr_qp_problem cont_friction_problem(cont_friction *cf);

/// u += dt (1 - phi_s) / rho D2 s.
void cont_friction_apply(const cont_friction *cf, const double *s, const cont_faces *u);

/* ---- the friction solve by component (sec. 4) ------------------------------------------------
 * The full problem couples the five components through A2 = dt^2 D2^T W D2, which has a large
 * null space (stress fields whose divergence vanishes: 5 coefficients a cell against 3 faces,
 * held only by eps): MPRGP needs hundreds to thousands of matvecs on a resting pile. The seed
 * (sec. 4): "By instead minimizing with respect to one component of s at a time (which amounts
 * to optimizing over orthogonal subspaces in turn), an approximate frictional solution can be
 * found which converges much more rapidly. Because the projections are nevertheless repeated
 * in an outer loop, the correct solution remains the fixed point of the procedure."
 * That is block Gauss-Seidel over the five components k = a, b, xy, yz, xz: with the others
 * fixed, s_k solves the box QP (eq. 20 restricted to one component)
 *     min 1/2 s_k^T A2_kk s_k + c_k^T s_k,   -alpha p <= s_k <= alpha p   (eq. 15),
 *     A2_kk = dt^2 D2_k^T W D2_k + eps I,   c_k = b2_k + dt^2 D2_k^T W (D2 s - D2_k s_k),
 * D2_k the divergence of component k alone (eq. 18-19 / 32-33 split by columns). D2_k is a scaled
 * difference along one direction on each of the 2 (3 for b) face grids the component acts on, so
 * A2_kk is a sum of 2 or 3 one-directional weighted Laplacians: a block matvec costs a fifth (b)
 * to an eighth of a full one, and a block is conditioned like a Laplacian (no other component
 * there to cancel its divergence). Each block solve lowers the objective of eq. 17 (it minimises
 * it over a subspace from the current point); the sweeps converge to the full problem's minimum,
 * fast at first and slowly in the end (the components' coupling). So the staggered loop
 * (sec. 2.5) runs 1-2 sweeps a round: on a settled pile (tests/test_continuum_solves.c) one
 * sweep from the last step's stress comes within 1e-4 of the minimum's objective for a tenth of
 * the full MPRGP's time, and a whole column collapse spends 24x less time in friction. */

/// One face grid a component acts on: its axis, the direction e = sgn * (unit vector `dir`) and
/// the factor k of the component's difference there, (D2_k x) on face f = k / h (x[f] - x[f - e]),
/// whose transpose is (D2_k^T F)[c] = k / h (F[c] - F[c + e]). (cont_friction.c's touch tables
/// in pairs: the touch at offset 0 has factor k, the other, at offset e, -k.)
typedef struct cont_block_axis {
    int8_t axis, dir, sgn;
    double k;
} cont_block_axis;

/// The face grids of components a, b, xy, yz, xz (each face axis at most once a component).
static const cont_block_axis CONT_BLOCK_AXES[5][3] = {
    {{0, 0, 1, CONT_SQRT1_2}, {1, 1, 1, -CONT_SQRT1_2}, {0, 0, 0, 0}},                /* a */
    {{0, 0, 1, CONT_SQRT1_6}, {1, 1, 1, CONT_SQRT1_6}, {2, 2, 1, -2 * CONT_SQRT1_6}}, /* b */
    {{0, 1, -1, -1}, {1, 0, -1, -1}, {0, 0, 0, 0}},                                   /* xy */
    {{1, 2, -1, -1}, {2, 1, -1, -1}, {0, 0, 0, 0}},                                   /* yz */
    {{0, 2, -1, -1}, {2, 0, -1, -1}, {0, 0, 0, 0}},                                   /* xz */
};
static const int CONT_BLOCK_AXIS_COUNT[5] = {2, 3, 2, 2, 2};

/// One component's block of the friction problem (the context of its gr_qp_problem).
typedef struct cont_friction_block {
    cont_friction *cf;
    int component; ///< 0..4: a, b, xy, yz, xz (the order of cont_stress and of the QP's vector)
} cont_friction_block;

/// The box QP over one component, for lib/qp: n = cells, A = A2_kk (apply and row; the apply
/// uses cf->scratch), diag, lo and hi the component's slices of the full problem's, q the
/// caller's (cells entries). ctx is `b`: it must outlive the problem's use.
gr_qp_problem cont_friction_block_problem(cont_friction_block *b, const double *q);

/// A bound of the largest eigenvalue of A2_kk (its largest Gershgorin row sum, 2 max diag - eps
/// over the unfixed coefficients; 0 when all are fixed): MPRGP's step 1.9 / bound needs no
/// Lanczos estimate.
double cont_friction_block_norm_bound(const cont_friction *cf, int component);

/// Block Gauss-Seidel on the friction QP (the problem of cont_friction_setup): `sweeps` times,
/// for k = a, b, xy, yz, xz in turn, s_k <- argmin of the block QP above with the other
/// components at their current values, by MPRGP from s_k's current value (settings->jacobi
/// honoured; settings->alpha_bar replaced by 1.9 / cont_friction_block_norm_bound). Each block
/// stops at ||g^P_k|| <= tol / sqrt 5, tol = max(abs_tol, rel_tol ||b2||) of the full problem,
/// or at settings->max_iter; the sweeps stop early after one that changed nothing (every block
/// already within its tolerance: then ||g^P|| <= tol for the full problem).
/// s (5 cells) is the warm start, projected onto the box first, and the answer (sweeps 0: only
/// projected, and the figures below measured).
/// ws must hold 5 cells entries, as for the full problem: the block solves use the first
/// `cells` of each of its vectors, and the sweeps keep D2 s (3 cells) and the block's linear
/// term (cells) in the rest. Nothing is allocated. Serial and deterministic.
/// total (may be NULL): iterations, matvecs (of blocks, a fifth to an eighth of a full one each;
/// the call's one D2 s and one D2^T W D2 s for the final figures are not counted), cg, expansion,
/// proportioning steps and fallbacks summed over the block solves; gp_norm, objective and
/// tolerance of the full problem at the returned s (from the kept D2 s, no full matvec),
/// converged when gp_norm <= tolerance; alpha_bar 0.
/// Errors: GR_ERROR_NULL_ARGUMENT (cf, ws or s NULL), GR_ERROR_INVALID_ARGUMENT (ws too small);
/// a block solve's error (qp_mprgp.h) is returned as is, s then in the box, the earlier blocks'
/// progress kept.
gr_status cont_friction_solve_blocks(cont_friction *cf, gr_qp_workspace *ws, const gr_qp_settings *settings,
                                     uint32_t sweeps, double *s, gr_qp_stats *total);

#endif /* GR_CONTINUUM_CONT_FRICTION_H */
