/*
 * test_engine.c - `ptm run` for the Lasso (runtime/engine/): a job spec
 * compiled and run on 1, 2 and 3 worker threads, with the built-in kernel
 * (within = parallel and sequential) and with examples/lasso/lasso.lua,
 * under round_robin and random; the plans the engine refuses at set-up, a
 * missing data file, and Lua hooks that misbehave in every way a job from
 * someone else could.
 *
 * DESIGN: one problem is generated (ptm_gen_lasso) into the temporary
 * directory that is the tests' working directory; lambda is a tenth of
 * lambda_max so that the solution has zeros and non-zeros. Each run is
 * checked against criteria computed here another way: the KKT conditions
 * with a gradient from the whole matrix, the serial reference solver
 * (lasso_solve_serial) as a second route to the unique minimizer, an
 * objective history that never rises, and the output file read back. One
 * worker twice must give the same bits, and so must a plan that went
 * through YAML and back.
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
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "data.h"
#include "diag.h"
#include "engine.h"
#include "gen.h"
#include "gen_lasso.h"
#include "kernel_lasso.h"
#include "plan.h"
#include "plan_load.h"
#include "plan_yaml.h"
#include "ptm.h"
#include "testutil.h"

/* The problem, read once in main() before the tests fork. */
static struct ptm_dataset *prob;
static const struct ptm_csc *prob_csc;
static double lambda;
static char job_text[16384];
static const char *data_file = "prob/lasso.svm"; /* what make_job_with reads */
/* The same rows with every value made non-negative: uncentred data, on
 * which coordinates interfere far more than their correlations say. */
static struct ptm_dataset *nonneg, *spread;
static const struct ptm_csc *nonneg_csc, *spread_csc;
static double nonneg_lambda;
/* The spread problem with 10 added to every label, and its lambda: a
 * model without an intercept is far from it. */
static struct ptm_dataset *offset;
static const struct ptm_csc *offset_csc;
static double offset_lambda;
static char example_lua[4096]; /* absolute path of examples/lasso/lasso.lua */

/* The rules and schedules a job runs under. */
enum rule { BUILTIN, LUA, SEQUENTIAL }; /* SEQUENTIAL: lasso_cd with within = sequential */

/* lasso_cd's options under within = parallel (BUILTIN): its rounds
 * split among the workers (split_min = 0), on the first alone (the default
 * on these few non-zeros), or both (split_min between). */
static const char *rows_split = ", split_min = 0";

static void make_job_with(enum rule rule, const char *schedule, const char *lua)
{
    char update[4200], objective[4200];
    if (rule != LUA) {
        snprintf(update, sizeof(update), "update builtin lasso_cd { lambda = lambda%s }",
                 rule == SEQUENTIAL ? ", within = sequential, split_min = 0" : rows_split);
        snprintf(objective, sizeof(objective), "objective builtin lasso_objective { lambda = lambda }");
    } else {
        snprintf(update, sizeof(update), "update lua \"%s\"", lua);
        snprintf(objective, sizeof(objective), "objective lua \"%s\" \"objective\"", lua);
    }
    snprintf(job_text, sizeof(job_text),
             "job t\n"
             "const lambda = %.17g\n"
             "data X : sparse matrix from \"%s\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param beta : vector[cols(X)] = 0\n"
             "param r    : vector[rows(X)] = y shard like X\n"
             "blocks coef = beta each 1\n"
             "schedule %s\n"
             "%s\n"
             "%s every 1 sweeps\n"
             "stop when sweeps >= 300 or rel_change(objective) < 1e-13\n"
             "output beta to \"beta.tsv\"\n",
             lambda, data_file, schedule, update, objective);
}

static void make_job(void)
{
    make_job_with(BUILTIN, "round_robin", NULL);
}

/* Replace the job's stop rule by `stop when sweeps >= N`. */
static void stop_after(int sweeps)
{
    char *stop = strstr(job_text, "stop when");
    ck_assert_ptr_nonnull(stop);
    const char *rest = strchr(stop, '\n');
    char tail[256];
    snprintf(tail, sizeof(tail), "%s", rest);
    snprintf(stop, sizeof(job_text) - (size_t)(stop - job_text), "stop when sweeps >= %d%s", sweeps,
             tail);
}

/* Parse and compile job_text; the plan or a failed test. */
static struct ptm_plan *compile_job(void)
{
    return tu_compile("t.ptm", job_text, ".", true);
}

/* Run plan on P workers; beta (cols of the problem) out, the run kept in
 * *runp when runp is not NULL. */
static void run_plan(const struct ptm_plan *plan, int P, double *beta, struct ptm_run **runp)
{
    struct ptm_run_opts o = {.workers = P, .lua_seconds = 600};
    struct ptm_run *run = tu_run_new(plan, &o);
    char err[512];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_msg(rc == 0, "ptm_run_exec: %s", err);
    int64_t d = prob_csc->ncols;
    ck_assert_int_eq(ptm_run_param(run, 0, beta, d), d);
    if (runp)
        *runp = run;
    else
        ptm_run_free(run);
}

/* Each rule under each schedule on 1, 2 and 3 workers. random updates two
 * coefficients a round: the problem's correlated groups do not make that
 * diverge. */
