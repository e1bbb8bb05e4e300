/* SPDX-License-Identifier: MIT */
/* Particle-covered bodies (Bell 2005, 3.3): mesh mass properties and distances, the surface
 * covering (count and evenness), free flight, resting contact (force sensing = weight),
 * body-body collisions, kinematic meshes pushing grains, host-owned bodies through the hooks,
 * removal, snapshots and determinism. */
#include <math.h>
#include <stdlib.h>

#include "../lib/bodies/body_shapes.h"
#include "../lib/bodies/body_store.h"
#include "../lib/world/world.h"
#include "../lib/geom/mass_props.h"
#include "../lib/core/vec3.h"
#include "harness.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* In helpers that return a value: a failure ends the test program. */
#define MUST(w, expr)                                                                              \
    do {                                                                                           \
        gr_status s_ = (expr);                                                                     \
        if (s_ != GR_OK) {                                                                         \
            fprintf(stderr, "  FATAL %s:%d %s -> %s (%s)\n", __FILE__, __LINE__, #expr,             \
                    gr_status_string(s_), (w) ? gr_world_last_error(w) : "");                      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- meshes -------------------------------------------------------------------------------- */

static void test_mesh_mass_properties(void)
{
    gr_vec3 v[8];
    uint32_t idx[36];
    const gr_vec3 h = {0.1, 0.2, 0.3}, c = {0.5, -0.25, 2.0};
    tu_box_mesh(h, c, v, idx);
    gr_mass_props mp;
    gr_mass_props_mesh(v, idx, 12, &mp);
    const double vol = 8 * h.x * h.y * h.z;
    CHECK_NEAR(mp.volume, vol, 1e-12);
    CHECK_NEAR(mp.centre.x, c.x, 1e-12);
    CHECK_NEAR(mp.centre.y, c.y, 1e-12);
    CHECK_NEAR(mp.centre.z, c.z, 1e-12);
    CHECK_NEAR(mp.inertia[0][0], vol * (h.y * h.y + h.z * h.z) / 3, 1e-12);
    CHECK_NEAR(mp.inertia[1][1], vol * (h.x * h.x + h.z * h.z) / 3, 1e-12);
    CHECK_NEAR(mp.inertia[2][2], vol * (h.x * h.x + h.y * h.y) / 3, 1e-12);
    CHECK(fabs(mp.inertia[0][1]) < 1e-14 && fabs(mp.inertia[1][2]) < 1e-14 && fabs(mp.inertia[0][2]) < 1e-14);
    /* a fine sphere mesh approaches the sphere (inscribed polyhedron: slightly smaller) */
    gr_vec3 *sv = (gr_vec3 *)malloc(sizeof(gr_vec3) * 20000);
    uint32_t *si = (uint32_t *)malloc(sizeof(uint32_t) * 3 * 40000), snv;
    const uint32_t st = tu_sphere_mesh(0.5, 5, sv, si, &snv);
    gr_mass_props_mesh(sv, si, st, &mp);
    const double sv_exact = 4.0 / 3.0 * PI * 0.125;
    CHECK(mp.volume < sv_exact && mp.volume > 0.995 * sv_exact);
    CHECK_NEAR(mp.inertia[1][1] / mp.volume, 0.4 * 0.25, 0.01 * 0.1);
    CHECK(fabs(mp.centre.x) < 1e-12 && fabs(mp.centre.y) < 1e-12);
    /* inside out: negative volume */
    for (uint32_t k = 0; k < 12; k++) {
        uint32_t t = idx[3 * k + 1];
        idx[3 * k + 1] = idx[3 * k + 2];
        idx[3 * k + 2] = t;
    }
    gr_mass_props_mesh(v, idx, 12, &mp);
    CHECK_NEAR(mp.volume, -vol, 1e-12);
    free(sv);
    free(si);
}

static gr_world *make_world(unsigned workers, gr_vec3 gravity)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    def.gravity = gravity;
    gr_world *w = NULL;
    MUST(NULL, gr_world_create(&def, &w));
    return w;
}

static gr_material steel(gr_world *w)
{
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 1000;
    md.youngs_modulus = 5e6;
    md.restitution = 0.3;
    gr_material m;
    MUST(w, gr_add_material(w, &md, &m));
    return m;
}

/* Mesh bodies: mass from the mesh, distance sign from the winding number, fills avoid them. */
static void test_mesh_body_queries(void)
{
    gr_world *w = make_world(1, v3(0, -9.81, 0));
    gr_vec3 v[8];
    uint32_t idx[36];
    tu_box_mesh(v3(0.05, 0.04, 0.03), v3(0.01, 0, 0), v, idx);
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_MESH;
    d.motion = GR_MOTION_DYNAMIC;
    d.mesh_vertices = v;
    d.mesh_indices = idx;
    d.mesh_vertex_count = 8;
    d.mesh_triangle_count = 12;
    d.material = steel(w);
    d.particle_radius = 0.004;
    d.position = v3(0, 1, 0);
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &d, &b));
    double m = 0;
    CHECK_OK(w, gr_body_get_mass(w, b, &m));
    CHECK_NEAR(m, 1000 * 0.1 * 0.08 * 0.06, 1e-12);
    /* the store's copy of the mesh answers distances */
    uint32_t slot = (uint32_t)(b.id & 0xffffffffu) & 0xffffffu;
    (void)slot;
    const gr_body_data *bd = NULL;
    for (uint32_t k = 0; k < w->bodies.slot_count; k++)
        if (w->bodies.alive[k] && w->bodies.data[k].shape == GR_SHAPE_MESH)
            bd = &w->bodies.data[k];
    CHECK(bd != NULL);
    CHECK_NEAR(bd->com.x, 0.01, 1e-12);
    CHECK_NEAR(gr_body_distance(bd, v3(0.01, 1, 0)), -0.03, 1e-12);       /* centre: inside */
    CHECK_NEAR(gr_body_distance(bd, v3(0.01, 1.14, 0)), 0.1, 1e-12);      /* above the top face */
    CHECK_NEAR(gr_body_distance(bd, v3(0.07, 1.0, 0.0)), 0.01, 1e-12);    /* beside +x */
    CHECK_NEAR(gr_body_distance(bd, v3(0.05, 1.0, 0.0)), -0.01, 1e-12);   /* inside near +x */
    /* a fill around it leaves it empty */
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = v3(-0.1, 0.9, -0.1);
    fd.max = v3(0.1, 1.1, 0.1);
    fd.radius = 0.005;
    uint32_t added = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &added, NULL, 0));
    CHECK(added > 1000);
    double *p = (double *)malloc(sizeof(double) * 3 * added);
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, added, p, 0));
    int inside = 0;
    for (uint32_t k = 0; k < added; k++)
        inside += gr_body_distance(bd, v3(p[3 * k], p[3 * k + 1], p[3 * k + 2])) < 0.005;
    CHECK(inside == 0);
    free(p);
    gr_world_destroy(w);
}

