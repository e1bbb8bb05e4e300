/* SPDX-License-Identifier: MIT */
/* White-box tests of the internal layers: grid, neighbour lists, tasks, handles, hashing,
 * streams, material mixing, body geometry. Linked against the library's objects. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/bodies/body_shapes.h"
#include "../lib/core/cpu.h"
#include "../lib/core/handle_tags.h"
#include "../lib/core/hash.h"
#include "../lib/core/rng.h"
#include "../lib/core/sort.h"
#include "../lib/core/stream.h"
#include "../lib/dem/dem_batch.h"
#include "../lib/dem/dem_internal.h"
#include "../lib/dem/dem_params.h"
#include "../lib/dem/dem_rebuild.h"
#include "../lib/world/world.h"
#include "../lib/geom/mesh.h"
#include "../lib/geom/mesh_query.h"
#include "../lib/core/vec3.h"
#include "../lib/grid/cell_grid.h"
#include "../lib/simd/simd_kernels.h"
#include "harness.h"
#include "test_util.h"

/* ---- grid ------------------------------------------------------------------------------ */

static void test_cell_grid_matches_brute_force(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const double cells[] = {0.05, 0.1, 0.37, 2.0};
    gr_rng rng = {42};
    for (int trial = 0; trial < 4; trial++) {
        const uint32_t n = 700;
        double *p = (double *)malloc(sizeof(double) * 3 * n);
        for (uint32_t i = 0; i < 3 * n; i++)
            p[i] = -1.3 + 2.1 * gr_rng_uniform(&rng) * (i % 3 == 1 ? 0.3 : 1.0); /* negative coords, flat */
        gr_cell_grid g;
        gr_cell_grid_init(&g);
        CHECK(gr_cell_grid_build(&g, &mem, p, 3, n, cells[trial], 4 * n));
        /* every point in exactly one cell, in cell order, each cell's points at the right coords */
        uint32_t *seen = (uint32_t *)calloc(n, sizeof(uint32_t));
        for (uint32_t c = 0; c < gr_cell_grid_cells(&g); c++)
            for (uint32_t k = g.cell_start[c]; k < g.cell_start[c + 1]; k++) {
                uint32_t i = g.order[k];
                seen[i]++;
                int32_t cc[3];
                gr_cell_grid_coords(&g, v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]), cc);
                CHECK(gr_cell_grid_index(&g, cc) == c);
                /* the grid index lays the cells out the same way (world-axis coordinates) */
                int32_t w[3];
                for (int k = 0; k < 3; k++)
                    w[g.axis[k]] = cc[k];
                CHECK(gr_grid_index_at(&g.index, w[0], w[1], w[2]) == c);
                CHECK(g.index.dims[g.axis[0]] == g.dims[0] && g.index.dims[g.axis[2]] == g.dims[2]);
            }
        for (uint32_t i = 0; i < n; i++)
            CHECK(seen[i] == 1);
        free(seen);
        /* neighbours within the cell size: 27-cell search equals brute force */
        const double cut = g.index.cell;
        for (uint32_t i = 0; i < n; i += 7) {
            gr_vec3 pi = v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
            int32_t ci[3];
            gr_cell_grid_coords(&g, pi, ci);
            uint32_t found = 0, brute = 0;
            for (int d0 = -1; d0 <= 1; d0++)
                for (int d1 = -1; d1 <= 1; d1++)
                    for (int d2 = -1; d2 <= 1; d2++) {
                        int32_t c[3] = {ci[0] + d0, ci[1] + d1, ci[2] + d2};
                        if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= g.dims[0] || c[1] >= g.dims[1] ||
                            c[2] >= g.dims[2])
                            continue;
                        uint32_t idx = gr_cell_grid_index(&g, c);
                        for (uint32_t k = g.cell_start[idx]; k < g.cell_start[idx + 1]; k++) {
                            uint32_t j = g.order[k];
                            if (j != i && v3_len(v3_sub(pi, v3(p[3 * j], p[3 * j + 1], p[3 * j + 2]))) < cut)
                                found++;
                        }
                    }
            for (uint32_t j = 0; j < n; j++)
                if (j != i && v3_len(v3_sub(pi, v3(p[3 * j], p[3 * j + 1], p[3 * j + 2]))) < cut)
                    brute++;
            CHECK(found == brute);
        }
        gr_cell_grid_free(&g, &mem);
        free(p);
    }
    /* a far outlier does not explode the cell count */
    double q[6] = {0, 0, 0, 1e6, -1e6, 3e5};
    gr_cell_grid g;
    gr_cell_grid_init(&g);
    CHECK(gr_cell_grid_build(&g, &mem, q, 3, 2, 0.001, 4096));
    CHECK(gr_cell_grid_cells(&g) <= 4096);
    gr_cell_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

/* The DEM half neighbour list right after a rebuild holds exactly the pairs within
 * r_i + r_j + skin, each once, owned by the lower index, and slabs colour correctly. */
static void test_dem_neighbor_list_matches_brute_force(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = 2;
    gr_world *w;
    CHECK(gr_world_create(&def, &w) == GR_OK);
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.pattern = GR_FILL_RANDOM;
    fd.min = v3(-0.05, -0.02, -0.03);
    fd.max = v3(0.04, 0.03, 0.02);
    fd.radius = 0.001;
    fd.radius_max = 0.003;
    fd.max_count = 3000;
    uint32_t n;
    CHECK(gr_fill_box(w, &fd, &n, NULL, 0) == GR_OK);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_SPHERE;
    bd.radius = 0.01;
    CHECK(gr_add_body(w, &bd, NULL) == GR_OK);
    dem_state *st = (dem_state *)w->systems[0].state;
    CHECK(dem_update_pairs(st) == GR_OK);
    CHECK(dem_rebuild(st) == GR_OK);
    CHECK(st->n == n);
    const double skin = st->skin;
    uint64_t brute = 0, listed = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            double cut = st->xr[i].r + st->xr[j].r + skin;
            if (v3_len2(v3_sub(xr_pos(&st->xr[i]), xr_pos(&st->xr[j]))) < cut * cut) {
                brute++;
                int count = 0;
                for (uint32_t e = st->nb_start[i]; e < st->nb_start[i + 1]; e++)
                    count += (st->nb_j[e] & DEM_INDEX_MASK) == j;
                CHECK(count == 1);
            }
        }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t e = st->nb_start[i]; e < st->nb_start[i + 1]; e++) {
            uint32_t j = st->nb_j[e] & DEM_INDEX_MASK;
            CHECK(j > i && j < n);
            double cut = st->xr[i].r + st->xr[j].r + skin;
            CHECK(v3_len2(v3_sub(xr_pos(&st->xr[i]), xr_pos(&st->xr[j]))) < cut * cut);
            listed++;
        }
    CHECK(listed == brute);
    /* slab colouring: partners are in the same slab or the next */
    for (uint32_t s = 0; s < st->nslabs; s++)
        for (uint32_t i = st->slab_start[s]; i < st->slab_start[s + 1]; i++)
            for (uint32_t e = st->nb_start[i]; e < st->nb_start[i + 1]; e++)
                CHECK((st->nb_j[e] & DEM_INDEX_MASK) < st->slab_start[GR_MIN(s + 2, st->nslabs)]);
    /* body candidates: exactly the grains within r + skin of the sphere */
    uint32_t near = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool is_near = v3_len(xr_pos(&st->xr[i])) - 0.01 < st->xr[i].r + skin;
        near += is_near;
        CHECK((st->bc_start[i + 1] - st->bc_start[i]) == (is_near ? 1u : 0u));
    }
    CHECK(near == st->bc_count);
    /* the grain table points at the sorted storage */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t slot = w->grains.list[k];
        CHECK(st->slot[w->grains.dense[slot]] == slot);
    }
    printf("  %llu candidate pairs, %u body candidates, %u slabs\n", (unsigned long long)brute, near, st->nslabs);
    gr_world_destroy(w);
}

