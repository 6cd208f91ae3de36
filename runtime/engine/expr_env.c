/*
 * expr_env.c - the data callbacks of expression evaluation.
 *
 * corr() and cos() of two sparse columns merge their row lists once: with
 * n rows, cov = (sum ab - sum a sum b / n) / n and cos = sum ab /
 * sqrt(sum a^2 sum b^2), and the column sums and sums of squares are
 * computed once per data set, so either costs the non-zeros of the two
 * columns, not n. The dependency graph (depgraph.c) computes the same
 * values from the same sums in the same order.
 *
 * An index out of range gives NaN, and the first one is recorded (struct
 * expr_fault, with a compare-and-swap: evaluations may run on several
 * threads) for the engine to report with the expression it came from.
 */
#include "expr_env.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"

static void release_stats(struct expr_data *d)
{
    for (uint32_t k = 0; k < d->nsrc; k++) {
        if (d->colsum)
            ptm_free(d->colsum[k]);
        if (d->colsumsq)
            ptm_free(d->colsumsq[k]);
    }
    ptm_free(d->colsum);
    ptm_free(d->colsumsq);
    d->colsum = d->colsumsq = NULL;
}

void expr_data_release(struct expr_data *d) { release_stats(d); }

int expr_data_init(struct expr_data *d, const struct expr_source *src, uint32_t nsrc)
{
    memset(d, 0, sizeof(*d));
    d->src = src;
    d->nsrc = nsrc;
    if (nsrc == 0)
        return 0;
    d->colsum = ptm_malloc(nsrc * sizeof(*d->colsum));
    d->colsumsq = ptm_malloc(nsrc * sizeof(*d->colsumsq));
    /* zeroed before release_stats() can see them */
    if (d->colsum)
        memset(d->colsum, 0, nsrc * sizeof(*d->colsum));
    if (d->colsumsq)
        memset(d->colsumsq, 0, nsrc * sizeof(*d->colsumsq));
    if (!d->colsum || !d->colsumsq)
        goto out_oom;
    for (uint32_t k = 0; k < nsrc; k++) {
        struct ptm_dataset *ds = src[k].ds;
        int64_t len;
        const double *v = expr_vector(d, (int32_t)k, &len);
        if (v && !src[k].no_stats) { /* a vector's sum and sum of squares */
            d->colsum[k] = ptm_malloc(sizeof(double));
            d->colsumsq[k] = ptm_malloc(sizeof(double));
            if (!d->colsum[k] || !d->colsumsq[k])
                goto out_oom;
            double s = 0, q = 0;
            for (int64_t i = 0; i < len; i++) {
                s += v[i];
                q += v[i] * v[i];
            }
            d->colsum[k][0] = s;
            d->colsumsq[k][0] = q;
            continue;
        }
        if (!ds || src[k].labels_of >= 0 || !ds->sparse)
            continue;
        const struct ptm_csc *c;
        int rc = ptm_dataset_csc(ds, &c);
        if (rc != 0)
            goto out_oom;
        if (src[k].no_stats)
            continue;
        size_t n = (size_t)c->ncols;
        d->colsum[k] = ptm_malloc((n ? n : 1) * sizeof(double));
        d->colsumsq[k] = ptm_malloc((n ? n : 1) * sizeof(double));
        if (!d->colsum[k] || !d->colsumsq[k])
            goto out_oom;
        for (int64_t j = 0; j < c->ncols; j++) {
            double s = 0, q = 0;
            for (int64_t e = c->colptr[j]; e < c->colptr[j + 1]; e++) {
                s += c->val[e];
                q += c->val[e] * c->val[e];
            }
            d->colsum[k][j] = s;
            d->colsumsq[k][j] = q;
        }
    }
    return 0;
out_oom:
    release_stats(d);
    return PTM_ENOMEM;
}

/* Column i of a times column j of b, their row lists merged in row order
 * (the order depgraph.c adds the same products in). */
static double dot(const struct ptm_csc *a, int64_t i, const struct ptm_csc *b, int64_t j)
{
    int64_t p = a->colptr[i], pe = a->colptr[i + 1];
    int64_t q = b->colptr[j], qe = b->colptr[j + 1];
    double ab = 0;
    while (p < pe && q < qe) {
        int32_t ra = a->rowind[p], rb = b->rowind[q];
        if (ra == rb)
            ab += a->val[p++] * b->val[q++];
        else if (ra < rb)
            p++;
        else
            q++;
    }
    return ab;
}

const double *expr_vector(const struct expr_data *d, int32_t k, int64_t *len)
{
    const struct expr_source *s = &d->src[k];
    if (s->labels_of >= 0) {
        const struct ptm_dataset *of = d->src[s->labels_of].ds;
        if (!of)
            return NULL;
        *len = of->labels.n;
        return of->labels.val;
    }
    const struct ptm_dataset *ds = s->ds;
    if (!ds || ds->sparse || ds->dense.ncols != 1)
        return NULL;
    *len = ds->dense.nrows;
    return ds->dense.val;
}

