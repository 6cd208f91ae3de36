/*
 * kernel_lasso.h - the built-in Lasso kernel (lasso_cd, lasso_objective):
 * coordinate descent on
 *
 *     f(beta) = 1/(2n) ||y - X beta||^2 + lambda ||beta||_1
 *
 * split into the steps of spec/runtime.md, over row shards. Worker p holds
 * the CSC of its rows of X (row indices local to the shard, 0 .. m-1), its
 * slice r of the residual y - X beta, and the shard's part sq of every
 * squared column norm; beta is the whole coefficient vector. One round for
 * a scheduled set of columns S (cols[0 .. ns)):
 *
 *   push   on every worker:  z[p] = lasso_push(shard p, S)      K = 2 per column
 *   pull   once:             beta_new = lasso_pull(sum over p of z[p])
 *   apply  on every worker:  lasso_apply(shard p, S, beta_new - beta_old)
 *
 * z for column j is (x_j^T r + sq_j beta_j, sq_j) over the shard's rows, so
 * the summed z is (x_j^T r + ||x_j||^2 beta_j, ||x_j||^2) and pull is the
 * exact minimizer over beta_j: S(z_0, n lambda) / z_1, S the soft threshold.
 * Summing the shards' z in the order p = 0, 1, ... gives the same numbers
 * on every run. The objective and the KKT check are also split: per-shard
 * parts that the engine adds up, then one call on the sums.
 *
 * Plain functions on arrays: no allocation and no engine types except in
 * lasso_solve_serial(). n (>= 1) is always the number
 * of rows of the whole matrix. Columns are 0-based.
 */
#ifndef PTM_KERNEL_LASSO_H
#define PTM_KERNEL_LASSO_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"

/* Doubles per column in a push result. */
#define LASSO_K 2

/* ---- set-up --------------------------------------------------------------- */

/* sq[j] = the shard's part of ||x_j||^2, for every column (the worker's
 * cache; summed over shards it is the squared norm). */
void lasso_colsq(const struct ptm_csc *x, double *sq);
/* The same, and sum[j] = the shard's part of the sum of column j (in row
 * order), in the same pass when sum is not NULL. */
void lasso_colsums(const struct ptm_csc *x, double *sq, double *sum);

/* r = y - X beta on the shard's rows: y is the shard's slice of the
 * labels (x->nrows of them), r the slice of the residual. */
void lasso_residual(const struct ptm_csc *x, const double *y, const double *beta, double *r);

/* ---- one round ------------------------------------------------------------ */

/* push: for k < ns, column j = cols[k] (0 <= j < x->ncols):
 *   z[LASSO_K k]     = sum over the shard's rows i of x_ij r_i + sq[j] beta[j]
 *   z[LASSO_K k + 1] = sq[j]
 * r is the shard's residual slice, sq the shard's lasso_colsq(), beta the
 * whole vector. */
void lasso_push(const struct ptm_csc *x, const double *sq, const double *r, const double *beta,
                const int64_t *cols, size_t ns, double *z);

/* push, pull and apply in one, one column after the other (Gauss-Seidel):
 * for k < ns, column j = cols[k], beta_new[k] is the exact minimizer over
 * beta_j given r, which already holds the changes of columns cols[0 .. k)
 * (lasso_pull's formula on lasso_push's sums); then r -= x_j (beta_new[k]
 * - beta[j]). beta is left alone: it holds the values before the round.
 * The columns must be distinct. With one shard and the columns 0, 1, ...
 * in order, this is a sweep of lasso_solve_serial(). Returns how much the
 * steps lowered the objective, f before minus f after (each step's exact
 * decrease, (2 delta x_j^T r - delta^2 ||x_j||^2) / (2n) - lambda (|new|
 * - |old|), summed). */
double lasso_push_seq(const struct ptm_csc *x, const double *sq, double *r, const double *beta,
                      const int64_t *cols, size_t ns, int64_t n, double lambda, double *beta_new);

/* The same with an intercept b: r stands off the residual y - X beta - b
 * by *off on every row (the residual is r - *off), so a column's product
 * with the residual is x_j . r - *off csum_j. With ic->sqc (each column's
 * centred square ||x_j - mean(x_j)||^2 over all n rows, lasso_centred())
 * b also takes its best value given beta at each step: beta_j moves to
 * the minimizer over it with b following, z = x_j . resid + sqc_j beta_j,
 * and b by -delta csum_j / n, which the residual gets as *off -= delta
 * csum_j / n (r gets -delta x_j as without). That is coordinate descent
 * on the centred columns, as glmnet takes it, and needs the residual's
 * mean to be 0 when the round starts; a column of sqc_j 0 (constant: b
 * fits it) gets 0. Without sqc, b stays where it is and *off does too.
 * Returns the decrease as lasso_push_seq, with sqc_j for ||x_j||^2 when
 * given. */
struct lasso_icpt {
    const double *csum; /* each column's sum of entries */
    const double *sqc;  /* NULL: b stays */
};
/* A column's centred square from its square sq and sum csum over n rows:
 * sq - csum^2 / n, or 0 when that is at most 1e-12 sq (a constant column,
 * up to the rounding of the difference). */
double lasso_centred(double sq, double csum, int64_t n);
double lasso_push_seq_b(const struct ptm_csc *x, const double *sq, double *r, const double *beta,
                        const int64_t *cols, size_t ns, int64_t n, double lambda, double *beta_new,
                        const struct lasso_icpt *ic, double *off);