/* ---- tasks -------------------------------------------------------------------------------- */

typedef struct cover_ctx {
    _Atomic uint32_t *hits;
    _Atomic uint32_t max_worker;
} cover_ctx;

static void cover(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    cover_ctx *c = (cover_ctx *)vctx;
    for (uint32_t i = begin; i < end; i++)
        atomic_fetch_add(&c->hits[i], 1);
    uint32_t m = atomic_load(&c->max_worker);
    while (worker > m && !atomic_compare_exchange_weak(&c->max_worker, &m, worker)) {
    }
}

static void *inline_enqueue(gr_task_fn *fn, void *ctx, void *user)
{
    (void)user;
    fn(ctx);
    return NULL;
}
static void never_finish(void *h, void *user)
{
    (void)h;
    (void)user;
}

static void test_parallel_for_covers_each_index_once(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    const uint32_t workers[] = {1, 2, 5};
    const uint32_t counts[] = {0, 1, 7, 1000, 100003};
    const uint32_t blocks[] = {1, 64, 5000};
    for (int wi = 0; wi < 3; wi++)
        for (int host = 0; host < 2; host++) {
            gr_tasks t;
            gr_task_hooks hooks = {inline_enqueue, never_finish, NULL};
            CHECK(gr_tasks_init(&t, &mem, workers[wi], host ? &hooks : NULL) == GR_OK);
            for (int ci = 0; ci < 5; ci++)
                for (int bi = 0; bi < 3; bi++) {
                    uint32_t n = counts[ci];
                    _Atomic uint32_t *hits = (_Atomic uint32_t *)calloc(n + 1, sizeof(uint32_t));
                    cover_ctx c = {hits, 0};
                    for (int rep = 0; rep < 3; rep++)
                        gr_parallel_for(&t, n, blocks[bi], cover, &c);
                    for (uint32_t i = 0; i < n; i++)
                        CHECK(atomic_load(&hits[i]) == 3);
                    CHECK(atomic_load(&c.max_worker) < workers[wi]);
                    free((void *)hits);
                }
            gr_tasks_destroy(&t);
        }
    CHECK(mem.in_use == 0);
}

/* A pool thread the OS does not run must not hold up a job: with pool threads held out of
 * every job (gr_tasks_hold, as if descheduled) and more threads than cores, many tiny affine
 * and dynamic jobs still complete, each block runs once, on a worker that is not held and
 * runs nothing else at that moment, only while its job runs, and the per-block sums reduce to
 * the serial total bit for bit. The old pool waited for every thread to pass (hang). */
typedef struct stall_ctx {
    _Atomic uint32_t *hits;
    double *partial; ///< per block
    uint32_t block, workers;
    uint64_t held;
    _Atomic uint32_t active;  ///< 1 while the job runs
    _Atomic uint32_t *in_use; ///< per worker index: one block at a time
    _Atomic uint32_t errors;
} stall_ctx;

static double stall_value(uint32_t i)
{
    return sin(0.001 * i) * 1e-3 + 1.0 / (1.0 + i);
}

static void stall_range(void *vctx, uint32_t begin, uint32_t end, uint32_t worker)
{
    stall_ctx *c = (stall_ctx *)vctx;
    if (!atomic_load(&c->active) || worker >= c->workers || ((c->held >> worker) & 1u) ||
        atomic_exchange(&c->in_use[worker], 1) != 0) {
        atomic_fetch_add(&c->errors, 1);
        return;
    }
    double s = 0;
    for (uint32_t i = begin; i < end; i++) {
        atomic_fetch_add(&c->hits[i], 1);
        s += stall_value(i);
    }
    c->partial[begin / c->block] = s;
    atomic_store(&c->in_use[worker], 0);
}

static void test_parallel_for_survives_stalled_workers(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    enum { NMAX = 1001 };
    const uint32_t workers[] = {2, 3, 5, 8};
    const uint32_t counts[] = {1, 2, 3, 7, 64, NMAX};
    const uint32_t blocks[] = {1, 4, 64};
    _Atomic uint32_t *hits = (_Atomic uint32_t *)calloc(NMAX, sizeof(uint32_t));
    double *partial = (double *)calloc(NMAX, sizeof(double));
    _Atomic uint32_t in_use[GR_MAX_WORKERS];
    for (uint32_t k = 0; k < GR_MAX_WORKERS; k++)
        atomic_init(&in_use[k], 0);
    alarm(120); /* a job that waits for a held thread never returns: fail in time, not hang */
    for (int wi = 0; wi < 4; wi++) {
        const uint32_t w = workers[wi];
        const uint64_t holds[] = {0, 2u, 1ull << (w - 1), ((1ull << w) - 1) & ~1ull};
        gr_tasks t;
        CHECK(gr_tasks_init(&t, &mem, w, NULL) == GR_OK);
        for (int hi = 0; hi < 4; hi++) {
            gr_tasks_hold(&t, holds[hi]);
            for (int rep = 0; rep < 20; rep++)
                for (int ci = 0; ci < 6; ci++)
                    for (int bi = 0; bi < 3; bi++)
                        for (int affine = 0; affine < 2; affine++) {
                            const uint32_t n = counts[ci], blk = blocks[bi], nb = (n + blk - 1) / blk;
                            for (uint32_t i = 0; i < n; i++)
                                atomic_store(&hits[i], 0);
                            stall_ctx c = {hits, partial, blk, w, holds[hi], 1, in_use, 0};
                            if (affine)
                                gr_parallel_for_affine(&t, n, blk, stall_range, &c);
                            else
                                gr_parallel_for(&t, n, blk, stall_range, &c);
                            atomic_store(&c.active, 0);
                            CHECK(atomic_load(&c.errors) == 0);
                            for (uint32_t i = 0; i < n; i++)
                                CHECK(atomic_load(&hits[i]) == 1);
                            double total = 0, serial = 0;
                            for (uint32_t b = 0; b < nb; b++) {
                                total += partial[b];
                                double s = 0;
                                for (uint32_t i = b * blk; i < n && i < (b + 1) * blk; i++)
                                    s += stall_value(i);
                                serial += s;
                            }
                            CHECK(memcmp(&total, &serial, sizeof total) == 0);
                        }
        }
        gr_tasks_hold(&t, 0); /* released threads find no job open and wait again */
        gr_tasks_destroy(&t);
    }
    alarm(0);
    free((void *)hits);
    free(partial);
    CHECK(mem.in_use == 0);
}

/* ---- handles, hashing, streams -------------------------------------------------------------- */

