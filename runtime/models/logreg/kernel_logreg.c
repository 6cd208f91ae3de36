/*
 * kernel_logreg.c - logistic regression by proximal minibatch SGD and by
 * its variance-reduced form (SVRG), as the steps of a data-parallel clock,
 * and the parts of its objective (kernel_logreg.h).
 *
 * DESIGN: a batch is gathered into dense per-column arrays (the gradient
 * sum and the row count) with a list of the columns touched, so that
 * adding a row costs its non-zeros and the step costs the columns touched,
 * never d; the arrays are cleared column by column as the step reads them.
 * The variance-reduced step moves every column (the anchor's gradient is
 * dense), so it costs d.
 * Every margin x_i . w in this file goes through row_dot(), so the loss,
 * the gradient and the step see the same numbers.
 */
#include "kernel_logreg.h"

#include <math.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

/* A batch touching at least 1/DENSE_STEP of the columns steps them all in
 * order. */
enum { DENSE_STEP = 8 };

/* ---- set-up ----------------------------------------------------------------- */

void logreg_col_counts_part(const struct ptm_csr *x, int64_t lo, int64_t hi, int64_t *cnt)
{
    for (int64_t k = x->rowptr[lo]; k < x->rowptr[hi]; k++)
        cnt[x->colind[k]]++;
}

void logreg_reg_scale(const int64_t *cnt, int64_t d, int64_t n, double *scale)
{
    for (int64_t j = 0; j < d; j++)
        scale[j] = cnt[j] > 0 ? (double)n / (double)cnt[j] : 0;
}

double logreg_step(double rate, double decay, int64_t sweep)
{
    return rate * pow(decay, (double)sweep);
}

/* ---- the loss --------------------------------------------------------------- */

/* x_i . w over row i's non-zeros, four partial sums. */
static inline double row_dot(const int32_t *restrict ci, const double *restrict v, int64_t len,
                             const double *restrict w)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += v[k] * w[ci[k]];
        s1 += v[k + 1] * w[ci[k + 1]];
        s2 += v[k + 2] * w[ci[k + 2]];
        s3 += v[k + 3] * w[ci[k + 3]];
    }
    for (; k < len; k++)
        s0 += v[k] * w[ci[k]];
    return (s0 + s1) + (s2 + s3);
}

double logreg_loss(double y, double m)
{
    double z = y > 0 ? -m : m; /* log(1 + exp(z)) */
    return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* dloss/dm = -y / (1 + exp(y m)). */
static inline double loss_slope(double y, double m)
{
    return y > 0 ? -1 / (1 + exp(m)) : 1 / (1 + exp(-m));
}

/* ---- the minibatch step ------------------------------------------------------ */

int logreg_batch_init(struct logreg_batch *b, int64_t d)
{
    memset(b, 0, sizeof(*b));
    size_t n = (size_t)(d > 0 ? d : 1);
    b->d = d;
    b->g = ptm_malloc(n * sizeof(*b->g));
    b->m = ptm_malloc(n * sizeof(*b->m));
    b->touched = ptm_malloc((n + 1) * sizeof(*b->touched)); /* + 1: see _add */
    if (!b->g || !b->m || !b->touched) {
        logreg_batch_release(b);
        return PTM_ENOMEM;
    }
    memset(b->g, 0, n * sizeof(*b->g));
    memset(b->m, 0, n * sizeof(*b->m));
    return 0;
}

void logreg_batch_release(struct logreg_batch *b)
{
    ptm_free(b->g);
    ptm_free(b->m);
    ptm_free(b->touched);
    memset(b, 0, sizeof(*b));
}

void logreg_batch_add(struct logreg_batch *b, const struct ptm_csr *x, const double *y, int64_t lo,
                      int64_t hi, const double *w, const double *bias)
{
    double *restrict g = b->g;
    int32_t *restrict m = b->m;
    int32_t *restrict touched = b->touched;
    int64_t nt = b->ntouched;
    double loss = 0, gb = 0, b0 = bias ? *bias : 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t at = x->rowptr[i], len = x->rowptr[i + 1] - at;
        const int32_t *ci = x->colind + at;
        const double *v = x->val + at;
        double margin = row_dot(ci, v, len, w) + b0;
        loss += logreg_loss(y[i], margin);
        double c = loss_slope(y[i], margin);
        gb += c;
        for (int64_t k = 0; k < len; k++) {
            int32_t j = ci[k];
            /* without a branch: whether j is new is a coin toss */
            touched[nt] = j;
            nt += m[j]++ == 0;
            g[j] += c * v[k];
        }
    }
    b->ntouched = nt;
    b->rows += hi > lo ? hi - lo : 0;
    b->loss += loss;
    b->gb += gb;
}

