/* SPDX-License-Identifier: MIT */
/* MPRGP for the box, step by step as in docs/ (Dostál & Schöberl 2005). At a feasible x with
 * g = A x + q, on the free set F = {lo < x < hi}:
 *   φ   free gradient (g on F, 0 elsewhere); z = φ, or M⁻¹ φ preconditioned in face (M the
 *       diagonal of A_FF with Jacobi, its symmetric Gauss-Seidel splitting with sgs);
 *   β   chopped gradient (at a bound, the part of g that would move x into the box);
 *   φ̃   reduced free gradient: φ limited to what a step of ᾱ can take before a bound.
 * x is proportional when ‖β‖² ≤ Γ² φ̃ᵀφ; then a CG step along p, or, if the CG step would
 * leave the box, an expansion (the CG step projected onto the box, or to the boundary and
 * x ← P(x - ᾱ φ): qp_box.h, gr_qp_expansion); otherwise a proportioning step along β.
 *
 * The vector loops run over fixed chunks of the index range (their size set by n alone), on
 * settings.tasks when n is large: each chunk sums its own entries in index order and the
 * chunk sums are added in chunk order, so the iterates are the same for any worker count,
 * the calling thread's included. Loops over the same entries are fused (step, gradient update
 * and measure in one pass) to cut passes over memory and dispatches. The Gauss-Seidel sweeps
 * run in index order, or, with settings.color_split, colour by colour with each colour's rows in
 * parallel (the same sweep: a row reads only rows of the other colour). */
#include "qp_mprgp.h"

#include "../core/rng.h"
#include "../core/tasks.h"
#include "qp_ell.h"
#include "qp_kkt.h"

#define LANCZOS_STEPS 20u
/* Entries a chunk (n > MP_CHUNK · MP_MAX_CHUNKS: more, a multiple of 8); at most MP_MAX_CHUNKS
 * chunks, whose sums the workspace holds (ws->sums). 1024 doubles: 8 KB a vector, ~1 µs a pass. */
#define MP_CHUNK GR_QP_CHUNK
#define MP_MAX_CHUNKS 512u
/* Fewer entries run in the calling thread: a pass then takes about what a dispatch costs. */
#define MP_PARALLEL_MIN 4096u
/* A colour's sweep runs on the pool from fewer rows: a row costs several entries' passes. */
#define MP_SWEEP_PARALLEL_MIN 1024u
#define MP_SUMS GR_QP_CHUNK_SUMS

typedef struct mp {
    const gr_qp_problem *prob;
    uint32_t n;
    const double *lo, *hi; /* NULL = unbounded */
    const double *q;       /* NULL = 0 */
    const double *jacobi;  /* diag when Jacobi preconditioning is on, else NULL */
    double *sgs;           /* scratch when symmetric Gauss-Seidel preconditioning is on, else NULL */
    double inv_abar;       /* 1 / ᾱ */
    double tol2;           /* the tolerance squared: a point within it needs no preconditioned z */
    gr_tasks *tasks;       /* NULL: every loop in the calling thread */
    uint32_t chunk, chunks;
    uint32_t split;        /* settings.color_split with sgs, else 0 */
    const gr_qp_ell *ell;  /* the matrix when the problem's row is gr_qp_ell_row (its ctx), else NULL */
    bool ell_apply;        /* and its apply is gr_qp_ell_apply: the matvec may be fused into a pass */
    int bounds;            /* BOUNDS_*: which kernels' variants fit the bounds (k_start finds it) */
    bool y_zero;           /* sgs's scratch is all 0 (the fused sweeps leave it so): no clearing */
    double (*part)[MP_SUMS]; /* the chunks' sums of the last pass (ws->sums: chunks <= cap / MP_CHUNK, rounded up) */
    double *mic, *mic_upper; /* settings.mic on an ELL matrix: the sweeps' pivots (else NULL) */
    bool mic_stale;          /* the free set may have changed since the pivots were computed */
} mp;

/* The figures of one point, all from one pass over x and g. */
typedef struct mp_measure {
    double gp2;     /* ‖g^P‖² = ‖φ‖² + ‖β‖² */
    double beta2;   /* ‖β‖² */
    double phitphi; /* φ̃ᵀφ */
    double poison;  /* 0 unless some g_i is not finite (g_i · 0) */
    double zad;     /* zᵀ(A d), when asked for (CG's β) */
} mp_measure;

/* A step of x (and of g by the recurrence) along -d, fused into the measure's pass. */
typedef enum mp_step { STEP_NONE, STEP_INSIDE, STEP_TO_BOUNDARY } mp_step;

/* The bounds as the kernels' variants see them: BOUNDS_ANY the general loop (NULL lo, fixed
 * variables); with no variable fixed (lo < hi everywhere), BOUNDS_LO: lo given, hi NULL (+inf, a
 * constant), BOUNDS_BOX: both given. The variants compute each entry's figures by the same
 * operations, without branches, and add them in the same order: the same sums to the bit. */
enum { BOUNDS_ANY, BOUNDS_LO, BOUNDS_BOX };

/* What one pass reads and writes; each kernel names the fields it uses. */
typedef struct mp_job {
    mp *m;
    uint32_t base; /* the kernel's [begin, end) is relative to this row */
    mp_step step;
    bool add_q;
    int sum; /* gradq: 0 none, 1 the objective's xᵀ(g + q), 2 ‖g^P‖² */
    double a, b;
    double *x, *g, *z, *p, *v, *w;
    const double *d, *ad, *dot;
    double *y; /* k_measure_sweep: the forward sweep's output (0 on entry) */
} mp_job;

static inline double lo_of(const mp *m, uint32_t i) { return m->lo ? m->lo[i] : -INFINITY; }
static inline double hi_of(const mp *m, uint32_t i) { return m->hi ? m->hi[i] : INFINITY; }
static inline bool is_free(const mp *m, const double *x, uint32_t i) { return lo_of(m, i) < x[i] && x[i] < hi_of(m, i); }

/* The chunk whose sums a kernel call writes (calls cover one chunk each). */
static inline double *part_of(const mp_job *j, uint32_t begin) { return j->m->part[begin / j->m->chunk]; }

/* The ELL matrix's rows may be made in MPRGP's passes (widths 4 and 6: two and three face grids;
 * others apply first). */
static bool ell_fused(const mp *m) { return m->ell_apply && (m->ell->width == 4 || m->ell->width == 6); }

