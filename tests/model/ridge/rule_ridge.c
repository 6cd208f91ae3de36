/*
 * rule_ridge.c - ridge regression, min 1/(2n) |y - X beta|^2 + lambda/2
 * |beta|^2, by coordinate descent, split by rows: each worker keeps the
 * residual of its rows and pushes, for each variable j of the round,
 * x_j . r and x_j . x_j over them; the coordinator's pull solves each
 * coordinate exactly from the sums, and apply brings every worker's
 * residual up to date. A test of the model interface (tests/model.sh):
 * small, and correct by the optimality condition the test checks.
 */
#include <math.h>
#include <stdio.h>

#include "builtins.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"

struct ridge_opts {
    int32_t x, y, beta;
    double lambda;
};

static int read_opts(const struct ptm_run *run, const struct plan_hook *h, const char *who,
                     struct ridge_opts *o, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *ox = rt_option(h, "X"), *oy = rt_option(h, "y"),
                             *ob = rt_option(h, "beta"), *ol = rt_option(h, "lambda");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ob ||
        ob->kind != PLAN_VALUE_PARAM || !ol || ol->kind != PLAN_VALUE_NUM || ox->ref < 0 ||
        (uint32_t)ox->ref >= plan->ndata || oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata ||
        ob->ref < 0 || (uint32_t)ob->ref >= plan->nparams) {
        snprintf(err, errlen, "%s: options X, y, beta and lambda are missing or of the wrong kind",
                 who);
        return PTM_EINVAL;
    }
    *o = (struct ridge_opts){ox->ref, oy->ref, ob->ref, ol->num};
    const struct ptm_dataset *X = run->data[o->x];
    const struct rt_param *b = &run->params[o->beta];
    if (!X || !X->sparse || !X->has_labels || plan->data[o->y].labels_of != o->x ||
        o->x != run->rowdata) {
        snprintf(err, errlen, "%s: X must be the sparse data sharded by rows and y its labels",
                 who);
        return PTM_EINVAL;
    }
    if (!b->val || b->cols != 1 || b->len != X->csr.ncols) {
        snprintf(err, errlen, "%s: beta must be a vector of cols(X) values with one copy", who);
        return PTM_EINVAL;
    }
    return 0;
}

/* w->kernel: the residual y - X beta of the worker's rows. */
static int ridge_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct ridge_opts *o = rt_zalloc(1, sizeof(*o));
    if (!o)
        return PTM_ENOMEM;
    run->rule_state = o;
    int rc = read_opts(run, &run->plan->update, "update ridge_cd", o, err, errlen);
    if (rc != 0)
        return rc;
    if (run->sparam != o->beta) {
        snprintf(err, errlen, "update ridge_cd: the scheduled blocks must be of beta");
        return PTM_EINVAL;
    }
    const double *beta = run->params[o->beta].val;
    for (int p = 0; p < run->P; p++) {
        struct rt_worker *w = &run->w[p];
        const struct ptm_csr *x = &w->shard[o->x].csr;
        double *r = rt_zalloc((size_t)(x->nrows > 0 ? x->nrows : 1), sizeof(double));
        if (!(w->kernel = r))
            return PTM_ENOMEM;
        for (int64_t i = 0; i < x->nrows; i++) {
            r[i] = w->shard[o->y].labels[i];
            for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
                r[i] -= x->val[e] * beta[x->colind[e]];
        }
    }
    return 0;
}

static void ridge_release(struct ptm_run *run)
{
    for (int p = 0; run->rule_state && p < run->P; p++) {
        ptm_free(run->w[p].kernel);
        run->w[p].kernel = NULL;
    }
    ptm_free(run->rule_state);
    run->rule_state = NULL;
}

static size_t ridge_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    return 2 * nvars;
}

