/* SPDX-License-Identifier: MIT */
/* The terrain's entry points (docs/terrain.md): adding one, its heights, its changes. */
#include <math.h>
#include <string.h>

#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../terrain/terrain_def.h"
#include "../terrain/terrain_hybrid.h"
#include "../terrain/terrain_internal.h"
#include "../terrain/terrain_solver.h"
#include "../terrain/terrain_store.h"
#include "../world/world_errors.h"
#include "../world/world_systems.h"
#include "api_bodies.h"
#include "api_internal.h"
#include "api_terrain.h"

gr_status gr_world_add_terrain(gr_world *w, const void *def, uint32_t *out, const char *f)
{
    const gr_terrain_def *d = (const gr_terrain_def *)def;
    uint32_t material;
    if (d->material.id == 0)
        material = w->default_material;
    else
        GR_CHECK(gr_resolve_material(w, d->material, &material, f));
    if (w->bodies.count + w->bodies.retired >= GR_MAX_BODIES)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u bodies: none is left for the terrain's surface",
                       GR_MAX_BODIES);
    if (!gr_body_store_reserve(&w->bodies, &w->mem))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the terrain's body failed");
    uint32_t system;
    GR_CHECK(gr_world_attach_system(w, gr_solver_find(GR_SOLVER_TERRAIN), def, &system, f));
    terrain_state *st = (terrain_state *)w->systems[system].state;
    /* its surface: a static body the grains meet as any other */
    gr_body_data b;
    memset(&b, 0, sizeof b);
    b.shape = GR_SHAPE_HEIGHTFIELD;
    b.motion = GR_MOTION_STATIC;
    b.material = material;
    b.position = d->origin;
    b.orientation = (gr_quat){0, 0, 0, 1};
    b.field = &st->field;
    /* sizes a body must have (snapshots check them); the surface's own come from the field */
    b.radius = d->spacing;
    b.half_extents = v3(0.5 * d->spacing * d->columns_x, 1.0, 0.5 * d->spacing * d->columns_z);
    gr_body_update_frame(&b);
    uint32_t slot, failed;
    const gr_status s = gr_body_insert_told(w, &b, &slot, &failed);
    if (s != GR_OK) {
        gr_world_detach_last_system(w);
        return gr_fail(w, s, f, "adding the terrain's surface body failed (%s)", gr_status_string(s));
    }
    terrain_bind(st, material, slot);
    gr_world_invalidate(w);
    if (out)
        *out = system;
    return GR_OK;
}

GR_API gr_status gr_terrain_def_preset(gr_terrain_def *def, gr_terrain_preset preset)
{
    if (!def)
        return GR_ERROR_NULL_ARGUMENT;
    if (def->size < offsetof(gr_terrain_def, debug_volume) + sizeof def->debug_volume || def->size > GR_MAX_DEF_SIZE)
        return GR_ERROR_STRUCT_SIZE;
    return terrain_def_apply_preset(def, (uint32_t)preset) ? GR_OK : GR_ERROR_UNKNOWN_ENUM;
}

static gr_status terrain_of(const gr_world *w, uint32_t system, terrain_state **out, const char *f)
{
    GR_CHECK(gr_check_world(w, f));
    if (system >= w->system_count || w->systems[system].solver->kind != GR_SOLVER_TERRAIN)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "system %u is not a terrain (the world holds %u systems)", system,
                       w->system_count);
    *out = (terrain_state *)w->systems[system].state;
    return GR_OK;
}

static gr_status check_rect(const gr_world *w, const terrain_state *st, uint32_t x0, uint32_t z0, uint32_t nx,
                            uint32_t nz, const char *f)
{
    if (nx == 0 || nz == 0 || x0 >= st->field.nx || z0 >= st->field.nz || nx > st->field.nx - x0 ||
        nz > st->field.nz - z0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "columns [%u, %u + %u) x [%u, %u + %u) are not a rectangle inside the terrain's %u x %u", x0, x0,
                       nx, z0, z0, nz, st->field.nx, st->field.nz);
    return GR_OK;
}

