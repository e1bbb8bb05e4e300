/* SPDX-License-Identifier: MIT */
/* Particle-covered bodies (Bell 2005, 3.3): mass properties (body_mass.c), and surface
 * particles placed by "floaters". Seeds are drawn on the surface (Bell: floor(D A / (pi r^2))
 * per triangle plus one with the fractional probability), then each floater moves with
 *   V = -(f(P) - offset) N  +  sum_i K(|P - P_i|) (P - P_i) / |P - P_i|          (Bell eq. 20)
 * feedback to the offset iso-surface of the signed distance f, plus a compact repulsion
 * K(d) = k (1 - d / sigma)^2 that spreads them evenly. Meshes get their signed distance from
 * a narrow-band voxel grid (exact point-triangle distances, sign from angle-weighted
 * pseudo-normals); analytic shapes use their exact distance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "../geom/mesh.h"
#include "../geom/triangle.h"
#include "../core/vec3.h"
#include "../grid/cell_grid.h"
#include "body_cover.h"
#include "body_mass.h"
#include "body_sdf.h"
#include "body_shapes.h"
#include "body_store.h"

enum { FLOATER_ITERATIONS = 100 };

/* ---- floaters -------------------------------------------------------------------------------- */

typedef struct cover_ctx {
    const gr_body_data *b;
    const gr_body_sdf *sdf; ///< meshes; NULL for analytic shapes
} cover_ctx;

/* Signed distance and unit normal at p (body frame). */
static double surface_distance(const cover_ctx *c, gr_vec3 p, gr_vec3 *n)
{
    if (c->sdf) {
        gr_vec3 g;
        const double d = gr_body_sdf_sample(c->sdf, p, &g);
        const double l = v3_len(g);
        *n = l > 0 ? v3_scale(g, 1.0 / l) : v3(0, 1, 0);
        return d;
    }
    /* analytic: the body's own distance with the body at the origin */
    gr_body_data local = *c->b;
    local.position = v3(0, 0, 0);
    local.orientation = quat_identity();
    gr_body_update_frame(&local);
    gr_vec3 q;
    return gr_body_feature_distance(&local, 0, p, n, &q);
}

/* Random point on the surface of an analytic shape, area-uniform. */
static gr_vec3 random_surface_point(const gr_body_data *b, gr_rng *rng)
{
    const double u = gr_rng_uniform(rng), w = gr_rng_uniform(rng);
    const double z = 2 * u - 1, phi = 2 * GR_PI * w, s = sqrt(GR_MAX(0.0, 1 - z * z));
    const gr_vec3 dir = v3(s * cos(phi), z, s * sin(phi));
    switch (b->shape) {
    case GR_SHAPE_SPHERE:
        return v3_scale(dir, b->radius);
    case GR_SHAPE_CAPSULE: {
        const double r = b->radius, hh = b->half_height;
        const double side = 2 * GR_PI * r * 2 * hh, caps = 4 * GR_PI * r * r;
        if (gr_rng_uniform(rng) * (side + caps) < side) {
            const double a = 2 * GR_PI * gr_rng_uniform(rng);
            return v3(r * cos(a), (2 * gr_rng_uniform(rng) - 1) * hh, r * sin(a));
        }
        gr_vec3 p = v3_scale(dir, r);
        p.y += p.y >= 0 ? hh : -hh;
        return p;
    }
    default: { /* box: a face by area, then a point on it */
        const gr_vec3 h = b->half_extents;
        const double ax[3] = {h.y * h.z, h.x * h.z, h.x * h.y};
        double pick = gr_rng_uniform(rng) * (ax[0] + ax[1] + ax[2]);
        int axis = pick < ax[0] ? 0 : (pick < ax[0] + ax[1] ? 1 : 2);
        /* the draws in a fixed order: the order of a call's arguments is unspecified in C and
         * compilers differ, which made results depend on the compiler (this is the order GCC
         * drew them in, so its results are unchanged) */
        const double uz = gr_rng_uniform(rng), uy = gr_rng_uniform(rng), ux = gr_rng_uniform(rng);
        gr_vec3 p = v3((2 * ux - 1) * h.x, (2 * uy - 1) * h.y, (2 * uz - 1) * h.z);
        v3_set(&p, axis, (gr_rng_uniform(rng) < 0.5 ? -1 : 1) * v3_get(h, axis));
        return p;
    }
    }
}

