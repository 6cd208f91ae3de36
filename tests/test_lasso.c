/*
 * test_lasso.c - the Lasso kernel (runtime/models/lasso/kernel_lasso.c) and the Lasso
 * data generator (runtime/models/lasso/gen_lasso.c).
 *
 * DESIGN: problems are made by the generator, written to a temporary
 * directory that is the tests' working directory, and read back with the
 * libsvm reader, as a job would see them. The kernel is checked against
 * criteria computed here another way, never against its own output alone:
 * the optimality (KKT) conditions with a gradient summed row by row from
 * the CSR matrix, the residual y - X beta recomputed from scratch after
 * every apply, the objective after every round, and the serial solver as
 * a second route to the same (unique) minimizer. The workers of a sharded
 * run are simulated one after another in this thread: push on every shard,
 * the push results summed in shard order, pull, apply on every shard.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured (KKT residuals,
 * agreement, sweeps, sample correlations).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "data.h"
#include "gen.h"
#include "gen_lasso.h"
#include "kernel_lasso.h"
#include "ptm.h"
#include "testutil.h"

/* ---- problems ------------------------------------------------------------ */

struct problem_row {
    const char *name;
    struct gen_lasso_opts o;
};

/* seed, rows, cols, density, group, corr, nonzeros, noise, grouped, nonnegative, offset, test */
static const struct problem_row problems[] = {
    {"small", {1, 200, 50, 0.2, 5, 0.7, 8, 0.1, true, false, 0, 0}},
    {"wide", {2, 60, 150, 0.1, 3, 0.5, 5, 0.05, true, false, 0, 0}},
    {"tall-corr", {3, 500, 20, 0.5, 4, 0.9, 6, 0.5, true, false, 0, 0}},
    {"independent", {4, 300, 40, 0.15, 1, 0, 6, 0.1, true, false, 0, 0}},
    {"medium", {5, 2000, 500, 0.02, 10, 0.6, 20, 0.2, true, false, 0, 0}},
};

/* Fractions of lambda_max. */
static const double lambda_fracs[] = {0.5, 0.1, 0.01};

#define NPROB ((int)PTM_ARRAY_LEN(problems))
#define NLAMBDA ((int)PTM_ARRAY_LEN(lambda_fracs))
#define MAXP 3

struct problem {
    struct ptm_dataset *ds;
    const struct ptm_csr *x;
    const struct ptm_csc *xc;
    const double *y;
    int64_t n, d;
    double lambda_max; /* max_j |x_j^T y| / n, computed here */
};

