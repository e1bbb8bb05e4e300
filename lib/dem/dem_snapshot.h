/* SPDX-License-Identifier: MIT */
/* The functions of dem_snapshot.c. */
#ifndef GR_DEM_DEM_SNAPSHOT_H
#define GR_DEM_DEM_SNAPSHOT_H

#include "dem_internal.h"

gr_status dem_save(const void *state, struct gr_stream_writer *w);
gr_status dem_load(void *state, struct gr_stream_reader *r);

#endif /* GR_DEM_DEM_SNAPSHOT_H */
