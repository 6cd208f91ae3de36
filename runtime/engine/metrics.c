/*
 * metrics.c - a job's metrics (`metric NAME = KIND(DATA)`, spec/runtime.md
 * "Metrics"): the model's predictions of DATA from the committed
 * parameters, scored as `ptm predict` scores them (runtime/models/
 * predict.h), each time the objective is evaluated.
 *
 * The parameters the model's predict reads (struct ptm_model's
 * predict_params) are gathered whole: a sharded one (MF's W) from the
 * workers, and under MPI from every rank to rank 0, which alone scores,
 * keeps the history and decides when the stop rule holds. Metrics on the
 * same data set share one prediction.
 */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "engine_impl.h"
#include "model.h"
#include "predict.h"
#include "ptm.h"

/* The parameter the update's option key names, or -1. */
static int32_t option_param(const struct ptm_plan *plan, const char *key)
{
    const struct plan_option *o = rt_option(&plan->update, key);
    return o && o->kind == PLAN_VALUE_PARAM ? o->ref : -1;
}

int rt_metrics_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    if (plan->nmetrics == 0)
        return 0;
    const struct ptm_model *m = run->model;
    if (!m || !m->predict || !m->predict_params) {
        snprintf(err, errlen, "metric %s: the update has no model that predicts",
                 plan->metrics[0].name);
        return PTM_EINVAL;
    }
    for (uint32_t k = 0; k < plan->nmetrics; k++) {
        const struct plan_metric *pm = &plan->metrics[k];
        int32_t d = pm->data;
        if (d < 0 || (uint32_t)d >= plan->ndata || !run->data[d]) {
            snprintf(err, errlen, "metric %s: its data is not a data set of the run", pm->name);
            return PTM_EINVAL;
        }
        if (run->nranks > 1 && plan->data[d].shard == PLAN_SHARD_ROWS) {
            snprintf(err, errlen,
                     "metric %s: data '%s' is sharded by rows, so under MPI no rank holds all "
                     "of it: declare held-out data without 'shard rows'",
                     pm->name, plan->data[d].name);
            return PTM_EINVAL;
        }
    }
    run->metrics = rt_zalloc(plan->nmetrics, sizeof(*run->metrics));
    run->mvals = rt_zalloc((size_t)PROG_METRIC_OF * plan->nmetrics, sizeof(double));
    if (!run->metrics || !run->mvals)
        return PTM_ENOMEM;
    for (uint32_t k = 0; k < plan->nmetrics; k++) {
        run->mvals[PROG_METRIC_OF * k + PROG_METRIC_VALUE] = NAN;
        run->mvals[PROG_METRIC_OF * k + PROG_METRIC_REL_CHANGE] = INFINITY;
        run->mvals[PROG_METRIC_OF * k + PROG_METRIC_SINCE_BEST] = 0;
    }
    return 0;
}

void rt_metrics_release(struct ptm_run *run)
{
    ptm_free(run->metrics);
    ptm_free(run->mvals);
    run->metrics = NULL;
    run->mvals = NULL;
}

/* Record value v of metric k. */
static void record(struct ptm_run *run, uint32_t k, double v)
{
    struct rt_metric *m = &run->metrics[k];
    double *out = run->mvals + PROG_METRIC_OF * k;
    bool higher = plan_metric_higher(run->plan->metrics[k].kind);
    if (m->n > 0)
        out[PROG_METRIC_REL_CHANGE] = fabs(v - m->last) / fmax(fabs(m->last), 1e-300);
    bool better = m->n == 0 ? !isnan(v) : higher ? v > m->best : v < m->best;
    if (better || (m->n > 0 && isnan(m->best) && !isnan(v))) {
        m->best = v;
        m->since_best = 0;
    } else if (m->n > 0) {
        m->since_best++;
    } else {
        m->best = v;
    }
    m->last = v;
    m->n++;
    out[PROG_METRIC_VALUE] = v;
    out[PROG_METRIC_SINCE_BEST] = (double)m->since_best;
}