static const struct {
    enum rule rule;
    const char *schedule;
    int P;
} solves[] = {
    {BUILTIN, "round_robin", 1}, {BUILTIN, "round_robin", 2}, {BUILTIN, "round_robin", 3},
    /* 400 rows are 2 chunks of the rule's: 4 workers leave some without rows */
    {BUILTIN, "random { per_round 40 }", 4}, {SEQUENTIAL, "round_robin { per_round 150 }", 4},
    {LUA, "round_robin", 1},     {LUA, "round_robin", 2},     {LUA, "round_robin", 3},
    {BUILTIN, "random { per_round 2 }", 2}, {LUA, "random { per_round 2 }", 3},
    {SEQUENTIAL, "round_robin { per_round 16 }", 1},
    {SEQUENTIAL, "round_robin { per_round 16 }", 2},
    {SEQUENTIAL, "round_robin { per_round 150 }", 3},
    {SEQUENTIAL, "round_robin { per_round 40 }", 2}, /* rounds of more non-zeros than rows */
    {SEQUENTIAL, "random { per_round 8 }", 2}, {SEQUENTIAL, "random { per_round 8 }", 1},
};

static const char *const rule_names[] = {"builtin", "lua", "sequential"};

START_TEST(test_solves_lasso)
{
    int P = solves[_i].P;
    int64_t n = prob_csc->nrows, d = prob_csc->ncols;
    make_job_with(solves[_i].rule, solves[_i].schedule, example_lua);
    /* coefficients drawn at random may all but stand still for a sweep,
     * which can meet rel_change < 1e-13 short of the optimum: a fixed
     * number of sweeps instead */
    if (strstr(solves[_i].schedule, "random"))
        stop_after(200);
    struct ptm_plan *plan = compile_job();
    make_job();
    double *beta = calloc((size_t)d, sizeof(double));
    double *ref = calloc((size_t)d, sizeof(double));
    double *r = calloc((size_t)n, sizeof(double));
    double *g = calloc((size_t)d, sizeof(double));
    ck_assert(beta && ref && r && g);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct ptm_run *run;
    run_plan(plan, P, beta, &run);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    /* KKT from the whole matrix */
    lasso_residual(prob_csc, prob->labels.val, beta, r);
    lasso_grad_part(prob_csc, r, g);
    double kkt = lasso_kkt(g, beta, d, n, lambda, NULL);
    ck_assert_msg(kkt < 1e-6, "P=%d: KKT residual %g", P, kkt);

    /* the serial solver reaches the same minimizer */
    ck_assert_int_gt(lasso_solve_serial(prob_csc, prob->labels.val, lambda, 1e-13, 100000, ref), 0);
    double worst = 0;
    int64_t nz = 0;
    for (int64_t j = 0; j < d; j++) {
        worst = fmax(worst, fabs(beta[j] - ref[j]));
        nz += beta[j] != 0;
    }
    ck_assert_msg(worst < 1e-6, "P=%d: max |beta - serial| = %g", P, worst);
    ck_assert_msg(nz > 0 && nz < d, "P=%d: %lld non-zeros of %lld", P, (long long)nz, (long long)d);

    /* the objective never rises */
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_uint_ge(nh, 3);
    for (size_t k = 1; k < nh; k++)
        if (!(h[k] <= h[k - 1] + 1e-14 * fabs(h[k - 1])))
            ck_abort_msg("P=%d: objective rose from %.17g to %.17g at evaluation %zu", P, h[k - 1],
                         h[k], k);

    /* the output, read back, is beta */
    char err[512];
    ck_assert_int_eq(ptm_run_write_outputs(run, err, sizeof(err)), 0);
    FILE *f = fopen("beta.tsv", "r");
    ck_assert_ptr_nonnull(f);
    int64_t k = 0;
    double v;
    while (fscanf(f, "%lf", &v) == 1) {
        ck_assert_int_lt(k, d);
        if (v != beta[k])
            ck_abort_msg("beta.tsv line %lld: %.17g, want %.17g", (long long)k + 1, v, beta[k]);
        k++;
    }
    fclose(f);
    ck_assert_int_eq(k, d);

    struct ptm_run_stats st;
    ptm_run_stats(run, &st);
    ck_assert_int_eq(st.workers, P);
    if (tu_verbose())
        printf("%s %s P=%d: %lld rounds, %lld sweeps, %.3f s (run %.3f s), KKT %.3g, "
               "max |beta - serial| %.3g, %lld of %lld non-zero, objective %.12g\n",
               rule_names[solves[_i].rule], solves[_i].schedule, P,
               (long long)st.rounds, (long long)st.sweeps,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
               st.seconds, kkt, worst, (long long)nz, (long long)d, st.objective);
    ptm_run_free(run);
    plan_free(plan);
    free(beta);
    free(ref);
    free(r);
    free(g);
}
END_TEST

/* Rounds of a quarter of the coefficients updated together (under
 * within = sequential, the workers' shares), on the problem's correlated
 * columns side by side and on the non-negative data: the damped rounds
 * reach the optimum under every model-parallel policy, and the objective
 * never rises, never inf or NaN. */
