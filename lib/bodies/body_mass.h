/* SPDX-License-Identifier: MIT */
/* Mass properties of particle-covered bodies (body_mass.c): from shape and density, or given. */
#ifndef GR_BODIES_BODY_MASS_H
#define GR_BODIES_BODY_MASS_H

#include "../core/vec3.h"
#include "body_store.h"

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

#endif /* GR_BODIES_BODY_MASS_H */
