/* SPDX-License-Identifier: MIT */
#include "cont_friction.h"

#include "../qp/qp_mprgp.h"
#include "cont_body_friction.h"

/* The faces a coefficient acts on: cell (offset from the coefficient's cell), axis and the
 * coefficient's factor there (times 1 / h), as cont_stress_div_face reads them. */
typedef struct touch {
    int8_t d[3];
    int8_t axis;
    double k;
} touch;

static const touch TOUCH_A[4] = {{{0, 0, 0}, 0, CONT_SQRT1_2}, {{1, 0, 0}, 0, -CONT_SQRT1_2},
                                 {{0, 0, 0}, 1, -CONT_SQRT1_2}, {{0, 1, 0}, 1, CONT_SQRT1_2}};
static const touch TOUCH_B[6] = {{{0, 0, 0}, 0, CONT_SQRT1_6}, {{1, 0, 0}, 0, -CONT_SQRT1_6},
                                 {{0, 0, 0}, 1, CONT_SQRT1_6}, {{0, 1, 0}, 1, -CONT_SQRT1_6},
                                 {{0, 0, 0}, 2, -2 * CONT_SQRT1_6}, {{0, 0, 1}, 2, 2 * CONT_SQRT1_6}};
static const touch TOUCH_XY[4] = {{{0, 0, 0}, 0, -1}, {{0, -1, 0}, 0, 1}, {{0, 0, 0}, 1, -1}, {{-1, 0, 0}, 1, 1}};
static const touch TOUCH_YZ[4] = {{{0, 0, 0}, 1, -1}, {{0, 0, -1}, 1, 1}, {{0, 0, 0}, 2, -1}, {{0, -1, 0}, 2, 1}};
static const touch TOUCH_XZ[4] = {{{0, 0, 0}, 0, -1}, {{0, 0, -1}, 0, 1}, {{0, 0, 0}, 2, -1}, {{-1, 0, 0}, 2, 1}};

static const touch *touches(int component, int *count)
{
    static const touch *const list[5] = {TOUCH_A, TOUCH_B, TOUCH_XY, TOUCH_YZ, TOUCH_XZ};
    *count = component == 1 ? 6 : 4;
    return list[component];
}

/* The mean of f over the 4 cells around an edge: the cell and its neighbours -e1, -e2, -e1-e2. */
static double edge_mean(const gr_sparse_grid *g, const double *f, uint32_t c, int e1, int e2)
{
    int d1[3] = {0, 0, 0}, d2[3] = {0, 0, 0};
    d1[e1] = -1, d2[e2] = -1;
    return 0.25 * (f[c] + cont_at(g, f, c, d1[0], d1[1], d1[2]) + cont_at(g, f, c, d2[0], d2[1], d2[2]) +
                   cont_at(g, f, c, d1[0] + d2[0], d1[1] + d2[1], d1[2] + d2[2]));
}

/* ---- storage of what a step's rounds share ------------------------------------------------- */

static uint32_t friction_arrays(cont_friction *cf, gr_array_ref *a)
{
    uint32_t k = 0;
    a[k++] = (gr_array_ref){(void **)&cf->cand, 5 * sizeof(uint32_t)};
    a[k++] = (gr_array_ref){(void **)&cf->cand_alpha, 5 * sizeof(double)};
    return k;
}
#define FRICTION_ARRAYS 2

/* Cells a setup chunk holds: the grid blocks of a cont_for_blocks range (fixed: the lists do
 * not depend on the workers). */
#define SETUP_CHUNK_CELLS (64u * CONT_BLOCKS_PER_TASK)
#define SETUP_COUNTS 6u /* a chunk's counts: 5 components' candidates, the weighted coefficients */

static uint32_t setup_chunks(uint32_t cells) { return (cells + SETUP_CHUNK_CELLS - 1) / SETUP_CHUNK_CELLS; }

gr_status cont_friction_reserve(cont_friction *cf, gr_mem *mem, uint32_t cells)
{
    if (cells <= cf->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(cf->cap, cells), chunks = setup_chunks(cap);
    if (chunks > cf->chunk_cap) {
        const gr_array_ref c = {(void **)&cf->chunk_n, SETUP_COUNTS * sizeof(uint32_t)};
        if (!gr_mem_grow_arrays(mem, &c, 1, cf->chunk_cap, chunks, 0))
            return GR_ERROR_OUT_OF_MEMORY;
        cf->chunk_cap = chunks;
    }
    gr_array_ref a[FRICTION_ARRAYS];
    if (!gr_mem_grow_arrays(mem, a, friction_arrays(cf, a), cf->cap, cap, 0))
        return GR_ERROR_OUT_OF_MEMORY;
    cf->cap = cap;
    cf->listed = false;
    return GR_OK;
}

void cont_friction_free(cont_friction *cf, gr_mem *mem)
{
    gr_array_ref a[FRICTION_ARRAYS];
    gr_mem_free_arrays(mem, a, friction_arrays(cf, a), cf->cap);
    cf->cap = 0;
    cf->listed = false;
    const gr_array_ref c = {(void **)&cf->chunk_n, SETUP_COUNTS * sizeof(uint32_t)};
    gr_mem_free_arrays(mem, &c, 1, cf->chunk_cap);
    cf->chunk_cap = 0;
}

/* ---- setup ----------------------------------------------------------------------------------- */

typedef struct setup_job {
    cont_friction *cf;
    const cont_grid_mass *m;
    const cont_faces *u;
    const double *p;
    int comp;
} setup_job;

/* phi u on the faces (the matvec's scratch), by grid blocks */
static void packed_flow_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    const gr_sparse_grid *g = j->cf->cp->g;
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 64u * b0; c < 64u * b1; c++)
            j->cf->scratch.f[a][c] = j->m->vol.f[a][c] * inv_h3 * j->u->f[a][c];
}

