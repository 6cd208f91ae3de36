/*
 * rule_logreg.c - logistic regression by data-parallel minibatch SGD
 * (update builtin logreg_sgd) under the weights' consistency, and the
 * logloss objective, behind the engine's interfaces, over the kernel of
 * kernel_logreg.h and the parameter store (pstore.h).
 *
 * The weights w are one table of the store (one row of cols(X) values)
 * with the parameter's consistency: SSP with its staleness, or async.
 * Every clock, a worker reads w as the store lets it see them, takes the
 * step of its next `minibatch` rows (wrapping at the end of its shard) and
 * adds the step to w as increments; pstore_clock() then publishes them and
 * holds the worker back while it would be more than s clocks ahead of the
 * slowest. A phase of the engine is a run of clocks on every worker, with
 * no barrier between clocks: SSP does the waiting. Between phases the
 * engine copies the store's master copy into the parameter table, which
 * is what the objective and the outputs read.
 *
 * Under method = svrg a phase also ends at every sweep's start, where
 * every worker computes its shard's part of the anchor at the parameter
 * table (its rows' margins and loss gradient, lr_anchor) and the
 * coordinator sums the parts into the full gradient mu (lr_anchored); the
 * sweep's clocks then take variance-reduced steps from it, a dense row of
 * increments each (kernel_logreg.h, "variance reduction").
 *
 * With the option intercept (a parameter b of one value) the store's row
 * has one more value, b after the d weights: b is a shared parameter like
 * w, read with w under the same consistency and moved by the same
 * increments (its plain gradient step, kernel_logreg.h); the parameter
 * tables w and b are the row's two parts. b is the weight of a column of
 * ones, which every row holds: its curvature (a quarter of its mean
 * square, 1) is far above a sparse column's, and a rate stable for the
 * weights would make b swing, the more so with P workers stepping from
 * stale reads. So b's steps are scaled by bscale, the largest mean square
 * of X's columns (|x_j|^2 / n): b is then no stiffer than the stiffest
 * weight. The scale changes the path, not the minimizer.
 *
 * Across ranks, each rank has its store and its workers; after every
 * phase the ranks sum what their stores added since the last exchange, so
 * every rank's master copy is the same. A phase is then at most s + 1
 * clocks (1 for async), which keeps the bound: a worker at clock c has
 * every other rank's updates of the clocks before the phase it is in,
 * which began at c - s or later.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "builtins.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "gen_logreg.h"
#include "kernel_logreg.h"
#include "model.h"
#include "predict_logreg.h"
#include "pstore.h"
#include "ptm.h"
#include "rule_logreg_cd.h"
#include "tron.h"

struct logreg_state {
    int32_t x, y, w, b; /* b: the intercept, or -1 */
    double rate, decay, l2, l1;
    int64_t n, d, minibatch;
    int64_t cols;  /* of the store's row: d, and 1 more with an intercept */
    double *wb;    /* with an intercept: w then b, as the tables hold them */
    double bscale; /* the intercept's steps are scaled by it (see the top) */
    double *scale; /* n / c_j: the penalty's weight per column */
    struct pstore *ps;
    double *base;  /* across ranks: the master copy after the last exchange */
    bool svrg;     /* method = svrg */
    double *mu;     /* svrg: the anchor's full loss gradient (d) */
    double *margin; /* svrg: x_i . w~ for the rank's rows */
    /* method = tron (TRON below) */
    bool tron;
    struct tron t;
    double *D[2];   /* the rank's rows: D_i at the point taken (D[cur]), at the candidate */
    int cur;
    /* the loss summed over all rows at the last candidate, and at the point
     * taken (known: since set-up), which the objective logloss reads
     * rather than making a pass of its own */
    double loss_cand, loss_at;
    bool loss_known;
    double *floor;  /* cols: l2 for the weights, 0 for the intercept */
    double *sum;    /* 2 cols + 1: the workers' sums, summed */
    const double *pt; /* the point (TRON_FGD) or vector (TRON_HV) of the pass */
    char *err;      /* where a pass's failure is told, during batch */
    size_t errlen;
};

struct logreg_worker {
    struct logreg_batch b;
    int32_t *idx; /* cols */
    double *inc;  /* cols */
    int64_t next; /* the shard row the next minibatch starts at */
    double *g;    /* svrg: the anchor's loss gradient over the shard (cols) */
    double *z;    /* tron: its shard's sums of a pass (2 cols + 1: gradient and diagonal
                     side by side, then the loss) */
    int64_t own_lo, own_hi; /* svrg: the columns it zeroes (logreg_owned) */
};

