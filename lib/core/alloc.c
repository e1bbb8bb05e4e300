/* SPDX-License-Identifier: MIT */
#include "alloc.h"

#include <stdlib.h>

static void *default_alloc(size_t size, size_t align, void *user)
{
    (void)user;
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded);
}

static void default_free(void *ptr, size_t size, void *user)
{
    (void)size;
    (void)user;
    free(ptr);
}

void gr_mem_init(gr_mem *mem, const gr_allocator *hooks)
{
    memset(mem, 0, sizeof *mem);
    if (hooks && hooks->alloc && hooks->free) {
        mem->hooks = *hooks;
    } else {
        mem->hooks.alloc = default_alloc;
        mem->hooks.free = default_free;
        mem->hooks.user = NULL;
    }
}

void *gr_mem_alloc(gr_mem *mem, size_t size)
{
    if (size == 0)
        return NULL;
    void *p = mem->hooks.alloc(size, GR_MEM_ALIGN, mem->hooks.user);
    if (!p)
        return NULL;
    mem->in_use += size;
    mem->count += 1;
    if (mem->in_use > mem->peak)
        mem->peak = mem->in_use;
    return p;
}

void *gr_mem_calloc(gr_mem *mem, size_t size)
{
    void *p = gr_mem_alloc(mem, size);
    if (p)
        memset(p, 0, size);
    return p;
}

void gr_mem_free(gr_mem *mem, void *ptr, size_t size)
{
    if (!ptr)
        return;
    mem->hooks.free(ptr, size, mem->hooks.user);
    mem->in_use -= size;
}

bool gr_mem_grow_arrays(gr_mem *mem, const gr_array_ref *arrays, size_t n, uint32_t old_cap,
                        uint32_t new_cap, uint32_t keep)
{
    void *fresh[64];
    if (n > GR_COUNTOF(fresh))
        return false;
    for (size_t i = 0; i < n; i++) {
        fresh[i] = gr_mem_alloc(mem, arrays[i].elem_size * (size_t)new_cap);
        if (!fresh[i]) {
            for (size_t k = 0; k < i; k++)
                gr_mem_free(mem, fresh[k], arrays[k].elem_size * (size_t)new_cap);
            return false;
        }
    }
    for (size_t i = 0; i < n; i++) {
        void *old = *arrays[i].ptr;
        if (old && keep)
            memcpy(fresh[i], old, arrays[i].elem_size * (size_t)keep);
        gr_mem_free(mem, old, arrays[i].elem_size * (size_t)old_cap);
        *arrays[i].ptr = fresh[i];
    }
    return true;
}

void gr_mem_free_arrays(gr_mem *mem, const gr_array_ref *arrays, size_t n, uint32_t cap)
{
    for (size_t i = 0; i < n; i++) {
        gr_mem_free(mem, *arrays[i].ptr, arrays[i].elem_size * (size_t)cap);
        *arrays[i].ptr = NULL;
    }
}

uint32_t gr_grow_capacity(uint32_t old_cap, uint32_t need)
{
    uint64_t cap = (uint64_t)old_cap + old_cap / 2;
    if (cap < need)
        cap = need;
    if (cap < 16)
        cap = 16;
    if (cap > UINT32_MAX - 64)
        cap = UINT32_MAX - 64;
    return (uint32_t)cap;
}
