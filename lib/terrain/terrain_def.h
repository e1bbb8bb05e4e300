/* SPDX-License-Identifier: MIT */
/* The terrain's def (terrain_def.c): defaults, field layout, checks, snapshot section, presets,
 * and the parameters resolved from it. */
#ifndef GR_TERRAIN_TERRAIN_DEF_H
#define GR_TERRAIN_TERRAIN_DEF_H

#include "terrain_internal.h"

void terrain_def_defaults(void *def);
extern const gr_def_layout terrain_def_layout;
bool terrain_def_validate(const void *def, gr_def_check *check);
void terrain_def_save(const void *def, struct gr_stream_writer *w);
bool terrain_def_load(void *def, struct gr_stream_reader *r);
/// Set the material parameters of a preset (false: no such preset).
bool terrain_def_apply_preset(gr_terrain_def *d, uint32_t preset);
/// The parameters the step uses.
terrain_params terrain_def_params(const gr_terrain_def *d);

#endif /* GR_TERRAIN_TERRAIN_DEF_H */
