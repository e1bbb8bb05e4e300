/* SPDX-License-Identifier: MIT */
/* Sums of the upsampling's weights over a cached list of particles (pbd_upsample.c), for 8
 * (AVX-512: 16) points at once, one point per lane: for point p (lane l) with inverse squared support
 * inv_r2, over the entries j of the list in order
 *     w_j = max(0, 1 - |p - x_j|^2 inv_r2)^3
 *     out[.][l] = (sum w_j, sum w_j g_j, sum w_j vx_j, sum w_j vy_j, sum w_j vz_j)
 * Each lane adds its terms one by one in list order, so a point's sums do not depend on which
 * points share its lanes (lanes without a point are placed far away). Written once with
 * vector extensions (pbd_hr_sums_simd.h), built for SSE2 (or plain code) and AVX2 with 8 lanes
 * and for AVX-512 with 16, bit-identical lane for lane. Points in lanes rather than entries: a cell's points share its list, so
 * each entry is read once for 8 points, with no padding of the list and no adding of lanes
 * at the end (callgrind, sandcastle with points: 154 instructions per point's sums, against 236
 * one point at a time). */
#ifndef GR_PBD_HR_SUMS_H
#define GR_PBD_HR_SUMS_H

#include "../core/common.h"

typedef struct pbd_hr_list {
    const float *x, *y, *z, *g, *vx, *vy, *vz;
    uint32_t n;
} pbd_hr_list;

/// Room for the widest build's lanes; a build fills its own count (pbd_hr_kernels.lanes) of
/// them and leaves the rest alone.
#define PBD_HR_LANES 16

typedef void pbd_hr_sums_fn(const pbd_hr_list *l, const float px[PBD_HR_LANES], const float py[PBD_HR_LANES],
                            const float pz[PBD_HR_LANES], float inv_r2, float out[5][PBD_HR_LANES]);

pbd_hr_sums_fn pbd_hr_sums_v8;
pbd_hr_sums_fn pbd_hr_sums_v8avx2;     /* built only where the compiler has AVX2 (GR_HAVE_AVX2) */
pbd_hr_sums_fn pbd_hr_sums_v16avx512;  /* built only with GR_HAVE_AVX512: 16 lanes */

/* The blend and the move of the same 8 (16) points in lanes (pbd_hr_blend_simd.h), in double: the
 * blend of their velocities from the sums (pbd_upsample.c: blend_velocity), the rest test, and
 * the move in pieces of at most r_H when every piece leaves the point clear of every exact
 * surface. A lane ends in
 * one of three ways (how[]): */
enum {
    PBD_HR_MOVED = 0,          ///< moved to x with v (pushed out of planes on the way), near no
                               ///< other exact surface
    PBD_HR_RESTS = 1,          ///< at rest: stays where it is, without velocity
    PBD_HR_MOVE_ONE_BY_ONE = 2,///< v is its velocity; the one-point code moves it (an exact
                               ///< surface came within reach)
    PBD_HR_HOW = 3,            ///< (the bits of the above)
    PBD_HR_IN_CELL = 4         ///< added to PBD_HR_MOVED: x is still in the batch's grid cell
};

typedef struct pbd_hr_blend_in {
    float x[PBD_HR_LANES], y[PBD_HR_LANES], z[PBD_HR_LANES];
    float vx[PBD_HR_LANES], vy[PBD_HR_LANES], vz[PBD_HR_LANES];
    float sums[5][PBD_HR_LANES]; ///< pbd_hr_sums_fn's out
    uint32_t rest[PBD_HR_LANES]; ///< the point's rest flag
} pbd_hr_blend_in;

#define PBD_HR_EXACT_VALUES 16

typedef struct pbd_hr_blend_consts {
    double g[3], dt, inv_dense, rest2, rh;
    bool still;        ///< every particle near the points is at rest
    bool exact_moving; ///< a kinematic exact body moves
    uint32_t exact_count;
    /// per exact body PBD_HR_EXACT_VALUES values: centre, normal (planes), bound, 1 if a plane;
    /// for planes then linear velocity, angular velocity (about the centre), mu_k, 0
    const double *exact;
    /* the batch's grid cell, as pbd_upsample.c's point_key finds it: cell[d] <= (x_axis[d] -
     * origin[d]) inv_cell < cell[d] + 1 */
    int axis[3];
    double origin[3], inv_cell, cell[3];
} pbd_hr_blend_consts;

typedef struct pbd_hr_blend_out {
    double x[PBD_HR_LANES], y[PBD_HR_LANES], z[PBD_HR_LANES];
    double vx[PBD_HR_LANES], vy[PBD_HR_LANES], vz[PBD_HR_LANES];
    uint8_t how[PBD_HR_LANES];
} pbd_hr_blend_out;

typedef void pbd_hr_blend_fn(const pbd_hr_blend_in *in, const pbd_hr_blend_consts *k, pbd_hr_blend_out *out);

pbd_hr_blend_fn pbd_hr_blend_v4;        /* 8 lanes, 4 doubles at a time */
pbd_hr_blend_fn pbd_hr_blend_v4avx2;    /* (GR_HAVE_AVX2) */
pbd_hr_blend_fn pbd_hr_blend_v8avx512;  /* (GR_HAVE_AVX512) 16 lanes, 8 doubles at a time */

/* A point (x, y, z) against body particles b .. n-1 of a cell (positions bx, by, bz and
 * squared reaches (r_j + r_H)^2 in double): the first one it is inside of (0 < d^2 < reach^2),
 * else n. The points' pushes out of body particles take them in order (pbd_upsample.c). */
typedef uint32_t pbd_hr_hit_fn(const double *bx, const double *by, const double *bz, const double *reach2,
                               uint32_t b, uint32_t n, double x, double y, double z);

pbd_hr_hit_fn pbd_hr_hit_v4;
pbd_hr_hit_fn pbd_hr_hit_v4avx2;   /* (GR_HAVE_AVX2) */
pbd_hr_hit_fn pbd_hr_hit_v8avx512; /* (GR_HAVE_AVX512) */

/// The sums, the blend and the body scan of one build, and how many lanes (points per call)
/// the sums and the blend fill.
typedef struct pbd_hr_kernels {
    pbd_hr_sums_fn *sums;
    pbd_hr_blend_fn *blend;
    uint32_t lanes;
    pbd_hr_hit_fn *hit;
} pbd_hr_kernels;

/// The widest build this CPU runs.
pbd_hr_kernels pbd_pick_hr(void);

#endif /* GR_PBD_HR_SUMS_H */
