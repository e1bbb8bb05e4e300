/* SPDX-License-Identifier: MIT */
/* The PBD solver outside its showcase (issue 20): the scenes of bench/run fidelity
 * (examples/common/fidelity_scenes.c), sized for CI, with the bounds the solver is held to.
 * Energies are in units of sum m g d (lifting every grain by one diameter); overlaps in
 * diameters (of the pair's contact distance). */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "fidelity_scenes.h"
#include "harness.h"

/* A column poured 100 diameters tall (the 3429 grains of a 140 d lattice, poured in random
 * layers) in a 10 x 4 diameter box at 1/60 s frames: settles
 * without bouncing, keeps 97 % of its height, overlap at most 2 % mean and 10 % max, and
 * stands still; no frame gains more than 0.2 % of the energy of lifting every grain by a
 * diameter (the solve stops at a tolerance of 1 % of a radius per sweep: what is left over is
 * removed by the stabilisation, without velocity but with its potential energy). */
static void test_pbd_tall_column_holds(void)
{
    const fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
    fid_column_result r;
    CHECK(fid_run_column(&p, 140, 1, &r) == GR_OK);
    printf("  %u grains: fill %.1f d, end %.1f d (lowest %.1f, highest after 1 s %.1f), overlap mean %.4f max %.4f, "
           "largest energy rise per frame %.3g (of sum m g d), still %.4f d\n",
           r.grains, r.fill_height_d, r.height_d, r.height_min_d, r.height_max_late_d, r.overlap.mean, r.overlap.max,
           r.e_rise_rel, r.still_disp_d);
    CHECK(r.height_d > 0.97 * r.fill_height_d);
    CHECK(r.height_max_late_d <= r.fill_height_d + 0.01); /* no bounce */
    CHECK(r.overlap.mean <= 0.02 && r.overlap.max <= 0.10);
    CHECK(r.still_disp_d < 0.01);
    CHECK(r.left_box == 0 && r.left_box_max == 0);
    CHECK(r.e_rise_rel < 2e-3);
    CHECK(r.vmax < r.v_free_fall);
}

/* A 10 x 10 x 10 block dropped half a metre into a box: no frame gains energy beyond 0.1 % of
 * sum m g d, the bed under load overlaps by at most 2 % mean and 10 % max, and it comes to
 * rest and stays. */
static void test_pbd_dropped_pile_rests(void)
{
    const fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
    fid_pile_result r;
    CHECK(fid_run_pile(&p, 10, &r) == GR_OK);
    printf("  %u grains: energy %.2f J -> %.2f J, largest rise per frame %.3g (of sum m g d), overlap mean %.4f "
           "max %.4f, at rest from %.2f s, still %.4f d\n",
           r.grains, r.energy.first, r.energy.last, r.e_rise_rel, r.overlap.mean, r.overlap.max, r.rest_time,
           r.still_disp_d);
    CHECK(r.e_rise_rel < 1e-3);
    CHECK(r.energy.last < r.energy.first);
    CHECK(r.overlap.mean <= 0.02 && r.overlap.max <= 0.10);
    CHECK(r.rest_time > 0 && r.rest_time < 3.0);
    CHECK(r.still_disp_d < 0.01);
}

/* A touching cluster with random velocities in zero gravity: linear momentum to round-off,
 * and the kinetic energy never rises (collisions only take it away). */
static void test_pbd_free_cluster_momentum(void)
{
    const fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
    fid_cluster_result r;
    CHECK(fid_run_cluster(&p, 500, &r) == GR_OK);
    printf("  %u grains: momentum drift %.3g of sum m |v|, kinetic energy %.4f J -> %.4f J (largest rise %.3g of "
           "the start)\n",
           r.grains, r.p_drift_rel, r.ke_first, r.ke_last, r.ke_rise_rel);
    CHECK(r.p_drift_rel < 1e-12);
    CHECK(r.ke_rise_rel < 1e-6);
    CHECK(r.ke_last < r.ke_first);
}

/* Grains spawned overlapping by 20 % under gravity: they part without flying (the overlap is
 * removed without velocity), and none leaves the box. The potential energy rises by the lift
 * of parting, the overlap's own energy; overlap that sleeping grains still hold stays (they
 * keep their place). */
