/* SPDX-License-Identifier: MIT */
/* The functions of dem_def.c: gr_dem_def for the solver table. */
#ifndef GR_DEM_DEM_DEF_H
#define GR_DEM_DEM_DEF_H

#include "dem_internal.h"

extern const gr_def_layout dem_def_layout;
void dem_def_defaults(void *def);
bool dem_def_validate(const void *def, gr_def_check *check);
void dem_def_save(const void *def, struct gr_stream_writer *w);
bool dem_def_load(void *def, struct gr_stream_reader *r);

#endif /* GR_DEM_DEM_DEF_H */
