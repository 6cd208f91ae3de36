/*
 * backend_threads.c - workers as threads of this process.
 *
 * DESIGN: worker 0 runs on the coordinator's thread, workers 1 .. P-1 on
 * threads of their own, so P workers take P threads. A phase is one trip
 * through a gate (struct rt_gate): the coordinator writes run->work, sets
 * `pending` to P - 1 and bumps `gen`; each worker sees the new gen, runs
 * its part and decrements pending; the coordinator runs worker 0's part
 * and waits for pending to reach 0. Rounds can be a few microseconds of
 * work, so waiting spins for a while (g->spin) before it sleeps on the
 * condition variable: on a busy or oversubscribed machine the sleep keeps spinning
 * threads from starving the ones that work.
 *
 * Within a phase, rt_barrier() holds each worker until all P have
 * reached it (a count and a generation, waited on the same way).
 *
 * No wake-up is lost: a thread that goes to sleep first counts itself in
 * `sleepers` and then re-reads the value it waits on, under the mutex; the
 * thread that changes the value changes it first and then reads
 * `sleepers`, and wakes under the same mutex. All of these are sequentially
 * consistent atomics, so at least one side sees the other. The release of
 * gen and pending orders run->work and everything the coordinator wrote
 * before a phase before the workers' reads, and the workers' results
 * before the coordinator's reads after it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "engine_impl.h"
#include "ptm.h"

/* How long a wait spins before it sleeps, in seconds. With a core for
 * every thread: longer than the gaps between the phases of most rounds (a
 * sleep and its wake-up cost tens of microseconds), short enough not to
 * burn a core for long. With more threads than cores (more workers, or
 * ranks of mpirun on one machine), a spinning thread takes the core of one
 * that works, so the spin is short. The clock is read every SPIN_CHECK
 * pauses. */
#define SPIN_OWN_CORE 200e-6
#define SPIN_SHARED_CORE 20e-6
#define SPIN_CHECK 64

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static double clock_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The deadline of a spin of g that starts now. */
static double spin_deadline(const struct rt_gate *g)
{
    return clock_now() + g->spin;
}

/* Whether every thread of the run, and of the other ranks on this machine
 * (Open MPI says how many there are), has a core of its own. */
static bool own_cores(const struct ptm_run *run)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    long ranks = local ? strtol(local, NULL, 10) : 1;
    if (ranks < 1)
        ranks = 1;
    return cores >= 1 && ranks * run->P <= cores;
}

/* After i pauses of a spin: whether its deadline has passed. */
static bool spin_over(unsigned i, double deadline)
{
    return i % SPIN_CHECK == SPIN_CHECK - 1 && clock_now() > deadline;
}

