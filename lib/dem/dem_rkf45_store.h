/* SPDX-License-Identifier: MIT */
/* The RKF45 integrator's scratch (dem_rkf45_store.c): its layout, shared with the integrator
 * (dem_rkf45.c), and its storage primitives. */
#ifndef GR_DEM_DEM_RKF45_STORE_H
#define GR_DEM_DEM_RKF45_STORE_H

#include "dem_internal.h"

/* doubles per sphere (x, v, w) and per clump (x, v, L, q) in a state vector; the method's
 * stages; the blocks of the parallel passes */
enum { SPH = 9, CLU = 13, STAGES = 6, RKF_BLOCK = 2048, RKF_CLUMP_BLOCK = 512 };

struct dem_rkf {
    uint32_t cap, c_cap, nb_cap, bc_cap, body_cap, blocks_cap;
    double *y0, *k;         ///< spheres: [cap * SPH], [STAGES * cap * SPH]
    double *cy0, *ck;       ///< clumps: [c_cap * CLU], [STAGES * c_cap * CLU]
    uint32_t *nb_j;         ///< neighbour entries (touching bits) at the step's start
    gr_vec3 *nb_hist, *nb_roll, *bc_hist, *bc_roll;
    gr_vec3 *pose_x;        ///< [body_cap] kinematic bodies' pose at the step's start
    gr_quat *pose_q;
    gr_vec3 *impulse0;      ///< [body_cap * 2] body impulses at the step's start
    gr_vec3 *force1;        ///< [body_cap * 2] force and torque on each body at y_n (stage 1)
    double *block_err, *block_disp; ///< [blocks_cap]
};

/// RKF45's room for n grains and lists of nb, bc entries (dem_rebuild reserves it up front).
gr_status dem_rkf45_reserve(dem_state *st, uint32_t n, uint32_t nb, uint32_t bc);
void dem_free_rkf(dem_state *st);

#endif /* GR_DEM_DEM_RKF45_STORE_H */