/* b2 = dt D2^T (phi u) at the cells of blocks [b0, b1) (cont_stress_div_t_on then times dt: the
 * same bits), from phi u in the scratch faces */
static void b2_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_friction *cf = j->cf;
    const gr_sparse_grid *g = cf->cp->g;
    const size_t cells = gr_sparse_grid_cells(g);
    for (uint32_t b = b0; b < b1; b++) {
        const cont_near_blocks nb = cont_near_blocks_of(g, b);
        for (uint32_t l = 0, c = 64u * b; l < 64u; l++, c++) {
            double q[5];
            cont_stress_div_t_at(g, &cf->scratch, c, l, &nb, cf->cp->dt, q);
            for (int k = 0; k < 5; k++)
                cf->q[(size_t)k * cells + c] = q[k];
        }
    }
}

/* b2 = dt D2^T (phi u) */
static void setup_b2(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u)
{
    const cont_pressure *cp = cf->cp;
    setup_job j = {cf, m, u, NULL, 0};
    cont_for_blocks(cp->tasks, cp->g->block_count, packed_flow_blocks, &j);
    cont_for_blocks(cp->tasks, cp->g->block_count, b2_blocks, &j);
}

static const int EDGE[5][2] = {{0, 0}, {0, 0}, {0, 1}, {1, 2}, {0, 2}};

/* The bound alpha p of component comp at cell c, alpha there given: p itself at a centre, the
 * mean of the four cells around the edge on an edge. */
static inline double bound_at(const gr_sparse_grid *g, int comp, const double *p, uint32_t c, double alpha)
{
    return comp < 2 ? alpha * p[c] : alpha * edge_mean(g, p, c, EDGE[comp][0], EDGE[comp][1]);
}

/* lo, hi = -+alpha p at candidates [i0, i1) of component j->comp (0 where alpha p <= 0) */
static void cand_bounds_range(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_friction *cf = j->cf;
    const gr_sparse_grid *g = cf->cp->g;
    const int comp = j->comp;
    const size_t cells = gr_sparse_grid_cells(g), off = (size_t)comp * cells;
    const uint32_t *cand = cf->cand + off;
    const double *ca = cf->cand_alpha + off;
    for (uint32_t i = i0; i < i1; i++) {
        const uint32_t c = cand[i];
        const double bound = bound_at(g, comp, j->p, c, ca[i]);
        const double b = bound > 0 ? bound : 0.0;
        cf->lo[off + c] = -b;
        cf->hi[off + c] = b;
    }
}

/* Candidates a parallel bound job takes at a time (fixed: the results do not depend on it). */
#define CAND_PER_TASK 1024u

/* The bounds from p at the candidates (the other coefficients stay fixed at 0). */
static void cand_bounds(cont_friction *cf, const double *p)
{
    for (int k = 0; k < 5; k++) {
        setup_job j = {cf, NULL, NULL, p, k};
        cont_for_ranges(cf->cp->tasks, cf->cand_n[k], CAND_PER_TASK, cand_bounds_range, &j);
    }
}

/* sum over the faces coefficient c of a component touches of k^2 W (without dt^2 / h^2) */
static inline double diag_sum(const cont_friction *cf, const touch *t, int nt, uint32_t c)
{
    const gr_sparse_grid *g = cf->cp->g;
    double d = 0;
    for (int j = 0; j < nt; j++) {
        /* (every other touch is the cell's own face: no lookup) */
        const uint32_t f = j % 2 == 0 ? c : gr_sparse_grid_neighbor(g, c, t[j].d[0], t[j].d[1], t[j].d[2]);
        if (f != GR_INVALID_INDEX)
            d += t[j].k * t[j].k * cf->cp->w.f[t[j].axis][f];
    }
    return d;
}

typedef struct diag_job {
    cont_friction *cf;
    double k2;
    const double *alpha;
    double alpha0;
} diag_job;

/* The diagonal without eps at the cells of blocks [b0, b1), and each chunk's counts: candidates
 * (a bound only where the coefficient acts on some face: a third of the cells) by component,
 * and the coefficients with d > 0 (eps's mean). */
