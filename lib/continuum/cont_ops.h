/* SPDX-License-Identifier: MIT */
/* The staggered (MAC) grid's difference operators on the sparse grid (Narain et al. sec. 4,
 * after Goktekin et al. 2004). Every field is an array over the grid's cells (cell index from
 * lib/grid/sparse_grid.h); what sits where:
 * - at the centre of cell (i, j, k): pressure, density, volume fraction, and the diagonal of the
 *   friction stress as two coefficients (a, b) of a traceless orthonormal basis:
 *   (s_xx, s_yy, s_zz) = a (1, -1, 0) / sqrt 2 + b (1, 1, -2) / sqrt 6 (the stress is trace-free,
 *   sec. 2.3, so it never adds pressure or tension);
 * - on the cell's low faces: u at (i - 1/2, j, k), v at (i, j - 1/2, k), w at (i, j, k - 1/2);
 * - on the edges at the cell's low corner: s_xy at (i - 1/2, j - 1/2, k), s_yz at
 *   (i, j - 1/2, k - 1/2), s_xz at (i - 1/2, j, k - 1/2).
 * A neighbour outside the active blocks holds zeros. D is the divergence (faces to centres),
 * D1 = -D^T the gradient (centres to faces), D2 the divergence of the stress (stress places to
 * faces) and D2^T its exact transpose, so that the pressure and friction matrices
 * D1^T W D1 and D2^T W D2 are symmetric (eq. 10, 18, 30, 32). */
#ifndef GR_CONTINUUM_CONT_OPS_H
#define GR_CONTINUUM_CONT_OPS_H

#include "../core/tasks.h"
#include "../grid/sparse_grid.h"

/// A field on the faces: the x, y and z components, each an array over cells.
typedef struct cont_faces {
    double *f[3];
} cont_faces;

/// The friction stress: a, b at centres, xy, yz, xz at edges (each an array over cells).
typedef struct cont_stress {
    double *a, *b, *xy, *yz, *xz;
} cont_stress;

#define CONT_SQRT1_2 0.70710678118654752440 /* 1 / sqrt 2 */
#define CONT_SQRT1_6 0.40824829046386301637 /* 1 / sqrt 6 */

/// The diagonal stress component `axis` (s_xx, s_yy, s_zz) at cell c, 0 for GR_INVALID_INDEX.
static inline double cont_stress_diagonal(const cont_stress *s, uint32_t c, int axis)
{
    if (c == GR_INVALID_INDEX)
        return 0.0;
    const double a = s->a[c] * CONT_SQRT1_2, b = s->b[c] * CONT_SQRT1_6;
    return axis == 0 ? a + b : (axis == 1 ? b - a : -2.0 * b);
}

/// f[cell d away from c], 0 when that cell is inactive.
static inline double cont_at(const gr_sparse_grid *g, const double *f, uint32_t c, int dx, int dy, int dz)
{
    const uint32_t n = gr_sparse_grid_neighbor(g, c, dx, dy, dz);
    return n == GR_INVALID_INDEX ? 0.0 : f[n];
}

/// (D2 s) on one face: cell c's low face normal to `axis`.
static inline double cont_stress_div_face(const gr_sparse_grid *g, const cont_stress *s, uint32_t c, int axis)
{
    const int d[3] = {axis == 0, axis == 1, axis == 2};
    const double diag = cont_stress_diagonal(s, c, axis) -
                        cont_stress_diagonal(s, gr_sparse_grid_neighbor(g, c, -d[0], -d[1], -d[2]), axis);
    double off;
    if (axis == 0)
        off = cont_at(g, s->xy, c, 0, 1, 0) - s->xy[c] + cont_at(g, s->xz, c, 0, 0, 1) - s->xz[c];
    else if (axis == 1)
        off = cont_at(g, s->xy, c, 1, 0, 0) - s->xy[c] + cont_at(g, s->yz, c, 0, 0, 1) - s->yz[c];
    else
        off = cont_at(g, s->xz, c, 1, 0, 0) - s->xz[c] + cont_at(g, s->yz, c, 0, 1, 0) - s->yz[c];
    return (diag + off) * g->inv_h;
}

