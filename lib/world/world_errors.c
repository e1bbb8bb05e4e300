/* SPDX-License-Identifier: MIT */
/* Error messages, logging and handle resolution with a clear message. */
#include <stdarg.h>
#include <stdio.h>

#include "world.h"
#include "world_errors.h"

gr_status gr_fail(const gr_world *cw, gr_status status, const char *func, const char *fmt, ...)
{
    gr_world *w = (gr_world *)cw; /* the error slot is the one mutable part of a const world */
    if (!w)
        return status;
    int off = snprintf(w->last_error, sizeof w->last_error, "%s: ", func);
    if (off < 0)
        off = 0;
    if ((size_t)off < sizeof w->last_error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->last_error + off, sizeof w->last_error - (size_t)off, fmt, ap);
        va_end(ap);
    }
    if (w->def.logger.func)
        w->def.logger.func(GR_LOG_ERROR, w->last_error, w->def.logger.user);
    return status;
}

void gr_log(const gr_world *w, gr_log_level level, const char *fmt, ...)
{
    if (!w || !w->def.logger.func)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    w->def.logger.func(level, buf, w->def.logger.user);
}

static gr_status handle_error(const gr_world *w, gr_status s, const char *func, const char *what, uint64_t id)
{
    switch (s) {
    case GR_ERROR_WRONG_WORLD:
        return gr_fail(w, s, func, "%s handle 0x%016llx belongs to another world", what, (unsigned long long)id);
    case GR_ERROR_STALE_HANDLE:
        return gr_fail(w, s, func, "%s handle 0x%016llx is stale (the %s was removed)", what,
                       (unsigned long long)id, what);
    default:
        return gr_fail(w, s, func, "%s handle 0x%016llx is null or was never issued", what, (unsigned long long)id);
    }
}

gr_status gr_resolve_grain(const gr_world *w, gr_grain g, uint32_t *slot, const char *func)
{
    gr_status s = gr_handle_check(g.id, w->tag, w->grains.gen, w->grains.alive, w->grains.slot_count, slot);
    return s == GR_OK ? GR_OK : handle_error(w, s, func, "grain", g.id);
}

gr_status gr_resolve_body(const gr_world *w, gr_body b, uint32_t *slot, const char *func)
{
    gr_status s = gr_handle_check(b.id, w->tag, w->bodies.gen, w->bodies.alive, w->bodies.slot_count, slot);
    return s == GR_OK ? GR_OK : handle_error(w, s, func, "body", b.id);
}

gr_material gr_material_handle(const gr_world *w, uint32_t index)
{
    gr_material m = {gr_handle_make(w->tag, 1, index)};
    return m;
}

gr_status gr_resolve_material(const gr_world *w, gr_material m, uint32_t *index, const char *func)
{
    if (m.id == 0) {
        *index = w->default_material;
        return GR_OK;
    }
    gr_status s = gr_handle_check_permanent(m.id, w->tag, 0, w->materials.count, index);
    return s == GR_OK ? GR_OK : handle_error(w, s, func, "material", m.id);
}

gr_status gr_resolve_grain_shape(const gr_world *w, gr_grain_shape shape, gr_clump clump, uint32_t *index,
                                 const char *func)
{
    switch (shape) {
    case GR_GRAIN_DEFAULT:
    case GR_GRAIN_SPHERE: *index = GR_INVALID_INDEX; return GR_OK;
    case GR_GRAIN_TETRAHEDRON: *index = GR_CLUMP_TETRAHEDRON; return GR_OK;
    case GR_GRAIN_CUBE: *index = GR_CLUMP_CUBE; return GR_OK;
    case GR_GRAIN_PAIR: *index = GR_CLUMP_PAIR; return GR_OK;
    case GR_GRAIN_CLUMP: break;
    default: return gr_fail(w, GR_ERROR_UNKNOWN_ENUM, func, "shape = %u is not a known grain shape", (unsigned)shape);
    }
    if (clump.id == 0)
        return gr_fail(w, GR_ERROR_INVALID_HANDLE, func, "shape GR_GRAIN_CLUMP needs a clump template handle");
    gr_status s = gr_handle_check_permanent(clump.id, w->tag, GR_CLUMP_BUILTIN_COUNT, w->clumps.count, index);
    return s == GR_OK ? GR_OK : handle_error(w, s, func, "clump", clump.id);
}
