/* SPDX-License-Identifier: MIT */
/* Writes the older-format snapshot fixtures of this directory (tests/test_snapshot_formats.c).
 * Build it against the library of the commit that wrote the format, e.g. for format 5:
 *   git worktree add /tmp/old 8674d22 && cd /tmp/old && meson setup b && ninja -C b lib/libgranular.a
 *   cc -I/tmp/old/include make_format_fixtures.c /tmp/old/b/lib/libgranular.a -lm -lpthread -o mk
 *   ./mk dem_format5.snap pbd_format5.snap
 * (add -DNO_RENDER_POINTS for format 3, whose library had no render points)
 * (format 3: 81c5f35, format 4: ed85731; PBD fixtures only for the formats that are read). */
#include <granular/granular.h>
#include <stdio.h>

static size_t write_file(void *user, const void *data, size_t size) { return fwrite(data, 1, size, (FILE *)user); }

static int save(gr_world *w, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    gr_status s = gr_world_save(w, write_file, f);
    fclose(f);
    return s != GR_OK;
}

/* A floor, a dynamic box, spheres and tetrahedra falling on them: every part of the format. */
static int scene(gr_world *w, int pbd)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.normal = (gr_vec3){0, 1, 0};
    if (gr_add_body(w, &bd, NULL) != GR_OK)
        return 1;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_BOX;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.half_extents = (gr_vec3){0.02, 0.02, 0.02};
    bd.position = (gr_vec3){0.05, 0.03, 0};
    bd.particle_radius = 0.01;
    if (gr_add_body(w, &bd, NULL) != GR_OK)
        return 1;
    for (int k = 0; k < 12; k++) {
        gr_grain_def g;
        gr_grain_def_init(&g);
        g.radius = 0.004;
        g.shape = (!pbd && k % 4 == 0) ? GR_GRAIN_TETRAHEDRON : GR_GRAIN_SPHERE;
        g.position = (gr_vec3){-0.03 + 0.011 * (k % 6), 0.006 + 0.011 * (k / 6), 0.002 * (k % 3)};
        if (gr_add_grain(w, &g, NULL) != GR_OK)
            return 1;
    }
    for (int i = 0; i < 12; i++)
        if (gr_step(w, 1.0 / 120) != GR_OK)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, -9.81, 0};
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK || scene(w, 0) || save(w, argv[1]))
        return 1;
    gr_world_destroy(w);
    if (argc < 3)
        return 0;
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
#ifndef NO_RENDER_POINTS /* (format 3's library had none) */
    pbd.hr_radius = 0.002; /* render points too */
#endif
    gr_world_def_init(&def, GR_SOLVER_PBD);
    def.gravity = (gr_vec3){0, -9.81, 0};
    def.pbd = &pbd;
    if (gr_world_create(&def, &w) != GR_OK || scene(w, 1) || save(w, argv[2]))
        return 1;
    gr_world_destroy(w);
    return 0;
}
