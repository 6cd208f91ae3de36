/*
 * rule_logreg_cd.c - L1 (+ L2) logistic regression by scheduled
 * coordinate descent (update builtin logreg_cd) behind the engine's
 * interfaces, over the step of kernel_logreg_cd.h. It is scheduled as
 * lasso_cd is (dynamic, round_robin, random): the blocks are elements of
 * w, and the rule splits rounds by blocks (every worker sees all rows and
 * takes its share of the round's coefficients).
 *
 * The state is the margin m_i = x_i . w + b of every row (the rule's own
 * array), as lasso_cd keeps the residual. It is computed from w's and b's
 * initial values at set-up and then follows every committed change.
 *
 * DESIGN: how the workers share a round depends on `within` and on P
 * (enum mode):
 *
 * - SEQ1 (within = sequential, one worker): every step on the margins
 *   its predecessors left, so every round lowers F and nothing is damped.
 *   A round whose columns hold more non-zeros than X has rows (columns
 *   that share rows: dense ones, or many) is one step of newGLMNET on its
 *   coordinates (lcd_block_step, kernel_logreg_cd.h): coordinate descent
 *   on the loss's quadratic model, then one line search on F, so its
 *   exps are a touched row's rather than a non-zero's. Any other round is
 *   CDN itself, one coordinate after the other (lcd_step_own): its exps,
 *   a non-zero's of the coordinates that move, are fewer than the
 *   touched rows', and it reads only its columns' rows. (On text-like
 *   data, ptm gen logreg --hard, the rounds over the frequent words took
 *   4 times fewer instructions as newGLMNET steps; on uniform sparse
 *   columns, CDN's rounds ran 1.1 to 1.6 times faster.) The worker keeps
 *   y_i exp(-y_i m_i) for every row, computed afresh once a sweep.
 * - SEQP (within = sequential, P > 1 workers): a round whose columns
 *   hold fewer than split_min non-zeros (2^24 by default, at least X's
 *   rows) runs as under SEQ1 on the first worker alone, the others not
 *   woken (rt_rule.alone; the scheduler deals such a round to it whole,
 *   alone_blocks), so a job of such rounds takes the steps one worker
 *   takes. Split, the rounds of the bench's data ran 5 to 15 times
 *   slower than alone: each share is CDN without the kept exps (an exp a
 *   non-zero), and the shares' changes are gathered over every row and
 *   damped on the coordinator. A larger round is split as under PAR,
 *   but each step reads m + dm, so a worker's share is CDN on its own
 *   view; the kept exps then follow the margins on the rows it touched.
 * - PAR (within = parallel): each worker computes the step of every
 *   coordinate of its share from the margins at the round's start, as if
 *   it were alone, and adds its change times the column into an array of
 *   its own (dm).
 *   Then, after a barrier, worker p sums every worker's dm over its rows
 *   (lo .. hi-1) into xd (X delta of the whole round) and its part of the
 *   loss's change at step 1 over them. The coordinator (damp) adds the
 *   parts and the penalty's change: a round whose combined change would
 *   raise F is damped, halving the step until it does not (those trials
 *   read the touched rows alone, on the coordinator), and moves the
 *   margins by t xd (the first trial is the minimum of the objective's
 *   quadratic model along the change, when that is below 1). The
 *   combined change is a descent direction (a sum of
 *   each coordinate's descent direction at the same point in PAR; in SEQP
 *   the first step of every share is), so a small enough step lowers F.
 *
 * INTERCEPT. With the option intercept (a parameter b of one value), b is
 * one more coordinate, unpenalised, stepped by the coordinator between
 * rounds: at set-up and after each round that completes a sweep (as many
 * updates as blocks), a CDN step over all rows (a column of ones).
 *
 * OBJECTIVE. The objective logloss of the same X, y, w and intercept is
 * the loss at the margins the rule keeps (lcd_known_loss): a pass over
 * the rows (an exp and a log1p a row), not over the non-zeros. Under
 * SEQ1 and SEQP it also computes the kept exps afresh, which the next
 * round would otherwise do.
 *
 * One rank: the margins of every row must be in one process (a step reads
 * every row of its column). Under mpirun the rule refuses to start.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "kernel_logreg_cd.h"
#include "ptm.h"
#include "rule_logreg_cd.h"

/* How often the intercept takes its step: 0 after every round, 1 after the
 * round that completes a sweep. */
