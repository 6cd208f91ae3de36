/*
 * split_bench.c - how much faster two threads sweep the Lasso than one on
 * this machine, without the engine: the ceiling of `ptm run --workers 2`.
 *
 * Usage: split_bench FILE LAMBDA_FRACTION [SWEEPS [RUNS]]   (defaults 12, 5)
 * Reads the libsvm FILE, sets lambda = LAMBDA_FRACTION * lambda_max and,
 * RUNS times, alternating:
 *   stream: the sum of X's row indices and values (the bytes a sweep
 *           reads), by one thread, then by two threads over a half each;
 *   sweep:  SWEEPS sweeps of coordinate descent from beta = 0 (lasso_push_seq,
 *           as within = sequential does), by one thread over all columns,
 *           then by two threads over a half each, each with its own copy of
 *           r, to which after the sweep it adds the other half's changes
 *           (lasso_apply); the sweeps after the second are timed.
 * Prints, one item a line (seconds; the runs follow the median):
 *   stream1 MEDIAN T1 ...   stream2 MEDIAN T1 ...
 *   sweep1 MEDIAN T1 ...    sweep2 MEDIAN T1 ...   (a sweep)
 *   ratio stream MEDIAN     ratio sweep MEDIAN     (one thread / two, per run)
 *   objective OBJ1 OBJ2     (after the sweeps, one thread and two)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "data.h"
#include "kernel_lasso.h"
#include "ptm.h"

enum { MAX_RUNS = 99 };

struct problem {
    const struct ptm_csc *x;
    const double *y, *sq;
    double lambda;
};

/* One thread's part: columns lo .. hi-1, its residual. */
struct part {
    const struct problem *pb;
    int64_t lo, hi;
    int64_t *cols;
    double *r, *beta, *bnew, *delta;
    double sum; /* stream */
    int what;   /* 0: stream, 1: sweep, 2: apply the other's changes */
    const struct part *other;
};

static void *work(void *arg)
{
    struct part *p = arg;
    const struct ptm_csc *x = p->pb->x;
    int64_t a = x->colptr[p->lo], b = x->colptr[p->hi];
    size_t ns = (size_t)(p->hi - p->lo);
    if (p->what == 0) {
        double s = 0;
        for (int64_t k = a; k < b; k++)
            s += x->val[k] + (double)x->rowind[k];
        p->sum = s;
    } else if (p->what == 1) {
        lasso_push_seq(x, p->pb->sq, p->r, p->beta, p->cols, ns, x->nrows, p->pb->lambda,
                       p->bnew);
        for (size_t k = 0; k < ns; k++) {
            p->delta[k] = p->bnew[k] - p->beta[p->cols[k]];
            p->beta[p->cols[k]] = p->bnew[k];
        }
    } else {
        const struct part *o = p->other;
        lasso_apply(x, o->cols, o->delta, (size_t)(o->hi - o->lo), p->r);
    }
    return NULL;
}

/* Run parts 0 .. np-1 at once (part 0 on this thread). */
static void run_parts(struct part *pt, int np, int what)
{
    pthread_t th[2];
    for (int i = 0; i < np; i++)
        pt[i].what = what;
    for (int i = 1; i < np; i++)
        if (pthread_create(&th[i], NULL, work, &pt[i]) != 0)
            abort();
    work(&pt[0]);
    for (int i = 1; i < np; i++)
        pthread_join(th[i], NULL);
}

static double objective(const struct problem *pb, const double *r, const double *beta)
{
    int64_t n = pb->x->nrows;
    return lasso_loss_part(r, n, n) + lasso_penalty(beta, pb->x->ncols, pb->lambda);
}