/* ---- the covering --------------------------------------------------------------------------- */

typedef struct cover_stats {
    uint32_t count;
    double max_surface_error; ///< |distance to the surface - offset| / r
    double min_spacing;       ///< nearest-neighbour distance / r, smallest
    double mean_spacing;      ///< nearest-neighbour distance / r, mean
    double largest_hole;      ///< farthest any surface point is from a particle centre / r
} cover_stats;

/* Points on a sphere's surface (Fibonacci lattice) or a box's faces (grids), body frame. */
static uint32_t sphere_samples(double R, gr_vec3 *out, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        const double z = 1 - 2 * (k + 0.5) / n, a = k * 2.399963229728653, s = sqrt(1 - z * z);
        out[k] = v3(R * s * cos(a), R * z, R * s * sin(a));
    }
    return n;
}

static uint32_t box_samples(gr_vec3 h, gr_vec3 *out)
{
    const int N = 40;
    uint32_t n = 0;
    for (int face = 0; face < 6; face++) {
        const int ax = face / 2, o0 = (ax + 1) % 3, o1 = (ax + 2) % 3;
        for (int i = 0; i <= N; i++)
            for (int j = 0; j <= N; j++) {
                double q[3], hh[3] = {h.x, h.y, h.z};
                q[ax] = (face % 2 ? 1 : -1) * hh[ax];
                q[o0] = -hh[o0] + 2 * hh[o0] * i / N;
                q[o1] = -hh[o1] + 2 * hh[o1] * j / N;
                out[n++] = v3(q[0], q[1], q[2]);
            }
    }
    return n;
}

static cover_stats covering(gr_world *w, gr_body b, double r, double (*surface)(gr_vec3 p, const void *u),
                            const void *u, const gr_vec3 *samples, uint32_t nsamples)
{
    cover_stats s = {0, 0, INFINITY, 0, 0};
    s.count = gr_body_get_particle_count(w, b);
    float *p = (float *)malloc(sizeof(float) * 4 * s.count);
    MUST(w, gr_read_body_particles(w, b, 0, s.count, p, 0));
    gr_vec3 pos;
    gr_quat q_;
    MUST(w, gr_body_get_pose(w, b, &pos, &q_));
    for (uint32_t i = 0; i < s.count; i++) {
        const gr_vec3 pi = quat_rotate_inv(q_, v3_sub(v3(p[4 * i], p[4 * i + 1], p[4 * i + 2]), pos));
        s.max_surface_error = fmax(s.max_surface_error, fabs(surface(pi, u)) / r);
        double best = INFINITY;
        for (uint32_t j = 0; j < s.count; j++)
            if (j != i) {
                const double dx = p[4 * i] - p[4 * j], dy = p[4 * i + 1] - p[4 * j + 1], dz = p[4 * i + 2] - p[4 * j + 2];
                best = fmin(best, sqrt(dx * dx + dy * dy + dz * dz));
            }
        s.min_spacing = fmin(s.min_spacing, best / r);
        s.mean_spacing += best / r / s.count;
    }
    /* holes: a grain of radius r_g slips through where the nearest centre is r + r_g away */
    for (uint32_t k = 0; k < nsamples; k++) {
        const gr_vec3 q = v3_add(pos, quat_rotate(q_, samples[k]));
        double best = INFINITY;
        for (uint32_t j = 0; j < s.count; j++)
            best = fmin(best, v3_len(v3_sub(q, v3(p[4 * j], p[4 * j + 1], p[4 * j + 2]))));
        s.largest_hole = fmax(s.largest_hole, best / r);
    }
    free(p);
    return s;
}

static double sphere_surface(gr_vec3 p, const void *u) { return v3_len(p) - *(const double *)u; }

static double box_surface(gr_vec3 p, const void *u)
{
    const gr_vec3 h = *(const gr_vec3 *)u;
    const gr_vec3 d = v3(fabs(p.x) - h.x, fabs(p.y) - h.y, fabs(p.z) - h.z);
    const gr_vec3 o = v3(fmax(d.x, 0), fmax(d.y, 0), fmax(d.z, 0));
    return v3_len(o) + fmin(fmax(d.x, fmax(d.y, d.z)), 0.0);
}

/* The box's offset surface at half a particle radius (0.005 m): rounded edges and corners. */
static double box_offset_surface(gr_vec3 p, const void *u) { return box_surface(p, u) - 0.005; }

static void test_surface_covering(void)
{
    gr_world *w = make_world(1, v3(0, 0, 0));
    /* sphere: Bell's count floor(D A / (pi r^2)) (+1 with the fractional probability) */
    const double R = 0.1, r = 0.01;
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_SPHERE;
    d.motion = GR_MOTION_DYNAMIC;
    d.radius = R;
    d.particle_radius = r;
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &d, &b));
    gr_vec3 *samples = (gr_vec3 *)malloc(sizeof(gr_vec3) * 6 * 41 * 41);
    uint32_t ns = sphere_samples(R, samples, 4000);
    cover_stats s = covering(w, b, r, sphere_surface, &R, samples, ns);
    printf("  sphere: %u particles, surface error %.3f r, spacing min %.2f r mean %.2f r, largest hole %.2f r\n",
           s.count, s.max_surface_error, s.min_spacing, s.mean_spacing, s.largest_hole);
    CHECK(s.largest_hole < 1.6); /* nothing of the particles' size slips through */
    CHECK(s.count == 400 || s.count == 401);
    CHECK(s.max_surface_error < 0.02);
    CHECK(s.min_spacing > 1.0);                            /* the floaters spread them */
    CHECK(s.mean_spacing > 1.5 && s.mean_spacing < 2.0);  /* a hexagonal D=1 cover: 1.9 r */
    /* density 2 doubles the count */
    d.particle_density = 2;
    d.position = v3(1, 0, 0);
    gr_body b2;
    CHECK_OK(w, gr_add_body(w, &d, &b2));
    CHECK(gr_body_get_particle_count(w, b2) == 800 || gr_body_get_particle_count(w, b2) == 801);
    /* a box mesh, through the signed-distance grid */
    gr_vec3 v[8];
    uint32_t idx[36];
    const gr_vec3 h = {0.08, 0.05, 0.06};
    tu_box_mesh(h, v3(0, 0, 0), v, idx);
    gr_body_def md;
    gr_body_def_init(&md);
    md.shape = GR_SHAPE_MESH;
    md.mesh_vertices = v;
    md.mesh_indices = idx;
    md.mesh_vertex_count = 8;
    md.mesh_triangle_count = 12;
    md.particle_radius = r;
    md.position = v3(-1, 0, 0);
    md.orientation = quat_normalize((gr_quat){0.2, 0.3, 0.1, 1});
    gr_body mb;
    CHECK_OK(w, gr_add_body(w, &md, &mb));
    ns = box_samples(h, samples);
    s = covering(w, mb, r, box_surface, &h, samples, ns);
    const double area = 8 * (h.x * h.y + h.y * h.z + h.x * h.z), expect = area / (PI * r * r);
    printf("  box mesh: %u particles (expected %.1f), surface error %.3f r, spacing min %.2f r mean %.2f r, "
           "largest hole %.2f r\n", s.count, expect, s.max_surface_error, s.min_spacing, s.mean_spacing,
           s.largest_hole);
    CHECK(s.largest_hole < 1.6);
    CHECK(fabs(s.count - expect) <= 12); /* one fractional draw per triangle */
    CHECK(s.max_surface_error < 0.15);   /* trilinear grid of cell r; edges are rounded */
    CHECK(s.min_spacing > 0.8);
    /* an offset moves the particles off the surface */
    md.particle_offset = 0.5 * r;
    md.position = v3(-2, 0, 0);
    gr_body ob;
    CHECK_OK(w, gr_add_body(w, &md, &ob));
    s = covering(w, ob, r, box_offset_surface, &h, NULL, 0);
    printf("  offset box mesh: surface error %.3f r\n", s.max_surface_error);
    CHECK(s.max_surface_error < 0.15);
    free(samples);
    gr_world_destroy(w);
}

