/* SPDX-License-Identifier: MIT */
/* The contact kernel of the PBD solver: one batch of movable particle pairs, each evaluated
 * once per sweep (Sommer & Schwanecke eq. 1-4; docs/pbd.md). For a pair (a, b) with
 * d = r_a + r_b, x_ab = p_a - p_b at distance |x_ab| < d, n = x_ab / |x_ab| and depth
 * delta = d - |x_ab|, and the relative slip over the substep s = (p_a - x_a) - (p_b - x_b)
 * with tangential part t = s - (s . n) n, the pair's correction as seen from a is
 *     u = delta n - f(t)
 * where f removes the whole slip or part of it: |t| < mu_s delta: f = t (static);
 * else f = t min(mu_k delta / |t|, 1) (kinetic, never reversing the slip).
 * End a moves by + c_a u, end b by - c_b u (times the averaging share). Pairs not in contact
 * give u = 0 and leave the accumulated state as it was.
 *
 * Written once with vector extensions (pbd_kernel_simd.h) and built for 2 lanes everywhere and
 * 4 lanes of AVX2 where the CPU has it; every operation is elementwise IEEE in the same order,
 * so all builds give bit-identical results. */
#ifndef GR_PBD_KERNEL_H
#define GR_PBD_KERNEL_H

#include "../core/common.h"

/// Pairs per batch (a multiple of every lane count: 2, 4, 8).
#define PBD_BATCH 64u

typedef struct pbd_pair_batch {
    uint32_t n; ///< pairs, padded to whole lanes (padding: d = 0, never in contact)
    double dx[PBD_BATCH], dy[PBD_BATCH], dz[PBD_BATCH]; ///< p_a - p_b
    double sx[PBD_BATCH], sy[PBD_BATCH], sz[PBD_BATCH]; ///< relative slip (friction sweeps)
    double d[PBD_BATCH];
    double mus[PBD_BATCH], muk[PBD_BATCH];              ///< unless uniform
    double ux[PBD_BATCH], uy[PBD_BATCH], uz[PBD_BATCH]; ///< out: the correction
    double act[PBD_BATCH];                              ///< out: 1 in contact, else 0
} pbd_pair_batch;

typedef struct pbd_kernel_consts {
    double up[3];    ///< direction for coincident centres (a goes up)
    int friction;    ///< 0: normal corrections only (stabilisation)
    int uniform;     ///< every pair has mu_s, mu_k below (else the batch's)
    double mu_s, mu_k;
} pbd_kernel_consts;

typedef void pbd_kernel_fn(pbd_pair_batch *b, const pbd_kernel_consts *c);

pbd_kernel_fn pbd_kernel_v2;
pbd_kernel_fn pbd_kernel_v4avx2; /* built only where the compiler has AVX2 (GR_HAVE_AVX2) */
pbd_kernel_fn pbd_kernel_v8avx512; /* built only with GR_HAVE_AVX512 */
/// The widest kernel this CPU runs.
pbd_kernel_fn *pbd_pick_kernel(void);

#endif /* GR_PBD_KERNEL_H */
