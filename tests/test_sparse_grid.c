/* SPDX-License-Identifier: MIT */
/* White-box tests of the block-sparse grid (lib/grid/sparse_grid.h): the active blocks against a
 * brute-force set, far and negative coordinates, independence of point order, neighbour steps
 * against hashed lookups, the points sorted by cell, rejected points, no allocation within
 * capacity, out of memory at every allocation. */
#include <math.h>
#include <stdlib.h>

#include "../lib/core/rng.h"
#include "../lib/grid/sparse_grid.h"
#include "harness.h"
#include "test_util.h"

/* ---- helpers --------------------------------------------------------------------------------- */

typedef struct blk {
    int32_t b[3];
} blk;

static int cmp_blk(const void *pa, const void *pb)
{
    const blk *a = (const blk *)pa, *b = (const blk *)pb;
    for (int k = 2; k >= 0; k--)
        if (a->b[k] != b->b[k])
            return a->b[k] < b->b[k] ? -1 : 1;
    return 0;
}

static int64_t floor_div4(int64_t c) { return c >= 0 ? c / 4 : -((-c + 3) / 4); }

/* The cell of a point as the reference computes it (floor, no truncation trick); false when
 * the grid must reject it. */
static int ref_cell(const double *p, gr_vec3 o, double h, int64_t c[3])
{
    const double org[3] = {o.x, o.y, o.z}, inv = 1.0 / h;
    for (int a = 0; a < 3; a++) {
        const double t = floor((p[a] - org[a]) * inv);
        if (!(t >= -1073741824.0 && t < 1073741824.0))
            return 0;
        c[a] = (int64_t)t;
    }
    return 1;
}

/* The blocks every point's cell reaches within `halo` cells, sorted and distinct. Returns the
 * count; *out is malloc'ed. */
static uint32_t brute_blocks(const double *p, uint32_t n, double h, gr_vec3 o, int halo, blk **out)
{
    size_t cap = 64, m = 0;
    blk *v = (blk *)malloc(sizeof(blk) * cap);
    for (uint32_t i = 0; i < n; i++) {
        int64_t c[3];
        if (!ref_cell(p + 3 * (size_t)i, o, h, c))
            continue;
        int64_t lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = floor_div4(c[a] - halo);
            hi[a] = floor_div4(c[a] + halo);
        }
        for (int64_t z = lo[2]; z <= hi[2]; z++)
            for (int64_t y = lo[1]; y <= hi[1]; y++)
                for (int64_t x = lo[0]; x <= hi[0]; x++) {
                    if (m == cap) {
                        cap *= 2;
                        v = (blk *)realloc(v, sizeof(blk) * cap);
                    }
                    v[m++] = (blk){{(int32_t)x, (int32_t)y, (int32_t)z}};
                }
    }
    qsort(v, m, sizeof(blk), cmp_blk);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || cmp_blk(&v[u - 1], &v[i]) != 0)
            v[u++] = v[i];
    *out = v;
    return (uint32_t)u;
}

/* Morton order of two blocks (biased coordinates, 30 bits each; z the highest bit of a triple):
 * the axis whose coordinates differ in the highest bit decides. */
static int morton_less(const int32_t *a, const int32_t *b)
{
    int axis = -1;
    uint64_t best = 0;
    for (int k = 0; k < 3; k++) {
        const uint64_t x = (uint64_t)((int64_t)a[k] + (1 << 29)) ^ (uint64_t)((int64_t)b[k] + (1 << 29));
        if (x && !(x < best && x < (x ^ best))) { /* msb(x) >= msb(best): later axes win ties */
            axis = k;
            best = x;
        }
    }
    return axis >= 0 && a[axis] < b[axis];
}

/* n points in clusters: uniform in boxes of `size` around `count` centres spread over `spread`. */
static double *cloud(gr_rng *rng, uint32_t n, int count, double spread, double size, double shift)
{
    double *p = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double centre[16][3];
    for (int c = 0; c < count; c++)
        for (int a = 0; a < 3; a++)
            centre[c][a] = shift + spread * (gr_rng_uniform(rng) - 0.5);
    for (uint32_t i = 0; i < n; i++) {
        const int c = (int)(i % (uint32_t)count);
        for (int a = 0; a < 3; a++)
            p[3 * i + a] = centre[c][a] + size * (gr_rng_uniform(rng) - 0.5);
    }
    return p;
}