static void make_dir(const char *dir)
{
    ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

static struct ptm_dataset *read_svm(const char *path)
{
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = PLAN_FORMAT_LIBSVM;
    o.sparse = true;
    return tu_read_data(path, &o);
}

/* beta_true.tsv through the CSV reader: one column, no header. */
static struct ptm_dataset *read_tsv_vector(const char *path)
{
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = PLAN_FORMAT_CSV;
    o.vector = true;
    o.csv_header = PTM_CSV_HEADER_NO;
    return tu_read_data(path, &o);
}

/* Generate problem row i into its own directory and read it back. */
static void problem_load(int i, struct problem *pb)
{
    const struct problem_row *row = &problems[i];
    char dir[64], path[96];
    snprintf(dir, sizeof(dir), "prob-%s", row->name);
    make_dir(dir);
    ck_assert_int_eq(ptm_gen_lasso(&row->o, dir), 0);
    snprintf(path, sizeof(path), "%s/lasso.svm", dir);
    pb->ds = read_svm(path);
    pb->x = &pb->ds->csr;
    ck_assert_int_eq(ptm_dataset_csc(pb->ds, &pb->xc), 0);
    ck_assert(pb->ds->has_labels);
    pb->y = pb->ds->labels.val;
    pb->n = pb->x->nrows;
    pb->d = pb->x->ncols;
    ck_assert_int_eq(pb->n, row->o.rows);
    ck_assert_int_eq(pb->d, row->o.cols);
    /* X^T y row by row. */
    double *g = calloc((size_t)pb->d, sizeof(*g));
    for (int64_t r = 0; r < pb->n; r++)
        for (int64_t k = pb->x->rowptr[r]; k < pb->x->rowptr[r + 1]; k++)
            g[pb->x->colind[k]] += pb->x->val[k] * pb->y[r];
    double m = 0;
    for (int64_t j = 0; j < pb->d; j++)
        m = fmax(m, fabs(g[j]));
    pb->lambda_max = m / (double)pb->n;
    free(g);
}

static void problem_release(struct problem *pb)
{
    ptm_dataset_free(pb->ds);
}

/* ---- references computed here ------------------------------------------- */

/* r = y - X beta over rows lo .. hi-1, row by row. */
static void residual_ref(const struct problem *pb, const double *beta, int64_t lo, int64_t hi,
                         double *r)
{
    for (int64_t i = lo; i < hi; i++) {
        double s = pb->y[i];
        for (int64_t k = pb->x->rowptr[i]; k < pb->x->rowptr[i + 1]; k++)
            s -= pb->x->val[k] * beta[pb->x->colind[k]];
        r[i - lo] = s;
    }
}

static double objective_ref(const struct problem *pb, const double *beta, double lambda)
{
    double *r = malloc((size_t)pb->n * sizeof(*r));
    residual_ref(pb, beta, 0, pb->n, r);
    double s = 0, l1 = 0;
    for (int64_t i = 0; i < pb->n; i++)
        s += r[i] * r[i];
    for (int64_t j = 0; j < pb->d; j++)
        l1 += fabs(beta[j]);
    free(r);
    return s / (2.0 * (double)pb->n) + lambda * l1;
}

/* The largest KKT violation, with the gradient summed row by row. */
static double kkt_ref(const struct problem *pb, const double *beta, double lambda)
{
    double *r = malloc((size_t)pb->n * sizeof(*r));
    double *g = calloc((size_t)pb->d, sizeof(*g));
    residual_ref(pb, beta, 0, pb->n, r);
    for (int64_t i = 0; i < pb->n; i++)
        for (int64_t k = pb->x->rowptr[i]; k < pb->x->rowptr[i + 1]; k++)
            g[pb->x->colind[k]] += pb->x->val[k] * r[i];
    double most = 0;
    for (int64_t j = 0; j < pb->d; j++) {
        double gj = g[j] / (double)pb->n;
        double v = beta[j] == 0 ? fmax(0, fabs(gj) - lambda) : fabs(gj - copysign(lambda, beta[j]));
        most = fmax(most, v);
    }
    free(r);
    free(g);
    return most;
}

/* ---- a sharded run, workers simulated in turn ---------------------------- */

struct shard {
    int64_t lo, hi;
    struct ptm_csc x;
    double *sq, *r, *z;
};

struct sim {
    const struct problem *pb;
    int P;
    struct shard sh[MAXP];
    double lambda;
    double *beta, *zsum, *bnew, *delta;
    double sweep_change; /* largest RMS change of the fit in the current sweep */
};

static void sim_init(struct sim *s, const struct problem *pb, int P, double lambda)
{
    memset(s, 0, sizeof(*s));
    s->pb = pb;
    s->P = P;
    s->lambda = lambda;
    int64_t d = pb->d;
    int64_t bounds[MAXP + 1];
    ptm_shard_by_nnz(pb->x->rowptr, pb->n, P, bounds);
    s->beta = calloc((size_t)d, sizeof(double));
    s->zsum = calloc((size_t)d * LASSO_K, sizeof(double));
    s->bnew = calloc((size_t)d, sizeof(double));
    s->delta = calloc((size_t)d, sizeof(double));
    for (int p = 0; p < P; p++) {
        struct shard *h = &s->sh[p];
        h->lo = bounds[p];
        h->hi = bounds[p + 1];
        ck_assert_int_eq(ptm_csr_rows_csc(pb->x, h->lo, h->hi, &h->x), 0);
        ck_assert_int_eq(h->x.nrows, h->hi - h->lo);
        h->sq = malloc((size_t)d * sizeof(double));
        h->r = malloc((size_t)(h->hi - h->lo + 1) * sizeof(double));
        h->z = malloc((size_t)d * LASSO_K * sizeof(double));
        lasso_colsq(&h->x, h->sq);
        lasso_residual(&h->x, pb->y + h->lo, s->beta, h->r);
    }
}

static void sim_release(struct sim *s)
{
    for (int p = 0; p < s->P; p++) {
        ptm_csc_release(&s->sh[p].x);
        free(s->sh[p].sq);
        free(s->sh[p].r);
        free(s->sh[p].z);
    }
    free(s->beta);
    free(s->zsum);
    free(s->bnew);
    free(s->delta);
}

/* One round over cols[0 .. ns): push everywhere, sum, pull, commit, apply. */
static void sim_round(struct sim *s, const int64_t *cols, size_t ns)
{
    for (int p = 0; p < s->P; p++)
        lasso_push(&s->sh[p].x, s->sh[p].sq, s->sh[p].r, s->beta, cols, ns, s->sh[p].z);
    for (size_t k = 0; k < LASSO_K * ns; k++) {
        double acc = 0;
        for (int p = 0; p < s->P; p++)
            acc += s->sh[p].z[k];
        s->zsum[k] = acc;
    }
    lasso_pull(s->zsum, ns, s->pb->n, s->lambda, s->bnew);
    for (size_t k = 0; k < ns; k++) {
        s->delta[k] = s->bnew[k] - s->beta[cols[k]];
        s->beta[cols[k]] = s->bnew[k];
        double change = fabs(s->delta[k]) * sqrt(s->zsum[LASSO_K * k + 1] / (double)s->pb->n);
        s->sweep_change = fmax(s->sweep_change, change);
    }
    for (int p = 0; p < s->P; p++)
        lasso_apply(&s->sh[p].x, cols, s->delta, ns, s->sh[p].r);
}

static double sim_objective(const struct sim *s)
{
    double f = 0;
    for (int p = 0; p < s->P; p++)
        f += lasso_loss_part(s->sh[p].r, s->sh[p].hi - s->sh[p].lo, s->pb->n);
    return f + lasso_penalty(s->beta, s->pb->d, s->lambda);
}

/* The KKT violation from the shards' gradient parts, summed in order. */
static double sim_kkt(const struct sim *s)
{
    int64_t d = s->pb->d;
    double *g = calloc((size_t)d, sizeof(*g)), *gp = malloc((size_t)d * sizeof(*gp));
    for (int p = 0; p < s->P; p++) {
        lasso_grad_part(&s->sh[p].x, s->sh[p].r, gp);
        for (int64_t j = 0; j < d; j++)
            g[j] += gp[j];
    }
    double v = lasso_kkt(g, s->beta, d, s->pb->n, s->lambda, NULL);
    free(g);
    free(gp);
    return v;
}

/* Largest |r - (y - X beta)| over every shard, recomputed from scratch. */
static double sim_residual_error(const struct sim *s)
{
    double most = 0;
    double *ref = malloc((size_t)(s->pb->n + 1) * sizeof(*ref));
    for (int p = 0; p < s->P; p++) {
        const struct shard *h = &s->sh[p];
        residual_ref(s->pb, s->beta, h->lo, h->hi, ref);
        for (int64_t i = 0; i < h->hi - h->lo; i++)
            most = fmax(most, fabs(h->r[i] - ref[i]));
    }
    free(ref);
    return most;
}

/* Run round-robin sweeps of per_round columns a round until a sweep
 * changes the fit by at most tol (RMS) or max_sweeps; returns the sweeps
 * run, or -1 when max_sweeps ran out. */
static int sim_run(struct sim *s, size_t per_round, double tol, int max_sweeps)
{
    int64_t d = s->pb->d;
    int64_t *cols = malloc((size_t)d * sizeof(*cols));
    for (int64_t j = 0; j < d; j++)
        cols[j] = j;
    for (int sweep = 1; sweep <= max_sweeps; sweep++) {
        s->sweep_change = 0;
        for (int64_t j = 0; j < d; j += (int64_t)per_round) {
            size_t ns = (size_t)(d - j) < per_round ? (size_t)(d - j) : per_round;
            sim_round(s, cols + j, ns);
        }
        if (s->sweep_change <= tol) {
            free(cols);
            return sweep;
        }
    }
    free(cols);
    return -1;
}

#define TOL 1e-13
#define MAX_SWEEPS 200000

/* ---- kernel pieces by hand ------------------------------------------------ */

static const struct {
    double z, sq;
    int64_t n;
    double lambda, want;
} pull_rows[] = {
    {10, 2, 4, 1, 3},   /* (10 - 4) / 2 */
    {-10, 2, 4, 1, -3}, /* (-10 + 4) / 2 */
    {4, 2, 4, 1, 0},    /* at the threshold: 0 */
    {-4, 2, 4, 1, 0},   /* at the threshold: 0 */
    {3.9, 2, 4, 1, 0},  /* inside */
    {5, 0.5, 1, 0, 10}, /* lambda 0: least squares */
    {5, 0, 10, 0.1, 0}, /* empty column */
    {0, 3, 10, 0, 0},   /* lambda 0, zero z */
};

START_TEST(test_pull)
{
    double z[LASSO_K] = {pull_rows[_i].z, pull_rows[_i].sq}, b = -1;
    lasso_pull(z, 1, pull_rows[_i].n, pull_rows[_i].lambda, &b);
    ck_assert_msg(b == pull_rows[_i].want, "row %d: got %.17g, want %.17g", _i, b,
                  pull_rows[_i].want);
}
END_TEST

static const struct {
    double g[3], beta[3];
    int64_t n;
    double lambda, want;
    int64_t worst;
} kkt_rows[] = {
    {{0, 0, 0}, {0, 0, 0}, 2, 1, 0, 0},          /* zero gradient at zero */
    {{2, -2, 1}, {0, 0, 0}, 2, 1, 0, 0},         /* |g/n| = lambda: on the boundary */
    {{3, -2, 1}, {0, 0, 0}, 2, 1, 0.5, 0},       /* |3/2| - 1 */
    {{2, -2, 0}, {1, -1, 0}, 2, 1, 0, 0},        /* g/n = lambda sign(beta) */
    {{2, 2, 0}, {1, -1, 0}, 2, 1, 2, 1},         /* wrong sign: |1 - (-1)| */
    {{0.5, 0, -7}, {2, 0, 0}, 1, 0.25, 6.75, 2}, /* the largest of several */
};

START_TEST(test_kkt_rows)
{
    int64_t worst = -2;
    double v = lasso_kkt(kkt_rows[_i].g, kkt_rows[_i].beta, 3, kkt_rows[_i].n, kkt_rows[_i].lambda,
                         &worst);
    ck_assert_msg(fabs(v - kkt_rows[_i].want) < 1e-15, "row %d: got %g, want %g", _i, v,
                  kkt_rows[_i].want);
    if (kkt_rows[_i].want > 0)
        ck_assert_int_eq(worst, kkt_rows[_i].worst);
}
END_TEST

/* A 4 x 3 matrix by hand: push, apply, the residual and the squared norms. */
START_TEST(test_push_apply_by_hand)
{
    /* X = [1 0 2; 0 3 0; 4 0 0; 0 5 6], y = (1, 2, 3, 4) */
    static int64_t rowptr[] = {0, 2, 3, 4, 6};
    static int32_t colind[] = {0, 2, 1, 0, 1, 2};
    static double val[] = {1, 2, 3, 4, 5, 6};
    struct ptm_csr x = {4, 3, 6, rowptr, colind, val};
    double y[4] = {1, 2, 3, 4};
    double beta[3] = {0.5, 0, -1};
    struct ptm_csc lo, hi;
    ck_assert_int_eq(ptm_csr_rows_csc(&x, 0, 2, &lo), 0);
    ck_assert_int_eq(ptm_csr_rows_csc(&x, 2, 4, &hi), 0);
    ck_assert_int_eq(lo.nrows, 2);
    ck_assert_int_eq(hi.nnz, 3);
    double sql[3], sqh[3], rl[2], rh[2];
    lasso_colsq(&lo, sql);
    lasso_colsq(&hi, sqh);
    ck_assert(sql[0] == 1 && sql[1] == 9 && sql[2] == 4);
    ck_assert(sqh[0] == 16 && sqh[1] == 25 && sqh[2] == 36);
    lasso_residual(&lo, y, beta, rl);
    lasso_residual(&hi, y + 2, beta, rh);
    /* y - X beta = (1 - 0.5 + 2, 2, 3 - 2, 4 + 6) */
    ck_assert(rl[0] == 2.5 && rl[1] == 2 && rh[0] == 1 && rh[1] == 10);
    int64_t cols[2] = {2, 0};
    double zl[4], zh[4];
    lasso_push(&lo, sql, rl, beta, cols, 2, zl);
    lasso_push(&hi, sqh, rh, beta, cols, 2, zh);
    /* column 2: x^T r + sq beta = (2 * 2.5 - 4) + (6 * 10 - 36) */
    ck_assert(zl[0] == 1 && zl[1] == 4 && zh[0] == 24 && zh[1] == 36);
    /* column 0: (1 * 2.5 + 0.5) + (4 * 1 + 16 * 0.5) */
    ck_assert(zl[2] == 3 && zl[3] == 1 && zh[2] == 12 && zh[3] == 16);
    double delta[2] = {1, 0.25};
    lasso_apply(&lo, cols, delta, 2, rl);
    lasso_apply(&hi, cols, delta, 2, rh);
    ck_assert(rl[0] == 2.5 - 2 - 0.25 && rl[1] == 2 && rh[0] == 1 - 1 && rh[1] == 10 - 6);
    ck_assert(lasso_loss_part(rh, 2, 4) == 16.0 / 8);
    ck_assert(lasso_penalty(beta, 3, 2) == 3);
    ptm_csc_release(&lo);
    ptm_csc_release(&hi);
}
END_TEST

/* With an intercept (lasso_push_seq_b): on rows of a large mean, columns
 * of nearly constant values (one exactly constant) and sparse ones, each
 * step is the joint minimizer over (beta_j, b) found by a search of the
 * objective itself; the residual r - off is y - X beta - b recomputed; and
 * sweeps reach the intercept Lasso's optimality conditions. With b fixed
 * (no sqc) a step is lasso_push_seq's on the residual. */
enum { IN = 60, ID = 7 };

static double icpt_objective(const double *X, const double *y, const double *beta, double b,
                             double lambda)
{
    double f = 0, pen = 0;
    for (int i = 0; i < IN; i++) {
        double r = y[i] - b;
        for (int j = 0; j < ID; j++)
            r -= X[i * ID + j] * beta[j];
        f += r * r;
    }
    for (int j = 0; j < ID; j++)
        pen += fabs(beta[j]);
    return f / (2.0 * IN) + lambda * pen;
}

/* min over b of the objective with beta_j = v: b is the mean of y - X beta */
static double icpt_profile(const double *X, const double *y, double *beta, int j, double v,
                           double lambda, double *bout)
{
    double keep = beta[j], b = 0;
    beta[j] = v;
    for (int i = 0; i < IN; i++) {
        double r = y[i];
        for (int k = 0; k < ID; k++)
            r -= X[i * ID + k] * beta[k];
        b += r / IN;
    }
    double f = icpt_objective(X, y, beta, b, lambda);
    beta[j] = keep;
    if (bout)
        *bout = b;
    return f;
}

START_TEST(test_push_seq_intercept)
{
    double X[IN * ID], y[IN], w[ID] = {0.8, 0, 1.5, 0, -2, 0, 0.7};
    srand(17);
    int64_t rowptr[IN + 1];
    int32_t colind[IN * ID];
    double val[IN * ID];
    int64_t nnz = 0;
    for (int i = 0; i < IN; i++) {
        rowptr[i] = nnz;
        y[i] = 25 + 0.1 * ((double)rand() / RAND_MAX - 0.5);
        for (int j = 0; j < ID; j++) {
            double v = j == 0   ? 1 + 0.05 * (double)rand() / RAND_MAX /* nearly constant */
                       : j == 1 ? 2                                    /* constant */
                       : rand() % 3 == 0 ? (double)rand() / RAND_MAX
                                         : 0;
            X[i * ID + j] = v;
            y[i] += w[j] * v;
            if (v != 0) {
                colind[nnz] = j;
                val[nnz++] = v;
            }
        }
    }
    rowptr[IN] = nnz;
    struct ptm_csr xr = {IN, ID, nnz, rowptr, colind, val};
    struct ptm_csc x;
    ck_assert_int_eq(ptm_csr_rows_csc(&xr, 0, IN, &x), 0);
    double sq[ID], csum[ID] = {0}, sqc[ID], beta[ID] = {0}, r[IN], lambda = 0.01;
    lasso_colsq(&x, sq);
    for (int i = 0; i < IN; i++)
        for (int j = 0; j < ID; j++)
            csum[j] += X[i * ID + j];
    for (int j = 0; j < ID; j++)
        sqc[j] = lasso_centred(sq[j], csum[j], IN);
    double b = 0; /* r = y - X beta - b, then b at its best: off holds the move */
    lasso_residual(&x, y, beta, r);
    for (int i = 0; i < IN; i++)
        b += r[i] / IN;
    double off = b; /* the residual is r - off */
    struct lasso_icpt ic = {csum, sqc};
    for (int sweep = 0; sweep < 200; sweep++)
        for (int64_t j = 0; j < ID; j++) {
            double f0 = icpt_objective(X, y, beta, b, lambda), nb, off0 = off;
            double dec = lasso_push_seq_b(&x, sq, r, beta, &j, 1, IN, lambda, &nb, &ic, &off);
            b += off - off0;
            if (sweep < 2) {
                /* the step against a search of the profiled objective */
                double lo = beta[j] - 10, hi = beta[j] + 10, best = 0, fb = INFINITY;
                for (int g = 0; g <= 2000; g++) {
                    double v = lo + (hi - lo) * g / 2000.0,
                           fv = icpt_profile(X, y, beta, j, v, lambda, NULL);
                    if (fv < fb)
                        fb = fv, best = v;
                }
                for (double h = (hi - lo) / 2000.0; h > 1e-13; h /= 2)
                    for (int sgn = -1; sgn <= 1; sgn += 2) {
                        double fv = icpt_profile(X, y, beta, j, best + sgn * h, lambda, NULL);
                        if (fv < fb)
                            fb = fv, best = best + sgn * h;
                    }
                double fn = icpt_profile(X, y, beta, j, nb, lambda, NULL);
                ck_assert_msg(fn <= fb + 1e-12 * fabs(fb), "column %d: f %.17g, search %.17g",
                              (int)j, fn, fb);
                ck_assert_msg(j == 1 ? nb == 0 : fabs(nb - best) <= 1e-5 * (1 + fabs(best)),
                              "column %d: %.12g, search %.12g", (int)j, nb, best);
            }
            beta[j] = nb;
            /* r - off is the residual of beta and b, and its mean is 0 */
            double mean = 0, worst = 0;
            for (int i = 0; i < IN; i++) {
                double ri = y[i] - b;
                for (int k = 0; k < ID; k++)
                    ri -= X[i * ID + k] * beta[k];
                worst = fmax(worst, fabs(ri - (r[i] - off)));
                mean += (r[i] - off) / IN;
            }
            ck_assert_msg(worst <= 1e-10, "column %d: the residual %.3g off", (int)j, worst);
            ck_assert_msg(fabs(mean) <= 1e-10, "column %d: its mean %.3g", (int)j, mean);
            /* the decrease it reports is the objective's */
            double f1 = icpt_objective(X, y, beta, b, lambda);
            ck_assert_msg(fabs((f0 - f1) - dec) <= 1e-10 * fabs(f0), "column %d: %.12g, %.12g",
                          (int)j, f0 - f1, dec);
        }
    /* optimality: mean(r) = 0, |x_j . r| / n <= lambda, = lambda sign(beta_j)
     * where beta_j != 0; the constant column's coefficient is 0 */
    ck_assert(beta[1] == 0);
    for (int j = 0; j < ID; j++) {
        double g = 0;
        for (int i = 0; i < IN; i++)
            g += X[i * ID + j] * (r[i] - off) / IN;
        if (beta[j] != 0)
            ck_assert_msg(fabs(g - lambda * (beta[j] > 0 ? 1 : -1)) <= 1e-9,
                          "column %d: gradient %.12g", j, g);
        else
            ck_assert_msg(fabs(g) <= lambda * (1 + 1e-9), "column %d: gradient %.12g", j, g);
    }
    /* b fixed: a step is lasso_push_seq's on the residual */
    double r2[IN], r3[IN], n2, n3, off2 = 0.75;
    for (int i = 0; i < IN; i++) {
        r2[i] = r[i] + 0.75 - off;
        r3[i] = r[i] - off;
    }
    struct lasso_icpt fixed = {csum, NULL};
    for (int64_t j = 0; j < ID; j++) {
        lasso_push_seq_b(&x, sq, r2, beta, &j, 1, IN, lambda, &n2, &fixed, &off2);
        lasso_push_seq(&x, sq, r3, beta, &j, 1, IN, lambda, &n3);
        ck_assert(off2 == 0.75);
        ck_assert_msg(fabs(n2 - n3) <= 1e-12 * (1 + fabs(n3)), "column %d", (int)j);
    }
    ptm_csc_release(&x);
}
END_TEST

/* X delta on rows lo .. hi-1 of the same matrix, by hand: the two halves
 * together list each row they touch once, and apply r -= t X delta. */
START_TEST(test_scatter_rows_by_hand)
{
    /* X = [1 0 2; 0 3 0; 4 0 0; 0 5 6] */
    static int64_t rowptr[] = {0, 2, 3, 4, 6};
    static int32_t colind[] = {0, 2, 1, 0, 1, 2};
    static double val[] = {1, 2, 3, 4, 5, 6};
    struct ptm_csr x = {4, 3, 6, rowptr, colind, val};
    struct ptm_csc c;
    ck_assert_int_eq(ptm_csr_rows_csc(&x, 0, 4, &c), 0);
    int64_t cols[3] = {2, 0, 1};
    double delta[3] = {1, 0.5, 0}; /* column 1 does not move: no row of its own */
    double xd[4] = {0}, r[4] = {10, 20, 30, 40};
    unsigned char mark[4] = {0};
    int32_t rows_a[4], rows_b[4];
    size_t na = 0, nb = 0;
    lasso_scatter_rows(&c, cols, delta, 3, 0, 2, NULL, NULL, xd, mark, rows_a, &na);
    int32_t cut[3];
    lasso_row_cut(&c, 2, cut);
    ck_assert(cut[0] == 1 && cut[1] == 1 && cut[2] == 1); /* rows 0 | 2; 1 | 3; 0 | 3 */
    lasso_scatter_rows(&c, cols, delta, 3, 2, 4, cut, NULL, xd, mark, rows_b, &nb);
    /* X delta = (2 + 0.5, 0, 2, 6): rows 0 of the first half, 2 and 3 of the second */
    ck_assert_uint_eq(na, 1);
    ck_assert_uint_eq(nb, 2);
    ck_assert_int_eq(rows_a[0], 0);
    ck_assert(rows_b[0] == 3 && rows_b[1] == 2); /* column 2 first, then column 0 */
    ck_assert(xd[0] == 2.5 && xd[1] == 0 && xd[2] == 2 && xd[3] == 6);
    lasso_scatter_apply(xd, mark, rows_a, &na, 0.5, r);
    lasso_scatter_apply(xd, mark, rows_b, &nb, 0.5, r);
    ck_assert(r[0] == 10 - 1.25 && r[1] == 20 && r[2] == 30 - 1 && r[3] == 40 - 3);
    ck_assert(na == 0 && nb == 0);
    for (int i = 0; i < 4; i++)
        ck_assert(xd[i] == 0 && mark[i] == 0);
    ptm_csc_release(&c);
}
END_TEST

/* ---- (a) the serial solver meets the KKT conditions ---------------------- */

START_TEST(test_serial_kkt)
{
    int pi = _i / NLAMBDA, li = _i % NLAMBDA;
    struct problem pb;
    problem_load(pi, &pb);
    double lambda = lambda_fracs[li] * pb.lambda_max;
    double *beta = malloc((size_t)pb.d * sizeof(*beta));
    int sweeps = lasso_solve_serial(pb.xc, pb.y, lambda, TOL, MAX_SWEEPS, beta);
    ck_assert_msg(sweeps > 0, "%s: no convergence in %d sweeps", problems[pi].name, MAX_SWEEPS);
    double v = kkt_ref(&pb, beta, lambda);
    /* The kernel's own check agrees with the one computed here. */
    double *r = malloc((size_t)pb.n * sizeof(*r)), *g = malloc((size_t)pb.d * sizeof(*g));
    lasso_residual(pb.xc, pb.y, beta, r);
    lasso_grad_part(pb.xc, r, g);
    double vk = lasso_kkt(g, beta, pb.d, pb.n, lambda, NULL);
    int64_t nnz = 0;
    for (int64_t j = 0; j < pb.d; j++)
        nnz += beta[j] != 0;
    if (tu_verbose())
        printf("serial %-12s lambda %.2f lambda_max: %6d sweeps, %3" PRId64
               " non-zeros, KKT %.2e lambda (kernel %.2e)\n",
               problems[pi].name, lambda_fracs[li], sweeps, nnz, v / lambda, vk / lambda);
    ck_assert_msg(v <= 1e-6 * lambda, "%s: KKT violation %g lambda", problems[pi].name, v / lambda);
    ck_assert_msg(fabs(v - vk) <= 1e-9 * lambda, "kernel KKT %g, here %g", vk, v);
    ck_assert_int_gt(nnz, 0);
    free(r);
    free(g);
    free(beta);
    problem_release(&pb);
}
END_TEST

/* ---- (b) sharded push/pull/apply reach the serial solution ---------------- */

START_TEST(test_sharded)
{
    int P = _i % MAXP + 1, rest = _i / MAXP;
    int pi = rest / NLAMBDA, li = rest % NLAMBDA;
    struct problem pb;
    problem_load(pi, &pb);
    double lambda = lambda_fracs[li] * pb.lambda_max;
    double *ref = malloc((size_t)pb.d * sizeof(*ref));
    ck_assert_int_gt(lasso_solve_serial(pb.xc, pb.y, lambda, TOL, MAX_SWEEPS, ref), 0);
    struct sim s;
    sim_init(&s, &pb, P, lambda);
    int sweeps = sim_run(&s, 1, TOL, MAX_SWEEPS);
    ck_assert_int_gt(sweeps, 0);
    double diff = 0;
    for (int64_t j = 0; j < pb.d; j++)
        diff = fmax(diff, fabs(s.beta[j] - ref[j]));
    double v = kkt_ref(&pb, s.beta, lambda), vk = sim_kkt(&s);
    double rerr = sim_residual_error(&s);
    if (tu_verbose())
        printf("sharded %-12s lambda %.2f lambda_max P=%d: %6d sweeps, |beta - serial| %.1e, "
               "KKT %.2e lambda (kernel %.2e), residual error %.1e\n",
               problems[pi].name, lambda_fracs[li], P, sweeps, diff, v / lambda, vk / lambda, rerr);
    ck_assert_msg(diff <= 1e-6, "%s P=%d: |beta - serial| = %g", problems[pi].name, P, diff);
    ck_assert_msg(v <= 1e-6 * lambda, "KKT violation %g lambda", v / lambda);
    ck_assert_msg(vk <= 1e-6 * lambda, "kernel KKT violation %g lambda", vk / lambda);
    ck_assert_msg(rerr <= 1e-9, "residual drifted by %g", rerr);
    sim_release(&s);
    free(ref);
    problem_release(&pb);
}
END_TEST

/* Several columns a round (Shotgun style) on nearly uncorrelated columns:
 * the fixed point is still the optimum. */
static const size_t per_round_rows[] = {2, 4, 7};

START_TEST(test_sharded_blocks)
{
    size_t per_round = per_round_rows[_i % 3];
    int P = _i / 3 + 1;
    struct problem pb;
    problem_load(3, &pb); /* independent */
    double lambda = 0.1 * pb.lambda_max;
    double *ref = malloc((size_t)pb.d * sizeof(*ref));
    ck_assert_int_gt(lasso_solve_serial(pb.xc, pb.y, lambda, TOL, MAX_SWEEPS, ref), 0);
    struct sim s;
    sim_init(&s, &pb, P, lambda);
    int sweeps = sim_run(&s, per_round, TOL, MAX_SWEEPS);
    ck_assert_int_gt(sweeps, 0);
    double diff = 0;
    for (int64_t j = 0; j < pb.d; j++)
        diff = fmax(diff, fabs(s.beta[j] - ref[j]));
    double v = kkt_ref(&pb, s.beta, lambda);
    if (tu_verbose())
        printf("blocks of %zu P=%d: %d sweeps, |beta - serial| %.1e, KKT %.2e lambda\n", per_round,
               P, sweeps, diff, v / lambda);
    ck_assert_msg(diff <= 1e-6, "|beta - serial| = %g", diff);
    ck_assert_msg(v <= 1e-6 * lambda, "KKT violation %g lambda", v / lambda);
    sim_release(&s);
    free(ref);
    problem_release(&pb);
}
END_TEST

/* ---- (c) residuals stay y - X beta; (d) the objective never rises -------- */

START_TEST(test_residual_and_descent)
{
    int P = _i % MAXP + 1, pi = _i / MAXP;
    struct problem pb;
    problem_load(pi, &pb);
    double lambda = 0.05 * pb.lambda_max;
    struct sim s;
    sim_init(&s, &pb, P, lambda);
    double f = sim_objective(&s), f_sweep = f, worst_rerr = 0, worst_rise = 0;
    ck_assert(fabs(f - objective_ref(&pb, s.beta, lambda)) <= 1e-12 * fabs(f));
    int64_t rounds = 0;
    for (int sweep = 0; sweep < 10; sweep++) {
        for (int64_t j = 0; j < pb.d; j++) {
            sim_round(&s, &j, 1);
            rounds++;
            double rerr = sim_residual_error(&s);
            worst_rerr = fmax(worst_rerr, rerr);
            EXPECT(rerr <= 1e-9);
            double f_new = sim_objective(&s);
            worst_rise = fmax(worst_rise, (f_new - f) / fabs(f));
            /* Exact minimization along a coordinate: never up, up to rounding. */
            EXPECT(f_new <= f + 1e-13 * fabs(f));
            f = f_new;
        }
        /* Sweep over sweep, with the objective recomputed from scratch. */
        double fr = objective_ref(&pb, s.beta, lambda);
        EXPECT(fabs(fr - f) <= 1e-10 * fabs(f));
        EXPECT(fr <= f_sweep + 1e-13 * fabs(f_sweep));
        f_sweep = fr;
    }
    if (tu_verbose())
        printf("residual %-12s P=%d: %" PRId64 " rounds, worst residual error %.1e, "
               "largest relative rise of the objective %.1e, objective %.12g\n",
               problems[pi].name, P, rounds, worst_rerr, worst_rise, f);
    sim_release(&s);
    problem_release(&pb);
}
END_TEST

/* ---- (e) at or above lambda_max, beta stays exactly 0 --------------------- */

START_TEST(test_lambda_max)
{
    int P = _i % MAXP + 1, pi = _i / MAXP;
    struct problem pb;
    problem_load(pi, &pb);
    /* lambda_max as the engine would get it: gradient parts summed in shard order. */
    struct sim s;
    sim_init(&s, &pb, P, 0);
    double *g = calloc((size_t)pb.d, sizeof(*g)), *gp = malloc((size_t)pb.d * sizeof(*gp));
    for (int p = 0; p < P; p++) {
        lasso_grad_part(&s.sh[p].x, s.sh[p].r, gp);
        for (int64_t j = 0; j < pb.d; j++)
            g[j] += gp[j];
    }
    double lm = lasso_lambda_max(g, pb.d, pb.n);
    sim_release(&s);
    ck_assert_msg(fabs(lm - pb.lambda_max) <= 1e-12 * pb.lambda_max, "%.17g vs %.17g", lm,
                  pb.lambda_max);
    double *beta = malloc((size_t)pb.d * sizeof(*beta));
    const double factors[] = {1, 1 + 1e-15, 1.5, 10};
    for (size_t f = 0; f < PTM_ARRAY_LEN(factors); f++) {
        double lambda = lm * factors[f];
        sim_init(&s, &pb, P, lambda);
        ck_assert_int_eq(sim_run(&s, 1, 0, 3), 1);
        for (int64_t j = 0; j < pb.d; j++)
            EXPECT(s.beta[j] == 0);
        for (int p = 0; p < P; p++)
            for (int64_t i = 0; i < s.sh[p].hi - s.sh[p].lo; i++)
                EXPECT(s.sh[p].r[i] == pb.y[s.sh[p].lo + i]);
        sim_release(&s);
        if (P == 1) {
            /* The serial solver: one sweep that changes nothing. */
            ck_assert_int_eq(lasso_solve_serial(pb.xc, pb.y, lambda, 0, 5, beta), 1);
            for (int64_t j = 0; j < pb.d; j++)
                EXPECT(beta[j] == 0);
        }
    }
    /* Just below it, something moves. */
    sim_init(&s, &pb, P, lm * (1 - 1e-9));
    sim_run(&s, 1, 0, 1);
    int64_t nnz = 0;
    for (int64_t j = 0; j < pb.d; j++)
        nnz += s.beta[j] != 0;
    ck_assert_int_ge(nnz, 1);
    sim_release(&s);
    free(beta);
    free(g);
    free(gp);
    problem_release(&pb);
}
END_TEST

/* ---- allocation failure ---------------------------------------------------- */

START_TEST(test_fault)
{
    struct problem pb;
    problem_load(0, &pb);
    double *beta = malloc((size_t)pb.d * sizeof(*beta));
    double lambda = 0.1 * pb.lambda_max;
    int rc;
    for (unsigned long nth = 1;; nth++) {
        ptm_fault_inject(nth);
        rc = lasso_solve_serial(pb.xc, pb.y, lambda, 1e-8, 1000, beta);
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM)
            break;
    }
    ck_assert_int_gt(rc, 0);
    for (unsigned long nth = 1;; nth++) {
        struct ptm_csc c;
        ptm_fault_inject(nth);
        rc = ptm_csr_rows_csc(pb.x, 10, 150, &c);
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM) {
            ck_assert_int_eq(c.nrows, 140);
            ptm_csc_release(&c);
            break;
        }
    }
    make_dir("fault");
    for (unsigned long nth = 1;; nth++) {
        ptm_fault_inject(nth);
        rc = ptm_gen_lasso(&problems[0].o, "fault");
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM)
            break;
        /* Nothing half-written is left. */
        DIR *dir = opendir("fault");
        struct dirent *e;
        while ((e = readdir(dir)) != NULL)
            EXPECT(e->d_name[0] == '.');
        closedir(dir);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(lasso_solve_serial(pb.xc, pb.y, -1, 1e-8, 10, beta), PTM_EINVAL);
    ck_assert_int_eq(lasso_solve_serial(pb.xc, pb.y, NAN, 1e-8, 10, beta), PTM_EINVAL);
    ck_assert_int_eq(lasso_solve_serial(pb.xc, pb.y, 1, -1, 10, beta), PTM_EINVAL);
    free(beta);
    problem_release(&pb);
}
END_TEST

