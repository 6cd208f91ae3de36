/*
 * depgraph.c - the conflict graph of a depend predicate over data
 * (depgraph.h).
 *
 * DESIGN: the pass over X'X is Gustavson's: for each column i, for each
 * of its rows r (in row order), the entries of row r right of column i add
 * x_ri x_rj into an accumulator of column j; a stamp marks the columns
 * met, and the predicate is evaluated for each of them once column i is
 * done. A cursor per row skips the entries left of i, so the pass costs
 * the sum over rows of nnz^2 / 2 multiply-adds and O(rows + cols) memory
 * besides the graph. The predicate runs as compiled, with the measure's
 * callback answering the value computed here: the graph is the
 * predicate's, whatever its comparison.
 */
#include "depgraph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "ptm.h"

/* The predicate's shape: which measure of which data, and the test. */
struct shape {
    enum prog_op op; /* PROG_CORR or PROG_COS */
    int32_t data;
    bool abs;
    bool strict; /* > rather than >= */
    double t;    /* the threshold */
};

/* [var][var][corr|cos][abs]?[const][gt|ge], or [const][var][var][corr|cos][abs]?[lt|le]. */
static bool recognize(const struct prog *p, struct shape *s)
{
    const struct prog_insn *c = p->code;
    uint32_t n = p->ncode, k = 0;
    int cfirst = n > 0 && c[0].op == PROG_CONST;
    double t = 0;
    if (cfirst) {
        t = p->consts[c[0].a];
        k = 1;
    }
    if (n < k + 3 || c[k].op != PROG_VAR || c[k + 1].op != PROG_VAR || c[k].a == c[k + 1].a)
        return false;
    if ((c[k + 2].op != PROG_CORR && c[k + 2].op != PROG_COS) || c[k + 2].a != c[k + 2].b)
        return false;
    s->op = (enum prog_op)c[k + 2].op;
    s->data = c[k + 2].a;
    k += 3;
    s->abs = k < n && c[k].op == PROG_ABS;
    k += s->abs;
    if (!cfirst) {
        if (k >= n || c[k].op != PROG_CONST)
            return false;
        t = p->consts[c[k].a];
        k++;
    }
    if (k + 1 != n)
        return false;
    int op = c[k].op;
    if (cfirst ? op != PROG_LT && op != PROG_LE : op != PROG_GT && op != PROG_GE)
        return false;
    s->strict = op == PROG_LT || op == PROG_GT;
    s->t = t;
    return isfinite(t);
}

int32_t depgraph_data(const struct prog *pred)
{
    struct shape s;
    return recognize(pred, &s) ? s.data : -1;
}

/* The measure's value for the pair being evaluated. */
static double value_cb(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    (void)a;
    (void)i;
    (void)b;
    (void)j;
    return *(const double *)ud;
}

struct eval {
    const struct prog *pred;
    struct prog_env env;
    double vars[2], value;
    struct shape s;
};

/* The predicate at measure v: the program's own comparison, made here
 * (a NaN compares false, as in the program). */
static bool conflicts(const struct eval *e, double v)
{
    double a = e->s.abs ? fabs(v) : v;
    return e->s.strict ? a > e->s.t : a >= e->s.t;
}

/* The same by running the program, to check the shape was read right. */
static bool conflicts_prog(struct eval *e, double v)
{
    e->value = v;
    double r = prog_eval(e->pred, &e->env);
    return r != 0 && !isnan(r);
}

/* Pairs (1-based, a < b) in a growing array. */
struct pairs {
    int64_t *p;
    size_t n, cap;
};

static int add_pair(struct pairs *ps, int64_t a, int64_t b)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 4096;
        int64_t *q = ptm_realloc(ps->p, 2 * cap * sizeof(int64_t));
        if (!q)
            return PTM_ENOMEM;
        ps->p = q;
        ps->cap = cap;
    }
    ps->p[2 * ps->n] = a + 1;
    ps->p[2 * ps->n + 1] = b + 1;
    ps->n++;
    return 0;
}

/* Rows of the CSC as (column, value) lists, sorted by column: the data
 * set's CSR when it still has its entries, else built here (*own). */