/* The grid's blocks and their cells against the brute-force set and the points. */
static void check_grid(const gr_sparse_grid *g, const double *p, uint32_t n, double h, gr_vec3 o, int halo)
{
    blk *ref;
    const uint32_t nref = brute_blocks(p, n, h, o, halo, &ref);
    CHECK(g->block_count == nref);
    blk *got = (blk *)malloc(sizeof(blk) * (nref ? nref : 1));
    for (uint32_t b = 0; b < g->block_count; b++) {
        memcpy(got[b].b, g->block_coord + 3 * (size_t)b, sizeof got[b].b);
        CHECK(gr_sparse_grid_block_of(g, got[b].b[0], got[b].b[1], got[b].b[2]) == b);
        CHECK(gr_sparse_grid_neighbor_block(g, b, 0, 0, 0) == b);
        if (b > 0) {
            CHECK(morton_less(got[b - 1].b, got[b].b));
            /* the library's comparison (two grids' blocks merge by it) agrees */
            CHECK(gr_sparse_block_less(got[b - 1].b, got[b].b) && !gr_sparse_block_less(got[b].b, got[b - 1].b));
        }
    }
    qsort(got, nref, sizeof(blk), cmp_blk);
    CHECK(memcmp(got, ref, sizeof(blk) * nref) == 0);
    free(got);
    free(ref);
    /* every point's cell, and its halo cells, active; the occupancy masks exactly the points' cells */
    uint64_t *mask = (uint64_t *)calloc(g->block_count ? g->block_count : 1, sizeof(uint64_t));
    uint32_t rejected = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t c[3];
        if (!ref_cell(p + 3 * (size_t)i, o, h, c)) {
            CHECK(g->point_cell[i] == GR_INVALID_INDEX);
            rejected++;
            continue;
        }
        const uint32_t cell = gr_sparse_grid_cell(g, (int32_t)c[0], (int32_t)c[1], (int32_t)c[2]);
        CHECK(cell != GR_INVALID_INDEX && g->point_cell[i] == cell);
        int32_t back[3];
        gr_sparse_grid_cell_coords(g, cell, back);
        CHECK(back[0] == c[0] && back[1] == c[1] && back[2] == c[2]);
        int32_t loc[3];
        CHECK(gr_sparse_grid_locate(g, v3(p[3 * i], p[3 * i + 1], p[3 * i + 2]), loc));
        CHECK(loc[0] == c[0] && loc[1] == c[1] && loc[2] == c[2]);
        mask[cell >> 6] |= 1ull << (cell & 63u);
        if (i % 5 == 0)
            for (int dz = -halo; dz <= halo; dz++)
                for (int dy = -halo; dy <= halo; dy++)
                    for (int dx = -halo; dx <= halo; dx++)
                        CHECK(gr_sparse_grid_cell(g, (int32_t)c[0] + dx, (int32_t)c[1] + dy, (int32_t)c[2] + dz) !=
                              GR_INVALID_INDEX);
    }
    CHECK(g->rejected == rejected && g->n == n);
    for (uint32_t b = 0; b < g->block_count; b++)
        CHECK(g->block_points[b] == mask[b]);
    free(mask);
    /* the cells of every block map back to themselves */
    for (uint32_t cell = 0; cell < gr_sparse_grid_cells(g); cell++) {
        int32_t c[3];
        gr_sparse_grid_cell_coords(g, cell, c);
        CHECK(gr_sparse_grid_cell(g, c[0], c[1], c[2]) == cell);
    }
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_sparse_grid_matches_brute_force(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_rng rng = {7};
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    const double hs[] = {0.01, 0.037, 0.25, 1.0};
    for (int trial = 0; trial < 16; trial++) {
        const uint32_t n = 200 + 700 * (uint32_t)(trial % 3);
        const double h = hs[trial % 4];
        const int halo = trial % 4;
        /* clusters around negative and positive coordinates, a few blocks to many */
        double *p = cloud(&rng, n, 1 + trial % 5, 40 * h, (2 + trial % 7) * h, (trial % 2 ? -3.1 : 0.7));
        const gr_vec3 o = trial % 3 ? v3(-0.123, 0.5, 2.0) : v3(0, 0, 0);
        CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, h, o, halo));
        const int before = harness_failures;
        check_grid(&g, p, n, h, o, halo);
        free(p);
        if (harness_failures != before) {
            fprintf(stderr, "  trial %d\n", trial);
            return;
        }
    }
    /* a stride wider than the position */
    {
        const uint32_t n = 300;
        double *p = cloud(&rng, n, 2, 1.0, 0.3, 0.0);
        double *wide = (double *)malloc(sizeof(double) * 7 * n);
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 7; a++)
                wide[7 * i + a] = a < 3 ? p[3 * i + a] : NAN;
        CHECK(gr_sparse_grid_build(&g, &mem, wide, 7, n, 0.05, v3(0, 0, 0), 2));
        check_grid(&g, p, n, 0.05, v3(0, 0, 0), 2);
        free(wide);
        free(p);
    }
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

