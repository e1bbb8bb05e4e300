/* SPDX-License-Identifier: MIT */
/* Material entry points. */
#include "../world/world_errors.h"
#include "../world/world_systems.h"
#include "api_internal.h"
#include "api_defaults.h"
#include "api_world.h"

GR_API gr_status gr_add_material(gr_world *w, const gr_material_def *user, gr_material *out)
{
    static const char f[] = "gr_add_material";
    GR_CHECK(gr_check_world(w, f));
    gr_material_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_MATERIAL, user, &def, f, "def"));
    GR_CHECK(gr_validate_material_def(w, &def, f));
    if (w->materials.count >= GR_MAX_MATERIALS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u materials", GR_MAX_MATERIALS);
    if (!gr_materials_add(&w->materials, &w->mem, &def))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the material failed");
    if (out)
        *out = gr_material_handle(w, w->materials.count - 1);
    return GR_OK;
}

GR_API gr_material gr_world_get_default_material(const gr_world *w)
{
    gr_material m = {0};
    if (w)
        m = gr_material_handle(w, w->default_material);
    return m;
}

GR_API gr_status gr_material_get_def(const gr_world *w, gr_material m, gr_material_def *out)
{
    static const char f[] = "gr_material_get_def";
    GR_CHECK(gr_check_world(w, f));
    uint32_t idx;
    GR_CHECK(gr_resolve_material(w, m, &idx, f));
    if (!out)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "out is NULL");
    GR_CHECK(gr_check_struct_size(w, GR_STRUCT_MATERIAL_DEF, out->size, f, "out"));
    uint32_t size = out->size;
    const gr_material_def *d = &w->materials.defs[idx];
    memcpy(out, d, size < sizeof *d ? size : sizeof *d);
    out->size = size;
    return GR_OK;
}

GR_API gr_status gr_set_material_pair(gr_world *w, gr_material a, gr_material b, const gr_material_pair_def *user)
{
    static const char f[] = "gr_set_material_pair";
    GR_CHECK(gr_check_world(w, f));
    uint32_t ia, ib;
    GR_CHECK(gr_resolve_material(w, a, &ia, f));
    GR_CHECK(gr_resolve_material(w, b, &ib, f));
    gr_material_pair_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_MATERIAL_PAIR, user, &def, f, "def"));
    if (def.reserved0 != 0)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.reserved0 must be 0");
    GR_CHECK(gr_check_range(w, def.restitution, 1e-6, 1.0, f, "def.restitution"));
    GR_CHECK(gr_check_range(w, def.friction, 0.0, 1e3, f, "def.friction"));
    GR_CHECK(gr_check_range(w, def.rolling_friction, 0.0, 1e3, f, "def.rolling_friction"));
    if (!gr_materials_set_pair(&w->materials, &w->mem, ia, ib, &def))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the pair override failed");
    /* contacts between these materials act differently from the next step on */
    gr_world_invalidate(w);
    return GR_OK;
}
