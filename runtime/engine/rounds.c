/*
 * rounds.c - the round loop of `ptm run` (ptm_run_exec()): rounds of
 * schedule, push, pull, commit and apply (spec/runtime.md), rotation's
 * rounds and data_parallel's phases of clocks; what a worker does in a
 * phase (rt_worker_phase()); the objective's evaluations and history, the
 * stop rule and Ctrl-C (the SIGINT flag), the progress line and the
 * run's counters.
 *
 * DESIGN: the coordinator is the thread that calls ptm_run_exec(); it
 * runs the scheduler, the pull and the commit between phases, when no
 * worker runs, so it reads the workers' results and writes the committed
 * values without locks (the backend orders the phases). The exception is
 * a rule split by blocks on one rank: each worker commits its own share
 * of the round in its phase, variables no other worker touches in it.
 * Under Open MPI rank 0's coordinator decides and the other ranks follow
 * (ranks.c). The rounds do not allocate: their buffers come from
 * ptm_run_new() (Lua hooks allocate inside their own states). Only the
 * objective's evaluations may: the history doubles when full, and under
 * rotation across ranks rt_gather_blocks() gathers the scheduled
 * parameter.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "comm.h"
#include "engine_impl.h"
#include "ptm.h"
#include "wfile.h"
#include "xsum.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The L1 norm follows a variable's move from old to new. */
static inline void l1_move(struct xsum *l1, double old, double new)
{
    xsum_sub(l1, fabs(old));
    xsum_add(l1, fabs(new));
}

/* Commit the new values of rd's blocks b0 .. b1-1; record the changes,
 * and each block's Euclidean norm of them for the scheduler (and the L1
 * norm kept, in worker wid's accumulator). */
void rt_commit(struct ptm_run *run, struct rt_round *rd, size_t b0, size_t b1, int wid)
{
    /* the last changes only when an expression of the scheduler reads them */
    double *restrict val = run->params[run->sparam].val,
                     *restrict last = run->track_delta ? run->last_delta : NULL,
                     *restrict change = rd->change, *restrict bchange = run->bchange;
    const double *restrict newval = run->newval;
    const int64_t *restrict off = rd->off, *restrict vars = rd->vars;
    struct xsum *l1 = run->l1 ? &run->l1[wid] : NULL;
    if (run->bvars == 1 && off[b1] - off[b0] == (int64_t)(b1 - b0)) {
        /* a variable a block: the change is the block's, and one pass
         * reads each array in order */
        int64_t at = off[b0] - (int64_t)b0;
        for (size_t i = b0; i < b1; i++) {
            int64_t v = at + (int64_t)i, e = vars[v];
            /* the values are far apart, and may sit in another worker's
             * cache: ask for them ahead, so that the misses overlap */
            if (i + 16 < b1) {
                __builtin_prefetch(val + vars[v + 16], 1);
                if (last)
                    __builtin_prefetch(last + vars[v + 16], 1);
            }
            double d = newval[v] - val[e];
            change[v] = d;
            if (last)
                last[e] = d;
            if (l1 && d != 0)
                l1_move(l1, val[e], newval[v]);
            val[e] = newval[v];
            bchange[i] = fabs(d);
        }
        return;
    }
    for (size_t i = b0; i < b1; i++) {
        int64_t v0 = off[i], v1 = off[i + 1];
        if (i + 8 < b1) /* blocks drawn at random: their values are far apart */
            __builtin_prefetch(val + vars[off[i + 8]], 1);
        double big = 0;
        for (int64_t v = v0; v < v1; v++) {
            int64_t e = vars[v];
            double d = newval[v] - val[e];
            change[v] = d;
            if (last)
                last[e] = d;
            if (l1 && d != 0)
                l1_move(l1, val[e], newval[v]);
            val[e] = newval[v];
            if (fabs(d) > big || isnan(d))
                big = fabs(d);
        }
        if (v1 - v0 > 1 && big > 0 && isfinite(big)) {
            double sum = 0; /* scaled by the largest, so nothing overflows */
            for (int64_t v = v0; v < v1; v++)
                sum += (change[v] / big) * (change[v] / big);
            big *= sqrt(sum);
        }
        bchange[i] = big;
    }
}

int rt_l1_keep(struct ptm_run *run)
{
    if (!run->l1 && !(run->l1 = rt_zalloc((size_t)run->P, sizeof(*run->l1))))
        return PTM_ENOMEM;
    rt_l1_recount(run);
    return 0;
}

void rt_l1_recount(struct ptm_run *run)
{
    if (!run->l1)
        return;
    for (int p = 0; p < run->P; p++)
        xsum_init(&run->l1[p]);
    const struct rt_param *t = &run->params[run->sparam];
    for (int64_t v = 0; v < t->len * t->cols; v++)
        xsum_add(&run->l1[0], fabs(t->val[v]));
}

double rt_l1(const struct ptm_run *run)
{
    struct xsum s = run->l1[0];
    for (int p = 1; p < run->P; p++)
        xsum_merge(&s, &run->l1[p]);
    return xsum_round(&s);
}

size_t rt_recheck(struct ptm_run *run, size_t n)
{
    struct rt_recheck *k = &run->rk;
    double t0 = run->opts.trace ? now_seconds() : 0;
    bool any = false;
    for (size_t q = 0; q < n && !any; q++)
        any = k->flag[q];
    /* none changed: none interferes */
    size_t nk =
        any ? run->sched->recheck(run->sched_state, k->pb, k->flag, n, k->keep, &k->evals) : n;
    /* flag[q] from here on: the block's change is dropped */
    memset(k->flag, any, n);
    for (size_t i = 0; any && i < nk; i++)
        k->flag[k->keep[i]] = 0;
    for (size_t q = 0; nk < n && q < n; q++)
        if (k->flag[q])
            k->mark[k->pb[q]] = 1;
    k->ndrop = n - nk;
    if (run->opts.trace)
        k->seconds += now_seconds() - t0;
    return k->ndrop;
}

/* Under run->recheck, on rank 0 with the round's new values in
 * run->newval (rd in the policy's order, or dealt with rd->order under a
 * split rule): the blocks the policy drops get their current values. */
static void recheck_newval(struct ptm_run *run, struct rt_round *rd)
{
    struct rt_recheck *k = &run->rk;
    const double *val = run->params[run->sparam].val;
    for (size_t i = 0; i < rd->n; i++) {
        size_t q = run->split ? rd->order[i] : i;
        bool moved = false;
        for (int64_t v = rd->off[i]; v < rd->off[i + 1]; v++)
            moved |= run->newval[v] != val[rd->vars[v]];
        k->pb[q] = rd->blocks[i];
        k->flag[q] = moved;
    }
    if (rt_recheck(run, rd->n) == 0)
        return;
    for (size_t i = 0; i < rd->n; i++)
        if (k->flag[run->split ? rd->order[i] : i])
            for (int64_t v = rd->off[i]; v < rd->off[i + 1]; v++)
                run->newval[v] = val[rd->vars[v]];
}

