/* SPDX-License-Identifier: MIT */
/* The column collapse (Narain et al. 2010, Fig. 11) on any solver, shared by the continuum
 * examples and the continuum repose-angle validation: a square column of grains released on a
 * rough floor spreads and stops. Y is up, the floor is y = 0. Public API only; not part of the
 * library. */
#ifndef GRANULAR_EXAMPLES_COLLAPSE_SCENE_H
#define GRANULAR_EXAMPLES_COLLAPSE_SCENE_H

#include <granular/granular.h>

#include "fidelity_scenes.h"

/// The scene. The grains are one lattice fill of the column, the same for every solver: grains
/// of radius h / 4 touching on a cubic lattice (8 a continuum cell). At the continuum's default
/// packing 0.6 that is 0.87 of its packed density (a fill cannot overlap grains to reach 1).
typedef struct collapse_def {
    gr_solver_kind solver;
    unsigned workers;
    double cell;       ///< continuum grid cell h [m] (the grains' spacing is h / 2: 8 a cell)
    double half_width; ///< the column's half width [m] (x and z)
    double height;     ///< the column's height [m]
    double cx;         ///< the column's axis is at (cx, 0) in x, z
    double mu;         ///< the grains' and floor's friction (material `friction`); PBD: kinetic mu
    int preset;        ///< > 0: the grains' and floor's material is this gr_material_preset (mu unused)
    /// Grains of radius h / 4 / (1 + gap) on the lattice of spacing h / 2, each moved at random by
    /// up to half the gap (the fill's jitter): 0 (default) a perfect lattice, which the particle
    /// solvers' friction holds up as a standing column; give them some.
    double gap;
} collapse_def;

/// Defaults: continuum, 1 worker, h = 1 cm, a 6 x 6 x 12 cm column at x = 0, mu 0.5.
collapse_def collapse_default(void);

/// A running scene.
typedef struct collapse_scene {
    collapse_def def;
    gr_world *w;
    uint32_t grains;
    double time;          ///< simulated [s]
    double grain_radius;  ///< of the fill [m]
    fid_grains g;         ///< the last measurement's read
    fid_energy_track energy; ///< followed by collapse_measure
} collapse_scene;

/// Build the world, the floor (a static plane) and the column. Returns GR_OK or the failing
/// call's status (then nothing is left to free).
gr_status collapse_create(const collapse_def *def, collapse_scene *s);
/// Step by dt (one gr_step), then read the grains and follow the energy.
gr_status collapse_step(collapse_scene *s, double dt);
void collapse_destroy(collapse_scene *s);

/// What the pile looks like (from the last collapse_step's read).
typedef struct collapse_pile {
    double foot;       ///< radius around the axis holding 98 % of the grains [m]
    double height;     ///< highest grain top near the axis [m]
    double angle;      ///< repose angle fitted on the flank [deg] (fid_repose_angle), NAN if too flat
    double angle_hr;   ///< atan(height / foot) [deg]
    int rings;         ///< rings in the angle's fit
    double mean_speed; ///< [m/s]
    double max_speed;  ///< [m/s]
} collapse_pile;
/// `bin`: ring width for the angle [m] (0: the fill's spacing).
void collapse_measure(const collapse_scene *s, double bin, collapse_pile *out);

/// Mean height of the grains [m] (for a flow profile).
double collapse_mean_height(const collapse_scene *s);

#endif /* GRANULAR_EXAMPLES_COLLAPSE_SCENE_H */
