/*
 * kernel_logreg_cd.h - L1 (+ L2) logistic regression by coordinate
 * descent (update builtin logreg_cd): the one-dimensional Newton step with
 * a line search of CDN (Yuan, Chang, Hsieh and Lin, "A comparison of
 * optimization methods and software for large-scale L1-regularized linear
 * classification", JMLR 2010, section 4.1.2), on
 *
 *     F(w, b) = 1/n sum over rows i of log(1 + exp(-y_i m_i))
 *               + (l2 / 2) |w|^2 + l1 |w|_1,      m_i = x_i . w + b
 *
 * (kernel_logreg.h's F; y_i = +1 for a label > 0, else -1). The state a
 * step reads is the margin m_i of every row, kept up to date as the
 * Lasso's kernel keeps its residual: a change d of w_j moves m_i by d x_ij
 * on the rows of column j.
 *
 * The step for coordinate j at margins m: with s_i = 1 / (1 + exp(y_i
 * m_i)) (the probability of the wrong label) the first and second
 * derivatives of F in w_j are
 *
 *     G = -1/n sum_i y_i s_i x_ij + l2 w_j,   H = 1/n sum_i s_i (1 - s_i) x_ij^2 + l2
 *
 * and the direction d minimizes G d + H d^2 / 2 + l1 |w_j + d|:
 * -(G + l1) / H when that keeps w_j + d >= 0, -(G - l1) / H when it keeps
 * it <= 0, else -w_j. The step is then a d with a = 1, 1/2, 1/4, ...,
 * the first with F(w + a d e_j) - F(w) <= SIGMA a (G d + l1 (|w_j + d| -
 * |w_j|)) (Armijo), the change of the loss summed over the column's rows
 * only: log(1 + s_i expm1(-y_i a d x_ij)) for row i. A d that no a
 * within LS_MAX halvings accepts is not taken (w_j stays).
 *
 * Plain functions on arrays: no allocation, no engine types.
 */
#ifndef PTM_KERNEL_LOGREG_CD_H
#define PTM_KERNEL_LOGREG_CD_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"

/* Armijo's constant and the most halvings of a line search. */
#define LCD_SIGMA 0.01
#define LCD_LS_MAX 30

/* The objective's options. */
struct lcd_pen {
    double l1, l2;
    int64_t n; /* rows of the whole data set (>= 1) */
};

/* log(1 + exp(-y m)), y +1 or -1, without overflow. */
double lcd_loss(double y, double m);

/* The step of coordinate j of x from w_j at margins m (+ dm when dm is not
 * NULL: m and dm are read, never written), labels ys (+1 or -1 each), into
 * a new w_j, returned. s is scratch of the column's non-zeros. *dec
 * receives F before minus F after the step on these margins (>= 0). */
double lcd_step(const struct ptm_csc *x, int64_t j, const double *m, const double *dm,
                const double *ys, double wj, const struct lcd_pen *p, double *s, double *dec);

/* lcd_step on one worker's own margins, which it then moves: with q_i =
 * exp(-y_i m_i) kept for every row, the derivatives need no exp, and the
 * accepted trial's expm1 moves q too. m and q follow the step (m_i += d
 * x_ij, q_i *= exp(-y_i d x_ij)); s is scratch of twice the column's
 * non-zeros. Returns the new w_j. */
double lcd_step_own(const struct ptm_csc *x, int64_t j, double *m, double *q, const double *ys,
                    double wj, const struct lcd_pen *p, double *s, double *dec);
/* q_i = exp(-y_i m_i) over nrows rows. */
void lcd_exps(int64_t nrows, const double *m, const double *ys, double *q);

/* The same step for the intercept, a column of ones over all x->nrows
 * rows that no penalty touches: the change of b (0 when the line search
 * fails). s is scratch of nrows values. */
double lcd_bias_step(int64_t nrows, const double *m, const double *ys, int64_t n, double *s);

/* m_i += d x_ij over column j's rows. */
void lcd_col_axpy(const struct ptm_csc *x, int64_t j, double d, double *m);

/* m_i = x_i . w + b over the rows of the CSR x. */
void lcd_margins(const struct ptm_csr *x, const double *w, double b, double *m);

#endif
