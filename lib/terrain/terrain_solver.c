/* SPDX-License-Identifier: MIT */
/* The terrain as a system of the world (lib/core/solver.h): it holds no grains, moves no
 * bodies and has no surface particles. Its step presses the bodies into the columns every
 * substep (so that a body it carries feels it at the grains' time step) and erodes the active
 * blocks every erosion_interval. The grains meet it through its body, a static heightfield. */
#include "terrain_solver.h"

#include <math.h>
#include <string.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../core/material_map.h"
#include "../core/stream.h"
#include "terrain_def.h"
#include "terrain_erode.h"
#include "terrain_press.h"
#include "terrain_store.h"

static void resolve_angles(terrain_state *st)
{
    const gr_materials *m = st->env.materials;
    if (st->materials_revision == m->revision)
        return;
    for (uint32_t k = 0; k < GR_MAX_MATERIALS; k++) {
        double stop, start;
        terrain_angles(st, k < m->count ? k : 0, &stop, &start);
        st->tan_stop[k] = tan(stop * (3.14159265358979323846 / 180.0));
        st->tan_start[k] = tan(start * (3.14159265358979323846 / 180.0));
    }
    terrain_angles(st, st->material, &st->stop_deg, &st->start_deg);
    st->materials_revision = m->revision;
}

void terrain_angles(const terrain_state *st, uint32_t material, double *stop_deg, double *start_deg)
{
    const gr_materials *m = st->env.materials;
    double stop = st->def.stop_angle;
    if (stop == GR_MATERIAL_DERIVED) {
        const gr_material_def *d = material < m->count ? &m->defs[material] : NULL;
        stop = d ? gr_material_repose_angle(d->friction, d->rolling_friction) : 30.0;
        stop = stop < 1.0 ? 1.0 : (stop > 89.0 ? 89.0 : stop);
    }
    double start = st->def.start_angle;
    if (start == GR_MATERIAL_DERIVED)
        start = stop + 4.0 < 89.0 ? stop + 4.0 : 89.0;
    *stop_deg = stop;
    *start_deg = start > stop ? start : stop;
}

void terrain_bind(terrain_state *st, uint32_t material, uint32_t body)
{
    st->material = material;
    st->body = body;
    memset(st->mat, (int)material, st->n);
    st->materials_revision = UINT32_MAX;
    resolve_angles(st);
    if (body != GR_INVALID_INDEX)
        st->env.bodies->data[body].field = &st->field;
}

static gr_status terrain_create(const gr_solver_env *env, void **out)
{
    terrain_state *st = (terrain_state *)gr_mem_calloc(env->mem, sizeof(terrain_state));
    if (!st)
        return GR_ERROR_OUT_OF_MEMORY;
    st->env = *env;
    st->def = *(const gr_terrain_def *)env->def;
    st->p = terrain_def_params(&st->def);
    st->field = (gr_heightfield){st->def.columns_x, st->def.columns_z, st->def.spacing, st->def.origin, NULL};
    st->n = st->field.nx * st->field.nz;
    st->tile = st->def.tile_size;
    st->tiles_x = (st->field.nx + st->tile - 1) / st->tile;
    st->tiles_z = (st->field.nz + st->tile - 1) / st->tile;
    st->tile_count = st->tiles_x * st->tiles_z;
    st->blocks_x = (st->field.nx + TERRAIN_BLOCK - 1) / TERRAIN_BLOCK;
    st->blocks_z = (st->field.nz + TERRAIN_BLOCK - 1) / TERRAIN_BLOCK;
    st->block_count = st->blocks_x * st->blocks_z;
    st->body = GR_INVALID_INDEX;
    st->materials_revision = UINT32_MAX;
    st->volume_ref = NAN;
    st->rng = *env->seed ^ 0x7e44a1u;
    if (!terrain_store_alloc(st) || !terrain_store_reserve_impulses(st, env->bodies->slot_count)) {
        terrain_store_free(st);
        gr_mem_free(env->mem, st, sizeof *st);
        return GR_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t c = 0; c < st->n; c++)
        st->field.h[c] = st->def.height;
    terrain_mark_changed(st, 0, 0, st->field.nx, st->field.nz);
    resolve_angles(st);
    *out = st;
    return GR_OK;
}

