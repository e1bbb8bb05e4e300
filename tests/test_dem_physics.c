/* SPDX-License-Identifier: MIT */
/* DEM physics against analytic results (../shared/algorithms/dem-details.md "Test ideas"). */
#include <granular/granular.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* ---- two-sphere head-on collisions --------------------------------------------------------- */

typedef struct collision {
    double e;           ///< measured restitution (relative normal speed out / in)
    double t_contact;   ///< measured contact duration [s]
    double max_overlap; ///< [m]
} collision;

typedef struct collision_setup {
    gr_normal_law law;
    double restitution;
    double speed;        ///< each sphere approaches at `speed`: relative speed 2 * speed
    double radius;
    double youngs;
    double substep;
    double contact_time; ///< linear law
    double nl_a, nl_kd;  ///< nonlinear law
    int clamp;
    int wall;            ///< one sphere against a plane instead of two spheres
} collision_setup;

static collision_setup default_setup(gr_normal_law law)
{
    collision_setup s;
    memset(&s, 0, sizeof s);
    s.law = law;
    s.restitution = 0.5;
    s.speed = 0.5;
    s.radius = 0.01;
    s.youngs = 1e7;
    s.substep = 1e-6;
    s.contact_time = 1e-3;
    s.nl_a = 0.5;
    return s;
}

/* Returns 0 on success; steps one substep at a time and interpolates contact start and end. */
static int run_collision(const collision_setup *cs, collision *out)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.normal_law = cs->law;
    dem.tangential_law = GR_TANGENTIAL_NONE;
    dem.contact_time = cs->contact_time;
    dem.clamp_normal_force = (uint32_t)cs->clamp;
    dem.nonlinear_a = cs->nl_a;
    dem.nonlinear_damping = cs->nl_kd;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, 0, 0};
    def.substep = cs->substep;
    def.dem = &dem;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.restitution = cs->restitution;
    md.youngs_modulus = cs->youngs;
    md.friction = 0;
    gr_material mat;
    gr_add_material(w, &md, &mat);
    const double r = cs->radius, gap = 0.02 * r;
    gr_grain a, b = {0};
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = mat;
    gd.radius = r;
    gd.position = (gr_vec3){-r - gap, 0, 0};
    gd.velocity = (gr_vec3){cs->speed, 0, 0};
    gr_add_grain(w, &gd, &a);
    if (cs->wall) {
        gr_body_def bd;
        gr_body_def_init(&bd);
        bd.shape = GR_SHAPE_PLANE;
        bd.normal = (gr_vec3){-1, 0, 0};
        bd.material = mat;
        gr_add_body(w, &bd, NULL);
    } else {
        gd.position = (gr_vec3){r + gap, 0, 0};
        gd.velocity = (gr_vec3){-cs->speed, 0, 0};
        gr_add_grain(w, &gd, &b);
    }
    const double h = cs->substep;
    double prev_gap = 2 * gap, t = 0, t_start = -1, t_end = -1, max_ov = 0;
    const double rel_in = 2 * cs->speed / (cs->wall ? 2 : 1);
    for (long step = 0; step < 20000000; step++) {
        if (gr_step(w, h) != GR_OK)
            break;
        t += h;
        gr_grain_state sa, sb;
        gr_grain_get_state(w, a, &sa);
        double gap_now;
        if (cs->wall) {
            gap_now = -sa.position.x - r;
        } else {
            gr_grain_get_state(w, b, &sb);
            gap_now = (sb.position.x - sa.position.x) - 2 * r;
        }
        if (-gap_now > max_ov)
            max_ov = -gap_now;
        if (t_start < 0 && gap_now < 0)
            t_start = t - h * gap_now / (gap_now - prev_gap); /* linear interpolation of the crossing */
        if (t_start >= 0 && gap_now >= 0) {
            t_end = t - h * gap_now / (gap_now - prev_gap);
            double rel_out = cs->wall ? -sa.velocity.x : sb.velocity.x - sa.velocity.x;
            out->e = rel_out / rel_in;
            break;
        }
        prev_gap = gap_now;
    }
    gr_world_destroy(w);
    if (t_end < 0)
        return -1;
    out->t_contact = t_end - t_start;
    out->max_overlap = max_ov;
    return 0;
}

