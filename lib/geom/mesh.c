/* SPDX-License-Identifier: MIT */
/* Closed triangle meshes: closedness check and exact signed distance (mesh.h). */
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/sort.h"

#include "triangle.h"
#include "../core/vec3.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

gr_status gr_mesh_check_closed(gr_mem *mem, const gr_vec3 *v, const uint32_t *idx, uint32_t nt, char *err, size_t errlen)
{
    const size_t ne = (size_t)nt * 3;
    uint64_t *edges = (uint64_t *)gr_mem_alloc(mem, sizeof(uint64_t) * 2 * ne); /* + the sort's scratch */
    if (!edges)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t t = 0; t < nt; t++) {
        const uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
        const gr_vec3 n = v3_cross(v3_sub(v[b], v[a]), v3_sub(v[c], v[a]));
        if (a == b || b == c || a == c || !(v3_len2(n) > 0)) {
            gr_mem_free(mem, edges, sizeof(uint64_t) * 2 * ne);
            snprintf(err, errlen, "mesh triangle %u is degenerate (zero area)", t);
            return GR_ERROR_INVALID_ARGUMENT;
        }
        edges[3 * t] = (uint64_t)a << 32 | b;
        edges[3 * t + 1] = (uint64_t)b << 32 | c;
        edges[3 * t + 2] = (uint64_t)c << 32 | a;
    }
    gr_sort(edges, ne, sizeof(uint64_t), cmp_u64, edges + ne);
    gr_status s = GR_OK;
    for (size_t k = 0; k < ne && s == GR_OK; k++) {
        if (k + 1 < ne && edges[k + 1] == edges[k]) {
            snprintf(err, errlen, "mesh edge %u-%u is used twice in the same direction: inconsistent winding",
                     (unsigned)(edges[k] >> 32), (unsigned)(edges[k] & 0xffffffffu));
            s = GR_ERROR_INVALID_ARGUMENT;
            break;
        }
        const uint64_t rev = (edges[k] & 0xffffffffu) << 32 | (edges[k] >> 32);
        if (!bsearch(&rev, edges, ne, sizeof(uint64_t), cmp_u64)) {
            snprintf(err, errlen, "mesh edge %u-%u has no opposite edge: the mesh is not closed",
                     (unsigned)(edges[k] >> 32), (unsigned)(edges[k] & 0xffffffffu));
            s = GR_ERROR_INVALID_ARGUMENT;
        }
    }
    gr_mem_free(mem, edges, sizeof(uint64_t) * 2 * ne);
    return s;
}

gr_status gr_mesh_pseudo_normals(gr_mem *mem, const gr_vec3 *v, uint32_t nv, const uint32_t *idx, uint32_t nt,
                                 gr_vec3 *fn, gr_vec3 *en, gr_vec3 *vn, bool *closed)
{
    const size_t ne = (size_t)nt * 3;
    /* (undirected edge key, slot 3 t + k) pairs, sorted by key: both faces of an edge meet */
    uint64_t *keys = (uint64_t *)gr_mem_alloc(mem, sizeof(uint64_t) * 4 * (ne ? ne : 1)); /* + the sort's scratch */
    if (!keys)
        return GR_ERROR_OUT_OF_MEMORY;
    bool ok = true;
    for (uint32_t i = 0; i < nv; i++)
        vn[i] = v3(0, 0, 0);
    for (uint32_t t = 0; t < nt; t++) {
        const gr_vec3 p[3] = {v[idx[3 * t]], v[idx[3 * t + 1]], v[idx[3 * t + 2]]};
        const gr_vec3 n = v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0]));
        ok &= v3_len2(n) > 0;
        fn[t] = v3_scale(n, 1.0 / v3_len(n));
        for (int k = 0; k < 3; k++) {
            const gr_vec3 e1 = v3_sub(p[(k + 1) % 3], p[k]), e2 = v3_sub(p[(k + 2) % 3], p[k]);
            const double angle = acos(GR_MAX(-1.0, GR_MIN(1.0, v3_dot(e1, e2) / (v3_len(e1) * v3_len(e2)))));
            vn[idx[3 * t + k]] = v3_madd(vn[idx[3 * t + k]], fn[t], angle);
            const uint32_t a = idx[3 * t + k], c = idx[3 * t + (k + 1) % 3];
            keys[2 * (3 * t + k)] = (uint64_t)(a < c ? a : c) << 32 | (a < c ? c : a);
            keys[2 * (3 * t + k) + 1] = 3 * t + (uint32_t)k;
        }
    }
    gr_sort(keys, ne, 2 * sizeof(uint64_t), cmp_u64, keys + 2 * ne);
    for (size_t k = 0; k + 1 < ne; k += 2) {
        const uint32_t s0 = (uint32_t)keys[2 * k + 1], s1 = (uint32_t)keys[2 * k + 3];
        const gr_vec3 sum = v3_add(fn[s0 / 3], fn[s1 / 3]);
        en[s0] = sum;
        en[s1] = sum;
        /* a pair: one key twice (not once, not thrice), run in opposite directions */
        const bool forward0 = idx[s0] < idx[s0 / 3 * 3 + (s0 % 3 + 1) % 3];
        const bool forward1 = idx[s1] < idx[s1 / 3 * 3 + (s1 % 3 + 1) % 3];
        ok &= keys[2 * k] == keys[2 * k + 2] && (k + 2 >= ne || keys[2 * k + 4] != keys[2 * k]) &&
              forward0 != forward1 && (keys[2 * k] >> 32) != (keys[2 * k] & 0xffffffffu);
    }
    ok &= ne % 2 == 0;
    gr_mem_free(mem, keys, sizeof(uint64_t) * 4 * (ne ? ne : 1));
    *closed = ok && nt > 0;
    return GR_OK;
}

double gr_mesh_signed_distance(const gr_vec3 *v, const uint32_t *idx, uint32_t nt, gr_vec3 p, gr_vec3 *closest)
{
    double best = INFINITY, winding = 0;
    gr_vec3 q = p;
    for (uint32_t t = 0; t < nt; t++) {
        const gr_vec3 a = v[idx[3 * t]], b = v[idx[3 * t + 1]], c = v[idx[3 * t + 2]];
        int region;
        const gr_vec3 x = gr_closest_on_triangle(p, a, b, c, &region);
        const double d2 = v3_len2(v3_sub(p, x));
        if (d2 < best) {
            best = d2;
            q = x;
        }
        winding += gr_triangle_solid_angle(p, a, b, c);
    }
    *closest = q;
    /* the solid angles of a closed mesh sum to 4 pi inside and 0 outside */
    return winding > 2 * GR_PI ? -sqrt(best) : sqrt(best);
}
