/* SPDX-License-Identifier: MIT */
/* Fidelity scenes (issue 20): the same geometry and material run on either solver, with the
 * measurements that tell sand from a fluid or an explosion: energy, overlap, packing, heights,
 * discharge, momentum, repose angle. Shared by bench/fidelity and (later) the tests; uses the
 * public API only. Y is up, gravity (0, -9.81, 0), the floor is y = 0 unless said otherwise.
 * Not part of the library. */
#ifndef GRANULAR_EXAMPLES_FIDELITY_SCENES_H
#define GRANULAR_EXAMPLES_FIDELITY_SCENES_H

#include <granular/granular.h>

/* ---- common parameters ---------------------------------------------------------------- */

/// What every scene shares: solver, threads, grain and material, frame length.
typedef struct fid_params {
    gr_solver_kind solver; ///< GR_SOLVER_DEM, GR_SOLVER_PBD or GR_SOLVER_CONTINUUM
    unsigned workers;      ///< gr_world_def.worker_count
    double radius;         ///< grain radius [m], default 0.01 (2 cm grains)
    double density;        ///< [kg/m^3], default: the library's material default (2500)
    double mu;             ///< DEM friction and PBD kinetic friction, default 0.5
    /// PBD static friction; 0 (default): mu x the library's default static/kinetic ratio
    /// (0.6 / 0.5), i.e. the library's own 0.6 at mu = 0.5.
    double mu_s;
    double restitution;    ///< default 0.5
    double mu_r;           ///< the material's rolling_friction, default 0
    double frame;          ///< frame length [s] given to gr_step, default 1/60
    int verbose;           ///< > 0: per-frame lines on stderr every `verbose` frames
    /// > 0: the grains' material is this gr_material_preset (mu, mu_s and restitution unused)
    int preset;
    /// 1: what a new user gets (issue 37): the world at its solver's default defs (no DEM
    /// rolling law forced) and the grains' material a plain user material: the preset alone, or
    /// gr_material_def_init with friction = mu (and density if given); every solver-specific
    /// coefficient (PBD static/kinetic, continuum_friction) left GR_MATERIAL_DERIVED, and mu_s,
    /// mu_r and restitution unused. 0 (default): the fidelity benches' own setup (DEM with a
    /// preset at rolling law EPSD; mu sets PBD's kinetic and mu_s its static friction).
    int user_defaults;
    /// user_defaults: > 0 sets the grains' continuum_friction (alpha) to this (a calibration
    /// of the continuum's map, not a user's material); 0: derived
    double cont_alpha;
    /// fid_run_heap: seconds of settling after the pour (> 1; 0: the default 2 s)
    double heap_settle;
} fid_params;

/// Defaults for a solver (DEM keeps its automatic substep, PBD its defaults).
fid_params fid_default_params(gr_solver_kind solver, unsigned workers);
/// "sand", "gravel", "glass" -> the preset (0 for an unknown name), and back.
int fid_preset_from_name(const char *name);
const char *fid_preset_name(int preset);
/// "dem", "pbd", "continuum".
const char *fid_solver_name(gr_solver_kind solver);

/// A world for the scene: gravity (0, -9.81, 0), bounds [lo, hi] (grains outside are removed;
/// lo == hi: unbounded), gravity scaled by `gravity_scale` (0 for the free cluster), and the
/// grains' material from p. Returns GR_OK or the failing call's status (the world destroyed).
gr_status fid_world_create(const fid_params *p, gr_vec3 lo, gr_vec3 hi, double gravity_scale, gr_world **w,
                           gr_material *grain_material);

/* ---- grain snapshots and measurements -------------------------------------------------- */

/// All grains of a world at one instant (SoA of doubles, owned: fid_grains_free).
typedef struct fid_grains {
    uint32_t n, cap;
    double *x;      ///< positions, 3 per grain
    double *v;      ///< velocities, 3 per grain
    double *w;      ///< angular velocities, 3 per grain
    double *m;      ///< masses
    double *r;      ///< radii
} fid_grains;

/// Read every grain (reuses g's buffers). Returns GR_OK or the read's status.
gr_status fid_grains_read(const gr_world *w, fid_grains *g);
void fid_grains_free(fid_grains *g);

