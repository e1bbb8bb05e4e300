/* SPDX-License-Identifier: MIT */
#include "cont_static.h"

#include <string.h>

#include "cont_fraction.h"
#include "cont_ops.h"

static void table_free(cont_static_table *t, gr_mem *mem)
{
    gr_mem_free(mem, t->coord, 3 * sizeof(int32_t) * t->block_cap);
    gr_mem_free(mem, t->first, sizeof(uint32_t) * t->block_cap);
    gr_mem_free(mem, t->count, sizeof(uint32_t) * t->block_cap);
    gr_mem_free(mem, t->body, sizeof(uint32_t) * t->rec_cap);
    gr_mem_free(mem, t->eighths, 64 * (size_t)t->rec_cap);
    memset(t, 0, sizeof *t);
}

void cont_static_free(cont_static_cache *c, gr_mem *mem)
{
    table_free(&c->now, mem);
    table_free(&c->spare, mem);
    memset(c, 0, sizeof *c);
}

static bool reserve_blocks(cont_static_table *t, gr_mem *mem, uint32_t blocks)
{
    if (blocks <= t->block_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(t->block_cap, blocks);
    const gr_array_ref a[] = {{(void **)&t->coord, 3 * sizeof(int32_t)},
                              {(void **)&t->first, sizeof(uint32_t)},
                              {(void **)&t->count, sizeof(uint32_t)}};
    if (!gr_mem_grow_arrays(mem, a, GR_COUNTOF(a), t->block_cap, cap, 0))
        return false;
    t->block_cap = cap;
    return true;
}

/* Room for `recs` records, the first t->recs kept (amortized: a steady grid's table stops
 * growing). */
static bool reserve_records(cont_static_table *t, gr_mem *mem, uint32_t recs)
{
    if (recs <= t->rec_cap)
        return true;
    const uint32_t cap = gr_grow_capacity(t->rec_cap, recs);
    const gr_array_ref a[] = {{(void **)&t->body, sizeof(uint32_t)}, {(void **)&t->eighths, 64}};
    if (!gr_mem_grow_arrays(mem, a, GR_COUNTOF(a), t->rec_cap, cap, t->recs))
        return false;
    t->rec_cap = cap;
    return true;
}

static bool same_geometry(const cont_static_cache *c, const gr_sparse_grid *g, const gr_body_store *bs,
                          uint32_t statics)
{
    return c->valid && c->revision == bs->revision && c->statics == statics && c->h == g->h &&
           c->origin.x == g->origin.x && c->origin.y == g->origin.y && c->origin.z == g->origin.z;
}

/* Measure block i of g for every static body: a record for each that fills any of its cells. */
static bool measure_block(cont_static_table *t, gr_mem *mem, const gr_sparse_grid *g, const gr_body_store *bs,
                          uint32_t i)
{
    const int32_t *b = g->block_coord + 3 * (size_t)i;
    const double h = g->h;
    uint32_t rank = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *body = &bs->data[bs->active[a]];
        if (body->motion != GR_MOTION_STATIC)
            continue;
        if (!reserve_records(t, mem, t->recs + 1))
            return false;
        uint8_t *e = t->eighths + 64 * (size_t)t->recs;
        bool any = false;
        for (uint32_t l = 0; l < 64; l++) {
            /* (the centre as cont_bodies_build computed it from the cell's coordinates) */
            const int32_t k[3] = {b[0] * 4 + (int32_t)(l & 3u), b[1] * 4 + (int32_t)((l >> 2) & 3u),
                                  b[2] * 4 + (int32_t)((l >> 4) & 3u)};
            const gr_vec3 centre =
                v3_add(g->origin, v3((k[0] + 0.5) * h, (k[1] + 0.5) * h, (k[2] + 0.5) * h));
            const double fr = cont_cell_fraction(body, centre, h);
            e[l] = (uint8_t)(fr * 8.0); /* 0, 1 or k / 8: exact */
            any = any || e[l];
        }
        if (any) {
            t->body[t->recs++] = rank;
            t->count[i]++;
        }
        rank++;
    }
    return true;
}

