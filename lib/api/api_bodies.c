/* SPDX-License-Identifier: MIT */
/* Body entry points (the shared body layer; every solver sees the same bodies). */
#include "api_internal.h"

static gr_status resolve_body_def(const gr_world *w, const gr_body_def *d, gr_body_data *b, const char *f)
{
    memset(b, 0, sizeof *b);
    GR_CHECK(gr_check_enum(w, (uint32_t)d->shape, 8, f, "def.shape"));
    GR_CHECK(gr_check_enum(w, (uint32_t)d->motion, 5, f, "def.motion"));
    if (d->shape == GR_SHAPE_NONE)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.shape is GR_SHAPE_NONE: name the body's shape");
    if (d->shape == GR_SHAPE_MESH || d->shape == GR_SHAPE_SDF)
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "mesh and SDF bodies are not built yet");
    if (d->motion == GR_MOTION_DYNAMIC || d->motion == GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "dynamic and host-owned bodies are not built yet");
    if (d->open_faces & ~0x3fu)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.open_faces has bits beyond the 6 faces (0x%x)", d->open_faces);
    if (d->open_faces == 0x3fu && d->shape == GR_SHAPE_CONTAINER)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.open_faces opens all 6 faces: the container has no wall");
    GR_CHECK(gr_resolve_material(w, d->material, &b->material, f));
    GR_CHECK(gr_check_vec(w, d->position, f, "def.position"));
    GR_CHECK(gr_check_quat(w, d->orientation, &b->orientation, f, "def.orientation"));
    GR_CHECK(gr_check_vec(w, d->linear_velocity, f, "def.linear_velocity"));
    GR_CHECK(gr_check_vec(w, d->angular_velocity, f, "def.angular_velocity"));
    gr_motion_type motion = d->motion == GR_MOTION_DEFAULT ? GR_MOTION_STATIC : d->motion;
    if (motion == GR_MOTION_STATIC && (v3_len2(d->linear_velocity) > 0 || v3_len2(d->angular_velocity) > 0))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "a static body cannot have a velocity (use GR_MOTION_KINEMATIC)");
    switch (d->shape) {
    case GR_SHAPE_PLANE: {
        GR_CHECK(gr_check_vec(w, d->normal, f, "def.normal"));
        double len = v3_len(d->normal);
        if (!(len > 1e-12))
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.normal has zero length");
        b->normal_local = v3_scale(d->normal, 1.0 / len);
        break;
    }
    case GR_SHAPE_SPHERE:
        GR_CHECK(gr_check_positive(w, d->radius, false, f, "def.radius"));
        break;
    case GR_SHAPE_CAPSULE:
        GR_CHECK(gr_check_positive(w, d->radius, false, f, "def.radius"));
        GR_CHECK(gr_check_positive(w, d->half_height, true, f, "def.half_height"));
        break;
    default: /* box, container */
        GR_CHECK(gr_check_positive(w, d->half_extents.x, false, f, "def.half_extents.x"));
        GR_CHECK(gr_check_positive(w, d->half_extents.y, false, f, "def.half_extents.y"));
        GR_CHECK(gr_check_positive(w, d->half_extents.z, false, f, "def.half_extents.z"));
        break;
    }
    b->shape = d->shape;
    b->motion = motion;
    b->open_faces = d->open_faces;
    b->position = d->position;
    b->linear_velocity = d->linear_velocity;
    b->angular_velocity = d->angular_velocity;
    b->radius = d->radius;
    b->half_height = d->half_height;
    b->half_extents = d->half_extents;
    b->user_data = d->user_data;
    return GR_OK;
}

GR_API gr_status gr_add_body(gr_world *w, const gr_body_def *user, gr_body *out)
{
    static const char f[] = "gr_add_body";
    GR_CHECK(gr_check_world(w, f));
    gr_body_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_BODY, user, &def, f, "def"));
    gr_body_data b;
    GR_CHECK(resolve_body_def(w, &def, &b, f));
    if (w->bodies.count >= GR_MAX_BODIES)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u bodies", GR_MAX_BODIES);
    if (!gr_body_store_reserve(&w->bodies, &w->mem))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the body failed");
    uint32_t slot = gr_body_store_insert(&w->bodies, &b);
    w->solver->invalidate(w->solver_state);
    if (out)
        out->id = gr_handle_make(w->tag, w->bodies.gen[slot], slot);
    return GR_OK;
}