static void terrain_destroy(void *state)
{
    terrain_state *st = (terrain_state *)state;
    if (!st)
        return;
    if (st->body != GR_INVALID_INDEX && st->body < st->env.bodies->slot_count &&
        st->env.bodies->data[st->body].field == &st->field)
        st->env.bodies->data[st->body].field = NULL;
    terrain_store_free(st);
    gr_mem_free(st->env.mem, st, sizeof *st);
}

/* A terrain holds no grains: its sand is columns, and grains go to the particle system. */
static gr_status terrain_reserve(void *state, const gr_grain_init *g, uint32_t count)
{
    (void)state, (void)g, (void)count;
    return GR_ERROR_UNSUPPORTED;
}
static void terrain_add_grains(void *state, const gr_grain_init *g, uint32_t count) { (void)state, (void)g, (void)count; }
static void terrain_remove_grains(void *state, const uint32_t *dense, uint32_t count)
{
    (void)state, (void)dense, (void)count;
}
static void terrain_read_field(const void *state, gr_field field, const uint32_t *dense, uint32_t count, double *out)
{
    (void)state, (void)field, (void)dense, (void)count, (void)out;
}
static void terrain_write_field(void *state, gr_field field, const uint32_t *dense, uint32_t count, const double *in)
{
    (void)state, (void)field, (void)dense, (void)count, (void)in;
}
static uint32_t terrain_render_point_count(const void *state) { return (void)state, 0u; }
static void terrain_read_render_points(const void *state, uint32_t first, uint32_t count, float *dst, size_t stride)
{
    (void)state, (void)first, (void)count, (void)dst, (void)stride;
}

static void terrain_contact_counts(const void *state, uint64_t *pairs, uint64_t *body_pairs, uint64_t *rebuilds)
{
    const terrain_state *st = (const terrain_state *)state;
    *pairs = 0, *body_pairs = st->contact_count, *rebuilds = 0;
}

static gr_status terrain_step(void *state, uint32_t n, double h, gr_step_report *rep)
{
    terrain_state *st = (terrain_state *)state;
    if (!terrain_store_reserve_impulses(st, st->env.bodies->slot_count))
        return GR_ERROR_OUT_OF_MEMORY; /* before anything moved */
    resolve_angles(st);
    if (st->body != GR_INVALID_INDEX)
        st->env.bodies->data[st->body].field = &st->field;
    gr_vec3 *acc = st->impulse;
    for (size_t k = 0; k < 2 * (size_t)st->impulse_cap; k++)
        acc[k] = v3(0, 0, 0);
    for (uint32_t j = 0; j < n; j++) {
        terrain_press(st, h);
        st->clock += h;
        if (st->clock >= st->p.erosion_interval) {
            st->clock = st->p.erosion_interval > 0 ? fmod(st->clock, st->p.erosion_interval) : 0.0;
            terrain_erode(st, st->p.sweeps);
        }
        if (!st->p.hybrid)
            terrain_settle_pending(st);
    }
    rep->time += n * h;
    rep->substeps = n;
    rep->last_substep = h;
    rep->body_impulse = st->impulse;
    rep->impulse_slots = st->impulse_cap < st->env.bodies->slot_count ? st->impulse_cap : st->env.bodies->slot_count;
    rep->impulse_time = n * h;
    return GR_OK;
}

/* Long enough for the columns' push on the bodies they carry to stay stable: a quarter of a
 * radian of the stiffest body's oscillation on its footprint (bearing pressure over the
 * elastic depth across the footprint of its bounding circle). */
