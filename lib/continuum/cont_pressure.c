/* SPDX-License-Identifier: MIT */
#include "cont_pressure.h"

#include <string.h>

#include "../qp/qp_mprgp.h"

/* The least volume fraction a face's density counts as (see cont_pressure_setup). */
#define CONT_MIN_FRACTION 0.1

/* The solid fraction of the face between cell c and its neighbour one step down `axis`: the
 * mean of the two (one alone when the other is outside the grid). */
static double face_solid(const gr_sparse_grid *g, const double *solid, uint32_t c, int axis)
{
    if (!solid)
        return 0.0;
    const uint32_t n = gr_sparse_grid_neighbor(g, c, axis == 0 ? -1 : 0, axis == 1 ? -1 : 0, axis == 2 ? -1 : 0);
    return n == GR_INVALID_INDEX ? solid[c] : 0.5 * (solid[c] + solid[n]);
}

/* No material and no solid in cell c (outside the grid: none). */
static bool empty(const cont_grid_mass *m, const double *solid, uint32_t c)
{
    return c == GR_INVALID_INDEX || (m->phi[c] == 0 && !(solid && solid[c] > 0));
}

/* A free body's cell with no sand, one of whose faces is part body, part nothing (no sand mass):
 * held at p = 0 too. A pressure there pushed the body through that face with no reaction on
 * the sand (momentum lost; a rigid motion "compresses" such cells through the averaged face
 * fractions). Cells whose faces are all body or sand keep theirs: they only pass forces
 * through the body, and carry the friction's bound where it meets the sand. */
static bool free_body_surface(const cont_pressure *cp, const cont_grid_mass *m, const double *solid, uint32_t c)
{
    if (!cp->bodies || !solid || m->phi[c] != 0 || cp->bodies->fixed[c] > 0)
        return false;
    const gr_sparse_grid *g = cp->g;
    for (int a = 0; a < 3; a++) {
        const uint32_t hi = gr_sparse_grid_neighbor(g, c, a == 0, a == 1, a == 2);
        if (hi == GR_INVALID_INDEX)
            return true;
        if ((m->mass.f[a][c] == 0 && face_solid(g, solid, c, a) < 1) ||
            (m->mass.f[a][hi] == 0 && face_solid(g, solid, hi, a) < 1))
            return true;
    }
    return false;
}

typedef struct setup_job {
    cont_pressure *cp;
    const cont_grid_mass *m;
    const double *solid;
    const cont_faces *u;
} setup_job;

/* W and 1 / rho on the faces of blocks [b0, b1) (each face its own). */
static void weight_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_pressure *cp = j->cp;
    const cont_grid_mass *m = j->m;
    const gr_sparse_grid *g = cp->g;
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    for (uint32_t c = 64u * b0; c < 64u * b1; c++)
        for (int a = 0; a < 3; a++) {
            const double mass = m->mass.f[a][c], vol = m->vol.f[a][c];
            const double open = 1.0 - face_solid(g, j->solid, c, a);
            /* a face at the edge of the material holds a sliver of a particle's mass: its density
             * counts as at least CONT_MIN_FRACTION of the packed one, or a pressure force on its
             * whole control volume would fling that sliver (and the particle it belongs to) */
            const double rho = mass > 0 ? fmax(mass * inv_h3, CONT_MIN_FRACTION * mass / vol) : 0.0;
            cp->inv_rho.f[a][c] = mass > 0 ? open / rho : 0.0;
            cp->w.f[a][c] = mass > 0 ? vol * inv_h3 * cp->inv_rho.f[a][c] : 0.0;
        }
}

