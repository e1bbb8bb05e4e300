/* SPDX-License-Identifier: MIT */
#include "sommer_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hourglass_mesh.h"

#define PI 3.14159265358979323846

/* Poisson fills of these scenes reach about this solid fraction (tests/test_fill.c). */
#define FILL_FRACTION 0.36

void ex_mesh_free(ex_mesh *m)
{
    free(m->v);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

static int mesh_alloc(ex_mesh *m, uint32_t nv, uint32_t nt)
{
    m->v = (gr_vec3 *)calloc(nv ? nv : 1, sizeof(gr_vec3));
    m->idx = (uint32_t *)calloc(3 * (size_t)(nt ? nt : 1), sizeof(uint32_t));
    m->nv = m->nt = 0;
    if (!m->v || !m->idx) {
        ex_mesh_free(m);
        return -1;
    }
    return 0;
}

static void tri(ex_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    m->idx[3 * m->nt] = a;
    m->idx[3 * m->nt + 1] = b;
    m->idx[3 * m->nt + 2] = c;
    m->nt++;
}

static gr_vec3 sub3(gr_vec3 a, gr_vec3 b) { return (gr_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static gr_vec3 cross3(gr_vec3 a, gr_vec3 b)
{
    return (gr_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double dot3(gr_vec3 a, gr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* A planar quad a-b-c-d (in order around it), wound so that its normal points along `out`. */
static void quad(ex_mesh *m, uint32_t a, uint32_t b, uint32_t c, uint32_t d, gr_vec3 out)
{
    const gr_vec3 n = cross3(sub3(m->v[b], m->v[a]), sub3(m->v[c], m->v[a]));
    if (dot3(n, out) >= 0) {
        tri(m, a, b, c);
        tri(m, a, c, d);
    } else {
        tri(m, a, c, b);
        tri(m, a, d, c);
    }
}

double ex_mesh_volume(const ex_mesh *m)
{
    double v = 0;
    for (uint32_t t = 0; t < m->nt; t++)
        v += dot3(m->v[m->idx[3 * t]], cross3(m->v[m->idx[3 * t + 1]], m->v[m->idx[3 * t + 2]])) / 6.0;
    return v;
}

/* ---- castle --------------------------------------------------------------------------------- */

/* Height of the castle over the unit footprint (u, v) in [-1, 1]^2, in the same units. */
static double castle_height(double u, double v)
{
    const double au = fabs(u), av = fabs(v), ring = fmax(au, av);
    double h = 0.30; /* platform */
    if (ring > 0.76) { /* curtain wall with battlements */
        const double along = au > av ? v : u;
        h = 0.52 + (((int)floor((along + 1.0) * 5.0)) % 2 ? 0.07 : 0.0);
    }
    for (int k = 0; k < 4; k++) { /* corner towers */
        const double tx = (k & 1) ? 0.72 : -0.72, tz = (k & 2) ? 0.72 : -0.72;
        const double d = hypot(u - tx, v - tz);
        if (d < 0.25) {
            const double ang = atan2(v - tz, u - tx);
            const int merlon = ((int)floor((ang + PI) / (PI / 4))) % 2;
            h = fmax(h, d > 0.15 && merlon ? 0.95 : 0.85);
        }
    }
    if (ring < 0.32) /* keep with a pyramid roof */
        h = fmax(h, 0.62 + 0.35 * (0.32 - ring) / 0.32);
    return h;
}

int castle_mesh(double size, double cx, double cz, int cells, ex_mesh *m)
{
    const uint32_t n = (uint32_t)cells + 1, per = n * n;
    if (mesh_alloc(m, 2 * per, 4 * (uint32_t)cells * (uint32_t)cells + 8 * (uint32_t)cells))
        return -1;
    const double half = 0.5 * size;
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t i = 0; i < n; i++) {
            const double u = -1.0 + 2.0 * i / cells, v = -1.0 + 2.0 * j / cells;
            const double x = cx + half * u, z = cz + half * v;
            m->v[j * n + i] = (gr_vec3){x, half * castle_height(u, v), z}; /* top */
            m->v[per + j * n + i] = (gr_vec3){x, 0.0, z};                  /* bottom */
        }
    m->nv = 2 * per;
#define TOP(i, j) ((j) * n + (i))
#define BOT(i, j) (per + (j) * n + (i))
    for (uint32_t j = 0; j + 1 < n; j++)
        for (uint32_t i = 0; i + 1 < n; i++) {
            tri(m, TOP(i, j), TOP(i + 1, j + 1), TOP(i + 1, j));
            tri(m, TOP(i, j), TOP(i, j + 1), TOP(i + 1, j + 1));
            tri(m, BOT(i, j), BOT(i + 1, j), BOT(i + 1, j + 1));
            tri(m, BOT(i, j), BOT(i + 1, j + 1), BOT(i, j + 1));
        }
    /* sides: walk the boundary with the outside on the left when seen from above */
    uint32_t loop[4 * 4096 + 1], len = 0;
    for (uint32_t i = 0; i < n - 1; i++) loop[len++] = TOP(i, 0);
    for (uint32_t j = 0; j < n - 1; j++) loop[len++] = TOP(n - 1, j);
    for (uint32_t i = n - 1; i > 0; i--) loop[len++] = TOP(i, n - 1);
    for (uint32_t j = n - 1; j > 0; j--) loop[len++] = TOP(0, j);
    for (uint32_t k = 0; k < len; k++) {
        const uint32_t p = loop[k], q = loop[(k + 1) % len];
        tri(m, p, q, q + per);
        tri(m, p, q + per, p + per);
    }
#undef TOP
#undef BOT
    return 0;
}

/* ---- bucket, cylinder, squirrel ---------------------------------------------------------- */

int bucket_mesh(gr_vec3 h, double t, ex_mesh *m)
{
    if (mesh_alloc(m, 16, 28))
        return -1;
    /* outer corners 0-7 (bit 0: +x, bit 1: +y, bit 2: +z); inner top 8-11, inner bottom 12-15
     * (bit 0: +x, bit 1: +z) */
    for (int k = 0; k < 8; k++)
        m->v[k] = (gr_vec3){k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z};
    for (int k = 0; k < 4; k++) {
        const double x = k & 1 ? h.x - t : -h.x + t, z = k & 2 ? h.z - t : -h.z + t;
        m->v[8 + k] = (gr_vec3){x, h.y, z};
        m->v[12 + k] = (gr_vec3){x, -h.y + t, z};
    }
    m->nv = 16;
    const gr_vec3 px = {1, 0, 0}, nx = {-1, 0, 0}, py = {0, 1, 0}, ny = {0, -1, 0}, pz = {0, 0, 1}, nz = {0, 0, -1};
    quad(m, 0, 1, 5, 4, ny);       /* outer bottom */
    quad(m, 0, 2, 6, 4, nx);       /* outer -x */
    quad(m, 1, 3, 7, 5, px);       /* outer +x */
    quad(m, 0, 1, 3, 2, nz);       /* outer -z */
    quad(m, 4, 5, 7, 6, pz);       /* outer +z */
    quad(m, 2, 6, 10, 8, py);      /* rim -x */
    quad(m, 3, 7, 11, 9, py);      /* rim +x */
    quad(m, 2, 3, 9, 8, py);       /* rim -z */
    quad(m, 6, 7, 11, 10, py);     /* rim +z */
    quad(m, 8, 10, 14, 12, px);    /* inner wall at -x faces the cavity */
    quad(m, 9, 11, 15, 13, nx);    /* inner +x */
    quad(m, 8, 9, 13, 12, pz);     /* inner -z */
    quad(m, 10, 11, 15, 14, nz);   /* inner +z */
    quad(m, 12, 13, 15, 14, py);   /* inner bottom */
    return 0;
}

int cylinder_mesh(double r, double y0, double y1, int around, ex_mesh *m)
{
    const uint32_t a = (uint32_t)around;
    if (mesh_alloc(m, 2 * a + 2, 4 * a))
        return -1;
    for (uint32_t j = 0; j < a; j++) {
        const double t = 2 * PI * j / a;
        m->v[j] = (gr_vec3){r * cos(t), y0, r * sin(t)};
        m->v[a + j] = (gr_vec3){r * cos(t), y1, r * sin(t)};
    }
    m->v[2 * a] = (gr_vec3){0, y0, 0};
    m->v[2 * a + 1] = (gr_vec3){0, y1, 0};
    m->nv = 2 * a + 2;
    for (uint32_t j = 0; j < a; j++) {
        const uint32_t k = (j + 1) % a;
        const double t = 2 * PI * (j + 0.5) / a;
        quad(m, j, k, a + k, a + j, (gr_vec3){cos(t), 0, sin(t)});
        const gr_vec3 down = {0, -1, 0}, up = {0, 1, 0};
        if (dot3(cross3(sub3(m->v[k], m->v[2 * a]), sub3(m->v[j], m->v[2 * a])), down) >= 0)
            tri(m, 2 * a, k, j);
        else
            tri(m, 2 * a, j, k);
        if (dot3(cross3(sub3(m->v[a + j], m->v[2 * a + 1]), sub3(m->v[a + k], m->v[2 * a + 1])), up) >= 0)
            tri(m, 2 * a + 1, a + j, a + k);
        else
            tri(m, 2 * a + 1, a + k, a + j);
    }
    return 0;
}

/* Radius of the squirrel along the unit direction d (body length 1): an ellipsoid with a head
 * bump in front and a bushy tail curling up behind. */
static double squirrel_radius(gr_vec3 d)
{
    const double ex = 0.5, ey = 0.26, ez = 0.22;
    double r = 1.0 / sqrt(d.x * d.x / (ex * ex) + d.y * d.y / (ey * ey) + d.z * d.z / (ez * ez));
    const gr_vec3 head = {0.78, 0.62, 0}, tail = {-0.6, 0.8, 0};
    const double hn = sqrt(dot3(head, head)), tn = sqrt(dot3(tail, tail));
    const double ch = dot3(d, head) / hn, ct = dot3(d, tail) / tn;
    if (ch > 0.9)
        r += 0.16 * (ch - 0.9) / 0.1;
    if (ct > 0.8)
        r += 0.3 * (ct - 0.8) / 0.2;
    return r;
}

int squirrel_mesh(double length, ex_mesh *m)
{
    /* an octahedron refined 3 times: 258 vertices, 512 triangles */
    enum { LEVELS = 3 };
    const uint32_t nt_final = 8u << (2 * LEVELS), nv_final = 4u << (2 * LEVELS);
    if (mesh_alloc(m, nv_final + 2, nt_final))
        return -1;
    static const gr_vec3 o[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const uint32_t f[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    memcpy(m->v, o, sizeof o);
    memcpy(m->idx, f, sizeof f);
    uint32_t n = 6, t = 8;
    uint32_t *old = (uint32_t *)malloc(sizeof(uint32_t) * 3 * nt_final);
    if (!old) {
        ex_mesh_free(m);
        return -1;
    }
    for (int l = 0; l < LEVELS; l++) {
        memcpy(old, m->idx, sizeof(uint32_t) * 3 * t);
        uint32_t nt = 0;
        for (uint32_t k = 0; k < t; k++) {
            const uint32_t a = old[3 * k], b = old[3 * k + 1], c = old[3 * k + 2];
            const uint32_t e[3][2] = {{a, b}, {b, c}, {c, a}};
            uint32_t mid[3];
            for (int j = 0; j < 3; j++) {
                const gr_vec3 p = m->v[e[j][0]], q = m->v[e[j][1]];
                gr_vec3 s = {p.x + q.x, p.y + q.y, p.z + q.z};
                const double len = sqrt(dot3(s, s));
                s = (gr_vec3){s.x / len, s.y / len, s.z / len};
                uint32_t found = n;
                for (uint32_t q2 = 0; q2 < n; q2++) {
                    const gr_vec3 dd = sub3(m->v[q2], s);
                    if (dot3(dd, dd) < 1e-20)
                        found = q2;
                }
                if (found == n)
                    m->v[n++] = s;
                mid[j] = found;
            }
            const uint32_t tt[12] = {a, mid[0], mid[2], mid[0], b, mid[1], mid[2], mid[1], c, mid[0], mid[1], mid[2]};
            memcpy(m->idx + 3 * nt, tt, sizeof tt);
            nt += 4;
        }
        t = nt;
    }
    free(old);
    for (uint32_t k = 0; k < n; k++) {
        const double r = squirrel_radius(m->v[k]) * length;
        m->v[k] = (gr_vec3){m->v[k].x * r, m->v[k].y * r, m->v[k].z * r};
    }
    m->nv = n;
    m->nt = t;
    return 0;
}

/* ---- scenes ------------------------------------------------------------------------------- */

sommer_def sommer_paper_def(sommer_kind kind)
{
    sommer_def d = {kind, 0.03, 0.01, 2400, 2, 0};
    switch (kind) {
    case SOMMER_SANDCASTLE: break;
    case SOMMER_EXCAVATOR: d.r_lr = 0.02, d.r_hr = 0.008, d.lr_target = 6800; break;
    case SOMMER_HOURGLASS: d.r_lr = 0.028, d.r_hr = 0.008, d.lr_target = 10000; break;
    case SOMMER_SQUIRREL: d.r_lr = 0.02, d.r_hr = 0.0075, d.lr_target = 10000; break;
    }
    return d;
}

static const char *const names[] = {"sandcastle", "excavator", "hourglass", "squirrel"};

const char *sommer_name(sommer_kind kind) { return names[kind]; }

int sommer_kind_from_name(const char *name)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, names[k]))
            return k;
    return -1;
}

/* Region volume a Poisson fill needs for `count` grains of radius r. */
static double region_volume(uint32_t count, double r) { return count * 4.0 / 3.0 * PI * r * r * r / FILL_FRACTION; }

#define TRY(call)                      \
    do {                               \
        const gr_status s_ = (call);   \
        if (s_ != GR_OK)               \
            return s_;                 \
    } while (0)

static gr_status add_floor(sommer_scene *s)
{
    gr_body_def d;
    gr_body_def_init(&d);
    d.material = s->sand;
    d.shape = GR_SHAPE_PLANE;
    return gr_add_body(s->w, &d, &s->floor);
}

static gr_status fill_poisson_mesh(sommer_scene *s, const ex_mesh *m, uint32_t max_count)
{
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = s->sand;
    f.pattern = GR_FILL_POISSON;
    f.radius = s->def.r_lr;
    f.attempts = 30;
    f.max_count = max_count;
    return gr_fill_mesh(s->w, &f, m->v, m->nv, m->idx, m->nt, NULL, NULL, 0);
}

static gr_status build_castle(sommer_scene *s)
{
    ex_mesh unit;
    if (castle_mesh(1.0, 0, 0, 32, &unit))
        return GR_ERROR_OUT_OF_MEMORY;
    const double v1 = ex_mesh_volume(&unit);
    ex_mesh_free(&unit);
    s->size = cbrt(region_volume(s->def.lr_target, s->def.r_lr) / v1);
    ex_mesh castle;
    if (castle_mesh(s->size, 0, 0, 32, &castle))
        return GR_ERROR_OUT_OF_MEMORY;
    const gr_status st = fill_poisson_mesh(s, &castle, 0);
    ex_mesh_free(&castle);
    return st;
}

/* The bucket's scripted pose at scene time t: position (x, y) and tilt about z. Distances in
 * units of the bed size k. */
typedef struct bucket_key {
    double t, x, y, deg;
} bucket_key;
static const bucket_key bucket_path[] = {
    {0.0, -0.45, 0.70, -90}, {1.0, -0.45, 0.27, -90},          /* descend, opening ahead */
    {2.0, -0.05, 0.27, -90}, {2.8, 0.10, 0.30, 0},             /* drag, curl */
    {SOMMER_LIFTED, 0.10, 0.85, 0},                            /* lift */
    {4.4, 0.98, 0.85, 0},    {SOMMER_POUR, 0.98, 0.85, 0},     /* carry beyond the bed */
    {6.0, 0.98, 0.85, -150}, {SOMMER_EXCAVATOR_END, 0.98, 0.85, -150}, /* pour */
};

static void bucket_pose(const sommer_scene *s, double t, double *x, double *y, double *angle)
{
    const int n = (int)(sizeof bucket_path / sizeof bucket_path[0]);
    int k = 0;
    while (k + 2 < n && t >= bucket_path[k + 1].t)
        k++;
    const bucket_key *a = &bucket_path[k], *b = &bucket_path[k + 1];
    double u = (t - a->t) / (b->t - a->t);
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    const double k_size = s->size;
    *x = k_size * (a->x + u * (b->x - a->x));
    *y = k_size * (a->y + u * (b->y - a->y));
    *angle = (a->deg + u * (b->deg - a->deg)) * PI / 180;
}

static gr_status build_excavator(sommer_scene *s)
{
    /* a bed of 1.4 x 0.3 x 1.2 k filled to the brim of a container 1.4 x 0.4 x 1.2 k */
    const double unit = 1.4 * 0.3 * 1.2;
    const double k = cbrt(region_volume(s->def.lr_target, s->def.r_lr) / unit);
    s->size = k;
    gr_body_def c;
    gr_body_def_init(&c);
    c.material = s->sand;
    c.shape = GR_SHAPE_CONTAINER;
    c.open_faces = GR_FACE_POS_Y;
    c.half_extents = (gr_vec3){0.7 * k, 0.2 * k, 0.6 * k};
    c.position = (gr_vec3){0, 0.2 * k, 0};
    TRY(gr_add_body(s->w, &c, &s->container));
    gr_fill_def f;
    gr_fill_def_init(&f);
    f.material = s->sand;
    f.pattern = GR_FILL_POISSON;
    f.radius = s->def.r_lr;
    f.attempts = 30;
    f.min = (gr_vec3){-0.7 * k, 0, -0.6 * k};
    f.max = (gr_vec3){0.7 * k, 0.3 * k, 0.6 * k};
    TRY(gr_fill_box(s->w, &f, NULL, NULL, 0));
    s->bucket_half = (gr_vec3){0.25 * k, 0.15 * k, 0.22 * k};
    s->bucket_wall = fmax(0.03 * k, 1.5 * s->def.r_lr);
    ex_mesh b;
    if (bucket_mesh(s->bucket_half, s->bucket_wall, &b))
        return GR_ERROR_OUT_OF_MEMORY;
    double x, y, a;
    bucket_pose(s, 0, &x, &y, &a);
    s->bucket_angle = a;
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.material = s->sand;
    bd.shape = GR_SHAPE_MESH;
    bd.motion = GR_MOTION_KINEMATIC;
    bd.mesh_vertices = b.v;
    bd.mesh_indices = b.idx;
    bd.mesh_vertex_count = b.nv;
    bd.mesh_triangle_count = b.nt;
    bd.particle_radius = s->def.r_lr;
    bd.position = (gr_vec3){x, y, 0};
    bd.orientation = (gr_quat){0, 0, sin(0.5 * a), cos(0.5 * a)};
    const gr_status st = gr_add_body(s->w, &bd, &s->bucket);
    ex_mesh_free(&b);
    return st;
}

static gr_status build_hourglass(sommer_scene *s)
{
    /* the upper bulb (a cylinder of height 1.1 x its radius) holds the sand */
    const double vol = region_volume(s->def.lr_target, s->def.r_lr);
    const double bulb_r = cbrt(vol / (PI * 1.1));
    const hourglass_shape shape = {bulb_r, 8.0 * s->def.r_lr, 1.3 * bulb_r, 1.1 * bulb_r, 2.0 * s->def.r_lr};
    s->size = bulb_r;
    s->neck_y = hourglass_neck_y(&shape);
    /* wall particles smaller than the grains: a smoother glass */
    TRY(hourglass_add_body(s->w, &shape, s->sand, 0.75 * s->def.r_lr, &s->glass));
    /* the sand: a cylinder of the volume the target count needs, filled whole (the points then
     * sample the same region, as the seed does); a Poisson fill packs this cylinder to about
     * 0.39, not the castle's FILL_FRACTION */
    ex_mesh cyl;
    const double y0 = s->neck_y + shape.cone_h;
    if (cylinder_mesh(bulb_r, y0, y0 + vol * (FILL_FRACTION / 0.39) / (PI * bulb_r * bulb_r), 48, &cyl))
        return GR_ERROR_OUT_OF_MEMORY;
    const gr_status st = fill_poisson_mesh(s, &cyl, 0);
    ex_mesh_free(&cyl);
    return st;
}

gr_status sommer_create(const sommer_def *def, sommer_scene *s)
{
    memset(s, 0, sizeof *s);
    s->def = *def;
    gr_pbd_def pbd;
    gr_pbd_def_init(&pbd);
    pbd.hr_radius = def->r_hr;
    /* the paper's scenes are interactive: a budget of 8 sweeps per substep (the library's 64
     * converge impacts and squeezed sand fully, at 2-9x the cost in these scenes:
     * bench/results-sommer.md) */
    pbd.max_iterations = 8;
    gr_world_def wd;
    gr_world_def_init(&wd, GR_SOLVER_PBD);
    wd.pbd = &pbd;
    wd.worker_count = def->workers;
    TRY(gr_world_create(&wd, &s->w));
    {
        gr_material_def md;
        gr_material_def_init(&md);
        md.static_friction = 0.6; /* (as built; derived from friction 0.5 they would be 0.09 / 0.07) */
        md.kinetic_friction = 0.5;
        TRY(gr_add_material(s->w, &md, &s->sand));
    }
    TRY(add_floor(s));
    switch (def->kind) {
    case SOMMER_SANDCASTLE: return build_castle(s);
    case SOMMER_EXCAVATOR: return build_excavator(s);
    case SOMMER_HOURGLASS: return build_hourglass(s);
    case SOMMER_SQUIRREL:
        TRY(build_castle(s));
        if (squirrel_mesh(0.35 * s->size, &s->squirrel_shape))
            return GR_ERROR_OUT_OF_MEMORY;
        s->throw_time = 2.0; /* into the slumped castle */
        return GR_OK;
    }
    return GR_ERROR_INVALID_ARGUMENT;
}

/* Throw the squirrel from the upper left so that it would reach the floor below the castle's
 * centre after 0.35 s of flight: it dives into the slumped castle. */
static gr_status throw_squirrel(sommer_scene *s)
{
    const double T = 0.35, g = 9.81;
    const gr_vec3 from = {-1.1 * s->size, 1.0 * s->size, 0}, to = {0, 0, 0};
    s->throw_velocity = (gr_vec3){(to.x - from.x) / T, (to.y - from.y + 0.5 * g * T * T) / T, 0};
    gr_material_def md;
    gr_material_def_init(&md);
    md.density = 1000; /* lighter than the sand (2500) */
    md.static_friction = 0.6;
    md.kinetic_friction = 0.5;
    gr_material fur;
    TRY(gr_add_material(s->w, &md, &fur));
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.material = s->sand;
    bd.shape = GR_SHAPE_MESH;
    bd.motion = GR_MOTION_DYNAMIC;
    bd.mesh_vertices = s->squirrel_shape.v;
    bd.mesh_indices = s->squirrel_shape.idx;
    bd.mesh_vertex_count = s->squirrel_shape.nv;
    bd.mesh_triangle_count = s->squirrel_shape.nt;
    bd.particle_radius = s->def.r_lr;
    bd.material = fur;
    bd.position = from;
    bd.linear_velocity = s->throw_velocity;
    bd.angular_velocity = (gr_vec3){0, 0, -3};
    return gr_add_body(s->w, &bd, &s->squirrel);
}

gr_status sommer_step(sommer_scene *s, double dt)
{
    if (s->def.kind == SOMMER_EXCAVATOR) {
        double x0, y0, a0, x1, y1, a1;
        bucket_pose(s, s->t, &x0, &y0, &a0);
        bucket_pose(s, s->t + dt, &x1, &y1, &a1);
        /* the bucket turns about its own centre: its centre's velocity is the path's */
        TRY(gr_body_set_velocity(s->w, s->bucket, (gr_vec3){(x1 - x0) / dt, (y1 - y0) / dt, 0},
                                 (gr_vec3){0, 0, (a1 - a0) / dt}));
        s->bucket_angle = a1;
    }
    if (s->def.kind == SOMMER_SQUIRREL && s->t + 1e-9 >= s->throw_time && !s->squirrel.id)
        TRY(throw_squirrel(s));
    TRY(gr_step(s->w, dt));
    s->t += dt;
    return GR_OK;
}

void sommer_destroy(sommer_scene *s)
{
    gr_world_destroy(s->w);
    ex_mesh_free(&s->squirrel_shape);
    s->w = NULL;
}

uint32_t sommer_grains_in_bucket(const sommer_scene *s)
{
    if (!s->bucket.id)
        return 0;
    gr_vec3 p;
    gr_quat q;
    if (gr_body_get_pose(s->w, s->bucket, &p, &q) != GR_OK)
        return 0;
    const uint32_t n = gr_world_get_grain_count(s->w);
    double *x = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    if (!x)
        return 0;
    gr_read_grains(s->w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, x, 0);
    /* the cavity in the bucket frame (rotation about z only) */
    const double c = 1 - 2 * (q.z * q.z + q.x * q.x), sn = 2 * (q.w * q.z + q.x * q.y);
    const gr_vec3 h = s->bucket_half;
    const double t = s->bucket_wall;
    uint32_t inside = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double dx = x[3 * i] - p.x, dy = x[3 * i + 1] - p.y, dz = x[3 * i + 2] - p.z;
        const double lx = c * dx + sn * dy, ly = -sn * dx + c * dy;
        inside += fabs(lx) < h.x - t && fabs(dz) < h.z - t && ly > -h.y + t && ly < h.y + s->def.r_lr;
    }
    free(x);
    return inside;
}

void sommer_open_example(sommer_kind kind, unsigned grains, double r_lr, double r_hr, unsigned workers,
                         sommer_scene *s)
{
    sommer_def def = sommer_paper_def(kind);
    def.lr_target = grains;
    def.r_lr = r_lr;
    def.r_hr = r_hr;
    def.workers = workers;
    const gr_status st = sommer_create(&def, s);
    if (st != GR_OK) {
        fprintf(stderr, "building the %s scene failed: %s (%s)\n", sommer_name(kind), gr_status_string(st),
                s->w ? gr_world_last_error(s->w) : "");
        exit(1);
    }
}