/* ---- D2 and D2^T by grid blocks -------------------------------------------------------------
 * cont_stress_div_face's values (the same operations in the same order: the same bits) with the
 * neighbours found per block, not by a lookup per coefficient: a cell's neighbour along an axis
 * is in its block but on the block's face, where it is in the neighbouring block (looked up once
 * a block). cont_stress_div(_t) and the friction's passes use these. */

/* the cell one step along axis `a` (o = +-1) from cell l of the block at c, nb the block there */
static inline uint32_t cont_near_cell(uint32_t c, uint32_t l, int a, int o, uint32_t nb)
{
    const uint32_t stride = 1u << (2 * a), la = (l >> (2 * a)) & 3u;
    if (o > 0 ? la < 3u : la > 0u)
        return o > 0 ? c + stride : c - stride;
    return nb == GR_INVALID_INDEX ? GR_INVALID_INDEX : nb * 64u + (o > 0 ? l - 3u * stride : l + 3u * stride);
}

static inline double cont_at_or_0(const double *f, uint32_t c) { return c == GR_INVALID_INDEX ? 0.0 : f[c]; }

/* The neighbour blocks of block b behind (-e_a) and ahead (+e_a) along each axis a. */
typedef struct cont_near_blocks {
    uint32_t back[3], ahead[3];
} cont_near_blocks;

static inline cont_near_blocks cont_near_blocks_of(const gr_sparse_grid *g, uint32_t b)
{
    cont_near_blocks n;
    for (int a = 0; a < 3; a++) {
        n.back[a] = gr_sparse_grid_neighbor_block(g, b, -(a == 0), -(a == 1), -(a == 2));
        n.ahead[a] = gr_sparse_grid_neighbor_block(g, b, a == 0, a == 1, a == 2);
    }
    return n;
}

/* (D2 s) on the three low faces of cell c, local index l in its block: cont_stress_div_face's
 * values, the same operations in the same order */
static inline void cont_stress_div_faces_at(const gr_sparse_grid *g, const cont_stress *s, uint32_t c, uint32_t l,
                             const cont_near_blocks *nb, double out[3])
{
    const uint32_t px = cont_near_cell(c, l, 0, 1, nb->ahead[0]), py = cont_near_cell(c, l, 1, 1, nb->ahead[1]),
                   pz = cont_near_cell(c, l, 2, 1, nb->ahead[2]);
    for (int a = 0; a < 3; a++) {
        const double diag = cont_stress_diagonal(s, c, a) - cont_stress_diagonal(s, cont_near_cell(c, l, a, -1, nb->back[a]), a);
        double off;
        if (a == 0)
            off = cont_at_or_0(s->xy, py) - s->xy[c] + cont_at_or_0(s->xz, pz) - s->xz[c];
        else if (a == 1)
            off = cont_at_or_0(s->xy, px) - s->xy[c] + cont_at_or_0(s->yz, pz) - s->yz[c];
        else
            off = cont_at_or_0(s->xz, px) - s->xz[c] + cont_at_or_0(s->yz, py) - s->yz[c];
        out[a] = (diag + off) * g->inv_h;
    }
}

/* (D2^T F) at cell c, local index l: cont_stress_div_t's five coefficients, each times `scale` */
static inline void cont_stress_div_t_at(const gr_sparse_grid *g, const cont_faces *F, uint32_t c, uint32_t l,
                              const cont_near_blocks *nb, double scale, double out[5])
{
    const double inv_h = g->inv_h;
    const double *ux = F->f[0], *uy = F->f[1], *uz = F->f[2];
    const double gxx = (ux[c] - cont_at_or_0(ux, cont_near_cell(c, l, 0, 1, nb->ahead[0]))) * inv_h,
                 gyy = (uy[c] - cont_at_or_0(uy, cont_near_cell(c, l, 1, 1, nb->ahead[1]))) * inv_h,
                 gzz = (uz[c] - cont_at_or_0(uz, cont_near_cell(c, l, 2, 1, nb->ahead[2]))) * inv_h;
    const uint32_t mx = cont_near_cell(c, l, 0, -1, nb->back[0]), my = cont_near_cell(c, l, 1, -1, nb->back[1]),
                   mz = cont_near_cell(c, l, 2, -1, nb->back[2]);
    out[0] = (gxx - gyy) * CONT_SQRT1_2 * scale;
    out[1] = (gxx + gyy - 2.0 * gzz) * CONT_SQRT1_6 * scale;
    out[2] = (cont_at_or_0(ux, my) - ux[c] + cont_at_or_0(uy, mx) - uy[c]) * inv_h * scale;
    out[3] = (cont_at_or_0(uy, mz) - uy[c] + cont_at_or_0(uz, my) - uz[c]) * inv_h * scale;
    out[4] = (cont_at_or_0(ux, mz) - ux[c] + cont_at_or_0(uz, mx) - uz[c]) * inv_h * scale;
}