static void diag_count_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const diag_job *j = (const diag_job *)ctx;
    cont_friction *cf = j->cf;
    const uint32_t cells = gr_sparse_grid_cells(cf->cp->g);
    for (uint32_t b = b0; b < b1; b += CONT_BLOCKS_PER_TASK) {
        const uint32_t k = b / CONT_BLOCKS_PER_TASK, c1 = 64u * GR_MIN(b1, b + CONT_BLOCKS_PER_TASK);
        uint32_t *count = cf->chunk_n + SETUP_COUNTS * (size_t)k;
        count[5] = 0;
        for (int comp = 0; comp < 5; comp++) {
            int nt;
            const touch *t = touches(comp, &nt);
            uint32_t n = 0;
            for (uint32_t c = 64u * b; c < c1; c++) {
                const double d = diag_sum(cf, t, nt, c);
                const size_t i = (size_t)comp * cells + c;
                cf->diag[i] = j->k2 * d;
                count[5] += d > 0;
                n += !(cf->diag[i] <= 0);
            }
            count[comp] = n;
        }
    }
}

/* Blocks [b0, b1): lo = hi = 0 and the diagonal + eps at every coefficient, and the chunk's
 * candidates listed from its first index (chunk_n) with their alpha. */
static void list_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const diag_job *j = (const diag_job *)ctx;
    cont_friction *cf = j->cf;
    const gr_sparse_grid *g = cf->cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    for (uint32_t b = b0; b < b1; b += CONT_BLOCKS_PER_TASK) {
        const uint32_t k = b / CONT_BLOCKS_PER_TASK, c1 = 64u * GR_MIN(b1, b + CONT_BLOCKS_PER_TASK);
        for (int comp = 0; comp < 5; comp++) {
            const size_t off = (size_t)comp * cells;
            const int e1 = EDGE[comp][0], e2 = EDGE[comp][1];
            uint32_t n = cf->chunk_n[SETUP_COUNTS * (size_t)k + (uint32_t)comp];
            for (uint32_t c = 64u * b; c < c1; c++) {
                const size_t i = off + c;
                if (!(cf->diag[i] <= 0)) {
                    cf->cand[off + n] = c;
                    cf->cand_alpha[off + n++] = !j->alpha ? j->alpha0
                                                : comp < 2 ? j->alpha[c]
                                                           : edge_mean(g, j->alpha, c, e1, e2);
                }
                cf->lo[i] = -0.0;
                cf->hi[i] = 0.0;
                cf->diag[i] += cf->eps;
            }
        }
    }
}

void cont_friction_setup(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p,
                         const double *alpha, double alpha0)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const double dt = cp->dt;
    const bool keep = cf->cap >= cells; /* (the candidates listed for the rounds to come) */
    cf->alpha = alpha, cf->alpha0 = alpha0;
    cf->listed = false;
    setup_b2(cf, m, u);
    /* the diagonal: dt^2 sum over the touched faces of (k / h)^2 W */
    const double k2 = dt * dt * g->inv_h * g->inv_h;
    double mean = 0;
    size_t counted = 0;
    if (keep) {
        /* by chunks on the workers: the diagonal and the counts, the chunks' first indices in
         * chunk order, then each chunk lists its candidates (the same lists as in cell order) */
        diag_job j = {cf, k2, alpha, alpha0};
        cont_for_blocks(cp->tasks, g->block_count, diag_count_blocks, &j);
        const uint32_t chunks = setup_chunks(cells);
        for (int comp = 0; comp < 5; comp++) {
            uint32_t n = 0;
            for (uint32_t k = 0; k < chunks; k++) {
                const uint32_t m_k = cf->chunk_n[SETUP_COUNTS * k + (uint32_t)comp];
                cf->chunk_n[SETUP_COUNTS * k + (uint32_t)comp] = n;
                n += m_k;
            }
            cf->cand_n[comp] = n;
        }
        for (uint32_t k = 0; k < chunks; k++)
            counted += cf->chunk_n[SETUP_COUNTS * k + 5];
        /* (the mean in the order of one pass over the cells: a diagonal > 0 is a k2 d of d > 0,
         * and a d > 0 whose k2 d is 0 adds 0) */
        for (size_t i = 0; i < 5 * (size_t)cells; i++)
            if (cf->diag[i] > 0)
                mean += cf->diag[i];
        cf->eps = counted ? 1e-10 * mean / (double)counted : 0.0;
        cont_for_blocks(cp->tasks, g->block_count, list_blocks, &j); /* (0 off the candidates) */
        cand_bounds(cf, p); /* (then theirs) */
    } else {
        for (int comp = 0; comp < 5; comp++) {
            int nt;
            const touch *t = touches(comp, &nt);
            for (uint32_t c = 0; c < cells; c++) {
                const double d = diag_sum(cf, t, nt, c);
                cf->diag[(size_t)comp * cells + c] = k2 * d;
                if (d > 0)
                    mean += k2 * d, counted++;
            }
        }
        cf->eps = counted ? 1e-10 * mean / (double)counted : 0.0;
        /* the bounds: +-alpha p at the coefficient's place */
        for (uint32_t c = 0; c < cells; c++) {
            const double ac = alpha ? alpha[c] : alpha0;
            for (int comp = 0; comp < 5; comp++) {
                const size_t i = (size_t)comp * cells + c;
                const int e1 = EDGE[comp][0], e2 = EDGE[comp][1];
                const double bound = cf->diag[i] <= 0 ? 0.0
                                     : comp < 2    ? ac * p[c]
                                                   : (alpha ? edge_mean(g, alpha, c, e1, e2) : alpha0) * edge_mean(g, p, c, e1, e2);
                const double b = bound > 0 ? bound : 0.0;
                cf->lo[i] = -b;
                cf->hi[i] = b;
                cf->diag[i] += cf->eps;
            }
        }
    }
    cont_friction_bodies_setup(cf); /* (eq. 26: the bodies' energy) */
    cf->listed = keep;
}