/* Run fn over rows [base, base + count) in chunks: on the pool when it is worth a dispatch,
 * else here. Which thread runs a chunk changes nothing it computes. */
static void run_from(mp_job *j, gr_range_fn *fn, uint32_t base, uint32_t count, uint32_t parallel_min)
{
    mp *m = j->m;
    j->base = base;
    if (m->tasks && count >= parallel_min) {
        gr_parallel_for_affine(m->tasks, count, m->chunk, fn, j);
        return;
    }
    for (uint64_t b = 0; b < count; b += m->chunk)
        fn(j, (uint32_t)b, (uint32_t)GR_MIN((uint64_t)count, b + m->chunk), 0);
}

static void run(mp_job *j, gr_range_fn *fn, uint32_t base, uint32_t count) { run_from(j, fn, base, count, MP_PARALLEL_MIN); }

/* The chunks' sums k of the last pass over all n rows, in chunk order. */
static double total(const mp *m, int k)
{
    double s = 0.0;
    for (uint32_t c = 0; c < m->chunks; c++)
        s += m->part[c][k];
    return s;
}

static void k_dot(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    double s = 0.0;
    for (uint32_t i = b; i < e; i++)
        s += j->d[i] * j->ad[i];
    part_of(j, b)[0] = s;
}

static double dot(mp *m, const double *a, const double *b)
{
    mp_job j = {.m = m, .d = a, .ad = b};
    run(&j, k_dot, 0, m->n);
    return total(m, 0);
}

/* g += q where q is given; sums xᵀ(g + q) (sum 1: 2f) or ‖g^P‖² (sum 2) of the result. */
static GR_FORCE_INLINE void gradq_rows(const mp_job *j, uint32_t b, uint32_t e, const int sum, const uint32_t W)
{
    const mp *m = j->m;
    double *const g = j->g, s = 0.0;
    const double *const x = j->x, *const q = m->q;
    const bool add_q = j->add_q;
    for (uint32_t i = b; i < e; i++) {
        if (W) /* (g = A x made here, row by row: k_apply_gradq) */
            g[i] = gr_qp_ell_row_w(m->ell, i, x, W);
        if (add_q)
            g[i] += q[i];
        if (sum == 1)
            s += x[i] * (g[i] + (q ? q[i] : 0.0));
        else if (sum == 2) {
            const double gp = gr_qp_gp_component(x[i], g[i], lo_of(m, i), hi_of(m, i));
            s += gp * gp;
        }
    }
    part_of(j, b)[0] = s;
}

static void k_gradq(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    j->sum == 1 ? gradq_rows(j, b, e, 1, 0) : j->sum == 2 ? gradq_rows(j, b, e, 2, 0) : gradq_rows(j, b, e, 0, 0);
}

static GR_FORCE_INLINE void apply_gradq_w(const mp_job *j, uint32_t b, uint32_t e, const uint32_t W)
{
    j->sum == 1 ? gradq_rows(j, b, e, 1, W) : j->sum == 2 ? gradq_rows(j, b, e, 2, W) : gradq_rows(j, b, e, 0, W);
}

/* k_gradq after g = A x from the ELL matrix, in one pass. */
static void k_apply_gradq(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    j->m->ell->width == 4 ? apply_gradq_w(j, b, e, 4) : apply_gradq_w(j, b, e, 6);
}

/* g = A x + q (apply may run on the caller's threads); returns the asked sum (k_gradq). */
static double gradient_sum(mp *m, const double *x, double *g, bool apply, int sum)
{
    mp_job j = {.m = m, .add_q = apply && m->q, .sum = sum, .x = (double *)x, .g = g};
    if (apply && ell_fused(m)) { /* (a row costs several entries' pass: the matvec's threshold) */
        run_from(&j, k_apply_gradq, 0, m->n, GR_QP_ELL_ROWS_PER_TASK);
        return total(m, 0);
    }
    if (apply)
        m->prob->apply(m->prob->ctx, x, g);
    if (!m->q && sum == 0)
        return 0.0;
    run(&j, k_gradq, 0, m->n);
    return total(m, 0);
}

/* f = ½ xᵀA x + qᵀx = ½ xᵀ(g + q) */
static double objective(mp *m, const double *x, double *g) { return 0.5 * gradient_sum(m, x, g, false, 1); }

/* Symmetric Gauss-Seidel rows of one colour (settings.color_split): every row reads only rows of
 * the other colour and itself, so the rows of a colour are independent. Colour 0 forward and
 * colour 1 backward read only unswept rows (0): their sums are 0, their rows are not called. */
enum { SGS_FWD0, SGS_FWD1, SGS_BWD1, SGS_BWD0 };
typedef struct sgs_job {
    mp_job j;
    int phase;
    double *y, *z, *also;
} sgs_job;

/* The off-diagonal part of row i of an ELL matrix of width W times x (a constant W per call
 * site: the compiler unrolls the slots). The sweeps need no diagonal term: the row's own entry
 * is still 0 when it is swept. */
static inline double ell_off(const gr_qp_ell *a, uint32_t i, const double *x, const uint32_t W)
{
    const uint32_t *c = a->col + (size_t)i * W;
    const double *v = a->val + (size_t)i * W;
    double s = 0.0;
    for (uint32_t j = 0; j < W; j++)
        s += v[j] * x[c[j]];
    return s;
}

/* Rows [r0, r1) of a sweep through an ELL matrix, forward (y_i = (z_i - L_i y) / d_i) or
 * backward (z_i = y_i - U_i z / d_i, also_i = z_i), on the free rows; 0 elsewhere. The swept
 * vector's unswept entries are 0, as with the row callback. */
static inline void ell_sweep(const mp *m, const double *x, double *y, double *z, double *also, uint32_t r0, uint32_t r1,
                             bool forward, const uint32_t W)
{
    const gr_qp_ell *a = m->ell;
    const double *lo = m->lo, *hi = m->hi, *d = m->mic ? m->mic : a->diag;
    if (forward)
        for (uint32_t i = r0; i < r1; i++) {
            const bool f = (!lo || lo[i] < x[i]) && (!hi || x[i] < hi[i]);
            y[i] = 0.0; /* (an unused slot reads it: by colour it may hold the last sweep's) */
            y[i] = f ? (z[i] - ell_off(a, i, y, W)) / d[i] : 0.0;
        }
    else
        for (uint32_t i = r1; i-- > r0;) {
            const bool f = (!lo || lo[i] < x[i]) && (!hi || x[i] < hi[i]);
            z[i] = 0.0;
            z[i] = f ? y[i] - ell_off(a, i, z, W) / d[i] : 0.0;
            if (also)
                also[i] = z[i];
        }
}