/// fn(ctx, begin, end, worker) over [0, n) in ranges of per_task on `tasks` (NULL, one worker or
/// n <= per_task: in the calling thread). fn must write only its range's entries.
static inline void cont_for_ranges(gr_tasks *tasks, uint32_t n, uint32_t per_task, gr_range_fn *fn, void *ctx)
{
    if (!tasks || tasks->worker_count <= 1 || n <= per_task)
        fn(ctx, 0, n, 0);
    else
        gr_parallel_for(tasks, n, per_task, fn, ctx);
}

/// Grid blocks a parallel job's range takes at a time (fixed: results do not depend on it).
#define CONT_BLOCKS_PER_TASK 8u

/// fn(ctx, first block, end block, worker) over the grid's blocks [0, blocks): in parallel on
/// `tasks` (NULL or one worker: in the calling thread). fn must write only its blocks' cells, so
/// the results are the same for any worker count.
static inline void cont_for_blocks(gr_tasks *tasks, uint32_t blocks, gr_range_fn *fn, void *ctx)
{
    cont_for_ranges(tasks, blocks, CONT_BLOCKS_PER_TASK, fn, ctx);
}

/// Grid blocks below which a cheap pass over cells stays in the calling thread (4096 cells, as
/// MPRGP's MP_PARALLEL_MIN entries): a dispatch then costs about what the pass does.
#define CONT_PARALLEL_MIN_BLOCKS 64u

/// cont_for_blocks for a cheap pass (a few operations a cell): in the calling thread below
/// CONT_PARALLEL_MIN_BLOCKS blocks.
static inline void cont_for_blocks_cheap(gr_tasks *tasks, uint32_t blocks, gr_range_fn *fn, void *ctx)
{
    if (blocks < CONT_PARALLEL_MIN_BLOCKS)
        fn(ctx, 0, blocks, 0);
    else
        cont_for_blocks(tasks, blocks, fn, ctx);
}

/// out = D u: (u(i+1/2) - u(i-1/2) + v(j+1/2) - v(j-1/2) + w(k+1/2) - w(k-1/2)) / h.
void cont_div(const gr_sparse_grid *g, const cont_faces *u, double *out);
/// out = D1 p = -D^T p: (p(i) - p(i-1)) / h on the x faces, and so on.
void cont_grad(const gr_sparse_grid *g, const double *p, const cont_faces *out);
/// out = D2 s: the divergence of the stress on the faces, e.g. on x faces
/// (s_xx(i) - s_xx(i-1) + s_xy(j+1/2) - s_xy(j-1/2) + s_xz(k+1/2) - s_xz(k-1/2)) / h.
void cont_stress_div(const gr_sparse_grid *g, const cont_stress *s, const cont_faces *out);
/// cont_stress_div by grid blocks on `tasks` (NULL: here): each cell writes its own faces, the
/// same bits for any worker count.
void cont_stress_div_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_stress *s, const cont_faces *out);
/// out = D2^T u: minus the strain rate in the stress's coordinates (a, b of -(u_x, v_y, w_z); on
/// edges -(du/dy + dv/dx) and so on): zero for any rigid motion.
void cont_stress_div_t(const gr_sparse_grid *g, const cont_faces *u, const cont_stress *out);
/// cont_stress_div_t by grid blocks on `tasks` (NULL: here): each cell writes its own
/// coefficients, the same bits for any worker count.
void cont_stress_div_t_on(gr_tasks *tasks, const gr_sparse_grid *g, const cont_faces *u, const cont_stress *out);

#endif /* GR_CONTINUUM_CONT_OPS_H */
