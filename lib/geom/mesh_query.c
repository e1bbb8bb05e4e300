/* SPDX-License-Identifier: MIT */
/* Grid-binned closed mesh: depth queries for fills (mesh_query.h). */
#include "mesh_query.h"

#include <math.h>

#include "mesh.h"
#include "triangle.h"
#include "../core/vec3.h"

/* Most grid cells (and entries) the binning may use. */
#define MESH_QUERY_MAX_CELLS (1u << 21)
#define MESH_QUERY_MAX_ENTRIES (1u << 26)


/* Cell range a triangle's bounding box covers. */
static void tri_cells(const gr_mesh_query *q, uint32_t t, int32_t lo[3], int32_t hi[3])
{
    const gr_vec3 a = q->v[q->idx[3 * t]], b = q->v[q->idx[3 * t + 1]], c = q->v[q->idx[3 * t + 2]];
    for (int d = 0; d < 3; d++) {
        const double mn = GR_MIN(v3_get(a, d), GR_MIN(v3_get(b, d), v3_get(c, d)));
        const double mx = GR_MAX(v3_get(a, d), GR_MAX(v3_get(b, d), v3_get(c, d)));
        lo[d] = gr_grid_index_clamp(&q->ix, mn, d);
        hi[d] = gr_grid_index_clamp(&q->ix, mx, d);
    }
}

/* Every triangle into the cells its bounding box covers: counted into start[cell + 1], or
 * placed at start[cell] (which then advances). Returns the entries. */
static size_t bin_triangles(gr_mesh_query *q, bool place)
{
    size_t total = 0;
    for (uint32_t t = 0; t < q->nt; t++) {
        int32_t a[3], b[3];
        tri_cells(q, t, a, b);
        for (int32_t k = a[2]; k <= b[2]; k++)
            for (int32_t j = a[1]; j <= b[1]; j++)
                for (int32_t i = a[0]; i <= b[0]; i++) {
                    if (place)
                        q->tris[q->start[gr_grid_index_at(&q->ix, i, j, k)]++] = t;
                    else
                        q->start[gr_grid_index_at(&q->ix, i, j, k) + 1]++;
                }
        total += (size_t)(b[0] - a[0] + 1) * (size_t)(b[1] - a[1] + 1) * (size_t)(b[2] - a[2] + 1);
    }
    return total;
}

/* The pseudo-normals (mesh.h), kept if the mesh is closed and consistently oriented (else
 * q->pseudo stays false and the side is found by a ray). False only when out of memory. */
static bool build_pseudo_normals(gr_mesh_query *q)
{
    const uint32_t nt = q->nt;
    if (!nt || nt > UINT32_MAX / 3)
        return true;
    uint32_t nv = 0;
    for (size_t k = 0; k < 3 * (size_t)nt; k++)
        nv = GR_MAX(nv, q->idx[k] + 1);
    q->nv = nv;
    q->face_normal = (gr_vec3 *)gr_mem_alloc(q->mem, sizeof(gr_vec3) * nt);
    q->edge_normal = (gr_vec3 *)gr_mem_alloc(q->mem, sizeof(gr_vec3) * 3 * (size_t)nt);
    q->vertex_normal = (gr_vec3 *)gr_mem_alloc(q->mem, sizeof(gr_vec3) * nv);
    bool closed = false;
    if (!q->face_normal || !q->edge_normal || !q->vertex_normal ||
        gr_mesh_pseudo_normals(q->mem, q->v, nv, q->idx, nt, q->face_normal, q->edge_normal, q->vertex_normal,
                               &closed) != GR_OK)
        return false;
    q->pseudo = closed;
    return true;
}

