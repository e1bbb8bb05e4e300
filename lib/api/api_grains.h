/* SPDX-License-Identifier: MIT */
#ifndef GR_API_GRAINS_H
#define GR_API_GRAINS_H

#include "../world/world.h"

/// Add resolved grains (slots are assigned here): all or nothing. Handles go to out[0..out_cap).
gr_status gr_add_resolved_grains(gr_world *w, gr_grain_init *g, uint32_t count, gr_grain *out, uint32_t out_cap,
                                 const char *func);

#endif /* GR_API_GRAINS_H */
