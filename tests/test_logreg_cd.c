/*
 * test_logreg_cd.c - `ptm run` of update builtin logreg_cd (L1 logistic
 * regression by coordinate descent, runtime/models/logreg/rule_logreg_cd.c)
 * under the dynamic, round_robin and random policies, within = parallel
 * and sequential, on 1 and 2 workers, on data from `ptm gen logreg` and
 * `ptm gen logreg --hard`, with an intercept.
 *
 * DESIGN: each run is checked by the optimality conditions of
 *
 *     F(w, b) = 1/n sum log(1 + exp(-y_i (x_i . w + b))) + (l2/2) |w|^2 + l1 |w|_1
 *
 * computed here from the rows of the file (not from the rule's margins):
 * with G_j the derivative of the smooth part in w_j, |G_j| <= l1 where
 * w_j = 0 and G_j = -l1 sign(w_j) elsewhere, and the derivative in b is 0,
 * each to 1e-6 l1. The objective's history must be finite and never rise
 * (damped rounds and CDN's line search both promise it), and the answer
 * must hold zeros and non-zeros (l1 is chosen so that it does).
 * within = sequential on 2 workers runs once as a job does (its rounds,
 * of fewer non-zeros than split_min, on the first worker alone) and once
 * with split_min = 0 (every round of more non-zeros than X has rows is
 * split and damped). The first must give the weights 1 worker gives, to
 * the bit: the same steps in the same order.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
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
#include "gen_logreg.h"
#include "kernel_logreg_cd.h"
#include "plan.h"
#include "ptm.h"
#include "testutil.h"

/* The two problems, generated and read in main() before the tests fork. */
static const char *const dirs[] = {"easy", "hard"};
static struct ptm_dataset *probs[2];
/* The penalties of each problem: the easy one with an L2 part too. */
static const double l1s[] = {0.003, 0.0005}, l2s[] = {1e-3, 0};

static const char *const schedules[] = {
    "dynamic { sample 60, active, balance }",
    "round_robin { per_round 50 }",
    "random { per_round 20 }",
};
/* how a worker goes through its share, and on how many workers */
static const struct {
    const char *within;
    int P;
} ways[] = {
    {"parallel", 1},
    {"parallel", 2},
    {"sequential", 1},
    {"sequential", 2},
    {"sequential, split_min = 0", 2},
};
#define NWAYS (sizeof(ways) / sizeof(ways[0]))

static char job_text[4096];

static void make_job(int prob, const char *schedule, const char *within, int sweeps)
{
    snprintf(job_text, sizeof(job_text),
             "job t\n"
             "data X : sparse matrix from \"%s/train.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param w : vector[cols(X)] = 0\n"
             "param b : vector[1] = 0\n"
             "blocks coef = w each 1\n"
             "priority coef(j) = abs(delta(w[j]))\n"
             "schedule %s\n"
             "update builtin logreg_cd { l1 = %.17g, l2 = %.17g, intercept = b, within = %s }\n"
             "objective builtin logloss { l1 = %.17g, l2 = %.17g, intercept = b } every 5 sweeps\n"
             "stop when sweeps >= %d\n",
             dirs[prob], schedule, l1s[prob], l2s[prob], within, l1s[prob], l2s[prob], sweeps);
}

/* The largest violation of the optimality conditions at (w, b), over l1,
 * from the rows of X; the weights' and the intercept's apart. */
