/* SPDX-License-Identifier: MIT */
/* Deep sleep: sleeping grains far from anything that moves sit the substep out (docs/pbd.md,
 * "Deep sleep").
 *
 * A sleeping grain keeps its position (pbd_step.c), but the solve still visits it, so that it
 * wakes when its neighbours push it. Where sand has settled that costs as much as the flow did.
 * So each substep starts by marking the cells (of the contact grid's size) that hold something
 * that moves: an awake grain, a free body's particle, a moving kinematic or a host-owned body's
 * particle, a moving kinematic exact body, a sleeper that nearly woke beside frozen grains (for
 * PBD_STIR_SUBSTEPS). A sleeping grain with no mark in the 3x3x3 block of cells around its own
 * is frozen for the substep:
 *   - it is not solved: it stays where it is, as every sleeper that the solve leaves calm does;
 *   - only its pairs with unfrozen particles are listed; they keep their usual shares, and its
 *     own is dropped (as a calm sleeper's move is undone at the substep's end: a frozen grain
 *     must not be a wall that its neighbours lean on harder than on a sleeping one);
 *   - it is not predicted (no sag under gravity that nothing would undo);
 *   - the force it last pressed on a body with goes on being reported (pbd_constraints.c).
 * The band of sleepers next to the marks is solved as before: a push wakes them, their cells
 * are marked at the next substep, and the thaw spreads a cell per substep through still sand
 * (at the sandcastle's scale about a quarter metre per 1/30 s frame). A band sleeper that its
 * own probe would wake while it has frozen partners does not trust it (frozen grains stand
 * still where a solved sleeper would iterate along, and that alone can push it): it stays
 * asleep, its block thaws, and it asks again among solved neighbours (pbd_step.c).
 * After a change of the world that can disturb a sleeper from afar (a body added, removed or
 * set to a pose, a grain removed or written, gravity or friction changed) the next substep
 * freezes nothing (st->thaw), so every sleeper can notice. */
#include <math.h>
#include <stdatomic.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/vec3.h"
#include "../grid/grid_index.h"
#include "pbd_internal.h"
#include "pbd_freeze.h"
#include "pbd_lists.h"

/* Marks: a dense byte grid over the grains' box, padded by two cells (a mark beyond that cannot
 * reach a grain's block). Far-flung grains make it coarser, never larger than this many cells
 * per movable particle (coarser cells only widen the band). */
#define FREEZE_PAD 2
#define FREEZE_CELLS_PER_PARTICLE 4u
#define FREEZE_MIN_CELLS 4096u

typedef struct freeze_grid {
    gr_grid_index ix;
    uint8_t *mark;
} freeze_grid;

static void mark_point(freeze_grid *g, gr_vec3 p)
{
    int32_t c[3];
    if (gr_grid_index_cell(&g->ix, p, c))
        g->mark[gr_grid_index_at(&g->ix, c[0], c[1], c[2])] = 1;
}

/* Every cell that a ball (centre, radius) overlaps, clipped to the grid. */
static void mark_ball(freeze_grid *g, gr_vec3 centre, double radius)
{
    int32_t c0[3], c1[3];
    for (int d = 0; d < 3; d++) {
        const double lo = (v3_get(centre, d) - radius - v3_get(g->ix.lo, d)) * g->ix.inv_cell;
        const double hi = (v3_get(centre, d) + radius - v3_get(g->ix.lo, d)) * g->ix.inv_cell;
        if (!(hi >= 0 && lo < (double)g->ix.dims[d]))
            return; /* clear of the grid (or not finite) */
        c0[d] = lo < 0 ? 0 : (int32_t)lo;
        c1[d] = hi >= (double)g->ix.dims[d] ? g->ix.dims[d] - 1 : (int32_t)hi;
    }
    for (int32_t i = c0[0]; i <= c1[0]; i++)
        for (int32_t j = c0[1]; j <= c1[1]; j++)
            for (int32_t k = c0[2]; k <= c1[2]; k++)
                g->mark[gr_grid_index_at(&g->ix, i, j, k)] = 1;
}

