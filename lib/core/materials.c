/* SPDX-License-Identifier: MIT */
#include "materials.h"

#include <math.h>

#include "material_map.h"

/* Neither of the material's PBD coefficients is given. */
static bool pbd_derived(const gr_material_def *m)
{
    return m->static_friction == GR_MATERIAL_DERIVED && m->kinetic_friction == GR_MATERIAL_DERIVED;
}

void gr_materials_init(gr_materials *m) { memset(m, 0, sizeof *m); }

void gr_materials_free(gr_materials *m, gr_mem *mem)
{
    gr_mem_free(mem, m->defs, sizeof(gr_material_def) * m->cap);
    gr_mem_free(mem, m->overrides, sizeof(gr_material_override) * m->override_cap);
    gr_materials_init(m);
}

bool gr_materials_add(gr_materials *m, gr_mem *mem, const gr_material_def *def)
{
    if (m->count == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 8;
        gr_array_ref a = {(void **)&m->defs, sizeof(gr_material_def)};
        if (!gr_mem_grow_arrays(mem, &a, 1, m->cap, cap, m->count))
            return false;
        m->cap = cap;
    }
    m->defs[m->count++] = *def;
    m->revision++;
    return true;
}

bool gr_materials_set_pair(gr_materials *m, gr_mem *mem, uint32_t a, uint32_t b, const gr_material_pair_def *def)
{
    if (a > b) { uint32_t t = a; a = b; b = t; }
    for (uint32_t i = 0; i < m->override_count; i++)
        if (m->overrides[i].a == a && m->overrides[i].b == b) {
            m->overrides[i].def = *def;
            m->revision++;
            return true;
        }
    if (m->override_count == m->override_cap) {
        uint32_t cap = m->override_cap ? m->override_cap * 2 : 8;
        gr_array_ref arr = {(void **)&m->overrides, sizeof(gr_material_override)};
        if (!gr_mem_grow_arrays(mem, &arr, 1, m->override_cap, cap, m->override_count))
            return false;
        m->override_cap = cap;
    }
    gr_material_override *o = &m->overrides[m->override_count++];
    o->a = a;
    o->b = b;
    o->def = *def;
    m->revision++;
    return true;
}

void gr_materials_pair(const gr_materials *m, uint32_t a, uint32_t b, gr_pair_coeffs *out)
{
    const gr_material_def *ma = &m->defs[a], *mb = &m->defs[b];
    out->e_star = 1.0 / ((1.0 - ma->poisson_ratio * ma->poisson_ratio) / ma->youngs_modulus +
                         (1.0 - mb->poisson_ratio * mb->poisson_ratio) / mb->youngs_modulus);
    out->g_star = 1.0 / (2.0 * (2.0 - ma->poisson_ratio) * (1.0 + ma->poisson_ratio) / ma->youngs_modulus +
                         2.0 * (2.0 - mb->poisson_ratio) * (1.0 + mb->poisson_ratio) / mb->youngs_modulus);
    out->restitution = sqrt(ma->restitution * mb->restitution);
    out->friction = sqrt(ma->friction * mb->friction);
    out->rolling_friction = sqrt(ma->rolling_friction * mb->rolling_friction);
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    for (uint32_t i = 0; i < m->override_count; i++)
        if (m->overrides[i].a == lo && m->overrides[i].b == hi) {
            out->restitution = m->overrides[i].def.restitution;
            out->friction = m->overrides[i].def.friction;
            out->rolling_friction = m->overrides[i].def.rolling_friction;
        }
    /* PBD's pair: derived from the pair's own friction and rolling friction (mixed or
     * overridden, as the DEM's) when both materials leave it to the library, so the pair heaps
     * as the DEM's pair does; else each material's coefficients (given or derived), mixed */
    if (pbd_derived(ma) && pbd_derived(mb)) {
        gr_material_pbd_friction(gr_material_repose_angle(out->friction, out->rolling_friction),
                                 &out->static_friction, &out->kinetic_friction);
    } else {
        double sa, ka, sb, kb;
        gr_material_pbd_resolve(ma, &sa, &ka);
        gr_material_pbd_resolve(mb, &sb, &kb);
        out->static_friction = sqrt(sa * sb);
        out->kinetic_friction = sqrt(ka * kb);
    }
}
