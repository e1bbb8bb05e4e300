/* SPDX-License-Identifier: MIT */
/* Clumps (Bell 2005, 3.1): mass properties of overlapping spheres, rigid rotation without
 * drift, friction on an incline, and the angle of repose that non-spherical grains give. */
#include <math.h>
#include <stdlib.h>

#include "../lib/geom/clump_store.h"
#include "../lib/dem/dem_internal.h"
#include "../lib/dem/dem_params.h"
#include "../lib/dem/dem_rebuild.h"
#include "../lib/world/world.h"
#include "../lib/geom/mass_props.h"
#include "../lib/core/vec3.h"
#include "harness.h"

#define PI 3.14159265358979323846

/* Reference by brute force: count voxel centres inside the union on a fine 3D grid. */
static void voxel_reference(const gr_vec3 *c, const double *r, int n, double h, double *volume, double inertia[3][3],
                            gr_vec3 *centre)
{
    gr_vec3 lo = {1e9, 1e9, 1e9}, hi = {-1e9, -1e9, -1e9};
    for (int k = 0; k < n; k++) {
        lo = v3(fmin(lo.x, c[k].x - r[k]), fmin(lo.y, c[k].y - r[k]), fmin(lo.z, c[k].z - r[k]));
        hi = v3(fmax(hi.x, c[k].x + r[k]), fmax(hi.y, c[k].y + r[k]), fmax(hi.z, c[k].z + r[k]));
    }
    double m0 = 0, m1[3] = {0}, m2[3][3] = {{0}};
    for (double x = lo.x + h / 2; x < hi.x; x += h)
        for (double y = lo.y + h / 2; y < hi.y; y += h)
            for (double z = lo.z + h / 2; z < hi.z; z += h) {
                int in = 0;
                for (int k = 0; k < n && !in; k++)
                    in = v3_len2(v3_sub(v3(x, y, z), c[k])) <= r[k] * r[k];
                if (!in)
                    continue;
                const double p[3] = {x, y, z};
                m0 += 1;
                for (int a = 0; a < 3; a++) {
                    m1[a] += p[a];
                    for (int b = 0; b < 3; b++)
                        m2[a][b] += p[a] * p[b];
                }
            }
    const double dv = h * h * h;
    *volume = m0 * dv;
    *centre = v3(m1[0] / m0, m1[1] / m0, m1[2] / m0);
    const double cc[3] = {centre->x, centre->y, centre->z};
    double s[3][3];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            s[a][b] = (m2[a][b] - m0 * cc[a] * cc[b]) * dv;
    const double tr = s[0][0] + s[1][1] + s[2][2];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            inertia[a][b] = (a == b ? tr : 0) - s[a][b];
}

