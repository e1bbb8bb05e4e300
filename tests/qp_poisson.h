/* SPDX-License-Identifier: MIT */
/* Masked 3D Poisson problems for the QP tests and bench/qp.c: the shape of the continuum
 * solver's pressure matrix (a weighted graph Laplacian on the cells that hold sand), applied
 * matrix-free by rows of a 7-point stencil. */
#ifndef GR_TEST_QP_POISSON_H
#define GR_TEST_QP_POISSON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../lib/core/rng.h"
#include "../lib/core/tasks.h"

#define QP_MIN(a, b) ((a) < (b) ? (a) : (b))

/* A weighted graph Laplacian on the active cells of an N³ grid (7-point stencil): face weights
 * log-uniform in [wmin, wmax], a face to an inactive cell or the outside a Dirichlet face
 * (weight on the diagonal) or a Neumann one (nothing), plus shift on the diagonal. */
typedef struct lap {
    uint32_t n;
    uint32_t *nb; /* 6 per unknown, UINT32_MAX = none */
    double *w;    /* 6 per unknown */
    double *diag;
    double *depth; /* LAP_SAND: cells below the heap's surface (the pressure's shape); else 1 */
    uint32_t calls;
    uint32_t poison_at; /* apply call number that returns NaN (0 = never) */
} lap;

static inline void lap_apply(void *ctx, const double *x, double *y)
{
    lap *L = (lap *)ctx;
    L->calls++;
    for (uint32_t i = 0; i < L->n; i++) {
        double s = L->diag[i] * x[i];
        const uint32_t *nb = L->nb + 6 * i;
        const double *w = L->w + 6 * i;
        for (int k = 0; k < 6; k++)
            if (nb[k] != UINT32_MAX)
                s -= w[k] * x[nb[k]];
        y[i] = s;
    }
    if (L->poison_at && L->calls == L->poison_at)
        y[L->n / 2] = NAN;
}

static inline double lap_row(void *ctx, uint32_t i, const double *x)
{
    const lap *L = (const lap *)ctx;
    double s = L->diag[i] * x[i];
    const uint32_t *nb = L->nb + 6 * i;
    const double *w = L->w + 6 * i;
    for (int k = 0; k < 6; k++)
        if (nb[k] != UINT32_MAX)
            s -= w[k] * x[nb[k]];
    return s;
}

/* the weight of the face on the +a side of cell (c0, c1, c2) (coordinates from -1): symmetric
 * by construction, a hash of the face */
static inline double face_weight(int a, int c0, int c1, int c2, double wmin, double wmax, uint64_t seed)
{
    gr_rng r = {seed ^ ((uint64_t)(a + 1) << 60) ^ ((uint64_t)(c0 + 1) << 40) ^ ((uint64_t)(c1 + 1) << 20) ^
                (uint64_t)(c2 + 1)};
    return wmin * pow(wmax / wmin, gr_rng_uniform(&r));
}

/// Where the unknowns are and what their missing neighbours mean.
typedef enum lap_mode {
    LAP_DIRICHLET, ///< a random `fill` of the cells; every other face is Dirichlet (p = 0 beyond)
    LAP_NEUMANN,   ///< a random `fill` of the cells; every other face is Neumann (singular: constants)
    /// sand: a heap (height 0.25 N at the walls, 0.85 N at the centre) with 1 - fill random air
    /// holes; Neumann at the walls and floor, Dirichlet to air (the surface and the holes)
    LAP_SAND
} lap_mode;

/* LAP_SAND: how deep cell (i, j, k) lies below the heap's surface, in cells (≤ 0: air) */
static inline double lap_depth(int N, int i, int j, int k)
{
    const double dx = (i + 0.5) / N - 0.5, dz = (k + 0.5) / N - 0.5;
    const double r = sqrt(dx * dx + dz * dz) / 0.5;
    return N * (0.25 + 0.6 * (r < 1 ? 1 - r : 0)) - (j + 0.5);
}