int rt_metrics_eval(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    if (plan->nmetrics == 0)
        return 0;
    const struct ptm_model *model = run->model;
    struct ptm_values *tables = rt_zalloc(plan->nparams, sizeof(*tables));
    if (!tables)
        return PTM_ENOMEM;
    int rc = 0;
    /* every rank gathers, in the same order */
    for (const char *const *key = model->predict_params; *key && rc == 0; key++) {
        int32_t p = option_param(plan, *key);
        if (p < 0 || tables[p].val)
            continue;
        const struct rt_param *t = &run->params[p];
        double *v = rt_zalloc((size_t)t->len, sizeof(double));
        if (!v) {
            rc = PTM_ENOMEM;
            break;
        }
        if (run->nranks > 1 && t->shard_like >= 0) {
            int64_t mine = run->nrows * t->cols;
            double *part = rt_zalloc((size_t)(mine ? mine : 1), sizeof(double));
            if (!part) {
                ptm_free(v);
                rc = PTM_ENOMEM;
                break;
            }
            ptm_run_param(run, p, part, mine);
            ptm_comm_gather(part, mine, v);
            ptm_free(part);
        } else {
            ptm_run_param(run, p, v, t->len);
        }
        tables[p] = (struct ptm_values){.rows = t->rows, .cols = t->cols, .val = v};
    }
    if (rc == 0 && run->rank == 0) {
        /* one prediction a data set */
        for (uint32_t k = 0; k < plan->nmetrics && rc == 0; k++) {
            bool done = false;
            for (uint32_t j = 0; j < k; j++)
                done |= plan->metrics[j].data == plan->metrics[k].data;
            if (done)
                continue;
            struct ptm_predict pr = {.plan = plan, .seed = run->seed};
            struct ptm_data_diags dg;
            ptm_data_diags_init(&dg);
            rc = ptm_predict_init(&pr, &dg);
            if (rc == 0) {
                pr.borrowed = true;
                memcpy(pr.tables, tables, plan->nparams * sizeof(*tables));
                pr.data = run->data[plan->metrics[k].data];
                pr.data_path = plan->data[plan->metrics[k].data].name;
                rc = model->predict(&pr, err, errlen);
                if (rc != 0 && err[0])
                    snprintf(err + strlen(err), errlen - strlen(err), " (metric %s)",
                             plan->metrics[k].name);
            }
            for (uint32_t j = k; j < plan->nmetrics && rc == 0; j++) {
                if (plan->metrics[j].data != plan->metrics[k].data)
                    continue;
                double v = NAN;
                const char *want = plan_metric_name(plan->metrics[j].kind);
                for (int q = 0; q < pr.nmetrics; q++)
                    if (strcmp(pr.metric[q].name, want) == 0)
                        v = pr.metric[q].value;
                record(run, j, v);
            }
            ptm_predict_release(&pr);
            ptm_data_diags_release(&dg);
        }
    }
    for (uint32_t p = 0; p < plan->nparams; p++)
        ptm_free(tables[p].val);
    ptm_free(tables);
    return rc;
}

void rt_metrics_print(const struct ptm_run *run, FILE *f, bool json)
{
    const struct ptm_plan *plan = run->plan;
    for (uint32_t k = 0; k < plan->nmetrics; k++) {
        double v = run->mvals[PROG_METRIC_OF * k + PROG_METRIC_VALUE];
        if (json && isfinite(v))
            fprintf(f, "%s\"%s\": %.17g", k ? ", " : "", plan->metrics[k].name, v);
        else if (json) /* JSON has no NaN: an AUC of one class, say */
            fprintf(f, "%s\"%s\": null", k ? ", " : "", plan->metrics[k].name);
        else
            fprintf(f, " %s %.6g", plan->metrics[k].name, v);
    }
}
