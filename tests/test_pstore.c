/*
 * test_pstore.c - the parameter store: single-thread semantics (caching,
 * read-my-writes, sparse rows, initial values, errors), then the SSP
 * guarantee, the staleness bound, lost updates, abort, allocation failure
 * and snapshots with real threads.
 *
 * DESIGN: the threaded tests never trust the store's own bookkeeping. Each
 * increment is tagged: worker w at clock k adds 1 to column w * CLOCKS + k
 * of a row, so a read tells exactly which (worker, clock) updates it holds.
 * The test keeps its own record of what was written (`written`, set before
 * the increment) and of how far every worker has got (`reached`: the clock
 * it is writing; `entered`: the pstore_clock() calls it has started),
 * stored before the store can know. A worker writes a random subset of the
 * rows in each clock, so some rows are read from a cache it did not write. Seeded random sleeps
 * and yields between operations shuffle the interleavings; the seed is in
 * the table row, so a failure replays (modulo the scheduler).
 * Worker threads do not call ck_assert (not safe off the main thread): they
 * record the first failure, abort the store so nobody stays blocked, and
 * the main thread asserts after joining them.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "ckpt.h"
#include "pstore.h"
#include "ptm.h"

enum { MAXW = 4, ASYNC = -1 };

/* ---- helpers -------------------------------------------------------------- */

/* The test's own PRNG (xorshift64*), independent of the store's. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1du;
}

static uint64_t rnd_seed(uint64_t seed)
{
    return seed * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* A random pause: mostly nothing, sometimes a yield, now and then a sleep. */
static void jitter(uint64_t *s)
{
    unsigned r = (unsigned)(rnd(s) % 32);
    if (r < 20)
        return;
    if (r < 27)
        sched_yield();
    else if (r < 31)
        sleep_us((long)(rnd(s) % 50));
    else
        sleep_us(50 + (long)(rnd(s) % 250));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct pstore *new_store(int nworkers)
{
    struct pstore *ps;
    ck_assert_int_eq(pstore_new(&ps, nworkers), 0);
    return ps;
}

static int add_table(struct pstore *ps, int64_t nrows, int64_t ncols, bool sparse, int staleness)
{
    struct pstore_table_spec spec = {
        .nrows = nrows,
        .ncols = ncols,
        .sparse = sparse,
        .async = staleness == ASYNC,
        .staleness = staleness == ASYNC ? 0 : staleness,
    };
    int id = -1;
    ck_assert_int_eq(pstore_add_table(ps, &spec, &id), 0);
    return id;
}

static double get(struct pstore_worker *w, int t, int64_t row, int64_t col)
{
    double v = NAN;
    ck_assert_int_eq(pstore_get(w, t, row, col, &v), 0);
    return v;
}

/* A worker's whole row, dense or sparse, as ncols doubles. */
static int read_row(struct pstore_worker *w, int t, bool sparse, int64_t row, double *out,
                    int64_t ncols)
{
    if (!sparse) {
        const double *v;
        int rc = pstore_row_dense(w, t, row, &v);
        if (rc == 0)
            memcpy(out, v, (size_t)ncols * sizeof(double));
        return rc;
    }
    const uint32_t *cols;
    const double *vals;
    uint32_t n;
    int rc = pstore_row_sparse(w, t, row, &cols, &vals, &n);
    if (rc)
        return rc;
    memset(out, 0, (size_t)ncols * sizeof(double));
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && cols[i] <= cols[i - 1])
            return -100; /* not ascending */
        if (vals[i] == 0)
            return -101; /* a stored zero */
        out[cols[i]] = vals[i];
    }
    return 0;
}

/* The first failure of a threaded test, reported by the main thread. */
struct failure {
    pthread_mutex_t mu;
    _Atomic bool failed;
    char msg[256];
};

static void failure_init(struct failure *f)
{
    pthread_mutex_init(&f->mu, NULL);
    atomic_init(&f->failed, false);
    f->msg[0] = '\0';
}

__attribute__((format(printf, 3, 4))) static void flunk(struct failure *f, struct pstore *ps,
                                                        const char *fmt, ...)
{
    pthread_mutex_lock(&f->mu);
    if (!atomic_load(&f->failed)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
        va_end(ap);
        atomic_store(&f->failed, true);
    }
    pthread_mutex_unlock(&f->mu);
    pstore_abort(ps, PTM_EINVAL); /* nobody stays blocked on a failed worker */
}

static void run_threads(int n, void *(*fn)(void *), void *args, size_t argsize)
{
    pthread_t th[MAXW];
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, fn, (char *)args + (size_t)i * argsize), 0);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
}

/* ---- single thread --------------------------------------------------------- */

