/* SPDX-License-Identifier: MIT */
/* gr_fill_box, gr_fill_mesh: a jittered lattice, random sequential addition, or cell-based
 * Poisson-disk sampling (Sommer & Schwanecke sec. 4) of non-overlapping grains in a box or
 * inside a closed mesh, skipping space taken by existing grains and bodies. Seeded: the same
 * call on the same world gives the same grains. */
#include "../bodies/body_shapes.h"
#include "../core/rng.h"
#include "../geom/mass_props.h"
#include "../geom/mesh.h"
#include "../geom/mesh_query.h"
#include "../geom/region.h"
#include "../grid/poisson_cells.h"
#include "../world/world_errors.h"
#include "api_internal.h"
#include "api_bodies.h"
#include "api_defaults.h"
#include "api_grains.h"

/* A bucket grid of the spheres that a new grain must not overlap. */
typedef struct fill_grid {
    gr_grid_index ix;
    uint32_t *head;  ///< [ix.count] first sphere of a cell, or GR_INVALID_INDEX
    uint32_t *next;  ///< [cap] next sphere in the same cell
    gr_vec3 *pos;    ///< [cap]
    double *rad;     ///< [cap]
    uint32_t n, cap;
    gr_mem *mem;
} fill_grid;

static void fill_grid_free(fill_grid *g)
{
    gr_mem_free(g->mem, g->head, sizeof(uint32_t) * g->ix.count);
    gr_mem_free(g->mem, g->next, sizeof(uint32_t) * g->cap);
    gr_mem_free(g->mem, g->pos, sizeof(gr_vec3) * g->cap);
    gr_mem_free(g->mem, g->rad, sizeof(double) * g->cap);
}

static bool fill_grid_init(fill_grid *g, gr_mem *mem, gr_vec3 lo, gr_vec3 hi, double cell)
{
    memset(g, 0, sizeof *g);
    g->mem = mem;
    g->ix = gr_grid_index_fit(lo, v3_sub(hi, lo), cell, (double)(1u << 22), GR_GRID_Z_SLOWEST);
    g->head = (uint32_t *)gr_mem_alloc(mem, sizeof(uint32_t) * g->ix.count);
    if (!g->head)
        return false;
    memset(g->head, 0xff, sizeof(uint32_t) * g->ix.count);
    return true;
}

static bool fill_grid_add(fill_grid *g, gr_vec3 p, double r)
{
    if (g->n == g->cap) {
        uint32_t cap = gr_grow_capacity(g->cap, g->n + 1);
        gr_array_ref a[3] = {{(void **)&g->next, sizeof(uint32_t)}, {(void **)&g->pos, sizeof(gr_vec3)},
                             {(void **)&g->rad, sizeof(double)}};
        if (!gr_mem_grow_arrays(g->mem, a, 3, g->cap, cap, g->n))
            return false;
        g->cap = cap;
    }
    const size_t c = gr_grid_index_at(&g->ix, gr_grid_index_clamp(&g->ix, p.x, 0), gr_grid_index_clamp(&g->ix, p.y, 1),
                                      gr_grid_index_clamp(&g->ix, p.z, 2));
    g->pos[g->n] = p;
    g->rad[g->n] = r;
    g->next[g->n] = g->head[c];
    g->head[c] = g->n++;
    return true;
}

/* Does a sphere (p, r) overlap any in the grid? Spheres are at most `reach` apart to matter. */
static bool fill_grid_overlaps(const fill_grid *g, gr_vec3 p, double r, double reach)
{
    int32_t lo[3], hi[3];
    const double pv[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; a++) {
        lo[a] = gr_grid_index_clamp(&g->ix, pv[a] - reach, a);
        hi[a] = gr_grid_index_clamp(&g->ix, pv[a] + reach, a);
    }
    for (int32_t z = lo[2]; z <= hi[2]; z++)
        for (int32_t y = lo[1]; y <= hi[1]; y++)
            for (int32_t x = lo[0]; x <= hi[0]; x++) {
                const size_t c = gr_grid_index_at(&g->ix, x, y, z);
                for (uint32_t k = g->head[c]; k != GR_INVALID_INDEX; k = g->next[k]) {
                    double s = r + g->rad[k];
                    if (v3_len2(v3_sub(p, g->pos[k])) < s * s)
                        return true;
                }
            }
    return false;
}

