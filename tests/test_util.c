/* SPDX-License-Identifier: MIT */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *tu_alloc_fn(size_t size, size_t align, void *user)
{
    tu_alloc *a = (tu_alloc *)user;
    long long k = a->calls++;
    if ((long long)size > a->max_request)
        a->max_request = (long long)size;
    if (a->fail_at >= 0 && (a->fail_once ? k == a->fail_at : k >= a->fail_at)) {
        a->failures++;
        return NULL;
    }
    size_t rounded = (size + align - 1) / align * align;
    void *p = aligned_alloc(align, rounded);
    if (p) {
        a->live++;
        a->live_bytes += (long long)size;
    }
    return p;
}

static void tu_free_fn(void *ptr, size_t size, void *user)
{
    tu_alloc *a = (tu_alloc *)user;
    if (!ptr)
        return;
    a->live--;
    a->live_bytes -= (long long)size;
    free(ptr);
}

void tu_alloc_init(tu_alloc *a)
{
    memset(a, 0, sizeof *a);
    a->fail_at = -1;
}

gr_allocator tu_allocator(tu_alloc *a)
{
    gr_allocator g;
    g.alloc = tu_alloc_fn;
    g.free = tu_free_fn;
    g.user = a;
    return g;
}

uint64_t tu_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t tu_state_hash(const gr_world *w, const gr_body *bodies, int nbodies)
{
    uint64_t h = 1469598103934665603ull;
    uint32_t n = gr_world_get_grain_count(w);
    h = tu_fnv(h, &n, sizeof n);
    double t = gr_world_get_time(w);
    h = tu_fnv(h, &t, sizeof t);
    static const gr_field fields[] = {GR_FIELD_POSITION, GR_FIELD_VELOCITY, GR_FIELD_ANGULAR_VELOCITY,
                                      GR_FIELD_ORIENTATION, GR_FIELD_RADIUS, GR_FIELD_MASS};
    static const int width[] = {3, 3, 3, 4, 1, 1};
    double *buf = (double *)malloc(sizeof(double) * 4 * (n ? n : 1));
    for (int f = 0; f < 6; f++) {
        if (gr_read_grains(w, fields[f], GR_TYPE_F64, 0, n, buf, 0) != GR_OK)
            return 0;
        h = tu_fnv(h, buf, sizeof(double) * (size_t)width[f] * n);
    }
    uint64_t *ids = (uint64_t *)buf;
    gr_read_grains(w, GR_FIELD_HANDLE, GR_TYPE_U64, 0, n, ids, 0);
    /* the world tag in the top 21 bits differs between world instances by design */
    for (uint32_t i = 0; i < n; i++)
        ids[i] &= 0x000007ffffffffffull;
    h = tu_fnv(h, ids, sizeof(uint64_t) * n);
    free(buf);
    for (int b = 0; b < nbodies; b++) {
        gr_vec3 p;
        gr_quat q;
        if (gr_body_get_pose(w, bodies[b], &p, &q) == GR_OK) {
            h = tu_fnv(h, &p, sizeof p);
            h = tu_fnv(h, &q, sizeof q);
        }
    }
    return h;
}

void tu_stream_init(tu_stream *s)
{
    memset(s, 0, sizeof *s);
    s->fail_after = (size_t)-1;
}

void tu_stream_free(tu_stream *s)
{
    free(s->data);
    memset(s, 0, sizeof *s);
}

size_t tu_stream_write(void *user, const void *data, size_t size)
{
    tu_stream *s = (tu_stream *)user;
    if (s->size + size > s->fail_after)
        return 0;
    if (s->size + size > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        while (cap < s->size + size)
            cap *= 2;
        unsigned char *d = (unsigned char *)realloc(s->data, cap);
        if (!d)
            return 0;
        s->data = d;
        s->cap = cap;
    }
    memcpy(s->data + s->size, data, size);
    s->size += size;
    return size;
}

size_t tu_stream_read(void *user, void *data, size_t size)
{
    tu_stream *s = (tu_stream *)user;
    size_t n = s->size - s->pos < size ? s->size - s->pos : size;
    if (n == 0)
        return 0;
    memcpy(data, s->data + s->pos, n);
    s->pos += n;
    return n;
}

gr_status tu_world(gr_world **out, unsigned workers, const gr_allocator *alloc)
{
    gr_world_def def;
    gr_world_def_init(&def, GR_SOLVER_DEM);
    def.worker_count = workers;
    if (alloc)
        def.allocator = *alloc;
    return gr_world_create(&def, out);
}

