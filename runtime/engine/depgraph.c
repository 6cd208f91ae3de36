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

/* The evaluator of pred when it is of the shape depgraph.h takes, over a
 * sparse matrix of d: 0, or 1 with why. */
static int prepare(const struct prog *pred, const struct expr_data *d, const struct prog_env *env,
                   struct eval *ev, char *why, size_t whylen)
{
    struct shape s;
    if (!recognize(pred, &s) || s.data < 0 || (uint32_t)s.data >= d->nsrc ||
        d->src[s.data].labels_of >= 0 || !d->src[s.data].ds || !d->src[s.data].ds->sparse ||
        !d->src[s.data].ds->csc || !d->colsum[s.data]) {
        snprintf(why, whylen, "the predicate is not a comparison of corr() or cos() of two "
                              "columns of a sparse matrix with a number");
        return 1;
    }
    *ev = (struct eval){.pred = pred, .env = *env, .s = s, .vars = {1, 2}};
    ev->env.vars = ev->vars;
    ev->env.ud = &ev->value;
    ev->env.corr = value_cb;
    ev->env.cos = value_cb;
    /* Pairs that share no row: cos 0 for all of them, corr -c_i c_j. */
    static const double probe[] = {-1, -0.5, -0.1, 0, 1e-300, 0.1, 0.5, 1, NAN};
    for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++)
        if (conflicts(ev, probe[k]) != conflicts_prog(ev, probe[k])) {
            snprintf(why, whylen, "the predicate's comparison is not the one expected");
            return 1;
        }
    if (s.op == PROG_COS && conflicts(ev, 0)) {
        snprintf(why, whylen, "the predicate holds for columns that share no row (cos() = 0): "
                              "nearly every pair would conflict");
        return 1;
    }
    if (s.op == PROG_CORR && !(s.t > 0)) {
        snprintf(why, whylen, "the predicate may hold for columns that share no row "
                              "(corr() compared with a number <= 0): nearly every pair could conflict");
        return 1;
    }
    return 0;
}

/* What decides the measure of two columns from their x_i . x_j: each
 * column's 1 / sqrt of its centred (corr) or plain (cos) sum of squares;
 * a value from them is within a few ulps of the exact one, which is
 * computed only when that could change the answer (within lo .. hi of the
 * threshold, which is >= 0: prepare() refuses the others). */
struct measure {
    struct eval ev;
    bool corr;
    const double *sum, *sq;
    double n, lo, hi;
    double *inv; /* m */
    double *cc;  /* corr, m: |sum| inv / sqrt(n); corr of columns sharing no row is -c_i c_j */
};

static int measure_init(struct measure *ms, const struct eval *ev, const struct expr_data *d,
                        int64_t m)
{
    memset(ms, 0, sizeof(*ms));
    ms->ev = *ev;
    ms->ev.env.vars = ms->ev.vars;
    ms->ev.env.ud = &ms->ev.value;
    ms->corr = ev->s.op == PROG_CORR;
    ms->sum = d->colsum[ev->s.data];
    ms->sq = d->colsumsq[ev->s.data];
    ms->n = (double)d->src[ev->s.data].ds->csc->nrows;
    ms->lo = ev->s.t * (1 - 1e-9);
    ms->hi = ev->s.t * (1 + 1e-9);
    ms->inv = ptm_malloc(((size_t)m + 1) * sizeof(double));
    ms->cc = ms->corr ? ptm_malloc(((size_t)m + 1) * sizeof(double)) : NULL;
    if (!ms->inv || (ms->corr && !ms->cc))
        return PTM_ENOMEM;
    for (int64_t j = 0; j < m; j++) {
        double v = ms->corr ? ms->sq[j] - ms->sum[j] * ms->sum[j] / ms->n : ms->sq[j];
        ms->inv[j] = v > 0 ? 1 / sqrt(v) : 0;
        if (ms->corr)
            ms->cc[j] = fabs(ms->sum[j]) * ms->inv[j] / sqrt(ms->n);
    }
    return 0;
}

static void measure_release(struct measure *ms)
{
    ptm_free(ms->inv);
    ptm_free(ms->cc);
}