/// Energy of the grains: kinetic (translational, and rotational as solid spheres 2/5 m r^2)
/// plus potential -m g.x against the origin. Gravity g as given.
typedef struct fid_energy {
    double kinetic;
    double potential;
    double total;
} fid_energy;
fid_energy fid_energy_of(const fid_grains *g, gr_vec3 gravity);

/// Sum of m |g| 2r over the grains: the scale of energy "rises" (a rise of 1 is every grain
/// lifted by one diameter).
double fid_energy_scale(const fid_grains *g, gr_vec3 gravity);

/// Follows E = kinetic + potential frame by frame.
typedef struct fid_energy_track {
    int frames;
    double first, last, max, min;
    double rise_max;    ///< largest E(frame) - E(frame - 1) [J]
    double rise_time;   ///< when it happened [s]
    double kinetic_max; ///< largest kinetic energy [J]
    double kinetic_first;
    double kinetic_rise_max; ///< largest rise of the kinetic energy alone between frames [J]
    double kinetic_prev_;    ///< (the last frame's, internal)
} fid_energy_track;
void fid_energy_track_add(fid_energy_track *t, fid_energy e, double time);

/// Fastest grain [m/s].
double fid_max_speed(const fid_grains *g);
/// Total linear momentum sum m v, and sum m |v| (its scale).
void fid_momentum(const fid_grains *g, double p[3], double *abs_sum);

/// Grain-grain overlaps found from positions (a cell grid of the largest diameter): pairs with
/// |x_i - x_j| < r_i + r_j; overlap as a fraction of the pair's mean diameter r_i + r_j.
typedef struct fid_overlap {
    uint64_t contacts;  ///< touching pairs
    double mean;        ///< mean overlap / (r_i + r_j) over touching pairs
    double max;         ///< largest
    double p99;         ///< 99th percentile
    double coordination; ///< 2 contacts / grains
} fid_overlap;
/// Returns 0, or -1 when out of memory.
int fid_overlap_stats(const fid_grains *g, fid_overlap *out);

/// Packing fraction of the region [lo, hi]: volume of the spheres inside it over its volume.
/// Spheres are clipped exactly by the planes y = lo.y and y = hi.y; in x and z a sphere counts
/// whole when its centre is inside (give the container's inner walls there).
double fid_packing_fraction(const fid_grains *g, gr_vec3 lo, gr_vec3 hi);

/// Height of the top surface: mean of y + r over the `n_top` highest grains (about one layer).
double fid_top_height(const fid_grains *g, uint32_t n_top);
/// Grains whose centre lies outside [lo, hi].
uint32_t fid_count_outside(const fid_grains *g, gr_vec3 lo, gr_vec3 hi);
/// Largest distance between the same grains in two position arrays (n grains, 3 doubles each).
double fid_max_displacement(const double *x0, const double *x1, uint32_t n);

/// Repose angle of a heap around the vertical axis through (cx, cz): the surface height per
/// ring of width `bin` (the highest y + r in the ring) fitted with a line between 20 % and 80 %
/// of the peak height (angle_fit), and atan(height / foot radius) (angle_hr; foot: the radius
/// holding 98 % of the grains). Degrees.
typedef struct fid_heap {
    double height;     ///< peak surface height [m]
    double foot;       ///< foot radius [m]
    double angle_fit;  ///< [deg], NAN if fewer than 3 rings in the band
    double angle_hr;   ///< [deg]
    int rings;         ///< rings in the fit
} fid_heap;
int fid_repose_angle(const fid_grains *g, double cx, double cz, double bin, fid_heap *out);

/// Discharge counter: the cumulative count of grains that passed below a level, sampled per
/// frame, and rates fitted over windows.
typedef struct fid_discharge {
    uint32_t n, cap;
    double *t;      ///< time of each sample [s]
    double *count;  ///< grains below the level (or removed) by then
    double *fill;   ///< fill height above the floor at that time [m] (the caller's measure)
} fid_discharge;
int fid_discharge_add(fid_discharge *d, double t, double count, double fill);
/// Least-squares slope of count over t [grains/s] for the samples with t in [t0, t1] and fill
/// in [fill_lo, fill_hi]; 0 if fewer than 3 such samples (*samples, may be NULL, gets them).
double fid_discharge_rate(const fid_discharge *d, double t0, double t1, double fill_lo, double fill_hi,
                          int *samples);
void fid_discharge_free(fid_discharge *d);

/* ---- scenes ---------------------------------------------------------------------------- */

