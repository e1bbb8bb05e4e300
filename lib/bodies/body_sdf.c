/* SPDX-License-Identifier: MIT */
/* The signed distance field of a mesh body (body_sdf.h): a narrow band of exact point-triangle
 * distances on a voxel grid, signed by the closest feature's angle-weighted pseudo-normal
 * (geom/mesh.h), beyond the band +-band by the sign of the nearest banded cell along x. */
#include <math.h>
#include <string.h>

#include "../geom/mesh.h"
#include "../geom/triangle.h"
#include "../core/vec3.h"
#include "body_sdf.h"

gr_status gr_body_sdf_build(gr_body_sdf *out, gr_mem *mem, const gr_body_data *b, double h, double band)
{
    const gr_vec3 *v = b->mesh_vertices;
    const uint32_t *idx = b->mesh_indices;
    const uint32_t nv = b->mesh_vertex_count, nt = b->mesh_triangle_count;
    memset(out, 0, sizeof *out);
    gr_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < nv; i++) {
        lo = v3(GR_MIN(lo.x, v[i].x), GR_MIN(lo.y, v[i].y), GR_MIN(lo.z, v[i].z));
        hi = v3(GR_MAX(hi.x, v[i].x), GR_MAX(hi.y, v[i].y), GR_MAX(hi.z, v[i].z));
    }
    /* keep the grid under 2^24 cells: coarser cells for huge meshes */
    for (;;) {
        double cells = 1;
        for (int a = 0; a < 3; a++)
            cells *= floor((v3_get(hi, a) - v3_get(lo, a) + 2 * band) / h) + 3;
        if (cells <= (double)(1u << 24))
            break;
        h *= 1.25;
    }
    int32_t dims[3];
    for (int a = 0; a < 3; a++)
        dims[a] = (int32_t)(floor((v3_get(hi, a) - v3_get(lo, a) + 2 * band) / h) + 3);
    out->ix = gr_grid_index_make(v3(lo.x - band - h, lo.y - band - h, lo.z - band - h), h, dims, GR_GRID_Z_SLOWEST);
    out->band = band;
    const size_t ncell = out->ix.count;
    out->d = (float *)gr_mem_alloc(mem, sizeof(float) * ncell);
    gr_vec3 *fn = (gr_vec3 *)gr_mem_calloc(mem, sizeof(gr_vec3) * nt);
    gr_vec3 *vn = (gr_vec3 *)gr_mem_calloc(mem, sizeof(gr_vec3) * nv);
    gr_vec3 *en = (gr_vec3 *)gr_mem_calloc(mem, sizeof(gr_vec3) * nt * 3);
    uint32_t *owner = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * ncell);
    float *best = (float *)gr_mem_alloc(mem, sizeof(float) * ncell);
    bool closed; /* (bodies' meshes were checked closed) */
    if (!out->d || !fn || !vn || !en || !owner || !best ||
        gr_mesh_pseudo_normals(mem, v, nv, idx, nt, fn, en, vn, &closed) != GR_OK) {
        gr_mem_free(mem, out->d, sizeof(float) * ncell);
        gr_mem_free(mem, fn, sizeof(gr_vec3) * nt);
        gr_mem_free(mem, vn, sizeof(gr_vec3) * nv);
        gr_mem_free(mem, en, sizeof(gr_vec3) * nt * 3);
        gr_mem_free(mem, owner, sizeof(uint32_t) * ncell);
        gr_mem_free(mem, best, sizeof(float) * ncell);
        out->d = NULL;
        return GR_ERROR_OUT_OF_MEMORY;
    }
    for (size_t c = 0; c < ncell; c++) {
        best[c] = INFINITY;
        owner[c] = GR_INVALID_INDEX;
    }
    /* exact distances in each triangle's neighbourhood; remember the closest triangle */
    const int reach = (int)ceil(band * out->ix.inv_cell) + 1;
    for (uint32_t t = 0; t < nt; t++) {
        const gr_vec3 a = v[idx[3 * t]], bb = v[idx[3 * t + 1]], cc = v[idx[3 * t + 2]];
        /* the plane's distance bounds the triangle's from below: most cells of a large slanted
         * triangle's box are far from its plane and need no closest point */
        const gr_vec3 tn = v3_cross(v3_sub(bb, a), v3_sub(cc, a));
        const double tl = v3_len(tn);
        const gr_vec3 un = tl > 0 ? v3_scale(tn, 1.0 / tl) : v3(0, 0, 0);
        int32_t i0[3], i1[3];
        for (int ax = 0; ax < 3; ax++) {
            const double mn = GR_MIN(v3_get(a, ax), GR_MIN(v3_get(bb, ax), v3_get(cc, ax)));
            const double mx = GR_MAX(v3_get(a, ax), GR_MAX(v3_get(bb, ax), v3_get(cc, ax)));
            i0[ax] = GR_MAX(0, (int32_t)floor((mn - v3_get(out->ix.lo, ax)) * out->ix.inv_cell) - reach);
            i1[ax] = GR_MIN(out->ix.dims[ax] - 1, (int32_t)floor((mx - v3_get(out->ix.lo, ax)) * out->ix.inv_cell) + reach);
        }
        for (int32_t z = i0[2]; z <= i1[2]; z++)
            for (int32_t y = i0[1]; y <= i1[1]; y++)
                for (int32_t x = i0[0]; x <= i1[0]; x++) {
                    const gr_vec3 p = v3(out->ix.lo.x + x * h, out->ix.lo.y + y * h, out->ix.lo.z + z * h);
                    const size_t c = gr_grid_index_at(&out->ix, x, y, z);
                    if (fabs(v3_dot(v3_sub(p, a), un)) > GR_MIN((double)best[c], band))
                        continue;
                    int region;
                    const gr_vec3 q = gr_closest_on_triangle(p, a, bb, cc, &region);
                    const double d = v3_len(v3_sub(p, q));
                    if (d < best[c]) {
                        best[c] = (float)d;
                        owner[c] = t * 8 + (uint32_t)region;
                    }
                }
    }
    for (int32_t z = 0; z < out->ix.dims[2]; z++)
        for (int32_t y = 0; y < out->ix.dims[1]; y++)
            for (int32_t x = 0; x < out->ix.dims[0]; x++) {
                const size_t c = gr_grid_index_at(&out->ix, x, y, z);
                if (owner[c] == GR_INVALID_INDEX || best[c] > band) {
                    out->d[c] = NAN; /* outside the band: filled below */
                    continue;
                }
                const uint32_t t = owner[c] / 8, region = owner[c] % 8;
                const gr_vec3 p = v3(out->ix.lo.x + x * h, out->ix.lo.y + y * h, out->ix.lo.z + z * h);
                int rg;
                const gr_vec3 q = gr_closest_on_triangle(p, v[idx[3 * t]], v[idx[3 * t + 1]], v[idx[3 * t + 2]], &rg);
                gr_vec3 pn = region == 6 ? fn[t] : region >= 3 ? en[3 * t + (region - 3)] : vn[idx[3 * t + region]];
                const double sgn = v3_dot(v3_sub(p, q), pn) >= 0 ? 1.0 : -1.0;
                out->d[c] = (float)(sgn * best[c]);
            }
    /* beyond the band: the sign of the nearest banded neighbour along x, else outside */
    for (int32_t z = 0; z < out->ix.dims[2]; z++)
        for (int32_t y = 0; y < out->ix.dims[1]; y++) {
            float last = (float)band;
            for (int32_t x = 0; x < out->ix.dims[0]; x++) {
                float *d = &out->d[gr_grid_index_at(&out->ix, x, y, z)];
                if (isnan(*d))
                    *d = last > 0 ? (float)band : (float)-band;
                else
                    last = *d;
            }
        }
    gr_mem_free(mem, fn, sizeof(gr_vec3) * nt);
    gr_mem_free(mem, vn, sizeof(gr_vec3) * nv);
    gr_mem_free(mem, en, sizeof(gr_vec3) * nt * 3);
    gr_mem_free(mem, owner, sizeof(uint32_t) * ncell);
    gr_mem_free(mem, best, sizeof(float) * ncell);
    return GR_OK;
}

void gr_body_sdf_free(gr_body_sdf *s, gr_mem *mem)
{
    if (s->d)
        gr_mem_free(mem, s->d, sizeof(float) * s->ix.count);
    s->d = NULL;
}