/* ---- dynamics --------------------------------------------------------------------------------- */

static gr_body add_dynamic_box(gr_world *w, gr_vec3 pos, gr_vec3 h, double r, gr_material m)
{
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_BOX;
    d.motion = GR_MOTION_DYNAMIC;
    d.half_extents = h;
    d.particle_radius = r;
    d.position = pos;
    d.material = m;
    gr_body b;
    MUST(w, gr_add_body(w, &d, &b));
    return b;
}

/* Flight without contacts: the exact parabola (velocity Verlet is exact for constant g), and
 * the spin carries on. */
static void test_free_flight(void)
{
    gr_world *w = make_world(1, v3(0, -9.81, 0));
    gr_body b = add_dynamic_box(w, v3(0, 10, 0), v3(0.1, 0.05, 0.08), 0.01, steel(w));
    CHECK_OK(w, gr_body_set_velocity(w, b, v3(1, 2, 0), v3(0, 0, 3)));
    for (int k = 0; k < 50; k++)
        CHECK_OK(w, gr_step(w, 0.01));
    gr_vec3 p, v, om;
    CHECK_OK(w, gr_body_get_pose(w, b, &p, NULL));
    CHECK_OK(w, gr_body_get_velocity(w, b, &v, &om));
    CHECK_NEAR(p.x, 0.5, 1e-9);
    CHECK_NEAR(p.y, 10 + 2 * 0.5 - 0.5 * 9.81 * 0.25, 1e-9);
    CHECK_NEAR(v.y, 2 - 9.81 * 0.5, 1e-9);
    CHECK_NEAR(om.z, 3, 1e-9); /* about a principal axis: steady */
    gr_vec3 f;
    CHECK_OK(w, gr_body_get_force(w, b, &f, NULL));
    CHECK(v3_len(f) == 0);
    gr_world_destroy(w);
}

static gr_body add_floor(gr_world *w)
{
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_PLANE;
    gr_body b;
    MUST(w, gr_add_body(w, &d, &b));
    return b;
}

/* A box dropped on the floor comes to rest; the force the floor puts on it is its weight. */
static void test_body_rests_on_floor(void)
{
    gr_world *w = make_world(1, v3(0, -9.81, 0));
    add_floor(w);
    const gr_vec3 h = {0.05, 0.03, 0.04};
    gr_body b = add_dynamic_box(w, v3(0, 0.1, 0), h, 0.005, steel(w));
    double m;
    CHECK_OK(w, gr_body_get_mass(w, b, &m));
    for (int k = 0; k < 100; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_vec3 p, v, f;
    CHECK_OK(w, gr_body_get_pose(w, b, &p, NULL));
    CHECK_OK(w, gr_body_get_velocity(w, b, &v, NULL));
    CHECK_OK(w, gr_body_get_force(w, b, &f, NULL));
    printf("  rest at y = %.5f (half height %.3f), |v| = %.2e, force (%.4f %.4f %.4f), weight %.4f\n", p.y, h.y,
           v3_len(v), f.x, f.y, f.z, m * 9.81);
    CHECK_NEAR(p.y, h.y + 0.005, 0.001); /* particle centres on the surface: it stands on their radius */
    CHECK(v3_len(v) < 1e-3);
    CHECK_NEAR(f.y, m * 9.81, 0.02 * m * 9.81);
    gr_world_destroy(w);
}

/* Two bodies collide head on: momentum is exchanged exactly and they bounce apart. */
static void test_bodies_collide(void)
{
    gr_world *w = make_world(1, v3(0, 0, 0));
    gr_material m = steel(w);
    gr_body a = add_dynamic_box(w, v3(-0.2, 0, 0), v3(0.05, 0.05, 0.05), 0.01, m);
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_SPHERE;
    d.motion = GR_MOTION_DYNAMIC;
    d.radius = 0.06;
    d.particle_radius = 0.01;
    d.material = m;
    d.position = v3(0.2, 0.01, 0);
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &d, &b));
    CHECK_OK(w, gr_body_set_velocity(w, a, v3(1, 0, 0), v3(0, 0, 0)));
    CHECK_OK(w, gr_body_set_velocity(w, b, v3(-0.5, 0, 0), v3(0, 0, 0)));
    double ma, mb;
    CHECK_OK(w, gr_body_get_mass(w, a, &ma));
    CHECK_OK(w, gr_body_get_mass(w, b, &mb));
    const double p0 = ma * 1 - mb * 0.5;
    double fpeak = 0;
    for (int k = 0; k < 60; k++) {
        CHECK_OK(w, gr_step(w, 0.01));
        gr_vec3 f;
        CHECK_OK(w, gr_body_get_force(w, a, &f, NULL));
        fpeak = fmax(fpeak, v3_len(f));
    }
    gr_vec3 va, vb, pa, pb;
    CHECK_OK(w, gr_body_get_velocity(w, a, &va, NULL));
    CHECK_OK(w, gr_body_get_velocity(w, b, &vb, NULL));
    CHECK_OK(w, gr_body_get_pose(w, a, &pa, NULL));
    CHECK_OK(w, gr_body_get_pose(w, b, &pb, NULL));
    printf("  after: va %.3f vb %.3f (momentum %.6f -> %.6f), peak force %.1f N\n", va.x, vb.x, p0,
           ma * va.x + mb * vb.x, fpeak);
    CHECK(fpeak > 0);
    CHECK(vb.x > va.x);                     /* separating */
    CHECK(pb.x - pa.x > 0.05 + 0.06);       /* apart */
    CHECK_NEAR(ma * va.x + mb * vb.x, p0, 1e-9 * (ma + mb));
    CHECK(fabs(ma * va.y + mb * vb.y) < 1e-9 * (ma + mb));
    gr_world_destroy(w);
}