enum data { GROUPED, SPREAD, NONNEG };
static const struct {
    enum data data;
    const char *schedule;
    int P;
    const char *within; /* NULL: parallel */
} damped[] = {
    {GROUPED, "round_robin { per_round 37 }", 1, NULL},
    {SPREAD, "round_robin { per_round 37 }", 2, NULL},
    {SPREAD, "random { per_round 37 }", 2, NULL},
    {GROUPED, "dynamic { sample 37 }", 2, NULL},
    {SPREAD, "round_robin { per_round 37 }", 3, "sequential"},
    {NONNEG, "round_robin { per_round 37 }", 2, NULL},
    {NONNEG, "random { per_round 37 }", 1, NULL},
    {NONNEG, "dynamic { sample 37 }", 2, NULL},
    {NONNEG, "round_robin { per_round 37 }", 2, "sequential"},
    {SPREAD, "dynamic { sample 37, active }", 1, "sequential"},
    {NONNEG, "dynamic { sample 37, active }", 2, NULL},
    {NONNEG, "dynamic { sample 37, active, keep all }", 2, "sequential"},
    {NONNEG, "round_robin { per_round 37 }", 3, "sequential"},
    /* an order: a first pass of the 37 columns most like y alone */
    {GROUPED, "dynamic { sample 37, active }\norder coef(j) = abs(cos(col(X, j), y))", 2, NULL},
    {NONNEG, "dynamic { sample 37, active }\norder coef(j) = abs(cos(col(X, j), y))", 1,
     "sequential"},
    {SPREAD, "dynamic { sample 37, active, shuffle }\norder coef(j) = abs(cos(col(X, j), y))", 2,
     NULL},
};
static const char *const data_names[] = {"grouped", "spread", "non-negative"};

START_TEST(test_never_diverges)
{
    enum data dk = damped[_i].data;
    const struct ptm_dataset *ds = dk == NONNEG ? nonneg : dk == SPREAD ? spread : prob;
    const struct ptm_csc *c = dk == NONNEG ? nonneg_csc : dk == SPREAD ? spread_csc : prob_csc;
    double lam = dk == NONNEG ? nonneg_lambda : lambda, keep = lambda;
    int64_t n = c->nrows, d = c->ncols;
    data_file = dk == NONNEG ? "prob/nonneg.svm" : dk == SPREAD ? "spread/lasso.svm" : "prob/lasso.svm";
    lambda = lam;
    make_job_with(damped[_i].within ? SEQUENTIAL : BUILTIN, damped[_i].schedule, NULL);
    char *stop = strstr(job_text, "sweeps >= 300 ");
    ck_assert_ptr_nonnull(stop);
    memcpy(stop, "sweeps >= 999 ", 14);
    struct ptm_plan *plan = compile_job();
    data_file = "prob/lasso.svm";
    lambda = keep;
    make_job();
    double *beta = calloc((size_t)d, sizeof(double));
    double *r = calloc((size_t)n, sizeof(double));
    double *g = calloc((size_t)d, sizeof(double));
    ck_assert(beta && r && g);
    struct ptm_run *run;
    run_plan(plan, damped[_i].P, beta, &run);
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    for (size_t k = 0; k < nh; k++) {
        ck_assert_msg(isfinite(h[k]), "%s: objective %g at evaluation %zu", damped[_i].schedule,
                      h[k], k);
        if (k && !(h[k] <= h[k - 1] + 1e-14 * fabs(h[k - 1])))
            ck_abort_msg("%s: objective rose from %.17g to %.17g", damped[_i].schedule, h[k - 1],
                         h[k]);
    }
    lasso_residual(c, ds->labels.val, beta, r);
    lasso_grad_part(c, r, g);
    double kkt = lasso_kkt(g, beta, d, n, lam, NULL);
    ck_assert_msg(kkt < 1e-6, "%s (%s): KKT residual %g", damped[_i].schedule, data_names[dk], kkt);
    struct ptm_run_stats st;
    ptm_run_stats(run, &st);
    if (tu_verbose())
        printf("%s (%s%s) P=%d: %lld sweeps, %lld damped rounds, KKT %.3g, objective %.12g\n",
               damped[_i].schedule, data_names[dk], damped[_i].within ? ", sequential" : "",
               damped[_i].P, (long long)st.sweeps, (long long)st.damped, kkt, st.objective);
    ptm_run_free(run);
    plan_free(plan);
    free(beta);
    free(r);
    free(g);
}
END_TEST

/* The intercept (lasso_cd and lasso_objective { intercept = b }) under each
 * way the workers share a round: at the end, the optimality conditions of
 * the model with an intercept hold, computed here from beta and b over the
 * whole matrix: the residual y - X beta - b has mean 0 (the condition on
 * b) and the KKT conditions on beta; the objective never rises, and its
 * last value is the one computed here. b starts at 0 or elsewhere (a warm
 * start). */
static const struct {
    const char *schedule;
    int P;
    bool sequential;
    double b0;
} icpt[] = {
    {"round_robin", 1, false, 0},
    {"round_robin { per_round 40 }", 2, false, -3},
    {"random { per_round 40 }", 3, false, 0},
    {"dynamic { sample 37, active }", 2, false, 0},
    {"round_robin { per_round 16 }", 1, true, 25},
    {"round_robin { per_round 150 }", 2, true, 0},
    {"round_robin { per_round 16 }", 3, true, 0}, /* rounds on the first worker alone */
    {"random { per_round 8 }", 2, true, 0},
};

