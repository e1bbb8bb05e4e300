/* SPDX-License-Identifier: MIT */
/* Fidelity scenes and their measurements (see fidelity_scenes.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "fidelity_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FID_PI 3.14159265358979323846

static double fid_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A small deterministic generator (xorshift64*), so both solvers get the same scene. */
static double fid_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- parameters and world --------------------------------------------------------------- */

fid_params fid_default_params(gr_solver_kind solver, unsigned workers)
{
    fid_params p;
    memset(&p, 0, sizeof p);
    p.solver = solver;
    p.workers = workers;
    p.radius = 0.01;
    p.mu = 0.5;
    p.restitution = 0.5;
    p.frame = 1.0 / 60;
    return p;
}

const char *fid_solver_name(gr_solver_kind solver)
{
    return solver == GR_SOLVER_PBD ? "pbd" : solver == GR_SOLVER_CONTINUUM ? "continuum" : "dem";
}

static const char *const fid_preset_names[] = {"none", "sand", "gravel", "glass"};
enum { FID_PRESETS = (int)(sizeof fid_preset_names / sizeof fid_preset_names[0]) };

int fid_preset_from_name(const char *name)
{
    for (int i = 1; i < FID_PRESETS; i++)
        if (!strcmp(name, fid_preset_names[i]))
            return i;
    return 0;
}

const char *fid_preset_name(int preset)
{
    return preset > 0 && preset < FID_PRESETS ? fid_preset_names[preset] : "none";
}

/* The grains' material (p->preset, or mu and mu_s with p's density and restitution); with
 * use_preset = 0 always mu and mu_s (a rough floor's). */
static gr_status fid_material(gr_world *w, const fid_params *p, double mu, double mu_s, int use_preset,
                              gr_material *out)
{
    gr_material_def md;
    gr_material_def_init(&md);
    if (use_preset && p->preset > 0) {
        gr_status st = gr_material_def_set_preset(&md, (gr_material_preset)p->preset);
        if (st != GR_OK)
            return st;
        if (p->density > 0)
            md.density = p->density;
        return gr_add_material(w, &md, out);
    }
    if (use_preset && p->user_defaults) {
        /* a user's own material: its friction, everything else the library's (derived) */
        if (p->density > 0)
            md.density = p->density;
        md.friction = mu;
        if (p->cont_alpha > 0)
            md.continuum_friction = p->cont_alpha;
        return gr_add_material(w, &md, out);
    }
    const double ratio = 1.2; /* mu_s / mu_k, the library's ratio */
    if (p->density > 0)
        md.density = p->density;
    md.restitution = p->restitution;
    md.friction = mu;
    md.rolling_friction = p->mu_r;
    md.kinetic_friction = mu;
    md.static_friction = mu_s > 0 ? mu_s : mu * ratio;
    return gr_add_material(w, &md, out);
}

gr_status fid_world_create(const fid_params *p, gr_vec3 lo, gr_vec3 hi, double gravity_scale, gr_world **w,
                           gr_material *grain_material)
{
    gr_world_def def;
    gr_world_def_init(&def, p->solver);
    def.gravity = (gr_vec3){0, -9.81 * gravity_scale, 0};
    def.worker_count = p->workers;
    def.bounds_min = lo;
    def.bounds_max = hi;
    /* a preset's rolling friction acts through DEM's rolling law (EPSD: it holds a static slope) */
    gr_dem_def dd;
    gr_dem_def_init(&dd);
    dd.rolling_law = GR_ROLLING_EPSD;
    if (p->solver == GR_SOLVER_DEM && p->preset > 0 && !p->user_defaults)
        def.dem = &dd;
    gr_status st = gr_world_create(&def, w);
    if (st != GR_OK)
        return st;
    st = fid_material(*w, p, p->mu, p->mu_s, 1, grain_material);
    if (st != GR_OK) {
        fprintf(stderr, "fidelity: material: %s\n", gr_world_last_error(*w));
        gr_world_destroy(*w);
        *w = NULL;
    }
    return st;
}

static gr_vec3 fid_gravity(const gr_world *w)
{
    gr_world_def def;
    def.size = sizeof def;
    if (gr_world_get_def(w, &def, NULL) != GR_OK)
        return (gr_vec3){0, -9.81, 0};
    return def.gravity;
}

/* ---- grain snapshots ------------------------------------------------------------------- */

gr_status fid_grains_read(const gr_world *w, fid_grains *g)
{
    const uint32_t n = gr_world_get_grain_count(w);
    if (n > g->cap) {
        const uint32_t cap = n + n / 2 + 16;
        double *x = realloc(g->x, 3 * sizeof(double) * cap), *v = realloc(g->v, 3 * sizeof(double) * cap);
        double *om = realloc(g->w, 3 * sizeof(double) * cap), *m = realloc(g->m, sizeof(double) * cap);
        double *r = realloc(g->r, sizeof(double) * cap);
        if (x) g->x = x;
        if (v) g->v = v;
        if (om) g->w = om;
        if (m) g->m = m;
        if (r) g->r = r;
        if (!x || !v || !om || !m || !r)
            return GR_ERROR_OUT_OF_MEMORY;
        g->cap = cap;
    }
    g->n = n;
    if (n == 0)
        return GR_OK;
    gr_status st = gr_read_grains(w, GR_FIELD_POSITION, GR_TYPE_F64, 0, n, g->x, 0);
    if (st == GR_OK) st = gr_read_grains(w, GR_FIELD_VELOCITY, GR_TYPE_F64, 0, n, g->v, 0);
    if (st == GR_OK) st = gr_read_grains(w, GR_FIELD_ANGULAR_VELOCITY, GR_TYPE_F64, 0, n, g->w, 0);
    if (st == GR_OK) st = gr_read_grains(w, GR_FIELD_MASS, GR_TYPE_F64, 0, n, g->m, 0);
    if (st == GR_OK) st = gr_read_grains(w, GR_FIELD_RADIUS, GR_TYPE_F64, 0, n, g->r, 0);
    return st;
}

void fid_grains_free(fid_grains *g)
{
    free(g->x);
    free(g->v);
    free(g->w);
    free(g->m);
    free(g->r);
    memset(g, 0, sizeof *g);
}

/* ---- energy and momentum ----------------------------------------------------------------- */

fid_energy fid_energy_of(const fid_grains *g, gr_vec3 gravity)
{
    fid_energy e = {0, 0, 0};
    for (uint32_t i = 0; i < g->n; i++) {
        const double *x = g->x + 3 * i, *v = g->v + 3 * i, *w = g->w + 3 * i;
        const double m = g->m[i], inertia = 0.4 * m * g->r[i] * g->r[i];
        e.kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                     0.5 * inertia * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        e.potential -= m * (gravity.x * x[0] + gravity.y * x[1] + gravity.z * x[2]);
    }
    e.total = e.kinetic + e.potential;
    return e;
}

double fid_energy_scale(const fid_grains *g, gr_vec3 gravity)
{
    const double gl = sqrt(gravity.x * gravity.x + gravity.y * gravity.y + gravity.z * gravity.z);
    double s = 0;
    for (uint32_t i = 0; i < g->n; i++)
        s += g->m[i] * gl * 2 * g->r[i];
    return s;
}

