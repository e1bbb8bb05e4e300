/* SPDX-License-Identifier: MIT */
#include "tasks.h"

#include <sched.h>

/* Spin this many polls (each with a pause: ~1 ms in all) before sleeping: a substep is
 * ~0.1-10 ms and has several phases, so waking a sleeping thread (or yielding to the kernel)
 * for every phase costs more than the spin. Measured: futex wakes and sched_yield took 19 % of
 * a 2-worker hourglass frame with a spin of plain loads. The caller waiting for its helpers
 * yields after the same ~1 ms (it was 10x that): with more threads than cores (8 workers on 2,
 * or two programs at once) a descheduled helper otherwise costs ~10 ms per phase. */
enum { SPIN_POLLS = 20000, WAIT_POLLS = 20000 };

/* Tell the core we are spinning (frees the sibling hyper-thread, saves power). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void run_blocks(gr_task_job *job, uint32_t worker)
{
    const uint32_t nblocks = (job->count + job->block - 1) / job->block;
    if (job->participants) {
        /* affinity: a fixed contiguous share per participant */
        if (worker >= job->participants)
            return;
        const uint32_t first = (uint32_t)((uint64_t)nblocks * worker / job->participants);
        const uint32_t last = (uint32_t)((uint64_t)nblocks * (worker + 1) / job->participants);
        for (uint32_t b = first; b < last; b++) {
            uint32_t begin = b * job->block;
            uint32_t end = begin + job->block < job->count ? begin + job->block : job->count;
            job->fn(job->ctx, begin, end, worker);
        }
        return;
    }
    /* its own share first (the same blocks as in the last pass: still in this core's cache),
     * then what is left of the others' */
    const uint32_t shares = job->shares;
    for (uint32_t i = 0; i < shares; i++) {
        const uint32_t p = (worker + i) % shares;
        for (;;) {
            uint32_t b = atomic_fetch_add_explicit(&job->share[p].next, 1, memory_order_relaxed);
            if (b >= job->share[p].end)
                break;
            uint32_t begin = b * job->block;
            uint32_t end = begin + job->block;
            if (end > job->count)
                end = job->count;
            job->fn(job->ctx, begin, end, worker);
        }
    }
}

static void *pool_main(void *arg)
{
    gr_task_slot *slot = (gr_task_slot *)arg;
    gr_tasks *t = slot->tasks;
    uint32_t seen = 0;
    for (;;) {
        uint32_t gen = atomic_load_explicit(&t->generation, memory_order_acquire);
        for (int spin = 0; gen == seen && spin < SPIN_POLLS; spin++) {
            if (atomic_load_explicit(&t->shutdown, memory_order_relaxed))
                return NULL;
            cpu_relax();
            gen = atomic_load_explicit(&t->generation, memory_order_acquire);
        }
        if (gen == seen) {
            pthread_mutex_lock(&t->mutex);
            while ((gen = atomic_load_explicit(&t->generation, memory_order_acquire)) == seen &&
                   !atomic_load_explicit(&t->shutdown, memory_order_relaxed))
                pthread_cond_wait(&t->wake, &t->mutex);
            pthread_mutex_unlock(&t->mutex);
        }
        if (atomic_load_explicit(&t->shutdown, memory_order_relaxed))
            return NULL;
        seen = gen;
        run_blocks(&t->job, slot->worker);
        atomic_fetch_add_explicit(&t->done, 1, memory_order_release);
    }
}

static void host_task(void *ctx)
{
    gr_task_slot *slot = (gr_task_slot *)ctx;
    run_blocks(&slot->tasks->job, slot->worker);
}