/* Uniformly random rotation (Shoemake 1992). */
static gr_quat random_orientation(gr_rng *rng)
{
    const double u1 = gr_rng_uniform(rng), u2 = 2 * GR_PI * gr_rng_uniform(rng), u3 = 2 * GR_PI * gr_rng_uniform(rng);
    const double a = sqrt(1 - u1), b = sqrt(u1);
    gr_quat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return q;
}

static bool overlaps_body(const gr_world *w, gr_vec3 p, double r)
{
    for (uint32_t a = 0; a < w->bodies.count; a++)
        if (gr_body_distance(&w->bodies.data[w->bodies.active[a]], p) < r)
            return true;
    return false;
}

/* The region to fill: a box, or the inside of a closed mesh (with its bounding box). */
typedef struct fill_region {
    gr_vec3 lo, hi;
    const gr_vec3 *v; ///< NULL: the box itself
    const uint32_t *idx;
    uint32_t nt;
    gr_mesh_query *query; ///< the mesh's triangles binned
} fill_region;

/* How far p is inside the region (negative outside), exactly up to `limit`. */
static gr_region as_region(const fill_region *R) { return (gr_region){R->lo, R->hi, R->v ? R->query : NULL}; }

static double region_depth(const fill_region *R, gr_vec3 p, double limit)
{
    const gr_region r = as_region(R);
    return gr_region_depth(&r, p, limit);
}

static gr_status validate_fill(const gr_world *w, const gr_fill_def *d, bool box, const char *f)
{
    GR_CHECK(gr_check_enum(w, (uint32_t)d->pattern, 4, f, "def.pattern"));
    if (box) {
        GR_CHECK(gr_check_vec(w, d->min, f, "def.min"));
        GR_CHECK(gr_check_vec(w, d->max, f, "def.max"));
        if (!(d->min.x < d->max.x && d->min.y < d->max.y && d->min.z < d->max.z))
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.min must be below def.max on every axis");
    }
    GR_CHECK(gr_check_positive(w, d->radius, false, f, "def.radius"));
    GR_CHECK(gr_check_positive(w, d->radius_max, true, f, "def.radius_max"));
    if (d->radius_max != 0 && d->radius_max < d->radius)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.radius_max (%g) is below def.radius (%g)", d->radius_max,
                       d->radius);
    if (d->radius > 1e3 || d->radius_max > 1e3)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.radius is absurd (limit 1000 m)");
    double rmax = d->radius_max > 0 ? d->radius_max : d->radius;
    GR_CHECK(gr_check_positive(w, d->spacing, true, f, "def.spacing"));
    if (d->spacing != 0 && d->spacing < 2 * rmax)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.spacing (%g) is below the largest diameter (%g)", d->spacing,
                       2 * rmax);
    GR_CHECK(gr_check_range(w, d->jitter, 0.0, 1.0, f, "def.jitter"));
    GR_CHECK(gr_check_vec(w, d->velocity, f, "def.velocity"));
    if (d->attempts == 0 || d->attempts > 1000000u)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.attempts must be in [1, 1000000] (got %u)", d->attempts);
    if (d->avoid_overlap > 1)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.avoid_overlap must be 0 or 1");
    GR_CHECK(gr_check_system(w, d->system, f, "def.system"));
    if (d->max_count > GR_MAX_GRAINS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "def.max_count exceeds GR_MAX_GRAINS");
    return GR_OK;
}

/* Growing list of grains to add. */
typedef struct init_list {
    gr_grain_init *g;
    uint32_t n, cap;
} init_list;

