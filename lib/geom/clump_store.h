/* SPDX-License-Identifier: MIT */
/* Clump templates: rigid grains made of overlapping spheres (Bell 2005, section 3.1). A
 * template is stored normalised: centre of mass at the origin, axes along the principal axes
 * of inertia, bounding radius 1. A grain scales it by its radius. */
#ifndef GR_GEOM_CLUMP_STORE_H
#define GR_GEOM_CLUMP_STORE_H

#include "../core/alloc.h"

/// Built-in templates, at these indices of every world's store.
enum { GR_CLUMP_TETRAHEDRON = 0, GR_CLUMP_CUBE = 1, GR_CLUMP_PAIR = 2, GR_CLUMP_BUILTIN_COUNT = 3 };

/// Most spheres in one clump template.
#define GR_MAX_CLUMP_SPHERES 4096u

typedef struct gr_clump_template {
    uint32_t first;       ///< first sphere in the store's arrays
    uint32_t count;       ///< spheres
    double unit_volume;   ///< volume at bounding radius 1 (overlaps counted once)
    gr_vec3 unit_inertia; ///< principal moments at bounding radius 1 and density 1
    double min_radius;    ///< smallest sphere radius at bounding radius 1
    gr_quat principal;    ///< the principal axes in the caller's frame (grain orientations are of that frame)
} gr_clump_template;

typedef struct gr_clump_store {
    uint32_t count, cap;
    gr_clump_template *templates;
    uint32_t sphere_count, sphere_cap;
    gr_vec3 *offsets; ///< normalised sphere centres in the principal frame
    double *radii;    ///< normalised sphere radii
} gr_clump_store;

void gr_clump_store_init(gr_clump_store *s);
void gr_clump_store_free(gr_clump_store *s, gr_mem *mem);
/// Add the built-in templates (tetrahedron, cube, pair). False on out of memory.
bool gr_clump_store_add_builtins(gr_clump_store *s, gr_mem *mem);
/// Add a template from (validated) sphere centres and radii in any frame and units.
/// GR_ERROR_OUT_OF_MEMORY leaves the store unchanged.
gr_status gr_clump_store_add(gr_clump_store *s, gr_mem *mem, const gr_vec3 *centres, const double *radii,
                             uint32_t count);

#endif /* GR_GEOM_CLUMP_STORE_H */
