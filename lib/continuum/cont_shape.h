/* SPDX-License-Identifier: MIT */
/* The continuum particles' ellipsoids (Narain et al. 2010 sec. 3.1): a particle occupies
 * {y : (y - x)^T A^-1 (y - x) <= 1} for a symmetric positive definite A, stretched and squeezed
 * by the flow (eq. 28), split along its longest axis when too long and merged with a neighbour
 * when too small (eq. 29), so that the particles keep sampling a dispersing material evenly. */
#ifndef GR_CONTINUUM_CONT_SHAPE_H
#define GR_CONTINUUM_CONT_SHAPE_H

#include "../core/vec3.h"

/// A symmetric 3x3 matrix as its six distinct entries: xx, yy, zz, xy, yz, xz.
typedef struct cont_sym3 {
    double xx, yy, zz, xy, yz, xz;
} cont_sym3;

/// One particle's mass, place, velocity and shape: what split and merge conserve.
typedef struct cont_blob {
    double m;
    gr_vec3 x, v;
    cont_sym3 A;
} cont_blob;

/// The sphere of radius r.
static inline cont_sym3 cont_sym3_sphere(double r) { return (cont_sym3){r * r, r * r, r * r, 0, 0, 0}; }

/// Advance A by dt under the velocity gradient J (row-major, J[3 a + b] = d v_a / d x_b):
/// A <- (I + dt J) A (I + dt J)^T, the first-order integrator of eq. 28 (dA/dt = J A + A J^T)
/// that keeps A symmetric positive definite whatever dt.
cont_sym3 cont_shape_advance(cont_sym3 A, const double J[9], double dt);

/// The semi-axes: lengths (square roots of A's eigenvalues, ascending) and unit directions
/// (columns of axes, right-handed).
void cont_shape_axes(cont_sym3 A, double length[3], double axes[3][3]);

/// The ellipsoid's volume, 4/3 pi sqrt(det A).
double cont_shape_volume(cont_sym3 A);

/// Valid (sec. 3.1): every semi-axis within [r / sqrt 2, sqrt 2 r].
bool cont_shape_valid(cont_sym3 A, double r);

/// Split p along its longest axis into two halves of half that axis' length, each of half the
/// mass and p's velocity, placed at x -+ (sqrt 3 / 2) a e (a the longest semi-axis, e its
/// direction): the offset for which merging the two by eq. 29 gives p back exactly. Mass,
/// momentum and the centre of mass are kept. False (a, b untouched) when a child would not be
/// valid for radius r.
bool cont_shape_split(const cont_blob *p, double r, cont_blob *a, cont_blob *b);

/// Merge two particles into one at their centre of mass with their total mass and momentum,
/// its shape by eq. 29: m A = m_i (A_i + dx_i dx_i^T) + m_j (A_j + dx_j dx_j^T).
cont_blob cont_shape_merge(const cont_blob *i, const cont_blob *j);

#endif /* GR_CONTINUUM_CONT_SHAPE_H */
