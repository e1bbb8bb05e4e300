/* SPDX-License-Identifier: MIT */
#include "qp_ell.h"

static uint32_t arrays(gr_qp_ell *m, gr_array_ref *a)
{
    a[0] = (gr_array_ref){(void **)&m->diag, sizeof(double)};
    a[1] = (gr_array_ref){(void **)&m->col, GR_QP_ELL_MAX_WIDTH * sizeof(uint32_t)};
    a[2] = (gr_array_ref){(void **)&m->val, GR_QP_ELL_MAX_WIDTH * sizeof(double)};
    return 3;
}

gr_status gr_qp_ell_reserve(gr_qp_ell *m, gr_mem *mem, uint32_t rows)
{
    if (!m || !mem)
        return GR_ERROR_NULL_ARGUMENT;
    if (rows <= m->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(m->cap, rows);
    gr_array_ref a[3];
    /* (the contents need not survive: a matrix is assembled after its reserve) */
    if (!gr_mem_grow_arrays(mem, a, arrays(m, a), m->cap, cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    m->cap = cap;
    return GR_OK;
}

void gr_qp_ell_free(gr_qp_ell *m, gr_mem *mem)
{
    if (!m)
        return;
    gr_array_ref a[3];
    if (mem)
        gr_mem_free_arrays(mem, a, arrays(m, a), m->cap);
    m->diag = m->val = NULL;
    m->col = NULL;
    m->cap = m->n = m->width = m->color_split = 0;
}

void gr_qp_ell_shape(gr_qp_ell *m, uint32_t n, uint32_t width)
{
    m->n = n;
    m->width = width;
    m->color_split = n;
}

void gr_qp_ell_begin(gr_qp_ell *m, uint32_t n, uint32_t width)
{
    gr_qp_ell_shape(m, n, width);
    for (uint32_t i = 0; i < n; i++) {
        m->diag[i] = 0.0;
        gr_qp_ell_clear_row(m, i);
    }
}

typedef struct apply_job {
    const gr_qp_ell *m;
    const double *x;
    double *y;
} apply_job;

static void apply_rows(void *ctx, uint32_t r0, uint32_t r1, uint32_t worker)
{
    (void)worker;
    const apply_job *j = (const apply_job *)ctx;
    for (uint32_t i = r0; i < r1; i++)
        j->y[i] = gr_qp_ell_row_of(j->m, i, j->x);
}

void gr_qp_ell_apply(void *ctx, const double *x, double *y)
{
    const gr_qp_ell *m = (const gr_qp_ell *)ctx;
    apply_job j = {m, x, y};
    if (!m->tasks || m->tasks->worker_count <= 1 || m->n <= GR_QP_ELL_ROWS_PER_TASK)
        apply_rows(&j, 0, m->n, 0);
    else
        gr_parallel_for(m->tasks, m->n, GR_QP_ELL_ROWS_PER_TASK, apply_rows, &j);
}

double gr_qp_ell_norm_bound(const gr_qp_ell *m)
{
    double bound = 0.0;
    for (uint32_t i = 0; i < m->n; i++) {
        const double *v = m->val + (size_t)i * m->width;
        double r = fabs(m->diag[i]);
        for (uint32_t j = 0; j < m->width; j++)
            r += fabs(v[j]);
        bound = fmax(bound, r);
    }
    return bound;
}

double gr_qp_ell_row(void *ctx, uint32_t i, const double *x) { return gr_qp_ell_row_of((const gr_qp_ell *)ctx, i, x); }

gr_qp_problem gr_qp_ell_problem(gr_qp_ell *m, const double *q, const double *lo, const double *hi)
{
    return (gr_qp_problem){m->n, gr_qp_ell_apply, gr_qp_ell_row, m, m->diag, q, lo, hi};
}
