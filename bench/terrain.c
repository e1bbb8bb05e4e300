/* SPDX-License-Identifier: MIT */
/* bench/run terrain --scene dig [--workers W] [--columns N] [--seconds S] [--compare-columns NX]
 * Issue 38's benchmark: a blade digs a trench through sand held by the terrain (docs/terrain.md)
 * and through the same sand as a bed of DEM grains only, side by side in one run.
 *
 * Three runs:
 *   1. the terrain alone at full size: N x N columns of 4 cm (default 1024: 41 m square), a
 *      blade 1 m wide, 5 cm deep, at 0.5 m/s for S seconds (default 10), heightfield only
 *      (hybrid 0): the terrain's own cost per frame (press, displacement, erosion);
 *   2. the same terrain hybrid with a DEM system: what the blade lifts becomes DEM grains;
 *      the whole scene's cost per frame (ms_per_frame) and the grains alive (active_grains);
 *   3. the comparison at a size a particles-only bed can run: a bed of NX x NX/2 columns
 *      (default 40: 1.6 x 0.8 m) as DEM grains of 1.5 cm settled in a box, dug by a blade
 *      40 cm wide, 5 cm deep at 0.5 m/s for 2 s, lifted, settled 1 s; and the same scene as
 *      a hybrid terrain of that bed's measured height and packing. The trench's depth, the
 *      rim's height and the blade's mean horizontal force of the two give the errors.
 * The particles-only bed at full size would hold about N^2 / NX^2 x 2 times the small bed's
 * grains: its cost per frame is scaled linearly from the small bed (a DEM's work per grain
 * does not depend on the bed's extent), and speedup = that / ms_per_frame.
 *
 * --part terrain runs the first alone and prints its figure; --part compare runs the third with
 * the first two at a token size. --tile: the host tiles' size (default 64).
 * Prints one line:
 *   terrain scene=dig columns=N workers=W ms_per_frame=X terrain_ms_per_frame=T active_grains=G
 *     particles_only_ms_per_frame=P speedup=S trench_depth_error=E1 rim_height_error=E2
 *     blade_force_error=E3 compare_columns=NXxNZ bed_grains=B packing=phi
 *     compare_ms_per_frame=X_small compare_particles_ms_per_frame=P_small compare_speedup=
 *     trench_mm=.../... rim_mm=.../... force_n=.../... (terrain/particles)
 */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void ok(gr_world *w, gr_status s, const char *what)
{
    if (s != GR_OK) {
        fprintf(stderr, "terrain bench: %s: %s (%s)\n", what, gr_status_string(s), w ? gr_world_last_error(w) : "");
        exit(1);
    }
}

typedef struct opts {
    unsigned workers, columns, compare, tile;
    double seconds;
} opts;
static unsigned tile_size = 64;

static const double D = 0.04, R = 0.015, DT = 1.0 / 60.0;

static gr_world *dem_world(unsigned workers, gr_material *sand)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    gr_world *w;
    ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    gr_material_def md;
    gr_material_def_init(&md);
    gr_material_def_set_preset(&md, GR_MATERIAL_PRESET_DRY_SAND);
    ok(w, gr_add_material(w, &md, sand), "gr_add_material");
    return w;
}

static uint32_t add_terrain(gr_world *w, gr_material sand, uint32_t nx, uint32_t nz, double height, double packing,
                            int hybrid)
{
    gr_terrain_def td;
    gr_terrain_def_init(&td);
    td.columns_x = nx, td.columns_z = nz;
    td.spacing = D;
    td.height = height;
    td.tile_size = tile_size;
    td.material = sand;
    td.hybrid = (uint32_t)hybrid;
    td.packing = packing;
    td.grain_radius = R;
    uint32_t sys;
    ok(w, gr_world_add_system(w, GR_SOLVER_TERRAIN, &td, &sys), "gr_world_add_system (terrain)");
    return sys;
}

static gr_body add_blade(gr_world *w, gr_material sand, double x, double top, double depth, double width, double zc,
                         double speed)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.material = sand;
    bd.half_extents = (gr_vec3){0.015, 0.15, 0.5 * width};
    bd.position = (gr_vec3){x, top + 0.15 - depth, zc};
    bd.linear_velocity = (gr_vec3){speed, 0, 0};
    gr_body b;
    ok(w, gr_add_body(w, &bd, &b), "gr_add_body (blade)");
    return b;
}

