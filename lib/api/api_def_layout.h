/* SPDX-License-Identifier: MIT */
/* The functions of api_def_layout.c: which size fields the sized structs accept. */
#ifndef GR_API_DEF_LAYOUT_H
#define GR_API_DEF_LAYOUT_H

#include "api_internal.h"

/// A size field this library accepts: within [4, GR_MAX_DEF_SIZE] and either at least the
/// whole struct or on a boundary between two of its fields.
bool gr_struct_size_ok(gr_struct_kind kind, uint32_t size);

#endif /* GR_API_DEF_LAYOUT_H */
