/* SPDX-License-Identifier: MIT */
/* Pictures of a terrain for the examples: its heights as a shaded relief seen from above
 * (x to the right, z down), the grains over it as dots. Not part of the library. */
#ifndef GRANULAR_EXAMPLES_TERRAIN_IMAGE_H
#define GRANULAR_EXAMPLES_TERRAIN_IMAGE_H

#include <granular/granular.h>

#include "example_util.h"

/// An RGB picture being drawn.
typedef struct ex_canvas {
    int width, height;
    unsigned char *rgb; ///< width x height x 3 (owned: ex_canvas_free)
} ex_canvas;

int ex_canvas_init(ex_canvas *c, int width, int height);
void ex_canvas_free(ex_canvas *c);
/// Draw terrain `system` at (x0, y0), `scale` pixels per column, in `tint` (lit from the
/// north-west, darker where lower than `ref_height`); grains of the world as dots over it.
void ex_canvas_terrain(ex_canvas *c, const gr_world *w, uint32_t system, int x0, int y0, int scale,
                       const unsigned char tint[3], double ref_height, int grains);
/// Write the picture to out_dir/name (PNG); 0 on success.
int ex_canvas_save(const ex_canvas *c, const ex_args *args, const char *name);
/// One terrain alone in a picture of its own.
int ex_terrain_png(const gr_world *w, uint32_t system, const ex_args *args, const char *name, int scale,
                   double ref_height);

#endif /* GRANULAR_EXAMPLES_TERRAIN_IMAGE_H */
