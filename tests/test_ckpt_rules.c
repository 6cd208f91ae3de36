/*
 * test_ckpt_rules.c - the checkpoint state of the built-in Lasso and
 * matrix factorization rules (the state hooks of lasso_cd, mf_sgd and
 * mf_ccd; runtime/base/ckpt.h): a run stopped after k rounds and a fresh
 * run loaded with its state must go on exactly as the run that was never
 * stopped.
 *
 * DESIGN: each row runs a job three ways on the same workers: to K rounds
 * at once (the reference); to k < K rounds, then saved; and fresh, loaded,
 * then on to K. The test saves what the engine keeps itself (the
 * parameter tables, the workers' sharded rows, the round and update
 * counters, the step of the last round, the objective's mark) around the
 * rule's state function, as the engine's checkpoint does, and brings the
 * fresh run's scheduler to round k by asking it for k rounds: round_robin
 * and rotation depend on nothing else. The resumed run's parameters and
 * last objective must equal the reference's bit for bit. As a control,
 * the same resume without the rule's state must differ from the
 * reference where the rule keeps any (the residual of its own, the
 * intercept's sums, the split rounds' copies, CCD++'s residual and
 * accumulators), so the test sees what a state function leaves out.
 * Rounds are cut where they keep state in flight: the SEQP rounds run
 * alone and split in turn, and CCD++ is stopped inside a pass, its
 * accumulators half summed. A checkpoint read into a run set up otherwise
 * (another mode, other workers, the other MF rule) must fail with
 * PTM_EDATA.
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

#include "ckpt.h"
#include "data.h"
#include "engine.h"
#include "engine_impl.h"
#include "gen_lasso.h"
#include "gen_mf.h"
#include "kernel_lasso.h"
#include "plan.h"
#include "ptm.h"
#include "testutil.h"

static double lambda; /* a tenth of lambda_max of prob/lasso.svm */

/* ---- jobs and runs ----------------------------------------------------------- */

static struct ptm_run *new_run(const struct ptm_plan *plan, int P)
{
    struct ptm_run_opts o = {.workers = P};
    struct ptm_run *run = tu_run_new(plan, &o);
    ck_assert_int_eq(run->P, P);
    return run;
}

static void exec_run(struct ptm_run *run)
{
    char err[512];
    int rc = ptm_run_exec(run, err, sizeof(err));
    ck_assert_msg(rc == 0, "ptm_run_exec: %s", err);
}

/* What the engine's checkpoint keeps of its own, in a fixed order, then
 * the rule's state (with_rule) and the objective's. */
static void run_state(struct ptm_run *run, struct ptm_ckpt *ck, bool with_rule)
{
    for (uint32_t i = 0; i < run->plan->nparams; i++) {
        struct rt_param *t = &run->params[i];
        if (t->val) {
            PTM_CK_ARRAY(ck, t->val, t->len);
            continue;
        }
        for (int p = 0; p < run->P; p++) {
            struct rt_worker *w = &run->w[p];
            PTM_CK_ARRAY(ck, w->local[i], (w->hi - w->lo) * t->cols);
        }
    }
    if (ck->load && !ck->err) /* as the engine's load does */
        rt_l1_recount(run);
    PTM_CK(ck, run->round);
    PTM_CK(ck, run->updates);
    PTM_CK(ck, run->obj_mark);
    PTM_CK(ck, run->step);
    PTM_CK(ck, run->damped);
    if (with_rule) {
        ck_assert_ptr_nonnull(run->rule->state);
        run->rule->state(run, ck);
    }
    if (run->obj && run->obj->state)
        run->obj->state(run, ck);
}

/* The scheduler of a fresh run brought to round k: round_robin and
 * rotation keep nothing but where they are in their cycle. */
static void sched_skip(struct ptm_run *run, int64_t k)
{
    for (int64_t t = 0; t < k; t++) {
        struct rt_round *rd = &run->rounds[0];
        struct ptm_sched_round sr = {.blocks = rd->blocks, .part = rd->part, .order = rd->order};
        char err[256];
        ck_assert_int_eq(run->sched->next(run->sched_state, &sr, err, sizeof(err)), 0);
    }
}