/* ---- (f) the generator ------------------------------------------------------ */

static bool same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    bool same = na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static void gen_into(const char *dir, const struct gen_lasso_opts *o)
{
    make_dir(dir);
    ck_assert_int_eq(ptm_gen_lasso(o, dir), 0);
}

START_TEST(test_gen_deterministic)
{
    struct gen_lasso_opts o = problems[0].o;
    gen_into("det-a", &o);
    gen_into("det-b", &o);
    ck_assert(same_file("det-a/lasso.svm", "det-b/lasso.svm"));
    ck_assert(same_file("det-a/beta_true.tsv", "det-b/beta_true.tsv"));
    /* Again into the same directory: replaced whole, same bytes. */
    gen_into("det-b", &o);
    ck_assert(same_file("det-a/lasso.svm", "det-b/lasso.svm"));
    o.seed = 2;
    gen_into("det-c", &o);
    ck_assert(!same_file("det-a/lasso.svm", "det-c/lasso.svm"));
    ck_assert(!same_file("det-a/beta_true.tsv", "det-c/beta_true.tsv"));
    /* X comes from its own stream: other noise and beta*, the same X. */
    o = problems[0].o;
    o.noise = 2;
    o.nonzeros = 3;
    gen_into("det-d", &o);
    struct ptm_dataset *a = read_svm("det-a/lasso.svm"), *d = read_svm("det-d/lasso.svm");
    ck_assert_int_eq(a->csr.nnz, d->csr.nnz);
    ck_assert(memcmp(a->csr.val, d->csr.val, (size_t)a->csr.nnz * sizeof(double)) == 0);
    ck_assert(memcmp(a->csr.colind, d->csr.colind, (size_t)a->csr.nnz * sizeof(int32_t)) == 0);
    ptm_dataset_free(a);
    ptm_dataset_free(d);
    /* Only the three files are left: no temporary file. */
    DIR *dir = opendir("det-b");
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dir)) != NULL)
        if (e->d_name[0] != '.') {
            n++;
            ck_assert(strcmp(e->d_name, "lasso.svm") == 0 ||
                      strcmp(e->d_name, "beta_true.tsv") == 0 ||
                      strcmp(e->d_name, "groups.tsv") == 0);
        }
    closedir(dir);
    ck_assert_int_eq(n, 3);
}
END_TEST