/* The sand's height over cells of the columns' spacing, as the terrain counts it: the
 * columns' height (if any) plus each grain's volume / (packing x cell area) in the cell of its
 * centre [m above the base]. Grain tops would read a rough bed (1.5 grain diameters between
 * the top of a grain and the gap beside it); the volume is what both models keep. */
static double *surface(gr_world *w, int terrain, uint32_t sys, uint32_t nx, uint32_t nz, double packing)
{
    double *s = (double *)calloc((size_t)nx * nz, sizeof(double));
    if (terrain) {
        float *h = (float *)malloc(sizeof(float) * nx * nz);
        gr_terrain_read_heights(w, sys, 0, 0, nx, nz, h);
        for (size_t k = 0; k < (size_t)nx * nz; k++)
            s[k] = h[k];
        free(h);
    }
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    const double dh = 4.0 / 3.0 * 3.14159265358979323846 * R * R * R / (packing * D * D);
    for (uint32_t g = 0; g < n; g++) {
        const long i = lround(x[3 * g] / D), k = lround(x[3 * g + 2] / D);
        if (i >= 0 && k >= 0 && i < (long)nx && k < (long)nz)
            s[k * nx + i] += dh;
    }
    free(x);
    return s;
}

typedef struct dig_result {
    double ms_per_frame, trench, rim, force, grains;
} dig_result;

/* The compare scene's dig and its measures (terrain: hybrid terrain; else the bed in w). */
static void compare_dig(gr_world *w, int terrain, uint32_t sys, uint32_t nx, uint32_t nz, double H, double packing,
                        gr_material sand, dig_result *out)
{
    const double zc = 0.5 * (nz - 1) * D, width = 0.4, depth = 0.05, x0 = 0.25, x1 = (nx - 1) * D - 0.3;
    gr_body blade = add_blade(w, sand, x0, H, depth, width, zc, 0.5);
    double force = 0, grains = 0;
    int nf = 0, frames = 0;
    const double t0 = now();
    for (;; frames++) {
        gr_vec3 at, f;
        gr_body_get_pose(w, blade, &at, NULL);
        if (at.x >= x1)
            break;
        ok(w, gr_step(w, DT), "gr_step (dig)");
        gr_body_get_force(w, blade, &f, NULL);
        if (at.x > x0 + 0.2) /* steady digging */
            force += f.x, nf++;
        grains += gr_world_get_grain_count(w);
    }
    ok(w, gr_body_set_velocity(w, blade, (gr_vec3){0, 1, 0}, (gr_vec3){0, 0, 0}), "gr_body_set_velocity");
    for (int f = 0; f < 30; f++, frames++)
        ok(w, gr_step(w, DT), "gr_step (lift)");
    ok(w, gr_remove_body(w, blade), "gr_remove_body");
    for (int f = 0; f < 60; f++, frames++)
        ok(w, gr_step(w, DT), "gr_step (settle)");
    out->ms_per_frame = 1e3 * (now() - t0) / frames;
    out->force = nf ? -force / nf : 0;
    out->grains = grains / frames;
    double *s = surface(w, terrain, sys, nx, nz, packing);
    double trench = 0, rim = 0;
    int n = 0;
    for (uint32_t i = (uint32_t)((x0 + 0.2) / D); i <= (uint32_t)((x1 - 0.15) / D); i++, n++) {
        double t = 0, r = 0;
        int nt = 0;
        for (uint32_t k = 0; k < nz; k++) {
            const double dz = fabs(k * D - zc);
            if (dz < 0.25 * width)
                t += H - s[k * nx + i], nt++;
            else if (dz > 0.5 * width && dz < 0.5 * width + 0.2)
                r = s[k * nx + i] - H > r ? s[k * nx + i] - H : r;
        }
        trench += nt ? t / nt : 0, rim += r;
    }
    free(s);
    out->trench = n ? trench / n : 0;
    out->rim = n ? rim / n : 0;
}

