/* SPDX-License-Identifier: MIT */
/* continuum_materials: two materials of different friction in one continuum world (Narain,
 * Golas, Lin 2010, sec. 4.1 and Fig. 9): two equal columns, a smooth sand (mu 0.3) on the left
 * and a rough one (mu 1) on the right, released side by side on a rough floor. The solver maps
 * each particle's material friction to alpha = mu (docs/continuum.md). (With alpha = mu this
 * column's pile stops steepening near mu 1: mu 0.6 and 2 left feet only a cell apart.) Checks:
 * both piles are measured (slope fitted on the flank and atan(height / foot)), the rough one is
 * steeper by both, and spread less. */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/example_util.h"
#include "common/fidelity_scenes.h"

/* The grains of one material (by the side of x = 0 they started on: the piles stay apart). */
static void side(const fid_grains *all, int right, fid_grains *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < all->n; i++)
        n += (all->x[3 * i] > 0) == right;
    out->n = out->cap = n;
    out->x = malloc(sizeof(double) * 3 * (n ? n : 1));
    out->v = malloc(sizeof(double) * 3 * (n ? n : 1));
    out->w = NULL;
    out->m = malloc(sizeof(double) * (n ? n : 1));
    out->r = malloc(sizeof(double) * (n ? n : 1));
    if (!out->x || !out->v || !out->m || !out->r) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < all->n; i++)
        if ((all->x[3 * i] > 0) == right) {
            for (int c = 0; c < 3; c++)
                out->x[3 * k + c] = all->x[3 * i + c], out->v[3 * k + c] = all->v[3 * i + c];
            out->m[k] = all->m[i];
            out->r[k] = all->r[i];
            k++;
        }
}

int main(int argc, char **argv)
{
    ex_args args;
    ex_parse_args(argc, argv, &args);
    const double h = args.smoke ? 0.02 : 0.01, half = 3 * h, height = 12 * h, cx = 0.25;
    const double mu[2] = {0.3, 1.0};
    gr_world *w = ex_continuum_world(&args, h);
    gr_material mat[2];
    for (int k = 0; k < 2; k++) {
        gr_material_def md;
        gr_material_def_init(&md);
        md.friction = mu[k];
        md.continuum_friction = mu[k]; /* alpha = mu: the model's coefficient itself */
        ex_ok(w, gr_add_material(w, &md, &mat[k]), "gr_add_material");
    }
    gr_body_def fd;
    gr_body_def_init(&fd);
    fd.shape = GR_SHAPE_PLANE;
    fd.material = mat[1];
    ex_ok(w, gr_add_body(w, &fd, NULL), "gr_add_body (floor)");
    uint32_t n[2];
    for (int k = 0; k < 2; k++) { /* grains of h / 4 touching on a lattice, 8 a cell */
        gr_fill_def f;
        gr_fill_def_init(&f);
        f.material = mat[k];
        f.radius = 0.25 * h;
        f.spacing = 0.5 * h;
        const double x = k ? cx : -cx;
        f.min = (gr_vec3){x - half, 0, -half};
        f.max = (gr_vec3){x + half, height, half};
        ex_ok(w, gr_fill_box(w, &f, &n[k], NULL, 0), "gr_fill_box");
    }
    const double t0 = ex_now();
    for (int f = 0; f < (args.smoke ? 30 : 90); f++) /* 1.5 s */
        ex_ok(w, gr_step(w, 1.0 / 60), "gr_step");
    const double wall = ex_now() - t0;
    fid_grains all = {0};
    ex_ok(w, fid_grains_read(w, &all), "read");
    fid_heap heap[2];
    double vmean[2];
    for (int k = 0; k < 2; k++) {
        fid_grains g;
        side(&all, k, &g);
        fid_repose_angle(&g, k ? cx : -cx, 0, 0.5 * h, &heap[k]);
        vmean[k] = 0;
        for (uint32_t i = 0; i < g.n; i++)
            vmean[k] += sqrt(g.v[3 * i] * g.v[3 * i] + g.v[3 * i + 1] * g.v[3 * i + 1] + g.v[3 * i + 2] * g.v[3 * i + 2]) / g.n;
        if (g.n != n[k])
            printf("  %u of %u grains of material %d ended on the other side\n", n[k] - g.n, n[k], k);
        fid_grains_free(&g);
    }
    fid_grains_free(&all);
    printf("continuum_materials: 2 x %u particles, cell %.3g m, 1.5 s in %.1f s wall\n", n[0], h, wall);
    for (int k = 0; k < 2; k++)
        printf("  mu %.1f (alpha %.3f): foot %.3f m, height %.3f m, slope %.1f deg (flank fit over %d rings), "
               "atan(height / foot) %.1f deg, mean speed %.4f m/s\n", mu[k], mu[k],
               heap[k].foot, heap[k].height, heap[k].angle_fit, heap[k].rings, heap[k].angle_hr, vmean[k]);
    ex_check(heap[0].foot + 2 * h < cx && heap[1].foot + 2 * h < cx, "the piles stayed apart (feet %.3f, %.3f m)",
             heap[0].foot, heap[1].foot);
    /* (a pile too flat for the fit, NAN, counts as 0 deg) */
    const double smooth_fit = isnan(heap[0].angle_fit) ? 0 : heap[0].angle_fit;
    ex_check(heap[1].angle_fit > smooth_fit + 2, "the rough pile is steeper: %.1f vs %.1f deg (fitted flank)",
             heap[1].angle_fit, heap[0].angle_fit);
    ex_check(heap[1].angle_hr > heap[0].angle_hr + 2, "and by atan(height / foot): %.1f vs %.1f deg",
             heap[1].angle_hr, heap[0].angle_hr);
    ex_check(heap[1].foot < heap[0].foot - h, "the rough sand spread less: foot %.3f vs %.3f m", heap[1].foot,
             heap[0].foot);
    ex_check(vmean[0] < 0.02 && vmean[1] < 0.02, "both piles stopped: mean speeds %.4f, %.4f m/s", vmean[0], vmean[1]);
    const float lo[3] = {(float)(-cx - 0.18), 0.0f, -0.18f}, hi[3] = {(float)(cx + 0.18), 0.06f, 0.18f};
    const float view[3] = {0.0f, -0.5f, -1.0f};
    ex_check(ex_render_png(w, &args, "continuum_materials.png", lo, hi, view, NULL) == 0, "wrote continuum_materials.png");
    gr_world_destroy(w);
    return ex_failures() ? 1 : 0;
}