/* done() of round rd: without the blocks whose changes were dropped
 * (rt_recheck), whose marks it clears; the filter's figures go to the
 * round's. */
static void tell_done(struct ptm_run *run, struct rt_round *rd)
{
    struct rt_recheck *k = &run->rk;
    if (!run->recheck || k->ndrop == 0) {
        run->sched->done(run->sched_state, rd->blocks, run->bchange, rd->n);
    } else {
        size_t m = 0;
        for (size_t i = 0; i < rd->n; i++) {
            int64_t b = rd->blocks[i];
            if (k->mark[b]) {
                k->mark[b] = 0;
                continue;
            }
            k->blocks[m] = b;
            k->change[m++] = run->bchange[i];
        }
        run->sched->done(run->sched_state, k->blocks, k->change, m);
    }
    if (run->recheck) {
        rd->conflicts += (int64_t)k->ndrop;
        rd->evaluations += k->evals;
        /* the filter's seconds were the workers' phase's, or the pull's */
        run->sched_seconds += k->seconds;
        if (run->push_rechecks && run->nranks == 1)
            run->work_seconds -= k->seconds;
        else
            run->combine_seconds -= k->seconds;
        k->ndrop = 0;
        k->evals = 0;
        k->seconds = 0;
    }
}

/* Under run->expand_late (a block a variable, blocks split among the
 * workers, one rank; rd->off is 0, 1, 2, ... for good): worker p's share
 * of rd's vars, filled by p at the start of its push rather than by the
 * coordinator between rounds. */
static void expand_share(struct rt_round *rd, int p)
{
    for (size_t i = rd->part[p]; i < rd->part[p + 1]; i++)
        rd->vars[i] = rd->blocks[i];
}

void rt_barrier(struct rt_worker *w)
{
    if (w->run->P > 1)
        w->run->backend->barrier(w);
}

void rt_worker_phase(struct rt_worker *w)
{
    struct ptm_run *run = w->run;
    const struct rt_work *wk = &run->work;
    /* a clock read costs as much as a small round: only for the trace */
    double t0 = run->opts.trace ? now_seconds() : 0;
    int rc = 0;
    w->rc = 0;
    w->msg[0] = '\0';
    if (wk->apply && run->rule->apply)
        rc = run->rule->apply(w, wk->apply);
    if (rc == 0 && wk->anchor)
        rc = run->rule->anchor(w);
    if (rc == 0 && wk->map)
        rc = run->rule->map(w, wk->map - 1);
    if (rc == 0 && wk->push) {
        if (run->expand_late)
            expand_share((struct rt_round *)wk->push, w->id);
        rc = run->rule->push(w, wk->push);
        /* by blocks: the worker's share is its own to commit, unless the
         * round's step is decided first; a round alone that is never
         * damped, all of it */
        if (rc == 0 && run->split && run->nranks == 1 && !run->damps)
            rt_commit(run, (struct rt_round *)wk->push, wk->push->part[w->id],
                      wk->push->part[w->id + 1], w->id);
        else if (rc == 0 && run->split && run->nranks == 1 && wk->alone &&
                 run->rule->alone_undamped && run->rule->alone_undamped(run))
            rt_commit(run, (struct rt_round *)wk->push, 0, wk->push->n, w->id);
    }
    if (rc == 0 && wk->objective)
        rc = run->obj->part(w, &w->part);
    if (rc != 0 && !w->rc)
        rt_fail(w, rc, "%s", ptm_strerror(rc));
    if (run->opts.trace)
        w->busy += now_seconds() - t0;
}

/* The message of a failure of w (or of the pull on the coordinator) into
 * err, with where the job declares the hook. */
static int failure(const struct ptm_run *run, const struct rt_worker *w, bool pull, bool objective,
                   char *err, size_t errlen)
{
    const char *at = objective ? run->opts.objective_at : run->opts.update_at;
    char who[32];
    if (pull)
        snprintf(who, sizeof(who), "pull");
    else
        snprintf(who, sizeof(who), "worker %d", w->id + 1);
    snprintf(err, errlen, "%s: %s%s%s%s", who, w->msg, at ? "\n" : "", at ? at : "",
             !at          ? ""
             : objective ? ": note: the objective is declared here"
                         : ": note: the update rule is declared here");
    return w->rc;
}

/* The first failure of the last phase, in worker order. */
static int phase_failure(struct ptm_run *run, bool objective, char *err, size_t errlen)
{
    for (int p = 0; p < run->P; p++)
        if (run->w[p].rc)
            return failure(run, &run->w[p], false, objective, err, errlen);
    return 0;
}

/* Run one phase; a worker's failure ends the run. */
/* A clock read for the trace's time split: 0 when not tracing (a read
 * costs as much as a small round). */
static double tnow(const struct ptm_run *run)
{
    return run->opts.trace ? now_seconds() : 0;
}

static int phase(struct ptm_run *run, const struct rt_work *wk, char *err, size_t errlen)
{
    double t = tnow(run);
    if (run->P > 1 && !wk->alone) {
        int rc = run->backend->ready(run, err, errlen);
        if (rc != 0)
            return rc;
    }
    run->work = *wk;
    run->backend->phase(run);
    if (!wk->objective || wk->push) /* evaluate() counts its own */
        run->work_seconds += tnow(run) - t;
    return phase_failure(run, wk->objective && !wk->push, err, errlen);
}

int rt_map(struct ptm_run *run, int op, char *err, size_t errlen)
{
    struct rt_work wm = {.map = op + 1};
    return phase(run, &wm, err, errlen);
}

static int record_objective(struct ptm_run *run, double f)
{
    if (run->nhist == run->caphist) {
        double *h = ptm_realloc(run->hist, 2 * run->caphist * sizeof(double));
        if (!h)
            return PTM_ENOMEM;
        run->hist = h;
        run->caphist *= 2;
    }
    run->hist[run->nhist++] = f;
    return 0;
}

static int64_t sweeps(const struct ptm_run *run);

static void progress(const struct ptm_run *run);

/* Without an objective, progress at the end of a sweep: the first, then
 * at most one a second. */
static void speak(struct ptm_run *run)
{
    int64_t sw = sweeps(run);
    if (run->obj || sw <= run->spoke_sweep ||
        (run->spoke_sweep > 0 && run->seconds - run->spoke_at < 1.0))
        return;
    run->spoke_sweep = sw;
    run->spoke_at = run->seconds;
    progress(run);
}

/* Evaluations in a row at which the objective got worse before a warning:
 * few enough to catch a divergence early, more than SGD's noise makes. */
