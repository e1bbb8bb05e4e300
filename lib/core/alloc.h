/* SPDX-License-Identifier: MIT */
/* The world's allocator: every byte the library holds goes through here (counted). */
#ifndef GR_CORE_ALLOC_H
#define GR_CORE_ALLOC_H

#include "common.h"

/// Alignment of every block: a cache line, enough for any SIMD width we use.
#define GR_MEM_ALIGN 64u

typedef struct gr_mem {
    gr_allocator hooks;
    uint64_t in_use;
    uint64_t peak;
    uint64_t count; ///< successful allocations so far
} gr_mem;

void gr_mem_init(gr_mem *mem, const gr_allocator *hooks);
/// NULL on failure (or size 0). Never logs: callers report OOM in their own words.
void *gr_mem_alloc(gr_mem *mem, size_t size);
void *gr_mem_calloc(gr_mem *mem, size_t size);
void gr_mem_free(gr_mem *mem, void *ptr, size_t size);

/// One array of a structure-of-arrays group, for gr_mem_grow_arrays.
typedef struct gr_array_ref {
    void **ptr;
    size_t elem_size;
} gr_array_ref;

/// Reallocate every array of a group from old_cap to new_cap elements, copying the first
/// `keep` elements. All or nothing: on failure every array is as it was and false is returned.
bool gr_mem_grow_arrays(gr_mem *mem, const gr_array_ref *arrays, size_t n, uint32_t old_cap,
                        uint32_t new_cap, uint32_t keep);
/// Free every array of a group of capacity cap and set the pointers to NULL.
void gr_mem_free_arrays(gr_mem *mem, const gr_array_ref *arrays, size_t n, uint32_t cap);

/// Capacity growth policy: at least `need`, at least 1.5x the old capacity, at least 16.
uint32_t gr_grow_capacity(uint32_t old_cap, uint32_t need);

#endif /* GR_CORE_ALLOC_H */
