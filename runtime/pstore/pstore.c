/*
 * pstore.c - the parameter store: master tables, worker caches and update
 * logs, clocks and the staleness bound (Petuum's Bösen, in one process).
 *
 * LOCK ORDER (a thread takes these in this order, never backwards):
 *   1. ps->flush_lock (rwlock). Shared: one worker's flush and clock
 *      advance (pstore_clock, pstore_finish). Exclusive: pstore_read,
 *      pstore_visit, pstore_fill*, pstore_write_row, pstore_state, which
 *      so see each worker's flushes whole or not at all, together with
 *      its clock.
 *   2. tb->stripes[i].mu: the master rows r of table tb with
 *      r % tb->nstripes == i (a flush writes them, a fetch reads them).
 *      At most one stripe at a time.
 *   3. ps->clock_mu: ps->nwaiters, and clock_cv's predicate. The _Atomic
 *      ps->clocks[], ps->done[] and ps->status are stored under it so that
 *      a waiter cannot miss its wake-up; they are read without it.
 * A worker's own state (struct pstore_worker and what hangs off it) is
 * touched by its thread only, and by pstore_fill*, pstore_write_row,
 * pstore_state and pstore_free, which run while no worker is inside the
 * store.
 *
 * DESIGN
 * Master copy. Each table is held once: dense tables as one row-major array
 * of nrows * ncols doubles, sparse tables as one array per row of
 * (column, value) pairs sorted by column, exact zeros dropped. Sorted rows
 * rather than hash maps: rows of LDA-like tables have tens of non-zeros,
 * where a binary search costs what a hash does; iteration comes in column
 * order; and a row has one canonical form, so a row restored from a
 * checkpoint is the row that was saved, whatever its history.
 *
 * Workers. Per table, a worker has an array of nrows pointers to the rows it
 * has touched (struct wrow), each with a view (the worker's cached copy of
 * the row, its own increments applied) and a log (the increments made since
 * its last flush), plus the list of rows whose log is not empty. A worker
 * keeps a view of every row it reads until pstore_free: no eviction.
 *
 * Staleness. A worker advances its clock (an _Atomic store) only after its
 * flush, so a fetch that first loads the clocks and then locks the row sees
 * every update of clocks < m, m being the smallest clock of the unfinished
 * workers. A view fetched at m serves a worker at clock c of a table with
 * staleness s while c <= m + s (wrow.valid_until); then it is fetched again,
 * and m >= c - s holds by then because pstore_clock() waited for it (with
 * the smallest s of the store's SSP tables). An async view serves the clock
 * it was fetched in. A fetch copies the master row and adds the log on top:
 * the worker reads its own writes.
 *
 * pstore_clock() flushes the log row by row under the stripe locks and,
 * holding a row's lock, copies the row back into the worker's view. After a
 * clock the views of the rows a worker wrote equal the master copy, so with
 * one worker a run restarted from the master tables alone (caches empty)
 * computes what the uninterrupted run computed, bit for bit.
 *
 * Checkpoints. pstore_state() saves the rest as well, every worker's clock,
 * views (with the clock each serves until) and logs, so that with any
 * number of workers a loaded store answers every later call as the saved
 * one would have.
 */
#include "pstore.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "ckpt.h"
#include "ptm.h"
#include "rng.h"

enum { MAX_STRIPES = 64 };

/* A sparse row: n non-zeros, cols ascending. */
struct srow {
    uint32_t *cols;
    double *vals;
    uint32_t n, cap;
};

union stripe {
    pthread_mutex_t mu;
    char line[64]; /* a cache line each */
};

struct table {
    int64_t nrows, ncols;
    bool sparse, async;
    int32_t staleness;
    double *dense;      /* dense: nrows * ncols, row-major */
    struct srow *srows; /* sparse: nrows */
    union stripe *stripes;
    int64_t nstripes;
};

/* One row of one table as one worker has it. */
struct wrow {
    int64_t valid_until;   /* the view serves reads while clock <= this; -1: no view */
    bool dirty;            /* listed in wtable.dirty: the log may hold increments */
    struct srow view, log; /* sparse tables */
    double *val, *delta;   /* dense tables: view and log, into data[] */
    double data[];
};

struct wtable {
    struct wrow **rows; /* nrows; NULL: never touched */
    int64_t *dirty;     /* rows with pending increments, in first-touch order */
    size_t ndirty, cap;
};

struct pstore_worker {
    struct pstore *ps;
    int id;
    bool finished;
    int64_t clock;       /* this thread's copy of ps->clocks[id] */
    double wait_s;       /* blocked in pstore_clock() */
    struct wtable *tabs; /* ps->ntables */
};

struct pstore {
    int nworkers;
    int ntables;
    struct table *tables;
    struct pstore_worker *workers; /* nworkers */
    int32_t bound;                 /* smallest staleness of the SSP tables; -1: none, no waits */
    _Atomic int64_t *clocks;       /* nworkers; clocks completed */
    _Atomic bool *done;            /* nworkers; pstore_finish() called */
    _Atomic int status;            /* 0, or the abort status */
    pthread_rwlock_t flush_lock;
    pthread_mutex_t clock_mu;
    pthread_cond_t clock_cv;
    int nwaiters;
};

/* pthread_*_init results are errno values. */
static int from_errno(int e)
{
    return e == ENOMEM || e == EAGAIN ? PTM_ENOMEM : PTM_EINVAL;
}

/* ---- sparse rows -------------------------------------------------------- */

