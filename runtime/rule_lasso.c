/*
 * rule_lasso.c - the built-in Lasso rule (update builtin lasso_cd) and
 * objective (objective builtin lasso_objective) behind the engine's
 * interfaces, over the kernel of kernel_lasso.h.
 *
 * The rule's variables are the coefficients (the elements of beta), so a
 * block of several coefficients is several columns of the same round.
 * Each worker keeps the residual r = y - X beta on its rows: in the
 * parameter named by the option r (sharded like X) when the job declares
 * one, else in a buffer of its own; it is computed from beta's initial
 * values at set-up, whatever r's own initializer says, because the kernel
 * is exact only when r is the residual.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "engine_impl.h"
#include "kernel_lasso.h"
#include "ptm.h"

struct lasso_opts {
    int32_t x, y, beta, r; /* r: -1 when absent */
    double lambda;
};

struct lasso_worker {
    double *sq; /* the shard's part of every ||x_j||^2 */
    double *r;  /* the residual on the shard's rows */
    bool own_r;
};

/* The options of hook h (lasso_cd or lasso_objective), checked against
 * the run. */
static int read_opts(const struct ptm_run *run, const struct plan_hook *h, const char *who,
                     struct lasso_opts *o, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *ox = rt_option(h, "X"), *oy = rt_option(h, "y"),
                             *ob = rt_option(h, "beta"), *orr = rt_option(h, "r"),
                             *ol = rt_option(h, "lambda");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ob ||
        ob->kind != PLAN_VALUE_PARAM || !ol || ol->kind != PLAN_VALUE_NUM ||
        (orr && orr->kind != PLAN_VALUE_PARAM) || ox->ref < 0 ||
        (uint32_t)ox->ref >= plan->ndata || oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata ||
        ob->ref < 0 || (uint32_t)ob->ref >= plan->nparams ||
        (orr && (orr->ref < 0 || (uint32_t)orr->ref >= plan->nparams))) {
        snprintf(err, errlen, "%s: options X, y, beta and lambda are missing or of the wrong kind",
                 who);
        return PTM_EINVAL;
    }
    o->x = ox->ref;
    o->y = oy->ref;
    o->beta = ob->ref;
    o->r = orr ? orr->ref : -1;
    o->lambda = ol->num;
    const struct plan_data *dx = &plan->data[o->x], *dy = &plan->data[o->y];
    const struct ptm_dataset *X = run->data[o->x];
    if (dx->format == PLAN_FORMAT_LABELS || !X || !X->sparse) {
        snprintf(err, errlen, "%s: data '%s' must be a sparse matrix (dense X is not supported yet)",
                 who, dx->name);
        return PTM_EINVAL;
    }
    if (dy->labels_of != o->x || !X->has_labels) {
        snprintf(err, errlen, "%s: y must be labels(%s) (a separate label file is not supported yet)",
                 who, dx->name);
        return PTM_EINVAL;
    }
    if (!(o->lambda >= 0) || !isfinite(o->lambda)) {
        snprintf(err, errlen, "%s: lambda must be a finite number >= 0", who);
        return PTM_EINVAL;
    }
    const struct rt_param *b = &run->params[o->beta];
    if (!b->val || b->cols != 1 || b->len != X->csr.ncols) {
        snprintf(err, errlen, "%s: beta ('%s') must be a vector of cols(%s) = %lld values with one copy",
                 who, b->pp->name, dx->name, (long long)X->csr.ncols);
        return PTM_EINVAL;
    }
    if (o->x != run->rowdata && run->rowdata >= 0) {
        snprintf(err, errlen, "%s: X ('%s') must be the data sharded by rows", who, dx->name);
        return PTM_EINVAL;
    }
    if (o->r >= 0) {
        const struct rt_param *r = &run->params[o->r];
        bool sharded_ok = r->shard_like == o->x || (run->rowdata < 0 && r->val);
        if (!sharded_ok || r->cols != 1 || r->len != X->csr.nrows) {
            snprintf(err, errlen,
                     "%s: r ('%s') must be a vector of rows(%s) = %lld values sharded like %s", who,
                     r->pp->name, dx->name, (long long)X->csr.nrows, dx->name);
            return PTM_EINVAL;
        }
    }
    return 0;
}

/* The residual storage of worker w: the parameter's rows, or NULL. */
static double *r_param(struct rt_worker *w, int32_t r)
{
    if (r < 0)
        return NULL;
    struct rt_param *t = &w->run->params[r];
    return t->val ? t->val : w->local[r];
}