static void test_mass_properties_of_sphere_unions(void)
{
    double scratch[64];
    /* one sphere: exact values */
    gr_vec3 c1 = {0.3, -0.2, 0.1};
    double r1 = 0.7;
    gr_mass_props mp;
    gr_mass_props_spheres(&c1, &r1, 1, r1 / 24, scratch, &mp);
    const double v1 = 4.0 / 3.0 * PI * r1 * r1 * r1;
    CHECK_NEAR(mp.volume, v1, 2e-3 * v1);
    CHECK_NEAR(mp.centre.x, 0.3, 1e-9);
    CHECK_NEAR(mp.inertia[0][0], 0.4 * v1 * r1 * r1, 4e-3 * 0.4 * v1 * r1 * r1);
    CHECK_NEAR(mp.inertia[2][2], 0.4 * v1 * r1 * r1, 4e-3 * 0.4 * v1 * r1 * r1);
    CHECK(fabs(mp.inertia[0][1]) < 1e-6 * v1);
    /* two overlapping spheres: the lens is counted once (analytic volume) */
    gr_vec3 c2[2] = {{0, 0, 0}, {0.6, 0, 0}};
    double r2[2] = {0.5, 0.5};
    gr_mass_props_spheres(c2, r2, 2, 0.5 / 24, scratch, &mp);
    const double d = 0.6, r = 0.5;
    const double lens = PI * (2 * r - d) * (2 * r - d) * (d * d + 4 * d * r) / (12 * d);
    const double v2 = 2 * 4.0 / 3.0 * PI * r * r * r - lens;
    CHECK_NEAR(mp.volume, v2, 2e-3 * v2);
    CHECK_NEAR(mp.centre.x, 0.3, 2e-4);
    /* an irregular union against a brute-force reference */
    gr_vec3 c3[4] = {{0, 0, 0}, {0.5, 0.1, 0}, {0.1, 0.6, 0.2}, {-0.3, 0.2, 0.5}};
    double r3[4] = {0.4, 0.35, 0.3, 0.25};
    gr_mass_props_spheres(c3, r3, 4, 0.25 / 24, scratch, &mp);
    double vr, ir[3][3];
    gr_vec3 cr;
    voxel_reference(c3, r3, 4, 0.008, &vr, ir, &cr);
    CHECK_NEAR(mp.volume, vr, 5e-3 * vr);
    CHECK_NEAR(mp.centre.x, cr.x, 5e-3);
    CHECK_NEAR(mp.centre.y, cr.y, 5e-3);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            CHECK_NEAR(mp.inertia[a][b], ir[a][b], 1e-2 * ir[0][0]);
    /* principal axes: V diag V^T reproduces the tensor, V orthonormal and right-handed */
    double val[3], vec[3][3];
    gr_eigen_symmetric3(mp.inertia, val, vec);
    CHECK(val[0] <= val[1] && val[1] <= val[2]);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double m = 0;
            for (int k = 0; k < 3; k++)
                m += vec[a][k] * val[k] * vec[b][k];
            CHECK_NEAR(m, mp.inertia[a][b], 1e-12 * val[2]);
        }
}

static gr_world *world_no_gravity(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, 0, 0};
    gr_world *w = NULL;
    gr_world_create(&def, &w);
    return w;
}

/* Built-in shapes: mass = density x volume of the union, scaled by the enclosing radius. */
static void test_builtin_grain_masses(void)
{
    gr_world *w = world_no_gravity();
    CHECK(w);
    const gr_grain_shape shapes[3] = {GR_GRAIN_TETRAHEDRON, GR_GRAIN_CUBE, GR_GRAIN_PAIR};
    for (int k = 0; k < 3; k++) {
        const gr_clump_template *t = &w->clumps.templates[k];
        const gr_vec3 *off = w->clumps.offsets + t->first;
        const double *rad = w->clumps.radii + t->first;
        double vr, ir[3][3];
        gr_vec3 cr;
        voxel_reference(off, rad, (int)t->count, 0.01, &vr, ir, &cr);
        gr_grain_def g;
        gr_grain_def_init(&g);
        g.shape = shapes[k];
        g.radius = 0.01;
        g.position = v3(0.1 * k, 0, 0);
        gr_grain h;
        CHECK_OK(w, gr_add_grain(w, &g, &h));
        uint32_t idx;
        double mass;
        CHECK_OK(w, gr_grain_get_index(w, h, &idx));
        CHECK_OK(w, gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, idx, 1, &mass, 0));
        const double expect = 2500 * vr * 1e-6;
        CHECK_NEAR(mass, expect, 1e-2 * expect);
        CHECK(fabs(cr.x) < 0.01 && fabs(cr.y) < 0.01 && fabs(cr.z) < 0.01); /* centred */
        /* the enclosing radius is 1 in template units */
        double bound = 0;
        for (uint32_t s = 0; s < t->count; s++)
            bound = fmax(bound, v3_len(off[s]) + rad[s]);
        CHECK_NEAR(bound, 1.0, 1e-12);
    }
    CHECK(gr_world_get_render_point_count(w) == 4 + 8 + 2);
    gr_world_destroy(w);
}

/* A free asymmetric clump tumbling near its intermediate axis (the Dzhanibekov effect): |L|
 * is conserved to round-off and the rotational energy does not drift over many turns. */