/* Is any cell of the 3x3x3 block around c marked? (c is at least a cell inside the grid.) */
static bool block_marked(const freeze_grid *g, const int32_t c[3])
{
    for (int32_t i = c[0] - 1; i <= c[0] + 1; i++)
        for (int32_t j = c[1] - 1; j <= c[1] + 1; j++) {
            const uint8_t *row = g->mark + gr_grid_index_at(&g->ix, i, j, c[2] - 1);
            if (row[0] | row[1] | row[2])
                return true;
        }
    return false;
}

/* Something moves that every grain may touch (a kinematic plane, or a body without bounds)? */
static bool exact_bodies_mark(const pbd_state *st, freeze_grid *g, double reach)
{
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->particles || b->motion != GR_MOTION_KINEMATIC)
            continue;
        if (v3_len2(b->linear_velocity) == 0 && v3_len2(b->angular_velocity) == 0)
            continue;
        const double bound = gr_body_bound_radius(b);
        if (!isfinite(bound))
            return true;
        mark_ball(g, b->position, bound + reach);
    }
    return false;
}

static void fixed_particles_mark(const pbd_state *st, freeze_grid *g)
{
    const gr_body_store *bs = st->env.bodies;
    for (uint32_t r = 0; r < st->nb; r++) {
        const pbd_body *pb = &st->bodies[r];
        if (!pb->fixed)
            continue; /* free bodies' particles are movable: marked with the grains */
        const gr_body_data *b = &bs->data[pb->slot];
        /* a host may put its body anywhere each step; a kinematic one moves by its velocity */
        const bool moves = b->motion == GR_MOTION_HOST ||
                           (b->motion == GR_MOTION_KINEMATIC &&
                            (v3_len2(b->linear_velocity) > 0 || v3_len2(b->angular_velocity) > 0));
        if (!moves)
            continue;
        for (uint32_t i = pb->first; i < pb->first + pb->count; i++)
            mark_point(g, st->x[i]);
    }
}

static bool reserve_cells(pbd_state *st, size_t cells)
{
    if (cells <= st->fz_cap)
        return true;
    const size_t cap = cells + cells / 2;
    uint8_t *m = (uint8_t *)gr_mem_alloc(st->mem, cap);
    if (!m)
        return false;
    gr_mem_free(st->mem, st->fz_mark, st->fz_cap);
    st->fz_mark = m;
    st->fz_cap = cap;
    return true;
}

void pbd_free_freeze(pbd_state *st)
{
    gr_mem_free(st->mem, st->fz_mark, st->fz_cap);
    st->fz_mark = NULL;
    st->fz_cap = 0;
}

/* The passes over the movable particles (parallel, in fixed blocks; each writes only its own
 * particles, and the counts are sums of whole numbers: the same for any worker count). */
typedef struct freeze_ctx {
    pbd_state *st;
    const freeze_grid *g;
    atomic_uint count;
} freeze_ctx;

/* Every flag cleared, the stir counts down; counts the sleeping grains. */
static void reset_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    freeze_ctx *c = (freeze_ctx *)vctx;
    pbd_state *st = c->st;
    uint32_t asleep = 0;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = st->mov[k];
        st->flag[i] = 0;
        asleep += st->owner[i] == GR_INVALID_INDEX && pbd_asleep(st, i);
        st->stir[i] -= st->stir[i] > 0; /* (marked below while it lasts) */
    }
    atomic_fetch_add_explicit(&c->count, asleep, memory_order_relaxed);
}

/* Sleeping grains with no mark in their block freeze; counts them. */
static void decide_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    freeze_ctx *c = (freeze_ctx *)vctx;
    pbd_state *st = c->st;
    uint32_t frozen = 0;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = st->mov[k];
        int32_t cc[3];
        if (st->owner[i] != GR_INVALID_INDEX || !pbd_asleep(st, i) || !gr_grid_index_cell(&c->g->ix, st->x[i], cc))
            continue;
        if (!block_marked(c->g, cc)) {
            st->flag[i] = PBD_FLAG_FROZEN;
            frozen++;
        }
    }
    atomic_fetch_add_explicit(&c->count, frozen, memory_order_relaxed);
}

/* A particle solved in this substep records its forces on bodies afresh; a frozen grain's
 * records stay (the weight it last pressed with). */