static void make_intercept_job(const char *schedule, bool sequential, double b0)
{
    snprintf(job_text, sizeof(job_text),
             "job t\n"
             "const lambda = %.17g\n"
             "data X : sparse matrix from \"offset/lasso.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param beta : vector[cols(X)] = 0\n"
             "param b : vector[1] = %.17g\n"
             "param r : vector[rows(X)] = y shard like X\n"
             "blocks coef = beta each 1\n"
             "schedule %s\n"
             "update builtin lasso_cd { lambda = lambda, intercept = b%s }\n"
             "objective builtin lasso_objective { lambda = lambda, intercept = b } every 1 sweeps\n"
             "stop when sweeps >= 999 or rel_change(objective) < 1e-13\n",
             offset_lambda, b0, schedule,
             sequential ? ", within = sequential, split_min = 0" : rows_split);
}

START_TEST(test_intercept)
{
    const struct ptm_csc *c = offset_csc;
    int64_t n = c->nrows, d = c->ncols;
    make_intercept_job(icpt[_i].schedule, icpt[_i].sequential, icpt[_i].b0);
    if (strstr(icpt[_i].schedule, "random"))
        stop_after(400);
    struct ptm_plan *plan = compile_job();
    make_job();
    double *beta = calloc((size_t)d, sizeof(double)), b;
    double *r = calloc((size_t)n, sizeof(double)), *g = calloc((size_t)d, sizeof(double));
    ck_assert(beta && r && g);
    struct ptm_run *run;
    run_plan(plan, icpt[_i].P, beta, &run);
    ck_assert_int_eq(ptm_run_param(run, 1, &b, 1), 1);
    lasso_residual(c, offset->labels.val, beta, r);
    double mean = 0, f = 0;
    for (int64_t i = 0; i < n; i++) {
        r[i] -= b;
        mean += r[i];
        f += r[i] * r[i];
    }
    mean /= (double)n;
    f = f / (2.0 * (double)n) + lasso_penalty(beta, d, offset_lambda);
    lasso_grad_part(c, r, g);
    double kkt = lasso_kkt(g, beta, d, n, offset_lambda, NULL);
    ck_assert_msg(fabs(mean) < 1e-10, "%s P=%d: mean of y - X beta - b is %g", icpt[_i].schedule,
                  icpt[_i].P, mean);
    ck_assert_msg(kkt < 1e-6, "%s P=%d: KKT residual %g", icpt[_i].schedule, icpt[_i].P, kkt);
    ck_assert_msg(b > 9 && b < 11, "%s P=%d: b = %g, the labels' offset is 10", icpt[_i].schedule,
                  icpt[_i].P, b);
    size_t nh;
    const double *h = ptm_run_history(run, &nh);
    ck_assert_uint_ge(nh, 3);
    for (size_t k = 1; k < nh; k++)
        if (!(h[k] <= h[k - 1] + 1e-14 * fabs(h[k - 1])))
            ck_abort_msg("%s P=%d: objective rose from %.17g to %.17g at evaluation %zu",
                         icpt[_i].schedule, icpt[_i].P, h[k - 1], h[k], k);
    ck_assert_msg(fabs(h[nh - 1] - f) <= 1e-12 * f, "%s P=%d: objective %.17g, here %.17g",
                  icpt[_i].schedule, icpt[_i].P, h[nh - 1], f);
    struct ptm_run_stats st;
    ptm_run_stats(run, &st);
    if (tu_verbose())
        printf("intercept %s%s P=%d: %lld sweeps, %lld damped, b %.12g, mean(r) %.3g, KKT %.3g, "
               "objective %.12g\n",
               icpt[_i].schedule, icpt[_i].sequential ? " (sequential)" : "", icpt[_i].P,
               (long long)st.sweeps, (long long)st.damped, b, mean, kkt, st.objective);
    ptm_run_free(run);
    plan_free(plan);
    free(beta);
    free(r);
    free(g);
}
END_TEST

/* The non-zeros of the columns of c in a round of k: about the median,
 * so that about half of such rounds hold fewer (split_min). */
