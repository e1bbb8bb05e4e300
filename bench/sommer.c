/* SPDX-License-Identifier: MIT */
/* bench/run sommer --scene NAME [--workers W] [--frames F] [--repeat K]: Sommer & Schwanecke's scenes with
 * the paper's counts and radii (examples/common/sommer_scenes.c), timed per frame of 1/30 s.
 * The scene is built twice, with upsampling (total) and without (the low-resolution solver
 * alone; the points are passive, so the grains move identically); the upsampling's time is the
 * difference. Building the scene (bodies, the fill and its points) and the frames before the
 * timed ones are not timed; their times are printed separately. With --repeat K the timed
 * frames run K times for each, every pass from a snapshot of its first frame and the two
 * scenes' passes alternating, and the median is taken (the machine may be busy; the fastest
 * pass is printed too). Prints
 *   sommer scene=<name> lr=<n> hr=<n> workers=<w> lr_ms_per_frame=<x> hr_ms_per_frame=<y> */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/common/sommer_scenes.h"
#include "../tests/test_util.h"

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

/* A scene brought to its first timed frame, with a snapshot of that state: every timed pass
 * starts from it, so the passes repeat the same work (stepping from a snapshot is
 * bit-identical to stepping on) and only the machine's noise differs between them. */
typedef struct prepared {
    sommer_scene scene, at_start;
    tu_stream snap; ///< (the tests' in-memory stream)
    run_result res;
    int passes;
} prepared;

static int prepare(const sommer_def *def, prepared *p)
{
    memset(p, 0, sizeof *p);
    tu_stream_init(&p->snap);
    const double tc = now();
    gr_status st = sommer_create(def, &p->scene);
    p->res.create_ms = 1e3 * (now() - tc);
    if (st != GR_OK) {
        fprintf(stderr, "sommer: building the scene failed: %s (%s)\n", gr_status_string(st),
                p->scene.w ? gr_world_last_error(p->scene.w) : "");
        return -1;
    }
    const int start = first_frame(def->kind);
    const double t0 = now();
    for (int f = 0; f < start && st == GR_OK; f++) {
        st = sommer_step(&p->scene, 1.0 / 30);
        if (f == 0)
            p->res.first_ms = 1e3 * (now() - t0);
    }
    if (st == GR_OK)
        st = gr_world_save(p->scene.w, tu_stream_write, &p->snap);
    if (st != GR_OK) {
        fprintf(stderr, "sommer: reaching the timed frames failed: %s (%s)\n", gr_status_string(st),
                gr_world_last_error(p->scene.w));
        return -1;
    }
    p->at_start = p->scene;
    return 0;
}

/* One timed pass over the frames from the snapshot; its ms per frame. */
static int timed_pass(prepared *p, int frames, double *ms_per_frame)
{
    gr_status st = GR_OK;
    if (p->passes++) {
        p->snap.pos = 0;
        st = gr_world_load(p->scene.w, tu_stream_read, &p->snap);
        p->scene = p->at_start; /* (the scene's own state: time, bucket, thrown body) */
    }
    gr_counters c0 = {.size = sizeof c0}, c1 = {.size = sizeof c1};
    gr_world_get_counters(p->scene.w, &c0);
    const double t0 = now();
    for (int f = 0; f < frames && st == GR_OK; f++)
        st = sommer_step(&p->scene, 1.0 / 30);
    const double t = now() - t0;
    gr_world_get_counters(p->scene.w, &c1);
    if (st != GR_OK) {
        fprintf(stderr, "sommer: step failed: %s (%s)\n", gr_status_string(st), gr_world_last_error(p->scene.w));
        return -1;
    }
    run_result *r = &p->res;
    const double substeps = (double)(c1.substep_count - c0.substep_count) / frames;
    if (p->passes > 1 && substeps != r->substeps_per_frame)
        fprintf(stderr, "sommer: a pass from the snapshot took %.3f substeps per frame, the first %.3f\n", substeps,
                r->substeps_per_frame);
    r->substeps_per_frame = substeps;
    r->contacts_per_grain = c1.grain_count ? 2.0 * (double)c1.contact_count / c1.grain_count : 0;
    r->grains = gr_world_get_grain_count(p->scene.w);
    r->points = p->scene.def.r_hr > 0 ? gr_world_get_render_point_count(p->scene.w) : 0;
    const gr_body bodies[] = {p->scene.squirrel, p->scene.bucket, p->scene.glass};
    for (int b = 0; b < 3; b++)
        if (bodies[b].id)
            r->body_particles = gr_body_get_particle_count(p->scene.w, bodies[b]);
    *ms_per_frame = 1e3 * t / frames;
    return 0;
}

static void release(prepared *p)
{
    sommer_destroy(&p->scene);
    tu_stream_free(&p->snap);
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
    /* both scenes are built first and their passes alternate, so that a busy spell of the
     * machine falls on both */
    prepared full, lr;
    double full_ms[99], lr_ms[99];
    const double r_hr = def.r_hr;
    if (prepare(&def, &full))
        return 1;
    def.r_hr = 0;
    if (prepare(&def, &lr))
        return 1;
    for (int k = 0; k < repeat; k++)
        if (timed_pass(&full, frames, &full_ms[k]) || timed_pass(&lr, frames, &lr_ms[k]))
            return 1;
    const double full_median = median(full_ms, repeat), lr_median = median(lr_ms, repeat); /* (sorts them) */
    if (repeat > 1) /* a shared machine's noise only adds time: the fastest run is the steadiest figure */
        printf("# %s: fastest of %d passes: LR %.2f ms per frame, with points %.2f (LR + HR)\n", scene, repeat,
               lr_ms[0], full_ms[0]);
    const double hr_ms = full_median - lr_median;
    printf("# %s: r_lr %.4g m, r_hr %.4g m, %u body particles, %d frames of 1/30 s timed (median of %d passes); scene "
           "built in %.0f ms (bodies, fill, the fill region's points), first frame %.0f ms; with points %.2f ms per "
           "frame; %.2f substeps per frame, %.1f grain contacts per grain\n",
           scene, def.r_lr, r_hr, full.res.body_particles, frames, repeat, full.res.create_ms, full.res.first_ms,
           full_median, lr.res.substeps_per_frame, lr.res.contacts_per_grain);
    printf("sommer scene=%s lr=%u hr=%u workers=%u lr_ms_per_frame=%.2f hr_ms_per_frame=%.2f\n", scene, full.res.grains,
           full.res.points, workers, lr_median, hr_ms > 0 ? hr_ms : 0.0);
    release(&full);
    release(&lr);
    return 0;
}
