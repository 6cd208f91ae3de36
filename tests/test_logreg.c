/*
 * test_logreg.c - the logistic regression kernel (runtime/models/logreg/kernel_logreg.c):
 * the proximal minibatch step, the loss and gradient parts, and runs of
 * data-parallel clocks on 1 and 2 simulated workers, with and without
 * stale reads; trust-region Newton (tron.c), and its state saved and
 * loaded for a checkpoint.
 *
 * DESIGN: problems are made by the generator (ptm_gen_logreg), written to
 * the temporary directory that is the tests' working directory, and read
 * back with the libsvm reader; the first TRAIN_SHARE of the rows train,
 * the rest are held out (the generator draws rows one after another, so
 * these are fresh rows of the same model). The minimizer of the
 * regularized problem is computed here another way: Newton's method with
 * a dense Hessian and a Cholesky factorization when l1 = 0, FISTA with the
 * Lipschitz constant from power iteration when l1 > 0, each run until the
 * optimality conditions hold to 1e-10; losses and gradients are summed row
 * by row here. A run of clocks: P workers with row shards, each clock every
 * worker takes the next MINIBATCH rows of its shard (wrapping), reads w,
 * steps, and its increments reach the master copy at the end of the clock.
 * Stale synchronous parallel with staleness s is emulated at its worst:
 * a worker at clock c reads the master copy as it was at the start of
 * clock c - s, plus its own increments since (read-my-writes), which is
 * the oldest view SSP allows. Each run is checked against the reference
 * minimizer, the optimality conditions, its loss sweep after sweep, and
 * the accuracy of the Bayes classifier of the true weights (w_true.tsv)
 * on the held-out rows.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "ckpt.h"
#include "data.h"
#include "gen.h"
#include "gen_logreg.h"
#include "kernel_logreg.h"
#include "ptm.h"
#include "testutil.h"
#include "tron.h"

/* ---- problems ----------------------------------------------------------------- */

struct problem_row {
    const char *name;
    struct gen_logreg_opts o; /* seed, rows, cols, density, nonzeros */
};

static const struct problem_row problems[] = {
    {"dense-ish", {5, 5000, 100, 0.1, 20, 0, false}},
    {"sparse", {6, 16000, 400, 0.02, 40, 0, false}},
};

#define NPROB ((int)PTM_ARRAY_LEN(problems))
#define TRAIN_SHARE 0.8

/* Penalties: l2, and l1 as a fraction of l1_max (the smallest l1 that
 * makes w = 0 optimal, max_j |dL/dw_j (0)|). */
static const struct {
    double l2, l1_frac;
} pen_rows[] = {
    {1e-3, 0},
    {1e-4, 0.1},
};

#define NPEN ((int)PTM_ARRAY_LEN(pen_rows))

struct problem {
    struct ptm_dataset *ds, *wt;
    const struct ptm_csr *x;
    const double *y, *wtrue;
    int64_t n, ntest, d; /* training rows 0 .. n-1, held-out n .. n+ntest-1 */
    double logloss_true; /* info.tsv: mean loss of w_true over all rows */
};