/* SWEEPS sweeps by np threads from beta = 0: the seconds of a timed sweep. */
static double sweeps_by(const struct problem *pb, int np, int sweeps, int64_t *cols,
                        double *beta, double *r[2], double *bnew, double *delta, double *obj)
{
    const struct ptm_csc *x = pb->x;
    int64_t n = x->nrows, d = x->ncols;
    struct part pt[2];
    memset(beta, 0, (size_t)d * sizeof(double));
    for (int i = 0; i < np; i++) {
        memcpy(r[i], pb->y, (size_t)n * sizeof(double));
        int64_t lo = d * i / np, hi = d * (i + 1) / np;
        pt[i] = (struct part){pb, lo, hi, cols + lo, r[i], beta, bnew + lo, delta + lo, 0, 0,
                              &pt[1 - i]};
    }
    double t0 = 0;
    for (int s = 0; s < sweeps; s++) {
        if (s == 2)
            t0 = bench_now();
        run_parts(pt, np, 1);
        if (np == 2)
            run_parts(pt, np, 2);
    }
    *obj = objective(pb, r[0], beta);
    return (bench_now() - t0) / (sweeps - 2);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: split_bench FILE LAMBDA_FRACTION [SWEEPS [RUNS]]\n");
        return 2;
    }
    double frac = atof(argv[2]);
    int sweeps = argc > 3 ? atoi(argv[3]) : 12, runs = argc > 4 ? atoi(argv[4]) : 5;
    if (!(frac > 0) || sweeps < 3 || sweeps > 1000 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "split_bench: bad lambda fraction, sweep (3 or more) or run count\n");
        return 2;
    }
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    int rc = ptm_data_read(argv[1], &o, &dg, &ds);
    if (rc) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "split_bench: %s: %s\n", argv[1], ptm_strerror(rc));
        return 1;
    }
    ptm_data_diags_release(&dg);
    const struct ptm_csc *x;
    if (ptm_dataset_csc(ds, &x))
        return 1;
    int64_t n = x->nrows, d = x->ncols;
    double *sq = malloc((size_t)d * sizeof(double)), *g = malloc((size_t)d * sizeof(double));
    double *beta = malloc((size_t)d * sizeof(double)), *bnew = malloc((size_t)d * sizeof(double));
    double *delta = malloc((size_t)d * sizeof(double));
    double *r[2] = {malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
    int64_t *cols = malloc((size_t)d * sizeof(int64_t));
    if (!sq || !g || !beta || !bnew || !delta || !r[0] || !r[1] || !cols)
        return 1;
    for (int64_t j = 0; j < d; j++)
        cols[j] = j;
    lasso_colsq(x, sq);
    lasso_grad_part(x, ds->labels.val, g);
    struct problem pb = {x, ds->labels.val, sq, frac * lasso_lambda_max(g, d, n)};

    double st[2][MAX_RUNS], sw[2][MAX_RUNS], rs[MAX_RUNS], rw[MAX_RUNS], obj[2] = {0, 0};
    double check[2] = {0, 0};
    for (int run = 0; run < runs; run++) {
        for (int np = 1; np <= 2; np++) {
            struct part pt[2];
            for (int i = 0; i < np; i++)
                pt[i] = (struct part){.pb = &pb, .lo = d * i / np, .hi = d * (i + 1) / np};
            double t0 = bench_now();
            run_parts(pt, np, 0);
            st[np - 1][run] = bench_now() - t0;
            check[np - 1] = pt[0].sum + (np == 2 ? pt[1].sum : 0);
            sw[np - 1][run] = sweeps_by(&pb, np, sweeps, cols, beta, r, bnew, delta, &obj[np - 1]);
        }
        rs[run] = st[0][run] / st[1][run];
        rw[run] = sw[0][run] / sw[1][run];
    }
    bench_print_runs("stream1", st[0], runs);
    bench_print_runs("stream2", st[1], runs);
    bench_print_runs("sweep1", sw[0], runs);
    bench_print_runs("sweep2", sw[1], runs);
    printf("ratio stream %.3f\nratio sweep %.3f\n", bench_median(rs, runs), bench_median(rw, runs));
    printf("objective %.12g %.12g\n", obj[0], obj[1]);
    if (fabs(check[0] - check[1]) > 1e-6 * fabs(check[0]))
        fprintf(stderr, "split_bench: the two stream sums differ: %.17g %.17g\n", check[0],
                check[1]);
    free(sq);
    free(g);
    free(beta);
    free(bnew);
    free(delta);
    free(r[0]);
    free(r[1]);
    free(cols);
    ptm_dataset_free(ds);
    return 0;
}