static FILE *save(struct ptm_run *run, bool with_rule)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt ck = {.f = f};
    run_state(run, &ck, with_rule);
    ck_assert_msg(ck.err == 0, "save: %s", ck.msg);
    return f;
}

/* Load f into run; returns ck.err (its message in msg). */
static int load(struct ptm_run *run, FILE *f, bool with_rule, char *msg, size_t len)
{
    rewind(f);
    struct ptm_ckpt ck = {.f = f, .load = true};
    run_state(run, &ck, with_rule);
    snprintf(msg, len, "%s", ck.msg);
    return ck.err;
}

/* Every parameter's values, concatenated (sharded ones gathered). */
static double *params_of(const struct ptm_run *run, int64_t *n)
{
    int64_t total = 0;
    for (uint32_t i = 0; i < run->plan->nparams; i++)
        total += run->params[i].len;
    double *v = calloc((size_t)total, sizeof(double));
    ck_assert_ptr_nonnull(v);
    int64_t at = 0;
    for (uint32_t i = 0; i < run->plan->nparams; i++)
        at += ptm_run_param(run, (int32_t)i, v + at, total - at);
    ck_assert_int_eq(at, total);
    *n = total;
    return v;
}

static double last_objective(const struct ptm_run *run)
{
    size_t n;
    const double *h = ptm_run_history(run, &n);
    ck_assert_uint_gt(n, 0);
    return h[n - 1];
}

/* The job with `stop when rounds >= R` for the %d in its text. */
static struct ptm_plan *plan_for(const char *text, int64_t rounds)
{
    char buf[4096];
    snprintf(buf, sizeof(buf), text, (int)rounds);
    return tu_compile("t.ptm", buf, ".", true);
}

/* Run text on P workers to K rounds, and to k rounds, saved and resumed to
 * K; the resumed run must match. With control, a resume without the
 * rule's state must not. */
static void check_resume(const char *text, int P, int64_t k, int64_t K, bool control)
{
    struct ptm_plan *pk = plan_for(text, k), *pK = plan_for(text, K);
    struct ptm_run *ref = new_run(pK, P);
    exec_run(ref);
    int64_t n, nb;
    double *want = params_of(ref, &n);
    double fwant = last_objective(ref);
    ck_assert_int_eq(ref->round, K);

    struct ptm_run *a = new_run(pk, P);
    exec_run(a);
    ck_assert_int_eq(a->round, k);
    FILE *f = save(a, true), *g = control ? save(a, false) : NULL;
    ptm_run_free(a);

    char msg[512];
    struct ptm_run *b = new_run(pK, P);
    ck_assert_msg(load(b, f, true, msg, sizeof(msg)) == 0, "load: %s", msg);
    ck_assert_int_eq(fgetc(f), EOF); /* all of it read */
    sched_skip(b, k);
    exec_run(b);
    ck_assert_int_eq(b->round, K);
    double *got = params_of(b, &nb);
    ck_assert_int_eq(nb, n);
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(double)) != 0)
            ck_abort_msg("value %lld resumed at round %lld is %.17g, not %.17g", (long long)i,
                         (long long)k, got[i], want[i]);
    double fgot = last_objective(b);
    ck_assert_msg(memcmp(&fgot, &fwant, sizeof(double)) == 0, "objective %.17g, not %.17g", fgot,
                  fwant);
    if (tu_verbose())
        printf("P %d, rounds %lld + %lld: objective %.17g\n", P, (long long)k, (long long)(K - k),
               fgot);
    free(got);
    ptm_run_free(b);

    if (control) {
        struct ptm_run *c = new_run(pK, P);
        ck_assert_int_eq(load(c, g, false, msg, sizeof(msg)), 0);
        sched_skip(c, k);
        exec_run(c);
        double *other = params_of(c, &nb);
        ck_assert_msg(memcmp(other, want, (size_t)n * sizeof(double)) != 0,
                      "the same values without the rule's state: the test cannot see it");
        free(other);
        ptm_run_free(c);
        fclose(g);
    }
    fclose(f);
    free(want);
    ptm_run_free(ref);
    plan_free(pk);
    plan_free(pK);
}

