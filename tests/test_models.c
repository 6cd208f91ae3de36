/*
 * test_models.c - `ptm run` for matrix factorization (rotation: mf_sgd,
 * mf_ccd, rmse), logistic regression (data_parallel over the parameter
 * store: logreg_sgd, logloss) and LDA (rotation with the topic totals in
 * the store: lda_gibbs, lda_loglik), jobs compiled and run on 1, 2 and 3
 * worker threads; logistic regression with an intercept too.
 *
 * DESIGN: each problem is generated with its ground truth into the
 * temporary directory that is the tests' working directory. The criteria
 * are computed here, not taken from the engine: held-out RMSE recomputed
 * from the output tables against the noise level the data was made with;
 * for logistic regression the regularized objective, recomputed from the
 * output weights over the whole data, must come within a tolerance of the
 * objective of the true weights or below it (the minimizer is at most
 * that), for BSP and SSP with staleness 2; for LDA the planted topics,
 * matched to the learned ones, by total variation. A worker slowed on
 * purpose (--straggler) must show its delays in its own seconds, which the
 * trace reader of `ptm plan` reads back, and hold the other worker back
 * under BSP only. A logistic regression stopped with checkpoints and
 * resumed must end with the bits of the run never stopped (w, b and the
 * objective's history), for every method of logreg_sgd.
 *
 * The Lua hooks of the examples (examples/mf/mf.lua under rotation,
 * examples/logreg/logreg.lua under data_parallel) run the same problems:
 * mf.lua does the built-in mf_sgd's steps in its order, so W and H must
 * come out the same as the kernel's; logreg.lua is plain minibatch SGD
 * (the penalty on every weight at every step, where the kernel charges
 * it to the batch's columns), so its objective must come within a
 * tolerance of the kernel's. Run from the repository root (make test):
 * the hooks are read from examples/.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data.h"
#include "engine.h"
#include "gen.h"
#include "gen_mf.h"
#include "gen_lda.h"
#include "gen_logreg.h"
#include "gen_lasso.h"

#include "kernel_logreg.h"
#include "kernel_mf.h"
#include "plan.h"
#include "predict.h"
#include "ptm.h"
#include "rng.h"
#include "testutil.h"
#include "viz.h"

static struct ptm_plan *compile_text(const char *text)
{
    return tu_compile("t.ptm", text, ".", false);
}

/* Run plan on P workers; the run, or a failed test. */
static struct ptm_run *run_plan(const struct ptm_plan *plan, int P)
{
    struct ptm_run_opts o = {.workers = P};
    struct ptm_run *run = tu_run_new(plan, &o);
    char err[4096];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_msg(rc == 0, "ptm_run_exec: %s", err);
    return run;
}

static struct ptm_dataset *read_mm(const char *path)
{
    struct ptm_data_opts o = {.format = PLAN_FORMAT_MM, .sparse = true};
    return tu_read_data(path, &o);
}

/* ---- matrix factorization ------------------------------------------------- */

enum { MF_ROWS = 600, MF_COLS = 300, MF_RANK = 5 };
static const double mf_noise = 0.1;

static const struct {
    const char *update;
    int sweeps, P;
    double within; /* held-out RMSE at most this times the noise */
} mf_cases[] = {
    {"mf_sgd { rate = 0.05, decay = 0.97, reg = 0.05, step = fixed }", 60, 1, 1.25},
    {"mf_sgd { rate = 0.05, decay = 0.97, reg = 0.05, step = fixed }", 60, 2, 1.25},
    {"mf_sgd { rate = 0.05, decay = 0.97, reg = 0.05, step = fixed }", 60, 3, 1.25},
    {"mf_sgd", 30, 1, 1.25}, /* the defaults: adaptive steps, penalty total */
    {"mf_sgd", 30, 2, 1.25},
    {"mf_sgd { penalty = rating, reg = 0.002, rate = 0.5 }", 30, 2, 1.25},
    {"mf_ccd { reg = 1, inner = 1 }", 300, 1, 1.25},
    {"mf_ccd { reg = 1, inner = 1 }", 300, 3, 1.25},
};

START_TEST(test_mf)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "job mf\n"
             "const rank = %d\n"
             "data R : sparse matrix from \"mf/ratings.mtx\" format mm shard rows\n"
             "data T : sparse matrix from \"mf/test.mtx\" format mm\n"
             "param W : matrix[rows(R), rank] = random(0.3) shard like R\n"
             "param H : matrix[cols(R), rank] = random(0.3)\n"
             "blocks hb = H rows into workers\n"
             "schedule rotation over hb\n"
             "update builtin %s\n"
             "objective builtin rmse { test = T } every 1 sweeps\n"
             "stop when sweeps >= %d\n",
             MF_RANK, mf_cases[_i].update, mf_cases[_i].sweeps);
    struct ptm_plan *plan = compile_text(text);
    struct ptm_run *run = run_plan(plan, mf_cases[_i].P);

    /* held-out RMSE from the tables, computed here */
    double *W = malloc(sizeof(double) * MF_ROWS * MF_RANK);
    double *H = malloc(sizeof(double) * MF_COLS * MF_RANK);
    ck_assert(W && H);
    ck_assert_int_eq(ptm_run_param(run, 0, W, MF_ROWS * MF_RANK), MF_ROWS * MF_RANK);
    ck_assert_int_eq(ptm_run_param(run, 1, H, MF_COLS * MF_RANK), MF_COLS * MF_RANK);
    struct ptm_dataset *T = read_mm("mf/test.mtx");
    double se = 0;
    for (int64_t i = 0; i < T->csr.nrows; i++)
        for (int64_t e = T->csr.rowptr[i]; e < T->csr.rowptr[i + 1]; e++) {
            double p = 0;
            for (int k = 0; k < MF_RANK; k++)
                p += W[i * MF_RANK + k] * H[T->csr.colind[e] * MF_RANK + k];
            se += (T->csr.val[e] - p) * (T->csr.val[e] - p);
        }
    double rmse = sqrt(se / (double)T->csr.nnz);
    ck_assert_msg(rmse <= mf_cases[_i].within * mf_noise, "%s P=%d: held-out RMSE %g, noise %g",
                  mf_cases[_i].update, mf_cases[_i].P, rmse, mf_noise);

    /* the engine's objective says the same at the end */
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_uint_ge(nh, 2);
    ck_assert_msg(fabs(h[nh - 1] - rmse) <= 1e-9 * rmse, "engine %g, here %g", h[nh - 1], rmse);
    ck_assert_msg(h[nh - 1] < h[0], "RMSE did not fall: %g -> %g", h[0], h[nh - 1]);
    if (tu_verbose())
        printf("%s P=%d: held-out RMSE %.4f after %d sweeps (noise %.3f), first %.4f\n",
               mf_cases[_i].update, mf_cases[_i].P, rmse, mf_cases[_i].sweeps, mf_noise, h[0]);
    ptm_dataset_free(T);
    free(W);
    free(H);
    ptm_run_free(run);
    plan_free(plan);
}
END_TEST

