/* SPDX-License-Identifier: MIT */
/* The functions of pbd_lists.c. */
#ifndef GR_PBD_PBD_LISTS_H
#define GR_PBD_PBD_LISTS_H

#include "pbd_internal.h"

/// The fixed particles' grid (rebuilt only when they moved), before the prediction: it uses
/// rank and pk_tmp as scratch. Nothing moves; all or nothing.
gr_status pbd_build_fixed_grid(pbd_state *st);
/// Pack the movable particles (x*, x, constants) in cell order and list their pairs, fixed
/// neighbours and the exact bodies. Expects the fixed grid built, and rank[k] = mov[k],
/// pk_tmp[k] = its x* and its staged record (the prediction writes them: pbd_stage). Nothing
/// moves; all or nothing.
gr_status pbd_build_lists(pbd_state *st);
/// What the prediction records of movable particle i (mov[k] = i) for the lists of a substep
/// whose squared wake speed is wake2 (pbd_build_lists).
static inline void pbd_stage(pbd_state *st, uint32_t k, uint32_t i, double wake2)
{
    const uint32_t o = st->owner[i];
    const bool asleep = pbd_asleep(st, i);
    uint32_t bits = 0;
    if (o != GR_INVALID_INDEX)
        bits |= PBD_HOT_BODY;
    if (asleep)
        bits |= PBD_HOT_ASLEEP;
    /* a grain must be ten times faster than a body to wake a sleeper: a settling pile's
     * rattle must not */
    if (!asleep && v3_len2(st->v[i]) > (o == GR_INVALID_INDEX ? 100.0 : 1.0) * wake2)
        bits |= PBD_HOT_WAKES;
    if (st->flag[i] & PBD_FLAG_FROZEN)
        bits |= PBD_HOT_FROZEN;
    const double inv_m = st->inv_m[i];
    st->stage_hot[k] = (pbd_hot){st->r[i], inv_m, inv_m,
                                 o == GR_INVALID_INDEX ? inv_m : inv_m / (double)st->bodies[o].count,
                                 st->mat[i], bits, o, st->touch[i]};
    st->stage_x[k] = st->x[i];
}
/// Write the packed x*, x and contact counts back to the particles.
void pbd_unpack(pbd_state *st);
/// After kinematic bodies advanced: their fixed particles' and exact records' new poses.
void pbd_fixed_advanced(pbd_state *st);
void pbd_free_lists(pbd_state *st);

#endif /* GR_PBD_PBD_LISTS_H */