/* The diagonal and the bounds of the cells of blocks [b0, b1) (after every block's W). */
static void diag_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_pressure *cp = j->cp;
    const gr_sparse_grid *g = cp->g;
    const double k = cp->dt * cp->dt * g->inv_h * g->inv_h;
    for (uint32_t c = 64u * b0; c < 64u * b1; c++) {
        double d = cp->w.f[0][c] + cp->w.f[1][c] + cp->w.f[2][c];
        const uint32_t xp = gr_sparse_grid_neighbor(g, c, 1, 0, 0), yp = gr_sparse_grid_neighbor(g, c, 0, 1, 0),
                       zp = gr_sparse_grid_neighbor(g, c, 0, 0, 1);
        d += (xp != GR_INVALID_INDEX ? cp->w.f[0][xp] : 0) + (yp != GR_INVALID_INDEX ? cp->w.f[1][yp] : 0) +
             (zp != GR_INVALID_INDEX ? cp->w.f[2][zp] : 0);
        cp->diag[c] = k * d;
        cp->lo[c] = 0.0;
        /* air (no material splatted, no solid) is held at p = 0, the free surface's Dirichlet
         * condition: without it a region could only push against its own cells, and its
         * pressure would have a free constant */
        const bool air = empty(j->m, j->solid, c) || free_body_surface(cp, j->m, j->solid, c);
        cp->hi[c] = cp->diag[c] > 0 && !air ? INFINITY : 0.0;
    }
}

void cont_pressure_weights(cont_pressure *cp, const cont_grid_mass *m, const double *solid)
{
    cp->sealed = CONT_SEALED_UNKNOWN;
    setup_job j = {cp, m, solid, NULL};
    cont_for_blocks_cheap(cp->tasks, cp->g->block_count, weight_blocks, &j);
    cont_for_blocks_cheap(cp->tasks, cp->g->block_count, diag_blocks, &j);
}

/* The flux phi u of blocks [b0, b1) in the scratch faces. */
static void flux_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_pressure *cp = j->cp;
    const gr_sparse_grid *g = cp->g;
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    for (int a = 0; a < 3; a++)
        for (uint32_t c = 64u * b0; c < 64u * b1; c++)
            cp->scratch.f[a][c] = j->m->vol.f[a][c] * inv_h3 * j->u->f[a][c];
}

/* The least b1 cell c keeps (rhs_blocks): -CONT_PRESSURE_REACH times the volume fraction its
 * six faces carry. */
static double reach_floor(const gr_sparse_grid *g, const cont_grid_mass *m, uint32_t c)
{
    double carried = 0;
    for (int a = 0; a < 3; a++) {
        const uint32_t up = gr_sparse_grid_neighbor(g, c, a == 0, a == 1, a == 2);
        carried += m->vol.f[a][c] + (up == GR_INVALID_INDEX ? 0.0 : m->vol.f[a][up]);
    }
    const double inv_h3 = g->inv_h * g->inv_h * g->inv_h;
    return -CONT_PRESSURE_REACH * carried * inv_h3;
}

/* q of the cells of blocks [b0, b1) (after every block's flux): D of the flux as cont_div. */
static void rhs_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const setup_job *j = (const setup_job *)ctx;
    cont_pressure *cp = j->cp;
    const cont_grid_mass *m = j->m;
    const gr_sparse_grid *g = cp->g;
    const double inv_h = g->inv_h;
    const cont_faces *u = &cp->scratch;
    for (uint32_t c = 64u * b0; c < 64u * b1; c++) {
        const double div = (cont_at(g, u->f[0], c, 1, 0, 0) - u->f[0][c] + cont_at(g, u->f[1], c, 0, 1, 0) - u->f[1][c] +
                            cont_at(g, u->f[2], c, 0, 0, 1) - u->f[2][c]) * inv_h;
        cp->q[c] = 1.0 - (j->solid ? j->solid[c] : 0.0) - (m->phi[c] - cp->dt * div);
        if (cp->q[c] >= 0)
            continue;
        /* Over-packing the pressure undoes this step: at most what the cell's faces' material
         * carries out moving CONT_PRESSURE_REACH cells (phi_f reach on each face). A cell over-packed
         * beside a solid whose faces hold a sliver of material otherwise asked for a pressure that
         * moved that sliver at 4e4 m/s and flung the particle near it at 12 m/s (a collapse's
         * foot); the density correction takes the rest at the next step. */
        cp->q[c] = fmax(cp->q[c], reach_floor(g, m, c));
    }
}

/* Cell c's neighbour across its face `f` (0-5: -x, +x, -y, +y, -z, +z) and that face's W (0 when
 * no material crosses it; a low face at the grid's edge keeps its W: there y is held at 0). */
