/*
 * engine.c - the round loop of `ptm run` for the built-in Lasso kernel:
 * schedule, push, pull, apply (spec/runtime.md) over row shards on
 * threads.
 *
 * DESIGN: one thread per worker, started by ptm_run_exec() and joined
 * before it returns. The coordinator (the calling thread) and the workers
 * meet at two barriers per phase: the coordinator writes the phase and its
 * inputs (the scheduled columns, the changes), everyone passes `start`,
 * the workers do their part on their own shard, everyone passes `done`.
 * Between `done` and the next `start` only the coordinator runs, so it
 * reads every worker's results (z, r) and writes beta and the schedule
 * without locks: the barriers order every access. A round is a push phase,
 * the pull on the coordinator (sum of the z[p] in order p = 0, 1, ...,
 * which makes the result independent of thread timing), and an apply
 * phase. Every buffer the loop touches is allocated in ptm_run_new().
 *
 * Lock order: one mutex, `gate`, which guards run->aborted: held while the
 * threads are created, so that when one cannot be created the others
 * leave before touching the barriers. The barriers `start` and `done`
 * guard run->phase, run->cols/ns/delta, run->beta and every worker's z
 * and r.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "engine.h"
#include "kernel_lasso.h"
#include "ptm.h"
#include "wfile.h"
#include "rng.h"

/* GLOBAL: set by the SIGINT handler, read by the round loop after each
 * round; a lock-free atomic, so safe from a signal handler. */
static atomic_int sigint_seen;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&sigint_seen, 1);
}