static void make_dir(const char *dir)
{
    ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

static struct ptm_dataset *read_file(const char *path, enum plan_format format, bool vector)
{
    struct ptm_data_opts o;
    memset(&o, 0, sizeof(o));
    o.format = format;
    o.sparse = !vector;
    o.vector = vector;
    o.csv_header = PTM_CSV_HEADER_NO;
    return tu_read_data(path, &o);
}

static void problem_load(int i, struct problem *pb)
{
    const struct problem_row *row = &problems[i];
    char dir[64], path[96];
    snprintf(dir, sizeof(dir), "logreg-%s", row->name);
    make_dir(dir);
    ck_assert_int_eq(ptm_gen_logreg(&row->o, dir, NULL), 0);
    snprintf(path, sizeof(path), "%s/train.svm", dir);
    pb->ds = read_file(path, PLAN_FORMAT_LIBSVM, false);
    snprintf(path, sizeof(path), "%s/w_true.tsv", dir);
    pb->wt = read_file(path, PLAN_FORMAT_CSV, true);
    pb->x = &pb->ds->csr;
    ck_assert(pb->ds->has_labels);
    pb->y = pb->ds->labels.val;
    pb->wtrue = pb->wt->dense.val;
    int64_t rows = pb->x->nrows;
    ck_assert_int_eq(rows, row->o.rows);
    ck_assert_int_eq(pb->x->ncols, row->o.cols);
    ck_assert_int_eq(pb->wt->dense.nrows, row->o.cols);
    pb->n = (int64_t)(TRAIN_SHARE * (double)rows);
    pb->ntest = rows - pb->n;
    pb->d = pb->x->ncols;
    pb->logloss_true = tu_info_value(dir, "logloss_true");
    for (int64_t k = 0; k < rows; k++)
        EXPECT(pb->y[k] == 1 || pb->y[k] == -1);
}

static void problem_release(struct problem *pb)
{
    ptm_dataset_free(pb->ds);
    ptm_dataset_free(pb->wt);
}

/* ---- references computed here ---------------------------------------------------- */

static double margin_ref(const struct problem *pb, int64_t i, const double *w)
{
    double m = 0;
    for (int64_t k = pb->x->rowptr[i]; k < pb->x->rowptr[i + 1]; k++)
        m += pb->x->val[k] * w[pb->x->colind[k]];
    return m;
}

static double sigmoid(double t)
{
    return t >= 0 ? 1 / (1 + exp(-t)) : exp(t) / (1 + exp(t));
}

/* Mean loss over rows lo .. hi-1, as log(1 + exp(-y m)) written out. */
static double mean_loss_ref(const struct problem *pb, int64_t lo, int64_t hi, const double *w)
{
    double s = 0;
    for (int64_t i = lo; i < hi; i++) {
        double z = -pb->y[i] * margin_ref(pb, i, w);
        s += z > 30 ? z + exp(-z) : log(1 + exp(z));
    }
    return s / (double)(hi - lo);
}

static double objective_ref(const struct problem *pb, const double *w, double l2, double l1)
{
    double sq = 0, ab = 0;
    for (int64_t j = 0; j < pb->d; j++) {
        sq += w[j] * w[j];
        ab += fabs(w[j]);
    }
    return mean_loss_ref(pb, 0, pb->n, w) + 0.5 * l2 * sq + l1 * ab;
}

/* G = gradient of the mean training loss plus l2 w. */
static void grad_ref(const struct problem *pb, const double *w, double l2, double *G)
{
    memset(G, 0, (size_t)pb->d * sizeof(*G));
    for (int64_t i = 0; i < pb->n; i++) {
        double c = -pb->y[i] * sigmoid(-pb->y[i] * margin_ref(pb, i, w));
        for (int64_t k = pb->x->rowptr[i]; k < pb->x->rowptr[i + 1]; k++)
            G[pb->x->colind[k]] += c * pb->x->val[k];
    }
    for (int64_t j = 0; j < pb->d; j++)
        G[j] = G[j] / (double)pb->n + l2 * w[j];
}

static double soft(double z, double t)
{
    return z > t ? z - t : z < -t ? z + t : 0;
}

/* The smallest |subgradient| of the objective, largest over coordinates. */
static double kkt_ref(const struct problem *pb, const double *w, double l2, double l1)
{
    double *G = malloc((size_t)pb->d * sizeof(*G)), most = 0;
    grad_ref(pb, w, l2, G);
    for (int64_t j = 0; j < pb->d; j++) {
        double v = w[j] != 0 ? fabs(G[j] + copysign(l1, w[j])) : fmax(0, fabs(G[j]) - l1);
        most = fmax(most, v);
    }
    free(G);
    return most;
}

/* The gradient mapping of the objective at w with step 1 / L: the
 * largest |w_j - S(w_j - G_j / L, l1 / L)| L. Zero exactly at the
 * minimizer, like the KKT violation, but continuous in w: a weight that
 * should be 0 and is 1e-9 counts as 1e-9 L, not as l1. */
static double gmap_ref(const struct problem *pb, const double *w, double l2, double l1, double L)
{
    double *G = malloc((size_t)pb->d * sizeof(*G)), most = 0;
    grad_ref(pb, w, l2, G);
    for (int64_t j = 0; j < pb->d; j++)
        most = fmax(most, fabs(w[j] - soft(w[j] - G[j] / L, l1 / L)) * L);
    free(G);
    return most;
}

/* Solve A z = b for a symmetric positive definite d x d A (overwritten
 * by its Cholesky factor); b becomes z. */
static void cholesky_solve(double *A, double *b, int64_t d)
{
    for (int64_t j = 0; j < d; j++) {
        double s = A[j * d + j];
        for (int64_t k = 0; k < j; k++)
            s -= A[j * d + k] * A[j * d + k];
        ck_assert(s > 0);
        A[j * d + j] = sqrt(s);
        for (int64_t i = j + 1; i < d; i++) {
            double t = A[i * d + j];
            for (int64_t k = 0; k < j; k++)
                t -= A[i * d + k] * A[j * d + k];
            A[i * d + j] = t / A[j * d + j];
        }
    }
    for (int64_t i = 0; i < d; i++) {
        for (int64_t k = 0; k < i; k++)
            b[i] -= A[i * d + k] * b[k];
        b[i] /= A[i * d + i];
    }
    for (int64_t i = d - 1; i >= 0; i--) {
        for (int64_t k = i + 1; k < d; k++)
            b[i] -= A[k * d + i] * b[k];
        b[i] /= A[i * d + i];
    }
}

/* Newton's method with backtracking for l1 = 0, from w = 0. */
static void newton_ref(const struct problem *pb, double l2, double *w)
{
    int64_t d = pb->d;
    double *A = malloc((size_t)(d * d) * sizeof(*A)), *G = malloc((size_t)d * sizeof(*G));
    double *wn = malloc((size_t)d * sizeof(*wn));
    memset(w, 0, (size_t)d * sizeof(*w));
    for (int it = 0; it < 100; it++) {
        grad_ref(pb, w, l2, G);
        double gmax = 0;
        for (int64_t j = 0; j < d; j++)
            gmax = fmax(gmax, fabs(G[j]));
        if (gmax <= 1e-13)
            break;
        memset(A, 0, (size_t)(d * d) * sizeof(*A));
        for (int64_t i = 0; i < pb->n; i++) {
            double p = sigmoid(margin_ref(pb, i, w)), c = p * (1 - p) / (double)pb->n;
            for (int64_t a = pb->x->rowptr[i]; a < pb->x->rowptr[i + 1]; a++)
                for (int64_t b = pb->x->rowptr[i]; b < pb->x->rowptr[i + 1]; b++)
                    A[(int64_t)pb->x->colind[a] * d + pb->x->colind[b]] +=
                        c * pb->x->val[a] * pb->x->val[b];
        }
        for (int64_t j = 0; j < d; j++)
            A[j * d + j] += l2;
        cholesky_solve(A, G, d); /* G = the Newton direction */
        double f = objective_ref(pb, w, l2, 0), t = 1;
        for (int ls = 0; ls < 40; ls++, t /= 2) {
            for (int64_t j = 0; j < d; j++)
                wn[j] = w[j] - t * G[j];
            if (objective_ref(pb, wn, l2, 0) <= f)
                break;
        }
        memcpy(w, wn, (size_t)d * sizeof(*w));
    }
    free(A);
    free(G);
    free(wn);
}

/* A bound on the curvature of the objective's smooth part: ||X||_2^2 /
 * (4 n) + l2, the largest singular value of the training rows by power
 * iteration, with a 5% margin. */
static double lipschitz_ref(const struct problem *pb, double l2)
{
    int64_t d = pb->d, n = pb->n;
    double *v = malloc((size_t)d * sizeof(*v)), *u = malloc((size_t)n * sizeof(*u));
    double *z = malloc((size_t)d * sizeof(*z));
    for (int64_t j = 0; j < d; j++)
        v[j] = 1 / sqrt((double)d);
    double s2 = 0;
    for (int it = 0; it < 200; it++) {
        for (int64_t i = 0; i < n; i++)
            u[i] = margin_ref(pb, i, v);
        memset(z, 0, (size_t)d * sizeof(*z));
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = pb->x->rowptr[i]; k < pb->x->rowptr[i + 1]; k++)
                z[pb->x->colind[k]] += pb->x->val[k] * u[i];
        double nz = 0;
        for (int64_t j = 0; j < d; j++)
            nz += z[j] * z[j];
        s2 = sqrt(nz); /* |X^T X v| with |v| = 1 */
        for (int64_t j = 0; j < d; j++)
            v[j] = z[j] / s2;
    }
    free(v);
    free(u);
    free(z);
    return 1.05 * s2 / (4.0 * (double)n) + l2;
}

/* FISTA from w = 0 with step 1 / lipschitz_ref(). */
static void fista_ref(const struct problem *pb, double l2, double l1, double *w)
{
    int64_t d = pb->d;
    double *z = malloc((size_t)d * sizeof(*z)), *G = malloc((size_t)d * sizeof(*G));
    double *wp = malloc((size_t)d * sizeof(*wp));
    double step = 1 / lipschitz_ref(pb, l2), tk = 1;
    memset(w, 0, (size_t)d * sizeof(*w));
    memcpy(z, w, (size_t)d * sizeof(*z)); /* z: the extrapolated point */
    for (int it = 0; it < 200000; it++) {
        grad_ref(pb, z, l2, G);
        memcpy(wp, w, (size_t)d * sizeof(*wp));
        for (int64_t j = 0; j < d; j++)
            w[j] = soft(z[j] - step * G[j], step * l1);
        double tn = (1 + sqrt(1 + 4 * tk * tk)) / 2;
        for (int64_t j = 0; j < d; j++)
            z[j] = w[j] + (tk - 1) / tn * (w[j] - wp[j]);
        tk = tn;
        if (it % 50 == 49 && kkt_ref(pb, w, l2, l1) <= 1e-11)
            break;
    }
    free(z);
    free(G);
    free(wp);
}

/* l1 = pen_rows[li].l1_frac max_j |dL/dw_j| at w = 0. */
static double l1_of(const struct problem *pb, int li)
{
    double *G = calloc((size_t)pb->d, sizeof(*G)), *w = calloc((size_t)pb->d, sizeof(*w)), m = 0;
    grad_ref(pb, w, 0, G);
    for (int64_t j = 0; j < pb->d; j++)
        m = fmax(m, fabs(G[j]));
    free(G);
    free(w);
    return pen_rows[li].l1_frac * m;
}

static void reference(const struct problem *pb, double l2, double l1, double *w)
{
    if (l1 == 0)
        newton_ref(pb, l2, w);
    else
        fista_ref(pb, l2, l1, w);
    double v = kkt_ref(pb, w, l2, l1);
    ck_assert_msg(v <= 1e-10, "reference: optimality violated by %g", v);
}

/* ---- clocks, workers simulated in turn ------------------------------------------ */

#define MAXP 2
#define MAXS 2
#define MINIBATCH 100
#define RATE 3.0
#define DECAY 0.95
#define SWEEPS 150
#define VR_STEP 0.1 /* method = svrg: the step, over the curvature bound */
#define VR_SWEEPS 200

