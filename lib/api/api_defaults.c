/* SPDX-License-Identifier: MIT */
/* The defaults of every def but the solvers' own (documented field by field in gr_types.h;
 * a solver's def is the solver's: dem_def.c, pbd_def.c). */
#include "../world/world_errors.h"
#include "api_internal.h"
#include "api_defaults.h"
#include "api_def_layout.h"

static void world_defaults(gr_world_def *d)
{
    d->solver = GR_SOLVER_DEM;
    d->gravity = (gr_vec3){0.0, -9.81, 0.0};
    d->substep = 0.0;
    d->worker_count = 1;
    d->seed = 0x9e3779b97f4a7c15ull;
}

static void material_defaults(gr_material_def *d)
{
    d->density = 2500.0;
    d->youngs_modulus = 5e6;
    d->poisson_ratio = 0.3;
    d->restitution = 0.5;
    d->friction = 0.5;
    d->rolling_friction = 0.0;
    d->static_friction = GR_MATERIAL_DERIVED;
    d->kinetic_friction = GR_MATERIAL_DERIVED;
    d->continuum_friction = GR_MATERIAL_DERIVED;
}

static void pair_defaults(gr_material_pair_def *d)
{
    d->restitution = 0.5;
    d->friction = 0.5;
    d->rolling_friction = 0.0;
}

static void grain_defaults(gr_grain_def *d)
{
    d->shape = GR_GRAIN_SPHERE;
    d->radius = 0.005;
    d->orientation = (gr_quat){0, 0, 0, 1};
}

static void body_defaults(gr_body_def *d)
{
    d->motion = GR_MOTION_STATIC;
    d->orientation = (gr_quat){0, 0, 0, 1};
    d->normal = (gr_vec3){0, 1, 0};
    d->radius = 0.5;
    d->half_height = 0.5;
    d->half_extents = (gr_vec3){0.5, 0.5, 0.5};
    d->particle_density = 1.0;
    d->inertia_rotation = (gr_quat){0, 0, 0, 1};
}

static void fill_defaults(gr_fill_def *d)
{
    d->pattern = GR_FILL_LATTICE;
    d->shape = GR_GRAIN_SPHERE;
    d->max = (gr_vec3){0.1, 0.1, 0.1};
    d->radius = 0.005;
    d->jitter = 0.5;
    d->attempts = 50;
    d->avoid_overlap = 1;
}

size_t gr_def_full_size(gr_def_kind kind)
{
    switch (kind) {
    case GR_DEF_WORLD: return sizeof(gr_world_def);
    case GR_DEF_MATERIAL: return sizeof(gr_material_def);
    case GR_DEF_MATERIAL_PAIR: return sizeof(gr_material_pair_def);
    case GR_DEF_GRAIN: return sizeof(gr_grain_def);
    case GR_DEF_BODY: return sizeof(gr_body_def);
    case GR_DEF_FILL: return sizeof(gr_fill_def);
    case GR_DEF_CLUMP: return sizeof(gr_clump_def);
    default: {
        const gr_solver_vtable *s = gr_solver_find_def(kind);
        return s ? s->def_size : 0;
    }
    }
}

void gr_def_defaults_full(gr_def_kind kind, void *def)
{
    size_t size = gr_def_full_size(kind);
    memset(def, 0, size);
    *(uint32_t *)def = (uint32_t)size;
    switch (kind) {
    case GR_DEF_WORLD: world_defaults((gr_world_def *)def); break;
    case GR_DEF_MATERIAL: material_defaults((gr_material_def *)def); break;
    case GR_DEF_MATERIAL_PAIR: pair_defaults((gr_material_pair_def *)def); break;
    case GR_DEF_GRAIN: grain_defaults((gr_grain_def *)def); break;
    case GR_DEF_BODY: body_defaults((gr_body_def *)def); break;
    case GR_DEF_FILL: fill_defaults((gr_fill_def *)def); break;
    default: {
        const gr_solver_vtable *s = gr_solver_find_def(kind);
        if (s)
            s->def_defaults(def);
        break;
    }
    }
}

GR_API gr_status gr_def_set_defaults(gr_def_kind kind, void *def)
{
    size_t full = gr_def_full_size(kind);
    if (full == 0)
        return GR_ERROR_UNKNOWN_ENUM;
    if (!def)
        return GR_ERROR_NULL_ARGUMENT;
    uint32_t size = *(const uint32_t *)def;
    if (!gr_struct_size_ok((gr_struct_kind)kind, size))
        return GR_ERROR_STRUCT_SIZE;
    gr_def_buffer tmp; /* any def, a solver's included */
    gr_def_defaults_full(kind, &tmp);
    /* only the fields the caller's struct has; its size field stays as it is */
    size_t n = size < full ? size : full;
    memcpy((char *)def + sizeof(uint32_t), (const char *)&tmp + sizeof(uint32_t), n - sizeof(uint32_t));
    return GR_OK;
}

gr_status gr_check_struct_size(const gr_world *w, gr_struct_kind kind, uint32_t size, const char *func,
                               const char *what)
{
    if (size == 0)
        return gr_fail(w, GR_ERROR_STRUCT_SIZE, func, "%s.size is 0: initialise it with its _init function", what);
    if (size < sizeof(uint32_t) || size > GR_MAX_DEF_SIZE)
        return gr_fail(w, GR_ERROR_STRUCT_SIZE, func, "%s.size is %u: not a struct of this library", what, size);
    if (!gr_struct_size_ok(kind, size))
        return gr_fail(w, GR_ERROR_STRUCT_SIZE, func,
                       "%s.size is %u: it ends inside a field (set it to sizeof the struct of a granular header)",
                       what, size);
    return GR_OK;
}

gr_status gr_def_read(const gr_world *w, gr_def_kind kind, const void *user, void *out, const char *func, const char *what)
{
    if (!user)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, func, "%s is NULL", what);
    uint32_t size;
    memcpy(&size, user, sizeof size);
    GR_CHECK(gr_check_struct_size(w, (gr_struct_kind)kind, size, func, what));
    size_t full = gr_def_full_size(kind);
    gr_def_defaults_full(kind, out);
    /* an older (shorter) def keeps the defaults of the newer fields; a newer (longer) one's
     * extra fields are unknown here and ignored */
    memcpy(out, user, size < full ? size : full);
    *(uint32_t *)out = (uint32_t)full;
    return GR_OK;
}