static void test_handles(void)
{
    uint64_t id = gr_handle_make(0xbeef, 7, 123456);
    CHECK(gr_handle_tag(id) == 0xbeef && gr_handle_gen(id) == 7 && gr_handle_slot(id) == 123456);
    /* the fields at their limits do not spill into each other */
    const uint32_t top_slot = GR_HANDLE_SLOT_LIMIT - 1u;
    CHECK(GR_MAX_GRAINS <= top_slot && GR_MAX_BODIES <= top_slot && GR_MAX_MATERIALS <= top_slot &&
          GR_MAX_CLUMP_TEMPLATES <= top_slot);
    id = gr_handle_make(GR_HANDLE_TAG_MAX, GR_HANDLE_GEN_MAX, top_slot);
    CHECK(id == UINT64_MAX && gr_handle_tag(id) == GR_HANDLE_TAG_MAX && gr_handle_gen(id) == GR_HANDLE_GEN_MAX &&
          gr_handle_slot(id) == top_slot);
    id = gr_handle_make(1, 1, 0);
    CHECK(gr_handle_tag(id) == 1 && gr_handle_gen(id) == 1 && gr_handle_slot(id) == 0);
    /* tags: never 0, distinct for the next GR_HANDLE_TAG_MAX worlds */
    const uint32_t t0 = gr_handle_new_tag(), t1 = gr_handle_new_tag();
    CHECK(t0 != 0 && t1 != 0 && t1 != t0 && t0 <= GR_HANDLE_TAG_MAX && t1 <= GR_HANDLE_TAG_MAX);
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_grain_table t;
    gr_grain_table_init(&t);
    CHECK(gr_grain_table_reserve(&t, &mem, 3));
    uint32_t a = gr_grain_table_take(&t, 0), b = gr_grain_table_take(&t, 0), c = gr_grain_table_take(&t, 0);
    uint64_t ha = gr_handle_make(5, t.gen[a], a), hb = gr_handle_make(5, t.gen[b], b);
    uint32_t s;
    CHECK(gr_handle_check(ha, 5, t.gen, t.alive, t.slot_count, &s) == GR_OK && s == a);
    CHECK(gr_handle_check(ha, 6, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_WRONG_WORLD);
    CHECK(gr_handle_check(0, 5, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_INVALID_HANDLE);
    CHECK(gr_handle_check(gr_handle_make(5, 1, 99), 5, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_INVALID_HANDLE);
    gr_grain_table_release(&t, a);
    CHECK(gr_handle_check(ha, 5, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_STALE_HANDLE);
    CHECK(t.count == 2 && t.list[0] == c && t.list[1] == b); /* swap-remove */
    CHECK(gr_grain_table_reserve(&t, &mem, 1));
    uint32_t d = gr_grain_table_take(&t, 0);
    CHECK(d == a); /* reused slot, new generation */
    CHECK(gr_handle_check(ha, 5, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_STALE_HANDLE);
    CHECK(gr_handle_check(hb, 5, t.gen, t.alive, t.slot_count, &s) == GR_OK);
    /* malformed values: no tag or no slot field is never a handle (INVALID, not WRONG_WORLD) */
    CHECK(gr_handle_check(hb & ~((uint64_t)GR_HANDLE_TAG_MAX << 43), 5, t.gen, t.alive, t.slot_count, &s) ==
          GR_ERROR_INVALID_HANDLE);
    CHECK(gr_handle_check(hb & ~(uint64_t)GR_HANDLE_SLOT_LIMIT, 5, t.gen, t.alive, t.slot_count, &s) ==
          GR_ERROR_INVALID_HANDLE);
    gr_grain_table_free(&t, &mem);
    CHECK(mem.in_use == 0);
}

/* One slot taken and released over and over: every handle it ever issued stays dead, and at
 * the last generation the slot is retired instead of wrapping (GR_HANDLE_GEN_MAX + 5 uses). */
static void test_handle_slot_retires(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_grain_table t;
    gr_grain_table_init(&t);
    enum { CYCLES = GR_HANDLE_GEN_MAX + 5 };
    uint64_t *ids = (uint64_t *)malloc(sizeof(uint64_t) * CYCLES);
    uint32_t s, first_slot = GR_INVALID_INDEX, retired_at = 0;
    for (uint32_t k = 0; k < CYCLES; k++) {
        CHECK(gr_grain_table_reserve(&t, &mem, 1));
        const uint32_t slot = gr_grain_table_take(&t, 0);
        if (k == 0)
            first_slot = slot;
        ids[k] = gr_handle_make(9, t.gen[slot], slot);
        CHECK(gr_handle_check(ids[k], 9, t.gen, t.alive, t.slot_count, &s) == GR_OK && s == slot);
        /* the first handle never comes back to life */
        CHECK(k == 0 || gr_handle_check(ids[0], 9, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_STALE_HANDLE);
        if (slot != first_slot && !retired_at)
            retired_at = k;
        gr_grain_table_release(&t, slot);
    }
    CHECK(retired_at == GR_HANDLE_GEN_MAX); /* the slot gave 65535 lifetimes, then a new slot */
    CHECK(t.retired == 1 && t.count == 0 && t.alive[first_slot] == 0);
    for (uint32_t k = 0; k < CYCLES; k++) {
        CHECK(gr_handle_check(ids[k], 9, t.gen, t.alive, t.slot_count, &s) == GR_ERROR_STALE_HANDLE);
        CHECK(k == 0 || ids[k] != ids[k - 1]);
    }
    /* a retired slot counts against GR_MAX_GRAINS */
    CHECK(!gr_grain_table_reserve(&t, &mem, GR_MAX_GRAINS));
    CHECK(gr_grain_table_reserve(&t, &mem, 1));
    free(ids);
    gr_grain_table_free(&t, &mem);
    CHECK(mem.in_use == 0);
}

/* ---- sort: gr_sort against a reference (libc qsort on key then original index: the one
 * stable order) on random and adversarial inputs, elements of 8 and 16 bytes ---------------- */

typedef struct sort_rec {
    uint64_t key, seq;
} sort_rec;
static int cmp_rec_key(const void *a, const void *b)
{
    const uint64_t x = ((const sort_rec *)a)->key, y = ((const sort_rec *)b)->key;
    return (x > y) - (x < y);
}
static int cmp_rec_stable(const void *a, const void *b)
{
    const int c = cmp_rec_key(a, b);
    if (c)
        return c;
    const uint64_t x = ((const sort_rec *)a)->seq, y = ((const sort_rec *)b)->seq;
    return (x > y) - (x < y);
}
static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
typedef struct dbl_rec {
    double v;
    uint64_t seq;
} dbl_rec;
static int cmp_dbl_stable(const void *a, const void *b)
{
    const int c = cmp_dbl(a, b);
    if (c)
        return c;
    const uint64_t x = ((const dbl_rec *)a)->seq, y = ((const dbl_rec *)b)->seq;
    return (x > y) - (x < y);
}

static uint64_t sort_key(int pattern, size_t i, size_t n, gr_rng *rng)
{
    switch (pattern) {
    case 0: return gr_rng_next(rng);                 /* random, distinct */
    case 1: return gr_rng_next(rng) % 4;             /* few keys: long runs of ties */
    case 2: return i;                                /* sorted */
    case 3: return n - i;                            /* reversed */
    case 4: return 7;                                /* all equal */
    case 5: return i < n / 2 ? i : n - i;            /* organ pipe */
    case 6: return (i % 17) * 1000 + (i % 3);        /* saw-tooth */
    default: return i ^ 1;                           /* sorted pairs swapped */
    }
}

static void test_sort_matches_reference(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 1000, 1024, 4099};
    gr_rng rng = {7};
    int bad = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int pattern = 0; pattern < 8; pattern++) {
            const size_t n = sizes[si];
            sort_rec *a = (sort_rec *)malloc(sizeof(sort_rec) * (n + 1)), *ref = (sort_rec *)malloc(sizeof(sort_rec) * (n + 1)),
                     *scratch = (sort_rec *)malloc(sizeof(sort_rec) * (n + 1));
            for (size_t i = 0; i < n; i++)
                a[i] = ref[i] = (sort_rec){sort_key(pattern, i, n, &rng), i};
            gr_sort(a, n, sizeof(sort_rec), cmp_rec_key, scratch);
            qsort(ref, n, sizeof(sort_rec), cmp_rec_stable);
            bad += n && memcmp(a, ref, sizeof(sort_rec) * n) != 0;
            /* 8-byte elements: doubles with +0 and -0 ties (stability shows in the sign) */
            double *d = (double *)malloc(sizeof(double) * (n + 1)), *ds = (double *)malloc(sizeof(double) * (n + 1));
            dbl_rec *dref = (dbl_rec *)malloc(sizeof(dbl_rec) * (n + 1));
            for (size_t i = 0; i < n; i++) {
                const uint64_t k = sort_key(pattern, i, n, &rng);
                d[i] = k % 5 == 0 ? (i % 2 ? -0.0 : 0.0) : (double)(k % 1000) - 500.0;
                dref[i] = (dbl_rec){d[i], i};
            }
            gr_sort(d, n, sizeof(double), cmp_dbl, ds);
            qsort(dref, n, sizeof(dbl_rec), cmp_dbl_stable);
            for (size_t i = 0; i < n; i++)
                bad += memcmp(&d[i], &dref[i].v, sizeof(double)) != 0;
            free(a);
            free(ref);
            free(scratch);
            free(d);
            free(ds);
            free(dref);
        }
    CHECK(bad == 0);
}

static void test_crc_and_streams(void)
{
    CHECK(gr_crc32(0, "123456789", 9) == 0xcbf43926u);
    CHECK(gr_crc32(gr_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u);
    unsigned char buf[256];
    size_t used = 0;
    struct sink { unsigned char *b; size_t *n; } sk = {buf, &used};
    gr_stream_writer *w = (gr_stream_writer *)malloc(sizeof *w);
    gr_writer_init(w, NULL, NULL);
    gr_writer_u32(w, 0xdeadbeefu);
    gr_writer_f64(w, -1.5);
    gr_writer_u64(w, 1ull << 60);
    CHECK(gr_writer_finish(w) && w->size == 20);
    (void)sk;
    /* read back from a hand-made little-endian buffer */
    unsigned char src[20] = {0xef, 0xbe, 0xad, 0xde};
    double d = -1.5;
    memcpy(src + 4, &d, 8);
    uint64_t big = 1ull << 60;
    memcpy(src + 12, &big, 8);
    gr_stream_reader r;
    gr_reader_init(&r, src, sizeof src);
    CHECK(gr_reader_u32(&r) == 0xdeadbeefu);
    CHECK(gr_reader_f64(&r) == -1.5);
    CHECK(gr_reader_u64(&r) == (1ull << 60));
    CHECK(!r.bad && gr_reader_left(&r) == 0);
    CHECK(gr_reader_u32(&r) == 0 && r.bad); /* past the end: flagged, zero */
    free(w);
}

/* ---- materials and geometry ------------------------------------------------------------------ */

static void test_material_mixing(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_materials m;
    gr_materials_init(&m);
    gr_material_def a, b;
    gr_material_def_init(&a);
    gr_material_def_init(&b);
    a.youngs_modulus = 1e7;
    a.poisson_ratio = 0.25;
    a.friction = 0.4;
    a.restitution = 0.9;
    b.youngs_modulus = 2e8;
    b.poisson_ratio = 0.35;
    b.friction = 0.9;
    b.restitution = 0.4;
    CHECK(gr_materials_add(&m, &mem, &a) && gr_materials_add(&m, &mem, &b));
    gr_pair_coeffs c;
    gr_materials_pair(&m, 0, 1, &c);
    double es = 1.0 / ((1 - 0.25 * 0.25) / 1e7 + (1 - 0.35 * 0.35) / 2e8);
    double gs = 1.0 / (2 * (2 - 0.25) * 1.25 / 1e7 + 2 * (2 - 0.35) * 1.35 / 2e8);
    CHECK_NEAR(c.e_star, es, 1e-9 * es);
    CHECK_NEAR(c.g_star, gs, 1e-9 * gs);
    CHECK_NEAR(c.friction, sqrt(0.4 * 0.9), 1e-15);
    CHECK_NEAR(c.restitution, sqrt(0.9 * 0.4), 1e-15);
    gr_materials_pair(&m, 0, 0, &c);
    CHECK(c.friction == 0.4 && c.restitution == 0.9); /* same material: its own values exactly */
    gr_material_pair_def o;
    gr_material_pair_def_init(&o);
    o.friction = 0.1;
    o.restitution = 0.2;
    CHECK(gr_materials_set_pair(&m, &mem, 1, 0, &o));
    gr_materials_pair(&m, 0, 1, &c);
    CHECK(c.friction == 0.1 && c.restitution == 0.2);
    gr_materials_pair(&m, 1, 0, &c);
    CHECK(c.friction == 0.1);
    gr_materials_free(&m, &mem);
    CHECK(mem.in_use == 0);
}

static gr_body_data shape(gr_shape_type s)
{
    gr_body_data b;
    memset(&b, 0, sizeof b);
    b.shape = s;
    b.position = v3(1, 2, 3);
    /* 90 degrees about z: local x -> world y */
    b.orientation = (gr_quat){0, 0, sqrt(0.5), sqrt(0.5)};
    b.radius = 0.5;
    b.half_height = 1.0;
    b.half_extents = v3(1.0, 0.5, 0.25);
    b.normal_local = v3(1, 0, 0);
    gr_body_update_frame(&b);
    return b;
}

static void test_body_distances(void)
{
    gr_vec3 n, q;
    gr_body_data b = shape(GR_SHAPE_PLANE); /* world normal +y through (1,2,3) */
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(5, 2.7, -4), &n, &q), 0.7, 1e-12);
    CHECK_NEAR(n.y, 1.0, 1e-12);
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(0, 1.0, 0), &n, &q), -1.0, 1e-12);
    b = shape(GR_SHAPE_SPHERE);
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(1, 2, 5), &n, &q), 1.5, 1e-12);
    CHECK_NEAR(q.z, 3.5, 1e-12);
    b = shape(GR_SHAPE_CAPSULE); /* axis local y -> world -x */
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(0.5, 2, 4), &n, &q), 0.5, 1e-12);
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(-1.0, 2, 3), &n, &q), 0.5, 1e-12); /* beyond the end cap */
    b = shape(GR_SHAPE_BOX); /* world half extents: x 0.5, y 1.0, z 0.25 */
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(1, 2, 4), &n, &q), 0.75, 1e-12);
    CHECK_NEAR(n.z, 1.0, 1e-12);
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(1.4, 2, 3), &n, &q), -0.1, 1e-12); /* inside: nearest face */
    CHECK_NEAR(n.x, 1.0, 1e-12);
    CHECK_NEAR(gr_body_feature_distance(&b, 0, v3(2.5, 4, 3), &n, &q), sqrt(2.0), 1e-12); /* past an edge */
    b = shape(GR_SHAPE_CONTAINER);
    b.orientation = quat_identity();
    gr_body_update_frame(&b);
    b.open_faces = GR_FACE_POS_Y;
    CHECK(gr_body_feature_count(&b) == 6 && !gr_body_feature_enabled(&b, 2) && gr_body_feature_enabled(&b, 3));
    /* inside, near the -y floor (face 3): distance to the floor, normal up */
    CHECK_NEAR(gr_body_feature_distance(&b, 3, v3(1.2, 1.6, 3.1), &n, &q), 0.1, 1e-12);
    CHECK_NEAR(n.y, 1.0, 1e-12);
    CHECK_NEAR(gr_body_distance(&b, v3(1.2, 1.6, 3.1)), 0.1, 1e-12);
    CHECK(isinf(gr_body_bound_radius(&(gr_body_data){.shape = GR_SHAPE_PLANE})));
}

