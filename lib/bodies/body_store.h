/* SPDX-License-Identifier: MIT */
/* Rigid bodies shared by every solver: shape, pose, motion, and the force the grains put on
 * them. Bodies are few (walls, tools), so they live in one array indexed by slot. What is asked
 * of a body is declared by the file that does it: body_shapes.h, body_mass.h, body_cover.h,
 * body_host.h, body_sdf.h. */
#ifndef GR_BODIES_BODY_STORE_H
#define GR_BODIES_BODY_STORE_H

#include "../core/alloc.h"
#include "../geom/heightfield.h"
#include "../geom/mesh_query.h"
#include "../core/vec3.h"

typedef struct gr_body_data {
    gr_shape_type shape;
    gr_motion_type motion;
    uint32_t open_faces;
    uint32_t material; ///< material index
    gr_vec3 position;
    gr_quat orientation;
    gr_vec3 linear_velocity;
    gr_vec3 angular_velocity;
    gr_vec3 normal_local; ///< plane, unit
    double radius;
    double half_height;
    gr_vec3 half_extents;
    void *user_data;
    /* derived from the pose by gr_body_update_frame (not saved): the body's axes in world
     * coordinates (columns of its rotation matrix) and, for planes, the world normal */
    gr_vec3 axis[3];
    gr_vec3 normal_world;
    gr_vec3 force;  ///< averaged over the last step
    gr_vec3 torque; ///< about `position`, averaged over the last step
    /* particle-covered bodies (dynamic, host-owned, meshes; body_cover.c) */
    double particle_radius;
    double particle_density;
    double particle_offset;
    uint32_t particle_count;
    gr_vec3 *particles;     ///< [particle_count] centres in the body frame (world allocator)
    double mass;            ///< given, or from the shape and the material's density (body_mass.c)
    gr_vec3 inertia;        ///< principal moments about the centre of mass
    gr_vec3 com;            ///< centre of mass in the body frame
    gr_quat principal;      ///< principal axes in the body frame
    gr_vec3 *mesh_vertices; ///< meshes: a copy of the host's mesh
    uint32_t *mesh_indices;
    uint32_t mesh_vertex_count;
    uint32_t mesh_triangle_count;
    double mesh_bound;      ///< largest distance of a mesh vertex from the body origin
    gr_mesh_query mesh_query; ///< meshes: the triangles binned (fast inside tests)
    gr_host_body_state host_state; ///< host-owned: the state get_state reported (scratch of gr_step)
    gr_host_body_state host_before; ///< host-owned: the state before it (gr_step puts it back on a failure)
    /// GR_SHAPE_HEIGHTFIELD: the terrain's surface (owned by the terrain system, which sets this
    /// pointer; not saved)
    const gr_heightfield *field;
    /// Force and torque (about `position`) that a system not moving bodies (the terrain) puts on
    /// a dynamic or host-owned body for the next substep: the system moving the bodies adds
    /// them to the contact forces while ext_active is set (the terrain saves them with its state).
    gr_vec3 ext_force, ext_torque;
    bool ext_active;
} gr_body_data;

/// Most surface particles one body may have.
#define GR_MAX_BODY_PARTICLES (1u << 22)
/// Most mesh vertices and triangles one body may have.
#define GR_MAX_MESH_ELEMENTS (1u << 24)

typedef struct gr_body_store {
    uint32_t cap;
    uint32_t slot_count;
    uint32_t count;
    uint32_t retired;   ///< dead slots at the last generation: never reused (gr_slot_retired)
    gr_body_data *data;
    uint16_t *gen;
    uint8_t *alive;
    uint32_t *active;   ///< live slots in ascending order, `count` of them
    uint32_t revision;  ///< bumped when a body is added, removed or teleported
} gr_body_store;

void gr_body_store_init(gr_body_store *s);
/// Frees the store and every live body's particles and mesh.
void gr_body_store_free(gr_body_store *s, gr_mem *mem);
/// Room for one more body (a free slot or a new one). All or nothing.
bool gr_body_store_reserve(gr_body_store *s, gr_mem *mem);
/// Room for `slots` slots in total. All or nothing.
bool gr_body_store_reserve_slots(gr_body_store *s, gr_mem *mem, uint32_t slots);
/// Recompute the active list from the alive flags.
void gr_body_store_rebuild_active(gr_body_store *s);
/// Insert (after reserve): returns the slot, reusing the lowest free (not retired) one.
uint32_t gr_body_store_insert(gr_body_store *s, const gr_body_data *body);
/// Remove a body and free its particles and mesh; its slot's generation moves on, or the
/// slot is retired at the last one.
void gr_body_store_remove(gr_body_store *s, gr_mem *mem, uint32_t slot);

/// Velocity of the body material point at p.
static inline gr_vec3 gr_body_point_velocity(const gr_body_data *b, gr_vec3 p)
{
    return v3_add(b->linear_velocity, v3_cross(b->angular_velocity, v3_sub(p, b->position)));
}

#endif /* GR_BODIES_BODY_STORE_H */