/* X, y, w and the intercept b (-1: none) of hook h, checked. */
static int xyw(const struct ptm_run *run, const struct plan_hook *h, const char *who, int32_t *x,
               int32_t *y, int32_t *w, int32_t *b, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *ox = rt_option(h, "X"), *oy = rt_option(h, "y"),
                             *ow = rt_option(h, "w"), *oi = rt_option(h, "intercept");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ow ||
        ow->kind != PLAN_VALUE_PARAM || ox->ref < 0 || (uint32_t)ox->ref >= plan->ndata ||
        oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata || ow->ref < 0 ||
        (uint32_t)ow->ref >= plan->nparams ||
        (oi &&
         (oi->kind != PLAN_VALUE_PARAM || oi->ref < 0 || (uint32_t)oi->ref >= plan->nparams))) {
        snprintf(err, errlen, "%s: options X, y and w are missing or of the wrong kind", who);
        return PTM_EINVAL;
    }
    *x = ox->ref;
    *y = oy->ref;
    *w = ow->ref;
    *b = oi ? oi->ref : -1;
    if (*b >= 0) {
        const struct rt_param *ip = &run->params[*b];
        if (!ip->val || ip->len != 1 || *b == *w) {
            snprintf(err, errlen,
                     "%s: the intercept ('%s') must be a vector of one value with one copy", who,
                     ip->pp->name);
            return PTM_EINVAL;
        }
    }
    const struct ptm_dataset *X = run->data[*x];
    if (!X || !X->sparse || !X->has_labels || plan->data[*y].labels_of != *x ||
        (*x != run->rowdata && run->rowdata >= 0)) {
        snprintf(err, errlen, "%s: X ('%s') must be a sparse matrix with labels, sharded by rows, "
                 "and y its labels", who, plan->data[*x].name);
        return PTM_EINVAL;
    }
    const struct rt_param *t = &run->params[*w];
    if (!t->val || t->cols != 1 || t->len != X->csr.ncols) {
        snprintf(err, errlen, "%s: w ('%s') must be a vector of cols(%s) = %lld values", who,
                 t->pp->name, plan->data[*x].name, (long long)X->csr.ncols);
        return PTM_EINVAL;
    }
    return 0;
}

/* bscale: the largest |x_j|^2 / n over the columns of X (all ranks'
 * rows); 1 when X is empty. */
static int intercept_scale(const struct ptm_run *run, struct logreg_state *s)
{
    const struct ptm_csr *X = &run->data[s->x]->csr;
    double *sq = rt_zalloc((size_t)s->d, sizeof(double)), most = 0;
    if (!sq)
        return PTM_ENOMEM;
    for (int p = 0; p < run->P; p++)
        for (int64_t e = X->rowptr[run->w[p].lo]; e < X->rowptr[run->w[p].hi]; e++)
            sq[X->colind[e]] += X->val[e] * X->val[e];
    ptm_comm_sum_all(sq, (size_t)s->d);
    for (int64_t j = 0; j < s->d; j++)
        most = fmax(most, sq[j] / (double)s->n);
    ptm_free(sq);
    s->bscale = most > 0 ? most : 1;
    return 0;
}

static int tron_setup(struct ptm_run *run, struct logreg_state *s, char *err, size_t errlen);