static void test_linear_restitution_and_contact_time(void)
{
    const double es[] = {0.5, 0.9};
    for (int k = 0; k < 2; k++) {
        collision_setup cs = default_setup(GR_NORMAL_LINEAR);
        cs.restitution = es[k];
        cs.substep = cs.contact_time / 400;
        collision c;
        CHECK(run_collision(&cs, &c) == 0);
        CHECK_NEAR(c.e, es[k], 0.005);
        CHECK_NEAR(c.t_contact, cs.contact_time, 0.02 * cs.contact_time);
        /* the same for a grain against a wall (m* = m) */
        cs.wall = 1;
        CHECK(run_collision(&cs, &c) == 0);
        CHECK_NEAR(c.e, es[k], 0.005);
        CHECK_NEAR(c.t_contact, cs.contact_time, 0.02 * cs.contact_time);
    }
}

static void test_linear_speed_independent(void)
{
    collision_setup cs = default_setup(GR_NORMAL_LINEAR);
    cs.substep = cs.contact_time / 1000;
    collision slow, fast;
    cs.speed = 0.05;
    CHECK(run_collision(&cs, &slow) == 0);
    cs.speed = 2.0;
    CHECK(run_collision(&cs, &fast) == 0);
    /* contact onset falls between substeps: O(h / t_c) scatter */
    CHECK_NEAR(slow.e, fast.e, 2e-3);
    CHECK_NEAR(slow.t_contact, fast.t_contact, 0.01 * fast.t_contact);
}

/* Hertz with e = 1: contact time 2.868 (m*^2/(R* E*^2 v))^(1/5), overlap (15 m* v^2/(16 E* sqrt R*))^(2/5). */
static void test_hertz_elastic_impact(void)
{
    const double speeds[] = {0.1, 0.5, 2.0};
    for (int k = 0; k < 3; k++) {
        collision_setup cs = default_setup(GR_NORMAL_HERTZ);
        cs.restitution = 1.0;
        cs.speed = speeds[k];
        const double r = cs.radius, nu = 0.3;
        const double m = 2500 * 4.0 / 3.0 * PI * r * r * r, meff = m / 2, reff = r / 2;
        const double estar = cs.youngs / (2 * (1 - nu * nu));
        const double v = 2 * cs.speed;
        const double tc = 2.868 * pow(meff * meff / (reff * estar * estar * v), 0.2);
        const double dmax = pow(15 * meff * v * v / (16 * estar * sqrt(reff)), 0.4);
        cs.substep = tc / 1000;
        collision c;
        CHECK(run_collision(&cs, &c) == 0);
        CHECK_NEAR(c.t_contact, tc, 0.02 * tc);
        CHECK_NEAR(c.max_overlap, dmax, 0.02 * dmax);
        CHECK_NEAR(c.e, 1.0, 1e-3);
    }
}

/* Hertz with restitution-matched (Tsuji-type) damping: e near the target and independent of speed. */
static void test_hertz_damped_restitution(void)
{
    double e[3];
    const double speeds[] = {0.1, 1.0, 3.0};
    for (int k = 0; k < 3; k++) {
        collision_setup cs = default_setup(GR_NORMAL_HERTZ);
        cs.speed = speeds[k];
        cs.substep = 2e-7;
        collision c;
        CHECK(run_collision(&cs, &c) == 0);
        e[k] = c.e;
        CHECK_NEAR(c.e, 0.5, 0.05);
    }
    CHECK_NEAR(e[0], e[2], 0.005);
    CHECK_NEAR(e[1], e[2], 0.005);
}