#define RT_WORSE_RUN 3

/* Say once that the objective got worse RT_WORSE_RUN times in a row. */
static void warn_worse(struct ptm_run *run)
{
    int better = run->obj->better;
    int64_t sw = sweeps(run), from = run->eval_sweep;
    run->eval_sweep = sw;
    if (!better || run->worse_told || run->nhist < 2)
        return;
    double a = run->hist[run->nhist - 2], b = run->hist[run->nhist - 1];
    double slack = 1e-12 * fabs(a);
    if (!(better < 0 ? b > a + slack : b < a - slack)) {
        run->worse = 0;
        return;
    }
    if (run->worse++ == 0) {
        run->worse_from = a;
        run->worse_sweep = from;
    }
    if (run->worse < RT_WORSE_RUN || !run->opts.log)
        return;
    run->worse_told = true;
    fprintf(run->opts.log,
            "%sptm: warning: the objective got worse at %d evaluations in a row, from %.10g "
            "at sweep %lld to %.10g at sweep %lld (steps too large? a held-out score past "
            "its best?)\n",
            run->opts.log_tty && !run->opts.quiet ? "\r\033[K" : "", run->worse, run->worse_from,
            (long long)run->worse_sweep, b, (long long)sw);
}

static int evaluate_now(struct ptm_run *run, const struct rt_round *pending, char *err,
                        size_t errlen);

/* Evaluate the objective (applying the pending round first), its time
 * counted as the objective's. */
static int evaluate(struct ptm_run *run, const struct rt_round *pending, char *err, size_t errlen)
{
    double t = tnow(run);
    int rc = evaluate_now(run, pending, err, errlen);
    run->objective_seconds += tnow(run) - t;
    return rc;
}

static int evaluate_now(struct ptm_run *run, const struct rt_round *pending, char *err,
                        size_t errlen)
{
    if (run->rule->sync && run->rule->kind != RT_CLOCKS && run->rule->sync(run) != 0) {
        snprintf(err, errlen, "the parameter store failed");
        return PTM_EINVAL;
    }
    if (run->holder && !run->rule->sync && rt_gather_blocks(run) != 0)
        return PTM_ENOMEM;
    double part;
    int rc;
    /* every rank decides alike: what the update computed is the same on all
     * (a round pending for a rule without apply has nothing left to do) */
    if ((pending && run->rule->apply) || !run->obj->known || !run->obj->known(run, &part)) {
        struct rt_work wk = {.apply = pending, .objective = true,
                             .alone = run->rule->alone && run->rule->alone(run, NULL)};
        if ((rc = phase(run, &wk, err, errlen)) != 0)
            return rc;
        part = run->backend->reduce_part(run);
        ptm_comm_sum_to_root(&part, 1);
    }
    if (run->rank == 0) { /* rank 0 keeps the history */
        double f = run->obj->finish(run, part);
        if (!isfinite(f)) {
            snprintf(err, errlen, "the objective is %g%s%s", f,
                     run->opts.objective_at ? "\n" : "",
                     run->opts.objective_at ? run->opts.objective_at : "");
            if (run->opts.objective_at)
                snprintf(err + strlen(err), errlen - strlen(err),
                         ": note: the objective is declared here");
            return PTM_EINVAL;
        }
        if ((rc = record_objective(run, f)) != 0)
            return rc;
        warn_worse(run);
    }
    return rt_metrics_eval(run, err, errlen);
}

static double rel_change(const struct ptm_run *run)
{
    if (run->nhist < 2)
        return INFINITY;
    double a = run->hist[run->nhist - 1], b = run->hist[run->nhist - 2];
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static int64_t sweeps(const struct ptm_run *run)
{
    switch (run->rule->kind) {
    case RT_ROTATION: /* G rounds: every worker has held every block */
        return run->round / run->G;
    case RT_CLOCKS: /* a pass over the largest shard */
        return run->round / run->clocks_per_sweep;
    default:
        return run->updates / run->nblocks;
    }
}

/* The bounds of the stop rule: each top-level `or` part that is a
 * global compared with a constant, `sweeps >= N`, `seconds > S` (or >=),
 * `rounds >= R`; the smallest of each. */
static void stop_bounds(struct ptm_run *run)
{
    const struct prog *st = &run->plan->stop;
    uint32_t begin[PROG_MAX_OR_PARTS], stop[PROG_MAX_OR_PARTS];
    uint32_t n = run->plan->has_stop ? prog_or_parts(st, begin, stop, PROG_MAX_OR_PARTS) : 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct prog_insn *c = st->code + begin[k];
        if (stop[k] - begin[k] != 3 || c[0].op != PROG_GLOBAL || c[1].op != PROG_CONST ||
            (c[2].op != PROG_GE && c[2].op != PROG_GT))
            continue;
        double v = st->consts[c[1].a];
        int slot = c[0].a == PROG_G_SWEEPS ? 0 : c[0].a == PROG_G_SECONDS ? 1
                   : c[0].a == PROG_G_ROUNDS ? 2 : -1;
        if (slot >= 0 && v > 0 && isfinite(v) && (run->bound[slot] == 0 || v < run->bound[slot]))
            run->bound[slot] = v;
    }
}

/* Seconds left until a bound of the stop rule holds, at the pace so far;
 * NaN when there is none to go by. */
static double eta(const struct ptm_run *run)
{
    double t = run->seconds, left = NAN;
    int64_t sw = sweeps(run);
    if (run->bound[0] > 0 && sw > 0)
        left = fmax(t * (run->bound[0] / (double)sw - 1), 0);
    if (run->bound[1] > 0)
        left = fmin(isnan(left) ? INFINITY : left, fmax(run->bound[1] - t, 0));
    if (run->bound[2] > 0 && run->round > 0)
        left = fmin(isnan(left) ? INFINITY : left,
                    fmax(t * (run->bound[2] / (double)run->round - 1), 0));
    return left;
}

/* The rule's units in a sweep (enum rt_unit_of), summed to rank 0. A
 * collective: every rank calls it. */
static void count_sweep_units(struct ptm_run *run)
{
    double u = 0;
    const struct ptm_dataset *ds = run->rowdata >= 0 ? run->data[run->rowdata] : NULL;
    if (ds && ds->sparse && run->rule->unit) {
        if (run->rule->unit_of == RT_UNIT_ENTRIES)
            u = (double)ds->csr.nnz;
        else if (run->rule->unit_of == RT_UNIT_ROWS)
            u = (double)ds->csr.nrows;
        else if (run->rule->unit_of == RT_UNIT_VALUES && run->dropped)
            u = run->dropped_sum;
        else if (run->rule->unit_of == RT_UNIT_VALUES)
            for (int64_t e = 0; e < ds->csr.nnz; e++)
                u += ds->csr.val[e];
    }
    ptm_comm_sum_to_root(&u, 1);
    run->sweep_units = u;
}