static inline void lap_build(lap *L, int N, double fill, double wmin, double wmax, double shift, lap_mode mode,
                             uint64_t seed)
{
    const size_t cells = (size_t)N * N * N;
    uint32_t *id = (uint32_t *)malloc(sizeof(uint32_t) * cells);
    gr_rng r = {seed};
#define CELL(i, j, k) ((size_t)(((i) * N + (j)) * N + (k)))
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++) {
                const bool sand = mode != LAP_SAND || lap_depth(N, i, j, k) > 0;
                id[CELL(i, j, k)] = gr_rng_uniform(&r) < fill && sand ? 0 : UINT32_MAX;
            }
    static const int off[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    if (mode == LAP_NEUMANN) /* an active cell without active neighbours would be a zero row */
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                for (int k = 0; k < N; k++) {
                    bool any = false;
                    for (int f = 0; f < 6; f++) {
                        const int a = i + off[f][0], b = j + off[f][1], c = k + off[f][2];
                        if (a >= 0 && b >= 0 && c >= 0 && a < N && b < N && c < N && id[CELL(a, b, c)] == 0)
                            any = true;
                    }
                    if (!any)
                        id[CELL(i, j, k)] = UINT32_MAX - 1; /* dropped (and never an active neighbour) */
                }
    uint32_t n = 0;
    for (size_t c = 0; c < cells; c++)
        id[c] = id[c] == 0 ? n++ : UINT32_MAX;
    L->n = n;
    L->nb = (uint32_t *)malloc(sizeof(uint32_t) * 6 * (n ? n : 1));
    L->w = (double *)malloc(sizeof(double) * 6 * (n ? n : 1));
    L->diag = (double *)malloc(sizeof(double) * (n ? n : 1));
    L->depth = (double *)malloc(sizeof(double) * (n ? n : 1));
    L->calls = 0;
    L->poison_at = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++) {
                const uint32_t u = id[CELL(i, j, k)];
                if (u == UINT32_MAX)
                    continue;
                L->diag[u] = shift;
                L->depth[u] = mode == LAP_SAND ? lap_depth(N, i, j, k) : 1.0;
                for (int f = 0; f < 6; f++) {
                    const int a = i + off[f][0], b = j + off[f][1], c = k + off[f][2];
                    /* the face's lower cell names it */
                    const double w = face_weight(f / 2, QP_MIN(i, a), QP_MIN(j, b), QP_MIN(k, c), wmin, wmax, seed);
                    const bool inside = a >= 0 && b >= 0 && c >= 0 && a < N && b < N && c < N;
                    const uint32_t v = inside ? id[CELL(a, b, c)] : UINT32_MAX;
                    L->nb[6 * u + f] = v;
                    L->w[6 * u + f] = v != UINT32_MAX ? w : 0.0;
                    const bool dirichlet = mode == LAP_DIRICHLET || (mode == LAP_SAND && inside);
                    if (v != UINT32_MAX || dirichlet)
                        L->diag[u] += w;
                }
            }
#undef CELL
    free(id);
}

/* A Laplacian whose matvec runs on a pool (as the continuum's do): rows in blocks of 1024, each
 * row the same sum whichever worker takes it. tasks NULL: serial. */
typedef struct par_lap {
    lap *L;
    gr_tasks *tasks;
    const double *x;
    double *y;
} par_lap;

static inline void par_rows(void *ctx, uint32_t b, uint32_t e, uint32_t worker)
{
    (void)worker;
    par_lap *P = (par_lap *)ctx;
    for (uint32_t i = b; i < e; i++)
        P->y[i] = lap_row(P->L, i, P->x);
}

static inline void par_apply(void *ctx, const double *x, double *y)
{
    par_lap *P = (par_lap *)ctx;
    P->x = x, P->y = y;
    if (P->tasks && P->tasks->worker_count > 1)
        gr_parallel_for(P->tasks, P->L->n, 1024, par_rows, P);
    else
        par_rows(P, 0, P->L->n, 0);
}