void ptm_run_catch_sigint(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on ? on_sigint : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

bool ptm_run_interrupted(void)
{
    return atomic_load(&sigint_seen) != 0;
}

enum phase { PHASE_PUSH, PHASE_APPLY, PHASE_EXIT };

struct rt_worker {
    struct ptm_run *run;
    int id;
    int64_t lo, hi;   /* rows lo .. hi-1 of X */
    struct ptm_csc x; /* the shard, rows local */
    double *sq;       /* shard's part of ||x_j||^2, every column */
    double *r;        /* residual on the shard's rows */
    double *z;        /* LASSO_K * chunk: push results */
    pthread_t thread;
};

struct ptm_run {
    const struct ptm_plan *plan; /* borrows */
    struct ptm_run_opts opts;
    uint64_t seed;
    struct ptm_dataset **data; /* ndata; NULL for labels */
    int32_t xi, beta_p, r_p;   /* data X, parameters beta and r */
    double lambda;
    bool has_obj;
    int64_t n, d; /* rows, columns */
    int P;
    struct rt_worker *w;
    double *beta;       /* committed, d */
    double *last_delta; /* every coefficient's last change, d */
    /* the round */
    int64_t chunk; /* columns per round */
    int64_t *cols; /* chunk */
    size_t ns;
    double *zsum, *beta_new, *delta; /* LASSO_K * chunk, chunk, chunk */
    int64_t next_col;
    enum phase phase;
    pthread_barrier_t start, done;
    pthread_mutex_t gate;
    bool aborted; /* guarded by gate */
    /* counters */
    int64_t rounds, updates, obj_mark;
    double seconds;
    double *hist; /* objective history */
    size_t nhist, caphist;
    const char *policy_note;
};

/* ---- set-up ----------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct plan_option *find_option(const struct plan_hook *h, const char *key)
{
    for (uint32_t i = 0; i < h->noptions; i++)
        if (strcmp(h->options[i].key, key) == 0)
            return &h->options[i];
    return NULL;
}

/* Read every data file of the plan. */
static int load_data(struct ptm_run *run, struct ptm_data_diags *dg)
{
    const struct ptm_plan *plan = run->plan;
    const char *base = plan->base_dir ? plan->base_dir : ".";
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct plan_data *dd = &plan->data[k];
        if (dd->format == PLAN_FORMAT_LABELS)
            continue; /* read with its data */
        char path[4096], vocab[4096];
        bool rel = dd->path[0] != '/' && strcmp(base, ".") != 0;
        snprintf(path, sizeof(path), rel ? "%s/%s" : "%.0s%s", base, dd->path);
        struct ptm_data_opts o;
        ptm_data_opts_from_plan(dd, &o);
        if (dd->vocab) {
            bool vrel = dd->vocab[0] != '/' && strcmp(base, ".") != 0;
            snprintf(vocab, sizeof(vocab), vrel ? "%s/%s" : "%.0s%s", base, dd->vocab);
            o.vocab = vocab;
        }
        for (uint32_t j = 0; j < plan->ndata; j++)
            if (plan->data[j].labels_of == (int32_t)k && dd->format == PLAN_FORMAT_CSV)
                o.csv_labels = true;
        int rc = ptm_data_read(path, &o, dg, &run->data[k]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Check that this engine runs the plan and find what the kernel works on. */
static int check_plan(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_hook *u = &plan->update;
    enum plan_policy pol = plan->schedule.policy;
    if (!u->present) {
        snprintf(err, errlen, "the plan has no update rule");
        return PTM_EINVAL;
    }
    if (u->lua) {
        snprintf(err, errlen,
                 "update with Lua hooks ('%s') is not supported yet: this version "
                 "runs the built-in lasso_cd kernel only",
                 u->file ? u->file : "?");
        return PTM_EINVAL;
    }
    if (strcmp(u->builtin, "lasso_cd") != 0) {
        snprintf(err, errlen,
                 "update builtin '%s' is not supported yet: this version runs "
                 "the built-in lasso_cd kernel only",
                 u->builtin);
        return PTM_EINVAL;
    }
    if (pol != PLAN_POLICY_ROUND_ROBIN && pol != PLAN_POLICY_DYNAMIC && pol != PLAN_POLICY_RANDOM) {
        snprintf(err, errlen, "schedule %s is not supported yet for lasso_cd (use round_robin)",
                 plan_policy_name(pol));
        return PTM_EINVAL;
    }
    const struct plan_option *ox = find_option(u, "X"), *oy = find_option(u, "y"),
                             *ob = find_option(u, "beta"), *or_ = find_option(u, "r"),
                             *ol = find_option(u, "lambda");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ob ||
        ob->kind != PLAN_VALUE_PARAM || !ol || ol->kind != PLAN_VALUE_NUM ||
        (or_ && or_->kind != PLAN_VALUE_PARAM) || ox->ref < 0 || (uint32_t)ox->ref >= plan->ndata ||
        oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata || ob->ref < 0 ||
        (uint32_t)ob->ref >= plan->nparams ||
        (or_ && (or_->ref < 0 || (uint32_t)or_->ref >= plan->nparams))) {
        snprintf(err, errlen,
                 "update lasso_cd: options X, y, beta and lambda are missing or "
                 "of the wrong kind");
        return PTM_EINVAL;
    }
    const struct plan_data *dx = &plan->data[ox->ref], *dy = &plan->data[oy->ref];
    if (!dx->matrix || !dx->sparse || dx->format == PLAN_FORMAT_LABELS) {
        snprintf(err, errlen,
                 "update lasso_cd: data '%s' must be a sparse matrix "
                 "(dense X is not supported yet)",
                 dx->name);
        return PTM_EINVAL;
    }
    if (dy->format != PLAN_FORMAT_LABELS || dy->labels_of != ox->ref) {
        snprintf(err, errlen,
                 "update lasso_cd: y must be labels(%s) (a separate label file is "
                 "not supported yet)",
                 dx->name);
        return PTM_EINVAL;
    }
    if (!(ol->num >= 0) || !isfinite(ol->num)) {
        snprintf(err, errlen, "update lasso_cd: lambda must be a finite number >= 0");
        return PTM_EINVAL;
    }
    run->xi = ox->ref;
    run->beta_p = ob->ref;
    run->r_p = or_ ? or_->ref : -1;
    run->lambda = ol->num;
    if (plan->params[run->beta_p].matrix) {
        snprintf(err, errlen, "update lasso_cd: beta must be a vector");
        return PTM_EINVAL;
    }
    const struct plan_hook *o = &plan->objective;
    if (o->present) {
        if (o->lua || strcmp(o->builtin, "lasso_objective") != 0) {
            snprintf(err, errlen,
                     "objective '%s' is not supported yet: this version evaluates "
                     "the built-in lasso_objective only",
                     o->lua ? o->fn : o->builtin);
            return PTM_EINVAL;
        }
        const struct plan_option *l2 = find_option(o, "lambda");
        if (l2 && l2->kind == PLAN_VALUE_NUM && l2->num != run->lambda) {
            snprintf(err, errlen, "lasso_objective: lambda %g differs from lasso_cd's %g", l2->num,
                     run->lambda);
            return PTM_EINVAL;
        }
        run->has_obj = true;
    }
    for (uint32_t k = 0; k < plan->noutputs; k++) {
        int32_t p = plan->outputs[k].param;
        if (p != run->beta_p && p != run->r_p) {
            snprintf(err, errlen, "output of '%s' is not supported yet (only beta and r)",
                     p >= 0 && (uint32_t)p < plan->nparams ? plan->params[p].name : "?");
            return PTM_EINVAL;
        }
    }
    /* dynamic keeps dependent coefficients out of one round; without that
     * filter, one coefficient a round is the only safe choice */
    if (pol == PLAN_POLICY_ROUND_ROBIN || pol == PLAN_POLICY_RANDOM)
        run->chunk = plan->schedule.per_round;
    else
        run->chunk = 1;
    if (pol != PLAN_POLICY_ROUND_ROBIN)
        run->policy_note = plan_policy_name(pol);
    return 0;
}

/* beta's initial values, per the plan. */
static int init_beta(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_param *pp = &run->plan->params[run->beta_p];
    switch (pp->init) {
    case PLAN_INIT_CONST:
        for (int64_t j = 0; j < run->d; j++)
            run->beta[j] = pp->init_value;
        return 0;
    case PLAN_INIT_RANDOM: {
        struct ptm_rng g;
        ptm_rng_seed(&g, run->seed ^ 0x6265746100000000ull); /* "beta" stream */
        for (int64_t j = 0; j < run->d; j++)
            run->beta[j] = pp->init_value * (2 * ptm_rng_uniform(&g) - 1);
        return 0;
    }
    case PLAN_INIT_DATA:
    default: {
        const struct ptm_vec *v = NULL;
        int32_t k = pp->init_data;
        if (k >= 0 && (uint32_t)k < run->plan->ndata) {
            int32_t of = run->plan->data[k].labels_of;
            if (of >= 0 && run->data[of] && run->data[of]->has_labels)
                v = &run->data[of]->labels;
        }
        if (!v || v->n != run->d) {
            snprintf(err, errlen,
                     "parameter '%s': initial data must be a vector of %lld "
                     "values (cols(X))",
                     pp->name, (long long)run->d);
            return PTM_EINVAL;
        }
        memcpy(run->beta, v->val, (size_t)run->d * sizeof(double));
        return 0;
    }
    }
}

static void *zalloc(size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size)
        return NULL;
    void *p = ptm_malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

int ptm_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *opts,
                struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_run **out)
{
    *out = NULL;
    err[0] = '\0';
    struct ptm_run *run = zalloc(1, sizeof(*run));
    if (!run)
        return PTM_ENOMEM;
    run->plan = plan;
    run->opts = *opts;
    run->seed = opts->has_seed ? opts->seed : plan->seed;
    int rc = check_plan(run, err, errlen);
    if (rc != 0)
        goto fail;
    rc = PTM_ENOMEM;
    run->data = zalloc(plan->ndata, sizeof(*run->data));
    if (!run->data)
        goto fail;
    rc = load_data(run, dg);
    if (rc != 0)
        goto fail;
    struct ptm_dataset *X = run->data[run->xi];
    if (!X->sparse || !X->has_labels) {
        snprintf(err, errlen, "data '%s' has no labels", plan->data[run->xi].name);
        rc = PTM_EINVAL;
        goto fail;
    }
    run->n = X->csr.nrows;
    run->d = X->csr.ncols;
    if (run->n < 1 || run->d < 1) {
        snprintf(err, errlen, "data '%s' is empty", plan->data[run->xi].name);
        rc = PTM_EINVAL;
        goto fail;
    }
    run->P = opts->workers < 1 ? 1 : opts->workers;
    if (run->P > run->n)
        run->P = (int)run->n;
    if (run->chunk <= 0)
        run->chunk = run->P;
    if (run->chunk > run->d)
        run->chunk = run->d;

    rc = PTM_ENOMEM;
    size_t d = (size_t)run->d, c = (size_t)run->chunk;
    run->beta = zalloc(d, sizeof(double));
    run->last_delta = zalloc(d, sizeof(double));
    run->cols = zalloc(c, sizeof(int64_t));
    run->zsum = zalloc(c * LASSO_K, sizeof(double));
    run->beta_new = zalloc(c, sizeof(double));
    run->delta = zalloc(c, sizeof(double));
    run->w = zalloc((size_t)run->P, sizeof(*run->w));
    run->caphist = 64;
    run->hist = zalloc(run->caphist, sizeof(double));
    if (!run->beta || !run->last_delta || !run->cols || !run->zsum || !run->beta_new ||
        !run->delta || !run->w || !run->hist)
        goto fail;
    rc = init_beta(run, err, errlen);
    if (rc != 0)
        goto fail;

    int64_t *bounds = zalloc((size_t)run->P + 1, sizeof(int64_t));
    if (!bounds)
        goto fail;
    ptm_shard_by_nnz(X->csr.rowptr, run->n, run->P, bounds);
    for (int p = 0; p < run->P; p++) {
        struct rt_worker *w = &run->w[p];
        w->run = run;
        w->id = p;
        w->lo = bounds[p];
        w->hi = bounds[p + 1];
        size_t m = (size_t)(w->hi - w->lo);
        w->sq = zalloc(d, sizeof(double));
        w->r = zalloc(m, sizeof(double));
        w->z = zalloc(c * LASSO_K, sizeof(double));
        if (!w->sq || !w->r || !w->z || lasso_shard_csc(&X->csr, w->lo, w->hi, &w->x) != 0) {
            free(bounds);
            goto fail;
        }
        lasso_colsq(&w->x, w->sq);
        /* r = y - X beta: the kernel's residual, whatever r's init says */
        lasso_residual(&w->x, X->labels.val + w->lo, run->beta, w->r);
    }
    free(bounds);
    if (run->policy_note && opts->log)
        fprintf(opts->log,
                "ptm: warning: schedule %s is run as round_robin in this version "
                "(%lld column%s a round)\n",
                run->policy_note, (long long)run->chunk, run->chunk == 1 ? "" : "s");
    *out = run;
    return 0;
fail:
    ptm_run_free(run);
    return rc;
}

void ptm_run_free(struct ptm_run *run)
{
    if (!run)
        return;
    if (run->w)
        for (int p = 0; p < run->P; p++) {
            ptm_csc_release(&run->w[p].x);
            ptm_free(run->w[p].sq);
            ptm_free(run->w[p].r);
            ptm_free(run->w[p].z);
        }
    ptm_free(run->w);
    if (run->data)
        for (uint32_t k = 0; k < run->plan->ndata; k++)
            if (run->data[k])
                ptm_dataset_free(run->data[k]);
    ptm_free(run->data);
    ptm_free(run->beta);
    ptm_free(run->last_delta);
    ptm_free(run->cols);
    ptm_free(run->zsum);
    ptm_free(run->beta_new);
    ptm_free(run->delta);
    ptm_free(run->hist);
    ptm_free(run);
}

/* ---- the round loop ----------------------------------------------------------- */

static void worker_phase(struct rt_worker *w, enum phase ph)
{
    struct ptm_run *run = w->run;
    if (ph == PHASE_PUSH)
        lasso_push(&w->x, w->sq, w->r, run->beta, run->cols, run->ns, w->z);
    else if (ph == PHASE_APPLY)
        lasso_apply(&w->x, run->cols, run->delta, run->ns, w->r);
}

static void *worker_main(void *arg)
{
    struct rt_worker *w = arg;
    struct ptm_run *run = w->run;
    pthread_mutex_lock(&run->gate);
    bool leave = run->aborted;
    pthread_mutex_unlock(&run->gate);
    if (leave)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&run->start);
        enum phase ph = run->phase;
        if (ph == PHASE_EXIT)
            break;
        worker_phase(w, ph);
        pthread_barrier_wait(&run->done);
    }
    return NULL;
}

