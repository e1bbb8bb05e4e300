/* SPDX-License-Identifier: MIT */
/* The one vector abstraction of the kernels (GCC/Clang vector extensions). GR_VEC(T, N) is N
 * lanes of T; a kernel template names its vector types with it (names of its own: the
 * templates of every kernel family share one translation unit per instruction set). Every
 * operation on the lanes is elementwise IEEE and the library builds with -ffp-contract=off,
 * so a kernel gives the same bits at any width and with any instruction set. */
#ifndef GR_SIMD_VEC_H
#define GR_SIMD_VEC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/// N lanes of T.
#define GR_VEC(T, N) T __attribute__((vector_size(sizeof(T) * (N))))
/// A vector from memory holding its lanes (any alignment), and back.
#define GR_VLOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define GR_VSTORE(p, v) memcpy((p), &(v), sizeof(v))
/// m ? a : b, lane by lane, for vectors of type VT with integer lanes MT of the same width
/// (m from a comparison: all bits set or none).
#define GR_VSELECT(VT, MT, m, a, b) ((VT)(((MT)(a) & (m)) | ((MT)(b) & ~(m))))

#endif /* GR_SIMD_VEC_H */
