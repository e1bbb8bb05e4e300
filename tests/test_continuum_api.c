/* SPDX-License-Identifier: MIT */
/* The continuum solver through the public API, as a host uses it: registered in the test build
 * (tests/meson.build) until its def is public. A world of grains filled into a box on a floor
 * settles into a pile; snapshots continue bit-identically; bad defs, clumps and dynamic bodies
 * are refused with the world unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/continuum/cont_def.h"
#include "harness.h"
#include "test_util.h"

static gr_status continuum_world_points(double cell, uint32_t points, gr_world **out)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    if (gr_def_set_defaults(GR_DEF_CONTINUUM, &cd) != GR_OK)
        return GR_ERROR_INVALID_ARGUMENT;
    cd.cell_size = cell;
    cd.render_points = points;
    cd.split_merge = 1; /* (off by default: these tests keep it covered) */
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    gr_status s = gr_world_create(&d, out);
    if (s != GR_OK)
        return s;
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_PLANE;
    return gr_add_body(*out, &b, NULL);
}

static gr_status continuum_world(double cell, gr_world **out) { return continuum_world_points(cell, 0, out); }

static void positions(const gr_world *w, double *p, uint32_t n)
{
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, p, 0));
}

static double total_mass(const gr_world *w)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *m = (double *)malloc(sizeof(double) * (n ? n : 1)), sum = 0;
    if (gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, sizeof(double)) != GR_OK)
        sum = NAN; /* (fails the callers' checks) */
    for (uint32_t i = 0; i < n; i++)
        sum += m[i];
    free(m);
    return sum;
}

/* A box of grains dropped on the floor: they land, spread a little, rest; none is lost, none
 * is below the floor, and the total mass is the grains' solid mass. */
static void test_continuum_fill_and_settle(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world(0.02, &w));
    /* mu 0.365, the old default alpha (see sand_bed): at alpha = mu = 0.5 with split and merge on
     * a grain left at 21 m/s in the 7th frame (docs/continuum.md, known limits) */
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.36514837167011072;
    md.continuum_friction = md.friction;
    gr_material sand;
    CHECK_OK(w, gr_add_material(w, &md, &sand));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = sand;
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.05, 0.02, -0.05};
    f.max = (gr_vec3){0.05, 0.12, 0.05};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    printf("  %u grains\n", n);
    CHECK(n > 1000);
    const double m0 = total_mass(w);
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    /* the landing squeezes particles, which merge (sec. 3.1): fewer grains, the same mass */
    gr_counters c;
    c.size = sizeof c;
    CHECK_OK(w, gr_world_get_counters(w, &c));
    const double m1 = total_mass(w);
    printf("  %u grains -> %u (%llu split, %llu merged); mass %.17g -> %.17g kg\n", n, gr_world_get_grain_count(w),
           (unsigned long long)c.grains_split, (unsigned long long)c.grains_merged, m0, m1);
    CHECK(gr_world_get_grain_count(w) == n + c.grains_split - c.grains_merged);
    CHECK(fabs(m1 - m0) < 1e-13 * m0);
    n = gr_world_get_grain_count(w);
    double *p = (double *)malloc(sizeof(double) * 3 * n), *v = (double *)malloc(sizeof(double) * 3 * n);
    positions(w, p, n);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0));
    double ymin = INFINITY, ymax = -INFINITY, vmean = 0;
    for (uint32_t i = 0; i < n; i++) {
        ymin = fmin(ymin, p[3 * i + 1]);
        ymax = fmax(ymax, p[3 * i + 1]);
        vmean += sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]) / n;
    }
    printf("  after 1 s: heights %.4f .. %.4f m, mean speed %.4f m/s\n", ymin, ymax, vmean);
    CHECK(ymin > -0.01);
    CHECK(ymax < 0.12);
    CHECK(vmean < 0.05);
    free(p), free(v);
    gr_world_destroy(w);
}

/* A block of 8 x 10 x 8 cm of sand filled into w and stepped 10 frames of 1/60 s (a state with
 * warm starts to save). */
static void fill_and_step(gr_world *w)
{
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.04, 0.0, -0.04};
    f.max = (gr_vec3){0.04, 0.1, 0.04};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    for (int k = 0; k < 10; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
}

/* A saved world continues exactly as the original (the particles, their shapes and the last
 * step's pressure and stress that the next one warm-starts from). */
static void test_continuum_snapshot_continues(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world_points(0.02, 4, &w));
    fill_and_step(w);
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    gr_world *b = NULL;
    CHECK_OK(NULL, continuum_world_points(0.02, 4, &b));
    s.pos = 0;
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &s));
    for (int k = 0; k < 10; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        CHECK_OK(b, gr_step(b, 1.0 / 60));
    }
    /* (the landing splits and merges particles on both sides alike) */
    const uint32_t n = gr_world_get_grain_count(w);
    CHECK(gr_world_get_grain_count(b) == n);
    gr_counters ca, cb;
    ca.size = cb.size = sizeof ca;
    CHECK_OK(w, gr_world_get_counters(w, &ca));
    CHECK_OK(b, gr_world_get_counters(b, &cb));
    printf("  %llu split, %llu merged\n", (unsigned long long)ca.grains_split, (unsigned long long)ca.grains_merged);
    CHECK(ca.grains_merged > 0);
    CHECK(ca.grains_split == cb.grains_split && ca.grains_merged == cb.grains_merged);
    gr_grain *ha = (gr_grain *)malloc(sizeof(gr_grain) * n), *hb = (gr_grain *)malloc(sizeof(gr_grain) * n);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, n, ha, 0));
    CHECK_OK(b, gr_read_grains(b, GR_FIELD_HANDLE, GR_TYPE_U64, 0, n, hb, 0));
    for (uint32_t i = 0; i < n; i++) /* the same slots and generations (the tags differ) */
        CHECK((ha[i].id & ((1ull << 43) - 1)) == (hb[i].id & ((1ull << 43) - 1)));
    free(ha), free(hb);
    const uint32_t np = gr_world_get_render_point_count(w);
    CHECK(np == 4 * n && gr_world_get_render_point_count(b) == np);
    float *ra = (float *)malloc(16 * (size_t)np), *rb = (float *)malloc(16 * (size_t)np);
    CHECK_OK(w, gr_read_render_points(w, 0, np, ra, 0));
    CHECK_OK(b, gr_read_render_points(b, 0, np, rb, 0));
    CHECK(memcmp(ra, rb, 16 * (size_t)np) == 0);
    free(ra), free(rb);
    double *pa = (double *)malloc(sizeof(double) * 3 * n), *pb = (double *)malloc(sizeof(double) * 3 * n);
    positions(w, pa, n);
    positions(b, pb, n);
    CHECK(memcmp(pa, pb, sizeof(double) * 3 * n) == 0);
    free(pa), free(pb);
    tu_stream_free(&s);
    gr_world_destroy(b);
    gr_world_destroy(w);
}

/* The warm start at the end of a continuum snapshot (its only system's section ends the payload):
 * kept cells (u32), h, the origin, then kept records of 3 coordinates and `values` numbers. The
 * offset of the count, or 0. */
