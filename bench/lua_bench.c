/*
 * lua_bench.c - what a Lua update rule costs against the same loop in C.
 *
 * The data: a random sparse matrix of 20,000 rows and 4,096 columns at
 * density 0.001 (about 20 non-zeros a column, row indices uniform), in
 * CSC, one worker holding every row; a residual r of 20,000 doubles. Each
 * call is handed 256 distinct random columns (a fresh list per call,
 * the same lists for C and Lua). The same is then run at densities 0.01
 * and 0.1 (fewer calls), to show how the cost per column that Lua adds
 * compares with the work per column.
 *
 *   push-col:   for each column j, z_j = x_j . r. C: a loop over the list
 *               with a four-accumulator gather-dot. Lua: lhost_push() of a
 *               hook that loops over the blocks,
 *                   for _, j in ipairs(S) do z[j] = X:col(j):dot(r) end
 *               and returns the keyed table z.
 *   push-bulk:  the same as one bulk operation, return X:cols(S):dot(r).
 *   lasso-col:  one round of the Lasso on those columns: push, pull and
 *               apply (spec/runtime.md), with beta moving. C: the steps as
 *               the built-in kernel does them (squared column norms
 *               cached, zero changes skipped). Lua: lasso_col_lua below,
 *               the round written column by column.
 *   lasso-bulk: the same round as examples/lasso/lasso.lua, bulk
 *               operations only. Their loops over the columns ask for the
 *               next columns' entries ahead (lhost_view.c), which the C loop
 *               here, like the built-in kernel, does not.
 * The Lua times include the host's work: the call, the arguments, and
 * reading the results back into C arrays.
 *
 * Time is the CPU time of the thread (a busy machine does not count
 * against it) over CALLS calls; C and Lua alternate within each run, after
 * one warm-up call each (the Lua Lasso caches its squared norms then).
 *
 * Usage: lua_bench [RUNS]   (default 5; run from the repository root).
 * Lines on stdout, per density:
 *   KIND DENSITY NNZ_PER_COL CALLS MEDIAN_C_US MEDIAN_LUA_US MEDIAN_RATIO RATIO1 RATIO2 ...
 * with times per call (256 columns) in microseconds and the ratio Lua / C
 * of each run.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "bench.h"
#include "data.h"
#include "lua_host.h"
#include "ptm.h"

enum { ROWS = 20000, COLS = 4096, BLOCKS = 256, MAX_RUNS = 99 };
#define LAMBDA 1e-3
static const double densities[] = {0.001, 0.01, 0.1};

static const char *const push_col_lua =
    "function push(w, S)\n"
    "  local X, r, z = w.X, w.r, {}\n"
    "  for _, j in ipairs(S) do z[j] = X:col(j):dot(r) end\n"
    "  return z\n"
    "end\n";

static const char *const push_bulk_lua = "function push(w, S)\n"
                                         "  return w.X:cols(S):dot(w.r)\n"
                                         "end\n";

/* The Lasso of examples/lasso/lasso.lua, one column at a time. */
static const char *const lasso_col_lua =
    "local sq = {}\n"
    "function push(w, S)\n"
    "  local X, r, beta = w.X, w.r, w.beta\n"
    "  local n = X:size()\n"
    "  local z = {}\n"
    "  for _, j in ipairs(S) do\n"
    "    local x = X:col(j)\n"
    "    sq[j] = sq[j] or x:norm2() / n\n"
    "    z[j] = { x:dot(r) / n + sq[j] * beta[j], sq[j] }\n"
    "  end\n"
    "  return z\n"
    "end\n"
    "function pull(S, z, job)\n"
    "  local new = {}\n"
    "  for k, j in ipairs(S) do\n"
    "    local a, q = z[1][k], z[2][k]\n"
    "    local s = math.max(math.abs(a) - job.lambda, 0)\n"
    "    new[j] = q > 0 and (a < 0 and -s or s) / q or 0\n"
    "  end\n"
    "  return new\n"
    "end\n"
    "function apply(w, S, d)\n"
    "  local X, r = w.X, w.r\n"
    "  for k, j in ipairs(S) do\n"
    "    if d[k] ~= 0 then X:col(j):axpy(-d[k], r) end\n"
    "  end\n"
    "end\n";

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1du;
}

static double unif(uint64_t *s)
{
    return (double)(rnd(s) >> 11) * 0x1.0p-52 - 1.0;
}

