/* SPDX-License-Identifier: MIT */
/* Grain entry points: add, remove, per-grain state, bulk read/write, render points. */
#include <stdio.h>

#include "../world/world_errors.h"
#include "../world/world_systems.h"
#include "api_internal.h"
#include "api_grains.h"
#include "api_defaults.h"

/* ---- adding ---------------------------------------------------------------------------- */

static gr_status resolve_grain_def(const gr_world *w, const gr_grain_def *d, gr_grain_init *g, const char *f)
{
    GR_CHECK(gr_resolve_grain_shape(w, d->shape, d->clump, &g->clump, f));
    GR_CHECK(gr_check_positive(w, d->radius, false, f, "def.radius"));
    if (d->radius > 1e3)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.radius = %g m is absurd (limit 1000 m)", d->radius);
    GR_CHECK(gr_check_vec(w, d->position, f, "def.position"));
    GR_CHECK(gr_check_vec(w, d->velocity, f, "def.velocity"));
    GR_CHECK(gr_check_vec(w, d->angular_velocity, f, "def.angular_velocity"));
    GR_CHECK(gr_check_quat(w, d->orientation, &g->orientation, f, "def.orientation"));
    GR_CHECK(gr_resolve_material(w, d->material, &g->material, f));
    g->radius = d->radius;
    g->position = d->position;
    g->velocity = d->velocity;
    g->angular_velocity = d->angular_velocity;
    g->slot = GR_INVALID_INDEX;
    return GR_OK;
}

gr_status gr_check_system(const gr_world *w, uint32_t system, const char *f, const char *what)
{
    if (system >= w->system_count)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "%s = %u: the world holds %u system%s (gr_world_add_system)",
                       what, system, w->system_count, w->system_count == 1 ? "" : "s");
    return GR_OK;
}

gr_status gr_add_resolved_grains(gr_world *w, uint32_t system, gr_grain_init *g, uint32_t count, gr_grain *out,
                                 uint32_t out_cap, const char *f)
{
    const gr_system *sys = &w->systems[system];
    const gr_status s = gr_world_add_grains(w, system, g, count);
    if (s == GR_ERROR_TOO_MANY && (uint64_t)w->grains.count + count > GR_MAX_GRAINS)
        return gr_fail(w, s, f, "%u more grains would exceed GR_MAX_GRAINS (%u)", count, GR_MAX_GRAINS);
    if (s == GR_ERROR_OUT_OF_MEMORY)
        return gr_fail(w, s, f, "allocating storage for %u grains failed", count);
    if (s == GR_ERROR_UNSUPPORTED)
        return gr_fail(w, s, f, "the %s solver has spherical grains only (no clump shapes)", sys->solver->name);
    if (s == GR_ERROR_TOO_MANY)
        return gr_fail(w, s, f, "%u more grains would exceed the solver's GR_MAX_GRAINS spheres", count);
    if (s != GR_OK)
        return gr_fail(w, s, f, "adding %u grains failed (%s)", count, gr_status_string(s));
    for (uint32_t k = 0; out && k < count && k < out_cap; k++)
        out[k].id = gr_handle_make(w->tag, w->grains.gen[g[k].slot], g[k].slot);
    return GR_OK;
}

GR_API gr_status gr_add_grain(gr_world *w, const gr_grain_def *user, gr_grain *out)
{
    static const char f[] = "gr_add_grain";
    GR_CHECK(gr_check_world(w, f));
    gr_grain_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_GRAIN, user, &def, f, "def"));
    gr_grain_init g;
    GR_CHECK(resolve_grain_def(w, &def, &g, f));
    GR_CHECK(gr_check_system(w, def.system, f, "def.system"));
    return gr_add_resolved_grains(w, def.system, &g, 1, out, 1, f);
}

