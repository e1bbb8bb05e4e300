/* SPDX-License-Identifier: MIT */
/* The functions of pbd_store.c: the storage primitives (the bottom of the solver's files). */
#ifndef GR_PBD_PBD_STORE_H
#define GR_PBD_PBD_STORE_H

#include "pbd_internal.h"

gr_status pbd_reserve_particles(pbd_state *st, uint32_t need);
void pbd_free_particles(pbd_state *st);
/// The movable list (and pos_of cleared for every particle) after particles came or went.
void pbd_refresh_movable(pbd_state *st);
void pbd_compact(pbd_state *st);
gr_status pbd_update_materials(pbd_state *st);
/// Room for `pairs` warm-start records (the current ones kept). All or nothing.
gr_status pbd_reserve_warm_start(pbd_state *st, uint32_t pairs);
/// Storage indices were renumbered (old i -> map[i], GR_INVALID_INDEX: gone; n_old of them):
/// the warm-start records follow.
void pbd_warm_start_renumber(pbd_state *st, const uint32_t *map, uint32_t n_old);
static inline const double *pbd_mu(const pbd_state *st, uint32_t a, uint32_t b)
{
    return st->mu + 2 * ((size_t)a * st->pair_dim + b);
}

#endif /* GR_PBD_PBD_STORE_H */