/* Two clusters 3.5 km apart with 1 cm cells: a box would hold 10^15 cells; the grid holds the
 * clusters' blocks only. */
static void test_sparse_grid_far_clusters(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_rng rng = {11};
    const uint32_t n = 4000;
    double *p = (double *)malloc(sizeof(double) * 3 * n);
    for (uint32_t i = 0; i < n; i++) {
        const double c = i % 2 ? 1000.0 : -1000.0;
        for (int a = 0; a < 3; a++)
            p[3 * i + a] = c + 0.2 * gr_rng_uniform(&rng);
    }
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, 0.01, v3(0, 0, 0), 1));
    CHECK(gr_sparse_grid_sort_points(&g, &mem));
    check_grid(&g, p, n, 0.01, v3(0, 0, 0), 1);
    /* 20 cells a side plus the halo: at most 7 blocks a side per cluster */
    CHECK(g.block_count <= 2 * 7 * 7 * 7);
    const size_t bytes = gr_sparse_grid_bytes(&g);
    printf("  %u blocks, %zu bytes (%.1f per cell, %zu allocated)\n", g.block_count, bytes,
           (double)bytes / gr_sparse_grid_cells(&g), (size_t)mem.in_use);
    CHECK(bytes == mem.in_use);
    CHECK(bytes < 1024 * 1024);
    /* the negative cluster's cells are at about -1e5 */
    int32_t c[3];
    gr_sparse_grid_cell_coords(&g, g.point_cell[0], c);
    CHECK(c[0] >= -100000 && c[0] < -99980 && c[2] >= -100000 && c[2] < -99980);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
    free(p);
}