/* examples/mf/mf.lua against the kernel on P workers: the same updates
 * in the same order with the same arithmetic (the host's dot sums in the
 * kernel's order), so the tables must agree to the last bit; the test
 * allows 1e-12 of the largest value, should the kernel's rounding ever
 * change (SGD would carry a difference of one rounding along, not grow it
 * much over these sweeps). And the held-out RMSE at the noise level. */
START_TEST(test_mf_lua)
{
    int P = 1 + _i;
    const char *job = "job mf\n"
                      "const rank = %d\n"
                      "const rate = 0.05\n"
                      "const decay = 0.97\n"
                      "const reg = 0.05\n"
                      "data R : sparse matrix from \"mf/ratings.mtx\" format mm shard rows\n"
                      "data T : sparse matrix from \"mf/test.mtx\" format mm\n"
                      "param W : matrix[rows(R), rank] = random(0.3) shard like R\n"
                      "param H : matrix[cols(R), rank] = random(0.3)\n"
                      "blocks hb = H rows into workers\n"
                      "schedule rotation over hb\n"
                      "update %s\n"
                      "objective builtin rmse { test = T } every 1 sweeps\n"
                      "stop when sweeps >= 60\n";
    char text[2048];
    double *W[2], *H[2], rmse[2];
    for (int lua = 0; lua < 2; lua++) {
        snprintf(text, sizeof(text), job, MF_RANK,
                 lua ? "lua \"mf/mf.lua\""
                     : "builtin mf_sgd { rate = rate, decay = decay, "
                       "reg = reg, step = fixed }");
        struct ptm_plan *plan = compile_text(text);
        struct ptm_run *run = run_plan(plan, P);
        W[lua] = malloc(sizeof(double) * MF_ROWS * MF_RANK);
        H[lua] = malloc(sizeof(double) * MF_COLS * MF_RANK);
        ck_assert(W[lua] && H[lua]);
        ck_assert_int_eq(ptm_run_param(run, 0, W[lua], MF_ROWS * MF_RANK), MF_ROWS * MF_RANK);
        ck_assert_int_eq(ptm_run_param(run, 1, H[lua], MF_COLS * MF_RANK), MF_COLS * MF_RANK);
        size_t nh;
        const double *h = ptm_run_history(run, &nh);
        ck_assert_uint_eq(nh, 61);
        rmse[lua] = h[nh - 1];
        ptm_run_free(run);
        plan_free(plan);
    }
    double big = 0, worst = 0;
    for (int k = 0; k < MF_ROWS * MF_RANK; k++) {
        big = fmax(big, fabs(W[0][k]));
        worst = fmax(worst, fabs(W[0][k] - W[1][k]));
    }
    for (int k = 0; k < MF_COLS * MF_RANK; k++) {
        big = fmax(big, fabs(H[0][k]));
        worst = fmax(worst, fabs(H[0][k] - H[1][k]));
    }
    ck_assert_msg(worst <= 1e-12 * big, "P=%d: mf.lua differs from mf_sgd by %g (largest %g)", P,
                  worst, big);
    ck_assert_msg(rmse[1] <= 1.25 * mf_noise, "P=%d: mf.lua: held-out RMSE %g, noise %g", P,
                  rmse[1], mf_noise);
    if (tu_verbose())
        printf("mf.lua P=%d: held-out RMSE %.4f (kernel %.4f), largest difference %g\n", P, rmse[1],
               rmse[0], worst);
    for (int lua = 0; lua < 2; lua++) {
        free(W[lua]);
        free(H[lua]);
    }
}
END_TEST

/* CCD++ is exact coordinate descent: the same values on any P, up to the
 * order of sums. */
START_TEST(test_mf_ccd_workers)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "job mf\n"
             "data R : sparse matrix from \"mf/ratings.mtx\" format mm shard rows\n"
             "param W : matrix[rows(R), %d] = random(0.3) shard like R\n"
             "param H : matrix[cols(R), %d] = random(0.3)\n"
             "blocks hb = H rows into workers\n"
             "schedule rotation over hb\n"
             "update builtin mf_ccd { reg = 1 }\n"
             "stop when sweeps >= 24\n",
             MF_RANK, MF_RANK);
    struct ptm_plan *plan = compile_text(text);
    double *a = malloc(sizeof(double) * MF_COLS * MF_RANK);
    double *b = malloc(sizeof(double) * MF_COLS * MF_RANK);
    ck_assert(a && b);
    struct ptm_run *run = run_plan(plan, 1);
    ptm_run_param(run, 1, a, MF_COLS * MF_RANK);
    ptm_run_free(run);
    for (int P = 2; P <= 3; P++) {
        run = run_plan(plan, P);
        ptm_run_param(run, 1, b, MF_COLS * MF_RANK);
        ptm_run_free(run);
        double worst = 0;
        for (int k = 0; k < MF_COLS * MF_RANK; k++)
            worst = fmax(worst, fabs(a[k] - b[k]));
        ck_assert_msg(worst < 1e-9, "P=%d: H differs from P=1 by %g", P, worst);
    }
    free(a);
    free(b);
    plan_free(plan);
}
END_TEST

/* ---- logistic regression ------------------------------------------------- */

enum { LR_ROWS = 20000, LR_COLS = 200 };
static const double lr_l2 = 1e-3;

static const struct {
    const char *consistency;
    int P;
} lr_cases[] = {
    {"bsp", 1},
    {"bsp", 2},
    {"ssp 2", 2},
    {"ssp 2", 3},
    {"async", 2},
};

/* F(w) = mean logistic loss + (l2 / 2) |w|^2, computed here. */
static double lr_objective(const struct ptm_dataset *X, const double *w)
{
    return logreg_loss_part(&X->csr, X->labels.val, 0, X->csr.nrows, w, NULL) /
               (double)X->csr.nrows +
           logreg_penalty(w, X->csr.ncols, lr_l2, 0);
}

