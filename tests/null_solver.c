/* SPDX-License-Identifier: MIT */
/* A null solver, registered the way a real one is (docs/architecture.md, "Adding a solver"):
 * its table below plus one line in the solver list, which the test build supplies through
 * GR_SOLVER_LIST_EXTRA (tests/meson.build). Grains fly apart from one another: gravity and a
 * linear drag, integrated exactly, no contacts; bodies are accepted (not covered with
 * particles) and left where the host puts them. Small as it is, it keeps the whole contract (all-or-nothing reserve, published
 * indices, report, snapshot with checks, its own def), so that test_solver_contract.c can
 * hold it to the same tests as the DEM and PBD. */
#include <math.h>
#include <string.h>

#include "../lib/core/stream.h"
#include "../lib/core/vec3.h"
#include "null_solver.h"

typedef struct null_state {
    gr_solver_env env;
    const gr_null_def *def;
    uint32_t n, cap;
    gr_vec3 *x, *v, *w;
    gr_quat *q;
    double *r;
    uint32_t *mat, *slot;
} null_state;

/* ---- its def -------------------------------------------------------------------------------- */

static void null_def_defaults(void *def)
{
    gr_null_def *d = (gr_null_def *)def;
    d->reserved0 = 0;
    d->drag = 0.0;
}

GR_DEF_LISTED_TO_END(gr_null_def, drag);
static const uint16_t null_def_bounds[] = {GR_DEF_FIELD_BOUNDS(gr_null_def, size) GR_DEF_FIELD_BOUNDS(gr_null_def, reserved0)
                                               GR_DEF_FIELD_BOUNDS(gr_null_def, drag)};
static const gr_def_layout null_def_layout = {null_def_bounds, (uint32_t)GR_COUNTOF(null_def_bounds)};

static bool null_def_validate(const void *def, gr_def_check *c)
{
    const gr_null_def *d = (const gr_null_def *)def;
    if (d->reserved0 != 0)
        return gr_def_fail(c, GR_ERROR_INVALID_ARGUMENT, "null.reserved0 must be 0");
    return gr_def_range(c, d->drag, 0.0, 1e3, "null.drag");
}

static void null_def_save(const void *def, gr_stream_writer *w)
{
    gr_writer_f64(w, ((const gr_null_def *)def)->drag);
}

static bool null_def_load(void *def, gr_stream_reader *r)
{
    ((gr_null_def *)def)->drag = gr_reader_f64(r);
    return !r->bad;
}

/* ---- lifetime and grains -------------------------------------------------------------------- */

static gr_status null_create(const gr_solver_env *env, void **out)
{
    null_state *st = (null_state *)gr_mem_calloc(env->mem, sizeof(null_state));
    if (!st)
        return GR_ERROR_OUT_OF_MEMORY;
    st->env = *env;
    st->def = (const gr_null_def *)env->def;
    *out = st;
    return GR_OK;
}

/* The grains' arrays, one group for gr_mem_grow_arrays. */
#define NULL_ARRAY_COUNT 7
static void arrays_of(null_state *st, gr_array_ref out[NULL_ARRAY_COUNT])
{
    const gr_array_ref a[NULL_ARRAY_COUNT] = {
        {(void **)&st->x, sizeof(gr_vec3)}, {(void **)&st->v, sizeof(gr_vec3)}, {(void **)&st->w, sizeof(gr_vec3)},
        {(void **)&st->q, sizeof(gr_quat)}, {(void **)&st->r, sizeof(double)},  {(void **)&st->mat, sizeof(uint32_t)},
        {(void **)&st->slot, sizeof(uint32_t)},
    };
    memcpy(out, a, sizeof a);
}

static void null_destroy(void *state)
{
    null_state *st = (null_state *)state;
    if (!st)
        return;
    gr_array_ref a[NULL_ARRAY_COUNT];
    arrays_of(st, a);
    gr_mem_free_arrays(st->env.mem, a, NULL_ARRAY_COUNT, st->cap);
    gr_mem_free(st->env.mem, st, sizeof *st);
}

/* Room for `need` grains, all or nothing. */
static gr_status grow(null_state *st, uint32_t need)
{
    if (need <= st->cap)
        return GR_OK;
    const uint32_t cap = gr_grow_capacity(st->cap, need);
    gr_array_ref a[NULL_ARRAY_COUNT];
    arrays_of(st, a);
    if (!gr_mem_grow_arrays(st->env.mem, a, NULL_ARRAY_COUNT, st->cap, cap, st->n))
        return GR_ERROR_OUT_OF_MEMORY;
    st->cap = cap;
    return GR_OK;
}

static gr_status null_reserve(void *state, const gr_grain_init *g, uint32_t count)
{
    null_state *st = (null_state *)state;
    for (uint32_t k = 0; k < count; k++)
        if (g[k].clump != GR_INVALID_INDEX)
            return GR_ERROR_UNSUPPORTED; /* spheres only */
    if ((uint64_t)st->n + count > GR_MAX_GRAINS)
        return GR_ERROR_TOO_MANY;
    return grow(st, st->n + count);
}