/* Column i of a times the vector v (as long as a's columns). */
static double dot_vec(const struct ptm_csc *a, int64_t i, const double *v)
{
    double ab = 0;
    for (int64_t p = a->colptr[i]; p < a->colptr[i + 1]; p++)
        ab += a->val[p] * v[a->rowind[p]];
    return ab;
}

double expr_corr(const struct ptm_csc *a, const double *sum_a, const double *sumsq_a, int64_t i,
                 const struct ptm_csc *b, const double *sum_b, const double *sumsq_b, int64_t j)
{
    if (a->nrows != b->nrows || a->nrows == 0)
        return NAN;
    return expr_corr_of(dot(a, i, b, j), (double)a->nrows, sum_a[i], sumsq_a[i], sum_b[j],
                        sumsq_b[j]);
}

double expr_corr_of(double ab, double n, double sa, double qa, double sb, double qb)
{
    double cov = ab - sa * sb / n;
    double va = qa - sa * sa / n;
    double vb = qb - sb * sb / n;
    if (!(va > 0) || !(vb > 0))
        return NAN; /* a constant column has no correlation */
    double r = cov / sqrt(va * vb);
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

double expr_cos_of(double ab, double qa, double qb)
{
    if (!(qa > 0) || !(qb > 0))
        return NAN; /* a column of zeros has no direction */
    double c = ab / sqrt(qa * qb);
    return c > 1 ? 1 : c < -1 ? -1 : c;
}

double expr_cos(const struct ptm_csc *a, const double *sumsq_a, int64_t i,
                const struct ptm_csc *b, const double *sumsq_b, int64_t j)
{
    if (a->nrows != b->nrows)
        return NAN;
    return expr_cos_of(dot(a, i, b, j), sumsq_a[i], sumsq_b[j]);
}

/* ---- callbacks ----------------------------------------------------------- */

void expr_fault_record(struct expr_data *d, enum expr_fault_kind kind, int32_t src, int axis,
                       int64_t index, int64_t range)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&d->fault.state, &none, 1))
        return;
    d->fault.kind = kind;
    d->fault.src = src;
    d->fault.axis = axis;
    d->fault.index = index;
    d->fault.range = range;
    atomic_store(&d->fault.state, 2);
}

void expr_fault_record_again(struct expr_data *d, const struct expr_fault *f)
{
    atomic_store(&d->fault.state, 0);
    expr_fault_record(d, f->kind, f->src, f->axis, f->index, f->range);
}

const struct expr_fault *expr_fault_get(const struct expr_data *d)
{
    return atomic_load(&((struct expr_data *)d)->fault.state) == 2 ? &d->fault : NULL;
}

/* A 1-based index in [1, n] as 0-based, or -1. */
static int64_t index0(int64_t k, int64_t n) { return k >= 1 && k <= n ? k - 1 : -1; }

/* The same, recording a bad one. */
static int64_t checked(struct expr_data *d, enum expr_fault_kind kind, int32_t src, int64_t k,
                       int64_t n)
{
    int64_t i = index0(k, n);
    if (i < 0)
        expr_fault_record(d, kind, src, 0, k, n);
    return i;
}

static const struct ptm_csc *csc_of(const struct expr_data *d, int32_t k)
{
    const struct ptm_dataset *ds = d->src[k].ds;
    return ds && ds->sparse && d->src[k].labels_of < 0 ? ds->csc : NULL;
}

static double cb_dim(void *ud, int32_t k, int axis)
{
    const struct expr_data *d = ud;
    const struct expr_source *s = &d->src[k];
    if (s->labels_of >= 0) { /* a vector: its length, and one column */
        const struct ptm_dataset *of = d->src[s->labels_of].ds;
        return axis == 0 ? (of ? (double)of->labels.n : NAN) : 1;
    }
    if (!s->ds)
        return NAN;
    return (double)(axis == 0 ? ptm_dataset_rows(s->ds) : ptm_dataset_cols(s->ds));
}

static double cb_nnz(void *ud, int32_t k, int axis, int64_t idx)
{
    struct expr_data *d = ud;
    const struct ptm_dataset *ds = d->src[k].ds;
    if (!ds || d->src[k].labels_of >= 0)
        return NAN;
    if (ds->sparse) {
        if (axis == 1) {
            const struct ptm_csc *c = csc_of(d, k);
            int64_t j = c ? checked(d, EXPR_FAULT_COL, k, idx, c->ncols) : -1;
            return j < 0 ? NAN : (double)(c->colptr[j + 1] - c->colptr[j]);
        }
        int64_t i = checked(d, EXPR_FAULT_ROW, k, idx, ds->csr.nrows);
        return i < 0 ? NAN : (double)(ds->csr.rowptr[i + 1] - ds->csr.rowptr[i]);
    }
    /* Dense: count the non-zeros of the row or column. */
    const struct ptm_dense *m = &ds->dense;
    int64_t n = 0;
    if (axis == 1) {
        int64_t j = checked(d, EXPR_FAULT_COL, k, idx, m->ncols);
        if (j < 0)
            return NAN;
        for (int64_t i = 0; i < m->nrows; i++)
            n += m->val[i * m->ncols + j] != 0;
    } else {
        int64_t i = checked(d, EXPR_FAULT_ROW, k, idx, m->nrows);
        if (i < 0)
            return NAN;
        for (int64_t j = 0; j < m->ncols; j++)
            n += m->val[i * m->ncols + j] != 0;
    }
    return (double)n;
}