/* Does the pair of columns i < j conflict, given x_i . x_j = ab? */
static inline bool measure_pair(const struct measure *ms, int64_t i, int64_t j, double ab)
{
    double cov = ms->corr ? ab - ms->sum[i] * ms->sum[j] / ms->n : ab;
    double v = cov * ms->inv[i] * ms->inv[j], a = ms->ev.s.abs ? fabs(v) : v;
    if (a < ms->lo)
        return false;
    if (a > ms->hi && ms->inv[i] != 0 && ms->inv[j] != 0)
        return true;
    v = ms->corr ? expr_corr_of(ab, ms->n, ms->sum[i], ms->sq[i], ms->sum[j], ms->sq[j])
                 : expr_cos_of(ab, ms->sq[i], ms->sq[j]);
    return conflicts(&ms->ev, v);
}

/* corr of columns i and j that share no row: whether it may pass, and does. */
static bool measure_apart(const struct measure *ms, int64_t i, int64_t j)
{
    if (i > j) {
        int64_t t = i;
        i = j;
        j = t;
    }
    return ms->cc[i] * ms->cc[j] >= ms->ev.s.t * (1 - 1e-12) &&
           conflicts(&ms->ev, expr_corr_of(0, ms->n, ms->sum[i], ms->sq[i], ms->sum[j], ms->sq[j]));
}

/* For the partners of column i: the pairs whose far_below() holds need no
 * more (most of them); lim is NaN, never passed, when i has no spread. */
struct near {
    double lim, mi;
};

static inline struct near near_of(const struct measure *ms, int64_t i)
{
    return (struct near){ms->inv[i] > 0 ? ms->lo * (1 - 1e-12) / ms->inv[i] : NAN,
                         ms->corr ? ms->sum[i] / ms->n : 0};
}

static inline bool far_below_of(struct near nr, double sumj, double invj, double ab)
{
    return fabs(ab - nr.mi * sumj) * invj < nr.lim;
}

static inline bool far_below(const struct measure *ms, struct near nr, int64_t j, double ab)
{
    return far_below_of(nr, ms->sum[j], ms->inv[j], ab);
}

