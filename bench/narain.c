/* SPDX-License-Identifier: MIT */
/* Benchmark: the continuum solver (Narain, Golas, Lin 2010) on the seed's Table 1 scenes, built
 * through the public API (GR_SOLVER_CONTINUUM, a gr_continuum_def in gr_world_def.solver_def):
 *   hourglass  the seed's size: h = 1 cm, an hourglass mesh 25 x 48 x 25 cells (bulbs of 11 cm
 *              radius, a neck of 2 cm), 44,000 particles in a lattice filling the upper bulb
 *              (about 6.5 a cell), draining through the open neck;
 *   collapse   a 2:1 column (12 x 24 x 12 cells, 8 particles a cell: 27,648) released on a floor;
 *   paddles    the seed's size: a box 50 x 100 x 50 cells (open top), a bed of 199,000 particles
 *              21 cm deep stirred by two kinematic paddles (boxes) turning about the vertical at
 *              4 rad/s.
 * Frames of 1/30 s: `--warmup` untimed, then `--frames` timed. The solver's own timers
 * (cont_timing, a monotonic clock) split the time into pressure (density correction, pressure
 * solves and applies), friction (setup, solves, applies), particles (both transfers, advection,
 * shapes) and grid (sparse grid build, solid fractions, warm start). The state is read through
 * the internal headers: the public API has no solver statistics.
 * Prints: narain scene=<s> workers=<w> cells=<active cells> occupied=<cells with particles>
 *   particles=<n> render_points=<n> ms_per_frame=<x> (wall) cpu_ms_per_frame=<x> (the process's CPU
 *   time: all workers, spinning included) steps_per_frame=<k> pressure=<%> friction=<%>
 *   particles_share=<%> grid=<%> pressure_iters=<per step> friction_iters=<per step>
 *   bytes_per_particle=<b> bytes_per_cell=<b> (per occupied cell).
 * A harness, not a test. */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/common/hourglass_mesh.h"
#include "../lib/continuum/cont_internal.h"
#include "../lib/world/world.h"