static size_t warm_start_at(const tu_stream *s, double h, size_t values)
{
    const size_t record = 12 + 8 * values;
    for (size_t k = 0; 32 + 36 + k * record <= s->size; k++) {
        const size_t at = s->size - 36 - k * record;
        double hh;
        memcpy(&hh, s->data + at + 4, 8);
        if (tu_get32(s->data + at) == k && hh == h)
            return at;
    }
    return 0;
}

/* The snapshot carries the density correction's potential y (format 10: a warm-start cell holds
 * p, the stress's 5 and y); a crafted negative or NaN y is refused; format 9's cells (no y) still
 * load, the next correction starting cold, and the world saves format 10 with y = 0 there. */
static void test_continuum_snapshot_density_potential(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world(0.02, &w));
    fill_and_step(w);
    tu_stream s;
    tu_stream_init(&s);
    CHECK_OK(w, gr_world_save(w, tu_stream_write, &s));
    CHECK(tu_get32(s.data + 8) == 12u);
    const size_t at = warm_start_at(&s, 0.02, 7);
    CHECK(at > 0);
    const uint32_t kept = tu_get32(s.data + at);
    uint32_t with_y = 0;
    for (uint32_t k = 0; k < kept; k++) {
        double y;
        memcpy(&y, s.data + at + 36 + 68 * (size_t)k + 12 + 48, 8);
        CHECK(y >= 0);
        with_y += y > 0;
    }
    printf("  %u warm-start cells, %u with y > 0\n", kept, with_y);
    CHECK(with_y > 0);
    /* crafted: a negative, a NaN potential */
    const double bad[2] = {-1.0, NAN};
    for (int b = 0; b < 2; b++) {
        tu_stream c;
        tu_stream_init(&c);
        tu_stream_write(&c, s.data, s.size);
        memcpy(c.data + at + 36 + 12 + 48, &bad[b], 8);
        tu_reseal(&c);
        c.pos = 0;
        gr_world *x;
        CHECK_OK(NULL, continuum_world(0.02, &x));
        CHECK_STATUS(GR_ERROR_CORRUPT_DATA, gr_world_load(x, tu_stream_read, &c));
        printf("  y = %g: %s\n", bad[b], gr_world_last_error(x));
        gr_world_destroy(x);
        tu_stream_free(&c);
    }
    /* format 9: the same cells without y (and the materials without format 11's number) */
    tu_stream s10, old;
    CHECK(tu_snap_drop_continuum_friction(&s, GR_SOLVER_CONTINUUM, &s10));
    const size_t at10 = warm_start_at(&s10, 0.02, 7);
    CHECK(at10 > 0 && tu_get32(s10.data + at10) == kept);
    tu_stream_init(&old);
    tu_stream_write(&old, s10.data, at10 + 36);
    for (uint32_t k = 0; k < kept; k++)
        tu_stream_write(&old, s10.data + at10 + 36 + 68 * (size_t)k, 60);
    tu_stream_free(&s10);
    tu_put32(old.data + 8, 9u);
    tu_put32(old.data + 16, (uint32_t)(old.size - 32));
    tu_put32(old.data + 20, 0);
    tu_reseal(&old);
    old.pos = 0;
    gr_world *b = NULL;
    CHECK_OK(NULL, continuum_world(0.02, &b));
    CHECK_OK(b, gr_world_load(b, tu_stream_read, &old));
    tu_stream again;
    tu_stream_init(&again);
    CHECK_OK(b, gr_world_save(b, tu_stream_write, &again));
    const size_t at2 = warm_start_at(&again, 0.02, 7);
    CHECK(at2 == at && tu_get32(again.data + at2) <= kept);
    for (uint32_t k = 0; k < tu_get32(again.data + at2); k++) {
        double y;
        memcpy(&y, again.data + at2 + 36 + 68 * (size_t)k + 12 + 48, 8);
        CHECK(y == 0);
    }
    for (int k = 0; k < 3; k++)
        CHECK_OK(b, gr_step(b, 1.0 / 60));
    tu_stream_free(&again);
    tu_stream_free(&old);
    tu_stream_free(&s);
    gr_world_destroy(b);
    gr_world_destroy(w);
}

/* Handles follow split and merge: a merged-away grain's handle is stale, a split child has a
 * handle of its own and reads like any grain; the count is the fill's plus splits minus merges. */
static void test_continuum_split_merge_handles(void)
{
    gr_world *w;
    CHECK_OK(NULL, continuum_world(0.02, &w));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.04, 0.02, -0.04};
    f.max = (gr_vec3){0.04, 0.1, 0.04};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    gr_grain *first = (gr_grain *)malloc(sizeof(gr_grain) * n);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, n, first, 0));
    for (int k = 0; k < 20; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_counters c;
    c.size = sizeof c;
    CHECK_OK(w, gr_world_get_counters(w, &c));
    const uint32_t m = gr_world_get_grain_count(w);
    gr_grain *now = (gr_grain *)malloc(sizeof(gr_grain) * m);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, m, now, 0));
    uint32_t stale = 0, kept = 0, children = 0, bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        gr_grain_state gs;
        const gr_status s = gr_grain_get_state(w, first[i], &gs);
        if (s == GR_OK)
            kept++;
        else {
            stale++;
            bad += s != GR_ERROR_STALE_HANDLE || gr_grain_is_valid(w, first[i]);
        }
    }
    for (uint32_t j = 0; j < m; j++) {
        bool old = false;
        for (uint32_t i = 0; i < n && !old; i++)
            old = first[i].id == now[j].id;
        if (old)
            continue;
        children++;
        gr_grain_state gs;
        double r = 0;
        uint32_t index = 0;
        bad += gr_grain_get_state(w, now[j], &gs) != GR_OK || !isfinite(gs.position.y) ||
               gr_grain_get_radius(w, now[j], &r) != GR_OK || !(r > 0) ||
               gr_grain_get_index(w, now[j], &index) != GR_OK || index != j;
    }
    printf("  %u grains -> %u: %u of the first kept, %u stale; %u made by splits (counters: %llu split, %llu merged)\n",
           n, m, kept, stale, children, (unsigned long long)c.grains_split, (unsigned long long)c.grains_merged);
    CHECK(bad == 0);
    CHECK(stale > 0 && children > 0);
    CHECK(kept + children == m);
    CHECK(m == n + c.grains_split - c.grains_merged);
    free(first), free(now);
    gr_world_destroy(w);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Particles per occupied cell of edge h: the largest and the mean. */