struct sim {
    const struct problem *pb;
    int P, s;
    double l2, l1;
    int64_t bounds[MAXP + 1], pos[MAXP];
    int64_t clock, per_sweep; /* clocks run; clocks a sweep */
    struct logreg_batch b[MAXP];
    int32_t *idx[MAXP];
    double *inc[MAXP];
    int64_t ninc[MAXP];
    double *scale, *master, *view;
    double *snap[MAXS + 1];      /* the master copy at the start of the last s + 1 clocks */
    bool vr;                     /* method = svrg: an anchor every sweep, dense steps */
    double eta_vr;               /* its constant step */
    double *mu, *margin;         /* the anchor's mean loss gradient, every row's margin */
    double *own[MAXP][MAXS + 1]; /* a worker's increments in each of the last s clocks */
};

static double *dvec(int64_t d)
{
    return calloc((size_t)d, sizeof(double));
}

static void sim_init(struct sim *s, const struct problem *pb, int P, int stale, double l2,
                     double l1)
{
    memset(s, 0, sizeof(*s));
    s->pb = pb;
    s->P = P;
    s->s = stale;
    s->l2 = l2;
    s->l1 = l1;
    int64_t d = pb->d;
    ptm_shard_by_nnz(pb->x->rowptr, pb->n, P, s->bounds);
    int64_t *cnt = calloc((size_t)d, sizeof(*cnt)), most = 0;
    for (int p = 0; p < P; p++) {
        logreg_col_counts_part(pb->x, s->bounds[p], s->bounds[p + 1], cnt);
        ck_assert_int_eq(logreg_batch_init(&s->b[p], d), 0);
        s->idx[p] = malloc((size_t)d * sizeof(int32_t));
        s->inc[p] = dvec(d);
        for (int k = 0; k <= stale; k++)
            s->own[p][k] = dvec(d);
        int64_t rows = s->bounds[p + 1] - s->bounds[p];
        most = rows > most ? rows : most;
    }
    s->per_sweep = (most + MINIBATCH - 1) / MINIBATCH;
    s->scale = dvec(d);
    logreg_reg_scale(cnt, d, pb->n, s->scale);
    free(cnt);
    s->master = dvec(d);
    s->view = dvec(d);
    s->mu = dvec(d);
    s->margin = dvec(pb->n);
    for (int k = 0; k <= stale; k++)
        s->snap[k] = dvec(d);
}

static void sim_release(struct sim *s)
{
    for (int p = 0; p < s->P; p++) {
        logreg_batch_release(&s->b[p]);
        free(s->idx[p]);
        free(s->inc[p]);
        for (int k = 0; k <= s->s; k++)
            free(s->own[p][k]);
    }
    for (int k = 0; k <= s->s; k++)
        free(s->snap[k]);
    free(s->scale);
    free(s->master);
    free(s->view);
    free(s->mu);
    free(s->margin);
}

/* One clock of every worker. */
static void sim_clock(struct sim *s)
{
    int64_t d = s->pb->d, c = s->clock, S = s->s;
    double eta = s->vr ? s->eta_vr : logreg_step(RATE, DECAY, c / s->per_sweep);
    if (s->vr && c % s->per_sweep == 0) {
        /* the anchor: the master copy, between clocks */
        memset(s->mu, 0, (size_t)d * sizeof(double));
        for (int p = 0; p < s->P; p++)
            logreg_anchor_part(s->pb->x, s->pb->y, s->bounds[p], s->bounds[p + 1], s->master,
                               s->margin, s->mu, NULL, NULL);
        for (int64_t j = 0; j < d; j++)
            s->mu[j] /= (double)s->pb->n;
    }
    memcpy(s->snap[c % (S + 1)], s->master, (size_t)d * sizeof(double));
    int64_t from = c - S > 0 ? c - S : 0;
    for (int p = 0; p < s->P; p++) {
        /* The oldest view SSP allows: clock `from`, plus the worker's own
         * increments of clocks from .. c-1. */
        memcpy(s->view, s->snap[from % (S + 1)], (size_t)d * sizeof(double));
        for (int64_t k = from; k < c; k++)
            for (int64_t j = 0; j < d; j++)
                s->view[j] += s->own[p][k % (S + 1)][j];
        /* The next MINIBATCH rows of the shard, wrapping at its end. */
        int64_t lo = s->bounds[p], rows = s->bounds[p + 1] - lo, left = MINIBATCH;
        while (left > 0 && rows > 0) {
            int64_t take = rows - s->pos[p] < left ? rows - s->pos[p] : left;
            if (s->vr)
                logreg_batch_add_vr(&s->b[p], s->pb->x, s->pb->y, lo + s->pos[p],
                                    lo + s->pos[p] + take, s->view, s->margin, NULL);
            else
                logreg_batch_add(&s->b[p], s->pb->x, s->pb->y, lo + s->pos[p],
                                 lo + s->pos[p] + take, s->view, NULL);
            left -= take;
            s->pos[p] = (s->pos[p] + take) % rows;
        }
        if (s->vr) {
            /* dense increments, listed as column j at j */
            int64_t olo, ohi;
            logreg_owned(d, p, s->P, &olo, &ohi);
            logreg_vr_step(&s->b[p], s->view, s->mu, eta, s->l2, s->l1, olo, ohi, s->inc[p], NULL);
            for (int64_t j = 0; j < d; j++)
                s->idx[p][j] = (int32_t)j;
            s->ninc[p] = d;
        } else {
            s->ninc[p] = logreg_batch_step(&s->b[p], s->view, s->scale, eta, s->l2, s->l1,
                                           s->idx[p], s->inc[p], NULL);
        }
        double *mine = s->own[p][c % (S + 1)];
        memset(mine, 0, (size_t)d * sizeof(double));
        for (int64_t k = 0; k < s->ninc[p]; k++)
            mine[s->idx[p][k]] += s->inc[p][k];
    }
    /* The clock ends: every worker's increments reach the master copy. */
    for (int p = 0; p < s->P; p++)
        for (int64_t k = 0; k < s->ninc[p]; k++)
            s->master[s->idx[p][k]] += s->inc[p][k];
    s->clock++;
}

/* F at the master copy from the kernel's parts, summed in worker order. */
static double sim_objective(const struct sim *s)
{
    double loss = 0;
    for (int p = 0; p < s->P; p++)
        loss +=
            logreg_loss_part(s->pb->x, s->pb->y, s->bounds[p], s->bounds[p + 1], s->master, NULL);
    return loss / (double)s->pb->n + logreg_penalty(s->master, s->pb->d, s->l2, s->l1);
}

static double sim_kkt(const struct sim *s)
{
    double *g = dvec(s->pb->d);
    for (int p = 0; p < s->P; p++)
        logreg_grad_part(s->pb->x, s->pb->y, s->bounds[p], s->bounds[p + 1], s->master, g, NULL,
                         NULL);
    double v = logreg_kkt(g, s->master, s->pb->d, s->pb->n, s->l2, s->l1, NULL, NULL);
    free(g);
    return v;
}

/* Share of rows lo .. hi-1 whose label has the sign of x . w (0 counts as -1). */
static double accuracy(const struct problem *pb, int64_t lo, int64_t hi, const double *w)
{
    int64_t right = 0;
    for (int64_t i = lo; i < hi; i++)
        right += (margin_ref(pb, i, w) > 0 ? 1 : -1) == pb->y[i];
    return (double)right / (double)(hi - lo);
}

/* ---- the kernel by hand -------------------------------------------------------------- */

START_TEST(test_loss_rows)
{
    /* clang-format off */
    static const struct {
        double y, m, want;
    } rows[] = {
        {1, 0, 0.69314718055994531},   {-1, 0, 0.69314718055994531},
        {0, 0, 0.69314718055994531},   {1, 2, 0.12692801104297263},
        {-1, -2, 0.12692801104297263}, {0, -2, 0.12692801104297263},
        {1, -2, 2.1269280110429727},   {1, 800, 0},
        {1, -800, 800},                {-1, 800, 800},
    };
    /* clang-format on */
    for (size_t k = 0; k < PTM_ARRAY_LEN(rows); k++) {
        double v = logreg_loss(rows[k].y, rows[k].m);
        ck_assert_msg(fabs(v - rows[k].want) <= 1e-15 * fmax(1, rows[k].want), "row %zu: %.17g", k,
                      v);
    }
}
END_TEST