GR_API gr_status gr_add_grains(gr_world *w, const gr_grain_def *defs, uint32_t count, gr_grain *out)
{
    static const char f[] = "gr_add_grains";
    GR_CHECK(gr_check_world(w, f));
    if (count == 0)
        return GR_OK;
    if (!defs)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "defs is NULL");
    if (count > GR_MAX_GRAINS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "count %u exceeds GR_MAX_GRAINS (%u)", count, GR_MAX_GRAINS);
    uint32_t stride;
    memcpy(&stride, defs, sizeof stride);
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_GRAIN_DEF, stride, f, "defs[0]"));
    size_t bytes = sizeof(gr_grain_init) * (size_t)count;
    gr_grain_init *g = (gr_grain_init *)gr_mem_alloc(&w->mem, bytes);
    if (!g)
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating scratch for %u grains failed", count);
    gr_status s = GR_OK;
    uint32_t system = 0;
    for (uint32_t k = 0; k < count && s == GR_OK; k++) {
        const char *p = (const char *)defs + (size_t)k * stride;
        uint32_t size;
        memcpy(&size, p, sizeof size);
        if (size != stride) {
            s = gr_fail(w, GR_ERROR_STRUCT_SIZE, f, "defs[%u].size is %u, defs[0].size is %u: all must match", k, size,
                        stride);
            break;
        }
        gr_grain_def def;
        char fk[48]; /* messages name the element (and are logged once) */
        snprintf(fk, sizeof fk, "%s: defs[%u]", f, k);
        s = gr_def_read(w, GR_DEF_GRAIN, p, &def, fk, "def");
        if (s == GR_OK)
            s = resolve_grain_def(w, &def, &g[k], fk);
        if (s == GR_OK)
            s = gr_check_system(w, def.system, fk, "def.system");
        if (s == GR_OK && k > 0 && def.system != system)
            s = gr_fail(w, GR_ERROR_INVALID_ARGUMENT, fk, "def.system is %u, defs[0].system %u: one call adds to one system",
                        def.system, system);
        system = def.system;
    }
    if (s == GR_OK)
        s = gr_add_resolved_grains(w, system, g, count, out, count, f);
    gr_mem_free(&w->mem, g, bytes);
    return s;
}

/* ---- removing ---------------------------------------------------------------------------- */

GR_API gr_status gr_remove_grain(gr_world *w, gr_grain grain)
{
    return gr_remove_grains(w, &grain, 1);
}

GR_API gr_status gr_remove_grains(gr_world *w, const gr_grain *grains, uint32_t count)
{
    static const char f[] = "gr_remove_grains";
    GR_CHECK(gr_check_world(w, f));
    if (count == 0)
        return GR_OK;
    if (!grains)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "grains is NULL");
    if (count > w->grains.count)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "count %u exceeds the %u live grains (duplicates?)", count,
                       w->grains.count);
    /* validate all (and find duplicates) before removing any */
    size_t bytes = sizeof(uint32_t) * (size_t)count;
    uint32_t *dense = (uint32_t *)gr_mem_alloc(&w->mem, bytes);
    if (!dense)
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating scratch failed");
    gr_status s = GR_OK;
    uint32_t k = 0;
    for (; k < count; k++) {
        uint32_t slot;
        s = gr_resolve_grain(w, grains[k], &slot, f);
        if (s != GR_OK)
            break;
        if (w->grains.dense[slot] == GR_INVALID_INDEX) {
            s = gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "grains[%u] appears twice", k);
            break;
        }
        dense[k] = w->grains.dense[slot];
        w->grains.dense[slot] = GR_INVALID_INDEX; /* marks "seen"; restored on failure */
    }
    if (s != GR_OK) {
        for (uint32_t i = 0; i < k; i++)
            w->grains.dense[gr_handle_slot(grains[i].id)] = dense[i];
        gr_mem_free(&w->mem, dense, bytes);
        return s;
    }
    /* each system its own grains, in one call (restore the marks, then gather per system) */
    for (k = 0; k < count; k++)
        w->grains.dense[gr_handle_slot(grains[k].id)] = dense[k];
    for (uint32_t i = 0; i < w->system_count; i++) {
        uint32_t n = 0;
        for (k = 0; k < count; k++) {
            const uint32_t slot = gr_handle_slot(grains[k].id);
            if (w->grains.system[slot] == i)
                dense[n++] = w->grains.dense[slot];
        }
        if (n > 0)
            w->systems[i].solver->remove_grains(w->systems[i].state, dense, n);
    }
    for (k = 0; k < count; k++)
        gr_grain_table_release(&w->grains, gr_handle_slot(grains[k].id));
    gr_mem_free(&w->mem, dense, bytes);
    return GR_OK;
}

/* ---- one grain ------------------------------------------------------------------------------ */

