/* SPDX-License-Identifier: MIT */
/* Shared by the examples: command line, timing, checks, pictures. Not part of the library. */
#ifndef GRANULAR_EXAMPLES_UTIL_H
#define GRANULAR_EXAMPLES_UTIL_H

#include <granular/granular.h>

typedef struct ex_args {
    const char *out_dir; ///< --out DIR: where pictures go (default ".")
    unsigned workers;    ///< --workers N (default 1)
    unsigned grains;     ///< --grains N (0: the example's default)
    int ply;             ///< --ply: also write PLY frames of the render points
    int quiet;           ///< --quiet
    int smoke;           ///< --smoke: a small run for the sanitizer build; checks are printed, not judged
} ex_args;

void ex_parse_args(int argc, char **argv, ex_args *args);
/// Monotonic seconds.
double ex_now(void);
/// A logger that prints the library's messages to stderr.
void ex_log_stderr(gr_log_level level, const char *message, void *user);
/// Record a check: prints PASS/FAIL with the formatted description; returns cond. Under --smoke
/// the scene is too small for its outcome to mean anything: a failed check prints "UNJUDGED" and
/// does not count (library errors still end the run through ex_ok, and the sanitizers judge).
int ex_check(int cond, const char *fmt, ...);
/// Number of failed checks so far (the example's exit status is nonzero if any).
int ex_failures(void);
/// Exit if a call failed, printing the world's message.
void ex_ok(gr_world *w, gr_status s, const char *what);
/// A DEM world (the command line's worker count, the stderr logger) with the dry-sand preset as
/// a material in *sand; exits on failure.
gr_world *ex_sand_world(const ex_args *args, gr_material *sand);
/// A continuum world with grid cells of `cell_size` metres (the rest of gr_continuum_def at its
/// defaults), the command line's worker count and the stderr logger; exits on failure.
gr_world *ex_continuum_world(const ex_args *args, double cell_size);

/// Render the world's render points (coloured by height) and the box [lo, hi] to a PNG
/// at out_dir/name. view_dir: from the camera towards the scene (NULL = a default 3/4 view).
int ex_render_png(const gr_world *w, const ex_args *args, const char *name, const float lo[3], const float hi[3],
                  const float view_dir[3], const float up[3]);
/// Extra spheres to draw with the grains (bodies' particles, sampled walls), in one colour.
typedef struct ex_points {
    float *xyzr;       ///< x, y, z, radius per sphere (owned: ex_points_free)
    uint32_t count;
    unsigned char rgb[3];
} ex_points;
/// A particle-covered body's surface particles, in `rgb`. Returns 0 on success.
int ex_body_points(const gr_world *w, gr_body body, const unsigned char rgb[3], ex_points *out);
void ex_points_free(ex_points *p);
/// ex_render_png with extra sphere sets drawn in their colours.
int ex_render_png_with(const gr_world *w, const ex_args *args, const char *name, const float lo[3], const float hi[3],
                       const float view_dir[3], const float up[3], const ex_points *extra, int extra_count);
/// Write the render points as an ASCII PLY point cloud (x y z radius) to out_dir/name.
int ex_write_ply(const gr_world *w, const ex_args *args, const char *name);

/// Simple statistics over all grains.
typedef struct ex_stats {
    double max_speed;
    double kinetic_energy;
    double min[3], max[3]; ///< bounding box of the grain centres
    double mean[3];
    double momentum[3]; ///< sum of m v
} ex_stats;
void ex_grain_stats(const gr_world *w, ex_stats *out);
/// Positions (x, y, z per grain) of all grains in a new malloc'd array (free it).
double *ex_grain_positions(const gr_world *w);
/// Largest distance between matching rows of two position arrays of n grains.
double ex_max_displacement(const double *x0, const double *x1, uint32_t n);

#endif /* GRANULAR_EXAMPLES_UTIL_H */