static double terrain_stable_substep(void *state)
{
    terrain_state *st = (terrain_state *)state;
    const gr_body_store *bs = st->env.bodies;
    double w = st->stiffest;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        if ((b->motion != GR_MOTION_DYNAMIC && b->motion != GR_MOTION_HOST) || !(b->mass > 0))
            continue;
        const double R = gr_body_bound_radius(b);
        if (!isfinite(R))
            continue;
        const double K = st->p.bearing / st->p.elastic * (3.14159265358979323846 * R * R + st->p.area);
        const double wb = sqrt(K / b->mass);
        w = wb > w ? wb : w;
    }
    /* and short enough that no body crosses more than half a column in one (its footprint
     * sweeps every column it passes) */
    double fastest = 0;
    for (uint32_t a = 0; a < bs->count; a++) {
        const gr_body_data *b = &bs->data[bs->active[a]];
        const double R = gr_body_bound_radius(b);
        if (b->motion == GR_MOTION_STATIC || bs->active[a] == st->body || !isfinite(R))
            continue;
        const double v = v3_len(b->linear_velocity) + v3_len(b->angular_velocity) * R;
        fastest = v > fastest ? v : fastest;
    }
    double h = w > 0 ? 0.25 / w : INFINITY;
    if (fastest > 0 && 0.5 * st->p.d / fastest < h)
        h = 0.5 * st->p.d / fastest;
    return h;
}

/* ---- snapshots ---------------------------------------------------------------------------------- */

static gr_status terrain_save(const void *state, gr_stream_writer *w)
{
    const terrain_state *st = (const terrain_state *)state;
    gr_writer_u32(w, st->n);
    gr_writer_u32(w, st->material);
    gr_writer_u32(w, st->body);
    gr_writer_f64s(w, st->field.h, st->n);
    gr_writer_bytes(w, st->mat, st->n);
    gr_writer_bytes(w, st->flags, st->n);
    gr_writer_u32(w, st->block_count);
    gr_writer_bytes(w, st->block_active, st->block_count);
    gr_writer_u32(w, st->tile_count);
    for (uint32_t t = 0; t < st->tile_count; t++) {
        const gr_terrain_rect *r = &st->changed[t];
        const uint32_t v[4] = {r->x0, r->z0, r->x1, r->z1};
        gr_writer_u32s(w, v, 4);
    }
    gr_writer_u32(w, st->contact_count);
    gr_writer_u32s(w, st->contacts, st->contact_count);
    gr_writer_u32(w, st->pending_count);
    for (uint32_t q = 0; q < st->pending_count; q++) {
        const uint32_t c = st->pending_list[q];
        gr_writer_u32(w, c);
        gr_writer_u32(w, st->pending_body[c]);
        gr_writer_f64(w, st->pending[c]);
    }
    gr_writer_u32(w, st->rest_cap);
    gr_writer_u32s(w, st->rest, st->rest_cap);
    gr_writer_u32(w, st->active_blocks);
    gr_writer_u32(w, st->grains_seen);
    const double v[] = {st->clock, st->compressed, st->stiffest, st->volume_ref};
    gr_writer_f64s(w, v, GR_COUNTOF(v));
    gr_writer_u64(w, st->released);
    gr_writer_u64(w, st->absorbed);
    gr_writer_u64(w, st->rng);
    /* the push it gives the bodies it carries in the next substep */
    const gr_body_store *bs = st->env.bodies;
    gr_writer_u32(w, bs->slot_count);
    for (uint32_t b = 0; b < bs->slot_count; b++) {
        const gr_body_data *d = &bs->data[b];
        const bool on = bs->alive[b] && d->ext_active;
        gr_writer_u32(w, on);
        if (on) {
            const double e[6] = {d->ext_force.x, d->ext_force.y, d->ext_force.z,
                                 d->ext_torque.x, d->ext_torque.y, d->ext_torque.z};
            gr_writer_f64s(w, e, 6);
        }
    }
    return w->failed ? GR_ERROR_IO : GR_OK;
}