void fid_energy_track_add(fid_energy_track *t, fid_energy e, double time)
{
    if (t->frames == 0) {
        t->first = t->max = t->min = e.total;
        t->kinetic_first = t->kinetic_max = e.kinetic;
        t->rise_max = t->kinetic_rise_max = -INFINITY;
    } else {
        const double rise = e.total - t->last;
        if (rise > t->rise_max) {
            t->rise_max = rise;
            t->rise_time = time;
        }
        if (e.kinetic - t->kinetic_prev_ > t->kinetic_rise_max)
            t->kinetic_rise_max = e.kinetic - t->kinetic_prev_;
    }
    t->kinetic_prev_ = e.kinetic;
    t->last = e.total;
    if (e.total > t->max) t->max = e.total;
    if (e.total < t->min) t->min = e.total;
    if (e.kinetic > t->kinetic_max) t->kinetic_max = e.kinetic;
    t->frames++;
}

double fid_max_speed(const fid_grains *g)
{
    double v2 = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const double *v = g->v + 3 * i;
        const double s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        if (s > v2) v2 = s;
    }
    return sqrt(v2);
}

void fid_momentum(const fid_grains *g, double p[3], double *abs_sum)
{
    p[0] = p[1] = p[2] = 0;
    double a = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const double *v = g->v + 3 * i;
        for (int c = 0; c < 3; c++)
            p[c] += g->m[i] * v[c];
        a += g->m[i] * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    if (abs_sum)
        *abs_sum = a;
}

/* ---- overlaps ----------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t cell_hash(int64_t ix, int64_t iy, int64_t iz, uint64_t buckets)
{
    const uint64_t h = (uint64_t)ix * 73856093ULL ^ (uint64_t)iy * 19349663ULL ^ (uint64_t)iz * 83492791ULL;
    return (h * 0x9E3779B97F4A7C15ULL >> 20) % buckets;
}

int fid_overlap_stats(const fid_grains *g, fid_overlap *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t n = g->n;
    if (n < 2)
        return 0;
    double rmax = 0;
    for (uint32_t i = 0; i < n; i++)
        if (g->r[i] > rmax) rmax = g->r[i];
    const double cell = 2 * rmax;
    /* Hashed cells: buckets hold grains of any cell that hashes there; a grain's neighbours are
     * in the distinct buckets of its 27 cells (deduplicated, so a pair is seen once). */
    const uint64_t buckets = 2ull * n + 1;
    uint32_t *start = calloc(buckets + 1, sizeof *start), *order = malloc(sizeof *order * n);
    uint64_t *key = malloc(sizeof *key * n);
    size_t cap = 6ull * n, count = 0;
    double *ov = malloc(sizeof *ov * cap);
    if (!start || !order || !key || !ov) {
        free(start); free(order); free(key); free(ov);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const double *x = g->x + 3 * i;
        key[i] = cell_hash((int64_t)floor(x[0] / cell), (int64_t)floor(x[1] / cell), (int64_t)floor(x[2] / cell),
                           buckets);
        start[key[i] + 1]++;
    }
    for (uint64_t b = 0; b < buckets; b++)
        start[b + 1] += start[b];
    uint32_t *fill = malloc(sizeof *fill * buckets);
    if (!fill) {
        free(start); free(order); free(key); free(ov);
        return -1;
    }
    memcpy(fill, start, sizeof *fill * buckets);
    for (uint32_t i = 0; i < n; i++)
        order[fill[key[i]]++] = i;
    free(fill);
    double sum = 0, mx = 0;
    int fail = 0;
    for (uint32_t i = 0; i < n && !fail; i++) {
        const double *xi = g->x + 3 * i;
        const int64_t cx = (int64_t)floor(xi[0] / cell), cy = (int64_t)floor(xi[1] / cell),
                      cz = (int64_t)floor(xi[2] / cell);
        uint64_t seen[27];
        int ns = 0;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    const uint64_t b = cell_hash(cx + dx, cy + dy, cz + dz, buckets);
                    int dup = 0;
                    for (int k = 0; k < ns; k++)
                        dup |= seen[k] == b;
                    if (!dup)
                        seen[ns++] = b;
                }
        for (int k = 0; k < ns; k++)
            for (uint32_t s = start[seen[k]]; s < start[seen[k] + 1]; s++) {
                const uint32_t j = order[s];
                if (j <= i)
                    continue;
                const double *xj = g->x + 3 * j;
                const double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
                const double rr = g->r[i] + g->r[j];
                const double d2 = dx * dx + dy * dy + dz * dz;
                if (d2 >= rr * rr)
                    continue;
                const double o = (rr - sqrt(d2)) / rr;
                if (count == cap) {
                    double *nv = realloc(ov, sizeof *ov * cap * 2);
                    if (!nv) {
                        fail = 1;
                        break;
                    }
                    ov = nv;
                    cap *= 2;
                }
                ov[count++] = o;
                sum += o;
                if (o > mx) mx = o;
            }
    }
    if (!fail && count > 0) {
        qsort(ov, count, sizeof *ov, cmp_double);
        out->contacts = count;
        out->mean = sum / (double)count;
        out->max = mx;
        out->p99 = ov[(size_t)(0.99 * (double)(count - 1))];
        out->coordination = 2.0 * (double)count / (double)n;
    }
    free(start); free(order); free(key); free(ov);
    return fail ? -1 : 0;
}

/* ---- packing, heights, displacement ------------------------------------------------------ */

/* Volume of a ball of radius r centred at 0 between the planes y = a and y = b. */
static double ball_slab_volume(double r, double a, double b)
{
    if (a < -r) a = -r;
    if (b > r) b = r;
    if (b <= a)
        return 0;
    return FID_PI * (r * r * (b - a) - (b * b * b - a * a * a) / 3.0);
}

double fid_packing_fraction(const fid_grains *g, gr_vec3 lo, gr_vec3 hi)
{
    const double vol = (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
    if (!(vol > 0))
        return 0;
    double s = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const double *x = g->x + 3 * i;
        if (x[0] < lo.x || x[0] > hi.x || x[2] < lo.z || x[2] > hi.z)
            continue;
        s += ball_slab_volume(g->r[i], lo.y - x[1], hi.y - x[1]);
    }
    return s / vol;
}

static int cmp_desc(const void *a, const void *b) { return cmp_double(b, a); }

double fid_top_height(const fid_grains *g, uint32_t n_top)
{
    if (g->n == 0)
        return 0;
    if (n_top < 1) n_top = 1;
    if (n_top > g->n) n_top = g->n;
    double *top = malloc(sizeof *top * g->n);
    if (!top)
        return NAN;
    for (uint32_t i = 0; i < g->n; i++)
        top[i] = g->x[3 * i + 1] + g->r[i];
    qsort(top, g->n, sizeof *top, cmp_desc);
    double s = 0;
    for (uint32_t i = 0; i < n_top; i++)
        s += top[i];
    free(top);
    return s / n_top;
}