static void per_cell(const gr_world *w, double h, uint32_t *most, double *mean)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *p = (double *)malloc(sizeof(double) * 3 * n);
    int64_t *key = (int64_t *)malloc(sizeof(int64_t) * n);
    positions(w, p, n);
    for (uint32_t i = 0; i < n; i++) {
        int64_t k = 0;
        for (int a = 0; a < 3; a++)
            k = k * 4096 + (int64_t)floor(p[3 * i + a] / h) + 2048;
        key[i] = k;
    }
    qsort(key, n, sizeof *key, cmp_i64);
    uint32_t cells = 0, run = 0;
    *most = 0;
    for (uint32_t i = 0; i < n; i++) {
        run = i > 0 && key[i] == key[i - 1] ? run + 1 : 1;
        cells += run == 1;
        if (run > *most)
            *most = run;
    }
    *mean = cells ? (double)n / cells : 0;
    free(p), free(key);
}

/* A stretching flow (no gravity; v_y = k y over a block): the particles stretch along y (eq. 28)
 * and split, so the material stays sampled (particles per occupied cell do not thin out as the
 * block grows 4-fold) while no cell fills up (the most per cell stays bounded); mass is kept
 * exactly and, with no force acting, momentum too (the flow is symmetric: it stays ~0). */
static void test_continuum_stretched_flow_bounded(void)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    CHECK_OK(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    const double h = 0.02, k = 2.0;
    cd.cell_size = h;
    cd.split_merge = 1;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    d.gravity = (gr_vec3){0, 0, 0};
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    enum { NX = 8, NY = 8, NZ = 8 };
    static gr_grain_def g[NX * NY * NZ];
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            for (int l = 0; l < NZ; l++) {
                gr_grain_def *q = &g[(i * NY + j) * NZ + l];
                gr_grain_def_init(q);
                q->radius = 0.004;
                q->position = (gr_vec3){(i + 0.5) * 0.5 * h, (j + 0.5 - NY / 2) * 0.5 * h, (l + 0.5) * 0.5 * h};
                q->velocity = (gr_vec3){0, k * q->position.y, 0};
            }
    CHECK_OK(w, gr_add_grains(w, g, NX * NY * NZ, NULL));
    const uint32_t n0 = gr_world_get_grain_count(w);
    const double m0 = total_mass(w);
    uint32_t most0, most = 0, most_seen = 0;
    double mean0, mean = 0;
    per_cell(w, h, &most0, &mean0);
    for (int s = 0; s < 45; s++) { /* 1.5 s: the block 4 times as long */
        CHECK_OK(w, gr_step(w, 1.0 / 30));
        per_cell(w, h, &most, &mean);
        most_seen = most > most_seen ? most : most_seen;
    }
    const uint32_t n1 = gr_world_get_grain_count(w);
    double *p = (double *)malloc(sizeof(double) * 3 * n1), *v = (double *)malloc(sizeof(double) * 3 * n1);
    double *ms = (double *)malloc(sizeof(double) * n1);
    positions(w, p, n1);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n1, v, 0));
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n1, ms, sizeof(double)));
    double ylo = INFINITY, yhi = -INFINITY, py = 0, pabs = 0;
    for (uint32_t i = 0; i < n1; i++) {
        ylo = fmin(ylo, p[3 * i + 1]), yhi = fmax(yhi, p[3 * i + 1]);
        py += ms[i] * v[3 * i + 1], pabs += ms[i] * fabs(v[3 * i + 1]);
    }
    gr_counters c;
    c.size = sizeof c;
    CHECK_OK(w, gr_world_get_counters(w, &c));
    const double m1 = total_mass(w);
    printf("  length %.3f -> %.3f m; grains %u -> %u (%llu split, %llu merged); per occupied cell: mean %.1f -> %.1f, "
           "most %u -> %u (most at any step %u); mass %.17g -> %.17g; momentum y %.2g of sum |p|\n",
           NY * 0.5 * h, yhi - ylo, n0, n1, (unsigned long long)c.grains_split, (unsigned long long)c.grains_merged,
           mean0, mean, most0, most, most_seen, m0, m1, py / pabs);
    CHECK(yhi - ylo > 3.0 * NY * 0.5 * h);  /* it stretched */
    CHECK(n1 > 2.5 * n0);                   /* and split */
    CHECK(mean > 0.6 * mean0);              /* the material is still sampled */
    /* no cell fills up: a valid particle's volume is within (sqrt 2)^(+-3) of the sphere of
     * radius r, so a cell may hold up to 2.8 times the nominal count; splits near a cell's face
     * leave at most twice the fill's here */
    CHECK(most_seen <= 2 * most0);
    CHECK(fabs(m1 - m0) < 1e-13 * m0);
    CHECK(fabs(py) < 1e-9 * pabs);
    free(p), free(v), free(ms);
    gr_world_destroy(w);
}

/* Render points (sec. 5): render_points per particle, read through gr_read_render_points, K
 * consecutive points per particle (in the solver's order, not the grains' bulk order: a group's
 * grain is found as the one of its radius nearest the group's centroid). They start inside their particle's sphere, move with its
 * deformation (inside its ellipsoid: within its longest semi-axis of its centre, which validity
 * bounds by sqrt 2 r unless the particle could be neither split nor merged), and follow splits
 * and merges: the count stays K per grain. Their radii carry the grain's volume. */
static void test_continuum_render_points(void)
{
    const uint32_t K = 8;
    const double h = 0.02, r = 0.25 * h;
    gr_world *w;
    CHECK_OK(NULL, continuum_world_points(h, K, &w));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.04, 0.02, -0.04};
    f.max = (gr_vec3){0.04, 0.1, 0.04};
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    for (int s = 0; s <= 30; s++) {
        if (s == 0 || s == 5 || s == 30) {
            const uint32_t m = gr_world_get_grain_count(w), np = gr_world_get_render_point_count(w);
            CHECK(np == K * m);
            float *pt = (float *)malloc(16 * (size_t)np);
            double *x = (double *)malloc(sizeof(double) * 3 * m), *gr = (double *)malloc(sizeof(double) * m);
            CHECK_OK(w, gr_read_render_points(w, 0, np, pt, 0));
            positions(w, x, m);
            CHECK_OK(w, gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, m, gr, sizeof(double)));
            uint32_t beyond = 0, far = 0, bad_radius = 0, i = 0;
            double worst = 0, spread = 0;
            for (uint32_t q = 0; q < np; q++) {
                if (q % K == 0) { /* the group's grain */
                    double c[3] = {0, 0, 0}, best = INFINITY;
                    for (uint32_t k = 0; k < K; k++)
                        for (int a = 0; a < 3; a++)
                            c[a] += pt[4 * (q + k) + a] / K;
                    for (uint32_t j = 0; j < m; j++) {
                        const double e = (x[3 * j] - c[0]) * (x[3 * j] - c[0]) + (x[3 * j + 1] - c[1]) * (x[3 * j + 1] - c[1]) +
                                         (x[3 * j + 2] - c[2]) * (x[3 * j + 2] - c[2]);
                        if (e < best && fabs(pt[4 * q + 3] - gr[j] / 2.0) <= 1e-6 * gr[j])
                            best = e, i = j;
                    }
                    bad_radius += !(best < INFINITY);
                }
                const double dx = pt[4 * q] - x[3 * i], dy = pt[4 * q + 1] - x[3 * i + 1], dz = pt[4 * q + 2] - x[3 * i + 2];
                const double d = sqrt(dx * dx + dy * dy + dz * dz) / r;
                worst = fmax(worst, d);
                spread += d / np;
                beyond += d > 1.4143;
                far += d > 3;
                bad_radius += fabs(pt[4 * q + 3] - pt[4 * (q - q % K) + 3]) > 0; /* one radius a group */
            }
            printf("  step %2d: %u grains, %u points; distance from their particle (in r): mean %.2f, largest %.2f; "
                   "%u beyond sqrt 2 r, %u beyond 3 r\n", s, m, np, spread, worst, beyond, far);
            CHECK(bad_radius == 0);
            /* (a particle eq. 28 squeezes flat and stretches long can be neither split nor merged:
             * its points stay in its ellipsoid, however long; docs/continuum.md, known limits) */
            CHECK(far <= np / 20);
            CHECK(beyond <= np / 7);
            if (s <= 5)
                CHECK(spread > 0.4 && spread < 1.0); /* spread through the particle, not at its centre */
            if (s == 0)
                CHECK(worst <= 1.0 + 1e-6); /* sampled in the sphere of radius r */
            free(pt), free(x), free(gr);
        }
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    }
    gr_world_destroy(w);
}