/* The most edges a graph of the columns of c may keep (depgraph.h). */
static int64_t edge_cap(const struct ptm_csc *c)
{
    double cap = (double)DEPGRAPH_EDGES_PER_NNZ * (double)c->nnz;
    if (cap < (double)DEPGRAPH_MIN_EDGES)
        cap = (double)DEPGRAPH_MIN_EDGES;
    return cap < (double)DEPGRAPH_MAX_EDGES ? (int64_t)cap : DEPGRAPH_MAX_EDGES;
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
    struct eval ev;
    if (prepare(pred, d, env, &ev, why, whylen) != 0)
        return 1;
    struct shape s = ev.s;
    const struct ptm_csc *c = d->src[s.data].ds->csc;
    int64_t m = nblocks < c->ncols ? nblocks : c->ncols; /* beyond: NaN, no conflict */
    bool corr = s.op == PROG_CORR;
    struct ptm_csr rows;
    bool own;
    int rc = rows_of(d->src[s.data].ds, c, &rows, &own);
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
    struct measure ms;
    struct pairs ps = {0};
    int64_t cap = edge_cap(c);
    rc = measure_init(&ms, &ev, d, m);
    if (rc == 0 && (!acc || !stamp || !touched || !cursor || (corr && (!order || !place))))
        rc = PTM_ENOMEM;
    if (rc != 0)
        goto out;
    for (int64_t j = 0; j < m; j++)
        stamp[j] = -1;
    memcpy(cursor, rows.rowptr, (size_t)rows.nrows * sizeof(int64_t));
    /* corr of columns without a common row is -c_i c_j: the columns by
     * |c|, largest first, so that the partners of i that may pass the
     * threshold are a prefix */
    if (corr) {
        for (int64_t j = 0; j < m; j++)
            order[j] = (struct by_c){ms.cc[j], j};
        qsort(order, (size_t)m, sizeof(*order), cmp_by_c);
        for (int64_t k = 0; k < m; k++)
            place[order[k].j] = k;
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
        struct near nr = near_of(&ms, i);
        info->evaluated += (int64_t)nt;
        for (size_t k = 0; k < nt; k++) {
            int64_t j = touched[k];
            if (!far_below(&ms, nr, j, acc[j]) && measure_pair(&ms, i, j, acc[j]))
                touched[nc++] = j;
        }
        if (corr && order[place[i]].c > 0) {
            /* the partners j > i with no common row and |c_i c_j| >= the bound */
            double ci = order[place[i]].c;
            for (int64_t k = 0; k < m && order[k].c * ci >= s.t * (1 - 1e-12); k++) {
                int64_t j = order[k].j;
                if (j <= i || stamp[j] == i)
                    continue;
                info->evaluated++;
                if (measure_apart(&ms, i, j))
                    touched[nc++] = j;
            }
        }
        /* in order, so that the adjacency lists come out sorted */
        sort_i64(touched, nc);
        for (size_t k = 0; k < nc; k++)
            if ((rc = add_pair(&ps, i, touched[k])) != 0)
                goto out;
        if ((int64_t)ps.n > cap) {
            snprintf(why, whylen, "the graph has more than %lld conflicting pairs", (long long)cap);
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
    measure_release(&ms);
    return rc;
}

/* ---- the conflicts of each round's candidates -------------------------------- */

/*
 * DESIGN: the graph costs the sum over rows of nnz^2 / 2 products before
 * the first round, however few rounds follow; an active set settles within
 * a few sweeps, and the graph then costs many times the run. A round needs
 * only the pairs of its candidates, and blocks that are candidates again
 * and again are better looked up. So, block by block, rent or buy:
 *
 * - A block without a row of the graph is checked by a pass over its own
 *   entries: as the filter keeps such a block, its entries go into lists
 *   by row; a candidate adds x_rb x_rk into an accumulator of each kept k
 *   met in the lists of its rows, in the order of its rows. Those are
 *   exactly the products the graph sums for the pair, in the same order,
 *   so each answer is the graph's, bit for bit.
 * - What these passes cost a block is counted; once it reaches what its
 *   row of the graph costs (the sum over its rows of their non-zeros), the
 *   row is computed (its partners over all columns, the same sums again)
 *   and the block is looked up from then on: a kept block with a row
 *   stamps its partners, and a candidate with a row checks its partners
 *   against the blocks kept without one.
 *
 * A block so pays at most twice the cheaper of the two ways, whatever the
 * run's length; blocks that are candidates once (a first sweep) never pay
 * for a row, the active set's soon have theirs. And once passes and rows
 * together have cost what the whole graph costs (its pass takes each
 * pair once, from one side), the whole graph is built and the filter
 * looks pairs up in it: a run pays at most about twice what the graph
 * alone would have cost, and a short one far less. The counts, not the
 * clock, decide, and every answer is the predicate's, so the rounds never
 * depend on which way a pair was answered.
 */

/* A product of a pass costs more time than one of the graph's pass (the
 * lists are scattered, each touched pair is tested every time): 1.3 to 3
 * times, measured on the Lasso example and bench data A with ptm run
 * --trace (schedule seconds of passes against the graph's seconds). The
 * passes count their products at this weight against the graph's. With
 * weights 1, 2 and 3 (3 runs each, schedule seconds): the example 0.044 ..
 * 0.055, 0.062 .. 0.066, 0.056 .. 0.057 (the graph up front: 0.052 ..
 * 0.059); data A, dynamic over 39 sweeps, 0.64 .. 0.67, 0.48 .. 0.51,
 * 0.44 .. 0.46 (up front: 0.37 .. 0.41); data A, dynamic active, 0.021 ..
 * 0.024 for all three (up front: 0.20). */
#ifndef PASS_WEIGHT
#define PASS_WEIGHT 3.0
#endif

struct lazy_entry {
    int64_t k;    /* the kept block: its place among the round's (bare[k]) */
    double v;     /* x_rk */
    int64_t next; /* the row's next entry, or -1 */
};

/* A block kept in the round without a row. */
struct lazy_bare {
    int64_t b;       /* the block */
    double sum, inv; /* its column's (measure), at hand */
    double acc;      /* a pass's sum with it */
    uint64_t stamp;  /* acc belongs to the current candidate */
};

struct depgraph_lazy {
    struct measure ms;
    double ccmax;       /* corr: the largest c */
    int64_t nblocks, m; /* blocks; those with a column (beyond: no conflict) */
    const struct ptm_csc *c;
    struct ptm_csr rows; /* X by rows, for the blocks' rows of the graph */
    bool own_rows;
    int64_t *bycc;     /* corr, when two columns sharing no row may conflict: by c, largest first */
    /* the passes */
    int64_t *head; /* rows: the first entry of the row's list, -1 when empty */
    struct lazy_entry *pool;
    size_t cappool;
    double *acc;     /* m */
    uint64_t *stamp; /* m: acc[k] belongs to the current candidate */
    uint64_t now;
    int64_t *touched; /* m */
    /* the blocks kept this round without a row, by their place among them:
     * a pass's sums go to an array as short as the round, not to ones as
     * long as the columns (the products of a pass land in cache) */
    struct lazy_bare *bare;
    int64_t *btouched; /* the places a pass met */
    size_t capbare;
    /* the blocks' rows of the graph */
    double *spent; /* m: what passes have cost the block; < 0 once it has its row */
    double *price; /* m: what its row costs */
    int64_t *off;  /* m: where its partners start in adj */
    int64_t *deg;  /* m: how many */
    int64_t *adj;
    size_t nadj, capadj;
    uint32_t *blocked; /* m: == round when a kept block with a row names it */
    uint32_t *kept_bare; /* m: == round when kept without a row */
    uint32_t round;
    struct depgraph_info info; /* the rows' */
    /* the whole graph, once passes and rows have cost as much as it does */
    const struct prog *pred;
    const struct expr_data *d;
    const struct prog_env *env;
    double spent_all, cost;
    bool built, never;
    struct sched_edges graph;
    struct depgraph_info ginfo;
    struct sched_pairs ops;
};

/* Block b's row of the graph: its partners, sorted. */
static int lazy_row(struct depgraph_lazy *z, int64_t b, int64_t *evals)
{
    const struct ptm_csc *c = z->c;
    const struct ptm_csr *x = &z->rows;
    uint64_t now = ++z->now;
    size_t nt = 0;
    for (int64_t e = c->colptr[b]; e < c->colptr[b + 1]; e++) {
        int64_t r = c->rowind[e];
        double xb = c->val[e];
        for (int64_t q = x->rowptr[r]; q < x->rowptr[r + 1]; q++) {
            int64_t k = x->colind[q];
            if (k == b || k >= z->m)
                continue;
            if (z->stamp[k] != now) {
                z->stamp[k] = now;
                z->acc[k] = 0;
                z->touched[nt++] = k;
            }
            z->acc[k] += xb * x->val[q];
        }
    }
    size_t nc = 0;
    struct near nr = near_of(&z->ms, b);
    for (size_t t = 0; t < nt; t++) {
        int64_t k = z->touched[t];
        (*evals)++;
        if (!far_below(&z->ms, nr, k, z->acc[k]) &&
            measure_pair(&z->ms, b < k ? b : k, b < k ? k : b, z->acc[k]))
            z->touched[nc++] = k;
    }
    const double *cc = z->ms.cc;
    if (z->bycc && cc[b] > 0)
        for (int64_t q = 0; q < z->m && cc[z->bycc[q]] * cc[b] >= z->ms.ev.s.t * (1 - 1e-12);
             q++) {
            int64_t k = z->bycc[q];
            if (k == b || z->stamp[k] == now)
                continue;
            (*evals)++;
            if (measure_apart(&z->ms, b, k))
                z->touched[nc++] = k;
        }
    sort_i64(z->touched, nc);
    if ((int64_t)(z->nadj + nc) > edge_cap(z->c))
        return PTM_ENOMEM; /* no room for the row: passes go on (lazy_conflicts) */
    if (z->nadj + nc > z->capadj) {
        size_t cap = z->capadj ? 2 * z->capadj : 4096;
        while (cap < z->nadj + nc)
            cap *= 2;
        int64_t *a = ptm_realloc(z->adj, cap * sizeof(int64_t));
        if (!a)
            return PTM_ENOMEM;
        z->adj = a;
        z->capadj = cap;
    }
    if (nc)
        memcpy(z->adj + z->nadj, z->touched, nc * sizeof(int64_t));
    z->off[b] = (int64_t)z->nadj;
    z->deg[b] = (int64_t)nc;
    z->nadj += nc;
    z->spent[b] = -1;
    z->spent_all += z->price[b];
    z->info.products += z->price[b];
    z->info.edges += (int64_t)nc;
    return 0;
}

/* Does candidate b (< m, no row) conflict with a block kept this round
 * without a row (in the lists)? Counts the pass against b. */
static bool lazy_pass(struct depgraph_lazy *z, int64_t b, size_t nbare, int64_t *evals)
{
    const struct ptm_csc *c = z->c;
    uint64_t now = ++z->now;
    size_t nt = 0;
    /* the bounds and arrays in locals: the stores to acc may alias them */
    int64_t e0 = c->colptr[b], e1 = c->colptr[b + 1], products = e1 - e0;
    const int32_t *rowind = c->rowind;
    const int64_t *head = z->head;
    const struct lazy_entry *pool = z->pool;
    struct lazy_bare *bare = z->bare;
    int64_t *btouched = z->btouched;
    for (int64_t e = e0; e < e1; e++) {
        int64_t q = head[rowind[e]];
        if (q < 0) /* most rows under `keep moved`: no kept block there */
            continue;
        double xb = c->val[e];
        for (; q >= 0; q = pool[q].next) {
            struct lazy_bare *a = &bare[pool[q].k];
            if (a->stamp != now) {
                a->stamp = now;
                a->acc = 0;
                btouched[nt++] = pool[q].k;
            }
            a->acc += xb * pool[q].v;
            products++;
        }
    }
    if (nt == 0 && !z->bycc) /* no row shared with a block kept without a row (most
                              * candidates under `keep moved`): nothing computed to count */
        return false;
    z->spent[b] += (double)products;
    z->spent_all += PASS_WEIGHT * (double)products;
    struct near nr = near_of(&z->ms, b);
    for (size_t i = 0; i < nt; i++) {
        const struct lazy_bare *a = &bare[btouched[i]];
        int64_t k = a->b;
        (*evals)++;
        if (!far_below_of(nr, a->sum, a->inv, a->acc) &&
            measure_pair(&z->ms, b < k ? b : k, b < k ? k : b, a->acc))
            return true;
    }
    if (!z->bycc || !(z->ms.cc[b] * z->ccmax >= z->ms.ev.s.t * (1 - 1e-12)))
        return false;
    for (size_t t = 0; t < nbare; t++) { /* kept without a row that share no row with b */
        int64_t k = bare[t].b;
        if (bare[t].stamp == now)
            continue;
        (*evals)++;
        if (measure_apart(&z->ms, b, k))
            return true;
    }
    return false;
}

static bool lazy_conflicts(struct depgraph_lazy *z, int64_t b, size_t nbare, int64_t *evals)
{
    if (z->blocked[b] == z->round) /* a kept block's row names it */
        return true;
    if (nbare == 0) /* every block kept so far that counts has its row */
        return false;
    if (z->spent[b] < 0) { /* its row against the blocks kept without one */
        const int64_t *a = z->adj + z->off[b];
        for (int64_t q = 0; q < z->deg[b]; q++)
            if (z->kept_bare[a[q]] == z->round)
                return true;
        return false;
    }
    bool hit = lazy_pass(z, b, nbare, evals);
    if (z->spent[b] >= z->price[b] && lazy_row(z, b, evals) != 0)
        z->spent[b] = 0; /* no room for the row: passes go on */
    return hit;
}

static size_t lazy_filter(void *ud, const int64_t *cand, const unsigned char *moved, size_t n,
                          int64_t *kept, int64_t *evals)
{
    struct depgraph_lazy *z = ud;
    const struct ptm_csc *c = z->c;
    if (n == 0)
        return 0;
    size_t nk = 0, np = 0, need = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (cand[i] < z->m && z->spent[cand[i]] >= 0)
            need += (size_t)(c->colptr[cand[i] + 1] - c->colptr[cand[i]]);
    if (n > z->capbare) { /* the same */
        struct lazy_bare *bare = ptm_realloc(z->bare, n * sizeof(*bare));
        if (bare)
            z->bare = bare;
        int64_t *bt = bare ? ptm_realloc(z->btouched, n * sizeof(int64_t)) : NULL;
        if (!bt) { /* a round of one block conflicts with nothing */
            kept[0] = cand[0];
            return 1;
        }
        z->btouched = bt;
        memset(bare + z->capbare, 0, (n - z->capbare) * sizeof(*bare));
        z->capbare = n;
    }
    if (need > z->cappool) { /* a longer round than before: a few times a run */
        struct lazy_entry *p = ptm_realloc(z->pool, need * sizeof(*p));
        if (!p) { /* a round of one block conflicts with nothing */
            kept[0] = cand[0];
            return 1;
        }
        z->pool = p;
        z->cappool = need;
    }
    if (++z->round == 0) { /* wrapped: stale marks could match */
        memset(z->blocked, 0, (size_t)z->m * sizeof(uint32_t));
        memset(z->kept_bare, 0, (size_t)z->m * sizeof(uint32_t));
        z->round = 1;
    }
    bool any = false; /* a kept block counts: the others conflict with none */
    size_t nbare = 0; /* kept blocks that count and have no row */
    for (size_t i = 0; i < n; i++) {
        int64_t b = cand[i];
        if (any && b < z->m && lazy_conflicts(z, b, nbare, evals))
            continue;
        kept[nk++] = b;
        if (b >= z->m || i + 1 == n || (moved && !moved[i]))
            continue;
        any = true;
        if (z->spent[b] < 0) {
            const int64_t *a = z->adj + z->off[b];
            for (int64_t q = 0; q < z->deg[b]; q++)
                z->blocked[a[q]] = z->round;
            continue;
        }
        z->kept_bare[b] = z->round;
        z->bare[nbare] = (struct lazy_bare){.b = b, .sum = z->ms.sum[b], .inv = z->ms.inv[b]};
        for (int64_t e = c->colptr[b]; e < c->colptr[b + 1]; e++) {
            int64_t r = c->rowind[e];
            PTM_ASSERT(np < z->cappool);
            z->pool[np] = (struct lazy_entry){(int64_t)nbare, c->val[e], z->head[r]};
            z->head[r] = (int64_t)np++;
        }
        nbare++;
    }
    for (size_t t = 0; t < nk; t++) /* empty lists for the next round */
        if (kept[t] < z->m && z->kept_bare[kept[t]] == z->round)
            for (int64_t e = c->colptr[kept[t]]; e < c->colptr[kept[t] + 1]; e++)
                z->head[c->rowind[e]] = -1;
    if (z->spent_all >= z->cost && !z->built && !z->never) {
        char why[200];
        if (depgraph_build(z->pred, z->d, z->env, z->nblocks, &z->graph, &z->ginfo, why,
                           sizeof(why)) == 0)
            z->built = true;
        else
            z->never = true; /* too big: passes and rows go on */
    }
    return nk;
}

static const struct sched_edges *lazy_graph(void *ud)
{
    struct depgraph_lazy *z = ud;
    return z->built ? &z->graph : NULL;
}

int depgraph_lazy_new(const struct prog *pred, const struct expr_data *d,
                      const struct prog_env *env, int64_t nblocks, struct depgraph_lazy **out,
                      char *why, size_t whylen)
{
    *out = NULL;
    struct eval ev;
    if (prepare(pred, d, env, &ev, why, whylen) != 0)
        return 1;
    struct depgraph_lazy *z = ptm_malloc(sizeof(*z));
    if (!z)
        return PTM_ENOMEM;
    memset(z, 0, sizeof(*z));
    z->nblocks = nblocks;
    z->pred = pred;
    z->d = d;
    z->env = env;
    const struct ptm_dataset *ds = d->src[ev.s.data].ds;
    const struct ptm_csc *c = ds->csc;
    z->c = c;
    z->m = nblocks < c->ncols ? nblocks : c->ncols;
    size_t m = (size_t)z->m + 1, rows = (size_t)c->nrows + 1;
    int rc = measure_init(&z->ms, &ev, d, z->m);
    if (rc == 0)
        rc = rows_of(ds, c, &z->rows, &z->own_rows);
    if (rc != 0)
        goto fail;
    rc = PTM_ENOMEM;
    z->acc = ptm_malloc(m * sizeof(double));
    z->stamp = ptm_malloc(m * sizeof(uint64_t));
    z->touched = ptm_malloc(m * sizeof(int64_t));
    z->head = ptm_malloc(rows * sizeof(int64_t));
    z->spent = ptm_malloc(m * sizeof(double));
    z->price = ptm_malloc(m * sizeof(double));
    z->off = ptm_malloc(m * sizeof(int64_t));
    z->deg = ptm_malloc(m * sizeof(int64_t));
    z->blocked = ptm_malloc(m * sizeof(uint32_t));
    z->kept_bare = ptm_malloc(m * sizeof(uint32_t));
    if (!z->acc || !z->stamp || !z->touched || !z->head || !z->spent || !z->price || !z->off ||
        !z->deg || !z->blocked || !z->kept_bare)
        goto fail;
    memset(z->stamp, 0, m * sizeof(uint64_t));
    memset(z->spent, 0, m * sizeof(double));
    memset(z->blocked, 0, m * sizeof(uint32_t));
    memset(z->kept_bare, 0, m * sizeof(uint32_t));
    for (size_t r = 0; r < rows; r++)
        z->head[r] = -1;
    for (int64_t j = 0; j < z->m; j++) {
        if (z->ms.corr && z->ms.cc[j] > z->ccmax)
            z->ccmax = z->ms.cc[j];
        double price = 0; /* a block's row: its rows' other entries */
        for (int64_t e = c->colptr[j]; e < c->colptr[j + 1]; e++) {
            int64_t r = c->rowind[e];
            price += (double)(z->rows.rowptr[r + 1] - z->rows.rowptr[r]);
        }
        z->price[j] = price;
    }
    for (int64_t r = 0; r < z->rows.nrows; r++) { /* the graph's, as depgraph_build counts */
        double k = (double)(z->rows.rowptr[r + 1] - z->rows.rowptr[r]);
        z->cost += k * (k - 1) / 2;
    }
    z->never = z->cost > DEPGRAPH_MAX_PRODUCTS;
    if (z->ms.corr && z->ccmax * z->ccmax >= ev.s.t * (1 - 1e-12)) {
        /* two columns that share no row may conflict: their partners by |c| */
        struct by_c *o = ptm_malloc(m * sizeof(*o));
        if (!o || !(z->bycc = ptm_malloc(m * sizeof(int64_t)))) {
            ptm_free(o);
            goto fail;
        }
        for (int64_t j = 0; j < z->m; j++)
            o[j] = (struct by_c){z->ms.cc[j], j};
        qsort(o, (size_t)z->m, sizeof(*o), cmp_by_c);
        for (int64_t j = 0; j < z->m; j++)
            z->bycc[j] = o[j].j;
        ptm_free(o);
    }
    z->ops = (struct sched_pairs){.ud = z, .filter = lazy_filter, .graph = lazy_graph};
    *out = z;
    return 0;
fail:
    depgraph_lazy_free(z);
    return rc;
}

const struct sched_pairs *depgraph_lazy_ops(const struct depgraph_lazy *z)
{
    return &z->ops;
}

void depgraph_lazy_price(const struct depgraph_lazy *z, double *products, int64_t *nnz)
{
    *products = z->cost;
    *nnz = z->c->colptr[z->c->ncols];
}

const struct depgraph_info *depgraph_lazy_built(const struct depgraph_lazy *z)
{
    return z->built ? &z->ginfo : NULL;
}

void depgraph_lazy_free(struct depgraph_lazy *z)
{
    if (!z)
        return;
    if (z->built)
        sched_edges_release(&z->graph);
    rows_free(&z->rows, z->own_rows);
    measure_release(&z->ms);
    ptm_free(z->bycc);
    ptm_free(z->acc);
    ptm_free(z->stamp);
    ptm_free(z->touched);
    ptm_free(z->head);
    ptm_free(z->pool);
    ptm_free(z->bare);
    ptm_free(z->btouched);
    ptm_free(z->spent);
    ptm_free(z->price);
    ptm_free(z->off);
    ptm_free(z->deg);
    ptm_free(z->adj);
    ptm_free(z->blocked);
    ptm_free(z->kept_bare);
    ptm_free(z);
}