/* The rule's units a second so far, and their name. */
static double unit_rate(const struct ptm_run *run, const char **name)
{
    if (!(run->seconds > 0))
        return 0;
    if (!run->rule->unit || run->rule->unit_of == RT_UNIT_BLOCKS || !(run->sweep_units > 0)) {
        *name = "updates";
        return (double)run->updates / run->seconds;
    }
    *name = run->rule->unit;
    double frac = run->rule->kind == RT_ROTATION ? (double)run->round / run->G
                  : run->rule->kind == RT_CLOCKS ? (double)run->round / (double)run->clocks_per_sweep
                                                 : (double)sweeps(run);
    return run->sweep_units * frac / run->seconds;
}

static void progress(const struct ptm_run *run)
{
    FILE *log = run->opts.log;
    if (!log || run->opts.quiet)
        return;
    double f = run->nhist ? run->hist[run->nhist - 1] : NAN;
    const char *unit = "updates";
    double ups = unit_rate(run, &unit);
    char damped[80] = "", left[48] = "";
    if (run->damped) { /* before elapsed, which stays last */
        int at = snprintf(damped, sizeof(damped), "damped %lld ", (long long)run->damped);
        if (run->offer > 0 && at > 0 && (size_t)at < sizeof(damped))
            snprintf(damped + at, sizeof(damped) - (size_t)at, "offer %lld ",
                     (long long)run->offer);
    }
    double e = eta(run);
    if (!isnan(e) && run->round > 0)
        snprintf(left, sizeof(left), "eta %.3gs ", e);
    fprintf(log, "%sround %lld sweep %lld", run->opts.log_tty ? "\r\033[K" : "",
            (long long)run->round, (long long)sweeps(run));
    if (run->obj)
        fprintf(log, " objective %.10g rel_change %.3g", f, rel_change(run));
    rt_metrics_print(run, log, false);
    fprintf(log, " %s/s %.3g %s%selapsed %.3fs%s", unit, ups, damped, left, run->seconds,
            run->opts.log_tty ? "" : "\n");
    fflush(log);
}

/* Is the objective due after this round? */
static bool objective_due(struct ptm_run *run)
{
    const struct plan_hook *o = &run->plan->objective;
    int64_t every = o->every > 0 ? o->every : 1;
    int64_t now = o->every_unit == PLAN_UNIT_SWEEPS ? sweeps(run) : run->round;
    if (now - run->obj_mark < every)
        return false;
    run->obj_mark = now;
    return true;
}

/* GLOBAL: the signal (SIGINT, SIGTERM) the handler caught first, read by
 * the round loop after each round; a lock-free atomic, so safe from a
 * signal handler. */
static atomic_int signal_seen;

static void on_signal(int sig)
{
    int none = 0;
    atomic_compare_exchange_strong(&signal_seen, &none, sig);
}