/* Refusals: a bad def, a clump grain; the world is left as it was. Dynamic and host-owned
 * bodies are taken (the coupling of sec. 2.4). */
static void test_continuum_refusals(void)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    CHECK_OK(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    cd.cell_size = -1;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    gr_world *w = NULL;
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_world_create(&d, &w));
    CHECK(w == NULL);
    CHECK_OK(NULL, continuum_world(0.02, &w));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.radius = 0.01;
    g.shape = GR_GRAIN_TETRAHEDRON;
    CHECK_STATUS(GR_ERROR_UNSUPPORTED, gr_add_grain(w, &g, NULL));
    CHECK(gr_world_get_grain_count(w) == 0);
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_SPHERE;
    b.motion = GR_MOTION_DYNAMIC;
    b.position = (gr_vec3){0, 1, 0};
    gr_body h = {0};
    CHECK_OK(w, gr_add_body(w, &b, &h));
    CHECK(h.id != 0);
    gr_world_destroy(w);
}

/* ---- bodies coupled two ways (sec. 2.4) ------------------------------------------------------ */

/* In the helpers that return a value: a failed call ends the test run. */
#define MUST(world, expr)                                                                  \
    do {                                                                                   \
        const gr_status m_ = (expr);                                                       \
        if (m_ != GR_OK) {                                                                 \
            fprintf(stderr, "  FAIL %s:%d %s -> %s (%s)\n", __FILE__, __LINE__, #expr,      \
                    gr_status_string(m_), (world) ? gr_world_last_error(world) : "");      \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* A dynamic cube of half-edge a at `at`, of `density` times the packed sand's (2500 kg/m^3
 * grains x packing 0.6 = 1500 kg/m^3). */
static gr_body_def sand_test_box(double a, double density, gr_vec3 at)
{
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_BOX;
    b.motion = GR_MOTION_DYNAMIC;
    b.half_extents = (gr_vec3){a, a, a};
    b.mass = density * 1500 * 8 * a * a * a;
    b.position = at;
    return b;
}

/* A continuum world (gravity g) with a sand bed of friction mu in an open container over
 * [-L, L] x [0, H] x [-L, L]. */
static gr_world *sand_bed_mu(gr_vec3 gravity, double L, double H, const gr_host_hooks *host, uint32_t *n,
                             gr_body *container, double mu)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    MUST(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    d.gravity = gravity;
    if (host)
        d.host = *host;
    gr_world *w = NULL;
    MUST(NULL, gr_world_create(&d, &w));
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_CONTAINER;
    b.open_faces = GR_FACE_POS_Y;
    b.half_extents = (gr_vec3){L, 2 * H, L};
    b.position = (gr_vec3){0, 2 * H, 0};
    MUST(w, gr_add_body(w, &b, container));
    /* mu 0.365: the friction these coupling tests were built with (the default mu 0.5 under the
     * old mapping alpha = sqrt(2/3) sin(atan mu)); at alpha = mu = 0.5 the bed holds the light box
     * dropped on it at its surface */
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = mu;
    md.continuum_friction = mu; /* alpha = mu, as these coupling tests were built */
    gr_material sand;
    MUST(w, gr_add_material(w, &md, &sand));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = sand;
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-L + 0.004, 0.004, -L + 0.004};
    f.max = (gr_vec3){L - 0.004, H, L - 0.004};
    MUST(w, gr_fill_box(w, &f, n, NULL, 0));
    return w;
}

static gr_world *sand_bed_in(gr_vec3 gravity, double L, double H, const gr_host_hooks *host, uint32_t *n,
                             gr_body *container)
{
    return sand_bed_mu(gravity, L, H, host, n, container, 0.36514837167011072);
}

static gr_world *sand_bed(gr_vec3 gravity, double L, double H, const gr_host_hooks *host, uint32_t *n)
{
    return sand_bed_in(gravity, L, H, host, n, NULL);
}

typedef struct sand_sum {
    double mass, energy, top;
    gr_vec3 momentum;
    bool finite;
} sand_sum;

/* The sand's mass, momentum, energy (kinetic + potential over gravity g) and top. */
static sand_sum sand_totals(const gr_world *w, gr_vec3 g)
{
    const uint32_t n = gr_world_get_grain_count(w); /* (particles split and merge: the count changes) */
    double *p = (double *)malloc(sizeof(double) * 3 * n), *v = (double *)malloc(sizeof(double) * 3 * n);
    double *m = (double *)malloc(sizeof(double) * n);
    MUST(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, p, 0));
    MUST(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0));
    MUST(w, gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0));
    sand_sum s = {0, 0, -INFINITY, {0, 0, 0}, true};
    for (uint32_t i = 0; i < n; i++) {
        const double *x = p + 3 * i, *u = v + 3 * i;
        s.mass += m[i];
        s.momentum.x += m[i] * u[0], s.momentum.y += m[i] * u[1], s.momentum.z += m[i] * u[2];
        s.energy += m[i] * (0.5 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) - (g.x * x[0] + g.y * x[1] + g.z * x[2]));
        s.top = fmax(s.top, x[1]);
        s.finite = s.finite && isfinite(x[0] + x[1] + x[2] + u[0] + u[1] + u[2]);
    }
    free(p), free(v), free(m);
    return s;
}

/* A body's kinetic + potential energy. */
static double body_energy(const gr_world *w, gr_body b, gr_vec3 g)
{
    double m;
    gr_vec3 I, c, v, om;
    gr_quat q, r;
    MUST(w, gr_body_get_mass_properties(w, b, &m, &I, &r));
    MUST(w, gr_body_get_center_of_mass(w, b, &c));
    MUST(w, gr_body_get_velocity(w, b, &v, &om));
    MUST(w, gr_body_get_pose(w, b, &c, &q));
    (void)r;
    const double rot = 0.5 * (I.x * om.x * om.x + I.y * om.y * om.y + I.z * om.z * om.z); /* (a cube: isotropic) */
    return 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z) + rot - m * (g.x * c.x + g.y * c.y + g.z * c.z);
}