static int lr_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *u = &run->plan->update;
    struct logreg_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->rule_state = s;
    int rc = xyw(run, u, "update logreg_sgd", &s->x, &s->y, &s->w, &s->b, err, errlen);
    if (rc != 0)
        return rc;
    s->rate = rt_option_num(u, "rate", 0.1);
    s->decay = rt_option_num(u, "decay", 1);
    s->l2 = rt_option_num(u, "l2", 0);
    s->l1 = rt_option_num(u, "l1", 0);
    const struct plan_option *om = rt_option(u, "method");
    s->svrg = om && om->kind == PLAN_VALUE_STR && strcmp(om->str, "svrg") == 0;
    s->tron = om && om->kind == PLAN_VALUE_STR && strcmp(om->str, "tron") == 0;
    const struct ptm_dataset *X = run->data[s->x];
    s->n = run->grows; /* all ranks' rows */
    s->d = X->csr.ncols;
    s->cols = s->d + (s->b >= 0);
    s->minibatch = run->plan->schedule.minibatch > 0 ? run->plan->schedule.minibatch : 1000;
    if (s->tron)
        return tron_setup(run, s, err, errlen);
    const struct rt_param *t = &run->params[s->w];
    struct pstore_table_spec spec = {
        .nrows = 1,
        .ncols = s->cols,
        .async = t->pp->cons == PLAN_CONS_ASYNC,
        .staleness = t->pp->staleness,
    };
    if (s->b >= 0) {
        if (!(s->wb = rt_zalloc((size_t)s->cols, sizeof(double))))
            return PTM_ENOMEM;
        memcpy(s->wb, t->val, (size_t)s->d * sizeof(double));
        s->wb[s->d] = run->params[s->b].val[0];
    }
    int id;
    if ((rc = pstore_new(&s->ps, run->P)) != 0 || (rc = pstore_add_table(s->ps, &spec, &id)) != 0 ||
        (rc = pstore_write_row(s->ps, id, 0, s->wb ? s->wb : t->val)) != 0)
        return rc;
    int64_t *cnt = rt_zalloc((size_t)s->d, sizeof(int64_t));
    s->scale = rt_zalloc((size_t)s->d, sizeof(double));
    if (!cnt || !s->scale) {
        ptm_free(cnt);
        return PTM_ENOMEM;
    }
    if (s->b >= 0 && (rc = intercept_scale(run, s)) != 0) {
        ptm_free(cnt);
        return rc;
    }
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *wk = &run->w[p];
        struct logreg_worker *k = rt_zalloc(1, sizeof(*k));
        if (!k) {
            rc = PTM_ENOMEM;
            break;
        }
        wk->kernel = k;
        k->next = wk->lo;
        k->idx = rt_zalloc((size_t)s->cols, sizeof(int32_t));
        k->inc = rt_zalloc((size_t)s->cols, sizeof(double));
        if (!k->idx || !k->inc || logreg_batch_init(&k->b, s->d) != 0 ||
            (s->svrg && !(k->g = rt_zalloc((size_t)s->cols, sizeof(double)))))
            rc = PTM_ENOMEM;
        logreg_col_counts_part(&X->csr, wk->lo, wk->hi, cnt);
    }
    if (rc == 0) {
        ptm_comm_sum_all_i64v(cnt, (size_t)s->d); /* other ranks' rows too */
        logreg_reg_scale(cnt, s->d, s->n, s->scale);
    }
    ptm_free(cnt);
    if (rc == 0 && s->svrg) {
        run->anchor_every = 1;
        int64_t all = ptm_comm_sum_i64(run->P), first = ptm_comm_prefix_i64(run->P);
        for (int p = 0; p < run->P; p++) {
            struct logreg_worker *k = run->w[p].kernel;
            logreg_owned(s->d, first + p, all, &k->own_lo, &k->own_hi);
        }
        s->mu = rt_zalloc((size_t)s->cols, sizeof(double));
        s->margin = rt_zalloc((size_t)X->csr.nrows, sizeof(double));
        if (!s->mu || !s->margin)
            rc = PTM_ENOMEM;
    }
    /* a shard pass of the largest shard (of all ranks) is a sweep */
    int64_t most = 1;
    for (int p = 0; p < run->P; p++)
        if (run->w[p].hi - run->w[p].lo > most)
            most = run->w[p].hi - run->w[p].lo;
    run->clocks_per_sweep = (ptm_comm_max_i64(most) + s->minibatch - 1) / s->minibatch;
    if (rc == 0 && run->nranks > 1) {
        run->clock_period = spec.async ? 1 : (int64_t)spec.staleness + 1;
        s->base = rt_zalloc((size_t)s->cols, sizeof(double));
        if (!s->base)
            rc = PTM_ENOMEM;
        else
            memcpy(s->base, s->wb ? s->wb : t->val, (size_t)s->cols * sizeof(double));
    }
    return rc;
}

static void lr_release(struct ptm_run *run)
{
    for (int p = 0; p < run->P; p++) {
        struct logreg_worker *k = run->w[p].kernel;
        if (!k)
            continue;
        logreg_batch_release(&k->b);
        ptm_free(k->idx);
        ptm_free(k->inc);
        ptm_free(k->g);
        ptm_free(k->z);
        ptm_free(k);
        run->w[p].kernel = NULL;
    }
    struct logreg_state *s = run->rule_state;
    if (s) {
        pstore_free(s->ps);
        ptm_free(s->scale);
        ptm_free(s->base);
        ptm_free(s->mu);
        ptm_free(s->margin);
        ptm_free(s->wb);
        tron_free(&s->t);
        ptm_free(s->D[0]);
        ptm_free(s->D[1]);
        ptm_free(s->floor);
        ptm_free(s->sum);
        ptm_free(s);
        run->rule_state = NULL;
    }
}