void cont_friction_setup_again(cont_friction *cf, const cont_grid_mass *m, const cont_faces *u, const double *p)
{
    const cont_pressure *cp = cf->cp;
    /* (a free body adds its share to the diagonal: from scratch then) */
    if (!cf->listed || (cp->bodies && cp->bodies->free_count)) {
        cont_friction_setup(cf, m, u, p, cf->alpha, cf->alpha0);
        return;
    }
    setup_b2(cf, m, u);
    cand_bounds(cf, p);
    cont_friction_bodies_setup(cf); /* (a moving body's b2; no free body's diagonal) */
}

/* y = dt^2 D2^T W D2 x + eps x */
static void apply(void *ctx, const double *x, double *y)
{
    cont_friction *cf = (cont_friction *)ctx;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const cont_stress s = cont_stress_view((double *)x, cells), out = cont_stress_view(y, cells);
    cont_stress_div(g, &s, &cf->scratch);
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 0; c < cells; c++)
            cf->scratch.f[a][c] *= cp->w.f[a][c];
    cont_stress_div_t(g, &cf->scratch, &out);
    const double k = cp->dt * cp->dt;
    for (size_t i = 0; i < 5 * (size_t)cells; i++)
        y[i] = k * y[i] + cf->eps * x[i];
    cont_friction_bodies_apply(cf, x, y);
}

/* (A2 x)_i from the faces coefficient i touches. */
static double row(void *ctx, uint32_t i, const double *x)
{
    const cont_friction *cf = (const cont_friction *)ctx;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const int comp = (int)(i / cells);
    const uint32_t c = i % cells;
    const cont_stress s = cont_stress_view((double *)x, cells);
    int nt;
    const touch *t = touches(comp, &nt);
    double sum = 0;
    for (int j = 0; j < nt; j++) {
        const uint32_t f = gr_sparse_grid_neighbor(g, c, t[j].d[0], t[j].d[1], t[j].d[2]);
        if (f != GR_INVALID_INDEX && cp->w.f[t[j].axis][f] != 0)
            sum += t[j].k * g->inv_h * cp->w.f[t[j].axis][f] * cont_stress_div_face(g, &s, f, t[j].axis);
    }
    return cp->dt * cp->dt * sum + cf->eps * x[i] + cont_friction_bodies_row(cf, i, x);
}

gr_qp_problem cont_friction_problem(cont_friction *cf)
{
    return (gr_qp_problem){5 * gr_sparse_grid_cells(cf->cp->g), apply, row, cf, cf->diag, cf->q, cf->lo, cf->hi};
}

typedef struct friction_apply_job {
    const cont_pressure *cp;
    cont_stress v;
    const cont_faces *u;
} friction_apply_job;

static void friction_apply_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const friction_apply_job *j = (const friction_apply_job *)ctx;
    const cont_pressure *cp = j->cp;
    const cont_stress *s = &j->v;
    for (uint32_t b = b0; b < b1; b++) {
        const cont_near_blocks nb = cont_near_blocks_of(cp->g, b);
        for (uint32_t l = 0, c = 64u * b; l < 64u; l++, c++) {
            double d[3];
            cont_stress_div_faces_at(cp->g, s, c, l, &nb, d);
            for (int a = 0; a < 3; a++)
                j->u->f[a][c] += cp->dt * cp->inv_rho.f[a][c] * d[a];
        }
    }
}

void cont_friction_apply(const cont_friction *cf, const double *s, const cont_faces *u)
{
    const cont_pressure *cp = cf->cp;
    /* (by grid blocks on the workers: each cell writes its own faces) */
    friction_apply_job j = {cp, cont_stress_view((double *)s, gr_sparse_grid_cells(cp->g)), u};
    cont_for_blocks(cp->tasks, cp->g->block_count, friction_apply_blocks, &j);
}

/* ---- the friction solve by component (sec. 4) ---------------------------------------------- */

/* (the face grids of each component: CONT_BLOCK_AXES in cont_friction.h, shared with the
 * bodies' terms) */
typedef cont_block_axis block_axis;
#define BLOCK_AXES CONT_BLOCK_AXES
#define BLOCK_AXIS_COUNT CONT_BLOCK_AXIS_COUNT

/* The block-wise loops below visit cell l (0..63) of grid block b, c = 64 b + l, and read a field
 * one step o = +-1 along `dir`: inside the block by the local stride, else in the neighbouring
 * block nb (0 when inactive). No hashing and no 27-entry lookups per cell. */
