/* SPDX-License-Identifier: MIT */
/* World tags: the library's only process-wide state (docs/guide.md "Handles"). One C11 atomic
 * counter hands each new world the next tag, 1 .. GR_HANDLE_TAG_MAX and round again, so two
 * worlds share a tag only when GR_HANDLE_TAG_MAX or more worlds were created between them.
 * A tag from a counter (not from the world's address) stays distinct when an arena allocator
 * gives a new world the memory of a destroyed one. */
#include <stdatomic.h>

#include "handles.h"
#include "handle_tags.h"

#if ATOMIC_INT_LOCK_FREE != 2
#error "granular needs a lock-free atomic unsigned int for its world tags"
#endif

static atomic_uint last_tag; /* 0 until the first world */

uint32_t gr_handle_new_tag(void)
{
    unsigned cur = atomic_load_explicit(&last_tag, memory_order_relaxed);
    unsigned next;
    do {
        next = cur >= GR_HANDLE_TAG_MAX ? 1u : cur + 1u;
    } while (!atomic_compare_exchange_weak_explicit(&last_tag, &cur, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    return next;
}
