/* SPDX-License-Identifier: MIT */
#include "hourglass_mesh.h"

#include <math.h>

double hourglass_neck_y(const hourglass_shape *s) { return s->bulb_h + s->cone_h; }

void hourglass_mesh(const hourglass_shape *sh, gr_vec3 *v, uint32_t *idx, uint32_t *nv, uint32_t *nt)
{
    enum { AROUND = HOURGLASS_AROUND, PROFILE = HOURGLASS_PROFILE };
    const double pr[PROFILE] = {sh->bulb_r, sh->bulb_r, sh->neck_r, sh->bulb_r, sh->bulb_r};
    const double py[PROFILE] = {0, sh->bulb_h, sh->bulb_h + sh->cone_h, sh->bulb_h + 2 * sh->cone_h,
                                2 * sh->bulb_h + 2 * sh->cone_h};
    /* vertex (side s: 0 inner, 1 outer; profile i; angle j) */
#define VTX(s, i, j) ((uint32_t)(((s) * PROFILE + (i)) * AROUND + ((j) % AROUND)))
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < PROFILE; i++)
            for (int j = 0; j < AROUND; j++) {
                const double a = 2 * 3.14159265358979323846 * j / AROUND, r = pr[i] + s * sh->thick;
                v[VTX(s, i, j)] = (gr_vec3){r * cos(a), py[i], r * sin(a)};
            }
    uint32_t t = 0;
#define TRI(a, b, c) (idx[3 * t] = (a), idx[3 * t + 1] = (b), idx[3 * t + 2] = (c), t++)
    for (int i = 0; i + 1 < PROFILE; i++)
        for (int j = 0; j < AROUND; j++) {
            /* inner wall faces the axis (out of the solid shell), outer wall faces away */
            TRI(VTX(0, i, j), VTX(0, i, j + 1), VTX(0, i + 1, j));
            TRI(VTX(0, i + 1, j), VTX(0, i, j + 1), VTX(0, i + 1, j + 1));
            TRI(VTX(1, i, j), VTX(1, i + 1, j), VTX(1, i, j + 1));
            TRI(VTX(1, i + 1, j), VTX(1, i + 1, j + 1), VTX(1, i, j + 1));
        }
    for (int j = 0; j < AROUND; j++) {
        const int top = PROFILE - 1;
        TRI(VTX(0, 0, j), VTX(1, 0, j), VTX(0, 0, j + 1)); /* bottom ring faces down */
        TRI(VTX(0, 0, j + 1), VTX(1, 0, j), VTX(1, 0, j + 1));
        TRI(VTX(0, top, j), VTX(0, top, j + 1), VTX(1, top, j)); /* top ring faces up */
        TRI(VTX(0, top, j + 1), VTX(1, top, j + 1), VTX(1, top, j));
    }
#undef TRI
#undef VTX
    *nv = 2 * PROFILE * AROUND;
    *nt = t;
}

gr_status hourglass_add_body(gr_world *w, const hourglass_shape *s, gr_material material, double particle_radius,
                             gr_body *out)
{
    static gr_vec3 v[HOURGLASS_MAX_VERTICES];
    static uint32_t idx[3 * HOURGLASS_MAX_TRIANGLES];
    uint32_t nv, nt;
    hourglass_mesh(s, v, idx, &nv, &nt);
    gr_body_def hd;
    gr_body_def_init(&hd);
    hd.shape = GR_SHAPE_MESH;
    hd.mesh_vertices = v;
    hd.mesh_indices = idx;
    hd.mesh_vertex_count = nv;
    hd.mesh_triangle_count = nt;
    hd.material = material;
    hd.particle_radius = particle_radius;
    return gr_add_body(w, &hd, out);
}