uint32_t fid_count_outside(const fid_grains *g, gr_vec3 lo, gr_vec3 hi)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const double *x = g->x + 3 * i;
        c += x[0] < lo.x || x[0] > hi.x || x[1] < lo.y || x[1] > hi.y || x[2] < lo.z || x[2] > hi.z;
    }
    return c;
}

double fid_max_displacement(const double *x0, const double *x1, uint32_t n)
{
    double m2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double dx = x1[3 * i] - x0[3 * i], dy = x1[3 * i + 1] - x0[3 * i + 1], dz = x1[3 * i + 2] - x0[3 * i + 2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > m2) m2 = d2;
    }
    return sqrt(m2);
}

/* ---- repose angle --------------------------------------------------------------------------- */

int fid_repose_angle(const fid_grains *g, double cx, double cz, double bin, fid_heap *out)
{
    memset(out, 0, sizeof *out);
    out->angle_fit = NAN;
    out->angle_hr = NAN;
    if (g->n == 0 || !(bin > 0))
        return -1;
    double *rho = malloc(sizeof *rho * g->n);
    if (!rho)
        return -1;
    double rmax = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const double dx = g->x[3 * i] - cx, dz = g->x[3 * i + 2] - cz;
        rho[i] = sqrt(dx * dx + dz * dz);
        if (rho[i] > rmax) rmax = rho[i];
    }
    const int nb = (int)(rmax / bin) + 1;
    double *surf = malloc(sizeof *surf * (size_t)nb);
    if (!surf) {
        free(rho);
        return -1;
    }
    for (int b = 0; b < nb; b++)
        surf[b] = -INFINITY;
    for (uint32_t i = 0; i < g->n; i++) {
        const int b = (int)(rho[i] / bin);
        const double top = g->x[3 * i + 1] + g->r[i];
        if (top > surf[b]) surf[b] = top;
    }
    double peak = -INFINITY;
    for (int b = 0; b < nb && b < 3; b++)
        if (surf[b] > peak) peak = surf[b];
    out->height = peak;
    /* foot: the radius holding 98 % of the grains */
    qsort(rho, g->n, sizeof *rho, cmp_double);
    out->foot = rho[(size_t)(0.98 * (double)(g->n - 1))];
    out->angle_hr = atan2(out->height, out->foot) * 180 / FID_PI;
    /* least squares over rings whose surface lies between 20 % and 80 % of the peak, taken
     * from the centre outwards until the surface first drops below 20 % (stray grains beyond
     * the foot do not count) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int b = 0; b < nb; b++) {
        if (!(surf[b] >= 0.2 * peak))
            break;
        if (surf[b] > 0.8 * peak)
            continue;
        const double xr = (b + 0.5) * bin;
        sx += xr; sy += surf[b]; sxx += xr * xr; sxy += xr * surf[b];
        k++;
    }
    out->rings = k;
    if (k >= 3) {
        const double slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
        out->angle_fit = atan(-slope) * 180 / FID_PI;
    }
    free(rho);
    free(surf);
    return 0;
}

/* ---- discharge -------------------------------------------------------------------------------- */

int fid_discharge_add(fid_discharge *d, double t, double count, double fill)
{
    if (d->n == d->cap) {
        const uint32_t cap = d->cap ? 2 * d->cap : 256;
        double *nt = realloc(d->t, sizeof(double) * cap);
        if (nt) d->t = nt;
        double *nc = realloc(d->count, sizeof(double) * cap);
        if (nc) d->count = nc;
        double *nf = realloc(d->fill, sizeof(double) * cap);
        if (nf) d->fill = nf;
        if (!nt || !nc || !nf)
            return -1;
        d->cap = cap;
    }
    d->t[d->n] = t;
    d->count[d->n] = count;
    d->fill[d->n] = fill;
    d->n++;
    return 0;
}

double fid_discharge_rate(const fid_discharge *d, double t0, double t1, double fill_lo, double fill_hi,
                          int *samples)
{
    double st = 0, sc = 0, stt = 0, stc = 0;
    int k = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->t[i] < t0 || d->t[i] > t1 || d->fill[i] < fill_lo || d->fill[i] > fill_hi)
            continue;
        st += d->t[i]; sc += d->count[i]; stt += d->t[i] * d->t[i]; stc += d->t[i] * d->count[i];
        k++;
    }
    if (samples)
        *samples = k;
    if (k < 3)
        return 0;
    const double den = k * stt - st * st;
    return den > 0 ? (k * stc - st * sc) / den : 0;
}

void fid_discharge_free(fid_discharge *d)
{
    free(d->t);
    free(d->count);
    free(d->fill);
    memset(d, 0, sizeof *d);
}

/* ---- scene plumbing ------------------------------------------------------------------------------ */

/* One scene's world, its grain snapshot and the stepping clock. */
typedef struct fid_run {
    gr_world *w;
    gr_material mat;
    fid_grains g;
    gr_vec3 gravity;
    double step_seconds; ///< wall time inside gr_step
    int frames;
    int unstable;        ///< steps that answered GR_ERROR_UNSTABLE (the run goes on)
} fid_run;

static gr_status fid_run_open(fid_run *r, const fid_params *p, gr_vec3 lo, gr_vec3 hi, double gravity_scale)
{
    memset(r, 0, sizeof *r);
    gr_status st = fid_world_create(p, lo, hi, gravity_scale, &r->w, &r->mat);
    if (st == GR_OK)
        r->gravity = fid_gravity(r->w);
    return st;
}

static gr_status fid_fail(fid_run *r, gr_status st, const char *what)
{
    fprintf(stderr, "fidelity: %s: %s (%s)\n", what, gr_status_string(st), r->w ? gr_world_last_error(r->w) : "");
    return st;
}

/* Step one frame and read the grains. */
static gr_status fid_frame(fid_run *r, const fid_params *p)
{
    const double t0 = fid_now();
    gr_status st = gr_step(r->w, p->frame);
    r->step_seconds += fid_now() - t0;
    r->frames++;
    if (st == GR_ERROR_UNSTABLE) {
        if (r->unstable++ == 0)
            fprintf(stderr, "fidelity: unstable at t=%.3f s: %s\n", gr_world_get_time(r->w), gr_world_last_error(r->w));
        st = GR_OK;
    }
    if (st != GR_OK)
        return fid_fail(r, st, "gr_step");
    return fid_grains_read(r->w, &r->g);
}

static void fid_run_timing(const fid_run *r, double *ms_per_frame, double *substeps_per_frame)
{
    gr_counters c;
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    (void)gr_world_get_counters(r->w, &c);
    *ms_per_frame = r->frames ? 1e3 * r->step_seconds / r->frames : 0;
    *substeps_per_frame = c.step_count ? (double)c.substep_count / (double)c.step_count : 0;
}

static void fid_run_close(fid_run *r)
{
    fid_grains_free(&r->g);
    gr_world_destroy(r->w);
    r->w = NULL;
}