/* Every vectorised contact kernel gives the scalar code's results bit for bit. */
static void fill_random_batch(struct gr_contact_batch *b, gr_rng *rng, uint32_t n)
{
    b->n = n;
    for (uint32_t k = 0; k < BATCH; k++) {
        double u[32];
        for (int q = 0; q < 32; q++)
            u[q] = gr_rng_uniform(rng) - 0.5;
        b->ri[k] = 0.001 * (1 + u[0]);
        b->rj[k] = 0.001 * (1 + u[1]);
        double dist = (b->ri[k] + b->rj[k]) * (1 - 0.02 * fabs(u[2]));
        gr_vec3 n3 = v3(u[3], u[4], u[5] + 0.7);
        n3 = v3_scale(n3, dist / v3_len(n3));
        b->dx[k] = n3.x;
        b->dy[k] = n3.y;
        b->dz[k] = n3.z;
        b->d2[k] = b->dx[k] * b->dx[k] + b->dy[k] * b->dy[k] + b->dz[k] * b->dz[k];
        b->mi[k] = 1e-5 * (1 + u[6]);
        b->mj[k] = 1e-5 * (1 + u[7]);
        b->vx[k] = u[8];
        b->vy[k] = u[9];
        b->vz[k] = u[10];
        b->wix[k] = 100 * u[11];
        b->wiy[k] = 100 * u[12];
        b->wiz[k] = 100 * u[13];
        b->wjx[k] = 100 * u[14];
        b->wjy[k] = 100 * u[15];
        b->wjz[k] = 100 * u[16];
        /* springs both small (sticking) and large (sliding) */
        double hs = k % 3 == 0 ? 1e-3 : 1e-7;
        b->hx[k] = hs * u[17];
        b->hy[k] = hs * u[18];
        b->hz[k] = hs * u[19];
        b->mx[k] = (k % 2 ? 1e-4 : 1e-9) * u[20];
        b->my[k] = (k % 2 ? 1e-4 : 1e-9) * u[21];
        b->mz[k] = (k % 2 ? 1e-4 : 1e-9) * u[22];
        b->mu[k] = 0.5 + u[23];
        b->mur[k] = 0.1 + 0.1 * u[24];
        b->c1[k] = 3.6e6;
        b->c2[k] = 1100 * (1 + u[25]);
        b->c3[k] = 4.5e6;
        b->c4[k] = 1400 * (1 + u[26]);
    }
}