/* ---- with grains ------------------------------------------------------------------------------- */

/* Principal moments of a solid box of mass m and half extents h about its centre. */
static gr_vec3 solid_box_inertia(double m, gr_vec3 h)
{
    return v3(m * (h.y * h.y + h.z * h.z) / 3, m * (h.x * h.x + h.z * h.z) / 3, m * (h.x * h.x + h.y * h.y) / 3);
}

static gr_body sand_bed(gr_world *w, double half, double r, uint32_t n)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = v3(half, half, half);
    bd.position = v3(0, half, 0);
    gr_body box;
    MUST(w, gr_add_body(w, &bd, &box));
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = v3(-half, 0, -half);
    fd.max = v3(half, 2 * half, half);
    fd.radius = r;
    fd.max_count = n;
    MUST(w, tu_material_as_built(w, &fd.material)); /* (PBD's 0.6 / 0.5, as the tests were tuned) */
    MUST(w, gr_fill_box(w, &fd, NULL, NULL, 0));
    for (int k = 0; k < 40; k++)
        MUST(w, gr_step(w, 1.0 / 60));
    return box;
}

/* Average of a body's sensed force over `steps` steps of dt. */
static gr_vec3 mean_force(gr_world *w, gr_body b, int steps, double dt)
{
    gr_vec3 sum = {0, 0, 0};
    for (int k = 0; k < steps; k++) {
        MUST(w, gr_step(w, dt));
        gr_vec3 f;
        MUST(w, gr_body_get_force(w, b, &f, NULL));
        sum = v3_add(sum, f);
    }
    return v3_scale(sum, 1.0 / steps);
}

/* A crate dropped on a sand bed sinks in a little and rests: the sand carries its weight. */
static void test_body_on_sand_weight(void)
{
    gr_world *w = make_world(2, v3(0, -9.81, 0));
    sand_bed(w, 0.06, 0.004, 1500);
    const gr_vec3 h = {0.03, 0.02, 0.03};
    gr_body b = add_dynamic_box(w, v3(0, 0.11, 0), h, 0.004, steel(w));
    double m;
    CHECK_OK(w, gr_body_get_mass(w, b, &m));
    for (int k = 0; k < 60; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    const gr_vec3 f = mean_force(w, b, 30, 1.0 / 60);
    gr_vec3 p, v;
    CHECK_OK(w, gr_body_get_pose(w, b, &p, NULL));
    CHECK_OK(w, gr_body_get_velocity(w, b, &v, NULL));
    printf("  crate on sand: y = %.4f, |v| = %.2e, force %.4f N vs weight %.4f N (%.2f%%)\n", p.y, v3_len(v), f.y,
           m * 9.81, 100 * (f.y / (m * 9.81) - 1));
    CHECK(p.y > 0.03 && p.y < 0.12); /* on the bed, not through it */
    CHECK_NEAR(f.y, m * 9.81, 0.02 * m * 9.81);
    gr_world_destroy(w);
}

/* A kinematic mesh blade sweeps grains ahead of it; the grains push back on it. */
static void test_kinematic_mesh_pushes(void)
{
    gr_world *w = make_world(2, v3(0, -9.81, 0));
    add_floor(w);
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = v3(0, 0, -0.04);
    fd.max = v3(0.1, 0.03, 0.04);
    fd.radius = 0.004;
    uint32_t n = 0;
    CHECK_OK(w, gr_fill_box(w, &fd, &n, NULL, 0));
    for (int k = 0; k < 20; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_vec3 v[8];
    uint32_t idx[36];
    tu_box_mesh(v3(0.01, 0.04, 0.06), v3(0, 0, 0), v, idx);
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_MESH;
    d.motion = GR_MOTION_KINEMATIC;
    d.mesh_vertices = v;
    d.mesh_indices = idx;
    d.mesh_vertex_count = 8;
    d.mesh_triangle_count = 12;
    d.particle_radius = 0.004;
    d.position = v3(-0.03, 0.04, 0);
    d.linear_velocity = v3(0.3, 0, 0);
    gr_body blade;
    CHECK_OK(w, gr_add_body(w, &d, &blade));
    double *p = (double *)malloc(sizeof(double) * 3 * n);
    double fx = 0;
    for (int k = 0; k < 30; k++) {
        CHECK_OK(w, gr_step(w, 1.0 / 60));
        gr_vec3 f;
        CHECK_OK(w, gr_body_get_force(w, blade, &f, NULL));
        fx += f.x / 30;
    }
    gr_vec3 bp;
    CHECK_OK(w, gr_body_get_pose(w, blade, &bp, NULL));
    CHECK_NEAR(bp.x, -0.03 + 0.3 * 0.5, 1e-9); /* kinematic: unaffected */
    CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, p, 0));
    int behind = 0;
    for (uint32_t k = 0; k < n; k++)
    {
        /* left behind inside the blade's sweep (grains that flowed round its ends do not count) */
        behind += p[3 * k] < bp.x - 0.01 && p[3 * k + 1] < 0.04 && fabs(p[3 * k + 2]) < 0.05;
    }
    printf("  blade at x = %.3f: %d of %u grains behind it, mean force x %.4f N\n", bp.x, behind, n, fx);
    CHECK(behind < (int)n / 20);
    CHECK(fx < 0); /* the grains resist */
    free(p);
    gr_world_destroy(w);
}

/* ---- host-owned bodies -------------------------------------------------------------------------- */

typedef struct host_crate {
    double mass;
    gr_vec3 inertia; ///< of a box about its centre (diagonal, body = world axes: no rotation here)
    gr_vec3 x, v, omega;
    gr_quat q;
    double dt;
    gr_vec3 last_impulse;
    int calls_get, calls_apply;
} host_crate;

static void host_get_state(gr_body body, void *user_data, gr_host_body_state *s, void *user)
{
    (void)body;
    (void)user;
    host_crate *c = (host_crate *)user_data;
    s->position = c->x;
    s->orientation = c->q;
    s->linear_velocity = c->v;
    s->angular_velocity = c->omega;
    c->calls_get++;
}

/* The host's own integrator: semi-implicit Euler with gravity and the sand's impulse. */
static void host_apply(gr_body body, void *user_data, gr_vec3 impulse, gr_vec3 angular, void *user)
{
    (void)body;
    (void)user;
    host_crate *c = (host_crate *)user_data;
    c->last_impulse = impulse;
    c->v = v3_add(c->v, v3_add(v3_scale(impulse, 1.0 / c->mass), v3(0, -9.81 * c->dt, 0)));
    c->omega = v3_add(c->omega, v3(angular.x / c->inertia.x, angular.y / c->inertia.y, angular.z / c->inertia.z));
    c->x = v3_madd(c->x, c->v, c->dt);
    c->q = quat_integrate(c->q, c->omega, c->dt);
    c->calls_apply++;
}

