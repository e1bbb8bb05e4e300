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
    gr_mem_free(mem, c->fresh_block, sizeof(uint32_t) * c->fresh_cap);
    gr_mem_free(mem, c->fresh, c->fresh_bytes);
    gr_mem_free(mem, c->stamps, sizeof(uint32_t) * c->stamp_cap);
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

typedef struct measure_job {
    cont_static_cache *c;
    const gr_sparse_grid *g;
    const gr_body_store *bs;
    uint32_t statics, stamps; /* stamps: a worker's share of c->stamps */
} measure_job;

/* The new blocks [k0, k1) of the list (c->fresh_block) measured for every static body, into
 * c->fresh (64 eighths a block and body). A mesh's distance query marks the triangles it met
 * (stamps): each worker queries a copy of the body whose query has the worker's own stamps (the
 * answers do not depend on them: they only skip triangles met twice in one query). */
static void measure_blocks(void *ctx, uint32_t k0, uint32_t k1, uint32_t worker)
{
    const measure_job *j = (const measure_job *)ctx;
    cont_static_cache *c = j->c;
    const gr_sparse_grid *g = j->g;
    const double h = g->h;
    for (uint32_t k = k0; k < k1; k++) {
        const int32_t *b = g->block_coord + 3 * (size_t)c->fresh_block[k];
        uint32_t rank = 0;
        for (uint32_t a = 0; a < j->bs->count; a++) {
            const gr_body_data *body = &j->bs->data[j->bs->active[a]];
            if (body->motion != GR_MOTION_STATIC)
                continue;
            gr_body_data own = *body;
            const bool mesh = body->shape == GR_SHAPE_MESH && body->mesh_query.start;
            if (mesh) {
                own.mesh_query.stamp = c->stamps + (size_t)worker * j->stamps;
                own.mesh_query.query = c->query[worker];
            }
            uint8_t *e = c->fresh + 64 * ((size_t)k * j->statics + rank);
            for (uint32_t l = 0; l < 64; l++) {
                /* (the centre as cont_bodies_build computed it from the cell's coordinates) */
                const int32_t q[3] = {b[0] * 4 + (int32_t)(l & 3u), b[1] * 4 + (int32_t)((l >> 2) & 3u),
                                      b[2] * 4 + (int32_t)((l >> 4) & 3u)};
                const gr_vec3 centre =
                    v3_add(g->origin, v3((q[0] + 0.5) * h, (q[1] + 0.5) * h, (q[2] + 0.5) * h));
                e[l] = (uint8_t)(cont_cell_fraction(&own, centre, h) * 8.0); /* 0, 1 or k / 8: exact */
            }
            if (mesh)
                c->query[worker] = own.mesh_query.query;
            rank++;
        }
    }
}

/* Room for `fresh` new blocks' eighths and the stamps of `workers` mesh queries over the static
 * meshes (grow-only; stamps and query ids zeroed when they grow or the ids near their wrap). */
static bool reserve_scratch(cont_static_cache *c, gr_mem *mem, uint32_t fresh, uint32_t statics, uint32_t stamps)
{
    if (fresh > c->fresh_cap) {
        const uint32_t cap = gr_grow_capacity(c->fresh_cap, fresh);
        const gr_array_ref a = {(void **)&c->fresh_block, sizeof(uint32_t)};
        if (!gr_mem_grow_arrays(mem, &a, 1, c->fresh_cap, cap, 0))
            return false;
        c->fresh_cap = cap;
    }
    const size_t eighths = 64 * (size_t)fresh * statics;
    if (eighths > c->fresh_bytes) {
        uint8_t *e = (uint8_t *)gr_mem_alloc(mem, eighths + eighths / 2);
        if (!e)
            return false;
        gr_mem_free(mem, c->fresh, c->fresh_bytes);
        c->fresh = e;
        c->fresh_bytes = eighths + eighths / 2;
    }
    bool clear = false;
    for (uint32_t w = 0; w < GR_MAX_WORKERS; w++)
        clear = clear || c->query[w] > UINT32_MAX / 2;
    if (stamps > c->stamp_cap) {
        uint32_t *st = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * stamps);
        if (!st)
            return false;
        gr_mem_free(mem, c->stamps, sizeof(uint32_t) * c->stamp_cap);
        c->stamps = st;
        c->stamp_cap = stamps;
        clear = true;
    }
    if (clear && c->stamp_cap) { /* (a stamp from another mesh's query never equals a later id) */
        memset(c->stamps, 0, sizeof(uint32_t) * c->stamp_cap);
        memset(c->query, 0, sizeof c->query);
    }
    return true;
}