/* A 3-row batch over 4 columns, step worked out by hand. */
START_TEST(test_step_by_hand)
{
    /* X = [1 0 2 0; 0 3 0 0; 4 0 0 0], y = (1, -1, 1), w = (0.5, 0, -1, 0.25) */
    static int64_t rowptr[] = {0, 2, 3, 4};
    static int32_t colind[] = {0, 2, 1, 0};
    static double val[] = {1, 2, 3, 4};
    static double y[] = {1, -1, 1};
    struct ptm_csr x = {3, 4, 4, rowptr, colind, val};
    double w[4] = {0.5, 0, -1, 0.25};
    int64_t cnt[4] = {0};
    logreg_col_counts_part(&x, 0, 3, cnt);
    ck_assert(cnt[0] == 2 && cnt[1] == 1 && cnt[2] == 1 && cnt[3] == 0);
    double scale[4];
    logreg_reg_scale(cnt, 4, 3, scale);
    ck_assert(scale[0] == 1.5 && scale[1] == 3 && scale[2] == 3 && scale[3] == 0);
    struct logreg_batch b;
    ck_assert_int_eq(logreg_batch_init(&b, 4), 0);
    /* Rows 1 .. 2 then 0: a wrapped batch. */
    logreg_batch_add(&b, &x, y, 1, 3, w, NULL);
    logreg_batch_add(&b, &x, y, 0, 1, w, NULL);
    ck_assert_int_eq(b.rows, 3);
    ck_assert_int_eq(b.ntouched, 3);
    ck_assert(b.touched[0] == 1 && b.touched[1] == 0 && b.touched[2] == 2);
    /* margins: row 0: 0.5 - 2 = -1.5; row 1: 0; row 2: 2 */
    double s0 = -1 / (1 + exp(-1.5)), s1 = 1 / (1 + exp(-0.0)), s2 = -1 / (1 + exp(2));
    double loss = logreg_loss(1, -1.5) + logreg_loss(-1, 0) + logreg_loss(1, 2);
    ck_assert(fabs(b.loss - loss) <= 1e-15);
    double g[4] = {s0 * 1 + s2 * 4, s1 * 3, s0 * 2, 0};
    int32_t idx[4];
    double inc[4], eta = 0.3, l2 = 0.1, l1 = 0.05;
    int64_t n = logreg_batch_step(&b, w, scale, eta, l2, l1, idx, inc, NULL);
    ck_assert_int_eq(n, 3);
    int64_t m[4] = {2, 1, 1, 0};
    for (int k = 0; k < 3; k++) {
        int j = idx[k];
        double a = scale[j] * (double)m[j] / 3, v = w[j] - eta * g[j] / 3;
        double want = soft(v, eta * a * l1) / (1 + eta * a * l2) - w[j];
        ck_assert_msg(fabs(inc[k] - want) <= 1e-15, "column %d: %.17g vs %.17g", j, inc[k], want);
    }
    /* 3 of 4 columns touched: stepped in column order */
    ck_assert(idx[0] == 0 && idx[1] == 1 && idx[2] == 2);
    /* The batch is empty again, its arrays zero. */
    ck_assert_int_eq(b.rows, 0);
    ck_assert_int_eq(b.ntouched, 0);
    for (int j = 0; j < 4; j++)
        ck_assert(b.g[j] == 0 && b.m[j] == 0);
    ck_assert_int_eq(logreg_batch_step(&b, w, scale, eta, l2, l1, idx, inc, NULL), 0);
    /* A weight pinned at zero by l1 gives no increment. */
    double w0[4] = {0, 0, 0, 0};
    logreg_batch_add(&b, &x, y, 1, 2, w0, NULL); /* row 1: column 1, g = 0.5 * 3 */
    ck_assert_int_eq(logreg_batch_step(&b, w0, scale, 0.1, 0, 1, idx, inc, NULL), 0);
    /* The loss and the gradient parts against the sums above. */
    ck_assert(fabs(logreg_loss_part(&x, y, 0, 3, w, NULL) - loss) <= 1e-15);
    double gp[4] = {0, 0, 0, 0};
    logreg_grad_part(&x, y, 0, 2, w, gp, NULL, NULL);
    logreg_grad_part(&x, y, 2, 3, w, gp, NULL, NULL);
    for (int j = 0; j < 4; j++)
        ck_assert(fabs(gp[j] - g[j]) <= 1e-15);
    ck_assert(fabs(logreg_penalty(w, 4, 0.1, 0.05) - (0.05 * (0.25 + 1 + 0.0625) + 0.05 * 1.75)) <=
              1e-15);
    ck_assert(logreg_step(0.5, 0.5, 2) == 0.125);
    logreg_batch_release(&b);
}
END_TEST

static const struct {
    double g[3], w[3];
    int64_t n;
    double l2, l1, want;
    int64_t worst;
} kkt_rows[] = {
    {{0, 0, 0}, {0, 0, 0}, 2, 0, 1, 0, 0},
    {{2, -2, 1}, {0, 0, 0}, 2, 0, 1, 0, 0},         /* |g/n| = l1: on the boundary */
    {{3, -2, 1}, {0, 0, 0}, 2, 0, 1, 0.5, 0},       /* |3/2| - 1 */
    {{-2, 2, 0}, {1, -1, 0}, 2, 0, 1, 0, 0},        /* g/n = -l1 sign(w) */
    {{2, 2, 0}, {1, -1, 0}, 2, 0, 1, 2, 0},         /* 1 + 1 */
    {{-2, 0, 0}, {4, 0, 0}, 2, 0.25, 0, 0, 0},      /* -1 + 0.25 * 4 */
    {{0.5, 0, -7}, {2, 0, 0}, 1, 0, 0.25, 6.75, 2}, /* the largest of several */
};

START_TEST(test_kkt_rows)
{
    int64_t worst = -2;
    double v = logreg_kkt(kkt_rows[_i].g, kkt_rows[_i].w, 3, kkt_rows[_i].n, kkt_rows[_i].l2,
                          kkt_rows[_i].l1, &worst, NULL);
    ck_assert_msg(fabs(v - kkt_rows[_i].want) < 1e-15, "row %d: got %g, want %g", _i, v,
                  kkt_rows[_i].want);
    if (kkt_rows[_i].want > 0)
        ck_assert_int_eq(worst, kkt_rows[_i].worst);
}
END_TEST

/* The whole training set as one batch is proximal gradient descent: it
 * converges to the reference minimizer, whose optimality it confirms. */