static size_t lr_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    (void)nvars;
    return 0;
}

/* A failure of w stops the others too: they may be waiting in
 * pstore_clock() for w to catch up. */
static int fail(struct rt_worker *w, const struct logreg_state *s, int rc)
{
    rt_fail(w, rc, "the parameter store failed: %s", ptm_strerror(rc));
    pstore_abort(s->ps, rc);
    return rc;
}

/* run->work.clocks clocks of worker w. */
static int lr_push(struct rt_worker *w, const struct rt_round *rd)
{
    (void)rd;
    struct ptm_run *run = w->run;
    const struct logreg_state *s = run->rule_state;
    struct logreg_worker *k = w->kernel;
    struct pstore_worker *pw = pstore_worker(s->ps, w->id);
    const struct ptm_csr *X = &run->data[s->x]->csr;
    const double *y = run->data[s->x]->labels.val;
    for (int64_t c = 0; c < run->work.clocks; c++) {
        const double *wv;
        int rc = pstore_row_dense(pw, 0, 0, &wv);
        if (rc != 0)
            return fail(w, s, rc);
        if (w->hi > w->lo) {
            const double *bias = s->b >= 0 ? wv + s->d : NULL; /* after the weights */
            int64_t left = s->minibatch;
            while (left > 0) {
                int64_t end = k->next + left < w->hi ? k->next + left : w->hi;
                if (s->svrg)
                    logreg_batch_add_vr(&k->b, X, y, k->next, end, wv, s->margin, bias);
                else
                    logreg_batch_add(&k->b, X, y, k->next, end, wv, bias);
                left -= end - k->next;
                k->next = end == w->hi ? w->lo : end;
            }
            int64_t clock = pstore_worker_clock(pw);
            double eta = logreg_step(s->rate, s->decay, clock / run->clocks_per_sweep);
            if (s->svrg) {
                logreg_vr_step(&k->b, wv, s->mu, eta, s->l2, s->l1, k->own_lo, k->own_hi, k->inc,
                               bias ? k->inc + s->d : NULL);
                if (bias)
                    k->inc[s->d] *= s->bscale;
                rc = pstore_inc_dense(pw, 0, 0, k->inc);
            } else {
                double binc = 0;
                int64_t n = logreg_batch_step(&k->b, wv, s->scale, eta, s->l2, s->l1, k->idx,
                                              k->inc, bias ? &binc : NULL);
                if (binc != 0) { /* the intercept, after the weights */
                    k->idx[n] = (int32_t)s->d;
                    k->inc[n++] = binc * s->bscale;
                }
                rc = pstore_inc_row(pw, 0, 0, k->idx, k->inc, n);
            }
            if (rc != 0)
                return fail(w, s, rc);
        }
        rt_end_clock(w);
        while ((rc = pstore_clock(pw)) == PTM_ENOMEM)
            ; /* nothing was lost: try again */
        if (rc != 0) {
            rt_fail(w, rc, "stopped: another worker failed");
            return rc;
        }
    }
    return 0;
}

/* svrg: worker w's part of the anchor, at the parameter tables (the
 * master copy, made current by lr_sync). */
static int lr_anchor(struct rt_worker *w)
{
    struct ptm_run *run = w->run;
    const struct logreg_state *s = run->rule_state;
    struct logreg_worker *k = w->kernel;
    const struct ptm_dataset *X = run->data[s->x];
    const double *wv = s->wb ? s->wb : run->params[s->w].val;
    memset(k->g, 0, (size_t)s->cols * sizeof(double));
    logreg_anchor_part(&X->csr, X->labels.val, w->lo, w->hi, wv, s->margin, k->g,
                       s->wb ? wv + s->d : NULL, s->wb ? k->g + s->d : NULL);
    return 0;
}

/* svrg: mu = the workers' parts summed in worker order, over the ranks,
 * divided by n. */