static void die(const char *what, struct lhost *h, int rc)
{
    fprintf(stderr, "lua_bench: %s: %s\n", what,
            h && *lhost_error(h) ? lhost_error(h) : ptm_strerror(rc));
    exit(1);
}

/* Row indices of a column: ascending, distinct. */
static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void make_matrix(uint64_t *s, double density, struct ptm_csc *c)
{
    int64_t cap = (int64_t)(ROWS * (double)COLS * density * 1.5) + 64 * COLS;
    c->nrows = ROWS;
    c->ncols = COLS;
    c->colptr = ptm_malloc((COLS + 1) * sizeof(int64_t));
    c->rowind = ptm_malloc((size_t)cap * sizeof(int32_t));
    c->val = ptm_malloc((size_t)cap * sizeof(double));
    if (!c->colptr || !c->rowind || !c->val)
        die("matrix", NULL, PTM_ENOMEM);
    int64_t nnz = 0;
    c->colptr[0] = 0;
    for (int j = 0; j < COLS; j++) {
        /* about ROWS * density entries: a normal approximation of the
         * binomial count, then distinct rows */
        double mean = ROWS * density, u1, u2;
        do
            u1 = (double)(rnd(s) >> 11) * 0x1.0p-53;
        while (u1 == 0);
        u2 = (double)(rnd(s) >> 11) * 0x1.0p-53;
        double g = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        int k = (int)fmax(0, floor(mean + g * sqrt(mean * (1 - density)) + 0.5));
        if (nnz + k > cap)
            k = (int)(cap - nnz);
        int32_t *ri = c->rowind + nnz;
        for (int t = 0; t < k; t++)
            ri[t] = (int32_t)(rnd(s) % ROWS);
        qsort(ri, (size_t)k, sizeof(*ri), cmp_i32);
        int m = 0;
        for (int t = 0; t < k; t++)
            if (m == 0 || ri[t] != ri[m - 1])
                ri[m++] = ri[t];
        for (int t = 0; t < m; t++)
            c->val[nnz + t] = unif(s);
        nnz += m;
        c->colptr[j + 1] = nnz;
    }
    c->nnz = nnz;
}

/* BLOCKS distinct columns for each of calls calls. */
static void make_lists(uint64_t *s, int calls, int64_t *lists)
{
    unsigned char used[COLS];
    for (int c = 0; c < calls; c++) {
        memset(used, 0, sizeof(used));
        for (int b = 0; b < BLOCKS; b++) {
            int64_t j;
            do
                j = (int64_t)(rnd(s) % COLS);
            while (used[j]);
            used[j] = 1;
            lists[c * BLOCKS + b] = j;
        }
    }
}

