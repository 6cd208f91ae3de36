/*
 * kernel_logreg.h - the built-in logistic regression kernel (logreg_sgd)
 * and the parts of the logloss objective, for data-parallel clocks
 * (spec/runtime.md). The problem (spec/language.md 5.11, 5.12):
 *
 *     F(w, b) = 1/n sum over rows i of log(1 + exp(-y_i (x_i . w + b)))
 *               + (l2 / 2) |w|^2 + l1 |w|_1
 *
 * n the rows of the whole data set, y_i = +1 for a label > 0 and -1
 * otherwise (so -1/+1 and 0/1 labels both work). b is the intercept, not
 * penalised; a model without one has b = 0 (the functions below take a
 * pointer `bias` to it, NULL for none). With p_i = 1 / (1 + exp(-m_i))
 * the probability of +1 at margin m_i, the loss's derivative in m_i (and
 * so in b) is p_i - [y_i = +1]. STEP and ENGINE below
 * are plain SGD (method = sgd); method = svrg has a section of its own
 * further down ("variance reduction").
 *
 * STEP. A minibatch B (|B| rows) gives the proximal stochastic gradient
 * step, for every column j that some row of B holds (m_j of them):
 *
 *     v_j   = w_j - eta / |B| * sum over i in B of dloss_i/dw_j
 *     a_j   = (n / c_j) (m_j / |B|)
 *     w_j' = S(v_j, eta a_j l1) / (1 + eta a_j l2)
 *
 * with S(v, t) = sign(v) max(|v| - t, 0) and c_j the rows of the whole
 * data set that hold column j. The penalty is charged to the columns of
 * the batch only, each weighted by a_j, whose mean over random batches is
 * 1: so the step stays sparse (|B| rows touch few of d columns) and is
 * unbiased for F, and each column's penalty is applied by its exact
 * proximal map, which is stable for any eta a_j (a rare column in a
 * batch can have a_j far above 1). On the whole data set as one batch
 * (a_j = 1) the step is proximal gradient descent, whose fixed points are
 * exactly the minimizers of F. The intercept takes the plain gradient step
 * b' = b - eta / |B| * sum over i in B of dloss_i/db. A column no row holds is never touched:
 * its weight stays at its initial value (0 is its optimum). The step size
 * after e whole sweeps is eta = rate * decay^e (logreg_step()); a sweep is
 * one pass of every worker over its shard.
 *
 * ENGINE. Set-up, once: every worker adds its shard's column counts into
 * one array (logreg_col_counts_part, in worker order), then
 * logreg_reg_scale() turns the totals into n / c_j, shared read-only by
 * all workers; each worker gets a struct logreg_batch (logreg_batch_init)
 * and increment arrays of d entries. A clock of worker p, w read from the
 * parameter store (a dense 1 x d table: pstore_row_dense(wk, t, 0, &w);
 * with an intercept 1 x (d + 1), bias = w + d, and binc its increment,
 * added as column d):
 *
 *     logreg_batch_add(&b, X, y, lo, hi, w, bias);      the next minibatch rows;
 *     [logreg_batch_add(&b, X, y, lo2, hi2, w, bias);]  twice when it wraps
 *     n = logreg_batch_step(&b, w, scale, logreg_step(rate, decay, sweep),
 *                           l2, l1, idx, inc, binc);
 *     for k < n: pstore_inc(wk, t, 0, idx[k], inc[k]);
 *     pstore_clock(wk);
 *
 * Every increment is computed from the one w the worker read (its view
 * under SSP, possibly stale) before any is applied, and each worker's
 * increments are a full step of its own minibatch: in one clock P workers
 * take P steps, as in Petuum's SSP SGD, so a sweep is the same number of
 * steps on any P. The objective: sum over workers of logreg_loss_part()
 * (in worker order), divided by n, plus logreg_penalty(). The optimality
 * check: sum over workers of logreg_grad_part(), then logreg_kkt().
 *
 * Plain functions on arrays: nothing is allocated after logreg_batch_init,
 * no engine types, no locks. Rows are rows of x (0-based) and y[i] is row
 * i's label; the engine passes its shard's rows of the whole CSR.
 */
#ifndef PTM_KERNEL_LOGREG_H
#define PTM_KERNEL_LOGREG_H

#include <stdint.h>

#include "data.h"

/* ---- set-up ----------------------------------------------------------------- */

/* cnt[j] += the number of rows lo .. hi-1 of x that hold column j (cnt has
 * x->ncols elements). */
void logreg_col_counts_part(const struct ptm_csr *x, int64_t lo, int64_t hi, int64_t *cnt);
/* scale[j] = n / cnt[j] (0 where cnt[j] is 0), for d columns; n is the
 * rows of the whole data set. */
void logreg_reg_scale(const int64_t *cnt, int64_t d, int64_t n, double *scale);

