/* SPDX-License-Identifier: MIT */
/* The functions of pbd_snapshot.c. */
#ifndef GR_PBD_PBD_SNAPSHOT_H
#define GR_PBD_PBD_SNAPSHOT_H

#include "pbd_internal.h"

gr_status pbd_save(const void *state, struct gr_stream_writer *w);
gr_status pbd_load(void *state, struct gr_stream_reader *r);

#endif /* GR_PBD_PBD_SNAPSHOT_H */
