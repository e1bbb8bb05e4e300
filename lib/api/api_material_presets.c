/* SPDX-License-Identifier: MIT */
/* Material presets: measured coefficients for common dry materials (docs/materials.md). */
#include "api_defaults.h"
#include "api_world.h"
#include "../core/material_map.h"

/* One preset's values over the defaults: the grains' density, restitution, sliding friction
 * and rolling resistance (their angularity). Every solver derives its own coefficients from
 * these (core/material_map.c), so the solver-specific fields stay GR_MATERIAL_DERIVED. */
typedef struct material_preset {
    double density, restitution;
    double friction, rolling_friction;
} material_preset;

static const material_preset presets[] = {
    [GR_MATERIAL_PRESET_DRY_SAND] = {2650, 0.5, 0.5, 0.25},
    [GR_MATERIAL_PRESET_GRAVEL] = {2700, 0.4, 0.7, 1.0},
    [GR_MATERIAL_PRESET_GLASS_BEADS] = {2500, 0.9, 0.3, 0.05},
};

GR_API gr_status gr_material_def_set_preset(gr_material_def *def, gr_material_preset preset)
{
    if (!def)
        return GR_ERROR_NULL_ARGUMENT;
    if ((uint32_t)preset >= sizeof presets / sizeof presets[0])
        return GR_ERROR_UNKNOWN_ENUM;
    gr_material_def full;
    gr_def_defaults_full(GR_DEF_MATERIAL, &full);
    if (preset != GR_MATERIAL_PRESET_DEFAULT) {
        const material_preset *m = &presets[preset];
        full.density = m->density;
        full.restitution = m->restitution;
        full.friction = m->friction;
        full.rolling_friction = m->rolling_friction;
    }
    /* the size check and the copy of only the fields the caller's struct has */
    gr_status st = gr_def_set_defaults(GR_DEF_MATERIAL, def);
    if (st != GR_OK)
        return st;
    const size_t n = def->size < sizeof full ? def->size : sizeof full;
    memcpy((char *)def + sizeof(uint32_t), (const char *)&full + sizeof(uint32_t), n - sizeof(uint32_t));
    return GR_OK;
}

GR_API gr_status gr_material_def_derive(gr_material_def *def)
{
    static const char f[] = "gr_material_def_derive";
    if (!def)
        return GR_ERROR_NULL_ARGUMENT;
    gr_material_def full;
    GR_CHECK(gr_def_read(NULL, GR_DEF_MATERIAL, def, &full, f, "def"));
    GR_CHECK(gr_validate_material_def(NULL, &full, f));
    double mu_s, mu_k;
    gr_material_pbd_resolve(&full, &mu_s, &mu_k);
    full.static_friction = mu_s;
    full.kinetic_friction = mu_k;
    full.continuum_friction = gr_material_continuum_resolve(&full);
    const size_t n = def->size < sizeof full ? def->size : sizeof full;
    memcpy((char *)def + sizeof(uint32_t), (const char *)&full + sizeof(uint32_t), n - sizeof(uint32_t));
    return GR_OK;
}
