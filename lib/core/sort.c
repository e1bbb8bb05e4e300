/* SPDX-License-Identifier: MIT */
/* Bottom-up merge sort: insertion-sorted runs of RUN elements, then merges of doubling width
 * between base and scratch. O(n log n) compares, stable. */
#include "sort.h"

#define RUN 16u

static inline void copy_elem(unsigned char *dst, const unsigned char *src, size_t size)
{
    switch (size) { /* the common sizes as fixed copies */
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, size); break;
    }
}

static void insertion_sort(unsigned char *a, size_t n, size_t size, gr_sort_cmp *cmp, unsigned char *tmp)
{
    for (size_t i = 1; i < n; i++) {
        if (cmp(a + (i - 1) * size, a + i * size) <= 0)
            continue;
        copy_elem(tmp, a + i * size, size);
        size_t j = i;
        do {
            copy_elem(a + j * size, a + (j - 1) * size, size);
            j--;
        } while (j > 0 && cmp(a + (j - 1) * size, tmp) > 0);
        copy_elem(a + j * size, tmp, size);
    }
}

/* merge src[lo, mid) and src[mid, hi) into dst[lo, hi); ties take the left run first */
static void merge(unsigned char *dst, const unsigned char *src, size_t lo, size_t mid, size_t hi, size_t size,
                  gr_sort_cmp *cmp)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (cmp(src + j * size, src + i * size) < 0)
            copy_elem(dst + k++ * size, src + j++ * size, size);
        else
            copy_elem(dst + k++ * size, src + i++ * size, size);
    }
    if (i < mid)
        memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < hi)
        memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

void gr_sort(void *base, size_t n, size_t size, gr_sort_cmp *cmp, void *scratch)
{
    if (n < 2 || size == 0)
        return;
    unsigned char *a = (unsigned char *)base, *b = (unsigned char *)scratch;
    for (size_t lo = 0; lo < n; lo += RUN)
        insertion_sort(a + lo * size, n - lo < RUN ? n - lo : RUN, size, cmp, b);
    unsigned char *src = a, *dst = b;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            const size_t mid = lo + width < n ? lo + width : n;
            const size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge(dst, src, lo, mid, hi, size, cmp);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * size);
}