static void test_free_tumbling_conserves(void)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, 0, 0};
    def.substep = 2e-4;
    gr_world *w = NULL;
    CHECK_OK(NULL, gr_world_create(&def, &w));
    const gr_vec3 c[3] = {{0, 0, 0}, {1.0, 0, 0}, {0, 0.5, 0}};
    const double r[3] = {0.5, 0.3, 0.25};
    gr_clump_def cd;
    gr_clump_def_init(&cd);
    cd.count = 3;
    cd.centres = c;
    cd.radii = r;
    gr_clump tmpl;
    CHECK_OK(w, gr_add_clump_template(w, &cd, &tmpl));
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.shape = GR_GRAIN_CLUMP;
    g.clump = tmpl;
    g.radius = 0.02;
    g.velocity = v3(0.01, 0, 0);
    gr_grain h;
    CHECK_OK(w, gr_add_grain(w, &g, &h));
    dem_state *st = (dem_state *)w->systems[0].state;
    /* spin mostly about the intermediate principal axis (body y), with a small perturbation */
    const gr_vec3 inertia = st->c_inertia[0];
    CHECK(inertia.x < inertia.y && inertia.y < inertia.z);
    double spin[4] = {0.01, 30.0, 0.01, 0};
    gr_grain_state s0;
    CHECK_OK(w, gr_grain_get_state(w, h, &s0));
    s0.angular_velocity = quat_rotate(s0.orientation, v3(spin[0], spin[1], spin[2]));
    CHECK_OK(w, gr_grain_set_state(w, h, &s0));
    const gr_vec3 L0 = st->c_L[0];
    const double e0 = 0.5 * v3_dot(st->c_w[0], st->c_L[0]);
    double worst_e = 0, worst_l = 0, min_wy = 1e9;
    for (int k = 0; k < 200; k++) { /* 20 s: about 100 turns */
        CHECK_OK(w, gr_step(w, 0.1));
        const double e = 0.5 * v3_dot(st->c_w[0], st->c_L[0]);
        worst_e = fmax(worst_e, fabs(e - e0) / e0);
        worst_l = fmax(worst_l, v3_len(v3_sub(st->c_L[0], L0)) / v3_len(L0));
        const gr_vec3 wb = quat_rotate_inv(st->c_q[0], st->c_w[0]);
        min_wy = fmin(min_wy, wb.y);
    }
    printf("  energy error %.2e, momentum error %.2e, body-y spin went down to %.1f rad/s\n", worst_e, worst_l, min_wy);
    CHECK(worst_l < 1e-12);
    CHECK(worst_e < 1e-4);
    CHECK(min_wy < 0); /* it flipped: rotation about the intermediate axis is unstable */
    gr_world_destroy(w);
}

/* A cube grain on a flat floor under gravity tilted by theta: sticks while tan(theta) < mu,
 * slides above at about g (sin theta - mu cos theta). A cube of corner spheres tips over
 * above atan(0.3175 / 0.7675) = 22.5 degrees, so mu = 0.3 (16.7 degrees) keeps it sliding. */
static double incline_displacement(double theta_deg, double seconds, double *accel)
{
    const double th = theta_deg * PI / 180, g = 9.81;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){g * sin(th), -g * cos(th), 0};
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.3;
    md.youngs_modulus = 1e7;
    gr_material m;
    gr_add_material(w, &md, &m);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    gr_add_body(w, &bd, NULL);
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.shape = GR_GRAIN_CUBE;
    gd.material = m;
    gd.radius = 0.01;
    /* resting on four of its spheres: the lowest sphere centres at their radius */
    const gr_clump_template *t = &w->clumps.templates[GR_CLUMP_CUBE];
    double low = 1e9;
    for (uint32_t k = 0; k < t->count; k++)
        low = fmin(low, w->clumps.offsets[t->first + k].y - w->clumps.radii[t->first + k]);
    gd.position = v3(0, -low * 0.01, 0);
    gr_grain h;
    gr_add_grain(w, &gd, &h);
    gr_step(w, 0.3); /* settle */
    gr_grain_state a, b;
    gr_grain_get_state(w, h, &a);
    gr_step(w, seconds);
    gr_grain_get_state(w, h, &b);
    gr_world_destroy(w);
    double dx = b.position.x - a.position.x;
    *accel = 2 * (dx - a.velocity.x * seconds) / (seconds * seconds);
    return dx;
}

