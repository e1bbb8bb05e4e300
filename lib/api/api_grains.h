/* SPDX-License-Identifier: MIT */
/* The functions of api_grains.c that other files call: adding resolved grains, a def's system. */
#ifndef GR_API_GRAINS_H
#define GR_API_GRAINS_H

#include "../world/world.h"

/// Add resolved grains to a system (slots are assigned here): all or nothing, failures worded.
/// Handles go to out[0..out_cap).
gr_status gr_add_resolved_grains(gr_world *w, uint32_t system, gr_grain_init *g, uint32_t count, gr_grain *out,
                                 uint32_t out_cap, const char *func);
/// A grain def's system is one of the world's.
gr_status gr_check_system(const gr_world *w, uint32_t system, const char *func, const char *what);

#endif /* GR_API_GRAINS_H */