START_TEST(test_logreg)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "job lr\n"
             "data X : sparse matrix from \"lr/train.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param w : vector[cols(X)] = 0 consistency %s\n"
             "schedule data_parallel { minibatch 200 }\n"
             "update builtin logreg_sgd { method = sgd, rate = 0.5, decay = 0.9, l2 = %g }\n"
             "objective builtin logloss { l2 = %g } every 1 sweeps\n"
             "stop when sweeps >= 30\n",
             lr_cases[_i].consistency, lr_l2, lr_l2);
    struct ptm_plan *plan = compile_text(text);
    struct ptm_run *run = run_plan(plan, lr_cases[_i].P);
    double *w = calloc(LR_COLS, sizeof(double)), *wt = calloc(LR_COLS, sizeof(double));
    ck_assert(w && wt);
    ck_assert_int_eq(ptm_run_param(run, 0, w, LR_COLS), LR_COLS);
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_dataset *X = tu_read_data("lr/train.svm", &o);
    FILE *f = fopen("lr/w_true.tsv", "r");
    ck_assert_ptr_nonnull(f);
    for (int j = 0; j < LR_COLS; j++)
        ck_assert_int_eq(fscanf(f, "%lf", &wt[j]), 1);
    fclose(f);
    double F = lr_objective(X, w), Ft = lr_objective(X, wt), F0;
    memset(wt, 0, LR_COLS * sizeof(double));
    F0 = lr_objective(X, wt);
    /* the minimizer is at most F(w_true); SGD must come close */
    ck_assert_msg(F <= Ft + 2e-3, "%s P=%d: F(w) = %.6f, F(w_true) = %.6f", lr_cases[_i].consistency,
                  lr_cases[_i].P, F, Ft);
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_uint_eq(nh, 31);
    ck_assert_msg(fabs(h[0] - F0) < 1e-12 && fabs(h[nh - 1] - F) < 1e-9,
                  "engine objective %g..%g, here %g..%g", h[0], h[nh - 1], F0, F);
    for (size_t k = 6; k < nh; k++)
        ck_assert_msg(h[k] <= h[k - 1] + 1e-4, "objective rose at sweep %zu: %g -> %g", k,
                      h[k - 1], h[k]);
    if (tu_verbose())
        printf("logreg %s P=%d: F %.6f (w_true %.6f, w = 0 %.6f)\n", lr_cases[_i].consistency,
               lr_cases[_i].P, F, Ft, F0);
    ptm_dataset_free(X);
    free(w);
    free(wt);
    ptm_run_free(run);
    plan_free(plan);
}
END_TEST

/* logreg_sgd { intercept = b } on labels made two thirds positive (every
 * third row's label set to 1), so that b is far from 0: under svrg the
 * optimality conditions with an intercept hold to 1e-9, computed here row
 * by row from the output w and b (the mean loss slope, which is the
 * gradient in b, and the KKT conditions on w); under sgd the gradient in
 * b comes within 2e-3 of 0 and the objective below that of w_true with no
 * intercept. */
static const struct {
    const char *method, *consistency;
    int P;
} lri_cases[] = {
    {"svrg", "bsp", 1},
    {"svrg", "ssp 2", 2},
    {"svrg", "ssp 2", 3},
    {"sgd", "ssp 2", 2},
};

/* Over the rows of X at (w, b): the mean loss, the gradient of the mean
 * loss in w (into g) and its derivative in b (returned in *gb). */
static double lr_slopes(const struct ptm_dataset *X, const double *w, double b, double *g,
                        double *gb)
{
    const struct ptm_csr *x = &X->csr;
    double loss = 0, sb = 0, n = (double)x->nrows;
    memset(g, 0, (size_t)x->ncols * sizeof(double));
    for (int64_t i = 0; i < x->nrows; i++) {
        double m = b, y = X->labels.val[i] > 0 ? 1 : -1;
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            m += x->val[e] * w[x->colind[e]];
        double c = -y / (1 + exp(y * m)); /* p_i - [y_i = 1] */
        loss += log1p(exp(-y * m));
        sb += c;
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            g[x->colind[e]] += c * x->val[e];
    }
    for (int64_t j = 0; j < x->ncols; j++)
        g[j] /= n;
    *gb = sb / n;
    return loss / n;
}

START_TEST(test_logreg_intercept)
{
    char text[2048];
    bool svrg = strcmp(lri_cases[_i].method, "svrg") == 0;
    snprintf(text, sizeof(text),
             "job lr\n"
             "data X : sparse matrix from \"lr/skew.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param w : vector[cols(X)] = 0 consistency %s\n"
             "param b : vector[1] = 0\n"
             "schedule data_parallel { minibatch 200 }\n"
             "update builtin logreg_sgd { rate = %s, l2 = %g, method = %s, intercept = b }\n"
             "objective builtin logloss { l2 = %g, intercept = b } every 1 sweeps\n"
             "stop when sweeps >= %d\n",
             lri_cases[_i].consistency, svrg ? "5" : "0.5, decay = 0.9", lr_l2,
             lri_cases[_i].method, lr_l2, svrg ? 200 : 30);
    struct ptm_plan *plan = compile_text(text);
    struct ptm_run *run = run_plan(plan, lri_cases[_i].P);
    double *w = calloc(LR_COLS, sizeof(double)), *g = calloc(LR_COLS, sizeof(double)), b, gb;
    ck_assert(w && g);
    ck_assert_int_eq(ptm_run_param(run, 0, w, LR_COLS), LR_COLS);
    ck_assert_int_eq(ptm_run_param(run, 1, &b, 1), 1);
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_dataset *X = tu_read_data("lr/skew.svm", &o);
    double F = lr_slopes(X, w, b, g, &gb) + logreg_penalty(w, LR_COLS, lr_l2, 0), kkt = 0;
    for (int j = 0; j < LR_COLS; j++)
        kkt = fmax(kkt, fabs(g[j] + lr_l2 * w[j]));
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_msg(fabs(h[nh - 1] - F) < 1e-9, "engine objective %.12g, here %.12g", h[nh - 1], F);
    if (svrg) {
        ck_assert_msg(fabs(gb) < 1e-9 && kkt < 1e-9, "%s P=%d: dF/db %g, KKT on w %g",
                      lri_cases[_i].consistency, lri_cases[_i].P, gb, kkt);
    } else {
        FILE *f = fopen("lr/w_true.tsv", "r");
        ck_assert_ptr_nonnull(f);
        for (int j = 0; j < LR_COLS; j++)
            ck_assert_int_eq(fscanf(f, "%lf", &w[j]), 1);
        fclose(f);
        double gt, Ft = lr_slopes(X, w, 0, g, &gt) + logreg_penalty(w, LR_COLS, lr_l2, 0);
        ck_assert_msg(fabs(gb) < 2e-3 && F < Ft, "sgd P=%d: dF/db %g, F %.6f, F(w_true, 0) %.6f",
                      lri_cases[_i].P, gb, F, Ft);
    }
    ck_assert_msg(b > 0.3, "b = %g: two thirds of the labels are 1", b);
    if (tu_verbose())
        printf("logreg intercept %s %s P=%d: F %.10f, b %.6f, dF/db %.3g, KKT on w %.3g\n",
               lri_cases[_i].method, lri_cases[_i].consistency, lri_cases[_i].P, F, b, gb, kkt);
    ptm_dataset_free(X);
    free(w);
    free(g);
    ptm_run_free(run);
    plan_free(plan);
}
END_TEST