static gr_status fid_add_box(fid_run *r, gr_shape_type shape, gr_vec3 centre, gr_vec3 half, uint32_t open,
                             gr_body *out)
{
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = shape;
    bd.material = r->mat;
    bd.position = centre;
    bd.half_extents = half;
    bd.open_faces = open;
    gr_status st = gr_add_body(r->w, &bd, out);
    return st == GR_OK ? st : fid_fail(r, st, "gr_add_body");
}

/* A grain of the run's material and radius at x moving at v. */
static gr_grain_def fid_grain(const fid_run *r, const fid_params *p, gr_vec3 x, gr_vec3 v)
{
    gr_grain_def g;
    gr_grain_def_init(&g);
    g.material = r->mat;
    g.radius = p->radius;
    g.position = x;
    g.velocity = v;
    return g;
}

static gr_status fid_add_grains(fid_run *r, const gr_grain_def *defs, uint32_t m)
{
    const gr_status st = m ? gr_add_grains(r->w, defs, m, NULL) : GR_OK;
    return st == GR_OK ? st : fid_fail(r, st, "gr_add_grains");
}

/* A fill of the box with the run's grains: `pattern` with `attempts` a cell, or (attempts 0) the
 * fill's default pattern. */
static gr_status fid_fill_pattern(fid_run *r, const fid_params *p, gr_vec3 lo, gr_vec3 hi, gr_fill_pattern pattern,
                                  uint32_t attempts, uint32_t *added)
{
    gr_fill_def fd;
    gr_fill_def_init(&fd);
    if (attempts) {
        fd.pattern = pattern;
        fd.attempts = attempts;
    }
    fd.material = r->mat;
    fd.radius = p->radius;
    fd.min = lo;
    fd.max = hi;
    fd.seed = 12345;
    gr_status st = gr_fill_box(r->w, &fd, added, NULL, 0);
    return st == GR_OK ? st : fid_fail(r, st, "gr_fill_box");
}

/* The fill's default pattern (a lattice of spacing 2.2 r). */
static gr_status fid_fill(fid_run *r, const fid_params *p, gr_vec3 lo, gr_vec3 hi, uint32_t *added)
{
    return fid_fill_pattern(r, p, lo, hi, GR_FILL_POISSON, 0, added);
}

/* A dense random fill (Poisson-disk by cells, 2 r / sqrt 3 wide): settles far less than the
 * lattice's 2.2 r spacing, so that the column's aspect ratio is about the one asked on every
 * solver. */
static gr_status fid_fill_dense(fid_run *r, const fid_params *p, gr_vec3 lo, gr_vec3 hi, uint32_t *added)
{
    return fid_fill_pattern(r, p, lo, hi, GR_FILL_POISSON, 200, added);
}

static void fid_verbose(const fid_params *p, const fid_run *r, const char *scene, fid_energy e, double extra)
{
    if (p->verbose > 0 && r->frames % p->verbose == 0)
        fprintf(stderr, "%s %s t=%.3f E=%.3f K=%.4f vmax=%.3f n=%u x=%.4f\n", scene, fid_solver_name(p->solver),
                gr_world_get_time(r->w), e.total, e.kinetic, fid_max_speed(&r->g), r->g.n, extra);
}

/* A rough slab: a static box mesh over [x0, x1] x [z0, z1], top face at y = 0, covered with
 * particles of the grains' radius, so that spheres cannot roll away on it. */
static gr_status fid_add_rough_slab(fid_run *r, gr_material mat, double radius, double x0, double x1, double z0,
                                    double z1)
{
    const double T = 4 * radius;
    const gr_vec3 v[8] = {{x0, -T, z0}, {x1, -T, z0}, {x1, 0, z0}, {x0, 0, z0},
                          {x0, -T, z1}, {x1, -T, z1}, {x1, 0, z1}, {x0, 0, z1}};
    static const uint32_t idx[36] = {0, 2, 1, 0, 3, 2,  4, 5, 6, 4, 6, 7,  0, 1, 5, 0, 5, 4,
                                     3, 7, 6, 3, 6, 2,  0, 4, 7, 0, 7, 3,  1, 2, 6, 1, 6, 5};
    gr_body_def bd;
    gr_body_def_init(&bd);
    bd.shape = GR_SHAPE_MESH;
    bd.material = mat;
    bd.mesh_vertices = v;
    bd.mesh_indices = idx;
    bd.mesh_vertex_count = 8;
    bd.mesh_triangle_count = 12;
    bd.particle_radius = radius;
    gr_status st = gr_add_body(r->w, &bd, NULL);
    return st == GR_OK ? st : fid_fail(r, st, "rough floor");
}

/* A rough floor: the rough slab 1.2 m wide centred on the origin. */
static gr_status fid_add_rough_floor(fid_run *r, gr_material mat, double radius)
{
    return fid_add_rough_slab(r, mat, radius, -0.6, 0.6, -0.6, 0.6);
}

/* ---- column ---------------------------------------------------------------------------------------- */

/* Pour the grains of a W x H x D lattice (spacing 2.2 r) into the box whose floor corner is
 * (x0, 0, z0): every 4 frames a layer of about 2/3 of a lattice layer at random places (darts at
 * least a diameter apart), 2 d above the highest grain at 1 m/s downwards, until all are in.
 * Random places matter: grains dropped on one lattice land on the tops of the ones below, and
 * spheres that do not roll (PBD's) keep such a stack. */
static gr_status fid_pour(fid_run *r, const fid_params *p, double x0, double z0, double W, double H, double D,
                          const char *scene, uint32_t *added)
{
    const double s = 2.2 * p->radius, d = 2 * p->radius, rad = p->radius;
    const int nx = (int)floor(W / s + 1e-9), ny = (int)floor(H / s + 1e-9), nz = (int)floor(D / s + 1e-9);
    const uint32_t total = (uint32_t)(nx * ny * nz), per_layer = (uint32_t)(2 * nx * nz + 2) / 3;
    gr_grain_def *layer = malloc(sizeof *layer * per_layer);
    if (!layer)
        return GR_ERROR_OUT_OF_MEMORY;
    uint64_t seed = 0xC011ULL;
    gr_status st = GR_OK;
    *added = 0;
    while (*added < total && st == GR_OK) {
        double top = 0;
        for (uint32_t i = 0; i < r->g.n; i++)
            if (r->g.x[3 * i + 1] + r->g.r[i] > top)
                top = r->g.x[3 * i + 1] + r->g.r[i];
        uint32_t m = 0;
        const uint32_t want = total - *added < per_layer ? total - *added : per_layer;
        for (int tries = 0; m < want && tries < 64 * (int)per_layer; tries++) {
            const double x = x0 + rad + (W - d) * fid_rand(&seed), z = z0 + rad + (D - d) * fid_rand(&seed);
            int clear = 1;
            for (uint32_t k = 0; k < m && clear; k++) {
                const double dx = layer[k].position.x - x, dz = layer[k].position.z - z;
                clear = dx * dx + dz * dz >= d * d;
            }
            if (clear)
                layer[m++] = fid_grain(r, p, (gr_vec3){x, top + 2 * d, z}, (gr_vec3){0, -1, 0});
        }
        if ((st = fid_add_grains(r, layer, m)) != GR_OK)
            break;
        *added += m;
        for (int f = 0; f < 4 && st == GR_OK; f++) {
            st = fid_frame(r, p);
            fid_verbose(p, r, scene, fid_energy_of(&r->g, r->gravity), top);
        }
    }
    free(layer);
    return st;
}