/* Sample correlation of dense columns a and b of length n. */
static double corr(const double *a, const double *b, int64_t n)
{
    double ma = 0, mb = 0;
    for (int64_t i = 0; i < n; i++) {
        ma += a[i];
        mb += b[i];
    }
    ma /= (double)n;
    mb /= (double)n;
    double sab = 0, saa = 0, sbb = 0;
    for (int64_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

/* rows, cols, density, group, corr */
static const struct {
    int64_t rows, cols;
    double density;
    int64_t group;
    double rho;
} corr_rows[] = {
    {4000, 40, 0.25, 5, 0.5}, {4000, 40, 0.25, 5, 0.9},
    {4000, 40, 0.25, 5, 0},   {3000, 42, 0.3, 8, 0.7}, /* the last group has 2 columns */
    {4000, 30, 0.2, 1, 0.8},                           /* groups of one: no correlation at all */
};

START_TEST(test_gen_shape_and_correlation)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 100 + (uint64_t)_i;
    o.rows = corr_rows[_i].rows;
    o.cols = corr_rows[_i].cols;
    o.density = corr_rows[_i].density;
    o.group = corr_rows[_i].group;
    o.corr = corr_rows[_i].rho;
    o.nonzeros = 5;
    o.noise = 0.3;
    o.grouped = true; /* groups of consecutive columns, as measured below */
    char dir[32], path[64];
    snprintf(dir, sizeof(dir), "corr-%d", _i);
    gen_into(dir, &o);
    snprintf(path, sizeof(path), "%s/lasso.svm", dir);
    struct ptm_dataset *ds = read_svm(path);
    snprintf(path, sizeof(path), "%s/beta_true.tsv", dir);
    struct ptm_dataset *bt = read_tsv_vector(path);
    int64_t n = o.rows, d = o.cols;
    ck_assert_int_eq(ds->csr.nrows, n);
    ck_assert_int_eq(ds->csr.ncols, d);
    ck_assert_int_eq(bt->dense.nrows, d);
    ck_assert_int_eq(bt->dense.ncols, 1);
    const double *beta = bt->dense.val;
    int64_t k = 0;
    for (int64_t j = 0; j < d; j++) {
        k += beta[j] != 0;
        EXPECT(beta[j] == 0 || (fabs(beta[j]) >= 0.5 && fabs(beta[j]) < 1.5));
    }
    ck_assert_int_eq(k, o.nonzeros);
    /* The share of non-zeros. */
    double dens = (double)ds->csr.nnz / ((double)n * (double)d);
    ck_assert_msg(fabs(dens - o.density) <= 0.1 * o.density, "density %g", dens);
    /* Every value is an exact multiple of 1e-6, as the reader gives it. */
    for (int64_t t = 0; t < ds->csr.nnz; t++) {
        double v = ds->csr.val[t];
        EXPECT(v != 0 && (double)llround(v * 1e6) / 1e6 == v);
    }
    /* label - x_i beta* is the noise: mean 0, standard deviation sigma. */
    double s1 = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = ds->labels.val[i];
        for (int64_t t = ds->csr.rowptr[i]; t < ds->csr.rowptr[i + 1]; t++)
            e -= ds->csr.val[t] * beta[ds->csr.colind[t]];
        s1 += e;
        s2 += e * e;
    }
    double mean = s1 / (double)n, sd = sqrt(s2 / (double)n - mean * mean);
    ck_assert_msg(fabs(mean) < 4 * o.noise / sqrt((double)n), "noise mean %g", mean);
    ck_assert_msg(fabs(sd / o.noise - 1) < 0.1, "noise sd %g, want %g", sd, o.noise);
    /* Correlations of the dense columns: within a group about rho, across none. */
    struct ptm_dense dn;
    ck_assert_int_eq(ptm_csr_to_dense(&ds->csr, &dn), 0);
    double *col = malloc((size_t)(n * d) * sizeof(*col));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < d; j++)
            col[j * n + i] = dn.val[i * d + j];
    double in_sum = 0, in_max_err = 0, out_sum = 0, out_max = 0;
    int in_n = 0, out_n = 0;
    for (int64_t a = 0; a < d; a++)
        for (int64_t b = a + 1; b < d; b++) {
            double c = corr(col + a * n, col + b * n, n);
            if (a / o.group == b / o.group) {
                in_sum += c;
                in_n++;
                in_max_err = fmax(in_max_err, fabs(c - o.corr));
            } else {
                out_sum += fabs(c);
                out_n++;
                out_max = fmax(out_max, fabs(c));
            }
        }
    double in_mean = in_n ? in_sum / in_n : o.corr, out_mean = out_sum / out_n;
    if (tu_verbose())
        printf("gen %" PRId64 " x %" PRId64 " group %" PRId64 " rho %.2f: density %.4f, "
               "within-group corr mean %.4f (worst pair off by %.3f, %d pairs), "
               "across groups mean |corr| %.4f, max %.3f (%d pairs); noise sd %.4f\n",
               n, d, o.group, o.corr, dens, in_mean, in_max_err, in_n, out_mean, out_max, out_n,
               sd);
    ck_assert_msg(fabs(in_mean - o.corr) < 0.03, "within-group mean corr %g, want %g", in_mean,
                  o.corr);
    ck_assert_msg(in_max_err < 0.15, "a within-group pair is off by %g", in_max_err);
    ck_assert_msg(out_mean < 0.03, "across groups mean |corr| %g", out_mean);
    ck_assert_msg(out_max < 0.12, "across groups max |corr| %g", out_max);
    free(col);
    ptm_dense_release(&dn);
    ptm_dataset_free(ds);
    ptm_dataset_free(bt);
}
END_TEST