static int rows_of(const struct ptm_dataset *ds, const struct ptm_csc *c, struct ptm_csr *r,
                   bool *own)
{
    *own = false;
    if (ds->csr.colind || c->nnz == 0) {
        *r = ds->csr;
        return 0;
    }
    *own = true;
    memset(r, 0, sizeof(*r));
    r->nrows = c->nrows;
    r->ncols = c->ncols;
    r->nnz = c->nnz;
    r->rowptr = ptm_malloc(((size_t)c->nrows + 1) * sizeof(int64_t));
    r->colind = ptm_malloc((size_t)c->nnz * sizeof(int32_t));
    r->val = ptm_malloc((size_t)c->nnz * sizeof(double));
    if (!r->rowptr || !r->colind || !r->val)
        return PTM_ENOMEM;
    memset(r->rowptr, 0, ((size_t)c->nrows + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < c->nnz; e++)
        r->rowptr[c->rowind[e] + 1]++;
    for (int64_t i = 0; i < c->nrows; i++)
        r->rowptr[i + 1] += r->rowptr[i];
    for (int64_t j = 0; j < c->ncols; j++) /* columns in order: rows come out sorted */
        for (int64_t e = c->colptr[j]; e < c->colptr[j + 1]; e++) {
            int64_t at = r->rowptr[c->rowind[e]]++;
            r->colind[at] = (int32_t)j;
            r->val[at] = c->val[e];
        }
    for (int64_t i = c->nrows; i > 0; i--)
        r->rowptr[i] = r->rowptr[i - 1];
    r->rowptr[0] = 0;
    return 0;
}

static void rows_free(struct ptm_csr *r, bool own)
{
    if (!own)
        return;
    ptm_free(r->rowptr);
    ptm_free(r->colind);
    ptm_free(r->val);
}

struct by_c {
    double c;
    int64_t j;
};

static int cmp_by_c(const void *a, const void *b)
{
    const struct by_c *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? 1 : -1; /* largest first */
    return (x->j > y->j) - (x->j < y->j);
}

/* a[0 .. n) ascending: quicksort on the middle element, insertion sort
 * below 16 (a column's partners are few; qsort's calls cost more). */
static void sort_i64(int64_t *a, size_t n)
{
    while (n > 16) {
        int64_t p = a[n / 2];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i >= j)
                break;
            int64_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        /* a[0 .. j] <= p <= a[j + 1 .. n): the smaller side recursively */
        size_t left = j + 1;
        if (left < n - left) {
            sort_i64(a, left);
            a += left;
            n -= left;
        } else {
            sort_i64(a + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        int64_t v = a[i];
        size_t k = i;
        for (; k > 0 && a[k - 1] > v; k--)
            a[k] = a[k - 1];
        a[k] = v;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int depgraph_build(const struct prog *pred, const struct expr_data *d, const struct prog_env *env,
                   int64_t nblocks, struct sched_edges *out, struct depgraph_info *info,
                   char *why, size_t whylen)
{
    double t0 = now();
    memset(out, 0, sizeof(*out));
    memset(info, 0, sizeof(*info));
    struct shape s;
    if (!recognize(pred, &s) || s.data < 0 || (uint32_t)s.data >= d->nsrc ||
        d->src[s.data].labels_of >= 0 || !d->src[s.data].ds || !d->src[s.data].ds->sparse ||
        !d->src[s.data].ds->csc || !d->colsum[s.data]) {
        snprintf(why, whylen, "the predicate is not a comparison of corr() or cos() of two "
                              "columns of a sparse matrix with a number");
        return 1;
    }
    const struct ptm_dataset *ds = d->src[s.data].ds;
    const struct ptm_csc *c = ds->csc;
    const double *sum = d->colsum[s.data], *sq = d->colsumsq[s.data];
    double n = (double)c->nrows;
    int64_t m = nblocks < c->ncols ? nblocks : c->ncols; /* beyond: NaN, no conflict */

    struct eval ev = {.pred = pred, .env = *env, .s = s, .vars = {1, 2}};
    ev.env.vars = ev.vars;
    ev.env.ud = &ev.value;
    ev.env.corr = value_cb;
    ev.env.cos = value_cb;
    bool corr = s.op == PROG_CORR;
    /* Pairs that share no row: cos 0 for all of them, corr -c_i c_j. */
    static const double probe[] = {-1, -0.5, -0.1, 0, 1e-300, 0.1, 0.5, 1, NAN};
    for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++)
        if (conflicts(&ev, probe[k]) != conflicts_prog(&ev, probe[k])) {
            snprintf(why, whylen, "the predicate's comparison is not the one expected");
            return 1;
        }
    if (!corr && conflicts(&ev, 0)) {
        snprintf(why, whylen, "the predicate holds for columns that share no row (cos() = 0): "
                              "nearly every pair would conflict");
        return 1;
    }
    struct ptm_csr rows;
    bool own;
    int rc = rows_of(ds, c, &rows, &own);
    if (rc != 0) {
        rows_free(&rows, own);
        return rc;
    }
    double products = 0;
    for (int64_t r = 0; r < rows.nrows; r++) {
        double k = (double)(rows.rowptr[r + 1] - rows.rowptr[r]);
        products += k * (k - 1) / 2;
    }
    info->products = products;
    if (products > DEPGRAPH_MAX_PRODUCTS) {
        rows_free(&rows, own);
        snprintf(why, whylen, "X'X has %.3g products of entries, more than %.3g", products,
                 DEPGRAPH_MAX_PRODUCTS);
        return 1;
    }
    double *acc = ptm_malloc(((size_t)m + 1) * sizeof(double));
    int64_t *stamp = ptm_malloc(((size_t)m + 1) * sizeof(int64_t));
    int64_t *touched = ptm_malloc(((size_t)m + 1) * sizeof(int64_t));
    int64_t *cursor = ptm_malloc(((size_t)rows.nrows + 1) * sizeof(int64_t));
    struct by_c *order = corr ? ptm_malloc(((size_t)m + 1) * sizeof(*order)) : NULL;
    int64_t *place = corr ? ptm_malloc(((size_t)m + 1) * sizeof(int64_t)) : NULL;
    double *inv = ptm_malloc(((size_t)m + 1) * sizeof(double));
    struct pairs ps = {0};
    rc = PTM_ENOMEM;
    if (!acc || !stamp || !touched || !cursor || !inv || (corr && (!order || !place)))
        goto out;
    for (int64_t j = 0; j < m; j++)
        stamp[j] = -1;
    memcpy(cursor, rows.rowptr, (size_t)rows.nrows * sizeof(int64_t));
    /* corr of columns without a common row is -c_i c_j: the columns by
     * |c|, largest first, so that the partners of i that may pass the
     * threshold are a prefix */
    /* each column's 1 / sqrt of its centred (corr) or plain (cos) sum of
     * squares: a value from them is within a few ulps of the exact one,
     * which is computed only when that could change the answer */
    for (int64_t j = 0; j < m; j++) {
        double v = corr ? sq[j] - sum[j] * sum[j] / n : sq[j];
        inv[j] = v > 0 ? 1 / sqrt(v) : 0;
    }
    double cut = s.t;
    if (corr) {
        if (!(cut > 0)) {
            snprintf(why, whylen, "the predicate may hold for columns that share no row "
                                  "(corr() compared with a number <= 0): nearly every pair could conflict");
            rc = 1;
            goto out;
        }
        for (int64_t j = 0; j < m; j++)
            order[j] = (struct by_c){fabs(sum[j]) * inv[j] / sqrt(n), j};
        qsort(order, (size_t)m, sizeof(*order), cmp_by_c);
        for (int64_t k = 0; k < m; k++)
            place[order[k].j] = k;
    }
    double lo = s.t * (1 - 1e-9), hi = s.t * (1 + 1e-9);
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    for (int64_t i = 0; i < m; i++) {
        size_t nt = 0;
        for (int64_t e = c->colptr[i]; e < c->colptr[i + 1]; e++) {
            int64_t r = c->rowind[e];
            double xi = c->val[e];
            int64_t q = cursor[r], qe = rows.rowptr[r + 1];
            while (q < qe && rows.colind[q] <= i)
                q++;
            cursor[r] = q;
            for (; q < qe && rows.colind[q] < m; q++) {
                int64_t j = rows.colind[q];
                if (stamp[j] != i) {
                    stamp[j] = i;
                    acc[j] = 0;
                    touched[nt++] = j;
                }
                acc[j] += xi * rows.val[q];
            }
        }
        size_t nc = 0; /* the conflicting partners, into touched[0 .. nc) */
        for (size_t k = 0; k < nt; k++) {
            int64_t j = touched[k];
            double cov = corr ? acc[j] - sum[i] * sum[j] / n : acc[j];
            double v = cov * inv[i] * inv[j], a = s.abs ? fabs(v) : v;
            if (inv[i] == 0 || inv[j] == 0 || !(a < lo || a > hi)) /* near the bound: exactly */
                v = corr ? expr_corr_of(acc[j], n, sum[i], sq[i], sum[j], sq[j])
                         : expr_cos_of(acc[j], sq[i], sq[j]);
            info->evaluated++;
            if (conflicts(&ev, v))
                touched[nc++] = j;
        }
        if (corr && order[place[i]].c > 0) {
            /* the partners j > i with no common row and |c_i c_j| >= cut */
            double ci = order[place[i]].c;
            for (int64_t k = 0; k < m && order[k].c * ci >= cut * (1 - 1e-12); k++) {
                int64_t j = order[k].j;
                if (j <= i || stamp[j] == i)
                    continue;
                double v = expr_corr_of(0, n, sum[i], sq[i], sum[j], sq[j]);
                info->evaluated++;
                if (conflicts(&ev, v))
                    touched[nc++] = j;
            }
        }
        /* in order, so that the adjacency lists come out sorted */
        sort_i64(touched, nc);
        for (size_t k = 0; k < nc; k++)
            if ((rc = add_pair(&ps, i, touched[k])) != 0)
                goto out;
        if ((int64_t)ps.n > DEPGRAPH_MAX_EDGES) {
            snprintf(why, whylen, "the graph has more than %lld conflicting pairs",
                     (long long)DEPGRAPH_MAX_EDGES);
            rc = 1;
            goto out;
        }
    }
    out->nblocks = nblocks;
    if ((rc = sched_edges_from_pairs(out, ps.p, ps.n)) != 0)
        goto out;
    info->edges = (int64_t)ps.n;
    info->bytes = ((size_t)nblocks + 1 + 2 * ps.n) * sizeof(int64_t);
    info->seconds = now() - t0;
out:
    if (rc != 0)
        sched_edges_release(out);
    rows_free(&rows, own);
    ptm_free(ps.p);
    ptm_free(acc);
    ptm_free(stamp);
    ptm_free(touched);
    ptm_free(cursor);
    ptm_free(order);
    ptm_free(place);
    ptm_free(inv);
    return rc;
}
