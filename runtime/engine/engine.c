/*
 * engine.c - the life of a run of `ptm run`: which update rule, objective
 * and scheduler run the plan (choose), its set-up (ptm_run_new(): the
 * tables, the rule's and the objective's state, the scheduler) and its
 * release (ptm_run_free()); and the helpers the engine's files and the
 * update rules share.
 *
 * DESIGN: the engine knows plans, parameter tables, shards and rounds; it
 * does not know any model. The update rule (struct rt_rule: a model's
 * built-in rule, found by the name the plan gives through the registry of
 * runtime/models/model.h, or the Lua hooks of runtime/lua/rule_lua.c),
 * the objective, the scheduler (schedulers/) and the way workers run
 * (struct rt_backend: threads in backend_threads.c) sit behind their
 * interfaces, so a new model or policy does not touch the engine, and a
 * new backend only where ptm_run_new() picks it. Every buffer the rounds
 * use is allocated in ptm_run_new(): the rounds themselves do not
 * allocate (rounds.c says what the objective's evaluations do).
 *
 * The engine's files: engine.c (this), tables.c (data, shards, parameter
 * tables, blocks), sched_setup.c (the scheduler and the round loop's
 * buffers), rounds.c (the round loop), ranks.c (its exchanges between
 * Open MPI ranks), outputs.c (the trace and the TSV outputs),
 * backend_threads.c (workers as threads), straggle.c (workers slowed on
 * purpose), comm.c (the ranks), expr_env.c and sched_env.c (what the
 * scheduler's expressions read), depgraph.c (the conflict graph of a
 * depend predicate over data); engine_impl.h is what they and the
 * update rules share. dryrun.c (`ptm plan`) reuses the set-up of
 * tables.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"

/* ---- helpers shared with the engine's files and the rules ------------------- */

void *rt_zalloc(size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size)
        return NULL;
    return ptm_calloc(n, size);
}

const struct plan_option *rt_option(const struct plan_hook *h, const char *key)
{
    for (uint32_t i = 0; i < h->noptions; i++)
        if (strcmp(h->options[i].key, key) == 0) {
            const struct plan_option *o = &h->options[i];
            /* the compiler writes an optional option the job leaves out
             * as the empty string */
            return o->kind == PLAN_VALUE_STR && o->str && !o->str[0] ? NULL : o;
        }
    return NULL;
}

bool rt_within_sequential(const struct plan_hook *h)
{
    const struct plan_option *o = rt_option(h, "within");
    return o && o->kind == PLAN_VALUE_STR && strcmp(o->str, "sequential") == 0;
}

double rt_option_num(const struct plan_hook *h, const char *key, double dflt)
{
    const struct plan_option *o = rt_option(h, key);
    return o && o->kind == PLAN_VALUE_NUM ? o->num : dflt;
}

int64_t rt_cols_nnz(const struct ptm_csc *x, const int64_t *cols, size_t n)
{
    int64_t nnz = 0;
    for (size_t v = 0; v < n; v++)
        nnz += x->colptr[cols[v] + 1] - x->colptr[cols[v]];
    return nnz;
}

bool rt_alone_dry(struct ptm_run *run, const int64_t *blocks, size_t n, int64_t seq_min,
                  int64_t par_min)
{
    const struct plan_hook *u = &run->plan->update;
    const struct plan_option *ox = rt_option(u, "X");
    const struct ptm_csc *x = NULL;
    bool seq = rt_within_sequential(u);
    if (run->P < 2 || (!seq && par_min < 0) || !ox || ox->kind != PLAN_VALUE_DATA || ox->ref < 0 ||
        (uint32_t)ox->ref >= run->plan->ndata || !run->data[ox->ref] ||
        !run->data[ox->ref]->sparse || ptm_dataset_csc(run->data[ox->ref], &x) != 0)
        return false;
    int64_t least = (int64_t)rt_option_num(u, "split_min", (double)(seq ? seq_min : par_min));
    if (seq && x->nrows > least)
        least = x->nrows;
    return rt_cols_nnz(x, blocks, n) < least;
}

void rt_fail(struct rt_worker *w, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
    va_end(ap);
    w->rc = rc;
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
    /* the built-in rules and objectives are the models' (runtime/models);
     * the compiler checked which policies each runs under */
    if (u->lua) {
        run->rule = rt_lua_rule(pol);
    } else {
        run->rule = ptm_model_rule(u->builtin, &run->model);
        if (!run->rule) {
            char names[512];
            ptm_model_list(false, names, sizeof(names));
            snprintf(err, errlen,
                     "update builtin '%s' is not supported yet: this version runs %s and Lua "
                     "updates",
                     u->builtin, names);
            return PTM_EINVAL;
        }
    }
    if (o->present) {
        run->obj = o->lua ? &rt_objective_lua : ptm_model_objective(o->builtin);
        if (!run->obj) {
            char names[512];
            ptm_model_list(true, names, sizeof(names));
            snprintf(err, errlen,
                     "objective builtin '%s' is not supported yet: this version evaluates %s "
                     "and Lua objectives",
                     o->builtin, names);
            return PTM_EINVAL;
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
    run->columns_only = run->split && run->model && run->model->columns_only &&
                        run->model->columns_only(plan) && !rt_sched_reads_entries(plan);
    for (uint32_t k = 0; k < plan->nmetrics; k++)
        if (plan->data[plan->metrics[k].data].shard == PLAN_SHARD_ROWS)
            run->columns_only = false; /* a metric on the training rows reads them */
    rc = PTM_ENOMEM;
    run->caphist = 64;
    run->hist = rt_zalloc(run->caphist, sizeof(double));
    if (!run->hist)
        goto fail;
    if ((rc = rt_make_tables(run, dg, err, errlen)) != 0)
        goto fail;
    if ((rc = run->rule->setup(run, err, errlen)) != 0 ||
        (rc = rt_straggle_setup(run, err, errlen)) != 0)
        goto fail;
    run->expand_late = run->split && run->nranks == 1 && run->bs &&
                       run->bs->axis == PLAN_AXIS_ELEMS && !run->bs->into && run->bsize == 1;
    if (run->obj && (rc = run->obj->setup(run, err, errlen)) != 0)
        goto fail;
    if ((rc = rt_metrics_setup(run, err, errlen)) != 0)
        goto fail;
    if ((rc = rt_make_schedule(run, dg, err, errlen)) != 0)
        goto fail;
    if ((rc = rt_ckpt_setup(run, err, errlen)) != 0)
        goto fail;
    *out = run;
    return 0;
fail:
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    ptm_run_free(run);
    return rc;
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
    rt_metrics_release(run);
    rt_ckpt_release(run);
    if (run->sched_state)
        run->sched->destroy(run->sched_state);
    if (run->has_senv)
        sched_env_release(&run->senv);
    if (run->has_depgraph)
        sched_edges_release(&run->depgraph);
    depgraph_lazy_free(run->lazy);
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
    ptm_free(run->l1);
    ptm_free(run->rk.pb);
    ptm_free(run->rk.flag);
    ptm_free(run->rk.keep);
    ptm_free(run->rk.mark);
    ptm_free(run->rk.blocks);
    ptm_free(run->rk.change);
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