static void test_host_body_on_sand(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = 2;
    def.host.get_state = host_get_state;
    def.host.apply_impulse = host_apply;
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    sand_bed(w, 0.06, 0.004, 1500);
    const gr_vec3 h = {0.03, 0.02, 0.03};
    host_crate c;
    memset(&c, 0, sizeof c);
    c.mass = 1000 * 8 * h.x * h.y * h.z;
    c.inertia = solid_box_inertia(c.mass, h);
    c.x = v3(0, 0.11, 0);
    c.q = quat_identity();
    c.dt = 1.0 / 120;
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_BOX;
    d.motion = GR_MOTION_HOST;
    d.half_extents = h;
    d.particle_radius = 0.004;
    d.position = c.x;
    d.material = steel(w);
    d.user_data = &c;
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &d, &b));
    /* the host owns the pose */
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_pose(w, b, v3(0, 1, 0), quat_identity()));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_velocity(w, b, v3(0, 1, 0), v3(0, 0, 0)));
    double m;
    CHECK_OK(w, gr_body_get_mass(w, b, &m));
    CHECK_NEAR(m, c.mass, 1e-12);
    for (int k = 0; k < 120; k++)
        CHECK_OK(w, gr_step(w, c.dt));
    gr_vec3 sum = {0, 0, 0};
    for (int k = 0; k < 60; k++) {
        CHECK_OK(w, gr_step(w, c.dt));
        sum = v3_add(sum, c.last_impulse);
    }
    const double fy = sum.y / (60 * c.dt);
    gr_vec3 p;
    CHECK_OK(w, gr_body_get_pose(w, b, &p, NULL));
    printf("  host crate: y = %.4f (host %.4f), |v| = %.2e, sand force %.4f N vs weight %.4f N (%.2f%%)\n", p.y, c.x.y,
           v3_len(c.v), fy, c.mass * 9.81, 100 * (fy / (c.mass * 9.81) - 1));
    CHECK(c.calls_get == 180 && c.calls_apply == 180);
    CHECK(c.x.y > 0.03 && c.x.y < 0.12);
    CHECK(v3_len(c.v) < 0.01);
    CHECK_NEAR(fy, c.mass * 9.81, 0.02 * c.mass * 9.81);
    /* a bad state from the host is refused before anything moves */
    const double t = gr_world_get_time(w);
    c.x.y = NAN;
    CHECK_STATUS(GR_ERROR_NOT_FINITE, gr_step(w, c.dt));
    CHECK(gr_world_get_time(w) == t);
    gr_world_destroy(w);
}

/* ---- host-owned bodies of the engine's mass ------------------------------------------------------ */

/* A stand-in engine body integrated as engines do (examples/host_body.c): symplectic Euler at
 * the frame rate, v += J/m + g dt, w += R I^-1 R^T L, then x += v dt, q turned by w dt. */
typedef struct engine_box {
    double mass;
    gr_vec3 inertia; ///< principal moments, body axes
    gr_vec3 x, v, w;
    gr_quat q;
    double dt;
    gr_vec3 impulse; ///< the last one received
} engine_box;

static void engine_get(gr_body body, void *user_data, gr_host_body_state *s, void *user)
{
    (void)body;
    (void)user;
    const engine_box *e = (const engine_box *)user_data;
    *s = (gr_host_body_state){e->x, e->q, e->v, e->w};
}

static void engine_apply(gr_body body, void *user_data, gr_vec3 impulse, gr_vec3 angular, void *user)
{
    (void)body;
    (void)user;
    engine_box *e = (engine_box *)user_data;
    e->impulse = impulse;
    e->v = v3_add(e->v, v3_add(v3_scale(impulse, 1.0 / e->mass), v3(0, -9.81 * e->dt, 0)));
    const gr_vec3 l = quat_rotate_inv(e->q, angular);
    e->w = v3_add(e->w, quat_rotate(e->q, v3(l.x / e->inertia.x, l.y / e->inertia.y, l.z / e->inertia.z)));
    e->x = v3_madd(e->x, e->v, e->dt);
    e->q = quat_integrate(e->q, e->w, e->dt);
}

/* A settled sand bed in a world with the engine's hooks, saved (each mass ratio starts from it). */
static void engine_world(gr_solver_kind solver, gr_world **out)
{
    gr_world_def def;
    gr_world_def_init(&def, solver);
    def.worker_count = 2;
    def.host.get_state = engine_get;
    def.host.apply_impulse = engine_apply;
    MUST(NULL, gr_world_create(&def, out));
}

/* A host-owned box whose engine mass is `ratio` x density x volume rests on sand in both
 * solvers once the library takes the engine's mass (issue 19: with the library's own mass
 * the two fought, the box jittered, bounced and spun forever). After settling, over the last
 * second its speed and spin stay small (no bounce) and the impulses it receives average to
 * its weight. Ratio 2 starts with the shape's mass and is told the engine's by
 * gr_body_set_mass_properties (engines change masses); ratio 0.5 gives its inertia explicitly. */