/* Checkpoints of logreg_sgd: a run stopped early with checkpoints, then
 * resumed under the whole job's stop rule, ends with the bits of w, b and
 * the objective history of the run never stopped: on one worker for the
 * methods with clocks (a checkpoint in the middle of a sweep where the
 * objective's interval is shorter, so that svrg's anchor and the
 * workers' places in their shards are carried over), on any number for
 * tron (whose sums go in worker order). */
static const struct {
    const char *method, *consistency, *every;
    int P;
    int stop_rounds; /* of the run stopped early */
} lrc_cases[] = {
    {"sgd, rate = 0.5, decay = 0.9", "ssp 2", "1 sweeps", 1, 250},
    {"sgd, rate = 0.5, decay = 0.9", "async", "7 rounds", 1, 250},
    {"svrg, rate = 5", "ssp 2", "7 rounds", 1, 250},
    {"tron", "bsp", "1 sweeps", 1, 2},
    {"tron", "bsp", "1 sweeps", 3, 3},
};

/* lrc_cases[i]'s job, stopped at `stop`. */
static struct ptm_plan *lrc_plan(int i, const char *stop)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "job lr\n"
             "data X : sparse matrix from \"lr/skew.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param w : vector[cols(X)] = 0 consistency %s\n"
             "param b : vector[1] = 0\n"
             "schedule data_parallel { minibatch 200 }\n"
             "update builtin logreg_sgd { method = %s, l2 = %g, intercept = b }\n"
             "objective builtin logloss { l2 = %g, intercept = b } every %s\n"
             "stop when %s\n",
             lrc_cases[i].consistency, lrc_cases[i].method, lr_l2, lr_l2, lrc_cases[i].every, stop);
    return compile_text(text);
}

/* The run's w and b (LR_COLS + 1 values) and objective history. */
static void lrc_result(struct ptm_run *run, double *wb, double **hist, size_t *nh)
{
    ck_assert_int_eq(ptm_run_param(run, 0, wb, LR_COLS), LR_COLS);
    ck_assert_int_eq(ptm_run_param(run, 1, wb + LR_COLS, 1), 1);
    const double *h = ptm_run_history(run, nh);
    *hist = malloc(*nh * sizeof(double));
    ck_assert_ptr_nonnull(*hist);
    memcpy(*hist, h, *nh * sizeof(double));
}

