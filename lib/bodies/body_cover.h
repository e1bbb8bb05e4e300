/* SPDX-License-Identifier: MIT */
/* Particle-covered bodies (body_cover.c): preparing one (mesh, mass, surface particles), releasing it. */
#ifndef GR_BODIES_BODY_COVER_H
#define GR_BODIES_BODY_COVER_H

#include "../core/vec3.h"
#include "body_mass.h"
#include "body_store.h"

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
/// World pose of the body's principal frame (centre of mass, principal axes).
void gr_body_principal_pose(const gr_body_data *b, gr_vec3 *x, gr_quat *q);

#endif /* GR_BODIES_BODY_COVER_H */
