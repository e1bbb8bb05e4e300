/* SPDX-License-Identifier: MIT */
/* Rigid bodies shared by every solver: shape, pose, motion, and the force the grains put on
 * them. Bodies are few (walls, tools), so they live in one array indexed by slot. */
#ifndef GR_BODIES_BODY_STORE_H
#define GR_BODIES_BODY_STORE_H

#include "../core/alloc.h"
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

/// Number of contact features of a body (container: 6 faces; others 1).
uint32_t gr_body_feature_count(const gr_body_data *b);
/// Whether feature f exists (a container's open faces do not).
bool gr_body_feature_enabled(const gr_body_data *b, uint32_t f);
/// A container's faces that may lie within r of p (gr_body_features_near).
uint32_t gr_body_container_faces_near(const gr_body_data *b, gr_vec3 p, double r);
/// The enabled features that may lie within r of p, as a bit mask (bit f): cheap plane tests
/// (a container's faces), so that loops over features ask gr_body_feature_distance only there.
/// (Inline: the grains' and points' sweeps ask it of the floor for every particle near it.)
static inline uint32_t gr_body_features_near(const gr_body_data *b, gr_vec3 p, double r)
{
    return b->shape != GR_SHAPE_CONTAINER ? 1u : gr_body_container_faces_near(b, p, r);
}
/// A container's faces are thin, two-sided plates: if the move from `from` to *x crossed one,
/// put *x back on from's side, r from the face, and return that side's face normal in
/// *normal (true). Other shapes are solids or one-sided: false.
bool gr_body_uncross(const gr_body_data *b, gr_vec3 from, gr_vec3 *x, double r, gr_vec3 *normal);
/// gr_body_feature_distance for every shape but the plane.
double gr_body_solid_feature_distance(const gr_body_data *b, uint32_t f, gr_vec3 p, gr_vec3 *normal,
                                      gr_vec3 *point);
/// Distance from p to the feature's surface: positive outside (on the grains' side), negative
/// inside solids. *normal: unit vector from the surface towards p; *point: closest surface point.
/// (Planes inline: the common wall, asked by every grain and point near the floor.)
static inline double gr_body_feature_distance(const gr_body_data *b, uint32_t f, gr_vec3 p, gr_vec3 *normal,
                                              gr_vec3 *point)
{
    if (b->shape == GR_SHAPE_PLANE) {
        const gr_vec3 n = b->normal_world;
        const double d = v3_dot(v3_sub(p, b->position), n);
        *normal = n;
        *point = v3_madd(p, n, -d);
        return d;
    }
    return gr_body_solid_feature_distance(b, f, p, normal, point);
}
/// Smallest distance from p to any enabled feature (for fills and quick rejection).
double gr_body_distance(const gr_body_data *b, gr_vec3 p);
/// The same, exact only below `limit` (else +-limit): meshes ask their binned triangles near p
/// instead of all of them (not thread-safe for meshes: the query's stamps).
double gr_body_distance_within(gr_body_data *b, gr_vec3 p, double limit);
/// Radius of a sphere about `position` enclosing the body (infinite for planes).
double gr_body_bound_radius(const gr_body_data *b);
/// Velocity of the body material point at p.
static inline gr_vec3 gr_body_point_velocity(const gr_body_data *b, gr_vec3 p)
{
    return v3_add(b->linear_velocity, v3_cross(b->angular_velocity, v3_sub(p, b->position)));
}
/// Recompute the derived frame after the pose changed (insert, set_pose, integrate, load).
void gr_body_update_frame(gr_body_data *b);
/// Advance a kinematic body's pose by h seconds with its velocities.
void gr_body_integrate(gr_body_data *b, double h);

/* body_mass.c */
/// Mass properties a caller gives (gr_body_def.mass, .inertia, .inertia_rotation): mass 0 =
/// density x shape, inertia (0, 0, 0) = the shape's for that mass (rotation then unused).
typedef struct gr_body_mass_given {
    double mass;
    gr_vec3 inertia;
    gr_quat rotation; ///< unit
} gr_body_mass_given;
/// Set a particle-covered body's mass, inertia, principal axes and centre of mass from its
/// shape (a mesh's arrays in place), the density [kg/m^3] and what is given (NULL: nothing).
/// GR_ERROR_INVALID_ARGUMENT with a message in err (b unchanged) when the mesh is inside out or
/// the mass or a moment is outside the bounds of gr_base.h.
gr_status gr_body_set_mass(gr_body_data *b, double density, const gr_body_mass_given *given, char *err, size_t errlen);

/* body_cover.c */
/// Whether the body is represented by surface particles (dynamic, host-owned, meshes) in a
/// solver that represents bodies so (gr_solver_vtable.body_particles).
bool gr_body_needs_particles(const gr_body_data *b);
/// Copy the mesh (meshes), check it, compute mass properties (density [kg/m^3], or what is
/// given: gr_body_set_mass) and, with `cover`, cover the surface with particles. On failure
/// nothing stays allocated; err holds a message for GR_ERROR_INVALID_ARGUMENT / TOO_MANY.
gr_status gr_body_prepare(gr_body_data *b, gr_mem *mem, double density, const gr_body_mass_given *given,
                          const gr_vec3 *vertices, const uint32_t *indices, uint64_t seed, bool cover, char *err,
                          size_t errlen);
/// Free the particles and mesh.
void gr_body_release(gr_body_data *b, gr_mem *mem);
/// Meshes: bin the triangles for gr_body_contains (the mesh arrays must be in place).
gr_status gr_body_build_mesh_query(gr_body_data *b, gr_mem *mem);
/// Is p (world) inside the body's solid? Thread-safe; meshes in O(triangles near p's column).
bool gr_body_contains(const gr_body_data *b, gr_vec3 p);
/// World pose of the body's principal frame (centre of mass, principal axes).
void gr_body_principal_pose(const gr_body_data *b, gr_vec3 *x, gr_quat *q);

/* body_host.c */
/// The impulse [N s] and angular impulse [N m s] (about the centre of mass) to hand a
/// host-owned body's engine after a step of dt: those that make a symplectic Euler engine
/// land the body where the library moved it (see body_host.c).
/// `fall`: the solver's free-fall factor of the step (gr_world.step_fall).
void gr_body_host_impulse(const gr_body_data *b, gr_vec3 gravity, double dt, double fall, gr_vec3 *impulse,
                          gr_vec3 *angular);

#endif /* GR_BODIES_BODY_STORE_H */
