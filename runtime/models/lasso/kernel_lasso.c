/*
 * kernel_lasso.c - the Lasso by coordinate descent, as push, pull and apply
 * over row shards (kernel_lasso.h), and a serial reference solver.
 *
 * DESIGN: push and apply are the hot loops, one pass over a column's
 * non-zeros each: a gather-dot with r and a scatter-axpy into r. The dot
 * keeps four partial sums so that the additions do not wait on each other;
 * every x_j^T r in this file (push, the gradient, the serial solver) goes
 * through the same col_dot(), so that lasso_lambda_max() computed from
 * lasso_grad_part() is exact for what the pushes and the serial solver see
 * at beta = 0.
 */
#include "kernel_lasso.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

/* Columns a round visits are scattered over the matrix: ask for the
 * entries of the column PREFETCH_AHEAD places ahead while this one is
 * computed, so that its cache misses overlap the work. */
#define PREFETCH_AHEAD 8
/* and the column's bounds (colptr), squared norm and coefficient further
 * ahead, so that PREFETCH_COL finds its bounds in the cache */
#define PREFETCH_PTR_AHEAD 16

/* A macro: gcc drops the prefetches of an inline function that does
 * nothing else. */
#define PREFETCH_COL(x, j)                                                                         \
    do {                                                                                           \
        int64_t lo_ = (x)->colptr[j], hi_ = (x)->colptr[(j) + 1];                                  \
        if (lo_ < hi_) {                                                                           \
            __builtin_prefetch((x)->rowind + lo_);                                                 \
            __builtin_prefetch((x)->val + lo_);                                                    \
            __builtin_prefetch((x)->rowind + hi_ - 1);                                             \
            __builtin_prefetch((x)->val + hi_ - 1);                                                \
        }                                                                                          \
    } while (0)

/* sum over k < len of v[k] r[ri[k]] */
static inline double col_dot(const int32_t *restrict ri, const double *restrict v, int64_t len,
                             const double *restrict r)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += v[k] * r[ri[k]];
        s1 += v[k + 1] * r[ri[k + 1]];
        s2 += v[k + 2] * r[ri[k + 2]];
        s3 += v[k + 3] * r[ri[k + 3]];
    }
    for (; k < len; k++)
        s0 += v[k] * r[ri[k]];
    return (s0 + s1) + (s2 + s3);
}

/* r[ri[k]] -= a v[k]; the rows of a column are distinct. */
static inline void col_axpy(const int32_t *restrict ri, const double *restrict v, int64_t len,
                            double a, double *restrict r)
{
    for (int64_t k = 0; k < len; k++)
        r[ri[k]] -= a * v[k];
}

static inline double soft_threshold(double z, double t)
{
    if (z > t)
        return z - t;
    if (z < -t)
        return z + t;
    return 0;
}

void lasso_colsq(const struct ptm_csc *x, double *sq) { lasso_colsums(x, sq, NULL); }

void lasso_colsums(const struct ptm_csc *x, double *sq, double *sum)
{
    ptm_csc_colsums(x, 1, sq, sum);
}

void lasso_residual(const struct ptm_csc *x, const double *y, const double *beta, double *r)
{
    memcpy(r, y, (size_t)x->nrows * sizeof(*r));
    for (int64_t j = 0; j < x->ncols; j++)
        if (beta[j] != 0) {
            int64_t at = x->colptr[j];
            col_axpy(x->rowind + at, x->val + at, x->colptr[j + 1] - at, beta[j], r);
        }
}