gr_status fid_run_column(const fid_params *p, unsigned height_d, int pour, fid_column_result *out)
{
    memset(out, 0, sizeof *out);
    const double d = 2 * p->radius, W = 10 * d, D = 4 * d, H = height_d * d;
    const double wall = (1.25 * height_d + 10) * d;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){-2, -2, -2}, (gr_vec3){2 + W, 2 * wall + 5, 2 + D}, 1.0);
    if (st != GR_OK)
        return st;
    double *x_late = NULL;
    if ((st = fid_add_box(&r, GR_SHAPE_CONTAINER, (gr_vec3){W / 2, wall / 2, D / 2}, (gr_vec3){W / 2, wall / 2, D / 2},
                          GR_FACE_POS_Y, NULL)) != GR_OK ||
        (st = pour ? fid_pour(&r, p, 0, 0, W, H, D, "column-pour", &out->grains)
                   : fid_fill(&r, p, (gr_vec3){0, 0, 0}, (gr_vec3){W, H, D}, &out->grains)) != GR_OK ||
        (st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    out->pour_seconds = gr_world_get_time(r.w);
    r.step_seconds = 0; /* time the settling frames alone */
    r.frames = 0;
    const uint32_t n0 = r.g.n, n_top = 20; /* about half a 10 x 4 layer */
    const double scale = fid_energy_scale(&r.g, r.gravity);
    out->fill_height_d = fid_top_height(&r.g, n_top) / d;
    out->v_free_fall = sqrt(2 * 9.81 * H);
    out->height_min_d = INFINITY;
    const double seconds = 3.0 + height_d / 50.0;
    const int frames = (int)lround(seconds / p->frame), late = frames - (int)lround(1.0 / p->frame);
    const gr_vec3 box_lo = {-p->radius, -p->radius, -p->radius}, box_hi = {W + p->radius, wall, D + p->radius};
    x_late = malloc(sizeof(double) * 3 * n0);
    if (!x_late) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    fid_energy_track_add(&out->energy, fid_energy_of(&r.g, r.gravity), 0);
    for (int f = 1; f <= frames; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const double t = f * p->frame; /* from the release (the pour's end) */
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&out->energy, e, t);
        const double vm = fid_max_speed(&r.g), h = fid_top_height(&r.g, n_top) / d;
        if (vm > out->vmax) out->vmax = vm;
        if (h < out->height_min_d) out->height_min_d = h;
        if (t > 1.0 && h > out->height_max_late_d) out->height_max_late_d = h;
        const uint32_t left = fid_count_outside(&r.g, box_lo, box_hi) + (n0 - r.g.n);
        if (left > out->left_box_max) out->left_box_max = left;
        out->left_box = left;
        if (f == late && r.g.n == n0)
            memcpy(x_late, r.g.x, sizeof(double) * 3 * n0);
        fid_verbose(p, &r, "column", e, h);
    }
    out->seconds = frames * p->frame;
    out->height_d = fid_top_height(&r.g, n_top) / d;
    out->e_rise_rel = out->energy.rise_max / scale;
    const double h = out->height_d * d;
    out->packing = fid_packing_fraction(&r.g, (gr_vec3){0, 0.1 * h, 0}, (gr_vec3){W, 0.8 * h, D});
    out->still_disp_d = r.g.n == n0 ? fid_max_displacement(x_late, r.g.x, n0) / d : INFINITY;
    if (fid_overlap_stats(&r.g, &out->overlap) != 0)
        st = GR_ERROR_OUT_OF_MEMORY;
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    free(x_late);
    fid_run_close(&r);
    return st;
}

/* ---- silo -------------------------------------------------------------------------------------------- */

/* Grains at or above the level y (still in the silo or its orifice). */
static uint32_t fid_count_above(const fid_grains *g, double y)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < g->n; i++)
        c += g->x[3 * i + 1] >= y;
    return c;
}

