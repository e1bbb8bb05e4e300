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
    bool affine; ///< a share is claimed whole (by its owner unless it comes late), else block by block
    /* The blocks in one contiguous share per participant. Each claims from its own share first
     * (the same share in every pass over the same count: its data tends to be in its core's
     * cache), then from shares nobody finished claiming, so no one waits for a thread that has
     * not started. */
    uint32_t shares;
    _Atomic uint32_t late; ///< some share's owner had not started it when another took it
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
    /* built-in pool (tasks.c explains the protocol) */
    pthread_t *threads;
    uint32_t thread_count;
    pthread_mutex_t mutex;
    pthread_cond_t wake; ///< pool threads sleep here between jobs
    pthread_cond_t idle; ///< the caller sleeps here until busy is 0
    bool pool_ready;
    uint32_t last_id;          ///< the caller's job counter
    _Atomic uint32_t open;     ///< id of the job pool threads may join, 0 when none
    _Atomic uint32_t busy;     ///< pool threads counted inside a job
    _Atomic uint32_t sleepers; ///< pool threads asleep on `wake`
    _Atomic uint32_t waiting;  ///< the caller is asleep on `idle`
    _Atomic uint32_t spin;     ///< polls before sleeping (adaptive)
    _Atomic uint64_t hold;     ///< tests: pool threads (bit = worker) that stay out of jobs
    _Atomic int shutdown;
    gr_mem *mem;
} gr_tasks;

/// Start the pool (worker_count - 1 threads) unless host hooks are given. On failure nothing
/// is left running and GR_ERROR_OUT_OF_MEMORY (threads could not be created) is returned.
gr_status gr_tasks_init(gr_tasks *tasks, gr_mem *mem, uint32_t worker_count, const gr_task_hooks *hooks);
void gr_tasks_destroy(gr_tasks *tasks);
/// Tests: the pool threads whose bit (1 << worker) is set in `mask` stay out of every job until
/// their bit is cleared, as if the OS never ran them; the jobs still complete without them.
void gr_tasks_hold(gr_tasks *tasks, uint64_t mask);

/// Run fn over [0, count) in blocks of `block`; returns when every block is done. Blocks are
/// claimed dynamically (best when block costs vary): each participant starts on its own
/// contiguous share (the same share in every pass over the same count, so its data tends to be
/// in its core's cache) and then takes what is left of the others'.
void gr_parallel_for(gr_tasks *tasks, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx);
/// The same, but participant p runs the p-th contiguous share of the blocks as a whole: with the
/// built-in pool a thread keeps working on the same data phase after phase, so it stays in
/// that core's cache (best for memory-bound passes over grains with even costs). A share whose
/// owner has not started when another participant runs out of work is taken whole by that
/// one (a descheduled thread does not hold up the job), so which worker runs a block is not
/// fixed here either.
void gr_parallel_for_affine(gr_tasks *tasks, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx);

#endif /* GR_CORE_TASKS_H */