#ifndef INTERCEPT_EVERY_SWEEP
#define INTERCEPT_EVERY_SWEEP 0
#endif

enum mode { PAR, SEQ1, SEQP };

/* SEQP: the fewest non-zeros of a split round (option split_min), as
 * lasso_cd's. */
#define SPLIT_MIN_NNZ ((int64_t)1 << 24)

/* A worker's own (PAR, SEQP). */
struct lcd_w {
    double *dm;          /* its share's change of the margins, every row */
    unsigned char *mark; /* dm[i] holds a change */
    int32_t *list;       /* the rows of dm that hold one, nl of them */
    size_t nl;
    int32_t *own;        /* the rows among lo .. hi-1 the round touched, no of them */
    size_t no;
    double sum, mag;     /* over own: the loss's change at step 1, and its magnitude */
    double d1, d2;       /* over own: the loss's first and second derivatives in t at 0 */
};

struct lcd_state {
    int32_t x, y, w, b; /* b: the intercept, or -1 */
    struct lcd_pen pen;
    enum mode mode;
    const struct ptm_csc *csc; /* all of X */
    int64_t nrows;
    double *ys;          /* +1 or -1, every row */
    double *m;           /* the margins, every row */
    double *q;           /* SEQ1, SEQP: y_i exp(-y_i m_i), every row (lcd_step_own) */
    int64_t qups, qdue;  /* SEQ1, SEQP: updates so far; when q is computed afresh (its
                            products drift from exp(-y m) by rounding) */
    struct lcd_block blk; /* SEQ1, SEQP: the block step's scratch */
    int64_t split_min;   /* SEQP: the fewest non-zeros of a split round */
    int64_t col_max;     /* the most non-zeros of a column */
    bool solo;           /* SEQP: the round in flight runs on the first worker alone */
    double *xd;          /* PAR, SEQP: X delta of the round, on the touched rows */
    unsigned char *gmark;/* xd[i] holds a sum */
    double *sv;          /* the probability of the wrong label at the round's start
                            (touched rows); scratch of the intercept's step */
    double **s;          /* each worker's scratch for a column's rows */
    struct lcd_w *wk;    /* P (PAR, SEQP) */
    int64_t ups, due;    /* updates so far; when the intercept's next step is due */
};

/* The options of the update, checked against the run. */
static int read_opts(const struct ptm_run *run, struct lcd_state *k, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_hook *h = &plan->update;
    const struct plan_option *ox = rt_option(h, "X"), *oy = rt_option(h, "y"),
                             *ow = rt_option(h, "w"), *oi = rt_option(h, "intercept");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ow ||
        ow->kind != PLAN_VALUE_PARAM || ox->ref < 0 || (uint32_t)ox->ref >= plan->ndata ||
        oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata || ow->ref < 0 ||
        (uint32_t)ow->ref >= plan->nparams ||
        (oi &&
         (oi->kind != PLAN_VALUE_PARAM || oi->ref < 0 || (uint32_t)oi->ref >= plan->nparams))) {
        snprintf(err, errlen, "update logreg_cd: options X, y and w are missing or of the wrong kind");
        return PTM_EINVAL;
    }
    k->x = ox->ref;
    k->y = oy->ref;
    k->w = ow->ref;
    k->b = oi ? oi->ref : -1;
    k->pen.l1 = rt_option_num(h, "l1", 0);
    k->pen.l2 = rt_option_num(h, "l2", 0);
    if (!(k->pen.l1 >= 0) || !isfinite(k->pen.l1) || !(k->pen.l2 >= 0) || !isfinite(k->pen.l2)) {
        snprintf(err, errlen, "update logreg_cd: l1 and l2 must be finite numbers >= 0");
        return PTM_EINVAL;
    }
    const struct ptm_dataset *X = run->data[k->x];
    if (!X || !X->sparse || !X->has_labels || plan->data[k->y].labels_of != k->x ||
        (k->x != run->rowdata && run->rowdata >= 0)) {
        snprintf(err, errlen, "update logreg_cd: X ('%s') must be a sparse matrix with labels, "
                 "sharded by rows, and y its labels", plan->data[k->x].name);
        return PTM_EINVAL;
    }
    const struct rt_param *t = &run->params[k->w];
    if (!t->val || t->cols != 1 || t->len != X->csr.ncols) {
        snprintf(err, errlen, "update logreg_cd: w ('%s') must be a vector of cols(%s) = %lld "
                 "values with one copy", t->pp->name, plan->data[k->x].name,
                 (long long)X->csr.ncols);
        return PTM_EINVAL;
    }
    if (k->b >= 0) {
        const struct rt_param *ip = &run->params[k->b];
        if (!ip->val || ip->len != 1 || k->b == k->w) {
            snprintf(err, errlen,
                     "update logreg_cd: the intercept ('%s') must be a vector of one value with "
                     "one copy", ip->pp->name);
            return PTM_EINVAL;
        }
    }
    if (run->sparam != k->w) {
        snprintf(err, errlen, "update logreg_cd: the scheduled blocks must be of w ('%s')",
                 t->pp->name);
        return PTM_EINVAL;
    }
    return 0;
}