static inline uint32_t block_toward(const gr_sparse_grid *g, uint32_t b, int dir, int o)
{
    return gr_sparse_grid_neighbor_block(g, b, dir == 0 ? o : 0, dir == 1 ? o : 0, dir == 2 ? o : 0);
}

static inline double shifted(const double *f, uint32_t c, uint32_t l, int dir, int o, uint32_t nb)
{
    const uint32_t stride = 1u << (2 * dir), lc = (l >> (2 * dir)) & 3u;
    if (o > 0 ? lc < 3u : lc > 0u)
        return f[o > 0 ? c + stride : c - stride];
    return nb == GR_INVALID_INDEX ? 0.0 : f[nb * 64u + (o > 0 ? l - 3u * stride : l + 3u * stride)];
}

/* The cell `sign` e away from c, for one cell (rows). */
static inline uint32_t step(const gr_sparse_grid *g, uint32_t c, const block_axis *ax, int sign)
{
    const int o = sign * ax->sgn;
    return gr_sparse_grid_neighbor(g, c, ax->dir == 0 ? o : 0, ax->dir == 1 ? o : 0, ax->dir == 2 ? o : 0);
}

typedef struct block_apply_job {
    const cont_friction_block *fb;
    const double *x;
    double *y;
} block_apply_job;

/* y = A2_kk x = sum over the component's face grids of dt^2 k^2 / h^2 Delta^T W Delta x, plus
 * eps x, on grid blocks [b0, b1): each cell gathers t = k^2 W Delta x on its two faces of each
 * face grid, y[c] += t[c] - t[c + e] (the same operations in the same order whichever worker
 * runs which blocks). */
static void block_apply_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const block_apply_job *job = (const block_apply_job *)ctx;
    const cont_friction *cf = job->fb->cf;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const double *x = job->x;
    double *y = job->y;
    const int comp = job->fb->component;
    const double scale = cp->dt * cp->dt * g->inv_h * g->inv_h;
    for (uint32_t c = 64u * b0; c < 64u * b1; c++)
        y[c] = cf->eps * x[c];
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        const double *w = cp->w.f[ax->axis];
        const double k2 = ax->k * ax->k * scale;
        const int dir = ax->dir, o = ax->sgn;
        const uint32_t stride = 1u << (2 * dir);
        for (uint32_t b = b0; b < b1; b++) {
            const uint32_t back = block_toward(g, b, dir, -o), ahead = block_toward(g, b, dir, o);
            for (uint32_t l = 0, c = 64u * b; l < 64u; l++, c++) {
                /* t at c, and at the cell e ahead (its own back neighbour is c) */
                const double tc = w[c] == 0 ? 0.0 : k2 * w[c] * (x[c] - shifted(x, c, l, dir, -o, back));
                const uint32_t lc = (l >> (2 * dir)) & 3u;
                const bool inside = o > 0 ? lc < 3u : lc > 0u;
                const uint32_t e = inside ? (o > 0 ? c + stride : c - stride)
                                   : (ahead == GR_INVALID_INDEX ? GR_INVALID_INDEX
                                                                : ahead * 64u + (o > 0 ? l - 3u * stride : l + 3u * stride));
                const double te = e == GR_INVALID_INDEX || w[e] == 0 ? 0.0 : k2 * w[e] * (x[e] - x[c]);
                y[c] += tc - te;
            }
        }
    }
}

static void block_apply(void *ctx, const double *x, double *y)
{
    const cont_friction_block *fb = (const cont_friction_block *)ctx;
    block_apply_job job = {fb, x, y};
    cont_for_blocks(fb->cf->cp->tasks, fb->cf->cp->g->block_count, block_apply_blocks, &job);
    cont_friction_bodies_apply_block(fb->cf, fb->component, x, y); /* (serial, after the grid's) */
}

/* (A2_kk x)_c from the two faces per face grid the coefficient touches. */
static double block_row(void *ctx, uint32_t c, const double *x)
{
    const cont_friction_block *fb = (const cont_friction_block *)ctx;
    const cont_friction *cf = fb->cf;
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const int comp = fb->component;
    double sum = 0;
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        const double *w = cp->w.f[ax->axis];
        const uint32_t lo = step(g, c, ax, -1), hi = step(g, c, ax, 1);
        double r = w[c] * (x[c] - (lo != GR_INVALID_INDEX ? x[lo] : 0.0));
        if (hi != GR_INVALID_INDEX)
            r -= w[hi] * (x[hi] - x[c]);
        sum += ax->k * ax->k * r;
    }
    return cp->dt * cp->dt * g->inv_h * g->inv_h * sum + cf->eps * x[c] +
           cont_friction_bodies_row_block(cf, comp, c, x);
}

gr_qp_problem cont_friction_block_problem(cont_friction_block *b, const double *q)
{
    const cont_friction *cf = b->cf;
    const size_t cells = gr_sparse_grid_cells(cf->cp->g), off = (size_t)b->component * cells;
    return (gr_qp_problem){(uint32_t)cells, block_apply, block_row, b, cf->diag + off, q, cf->lo + off, cf->hi + off};
}