static uint32_t across(const cont_pressure *cp, uint32_t c, int f, double *w)
{
    const int a = f >> 1, s = f & 1 ? 1 : -1;
    const uint32_t n = gr_sparse_grid_neighbor(cp->g, c, s * (a == 0), s * (a == 1), s * (a == 2));
    *w = s < 0 ? cp->w.f[a][c] : n == GR_INVALID_INDEX ? 0.0 : cp->w.f[a][n];
    return n;
}

/* The open share 1 - phi_s of cell c. */
static double open_share(const double *solid, uint32_t c) { return solid ? 1.0 - fmin(solid[c], 1.0) : 1.0; }

/* 1 - phi_s - phi of cell c: its room (> 0), or its standing over-packing (< 0). */
static double room_of(const cont_grid_mass *m, const double *solid, uint32_t c)
{
    return 1.0 - (solid ? solid[c] : 0.0) - m->phi[c];
}

/* The part of b1_c a group without room gives up: its standing over-packing min(0, 1 - phi_s -
 * phi), what remains being the step's flow (-dt D (phi u), which b1 must still answer, expansion
 * as well as compression: clipped at 0, a sealed box's top, expanding under gravity, left the rest
 * to compress for good, step after step). Where the reach floor holds b1 (rhs_blocks), the flow is
 * not known, and no more than b1's own is given up. Only the open share of it: sand splatted into
 * a wall's cells must still leave them (given up, the sand at a closed box's floor fell through). */
static double givable(const cont_pressure *cp, const cont_grid_mass *m, const double *solid, const cont_bodies *raised,
                      uint32_t c)
{
    double standing = fmin(0.0, room_of(m, solid, c));
    /* (cont_bodies_rhs counted the over-packing next to a free body down to -CONT_BODY_OVERLAP
     * in b1 already) */
    if (raised && raised->free_count && raised->touch[c])
        standing = fmax(standing, -CONT_BODY_OVERLAP);
    const double q = cp->q[c];
    return open_share(solid, c) * (q > reach_floor(cp->g, m, c) ? standing : fmin(0.0, fmax(standing, q)));
}

/* Union-find over the cells (parents as doubles in scratch: exact for indices; path halving). */
static uint32_t root_of(double *parent, uint32_t c)
{
    while ((uint32_t)parent[c] != c) {
        parent[c] = parent[(uint32_t)parent[c]];
        c = (uint32_t)parent[c];
    }
    return c;
}

static bool unfixed(const cont_pressure *cp, uint32_t c) { return c != GR_INVALID_INDEX && cp->lo[c] < cp->hi[c]; }

/* Whether some group of unfixed cells touches no fixed cell. One pass over the cells' low faces
 * (a face links its two cells when W > 0; a low face at the grid's edge links its cell to y = 0)
 * joins the groups and marks those that touch a fixed cell. Afterwards parent[c] is c's group's
 * root and sealed[root] 1 for a group that touches none. A free body's term in A1 also couples
 * the cells it touches; it is not counted: a group sealed by its faces but touching a free body
 * is treated as sealed, and gives up over-packing it might have kept (on the safe side). */
static bool find_sealed(const cont_pressure *cp, double *parent, double *sealed)
{
    const gr_sparse_grid *g = cp->g;
    const uint32_t cells = gr_sparse_grid_cells(g);
    for (uint32_t c = 0; c < cells; c++)
        parent[c] = c, sealed[c] = 1;
    for (uint32_t c = 0; c < cells; c++)
        for (int a = 0; a < 3; a++) {
            if (!(cp->w.f[a][c] > 0))
                continue;
            const uint32_t n = gr_sparse_grid_neighbor(g, c, -(a == 0), -(a == 1), -(a == 2));
            const bool uc = unfixed(cp, c), un = unfixed(cp, n);
            if (uc && un) {
                const uint32_t r = root_of(parent, c), t = root_of(parent, n);
                if (r != t) { /* (the lower root stays: the same groups for any order of faces) */
                    const uint32_t lo = r < t ? r : t, hi = r < t ? t : r;
                    parent[hi] = lo;
                    sealed[lo] = sealed[lo] * sealed[hi];
                }
            } else if (uc || un)
                sealed[root_of(parent, uc ? c : n)] = 0;
        }
    bool any = false;
    for (uint32_t c = 0; c < cells; c++)
        if (unfixed(cp, c)) {
            parent[c] = root_of(parent, c);
            any = any || sealed[(uint32_t)parent[c]] > 0;
        }
    return any;
}

