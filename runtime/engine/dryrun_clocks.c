/*
 * dryrun_clocks.c - `ptm plan` of a data_parallel job: the workers' clocks
 * (minibatches) simulated in time, under the job's consistency and under
 * BSP, to see what the staleness bound saves in waiting.
 *
 * DESIGN: a clock's duration is a model, not a measurement: its work takes
 * one unit (PTM_CLOCKS_UNIT), and a worker slowed with `--straggler
 * W:MS[:PROB]` adds MS to a clock with probability PROB, drawn as `ptm run`
 * draws it (straggle.c: the same stream for the same seed and worker, one
 * draw a clock), so the dry run delays the clocks a run with that seed
 * delays. The rules are the parameter store's and the engine's
 * (spec/language.md 1.2, spec/runtime.md): under staleness s a worker
 * starts clock c once every worker has finished clock c - s - 1; a phase
 * (a sweep of the largest shard, or the objective's interval in rounds
 * when shorter) ends in a barrier. The start of clock c depends only on
 * clocks before c, so one pass over the clocks in order computes every
 * start exactly, with no event queue.
 *
 * A read's age: when worker p starts clock c, the clocks every worker has
 * finished, m, is the number of k with all_done[k] <= start (all_done rises
 * with k); the read is c - m clocks old at most (0: every update before
 * clock c is in). Under SSP with staleness s it is at most s.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "dryrun.h"
#include "engine_impl.h"
#include "ptm.h"
#include "rng.h"

/* The clocks of all_done[0 .. C-1] that have ended by time x. */
static int64_t done_by(const double *all_done, int64_t C, double x)
{
    int64_t lo = 0, hi = C; /* all_done[lo - 1] <= x < all_done[hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (all_done[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ptm_clocks_simulate(int P, int64_t C, const double *dur, int32_t s, int64_t phase,
                         struct ptm_clock_sched *cs)
{
    size_t Cs = (size_t)C;
    cs->staleness = s;
    cs->makespan = 0;
    for (int64_t c = 0; c < C; c++) {
        /* every worker's bound for clock c: the end of clock c - s - 1 of
         * all, or of clock c - 1 at the start of a phase */
        double bound = 0;
        int64_t k = -1;
        if (s >= 0 && c - s - 1 >= 0)
            k = c - s - 1;
        if (phase > 0 && c > 0 && c % phase == 0)
            k = c - 1;
        if (k >= 0)
            bound = cs->all_done[k];
        double all = 0;
        for (int p = 0; p < P; p++) {
            size_t i = (size_t)p * Cs + (size_t)c;
            double own = c > 0 ? cs->end[i - 1] : 0;
            cs->start[i] = own > bound ? own : bound;
            cs->end[i] = cs->start[i] + dur[i];
            all = cs->end[i] > all ? cs->end[i] : all;
        }
        cs->all_done[c] = all;
        cs->makespan = all > cs->makespan ? all : cs->makespan;
    }
    for (int p = 0; p < P; p++)
        for (int64_t c = 0; c < C; c++) {
            size_t i = (size_t)p * Cs + (size_t)c;
            /* the clock's own worker has finished its c clocks: m <= c */
            cs->behind[i] = c - done_by(cs->all_done, c, cs->start[i]);
        }
}

/* The staleness that bounds the workers: that of the weights of the
 * built-in kernel (option w), else the smallest of the tables of the
 * parameter store (every parameter with one copy); -1: async. */
static int32_t job_staleness(const struct ptm_run *run)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *ow = plan->update.lua ? NULL : rt_option(&plan->update, "w");
    int32_t s = -1;
    for (uint32_t q = 0; q < plan->nparams; q++) {
        const struct rt_param *t = &run->params[q];
        bool table = ow && ow->kind == PLAN_VALUE_PARAM ? (int32_t)q == ow->ref : t->val != NULL;
        if (!table || t->pp->cons == PLAN_CONS_ASYNC)
            continue;
        if (s < 0 || t->pp->staleness < s)
            s = t->pp->staleness;
    }
    return s;
}