double cont_friction_block_norm_bound(const cont_friction *cf, int component)
{
    const size_t cells = gr_sparse_grid_cells(cf->cp->g), off = (size_t)component * cells;
    double d = 0;
    for (size_t c = 0; c < cells; c++)
        if (cf->lo[off + c] < cf->hi[off + c])
            d = fmax(d, cf->diag[off + c]);
    /* a row of Delta^T W Delta: the diagonal sum_faces W, the off-diagonals -W of the same faces;
     * the bodies' low-rank term is positive semi-definite: its trace bounds its eigenvalues */
    return d > 0 ? 2 * d - cf->eps + cf->body_trace[component] : 0.0;
}

/* cont_friction_block_norm_bound over the candidates of the last setup (the same maximum: no
 * other coefficient is unfixed) */
static double listed_norm_bound(const cont_friction *cf, int component)
{
    const size_t off = (size_t)component * gr_sparse_grid_cells(cf->cp->g);
    const uint32_t *cand = cf->cand + off;
    double d = 0;
    for (uint32_t j = 0; j < cf->cand_n[component]; j++) {
        const size_t i = off + cand[j];
        if (cf->lo[i] < cf->hi[i])
            d = fmax(d, cf->diag[i]);
    }
    return d > 0 ? 2 * d - cf->eps + cf->body_trace[component] : 0.0;
}

/* F += sign D2_k x (x one component's coefficients). */
static void block_div(const cont_friction *cf, int comp, const double *x, double sign, const cont_faces *F)
{
    const gr_sparse_grid *g = cf->cp->g;
    const uint32_t blocks = g->block_count;
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        double *f = F->f[ax->axis];
        const double k = sign * ax->k * g->inv_h;
        const int dir = ax->dir, o = ax->sgn;
        for (uint32_t b = 0; b < blocks; b++) {
            const uint32_t nb = block_toward(g, b, dir, -o);
            for (uint32_t l = 0, c = 64u * b; l < 64u; l++, c++)
                f[c] += k * (x[c] - shifted(x, c, l, dir, -o, nb));
        }
    }
}

/* out = base + dt^2 D2_k^T W F: the gradient of the friction objective with respect to s_k when
 * F = D2 s (base = b2_k; eps s_k to add), or the block's linear term when F leaves s_k out. Uses
 * the component's scratch faces for W F. */
static void block_gradient(const cont_friction *cf, int comp, const cont_faces *F, const double *base, double *out)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const uint32_t blocks = g->block_count, cells = gr_sparse_grid_cells(g);
    const double scale = cp->dt * cp->dt * g->inv_h;
    for (uint32_t c = 0; c < cells; c++)
        out[c] = base[c];
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        const double *w = cp->w.f[ax->axis], *f = F->f[ax->axis];
        double *t = cf->scratch.f[ax->axis];
        const double k = scale * ax->k;
        const int dir = ax->dir, o = ax->sgn;
        for (uint32_t c = 0; c < cells; c++)
            t[c] = k * w[c] * f[c];
        for (uint32_t b = 0; b < blocks; b++) {
            const uint32_t nb = block_toward(g, b, dir, o);
            for (uint32_t l = 0, c = 64u * b; l < 64u; l++, c++)
                out[c] += t[c] - shifted(t, c, l, dir, o, nb);
        }
    }
}

/* block_gradient at one cell c: b2_k[c] + dt^2 D2_k^T W F at c, F = D2 s less D2_k s_k on the
 * two faces of each face grid c touches when `own` is false (the block's linear term c_k), F = D2
 * s as it is when true (the objective's gradient less eps s_k). The same operations in the same
 * order as block_div then block_gradient there. */
static double block_gradient_at(const cont_friction *cf, int comp, const cont_faces *F, const double *sk, uint32_t c,
                                bool own)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const double scale = cp->dt * cp->dt * g->inv_h;
    double out = cf->q[(size_t)comp * gr_sparse_grid_cells(g) + c];
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        const double *w = cp->w.f[ax->axis], *f = F->f[ax->axis];
        const double k = scale * ax->k, kd = -ax->k * g->inv_h;
        const uint32_t back = step(g, c, ax, -1), ahead = step(g, c, ax, 1);
        double fc = f[c], fa = 0.0;
        if (!own)
            fc += kd * (sk[c] - (back != GR_INVALID_INDEX ? sk[back] : 0.0));
        if (ahead != GR_INVALID_INDEX) {
            fa = f[ahead];
            if (!own)
                fa += kd * (sk[ahead] - sk[c]);
        }
        out += k * w[c] * fc - (ahead != GR_INVALID_INDEX ? k * w[ahead] * fa : 0.0);
    }
    return out;
}

typedef struct linear_job {
    const cont_friction *cf;
    int comp;
    const cont_faces *div;
    const double *sk;
} linear_job;

/* The compact problem's linear term at rows [i0, i1): c_k at their cells (one row each). */
static void linear_range(void *ctx, uint32_t i0, uint32_t i1, uint32_t worker)
{
    (void)worker;
    const linear_job *j = (const linear_job *)ctx;
    cont_compact *cc = j->cf->compact;
    for (uint32_t i = i0; i < i1; i++)
        cc->q[i] += block_gradient_at(j->cf, j->comp, j->div, j->sk, cc->cell[i], false);
}

