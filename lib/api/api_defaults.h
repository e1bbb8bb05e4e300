/* SPDX-License-Identifier: MIT */
/* The functions of api_defaults.c: every def's defaults, and a caller's def read into a complete one. */
#ifndef GR_API_DEFAULTS_H
#define GR_API_DEFAULTS_H

#include "api_internal.h"

/// gr_struct_size_ok (api_def_layout.h) with its message (GR_ERROR_STRUCT_SIZE).
gr_status gr_check_struct_size(const gr_world *w, gr_struct_kind kind, uint32_t size, const char *func,
                               const char *what);

size_t gr_def_full_size(gr_def_kind kind);
void gr_def_defaults_full(gr_def_kind kind, void *def);
/// Copy a caller's def (any version) into a complete one with defaults for missing fields.
gr_status gr_def_read(const gr_world *w, gr_def_kind kind, const void *user, void *out, const char *func,
                      const char *what);

#endif /* GR_API_DEFAULTS_H */