static gr_status terrain_load(void *state, gr_stream_reader *r)
{
    terrain_state *st = (terrain_state *)state;
    GR_LOAD_CHECK(r, gr_reader_u32(r) == st->n, "the terrain's column count differs from its def's");
    const uint32_t material = gr_reader_u32(r), body = gr_reader_u32(r);
    GR_LOAD_CHECK(r, material < st->env.materials->count, "the terrain's material is not in the world");
    GR_LOAD_CHECK(r, gr_reader_left(r) >= (size_t)st->n * 10, "the terrain's columns are cut short");
    gr_reader_f64s(r, st->field.h, st->n);
    gr_reader_bytes(r, st->mat, st->n);
    gr_reader_bytes(r, st->flags, st->n);
    for (uint32_t c = 0; c < st->n; c++) {
        GR_LOAD_CHECK(r, isfinite(st->field.h[c]) && st->field.h[c] >= 0, "a terrain height is not a height");
        GR_LOAD_CHECK(r, st->mat[c] < st->env.materials->count, "a terrain column's material is not in the world");
        GR_LOAD_CHECK(r, st->flags[c] <= (TERRAIN_CONTACT | TERRAIN_MOVING), "a terrain column's flags are unknown");
    }
    GR_LOAD_CHECK(r, gr_reader_u32(r) == st->block_count, "the terrain's block count differs from its def's");
    gr_reader_bytes(r, st->block_active, st->block_count);
    for (uint32_t b = 0; b < st->block_count; b++)
        GR_LOAD_CHECK(r, st->block_active[b] <= 1, "a terrain block's state is unknown");
    GR_LOAD_CHECK(r, gr_reader_u32(r) == st->tile_count, "the terrain's tile count differs from its def's");
    for (uint32_t t = 0; t < st->tile_count; t++) {
        uint32_t v[4];
        gr_reader_u32s(r, v, 4);
        const uint32_t ax = t % st->tiles_x * st->tile, az = t / st->tiles_x * st->tile;
        GR_LOAD_CHECK(r, v[0] <= v[2] && v[1] <= v[3] && v[2] <= st->field.nx && v[3] <= st->field.nz &&
                             (v[0] == v[2] || (v[0] >= ax && v[2] <= ax + st->tile && v[1] >= az && v[3] <= az + st->tile)),
                      "a terrain tile's changes are out of range");
        st->changed[t] = (gr_terrain_rect){v[0], v[1], v[2], v[3]};
    }
    st->contact_count = gr_reader_u32(r);
    GR_LOAD_CHECK(r, st->contact_count <= st->n, "the terrain's contacts are out of range");
    gr_reader_u32s(r, st->contacts, st->contact_count);
    for (uint32_t c = 0; c < st->n; c++) /* under a body: what the list says */
        st->flags[c] &= (uint8_t)~TERRAIN_CONTACT;
    for (uint32_t q = 0; q < st->contact_count; q++) {
        GR_LOAD_CHECK(r, st->contacts[q] < st->n, "a terrain contact is out of range");
        st->flags[st->contacts[q]] |= TERRAIN_CONTACT;
    }
    st->pending_count = gr_reader_u32(r);
    GR_LOAD_CHECK(r, st->pending_count <= st->n, "the terrain's pending grains are out of range");
    for (uint32_t q = 0; q < st->pending_count; q++) {
        const uint32_t c = gr_reader_u32(r);
        GR_LOAD_CHECK(r, c < st->n && !(st->pending[c] > 0), "a terrain's pending column is out of range");
        st->pending_list[q] = c;
        st->pending_body[c] = gr_reader_u32(r);
        st->pending[c] = gr_reader_f64(r);
        GR_LOAD_CHECK(r, st->pending[c] > 0 && isfinite(st->pending[c]), "a terrain's pending volume is not a volume");
    }
    const uint32_t rest = gr_reader_u32(r);
    GR_LOAD_CHECK(r, rest <= GR_MAX_GRAINS && gr_reader_left(r) >= 4 * (size_t)rest, "the terrain's rest counts are cut short");
    if (!terrain_store_reserve_rest(st, rest))
        return GR_ERROR_OUT_OF_MEMORY;
    gr_reader_u32s(r, st->rest, rest);
    st->active_blocks = gr_reader_u32(r);
    st->grains_seen = gr_reader_u32(r);
    GR_LOAD_CHECK(r, st->active_blocks <= st->block_count, "the terrain's active blocks are out of range");
    double v[4];
    gr_reader_f64s(r, v, 4);
    st->clock = v[0], st->compressed = v[1], st->stiffest = v[2], st->volume_ref = v[3];
    st->released = gr_reader_u64(r);
    st->absorbed = gr_reader_u64(r);
    st->rng = gr_reader_u64(r);
    GR_LOAD_CHECK(r, isfinite(st->clock) && st->clock >= 0 && isfinite(st->compressed) && st->compressed >= 0 &&
                     isfinite(st->stiffest) && st->stiffest >= 0 && (isnan(st->volume_ref) || isfinite(st->volume_ref)),
              "the terrain's clock or counters are out of range");
    gr_body_store *bs = st->env.bodies;
    GR_LOAD_CHECK(r, gr_reader_u32(r) == bs->slot_count, "the terrain's bodies are not the world's");
    GR_LOAD_CHECK(r, body < bs->slot_count && bs->alive[body] && bs->data[body].shape == GR_SHAPE_HEIGHTFIELD,
                  "the terrain's surface body is not a heightfield of the world");
    for (uint32_t b = 0; b < bs->slot_count; b++) {
        const uint32_t on = gr_reader_u32(r);
        GR_LOAD_CHECK(r, on <= 1 && (!on || (bs->alive[b] && (bs->data[b].motion == GR_MOTION_DYNAMIC ||
                                                             bs->data[b].motion == GR_MOTION_HOST))),
                      "the terrain pushes a body that it cannot carry");
        gr_body_data *d = &bs->data[b];
        d->ext_active = on != 0;
        d->ext_force = d->ext_torque = v3(0, 0, 0);
        if (on) {
            double e[6];
            gr_reader_f64s(r, e, 6);
            d->ext_force = v3(e[0], e[1], e[2]), d->ext_torque = v3(e[3], e[4], e[5]);
            GR_LOAD_CHECK(r, v3_finite(d->ext_force) && v3_finite(d->ext_torque), "the terrain's push is not finite");
        }
    }
    GR_LOAD_CHECK(r, !r->bad, "the terrain's state is cut short");
    st->material = material;
    st->body = body;
    bs->data[body].field = &st->field;
    st->materials_revision = UINT32_MAX;
    resolve_angles(st);
    return GR_OK;
}