static void test_clump_on_incline(void)
{
    double acc;
    double stick = incline_displacement(12.0, 1.0, &acc); /* tan 12 = 0.21 < 0.3 */
    CHECK(fabs(stick) < 1e-5);
    double slide = incline_displacement(20.0, 0.5, &acc); /* tan 20 = 0.36 > 0.3 */
    const double th = 20.0 * PI / 180, expect = 9.81 * (sin(th) - 0.3 * cos(th));
    printf("  12 degrees: moved %.2e m; 20 degrees: a = %.3f m/s^2 (Coulomb %.3f)\n", stick, acc, expect);
    CHECK(slide > 0.02);
    CHECK_NEAR(acc, expect, 0.1 * expect);
}

/* Pour grains slowly onto a floor (a few per frame, just above the heap's top) and measure
 * the heap as a cone: its height is the top grain's, and since a cone's mass lies at a mean
 * radial distance of R/2, its base radius is twice the grains' mean distance from the axis
 * (robust: every grain counts, no fit to a few surface grains). */
static double angle_of_repose(gr_grain_shape shape, unsigned count, double *height)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.rolling_law = GR_ROLLING_NONE; /* no rolling resistance: shape alone must hold the slope */
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    def.worker_count = 2;
    def.bounds_min = (gr_vec3){-1, -0.1, -1};
    def.bounds_max = (gr_vec3){1, 1, 1};
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.6;
    md.restitution = 0.2;
    md.youngs_modulus = 2e6;
    gr_material m;
    gr_add_material(w, &md, &m);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    gr_add_body(w, &bd, NULL);
    double *x = (double *)malloc(sizeof(double) * 3 * count);
    double top = 0;
    unsigned total = 0;
    for (int frame = 0; total < count || frame < 60;) {
        if (total < count) {
            gr_fill_def fd;
            gr_fill_def_init(&fd);
            fd.pattern = GR_FILL_RANDOM;
            fd.min = (gr_vec3){-0.012, top + 0.012, -0.012};
            fd.max = (gr_vec3){0.012, top + 0.03, 0.012};
            fd.radius = 0.004;
            fd.shape = shape;
            fd.material = m;
            fd.max_count = count - total < 8 ? count - total : 8;
            fd.seed = 100 + (uint64_t)total;
            fd.velocity = (gr_vec3){0, -0.3, 0};
            uint32_t added = 0;
            gr_fill_box(w, &fd, &added, NULL, 0);
            total += added;
        } else {
            frame++;
        }
        gr_step(w, 0.02);
        uint32_t n = gr_world_get_grain_count(w);
        gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
        top = 0;
        for (uint32_t i = 0; i < n; i++)
            top = fmax(top, x[3 * i + 1]);
    }
    uint32_t n = gr_world_get_grain_count(w);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    double mean_r = 0;
    for (uint32_t i = 0; i < n; i++)
        mean_r += sqrt(x[3 * i] * x[3 * i] + x[3 * i + 2] * x[3 * i + 2]) / n;
    const double slope = (top + 0.004) / (2.0 * mean_r);
    free(x);
    gr_world_destroy(w);
    *height = top;
    return atan(slope) * 180 / PI;
}

static void test_tetrahedra_pile_steeper_than_spheres(void)
{
    double hs, ht;
    double spheres = angle_of_repose(GR_GRAIN_SPHERE, 1000, &hs);
    double tetra = angle_of_repose(GR_GRAIN_TETRAHEDRON, 1000, &ht);
    printf("  angle of repose: spheres %.1f degrees (height %.1f mm), tetrahedra %.1f degrees (height %.1f mm)\n",
           spheres, 1000 * hs, tetra, 1000 * ht);
    /* spheres without rolling resistance roll apart into a layer; tetrahedra interlock */
    CHECK(tetra > spheres + 10.0);
    CHECK(tetra > 12.0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"mass_properties_of_sphere_unions", test_mass_properties_of_sphere_unions},
        {"builtin_grain_masses", test_builtin_grain_masses},
        {"free_tumbling_conserves", test_free_tumbling_conserves},
        {"clump_on_incline", test_clump_on_incline},
        {"tetrahedra_pile_steeper_than_spheres", test_tetrahedra_pile_steeper_than_spheres},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
