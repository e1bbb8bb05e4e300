/* SPDX-License-Identifier: MIT */
#include "cont_compact.h"

#include "../qp/qp_mprgp.h"

static uint32_t arrays(cont_compact *cc, gr_array_ref *a)
{
    uint32_t k = 0;
    a[k++] = (gr_array_ref){(void **)&cc->cell, sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&cc->index, sizeof(uint32_t)};
    double **v[] = {&cc->q, &cc->lo, &cc->hi, &cc->x};
    for (size_t i = 0; i < GR_COUNTOF(v); i++)
        a[k++] = (gr_array_ref){(void **)v[i], sizeof(double)};
    return k;
}
#define COMPACT_ARRAYS 6

/* Cells a numbering chunk holds (fixed: the numbering does not depend on the workers). */
#define CHUNK_CELLS (64u * CONT_BLOCKS_PER_TASK)

static uint32_t chunks_of(uint32_t cells) { return (cells + CHUNK_CELLS - 1) / CHUNK_CELLS; }

gr_status cont_compact_reserve(cont_compact *cc, gr_mem *mem, uint32_t cells)
{
    if (cells <= cc->cap)
        return GR_OK;
    const gr_status s = gr_qp_ell_reserve(&cc->a, mem, cells);
    if (s != GR_OK)
        return s;
    const uint32_t cap = cc->a.cap; /* (the same growth: one capacity for both) */
    const uint32_t counts = 2 * chunks_of(cap); /* (two colours a chunk) */
    if (counts > cc->chunk_cap) {
        const gr_array_ref c = {(void **)&cc->chunk_count, sizeof(uint32_t)};
        if (!gr_mem_grow_arrays(mem, &c, 1, cc->chunk_cap, counts, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        cc->chunk_cap = counts;
    }
    gr_array_ref a[COMPACT_ARRAYS];
    if (!gr_mem_grow_arrays(mem, a, arrays(cc, a), cc->cap, cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    cc->cap = cap;
    return GR_OK;
}

void cont_compact_free(cont_compact *cc, gr_mem *mem)
{
    gr_array_ref a[COMPACT_ARRAYS];
    gr_mem_free_arrays(mem, a, arrays(cc, a), cc->cap);
    cc->cap = 0;
    const gr_array_ref c = {(void **)&cc->chunk_count, sizeof(uint32_t)};
    gr_mem_free_arrays(mem, &c, 1, cc->chunk_cap);
    cc->chunk_cap = 0;
    gr_qp_ell_free(&cc->a, mem);
}

/* i + j + k of a cell is odd: a block's corner is a multiple of 4 on each axis, so the local
 * coordinates decide. */
static inline uint32_t parity(uint32_t c) { return ((c & 3u) + ((c >> 2) & 3u) + ((c >> 4) & 3u)) & 1u; }

/* One coupling of row i to cell nb with value v into slot j: to an unfixed cell a matrix entry,
 * to a fixed one a term of the linear part (nb at its value lo[nb]). */
static inline void couple(cont_compact *cc, uint32_t i, uint32_t j, uint32_t nb, double v, const double *lo, double *qi)
{
    const uint32_t col = cc->index[nb];
    if (col != GR_INVALID_INDEX)
        gr_qp_ell_set(&cc->a, i, j, col, v);
    else
        *qi += v * lo[nb];
}

/* Rows a parallel assembly range holds. Fewer cells than CELLS_PARALLEL_MIN (the numbering's
 * passes, a test a cell) or rows than ROWS_PARALLEL_MIN (a row: its neighbours' lookups, as a
 * sweep's row in MPRGP) stay in the calling thread: a pass then costs about what a dispatch does. */
#define ROWS_PER_TASK 512u
#define CELLS_PARALLEL_MIN 4096u
#define ROWS_PARALLEL_MIN 1024u

typedef struct assemble_job {
    cont_compact *cc;
    const gr_sparse_grid *g;
    const cont_compact_axis *axes;
    int count;
    double eps;
    const double *q_full, *lo, *hi, *x_full;
    uint32_t cells, passes;
} assemble_job;

/* The unfixed cells of chunks [k0, k1) by colour (the colour alone when red-black). */
static void count_chunks(void *ctx, uint32_t k0, uint32_t k1, uint32_t worker)
{
    (void)worker;
    const assemble_job *j = (const assemble_job *)ctx;
    for (uint32_t k = k0; k < k1; k++) {
        uint32_t n[2] = {0, 0};
        const uint32_t end = GR_MIN(j->cells, (k + 1) * CHUNK_CELLS);
        for (uint32_t c = k * CHUNK_CELLS; c < end; c++)
            if (j->lo[c] < j->hi[c])
                n[j->passes == 2 ? parity(c) : 0]++;
        j->cc->chunk_count[2 * k] = n[0];
        j->cc->chunk_count[2 * k + 1] = n[1];
    }
}

/* Number the cells of chunks [k0, k1) from their chunk's first numbers (chunk_count now holds
 * the offsets): each chunk writes only its cells' index and its numbers' cell. */
static void number_chunks(void *ctx, uint32_t k0, uint32_t k1, uint32_t worker)
{
    (void)worker;
    const assemble_job *j = (const assemble_job *)ctx;
    cont_compact *cc = j->cc;
    for (uint32_t k = k0; k < k1; k++) {
        uint32_t next[2] = {cc->chunk_count[2 * k], cc->chunk_count[2 * k + 1]};
        const uint32_t end = GR_MIN(j->cells, (k + 1) * CHUNK_CELLS);
        for (uint32_t c = k * CHUNK_CELLS; c < end; c++) {
            if (!(j->lo[c] < j->hi[c])) {
                cc->index[c] = GR_INVALID_INDEX;
                continue;
            }
            const uint32_t i = next[j->passes == 2 ? parity(c) : 0]++;
            cc->cell[i] = c;
            cc->index[c] = i;
        }
    }
}

/* Rows [i0, i1), each written whole from the grid (one row, one variable's entries). */
static void assemble_rows(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const assemble_job *jb = (const assemble_job *)ctx;
    cont_compact *cc = jb->cc;
    const gr_sparse_grid *g = jb->g;
    const double *lo = jb->lo, *hi = jb->hi;
    for (uint32_t i = i0; i < i1; i++) {
        const uint32_t c = cc->cell[i];
        double d = jb->eps, qi = jb->q_full ? jb->q_full[c] : 0.0;
        gr_qp_ell_clear_row(&cc->a, i);
        for (int j = 0; j < jb->count; j++) {
            const cont_compact_axis *ax = &jb->axes[j];
            const int dx = ax->dir == 0 ? ax->o : 0, dy = ax->dir == 1 ? ax->o : 0, dz = ax->dir == 2 ? ax->o : 0;
            const uint32_t back = gr_sparse_grid_neighbor(g, c, -dx, -dy, -dz);
            const uint32_t ahead = gr_sparse_grid_neighbor(g, c, dx, dy, dz);
            /* the face to c - e (outside the grid: a neighbour held at 0, the diagonal's term only) */
            const double wb = ax->k2 * ax->w[c];
            d += wb;
            if (back != GR_INVALID_INDEX)
                couple(cc, i, 2u * (uint32_t)j, back, -wb, lo, &qi);
            if (ahead != GR_INVALID_INDEX) {
                const double wa = ax->k2 * ax->w[ahead];
                d += wa;
                couple(cc, i, 2u * (uint32_t)j + 1u, ahead, -wa, lo, &qi);
            }
        }
        cc->a.diag[i] = d;
        cc->q[i] = qi;
        cc->lo[i] = lo[c];
        cc->hi[i] = hi[c];
        cc->x[i] = gr_qp_clamp(jb->x_full[c], lo[c], hi[c]);
    }
}

/* fn over [0, count) in ranges of per_task on `tasks` when the pass is `worth` a dispatch,
 * else here. */
static void run(gr_tasks *tasks, bool worth, uint32_t count, uint32_t per_task, gr_range_fn *fn, void *ctx)
{
    if (!tasks || tasks->worker_count <= 1 || !worth || count <= per_task)
        fn(ctx, 0, count, 0);
    else
        gr_parallel_for(tasks, count, per_task, fn, ctx);
}

uint32_t cont_compact_assemble(cont_compact *cc, const gr_sparse_grid *g, const cont_compact_axis *axes, int count,
                               double eps, const double *q_full, const double *lo, const double *hi,
                               const double *x_full)
{
    const uint32_t cells = gr_sparse_grid_cells(g), chunks = chunks_of(cells);
    const uint32_t passes = cc->order == CONT_COMPACT_RED_BLACK ? 2u : 1u;
    assemble_job j = {cc, g, axes, count, eps, q_full, lo, hi, x_full, cells, passes};
    /* the numbering, a prefix count over cells: each chunk's count by colour, their offsets in
     * chunk order (the cell order within each colour, as one pass over the cells would give),
     * then each chunk numbers its cells from its offset */
    run(cc->a.tasks, cells >= CELLS_PARALLEL_MIN, chunks, 1, count_chunks, &j);
    uint32_t n = 0;
    for (uint32_t pass = 0; pass < passes; pass++)
        for (uint32_t k = 0; k < chunks; k++) {
            const uint32_t m = cc->chunk_count[2 * k + pass];
            cc->chunk_count[2 * k + pass] = n;
            n += m;
        }
    const uint32_t split = passes == 2 && chunks ? cc->chunk_count[1] : n;
    run(cc->a.tasks, cells >= CELLS_PARALLEL_MIN, chunks, 1, number_chunks, &j);
    gr_qp_ell_shape(&cc->a, n, 2u * (uint32_t)count); /* (each row filled whole below) */
    if (passes == 2)
        cc->a.color_split = split;
    run(cc->a.tasks, n >= ROWS_PARALLEL_MIN, n, ROWS_PER_TASK, assemble_rows, &j);
    return n;
}

gr_status cont_compact_solve(cont_compact *cc, const gr_qp_settings *settings, gr_qp_workspace *ws, gr_qp_stats *stats)
{
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    /* (red-black rows: the sweeps by colour, each colour's rows on the workers) */
    if (set.sgs && cc->a.color_split < cc->a.n)
        set.color_split = cc->a.color_split;
    const gr_qp_problem pr = gr_qp_ell_problem(&cc->a, cc->q, cc->lo, cc->hi);
    return gr_qp_mprgp(&pr, &set, ws, cc->x, stats);
}

gr_status cont_compact_mprgp(cont_compact *cc, const gr_qp_settings *settings, const double *q_full, uint32_t cells,
                             const double *lo, gr_qp_workspace *ws, double *x_full, gr_qp_stats *stats)
{
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    /* the full problem's tolerance: its ||q|| holds the fixed cells' entries too (as MPRGP's, up
     * to the order of the sum) */
    const double rel = set.rel_tol == 0 && set.abs_tol == 0 ? gr_qp_settings_default().rel_tol : set.rel_tol;
    double qn = 0.0;
    for (uint32_t c = 0; c < cells; c++)
        qn += q_full[c] * q_full[c];
    const double tol = GR_MAX(set.abs_tol, rel * sqrt(qn));
    if (tol > 0 && isfinite(tol)) {
        set.abs_tol = tol;
        set.rel_tol = 0;
    }
    const gr_status s = cont_compact_solve(cc, &set, ws, stats);
    if (s != GR_OK)
        return s;
    for (uint32_t c = 0; c < cells; c++) {
        const uint32_t i = cc->index[c];
        x_full[c] = i == GR_INVALID_INDEX ? lo[c] : cc->x[i];
    }
    return GR_OK;
}
