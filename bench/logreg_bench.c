/*
 * logreg_bench.c - how fast the logistic regression step runs, on one core.
 *
 * Usage: logreg_bench DIR [MINIBATCH [SWEEPS [RATE]]]   (defaults 1000, 5, 0.5)
 * Reads DIR/train.svm as `ptm gen logreg` writes it and runs one worker's
 * clocks as the engine will (kernel_logreg.h): each clock adds the next
 * MINIBATCH rows (wrapping) at the current w, takes the step (l2 1e-4, as
 * examples/logreg/logreg.ptm) and applies the increments to w, for SWEEPS
 * sweeps (decay 1). Prints, one item a line:
 *   problem ROWS COLS NNZ READ_SECONDS LOGLOSS_TRUE
 *   sweep K SECONDS M_NNZ_PER_S INCREMENTS_PER_CLOCK OBJECTIVE
 *   median M_NNZ_PER_S M_ROWS_PER_S
 * (CPU seconds of the process; the objective is computed outside the
 * timing).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "data.h"
#include "kernel_logreg.h"
#include "ptm.h"

enum { MAX_SWEEPS = 1000 };

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: logreg_bench DIR [MINIBATCH [SWEEPS [RATE]]]\n");
        return 2;
    }
    int64_t B = argc > 2 ? atoll(argv[2]) : 1000;
    int sweeps = argc > 3 ? atoi(argv[3]) : 5;
    double rate = argc > 4 ? atof(argv[4]) : 0.5, l2 = 1e-4;
    if (B < 1 || sweeps < 1 || sweeps > MAX_SWEEPS || !(rate > 0)) {
        fprintf(stderr, "logreg_bench: MINIBATCH >= 1, SWEEPS 1 .. %d, RATE > 0\n", MAX_SWEEPS);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/train.svm", argv[1]);
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    double t0 = bench_cpu();
    int rc = ptm_data_read(path, &o, &dg, &ds);
    if (rc != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "logreg_bench: %s: %s\n", path, ptm_strerror(rc));
        return 1;
    }
    ptm_data_diags_release(&dg);
    const struct ptm_csr *x = &ds->csr;
    const double *y = ds->labels.val;
    int64_t n = x->nrows, d = x->ncols;
    printf("problem %lld %lld %lld %.2f %g\n", (long long)n, (long long)d, (long long)x->nnz,
           bench_cpu() - t0, bench_info_value(argv[1], "logloss_true", NAN));

    int64_t *cnt = calloc((size_t)d, sizeof(*cnt));
    double *scale = malloc((size_t)d * sizeof(*scale)), *w = calloc((size_t)d, sizeof(*w));
    double *inc = malloc((size_t)d * sizeof(*inc));
    int32_t *idx = malloc((size_t)d * sizeof(*idx));
    struct logreg_batch b;
    if (!cnt || !scale || !w || !inc || !idx || logreg_batch_init(&b, d)) {
        fprintf(stderr, "logreg_bench: out of memory\n");
        return 1;
    }
    logreg_col_counts_part(x, 0, n, cnt);
    logreg_reg_scale(cnt, d, n, scale);
    double rates[MAX_SWEEPS];
    int64_t pos = 0, clocks = (n + B - 1) / B;
    for (int e = 0; e < sweeps; e++) {
        double eta = logreg_step(rate, 1, e), t = bench_cpu();
        int64_t total = 0;
        for (int64_t c = 0; c < clocks; c++) {
            int64_t left = B;
            while (left > 0) {
                int64_t take = n - pos < left ? n - pos : left;
                logreg_batch_add(&b, x, y, pos, pos + take, w, NULL);
                left -= take;
                pos = (pos + take) % n;
            }
            int64_t k = logreg_batch_step(&b, w, scale, eta, l2, 0, idx, inc, NULL);
            for (int64_t q = 0; q < k; q++)
                w[idx[q]] += inc[q];
            total += k;
        }
        t = bench_cpu() - t;
        /* nnz of the rows visited: clocks * B rows, about nnz * clocks * B / n */
        double nnz = (double)x->nnz * (double)(clocks * B) / (double)n;
        rates[e] = nnz / t / 1e6;
        double f = logreg_loss_part(x, y, 0, n, w, NULL) / (double)n + logreg_penalty(w, d, l2, 0);
        printf("sweep %d %.3f %.1f %.0f %.6f\n", e + 1, t, rates[e], (double)total / (double)clocks,
               f);
    }
    double med = bench_median_inplace(rates, sweeps);
    printf("median %.1f %.2f\n", med, med * (double)n / (double)x->nnz);
    logreg_batch_release(&b);
    free(cnt);
    free(scale);
    free(w);
    free(inc);
    free(idx);
    ptm_dataset_free(ds);
    return 0;
}