/* pull: z holds the sums over all shards of the push results for ns
 * columns; beta_new[k] = S(z[K k], n lambda) / z[K k + 1] with
 * S(a, t) = sign(a) max(|a| - t, 0), or 0 when the column is empty. The
 * threshold is computed as (double)n * lambda, here and in
 * lasso_lambda_max(). */
void lasso_pull(const double *z, size_t ns, int64_t n, double lambda, double *beta_new);

/* Damping a round whose coordinate updates were computed together (from
 * one residual, or each worker's share one after the other): beta moves
 * by t delta, delta[k] the change of column cols[k]. The quadratic part
 * of f(beta + t delta) needs a = |X delta|^2 and b = r0 . X delta, r0 the
 * round's starting residual, which the workers add up over their rows.
 *
 * lasso_scatter_rows: xd += X delta over cols[0 .. ns) on the rows lo ..
 * hi-1 (a column's rows must be ascending, as a CSC built from rows has
 * them), listing in rows (nr of them so far) each row it touches for the
 * first time (mark[i] set). first[j] and end[j], when not NULL, are where
 * in column j those rows start and end (entry offsets from colptr[j]),
 * else they are searched for. */
void lasso_scatter_rows(const struct ptm_csc *x, const int64_t *cols, const double *delta,
                        size_t ns, int64_t lo, int64_t hi, const int32_t *first,
                        const int32_t *end, double *xd, unsigned char *mark, int32_t *rows,
                        size_t *nr);
/* cut[j] = the offset in column j of its first row at or above lo. */
void lasso_row_cut(const struct ptm_csc *x, int64_t lo, int32_t *cut);
/* r_i -= t xd_i over the listed rows: the round's change, damped by t,
 * applied from its X delta; then xd and mark are cleared (nr = 0). */
void lasso_scatter_apply(double *xd, unsigned char *mark, const int32_t *rows, size_t *nr,
                         double t, double *r);
/* The step t in (0, 1]: 1 when f(beta + delta) <= f(beta) (or exceeds it
 * by no more than the rounding of its terms), else the
 * minimizer of the convex f(beta + t delta) over (0, 1] (bisection on its
 * slope, which is negative at 0: each change is a descent step for its
 * own coordinate). *rise receives f(beta + delta) - f(beta). */
double lasso_step(double a, double b, const double *beta, const int64_t *cols,
                  const double *delta, size_t ns, int64_t n, double lambda, double *rise);
/* apply: r_i -= x_ij delta[k] for j = cols[k] and the shard's rows i, so
 * that r stays y - X beta after beta_j += delta[k]. A zero delta costs
 * nothing. */
void lasso_apply(const struct ptm_csc *x, const int64_t *cols, const double *delta, size_t ns,
                 double *r);

/* ---- objective and optimality --------------------------------------------- */

/* The shard's part of the loss: ||r||^2 / (2 n) over its m residuals. The
 * objective is the sum of the parts plus lasso_penalty(), added once. */
double lasso_loss_part(const double *r, int64_t m, int64_t n);
/* The same of the residual r - off (r standing off it by off). */
double lasso_loss_part_off(const double *r, int64_t m, int64_t n, double off);
/* lambda ||beta||_1 over d coefficients. */
double lasso_penalty(const double *beta, int64_t d, double lambda);

/* g[j] = the shard's part of x_j^T r, for every column (summed over shards
 * in order p = 0, 1, ... it is the gradient term of the KKT conditions).
 * With r = y and beta = 0 it is exactly the z[K k] a push would give. */
void lasso_grad_part(const struct ptm_csc *x, const double *r, double *g);

/* The largest violation of the optimality (KKT) conditions at beta, given
 * g = X^T (y - X beta) summed over all shards:
 *   beta_j == 0:  max(0, |g_j / n| - lambda)
 *   beta_j != 0:  |g_j / n - lambda sign(beta_j)|
 * Its column goes to *worst when worst is not NULL (-1 when d is 0). Zero
 * at the optimum; compare it with a tolerance relative to lambda. */
double lasso_kkt(const double *g, const double *beta, int64_t d, int64_t n, double lambda,
                 int64_t *worst);

/* The smallest lambda for which pull keeps beta = 0 from beta = 0, given
 * g = X^T y summed over the shards as the pushes sum it: the least double
 * with (double)n * lambda >= max_j |g_j|, which is max_j |g_j| / n up to
 * rounding. Every lambda at or above it gives beta = 0 exactly. */
double lasso_lambda_max(const double *g, int64_t d, int64_t n);

/* ---- reference solver ----------------------------------------------------- */

/* Cyclic coordinate descent on the whole matrix (columns 0, 1, ... in
 * every sweep), from beta = 0, written directly rather than through the
 * steps above (it shares only their inner dot and axpy loops). Stops after
 * the first sweep in which no coefficient changed the fitted values by more
 * than tol in root mean square (|delta_j| ||x_j|| / sqrt(n) <= tol for
 * every j), or after max_sweeps sweeps. Returns the number of sweeps when
 * tol was met (>= 1), 0 when max_sweeps ran out first (beta_out holds the
 * last iterate), PTM_EINVAL for a negative or non-finite lambda or tol,
 * PTM_ENOMEM. y has x->nrows elements, beta_out x->ncols. */
int lasso_solve_serial(const struct ptm_csc *x, const double *y, double lambda, double tol,
                       int max_sweeps, double *beta_out);

#endif