/* The intercept's step over all rows: b and every margin move by it. */
static void bias_step(struct ptm_run *run, struct lcd_state *k)
{
    if (k->q) { /* from the kept exps, which follow the step */
        run->params[k->b].val[0] += lcd_bias_step_own(k->nrows, k->m, k->q, k->pen.n, k->sv);
        return;
    }
    double c = lcd_bias_step(k->nrows, k->m, k->ys, k->pen.n, k->sv);
    if (c == 0)
        return;
    for (int64_t i = 0; i < k->nrows; i++)
        k->m[i] += c;
    run->params[k->b].val[0] += c;
}

static int lcd_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lcd_state *k = rt_zalloc(1, sizeof(*k));
    if (!k)
        return PTM_ENOMEM;
    run->rule_state = k;
    int rc = read_opts(run, k, err, errlen);
    if (rc != 0)
        return rc;
    if (run->nranks > 1) {
        snprintf(err, errlen, "update logreg_cd: runs in one process (a coordinate's step reads "
                 "every row of its column, and each rank holds its own rows): run it without "
                 "mpirun, on threads (--workers), or use logreg_sgd across ranks");
        return PTM_EINVAL;
    }
    const struct ptm_dataset *X = run->data[k->x];
    k->csc = &run->w[0].shard[k->x].csc;
    k->nrows = X->csr.nrows;
    k->pen.n = run->grows > 0 ? run->grows : 1;
    bool seq = rt_within_sequential(&run->plan->update);
    k->mode = !seq ? PAR : run->P == 1 ? SEQ1 : SEQP;
    k->split_min = (int64_t)rt_option_num(&run->plan->update, "split_min", SPLIT_MIN_NNZ);
    run->apply_dealt = true; /* apply does nothing */
    run->damps = k->mode != SEQ1 || k->b >= 0;
    run->step = 1;
    size_t m = (size_t)(k->nrows > 0 ? k->nrows : 1), P = (size_t)run->P;
    int64_t most = 1;
    for (int64_t j = 0; j < k->csc->ncols; j++)
        if (k->csc->colptr[j + 1] - k->csc->colptr[j] > most)
            most = k->csc->colptr[j + 1] - k->csc->colptr[j];
    k->col_max = most;
    k->ys = rt_zalloc(m, sizeof(double));
    k->m = rt_zalloc(m, sizeof(double));
    k->sv = rt_zalloc(m, sizeof(double));
    k->s = rt_zalloc(P, sizeof(double *));
    if (!k->ys || !k->m || !k->sv || !k->s)
        return PTM_ENOMEM;
    for (size_t p = 0; p < P; p++)
        if (!(k->s[p] = rt_zalloc(2 * (size_t)most, sizeof(double))))
            return PTM_ENOMEM;
    if (k->mode != PAR && (!(k->q = rt_zalloc(m, sizeof(double))) ||
                            lcd_block_init(&k->blk, k->nrows, k->csc->ncols) != 0))
        return PTM_ENOMEM;
    if (k->mode != SEQ1) {
        k->xd = rt_zalloc(m, sizeof(double));
        k->gmark = rt_zalloc(m, 1);
        k->wk = rt_zalloc(P, sizeof(*k->wk));
        if (!k->xd || !k->gmark || !k->wk)
            return PTM_ENOMEM;
        for (size_t p = 0; p < P; p++) {
            struct lcd_w *d = &k->wk[p];
            int64_t own = run->w[p].hi - run->w[p].lo;
            if (!(d->dm = rt_zalloc(m, sizeof(double))) || !(d->mark = rt_zalloc(m, 1)) ||
                !(d->list = rt_zalloc(m, sizeof(int32_t))) ||
                !(d->own = rt_zalloc((size_t)(own > 0 ? own : 1), sizeof(int32_t))))
                return PTM_ENOMEM;
        }
    }
    const double *labels = X->labels.val;
    for (int64_t i = 0; i < k->nrows; i++)
        k->ys[i] = labels[i] > 0 ? 1 : -1;
    lcd_margins(&X->csr, run->params[k->w].val, k->b >= 0 ? run->params[k->b].val[0] : 0, k->m);
    if (k->b >= 0) {
        bias_step(run, k);
        k->due = INTERCEPT_EVERY_SWEEP ? run->nblocks : 0;
    }
    if (k->q)
        lcd_exps(k->nrows, k->m, k->ys, k->q);
    return 0;
}