static int lasso_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lasso_opts *o = ptm_malloc(sizeof(*o));
    if (!o)
        return PTM_ENOMEM;
    run->rule_state = o;
    int rc = read_opts(run, &run->plan->update, "update lasso_cd", o, err, errlen);
    if (rc == 0 && run->sparam != o->beta) {
        snprintf(err, errlen, "update lasso_cd: the scheduled blocks must be of beta ('%s')",
                 run->params[o->beta].pp->name);
        rc = PTM_EINVAL;
    }
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *w = &run->w[p];
        const struct rt_shard *s = &w->shard[o->x];
        struct lasso_worker *k = rt_zalloc(1, sizeof(*k));
        if (!k) {
            rc = PTM_ENOMEM;
            break;
        }
        w->kernel = k;
        k->sq = rt_zalloc((size_t)s->csc.ncols, sizeof(double));
        k->r = r_param(w, o->r);
        if (!k->r) {
            k->r = rt_zalloc((size_t)s->csc.nrows, sizeof(double));
            k->own_r = true;
        }
        if (!k->sq || !k->r) {
            rc = PTM_ENOMEM;
            break;
        }
        lasso_colsq(&s->csc, k->sq);
        lasso_residual(&s->csc, w->shard[o->y].labels, run->params[o->beta].val, k->r);
    }
    return rc;
}

static void lasso_release(struct ptm_run *run)
{
    for (int p = 0; p < run->P; p++) {
        struct lasso_worker *k = run->w[p].kernel;
        if (!k)
            continue;
        ptm_free(k->sq);
        if (k->own_r)
            ptm_free(k->r);
        ptm_free(k);
        run->w[p].kernel = NULL;
    }
    ptm_free(run->rule_state);
    run->rule_state = NULL;
}

static size_t lasso_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    return LASSO_K * nvars;
}

static int lasso_push_w(struct rt_worker *w, const struct rt_round *rd)
{
    const struct lasso_opts *o = w->run->rule_state;
    const struct lasso_worker *k = w->kernel;
    lasso_push(&w->shard[o->x].csc, k->sq, k->r, w->run->params[o->beta].val, rd->vars, rd->nvars,
               w->z);
    w->zlen = LASSO_K * rd->nvars;
    return 0;
}

static int lasso_pull_run(struct ptm_run *run, const struct rt_round *rd, const double *z,
                          size_t zlen, double *out)
{
    const struct lasso_opts *o = run->rule_state;
    PTM_ASSERT(zlen == LASSO_K * rd->nvars);
    lasso_pull(z, rd->nvars, run->data[o->x]->csr.nrows, o->lambda, out);
    return 0;
}

static int lasso_apply_w(struct rt_worker *w, const struct rt_round *rd)
{
    const struct lasso_opts *o = w->run->rule_state;
    struct lasso_worker *k = w->kernel;
    lasso_apply(&w->shard[o->x].csc, rd->vars, rd->change, rd->nvars, k->r);
    return 0;
}

const struct rt_rule rt_rule_lasso = {
    .name = "lasso_cd",
    .setup = lasso_setup,
    .release = lasso_release,
    .zcap = lasso_zcap,
    .push = lasso_push_w,
    .pull = lasso_pull_run,
    .apply = lasso_apply_w,
};

/* ---- the objective ----------------------------------------------------------- */

/* The objective reads the kernel's residual when the update is lasso_cd
 * over the same X, y and beta (a pass over n values); otherwise it
 * computes y - X beta from the rows of its shard (a pass over the
 * non-zeros). */
struct lasso_obj {
    struct lasso_opts o;
    bool kernel_r;
};

static int obj_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lasso_obj *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->obj_state = s;
    int rc = read_opts(run, &run->plan->objective, "objective lasso_objective", &s->o, err, errlen);
    const struct lasso_opts *u = run->rule == &rt_rule_lasso ? run->rule_state : NULL;
    s->kernel_r = u && u->x == s->o.x && u->y == s->o.y && u->beta == s->o.beta;
    return rc;
}

static int obj_part(struct rt_worker *w, double *out)
{
    const struct lasso_obj *s = w->run->obj_state;
    const struct rt_shard *x = &w->shard[s->o.x];
    int64_t n = w->run->data[s->o.x]->csr.nrows;
    if (s->kernel_r) {
        *out = lasso_loss_part(((const struct lasso_worker *)w->kernel)->r, x->csc.nrows, n);
        return 0;
    }
    const double *beta = w->run->params[s->o.beta].val, *y = w->shard[s->o.y].labels;
    double f = 0;
    for (int64_t i = 0; i < x->csr.nrows; i++) {
        double r = y[i];
        for (int64_t k = x->csr.rowptr[i]; k < x->csr.rowptr[i + 1]; k++)
            r -= x->csr.val[k] * beta[x->csr.colind[k]];
        f += r * r;
    }
    *out = f / (2.0 * (double)n);
    return 0;
}

static double obj_finish(const struct ptm_run *run, double sum)
{
    const struct lasso_obj *s = run->obj_state;
    const struct rt_param *b = &run->params[s->o.beta];
    return sum + lasso_penalty(b->val, b->len, s->o.lambda);
}

static void obj_release(struct ptm_run *run)
{
    ptm_free(run->obj_state);
    run->obj_state = NULL;
}

const struct rt_objective rt_objective_lasso = {
    .setup = obj_setup,
    .part = obj_part,
    .finish = obj_finish,
    .release = obj_release,
};