static void test_sparse_grid_order_independent(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_rng rng = {3};
    const uint32_t n = 3000;
    for (int halo = 0; halo <= 3; halo++) {
        double *p = cloud(&rng, n, 4, 2.0, 0.4, -0.5);
        p[3 * 17] = NAN; /* a rejected point travels too */
        uint32_t *perm = (uint32_t *)malloc(sizeof(uint32_t) * n);
        for (uint32_t i = 0; i < n; i++)
            perm[i] = i;
        for (uint32_t i = n - 1; i > 0; i--) {
            const uint32_t j = (uint32_t)(gr_rng_next(&rng) % (i + 1));
            const uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        double *q = (double *)malloc(sizeof(double) * 3 * n);
        for (uint32_t i = 0; i < n; i++)
            memcpy(q + 3 * i, p + 3 * (size_t)perm[i], 3 * sizeof(double));
        gr_sparse_grid a, b;
        gr_sparse_grid_init(&a);
        gr_sparse_grid_init(&b);
        CHECK(gr_sparse_grid_build(&a, &mem, p, 3, n, 0.03, v3(0.01, 0, 0), halo));
        /* b is warmed up by another build first: reuse must not change the numbering */
        CHECK(gr_sparse_grid_build(&b, &mem, p + 300, 3, n - 100, 0.03, v3(0.01, 0, 0), 3));
        CHECK(gr_sparse_grid_build(&b, &mem, q, 3, n, 0.03, v3(0.01, 0, 0), halo));
        CHECK(a.block_count == b.block_count && a.rejected == 1 && b.rejected == 1);
        CHECK(memcmp(a.block_coord, b.block_coord, sizeof(int32_t) * 3 * a.block_count) == 0);
        CHECK(memcmp(a.block_points, b.block_points, sizeof(uint64_t) * a.block_count) == 0);
        CHECK(memcmp(a.block_nbr, b.block_nbr, sizeof(uint32_t) * 27 * a.block_count) == 0);
        for (uint32_t i = 0; i < n; i++)
            CHECK(b.point_cell[i] == a.point_cell[perm[i]]);
        /* the sorted points: the same cells, the same counts */
        CHECK(gr_sparse_grid_sort_points(&a, &mem) && gr_sparse_grid_sort_points(&b, &mem));
        CHECK(memcmp(a.cell_start, b.cell_start, sizeof(uint32_t) * (gr_sparse_grid_cells(&a) + 1)) == 0);
        gr_sparse_grid_free(&a, &mem);
        gr_sparse_grid_free(&b, &mem);
        free(q);
        free(perm);
        free(p);
    }
    CHECK(mem.in_use == 0);
}

static void test_sparse_grid_neighbors_match_lookup(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_rng rng = {5};
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    uint64_t inside = 0, across = 0, inactive = 0;
    for (int trial = 0; trial < 4; trial++) {
        /* scattered points: many blocks with inactive neighbours; near the reach's ends too */
        const uint32_t n = 40;
        double *p = cloud(&rng, n, 8, 60.0, 6.0, 0.0);
        for (uint32_t i = 0; trial >= 2 && i < 3 * n; i++) /* squeezed against the reach's ends */
            p[i] = trial == 2 ? -1073741824.0 + 0.05 * fabs(p[i]) : 1073741823.5 - 0.05 * fabs(p[i]);
        CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, 1.0, v3(0, 0, 0), trial % 4));
        CHECK(g.rejected == 0);
        check_grid(&g, p, n, 1.0, v3(0, 0, 0), trial % 4);
        for (uint32_t cell = 0; cell < gr_sparse_grid_cells(&g); cell++) {
            int32_t c[3];
            gr_sparse_grid_cell_coords(&g, cell, c);
            for (int dz = -4; dz <= 4; dz++)
                for (int dy = -4; dy <= 4; dy++)
                    for (int dx = -4; dx <= 4; dx++) {
                        const uint32_t want = gr_sparse_grid_cell(&g, c[0] + dx, c[1] + dy, c[2] + dz);
                        const uint32_t got = gr_sparse_grid_neighbor(&g, cell, dx, dy, dz);
                        if (got != want) {
                            fprintf(stderr, "  cell %u (%d %d %d) + (%d %d %d): %u, lookup %u\n", cell, c[0], c[1], c[2],
                                    dx, dy, dz, got, want);
                            CHECK(got == want);
                        }
                        if (want == GR_INVALID_INDEX)
                            inactive++;
                        else if (want >> 6 == cell >> 6)
                            inside++;
                        else
                            across++;
                    }
            if ((cell & 63u) == 0) /* the block table itself */
                for (int d = 0; d < 27; d++) {
                    const int dx = d % 3 - 1, dy = d / 3 % 3 - 1, dz = d / 9 - 1;
                    const int32_t *b = g.block_coord + 3 * (size_t)(cell >> 6);
                    CHECK(gr_sparse_grid_neighbor_block(&g, cell >> 6, dx, dy, dz) ==
                          gr_sparse_grid_block_of(&g, b[0] + dx, b[1] + dy, b[2] + dz));
                }
        }
        free(p);
    }
    printf("  neighbour steps: %llu inside a block, %llu across, %llu to inactive cells\n",
           (unsigned long long)inside, (unsigned long long)across, (unsigned long long)inactive);
    CHECK(inside > 0 && across > 0 && inactive > 0);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