static double clock_of(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now(void) { return clock_of(CLOCK_MONOTONIC); }
/* the process's CPU time (all its threads): on a loaded machine, with 1 worker, what the frame
 * costs uncontended */
static double cpu(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }

#define FAIL(w, what)                                                                                                  \
    do {                                                                                                               \
        fprintf(stderr, "%s: %s\n", what, (w) ? gr_world_last_error(w) : "");                                         \
        exit(1);                                                                                                       \
    } while (0)

/* A grain per lattice site; the grain's radius makes the lattice's solid fraction `solid`. */
typedef struct lattice {
    gr_grain_def *g;
    uint32_t n, cap;
    double radius;
    gr_material material;
} lattice;

static void put(lattice *l, double x, double y, double z)
{
    if (l->n == l->cap)
        return;
    gr_grain_def *d = &l->g[l->n++];
    gr_grain_def_init(d);
    d->radius = l->radius;
    d->material = l->material;
    d->position = (gr_vec3){x, y, z};
}

static double radius_for(double spacing, double solid) { return spacing * cbrt(solid * 3.0 / (4.0 * 3.14159265358979323846)); }

static void add_lattice(gr_world *w, lattice *l)
{
    if (gr_add_grains(w, l->g, l->n, NULL) != GR_OK)
        FAIL(w, "adding the particles");
    free(l->g);
}

/* The inner radius of the hourglass at height y (the profile of hourglass_mesh). */
static double hourglass_radius(const hourglass_shape *s, double y)
{
    const double y1 = s->bulb_h, y2 = y1 + s->cone_h, y3 = y2 + s->cone_h;
    if (y < y1 || y > y3)
        return s->bulb_r;
    const double t = y < y2 ? (y - y1) / s->cone_h : (y3 - y) / s->cone_h;
    return s->bulb_r + t * (s->neck_r - s->bulb_r);
}

static void scene_hourglass(gr_world *w, gr_material sand, double h)
{
    const hourglass_shape shape = {11 * h, 2 * h, 14 * h, 10 * h, h};
    gr_body glass;
    if (hourglass_add_body(w, &shape, sand, 0.5 * h, &glass) != GR_OK)
        FAIL(w, "the hourglass");
    gr_body_def fd; /* the floor under it */
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    fd.material = sand;
    gr_add_body(w, &fd, NULL);
    const uint32_t count = 44000;
    const double s = h / 1.87, margin = 0.6 * s; /* about 6.5 particles a cell */
    lattice l = {(gr_grain_def *)malloc(sizeof(gr_grain_def) * count), 0, count, radius_for(s, 0.55), sand};
    for (double y = hourglass_neck_y(&shape) + 0.5 * s; l.n < count; y += s) {
        const double r = hourglass_radius(&shape, y) - margin;
        for (double x = -r; x <= r; x += s)
            for (double z = -r; z <= r; z += s)
                if (x * x + z * z <= r * r)
                    put(&l, x, y, z);
    }
    add_lattice(w, &l);
}

static void add_block(gr_world *w, gr_material sand, gr_vec3 lo, gr_vec3 hi, double s, uint32_t cap)
{
    lattice l = {(gr_grain_def *)malloc(sizeof(gr_grain_def) * cap), 0, cap, radius_for(s, 0.55), sand};
    for (double y = lo.y + 0.5 * s; y < hi.y; y += s)
        for (double z = lo.z + 0.5 * s; z < hi.z; z += s)
            for (double x = lo.x + 0.5 * s; x < hi.x; x += s)
                put(&l, x, y, z);
    add_lattice(w, &l);
}

static void scene_collapse(gr_world *w, gr_material sand, double h)
{
    gr_body_def fd;
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    fd.material = sand;
    gr_add_body(w, &fd, NULL);
    const double a = 6 * h;
    add_block(w, sand, (gr_vec3){-a, 0, -a}, (gr_vec3){a, 4 * a, a}, 0.5 * h, 12 * 24 * 12 * 8);
}

static void scene_paddles(gr_world *w, gr_material sand, double h)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.material = sand;
    bd.half_extents = (gr_vec3){25 * h, 50 * h, 25 * h};
    bd.position = (gr_vec3){0, 50 * h, 0};
    bd.open_faces = GR_FACE_POS_Y; /* the top */
    if (gr_add_body(w, &bd, NULL) != GR_OK)
        FAIL(w, "the box");
    for (int k = 0; k < 2; k++) {
        gr_body_def pd;
        gr_body_def_init(&pd);
        pd.shape = GR_SHAPE_BOX;
        pd.motion = GR_MOTION_KINEMATIC;
        pd.material = sand;
        pd.half_extents = k ? (gr_vec3){1.5 * h, 5 * h, 18 * h} : (gr_vec3){18 * h, 5 * h, 1.5 * h};
        pd.position = (gr_vec3){0, 10 * h, 0};
        pd.angular_velocity = (gr_vec3){0, 4, 0};
        if (gr_add_body(w, &pd, NULL) != GR_OK)
            FAIL(w, "a paddle");
    }
    const uint32_t count = 199000;
    const double s = h / 1.6, a = 24 * h;
    add_block(w, sand, (gr_vec3){-a, 0, -a}, (gr_vec3){a, 1.0, a}, s, count);
}

static uint32_t occupied_cells(const gr_sparse_grid *g)
{
    uint32_t k = 0;
    for (uint32_t b = 0; b < g->block_count; b++)
        k += (uint32_t)__builtin_popcountll(g->block_points[b]);
    return k;
}