static void test_pbd_overlapping_spawn_calm(void)
{
    const fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
    fid_spawn_result r;
    CHECK(fid_run_spawn(&p, 10, &r) == GR_OK);
    printf("  %u grains: fastest %.3f m/s, largest kinetic energy %.3g (of sum m g d), energy rise %.3g, overlap at "
           "the end mean %.4f max %.4f\n",
           r.grains, r.vmax, r.ke_max_per_grain_rel, r.e_rise_rel, r.overlap.mean, r.overlap.max);
    CHECK(r.left_box == 0);
    CHECK(r.vmax < 0.5);
    CHECK(r.ke_max_per_grain_rel < 0.01);
    CHECK(r.e_rise_rel < 0.4); /* at most the lift of parting 20 % overlaps */
    CHECK(r.overlap.mean < 0.05);
}

/* A square silo 12 d wide poured with 7600 grains of the dry-sand preset (about 4 widths), a
 * 6 d orifice: the discharge rate while the fill stands above two widths and while it stands
 * between one and two agree (a liquid's rate falls with its head: the old solver's fell 12 %
 * from the first half to the second). The band is what the solver holds: over orifices of
 * 5, 6 and 7 d the ratio is 1.08, 0.88 and 0.97 (DEM in the same silo: jammed, 0.93, 1.07;
 * bench/results-fidelity.md); 6 d is its worst. The flow never stops, and the fill before
 * opening is packed as poured sand is (about 0.57, no overlap to speak of). */
static void test_pbd_silo_constant_rate(void)
{
    fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
    p.preset = GR_MATERIAL_PRESET_DRY_SAND;
    fid_silo_result r;
    CHECK(fid_run_silo(&p, 12, 6.0, 7.0, 1, &r) == GR_OK);
    printf("  %u grains, fill %.2f widths, packing %.3f, overlap mean %.4f max %.4f; rate %.0f/s above 2 widths, "
           "%.0f/s from 2 to 1 (ratio %.3f); halves %.0f, %.0f; per second:",
           r.grains, r.fill0_w, r.packing, r.overlap.mean, r.overlap.max, r.rate_hi, r.rate_lo, r.ratio, r.rate_half1,
           r.rate_half2);
    for (int i = 0; i < r.rate_count; i++)
        printf(" %.0f", r.rates[i]);
    printf("\n");
    CHECK(!r.jammed);
    CHECK(r.fill0_w > 3.5);
    CHECK(r.packing > 0.53 && r.packing < 0.64);
    CHECK(r.overlap.mean <= 0.02 && r.overlap.max <= 0.10);
    CHECK(r.rate_hi > 0 && r.rate_lo > 0);
    CHECK(r.ratio > 0.85 && r.ratio < 1.10);
    CHECK(fabs(r.rate_half2 / r.rate_half1 - 1) < 0.20);
}

/* Heaps poured from a small disc on a rough floor stand at each preset's documented angle of
 * repose (docs/materials.md; the fitted slope of the flank, 3000 grains of 2 cm, 60 Hz). */
static void test_pbd_preset_repose_angles(void)
{
    static const struct { gr_material_preset preset; const char *name; double lo, hi; } cases[] = {
        {GR_MATERIAL_PRESET_GLASS_BEADS, "glass beads", 20, 26},
        {GR_MATERIAL_PRESET_DRY_SAND, "dry sand", 30, 35},
        {GR_MATERIAL_PRESET_GRAVEL, "gravel", 38, 45},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fid_params p = fid_default_params(GR_SOLVER_PBD, 2);
        p.preset = (int)cases[i].preset;
        fid_heap_result r;
        CHECK(fid_run_heap(&p, 3000, &r) == GR_OK);
        printf("  %-11s: %.1f degrees (band %.0f-%.0f; from the heap's height and foot %.1f), %u grains\n",
               cases[i].name, r.heap.angle_fit, cases[i].lo, cases[i].hi, r.heap.angle_hr, r.grains);
        CHECK(r.heap.angle_fit >= cases[i].lo && r.heap.angle_fit <= cases[i].hi);
        CHECK(r.heap.rings >= 5);
    }
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"pbd_tall_column_holds", test_pbd_tall_column_holds},
        {"pbd_dropped_pile_rests", test_pbd_dropped_pile_rests},
        {"pbd_free_cluster_momentum", test_pbd_free_cluster_momentum},
        {"pbd_overlapping_spawn_calm", test_pbd_overlapping_spawn_calm},
        {"pbd_silo_constant_rate", test_pbd_silo_constant_rate},
        {"pbd_preset_repose_angles", test_pbd_preset_repose_angles},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
