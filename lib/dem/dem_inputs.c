/* SPDX-License-Identifier: MIT */
/* What the current forces and neighbour lists were computed for: gravity, the materials'
 * revision and every body's pose and velocity at the end of the last step. A host that calls
 * a setter with the value the world already has (gr_world_set_gravity, gr_body_set_pose every
 * frame) then changes nothing: no rebuild and no force re-evaluation, so the trajectory is bit
 * for bit the one without the call. */
#include <string.h>

#include "../core/vec3.h"
#include "dem_internal.h"
#include "dem_inputs.h"

static dem_body_seen body_seen_now(const gr_body_store *bodies, uint32_t bs)
{
    const gr_body_data *b = &bodies->data[bs];
    dem_body_seen s;
    memset(&s, 0, sizeof s); /* compared with memcmp: no padding left undefined */
    s.gen = (uint32_t)bodies->gen[bs];
    s.motion = (uint32_t)b->motion;
    s.x = b->position;
    s.q = b->orientation;
    s.v = b->linear_velocity;
    s.w = b->angular_velocity;
    return s;
}

void dem_record_inputs(dem_state *st)
{
    const gr_solver_env *env = &st->env;
    const gr_body_store *bodies = env->bodies;
    st->gravity_seen = (*env->gravity);
    st->materials_seen = env->materials->revision;
    st->bodies_seen = 0;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs >= st->body_slots)
            return; /* not covered by the lists yet: bodies_seen stays short, so nothing matches */
        st->body_seen[bs] = body_seen_now(bodies, bs);
    }
    st->bodies_seen = bodies->count;
}

/* Bitwise: -0 and 0 differ, and so does anything the API normalised differently. */
static bool inputs_as_recorded(const dem_state *st)
{
    const gr_solver_env *env = &st->env;
    const gr_body_store *bodies = env->bodies;
    if (memcmp(&st->gravity_seen, env->gravity, sizeof(gr_vec3)) != 0 ||
        st->materials_seen != env->materials->revision || st->bodies_seen != bodies->count)
        return false;
    for (uint32_t a = 0; a < bodies->count; a++) {
        const uint32_t bs = bodies->active[a];
        if (bs >= st->body_slots)
            return false;
        /* the API normalises a given orientation: the recorded one, normalised again, is
         * the same pose too */
        dem_body_seen was = st->body_seen[bs];
        const dem_body_seen now = body_seen_now(bodies, bs);
        if (memcmp(&now, &was, sizeof now) != 0) {
            was.q = quat_normalize(was.q);
            if (memcmp(&now, &was, sizeof now) != 0)
                return false;
        }
    }
    return true;
}

void dem_check_inputs(dem_state *st)
{
    if (!st->inputs_maybe_changed)
        return;
    st->inputs_maybe_changed = false;
    if (inputs_as_recorded(st)) {
        /* bodies set to the poses they had: their revision moved, the contacts did not */
        if (!st->need_rebuild)
            st->bodies_revision = st->env.bodies->revision;
        return;
    }
    st->need_rebuild = true;
    st->forces_stale = true;
}
