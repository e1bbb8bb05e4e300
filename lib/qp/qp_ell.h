/* SPDX-License-Identifier: MIT */
/* An assembled symmetric sparse matrix in ELL form for the box QPs (qp_box.h): n rows, each
 * its diagonal and `width` off-diagonal (column, value) slots. A stencil operator restricted to
 * the variables a solve moves (the continuum's, lib/continuum/cont_compact.h) is a few entries
 * a row: one pass over contiguous rows instead of a matrix-free stencil over every cell of a
 * sparse grid, fixed or not. An unused slot holds value 0 and its own row as column, so every
 * row runs the same loop. Reserved once (grow-only, through gr_mem); assembling allocates
 * nothing. */
#ifndef GR_QP_QP_ELL_H
#define GR_QP_QP_ELL_H

#include "../core/tasks.h"
#include "qp_box.h"

/// The most off-diagonal slots a row (the 7-point stencil's six neighbours).
#define GR_QP_ELL_MAX_WIDTH 6u
/// Rows a parallel apply's block holds (fixed: the result does not depend on the workers).
#define GR_QP_ELL_ROWS_PER_TASK 2048u

typedef struct gr_qp_ell {
    uint32_t n;     ///< rows (= columns)
    uint32_t width; ///< off-diagonal slots a row, <= GR_QP_ELL_MAX_WIDTH
    uint32_t cap;   ///< rows reserved
    /// rows [0, color_split) couple only to rows [color_split, n) and back (a red-black order);
    /// n when the rows have no such split (for a red-black symmetric Gauss-Seidel)
    uint32_t color_split;
    double *diag;  ///< [cap]
    uint32_t *col; ///< [cap * GR_QP_ELL_MAX_WIDTH]: row i's slots at i * width ...
    double *val;   ///< [cap * GR_QP_ELL_MAX_WIDTH]
    gr_tasks *tasks; ///< apply runs its row blocks on these when they have > 1 worker (NULL: serial)
} gr_qp_ell;

/// Room for `rows` rows of any width. Grows only; GR_ERROR_OUT_OF_MEMORY leaves m as it was.
gr_status gr_qp_ell_reserve(gr_qp_ell *m, gr_mem *mem, uint32_t rows);
/// Release m's arrays (to the allocator that reserved them); m is empty again.
void gr_qp_ell_free(gr_qp_ell *m, gr_mem *mem);

/// Start a matrix of n rows (n <= cap) and `width` slots a row: every row 0 (diagonal 0, slots
/// empty), color_split n.
void gr_qp_ell_begin(gr_qp_ell *m, uint32_t n, uint32_t width);
/// As gr_qp_ell_begin, the rows left as they are: the caller fills each row whole (its diagonal,
/// and every slot with gr_qp_ell_set or gr_qp_ell_clear_row first).
void gr_qp_ell_shape(gr_qp_ell *m, uint32_t n, uint32_t width);

/// Row i's slot j (< width) couples to column `col` with value v.
static inline void gr_qp_ell_set(gr_qp_ell *m, uint32_t i, uint32_t j, uint32_t col, double v)
{
    m->col[(size_t)i * m->width + j] = col;
    m->val[(size_t)i * m->width + j] = v;
}

/// Row i's slots empty (value 0, column i); its diagonal as it is.
static inline void gr_qp_ell_clear_row(gr_qp_ell *m, uint32_t i)
{
    for (uint32_t j = 0; j < m->width; j++)
        gr_qp_ell_set(m, i, j, i, 0.0);
}

/// (A x)_i for a matrix of width w (a constant at a call site unrolls the slots): diag_i x_i,
/// then the slots in order.
static inline double gr_qp_ell_row_w(const gr_qp_ell *m, uint32_t i, const double *x, const uint32_t w)
{
    const uint32_t *c = m->col + (size_t)i * w;
    const double *v = m->val + (size_t)i * w;
    double s = m->diag[i] * x[i];
    for (uint32_t j = 0; j < w; j++)
        s += v[j] * x[c[j]];
    return s;
}

/// (A x)_i: diag_i x_i, then the slots in order.
static inline double gr_qp_ell_row_of(const gr_qp_ell *m, uint32_t i, const double *x)
{
    return gr_qp_ell_row_w(m, i, x, m->width);
}

/// The largest Gershgorin bound of m's rows, max_i |diag_i| + sum_j |val_ij|: an upper bound of
/// the largest eigenvalue's magnitude (MPRGP's ᾱ = 1.9 / it needs no Lanczos estimate). 0 for n 0.
double gr_qp_ell_norm_bound(const gr_qp_ell *m);

/// gr_qp_problem callbacks over a gr_qp_ell (ctx the matrix). apply: y = A x, in row blocks of
/// GR_QP_ELL_ROWS_PER_TASK on m->tasks (each row the same sum whichever worker runs it).
void gr_qp_ell_apply(void *ctx, const double *x, double *y);
double gr_qp_ell_row(void *ctx, uint32_t i, const double *x);

/// The problem over m: n, apply, row, diag from m; q, lo, hi the caller's (n entries each).
gr_qp_problem gr_qp_ell_problem(gr_qp_ell *m, const double *q, const double *lo, const double *hi);

#endif /* GR_QP_QP_ELL_H */
