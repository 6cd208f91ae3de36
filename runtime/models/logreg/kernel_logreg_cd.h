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
 * y_i exp(-y_i m_i) kept for every row (the label in its sign, so that a
 * non-zero reads one array at its row, not two), the derivatives need no
 * exp, and the accepted trial's expm1 moves q too. m and q follow the
 * step (m_i += d x_ij, q_i *= exp(-y_i d x_ij)); s is scratch of twice
 * the column's non-zeros. Returns the new w_j. */
double lcd_step_own(const struct ptm_csc *x, int64_t j, double *m, double *q, double wj,
                    const struct lcd_pen *p, double *s, double *dec);

/* q_i = y_i exp(-y_i m_i) over nrows rows. */
void lcd_exps(int64_t nrows, const double *m, const double *ys, double *q);

/* ---- a block of coordinates at once (newGLMNET) ----
 *
 * The step of Yuan, Ho and Lin ("An improved GLMNET for L1-regularized
 * logistic regression", JMLR 2012; liblinear -s 6) on a block J of
 * coordinates: at the block's start, with D_i = s_i (1 - s_i), the loss's
 * quadratic model along J,
 *
 *     Q(u) = G'u + u' (X_J' D X_J / n + l2 I) u / 2 + l1 |w_J + u|_1,
 *
 * G the gradient of F's smooth part in J, is minimized by coordinate
 * descent (each coordinate's step exact on Q; r = X_J u kept for every
 * row: multiply-adds, no exp) over the coordinates of J that are
 * not 0 or whose |G_j| exceeds l1 (the others stay for a later block, as
 * liblinear's shrinking leaves them), in passes, each after the first
 * over those not at 0 or moved, at most LCD_INNER_MAX, until the largest
 * violation of a pass (|step| times the curvature) is below a tolerance
 * that tightens as liblinear's does (struct lcd_block). Then w_J moves by
 * t u, t = 1, 1/2, ... the first with
 *     F(w + t u) - F(w) <= LCD_SIGMA t (G'u + l1 (|w_J + u|_1 - |w_J|_1))
 * (an expm1 and a log1p a touched row a trial). A coordinate thus costs
 * multiply-adds over its column, and the exps are a row's, not a
 * non-zero's. s_i and D_i are computed for every row first (a division a
 * row), and the line search and the move scan every row for those u
 * touched: a step costs O(rows) besides its columns' non-zeros, which is
 * why it is for blocks of more non-zeros than rows. */
#define LCD_INNER_MAX 4

/* Scratch of lcd_block_step for nrows rows and blocks of up to ncoords
 * coordinates, allocated once. */
struct lcd_block {
    double *rd;          /* 2 nrows: r_i = (X_J u)_i and D_i side by side (one cache
                            line); r is 0 between steps */
    double *sv;          /* nrows: y_i s_i at the block's start */
    double *g, *h;       /* ncoords: G_j and Q's second derivative in u_j */
    size_t *live;        /* ncoords: the coordinates of the next inner pass */
    /* the inner passes' tolerance: they stop at a largest violation (|z| h)
     * below inner times vmax0, the first pass's of the first block; inner
     * starts at 1 and is quartered after a block that one pass met */
    double inner, vmax0;
    int64_t nrows;
};

/* Returns 0 or PTM_ENOMEM; release with lcd_block_release (also after a
 * failure). */
int lcd_block_init(struct lcd_block *b, int64_t nrows, int64_t ncoords);
void lcd_block_release(struct lcd_block *b);

/* The step above on coordinates js[0 .. nj) of x (distinct) from their
 * values in w, with q_i = y_i exp(-y_i m_i) kept for every row (the
 * derivatives need no exp; the accepted trial's expm1 moves q): out[k]
 * receives the new value of coordinate js[k]; m and q follow the step.
 * Returns the step t taken (0: none, every out[k] the
 * old value). */
double lcd_block_step(struct lcd_block *b, const struct ptm_csc *x, const int64_t *js, size_t nj,
                      const double *w, double *out, double *m, double *q, const double *ys,
                      const struct lcd_pen *p);

/* The same step for the intercept, a column of ones over all x->nrows
 * rows that no penalty touches: the change of b (0 when the line search
 * fails). s is scratch of nrows values. */
double lcd_bias_step(int64_t nrows, const double *m, const double *ys, int64_t n, double *s);

/* lcd_bias_step from the kept q_i = y_i exp(-y_i m_i) (lcd_step_own's):
 * no exp a row (a ones column moves every q_i by one of two factors),
 * and m and q follow the step. Returns the change of b. */
double lcd_bias_step_own(int64_t nrows, double *m, double *q, int64_t n, double *s);

/* m_i += d x_ij over column j's rows. */
void lcd_col_axpy(const struct ptm_csc *x, int64_t j, double d, double *m);

/* m_i = x_i . w + b over the rows of the CSR x. */
void lcd_margins(const struct ptm_csr *x, const double *w, double b, double *m);

#endif
