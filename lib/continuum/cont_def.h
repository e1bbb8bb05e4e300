/* SPDX-License-Identifier: MIT */
/* The continuum solver's def: what a host sets, with its defaults, checks and snapshot section.
 * The struct is public (gr_types.h, gr_continuum_def). */
#ifndef GR_CONTINUUM_CONT_DEF_H
#define GR_CONTINUUM_CONT_DEF_H

#include "../core/def_check.h"
#include "../core/solver.h"
#include "cont_internal.h"

void cont_def_defaults(void *def);
bool cont_def_validate(const void *def, gr_def_check *c);
void cont_def_save(const void *def, struct gr_stream_writer *w);
bool cont_def_load(void *def, struct gr_stream_reader *r);
extern const gr_def_layout cont_def_layout;
/// The solver's settings from a validated def.
cont_params cont_def_params(const gr_continuum_def *d);

#endif /* GR_CONTINUUM_CONT_DEF_H */
