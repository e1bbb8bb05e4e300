/* SPDX-License-Identifier: MIT */
/* Handle encoding and the grain handle table.
 * id = tag << 48 | generation << 32 | (slot + 1): zero is null, a removed object's handle
 * has an old generation (stale), another world's handle has another tag. */
#ifndef GR_CORE_HANDLES_H
#define GR_CORE_HANDLES_H

#include "alloc.h"

static inline uint64_t gr_handle_make(uint16_t tag, uint16_t gen, uint32_t slot)
{
    return ((uint64_t)tag << 48) | ((uint64_t)gen << 32) | (uint64_t)(slot + 1u);
}
static inline uint32_t gr_handle_slot(uint64_t id) { return (uint32_t)(id & 0xffffffffu) - 1u; }
static inline uint16_t gr_handle_gen(uint64_t id) { return (uint16_t)(id >> 32); }
static inline uint16_t gr_handle_tag(uint64_t id) { return (uint16_t)(id >> 48); }

/// Next generation of a slot: never 0 (a zero generation is never valid).
static inline uint16_t gr_next_generation(uint16_t gen)
{
    uint16_t next = (uint16_t)(gen + 1u);
    return next ? next : 1u;
}

/// Check a handle against a slot table; on success *slot is set. `gens[s]` is the live
/// generation of slot s and 0 when the slot was never used.
gr_status gr_handle_check(uint64_t id, uint16_t tag, const uint16_t *gens, const uint8_t *alive,
                          uint32_t slot_count, uint32_t *slot);

/// Grain slots. `list` is the bulk order: list[k] = slot of the k-th grain; removal moves the
/// last grain into the hole. The solver keeps `dense[slot]` up to date (its own storage index).
typedef struct gr_grain_table {
    uint32_t cap;        ///< capacity of every array
    uint32_t slot_count; ///< slots ever used (high-water mark)
    uint32_t count;      ///< live grains
    uint32_t free_head;  ///< first free slot below slot_count, chained through `pos`
    uint16_t *gen;
    uint8_t *alive;
    uint32_t *dense;
    uint32_t *pos;  ///< live: index in list; free: next free slot
    uint32_t *list;
} gr_grain_table;

void gr_grain_table_init(gr_grain_table *t);
void gr_grain_table_free(gr_grain_table *t, gr_mem *mem);
/// Ensure room for `more` additional grains. All or nothing.
bool gr_grain_table_reserve(gr_grain_table *t, gr_mem *mem, uint32_t more);
/// Take a slot (after a successful reserve); appends it to the bulk list.
uint32_t gr_grain_table_take(gr_grain_table *t);
/// Release a live slot: generation bumped, removed from the list by swap.
void gr_grain_table_release(gr_grain_table *t, uint32_t slot);

#endif /* GR_CORE_HANDLES_H */
