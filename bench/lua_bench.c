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
 *   push:  for each column j, z_j = x_j . r.
 *          C: a loop over the lists with a four-accumulator gather-dot.
 *          Lua: lhost_push() of
 *              function push(w, blocks)
 *                local X, r, z = w.X, w.r, {}
 *                for _, j in ipairs(blocks) do z[j] = X:col(j):dot(r) end
 *                return z
 *              end
 *          which includes the host's work: the blocks table, the call, and
 *          reading z back into a C array.
 *   lasso: one round of the Lasso on those columns: push, pull and apply
 *          (spec/runtime.md), with beta moving. C: the steps as the
 *          built-in kernel does them (squared column norms cached).
 *          Lua: examples/lasso/lasso.lua through lhost_push, lhost_pull
 *          and lhost_apply.
 *
 * Time is the CPU time of the thread (a busy machine does not count
 * against it) over CALLS calls; C and Lua alternate within each run.
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
#include <time.h>

#include "arena.h"
#include "data.h"
#include "lua_host.h"
#include "ptm.h"

enum { ROWS = 20000, COLS = 4096, BLOCKS = 256, MAX_RUNS = 99 };
#define LAMBDA 1e-3
static const double densities[] = {0.001, 0.01, 0.1};

static const char *const push_lua = "function push(w, blocks)\n"
                                    "  local X, r, z = w.X, w.r, {}\n"
                                    "  for _, j in ipairs(blocks) do z[j] = X:col(j):dot(r) end\n"
                                    "  return z\n"
                                    "end\n";

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_RUNS];
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
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
    double t0 = cpu_now();
    for (int c = 0; c < calls; c++)
        for (int b = 0; b < BLOCKS; b++)
            z[(size_t)c * BLOCKS + b] = col_dot(x, lists[c * BLOCKS + b], r);
    return (cpu_now() - t0) / calls;
}

static double push_lua_run(struct lhost *h, int calls, const int64_t *lists, double *z)
{
    double t0 = cpu_now();
    for (int c = 0; c < calls; c++) {
        int k = 0,
            rc = lhost_push(h, "push", lists + c * BLOCKS, BLOCKS, 1, &k, z + (size_t)c * BLOCKS);
        if (rc)
            die("push", h, rc);
    }
    return (cpu_now() - t0) / calls;
}

/* ---- one Lasso round --------------------------------------------------------- */

struct lasso_state {
    double r[ROWS], beta[COLS], sq[COLS];
};

static double lasso_c(const struct ptm_csc *x, struct lasso_state *st, int calls,
                      const int64_t *lists)
{
    double z[2 * BLOCKS], delta[BLOCKS];
    double t0 = cpu_now();
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
    return (cpu_now() - t0) / calls;
}

static double lasso_lua(struct lhost *h, struct lasso_state *st, int calls, const int64_t *lists)
{
    double z[2 * BLOCKS], nb[BLOCKS], delta[BLOCKS];
    double t0 = cpu_now();
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
    return (cpu_now() - t0) / calls;
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
    printf("%s %g %.1f %d %.3f %.3f %.3f", kind, density, per_col, calls, median(c, runs) * 1e6,
           median(lua, runs) * 1e6, median(ratio, runs));
    for (int i = 0; i < runs; i++)
        printf(" %.3f", ratio[i]);
    printf("\n");
    fflush(stdout);
}

/* Both runs of each kind at one density. */
static void bench_density(double density, int runs, uint64_t *s)
{
    /* about 2000 calls' worth of work at 20 non-zeros a column */
    int calls = (int)fmax(20, 2000 * 0.001 / density);
    static struct ptm_csc x;
    static double y[ROWS];
    static struct lasso_state stc, stl;
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
    struct lhost *hp = new_host("push host"), *hl = new_host("lasso host");
    int rc = lhost_load(hp, "push.lua", push_lua, strlen(push_lua));
    if (!rc)
        rc = lhost_set_matrix(hp, "X", &m);
    if (!rc)
        rc = lhost_set_vector(hp, "r", y, ROWS, false);
    if (rc)
        die("push host", hp, rc);
    rc = lhost_load_file(hl, "examples/lasso/lasso.lua");
    if (!rc)
        rc = lhost_set_matrix(hl, "X", &m);
    if (!rc)
        rc = lhost_set_vector(hl, "r", stl.r, ROWS, true);
    if (!rc)
        rc = lhost_set_vector(hl, "beta", stl.beta, COLS, false);
    if (!rc)
        rc = lhost_set_const_num(hl, "lambda", LAMBDA);
    if (rc)
        die("lasso host", hl, rc);

    double pc[MAX_RUNS], pl[MAX_RUNS], lc[MAX_RUNS], ll[MAX_RUNS];
    push_c(&x, y, calls, lists, zc); /* warm-up */
    push_lua_run(hp, calls, lists, zl);
    for (int i = 0; i < runs; i++) {
        pc[i] = push_c(&x, y, calls, lists, zc);
        pl[i] = push_lua_run(hp, calls, lists, zl);
        lasso_reset(&stc, y);
        lasso_reset(&stl, y);
        lc[i] = lasso_c(&x, &stc, calls, lists);
        ll[i] = lasso_lua(hl, &stl, calls, lists);
    }
    /* Both computed the same thing (up to rounding). */
    for (size_t i = 0; i < (size_t)calls * BLOCKS; i++)
        if (fabs(zc[i] - zl[i]) > 1e-12 * fmax(1, fabs(zc[i])))
            die("push results differ", NULL, PTM_EINVAL);
    for (int j = 0; j < COLS; j++)
        if (fabs(stc.beta[j] - stl.beta[j]) > 1e-9 * fmax(1, fabs(stc.beta[j])))
            die("lasso results differ", NULL, PTM_EINVAL);
    double per_col = (double)x.nnz / COLS;
    report("push", density, per_col, calls, pc, pl, runs);
    report("lasso", density, per_col, calls, lc, ll, runs);
    lhost_free(hp);
    lhost_free(hl);
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
