/* SPDX-License-Identifier: MIT */
/* The PBD solver's energy when its substep changes (issue 37, item 4, "PBD energy never
 * rises"): contacts without restitution and with friction only take energy out, whatever the
 * substep does. Energies in units of sum m g d (lifting every grain by one diameter). */
#include <granular/granular.h>
#include <math.h>
#include <stdio.h>

#include "fidelity_scenes.h"
#include "harness.h"

/* The grains inside the box (z > -0.1 m; the thrown grain flies outside it). */
static void keep_boxed(fid_grains *g)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (!(g->x[3 * i + 2] > -0.1))
            continue;
        for (int c = 0; c < 3; c++) {
            g->x[3 * m + c] = g->x[3 * i + c];
            g->v[3 * m + c] = g->v[3 * i + c];
            g->w[3 * m + c] = g->w[3 * i + c];
        }
        g->m[m] = g->m[i];
        g->r[m] = g->r[i];
        m++;
    }
    g->n = m;
}

/* A column 40 d tall (Poisson fill, 1101 grains of 2 cm, the glass-bead preset) collapsing in
 * a 10 x 4 d box, and one grain thrown down at 6 m/s outside the box: while it falls, the CFL
 * rule keeps the substep short for everyone (down to 1/1440 s), and when it leaves the world
 * (t = 0.25 s) the substep is back at 1/120 s. The warm start used to scale the contacts'
 * multipliers by (h / h_last)^2, up to 144, collisions too: twelve times the impulse they had
 * carried (now a collision's record gets at most h / h_last). The 64
 * sweeps could not take that back in the column: it gained 0.32 of sum m g d in that frame and
 * threw 5 grains out of the world. Now the three frames from the removal gain nothing (the
 * tolerance 1e-3 of sum m g d: about one grain in a thousand lifted by a diameter; round-off
 * is far below it) and no grain leaves. Other frames of the collapse may still gain up to
 * 2 % (here 0.95 %, at 0.35 s): where the sweeps stop unconverged (PBD_MAX_SWEEPS) in a
 * collapsing column, what they leave becomes velocity (issue 37, not fixed yet). */
static void test_pbd_energy_substep_growth(void)
{
    const double r = 0.01, d = 2 * r, W = 10 * d, D = 4 * d, H = 40 * d, wall = 60 * d;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    def.gravity = (gr_vec3){0, -9.81, 0};
    def.worker_count = 1;
    def.bounds_min = (gr_vec3){-2, -2, -2};
    def.bounds_max = (gr_vec3){2 + W, 2 * wall + 5, 2 + D};
    gr_world *w = NULL;
    CHECK(gr_world_create(&def, &w) == GR_OK);
    gr_material_def md;
    gr_material_def_init(&md);
    CHECK_OK(w, gr_material_def_set_preset(&md, GR_MATERIAL_PRESET_GLASS_BEADS));
    gr_material mat;
    CHECK_OK(w, gr_add_material(w, &md, &mat));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.material = mat;
    bd.position = (gr_vec3){W / 2, wall / 2, D / 2};
    bd.half_extents = (gr_vec3){W / 2, wall / 2, D / 2};
    bd.open_faces = GR_FACE_POS_Y;
    CHECK_OK(w, gr_add_body(w, &bd, NULL));
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.material = mat;
    fd.radius = r;
    fd.min = (gr_vec3){0, 0, 0};
    fd.max = (gr_vec3){W, H, D};
    fd.seed = 12345;
    fd.pattern = GR_FILL_POISSON;
    uint32_t added = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &added, NULL, 0));
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = mat;
    gd.radius = r;
    gd.position = (gr_vec3){W / 2, -0.3, -0.5};
    gd.velocity = (gr_vec3){0, -6, 0};
    CHECK_OK(w, gr_add_grains(w, &gd, 1, NULL));
    const gr_vec3 g = {0, -9.81, 0};
    fid_grains gs = {0};
    CHECK(fid_grains_read(w, &gs) == GR_OK);
    const uint32_t n_all = gs.n;
    keep_boxed(&gs);
    const double scale = fid_energy_scale(&gs, g);
    double e_last = fid_energy_of(&gs, g).total, rise_max = -INFINITY, rise_t = 0, rise_before = -INFINITY;
    uint32_t lost = 0; /* column grains that left the world */
    double gone_t = -1, rise_after = -INFINITY; /* the largest in the 3 frames from the removal */
    for (int f = 1; f <= 72; f++) {
        const gr_status s = gr_step(w, 1.0 / 60);
        CHECK(s == GR_OK);
        CHECK(fid_grains_read(w, &gs) == GR_OK);
        if (gs.n < n_all && gone_t < 0)
            gone_t = gr_world_get_time(w);
        keep_boxed(&gs);
        if (gs.n < added && added - gs.n > lost)
            lost = added - gs.n;
        const double e = fid_energy_of(&gs, g).total, rise = (e - e_last) / scale;
        if (gone_t < 0 && rise > rise_before)
            rise_before = rise;
        if (gone_t > 0 && gr_world_get_time(w) < gone_t + 0.05 && rise > rise_after)
            rise_after = rise;
        if (rise > rise_max) {
            rise_max = rise;
            rise_t = gr_world_get_time(w);
        }
        e_last = e;
    }
    printf("  %u grains; the thrown grain left at %.3f s; largest energy rise in a frame %.3g of sum m g d (at %.3f s), "
           "before it left %.3g, in the 3 frames from its leaving %.3g; column grains lost %u\n",
           added, gone_t, rise_max, rise_t, rise_before, rise_after, lost);
    CHECK(gone_t > 0.2 && gone_t < 0.3); /* the scene is the one described */
    CHECK(lost == 0);
    CHECK(rise_after < 1e-3);
    CHECK(rise_max < 2e-2);
    fid_grains_free(&gs);
    gr_world_destroy(w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"pbd_energy_substep_growth", test_pbd_energy_substep_growth},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
