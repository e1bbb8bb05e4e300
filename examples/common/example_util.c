/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "example_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "splat.h"

static int failures;
static int smoke; /* --smoke: checks are printed, not counted */

void ex_parse_args(int argc, char **argv, ex_args *a)
{
    memset(a, 0, sizeof *a);
    a->out_dir = ".";
    a->workers = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            a->out_dir = argv[++i];
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
            a->workers = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--grains") && i + 1 < argc)
            a->grains = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--ply"))
            a->ply = 1;
        else if (!strcmp(argv[i], "--quiet"))
            a->quiet = 1;
        else if (!strcmp(argv[i], "--smoke"))
            a->smoke = smoke = 1;
        else {
            fprintf(stderr, "usage: %s [--out DIR] [--workers N] [--grains N] [--ply] [--quiet] [--smoke]\n", argv[0]);
            exit(2);
        }
    }
}

double ex_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ex_log_stderr(gr_log_level level, const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "granular %s: %s\n", level == GR_LOG_ERROR ? "error" : level == GR_LOG_WARNING ? "warning" : "info",
            message);
}

int ex_check(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", cond ? "PASS" : smoke ? "UNJUDGED" : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond && !smoke)
        failures++;
    return cond;
}

int ex_failures(void) { return failures; }

void ex_ok(gr_world *w, gr_status s, const char *what)
{
    if (s == GR_OK)
        return;
    fprintf(stderr, "%s failed: %s (%s)\n", what, gr_status_string(s), w ? gr_world_last_error(w) : "");
    exit(1);
}

gr_world *ex_sand_world(const ex_args *args, gr_material *sand)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = args->workers;
    def.logger.func = ex_log_stderr;
    gr_world *w;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    gr_material_def md;
    gr_material_def_init(&md);
    gr_material_def_set_preset(&md, GR_MATERIAL_PRESET_DRY_SAND);
    ex_ok(w, gr_add_material(w, &md, sand), "gr_add_material");
    return w;
}

gr_world *ex_continuum_world(const ex_args *args, double cell_size)
{
    gr_continuum_def cd;
    gr_continuum_def_init(&cd);
    cd.cell_size = cell_size;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_CONTINUUM);
    def.solver_def = &cd; /* (read by gr_world_create only) */
    def.worker_count = args->workers;
    def.logger.func = ex_log_stderr;
    gr_world *w = NULL;
    ex_ok(NULL, gr_world_create(&def, &w), "gr_world_create");
    return w;
}

