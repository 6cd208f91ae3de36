/*
 * rule_lasso.c - the built-in Lasso rule (update builtin lasso_cd) and
 * objective (objective builtin lasso_objective) behind the engine's
 * interfaces, over the kernel of kernel_lasso.h.
 *
 * The rule's variables are the coefficients (the elements of beta), so a
 * block of several coefficients is several columns of the same round.
 * The residual r = y - X beta lives in the parameter named by the option r
 * when the job declares one, else in a buffer of the rule's; it is
 * computed from beta's initial values at set-up, whatever r's own
 * initializer says, because the kernel is exact only when r is the
 * residual. The rule splits rounds by blocks: a worker computes whole
 * columns' sums, so under within = parallel the results are the same bits
 * for any number of workers. Each worker keeps its own copy of r (the
 * first worker's is the parameter) and applies every round's changes to
 * it in the same phase as its next push: no worker writes what another
 * reads, and a round is one hand-off.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "builtins.h"
#include "engine_impl.h"
#include "gen_lasso.h"
#include "kernel_lasso.h"
#include "model.h"
#include "ptm.h"

struct lasso_opts {
    int32_t x, y, beta, r; /* r: -1 when absent */
    double lambda;
};

/* A worker's part of the damping check (kernel_lasso.h): X delta of its
 * share on the rows it touches, and its sums. */
struct lasso_dw {
    double *xd;
    unsigned char *mark;
    int32_t *rows;
    size_t nr;
    double a, b;
};

/* The rule's state: it splits rounds by blocks (engine_impl.h), so the
 * workers share X and the squared column norms; each has its residual. */
struct lasso_state {
    struct lasso_opts o;
    const struct ptm_csc *x; /* all of X */
    double *sq;              /* ||x_j||^2, every column */
    double *r;               /* y - X beta, every row: the first worker's */
    bool own_r;
    bool seq;    /* within = sequential */
    double **rw; /* worker p's own copy of r (rw[0] is r) */
    struct lasso_dw *dw; /* per worker, when rounds are damped */
    /* within = sequential, damped: the round's changes as pushed (each
     * worker's residual already holds its own share's; run->step is the
     * step the engine committed them with) */
    double *pushed;
    size_t npushed;
};

/* The residual worker w reads and writes: its own copy. */
static double *resid(const struct lasso_state *k, const struct rt_worker *w)
{
    return k->rw[w->id];
}

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
        if (!sharded_ok || r->cols != 1 || r->len != run->grows) {
            snprintf(err, errlen,
                     "%s: r ('%s') must be a vector of rows(%s) = %lld values sharded like %s", who,
                     r->pp->name, dx->name, (long long)run->grows, dx->name);
            return PTM_EINVAL;
        }
    }
    return 0;
}

