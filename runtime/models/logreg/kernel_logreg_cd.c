/*
 * kernel_logreg_cd.c - CDN's coordinate step for L1 logistic regression,
 * and newGLMNET's step on a block of coordinates (kernel_logreg_cd.h).
 *
 * DESIGN: a CDN step is one pass over the column's non-zeros for the two
 * derivatives (an exp a non-zero; s_i kept in the scratch array), then a
 * pass for each trial of the line search (an expm1 and a log1p a
 * non-zero). Near the optimum the first trial is accepted, so a step costs
 * about three transcendental functions a non-zero. The block step costs
 * a division a row for s and D (from exp(-y m), kept), multiply-adds a
 * non-zero for the derivatives and then of the coordinates that move, in
 * each inner pass, and an expm1 and a log1p a touched row in each trial
 * of its one line search.
 */
#include "kernel_logreg_cd.h"

#include <math.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

double lcd_loss(double y, double m)
{
    double z = -y * m;
    return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* 1 / (1 + exp(-z)) without overflow. */
static inline double sigmoid(double z)
{
    if (z >= 0)
        return 1 / (1 + exp(-z));
    double e = exp(z);
    return e / (1 + e);
}

/* The direction minimizing g d + h d^2 / 2 + l1 |w + d|. */
static double direction(double g, double h, double w, double l1)
{
    if (g + l1 <= h * w)
        return -(g + l1) / h;
    if (g - l1 >= h * w)
        return -(g - l1) / h;
    return -w;
}

/* The step of one coordinate over len rows: row k is ri[k] (NULL: k),
 * its value v[k] (NULL: 1). Returns the change of the coordinate. */
static double newton(const int32_t *restrict ri, const double *restrict v, int64_t len,
                     const double *restrict m, const double *restrict dm,
                     const double *restrict ys, double w, double l1, double l2, int64_t n,
                     double *restrict s, double *dec)
{
    *dec = 0;
    double g = 0, h = 0;
    for (int64_t k = 0; k < len; k++) {
        int64_t i = ri ? ri[k] : k;
        double x = v ? v[k] : 1, mi = dm ? m[i] + dm[i] : m[i];
        double si = sigmoid(-ys[i] * mi); /* the probability of the wrong label */
        s[k] = si;
        g -= ys[i] * si * x;
        h += si * (1 - si) * x * x;
    }
    double nn = (double)n;
    g = g / nn + l2 * w;
    h = h / nn + l2;
    if (!(h > 1e-12))
        h = 1e-12; /* a column whose rows are all certain: a cautious step */
    double d = direction(g, h, w, l1);
    if (d == 0 || !isfinite(d))
        return 0;
    double base = g * d + l1 * (fabs(w + d) - fabs(w));
    if (!(base < 0))
        return 0; /* no descent left in rounding */
    double a = 1;
    for (int it = 0; it < LCD_LS_MAX; it++, a *= 0.5) {
        double ad = a * d, loss = 0;
        for (int64_t k = 0; k < len; k++) {
            int64_t i = ri ? ri[k] : k;
            double x = v ? v[k] : 1;
            loss += log1p(s[k] * expm1(-ys[i] * ad * x));
        }
        double nw = w + ad;
        double df = loss / nn + l1 * (fabs(nw) - fabs(w)) + 0.5 * l2 * (nw * nw - w * w);
        if (df <= LCD_SIGMA * a * base) {
            *dec = -df;
            return ad;
        }
    }
    return 0;
}

double lcd_step(const struct ptm_csc *x, int64_t j, const double *m, const double *dm,
                const double *ys, double wj, const struct lcd_pen *p, double *s, double *dec)
{
    int64_t at = x->colptr[j], len = x->colptr[j + 1] - at;
    if (len == 0) { /* only the penalty: its minimizer */
        double old = 0.5 * p->l2 * wj * wj + p->l1 * fabs(wj);
        *dec = p->l2 > 0 || p->l1 > 0 ? old : 0;
        return p->l2 > 0 || p->l1 > 0 ? 0 : wj;
    }
    double d = newton(x->rowind + at, x->val + at, len, m, dm, ys, wj, p->l1, p->l2, p->n, s, dec);
    return wj + d;
}

/* The probability of the wrong label from q = y exp(-y m), for any |q|
 * in [0, inf]: one division (q / (1 + q) rounds to 1 long before q
 * overflows; only inf itself would give inf / inf). */
static inline double wrong(double q)
{
    q = fabs(q);
    return q < HUGE_VAL ? q / (1 + q) : 1;
}

double lcd_step_own(const struct ptm_csc *x, int64_t j, double *m, double *q, double wj,
                    const struct lcd_pen *p, double *s, double *dec)
{
    int64_t at = x->colptr[j], len = x->colptr[j + 1] - at;
    if (len == 0)
        return lcd_step(x, j, m, NULL, NULL, wj, p, s, dec);
    const int32_t *restrict ri = x->rowind + at;
    const double *restrict v = x->val + at;
    double *restrict u = s + len;
    *dec = 0;
    double g = 0, h = 0, nn = (double)p->n;
    for (int64_t k = 0; k < len; k++) {
        double qi = q[ri[k]], si = wrong(qi), xv = v[k];
        s[k] = copysign(si, qi); /* y s: the label is q's sign */
        g -= s[k] * xv;
        h += si * (1 - si) * xv * xv;
    }
    g = g / nn + p->l2 * wj;
    h = h / nn + p->l2;
    if (!(h > 1e-12))
        h = 1e-12;
    double d = direction(g, h, wj, p->l1);
    if (d == 0 || !isfinite(d))
        return wj;
    double base = g * d + p->l1 * (fabs(wj + d) - fabs(wj));
    if (!(base < 0))
        return wj;
    double a = 1;
    for (int it = 0; it < LCD_LS_MAX; it++, a *= 0.5) {
        double ad = a * d, loss = 0;
        for (int64_t k = 0; k < len; k++) {
            u[k] = expm1(-copysign(1.0, s[k]) * ad * v[k]);
            loss += log1p(fabs(s[k]) * u[k]);
        }
        double nw = wj + ad;
        double df = loss / nn + p->l1 * (fabs(nw) - fabs(wj)) + 0.5 * p->l2 * (nw * nw - wj * wj);
        if (df <= LCD_SIGMA * a * base) {
            *dec = -df;
            for (int64_t k = 0; k < len; k++) {
                int32_t i = ri[k];
                m[i] += ad * v[k];
                q[i] *= 1 + u[k];
            }
            return nw;
        }
    }
    return wj;
}

int lcd_block_init(struct lcd_block *b, int64_t nrows, int64_t ncoords)
{
    memset(b, 0, sizeof(*b));
    size_t n = (size_t)(nrows > 0 ? nrows : 1), c = (size_t)(ncoords > 0 ? ncoords : 1);
    b->rd = ptm_malloc(2 * n * sizeof(double));
    b->sv = ptm_malloc(n * sizeof(double));
    b->g = ptm_malloc(c * sizeof(double));
    b->h = ptm_malloc(c * sizeof(double));
    b->live = ptm_malloc(c * sizeof(size_t));
    b->inner = 1;
    b->nrows = nrows > 0 ? nrows : 0;
    if (!b->rd || !b->sv || !b->g || !b->h || !b->live)
        return PTM_ENOMEM;
    memset(b->rd, 0, 2 * n * sizeof(double));
    return 0;
}

void lcd_block_release(struct lcd_block *b)
{
    ptm_free(b->rd);
    ptm_free(b->sv);
    ptm_free(b->g);
    ptm_free(b->h);
    ptm_free(b->live);
    memset(b, 0, sizeof(*b));
}

double lcd_block_step(struct lcd_block *b, const struct ptm_csc *x, const int64_t *js, size_t nj,
                      const double *w, double *out, double *m, double *q, const double *ys,
                      const struct lcd_pen *p)
{
    const int32_t *restrict ri = x->rowind;
    const double *restrict xv = x->val;
    double *restrict rd = b->rd, *restrict sv = b->sv;
    const double *restrict y = ys;
    double nn = (double)p->n;
    int64_t nrows = b->nrows;
    /* every row's s and D, from q (a division a row, not a non-zero) */
    for (int64_t i = 0; i < nrows; i++) {
        double si = wrong(q[i]);
        sv[i] = copysign(si, q[i]);
        rd[2 * i + 1] = si * (1 - si);
    }
    /* G and the curvature; the coordinates that can move at u = 0 are
     * those not at 0 and those whose |G| is above l1 (the others are left
     * for a later block, as liblinear's shrinking leaves them) */
    size_t nlive = 0;
    for (size_t k = 0; k < nj; k++) {
        int64_t j = js[k];
        double g = 0, h = 0;
        for (int64_t e = x->colptr[j]; e < x->colptr[j + 1]; e++) {
            int32_t i = ri[e];
            double xe = xv[e];
            g -= sv[i] * xe;
            h += rd[2 * (int64_t)i + 1] * xe * xe;
        }
        b->g[k] = g / nn + p->l2 * w[j];
        h = h / nn + p->l2;
        b->h[k] = h > 1e-12 ? h : 1e-12; /* a column whose rows are all certain */
        out[k] = w[j];
        if (w[j] != 0 || fabs(b->g[k]) > p->l1)
            b->live[nlive++] = k;
    }
    /* coordinate descent on the model: out[k] = w_j + u_j, r = X_J u. A
     * coordinate's violation is |z| h, its step's size in Q's metric;
     * after a pass, the coordinates at 0 that did not move are left out. */
    int pass = 0;
    bool moved = false; /* r is not 0 */
    while (pass < LCD_INNER_MAX && nlive > 0) {
        double most = 0;
        size_t keep = 0;
        for (size_t t = 0; t < nlive; t++) {
            size_t k = b->live[t];
            int64_t j = js[k], lo = x->colptr[j], hi = x->colptr[j + 1];
            double gq = 0;
            for (int64_t e = lo; moved && e < hi; e++) {
                const double *c = rd + 2 * (int64_t)ri[e];
                gq += c[1] * xv[e] * c[0];
            }
            double h = b->h[k], u = out[k] - w[j];
            double z = direction(b->g[k] + gq / nn + p->l2 * u, h, out[k], p->l1);
            if (z != 0 && isfinite(z)) {
                out[k] += z;
                for (int64_t e = lo; e < hi; e++)
                    rd[2 * (int64_t)ri[e]] += z * xv[e];
                moved = true;
                most = fmax(most, fabs(z) * h);
            } else {
                z = 0;
            }
            if (out[k] != 0 || z != 0)
                b->live[keep++] = k;
        }
        nlive = keep;
        pass++;
        if (!(b->vmax0 > 0))
            b->vmax0 = most;
        if (!(most > b->inner * b->vmax0))
            break;
    }
    if (pass == 1)
        b->inner *= 0.25; /* one pass met the tolerance: a tighter one next */
    /* the line search along u on F, over the rows u moves (r != 0); the
     * accepted trial's expm1 is kept in D's place (no longer needed) to
     * move q */
    double base = 0, l1 = 0, sq = 0;
    for (size_t k = 0; k < nj; k++) {
        double wj = w[js[k]];
        base += b->g[k] * (out[k] - wj);
        l1 += fabs(out[k]) - fabs(wj);
    }
    base += p->l1 * l1;
    double t = 0;
    if (base < 0 && moved) {
        double a = 1;
        for (int it = 0; it < LCD_LS_MAX; it++, a *= 0.5) {
            double loss = 0;
            l1 = sq = 0;
            for (size_t k = 0; k < nj; k++) {
                double wj = w[js[k]], nw = wj + a * (out[k] - wj);
                l1 += fabs(nw) - fabs(wj);
                sq += nw * nw - wj * wj;
            }
            for (int64_t i = 0; i < nrows; i++) {
                double r = rd[2 * i];
                if (r == 0)
                    continue;
                double u = expm1(-y[i] * a * r);
                rd[2 * i + 1] = u;
                loss += log1p(y[i] * sv[i] * u); /* y s y = s */
            }
            double df = loss / nn + p->l1 * l1 + 0.5 * p->l2 * sq;
            if (df <= LCD_SIGMA * a * base) {
                t = a;
                break;
            }
        }
    }
    for (int64_t i = 0; moved && i < nrows; i++) {
        double *c = rd + 2 * i;
        if (c[0] == 0)
            continue;
        if (t > 0) {
            m[i] += t * c[0];
            q[i] *= 1 + c[1];
        }
        c[0] = 0;
    }
    for (size_t k = 0; k < nj; k++) {
        double wj = w[js[k]];
        out[k] = t > 0 ? wj + t * (out[k] - wj) : wj;
    }
    return t;
}

void lcd_exps(int64_t nrows, const double *m, const double *ys, double *q)
{
    for (int64_t i = 0; i < nrows; i++)
        q[i] = ys[i] * exp(-ys[i] * m[i]);
}

double lcd_bias_step(int64_t nrows, const double *m, const double *ys, int64_t n, double *s)
{
    double dec;
    return newton(NULL, NULL, nrows, m, NULL, ys, 0, 0, 0, n, s, &dec);
}

double lcd_bias_step_own(int64_t nrows, double *m, double *q, int64_t n, double *s)
{
    double g = 0, h = 0, nn = (double)n;
    for (int64_t i = 0; i < nrows; i++) {
        double si = wrong(q[i]);
        s[i] = copysign(si, q[i]); /* y s: the label is q's sign */
        g -= s[i];
        h += si * (1 - si);
    }
    g /= nn;
    h /= nn;
    if (!(h > 1e-12))
        h = 1e-12;
    double d = -g / h;
    if (d == 0 || !isfinite(d))
        return 0;
    double base = g * d, a = 1;
    for (int it = 0; it < LCD_LS_MAX; it++, a *= 0.5) {
        /* exp(-y ad) - 1 for the two labels */
        double ad = a * d, up = expm1(-ad), un = expm1(ad), loss = 0;
        for (int64_t i = 0; i < nrows; i++)
            loss += log1p(fabs(s[i]) * (s[i] >= 0 ? up : un));
        if (loss / nn <= LCD_SIGMA * a * base) {
            for (int64_t i = 0; i < nrows; i++) {
                m[i] += ad;
                q[i] *= 1 + (q[i] >= 0 ? up : un);
            }
            return ad;
        }
    }
    return 0;
}

void lcd_col_axpy(const struct ptm_csc *x, int64_t j, double d, double *m)
{
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    for (int64_t e = x->colptr[j]; e < x->colptr[j + 1]; e++)
        m[ri[e]] += d * v[e];
}

void lcd_margins(const struct ptm_csr *x, const double *w, double b, double *m)
{
    for (int64_t i = 0; i < x->nrows; i++) {
        double s = b;
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            s += x->val[e] * w[x->colind[e]];
        m[i] = s;
    }
}