START_TEST(test_full_batch)
{
    int pi = _i / NPEN, li = _i % NPEN;
    struct problem pb;
    problem_load(pi, &pb);
    double l2 = pen_rows[li].l2, l1 = l1_of(&pb, li);
    int64_t d = pb.d;
    double *ref = dvec(d), *w = dvec(d), *inc = dvec(d), *scale = dvec(d), *g = dvec(d);
    int32_t *idx = malloc((size_t)d * sizeof(*idx));
    int64_t *cnt = calloc((size_t)d, sizeof(*cnt));
    reference(&pb, l2, l1, ref);
    logreg_col_counts_part(pb.x, 0, pb.n, cnt);
    logreg_reg_scale(cnt, d, pb.n, scale);
    struct logreg_batch b;
    ck_assert_int_eq(logreg_batch_init(&b, d), 0);
    double eta = 1 / lipschitz_ref(&pb, l2);
    double f_prev = INFINITY;
    int it;
    for (it = 0; it < 20000; it++) {
        logreg_batch_add(&b, pb.x, pb.y, 0, pb.n, w, NULL);
        double f = b.loss / (double)pb.n + logreg_penalty(w, d, l2, l1);
        EXPECT(f <= f_prev * (1 + 1e-14));
        f_prev = f;
        int64_t n = logreg_batch_step(&b, w, scale, eta, l2, l1, idx, inc, NULL);
        for (int64_t k = 0; k < n; k++)
            w[idx[k]] += inc[k];
        if (n == 0)
            break;
        if (it % 100 == 99) {
            memset(g, 0, (size_t)d * sizeof(*g));
            logreg_grad_part(pb.x, pb.y, 0, pb.n, w, g, NULL, NULL);
            if (logreg_kkt(g, w, d, pb.n, l2, l1, NULL, NULL) <= 1e-10)
                break;
        }
    }
    double diff = 0;
    for (int64_t j = 0; j < d; j++)
        diff = fmax(diff, fabs(w[j] - ref[j]));
    double v = kkt_ref(&pb, w, l2, l1);
    if (tu_verbose())
        printf("full batch %-9s l2 %g l1 %g: %d steps, KKT %.1e, |w - reference| %.1e\n",
               problems[pi].name, l2, l1, it + 1, v, diff);
    fflush(stdout);
    ck_assert_msg(v <= 1e-9, "KKT %g", v);
    ck_assert_msg(diff <= 1e-6, "|w - reference| %g", diff);
    logreg_batch_release(&b);
    free(ref);
    free(w);
    free(inc);
    free(scale);
    free(g);
    free(idx);
    free(cnt);
    problem_release(&pb);
}
END_TEST

/* ---- minibatch runs: P workers, staleness s ------------------------------------ */

/* Runs: P, staleness. */
static const struct {
    int P, s;
} run_rows[] = {{1, 0}, {2, 0}, {2, 2}};

#define NRUN ((int)PTM_ARRAY_LEN(run_rows))

START_TEST(test_sgd_runs)
{
    int ri = _i % NRUN, rest = _i / NRUN, li = rest % NPEN, pi = rest / NPEN;
    int P = run_rows[ri].P, S = run_rows[ri].s;
    struct problem pb;
    problem_load(pi, &pb);
    double l2 = pen_rows[li].l2, l1 = l1_of(&pb, li);
    int64_t d = pb.d;
    double *ref = dvec(d);
    reference(&pb, l2, l1, ref);
    double f_ref = objective_ref(&pb, ref, l2, l1), v0;
    struct sim s;
    sim_init(&s, &pb, P, S, l2, l1);
    double L = lipschitz_ref(&pb, l2);
    v0 = kkt_ref(&pb, s.master, l2, l1);
    double gm0 = gmap_ref(&pb, s.master, l2, l1, L);
    double f0 = sim_objective(&s), f = f0, worst_rise = 0, f1 = 0;
    ck_assert(fabs(f0 - objective_ref(&pb, s.master, l2, l1)) <= 1e-12);
    for (int e = 0; e < SWEEPS; e++) {
        for (int64_t k = 0; k < s.per_sweep; k++)
            sim_clock(&s);
        double fn = sim_objective(&s);
        if (e == 0)
            f1 = fn;
        if (e >= 5)
            worst_rise = fmax(worst_rise, (fn - f) / f);
        f = fn;
    }
    double diff = 0, v = kkt_ref(&pb, s.master, l2, l1), vk = sim_kkt(&s);
    double gm = gmap_ref(&pb, s.master, l2, l1, L);
    for (int64_t j = 0; j < d; j++)
        diff = fmax(diff, fabs(s.master[j] - ref[j]));
    int64_t nz = 0, nz_ref = 0;
    for (int64_t j = 0; j < d; j++) {
        nz += s.master[j] != 0;
        nz_ref += ref[j] != 0;
    }
    /* Held out: the fit against the Bayes classifier sign(x . w_true), and
     * that against the Bayes rate E max(p, 1 - p) of these rows. */
    int64_t lo = pb.n, hi = pb.n + pb.ntest;
    double acc = accuracy(&pb, lo, hi, s.master), acc_bayes = accuracy(&pb, lo, hi, pb.wtrue);
    double acc_ref = accuracy(&pb, lo, hi, ref);
    double rate = 0;
    for (int64_t i = lo; i < hi; i++) {
        double p = sigmoid(margin_ref(&pb, i, pb.wtrue));
        rate += fmax(p, 1 - p);
    }
    rate /= (double)pb.ntest;
    double loss_true = mean_loss_ref(&pb, 0, hi, pb.wtrue);
    if (tu_verbose())
        printf(
            "sgd %-9s l2 %g l1 %g P=%d s=%d: F %.6f -> %.6f -> %.8f (reference %.8f), rise %.1e, "
            "KKT %.1e (start %.1e), gradient map %.1e (start %.1e), |w - reference| %.1e, "
            "non-zeros %lld (reference %lld), "
            "held-out accuracy %.4f (reference %.4f), Bayes classifier %.4f, Bayes rate %.4f\n",
            problems[pi].name, l2, l1, P, S, f0, f1, f, f_ref, worst_rise, v, v0, gm, gm0, diff,
            (long long)nz, (long long)nz_ref, acc, acc_ref, acc_bayes, rate);
    fflush(stdout);
    /* info.tsv's loss of the true weights is the one computed here. */
    ck_assert(fabs(loss_true - pb.logloss_true) <= 1e-9);
    /* The loss comes down, and keeps coming down once the steps are small. */
    ck_assert(f1 < f0 && f < f1);
    ck_assert_msg(worst_rise <= 1e-4, "the objective rose by %g", worst_rise);
    /* The optimum of the regularized problem, to SGD's accuracy: the
     * objective within 2e-5 of the minimum (relative), the gradient
     * mapping down by 100 from w = 0, and the weights within 0.03 (the
     * problems are ill-conditioned along some directions, where a small
     * objective gap allows a larger distance). With l1 > 0 the KKT
     * violation is no measure of SGD's progress: a weight that should be
     * 0 and is 1e-9 violates it by l1. */
    ck_assert_msg(f - f_ref <= 2e-5 * f_ref, "F %.10g, reference %.10g", f, f_ref);
    ck_assert_msg(gm <= 1e-2 * gm0, "gradient mapping %g (start %g)", gm, gm0);
    ck_assert_msg(l1 > 0 || v <= 1e-2 * v0, "KKT %g (start %g)", v, v0);
    ck_assert_msg(diff <= 0.03, "|w - reference| = %g", diff);
    /* The kernel's own optimality check agrees with the one here. */
    ck_assert(fabs(v - vk) <= 1e-12);
    /* The accuracy the model allows: that of the exact minimizer, and
     * near that of the Bayes classifier on the same held-out labels. */
    ck_assert_msg(fabs(acc - acc_ref) <= 0.01, "accuracy %g, reference %g", acc, acc_ref);
    ck_assert_msg(acc >= acc_bayes - 0.02, "accuracy %g, Bayes classifier %g", acc, acc_bayes);
    ck_assert_msg(fabs(acc_bayes - rate) <= 4 * sqrt(rate * (1 - rate) / (double)pb.ntest),
                  "Bayes classifier %g, Bayes rate %g", acc_bayes, rate);
    sim_release(&s);
    free(ref);
    problem_release(&pb);
}
END_TEST

/* The same 3 rows under method = svrg: the anchor's margins and gradient,
 * then a batch of rows 2 and 0 stepped from another w, by hand. */
