/* SPDX-License-Identifier: MIT */
#include "handles.h"

/* null, no tag or no slot: not a handle any world issues */
static bool malformed(uint64_t id) { return id == 0 || gr_handle_tag(id) == 0 || gr_handle_slot_field(id) == 0; }

gr_status gr_handle_check(uint64_t id, uint32_t tag, const uint16_t *gens, const uint8_t *alive,
                          uint32_t slot_count, uint32_t *slot)
{
    if (malformed(id))
        return GR_ERROR_INVALID_HANDLE;
    if (gr_handle_tag(id) != tag)
        return GR_ERROR_WRONG_WORLD;
    uint32_t s = gr_handle_slot(id);
    uint16_t g = gr_handle_gen(id);
    if (s >= slot_count || g == 0 || gens[s] == 0)
        return GR_ERROR_INVALID_HANDLE; /* slot never issued */
    if (gens[s] != g || !alive[s])
        return GR_ERROR_STALE_HANDLE;
    *slot = s;
    return GR_OK;
}

gr_status gr_handle_check_permanent(uint64_t id, uint32_t tag, uint32_t first, uint32_t count, uint32_t *slot)
{
    if (malformed(id))
        return GR_ERROR_INVALID_HANDLE;
    if (gr_handle_tag(id) != tag)
        return GR_ERROR_WRONG_WORLD;
    uint32_t s = gr_handle_slot(id);
    if (s < first || s >= count || gr_handle_gen(id) != 1)
        return GR_ERROR_INVALID_HANDLE;
    *slot = s;
    return GR_OK;
}

void gr_grain_table_init(gr_grain_table *t)
{
    memset(t, 0, sizeof *t);
    t->free_head = GR_INVALID_INDEX;
}

static void table_arrays(gr_grain_table *t, gr_array_ref out[6])
{
    out[0] = (gr_array_ref){(void **)&t->gen, sizeof(uint16_t)};
    out[1] = (gr_array_ref){(void **)&t->alive, sizeof(uint8_t)};
    out[2] = (gr_array_ref){(void **)&t->dense, sizeof(uint32_t)};
    out[3] = (gr_array_ref){(void **)&t->pos, sizeof(uint32_t)};
    out[4] = (gr_array_ref){(void **)&t->list, sizeof(uint32_t)};
    out[5] = (gr_array_ref){(void **)&t->system, sizeof(uint8_t)};
}

void gr_grain_table_free(gr_grain_table *t, gr_mem *mem)
{
    gr_array_ref arrays[6];
    table_arrays(t, arrays);
    gr_mem_free_arrays(mem, arrays, 6, t->cap);
    gr_grain_table_init(t);
}

bool gr_grain_table_reserve(gr_grain_table *t, gr_mem *mem, uint32_t more)
{
    /* Retired slots count against the limit: slot_count never passes GR_MAX_GRAINS, so every
     * slot fits a handle's slot field. */
    uint64_t need = (uint64_t)t->count + t->retired + more;
    if (need > GR_MAX_GRAINS)
        return false;
    /* Free slots below slot_count are reused first; only growth past them needs room. */
    uint64_t need_slots = (uint64_t)t->slot_count + more; /* worst case: no reuse */
    if (need_slots <= t->cap)
        return true;
    uint32_t new_cap = gr_grow_capacity(t->cap, (uint32_t)need_slots);
    gr_array_ref arrays[6];
    table_arrays(t, arrays);
    if (!gr_mem_grow_arrays(mem, arrays, 6, t->cap, new_cap, t->slot_count))
        return false;
    t->cap = new_cap;
    return true;
}

uint32_t gr_grain_table_take(gr_grain_table *t, uint32_t system)
{
    uint32_t s;
    if (t->free_head != GR_INVALID_INDEX) {
        s = t->free_head;
        t->free_head = t->pos[s];
        /* its generation was moved on at release: no handle carries it yet */
        if (t->gen[s] == 0)
            t->gen[s] = 1;
    } else {
        s = t->slot_count++;
        t->gen[s] = 1;
    }
    t->alive[s] = 1;
    t->system[s] = (uint8_t)system;
    t->dense[s] = GR_INVALID_INDEX;
    t->pos[s] = t->count;
    t->list[t->count++] = s;
    return s;
}

void gr_grain_table_release(gr_grain_table *t, uint32_t s)
{
    uint32_t k = t->pos[s];
    uint32_t last = t->list[--t->count];
    t->list[k] = last;
    t->pos[last] = k;
    t->alive[s] = 0;
    t->dense[s] = GR_INVALID_INDEX;
    if (t->gen[s] >= GR_HANDLE_GEN_MAX) {
        /* every generation was issued: the slot is retired, so no old handle comes back */
        t->gen[s] = GR_HANDLE_GEN_MAX;
        t->pos[s] = GR_INVALID_INDEX;
        t->retired++;
        return;
    }
    t->gen[s]++;
    t->pos[s] = t->free_head;
    t->free_head = s;
}

uint32_t gr_grain_table_count_system(const gr_grain_table *t, uint32_t system)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < t->count; k++)
        n += t->system[t->list[k]] == system;
    return n;
}
