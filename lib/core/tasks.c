/* SPDX-License-Identifier: MIT */
#include "tasks.h"


/* The built-in pool.
 *
 * Joining a job takes no lock. The caller writes the job, then `open` = its id, then wakes
 * the sleepers. A pool thread that sees a new id counts itself in `busy`, re-reads `open`, and
 * touches the job only if that id is still open (else it leaves and waits again). The caller
 * runs its own share, claims every share nobody has claimed, closes the job (`open` = 0) and
 * waits until busy is 0. These accesses are seq_cst: either the pool thread reads the close or
 * the caller reads its count (Dekker), so no thread is inside a job after the caller returned
 * and the caller rewrites the job only while none is open. The caller waits for blocks in
 * progress only, never for a thread that has not started (its share went to someone else).
 *
 * Waiting: a pool thread polls for the next job up to `spin` polls (each with a pause) before
 * it sleeps on `wake`; the caller polls as long for the last blocks before it sleeps on `idle`.
 * A substep is ~0.1-10 ms and has several phases, so waking a sleeping thread for every phase
 * costs more than the spin: measured, futex wakes and sched_yield took 19 % of a 2-worker
 * hourglass frame with a spin of plain loads. With more runnable threads than cores (a host's
 * own threads, two programs) the spin burns the time slice a descheduled thread needs, so it
 * adapts: halved after a job in which an affine share went to another thread (its owner had
 * not started) or the caller had to sleep, doubled after a job that ran promptly
 * (SPIN_MIN..SPIN_MAX polls: ~5 us..1 ms). A dynamic job's first block taken by another
 * thread is no sign: in the PBD's many small jobs the caller often gets there first while the
 * owner is running, and halving on it put the pool to sleep between phases (guide particles
 * 6 % slower uncontended). */
enum { SPIN_MAX = 20000, SPIN_MIN = 100 };

/* Tell the core we are spinning (frees the sibling hyper-thread, saves power). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void run_range(const gr_task_job *job, uint32_t b0, uint32_t b1, uint32_t worker)
{
    for (uint32_t b = b0; b < b1; b++) {
        const uint32_t begin = b * job->block;
        const uint32_t end = job->count - begin > job->block ? begin + job->block : job->count;
        job->fn(job->ctx, begin, end, worker);
    }
}

/* Claim and run blocks: the participant's own share first (the same blocks as in the last pass:
 * still in this core's cache), then what nobody has claimed of the others'. */
static void run_blocks(gr_task_job *job, uint32_t worker)
{
    const uint32_t shares = job->shares;
    if (job->affine) {
        if (worker >= shares) /* no share of its own: the owners and the caller suffice */
            return;
        for (uint32_t i = 0; i < shares; i++) {
            const uint32_t p = (worker + i) % shares, end = job->share[p].end;
            if (i && atomic_load_explicit(&job->share[p].next, memory_order_relaxed) >= end)
                continue; /* (taken: spare the cache line a write) */
            const uint32_t b0 = atomic_exchange_explicit(&job->share[p].next, end, memory_order_relaxed);
            if (b0 >= end)
                continue;
            if (i)
                atomic_store_explicit(&job->late, 1, memory_order_relaxed);
            run_range(job, b0, end, worker);
        }
        return;
    }
    for (uint32_t i = 0; i < shares; i++) {
        const uint32_t p = (worker + i) % shares, end = job->share[p].end;
        for (;;) {
            const uint32_t b = atomic_fetch_add_explicit(&job->share[p].next, 1, memory_order_relaxed);
            if (b >= end)
                break;
            run_range(job, b, b + 1, worker);
        }
    }
}

static bool held(gr_tasks *t, uint32_t worker)
{
    return (atomic_load_explicit(&t->hold, memory_order_relaxed) >> worker) & 1u;
}

/* Leave a job; wake the caller if it sleeps waiting for the last one out. */
static void leave_job(gr_tasks *t)
{
    if (atomic_fetch_sub(&t->busy, 1) == 1 && atomic_load(&t->waiting)) {
        pthread_mutex_lock(&t->mutex);
        pthread_cond_signal(&t->idle);
        pthread_mutex_unlock(&t->mutex);
    }
}