int main(int argc, char **argv)
{
    const char *scene = "hourglass";
    unsigned workers = 1;
    int frames = 5, warmup = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scene") && i + 1 < argc) scene = argv[++i];
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc) workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s --scene hourglass|collapse|paddles [--workers W] [--frames F] [--warmup F]\n",
                    argv[0]);
            return 2;
        }
    }
    const double h = 0.01;
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = h;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.worker_count = workers;
    def.solver_def = &cd;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        FAIL(NULL, "the world");
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 2500;
    md.friction = 0.6;
    md.continuum_friction = 0.6; /* the paper's scenes give alpha itself */
    gr_material sand;
    gr_add_material(w, &md, &sand);
    if (!strcmp(scene, "hourglass"))
        scene_hourglass(w, sand, h);
    else if (!strcmp(scene, "collapse"))
        scene_collapse(w, sand, h);
    else if (!strcmp(scene, "paddles"))
        scene_paddles(w, sand, h);
    else {
        fprintf(stderr, "unknown scene %s\n", scene);
        return 2;
    }
    const cont_state *st = (const cont_state *)w->systems[0].state;
    const double frame = 1.0 / 30;
    for (int f = 0; f < warmup; f++)
        if (gr_step(w, frame) != GR_OK)
            FAIL(w, "a step");
    const cont_timing t0 = st->timing;
    uint32_t cells = 0, occupied = 0, cells_max = 0;
    const double wall0 = now(), cpu0 = cpu();
    for (int f = 0; f < frames; f++) {
        if (gr_step(w, frame) != GR_OK)
            FAIL(w, "a step");
        /* (the last step's grid is st->prev after the step's swap) */
        cells += gr_sparse_grid_cells(&st->prev);
        occupied += occupied_cells(&st->prev);
        cells_max = cells_max > gr_sparse_grid_cells(&st->prev) ? cells_max : gr_sparse_grid_cells(&st->prev);
    }
    const double wall = now() - wall0, cpu_time = cpu() - cpu0;
    const cont_timing t1 = st->timing;
    const double total = t1.total - t0.total, steps = (double)(t1.steps - t0.steps);
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    /* bytes: the particles' arrays (at capacity, with both grids' per-point arrays), and the
     * rest of what the world holds per occupied cell of the last frame */
    const size_t per_particle = 3 * sizeof(gr_vec3) + 4 * sizeof(double) + 2 * sizeof(uint32_t) + sizeof(cont_sym3) +
                                9 * sizeof(double) + 2 * sizeof(uint32_t) + sizeof(uint32_t);
    const double particle_bytes = (double)per_particle * st->cap;
    const uint32_t occ_last = occupied_cells(&st->prev);
    printf("narain scene=%s workers=%u cells=%u occupied=%u particles=%u render_points=%u ms_per_frame=%.1f "
           "cpu_ms_per_frame=%.1f steps_per_frame=%.1f pressure=%.0f%% friction=%.0f%% particles_share=%.0f%% grid=%.0f%% "
           "pressure_iters=%.0f friction_iters=%.0f bytes_per_particle=%.0f bytes_per_cell=%.0f\n",
           scene, workers, cells / frames, occupied / frames, st->n, gr_world_get_render_point_count(w),
           1e3 * wall / frames, 1e3 * cpu_time / frames, steps / frames, 100 * (t1.pressure - t0.pressure) / total,
           100 * (t1.friction - t0.friction) / total, 100 * (t1.particles - t0.particles) / total,
           100 * (t1.grid - t0.grid) / total, (double)(t1.pressure_iterations - t0.pressure_iterations) / steps,
           (double)(t1.friction_iterations - t0.friction_iterations) / steps, particle_bytes / st->n,
           ((double)c.bytes_in_use - particle_bytes) / occ_last);
    printf("  max cells %u, density iterations %.0f per step, solver time %.0f%% of the wall time, peak %.1f MB\n",
           cells_max, (double)(t1.density_iterations - t0.density_iterations) / steps, 100 * total / wall,
           c.bytes_peak / 1e6);
    gr_world_destroy(w);
    return 0;
}