/* The step size after `sweep` whole sweeps: rate * decay^sweep. */
double logreg_step(double rate, double decay, int64_t sweep);

/* ---- the minibatch step ------------------------------------------------------ */

/* A worker's minibatch: the gradient sums and row counts of the columns
 * its rows touch, kept as dense arrays that are zero outside `touched`. */
struct logreg_batch {
    int64_t d;        /* columns */
    double *g;        /* d: sum over the batch of dloss_i / dw_j; owned */
    int32_t *m;       /* d: batch rows holding column j; owned */
    int32_t *touched; /* the columns with m_j > 0, in order of first touch; d + 1; owned */
    int64_t ntouched;
    int64_t rows; /* rows added since the last step */
    double loss;  /* sum of the rows' losses at the w they were added with */
    double gb;    /* sum over the batch of dloss_i / db (0 without an intercept) */
};

/* For d columns. Returns 0 or PTM_ENOMEM (b is then empty). Caller frees
 * with logreg_batch_release(). */
int logreg_batch_init(struct logreg_batch *b, int64_t d);
void logreg_batch_release(struct logreg_batch *b);

/* Add rows lo .. hi-1 of x (labels y[lo .. hi)) at weights w (d = x->ncols
 * values) and intercept *bias (NULL: none) to the batch; a batch holds
 * fewer than 2^31 rows. */
void logreg_batch_add(struct logreg_batch *b, const struct ptm_csr *x, const double *y, int64_t lo,
                      int64_t hi, const double *w, const double *bias);

/* The step of the batch (see the top of this file) from w, as increments:
 * idx[k], inc[k] for k < the returned count, w_j' - w_j for each touched
 * column j whose weight changes: in column order when the batch touches at
 * least d/8 columns, else in order of first touch. idx and inc have room
 * for d entries. The intercept's increment b' - b goes to *binc (unless
 * binc is NULL). The batch is emptied for the next one. A batch of no rows
 * gives 0. */
int64_t logreg_batch_step(struct logreg_batch *b, const double *w, const double *scale, double eta,
                          double l2, double l1, int32_t *idx, double *inc, double *binc);

/* ---- variance reduction (method = svrg) ---------------------------------------
 *
 * SVRG (Johnson and Zhang, 2013) in proximal minibatch form. At an anchor
 * w~ (every sweep), the full gradient of the mean loss
 *
 *     mu = 1/n sum over all rows i of dloss_i/dw (w~)
 *
 * and every row's margin x_i . w~ are kept; a minibatch B then steps every
 * column j, with the exact proximal map of the penalty:
 *
 *     v_j  = w_j - eta (1/|B| sum over i in B of (dloss_i/dw_j (w) - dloss_i/dw_j (w~))
 *                       + mu_j)
 *     w_j' = S(v_j, eta l1) / (1 + eta l2)
 *
 * The bracket is an unbiased estimate of the loss gradient at w whose
 * variance vanishes as w and w~ approach the optimum, so a constant eta
 * converges (linearly on a strongly convex F) where plain SGD needs a
 * decaying one. At the optimum w = w~ = w* the step is the proximal
 * gradient step, whose fixed points are the minimizers of F. Every step
 * moves all d columns (mu is dense): the increments are a dense row. The
 * intercept b (with its part mu_b of the full gradient) takes the same step
 * with no proximal map.
 *
 * WORKERS. P workers (over all ranks) each add their step's increment to
 * w, as for SGD, with one exception: where the proximal map sets a weight
 * to zero, only the worker that owns column j (worker q owns the q-th of P
 * equal column ranges) adds -w_j; the others add nothing there. Workers
 * that read the same w_j and all zero it then zero it once, exactly,
 * instead of taking it P - 1 times its size past zero (w_j = e would go to
 * -e, then back to e, for ever, with a constant eta). The owner sees its
 * own increments, so a stale read cannot make it zero a weight twice; and
 * the zero is exact (a share of -w_j / P per worker leaves remainders under
 * stale reads, which end stuck at the smallest subnormal). On P = 1
 * nothing changes, and the minimizers are still the fixed points.
 *
 * ENGINE. At each anchor every worker runs logreg_anchor_part over its
 * shard (margins into its rows of an array of the rank's rows, the
 * gradient into a d-array of its own, zeroed first); the coordinator sums
 * the workers' arrays (in worker order, then over the ranks) and divides
 * by n. A clock: logreg_batch_add_vr for the next minibatch rows, then
 * logreg_vr_step and pstore_inc_dense. */

/* For rows lo .. hi-1 of x at w and intercept *bias (NULL: none):
 * margin[i] = x_i . w + b (unless margin is NULL), g[j] += the sum of
 * dloss_i/dw_j (g has x->ncols elements) and, unless gb is NULL, *gb +=
 * the sum of dloss_i/db: logreg_grad_part() with the margins kept. */
