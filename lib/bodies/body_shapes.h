/* SPDX-License-Identifier: MIT */
/* The shapes' geometry (body_shapes.c): features, distances, bounds, inside tests, the frame. */
#ifndef GR_BODIES_BODY_SHAPES_H
#define GR_BODIES_BODY_SHAPES_H

#include "../core/vec3.h"
#include "body_store.h"

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
/// Recompute the derived frame after the pose changed (insert, set_pose, integrate, load).
void gr_body_update_frame(gr_body_data *b);
/// Advance a kinematic body's pose by h seconds with its velocities.
void gr_body_integrate(gr_body_data *b, double h);
/// Is p (world) inside the body's solid? Thread-safe; meshes in O(triangles near p's column).
bool gr_body_contains(const gr_body_data *b, gr_vec3 p);

#endif /* GR_BODIES_BODY_SHAPES_H */
