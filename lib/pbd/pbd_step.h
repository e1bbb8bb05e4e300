/* SPDX-License-Identifier: MIT */
/* The functions of pbd_step.c. */
#ifndef GR_PBD_PBD_STEP_H
#define GR_PBD_PBD_STEP_H

#include "pbd_internal.h"

gr_status pbd_step(void *state, uint32_t n, double h, gr_step_report *report);
double pbd_stable_substep(void *state);

#endif /* GR_PBD_PBD_STEP_H */