void lasso_push(const struct ptm_csc *x, const double *sq, const double *r, const double *beta,
                const int64_t *cols, size_t ns, double *z)
{
    const int64_t *restrict cp = x->colptr;
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    for (size_t k = 0; k < ns; k++) {
        if (k + PREFETCH_PTR_AHEAD < ns) {
            __builtin_prefetch(cp + cols[k + PREFETCH_PTR_AHEAD]);
            __builtin_prefetch(sq + cols[k + PREFETCH_PTR_AHEAD]);
            __builtin_prefetch(beta + cols[k + PREFETCH_PTR_AHEAD]);
        }
        if (k + PREFETCH_AHEAD < ns)
            PREFETCH_COL(x, cols[k + PREFETCH_AHEAD]);
        int64_t j = cols[k];
        int64_t at = cp[j];
        z[LASSO_K * k] = col_dot(ri + at, v + at, cp[j + 1] - at, r) + sq[j] * beta[j];
        z[LASSO_K * k + 1] = sq[j];
    }
}

void lasso_pull(const double *z, size_t ns, int64_t n, double lambda, double *beta_new)
{
    double t = (double)n * lambda;
    for (size_t k = 0; k < ns; k++) {
        double s = z[LASSO_K * k + 1];
        beta_new[k] = s > 0 ? soft_threshold(z[LASSO_K * k], t) / s : 0;
    }
}

/* The derivative (from the right) of f(beta + t delta) - f(beta) in t:
 * (a t - b) / n + lambda sum_k delta_k sign(beta_j + t delta_k). */
static double step_slope(double t, double a, double b, const double *beta, const int64_t *cols,
                         const double *delta, size_t ns, double n, double lambda)
{
    double s = 0;
    for (size_t k = 0; k < ns; k++) {
        double v = beta[cols[k]] + t * delta[k];
        s += v > 0 || (v == 0 && delta[k] > 0) ? delta[k] : -delta[k];
    }
    return (a * t - b) / n + lambda * s;
}

/* The first of a column's entries e0 .. e1-1 whose row is at least lo. */
static int64_t first_row_at(const int32_t *ri, int64_t e0, int64_t e1, int64_t lo)
{
    while (e0 < e1) {
        int64_t mid = e0 + (e1 - e0) / 2;
        if (ri[mid] < lo)
            e0 = mid + 1;
        else
            e1 = mid;
    }
    return e0;
}

void lasso_scatter_rows(const struct ptm_csc *x, const int64_t *cols, const double *delta,
                        size_t ns, int64_t lo, int64_t hi, const int32_t *first,
                        const int32_t *end, double *xd, unsigned char *mark, int32_t *rows,
                        size_t *nr)
{
    const int64_t *restrict cp = x->colptr;
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    size_t m = *nr;
    for (size_t k = 0; k < ns; k++) {
        double d = delta[k];
        if (d == 0)
            continue;
        int64_t j = cols[k], e0 = cp[j], e1 = cp[j + 1];
        int64_t e = first ? e0 + first[j] : lo <= 0 ? e0 : first_row_at(ri, e0, e1, lo);
        if (end)
            e1 = e0 + end[j];
        for (; e < e1 && ri[e] < hi; e++) {
            int32_t i = ri[e];
            if (!mark[i]) {
                mark[i] = 1;
                rows[m++] = i;
            }
            xd[i] += v[e] * d;
        }
    }
    *nr = m;
}

void lasso_row_cut(const struct ptm_csc *x, int64_t lo, int32_t *cut)
{
    for (int64_t j = 0; j < x->ncols; j++)
        cut[j] = (int32_t)(first_row_at(x->rowind, x->colptr[j], x->colptr[j + 1], lo) -
                           x->colptr[j]);
}

void lasso_scatter_apply(double *xd, unsigned char *mark, const int32_t *rows, size_t *nr,
                         double t, double *r)
{
    for (size_t q = 0; q < *nr; q++) {
        int32_t i = rows[q];
        r[i] -= t * xd[i];
        xd[i] = 0;
        mark[i] = 0;
    }
    *nr = 0;
}