/* S(z, t) = sign(z) max(|z| - t, 0), without a branch (z's sign is a coin
 * toss). */
static inline double soft_threshold(double z, double t)
{
    double a = fabs(z) - t;
    return copysign(a > 0 ? a : 0, z);
}

/* Column j's step into idx[out], inc[out]; returns the new count. No
 * branch: a weight that does not move is written and not counted. */
static inline int64_t step_col(struct logreg_batch *b, int32_t j, const double *w,
                               const double *scale, double eta_row, double l2, double l1,
                               int32_t *idx, double *inc, int64_t out)
{
    int32_t mj = b->m[j];
    double ea = eta_row * scale[j] * (double)mj;
    double v = w[j] - eta_row * b->g[j];
    double d = soft_threshold(v, ea * l1) / (1 + ea * l2) - w[j];
    idx[out] = j;
    inc[out] = d;
    b->g[j] = 0;
    b->m[j] = 0;
    return out + ((d != 0) & (mj != 0)); /* mj: an inf weight untouched stays */
}

int64_t logreg_batch_step(struct logreg_batch *b, const double *w, const double *scale, double eta,
                          double l2, double l1, int32_t *idx, double *inc, double *binc)
{
    int64_t out = 0;
    /* Rows without non-zeros touch nothing: no rows, no columns. */
    double eta_row = b->rows > 0 ? eta / (double)b->rows : 0;
    if (b->ntouched * DENSE_STEP >= b->d) {
        /* Most columns: in order, a stream instead of scattered reads. An
         * untouched column has g = m = 0, so its weight does not move. */
        for (int32_t j = 0; j < b->d; j++)
            out = step_col(b, j, w, scale, eta_row, l2, l1, idx, inc, out);
    } else {
        for (int64_t k = 0; k < b->ntouched; k++)
            out = step_col(b, b->touched[k], w, scale, eta_row, l2, l1, idx, inc, out);
    }
    if (binc)
        *binc = -eta_row * b->gb;
    b->ntouched = 0;
    b->rows = 0;
    b->loss = 0;
    b->gb = 0;
    return out;
}

/* ---- variance reduction ------------------------------------------------------ */

void logreg_anchor_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                        const double *w, double *margin, double *g, const double *bias, double *gb)
{
    double b0 = bias ? *bias : 0, sb = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t at = x->rowptr[i], len = x->rowptr[i + 1] - at;
        const int32_t *ci = x->colind + at;
        const double *v = x->val + at;
        double m = row_dot(ci, v, len, w) + b0;
        if (margin)
            margin[i] = m;
        double c = loss_slope(y[i], m);
        sb += c;
        for (int64_t k = 0; k < len; k++)
            g[ci[k]] += c * v[k];
    }
    if (gb)
        *gb += sb;
}

void logreg_batch_add_vr(struct logreg_batch *b, const struct ptm_csr *x, const double *y,
                         int64_t lo, int64_t hi, const double *w, const double *margin,
                         const double *bias)
{
    double *restrict g = b->g;
    double loss = 0, gb = 0, b0 = bias ? *bias : 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t at = x->rowptr[i], len = x->rowptr[i + 1] - at;
        const int32_t *ci = x->colind + at;
        const double *v = x->val + at;
        double m = row_dot(ci, v, len, w) + b0;
        loss += logreg_loss(y[i], m);
        double c = loss_slope(y[i], m) - loss_slope(y[i], margin[i]);
        gb += c;
        for (int64_t k = 0; k < len; k++)
            g[ci[k]] += c * v[k];
    }
    b->rows += hi > lo ? hi - lo : 0;
    b->loss += loss;
    b->gb += gb;
}

