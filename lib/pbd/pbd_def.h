/* SPDX-License-Identifier: MIT */
/* The functions of pbd_def.c: gr_pbd_def for the solver table. */
#ifndef GR_PBD_PBD_DEF_H
#define GR_PBD_PBD_DEF_H

#include "pbd_internal.h"

extern const gr_def_layout pbd_def_layout;
void pbd_def_defaults(void *def);
bool pbd_def_validate(const void *def, gr_def_check *check);
void pbd_def_save(const void *def, struct gr_stream_writer *w);
bool pbd_def_load(void *def, struct gr_stream_reader *r);

#endif /* GR_PBD_PBD_DEF_H */