/* Bell Figure 3: a = 1/2, b = 3/2 dissipates more at higher speed; a = 0, b = 3/2 less. */
static void test_nonlinear_speed_dependence(void)
{
    double e_kk[2], e_lin[2];
    const double speeds[] = {0.1, 2.0};
    for (int k = 0; k < 2; k++) {
        collision_setup cs = default_setup(GR_NORMAL_NONLINEAR);
        cs.speed = speeds[k];
        cs.substep = 2e-7;
        cs.nl_a = 0.5;
        cs.nl_kd = 100.0;
        collision c;
        CHECK(run_collision(&cs, &c) == 0);
        e_kk[k] = c.e;
        cs.nl_a = 0.0;
        cs.nl_kd = 0.5;
        CHECK(run_collision(&cs, &c) == 0);
        e_lin[k] = c.e;
    }
    fprintf(stderr, "  e(a=1/2): %.3f -> %.3f, e(a=0): %.3f -> %.3f\n", e_kk[0], e_kk[1], e_lin[0], e_lin[1]);
    CHECK(e_kk[0] > e_kk[1] + 0.02);  /* Kuwabara-Kono: e falls with speed */
    CHECK(e_lin[1] > e_lin[0] + 0.02); /* linear dashpot on Hertz: e rises with speed */
    CHECK(e_kk[0] < 1.0 && e_lin[0] > 0.0);
}

/* Clamping the normal force removes the attractive tail: rebound at least as fast. */
static void test_clamped_normal_force(void)
{
    collision_setup cs = default_setup(GR_NORMAL_LINEAR);
    cs.substep = cs.contact_time / 400;
    cs.restitution = 0.3;
    collision free_c, clamped;
    CHECK(run_collision(&cs, &free_c) == 0);
    cs.clamp = 1;
    CHECK(run_collision(&cs, &clamped) == 0);
    CHECK(clamped.e > free_c.e + 1e-3);
    CHECK(clamped.t_contact < free_c.t_contact);
}

/* ---- many-body conservation laws ------------------------------------------------------------- */

static gr_world *gas(gr_tangential_law tl, gr_rolling_law rl, double restitution, double friction, unsigned n,
                     double speed)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.tangential_law = tl;
    dem.rolling_law = rl;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){0, 0, 0};
    def.dem = &dem;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return NULL;
    gr_material_def md;
    gr_material_def_init(&md);
    md.restitution = restitution;
    md.friction = friction;
    md.rolling_friction = 0.1;
    md.youngs_modulus = 1e7;
    gr_material mat;
    gr_add_material(w, &md, &mat);
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.pattern = GR_FILL_RANDOM;
    fd.min = (gr_vec3){0, 0, 0};
    fd.max = (gr_vec3){0.1, 0.1, 0.1};
    fd.radius = 0.004;
    fd.radius_max = 0.006;
    fd.max_count = n;
    fd.material = mat;
    fd.seed = 99;
    uint32_t added;
    gr_fill_box(w, &fd, &added, NULL, 0);
    /* random velocities and spins, then remove the mean velocity */
    double *v = (double *)malloc(sizeof(double) * 3 * added);
    double *o = (double *)malloc(sizeof(double) * 3 * added);
    unsigned long long s = 12345;
    for (uint32_t i = 0; i < 3 * added; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = speed * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        o[i] = 50.0 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
    }
    gr_write_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, added, v, 0);
    gr_write_grains(w, GR_FIELD_ANGULAR_VELOCITY, GR_TYPE_F64, 0, added, o, 0);
    free(v);
    free(o);
    return w;
}

static void momenta(const gr_world *w, double p[3], double l[3])
{
    uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * n), *v = (double *)malloc(sizeof(double) * 3 * n);
    double *o = (double *)malloc(sizeof(double) * 3 * n), *m = (double *)malloc(sizeof(double) * n);
    double *r = (double *)malloc(sizeof(double) * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    gr_read_grains(w, GR_FIELD_ANGULAR_VELOCITY, GR_TYPE_F64, 0, n, o, 0);
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, n, r, 0);
    for (int c = 0; c < 3; c++)
        p[c] = l[c] = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *xi = x + 3 * i, *vi = v + 3 * i, *oi = o + 3 * i;
        double I = 0.4 * m[i] * r[i] * r[i];
        for (int c = 0; c < 3; c++)
            p[c] += m[i] * vi[c];
        l[0] += m[i] * (xi[1] * vi[2] - xi[2] * vi[1]) + I * oi[0];
        l[1] += m[i] * (xi[2] * vi[0] - xi[0] * vi[2]) + I * oi[1];
        l[2] += m[i] * (xi[0] * vi[1] - xi[1] * vi[0]) + I * oi[2];
    }
    free(x); free(v); free(o); free(m); free(r);
}

