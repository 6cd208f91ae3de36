/*
 * engine.c - the round loop of `ptm run`: set-up from a plan, rounds of
 * schedule, push, pull, commit and apply (spec/runtime.md), the stop rule,
 * progress, the trace and the outputs.
 *
 * DESIGN: the engine knows plans, parameter tables, shards and rounds; it
 * does not know any model. The update rule (struct rt_rule: the built-in
 * kernel in rule_lasso.c or the Lua hooks in rule_lua.c), the objective,
 * the scheduler (schedulers/) and the way workers run (struct rt_backend:
 * threads in backend_threads.c) sit behind their interfaces, so a new
 * model, policy or backend does not touch this file. Every buffer the
 * round loop uses is allocated in ptm_run_new(): the loop itself does not
 * allocate (Lua hooks allocate inside their own states).
 *
 * The coordinator is the thread that calls ptm_run_exec(); it runs the
 * scheduler, the pull and the commit between phases, when no worker runs,
 * so it reads the workers' results and writes the committed values
 * without locks (the backend orders the phases).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "arena.h"
#include "comm.h"
#include "data_ranks.h"
#include "engine_impl.h"
#include "ptm.h"
#include "rng.h"
#include "wfile.h"

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

/* ---- helpers shared with the rules ----------------------------------------- */

void *rt_zalloc(size_t n, size_t size)
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

const struct plan_option *rt_option(const struct plan_hook *h, const char *key)
{
    for (uint32_t i = 0; i < h->noptions; i++)
        if (strcmp(h->options[i].key, key) == 0)
            return &h->options[i];
    return NULL;
}

double rt_option_num(const struct plan_hook *h, const char *key, double dflt)
{
    const struct plan_option *o = rt_option(h, key);
    return o && o->kind == PLAN_VALUE_NUM ? o->num : dflt;
}

