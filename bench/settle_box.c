/* SPDX-License-Identifier: MIT */
/* Benchmark: scene settle-box of ../shared/bench/SCENES.md, the same scene LIGGGHTS runs from
 * ../shared/bench/liggghts/ (Hertz-Mindlin with history, e = 0.5, mu = 0.5, E = 5 MPa,
 * dt = 2e-5 s, six frictional walls, Z up). Prints one line per run:
 *   settle-box N=<n> phase=<pour|dense> workers=<w> particle_steps_per_s=<x>
 *   contacts_per_particle=<c> bytes_per_particle=<b> rss_bytes_per_particle=<r>
 * bytes_per_particle counts the library's own peak allocation (through its allocator);
 * rss_bytes_per_particle the whole process' peak resident memory, as the peer reports it.
 * This is a harness, not a test: it prints figures and checks nothing. */
#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64, exactly as gen_lattice.py */
static uint64_t sm_state;
static uint64_t sm_next(void)
{
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double sm_uniform(void) { return (double)(sm_next() >> 11) * (1.0 / 9007199254740992.0); }

typedef struct scene {
    uint32_t n;
    double lx, ly, lz;
    gr_grain_def *grains;
} scene;

static const double R = 1.0e-3, S = 2.2e-3, JIT = 0.05e-3, LZ = 0.06;

/* A jittered lattice of nx * ny * nz grains of radius r at spacing s (spheres: R and S;
 * tetrahedral clumps: twice both, so that their member spheres have radius R). */
static int make_lattice(scene *sc, int nx, int ny, int nz, double r, double s, gr_grain_shape shape)
{
    sc->n = (uint32_t)(nx * ny * nz);
    sc->lx = nx * s;
    sc->ly = ny * s;
    sc->lz = nz * s + 0.01 > LZ ? nz * s + 0.01 : LZ;
    sc->grains = (gr_grain_def *)malloc(sizeof(gr_grain_def) * sc->n);
    if (!sc->grains)
        return -1;
    sm_state = 12345;
    uint32_t k = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                gr_grain_def *g = &sc->grains[k++];
                gr_grain_def_init(g);
                g->shape = shape;
                g->radius = r;
                g->position.x = (x + 0.5) * s + (2.0 * sm_uniform() - 1.0) * JIT;
                g->position.y = (y + 0.5) * s + (2.0 * sm_uniform() - 1.0) * JIT;
                g->position.z = (z + 0.5) * s + (2.0 * sm_uniform() - 1.0) * JIT;
                if (shape != GR_GRAIN_SPHERE) { /* a different turn for each */
                    const double a = 6.283185307179586 * sm_uniform(), b = sm_uniform() - 0.5;
                    g->orientation = (gr_quat){sin(a) * b, cos(a) * b, 0.3, 1.0};
                }
            }
    return 0;
}

/* LAMMPS data file: "id type diameter density x y z ix iy iz", then "Velocities": id vx vy vz wx wy wz. */
static int read_data(scene *sc, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char line[512];
    uint32_t n = 0;
    double lo, hi;
    sc->lx = sc->ly = sc->lz = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, " atoms"))
            n = (uint32_t)strtoul(line, NULL, 10);
        else if (strstr(line, "xlo xhi") && sscanf(line, "%lf %lf", &lo, &hi) == 2)
            sc->lx = hi - lo;
        else if (strstr(line, "ylo yhi") && sscanf(line, "%lf %lf", &lo, &hi) == 2)
            sc->ly = hi - lo;
        else if (strstr(line, "zlo zhi") && sscanf(line, "%lf %lf", &lo, &hi) == 2)
            sc->lz = hi - lo;
        else if (!strncmp(line, "Atoms", 5))
            break;
    }
    if (n == 0) {
        fclose(f);
        return -1;
    }
    sc->n = n;
    sc->grains = (gr_grain_def *)calloc(n, sizeof(gr_grain_def));
    uint32_t *index = (uint32_t *)malloc(sizeof(uint32_t) * (n + 1)); /* id -> row */
    uint32_t rows = 0;
    while (rows < n && fgets(line, sizeof line, f)) {
        unsigned id, type;
        double d, rho, x, y, z;
        if (sscanf(line, "%u %u %lf %lf %lf %lf %lf", &id, &type, &d, &rho, &x, &y, &z) != 7)
            continue;
        gr_grain_def *g = &sc->grains[rows];
        gr_grain_def_init(g);
        g->radius = 0.5 * d;
        g->position = (gr_vec3){x, y, z};
        if (id >= 1 && id <= n)
            index[id] = rows;
        rows++;
    }
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Velocities", 10))
            break;
    while (fgets(line, sizeof line, f)) {
        unsigned id;
        double v[6];
        if (sscanf(line, "%u %lf %lf %lf %lf %lf %lf", &id, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 7)
            continue;
        if (id >= 1 && id <= n) {
            gr_grain_def *g = &sc->grains[index[id]];
            g->velocity = (gr_vec3){v[0], v[1], v[2]};
            g->angular_velocity = (gr_vec3){v[3], v[4], v[5]};
        }
    }
    fclose(f);
    free(index);
    return rows == n ? 0 : -1;
}