static void test_sparse_grid_points_by_cell(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_rng rng = {9};
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    for (int trial = 0; trial < 3; trial++) {
        const uint32_t n = 5000 >> trial;
        double *p = cloud(&rng, n, 3, 1.0, 0.3, 0.2);
        for (uint32_t i = 0; i < n; i += 97) /* some rejected points among them */
            p[3 * i + (i % 3)] = i % 2 ? INFINITY : 1e300;
        CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, 0.02, v3(0, 0, 0), 1 + trial));
        CHECK(!g.sorted);
        CHECK(gr_sparse_grid_sort_points(&g, &mem) && g.sorted);
        uint32_t *seen = (uint32_t *)calloc(n, sizeof(uint32_t));
        const uint32_t cells = gr_sparse_grid_cells(&g);
        CHECK(g.cell_start[0] == 0 && g.cell_start[cells] == n - g.rejected && g.rejected > 0);
        for (uint32_t c = 0; c < cells; c++) {
            CHECK(g.cell_start[c] <= g.cell_start[c + 1]);
            CHECK((g.cell_start[c] < g.cell_start[c + 1]) == !!(g.block_points[c >> 6] >> (c & 63u) & 1u));
            for (uint32_t k = g.cell_start[c]; k < g.cell_start[c + 1]; k++) {
                const uint32_t i = g.point_order[k];
                CHECK(i < n && g.point_cell[i] == c);
                CHECK(k == g.cell_start[c] || g.point_order[k - 1] < i); /* input order within a cell */
                seen[i]++;
            }
        }
        for (uint32_t k = n - g.rejected; k < n; k++) {
            const uint32_t i = g.point_order[k];
            CHECK(g.point_cell[i] == GR_INVALID_INDEX && (k == n - g.rejected || g.point_order[k - 1] < i));
            seen[i]++;
        }
        for (uint32_t i = 0; i < n; i++)
            CHECK(seen[i] == 1);
        free(seen);
        free(p);
    }
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

static void test_sparse_grid_rejects_far_and_nonfinite(void)
{
    gr_mem mem;
    gr_mem_init(&mem, NULL);
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    const double R = 1073741824.0; /* the reach, in cells of h = 1 */
    const double pts[][3] = {
        {0.5, 0.5, 0.5},        /* placed */
        {NAN, 0, 0},            /* rejected ... */
        {0, -INFINITY, 0},
        {0, 0, INFINITY},
        {1e300, 0, 0},
        {0, -1e300, 0},
        {R, 0, 0},              /* the first cell beyond the reach */
        {0, -R - 0.5, 0},
        {0, 0, 3e9},
        {R - 0.5, -R, R - 1e-3}, /* placed: the reach's last cells */
        {-R, R - 0.25, -R + 0.5},
    };
    const uint32_t n = (uint32_t)(sizeof pts / sizeof pts[0]);
    for (int halo = 0; halo <= 3; halo++) {
        CHECK(gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 1.0, v3(0, 0, 0), halo));
        CHECK(g.rejected == 8 && g.n == n);
        for (uint32_t i = 1; i <= 8; i++)
            CHECK(g.point_cell[i] == GR_INVALID_INDEX);
        check_grid(&g, &pts[0][0], n, 1.0, v3(0, 0, 0), halo);
        int32_t c[3];
        gr_sparse_grid_cell_coords(&g, g.point_cell[9], c);
        CHECK(c[0] == 1073741823 && c[1] == -1073741824 && c[2] == 1073741823);
        CHECK(gr_sparse_grid_sort_points(&g, &mem));
        CHECK(g.cell_start[gr_sparse_grid_cells(&g)] == 3);
        CHECK(g.point_order[3] == 1 && g.point_order[10] == 8);
        /* lookups anywhere in int32, steps off the reach's edge */
        CHECK(gr_sparse_grid_cell(&g, INT32_MAX, INT32_MIN, 0) == GR_INVALID_INDEX);
        CHECK(gr_sparse_grid_neighbor(&g, g.point_cell[9], 4, -4, 4) ==
              gr_sparse_grid_cell(&g, 1073741827, -1073741828, 1073741827));
    }
    /* a far origin moves the reach with it; an empty build has no cells */
    const double far[3] = {5e9, -5e9, 0};
    CHECK(gr_sparse_grid_build(&g, &mem, far, 3, 1, 1.0, v3(5e9, -5e9, 0), 0) && g.rejected == 0);
    CHECK(gr_sparse_grid_cell(&g, 0, 0, 0) != GR_INVALID_INDEX && g.block_count == 1);
    CHECK(gr_sparse_grid_build(&g, &mem, NULL, 3, 0, 1.0, v3(0, 0, 0), 3) && g.block_count == 0);
    CHECK(gr_sparse_grid_sort_points(&g, &mem) && g.cell_start[0] == 0);
    CHECK(gr_sparse_grid_cell(&g, 0, 0, 0) == GR_INVALID_INDEX);
    /* bad arguments: refused, the grid unchanged */
    CHECK(gr_sparse_grid_build(&g, &mem, far, 3, 1, 1.0, v3(5e9, -5e9, 0), 0));
    const uint64_t count = mem.count;
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 0.0, v3(0, 0, 0), 1));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, -1.0, v3(0, 0, 0), 1));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, NAN, v3(0, 0, 0), 1));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 1e-320, v3(0, 0, 0), 1));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 1.0, v3(0, NAN, 0), 1));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 1.0, v3(0, 0, 0), 4));
    CHECK(!gr_sparse_grid_build(&g, &mem, &pts[0][0], 3, n, 1.0, v3(0, 0, 0), -1));
    CHECK(mem.count == count && g.n == 1 && g.block_count == 1 && gr_sparse_grid_cell(&g, 0, 0, 0) == 0);
    gr_sparse_grid_free(&g, &mem);
    CHECK(mem.in_use == 0);
}