START_TEST(test_vr_by_hand)
{
    static int64_t rowptr[] = {0, 2, 3, 4};
    static int32_t colind[] = {0, 2, 1, 0};
    static double val[] = {1, 2, 3, 4};
    static double y[] = {1, -1, 1};
    struct ptm_csr x = {3, 4, 4, rowptr, colind, val};
    double wa[4] = {0.5, 0, -1, 0.25}, w[4] = {0.25, 0.5, -0.5, 0.001};
    double margin[3] = {9, 9, 9}, g[4] = {0, 0, 0, 0};
    logreg_anchor_part(&x, y, 0, 3, wa, margin, g, NULL, NULL);
    ck_assert(margin[0] == -1.5 && margin[1] == 0 && margin[2] == 2);
    /* dloss/dm = -y / (1 + exp(y m)) */
    double a0 = -1 / (1 + exp(-1.5)), a1 = 1 / (1 + exp(0.0)), a2 = -1 / (1 + exp(2.0));
    double ga[4] = {a0 * 1 + a2 * 4, a1 * 3, a0 * 2, 0};
    for (int j = 0; j < 4; j++)
        ck_assert(fabs(g[j] - ga[j]) <= 1e-15);
    double mu[4];
    for (int j = 0; j < 4; j++)
        mu[j] = g[j] / 3;
    struct logreg_batch b;
    ck_assert_int_eq(logreg_batch_init(&b, 4), 0);
    logreg_batch_add_vr(&b, &x, y, 2, 3, w, margin, NULL);
    logreg_batch_add_vr(&b, &x, y, 0, 1, w, margin, NULL);
    ck_assert_int_eq(b.rows, 2);
    /* at w: row 0: 0.25 - 1 = -0.75; row 2: 1 */
    double c0 = -1 / (1 + exp(-0.75)) - a0, c2 = -1 / (1 + exp(1.0)) - a2;
    ck_assert(fabs(b.loss - (logreg_loss(1, -0.75) + logreg_loss(1, 1))) <= 1e-15);
    double gb[4] = {c0 * 1 + c2 * 4, 0, c0 * 2, 0};
    double inc[4], eta = 0.3, l2 = 0.1, l1 = 0.05;
    /* the first of 2 workers: it owns columns 0 and 1 */
    int64_t lo, hi;
    logreg_owned(4, 0, 2, &lo, &hi);
    ck_assert(lo == 0 && hi == 2);
    logreg_vr_step(&b, w, mu, eta, l2, l1, lo, hi, inc, NULL);
    for (int j = 0; j < 4; j++) {
        double v = w[j] - eta * (gb[j] / 2 + mu[j]);
        double nw = soft(v, eta * l1) / (1 + eta * l2);
        double want = nw != 0 || j < 2 ? nw - w[j] : 0;
        ck_assert_msg(fabs(inc[j] - want) <= 1e-15, "column %d: %.17g vs %.17g", j, inc[j], want);
    }
    /* column 3: no row, no anchor gradient; l1 sets it to zero, which the
     * second worker does, not this one */
    ck_assert(inc[3] == 0);
    logreg_batch_add_vr(&b, &x, y, 2, 3, w, margin, NULL);
    logreg_batch_add_vr(&b, &x, y, 0, 1, w, margin, NULL);
    logreg_owned(4, 1, 2, &lo, &hi);
    ck_assert(lo == 2 && hi == 4);
    logreg_vr_step(&b, w, mu, eta, l2, l1, lo, hi, inc, NULL);
    ck_assert(inc[3] == -0.001);
    ck_assert_int_eq(b.rows, 0);
    for (int j = 0; j < 4; j++)
        ck_assert(b.g[j] == 0);
    /* At the anchor itself the step is the proximal gradient step. */
    logreg_batch_add_vr(&b, &x, y, 0, 3, wa, margin, NULL);
    logreg_vr_step(&b, wa, mu, eta, l2, l1, 0, 4, inc, NULL);
    for (int j = 0; j < 4; j++)
        ck_assert(fabs(inc[j] - (soft(wa[j] - eta * mu[j], eta * l1) / (1 + eta * l2) - wa[j])) <=
                  1e-15);
    logreg_batch_release(&b);
}
END_TEST

/* method = svrg: a constant step reaches the reference minimizer itself
 * (not only SGD's neighbourhood of it), on 1 and 2 workers, stale reads
 * included. */
START_TEST(test_svrg_runs)
{
    int ri = _i % NRUN, rest = _i / NRUN, li = rest % NPEN, pi = rest / NPEN;
    int P = run_rows[ri].P, S = run_rows[ri].s;
    struct problem pb;
    problem_load(pi, &pb);
    double l2 = pen_rows[li].l2, l1 = l1_of(&pb, li);
    int64_t d = pb.d;
    double *ref = dvec(d);
    reference(&pb, l2, l1, ref);
    double f_ref = objective_ref(&pb, ref, l2, l1);
    struct sim s;
    sim_init(&s, &pb, P, S, l2, l1);
    double L = lipschitz_ref(&pb, l2);
    s.vr = true;
    s.eta_vr = VR_STEP / L;
    double gm0 = gmap_ref(&pb, s.master, l2, l1, L), f = sim_objective(&s), worst_rise = 0;
    int e;
    for (e = 0; e < VR_SWEEPS; e++) {
        for (int64_t k = 0; k < s.per_sweep; k++)
            sim_clock(&s);
        double fn = sim_objective(&s);
        worst_rise = fmax(worst_rise, (fn - f) / f);
        f = fn;
        if (gmap_ref(&pb, s.master, l2, l1, L) <= 1e-10)
            break;
    }
    double diff = 0, gm = gmap_ref(&pb, s.master, l2, l1, L), v = kkt_ref(&pb, s.master, l2, l1);
    for (int64_t j = 0; j < d; j++)
        diff = fmax(diff, fabs(s.master[j] - ref[j]));
    if (tu_verbose())
        printf("svrg %-9s l2 %g l1 %g P=%d s=%d: %d sweeps, F %.10f (reference %.10f), rise %.1e, "
               "gradient map %.1e (start %.1e), KKT %.1e, |w - reference| %.1e\n",
               problems[pi].name, l2, l1, P, S, e + 1, f, f_ref, worst_rise, gm, gm0, v, diff);
    fflush(stdout);
    ck_assert_msg(worst_rise <= 1e-13, "the objective rose by %g", worst_rise);
    ck_assert_msg(gm <= 1e-10, "gradient mapping %g (start %g)", gm, gm0);
    ck_assert_msg(l1 > 0 || v <= 1e-9, "KKT %g", v);
    ck_assert_msg(diff <= 1e-7, "|w - reference| = %g", diff);
    ck_assert_msg(f - f_ref <= 1e-12 * f_ref, "F %.15g, reference %.15g", f, f_ref);
    sim_release(&s);
    free(ref);
    problem_release(&pb);
}
END_TEST

/* ---- allocation failure ------------------------------------------------------------ */

START_TEST(test_fault)
{
    struct logreg_batch b;
    int rc;
    for (unsigned long nth = 1;; nth++) {
        ptm_fault_inject(nth);
        rc = logreg_batch_init(&b, 1000);
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM)
            break;
        ck_assert_ptr_null(b.g);
        ck_assert_ptr_null(b.touched);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(b.d, 1000);
    logreg_batch_release(&b);
}
END_TEST

/* ---- trust-region Newton (method = tron) -------------------------------------------- */

/* The training rows in P shards, as the rule sums them: each shard's
 * sums of a pass, then the shards in order. cols = d (+ 1 with the
 * intercept, its values last). */
struct tsim {
    const struct problem *pb;
    int P;
    double l2;
    bool ib;
    int64_t cols;
    double *D[2];
    int cur;
    double *z; /* 2 cols + 1 */
    int passes;
};

static void tsim_shard(const struct tsim *t, int p, int64_t *lo, int64_t *hi)
{
    *lo = t->pb->n * p / t->P;
    *hi = t->pb->n * (p + 1) / t->P;
}