START_TEST(test_logreg_resume)
{
    const char *whole = "sweeps >= 6";
    char stop[64], dir[64], err[4096];
    snprintf(stop, sizeof(stop), "rounds >= %d", lrc_cases[_i].stop_rounds);
    snprintf(dir, sizeof(dir), "lr_ck%d", _i);
    int P = lrc_cases[_i].P;
    double a[LR_COLS + 1], b[LR_COLS + 1], *ha, *hb;
    size_t na, nb;

    struct ptm_plan *plan = lrc_plan(_i, whole);
    struct ptm_run *run = run_plan(plan, P);
    lrc_result(run, a, &ha, &na);
    ptm_run_free(run);

    struct ptm_plan *early = lrc_plan(_i, stop);
    struct ptm_run_opts o = {.workers = P,
                             .checkpoint = dir,
                             .checkpoint_every = 1,
                             .checkpoint_unit = PLAN_UNIT_ROUNDS};
    run = tu_run_new(early, &o);
    ck_assert_msg(ptm_run_exec(run, err, sizeof(err)) == 0, "%s", err);
    struct ptm_run_stats st;
    ptm_run_stats(run, &st);
    ck_assert_int_ge(st.rounds, lrc_cases[_i].stop_rounds);
    ptm_run_free(run);

    o = (struct ptm_run_opts){.workers = P, .checkpoint = dir, .resume = dir};
    run = tu_run_new(plan, &o);
    ck_assert_msg(ptm_run_resume(run, dir, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(ptm_run_exec(run, err, sizeof(err)) == 0, "%s", err);
    lrc_result(run, b, &hb, &nb);
    ptm_run_stats(run, &st);
    ptm_run_free(run);

    if (tu_verbose())
        printf("logreg resume %s %s P=%d: from round %d, %zu evaluations, F %.12f\n",
               lrc_cases[_i].method, lrc_cases[_i].consistency, P, lrc_cases[_i].stop_rounds, nb,
               hb[nb - 1]);
    ck_assert_uint_gt(na, 2);
    ck_assert_uint_eq(na, nb);
    ck_assert_msg(memcmp(ha, hb, na * sizeof(double)) == 0, "the objective's history differs");
    ck_assert_msg(memcmp(a, b, sizeof(a)) == 0, "w or b differs");
    ck_assert(b[LR_COLS] != 0);
    free(ha);
    free(hb);
    plan_free(early);
    plan_free(plan);
}
END_TEST

/* examples/logreg/logreg.lua under SSP: the objective within 1e-4 of
 * the kernel's on the same problem, sweeps and step sizes, and within the
 * kernel's tolerance of F(w_true). The two are different SGD variants
 * (the penalty on every weight, or on the batch's columns) and, under SSP
 * on several workers, see different stale weights: their objectives agree
 * to a few 1e-6 here, and 1e-4 leaves room for the timing. */
START_TEST(test_logreg_lua)
{
    static const struct {
        const char *consistency;
        int P;
    } cases[] = {{"bsp", 1}, {"ssp 2", 2}, {"async", 2}};
    const char *job = "job lr\n"
                      "const rate = 0.5\n"
                      "const decay = 0.9\n"
                      "const l2 = %g\n"
                      "data X : sparse matrix from \"lr/train.svm\" format libsvm shard rows\n"
                      "data y : vector from labels(X)\n"
                      "param w : vector[cols(X)] = 0 consistency %s\n"
                      "schedule data_parallel { minibatch 200 }\n"
                      "update %s\n"
                      "objective builtin logloss { l2 = l2 } every 1 sweeps\n"
                      "stop when sweeps >= 30\n";
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_dataset *X = tu_read_data("lr/train.svm", &o);
    double *wt = calloc(LR_COLS, sizeof(double)), *w = calloc(LR_COLS, sizeof(double));
    ck_assert(wt && w);
    FILE *f = fopen("lr/w_true.tsv", "r");
    ck_assert_ptr_nonnull(f);
    for (int j = 0; j < LR_COLS; j++)
        ck_assert_int_eq(fscanf(f, "%lf", &wt[j]), 1);
    fclose(f);
    double Ft = lr_objective(X, wt);
    char text[2048];
    double F[2];
    for (int lua = 0; lua < 2; lua++) {
        snprintf(text, sizeof(text), job, lr_l2, cases[_i].consistency,
                 lua ? "lua \"lr/logreg.lua\""
                     : "builtin logreg_sgd { method = sgd, rate = rate, decay = "
                       "decay, l2 = l2 }");
        struct ptm_plan *plan = compile_text(text);
        struct ptm_run *run = run_plan(plan, cases[_i].P);
        ck_assert_int_eq(ptm_run_param(run, 0, w, LR_COLS), LR_COLS);
        F[lua] = lr_objective(X, w);
        size_t nh;
        const double *h = ptm_run_history(run, &nh);
        ck_assert_uint_eq(nh, 31);
        ck_assert_msg(fabs(h[nh - 1] - F[lua]) < 1e-9, "engine %g, here %g", h[nh - 1], F[lua]);
        ptm_run_free(run);
        plan_free(plan);
    }
    ck_assert_msg(fabs(F[1] - F[0]) <= 1e-4, "%s P=%d: logreg.lua F = %.6f, kernel %.6f",
                  cases[_i].consistency, cases[_i].P, F[1], F[0]);
    ck_assert_msg(F[1] <= Ft + 2e-3, "%s P=%d: logreg.lua F = %.6f, F(w_true) = %.6f",
                  cases[_i].consistency, cases[_i].P, F[1], Ft);
    if (tu_verbose())
        printf("logreg.lua %s P=%d: F %.6f (kernel %.6f, w_true %.6f)\n", cases[_i].consistency,
               cases[_i].P, F[1], F[0], Ft);
    ptm_dataset_free(X);
    free(w);
    free(wt);
}
END_TEST

/* ---- LDA ------------------------------------------------------------------ */

enum { LDA_DOCS = 600, LDA_WORDS = 400, LDA_TOPICS = 5 };

static const struct {
    const char *sampler, *consistency;
    int P;
} lda_cases[] = {
    {"sparse", "ssp 1", 1}, {"sparse", "ssp 1", 2}, {"plain", "bsp", 3}, {"alias", "ssp 1", 2},
    {"dense", "ssp 1", 2}, {"dense, counts = sparse", "ssp 1", 2},
};

START_TEST(test_lda)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "job lda\n"
             "const topics = %d\n"
             "data D : sparse int matrix from \"lda/docword.txt\" format uci vocab "
             "\"lda/vocab.txt\" shard rows\n"
             "param nwk : int matrix[cols(D), topics] = 0\n"
             "param nk  : int vector[topics] = 0 consistency %s\n"
             "blocks words = nwk rows into workers\n"
             "schedule rotation over words\n"
             "update builtin lda_gibbs { alpha = 0.1, beta = 0.01, sampler = %s }\n"
             "objective builtin lda_loglik every 5 sweeps\n"
             "stop when sweeps >= 60\n"
             "output nwk to \"nwk.tsv\"\n",
             LDA_TOPICS, lda_cases[_i].consistency, lda_cases[_i].sampler);
    struct ptm_plan *plan = compile_text(text);
    /* Six chains (seeds 1 to 6): on a corpus this small a Gibbs chain
     * may settle in a mode that merges two planted topics, a local maximum
     * of lower likelihood (seeds 11 to 40: 4 or 5 chains of 30 on 2
     * workers, 1 or 2 on 1 worker, for each sampler). Under ssp a seed's
     * chain also depends on the workers' timing, so a seed may land in
     * either mode from one run to the next. The chain of highest
     * log-likelihood must have found the planted topics, and every chain's
     * log-likelihood must rise. */
    static double nwk[LDA_WORDS * LDA_TOPICS], truth[LDA_TOPICS][LDA_WORDS];
    /* each word's tokens in the corpus, which its row of nwk (filled
     * from the kernel's counts after the run) must add up to */
    static double wtok[LDA_WORDS];
    memset(wtok, 0, sizeof(wtok));
    FILE *f = fopen("lda/docword.txt", "r");
    ck_assert_ptr_nonnull(f);
    long hdr[3], dw[3];
    ck_assert_int_eq(fscanf(f, "%ld %ld %ld", &hdr[0], &hdr[1], &hdr[2]), 3);
    ck_assert_int_eq(hdr[1], LDA_WORDS);
    while (fscanf(f, "%ld %ld %ld", &dw[0], &dw[1], &dw[2]) == 3) {
        ck_assert(dw[1] >= 1 && dw[1] <= LDA_WORDS);
        wtok[dw[1] - 1] += (double)dw[2];
    }
    fclose(f);
    f = fopen("lda/topics_true.tsv", "r");
    ck_assert_ptr_nonnull(f);
    for (int k = 0; k < LDA_TOPICS; k++)
        for (int w = 0; w < LDA_WORDS; w++)
            ck_assert_int_eq(fscanf(f, "%lf", &truth[k][w]), 1);
    fclose(f);
    struct ptm_run *best = NULL;
    double best_ll = -INFINITY, best_tv = 2;
    for (int chain = 0; chain < 6; chain++) {
        struct ptm_run_opts o = {.workers = lda_cases[_i].P, .has_seed = true,
                                 .seed = (uint64_t)chain + 1};
        struct ptm_run *run = tu_run_new(plan, &o);
        char msg[4096];
        ck_assert_msg(ptm_run_exec(run, msg, sizeof(msg)) == 0, "ptm_run_exec: %s", msg);
        size_t nh;
        const double *h = ptm_run_history(run, &nh);
        ck_assert_uint_ge(nh, 3);
        ck_assert_msg(h[nh - 1] > h[0] + 0.1, "log-likelihood per token %g -> %g", h[0],
                      h[nh - 1]);

        /* learned topics, matched greedily to the planted ones */
        ck_assert_int_eq(ptm_run_param(run, 0, nwk, LDA_WORDS * LDA_TOPICS),
                         LDA_WORDS * LDA_TOPICS);
        for (int w = 0; w < LDA_WORDS; w++) {
            double row = 0;
            for (int k = 0; k < LDA_TOPICS; k++)
                row += nwk[w * LDA_TOPICS + k];
            ck_assert_msg(row == wtok[w], "word %d: nwk's row adds up to %g, its tokens %g", w + 1,
                          row, wtok[w]);
        }
        double learned[LDA_TOPICS][LDA_WORDS];
        for (int k = 0; k < LDA_TOPICS; k++) {
            double sum = 0;
            for (int w = 0; w < LDA_WORDS; w++)
                sum += nwk[w * LDA_TOPICS + k];
            for (int w = 0; w < LDA_WORDS; w++)
                learned[k][w] = sum > 0 ? nwk[w * LDA_TOPICS + k] / sum : 0;
        }
        bool used[LDA_TOPICS] = {false};
        double total = 0;
        for (int t = 0; t < LDA_TOPICS; t++) {
            double bt = 2;
            int bk = -1;
            for (int k = 0; k < LDA_TOPICS; k++) {
                if (used[k])
                    continue;
                double tv = 0;
                for (int w = 0; w < LDA_WORDS; w++)
                    tv += fabs(truth[t][w] - learned[k][w]);
                if (tv / 2 < bt) {
                    bt = tv / 2;
                    bk = k;
                }
            }
            used[bk] = true;
            total += bt;
        }
        double mean_tv = total / LDA_TOPICS;
        if (tu_verbose())
            printf("lda %s %s P=%d seed %d: log-likelihood a token %.4f -> %.4f, topics matched "
                   "at mean TV %.4f\n",
                   lda_cases[_i].sampler, lda_cases[_i].consistency, lda_cases[_i].P, chain + 1,
                   h[0], h[nh - 1], mean_tv);
        if (h[nh - 1] > best_ll) {
            best_ll = h[nh - 1];
            best_tv = mean_tv;
            ptm_run_free(best);
            best = run;
        } else {
            ptm_run_free(run);
        }
    }
    ck_assert_msg(best_tv < 0.15,
                  "%s P=%d: the chain of highest log-likelihood (%g) matched the planted topics "
                  "with mean total variation %g",
                  lda_cases[_i].sampler, lda_cases[_i].P, best_ll, best_tv);
    char err[512];
    ck_assert_int_eq(ptm_run_write_outputs(best, err, sizeof(err)), 0);
    f = fopen("nwk.tsv.top", "r");
    ck_assert_ptr_nonnull(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    ck_assert_int_eq(lines, LDA_TOPICS);
    ptm_run_free(best);
    plan_free(plan);
}
END_TEST

/* ---- workers slowed on purpose (ptm run --straggler) ---------------------- */

static const struct {
    const char *job;  /* "lr" or "lda" */
    const char *cons; /* the shared table's consistency */
    int slow;         /* the slowed worker, 1-based */
    double ms, prob;
    bool held; /* the other worker waits for it at every clock (BSP) */
} st_cases[] = {
    {"lr", "async", 2, 10, 1, false},  {"lr", "async", 1, 10, 1, false},
    {"lr", "bsp", 2, 10, 1, true},     {"lr", "async", 2, 10, 0.5, false},
    {"lda", "ssp 1", 2, 20, 1, false},
};

/* One run of st_cases[i] on 2 workers with its trace in path; the rounds
 * it ran (a clock of every worker each). */
static int64_t straggle_run(int i, const char *path)
{
    char text[2048];
    if (strcmp(st_cases[i].job, "lr") == 0)
        snprintf(text, sizeof(text),
                 "job lr\n"
                 "data X : sparse matrix from \"lr/train.svm\" format libsvm shard rows\n"
                 "data y : vector from labels(X)\n"
                 "param w : vector[cols(X)] = 0 consistency %s\n"
                 "schedule data_parallel { minibatch 200 }\n"
                 "update builtin logreg_sgd { method = sgd, rate = 0.5 }\n"
                 "objective builtin logloss every 1 sweeps\n"
                 "stop when sweeps >= 2\n",
                 st_cases[i].cons);
    else
        snprintf(text, sizeof(text),
                 "job lda\n"
                 "data D : sparse int matrix from \"lda/docword.txt\" format uci vocab "
                 "\"lda/vocab.txt\" shard rows\n"
                 "param nwk : int matrix[cols(D), %d] = 0\n"
                 "param nk  : int vector[%d] = 0 consistency %s\n"
                 "blocks words = nwk rows into workers\n"
                 "schedule rotation over words\n"
                 "update builtin lda_gibbs { alpha = 0.1, beta = 0.01 }\n"
                 "objective builtin lda_loglik every 5 sweeps\n"
                 "stop when sweeps >= 20\n",
                 LDA_TOPICS, LDA_TOPICS, st_cases[i].cons);
    struct ptm_plan *plan = compile_text(text);
    struct ptm_straggler st = {
        .worker = st_cases[i].slow, .ms = st_cases[i].ms, .prob = st_cases[i].prob};
    struct ptm_run_opts o = {.workers = 2, .trace = path, .stragglers = &st, .nstragglers = 1};
    struct ptm_run *run = tu_run_new(plan, &o);
    char err[4096];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_msg(rc == 0, "ptm_run_exec: %s", err);
    struct ptm_run_stats rs;
    ptm_run_stats(run, &rs);
    ptm_run_free(run);
    plan_free(plan);
    return rs.rounds;
}

/* The "delay" of each line of the trace at path, in order, and their sum;
 * for worker `slow` (1-based) only, which must be the only one with it. */
static double trace_delays(const char *path, int slow, double *each, int cap, int *n)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[8192], key[64];
    double sum = 0;
    *n = 0;
    snprintf(key, sizeof(key), "{\"worker\": %d,", slow);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "{\"stopped\": ", 12) == 0)
            continue; /* the run's end */
        const char *d = strstr(line, "\"delay\": ");
        ck_assert_msg(d && strstr(line, key) && strstr(line, key) < d &&
                          !strstr(d + 1, "\"delay\""),
                      "not one delay, of worker %d: %s", slow, line);
        const char *next = strstr(strstr(line, key) + 1, "{\"worker\"");
        ck_assert_msg(!next || d < next, "the delay is not worker %d's: %s", slow, line);
        ck_assert_int_lt(*n, cap);
        each[*n] = strtod(d + 9, NULL);
        sum += each[(*n)++];
    }
    fclose(f);
    return sum;
}

