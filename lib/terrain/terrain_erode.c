/* SPDX-License-Identifier: MIT */
/* A column hands sand to each lower neighbour it is too steep to (slope above the start
 * angle at rest, above the stop angle while it moves: hysteresis), sigma / |S| of the height
 * it stands above the stop slope towards that neighbour. A sweep first finds every giving
 * column (its factor), then gathers each column's new height from its own and its
 * neighbours' factors, so that the result does not depend on the order of the columns and
 * each share leaves one column and enters another as the same number. Columns under a body
 * neither give nor receive (no burial). Blocks of 16 x 16 columns: a sweep gives from the
 * active blocks and gathers over them and their neighbours; a block where nothing moved
 * sleeps, so that a pass costs the columns near what moves, not the terrain. */
#include "terrain_erode.h"

#include <math.h>

#include "terrain_store.h"


/* The excess of column a over neighbour b at distance L, > 0 when a gives to b. */
static inline double excess(const terrain_state *st, uint32_t a, uint32_t b, double L)
{
    const uint8_t m = st->mat[a];
    const double dh = st->field.h[a] - st->field.h[b];
    const double thr = st->flags[a] & TERRAIN_MOVING ? st->tan_stop[m] : st->tan_start[m];
    const double e = dh - L * st->tan_stop[m];
    return dh > L * thr && e > 1e-6 * st->p.d ? e : 0.0;
}

typedef struct erode_ctx {
    terrain_state *st;
} erode_ctx;

static void block_bounds(const terrain_state *st, uint32_t t, uint32_t *x0, uint32_t *z0, uint32_t *x1, uint32_t *z1)
{
    const uint32_t tx = t % st->blocks_x, tz = t / st->blocks_x, T = TERRAIN_BLOCK;
    *x0 = tx * T, *z0 = tz * T;
    *x1 = *x0 + T < st->field.nx ? *x0 + T : st->field.nx;
    *z1 = *z0 + T < st->field.nz ? *z0 + T : st->field.nz;
}

static void give_blocks(void *ctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    terrain_state *st = ((erode_ctx *)ctx)->st;
    const uint32_t nx = st->field.nx, nz = st->field.nz;
    for (uint32_t q = begin; q < end; q++) {
        uint32_t x0, z0, x1, z1;
        block_bounds(st, st->block_list[q], &x0, &z0, &x1, &z1);
        for (uint32_t k = z0; k < z1; k++)
            for (uint32_t i = x0; i < x1; i++) {
                const uint32_t c = k * nx + i;
                uint32_t count = 0;
                if (!(st->flags[c] & TERRAIN_CONTACT))
                    for (int e = 0; e < 8; e++) {
                        int di, dk;
                        terrain_neighbour(e, &di, &dk);
                        const int64_t a = (int64_t)i + di, b = (int64_t)k + dk;
                        if (a < 0 || b < 0 || a >= nx || b >= nz)
                            continue;
                        const uint32_t o = (uint32_t)b * nx + (uint32_t)a;
                        if (!(st->flags[o] & TERRAIN_CONTACT) && excess(st, c, o, e < 4 ? st->p.d : st->p.d * 1.4142135623730951) > 0)
                            count++;
                    }
                st->factor[c] = count ? st->p.sigma / count : 0.0;
            }
    }
}

static void gather_blocks(void *ctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    terrain_state *st = ((erode_ctx *)ctx)->st;
    const uint32_t nx = st->field.nx, nz = st->field.nz;
    for (uint32_t q = begin; q < end; q++) {
        const uint32_t t = st->block_list[q];
        uint32_t x0, z0, x1, z1;
        block_bounds(st, t, &x0, &z0, &x1, &z1);
        uint8_t moved = 0;
        for (uint32_t k = z0; k < z1; k++)
            for (uint32_t i = x0; i < x1; i++) {
                const uint32_t c = k * nx + i;
                double out = 0, in = 0;
                const bool closed = (st->flags[c] & TERRAIN_CONTACT) != 0;
                for (int e = 0; e < 8; e++) {
                    int di, dk;
                    terrain_neighbour(e, &di, &dk);
                    const int64_t a = (int64_t)i + di, b = (int64_t)k + dk;
                    if (a < 0 || b < 0 || a >= nx || b >= nz)
                        continue;
                    const uint32_t o = (uint32_t)b * nx + (uint32_t)a;
                    if (st->flags[o] & TERRAIN_CONTACT)
                        continue;
                    const double L = e < 4 ? st->p.d : st->p.d * 1.4142135623730951;
                    if (st->factor[c] > 0)
                        out += st->factor[c] * excess(st, c, o, L);
                    if (!closed && st->factor[o] > 0)
                        in += st->factor[o] * excess(st, o, c, L);
                }
                st->next[c] = st->field.h[c] - out + in;
                st->dist[c] = out > 0 || in > 0;
                moved |= (uint8_t)(st->dist[c] != 0);
            }
        st->block_moved[t] = moved;
    }
}

