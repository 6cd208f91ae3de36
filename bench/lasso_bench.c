/*
 * lasso_bench.c - how fast the Lasso kernel sweeps, on one core.
 *
 * Usage: lasso_bench FILE LAMBDA_FRACTION [SWEEPS [RUNS]]   (defaults 10, 3)
 * Reads the libsvm FILE, sets lambda = LAMBDA_FRACTION * lambda_max, and
 * runs RUNS times from beta = 0:
 *   kernel: SWEEPS round-robin sweeps of one worker over all columns, one
 *           column a round, through lasso_push, lasso_pull and lasso_apply
 *           as the engine will call them (each sweep timed);
 *   serial: lasso_solve_serial with tol 0 for SWEEPS sweeps (timed whole).
 * Prints, one item a line:
 *   problem ROWS COLS NNZ LAMBDA LAMBDA_MAX READ_SECONDS CSC_SECONDS
 *   kernel MEDIAN_SWEEP_S MEDIAN_FIRST_SWEEP_S MEDIAN_LATER_SWEEP_S SWEEP1_S ...
 *   serial MEDIAN_SWEEP_S RUN1_S ...          (seconds per sweep)
 *   kernel_cpu ..., serial_cpu ...            (the same in CPU seconds of the
 *                                              process, which a busy machine
 *                                              inflates less)
 *   sweep K OBJECTIVE NONZEROS                (K = 1 .. SWEEPS, last kernel run)
 *   agree MAX_ABS_DIFF                        (kernel vs serial beta at the end)
 * LAMBDA is printed with %.17g so that other solvers can use the same.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "data.h"
#include "kernel_lasso.h"
#include "ptm.h"

enum { MAX_RUNS = 99, MAX_SWEEPS = 1000 };

/* "NAME MEDIAN MEDIAN_FIRST MEDIAN_LATER T1 T2 ..." for runs x sweeps times. */
static void print_sweeps(const char *name, const double *secs, int runs, int sweeps)
{
    double *first = malloc((size_t)runs * sizeof(double));
    double *later = malloc((size_t)(runs * sweeps) * sizeof(double));
    int nlater = 0;
    for (int run = 0; run < runs; run++) {
        first[run] = secs[run * sweeps];
        for (int s = 1; s < sweeps; s++)
            later[nlater++] = secs[run * sweeps + s];
    }
    printf("%s %.6f %.6f %.6f", name, bench_median(secs, runs * sweeps), bench_median(first, runs),
           nlater ? bench_median(later, nlater) : bench_median(first, runs));
    for (int i = 0; i < runs * sweeps; i++)
        printf(" %.6f", secs[i]);
    printf("\n");
    free(first);
    free(later);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: lasso_bench FILE LAMBDA_FRACTION [SWEEPS [RUNS]]\n");
        return 2;
    }
    double frac = atof(argv[2]);
    int sweeps = argc > 3 ? atoi(argv[3]) : 10, runs = argc > 4 ? atoi(argv[4]) : 3;
    if (!(frac > 0) || sweeps < 1 || sweeps > MAX_SWEEPS || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "lasso_bench: bad lambda fraction, sweep or run count\n");
        return 2;
    }
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    double t0 = bench_now();
    int rc = ptm_data_read(argv[1], &o, &dg, &ds);
    double t_read = bench_now() - t0;
    if (rc) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "lasso_bench: %s: %s\n", argv[1], ptm_strerror(rc));
        return 1;
    }
    ptm_data_diags_release(&dg);
    const struct ptm_csc *x;
    t0 = bench_now();
    if (ptm_dataset_csc(ds, &x))
        return 1;
    double t_csc = bench_now() - t0;
    int64_t n = x->nrows, d = x->ncols;
    const double *y = ds->labels.val;

    double *sq = malloc((size_t)d * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
    double *beta = malloc((size_t)d * sizeof(double)), *ref = malloc((size_t)d * sizeof(double));
    double *g = malloc((size_t)d * sizeof(double));
    double *secs = malloc((size_t)(runs * sweeps) * sizeof(double));
    double *cpus = malloc((size_t)(runs * sweeps) * sizeof(double));
    double *obj = malloc((size_t)sweeps * sizeof(double));
    int64_t *nz = malloc((size_t)sweeps * sizeof(int64_t));
    double serial[MAX_RUNS], serial_cpu[MAX_RUNS];
    lasso_colsq(x, sq);
    lasso_grad_part(x, y, g);
    double lambda_max = lasso_lambda_max(g, d, n), lambda = frac * lambda_max;

    for (int run = 0; run < runs; run++) {
        memset(beta, 0, (size_t)d * sizeof(double));
        memcpy(r, y, (size_t)n * sizeof(double));
        for (int s = 0; s < sweeps; s++) {
            t0 = bench_now();
            double c0 = bench_cpu();
            for (int64_t j = 0; j < d; j++) {
                double z[LASSO_K], b, delta;
                lasso_push(x, sq, r, beta, &j, 1, z);
                lasso_pull(z, 1, n, lambda, &b);
                delta = b - beta[j];
                beta[j] = b;
                lasso_apply(x, &j, &delta, 1, r);
            }
            secs[run * sweeps + s] = bench_now() - t0;
            cpus[run * sweeps + s] = bench_cpu() - c0;
            obj[s] = lasso_loss_part(r, n, n) + lasso_penalty(beta, d, lambda);
            int64_t k = 0;
            for (int64_t j = 0; j < d; j++)
                k += beta[j] != 0;
            nz[s] = k;
        }
    }
    for (int run = 0; run < runs; run++) {
        t0 = bench_now();
        double c0 = bench_cpu();
        if (lasso_solve_serial(x, y, lambda, 0, sweeps, ref) < 0)
            return 1;
        serial[run] = (bench_now() - t0) / sweeps;
        serial_cpu[run] = (bench_cpu() - c0) / sweeps;
    }

    printf("problem %lld %lld %lld %.17g %.17g %.4f %.4f\n", (long long)n, (long long)d,
           (long long)x->nnz, lambda, lambda_max, t_read, t_csc);
    print_sweeps("kernel", secs, runs, sweeps);
    bench_print_runs("serial", serial, runs);
    print_sweeps("kernel_cpu", cpus, runs, sweeps);
    bench_print_runs("serial_cpu", serial_cpu, runs);
    for (int s = 0; s < sweeps; s++)
        printf("sweep %d %.17g %lld\n", s + 1, obj[s], (long long)nz[s]);
    double diff = 0;
    for (int64_t j = 0; j < d; j++)
        diff = fmax(diff, fabs(beta[j] - ref[j]));
    printf("agree %.3g\n", diff);
    free(sq);
    free(r);
    free(beta);
    free(ref);
    free(g);
    free(secs);
    free(cpus);
    free(obj);
    free(nz);
    ptm_dataset_free(ds);
    return 0;
}