static void lcd_release(struct ptm_run *run)
{
    struct lcd_state *k = run->rule_state;
    if (!k)
        return;
    if (k->wk)
        for (int p = 0; p < run->P; p++) {
            ptm_free(k->wk[p].dm);
            ptm_free(k->wk[p].mark);
            ptm_free(k->wk[p].list);
            ptm_free(k->wk[p].own);
        }
    if (k->s)
        for (int p = 0; p < run->P; p++)
            ptm_free(k->s[p]);
    ptm_free(k->s);
    ptm_free(k->wk);
    ptm_free(k->ys);
    ptm_free(k->m);
    ptm_free(k->q);
    ptm_free(k->xd);
    ptm_free(k->gmark);
    ptm_free(k->sv);
    lcd_block_release(&k->blk);
    ptm_free(k);
    run->rule_state = NULL;
}

static size_t lcd_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    (void)nvars;
    return 0;
}

/* dm += d x_j, listing the rows it touches first. */
static void scatter(const struct ptm_csc *x, int64_t j, double d, struct lcd_w *o)
{
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    double *restrict dm = o->dm;
    for (int64_t e = x->colptr[j]; e < x->colptr[j + 1]; e++) {
        int32_t i = ri[e];
        if (!o->mark[i]) {
            o->mark[i] = 1;
            o->list[o->nl++] = i;
        }
        dm[i] += d * v[e];
    }
}

/* PAR, SEQP, after every share's changes are in: xd on the worker's rows
 * (every worker's dm in worker order, cleared on the way), and its part
 * of the loss's change at step 1. */
static void gather(struct rt_worker *w, struct lcd_state *k)
{
    struct lcd_w *o = &k->wk[w->id];
    int64_t lo = w->lo, hi = w->hi;
    o->no = 0;
    for (int q = 0; q < w->run->P; q++) {
        struct lcd_w *d = &k->wk[q];
        for (size_t t = 0; t < d->nl; t++) {
            int32_t i = d->list[t];
            if (i < lo || i >= hi)
                continue;
            if (!k->gmark[i]) {
                k->gmark[i] = 1;
                k->xd[i] = 0;
                o->own[o->no++] = i;
            }
            k->xd[i] += d->dm[i];
            d->dm[i] = 0;
            d->mark[i] = 0;
        }
    }
    double sum = 0, mag = 0, d1 = 0, d2 = 0;
    for (size_t t = 0; t < o->no; t++) {
        int32_t i = o->own[t];
        double y = k->ys[i], mi = k->m[i], u = k->xd[i];
        double si = mi * y >= 0 ? exp(-y * mi) / (1 + exp(-y * mi)) : 1 / (1 + exp(y * mi));
        k->sv[i] = si;
        double dl = log1p(si * expm1(-y * u));
        sum += dl;
        mag += fabs(dl);
        d1 -= y * si * u;
        d2 += si * (1 - si) * u * u;
    }
    o->sum = sum;
    o->mag = mag;
    o->d1 = d1;
    o->d2 = d2;
}

