/* SPDX-License-Identifier: MIT */
/* Fills of a box and of a closed mesh with each pattern: every grain wholly inside the region,
 * none overlapping, the Poisson pattern dense and seed-exact. */
#include <granular/granular.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define GR_TEST_PI 3.14159265358979323846

static gr_world *fill_world(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    gr_world *w = NULL;
    gr_world_create(&def, &w);
    return w;
}

typedef struct fill_stats {
    uint32_t n;
    double worst_outside; ///< largest |x - centre| + r - R (sphere region)
    double worst_overlap; ///< largest r_i + r_j - |x_i - x_j|
    double volume;        ///< sum of grain volumes
} fill_stats;

static fill_stats stats(const gr_world *w, gr_vec3 centre, double region_r)
{
    fill_stats s = {gr_world_get_grain_count(w), -INFINITY, -INFINITY, 0};
    double *x = (double *)malloc(sizeof(double) * 3 * (s.n + 1)), *r = (double *)malloc(sizeof(double) * (s.n + 1));
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, s.n, x, 0);
    gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, s.n, r, 0);
    for (uint32_t i = 0; i < s.n; i++) {
        const double dx = x[3 * i] - centre.x, dy = x[3 * i + 1] - centre.y, dz = x[3 * i + 2] - centre.z;
        s.worst_outside = fmax(s.worst_outside, sqrt(dx * dx + dy * dy + dz * dz) + r[i] - region_r);
        s.volume += 4.0 / 3.0 * GR_TEST_PI * r[i] * r[i] * r[i];
        for (uint32_t j = 0; j < i; j++) {
            const double ex = x[3 * i] - x[3 * j], ey = x[3 * i + 1] - x[3 * j + 1], ez = x[3 * i + 2] - x[3 * j + 2];
            s.worst_overlap = fmax(s.worst_overlap, r[i] + r[j] - sqrt(ex * ex + ey * ey + ez * ez));
        }
    }
    free(x);
    free(r);
    return s;
}

/* A sphere mesh (inscribed polyhedron of radius 0.1 m) filled with 8 mm grains by each
 * pattern: all inside the sphere, none overlapping; Poisson packs densest of the random ones. */
static void test_fill_mesh_inside_and_apart(void)
{
    gr_vec3 v[300];
    uint32_t idx[3 * 512], nv;
    const uint32_t nt = tu_sphere_mesh(0.1, 2, v, idx, &nv);
    const gr_vec3 c = {0.2, 0.5, -0.1};
    for (uint32_t k = 0; k < nv; k++)
        v[k] = (gr_vec3){v[k].x + c.x, v[k].y + c.y, v[k].z + c.z};
    const double sphere_volume = 4.0 / 3.0 * GR_TEST_PI * 0.1 * 0.1 * 0.1;
    static const gr_fill_pattern patterns[] = {GR_FILL_LATTICE, GR_FILL_RANDOM, GR_FILL_POISSON};
    static const char *names[] = {"lattice", "random", "poisson"};
    double fraction[3];
    for (int p = 0; p < 3; p++) {
        gr_world *w = fill_world();
        CHECK(w != NULL);
        gr_fill_def d;
        gr_fill_def_init(&d);
        d.pattern = patterns[p];
        d.radius = 0.008;
        uint32_t added = 0;
        CHECK_OK(w, gr_fill_mesh(w, &d, v, nv, idx, nt, &added, NULL, 0));
        const fill_stats s = stats(w, c, 0.1);
        fraction[p] = s.volume / sphere_volume;
        printf("  %-8s %u grains, solid fraction %.3f, worst poke-out %.2g m, worst overlap %.2g m\n", names[p], s.n,
               fraction[p], s.worst_outside, s.worst_overlap);
        CHECK(added == s.n && s.n > 50);
        CHECK(s.worst_outside <= 1e-12);
        CHECK(s.worst_overlap <= 1e-12);
        gr_world_destroy(w);
    }
    CHECK(fraction[2] > fraction[1]); /* cells visit every part of the region */
    CHECK(fraction[2] > 0.3 && fraction[2] < 0.6);
}