static char *split_between(const struct ptm_csc *c, int k, char *buf, size_t len)
{
    int64_t mid = k * c->colptr[c->ncols] / c->ncols, lo = INT64_MAX, hi = 0;
    for (int64_t j = 0; j < c->ncols; j++) {
        int64_t n = c->colptr[j + 1] - c->colptr[j];
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    ck_assert(k * lo < mid && mid < k * hi); /* rounds of both kinds can occur */
    snprintf(buf, len, ", split_min = %lld", (long long)mid);
    return buf;
}

/* Rounds split by rows give the same bits on one, two and three workers,
 * with an intercept too, and so do rounds that run on the first worker
 * alone (lasso_cd's split_min) and runs that do both. */
START_TEST(test_intercept_deterministic)
{
    int64_t d = offset_csc->ncols;
    char mid[64];
    const char *splits[] = {", split_min = 0", "", split_between(offset_csc, 40, mid, sizeof(mid))};
    for (size_t s = 0; s < PTM_ARRAY_LEN(splits); s++) {
        rows_split = splits[s];
        make_intercept_job("random { per_round 40 }", false, 0);
        stop_after(20);
        struct ptm_plan *plan = compile_job();
        double *beta[3], b[3];
        for (int P = 1; P <= 3; P++) {
            struct ptm_run *run;
            ck_assert_ptr_nonnull(beta[P - 1] = calloc((size_t)d, sizeof(double)));
            run_plan(plan, P, beta[P - 1], &run);
            ck_assert_int_eq(ptm_run_param(run, 1, &b[P - 1], 1), 1);
            ptm_run_free(run);
        }
        for (int P = 2; P <= 3; P++) {
            ck_assert_msg(b[P - 1] == b[0], "'%s' P=%d: b %.17g, on 1 worker %.17g", splits[s], P,
                          b[P - 1], b[0]);
            ck_assert_msg(memcmp(beta[P - 1], beta[0], (size_t)d * sizeof(double)) == 0,
                          "'%s' P=%d: beta differs from 1 worker's", splits[s], P);
        }
        for (int P = 0; P < 3; P++)
            free(beta[P]);
        plan_free(plan);
    }
    rows_split = ", split_min = 0";
    make_job();
}
END_TEST

/* One worker twice, and a plan through YAML on two workers against the
 * fresh plan on two: the same bits. The kernel splits rounds by columns,
 * so one, two and three workers give the same bits too, under random
 * rounds of several columns as well. */
START_TEST(test_deterministic)
{
    int64_t d = prob_csc->ncols;
    struct ptm_plan *plan = compile_job();
    double *a = calloc((size_t)d, sizeof(double)), *b = calloc((size_t)d, sizeof(double));
    ck_assert(a && b);
    run_plan(plan, 1, a, NULL);
    run_plan(plan, 1, b, NULL);
    ck_assert(memcmp(a, b, (size_t)d * sizeof(double)) == 0);

    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(ptm_plan_emit(plan, mem), 0);
    fclose(mem);
    struct ptm_source src;
    ck_assert_int_eq(ptm_source_from(&src, "t.yaml", text, len), 0);
    struct arena arena;
    arena_init(&arena);
    struct ptm_diags diags;
    diag_init(&diags, &arena);
    struct ptm_plan *loaded = NULL;
    int rc = ptm_plan_load(&src, &diags, &loaded);
    if (rc != 0)
        ptm_diags_render(stderr, &src, &diags, false);
    ck_assert_int_eq(rc, 0);
    run_plan(plan, 2, a, NULL);
    run_plan(loaded, 2, b, NULL);
    ck_assert(memcmp(a, b, (size_t)d * sizeof(double)) == 0);

    /* the objective's sum over workers changes in the last bits with P,
     * and with it when rel_change stops a run: stop after a fixed number
     * of sweeps instead; per_round is given, as its default is P */
    static const char *const scheds[] = {"round_robin { per_round 3 }", "random { per_round 4 }"};
    char mid[64];
    const char *splits[] = {", split_min = 0", "", split_between(prob_csc, 4, mid, sizeof(mid))};
    for (size_t k = 0; k < PTM_ARRAY_LEN(scheds); k++)
        for (size_t s = 0; s < PTM_ARRAY_LEN(splits); s++) {
            rows_split = splits[s];
            make_job_with(BUILTIN, scheds[k], NULL);
            stop_after(40);
            struct ptm_plan *fixed = compile_job();
            run_plan(fixed, 1, a, NULL);
            for (int P = 2; P <= 3; P++) {
                run_plan(fixed, P, b, NULL);
                ck_assert_msg(memcmp(a, b, (size_t)d * sizeof(double)) == 0,
                              "%s '%s': P=1 and P=%d differ", scheds[k], splits[s], P);
            }
            plan_free(fixed);
        }
    rows_split = ", split_min = 0";
    make_job();
    plan_free(loaded);
    arena_release(&arena);
    ptm_source_release(&src);
    free(text);
    plan_free(plan);
    free(a);
    free(b);
}
END_TEST

/* within = sequential on one worker is cyclic coordinate descent, however
 * many columns a round holds: after 7 sweeps the same bits as 7 sweeps of
 * lasso_solve_serial, which is written without the engine. */
START_TEST(test_sequential_is_cyclic)
{
    int64_t d = prob_csc->ncols;
    double *a = calloc((size_t)d, sizeof(double)), *ref = calloc((size_t)d, sizeof(double));
    ck_assert(a && ref);
    ck_assert_int_eq(lasso_solve_serial(prob_csc, prob->labels.val, lambda, 0, 7, ref), 0);
    static const char *const scheds[] = {"round_robin { per_round 50 }",
                                         "round_robin { per_round 150 }", "round_robin"};
    for (size_t k = 0; k < PTM_ARRAY_LEN(scheds); k++) {
        make_job_with(k < 2 ? SEQUENTIAL : BUILTIN, scheds[k], NULL);
        stop_after(7);
        struct ptm_plan *plan = compile_job();
        run_plan(plan, 1, a, NULL);
        for (int64_t j = 0; j < d; j++)
            if (a[j] != ref[j])
                ck_abort_msg("%s: beta[%lld] = %.17g, serial %.17g", scheds[k], (long long)j, a[j],
                             ref[j]);
        plan_free(plan);
    }
    make_job();
    free(a);
    free(ref);
}
END_TEST

/* within = sequential on rounds of fewer non-zeros than split_min (its
 * default, far above this problem's rounds): every round runs on the
 * first worker alone, in the policy's order, so 2 and 3 workers take the
 * same steps as one, to the bit, whatever the dealing (balance by cost
 * reorders the round's blocks among the workers). */
START_TEST(test_sequential_alone_is_one_worker)
{
    int64_t d = prob_csc->ncols;
    double *one = calloc((size_t)d, sizeof(double)), *a = calloc((size_t)d, sizeof(double));
    ck_assert(one && a);
    static const char *const scheds[] = {
        "dynamic { sample 60, active, balance, pipeline 1 }\n"
        "priority coef(j) = abs(delta(beta[j]))\ncost coef(j) = nnz(col(X, j))",
        "random { per_round 45 }"};
    for (size_t k = 0; k < PTM_ARRAY_LEN(scheds); k++) {
        make_job_with(SEQUENTIAL, scheds[k], NULL);
        char *opt = strstr(job_text, ", split_min = 0");
        ck_assert_ptr_nonnull(opt);
        memmove(opt, opt + 15, strlen(opt + 15) + 1); /* the default split_min */
        stop_after(6);
        struct ptm_plan *plan = compile_job();
        run_plan(plan, 1, one, NULL);
        for (int P = 2; P <= 3; P++) {
            run_plan(plan, P, a, NULL);
            for (int64_t j = 0; j < d; j++)
                if (a[j] != one[j])
                    ck_abort_msg("%s, %d workers: beta[%lld] = %.17g, one worker %.17g", scheds[k],
                                 P, (long long)j, a[j], one[j]);
        }
        plan_free(plan);
    }
    make_job();
    free(one);
    free(a);
}
END_TEST

/* The Lua rule gives the kernel's numbers: same P, same rounds. */
START_TEST(test_lua_matches_builtin)
{
    int64_t d = prob_csc->ncols;
    double *a = calloc((size_t)d, sizeof(double)), *b = calloc((size_t)d, sizeof(double));
    ck_assert(a && b);
    make_job_with(BUILTIN, "round_robin { per_round 3 }", NULL);
    struct ptm_plan *pa = compile_job();
    make_job_with(LUA, "round_robin { per_round 3 }", example_lua);
    struct ptm_plan *pb = compile_job();
    make_job();
    run_plan(pa, 2, a, NULL);
    run_plan(pb, 2, b, NULL);
    double worst = 0;
    for (int64_t j = 0; j < d; j++)
        worst = fmax(worst, fabs(a[j] - b[j]));
    ck_assert_msg(worst < 1e-6, "max |beta(builtin) - beta(lua)| = %g", worst);
    if (tu_verbose())
        printf("lua vs builtin: max |difference| %.3g\n", worst);
    plan_free(pa);
    plan_free(pb);
    free(a);
    free(b);
}
END_TEST

/* Plans this engine does not run yet: a clear error, no crash. */
static const struct {
    const char *from, *to, *msg;
} unsupported[] = {
    {"update builtin lasso_cd { lambda = lambda", "update builtin lasso_cd { lambda = lambda",
     NULL},
    {"param beta : vector[cols(X)] = 0\n", "param beta : vector[cols(X) + 1] = 0\n",
     "beta ('beta') must be a vector of cols(X) = 150 values with one copy"},
    {"update builtin lasso_cd { lambda = lambda",
     "update builtin lasso_cd { lambda = lambda, beta = r",
     "beta ('r') must be a vector of cols(X) = 150 values with one copy"},
};

START_TEST(test_unsupported)
{
    char saved[sizeof(job_text)];
    memcpy(saved, job_text, sizeof(saved));
    const char *at = strstr(job_text, unsupported[_i].from);
    ck_assert_ptr_nonnull(at);
    char buf[sizeof(job_text)];
    snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - job_text), job_text, unsupported[_i].to,
             at + strlen(unsupported[_i].from));
    memcpy(job_text, buf, sizeof(buf));
    struct ptm_plan *plan = compile_job();
    memcpy(job_text, saved, sizeof(saved));
    struct ptm_run_opts o = {.workers = 2};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_run *run;
    char err[512];
    int rc = ptm_run_new(plan, &o, &dg, err, sizeof(err), &run);
    ptm_data_diags_release(&dg);
    if (!unsupported[_i].msg) {
        ck_assert_int_eq(rc, 0);
        ptm_run_free(run);
    } else {
        ck_assert_int_eq(rc, PTM_EINVAL);
        ck_assert_ptr_null(run);
        ck_assert_msg(strstr(err, unsupported[_i].msg), "message: %s", err);
    }
    plan_free(plan);
}
END_TEST