void rt_fail(struct rt_worker *w, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
    va_end(ap);
    w->rc = rc;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- set-up ----------------------------------------------------------------- */

/* Read every data file of the plan. */
static int load_data(struct ptm_run *run, struct ptm_data_diags *dg)
{
    const struct ptm_plan *plan = run->plan;
    const char *base = plan->base_dir ? plan->base_dir : ".";
    int32_t first = -1; /* the data sharded by rows: under MPI each rank reads its part,
                           and the parts of the MatrixMarket and UCI files sharded alike */
    for (uint32_t k = 0; k < plan->ndata && first < 0; k++)
        if (plan->data[k].shard == PLAN_SHARD_ROWS && plan->data[k].labels_of < 0)
            first = (int32_t)k;
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
        /* rank r of R reads the lines that start in the r-th R-th of the
         * file: only its own rows, never the whole file */
        struct ptm_byte_range range;
        if (run->nranks > 1 && dd->shard == PLAN_SHARD_ROWS && dd->labels_of < 0 &&
            ((int32_t)k == first || dd->format == PLAN_FORMAT_MM ||
             dd->format == PLAN_FORMAT_UCI)) {
            struct stat st;
            if (stat(path, &st) == 0) {
                int64_t size = (int64_t)st.st_size;
                range.begin = size / run->nranks * run->rank + size % run->nranks * run->rank / run->nranks;
                range.end = run->rank + 1 == run->nranks
                                ? INT64_MAX
                                : size / run->nranks * (run->rank + 1) +
                                      size % run->nranks * (run->rank + 1) / run->nranks;
                o.range = &range;
            }
        }
        int rc = ptm_data_read(path, &o, dg, &run->data[k]);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The data set behind source k: its own, or for labels() its owner's. */
static const struct ptm_dataset *source(const struct ptm_run *run, int32_t k)
{
    if (k < 0 || (uint32_t)k >= run->plan->ndata)
        return NULL;
    int32_t of = run->plan->data[k].labels_of;
    return of >= 0 ? run->data[of] : run->data[k];
}

/* rows(D) and cols(D) for the parameter sizes. */
static double dim_cb(void *ud, int32_t k, int axis)
{
    const struct ptm_run *run = ud;
    const struct ptm_dataset *ds = source(run, k);
    if (!ds)
        return NAN;
    int32_t owner = run->plan->data[k].labels_of >= 0 ? run->plan->data[k].labels_of : k;
    /* a rank holds some of the rows: rows() is the whole data's */
    int64_t rows = owner == run->rowdata ? run->grows : ptm_dataset_rows(ds);
    if (run->plan->data[k].labels_of >= 0)
        return axis == 0 ? (double)rows : 1;
    return (double)(axis == 0 ? rows : ptm_dataset_cols(ds));
}

/* A size expression's value: a whole number in [lo, PTM_DATA_DIM_MAX]. */
static int eval_size(struct ptm_run *run, const struct prog *p, int64_t lo, const char *what,
                     int64_t *out, char *err, size_t errlen)
{
    double g[PROG_NGLOBALS] = {0};
    g[PROG_G_WORKERS] = run->G;
    struct prog_env env = {.globals = g, .ud = run, .dim = dim_cb};
    double v = prog_eval(p, &env);
    if (!(v >= (double)lo && v <= (double)PTM_DATA_DIM_MAX) || v != floor(v)) {
        snprintf(err, errlen, "%s is %.17g: it must be a whole number from %lld to %lld", what, v,
                 (long long)lo, (long long)PTM_DATA_DIM_MAX);
        return PTM_EINVAL;
    }
    *out = (int64_t)v;
    return 0;
}

/* Which rule, objective and scheduler run the plan. */
static int choose(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_hook *u = &plan->update, *o = &plan->objective;
    enum plan_policy pol = plan->schedule.policy;
    if (!u->present) {
        snprintf(err, errlen, "the plan has no update rule");
        return PTM_EINVAL;
    }
    /* the built-in rules and objectives; compiler/builtins.c says which
     * policies each runs under */
    static const struct {
        const char *name;
        const struct rt_rule *rule;
    } rules[] = {
        {"lasso_cd", &rt_rule_lasso}, {"mf_sgd", &rt_rule_mf},
        {"mf_ccd", &rt_rule_mf},      {"logreg_sgd", &rt_rule_logreg},
        {"lda_gibbs", &rt_rule_lda},
    };
    static const struct {
        const char *name;
        const struct rt_objective *obj;
    } objs[] = {
        {"lasso_objective", &rt_objective_lasso},
        {"rmse", &rt_objective_rmse},
        {"logloss", &rt_objective_logloss},
        {"lda_loglik", &rt_objective_lda_loglik},
    };
    if (u->lua) {
        run->rule = pol == PLAN_POLICY_ROTATION        ? &rt_rule_lua_rotation
                    : pol == PLAN_POLICY_DATA_PARALLEL ? &rt_rule_lua_clocks
                                                       : &rt_rule_lua;
    } else {
        for (size_t i = 0; i < PTM_ARRAY_LEN(rules); i++)
            if (strcmp(u->builtin, rules[i].name) == 0)
                run->rule = rules[i].rule;
        if (!run->rule) {
            snprintf(err, errlen,
                     "update builtin '%s' is not supported yet: this version runs lasso_cd, "
                     "mf_sgd, mf_ccd, logreg_sgd, lda_gibbs and Lua updates",
                     u->builtin);
            return PTM_EINVAL;
        }
    }
    if (o->present) {
        if (o->lua) {
            run->obj = &rt_objective_lua;
        } else {
            for (size_t i = 0; i < PTM_ARRAY_LEN(objs); i++)
                if (strcmp(o->builtin, objs[i].name) == 0)
                    run->obj = objs[i].obj;
            if (!run->obj) {
                snprintf(err, errlen,
                         "objective builtin '%s' is not supported yet: this version evaluates "
                         "lasso_objective, rmse, logloss, lda_loglik and Lua objectives",
                         o->builtin);
                return PTM_EINVAL;
            }
        }
    }
    if (run->nranks > 1 && (run->rule->kind == RT_CLOCKS ? !run->rule->ranks_clocks
                                                        : run->rule->kind == RT_ROTATION &&
                                                              !run->rule->spans)) {
        snprintf(err, errlen, "schedule %s with update %s is not supported yet under MPI",
                 plan_policy_name(pol), u->lua ? "Lua" : u->builtin);
        return PTM_EINVAL;
    }
    if (pol == PLAN_POLICY_DATA_PARALLEL)
        return 0; /* no blocks, no scheduler: clocks */
    run->sched = ptm_sched_find(pol);
    if (!run->sched) {
        snprintf(err, errlen, "schedule %s is not supported yet", plan_policy_name(pol));
        return PTM_EINVAL;
    }
    return 0;
}

/* The data whose row shards the workers hold: the one declared `shard
 * rows`. Without one, every worker would push the same sums, so the run
 * has one worker. */
static int choose_rows(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    run->rowdata = -1;
    for (uint32_t k = 0; k < plan->ndata; k++) {
        /* labels(X) go with X's rows */
        if (plan->data[k].shard != PLAN_SHARD_ROWS || plan->data[k].labels_of >= 0)
            continue;
        if (run->rowdata < 0) {
            run->rowdata = (int32_t)k;
            continue;
        }
        /* another data set sharded by rows (held-out ratings) is cut where
         * the first one is, so that worker p holds the same rows of both */
        int64_t a = ptm_dataset_rows(run->data[run->rowdata]), b = ptm_dataset_rows(run->data[k]);
        if (a != b) {
            snprintf(err, errlen,
                     "data '%s' (%lld rows) and '%s' (%lld rows) are both sharded by rows: "
                     "they must have as many rows (or declare one 'shard none')",
                     plan->data[run->rowdata].name, (long long)a, plan->data[k].name,
                     (long long)b);
            return PTM_EINVAL;
        }
    }
    for (uint32_t k = 0; k < plan->ndata; k++)
        if (plan->data[k].shard == PLAN_SHARD_COLS && plan->data[k].labels_of < 0) {
            snprintf(err, errlen, "data '%s': shard cols is not supported yet", plan->data[k].name);
            return PTM_EINVAL;
        }
    if (run->rowdata < 0) {
        run->P = run->G = 1;
        run->nrows = 0;
        return 0;
    }
    struct ptm_dataset *ds = run->data[run->rowdata];
    bool rotation = run->rule && run->rule->kind == RT_ROTATION && run->nranks > 1;
    if (run->nranks > 1 && ds->sparse && ds->declared_nnz >= 0) {
        /* a MatrixMarket or UCI range holds entries of any rows: they go
         * to the ranks of their rows, split as one process would split
         * them among all the workers; other such data sharded by rows
         * (held-out ratings) is cut where the first is */
        int32_t bad = run->rowdata;
        int rc = ptm_data_to_ranks(ds, plan->data[bad].name, run->P, &run->gbounds, err, errlen);
        for (int32_t k = 0; k < (int32_t)plan->ndata && rc == 0; k++)
            if (k != run->rowdata && plan->data[k].shard == PLAN_SHARD_ROWS &&
                plan->data[k].labels_of < 0 && run->data[k]->sparse &&
                run->data[k]->declared_nnz >= 0) {
                bad = k;
                rc = ptm_data_to_ranks(run->data[k], plan->data[k].name, run->P, &run->gbounds,
                                       err, errlen);
            }
        if (rc == PTM_EDATA) {
            /* a message about the file, as the readers give */
            char msg[1024];
            snprintf(msg, sizeof(msg), "%s", err);
            snprintf(err, errlen, "%s: error: %s", plan->data[bad].path, msg);
        }
        if (rc != 0)
            return rc;
    }
    run->nrows = ptm_dataset_rows(ds);
    run->grows = run->nrows;
    if (run->nranks > 1) {
        /* the rank's rows are a slice of the whole; a libsvm slice knows
         * only the columns it uses */
        run->grows = ptm_comm_sum_i64(run->nrows);
        run->row0 = ptm_comm_prefix_i64(run->nrows);
        if (ds->sparse) {
            int64_t cols = ptm_comm_max_i64(ds->csr.ncols);
            ds->csr.ncols = cols;
        }
        for (uint32_t k = 0; k < plan->ndata; k++)
            if ((int32_t)k != run->rowdata && plan->data[k].shard == PLAN_SHARD_ROWS &&
                plan->data[k].labels_of < 0 && ptm_dataset_rows(run->data[k]) != run->nrows) {
                snprintf(err, errlen,
                         "data '%s': under MPI a second data set sharded by rows must be "
                         "MatrixMarket or UCI with a first one in the same format (declare it "
                         "'shard none')",
                         plan->data[k].name);
                return PTM_EINVAL;
            }
    }
    if (run->nrows < 1) {
        snprintf(err, errlen, "data '%s' has no rows%s", plan->data[run->rowdata].name,
                 run->nranks > 1 ? " on this rank (more ranks than lines?)" : "");
        return PTM_EINVAL;
    }
    if (run->P > run->nrows && !run->gbounds)
        run->P = (int)run->nrows;
    if (rotation) /* every rank has as many workers */
        run->P = (int)-ptm_comm_max_i64(-run->P);
    run->G = rotation ? run->nranks * run->P : run->P;
    return 0;
}

/* Every worker's view of every data source. */
static int make_shards(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    int64_t *bounds = rt_zalloc((size_t)run->P + 1, sizeof(int64_t));
    if (!bounds)
        return PTM_ENOMEM;
    int g0 = run->G > run->P ? run->rank * run->P : 0;
    if (run->gbounds) {
        for (int p = 0; p <= run->P; p++)
            bounds[p] = run->gbounds[run->rank * run->P + p] - run->row0;
    } else if (run->rowdata >= 0) {
        const struct ptm_dataset *ds = run->data[run->rowdata];
        if (ds->sparse)
            ptm_shard_by_nnz(ds->csr.rowptr, run->nrows, run->P, bounds);
        else
            ptm_shard_even(run->nrows, run->P, bounds);
    }
    int rc = 0;
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *w = &run->w[p];
        w->run = run;
        w->id = p;
        w->gid = g0 + p;
        w->lo = bounds[p];
        w->hi = bounds[p + 1];
        w->shard = rt_zalloc(plan->ndata, sizeof(*w->shard));
        w->local = rt_zalloc(plan->nparams, sizeof(*w->local));
        if (!w->shard || !w->local) {
            rc = PTM_ENOMEM;
            break;
        }
        for (uint32_t k = 0; k < plan->ndata && rc == 0; k++) {
            struct rt_shard *s = &w->shard[k];
            const struct plan_data *dd = &plan->data[k];
            int32_t owner = dd->labels_of >= 0 ? dd->labels_of : (int32_t)k;
            struct ptm_dataset *ds = run->data[owner];
            /* a rule that splits by blocks reads all rows on every worker */
            bool sharded = plan->data[owner].shard == PLAN_SHARD_ROWS && run->rowdata >= 0 &&
                           !run->split;
            int64_t lo = sharded ? w->lo : 0, hi = sharded ? w->hi : ptm_dataset_rows(ds);
            if (dd->labels_of >= 0) {
                if (ds->has_labels) {
                    s->labels = ds->labels.val + lo;
                    s->nlabels = hi - lo;
                }
                continue;
            }
            if (!ds->sparse)
                continue; /* dense data: no rule reads it yet */
            s->matrix = true;
            if (sharded) {
                /* only rules by rows read a shard's columns */
                if (run->rule && run->rule->kind == RT_MODEL) {
                    s->own_csc = true;
                    if (ptm_csr_rows_csc(&ds->csr, lo, hi, &s->csc) != 0)
                        rc = PTM_ENOMEM;
                }
            } else {
                const struct ptm_csc *c;
                rc = run->columns_only ? ptm_dataset_csc_only(ds, &c) : ptm_dataset_csc(ds, &c);
                if (rc == 0)
                    s->csc = *c;
            }
            s->csr = ds->csr;
            s->csr.nrows = hi - lo;
            s->csr.rowptr = ds->csr.rowptr + lo;
            s->csr.nnz = ds->csr.rowptr[hi] - ds->csr.rowptr[lo];
        }
    }
    ptm_free(bounds);
    (void)err;
    (void)errlen;
    return rc;
}

/* A vector data source's values for PLAN_INIT_DATA: labels only. */
static const struct ptm_vec *init_vector(const struct ptm_run *run, int32_t k)
{
    if (k < 0 || (uint32_t)k >= run->plan->ndata || run->plan->data[k].labels_of < 0)
        return NULL;
    const struct ptm_dataset *ds = run->data[run->plan->data[k].labels_of];
    return ds && ds->has_labels ? &ds->labels : NULL;
}

/* Where element e (global, row-major) of parameter p lives in this
 * process, or NULL when another rank holds it. A sharded parameter holds
 * the rows of the rank (row0 .. row0 + nrows - 1), in one array when the
 * rule splits by blocks, else in its workers' shards. */
static double *param_slot(struct ptm_run *run, int32_t p, int64_t e)
{
    struct rt_param *t = &run->params[p];
    if (t->shard_like < 0)
        return &t->val[e];
    int64_t row = e / t->cols - run->row0, at = e - run->row0 * t->cols;
    if (row < 0 || row >= run->nrows)
        return NULL;
    if (t->val)
        return &t->val[at];
    for (int q = 0; q < run->P; q++)
        if (row < run->w[q].hi)
            return &run->w[q].local[p][at - run->w[q].lo * t->cols];
    return NULL;
}

/* Sizes, storage and initial values of every parameter. */
static int make_params(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    run->params = rt_zalloc(plan->nparams, sizeof(*run->params));
    if (!run->params)
        return PTM_ENOMEM;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct plan_param *pp = &plan->params[p];
        struct rt_param *t = &run->params[p];
        char what[256];
        t->pp = pp;
        t->shard_like = pp->shard_like;
        snprintf(what, sizeof(what), "the size of parameter '%s'", pp->name);
        int rc = eval_size(run, &pp->dims[0], 1, what, &t->rows, err, errlen);
        if (rc == 0 && pp->matrix)
            rc = eval_size(run, &pp->dims[1], 1, what, &t->cols, err, errlen);
        else
            t->cols = 1;
        if (rc != 0)
            return rc;
        if (t->rows > ((int64_t)1 << 40) / t->cols) {
            snprintf(err, errlen, "parameter '%s' has %lld x %lld elements: too many", pp->name,
                     (long long)t->rows, (long long)t->cols);
            return PTM_EINVAL;
        }
        t->len = t->rows * t->cols;
        if (t->shard_like >= 0) {
            if (t->shard_like != run->rowdata || t->rows != run->grows) {
                snprintf(err, errlen,
                         "parameter '%s' is sharded like '%s', which must be the data "
                         "sharded by rows and have as many rows (%lld)",
                         pp->name, plan->data[t->shard_like].name, (long long)t->rows);
                return PTM_EINVAL;
            }
        }
        if (t->shard_like >= 0 && !run->split) {
            for (int q = 0; q < run->P; q++) {
                struct rt_worker *w = &run->w[q];
                w->local[p] = rt_zalloc((size_t)((w->hi - w->lo) * t->cols), sizeof(double));
                if (!w->local[p])
                    return PTM_ENOMEM;
            }
        } else {
            int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            t->val = rt_zalloc((size_t)held, sizeof(double));
            if (!t->val)
                return PTM_ENOMEM;
        }
        /* initial values, element by element in global order, so that they
         * depend neither on the number of workers nor on that of ranks */
        if (pp->init == PLAN_INIT_DATA) {
            /* labels are the rank's own rows when their data is sharded */
            const struct ptm_vec *v = init_vector(run, pp->init_data);
            int64_t want = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            int64_t off = t->shard_like >= 0 ? run->row0 * t->cols : 0;
            if (!v || v->n != want) {
                snprintf(err, errlen,
                         "parameter '%s': its initial data must be a vector of %lld "
                         "values",
                         pp->name, (long long)t->len);
                return PTM_EINVAL;
            }
            for (int64_t e = 0; e < t->len; e++) {
                double *slot = param_slot(run, (int32_t)p, e);
                if (slot)
                    *slot = v->val[e - off];
            }
        } else if (pp->init == PLAN_INIT_RANDOM) {
            struct ptm_rng g;
            ptm_rng_seed(&g, run->seed ^ (0x706172616d000000ull + p)); /* "param" streams */
            for (int64_t e = 0; e < t->len; e++) {
                double x = pp->init_value * (2 * ptm_rng_uniform(&g) - 1), *slot;
                if ((slot = param_slot(run, (int32_t)p, e)))
                    *slot = x;
            }
        } else if (pp->init_value != 0) {
            for (int64_t e = 0; e < t->len; e++) {
                double *slot = param_slot(run, (int32_t)p, e);
                if (slot)
                    *slot = pp->init_value;
            }
        }
    }
    return 0;
}