static void wake(struct rt_gate *g)
{
    if (atomic_load(&g->sleepers) > 0) {
        pthread_mutex_lock(&g->mu);
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
}

/* Wait until *v (gen or passed) differs from seen; returns the new value. */
static unsigned wait_change(struct rt_gate *g, atomic_uint *v, unsigned seen)
{
    unsigned now;
    double deadline = spin_deadline(g);
    for (unsigned i = 0; !spin_over(i, deadline); i++) {
        if ((now = atomic_load(v)) != seen)
            return now;
        cpu_relax();
    }
    pthread_mutex_lock(&g->mu);
    atomic_fetch_add(&g->sleepers, 1);
    while ((now = atomic_load(v)) == seen)
        pthread_cond_wait(&g->cv, &g->mu);
    atomic_fetch_sub(&g->sleepers, 1);
    pthread_mutex_unlock(&g->mu);
    return now;
}

static void wait_pending(struct rt_gate *g)
{
    double deadline = spin_deadline(g);
    for (unsigned i = 0; !spin_over(i, deadline); i++) {
        if (atomic_load(&g->pending) == 0)
            return;
        cpu_relax();
    }
    pthread_mutex_lock(&g->mu);
    atomic_fetch_add(&g->sleepers, 1);
    while (atomic_load(&g->pending) != 0)
        pthread_cond_wait(&g->cv, &g->mu);
    atomic_fetch_sub(&g->sleepers, 1);
    pthread_mutex_unlock(&g->mu);
}

static void *worker_main(void *arg)
{
    struct rt_worker *w = arg;
    struct rt_gate *g = &w->run->gate;
    unsigned seen = 0;
    for (;;) {
        seen = wait_change(g, &g->gen, seen);
        if (w->run->work.exit)
            break;
        rt_worker_phase(w);
        if (atomic_fetch_sub(&g->pending, 1) == 1)
            wake(g);
    }
    return NULL;
}

/* Open a phase for the threads (not worker 0). */
static void open_phase(struct ptm_run *run)
{
    struct rt_gate *g = &run->gate;
    atomic_store(&g->pending, run->P - 1);
    atomic_fetch_add(&g->gen, 1);
    wake(g);
}

static void stop_threads(struct ptm_run *run, int started)
{
    run->work = (struct rt_work){.exit = true};
    open_phase(run);
    for (int p = 1; p <= started; p++)
        pthread_join(run->w[p].thread, NULL);
}

static int threads_start(struct ptm_run *run, char *err, size_t errlen)
{
    struct rt_gate *g = &run->gate;
    atomic_init(&g->gen, 0);
    atomic_init(&g->pending, 0);
    atomic_init(&g->sleepers, 0);
    atomic_init(&g->arrived, 0);
    atomic_init(&g->passed, 0);
    g->spin = own_cores(run) ? SPIN_OWN_CORE : SPIN_SHARED_CORE;
    g->started = 0;
    if (pthread_mutex_init(&g->mu, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&g->cv, NULL) != 0) {
        pthread_mutex_destroy(&g->mu);
        goto fail;
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot start %d worker threads", run->P - 1);
    return PTM_ENOMEM;
}

/* The workers' threads start before the first phase that wakes them, not
 * with the run: where every round runs on the first worker alone (the
 * Lasso example's rounds of few non-zeros), 2 workers started a thread
 * that never worked, whose start (its stack mapped while the first rounds
 * faulted their pages in) made those rounds slower than on 1 worker. */
static int threads_ready(struct ptm_run *run, char *err, size_t errlen)
{
    struct rt_gate *g = &run->gate;
    for (; g->started < run->P - 1; g->started++)
        if (pthread_create(&run->w[g->started + 1].thread, NULL, worker_main,
                           &run->w[g->started + 1]) != 0) {
            snprintf(err, errlen, "cannot start %d worker threads", run->P - 1);
            return PTM_ENOMEM;
        }
    return 0;
}

/* The last of the P workers to arrive resets the count and lets the
 * others go by bumping `passed`, which each read before arriving: a
 * worker cannot arrive at the next barrier before the count is reset,
 * since it waits for `passed` to move, which happens after the reset. */
static void threads_barrier(struct rt_worker *w)
{
    struct ptm_run *run = w->run;
    struct rt_gate *g = &run->gate;
    unsigned seen = atomic_load(&g->passed);
    if (atomic_fetch_add(&g->arrived, 1) == run->P - 1) {
        atomic_store(&g->arrived, 0);
        atomic_fetch_add(&g->passed, 1);
        wake(g);
        return;
    }
    wait_change(g, &g->passed, seen);
}

static void threads_phase(struct ptm_run *run)
{
    bool all = run->P > 1 && !run->work.alone;
    if (all)
        open_phase(run);
    for (int p = 1; !all && p < run->P; p++)
        run->w[p].part = 0; /* the first worker's part is the whole */
    rt_worker_phase(&run->w[0]);
    if (all)
        wait_pending(&run->gate);
}

static void threads_reduce_z(struct ptm_run *run, size_t n, double *sum)
{
    const double *z0 = run->w[0].z;
    for (size_t i = 0; i < n; i++)
        sum[i] = z0[i];
    for (int p = 1; p < run->P; p++) {
        const double *z = run->w[p].z;
        for (size_t i = 0; i < n; i++)
            sum[i] += z[i];
    }
}

static double threads_reduce_part(struct ptm_run *run)
{
    double s = run->w[0].part;
    for (int p = 1; p < run->P; p++)
        s += run->w[p].part;
    return s;
}

static void threads_stop(struct ptm_run *run)
{
    if (run->gate.started > 0)
        stop_threads(run, run->gate.started);
    pthread_cond_destroy(&run->gate.cv);
    pthread_mutex_destroy(&run->gate.mu);
}

const struct rt_backend rt_backend_threads = {
    .name = "threads",
    .start = threads_start,
    .ready = threads_ready,
    .phase = threads_phase,
    .reduce_z = threads_reduce_z,
    .reduce_part = threads_reduce_part,
    .stop = threads_stop,
    .barrier = threads_barrier,
};