/* Tiny and odd shapes: the file still has the declared shape. */
static const struct gen_lasso_opts shape_rows[] = {
    {5, 3, 100, 0.01, 10, 0.5, 2, 0.1, true, false, 0, 0},    /* the last group is drawn by the last row */
    {6, 1, 1, 1, 1, 0, 1, 0, true, false, 0, 0},              /* 1 x 1 */
    {7, 4, 7, 1, 3, 1, 7, 0, true, false, 0, 0},              /* dense, rho 1: columns of a group equal */
    {8, 10, 5, 0.5, 100, 0.3, 0, 1, true, false, 0, 0},       /* group > cols: one group; beta* = 0 */
    {9, 50, 1000, 0.002, 1, 0, 1000, 0.1, true, false, 0, 0}, /* mostly empty rows, every coefficient */
};

START_TEST(test_gen_shapes)
{
    struct gen_lasso_opts grouped = shape_rows[_i];
    grouped.grouped = true; /* a group's equal values are side by side */
    const struct gen_lasso_opts *o = &grouped;
    char dir[32], path[64];
    snprintf(dir, sizeof(dir), "shape-%d", _i);
    gen_into(dir, o);
    snprintf(path, sizeof(path), "%s/lasso.svm", dir);
    struct ptm_dataset *ds = read_svm(path);
    ck_assert_int_eq(ds->csr.nrows, o->rows);
    ck_assert_int_eq(ds->csr.ncols, o->cols);
    snprintf(path, sizeof(path), "%s/beta_true.tsv", dir);
    struct ptm_dataset *bt = read_tsv_vector(path);
    ck_assert_int_eq(bt->dense.nrows, o->cols);
    int64_t k = 0;
    for (int64_t j = 0; j < o->cols; j++)
        k += bt->dense.val[j] != 0;
    ck_assert_int_eq(k, o->nonzeros);
    if (o->corr == 1 && o->noise == 0) {
        /* Every row holds whole groups of equal values, and y = x beta* exactly. */
        for (int64_t i = 0; i < o->rows; i++) {
            double y = 0;
            for (int64_t t = ds->csr.rowptr[i]; t < ds->csr.rowptr[i + 1]; t++) {
                y += ds->csr.val[t] * bt->dense.val[ds->csr.colind[t]];
                if (t > ds->csr.rowptr[i] &&
                    ds->csr.colind[t] / o->group == ds->csr.colind[t - 1] / o->group)
                    EXPECT(ds->csr.val[t] == ds->csr.val[t - 1]);
            }
            EXPECT(ds->labels.val[i] == y);
        }
    }
    ptm_dataset_free(ds);
    ptm_dataset_free(bt);
}
END_TEST