static double cb_data(void *ud, int32_t k, const int64_t *idx, int n)
{
    struct expr_data *d = ud;
    const struct expr_source *s = &d->src[k];
    if (s->labels_of >= 0) {
        const struct ptm_dataset *of = d->src[s->labels_of].ds;
        int64_t i = of && n == 1 ? checked(d, EXPR_FAULT_LABEL, k, idx[0], of->labels.n) : -1;
        return i < 0 ? NAN : of->labels.val[i];
    }
    const struct ptm_dataset *ds = s->ds;
    if (!ds || n != 2)
        return NAN;
    int64_t i = checked(d, EXPR_FAULT_ROW, k, idx[0], ptm_dataset_rows(ds));
    int64_t j = i < 0 ? -1 : checked(d, EXPR_FAULT_COL, k, idx[1], ptm_dataset_cols(ds));
    if (i < 0 || j < 0)
        return NAN;
    if (!ds->sparse)
        return ds->dense.val[i * ds->dense.ncols + j];
    /* Binary search of the row's sorted columns. */
    int64_t lo = ds->csr.rowptr[i], hi = ds->csr.rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ds->csr.colind[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ds->csr.rowptr[i + 1] && ds->csr.colind[lo] == j ? ds->csr.val[lo] : 0;
}

/* One argument of corr() or cos(): column i (1-based) of a sparse matrix,
 * or a vector (i is then 1); its sum and sum of squares. False (NaN) when
 * the data is absent or i is out of range (recorded). */
struct operand {
    const struct ptm_csc *c; /* a column of c, or */
    const double *v;         /* the vector v */
    int64_t col, len;        /* c's column, 0-based; the length */
    double sum, sq;
};

static bool operand(struct expr_data *d, int32_t k, int64_t i, bool need_sum, struct operand *o)
{
    memset(o, 0, sizeof(*o));
    /* the index first: out of range is recorded even where no sums were
     * taken (an order of the shape sched_setup.c computes itself) */
    if ((o->v = expr_vector(d, k, &o->len)) != NULL) {
        if (checked(d, EXPR_FAULT_COL, k, i, 1) < 0)
            return false;
    } else if (!(o->c = csc_of(d, k)) ||
               (o->col = checked(d, EXPR_FAULT_COL, k, i, o->c->ncols)) < 0) {
        return false;
    } else {
        o->len = o->c->nrows;
    }
    if (!d->colsumsq[k] || (need_sum && !d->colsum[k]))
        return false;
    o->sum = d->colsum[k] ? d->colsum[k][o->c ? o->col : 0] : 0;
    o->sq = d->colsumsq[k][o->c ? o->col : 0];
    return true;
}

/* The sum of products of two operands of equal length. */
static double product(const struct operand *a, const struct operand *b)
{
    if (a->c && b->c)
        return dot(a->c, a->col, b->c, b->col);
    if (a->c)
        return dot_vec(a->c, a->col, b->v);
    if (b->c)
        return dot_vec(b->c, b->col, a->v);
    double ab = 0;
    for (int64_t r = 0; r < a->len; r++)
        ab += a->v[r] * b->v[r];
    return ab;
}

static double cb_corr(void *ud, int32_t ka, int64_t i, int32_t kb, int64_t j)
{
    struct expr_data *d = ud;
    struct operand a, b;
    if (!operand(d, ka, i, true, &a) || !operand(d, kb, j, true, &b) || a.len != b.len ||
        a.len == 0)
        return NAN;
    return expr_corr_of(product(&a, &b), (double)a.len, a.sum, a.sq, b.sum, b.sq);
}

static double cb_cos(void *ud, int32_t ka, int64_t i, int32_t kb, int64_t j)
{
    struct expr_data *d = ud;
    struct operand a, b;
    if (!operand(d, ka, i, false, &a) || !operand(d, kb, j, false, &b) || a.len != b.len)
        return NAN;
    return expr_cos_of(product(&a, &b), a.sq, b.sq);
}

void expr_env_data(struct prog_env *env, struct expr_data *d)
{
    env->ud = d;
    env->dim = cb_dim;
    env->nnz = cb_nnz;
    env->data = cb_data;
    env->corr = cb_corr;
    env->cos = cb_cos;
}