gr_status cont_static_update(cont_static_cache *c, gr_mem *mem, gr_tasks *tasks, const gr_sparse_grid *g,
                             const gr_body_store *bs)
{
    uint32_t statics = 0, stamps = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if (b->motion != GR_MOTION_STATIC)
            continue;
        statics++;
        if (b->shape == GR_SHAPE_MESH && b->mesh_query.start)
            stamps = GR_MAX(stamps, b->mesh_query.nt ? b->mesh_query.nt : 1);
    }
    const uint32_t workers = tasks && tasks->worker_count > 1 ? tasks->worker_count : 1;
    const bool keep = same_geometry(c, g, bs, statics);
    const cont_static_table *old = &c->now;
    const uint32_t old_blocks = keep ? old->blocks : 0;
    cont_static_table *t = &c->spare;
    if (!reserve_blocks(t, mem, g->block_count) ||
        !reserve_scratch(c, mem, g->block_count, statics, workers * stamps))
        return GR_ERROR_OUT_OF_MEMORY;
    /* the blocks the last table had (first: its index there) and the new ones (listed) */
    uint32_t fresh = 0;
    for (uint32_t i = 0, j = 0; i < g->block_count; i++) {
        const int32_t *b = g->block_coord + 3 * (size_t)i;
        memcpy(t->coord + 3 * (size_t)i, b, 3 * sizeof(int32_t));
        /* both lists in Morton order: the last table's blocks before this one are gone */
        while (j < old_blocks && gr_sparse_block_less(old->coord + 3 * (size_t)j, b))
            j++;
        if (j < old_blocks && !memcmp(old->coord + 3 * (size_t)j, b, 3 * sizeof(int32_t))) {
            t->first[i] = j;
            t->count[i] = old->count[j];
        } else {
            t->first[i] = fresh;
            t->count[i] = UINT32_MAX;
            c->fresh_block[fresh++] = i;
        }
    }
    measure_job mj = {c, g, bs, statics, stamps};
    if (workers > 1 && fresh > 1)
        gr_parallel_for(tasks, fresh, 1, measure_blocks, &mj);
    else
        measure_blocks(&mj, 0, fresh, 0);
    /* the records in block order: the last table's, or a measured block's bodies that fill any
     * of its cells */
    t->blocks = t->recs = 0;
    for (uint32_t i = 0; i < g->block_count; i++) {
        const uint32_t src = t->first[i];
        t->first[i] = t->recs;
        if (t->count[i] != UINT32_MAX) {
            const uint32_t n = t->count[i], from = old->first[src];
            if (!reserve_records(t, mem, t->recs + n))
                return GR_ERROR_OUT_OF_MEMORY;
            if (n) { /* (a block no static body fills has no records, and the tables may have none) */
                memcpy(t->body + t->recs, old->body + from, sizeof(uint32_t) * n);
                memcpy(t->eighths + 64 * (size_t)t->recs, old->eighths + 64 * (size_t)from, 64 * (size_t)n);
            }
            t->recs += n;
            continue;
        }
        t->count[i] = 0;
        for (uint32_t r = 0; r < statics; r++) {
            const uint8_t *e = c->fresh + 64 * ((size_t)src * statics + r);
            bool any = false;
            for (uint32_t l = 0; l < 64; l++)
                any = any || e[l];
            if (!any)
                continue;
            if (!reserve_records(t, mem, t->recs + 1))
                return GR_ERROR_OUT_OF_MEMORY;
            memcpy(t->eighths + 64 * (size_t)t->recs, e, 64);
            t->body[t->recs++] = r;
            t->count[i]++;
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
    c->reused += g->block_count - fresh;
    c->measured += fresh;
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
