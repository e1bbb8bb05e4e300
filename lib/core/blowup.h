/* SPDX-License-Identifier: MIT */
/* What a blow-up is (gr_base.h, GR_MAX_SPEED): a test cheap enough for every integration pass. */
#ifndef GR_BLOWUP_H
#define GR_BLOWUP_H

#include <stdbool.h>

#include "vec3.h"
#include <granular/gr_base.h>

/* Velocity v, angular velocity w of a grain of radius r: non-finite or too fast? (written so
 * that NaN anywhere counts as a blow-up) */
static inline bool gr_blown_up(gr_vec3 v, gr_vec3 w, double r)
{
    const double max2 = GR_MAX_SPEED * GR_MAX_SPEED;
    return !(v3_len2(v) <= max2 && v3_len2(w) * (r * r) <= max2);
}

#endif
