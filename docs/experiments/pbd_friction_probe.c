#define _POSIX_C_SOURCE 200809L
#include <granular/granular.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define GR_TEST_PI 3.14159265358979323846
static double SUB=1.0/120; 
static gr_status pbd_world(gr_world **w, unsigned workers, const gr_pbd_def *pbd, gr_vec3 gravity)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_PBD);
    def.pbd = pbd;
    def.worker_count = workers;
    def.gravity = gravity;
    return gr_world_create(&def, w);
}

static gr_status add_plane(gr_world *w, gr_vec3 normal, gr_material m, gr_body *out)
{
    gr_body_def b;
    gr_body_def_init(&b);
    b.shape = GR_SHAPE_PLANE;
    b.normal = normal;
    b.material = m;
    return gr_add_body(w, &b, out);
}

static gr_material friction_material(gr_world *w, double mu_s, double mu_k)
{
    gr_material_def md;
    gr_material_def_init(&md);
    md.static_friction = mu_s;
    md.kinetic_friction = mu_k;
    gr_material m = {0};
    gr_add_material(w, &md, &m);
    return m;
}

static double repose_angle(double mu_s, uint32_t iterations, uint32_t *count)
{
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.iterations = iterations;
    pbd.max_substep = SUB;
    gr_world *w;
    if (pbd_world(&w, 1, &pbd, (gr_vec3){0, -9.81, 0}) != GR_OK)
        return NAN;
    gr_material m = friction_material(w, mu_s, 0.8 * mu_s);
    const double r = 0.01;
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.pattern = GR_FILL_POISSON;
    f.material = m;
    f.radius = r;
    f.min = (gr_vec3){-0.08, 0, -0.08};
    f.max = (gr_vec3){0.08, 0.32, 0.08};
    if (add_plane(w, (gr_vec3){0, 1, 0}, m, NULL) != GR_OK || gr_fill_box(w, &f, count, NULL, 0) != GR_OK) {
        gr_world_destroy(w);
        return NAN;
    }
    for (int k = 0; k < 150; k++)
        if (gr_step(w, 1.0 / 60) != GR_OK) {
            gr_world_destroy(w);
            return NAN;
        }
    const uint32_t n = gr_world_get_grain_count(w);
    double *x = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    gr_world_destroy(w);
    enum { RINGS = 40 };
    double top[RINGS] = {0}, rmax = 0;
    for (uint32_t i = 0; i < n; i++)
        if (x[3 * i + 1] < 2.5 * r) /* the heap's foot: grains on the floor */
            rmax = fmax(rmax, hypot(x[3 * i], x[3 * i + 2]));
    const double ring = rmax / RINGS;
    for (uint32_t i = 0; i < n; i++) {
        const int b = (int)(hypot(x[3 * i], x[3 * i + 2]) / ring);
        if (b >= 0 && b < RINGS)
            top[b] = fmax(top[b], x[3 * i + 1] + r);
    }
    free(x);
    /* a cone's height over its foot's radius: the mean top of the inner fifth */
    double h = 0;
    for (int b = 0; b < RINGS / 5; b++)
        h += top[b] / (RINGS / 5);
    return atan((h - r) / rmax) * 180 / GR_TEST_PI;
}

static double layer_on_incline(double theta_deg, double mu_s, uint32_t iterations)
{
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.iterations = iterations;
    pbd.max_substep = SUB;
    gr_world *w;
    if (pbd_world(&w, 1, &pbd, (gr_vec3){0, -9.81, 0}) != GR_OK)
        return NAN;
    gr_material m = friction_material(w, mu_s, 0.8 * mu_s);
    const double r = 0.01, L = 0.2;
    gr_body_def cd;
    gr_body_def_init(&cd);
    cd.shape = GR_SHAPE_CONTAINER;
    cd.open_faces = GR_FACE_POS_Y | GR_FACE_NEG_Y;
    cd.half_extents = (gr_vec3){L, 0.2, L};
    cd.position = (gr_vec3){0, 0.2, 0};
    cd.material = m;
    gr_body box;
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = m;
    f.radius = r;
    f.pattern = GR_FILL_POISSON;
    f.min = (gr_vec3){-L, 0, -L};
    f.max = (gr_vec3){L, 0.08, L};
    uint32_t n = 0;
    if (add_plane(w, (gr_vec3){0, 1, 0}, m, NULL) != GR_OK || gr_add_body(w, &cd, &box) != GR_OK ||
        gr_fill_box(w, &f, &n, NULL, 0) != GR_OK) {
        gr_world_destroy(w);
        return NAN;
    }
    for (int k = 0; k < 90; k++)
        gr_step(w, 1.0 / 60);
    const double th = theta_deg * GR_TEST_PI / 180;
    if (gr_remove_body(w, box) != GR_OK || gr_world_set_gravity(w, (gr_vec3){9.81 * sin(th), -9.81 * cos(th), 0}) != GR_OK) {
        gr_world_destroy(w);
        return NAN;
    }
    double *x0 = (double *)malloc(sizeof(double) * 3 * n), *x1 = (double *)malloc(sizeof(double) * 3 * n);
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x0, 0);
    for (int k = 0; k < 60; k++)
        if (gr_step(w, 1.0 / 60) != GR_OK)
            break;
    gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x1, 0);
    double moved = 0, count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (fabs(x0[3 * i]) < 0.5 * L && fabs(x0[3 * i + 2]) < 0.5 * L && x0[3 * i + 1] < 1.5 * r) {
            moved += x1[3 * i] - x0[3 * i];
            count++;
        }
    free(x0);
    free(x1);
    gr_world_destroy(w);
    return count > 0 ? moved / count : NAN;
}

int main(int argc,char**argv){ SUB=1.0/atof(argv[1]); uint32_t it=atoi(argv[2]);
  uint32_t n; printf("substep 1/%s, %u iterations: heaps mu 0.3: %.1f, 0.6: %.1f deg;", argv[1], it, repose_angle(0.3,it,&n), repose_angle(0.6,it,&n));
  printf(" layer mu 0.6 at 22/26/30/34 deg: %.3g %.3g %.3g %.3g m\n", layer_on_incline(22,0.6,it), layer_on_incline(26,0.6,it), layer_on_incline(30,0.6,it), layer_on_incline(34,0.6,it));
  return 0;}