static void host_body_engine_mass(int sv)
{
    static const double ratios[] = {0.1, 0.5, 1, 2, 10};
    static const gr_solver_kind solvers[] = {GR_SOLVER_DEM, GR_SOLVER_PBD};
    const gr_vec3 h = {0.025, 0.015, 0.025};
    const double rho = 2500, dt = 1.0 / 60; /* the sand's density: ratio 0.1 is a light wooden crate */
    {
        gr_world *w;
        engine_world(solvers[sv], &w);
        sand_bed(w, 0.05, 0.006, 450);
        double top = 0;
        {
            const uint32_t n = gr_world_get_grain_count(w);
            double *pos = (double *)malloc(sizeof(double) * 3 * n);
            MUST(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, pos, 0));
            for (uint32_t i = 0; i < n; i++)
                top = fmax(top, pos[3 * i + 1]);
            free(pos);
        }
        tu_stream bed;
        tu_stream_init(&bed);
        MUST(w, gr_world_save(w, tu_stream_write, &bed));
        gr_world_destroy(w);
        for (int k = 0; k < 5; k++) {
            const double ratio = ratios[k];
            engine_world(solvers[sv], &w);
            bed.pos = 0;
            CHECK_OK(w, gr_world_load(w, tu_stream_read, &bed));
            gr_material_def md;
            gr_material_def_init(&md);
            md.density = rho;
            gr_material mat;
            CHECK_OK(w, gr_add_material(w, &md, &mat));
            const double shape_mass = rho * 8 * h.x * h.y * h.z;
            engine_box e;
            memset(&e, 0, sizeof e);
            e.mass = ratio * shape_mass;
            e.inertia = solid_box_inertia(e.mass, h);
            e.x = v3(0.004, top + 0.011 + h.y + 0.002, -0.003); /* just above the grains */
            e.q = quat_normalize((gr_quat){0.03, 0, 0.02, 1});
            e.dt = dt;
            gr_body_def d;
            gr_body_def_init(&d);
            d.shape = GR_SHAPE_BOX;
            d.motion = GR_MOTION_HOST;
            d.half_extents = h;
            d.particle_radius = 0.005;
            d.position = e.x;
            d.orientation = e.q;
            d.material = mat;
            d.user_data = &e;
            const bool later = ratio == 2;
            d.mass = later ? 0 : e.mass;
            if (ratio == 0.5)
                d.inertia = e.inertia;
            gr_body b;
            CHECK_OK(w, gr_add_body(w, &d, &b));
            double m;
            CHECK_OK(w, gr_body_get_mass(w, b, &m));
            CHECK_NEAR(m, later ? shape_mass : e.mass, 1e-12 * e.mass);
            const int settle = 75, measured = 60;
            double vmax = 0, wmax = 0, ylo = INFINITY, yhi = -INFINITY, land_x = 0, land_q = 0;
            gr_vec3 sum = {0, 0, 0};
            for (int f = 0; f < settle + measured; f++) {
                if (later && f == 10) {
                    CHECK_OK(w, gr_body_set_mass_properties(w, b, e.mass, v3(0, 0, 0), quat_identity()));
                    CHECK_OK(w, gr_body_get_mass(w, b, &m));
                    CHECK_NEAR(m, e.mass, 1e-12 * e.mass);
                }
                CHECK_OK(w, gr_step(w, dt));
                if (f >= settle) { /* resting: the engine lands its body where the library moved it
                                    * (in the air it keeps its own free fall: body_host.c) */
                    gr_vec3 xl;
                    gr_quat ql;
                    CHECK_OK(w, gr_body_get_pose(w, b, &xl, &ql));
                    land_x = fmax(land_x, v3_len(v3_sub(xl, e.x)));
                    const double dm = hypot(hypot(ql.x - e.q.x, ql.y - e.q.y), hypot(ql.z - e.q.z, ql.w - e.q.w));
                    const double dp = hypot(hypot(ql.x + e.q.x, ql.y + e.q.y), hypot(ql.z + e.q.z, ql.w + e.q.w));
                    land_q = fmax(land_q, fmin(dm, dp)); /* (q and -q: the same turn) */
                }
                if (f >= settle) {
                    ylo = fmin(ylo, e.x.y);
                    yhi = fmax(yhi, e.x.y);
                    vmax = fmax(vmax, v3_len(e.v));
                    wmax = fmax(wmax, v3_len(e.w));
                    sum = v3_add(sum, e.impulse);
                }
            }
            gr_vec3 inertia;
            gr_quat rot;
            CHECK_OK(w, gr_body_get_mass_properties(w, b, &m, &inertia, &rot));
            for (int a = 0; a < 3; a++) { /* the tensor R diag(inertia) R^T is the engine's */
                const gr_vec3 ea = v3(a == 0, a == 1, a == 2), l = quat_rotate_inv(rot, ea);
                const gr_vec3 t = quat_rotate(rot, v3(l.x * inertia.x, l.y * inertia.y, l.z * inertia.z));
                const gr_vec3 want = v3_scale(ea, v3_get(e.inertia, a));
                CHECK(v3_len(v3_sub(t, want)) < 1e-9 * v3_len(e.inertia));
            }
            const double fy = sum.y / (measured * dt), weight = e.mass * 9.81;
            printf("  %s, engine mass %4.1f x shape: y = %.4f (bed top %.4f), last second max |v| %.2e m/s, "
                   "max |w| %.2e rad/s, height range %.2e m, sand force %.2f%% of the weight\n",
                   sv ? "pbd" : "dem", ratio, e.x.y, top, vmax, wmax, yhi - ylo, 100 * fy / weight);
            printf("    the engine's pose off the library's by at most %.2e m, %.2e (|q - q'|)\n", land_x, land_q);
            /* (A position-based box of a tenth of its shape's mass bounced off the sand while
             * the PBD solver moved bodies by shape matching; as a rigid body of the solve it
             * floats: issue 20.) */
            /* exactly: the orientation too (the angular impulse in the inertia frame the engine
             * applies it in: with the end pose's, a turning box landed 1e-5 off every frame) */
            CHECK(land_x < 1e-12 && land_q < 1e-12);
            CHECK(e.x.y > h.y); /* not through the floor */
            CHECK(e.x.y < top + 0.011 + h.y + 0.002);
            CHECK_NEAR(fy, weight, 0.03 * weight);
            /* at rest: it neither bounces nor spins. (Position-based: not yet: a host-owned
             * box trembles at cm/s even at ratio 1, where a dynamic one of the same density
             * rests; the report of issue 19 says so. Its sand force is checked above.) */
            if (!sv) {
                CHECK(yhi - ylo < 1e-4);
                CHECK(vmax < 2e-3);
                CHECK(wmax < 2e-2);
            }
            gr_world_destroy(w);
        }
        tu_stream_free(&bed);
    }
}

/* A host-owned box falling through the air, far from the sand, falls at g in the engine: the
 * impulse handed over is zero. (Landing the engine's body where the library's integrator put
 * it handed it an upward m g (dt^2 - fall) / dt every frame: it fell at g / 2 in the DEM and
 * at 3 g / 4 in the PBD at two substeps a frame.) */