static void test_momentum_conserved(void)
{
    gr_world *w = gas(GR_TANGENTIAL_HISTORY, GR_ROLLING_EPSD, 0.5, 0.5, 400, 2.0);
    CHECK(w);
    double p0[3], l0[3], p1[3], l1[3];
    momenta(w, p0, l0);
    CHECK_OK(w, gr_step(w, 0.02));
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    momenta(w, p1, l1);
    double pscale = 0, lscale = 0;
    for (int k = 0; k < 3; k++) {
        pscale += fabs(p0[k]);
        lscale += fabs(l0[k]);
    }
    gr_world_destroy(w);
    CHECK(c.substep_count > 100);
    /* the gas must actually have collided, with friction and rolling resistance at work */
    CHECK(c.contact_count > 0 || c.neighbor_rebuilds > 1);
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(p1[k], p0[k], 1e-13 + 1e-11 * pscale);
        CHECK_NEAR(l1[k], l0[k], 1e-13 + 1e-9 * lscale);
    }
}

/* Total energy of an elastic frictionless gas: kinetic + Hertz elastic (8/15 E* sqrt(R*) x^(5/2)). */
static double total_energy(const gr_world *w, double estar)
{
    uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * n), *r = (double *)malloc(sizeof(double) * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, n, r, 0);
    double pe = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1], dz = x[3 * i + 2] - x[3 * j + 2];
            double d = sqrt(dx * dx + dy * dy + dz * dz), ov = r[i] + r[j] - d;
            if (ov > 0) {
                double reff = r[i] * r[j] / (r[i] + r[j]);
                pe += 8.0 / 15.0 * estar * sqrt(reff) * pow(ov, 2.5);
            }
        }
    free(x);
    free(r);
    return tu_kinetic_energy(w) + pe;
}

static void test_energy_conserved_elastic(void)
{
    gr_world *w = gas(GR_TANGENTIAL_NONE, GR_ROLLING_NONE, 1.0, 0.0, 300, 1.0);
    CHECK(w);
    const double estar = 1e7 / (2 * (1 - 0.3 * 0.3));
    double e0 = total_energy(w, estar);
    double worst = 0;
    for (int k = 0; k < 20; k++) {
        CHECK_OK(w, gr_step(w, 0.002));
        double e = total_energy(w, estar);
        if (fabs(e - e0) / e0 > worst)
            worst = fabs(e - e0) / e0;
    }
    gr_counters c;
    c.size = sizeof c;
    gr_world_get_counters(w, &c);
    gr_world_destroy(w);
    CHECK(c.neighbor_rebuilds > 2);
    CHECK(worst < 1e-3);
}

/* ---- friction and rolling ---------------------------------------------------------------------- */

/* A sphere launched sliding on a floor ends up rolling at 5/7 of its speed. */
static double slide_to_roll(gr_tangential_law tl, gr_rolling_law rl, double mu_roll, double seconds, double *spin)
{
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.tangential_law = tl;
    dem.rolling_law = rl;
    dem.shear_damping = 5.0;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.dem = &dem;
    gr_world *w;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.5;
    md.rolling_friction = mu_roll;
    md.youngs_modulus = 1e7;
    gr_material mat;
    gr_add_material(w, &md, &mat);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = mat;
    gr_add_body(w, &bd, NULL);
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = mat;
    gd.radius = 0.01;
    /* resting depth under its weight: start there so it does not bounce */
    gd.position = (gr_vec3){0, 0.01 - 2e-6, 0};
    gd.velocity = (gr_vec3){1.0, 0, 0};
    gr_grain g;
    gr_add_grain(w, &gd, &g);
    gr_step(w, seconds);
    gr_grain_state s;
    gr_grain_get_state(w, g, &s);
    gr_world_destroy(w);
    *spin = -s.angular_velocity.z * 0.01; /* rolling to +x spins about -z */
    return s.velocity.x;
}

static void test_slide_to_roll(void)
{
    const gr_tangential_law laws[] = {GR_TANGENTIAL_HISTORY, GR_TANGENTIAL_COULOMB, GR_TANGENTIAL_COMBINED};
    for (int k = 0; k < 3; k++) {
        double spin;
        double v = slide_to_roll(laws[k], GR_ROLLING_NONE, 0, 0.5, &spin);
        CHECK_NEAR(v, 5.0 / 7.0, 0.01 * 5.0 / 7.0);
        CHECK_NEAR(spin, v, 0.01 * v); /* rolling without slipping */
    }
    /* frictionless: keeps sliding, no spin */
    double spin;
    double v = slide_to_roll(GR_TANGENTIAL_NONE, GR_ROLLING_NONE, 0, 0.3, &spin);
    CHECK_NEAR(v, 1.0, 1e-6);
    CHECK_NEAR(spin, 0.0, 1e-9);
}