START_TEST(test_straggler)
{
    char path[64];
    snprintf(path, sizeof(path), "straggle-%d.jsonl", _i);
    int64_t clocks = straggle_run(_i, path);
    ck_assert_int_gt(clocks, 20);
    double delays[512], again[512];
    int n, m;
    double delay = trace_delays(path, st_cases[_i].slow, delays, 512, &n);
    /* each worker's seconds, read back by the trace reader of ptm plan */
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char err[2048];
    struct ptm_trace *t;
    ck_assert_msg(ptm_trace_read(f, path, err, sizeof(err), &t) == 0, "%s", err);
    fclose(f);
    ck_assert_int_eq(t->workers, 2);
    double sec[2] = {0, 0};
    for (size_t r = 0; r < t->nrounds; r++)
        for (int p = 0; p < 2; p++)
            sec[p] += t->load[r * 2 + (size_t)p];
    ptm_trace_free(t);
    int slow = st_cases[_i].slow - 1, other = 1 - slow;
    double ms = st_cases[_i].ms, full = (double)clocks * ms / 1e3; /* a delay at every clock */
    if (st_cases[_i].prob == 1) {
        ck_assert_msg(fabs(delay - full) < 1e-6, "delays %g s over %lld clocks of %g ms", delay,
                      (long long)clocks, ms);
    } else {
        /* binomial: mean full / 2, sd under 0.06 full for 64 clocks or more */
        ck_assert_msg(delay > 0.25 * full && delay < 0.75 * full,
                      "delays %g s: %g of the clocks, want about %g", delay, delay / full,
                      st_cases[_i].prob);
        /* drawn from the seed: a second run repeats them */
        snprintf(path, sizeof(path), "straggle-%d-again.jsonl", _i);
        ck_assert_int_eq(straggle_run(_i, path), clocks);
        trace_delays(path, st_cases[_i].slow, again, 512, &m);
        ck_assert_int_eq(m, n);
        for (int k = 0; k < n; k++)
            ck_assert_msg(delays[k] == again[k], "line %d: delay %g, then %g", k + 1, delays[k],
                          again[k]);
    }
    /* the slowed worker slept; the other waited for it only under BSP (both
     * do about the same work, which sanitizers make slow) */
    ck_assert_msg(sec[slow] >= delay, "worker %d: %g s, delays %g s", slow + 1, sec[slow], delay);
    if (st_cases[_i].held)
        ck_assert_msg(sec[other] >= 0.8 * delay, "worker %d: %g s, held back by delays of %g s",
                      other + 1, sec[other], delay);
    else
        ck_assert_msg(sec[slow] - sec[other] >= 0.5 * delay,
                      "worker %d: %g s, not slowed, against %g s of worker %d with delays of %g s",
                      other + 1, sec[other], sec[slow], slow + 1, delay);
    if (tu_verbose())
        printf("straggler %s %s worker %d p=%g: %lld clocks, delays %.3f s, workers %.3f s and "
               "%.3f s\n",
               st_cases[_i].job, st_cases[_i].cons, slow + 1, st_cases[_i].prob, (long long)clocks,
               delay, sec[0], sec[1]);
}
END_TEST