static bool push(gr_mem *mem, init_list *l, const gr_grain_init *g)
{
    if (l->n == l->cap) {
        uint32_t cap = gr_grow_capacity(l->cap, l->n + 1);
        gr_array_ref a = {(void **)&l->g, sizeof(gr_grain_init)};
        if (!gr_mem_grow_arrays(mem, &a, 1, l->cap, cap, l->n))
            return false;
        l->cap = cap;
    }
    l->g[l->n++] = *g;
    return true;
}

/* A Poisson fill, for the sampler's hooks: each cell tries `attempts` uniform candidates and
 * keeps the first whose sphere is inside the region and overlaps nothing. A mesh region is
 * classified once per cell from its centre's depth (exact distances are O(triangles)). */
typedef struct fill_sampling {
    gr_world *w;
    const gr_fill_def *d;
    const fill_region *R;
    const gr_grid_index *cells;
    fill_grid *grid;
    init_list *list;
    gr_grain_init *g;    ///< the grain being placed (radius drawn per cell)
    uint32_t limit;
    uint32_t clump;
    double rmin, rmax, reach, half_diag;
    bool mesh;
    bool check_each;     ///< the current cell is near the mesh's surface
    gr_status status;
} fill_sampling;

static gr_sample_verdict fill_cell(void *vctx, const int32_t c[3], size_t cell, gr_rng *rng)
{
    (void)cell;
    fill_sampling *s = (fill_sampling *)vctx;
    if (s->list->n >= s->limit)
        return GR_SAMPLE_STOP;
    s->check_each = true;
    if (s->mesh) {
        const double a = s->cells->cell;
        const gr_vec3 centre = v3(s->R->lo.x + a * (c[0] + 0.5), s->R->lo.y + a * (c[1] + 0.5), s->R->lo.z + a * (c[2] + 0.5));
        const double dc = region_depth(s->R, centre, s->half_diag + s->rmax);
        if (dc + s->half_diag < s->rmin)
            return GR_SAMPLE_NO; /* no sphere centred in this cell fits inside */
        s->check_each = dc - s->half_diag < s->rmax;
    }
    s->g->radius = s->rmax > s->rmin ? s->rmin + (s->rmax - s->rmin) * gr_rng_uniform(rng) : s->rmin;
    return GR_SAMPLE_YES;
}

static gr_sample_verdict fill_candidate(void *vctx, const int32_t c[3], size_t cell, gr_vec3 p, gr_rng *rng)
{
    (void)c, (void)cell;
    fill_sampling *s = (fill_sampling *)vctx;
    gr_grain_init *g = s->g;
    g->position = p;
    if ((s->check_each || !s->mesh) && region_depth(s->R, p, g->radius) < g->radius)
        return GR_SAMPLE_NO;
    if (fill_grid_overlaps(s->grid, p, g->radius, s->reach) ||
        (s->d->avoid_overlap && overlaps_body(s->w, p, g->radius)))
        return GR_SAMPLE_NO;
    if (s->clump != GR_INVALID_INDEX)
        g->orientation = random_orientation(rng);
    if (!push(&s->w->mem, s->list, g) || !fill_grid_add(s->grid, p, g->radius)) {
        s->status = GR_ERROR_OUT_OF_MEMORY;
        return GR_SAMPLE_STOP;
    }
    return GR_SAMPLE_YES;
}

/* Most cells the Poisson pattern may visit. */
#define FILL_MAX_POISSON_CELLS 4e8

