/* SPDX-License-Identifier: MIT */
/* Body entry points (the shared body layer; every solver sees the same bodies). */
#include <stdio.h>

#include "../bodies/body_cover.h"
#include "../bodies/body_mass.h"
#include "../bodies/body_shapes.h"
#include "../bodies/body_store.h"
#include "../world/world_errors.h"
#include "../world/world_systems.h"
#include "api_internal.h"
#include "api_bodies.h"
#include "api_defaults.h"

static gr_status check_mesh_def(const gr_world *w, const gr_body_def *d, const char *f)
{
    return gr_check_mesh_arrays(w, d->mesh_vertices, d->mesh_vertex_count, d->mesh_indices, d->mesh_triangle_count, f,
                                "def.mesh_vertices", "def.mesh_indices");
}

/* A body's length: finite, > 0 (or >= 0) and at most GR_MAX_BODY_SIZE. */
static gr_status check_size(const gr_world *w, double v, bool allow_zero, const char *f, const char *what)
{
    GR_CHECK(gr_check_positive(w, v, allow_zero, f, what));
    if (v > GR_MAX_BODY_SIZE)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "%s = %g m is beyond GR_MAX_BODY_SIZE (%g m)", what, v,
                       GR_MAX_BODY_SIZE);
    return GR_OK;
}

static gr_status check_particle_params(const gr_world *w, const gr_body_def *d, const char *f)
{
    if (!isfinite(d->particle_radius) || d->particle_radius < 0)
        return gr_fail(w, d->particle_radius < 0 ? GR_ERROR_INVALID_ARGUMENT : GR_ERROR_NOT_FINITE, f,
                       "def.particle_radius is %g: give a radius > 0, or 0 for the default", d->particle_radius);
    GR_CHECK(check_size(w, d->particle_radius, true, f, "def.particle_radius"));
    GR_CHECK(gr_check_positive(w, d->particle_density, false, f, "def.particle_density"));
    if (!isfinite(d->particle_offset))
        return gr_fail(w, GR_ERROR_NOT_FINITE, f, "def.particle_offset is not finite");
    GR_CHECK(check_size(w, fabs(d->particle_offset), true, f, "|def.particle_offset|"));
    return GR_OK;
}

/* Mass and inertia as a caller gives them (the bounds are checked on the values the body ends
 * up with, given or derived: gr_body_set_mass). */
static gr_status check_mass_given(const gr_world *w, gr_motion_type motion, double mass, gr_vec3 inertia,
                                  gr_quat rotation, gr_body_mass_given *out, const char *f, const char *prefix)
{
    char what[48];
    snprintf(what, sizeof what, "%smass", prefix);
    GR_CHECK(gr_check_positive(w, mass, true, f, what));
    snprintf(what, sizeof what, "%sinertia", prefix);
    GR_CHECK(gr_check_vec(w, inertia, f, what));
    const bool has_inertia = inertia.x != 0 || inertia.y != 0 || inertia.z != 0;
    if (has_inertia && !(inertia.x > 0 && inertia.y > 0 && inertia.z > 0))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "%s = (%g, %g, %g) is not positive definite: give three moments > 0, or (0, 0, 0) for the "
                       "shape's", what, inertia.x, inertia.y, inertia.z);
    if ((mass > 0 || has_inertia) && motion != GR_MOTION_DYNAMIC && motion != GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "%smass and %sinertia are for dynamic and host-owned bodies (this one does not move by "
                       "forces): leave them 0", prefix, prefix);
    out->mass = mass;
    out->inertia = inertia;
    out->rotation = quat_identity();
    if (has_inertia) {
        snprintf(what, sizeof what, "%sinertia_rotation", prefix);
        GR_CHECK(gr_check_quat(w, rotation, &out->rotation, f, what));
    }
    return GR_OK;
}