static int ridge_push(struct rt_worker *w, const struct rt_round *rd)
{
    const struct ridge_opts *o = w->run->rule_state;
    const struct ptm_csc *x = &w->shard[o->x].csc;
    const double *r = w->kernel;
    for (size_t v = 0; v < rd->nvars; v++) {
        int64_t j = rd->vars[v];
        double xr = 0, xx = 0;
        for (int64_t e = x->colptr[j]; e < x->colptr[j + 1]; e++) {
            xr += x->val[e] * r[x->rowind[e]];
            xx += x->val[e] * x->val[e];
        }
        w->z[2 * v] = xr;
        w->z[2 * v + 1] = xx;
    }
    w->zlen = 2 * rd->nvars;
    return 0;
}

/* The exact minimizer along coordinate j: (x_j.r + |x_j|^2 b_j) /
 * (|x_j|^2 + n lambda), from the sums over every worker's rows. */
static int ridge_pull(struct ptm_run *run, const struct rt_round *rd, const double *z,
                      size_t zlen, double *out)
{
    const struct ridge_opts *o = run->rule_state;
    const double *beta = run->params[o->beta].val;
    double nl = (double)run->grows * o->lambda;
    PTM_ASSERT(zlen == 2 * rd->nvars);
    for (size_t v = 0; v < rd->nvars; v++) {
        double b = beta[rd->vars[v]], den = z[2 * v + 1] + nl;
        out[v] = den > 0 ? (z[2 * v] + z[2 * v + 1] * b) / den : 0;
    }
    return 0;
}

static int ridge_apply(struct rt_worker *w, const struct rt_round *rd)
{
    const struct ridge_opts *o = w->run->rule_state;
    const struct ptm_csc *x = &w->shard[o->x].csc;
    double *r = w->kernel;
    for (size_t v = 0; v < rd->nvars; v++)
        for (int64_t e = x->colptr[rd->vars[v]]; e < x->colptr[rd->vars[v] + 1]; e++)
            r[x->rowind[e]] -= x->val[e] * rd->change[v];
    return 0;
}

static const struct rt_rule rule_ops = {
    .name = "ridge_cd",
    .kind = RT_MODEL,
    .setup = ridge_setup,
    .release = ridge_release,
    .zcap = ridge_zcap,
    .push = ridge_push,
    .pull = ridge_pull,
    .apply = ridge_apply,
};

/* ---- the objective, from X and beta (not from the rule's residual) ---- */

static int obj_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct ridge_opts *o = rt_zalloc(1, sizeof(*o));
    if (!(run->obj_state = o))
        return PTM_ENOMEM;
    return read_opts(run, &run->plan->objective, "objective ridge_objective", o, err, errlen);
}

static int obj_part(struct rt_worker *w, double *out)
{
    const struct ridge_opts *o = w->run->obj_state;
    const struct ptm_csr *x = &w->shard[o->x].csr;
    const double *beta = w->run->params[o->beta].val, *y = w->shard[o->y].labels;
    double f = 0;
    for (int64_t i = 0; i < x->nrows; i++) {
        double r = y[i];
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            r -= x->val[e] * beta[x->colind[e]];
        f += r * r;
    }
    *out = f / (2.0 * (double)w->run->grows);
    return 0;
}

static double obj_finish(const struct ptm_run *run, double sum)
{
    const struct ridge_opts *o = run->obj_state;
    const struct rt_param *b = &run->params[o->beta];
    double s = 0;
    for (int64_t j = 0; j < b->len; j++)
        s += b->val[j] * b->val[j];
    return sum + 0.5 * o->lambda * s;
}

static void obj_release(struct ptm_run *run)
{
    ptm_free(run->obj_state);
    run->obj_state = NULL;
}

static const struct rt_objective objective_ops = {
    .setup = obj_setup,
    .part = obj_part,
    .finish = obj_finish,
    .release = obj_release,
};

const struct ptm_model ptm_model_ridge = {
    .name = "ridge",
    .builtins = ptm_builtins_ridge,
    .rules = (const struct ptm_model_rule[]){{"ridge_cd", &rule_ops}, {NULL, NULL}},
    .objectives =
        (const struct ptm_model_objective[]){{"ridge_objective", &objective_ops}, {NULL, NULL}},
};