static int lr_anchored(struct ptm_run *run)
{
    const struct logreg_state *s = run->rule_state;
    double *mu = s->mu;
    memset(mu, 0, (size_t)s->cols * sizeof(double));
    for (int p = 0; p < run->P; p++) {
        const double *g = ((const struct logreg_worker *)run->w[p].kernel)->g;
        for (int64_t j = 0; j < s->cols; j++)
            mu[j] += g[j];
    }
    ptm_comm_sum_all(mu, (size_t)s->cols);
    for (int64_t j = 0; j < s->cols; j++)
        mu[j] /= (double)s->n;
    return 0;
}

/* The parameter tables w and b from the row v of the store. */
static void split_row(struct ptm_run *run, const struct logreg_state *s, const double *v)
{
    if (!s->wb)
        return; /* v is w's table */
    memcpy(run->params[s->w].val, v, (size_t)s->d * sizeof(double));
    run->params[s->b].val[0] = v[s->d];
}

/* After a phase: the store's master copy becomes the parameter tables;
 * across ranks, after the ranks have summed what they added. */
static int lr_sync(struct ptm_run *run)
{
    const struct logreg_state *s = run->rule_state;
    if (s->tron) { /* every rank took the same steps */
        memcpy(run->params[s->w].val, s->t.w, (size_t)s->d * sizeof(double));
        if (s->b >= 0)
            run->params[s->b].val[0] = s->t.w[s->d];
        return 0;
    }
    double *v = s->wb ? s->wb : run->params[s->w].val;
    int rc = pstore_read(s->ps, 0, v);
    if (rc != 0)
        return rc;
    if (!s->base) {
        split_row(run, s, v);
        return 0;
    }
    for (int64_t j = 0; j < s->cols; j++)
        v[j] -= s->base[j];
    ptm_comm_sum_all(v, (size_t)s->cols);
    for (int64_t j = 0; j < s->cols; j++)
        s->base[j] = v[j] += s->base[j];
    split_row(run, s, v);
    return pstore_write_row(s->ps, 0, 0, v);
}

/* ---- TRON (method = tron) ---------------------------------------------------
 *
 * Trust-region Newton (tron.h, kernel_logreg.h "second order") over the
 * weights and the intercept (cols values), kept in s->t rather than in a
 * parameter store: it takes no stale reads, every step is computed from
 * the whole data set. A round is one iteration (rt_rule.batch): its passes
 * are phases (rt_map) in which every worker sums its shard into its own
 * array; the coordinator of every rank sums the arrays in worker order and
 * then over the ranks, so every rank holds the same sums and takes the
 * same steps, and the results depend on the number of workers only by the
 * order of the sums. D_i, kept for the rank's rows, is written by the
 * pass at a candidate into the array not in use and becomes current when
 * the candidate is taken. So does the candidate's loss: the objective
 * logloss of the same X, w and intercept reads it (ll_known) and makes no
 * pass of its own. */

enum { TRON_FGD, TRON_HV };

static int lr_map(struct rt_worker *w, int op)
{
    const struct ptm_run *run = w->run;
    const struct logreg_state *s = run->rule_state;
    struct logreg_worker *k = w->kernel;
    const struct ptm_dataset *X = run->data[s->x];
    int64_t c = s->cols, d = s->d;
    bool ib = s->b >= 0;
    if (op == TRON_FGD) {
        memset(k->z, 0, (size_t)(2 * c + 1) * sizeof(double));
        k->z[2 * c] = logreg_newton_part(&X->csr, X->labels.val, w->lo, w->hi, s->pt,
                                         ib ? s->pt + d : NULL, s->D[!s->cur], k->z,
                                         ib ? k->z + 2 * d : NULL);
    } else {
        memset(k->z, 0, (size_t)c * sizeof(double));
        logreg_hv_part(&X->csr, w->lo, w->hi, s->D[s->cur], s->pt, ib ? s->pt + d : NULL, k->z,
                       ib ? k->z + d : NULL);
    }
    return 0;
}

/* A pass of op at v; s->sum = the sums of its first len values over the
 * workers (in order) and the ranks. */
static int tron_pass(struct ptm_run *run, int op, const double *v, int64_t len)
{
    struct logreg_state *s = run->rule_state;
    s->pt = v;
    int rc = rt_map(run, op, s->err, s->errlen);
    if (rc != 0)
        return rc;
    memset(s->sum, 0, (size_t)len * sizeof(double));
    for (int p = 0; p < run->P; p++) {
        const double *z = ((const struct logreg_worker *)run->w[p].kernel)->z;
        for (int64_t j = 0; j < len; j++)
            s->sum[j] += z[j];
    }
    ptm_comm_sum_all(s->sum, (size_t)len);
    return 0;
}