/* Hooks that misbehave: the run stops with the hook's message (and the
 * traceback and where the job declares the hook), outputs are refused and
 * nothing is written. Each row is the body of a Lua file whose push,
 * pull, apply and objective work as lasso.lua's unless the body replaces
 * one; the failure comes on worker 2 of 2 where the body says so. */
static const char *const good_hooks =
    "function push(w, S) local z = {} for _, j in ipairs(S) do z[j] = 0 end return z end\n"
    "function pull(S, z) local v = {} for _, j in ipairs(S) do v[j] = 0 end return v end\n"
    "function objective(w) return 0 end\n"
    "function zeros(S) local z = {} for _, j in ipairs(S) do z[j] = 0 end return z end\n";

static const struct {
    const char *name, *body, *msg;
} bad_hooks[] = {
    {"io", "function push(w, S) io.open('x', 'w') end\n",
     "'io' is not available in ptm hooks (they cannot touch files, load code or run commands)"},
    {"os", "function push(w, S) os.execute('touch x') end\n", "'os' is not available in ptm hooks"},
    {"require", "function push(w, S) require('os') end\n", "'require' is not available in ptm hooks"},
    {"load", "function push(w, S) load('return 1') end\n", "'load' is not available in ptm hooks"},
    {"loadfile", "function push(w, S) loadfile('x.lua') end\n",
     "'loadfile' is not available in ptm hooks"},
    {"dofile", "function push(w, S) dofile('x.lua') end\n", "'dofile' is not available in ptm hooks"},
    {"debug", "function push(w, S) debug.sethook() end\n", "'debug' is not available in ptm hooks"},
    {"string.dump", "function push(w, S) string.dump(push) end\n",
     "'string.dump' is not available in ptm hooks"},
    {"pattern", "function push(w, S) ('aaa'):find('a-b') end\n",
     "Lua patterns are not available in ptm hooks"},
    {"infinite loop", "function push(w, S) if w.id == 2 then while true do end end return zeros(S) end\n",
     "instruction budget"},
    {"memory bomb",
     "function push(w, S) local t = {} for i = 1, 1e9 do t[i] = i end end\n", "memory"},
    {"runtime error", "function pull(S, z) local x = nil; return x.y end\n",
     "attempt to index a nil value (local 'x')"},
    {"error()", "function push(w, S) if w.id == 2 then error('bad shard') end return zeros(S) end\n",
     "bad shard"},
    {"push type", "function push(w, S) return 42 end\n", "hook 'push' returned a number"},
    {"pull type", "function pull(S, z) return 'x' end\n", "hook 'pull' returned a string"},
    {"pull missing block", "function pull(S, z) return {} end\n",
     "hook 'pull' returned no value for block"},
    {"pull nan", "function pull(S, z) local v = {} for _, j in ipairs(S) do v[j] = 0/0 end return v end\n",
     "nan"},
    {"objective type", "function objective(w) return nil end\n", "hook 'objective' returned nil"},
};

