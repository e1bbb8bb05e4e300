/* SPDX-License-Identifier: MIT */
/* Sums of the upsampling's weights over a cached list of particles (pbd_upsample.c), in lanes
 * of 8 floats: for a point p with inverse squared support inv_r2, over entries j
 *     w_j = max(0, 1 - |p - x_j|^2 inv_r2)^3
 *     out = (sum w_j, sum w_j g_j, sum w_j vx_j, sum w_j vy_j, sum w_j vz_j)
 * Lane l sums the entries l, l + 8, l + 16, ..., then the lanes are added as a tree
 * ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)): written
 * once with vector extensions (pbd_hr_sums_simd.h), built for SSE2 (or plain code) and for
 * AVX2, bit-identical. n is a multiple of 8 (far padding weighs nothing). The float sums are
 * handed out as doubles: the caller reads each whole (two floats read as one 8-byte word after
 * 4-byte stores stall the store forwarding: measured a tenth of the advection). */
#ifndef GR_PBD_HR_SUMS_H
#define GR_PBD_HR_SUMS_H

#include "../core/common.h"

typedef struct pbd_hr_list {
    const float *x, *y, *z, *g, *vx, *vy, *vz;
    uint32_t n;
} pbd_hr_list;

typedef void pbd_hr_sums_fn(const pbd_hr_list *l, float px, float py, float pz, float inv_r2, double out[5]);

pbd_hr_sums_fn pbd_hr_sums_v8;
pbd_hr_sums_fn pbd_hr_sums_v8avx2; /* built only where the compiler has AVX2 (GR_HAVE_AVX2) */
/// The widest build this CPU runs.
pbd_hr_sums_fn *pbd_pick_hr_sums(void);

#endif /* GR_PBD_HR_SUMS_H */