static void null_add_grains(void *state, const gr_grain_init *g, uint32_t count)
{
    null_state *st = (null_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = st->n++;
        st->x[i] = g[k].position;
        st->v[i] = g[k].velocity;
        st->w[i] = g[k].angular_velocity;
        st->q[i] = g[k].orientation;
        st->r[i] = g[k].radius;
        st->mat[i] = g[k].material;
        st->slot[i] = g[k].slot;
        st->env.grains->dense[g[k].slot] = i;
    }
}

/* The dense indices are of before the call (the contract: storage is compacted lazily, so a
 * list may name any grains in any order): every named grain is marked first, then one pass
 * compacts, publishing the moved grains' new indices. */
static void null_remove_grains(void *state, const uint32_t *dense, uint32_t count)
{
    null_state *st = (null_state *)state;
    for (uint32_t k = 0; k < count; k++)
        st->slot[dense[k]] = GR_INVALID_INDEX;
    uint32_t out = 0;
    for (uint32_t i = 0; i < st->n; i++) {
        if (st->slot[i] == GR_INVALID_INDEX)
            continue;
        if (out != i) {
            st->x[out] = st->x[i];
            st->v[out] = st->v[i];
            st->w[out] = st->w[i];
            st->q[out] = st->q[i];
            st->r[out] = st->r[i];
            st->mat[out] = st->mat[i];
            st->slot[out] = st->slot[i];
            st->env.grains->dense[st->slot[out]] = out;
        }
        out++;
    }
    st->n = out;
}

/* ---- the step --------------------------------------------------------------------------------- */

/* dv/dt = g - k v over h, exactly: v = v_inf + (v0 - v_inf) e^(-k h), v_inf = g / k; k = 0 is
 * the ballistic limit. */
static gr_status null_step(void *state, uint32_t n, double h, gr_step_report *rep)
{
    null_state *st = (null_state *)state;
    const gr_vec3 g = *st->env.gravity;
    const double k = st->def->drag;
    const double decay = exp(-k * h);
    /* x gains v0 a + g b: a = (1 - e^(-kh)) / k, b = (h - a) / k (h and h^2 / 2 at k = 0) */
    const double a = k > 0 ? -expm1(-k * h) / k : h;
    const double b = k > 0 ? (h - a) / k : 0.5 * h * h;
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t i = 0; i < st->n; i++) {
            const gr_vec3 x = v3_add(st->x[i], v3_add(v3_scale(st->v[i], a), v3_scale(g, b)));
            const gr_vec3 v = k > 0 ? v3_add(v3_scale(st->v[i], decay), v3_scale(g, a)) : v3_add(st->v[i], v3_scale(g, h));
            if (!v3_finite(x) || !(v3_len(v) <= GR_MAX_SPEED)) {
                if (!rep->blowups++)
                    rep->blowup_slot = st->slot[i];
                st->v[i] = v3(0, 0, 0); /* stopped at its last finite state */
                continue;
            }
            st->x[i] = x;
            st->v[i] = v;
        }
        rep->substeps++;
        rep->time += h;
        rep->last_substep = h;
        if (rep->blowups)
            return GR_ERROR_UNSTABLE; /* the others completed the substep: the world is at its end */
    }
    /* fall: a body under gravity alone moves g x this; with drag the grains do not, but bodies
     * are not this solver's, so the exact free fall stands (the world's default dt^2 / 2) */
    return GR_OK;
}

static double null_stable_substep(void *state)
{
    (void)state;
    return INFINITY; /* nothing constrains it: the world takes dt in one substep */
}

/* ---- fields --------------------------------------------------------------------------------- */

static void null_read_field(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out)
{
    const null_state *st = (const null_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        double *o = out + 4 * (size_t)k;
        gr_vec3 a = {0, 0, 0};
        switch (field) {
        case GR_FIELD_POSITION: a = st->x[i]; break;
        case GR_FIELD_VELOCITY: a = st->v[i]; break;
        case GR_FIELD_ANGULAR_VELOCITY: a = st->w[i]; break;
        case GR_FIELD_ORIENTATION: o[0] = st->q[i].x; o[1] = st->q[i].y; o[2] = st->q[i].z; o[3] = st->q[i].w; continue;
        case GR_FIELD_RADIUS: o[0] = st->r[i]; continue;
        case GR_FIELD_MASS:
            o[0] = st->env.materials->defs[st->mat[i]].density * 4.0 / 3.0 * GR_PI * st->r[i] * st->r[i] * st->r[i];
            continue;
        case GR_FIELD_MATERIAL: o[0] = (double)st->mat[i]; continue;
        default: break; /* force: no contacts */
        }
        o[0] = a.x;
        o[1] = a.y;
        o[2] = a.z;
    }
}

