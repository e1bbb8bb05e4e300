/* SPDX-License-Identifier: MIT */
/* Every vectorised kernel of the library, in one table per instruction set (simd_base.c,
 * simd_avx2.c, simd_avx512.c: one translation unit each, including every kernel template).
 * The world picks the widest table this CPU runs once, when it is created, and hands it to
 * its solver (gr_solver_env.kernels). All tables give bit-identical results: the choice never
 * changes a simulation. */
#ifndef GR_SIMD_KERNELS_H
#define GR_SIMD_KERNELS_H

#include "kernel_contact.h"
#include "kernel_points.h"

typedef struct gr_kernels {
    const char *isa;                         ///< "base" (SSE2 or plain C), "avx2", "avx512"
    gr_contact_kernel_fn *contact;           ///< Hertz + history contacts (DEM)
    gr_contact_kernel_fn *contact_epsd;      ///< the same with EPSD rolling resistance
    gr_point_sums_fn *point_sums;            ///< render points: weight sums
    gr_point_blend_fn *point_blend;          ///< render points: blend and move
    uint32_t point_lanes;                    ///< points per call of both (8 or 16)
    gr_point_hit_fn *point_hit;              ///< render points: first body particle hit
} gr_kernels;

extern const gr_kernels gr_kernels_base;
#if defined(GR_HAVE_AVX2) /* set by the build when it compiled simd_avx2.c */
extern const gr_kernels gr_kernels_avx2;
#endif
#if defined(GR_HAVE_AVX512)
extern const gr_kernels gr_kernels_avx512;
#endif

/// The widest table this CPU runs.
const gr_kernels *gr_kernels_pick(void);

#endif /* GR_SIMD_KERNELS_H */