/* SEQP: whether columns vars[0 .. n) hold too few non-zeros to split
 * (fewer than split_min, and at most X's rows); n columns of at most
 * col_max non-zeros need no sum when that is few. */
static bool small_round(const struct lcd_state *k, const int64_t *vars, size_t n)
{
    int64_t least = k->nrows > k->split_min ? k->nrows : k->split_min;
    return (double)n * (double)k->col_max < (double)least || rt_cols_nnz(k->csc, vars, n) < least;
}

/* SEQ1, and SEQP's rounds alone: the steps of vars[0 .. n) one after
 * the other on the margins, their new values into out (see DESIGN). */
static void push_seq(struct ptm_run *run, struct lcd_state *k, const int64_t *vars, size_t n,
                     double *out)
{
    const double *beta = run->params[k->w].val;
    if (k->qups >= k->qdue) { /* once a sweep */
        lcd_exps(k->nrows, k->m, k->ys, k->q);
        k->qdue = k->qups + (run->nblocks > 0 ? run->nblocks : 1);
    }
    k->qups += (int64_t)n;
    if (rt_cols_nnz(k->csc, vars, n) > k->nrows) { /* see DESIGN */
        lcd_block_step(&k->blk, k->csc, vars, n, beta, out, k->m, k->q, k->ys, &k->pen);
        return;
    }
    double *s = k->s[0], dec;
    for (size_t v = 0; v < n; v++) {
        int64_t j = vars[v];
        out[v] = lcd_step_own(k->csc, j, k->m, k->q, beta[j], &k->pen, s, &dec);
    }
}

static int lcd_push(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    struct lcd_state *k = run->rule_state;
    int64_t v0 = rd->off[rd->part[w->id]], v1 = rd->off[rd->part[w->id + 1]];
    const double *beta = run->params[k->w].val;
    if (k->mode == SEQ1) {
        push_seq(run, k, rd->vars + v0, (size_t)(v1 - v0), run->newval + v0);
        return 0;
    }
    if (k->mode == SEQP && run->work.alone) {
        /* the others sleep (lcd_alone): every share's variables are in rd */
        k->solo = true;
        push_seq(run, k, rd->vars, rd->nvars, run->newval);
        return 0;
    }
    if (w->id == 0)
        k->solo = false;
    double *s = k->s[w->id], dec;
    struct lcd_w *o = &k->wk[w->id];
    o->nl = 0; /* the last round's list was read by every gather before this phase */
    const double *dm = k->mode == SEQP ? o->dm : NULL;
    for (int64_t v = v0; v < v1; v++) {
        int64_t j = rd->vars[v];
        double nw = lcd_step(k->csc, j, k->m, dm, k->ys, beta[j], &k->pen, s, &dec);
        run->newval[v] = nw;
        if (nw != beta[j])
            scatter(k->csc, j, nw - beta[j], o);
    }
    rt_barrier(w); /* every share's changes are in */
    gather(w, k);
    return 0;
}

/* The penalty's change when the round's coefficients move by t times
 * their change (new values in run->newval); *size receives its terms'
 * magnitude. */
