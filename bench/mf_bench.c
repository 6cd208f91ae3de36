/*
 * mf_bench.c - how fast the matrix factorization kernels run, on one core.
 *
 * Usage: mf_bench DIR [RANK [EPOCHS [RUNS]]]   (defaults: info.tsv's rank, 10, 3)
 * Reads DIR/ratings.mtx and DIR/test.mtx as `ptm gen mf` writes them, and
 * runs the kernels as the engine will call them in a rotation, the P
 * workers simulated one after another on this thread (each worker's shard
 * and grid are its own, so a round touches what a worker would): for P in
 * 1, 2, 4 and 8 (entries by row within a cell), RUNS runs of EPOCHS sweeps of
 * mf_sgd_cell from W, H uniform in [-0.1, 0.1] (seed 1), rate 0.05, decay
 * 0.95, reg 0.05 (mf_sgd's fixed steps); the same with adaptive steps
 * (mf_sgd_ada_cell, rate 0.2, mf_sgd's defaults) at P = 1 and 2; then
 * CCD++ (reg 0.05, inner 1) for 2 * RANK * 3 sweeps (three outer
 * iterations) at P = 1 and 4.
 * Prints, one item a line:
 *   problem ROWS COLS TRAIN TEST RANK READ_SECONDS NOISE TEST_RMSE_TRUE
 *   sgd P ORDER MEDIAN_MUPS FIRST_RMSE LAST_RMSE MUPS_RUN1 ...
 *       (million rating updates per CPU second of the process, from the
 *        median sweep time; test RMSE after the first and the last sweep of
 *        the last run)
 *   sgd_ada P ORDER ...   the same with adaptive steps
 *   ccd P MEDIAN_SWEEP_S MEDIAN_MUPS OUTER_ITERATION_S TEST_RMSE
 *       (a CCD++ sweep visits every rating once; an outer iteration is
 *        2 RANK sweeps)
 * Timings are CPU seconds of the process (clock_gettime), which a busy
 * machine inflates less than wall time.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "data.h"
#include "kernel_mf.h"
#include "ptm.h"
#include "rng.h"

enum { MAX_RUNS = 99, MAX_EPOCHS = 1000, MAX_P = 8 };

static struct ptm_dataset *read_mm(const char *path)
{
    struct ptm_data_opts o = {.format = PLAN_FORMAT_MM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    int rc = ptm_data_read(path, &o, &dg, &ds);
    if (rc != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "mf_bench: %s: %s\n", path, ptm_strerror(rc));
        exit(1);
    }
    ptm_data_diags_release(&dg);
    return ds;
}

static void init_uniform(double *a, int64_t n, double s, uint64_t seed)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, seed);
    for (int64_t k = 0; k < n; k++)
        a[k] = s * (2 * ptm_rng_uniform(&g) - 1);
}

/* P simulated workers. */
struct run {
    int P;
    int64_t rank;
    int64_t bounds[MAX_P + 1];
    struct mf_grid g[MAX_P];
    double *rw[MAX_P];
    double *rh;
    double *gw, *gh; /* adaptive steps' accumulators */
    double *W, *H;
};

static void run_init(struct run *r, const struct ptm_csr *R, int P, int64_t rank)
{
    memset(r, 0, sizeof(*r));
    r->P = P;
    r->rank = rank;
    ptm_shard_by_nnz(R->rowptr, R->nrows, P, r->bounds);
    int64_t *cnt = calloc((size_t)R->ncols, sizeof(*cnt));
    for (int p = 0; p < P; p++) {
        if (mf_grid_build(&r->g[p], R, r->bounds[p], r->bounds[p + 1], P)) {
            fprintf(stderr, "mf_bench: out of memory\n");
            exit(1);
        }
        r->rw[p] = malloc((size_t)(r->g[p].nrows + 1) * sizeof(double));
        mf_reg_rows(&r->g[p], 0.05, r->rw[p]);
        mf_col_counts_part(&r->g[p], cnt);
    }
    r->rh = malloc((size_t)R->ncols * sizeof(double));
    mf_reg_cols(cnt, R->ncols, 0.05, r->rh);
    free(cnt);
    r->W = malloc((size_t)(R->nrows * rank) * sizeof(double));
    r->H = malloc((size_t)(R->ncols * rank) * sizeof(double));
    r->gw = malloc((size_t)R->nrows * sizeof(double));
    r->gh = malloc((size_t)R->ncols * sizeof(double));
}

static void run_reset(struct run *r, const struct ptm_csr *R)
{
    init_uniform(r->W, R->nrows * r->rank, 0.1, 1);
    init_uniform(r->H, R->ncols * r->rank, 0.1, 2);
    mf_fill(r->gw, R->nrows, 1);
    mf_fill(r->gh, R->ncols, 1);
}

static void run_release(struct run *r)
{
    for (int p = 0; p < r->P; p++) {
        mf_grid_release(&r->g[p]);
        free(r->rw[p]);
    }
    free(r->rh);
    free(r->gw);
    free(r->gh);
    free(r->W);
    free(r->H);
}

static double *Wp(struct run *r, int p)
{
    return r->W + r->bounds[p] * r->rank;
}

static double test_rmse(struct run *r, const struct ptm_csr *T)
{
    double s = mf_sqerr_csr(T, 0, T->nrows, r->W, r->H, r->rank);
    return T->nnz ? sqrt(s / (double)T->nnz) : 0;
}