/* Run one phase on every worker; returns when all are done. One worker
 * runs on the coordinator's thread: the same arithmetic without the
 * hand-offs. */
static void run_phase(struct ptm_run *run, enum phase ph)
{
    if (run->P == 1) {
        worker_phase(&run->w[0], ph);
        return;
    }
    run->phase = ph;
    pthread_barrier_wait(&run->start);
    if (ph != PHASE_EXIT)
        pthread_barrier_wait(&run->done);
}

/* The objective at the committed beta; only the coordinator runs it,
 * between phases. */
static double objective(const struct ptm_run *run)
{
    double f = 0;
    for (int p = 0; p < run->P; p++)
        f += lasso_loss_part(run->w[p].r, run->w[p].hi - run->w[p].lo, run->n);
    return f + lasso_penalty(run->beta, run->d, run->lambda);
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

static double rel_change(const struct ptm_run *run)
{
    if (run->nhist < 2)
        return INFINITY;
    double a = run->hist[run->nhist - 1], b = run->hist[run->nhist - 2];
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static void progress(const struct ptm_run *run)
{
    FILE *log = run->opts.log;
    if (!log || run->opts.quiet)
        return;
    double f = run->nhist ? run->hist[run->nhist - 1] : NAN;
    double ups = run->seconds > 0 ? (double)run->updates / run->seconds : 0;
    fprintf(log,
            "%sround %lld sweep %lld objective %.10g rel_change %.3g updates/s %.3g "
            "elapsed %.3fs%s",
            run->opts.log_tty ? "\r\033[K" : "", (long long)run->rounds,
            (long long)(run->updates / run->d), f, rel_change(run), ups, run->seconds,
            run->opts.log_tty ? "" : "\n");
    fflush(log);
}

/* Is the objective due after this round? */
static bool objective_due(struct ptm_run *run)
{
    const struct plan_hook *o = &run->plan->objective;
    int64_t every = o->every > 0 ? o->every : 1;
    int64_t now = o->every_unit == PLAN_UNIT_SWEEPS ? run->updates / run->d : run->rounds;
    if (now - run->obj_mark < every)
        return false;
    run->obj_mark = now;
    return true;
}

static bool stop_now(const struct ptm_run *run)
{
    const struct ptm_plan *plan = run->plan;
    int64_t sweeps = run->updates / run->d;
    if (!plan->has_stop || plan->stop.ncode == 0)
        return sweeps >= PTM_RUN_SWEEP_CAP;
    double g[PROG_NGLOBALS];
    g[PROG_G_ROUNDS] = (double)run->rounds;
    g[PROG_G_SWEEPS] = (double)sweeps;
    g[PROG_G_SECONDS] = run->seconds;
    g[PROG_G_OBJECTIVE] = run->nhist ? run->hist[run->nhist - 1] : NAN;
    g[PROG_G_REL_CHANGE] = rel_change(run);
    g[PROG_G_WORKERS] = (double)run->P;
    struct prog_env env = {.globals = g};
    double v = prog_eval(&plan->stop, &env);
    return v != 0 && !isnan(v);
}

static int trace_round(FILE *t, const struct ptm_run *run, bool evaluated)
{
    fprintf(t, "{\"round\": %lld, \"seconds\": %.6f, \"blocks\": [", (long long)run->rounds,
            run->seconds);
    for (size_t k = 0; k < run->ns; k++)
        fprintf(t, "%s%lld", k ? ", " : "", (long long)run->cols[k] + 1);
    fprintf(t, "]");
    if (evaluated)
        fprintf(t, ", \"objective\": %.17g", run->hist[run->nhist - 1]);
    fprintf(t, "}\n");
    return ferror(t) ? PTM_EIO : 0;
}

int ptm_run_exec(struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    FILE *trace = NULL;
    if (run->opts.trace) {
        trace = fopen(run->opts.trace, "w");
        if (!trace) {
            snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(errno));
            return PTM_EIO;
        }
    }
    int rc = 0;
    bool threaded = run->P > 1;
    if (!threaded)
        goto loop;
    if (pthread_barrier_init(&run->start, NULL, (unsigned)run->P + 1) != 0) {
        rc = PTM_ENOMEM;
        goto out_trace;
    }
    if (pthread_barrier_init(&run->done, NULL, (unsigned)run->P + 1) != 0) {
        rc = PTM_ENOMEM;
        goto out_start;
    }
    if (pthread_mutex_init(&run->gate, NULL) != 0) {
        rc = PTM_ENOMEM;
        goto out_done;
    }
    pthread_mutex_lock(&run->gate);
    run->aborted = false;
    int started = 0;
    for (; started < run->P; started++)
        if (pthread_create(&run->w[started].thread, NULL, worker_main, &run->w[started]) != 0)
            break;
    run->aborted = started < run->P;
    pthread_mutex_unlock(&run->gate);
    if (run->aborted) {
        for (int p = 0; p < started; p++)
            pthread_join(run->w[p].thread, NULL);
        snprintf(err, errlen, "cannot start %d worker threads", run->P);
        rc = PTM_ENOMEM;
        goto out_gate;
    }

loop:;
    double t0 = now_seconds();
    if (run->has_obj && run->nhist == 0) {
        rc = record_objective(run, objective(run));
        if (rc != 0)
            goto out_threads;
        progress(run);
    }
    while (!stop_now(run) && !ptm_run_interrupted()) {
        /* schedule: the next chunk of columns, wrapping around */
        run->ns = (size_t)run->chunk;
        for (size_t k = 0; k < run->ns; k++)
            run->cols[k] = (run->next_col + (int64_t)k) % run->d;
        run->next_col = (run->next_col + run->chunk) % run->d;
        /* push */
        run_phase(run, PHASE_PUSH);
        /* pull, summing z in worker order */
        size_t nz = LASSO_K * run->ns;
        memcpy(run->zsum, run->w[0].z, nz * sizeof(double));
        for (int p = 1; p < run->P; p++)
            for (size_t k = 0; k < nz; k++)
                run->zsum[k] += run->w[p].z[k];
        lasso_pull(run->zsum, run->ns, run->n, run->lambda, run->beta_new);
        for (size_t k = 0; k < run->ns; k++) {
            int64_t j = run->cols[k];
            run->delta[k] = run->beta_new[k] - run->beta[j];
            run->last_delta[j] = run->delta[k];
            run->beta[j] = run->beta_new[k];
        }
        /* apply */
        run_phase(run, PHASE_APPLY);
        run->rounds++;
        run->updates += (int64_t)run->ns;
        run->seconds = now_seconds() - t0;
        bool evaluated = run->has_obj && objective_due(run);
        if (evaluated) {
            rc = record_objective(run, objective(run));
            if (rc != 0)
                goto out_threads;
            progress(run);
        }
        if (trace && trace_round(trace, run, evaluated) != 0) {
            snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(errno));
            rc = PTM_EIO;
            goto out_threads;
        }
    }
    if (run->has_obj && run->opts.log && !run->opts.quiet && run->opts.log_tty)
        fputc('\n', run->opts.log); /* end the updating line */
out_threads:
    if (!threaded)
        goto out_trace;
    run_phase(run, PHASE_EXIT);
    for (int p = 0; p < run->P; p++)
        pthread_join(run->w[p].thread, NULL);
out_gate:
    pthread_mutex_destroy(&run->gate);
out_done:
    pthread_barrier_destroy(&run->done);
out_start:
    pthread_barrier_destroy(&run->start);
out_trace:
    if (trace && fclose(trace) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(errno));
        rc = PTM_EIO;
    }
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    return rc;
}