/* ---- Lasso ------------------------------------------------------------------- */

static const struct {
    const char *within;
    int P, per_round;
    bool intercept, r; /* an intercept b; the residual a parameter r (else the rule's) */
    const char *data;
    int64_t k, K;
    bool control; /* results need the rule's state at round k */
} lasso_rows[] = {
    /* ROWS (split_min = 0: rounds of these few non-zeros split) */
    {"parallel", 1, 20, false, false, "prob", 13, 40, true},
    {"parallel, split_min = 0", 2, 20, true, false, "prob", 17, 40, true},
    {"parallel, split_min = 0", 3, 30, true, true, "offset", 11, 30, true},
    /* SEQ1 */
    {"sequential", 1, 16, false, false, "prob", 9, 40, true},
    {"sequential", 1, 16, true, true, "offset", 15, 40, true},
    /* SEQP (split_min = 0: rounds of these few non-zeros split too):
     * rounds of fewer non-zeros than rows run alone; on the
     * non-negative columns split rounds pay too little and splitting
     * rests, at round 3 with a round alone to go (solo_left), at round 2
     * with a longer wait next (backoff) */
    {"sequential, split_min = 0", 2, 16, true, false, "prob", 21, 50, true},
    {"sequential, split_min = 0", 2, 100, false, false, "nonneg", 3, 30, true},
    {"sequential, split_min = 0", 3, 100, true, true, "nonneg", 9, 30, true},
    {"sequential, split_min = 0", 2, 60, true, false, "offset", 10, 30, true},
    {"sequential, split_min = 0", 2, 100, false, true, "nonneg", 2, 30, true},
    /* the next split round brings the workers' copies of r up to date
     * from the rows the last one changed: loaded wrong, they would be
     * wrong; not loaded at all, they are taken whole, which gives the
     * same values */
    {"sequential, split_min = 0", 2, 40, false, true, "prob", 14, 40, false},
    /* ROWS on the first worker alone (rounds of these few non-zeros by
     * default), and rounds of about 480 non-zeros, some alone and some
     * split: a checkpoint after a round alone that the next, split,
     * applies on every worker's rows, and the other way */
    {"parallel", 2, 20, true, false, "prob", 17, 40, true},
    {"parallel, split_min = 480", 2, 20, false, false, "prob", 12, 40, true},
    {"parallel, split_min = 480", 3, 20, true, false, "offset", 9, 30, true},
    {"parallel, split_min = 480", 2, 20, false, false, "prob", 13, 40, true},
};

static void lasso_job(char *buf, size_t len, int row)
{
    const char *file = lasso_rows[row].data;
    bool b = lasso_rows[row].intercept;
    snprintf(buf, len,
             "job t\n"
             "const lambda = %.17g\n"
             "data X : sparse matrix from \"%s/lasso.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param beta : vector[cols(X)] = 0\n"
             "%s"
             "%s"
             "blocks coef = beta each 1\n"
             "schedule round_robin { per_round %d }\n"
             "update builtin lasso_cd { lambda = lambda, within = %s%s }\n"
             "objective builtin lasso_objective { lambda = lambda%s } every 1 sweeps\n"
             "stop when rounds >= %%d\n",
             lambda, file, b ? "param b : vector[1] = 0\n" : "",
             lasso_rows[row].r ? "param r : vector[rows(X)] = y shard like X\n" : "",
             lasso_rows[row].per_round, lasso_rows[row].within, b ? ", intercept = b" : "",
             b ? ", intercept = b" : "");
}

START_TEST(test_lasso_resume)
{
    char text[4096];
    lasso_job(text, sizeof(text), _i);
    check_resume(text, lasso_rows[_i].P, lasso_rows[_i].k, lasso_rows[_i].K,
                 lasso_rows[_i].control);
}
END_TEST