/* A straggler needs a worker that exists and a rule with clocks. */
START_TEST(test_straggler_refused)
{
    struct ptm_plan *lr = compile_text("job lr\n"
                                       "data X : sparse matrix from \"lr/train.svm\" format "
                                       "libsvm shard rows\n"
                                       "data y : vector from labels(X)\n"
                                       "param w : vector[cols(X)] = 0\n"
                                       "schedule data_parallel\n"
                                       "update builtin logreg_sgd { method = sgd }\n"
                                       "stop when sweeps >= 1\n");
    struct ptm_plan *mf = compile_text("job mf\n"
                                       "data R : sparse matrix from \"mf/ratings.mtx\" format mm "
                                       "shard rows\n"
                                       "param W : matrix[rows(R), 2] = random(0.3) shard like R\n"
                                       "param H : matrix[cols(R), 2] = random(0.3)\n"
                                       "blocks hb = H rows into workers\n"
                                       "schedule rotation over hb\n"
                                       "update builtin mf_sgd\n"
                                       "stop when sweeps >= 1\n");
    static const struct {
        int plan; /* 0: lr, 1: mf */
        struct ptm_straggler st[2];
        size_t n;
        const char *want;
    } rows[] = {
        {0, {{3, 5, 1}}, 1, "--straggler: there is no worker 3: the run has 2 workers"},
        {0, {{1, 5, 1}, {1, 2, 1}}, 2, "--straggler: worker 1 is slowed twice"},
        {0, {{0, 5, 1}, {2, 2, 1}}, 2, "--straggler: worker 2 is slowed twice"},
        {0, {{1, 0, 1}}, 1, "--straggler: bad worker 1, milliseconds 0 or probability 1"},
        {0, {{1, 5, 1.5}}, 1, "--straggler: bad worker 1, milliseconds 5 or probability 1.5"},
        {1,
         {{1, 5, 1}},
         1,
         "--straggler: update 'mf' runs no clocks of the parameter store, so there is nothing "
         "to slow (logreg_sgd under method = sgd or svrg, and lda_gibbs, do)"},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(rows); i++) {
        struct ptm_run_opts o = {.workers = 2, .stragglers = rows[i].st, .nstragglers = rows[i].n};
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        struct ptm_run *run;
        char err[1024];
        int rc = ptm_run_new(rows[i].plan ? mf : lr, &o, &dg, err, sizeof(err), &run);
        ptm_data_diags_release(&dg);
        ck_assert_int_eq(rc, PTM_EINVAL);
        ck_assert_ptr_null(run);
        ck_assert_str_eq(err, rows[i].want);
    }
    plan_free(lr);
    plan_free(mf);
}
END_TEST

/* The metrics of `ptm predict` against their definitions, computed the
 * slow way: AUC as the share of (positive, negative) pairs ranked right,
 * ties half; log loss and accuracy row by row; R^2 from its sums. */