static void test_rolling_resistance_stops_rolling(void)
{
    double spin;
    double free_roll = slide_to_roll(GR_TANGENTIAL_HISTORY, GR_ROLLING_NONE, 0.0, 2.0, &spin);
    double cdt = slide_to_roll(GR_TANGENTIAL_HISTORY, GR_ROLLING_CDT, 0.2, 2.0, &spin);
    double epsd = slide_to_roll(GR_TANGENTIAL_HISTORY, GR_ROLLING_EPSD, 0.2, 2.0, &spin);
    CHECK(free_roll > 0.70);
    /* decelerates at about mu_r g (5/7): from 0.71 m/s stops in < 0.6 s */
    CHECK(fabs(cdt) < 0.02);
    CHECK(fabs(epsd) < 0.02);
}

/* ---- a poured pile comes to rest --------------------------------------------------------------- */

static void test_pile_comes_to_rest(void)
{
    gr_world *w;
    CHECK_OK(NULL, tu_world(&w, 1, NULL));
    gr_body box;
    CHECK_OK(w, tu_pile(w, 0.05, 0.004, 800, &box));
    uint32_t n = gr_world_get_grain_count(w);
    CHECK(n == 800);
    CHECK_OK(w, gr_step(w, 1.5));
    double *v = (double *)malloc(sizeof(double) * 3 * n), *x = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    double vmax = 0, ymin = 1e9, ymax = -1e9;
    for (uint32_t i = 0; i < n; i++) {
        double s = sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        vmax = s > vmax ? s : vmax;
        ymin = x[3 * i + 1] < ymin ? x[3 * i + 1] : ymin;
        ymax = x[3 * i + 1] > ymax ? x[3 * i + 1] : ymax;
    }
    free(v);
    free(x);
    /* the container's weight reading equals the grains' weight (it carries them all) */
    gr_vec3 force;
    CHECK_OK(w, gr_body_get_force(w, box, &force, NULL));
    double m = 0;
    double *mass = (double *)malloc(sizeof(double) * n);
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, mass, 0);
    for (uint32_t i = 0; i < n; i++)
        m += mass[i];
    free(mass);
    gr_world_destroy(w);
    CHECK(vmax < 5e-3);
    CHECK(ymin > 0.004 * 0.9);        /* nothing fell through the floor */
    CHECK(ymax < 0.05);               /* the lattice collapsed into a bed */
    CHECK_NEAR(force.y, -9.81 * m, 0.01 * 9.81 * m);
}

/* ---- sliding on an incline while the host calls setters ------------------------------------ */

/* What the host does before every frame of the incline runs. */
typedef enum incline_setter {
    SET_NOTHING,
    SET_GRAVITY,      ///< gr_world_set_gravity with the world's gravity
    SET_FLOOR_POSE,   ///< gr_body_set_pose with the floor's pose
    SET_GRAIN_STATE,  ///< gr_grain_set_state with the grain's state
    MOVE_FLOOR,       ///< a kinematic floor teleported along itself (a real change, same contact)
    LIFT_FLOOR,       ///< a kinematic floor set a little up or down (the normal forces change)
} incline_setter;

typedef struct incline_run {
    double accel;  ///< mean acceleration along the slope after settling [m/s^2]
    uint64_t hash; ///< the whole trajectory's state hashes, combined
} incline_run;

/* A grain on a floor under gravity tilted by theta (mu 0.5), stepped in 1 ms frames. A raft of
 * 3 x 3 spheres slides without tipping; a sphere at 65 degrees slides (mu < 2/7 tan) while it
 * spins up. */