void logreg_anchor_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                        const double *w, double *margin, double *g, const double *bias, double *gb);
/* Add rows lo .. hi-1 to the batch as the differences of their loss
 * gradients at w (and intercept *bias, NULL: none) and at the anchor,
 * whose margins margin[i] gives. Only g, gb, rows and loss are kept (no
 * touched list). */
void logreg_batch_add_vr(struct logreg_batch *b, const struct ptm_csr *x, const double *y,
                         int64_t lo, int64_t hi, const double *w, const double *margin,
                         const double *bias);
/* The step of the batch from w with the anchor's full gradient mu (d
 * values; d + 1 with an intercept, its part last): inc[j] = w_j' - w_j for
 * every column j (inc has d entries), except where w_j' is 0: there -w_j
 * for the columns own_lo .. own_hi-1 that this worker owns, 0 for the
 * others; the intercept's b' - b to *binc, unless binc is NULL (then no
 * intercept). The batch is emptied. */
void logreg_vr_step(struct logreg_batch *b, const double *w, const double *mu, double eta,
                    double l2, double l1, int64_t own_lo, int64_t own_hi, double *inc,
                    double *binc);
/* The columns worker q of P (over all ranks) owns, of d: lo .. hi-1. */
void logreg_owned(int64_t d, int64_t q, int64_t P, int64_t *lo, int64_t *hi);

/* ---- objective and optimality ---------------------------------------------- */

/* log(1 + exp(-y m)) for a label y (> 0: +1, else -1) and margin m,
 * without overflow. */
double logreg_loss(double y, double m);

/* Sum over rows lo .. hi-1 of x of the logistic loss at w and intercept
 * *bias (NULL: none): divided by n and added to logreg_penalty() over all
 * workers, it is F(w, b). */
double logreg_loss_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                        const double *w, const double *bias);
/* (l2 / 2) |w|^2 + l1 |w|_1 over d weights. */
double logreg_penalty(const double *w, int64_t d, double l2, double l1);

/* g[j] += sum over rows lo .. hi-1 of dloss_i / dw_j at w and intercept
 * *bias (NULL: none; g has x->ncols elements), and *gb += the sum of
 * dloss_i / db unless gb is NULL: summed over all workers, n times the
 * gradient of the mean loss. */
void logreg_grad_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                      const double *w, double *g, const double *bias, double *gb);

/* The largest violation of the optimality conditions of F at w, given g =
 * the sum over all n rows of the loss gradients (logreg_grad_part), with
 * G_j = g_j / n + l2 w_j:
 *   w_j != 0:  |G_j + l1 sign(w_j)|
 *   w_j == 0:  max(0, |G_j| - l1)
 * (the smallest |subgradient| of F in coordinate j), and with an intercept
 * (gb not NULL: the sum over all rows of dloss_i/db) |gb / n|, as column d.
 * Its column goes to *worst when worst is not NULL (-1 when d is 0 and
 * there is no intercept). Zero at the optimum. */
double logreg_kkt(const double *g, const double *w, int64_t d, int64_t n, double l2, double l1,
                  int64_t *worst, const double *gb);

/* ---- second order (method = tron) --------------------------------------------
 *
 * Trust-region Newton (tron.h) on F: every iteration makes one pass at a
 * candidate point (the loss, the gradient and the Hessian's diagonal) and
 * a pass for each conjugate gradient step (a Hessian-vector product at
 * the point taken last). With p_i the probability of +1 at margin m_i and
 * D_i = p_i (1 - p_i), the Hessian of F is (1/n) X' D X + l2 I (the
 * intercept: a column of ones, not penalised). Each worker computes its
 * shard's sums into arrays of its own; the coordinator sums them in
 * worker order, then over the ranks, so every rank takes the same steps.
 * l1 must be 0 (F must be smooth). */

/* For rows lo .. hi-1 of x at w and intercept *bias (NULL: none): returns
 * the sum of their losses; D[i] = D_i; gh[2j] += the sum of dloss_i/dw_j
 * and gh[2j + 1] += the sum of D_i x_ij^2 (gh has 2 x->ncols elements: a
 * column's two sums side by side, in one cache line); with ghb (not NULL)
 * ghb[0] += the sum of dloss_i/db, ghb[1] += the sum of D_i. One exp and
 * one log1p a row. */
double logreg_newton_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                          const double *w, const double *bias, double *D, double *gh, double *ghb);
/* hv[j] += the sum over rows lo .. hi-1 of x_ij D_i (x_i . v + vb) (vb: the
 * intercept's part of the vector, NULL: none) and, unless hvb is NULL,
 * *hvb += the sum of D_i (x_i . v + vb): summed over all rows and divided
 * by n, X' D X v. */
void logreg_hv_part(const struct ptm_csr *x, int64_t lo, int64_t hi, const double *D,
                    const double *v, const double *vb, double *hv, double *hvb);

#endif