static void join(char *buf, size_t n, const char *dir, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

int ex_body_points(const gr_world *w, gr_body body, const unsigned char rgb[3], ex_points *out)
{
    out->count = gr_body_get_particle_count(w, body);
    out->xyzr = (float *)malloc(sizeof(float) * 4 * (out->count ? out->count : 1));
    memcpy(out->rgb, rgb, 3);
    if (!out->xyzr)
        return -1;
    return gr_read_body_particles(w, body, 0, out->count, out->xyzr, 0) == GR_OK ? 0 : -1;
}

void ex_points_free(ex_points *p)
{
    free(p->xyzr);
    p->xyzr = NULL;
    p->count = 0;
}

int ex_render_png(const gr_world *w, const ex_args *args, const char *name, const float lo[3], const float hi[3],
                  const float view_dir[3], const float up[3])
{
    return ex_render_png_with(w, args, name, lo, hi, view_dir, up, NULL, 0);
}

int ex_render_png_with(const gr_world *w, const ex_args *args, const char *name, const float lo[3], const float hi[3],
                       const float view_dir[3], const float up[3], const ex_points *extra, int extra_count)
{
    uint32_t ngrains = gr_world_get_render_point_count(w), n = ngrains;
    for (int e = 0; e < extra_count; e++)
        n += extra[e].count;
    float *pts = (float *)malloc(sizeof(float) * 4 * (n ? n : 1));
    unsigned char *rgb = (unsigned char *)malloc(3 * (size_t)(n ? n : 1));
    if (!pts || !rgb || gr_read_render_points(w, 0, ngrains, pts, 0) != GR_OK) {
        free(pts);
        free(rgb);
        return -1;
    }
    /* sand colours by height within the box: darker, redder low; pale high */
    gr_world_def def;
    def.size = sizeof def;
    gr_world_get_def(w, &def, NULL);
    float g[3] = {(float)def.gravity.x, (float)def.gravity.y, (float)def.gravity.z};
    float gl = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    float upv[3] = {0, 1, 0};
    if (gl > 0)
        for (int k = 0; k < 3; k++)
            upv[k] = -g[k] / gl;
    float hmin = 1e30f, hmax = -1e30f;
    for (uint32_t i = 0; i < ngrains; i++) {
        float h = pts[4 * i] * upv[0] + pts[4 * i + 1] * upv[1] + pts[4 * i + 2] * upv[2];
        hmin = h < hmin ? h : hmin;
        hmax = h > hmax ? h : hmax;
    }
    uint32_t at = ngrains;
    for (int e = 0; e < extra_count; e++) {
        memcpy(pts + 4 * (size_t)at, extra[e].xyzr, sizeof(float) * 4 * extra[e].count);
        for (uint32_t i = at; i < at + extra[e].count; i++) {
            const float shade = 0.9f + 0.02f * (float)((i * 2654435761u) >> 29);
            for (int k = 0; k < 3; k++)
                rgb[3 * i + k] = (unsigned char)fminf(255.f, shade * extra[e].rgb[k]);
        }
        at += extra[e].count;
    }
    for (uint32_t i = 0; i < ngrains; i++) {
        float h = pts[4 * i] * upv[0] + pts[4 * i + 1] * upv[1] + pts[4 * i + 2] * upv[2];
        float t = hmax > hmin ? (h - hmin) / (hmax - hmin) : 0.5f;
        unsigned hash = (i * 2654435761u) >> 27; /* grain-to-grain variation */
        float v = 0.85f + 0.03f * (float)(hash % 6);
        rgb[3 * i + 0] = (unsigned char)fminf(255.f, v * (170.f + 70.f * t));
        rgb[3 * i + 1] = (unsigned char)fminf(255.f, v * (125.f + 80.f * t));
        rgb[3 * i + 2] = (unsigned char)fminf(255.f, v * (70.f + 70.f * t));
    }
    splat_image img;
    const unsigned char bg[3] = {32, 36, 44};
    if (splat_init(&img, 1024, 768, bg) != 0) {
        free(pts);
        free(rgb);
        return -1;
    }
    splat_camera cam;
    memset(&cam, 0, sizeof cam); /* perspective, default field of view */
    float default_dir[3] = {-0.55f * upv[1] - 0.6f * upv[2], -0.55f, -0.6f};
    if (upv[2] > 0.9f) { /* Z-up: look down from +x -y */
        default_dir[0] = -0.55f;
        default_dir[1] = 0.6f;
        default_dir[2] = -0.55f;
    }
    splat_camera_frame(&cam, lo, hi, view_dir ? view_dir : default_dir, up ? up : upv);
    splat_spheres(&img, &cam, pts, 0, n, rgb, 0, NULL);
    const unsigned char edge[3] = {150, 170, 200};
    splat_box(&img, &cam, lo, hi, edge);
    char path[1024];
    join(path, sizeof path, args->out_dir, name);
    int rc = splat_save_png(&img, path);
    if (rc == 0 && !args->quiet)
        printf("wrote %s (%u grain spheres, %u body spheres)\n", path, ngrains, n - ngrains);
    splat_free(&img);
    free(pts);
    free(rgb);
    return rc;
}

int ex_write_ply(const gr_world *w, const ex_args *args, const char *name)
{
    uint32_t n = gr_world_get_render_point_count(w);
    float *pts = (float *)malloc(sizeof(float) * 4 * (n ? n : 1));
    if (!pts || gr_read_render_points(w, 0, n, pts, 0) != GR_OK) {
        free(pts);
        return -1;
    }
    char path[1024];
    join(path, sizeof path, args->out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(pts);
        return -1;
    }
    fprintf(f, "ply\nformat ascii 1.0\nelement vertex %u\nproperty float x\nproperty float y\nproperty float z\n"
               "property float radius\nend_header\n", n);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%g %g %g %g\n", pts[4 * i], pts[4 * i + 1], pts[4 * i + 2], pts[4 * i + 3]);
    fclose(f);
    free(pts);
    return 0;
}

void ex_grain_stats(const gr_world *w, ex_stats *s)
{
    uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *v = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *m = (double *)malloc(sizeof(double) * (n ? n : 1));
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 3; k++) {
        s->min[k] = n ? 1e300 : 0;
        s->max[k] = n ? -1e300 : 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        double v2 = 0;
        for (int k = 0; k < 3; k++) {
            double p = x[3 * i + k];
            s->min[k] = p < s->min[k] ? p : s->min[k];
            s->max[k] = p > s->max[k] ? p : s->max[k];
            s->mean[k] += p / n;
            v2 += v[3 * i + k] * v[3 * i + k];
        }
        s->kinetic_energy += 0.5 * m[i] * v2;
        for (int k = 0; k < 3; k++)
            s->momentum[k] += m[i] * v[3 * i + k];
        if (sqrt(v2) > s->max_speed)
            s->max_speed = sqrt(v2);
    }
    free(x);
    free(v);
    free(m);
}

double *ex_grain_positions(const gr_world *w)
{
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    if (x)
        gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    return x;
}

double ex_max_displacement(const double *x0, const double *x1, uint32_t n)
{
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double dx = x1[3 * i] - x0[3 * i], dy = x1[3 * i + 1] - x0[3 * i + 1], dz = x1[3 * i + 2] - x0[3 * i + 2];
        const double d = sqrt(dx * dx + dy * dy + dz * dz);
        worst = d > worst ? d : worst;
    }
    return worst;
}