gr_status fid_run_silo(const fid_params *p, unsigned width_d, double orifice_d, double fill_w, int pour,
                       fid_silo_result *out)
{
    memset(out, 0, sizeof *out);
    out->width_d = width_d;
    out->orifice_d = orifice_d;
    const double d = 2 * p->radius, Ws = width_d * d, Do = orifice_d * d, T = 2 * d;
    const double fill = fill_w * Ws, wall = (fill_w + 0.5) * Ws, outer = Ws / 2 + d;
    fid_run r;
    fid_discharge dis;
    memset(&dis, 0, sizeof dis);
    gr_status st = fid_run_open(&r, p, (gr_vec3){-1, -0.3, -1}, (gr_vec3){1, wall + 5, 1}, 1.0);
    if (st != GR_OK)
        return st;
    gr_body gate;
    const double a = Do / 2, wb = (outer - a) / 2;
    if ((st = fid_add_box(&r, GR_SHAPE_CONTAINER, (gr_vec3){0, wall / 2, 0}, (gr_vec3){Ws / 2, wall / 2, Ws / 2},
                          GR_FACE_POS_Y | GR_FACE_NEG_Y, NULL)) != GR_OK ||
        /* the floor: four slabs around the square orifice, and the gate in it */
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){-a - wb, -T / 2, 0}, (gr_vec3){wb, T / 2, outer}, 0, NULL)) != GR_OK ||
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){a + wb, -T / 2, 0}, (gr_vec3){wb, T / 2, outer}, 0, NULL)) != GR_OK ||
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){0, -T / 2, -a - wb}, (gr_vec3){a, T / 2, wb}, 0, NULL)) != GR_OK ||
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){0, -T / 2, a + wb}, (gr_vec3){a, T / 2, wb}, 0, NULL)) != GR_OK ||
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){0, -T / 2, 0}, (gr_vec3){a, T / 2, a}, 0, &gate)) != GR_OK ||
        (st = fid_grains_read(r.w, &r.g)) != GR_OK ||
        (st = pour ? fid_pour(&r, p, -Ws / 2, -Ws / 2, Ws, fill, Ws, "silo-pour", &out->grains)
                   : fid_fill(&r, p, (gr_vec3){-Ws / 2, 0, -Ws / 2}, (gr_vec3){Ws / 2, fill, Ws / 2}, &out->grains)) != GR_OK ||
        (st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    const uint32_t n_top = (uint32_t)(width_d * width_d / 2);
    out->grain_mass = r.g.n > 0 ? r.g.m[0] : 0;
    /* settle with the gate shut */
    const int settle = (int)lround(2.0 / p->frame);
    fid_energy_track_add(&out->energy, fid_energy_of(&r.g, r.gravity), 0);
    for (int f = 1; f <= settle; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&out->energy, e, f * p->frame);
        fid_verbose(p, &r, "silo-settle", e, 0);
    }
    const double h0 = fid_top_height(&r.g, n_top);
    out->fill0_w = h0 / Ws;
    out->packing = fid_packing_fraction(&r.g, (gr_vec3){-Ws / 2, 0.2 * h0, -Ws / 2}, (gr_vec3){Ws / 2, 0.7 * h0, Ws / 2});
    if (fid_overlap_stats(&r.g, &out->overlap) != 0) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    const uint32_t in0 = fid_count_above(&r.g, -T);
    if ((st = gr_remove_body(r.w, gate)) != GR_OK) {
        fid_fail(&r, st, "removing the gate");
        goto done;
    }
    /* discharge: out = grains that were in and are now below the floor (or removed) */
    double t = 0, last_out_t = 0, last_count = 0, t_above_w = 0;
    if (fid_discharge_add(&dis, 0, 0, h0) != 0) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    for (;;) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        t += p->frame;
        const double count = (double)in0 - fid_count_above(&r.g, -T);
        const double fill_h = h0 * ((double)in0 - count) / in0;
        if (fid_discharge_add(&dis, t, count, fill_h) != 0) {
            st = GR_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        if (count > last_count) {
            last_count = count;
            last_out_t = t;
        }
        if (fill_h > Ws)
            t_above_w = t;
        fid_verbose(p, &r, "silo", fid_energy_of(&r.g, r.gravity), count);
        if (fill_h < 0.75 * Ws || t > 60 || count >= in0)
            break;
        if (t - last_out_t > 2.0) {
            out->jammed = 1;
            break;
        }
    }
    out->seconds_open = t;
    out->discharged = last_count;
    int k;
    /* from 1 s after opening: the flow takes about that long to develop through the fill */
    out->rate_hi = fid_discharge_rate(&dis, 1.0, 1e9, 2 * Ws, INFINITY, &k);
    out->rate_lo = fid_discharge_rate(&dis, 1.0, 1e9, Ws, 2 * Ws, &k);
    out->ratio = out->rate_lo > 0 ? out->rate_hi / out->rate_lo : NAN;
    /* halves of the whole run from 0.5 s (down to a fill of 0.75 widths): a fill that never
     * stood above 2 widths (an overlapping solver's) still shows how the rate changes */
    (void)t_above_w;
    const double mid = 0.5 * (0.5 + t);
    out->rate_half1 = fid_discharge_rate(&dis, 0.5, mid, 0, INFINITY, &k);
    out->rate_half2 = fid_discharge_rate(&dis, mid, t, 0, INFINITY, &k);
    out->rate_all = fid_discharge_rate(&dis, 0.5, t, 0, INFINITY, &k);
    for (uint32_t i = 0; i < dis.n && out->rate_count < 16; i++) {
        /* successive 1 s windows: the count at the first sample past each whole second */
        const double edge = out->rate_count + 1.0;
        if (dis.t[i] + 1e-9 >= edge) {
            double prev = 0;
            for (uint32_t j = 0; j < i; j++)
                if (dis.t[j] + 1e-9 >= edge - 1.0) {
                    prev = dis.count[j];
                    break;
                }
            out->rates[out->rate_count++] = dis.count[i] - prev;
        }
    }
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    fid_discharge_free(&dis);
    fid_run_close(&r);
    return st;
}

/* ---- pile -------------------------------------------------------------------------------------------------- */

gr_status fid_run_pile(const fid_params *p, unsigned n, fid_pile_result *out)
{
    memset(out, 0, sizeof *out);
    const double d = 2 * p->radius, side = n * 2.2 * p->radius, drop = 0.5;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){-5, -1, -5}, (gr_vec3){5, 5, 5}, 1.0);
    if (st != GR_OK)
        return st;
    double *x_late = NULL;
    /* a box 1 d wider than the block on each side: a bed under load, no grains rolling away */
    const double half = side / 2 + d;
    if ((st = fid_add_box(&r, GR_SHAPE_CONTAINER, (gr_vec3){0, 1.0, 0}, (gr_vec3){half, 1.0, half}, GR_FACE_POS_Y,
                          NULL)) != GR_OK ||
        (st = fid_fill(&r, p, (gr_vec3){-side / 2, drop, -side / 2}, (gr_vec3){side / 2, drop + side + 1e-9, side / 2},
                       &out->grains)) != GR_OK ||
        (st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    const uint32_t n0 = out->grains;
    const double scale = fid_energy_scale(&r.g, r.gravity), seconds = 4.0;
    const int frames = (int)lround(seconds / p->frame), late = frames - (int)lround(1.0 / p->frame);
    x_late = malloc(sizeof(double) * 3 * n0);
    if (!x_late) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    double last_moving = -1;
    fid_energy_track_add(&out->energy, fid_energy_of(&r.g, r.gravity), 0);
    for (int f = 1; f <= frames; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const double t = f * p->frame;
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&out->energy, e, t);
        out->vmax_end = fid_max_speed(&r.g);
        if (out->vmax_end >= 0.05)
            last_moving = t;
        if (f == late && r.g.n == n0)
            memcpy(x_late, r.g.x, sizeof(double) * 3 * n0);
        fid_verbose(p, &r, "pile", e, 0);
    }
    out->rest_time = last_moving >= frames * p->frame - 1e-9 ? -1 : last_moving + p->frame;
    out->e_rise_rel = out->energy.rise_max / scale;
    out->still_disp_d = r.g.n == n0 ? fid_max_displacement(x_late, r.g.x, n0) / d : INFINITY;
    if (fid_overlap_stats(&r.g, &out->overlap) != 0)
        st = GR_ERROR_OUT_OF_MEMORY;
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    free(x_late);
    fid_run_close(&r);
    return st;
}

/* ---- cluster ---------------------------------------------------------------------------------------------- */

