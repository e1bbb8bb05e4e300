/* SPDX-License-Identifier: MIT */
/* The continuum solver's friction through the public API (issue 22 sec. 3): the repose angle
 * of a collapsed column grows with the material's friction. The solver maps a material's
 * friction mu to the Drucker-Prager alpha = sqrt(2/3) sin(atan mu) (docs/continuum.md); the
 * column (examples/common/collapse_scene.c: 6 x 6 x 12 cm, cells of 1 cm, 8 particles a cell) is
 * released on a floor of the same material and left 1.5 s. The angle is read from the final
 * pile's profile two ways: the surface per ring fitted on the flank (20 % to 80 % of the peak),
 * and atan(peak height / foot radius), the foot holding 98 % of the particles. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "collapse_scene.h"
#include "harness.h"

static void test_continuum_repose_grows_with_friction(void)
{
    const double mu[3] = {0.6, 1.0, 2.5};
    collapse_pile p[3];
    for (int k = 0; k < 3; k++) {
        collapse_def d = collapse_default();
        d.workers = 2;
        d.mu = mu[k];
        collapse_scene s;
        CHECK(collapse_create(&d, &s) == GR_OK);
        for (int f = 0; f < 90; f++)
            CHECK(collapse_step(&s, 1.0 / 60) == GR_OK);
        collapse_measure(&s, 0, &p[k]);
        printf("  mu %.1f (alpha %.3f, atan mu %.1f deg): foot %.3f m, height %.3f m; repose angle %.1f deg (flank fit "
               "over %d rings), %.1f deg (atan height / foot); mean speed %.4f m/s\n", mu[k],
               sqrt(2.0 / 3) * sin(atan(mu[k])), atan(mu[k]) * 180 / 3.14159265358979323846, p[k].foot, p[k].height,
               p[k].angle, p[k].rings, p[k].angle_hr, p[k].mean_speed);
        CHECK(p[k].mean_speed < 0.03); /* the pile has (nearly) stopped: a moving one has no angle yet */
        collapse_destroy(&s);
    }
    for (int k = 0; k + 1 < 3; k++) {
        CHECK(p[k + 1].angle_hr > p[k].angle_hr + 1); /* steeper with more friction */
        CHECK(p[k + 1].foot < p[k].foot);             /* and spread less */
    }
    CHECK(p[2].angle > p[0].angle + 2); /* the fitted flank too, from the least to the most friction */
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"continuum_repose_grows_with_friction", test_continuum_repose_grows_with_friction},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