gr_status gr_tasks_init(gr_tasks *t, gr_mem *mem, uint32_t worker_count, const gr_task_hooks *hooks)
{
    memset(t, 0, sizeof *t);
    t->mem = mem;
    if (worker_count < 1)
        worker_count = 1;
    if (worker_count > GR_MAX_WORKERS)
        worker_count = GR_MAX_WORKERS;
    t->worker_count = worker_count;
    for (uint32_t i = 0; i < GR_MAX_WORKERS; i++) {
        t->slots[i].tasks = t;
        t->slots[i].worker = i;
    }
    if (hooks && hooks->enqueue && hooks->finish) {
        t->hooks = *hooks;
        return GR_OK;
    }
    if (worker_count == 1)
        return GR_OK;
    t->thread_count = worker_count - 1;
    t->threads = (pthread_t *)gr_mem_alloc(mem, sizeof(pthread_t) * t->thread_count);
    if (!t->threads)
        return GR_ERROR_OUT_OF_MEMORY;
    if (pthread_mutex_init(&t->mutex, NULL) != 0) {
        gr_mem_free(mem, t->threads, sizeof(pthread_t) * t->thread_count);
        t->threads = NULL;
        return GR_ERROR_OUT_OF_MEMORY;
    }
    if (pthread_cond_init(&t->wake, NULL) != 0) {
        pthread_mutex_destroy(&t->mutex);
        gr_mem_free(mem, t->threads, sizeof(pthread_t) * t->thread_count);
        t->threads = NULL;
        return GR_ERROR_OUT_OF_MEMORY;
    }
    t->pool_ready = true;
    for (uint32_t i = 0; i < t->thread_count; i++) {
        if (pthread_create(&t->threads[i], NULL, pool_main, &t->slots[i + 1]) != 0) {
            t->thread_count = i; /* join the ones that started */
            gr_tasks_destroy(t);
            return GR_ERROR_OUT_OF_MEMORY;
        }
    }
    return GR_OK;
}

void gr_tasks_destroy(gr_tasks *t)
{
    if (t->pool_ready) {
        pthread_mutex_lock(&t->mutex);
        atomic_store(&t->shutdown, 1);
        pthread_cond_broadcast(&t->wake);
        pthread_mutex_unlock(&t->mutex);
        for (uint32_t i = 0; i < t->thread_count; i++)
            pthread_join(t->threads[i], NULL);
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mutex);
        t->pool_ready = false;
    }
    if (t->threads) {
        gr_mem_free(t->mem, t->threads, sizeof(pthread_t) * (t->worker_count - 1));
        t->threads = NULL;
    }
}

static void parallel_run(gr_tasks *t, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx, bool affine)
{
    if (count == 0)
        return;
    if (block == 0)
        block = 1;
    const uint32_t nblocks = (count + block - 1) / block;
    gr_task_job *job = &t->job;
    job->fn = fn;
    job->ctx = ctx;
    job->count = count;
    job->block = block;
    job->participants = 0;

    if (t->worker_count == 1 || nblocks == 1) {
        job->shares = 1;
        atomic_store_explicit(&job->share[0].next, 0, memory_order_relaxed);
        job->share[0].end = nblocks;
        run_blocks(job, 0);
        return;
    }
    uint32_t helpers = t->worker_count - 1;
    if (helpers > nblocks - 1)
        helpers = nblocks - 1;
    if (affine)
        job->participants = helpers + 1;
    job->shares = helpers + 1;
    for (uint32_t p = 0; p < job->shares; p++) {
        atomic_store_explicit(&job->share[p].next, (uint32_t)((uint64_t)nblocks * p / job->shares), memory_order_relaxed);
        job->share[p].end = (uint32_t)((uint64_t)nblocks * (p + 1) / job->shares);
    }

    if (t->hooks.enqueue) {
        void *handles[GR_MAX_WORKERS];
        for (uint32_t i = 0; i < helpers; i++)
            handles[i] = t->hooks.enqueue(host_task, &t->slots[i + 1], t->hooks.user);
        run_blocks(job, 0);
        for (uint32_t i = 0; i < helpers; i++)
            if (handles[i])
                t->hooks.finish(handles[i], t->hooks.user);
        return;
    }

    /* Built-in pool: every pool thread takes part (idle ones find no block and finish). */
    atomic_store_explicit(&t->done, 0, memory_order_relaxed);
    pthread_mutex_lock(&t->mutex);
    atomic_fetch_add_explicit(&t->generation, 1, memory_order_release);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mutex);
    run_blocks(job, 0);
    int polls = 0;
    while (atomic_load_explicit(&t->done, memory_order_acquire) != t->thread_count) {
        if (++polls > WAIT_POLLS)
            sched_yield(); /* a helper was descheduled: let it run */
        else
            cpu_relax();
    }
}

void gr_parallel_for(gr_tasks *t, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx)
{
    parallel_run(t, count, block, fn, ctx, false);
}

void gr_parallel_for_affine(gr_tasks *t, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx)
{
    parallel_run(t, count, block, fn, ctx, true);
}