static void host_body_free_fall(int sv)
{
    gr_world *w;
    engine_world(sv ? GR_SOLVER_PBD : GR_SOLVER_DEM, &w);
    sand_bed(w, 0.05, 0.006, 200);
    const gr_vec3 h = {0.025, 0.015, 0.025};
    engine_box e;
    memset(&e, 0, sizeof e);
    e.mass = 2500 * 8 * h.x * h.y * h.z;
    e.inertia = solid_box_inertia(e.mass, h);
    e.x = v3(1.0, 30.0, 0); /* beside the bed, high up */
    e.q = quat_normalize((gr_quat){0.1, 0.2, 0.05, 1});
    e.w = v3(0.5, -1.0, 2.0);
    e.dt = 1.0 / 60;
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_BOX;
    d.motion = GR_MOTION_HOST;
    d.half_extents = h;
    d.particle_radius = 0.005;
    d.position = e.x;
    d.orientation = e.q;
    d.mass = e.mass;
    d.inertia = e.inertia;
    d.user_data = &e;
    gr_body b;
    CHECK_OK(w, gr_add_body(w, &d, &b));
    double jmax = 0;
    const int frames = 60;
    for (int f = 0; f < frames; f++) {
        CHECK_OK(w, gr_step(w, e.dt));
        jmax = fmax(jmax, v3_len(e.impulse));
    }
    const double v_expect = -9.81 * frames * e.dt;
    printf("  %s: host box after %d frames in the air: v_y = %.6f m/s (engine alone %.6f), largest impulse "
           "%.2e N s (weight x dt %.2e)\n",
           sv ? "pbd" : "dem", frames, e.v.y, v_expect, jmax, e.mass * 9.81 * e.dt);
    /* (PBD: a spinning body's particles are predicted along straight lines and its turn is
     * fitted to them, which moves its centre of mass a little: remainders of 1e-4 of the
     * weight's impulse a frame, which differ between compilers. Before the fix each frame
     * handed back a quarter of it and the box fell at about 0.57 g.) */
    const double tol = sv ? 1e-3 : 1e-9;
    CHECK(jmax < tol * e.mass * 9.81 * e.dt);
    CHECK_NEAR(e.v.y, v_expect, tol * fabs(v_expect));
    gr_world_destroy(w);
}

static void test_host_body_free_fall_dem(void) { host_body_free_fall(0); }
static void test_host_body_free_fall_pbd(void) { host_body_free_fall(1); }

static void test_host_body_engine_mass_dem(void) { host_body_engine_mass(0); }
static void test_host_body_engine_mass_pbd(void) { host_body_engine_mass(1); }

/* Bodies beyond the documented bounds are refused with a message, the world unchanged: a
 * dynamic sphere of radius 1e120 had an infinite mass (issue 19); likewise sizes, densities
 * and given masses or inertias that are not finite, not positive definite or out of range. */
static uint32_t body_count(const gr_world *w)
{
    gr_counters k;
    k.size = sizeof k;
    gr_world_get_counters(w, &k);
    return k.body_count;
}

static void test_body_bounds_refused(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.host.get_state = engine_get;
    def.host.apply_impulse = engine_apply;
    gr_world *w = NULL;
    MUST(NULL, gr_world_create(&def, &w));
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 1e300;
    gr_material dense;
    MUST(w, gr_add_material(w, &md, &dense));
    gr_body floor = add_floor(w);
    gr_body ok = add_dynamic_box(w, v3(0, 0.2, 0), v3(0.02, 0.02, 0.02), 0.005, steel(w));
    gr_body bodies[2] = {floor, ok};
    const uint64_t before = tu_state_hash(w, bodies, 2);
    const uint32_t count = body_count(w);
    typedef struct bad {
        const char *what;
        gr_status want;
        gr_shape_type shape;
        gr_motion_type motion;
        double radius, mass, half_x, particle_radius;
        gr_vec3 inertia;
        gr_quat rotation;
        int dense;
    } bad;
    const gr_quat id = {0, 0, 0, 1};
    const bad cases[] = {
        {"sphere of radius 1e120", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_DYNAMIC, 1e120, 0, 0.1, 0, {0, 0, 0}, id, 0},
        {"static sphere of radius 1e120", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_STATIC, 1e120, 0, 0.1, 0, {0, 0, 0}, id, 0},
        {"box of half extent 1e7", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_BOX, GR_MOTION_DYNAMIC, 0.1, 0, 1e7, 0, {0, 0, 0}, id, 0},
        {"infinite radius", GR_ERROR_NOT_FINITE, GR_SHAPE_SPHERE, GR_MOTION_DYNAMIC, INFINITY, 0, 0.1, 0, {0, 0, 0}, id, 0},
        {"density 1e300: mass 4e297 kg", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_DYNAMIC, 0.1, 0, 0.1, 0, {0, 0, 0}, id, 1},
        {"particle radius 1e7", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_DYNAMIC, 0.1, 0, 0.1, 1e7, {0, 0, 0}, id, 0},
        {"mass 1e300", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1e300, 0.1, 0, {0, 0, 0}, id, 0},
        {"mass 5e-324", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 5e-324, 0.1, 0, {0, 0, 0}, id, 0},
        {"mass -1", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, -1, 0.1, 0, {0, 0, 0}, id, 0},
        {"mass NaN", GR_ERROR_NOT_FINITE, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, NAN, 0.1, 0, {0, 0, 0}, id, 0},
        {"mass on a static body", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_STATIC, 0.1, 1, 0.1, 0, {0, 0, 0}, id, 0},
        {"inertia with a zero moment", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, 0, 1}, id, 0},
        {"inertia with a negative moment", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_DYNAMIC, 0.1, 1, 0.1, 0, {1, -1, 1}, id, 0},
        {"inertia infinite", GR_ERROR_NOT_FINITE, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, INFINITY, 1}, id, 0},
        {"inertia 1e40", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, 1e40, 1}, id, 0},
        {"inertia 1e-300", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, 1e-300, 1}, id, 0},
        {"inertia rotation zero", GR_ERROR_INVALID_ARGUMENT, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, 1, 1}, {0, 0, 0, 0}, 0},
        {"inertia rotation NaN", GR_ERROR_NOT_FINITE, GR_SHAPE_SPHERE, GR_MOTION_HOST, 0.1, 1, 0.1, 0, {1, 1, 1}, {NAN, 0, 0, 1}, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bad *c = &cases[k];
        gr_body_def d;
        gr_body_def_init(&d);
        d.shape = c->shape;
        d.motion = c->motion;
        d.radius = c->radius;
        d.half_extents = v3(c->half_x, 0.1, 0.1);
        d.particle_radius = c->particle_radius;
        d.mass = c->mass;
        d.inertia = c->inertia;
        d.inertia_rotation = c->rotation;
        d.position = v3(0, 5, 0);
        if (c->dense)
            d.material = dense;
        gr_body b = {0};
        const gr_status s = gr_add_body(w, &d, &b);
        if (s != c->want)
            printf("  %s: %s (%s)\n", c->what, gr_status_string(s), gr_world_last_error(w));
        CHECK(s == c->want);
        CHECK(b.id == 0);
        CHECK(strlen(gr_world_last_error(w)) > 0 && !strstr(gr_world_last_error(w), ".c:"));
        CHECK(body_count(w) == count);
    }
    /* the same through gr_body_set_mass_properties, on the dynamic box and on the floor */
    const gr_vec3 unit = {1e-3, 1e-3, 1e-3};
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_mass_properties(w, floor, 1, unit, id));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_mass_properties(w, ok, 1e300, unit, id));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_mass_properties(w, ok, 1, v3(1, 0, 1), id));
    CHECK_STATUS(GR_ERROR_NOT_FINITE, gr_body_set_mass_properties(w, ok, 1, v3(1, NAN, 1), id));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_mass_properties(w, ok, 1, unit, (gr_quat){0, 0, 0, 0}));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_set_mass_properties(w, ok, 1e-20, v3(0, 0, 0), id));
    CHECK_STATUS(GR_ERROR_INVALID_ARGUMENT, gr_body_get_mass_properties(w, floor, NULL, NULL, NULL));
    CHECK(tu_state_hash(w, bodies, 2) == before);
    double m0, m1;
    gr_vec3 i0, i1;
    CHECK_OK(w, gr_body_get_mass_properties(w, ok, &m0, &i0, NULL));
    /* a good call takes effect; mass 0 goes back to density x shape */
    CHECK_OK(w, gr_body_set_mass_properties(w, ok, 3 * m0, v3(0, 0, 0), id));
    CHECK_OK(w, gr_body_get_mass_properties(w, ok, &m1, &i1, NULL));
    CHECK_NEAR(m1, 3 * m0, 1e-12 * m0);
    CHECK_NEAR(i1.x, 3 * i0.x, 1e-12 * i0.x);
    CHECK_OK(w, gr_body_set_mass_properties(w, ok, 0, v3(0, 0, 0), id));
    CHECK_OK(w, gr_body_get_mass_properties(w, ok, &m1, &i1, NULL));
    CHECK(m1 == m0 && i1.x == i0.x && i1.y == i0.y && i1.z == i0.z);
    for (int k = 0; k < 5; k++)
        CHECK_OK(w, gr_step(w, 1.0 / 60));
    gr_world_destroy(w);
}

