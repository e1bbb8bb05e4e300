/* SPDX-License-Identifier: MIT */
/* Issue 37, "one sand on every solver": the poured heap of the material map's calibration
 * (examples/common/fidelity_scenes.c, fid_run_heap: 3000 grains of 2 cm, settled 2 s) on the
 * DEM, PBD and continuum solvers, each world at its solver's default defs and the material as
 * a user gives it (user_defaults): the dry-sand preset, and the default material (friction 0.5
 * alone). The three heaps stand within 3 degrees of the DEM's, and the sand inside the real
 * band 30-35 degrees for the DEM and PBD (measured: DEM 32.5, PBD 31.4, continuum 34.4; the
 * default material 23.9, 24.1, 24.2; bench/results-materials.md). The continuum's heap still
 * creeps when it is read (its angle is that of 2 s), which the test does not hide: it prints
 * the creep. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "fidelity_scenes.h"
#include "harness.h"

/* The three heaps of one material; the angles in angle[3]. */
static void three_heaps(int preset, double angle[3])
{
    static const gr_solver_kind solvers[3] = {GR_SOLVER_DEM, GR_SOLVER_PBD, GR_SOLVER_CONTINUUM};
    for (int k = 0; k < 3; k++) {
        fid_params p = fid_default_params(solvers[k], 1);
        p.preset = preset;
        p.user_defaults = 1;
        fid_heap_result r;
        CHECK(fid_run_heap(&p, 3000, &r) == GR_OK);
        angle[k] = r.heap.angle_fit;
        printf("  %-9s: %u grains, lost %u, angle %.1f deg (height over foot %.1f), %d rings, p99 creep %.3f d\n",
               fid_solver_name(solvers[k]), r.grains, r.lost, r.heap.angle_fit, r.heap.angle_hr, r.heap.rings,
               r.still_disp_p99_d);
        CHECK(isfinite(r.heap.angle_fit) && r.heap.rings >= 5);
        CHECK(r.grains == 3000 && r.lost == 0);
    }
    printf("  PBD - DEM %+.1f deg, continuum - DEM %+.1f deg\n", angle[1] - angle[0], angle[2] - angle[0]);
    CHECK(fabs(angle[1] - angle[0]) <= 3.0);
    CHECK(fabs(angle[2] - angle[0]) <= 3.0);
}

static void test_three_solvers_sand_heap(void)
{
    double a[3];
    three_heaps(GR_MATERIAL_PRESET_DRY_SAND, a);
    CHECK(a[0] >= 30 && a[0] <= 35 && a[1] >= 30 && a[1] <= 35);
}

static void test_three_solvers_default_material_heap(void)
{
    double a[3];
    three_heaps(GR_MATERIAL_PRESET_DEFAULT, a);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"three_solvers_sand_heap", test_three_solvers_sand_heap},
        {"three_solvers_default_material_heap", test_three_solvers_default_material_heap},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
