/* SPDX-License-Identifier: MIT */
/* Minimal PNG encoder for the examples: 8-bit RGB, no compression, no dependencies.
 *
 * The zlib stream inside IDAT is made of stored (uncompressed) deflate blocks, so files are
 * about width*height*3 bytes: fine for example pictures, and any PNG reader accepts them.
 * No global mutable state: safe to call from several threads at once.
 */
#ifndef GRANULAR_EXAMPLES_PNG_WRITE_H
#define GRANULAR_EXAMPLES_PNG_WRITE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Largest width or height accepted by the encoder (keeps every size computation in range).
#define PNG_WRITE_MAX_DIM 16384

/// Encode an RGB image (3 bytes per pixel, rows top to bottom, no padding) as a PNG file in
/// memory. On success *out is a malloc'd buffer the caller releases with free() and *out_size
/// its length; returns 0. Returns -1 (and leaves *out, *out_size untouched) on NULL arguments,
/// width or height outside [1, PNG_WRITE_MAX_DIM], or out of memory.
int png_encode_rgb(int width, int height, const unsigned char *rgb, unsigned char **out,
                   size_t *out_size);

/// Encode like png_encode_rgb and write the file at `path`. Returns 0 on success, -1 on bad
/// arguments, out of memory or an I/O error (a partial file may remain on I/O error).
int png_write_rgb(const char *path, int width, int height, const unsigned char *rgb);

#ifdef __cplusplus
}
#endif

#endif /* GRANULAR_EXAMPLES_PNG_WRITE_H */