/* ---- lifetime, snapshots, determinism -------------------------------------------------------------- */

typedef struct scene {
    gr_world *w;
    gr_body bodies[3];
} scene;

static void build_scene(scene *s, unsigned workers)
{
    s->w = make_world(workers, v3(0, -9.81, 0));
    s->bodies[0] = sand_bed(s->w, 0.05, 0.004, 800);
    s->bodies[1] = add_dynamic_box(s->w, v3(0.01, 0.12, 0), v3(0.02, 0.015, 0.02), 0.004, steel(s->w));
    gr_body_def d;
    gr_body_def_init(&d);
    d.shape = GR_SHAPE_CAPSULE;
    d.motion = GR_MOTION_KINEMATIC;
    d.radius = 0.01;
    d.half_height = 0.02;
    d.particle_radius = 0.004;
    d.position = v3(-0.03, 0.05, 0);
    d.linear_velocity = v3(0.1, 0, 0);
    d.angular_velocity = v3(0, 2, 0);
    static gr_vec3 v[8];
    static uint32_t idx[36];
    tu_box_mesh(v3(0.01, 0.01, 0.01), v3(0, 0, 0), v, idx);
    d.shape = GR_SHAPE_MESH;
    d.mesh_vertices = v;
    d.mesh_indices = idx;
    d.mesh_vertex_count = 8;
    d.mesh_triangle_count = 12;
    CHECK_OK(s->w, gr_add_body(s->w, &d, &s->bodies[2]));
}

#include "test_util.h"

static void test_determinism_and_snapshot(void)
{
    uint64_t ref = 0;
    for (unsigned workers = 1; workers <= 3; workers++) {
        scene s;
        build_scene(&s, workers);
        for (int k = 0; k < 20; k++)
            CHECK_OK(s.w, gr_step(s.w, 1.0 / 60));
        const uint64_t h = tu_state_hash(s.w, s.bodies, 3);
        if (workers == 1)
            ref = h;
        CHECK(h == ref);
        gr_world_destroy(s.w);
    }
    /* save, go on, load, go on again: the same */
    scene s;
    build_scene(&s, 2);
    for (int k = 0; k < 10; k++)
        CHECK_OK(s.w, gr_step(s.w, 1.0 / 60));
    tu_stream st;
    tu_stream_init(&st);
    CHECK_OK(s.w, gr_world_save(s.w, tu_stream_write, &st));
    for (int k = 0; k < 10; k++)
        CHECK_OK(s.w, gr_step(s.w, 1.0 / 60));
    const uint64_t a = tu_state_hash(s.w, s.bodies, 3);
    st.pos = 0;
    CHECK_OK(s.w, gr_world_load(s.w, tu_stream_read, &st));
    for (int k = 0; k < 10; k++)
        CHECK_OK(s.w, gr_step(s.w, 1.0 / 60));
    CHECK(tu_state_hash(s.w, s.bodies, 3) == a);
    CHECK(gr_body_get_particle_count(s.w, s.bodies[1]) > 0);
    /* a corrupted body section is refused, the world unchanged */
    for (size_t off = 64; off < st.size; off += st.size / 97) {
        tu_stream bad = st;
        bad.data = (unsigned char *)malloc(st.size);
        memcpy(bad.data, st.data, st.size);
        bad.data[off] ^= 0x40;
        bad.pos = 0;
        gr_status ls = gr_world_load(s.w, tu_stream_read, &bad);
        CHECK(ls != GR_OK);
        free(bad.data);
    }
    CHECK(tu_state_hash(s.w, s.bodies, 3) == a);
    tu_stream_free(&st);
    /* removing a covered body frees its particles: the world works on */
    gr_counters k0;
    k0.size = sizeof k0;
    gr_world_get_counters(s.w, &k0);
    CHECK_OK(s.w, gr_remove_body(s.w, s.bodies[1]));
    CHECK(gr_body_get_particle_count(s.w, s.bodies[1]) == 0);
    CHECK_OK(s.w, gr_remove_body(s.w, s.bodies[2]));
    gr_counters k1;
    k1.size = sizeof k1;
    gr_world_get_counters(s.w, &k1);
    CHECK(k1.bytes_in_use < k0.bytes_in_use); /* particles and mesh copies freed */
    for (int k = 0; k < 5; k++)
        CHECK_OK(s.w, gr_step(s.w, 1.0 / 60));
    gr_world_destroy(s.w);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"mesh_mass_properties", test_mesh_mass_properties},
        {"mesh_body_queries", test_mesh_body_queries},
        {"surface_covering", test_surface_covering},
        {"free_flight", test_free_flight},
        {"body_rests_on_floor", test_body_rests_on_floor},
        {"bodies_collide", test_bodies_collide},
        {"body_on_sand_weight", test_body_on_sand_weight},
        {"kinematic_mesh_pushes", test_kinematic_mesh_pushes},
        {"host_body_on_sand", test_host_body_on_sand},
        {"host_body_free_fall_dem", test_host_body_free_fall_dem},
        {"host_body_free_fall_pbd", test_host_body_free_fall_pbd},
        {"host_body_engine_mass_dem", test_host_body_engine_mass_dem},
        {"host_body_engine_mass_pbd", test_host_body_engine_mass_pbd},
        {"body_bounds_refused", test_body_bounds_refused},
        {"determinism_and_snapshot", test_determinism_and_snapshot},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