static double pen_change(const struct ptm_run *run, const struct lcd_state *k,
                         const struct rt_round *rd, double t, double *size)
{
    const double *beta = run->params[k->w].val;
    double l1 = 0, sq = 0, mag = 0;
    for (size_t v = 0; v < rd->nvars; v++) {
        double old = beta[rd->vars[v]], now = old + t * (run->newval[v] - old);
        l1 += fabs(now) - fabs(old);
        sq += now * now - old * old;
        mag += k->pen.l1 * (fabs(now) + fabs(old)) + 0.5 * k->pen.l2 * (now * now + old * old);
    }
    *size = mag;
    return k->pen.l1 * l1 + 0.5 * k->pen.l2 * sq;
}

/* The penalty's slope at t = 0 (from the right) along the round's change. */
static double pen_slope(const struct ptm_run *run, const struct lcd_state *k,
                        const struct rt_round *rd)
{
    const double *beta = run->params[k->w].val;
    double l1 = 0, l2 = 0;
    for (size_t v = 0; v < rd->nvars; v++) {
        double old = beta[rd->vars[v]], d = run->newval[v] - old;
        l1 += old > 0 ? d : old < 0 ? -d : fabs(d);
        l2 += old * d;
    }
    return k->pen.l1 * l1 + k->pen.l2 * l2;
}

/* The loss's change (summed, not divided by n) over the touched rows at
 * step t. */
static double loss_change(const struct ptm_run *run, const struct lcd_state *k, double t)
{
    double sum = 0;
    for (int p = 0; p < run->P; p++) {
        const struct lcd_w *o = &k->wk[p];
        for (size_t q = 0; q < o->no; q++) {
            int32_t i = o->own[q];
            sum += log1p(k->sv[i] * expm1(-k->ys[i] * t * k->xd[i]));
        }
    }
    return sum;
}

/* PAR, SEQP: the round's step (see DESIGN); the margins follow it. */
static double round_step(struct ptm_run *run, const struct rt_round *rd, double *rise)
{
    struct lcd_state *k = run->rule_state;
    double n = (double)k->pen.n, loss = 0, mag = 0, d1 = 0, d2 = 0, psize;
    for (int p = 0; p < run->P; p++) {
        loss += k->wk[p].sum;
        mag += k->wk[p].mag;
        d1 += k->wk[p].d1;
        d2 += k->wk[p].d2;
    }
    double df = loss / n + pen_change(run, k, rd, 1, &psize), t = 1;
    *rise = df;
    /* a rise within the rounding of its terms is none */
    double noise = 8 * DBL_EPSILON * (mag / n + psize);
    if (df > noise) {
        /* the first trial where the objective's quadratic model along the
         * round's change has its minimum (the penalty's slope taken at 0),
         * when that is in (0, 1); then halving */
        double slope = d1 / n + pen_slope(run, k, rd), tn = d2 > 0 ? -slope / (d2 / n) : 0;
        t = tn > 0 && tn < 1 ? tn * 2 : 1;
        for (int it = 0; it < 60; it++) {
            t *= 0.5;
            double f = loss_change(run, k, t) / n + pen_change(run, k, rd, t, &psize);
            if (f <= 0)
                break;
        }
    }
    for (int p = 0; p < run->P; p++) {
        struct lcd_w *o = &k->wk[p];
        for (size_t q = 0; q < o->no; q++) {
            int32_t i = o->own[q];
            k->m[i] += t * k->xd[i];
            if (k->q)
                k->q[i] = k->ys[i] * exp(-k->ys[i] * k->m[i]);
            k->gmark[i] = 0;
        }
        o->no = 0;
    }
    return t;
}

static double lcd_damp(struct ptm_run *run, const struct rt_round *rd, double *rise)
{
    struct lcd_state *k = run->rule_state;
    double t = 1;
    *rise = 0;
    if (k->mode == PAR || (k->mode == SEQP && !k->solo))
        t = round_step(run, rd, rise);
    if (k->b >= 0) {
        k->ups += (int64_t)rd->n;
        if (k->ups >= k->due) {
            if (INTERCEPT_EVERY_SWEEP && run->nblocks > 0)
                k->due = (k->ups / run->nblocks + 1) * run->nblocks;
            bias_step(run, k);
        }
    }
    return t;
}

