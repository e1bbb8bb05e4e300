/* SPDX-License-Identifier: MIT */
/* Software sphere renderer for pictures of simulations (no GPU, no dependencies but libm).
 *
 * Spheres are drawn as ray-traced impostors: every pixel of a sphere's screen-space bounding
 * rectangle is intersected with the exact sphere, giving per-pixel depth and normal, a depth
 * test against a float z-buffer, and Lambert + ambient shading. The light is fixed relative to
 * the camera (from the upper left, slightly behind the viewer), so every view is lit alike.
 * 3D line segments (container edges, axes) are depth-tested against the same buffer.
 *
 * Camera space: x to the right, y up, z along the view direction. The depth buffer holds z
 * (distance along the view direction) for both perspective and orthographic cameras.
 * No global mutable state: distinct images can be drawn from different threads.
 */
#ifndef GRANULAR_EXAMPLES_SPLAT_H
#define GRANULAR_EXAMPLES_SPLAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Largest width or height of an image (the PNG encoder's limit).
#define SPLAT_MAX_DIM 16384

/// A look-at camera. Set every field; splat_camera_frame can fill eye/target/up for you.
typedef struct splat_camera {
    float eye[3];            ///< camera position (world units)
    float target[3];         ///< point at the centre of the picture; must differ from eye
    float up[3];             ///< rough up direction; need not be orthogonal to the view (a
                             ///< world axis is substituted if it is parallel to it)
    float fov_y_deg;         ///< perspective: vertical field of view in degrees, in (0, 180)
    int ortho;               ///< nonzero: orthographic projection along eye -> target
    float ortho_half_height; ///< orthographic: half the picture's height in world units, > 0
} splat_camera;

/// A picture being drawn: colour and depth buffers, owned by the image.
typedef struct splat_image {
    int width, height;  ///< pixels
    unsigned char *rgb; ///< width*height*3 bytes, rows top to bottom, no padding
    float *depth;       ///< width*height camera-space depths; INFINITY where nothing is drawn
} splat_image;

/// Allocate an image of width x height pixels (each in [1, SPLAT_MAX_DIM]) filled with the
/// background colour `bg` (NULL = black) and an empty depth buffer. Returns 0 on success; on
/// bad arguments or out of memory returns -1 with *img zeroed (splat_free is still safe).
int splat_init(splat_image *img, int width, int height, const unsigned char bg[3]);

/// Refill an image with the background colour `bg` (NULL = black) and empty its depth buffer,
/// to draw the next frame without reallocating. Does nothing on an empty or NULL image.
void splat_clear(splat_image *img, const unsigned char bg[3]);

/// Release an image's buffers and zero it. NULL and already-freed images are fine.
void splat_free(splat_image *img);

/// Draw `count` spheres. Sphere i is 4 floats (x, y, z, radius) at byte offset
/// i*stride_bytes from `xyzr` (stride_bytes 0 = 16), the format of gr_read_render_points.
/// Its colour is the 3 bytes at i*rgb_stride_bytes from `rgb_per_sphere` (rgb_stride_bytes
/// 0 = 3), or `colour` for all spheres when rgb_per_sphere is NULL (colour NULL = light grey).
/// Skipped: spheres with a non-finite value or radius <= 0, off-screen spheres, and with a
/// perspective camera spheres not entirely in front of the eye (a near plane through it);
/// with an orthographic camera the part behind the eye plane is clipped.
/// Returns 0, or -1 (nothing drawn) on a NULL/empty image or an invalid camera.
int splat_spheres(splat_image *img, const splat_camera *cam, const float *xyzr,
                  size_t stride_bytes, size_t count, const unsigned char *rgb_per_sphere,
                  size_t rgb_stride_bytes, const unsigned char colour[3]);

/// Draw the 3D segment a-b one pixel wide in `colour` (NULL = white), depth-tested against
/// and written to the depth buffer; clipped to the picture and to the eye plane.
/// Returns 0, or -1 (nothing drawn) on NULL arguments or an invalid camera.
int splat_line(splat_image *img, const splat_camera *cam, const float a[3], const float b[3],
               const unsigned char colour[3]);

/// Draw the 12 edges of the axis-aligned box [lo, hi] with splat_line. Returns 0 or -1.
int splat_box(splat_image *img, const splat_camera *cam, const float lo[3], const float hi[3],
              const unsigned char colour[3]);

/// Write the picture as a PNG file (png_write_rgb). Returns 0 on success, -1 otherwise.
int splat_save_png(const splat_image *img, const char *path);

/// Aim `cam` at the box [lo, hi] so the whole box is in view: sets eye, target (the box
/// centre) and up, plus ortho_half_height when cam->ortho is set. The eye looks along
/// `view_dir` (NULL = from the front-right, above: (-0.5, -0.45, -1)); `up` NULL = +y.
/// Reads cam->ortho and cam->fov_y_deg (an invalid fov is replaced by 40 degrees). The box's
/// bounding sphere fits the vertical field of view, hence the whole picture when it is at
/// least as wide as high. Does nothing if cam, lo or hi is NULL.
void splat_camera_frame(splat_camera *cam, const float lo[3], const float hi[3],
                        const float view_dir[3], const float up[3]);

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_EXAMPLES_SPLAT_H */