void ptm_run_catch_signals(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on ? on_signal : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool ptm_run_interrupted(void)
{
    return atomic_load(&signal_seen) != 0;
}

int ptm_run_signal(void)
{
    return atomic_load(&signal_seen);
}

/* Does the program read global g? */
static bool reads_global(const struct prog *p, enum prog_global g)
{
    for (uint32_t i = 0; i < p->ncode; i++)
        if (p->code[i].op == PROG_GLOBAL && p->code[i].a == (int32_t)g)
            return true;
    return false;
}

static bool stop_now(struct ptm_run *run)
{
    const struct ptm_plan *plan = run->plan;
    if (!plan->has_stop || plan->stop.ncode == 0)
        return sweeps(run) >= PTM_RUN_SWEEP_CAP;
    /* the rule's value changes only with what it reads: unless it reads
     * the rounds, only at a new sweep, clock reading or objective */
    int64_t sw = sweeps(run);
    if (run->stop_memo && run->stop_at[0] == sw && run->stop_at[1] == (int64_t)run->nhist &&
        run->stop_seconds == run->seconds)
        return false;
    run->stop_memo = !reads_global(&plan->stop, PROG_G_ROUNDS);
    run->stop_at[0] = sw;
    run->stop_at[1] = (int64_t)run->nhist;
    run->stop_seconds = run->seconds;
    double g[PROG_NGLOBALS];
    g[PROG_G_ROUNDS] = (double)run->round;
    g[PROG_G_SWEEPS] = (double)sw;
    g[PROG_G_SECONDS] = run->seconds;
    g[PROG_G_OBJECTIVE] = run->nhist ? run->hist[run->nhist - 1] : NAN;
    g[PROG_G_REL_CHANGE] = rel_change(run);
    g[PROG_G_WORKERS] = (double)run->G;
    struct prog_env env = {.globals = g, .metrics = run->mvals};
    double v = prog_eval(&plan->stop, &env);
    return v != 0 && !isnan(v);
}

/* Every worker's push wrote as many values. */
static int check_zlen(struct ptm_run *run, char *err, size_t errlen)
{
    for (int p = 1; p < run->P; p++)
        if (run->w[p].zlen != run->w[0].zlen) {
            snprintf(err, errlen,
                     "push returned %zu values on worker 1 but %zu on worker %d: every "
                     "worker must return as many values for each block%s%s%s",
                     run->w[0].zlen, run->w[p].zlen, p + 1, run->opts.update_at ? "\n" : "",
                     run->opts.update_at ? run->opts.update_at : "",
                     run->opts.update_at ? ": note: the update rule is declared here" : "");
            return PTM_EINVAL;
        }
    return 0;
}

void rt_sched_globals(struct ptm_run *run)
{
    if (!run->has_senv)
        return;
    double *g = run->senv.globals;
    g[PROG_G_ROUNDS] = (double)run->round;
    g[PROG_G_SWEEPS] = (double)sweeps(run);
    g[PROG_G_SECONDS] = run->seconds;
    g[PROG_G_OBJECTIVE] = run->nhist ? run->hist[run->nhist - 1] : NAN;
    g[PROG_G_REL_CHANGE] = rel_change(run);
    g[PROG_G_WORKERS] = (double)run->G;
}

/* Is rd's order the policy's? */
static bool in_policy_order(const struct rt_round *rd)
{
    if (rd->alone) /* its order is not written */
        return true;
    for (size_t i = 0; i < rd->n; i++)
        if (rd->order[i] != i)
            return false;
    return true;
}

/* Put rd's blocks in the policy's order (for rules by rows, which push
 * every block on every worker). */
static void to_policy_order(struct ptm_run *run, struct rt_round *rd)
{
    if (in_policy_order(rd))
        return;
    int64_t *tmp = run->canon.blocks;
    memcpy(tmp, rd->blocks, rd->n * sizeof(int64_t));
    for (size_t i = 0; i < rd->n; i++) {
        rd->blocks[rd->order[i]] = tmp[i];
        rd->order[i] = i;
    }
}

/* A split round as the policy ordered it, for apply: the workers' shares
 * are contiguous in rd, but apply (which sums every block's contribution
 * into each row) must see the same order for any number of workers. */
static const struct rt_round *policy_view(struct ptm_run *run, const struct rt_round *rd)
{
    if (in_policy_order(rd))
        return rd;
    struct rt_round *c = &run->canon;
    c->n = rd->n;
    c->off[0] = 0;
    for (size_t i = 0; i < rd->n; i++)
        c->off[rd->order[i] + 1] = rd->off[i + 1] - rd->off[i];
    for (size_t i = 0; i < rd->n; i++)
        c->off[i + 1] += c->off[i];
    for (size_t i = 0; i < rd->n; i++) {
        size_t at = rd->order[i], len = (size_t)(rd->off[i + 1] - rd->off[i]);
        c->blocks[at] = rd->blocks[i];
        c->order[at] = at;
        memcpy(c->vars + c->off[at], rd->vars + rd->off[i], len * sizeof(int64_t));
        memcpy(c->change + c->off[at], rd->change + rd->off[i], len * sizeof(double));
    }
    c->nvars = rd->nvars;
    c->candidates = rd->candidates;
    c->conflicts = rd->conflicts;
    c->evaluations = rd->evaluations;
    return c;
}

/* How much the limit on a round's blocks grows after each round that was
 * not damped (offer_after). On the bench's tall data (non-negative
 * columns, labels of a large mean) `dynamic { sample 4000 }` reached 1e-2
 * of f* in 1.03 s growing by 2% a round and 1.00 s by 5%, 1e-4 in 1.71
 * s either way (one run each; with `sample 1000` and 10% a round 1e-4
 * was not reached in 100 sweeps, nor without the limit, which left most
 * rounds damped: bench/RESULTS.md, "Damped rounds and the blocks
 * offered"). */
#define OFFER_GROWTH 1.02

/* For the note on the first damped round: a built-in coordinate descent
 * that computes a round's coefficients together could take them one after
 * the other instead (within = sequential), which one worker never damps. */
static const char *sequential_hint(const struct ptm_run *run)
{
    const struct plan_hook *u = &run->plan->update;
    if (!u->builtin ||
        (strcmp(u->builtin, "lasso_cd") != 0 && strcmp(u->builtin, "logreg_cd") != 0))
        return "";
    if (rt_within_sequential(u))
        return "";
    return strcmp(u->builtin, "lasso_cd") == 0
               ? "; lasso_cd { within = sequential } takes a round's coefficients one after the "
                 "other, which one worker never damps"
               : "; logreg_cd { within = sequential } takes a round's coefficients one after the "
                 "other, which one worker never damps";
}

/* After a round of n blocks committed with step t, under a policy that
 * takes a limit on its rounds: a round damped to t < 1 held about 1/t
 * times the blocks whose changes add up without overshooting, so the next
 * rounds ask for ceil(n t) at most; each round not damped lets the limit
 * grow by OFFER_GROWTH (at least one block), until it reaches the
 * policy's own number and no limit is set. A function of the steps, which
 * are the same bits for any number of workers: so are the rounds. */
static void offer_after(struct ptm_run *run, size_t n, double t)
{
    if (!run->sched->limits || run->rank != 0)
        return;
    double cap = (double)run->sched->cap(run->sched_state);
    if (t < 1) {
        double o = ceil((double)n * t);
        run->offer = o < 1 ? 1 : o < cap ? (int64_t)o : 0;
        /* with the progress lines, which --quiet silences */
        if (run->offer > 0 && !run->offer_told && run->opts.log && !run->opts.quiet) {
            run->offer_told = true;
            fprintf(run->opts.log,
                    "%snote: round %lld was damped (step %.3g): from now on %s offers at most "
                    "%lld blocks a round, more again as rounds go undamped (spec/runtime.md, "
                    "Damped rounds)%s\n",
                    run->opts.log_tty ? "\r\033[K" : "", (long long)run->round + 1, t,
                    run->sched->name, (long long)run->offer, sequential_hint(run));
        }
    } else if (run->offer > 0) {
        double o = ceil((double)run->offer * OFFER_GROWTH);
        run->offer = o < cap ? (int64_t)o : 0;
    }
}

/* A round of a rule that damps: its step, the new values moved back to
 * old + step (new - old), then the commit of the whole round. */
static void damp_commit(struct ptm_run *run, struct rt_round *rd)
{
    double rise = 0, t = run->rule->damp(run, rd, &rise);
    run->step = t;
    offer_after(run, rd->n, t);
    if (t < 1) {
        const double *val = run->params[run->sparam].val;
        for (size_t v = 0; v < rd->nvars; v++)
            run->newval[v] = val[rd->vars[v]] + t * (run->newval[v] - val[rd->vars[v]]);
        run->damped++;
    }
    rt_commit(run, rd, 0, rd->n, 0);
}

/* The pull and the commit of a round whose sums are in run->zsum (this
 * rank's): rank 0 pulls the sums over the ranks and tells every rank the
 * new values, which each then commits. */
static int pull_ranks(struct ptm_run *run, struct rt_round *rd, size_t zlen, char *err,
                      size_t errlen)
{
    ptm_comm_sum_to_root(run->zsum, zlen);
    int failed = run->rank == 0 && run->rule->pull(run, rd, run->zsum, zlen, run->newval) != 0;
    if (run->recheck && run->rank == 0 && !failed)
        recheck_newval(run, rd);
    if (run->damps && run->rule->damp_part) {
        /* the step of the round's combined change needs sums over every
         * rank's rows: the new values to all, their parts to rank 0 (a
         * pull that failed ends the job there, the others with it) */
        if (failed)
            return failure(run, &run->w[0], true, false, err, errlen);
        ptm_comm_bcast(run->newval, rd->nvars * sizeof(double));
        double sums[RT_DAMP_SUMS] = {0};
        run->rule->damp_part(run, rd, sums);
        ptm_comm_sum_to_root(sums, RT_DAMP_SUMS);
        memcpy(run->damp_sums, sums, sizeof(sums));
        if (run->rank == 0)
            damp_commit(run, rd);
        return 0;
    }
    if (failed)
        return failure(run, &run->w[0], true, false, err, errlen);
    /* the other ranks get the new values with the next round (rt_tell_round),
     * or before the objective (rt_settle) */
    if (run->rank == 0)
        rt_commit(run, rd, 0, rd->n, 0);
    return 0;
}

/* A checkpoint when one is due (rank 0 decides, the others are told):
 * the round owed committed on every rank and the round pending applied
 * by every worker first, as before an evaluation, so that the state
 * saved has nothing in flight. */
static int checkpoint_if_due(struct ptm_run *run, FILE *trace, const struct rt_round **pending,
                             struct rt_round **owed, char *err, size_t errlen)
{
    int64_t due = rt_ckpt_due(run, sweeps(run));
    if (run->nranks > 1)
        ptm_comm_bcast(&due, sizeof(due));
    if (!due)
        return 0;
    if (owed && *owed) {
        rt_settle(run, *owed);
        if (run->rank != 0)
            *pending = run->split ? policy_view(run, *owed) : *owed;
        *owed = NULL;
    }
    if (pending && *pending) {
        struct rt_work wk = {.apply = *pending};
        int rc = phase(run, &wk, err, errlen);
        if (rc != 0)
            return rc;
        *pending = NULL;
    }
    return rt_ckpt_write(run, trace, sweeps(run), err, errlen);
}

/* data_parallel: phases of clocks, each a sweep (or the objective's
 * interval in rounds, when shorter), with no barrier between the clocks
 * of a phase (the parameter store keeps workers within the staleness);
 * the objective, the stop rule and the trace between phases. A round is
 * a clock of every worker. */
static int clock_phases(struct ptm_run *run, FILE *trace, char *err, size_t errlen)
{
    const struct plan_hook *o = &run->plan->objective;
    int64_t len = run->clocks_per_sweep;
    if (run->obj && o->every_unit == PLAN_UNIT_ROUNDS && o->every > 0 && o->every < len)
        len = o->every;
    if (run->clock_period > 0 && run->clock_period < len)
        len = run->clock_period; /* the ranks exchange updates between phases */
    int rc = 0;
    if (run->obj && run->nhist == 0 && !run->resumed) { /* only rank 0 keeps the history */
        if ((rc = evaluate(run, NULL, err, errlen)) != 0)
            return rc;
        progress(run);
    }
    run->objective_seconds = 0; /* before the first clock: not in its seconds */
    /* seconds count from the first clock, and not the trace's writing */
    double t0 = now_seconds() - run->seconds;
    for (;;) {
        /* rank 0 decides whether to go on; the other ranks are told */
        int64_t stop = run->rank == 0 && (stop_now(run) || ptm_run_interrupted());
        if (run->nranks > 1)
            ptm_comm_bcast(&stop, sizeof(stop));
        if (stop)
            break;
        int64_t n = run->batch ? 1 : len;
        if (run->batch) { /* its passes count as work (phase), the rest as combining */
            double tb = tnow(run), w0 = run->work_seconds;
            if ((rc = run->rule->batch(run, err, errlen)) != 0)
                return rc;
            run->combine_seconds += tnow(run) - tb - (run->work_seconds - w0);
        } else if (run->anchor_every > 0) {
            /* the anchors: at the first clock and every anchor_every sweeps */
            int64_t every = run->anchor_every * run->clocks_per_sweep, into = run->round % every;
            if (into == 0) {
                struct rt_work wa = {.anchor = true};
                if ((rc = phase(run, &wa, err, errlen)) != 0 ||
                    (rc = run->rule->anchored(run)) != 0)
                    return rc;
            }
            if (n > every - into)
                n = every - into;
        }
        struct rt_work wk = {.push = &run->rounds[0], .clocks = n};
        if (!run->batch && (rc = phase(run, &wk, err, errlen)) != 0)
            return rc;
        double tc = tnow(run);
        if ((rc = run->rule->sync(run)) != 0)
            return rc;
        run->combine_seconds += tnow(run) - tc;
        run->round += n;
        run->updates += n * run->P;
        run->seconds = now_seconds() - t0;
        bool evaluated = run->obj && objective_due(run);
        if (evaluated) {
            if ((rc = evaluate(run, NULL, err, errlen)) != 0)
                return rc;
            progress(run);
        }
        speak(run);
        if (trace) {
            double tw = now_seconds();
            run->seconds = tw - t0; /* the round's evaluation is in its seconds */
            run->rounds[0].n = 0;
            if (rt_trace_round(trace, run, &run->rounds[0], n * run->P, evaluated) != 0) {
                snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                         strerror(errno));
                return PTM_EIO;
            }
            t0 += now_seconds() - tw;
        }
        if (run->ckpt && (rc = checkpoint_if_due(run, trace, NULL, NULL, err, errlen)) != 0)
            return rc;
    }
    if ((run->obj || run->spoke_sweep) && run->opts.log && !run->opts.quiet && run->opts.log_tty)
        fputc('\n', run->opts.log); /* end the updating line */
    return 0;
}