static void terrain_invalidate(void *state)
{
    terrain_state *st = (terrain_state *)state;
    resolve_angles(st);
    const gr_body_store *bs = st->env.bodies;
    if (st->body != GR_INVALID_INDEX && st->body < bs->slot_count && bs->alive[st->body] &&
        bs->data[st->body].shape == GR_SHAPE_HEIGHTFIELD)
        bs->data[st->body].field = &st->field;
}

static gr_status terrain_body_added(void *state, uint32_t body)
{
    terrain_state *st = (terrain_state *)state;
    return terrain_store_reserve_impulses(st, body + 1) ? GR_OK : GR_ERROR_OUT_OF_MEMORY;
}

const gr_solver_vtable gr_terrain_solver = {
    .kind = GR_SOLVER_TERRAIN,
    .name = "terrain",
    .def_kind = GR_DEF_TERRAIN,
    .def_size = sizeof(gr_terrain_def),
    .def_layout = &terrain_def_layout,
    .def_defaults = terrain_def_defaults,
    .def_validate = terrain_def_validate,
    .def_save = terrain_def_save,
    .oldest_format = 12,
    .def_load = terrain_def_load,
    .create = terrain_create,
    .destroy = terrain_destroy,
    .reserve = terrain_reserve,
    .add_grains = terrain_add_grains,
    .remove_grains = terrain_remove_grains,
    .step = terrain_step,
    .stable_substep = terrain_stable_substep,
    .read_field = terrain_read_field,
    .write_field = terrain_write_field,
    .render_point_count = terrain_render_point_count,
    .read_render_points = terrain_read_render_points,
    .contact_counts = terrain_contact_counts,
    .save = terrain_save,
    .load = terrain_load,
    .invalidate = terrain_invalidate,
    .integrates_bodies = false,
    .body_particles = false,
    .body_added = terrain_body_added,
};