void logreg_vr_step(struct logreg_batch *b, const double *w, const double *mu, double eta,
                    double l2, double l1, int64_t own_lo, int64_t own_hi, double *inc, double *binc)
{
    double *restrict g = b->g;
    double eta_row = b->rows > 0 ? eta / (double)b->rows : 0;
    double t = eta * l1, shrink = 1 / (1 + eta * l2);
    for (int64_t j = 0; j < b->d; j++) {
        double v = w[j] - (eta_row * g[j] + eta * mu[j]);
        double nw = soft_threshold(v, t) * shrink;
        bool mine = j >= own_lo && j < own_hi;
        inc[j] = nw != 0 || mine ? nw - w[j] : 0;
        g[j] = 0;
    }
    if (binc) /* no penalty: a plain step, which every worker takes */
        *binc = -(eta_row * b->gb + eta * mu[b->d]);
    b->rows = 0;
    b->loss = 0;
    b->gb = 0;
}

void logreg_owned(int64_t d, int64_t q, int64_t P, int64_t *lo, int64_t *hi)
{
    *lo = d * q / P;
    *hi = d * (q + 1) / P;
}

/* ---- objective and optimality ---------------------------------------------- */

double logreg_loss_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                        const double *w, const double *bias)
{
    double s = 0, b0 = bias ? *bias : 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t at = x->rowptr[i];
        s += logreg_loss(y[i], row_dot(x->colind + at, x->val + at, x->rowptr[i + 1] - at, w) + b0);
    }
    return s;
}

double logreg_penalty(const double *w, int64_t d, double l2, double l1)
{
    double sq = 0, ab = 0;
    for (int64_t j = 0; j < d; j++) {
        sq += w[j] * w[j];
        ab += fabs(w[j]);
    }
    return 0.5 * l2 * sq + l1 * ab;
}

void logreg_grad_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                      const double *w, double *g, const double *bias, double *gb)
{
    logreg_anchor_part(x, y, lo, hi, w, NULL, g, bias, gb);
}

double logreg_kkt(const double *g, const double *w, int64_t d, int64_t n, double l2, double l1,
                  int64_t *worst, const double *gb)
{
    double most = 0;
    int64_t at = d > 0 ? 0 : -1;
    for (int64_t j = 0; j < d; j++) {
        double G = g[j] / (double)n + l2 * w[j], v;
        if (w[j] != 0)
            v = fabs(G + (w[j] > 0 ? l1 : -l1));
        else
            v = fmax(0, fabs(G) - l1);
        if (v > most) {
            most = v;
            at = j;
        }
    }
    if (gb && fabs(*gb / (double)n) > most) { /* the intercept: no penalty */
        most = fabs(*gb / (double)n);
        at = d;
    }
    if (worst)
        *worst = at;
    return most;
}

/* ---- second order (method = tron) ------------------------------------------- */

/* The second-order passes take rows ROW_BLOCK at a time: first every
 * row's dot product (independent rows, whose loads overlap), then what
 * each row's scalar needs, then the rows' scatters while their entries
 * are still in cache. A row at a time, each scatter waited for its row's
 * dot product (and the exp after it), a chain the rows' ~40 non-zeros
 * could not hide. The sums are made in the same order as a row at a
 * time (the scatters write what the dot products never read), so the
 * results are the same bits. */
#define ROW_BLOCK 32