/* The clocks of a phase, as the engine's data_parallel rules count them
 * (rule_logreg.c, rule_lua.c, rounds.c): a pass of the largest shard in
 * minibatches, or the objective's interval in rounds when shorter. */
static int64_t phase_clocks(const struct ptm_run *run)
{
    const struct ptm_plan *plan = run->plan;
    int64_t mb = plan->schedule.minibatch > 0 ? plan->schedule.minibatch : 1000;
    int64_t most = 1;
    if (run->rowdata >= 0) {
        const struct ptm_dataset *ds = run->data[run->rowdata];
        int64_t *bounds = rt_zalloc((size_t)run->P + 1, sizeof(int64_t));
        if (!bounds)
            return -1;
        if (ds->sparse)
            ptm_shard_by_nnz(ds->csr.rowptr, run->nrows, run->P, bounds);
        else
            ptm_shard_even(run->nrows, run->P, bounds);
        for (int p = 0; p < run->P; p++)
            most = bounds[p + 1] - bounds[p] > most ? bounds[p + 1] - bounds[p] : most;
        ptm_free(bounds);
    }
    int64_t len = (most + mb - 1) / mb;
    const struct plan_hook *o = &plan->objective;
    if (o->present && o->every_unit == PLAN_UNIT_ROUNDS && o->every > 0 && o->every < len)
        len = o->every;
    return len;
}

static int alloc_sched(struct ptm_clock_sched *cs, size_t cells, size_t C)
{
    cs->start = rt_zalloc(cells, sizeof(double));
    cs->end = rt_zalloc(cells, sizeof(double));
    cs->behind = rt_zalloc(cells, sizeof(int64_t));
    cs->all_done = rt_zalloc(C, sizeof(double));
    return cs->start && cs->end && cs->behind && cs->all_done ? 0 : PTM_ENOMEM;
}

bool rt_dryrun_is_tron(const struct ptm_plan *plan)
{
    const struct plan_hook *u = &plan->update;
    const struct plan_option *om = u->lua ? NULL : rt_option(u, "method");
    /* as rule_logreg.c reads it (the compiler writes the default, tron) */
    return om && om->kind == PLAN_VALUE_STR && strcmp(om->str, "tron") == 0;
}

int rt_dryrun_clocks_check(const struct ptm_plan *plan, const struct ptm_dryrun_opts *o, char *err,
                           size_t errlen)
{
    if (rt_dryrun_is_tron(plan) && o->nstragglers > 0) {
        snprintf(err, errlen,
                 "--straggler: update logreg_sgd with method = tron runs Newton iterations, "
                 "not clocks: every pass waits for every worker, so there is no staleness to "
                 "draw (method = sgd or svrg runs clocks)");
        return PTM_EINVAL;
    }
    return 0;
}

int rt_dryrun_newton(struct ptm_run *run, const struct ptm_dryrun_opts *o, struct ptm_trace *t)
{
    int P = run->P;
    int64_t *bounds = rt_zalloc((size_t)P + 1, sizeof(int64_t));
    if (!bounds)
        return PTM_ENOMEM;
    if (run->rowdata >= 0) { /* the workers' rows, as the run shards them */
        const struct ptm_dataset *ds = run->data[run->rowdata];
        if (ds->sparse)
            ptm_shard_by_nnz(ds->csr.rowptr, run->nrows, P, bounds);
        else
            ptm_shard_even(run->nrows, P, bounds);
    }
    int rc = 0;
    t->unit = "rows";
    int64_t R = o->rounds < 1 ? 1 : o->rounds;
    for (int64_t r = 1; rc == 0 && r <= R; r++) {
        struct ptm_trace_round tr = {.round = r, .seconds = NAN, .candidates = -1,
                                     .conflicts = -1, .objective = NAN};
        rc = ptm_trace_round(t, &tr);
        for (int p = 0; rc == 0 && p < P; p++)
            rc = ptm_trace_worker(t, NULL, 0, (double)(bounds[p + 1] - bounds[p]));
    }
    ptm_free(bounds);
    return rc;
}

