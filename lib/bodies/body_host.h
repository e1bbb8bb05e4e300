/* SPDX-License-Identifier: MIT */
/* Host-owned bodies (body_host.c): the impulse handed back to the host's engine after a step. */
#ifndef GR_BODIES_BODY_HOST_H
#define GR_BODIES_BODY_HOST_H

#include "../core/vec3.h"
#include "body_store.h"

/// The impulse [N s] and angular impulse [N m s] (about the centre of mass) to hand a
/// host-owned body's engine after a step of dt: those that make a symplectic Euler engine
/// land the body where the library moved it (see body_host.c).
/// `fall`: the solver's free-fall factor of the step (gr_world.step_fall).
void gr_body_host_impulse(const gr_body_data *b, gr_vec3 gravity, double dt, double fall, gr_vec3 *impulse,
                          gr_vec3 *angular);

#endif /* GR_BODIES_BODY_HOST_H */