/* The units (elements, rows or columns) block b of the scheduled block set
 * covers: [*u0, *u1). */
static void block_units(const struct ptm_run *run, int64_t b, int64_t *u0, int64_t *u1)
{
    const struct rt_param *t = &run->params[run->sparam];
    int64_t units = run->bs->axis == PLAN_AXIS_ELEMS ? t->len
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->rows
                                                       : t->cols;
    if (run->bs->into) {
        /* nblocks nearly equal blocks, the first units mod nblocks one longer */
        int64_t q = units / run->nblocks, r = units % run->nblocks;
        *u0 = b * q + (b < r ? b : r);
        *u1 = *u0 + q + (b < r);
    } else {
        *u0 = b * run->bsize;
        *u1 = *u0 + run->bsize < units ? *u0 + run->bsize : units;
    }
}

/* The blocks of the scheduled block set. */
static int make_blocks(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    int32_t over = plan->schedule.over;
    if (plan->schedule.policy == PLAN_POLICY_DATA_PARALLEL)
        return 0;
    if (over < 0 || (uint32_t)over >= plan->nblocksets) {
        snprintf(err, errlen, "the schedule has no block set");
        return PTM_EINVAL;
    }
    run->bs = &plan->blocksets[over];
    run->sparam = run->bs->param;
    const struct rt_param *t = &run->params[run->sparam];
    if (!t->val) {
        snprintf(err, errlen,
                 "blocks '%s' are of parameter '%s', which is sharded: a model-parallel "
                 "schedule updates a parameter with one copy",
                 run->bs->name, t->pp->name);
        return PTM_EINVAL;
    }
    int64_t units = run->bs->axis == PLAN_AXIS_ELEMS ? t->len
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->rows
                                                       : t->cols;
    int64_t count;
    char what[256];
    snprintf(what, sizeof(what), "the block count of '%s'", run->bs->name);
    int rc = eval_size(run, &run->bs->count, 1, what, &count, err, errlen);
    if (rc != 0)
        return rc;
    if (run->bs->into) {
        if (count > units) {
            snprintf(err, errlen, "blocks '%s': %lld blocks of %lld %s", run->bs->name,
                     (long long)count, (long long)units,
                     run->bs->axis == PLAN_AXIS_ELEMS ? "elements" : "rows or columns");
            return PTM_EINVAL;
        }
        run->nblocks = count;
        run->bsize = (units + count - 1) / count;
    } else {
        run->bsize = count < units ? count : units;
        run->nblocks = (units + run->bsize - 1) / run->bsize;
    }
    int64_t width = run->bs->axis == PLAN_AXIS_ELEMS ? 1
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->cols
                                                       : t->rows;
    run->bvars = run->bsize * width; /* the most variables a block has */
    run->last_delta = rt_zalloc((size_t)t->len, sizeof(double));
    return run->last_delta ? 0 : PTM_ENOMEM;
}