static void test_sparse_grid_rebuild_allocates_nothing(void)
{
    tu_alloc a;
    tu_alloc_init(&a);
    const gr_allocator hooks = tu_allocator(&a);
    gr_mem mem;
    gr_mem_init(&mem, &hooks);
    gr_rng rng = {21};
    const uint32_t n = 20000;
    double *p = cloud(&rng, n, 6, 3.0, 0.5, 0.0);
    gr_sparse_grid g;
    gr_sparse_grid_init(&g);
    CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, 0.02, v3(0, 0, 0), 2) && gr_sparse_grid_sort_points(&g, &mem));
    const uint32_t blocks = g.block_count;
    const long long calls = a.calls;
    /* fewer points (a subset), the same points, a smaller halo: nothing allocated */
    CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n / 4, 0.02, v3(0, 0, 0), 2) && gr_sparse_grid_sort_points(&g, &mem));
    CHECK(gr_sparse_grid_build(&g, &mem, p + 3 * 5000, 3, n - 5000, 0.02, v3(0, 0, 0), 1) &&
          gr_sparse_grid_sort_points(&g, &mem));
    CHECK(gr_sparse_grid_build(&g, &mem, p, 3, n, 0.02, v3(0, 0, 0), 2) && gr_sparse_grid_sort_points(&g, &mem));
    CHECK(a.calls == calls && g.block_count == blocks);
    /* a reserved grid: its first build allocates nothing either */
    gr_sparse_grid r;
    gr_sparse_grid_init(&r);
    CHECK(gr_sparse_grid_reserve(&r, &mem, n, blocks));
    const long long reserved = a.calls;
    CHECK(gr_sparse_grid_build(&r, &mem, p, 3, n, 0.02, v3(0, 0, 0), 2) && gr_sparse_grid_sort_points(&r, &mem));
    CHECK(a.calls == reserved && r.block_count == blocks);
    /* reserving more keeps the contents */
    CHECK(gr_sparse_grid_reserve(&r, &mem, 4 * n, 4 * blocks) && a.calls > reserved);
    CHECK(r.sorted && r.n == n && memcmp(r.block_coord, g.block_coord, sizeof(int32_t) * 3 * blocks) == 0);
    CHECK(memcmp(r.cell_start, g.cell_start, sizeof(uint32_t) * (64 * (size_t)blocks + 1)) == 0);
    CHECK(memcmp(r.point_order, g.point_order, sizeof(uint32_t) * n) == 0);
    for (uint32_t b = 0; b < blocks; b++)
        CHECK(gr_sparse_grid_block_of(&r, r.block_coord[3 * b], r.block_coord[3 * b + 1], r.block_coord[3 * b + 2]) == b);
    CHECK(gr_sparse_grid_bytes(&g) + gr_sparse_grid_bytes(&r) == mem.in_use);
    gr_sparse_grid_free(&g, &mem);
    gr_sparse_grid_free(&r, &mem);
    CHECK(a.live == 0 && a.live_bytes == 0 && mem.in_use == 0);
    free(p);
}

/* A warm grid, then a build that must grow, and its sort: with allocation k failing (once, and
 * for good), for every k. A failed call leaves a grid that answers lookups, rebuilds to the
 * reference once memory is back, and frees without leaks. */