int main(int argc, char **argv)
{
    opts o = {1, 1024, 40, 64, 10.0};
    const char *scene = "dig", *part = "all";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scene") && i + 1 < argc)
            scene = argv[++i];
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
            o.workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--columns") && i + 1 < argc)
            o.columns = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--compare-columns") && i + 1 < argc)
            o.compare = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--part") && i + 1 < argc)
            part = argv[++i];
        else if (!strcmp(argv[i], "--tile") && i + 1 < argc)
            o.tile = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            o.seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: bench/run terrain --scene dig [--workers W] [--columns N] [--seconds S] "
                            "[--compare-columns NX]\n");
            return 2;
        }
    }
    if (strcmp(scene, "dig") != 0 || o.columns < 64 || o.compare < 24) {
        fprintf(stderr, "terrain bench: scene dig, --columns >= 64, --compare-columns >= 24\n");
        return 2;
    }
    const int frames = (int)lround(o.seconds / DT);
    tile_size = o.tile;
    if (!strcmp(part, "compare")) /* runs 1 and 2 at a token size */
        o.columns = 64, o.seconds = 0.1;
    if (!strcmp(part, "terrain")) {
        gr_material sand;
        gr_world *w = dem_world(o.workers, &sand);
        const double Hf = 0.5, zf = 0.5 * (o.columns - 1) * D;
        add_terrain(w, sand, o.columns, o.columns, Hf, 0.6, 0);
        add_blade(w, sand, 2.0, Hf, 0.05, 1.0, zf, 0.5);
        double t0 = now();
        ok(w, gr_step(w, DT), "gr_step");
        fprintf(stderr, "first frame %.1f ms\n", 1e3 * (now() - t0));
        t0 = now();
        for (int f = 0; f < frames; f++)
            ok(w, gr_step(w, DT), "gr_step (terrain alone)");
        printf("terrain alone: %.2f ms per frame (tile %u)\n", 1e3 * (now() - t0) / frames, o.tile);
        gr_world_destroy(w);
        return 0;
    }

    /* 1. the terrain alone at full size */
    gr_material sand;
    gr_world *w = dem_world(o.workers, &sand);
    const double Hf = 0.5, zf = 0.5 * (o.columns - 1) * D;
    uint32_t sys = add_terrain(w, sand, o.columns, o.columns, Hf, 0.6, 0);
    add_blade(w, sand, 2.0, Hf, 0.05, 1.0, zf, 0.5);
    ok(w, gr_step(w, DT), "gr_step"); /* the first erosion pass wakes every tile once */
    double t0 = now();
    for (int f = 0; f < frames; f++)
        ok(w, gr_step(w, DT), "gr_step (terrain alone)");
    fprintf(stderr, "terrain alone: %.2f ms per frame\n", 1e3 * (now() - t0) / frames);
    const double terrain_ms = 1e3 * (now() - t0) / frames;
    gr_world_destroy(w);

    /* 2. the same, hybrid with DEM grains */
    w = dem_world(o.workers, &sand);
    sys = add_terrain(w, sand, o.columns, o.columns, Hf, 0.6, 1);
    add_blade(w, sand, 2.0, Hf, 0.05, 1.0, zf, 0.5);
    ok(w, gr_step(w, DT), "gr_step");
    double grains = 0;
    t0 = now();
    for (int f = 0; f < frames; f++) {
        ok(w, gr_step(w, DT), "gr_step (hybrid)");
        grains += gr_world_get_grain_count(w);
    }
    const double hybrid_ms = 1e3 * (now() - t0) / frames;
    fprintf(stderr, "hybrid: %.2f ms per frame\n", hybrid_ms);
    grains /= frames;
    gr_world_destroy(w);

    /* 3. the comparison: a particles-only bed, then the terrain of its height and packing */
    const uint32_t nx = o.compare, nz = o.compare / 2;
    const double Hb = 0.12;
    w = dem_world(o.workers, &sand);
    gr_body_def box;
    gr_body_def_init(&box);
    box.shape = GR_SHAPE_CONTAINER;
    box.open_faces = GR_FACE_POS_Y;
    box.material = sand;
    box.half_extents = (gr_vec3){0.5 * nx * D, 0.5, 0.5 * nz * D};
    box.position = (gr_vec3){0.5 * (nx - 1) * D, 0.5, 0.5 * (nz - 1) * D};
    ok(w, gr_add_body(w, &box, NULL), "gr_add_body (box)");
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.pattern = GR_FILL_POISSON;
    fd.material = sand;
    fd.radius = R;
    fd.min = (gr_vec3){-0.5 * D, 0, -0.5 * D};
    fd.max = (gr_vec3){(nx - 0.5) * D, 1.35 * Hb, (nz - 0.5) * D};
    uint32_t bed = 0;
    ok(w, gr_fill_box(w, &fd, &bed, NULL, 0), "gr_fill_box");
    for (int f = 0; f < 90; f++)
        ok(w, gr_step(w, DT), "gr_step (settling the bed)");
    /* the bed's packing: its grains over the volume below its top (the mean height of the
     * top grains' tops away from the walls, less half a grain: the bumps) */
    double top = 0;
    int ntop = 0;
    {
        const uint32_t ng = gr_world_get_grain_count(w);
        double *x = (double *)malloc(sizeof(double) * 3 * (ng ? ng : 1));
        gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, ng, x, 0);
        double *tops = (double *)calloc((size_t)nx * nz, sizeof(double));
        for (uint32_t g = 0; g < ng; g++) {
            const long i = lround(x[3 * g] / D), k = lround(x[3 * g + 2] / D);
            if (i >= 0 && k >= 0 && i < (long)nx && k < (long)nz && x[3 * g + 1] + R > tops[k * nx + i])
                tops[k * nx + i] = x[3 * g + 1] + R;
        }
        for (uint32_t k = 2; k + 2 < nz; k++)
            for (uint32_t i = 2; i + 2 < nx; i++)
                top += tops[k * nx + i], ntop++;
        free(tops);
        free(x);
    }
    const double Htop = top / ntop - 0.5 * R;
    const double packing = bed * 4.0 / 3.0 * 3.14159265358979323846 * R * R * R / (nx * D * nz * D * Htop);
    const double H = Htop; /* = the bed's volume / (packing x area): the two surfaces agree */
    dig_result pr;
    fprintf(stderr, "bed of %u grains settled\n", bed);
    compare_dig(w, 0, 0, nx, nz, H, packing, sand, &pr);
    fprintf(stderr, "particles only: %.2f ms per frame\n", pr.ms_per_frame);
    gr_world_destroy(w);
    w = dem_world(o.workers, &sand);
    box.material = sand;
    ok(w, gr_add_body(w, &box, NULL), "gr_add_body (box)");
    sys = add_terrain(w, sand, nx, nz, H, packing, 1);
    dig_result tr;
    compare_dig(w, 1, sys, nx, nz, H, packing, sand, &tr);
    gr_world_destroy(w);

    /* the particles-only bed at full size, scaled by its grains */
    const double full_bed = (double)o.columns * o.columns * D * D * H * packing /
                            (4.0 / 3.0 * 3.14159265358979323846 * R * R * R); /* as deep as the small bed */
    const double scale = full_bed / bed;
    const double particles_ms = pr.ms_per_frame * scale;
    printf("terrain scene=dig columns=%u workers=%u ms_per_frame=%.2f terrain_ms_per_frame=%.2f active_grains=%.0f "
           "particles_only_ms_per_frame=%.0f speedup=%.0f trench_depth_error=%.3f rim_height_error=%.3f "
           "blade_force_error=%.3f compare_columns=%ux%u bed_grains=%u packing=%.3f compare_ms_per_frame=%.2f "
           "compare_particles_ms_per_frame=%.2f compare_speedup=%.1f full_bed_grains=%.0f trench_mm=%.1f/%.1f "
           "rim_mm=%.1f/%.1f force_n=%.1f/%.1f compare_active_grains=%.0f\n",
           o.columns, o.workers, hybrid_ms, terrain_ms, grains, particles_ms, particles_ms / hybrid_ms,
           tr.trench / pr.trench - 1, tr.rim / pr.rim - 1, tr.force / pr.force - 1, nx, nz, bed, packing,
           tr.ms_per_frame, pr.ms_per_frame, pr.ms_per_frame / tr.ms_per_frame, full_bed, 1e3 * tr.trench,
           1e3 * pr.trench, 1e3 * tr.rim, 1e3 * pr.rim, tr.force, pr.force, tr.grains);
    return 0;
}