static int rounds(struct ptm_run *run, FILE *trace, char *err, size_t errlen)
{
    if (run->rule->kind == RT_CLOCKS)
        return clock_phases(run, trace, err, errlen);
    int rc = 0;
    int clock_every = 1, clock_left = 1;
    const struct rt_round *pending = NULL; /* committed, not yet applied */
    struct rt_round *owed = NULL; /* under MPI: committed on rank 0 only so far */
    if (run->obj && run->nhist == 0 && !run->resumed) { /* only rank 0 keeps the history */
        if ((rc = evaluate(run, NULL, err, errlen)) != 0)
            return rc;
        progress(run);
    }
    run->objective_seconds = 0; /* before the first round: not in its seconds */
    /* seconds count from the first round, and not the trace's writing */
    double t0 = now_seconds() - run->seconds;
    for (;;) {
        struct rt_round *rd = &run->rounds[run->cur];
        /* rank 0 decides whether to go on and schedules; the other ranks
         * are told */
        int64_t head[2] = {0, 0}; /* stop, blocks */
        double ts = trace ? now_seconds() : 0;
        if (run->rank == 0) {
            head[0] = stop_now(run) || ptm_run_interrupted();
            if (!head[0]) {
                /* a round that apply sees as dealt needs no policy order */
                struct ptm_sched_round sr = {.blocks = rd->blocks,
                                             .part = rd->part,
                                             .order = run->apply_dealt && !run->want_order &&
                                                              !run->recheck && run->nranks == 1
                                                          ? NULL
                                                          : rd->order,
                                             .limit = (size_t)run->offer};
                rt_sched_globals(run);
                rc = run->sched->next(run->sched_state, &sr, err, errlen);
                /* an index out of range says more than the NaN it gave */
                if (rt_expr_fault(run, err, errlen) != 0)
                    return PTM_EINVAL;
                if (rc != 0)
                    return rc;
                rd->n = sr.n;
                rd->candidates = sr.candidates;
                rd->conflicts = sr.conflicts;
                rd->evaluations = sr.evaluations;
                rd->alone = sr.alone;
                head[1] = (int64_t)rd->n;
            }
        }
        if (run->nranks > 1) {
            rt_tell_round(run, rd, head, owed);
            if (owed && run->rank != 0) /* now committed here too */
                pending = run->split ? policy_view(run, owed) : owed;
            owed = NULL;
        }
        if (head[0])
            break;
        if (trace) {
            run->sched_seconds = now_seconds() - ts + run->setup_sched_seconds;
            run->setup_sched_seconds = 0;
        }
        if (!run->split)
            to_policy_order(run, rd);
        if (run->expand_late) { /* each worker fills its share: expand_share() */
            rd->nvars = rd->n;
        } else if (run->rule->kind == RT_ROTATION) { /* no list: see rt_make_schedule() */
            rd->nvars = 0;
        } else {
            rt_expand_round(run, rd);
        }
        const struct rt_round *applied = rd; /* what apply will see */
        if (run->rule->kind == RT_ROTATION) {
            /* each worker writes its own variables: nothing to combine */
            double tc = tnow(run);
            if (run->holder)
                rt_move_blocks(run, rd);
            run->combine_seconds += tnow(run) - tc;
            struct rt_work wp = {.push = rd};
            if ((rc = phase(run, &wp, err, errlen)) != 0)
                return rc;
            tc = tnow(run);
            if (run->holder && run->rule->exchange && run->rule->exchange(run) != 0) {
                snprintf(err, errlen, "the parameter store failed");
                return PTM_EINVAL;
            }
            run->combine_seconds += tnow(run) - tc;
            applied = NULL;
        } else if (run->split) {
            /* each worker applies to state of its own: apply and push in
             * one phase (on the first worker alone when the rule says the
             * others have nothing to do; it then fills their shares'
             * variables too) */
            struct rt_work wp = {.apply = pending, .push = rd,
                                 .alone = run->rule->alone && run->rule->alone(run, rd)};
            for (int p = 1; wp.alone && run->expand_late && p < run->P; p++)
                expand_share(rd, p);
            if ((rc = phase(run, &wp, err, errlen)) != 0)
                return rc;
            double tc = tnow(run);
            if (run->damps && run->nranks == 1 && wp.alone && run->rule->alone_undamped &&
                run->rule->alone_undamped(run)) {
                double rise = 0; /* committed in the phase */
                run->committed = true;
                run->step = run->rule->damp(run, rd, &rise);
                run->committed = false;
                PTM_ASSERT(run->step == 1);
                offer_after(run, rd->n, 1);
            } else if (run->damps && run->nranks == 1) {
                damp_commit(run, rd);
            }
            if (run->nranks > 1) {
                if ((rc = pull_ranks(run, rd, run->rule->zcap(run, rd->n, rd->nvars), err,
                                     errlen)) != 0)
                    return rc;
                owed = rd;
            }
            run->combine_seconds += tnow(run) - tc;
            applied = run->apply_dealt || (run->nranks > 1 && run->rank != 0) ? rd
                                                                             : policy_view(run, rd);
        } else {
            struct rt_work wk = {.apply = pending, .push = rd};
            if ((rc = phase(run, &wk, err, errlen)) != 0)
                return rc;
            double tc = tnow(run);
            if ((rc = check_zlen(run, err, errlen)) != 0)
                return rc;
            size_t zlen = run->w[0].zlen;
            run->backend->reduce_z(run, zlen, run->zsum);
            if ((rc = pull_ranks(run, rd, zlen, err, errlen)) != 0)
                return rc;
            if (run->nranks > 1)
                owed = rd;
            run->combine_seconds += tnow(run) - tc;
        }
        if (run->sched->done && applied && run->rank == 0) {
            ts = trace ? now_seconds() : 0;
            tell_done(run, rd);
            if (trace)
                run->sched_seconds += now_seconds() - ts;
        }
        pending = applied;
        run->cur ^= 1;
        run->round++;
        run->updates += (int64_t)rd->n;
        /* a clock read costs as much as the smallest rounds: read it about
         * every microsecond of work, and at every round that reports */
        bool evaluated = run->obj && objective_due(run);
        if (--clock_left <= 0 || evaluated || trace) {
            double now = now_seconds() - t0;
            clock_every = now - run->seconds < 1e-6 * clock_every ? clock_every * 2 : 1;
            if (clock_every > 64)
                clock_every = 64;
            clock_left = clock_every;
            run->seconds = now;
        }
        if (evaluated) {
            if (owed) {
                rt_settle(run, owed);
                if (run->rank != 0)
                    pending = run->split ? policy_view(run, owed) : owed;
                owed = NULL;
            }
            if ((rc = evaluate(run, pending, err, errlen)) != 0)
                return rc;
            pending = NULL;
            progress(run);
        }
        speak(run);
        if (trace) {
            double tw = now_seconds();
            run->seconds = tw - t0; /* the round's evaluation is in its seconds */
            if (rt_trace_round(trace, run, rd, (int64_t)rd->n, evaluated) != 0) {
                snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                         strerror(errno));
                return PTM_EIO;
            }
            t0 += now_seconds() - tw;
        }
        if (run->ckpt && (rc = checkpoint_if_due(run, trace, &pending, &owed, err, errlen)) != 0)
            return rc;
    }
    /* bring the workers' local state (sharded parameters) up to date */
    if (pending) {
        struct rt_work wk = {.apply = pending};
        rc = phase(run, &wk, err, errlen);
    }
    if ((run->obj || run->spoke_sweep) && run->opts.log && !run->opts.quiet && run->opts.log_tty)
        fputc('\n', run->opts.log); /* end the updating line */
    return rc;
}