/* ---- results ------------------------------------------------------------------ */

void ptm_run_stats(const struct ptm_run *run, struct ptm_run_stats *st)
{
    st->rounds = run->rounds;
    st->updates = run->updates;
    st->sweeps = run->updates / run->d;
    st->seconds = run->seconds;
    st->objective = run->nhist ? run->hist[run->nhist - 1] : NAN;
    st->workers = run->P;
}

const double *ptm_run_history(const struct ptm_run *run, size_t *n)
{
    *n = run->nhist;
    return run->hist;
}

int64_t ptm_run_param(const struct ptm_run *run, int32_t param, double *out, int64_t cap)
{
    if (param == run->beta_p) {
        int64_t m = run->d < cap ? run->d : cap;
        memcpy(out, run->beta, (size_t)m * sizeof(double));
        return run->d;
    }
    if (param == run->r_p) {
        int64_t at = 0;
        for (int p = 0; p < run->P; p++)
            for (int64_t i = 0; i < run->w[p].hi - run->w[p].lo; i++, at++)
                if (at < cap)
                    out[at] = run->w[p].r[i];
        return run->n;
    }
    return -1;
}

/* Write the values of one vector parameter to path via a temporary file. */
static int write_tsv(const struct ptm_run *run, int32_t param, const char *path, char *err,
                     size_t errlen)
{
    int64_t len = param == run->beta_p ? run->d : run->n;
    double *v = zalloc((size_t)len, sizeof(double));
    if (!v) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return PTM_ENOMEM;
    }
    ptm_run_param(run, param, v, len);
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, path);
    if (rc == 0) {
        for (int64_t i = 0; i < len; i++)
            fprintf(w.f, "%.17g\n", v[i]);
        rc = ptm_wfile_commit(&w);
    } else {
        ptm_wfile_abort(&w);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write '%s': %s", path,
                 rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
    ptm_free(v);
    return rc;
}

int ptm_run_write_outputs(const struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    for (uint32_t k = 0; k < run->plan->noutputs; k++) {
        const struct plan_output *o = &run->plan->outputs[k];
        int rc = write_tsv(run, o->param, o->path, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}