START_TEST(test_bad_hooks)
{
    FILE *f = fopen("bad.lua", "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s%s", good_hooks, bad_hooks[_i].body);
    fclose(f);
    make_job_with(LUA, "round_robin", "bad.lua");
    struct ptm_plan *plan = compile_job();
    make_job();
    remove("beta.tsv");
    struct ptm_run_opts o = {
        .workers = 2,
        .update_at = "t.ptm:9:1",
        .objective_at = "t.ptm:10:1",
        .lua_mem = 8 << 20,
        .lua_budget = 1000000,
    };
    struct ptm_run *run = tu_run_new(plan, &o);
    char err[8192];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_int_eq(rc, PTM_EINVAL);
    ck_assert_msg(strstr(err, bad_hooks[_i].msg), "%s: message lacks '%s':\n%s", bad_hooks[_i].name,
                  bad_hooks[_i].msg, err);
    ck_assert_msg(strstr(err, "note: the update rule is declared here") ||
                      strstr(err, "note: the objective is declared here"),
                  "%s: no location:\n%s", bad_hooks[_i].name, err);
    char err2[512];
    ck_assert_int_ne(ptm_run_write_outputs(run, err2, sizeof(err2)), 0);
    ck_assert_int_ne(access("beta.tsv", F_OK), 0);
    ck_assert_int_ne(access("x", F_OK), 0);
    if (tu_verbose())
        printf("%s:\n%s\n\n", bad_hooks[_i].name, err);
    ptm_run_free(run);
    plan_free(plan);
}
END_TEST

/* A missing data file is a data error with a message. */
START_TEST(test_missing_data)
{
    char saved[sizeof(job_text)];
    memcpy(saved, job_text, sizeof(saved));
    char *at = strstr(job_text, "prob/lasso.svm");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "prob/nope0.svm", 14);
    struct ptm_plan *plan = compile_job();
    memcpy(job_text, saved, sizeof(saved));
    struct ptm_run_opts o = {.workers = 1};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_run *run;
    char err[512];
    int rc = ptm_run_new(plan, &o, &dg, err, sizeof(err), &run);
    ck_assert_int_eq(rc, PTM_ENOENT);
    ck_assert_ptr_null(run);
    ck_assert_uint_ge(dg.n, 1);
    ck_assert_ptr_nonnull(strstr(dg.msg[0].text, "nope0.svm"));
    ptm_data_diags_release(&dg);
    plan_free(plan);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("lasso");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_solves_lasso, 0, (int)PTM_ARRAY_LEN(solves));
    tcase_add_loop_test(tc, test_never_diverges, 0, (int)PTM_ARRAY_LEN(damped));
    tcase_add_loop_test(tc, test_intercept, 0, (int)PTM_ARRAY_LEN(icpt));
    tcase_add_test(tc, test_intercept_deterministic);
    tcase_add_test(tc, test_lua_matches_builtin);
    tcase_add_test(tc, test_sequential_is_cyclic);
    tcase_add_test(tc, test_sequential_alone_is_one_worker);
    tcase_add_test(tc, test_deterministic);
    tcase_add_loop_test(tc, test_bad_hooks, 0, (int)PTM_ARRAY_LEN(bad_hooks));
    tcase_add_loop_test(tc, test_unsupported, 0, (int)PTM_ARRAY_LEN(unsupported));
    tcase_add_test(tc, test_missing_data);
    suite_add_tcase(s, tc);
    return s;
}