gr_status cont_static_update(cont_static_cache *c, gr_mem *mem, const gr_sparse_grid *g, const gr_body_store *bs)
{
    uint32_t statics = 0;
    for (uint32_t a = 0; a < bs->count; a++)
        statics += bs->data[bs->active[a]].motion == GR_MOTION_STATIC;
    const bool keep = same_geometry(c, g, bs, statics);
    const cont_static_table *old = &c->now;
    const uint32_t old_blocks = keep ? old->blocks : 0;
    cont_static_table *t = &c->spare;
    if (!reserve_blocks(t, mem, g->block_count))
        return GR_ERROR_OUT_OF_MEMORY;
    t->blocks = t->recs = 0;
    uint64_t reused = 0, measured = 0;
    for (uint32_t i = 0, j = 0; i < g->block_count; i++) {
        const int32_t *b = g->block_coord + 3 * (size_t)i;
        memcpy(t->coord + 3 * (size_t)i, b, 3 * sizeof(int32_t));
        t->first[i] = t->recs;
        t->count[i] = 0;
        /* both lists in Morton order: the last table's blocks before this one are gone */
        while (j < old_blocks && gr_sparse_block_less(old->coord + 3 * (size_t)j, b))
            j++;
        if (j < old_blocks && !memcmp(old->coord + 3 * (size_t)j, b, 3 * sizeof(int32_t))) {
            const uint32_t n = old->count[j], from = old->first[j];
            if (!reserve_records(t, mem, t->recs + n))
                return GR_ERROR_OUT_OF_MEMORY;
            if (n) { /* (a block no static body fills has no records, and the tables may have none) */
                memcpy(t->body + t->recs, old->body + from, sizeof(uint32_t) * n);
                memcpy(t->eighths + 64 * (size_t)t->recs, old->eighths + 64 * (size_t)from, 64 * (size_t)n);
            }
            t->recs += n;
            t->count[i] = n;
            reused++;
        } else {
            if (!measure_block(t, mem, g, bs, i))
                return GR_ERROR_OUT_OF_MEMORY;
            measured++;
        }
    }
    t->blocks = g->block_count;
    const cont_static_table swap = c->now;
    c->now = *t;
    c->spare = swap;
    c->valid = true;
    c->revision = bs->revision;
    c->statics = statics;
    c->h = g->h;
    c->origin = g->origin;
    c->reused += reused;
    c->measured += measured;
    return GR_OK;
}

typedef struct fractions_job {
    const cont_static_table *t;
    uint32_t rank;
    double *frac;
} fractions_job;

static void fraction_blocks(void *ctx, uint32_t b0, uint32_t b1, uint32_t worker)
{
    (void)worker;
    const fractions_job *j = (const fractions_job *)ctx;
    const cont_static_table *t = j->t;
    if (b1 == b0)
        return; /* (no blocks: frac may be NULL) */
    memset(j->frac + 64 * (size_t)b0, 0, sizeof(double) * 64 * (size_t)(b1 - b0));
    for (uint32_t i = b0; i < b1; i++)
        for (uint32_t r = t->first[i]; r < t->first[i] + t->count[i]; r++) {
            if (t->body[r] != j->rank)
                continue;
            const uint8_t *e = t->eighths + 64 * (size_t)r;
            for (uint32_t l = 0; l < 64; l++)
                j->frac[64 * (size_t)i + l] = e[l] / 8.0;
        }
}

void cont_static_fractions(const cont_static_cache *c, gr_tasks *tasks, uint32_t rank, double *frac)
{
    fractions_job j = {&c->now, rank, frac};
    cont_for_blocks_cheap(tasks, c->now.blocks, fraction_blocks, &j);
}