static int tron_fgd(void *ud, const double *w, double *f, double *g, double *diag)
{
    struct ptm_run *run = ud;
    struct logreg_state *s = run->rule_state;
    int64_t c = s->cols, d = s->d;
    int rc = tron_pass(run, TRON_FGD, w, 2 * c + 1);
    if (rc != 0)
        return rc;
    double n = (double)s->n, sq = 0;
    for (int64_t j = 0; j < c; j++) {
        double l2 = j < d ? s->l2 : 0;
        g[j] = s->sum[2 * j] / n + l2 * w[j];
        diag[j] = s->sum[2 * j + 1] / n + l2;
    }
    for (int64_t j = 0; j < d; j++)
        sq += w[j] * w[j];
    s->loss_cand = s->sum[2 * c];
    *f = s->loss_cand / n + 0.5 * s->l2 * sq;
    return 0;
}

static int tron_hv(void *ud, const double *v, double *out)
{
    struct ptm_run *run = ud;
    const struct logreg_state *s = run->rule_state;
    int rc = tron_pass(run, TRON_HV, v, s->cols);
    if (rc != 0)
        return rc;
    double n = (double)s->n;
    for (int64_t j = 0; j < s->cols; j++)
        out[j] = s->sum[j] / n + (j < s->d ? s->l2 * v[j] : 0);
    return 0;
}

static void tron_take(void *ud)
{
    struct ptm_run *run = ud;
    struct logreg_state *s = run->rule_state;
    s->cur ^= 1;
    s->loss_at = s->loss_cand;
    s->loss_known = true;
}

static int lr_batch(struct ptm_run *run, char *err, size_t errlen)
{
    struct logreg_state *s = run->rule_state;
    s->err = err;
    s->errlen = errlen;
    return tron_iterate(&s->t);
}

static int tron_setup(struct ptm_run *run, struct logreg_state *s, char *err, size_t errlen)
{
    if (s->l1 > 0) {
        snprintf(err, errlen, "update logreg_sgd: method = tron needs l1 = 0 (an L1 penalty is "
                 "not smooth); use method = sgd or svrg for l1");
        return PTM_EINVAL;
    }
    int64_t c = s->cols, rows = run->data[s->x]->csr.nrows;
    size_t nr = rows > 0 ? (size_t)rows : 1;
    s->D[0] = rt_zalloc(nr, sizeof(double));
    s->D[1] = rt_zalloc(nr, sizeof(double));
    s->floor = rt_zalloc((size_t)c, sizeof(double));
    s->sum = rt_zalloc((size_t)(2 * c + 1), sizeof(double));
    double *w0 = rt_zalloc((size_t)c, sizeof(double));
    int rc = !s->D[0] || !s->D[1] || !s->floor || !s->sum || !w0 ? PTM_ENOMEM : 0;
    for (int p = 0; rc == 0 && p < run->P; p++) {
        struct logreg_worker *k = rt_zalloc(1, sizeof(*k));
        if (!k || !(k->z = rt_zalloc((size_t)(2 * c + 1), sizeof(double)))) {
            ptm_free(k);
            rc = PTM_ENOMEM;
            break;
        }
        run->w[p].kernel = k;
    }
    if (rc == 0) {
        for (int64_t j = 0; j < s->d; j++)
            s->floor[j] = s->l2;
        memcpy(w0, run->params[s->w].val, (size_t)s->d * sizeof(double));
        if (s->b >= 0)
            w0[s->d] = run->params[s->b].val[0];
        struct tron_fun fn = {.ud = run, .n = c, .fgd = tron_fgd, .hv = tron_hv,
                              .take = tron_take, .floor = s->floor};
        rc = tron_init(&s->t, &fn, w0);
    }
    ptm_free(w0);
    run->batch = true;
    run->clocks_per_sweep = 1; /* a round, one iteration, is a sweep */
    return rc;
}

