/* SPDX-License-Identifier: MIT */
/* bench/run sommer --scene NAME [--workers W] [--frames F] [--repeat K]: Sommer & Schwanecke's scenes with
 * the paper's counts and radii (examples/common/sommer_scenes.c), timed per frame of 1/30 s.
 * The scene runs twice from the same start: with upsampling (total) and without (the
 * low-resolution solver alone; the points are passive, so the grains move identically); the
 * upsampling's time is the difference. Building the scene (bodies, the fill and its points) and
 * the first frame are not timed; their times are printed separately. With --repeat K each run is repeated K times and
 * the median frame time is taken (the machine may be busy). Prints
 *   sommer scene=<name> lr=<n> hr=<n> workers=<w> lr_ms_per_frame=<x> hr_ms_per_frame=<y> */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/common/sommer_scenes.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The part of each scene worth timing: [first, first + frames) frames of 1/30 s. */
static int first_frame(sommer_kind k)
{
    switch (k) {
    case SOMMER_SANDCASTLE: return 1;  /* the castle slumping */
    case SOMMER_EXCAVATOR: return 15;  /* the bucket digging, lifting, pouring */
    case SOMMER_HOURGLASS: return 30;  /* the flow through the neck */
    case SOMMER_SQUIRREL: return 60;   /* from the throw */
    }
    return 1;
}

typedef struct run_result {
    double ms_per_frame, first_ms, create_ms;
    double substeps_per_frame, contacts_per_grain;
    uint32_t grains, points, body_particles;
} run_result;

static int run(const sommer_def *def, int frames, run_result *out)
{
    sommer_scene s;
    const double tc = now();
    gr_status st = sommer_create(def, &s);
    out->create_ms = 1e3 * (now() - tc);
    if (st != GR_OK) {
        fprintf(stderr, "sommer: building the scene failed: %s (%s)\n", gr_status_string(st),
                s.w ? gr_world_last_error(s.w) : "");
        return -1;
    }
    const double dt = 1.0 / 30;
    const int start = first_frame(def->kind);
    double t0 = now();
    for (int f = 0; f < start && st == GR_OK; f++) {
        st = sommer_step(&s, dt);
        if (f == 0)
            out->first_ms = 1e3 * (now() - t0);
    }
    gr_counters c0 = {.size = sizeof c0}, c1 = {.size = sizeof c1};
    gr_world_get_counters(s.w, &c0);
    t0 = now();
    for (int f = 0; f < frames && st == GR_OK; f++)
        st = sommer_step(&s, dt);
    const double t = now() - t0;
    gr_world_get_counters(s.w, &c1);
    out->substeps_per_frame = (double)(c1.substep_count - c0.substep_count) / frames;
    out->contacts_per_grain = c1.grain_count ? 2.0 * (double)c1.contact_count / c1.grain_count : 0;
    if (st != GR_OK) {
        fprintf(stderr, "sommer: step failed: %s (%s)\n", gr_status_string(st), gr_world_last_error(s.w));
        sommer_destroy(&s);
        return -1;
    }
    out->ms_per_frame = 1e3 * t / frames;
    out->grains = gr_world_get_grain_count(s.w);
    out->points = def->r_hr > 0 ? gr_world_get_render_point_count(s.w) : 0;
    out->body_particles = 0;
    if (s.squirrel.id)
        out->body_particles = gr_body_get_particle_count(s.w, s.squirrel);
    if (s.bucket.id)
        out->body_particles = gr_body_get_particle_count(s.w, s.bucket);
    if (s.glass.id)
        out->body_particles = gr_body_get_particle_count(s.w, s.glass);
    sommer_destroy(&s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *scene = "hourglass";
    unsigned workers = 2;
    int frames = 60, repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scene") && i + 1 < argc)
            scene = argv[++i];
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
            workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_sommer --scene sandcastle|excavator|hourglass|squirrel [--workers W] "
                            "[--frames F] [--repeat K]\n");
            return 2;
        }
    }
    const int kind = sommer_kind_from_name(scene);
    if (kind < 0 || frames < 1 || repeat < 1 || repeat > 99) {
        fprintf(stderr, "unknown scene %s (or frames < 1, or repeat not in 1..99)\n", scene);
        return 2;
    }
    sommer_def def = sommer_paper_def((sommer_kind)kind);
    def.workers = workers;
    run_result full, lr;
    memset(&full, 0, sizeof full);
    memset(&lr, 0, sizeof lr);
    double full_ms[99], lr_ms[99];
    const double r_hr = def.r_hr;
    for (int k = 0; k < repeat; k++) {
        def.r_hr = r_hr;
        if (run(&def, frames, &full))
            return 1;
        full_ms[k] = full.ms_per_frame;
        def.r_hr = 0;
        if (run(&def, frames, &lr))
            return 1;
        lr_ms[k] = lr.ms_per_frame;
    }
    full.ms_per_frame = median(full_ms, repeat); /* (sorts them) */
    lr.ms_per_frame = median(lr_ms, repeat);
    if (repeat > 1) /* a shared machine's noise only adds time: the fastest run is the steadiest figure */
        printf("# %s: fastest of %d runs: LR %.2f ms per frame, with points %.2f (LR + HR)\n", scene, repeat, lr_ms[0],
               full_ms[0]);
    const double hr_ms = full.ms_per_frame - lr.ms_per_frame;
    printf("# %s: r_lr %.4g m, r_hr %.4g m, %u body particles, %d frames of 1/30 s timed (median of %d runs); scene "
           "built in %.0f ms (bodies, fill, the fill region's points), first frame %.0f ms; with points %.2f ms per "
           "frame; %.2f substeps per frame, %.1f grain contacts per grain\n",
           scene, def.r_lr, r_hr, full.body_particles, frames, repeat, full.create_ms, full.first_ms,
           full.ms_per_frame, lr.substeps_per_frame, lr.contacts_per_grain);
    printf("sommer scene=%s lr=%u hr=%u workers=%u lr_ms_per_frame=%.2f hr_ms_per_frame=%.2f\n", scene, full.grains,
           full.points, workers, lr.ms_per_frame, hr_ms > 0 ? hr_ms : 0.0);
    return 0;
}
