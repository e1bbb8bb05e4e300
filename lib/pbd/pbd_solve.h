/* SPDX-License-Identifier: MIT */
/* The functions of pbd_solve.c. */
#ifndef GR_PBD_PBD_SOLVE_H
#define GR_PBD_PBD_SOLVE_H

#include "pbd_internal.h"

/// Add the recorded body forces of this substep of h (times h) to body_imp. The records stay
/// until the particle is solved again (pbd_freeze clears them): a frozen grain presses on as
/// it did when it froze.
void pbd_collect_impulses(pbd_state *st, double h);
gr_status pbd_reserve_sensing(pbd_state *st);


/// A body received a force [N] with moment arm `lever` from its position, from
/// movable particle i (storage index) over this substep: recorded per particle (two bodies
/// each) and summed in particle order by pbd_collect_impulses (the same for any worker count).
static inline void pbd_sense(pbd_state *st, uint32_t i, uint32_t slot, gr_vec3 force, gr_vec3 lever)
{
    for (uint32_t k = 2 * i; k < 2 * i + 2; k++) {
        if (st->sense_slot[k] == GR_INVALID_INDEX)
            st->sense_slot[k] = slot;
        if (st->sense_slot[k] == slot) {
            const gr_vec3 f = v3_add(st->sense_force[k], force), t = v3_add(st->sense_torque[k], v3_cross(lever, force));
            if (v3_finite(f) && v3_finite(t)) { /* (a grain blowing up reports nothing) */
                st->sense_force[k] = f;
                st->sense_torque[k] = t;
            }
            return;
        }
    }
    /* a third body in one substep: too rare to keep room for; its share is not reported */
}

/// The slot of exact contact `key` in a particle's accumulators (a new one if it has none and
/// `open`); PBD_EXACT_SLOTS if none.
static inline uint32_t pbd_exact_slot(pbd_exact_acc *ea, uint32_t key, bool open)
{
    uint32_t free_slot = PBD_EXACT_SLOTS;
    for (uint32_t m = 0; m < PBD_EXACT_SLOTS; m++) {
        if (ea->key[m] == key)
            return m;
        if (ea->key[m] == UINT32_MAX && free_slot == PBD_EXACT_SLOTS)
            free_slot = m;
    }
    if (open && free_slot < PBD_EXACT_SLOTS) {
        ea->key[free_slot] = key;
        ea->an[free_slot] = 0;
        ea->at[free_slot] = v3(0, 0, 0);
        ea->nrm[free_slot] = v3(0, 0, 0);
    }
    return open ? free_slot : PBD_EXACT_SLOTS;
}

/// Room for the solve of this substep's lists (blocks, warm-start records). All or nothing.
gr_status pbd_solve_reserve(pbd_state *st);
/// Start of the solve after the lists: multipliers from the warm start, the colouring, and
/// the stabilisation at x.
void pbd_solve_begin(pbd_state *st, double h);
/// The solver iterations (after kinematic bodies advanced), then contact counts, wake flags,
/// the forces bodies sensed, and the warm start of the next substep.
void pbd_solve_iterate(pbd_state *st, double h);
void pbd_free_solve(pbd_state *st);

#endif /* GR_PBD_PBD_SOLVE_H */