static inline double col_dot(const struct ptm_csc *x, int64_t j, const double *r)
{
    const int32_t *ri = x->rowind + x->colptr[j];
    const double *v = x->val + x->colptr[j];
    int64_t len = x->colptr[j + 1] - x->colptr[j], k = 0;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
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

/* ---- push ------------------------------------------------------------------ */

static double push_c(const struct ptm_csc *x, const double *r, int calls, const int64_t *lists,
                     double *z)
{
    double t0 = bench_thread_cpu();
    for (int c = 0; c < calls; c++)
        for (int b = 0; b < BLOCKS; b++)
            z[(size_t)c * BLOCKS + b] = col_dot(x, lists[c * BLOCKS + b], r);
    return (bench_thread_cpu() - t0) / calls;
}

static double push_lua_run(struct lhost *h, int calls, const int64_t *lists, double *z)
{
    double t0 = bench_thread_cpu();
    for (int c = 0; c < calls; c++) {
        int k = 0,
            rc = lhost_push(h, "push", lists + c * BLOCKS, BLOCKS, 1, &k, z + (size_t)c * BLOCKS);
        if (rc)
            die("push", h, rc);
    }
    return (bench_thread_cpu() - t0) / calls;
}

/* ---- one Lasso round --------------------------------------------------------- */

struct lasso_state {
    double r[ROWS], beta[COLS], sq[COLS];
};

static double lasso_c(const struct ptm_csc *x, struct lasso_state *st, int calls,
                      const int64_t *lists)
{
    double z[2 * BLOCKS], delta[BLOCKS];
    double t0 = bench_thread_cpu();
    for (int c = 0; c < calls; c++) {
        const int64_t *cols = lists + c * BLOCKS;
        for (int b = 0; b < BLOCKS; b++) { /* push */
            int64_t j = cols[b];
            z[2 * b] = col_dot(x, j, st->r) + st->sq[j] * st->beta[j];
            z[2 * b + 1] = st->sq[j];
        }
        for (int b = 0; b < BLOCKS; b++) { /* pull */
            double a = z[2 * b], t = (double)ROWS * LAMBDA;
            double s = a > t ? a - t : a < -t ? a + t : 0;
            double nb = z[2 * b + 1] > 0 ? s / z[2 * b + 1] : 0;
            delta[b] = nb - st->beta[cols[b]];
            st->beta[cols[b]] = nb;
        }
        for (int b = 0; b < BLOCKS; b++) { /* apply */
            if (delta[b] == 0)
                continue;
            int64_t j = cols[b];
            for (int64_t p = x->colptr[j]; p < x->colptr[j + 1]; p++)
                st->r[x->rowind[p]] -= delta[b] * x->val[p];
        }
    }
    return (bench_thread_cpu() - t0) / calls;
}

static double lasso_lua(struct lhost *h, struct lasso_state *st, int calls, const int64_t *lists)
{
    double z[2 * BLOCKS], nb[BLOCKS], delta[BLOCKS];
    double t0 = bench_thread_cpu();
    for (int c = 0; c < calls; c++) {
        const int64_t *cols = lists + c * BLOCKS;
        int k = 0, rc = lhost_push(h, "push", cols, BLOCKS, 2, &k, z);
        if (!rc)
            rc = lhost_pull(h, "pull", cols, BLOCKS, z, k, NULL, nb);
        if (rc)
            die("lasso", h, rc);
        for (int b = 0; b < BLOCKS; b++) {
            delta[b] = nb[b] - st->beta[cols[b]];
            st->beta[cols[b]] = nb[b];
        }
        rc = lhost_apply(h, "apply", cols, BLOCKS, NULL, delta);
        if (rc)
            die("lasso", h, rc);
    }
    return (bench_thread_cpu() - t0) / calls;
}

static void lasso_reset(struct lasso_state *st, const double *y)
{
    memcpy(st->r, y, sizeof(st->r));
    memset(st->beta, 0, sizeof(st->beta));
}

static struct lhost *new_host(const char *what)
{
    struct lhost_config cfg = {.workers = 1, .last = ROWS - 1, .seed = 1};
    struct lhost *h;
    int rc = lhost_new(&h, &cfg);
    if (rc)
        die(what, NULL, rc);
    return h;
}

static void report(const char *kind, double density, double per_col, int calls, const double *c,
                   const double *lua, int runs)
{
    double ratio[MAX_RUNS] = {0};
    for (int i = 0; i < runs; i++)
        ratio[i] = lua[i] / c[i];
    printf("%s %g %.1f %d %.3f %.3f %.3f", kind, density, per_col, calls,
           bench_median(c, runs) * 1e6, bench_median(lua, runs) * 1e6, bench_median(ratio, runs));
    for (int i = 0; i < runs; i++)
        printf(" %.3f", ratio[i]);
    printf("\n");
    fflush(stdout);
}

static struct lhost *lasso_host(const char *what, const char *file, const char *text,
                                const struct lhost_matrix *m, struct lasso_state *st)
{
    struct lhost *h = new_host(what);
    int rc = file ? lhost_load_file(h, file) : lhost_load(h, "lasso_col.lua", text, strlen(text));
    if (!rc)
        rc = lhost_set_matrix(h, "X", m);
    if (!rc)
        rc = lhost_set_vector(h, "r", st->r, ROWS, true);
    if (!rc)
        rc = lhost_set_vector(h, "beta", st->beta, COLS, false);
    if (!rc)
        rc = lhost_set_const_num(h, "lambda", LAMBDA);
    if (rc)
        die(what, h, rc);
    return h;
}

static struct lhost *push_host(const char *what, const char *text, const struct lhost_matrix *m,
                               double *r)
{
    struct lhost *h = new_host(what);
    int rc = lhost_load(h, "push.lua", text, strlen(text));
    if (!rc)
        rc = lhost_set_matrix(h, "X", m);
    if (!rc)
        rc = lhost_set_vector(h, "r", r, ROWS, false);
    if (rc)
        die(what, h, rc);
    return h;
}

static void check_push(const double *zc, const double *zl, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(zc[i] - zl[i]) > 1e-12 * fmax(1, fabs(zc[i])))
            die("push results differ", NULL, PTM_EINVAL);
}

