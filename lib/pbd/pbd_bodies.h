/* SPDX-License-Identifier: MIT */
/* The functions of pbd_bodies.c. */
#ifndef GR_PBD_PBD_BODIES_H
#define GR_PBD_PBD_BODIES_H

#include "pbd_internal.h"

gr_status pbd_body_added(void *state, uint32_t slot);
/// Room for `need` body records. All or nothing.
gr_status pbd_reserve_records(pbd_state *st, uint32_t need);
void pbd_body_removed(void *state, uint32_t slot);
void pbd_body_moved(void *state, uint32_t slot);
void pbd_free_bodies(pbd_state *st);
/// Place a body's particles from its pose (into `dst`).
void pbd_place_body(pbd_state *st, const pbd_body *b, gr_vec3 *dst);
/// Host-owned bodies restart from the host's state; static bodies that were teleported.
void pbd_bodies_sync_in(pbd_state *st);
gr_status pbd_reserve_impulses(pbd_state *st);

#endif /* GR_PBD_PBD_BODIES_H */