static gr_status resolve_body_def(const gr_world *w, const gr_body_def *d, gr_body_data *b, gr_body_mass_given *mass,
                                  const char *f)
{
    memset(b, 0, sizeof *b);
    GR_CHECK(gr_check_enum(w, (uint32_t)d->shape, 9, f, "def.shape"));
    GR_CHECK(gr_check_enum(w, (uint32_t)d->motion, 5, f, "def.motion"));
    if (d->shape == GR_SHAPE_NONE)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.shape is GR_SHAPE_NONE: name the body's shape");
    if (d->shape == GR_SHAPE_SDF)
        return gr_fail(w, GR_ERROR_UNSUPPORTED, f, "SDF bodies are not built yet (use GR_SHAPE_MESH)");
    if (d->shape == GR_SHAPE_HEIGHTFIELD)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "a heightfield body is a terrain's surface: add a terrain (gr_world_add_system with "
                       "GR_SOLVER_TERRAIN), not a body");
    if ((d->motion == GR_MOTION_DYNAMIC || d->motion == GR_MOTION_HOST) &&
        (d->shape == GR_SHAPE_PLANE || d->shape == GR_SHAPE_CONTAINER))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "a plane or container cannot be dynamic or host-owned (it has no finite mass)");
    if (d->motion == GR_MOTION_HOST && !w->def.host.get_state)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "a host-owned body needs the world's host hooks (gr_world_def.host)");
    if (d->open_faces & ~0x3fu)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.open_faces has bits beyond the 6 faces (0x%x)", d->open_faces);
    if (d->open_faces == 0x3fu && d->shape == GR_SHAPE_CONTAINER)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "def.open_faces opens all 6 faces: the container has no wall");
    GR_CHECK(gr_resolve_material(w, d->material, &b->material, f));
    GR_CHECK(check_particle_params(w, d, f));
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
        GR_CHECK(check_size(w, d->radius, false, f, "def.radius"));
        break;
    case GR_SHAPE_CAPSULE:
        GR_CHECK(check_size(w, d->radius, false, f, "def.radius"));
        GR_CHECK(check_size(w, d->half_height, true, f, "def.half_height"));
        break;
    case GR_SHAPE_MESH:
        GR_CHECK(check_mesh_def(w, d, f));
        for (uint32_t k = 0; k < d->mesh_vertex_count; k++)
            if (v3_len(d->mesh_vertices[k]) > GR_MAX_BODY_SIZE)
                return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                               "def.mesh_vertices[%u] lies %g m from the body's origin, beyond GR_MAX_BODY_SIZE (%g m)",
                               k, v3_len(d->mesh_vertices[k]), GR_MAX_BODY_SIZE);
        break;
    default: /* box, container */
        GR_CHECK(check_size(w, d->half_extents.x, false, f, "def.half_extents.x"));
        GR_CHECK(check_size(w, d->half_extents.y, false, f, "def.half_extents.y"));
        GR_CHECK(check_size(w, d->half_extents.z, false, f, "def.half_extents.z"));
        break;
    }
    GR_CHECK(check_mass_given(w, motion, d->mass, d->inertia, d->inertia_rotation, mass, f, "def."));
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
    b->particle_radius = d->particle_radius;
    b->particle_density = d->particle_density;
    b->particle_offset = d->particle_offset;
    b->mesh_vertex_count = d->shape == GR_SHAPE_MESH ? d->mesh_vertex_count : 0;
    b->mesh_triangle_count = d->shape == GR_SHAPE_MESH ? d->mesh_triangle_count : 0;
    return GR_OK;
}