/* SEQP: a round of few non-zeros runs on the first worker alone (see
 * DESIGN); the objective's phase, when it has one, is split. */
static bool lcd_alone(const struct ptm_run *run, const struct rt_round *rd)
{
    const struct lcd_state *k = run->rule_state;
    return k->mode == SEQP && rd &&
           small_round(k, run->expand_late ? rd->blocks : rd->vars, rd->nvars);
}

/* SEQP with a variable a block: such a round the scheduler deals whole to
 * the first worker. */
static bool lcd_alone_blocks(const struct ptm_run *run, const int64_t *blocks, size_t n)
{
    const struct lcd_state *k = run->rule_state;
    return k->mode == SEQP && small_round(k, blocks, n);
}

/* The dry run's alone_blocks: from the plan's options and X's columns. */
static bool lcd_alone_dry(struct ptm_run *run, const int64_t *blocks, size_t n)
{
    return rt_alone_dry(run, blocks, n, SPLIT_MIN_NNZ, -1);
}

bool lcd_known_loss(const struct ptm_run *run, int32_t x, int32_t y, int32_t w, int32_t b,
                    double *sum)
{
    struct lcd_state *k = run->rule_state;
    if (run->rule != &logreg_cd_rule || !k || x != k->x || y != k->y || w != k->w || b != k->b)
        return false;
    double s = 0;
    for (int64_t i = 0; i < k->nrows; i++) {
        double z = -k->ys[i] * k->m[i], e = exp(z);
        s += z > 0 ? z + log1p(1 / e) : log1p(e);
        if (k->q)
            k->q[i] = k->ys[i] * e;
    }
    if (k->q) /* computed afresh: the next round need not */
        k->qdue = k->qups + (run->nblocks > 0 ? run->nblocks : 1);
    *sum = s;
    return true;
}

/* Checkpoints (rt_rule's state), between rounds: the margins and the
 * intercept's counters; under SEQ1 and SEQP the exps as they drifted,
 * their counters and the block step's inner tolerance. Everything else a round writes it also clears
 * (dm, the marks, xd's touched rows) or writes before it reads (the
 * lists, sv, the workers' scratch); ys and the columns come from the
 * data at set-up. */
static void lcd_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct lcd_state *k = run->rule_state;
    static const char *const tags[] = {[PAR] = "rule logreg_cd parallel",
                                       [SEQ1] = "rule logreg_cd seq1 signed",
                                       [SEQP] = "rule logreg_cd seqp signed"};
    ptm_ck_tag(ck, tags[k->mode]);
    ptm_ck_size(ck, run->P, "workers");
    ptm_ck_size(ck, k->nrows, "rows of X");
    ptm_ck_size(ck, k->b >= 0, "intercept");
    for (int p = 0; k->wk && p < run->P; p++)
        PTM_ASSERT(ck->load || k->wk[p].no == 0); /* no round in flight */
    PTM_CK_ARRAY(ck, k->m, k->nrows);
    PTM_CK(ck, k->ups);
    PTM_CK(ck, k->due);
    if (k->q) {
        PTM_CK_ARRAY(ck, k->q, k->nrows);
        PTM_CK(ck, k->qups);
        PTM_CK(ck, k->qdue);
        PTM_CK(ck, k->blk.inner);
        PTM_CK(ck, k->blk.vmax0);
        if (ck->load && !ck->err &&
            (!(k->blk.inner > 0 && k->blk.inner <= 1) || !(k->blk.vmax0 >= 0) ||
             !isfinite(k->blk.vmax0)))
            ptm_ck_fail(ck, PTM_EDATA, "logreg_cd's state in the checkpoint is damaged");
    }
}

const struct rt_rule logreg_cd_rule = {
    .name = "logreg_cd",
    .kind = RT_MODEL,
    .split_blocks = true,
    .setup = lcd_setup,
    .release = lcd_release,
    .zcap = lcd_zcap,
    .push = lcd_push,
    .damp = lcd_damp,
    .alone = lcd_alone,
    .alone_blocks = lcd_alone_blocks,
    .alone_dry = lcd_alone_dry,
    .state = lcd_state,
};
