/* SPDX-License-Identifier: MIT */
/* Benchmark: Bell, Yu and Mucha's hourglass at full size (Bell 2005, Figure 1 and Table 1):
 * 27,427 tetrahedral grains (4 spheres each: 109,708 spheres) draining through the neck of an
 * hourglass. Bell reports 3.18 minutes per frame on 2005 hardware. Here:
 *   grains: 4-sphere tetrahedra, enclosing radius 2.5 mm (member spheres 1.25 mm),
 *           density 2500 kg/m^3, Young's modulus 10 MPa (as in the paper), Poisson 0.3,
 *           restitution 0.5, friction 0.5, Hertz-Mindlin with history;
 *   time step: the library's own stable substep (Rayleigh rule, 0.15 of the member spheres'
 *           Rayleigh time), printed below; never a larger one;
 *   hourglass: a static triangle mesh covered with particles of 1.25 mm, bulbs of 7 cm radius
 *           and 26 cm height, a neck of 1.5 cm radius;
 *   frames: 1/30 s. The grains start in a loose lattice in the upper bulb with the neck open;
 *           after `--warmup` frames (untimed) the next `--frames` frames are timed.
 * Prints: bell-hourglass grains=<n> spheres=<n> workers=<w> s_per_frame=<x> (and details).
 * A harness, not a test. */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/common/hourglass_mesh.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned workers = 1, grains = 27427;
    int frames = 6, warmup = 6;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--workers") && i + 1 < argc) workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--grains") && i + 1 < argc) grains = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--workers W] [--frames F] [--warmup F] [--grains N]\n", argv[0]);
            return 2;
        }
    }
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return 1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 2500;
    md.youngs_modulus = 10e6;
    md.poisson_ratio = 0.3;
    md.restitution = 0.5;
    md.friction = 0.5;
    gr_material sand;
    gr_add_material(w, &md, &sand);

    const double R = 2.5e-3;
    const hourglass_shape shape = {0.07, 0.015, 0.26, 0.06, 0.01};
    gr_body glass;
    const double t_prep = now();
    /* wall particles the size of the grains' spheres: a close, rough wall */
    if (hourglass_add_body(w, &shape, sand, 0.5 * R, &glass) != GR_OK) {
        fprintf(stderr, "%s\n", gr_world_last_error(w));
        return 1;
    }
    const double prep = now() - t_prep;
    gr_body_def fd;
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    fd.material = sand;
    gr_add_body(w, &fd, NULL);

    /* a cylindrical lattice in the upper bulb, from its bottom up */
    gr_grain_def *g = (gr_grain_def *)malloc(sizeof(gr_grain_def) * grains);
    const double spacing = 2.1 * R, y0 = hourglass_neck_y(&shape) + shape.cone_h + R;
    const double rmax = shape.bulb_r - 1.2 * R;
    uint64_t seed = 0x243f6a8885a308d3ull;
    unsigned k = 0;
    for (int layer = 0; k < grains; layer++)
        for (double x = -rmax; x <= rmax && k < grains; x += spacing)
            for (double z = -rmax; z <= rmax && k < grains; z += spacing) {
                if (x * x + z * z > rmax * rmax)
                    continue;
                gr_grain_def *d = &g[k++];
                gr_grain_def_init(d);
                d->shape = GR_GRAIN_TETRAHEDRON;
                d->radius = R;
                d->material = sand;
                d->position = (gr_vec3){x, y0 + layer * spacing, z};
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                const double a = (double)(seed >> 11) * (1.0 / 9007199254740992.0) * 6.283185307179586;
                d->orientation = (gr_quat){sin(a), 0.3 * cos(a), 0.2, 1.0};
            }
    if (gr_add_grains(w, g, grains, NULL) != GR_OK) {
        fprintf(stderr, "%s\n", gr_world_last_error(w));
        return 1;
    }
    free(g);
    const double frame = 1.0 / 30;
    for (int f = 0; f < warmup; f++)
        if (gr_step(w, frame) != GR_OK) {
            fprintf(stderr, "%s\n", gr_world_last_error(w));
            return 1;
        }
    gr_counters c0;
    c0.size = sizeof c0;
    gr_world_get_counters(w, &c0);
    const double t0 = now();
    for (int f = 0; f < frames; f++)
        if (gr_step(w, frame) != GR_OK) {
            fprintf(stderr, "%s\n", gr_world_last_error(w));
            return 1;
        }
    const double per_frame = (now() - t0) / frames;
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    const uint32_t spheres = gr_world_get_render_point_count(w);
    printf("bell-hourglass grains=%u spheres=%u workers=%u s_per_frame=%.3f\n", grains, spheres, workers, per_frame);
    printf("  radius=%.4g m (members %.4g m) density=2500 E=10MPa substep=%.3e s substeps_per_frame=%.0f "
           "wall_particles=%u wall_cover_s=%.2f contacts_per_sphere=%.2f vs_bell_3.18min=%.0fx\n",
           R, 0.5 * R, c.last_substep, (double)(c.substep_count - c0.substep_count) / frames,
           gr_body_get_particle_count(w, glass), prep, 2.0 * (double)c.contact_count / spheres, 3.18 * 60 / per_frame);
    printf("  rebuilds_per_frame=%.1f\n", (double)(c.neighbor_rebuilds - c0.neighbor_rebuilds) / frames);
    gr_world_destroy(w);
    return 0;
}