/* The kernel tables this CPU runs (simd_kernels.h), the baseline first, then the one the
 * library picks, then every other one. */
static int kernel_tables(const gr_kernels **k)
{
    int n = 0;
    k[n++] = &gr_kernels_base;
    k[n++] = gr_kernels_pick();
#if defined(GR_HAVE_AVX2)
    if (gr_cpu_has_avx2())
        k[n++] = &gr_kernels_avx2;
#endif
#if defined(GR_HAVE_AVX512)
    if (gr_cpu_has_avx512())
        k[n++] = &gr_kernels_avx512;
#endif
    return n;
}

/* The upsampling sums (kernel_points.h) in every build: the same bits lane for lane (over the
 * lanes both fill), and close to the sums in double. */
static void check_hr_sums(gr_rng *rng)
{
    const gr_kernels *builds[4];
    const int ns = kernel_tables(builds);
    enum { N = 96 };
    static float x[N], y[N], z[N], g[N], vx[N], vy[N], vz[N];
    for (int trial = 0; trial < 40; trial++) {
        for (int k = 0; k < N; k++) {
            x[k] = (float)(0.2 * gr_rng_uniform(rng)), y[k] = (float)(0.2 * gr_rng_uniform(rng));
            z[k] = (float)(0.2 * gr_rng_uniform(rng)), g[k] = k % 5 ? 1.0f : 0.0f;
            vx[k] = (float)(gr_rng_uniform(rng) - 0.5), vy[k] = (float)(gr_rng_uniform(rng) - 0.5);
            vz[k] = (float)(gr_rng_uniform(rng) - 0.5);
        }
        /* lists of every length up to N (no padding), 8 points spread over the list's box
         * (some beyond every entry's reach) */
        const gr_point_list l = {x, y, z, g, vx, vy, vz, 1 + (uint32_t)trial * 7 % N};
        float px[GR_POINT_LANES], py[GR_POINT_LANES], pz[GR_POINT_LANES];
        for (int p = 0; p < GR_POINT_LANES; p++) {
            px[p] = (float)(0.3 * gr_rng_uniform(rng) - 0.05), py[p] = (float)(0.3 * gr_rng_uniform(rng) - 0.05);
            pz[p] = (float)(0.3 * gr_rng_uniform(rng) - 0.05);
        }
        if (trial % 4 == 0)
            px[7] = py[7] = pz[7] = px[12] = py[12] = pz[12] = 1e15f; /* empty lanes, as the advection fills them */
        const float inv_r2 = 1.0f / (0.07f * 0.07f);
        float out[4][5][GR_POINT_LANES];
        for (int k = 0; k < ns; k++) {
            for (int a = 0; a < 5; a++) /* lanes a build does not fill are left alone */
                for (int p = 0; p < GR_POINT_LANES; p++)
                    out[k][a][p] = -7.0f;
            builds[k]->point_sums(&l, px, py, pz, inv_r2, out[k]);
            for (int a = 0; a < 5; a++)
                for (int p = (int)builds[k]->point_lanes; p < GR_POINT_LANES; p++)
                    CHECK(out[k][a][p] == -7.0f);
        }
        /* the widest build's lanes all agree with the reference below; every build's with it */
        int wide = 0;
        for (int k = 1; k < ns; k++)
            wide = builds[k]->point_lanes > builds[wide]->point_lanes ? k : wide;
        for (int k = 0; k < ns; k++)
            for (int a = 0; a < 5; a++)
                CHECK(memcmp(out[k][a], out[wide][a], sizeof(float) * builds[k]->point_lanes) == 0);
        for (int p = 0; p < (int)builds[wide]->point_lanes; p++) {
            double ref[5] = {0};
            for (uint32_t k = 0; k < l.n; k++) {
                const double dx = px[p] - x[k], dy = py[p] - y[k], dz = pz[p] - z[k];
                const double t = 1.0 - (dx * dx + dy * dy + dz * dz) * inv_r2, w = t > 0 ? t * t * t : 0;
                ref[0] += w, ref[1] += w * g[k], ref[2] += w * vx[k], ref[3] += w * vy[k], ref[4] += w * vz[k];
            }
            for (int a = 0; a < 5; a++)
                CHECK(fabs(out[wide][a][p] - ref[a]) <= 1e-5 * (1.0 + fabs(ref[0])));
            /* a point's sums do not depend on its lane or on the other lanes */
            for (int k = 0; k < ns; k++) {
                float qx[GR_POINT_LANES], qy[GR_POINT_LANES], qz[GR_POINT_LANES];
                for (int m = 0; m < GR_POINT_LANES; m++)
                    qx[m] = qy[m] = qz[m] = 1e15f;
                const int lane = (p + trial) % (int)builds[k]->point_lanes;
                qx[lane] = px[p], qy[lane] = py[p], qz[lane] = pz[p];
                float alone[5][GR_POINT_LANES];
                builds[k]->point_sums(&l, qx, qy, qz, inv_r2, alone);
                for (int a = 0; a < 5; a++)
                    CHECK(alone[a][lane] == out[wide][a][p]);
            }
        }
    }
}

/* The scan for the first body particle a point is inside of (gr_point_hit_fn): every build finds
 * the one a plain loop with push_from_particle's test finds, from any start, at any count
 * (whole vectors and tails), with points on a reach exactly and on a particle's centre. */