/* The backward sweep after measure_rows' forward one (all n rows; z's unswept entries are 0, as
 * the pass left them): ell_sweep's, and y_i cleared once read, so that the next forward sweep
 * finds y all 0. The free test as ell_sweep's for the bounds' kind. */
static GR_FORCE_INLINE void ell_backward(const mp *m, const double *x, double *y, double *z, double *also,
                                         const int bounds, const uint32_t W)
{
    const gr_qp_ell *a = m->ell;
    const double *lo = m->lo, *hi = m->hi, *d = m->mic ? m->mic : a->diag;
    for (uint32_t i = m->n; i-- > 0;) {
        const bool f = bounds == BOUNDS_ANY ? (!lo || lo[i] < x[i]) && (!hi || x[i] < hi[i])
                                            : lo[i] < x[i] && (bounds == BOUNDS_LO || x[i] < hi[i]);
        z[i] = f ? y[i] - ell_off(a, i, z, W) / d[i] : 0.0;
        y[i] = 0.0;
        if (also)
            also[i] = z[i];
    }
}

static void ell_backward_any(const mp *m, const double *x, double *y, double *z, double *also)
{
    const int bounds = m->bounds;
    if (m->ell->width == 4)
        bounds == BOUNDS_LO    ? ell_backward(m, x, y, z, also, BOUNDS_LO, 4)
        : bounds == BOUNDS_BOX ? ell_backward(m, x, y, z, also, BOUNDS_BOX, 4)
                               : ell_backward(m, x, y, z, also, BOUNDS_ANY, 4);
    else
        bounds == BOUNDS_LO    ? ell_backward(m, x, y, z, also, BOUNDS_LO, 6)
        : bounds == BOUNDS_BOX ? ell_backward(m, x, y, z, also, BOUNDS_BOX, 6)
                               : ell_backward(m, x, y, z, also, BOUNDS_ANY, 6);
}

/* ell_sweep with the width a constant (4: two face grids, 6: three). */
static void ell_sweep_any(const mp *m, const double *x, double *y, double *z, double *also, uint32_t r0, uint32_t r1,
                          bool forward)
{
    switch (m->ell->width) {
    case 4:
        ell_sweep(m, x, y, z, also, r0, r1, forward, 4);
        break;
    case 6:
        ell_sweep(m, x, y, z, also, r0, r1, forward, 6);
        break;
    default:
        ell_sweep(m, x, y, z, also, r0, r1, forward, m->ell->width);
        break;
    }
}

static void k_sgs(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const sgs_job *s = (const sgs_job *)ctx;
    const mp *m = s->j.m;
    if (m->ell && (s->phase == SGS_FWD1 || s->phase == SGS_BWD0)) {
        /* (the colour's rows in any order: each reads only the other colour's) */
        ell_sweep_any(m, s->j.x, s->y, s->z, s->also, s->j.base + b, s->j.base + e, s->phase == SGS_FWD1);
        return;
    }
    const gr_qp_problem *pr = m->prob;
    const double *x = s->j.x;
    double *y = s->y, *z = s->z;
    /* (colour 0's rows divide by their diagonals with MIC(0) too: no row before them couples
     * to them, so their pivots are their diagonals) */
    for (uint32_t i = s->j.base + b; i < s->j.base + e; i++) {
        const bool f = is_free(m, x, i);
        switch (s->phase) {
        case SGS_FWD0:
            y[i] = f ? z[i] / pr->diag[i] : 0.0;
            break;
        case SGS_FWD1:
            y[i] = 0.0;
            if (f)
                y[i] = (z[i] - pr->row(pr->ctx, i, y)) / pr->diag[i];
            break;
        case SGS_BWD1:
            z[i] = f ? y[i] : 0.0;
            break;
        default:
            z[i] = 0.0;
            if (f)
                z[i] = y[i] - pr->row(pr->ctx, i, z) / pr->diag[i];
            break;
        }
        if (s->also && s->phase >= SGS_BWD1)
            s->also[i] = z[i];
    }
}

/* MIC(0) over the free set F of an ELL matrix, in index order: M = (E + L) E⁻¹ (E + U) with
 *   E_i = A_ii - Σ_{j<i, j∈F} (A_ij² + τ A_ij (S_j - A_ij)) / E_j,   S_j = Σ_{k>j, k∈F} A_jk,
 * the incomplete Cholesky pivot less τ of the fill it drops (row sums kept, the "modified" of
 * MIC: Bridson's fluid notes). E_i below GR_QP_MIC_SAFE A_ii falls back to A_ii, so M stays SPD
 * whatever the matrix; the sweeps are SGS's with E for D. E of a fixed row is never read. */
static void mic_factor(mp *m, const double *x)
{
    const gr_qp_ell *a = m->ell;
    const uint32_t W = a->width, n = m->n;
    double *const e = m->mic, *const up = m->mic_upper;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *c = a->col + (size_t)i * W;
        const double *v = a->val + (size_t)i * W;
        double ei = a->diag[i], si = 0.0;
        if (is_free(m, x, i)) {
            for (uint32_t k = 0; k < W; k++) {
                const uint32_t j = c[k];
                if (j == i || v[k] == 0.0 || !is_free(m, x, j))
                    continue;
                if (j > i)
                    si += v[k];
                else
                    ei -= (v[k] * v[k] + GR_QP_MIC_TAU * v[k] * (up[j] - v[k])) / e[j];
            }
            if (!(ei >= GR_QP_MIC_SAFE * a->diag[i]))
                ei = a->diag[i];
        }
        e[i] = ei;
        up[i] = si;
    }
    m->mic_stale = false;
}

/* z ← M⁻¹ z on the free set, M = (D + L) D⁻¹ (D + U) the symmetric Gauss-Seidel splitting of
 * A restricted to the free variables (SPD when A is and D > 0): a forward sweep into the
 * scratch y, then a backward one into z (and into `also` if given). Rows read only the entries
 * already swept (the others are 0), so a row callback's (A v)_i is the sum over the swept
 * neighbours. In index order, or colour by colour: the same sums either way. */