static void *pool_main(void *arg)
{
    gr_task_slot *slot = (gr_task_slot *)arg;
    gr_tasks *t = slot->tasks;
    const uint32_t worker = slot->worker;
    uint32_t seen = 0; /* the last job joined or found closed */
    for (;;) {
        uint32_t id = atomic_load_explicit(&t->open, memory_order_acquire);
        const uint32_t spin = atomic_load_explicit(&t->spin, memory_order_relaxed);
        for (uint32_t i = 0; (id == 0 || id == seen) && i < spin; i++) {
            if (atomic_load_explicit(&t->shutdown, memory_order_relaxed))
                return NULL;
            cpu_relax();
            id = atomic_load_explicit(&t->open, memory_order_acquire);
        }
        if (id == 0 || id == seen || held(t, worker)) {
            pthread_mutex_lock(&t->mutex);
            atomic_fetch_add(&t->sleepers, 1); /* then read `open`: the caller reads sleepers after writing it */
            while (!atomic_load(&t->shutdown) && (held(t, worker) || (id = atomic_load(&t->open)) == 0 || id == seen))
                pthread_cond_wait(&t->wake, &t->mutex);
            atomic_fetch_sub(&t->sleepers, 1);
            pthread_mutex_unlock(&t->mutex);
        }
        if (atomic_load(&t->shutdown))
            return NULL;
        atomic_fetch_add(&t->busy, 1);
        if (atomic_load(&t->open) == id) /* still open: the job's fields are this job's */
            run_blocks(&t->job, worker);
        seen = id;
        leave_job(t);
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
    if (pthread_cond_init(&t->idle, NULL) != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mutex);
        gr_mem_free(mem, t->threads, sizeof(pthread_t) * t->thread_count);
        t->threads = NULL;
        return GR_ERROR_OUT_OF_MEMORY;
    }
    atomic_store(&t->spin, SPIN_MAX);
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
        pthread_cond_destroy(&t->idle);
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mutex);
        t->pool_ready = false;
    }
    if (t->threads) {
        gr_mem_free(t->mem, t->threads, sizeof(pthread_t) * (t->worker_count - 1));
        t->threads = NULL;
    }
}

void gr_tasks_hold(gr_tasks *t, uint64_t mask)
{
    if (!t->pool_ready) {
        atomic_store(&t->hold, mask);
        return;
    }
    pthread_mutex_lock(&t->mutex);
    atomic_store(&t->hold, mask);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mutex);
}

/* The built-in pool runs the job (see the top of this file). */
static void pool_run(gr_tasks *t)
{
    gr_task_job *job = &t->job;
    if (++t->last_id == 0) /* (0 means no job open) */
        t->last_id = 1;
    atomic_store_explicit(&job->late, 0, memory_order_relaxed);
    atomic_store(&t->open, t->last_id);
    if (atomic_load(&t->sleepers)) {
        pthread_mutex_lock(&t->mutex);
        pthread_cond_broadcast(&t->wake);
        pthread_mutex_unlock(&t->mutex);
    }
    run_blocks(job, 0); /* every share is claimed when this returns */
    atomic_store(&t->open, 0);
    uint32_t spin = atomic_load_explicit(&t->spin, memory_order_relaxed);
    bool slept = false;
    for (uint32_t i = 0; atomic_load(&t->busy) != 0; i++) {
        if (i < spin) {
            cpu_relax();
            continue;
        }
        /* blocks in progress on a thread that does not run: sleep, leaving it the core */
        pthread_mutex_lock(&t->mutex);
        atomic_store(&t->waiting, 1); /* then read busy: a leaving thread reads waiting after busy */
        while (atomic_load(&t->busy) != 0)
            pthread_cond_wait(&t->idle, &t->mutex);
        atomic_store(&t->waiting, 0);
        pthread_mutex_unlock(&t->mutex);
        slept = true;
        break;
    }
    if (slept || atomic_load_explicit(&job->late, memory_order_relaxed))
        spin = spin / 2 > SPIN_MIN ? spin / 2 : SPIN_MIN;
    else
        spin = spin * 2 < SPIN_MAX ? spin * 2 : SPIN_MAX;
    atomic_store_explicit(&t->spin, spin, memory_order_relaxed);
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
    job->affine = affine;

    uint32_t helpers = t->worker_count - 1;
    if (helpers > nblocks - 1)
        helpers = nblocks - 1;
    job->shares = helpers + 1;
    for (uint32_t p = 0; p < job->shares; p++) {
        job->share[p].end = (uint32_t)((uint64_t)nblocks * (p + 1) / job->shares);
        atomic_store_explicit(&job->share[p].next, (uint32_t)((uint64_t)nblocks * p / job->shares),
                              memory_order_relaxed);
    }
    if (helpers == 0) {
        run_blocks(job, 0);
        return;
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
    pool_run(t);
}

void gr_parallel_for(gr_tasks *t, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx)
{
    parallel_run(t, count, block, fn, ctx, false);
}

void gr_parallel_for_affine(gr_tasks *t, uint32_t count, uint32_t block, gr_range_fn *fn, void *ctx)
{
    parallel_run(t, count, block, fn, ctx, true);
}