static void check_hr_hit(gr_rng *rng)
{
    const gr_kernels *builds[4];
    const int nb = kernel_tables(builds);
    enum { N = 37 };
    double bx[N], by[N], bz[N], r2[N];
    int found[3] = {0};
    for (int trial = 0; trial < 400; trial++) {
        for (int b = 0; b < N; b++) {
            bx[b] = 0.4 * gr_rng_uniform(rng), by[b] = 0.4 * gr_rng_uniform(rng), bz[b] = 0.4 * gr_rng_uniform(rng);
            const double reach = 0.03 + 0.12 * gr_rng_uniform(rng);
            r2[b] = reach * reach;
        }
        const double spread = trial % 3 ? 0.4 : 2.0; /* (among the particles, or mostly clear of them) */
        double x = spread * gr_rng_uniform(rng), y = spread * gr_rng_uniform(rng), z = spread * gr_rng_uniform(rng);
        const int pick = (int)(gr_rng_uniform(rng) * N);
        if (trial % 5 == 1) /* on a centre: no direction to push it, so no hit */
            x = bx[pick], y = by[pick], z = bz[pick];
        if (trial % 5 == 2) { /* exactly on a reach: not inside */
            x = bx[pick], y = by[pick], z = bz[pick] + 0.125;
            const double d = z - bz[pick];
            r2[pick] = d * d;
        }
        const uint32_t n = (uint32_t)(trial % N) + 1, start = (uint32_t)(trial / 7) % n;
        if (trial % 5 == 3) /* inside the first particle scanned */
            x = bx[start] + 0.01, y = by[start], z = bz[start];
        uint32_t want = n;
        for (uint32_t b = start; b < n && want == n; b++) {
            const double dx = x - bx[b], dy = y - by[b], dz = z - bz[b], d2 = dx * dx + dy * dy + dz * dz;
            if (!(d2 >= r2[b] || !(d2 > 0)))
                want = b;
        }
        found[want == n ? 0 : (want == start ? 1 : 2)]++;
        for (int k = 0; k < nb; k++)
            CHECK(builds[k]->point_hit(bx, by, bz, r2, start, n, x, y, z) == want);
    }
    printf("  hit scan: %d none, %d the first, %d a later one\n", found[0], found[1], found[2]);
    CHECK(found[0] > 20 && found[1] > 20 && found[2] > 20);
}

/* The points' blend and move in lanes: every build gives the same bits, and each lane does what
 * the one-point code does (the reference below repeats lib/upsample/upsample.c's operations in order,
 * so equality is exact), whatever the other lanes hold. */
static void blend_reference(const gr_point_blend_in *in, const gr_point_blend_consts *k, int l, double out[6], int *how,
                            int *pushed)
{
    *pushed = 0;
    const double v0[3] = {in->vx[l], in->vy[l], in->vz[l]};
    double v[3] = {v0[0] + k->g[0] * k->dt, v0[1] + k->g[1] * k->dt, v0[2] + k->g[2] * k->dt};
    const double W = in->sums[0][l], wg = in->sums[1][l];
    const bool kept = in->rest[l] && k->still;
    if (kept) {
        v[0] = v0[0], v[1] = v0[1], v[2] = v0[2];
    } else if (wg > 0) {
        const double inv = 1.0 / W;
        double alpha = 1.0 - W * k->inv_dense;
        alpha = alpha < 0 ? 0 : (alpha > 1 ? 1 : alpha);
        for (int a = 0; a < 3; a++)
            v[a] = in->sums[2 + a][l] * inv * (1.0 - alpha) + v[a] * alpha;
    }
    const double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double x[3] = {in->x[l], in->y[l], in->z[l]};
    /* move_point: pieces of at most r_H, each tested against the exact bodies */
    const double l2 = v2 * (k->dt * k->dt);
    const uint32_t pieces = l2 > k->rh * k->rh ? (uint32_t)GR_MIN(ceil(sqrt(l2) / k->rh), 64.0) : 1u;
    const double h = k->dt / pieces;
    const double vb[3] = {v[0], v[1], v[2]}; /* the blend's */
    bool near = false;
    for (uint32_t piece = 0; piece < pieces; piece++) {
        for (int a = 0; a < 3; a++)
            x[a] = x[a] + v[a] * h;
        for (uint32_t e = 0; e < k->exact_count; e++) {
            const double *s = k->exact + GR_POINT_EXACT_VALUES * e, d[3] = {x[0] - s[0], x[1] - s[1], x[2] - s[2]};
            if (s[7] == 0) {
                near |= !(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > (s[6] + k->rh) * (s[6] + k->rh));
                continue;
            }
            /* a plane: lib/upsample/upsample.c's push_from_exact and point_contact, with vec3.h's operations */
            const gr_vec3 n = {s[3], s[4], s[5]}, c = {s[0], s[1], s[2]};
            gr_vec3 p = {x[0], x[1], x[2]}, vel = {v[0], v[1], v[2]};
            const double dist = v3_dot(v3_sub(p, c), n);
            if (dist >= k->rh || !(k->rh - dist > 0))
                continue;
            const gr_vec3 pt = v3_madd(p, n, -dist);
            p = v3_madd(p, n, k->rh - dist);
            const gr_vec3 vs = v3_add(v3(s[8], s[9], s[10]), v3_cross(v3(s[11], s[12], s[13]), v3_sub(pt, c)));
            const gr_vec3 rel = v3_sub(vel, vs);
            const double vn = v3_dot(rel, n);
            if (vn < 0) {
                const gr_vec3 vt = v3_madd(rel, n, -vn);
                const double lt = v3_len(vt), cut = -s[14] * vn;
                vel = v3_add(vs, lt > cut ? v3_scale(vt, 1.0 - cut / lt) : v3(0, 0, 0));
            }
            x[0] = p.x, x[1] = p.y, x[2] = p.z;
            v[0] = vel.x, v[1] = vel.y, v[2] = vel.z;
            *pushed = 1;
        }
    }
    if (near) /* (the one-point code moves it from the blend's velocity) */
        v[0] = vb[0], v[1] = vb[1], v[2] = vb[2];
    bool in_cell = true; /* point_key's test */
    for (int d = 0; d < 3; d++) {
        const double t = (x[k->axis[d]] - k->origin[d]) * k->inv_cell;
        in_cell &= t >= k->cell[d] && t < k->cell[d] + 1;
    }
    *how = !kept && k->still && !k->exact_moving && (v2 < k->rest2 || wg > 0)
               ? GR_POINT_RESTS
               : (near ? GR_POINT_MOVE_ONE_BY_ONE : GR_POINT_MOVED | (in_cell ? GR_POINT_IN_CELL : 0));
    for (int a = 0; a < 3; a++)
        out[a] = x[a], out[3 + a] = v[a];
}