/* The parts of a stop rule's text at its top-level `or`s: n of them (at
 * most max), part k the len[k] characters at from[k]. */
static uint32_t text_or_parts(const char *text, const char **from, int *len, uint32_t max)
{
    uint32_t n = 0;
    int depth = 0;
    from[0] = text;
    for (const char *c = text;; c++) {
        if (*c == '(' || *c == '[')
            depth++;
        else if (*c == ')' || *c == ']')
            depth--;
        if (*c == '\0' || (depth == 0 && strncmp(c, " or ", 4) == 0 && n + 1 < max)) {
            len[n] = (int)(c - from[n]);
            if (!*c)
                return n + 1;
            from[++n] = c + 4;
            c += 3;
        }
    }
}

/* The values of the globals and metrics that code[begin..stop-1] reads,
 * each once: " (sweeps 6, rel_change(objective) 6.4e-10)". */
static void rule_values(FILE *log, const struct ptm_run *run, const struct prog *st,
                        uint32_t begin, uint32_t stop, const double *g)
{
    static const char *const gname[] = {
#define X(name, text) text,
        PROG_GLOBAL_LIST(X)
#undef X
    };
    static const char *const mof[] = {"%s", "rel_change(%s)", "since_best(%s)"};
    const struct ptm_plan *plan = run->plan;
    const char *sep = " (";
    for (uint32_t i = begin; i < stop; i++) {
        const struct prog_insn *in = &st->code[i];
        bool global = in->op == PROG_GLOBAL && in->a >= 0 && in->a < PROG_NGLOBALS;
        bool metric = in->op == PROG_METRIC && run->mvals && in->a >= 0 &&
                      (uint32_t)in->a < plan->nmetrics && in->b >= 0 && in->b < PROG_METRIC_OF;
        if (!global && !metric)
            continue;
        bool seen = false;
        for (uint32_t j = begin; j < i && !seen; j++)
            seen = st->code[j].op == in->op && st->code[j].a == in->a && st->code[j].b == in->b;
        if (seen)
            continue;
        fputs(sep, log);
        if (global)
            fprintf(log, "%s %.4g",
                    in->a == PROG_G_REL_CHANGE ? "rel_change(objective)" : gname[in->a], g[in->a]);
        else {
            fprintf(log, mof[in->b], plan->metrics[in->a].name);
            fprintf(log, " %.4g", run->mvals[PROG_METRIC_OF * in->a + in->b]);
        }
        sep = ", ";
    }
    if (sep[0] == ',')
        fputc(')', log);
}