/* A dynamic box of half the packed sand's density dropped into a sand bed: it falls, enters the
 * sand and comes to rest in it (pressure holds it; the sand it displaces rises around it). Over
 * the last half second it moves less than 5 mm at a mean speed below 5 cm/s (the grid's noise
 * rocks it a little), the sand's mean force on it is its weight within 10 %, the energy of sand
 * and box never rises by more than 2 % of what the drop frees, nothing is lost and everything
 * stays finite. */
static void test_continuum_dynamic_box_sinks(void)
{
    const gr_vec3 g = {0, -9.81, 0};
    uint32_t n = 0;
    const double L = 0.08, H = 0.12, a = 0.03;
    gr_world *w = sand_bed(g, L, H, NULL, &n);
    for (int k = 0; k < 20; k++) /* the bed settles first */
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const double surface = sand_totals(w, g).top;
    const gr_body_def b = sand_test_box(a, 0.5, (gr_vec3){0, surface + a + 0.04, 0});
    const double mass = b.mass;
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    const double drop = mass * 9.81 * (0.04 + a);
    double e_prev = sand_totals(w, g).energy + body_energy(w, box, g), worst = 0, vmax = 0, vmean = 0, force = 0;
    int worst_at = -1;
    bool finite = true;
    gr_vec3 x, v, om, x_late = {0, 0, 0};
    gr_quat q;
    const int frames = 120, late = 30;
    for (int k = 0; k < frames; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        const sand_sum s = sand_totals(w, g);
        const double e = s.energy + body_energy(w, box, g);
        if ((e - e_prev) / drop > worst)
            worst = (e - e_prev) / drop, worst_at = k;
        if (getenv("GR_TEST_VERBOSE"))
            printf("    %d: %.5f J (body %.5f J)\n", k, e - e_prev, body_energy(w, box, g));
        e_prev = e;
        finite = finite && s.finite;
        CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
        CHECK_OK(w, gr_body_get_pose(w, box, &x, &q));
        vmax = fmax(vmax, fabs(v.y));
        if (k == frames - late)
            x_late = x;
        if (k >= frames - late) {
            gr_vec3 f, t;
            CHECK_OK(w, gr_body_get_force(w, box, &f, &t));
            vmean += sqrt(v.x * v.x + v.y * v.y + v.z * v.z) / late;
            force += f.y / late;
        }
    }
    const double depth = surface - (x.y - a), moved = fabs(x.y - x_late.y);
    printf("  surface %.4f m; box bottom %.4f m (%.0f %% of it below the bed's surface before); fastest %.3f m/s; "
           "last 0.5 s: moved %.4f m, mean speed %.4f m/s, force %.3f N (weight %.3f N); worst energy rise %.2f %% "
           "of the drop's (frame %d)\n",
           surface, x.y - a, 100 * depth / (2 * a), vmax, moved, vmean, force, mass * 9.81, 100 * worst, worst_at);
    CHECK(finite);
    gr_counters cn;
    cn.size = sizeof cn;
    CHECK_OK(w, gr_world_get_counters(w, &cn));
    CHECK(gr_world_get_grain_count(w) == n + cn.grains_split - cn.grains_merged); /* none lost */
    CHECK(vmax > 0.5);       /* it fell */
    CHECK(depth > 0.1 * a);  /* into the sand */
    CHECK(x.y - a > 0.02);   /* not through it */
    /* (rests: it stays within 5 mm, below 5 cm/s; measured 1.4 mm, 0.4 cm/s: docs/continuum.md,
     * known limits) */
    CHECK(moved < 0.005 && vmean < 0.05);
    CHECK(fabs(force - mass * 9.81) < 0.1 * mass * 9.81);
    /* (1.0 % measured; 2.7 % with split and merge on, merges kept away from the box) */
    CHECK(worst < 0.02);
    gr_world_destroy(w);
}

/* ---- a host-owned box: a stand-in engine integrating symplectic Euler ---------------------- */

typedef struct host_box {
    double mass, dt;
    gr_vec3 x, v;
    gr_quat q;
    gr_vec3 w;
    gr_vec3 impulse_sum; ///< what the library handed over
} host_box;

static void host_get_state(gr_body body, void *bu, gr_host_body_state *s, void *user)
{
    (void)body, (void)user;
    const host_box *b = (const host_box *)bu;
    s->position = b->x;
    s->orientation = b->q;
    s->linear_velocity = b->v;
    s->angular_velocity = b->w;
}

static void host_apply_impulse(gr_body body, void *bu, gr_vec3 J, gr_vec3 L, void *user)
{
    (void)body, (void)user, (void)L;
    host_box *b = (host_box *)bu;
    b->v.x += J.x / b->mass;
    b->v.y += J.y / b->mass - 9.81 * b->dt;
    b->v.z += J.z / b->mass;
    b->x.x += b->v.x * b->dt, b->x.y += b->v.y * b->dt, b->x.z += b->v.z * b->dt;
    b->impulse_sum.x += J.x, b->impulse_sum.y += J.y, b->impulse_sum.z += J.z;
}

/* A host-owned box set on a sand bed: the sand carries its weight. Over the last second the
 * impulses handed to the engine sum to m g t within 3 %, the reported force is the weight
 * within 5 %, and the box stays in the surface. */
