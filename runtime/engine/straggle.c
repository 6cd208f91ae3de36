/*
 * straggle.c - workers slowed on purpose (ptm run --straggler), for
 * experiments with stale synchronous parallel: how much of a slow
 * worker's delay the staleness bound absorbs.
 *
 * DESIGN
 * A rule whose workers run clocks of the parameter store calls
 * rt_end_clock() where a worker ends a clock, just before pstore_clock():
 * the delay is part of the clock's work, so the clock's updates are
 * published late and the worker's clock advances late, as a slow worker's
 * would. A slowed worker then draws from a generator of its own (seeded
 * from the run's seed and its number, so every run of the same job, seed
 * and workers gives every worker the same delays on the same clocks,
 * whatever the staleness) and, with probability prob, sleeps ms
 * milliseconds. It sleeps rather than spins: the delay stands for a slow
 * or busy machine, not for work that would take a core from the others.
 * A worker that is not slowed has no state here, and rt_end_clock() costs
 * it one test of a pointer.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "arena.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "ptm.h"
#include "rng.h"

struct rt_straggle {
    double ms, prob;
    struct ptm_rng rng;
    double delay; /* seconds of delay given since the trace last took them */
};

int rt_straggle_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_run_opts *o = &run->opts;
    if (o->nstragglers == 0)
        return 0;
    if (!run->rule->clocks || run->batch) { /* batch: passes, no clocks (logreg's tron) */
        snprintf(err, errlen,
                 "--straggler: update '%s' runs no clocks of the parameter store, so there is "
                 "nothing to slow (logreg_sgd under method = sgd or svrg, and lda_gibbs, do)",
                 run->rule->name);
        return PTM_EINVAL;
    }
    for (size_t i = 0; i < o->nstragglers; i++) {
        const struct ptm_straggler *s = &o->stragglers[i];
        if (s->worker < 0 || !(s->ms > 0 && s->ms <= PTM_STRAGGLER_MAX_MS) ||
            !(s->prob > 0 && s->prob <= 1)) {
            snprintf(err, errlen, "--straggler: bad worker %d, milliseconds %g or probability %g",
                     s->worker, s->ms, s->prob);
            return PTM_EINVAL;
        }
        if (s->worker > run->P) {
            snprintf(err, errlen, "--straggler: there is no worker %d: the run has %d worker%s%s",
                     s->worker, run->P, run->P == 1 ? "" : "s",
                     run->P < o->workers ? " (fewer than --workers: the data has too few rows)"
                                         : "");
            return PTM_EINVAL;
        }
        int lo = s->worker ? s->worker - 1 : 0, hi = s->worker ? s->worker : run->P;
        for (int p = lo; p < hi; p++) {
            struct rt_worker *w = &run->w[p];
            if (w->straggle) {
                snprintf(err, errlen, "--straggler: worker %d is slowed twice", p + 1);
                return PTM_EINVAL;
            }
            w->straggle = rt_zalloc(1, sizeof(*w->straggle));
            if (!w->straggle)
                return PTM_ENOMEM;
            w->straggle->ms = s->ms;
            w->straggle->prob = s->prob;
            uint64_t stream = 0x736c6f7700000000ull + (uint64_t)p; /* "slow" streams */
            ptm_rng_seed(&w->straggle->rng, run->seed ^ stream);
        }
    }
    return 0;
}

void rt_straggle_release(struct ptm_run *run)
{
    if (!run->w)
        return;
    for (int p = 0; p < run->P; p++) {
        ptm_free(run->w[p].straggle);
        run->w[p].straggle = NULL;
    }
}

void rt_straggle(struct rt_worker *w)
{
    struct rt_straggle *s = w->straggle;
    if (ptm_rng_uniform(&s->rng) >= s->prob)
        return;
    /* until a deadline, so that a signal (Ctrl-C) does not shorten it */
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    double whole = floor(s->ms / 1e3);
    until.tv_sec += (time_t)whole;
    until.tv_nsec += (long)((s->ms / 1e3 - whole) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
        ;
    s->delay += s->ms / 1e3;
}

double rt_straggle_take(struct rt_worker *w)
{
    double d = w->straggle ? w->straggle->delay : 0;
    if (w->straggle)
        w->straggle->delay = 0;
    return d;
}

void rt_straggle_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    for (int p = 0; p < run->P; p++) {
        struct rt_straggle *s = run->w ? run->w[p].straggle : NULL;
        ptm_ck_size(ck, s != NULL, "slowed worker");
        if (s)
            PTM_CK(ck, s->rng);
    }
}