/* Fill rd->off and rd->vars from rd->blocks. */
static void expand_round(const struct ptm_run *run, struct rt_round *rd)
{
    const struct rt_param *t = &run->params[run->sparam];
    int64_t *restrict off = rd->off, *restrict vars = rd->vars;
    const int64_t *restrict blocks = rd->blocks;
    size_t v = 0;
    if (run->bs->axis == PLAN_AXIS_ELEMS && !run->bs->into && run->bsize == 1) {
        /* a block a variable: the round's variables are its blocks */
        for (size_t i = 0; i < rd->n; i++)
            off[i] = (int64_t)i;
        memcpy(vars, blocks, rd->n * sizeof(int64_t));
        v = rd->n;
    } else {
        for (size_t i = 0; i < rd->n; i++) {
            int64_t u0, u1;
            block_units(run, blocks[i], &u0, &u1);
            off[i] = (int64_t)v;
            switch (run->bs->axis) {
            case PLAN_AXIS_ELEMS:
                for (int64_t u = u0; u < u1; u++)
                    vars[v++] = u;
                break;
            case PLAN_AXIS_ROWS:
                for (int64_t e = u0 * t->cols; e < u1 * t->cols; e++)
                    vars[v++] = e;
                break;
            case PLAN_AXIS_COLS:
                for (int64_t r = 0; r < t->rows; r++)
                    for (int64_t u = u0; u < u1; u++)
                        vars[v++] = r * t->cols + u;
                break;
            }
        }
    }
    off[rd->n] = (int64_t)v;
    rd->nvars = v;
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

/* ---- the scheduler -------------------------------------------------------------- */

/* The expressions of the scheduled block set that the policy evaluates:
 * under dynamic its depend predicate, priority and cost; others ignore
 * them. */
static int sched_progs(const struct ptm_run *run, const struct prog **out)
{
    const struct plan_blockset *bs = run->bs;
    int n = 0;
    if (run->plan->schedule.policy != PLAN_POLICY_DYNAMIC)
        return 0;
    if (bs->depend == PLAN_DEPEND_PRED && !run->plan->schedule.keep_all)
        out[n++] = &bs->pred;
    if (bs->has_priority)
        out[n++] = &bs->priority;
    if (bs->has_cost)
        out[n++] = &bs->cost;
    return n;
}

/* The policy reads entries of a matrix (X[i, j]): those are read through
 * the CSR, which a job that reads columns only gives up (columns_only).
 * Called before the blocks exist, so it looks at the plan's schedule. */
static bool sched_reads_entries(const struct ptm_plan *plan)
{
    int32_t over = plan->schedule.over;
    if (plan->schedule.policy != PLAN_POLICY_DYNAMIC || over < 0 ||
        (uint32_t)over >= plan->nblocksets)
        return false;
    const struct plan_blockset *bs = &plan->blocksets[over];
    const struct prog *progs[3] = {
        bs->depend == PLAN_DEPEND_PRED ? &bs->pred : NULL,
        bs->has_priority ? &bs->priority : NULL,
        bs->has_cost ? &bs->cost : NULL,
    };
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; progs[k] && i < progs[k]->ncode; i++) {
            const struct prog_insn *in = &progs[k]->code[i];
            if (in->op == PROG_DATA && in->a >= 0 && (uint32_t)in->a < plan->ndata &&
                plan->data[in->a].labels_of < 0 && plan->data[in->a].matrix)
                return true;
        }
    return false;
}

/* Keep the counters the policy's expressions read current. */
static void sched_globals(struct ptm_run *run);

/* The environment of the block set's expressions: the data, the
 * parameters with one copy (values, and the changes of the scheduled one),
 * the counters. Only when the policy evaluates expressions: building it
 * costs a pass over the data (and a CSC of a matrix the workers hold by
 * rows). */
static int make_sched_env(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct prog *progs[3];
    int np = sched_progs(run, progs);
    double v;
    bool need = false;
    for (int k = 0; k < np; k++) {
        if (!prog_is_const(progs[k], &v))
            need = true;
        for (uint32_t i = 0; i < progs[k]->ncode; i++) {
            const struct prog_insn *in = &progs[k]->code[i];
            if (in->op == PROG_DELTA && in->a == run->sparam)
                run->track_delta = true; /* commit keeps the changes it reads */
            if ((in->op != PROG_PARAM && in->op != PROG_DELTA) || in->a < 0 ||
                (uint32_t)in->a >= plan->nparams || run->params[in->a].val)
                continue;
            snprintf(err, errlen,
                     "the %s of '%s' reads '%s', which is sharded like '%s': the scheduler reads "
                     "only parameters with one copy",
                     progs[k] == &run->bs->priority ? "priority"
                     : progs[k] == &run->bs->cost   ? "cost"
                                                    : "dependency",
                     run->bs->name, plan->params[in->a].name,
                     plan->data[run->params[in->a].shard_like].name);
            return PTM_EINVAL;
        }
    }
    if (!need)
        return 0;
    int rc = sched_env_init(&run->senv, plan, run->data);
    if (rc != 0)
        return rc;
    run->has_senv = true;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct rt_param *t = &run->params[p];
        if (t->val)
            sched_env_param(&run->senv, (int32_t)p, t->val,
                            (int32_t)p == run->sparam ? run->last_delta : NULL, t->rows, t->cols);
    }
    sched_globals(run);
    return 0;
}

/* Move diagnostics a scheduler rendered into err (one a line, "WHERE:
 * error: MESSAGE" or "WHERE: note: MESSAGE") to dg, where bad data is
 * reported. */
static void diags_from_text(struct ptm_data_diags *dg, const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        const char *e = strstr(text, ": error: "), *n = strstr(text, ": note: ");
        const char *sev = e && (!n || e < n) ? e : n;
        if (dg->n == dg->cap) {
            size_t cap = dg->cap ? 2 * dg->cap : 8;
            struct ptm_data_diag *m = ptm_realloc(dg->msg, cap * sizeof(*m));
            if (!m) {
                dg->oom = true;
                return;
            }
            dg->msg = m;
            dg->cap = cap;
        }
        char *copy = plan_strndup(text, len);
        if (!copy) {
            dg->oom = true;
            return;
        }
        bool note = sev && sev == n;
        dg->msg[dg->n++] = (struct ptm_data_diag){
            .text = copy,
            .where = sev && sev < text + len ? (uint32_t)(sev - text + 2) : 0,
            .note = note,
        };
        if (!note)
            dg->nerrors++;
        text += len + (nl ? 1 : 0);
    }
}