/* One block's MPRGP on its unfixed coefficients (cont_compact.h): A2_kk assembled from the
 * component's face grids as block_apply_blocks applies it, its linear term c_k gathered at the
 * unfixed cells only, and D2 s updated by the change of s_k there (the fixed coefficients are 0
 * and stay so): no pass over every cell. */
static gr_status block_solve_compact(cont_friction *cf, int comp, const gr_qp_settings *set, const cont_faces *div,
                                     gr_qp_workspace *ws, double *sk, gr_qp_stats *st)
{
    const cont_pressure *cp = cf->cp;
    const gr_sparse_grid *g = cp->g;
    const size_t cells = gr_sparse_grid_cells(g), off = (size_t)comp * cells;
    const double scale = cp->dt * cp->dt * g->inv_h * g->inv_h;
    cont_compact *cc = cf->compact;
    cont_compact_axis axes[3];
    for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) {
        const block_axis *ax = &BLOCK_AXES[comp][j];
        axes[j] = (cont_compact_axis){ax->dir, ax->sgn, cp->w.f[ax->axis], ax->k * ax->k * scale};
    }
    cc->a.tasks = cp->tasks;
    const uint32_t n =
        cont_compact_assemble(cc, g, axes, BLOCK_AXIS_COUNT[comp], cf->eps, NULL, cf->lo + off, cf->hi + off, sk);
    linear_job lj = {cf, comp, div, sk};
    cont_for_ranges(cp->tasks, n, CAND_PER_TASK, linear_range, &lj);
    const gr_status s = cont_compact_solve(cc, set, ws, st);
    if (s != GR_OK)
        return s; /* (s_k and D2 s as they were) */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t c = cc->cell[i];
        const double d = cc->x[i] - sk[c];
        sk[c] = cc->x[i];
        if (d == 0)
            continue;
        for (int j = 0; j < BLOCK_AXIS_COUNT[comp]; j++) { /* D2_k d on the faces c and c + e */
            const block_axis *ax = &BLOCK_AXES[comp][j];
            double *f = div->f[ax->axis];
            const double kd = ax->k * g->inv_h * d;
            const uint32_t ahead = step(g, c, ax, 1);
            f[c] += kd;
            if (ahead != GR_INVALID_INDEX)
                f[ahead] -= kd;
        }
    }
    return GR_OK;
}

typedef struct figures_job {
    const cont_friction *cf;
    double *s;
    const cont_faces *div;
    double *gp2, *f2; /* [candidates of comp] */
    int comp;
} figures_job;

/* s into the box at the cells of blocks [b0, b1), every component */
static void clamp_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const figures_job *j = (const figures_job *)ctx;
    const cont_friction *cf = j->cf;
    const size_t cells = gr_sparse_grid_cells(cf->cp->g);
    for (int k = 0; k < 5; k++)
        for (size_t i = k * cells + 64u * (size_t)b0; i < k * cells + 64u * (size_t)b1; i++)
            j->s[i] = gr_qp_clamp(j->s[i], cf->lo[i], cf->hi[i]);
}

/* The full problem's terms at the unfixed coefficients [j0, j1) of component comp (its
 * candidates when listed, else its cells): g^P_i^2 and s_i (g_i + q_i), g from D2 s. */
static void figure_terms(void *ctx, uint32_t j0, uint32_t j1, uint32_t worker)
{
    (void)worker;
    const figures_job *fj = (const figures_job *)ctx;
    const cont_friction *cf = fj->cf;
    const int k = fj->comp;
    const size_t off = (size_t)k * gr_sparse_grid_cells(cf->cp->g);
    const double *s = fj->s;
    for (uint32_t j = j0; j < j1; j++) {
        const uint32_t c = cf->listed ? cf->cand[off + j] : j;
        const size_t i = off + c;
        if (!(cf->lo[i] < cf->hi[i]))
            continue;
        const double gi = block_gradient_at(cf, k, fj->div, s + off, c, true) + cf->eps * s[i];
        const double gp = gr_qp_gp_component(s[i], gi, cf->lo[i], cf->hi[i]);
        fj->gp2[j] = gp * gp;
        fj->f2[j] = s[i] * (gi + cf->q[i]);
    }
}