gr_status gr_mesh_query_build(gr_mesh_query *q, gr_mem *mem, const gr_vec3 *v, const uint32_t *idx, uint32_t nt)
{
    memset(q, 0, sizeof *q);
    q->v = v;
    q->idx = idx;
    q->nt = nt;
    q->mem = mem;
    gr_vec3 lo = v[idx[0]], hi = lo;
    for (size_t k = 0; k < 3 * (size_t)nt; k++) {
        const gr_vec3 p = v[idx[k]];
        lo = v3(GR_MIN(lo.x, p.x), GR_MIN(lo.y, p.y), GR_MIN(lo.z, p.z));
        hi = v3(GR_MAX(hi.x, p.x), GR_MAX(hi.y, p.y), GR_MAX(hi.z, p.z));
    }
    const gr_vec3 ext = v3_sub(hi, lo);
    /* about one triangle per cell, within the cell budget */
    const double span = GR_MAX(ext.x, GR_MAX(ext.y, ext.z));
    double cell = GR_MAX(cbrt(GR_MAX(ext.x, span * 1e-3) * GR_MAX(ext.y, span * 1e-3) * GR_MAX(ext.z, span * 1e-3) /
                             (double)nt),
                         span * 1e-3);
    if (!(cell > 0))
        cell = 1.0;
    q->ix = gr_grid_index_fit(lo, ext, cell, MESH_QUERY_MAX_CELLS, GR_GRID_Z_SLOWEST);
    q->start = (uint32_t *)gr_mem_calloc(mem, sizeof(uint32_t) * (q->ix.count + 1));
    q->stamp = (uint32_t *)gr_mem_calloc(mem, sizeof(uint32_t) * (nt ? nt : 1));
    if (!q->start || !q->stamp) {
        gr_mesh_query_free(q);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    /* count, prefix, place */
    const size_t total = bin_triangles(q, false);
    if (total > MESH_QUERY_MAX_ENTRIES) {
        gr_mesh_query_free(q);
        return GR_ERROR_TOO_MANY;
    }
    for (size_t c = 0; c < q->ix.count; c++)
        q->start[c + 1] += q->start[c];
    q->nentries = total;
    q->tris = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * (total ? total : 1));
    if (!q->tris) {
        gr_mesh_query_free(q);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    bin_triangles(q, true);
    /* the fill pass moved each start to the next cell's: shift back */
    for (size_t c = q->ix.count; c > 0; c--)
        q->start[c] = q->start[c - 1];
    q->start[0] = 0;
    if (!build_pseudo_normals(q)) {
        gr_mesh_query_free(q);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    return GR_OK;
}

void gr_mesh_query_free(gr_mesh_query *q)
{
    gr_mem_free(q->mem, q->start, sizeof(uint32_t) * (q->ix.count + 1));
    gr_mem_free(q->mem, q->stamp, sizeof(uint32_t) * (q->nt ? q->nt : 1));
    gr_mem_free(q->mem, q->tris, sizeof(uint32_t) * (q->nentries ? q->nentries : 1));
    q->start = q->stamp = q->tris = NULL;
    gr_mem_free(q->mem, q->face_normal, q->face_normal ? sizeof(gr_vec3) * q->nt : 0);
    gr_mem_free(q->mem, q->edge_normal, q->edge_normal ? sizeof(gr_vec3) * 3 * (size_t)q->nt : 0);
    gr_mem_free(q->mem, q->vertex_normal, q->vertex_normal ? sizeof(gr_vec3) * q->nv : 0);
    q->face_normal = q->edge_normal = q->vertex_normal = NULL;
    q->pseudo = false;
}

/* A new query id for the stamps (wrapping: clear them). */
static uint32_t next_query(gr_mesh_query *q)
{
    if (++q->query == 0) {
        memset(q->stamp, 0, sizeof(uint32_t) * q->nt);
        q->query = 1;
    }
    return q->query;
}

/* Does the edge a->b (triangles brought to one orientation in the x-z plane) own a point on
 * it? Top-left rule: of two triangles sharing an edge (traversed in opposite directions)
 * exactly one does. */
static bool owns_edge(double ax, double az, double bx, double bz)
{
    const double dx = bx - ax, dz = bz - az;
    return dz > 0 || (dz == 0 && dx < 0);
}

/* Which side of the edge u->v (in the x-z plane) p lies on. Evaluated with the endpoints in
 * one order whichever way the edge is traversed, so the two triangles sharing an edge see
 * exactly opposite values: a point near it is inside exactly one of them (evaluated each
 * their own way, rounding can put it in both or neither, and a ray then counts a crossing
 * twice or not at all). */
static double edge_side(gr_vec3 u, gr_vec3 v, gr_vec3 p)
{
    const bool swap = v.x < u.x || (v.x == u.x && v.z < u.z);
    const gr_vec3 s = swap ? v : u, t = swap ? u : v;
    const double w = (p.x - s.x) * (t.z - s.z) - (t.x - s.x) * (p.z - s.z);
    return swap ? -w : w;
}

/* Signed crossing of the ray from p in +y with triangle t: +1 leaving (normal up), -1
 * entering, 0 missed; *y the height of the crossing. */
static int ray_crossing(const gr_mesh_query *q, uint32_t t, gr_vec3 p, double *y_hit)
{
    gr_vec3 a = q->v[q->idx[3 * t]], b = q->v[q->idx[3 * t + 1]], c = q->v[q->idx[3 * t + 2]];
    /* orientation in the x-z plane (sign of the normal's y) */
    const double area = (c.x - a.x) * (b.z - a.z) - (b.x - a.x) * (c.z - a.z);
    if (area == 0)
        return 0; /* vertical: a ray along y does not cross it */
    const int sign = area > 0 ? 1 : -1;
    if (area < 0) { /* make it one orientation for the edge tests */
        const gr_vec3 s = b;
        b = c;
        c = s;
    }
    const gr_vec3 e[3][2] = {{a, b}, {b, c}, {c, a}};
    double w[3];
    for (int k = 0; k < 3; k++) {
        const gr_vec3 u = e[k][0], v = e[k][1];
        w[k] = edge_side(u, v, p); /* > 0 inside */
        if (w[k] < 0 || (w[k] == 0 && !owns_edge(u.x, u.z, v.x, v.z)))
            return 0;
    }
    /* height of the plane above (x, z) from the barycentric weights */
    const double s = w[0] + w[1] + w[2];
    if (!(s > 0))
        return 0;
    const double y = (w[1] * a.y + w[2] * b.y + w[0] * c.y) / s;
    *y_hit = y;
    return y > p.y ? sign : 0;
}

bool gr_mesh_query_inside(const gr_mesh_query *q, gr_vec3 p)
{
    const gr_grid_index *g = &q->ix;
    const int32_t ci = (int32_t)floor((p.x - g->lo.x) * g->inv_cell), ck = (int32_t)floor((p.z - g->lo.z) * g->inv_cell);
    if (!(ci >= 0 && ci < g->dims[0] && ck >= 0 && ck < g->dims[2] && p.y <= g->lo.y + g->cell * g->dims[1]))
        return false;
    int winding = 0;
    for (int32_t j = gr_grid_index_clamp(&q->ix, p.y, 1); j < g->dims[1]; j++) {
        const size_t c = gr_grid_index_at(&q->ix, ci, j, ck);
        for (uint32_t s = q->start[c]; s < q->start[c + 1]; s++) {
            double y;
            const int x = ray_crossing(q, q->tris[s], p, &y);
            /* a triangle spanning several cells counts in the cell of its crossing only */
            if (x && gr_grid_index_clamp(&q->ix, y, 1) == j)
                winding += x;
        }
    }
    return winding > 0;
}

double gr_mesh_query_depth(gr_mesh_query *q, gr_vec3 p, double limit)
{
    /* distance: the triangles in the cells within `limit` */
    double best = limit * limit;
    uint32_t best_t = UINT32_MAX;
    int best_region = 0;
    gr_vec3 best_x = p;
    const uint32_t id = next_query(q);
    int32_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        const double x = v3_get(p, d), l = v3_get(q->ix.lo, d);
        if (x + limit < l || x - limit > l + q->ix.cell * q->ix.dims[d])
            return (gr_mesh_query_inside(q, p) ? 1.0 : -1.0) * limit; /* the whole reach is outside the grid */
        lo[d] = gr_grid_index_clamp(&q->ix, x - limit, d);
        hi[d] = gr_grid_index_clamp(&q->ix, x + limit, d);
    }
    for (int32_t k = lo[2]; k <= hi[2]; k++)
        for (int32_t j = lo[1]; j <= hi[1]; j++)
            for (int32_t i = lo[0]; i <= hi[0]; i++) {
                const size_t c = gr_grid_index_at(&q->ix, i, j, k);
                for (uint32_t s = q->start[c]; s < q->start[c + 1]; s++) {
                    const uint32_t t = q->tris[s];
                    if (q->stamp[t] == id)
                        continue;
                    q->stamp[t] = id;
                    int region;
                    const gr_vec3 x = gr_closest_on_triangle(p, q->v[q->idx[3 * t]], q->v[q->idx[3 * t + 1]],
                                                             q->v[q->idx[3 * t + 2]], &region);
                    const double d2 = v3_len2(v3_sub(p, x));
                    if (d2 < best) {
                        best = d2;
                        best_t = t;
                        best_region = region;
                        best_x = x;
                    }
                }
            }
    /* the side: from the closest feature's pseudo-normal (outside where p lies along it), or,
     * with no feature within reach, too close to one to tell, or no normals, from a ray */
    double side = 0;
    if (q->pseudo && best_t != UINT32_MAX) {
        const uint32_t *idx = q->idx + 3 * (size_t)best_t;
        const gr_vec3 n = best_region < 3   ? q->vertex_normal[idx[best_region]]
                          : best_region < 6 ? q->edge_normal[3 * (size_t)best_t + (size_t)(best_region - 3)]
                                            : q->face_normal[best_t];
        const gr_vec3 away = v3_sub(p, best_x);
        const double s = v3_dot(away, n);
        if (fabs(s) > 1e-9 * sqrt(best) * v3_len(n) && best > 1e-24 * (1.0 + v3_len2(p)))
            side = s < 0 ? 1.0 : -1.0;
    }
    if (side == 0)
        side = gr_mesh_query_inside(q, p) ? 1.0 : -1.0;
    return side * sqrt(best);
}