static void wall(gr_world *w, gr_material m, gr_vec3 p, gr_vec3 nrm)
{
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_PLANE;
    b.position = p;
    b.normal = nrm;
    b.material = m;
    gr_add_body(w, &b, NULL);
}

int main(int argc, char **argv)
{
    unsigned n = 10000, workers = 1;
    const char *phase = "pour", *data = NULL, *shape_name = "sphere";
    int steps = -1, frame = 100;
    double points = 0; /* render points' radius (gr_dem_def.hr_radius), 0: none */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--phase") && i + 1 < argc) phase = argv[++i];
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc) workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--data") && i + 1 < argc) data = argv[++i];
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frame") && i + 1 < argc) frame = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc) shape_name = argv[++i];
        else if (!strcmp(argv[i], "--points") && i + 1 < argc) points = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s --n 10000|100000 --phase pour|dense [--data FILE] [--workers W] [--steps S] "
                            "[--shape sphere|tetra] [--points R_H]\n", argv[0]);
            return 2;
        }
    }
    int dense = !strcmp(phase, "dense");
    const int tetra = !strcmp(shape_name, "tetra");
    if (tetra && dense) {
        fprintf(stderr, "--shape tetra runs the pour phase only\n");
        return 2;
    }
    if (steps < 0)
        steps = dense ? 2000 : 4000;
    scene sc;
    if (dense) {
        if (!data || read_data(&sc, data) != 0) {
            fprintf(stderr, "phase dense needs --data settled_N.data (gunzipped)\n");
            return 1;
        }
    } else if (tetra) {
        /* n spheres as n/4 tetrahedra of twice the radius (members of radius R) */
        if (make_lattice(&sc, n == 100000 ? 40 : 10, 25, n == 100000 ? 25 : 10, 2 * R, 2 * S, GR_GRAIN_TETRAHEDRON) != 0)
            return 1;
    } else if (make_lattice(&sc, n == 100000 ? 80 : 20, n == 100000 ? 50 : 20, 25, R, S, GR_GRAIN_SPHERE) != 0) {
        return 1;
    }

    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.normal_law = GR_NORMAL_HERTZ;
    dem.tangential_law = GR_TANGENTIAL_HISTORY;
    dem.skin = 0.4e-3; /* as the peers' "neighbor 0.0004 bin" */
    dem.hr_radius = points;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, 0, -9.81};
    def.substep = 2.0e-5;
    def.worker_count = workers;
    def.dem = &dem;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return 1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 2500;
    md.youngs_modulus = 5.0e6;
    md.poisson_ratio = 0.3;
    md.restitution = 0.5;
    md.friction = 0.5;
    gr_material mat;
    gr_add_material(w, &md, &mat);
    for (uint32_t i = 0; i < sc.n; i++)
        sc.grains[i].material = mat;
    wall(w, mat, (gr_vec3){0, 0, 0}, (gr_vec3){1, 0, 0});
    wall(w, mat, (gr_vec3){sc.lx, 0, 0}, (gr_vec3){-1, 0, 0});
    wall(w, mat, (gr_vec3){0, 0, 0}, (gr_vec3){0, 1, 0});
    wall(w, mat, (gr_vec3){0, sc.ly, 0}, (gr_vec3){0, -1, 0});
    wall(w, mat, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 1});
    wall(w, mat, (gr_vec3){0, 0, sc.lz}, (gr_vec3){0, 0, -1});
    if (gr_add_grains(w, sc.grains, sc.n, NULL) != GR_OK) {
        fprintf(stderr, "%s\n", gr_world_last_error(w));
        return 1;
    }
    free(sc.grains);
    const uint32_t grain_count = sc.n;

    /* the timed loop: frames of `frame` steps (dt = 2e-5 s each), as a game would call it */
    double t0 = now();
    for (int done = 0; done < steps; done += frame) {
        int k = steps - done < frame ? steps - done : frame;
        if (gr_step(w, 2.0e-5 * k) != GR_OK) {
            fprintf(stderr, "step failed: %s\n", gr_world_last_error(w));
            return 1;
        }
    }
    double wall_time = now() - t0;
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* particles = spheres (a tetrahedron has 4) */
    const uint32_t spheres = tetra ? 4 * grain_count : grain_count;
    printf("settle-box N=%u phase=%s workers=%u particle_steps_per_s=%.0f contacts_per_particle=%.2f "
           "bytes_per_particle=%.0f rss_bytes_per_particle=%.0f",
           spheres, dense ? "dense" : "pour", workers, (double)spheres * steps / wall_time,
           2.0 * (double)c.contact_count / spheres, (double)c.bytes_peak / spheres,
           (double)ru.ru_maxrss * 1024.0 / spheres);
    if (tetra)
        printf(" shape=tetra grains=%u grain_steps_per_s=%.0f", sc.n, (double)sc.n * steps / wall_time);
    if (points > 0)
        printf(" render_points=%u ms_per_frame=%.3f", gr_world_get_render_point_count(w),
               1e3 * wall_time / ((steps + frame - 1) / frame));
    printf("\n");
    fprintf(stderr, "  %d steps in %.3f s, %llu neighbour rebuilds, %llu substeps\n", steps, wall_time,
            (unsigned long long)c.neighbor_rebuilds, (unsigned long long)c.substep_count);
    gr_world_destroy(w);
    return 0;
}
