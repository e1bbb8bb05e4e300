/* SPDX-License-Identifier: MIT */
/* The render points' kernels' interface (the upsampling of lib/upsample/upsample.c).
 *
 * Sums of the upsampling's weights over a cached list of particles (lib/upsample/upsample.c), for 8
 * (AVX-512: 16) points at once, one point per lane: for point p (lane l) with inverse squared support
 * inv_r2, over the entries j of the list in order
 *     w_j = max(0, 1 - |p - x_j|^2 inv_r2)^3
 *     out[.][l] = (sum w_j, sum w_j g_j, sum w_j vx_j, sum w_j vy_j, sum w_j vz_j)
 * Each lane adds its terms one by one in list order, so a point's sums do not depend on which
 * points share its lanes (lanes without a point are placed far away). Written once with
 * vector extensions (kernel_points_sums.h), built for SSE2 (or plain code) and AVX2 with 8 lanes
 * and for AVX-512 with 16, bit-identical lane for lane. Points in lanes rather than entries: a cell's points share its list, so
 * each entry is read once for 8 points, with no padding of the list and no adding of lanes
 * at the end (callgrind, sandcastle with points: 154 instructions per point's sums, against 236
 * one point at a time). */
#ifndef GR_SIMD_KERNEL_POINTS_H
#define GR_SIMD_KERNEL_POINTS_H

#include "../core/common.h"

typedef struct gr_point_list {
    const float *x, *y, *z, *g, *vx, *vy, *vz;
    uint32_t n;
} gr_point_list;

/// Room for the widest build's lanes; a build fills its own count (gr_kernels.point_lanes) of
/// them and leaves the rest alone.
#define GR_POINT_LANES 16

typedef void gr_point_sums_fn(const gr_point_list *l, const float px[GR_POINT_LANES], const float py[GR_POINT_LANES],
                            const float pz[GR_POINT_LANES], float inv_r2, float out[5][GR_POINT_LANES]);


/* The blend and the move of the same 8 (16) points in lanes (kernel_points_blend.h), in double: the
 * blend of their velocities from the sums (lib/upsample/upsample.c: blend_velocity), the rest test, and
 * the move in pieces of at most r_H when every piece leaves the point clear of every exact
 * surface. A lane ends in
 * one of three ways (how[]): */
enum {
    GR_POINT_MOVED = 0,          ///< moved to x with v (pushed out of planes on the way), near no
                               ///< other exact surface
    GR_POINT_RESTS = 1,          ///< at rest: stays where it is, without velocity
    GR_POINT_MOVE_ONE_BY_ONE = 2,///< v is its velocity; the one-point code moves it (an exact
                               ///< surface came within reach)
    GR_POINT_HOW = 3,            ///< (the bits of the above)
    GR_POINT_IN_CELL = 4         ///< added to GR_POINT_MOVED: x is still in the batch's grid cell
};

typedef struct gr_point_blend_in {
    float x[GR_POINT_LANES], y[GR_POINT_LANES], z[GR_POINT_LANES];
    float vx[GR_POINT_LANES], vy[GR_POINT_LANES], vz[GR_POINT_LANES];
    float sums[5][GR_POINT_LANES]; ///< gr_point_sums_fn's out
    uint32_t rest[GR_POINT_LANES]; ///< the point's rest flag
} gr_point_blend_in;

#define GR_POINT_EXACT_VALUES 16

typedef struct gr_point_blend_consts {
    double g[3], dt, inv_dense, rest2, rh;
    bool still;        ///< every particle near the points is at rest
    bool exact_moving; ///< a kinematic exact body moves
    uint32_t exact_count;
    /// per exact body GR_POINT_EXACT_VALUES values: centre, normal (planes), bound, 1 if a plane;
    /// for planes then linear velocity, angular velocity (about the centre), mu_k, 0
    const double *exact;
    /* the batch's grid cell, as lib/upsample/upsample.c's point_key finds it: cell[d] <= (x_axis[d] -
     * origin[d]) inv_cell < cell[d] + 1 */
    int axis[3];
    double origin[3], inv_cell, cell[3];
} gr_point_blend_consts;

typedef struct gr_point_blend_out {
    double x[GR_POINT_LANES], y[GR_POINT_LANES], z[GR_POINT_LANES];
    double vx[GR_POINT_LANES], vy[GR_POINT_LANES], vz[GR_POINT_LANES];
    uint8_t how[GR_POINT_LANES];
} gr_point_blend_out;

typedef void gr_point_blend_fn(const gr_point_blend_in *in, const gr_point_blend_consts *k, gr_point_blend_out *out);

/* A point (x, y, z) against body particles b .. n-1 of a cell (positions bx, by, bz and
 * squared reaches (r_j + r_H)^2 in double): the first one it is inside of (0 < d^2 < reach^2),
 * else n. The points' pushes out of body particles take them in order (lib/upsample/upsample.c). */
typedef uint32_t gr_point_hit_fn(const double *bx, const double *by, const double *bz, const double *reach2,
                               uint32_t b, uint32_t n, double x, double y, double z);

#endif /* GR_SIMD_KERNEL_POINTS_H */