static void kkt(const struct ptm_dataset *X, const double *w, double b, double l1, double l2,
                double *worst_w, double *worst_b)
{
    const struct ptm_csr *x = &X->csr;
    int64_t n = x->nrows, d = x->ncols;
    double *g = calloc((size_t)d, sizeof(double)), gb = 0;
    ck_assert_ptr_nonnull(g);
    for (int64_t i = 0; i < n; i++) {
        double m = b, y = X->labels.val[i] > 0 ? 1 : -1;
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            m += x->val[e] * w[x->colind[e]];
        double s = 1 / (1 + exp(y * m)); /* the probability of the wrong label */
        for (int64_t e = x->rowptr[i]; e < x->rowptr[i + 1]; e++)
            g[x->colind[e]] -= y * s * x->val[e];
        gb -= y * s;
    }
    double most = 0;
    for (int64_t j = 0; j < d; j++) {
        double G = g[j] / (double)n + l2 * w[j];
        double v = w[j] == 0 ? fmax(0, fabs(G) - l1) : fabs(G + (w[j] > 0 ? l1 : -l1));
        most = fmax(most, v);
    }
    free(g);
    *worst_w = most / l1;
    *worst_b = fabs(gb / (double)n) / l1;
}

/* Run the job on P workers; w (d values), b and the rounds damped out,
 * the history checked. */
static void run_job(int P, double *w, int64_t d, double *b, int64_t *damped)
{
    struct ptm_plan *plan = tu_compile("t.ptm", job_text, ".", true);
    struct ptm_run_opts o = {.workers = P};
    struct ptm_run *run = tu_run_new(plan, &o);
    char err[512];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_msg(rc == 0, "ptm_run_exec: %s", err);
    ck_assert_int_eq(ptm_run_param(run, 0, w, d), d);
    ck_assert_int_eq(ptm_run_param(run, 1, b, 1), 1);
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_uint_ge(nh, 2);
    for (size_t k = 0; k < nh; k++) {
        ck_assert_msg(isfinite(h[k]), "objective %zu is %g", k, h[k]);
        if (k > 0)
            ck_assert_msg(h[k] <= h[k - 1] * (1 + 1e-12), "objective rose at evaluation %zu: "
                          "%.17g after %.17g", k, h[k], h[k - 1]);
    }
    for (int64_t j = 0; j < d; j++)
        ck_assert_msg(isfinite(w[j]), "w[%lld] is %g", (long long)j, w[j]);
    ck_assert(isfinite(*b));
    struct ptm_run_stats st;
    ptm_run_stats(run, &st);
    *damped = st.damped;
    ptm_run_free(run);
    plan_free(plan);
}

#define NCASES (2 * 3 * (int)NWAYS)

/* The intercept's step from the kept exps (lcd_bias_step_own) is the step
 * lcd_bias_step computes from the margins, and leaves m and q as they
 * would be recomputed: labels of both signs, margins from -30 to 30. */
START_TEST(test_bias_own)
{
    enum { N = 1000 };
    static double m[N], m2[N], q[N], ys[N], s[N];
    for (int i = 0; i < N; i++) {
        ys[i] = (i * 7 % 3) ? 1 : -1;
        m[i] = m2[i] = -30 + 60.0 * ((i * 37) % N) / N + 0.4; /* off the optimum */
    }
    lcd_exps(N, m, ys, q);
    double c = lcd_bias_step(N, m2, ys, N, s);
    double c2 = lcd_bias_step_own(N, m, q, N, s);
    ck_assert(c != 0);
    ck_assert_msg(fabs(c - c2) <= 1e-12 * fabs(c), "step %.17g, from the exps %.17g", c, c2);
    for (int i = 0; i < N; i++) {
        ck_assert(fabs(m[i] - (m2[i] + c)) <= 1e-12 * (1 + fabs(m[i])));
        double want = ys[i] * exp(-ys[i] * m[i]);
        ck_assert_msg(fabs(q[i] - want) <= 1e-12 * fabs(want), "row %d: q %.17g, exp %.17g", i, q[i],
                      want);
    }
}
END_TEST

