/* SPDX-License-Identifier: MIT */
/* Bound-constrained convex quadratic programs, matrix-free:
 *     minimise f(x) = ½ xᵀA x + qᵀx   subject to   lo ≤ x ≤ hi,
 * A symmetric positive semidefinite, applied by the caller's callback. The problem, the
 * settings and statistics the solvers share, and the workspace they run in (reserved once;
 * a solve allocates nothing). The solvers: qp_mprgp.h (the one to use), qp_pgs.h (the
 * reference); the optimality certificate: qp_kkt.h. */
#ifndef GR_QP_QP_BOX_H
#define GR_QP_QP_BOX_H

#include <math.h>

#include "../core/alloc.h"

/// y = A x for the whole vector (n entries each; x and y never alias). May run on worker
/// threads of the caller's own; it must be deterministic for the solves to be.
typedef void (*gr_qp_apply_fn)(void *ctx, const double *x, double *y);
/// (A x)_i, one row: what Gauss-Seidel needs, reading the x the sweep has updated so far.
typedef double (*gr_qp_row_fn)(void *ctx, uint32_t i, const double *x);

/// One problem. Sign convention: the gradient is g = A x + q (a linear complementarity
/// problem w = A p + q, p ≥ 0, p·w = 0 is lo = 0, hi = NULL).
typedef struct gr_qp_problem {
    uint32_t n;           ///< unknowns (0 is a valid, solved problem)
    gr_qp_apply_fn apply; ///< y = A x; required by gr_qp_mprgp and gr_qp_kkt_measure
    gr_qp_row_fn row;     ///< (A x)_i; required by gr_qp_pgs only (NULL otherwise)
    void *ctx;            ///< passed to apply and row
    /// A_ii: finite and > 0 for every variable that is not fixed, where used (gr_qp_pgs, and
    /// gr_qp_mprgp with Jacobi preconditioning); NULL otherwise.
    const double *diag;
    const double *q;  ///< the linear term; NULL = 0
    const double *lo; ///< lower bounds; NULL = none; entries may be -INFINITY
    const double *hi; ///< upper bounds; NULL = none; entries may be +INFINITY; lo == hi fixes a variable
} gr_qp_problem;

/// MPRGP's expansion step, taken when the CG step would leave the box.
typedef enum gr_qp_expansion {
    GR_QP_EXPANSION_DEFAULT = 0, ///< GR_QP_EXPANSION_PROJECTED_CG
    /// Dostál & Schöberl: to the boundary along p, then x ← P(x - ᾱ φ); activates few
    /// constraints a step when the active set is far from the answer's
    GR_QP_EXPANSION_FIXED = 1,
    /// x ← P(x - α_cg p), the CG step projected (Kružík et al. 2020, "Active set expansion
    /// strategies in MPRGP"), kept when f ends below its value at the boundary along p, else
    /// the fixed expansion (one more matvec; stats.expansion_fallbacks counts them)
    GR_QP_EXPANSION_PROJECTED_CG = 2,
    GR_QP_EXPANSION_FORCE_U32 = 0x7fffffff
} gr_qp_expansion;

/// Solver settings. A zeroed struct is valid: each zero field means its default.
typedef struct gr_qp_settings {
    /// Converged when ‖g^P‖₂ ≤ max(abs_tol, rel_tol ‖q‖₂) (g^P: the projected gradient,
    /// qp_kkt.h). Both zero: rel_tol = 1e-6. Give abs_tol when q may be 0 while the bounds
    /// keep x away from 0 (‖q‖ then sets no scale).
    double rel_tol;
    double abs_tol;
    uint32_t max_iter; ///< MPRGP steps / PGS sweeps; 0 = 1000. Reaching it is not an error
    /// MPRGP's proportioning constant Γ > 0: release active constraints when
    /// ‖β‖² > Γ² φ̃ᵀφ (chopped vs. reduced free gradient); 0 = 1.
    double gamma;
    /// MPRGP's expansion step length ᾱ, in (0, 2/‖A‖]; 0 = 1.9 / (1.05 λ), λ the largest
    /// Ritz value of 20 Lanczos steps on A restricted to the unfixed variables (≤ λ_max(A);
    /// the matvecs count in the stats). stats.alpha_bar returns the value used: pass it back
    /// in the next solve of a similar matrix to skip the estimate.
    double alpha_bar;
    bool jacobi;  ///< MPRGP: Jacobi preconditioning in face (needs diag); default off
    /// MPRGP: symmetric Gauss-Seidel preconditioning in face (needs diag and row; one forward
    /// and one backward sweep of rows over the free set per iteration); default off, overrides jacobi
    bool sgs;
    gr_qp_expansion expansion; ///< MPRGP's expansion step
    double omega; ///< PGS relaxation ω in (0, 2); 0 = 1 (plain Gauss-Seidel)
    /// MPRGP: its vector loops (and red-black sweeps) run on these workers when n is large;
    /// the iterates are the same for any worker count. NULL = the calling thread.
    struct gr_tasks *tasks;
    /// MPRGP with sgs: the problem is ordered red-black: rows [0, color_split) are one colour,
    /// [color_split, n) the other, and no row couples to another of its own colour (a 7-point
    /// Laplacian so ordered). Each colour's rows then run in parallel on tasks, the sweeps'
    /// figures unchanged; row(i) must then read only x_i and the other colour's entries, and
    /// may run on several threads at once. 0 = no colours (rows in index order); at most n.
    /// (A setting, not a field of gr_qp_problem, whose callers fill it positionally.)
    uint32_t color_split;
    /// MPRGP with sgs on a gr_qp_ell problem: the sweeps divide by the modified incomplete
    /// Cholesky diagonal of A over the free set (MIC(0), τ = GR_QP_MIC_TAU) instead of A's own
    /// diagonal: the preconditioner the seed of the continuum solver names (Narain et al. 2010
    /// sec. 4). Factored at the start and after each proportioning step, the steps that free
    /// variables (CG and expansion steps only bind them; the sweeps stay SPD with pivots of a
    /// larger free set). Needs the workspace's MIC vectors (gr_qp_workspace_reserve_mic) for n
    /// entries. Default off.
    bool mic;
} gr_qp_settings;