static void check_hr_blend(gr_rng *rng)
{
    const gr_kernels *builds[4];
    const int nb = kernel_tables(builds);
    int wide = 0;
    for (int b = 1; b < nb; b++)
        wide = builds[b]->point_lanes > builds[wide]->point_lanes ? b : wide;
    /* a floor, a moving (conveyor-like, turning) wall and a ball among the exact bodies */
    const double exact[3 * GR_POINT_EXACT_VALUES] = {
        0,   0,   0,   0,  1, 0, INFINITY, 1, 0,   0, 0,   0, 0,   0, 0.5, 0, /* floor, mu_k 0.5 */
        0.3, 0,   0,   -1, 0, 0, INFINITY, 1, 0.1, 0, 0.2, 0, 0.5, 0, 0.3, 0, /* wall */
        0.1, 0.1, 0.1, 0,  0, 0, 0.06,     0, 0,   0, 0,   0, 0,   0, 0,   0}; /* ball */
    int seen[GR_POINT_HOW + 1] = {0}, in_cell = 0, plane_pushed = 0;
    for (int trial = 0; trial < 200; trial++) {
        gr_point_blend_in in;
        for (int l = 0; l < GR_POINT_LANES; l++) {
            in.x[l] = (float)(0.3 * gr_rng_uniform(rng)), in.y[l] = (float)(0.2 * gr_rng_uniform(rng));
            in.z[l] = (float)(0.3 * gr_rng_uniform(rng));
            const double speed = trial % 3 == 0 ? 0.02 : 2.0;
            in.vx[l] = (float)(speed * (gr_rng_uniform(rng) - 0.5)), in.vy[l] = (float)(speed * (gr_rng_uniform(rng) - 0.5));
            in.vz[l] = (float)(speed * (gr_rng_uniform(rng) - 0.5));
            /* weights from none (free flight) through sparse (blended with gravity) to dense */
            const double W = (l + trial) % 4 == 0 ? 0.0 : 3.0 * gr_rng_uniform(rng);
            in.sums[0][l] = (float)W, in.sums[1][l] = (float)(l % 3 ? W * gr_rng_uniform(rng) : 0.0);
            for (int a = 2; a < 5; a++)
                in.sums[a][l] = (float)(W * speed * (gr_rng_uniform(rng) - 0.5));
            in.rest[l] = (l + trial) % 5 == 0;
        }
        for (int e = 7; trial % 7 == 0 && e < GR_POINT_LANES; e += 6) /* empty lanes as the advection fills them */
            in.x[e] = in.y[e] = in.z[e] = 1e15f, in.vx[e] = in.vy[e] = in.vz[e] = 0,
            in.sums[0][e] = in.sums[1][e] = in.sums[2][e] = in.sums[3][e] = in.sums[4][e] = 0;
        /* a grid cell of 0.1 m (axes in the order y, z, x) among the points */
        const gr_point_blend_consts k = {{0, -9.81, 0}, 1.0 / 30, 0.7, trial % 2 ? 0.05 * 0.05 : 0.2 * 0.2, 0.01,
                                       trial % 4 < 2, trial % 8 == 3, (uint32_t)trial % 4, exact, {1, 2, 0},
                                       {-0.05, -0.05, -0.05}, 10.0, {1 + trial % 2, 1 + trial % 3, 2 - trial % 2}};
        gr_point_blend_out out[4];
        for (int b = 0; b < nb; b++) {
            memset(&out[b], 0x5a, sizeof out[b]); /* lanes a build does not fill are left alone */
            builds[b]->point_blend(&in, &k, &out[b]);
            for (int l = (int)builds[b]->point_lanes; l < GR_POINT_LANES; l++)
                CHECK(out[b].how[l] == 0x5a);
        }
        for (int b = 0; b < nb; b++) /* lane for lane the same bits */
            for (uint32_t l = 0; l < builds[b]->point_lanes; l++) {
                const gr_point_blend_out *p = &out[b], *q = &out[wide];
                CHECK(p->how[l] == q->how[l] && p->x[l] == q->x[l] && p->y[l] == q->y[l] && p->z[l] == q->z[l] &&
                      memcmp(&p->vx[l], &q->vx[l], sizeof(double)) == 0 &&
                      memcmp(&p->vy[l], &q->vy[l], sizeof(double)) == 0 &&
                      memcmp(&p->vz[l], &q->vz[l], sizeof(double)) == 0);
            }
        for (int l = 0; l < (int)builds[wide]->point_lanes; l++) {
            const gr_point_blend_out *o = &out[wide];
            double ref[6];
            int how, pushed;
            blend_reference(&in, &k, l, ref, &how, &pushed);
            plane_pushed += pushed && (how & GR_POINT_HOW) == GR_POINT_MOVED;
            CHECK(o->how[l] == how);
            seen[how & GR_POINT_HOW]++;
            in_cell += (how & GR_POINT_IN_CELL) != 0;
            if (how == GR_POINT_RESTS)
                continue;
            const double got[6] = {o->x[l], o->y[l], o->z[l], o->vx[l], o->vy[l], o->vz[l]};
            CHECK(memcmp(got + 3, ref + 3, 3 * sizeof(double)) == 0);
            if ((how & GR_POINT_HOW) == GR_POINT_MOVED)
                CHECK(memcmp(got, ref, 3 * sizeof(double)) == 0);
            /* the same point alone in another lane, the others empty */
            gr_point_blend_in one;
            memset(&one, 0, sizeof one);
            for (int m = 0; m < GR_POINT_LANES; m++)
                one.x[m] = one.y[m] = one.z[m] = 1e15f;
            const int lane = (l + trial) % (int)builds[wide]->point_lanes;
            one.x[lane] = in.x[l], one.y[lane] = in.y[l], one.z[lane] = in.z[l];
            one.vx[lane] = in.vx[l], one.vy[lane] = in.vy[l], one.vz[lane] = in.vz[l];
            for (int a = 0; a < 5; a++)
                one.sums[a][lane] = in.sums[a][l];
            one.rest[lane] = in.rest[l];
            gr_point_blend_out alone;
            builds[wide]->point_blend(&one, &k, &alone);
            const double v_alone[3] = {alone.vx[lane], alone.vy[lane], alone.vz[lane]};
            CHECK(alone.how[lane] == how && memcmp(v_alone, got + 3, sizeof v_alone) == 0);
        }
    }
    printf("  blend: %d moved (%d pushed out of planes in lanes), %d at rest, %d one by one\n", seen[GR_POINT_MOVED],
           plane_pushed, seen[GR_POINT_RESTS], seen[GR_POINT_MOVE_ONE_BY_ONE]);
    /* every outcome was exercised, and points were pushed out of the floor or the wall (with
     * friction) in the lanes */
    /* (a share of the lanes the widest table has: 16 with AVX-512, 8 with AVX2) */
    const int lanes = 200 * (int)builds[wide]->point_lanes, least = lanes / 64;
    CHECK(seen[GR_POINT_MOVED] > least && seen[GR_POINT_RESTS] > least && seen[GR_POINT_MOVE_ONE_BY_ONE] > least);
    CHECK(in_cell > 10 && in_cell < seen[GR_POINT_MOVED]);
    CHECK(plane_pushed > 20);
}

static void test_vector_kernels_match_scalar(void)
{
    gr_rng rng = {2024};
    dem_law law;
    memset(&law, 0, sizeof law);
    law.roll_damping = 0.3;
    gr_contact_kernel_fn *kernels[5];
    for (int epsd = 0; epsd < 2; epsd++) {
        int nk = 0;
        const gr_kernels *tables[4];
        const int nt = kernel_tables(tables);
        for (int k = 0; k < nt; k++)
            kernels[nk++] = epsd ? tables[k]->contact_epsd : tables[k]->contact;
        for (int clamp = 0; clamp < 2; clamp++)
            for (int trial = 0; trial < 60; trial++) {
                static struct gr_contact_batch ref, vec;
                uint32_t n = 1 + (uint32_t)trial % BATCH;
                fill_random_batch(&ref, &rng, n);
                ref.uniform = trial % 2;
                if (ref.uniform) {
                    /* one material pair: the kernels read the scalars, the reference the arrays */
                    ref.u_mu = ref.mu[0];
                    ref.u_mur = ref.mur[0];
                    ref.u_c1 = ref.c1[0];
                    ref.u_c2 = ref.c2[0];
                    ref.u_c3 = ref.c3[0];
                    ref.u_c4 = ref.c4[0];
                    for (uint32_t k = 0; k < BATCH; k++) {
                        ref.mu[k] = ref.u_mu;
                        ref.mur[k] = ref.u_mur;
                        ref.c1[k] = ref.u_c1;
                        ref.c2[k] = ref.u_c2;
                        ref.c3[k] = ref.u_c3;
                        ref.c4[k] = ref.u_c4;
                    }
                }
                law.clamp = clamp != 0;
                for (int kh = 0; kh < 2 * nk; kh++) { /* every kernel, at h > 0 and at h = 0 */
                    const int kk = kh % nk;
                    const double hh = kh < nk ? 2e-5 : 0.0;
                    memcpy(&vec, &ref, sizeof vec);
                    gr_contact_consts kc = {hh, clamp ? 1.0 : 0.0, hh > 0 ? law.roll_damping : 0.0, hh > 0 ? 1.0 : 0.0};
                    kernels[kk](&vec, &kc);
                    struct gr_contact_batch r2;
                    memcpy(&r2, &ref, sizeof r2);
                    dem_kernel_reference(&r2, &law, epsd != 0, hh);
                    for (uint32_t k = 0; k < n; k++) {
                        CHECK(memcmp(&vec.fx[k], &r2.fx[k], 8) == 0 && memcmp(&vec.fy[k], &r2.fy[k], 8) == 0 &&
                              memcmp(&vec.fz[k], &r2.fz[k], 8) == 0);
                        CHECK(memcmp(&vec.cx[k], &r2.cx[k], 8) == 0 && memcmp(&vec.cz[k], &r2.cz[k], 8) == 0);
                        CHECK(memcmp(&vec.ai[k], &r2.ai[k], 8) == 0 && memcmp(&vec.aj[k], &r2.aj[k], 8) == 0);
                        /* the scalar code selects the spring in its second loop */
                        CHECK(memcmp(&vec.hx[k], &r2.hx[k], 8) == 0 && memcmp(&vec.hz[k], &r2.hz[k], 8) == 0);
                        if (epsd) {
                            CHECK(memcmp(&vec.mx[k], &r2.mx[k], 8) == 0 && memcmp(&vec.my[k], &r2.my[k], 8) == 0);
                            CHECK(memcmp(&vec.rlx[k], &r2.rlx[k], 8) == 0 && memcmp(&vec.rlz[k], &r2.rlz[k], 8) == 0);
                        }
                    }
                }
            }
        printf("  rolling %s: %d kernels match the scalar code\n", epsd ? "EPSD" : "none", nk);
    }
    check_hr_sums(&rng);
    check_hr_hit(&rng);
    check_hr_blend(&rng);
}