/* The problem: generated, read as a job would read it, lambda chosen. */
static int setup(void)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 11;
    o.rows = 400;
    o.cols = 150;
    o.density = 0.05;
    o.group = 5;
    o.corr = 0.5;
    o.nonzeros = 10;
    o.grouped = true; /* correlated columns side by side: rounds in order meet them */
    if (mkdir("prob", 0777) != 0 || ptm_gen_lasso(&o, "prob") != 0)
        return -1;
    /* the same problem with its columns spread (the default of ptm gen) */
    o.grouped = false;
    if (mkdir("spread", 0777) != 0 || ptm_gen_lasso(&o, "spread") != 0)
        return -1;
    o.offset = 10;
    if (mkdir("offset", 0777) != 0 || ptm_gen_lasso(&o, "offset") != 0)
        return -1;
    struct ptm_data_opts dopt = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc = ptm_data_read("prob/lasso.svm", &dopt, &dg, &prob);
    ptm_data_diags_release(&dg);
    if (rc != 0 || ptm_dataset_csc(prob, &prob_csc) != 0)
        return -1;
    double *g = calloc((size_t)prob_csc->ncols, sizeof(double));
    if (!g)
        return -1;
    lasso_grad_part(prob_csc, prob->labels.val, g);
    lambda = 0.1 * lasso_lambda_max(g, prob_csc->ncols, prob_csc->nrows);
    /* the non-negative copy: |x_ij|, the same labels */
    FILE *f = fopen("prob/nonneg.svm", "w");
    if (!f) {
        free(g);
        return -1;
    }
    for (int64_t i = 0; i < prob->csr.nrows; i++) {
        fprintf(f, "%.17g", prob->labels.val[i]);
        for (int64_t e = prob->csr.rowptr[i]; e < prob->csr.rowptr[i + 1]; e++)
            fprintf(f, " %d:%.17g", prob->csr.colind[e] + 1, fabs(prob->csr.val[e]));
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(g);
        return -1;
    }
    ptm_data_diags_init(&dg);
    rc = ptm_data_read("prob/nonneg.svm", &dopt, &dg, &nonneg);
    ptm_data_diags_release(&dg);
    if (rc != 0 || ptm_dataset_csc(nonneg, &nonneg_csc) != 0) {
        free(g);
        return -1;
    }
    ptm_data_diags_init(&dg);
    rc = ptm_data_read("spread/lasso.svm", &dopt, &dg, &spread);
    ptm_data_diags_release(&dg);
    if (rc != 0 || ptm_dataset_csc(spread, &spread_csc) != 0) {
        free(g);
        return -1;
    }
    lasso_grad_part(nonneg_csc, nonneg->labels.val, g);
    nonneg_lambda = 0.02 * lasso_lambda_max(g, nonneg_csc->ncols, nonneg_csc->nrows);
    ptm_data_diags_init(&dg);
    rc = ptm_data_read("offset/lasso.svm", &dopt, &dg, &offset);
    ptm_data_diags_release(&dg);
    double *yc = rc == 0 ? calloc((size_t)offset->labels.n, sizeof(double)) : NULL;
    if (!yc || ptm_dataset_csc(offset, &offset_csc) != 0) {
        free(g);
        free(yc);
        return -1;
    }
    /* with an intercept, lambda_max is that of the centred labels */
    double ybar = 0;
    for (int64_t i = 0; i < offset_csc->nrows; i++)
        ybar += offset->labels.val[i] / (double)offset_csc->nrows;
    for (int64_t i = 0; i < offset_csc->nrows; i++)
        yc[i] = offset->labels.val[i] - ybar;
    lasso_grad_part(offset_csc, yc, g);
    offset_lambda = 0.1 * lasso_lambda_max(g, offset_csc->ncols, offset_csc->nrows);
    free(yc);
    free(g);
    make_job();
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-engine.XXXXXX";
    if (!getcwd(example_lua, sizeof(example_lua) - 32)) {
        perror("test_engine: getcwd");
        return EXIT_FAILURE;
    }
    strcat(example_lua, "/examples/lasso/lasso.lua");
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_engine: temporary directory");
        return EXIT_FAILURE;
    }
    if (setup() != 0) {
        fprintf(stderr, "test_engine: cannot make the test problem\n");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(engine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    ptm_dataset_free(prob);
    ptm_dataset_free(nonneg);
    ptm_dataset_free(spread);
    ptm_dataset_free(offset);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