static int lasso_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lasso_state *k = rt_zalloc(1, sizeof(*k));
    if (!k)
        return PTM_ENOMEM;
    run->rule_state = k;
    int rc = read_opts(run, &run->plan->update, "update lasso_cd", &k->o, err, errlen);
    if (rc != 0)
        return rc;
    if (run->sparam != k->o.beta) {
        snprintf(err, errlen, "update lasso_cd: the scheduled blocks must be of beta ('%s')",
                 run->params[k->o.beta].pp->name);
        return PTM_EINVAL;
    }
    k->x = &run->w[0].shard[k->o.x].csc;
    k->sq = rt_zalloc((size_t)k->x->ncols, sizeof(double));
    k->r = k->o.r >= 0 ? run->params[k->o.r].val : NULL;
    if (!k->r) {
        k->r = rt_zalloc((size_t)k->x->nrows, sizeof(double));
        k->own_r = true;
    }
    if (!k->sq || !k->r)
        return PTM_ENOMEM;
    const struct plan_option *ow = rt_option(&run->plan->update, "within");
    k->seq = ow && ow->kind == PLAN_VALUE_STR && strcmp(ow->str, "sequential") == 0;
    if (k->seq && run->nranks > 1) {
        snprintf(err, errlen,
                 "update lasso_cd: within = sequential runs on one rank (%d ranks split a round "
                 "by rows); use within = parallel under mpirun",
                 run->nranks);
        return PTM_EINVAL;
    }
    /* each worker its own r, which only it writes (see lasso_apply_w) */
    run->apply_dealt = k->seq;
    /* rounds whose changes were computed together are damped
     * (lasso_damp): under within = sequential, the workers' shares */
    run->damps = run->nranks == 1 && (!k->seq || run->P > 1);
    run->step = 1;
    if (run->damps) {
        size_t m = (size_t)(k->x->nrows > 0 ? k->x->nrows : 1);
        if (!(k->dw = rt_zalloc((size_t)run->P, sizeof(*k->dw))))
            return PTM_ENOMEM;
        for (int p = 0; p < run->P; p++) {
            struct lasso_dw *d = &k->dw[p];
            d->xd = rt_zalloc(m, sizeof(double));
            d->mark = rt_zalloc(m, 1);
            d->rows = rt_zalloc(m, sizeof(int32_t));
            if (!d->xd || !d->mark || !d->rows)
                return PTM_ENOMEM;
        }
    }
    if (!(k->rw = rt_zalloc((size_t)run->P, sizeof(double *))))
        return PTM_ENOMEM;
    for (int p = 1; p < run->P; p++)
        if (!(k->rw[p] = rt_zalloc((size_t)(k->x->nrows > 0 ? k->x->nrows : 1), sizeof(double))))
            return PTM_ENOMEM;
    lasso_colsq(k->x, k->sq);
    lasso_residual(k->x, run->w[0].shard[k->o.y].labels, run->params[k->o.beta].val, k->r);
    k->rw[0] = k->r;
    for (int p = 1; p < run->P; p++)
        memcpy(k->rw[p], k->r, (size_t)k->x->nrows * sizeof(double));
    return 0;
}

static void lasso_release(struct ptm_run *run)
{
    struct lasso_state *k = run->rule_state;
    if (!k)
        return;
    ptm_free(k->sq);
    if (k->dw)
        for (int p = 0; p < run->P; p++) {
            ptm_free(k->dw[p].xd);
            ptm_free(k->dw[p].mark);
            ptm_free(k->dw[p].rows);
        }
    ptm_free(k->dw);
    ptm_free(k->pushed);
    if (k->rw)
        for (int p = 1; p < run->P; p++)
            ptm_free(k->rw[p]);
    ptm_free(k->rw);
    if (k->own_r)
        ptm_free(k->r);
    ptm_free(k);
    run->rule_state = NULL;
}

static size_t lasso_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    return LASSO_K * nvars;
}

/* The worker's part of the damping check (lasso_damp): X delta of its
 * share, its square and its product with the round's starting residual.
 * rd->change is scratch until the commit, each worker its share's. */
static void damp_part(struct rt_worker *w, const struct rt_round *rd, int64_t v0, size_t nv)
{
    struct ptm_run *run = w->run;
    const struct lasso_state *k = run->rule_state;
    struct lasso_dw *d = &k->dw[w->id];
    lasso_scatter_clear(d->xd, d->mark, d->rows, &d->nr);
    d->a = d->b = 0;
    if (rd->nvars < 2)
        return;
    const double *beta = run->params[k->o.beta].val;
    double *delta = rd->change + v0;
    for (size_t v = 0; v < nv; v++)
        delta[v] = run->newval[v0 + (int64_t)v] - beta[rd->vars[v0 + (int64_t)v]];
    lasso_scatter(k->x, rd->vars + v0, delta, nv, d->xd, d->mark, d->rows, &d->nr);
    lasso_scatter_sums(d->xd, d->rows, d->nr, resid(k, w), k->seq, &d->a, &d->b);
}

