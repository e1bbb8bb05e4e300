/* SPDX-License-Identifier: MIT */
/* The functions of pbd_rigid.c. */
#ifndef GR_PBD_PBD_RIGID_H
#define GR_PBD_PBD_RIGID_H

#include "pbd_internal.h"

/// Free bodies' predicted poses, their particles placed there (xp).
void pbd_rigid_predict(pbd_state *st, double h);
/// One sweep over the free bodies' contacts (warm: apply the pairs' warm start first).
void pbd_rigid_sweep(pbd_state *st, double h, bool warm, bool reverse);
/// After the sweeps: body particles at the final pose, the bodies' contact impulses.
void pbd_rigid_end(pbd_state *st, double h);
/// After the substep: free bodies take the solve's pose and its velocity. Returns how many blew
/// up (non-finite or faster than GR_MAX_SPEED: those keep their last state, stopped).
uint32_t pbd_bodies_write_back(pbd_state *st, double h);

#endif /* GR_PBD_PBD_RIGID_H */
