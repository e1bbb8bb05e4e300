/* SPDX-License-Identifier: MIT */
/* The functions of world_step.c: the step as the world drives it. */
#ifndef GR_WORLD_WORLD_STEP_H
#define GR_WORLD_WORLD_STEP_H

#include "world.h"

/// The longest substep: gr_world_def.substep, or the shortest of the systems' stable substeps
/// (may be infinite when nothing constrains it).
double gr_world_max_substep(const gr_world *w);
/// Advance by dt > 0 (checked by the caller): docs/architecture.md, "The step". Failures are
/// worded on the world in the name of `func`.
gr_status gr_world_step(gr_world *w, double dt, const char *func);

#endif /* GR_WORLD_WORLD_STEP_H */