static void bench_sgd(const struct ptm_csr *R, const struct ptm_csr *T, int P, int64_t rank,
                      bool ada, int epochs, int runs)
{
    struct run r;
    run_init(&r, R, P, rank);
    double med[MAX_RUNS], first = 0, last = 0;
    double *sweep = malloc((size_t)epochs * sizeof(double));
    for (int run = 0; run < runs; run++) {
        run_reset(&r, R);
        for (int e = 0; e < epochs; e++) {
            double eta = mf_step(0.05, 0.95, e), t0 = bench_cpu();
            for (int t = 0; t < P; t++)
                for (int p = 0; p < P; p++) {
                    int b = (p + t) % P;
                    int64_t lo = r.g[p].block_lo[b];
                    if (ada)
                        mf_sgd_ada_cell(&r.g[p], b, rank, 0.2, Wp(&r, p), r.H + lo * rank,
                                        r.rw[p], r.rh + lo, r.gw + r.bounds[p], r.gh + lo);
                    else
                        mf_sgd_cell(&r.g[p], b, rank, eta, Wp(&r, p), r.H + lo * rank, r.rw[p],
                                    r.rh + lo);
                }
            sweep[e] = bench_cpu() - t0;
            if (run == runs - 1 && e == 0)
                first = test_rmse(&r, T);
        }
        med[run] = (double)R->nnz / bench_median(sweep, epochs) / 1e6;
    }
    last = test_rmse(&r, T);
    printf("%s %d %s %.1f %.4f %.4f", ada ? "sgd_ada" : "sgd", P, "rows",
           bench_median(med, runs), first, last);
    for (int run = 0; run < runs; run++)
        printf(" %.1f", med[run]);
    printf("\n");
    fflush(stdout);
    free(sweep);
    run_release(&r);
}

static void bench_ccd(const struct ptm_csr *R, const struct ptm_csr *T, int P, int64_t rank)
{
    struct run r;
    run_init(&r, R, P, rank);
    run_reset(&r, R);
    struct mf_ccd s[MAX_P];
    double *hacc = malloc((size_t)(2 * R->ncols) * sizeof(double));
    for (int p = 0; p < P; p++) {
        if (mf_ccd_init(&s[p], &r.g[p])) {
            fprintf(stderr, "mf_bench: out of memory\n");
            exit(1);
        }
        for (int b = 0; b < P; b++)
            mf_ccd_residual_cell(&s[p], &r.g[p], b, rank, Wp(&r, p),
                                 r.H + r.g[p].block_lo[b] * rank);
    }
    int64_t sweeps = 2 * rank * 3;
    double *sweep = malloc((size_t)sweeps * sizeof(double));
    for (int64_t e = 0; e < sweeps; e++) {
        double t0 = bench_cpu();
        for (int s_ = 0; s_ < P; s_++) {
            int64_t t = e * P + s_;
            struct mf_ccd_phase ph;
            mf_ccd_phase(t, P, rank, 1, &ph);
            for (int p = 0; p < P; p++) {
                int b = (int)((p + t) % P);
                int64_t lo = r.g[p].block_lo[b];
                mf_ccd_round(&s[p], &r.g[p], b, &ph, rank, 0.05, Wp(&r, p), r.H + lo * rank,
                             hacc + 2 * lo);
            }
        }
        sweep[e] = bench_cpu() - t0;
    }
    double m = bench_median(sweep, (int)sweeps);
    printf("ccd %d %.4f %.1f %.3f %.4f\n", P, m, (double)R->nnz / m / 1e6, m * 2 * (double)rank,
           test_rmse(&r, T));
    fflush(stdout);
    for (int p = 0; p < P; p++)
        mf_ccd_release(&s[p]);
    free(hacc);
    free(sweep);
    run_release(&r);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: mf_bench DIR [RANK [EPOCHS [RUNS]]]\n");
        return 2;
    }
    const char *dir = argv[1];
    int64_t rank = argc > 2 ? atoll(argv[2]) : (int64_t)bench_info_value(dir, "rank", 10);
    int epochs = argc > 3 ? atoi(argv[3]) : 10;
    int runs = argc > 4 ? atoi(argv[4]) : 3;
    if (rank < 1 || rank > 1000 || epochs < 1 || epochs > MAX_EPOCHS || runs < 1 ||
        runs > MAX_RUNS) {
        fprintf(stderr, "mf_bench: RANK 1 .. 1000, EPOCHS 1 .. %d, RUNS 1 .. %d\n", MAX_EPOCHS,
                MAX_RUNS);
        return 2;
    }
    char path[4096];
    double t0 = bench_now();
    snprintf(path, sizeof(path), "%s/ratings.mtx", dir);
    struct ptm_dataset *rd = read_mm(path);
    snprintf(path, sizeof(path), "%s/test.mtx", dir);
    struct ptm_dataset *td = read_mm(path);
    double read_s = bench_now() - t0;
    const struct ptm_csr *R = &rd->csr, *T = &td->csr;
    printf("problem %lld %lld %lld %lld %lld %.2f %g %g\n", (long long)R->nrows,
           (long long)R->ncols, (long long)R->nnz, (long long)T->nnz, (long long)rank, read_s,
           bench_info_value(dir, "noise", NAN), bench_info_value(dir, "test_rmse_true", NAN));
    fflush(stdout);
    static const int Ps[] = {1, 2, 4, 8};
    for (size_t k = 0; k < PTM_ARRAY_LEN(Ps); k++) {
        bench_sgd(R, T, Ps[k], rank, false, epochs, runs);
    }
    bench_sgd(R, T, 1, rank, true, epochs, runs);
    bench_sgd(R, T, 2, rank, true, epochs, runs);
    bench_ccd(R, T, 1, rank);
    bench_ccd(R, T, 4, rank);
    ptm_dataset_free(rd);
    ptm_dataset_free(td);
    return 0;
}