/* ---- matrix factorization ---------------------------------------------------- */

static const struct {
    const char *update;
    int P;
    int64_t k, K;
    bool control;
} mf_rows[] = {
    {"mf_sgd { rate = 0.02, decay = 0.9, step = fixed }", 1, 3, 8, false},
    {"mf_sgd { rate = 0.02, decay = 0.9, step = fixed }", 2, 5, 12, false},
    {"mf_sgd { rate = 0.02, decay = 0.9, step = fixed }", 3, 7, 15, false},
    /* adaptive steps: the accumulators of W's and H's rows are state */
    {"mf_sgd { rate = 0.2 }", 1, 3, 8, true},
    {"mf_sgd { rate = 0.2, penalty = rating }", 2, 5, 12, true},
    {"mf_sgd { rate = 0.2 }", 3, 7, 15, true},
    /* inside a pass (sweep k / P, a W pass when even, else an H pass):
     * the accumulators hold part of their sums */
    {"mf_ccd { reg = 0.1 }", 1, 3, 10, true},
    {"mf_ccd { reg = 0.1, inner = 2 }", 2, 3, 20, true},
    {"mf_ccd { reg = 0.1, inner = 2 }", 2, 5, 20, true},
    {"mf_ccd { reg = 0.1 }", 3, 7, 25, true},
    {"mf_ccd { reg = 0.1 }", 3, 10, 25, true},
    {"mf_ccd { reg = 0.1, inner = 2 }", 3, 14, 40, true},
};

static void mf_job(char *buf, size_t len, const char *update)
{
    snprintf(buf, len,
             "job m\n"
             "data R : sparse matrix from \"mf/ratings.mtx\" format mm shard rows\n"
             "data T : sparse matrix from \"mf/test.mtx\" format mm\n"
             "param W : matrix[rows(R), 4] = random(0.1) shard like R\n"
             "param H : matrix[cols(R), 4] = random(0.1)\n"
             "blocks hb = H rows into workers\n"
             "schedule rotation over hb\n"
             "update builtin %s\n"
             "objective builtin rmse { test = T } every 1 rounds\n"
             "stop when rounds >= %%d\n",
             update);
}

START_TEST(test_mf_resume)
{
    char text[4096];
    mf_job(text, sizeof(text), mf_rows[_i].update);
    check_resume(text, mf_rows[_i].P, mf_rows[_i].k, mf_rows[_i].K, mf_rows[_i].control);
}
END_TEST

/* ---- a checkpoint of another run --------------------------------------------- */

/* Saved from job `from` on P workers after a few rounds, loaded into job
 * `into` on Q: the rule's state refuses it, saying `says`, or (says NULL)
 * takes it. */
static const struct {
    int from, P, into, Q; /* rows of lasso_rows (mf_rows when mf) */
    bool mf;
    const char *says;
} mismatch_rows[] = {
    {0, 1, 3, 1, false, "rule lasso_cd rows"},  /* within = parallel into sequential */
    {5, 2, 5, 3, false, "workers"},             /* other workers */
    {4, 1, 3, 1, false, "rule's own residual"}, /* r a parameter, then the rule's */
    {6, 2, 5, 2, false, "intercept"},           /* without an intercept, then with */
    {0, 1, 6, 1, true, "rule mf_sgd"},          /* mf_sgd into mf_ccd */
    {6, 1, 7, 2, true, "workers"},              /* mf_ccd on other workers */
    {8, 2, 9, 2, true, NULL},                   /* inner 2, then 1: an option, not state */
    {0, 1, 3, 1, true, "'mf_sgd fixed steps' where this run has 'mf_sgd adaptive steps'"},
    {3, 1, 0, 1, true, "'mf_sgd adaptive steps' where this run has 'mf_sgd fixed steps'"},
    {4, 2, 5, 2, true, NULL},                   /* penalty rating, then total: not state */
};