int rt_dryrun_clocks(struct ptm_run *run, const struct ptm_dryrun_opts *o, struct ptm_trace *t,
                     char *err, size_t errlen)
{
    int P = run->P;
    for (size_t k = 0; k < o->nstragglers; k++)
        if (o->stragglers[k].worker > P) {
            snprintf(err, errlen, "--straggler: there is no worker %d: the run has %d worker%s%s",
                     o->stragglers[k].worker, P, P == 1 ? "" : "s",
                     P < o->workers ? " (fewer than --workers: the data has too few rows)" : "");
            return PTM_EINVAL;
        }
    int64_t C = o->rounds < 1 ? 1 : o->rounds;
    if ((size_t)C > PTM_CLOCKS_MAX_CELLS / (size_t)P) {
        snprintf(err, errlen,
                 "%d workers times %lld clocks is more than the %zu clocks a dry run "
                 "simulates: ask for fewer rounds",
                 P, (long long)C, PTM_CLOCKS_MAX_CELLS);
        return PTM_EINVAL;
    }
    size_t cells = (size_t)P * (size_t)C;
    struct ptm_clocks *k = rt_zalloc(1, sizeof(*k));
    if (!k)
        return PTM_ENOMEM;
    t->clocks = k;
    k->clocks = C;
    k->work = 1;
    if ((k->phase = phase_clocks(run)) < 0)
        return PTM_ENOMEM;
    int32_t s = job_staleness(run);
    char cons[32];
    if (s < 0)
        snprintf(cons, sizeof(cons), "async");
    else if (s == 0)
        snprintf(cons, sizeof(cons), "bsp");
    else
        snprintf(cons, sizeof(cons), "ssp %d", (int)s);
    if (!(k->consistency = plan_strdup(cons)))
        return PTM_ENOMEM;
    if (!(k->dur = rt_zalloc(cells, sizeof(double))) || alloc_sched(&k->job, cells, (size_t)C) ||
        alloc_sched(&k->bsp, cells, (size_t)C))
        return PTM_ENOMEM;
    for (size_t i = 0; i < cells; i++)
        k->dur[i] = k->work;
    /* the stragglers' delays, drawn as straggle.c draws them */
    char slow[1024] = "";
    size_t len = 0;
    for (size_t j = 0; j < o->nstragglers; j++) {
        const struct ptm_straggler *g = &o->stragglers[j];
        char w[16];
        if (g->worker)
            snprintf(w, sizeof(w), "%d", g->worker);
        else
            snprintf(w, sizeof(w), "all");
        if (len < sizeof(slow))
            len += (size_t)snprintf(slow + len, sizeof(slow) - len, "%s%s:%g:%g", j ? ", " : "", w,
                                    g->ms, g->prob);
        int lo = g->worker ? g->worker - 1 : 0, hi = g->worker ? g->worker : P;
        for (int p = lo; p < hi; p++) {
            struct ptm_rng rng;
            ptm_rng_seed(&rng, run->seed ^ (0x736c6f7700000000ull + (uint64_t)p));
            for (int64_t c = 0; c < C; c++)
                if (ptm_rng_uniform(&rng) < g->prob)
                    k->dur[(size_t)p * (size_t)C + (size_t)c] += g->ms;
        }
    }
    if (o->nstragglers && !(k->slow = plan_strdup(slow)))
        return PTM_ENOMEM;
    ptm_clocks_simulate(P, C, k->dur, s, k->phase, &k->job);
    ptm_clocks_simulate(P, C, k->dur, 0, k->phase, &k->bsp);
    return 0;
}