/* The worker's share of the round: the sums, then the new values. */
static int lasso_push_w(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    const struct lasso_state *k = run->rule_state;
    int64_t v0 = rd->off[rd->part[w->id]], v1 = rd->off[rd->part[w->id + 1]];
    size_t nv = (size_t)(v1 - v0);
    const double *beta = run->params[k->o.beta].val;
    if (k->seq) { /* the changes go to the worker's r as they are made */
        lasso_push_seq(k->x, k->sq, resid(k, w), beta, rd->vars + v0, nv, run->grows,
                       k->o.lambda, run->newval + v0);
    } else {
        /* with other ranks the sums are this rank's part: rank 0 pulls them */
        double *z = run->nranks > 1 ? run->zsum + LASSO_K * v0 : w->z;
        lasso_push(k->x, k->sq, resid(k, w), beta, rd->vars + v0, nv, z);
        if (run->nranks == 1)
            lasso_pull(z, nv, run->grows, k->o.lambda, run->newval + v0);
    }
    if (run->damps)
        damp_part(w, rd, v0, nv);
    return 0;
}

/* With other ranks: rank 0 on the sums over the ranks. */
static int lasso_pull_run(struct ptm_run *run, const struct rt_round *rd, const double *z,
                          size_t zlen, double *out)
{
    const struct lasso_state *k = run->rule_state;
    PTM_ASSERT(zlen == LASSO_K * rd->nvars);
    lasso_pull(z, rd->nvars, run->grows, k->o.lambda, out);
    return 0;
}

/* Every worker applies the round to its own copy of r, all rows; under
 * parallel all of it, in the policy's order, so the copies stay the same
 * bits whatever the number of workers, and under sequential the others'
 * shares (push applied the worker's own). */
static int lasso_apply_w(struct rt_worker *w, const struct rt_round *rd)
{
    const struct lasso_state *k = w->run->rule_state;
    double *r = resid(k, w);
    if (!k->seq) {
        lasso_apply(k->x, rd->vars, rd->change, rd->nvars, r);
        return 0;
    }
    int64_t v0 = rd->off[rd->part[w->id]], v1 = rd->off[rd->part[w->id + 1]];
    lasso_apply(k->x, rd->vars, rd->change, (size_t)v0, r);
    lasso_apply(k->x, rd->vars + v1, rd->change + v1, rd->nvars - (size_t)v1, r);
    if (w->run->step < 1) /* the own share went in as pushed: take back the rest */
        for (int64_t v = v0; v < v1; v++) {
            double fix = rd->change[v] - k->pushed[v];
            lasso_apply(k->x, rd->vars + v, &fix, 1, r);
        }
    return 0;
}

/* The step of a round: the workers' parts of the check (damp_part)
 * combined, a = sum_p a_p + 2 sum_(p<q) xd_p . xd_q and b = sum_p b_p,
 * summed in worker order. rd->change holds the pushed changes. */
static double lasso_damp(struct ptm_run *run, const struct rt_round *rd, double *rise)
{
    struct lasso_state *k = run->rule_state;
    const double *beta = run->params[k->o.beta].val;
    *rise = 0;
    if (rd->nvars < 2)
        return 1; /* one exact coordinate step never rises */
    double a = 0, b = 0, cross = 0;
    for (int p = 0; p < run->P; p++) {
        const struct lasso_dw *d = &k->dw[p];
        a += d->a;
        b += d->b;
        for (int q = p + 1; q < run->P; q++)
            cross += lasso_scatter_dot(d->xd, d->rows, d->nr, k->dw[q].xd);
    }
    a += 2 * cross;
    if (k->seq) {
        if (rd->nvars > k->npushed) {
            double *p = ptm_realloc(k->pushed, rd->nvars * sizeof(double));
            if (!p)
                return 1; /* cannot remember the pushes: commit as pushed */
            k->pushed = p;
            k->npushed = rd->nvars;
        }
        memcpy(k->pushed, rd->change, rd->nvars * sizeof(double));
    }
    return lasso_step(a, b, beta, rd->vars, rd->change, rd->nvars, run->grows, k->o.lambda, rise);
}