static void check_lasso(const struct lasso_state *c, const struct lasso_state *l)
{
    for (int j = 0; j < COLS; j++)
        if (fabs(c->beta[j] - l->beta[j]) > 1e-9 * fmax(1, fabs(c->beta[j])))
            die("lasso results differ", NULL, PTM_EINVAL);
}

/* Every kind at one density. */
static void bench_density(double density, int runs, uint64_t *s)
{
    /* about 2000 calls' worth of work at 20 non-zeros a column */
    int calls = (int)fmax(20, 2000 * 0.001 / density);
    static struct ptm_csc x;
    static double y[ROWS];
    static struct lasso_state stc, stl, stb;
    make_matrix(s, density, &x);
    int64_t *lists = ptm_malloc((size_t)calls * BLOCKS * sizeof(int64_t));
    double *zc = ptm_malloc((size_t)calls * BLOCKS * sizeof(double));
    double *zl = ptm_malloc((size_t)calls * BLOCKS * sizeof(double));
    if (!lists || !zc || !zl)
        die("lists", NULL, PTM_ENOMEM);
    make_lists(s, calls, lists);
    for (int i = 0; i < ROWS; i++)
        y[i] = unif(s);
    for (int j = 0; j < COLS; j++) {
        stc.sq[j] = 0;
        for (int64_t p = x.colptr[j]; p < x.colptr[j + 1]; p++)
            stc.sq[j] += x.val[p] * x.val[p];
    }

    struct lhost_matrix m = {.csc = &x, .rows = ROWS, .cols = COLS};
    struct lhost *hp = push_host("push-col host", push_col_lua, &m, y);
    struct lhost *hb = push_host("push-bulk host", push_bulk_lua, &m, y);
    struct lhost *hl = lasso_host("lasso-col host", NULL, lasso_col_lua, &m, &stl);
    struct lhost *hk = lasso_host("lasso-bulk host", "examples/lasso/lasso.lua", NULL, &m, &stb);

    /* warm-up: one call each */
    push_c(&x, y, 1, lists, zc);
    push_lua_run(hp, 1, lists, zl);
    push_lua_run(hb, 1, lists, zl);
    lasso_reset(&stc, y);
    lasso_reset(&stl, y);
    lasso_reset(&stb, y);
    lasso_c(&x, &stc, 1, lists);
    lasso_lua(hl, &stl, 1, lists);
    lasso_lua(hk, &stb, 1, lists);

    double pc[MAX_RUNS], pl[MAX_RUNS], pb[MAX_RUNS];
    double lc[MAX_RUNS], ll[MAX_RUNS], lb[MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        /* the bulk runs right after C, the slow column runs last */
        pc[i] = push_c(&x, y, calls, lists, zc);
        pb[i] = push_lua_run(hb, calls, lists, zl);
        check_push(zc, zl, (size_t)calls * BLOCKS);
        pl[i] = push_lua_run(hp, calls, lists, zl);
        check_push(zc, zl, (size_t)calls * BLOCKS);
        lasso_reset(&stc, y);
        lasso_reset(&stl, y);
        lasso_reset(&stb, y);
        lc[i] = lasso_c(&x, &stc, calls, lists);
        lb[i] = lasso_lua(hk, &stb, calls, lists);
        ll[i] = lasso_lua(hl, &stl, calls, lists);
        /* all computed the same thing (up to rounding) */
        check_lasso(&stc, &stl);
        check_lasso(&stc, &stb);
    }
    double per_col = (double)x.nnz / COLS;
    report("push-col", density, per_col, calls, pc, pl, runs);
    report("push-bulk", density, per_col, calls, pc, pb, runs);
    report("lasso-col", density, per_col, calls, lc, ll, runs);
    report("lasso-bulk", density, per_col, calls, lc, lb, runs);
    lhost_free(hp);
    lhost_free(hb);
    lhost_free(hl);
    lhost_free(hk);
    ptm_free(x.colptr);
    ptm_free(x.rowind);
    ptm_free(x.val);
    ptm_free(lists);
    ptm_free(zc);
    ptm_free(zl);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: lua_bench [RUNS]   (1 to %d)\n", MAX_RUNS);
        return 2;
    }
    uint64_t s = 0x5eed;
    for (size_t i = 0; i < PTM_ARRAY_LEN(densities); i++)
        bench_density(densities[i], runs, &s);
    return 0;
}