START_TEST(test_predict_metrics)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, 7 + (uint64_t)_i);
    enum { N = 300 };
    double y[N], m[N], pred[N];
    for (int i = 0; i < N; i++) {
        y[i] = ptm_rng_uniform(&g) < 0.3 ? 1 : (_i % 2 ? -1 : 0);
        /* margins on a coarse grid: many ties */
        m[i] = floor(8 * ptm_rng_uniform(&g)) / 2 - 2 + (y[i] > 0 ? 0.5 : 0);
        pred[i] = y[i] + ptm_rng_uniform(&g) - 0.5;
    }
    struct ptm_predict pr;
    memset(&pr, 0, sizeof(pr));
    ck_assert_int_eq(ptm_predict_classification(&pr, y, m, N), 0);
    double pairs = 0, right = 0, loss = 0, acc = 0;
    for (int i = 0; i < N; i++) {
        double p = 1 / (1 + exp(-m[i]));
        loss -= y[i] > 0 ? log(p) : log(1 - p);
        acc += (p > 0.5) == (y[i] > 0);
        for (int j = 0; j < N; j++)
            if (y[i] > 0 && !(y[j] > 0)) {
                pairs++;
                right += m[i] > m[j] ? 1 : m[i] == m[j] ? 0.5 : 0;
            }
    }
    ck_assert_int_eq(pr.nmetrics, 3);
    ck_assert_str_eq(pr.metric[0].name, "logloss");
    ck_assert_double_eq_tol(pr.metric[0].value, loss / N, 1e-12);
    ck_assert_str_eq(pr.metric[1].name, "accuracy");
    ck_assert_double_eq_tol(pr.metric[1].value, acc / N, 1e-15);
    ck_assert_str_eq(pr.metric[2].name, "auc");
    ck_assert_double_eq_tol(pr.metric[2].value, right / pairs, 1e-12);

    memset(&pr, 0, sizeof(pr));
    ptm_predict_regression(&pr, y, pred, N);
    double mean = 0, sse = 0, sst = 0, sae = 0;
    for (int i = 0; i < N; i++)
        mean += y[i] / N;
    for (int i = 0; i < N; i++) {
        sse += (y[i] - pred[i]) * (y[i] - pred[i]);
        sae += fabs(y[i] - pred[i]);
        sst += (y[i] - mean) * (y[i] - mean);
    }
    ck_assert_int_eq(pr.nmetrics, 3);
    ck_assert_double_eq_tol(pr.metric[0].value, sqrt(sse / N), 1e-12);
    ck_assert_double_eq_tol(pr.metric[1].value, sae / N, 1e-12);
    ck_assert_double_eq_tol(pr.metric[2].value, 1 - sse / sst, 1e-12);

    /* one class only: no AUC */
    for (int i = 0; i < N; i++)
        y[i] = 1;
    memset(&pr, 0, sizeof(pr));
    ck_assert_int_eq(ptm_predict_classification(&pr, y, m, N), 0);
    ck_assert(isnan(pr.metric[2].value));
}
END_TEST

static Suite *models_suite(void)
{
    Suite *s = suite_create("models");
    TCase *tc = tcase_create("models");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_mf, 0, (int)PTM_ARRAY_LEN(mf_cases));
    tcase_add_test(tc, test_mf_ccd_workers);
    tcase_add_loop_test(tc, test_mf_lua, 0, 2);
    tcase_add_loop_test(tc, test_logreg, 0, (int)PTM_ARRAY_LEN(lr_cases));
    tcase_add_loop_test(tc, test_logreg_lua, 0, 3);
    tcase_add_loop_test(tc, test_logreg_intercept, 0, (int)PTM_ARRAY_LEN(lri_cases));
    tcase_add_loop_test(tc, test_logreg_resume, 0, (int)PTM_ARRAY_LEN(lrc_cases));
    tcase_add_loop_test(tc, test_lda, 0, (int)PTM_ARRAY_LEN(lda_cases));
    tcase_add_loop_test(tc, test_straggler, 0, (int)PTM_ARRAY_LEN(st_cases));
    tcase_add_test(tc, test_straggler_refused);
    tcase_add_loop_test(tc, test_predict_metrics, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

static int setup(void)
{
    struct gen_mf_opts m;
    ptm_gen_mf_defaults(&m);
    m.seed = 5;
    m.rows = MF_ROWS;
    m.cols = MF_COLS;
    m.rank = MF_RANK;
    m.ratings = 40000;
    m.test = 0.1;
    m.noise = mf_noise;
    struct gen_logreg_opts l;
    ptm_gen_logreg_defaults(&l);
    l.seed = 6;
    l.rows = LR_ROWS;
    l.cols = LR_COLS;
    l.density = 0.1;
    l.nonzeros = 40;
    struct gen_lda_opts d;
    ptm_gen_lda_defaults(&d);
    d.seed = 8;
    d.docs = LDA_DOCS;
    d.words = LDA_WORDS;
    d.topics = LDA_TOPICS;
    d.length = 150;
    if (mkdir("mf", 0777) != 0 || ptm_gen_mf(&m, "mf", NULL) != 0 || mkdir("lr", 0777) != 0 ||
        ptm_gen_logreg(&l, "lr", NULL) != 0 || mkdir("lda", 0777) != 0 ||
        ptm_gen_lda(&d, "lda", NULL) != 0)
        return -1;
    /* lr/train.svm with every third label set to 1 */
    FILE *in = fopen("lr/train.svm", "r"), *out = in ? fopen("lr/skew.svm", "w") : NULL;
    char line[1 << 16];
    int rc = out ? 0 : -1;
    for (long i = 1; out && fgets(line, sizeof(line), in); i++) {
        const char *rest = strchr(line, ' ');
        if (!rest || fprintf(out, "%s%s", i % 3 == 0 ? "1" : "", i % 3 == 0 ? rest : line) < 0)
            rc = -1;
    }
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

/* Copy the file at path (absolute) to dst (outside the tests: no
 * ck_assert). */
static int copy_file(const char *path, const char *dst)
{
    FILE *in = fopen(path, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    int c, rc = out ? 0 : -1;
    while (out && (c = getc(in)) != EOF)
        if (putc(c, out) == EOF)
            rc = -1;
    if (in && ferror(in))
        rc = -1;
    if (out && fclose(out) != 0)
        rc = -1;
    if (in)
        fclose(in);
    return rc;
}

int main(void)
{
    char root[4096], mf_lua[4200], lr_lua[4200];
    if (!getcwd(root, sizeof(root))) {
        perror("test_models: getcwd");
        return EXIT_FAILURE;
    }
    snprintf(mf_lua, sizeof(mf_lua), "%s/examples/mf/mf.lua", root);
    snprintf(lr_lua, sizeof(lr_lua), "%s/examples/logreg/logreg.lua", root);
    char dir[] = "/tmp/ptm-test-models.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_models: temporary directory");
        return EXIT_FAILURE;
    }
    if (setup() != 0 || copy_file(mf_lua, "mf/mf.lua") != 0 ||
        copy_file(lr_lua, "lr/logreg.lua") != 0) {
        fprintf(stderr, "test_models: cannot make the test problems\n");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(models_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