double lasso_step(double a, double b, const double *beta, const int64_t *cols,
                  const double *delta, size_t ns, int64_t n, double lambda, double *rise)
{
    double l1 = 0, size = 0;
    for (size_t k = 0; k < ns; k++) {
        double old = fabs(beta[cols[k]]), now = fabs(beta[cols[k]] + delta[k]);
        l1 += now - old;
        size += now + old;
    }
    double nn = (double)n;
    *rise = (a - 2 * b) / (2 * nn) + lambda * l1;
    /* a rise within the rounding of its terms is none (a round that
     * changed next to nothing) */
    double noise = 8 * DBL_EPSILON * ((a + 2 * fabs(b)) / (2 * nn) + lambda * size);
    if (!(*rise > noise))
        return 1;
    double lo = 0, hi = 1;
    for (int it = 0; it < 60 && hi - lo > 1e-15; it++) {
        double mid = 0.5 * (lo + hi);
        if (step_slope(mid, a, b, beta, cols, delta, ns, nn, lambda) < 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo > 0 ? lo : hi;
}

/* lasso_push_seq and lasso_push_seq_b, for b none (B_NONE), where it is
 * (B_FIXED) or following the steps (B_FOLLOWS): a constant, so that each
 * caller gets its own loop. */
enum { B_NONE, B_FIXED, B_FOLLOWS };

static inline double push_seq(const struct ptm_csc *x, const double *sq, double *r,
                              const double *beta, const int64_t *cols, size_t ns, int64_t n,
                              double lambda, double *beta_new, const struct lasso_icpt *ic,
                              double *off, int how)
{
    const int64_t *restrict cp = x->colptr;
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    double t = (double)n * lambda, fit = 0, pen = 0, o = how != B_NONE ? *off : 0;
    for (size_t k = 0; k < ns; k++) {
        if (k + PREFETCH_AHEAD < ns)
            PREFETCH_COL(x, cols[k + PREFETCH_AHEAD]);
        int64_t j = cols[k], at = cp[j], len = cp[j + 1] - at;
        double s = how == B_FOLLOWS ? ic->sqc[j] : sq[j], old = beta[j];
        double xr = col_dot(ri + at, v + at, len, r);
        if (how != B_NONE)
            xr -= o * ic->csum[j];
        double z = xr + s * old, b = s > 0 ? soft_threshold(z, t) / s : 0, d = b - old;
        beta_new[k] = b;
        if (d != 0) {
            col_axpy(ri + at, v + at, len, d, r);
            if (how == B_FOLLOWS)
                o -= d * ic->csum[j] / (double)n;
            fit += d * (2 * xr - d * s);
            pen += fabs(b) - fabs(old);
        }
    }
    if (how != B_NONE)
        *off = o;
    return fit / (2.0 * (double)n) - lambda * pen;
}

double lasso_centred(double sq, double csum, int64_t n)
{
    double c = sq - csum * (csum / (double)n);
    return c > 1e-12 * sq ? c : 0;
}

double lasso_push_seq(const struct ptm_csc *x, const double *sq, double *r, const double *beta,
                      const int64_t *cols, size_t ns, int64_t n, double lambda, double *beta_new)
{
    return push_seq(x, sq, r, beta, cols, ns, n, lambda, beta_new, NULL, NULL, B_NONE);
}

double lasso_push_seq_b(const struct ptm_csc *x, const double *sq, double *r, const double *beta,
                        const int64_t *cols, size_t ns, int64_t n, double lambda, double *beta_new,
                        const struct lasso_icpt *ic, double *off)
{
    if (ic->sqc)
        return push_seq(x, sq, r, beta, cols, ns, n, lambda, beta_new, ic, off, B_FOLLOWS);
    return push_seq(x, sq, r, beta, cols, ns, n, lambda, beta_new, ic, off, B_FIXED);
}

void lasso_apply(const struct ptm_csc *x, const int64_t *cols, const double *delta, size_t ns,
                 double *r)
{
    const int64_t *restrict cp = x->colptr;
    for (size_t k = 0; k < ns; k++) {
        if (delta[k] == 0)
            continue;
        int64_t at = cp[cols[k]];
        col_axpy(x->rowind + at, x->val + at, cp[cols[k] + 1] - at, delta[k], r);
    }
}

double lasso_loss_part(const double *r, int64_t m, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < m; i++)
        s += r[i] * r[i];
    return s / (2.0 * (double)n);
}

double lasso_loss_part_off(const double *r, int64_t m, int64_t n, double off)
{
    if (off == 0)
        return lasso_loss_part(r, m, n);
    double s = 0;
    for (int64_t i = 0; i < m; i++)
        s += (r[i] - off) * (r[i] - off);
    return s / (2.0 * (double)n);
}

double lasso_penalty(const double *beta, int64_t d, double lambda)
{
    double s = 0;
    for (int64_t j = 0; j < d; j++)
        s += fabs(beta[j]);
    return lambda * s;
}

void lasso_grad_part(const struct ptm_csc *x, const double *r, double *g)
{
    for (int64_t j = 0; j < x->ncols; j++) {
        int64_t at = x->colptr[j];
        g[j] = col_dot(x->rowind + at, x->val + at, x->colptr[j + 1] - at, r);
    }
}

double lasso_kkt(const double *g, const double *beta, int64_t d, int64_t n, double lambda,
                 int64_t *worst)
{
    double most = 0;
    int64_t at = d > 0 ? 0 : -1;
    for (int64_t j = 0; j < d; j++) {
        double gj = g[j] / (double)n, v;
        if (beta[j] == 0)
            v = fmax(0, fabs(gj) - lambda);
        else
            v = fabs(gj - (beta[j] > 0 ? lambda : -lambda));
        if (v > most) {
            most = v;
            at = j;
        }
    }
    if (worst)
        *worst = at;
    return most;
}

double lasso_lambda_max(const double *g, int64_t d, int64_t n)
{
    double gmax = 0;
    for (int64_t j = 0; j < d; j++)
        gmax = fmax(gmax, fabs(g[j]));
    double nn = (double)n, lam = gmax / nn;
    while (nn * lam < gmax)
        lam = nextafter(lam, HUGE_VAL);
    while (lam > 0 && nn * nextafter(lam, 0) >= gmax)
        lam = nextafter(lam, 0);
    return lam;
}

int lasso_solve_serial(const struct ptm_csc *x, const double *y, double lambda, double tol,
                       int max_sweeps, double *beta_out)
{
    if (!isfinite(lambda) || lambda < 0 || !isfinite(tol) || tol < 0)
        return PTM_EINVAL;
    int64_t n = x->nrows, d = x->ncols;
    double *r = ptm_malloc((size_t)(n > 0 ? n : 1) * sizeof(*r));
    double *sq = ptm_malloc((size_t)(d > 0 ? d : 1) * sizeof(*sq));
    if (!r || !sq) {
        ptm_free(r);
        ptm_free(sq);
        return PTM_ENOMEM;
    }
    memcpy(r, y, (size_t)n * sizeof(*r));
    memset(beta_out, 0, (size_t)d * sizeof(*beta_out));
    lasso_colsq(x, sq);
    double t = (double)n * lambda, rootn = sqrt((double)(n > 0 ? n : 1));
    const int64_t *restrict cp = x->colptr;
    const int32_t *restrict ri = x->rowind;
    const double *restrict v = x->val;
    double *restrict beta = beta_out;
    int result = 0;
    for (int sweep = 1; sweep <= max_sweeps; sweep++) {
        double most = 0;
        for (int64_t j = 0; j < d; j++) {
            if (sq[j] == 0)
                continue;
            int64_t at = cp[j], len = cp[j + 1] - at;
            double old = beta[j];
            double z = col_dot(ri + at, v + at, len, r) + sq[j] * old;
            double b = soft_threshold(z, t) / sq[j];
            double delta = b - old;
            if (delta != 0) {
                col_axpy(ri + at, v + at, len, delta, r);
                beta[j] = b;
                most = fmax(most, fabs(delta) * sqrt(sq[j]) / rootn);
            }
        }
        if (most <= tol) {
            result = sweep;
            break;
        }
    }
    ptm_free(r);
    ptm_free(sq);
    return result;
}