START_TEST(test_kkt)
{
    int prob = _i / (3 * (int)NWAYS), sched = _i / (int)NWAYS % 3, way = _i % (int)NWAYS;
    int P = ways[way].P;
    const char *within = ways[way].within;
    const struct ptm_dataset *X = probs[prob];
    int64_t d = X->csr.ncols;
    make_job(prob, schedules[sched], within, prob == 0 ? 100 : 500);
    double *w = calloc((size_t)d, sizeof(double)), b = 0;
    ck_assert_ptr_nonnull(w);
    int64_t damped;
    run_job(P, w, d, &b, &damped);
    double vw, vb;
    kkt(X, w, b, l1s[prob], l2s[prob], &vw, &vb);
    int64_t nz = 0;
    for (int64_t j = 0; j < d; j++)
        nz += w[j] != 0;
    if (tu_verbose())
        printf("%s %-40s %-10s P=%d: KKT/l1 %.2e (w), %.2e (b); %lld of %lld non-zero\n",
               dirs[prob], schedules[sched], within, P, vw, vb, (long long)nz,
               (long long)d);
    ck_assert_msg(vw <= 1e-6 && vb <= 1e-6, "%s, %s, within = %s, %d workers: the optimality "
                  "conditions are violated by %.3g l1 (weights), %.3g l1 (intercept)",
                  dirs[prob], schedules[sched], within, P, vw, vb);
    ck_assert(nz > 0 && nz < d);
    free(w);
}
END_TEST

/* within = sequential: 2 workers give 1 worker's weights and intercept,
 * bit for bit, and the run of 2 took no damped round. */
START_TEST(test_two_as_one)
{
    int prob = _i / 3, sched = _i % 3;
    int64_t d = probs[prob]->csr.ncols;
    make_job(prob, schedules[sched], "sequential", 20);
    double *w1 = calloc((size_t)d, sizeof(double)), *w2 = calloc((size_t)d, sizeof(double));
    double b1 = 0, b2 = 0;
    int64_t damped1, damped2;
    ck_assert(w1 && w2);
    run_job(1, w1, d, &b1, &damped1);
    run_job(2, w2, d, &b2, &damped2);
    ck_assert_msg(damped1 == 0 && damped2 == 0, "damped rounds: %lld on 1 worker, %lld on 2",
                  (long long)damped1, (long long)damped2);
    int64_t differ = 0;
    for (int64_t j = 0; j < d; j++)
        differ += memcmp(&w1[j], &w2[j], sizeof(double)) != 0;
    ck_assert_msg(differ == 0 && memcmp(&b1, &b2, sizeof(double)) == 0,
                  "%s, %s: 2 workers' weights differ from 1 worker's in %lld of %lld places "
                  "(intercept %.17g and %.17g)", dirs[prob], schedules[sched], (long long)differ,
                  (long long)d, b1, b2);
    int64_t nz = 0;
    for (int64_t j = 0; j < d; j++)
        nz += w1[j] != 0;
    ck_assert(nz > 0 && nz < d);
    free(w1);
    free(w2);
}
END_TEST

static Suite *logreg_cd_suite(void)
{
    Suite *s = suite_create("logreg_cd");
    TCase *tc = tcase_create("kkt");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bias_own);
    tcase_add_loop_test(tc, test_kkt, 0, NCASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("workers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_two_as_one, 0, 2 * 3);
    suite_add_tcase(s, tc);
    return s;
}

static int setup(void)
{
    for (int k = 0; k < 2; k++) {
        struct gen_logreg_opts o;
        ptm_gen_logreg_defaults(&o);
        o.seed = 7;
        o.rows = 2000;
        o.cols = 300;
        o.density = 0.05;
        o.nonzeros = 30;
        o.hard = k == 1;
        const char *file;
        if (mkdir(dirs[k], 0777) != 0 || ptm_gen_logreg(&o, dirs[k], &file) != 0)
            return -1;
        char path[64];
        snprintf(path, sizeof(path), "%s/train.svm", dirs[k]);
        struct ptm_data_opts dopt = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        int rc = ptm_data_read(path, &dopt, &dg, &probs[k]);
        ptm_data_diags_release(&dg);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-logreg-cd.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_logreg_cd: temporary directory");
        return EXIT_FAILURE;
    }
    if (setup() != 0) {
        fprintf(stderr, "test_logreg_cd: cannot make the test problems\n");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(logreg_cd_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int k = 0; k < 2; k++)
        ptm_dataset_free(probs[k]);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