gr_status fid_run_cluster(const fid_params *p, unsigned count, fid_cluster_result *out)
{
    memset(out, 0, sizeof *out);
    const double d = 2 * p->radius;
    const double R = cbrt(3.0 * count / (4 * FID_PI)) * d;
    const int K = (int)(R / d) + 1;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){0, 0, 0}, (gr_vec3){0, 0, 0}, 0.0);
    if (st != GR_OK)
        return st;
    gr_grain_def *defs = malloc(sizeof *defs * (size_t)(2 * K + 1) * (2 * K + 1) * (2 * K + 1));
    if (!defs) {
        fid_run_close(&r);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    uint64_t seed = 0x1234567887654321ULL;
    uint32_t m = 0;
    for (int i = -K; i <= K; i++)
        for (int j = -K; j <= K; j++)
            for (int k = -K; k <= K; k++) {
                const double x = i * d, y = j * d, z = k * d;
                if (x * x + y * y + z * z > R * R)
                    continue;
                const double vx = fid_rand(&seed) - 0.5, vy = fid_rand(&seed) - 0.5, vz = fid_rand(&seed) - 0.5;
                defs[m++] = fid_grain(&r, p, (gr_vec3){x, y, z}, (gr_vec3){vx, vy, vz});
            }
    st = fid_add_grains(&r, defs, m);
    free(defs);
    if (st != GR_OK) {
        fid_run_close(&r);
        return st;
    }
    out->grains = m;
    if ((st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    double p0[3], abs0, pt[3];
    fid_momentum(&r.g, p0, &abs0);
    fid_energy_track et;
    memset(&et, 0, sizeof et);
    fid_energy_track_add(&et, fid_energy_of(&r.g, r.gravity), 0);
    const int frames = (int)lround(2.0 / p->frame);
    for (int f = 1; f <= frames; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&et, e, f * p->frame);
        fid_momentum(&r.g, pt, NULL);
        const double dp = sqrt((pt[0] - p0[0]) * (pt[0] - p0[0]) + (pt[1] - p0[1]) * (pt[1] - p0[1]) +
                               (pt[2] - p0[2]) * (pt[2] - p0[2]));
        if (dp > out->p_drift) out->p_drift = dp;
        fid_verbose(p, &r, "cluster", e, dp);
    }
    out->p_drift_rel = out->p_drift / abs0;
    out->ke_first = et.kinetic_first;
    out->ke_last = et.kinetic_prev_;
    out->ke_max = et.kinetic_max;
    out->ke_rise_max = et.kinetic_rise_max;
    out->ke_rise_rel = et.kinetic_rise_max / et.kinetic_first;
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    fid_run_close(&r);
    return st;
}

/* ---- overlapping spawn ------------------------------------------------------------------------------------ */

gr_status fid_run_spawn(const fid_params *p, unsigned n, fid_spawn_result *out)
{
    memset(out, 0, sizeof *out);
    const double d = 2 * p->radius, s = 0.8 * d, B = n * d, wall = 3 * B;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){-3, -1, -3}, (gr_vec3){3, 20, 3}, 1.0);
    if (st != GR_OK)
        return st;
    if ((st = fid_add_box(&r, GR_SHAPE_CONTAINER, (gr_vec3){0, wall / 2, 0}, (gr_vec3){B / 2, wall / 2, B / 2},
                          GR_FACE_POS_Y, NULL)) != GR_OK) {
        fid_run_close(&r);
        return st;
    }
    gr_grain_def *defs = malloc(sizeof *defs * (size_t)n * n * n);
    if (!defs) {
        fid_run_close(&r);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    const double x0 = -0.5 * (n - 1) * s;
    uint32_t m = 0;
    for (unsigned j = 0; j < n; j++)
        for (unsigned k = 0; k < n; k++)
            for (unsigned i = 0; i < n; i++)
                defs[m++] = fid_grain(&r, p, (gr_vec3){x0 + i * s, p->radius + j * s, x0 + k * s}, (gr_vec3){0, 0, 0});
    st = fid_add_grains(&r, defs, m);
    free(defs);
    if (st != GR_OK) {
        fid_run_close(&r);
        return st;
    }
    out->grains = m;
    if ((st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    const double scale = fid_energy_scale(&r.g, r.gravity);
    const gr_vec3 box_lo = {-B / 2 - p->radius, -p->radius, -B / 2 - p->radius},
                  box_hi = {B / 2 + p->radius, wall, B / 2 + p->radius};
    fid_energy_track_add(&out->energy, fid_energy_of(&r.g, r.gravity), 0);
    const int frames = (int)lround(3.0 / p->frame);
    for (int f = 1; f <= frames; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&out->energy, e, f * p->frame);
        const double vm = fid_max_speed(&r.g);
        if (vm > out->vmax) out->vmax = vm;
        fid_verbose(p, &r, "spawn", e, 0);
    }
    out->left_box = fid_count_outside(&r.g, box_lo, box_hi) + (m - r.g.n);
    out->e_rise_rel = (out->energy.max - out->energy.first) / scale;
    out->ke_max_per_grain_rel = out->energy.kinetic_max / scale;
    if (fid_overlap_stats(&r.g, &out->overlap) != 0)
        st = GR_ERROR_OUT_OF_MEMORY;
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    fid_run_close(&r);
    return st;
}

/* ---- heap ----------------------------------------------------------------------------------------------- */

gr_status fid_run_heap(const fid_params *p, unsigned count, fid_heap_result *out)
{
    memset(out, 0, sizeof *out);
    const double d = 2 * p->radius, disc = 3 * d;
    const unsigned per_frame = 20;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){-3, -1, -3}, (gr_vec3){3, 5, 3}, 1.0);
    if (st != GR_OK)
        return st;
    gr_material rough;
    double *x_late = NULL;
    gr_grain_def batch[20];
    if ((st = fid_material(r.w, p, 1.0, 1.0, 0, &rough)) != GR_OK || (st = fid_add_rough_floor(&r, rough, p->radius)) != GR_OK)
        goto done;
    uint64_t seed = 0x5eed5eed5eedULL;
    uint32_t poured = 0;
    while (poured < count) {
        /* the spawn zone: a disc 8 d above the heap's top near the axis (the top: the highest
         * slow grain there; the falling stream moves at 1 m/s or more) */
        double top = 0;
        for (uint32_t i = 0; i < r.g.n; i++) {
            const double *x = r.g.x + 3 * i, *v = r.g.v + 3 * i;
            if (x[0] * x[0] + x[2] * x[2] < 16 * d * d && x[1] + r.g.r[i] > top &&
                v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < 0.25)
                top = x[1] + r.g.r[i];
        }
        const double y0 = top + 8 * d;
        unsigned m = 0;
        for (int attempt = 0; attempt < 200 && m < per_frame && poured + m < count; attempt++) {
            const double ang = 2 * FID_PI * fid_rand(&seed), rad = (disc - p->radius) * sqrt(fid_rand(&seed));
            const gr_vec3 c = {rad * cos(ang), y0 + 2 * d * fid_rand(&seed), rad * sin(ang)};
            int ok = 1;
            for (uint32_t i = 0; i < r.g.n && ok; i++) {
                const double *x = r.g.x + 3 * i;
                const double dx = x[0] - c.x, dy = x[1] - c.y, dz = x[2] - c.z, rr = r.g.r[i] + p->radius;
                ok = dx * dx + dy * dy + dz * dz >= rr * rr;
            }
            for (unsigned k = 0; k < m && ok; k++) {
                const gr_vec3 q = batch[k].position;
                ok = (q.x - c.x) * (q.x - c.x) + (q.y - c.y) * (q.y - c.y) + (q.z - c.z) * (q.z - c.z) >= d * d;
            }
            if (!ok)
                continue;
            batch[m++] = fid_grain(&r, p, c, (gr_vec3){0, -1, 0});
        }
        if ((st = fid_add_grains(&r, batch, m)) != GR_OK)
            goto done;
        poured += m;
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        fid_verbose(p, &r, "heap-pour", fid_energy_of(&r.g, r.gravity), top);
    }
    out->grains = r.g.n;
    const double settle = p->heap_settle > 1 ? p->heap_settle : 2.0;
    const int frames = (int)lround(settle / p->frame), late = frames - (int)lround(1.0 / p->frame);
    x_late = malloc(sizeof(double) * 3 * (r.g.n + 1));
    if (!x_late) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    const uint32_t n0 = r.g.n;
    fid_energy_track_add(&out->energy, fid_energy_of(&r.g, r.gravity), 0);
    for (int f = 1; f <= frames; f++) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        const fid_energy e = fid_energy_of(&r.g, r.gravity);
        fid_energy_track_add(&out->energy, e, f * p->frame);
        if (f == late && r.g.n == n0)
            memcpy(x_late, r.g.x, sizeof(double) * 3 * n0);
        fid_verbose(p, &r, "heap", e, 0);
    }
    out->still_disp_d = r.g.n == n0 ? fid_max_displacement(x_late, r.g.x, n0) / d : INFINITY;
    out->lost = poured - r.g.n;
    if (r.g.n == n0 && n0 > 0) {
        /* the bulk's creep: the 99th percentile of the displacements (a stray grain rolling
         * on the floor sets the largest) */
        double *dd = malloc(sizeof *dd * n0);
        if (!dd) {
            st = GR_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        for (uint32_t i = 0; i < n0; i++)
            dd[i] = fid_max_displacement(x_late + 3 * i, r.g.x + 3 * i, 1);
        qsort(dd, n0, sizeof *dd, cmp_double);
        out->still_disp_p99_d = dd[(size_t)(0.99 * (double)(n0 - 1))] / d;
        free(dd);
    } else
        out->still_disp_p99_d = INFINITY;
    if (fid_repose_angle(&r.g, 0, 0, d, &out->heap) != 0)
        st = GR_ERROR_OUT_OF_MEMORY;
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    free(x_late);
    fid_run_close(&r);
    return st;
}