static int tsim_fgd(void *ud, const double *w, double *f, double *g, double *diag)
{
    struct tsim *t = ud;
    int64_t c = t->cols, d = t->pb->d;
    double *sum = calloc((size_t)(2 * c + 1), sizeof(double)), n = (double)t->pb->n, sq = 0;
    for (int p = 0; p < t->P; p++) {
        int64_t lo, hi;
        tsim_shard(t, p, &lo, &hi);
        memset(t->z, 0, (size_t)(2 * c + 1) * sizeof(double));
        t->z[2 * c] = logreg_newton_part(t->pb->x, t->pb->y, lo, hi, w, t->ib ? w + d : NULL,
                                         t->D[!t->cur], t->z, t->ib ? t->z + 2 * d : NULL);
        for (int64_t j = 0; j < 2 * c + 1; j++)
            sum[j] += t->z[j];
    }
    for (int64_t j = 0; j < c; j++) {
        double l2 = j < d ? t->l2 : 0;
        g[j] = sum[2 * j] / n + l2 * w[j];
        diag[j] = sum[2 * j + 1] / n + l2;
    }
    for (int64_t j = 0; j < d; j++)
        sq += w[j] * w[j];
    *f = sum[2 * c] / n + 0.5 * t->l2 * sq;
    free(sum);
    t->passes++;
    return 0;
}

static int tsim_hv(void *ud, const double *v, double *out)
{
    struct tsim *t = ud;
    int64_t c = t->cols, d = t->pb->d;
    memset(out, 0, (size_t)c * sizeof(double));
    for (int p = 0; p < t->P; p++) {
        int64_t lo, hi;
        tsim_shard(t, p, &lo, &hi);
        memset(t->z, 0, (size_t)c * sizeof(double));
        logreg_hv_part(t->pb->x, lo, hi, t->D[t->cur], v, t->ib ? v + d : NULL, t->z,
                       t->ib ? t->z + d : NULL);
        for (int64_t j = 0; j < c; j++)
            out[j] += t->z[j];
    }
    for (int64_t j = 0; j < c; j++)
        out[j] = out[j] / (double)t->pb->n + (j < d ? t->l2 * v[j] : 0);
    t->passes++;
    return 0;
}

static void tsim_take(void *ud)
{
    ((struct tsim *)ud)->cur ^= 1;
}

/* The gradient of F (with the intercept last when ib) at w, by the
 * first-order pass. */
static void grad_full(const struct problem *pb, const double *w, bool ib, double l2, double *g)
{
    int64_t d = pb->d;
    memset(g, 0, (size_t)(d + ib) * sizeof(double));
    logreg_grad_part(pb->x, pb->y, 0, pb->n, w, g, ib ? w + d : NULL, ib ? g + d : NULL);
    for (int64_t j = 0; j < d + ib; j++)
        g[j] = g[j] / (double)pb->n + (j < d ? l2 * w[j] : 0);
}

/* The Hessian-vector product of the kernel against central differences
 * of the gradient (the first-order pass), with and without the
 * intercept, at a point away from 0. */
START_TEST(test_hv_differences)
{
    struct problem pb;
    problem_load(0, &pb);
    int64_t d = pb.d;
    for (int ib = 0; ib <= 1; ib++) {
        int64_t c = d + ib;
        double *w = dvec(c), *v = dvec(c), *hv = dvec(c), *gp = dvec(c), *gm = dvec(c), *wp = dvec(c);
        double *D = dvec(pb.n), *gh = dvec(2 * c), l2 = 1e-3, eps = 1e-5;
        for (int64_t j = 0; j < c; j++) {
            w[j] = 0.3 * sin(1.0 + (double)j);
            v[j] = cos(2.0 * (double)j);
        }
        double loss = logreg_newton_part(pb.x, pb.y, 0, pb.n, w, ib ? w + d : NULL, D, gh,
                                         ib ? gh + 2 * d : NULL);
        /* its loss and gradient against the first-order pass's */
        double want_loss = logreg_loss_part(pb.x, pb.y, 0, pb.n, w, ib ? w + d : NULL);
        ck_assert_msg(fabs(loss - want_loss) <= 1e-12 * fabs(want_loss), "loss %.17g vs %.17g",
                      loss, want_loss);
        grad_full(&pb, w, ib, 0, gp);
        for (int64_t j = 0; j < c; j++)
            ck_assert_msg(fabs(gh[2 * j] / (double)pb.n - gp[j]) <= 1e-12 * (1 + fabs(gp[j])),
                          "intercept %d: gradient %lld: %g vs %g", ib, (long long)j,
                          gh[2 * j] / (double)pb.n, gp[j]);
        logreg_hv_part(pb.x, 0, pb.n, D, v, ib ? v + d : NULL, hv, ib ? hv + d : NULL);
        for (int64_t j = 0; j < c; j++)
            wp[j] = w[j] + eps * v[j];
        grad_full(&pb, wp, ib, l2, gp);
        for (int64_t j = 0; j < c; j++)
            wp[j] = w[j] - eps * v[j];
        grad_full(&pb, wp, ib, l2, gm);
        double worst = 0, scale = 0;
        for (int64_t j = 0; j < c; j++) {
            double want = (gp[j] - gm[j]) / (2 * eps);
            double got = hv[j] / (double)pb.n + (j < d ? l2 * v[j] : 0);
            worst = fmax(worst, fabs(got - want));
            scale = fmax(scale, fabs(want));
        }
        ck_assert_msg(worst <= 1e-6 * (1 + scale), "intercept %d: |Hv - differences| %g (scale %g)",
                      ib, worst, scale);
        /* the diagonal: e_j' H e_j for a few j, by the product */
        for (int64_t j = 0; j < c; j += c / 7 + 1) {
            memset(v, 0, (size_t)c * sizeof(double));
            memset(hv, 0, (size_t)c * sizeof(double));
            v[j] = 1;
            logreg_hv_part(pb.x, 0, pb.n, D, v, ib ? v + d : NULL, hv, ib ? hv + d : NULL);
            ck_assert_msg(fabs(hv[j] - gh[2 * j + 1]) <= 1e-12 * (1 + fabs(gh[2 * j + 1])),
                          "diagonal %lld: %g vs %g", (long long)j, gh[2 * j + 1], hv[j]);
        }
        double *used[] = {w, v, hv, gp, gm, wp, D, gh};
        for (size_t k = 0; k < PTM_ARRAY_LEN(used); k++)
            free(used[k]);
    }
    problem_release(&pb);
}
END_TEST

/* Runs: P shards, intercept. */
static const struct {
    int P;
    bool ib;
} tron_rows[] = {{1, false}, {3, false}, {2, true}};

#define NTRON ((int)PTM_ARRAY_LEN(tron_rows))

/* TRON over P shards reaches the optimality conditions and the minimizer
 * (Newton's with a dense Hessian, computed here) within what they allow
 * (F is l2-strongly convex: |w - w*| <= |grad F(w)| / l2, 2-norms), and its
 * objective never rises from one iteration to the next. */
