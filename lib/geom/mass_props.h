/* SPDX-License-Identifier: MIT */
/* Mass properties of solids: unions of overlapping spheres (clumps) and closed triangle
 * meshes, and the symmetric 3x3 eigen-decomposition that gives principal axes. */
#ifndef GR_GEOM_MASS_PROPS_H
#define GR_GEOM_MASS_PROPS_H

#include "../core/common.h"

/// Volume, centre and inertia (about the centre, unit density) of a solid.
typedef struct gr_mass_props {
    double volume;
    gr_vec3 centre;
    double inertia[3][3]; ///< about `centre`, world axes, for density 1
} gr_mass_props;

/// Union of `count` spheres (overlaps counted once). Each sphere's disc is integrated on a
/// grid of cell `cell` in x and y; along z the union of the spheres' chords is integrated
/// exactly. Error O(cell^2); deterministic. Pass cell <= min radius / 20. `scratch` holds
/// 4 * count doubles.
void gr_mass_props_spheres(const gr_vec3 *centres, const double *radii, uint32_t count, double cell,
                           double *scratch, gr_mass_props *out);

/// Closed, outward-wound triangle mesh (volume integrals over signed tetrahedra from the
/// origin). A negative volume means the mesh is wound inside out.
void gr_mass_props_mesh(const gr_vec3 *vertices, const uint32_t *indices, uint32_t triangles, gr_mass_props *out);

/// Eigen-decomposition of a symmetric 3x3 matrix by Jacobi rotations (deterministic):
/// m = V diag(values) V^T, the columns of `vectors` are the eigenvectors, right-handed,
/// sorted by ascending eigenvalue.
void gr_eigen_symmetric3(const double m[3][3], double values[3], double vectors[3][3]);

/// Unit quaternion of a rotation matrix (columns = rotated axes).
gr_quat gr_quat_from_matrix(const double r[3][3]);

#endif /* GR_GEOM_MASS_PROPS_H */