/// Column: a 10 x 4 diameter box (container, open top, walls 1.25 H + 10 diameters tall) holding
/// the grains of a lattice fill (gr_fill_box, default spacing 2.2 r) up to H diameters: filled at
/// once (pour = 0) or poured (pour = 1: the same lattice layer by layer, one every 4 frames,
/// 2 d above the highest grain at 1 m/s down), then left to settle for 3 + H / 50 s. The
/// energy, heights and speeds are followed from the release (the pour's end).
typedef struct fid_column_result {
    uint32_t grains;
    double pour_seconds;    ///< simulated time of the pour (0 for the lattice fill)
    double fill_height_d;   ///< top surface at release / d
    double height_d;        ///< final top surface / d
    double height_min_d;    ///< lowest top surface during the run / d
    double height_max_late_d; ///< highest top surface after the first second / d (bounce)
    double packing;         ///< bulk packing fraction at the end (slab 10 % to 80 % of height)
    fid_overlap overlap;    ///< at the end
    fid_energy_track energy;
    double e_rise_rel;      ///< energy.rise_max / (sum m g d)
    double vmax;            ///< fastest grain over the run [m/s]
    double v_free_fall;     ///< sqrt(2 g H d): the fastest a grain could fall [m/s]
    uint32_t left_box;      ///< grains outside the box (or removed) at the end
    uint32_t left_box_max;  ///< most outside at any frame
    double still_disp_d;    ///< largest displacement over the last second / d
    double seconds;         ///< simulated
    double ms_per_frame;
    double substeps_per_frame;
} fid_column_result;
gr_status fid_run_column(const fid_params *p, unsigned height_d, int pour, fid_column_result *out);

/// Silo: square section `width_d` diameters wide (container open at top and bottom), a floor of
/// four static boxes around a square orifice of `orifice_d` diameters, closed by a gate box;
/// a lattice of `fill_w` widths (spacing 2.2 r; pour = 0: filled at once; 1: the same count
/// poured, as fid_run_column does, which packs to about 0.65 of that height), settled for 2 s,
/// then the gate is removed and the discharge runs until the fill is below 0.75 widths, the
/// flow stops for 2 s, or 60 s pass.
typedef struct fid_silo_result {
    uint32_t grains;
    double width_d, orifice_d;
    double fill0_w;          ///< settled fill height before opening / silo width
    double packing;          ///< bulk packing before opening (slab 20 % to 70 % of the fill)
    fid_overlap overlap;     ///< before opening
    double rate_hi;          ///< grains/s while fill > 2 widths (from 1 s after opening)
    double rate_lo;          ///< grains/s while 1 < fill < 2 widths (from 1 s after opening)
    double ratio;            ///< rate_hi / rate_lo (granular: about 1; a liquid: > 1)
    double rate_half1, rate_half2; ///< first and second half of the run from 0.5 s after opening
    double rate_all;         ///< grains/s over the whole run from 0.5 s after opening
    double grain_mass;       ///< [kg] of one grain (rates x this: kg/s)
    double rates[16];        ///< grains/s in successive 1 s windows from opening
    int rate_count;
    double discharged;       ///< grains out by the end
    double seconds_open;     ///< discharge time simulated
    int jammed;              ///< no grain out for 2 s while grains were left
    fid_energy_track energy; ///< during the settling before opening
    double ms_per_frame;
    double substeps_per_frame;
} fid_silo_result;
gr_status fid_run_silo(const fid_params *p, unsigned width_d, double orifice_d, double fill_w, int pour,
                       fid_silo_result *out);

/// Pile: an n x n x n lattice block (spacing 2.2 r) dropped with its bottom 0.5 m above the floor
/// of a box one diameter wider than the block on each side (2 m tall walls, open top); 4 s.
typedef struct fid_pile_result {
    uint32_t grains;
    fid_energy_track energy;
    double e_rise_rel;      ///< energy.rise_max / (sum m g d)
    fid_overlap overlap;    ///< at the end
    double rest_time;       ///< from when the fastest grain stays below 0.05 m/s [s] (-1: never)
    double vmax_end;
    double still_disp_d;    ///< largest displacement over the last second / d
    double ms_per_frame;
    double substeps_per_frame;
} fid_pile_result;
gr_status fid_run_pile(const fid_params *p, unsigned n, fid_pile_result *out);