START_TEST(test_tron_runs)
{
    int pi = _i / NTRON, ri = _i % NTRON;
    struct problem pb;
    problem_load(pi, &pb);
    double l2 = pen_rows[0].l2;
    ck_assert(pen_rows[0].l1_frac == 0);
    int64_t d = pb.d;
    struct tsim t = {.pb = &pb, .P = tron_rows[ri].P, .l2 = l2, .ib = tron_rows[ri].ib};
    t.cols = d + t.ib;
    t.D[0] = dvec(pb.n);
    t.D[1] = dvec(pb.n);
    t.z = dvec(2 * t.cols + 1);
    double *w0 = dvec(t.cols), *floor = dvec(t.cols), *g = dvec(t.cols), *ref = dvec(d);
    for (int64_t j = 0; j < d; j++)
        floor[j] = l2;
    struct tron_fun fn = {.ud = &t, .n = t.cols, .fgd = tsim_fgd, .hv = tsim_hv, .take = tsim_take,
                          .floor = floor};
    struct tron tr;
    ck_assert_int_eq(tron_init(&tr, &fn, w0), 0);
    double f_prev = INFINITY;
    int it;
    for (it = 0; it < 60 && !tr.done; it++) {
        ck_assert_int_eq(tron_iterate(&tr), 0);
        EXPECT(tr.f <= f_prev + 8 * DBL_EPSILON * fabs(f_prev)); /* rounding */
        f_prev = tr.f;
    }
    ck_assert_msg(tr.done, "not converged in %d iterations", it);
    logreg_grad_part(pb.x, pb.y, 0, pb.n, tr.w, memset(g, 0, (size_t)t.cols * sizeof(double)),
                     t.ib ? tr.w + d : NULL, t.ib ? g + d : NULL);
    double v = logreg_kkt(g, tr.w, d, pb.n, l2, 0, NULL, t.ib ? g + d : NULL);
    double diff = 0, bound = 0;
    if (!t.ib) {
        newton_ref(&pb, l2, ref);
        for (int64_t j = 0; j < d; j++) {
            double gj = g[j] / (double)pb.n + l2 * tr.w[j];
            diff += (tr.w[j] - ref[j]) * (tr.w[j] - ref[j]);
            bound += gj * gj;
        }
        diff = sqrt(diff);
        bound = sqrt(bound) / l2 + 1e-9; /* and the reference's own error */
    }
    if (tu_verbose())
        printf("tron %-9s P=%d intercept %d: %d iterations (%lld taken), %lld CG steps, %d passes, "
               "KKT %.1e, |w - reference| %.1e\n", problems[pi].name, t.P, t.ib, it,
               (long long)tr.iters, (long long)tr.cg, t.passes, v, diff);
    ck_assert_msg(v <= 1e-9, "KKT %g", v);
    ck_assert_msg(diff <= bound, "|w - reference| %g > %g", diff, bound);
    /* once done, an iteration does nothing */
    double f = tr.f;
    int passes = t.passes;
    ck_assert_int_eq(tron_iterate(&tr), 0);
    ck_assert(tr.f == f && t.passes == passes);
    tron_free(&tr);
    double *used[] = {t.D[0], t.D[1], t.z, w0, floor, g, ref};
    for (size_t k = 0; k < PTM_ARRAY_LEN(used); k++)
        free(used[k]);
    problem_release(&pb);
}
END_TEST

/* A TRON over tsim t (set up as test_tron_runs does), from w = 0. */
static void tsim_tron(struct tsim *t, const struct problem *pb, int P, double *floor,
                      struct tron *tr)
{
    *t = (struct tsim){.pb = pb, .P = P, .l2 = pen_rows[0].l2, .ib = true};
    t->cols = pb->d + 1;
    t->D[0] = dvec(pb->n);
    t->D[1] = dvec(pb->n);
    t->z = dvec(2 * t->cols + 1);
    for (int64_t j = 0; j < pb->d; j++)
        floor[j] = t->l2;
    double *w0 = dvec(t->cols);
    struct tron_fun fn = {
        .ud = t, .n = t->cols, .fgd = tsim_fgd, .hv = tsim_hv, .take = tsim_take, .floor = floor};
    ck_assert_int_eq(tron_init(tr, &fn, w0), 0);
    free(w0);
}

static void tsim_free(struct tsim *t, struct tron *tr)
{
    tron_free(tr);
    free(t->D[0]);
    free(t->D[1]);
    free(t->z);
}

/* The state a rule over TRON saves: tron_state, then D at the point taken
 * (as rule_logreg.c does). */
static int tsim_state(struct tsim *t, struct tron *tr, FILE *f, bool load)
{
    struct ptm_ckpt ck = {.f = f, .load = load};
    tron_state(tr, &ck);
    PTM_CK(&ck, t->cur);
    PTM_CK_ARRAY(&ck, t->D[t->cur], t->pb->n);
    return ck.err;
}

/* tron_state: TRON saved after a few iterations and loaded into one set up
 * afresh goes on bit for bit as the one never stopped, to the same
 * minimizer in as many iterations; restarted from the saved point alone
 * (its radius and counters lost), it takes another path. A checkpoint of
 * another size fails to load. */
START_TEST(test_tron_state)
{
    enum { BEFORE = 2 };
    struct problem pb;
    problem_load(0, &pb);
    int64_t c = pb.d + 1;
    double *floor = dvec(c), *wk = dvec(c);
    struct tsim ta, tb, tc;
    struct tron a, b, r;
    tsim_tron(&ta, &pb, 2, floor, &a);
    for (int it = 0; it < BEFORE; it++)
        ck_assert_int_eq(tron_iterate(&a), 0);
    ck_assert(!a.done && a.iters == BEFORE);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(tsim_state(&ta, &a, f, false), 0);
    memcpy(wk, a.w, (size_t)c * sizeof(double));
    int passes = ta.passes;
    int64_t cg = a.cg;

    tsim_tron(&tb, &pb, 2, floor, &b);
    rewind(f);
    ck_assert_int_eq(tsim_state(&tb, &b, f, true), 0);
    ck_assert_int_eq(fgetc(f), EOF);
    struct tron_fun fn = {
        .ud = &tc, .n = c, .fgd = tsim_fgd, .hv = tsim_hv, .take = tsim_take, .floor = floor};
    tsim_tron(&tc, &pb, 2, floor, &r);
    tron_free(&r);
    ck_assert_int_eq(tron_init(&r, &fn, wk), 0);

    for (int it = 0; it < 60 && !(a.done && b.done && r.done); it++) {
        ck_assert_int_eq(tron_iterate(&a), 0);
        ck_assert_int_eq(tron_iterate(&b), 0);
        ck_assert_int_eq(tron_iterate(&r), 0);
    }
    ck_assert(a.done && b.done);
    ck_assert(memcmp(a.w, b.w, (size_t)c * sizeof(double)) == 0);
    ck_assert(a.f == b.f && a.delta == b.delta && a.iters == b.iters && a.cg == b.cg &&
              a.rejected == b.rejected);
    ck_assert_int_eq(tb.passes, ta.passes - passes); /* no pass made again */
    ck_assert(r.done);
    ck_assert(memcmp(a.w, r.w, (size_t)c * sizeof(double)) != 0 || r.cg != a.cg - cg);
    tsim_free(&tc, &r);

    /* another size: the tag matches, the size does not */
    struct tsim td;
    struct tron d;
    tsim_tron(&td, &pb, 2, floor, &d);
    d.fn.n = c - 1;
    rewind(f);
    struct ptm_ckpt ck = {.f = f, .load = true};
    tron_state(&d, &ck);
    ck_assert_int_eq(ck.err, PTM_EDATA);
    d.fn.n = c;
    tsim_free(&td, &d);

    fclose(f);
    tsim_free(&ta, &a);
    tsim_free(&tb, &b);
    free(floor);
    free(wk);
    problem_release(&pb);
}
END_TEST

/* ---- the suite -------------------------------------------------------------------- */

static Suite *logreg_suite(void)
{
    Suite *s = suite_create("logreg");
    TCase *tc;

    tc = tcase_create("kernel");
    tcase_add_test(tc, test_loss_rows);
    tcase_add_test(tc, test_step_by_hand);
    tcase_add_test(tc, test_vr_by_hand);
    tcase_add_loop_test(tc, test_kkt_rows, 0, (int)PTM_ARRAY_LEN(kkt_rows));
    tcase_add_test(tc, test_fault);
    tcase_add_test(tc, test_hv_differences);
    tcase_add_test(tc, test_tron_state);
    suite_add_tcase(s, tc);

    tc = tcase_create("solve");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_full_batch, 0, NPROB * NPEN);
    tcase_add_loop_test(tc, test_sgd_runs, 0, NPROB * NPEN * NRUN);
    tcase_add_loop_test(tc, test_svrg_runs, 0, NPROB * NPEN * NRUN);
    tcase_add_loop_test(tc, test_tron_runs, 0, NPROB * NTRON);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-logreg.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_logreg: temporary directory");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(logreg_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
