/* SPDX-License-Identifier: MIT */
/* Internal basics shared by every library file. Never installed. */
#ifndef GR_CORE_COMMON_H
#define GR_CORE_COMMON_H

#include <granular/granular.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GR_INVALID_INDEX UINT32_MAX
#define GR_PI 3.14159265358979323846

#if defined(__GNUC__) || defined(__clang__)
#  define GR_LIKELY(x) __builtin_expect(!!(x), 1)
#  define GR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define GR_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#  define GR_FORCE_INLINE inline __attribute__((always_inline))
#  define GR_NOINLINE __attribute__((noinline))
#else
#  define GR_LIKELY(x) (x)
#  define GR_UNLIKELY(x) (x)
#  define GR_PRINTF_LIKE(f, a)
#  define GR_FORCE_INLINE inline
#  define GR_NOINLINE
#endif

#define GR_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GR_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GR_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))
/* Ask for the cache line at p ahead of a scattered read (a hint; nothing where unsupported). */
#if defined(__GNUC__) || defined(__clang__)
#define GR_PREFETCH(p) __builtin_prefetch(p)
#else
#define GR_PREFETCH(p) ((void)(p))
#endif

/* Index of the lowest set bit of a non-zero mask. */
static inline uint32_t gr_lowest_bit(uint32_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uint32_t)__builtin_ctz(mask);
#else
    uint32_t k = 0;
    while (!(mask & 1u)) {
        mask >>= 1;
        k++;
    }
    return k;
#endif
}

#endif /* GR_CORE_COMMON_H */