static void test_continuum_host_box_carried(void)
{
    const gr_vec3 g = {0, -9.81, 0};
    const gr_host_hooks hooks = {host_get_state, host_apply_impulse, NULL};
    uint32_t n = 0;
    const double a = 0.03;
    gr_world *w = sand_bed(g, 0.08, 0.12, &hooks, &n);
    for (int k = 0; k < 20; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const double surface = sand_totals(w, g).top;
    host_box hb = {0.5 * 1500 * 8 * a * a * a, 1.0 / 60, {0, surface + a, 0}, {0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0},
                   {0, 0, 0}};
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_BOX;
    b.motion = GR_MOTION_HOST;
    b.half_extents = (gr_vec3){a, a, a};
    b.mass = hb.mass;
    b.position = hb.x;
    b.user_data = &hb;
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    for (int k = 0; k < 60; k++) /* it finds its depth */
        CHECK_OK(w, gr_step(w, hb.dt));
    hb.impulse_sum = (gr_vec3){0, 0, 0};
    double force = 0;
    const int steps = 60;
    for (int k = 0; k < steps; k++) {
        CHECK_OK(w, gr_step(w, hb.dt));
        gr_vec3 f, t;
        CHECK_OK(w, gr_body_get_force(w, box, &f, &t));
        force += f.y / steps;
    }
    const double weight = hb.mass * 9.81, carried = hb.impulse_sum.y / (steps * hb.dt);
    printf("  weight %.3f N; impulses handed over / t %.3f N; reported force %.3f N; box bottom %.4f m, surface "
           "%.4f m, speed %.4f m/s\n",
           weight, carried, force, hb.x.y - a, surface, fabs(hb.v.y));
    CHECK(fabs(carried - weight) < 0.03 * weight);
    CHECK(fabs(force - weight) < 0.05 * weight);
    CHECK(hb.x.y - a > surface - 2 * a && hb.x.y - a < surface + 0.01);
    gr_world_destroy(w);
}

/* Scenes the solver was not tuned for, on the defaults (mu 0.5): a block of sand
 * dropped from 0.5 m into a container, and a column ten times as tall as wide released on a
 * floor (2 cm cells, and 1 cm). The sand's energy (kinetic + potential) never rises, above the
 * start's or from one frame to the next, by more than 1 % of what it has to lose; no particle goes faster than the fall allows (10 % over), leaves
 * the container or passes the floor; mass is kept; and it all comes to rest. */
static void untuned_scene(const char *name, gr_vec3 lo, gr_vec3 hi, double L, double h, double frames)
{
    const gr_vec3 g = {0, -9.81, 0};
    gr_continuum_def cd;
    cd.size = sizeof cd;
    MUST(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    cd.cell_size = h;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    d.gravity = g;
    gr_world *w = NULL;
    MUST(NULL, gr_world_create(&d, &w));
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_CONTAINER;
    b.open_faces = GR_FACE_POS_Y;
    b.half_extents = (gr_vec3){L, 1.0, L};
    b.position = (gr_vec3){0, 1.0, 0};
    MUST(w, gr_add_body(w, &b, NULL));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = lo;
    f.max = hi;
    /* alpha 0.5 as tuned (the default material's derived 0.61 leaves 1.1-3.4e-4 J/kg at the
     * end: issue 37's settled layer that does not come to rest) */
    MUST(w, tu_material_as_built(w, &f.material));
    uint32_t n = 0;
    MUST(w, gr_fill_box(w, &f, &n, NULL, 0));
    const sand_sum s0 = sand_totals(w, g);
    const double bottom = lo.y, drop = s0.mass * 9.81 * (0.5 * (hi.y + lo.y)); /* (the centre to the floor) */
    const double vmax = sqrt(2 * 9.81 * hi.y) * 1.1;
    double worst_rise = 0, step_rise = 0, e_prev = s0.energy, fastest = 0, lowest = INFINITY, widest = 0, ke = 0;
    bool finite = true;
    for (int k = 0; k < (int)frames; k++) {
        MUST(w, gr_step(w, 1.0 / 60));
        const sand_sum s = sand_totals(w, g);
        worst_rise = fmax(worst_rise, (s.energy - s0.energy) / drop);
        step_rise = fmax(step_rise, (s.energy - e_prev) / drop);
        e_prev = s.energy;
        finite = finite && s.finite;
        const uint32_t m = gr_world_get_grain_count(w);
        double *p = (double *)malloc(sizeof(double) * 3 * m), *v = (double *)malloc(sizeof(double) * 3 * m);
        MUST(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, m, p, 0));
        MUST(w, gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, m, v, 0));
        ke = 0;
        for (uint32_t i = 0; i < m; i++) {
            const double *x = p + 3 * i, *u = v + 3 * i, u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
            fastest = fmax(fastest, sqrt(u2));
            lowest = fmin(lowest, x[1]);
            widest = fmax(widest, fmax(fabs(x[0]), fabs(x[2])));
            ke += 0.5 * u2;
        }
        ke /= m;
        free(p), free(v);
        CHECK(fabs(s.mass / s0.mass - 1) < 1e-12);
    }
    printf("  %s, h %.0f cm: %u particles from %.2f m; energy rose at most %.2e of the drop's above the start, %.2e in a frame; fastest %.2f m/s (the fall's "
           "%.2f); lowest %.4f m, widest %.4f m (walls at %.2f); kinetic energy at the end %.2e J/kg\n",
           name, 100 * h, n, bottom, worst_rise, step_rise, fastest, vmax / 1.1, lowest, widest, L, ke);
    CHECK(finite);
    CHECK(worst_rise < 0.01 && step_rise < 0.01);
    CHECK(fastest < vmax);
    CHECK(lowest > 0 && widest < L);
    CHECK(ke < 1e-4); /* (at rest: rms speed below 1.4 cm/s) */
    gr_world_destroy(w);
}

static void test_continuum_untuned_scenes(void)
{
    untuned_scene("block dropped from 0.5 m", (gr_vec3){-0.04, 0.5, -0.04}, (gr_vec3){0.04, 0.58, 0.04}, 0.2, 0.02, 150);
    untuned_scene("column 0.04 x 0.4 m", (gr_vec3){-0.02, 0.004, -0.02}, (gr_vec3){0.02, 0.4, 0.02}, 0.3, 0.02, 150);
    untuned_scene("column 0.04 x 0.4 m", (gr_vec3){-0.02, 0.004, -0.02}, (gr_vec3){0.02, 0.4, 0.02}, 0.3, 0.01, 150);
}

/* Zero gravity: a block of sand at 0.5 m/s hits a free box at rest and pushes it off. Sand and
 * box exchange momentum through the pressure and friction impulses: the total stays within 5 %
 * of the block's (measured: 3 %, gained at first contact, where the front faces hold slivers
 * of sand whose density counts as at least a tenth of the packed one and so take less than
 * their share; the density correction, which conserves no momentum, is off), and the box
 * moves off at a share of the block's speed. */
static void test_continuum_momentum_with_free_body(void)
{
    gr_continuum_def cd;
    cd.size = sizeof cd;
    CHECK_OK(NULL, gr_def_set_defaults(GR_DEF_CONTINUUM, &cd));
    cd.density_correction = 0;
    gr_world_def d;
    gr_world_def_init(&d, GR_SOLVER_CONTINUUM);
    d.solver_def = &cd;
    d.gravity = (gr_vec3){0, 0, 0};
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&d, &w));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.radius = 0.004;
    f.spacing = 0.0083;
    f.min = (gr_vec3){-0.12, -0.025, -0.025};
    f.max = (gr_vec3){-0.045, 0.025, 0.025};
    f.velocity = (gr_vec3){0.5, 0, 0};
    CHECK_OK(w, tu_material_as_built(w, &f.material)); /* (alpha 0.5 as measured below; derived 0.61: 7.8 %) */
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &f, &n, NULL, 0));
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_BOX;
    b.motion = GR_MOTION_DYNAMIC;
    b.half_extents = (gr_vec3){0.04, 0.04, 0.04};
    b.mass = 0.3;
    b.position = (gr_vec3){0.02, 0, 0};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    const gr_vec3 g0 = {0, 0, 0};
    const sand_sum s0 = sand_totals(w, g0);
    const double p0 = s0.momentum.x;
    double worst = 0;
    gr_vec3 v, om;
    for (int k = 0; k < 24; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 120));
        const sand_sum s = sand_totals(w, g0);
        CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
        const gr_vec3 p = {s.momentum.x + b.mass * v.x, s.momentum.y + b.mass * v.y, s.momentum.z + b.mass * v.z};
        worst = fmax(worst, sqrt((p.x - p0) * (p.x - p0) + p.y * p.y + p.z * p.z) / p0);
    }
    printf("  sand %.3f kg at 0.5 m/s, box %.2f kg: box now %.3f m/s (%.3f kg m/s of the block's %.3f); worst "
           "momentum change %.2f %% of the block's\n",
           s0.mass, b.mass, v.x, b.mass * v.x, p0, 100 * worst);
    CHECK(b.mass * v.x > 0.25 * p0);
    CHECK(worst < 0.05);
    gr_world_destroy(w);
}