GR_API gr_status gr_terrain_get_info(const gr_world *w, uint32_t system, gr_terrain_info *out)
{
    static const char f[] = "gr_terrain_get_info";
    terrain_state *st = NULL;
    GR_CHECK(terrain_of(w, system, &st, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    if (out->size < sizeof(uint32_t) || out->size > GR_MAX_DEF_SIZE)
        return gr_fail(w, GR_ERROR_STRUCT_SIZE, f, "out->size = %u: set it to sizeof(gr_terrain_info)", out->size);
    gr_terrain_info i;
    memset(&i, 0, sizeof i);
    i.size = out->size;
    i.columns_x = st->field.nx, i.columns_z = st->field.nz;
    i.tile_size = st->tile, i.tiles_x = st->tiles_x, i.tiles_z = st->tiles_z;
    i.spacing = st->field.spacing;
    i.origin = st->field.origin;
    terrain_angles(st, st->material, &i.stop_angle, &i.start_angle);
    i.packing = st->p.packing;
    i.volume = terrain_bulk_volume(st); /* with what a body displaced and is not yet grains */
    i.compressed_volume = st->compressed;
    i.grains_released = st->released;
    i.grains_absorbed = st->absorbed;
    i.active_blocks = st->active_blocks;
    i.body = st->body;
    const uint32_t size = out->size;
    memcpy(out, &i, size < sizeof i ? size : sizeof i);
    out->size = size;
    return GR_OK;
}

GR_API gr_status gr_terrain_get_body(const gr_world *w, uint32_t system, gr_body *out)
{
    static const char f[] = "gr_terrain_get_body";
    terrain_state *st = NULL;
    GR_CHECK(terrain_of(w, system, &st, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    out->id = gr_handle_make(w->tag, w->bodies.gen[st->body], st->body);
    return GR_OK;
}

GR_API gr_status gr_terrain_set_heights(gr_world *w, uint32_t system, uint32_t x0, uint32_t z0, uint32_t nx,
                                        uint32_t nz, const float *heights)
{
    static const char f[] = "gr_terrain_set_heights";
    terrain_state *st = NULL;
    GR_CHECK(terrain_of(w, system, &st, f));
    GR_CHECK(check_rect(w, st, x0, z0, nx, nz, f));
    if (!heights)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "heights is NULL");
    for (size_t k = 0; k < (size_t)nx * nz; k++) /* every height first: all or nothing */
        if (!(heights[k] >= 0.0f && heights[k] <= 1e4f))
            return gr_fail(w, isfinite(heights[k]) ? GR_ERROR_INVALID_ARGUMENT : GR_ERROR_NOT_FINITE, f,
                           "heights[%zu] = %g: a height is finite and in [0, 1e4] m", k, (double)heights[k]);
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t i = 0; i < nx; i++)
            st->field.h[(size_t)(z0 + k) * st->field.nx + x0 + i] = heights[(size_t)k * nx + i];
    terrain_mark_changed(st, x0, z0, x0 + nx, z0 + nz);
    st->volume_ref = NAN; /* an edit, not a flow: the invariant starts anew */
    return GR_OK;
}

GR_API gr_status gr_terrain_read_heights(const gr_world *w, uint32_t system, uint32_t x0, uint32_t z0, uint32_t nx,
                                         uint32_t nz, float *out)
{
    static const char f[] = "gr_terrain_read_heights";
    terrain_state *st = NULL;
    GR_CHECK(terrain_of(w, system, &st, f));
    GR_CHECK(check_rect(w, st, x0, z0, nx, nz, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    for (uint32_t k = 0; k < nz; k++)
        for (uint32_t i = 0; i < nx; i++)
            out[(size_t)k * nx + i] = (float)st->field.h[(size_t)(z0 + k) * st->field.nx + x0 + i];
    return GR_OK;
}

GR_API gr_status gr_terrain_take_changes(gr_world *w, uint32_t system, uint32_t tile, gr_terrain_rect *out)
{
    static const char f[] = "gr_terrain_take_changes";
    terrain_state *st = NULL;
    GR_CHECK(terrain_of(w, system, &st, f));
    if (tile >= st->tile_count)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "tile %u: the terrain has %u (%u x %u)", tile, st->tile_count,
                       st->tiles_x, st->tiles_z);
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    *out = st->changed[tile];
    if (out->x0 >= out->x1 || out->z0 >= out->z1)
        *out = (gr_terrain_rect){0, 0, 0, 0};
    st->changed[tile] = (gr_terrain_rect){0, 0, 0, 0};
    return GR_OK;
}