/* ---- mesh queries ------------------------------------------------------------------------- */

/* The binned query answers what the exact O(triangles) signed distance answers: exactly within
 * its limit, clamped beyond; also for points whose vertical ray runs exactly through shared
 * edges and vertices (the top-left rule counts each crossing once). */
static void test_mesh_query_matches_exact(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    static gr_vec3 sv[300];
    static uint32_t si[3 * 512];
    uint32_t snv;
    const uint32_t snt = tu_sphere_mesh(0.3, 3, sv, si, &snv);
    gr_vec3 bv[8];
    uint32_t bi[36];
    tu_box_mesh(v3(0.5, 0.25, 0.5), v3(0, 0, 0), bv, bi);
    /* a cylinder with fan caps (48 around, the caps' triangles meeting at their centres): rays
     * along the fans' edges (each shared by two triangles, traversed both ways) */
    enum { AROUND = 48 };
    static gr_vec3 cv[2 * AROUND + 2];
    static uint32_t ci[3 * 4 * AROUND];
    uint32_t cnt = 0;
    for (int k = 0; k < AROUND; k++) {
        const double a = 2 * 3.14159265358979323846 * k / AROUND;
        cv[k] = v3(0.4 * cos(a), -0.3, 0.4 * sin(a));
        cv[AROUND + k] = v3(0.4 * cos(a), 0.3, 0.4 * sin(a));
    }
    cv[2 * AROUND] = v3(0, -0.3, 0);
    cv[2 * AROUND + 1] = v3(0, 0.3, 0);
    for (uint32_t k = 0; k < AROUND; k++) {
        const uint32_t n = (k + 1) % AROUND;
        const uint32_t quad[6] = {k, AROUND + n, n, k, AROUND + k, AROUND + n};
        for (int e = 0; e < 6; e++)
            ci[3 * cnt + e / 3 * 3 + e % 3] = quad[e];
        cnt += 2;
        const uint32_t bottom[3] = {2 * AROUND, k, n}, top[3] = {2 * AROUND + 1, AROUND + n, AROUND + k};
        memcpy(&ci[3 * cnt++], bottom, sizeof bottom);
        memcpy(&ci[3 * cnt++], top, sizeof top);
    }
    const struct {
        const gr_vec3 *v;
        const uint32_t *idx;
        uint32_t nt;
    } meshes[3] = {{sv, si, snt}, {bv, bi, 12}, {cv, ci, cnt}};
    gr_rng rng = {42};
    long checked = 0, wrong = 0;
    for (int m = 0; m < 3; m++) {
        gr_mesh_query q;
        CHECK(gr_mesh_query_build(&q, &mem, meshes[m].v, meshes[m].idx, meshes[m].nt) == GR_OK);
        /* closed and oriented: the side comes from pseudo-normals, or from the cells' sides */
        CHECK(q.pseudo);
        for (int k = 0; k < 4000; k++) {
            gr_vec3 p = v3(gr_rng_uniform(&rng) - 0.5, gr_rng_uniform(&rng) - 0.5, gr_rng_uniform(&rng) - 0.5);
            p = v3_scale(p, 1.4);
            if (k % 4 == 0 && m == 0) { /* below or above a vertex: its vertical line */
                const gr_vec3 a = meshes[m].v[(uint32_t)k % snv];
                p.x = a.x, p.z = a.z;
            }
            if (k % 4 == 0 && m == 1) /* on the diagonal shared by the top (and bottom) triangles */
                p.z = p.x = 0.9 * (gr_rng_uniform(&rng) - 0.5);
            if (k % 2 == 0 && m == 2) { /* below or above a fan edge, from the centre out */
                const double t = 0.999 * gr_rng_uniform(&rng);
                const gr_vec3 a = cv[(uint32_t)k % AROUND];
                p.x = t * a.x, p.z = t * a.z;
            }
            const double limit = 0.02 + 0.2 * gr_rng_uniform(&rng);
            gr_vec3 c;
            const double exact = -gr_mesh_signed_distance(meshes[m].v, meshes[m].idx, meshes[m].nt, p, &c);
            const double got = gr_mesh_query_depth(&q, p, limit);
            const double want = fabs(exact) < limit ? exact : (exact > 0 ? limit : -limit);
            checked++;
            if (fabs(got - want) > 1e-12 && !(fabs(exact) < 1e-12)) {
                if (wrong++ < 5)
                    printf("  mesh %d point (%g %g %g) limit %g: got %.15g, exact %.15g\n", m, p.x, p.y, p.z, limit, got,
                           exact);
            }
        }
        gr_mesh_query_free(&q);
    }
    printf("  %ld points, %ld wrong\n", checked, wrong);
    CHECK(wrong == 0);
    /* an open box (a face missing) and one with a face turned over have no pseudo-normals
     * (their side is a ray's) */
    gr_mesh_query q;
    CHECK(gr_mesh_query_build(&q, &mem, bv, bi, 10) == GR_OK);
    CHECK(!q.pseudo);
    gr_mesh_query_free(&q);
    uint32_t flipped[36];
    memcpy(flipped, bi, sizeof flipped);
    flipped[1] = bi[2], flipped[2] = bi[1];
    CHECK(gr_mesh_query_build(&q, &mem, bv, flipped, 12) == GR_OK);
    CHECK(!q.pseudo);
    gr_mesh_query_free(&q);
    CHECK(mem.in_use == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"cell_grid_matches_brute_force", test_cell_grid_matches_brute_force},
        {"dem_neighbor_list_matches_brute_force", test_dem_neighbor_list_matches_brute_force},
        {"parallel_for_covers_each_index_once", test_parallel_for_covers_each_index_once},
        {"parallel_for_survives_stalled_workers", test_parallel_for_survives_stalled_workers},
        {"handles", test_handles},
        {"handle_slot_retires", test_handle_slot_retires},
        {"sort_matches_reference", test_sort_matches_reference},
        {"crc_and_streams", test_crc_and_streams},
        {"material_mixing", test_material_mixing},
        {"body_distances", test_body_distances},
        {"mesh_query_matches_exact", test_mesh_query_matches_exact},
        {"vector_kernels_match_scalar", test_vector_kernels_match_scalar},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