/* The Poisson pattern in a box mesh and in the same box: the same kind of fill (counts within a
 * few percent); the same seed gives the same grains, another seed others. */
static void test_fill_poisson_box_and_seed(void)
{
    gr_vec3 v[8];
    uint32_t idx[36];
    tu_box_mesh((gr_vec3){0.05, 0.04, 0.03}, (gr_vec3){0.05, 0.04, 0.03}, v, idx);
    uint32_t counts[4];
    uint64_t hashes[4];
    for (int k = 0; k < 4; k++) {
        gr_world *w = fill_world();
        gr_fill_def d;
        gr_fill_def_init(&d);
        d.pattern = GR_FILL_POISSON;
        d.radius = 0.004;
        d.min = (gr_vec3){0, 0, 0};
        d.max = (gr_vec3){0.1, 0.08, 0.06};
        d.seed = k == 3 ? 99 : 7;
        if (k == 0)
            CHECK_OK(w, gr_fill_box(w, &d, &counts[k], NULL, 0));
        else
            CHECK_OK(w, gr_fill_mesh(w, &d, v, 8, idx, 12, &counts[k], NULL, 0));
        const fill_stats s = stats(w, (gr_vec3){0.05, 0.04, 0.03}, 1.0);
        CHECK(s.worst_overlap <= 1e-12);
        hashes[k] = tu_state_hash(w, NULL, 0);
        gr_world_destroy(w);
    }
    printf("  box %u grains, box mesh %u, again %u, other seed %u\n", counts[0], counts[1], counts[2], counts[3]);
    CHECK(fabs((double)counts[1] - counts[0]) < 0.03 * counts[0]);
    CHECK(hashes[1] == hashes[2]);
    CHECK(hashes[1] != hashes[3]);
}

/* Out of memory at each allocation of a mesh fill (the mesh check, the triangle grid, the
 * overlap grid, the grain list, the solver's arrays): an error, and the world as it was. */
static void test_fill_mesh_out_of_memory(void)
{
    gr_vec3 v[300];
    uint32_t idx[3 * 512], nv;
    const uint32_t nt = tu_sphere_mesh(0.05, 2, v, idx, &nv);
    int failures = 0, k;
    for (k = 0; k < 10000; k++) {
        tu_alloc a;
        tu_alloc_init(&a);
        gr_world_def def;
        gr_world_def_init(&def, GR_SOLVER_PBD);
        def.allocator = tu_allocator(&a);
        gr_world *w = NULL;
        CHECK_OK(NULL, gr_world_create(&def, &w));
        gr_fill_def d;
        gr_fill_def_init(&d);
        d.pattern = GR_FILL_POISSON;
        d.radius = 0.006;
        const uint64_t h0 = tu_state_hash(w, NULL, 0);
        gr_counters c0, c1;
        c0.size = c1.size = sizeof c0;
        gr_world_get_counters(w, &c0);
        a.fail_at = a.calls + k;
        a.fail_once = 1;
        const gr_status s = gr_fill_mesh(w, &d, v, nv, idx, nt, NULL, NULL, 0);
        a.fail_at = -1;
        if (s == GR_OK) {
            CHECK(gr_world_get_grain_count(w) > 0);
            gr_world_destroy(w);
            break;
        }
        failures++;
        gr_world_get_counters(w, &c1);
        CHECK(s == GR_ERROR_OUT_OF_MEMORY);
        CHECK(gr_world_get_grain_count(w) == 0 && tu_state_hash(w, NULL, 0) == h0);
        /* storage may have grown (capacity is no state); nothing leaks: see a.live below */
        CHECK(c1.grain_count == 0);
        gr_world_destroy(w);
        CHECK(a.live == 0);
    }
    printf("  %d allocation sites failed one at a time, each refused cleanly\n", failures);
    CHECK(failures >= 4);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"fill_mesh_inside_and_apart", test_fill_mesh_inside_and_apart},
        {"fill_poisson_box_and_seed", test_fill_poisson_box_and_seed},
        {"fill_mesh_out_of_memory", test_fill_mesh_out_of_memory},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