GR_API int gr_grain_is_valid(const gr_world *w, gr_grain g)
{
    if (!w)
        return 0;
    uint32_t slot;
    return gr_handle_check(g.id, w->tag, w->grains.gen, w->grains.alive, w->grains.slot_count, &slot) == GR_OK;
}

/* A grain as its system addresses it: the system and the dense index there. */
typedef struct grain_ref {
    const gr_system *sys;
    uint32_t dense;
} grain_ref;

static gr_status grain_ref_of(const gr_world *w, gr_grain g, grain_ref *ref, const char *f)
{
    GR_CHECK(gr_check_world(w, f));
    uint32_t slot;
    GR_CHECK(gr_resolve_grain(w, g, &slot, f));
    ref->sys = gr_grain_system(w, slot);
    ref->dense = w->grains.dense[slot];
    return GR_OK;
}

/* One grain's field through its solver's bulk accessors. */
static void read_field(grain_ref r, gr_field field, double buf[4])
{
    r.sys->solver->read_field(r.sys->state, field, &r.dense, 1, buf);
}

static gr_vec3 read_vec(grain_ref r, gr_field field)
{
    double buf[4];
    read_field(r, field, buf);
    return v3(buf[0], buf[1], buf[2]);
}

static double read_scalar(grain_ref r, gr_field field)
{
    double buf[4];
    read_field(r, field, buf);
    return buf[0];
}

static void write_field(grain_ref r, gr_field field, const double buf[4])
{
    r.sys->solver->write_field(r.sys->state, field, &r.dense, 1, buf);
}

static void write_vec(grain_ref r, gr_field field, gr_vec3 v)
{
    const double buf[4] = {v.x, v.y, v.z, 0.0};
    write_field(r, field, buf);
}

