/* SPDX-License-Identifier: MIT */
#include "body_cover.h"
#include "body_shapes.h"
#include "body_store.h"

#include "../core/handles.h"

void gr_body_store_init(gr_body_store *s) { memset(s, 0, sizeof *s); }

static void store_arrays(gr_body_store *s, gr_array_ref out[4])
{
    out[0] = (gr_array_ref){(void **)&s->data, sizeof(gr_body_data)};
    out[1] = (gr_array_ref){(void **)&s->gen, sizeof(uint16_t)};
    out[2] = (gr_array_ref){(void **)&s->alive, sizeof(uint8_t)};
    out[3] = (gr_array_ref){(void **)&s->active, sizeof(uint32_t)};
}

void gr_body_store_free(gr_body_store *s, gr_mem *mem)
{
    for (uint32_t i = 0; i < s->slot_count; i++)
        if (s->alive[i])
            gr_body_release(&s->data[i], mem);
    gr_array_ref a[4];
    store_arrays(s, a);
    gr_mem_free_arrays(mem, a, 4, s->cap);
    gr_body_store_init(s);
}

bool gr_body_store_reserve(gr_body_store *s, gr_mem *mem)
{
    if (s->count + s->retired < s->slot_count)
        return true; /* a free slot will be reused */
    return gr_body_store_reserve_slots(s, mem, s->slot_count + 1);
}

bool gr_body_store_reserve_slots(gr_body_store *s, gr_mem *mem, uint32_t slots)
{
    if (slots <= s->cap)
        return true;
    if (slots > GR_MAX_BODIES)
        return false;
    uint32_t cap = gr_grow_capacity(s->cap, slots);
    if (cap > GR_MAX_BODIES)
        cap = GR_MAX_BODIES;
    gr_array_ref a[4];
    store_arrays(s, a);
    if (!gr_mem_grow_arrays(mem, a, 4, s->cap, cap, s->slot_count))
        return false;
    s->cap = cap;
    return true;
}

void gr_body_store_rebuild_active(gr_body_store *s)
{
    uint32_t n = 0, retired = 0;
    for (uint32_t i = 0; i < s->slot_count; i++) {
        if (s->alive[i])
            s->active[n++] = i;
        retired += gr_slot_retired(s->gen[i], s->alive[i]);
    }
    s->count = n;
    s->retired = retired;
}

uint32_t gr_body_store_insert(gr_body_store *s, const gr_body_data *body)
{
    uint32_t slot = 0;
    while (slot < s->slot_count && (s->alive[slot] || gr_slot_retired(s->gen[slot], 0)))
        slot++;
    if (slot == s->slot_count) {
        s->gen[slot] = 1;
        s->slot_count++;
    }
    /* a reused slot's generation was moved on at removal: no handle carries it yet */
    if (s->gen[slot] == 0)
        s->gen[slot] = 1;
    s->data[slot] = *body;
    gr_body_update_frame(&s->data[slot]);
    s->alive[slot] = 1;
    gr_body_store_rebuild_active(s);
    s->revision++;
    return slot;
}

void gr_body_store_remove(gr_body_store *s, gr_mem *mem, uint32_t slot)
{
    gr_body_release(&s->data[slot], mem);
    s->alive[slot] = 0;
    /* at the last generation the slot is retired (never reused): no old handle comes back */
    if (s->gen[slot] < GR_HANDLE_GEN_MAX)
        s->gen[slot]++;
    gr_body_store_rebuild_active(s);
    s->revision++;
}