/* (cont_pressure.h) A1 couples the unfixed cells across faces with material (W > 0); a group of
 * them so joined that touches no fixed cell (y = 0) has A1 1 = 0 on it, and the objective along
 * y = t 1 changes by t sum b1: below without bound when the group's over-packing (its b1 < 0)
 * exceeds its room (b1 > 0), which no answer can carry beyond the group's cells (its faces
 * beyond carry no material). A block packed wall to wall in a container at 1.3x is such a group.
 * MPRGP then diverged (GR_ERROR_NOT_FINITE) or stopped with a huge y that flung the sand. Such a
 * group gives up the standing over-packing of its open cells (scaled so that sum b1 = the target:
 * CONT_PRESSURE_SLACK of its empty volume, sum max(0, 1 - phi_s - phi), at least
 * CONT_PRESSURE_LEAST a cell; the rest waits for later steps, as the material reaches new cells);
 * if that is not enough (the sand in the walls' cells, which must still come out), its open cells
 * share the rest in proportion to their open share: they hold that much more for now. Groups
 * above the target keep their b1. The sealed groups are found by union-find (find_sealed), then
 * each one's cells listed breadth first, in scratch (a double holds an index exactly). */
void cont_pressure_bound(cont_pressure *cp, const cont_grid_mass *m, const double *solid, const cont_bodies *raised)
{
    if (cp->sealed == CONT_SEALED_NONE) /* (no group sealed under these weights: known) */
        return;
    const uint32_t cells = gr_sparse_grid_cells(cp->g);
    bool packed = false;
    for (uint32_t c = 0; c < cells && !packed; c++)
        packed = cp->q[c] < 0 && cp->lo[c] < cp->hi[c];
    if (!packed) /* (bounded below by 0 on y >= 0) */
        return;
    double *parent = cp->scratch.f[0], *sealed = cp->scratch.f[1], *order = cp->scratch.f[2];
    if (!find_sealed(cp, parent, sealed)) {
        cp->sealed = CONT_SEALED_NONE;
        return;
    }
    cp->sealed = CONT_SEALED_SOME;
    /* each sealed group's cells in breadth-first order (a cell taken: parent -1) */
    uint32_t tail = 0;
    for (uint32_t c0 = 0; c0 < cells; c0++) {
        if (!unfixed(cp, c0) || parent[c0] < 0 || !(sealed[(uint32_t)parent[c0]] > 0))
            continue;
        const uint32_t head = tail;
        parent[c0] = -1;
        order[tail++] = c0;
        double empty = 0, sum = 0, give = 0, open = 0;
        for (uint32_t k = head; k < tail; k++) {
            const uint32_t c = (uint32_t)order[k];
            empty += fmax(0.0, room_of(m, solid, c));
            sum += cp->q[c];
            give -= givable(cp, m, solid, raised, c);
            open += open_share(solid, c);
            for (int f = 0; f < 6; f++) {
                double w;
                const uint32_t n = across(cp, c, f, &w);
                if (w > 0 && unfixed(cp, n) && parent[n] >= 0) { /* (the group is sealed: n is in it) */
                    parent[n] = -1;
                    order[tail++] = n;
                }
            }
        }
        const double target = fmax(CONT_PRESSURE_SLACK * empty, CONT_PRESSURE_LEAST * (tail - head));
        if (sum >= target)
            continue;
        /* the open cells' standing over-packing scaled by s: sum b1 = target, or all of it given
         * up (s = 0) */
        const double s = give > 0 ? fmax(0.0, 1.0 - (target - sum) / give) : 1.0;
        double now = 0;
        for (uint32_t k = head; k < tail; k++) {
            const uint32_t c = (uint32_t)order[k];
            cp->q[c] -= (1.0 - s) * givable(cp, m, solid, raised, c);
            now += cp->q[c];
        }
        if (now >= target)
            continue;
        if (open > 0) { /* the rest shared by the open cells */
            const double per = (target - now) / open;
            for (uint32_t k = head; k < tail; k++) {
                const uint32_t c = (uint32_t)order[k];
                cp->q[c] += per * open_share(solid, c);
            }
        } else { /* all solid: its b1 < 0 scaled down until sum b1 = target (a guard: a face with W > 0
                  * has an open share > 0, so one of its cells does, unless phi_s > 1 somewhere) */
            double pos = 0, neg = 0;
            for (uint32_t k = head; k < tail; k++) {
                pos += fmax(cp->q[(uint32_t)order[k]], 0.0);
                neg -= fmin(cp->q[(uint32_t)order[k]], 0.0);
            }
            /* (neg is 0 when none is below 0: then the sum is bounded below already) */
            const double t = neg > 0 ? fmax(0.0, pos - target) / neg : 1.0;
            for (uint32_t k = head; k < tail; k++) {
                const uint32_t c = (uint32_t)order[k];
                if (cp->q[c] < 0)
                    cp->q[c] *= t;
            }
        }
    }
}