GR_API gr_status gr_grain_get_state(const gr_world *w, gr_grain g, gr_grain_state *out)
{
    static const char f[] = "gr_grain_get_state";
    grain_ref d;
    GR_CHECK(grain_ref_of(w, g, &d, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    out->position = read_vec(d, GR_FIELD_POSITION);
    out->velocity = read_vec(d, GR_FIELD_VELOCITY);
    out->angular_velocity = read_vec(d, GR_FIELD_ANGULAR_VELOCITY);
    double q[4];
    read_field(d, GR_FIELD_ORIENTATION, q);
    out->orientation = (gr_quat){q[0], q[1], q[2], q[3]};
    return GR_OK;
}

GR_API gr_status gr_grain_set_state(gr_world *w, gr_grain g, const gr_grain_state *st)
{
    static const char f[] = "gr_grain_set_state";
    grain_ref d;
    GR_CHECK(grain_ref_of(w, g, &d, f));
    if (!st)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "state is NULL");
    GR_CHECK(gr_check_vec(w, st->position, f, "state.position"));
    GR_CHECK(gr_check_vec(w, st->velocity, f, "state.velocity"));
    GR_CHECK(gr_check_vec(w, st->angular_velocity, f, "state.angular_velocity"));
    gr_quat q = {0, 0, 0, 1};
    GR_CHECK(gr_check_quat(w, st->orientation, &q, f, "state.orientation"));
    write_vec(d, GR_FIELD_POSITION, st->position);
    write_vec(d, GR_FIELD_VELOCITY, st->velocity);
    write_vec(d, GR_FIELD_ANGULAR_VELOCITY, st->angular_velocity);
    const double qb[4] = {q.x, q.y, q.z, q.w};
    write_field(d, GR_FIELD_ORIENTATION, qb);
    return GR_OK;
}

GR_API gr_status gr_grain_get_radius(const gr_world *w, gr_grain g, double *out)
{
    static const char f[] = "gr_grain_get_radius";
    grain_ref d;
    GR_CHECK(grain_ref_of(w, g, &d, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    *out = read_scalar(d, GR_FIELD_RADIUS);
    return GR_OK;
}

GR_API gr_status gr_grain_get_material(const gr_world *w, gr_grain g, gr_material *out)
{
    static const char f[] = "gr_grain_get_material";
    grain_ref d;
    GR_CHECK(grain_ref_of(w, g, &d, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    *out = gr_material_handle(w, (uint32_t)read_scalar(d, GR_FIELD_MATERIAL));
    return GR_OK;
}

/* A grain's slot for a getter with one output (checked). */
static gr_status grain_slot_for(const gr_world *w, gr_grain g, const void *out, uint32_t *slot, const char *f)
{
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(gr_resolve_grain(w, g, slot, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    return GR_OK;
}

GR_API gr_status gr_grain_get_index(const gr_world *w, gr_grain g, uint32_t *out)
{
    uint32_t slot;
    GR_CHECK(grain_slot_for(w, g, out, &slot, "gr_grain_get_index"));
    *out = w->grains.pos[slot];
    return GR_OK;
}

GR_API gr_status gr_grain_get_system(const gr_world *w, gr_grain g, uint32_t *out)
{
    uint32_t slot;
    GR_CHECK(grain_slot_for(w, g, out, &slot, "gr_grain_get_system"));
    *out = w->grains.system[slot];
    return GR_OK;
}

/* ---- bulk ---------------------------------------------------------------------------------- */

enum { BULK_CHUNK = 256 };

static uint32_t field_width(gr_field field)
{
    switch (field) {
    case GR_FIELD_POSITION:
    case GR_FIELD_VELOCITY:
    case GR_FIELD_ANGULAR_VELOCITY:
    case GR_FIELD_FORCE: return 3;
    case GR_FIELD_ORIENTATION: return 4;
    case GR_FIELD_RADIUS:
    case GR_FIELD_MASS:
    case GR_FIELD_HANDLE:
    case GR_FIELD_MATERIAL: return 1;
    default: return 0;
    }
}

static gr_status check_bulk(const gr_world *w, gr_field field, gr_scalar_type type, uint32_t first, uint32_t count,
                            const void *buf, size_t *stride, bool writing, const char *f)
{
    uint32_t width = field_width(field);
    if (width == 0)
        return gr_fail(w, GR_ERROR_UNKNOWN_ENUM, f, "field = %u is not a known field", (unsigned)field);
    if (type != GR_TYPE_F64 && type != GR_TYPE_F32 && type != GR_TYPE_U64)
        return gr_fail(w, GR_ERROR_UNKNOWN_ENUM, f, "type = %u is not a known scalar type", (unsigned)type);
    bool handle_field = field == GR_FIELD_HANDLE || field == GR_FIELD_MATERIAL;
    if (handle_field != (type == GR_TYPE_U64))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "field %u %s type GR_TYPE_U64", (unsigned)field,
                       handle_field ? "needs" : "cannot use");
    if (writing && field != GR_FIELD_POSITION && field != GR_FIELD_VELOCITY && field != GR_FIELD_ANGULAR_VELOCITY &&
        field != GR_FIELD_ORIENTATION)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "field %u is read-only", (unsigned)field);
    if ((uint64_t)first + count > w->grains.count)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "range [%u, %u + %u) exceeds the %u grains", first, first, count,
                       w->grains.count);
    if (count > 0 && !buf)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "buffer is NULL");
    size_t elem = (type == GR_TYPE_F32 ? 4 : 8) * (size_t)width;
    if (*stride == 0)
        *stride = elem;
    if (*stride < elem)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "stride %zu is smaller than one element (%zu bytes)", *stride, elem);
    return GR_OK;
}

GR_API gr_status gr_read_grains(const gr_world *w, gr_field field, gr_scalar_type type, uint32_t first, uint32_t count,
                                void *dst, size_t stride)
{
    static const char f[] = "gr_read_grains";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(check_bulk(w, field, type, first, count, dst, &stride, false, f));
    const uint32_t width = field_width(field);
    const gr_grain_table *t = &w->grains;
    uint32_t dense[BULK_CHUNK];
    double vals[4 * BULK_CHUNK];
    for (uint32_t base = 0; base < count; base += BULK_CHUNK) {
        uint32_t n = count - base < BULK_CHUNK ? count - base : BULK_CHUNK;
        for (uint32_t k = 0; k < n; k++)
            dense[k] = t->dense[t->list[first + base + k]];
        if (field != GR_FIELD_HANDLE)
            gr_world_grain_field(w, field, t->list + first + base, dense, n, vals, NULL);
        for (uint32_t k = 0; k < n; k++) {
            char *p = (char *)dst + (size_t)(base + k) * stride;
            if (field == GR_FIELD_HANDLE) {
                uint32_t slot = t->list[first + base + k];
                uint64_t id = gr_handle_make(w->tag, t->gen[slot], slot);
                memcpy(p, &id, 8);
            } else if (field == GR_FIELD_MATERIAL) {
                uint64_t id = gr_material_handle(w, (uint32_t)vals[4 * k]).id;
                memcpy(p, &id, 8);
            } else if (type == GR_TYPE_F64) {
                memcpy(p, &vals[4 * k], 8 * width);
            } else {
                float fv[4];
                for (uint32_t c = 0; c < width; c++)
                    fv[c] = (float)vals[4 * k + c];
                memcpy(p, fv, 4 * width);
            }
        }
    }
    return GR_OK;
}

GR_API gr_status gr_write_grains(gr_world *w, gr_field field, gr_scalar_type type, uint32_t first, uint32_t count,
                                 const void *src, size_t stride)
{
    static const char f[] = "gr_write_grains";
    GR_CHECK(gr_check_world(w, f));
    GR_CHECK(check_bulk(w, field, type, first, count, src, &stride, true, f));
    const uint32_t width = field_width(field);
    /* check every value first: nothing is written unless all are valid */
    for (uint32_t k = 0; k < count; k++) {
        const char *p = (const char *)src + (size_t)k * stride;
        double v[4] = {0, 0, 0, 0};
        for (uint32_t c = 0; c < width; c++) {
            if (type == GR_TYPE_F64) memcpy(&v[c], p + 8 * c, 8);
            else { float x; memcpy(&x, p + 4 * c, 4); v[c] = x; }
            if (!isfinite(v[c]))
                return gr_fail(w, GR_ERROR_NOT_FINITE, f, "element %u component %u is not finite", k, c);
        }
        /* the rule of gr_check_quat: a length that is (nearly) zero or overflows is no rotation */
        const double l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
        if (field == GR_FIELD_ORIENTATION && (!(l2 > 1e-12) || !isfinite(l2)))
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "element %u: orientation has length %g: not a rotation", k,
                           sqrt(l2));
    }
    const gr_grain_table *t = &w->grains;
    uint32_t dense[BULK_CHUNK];
    double vals[4 * BULK_CHUNK];
    for (uint32_t base = 0; base < count; base += BULK_CHUNK) {
        uint32_t n = count - base < BULK_CHUNK ? count - base : BULK_CHUNK;
        for (uint32_t k = 0; k < n; k++) {
            const char *p = (const char *)src + (size_t)(base + k) * stride;
            double *v = &vals[4 * k];
            v[3] = 0;
            for (uint32_t c = 0; c < width; c++) {
                if (type == GR_TYPE_F64) memcpy(&v[c], p + 8 * c, 8);
                else { float x; memcpy(&x, p + 4 * c, 4); v[c] = x; }
            }
            if (field == GR_FIELD_ORIENTATION) {
                gr_quat q = quat_normalize((gr_quat){v[0], v[1], v[2], v[3]});
                v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
            }
            dense[k] = t->dense[t->list[first + base + k]];
        }
        gr_world_grain_field(w, field, t->list + first + base, dense, n, NULL, vals);
    }
    return GR_OK;
}

GR_API gr_status gr_read_render_points(const gr_world *w, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    static const char f[] = "gr_read_render_points";
    GR_CHECK(gr_check_world(w, f));
    uint32_t total = gr_world_get_render_point_count(w);
    if ((uint64_t)first + count > total)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "range [%u, %u + %u) exceeds the %u render points", first, first,
                       count, total);
    if (count > 0 && !dst)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "dst is NULL");
    if (stride == 0)
        stride = 4 * sizeof(float);
    if (stride < 4 * sizeof(float))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "stride %zu is smaller than 16 bytes", stride);
    /* the systems' points one after the other */
    for (uint32_t i = 0, begin = 0; i < w->system_count && count > 0; i++) {
        const gr_system *sys = &w->systems[i];
        const uint32_t n = sys->solver->render_point_count(sys->state), end = begin + n;
        if (first < end) {
            const uint32_t take = end - first < count ? end - first : count;
            sys->solver->read_render_points(sys->state, first - begin, take, dst, stride);
            dst = (float *)((char *)dst + (size_t)take * stride);
            first += take;
            count -= take;
        }
        begin = end;
    }
    return GR_OK;
}
