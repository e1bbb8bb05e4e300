/* SPDX-License-Identifier: MIT */
/* The continuum solver's def: what a host sets, with its defaults, checks and snapshot section.
 * Until the solver is complete it is not in the public headers; the test build registers the
 * solver (tests/meson.build) with a def kind of its own. */
#ifndef GR_CONTINUUM_CONT_DEF_H
#define GR_CONTINUUM_CONT_DEF_H

#include "../core/def_check.h"
#include "../core/solver.h"
#include "cont_internal.h"

/// The def kind while the def is not public.
#define GR_DEF_CONTINUUM_PENDING ((gr_def_kind)0x7e58)

/// The continuum solver's parameters (docs/continuum.md). Seed: Narain, Golas, Lin 2010.
typedef struct gr_continuum_def {
    uint32_t size;                ///< sizeof(gr_continuum_def)
    uint32_t qp_solver;           ///< 0: MPRGP (default), 1: projected Gauss-Seidel (the reference)
    double cell_size;             ///< grid cell edge h [m], > 0; default 0.02
    double particle_radius;       ///< r [m], the particles' size (sec. 3.1); 0 (default): h / 4
    /// The critical (packed) density as a fraction of the grains' material density, in (0, 1]:
    /// a grain's sand fills its volume / packing when packed. Default 0.6
    double packing;
    double pic_fraction;          ///< of the particles' velocity update, in [0, 1]; default 0.05
    uint32_t stagger_iterations;  ///< pressure and friction rounds per step (sec. 4: 2), in [1, 50]
    uint32_t max_iterations;      ///< per QP solve, in [1, 1e6]; default 1000
    double cfl;                   ///< most cells a particle travels per step (sec. 4: 0.5), in (0, 2]
    double tolerance;             ///< the QPs' relative tolerance, in (0, 0.1]; default 1e-5
    /// Friction by components (sec. 4: one component of the stress at a time, each by MPRGP):
    /// block sweeps per staggered round, in [0, 20]; 0 solves the whole friction QP at once.
    /// Default 1. (The reference PGS solver always solves the whole QP.)
    uint32_t friction_sweeps;
    uint32_t density_correction;  ///< 1 (default): the density correction of sec. 2.2.1; 0: off
} gr_continuum_def;

void cont_def_defaults(void *def);
bool cont_def_validate(const void *def, gr_def_check *c);
void cont_def_save(const void *def, struct gr_stream_writer *w);
bool cont_def_load(void *def, struct gr_stream_reader *r);
extern const gr_def_layout cont_def_layout;
/// The solver's settings from a validated def.
cont_params cont_def_params(const gr_continuum_def *d);

#endif /* GR_CONTINUUM_CONT_DEF_H */