void cont_pressure_rhs(cont_pressure *cp, const cont_grid_mass *m, const cont_faces *u, const double *solid)
{
    /* q = 1 - phi_s - (phi - dt D (phi u)), the flux phi u in the scratch faces */
    setup_job j = {cp, m, solid, u};
    cont_for_blocks_cheap(cp->tasks, cp->g->block_count, flux_blocks, &j);
    cont_for_blocks_cheap(cp->tasks, cp->g->block_count, rhs_blocks, &j);
}

void cont_pressure_setup(cont_pressure *cp, const cont_grid_mass *m, const cont_faces *u, const double *solid)
{
    cont_pressure_weights(cp, m, solid);
    cont_pressure_rhs(cp, m, u, solid);
    cont_pressure_bound(cp, m, solid, NULL);
}

/* W D1 x on cell c's low face normal to `axis` (0 when c is inactive). */
static inline double weighted_grad(const cont_pressure *cp, const double *x, uint32_t c, int axis)
{
    if (c == GR_INVALID_INDEX)
        return 0.0;
    const gr_sparse_grid *g = cp->g;
    const double lo = cont_at(g, x, c, -(axis == 0), -(axis == 1), -(axis == 2));
    return (x[c] - lo) * g->inv_h * cp->w.f[axis][c];
}

typedef struct apply_job {
    const cont_pressure *cp;
    const double *x;
    double *y;
} apply_job;

/* y = dt^2 D1^T W D1 x = -dt^2 D (W D1 x) on blocks [b0, b1): each cell gathers the weighted
 * gradient on its six faces (the same operations in the same order as D after D1: the result
 * does not depend on how the blocks are shared out). */
static void apply_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const apply_job *j = (const apply_job *)ctx;
    const cont_pressure *cp = j->cp;
    const gr_sparse_grid *g = cp->g;
    const double k = -cp->dt * cp->dt, inv_h = g->inv_h;
    for (uint32_t c = 64u * b0; c < 64u * b1; c++) {
        const double d = weighted_grad(cp, j->x, gr_sparse_grid_neighbor(g, c, 1, 0, 0), 0) -
                         weighted_grad(cp, j->x, c, 0) + weighted_grad(cp, j->x, gr_sparse_grid_neighbor(g, c, 0, 1, 0), 1) -
                         weighted_grad(cp, j->x, c, 1) + weighted_grad(cp, j->x, gr_sparse_grid_neighbor(g, c, 0, 0, 1), 2) -
                         weighted_grad(cp, j->x, c, 2);
        j->y[c] = d * inv_h * k;
    }
}

static void apply(void *ctx, const double *x, double *y)
{
    cont_pressure *cp = (cont_pressure *)ctx;
    apply_job j = {cp, x, y};
    cont_for_blocks(cp->tasks, cp->g->block_count, apply_blocks, &j);
    if (cp->bodies && cp->bodies->free_count) /* (serial: a sum over each body's faces) */
        cont_bodies_apply(cp->bodies, cp->g, cp->dt, x, y);
}