/* A hash of column j of c with its coefficient: equal columns with equal
 * coefficients hash alike. */
static uint64_t column_hash(const struct ptm_csc *c, int64_t j, double beta)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t e = c->colptr[j]; e <= c->colptr[j + 1]; e++) {
        uint64_t v[2] = {0, 0};
        if (e < c->colptr[j + 1]) {
            v[0] = (uint64_t)c->rowind[e];
            memcpy(&v[1], &c->val[e], sizeof(double));
        } else {
            memcpy(&v[1], &beta, sizeof(double));
        }
        for (int k = 0; k < 2; k++)
            for (int b = 0; b < 64; b += 8)
                h = (h ^ ((v[k] >> b) & 0xff)) * 1099511628211ull;
    }
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* By default the columns are spread: the same seed gives the grouped
 * problem with its columns (and beta*) permuted, the last column in
 * place, the labels unchanged, and most columns moved. */
START_TEST(test_gen_spread)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 31 + (uint64_t)_i;
    o.rows = 200;
    o.cols = _i ? 60 : 500;
    o.density = 0.05;
    o.group = _i ? 4 : 10;
    o.nonzeros = 8;
    o.grouped = true;
    gen_into("spread-a", &o);
    o.grouped = false;
    gen_into("spread-b", &o);
    struct ptm_dataset *a = read_svm("spread-a/lasso.svm"), *b = read_svm("spread-b/lasso.svm");
    struct ptm_dataset *ba = read_tsv_vector("spread-a/beta_true.tsv");
    struct ptm_dataset *bb = read_tsv_vector("spread-b/beta_true.tsv");
    const struct ptm_csc *ca, *cb;
    ck_assert_int_eq(ptm_dataset_csc(a, &ca), 0);
    ck_assert_int_eq(ptm_dataset_csc(b, &cb), 0);
    int64_t d = o.cols;
    ck_assert_int_eq(ca->ncols, d);
    ck_assert_int_eq(cb->ncols, d);
    ck_assert_int_eq(a->csr.nnz, b->csr.nnz);
    for (int64_t i = 0; i < o.rows; i++)
        ck_assert(a->labels.val[i] == b->labels.val[i]);
    uint64_t *ha = malloc((size_t)d * sizeof(*ha)), *hb = malloc((size_t)d * sizeof(*hb));
    ck_assert(ha && hb);
    int64_t same = 0;
    for (int64_t j = 0; j < d; j++) {
        ha[j] = column_hash(ca, j, ba->dense.val[j]);
        hb[j] = column_hash(cb, j, bb->dense.val[j]);
        same += ha[j] == hb[j] && ca->colptr[j + 1] > ca->colptr[j];
    }
    ck_assert(ha[d - 1] == hb[d - 1]); /* the last column stays last */
    ck_assert_msg(same < d / 4, "%lld of %lld columns in place", (long long)same, (long long)d);
    qsort(ha, (size_t)d, sizeof(*ha), cmp_u64);
    qsort(hb, (size_t)d, sizeof(*hb), cmp_u64);
    for (int64_t j = 0; j < d; j++)
        ck_assert_msg(ha[j] == hb[j], "the columns are not a permutation of the grouped ones");
    free(ha);
    free(hb);
    ptm_dataset_free(a);
    ptm_dataset_free(b);
    ptm_dataset_free(ba);
    ptm_dataset_free(bb);
}
END_TEST