static int incline(gr_integrator integrator, int raft, double theta_deg, double restitution, incline_setter setter,
                   incline_run *out)
{
    const double th = theta_deg * PI / 180, g = 9.81;
    gr_dem_def dem;
    gr_dem_def_init(&dem);
    dem.integrator = integrator;
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.gravity = (gr_vec3){g * sin(th), -g * cos(th), 0};
    def.dem = &dem;
    gr_world *w = NULL;
    if (gr_world_create(&def, &w) != GR_OK)
        return -1;
    gr_material_def md;
    gr_material_def_init(&md);
    md.friction = 0.5;
    md.restitution = restitution;
    md.youngs_modulus = 1e7;
    gr_material m;
    gr_add_material(w, &md, &m);
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_PLANE;
    bd.material = m;
    bd.motion = setter >= MOVE_FLOOR ? GR_MOTION_KINEMATIC : GR_MOTION_STATIC;
    gr_body floor;
    gr_add_body(w, &bd, &floor);
    gr_grain_def gd;
    gr_grain_def_init(&gd);
    gd.material = m;
    gd.radius = 0.01;
    gd.position = (gr_vec3){0, 0.0101, 0};
    if (raft) {
        gr_vec3 c[9];
        double r[9];
        for (int k = 0; k < 9; k++) {
            c[k] = (gr_vec3){1.5 * (k % 3 - 1), 0, 1.5 * (k / 3 - 1)};
            r[k] = 1;
        }
        gr_clump_def cd;
        gr_clump_def_init(&cd);
        cd.count = 9;
        cd.centres = c;
        cd.radii = r;
        gr_clump raft_shape;
        if (gr_add_clump_template(w, &cd, &raft_shape) != GR_OK)
            return -1;
        gd.shape = GR_GRAIN_CLUMP;
        gd.clump = raft_shape;
        gd.position = (gr_vec3){0, 0.0101 / (1.5 * sqrt(2.0) + 1), 0};
    }
    gr_grain h;
    if (gr_add_grain(w, &gd, &h) != GR_OK)
        return -1;
    uint64_t hash = 1469598103934665603ull;
    gr_grain_state a = {0}, b;
    const int settle = 100, frames = 600;
    for (int frame = 0; frame < settle + frames; frame++) {
        if (frame == settle)
            gr_grain_get_state(w, h, &a);
        switch (setter) {
        case SET_NOTHING: break;
        case SET_GRAVITY: gr_world_set_gravity(w, def.gravity); break;
        case SET_FLOOR_POSE: {
            gr_vec3 p;
            gr_quat q;
            gr_body_get_pose(w, floor, &p, &q);
            gr_body_set_pose(w, floor, p, q);
            break;
        }
        case SET_GRAIN_STATE: {
            gr_grain_state s;
            gr_grain_get_state(w, h, &s);
            gr_grain_set_state(w, h, &s);
            break;
        }
        case MOVE_FLOOR:
            gr_body_set_pose(w, floor, (gr_vec3){0, 0, 1e-3 * (frame % 7)}, (gr_quat){0, 0, 0, 1});
            break;
        case LIFT_FLOOR: /* +-0.1 um: a few percent of the overlap under the weight */
            gr_body_set_pose(w, floor, (gr_vec3){0, 1e-7 * (frame % 3 - 1), 0}, (gr_quat){0, 0, 0, 1});
            break;
        }
        if (gr_step(w, 1e-3) != GR_OK)
            return -1;
        hash = (hash ^ tu_state_hash(w, NULL, 0)) * 1099511628211ull;
    }
    gr_grain_get_state(w, h, &b);
    gr_world_destroy(w);
    const double T = frames * 1e-3;
    out->accel = 2 * (b.position.x - a.position.x - a.velocity.x * T) / (T * T);
    out->hash = hash;
    return 0;
}

/* Setter calls with unchanged values change nothing (bit for bit) and keep Coulomb's friction:
 * a = g (sin - mu cos). A host that really moves a kinematic floor every frame, along itself or
 * up and down, keeps Coulomb's friction too: its forces are re-evaluated at h = 0, where a
 * contact sliding at the cap took the sticking branch with its whole dashpot (the raft slid at
 * 0.0004 m/s^2 instead of 0.657; issue 19). */