/* ---- checkpoints --------------------------------------------------------------
 *
 * What changes from round to round, by method (the engine keeps the
 * parameter tables w and b):
 *   sgd, svrg: the parameter store (the weights' master copy, the
 *     workers' clocks, which also give the step size, their views and
 *     logs); each worker's place in its shard (next); with an intercept
 *     the row w then b (wb, which the anchor reads); across ranks the
 *     master copy at the last exchange (base). svrg also the anchor: the
 *     full gradient mu and the rank's rows' margins.
 *   tron: the iteration's state (tron_state) and D_i at the point taken
 *     for the rank's rows, which the next Hessian-vector products read.
 * Not saved: what set-up derives from the data and options (scale,
 * bscale, floor, the columns each worker owns), and what is scratch
 * between rounds: the minibatch (empty after every clock's step), the
 * increments, svrg's per-worker anchor gradients (read by the anchored
 * call that follows the anchor at once), TRON's pass sums and D at a
 * candidate (written before they are read). */
static void lr_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct logreg_state *s = run->rule_state;
    int64_t rows = run->data[s->x]->csr.nrows;
    ptm_ck_tag(ck, s->tron   ? "rule logreg_sgd tron"
                   : s->svrg ? "rule logreg_sgd svrg"
                             : "rule logreg_sgd sgd");
    ptm_ck_size(ck, s->cols, "number of logreg_sgd's weights");
    ptm_ck_size(ck, rows, "number of this rank's rows of logreg_sgd's data");
    if (s->tron) {
        tron_state(&s->t, ck);
        uint8_t cur = (uint8_t)s->cur;
        PTM_CK(ck, cur);
        if (ck->load && !ck->err && cur > 1)
            ptm_ck_fail(ck, PTM_EDATA, "logreg_sgd's state in the checkpoint is damaged");
        if (ck->err)
            return;
        s->cur = cur;
        PTM_CK_ARRAY(ck, s->D[s->cur], rows);
        return;
    }
    pstore_state(s->ps, ck);
    for (int p = 0; p < run->P && !ck->err; p++) {
        const struct rt_worker *w = &run->w[p];
        struct logreg_worker *k = w->kernel;
        PTM_ASSERT(k->b.rows == 0 && k->b.ntouched == 0); /* between clocks */
        PTM_CK(ck, k->next);
        if (ck->load && !ck->err && !(k->next >= w->lo && (k->next < w->hi || k->next == w->lo)))
            ptm_ck_fail(ck, PTM_EDATA,
                        "logreg_sgd's place in a worker's rows in the checkpoint "
                        "is not one of its rows");
    }
    if (s->wb)
        PTM_CK_ARRAY(ck, s->wb, s->cols);
    ptm_ck_size(ck, s->base != NULL, "logreg_sgd's exchange between ranks (1)");
    if (s->base)
        PTM_CK_ARRAY(ck, s->base, s->cols);
    if (s->svrg) {
        PTM_CK_ARRAY(ck, s->mu, s->cols);
        PTM_CK_ARRAY(ck, s->margin, rows);
    }
}

static const struct rt_rule rule_ops = {
    .name = "logreg_sgd",
    .kind = RT_CLOCKS,
    .unit = "rows",
    .unit_of = RT_UNIT_ROWS,
    .clocks = true,
    .setup = lr_setup,
    .release = lr_release,
    .zcap = lr_zcap,
    .push = lr_push,
    .sync = lr_sync,
    .anchor = lr_anchor,
    .anchored = lr_anchored,
    .batch = lr_batch,
    .map = lr_map,
    .ranks_clocks = true,
    .state = lr_state,
};

/* ---- logloss ---------------------------------------------------------------- */

/* Under logreg_sgd's method = sgd, a note when the objective has stalled
 * or risen: over the last STALL_EVALS evaluations, spanning at least a
 * sweep, it fell by less than STALL_FALL of its value (or rose). Plain SGD
 * with a decaying step stops short of the minimizer, and one too large
 * rises; the note names the methods that need no step. Said once a run (a
 * resumed run may say it again). */
#define STALL_EVALS 5
#define STALL_FALL 1e-3

struct logloss_state {
    int32_t x, y, w, b; /* b: the intercept, or -1 */
    double l2, l1;
    /* the last STALL_EVALS + 1 evaluations: objective and round, a ring */
    double f[STALL_EVALS + 1];
    int64_t round[STALL_EVALS + 1];
    int64_t nevals;
    bool told;
};

static int ll_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *o = &run->plan->objective;
    struct logloss_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->obj_state = s;
    s->l2 = rt_option_num(o, "l2", 0);
    s->l1 = rt_option_num(o, "l1", 0);
    return xyw(run, o, "objective logloss", &s->x, &s->y, &s->w, &s->b, err, errlen);
}

