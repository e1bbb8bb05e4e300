/* SPDX-License-Identifier: MIT */
/* Parallel-for over index ranges: the built-in pthread pool or the host's job system.
 * Ranges are cut into fixed blocks that do not depend on the worker count, and workers
 * claim blocks through atomic counters; code that writes per block (not per worker) is
 * therefore bit-identical for any worker count. */
#ifndef GR_CORE_TASKS_H
#define GR_CORE_TASKS_H

#include "alloc.h"

#include <pthread.h>
#include <stdatomic.h>

/// Body of a parallel loop: process [begin, end). `worker` < gr_tasks.worker_count indexes
/// per-worker scratch (which worker runs which block is not deterministic).
typedef void gr_range_fn(void *ctx, uint32_t begin, uint32_t end, uint32_t worker);

typedef struct gr_task_job {
    gr_range_fn *fn;
    void *ctx;
    uint32_t count;
    uint32_t block;
    uint32_t participants; ///< affinity mode: blocks split evenly among this many, else 0
    /* dynamic mode: the blocks in one contiguous share per participant; each claims from its
     * own share first, then from the others' */
    uint32_t shares;
    struct {
        _Atomic uint32_t next; ///< next block of the share to claim
        uint32_t end;
        char pad[56]; ///< (a cache line each: the claims of one share do not slow another's)
    } share[GR_MAX_WORKERS];
} gr_task_job;

typedef struct gr_task_slot {
    struct gr_tasks *tasks;
    uint32_t worker;
} gr_task_slot;

typedef struct gr_tasks {
    uint32_t worker_count; ///< participants including the calling thread (>= 1)
    gr_task_hooks hooks;   ///< host job system, or zeros
    gr_task_job job;
    gr_task_slot slots[GR_MAX_WORKERS];
    /* built-in pool */
    pthread_t *threads;
    uint32_t thread_count;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    bool pool_ready;
    _Atomic uint32_t generation; ///< bumped for each job
    _Atomic uint32_t done;       ///< pool threads finished with the current job
    _Atomic int shutdown;
    gr_mem *mem;
} gr_tasks;

/// Start the pool (worker_count - 1 threads) unless host hooks are given. On failure nothing
/// is left running and GR_ERROR_OUT_OF_MEMORY (threads could not be created) is returned.
gr_status gr_tasks_init(gr_tasks *tasks, gr_mem *mem, uint32_t worker_count, const gr_task_hooks *hooks);
void gr_tasks_destroy(gr_tasks *tasks);

/// Run fn over [0, count) in blocks of `block`; returns when every block is done. Blocks are
/// claimed dynamically (best when block costs vary): each participant starts on its own
/// contiguous share (the same share in every pass over the same count, so its data tends to be
/// in its core's cache) and then takes what is left of the others'.
void gr_parallel_for(gr_tasks *tasks, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx);
/// The same, but participant p always runs the p-th contiguous share of the blocks: with the
/// built-in pool a thread keeps working on the same data phase after phase, so it stays in
/// that core's cache (best for memory-bound passes over grains with even costs).
void gr_parallel_for_affine(gr_tasks *tasks, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx);

#endif /* GR_CORE_TASKS_H */