/* A dynamic box set on a sand bed sliding at 0.5 m/s: the sand's friction (eq. 26: the friction
 * QP sees the box's velocity) stops it within a few centimetres (it tips forward, as a box
 * sliding on a rough floor does, and rocks a little: its kinetic energy, spin included, falls
 * below 5 % of the start's) and drags the sand under it along (the sand gains forward momentum
 * before the container's walls take it). Momentum is exchanged: the box's loss is the sand's
 * gain plus the impulses the container reports, within 5 % of the box's start momentum over the
 * whole half second (measured 3.4 %, most of it in the first steps of contact; 7.2 % before the
 * body's friction weight took what the sand does not of each face's stress, cont_bodies_shares:
 * docs/continuum.md, known limits). Without the coupling the box lost 59 %, slid back at 9 cm/s
 * and was not stopped. */
static void test_continuum_box_slides_on_sand(void)
{
    const gr_vec3 g = {0, -9.81, 0};
    uint32_t n = 0;
    const double L = 0.1, H = 0.06, a = 0.03;
    gr_body wall;
    gr_world *w = sand_bed_in(g, L, H, NULL, &n, &wall);
    for (int k = 0; k < 20; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const double surface = sand_totals(w, g).top;
    gr_body_def b = sand_test_box(a, 0.5, (gr_vec3){-0.04, surface + a, 0});
    b.linear_velocity = (gr_vec3){0.5, 0, 0};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    const double p0 = b.mass * 0.5, e0 = 0.5 * b.mass * 0.25, dt = 1.0 / 60;
    const double sand0 = sand_totals(w, g).momentum.x, I = b.mass * 4 * a * a / 6;
    double wall_x = 0, worst = 0, dragged = 0;
    gr_vec3 x, v, om;
    gr_quat q;
    for (int k = 0; k < 30; k++) {
        CHECK_OK(w, gr_step(w, dt));
        gr_vec3 f, t;
        CHECK_OK(w, gr_body_get_force(w, wall, &f, &t));
        wall_x += f.x * dt;
        CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
        const double sand = sand_totals(w, g).momentum.x - sand0;
        dragged = fmax(dragged, sand);
        const double balance = b.mass * v.x + sand + wall_x - p0;
        worst = fmax(worst, fabs(balance) / p0);
        if (getenv("GR_TEST_VERBOSE"))
            printf("    %d: box %.4f m/s (spin %+.3f rad/s), sand %+.5f, wall %+.5f kg m/s, balance %+.2e\n", k, v.x, om.z,
                   sand, wall_x, balance);
    }
    CHECK_OK(w, gr_body_get_pose(w, box, &x, &q));
    const double e = 0.5 * b.mass * (v.x * v.x + v.y * v.y + v.z * v.z) + 0.5 * I * (om.x * om.x + om.y * om.y + om.z * om.z);
    printf("  box %.3f kg at 0.5 m/s on sand: after 0.5 s %.4f m/s, %.2f %% of its kinetic energy, %.4f m slid; sand "
           "gained up to %.4f kg m/s of the box's %.4f; worst momentum balance %.2f %%\n",
           b.mass, v.x, 100 * e / e0, x.x + 0.04, dragged, p0, 100 * worst);
    CHECK(e < 0.05 * e0);                            /* stopped */
    CHECK(x.x + 0.04 > 0.005 && x.x + 0.04 < 0.06); /* after sliding a little */
    CHECK(dragged > 0.03 * p0);                      /* the sand was dragged along */
    CHECK(worst < 0.05);
    gr_world_destroy(w);
}

/* A dynamic box set on a sand bed under gravity tilted 12 degrees (a slope of 12 degrees; the
 * sand's friction angle is atan 0.5 = 26.6): friction holds it (eq. 26). It lands and settles in
 * the first second (a few centimetres: it is set on the highest grain); over the second it
 * moves less than 5 mm down the slope, never faster than 5 cm/s (measured 0.1 mm, 3.4 cm/s;
 * without the friction's coupling 10.5 mm and 10 cm/s: it crept and rocked down the slope;
 * sliding freely it would gain 2 m/s in that second). */
static void test_continuum_box_rests_on_slope(void)
{
    const double tilt = 12 * 3.14159265358979 / 180;
    const gr_vec3 g = {9.81 * sin(tilt), -9.81 * cos(tilt), 0};
    uint32_t n = 0;
    const double L = 0.1, H = 0.06, a = 0.03;
    gr_world *w = sand_bed_in(g, L, H, NULL, &n, NULL);
    for (int k = 0; k < 30; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const double surface = sand_totals(w, g).top;
    const gr_body_def b = sand_test_box(a, 0.5, (gr_vec3){0, surface + a, 0});
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    gr_vec3 x0 = {0, 0, 0}, x, v, om;
    gr_quat q;
    double vmax = 0;
    for (int k = 0; k < 120; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        CHECK_OK(w, gr_body_get_pose(w, box, &x, &q));
        CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
        if (k == 59)
            x0 = x;
        if (k >= 60)
            vmax = fmax(vmax, fabs(v.x));
        if (getenv("GR_TEST_VERBOSE"))
            printf("    %d: box x %.5f y %.5f vx %+.4f vy %+.4f\n", k, x.x, x.y, v.x, v.y);
    }
    const double down = (x.x - x0.x) * cos(tilt) - (x.y - x0.y) * sin(tilt);
    printf("  slope 12 deg: box at x %.4f m, moved %.4f m down the slope over the second second (fastest %.4f m/s)\n",
           x.x, down, vmax);
    CHECK(fabs(down) < 0.005 && vmax < 0.05);
    gr_world_destroy(w);
}

/* The lowest corner of a box body. */
static double box_bottom(const gr_world *w, gr_body box, gr_vec3 half)
{
    gr_vec3 x;
    gr_quat q;
    MUST(w, gr_body_get_pose(w, box, &x, &q));
    double low = INFINITY;
    for (int k = 0; k < 8; k++) {
        const gr_vec3 l = {(k & 1 ? 1 : -1) * half.x, (k & 2 ? 1 : -1) * half.y, (k & 4 ? 1 : -1) * half.z};
        /* y of q l q* (the rotated corner) */
        const double tx = 2 * (q.y * l.z - q.z * l.y), ty = 2 * (q.z * l.x - q.x * l.z), tz = 2 * (q.x * l.y - q.y * l.x);
        low = fmin(low, x.y + l.y + q.w * ty + (q.z * tx - q.x * tz));
    }
    return low;
}

/* A dynamic box, turned a little, dropped 25 cm onto the floor of a continuum world: with no
 * sand (the solver's bodies-only step) and into a sand bed (a box four times as dense as the
 * packed sand, dropped into a 4 cm bed: it goes through to the floor). It must come to rest on the
 * floor and not in it: its lowest corner never more than 1 mm below the floor, and at the end
 * within 2 mm of it, at under 2 cm/s. Energy: without sand, box's kinetic + potential energy
 * never rises from one frame to the next by more than 1e-5 of the drop's (the contacts take it
 * out; measured 1.8e-6: a corner that turned 0.04 mm into the floor within a step leaves it at a
 * fifth of its depth a step); with sand, box's and sand's by no more than 2 % of the drop's (the grid's noise, as in
 * continuum_dynamic_box_sinks). Before, with no sand the box hung in the air (the solver skipped
 * steps without particles) and through sand it fell through the floor. */
static void box_onto_floor(bool sand)
{
    const gr_vec3 g = {0, -9.81, 0};
    const double a = 0.025, drop = 0.25;
    uint32_t n = 0;
    gr_world *w;
    if (sand) {
        w = sand_bed(g, 0.08, 0.04, NULL, &n);
        for (int k = 0; k < 20; k++)
            CHECK_OK(w, gr_step(w, 1.0 / 60));
    } else {
        CHECK_OK(NULL, continuum_world(0.02, &w)); /* (a floor plane at y = 0) */
    }
    gr_body_def b = sand_test_box(a, 4, (gr_vec3){0.01, drop + a, 0});
    b.orientation = (gr_quat){0.05, 0.02, 0.08, 0.995};
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    const double e_drop = b.mass * 9.81 * drop;
    double e_prev = body_energy(w, box, g) + (sand ? sand_totals(w, g).energy : 0), worst = 0, lowest = INFINITY;
    gr_vec3 v, om;
    for (int k = 0; k < 120; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        const double e = body_energy(w, box, g) + (sand ? sand_totals(w, g).energy : 0);
        worst = fmax(worst, (e - e_prev) / e_drop);
        e_prev = e;
        lowest = fmin(lowest, box_bottom(w, box, b.half_extents));
        if (getenv("GR_TEST_VERBOSE"))
            printf("    %d: bottom %.5f m, energy %+.6f J\n", k, box_bottom(w, box, b.half_extents), e);
    }
    CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
    const double bottom = box_bottom(w, box, b.half_extents), speed = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    printf("  %s: lowest corner at worst %.5f m, at the end %.5f m, speed %.4f m/s; worst energy rise %.2e of the "
           "drop's\n",
           sand ? "through sand" : "no sand", lowest, bottom, speed, worst);
    CHECK(lowest > -0.001);
    CHECK(bottom < 0.002 && speed < 0.02);
    CHECK(worst < (sand ? 0.02 : 1e-5));
    gr_world_destroy(w);
}

static void test_continuum_box_on_floor(void) { box_onto_floor(false); }
static void test_continuum_box_through_sand_on_floor(void) { box_onto_floor(true); }

/* A dynamic box of half the packed sand's density set on a bed of the default friction (mu 0.5,
 * continuum_impact's scene, 2 cm cells) stays still: over its second second its centre's mean
 * speed and its corners' mean speed from turning (|w| a) are each below 5 mm/s, a quarter of a
 * cell a second. A box resting on a floor would not move at all; here the grid's noise may move
 * it a little. Sand over-packed next to the box, undone as velocity by the pressure, rocked it at
 * 1.83 cm/s and 0.46 rad/s (1.4 cm/s at its corners) and moved it 8.8 mm; undone by the density
 * correction's displacement once the box is at rest, 0.16 cm/s and 0.047 rad/s, 1.3 mm
 * (docs/continuum.md, "A body resting on sand"). */
static void test_continuum_box_rests_on_sand(void)
{
    const gr_vec3 g = {0, -9.81, 0};
    uint32_t n = 0;
    const double L = 0.08, H = 0.12, a = 0.03;
    gr_world *w = sand_bed_mu(g, L, H, NULL, &n, NULL, 0.5);
    for (int k = 0; k < 20; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const double surface = sand_totals(w, g).top;
    gr_body_def b = sand_test_box(a, 0.5, (gr_vec3){0, surface + a, 0});
    b.orientation = (gr_quat){0, 0.0998, 0, 0.995}; /* (as continuum_impact's) */
    gr_body box;
    CHECK_OK(w, gr_add_body(w, &b, &box));
    const int frames = 120, late = 60;
    double speed = 0, spin = 0;
    gr_vec3 x, x0 = {0, 0, 0}, v, om;
    gr_quat q;
    for (int k = 0; k < frames; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        CHECK_OK(w, gr_body_get_velocity(w, box, &v, &om));
        CHECK_OK(w, gr_body_get_pose(w, box, &x, &q));
        if (k == frames - late)
            x0 = x;
        if (k >= frames - late) {
            speed += sqrt(v.x * v.x + v.y * v.y + v.z * v.z) / late;
            spin += sqrt(om.x * om.x + om.y * om.y + om.z * om.z) / late;
        }
    }
    const double moved = sqrt((x.x - x0.x) * (x.x - x0.x) + (x.y - x0.y) * (x.y - x0.y) + (x.z - x0.z) * (x.z - x0.z));
    printf("  box bottom %.4f m (surface %.4f m); second second: mean speed %.4f m/s, spin %.3f rad/s (%.4f m/s at "
           "its corners), moved %.4f m\n",
           x.y - a, surface, speed, spin, spin * a, moved);
    CHECK(speed < 0.005);
    CHECK(spin * a < 0.005);
    CHECK(x.y - a > 0.5 * surface); /* (on the bed, not through it) */
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"continuum_fill_and_settle", test_continuum_fill_and_settle},
        {"continuum_snapshot_continues", test_continuum_snapshot_continues},
        {"continuum_snapshot_density_potential", test_continuum_snapshot_density_potential},
        {"continuum_refusals", test_continuum_refusals},
        {"continuum_split_merge_handles", test_continuum_split_merge_handles},
        {"continuum_stretched_flow_bounded", test_continuum_stretched_flow_bounded},
        {"continuum_render_points", test_continuum_render_points},
        {"continuum_dynamic_box_sinks", test_continuum_dynamic_box_sinks},
        {"continuum_host_box_carried", test_continuum_host_box_carried},
        {"continuum_momentum_with_free_body", test_continuum_momentum_with_free_body},
        {"continuum_untuned_scenes", test_continuum_untuned_scenes},
        {"continuum_box_slides_on_sand", test_continuum_box_slides_on_sand},
        {"continuum_box_rests_on_slope", test_continuum_box_rests_on_slope},
        {"continuum_box_on_floor", test_continuum_box_on_floor},
        {"continuum_box_through_sand_on_floor", test_continuum_box_through_sand_on_floor},
        {"continuum_box_rests_on_sand", test_continuum_box_rests_on_sand},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