static gr_status fill(gr_world *w, const gr_fill_def *user, const fill_region *region_in, uint32_t *added,
                      gr_grain *out, uint32_t out_cap, const char *f)
{
    gr_fill_def d;
    GR_CHECK(gr_def_read(w, GR_DEF_FILL, user, &d, f, "def"));
    GR_CHECK(validate_fill(w, &d, region_in == NULL, f));
    if (out_cap > 0 && !out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out_handles is NULL but out_capacity is %u", out_cap);
    uint32_t material, clump;
    GR_CHECK(gr_resolve_material(w, d.material, &material, f));
    GR_CHECK(gr_resolve_grain_shape(w, d.shape, d.clump, &clump, f));
    if (d.reserved1 != 0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.reserved1 must be 0");
    fill_region R = {d.min, d.max, NULL, NULL, 0, NULL};
    if (region_in)
        R = *region_in;
    const bool mesh = R.v != NULL;

    const double rmin = d.radius, rmax = d.radius_max > 0 ? d.radius_max : d.radius;
    const uint32_t limit = d.max_count ? d.max_count : GR_MAX_GRAINS;
    gr_rng rng = {d.seed ? d.seed : w->def.seed ^ (0xd1b54a32d192ed03ull * (w->fill_count + 1))};

    const gr_fill_pattern pattern = d.pattern == GR_FILL_DEFAULT ? GR_FILL_LATTICE : d.pattern;
    double spacing = d.spacing > 0 ? d.spacing : 2.2 * rmax;
    int64_t nsite[3] = {0, 0, 0};
    if (pattern == GR_FILL_LATTICE) {
        double nx = floor((R.hi.x - R.lo.x) / spacing + 1e-9), ny = floor((R.hi.y - R.lo.y) / spacing + 1e-9),
               nz = floor((R.hi.z - R.lo.z) / spacing + 1e-9);
        if (nx * ny * nz > (double)GR_MAX_GRAINS && d.max_count == 0)
            return gr_fail(w, GR_ERROR_TOO_MANY, f, "the lattice has %.3g sites: more than GR_MAX_GRAINS; set max_count",
                           nx * ny * nz);
        nsite[0] = (int64_t)nx;
        nsite[1] = (int64_t)ny;
        nsite[2] = (int64_t)nz;
    }
    /* Poisson: cells whose diagonal is the smallest diameter hold at most one grain */
    gr_grid_index cells = {0};
    if (pattern == GR_FILL_POISSON) {
        double total;
        if (!gr_poisson_cells_fit(R.lo, R.hi, 2.0 * rmin, FILL_MAX_POISSON_CELLS, GR_GRID_Z_SLOWEST, &cells, &total))
            return gr_fail(w, GR_ERROR_TOO_MANY, f, "the Poisson pattern would visit %.3g cells (limit %.3g): the region "
                           "is too large for the radius", total, FILL_MAX_POISSON_CELLS);
    }

    /* spheres to avoid: existing grains near the region (read through the solver) */
    fill_grid grid;
    const double margin = 2 * rmax;
    gr_vec3 glo = v3(R.lo.x - margin, R.lo.y - margin, R.lo.z - margin);
    gr_vec3 ghi = v3(R.hi.x + margin, R.hi.y + margin, R.hi.z + margin);
    if (!fill_grid_init(&grid, &w->mem, glo, ghi, 2 * rmax))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the fill grid failed");
    gr_status s = GR_OK;
    double existing_rmax = 0;
    if (d.avoid_overlap) {
        const gr_grain_table *t = &w->grains;
        for (uint32_t k = 0; k < t->count && s == GR_OK; k++) {
            uint32_t dn = t->dense[t->list[k]];
            const gr_system *owner = gr_grain_system(w, t->list[k]); /* grains of every system */
            double pv[4], rv[4];
            owner->solver->read_field(owner->state, GR_FIELD_POSITION, &dn, 1, pv);
            owner->solver->read_field(owner->state, GR_FIELD_RADIUS, &dn, 1, rv);
            gr_vec3 p = v3(pv[0], pv[1], pv[2]);
            if (p.x < glo.x - rv[0] || p.y < glo.y - rv[0] || p.z < glo.z - rv[0] || p.x > ghi.x + rv[0] ||
                p.y > ghi.y + rv[0] || p.z > ghi.z + rv[0])
                continue;
            if (!fill_grid_add(&grid, p, rv[0]))
                s = GR_ERROR_OUT_OF_MEMORY;
            if (rv[0] > existing_rmax)
                existing_rmax = rv[0];
        }
    }
    init_list list = {NULL, 0, 0};
    const double reach = rmax + GR_MAX(rmax, existing_rmax);
    gr_grain_init g;
    memset(&g, 0, sizeof g);
    g.material = material;
    g.clump = clump;
    g.orientation = quat_identity();
    g.velocity = d.velocity;
    g.slot = GR_INVALID_INDEX;

    if (s == GR_OK && pattern == GR_FILL_LATTICE) {
        const double jit = d.jitter * 0.5 * (spacing - 2 * rmax);
        for (int64_t k = 0; k < nsite[2] && s == GR_OK && list.n < limit; k++)
            for (int64_t j = 0; j < nsite[1] && s == GR_OK && list.n < limit; j++)
                for (int64_t i = 0; i < nsite[0] && s == GR_OK && list.n < limit; i++) {
                    double ux = gr_rng_uniform(&rng), uy = gr_rng_uniform(&rng), uz = gr_rng_uniform(&rng);
                    g.position = v3(R.lo.x + ((double)i + 0.5) * spacing + (2.0 * ux - 1.0) * jit,
                                    R.lo.y + ((double)j + 0.5) * spacing + (2.0 * uy - 1.0) * jit,
                                    R.lo.z + ((double)k + 0.5) * spacing + (2.0 * uz - 1.0) * jit);
                    g.radius = rmax > rmin ? rmin + (rmax - rmin) * gr_rng_uniform(&rng) : rmin;
                    if (clump != GR_INVALID_INDEX)
                        g.orientation = random_orientation(&rng);
                    if (mesh && region_depth(&R, g.position, g.radius) < g.radius)
                        continue; /* box sites are inside by construction */
                    if (d.avoid_overlap &&
                        (overlaps_body(w, g.position, g.radius) || fill_grid_overlaps(&grid, g.position, g.radius, reach)))
                        continue;
                    if (!push(&w->mem, &list, &g))
                        s = GR_ERROR_OUT_OF_MEMORY;
                }
    } else if (s == GR_OK && pattern == GR_FILL_RANDOM) {
        uint32_t misses = 0;
        while (misses < d.attempts && list.n < limit && s == GR_OK) {
            g.radius = rmax > rmin ? rmin + (rmax - rmin) * gr_rng_uniform(&rng) : rmin;
            double ux = gr_rng_uniform(&rng), uy = gr_rng_uniform(&rng), uz = gr_rng_uniform(&rng);
            gr_vec3 span = v3(R.hi.x - R.lo.x - 2 * g.radius, R.hi.y - R.lo.y - 2 * g.radius,
                              R.hi.z - R.lo.z - 2 * g.radius);
            if (span.x < 0 || span.y < 0 || span.z < 0)
                break; /* the region is thinner than a grain */
            g.position = v3(R.lo.x + g.radius + ux * span.x, R.lo.y + g.radius + uy * span.y,
                            R.lo.z + g.radius + uz * span.z);
            if (clump != GR_INVALID_INDEX)
                g.orientation = random_orientation(&rng);
            if ((mesh && region_depth(&R, g.position, g.radius) < g.radius) ||
                fill_grid_overlaps(&grid, g.position, g.radius, reach) ||
                (d.avoid_overlap && overlaps_body(w, g.position, g.radius))) {
                misses++;
                continue;
            }
            misses = 0;
            if (!push(&w->mem, &list, &g) || !fill_grid_add(&grid, g.position, g.radius))
                s = GR_ERROR_OUT_OF_MEMORY;
        }
    } else if (s == GR_OK) {
        fill_sampling fs = {.w = w, .d = &d, .R = &R, .cells = &cells, .grid = &grid, .list = &list, .g = &g,
                            .limit = limit, .clump = clump, .rmin = rmin, .rmax = rmax, .reach = reach,
                            .half_diag = 0.5 * sqrt(3.0) * cells.cell, .mesh = mesh, .status = GR_OK};
        gr_poisson_cells_sample(&cells, d.attempts, &rng, fill_cell, fill_candidate, &fs);
        s = fs.status;
    }
    fill_grid_free(&grid);
    /* a solver with render points samples the whole region for them (not cut short by
     * max_count: then only the grains' own volume is sampled, later) */
    const gr_system *sys = &w->systems[d.system];
    const bool region_points = s == GR_OK && list.n > 0 && sys->solver->fill_region && list.n < limit;
    if (region_points) {
        const gr_region r = as_region(&R);
        s = sys->solver->fill_region(sys->state, &r, list.n, d.velocity);
        if (s != GR_OK) {
            gr_mem_free(&w->mem, list.g, sizeof(gr_grain_init) * list.cap);
            return gr_fail(w, s, f, s == GR_ERROR_OUT_OF_MEMORY ? "allocating the region's render points failed"
                                                                : "the region's render points would be too many");
        }
    }
    if (s == GR_OK && list.n > 0) {
        s = gr_add_resolved_grains(w, d.system, list.g, list.n, out, out_cap, f);
        if (s != GR_OK && region_points)
            sys->solver->fill_region_cancel(sys->state);
    } else if (s != GR_OK)
        s = gr_fail(w, s, f, "allocating scratch for the fill failed");
    uint32_t n = list.n;
    gr_mem_free(&w->mem, list.g, sizeof(gr_grain_init) * list.cap);
    if (s != GR_OK)
        return s;
    w->fill_count++;
    if (added)
        *added = n;
    return GR_OK;
}

GR_API gr_status gr_fill_box(gr_world *w, const gr_fill_def *def, uint32_t *added, gr_grain *out, uint32_t out_cap)
{
    static const char f[] = "gr_fill_box";
    GR_CHECK(gr_check_world(w, f));
    return fill(w, def, NULL, added, out, out_cap, f);
}

GR_API gr_status gr_fill_mesh(gr_world *w, const gr_fill_def *def, const gr_vec3 *vertices, uint32_t vertex_count,
                              const uint32_t *indices, uint32_t triangle_count, uint32_t *added, gr_grain *out,
                              uint32_t out_cap)
{
    static const char f[] = "gr_fill_mesh";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_check_mesh_arrays(w, vertices, vertex_count, indices, triangle_count, f, "vertices", "indices"));
    char err[160];
    const gr_status c = gr_mesh_check_closed(&w->mem, vertices, indices, triangle_count, err, sizeof err);
    if (c == GR_ERROR_OUT_OF_MEMORY)
        return gr_fail(w, c, f, "allocating the mesh check failed");
    if (c != GR_OK)
        return gr_fail(w, c, f, "%s", err);
    gr_mass_props mp;
    gr_mass_props_mesh(vertices, indices, triangle_count, &mp);
    if (!(mp.volume > 0))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "the mesh encloses a negative volume (%g m^3): it is wound "
                       "inside out", mp.volume);
    gr_mesh_query q;
    const gr_status b = gr_mesh_query_build(&q, &w->mem, vertices, indices, triangle_count);
    if (b != GR_OK)
        return gr_fail(w, b, f, b == GR_ERROR_OUT_OF_MEMORY ? "allocating the mesh's grid failed"
                                                           : "the mesh's triangles are too large for its grid");
    fill_region R = {vertices[0], vertices[0], vertices, indices, triangle_count, &q};
    for (uint32_t k = 1; k < vertex_count; k++) {
        const gr_vec3 p = vertices[k];
        R.lo = v3(GR_MIN(R.lo.x, p.x), GR_MIN(R.lo.y, p.y), GR_MIN(R.lo.z, p.z));
        R.hi = v3(GR_MAX(R.hi.x, p.x), GR_MAX(R.hi.y, p.y), GR_MAX(R.hi.z, p.z));
    }
    const gr_status s = fill(w, def, &R, added, out, out_cap, f);
    gr_mesh_query_free(&q);
    return s;
}