static int make_schedule(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    if (!run->sched) /* data_parallel: clocks, no rounds of blocks */
        return (run->load = rt_zalloc((size_t)run->P, sizeof(double))) ? 0 : PTM_ENOMEM;
    int rc = make_sched_env(run, err, errlen);
    if (rc != 0)
        return rc;
    struct ptm_sched_info info = {
        .plan = plan,
        .bs = run->bs,
        .nblocks = run->nblocks,
        .workers = run->G,
        .per_round = plan->schedule.per_round,
        .seed = run->seed,
        .env = run->has_senv ? &run->senv.env : NULL,
    };
    rc = run->sched->create(&info, &run->sched_state, err, errlen);
    if (rc != 0) {
        run->sched_state = NULL;
        if (rc == PTM_EDATA || rc == PTM_ENOENT || rc == PTM_EIO) {
            diags_from_text(dg, err); /* bad data in a file the policy reads */
            err[0] = '\0';
        }
        return rc;
    }
    size_t cap = run->sched->cap(run->sched_state);
    size_t maxvars = cap * (size_t)run->bvars;
    for (int i = 0; i < 3; i++) {
        struct rt_round *rd = i < 2 ? &run->rounds[i] : &run->canon;
        rd->blocks = rt_zalloc(cap, sizeof(int64_t));
        rd->off = rt_zalloc(cap + 1, sizeof(int64_t));
        rd->vars = rt_zalloc(maxvars, sizeof(int64_t));
        rd->change = rt_zalloc(maxvars, sizeof(double));
        rd->part = rt_zalloc((size_t)run->G + 1, sizeof(size_t));
        rd->order = rt_zalloc(cap, sizeof(size_t));
        if (!rd->blocks || !rd->off || !rd->vars || !rd->change || !rd->part || !rd->order)
            return PTM_ENOMEM;
        for (size_t k = 0; k <= cap; k++) /* for good under expand_late */
            rd->off[k] = (int64_t)k;
    }
    run->bchange = rt_zalloc(cap, sizeof(double));
    run->load = rt_zalloc((size_t)run->G, sizeof(double));
    if (run->nranks > 1) {
        run->say_cap = cap;
        run->say = rt_zalloc(2 + 2 * cap + (size_t)run->G + 1 + maxvars, sizeof(int64_t));
        if (!run->say)
            return PTM_ENOMEM;
    }
    if (run->G > run->P) {
        run->holder = rt_zalloc((size_t)run->nblocks, sizeof(int));
        run->msgs = rt_zalloc((size_t)run->nblocks * RT_SPANS, sizeof(*run->msgs));
        if (!run->holder || !run->msgs)
            return PTM_ENOMEM;
        for (int64_t b = 0; b < run->nblocks; b++)
            run->holder[b] = -1;
    }
    run->newval = rt_zalloc(maxvars, sizeof(double));
    run->zcap = run->rule->zcap(run, cap, maxvars);
    run->zsum = rt_zalloc(run->zcap, sizeof(double));
    if (!run->bchange || !run->load || !run->newval || !run->zsum)
        return PTM_ENOMEM;
    for (int p = 0; p < run->P; p++) {
        run->w[p].z = rt_zalloc(run->zcap, sizeof(double));
        if (!run->w[p].z)
            return PTM_ENOMEM;
    }
    return 0;
}

int ptm_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *opts,
                struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_run **out)
{
    *out = NULL;
    err[0] = '\0';
    struct ptm_run *run = rt_zalloc(1, sizeof(*run));
    if (!run)
        return PTM_ENOMEM;
    run->plan = plan;
    run->opts = *opts;
    run->seed = opts->has_seed ? opts->seed : plan->seed;
    run->backend = &rt_backend_threads;
    run->rank = ptm_comm_rank();
    run->nranks = ptm_comm_size();
    run->P = opts->workers < 1 ? 1 : opts->workers;
    int rc = choose(run, err, errlen);
    if (rc != 0)
        goto fail;
    run->split = run->rule->split_blocks;
    /* X[i, j] in the scheduler's expressions reads the CSR's entries */
    run->columns_only = run->split && rt_lasso_columns_only(plan) && !sched_reads_entries(plan);
    rc = PTM_ENOMEM;
    run->data = rt_zalloc(plan->ndata, sizeof(*run->data));
    run->caphist = 64;
    run->hist = rt_zalloc(run->caphist, sizeof(double));
    if (!run->data || !run->hist)
        goto fail;
    rc = load_data(run, dg);
    if (rc == 0 && (rc = choose_rows(run, err, errlen)) == PTM_EDATA) {
        diags_from_text(dg, err); /* the data's rows, seen by all ranks */
        err[0] = '\0';
    }
    if (rc != 0)
        goto fail;
    rc = PTM_ENOMEM;
    run->w = rt_zalloc((size_t)run->P, sizeof(*run->w));
    if (!run->w)
        goto fail;
    if ((rc = make_shards(run, err, errlen)) != 0 || (rc = make_params(run, err, errlen)) != 0 ||
        (rc = make_blocks(run, err, errlen)) != 0)
        goto fail;
    if ((rc = run->rule->setup(run, err, errlen)) != 0 ||
        (rc = rt_straggle_setup(run, err, errlen)) != 0)
        goto fail;
    run->expand_late = run->split && run->nranks == 1 && run->bs &&
                       run->bs->axis == PLAN_AXIS_ELEMS && !run->bs->into && run->bsize == 1;
    if (run->obj && (rc = run->obj->setup(run, err, errlen)) != 0)
        goto fail;
    if ((rc = make_schedule(run, dg, err, errlen)) != 0)
        goto fail;
    *out = run;
    return 0;
fail:
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    ptm_run_free(run);
    return rc;
}

int rt_setup_tables(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    run->split = true; /* one copy of every parameter, no shards */
    run->data = rt_zalloc(run->plan->ndata, sizeof(*run->data));
    if (!run->data)
        return PTM_ENOMEM;
    int rc = load_data(run, dg);
    if (rc == 0)
        rc = choose_rows(run, err, errlen);
    if (rc == 0)
        rc = make_params(run, err, errlen);
    if (rc == 0)
        rc = make_blocks(run, err, errlen);
    return rc;
}

void rt_expand_round(const struct ptm_run *run, struct rt_round *rd)
{
    expand_round(run, rd);
}

void rt_block_units(const struct ptm_run *run, int64_t b, int64_t *u0, int64_t *u1)
{
    block_units(run, b, u0, u1);
}

void rt_diags_from_text(struct ptm_data_diags *dg, const char *text)
{
    diags_from_text(dg, text);
}

void ptm_run_free(struct ptm_run *run)
{
    if (!run)
        return;
    if (run->w) {
        rt_straggle_release(run);
        run->rule->release(run);
        if (run->obj)
            run->obj->release(run);
    }
    if (run->sched_state)
        run->sched->destroy(run->sched_state);
    if (run->has_senv)
        sched_env_release(&run->senv);
    if (run->w)
        for (int p = 0; p < run->P; p++) {
            struct rt_worker *w = &run->w[p];
            if (w->shard)
                for (uint32_t k = 0; k < run->plan->ndata; k++)
                    if (w->shard[k].own_csc)
                        ptm_csc_release(&w->shard[k].csc);
            if (w->local)
                for (uint32_t q = 0; q < run->plan->nparams; q++)
                    ptm_free(w->local[q]);
            ptm_free(w->shard);
            ptm_free(w->local);
            ptm_free(w->z);
        }
    ptm_free(run->w);
    if (run->params)
        for (uint32_t q = 0; q < run->plan->nparams; q++)
            ptm_free(run->params[q].val);
    ptm_free(run->params);
    if (run->data)
        for (uint32_t k = 0; k < run->plan->ndata; k++)
            if (run->data[k])
                ptm_dataset_free(run->data[k]);
    ptm_free(run->data);
    for (int i = 0; i < 3; i++) {
        struct rt_round *rd = i < 2 ? &run->rounds[i] : &run->canon;
        ptm_free(rd->blocks);
        ptm_free(rd->off);
        ptm_free(rd->vars);
        ptm_free(rd->change);
        ptm_free(rd->part);
        ptm_free(rd->order);
    }
    ptm_free(run->bchange);
    ptm_free(run->load);
    ptm_free(run->gbounds);
    ptm_free(run->say);
    ptm_free(run->holder);
    ptm_free(run->msgs);
    ptm_free(run->newval);
    ptm_free(run->zsum);
    ptm_free(run->last_delta);
    ptm_free(run->hist);
    ptm_free(run);
}