/* Room for want non-zeros; the row is unchanged on failure. */
static int srow_reserve(struct srow *r, uint64_t want)
{
    if (want <= r->cap)
        return 0;
    uint64_t cap = r->cap ? (uint64_t)r->cap * 2 : 4;
    if (cap < want)
        cap = want;
    if (cap > UINT32_MAX)
        cap = UINT32_MAX;
    if (cap < want || cap > SIZE_MAX / sizeof(double))
        return PTM_ENOMEM;
    uint32_t *c = ptm_realloc(r->cols, cap * sizeof(*c));
    if (!c)
        return PTM_ENOMEM;
    r->cols = c; /* bigger than cap says until vals follows: harmless */
    double *v = ptm_realloc(r->vals, cap * sizeof(*v));
    if (!v)
        return PTM_ENOMEM;
    r->vals = v;
    r->cap = (uint32_t)cap;
    return 0;
}

static void srow_release(struct srow *r)
{
    ptm_free(r->cols);
    ptm_free(r->vals);
}

/* The first index whose column is >= col. */
static uint32_t srow_find(const struct srow *r, uint32_t col)
{
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->cols[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double srow_get(const struct srow *r, uint32_t col)
{
    uint32_t i = srow_find(r, col);
    return i < r->n && r->cols[i] == col ? r->vals[i] : 0.0;
}

/* r[col] += delta, dropping the entry when it becomes 0; unchanged on failure. */
static int srow_add(struct srow *r, uint32_t col, double delta)
{
    uint32_t i = srow_find(r, col);
    if (i < r->n && r->cols[i] == col) {
        r->vals[i] += delta;
        if (r->vals[i] == 0) {
            memmove(r->cols + i, r->cols + i + 1, (r->n - i - 1) * sizeof(*r->cols));
            memmove(r->vals + i, r->vals + i + 1, (r->n - i - 1) * sizeof(*r->vals));
            r->n--;
        }
        return 0;
    }
    int rc = srow_reserve(r, (uint64_t)r->n + 1);
    if (rc)
        return rc;
    memmove(r->cols + i + 1, r->cols + i, (r->n - i) * sizeof(*r->cols));
    memmove(r->vals + i + 1, r->vals + i, (r->n - i) * sizeof(*r->vals));
    r->cols[i] = col;
    r->vals[i] = delta;
    r->n++;
    return 0;
}

/* d += s, in place; d has room for the union of their columns. Entries that
 * cancel are dropped. d[k] + s[k] is the one rounding, as in a dense row. */
static void srow_merge(struct srow *d, const struct srow *s)
{
    uint32_t a = 0, b = 0, u = 0;
    while (a < d->n && b < s->n) {
        uint32_t ca = d->cols[a], cb = s->cols[b];
        a += ca <= cb;
        b += cb <= ca;
        u++;
    }
    u += (d->n - a) + (s->n - b);
    PTM_ASSERT(u <= d->cap);

    uint32_t i = d->n, j = s->n, k = u;
    bool cancel = false;
    while (j > 0) {
        k--;
        if (i > 0 && d->cols[i - 1] > s->cols[j - 1]) {
            i--;
            d->cols[k] = d->cols[i];
            d->vals[k] = d->vals[i];
        } else if (i > 0 && d->cols[i - 1] == s->cols[j - 1]) {
            i--;
            j--;
            d->cols[k] = d->cols[i];
            d->vals[k] = d->vals[i] + s->vals[j];
            cancel |= d->vals[k] == 0;
        } else {
            j--;
            d->cols[k] = s->cols[j];
            d->vals[k] = s->vals[j];
            cancel |= d->vals[k] == 0;
        }
    }
    d->n = u;
    if (!cancel)
        return;
    uint32_t n = 0;
    for (uint32_t q = 0; q < u; q++) {
        if (d->vals[q] != 0) {
            d->cols[n] = d->cols[q];
            d->vals[n] = d->vals[q];
            n++;
        }
    }
    d->n = n;
}

static int srow_copy(struct srow *d, const struct srow *s)
{
    int rc = srow_reserve(d, s->n);
    if (rc)
        return rc;
    if (s->n) { /* the arrays of an empty row may be NULL */
        memcpy(d->cols, s->cols, s->n * sizeof(*s->cols));
        memcpy(d->vals, s->vals, s->n * sizeof(*s->vals));
    }
    d->n = s->n;
    return 0;
}

/* ---- the store ---------------------------------------------------------- */

int pstore_new(struct pstore **out, int nworkers)
{
    *out = NULL;
    if (nworkers < 1)
        return PTM_EINVAL;
    int rc = PTM_ENOMEM, e;
    struct pstore *ps = ptm_malloc(sizeof(*ps));
    if (!ps)
        return PTM_ENOMEM;
    memset(ps, 0, sizeof(*ps));
    ps->nworkers = nworkers;
    ps->bound = -1;
    atomic_init(&ps->status, 0);
    size_t n = (size_t)nworkers;
    ps->workers = ptm_malloc(n * sizeof(*ps->workers));
    ps->clocks = ptm_malloc(n * sizeof(*ps->clocks));
    ps->done = ptm_malloc(n * sizeof(*ps->done));
    if (!ps->workers || !ps->clocks || !ps->done)
        goto out_free;
    for (int i = 0; i < nworkers; i++) {
        memset(&ps->workers[i], 0, sizeof(ps->workers[i]));
        ps->workers[i].ps = ps;
        ps->workers[i].id = i;
        atomic_init(&ps->clocks[i], 0);
        atomic_init(&ps->done[i], false);
    }
    if ((e = pthread_rwlock_init(&ps->flush_lock, NULL)))
        goto out_errno;
    if ((e = pthread_mutex_init(&ps->clock_mu, NULL)))
        goto out_rwlock;
    if ((e = pthread_cond_init(&ps->clock_cv, NULL)))
        goto out_clock_mu;
    *out = ps;
    return 0;

out_clock_mu:
    pthread_mutex_destroy(&ps->clock_mu);
out_rwlock:
    pthread_rwlock_destroy(&ps->flush_lock);
out_errno:
    rc = from_errno(e);
out_free:
    ptm_free(ps->workers);
    ptm_free((void *)ps->clocks);
    ptm_free((void *)ps->done);
    ptm_free(ps);
    return rc;
}

/* Forget every row worker w has of table t: none touched, nothing logged. */
static void wtable_clear(struct wtable *wt, const struct table *tb)
{
    for (int64_t r = 0; r < tb->nrows; r++) {
        struct wrow *x = wt->rows[r];
        if (x && tb->sparse) {
            srow_release(&x->view);
            srow_release(&x->log);
        }
        ptm_free(x);
        wt->rows[r] = NULL;
    }
    wt->ndirty = 0;
}

static void wtable_release(struct wtable *wt, const struct table *tb)
{
    if (wt->rows)
        wtable_clear(wt, tb);
    ptm_free(wt->rows);
    ptm_free(wt->dirty);
}

static void table_release(struct table *tb)
{
    if (tb->srows) {
        for (int64_t r = 0; r < tb->nrows; r++)
            srow_release(&tb->srows[r]);
    }
    ptm_free(tb->srows);
    ptm_free(tb->dense);
    if (tb->stripes) {
        for (int64_t i = 0; i < tb->nstripes; i++)
            pthread_mutex_destroy(&tb->stripes[i].mu);
    }
    ptm_free(tb->stripes);
}

void pstore_free(struct pstore *ps)
{
    if (!ps)
        return;
    for (int w = 0; w < ps->nworkers; w++) {
        struct pstore_worker *wk = &ps->workers[w];
        for (int t = 0; t < ps->ntables; t++)
            wtable_release(&wk->tabs[t], &ps->tables[t]);
        ptm_free(wk->tabs);
    }
    for (int t = 0; t < ps->ntables; t++)
        table_release(&ps->tables[t]);
    ptm_free(ps->tables);
    pthread_cond_destroy(&ps->clock_cv);
    pthread_mutex_destroy(&ps->clock_mu);
    pthread_rwlock_destroy(&ps->flush_lock);
    ptm_free(ps->workers);
    ptm_free((void *)ps->clocks);
    ptm_free((void *)ps->done);
    ptm_free(ps);
}

/* Sizes of a table's arrays; PTM_ETOOBIG when one does not fit in size_t. */
static int table_sizes(const struct pstore_table_spec *spec, size_t *master, size_t *wrow)
{
    size_t nrows = (size_t)spec->nrows, ncols = (size_t)spec->ncols;
    if ((uint64_t)spec->nrows > SIZE_MAX / sizeof(struct srow) ||
        (uint64_t)spec->ncols > UINT32_MAX)
        return PTM_ETOOBIG;
    if (spec->sparse) {
        *master = nrows * sizeof(struct srow);
        *wrow = sizeof(struct wrow);
        return 0;
    }
    if (ncols > (SIZE_MAX - sizeof(struct wrow)) / (2 * sizeof(double)) ||
        ncols > SIZE_MAX / sizeof(double) / nrows)
        return PTM_ETOOBIG;
    *master = nrows * ncols * sizeof(double);
    *wrow = sizeof(struct wrow) + 2 * ncols * sizeof(double);
    return 0;
}

int pstore_add_table(struct pstore *ps, const struct pstore_table_spec *spec, int *id)
{
    if (spec->nrows < 1 || spec->ncols < 1 || (!spec->async && spec->staleness < 0))
        return PTM_EINVAL;
    size_t master_size, wrow_size;
    int rc = table_sizes(spec, &master_size, &wrow_size);
    if (rc)
        return rc;
    if (ps->ntables == INT_MAX)
        return PTM_ETOOBIG;

    size_t nt = (size_t)ps->ntables + 1;
    struct table *tables = ptm_realloc(ps->tables, nt * sizeof(*tables));
    if (!tables)
        return PTM_ENOMEM;
    ps->tables = tables; /* one spare slot until the table is complete */

    struct table tb = {
        .nrows = spec->nrows,
        .ncols = spec->ncols,
        .sparse = spec->sparse,
        .async = spec->async,
        .staleness = spec->async ? 0 : spec->staleness,
        .nstripes = spec->nrows < MAX_STRIPES ? spec->nrows : MAX_STRIPES,
    };
    rc = PTM_ENOMEM;
    void *master = ptm_malloc(master_size);
    if (!master)
        return PTM_ENOMEM;
    memset(master, 0, master_size);
    if (tb.sparse)
        tb.srows = master;
    else
        tb.dense = master;

    tb.stripes = ptm_malloc((size_t)tb.nstripes * sizeof(*tb.stripes));
    if (!tb.stripes)
        goto out_master;
    int64_t ninit = 0;
    for (; ninit < tb.nstripes; ninit++) {
        int e = pthread_mutex_init(&tb.stripes[ninit].mu, NULL);
        if (e) {
            rc = from_errno(e);
            goto out_stripes;
        }
    }

    int w = 0;
    for (; w < ps->nworkers; w++) {
        struct pstore_worker *wk = &ps->workers[w];
        struct wtable *tabs = ptm_realloc(wk->tabs, nt * sizeof(*tabs));
        if (!tabs)
            goto out_workers;
        wk->tabs = tabs;
        size_t rows_size = (size_t)tb.nrows * sizeof(struct wrow *);
        struct wrow **rows = ptm_malloc(rows_size);
        if (!rows)
            goto out_workers;
        memset(rows, 0, rows_size);
        tabs[ps->ntables] = (struct wtable){.rows = rows};
    }

    ps->tables[ps->ntables] = tb;
    *id = ps->ntables++;
    if (!tb.async && (ps->bound < 0 || tb.staleness < ps->bound))
        ps->bound = tb.staleness;
    return 0;

out_workers:
    while (w-- > 0)
        ptm_free(ps->workers[w].tabs[ps->ntables].rows);
out_stripes:
    while (ninit-- > 0)
        pthread_mutex_destroy(&tb.stripes[ninit].mu);
    ptm_free(tb.stripes);
out_master:
    ptm_free(master);
    return rc;
}

struct pstore_worker *pstore_worker(struct pstore *ps, int w)
{
    PTM_ASSERT(w >= 0 && w < ps->nworkers);
    return &ps->workers[w];
}

/* ---- a worker's side ---------------------------------------------------- */

/* The smallest clock of the unfinished workers; INT64_MAX when none is. */
static int64_t min_clock(struct pstore *ps)
{
    int64_t m = INT64_MAX;
    for (int v = 0; v < ps->nworkers; v++) {
        if (!atomic_load(&ps->done[v])) {
            int64_t c = atomic_load(&ps->clocks[v]);
            if (c < m)
                m = c;
        }
    }
    return m;
}

static pthread_mutex_t *stripe_of(struct table *tb, int64_t row)
{
    return &tb->stripes[row % tb->nstripes].mu;
}

static int check(struct pstore_worker *w, int t, int64_t row, int64_t col)
{
    if (t < 0 || t >= w->ps->ntables || w->finished)
        return PTM_EINVAL;
    const struct table *tb = &w->ps->tables[t];
    if (row < 0 || row >= tb->nrows || col < 0 || col >= tb->ncols)
        return PTM_EINVAL;
    return 0;
}

/* The worker's row, created empty (no view, empty log) on first touch. */
static struct wrow *touch(struct pstore_worker *w, int t, int64_t row)
{
    struct wrow **slot = &w->tabs[t].rows[row];
    if (*slot)
        return *slot;
    const struct table *tb = &w->ps->tables[t];
    size_t ncols = (size_t)tb->ncols;
    size_t size = sizeof(struct wrow) + (tb->sparse ? 0 : 2 * ncols * sizeof(double));
    struct wrow *x = ptm_malloc(size);
    if (!x)
        return NULL;
    memset(x, 0, size);
    x->valid_until = -1;
    if (!tb->sparse) {
        x->val = x->data;
        x->delta = x->data + ncols;
    }
    *slot = x;
    return x;
}

/* Fetch the worker's view of a row: the master copy plus its log. */
static int fetch(struct pstore_worker *w, int t, int64_t row, struct wrow *x)
{
    struct pstore *ps = w->ps;
    struct table *tb = &ps->tables[t];
    int64_t m = min_clock(ps); /* before the lock: the copy holds all of clocks < m */
    if (!tb->async && m < w->clock - tb->staleness) {
        int st = atomic_load(&ps->status);
        PTM_ASSERT(st != 0); /* pstore_clock() waited for m >= clock - bound */
        return st;
    }
    pthread_mutex_t *mu = stripe_of(tb, row);
    pthread_mutex_lock(mu);
    if (!tb->sparse) {
        size_t ncols = (size_t)tb->ncols;
        memcpy(x->val, tb->dense + (size_t)row * ncols, ncols * sizeof(double));
        pthread_mutex_unlock(mu);
        if (x->dirty) {
            for (size_t c = 0; c < ncols; c++)
                x->val[c] += x->delta[c];
        }
    } else {
        const struct srow *src = &tb->srows[row];
        uint64_t want = (uint64_t)src->n + x->log.n; /* room for the merge */
        if (want > (uint64_t)tb->ncols)
            want = (uint64_t)tb->ncols;
        int rc = srow_reserve(&x->view, want);
        if (rc == 0)
            rc = srow_copy(&x->view, src);
        pthread_mutex_unlock(mu);
        if (rc) {
            x->valid_until = -1;
            return rc;
        }
        srow_merge(&x->view, &x->log);
    }
    x->valid_until = tb->async ? w->clock : m + tb->staleness;
    return 0;
}

/* The worker's row with a view fresh enough for its clock. */
static int view_of(struct pstore_worker *w, int t, int64_t row, struct wrow **out)
{
    struct wrow *x = w->tabs[t].rows[row];
    if (x && x->valid_until >= w->clock) {
        *out = x;
        return 0;
    }
    if (!x && !(x = touch(w, t, row)))
        return PTM_ENOMEM;
    int rc = fetch(w, t, row, x);
    if (rc)
        return rc;
    *out = x;
    return 0;
}

int pstore_get(struct pstore_worker *w, int t, int64_t row, int64_t col, double *out)
{
    int rc = check(w, t, row, col);
    if (rc)
        return rc;
    struct wrow *x;
    if ((rc = view_of(w, t, row, &x)))
        return rc;
    if (w->ps->tables[t].sparse)
        *out = srow_get(&x->view, (uint32_t)col);
    else
        *out = x->val[col];
    return 0;
}

int pstore_row_dense(struct pstore_worker *w, int t, int64_t row, const double **vals)
{
    int rc = check(w, t, row, 0);
    if (rc)
        return rc;
    if (w->ps->tables[t].sparse)
        return PTM_EINVAL;
    struct wrow *x;
    if ((rc = view_of(w, t, row, &x)))
        return rc;
    *vals = x->val;
    return 0;
}

int pstore_row_sparse(struct pstore_worker *w, int t, int64_t row, const uint32_t **cols,
                      const double **vals, uint32_t *nnz)
{
    int rc = check(w, t, row, 0);
    if (rc)
        return rc;
    if (!w->ps->tables[t].sparse)
        return PTM_EINVAL;
    struct wrow *x;
    if ((rc = view_of(w, t, row, &x)))
        return rc;
    *cols = x->view.cols;
    *vals = x->view.vals;
    *nnz = x->view.n;
    return 0;
}

int pstore_inc(struct pstore_worker *w, int t, int64_t row, int64_t col, double delta)
{
    int32_t c = (int32_t)col;
    if (col < 0 || col > INT32_MAX)
        return PTM_EINVAL;
    return pstore_inc_row(w, t, row, &c, &delta, 1);
}

/* Room in wt->dirty for one more row. */
static int dirty_room(struct wtable *wt, const struct table *tb)
{
    if (wt->ndirty < wt->cap)
        return 0;
    size_t cap = wt->cap ? wt->cap * 2 : 16;
    if (cap > (size_t)tb->nrows)
        cap = (size_t)tb->nrows;
    int64_t *d = ptm_realloc(wt->dirty, cap * sizeof(*d));
    if (!d)
        return PTM_ENOMEM;
    wt->dirty = d;
    wt->cap = cap;
    return 0;
}

/* Worker w's row of table t, made on first touch, with room to list it
 * as dirty: ready for increments. */
static int inc_target(struct pstore_worker *w, int t, int64_t row, struct wrow **out)
{
    struct wtable *wt = &w->tabs[t];
    struct wrow *x = wt->rows[row];
    if (!x && !(x = touch(w, t, row)))
        return PTM_ENOMEM;
    int rc = x->dirty ? 0 : dirty_room(wt, &w->ps->tables[t]);
    if (rc == 0)
        *out = x;
    return rc;
}

/* Row `row` (x) holds increments: list it for the next flush. */
static void mark_dirty(struct wtable *wt, struct wrow *x, int64_t row)
{
    if (!x->dirty) {
        x->dirty = true;
        wt->dirty[wt->ndirty++] = row;
    }
}

int pstore_inc_row(struct pstore_worker *w, int t, int64_t row, const int32_t *cols,
                   const double *deltas, int64_t n)
{
    int rc = check(w, t, row, 0);
    if (rc)
        return rc;
    const struct table *tb = &w->ps->tables[t];
    for (int64_t i = 0; i < n; i++)
        if (cols[i] < 0 || cols[i] >= tb->ncols)
            return PTM_EINVAL;
    struct wrow *x;
    if ((rc = inc_target(w, t, row, &x)))
        return rc;
    bool any = false;
    if (!tb->sparse) {
        double *restrict delta = x->delta, *restrict val = x->val;
        bool viewed = x->valid_until >= 0;
        for (int64_t i = 0; i < n; i++) {
            delta[cols[i]] += deltas[i];
            if (viewed)
                val[cols[i]] += deltas[i];
            any |= deltas[i] != 0;
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            if (deltas[i] == 0)
                continue;
            any = true;
            /* an increment that cannot be logged is not made: the ones
             * before it are */
            if ((rc = srow_add(&x->log, (uint32_t)cols[i], deltas[i])))
                break;
            if (x->valid_until >= 0 && srow_add(&x->view, (uint32_t)cols[i], deltas[i]))
                x->valid_until = -1; /* the next read fetches it again, log included */
        }
    }
    if (any)
        mark_dirty(&w->tabs[t], x, row);
    return rc;
}

int pstore_inc_dense(struct pstore_worker *w, int t, int64_t row, const double *deltas)
{
    int rc = check(w, t, row, 0);
    if (rc)
        return rc;
    const struct table *tb = &w->ps->tables[t];
    if (tb->sparse)
        return PTM_EINVAL;
    struct wrow *x;
    if ((rc = inc_target(w, t, row, &x)))
        return rc;
    size_t ncols = (size_t)tb->ncols;
    double *restrict delta = x->delta, *restrict val = x->val;
    bool any = false;
    for (size_t c = 0; c < ncols; c++) {
        delta[c] += deltas[c];
        any |= deltas[c] != 0;
    }
    if (x->valid_until >= 0)
        for (size_t c = 0; c < ncols; c++)
            val[c] += deltas[c];
    if (any)
        mark_dirty(&w->tabs[t], x, row);
    return 0;
}

/* Apply the worker's log of table t to the master copy and refresh the views
 * of the rows written; m is the smallest clock, loaded before. On failure
 * the rows not yet applied stay in the log. */
static int flush_table(struct pstore_worker *w, int t, int64_t m)
{
    struct pstore *ps = w->ps;
    struct table *tb = &ps->tables[t];
    struct wtable *wt = &w->tabs[t];
    int64_t until = tb->async ? w->clock + 1 : m + tb->staleness;
    size_t ncols = (size_t)tb->ncols, i = 0;
    int rc = 0;
    for (; i < wt->ndirty; i++) {
        int64_t row = wt->dirty[i];
        struct wrow *x = wt->rows[row];
        pthread_mutex_t *mu = stripe_of(tb, row);
        pthread_mutex_lock(mu);
        if (!tb->sparse) {
            double *dst = tb->dense + (size_t)row * ncols;
            for (size_t c = 0; c < ncols; c++)
                dst[c] += x->delta[c];
            if (x->valid_until >= 0)
                memcpy(x->val, dst, ncols * sizeof(double));
            pthread_mutex_unlock(mu);
            memset(x->delta, 0, ncols * sizeof(double));
        } else {
            struct srow *dst = &tb->srows[row];
            uint64_t want = (uint64_t)dst->n + x->log.n;
            rc = srow_reserve(dst, want < ncols ? want : ncols);
            if (rc) {
                pthread_mutex_unlock(mu);
                break;
            }
            srow_merge(dst, &x->log);
            if (x->valid_until >= 0 && srow_copy(&x->view, dst))
                x->valid_until = -1;
            pthread_mutex_unlock(mu);
            x->log.n = 0;
        }
        if (x->valid_until >= 0)
            x->valid_until = until;
        x->dirty = false;
    }
    if (i < wt->ndirty)
        memmove(wt->dirty, wt->dirty + i, (wt->ndirty - i) * sizeof(*wt->dirty));
    wt->ndirty -= i;
    return rc;
}

static int flush(struct pstore_worker *w)
{
    struct pstore *ps = w->ps;
    int64_t m = min_clock(ps);
    int rc = 0;
    for (int t = 0; t < ps->ntables && rc == 0; t++)
        rc = flush_table(w, t, m);
    return rc;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Block until every unfinished worker has completed `need` clocks, or the
 * store is aborted. */
static void wait_for(struct pstore_worker *w, int64_t need)
{
    struct pstore *ps = w->ps;
    if (min_clock(ps) >= need || atomic_load(&ps->status))
        return;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_mutex_lock(&ps->clock_mu);
    while (min_clock(ps) < need && !atomic_load(&ps->status)) {
        ps->nwaiters++;
        pthread_cond_wait(&ps->clock_cv, &ps->clock_mu);
        ps->nwaiters--;
    }
    pthread_mutex_unlock(&ps->clock_mu);
    w->wait_s += seconds_since(&t0);
}

int pstore_clock(struct pstore_worker *w)
{
    struct pstore *ps = w->ps;
    if (w->finished)
        return PTM_EINVAL;
    pthread_rwlock_rdlock(&ps->flush_lock);
    int rc = flush(w);
    if (rc == 0) {
        pthread_mutex_lock(&ps->clock_mu);
        w->clock++;
        atomic_store(&ps->clocks[w->id], w->clock);
        if (ps->nwaiters)
            pthread_cond_broadcast(&ps->clock_cv);
        pthread_mutex_unlock(&ps->clock_mu);
    }
    pthread_rwlock_unlock(&ps->flush_lock);
    if (rc)
        return rc;
    /* The call that starts clock c returns when every worker has completed
     * clock c - s - 1, i.e. has made c - s calls. */
    if (ps->bound >= 0)
        wait_for(w, w->clock - ps->bound);
    return atomic_load(&ps->status);
}

int pstore_finish(struct pstore_worker *w)
{
    struct pstore *ps = w->ps;
    if (w->finished)
        return 0;
    pthread_rwlock_rdlock(&ps->flush_lock);
    int rc = flush(w);
    if (rc == 0) {
        pthread_mutex_lock(&ps->clock_mu);
        atomic_store(&ps->done[w->id], true);
        if (ps->nwaiters)
            pthread_cond_broadcast(&ps->clock_cv);
        pthread_mutex_unlock(&ps->clock_mu);
    }
    pthread_rwlock_unlock(&ps->flush_lock);
    if (rc == 0)
        w->finished = true;
    return rc;
}

int64_t pstore_worker_clock(const struct pstore_worker *w)
{
    return atomic_load(&w->ps->clocks[w->id]);
}

double pstore_worker_wait(const struct pstore_worker *w)
{
    return w->wait_s;
}

/* ---- any thread --------------------------------------------------------- */

void pstore_abort(struct pstore *ps, int status)
{
    PTM_ASSERT(status < 0);
    int zero = 0;
    pthread_mutex_lock(&ps->clock_mu);
    atomic_compare_exchange_strong(&ps->status, &zero, status);
    pthread_cond_broadcast(&ps->clock_cv);
    pthread_mutex_unlock(&ps->clock_mu);
}

int pstore_read(struct pstore *ps, int t, double *out)
{
    if (t < 0 || t >= ps->ntables)
        return PTM_EINVAL;
    const struct table *tb = &ps->tables[t];
    size_t ncols = (size_t)tb->ncols, nrows = (size_t)tb->nrows;
    pthread_rwlock_wrlock(&ps->flush_lock);
    if (!tb->sparse) {
        memcpy(out, tb->dense, nrows * ncols * sizeof(double));
    } else {
        memset(out, 0, nrows * ncols * sizeof(double));
        for (size_t r = 0; r < nrows; r++) {
            const struct srow *s = &tb->srows[r];
            for (uint32_t i = 0; i < s->n; i++)
                out[r * ncols + s->cols[i]] = s->vals[i];
        }
    }
    pthread_rwlock_unlock(&ps->flush_lock);
    return 0;
}

int pstore_visit(struct pstore *ps, int t, pstore_row_fn fn, void *ud)
{
    if (t < 0 || t >= ps->ntables)
        return PTM_EINVAL;
    const struct table *tb = &ps->tables[t];
    size_t ncols = (size_t)tb->ncols;
    int rc = 0;
    pthread_rwlock_wrlock(&ps->flush_lock);
    for (int64_t r = 0; r < tb->nrows && rc == 0; r++) {
        if (tb->sparse) {
            const struct srow *s = &tb->srows[r];
            rc = fn(ud, r, s->cols, s->vals, s->n);
        } else {
            rc = fn(ud, r, NULL, tb->dense + (size_t)r * ncols, (uint32_t)ncols);
        }
    }
    pthread_rwlock_unlock(&ps->flush_lock);
    return rc;
}

/* ---- initial values ----------------------------------------------------- */

/* Forget every worker's view of row (all rows when row < 0) of table t. */
static void drop_views(struct pstore *ps, int t, int64_t row)
{
    int64_t lo = row < 0 ? 0 : row, hi = row < 0 ? ps->tables[t].nrows : row + 1;
    for (int w = 0; w < ps->nworkers; w++) {
        struct wrow **rows = ps->workers[w].tabs[t].rows;
        for (int64_t r = lo; r < hi; r++) {
            if (rows[r])
                rows[r]->valid_until = -1;
        }
    }
}

int pstore_fill(struct pstore *ps, int t, double value)
{
    if (t < 0 || t >= ps->ntables)
        return PTM_EINVAL;
    struct table *tb = &ps->tables[t];
    if (tb->sparse && value != 0)
        return PTM_EINVAL;
    pthread_rwlock_wrlock(&ps->flush_lock);
    if (tb->sparse) {
        for (int64_t r = 0; r < tb->nrows; r++)
            tb->srows[r].n = 0;
    } else {
        size_t n = (size_t)tb->nrows * (size_t)tb->ncols;
        for (size_t i = 0; i < n; i++)
            tb->dense[i] = value;
    }
    drop_views(ps, t, -1);
    pthread_rwlock_unlock(&ps->flush_lock);
    return 0;
}

int pstore_fill_uniform(struct pstore *ps, int t, double lo, double hi, uint64_t seed)
{
    if (t < 0 || t >= ps->ntables || !(lo <= hi) || !isfinite(hi - lo))
        return PTM_EINVAL;
    struct table *tb = &ps->tables[t];
    if (tb->sparse)
        return PTM_EINVAL;
    struct ptm_rng rng;
    ptm_rng_seed(&rng, seed);
    pthread_rwlock_wrlock(&ps->flush_lock);
    size_t n = (size_t)tb->nrows * (size_t)tb->ncols;
    for (size_t i = 0; i < n; i++) {
        double v = lo + (hi - lo) * ptm_rng_uniform(&rng);
        tb->dense[i] = v > hi ? hi : v;
    }
    drop_views(ps, t, -1);
    pthread_rwlock_unlock(&ps->flush_lock);
    return 0;
}

int pstore_write_row(struct pstore *ps, int t, int64_t row, const double *vals)
{
    if (t < 0 || t >= ps->ntables || row < 0 || row >= ps->tables[t].nrows)
        return PTM_EINVAL;
    struct table *tb = &ps->tables[t];
    size_t ncols = (size_t)tb->ncols;
    int rc = 0;
    pthread_rwlock_wrlock(&ps->flush_lock);
    if (!tb->sparse) {
        memcpy(tb->dense + (size_t)row * ncols, vals, ncols * sizeof(double));
    } else {
        struct srow *s = &tb->srows[row];
        uint64_t nnz = 0;
        for (size_t c = 0; c < ncols; c++)
            nnz += vals[c] != 0;
        if ((rc = srow_reserve(s, nnz)))
            goto out_unlock;
        s->n = 0;
        for (size_t c = 0; c < ncols; c++) {
            if (vals[c] != 0) {
                s->cols[s->n] = (uint32_t)c;
                s->vals[s->n++] = vals[c];
            }
        }
    }
    drop_views(ps, t, row);
out_unlock:
    pthread_rwlock_unlock(&ps->flush_lock);
    return rc;
}

/* ---- checkpoints -------------------------------------------------------- */

/* A sparse row's non-zeros. On load the row is made to hold the saved
 * ones, which must be columns < ncols, ascending. */
static void srow_state(struct ptm_ckpt *ck, struct srow *r, int64_t ncols)
{
    size_t n = ck->load ? 0 : r->n;
    ptm_ck_count(ck, &n, (size_t)ncols, "non-zeros of a row of the parameter store");
    if (ck->err)
        return;
    if (ck->load) {
        if (srow_reserve(r, n)) {
            ptm_ck_fail(ck, PTM_ENOMEM, "no memory for the parameter store's rows");
            return;
        }
        r->n = 0; /* until the row is read whole */
    }
    PTM_CK_ARRAY(ck, r->cols, n);
    PTM_CK_ARRAY(ck, r->vals, n);
    if (!ck->load || ck->err)
        return;
    for (size_t i = 0; i < n; i++) {
        if (r->cols[i] >= (uint64_t)ncols || (i > 0 && r->cols[i] <= r->cols[i - 1])) {
            ptm_ck_fail(ck, PTM_EDATA,
                        "a row of the parameter store in the checkpoint is "
                        "out of order");
            return;
        }
    }
    r->n = (uint32_t)n;
}

/* Worker w's rows of table t: the rows it has touched, ascending, each
 * with the clock its view serves until, the view and the log; then the
 * rows with pending increments, in the order they will be flushed (a
 * row's `dirty` is its being in that list, so the list restores it). */
static void wtable_state(struct ptm_ckpt *ck, struct pstore_worker *w, int t)
{
    const struct table *tb = &w->ps->tables[t];
    struct wtable *wt = &w->tabs[t];
    size_t ncols = (size_t)tb->ncols;

    size_t ntouched = 0;
    if (!ck->load) {
        for (int64_t r = 0; r < tb->nrows; r++)
            ntouched += wt->rows[r] != NULL;
    } else {
        wtable_clear(wt, tb);
    }
    ptm_ck_count(ck, &ntouched, (size_t)tb->nrows, "rows a worker holds");
    int64_t r = -1; /* the last row saved or loaded */
    for (size_t i = 0; i < ntouched && !ck->err; i++) {
        struct wrow *x = NULL;
        if (!ck->load) {
            while (!wt->rows[++r])
                ;
            x = wt->rows[r];
        }
        int64_t row = r;
        PTM_CK(ck, row);
        if (ck->err)
            break;
        if (ck->load) {
            if (row <= r || row >= tb->nrows) {
                ptm_ck_fail(ck, PTM_EDATA, "a worker's rows in the checkpoint are out of order");
                break;
            }
            r = row;
            if (!(x = touch(w, t, row))) {
                ptm_ck_fail(ck, PTM_ENOMEM, "no memory for the parameter store's rows");
                break;
            }
        }
        PTM_CK(ck, x->valid_until);
        if (tb->sparse) {
            srow_state(ck, &x->view, tb->ncols);
            srow_state(ck, &x->log, tb->ncols);
        } else {
            PTM_CK_ARRAY(ck, x->data, 2 * ncols); /* view, then log */
        }
    }

    size_t ndirty = ck->load ? 0 : wt->ndirty;
    ptm_ck_count(ck, &ndirty, ntouched, "rows a worker has to flush");
    if (ck->err)
        return;
    if (!ck->load) {
        PTM_CK_ARRAY(ck, wt->dirty, ndirty);
        return;
    }
    if (ndirty > wt->cap) {
        int64_t *d = ptm_realloc(wt->dirty, ndirty * sizeof(*d));
        if (!d) {
            ptm_ck_fail(ck, PTM_ENOMEM, "no memory for the parameter store's rows");
            return;
        }
        wt->dirty = d;
        wt->cap = ndirty;
    }
    PTM_CK_ARRAY(ck, wt->dirty, ndirty);
    for (size_t i = 0; i < ndirty && !ck->err; i++) {
        int64_t row = wt->dirty[i];
        struct wrow *x = row >= 0 && row < tb->nrows ? wt->rows[row] : NULL;
        if (!x || x->dirty) {
            ptm_ck_fail(ck, PTM_EDATA,
                        "a worker's rows to flush in the checkpoint are not "
                        "rows it holds");
            break;
        }
        x->dirty = true;
        wt->ndirty = i + 1;
    }
}

/* DESIGN: the stream holds the tables' shapes (checked on load), the master
 * tables, then each worker's clock, whether it finished, its seconds
 * waited and its rows of every table: everything a later call reads, so a
 * loaded store answers every later call as the saved one would have, with
 * any number of workers. Not saved: the abort status (a run that aborted
 * its store makes no checkpoint) and the capacities of arrays, which
 * change no value. */
void pstore_state(struct pstore *ps, struct ptm_ckpt *ck)
{
    ptm_ck_tag(ck, "pstore");
    ptm_ck_size(ck, ps->nworkers, "parameter store's workers");
    ptm_ck_size(ck, ps->ntables, "parameter store's tables");
    for (int t = 0; t < ps->ntables; t++) {
        const struct table *tb = &ps->tables[t];
        ptm_ck_size(ck, tb->nrows, "rows of a table of the parameter store");
        ptm_ck_size(ck, tb->ncols, "columns of a table of the parameter store");
        ptm_ck_size(ck, tb->sparse, "sparse layout (1) of a table of the parameter store");
        ptm_ck_size(ck, tb->async, "async (1) of a table of the parameter store");
        ptm_ck_size(ck, tb->staleness, "staleness of a table of the parameter store");
    }
    if (ck->err)
        return;

    pthread_rwlock_wrlock(&ps->flush_lock);
    for (int t = 0; t < ps->ntables && !ck->err; t++) {
        struct table *tb = &ps->tables[t];
        if (!tb->sparse) {
            PTM_CK_ARRAY(ck, tb->dense, (size_t)tb->nrows * (size_t)tb->ncols);
            continue;
        }
        for (int64_t r = 0; r < tb->nrows && !ck->err; r++)
            srow_state(ck, &tb->srows[r], tb->ncols);
    }
    for (int i = 0; i < ps->nworkers && !ck->err; i++) {
        struct pstore_worker *w = &ps->workers[i];
        uint8_t finished = w->finished;
        PTM_CK(ck, w->clock);
        PTM_CK(ck, finished);
        PTM_CK(ck, w->wait_s);
        if (ck->load && !ck->err) {
            if (w->clock < 0 || finished > 1) {
                ptm_ck_fail(ck, PTM_EDATA,
                            "the parameter store's clocks in the checkpoint are "
                            "not clocks");
                break;
            }
            w->finished = finished;
            pthread_mutex_lock(&ps->clock_mu);
            atomic_store(&ps->clocks[i], w->clock);
            atomic_store(&ps->done[i], w->finished);
            pthread_mutex_unlock(&ps->clock_mu);
        }
        for (int t = 0; t < ps->ntables && !ck->err; t++)
            wtable_state(ck, w, t);
    }
    pthread_rwlock_unlock(&ps->flush_lock);
}