static void test_sparse_grid_out_of_memory(void)
{
    gr_rng rng = {33};
    const uint32_t n1 = 500, n2 = 6000;
    double *p1 = cloud(&rng, n1, 2, 1.0, 0.2, 0.0);
    double *p2 = cloud(&rng, n2, 5, 4.0, 0.6, 1.0);
    gr_mem ref_mem;
    gr_mem_init(&ref_mem, NULL);
    gr_sparse_grid ref;
    gr_sparse_grid_init(&ref);
    CHECK(gr_sparse_grid_build(&ref, &ref_mem, p2, 3, n2, 0.02, v3(0, 0, 0), 1));
    long long exercised = 0;
    for (int once = 0; once <= 1; once++)
        for (long long k = 0;; k++) {
            tu_alloc a;
            tu_alloc_init(&a);
            const gr_allocator hooks = tu_allocator(&a);
            gr_mem mem;
            gr_mem_init(&mem, &hooks);
            gr_sparse_grid g;
            gr_sparse_grid_init(&g);
            a.fail_at = k;
            a.fail_once = once;
            const bool ok1 = gr_sparse_grid_build(&g, &mem, p1, 3, n1, 0.02, v3(0, 0, 0), 1);
            const bool s1 = ok1 && gr_sparse_grid_sort_points(&g, &mem);
            const uint32_t blocks1 = g.block_count;
            const bool ok2 = s1 && gr_sparse_grid_build(&g, &mem, p2, 3, n2, 0.02, v3(0, 0, 0), 1);
            const bool s2 = ok2 && gr_sparse_grid_sort_points(&g, &mem);
            if (!ok1 || (s1 && !ok2)) {
                /* unchanged (the points' arrays) or empty */
                CHECK(g.block_count == 0 || (ok1 && g.block_count == blocks1 && g.n == n1));
                CHECK(g.block_count != 0 || (g.n == 0 && !g.sorted));
            }
            CHECK(!(ok1 && !s1) || (!g.sorted && g.block_count == blocks1));
            CHECK(!(ok2 && !s2) || (!g.sorted && g.block_count == ref.block_count));
            CHECK(gr_sparse_grid_cell(&g, 3, 4, 5) == gr_sparse_grid_cell(&g, 3, 4, 5)); /* answers */
            CHECK(gr_sparse_grid_bytes(&g) == mem.in_use);
            const bool done = s2 && a.failures == 0;
            /* memory back: the same grid as the reference */
            a.fail_at = -1;
            CHECK(gr_sparse_grid_build(&g, &mem, p2, 3, n2, 0.02, v3(0, 0, 0), 1) && gr_sparse_grid_sort_points(&g, &mem));
            CHECK(g.block_count == ref.block_count);
            CHECK(memcmp(g.block_coord, ref.block_coord, sizeof(int32_t) * 3 * ref.block_count) == 0);
            CHECK(memcmp(g.block_nbr, ref.block_nbr, sizeof(uint32_t) * 27 * ref.block_count) == 0);
            CHECK(memcmp(g.point_cell, ref.point_cell, sizeof(uint32_t) * n2) == 0);
            gr_sparse_grid_free(&g, &mem);
            if (a.live != 0 || a.live_bytes != 0 || mem.in_use != 0) {
                fprintf(stderr, "  allocation %lld (once %d): %lld blocks / %lld bytes leaked\n", k, once, a.live,
                        a.live_bytes);
                CHECK(0);
            }
            exercised++;
            if (done)
                break;
        }
    printf("  %lld failing allocations exercised\n", exercised);
    gr_sparse_grid_free(&ref, &ref_mem);
    free(p1);
    free(p2);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"sparse_grid_matches_brute_force", test_sparse_grid_matches_brute_force},
        {"sparse_grid_far_clusters", test_sparse_grid_far_clusters},
        {"sparse_grid_order_independent", test_sparse_grid_order_independent},
        {"sparse_grid_neighbors_match_lookup", test_sparse_grid_neighbors_match_lookup},
        {"sparse_grid_points_by_cell", test_sparse_grid_points_by_cell},
        {"sparse_grid_rejects_far_and_nonfinite", test_sparse_grid_rejects_far_and_nonfinite},
        {"sparse_grid_rebuild_allocates_nothing", test_sparse_grid_rebuild_allocates_nothing},
        {"sparse_grid_out_of_memory", test_sparse_grid_out_of_memory},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