GR_API gr_status gr_remove_body(gr_world *w, gr_body body)
{
    static const char f[] = "gr_remove_body";
    GR_CHECK(gr_check_world(w, f));
    uint32_t slot;
    GR_CHECK(gr_resolve_body(w, body, &slot, f));
    gr_body_store_remove(&w->bodies, slot);
    w->solver->invalidate(w->solver_state);
    return GR_OK;
}

GR_API int gr_body_is_valid(const gr_world *w, gr_body body)
{
    if (!w)
        return 0;
    uint32_t slot;
    return gr_handle_check(body.id, w->tag, w->bodies.gen, w->bodies.alive, w->bodies.slot_count, &slot) == GR_OK;
}

static gr_status body_slot(const gr_world *w, gr_body body, uint32_t *slot, const char *f)
{
    GR_CHECK(gr_check_world(w, f));
    return gr_resolve_body(w, body, slot, f);
}

GR_API gr_status gr_body_set_velocity(gr_world *w, gr_body body, gr_vec3 linear, gr_vec3 angular)
{
    static const char f[] = "gr_body_set_velocity";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    GR_CHECK(gr_check_vec(w, linear, f, "linear"));
    GR_CHECK(gr_check_vec(w, angular, f, "angular"));
    gr_body_data *b = &w->bodies.data[slot];
    if (b->motion != GR_MOTION_KINEMATIC)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "only kinematic bodies take a velocity");
    b->linear_velocity = linear;
    b->angular_velocity = angular;
    return GR_OK;
}

GR_API gr_status gr_body_get_velocity(const gr_world *w, gr_body body, gr_vec3 *linear, gr_vec3 *angular)
{
    static const char f[] = "gr_body_get_velocity";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    if (!linear && !angular)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "both outputs are NULL");
    const gr_body_data *b = &w->bodies.data[slot];
    if (linear)
        *linear = b->linear_velocity;
    if (angular)
        *angular = b->angular_velocity;
    return GR_OK;
}

GR_API gr_status gr_body_set_pose(gr_world *w, gr_body body, gr_vec3 position, gr_quat orientation)
{
    static const char f[] = "gr_body_set_pose";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    GR_CHECK(gr_check_vec(w, position, f, "position"));
    gr_quat q;
    GR_CHECK(gr_check_quat(w, orientation, &q, f, "orientation"));
    gr_body_data *b = &w->bodies.data[slot];
    b->position = position;
    b->orientation = q;
    gr_body_update_frame(b);
    w->bodies.revision++; /* a jump: contact candidates must be found anew */
    w->solver->invalidate(w->solver_state);
    return GR_OK;
}

GR_API gr_status gr_body_get_pose(const gr_world *w, gr_body body, gr_vec3 *position, gr_quat *orientation)
{
    static const char f[] = "gr_body_get_pose";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    if (!position && !orientation)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "both outputs are NULL");
    const gr_body_data *b = &w->bodies.data[slot];
    if (position)
        *position = b->position;
    if (orientation)
        *orientation = b->orientation;
    return GR_OK;
}

GR_API gr_status gr_body_get_force(const gr_world *w, gr_body body, gr_vec3 *force, gr_vec3 *torque)
{
    static const char f[] = "gr_body_get_force";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    if (!force && !torque)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "both outputs are NULL");
    const gr_body_data *b = &w->bodies.data[slot];
    if (force)
        *force = b->force;
    if (torque)
        *torque = b->torque;
    return GR_OK;
}

GR_API void *gr_body_get_user_data(const gr_world *w, gr_body body)
{
    uint32_t slot;
    if (!w || gr_handle_check(body.id, w->tag, w->bodies.gen, w->bodies.alive, w->bodies.slot_count, &slot) != GR_OK)
        return NULL;
    return w->bodies.data[slot].user_data;
}