/// MIC(0)'s modification: the share of the dropped fill moved onto the diagonal (Bridson's 0.97);
/// a pivot below GR_QP_MIC_SAFE of the row's diagonal falls back to the diagonal.
#define GR_QP_MIC_TAU 0.97
#define GR_QP_MIC_SAFE 0.25

/// What a solve did. iterations = cg_steps + expansion_steps + proportioning_steps for MPRGP,
/// sweeps for PGS.
typedef struct gr_qp_stats {
    uint32_t iterations;
    uint32_t matvecs; ///< calls of apply (PGS without apply: full gradients from rows)
    uint32_t cg_steps;
    uint32_t expansion_steps;
    uint32_t proportioning_steps;
    uint32_t expansion_fallbacks; ///< projected CG expansions refused (f rose): fixed ones taken instead
    bool converged;     ///< ‖g^P‖ ≤ tolerance at the returned x
    double gp_norm;     ///< ‖g^P‖₂ at the returned x, of g = A x + q from apply (not a recurrence)
    double tolerance;   ///< the threshold used: max(abs_tol, rel_tol ‖q‖)
    double objective;   ///< f(x) at the returned x
    double alpha_bar;   ///< MPRGP: the ᾱ used (estimated or given); 0 if none was needed
} gr_qp_stats;

/// MPRGP sums its passes over chunks of at least GR_QP_CHUNK entries, GR_QP_CHUNK_SUMS sums a
/// chunk, and the workspace keeps room for them.
#define GR_QP_CHUNK 1024u
#define GR_QP_CHUNK_SUMS 5u

/// Scratch vectors of a solve, reserved once. A zeroed struct is an empty workspace.
typedef struct gr_qp_workspace {
    double *block; ///< all vectors, one allocation
    uint32_t cap;  ///< entries per vector (a multiple of 8: each vector is 64-byte aligned)
    /// the input's copy (restored on error), gradient, direction, A p, two scratch vectors (v
    /// also holds MPRGP's symmetric Gauss-Seidel forward sweep: n entries)
    double *x0, *g, *p, *ap, *w, *v;
    /// MPRGP's per-chunk sums of a pass (qp_mprgp.c): GR_QP_CHUNK_SUMS for each GR_QP_CHUNK
    /// entries of cap (here, not on the stack: a solve may run on a host's small job stack)
    double *sums;
    /// MIC(0)'s pivots and the rows' upper sums they are computed from (settings.mic), mic_cap
    /// entries each, in an allocation of their own (mic_upper = mic + mic_cap): reserved only by
    /// gr_qp_workspace_reserve_mic, so a workspace whose solves use no MIC does not carry them
    /// (16 B an entry). 0 / NULL = none.
    double *mic, *mic_upper;
    uint32_t mic_cap;
} gr_qp_workspace;

/// The default settings (what zeroed fields resolve to).
gr_qp_settings gr_qp_settings_default(void);

/// Make ws hold vectors of n entries. Grows only: a smaller n keeps the current vectors.
/// GR_ERROR_OUT_OF_MEMORY leaves ws as it was.
gr_status gr_qp_workspace_reserve(gr_qp_workspace *ws, gr_mem *mem, uint32_t n);
/// Make ws hold MIC(0)'s two vectors (settings.mic) for n entries, as gr_qp_workspace_reserve
/// (grows only; GR_ERROR_OUT_OF_MEMORY leaves ws as it was). Only a workspace whose MPRGP solves
/// use settings.mic needs them; the other vectors are gr_qp_workspace_reserve's.
gr_status gr_qp_workspace_reserve_mic(gr_qp_workspace *ws, gr_mem *mem, uint32_t n);
/// Release ws's vectors, the MIC ones too (to the allocator that reserved them); ws is empty again.
void gr_qp_workspace_free(gr_qp_workspace *ws, gr_mem *mem);

/// The checks and defaults every solver applies before it touches x: pointers, bounds
/// (lo ≤ hi, no lo = +inf or hi = -inf, no NaN), finite q and x, diag where need_diag, the
/// workspace's size, settings in range. Fills *out with the resolved settings.
gr_status gr_qp_check_input(const gr_qp_problem *prob, const gr_qp_settings *settings, const gr_qp_workspace *ws,
                            const double *x, bool need_diag, gr_qp_settings *out);

/* ---- per-variable helpers shared by the solvers and the certificate ---- */

/// Lower / upper bound of variable i (±INFINITY where the problem has none).
static inline double gr_qp_lo(const gr_qp_problem *p, uint32_t i) { return p->lo ? p->lo[i] : -INFINITY; }
static inline double gr_qp_hi(const gr_qp_problem *p, uint32_t i) { return p->hi ? p->hi[i] : INFINITY; }

static inline double gr_qp_clamp(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// The projected gradient's component: g where x is free; at a bound only a g whose descent
/// direction -g points into the box; 0 for a fixed variable.
static inline double gr_qp_gp_component(double x, double g, double lo, double hi)
{
    if (lo == hi)
        return 0.0;
    if (x <= lo)
        return g < 0.0 ? g : 0.0;
    if (x >= hi)
        return g > 0.0 ? g : 0.0;
    return g;
}

#endif /* GR_QP_QP_BOX_H */
