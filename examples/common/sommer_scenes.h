/* SPDX-License-Identifier: MIT */
/* Sommer & Schwanecke's four scenes for the PBD solver (sandcastle, excavator, hourglass,
 * squirrel), shared by the examples (small, checked) and bench/sommer (the paper's counts).
 * Y is up; the floor is y = 0. Not part of the library. */
#ifndef GRANULAR_EXAMPLES_SOMMER_SCENES_H
#define GRANULAR_EXAMPLES_SOMMER_SCENES_H

#include <granular/granular.h>

/// A triangle mesh owned by the caller (ex_mesh_free).
typedef struct ex_mesh {
    gr_vec3 *v;
    uint32_t *idx;
    uint32_t nv, nt;
} ex_mesh;
void ex_mesh_free(ex_mesh *m);
/// Volume enclosed by a closed outward-wound mesh.
double ex_mesh_volume(const ex_mesh *m);

/// A sand castle as one closed surface: a heightfield over a square footprint of side `size`
/// centred at (cx, 0, cz) (a platform, walls with battlements, four towers, a keep with a
/// pyramid roof), closed by vertical sides and a flat bottom at y = 0. `cells` per side.
int castle_mesh(double size, double cx, double cz, int cells, ex_mesh *out);
/// A bucket: an open-top box with walls `wall` thick, outer half extents h, centred at the
/// origin (the opening faces +y).
int bucket_mesh(gr_vec3 h, double wall, ex_mesh *out);
/// A closed cylinder around the y axis from y0 to y1 (`around` segments).
int cylinder_mesh(double r, double y0, double y1, int around, ex_mesh *out);
/// A squirrel-like blob: an ellipsoid body with a head and a tail bump, about `length` long
/// along x, centred at the origin (a refined octahedron pushed out radially).
int squirrel_mesh(double length, ex_mesh *out);

typedef enum sommer_kind {
    SOMMER_SANDCASTLE,
    SOMMER_EXCAVATOR,
    SOMMER_HOURGLASS,
    SOMMER_SQUIRREL
} sommer_kind;

/// Scene parameters. Counts are targets: the fill decides the exact number.
typedef struct sommer_def {
    sommer_kind kind;
    double r_lr;        ///< grain radius [m]
    double r_hr;        ///< upsampling radius [m], 0 = off
    uint32_t lr_target; ///< about this many grains
    unsigned workers;
    int quiet;
} sommer_def;

/// The paper's counts and radii (Table 1 and sec. 6).
sommer_def sommer_paper_def(sommer_kind kind);
const char *sommer_name(sommer_kind kind);
/// Name -> kind; -1 if unknown.
int sommer_kind_from_name(const char *name);

typedef struct sommer_scene {
    sommer_def def;
    gr_world *w;
    gr_body floor, container, bucket, glass, squirrel;
    /// the sand and every body's material: PBD friction 0.6 / 0.5 given explicitly, the
    /// coefficients the scenes were built and measured with (bench/results-sommer.md)
    gr_material sand;
    double t;            ///< scene time [s]
    double size;         ///< castle footprint / bed width [m]
    double bucket_angle; ///< current bucket tilt about z [rad]
    gr_vec3 bucket_half; ///< bucket outer half extents
    double bucket_wall;
    double neck_y;       ///< hourglass neck height
    double throw_time;   ///< squirrel: when it is thrown [s]
    gr_vec3 throw_velocity;
    ex_mesh squirrel_shape;
} sommer_scene;

/// Build the scene (world, bodies, grains). Returns GR_OK or the failing call's status.
gr_status sommer_create(const sommer_def *def, sommer_scene *s);
/// Drive the scene's scripted motion and step it by dt (the excavator's bucket path, the
/// squirrel's throw).
gr_status sommer_step(sommer_scene *s, double dt);
void sommer_destroy(sommer_scene *s);
/// For the examples: the scene of `kind` with about `grains` grains of radius r_lr, points of
/// r_hr, on `workers` threads. Exits with the library's message if it cannot be built.
void sommer_open_example(sommer_kind kind, unsigned grains, double r_lr, double r_hr, unsigned workers,
                         sommer_scene *s);

/// Excavator bucket phases (scene time): digging until SOMMER_LIFTED, lifted and held until
/// SOMMER_POUR, poured after SOMMER_POURED.
#define SOMMER_LIFTED 3.5
#define SOMMER_POUR 5.0
#define SOMMER_POURED 6.8
#define SOMMER_EXCAVATOR_END 8.0

/// Grains inside the bucket's cavity.
uint32_t sommer_grains_in_bucket(const sommer_scene *s);

#endif