static inline double par_row(void *ctx, uint32_t i, const double *x) { return lap_row(((par_lap *)ctx)->L, i, x); }

static inline void lap_free(lap *L)
{
    free(L->nb);
    free(L->w);
    free(L->diag);
    free(L->depth);
}

/* Components of the Laplacian's graph (the null space of a Neumann one, one constant each). */
static inline uint32_t find_root(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static inline uint32_t *lap_components(const lap *L)
{
    uint32_t *parent = (uint32_t *)malloc(sizeof(uint32_t) * L->n);
    for (uint32_t i = 0; i < L->n; i++)
        parent[i] = i;
    for (uint32_t i = 0; i < L->n; i++)
        for (int k = 0; k < 6; k++)
            if (L->nb[6 * i + k] != UINT32_MAX)
                parent[find_root(parent, i)] = find_root(parent, L->nb[6 * i + k]);
    for (uint32_t i = 0; i < L->n; i++)
        parent[i] = find_root(parent, i);
    return parent;
}

/* Red-black order (for MPRGP's settings.color_split): a 2-colouring of the stencil's graph
 * (breadth first; a 7-point grid's graph is bipartite), colour 0 first, each colour in the old
 * order. Reorders L in place; returns the count of colour 0 (the split), or UINT32_MAX if the
 * graph has an odd cycle. old_of (n entries, may be NULL) receives the old index of each new
 * one. */
static inline uint32_t lap_red_black(lap *L, uint32_t *old_of)
{
    const uint32_t n = L->n;
    uint8_t *colour = (uint8_t *)malloc(n ? n : 1);
    uint32_t *queue = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1)), *new_of = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1));
    uint32_t *order = (uint32_t *)malloc(sizeof(uint32_t) * (n ? n : 1));
    bool odd = false;
    for (uint32_t i = 0; i < n; i++)
        colour[i] = 2; /* unvisited */
    for (uint32_t s = 0; s < n; s++) {
        if (colour[s] != 2)
            continue;
        uint32_t head = 0, tail = 0;
        colour[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            const uint32_t u = queue[head++];
            for (int k = 0; k < 6; k++) {
                const uint32_t v = L->nb[6 * u + k];
                if (v == UINT32_MAX)
                    continue;
                if (colour[v] == 2) {
                    colour[v] = (uint8_t)(1 - colour[u]);
                    queue[tail++] = v;
                } else if (colour[v] == colour[u])
                    odd = true;
            }
        }
    }
    uint32_t split = 0, m = 0;
    for (int c = 0; c < 2; c++)
        for (uint32_t i = 0; i < n; i++)
            if (colour[i] == c) {
                new_of[i] = m;
                order[m++] = i;
                split += c == 0;
            }
    lap R = *L;
    R.nb = (uint32_t *)malloc(sizeof(uint32_t) * 6 * (n ? n : 1));
    R.w = (double *)malloc(sizeof(double) * 6 * (n ? n : 1));
    R.diag = (double *)malloc(sizeof(double) * (n ? n : 1));
    R.depth = (double *)malloc(sizeof(double) * (n ? n : 1));
    for (uint32_t u = 0; u < n; u++) {
        const uint32_t o = order[u];
        R.diag[u] = L->diag[o];
        R.depth[u] = L->depth[o];
        for (int k = 0; k < 6; k++) {
            const uint32_t v = L->nb[6 * o + k];
            R.nb[6 * u + k] = v == UINT32_MAX ? UINT32_MAX : new_of[v];
            R.w[6 * u + k] = L->w[6 * o + k];
        }
        if (old_of)
            old_of[u] = o;
    }
    lap_free(L);
    *L = R;
    free(colour), free(queue), free(new_of), free(order);
    return odd ? UINT32_MAX : split;
}

#endif /* GR_TEST_QP_POISSON_H */
