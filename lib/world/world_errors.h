/* SPDX-License-Identifier: MIT */
/* The functions of world_errors.c: error messages, logging and handle resolution. */
#ifndef GR_WORLD_WORLD_ERRORS_H
#define GR_WORLD_WORLD_ERRORS_H

#include "world.h"

/// Record an error on the world (message + log hook) and return `status`. The message stays
/// until the next failure (gr_world_last_error).
gr_status gr_fail(const gr_world *world, gr_status status, const char *func, const char *fmt, ...)
    GR_PRINTF_LIKE(4, 5);
/// Log through the world's hook (no-op without one).
void gr_log(const gr_world *world, gr_log_level level, const char *fmt, ...) GR_PRINTF_LIKE(3, 4);

/// Resolve handles of this world (status + message on failure).
gr_status gr_resolve_grain(const gr_world *w, gr_grain g, uint32_t *slot, const char *func);
gr_status gr_resolve_body(const gr_world *w, gr_body b, uint32_t *slot, const char *func);
gr_status gr_resolve_material(const gr_world *w, gr_material m, uint32_t *index, const char *func);
/// Template index of a grain shape (GR_INVALID_INDEX for a sphere); checks the clump handle.
gr_status gr_resolve_grain_shape(const gr_world *w, gr_grain_shape shape, gr_clump clump, uint32_t *index,
                                 const char *func);
/// Material handle for an index.
gr_material gr_material_handle(const gr_world *w, uint32_t index);

#endif /* GR_WORLD_WORLD_ERRORS_H */