/* Why the run ended, on one line without its newline: of a stop rule
 * `a or b or c`, the first part that holds, with the values it reads. */
static void stop_why(const struct ptm_run *run, FILE *log)
{
    const struct ptm_plan *plan = run->plan;
    if (ptm_run_interrupted()) {
        fputs(ptm_run_signal() == SIGTERM ? "terminated (SIGTERM)" : "interrupted", log);
        return;
    }
    if (!plan->has_stop || plan->stop.ncode == 0) {
        fprintf(log, "%d sweeps, the most a job without a stop rule runs", PTM_RUN_SWEEP_CAP);
        return;
    }
    const struct prog *st = &plan->stop;
    double g[PROG_NGLOBALS] = {
        [PROG_G_ROUNDS] = (double)run->round,
        [PROG_G_SWEEPS] = (double)sweeps(run),
        [PROG_G_SECONDS] = run->seconds,
        [PROG_G_OBJECTIVE] = run->nhist ? run->hist[run->nhist - 1] : NAN,
        [PROG_G_REL_CHANGE] = rel_change(run),
        [PROG_G_WORKERS] = (double)run->G,
    };
    struct prog_env env = {.globals = g, .metrics = run->mvals};
    uint32_t begin[PROG_MAX_OR_PARTS], stop[PROG_MAX_OR_PARTS];
    const char *from[PROG_MAX_OR_PARTS];
    int len[PROG_MAX_OR_PARTS];
    const char *text = st->text && st->text[0] ? st->text : "the stop rule";
    uint32_t n = prog_or_parts(st, begin, stop, PROG_MAX_OR_PARTS);
    uint32_t nt = n > 1 && st->text ? text_or_parts(st->text, from, len, PROG_MAX_OR_PARTS) : 0;
    uint32_t k = 0; /* the part that held; n: none known, the whole rule */
    for (double v; nt == n && k < n; k++)
        if ((v = prog_eval_part(st, begin[k], stop[k], &env)) != 0 && !isnan(v))
            break;
    if (nt == n && k < n) {
        fprintf(log, "%.*s", len[k], from[k]);
        rule_values(log, run, st, begin[k], stop[k], g);
    } else {
        fputs(text, log);
        rule_values(log, run, st, 0, st->ncode, g);
    }
}

/* The last progress line, "stopped at sweep S (round R, T s): WHY", and
 * the trace's last line, which says the same (rt_trace_end()). Returns 0,
 * PTM_EIO (the trace) or PTM_ENOMEM. */
static int stop_reason(const struct ptm_run *run, FILE *trace)
{
    FILE *log = run->opts.log;
    if (log && !run->opts.quiet && run->rank == 0) {
        fprintf(log, "stopped at sweep %lld (round %lld, %.3fs): ", (long long)sweeps(run),
                (long long)run->round, run->seconds);
        stop_why(run, log);
        fputc('\n', log);
    }
    if (!trace)
        return 0;
    char *why = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&why, &len);
    if (!m)
        return PTM_ENOMEM;
    stop_why(run, m);
    if (fclose(m) != 0) {
        free(why);
        return PTM_ENOMEM;
    }
    int rc = rt_trace_end(trace, run, why, sweeps(run));
    free(why);
    return rc;
}

int ptm_run_exec(struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    if (run->failed) {
        snprintf(err, errlen, "the run failed before and cannot go on");
        return PTM_EINVAL;
    }
    /* the trace is written as the outputs are: whole at the end (the
     * rounds run, even when the run then fails) or not at all (a write
     * that failed: the file it would replace stays) */
    FILE *trace = NULL;
    struct ptm_wfile tw;
    if (run->opts.trace) {
        int wrc = ptm_wfile_open(&tw, run->opts.trace);
        if (wrc != 0) {
            snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                     wrc == PTM_ENOMEM ? "out of memory" : strerror(tw.err));
            ptm_wfile_abort(&tw);
            return wrc == PTM_ENOMEM ? PTM_ENOMEM : PTM_EIO;
        }
        trace = tw.f;
    }
    int rc = rt_ckpt_trace_prefix(run, trace, err, errlen);
    if (rc == 0)
        rc = run->backend->start(run, err, errlen);
    if (rc == 0) {
        stop_bounds(run);
        count_sweep_units(run);
        rc = rounds(run, trace, err, errlen);
        run->backend->stop(run);
        /* the last state, to go on from (a stop, Ctrl-C, SIGTERM) */
        if (rc == 0 && run->ckpt)
            rc = rt_ckpt_write(run, trace, sweeps(run), err, errlen);
        if (rc == 0 && (rc = stop_reason(run, trace)) != 0)
            snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                     ptm_strerror(rc));
        /* the outputs read the parameter tables */
        run->sync_final = true;
        if (rc == 0 && run->rule->sync && run->rule->sync(run) != 0) {
            snprintf(err, errlen, "the parameter store failed");
            rc = PTM_EINVAL;
        }
        if (rc == 0 && run->holder && !run->rule->sync)
            rc = rt_gather_blocks(run);
    }
    if (trace && ptm_wfile_commit(&tw) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(tw.err));
        rc = PTM_EIO;
    }
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    if (rc != 0)
        run->failed = true;
    return rc;
}

void ptm_run_stats(const struct ptm_run *run, struct ptm_run_stats *st)
{
    st->rounds = run->round;
    st->updates = run->updates;
    st->sweeps = sweeps(run);
    st->seconds = run->seconds;
    st->objective = run->nhist ? run->hist[run->nhist - 1] : NAN;
    st->workers = run->P;
    st->damped = run->damped;
}

const double *ptm_run_history(const struct ptm_run *run, size_t *n)
{
    *n = run->nhist;
    return run->hist;
}