double logreg_newton_part(const struct ptm_csr *x, const double *y, int64_t lo, int64_t hi,
                          const double *w, const double *bias, double *D, double *gh, double *ghb)
{
    double b0 = bias ? *bias : 0, loss = 0, sg = 0, sh = 0;
    double cb[ROW_BLOCK], qb[ROW_BLOCK];
    for (int64_t i0 = lo; i0 < hi; i0 += ROW_BLOCK) {
        int n = hi - i0 < ROW_BLOCK ? (int)(hi - i0) : ROW_BLOCK;
        for (int j = 0; j < n; j++) {
            int64_t at = x->rowptr[i0 + j], len = x->rowptr[i0 + j + 1] - at;
            cb[j] = row_dot(x->colind + at, x->val + at, len, w) + b0;
        }
        for (int j = 0; j < n; j++) {
            int64_t i = i0 + j;
            double m = cb[j];
            /* one exp a row: with z = -y m (loss = log(1 + exp(z))) and
             * e = exp(-|z|), the loss as logreg_loss() computes it, the
             * slope -y sigmoid(z) and D_i = sigmoid(z) sigmoid(-z) */
            double z = y[i] > 0 ? -m : m, e = exp(-fabs(z)), r = 1 / (1 + e);
            loss += (z > 0 ? z : 0) + log1p(e);
            double sz = z >= 0 ? r : e * r, c = y[i] > 0 ? -sz : sz, q = e * r * r;
            D[i] = q; /* p (1 - p), without overflow */
            sg += c;
            sh += q;
            cb[j] = c;
            qb[j] = q;
        }
        for (int j = 0; j < n; j++) {
            int64_t at = x->rowptr[i0 + j], len = x->rowptr[i0 + j + 1] - at;
            const int32_t *ci = x->colind + at;
            const double *v = x->val + at;
            double c = cb[j], q = qb[j];
            int64_t k = 0;
            for (; k + 2 <= len; k += 2) { /* a row's columns are distinct */
                double *p = gh + 2 * (int64_t)ci[k], *p1 = gh + 2 * (int64_t)ci[k + 1];
                double v0 = v[k], v1 = v[k + 1];
                p[0] += c * v0;
                p[1] += q * v0 * v0;
                p1[0] += c * v1;
                p1[1] += q * v1 * v1;
            }
            for (; k < len; k++) {
                double *p = gh + 2 * (int64_t)ci[k];
                p[0] += c * v[k];
                p[1] += q * v[k] * v[k];
            }
        }
    }
    if (ghb) {
        ghb[0] += sg;
        ghb[1] += sh;
    }
    return loss;
}

/* hv[ci[k]] += t v[k] over a row's non-zeros (its columns are distinct). */
static inline void row_axpy(const int32_t *restrict ci, const double *restrict v, int64_t len,
                            double t, double *restrict hv)
{
    int64_t k = 0;
    for (; k + 4 <= len; k += 4) {
        hv[ci[k]] += t * v[k];
        hv[ci[k + 1]] += t * v[k + 1];
        hv[ci[k + 2]] += t * v[k + 2];
        hv[ci[k + 3]] += t * v[k + 3];
    }
    for (; k < len; k++)
        hv[ci[k]] += t * v[k];
}

void logreg_hv_part(const struct ptm_csr *x, int64_t lo, int64_t hi, const double *D,
                    const double *v, const double *vb, double *hv, double *hvb)
{
    double b0 = vb ? *vb : 0, sb = 0, tb[ROW_BLOCK];
    for (int64_t i0 = lo; i0 < hi; i0 += ROW_BLOCK) { /* as logreg_newton_part */
        int n = hi - i0 < ROW_BLOCK ? (int)(hi - i0) : ROW_BLOCK;
        for (int j = 0; j < n; j++) {
            int64_t at = x->rowptr[i0 + j], len = x->rowptr[i0 + j + 1] - at;
            tb[j] = D[i0 + j] * (row_dot(x->colind + at, x->val + at, len, v) + b0);
            sb += tb[j];
        }
        for (int j = 0; j < n; j++) {
            int64_t at = x->rowptr[i0 + j], len = x->rowptr[i0 + j + 1] - at;
            row_axpy(x->colind + at, x->val + at, len, tb[j], hv);
        }
    }
    if (hvb)
        *hvb += sb;
}