static int ll_part(struct rt_worker *w, double *out)
{
    const struct ptm_run *run = w->run;
    const struct logloss_state *s = run->obj_state;
    const struct ptm_dataset *X = run->data[s->x];
    *out = logreg_loss_part(&X->csr, X->labels.val, w->lo, w->hi, run->params[s->w].val,
                            s->b >= 0 ? run->params[s->b].val : NULL);
    return 0;
}

/* Under logreg_cd, the loss at the margins it keeps (lcd_known_loss).
 * Under method = tron, the loss at the point taken, which the iteration
 * summed in the same order as the workers' parts would (their rows, in
 * worker order, then over the ranks): when the weights are the ones TRON
 * keeps (the same X, w and intercept) and it has taken a point since
 * set-up. The objective's own penalty is added by ll_finish. */
static bool ll_known(const struct ptm_run *run, double *sum)
{
    const struct logloss_state *o = run->obj_state;
    const struct logreg_state *u = run->rule_state;
    if (run->rule == &logreg_cd_rule) /* logreg_cd's margins */
        return lcd_known_loss(run, o->x, o->y, o->w, o->b, sum);
    if (run->rule != &rule_ops || !u || !u->tron || !u->loss_known || o->x != u->x ||
        o->w != u->w || o->b != u->b)
        return false;
    *sum = u->loss_at;
    return true;
}

/* method = sgd: after the evaluation f, the stall note (STALL_EVALS). */
static void stall_note(const struct ptm_run *run, struct logloss_state *s, double f)
{
    const struct logreg_state *u = run->rule_state;
    if (run->rule != &rule_ops || !u || u->tron || u->svrg || s->told || !isfinite(f))
        return;
    int k = (int)(s->nevals % (STALL_EVALS + 1));
    s->f[k] = f;
    s->round[k] = run->round;
    if (++s->nevals <= STALL_EVALS)
        return;
    int old = (int)(s->nevals % (STALL_EVALS + 1)); /* the oldest kept */
    double f0 = s->f[old];
    int64_t span = run->round - s->round[old], per = run->clocks_per_sweep > 0 ? run->clocks_per_sweep : 1;
    if (span < per || f0 - f >= STALL_FALL * fabs(f0))
        return;
    s->told = true;
    if (!run->opts.log)
        return;
    fprintf(run->opts.log,
            "%sptm: note: update logreg_sgd (method = sgd): the objective %s over the last %d "
            "evaluations (%.10g at sweep %lld, %.10g at sweep %lld): plain SGD %s; %s needs no "
            "step size and goes to the minimizer\n",
            run->opts.log_tty && !run->opts.quiet ? "\r\033[K" : "",
            f > f0 ? "rose" : "fell by less than 0.1%", STALL_EVALS, f0,
            (long long)(s->round[old] / per), f, (long long)(run->round / per),
            f > f0 ? "rises with too large a rate" : "stalls short of the minimizer as its step decays or stays too small",
            u->l1 > 0 ? "update builtin logreg_cd (coordinate descent, for l1)"
                      : "method = tron (the default)");
}

static double ll_finish(const struct ptm_run *run, double sum)
{
    struct logloss_state *s = run->obj_state;
    const struct rt_param *t = &run->params[s->w];
    double f = sum / (double)run->grows + logreg_penalty(t->val, t->len, s->l2, s->l1);
    stall_note(run, s, f);
    return f;
}

static void ll_release(struct ptm_run *run)
{
    ptm_free(run->obj_state);
    run->obj_state = NULL;
}

static const struct rt_objective objective_ops = {
    .better = -1,
    .setup = ll_setup,
    .part = ll_part,
    .finish = ll_finish,
    .known = ll_known,
    .release = ll_release,
};

/* ---- the model ------------------------------------------------------------ */

const struct ptm_model ptm_model_logreg = {
    .name = "logreg",
    .predict = logreg_predict,
    .predict_params = (const char *const[]){"w", "intercept", NULL},
    .gen = &ptm_gen_logreg_cmd,
    .builtins = ptm_builtins_logreg,
    .rules = (const struct ptm_model_rule[]){{"logreg_sgd", &rule_ops},
                                             {"logreg_cd", &logreg_cd_rule},
                                             {NULL, NULL}},
    .objectives =
        (const struct ptm_model_objective[]){{"logloss", &objective_ops}, {NULL, NULL}},
};
