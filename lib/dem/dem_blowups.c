/* SPDX-License-Identifier: MIT */
/* Blow-ups (core/blowup.h): the report of the grains a pass stopped, and the scrub of what they
 * left behind. Below the integrators that call them. */
#include <math.h>

#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_blowups.h"

void dem_note_blowups(dem_state *st, const uint32_t *block_bad, uint32_t nblocks)
{
    gr_step_report *rep = st->report;
    for (uint32_t b = 0; b < nblocks; b++) {
        if (!block_bad[2 * b + 1])
            continue;
        /* the first pass that found any tells (later passes see the same grains again) */
        if (!st->blowup_pass) {
            if (rep->blowup_slot == GR_INVALID_INDEX)
                rep->blowup_slot = block_bad[2 * b]; /* first in block order: deterministic */
            rep->blowups += block_bad[2 * b + 1];
        }
    }
}

static void zero_non_finite(gr_vec3 *a, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!v3_finite(a[k]))
            a[k] = v3(0, 0, 0);
}

void dem_scrub_blowup(dem_state *st)
{
    /* what the stopped grains' contacts left behind (forces of clump members and fixed
     * bodies' particles, contact histories, motion bounds) must not stay non-finite: the
     * state is saved and stepped on. Only after a blow-up: one pass over the arrays. */
    zero_non_finite(st->f, st->n);
    zero_non_finite(st->t, st->n);
    zero_non_finite(st->c_f, st->nc);
    zero_non_finite(st->c_t, st->nc);
    zero_non_finite(st->nb_hist, st->nb_count);
    zero_non_finite(st->bc_hist, st->bc_count);
    if (st->nb_roll)
        zero_non_finite(st->nb_roll, st->nb_count);
    if (st->bc_roll)
        zero_non_finite(st->bc_roll, st->bc_count);
    for (uint32_t k = 0; k < st->body_slots; k++)
        if (!isfinite(st->body_bound[k]) || !isfinite(st->body_reach[k])) {
            st->body_bound[k] = st->body_reach[k] = 0;
            st->need_rebuild = true; /* (the rebuild sets both again) */
        }
}