static double surface_area(const gr_body_data *b)
{
    switch (b->shape) {
    case GR_SHAPE_SPHERE: return 4 * GR_PI * b->radius * b->radius;
    case GR_SHAPE_CAPSULE: return 4 * GR_PI * b->radius * b->radius + 4 * GR_PI * b->radius * b->half_height;
    case GR_SHAPE_BOX: {
        const gr_vec3 h = b->half_extents;
        return 8 * (h.x * h.y + h.y * h.z + h.x * h.z);
    }
    default: {
        double a = 0;
        for (uint32_t t = 0; t < b->mesh_triangle_count; t++) {
            const gr_vec3 p0 = b->mesh_vertices[b->mesh_indices[3 * t]];
            const gr_vec3 p1 = b->mesh_vertices[b->mesh_indices[3 * t + 1]];
            const gr_vec3 p2 = b->mesh_vertices[b->mesh_indices[3 * t + 2]];
            a += 0.5 * v3_len(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0)));
        }
        return a;
    }
    }
}

/* Seeds (Bell: floor(D A / (pi r^2)) per triangle, plus one with the fractional probability),
 * then floater iterations. Writes b->particles / particle_count. */
static gr_status place_particles(gr_body_data *b, gr_mem *mem, const gr_body_sdf *sdf, uint64_t seed)
{
    const double r = b->particle_radius, D = b->particle_density;
    const double per_area = D / (GR_PI * r * r);
    const double total = surface_area(b) * per_area;
    if (!(total < (double)GR_MAX_BODY_PARTICLES))
        return GR_ERROR_TOO_MANY;
    gr_rng rng = {seed ^ 0x6a09e667f3bcc909ull};
    /* count first (same draws as the placement below, from a copy of the generator) */
    uint32_t n = 0;
    gr_rng count_rng = rng;
    if (b->shape == GR_SHAPE_MESH) {
        for (uint32_t t = 0; t < b->mesh_triangle_count; t++) {
            const gr_vec3 p0 = b->mesh_vertices[b->mesh_indices[3 * t]];
            const double a = 0.5 * v3_len(v3_cross(v3_sub(b->mesh_vertices[b->mesh_indices[3 * t + 1]], p0),
                                                   v3_sub(b->mesh_vertices[b->mesh_indices[3 * t + 2]], p0)));
            const double expect = a * per_area;
            n += (uint32_t)floor(expect) + (gr_rng_uniform(&count_rng) < expect - floor(expect) ? 1u : 0u);
            if (n > GR_MAX_BODY_PARTICLES)
                return GR_ERROR_TOO_MANY;
        }
    } else {
        n = (uint32_t)floor(total) + (gr_rng_uniform(&count_rng) < total - floor(total) ? 1u : 0u);
    }
    if (n == 0)
        n = 1;
    gr_vec3 *p = (gr_vec3 *)gr_mem_alloc(mem, sizeof(gr_vec3) * n);
    gr_vec3 *vel = (gr_vec3 *)gr_mem_alloc(mem, sizeof(gr_vec3) * n);
    if (!p || !vel) {
        gr_mem_free(mem, p, sizeof(gr_vec3) * n);
        gr_mem_free(mem, vel, sizeof(gr_vec3) * n);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    uint32_t k = 0;
    if (b->shape == GR_SHAPE_MESH) {
        /* the counts repeat the counting pass's draws; positions come from their own stream */
        gr_rng pos_rng = {seed ^ 0xbb67ae8584caa73bull};
        for (uint32_t t = 0; t < b->mesh_triangle_count && k < n; t++) {
            const gr_vec3 p0 = b->mesh_vertices[b->mesh_indices[3 * t]];
            const gr_vec3 e1 = v3_sub(b->mesh_vertices[b->mesh_indices[3 * t + 1]], p0);
            const gr_vec3 e2 = v3_sub(b->mesh_vertices[b->mesh_indices[3 * t + 2]], p0);
            const double expect = 0.5 * v3_len(v3_cross(e1, e2)) * per_area;
            uint32_t m = (uint32_t)floor(expect) + (gr_rng_uniform(&rng) < expect - floor(expect) ? 1u : 0u);
            for (uint32_t j = 0; j < m && k < n; j++) {
                double u = gr_rng_uniform(&pos_rng), w = gr_rng_uniform(&pos_rng);
                if (u + w > 1) {
                    u = 1 - u;
                    w = 1 - w;
                }
                p[k++] = v3_add(p0, v3_add(v3_scale(e1, u), v3_scale(e2, w)));
            }
        }
    } else {
        gr_rng_uniform(&rng); /* the count's draw */
    }
    while (k < n) /* analytic shapes (a mesh's seeds all come from its triangles) */
        p[k++] = random_surface_point(b, &rng);

    /* floaters: feedback to the offset iso-surface + compact repulsion (Bell eq. 20) */
    cover_ctx ctx = {b, sdf};
    const double step_cap = 0.25 * r; /* keeps the explicit iteration stable */
    const double sigma = 3.0 * r * sqrt(1.0 / GR_MAX(D, 1e-3)), kstr = 0.3 * r;
    /* a square beyond which the distance is surely >= sigma (rounding included) */
    const double sigma2_beyond = sigma * sigma * (1.0 + 1e-9);
    gr_cell_grid grid;
    gr_cell_grid_init(&grid);
    gr_status s = GR_OK;
    for (int it = 0; it < FLOATER_ITERATIONS && s == GR_OK; it++) {
        if (!gr_cell_grid_build(&grid, mem, (const double *)p, 3, n, sigma, GR_MAX(4 * n, 4096u))) {
            s = GR_ERROR_OUT_OF_MEMORY;
            break;
        }
        for (uint32_t i = 0; i < n; i++) {
            gr_vec3 nrm;
            const double f = surface_distance(&ctx, p[i], &nrm);
            gr_vec3 vi = v3_scale(nrm, -(f - b->particle_offset));
            int32_t c[3];
            gr_cell_grid_coords(&grid, p[i], c);
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int32_t cc[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
                        if (cc[0] < 0 || cc[1] < 0 || cc[2] < 0 || cc[0] >= grid.dims[0] || cc[1] >= grid.dims[1] ||
                            cc[2] >= grid.dims[2])
                            continue;
                        const uint32_t cell = gr_cell_grid_index(&grid, cc);
                        for (uint32_t q = grid.cell_start[cell]; q < grid.cell_start[cell + 1]; q++) {
                            const uint32_t j = grid.order[q];
                            if (j == i)
                                continue;
                            const gr_vec3 d = v3_sub(p[i], p[j]);
                            const double l2 = v3_len2(d);
                            if (l2 >= sigma2_beyond)
                                continue; /* (most of the 27 cells' particles: no root needed) */
                            const double l = sqrt(l2);
                            if (l >= sigma || l <= 0)
                                continue;
                            const double kk = kstr * (1 - l / sigma) * (1 - l / sigma);
                            vi = v3_madd(vi, d, kk / l);
                        }
                    }
            vel[i] = vi;
        }
        for (uint32_t i = 0; i < n; i++)
            p[i] = v3_add(p[i], v3_len(vel[i]) > step_cap ? v3_scale(vel[i], step_cap / v3_len(vel[i])) : vel[i]);
    }
    /* a last projection onto the iso-surface */
    for (uint32_t i = 0; i < n && s == GR_OK; i++) {
        gr_vec3 nrm;
        const double f = surface_distance(&ctx, p[i], &nrm);
        p[i] = v3_madd(p[i], nrm, -(f - b->particle_offset));
    }
    gr_cell_grid_free(&grid, mem);
    gr_mem_free(mem, vel, sizeof(gr_vec3) * n);
    if (s != GR_OK) {
        gr_mem_free(mem, p, sizeof(gr_vec3) * n);
        return s;
    }
    b->particles = p;
    b->particle_count = n;
    return GR_OK;
}

/* ---- the body -------------------------------------------------------------------------------- */

bool gr_body_needs_particles(const gr_body_data *b)
{
    return b->shape == GR_SHAPE_MESH || b->motion == GR_MOTION_DYNAMIC || b->motion == GR_MOTION_HOST;
}

void gr_body_release(gr_body_data *b, gr_mem *mem)
{
    gr_mem_free(mem, b->particles, sizeof(gr_vec3) * b->particle_count);
    gr_mem_free(mem, b->mesh_vertices, sizeof(gr_vec3) * b->mesh_vertex_count);
    gr_mem_free(mem, b->mesh_indices, sizeof(uint32_t) * 3 * b->mesh_triangle_count);
    gr_mesh_query_free(&b->mesh_query);
    b->particles = NULL;
    b->mesh_vertices = NULL;
    b->mesh_indices = NULL;
    b->particle_count = 0;
}

gr_status gr_body_build_mesh_query(gr_body_data *b, gr_mem *mem)
{
    if (b->shape != GR_SHAPE_MESH || !b->mesh_triangle_count)
        return GR_OK;
    return gr_mesh_query_build(&b->mesh_query, mem, b->mesh_vertices, b->mesh_indices, b->mesh_triangle_count);
}

gr_status gr_body_prepare(gr_body_data *b, gr_mem *mem, double density, const gr_body_mass_given *given,
                          const gr_vec3 *vertices, const uint32_t *indices, uint64_t seed, bool cover, char *err,
                          size_t errlen)
{
    err[0] = 0;
    memset(&b->mesh_query, 0, sizeof b->mesh_query);
    b->particles = NULL;
    b->particle_count = 0;
    b->mesh_vertices = NULL;
    b->mesh_indices = NULL;
    b->mass = 0;
    b->inertia = v3(0, 0, 0);
    b->com = v3(0, 0, 0);
    b->principal = quat_identity();
    if (b->shape == GR_SHAPE_MESH) {
        const size_t vb = sizeof(gr_vec3) * b->mesh_vertex_count, ib = sizeof(uint32_t) * 3 * b->mesh_triangle_count;
        b->mesh_vertices = (gr_vec3 *)gr_mem_alloc(mem, vb);
        b->mesh_indices = (uint32_t *)gr_mem_alloc(mem, ib);
        if (!b->mesh_vertices || !b->mesh_indices) {
            gr_body_release(b, mem);
            return GR_ERROR_OUT_OF_MEMORY;
        }
        memcpy(b->mesh_vertices, vertices, vb);
        memcpy(b->mesh_indices, indices, ib);
        b->mesh_bound = 0;
        for (uint32_t i = 0; i < b->mesh_vertex_count; i++)
            b->mesh_bound = GR_MAX(b->mesh_bound, v3_len(b->mesh_vertices[i]));
        gr_status s = gr_mesh_check_closed(mem, b->mesh_vertices, b->mesh_indices, b->mesh_triangle_count, err, errlen);
        if (s == GR_OK && (s = gr_body_build_mesh_query(b, mem)) != GR_OK)
            snprintf(err, errlen, "the mesh's triangles are too large for its query grid");
        if (s != GR_OK) {
            gr_body_release(b, mem);
            return s;
        }
    }
    if (!gr_body_needs_particles(b))
        return GR_OK;
    gr_status ms = gr_body_set_mass(b, density, given, err, errlen);
    if (ms != GR_OK) {
        gr_body_release(b, mem);
        return ms;
    }
    if (!cover)
        return GR_OK; /* the solver meets bodies by their shapes (gr_body_distance), not particles */
    /* particle radius: given, or a sixteenth of the enclosing radius */
    if (!(b->particle_radius > 0)) {
        double bound = gr_body_bound_radius(b);
        if (b->shape == GR_SHAPE_MESH) {
            bound = 0;
            for (uint32_t i = 0; i < b->mesh_vertex_count; i++)
                bound = GR_MAX(bound, v3_len(v3_sub(b->mesh_vertices[i], b->com)));
        }
        b->particle_radius = bound / 16.0;
    }
    gr_body_sdf sdf;
    memset(&sdf, 0, sizeof sdf);
    gr_status s = GR_OK;
    if (b->shape == GR_SHAPE_MESH)
        s = gr_body_sdf_build(&sdf, mem, b, 0.5 * b->particle_radius, 3 * b->particle_radius + fabs(b->particle_offset));
    /* an inward offset must leave an inner surface to float to */
    double inner = 0;
    switch (b->shape) {
    case GR_SHAPE_SPHERE: case GR_SHAPE_CAPSULE: inner = b->radius; break;
    case GR_SHAPE_BOX: inner = GR_MIN(b->half_extents.x, GR_MIN(b->half_extents.y, b->half_extents.z)); break;
    default:
        if (s == GR_OK)
            for (size_t k = 0; k < sdf.ix.count; k++)
                inner = GR_MAX(inner, -(double)sdf.d[k]);
        break;
    }
    if (s == GR_OK && b->particle_offset <= -0.9 * inner) {
        snprintf(err, errlen, "particle_offset %g reaches through the body (its inner radius is about %g)",
                 b->particle_offset, inner);
        s = GR_ERROR_INVALID_ARGUMENT;
    }
    if (s == GR_OK)
        s = place_particles(b, mem, b->shape == GR_SHAPE_MESH ? &sdf : NULL, seed);
    gr_body_sdf_free(&sdf, mem);
    if (s != GR_OK) {
        if (s == GR_ERROR_TOO_MANY)
            snprintf(err, errlen, "covering the body needs more than %u particles: raise particle_radius",
                     GR_MAX_BODY_PARTICLES);
        gr_body_release(b, mem);
    }
    return s;
}

void gr_body_principal_pose(const gr_body_data *b, gr_vec3 *x, gr_quat *q)
{
    *x = v3_add(b->position, quat_rotate(b->orientation, b->com));
    *q = quat_normalize(quat_mul(b->orientation, b->principal));
}