gr_status gr_body_insert_told(gr_world *w, gr_body_data *b, uint32_t *out_slot, uint32_t *failed)
{
    const uint32_t slot_count = w->bodies.slot_count;
    uint32_t slot = gr_body_store_insert(&w->bodies, b);
    const uint16_t gen = w->bodies.gen[slot];
    gr_status s = GR_OK;
    uint32_t told = 0; /* systems told, all or nothing */
    for (; s == GR_OK && told < w->system_count; told++) {
        const gr_system *sys = &w->systems[told];
        s = sys->solver->body_added ? sys->solver->body_added(sys->state, slot) : GR_OK;
    }
    if (s != GR_OK) {
        for (uint32_t i = 0; i + 1 < told; i++)
            if (w->systems[i].solver->body_removed)
                w->systems[i].solver->body_removed(w->systems[i].state, slot);
        gr_body_store_remove(&w->bodies, &w->mem, slot);
        /* as it was: nothing happened (the slot's generation and the high-water mark too) */
        w->bodies.gen[slot] = slot < slot_count ? gen : 0;
        w->bodies.slot_count = slot_count;
        gr_body_store_rebuild_active(&w->bodies);
        w->bodies.revision -= 2;
        *failed = told - 1;
        return s;
    }
    *out_slot = slot;
    return GR_OK;
}

GR_API gr_status gr_add_body(gr_world *w, const gr_body_def *user, gr_body *out)
{
    static const char f[] = "gr_add_body";
    GR_CHECK(gr_check_world(w, f));
    gr_body_def def;
    GR_CHECK(gr_def_read(w, GR_DEF_BODY, user, &def, f, "def"));
    gr_body_data b;
    gr_body_mass_given mass;
    GR_CHECK(resolve_body_def(w, &def, &b, &mass, f));
    if (w->bodies.count + w->bodies.retired >= GR_MAX_BODIES)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a world holds at most %u bodies (%u slots are retired)", GR_MAX_BODIES,
                       w->bodies.retired);
    if (!gr_body_store_reserve(&w->bodies, &w->mem))
        return gr_fail(w, GR_ERROR_OUT_OF_MEMORY, f, "allocating the body failed");
    /* mesh copy, mass properties and the surface particles, before the store changes */
    char err[160];
    const uint64_t seed = w->def.seed ^ ((uint64_t)w->bodies.revision + 1) * 0x9e3779b97f4a7c15ull;
    gr_status s = gr_body_prepare(&b, &w->mem, w->materials.defs[b.material].density, &mass, def.mesh_vertices,
                                  def.mesh_indices, seed, gr_world_body_particles(w), err, sizeof err);
    if (s == GR_ERROR_OUT_OF_MEMORY)
        return gr_fail(w, s, f, "allocating the body's mesh or particles failed");
    if (s != GR_OK)
        return gr_fail(w, s, f, "%s", err);
    uint32_t slot, told;
    s = gr_body_insert_told(w, &b, &slot, &told);
    if (s != GR_OK) {
        if (s == GR_ERROR_TOO_MANY)
            return gr_fail(w, s, f, "the body's %u particles would pass GR_MAX_GRAINS spheres in the solver",
                           b.particle_count);
        if (s == GR_ERROR_UNSUPPORTED)
            return gr_fail(w, s, f, "the %s solver does not take bodies of this motion type yet",
                           w->systems[told].solver->name);
        return gr_fail(w, s, f, "allocating the body's particles in the solver failed");
    }
    gr_world_invalidate(w);
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
    if (w->bodies.data[slot].shape == GR_SHAPE_HEIGHTFIELD)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "the body is a terrain's surface: it goes with its terrain");
    for (uint32_t i = 0; i < w->system_count; i++)
        if (w->systems[i].solver->body_removed)
            w->systems[i].solver->body_removed(w->systems[i].state, slot);
    gr_body_store_remove(&w->bodies, &w->mem, slot);
    gr_world_invalidate(w);
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

/* The host moved a body (teleport): each system's copies follow. A solver of particle bodies
 * hears of particle-covered ones only. */
static void body_moved(gr_world *w, uint32_t slot)
{
    const bool particles = w->bodies.data[slot].particles != NULL;
    for (uint32_t i = 0; i < w->system_count; i++) {
        const gr_system *sys = &w->systems[i];
        if ((particles || !sys->solver->body_particles) && sys->solver->body_moved)
            sys->solver->body_moved(sys->state, slot);
    }
}