static const struct gen_lasso_opts bad_rows[] = {
    {1, 0, 10, 0.1, 1, 0, 1, 0, false, false, 0, 0},                      /* rows 0 */
    {1, 10, 0, 0.1, 1, 0, 0, 0, false, false, 0, 0},                      /* cols 0 */
    {1, (int64_t)INT32_MAX + 1, 10, 0.1, 1, 0, 1, 0, false, false, 0, 0}, /* rows too many */
    {1, 10, 10, 0, 1, 0, 1, 0, false, false, 0, 0},                       /* density 0 */
    {1, 10, 10, 1.5, 1, 0, 1, 0, false, false, 0, 0},                     /* density > 1 */
    {1, 10, 10, NAN, 1, 0, 1, 0, false, false, 0, 0},                     /* density NaN */
    {1, 10, 10, 0.1, 0, 0, 1, 0, false, false, 0, 0},                     /* group 0 */
    {1, 10, 10, 0.1, 1, -0.1, 1, 0, false, false, 0, 0},                  /* corr < 0 */
    {1, 10, 10, 0.1, 1, 1.01, 1, 0, false, false, 0, 0},                  /* corr > 1 */
    {1, 10, 10, 0.1, 1, 0, 11, 0, false, false, 0, 0},                    /* nonzeros > cols */
    {1, 10, 10, 0.1, 1, 0, -1, 0, false, false, 0, 0},                    /* nonzeros < 0 */
    {1, 10, 10, 0.1, 1, 0, 1, -1, false, false, 0, 0},                    /* noise < 0 */
    {1, 10, 10, 0.1, 1, 0, 1, INFINITY, false, false, 0, 0},              /* noise inf */
};