static void sgs_in_face(mp *m, const double *x, double *z, double *also)
{
    const gr_qp_problem *pr = m->prob;
    double *y = m->sgs;
    const uint32_t n = m->n, split = m->split;
    if (m->mic && m->mic_stale)
        mic_factor(m, x);
    if (split) {
        sgs_job s = {.j = {.m = m, .x = (double *)x}, .y = y, .z = z, .also = also};
        static const int phases[4] = {SGS_FWD0, SGS_FWD1, SGS_BWD1, SGS_BWD0};
        for (int k = 0; k < 4; k++) {
            s.phase = phases[k];
            const bool first = s.phase == SGS_FWD0 || s.phase == SGS_BWD0;
            run_from(&s.j, k_sgs, first ? 0 : split, first ? split : n - split, MP_SWEEP_PARALLEL_MIN);
        }
        return;
    }
    memset(y, 0, sizeof(double) * n);
    if (m->ell) {
        ell_sweep_any(m, x, y, z, NULL, 0, n, true);
        memset(z, 0, sizeof(double) * n);
        ell_sweep_any(m, x, y, z, also, 0, n, false);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        if (is_free(m, x, i))
            y[i] = (z[i] - pr->row(pr->ctx, i, y)) / pr->diag[i];
    memset(z, 0, sizeof(double) * n);
    for (uint32_t i = n; i-- > 0;)
        if (is_free(m, x, i))
            z[i] = y[i] - pr->row(pr->ctx, i, z) / pr->diag[i];
    if (also)
        memcpy(also, z, sizeof(double) * n);
}

/* One pass: the step (x ← x - a d, g ← g - a (A d)), q added to g, then the measures of the new
 * (x, g); z = the free gradient (also into p), zᵀ dot. `step` and `bounds` are constants in each
 * variant (k_measure): BOUNDS_ANY is the general loop; the others the same figures branch-free
 * (a sum of squares never holds -0, so adding a +0 where the general loop adds nothing leaves it
 * as it is, bit for bit). W > 0 (k_measure_sweep; rows in index order): row i's symmetric
 * Gauss-Seidel forward sweep too, y_i = (z_i - L_i y) / d_i on the free rows, as ell_sweep does
 * it after the pass (it reads z_i, x_i and the rows before i only); z is then left 0. */
static GR_FORCE_INLINE void measure_rows(const mp_job *j, uint32_t b, uint32_t e, const mp_step step, const int bounds,
                                         const uint32_t W)
{
    const mp *m = j->m;
    /* (locals: the stores through x, g, z may alias the job's fields as far as C knows) */
    /* (with the sweep, sgs: no Jacobi, and z's copy and dot come after the sweeps; q is added
     * only to a gradient from apply, with no step) */
    double *const x = j->x, *const g = j->g, *const z = j->z, *const p = W ? NULL : j->p;
    const double *const d = j->d, *const ad = j->ad, *const dot = W ? NULL : j->dot;
    const double *const q = step == STEP_INSIDE || !j->add_q ? NULL : m->q;
    const double *const lop = m->lo, *const hip = m->hi, *const jac = W ? NULL : m->jacobi;
    const double a = j->a, inv_abar = m->inv_abar;
    const double *const pivot = W ? (m->mic ? m->mic : m->ell->diag) : NULL; /* (the sweep's) */
    double gp2 = 0, beta2 = 0, phitphi = 0, poison = 0, zad = 0;
    for (uint32_t i = b; i < e; i++) {
        const double lo = bounds == BOUNDS_ANY ? (lop ? lop[i] : -INFINITY) : lop[i];
        const double hi = bounds == BOUNDS_BOX || (bounds == BOUNDS_ANY && hip) ? hip[i] : INFINITY;
        if (step != STEP_NONE) {
            const double di = d[i]; /* (read before z is written: d may be z) */
            if (step == STEP_INSIDE)
                x[i] = gr_qp_clamp(x[i] - a * di, lo, hi);
            else if (di > 0) /* to the boundary: a bound reached within a is landed on exactly */
                x[i] = (x[i] - lo) / di <= a ? lo : GR_MAX(x[i] - a * di, lo);
            else if (di < 0)
                x[i] = (x[i] - hi) / di <= a ? hi : GR_MIN(x[i] - a * di, hi);
            g[i] += -a * ad[i];
        }
        if (q)
            g[i] += q[i];
        const double gi = g[i], xi = x[i];
        double zi = 0.0;
        poison += gi * 0.0;
        if (bounds == BOUNDS_ANY) {
            if (lo == hi) {
            } else if (xi <= lo || xi >= hi) {
                const double bt = xi <= lo ? GR_MIN(gi, 0.0) : GR_MAX(gi, 0.0);
                beta2 += bt * bt;
            } else {
                /* free: how far a step of ᾱ along -φ can go before the bound it heads for */
                const double room = gi > 0 ? (xi - lo) * inv_abar : (xi - hi) * inv_abar;
                const double reduced = gi > 0 ? GR_MIN(room, gi) : GR_MAX(room, gi);
                phitphi += reduced * gi;
                gp2 += gi * gi;
                zi = jac ? gi / jac[i] : gi;
            }
        } else { /* (β_i² is g_i² or 0·0: GR_MIN(g, 0) is g when g < 0, else 0, NaN too) */
            const bool at_lo = xi <= lo, at_hi = xi >= hi, free = !(at_lo || at_hi);
            const bool chopped = at_lo ? gi < 0 : at_hi && gi > 0;
            const double gg = gi * gi;
            const double room = (xi - (gi > 0 ? lo : hi)) * inv_abar;
            const double reduced = gi > 0 ? GR_MIN(room, gi) : GR_MAX(room, gi);
            beta2 += chopped ? gg : 0.0;
            phitphi += free ? reduced * gi : 0.0;
            gp2 += free ? gg : 0.0;
            zi = free ? (jac ? gi / jac[i] : gi) : 0.0;
        }
        z[i] = W ? 0.0 : zi; /* (with the sweep: 0, the backward sweep's unswept entries) */
        if (p)
            p[i] = zi;
        if (dot)
            zad += zi * dot[i];
        if (W) { /* (y's unswept entries are 0, y_i's own too: an unused slot reads it) */
            const bool f = bounds == BOUNDS_ANY ? (!lop || lop[i] < xi) && (!hip || xi < hip[i]) /* (ell_sweep's test) */
                                                : lo < xi && (bounds == BOUNDS_LO || xi < hi);
            j->y[i] = f ? (zi - ell_off(m->ell, i, j->y, W)) / pivot[i] : 0.0;
        }
    }
    double *s = part_of(j, b);
    s[0] = gp2, s[1] = beta2, s[2] = phitphi, s[3] = poison, s[4] = zad;
}

static void k_measure(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const int bounds = j->m->bounds;
    if (j->step == STEP_TO_BOUNDARY || bounds == BOUNDS_ANY)
        measure_rows(j, b, e, j->step, BOUNDS_ANY, 0);
    else if (j->step == STEP_INSIDE)
        bounds == BOUNDS_LO ? measure_rows(j, b, e, STEP_INSIDE, BOUNDS_LO, 0)
                            : measure_rows(j, b, e, STEP_INSIDE, BOUNDS_BOX, 0);
    else
        bounds == BOUNDS_LO ? measure_rows(j, b, e, STEP_NONE, BOUNDS_LO, 0)
                            : measure_rows(j, b, e, STEP_NONE, BOUNDS_BOX, 0);
}

/* k_measure with the forward sweep of an ELL matrix of width W in the same pass. */
static GR_FORCE_INLINE void measure_sweep_w(const mp_job *j, uint32_t b, uint32_t e, const uint32_t W)
{
    const int bounds = j->m->bounds;
    if (j->step == STEP_TO_BOUNDARY || bounds == BOUNDS_ANY)
        measure_rows(j, b, e, j->step, BOUNDS_ANY, W);
    else if (j->step == STEP_INSIDE)
        bounds == BOUNDS_LO ? measure_rows(j, b, e, STEP_INSIDE, BOUNDS_LO, W)
                            : measure_rows(j, b, e, STEP_INSIDE, BOUNDS_BOX, W);
    else
        bounds == BOUNDS_LO ? measure_rows(j, b, e, STEP_NONE, BOUNDS_LO, W)
                            : measure_rows(j, b, e, STEP_NONE, BOUNDS_BOX, W);
}

static void k_measure_sweep(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    if (j->m->ell->width == 4)
        measure_sweep_w(j, b, e, 4);
    else
        measure_sweep_w(j, b, e, 6);
}

/* The measures of (x, g) after the job's step; z = the (preconditioned) free gradient, copied
 * into j->p if given; zᵀ j->dot if given. */
static mp_measure measure(mp_job *j)
{
    mp *m = j->m;
    double *const p = j->p;
    const double *const d = j->dot;
    if (m->sgs) /* (the sweeps write p and z's dot below; without them, at the answer, neither is read) */
        j->p = NULL, j->dot = NULL;
    /* symmetric Gauss-Seidel through an ELL matrix in index order: the forward sweep in the
     * measure's pass (in the calling thread, chunk after chunk: a recurrence; the chunks' sums as
     * ever), made before it is known to be needed (not at the answer: the last pass only) */
    /* (not while MIC's pivots wait for the new free set: they need the whole pass's x first) */
    const bool fused = m->sgs && m->ell && !m->split && (m->ell->width == 4 || m->ell->width == 6) &&
                       !(m->mic && m->mic_stale);
    if (fused) {
        j->y = m->sgs;
        if (!m->y_zero)
            memset(j->y, 0, sizeof(double) * m->n);
        m->y_zero = false;
        j->base = 0;
        for (uint64_t b = 0; b < m->n; b += m->chunk)
            k_measure_sweep(j, (uint32_t)b, (uint32_t)GR_MIN((uint64_t)m->n, b + m->chunk), 0);
    } else
        run(j, k_measure, 0, m->n);
    j->p = p, j->dot = d;
    mp_measure r = {total(m, 0), total(m, 1), total(m, 2), total(m, 3), total(m, 4)};
    r.gp2 += r.beta2;
    if (fused && r.gp2 > m->tol2) { /* the backward sweep (sgs_in_face's second half) */
        ell_backward_any(m, j->x, m->sgs, j->z, j->p);
        m->y_zero = true;
        if (j->dot)
            r.zad = dot(m, j->z, j->dot);
    } else if (fused) { /* at the answer: z the free gradient again (the same pass, no step) */
        mp_job k = *j;
        k.step = STEP_NONE, k.add_q = false, k.p = NULL, k.dot = NULL;
        run(&k, k_measure, 0, m->n);
        if (p)
            memcpy(p, j->z, sizeof(double) * m->n);
        if (d)
            r.zad = dot(m, j->z, d);
    } else if (m->sgs && r.gp2 > m->tol2) { /* (at the answer z is not used: no sweeps) */
        sgs_in_face(m, j->x, j->z, j->p);
        m->y_zero = false; /* (its forward sweep's y is left in the scratch) */
        if (j->dot)
            r.zad = dot(m, j->z, j->dot);
    } else if (m->sgs) { /* (what the pass left out, should the loop go on: sqrt's rounding) */
        if (p)
            memcpy(p, j->z, sizeof(double) * m->n);
        if (d)
            r.zad = dot(m, j->z, d);
    }
    return r;
}

/* Sums dᵀ(A d), gᵀd and the longest α with x - α d in the box (INFINITY if unbounded along -d);
 * with W > 0, A d is made here first, row by row, from the ELL matrix (the matvec and the scan in
 * one pass: the same A d, the same sums). A bound along d only (d ≠ 0) may shorten α, as
 * a = GR_MIN(a, t) does. */
static GR_FORCE_INLINE void scan_rows(const mp_job *j, uint32_t b, uint32_t e, const int bounds, const uint32_t W)
{
    const mp *m = j->m;
    const double *const x = j->x, *const d = j->d, *const g = j->g;
    double *const ad = (double *)j->ad;
    const double *const lop = m->lo, *const hip = m->hi;
    double dad = 0, gd = 0, a = INFINITY;
    for (uint32_t i = b; i < e; i++) {
        if (W)
            ad[i] = gr_qp_ell_row_w(m->ell, i, d, W);
        const double di = d[i];
        dad += di * ad[i];
        gd += g[i] * di;
        if (bounds == BOUNDS_ANY) {
            if (di > 0)
                a = GR_MIN(a, (x[i] - lo_of(m, i)) / di);
            else if (di < 0)
                a = GR_MIN(a, (x[i] - hi_of(m, i)) / di);
        } else {
            const double hi = bounds == BOUNDS_BOX ? hip[i] : INFINITY;
            const double t = (x[i] - (di > 0 ? lop[i] : hi)) / di;
            a = (di > 0 || di < 0) && !(a < t) ? t : a;
        }
    }
    double *s = part_of(j, b);
    s[0] = dad, s[1] = gd, s[2] = a;
}

static void k_scan(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    switch (j->m->bounds) {
    case BOUNDS_LO:
        scan_rows(j, b, e, BOUNDS_LO, 0);
        break;
    case BOUNDS_BOX:
        scan_rows(j, b, e, BOUNDS_BOX, 0);
        break;
    default:
        scan_rows(j, b, e, BOUNDS_ANY, 0);
        break;
    }
}

/* k_scan with A d made in the pass. */
static void k_apply_scan(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const int bounds = j->m->bounds;
    if (j->m->ell->width == 4)
        bounds == BOUNDS_LO ? scan_rows(j, b, e, BOUNDS_LO, 4)
        : bounds == BOUNDS_BOX ? scan_rows(j, b, e, BOUNDS_BOX, 4) : scan_rows(j, b, e, BOUNDS_ANY, 4);
    else
        bounds == BOUNDS_LO ? scan_rows(j, b, e, BOUNDS_LO, 6)
        : bounds == BOUNDS_BOX ? scan_rows(j, b, e, BOUNDS_BOX, 6) : scan_rows(j, b, e, BOUNDS_ANY, 6);
}

typedef struct mp_scan {
    double dad, gd, feasible;
} mp_scan;

/* ad = A d (one matvec: the caller counts it), then the scan's figures. */
static mp_scan apply_scan(mp *m, const double *x, const double *g, const double *d, double *ad)
{
    mp_job j = {.m = m, .x = (double *)x, .g = (double *)g, .d = d, .ad = ad};
    if (ell_fused(m)) {
        /* (a row costs several entries' pass: the pool from the matvec's own threshold) */
        run_from(&j, k_apply_scan, 0, m->n, GR_QP_ELL_ROWS_PER_TASK);
    } else {
        m->prob->apply(m->prob->ctx, d, ad);
        run(&j, k_scan, 0, m->n);
    }
    mp_scan r = {total(m, 0), total(m, 1), INFINITY};
    for (uint32_t c = 0; c < m->chunks; c++)
        r.feasible = GR_MIN(r.feasible, m->part[c][2]);
    return r;
}

/* The chopped gradient β into z. */
static void k_chopped(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const mp *m = j->m;
    const double *const x = j->x, *const g = j->g;
    double *const z = j->z;
    if (m->bounds == BOUNDS_ANY)
        for (uint32_t i = b; i < e; i++) {
            const double lo = lo_of(m, i), hi = hi_of(m, i);
            z[i] = lo == hi ? 0.0 : x[i] <= lo ? GR_MIN(g[i], 0.0) : x[i] >= hi ? GR_MAX(g[i], 0.0) : 0.0;
        }
    else /* (no lo == hi; hi_of's +inf where NULL) */
        for (uint32_t i = b; i < e; i++) {
            const double lo = m->lo[i], hi = m->hi ? m->hi[i] : INFINITY;
            z[i] = x[i] <= lo ? GR_MIN(g[i], 0.0) : x[i] >= hi ? GR_MAX(g[i], 0.0) : 0.0;
        }
}

/* CG's next direction p ← z - β p. */
static void k_direction(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    double *const p = j->p;
    const double *const z = j->z, beta = j->a;
    for (uint32_t i = b; i < e; i++)
        p[i] = z[i] - beta * p[i];
}

/* The projected CG step tried: sums xᵀ(g + q) at x (2 f), keeps x in v and g in w, then
 * x ← P(x - a p). */
static void k_try(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const mp *m = j->m;
    double *const x = j->x, *const v = j->v, *const w = j->w, s = 0.0;
    const double *const g = j->g, *const d = j->d, *const q = m->q, a = j->a;
    for (uint32_t i = b; i < e; i++) {
        s += x[i] * (g[i] + (q ? q[i] : 0.0));
        v[i] = x[i];
        w[i] = g[i];
        x[i] = gr_qp_clamp(x[i] - a * d[i], lo_of(m, i), hi_of(m, i));
    }
    part_of(j, b)[0] = s;
}

/* The fixed expansion (x and g first restored from v and w if given): to the boundary along p
 * by a (g by the recurrence), then x ← P(x - ᾱ φ(x)) on the free set. */
static void k_expand(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const mp *m = j->m;
    double *const x = j->x, *const g = j->g;
    const double *const d = j->d, *const ad = j->ad, *const v = j->v, *const w = j->w;
    const double a = j->a, abar = j->b;
    for (uint32_t i = b; i < e; i++) {
        const double lo = lo_of(m, i), hi = hi_of(m, i), di = d[i];
        if (v) {
            x[i] = v[i];
            g[i] = w[i];
        }
        if (di > 0)
            x[i] = (x[i] - lo) / di <= a ? lo : GR_MAX(x[i] - a * di, lo);
        else if (di < 0)
            x[i] = (x[i] - hi) / di <= a ? hi : GR_MIN(x[i] - a * di, hi);
        g[i] += -a * ad[i];
        if (lo < x[i] && x[i] < hi)
            x[i] = gr_qp_clamp(x[i] - abar * g[i], lo, hi);
    }
}

/* The warm start: kept in v, projected onto the box; counts the fixed variables (sum 0: they
 * choose the kernels' variants, BOUNDS_*). */
static void k_start(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    double *const x = j->x, *const v = j->v;
    double fixed = 0.0;
    for (uint32_t i = b; i < e; i++) {
        const double lo = lo_of(j->m, i), hi = hi_of(j->m, i);
        v[i] = x[i];
        x[i] = gr_qp_clamp(x[i], lo, hi);
        fixed += lo == hi;
    }
    part_of(j, b)[0] = fixed;
}

/* Lanczos passes over u (z): LZ_PROJECT zeroes u on the fixed variables and sums v1ᵀu (v1 = d);
 * LZ_ORTHO sets u -= a v1 + b v0 (v0 = ad) and sums uᵀu; LZ_SCALE sets v1 /= b (v1 = p). */
enum { LZ_PROJECT, LZ_ORTHO, LZ_SCALE };
static void k_lanczos(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    const mp_job *j = (const mp_job *)ctx;
    const mp *m = j->m;
    double *const u = j->z, *const v1 = j->p, s = 0.0;
    const double *const d = j->d, *const ad = j->ad, a = j->a, bb = j->b;
    if (j->sum == LZ_SCALE)
        for (uint32_t i = b; i < e; i++)
            v1[i] /= bb;
    else if (j->sum == LZ_PROJECT)
        for (uint32_t i = b; i < e; i++) {
            if (lo_of(m, i) == hi_of(m, i))
                u[i] = 0.0;
            s += d[i] * u[i];
        }
    else
        for (uint32_t i = b; i < e; i++) {
            u[i] -= a * d[i] + bb * ad[i];
            s += u[i] * u[i];
        }
    part_of(j, b)[0] = s;
}

/* The largest eigenvalue of the symmetric tridiagonal (a[0..k), b[0..k-1)) by bisection on the
 * Sturm count: the upper end of the last bracket (never below it). */
static double tridiag_max_eig(const double *a, const double *b, uint32_t k)
{
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t j = 0; j < k; j++) {
        const double r = (j > 0 ? fabs(b[j - 1]) : 0.0) + (j + 1 < k ? fabs(b[j]) : 0.0);
        lo = GR_MIN(lo, a[j] - r);
        hi = GR_MAX(hi, a[j] + r);
    }
    for (int it = 0; it < 200 && hi - lo > 1e-13 * GR_MAX(fabs(lo), fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        uint32_t below = 0; /* eigenvalues < mid */
        double d = 1.0;
        for (uint32_t j = 0; j < k; j++) {
            d = a[j] - mid - (j > 0 ? b[j - 1] * b[j - 1] / d : 0.0);
            if (d == 0.0)
                d = -1e-300; /* mid on an eigenvalue of a leading block: nudge, count it below */
            below += d < 0.0;
        }
        if (below == k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* ᾱ = 1.9 / (1.05 λ), λ the largest Ritz value of LANCZOS_STEPS Lanczos steps on A restricted to
 * the unfixed variables (a lower bound of its largest eigenvalue, close after a few steps; the
 * extremes converge first). Deterministic start vector. Uses v0, v1, u as scratch. */
static double estimate_alpha_bar(mp *m, double *v0, double *v1, double *u, uint32_t *matvecs)
{
    const uint32_t n = m->n;
    gr_rng rng = {0x5eed0f0a1b2c3d4eull};
    uint32_t unfixed = 0;
    for (uint32_t i = 0; i < n; i++) { /* (one stream of random numbers: in order) */
        const bool fixed = lo_of(m, i) == hi_of(m, i);
        v1[i] = fixed ? 0.0 : gr_rng_uniform(&rng) - 0.5;
        v0[i] = 0.0;
        unfixed += !fixed;
    }
    const double norm = sqrt(dot(m, v1, v1));
    if (!(norm > 0))
        return 1.0;
    mp_job j = {.m = m, .sum = LZ_SCALE, .b = norm, .p = v1};
    run(&j, k_lanczos, 0, n);
    const uint32_t steps = GR_MIN(LANCZOS_STEPS, unfixed);
    double a[LANCZOS_STEPS], b[LANCZOS_STEPS];
    double beta = 0.0;
    uint32_t k = 0;
    while (k < steps) {
        m->prob->apply(m->prob->ctx, v1, u);
        (*matvecs)++;
        j = (mp_job){.m = m, .sum = LZ_PROJECT, .d = v1, .z = u};
        run(&j, k_lanczos, 0, n);
        const double alpha = total(m, 0);
        j = (mp_job){.m = m, .sum = LZ_ORTHO, .a = alpha, .b = beta, .d = v1, .ad = v0, .z = u};
        run(&j, k_lanczos, 0, n);
        a[k++] = alpha;
        beta = sqrt(total(m, 0));
        if (!(beta > 1e-12 * fabs(alpha)) || k == steps)
            break; /* an invariant subspace: its Ritz values are eigenvalues */
        b[k - 1] = beta;
        double *t = v0;
        v0 = v1;
        v1 = u;
        u = t;
        j = (mp_job){.m = m, .sum = LZ_SCALE, .b = beta, .p = v1};
        run(&j, k_lanczos, 0, n);
    }
    const double lambda = tridiag_max_eig(a, b, k);
    if (!isfinite(lambda + beta))
        return NAN; /* apply returned a non-finite value */
    /* not positive: A ≈ 0 on the free variables (f linear), where any step is a descent step */
    return lambda > 0 ? 1.9 / (1.05 * lambda) : 1.0;
}

static bool finite_measure(mp_measure r) { return isfinite(r.gp2 + r.phitphi) && r.poison == 0.0; }

static uint32_t chunk_of(uint32_t n)
{
    const uint64_t c = (((uint64_t)n + MP_MAX_CHUNKS - 1) / MP_MAX_CHUNKS + 7u) & ~(uint64_t)7u;
    return c > MP_CHUNK ? (uint32_t)c : MP_CHUNK;
}

gr_status gr_qp_mprgp(const gr_qp_problem *prob, const gr_qp_settings *settings, gr_qp_workspace *ws, double *x,
                      gr_qp_stats *stats)
{
    gr_qp_stats st;
    memset(&st, 0, sizeof st);
    st.gp_norm = st.objective = NAN;
    gr_qp_settings set;
    gr_status status = gr_qp_check_input(prob, settings, ws, x, settings && (settings->jacobi || settings->sgs), &set);
    if (status == GR_OK && prob->n > 0 && (!prob->apply || (set.sgs && !prob->row)))
        status = GR_ERROR_NULL_ARGUMENT;
    /* (MIC(0) where it would run: its vectors are reserved apart, gr_qp_workspace_reserve_mic) */
    if (status == GR_OK && set.mic && set.sgs && prob->row == gr_qp_ell_row && ws->mic_cap < prob->n)
        status = GR_ERROR_INVALID_ARGUMENT;
    if (status != GR_OK) {
        if (stats)
            *stats = st;
        return status;
    }
    const uint32_t n = prob->n;
    mp m; /* (the chunk sums are written before they are read) */
    m.prob = prob;
    m.n = n;
    m.lo = prob->lo, m.hi = prob->hi, m.q = prob->q;
    m.jacobi = set.jacobi && !set.sgs ? prob->diag : NULL;
    m.sgs = set.sgs ? ws->v : NULL;
    m.inv_abar = m.tol2 = 0.0;
    m.tasks = set.tasks && set.tasks->worker_count > 1 ? set.tasks : NULL;
    m.chunk = chunk_of(n);
    m.chunks = n ? (n - 1) / m.chunk + 1 : 0;
    m.part = (double (*)[MP_SUMS])ws->sums;
    m.split = set.sgs ? set.color_split : 0;
    m.ell = prob->row == gr_qp_ell_row ? (const gr_qp_ell *)prob->ctx : NULL;
    m.mic = set.mic && m.sgs && m.ell ? ws->mic : NULL;
    m.mic_upper = ws->mic_upper;
    m.mic_stale = true;
    m.ell_apply = m.ell && prob->apply == gr_qp_ell_apply;
    m.bounds = BOUNDS_ANY;
    m.y_zero = false;
    const double qnorm = m.q ? sqrt(dot(&m, m.q, m.q)) : 0.0;
    st.tolerance = GR_MAX(set.abs_tol, set.rel_tol * qnorm);
    m.tol2 = st.tolerance * st.tolerance;
    if (n == 0) {
        st.converged = true;
        st.gp_norm = st.objective = 0.0;
        if (stats)
            *stats = st;
        return GR_OK;
    }
    double *g = ws->g, *p = ws->p, *ap = ws->ap, *w = ws->w;
    mp_job j = {.m = &m, .x = x, .v = ws->x0};
    run(&j, k_start, 0, n);
    m.bounds = !m.lo || total(&m, 0) > 0 ? BOUNDS_ANY : m.hi ? BOUNDS_BOX : BOUNDS_LO;
    double gp = sqrt(gradient_sum(&m, x, g, true, 2));
    st.matvecs = 1;
    bool g_exact = true; /* g from apply, not from the recurrence */
    mp_measure r = {0, 0, 0, 0, 0};
    if (!isfinite(gp))
        goto not_finite;
    if (gp > st.tolerance) {
        st.alpha_bar = set.alpha_bar > 0 ? set.alpha_bar : estimate_alpha_bar(&m, p, ap, w, &st.matvecs);
        if (!isfinite(st.alpha_bar))
            goto not_finite;
        m.inv_abar = 1.0 / st.alpha_bar;
        j = (mp_job){.m = &m, .x = x, .g = g, .z = w, .p = p};
        r = measure(&j);
    }
    const double gamma2 = set.gamma * set.gamma;
    while (gp > st.tolerance && st.iterations < set.max_iter) {
        st.iterations++;
        if (r.beta2 <= gamma2 * r.phitphi) {
            const mp_scan sc = apply_scan(&m, x, g, p, ap);
            st.matvecs++;
            const double pap = sc.dad, a_feasible = sc.feasible;
            const double a_cg = pap > 0 ? sc.gd / pap : INFINITY;
            if (a_cg <= a_feasible) { /* conjugate gradient step */
                st.cg_steps++;
                j = (mp_job){.m = &m, .step = STEP_INSIDE, .a = a_cg, .d = p, .ad = ap, .x = x, .g = g, .z = w, .dot = ap};
                r = measure(&j);
                g_exact = false;
                j = (mp_job){.m = &m, .a = r.zad / pap, .z = w, .p = p};
                run(&j, k_direction, 0, n);
            } else { /* expansion */
                if (!isfinite(a_feasible))
                    goto not_finite; /* no positive curvature and no bound: f unbounded below */
                st.expansion_steps++;
                bool done = false, restore = false;
                if (set.expansion != GR_QP_EXPANSION_FIXED && isfinite(a_cg)) {
                    /* the projected CG step, kept if it ends below the half step to the boundary
                     * (f(x - α_f p) = f(x) - α_f gᵀp + ½ α_f² pᵀAp): f decreases at every step */
                    j = (mp_job){.m = &m, .a = a_cg, .d = p, .x = x, .g = g, .v = ws->v, .w = w};
                    run(&j, k_try, 0, n);
                    m.y_zero = false; /* (v: sgs's scratch) */
                    const double f_half = 0.5 * total(&m, 0) - a_feasible * sc.gd + 0.5 * a_feasible * a_feasible * pap;
                    done = 0.5 * gradient_sum(&m, x, g, true, 1) <= f_half;
                    st.matvecs++;
                    if (!done) { /* back to x and its gradient (in the expansion's pass) */
                        st.expansion_fallbacks++;
                        restore = true;
                    }
                }
                if (!done) { /* to the boundary, then a projected gradient step of length ᾱ */
                    j = (mp_job){.m = &m, .a = a_feasible, .b = st.alpha_bar, .d = p, .ad = ap, .x = x, .g = g};
                    if (restore)
                        j.v = ws->v, j.w = w;
                    run(&j, k_expand, 0, n);
                    prob->apply(prob->ctx, x, g);
                    st.matvecs++;
                }
                g_exact = true;
                j = (mp_job){.m = &m, .add_q = !done && m.q, .x = x, .g = g, .z = w, .p = p};
                r = measure(&j);
            }
        } else { /* proportioning: release the active constraints whose β dominates */
            st.proportioning_steps++;
            j = (mp_job){.m = &m, .x = x, .g = g, .z = w};
            run(&j, k_chopped, 0, n);
            const mp_scan sc = apply_scan(&m, x, g, w, ap); /* (a narrow box can be crossed) */
            st.matvecs++;
            const double a_min = sc.dad > 0 ? sc.gd / sc.dad : INFINITY;
            const double a = GR_MIN(a_min, sc.feasible);
            if (!isfinite(a))
                goto not_finite;
            m.mic_stale = true; /* (variables freed: MIC's pivots for the new free set) */
            j = (mp_job){.m = &m, .step = a == sc.feasible ? STEP_TO_BOUNDARY : STEP_INSIDE, .a = a, .d = w,
                         .ad = ap, .x = x, .g = g, .z = w, .p = p};
            r = measure(&j);
            g_exact = false;
        }
        if (!finite_measure(r))
            goto not_finite;
        gp = sqrt(r.gp2);
        if (gp <= st.tolerance && !g_exact) {
            /* the recurrence drifts from A x + q: confirm on the true gradient, restart if short */
            prob->apply(prob->ctx, x, g);
            st.matvecs++;
            g_exact = true;
            j = (mp_job){.m = &m, .add_q = m.q != NULL, .x = x, .g = g, .z = w, .p = p};
            r = measure(&j);
            if (!finite_measure(r))
                goto not_finite;
            gp = sqrt(r.gp2);
        }
    }
    if (!g_exact) { /* stopped at max_iter: report the true figures */
        gp = sqrt(gradient_sum(&m, x, g, true, 2));
        st.matvecs++;
    }
    st.gp_norm = gp;
    st.objective = objective(&m, x, g);
    if (!isfinite(st.gp_norm) || !isfinite(st.objective))
        goto not_finite;
    st.converged = gp <= st.tolerance;
    if (stats)
        *stats = st;
    return GR_OK;

not_finite:
    memcpy(x, ws->x0, sizeof(double) * n);
    st.converged = false;
    st.gp_norm = st.objective = NAN;
    if (stats)
        *stats = st;
    return GR_ERROR_NOT_FINITE;
}