/* ---- the round loop ----------------------------------------------------------- */

/* Commit the new values of rd's blocks b0 .. b1-1; record the changes,
 * and each block's Euclidean norm of them for the scheduler. */
static void commit(struct ptm_run *run, struct rt_round *rd, size_t b0, size_t b1)
{
    /* the last changes only when an expression of the scheduler reads them */
    double *restrict val = run->params[run->sparam].val,
                     *restrict last = run->track_delta ? run->last_delta : NULL,
                     *restrict change = rd->change, *restrict bchange = run->bchange;
    const double *restrict newval = run->newval;
    const int64_t *restrict off = rd->off, *restrict vars = rd->vars;
    if (run->bvars == 1 && off[b1] - off[b0] == (int64_t)(b1 - b0)) {
        /* a variable a block: the change is the block's, and one pass
         * reads each array in order */
        int64_t at = off[b0] - (int64_t)b0;
        for (size_t i = b0; i < b1; i++) {
            int64_t v = at + (int64_t)i, e = vars[v];
            double d = newval[v] - val[e];
            change[v] = d;
            if (last)
                last[e] = d;
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
    if (rc == 0 && wk->push) {
        if (run->expand_late)
            expand_share((struct rt_round *)wk->push, w->id);
        rc = run->rule->push(w, wk->push);
        /* by blocks: the worker's share is its own to commit */
        if (rc == 0 && run->split && run->nranks == 1)
            commit(run, (struct rt_round *)wk->push, wk->push->part[w->id],
                   wk->push->part[w->id + 1]);
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
static int phase(struct ptm_run *run, const struct rt_work *wk, char *err, size_t errlen)
{
    run->work = *wk;
    run->backend->phase(run);
    return phase_failure(run, wk->objective && !wk->push, err, errlen);
}

/* Rotation across ranks, before round rd runs: each block whose worker
 * is on another rank than last round's comes over, with what the rule
 * keeps for it. Every rank walks the round in the same order, so the
 * messages between two ranks pair up in order. */
static void move_blocks(struct ptm_run *run, const struct rt_round *rd)
{
    size_t n = 0;
    for (int g = 0; g < run->G; g++)
        for (size_t k = rd->part[g]; k < rd->part[g + 1]; k++) {
            int64_t b = rd->blocks[k];
            int to = g / run->P, from = run->holder[b];
            run->holder[b] = to;
            if (from < 0 || from == to || (from != run->rank && to != run->rank))
                continue;
            struct rt_span sp[RT_SPANS];
            int ns = run->rule->spans(run, b, sp);
            for (int i = 0; i < ns; i++)
                run->msgs[n++] = (struct ptm_comm_msg){
                    .buf = sp[i].p,
                    .bytes = sp[i].bytes,
                    .peer = from == run->rank ? to : from,
                    .tag = (int)((b * RT_SPANS + i) % 32768),
                    .send = from == run->rank,
                };
        }
    ptm_comm_post(run->msgs, n);
}

/* Rotation across ranks: the scheduled parameter made whole on every rank
 * from the blocks each rank holds, for the objective and the outputs. */
static int gather_blocks(struct ptm_run *run)
{
    struct rt_param *t = &run->params[run->sparam];
    double *sum = rt_zalloc((size_t)t->len, sizeof(double));
    if (!sum)
        return PTM_ENOMEM;
    for (int64_t b = 0; b < run->nblocks; b++) {
        int h = run->holder[b];
        if (h != run->rank && (h >= 0 || run->rank != 0))
            continue; /* another rank's, or everyone's and rank 0 gives it */
        int64_t u0, u1;
        block_units(run, b, &u0, &u1);
        if (run->bs->axis == PLAN_AXIS_COLS) {
            for (int64_t i = 0; i < t->rows; i++)
                for (int64_t j = u0; j < u1; j++)
                    sum[i * t->cols + j] = t->val[i * t->cols + j];
        } else {
            int64_t w = run->bs->axis == PLAN_AXIS_ROWS ? t->cols : 1;
            memcpy(sum + u0 * w, t->val + u0 * w, (size_t)((u1 - u0) * w) * sizeof(double));
        }
    }
    ptm_comm_sum_all(sum, (size_t)t->len);
    memcpy(t->val, sum, (size_t)t->len * sizeof(double));
    ptm_free(sum);
    return 0;
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

/* Evaluate the objective (applying the pending round first). */
static int evaluate(struct ptm_run *run, const struct rt_round *pending, char *err, size_t errlen)
{
    if (run->rule->sync && run->rule->kind != RT_CLOCKS && run->rule->sync(run) != 0) {
        snprintf(err, errlen, "the parameter store failed");
        return PTM_EINVAL;
    }
    if (run->holder && !run->rule->sync && gather_blocks(run) != 0)
        return PTM_ENOMEM;
    struct rt_work wk = {.apply = pending, .objective = true};
    int rc = phase(run, &wk, err, errlen);
    if (rc != 0)
        return rc;
    double part = run->backend->reduce_part(run);
    ptm_comm_sum_to_root(&part, 1);
    if (run->rank != 0)
        return 0; /* rank 0 keeps the history */
    double f = run->obj->finish(run, part);
    if (!isfinite(f)) {
        snprintf(err, errlen, "the objective is %g%s%s", f, run->opts.objective_at ? "\n" : "",
                 run->opts.objective_at ? run->opts.objective_at : "");
        if (run->opts.objective_at)
            snprintf(err + strlen(err), errlen - strlen(err),
                     ": note: the objective is declared here");
        return PTM_EINVAL;
    }
    return record_objective(run, f);
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
            run->opts.log_tty ? "\r\033[K" : "", (long long)run->round, (long long)sweeps(run), f,
            rel_change(run), ups, run->seconds, run->opts.log_tty ? "" : "\n");
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
    struct prog_env env = {.globals = g};
    double v = prog_eval(&plan->stop, &env);
    return v != 0 && !isnan(v);
}

/* One JSON object for the round just run. */
static void json_blocks(FILE *t, const int64_t *b, size_t n)
{
    /* by hand, a chunk at a time: printf's number formatting made the
     * trace cost more than a small round */
    char buf[4096];
    size_t at = 0;
    buf[at++] = '[';
    for (size_t k = 0; k < n; k++) {
        char tmp[24];
        int len = 0;
        uint64_t v = (uint64_t)b[k] + 1;
        do {
            tmp[len++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        if (at + (size_t)len + 3 > sizeof(buf)) {
            fwrite(buf, 1, at, t);
            at = 0;
        }
        if (k) {
            buf[at++] = ',';
            buf[at++] = ' ';
        }
        while (len)
            buf[at++] = tmp[--len];
    }
    buf[at++] = ']';
    fwrite(buf, 1, at, t);
}

/* One JSON object for the round just run (spec/runtime.md, Outputs); the
 * workers' busy seconds restart. */
static int trace_round(FILE *t, struct ptm_run *run, const struct rt_round *rd, bool evaluated)
{
    fprintf(t, "{\"round\": %lld, \"seconds\": %.6f, \"blocks\": ", (long long)run->round,
            run->seconds);
    json_blocks(t, rd->blocks, rd->n);
    fprintf(t,
            ", \"candidates\": %lld, \"conflicts\": %lld, \"evaluations\": %lld, "
            "\"schedule_seconds\": %.9f, \"workers\": [",
            (long long)rd->candidates, (long long)rd->conflicts, (long long)rd->evaluations,
            run->sched_seconds);
    for (int p = 0; p < run->P; p++) {
        fprintf(t, "%s{\"worker\": %d, \"blocks\": ", p ? ", " : "", p + 1);
        if (run->split || run->rule->kind == RT_ROTATION)
            json_blocks(t, rd->blocks + rd->part[p], rd->part[p + 1] - rd->part[p]);
        else
            json_blocks(t, rd->blocks, rd->n);
        fprintf(t, ", \"seconds\": %.6f", run->w[p].busy);
        if (run->w[p].straggle) /* ptm run --straggler */
            fprintf(t, ", \"delay\": %.6f", rt_straggle_take(&run->w[p]));
        fputc('}', t);
        run->w[p].busy = 0;
    }
    fprintf(t, "]");
    if (evaluated)
        fprintf(t, ", \"objective\": %.17g", run->hist[run->nhist - 1]);
    fprintf(t, "}\n");
    return ferror(t) ? PTM_EIO : 0;
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

static void sched_globals(struct ptm_run *run)
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

/* Rank 0's decision and round to every rank, in one broadcast of
 * run->say: stop, n, then the blocks, their order and the workers'
 * parts, then the new values of the round owed (pulled and committed on
 * rank 0 only, or NULL), which the other ranks commit. */
static void tell_round(struct ptm_run *run, struct rt_round *rd, int64_t head[2],
                       struct rt_round *owed)
{
    int64_t *m = run->say, G = run->G;
    size_t cap = run->say_cap, vals = 2 + 2 * cap + (size_t)G + 1;
    if (run->rank == 0) {
        if (owed)
            memcpy(m + vals, run->newval, owed->nvars * sizeof(double));
        m[0] = head[0];
        m[1] = head[1];
        for (size_t i = 0; !head[0] && i < rd->n; i++) {
            m[2 + i] = rd->blocks[i];
            m[2 + cap + i] = (int64_t)rd->order[i];
        }
        for (int64_t p = 0; !head[0] && p <= G; p++)
            m[2 + 2 * cap + p] = (int64_t)rd->part[p];
    }
    ptm_comm_bcast(m, vals * sizeof(int64_t) + (owed ? owed->nvars * sizeof(double) : 0));
    head[0] = m[0];
    head[1] = m[1];
    if (run->rank == 0)
        return;
    if (owed) {
        memcpy(run->newval, m + vals, owed->nvars * sizeof(double));
        commit(run, owed, 0, owed->n);
    }
    if (head[0])
        return;
    rd->n = (size_t)head[1];
    for (size_t i = 0; i < rd->n; i++) {
        rd->blocks[i] = m[2 + i];
        rd->order[i] = (size_t)m[2 + cap + i];
    }
    for (int64_t p = 0; p <= G; p++)
        rd->part[p] = (size_t)m[2 + 2 * cap + p];
}

/* The pull and the commit of a round whose sums are in run->zsum (this
 * rank's): rank 0 pulls the sums over the ranks and tells every rank the
 * new values, which each then commits. */
static int pull_ranks(struct ptm_run *run, struct rt_round *rd, size_t zlen, char *err,
                      size_t errlen)
{
    ptm_comm_sum_to_root(run->zsum, zlen);
    if (run->rank == 0 && run->rule->pull(run, rd, run->zsum, zlen, run->newval) != 0)
        return failure(run, &run->w[0], true, false, err, errlen);
    /* the other ranks get the new values with the next round (tell_round),
     * or before the objective (settle) */
    if (run->rank == 0)
        commit(run, rd, 0, rd->n);
    return 0;
}

/* The other ranks commit the round owed now (before the objective). */
static void settle(struct ptm_run *run, struct rt_round *owed)
{
    ptm_comm_bcast(run->newval, owed->nvars * sizeof(double));
    if (run->rank != 0)
        commit(run, owed, 0, owed->n);
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
    if (run->obj && run->nhist == 0) {
        if ((rc = evaluate(run, NULL, err, errlen)) != 0)
            return rc;
        progress(run);
    }
    /* seconds count from the first clock, and not the trace's writing */
    double t0 = now_seconds() - run->seconds;
    for (;;) {
        /* rank 0 decides whether to go on; the other ranks are told */
        int64_t stop = run->rank == 0 && (stop_now(run) || ptm_run_interrupted());
        if (run->nranks > 1)
            ptm_comm_bcast(&stop, sizeof(stop));
        if (stop)
            break;
        int64_t n = len;
        if (run->anchor_every > 0) {
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
        if ((rc = phase(run, &wk, err, errlen)) != 0 || (rc = run->rule->sync(run)) != 0)
            return rc;
        run->round += n;
        run->updates += n * run->P;
        run->seconds = now_seconds() - t0;
        bool evaluated = run->obj && objective_due(run);
        if (evaluated) {
            if ((rc = evaluate(run, NULL, err, errlen)) != 0)
                return rc;
            progress(run);
        }
        if (trace) {
            double tw = now_seconds();
            run->rounds[0].n = 0;
            if (trace_round(trace, run, &run->rounds[0], evaluated) != 0) {
                snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                         strerror(errno));
                return PTM_EIO;
            }
            t0 += now_seconds() - tw;
        }
    }
    if (run->obj && run->opts.log && !run->opts.quiet && run->opts.log_tty)
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
    if (run->obj && run->nhist == 0) {
        if ((rc = evaluate(run, NULL, err, errlen)) != 0)
            return rc;
        progress(run);
    }
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
                struct ptm_sched_round sr = {
                    .blocks = rd->blocks,
                    .part = rd->part,
                    .load = run->load,
                    .order = run->apply_dealt && run->nranks == 1 ? NULL : rd->order};
                sched_globals(run);
                if ((rc = run->sched->next(run->sched_state, &sr, err, errlen)) != 0)
                    return rc;
                rd->n = sr.n;
                rd->candidates = sr.candidates;
                rd->conflicts = sr.conflicts;
                rd->evaluations = sr.evaluations;
                head[1] = (int64_t)rd->n;
            }
        }
        if (run->nranks > 1) {
            tell_round(run, rd, head, owed);
            if (owed && run->rank != 0) /* now committed here too */
                pending = run->split ? policy_view(run, owed) : owed;
            owed = NULL;
        }
        if (head[0])
            break;
        if (trace)
            run->sched_seconds = now_seconds() - ts;
        if (!run->split)
            to_policy_order(run, rd);
        if (run->expand_late) { /* each worker fills its share: expand_share() */
            rd->nvars = rd->n;
        } else {
            expand_round(run, rd);
        }
        const struct rt_round *applied = rd; /* what apply will see */
        if (run->rule->kind == RT_ROTATION) {
            /* each worker writes its own variables: nothing to combine */
            if (run->holder)
                move_blocks(run, rd);
            struct rt_work wp = {.push = rd};
            if ((rc = phase(run, &wp, err, errlen)) != 0)
                return rc;
            if (run->holder && run->rule->exchange && run->rule->exchange(run) != 0) {
                snprintf(err, errlen, "the parameter store failed");
                return PTM_EINVAL;
            }
            applied = NULL;
        } else if (run->split) {
            /* each worker applies to state of its own: apply and push in
             * one phase */
            struct rt_work wp = {.apply = pending, .push = rd};
            if ((rc = phase(run, &wp, err, errlen)) != 0)
                return rc;
            if (run->nranks > 1) {
                if ((rc = pull_ranks(run, rd, run->rule->zcap(run, rd->n, rd->nvars), err,
                                     errlen)) != 0)
                    return rc;
                owed = rd;
            }
            applied = run->apply_dealt || (run->nranks > 1 && run->rank != 0) ? rd
                                                                             : policy_view(run, rd);
        } else {
            struct rt_work wk = {.apply = pending, .push = rd};
            if ((rc = phase(run, &wk, err, errlen)) != 0 ||
                (rc = check_zlen(run, err, errlen)) != 0)
                return rc;
            size_t zlen = run->w[0].zlen;
            run->backend->reduce_z(run, zlen, run->zsum);
            if ((rc = pull_ranks(run, rd, zlen, err, errlen)) != 0)
                return rc;
            if (run->nranks > 1)
                owed = rd;
        }
        if (run->sched->done && applied && run->rank == 0) {
            ts = trace ? now_seconds() : 0;
            run->sched->done(run->sched_state, rd->blocks, run->bchange, rd->n);
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
                settle(run, owed);
                if (run->rank != 0)
                    pending = run->split ? policy_view(run, owed) : owed;
                owed = NULL;
            }
            if ((rc = evaluate(run, pending, err, errlen)) != 0)
                return rc;
            pending = NULL;
            progress(run);
        }
        if (trace) {
            double tw = now_seconds();
            if (trace_round(trace, run, rd, evaluated) != 0) {
                snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace,
                         strerror(errno));
                return PTM_EIO;
            }
            t0 += now_seconds() - tw;
        }
    }
    /* bring the workers' local state (sharded parameters) up to date */
    if (pending) {
        struct rt_work wk = {.apply = pending};
        rc = phase(run, &wk, err, errlen);
    }
    if (run->obj && run->opts.log && !run->opts.quiet && run->opts.log_tty)
        fputc('\n', run->opts.log); /* end the updating line */
    return rc;
}

int ptm_run_exec(struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    if (run->failed) {
        snprintf(err, errlen, "the run failed before and cannot go on");
        return PTM_EINVAL;
    }
    FILE *trace = NULL;
    if (run->opts.trace) {
        trace = fopen(run->opts.trace, "w");
        if (!trace) {
            snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(errno));
            return PTM_EIO;
        }
    }
    int rc = run->backend->start(run, err, errlen);
    if (rc == 0) {
        rc = rounds(run, trace, err, errlen);
        run->backend->stop(run);
        /* the outputs read the parameter tables */
        if (rc == 0 && run->rule->sync && run->rule->sync(run) != 0) {
            snprintf(err, errlen, "the parameter store failed");
            rc = PTM_EINVAL;
        }
        if (rc == 0 && run->holder && !run->rule->sync)
            rc = gather_blocks(run);
    }
    if (trace && fclose(trace) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot write trace '%s': %s", run->opts.trace, strerror(errno));
        rc = PTM_EIO;
    }
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    if (rc != 0)
        run->failed = true;
    return rc;
}

/* ---- results ------------------------------------------------------------------ */

void ptm_run_stats(const struct ptm_run *run, struct ptm_run_stats *st)
{
    st->rounds = run->round;
    st->updates = run->updates;
    st->sweeps = sweeps(run);
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
    if (param < 0 || (uint32_t)param >= run->plan->nparams)
        return -1;
    const struct rt_param *t = &run->params[param];
    if (t->val) {
        /* a sharded parameter holds this rank's rows */
        int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
        memcpy(out, t->val, (size_t)(held < cap ? held : cap) * sizeof(double));
        return t->len;
    }
    int64_t at = 0;
    for (int p = 0; p < run->P; p++) {
        const struct rt_worker *w = &run->w[p];
        int64_t m = (w->hi - w->lo) * t->cols;
        for (int64_t i = 0; i < m && at < cap; i++)
            out[at++] = w->local[param][i];
    }
    return t->len;
}

/* Write one parameter to path via a temporary file: a row a line, the
 * columns of a matrix separated by tabs. With several ranks every rank
 * calls it (a sharded parameter is gathered to rank 0) and rank 0 writes. */
static int write_tsv(const struct ptm_run *run, int32_t param, const char *path, char *err,
                     size_t errlen)
{
    const struct rt_param *t = &run->params[param];
    bool gather = run->nranks > 1 && t->shard_like >= 0;
    if (run->nranks > 1 && !gather && run->rank != 0)
        return 0;
    double *v = rt_zalloc((size_t)t->len, sizeof(double));
    double *mine = gather ? rt_zalloc((size_t)(run->nrows * t->cols), sizeof(double)) : NULL;
    if (!v || (gather && !mine)) {
        ptm_free(v);
        ptm_free(mine);
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return PTM_ENOMEM;
    }
    if (gather) {
        ptm_run_param(run, param, mine, run->nrows * t->cols);
        ptm_comm_gather(mine, run->nrows * t->cols, v);
        ptm_free(mine);
        if (run->rank != 0) {
            ptm_free(v);
            return 0;
        }
    } else {
        ptm_run_param(run, param, v, t->len);
    }
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, path);
    if (rc == 0) {
        for (int64_t i = 0; i < t->rows; i++)
            for (int64_t j = 0; j < t->cols; j++)
                fprintf(w.f, "%.17g%c", v[i * t->cols + j], j + 1 < t->cols ? '\t' : '\n');
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

/* LDA: next to the word-topic counts PATH, PATH.top: each topic's 20
 * words of most tokens, by the vocabulary when the data has one. */
static int write_top_words(const struct ptm_run *run, const char *path, char *err, size_t errlen)
{
    enum { N = 20 };
    int32_t *top, K;
    int rc = rt_lda_top_words(run, N, &top, &K);
    if (rc != 0)
        return rc == PTM_EINVAL ? 0 : rc;
    const struct ptm_dataset *D = run->data[run->rowdata];
    char name[4200];
    snprintf(name, sizeof(name), "%s.top", path);
    struct ptm_wfile w;
    rc = ptm_wfile_open(&w, name);
    if (rc == 0) {
        for (int32_t k = 0; k < K; k++) {
            fprintf(w.f, "%d", k + 1);
            for (int32_t i = 0; i < N && top[k * N + i] >= 0; i++) {
                int32_t j = top[k * N + i];
                if (D && j < D->vocab.n)
                    fprintf(w.f, "\t%s", D->vocab.word[j]);
                else
                    fprintf(w.f, "\t%d", j + 1);
            }
            fputc('\n', w.f);
        }
        rc = ptm_wfile_commit(&w);
    } else {
        ptm_wfile_abort(&w);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write '%s': %s", name,
                 rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
    ptm_free(top);
    return rc;
}

int ptm_run_write_outputs(const struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    if (run->failed) {
        snprintf(err, errlen, "the run failed: no outputs are written");
        return PTM_EINVAL;
    }
    for (uint32_t k = 0; k < run->plan->noutputs; k++) {
        const struct plan_output *o = &run->plan->outputs[k];
        int rc = write_tsv(run, o->param, o->path, err, errlen);
        if (rc == 0 && run->rule == &rt_rule_lda && run->rank == 0 &&
            o->param == run->sparam)
            rc = write_top_words(run, o->path, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}