static void test_setters_keep_sliding_friction(void)
{
    static const char *const names[] = {"none", "gravity", "floor pose", "grain state", "moving floor", "lifted floor"};
    const gr_integrator integrators[] = {GR_INTEGRATOR_VELOCITY_VERLET, GR_INTEGRATOR_RKF45};
    int coulomb_ok = 1, identical_ok = 1;
    for (int ig = 0; ig < 2; ig++)
        for (int raft = 0; raft < 2; raft++) {
            const double theta = raft ? 30.0 : 65.0, th = theta * PI / 180;
            const double expect = 9.81 * (sin(th) - 0.5 * cos(th));
            incline_run ref;
            CHECK(incline(integrators[ig], raft, theta, 0.5, SET_NOTHING, &ref) == 0);
            for (int setter = SET_NOTHING; setter <= LIFT_FLOOR; setter++) {
                incline_run r;
                CHECK(incline(integrators[ig], raft, theta, 0.5, (incline_setter)setter, &r) == 0);
                printf("  %s, %s at %.0f deg, %-12s: a = %.4f m/s^2 (Coulomb %.4f)%s\n",
                       ig ? "rkf45" : "verlet", raft ? "raft" : "sphere", theta, names[setter], r.accel, expect,
                       r.hash == ref.hash ? ", bit-identical" : "");
                /* (a floor lifted changes the normal force a few percent, frame by frame) */
                coulomb_ok &= fabs(r.accel - expect) < (setter == LIFT_FLOOR ? 0.03 : 0.01) * expect;
                identical_ok &= setter >= MOVE_FLOOR || r.hash == ref.hash;
            }
        }
    CHECK(coulomb_ok);
    CHECK(identical_ok);
}

/* The laws' DEFAULT values (0) are the laws they name: a pile under DEFAULT normal, tangential
 * and rolling laws is bit for bit the pile under Hertz, the history spring and no rolling
 * resistance (DEFAULT once ran the history branch without its selection pass, and EPSD's
 * branch without its arrays: results hung on uninitialised memory). */
static void test_default_laws_are_the_named_laws(void)
{
    static double x[2][4096][3];
    uint32_t n[2] = {0, 0};
    for (int named = 0; named < 2; named++) {
        gr_dem_def dd;
        gr_dem_def_init(&dd);
        dd.normal_law = named ? GR_NORMAL_HERTZ : GR_NORMAL_DEFAULT;
        dd.tangential_law = named ? GR_TANGENTIAL_HISTORY : GR_TANGENTIAL_DEFAULT;
        dd.rolling_law = named ? GR_ROLLING_NONE : GR_ROLLING_DEFAULT;
        gr_world_def wd;
        gr_world_def_init(&wd, GR_SOLVER_DEM);
        wd.solver_def = &dd;
        gr_world *w;
        CHECK_OK(NULL, gr_world_create(&wd, &w));
        CHECK_OK(w, tu_pile(w, 0.03, 0.003, 300, NULL));
        for (int i = 0; i < 60; i++)
            CHECK_OK(w, gr_step(w, 1.0 / 600));
        n[named] = gr_world_get_grain_count(w);
        CHECK(n[named] > 50 && n[named] <= 4096);
        CHECK_OK(w, gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n[named], x[named], 0));
        gr_world_destroy(w);
    }
    CHECK(n[0] == n[1] && memcmp(x[0], x[1], sizeof(double) * 3 * n[0]) == 0);
}

int main(int argc, char **argv)
{
    static const harness_test tests[] = {
        {"linear_restitution_and_contact_time", test_linear_restitution_and_contact_time},
        {"linear_speed_independent", test_linear_speed_independent},
        {"hertz_elastic_impact", test_hertz_elastic_impact},
        {"default_laws_are_the_named_laws", test_default_laws_are_the_named_laws},
        {"hertz_damped_restitution", test_hertz_damped_restitution},
        {"nonlinear_speed_dependence", test_nonlinear_speed_dependence},
        {"clamped_normal_force", test_clamped_normal_force},
        {"momentum_conserved", test_momentum_conserved},
        {"energy_conserved_elastic", test_energy_conserved_elastic},
        {"slide_to_roll", test_slide_to_roll},
        {"rolling_resistance_stops_rolling", test_rolling_resistance_stops_rolling},
        {"pile_comes_to_rest", test_pile_comes_to_rest},
        {"setters_keep_sliding_friction", test_setters_keep_sliding_friction},
    };
    return harness_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
