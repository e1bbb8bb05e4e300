/* SPDX-License-Identifier: MIT */
/* Host-owned bodies: the impulse handed back to the engine at the end of a step.
 *
 * Within the step the library moved its copy of the body through the substeps (gravity and
 * the grains' contacts, resolved at the grains' time step). Game engines integrate their
 * bodies with symplectic Euler at the frame rate: v += J/m + g dt, then x += v dt. Handing
 * them the raw contact impulse makes the engine's body end the frame somewhere else than the
 * library's copy (the integrators differ); the next step then starts the copy from there and
 * the contact pushes it back: a resting crate jitters from frame to frame. So the impulse is
 * the one that makes that integrator land the body exactly where the library moved it:
 *   v_new = (x_end - x_start) / dt,   J = m (v_new - v_start) - m g dt,
 *   w_new = rotation(q_end q_start^-1) / dt,   L = I_world(q_start) (w_new - w_start).
 * On average this is the grains' impulse (at rest, J = -m g dt: the weight the sand carries);
 * gr_body_get_force still reports the contact force itself. One exception, a step without
 * contact: there the engine's own free fall (g dt^2 a frame) is kept, not the library's
 * integrator's (below). */
#include <math.h>

#include "../core/vec3.h"
#include "body_host.h"
#include "body_store.h"

/* World position of the centre of mass for a pose. */
static gr_vec3 com_at(const gr_body_data *b, gr_vec3 position, gr_quat orientation)
{
    return v3_add(position, quat_rotate(orientation, b->com));
}

void gr_body_host_impulse(const gr_body_data *b, gr_vec3 gravity, double dt, double fall, gr_vec3 *impulse,
                          gr_vec3 *angular)
{
    const gr_host_body_state *s = &b->host_state; /* the state at the start of the step */
    const gr_vec3 x0 = com_at(b, s->position, s->orientation), x1 = com_at(b, b->position, b->orientation);
    /* the start velocity of the centre of mass */
    const gr_vec3 v0 = v3_add(s->linear_velocity, v3_cross(s->angular_velocity, v3_sub(x0, s->position)));
    const gr_vec3 v_new = v3_scale(v3_sub(x1, x0), 1.0 / dt);
    *impulse = v3_scale(v3_sub(v3_sub(v_new, v0), v3_scale(gravity, dt)), b->mass);
    /* In free flight the library's integrator moved the body by g fall, the engine's moves it
     * by g dt^2: landing it where the library did would hand it an upward m g (dt^2 - fall) / dt
     * every frame in the air (a host body fell at g / 2 in the DEM, 3 g / 4 in the PBD at two
     * substeps). A step without contact (a sensed force below a millionth of the weight: the
     * PBD's velocities carry round-off) gets that back; in contact the landing stands (a share
     * by the sensed force fed the sand's frame-to-frame noise back: bodies rocked). */
    const double weight = b->mass * v3_len(gravity);
    if (weight > 0 && v3_len(b->force) < 1e-6 * weight)
        *impulse = v3_madd(*impulse, gravity, b->mass * (dt * dt - fall) / dt);
    /* the turn over the step as an angular velocity */
    gr_quat d = quat_mul(b->orientation, quat_conj(s->orientation));
    if (d.w < 0)
        d = (gr_quat){-d.x, -d.y, -d.z, -d.w};
    const gr_vec3 axis = {d.x, d.y, d.z};
    const double sin_half = v3_len(axis);
    gr_vec3 w_new = {0, 0, 0};
    if (sin_half > 0)
        w_new = v3_scale(axis, 2.0 * atan2(sin_half, d.w) / (sin_half * dt));
    /* L = R I R^T dw in the principal frame at the start pose: the engine applies it there
     * (w += I_world^-1 L before it turns the body); with the end pose's inertia a turning
     * body's engine landed off the library's orientation by |dw| dt every frame */
    const gr_quat qp = quat_mul(s->orientation, b->principal);
    const gr_vec3 dw = quat_rotate_inv(qp, v3_sub(w_new, s->angular_velocity));
    *angular = quat_rotate(qp, v3(dw.x * b->inertia.x, dw.y * b->inertia.y, dw.z * b->inertia.z));
}