/// Cluster: zero gravity, the sites of a cubic lattice of spacing 1 d (touching) inside a ball
/// holding about `count` grains, random velocities (components uniform in +-0.5 m/s); 2 s.
typedef struct fid_cluster_result {
    uint32_t grains;
    double p_drift;         ///< largest |P(t) - P(0)| [kg m/s]
    double p_drift_rel;     ///< over sum m |v| at the start
    double ke_first, ke_last, ke_max;
    double ke_rise_max;     ///< largest kinetic energy rise between frames [J]
    double ke_rise_rel;     ///< over the starting kinetic energy
    double ms_per_frame;
    double substeps_per_frame;
} fid_cluster_result;
gr_status fid_run_cluster(const fid_params *p, unsigned count, fid_cluster_result *out);

/// Overlapping spawn: an n x n x n lattice at 0.8 d spacing (every neighbour overlapping by
/// 20 %) in a box of n x n diameters section under gravity; 3 s.
typedef struct fid_spawn_result {
    uint32_t grains;
    fid_energy_track energy;
    double e_rise_rel;      ///< energy.max - energy.first over sum m g d
    double ke_max_per_grain_rel; ///< kinetic_max / (sum m g d): how hard the grains fly
    double vmax;            ///< fastest grain over the run [m/s]
    uint32_t left_box;      ///< outside the box (or removed) at the end
    fid_overlap overlap;    ///< at the end
    double ms_per_frame;
    double substeps_per_frame;
} fid_spawn_result;
gr_status fid_run_spawn(const fid_params *p, unsigned n, fid_spawn_result *out);

/// Heap: `count` grains poured from a disc of radius 3 d, 8 d above the heap's top, 20 per frame
/// at 1 m/s downward onto a rough floor (a static slab 1.2 m wide, top at y = 0, covered with
/// particles of the grains' radius; friction 1, static and kinetic, mixed with the grains' by
/// the library's rule), then 2 s (p->heap_settle) to settle; the repose angle fitted (fid_heap).
typedef struct fid_heap_result {
    uint32_t grains;
    fid_heap heap;
    double still_disp_d;    ///< largest displacement over the last second / d
    double still_disp_p99_d; ///< 99th percentile of the displacements over the last second / d
    uint32_t lost;          ///< grains poured but gone (left the world's bounds) by the end
    fid_energy_track energy; ///< during the settling after the pour
    double ms_per_frame;
    double substeps_per_frame;
} fid_heap_result;
gr_status fid_run_heap(const fid_params *p, unsigned count, fid_heap_result *out);

/// Planar column collapse (Lajeunesse et al. 2005, Lube et al. 2005): a channel `width_d`
/// diameters wide between two side walls (a container open at top and bottom) on a rough floor
/// (the heap's rough slab, friction 1); a dense random fill (gr_fill_box, GR_FILL_POISSON) of
/// `length_d` d along x against the end wall x = 0 and aspect x length_d / 0.8 d tall (it settles
/// to about aspect x length_d in DEM and PBD) held by a gate at x = L0, settled 1 s;
/// the gate removed, run until every grain has been slower than 2 cm/s for 0.5 s (or
/// 1.5 + 6 sqrt(H0 / g) s). The channel is long enough for 1.5 x the published runout.
typedef struct fid_collapse_result {
    uint32_t grains;
    double aspect;           ///< as asked (0.8 x the fill's height over L0)
    double aspect_settled;   ///< a = H0 / L0 with H0 the settled column's top
    double L0_d, width_d, channel_d;
    double H0_d;             ///< settled column height / d
    double front_d;          ///< deposit front (x + r with 0.5 % of the grains beyond) / d
    double front_max_d;      ///< farthest grain's x + r / d
    double H_inf_d;          ///< final height at the end wall (within 2 d) / d
    double runout;           ///< (L_inf - L0) / L0 with L_inf = the front
    double runout_fit;       ///< the published planar fit at aspect_settled: 1.2 a (a < 2.3), 1.9 a^(2/3)
    int settled;             ///< stopped (every grain < 2 cm/s for 0.5 s) before the time limit
    int hit_end;             ///< a grain reached the channel's far end
    uint32_t lost;           ///< grains removed (left the world's bounds)
    double vmax_end;
    double seconds;          ///< after the release
    double ms_per_frame;
    double substeps_per_frame;
} fid_collapse_result;
gr_status fid_run_collapse(const fid_params *p, double aspect, unsigned length_d, unsigned width_d,
                           fid_collapse_result *out);

#endif