/* ---- planar column collapse --------------------------------------------------------------------------- */

static int cmp_double_up(const void *a, const void *b) { return cmp_double(a, b); }

gr_status fid_run_collapse(const fid_params *p, double aspect, unsigned length_d, unsigned width_d,
                           fid_collapse_result *out)
{
    memset(out, 0, sizeof *out);
    /* the fill (about 0.47 packed) settles to about 0.8 of its height in the particle solvers:
     * filled to a L0 / 0.8 the settled column stands about a L0 tall */
    const double d = 2 * p->radius, L0 = length_d * d, W = width_d * d, H = aspect * L0 / 0.8;
    /* room for the published runout (Lube et al. 2005) and half again, and 10 d more */
    const double fit = aspect < 2.3 ? 1.2 * aspect : 1.9 * pow(aspect, 2.0 / 3.0);
    const double Lc = L0 * (1 + 1.5 * fit) + 10 * d, wall = H + 10 * d, T = 2 * d;
    out->aspect = aspect;
    out->L0_d = length_d;
    out->width_d = width_d;
    out->channel_d = Lc / d;
    fid_run r;
    gr_status st = fid_run_open(&r, p, (gr_vec3){-1, -1, -1}, (gr_vec3){Lc + 1, wall + 2, 1}, 1.0);
    if (st != GR_OK)
        return st;
    gr_material rough;
    gr_body gate;
    double *xr = NULL;
    /* the channel: end walls at x = 0 and Lc, side walls at z = +-W/2 (open top and bottom),
     * on a rough floor (as the heap's); the gate holds the column at x = L0 */
    if ((st = fid_add_box(&r, GR_SHAPE_CONTAINER, (gr_vec3){Lc / 2, wall / 2, 0}, (gr_vec3){Lc / 2, wall / 2, W / 2},
                          GR_FACE_POS_Y | GR_FACE_NEG_Y, NULL)) != GR_OK ||
        (st = fid_material(r.w, p, 1.0, 1.0, 0, &rough)) != GR_OK ||
        (st = fid_add_rough_slab(&r, rough, p->radius, -d, Lc + d, -W / 2 - d, W / 2 + d)) != GR_OK ||
        (st = fid_add_box(&r, GR_SHAPE_BOX, (gr_vec3){L0 + T / 2, wall / 2, 0}, (gr_vec3){T / 2, wall / 2, W / 2},
                          0, &gate)) != GR_OK ||
        (st = fid_fill_dense(&r, p, (gr_vec3){0, 0, -W / 2}, (gr_vec3){L0, H, W / 2}, &out->grains)) != GR_OK ||
        (st = fid_grains_read(r.w, &r.g)) != GR_OK)
        goto done;
    const uint32_t n0 = r.g.n;
    /* settle behind the gate */
    const int settle = (int)lround(1.0 / p->frame);
    for (int f = 1; f <= settle; f++)
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
    const uint32_t n_top = (uint32_t)(length_d * width_d / 3 + 1); /* about a third of a layer */
    out->H0_d = fid_top_height(&r.g, n_top) / d;
    out->aspect_settled = out->H0_d / length_d;
    if ((st = gr_remove_body(r.w, gate)) != GR_OK) {
        fid_fail(&r, st, "removing the gate");
        goto done;
    }
    r.step_seconds = 0; /* time the collapse alone */
    r.frames = 0;
    /* run until every grain has been slower than 2 cm/s for half a second, or t_max */
    const double t_max = 1.5 + 6 * sqrt(out->H0_d * d / 9.81);
    double t = 0, quiet = 0;
    while (t < t_max) {
        if ((st = fid_frame(&r, p)) != GR_OK)
            goto done;
        t += p->frame;
        quiet = fid_max_speed(&r.g) < 0.02 ? quiet + p->frame : 0;
        fid_verbose(p, &r, "collapse", fid_energy_of(&r.g, r.gravity), t);
        if (quiet >= 0.5)
            break;
    }
    out->seconds = t;
    out->settled = quiet >= 0.5;
    out->vmax_end = fid_max_speed(&r.g);
    out->lost = n0 - r.g.n;
    /* the front: x + r of the grain with 0.5 % of the grains beyond it (strays do not count) */
    xr = malloc(sizeof *xr * (r.g.n + 1));
    if (!xr) {
        st = GR_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    double xmax = 0, hwall = 0;
    for (uint32_t i = 0; i < r.g.n; i++) {
        xr[i] = r.g.x[3 * i] + r.g.r[i];
        if (xr[i] > xmax) xmax = xr[i];
        if (r.g.x[3 * i] < 2 * d && r.g.x[3 * i + 1] + r.g.r[i] > hwall)
            hwall = r.g.x[3 * i + 1] + r.g.r[i];
    }
    if (r.g.n > 0) {
        qsort(xr, r.g.n, sizeof *xr, cmp_double_up);
        out->front_d = xr[(size_t)(0.995 * (double)(r.g.n - 1))] / d;
    }
    out->front_max_d = xmax / d;
    out->H_inf_d = hwall / d;
    out->runout = (out->front_d - length_d) / length_d;
    out->hit_end = xmax > Lc - d;
    const double as = out->aspect_settled;
    out->runout_fit = as < 2.3 ? 1.2 * as : 1.9 * pow(as, 2.0 / 3.0);
    fid_run_timing(&r, &out->ms_per_frame, &out->substeps_per_frame);
done:
    free(xr);
    fid_run_close(&r);
    return st;
}