/* (A1 x)_c from the stencil: dt^2 / h^2 sum over the six faces of W (x_c - x_neighbour). */
static double row(void *ctx, uint32_t c, const double *x)
{
    const cont_pressure *cp = (const cont_pressure *)ctx;
    const gr_sparse_grid *g = cp->g;
    double s = 0;
    for (int a = 0; a < 3; a++) {
        const int d[3] = {a == 0, a == 1, a == 2};
        const uint32_t lo = gr_sparse_grid_neighbor(g, c, -d[0], -d[1], -d[2]);
        const uint32_t hi = gr_sparse_grid_neighbor(g, c, d[0], d[1], d[2]);
        s += cp->w.f[a][c] * (x[c] - (lo != GR_INVALID_INDEX ? x[lo] : 0.0));
        if (hi != GR_INVALID_INDEX)
            s += cp->w.f[a][hi] * (x[c] - x[hi]);
    }
    s *= cp->dt * cp->dt * g->inv_h * g->inv_h;
    if (cp->bodies && cp->bodies->free_count)
        s += cont_bodies_row(cp->bodies, g, cp->dt, c, x);
    return s;
}

gr_qp_problem cont_pressure_problem(cont_pressure *cp)
{
    return (gr_qp_problem){gr_sparse_grid_cells(cp->g), apply, row, cp, cp->diag, cp->q, cp->lo, cp->hi};
}

gr_status cont_pressure_solve(cont_pressure *cp, gr_qp_workspace *ws, const gr_qp_settings *settings, double *x,
                              gr_qp_stats *stats)
{
    const gr_qp_problem pr = cont_pressure_problem(cp);
    if (!cp->compact || (cp->bodies && cp->bodies->free_count))
        return gr_qp_mprgp(&pr, settings, ws, x, stats);
    /* A1 = dt^2 / h^2 sum over the axes of Delta^T W Delta (the face below c on axis a: w.f[a][c]) */
    const double k2 = cp->dt * cp->dt * cp->g->inv_h * cp->g->inv_h;
    const cont_compact_axis axes[3] = {{0, 1, cp->w.f[0], k2}, {1, 1, cp->w.f[1], k2}, {2, 1, cp->w.f[2], k2}};
    cp->compact->a.tasks = cp->tasks;
    cont_compact_assemble(cp->compact, cp->g, axes, 3, 0.0, cp->q, cp->lo, cp->hi, x);
    gr_qp_settings set = settings ? *settings : gr_qp_settings_default();
    if (set.alpha_bar == 0) {
        /* ᾱ from the rows' Gershgorin bound instead of 20 Lanczos matvecs a solve */
        const double bound = gr_qp_ell_norm_bound(&cp->compact->a);
        set.alpha_bar = bound > 0 ? 1.9 / bound : 1.0;
    }
    return cont_compact_mprgp(cp->compact, &set, cp->q, pr.n, cp->lo, ws, x, stats);
}

typedef struct grad_job {
    const cont_pressure *cp;
    const double *p;
    const cont_faces *u;
} grad_job;

/* u -= dt / rho D1 p on the faces of blocks [b0, b1) (each face its own). */
static void grad_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const grad_job *j = (const grad_job *)ctx;
    const cont_pressure *cp = j->cp;
    const gr_sparse_grid *g = cp->g;
    const double inv_h = g->inv_h, *p = j->p;
    /* (D1 p as cont_grad takes it, each axis's offsets constant) */
    for (uint32_t c = 64u * b0; c < 64u * b1; c++)
        j->u->f[0][c] -= cp->dt * cp->inv_rho.f[0][c] * ((p[c] - cont_at(g, p, c, -1, 0, 0)) * inv_h);
    for (uint32_t c = 64u * b0; c < 64u * b1; c++)
        j->u->f[1][c] -= cp->dt * cp->inv_rho.f[1][c] * ((p[c] - cont_at(g, p, c, 0, -1, 0)) * inv_h);
    for (uint32_t c = 64u * b0; c < 64u * b1; c++)
        j->u->f[2][c] -= cp->dt * cp->inv_rho.f[2][c] * ((p[c] - cont_at(g, p, c, 0, 0, -1)) * inv_h);
}

void cont_pressure_apply(const cont_pressure *cp, const double *p, const cont_faces *u)
{
    grad_job j = {cp, p, u};
    cont_for_blocks_cheap(cp->tasks, cp->g->block_count, grad_blocks, &j);
}