/* --nonnegative takes the absolute value of each entry, the same entries
 * in the same places (the labels of a beta* of zeros are the noise alone,
 * so they stay too); --offset adds its value to every label. */
START_TEST(test_gen_nonnegative_offset)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 44;
    o.rows = 120;
    o.cols = 90;
    o.density = 0.1;
    o.group = 3;
    o.nonzeros = 0;
    gen_into("sign-a", &o);
    o.nonnegative = true;
    o.offset = 7.25;
    gen_into("sign-b", &o);
    struct ptm_dataset *a = read_svm("sign-a/lasso.svm"), *b = read_svm("sign-b/lasso.svm");
    ck_assert_int_eq(a->csr.nnz, b->csr.nnz);
    ck_assert_int_gt(a->csr.nnz, 100);
    int64_t negative = 0;
    for (int64_t e = 0; e < a->csr.nnz; e++) {
        ck_assert_int_eq(a->csr.colind[e], b->csr.colind[e]);
        ck_assert(b->csr.val[e] == fabs(a->csr.val[e]));
        negative += a->csr.val[e] < 0;
    }
    ck_assert_int_gt(negative, a->csr.nnz / 4); /* the default has both signs */
    for (int64_t i = 0; i < o.rows; i++)
        ck_assert_msg(fabs(b->labels.val[i] - (a->labels.val[i] + 7.25)) < 1e-12,
                      "row %lld: %.17g, %.17g", (long long)i, a->labels.val[i], b->labels.val[i]);
    o.offset = NAN;
    ck_assert_int_eq(ptm_gen_lasso(&o, "sign-b"), PTM_EINVAL);
    ptm_dataset_free(a);
    ptm_dataset_free(b);
}
END_TEST

START_TEST(test_gen_bad)
{
    make_dir("bad");
    ck_assert_int_eq(ptm_gen_lasso(&bad_rows[_i], "bad"), PTM_EINVAL);
}
END_TEST

START_TEST(test_gen_missing_dir)
{
    errno = 0;
    ck_assert_int_eq(ptm_gen_lasso(&problems[0].o, "no/such/dir"), PTM_EIO);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* The number formats read back exactly, with strtod() and with the reader. */
START_TEST(test_gen_formats)
{
    static const struct {
        int64_t m;
        int q;
        const char *want;
    } fixed[] = {
        {0, 6, "0"},
        {1, 6, "0.000001"},
        {-1, 6, "-0.000001"},
        {1500000, 6, "1.5"},
        {-2000000, 6, "-2"},
        {123456789, 6, "123.456789"},
        {10, 0, "10"},
        {-120, 1, "-12"},
        {5, 17, "0.00000000000000005"},
        {INT64_MIN, 0, "-9223372036854775808"},
    };
    char buf[64];
    for (size_t i = 0; i < PTM_ARRAY_LEN(fixed); i++) {
        int len = gen_fmt_fixed(buf, fixed[i].m, fixed[i].q);
        ck_assert_str_eq(buf, fixed[i].want);
        ck_assert_int_eq(len, (int)strlen(fixed[i].want));
    }
    /* Random values through the libsvm reader, in one file. */
    enum { N = 20000 };
    uint64_t s = 0x12345;
    char *text = malloc((size_t)N * 80);
    double *want_label = malloc(N * sizeof(double)), *want_val = malloc(N * sizeof(double));
    size_t len = 0;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        int64_t m = (int64_t)(s >> 40) - (1 << 23); /* |m| < 2^23 */
        if (m == 0)
            m = 1;
        s = s * 6364136223846793005u + 1442695040888963407u;
        double v;
        uint64_t bits = s;
        memcpy(&v, &bits, sizeof(v));
        if (!isfinite(v))
            v = (double)i / 7;
        want_label[i] = v;
        want_val[i] = (double)m / 1e6;
        int nl = gen_fmt_double(buf, v);
        EXPECT(strtod(buf, NULL) == v && nl <= 24);
        len += (size_t)sprintf(text + len, "%s 1:", buf);
        char *val = text + len;
        len += (size_t)gen_fmt_fixed(val, m, 6);
        EXPECT(strtod(val, NULL) == want_val[i]);
        text[len++] = '\n';
    }
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = PLAN_FORMAT_LIBSVM;
    o.sparse = true;
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    ck_assert_int_eq(ptm_data_read_mem(text, len, "fmt.svm", NULL, 0, NULL, &o, &dg, &ds), 0);
    ptm_data_diags_release(&dg);
    ck_assert_int_eq(ds->csr.nnz, N);
    for (int i = 0; i < N; i++) {
        EXPECT(memcmp(&ds->labels.val[i], &want_label[i], sizeof(double)) == 0);
        EXPECT(memcmp(&ds->csr.val[i], &want_val[i], sizeof(double)) == 0);
    }
    ptm_dataset_free(ds);
    free(text);
    free(want_label);
    free(want_val);
}
END_TEST

/* ---- the suite ------------------------------------------------------------ */

static Suite *lasso_suite(void)
{
    Suite *s = suite_create("lasso");
    TCase *tc;

    tc = tcase_create("kernel");
    tcase_add_loop_test(tc, test_pull, 0, (int)PTM_ARRAY_LEN(pull_rows));
    tcase_add_loop_test(tc, test_kkt_rows, 0, (int)PTM_ARRAY_LEN(kkt_rows));
    tcase_add_test(tc, test_push_apply_by_hand);
    tcase_add_test(tc, test_scatter_rows_by_hand);
    tcase_add_test(tc, test_push_seq_intercept);
    suite_add_tcase(s, tc);

    tc = tcase_create("solve");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_serial_kkt, 0, NPROB * NLAMBDA);
    tcase_add_loop_test(tc, test_sharded, 0, NPROB * NLAMBDA * MAXP);
    tcase_add_loop_test(tc, test_sharded_blocks, 0, 3 * MAXP);
    tcase_add_loop_test(tc, test_residual_and_descent, 0, NPROB * MAXP);
    tcase_add_loop_test(tc, test_lambda_max, 0, NPROB * MAXP);
    tcase_add_test(tc, test_fault);
    suite_add_tcase(s, tc);

    tc = tcase_create("gen");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gen_deterministic);
    tcase_add_loop_test(tc, test_gen_shape_and_correlation, 0, (int)PTM_ARRAY_LEN(corr_rows));
    tcase_add_loop_test(tc, test_gen_shapes, 0, (int)PTM_ARRAY_LEN(shape_rows));
    tcase_add_loop_test(tc, test_gen_spread, 0, 2);
    tcase_add_test(tc, test_gen_nonnegative_offset);
    tcase_add_loop_test(tc, test_gen_bad, 0, (int)PTM_ARRAY_LEN(bad_rows));
    tcase_add_test(tc, test_gen_missing_dir);
    tcase_add_test(tc, test_gen_formats);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-lasso.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_lasso: temporary directory");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(lasso_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