gr_status tu_pile(gr_world *w, double half, double r, unsigned n_max, gr_body *box)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_CONTAINER;
    bd.open_faces = GR_FACE_POS_Y;
    bd.half_extents = (gr_vec3){half, 2 * half, half};
    bd.position = (gr_vec3){0, 2 * half, 0};
    gr_status s = gr_add_body(w, &bd, box);
    if (s != GR_OK)
        return s;
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    fd.min = (gr_vec3){-half, 0, -half};
    fd.max = (gr_vec3){half, 4 * half, half};
    fd.radius = r;
    fd.max_count = n_max;
    fd.seed = 7;
    return gr_fill_box(w, &fd, NULL, NULL, 0);
}

double tu_kinetic_energy(const gr_world *w)
{
    uint32_t n = gr_world_get_grain_count(w);
    double *v = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *o = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *m = (double *)malloc(sizeof(double) * (n ? n : 1));
    double *r = (double *)malloc(sizeof(double) * (n ? n : 1));
    gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, v, 0);
    gr_read_grains(w, GR_FIELD_ANGULAR_VELOCITY, GR_TYPE_F64, 0, n, o, 0);
    gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, m, 0);
    gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, n, r, 0);
    double e = 0;
    for (uint32_t i = 0; i < n; i++) {
        double v2 = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
        double w2 = o[3 * i] * o[3 * i] + o[3 * i + 1] * o[3 * i + 1] + o[3 * i + 2] * o[3 * i + 2];
        e += 0.5 * m[i] * v2 + 0.5 * 0.4 * m[i] * r[i] * r[i] * w2;
    }
    free(v);
    free(o);
    free(m);
    free(r);
    return e;
}

uint32_t tu_crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

void tu_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void tu_reseal(tu_stream *s)
{
    tu_put32(s->data + 24, tu_crc32(s->data + 32, s->size - 32));
    tu_put32(s->data + 28, tu_crc32(s->data, 28));
}

void tu_box_mesh(gr_vec3 h, gr_vec3 c, gr_vec3 v[8], uint32_t idx[36])
{
    for (int k = 0; k < 8; k++) {
        v[k].x = c.x + (k & 1 ? h.x : -h.x);
        v[k].y = c.y + (k & 2 ? h.y : -h.y);
        v[k].z = c.z + (k & 4 ? h.z : -h.z);
    }
    static const uint32_t faces[36] = {0, 4, 6, 0, 6, 2,  /* -x */
                                       1, 3, 7, 1, 7, 5,  /* +x */
                                       0, 1, 5, 0, 5, 4,  /* -y */
                                       2, 6, 7, 2, 7, 3,  /* +y */
                                       0, 2, 3, 0, 3, 1,  /* -z */
                                       4, 5, 7, 4, 7, 6}; /* +z */
    memcpy(idx, faces, sizeof faces);
}

static gr_vec3 unit(gr_vec3 a)
{
    const double l = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    gr_vec3 r = {a.x / l, a.y / l, a.z / l};
    return r;
}

