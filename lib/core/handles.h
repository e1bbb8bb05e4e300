/* SPDX-License-Identifier: MIT */
/* Handle encoding and the grain handle table.
 * id = tag << 43 | generation << 27 | (slot + 1): 21 + 16 + 27 bits. Zero is null; a removed
 * object's handle has an old generation (stale); another world's handle has another tag (the
 * tags come from one process-wide counter, handle_tags.c). A slot whose generation would wrap
 * is retired, never reused, so no handle ever becomes valid again (gr_base.h states the promise). */
#ifndef GR_CORE_HANDLES_H
#define GR_CORE_HANDLES_H

#include "alloc.h"

#define GR_HANDLE_TAG_BITS 21u
#define GR_HANDLE_GEN_BITS 16u
#define GR_HANDLE_SLOT_BITS 27u
/// Largest world tag (tags run 1 .. GR_HANDLE_TAG_MAX, then start again at 1).
#define GR_HANDLE_TAG_MAX ((1u << GR_HANDLE_TAG_BITS) - 1u)
/// A slot's last generation: a slot released at it is retired.
#define GR_HANDLE_GEN_MAX 0xffffu
/// Most slots a handle can name (slot + 1 fits the slot field).
#define GR_HANDLE_SLOT_LIMIT ((1u << GR_HANDLE_SLOT_BITS) - 1u)

static inline uint64_t gr_handle_make(uint32_t tag, uint16_t gen, uint32_t slot)
{
    return ((uint64_t)tag << (GR_HANDLE_GEN_BITS + GR_HANDLE_SLOT_BITS)) | ((uint64_t)gen << GR_HANDLE_SLOT_BITS) |
           (uint64_t)(slot + 1u);
}
/// slot + 1 as stored (0: not a handle).
static inline uint32_t gr_handle_slot_field(uint64_t id) { return (uint32_t)(id & GR_HANDLE_SLOT_LIMIT); }
static inline uint32_t gr_handle_slot(uint64_t id) { return gr_handle_slot_field(id) - 1u; }
static inline uint16_t gr_handle_gen(uint64_t id) { return (uint16_t)(id >> GR_HANDLE_SLOT_BITS); }
static inline uint32_t gr_handle_tag(uint64_t id)
{
    return (uint32_t)(id >> (GR_HANDLE_GEN_BITS + GR_HANDLE_SLOT_BITS));
}

/// Check a handle against a slot table; on success *slot is set. `gens[s]` is the live
/// generation of slot s (or, for a dead slot, one no live handle carried) and 0 when the
/// slot was never used. The order of the checks gives every malformed value one status:
/// null or no tag or no slot -> INVALID_HANDLE, another tag -> WRONG_WORLD, a slot or
/// generation never issued -> INVALID_HANDLE, a dead object -> STALE_HANDLE.
gr_status gr_handle_check(uint64_t id, uint32_t tag, const uint16_t *gens, const uint8_t *alive,
                          uint32_t slot_count, uint32_t *slot);
/// The same for objects that are never removed (materials, clump templates: generation 1):
/// slots [first, count) are valid.
gr_status gr_handle_check_permanent(uint64_t id, uint32_t tag, uint32_t first, uint32_t count, uint32_t *slot);

/// Grain slots. `list` is the bulk order: list[k] = slot of the k-th grain; removal moves the
/// last grain into the hole. The solver keeps `dense[slot]` up to date (its own storage index).
/// A slot released at generation GR_HANDLE_GEN_MAX is retired: dead, on no free chain.
typedef struct gr_grain_table {
    uint32_t cap;        ///< capacity of every array
    uint32_t slot_count; ///< slots ever used (high-water mark)
    uint32_t count;      ///< live grains
    uint32_t free_head;  ///< first free slot below slot_count, chained through `pos`
    uint32_t retired;    ///< slots retired (dead for good)
    uint16_t *gen;
    uint8_t *alive;
    uint32_t *dense;
    uint32_t *pos;  ///< live: index in list; free: next free slot; retired: GR_INVALID_INDEX
    uint32_t *list;
    uint8_t *system; ///< live: the index of the system that owns the grain (gr_world's systems)
} gr_grain_table;

void gr_grain_table_init(gr_grain_table *t);
void gr_grain_table_free(gr_grain_table *t, gr_mem *mem);
/// Ensure room for `more` additional grains. All or nothing. False when the grains and the
/// retired slots would exceed GR_MAX_GRAINS, or out of memory.
bool gr_grain_table_reserve(gr_grain_table *t, gr_mem *mem, uint32_t more);
/// Take a slot for a grain of `system` (after a successful reserve); appends it to the bulk list.
uint32_t gr_grain_table_take(gr_grain_table *t, uint32_t system);
/// Release a live slot: generation bumped (or the slot retired), removed from the list by swap.
void gr_grain_table_release(gr_grain_table *t, uint32_t slot);
/// Whether a live slot's grain belongs to `system`.
static inline bool gr_grain_of(const gr_grain_table *t, uint32_t slot, uint32_t system) { return t->system[slot] == system; }
/// Live grains of `system` (a walk over the bulk list).
uint32_t gr_grain_table_count_system(const gr_grain_table *t, uint32_t system);
/// Whether a dead slot is retired (its generation is spent).
static inline bool gr_slot_retired(uint16_t gen, uint8_t alive) { return !alive && gen == GR_HANDLE_GEN_MAX; }

#endif /* GR_CORE_HANDLES_H */