START_TEST(test_read_my_writes)
{
    struct pstore *ps = new_store(1);
    int d = add_table(ps, 5, 4, false, 0);
    int s = add_table(ps, 5, 1000, true, 2);
    struct pstore_worker *w = pstore_worker(ps, 0);

    ck_assert(get(w, d, 2, 3) == 0);
    ck_assert_int_eq(pstore_inc(w, d, 2, 3, 1.5), 0);
    ck_assert_int_eq(pstore_inc(w, d, 2, 3, 0.25), 0);
    ck_assert(get(w, d, 2, 3) == 1.75); /* cached row, own increments applied */
    ck_assert_int_eq(pstore_inc(w, d, 4, 0, -2), 0);
    ck_assert(get(w, d, 4, 0) == -2); /* fetched after the increment: log applied */
    double all[20];
    ck_assert_int_eq(pstore_read(ps, d, all), 0);
    ck_assert(all[2 * 4 + 3] == 0); /* nothing flushed yet */

    ck_assert_int_eq(pstore_inc(w, s, 1, 999, 3), 0);
    ck_assert_int_eq(pstore_inc(w, s, 1, 7, 1), 0);
    ck_assert_int_eq(pstore_inc(w, s, 1, 500, 2), 0);
    ck_assert(get(w, s, 1, 500) == 2);
    ck_assert_int_eq(pstore_inc(w, s, 1, 0, 4), 0);
    const uint32_t *cols;
    const double *vals;
    uint32_t n;
    ck_assert_int_eq(pstore_row_sparse(w, s, 1, &cols, &vals, &n), 0);
    ck_assert_uint_eq(n, 4);
    const uint32_t want_c[] = {0, 7, 500, 999};
    const double want_v[] = {4, 1, 2, 3};
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_eq(cols[i], want_c[i]);
        ck_assert(vals[i] == want_v[i]);
    }

    ck_assert_int_eq(pstore_clock(w), 0);
    ck_assert_int_eq(pstore_worker_clock(w), 1);
    ck_assert(get(w, d, 2, 3) == 1.75);
    ck_assert_int_eq(pstore_read(ps, d, all), 0);
    ck_assert(all[2 * 4 + 3] == 1.75 && all[4 * 4 + 0] == -2);
    ck_assert(get(w, s, 1, 999) == 3);

    /* Increments that cancel leave no stored zero, in the view or the master. */
    ck_assert_int_eq(pstore_inc(w, s, 1, 7, -1), 0);
    ck_assert_int_eq(pstore_row_sparse(w, s, 1, &cols, &vals, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(get(w, s, 1, 7) == 0);
    ck_assert_int_eq(pstore_clock(w), 0);
    ck_assert_int_eq(pstore_row_sparse(w, s, 1, &cols, &vals, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(cols[1], 500);
    ck_assert_int_eq(pstore_finish(w), 0);
    ck_assert_int_eq(pstore_inc(w, d, 0, 0, 1), PTM_EINVAL);
    pstore_free(ps);
}
END_TEST

/* A whole dense row of increments: the worker's view at once (whether it
 * had one or not), the master copy when it flushes; a sparse table
 * refuses. */
START_TEST(test_inc_dense)
{
    struct pstore *ps = new_store(2);
    int d = add_table(ps, 3, 4, false, 0);
    int s = add_table(ps, 3, 4, true, 0);
    struct pstore_worker *w = pstore_worker(ps, 0), *o = pstore_worker(ps, 1);
    const double a[4] = {1, -2, 0, 0.5}, b[4] = {0.25, 0, 0, -0.5}, zero[4] = {0, 0, 0, 0};
    ck_assert_int_eq(pstore_inc_dense(w, d, 1, a), 0); /* no view yet */
    const double *v;
    ck_assert_int_eq(pstore_row_dense(w, d, 1, &v), 0);
    ck_assert(v[0] == 1 && v[1] == -2 && v[2] == 0 && v[3] == 0.5);
    ck_assert_int_eq(pstore_inc_dense(w, d, 1, b), 0); /* into the view too */
    ck_assert(v[0] == 1.25 && v[1] == -2 && v[3] == 0);
    ck_assert_int_eq(pstore_inc_dense(w, d, 2, zero), 0); /* nothing to flush */
    double all[12];
    ck_assert_int_eq(pstore_read(ps, d, all), 0);
    ck_assert(all[4] == 0);
    ck_assert_int_eq(pstore_inc_dense(w, s, 1, a), PTM_EINVAL);
    ck_assert_int_eq(pstore_inc_dense(w, d, 3, a), PTM_EINVAL);
    ck_assert_int_eq(pstore_finish(w), 0); /* flushes, and holds nobody back */
    ck_assert_int_eq(pstore_read(ps, d, all), 0);
    ck_assert(all[4] == 1.25 && all[5] == -2 && all[6] == 0 && all[7] == 0);
    for (int j = 0; j < 12; j++)
        ck_assert(j / 4 == 1 || all[j] == 0);
    ck_assert_int_eq(pstore_clock(o), 0);
    ck_assert_int_eq(pstore_row_dense(o, d, 1, &v), 0); /* the other worker, a clock later */
    ck_assert(v[0] == 1.25 && v[1] == -2);
    pstore_free(ps);
}
END_TEST

static int count_row(void *ud, int64_t row, const uint32_t *cols, const double *vals, uint32_t n)
{
    (void)row;
    (void)vals;
    int *nnz = ud;
    *nnz += (int)n;
    if (cols) {
        for (uint32_t i = 0; i < n; i++) {
            if (vals[i] == 0)
                return 1;
        }
    }
    return 0;
}

START_TEST(test_sparse_cancel_master)
{
    /* Two workers' increments cancel in the master copy. */
    struct pstore *ps = new_store(2);
    int s = add_table(ps, 3, 100, true, ASYNC);
    struct pstore_worker *a = pstore_worker(ps, 0), *b = pstore_worker(ps, 1);
    ck_assert_int_eq(pstore_inc(a, s, 0, 10, 2), 0);
    ck_assert_int_eq(pstore_inc(a, s, 0, 20, 1), 0);
    ck_assert_int_eq(pstore_inc(b, s, 0, 10, -2), 0);
    ck_assert_int_eq(pstore_inc(b, s, 0, 5, 1), 0);
    ck_assert_int_eq(pstore_clock(a), 0);
    ck_assert_int_eq(pstore_clock(b), 0);
    int nnz = 0;
    ck_assert_int_eq(pstore_visit(ps, s, count_row, &nnz), 0);
    ck_assert_int_eq(nnz, 2);
    ck_assert(get(a, s, 0, 10) == 0 && get(a, s, 0, 5) == 1 && get(a, s, 0, 20) == 1);
    pstore_free(ps);
}
END_TEST

START_TEST(test_staleness_cache)
{
    /* Two workers driven from one thread, staleness 1: a cached row may be
     * served while it is fresh enough, and is fetched again when not. */
    struct pstore *ps = new_store(2);
    int t = add_table(ps, 2, 2, false, 1);
    struct pstore_worker *a = pstore_worker(ps, 0), *b = pstore_worker(ps, 1);
    ck_assert(get(b, t, 0, 0) == 0); /* b caches row 0 at min clock 0 */
    ck_assert_int_eq(pstore_inc(a, t, 0, 0, 1), 0);
    ck_assert_int_eq(pstore_clock(a), 0); /* a at 1 */
    ck_assert(get(b, t, 0, 0) == 0);      /* b at 0: a's clock 0 may be missing */
    ck_assert(get(b, t, 1, 0) == 0);
    ck_assert_int_eq(pstore_clock(b), 0); /* b at 1: needs clocks <= -1 only */
    ck_assert(get(b, t, 0, 0) == 0);      /* still the cached copy */
    ck_assert_int_eq(pstore_clock(a), 0); /* a at 2 */
    ck_assert_int_eq(pstore_clock(b), 0); /* b at 2: must see a's clock 0 */
    ck_assert(get(b, t, 0, 0) == 1);
    ck_assert(pstore_worker_wait(a) == 0 && pstore_worker_wait(b) == 0);
    pstore_free(ps);
}
END_TEST

START_TEST(test_async_refresh)
{
    /* Async rows are re-read once per clock: no bound, but not stuck. */
    struct pstore *ps = new_store(2);
    int t = add_table(ps, 1, 1, false, ASYNC);
    struct pstore_worker *a = pstore_worker(ps, 0), *b = pstore_worker(ps, 1);
    ck_assert(get(b, t, 0, 0) == 0);
    for (int i = 0; i < 5; i++) { /* a runs ahead freely */
        ck_assert_int_eq(pstore_inc(a, t, 0, 0, 1), 0);
        ck_assert_int_eq(pstore_clock(a), 0);
    }
    ck_assert(get(b, t, 0, 0) == 0); /* same clock: cached */
    ck_assert_int_eq(pstore_clock(b), 0);
    ck_assert(get(b, t, 0, 0) == 5);
    pstore_free(ps);
}
END_TEST

START_TEST(test_errors)
{
    struct pstore *ps;
    ck_assert_int_eq(pstore_new(&ps, 0), PTM_EINVAL);
    ck_assert_ptr_null(ps);
    ps = new_store(1);
    int id = -1;
    struct pstore_table_spec bad[] = {
        {.nrows = 0, .ncols = 1},
        {.nrows = 1, .ncols = 0},
        {.nrows = 1, .ncols = 1, .staleness = -1},
        {.nrows = -5, .ncols = 1, .async = true},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(bad); i++)
        ck_assert_int_eq(pstore_add_table(ps, &bad[i], &id), PTM_EINVAL);
    struct pstore_table_spec huge = {.nrows = INT64_MAX / 2, .ncols = INT64_MAX / 2};
    ck_assert_int_eq(pstore_add_table(ps, &huge, &id), PTM_ETOOBIG);
    struct pstore_table_spec wide = {.nrows = 1, .ncols = (int64_t)UINT32_MAX + 1, .sparse = true};
    ck_assert_int_eq(pstore_add_table(ps, &wide, &id), PTM_ETOOBIG);
    wide.sparse = false;
    ck_assert_int_eq(pstore_add_table(ps, &wide, &id), PTM_ETOOBIG);
    ck_assert_int_eq(id, -1);

    int d = add_table(ps, 3, 3, false, 0);
    int s = add_table(ps, 3, 3, true, 0);
    struct pstore_worker *w = pstore_worker(ps, 0);
    double v;
    const double *row;
    const uint32_t *cols;
    uint32_t n;
    ck_assert_int_eq(pstore_get(w, 2, 0, 0, &v), PTM_EINVAL);
    ck_assert_int_eq(pstore_get(w, -1, 0, 0, &v), PTM_EINVAL);
    ck_assert_int_eq(pstore_get(w, d, 3, 0, &v), PTM_EINVAL);
    ck_assert_int_eq(pstore_get(w, d, 0, -1, &v), PTM_EINVAL);
    ck_assert_int_eq(pstore_inc(w, s, 0, 3, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_row_dense(w, s, 0, &row), PTM_EINVAL);
    ck_assert_int_eq(pstore_row_sparse(w, d, 0, &cols, &row, &n), PTM_EINVAL);
    ck_assert_int_eq(pstore_fill(ps, s, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_fill_uniform(ps, s, 0, 1, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_fill_uniform(ps, d, 1, 0, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_fill_uniform(ps, d, 0, INFINITY, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_fill_uniform(ps, d, NAN, 1, 1), PTM_EINVAL);
    ck_assert_int_eq(pstore_write_row(ps, d, 3, (double[3]){0}), PTM_EINVAL);
    ck_assert_int_eq(pstore_read(ps, 7, (double[9]){0}), PTM_EINVAL);
    pstore_free(ps);
    pstore_free(NULL);
}
END_TEST

START_TEST(test_fill)
{
    enum { R = 100, C = 100 };
    struct pstore *ps = new_store(2);
    int t = add_table(ps, R, C, false, 0);
    int s = add_table(ps, 4, 8, true, 0);
    struct pstore_worker *w = pstore_worker(ps, 0);
    static double a[R * C], b[R * C];

    ck_assert(get(w, t, 7, 7) == 0); /* cached; the fill must drop it */
    ck_assert_int_eq(pstore_fill(ps, t, 2.5), 0);
    ck_assert(get(w, t, 7, 7) == 2.5);
    ck_assert_int_eq(pstore_read(ps, t, a), 0);
    for (int i = 0; i < R * C; i++)
        ck_assert(a[i] == 2.5);

    /* Uniform: in range, mean and variance of U(-1, 3), one value per seed. */
    ck_assert_int_eq(pstore_fill_uniform(ps, t, -1, 3, 42), 0);
    ck_assert_int_eq(pstore_read(ps, t, a), 0);
    double sum = 0, sq = 0;
    int bins[8] = {0};
    for (int i = 0; i < R * C; i++) {
        ck_assert(a[i] >= -1 && a[i] <= 3);
        sum += a[i];
        sq += a[i] * a[i];
        bins[(int)((a[i] + 1) * 2) & 7]++;
    }
    double mean = sum / (R * C), var = sq / (R * C) - mean * mean;
    ck_assert_msg(fabs(mean - 1) < 0.05, "mean %g", mean); /* sd of the mean: 0.012 */
    ck_assert_msg(fabs(var - 16.0 / 12) < 0.05, "variance %g", var);
    double chi2 = 0;
    for (int i = 0; i < 8; i++)
        chi2 += (bins[i] - 1250.0) * (bins[i] - 1250.0) / 1250.0;
    ck_assert_msg(chi2 < 24.3, "chi-square %g over 8 bins", chi2); /* p = 0.001, 7 dof */
    ck_assert_int_eq(pstore_fill_uniform(ps, t, -1, 3, 42), 0);
    ck_assert_int_eq(pstore_read(ps, t, b), 0);
    ck_assert(memcmp(a, b, sizeof(a)) == 0);
    ck_assert_int_eq(pstore_fill_uniform(ps, t, -1, 3, 43), 0);
    ck_assert_int_eq(pstore_read(ps, t, b), 0);
    int same = 0;
    for (int i = 0; i < R * C; i++)
        same += a[i] == b[i];
    ck_assert_int_lt(same, 10);
    ck_assert_int_eq(pstore_fill_uniform(ps, t, 5, 5, 1), 0);
    ck_assert(get(w, t, 0, 0) == 5);

    /* write_row, dense and sparse; pending increments stay pending. */
    double row[C];
    for (int c = 0; c < C; c++)
        row[c] = c;
    ck_assert_int_eq(pstore_inc(w, t, 3, 10, 0.5), 0);
    ck_assert_int_eq(pstore_write_row(ps, t, 3, row), 0);
    ck_assert(get(w, t, 3, 10) == 10.5);
    ck_assert_int_eq(pstore_finish(pstore_worker(ps, 1)), 0); /* s = 0: else w would wait */
    ck_assert_int_eq(pstore_clock(w), 0);
    ck_assert_int_eq(pstore_read(ps, t, a), 0);
    ck_assert(a[3 * C + 10] == 10.5 && a[3 * C + 99] == 99 && a[4 * C] == 5);

    ck_assert(get(w, s, 2, 0) == 0);
    ck_assert_int_eq(pstore_write_row(ps, s, 2, (double[8]){0, 1, 0, 0, -2, 0, 0, 3}), 0);
    const uint32_t *cols;
    const double *vals;
    uint32_t n;
    ck_assert_int_eq(pstore_row_sparse(w, s, 2, &cols, &vals, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(cols[0] == 1 && cols[1] == 4 && cols[2] == 7 && vals[1] == -2);
    ck_assert_int_eq(pstore_fill(ps, s, 0), 0);
    ck_assert_int_eq(pstore_row_sparse(w, s, 2, &cols, &vals, &n), 0);
    ck_assert_uint_eq(n, 0);
    pstore_free(ps);
}
END_TEST

/* One worker, staleness 2: a run saved after clock 5 into a fresh store
 * (caches empty, clocks from 0) and finished there ends bit for bit where
 * the uninterrupted run ends. The updates read what they increment, with
 * deltas that round, so a view that drifted from the master would show. */
enum { RES_ROWS = 6, RES_COLS = 5, RES_CLOCKS = 12, RES_SAVE = 5 };

static void resume_steps(struct pstore_worker *w, int d, int s, int from, int to)
{
    for (int c = from; c < to; c++) {
        for (int i = 0; i < 40; i++) { /* each cell of 2 rows about 4 times a clock */
            int64_t r = (c + i % 2) % RES_ROWS, col = (c + i) % RES_COLS;
            double v = get(w, d, r, col), u = get(w, s, r, col * 11);
            ck_assert_int_eq(pstore_inc(w, d, r, (col + 1) % RES_COLS, 0.1 * v + 0.3 + u / 7), 0);
            ck_assert_int_eq(pstore_inc(w, s, (r + 1) % RES_ROWS, col * 11, v / 3 - 0.1), 0);
        }
        ck_assert_int_eq(pstore_clock(w), 0);
    }
}

static struct pstore *resume_store(int *d, int *s)
{
    struct pstore *ps = new_store(1);
    *d = add_table(ps, RES_ROWS, RES_COLS, false, 2);
    *s = add_table(ps, RES_ROWS, RES_COLS * 11, true, 2);
    return ps;
}

START_TEST(test_resume_bitwise)
{
    int d, s, d2, s2;
    static double a_d[RES_ROWS * RES_COLS], a_s[RES_ROWS * RES_COLS * 11];
    static double b_d[RES_ROWS * RES_COLS], b_s[RES_ROWS * RES_COLS * 11];

    struct pstore *ps = resume_store(&d, &s);
    ck_assert_int_eq(pstore_fill_uniform(ps, d, -1, 1, 9), 0);
    resume_steps(pstore_worker(ps, 0), d, s, 0, RES_CLOCKS);
    ck_assert_int_eq(pstore_read(ps, d, a_d), 0);
    ck_assert_int_eq(pstore_read(ps, s, a_s), 0);
    pstore_free(ps);

    ps = resume_store(&d, &s);
    ck_assert_int_eq(pstore_fill_uniform(ps, d, -1, 1, 9), 0);
    resume_steps(pstore_worker(ps, 0), d, s, 0, RES_SAVE);
    ck_assert_int_eq(pstore_read(ps, d, b_d), 0); /* the checkpoint */
    ck_assert_int_eq(pstore_read(ps, s, b_s), 0);
    pstore_free(ps);
    ps = resume_store(&d2, &s2);
    for (int r = 0; r < RES_ROWS; r++) {
        ck_assert_int_eq(pstore_write_row(ps, d2, r, b_d + r * RES_COLS), 0);
        ck_assert_int_eq(pstore_write_row(ps, s2, r, b_s + r * RES_COLS * 11), 0);
    }
    resume_steps(pstore_worker(ps, 0), d2, s2, RES_SAVE, RES_CLOCKS);
    ck_assert_int_eq(pstore_read(ps, d2, b_d), 0);
    ck_assert_int_eq(pstore_read(ps, s2, b_s), 0);
    pstore_free(ps);

    ck_assert(memcmp(a_d, b_d, sizeof(a_d)) == 0);
    ck_assert(memcmp(a_s, b_s, sizeof(a_s)) == 0);
}
END_TEST

/* ---- checkpoints ---------------------------------------------------------- */

/* Three workers driven from one thread over four tables (SSP and async,
 * dense and sparse), with stale views, pending logs and uneven clocks at
 * the save: the same calls on the saved store and on a store set up alike
 * and loaded read the same values, bit for bit. The control, a store given
 * only the master tables, reads otherwise: the workers' state matters. */
enum { CKS_W = 3, CKS_T = 4, CKS_ROWS = 7, CKS_COLS = 5, CKS_SCOLS = 40, CKS_READS = 4000 };

struct cks {
    struct pstore *ps;
    int t[CKS_T];
    double *got; /* every value read, in order */
    size_t ngot;
};

static const bool cks_sparse[CKS_T] = {false, true, false, true};
static const int cks_stale[CKS_T] = {3, 4, ASYNC, ASYNC};
enum { CKS_BOUND = 3 }; /* the smallest staleness */

static struct pstore *cks_store(int *t)
{
    struct pstore *ps = new_store(CKS_W);
    for (int i = 0; i < CKS_T; i++)
        t[i] = add_table(ps, CKS_ROWS, cks_sparse[i] ? CKS_SCOLS : CKS_COLS, cks_sparse[i],
                         cks_stale[i]);
    ck_assert_int_eq(pstore_fill_uniform(ps, t[0], -1, 1, 5), 0);
    ck_assert_int_eq(pstore_fill_uniform(ps, t[2], 0, 2, 6), 0);
    return ps;
}

static void cks_got(struct cks *k, double v)
{
    ck_assert_uint_lt(k->ngot, CKS_READS);
    k->got[k->ngot++] = v;
}

/* n calls chosen by seed: reads (an element, a whole row), increments that
 * depend on what was read (one, a row of them, a dense row) and clocks of
 * a worker that can end its clock without waiting. */
static void cks_drive(struct cks *k, uint64_t seed, int n)
{
    uint64_t rs = rnd_seed(seed);
    double acc = 0.5;
    for (int i = 0; i < n; i++) {
        int wi = (int)(rnd(&rs) % CKS_W), ti = (int)(rnd(&rs) % CKS_T);
        struct pstore_worker *w = pstore_worker(k->ps, wi);
        int t = k->t[ti];
        bool sparse = cks_sparse[ti];
        int64_t ncols = sparse ? CKS_SCOLS : CKS_COLS;
        int64_t row = (int64_t)(rnd(&rs) % CKS_ROWS), col = (int64_t)(rnd(&rs) % (uint64_t)ncols);
        unsigned op = (unsigned)(rnd(&rs) % 32);
        if (op < 10) {
            acc = get(w, t, row, col);
            cks_got(k, acc);
        } else if (op < 14) {
            static double r[CKS_SCOLS];
            ck_assert_int_eq(read_row(w, t, sparse, row, r, ncols), 0);
            double sum = 0;
            for (int64_t c = 0; c < ncols; c++)
                sum = sum * 0.75 + r[c];
            cks_got(k, sum);
        } else if (op < 22 || (op < 29 && sparse)) {
            ck_assert_int_eq(pstore_inc(w, t, row, col, acc * 0.1 + 0.3), 0);
        } else if (op < 26) {
            int32_t cols[3] = {(int32_t)col, (int32_t)((col + 7) % ncols), (int32_t)col};
            double d[3] = {acc / 3, -0.7, 1.1};
            ck_assert_int_eq(pstore_inc_row(w, t, row, cols, d, 3), 0);
        } else if (op < 29) {
            double d[CKS_COLS];
            for (int c = 0; c < CKS_COLS; c++)
                d[c] = acc * c - 0.2;
            ck_assert_int_eq(pstore_inc_dense(w, t, row, d), 0);
        } else {
            int64_t c = pstore_worker_clock(w), m = INT64_MAX;
            for (int v = 0; v < CKS_W; v++)
                if (v != wi && pstore_worker_clock(pstore_worker(k->ps, v)) < m)
                    m = pstore_worker_clock(pstore_worker(k->ps, v));
            if (c + 1 - CKS_BOUND <= m) /* would not wait */
                ck_assert_int_eq(pstore_clock(w), 0);
        }
    }
}

static void cks_save(struct pstore *ps, FILE *f, uint32_t *crc)
{
    struct ptm_ckpt ck = {.f = f, .load = false};
    pstore_state(ps, &ck);
    ck_assert_msg(ck.err == 0, "%s", ck.msg);
    *crc = ck.crc;
}

static int cks_load(struct pstore *ps, FILE *f, uint32_t *crc, char *msg)
{
    rewind(f);
    struct ptm_ckpt ck = {.f = f, .load = true};
    pstore_state(ps, &ck);
    *crc = ck.crc;
    snprintf(msg, sizeof(ck.msg), "%s", ck.msg);
    return ck.err;
}

START_TEST(test_state_resume)
{
    enum { BEFORE = 900, AFTER = 1500 };
    static double got_a[CKS_READS], got_b[CKS_READS], got_c[CKS_READS], got_d[CKS_READS];
    static double m[CKS_T][CKS_ROWS * CKS_SCOLS];
    struct cks a = {.got = got_a}, b = {.got = got_b}, c = {.got = got_c}, d = {.got = got_d};
    char msg[512];

    a.ps = cks_store(a.t);
    cks_drive(&a, 1, BEFORE);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    uint32_t crc_saved, crc_loaded;
    cks_save(a.ps, f, &crc_saved);
    int64_t clocks[CKS_W];
    for (int i = 0; i < CKS_W; i++)
        clocks[i] = pstore_worker_clock(pstore_worker(a.ps, i));
    ck_assert(clocks[0] != clocks[1] || clocks[1] != clocks[2]); /* uneven */
    ck_assert(clocks[0] > 3 && clocks[1] > 3 && clocks[2] > 3);
    a.ngot = 0;
    for (int i = 0; i < CKS_T; i++)
        ck_assert_int_eq(pstore_read(a.ps, a.t[i], m[i]), 0);

    /* b is driven before its load, so the load must replace a state. */
    b.ps = cks_store(b.t);
    cks_drive(&b, 2, 200);
    ck_assert_int_eq(cks_load(b.ps, f, &crc_loaded, msg), 0);
    ck_assert_msg(crc_loaded == crc_saved, "%s", msg);
    ck_assert_int_eq(fgetc(f), EOF); /* the whole stream was read */
    for (int i = 0; i < CKS_W; i++)
        ck_assert_int_eq(pstore_worker_clock(pstore_worker(b.ps, i)), clocks[i]);
    b.ngot = 0;

    /* Two controls: c has the master tables alone (clocks at 0, caches and
     * logs empty); d is loaded, then made to forget its views (rewriting
     * a row drops them), keeping clocks and logs. */
    c.ps = cks_store(c.t);
    d.ps = cks_store(d.t);
    ck_assert_int_eq(cks_load(d.ps, f, &crc_loaded, msg), 0);
    for (int i = 0; i < CKS_T; i++) {
        int64_t ncols = cks_sparse[i] ? CKS_SCOLS : CKS_COLS;
        for (int r = 0; r < CKS_ROWS; r++) {
            ck_assert_int_eq(pstore_write_row(c.ps, c.t[i], r, m[i] + r * ncols), 0);
            ck_assert_int_eq(pstore_write_row(d.ps, d.t[i], r, m[i] + r * ncols), 0);
        }
    }

    cks_drive(&a, 3, AFTER);
    cks_drive(&b, 3, AFTER);
    ck_assert_uint_gt(a.ngot, 500);
    ck_assert_uint_eq(a.ngot, b.ngot);
    ck_assert(memcmp(got_a, got_b, a.ngot * sizeof(double)) == 0);
    for (int i = 0; i < CKS_T; i++) {
        static double ma[CKS_ROWS * CKS_SCOLS], mb[CKS_ROWS * CKS_SCOLS];
        ck_assert_int_eq(pstore_read(a.ps, a.t[i], ma), 0);
        ck_assert_int_eq(pstore_read(b.ps, b.t[i], mb), 0);
        ck_assert(memcmp(ma, mb, sizeof(ma)) == 0);
    }

    /* The controls read otherwise: the workers' state is not all in the
     * master tables, nor their views all fresh. */
    cks_drive(&c, 3, AFTER);
    cks_drive(&d, 3, AFTER);
    ck_assert(c.ngot != a.ngot || memcmp(got_a, got_c, a.ngot * sizeof(double)) != 0);
    ck_assert_uint_eq(a.ngot, d.ngot);
    ck_assert(memcmp(got_a, got_d, a.ngot * sizeof(double)) != 0);

    pstore_free(a.ps);
    pstore_free(b.ps);
    pstore_free(c.ps);
    pstore_free(d.ps);
    fclose(f);
}
END_TEST

/* A checkpoint loads only into a store with the same tables and workers. */
START_TEST(test_state_mismatch)
{
    int t[CKS_T];
    struct cks a = {0};
    static double got[CKS_READS];
    a.got = got;
    a.ps = cks_store(a.t);
    cks_drive(&a, 4, 300);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    uint32_t crc;
    cks_save(a.ps, f, &crc);
    char msg[512];

    struct pstore *ps = new_store(CKS_W); /* one column fewer in a table */
    for (int i = 0; i < CKS_T; i++)
        t[i] = add_table(ps, CKS_ROWS, (cks_sparse[i] ? CKS_SCOLS : CKS_COLS) - (i == 2),
                         cks_sparse[i], cks_stale[i]);
    ck_assert_int_eq(cks_load(ps, f, &crc, msg), PTM_EDATA);
    ck_assert_msg(strstr(msg, "columns") != NULL, "%s", msg);
    pstore_free(ps);

    ps = new_store(CKS_W); /* a dense table where a sparse one was */
    for (int i = 0; i < CKS_T; i++)
        t[i] = add_table(ps, CKS_ROWS, cks_sparse[i] ? CKS_SCOLS : CKS_COLS, false, cks_stale[i]);
    ck_assert_int_eq(cks_load(ps, f, &crc, msg), PTM_EDATA);
    pstore_free(ps);

    ps = new_store(CKS_W); /* a table less */
    for (int i = 0; i < CKS_T - 1; i++)
        t[i] = add_table(ps, CKS_ROWS, cks_sparse[i] ? CKS_SCOLS : CKS_COLS, cks_sparse[i],
                         cks_stale[i]);
    ck_assert_int_eq(cks_load(ps, f, &crc, msg), PTM_EDATA);
    pstore_free(ps);

    ps = new_store(CKS_W - 1); /* a worker less */
    for (int i = 0; i < CKS_T; i++)
        t[i] = add_table(ps, CKS_ROWS, cks_sparse[i] ? CKS_SCOLS : CKS_COLS, cks_sparse[i],
                         cks_stale[i]);
    ck_assert_int_eq(cks_load(ps, f, &crc, msg), PTM_EDATA);
    ck_assert_msg(strstr(msg, "workers") != NULL, "%s", msg);
    pstore_free(ps);

    /* A stream cut short fails too, and the store it leaves is freed clean. */
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_gt(len, 1000);
    ck_assert_int_eq(ftruncate(fileno(f), len - 100), 0);
    ps = cks_store(t);
    ck_assert_int_eq(cks_load(ps, f, &crc, msg), PTM_EDATA);
    pstore_free(ps);

    pstore_free(a.ps);
    fclose(f);
}
END_TEST

/* A load that runs out of memory says so, and leaves a store that frees
 * clean (LeakSanitizer under make asan). */
START_TEST(test_state_alloc_fail)
{
    static double got[CKS_READS];
    struct cks a = {.got = got};
    a.ps = cks_store(a.t);
    cks_drive(&a, 5, 600);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    uint32_t crc_saved, crc;
    cks_save(a.ps, f, &crc_saved);
    char msg[512];
    unsigned long n = 1;
    for (;; n++) {
        int t[CKS_T];
        struct pstore *ps = cks_store(t);
        ptm_fault_inject(n);
        int rc = cks_load(ps, f, &crc, msg);
        ptm_fault_inject(0);
        pstore_free(ps);
        if (rc == 0)
            break;
        ck_assert_int_eq(rc, PTM_ENOMEM);
        ck_assert_uint_lt(n, 10000);
    }
    ck_assert_uint_gt(n, 20); /* the load allocates row by row */
    ck_assert(crc == crc_saved);
    pstore_free(a.ps);
    fclose(f);
}
END_TEST

/* ---- (a) the SSP guarantee, (b) the bound ------------------------------------ */

enum { CLOCKS = 24, TROWS = 3, READS = 2 * TROWS };

struct ssp_case {
    int nworkers;
    int staleness; /* ASYNC or s >= 0 */
    bool sparse;
    uint64_t seed;
};

static const struct ssp_case ssp_cases[] = {
    {2, 0, false, 1}, {2, 1, false, 2},  {2, 3, false, 3},  {2, ASYNC, false, 4},
    {3, 0, false, 5}, {3, 1, false, 6},  {3, 3, false, 7},  {3, ASYNC, false, 8},
    {4, 0, false, 9}, {4, 1, false, 10}, {4, 3, false, 11}, {4, ASYNC, false, 12},
    {2, 0, true, 13}, {2, 1, true, 14},  {2, 3, true, 15},  {2, ASYNC, true, 16},
    {3, 0, true, 17}, {3, 1, true, 18},  {3, 3, true, 19},  {3, ASYNC, true, 20},
    {4, 0, true, 21}, {4, 1, true, 22},  {4, 3, true, 23},  {4, ASYNC, true, 24},
};

struct ssp_run {
    const struct ssp_case *k;
    struct pstore *ps;
    int table;
    int64_t ncols;
    int slow;                                  /* the worker that sleeps longest */
    _Atomic int64_t reached[MAXW];             /* the clock the worker is writing */
    _Atomic bool written[MAXW][CLOCKS][TROWS]; /* worker, clock, row: tag added */
    _Atomic int64_t entered[MAXW];  /* pstore_clock() calls started; INT64_MAX: finished */
    _Atomic int64_t returned[MAXW]; /* pstore_clock() calls returned */
    _Atomic bool finishing[MAXW];
    _Atomic bool stop;
    _Atomic int snapshots; /* taken by test_snapshot_cut's reader */
    bool cut;              /* worker 0 waits for a snapshot every 4 clocks */
    struct failure f;
};

struct ssp_arg {
    struct ssp_run *run;
    int w;
    int64_t max_lead;
    int64_t reads;
};

static int64_t min_entered(struct ssp_run *run)
{
    int64_t m = INT64_MAX;
    for (int v = 0; v < run->k->nworkers; v++) {
        int64_t e = atomic_load(&run->entered[v]);
        m = e < m ? e : m;
    }
    return m;
}

/* Check what worker w at clock c reads of row r. */
static void check_read(struct ssp_run *run, int w, int64_t c, int r, const double *v)
{
    const struct ssp_case *k = run->k;
    for (int u = 0; u < k->nworkers; u++) {
        for (int64_t q = 0; q < CLOCKS; q++) {
            double x = v[u * CLOCKS + q];
            if (x != 0 && x != 1) {
                flunk(&run->f, run->ps, "w%d@%lld row %d: tag (%d, %lld) = %g", w, (long long)c, r,
                      u, (long long)q, x);
                return;
            }
            /* Set before the increment, final once the writer passed q. */
            bool written = atomic_load(&run->written[u][q][r]);
            if (u == w) {
                double want = q <= c && written;
                if (x != want)
                    flunk(&run->f, run->ps, "w%d@%lld row %d: own tag of clock %lld is %g", w,
                          (long long)c, r, (long long)q, x);
                continue;
            }
            if (k->staleness != ASYNC && q <= c - k->staleness - 1 && x != written)
                flunk(&run->f, run->ps, "w%d@%lld row %d: missing (%d, %lld), s = %d", w,
                      (long long)c, r, u, (long long)q, k->staleness);
            if (x == 1 && (q > atomic_load(&run->reached[u]) || !written))
                flunk(&run->f, run->ps, "w%d@%lld row %d: (%d, %lld) before its writer got there",
                      w, (long long)c, r, u, (long long)q);
        }
    }
}

static void *ssp_worker(void *p)
{
    struct ssp_arg *a = p;
    struct ssp_run *run = a->run;
    const struct ssp_case *k = run->k;
    struct pstore_worker *pw = pstore_worker(run->ps, a->w);
    uint64_t rs = rnd_seed(k->seed * 131 + (uint64_t)a->w);
    double v[MAXW * CLOCKS];
    for (int64_t c = 0; c < CLOCKS && !atomic_load(&run->f.failed); c++) {
        atomic_store(&run->reached[a->w], c);
        /* Writes to some rows (each with probability 1/2) and READS reads,
         * shuffled; ops[i] < 0 is a read, TROWS a skipped write. */
        int ops[TROWS + READS];
        for (int i = 0; i < TROWS + READS; i++)
            ops[i] = i < TROWS ? (rnd(&rs) % 2 ? i : TROWS) : -1 - (int)(rnd(&rs) % TROWS);
        for (int i = TROWS + READS - 1; i > 0; i--) {
            int j = (int)(rnd(&rs) % (uint64_t)(i + 1)), tmp = ops[i];
            ops[i] = ops[j];
            ops[j] = tmp;
        }
        for (int i = 0; i < TROWS + READS; i++) {
            jitter(&rs);
            if (ops[i] == TROWS)
                continue;
            if (ops[i] >= 0) {
                int r = ops[i];
                atomic_store(&run->written[a->w][c][r], true);
                int rc = pstore_inc(pw, run->table, r, a->w * CLOCKS + c, 1.0);
                if (rc)
                    flunk(&run->f, run->ps, "inc: %s", ptm_strerror(rc));
                continue;
            }
            int r = -1 - ops[i], rc = 0;
            if (rnd(&rs) % 2) {
                rc = read_row(pw, run->table, k->sparse, r, v, run->ncols);
            } else {
                for (int64_t col = 0; col < run->ncols && rc == 0; col++)
                    rc = pstore_get(pw, run->table, r, col, &v[col]);
            }
            if (rc) {
                flunk(&run->f, run->ps, "read: %d", rc);
                break;
            }
            check_read(run, a->w, c, r, v);
            a->reads++;
        }
        if (a->w == run->slow)
            sleep_us((long)(rnd(&rs) % 600));
        if (run->cut && a->w == 0 && c % 4 == 3) { /* a snapshot in mid-run */
            int n0 = atomic_load(&run->snapshots);
            double t0 = now();
            while (atomic_load(&run->snapshots) <= n0 && now() - t0 < 10)
                sleep_us(50);
        }
        atomic_store(&run->entered[a->w], c + 1);
        int rc = pstore_clock(pw);
        if (rc) {
            if (!atomic_load(&run->f.failed))
                flunk(&run->f, run->ps, "clock: %s", ptm_strerror(rc));
            break;
        }
        /* (b): returned from the call that starts clock c + 1, so every
         * worker must have started its call number c + 1 - s. */
        int64_t lead = c + 1 - min_entered(run);
        if (lead > a->max_lead)
            a->max_lead = lead;
        if (k->staleness != ASYNC && lead > k->staleness)
            flunk(&run->f, run->ps, "w%d started clock %lld %lld clocks ahead, s = %d", a->w,
                  (long long)c + 1, (long long)lead, k->staleness);
    }
    atomic_store(&run->finishing[a->w], true);
    atomic_store(&run->entered[a->w], INT64_MAX);
    int rc = pstore_finish(pw);
    if (rc)
        flunk(&run->f, run->ps, "finish: %s", ptm_strerror(rc));
    return NULL;
}

/* (b) at every moment: the store's own clocks never spread by more than
 * s + 1 (a worker inside pstore_clock() has advanced and may be waiting).
 * Clocks only grow, so the largest of one pass minus the smallest of a later
 * pass never exceeds the true spread at the first pass's moment. */
static void *ssp_monitor(void *p)
{
    struct ssp_run *run = p;
    const struct ssp_case *k = run->k;
    while (!atomic_load(&run->stop)) {
        int64_t hi = INT64_MIN, lo = INT64_MAX;
        bool live[MAXW];
        for (int v = 0; v < k->nworkers; v++) {
            live[v] = !atomic_load(&run->finishing[v]);
            int64_t c = pstore_worker_clock(pstore_worker(run->ps, v));
            if (live[v] && c > hi)
                hi = c;
        }
        for (int v = 0; v < k->nworkers; v++) {
            int64_t c = pstore_worker_clock(pstore_worker(run->ps, v));
            if (live[v] && !atomic_load(&run->finishing[v]) && c < lo)
                lo = c;
        }
        if (hi != INT64_MIN && lo != INT64_MAX && hi - lo > k->staleness + 1) {
            flunk(&run->f, run->ps, "clocks spread %lld > s + 1 = %d", (long long)(hi - lo),
                  k->staleness + 1);
            break;
        }
        sleep_us(20);
    }
    return NULL;
}

static void ssp_run_init(struct ssp_run *run, const struct ssp_case *k)
{
    run->k = k;
    run->ps = new_store(k->nworkers);
    run->ncols = (int64_t)k->nworkers * CLOCKS;
    run->table = add_table(run->ps, TROWS, run->ncols, k->sparse, k->staleness);
    run->slow = (int)(k->seed % (uint64_t)k->nworkers);
    for (int v = 0; v < MAXW; v++) {
        atomic_init(&run->reached[v], 0);
        for (int q = 0; q < CLOCKS; q++) {
            for (int r = 0; r < TROWS; r++)
                atomic_init(&run->written[v][q][r], false);
        }
        atomic_init(&run->entered[v], 0);
        atomic_init(&run->returned[v], 0);
        atomic_init(&run->finishing[v], false);
    }
    atomic_init(&run->stop, false);
    atomic_init(&run->snapshots, 0);
    run->cut = false;
    failure_init(&run->f);
}

START_TEST(test_ssp_guarantee)
{
    const struct ssp_case *k = &ssp_cases[_i];
    struct ssp_run run;
    ssp_run_init(&run, k);
    struct ssp_arg args[MAXW];
    for (int w = 0; w < k->nworkers; w++)
        args[w] = (struct ssp_arg){.run = &run, .w = w};
    pthread_t mon;
    bool monitor = k->staleness != ASYNC;
    if (monitor)
        ck_assert_int_eq(pthread_create(&mon, NULL, ssp_monitor, &run), 0);
    run_threads(k->nworkers, ssp_worker, args, sizeof(args[0]));
    atomic_store(&run.stop, true);
    if (monitor)
        ck_assert_int_eq(pthread_join(mon, NULL), 0);
    ck_assert_msg(!atomic_load(&run.f.failed), "P = %d, s = %d, %s: %s", k->nworkers, k->staleness,
                  k->sparse ? "sparse" : "dense", run.f.msg);

    /* Every tag once, nothing else. */
    static double all[TROWS * MAXW * CLOCKS];
    ck_assert_int_eq(pstore_read(run.ps, run.table, all), 0);
    int tags = 0;
    for (int r = 0; r < TROWS; r++) {
        for (int u = 0; u < k->nworkers; u++) {
            for (int q = 0; q < CLOCKS; q++) {
                bool written = atomic_load(&run.written[u][q][r]);
                ck_assert(all[r * run.ncols + u * CLOCKS + q] == written);
                tags += written;
            }
        }
    }
    ck_assert_int_gt(tags, k->nworkers * CLOCKS * TROWS / 4);
    for (int w = 0; w < k->nworkers; w++) {
        ck_assert_int_eq(args[w].reads, CLOCKS * READS);
        if (k->staleness != ASYNC)
            ck_assert_int_le(args[w].max_lead, k->staleness);
    }
    pstore_free(run.ps);
}
END_TEST

/* (b) with one worker far behind the others: the bound holds and is
 * reached, and async workers do not wait at all. Before each of its clocks
 * the slow worker waits until every fast one has got as far as the bound
 * allows (so a store that blocks too early fails here, after a timeout),
 * then sleeps, giving a store that blocks too late time to let them run on. */
struct bound_case {
    int nworkers, staleness;
};

static const struct bound_case bound_cases[] = {
    {2, 0}, {2, 1}, {2, 3}, {4, 0}, {4, 1}, {4, 3}, {2, ASYNC}, {4, ASYNC},
};

/* Wait until every worker but `slow` has returned from `calls` clock calls. */
static bool wait_returned(struct ssp_run *run, int64_t calls)
{
    double t0 = now();
    for (int v = 0; v < run->k->nworkers; v++) {
        while (v != run->slow && atomic_load(&run->returned[v]) < calls) {
            if (now() - t0 > 10 || atomic_load(&run->f.failed))
                return false;
            sleep_us(50);
        }
    }
    return true;
}

static void *bound_worker(void *p)
{
    struct ssp_arg *a = p;
    struct ssp_run *run = a->run;
    int s = run->k->staleness;
    struct pstore_worker *pw = pstore_worker(run->ps, a->w);
    for (int64_t c = 0; c < CLOCKS; c++) {
        if (a->w == run->slow) {
            int64_t allowed = s == ASYNC ? CLOCKS : c + s;
            if (!wait_returned(run, allowed < CLOCKS ? allowed : CLOCKS)) {
                flunk(&run->f, run->ps, "fast workers blocked within the bound (clock %lld)",
                      (long long)c);
                break;
            }
            sleep_us(500);
        }
        atomic_store(&run->entered[a->w], c + 1);
        int rc = pstore_clock(pw);
        if (rc) {
            flunk(&run->f, run->ps, "clock: %s", ptm_strerror(rc));
            break;
        }
        int64_t lead = c + 1 - min_entered(run); /* before the slow one may move on */
        atomic_store(&run->returned[a->w], c + 1);
        if (lead > a->max_lead)
            a->max_lead = lead;
        if (s != ASYNC && lead > s)
            flunk(&run->f, run->ps, "w%d %lld clocks ahead", a->w, (long long)lead);
    }
    atomic_store(&run->finishing[a->w], true);
    atomic_store(&run->entered[a->w], INT64_MAX);
    pstore_finish(pw);
    return NULL;
}

START_TEST(test_bound)
{
    const struct bound_case *b = &bound_cases[_i];
    struct ssp_case k = {b->nworkers, b->staleness, false, 0};
    struct ssp_run run;
    ssp_run_init(&run, &k);
    run.slow = 0;
    struct ssp_arg args[MAXW];
    for (int w = 0; w < k.nworkers; w++)
        args[w] = (struct ssp_arg){.run = &run, .w = w};
    pthread_t mon;
    bool monitor = k.staleness != ASYNC;
    if (monitor)
        ck_assert_int_eq(pthread_create(&mon, NULL, ssp_monitor, &run), 0);
    run_threads(k.nworkers, bound_worker, args, sizeof(args[0]));
    atomic_store(&run.stop, true);
    if (monitor)
        ck_assert_int_eq(pthread_join(mon, NULL), 0);
    ck_assert_msg(!atomic_load(&run.f.failed), "%s", run.f.msg);
    for (int w = 1; w < k.nworkers; w++) {
        struct pstore_worker *pw = pstore_worker(run.ps, w);
        if (k.staleness == ASYNC) {
            ck_assert_int_eq(args[w].max_lead, CLOCKS); /* all before the slow one's first */
            ck_assert(pstore_worker_wait(pw) == 0);
        } else {
            ck_assert_int_eq(args[w].max_lead, k.staleness);
            ck_assert(pstore_worker_wait(pw) > 0.005);
        }
    }
    pstore_free(run.ps);
}
END_TEST

/* ---- (c) no lost update ---------------------------------------------------- */

enum { LOST_INCS = 100000, LOST_ROWS = 3, LOST_COLS = 4, LOST_EVERY = 250 };

struct lost_case {
    bool sparse;
    int staleness;
};
static const struct lost_case lost_cases[] = {
    {false, 1}, {true, 1}, {false, ASYNC}, {true, 0}, {false, 0}, {true, ASYNC},
};

struct lost_arg {
    struct pstore *ps;
    int table, w;
    struct failure *f;
};

static void *lost_worker(void *p)
{
    struct lost_arg *a = p;
    struct pstore_worker *pw = pstore_worker(a->ps, a->w);
    double v;
    for (int i = 0; i < LOST_INCS; i++) {
        int row = i % LOST_ROWS, col = (i / LOST_ROWS + a->w) % LOST_COLS;
        int rc = pstore_inc(pw, a->table, row, col, 1.0);
        if (rc == 0 && i % 97 == 0)
            rc = pstore_get(pw, a->table, row, col, &v);
        if (rc == 0 && (i + 1) % LOST_EVERY == 0)
            rc = pstore_clock(pw);
        if (rc) {
            flunk(a->f, a->ps, "w%d: %s", a->w, ptm_strerror(rc));
            return NULL;
        }
    }
    pstore_finish(pw);
    return NULL;
}

START_TEST(test_no_lost_update)
{
    const struct lost_case *k = &lost_cases[_i];
    enum { P = 4 };
    struct pstore *ps = new_store(P);
    int t = add_table(ps, LOST_ROWS, LOST_COLS, k->sparse, k->staleness);
    struct failure f;
    failure_init(&f);
    struct lost_arg args[P];
    for (int w = 0; w < P; w++)
        args[w] = (struct lost_arg){ps, t, w, &f};
    run_threads(P, lost_worker, args, sizeof(args[0]));
    ck_assert_msg(!atomic_load(&f.failed), "%s", f.msg);

    double want[LOST_ROWS * LOST_COLS] = {0}, got[LOST_ROWS * LOST_COLS];
    for (int w = 0; w < P; w++) {
        for (int i = 0; i < LOST_INCS; i++)
            want[(i % LOST_ROWS) * LOST_COLS + (i / LOST_ROWS + w) % LOST_COLS] += 1;
    }
    ck_assert_int_eq(pstore_read(ps, t, got), 0);
    double sum = 0;
    for (int i = 0; i < LOST_ROWS * LOST_COLS; i++) {
        ck_assert_msg(got[i] == want[i], "cell %d: %.17g, want %.17g", i, got[i], want[i]);
        sum += got[i];
    }
    ck_assert(sum == (double)P * LOST_INCS);
    pstore_free(ps);
}
END_TEST

/* ---- (d) abort and finish wake blocked workers ------------------------------ */

struct block_arg {
    struct pstore *ps;
    int w;
    _Atomic int state; /* 0 before, 1 inside pstore_clock(), 2 returned */
    int rc;
};

static void *block_worker(void *p)
{
    struct block_arg *a = p;
    atomic_store(&a->state, 1);
    a->rc = pstore_clock(pstore_worker(a->ps, a->w));
    atomic_store(&a->state, 2);
    return NULL;
}

static void start_blocked(struct block_arg *a, pthread_t *th)
{
    atomic_init(&a->state, 0);
    ck_assert_int_eq(pthread_create(th, NULL, block_worker, a), 0);
    while (atomic_load(&a->state) == 0)
        sleep_us(100);
    sleep_us(50000);
    ck_assert_int_eq(atomic_load(&a->state), 1); /* still blocked */
}

START_TEST(test_abort_wakes)
{
    /* Two of three workers blocked behind the third; abort wakes both. */
    struct pstore *ps = new_store(3);
    add_table(ps, 1, 1, false, 0);
    add_table(ps, 1, 1, false, ASYNC);
    struct block_arg a[2] = {{.ps = ps, .w = 0}, {.ps = ps, .w = 1}};
    pthread_t th[2];
    double t0 = now();
    for (int i = 0; i < 2; i++)
        start_blocked(&a[i], &th[i]);
    pstore_abort(ps, PTM_EIO);
    pstore_abort(ps, PTM_EDATA); /* the first status sticks */
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
        ck_assert_int_eq(a[i].rc, PTM_EIO);
        ck_assert_int_eq(pstore_worker_clock(pstore_worker(ps, i)), 1);
        double waited = pstore_worker_wait(pstore_worker(ps, i));
        ck_assert(waited > 0.04 && waited <= now() - t0);
    }
    /* Later calls do not block either. */
    ck_assert_int_eq(pstore_clock(pstore_worker(ps, 0)), PTM_EIO);
    ck_assert_int_eq(pstore_clock(pstore_worker(ps, 2)), PTM_EIO);
    pstore_free(ps);
}
END_TEST

START_TEST(test_finish_releases)
{
    struct pstore *ps = new_store(2);
    int t = add_table(ps, 1, 1, false, 0);
    struct pstore_worker *late = pstore_worker(ps, 1);
    ck_assert_int_eq(pstore_inc(late, t, 0, 0, 3), 0);
    struct block_arg a = {.ps = ps, .w = 0};
    pthread_t th;
    start_blocked(&a, &th);
    ck_assert_int_eq(pstore_finish(late), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_int_eq(a.rc, 0);
    ck_assert(get(pstore_worker(ps, 0), t, 0, 0) == 3); /* the finished worker's update */
    ck_assert_int_eq(pstore_clock(late), PTM_EINVAL);
    pstore_free(ps);
}
END_TEST

/* ---- (e) allocation failure -------------------------------------------------- */

START_TEST(test_alloc_fail_create)
{
    /* Fail each allocation of store and table creation in turn: every one
     * is reported, nothing leaks (LeakSanitizer under make asan), and the
     * store stays usable after a failed pstore_add_table. */
    unsigned long n = 1;
    for (;; n++) {
        ptm_fault_inject(n);
        struct pstore *ps = NULL;
        int rc = pstore_new(&ps, 3);
        int ids[3] = {-1, -1, -1};
        struct pstore_table_spec specs[3] = {
            {.nrows = 10, .ncols = 5, .staleness = 1},
            {.nrows = 100, .ncols = 1000, .sparse = true, .staleness = 0},
            {.nrows = 200, .ncols = 2, .async = true},
        };
        int made = 0;
        for (; rc == 0 && made < 3; made++)
            rc = pstore_add_table(ps, &specs[made], &ids[made]);
        ptm_fault_inject(0);
        if (rc == 0) {
            pstore_free(ps);
            break;
        }
        ck_assert_int_eq(rc, PTM_ENOMEM);
        if (ps) {
            /* The tables made so far work; the failed one was not added. */
            for (int i = 0; i < made - 1; i++)
                ck_assert_int_eq(ids[i], i);
            ck_assert_int_eq(ids[made - 1], -1);
            int id;
            ck_assert_int_eq(pstore_add_table(ps, &specs[made - 1], &id), 0);
            ck_assert_int_eq(id, made - 1);
            struct pstore_worker *w = pstore_worker(ps, 2);
            ck_assert_int_eq(pstore_inc(w, id, 1, 1, 2), 0);
            ck_assert(get(w, id, 1, 1) == 2);
        }
        pstore_free(ps);
        ck_assert_uint_lt(n, 1000);
    }
    ck_assert_uint_gt(n, 10); /* the loop did reach the tables */
}
END_TEST

START_TEST(test_alloc_fail_worker)
{
    /* Lazy allocations of a worker fail cleanly: an increment that fails is
     * not applied; a flush that fails keeps the clock and the log, and the
     * next clock loses nothing. */
    struct pstore *ps = new_store(1);
    int d = add_table(ps, 4, 4, false, 0);
    int s = add_table(ps, 4, 1000, true, 0);
    struct pstore_worker *w = pstore_worker(ps, 0);
    double want = 0;
    for (unsigned long n = 1; n < 4; n++) {
        ptm_fault_inject(n);
        int rc = pstore_inc(w, d, (int64_t)n, 0, 1);
        ptm_fault_inject(0);
        if (rc == 0)
            want++;
        else
            ck_assert_int_eq(rc, PTM_ENOMEM);
    }
    ck_assert(want >= 1 && want < 3);
    ck_assert_int_eq(pstore_clock(w), 0);
    static double all[4 * 1000];
    ck_assert_int_eq(pstore_read(ps, d, all), 0);
    double sum = 0;
    for (int i = 0; i < 16; i++)
        sum += all[i];
    ck_assert(sum == want);

    /* A full sparse log (128 = its capacity), then a flush whose master
     * row cannot grow. */
    for (int c = 0; c < 128; c++)
        ck_assert_int_eq(pstore_inc(w, s, 0, c * 7, 1), 0);
    ptm_fault_inject(1);
    ck_assert_int_eq(pstore_clock(w), PTM_ENOMEM);
    ck_assert_int_eq(pstore_worker_clock(w), 1);
    ck_assert_int_eq(pstore_inc(w, s, 0, 999, 1), PTM_ENOMEM); /* would grow the log */
    ck_assert_int_eq(pstore_inc(w, s, 0, 7, 1), 0);            /* in place */
    double v;
    ck_assert_int_eq(pstore_get(w, s, 0, 7, &v), PTM_ENOMEM); /* the view cannot be made */
    ptm_fault_inject(0);
    ck_assert(get(w, s, 0, 7) == 2);
    ck_assert_int_eq(pstore_clock(w), 0);
    ck_assert_int_eq(pstore_worker_clock(w), 2);
    ck_assert_int_eq(pstore_read(ps, s, all), 0);
    sum = 0;
    for (int i = 0; i < 4000; i++)
        sum += all[i];
    ck_assert(sum == 129 && all[7] == 2 && all[8] == 0);
    pstore_free(ps);
}
END_TEST

/* ---- (f) snapshots ------------------------------------------------------------ */

enum { SNAP_P = 3, SNAP_CLOCKS = 30, SNAP_INCS = 200 };
enum { DR = 20, DC = 10, SR = 50, SC = 1000 };

struct snap_arg {
    struct pstore *ps;
    int dense, sparse, w;
    struct failure *f;
    double *want_d, *want_s; /* this worker's own sums */
};

static void *snap_worker(void *p)
{
    struct snap_arg *a = p;
    struct pstore_worker *pw = pstore_worker(a->ps, a->w);
    uint64_t rs = rnd_seed(1000 + (uint64_t)a->w);
    for (int c = 0; c < SNAP_CLOCKS; c++) {
        for (int i = 0; i < SNAP_INCS; i++) {
            bool sp = rnd(&rs) % 2;
            int64_t r = (int64_t)(rnd(&rs) % (sp ? SR : DR));
            int64_t col = (int64_t)(rnd(&rs) % (sp ? 20 : DC)) * (sp ? 37 : 1);
            double delta = (double)((int)(rnd(&rs) % 17) - 8) / 4; /* dyadic: exact sums */
            int rc = pstore_inc(pw, sp ? a->sparse : a->dense, r, col, delta);
            if (rc) {
                flunk(a->f, a->ps, "inc: %s", ptm_strerror(rc));
                return NULL;
            }
            *(sp ? &a->want_s[r * SC + col] : &a->want_d[r * DC + col]) += delta;
            if (i % 16 == 0)
                jitter(&rs);
        }
        int rc = pstore_clock(pw);
        if (rc) {
            flunk(a->f, a->ps, "clock: %s", ptm_strerror(rc));
            return NULL;
        }
    }
    pstore_finish(pw);
    return NULL;
}

struct visit_check {
    const double *all;
    int64_t ncols, rows;
};

static int visit_row(void *ud, int64_t row, const uint32_t *cols, const double *vals, uint32_t n)
{
    struct visit_check *v = ud;
    if (row != v->rows++)
        return 1;
    const double *want = v->all + row * v->ncols;
    if (!cols) {
        if (n != v->ncols || memcmp(vals, want, n * sizeof(double)) != 0)
            return 2;
        return 0;
    }
    uint32_t nnz = 0;
    for (int64_t c = 0; c < v->ncols; c++)
        nnz += want[c] != 0;
    if (n != nnz)
        return 3;
    for (uint32_t i = 0; i < n; i++) {
        if ((i > 0 && cols[i] <= cols[i - 1]) || vals[i] == 0 || vals[i] != want[cols[i]])
            return 4;
    }
    return 0;
}

START_TEST(test_snapshot_sum)
{
    struct pstore *ps = new_store(SNAP_P);
    int dense = add_table(ps, DR, DC, false, 2);
    int sparse = add_table(ps, SR, SC, true, ASYNC);
    struct failure f;
    failure_init(&f);
    static double want_d[SNAP_P][DR * DC], want_s[SNAP_P][SR * SC];
    memset(want_d, 0, sizeof(want_d));
    memset(want_s, 0, sizeof(want_s));
    struct snap_arg args[SNAP_P];
    for (int w = 0; w < SNAP_P; w++)
        args[w] = (struct snap_arg){ps, dense, sparse, w, &f, want_d[w], want_s[w]};
    run_threads(SNAP_P, snap_worker, args, sizeof(args[0]));
    ck_assert_msg(!atomic_load(&f.failed), "%s", f.msg);

    static double got_d[DR * DC], got_s[SR * SC];
    ck_assert_int_eq(pstore_read(ps, dense, got_d), 0);
    ck_assert_int_eq(pstore_read(ps, sparse, got_s), 0);
    int nonzero = 0;
    for (int i = 0; i < DR * DC; i++)
        ck_assert(got_d[i] == want_d[0][i] + want_d[1][i] + want_d[2][i]);
    for (int i = 0; i < SR * SC; i++) {
        ck_assert(got_s[i] == want_s[0][i] + want_s[1][i] + want_s[2][i]);
        nonzero += got_s[i] != 0;
    }
    ck_assert_int_gt(nonzero, 100);
    struct visit_check vd = {got_d, DC, 0}, vs = {got_s, SC, 0};
    ck_assert_int_eq(pstore_visit(ps, dense, visit_row, &vd), 0);
    ck_assert_int_eq(pstore_visit(ps, sparse, visit_row, &vs), 0);
    ck_assert(vd.rows == DR && vs.rows == SR);
    pstore_free(ps);
}
END_TEST

/* A snapshot taken while the workers run holds whole flushes: for each
 * worker, its tags of clocks 0 .. K-1 and none later. Worker 0 waits for a
 * snapshot every 4 clocks, so some are taken in mid-run whatever the
 * scheduler does. */

/* Is there a K such that worker u's tags in the snapshot are exactly those
 * it wrote in clocks 0 .. K-1? */
static bool whole_clocks(struct ssp_run *run, const double *all, int u)
{
    for (int64_t K = 0; K <= CLOCKS; K++) {
        bool ok = true;
        for (int r = 0; r < TROWS && ok; r++) {
            for (int64_t q = 0; q < CLOCKS && ok; q++) {
                bool want = q < K && atomic_load(&run->written[u][q][r]);
                ok = all[r * run->ncols + u * CLOCKS + q] == want;
            }
        }
        if (ok)
            return true;
    }
    return false;
}

static void *cut_reader(void *p)
{
    struct ssp_run *run = p;
    static double all[TROWS * MAXW * CLOCKS];
    while (!atomic_load(&run->stop)) {
        if (pstore_read(run->ps, run->table, all))
            flunk(&run->f, run->ps, "read");
        for (int u = 0; u < run->k->nworkers; u++) {
            if (!whole_clocks(run, all, u))
                flunk(&run->f, run->ps, "snapshot %d: worker %d's clocks not whole",
                      atomic_load(&run->snapshots), u);
        }
        atomic_fetch_add(&run->snapshots, 1);
        sleep_us(100);
    }
    return NULL;
}

START_TEST(test_snapshot_cut)
{
    struct ssp_case k = {3, 1, _i == 1, 77};
    struct ssp_run run;
    ssp_run_init(&run, &k);
    run.cut = true;
    struct ssp_arg args[MAXW];
    for (int w = 0; w < k.nworkers; w++)
        args[w] = (struct ssp_arg){.run = &run, .w = w};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, cut_reader, &run), 0);
    run_threads(k.nworkers, ssp_worker, args, sizeof(args[0]));
    atomic_store(&run.stop, true);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_msg(!atomic_load(&run.f.failed), "%s", run.f.msg);
    ck_assert_int_ge(atomic_load(&run.snapshots), CLOCKS / 4);
    pstore_free(run.ps);
}
END_TEST

/* ---- the suite ------------------------------------------------------------ */

#define add_rows(tc, fn, table) tcase_add_loop_test(tc, fn, 0, (int)PTM_ARRAY_LEN(table))

static Suite *pstore_suite(void)
{
    Suite *s = suite_create("pstore");
    TCase *tc;

    tc = tcase_create("single");
    tcase_add_test(tc, test_read_my_writes);
    tcase_add_test(tc, test_inc_dense);
    tcase_add_test(tc, test_sparse_cancel_master);
    tcase_add_test(tc, test_staleness_cache);
    tcase_add_test(tc, test_async_refresh);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_fill);
    tcase_add_test(tc, test_resume_bitwise);
    tcase_add_test(tc, test_state_resume);
    tcase_add_test(tc, test_state_mismatch);
    suite_add_tcase(s, tc);

    tc = tcase_create("ssp");
    tcase_set_timeout(tc, 60);
    add_rows(tc, test_ssp_guarantee, ssp_cases);
    add_rows(tc, test_bound, bound_cases);
    suite_add_tcase(s, tc);

    tc = tcase_create("lost");
    tcase_set_timeout(tc, 60);
    add_rows(tc, test_no_lost_update, lost_cases);
    suite_add_tcase(s, tc);

    tc = tcase_create("abort");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_abort_wakes);
    tcase_add_test(tc, test_finish_releases);
    suite_add_tcase(s, tc);

    tc = tcase_create("alloc");
    tcase_add_test(tc, test_alloc_fail_create);
    tcase_add_test(tc, test_alloc_fail_worker);
    tcase_add_test(tc, test_state_alloc_fail);
    suite_add_tcase(s, tc);

    tc = tcase_create("snapshot");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_snapshot_sum);
    tcase_add_loop_test(tc, test_snapshot_cut, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pstore_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