uint32_t tu_sphere_mesh(double r, int levels, gr_vec3 *v, uint32_t *idx, uint32_t *nv)
{
    static const gr_vec3 o[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const uint32_t f[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    memcpy(v, o, sizeof o);
    memcpy(idx, f, sizeof f);
    uint32_t n = 6, t = 8;
    for (int l = 0; l < levels; l++) {
        uint32_t *old = (uint32_t *)malloc(sizeof(uint32_t) * 3 * t);
        memcpy(old, idx, sizeof(uint32_t) * 3 * t);
        uint32_t nt = 0;
        for (uint32_t k = 0; k < t; k++) {
            uint32_t a = old[3 * k], b = old[3 * k + 1], c = old[3 * k + 2], m[3];
            const uint32_t e[3][2] = {{a, b}, {b, c}, {c, a}};
            for (int j = 0; j < 3; j++) {
                const gr_vec3 p = v[e[j][0]], q = v[e[j][1]];
                const gr_vec3 mid = unit((gr_vec3){p.x + q.x, p.y + q.y, p.z + q.z});
                uint32_t found = n;
                for (uint32_t s = 0; s < n; s++) {
                    const double dx = v[s].x - mid.x, dy = v[s].y - mid.y, dz = v[s].z - mid.z;
                    if (dx * dx + dy * dy + dz * dz < 1e-20)
                        found = s;
                }
                if (found == n)
                    v[n++] = mid;
                m[j] = found;
            }
            const uint32_t tri[12] = {a, m[0], m[2], m[0], b, m[1], m[2], m[1], c, m[0], m[1], m[2]};
            memcpy(idx + 3 * nt, tri, sizeof tri);
            nt += 4;
        }
        free(old);
        t = nt;
    }
    for (uint32_t k = 0; k < n; k++) {
        v[k].x *= r;
        v[k].y *= r;
        v[k].z *= r;
    }
    *nv = n;
    return t;
}

uint32_t tu_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A cursor over the snapshot: reads fail (return 0 and flag) past the end. */
typedef struct walk {
    const unsigned char *d;
    size_t size, at;
    int bad;
} walk;

static void skip(walk *w, uint64_t bytes)
{
    if (w->bad || bytes > w->size - w->at) {
        w->bad = 1;
        return;
    }
    w->at += (size_t)bytes;
}

static uint32_t u32(walk *w)
{
    if (w->bad || w->size - w->at < 4) {
        w->bad = 1;
        return 0;
    }
    uint32_t v = tu_get32(w->d + w->at);
    w->at += 4;
    return v;
}

int tu_snap_walk(const unsigned char *data, size_t size, gr_solver_kind solver, tu_snap_map *m)
{
    memset(m, 0, sizeof *m);
    walk w = {data, size, 32, 0};
    /* world: tag, gravity, substep, seed, time, last substep, 4 counters, bounds, default material */
    skip(&w, 4 + 24 + 8 + 8 + 8 + 8 + 32 + 48 + 4);
    /* the rolling law (the third word): EPSD writes rolling histories (from format 11 also the
     * default law, EPSD) */
    const uint32_t law = w.at + 12 <= size ? tu_get32(data + w.at + 8) : 0;
    const int roll = law == GR_ROLLING_EPSD || (law == GR_ROLLING_DEFAULT && tu_get32(data + 8) >= 11);
    skip(&w, 5 * 4); /* DEM settings: 5 words, a count, 16 numbers (format 8: 21 and a word) */
    const uint32_t dem_numbers = u32(&w);
    if (dem_numbers != 16 && dem_numbers != 21)
        return 0;
    skip(&w, (uint64_t)dem_numbers * 8 + (dem_numbers == 21 ? 4 : 0));
    m->pbd_def = w.at;
    skip(&w, 4 * 4); /* iterations, stabilization, hr_candidates, max_iterations */
    if (u32(&w) != 13)
        return 0;
    m->pbd_max_substep = w.at + 5 * 8;
    skip(&w, 13 * 8);
    if (solver == GR_SOLVER_CONTINUUM) /* its own settings, not among the format's: 7 words, 6 numbers */
        skip(&w, 7 * 4 + 6 * 8);
    m->materials = w.at;
    const uint32_t mats = u32(&w);
    m->mats = mats;
    /* format 11 added continuum_friction: 9 numbers a material */
    skip(&w, (uint64_t)mats * (tu_get32(data + 8) >= 11 ? 72 : 64));
    const uint32_t overrides = u32(&w);
    skip(&w, (uint64_t)overrides * 32 + 4);
    const uint32_t templates = u32(&w), spheres = u32(&w);
    skip(&w, (uint64_t)templates * 80 + (uint64_t)spheres * 32);
    m->bodies = w.at;
    const uint32_t bslots = u32(&w);
    skip(&w, 4);
    for (uint32_t i = 0; i < bslots && !w.bad; i++) {
        skip(&w, 4);
        if (!u32(&w))
            continue;
        const size_t motion = w.at + 4;
        if (tu_get32(data + motion) == GR_MOTION_HOST && !m->first_host_motion)
            m->first_host_motion = motion;
        skip(&w, 352);
        const uint32_t np = u32(&w), nv = u32(&w), nt = u32(&w);
        skip(&w, (uint64_t)np * 24 + (uint64_t)nv * 24 + (uint64_t)nt * 12);
    }
    m->grains = w.at;
    const uint32_t slots = u32(&w), count = u32(&w);
    skip(&w, 4 + (uint64_t)slots * 7 + (uint64_t)count * 4);
    m->systems = w.at;
    if (tu_get32(data + 8) >= 9 && u32(&w) != 1) /* format 9: the systems (the walk knows one only) */
        return 0;
    m->solver = w.at;
    skip(&w, 4);
    if (solver == GR_SOLVER_CONTINUUM) /* (the walk stops at the continuum's section) */
        return !w.bad;
    if (solver == GR_SOLVER_DEM) {
        const uint32_t n = u32(&w), nb = u32(&w);
        skip(&w, 4);
        m->n = n;
        m->nb = nb;
        skip(&w, (uint64_t)n * (32 + 5 * 24 + 32 + 3 * 8));
        m->slot = w.at + (size_t)n * 4;
        m->member = w.at + (size_t)n * 8;
        skip(&w, (uint64_t)n * 12 + 4);
        const uint32_t nc = u32(&w), nm = u32(&w);
        skip(&w, 4);
        m->nc = nc;
        m->nm = nm;
        skip(&w, (uint64_t)nc * (6 * 24 + 32 + 8 + 24 + 8));
        m->c_first = w.at;
        m->c_count = w.at + (size_t)nc * 4;
        m->c_slot = w.at + (size_t)nc * 8;
        m->c_body = w.at + (size_t)nc * 16;
        skip(&w, (uint64_t)nc * (5 * 4 + 1 + 32));
        m->m_sphere = w.at;
        m->m_clump = w.at + (size_t)nm * 4;
        skip(&w, (uint64_t)nm * 32);
        m->built = w.at;
        if (u32(&w)) {
            m->nb_count = w.at;
            const uint32_t nbc = u32(&w);
            m->nb_start = w.at;
            skip(&w, ((uint64_t)nb + 1) * 4);
            m->nb_j = w.at;
            m->nb_hist = w.at + (size_t)nbc * 4;
            skip(&w, (uint64_t)nbc * (28 + (roll ? 24 : 0)));
            m->bc_count = w.at;
            const uint32_t bcc = u32(&w);
            m->bc_start = w.at;
            skip(&w, ((uint64_t)nb + 1) * 4);
            m->bc_id = w.at;
            skip(&w, (uint64_t)bcc * (28 + (roll ? 24 : 0)));
            m->nslabs = w.at;
            const uint32_t ns = u32(&w);
            m->slab_start = w.at;
            skip(&w, ((uint64_t)ns + 1) * 4);
            const uint32_t bs = u32(&w);
            skip(&w, (uint64_t)bs * 16);
        }
        m->mat_rmin = w.at + 4;
    } else {
        const uint32_t n = u32(&w);
        skip(&w, 4);
        m->n = n;
        skip(&w, (uint64_t)n * (4 * 24 + 8 + 1 + 8 + 8 + 4));
        m->owner = w.at;
        m->p_slot = w.at + (size_t)n * 4;
        skip(&w, (uint64_t)n * 12);
        m->nb = u32(&w);
        m->p_bodies = w.at;
        skip(&w, (uint64_t)m->nb * (16 + 8 * 14) + 3 * 8 + 4);
        m->p_records = w.at;
        const uint32_t records = u32(&w);
        skip(&w, (uint64_t)records * 56 + n + 8);
        m->hr_n = w.at;
        m->hr_count = u32(&w);
        m->hr_pt = w.at;
        skip(&w, (uint64_t)m->hr_count * 32);
        /* the warm start: h, particles, records; ranges, then other, ln, lt per record */
        skip(&w, 8);
        m->ws_n = u32(&w);
        m->ws_count = u32(&w);
        m->ws = w.at;
        skip(&w, (uint64_t)m->ws_n * 8 + (uint64_t)m->ws_count * (4 + 8 + 24));
        m->gravity = w.at;
        skip(&w, 24);
        if (w.at != size)
            return 0;
    }
    return !w.bad;
}

int tu_snap_drop_continuum_friction(const tu_stream *now, gr_solver_kind solver, tu_stream *out)
{
    tu_snap_map m;
    tu_stream_init(out);
    if (now->size < 32 || (tu_get32(now->data + 8) != 11u && tu_get32(now->data + 8) != 12u)) /* 12: the same bytes without a terrain */
        return 0;
    if (!tu_snap_walk(now->data, now->size, solver, &m) || !m.materials || now->size < m.materials + 4 + (size_t)m.mats * 72)
        return 0;
    size_t at = m.materials + 4;
    tu_stream_write(out, now->data, at);
    int same = 1;
    for (uint32_t i = 0; i < m.mats; i++, at += 72) {
        same &= memcmp(now->data + at + 4 * 8, now->data + at + 8 * 8, 8) == 0;
        tu_stream_write(out, now->data + at, 64);
    }
    tu_stream_write(out, now->data + at, now->size - at);
    tu_put32(out->data + 8, 10u);
    return 1 + same;
}

gr_status tu_material_as_built(gr_world *w, gr_material *out)
{
    gr_material_def md;
    gr_material_def_init(&md);
    md.static_friction = 0.6;
    md.kinetic_friction = 0.5;
    md.continuum_friction = md.friction;
    return gr_add_material(w, &md, out);
}