START_TEST(test_mismatch)
{
    char from[4096], into[4096];
    if (mismatch_rows[_i].mf) {
        mf_job(from, sizeof(from), mf_rows[mismatch_rows[_i].from].update);
        mf_job(into, sizeof(into), mf_rows[mismatch_rows[_i].into].update);
    } else {
        lasso_job(from, sizeof(from), mismatch_rows[_i].from);
        lasso_job(into, sizeof(into), mismatch_rows[_i].into);
    }
    struct ptm_plan *pa = plan_for(from, 4), *pb = plan_for(into, 4);
    struct ptm_run *a = new_run(pa, mismatch_rows[_i].P);
    exec_run(a);
    /* the rule's state alone, so that the engine's part (other sizes)
     * does not fail first */
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt ck = {.f = f};
    a->rule->state(a, &ck);
    ck_assert_int_eq(ck.err, 0);
    struct ptm_run *b = new_run(pb, mismatch_rows[_i].Q);
    rewind(f);
    struct ptm_ckpt cl = {.f = f, .load = true};
    b->rule->state(b, &cl);
    if (!mismatch_rows[_i].says) {
        ck_assert_msg(cl.err == 0, "%s", cl.msg);
    } else {
        ck_assert_int_eq(cl.err, PTM_EDATA);
        ck_assert_msg(strstr(cl.msg, mismatch_rows[_i].says), "message: %s", cl.msg);
    }
    fclose(f);
    ptm_run_free(a);
    ptm_run_free(b);
    plan_free(pa);
    plan_free(pb);
}
END_TEST

/* ---- set-up ------------------------------------------------------------------ */

static int setup(void)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 5;
    o.rows = 600; /* 3 chunks of the rule's, the last one short */
    o.cols = 200;
    o.density = 0.04;
    o.group = 5;
    o.corr = 0.5;
    o.nonzeros = 12;
    o.grouped = true;
    if (mkdir("prob", 0777) != 0 || ptm_gen_lasso(&o, "prob") != 0)
        return -1;
    o.grouped = false;
    o.offset = 10;
    if (mkdir("offset", 0777) != 0 || ptm_gen_lasso(&o, "offset") != 0)
        return -1;
    o.offset = 0;
    o.nonnegative = true;
    if (mkdir("nonneg", 0777) != 0 || ptm_gen_lasso(&o, "nonneg") != 0)
        return -1;
    struct gen_mf_opts m;
    ptm_gen_mf_defaults(&m);
    m.seed = 7;
    m.rows = 300;
    m.cols = 120;
    m.rank = 4;
    m.density = 0.1;
    if (mkdir("mf", 0777) != 0 || ptm_gen_mf(&m, "mf", NULL) != 0)
        return -1;
    struct ptm_data_opts dopt = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *prob;
    const struct ptm_csc *csc;
    int rc = ptm_data_read("prob/lasso.svm", &dopt, &dg, &prob);
    ptm_data_diags_release(&dg);
    if (rc != 0 || ptm_dataset_csc(prob, &csc) != 0)
        return -1;
    double *g = calloc((size_t)csc->ncols, sizeof(double));
    if (!g)
        return -1;
    lasso_grad_part(csc, prob->labels.val, g);
    lambda = 0.1 * lasso_lambda_max(g, csc->ncols, csc->nrows);
    free(g);
    ptm_dataset_free(prob);
    return 0;
}

static Suite *ckpt_suite(void)
{
    Suite *s = suite_create("ckpt_rules");
    TCase *tc = tcase_create("resume");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_lasso_resume, 0, (int)PTM_ARRAY_LEN(lasso_rows));
    tcase_add_loop_test(tc, test_mf_resume, 0, (int)PTM_ARRAY_LEN(mf_rows));
    tcase_add_loop_test(tc, test_mismatch, 0, (int)PTM_ARRAY_LEN(mismatch_rows));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-ckpt-rules.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_ckpt_rules: temporary directory");
        return EXIT_FAILURE;
    }
    if (setup() != 0) {
        fprintf(stderr, "test_ckpt_rules: cannot make the test problems\n");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(ckpt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