GR_API gr_status gr_body_set_velocity(gr_world *w, gr_body body, gr_vec3 linear, gr_vec3 angular)
{
    static const char f[] = "gr_body_set_velocity";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    GR_CHECK(gr_check_vec(w, linear, f, "linear"));
    GR_CHECK(gr_check_vec(w, angular, f, "angular"));
    gr_body_data *b = &w->bodies.data[slot];
    if (b->motion != GR_MOTION_KINEMATIC && b->motion != GR_MOTION_DYNAMIC)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       b->motion == GR_MOTION_HOST ? "a host-owned body's velocity comes from the host hooks"
                                                   : "a static body cannot move (use GR_MOTION_KINEMATIC)");
    b->linear_velocity = linear;
    b->angular_velocity = angular;
    body_moved(w, slot);
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
    if (b->motion == GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "a host-owned body's pose comes from the host hooks");
    if (b->shape == GR_SHAPE_HEIGHTFIELD)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "a terrain's surface stays where its terrain put it");
    b->position = position;
    b->orientation = q;
    gr_body_update_frame(b);
    body_moved(w, slot);
    w->bodies.revision++; /* a jump: contact candidates must be found anew */
    gr_world_invalidate(w);
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

GR_API gr_status gr_body_set_user_data(gr_world *w, gr_body body, void *user_data)
{
    static const char f[] = "gr_body_set_user_data";
    GR_CHECK(gr_check_world(w, f));
    uint32_t slot;
    GR_CHECK(gr_resolve_body(w, body, &slot, f));
    w->bodies.data[slot].user_data = user_data;
    return GR_OK;
}

GR_API uint32_t gr_world_get_bodies(const gr_world *w, gr_body *out, uint32_t capacity)
{
    if (!w)
        return 0;
    const gr_body_store *bs = &w->bodies;
    for (uint32_t a = 0; a < bs->count && a < capacity && out; a++) {
        const uint32_t slot = bs->active[a];
        out[a].id = gr_handle_make(w->tag, bs->gen[slot], slot);
    }
    return bs->count;
}

GR_API gr_status gr_body_get_mass(const gr_world *w, gr_body body, double *mass)
{
    static const char f[] = "gr_body_get_mass";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    if (!mass)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "mass is NULL");
    const gr_body_data *b = &w->bodies.data[slot];
    *mass = b->motion == GR_MOTION_DYNAMIC || b->motion == GR_MOTION_HOST ? b->mass : 0.0;
    return GR_OK;
}

GR_API gr_status gr_body_set_mass_properties(gr_world *w, gr_body body, double mass, gr_vec3 inertia,
                                             gr_quat inertia_rotation)
{
    static const char f[] = "gr_body_set_mass_properties";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    gr_body_data *b = &w->bodies.data[slot];
    if (b->motion != GR_MOTION_DYNAMIC && b->motion != GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "only dynamic and host-owned bodies have a mass");
    gr_body_mass_given given;
    GR_CHECK(check_mass_given(w, b->motion, mass, inertia, inertia_rotation, &given, f, ""));
    /* on a copy: the store's body changes only when every value is within bounds */
    gr_body_data t = *b;
    char err[200];
    const gr_status s = gr_body_set_mass(&t, w->materials.defs[b->material].density, &given, err, sizeof err);
    if (s != GR_OK)
        return gr_fail(w, s, f, "%s", err);
    b->mass = t.mass;
    b->inertia = t.inertia;
    b->com = t.com;
    b->principal = t.principal;
    for (uint32_t i = 0; i < w->system_count; i++) /* the solvers' copies take the new mass */
        if (w->systems[i].solver->body_moved)
            w->systems[i].solver->body_moved(w->systems[i].state, slot);
    return GR_OK;
}

