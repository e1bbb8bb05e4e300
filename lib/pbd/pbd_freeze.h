/* SPDX-License-Identifier: MIT */
/* The functions of pbd_freeze.c. */
#ifndef GR_PBD_PBD_FREEZE_H
#define GR_PBD_PBD_FREEZE_H

#include "pbd_internal.h"

/// At a substep's start: which sleeping grains are frozen for it (PBD_FLAG_FROZEN; every
/// other movable particle's flag is cleared). Nothing moves; without memory nothing freezes.
void pbd_freeze(pbd_state *st);
void pbd_free_freeze(pbd_state *st);

#endif /* GR_PBD_PBD_FREEZE_H */