gr_status cont_friction_solve_blocks(cont_friction *cf, gr_qp_workspace *ws, const gr_qp_settings *settings,
                                     uint32_t sweeps, double *s, gr_qp_stats *total)
{
    gr_qp_stats sum;
    memset(&sum, 0, sizeof sum);
    sum.gp_norm = sum.objective = NAN;
    if (total)
        *total = sum;
    if (!cf || !ws || !s)
        return GR_ERROR_NULL_ARGUMENT;
    const gr_sparse_grid *g = cf->cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    const size_t n = 5 * (size_t)cells;
    if ((size_t)ws->cap < n)
        return GR_ERROR_INVALID_ARGUMENT;
    if (cells == 0) {
        sum.converged = true;
        sum.gp_norm = sum.objective = 0;
        if (total)
            *total = sum;
        return GR_OK;
    }
    /* the workspace's vectors past the first `cells` entries: D2 s and the block's linear term */
    const cont_faces div = {{ws->v + cells, ws->v + 2 * (size_t)cells, ws->v + 3 * (size_t)cells}};
    double *const bq = ws->w + cells;
    const gr_qp_settings base = settings ? *settings : gr_qp_settings_default();
    /* s into the box on the workers; ||b2|| here, in index order (the tolerance's bits) */
    figures_job fj = {cf, s, NULL, NULL, NULL, 0};
    cont_for_blocks(cf->cp->tasks, g->block_count, clamp_blocks, &fj);
    double qn = 0;
    for (size_t i = 0; i < n; i++)
        qn += cf->q[i] * cf->q[i];
    const double rel = base.rel_tol == 0 && base.abs_tol == 0 ? gr_qp_settings_default().rel_tol : base.rel_tol;
    sum.tolerance = fmax(base.abs_tol, rel * sqrt(qn));
    gr_qp_settings set = base;
    if (sum.tolerance > 0) {
        set.abs_tol = sum.tolerance / sqrt(5.0);
        set.rel_tol = 0;
    }
    const cont_stress view = cont_stress_view(s, cells);
    cont_stress_div_on(cf->cp->tasks, g, &view, &div);
    /* (a free body's terms span its faces: matrix-free then) */
    const bool compact = cf->compact && !(cf->cp->bodies && cf->cp->bodies->free_count);
    /* (the candidates of the last setup, in cell order: the only coefficients a bound leaves
     * unfixed) */
    const bool listed = cf->listed;
    gr_status status = GR_OK;
    for (uint32_t sweep = 0; sweep < sweeps && status == GR_OK; sweep++) {
        uint32_t moved = 0;
        for (int k = 0; k < 5 && status == GR_OK; k++) {
            double *sk = s + (size_t)k * cells;
            cont_friction_block b = {cf, k};
            const gr_qp_problem pr = cont_friction_block_problem(&b, bq);
            const double bound = listed ? listed_norm_bound(cf, k) : cont_friction_block_norm_bound(cf, k);
            set.alpha_bar = bound > 0 ? 1.9 / bound : 1.0;
            gr_qp_stats st;
            if (compact)
                status = block_solve_compact(cf, k, &set, &div, ws, sk, &st);
            else {
                /* c_k = b2_k + dt^2 D2_k^T W (D2 s - D2_k s_k) */
                block_div(cf, k, sk, -1.0, &div);
                block_gradient(cf, k, &div, cf->q + (size_t)k * cells, bq);
                cont_friction_bodies_gradient(cf, k, &div, bq);
                status = gr_qp_mprgp(&pr, &set, ws, sk, &st);
                block_div(cf, k, sk, 1.0, &div);
            }
            sum.iterations += st.iterations;
            sum.matvecs += st.matvecs;
            sum.cg_steps += st.cg_steps;
            sum.expansion_steps += st.expansion_steps;
            sum.proportioning_steps += st.proportioning_steps;
            sum.expansion_fallbacks += st.expansion_fallbacks;
            moved += st.iterations;
        }
        if (moved == 0)
            break; /* every block was already solved at this s: so is the whole problem */
    }
    /* the full problem's figures at s, from D2 s: g_k = b2_k + eps s_k + dt^2 D2_k^T W D2 s */
    double gp2 = 0, f2 = 0;
    for (int k = 0; k < 5; k++) {
        const size_t off = (size_t)k * cells;
        if (compact) { /* (a fixed coefficient is 0 with g^P 0: the unfixed ones alone, in cell order) */
            /* each one's terms on the workers (into the workspace's g and p, free now), their sums
             * here in the order of one pass (the same bits) */
            const uint32_t m = listed ? cf->cand_n[k] : cells;
            fj = (figures_job){cf, s, &div, ws->g + off, ws->p + off, k};
            cont_for_ranges(cf->cp->tasks, m, CAND_PER_TASK, figure_terms, &fj);
            for (uint32_t j = 0; j < m; j++) {
                const uint32_t c = listed ? cf->cand[off + j] : j;
                if (!(cf->lo[off + c] < cf->hi[off + c]))
                    continue;
                gp2 += ws->g[off + j];
                f2 += ws->p[off + j];
            }
            continue;
        }
        block_gradient(cf, k, &div, cf->q + off, bq);
        cont_friction_bodies_gradient(cf, k, &div, bq);
        for (uint32_t c = 0; c < cells; c++) {
            const size_t i = off + c;
            const double gi = bq[c] + cf->eps * s[i];
            const double gp = gr_qp_gp_component(s[i], gi, cf->lo[i], cf->hi[i]);
            gp2 += gp * gp;
            f2 += s[i] * (gi + cf->q[i]);
        }
    }
    sum.gp_norm = sqrt(gp2);
    sum.objective = 0.5 * f2;
    sum.converged = status == GR_OK && sum.gp_norm <= sum.tolerance;
    if (total)
        *total = sum;
    return status;
}