static void forget_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    pbd_state *st = ((freeze_ctx *)vctx)->st;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = st->mov[k];
        if ((st->flag[i] & PBD_FLAG_FROZEN) || st->sense_slot[2 * i] == GR_INVALID_INDEX)
            continue; /* (records fill their first place first) */
        for (uint32_t r = 2 * i; r < 2 * i + 2; r++) {
            st->sense_slot[r] = GR_INVALID_INDEX;
            st->sense_force[r] = st->sense_torque[r] = v3(0, 0, 0);
        }
    }
}

static void freeze(pbd_state *st)
{
    gr_tasks *tasks = st->env.tasks;
    const bool thaw = st->thaw;
    st->thaw = false;
    st->n_frozen = 0;
    freeze_ctx fc = {st, NULL, 0};
    gr_parallel_for(tasks, st->n_mov, PBD_BLOCK, reset_range, &fc);
    const uint32_t asleep = atomic_load_explicit(&fc.count, memory_order_relaxed);
    /* (with less than a quarter asleep, what could freeze does not pay for the marking) */
    if (thaw || !asleep || 4 * (uint64_t)asleep < st->n_mov || !(st->par.sleep_threshold > 0))
        return;
    gr_vec3 lo = st->x[st->mov[0]], hi = lo;
    for (uint32_t k = 1; k < st->n_mov; k++) {
        const gr_vec3 p = st->x[st->mov[k]];
        lo = v3(GR_MIN(lo.x, p.x), GR_MIN(lo.y, p.y), GR_MIN(lo.z, p.z));
        hi = v3(GR_MAX(hi.x, p.x), GR_MAX(hi.y, p.y), GR_MAX(hi.z, p.z));
    }
    const double margin = st->par.margin_fraction * st->r_max;
    double cell = 2.0 * st->r_mov_max + margin;
    const double budget = (double)GR_MAX(FREEZE_MIN_CELLS, FREEZE_CELLS_PER_PARTICLE * st->n_mov);
    freeze_grid g;
    double cells = INFINITY;
    for (int tries = 0; tries < 8 && !(cells <= budget); tries++) {
        cells = 1;
        for (int d = 0; d < 3; d++) {
            const double span = (v3_get(hi, d) - v3_get(lo, d)) / cell;
            cells *= floor(span) + 1 + 2 * FREEZE_PAD;
        }
        if (!(cells <= budget)) /* (not finite: the loop ends, nothing freezes) */
            cell *= 1.01 * cbrt(cells / budget);
    }
    if (!(cells <= budget))
        return;
    int32_t dims[3];
    for (int d = 0; d < 3; d++)
        dims[d] = (int32_t)floor((v3_get(hi, d) - v3_get(lo, d)) / cell) + 1 + 2 * FREEZE_PAD;
    g.ix = gr_grid_index_make(v3_sub(lo, v3(FREEZE_PAD * cell, FREEZE_PAD * cell, FREEZE_PAD * cell)), cell, dims,
                              GR_GRID_X_SLOWEST);
    if (!reserve_cells(st, (size_t)cells))
        return; /* (an optimisation: without room nothing freezes) */
    g.mark = st->fz_mark;
    memset(g.mark, 0, (size_t)cells);
    if (exact_bodies_mark(st, &g, st->r_mov_max + margin))
        return;
    for (uint32_t k = 0; k < st->n_mov; k++) {
        const uint32_t i = st->mov[k];
        if (st->owner[i] != GR_INVALID_INDEX || !pbd_asleep(st, i) || st->stir[i])
            mark_point(&g, st->x[i]);
    }
    fixed_particles_mark(st, &g);
    fc.g = &g;
    atomic_store_explicit(&fc.count, 0, memory_order_relaxed);
    gr_parallel_for(tasks, st->n_mov, PBD_BLOCK, decide_range, &fc);
    st->n_frozen = atomic_load_explicit(&fc.count, memory_order_relaxed);
}

void pbd_freeze(pbd_state *st)
{
    freeze(st);
    if (st->sense_cap) {
        freeze_ctx fc = {st, NULL, 0};
        gr_parallel_for(st->env.tasks, st->n_mov, PBD_BLOCK, forget_range, &fc);
    }
}