static void copy_blocks(void *ctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    (void)worker;
    terrain_state *st = ((erode_ctx *)ctx)->st;
    const uint32_t nx = st->field.nx;
    for (uint32_t q = begin; q < end; q++) {
        const uint32_t t = st->block_list[q];
        uint32_t x0, z0, x1, z1;
        block_bounds(st, t, &x0, &z0, &x1, &z1);
        uint32_t ax = x1, az = z1, bx = x0, bz = z0; /* the moved columns' rectangle */
        for (uint32_t k = z0; k < z1; k++)
            for (uint32_t i = x0; i < x1; i++) {
                const uint32_t c = k * nx + i;
                st->factor[c] = 0;
                if (st->dist[c]) {
                    st->field.h[c] = st->next[c];
                    st->flags[c] |= TERRAIN_MOVING;
                    ax = i < ax ? i : ax, az = k < az ? k : az;
                    bx = i + 1 > bx ? i + 1 : bx, bz = k + 1 > bz ? k + 1 : bz;
                } else {
                    st->flags[c] &= (uint8_t)~TERRAIN_MOVING;
                }
                st->dist[c] = 0;
            }
        st->block_rect[t] = (gr_terrain_rect){ax, az, bx > ax ? bx : ax, bz > az ? bz : az}; /* its own only */
    }
}

uint32_t terrain_erode(terrain_state *st, uint32_t sweeps)
{
    erode_ctx ctx = {st};
    const uint32_t TX = st->blocks_x, TZ = st->blocks_z;
    uint32_t run = 0;
    st->active_blocks = 0;
    for (uint32_t s = 0; s < sweeps; s++) {
        /* the givers: the active blocks */
        uint32_t n = 0;
        for (uint32_t t = 0; t < st->block_count; t++)
            if (st->block_active[t])
                st->block_list[n++] = t;
        if (!n)
            break;
        if (s == 0)
            st->active_blocks = n;
        gr_parallel_for(st->env.tasks, n, 1, give_blocks, &ctx);
        /* the gatherers: the active blocks and their neighbours */
        for (uint32_t t = 0; t < st->block_count; t++)
            st->block_region[t] = 0;
        for (uint32_t q = 0; q < n; q++) {
            const uint32_t t = st->block_list[q], tx = t % TX, tz = t / TX;
            for (uint32_t b = tz ? tz - 1 : 0; b <= tz + 1 && b < TZ; b++)
                for (uint32_t a = tx ? tx - 1 : 0; a <= tx + 1 && a < TX; a++)
                    st->block_region[b * TX + a] = 1;
        }
        uint32_t m = 0;
        for (uint32_t t = 0; t < st->block_count; t++)
            if (st->block_region[t])
                st->block_list[m++] = t;
        gr_parallel_for(st->env.tasks, m, 1, gather_blocks, &ctx);
        gr_parallel_for(st->env.tasks, m, 1, copy_blocks, &ctx);
        /* what moved stays awake, and the host hears of it; the rest sleeps */
        for (uint32_t q = 0; q < m; q++) {
            const uint32_t t = st->block_list[q];
            st->block_active[t] = st->block_moved[t];
            const gr_terrain_rect *r = &st->block_rect[t];
            terrain_note_changed(st, r->x0, r->z0, r->x1, r->z1);
        }
        run++;
    }
    return run;
}
