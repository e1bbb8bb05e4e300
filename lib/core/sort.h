/* SPDX-License-Identifier: MIT */
/* The library's one sort: stable, and it never allocates (libc's qsort may call malloc on
 * the library's behalf; every allocation goes through the world's allocator). */
#ifndef GR_CORE_SORT_H
#define GR_CORE_SORT_H

#include "common.h"

typedef int gr_sort_cmp(const void *a, const void *b);

/// Sort n elements of `size` bytes in place by cmp (qsort's contract). Stable: equal elements
/// keep their order, as glibc's qsort (a merge sort) kept it. `scratch` holds n * size bytes.
void gr_sort(void *base, size_t n, size_t size, gr_sort_cmp *cmp, void *scratch);

#endif /* GR_CORE_SORT_H */
