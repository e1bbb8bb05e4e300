/* SPDX-License-Identifier: MIT */
#include "clump_store.h"

#include <math.h>

#include "mass_props.h"
#include "../core/vec3.h"

void gr_clump_store_init(gr_clump_store *s) { memset(s, 0, sizeof *s); }

void gr_clump_store_free(gr_clump_store *s, gr_mem *mem)
{
    gr_mem_free(mem, s->templates, sizeof(gr_clump_template) * s->cap);
    gr_mem_free(mem, s->offsets, sizeof(gr_vec3) * s->sphere_cap);
    gr_mem_free(mem, s->radii, sizeof(double) * s->sphere_cap);
    gr_clump_store_init(s);
}

gr_status gr_clump_store_add(gr_clump_store *s, gr_mem *mem, const gr_vec3 *centres, const double *radii,
                             uint32_t count)
{
    /* room first: the store is unchanged on failure */
    if (s->count == s->cap) {
        uint32_t cap = gr_grow_capacity(s->cap, s->count + 1);
        gr_array_ref a = {(void **)&s->templates, sizeof(gr_clump_template)};
        if (!gr_mem_grow_arrays(mem, &a, 1, s->cap, cap, s->count))
            return GR_ERROR_OUT_OF_MEMORY;
        s->cap = cap;
    }
    if (s->sphere_count + count > s->sphere_cap) {
        uint32_t cap = gr_grow_capacity(s->sphere_cap, s->sphere_count + count);
        gr_array_ref a[2] = {{(void **)&s->offsets, sizeof(gr_vec3)}, {(void **)&s->radii, sizeof(double)}};
        if (!gr_mem_grow_arrays(mem, a, 2, s->sphere_cap, cap, s->sphere_count))
            return GR_ERROR_OUT_OF_MEMORY;
        s->sphere_cap = cap;
    }
    double *scratch = (double *)gr_mem_alloc(mem, sizeof(double) * 4 * count);
    if (!scratch)
        return GR_ERROR_OUT_OF_MEMORY;
    double rmin = INFINITY;
    for (uint32_t k = 0; k < count; k++)
        rmin = GR_MIN(rmin, radii[k]);
    gr_mass_props mp;
    gr_mass_props_spheres(centres, radii, count, rmin / 24.0, scratch, &mp);
    gr_mem_free(mem, scratch, sizeof(double) * 4 * count);

    /* principal frame: offsets b = V^T (c - centre); bounding radius scaled to 1 */
    double values[3], vec[3][3];
    gr_eigen_symmetric3(mp.inertia, values, vec);
    if (values[2] - values[0] < 1e-3 * values[2]) {
        /* isotropic (tetrahedron, cube): any axes are principal; keep the given ones rather
         * than axes picked by the integration's round-off */
        const double mean = (values[0] + values[1] + values[2]) / 3.0;
        for (int a = 0; a < 3; a++) {
            values[a] = mean;
            for (int b = 0; b < 3; b++)
                vec[a][b] = a == b ? 1.0 : 0.0;
        }
    }
    gr_vec3 *off = s->offsets + s->sphere_count;
    double *rad = s->radii + s->sphere_count;
    double bound = 0;
    for (uint32_t k = 0; k < count; k++) {
        const gr_vec3 d = v3_sub(centres[k], mp.centre);
        off[k] = v3(d.x * vec[0][0] + d.y * vec[1][0] + d.z * vec[2][0], d.x * vec[0][1] + d.y * vec[1][1] + d.z * vec[2][1],
                    d.x * vec[0][2] + d.y * vec[1][2] + d.z * vec[2][2]);
        bound = GR_MAX(bound, v3_len(off[k]) + radii[k]);
    }
    for (uint32_t k = 0; k < count; k++) {
        off[k] = v3_scale(off[k], 1.0 / bound);
        rad[k] = radii[k] / bound;
    }
    gr_clump_template *t = &s->templates[s->count++];
    t->first = s->sphere_count;
    t->count = count;
    const double b3 = bound * bound * bound, b5 = b3 * bound * bound;
    t->unit_volume = mp.volume / b3;
    t->unit_inertia = v3(values[0] / b5, values[1] / b5, values[2] / b5);
    t->min_radius = rmin / bound;
    t->principal = gr_quat_from_matrix((const double(*)[3])vec);
    s->sphere_count += count;
    return GR_OK;
}

bool gr_clump_store_add_builtins(gr_clump_store *s, gr_mem *mem)
{
    /* Bell's Figure 4 grains, and an elongated pair: overlapping spheres, bounding radius 1 */
    const double t = 0.5 / sqrt(3.0); /* tetrahedron vertices at distance 0.5 */
    const gr_vec3 tetra[4] = {{t, t, t}, {t, -t, -t}, {-t, t, -t}, {-t, -t, t}};
    const double tetra_r[4] = {0.5, 0.5, 0.5, 0.5};
    const double a = 0.55 / sqrt(3.0); /* cube corners at distance 0.55 */
    gr_vec3 cube[8];
    double cube_r[8];
    for (int k = 0; k < 8; k++) {
        cube[k] = v3(k & 1 ? a : -a, k & 2 ? a : -a, k & 4 ? a : -a);
        cube_r[k] = 0.45;
    }
    const gr_vec3 pair[2] = {{0, 0.4, 0}, {0, -0.4, 0}};
    const double pair_r[2] = {0.6, 0.6};
    return gr_clump_store_add(s, mem, tetra, tetra_r, 4) == GR_OK && gr_clump_store_add(s, mem, cube, cube_r, 8) == GR_OK &&
           gr_clump_store_add(s, mem, pair, pair_r, 2) == GR_OK;
}