static const struct rt_rule rule_ops = {
    .name = "lasso_cd",
    .kind = RT_MODEL,
    .split_blocks = true,
    .setup = lasso_setup,
    .release = lasso_release,
    .zcap = lasso_zcap,
    .push = lasso_push_w,
    .pull = lasso_pull_run,
    .apply = lasso_apply_w,
    .damp = lasso_damp,
};

static bool columns_only(const struct ptm_plan *plan)
{
    const struct plan_hook *u = &plan->update, *o = &plan->objective;
    if (!u->present || u->lua || strcmp(u->builtin, "lasso_cd") != 0)
        return false;
    if (!o->present)
        return true;
    if (o->lua || strcmp(o->builtin, "lasso_objective") != 0)
        return false;
    static const char *const keys[] = {"X", "y", "beta"};
    for (size_t i = 0; i < PTM_ARRAY_LEN(keys); i++) {
        const struct plan_option *a = rt_option(u, keys[i]), *b = rt_option(o, keys[i]);
        if (!a || !b || a->kind != b->kind || a->ref != b->ref)
            return false;
    }
    return true;
}

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
    const struct lasso_state *k = run->rule == &rule_ops ? run->rule_state : NULL;
    s->kernel_r = k && k->o.x == s->o.x && k->o.y == s->o.y && k->o.beta == s->o.beta;
    return rc;
}

/* With one rank and a rule that splits by blocks, each worker adds the
 * penalty of its share of beta (of P nearly equal runs) to its part:
 * beta has a coefficient a column, far more than rows(X) may have. */
static bool penalty_split(const struct ptm_run *run)
{
    return run->split && run->nranks == 1;
}

static double penalty_part(const struct rt_worker *w)
{
    const struct ptm_run *run = w->run;
    if (!penalty_split(run))
        return 0;
    const struct lasso_obj *s = run->obj_state;
    const struct rt_param *b = &run->params[s->o.beta];
    int64_t c0 = b->len * w->id / run->P, c1 = b->len * (w->id + 1) / run->P;
    return lasso_penalty(b->val + c0, c1 - c0, s->o.lambda);
}

/* The worker's rows: its shard, or under a rule that splits by blocks
 * its rows lo .. hi-1 of all of X. */
static int obj_part(struct rt_worker *w, double *out)
{
    const struct ptm_run *run = w->run;
    const struct lasso_obj *s = run->obj_state;
    const struct rt_shard *x = &w->shard[s->o.x];
    int64_t n = run->grows;
    int64_t lo = run->split ? w->lo : 0, hi = run->split ? w->hi : x->csr.nrows;
    if (s->kernel_r) {
        const struct lasso_state *k = run->rule_state;
        *out = lasso_loss_part(resid(k, w) + lo, hi - lo, n) + penalty_part(w);
        return 0;
    }
    const double *beta = run->params[s->o.beta].val, *y = w->shard[s->o.y].labels;
    double f = 0;
    for (int64_t i = lo; i < hi; i++) {
        double r = y[i];
        for (int64_t e = x->csr.rowptr[i]; e < x->csr.rowptr[i + 1]; e++)
            r -= x->csr.val[e] * beta[x->csr.colind[e]];
        f += r * r;
    }
    *out = f / (2.0 * (double)n) + penalty_part(w);
    return 0;
}

static double obj_finish(const struct ptm_run *run, double sum)
{
    const struct lasso_obj *s = run->obj_state;
    const struct rt_param *b = &run->params[s->o.beta];
    return penalty_split(run) ? sum : sum + lasso_penalty(b->val, b->len, s->o.lambda);
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

/* ---- the model ------------------------------------------------------------ */

const struct ptm_model ptm_model_lasso = {
    .name = "lasso",
    .gen = &ptm_gen_lasso_cmd,
    .builtins = ptm_builtins_lasso,
    .rules = (const struct ptm_model_rule[]){{"lasso_cd", &rule_ops}, {NULL, NULL}},
    .objectives =
        (const struct ptm_model_objective[]){{"lasso_objective", &objective_ops}, {NULL, NULL}},
    .columns_only = columns_only,
};