GR_API gr_status gr_body_get_mass_properties(const gr_world *w, gr_body body, double *mass, gr_vec3 *inertia,
                                             gr_quat *inertia_rotation)
{
    static const char f[] = "gr_body_get_mass_properties";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    const gr_body_data *b = &w->bodies.data[slot];
    if (b->motion != GR_MOTION_DYNAMIC && b->motion != GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "only dynamic and host-owned bodies have a mass");
    if (mass)
        *mass = b->mass;
    if (inertia)
        *inertia = b->inertia;
    if (inertia_rotation)
        *inertia_rotation = b->principal;
    return GR_OK;
}

GR_API gr_status gr_body_get_center_of_mass(const gr_world *w, gr_body body, gr_vec3 *center)
{
    static const char f[] = "gr_body_get_center_of_mass";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    if (!center)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "center is NULL");
    const gr_body_data *b = &w->bodies.data[slot];
    if (b->motion != GR_MOTION_DYNAMIC && b->motion != GR_MOTION_HOST)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "only dynamic and host-owned bodies have a mass");
    *center = v3_add(b->position, quat_rotate(b->orientation, b->com));
    return GR_OK;
}

GR_API uint32_t gr_body_get_particle_count(const gr_world *w, gr_body body)
{
    uint32_t slot;
    if (!w || gr_handle_check(body.id, w->tag, w->bodies.gen, w->bodies.alive, w->bodies.slot_count, &slot) != GR_OK)
        return 0;
    return w->bodies.data[slot].particle_count;
}

GR_API gr_status gr_read_body_particles(const gr_world *w, gr_body body, uint32_t first, uint32_t count, float *dst,
                                        size_t stride)
{
    static const char f[] = "gr_read_body_particles";
    uint32_t slot;
    GR_CHECK(body_slot(w, body, &slot, f));
    const gr_body_data *b = &w->bodies.data[slot];
    if (!dst && count > 0)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "dst is NULL");
    if (stride == 0)
        stride = 4 * sizeof(float);
    if (stride < 4 * sizeof(float))
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "stride %zu is below 16 bytes", stride);
    if (first > b->particle_count || count > b->particle_count - first)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "particles [%u, %u) are past the body's %u", first,
                       first + count, b->particle_count);
    for (uint32_t k = 0; k < count; k++) {
        const gr_vec3 p = v3_add(b->position, quat_rotate(b->orientation, b->particles[first + k]));
        const float o[4] = {(float)p.x, (float)p.y, (float)p.z, (float)b->particle_radius};
        memcpy((char *)dst + (size_t)k * stride, o, sizeof o);
    }
    return GR_OK;
}

gr_status gr_check_mesh_arrays(const gr_world *w, const gr_vec3 *v, uint32_t nv, const uint32_t *idx, uint32_t nt,
                               const char *f, const char *vname, const char *iname)
{
    if (!v || !idx)
        return gr_fail(w, GR_ERROR_NULL_ARGUMENT, f, "a mesh needs %s and %s", vname, iname);
    if (nv < 4 || nt < 4)
        return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f,
                       "a closed mesh has at least 4 vertices and 4 triangles (got %u and %u)", nv, nt);
    if (nv > GR_MAX_MESH_ELEMENTS || nt > GR_MAX_MESH_ELEMENTS)
        return gr_fail(w, GR_ERROR_TOO_MANY, f, "a mesh has at most %u vertices and %u triangles",
                       GR_MAX_MESH_ELEMENTS, GR_MAX_MESH_ELEMENTS);
    for (uint32_t k = 0; k < nv; k++)
        if (!v3_finite(v[k]))
            return gr_fail(w, GR_ERROR_NOT_FINITE, f, "%s[%u] is not finite", vname, k);
    for (size_t k = 0; k < (size_t)nt * 3; k++)
        if (idx[k] >= nv)
            return gr_fail(w, GR_ERROR_INVALID_ARGUMENT, f, "%s[%zu] = %u is past the %u vertices", iname, k, idx[k], nv);
    return GR_OK;
}