static void null_write_field(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in)
{
    null_state *st = (null_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = dense[k];
        const double *p = in + 4 * (size_t)k;
        switch (field) {
        case GR_FIELD_POSITION: st->x[i] = v3(p[0], p[1], p[2]); break;
        case GR_FIELD_VELOCITY: st->v[i] = v3(p[0], p[1], p[2]); break;
        case GR_FIELD_ANGULAR_VELOCITY: st->w[i] = v3(p[0], p[1], p[2]); break;
        case GR_FIELD_ORIENTATION: st->q[i] = (gr_quat){p[0], p[1], p[2], p[3]}; break;
        default: break;
        }
    }
}

static uint32_t null_render_point_count(const void *state) { return ((const null_state *)state)->n; }

static void null_read_render_points(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    const null_state *st = (const null_state *)state;
    for (uint32_t k = 0; k < count; k++) {
        float *p = (float *)(void *)((char *)dst + stride * k);
        const uint32_t i = first + k;
        p[0] = (float)st->x[i].x;
        p[1] = (float)st->x[i].y;
        p[2] = (float)st->x[i].z;
        p[3] = (float)st->r[i];
    }
}

static void null_contact_counts(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds)
{
    (void)state;
    *pairs = *body_pairs = *rebuilds = 0;
}

/* ---- snapshot ------------------------------------------------------------------------------- */

static gr_status null_save(const void *state, gr_stream_writer *w)
{
    const null_state *st = (const null_state *)state;
    gr_writer_u32(w, st->n);
    for (uint32_t i = 0; i < st->n; i++) {
        const double v[] = {st->x[i].x, st->x[i].y, st->x[i].z, st->v[i].x, st->v[i].y, st->v[i].z, st->w[i].x,
                            st->w[i].y, st->w[i].z, st->q[i].x, st->q[i].y, st->q[i].z, st->q[i].w, st->r[i]};
        gr_writer_f64s(w, v, GR_COUNTOF(v));
        gr_writer_u32(w, st->mat[i]);
        gr_writer_u32(w, st->slot[i]);
    }
    return GR_OK;
}

#define LOAD_CHECK(cond, what) GR_LOAD_CHECK(r, cond, what)

static gr_status null_load(void *state, gr_stream_reader *r)
{
    null_state *st = (null_state *)state;
    gr_grain_table *t = st->env.grains;
    const uint32_t n = gr_reader_u32(r);
    LOAD_CHECK(n == gr_grain_table_count_system(t, st->env.system), "the grain count differs from its live grain slots");
    /* 14 doubles and two indices each: a count the stream cannot hold is refused before allocating */
    LOAD_CHECK((uint64_t)n * (14 * 8 + 8) <= gr_reader_left(r), "the grain count exceeds the snapshot");
    if (grow(st, n) != GR_OK)
        return GR_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        double v[14];
        gr_reader_f64s(r, v, 14);
        const uint32_t mat = gr_reader_u32(r), slot = gr_reader_u32(r);
        for (int c = 0; c < 14; c++)
            LOAD_CHECK(isfinite(v[c]), "a grain's state is not finite");
        LOAD_CHECK(v[13] > 0 && v[13] <= 1e3, "a grain's radius is out of range");
        LOAD_CHECK(mat < st->env.materials->count, "a grain's material is not one of its materials");
        LOAD_CHECK(slot < t->slot_count && t->alive[slot] && gr_grain_of(t, slot, st->env.system) &&
                       t->dense[slot] == GR_INVALID_INDEX,
                   "a grain's slot is not live, not of this system, or taken twice");
        st->x[i] = v3(v[0], v[1], v[2]);
        st->v[i] = v3(v[3], v[4], v[5]);
        st->w[i] = v3(v[6], v[7], v[8]);
        st->q[i] = (gr_quat){v[9], v[10], v[11], v[12]};
        st->r[i] = v[13];
        st->mat[i] = mat;
        st->slot[i] = slot;
        t->dense[slot] = i;
        st->n = i + 1;
    }
    return GR_OK;
}

/* ---- bodies: accepted, not simulated (no particles: body_particles false) ------------------- */

static void null_invalidate(void *state) { (void)state; }
const gr_solver_vtable gr_null_solver = {
    .kind = GR_SOLVER_NULL_TEST,
    .name = "null",
    .def_kind = GR_DEF_NULL_TEST,
    .def_size = sizeof(gr_null_def),
    .def_layout = &null_def_layout,
    .def_defaults = null_def_defaults,
    .def_validate = null_def_validate,
    .def_save = null_def_save,
    .oldest_format = 7,
    .def_load = null_def_load,
    .create = null_create,
    .destroy = null_destroy,
    .reserve = null_reserve,
    .add_grains = null_add_grains,
    .remove_grains = null_remove_grains,
    .step = null_step,
    .stable_substep = null_stable_substep,
    .read_field = null_read_field,
    .write_field = null_write_field,
    .render_point_count = null_render_point_count,
    .read_render_points = null_read_render_points,
    .contact_counts = null_contact_counts,
    .save = null_save,
    .load = null_load,
    .invalidate = null_invalidate,
    .body_particles = false, /* bodies keep their shapes: none are covered with particles */
};
