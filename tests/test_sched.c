/*
 * test_sched.c - the schedulers (schedulers/): dynamic, rotation,
 * round_robin and random through the interface of scheduler.h, and the dynamic
 * policy inside `ptm run`.
 *
 * DESIGN: plans are built here by hand (a block set with programs emitted
 * with prog_emit), and the expressions read the test's arrays through a
 * struct prog_env of its own: data(j) and param(j) are priorities the test
 * sets, nnz(col j) a cost, corr(i, j) 1 or 0 from a conflict graph the
 * test knows (a seeded hash of the pair, so that it is symmetric and needs
 * no memory), counting each evaluation. Every property is checked against
 * that independent knowledge: no two kept blocks conflict (random graphs,
 * predicates and edge files, many rounds); a rotation epoch meets every
 * (worker, block) pair once; draw frequencies follow the weights and the
 * warm-up is uniform (chi-square tests at significance 0.001, so a correct
 * sampler fails one of them about once in a thousand runs of a test;
 * seeds are fixed, so a run is repeatable); the assignment is the greedy
 * rule recomputed here, and within the LPT bound; rounds depend on the
 * seed, not on the number of workers or on timing; pipelining lags by the
 * number of rounds it says; bad edge files give their whole messages;
 * allocation failures are clean; a scheduler's state saved and loaded
 * into one created alike deals the rounds the saved one goes on to deal,
 * and a state that does not fit is refused. Then `ptm run` with the
 * dynamic policy: the Lasso it solves meets the KKT conditions, the same
 * bits come out on 1, 2 and 3 workers, and a bad edge list is reported as
 * bad data.
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

#include "arena.h"
#include "ckpt.h"
#include "data.h"
#include "engine.h"
#include "engine_impl.h"
#include "gen.h"
#include "gen_lasso.h"
#include "kernel_lasso.h"
#include "plan.h"
#include "prog.h"
#include "ptm.h"
#include "rng.h"
#include "sched_impl.h"
#include "scheduler.h"
#include "testutil.h"

/* ---- the fixture: a plan, a block set and an environment ----------------------- */

/* An assertion for hot loops: ck_assert reports every check it passes to
 * the parent process (a system call each), this only failures. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

enum prio_kind {
    PRIO_NONE,     /* no priority statement: the default */
    PRIO_STATIC,   /* data(j): read once */
    PRIO_LOCAL,    /* param(j): re-evaluated for updated blocks */
    PRIO_NONLOCAL, /* param(j + 0): every block, after any update */
    PRIO_ROUNDS,   /* param(j) + 0 * rounds: every block when rounds moves */
    PRIO_ABS_DELTA, /* abs(delta(j)): the change done() is told */
};

enum dep_kind { DEP_NONE, DEP_PRED, DEP_FILE };

struct fx {
    struct ptm_plan plan;
    struct plan_blockset bs;
    double globals[PROG_NGLOBALS];
    struct prog_env env;
    int64_t B;
    double *w;     /* priorities: data(j) and param(j) */
    double *cost;  /* nnz(col j) */
    double density; /* share of pairs that conflict */
    uint64_t gseed;
    int64_t evals;  /* corr() calls */
    uint8_t *seen;  /* B * B when small: pairs evaluated */
    const float *order; /* ptm_sched_info.order, or NULL */
};

/* Does the pair (i, j) conflict in the test's graph? Symmetric. */
static bool truth(const struct fx *f, int64_t i, int64_t j)
{
    if (i == j)
        return false;
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    uint64_t x = f->gseed ^ (lo * 0x9e3779b97f4a7c15u) ^ (hi * 0xc2b2ae3d27d4eb4fu);
    x = ptm_splitmix64(&x);
    return (double)(x >> 11) * 0x1.0p-53 < f->density;
}

static double cb_data(void *ud, int32_t k, const int64_t *idx, int n)
{
    const struct fx *f = ud;
    (void)k;
    return n == 1 && idx[0] >= 1 && idx[0] <= f->B ? f->w[idx[0] - 1] : NAN;
}

static double cb_nnz(void *ud, int32_t k, int axis, int64_t j)
{
    const struct fx *f = ud;
    (void)k;
    CHECK(axis == 1, "nnz of a row");
    return j >= 1 && j <= f->B ? f->cost[j - 1] : NAN;
}

static double cb_corr(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    struct fx *f = ud;
    (void)a;
    (void)b;
    CHECK(i >= 1 && j <= f->B && i < j, "pair (%lld, %lld) evaluated", (long long)i, (long long)j);
    f->evals++;
    if (f->seen) {
        uint8_t *s = &f->seen[(i - 1) * f->B + (j - 1)];
        CHECK(*s == 0, "pair (%lld, %lld) evaluated twice", (long long)i, (long long)j);
        *s = 1;
    }
    return truth(f, i - 1, j - 1) ? 1 : 0;
}

static void emit(struct prog *p, enum prog_op op, int32_t a, int32_t b)
{
    ck_assert_int_eq(prog_emit(p, op, a, b), 0);
}

static void finish(struct prog *p, const char *text)
{
    ck_assert_int_eq(prog_finish(p), 0);
    ck_assert_int_eq(prog_set_text(p, text), 0);
}

/* A fixture of B blocks; every option at the language's default. */
static struct fx *fx_new(int64_t B, enum prio_kind prio, enum dep_kind dep, bool cost)
{
    struct fx *f = calloc(1, sizeof(*f));
    ck_assert_ptr_nonnull(f);
    f->B = B;
    f->w = calloc((size_t)B, sizeof(double));
    f->cost = calloc((size_t)B, sizeof(double));
    ck_assert(f->w && f->cost);
    for (int64_t b = 0; b < B; b++)
        f->w[b] = f->cost[b] = 1;
    f->gseed = 1;
    f->density = 0.1;
    struct plan_blockset *bs = &f->bs;
    bs->name = "coef";
    bs->param = 0;
    bs->axis = PLAN_AXIS_ELEMS;
    ck_assert_int_eq(prog_emit_const(&bs->count, 1), 0);
    finish(&bs->count, "1");
    bs->depend = dep == DEP_PRED ? PLAN_DEPEND_PRED : dep == DEP_FILE ? PLAN_DEPEND_FILE
                                                                       : PLAN_DEPEND_NONE;
    if (dep == DEP_PRED) {
        emit(&bs->pred, PROG_VAR, 0, 0);
        emit(&bs->pred, PROG_VAR, 1, 0);
        emit(&bs->pred, PROG_CORR, 0, 0);
        ck_assert_int_eq(prog_emit_const(&bs->pred, 0.5), 0);
        emit(&bs->pred, PROG_GT, 0, 0);
        finish(&bs->pred, "corr(col(X, i), col(X, j)) > 0.5");
    }
    if (dep == DEP_FILE)
        bs->edges = "edges.txt";
    bs->has_priority = prio != PRIO_NONE;
    struct prog *p = &bs->priority;
    switch (prio) {
    case PRIO_NONE:
        break;
    case PRIO_STATIC:
        emit(p, PROG_VAR, 0, 0);
        emit(p, PROG_DATA, 0, 1);
        finish(p, "w[j]");
        break;
    case PRIO_LOCAL:
        emit(p, PROG_VAR, 0, 0);
        emit(p, PROG_PARAM, 0, 1);
        finish(p, "beta[j]");
        break;
    case PRIO_NONLOCAL:
        emit(p, PROG_VAR, 0, 0);
        ck_assert_int_eq(prog_emit_const(p, 0), 0);
        emit(p, PROG_ADD, 0, 0);
        emit(p, PROG_PARAM, 0, 1);
        finish(p, "beta[j + 0]");
        break;
    case PRIO_ROUNDS:
        emit(p, PROG_VAR, 0, 0);
        emit(p, PROG_PARAM, 0, 1);
        emit(p, PROG_GLOBAL, PROG_G_ROUNDS, 0);
        ck_assert_int_eq(prog_emit_const(p, 0), 0);
        emit(p, PROG_MUL, 0, 0);
        emit(p, PROG_ADD, 0, 0);
        finish(p, "beta[j] + 0 * rounds");
        break;
    case PRIO_ABS_DELTA:
        emit(p, PROG_VAR, 0, 0);
        emit(p, PROG_DELTA, 0, 1);
        emit(p, PROG_ABS, 0, 0);
        finish(p, "abs(delta(beta[j]))");
        break;
    }
    bs->has_cost = cost;
    if (cost) {
        emit(&bs->cost, PROG_VAR, 0, 0);
        emit(&bs->cost, PROG_NNZ_COL, 0, 0);
        finish(&bs->cost, "nnz(col(X, j))");
    }
    f->plan.job = "t";
    f->plan.base_dir = ".";
    f->plan.blocksets = bs;
    f->plan.nblocksets = 1;
    f->plan.schedule = (struct plan_schedule){
        .policy = PLAN_POLICY_DYNAMIC,
        .over = 0,
        .sample = 256,
        .warmup = 0,
        .warmup_unit = PLAN_UNIT_SWEEPS,
        .balance = true,
        .pipeline = 0,
    };
    f->env = (struct prog_env){
        .globals = f->globals,
        .ud = f,
        .param = cb_data,
        .delta = cb_data,
        .data = cb_data,
        .nnz = cb_nnz,
        .corr = cb_corr,
    };
    return f;
}

static void fx_free(struct fx *f)
{
    prog_release(&f->bs.count);
    prog_release(&f->bs.pred);
    prog_release(&f->bs.priority);
    prog_release(&f->bs.cost);
    prog_release(&f->bs.order);
    free(f->w);
    free(f->cost);
    free(f->seen);
    free(f);
}

static struct ptm_sched_info fx_info(const struct fx *f, int P, uint64_t seed)
{
    return (struct ptm_sched_info){
        .plan = &f->plan,
        .bs = &f->bs,
        .nblocks = f->B,
        .workers = P,
        .per_round = f->plan.schedule.per_round,
        .seed = seed,
        .env = &f->env,
        .order = f->order,
    };
}

/* A round's arrays, sized for cap blocks and P workers. */
struct rd {
    struct ptm_sched_round r;
    size_t cap;
    int P;
};

static void rd_init(struct rd *x, size_t cap, int P)
{
    x->cap = cap;
    x->P = P;
    x->r = (struct ptm_sched_round){
        .blocks = calloc(cap + 1, sizeof(int64_t)),
        .part = calloc((size_t)P + 1, sizeof(size_t)),
        .load = calloc((size_t)P, sizeof(double)),
        .order = calloc(cap + 1, sizeof(size_t)),
    };
    ck_assert(x->r.blocks && x->r.part && x->r.load && x->r.order);
}

static void rd_release(struct rd *x)
{
    free(x->r.blocks);
    free(x->r.part);
    free(x->r.load);
    free(x->r.order);
}

/* A scheduler of policy ops over f, with its round buffers. */
struct sch {
    const struct ptm_sched_ops *ops;
    void *st;
    struct rd rd;
    struct fx *f;
};

static void sch_new(struct sch *s, const struct ptm_sched_ops *ops, struct fx *f, int P,
                    uint64_t seed)
{
    struct ptm_sched_info info = fx_info(f, P, seed);
    char err[1024] = "";
    s->ops = ops;
    s->f = f;
    int rc = ops->create(&info, &s->st, err, sizeof(err));
    ck_assert_msg(rc == 0, "create: %s", err);
    rd_init(&s->rd, ops->cap(s->st), P);
}

static void sch_free(struct sch *s)
{
    s->ops->destroy(s->st);
    rd_release(&s->rd);
}

/* The next round, checked for what every round must be. */
static const struct ptm_sched_round *sch_next(struct sch *s)
{
    char err[1024] = "";
    struct ptm_sched_round *r = &s->rd.r;
    int rc = s->ops->next(s->st, r, err, sizeof(err));
    ck_assert_msg(rc == 0, "next: %s", err);
    int64_t B = s->f->B;
    int P = s->rd.P;
    CHECK(r->n <= s->rd.cap, "%zu blocks, cap %zu", r->n, s->rd.cap);
    CHECK(r->part[0] == 0 && r->part[P] == r->n, "part[0] %zu, part[P] %zu", r->part[0],
          r->part[P]);
    bool *used = calloc((size_t)B, sizeof(bool)), *placed = calloc(r->n + 1, sizeof(bool));
    CHECK(used && placed, "out of memory");
    for (size_t i = 0; i < r->n; i++) {
        CHECK(r->blocks[i] >= 0 && r->blocks[i] < B, "block %lld", (long long)r->blocks[i]);
        CHECK(!used[r->blocks[i]], "block %lld twice", (long long)r->blocks[i]);
        used[r->blocks[i]] = true;
        size_t o = r->alone ? i : r->order[i]; /* alone: the order is not written */
        CHECK(o < r->n && !placed[o], "order[%zu] = %zu", i, o);
        placed[o] = true;
    }
    for (int p = 0; p < P; p++) {
        CHECK(r->part[p] <= r->part[p + 1], "part not increasing");
        double load = 0;
        for (size_t i = r->part[p]; i < r->part[p + 1]; i++)
            load += s->f->bs.has_cost ? s->f->cost[r->blocks[i]] : 1;
        CHECK(fabs(load - r->load[p]) <= 1e-9 * (1 + load), "worker %d load %g, want %g", p,
              r->load[p], load);
    }
    free(used);
    free(placed);
    return r;
}

/* The round's blocks in the policy's order. */
static void policy_order(const struct ptm_sched_round *r, int64_t *out)
{
    for (size_t i = 0; i < r->n; i++)
        out[r->alone ? i : r->order[i]] = r->blocks[i];
}

/* The worker of the block at place k of the policy's order. */
static int worker_of(const struct ptm_sched_round *r, int P, size_t k)
{
    for (int p = 0; p < P; p++)
        for (size_t i = r->part[p]; i < r->part[p + 1]; i++)
            if ((r->alone ? i : r->order[i]) == k)
                return p;
    return -1;
}

/* Tell the scheduler every block of r changed by change(b, round). */
static double change_of(int64_t b, int64_t t)
{
    uint64_t x = (uint64_t)b * 1000003u + (uint64_t)t;
    return (double)(ptm_splitmix64(&x) >> 11) * 0x1.0p-53 * (b % 7 == 0 ? 1 : 0.01);
}

static void sch_done(struct sch *s, int64_t t)
{
    const struct ptm_sched_round *r = &s->rd.r;
    double *c = calloc(r->n + 1, sizeof(double));
    ck_assert_ptr_nonnull(c);
    for (size_t i = 0; i < r->n; i++)
        c[i] = change_of(r->blocks[i], t);
    if (s->ops->done)
        s->ops->done(s->st, r->blocks, c, r->n);
    free(c);
}

/* Chi-square critical value for df degrees of freedom at significance
 * 0.001 (Wilson-Hilferty: accurate to a percent or so for df >= 3). */
static double chi2_crit(int df)
{
    double z = 3.0902, a = 2.0 / (9.0 * df);
    double c = 1 - a + z * sqrt(a);
    return df * c * c * c;
}

/* ---- rotation, round_robin, random ------------------------------------------------ */

/* Every (worker, block) pair once per epoch of P rounds; worker p holds
 * block (p + t) mod P. */
START_TEST(test_rotation)
{
    for (int P = 1; P <= 9; P++) {
        struct fx *f = fx_new(P, PRIO_NONE, DEP_NONE, false);
        f->plan.schedule.policy = PLAN_POLICY_ROTATION;
        struct sch s;
        sch_new(&s, &ptm_sched_rotation, f, P, 7);
        ck_assert_uint_eq(ptm_sched_rotation.cap(s.st), (size_t)P);
        int *met = calloc((size_t)(P * P), sizeof(int));
        ck_assert_ptr_nonnull(met);
        for (int t = 0; t < 3 * P; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            ck_assert_uint_eq(r->n, (size_t)P);
            for (int p = 0; p < P; p++) {
                ck_assert_uint_eq(r->part[p + 1] - r->part[p], 1);
                int64_t b = r->blocks[r->part[p]];
                ck_assert_int_eq(b, (p + t) % P);
                met[p * P + b]++;
            }
            if ((t + 1) % P == 0) { /* an epoch ends: each pair met once in it */
                for (int k = 0; k < P * P; k++)
                    ck_assert_int_eq(met[k], (t + 1) / P);
            }
        }
        free(met);
        sch_free(&s);
        fx_free(f);
    }
    /* not one block per worker */
    struct fx *f = fx_new(4, PRIO_NONE, DEP_NONE, false);
    struct ptm_sched_info info = fx_info(f, 3, 1);
    void *st = NULL;
    char err[512];
    ck_assert_int_eq(ptm_sched_rotation.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("rotation", 0, err,
                   "rotation needs one block per worker: block set 'coef' has 4 blocks and the run "
                   "has 3 workers (write 'blocks coef = ... into workers')",
                   NULL);
    fx_free(f);
}
END_TEST

/* random: the k-th block of the round to worker k mod P; round_robin: in
 * number order, worker p the blocks k with ceil(n p / P) <= k <
 * ceil(n (p + 1) / P); each worker's blocks together. */
START_TEST(test_deal)
{
    const struct ptm_sched_ops *ops[] = {&ptm_sched_round_robin, &ptm_sched_random};
    for (size_t o = 0; o < 2; o++)
        for (int P = 1; P <= 6; P++)
            for (int64_t per = 0; per <= 13; per += 13) {
                struct fx *f = fx_new(20, PRIO_NONE, DEP_NONE, false);
                f->plan.schedule.policy = o ? PLAN_POLICY_RANDOM : PLAN_POLICY_ROUND_ROBIN;
                f->plan.schedule.per_round = per;
                struct sch s;
                sch_new(&s, ops[o], f, P, 3);
                size_t want = per ? 13 : (size_t)P;
                int64_t next = 0, seq[32];
                for (int t = 0; t < 10; t++) {
                    const struct ptm_sched_round *r = sch_next(&s);
                    ck_assert_uint_eq(r->n, want);
                    policy_order(r, seq);
                    for (size_t k = 0; k < r->n; k++) {
                        int want_p = (int)(k % (size_t)P);
                        if (o == 0) /* the p with ceil(n p / P) <= k < ceil(n (p + 1) / P) */
                            for (want_p = 0;
                                 ((size_t)(want_p + 1) * r->n + (size_t)P - 1) / (size_t)P <= k;)
                                want_p++;
                        ck_assert_int_eq(worker_of(r, P, k), want_p);
                        if (o == 0) {
                            ck_assert_int_eq(seq[k], next);
                            next = (next + 1) % 20;
                        }
                    }
                }
                sch_free(&s);
                fx_free(f);
            }
}
END_TEST

/* ---- dynamic: conflicts ---------------------------------------------------------- */

/* Random graphs through the predicate: no kept pair conflicts, each pair
 * is evaluated at most once (bit matrices; the hash beyond is emptied when
 * full, so a pair may come again there), at most candidates * kept
 * evaluations a round, and each round's count is the scheduler's. */
START_TEST(test_no_conflicts_pred)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 40, 300, 1000, 9000};
    struct ptm_rng g;
    ptm_rng_seed(&g, 99 + (uint64_t)_i);
    for (size_t k = 0; k < PTM_ARRAY_LEN(sizes); k++) {
        int64_t B = sizes[k];
        struct fx *f = fx_new(B, _i % 2 ? PRIO_STATIC : PRIO_NONE, DEP_PRED, _i % 3 == 0);
        f->gseed = ptm_rng_next(&g);
        f->density = ptm_rng_uniform(&g) * (B > 500 ? 0.05 : 0.5);
        for (int64_t b = 0; b < B; b++) {
            f->w[b] = ptm_rng_uniform(&g) < 0.2 ? 0 : ptm_rng_uniform(&g) * 10;
            f->cost[b] = floor(ptm_rng_uniform(&g) * 50);
        }
        if (B <= 1000) {
            f->seen = calloc((size_t)(B * B), 1);
            ck_assert_ptr_nonnull(f->seen);
        }
        f->plan.schedule.sample = 1 + (int64_t)(ptm_rng_uniform(&g) * 300);
        f->plan.schedule.warmup = (int64_t)(ptm_rng_uniform(&g) * 3);
        f->plan.schedule.pipeline = (int64_t)(ptm_rng_uniform(&g) * 3);
        int P = 1 + (int)(ptm_rng_uniform(&g) * 9);
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, P, ptm_rng_next(&g));
        int64_t total = 0;
        for (int t = 0; t < 150; t++) {
            int64_t before = f->evals;
            const struct ptm_sched_round *r = sch_next(&s);
            int64_t cands = f->plan.schedule.sample < B ? f->plan.schedule.sample : B;
            ck_assert_int_eq(r->candidates, cands);
            ck_assert_int_eq(r->conflicts, cands - (int64_t)r->n);
            ck_assert_uint_ge(r->n, 1);
            for (size_t i = 0; i < r->n; i++)
                for (size_t j = i + 1; j < r->n; j++)
                    CHECK(!truth(f, r->blocks[i], r->blocks[j]),
                          "B=%lld round %d: %lld and %lld conflict", (long long)B, t,
                          (long long)r->blocks[i] + 1, (long long)r->blocks[j] + 1);
            ck_assert_int_le(r->evaluations, r->candidates * (int64_t)r->n);
            total += r->evaluations;
            (void)before;
            sch_done(&s, t);
        }
        /* with pipelining, rounds computed ahead are counted when handed out */
        ck_assert_int_ge(f->evals, total);
        sch_free(&s);
        fx_free(f);
    }
}
END_TEST

/* Write text to path. */
static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    ck_assert_int_eq(fclose(fp), 0);
}

static char tmpdir[64];

/* Enter a fresh temporary directory (the test runs in its own process). */
static void enter_tmpdir(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/ptm-test-sched.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    ck_assert_int_eq(chdir(tmpdir), 0);
}

static void leave_tmpdir(void)
{
    ck_assert_int_eq(chdir("/"), 0);
    tu_remove_tree(tmpdir);
}

/* Random graphs through edge files, with repeats, both orders, comments,
 * blank lines, CRLF and a hub (a block with a third of the others as
 * neighbours; in odd runs it leads every round of 8 candidates, so it is
 * looked up rather than stamped). The graph is the truth() of the fixture
 * plus the hub's edges. */
START_TEST(test_no_conflicts_edges)
{
    enter_tmpdir();
    static const int64_t sizes[] = {1, 2, 5, 60, 400, 5000};
    struct ptm_rng g;
    ptm_rng_seed(&g, 7 + (uint64_t)_i);
    for (size_t k = 0; k < PTM_ARRAY_LEN(sizes); k++) {
        int64_t B = sizes[k];
        struct fx *f = fx_new(B, _i % 2 ? PRIO_STATIC : PRIO_NONE, DEP_FILE, true);
        f->gseed = ptm_rng_next(&g);
        f->density = B > 1000 ? 0.002 : ptm_rng_uniform(&g) * 0.4;
        FILE *fp = fopen("edges.txt", "w");
        ck_assert_ptr_nonnull(fp);
        fprintf(fp, "# a random graph\n\n");
        int64_t hub = B / 2; /* conflicts with a third of the others */
        for (int64_t i = 0; i < B; i++)
            for (int64_t j = i + 1; j < B; j++) {
                bool e = truth(f, i, j);
                if (!e)
                    continue;
                bool swap = ptm_rng_uniform(&g) < 0.5;
                fprintf(fp, "%s%lld\t %lld%s\n", ptm_rng_uniform(&g) < 0.1 ? "  " : "",
                        (long long)(swap ? j : i) + 1, (long long)(swap ? i : j) + 1,
                        ptm_rng_uniform(&g) < 0.2 ? "\r" : "");
                if (ptm_rng_uniform(&g) < 0.1) /* repeated */
                    fprintf(fp, "%lld %lld\n", (long long)i + 1, (long long)j + 1);
            }
        /* the hub's extra edges are part of the truth below */
        for (int64_t j = 0; j < B; j += 3)
            if (j != hub)
                fprintf(fp, "%lld %lld\n", (long long)hub + 1, (long long)j + 1);
        ck_assert_int_eq(fclose(fp), 0);
        for (int64_t b = 0; b < B; b++)
            f->cost[b] = 1 + b % 5;
        f->w[hub] = 1e6;
        f->plan.schedule.sample = _i % 2 ? 8 : 1 + (int64_t)(ptm_rng_uniform(&g) * 300);
        int P = 1 + (int)(ptm_rng_uniform(&g) * 5);
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, P, ptm_rng_next(&g));
        for (int t = 0; t < 150; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            for (size_t i = 0; i < r->n; i++)
                for (size_t j = i + 1; j < r->n; j++) {
                    int64_t a = r->blocks[i], b = r->blocks[j];
                    bool hubedge = (a == hub && b % 3 == 0) || (b == hub && a % 3 == 0);
                    CHECK(!truth(f, a, b) && !hubedge, "B=%lld: %lld and %lld conflict",
                          (long long)B, (long long)a + 1, (long long)b + 1);
                }
            sch_done(&s, t);
        }
        sch_free(&s);
        fx_free(f);
    }
    leave_tmpdir();
}
END_TEST

/* The filter is greedy and maximal: a candidate is left out only for a
 * conflict with one kept before it. With sample = B every block is a
 * candidate, so every block left out conflicts with a kept one. */
START_TEST(test_filter_greedy)
{
    struct fx *f = fx_new(200, PRIO_STATIC, DEP_PRED, false);
    f->density = 0.08;
    for (int64_t b = 0; b < f->B; b++)
        f->w[b] = 1 + (double)((b * 37) % 200);
    f->plan.schedule.sample = 200;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 3, 5);
    for (int t = 0; t < 20; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        int64_t seq[200];
        policy_order(r, seq);
        for (int64_t b = 0; b < f->B; b++) {
            bool kept = false, blocked = false;
            for (size_t k = 0; k < r->n; k++) {
                kept |= seq[k] == b;
                blocked |= truth(f, b, seq[k]);
            }
            CHECK(kept != blocked, "block %lld: kept %d, conflicts with a kept block %d",
                  (long long)b + 1, kept, blocked);
        }
    }
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* The filter visits the candidates in draw order: of blocks that all
 * conflict, the one kept is the one drawn first, block b with probability
 * w_b / W (chi-square, significance 0.001, 60,000 rounds). */
START_TEST(test_filter_order)
{
    enum { B = 4, R = 60000 };
    static const double w[B] = {1, 2, 4, 0.5};
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_PRED, false);
    f->density = 1; /* every pair conflicts */
    double W = 0;
    for (int b = 0; b < B; b++)
        W += f->w[b] = w[b];
    f->plan.schedule.sample = B;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 22);
    long count[B] = {0};
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->n == 1 && r->conflicts == B - 1, "%zu kept", r->n);
        count[r->blocks[0]]++;
    }
    double chi2 = 0;
    for (int b = 0; b < B; b++) {
        double e = R * w[b] / W;
        chi2 += (count[b] - e) * (count[b] - e) / e;
    }
    ck_assert_msg(chi2 < chi2_crit(B - 1), "chi-square %g (critical %g)", chi2, chi2_crit(B - 1));
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* No starvation: block 1, of priority 1e-4, conflicts with ten blocks of
 * priority 1e-4 + 1e-9 and all are candidates every round. Visited by
 * decreasing priority it would never be kept; in draw order it is kept in
 * about one round in eleven (at least 100 of 2000 here, 182 expected). */
START_TEST(test_no_starvation)
{
    struct fx *f = fx_new(11, PRIO_STATIC, DEP_PRED, false);
    f->density = 1;
    f->w[0] = 1e-4;
    for (int b = 1; b < 11; b++)
        f->w[b] = 1e-4 + 1e-9;
    f->plan.schedule.sample = 11;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 23);
    int kept = 0;
    for (int t = 0; t < 2000; t++)
        kept += sch_next(&s)->blocks[0] == 0;
    ck_assert_msg(kept >= 100, "block 1 kept in %d rounds of 2000", kept);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* ---- dynamic: sampling ------------------------------------------------------------ */

/* One candidate a round: block b is drawn with probability w_b / W; a
 * block of weight 0 never (while others weigh more). Chi-square over
 * 200,000 rounds at significance 0.001. */
START_TEST(test_sampling_one)
{
    enum { B = 20, R = 200000 };
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
    double W = 0;
    for (int b = 0; b < B; b++) {
        f->w[b] = b == 4 || b == 11 ? 0 : 1 + b % 7;
        W += f->w[b];
    }
    f->w[17] = -3; /* below 0 counts as 0 */
    W -= 1 + 17 % 7;
    f->plan.schedule.sample = 1;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 11);
    long count[B] = {0};
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->n == 1, "%zu blocks", r->n);
        count[r->blocks[0]]++;
    }
    double chi2 = 0;
    int df = -1;
    for (int b = 0; b < B; b++) {
        double p = f->w[b] > 0 ? f->w[b] / W : 0;
        if (p == 0) {
            ck_assert_int_eq(count[b], 0);
            continue;
        }
        double e = R * p;
        chi2 += (count[b] - e) * (count[b] - e) / e;
        df++;
    }
    ck_assert_msg(chi2 < chi2_crit(df), "chi-square %g with %d degrees of freedom (critical %g)",
                  chi2, df, chi2_crit(df));
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* Two candidates a round, `keep all`: the pair {a, b} comes with the
 * probability of successive sampling without replacement,
 * w_a/W * w_b/(W - w_a) + w_b/W * w_a/(W - w_b). Chi-square over the 10
 * pairs of 5 blocks, 100,000 rounds, significance 0.001. */
START_TEST(test_sampling_pairs)
{
    enum { B = 5, R = 100000 };
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
    static const double w[B] = {1, 2, 4, 8, 0.5};
    double W = 0;
    for (int b = 0; b < B; b++)
        W += f->w[b] = w[b];
    f->plan.schedule.sample = 2;
    f->plan.schedule.keep_all = true;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 12);
    long count[B][B] = {{0}};
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->n == 2, "%zu blocks", r->n);
        int64_t a = r->blocks[0], b = r->blocks[1];
        count[a < b ? a : b][a < b ? b : a]++;
    }
    double chi2 = 0;
    for (int a = 0; a < B; a++)
        for (int b = a + 1; b < B; b++) {
            double p = w[a] / W * w[b] / (W - w[a]) + w[b] / W * w[a] / (W - w[b]);
            double e = R * p;
            chi2 += (count[a][b] - e) * (count[a][b] - e) / e;
        }
    ck_assert_msg(chi2 < chi2_crit(9), "chi-square %g (critical %g)", chi2, chi2_crit(9));
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* During the warm-up every weight counts as 1: one heavy block among ten
 * is drawn a tenth of the time (chi-square, significance 0.001); after
 * it, nearly always. */
START_TEST(test_warmup_uniform)
{
    enum { B = 10, WARM = 50000, AFTER = 20000 };
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
    f->w[3] = 1000;
    f->plan.schedule.sample = 1;
    f->plan.schedule.warmup = WARM;
    f->plan.schedule.warmup_unit = PLAN_UNIT_ROUNDS;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 13);
    long count[B] = {0};
    for (int t = 0; t < WARM; t++)
        count[sch_next(&s)->blocks[0]]++;
    double chi2 = 0, e = (double)WARM / B;
    for (int b = 0; b < B; b++)
        chi2 += (count[b] - e) * (count[b] - e) / e;
    ck_assert_msg(chi2 < chi2_crit(B - 1), "warm-up chi-square %g (critical %g)", chi2,
                  chi2_crit(B - 1));
    long heavy = 0;
    for (int t = 0; t < AFTER; t++)
        heavy += sch_next(&s)->blocks[0] == 3;
    double p = 1000.0 / 1009.0, sd = sqrt(AFTER * p * (1 - p));
    ck_assert_msg(fabs(heavy - AFTER * p) < 5 * sd, "heavy block %ld of %d after the warm-up",
                  heavy, AFTER);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* `warmup 2 sweeps` over 10 blocks, 3 a round: rounds 0 .. 6 are in the
 * warm-up (before round 6, 18 updates: sweep 1; before round 7, 21: sweep
 * 2). A block of weight 10^12 is first in the filter order of every round
 * after it, and of a warm-up round only when drawn first (1 in 10). */
START_TEST(test_warmup_sweeps)
{
    int first[9] = {0};
    for (uint64_t seed = 0; seed < 300; seed++) {
        struct fx *f = fx_new(10, PRIO_STATIC, DEP_NONE, false);
        f->w[0] = 1e12;
        f->plan.schedule.sample = 3;
        f->plan.schedule.keep_all = true;
        f->plan.schedule.warmup = 2;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, 2, seed);
        for (int t = 0; t < 9; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            int64_t seq[3];
            policy_order(r, seq);
            first[t] += seq[0] == 0;
        }
        sch_free(&s);
        fx_free(f);
    }
    for (int t = 0; t < 7; t++)
        ck_assert_msg(first[t] > 5 && first[t] < 70, "round %d: heavy block first %d of 300", t,
                      first[t]);
    ck_assert_int_eq(first[7], 300);
    ck_assert_int_eq(first[8], 300);
}
END_TEST

/* All priorities 0: draws are uniform among the blocks (chi-square,
 * significance 0.001), and rounds are full. */
START_TEST(test_all_zero)
{
    enum { B = 8, R = 80000 };
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
    for (int b = 0; b < B; b++)
        f->w[b] = 0;
    f->plan.schedule.sample = 3;
    f->plan.schedule.keep_all = true;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 14);
    long count[B] = {0};
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->n == 3, "%zu blocks", r->n);
        for (size_t i = 0; i < r->n; i++)
            count[r->blocks[i]]++;
    }
    /* each block is in a round with probability 3/8; the counts are not
     * independent (3 a round), which only makes chi-square smaller */
    double chi2 = 0, e = 3.0 * R / B;
    for (int b = 0; b < B; b++)
        chi2 += (count[b] - e) * (count[b] - e) / e;
    ck_assert_msg(chi2 < chi2_crit(B - 1), "chi-square %g", chi2);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* uniform 0.5: the first place of the draw order is drawn by weight, the
 * second uniformly among the blocks not drawn yet, here with 10 blocks of
 * weight 1 against 40 of 1e-12 (by weight alone both places would be one
 * of the 10). Chi-square of the second place over 49,000 rounds,
 * significance 0.001: block b comes with probability 0.9 / 49 (b < 10, one
 * of which took the first place) or 1 / 49. */
START_TEST(test_uniform_places)
{
    enum { B = 50, R = 49000 };
    struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
    for (int b = 0; b < B; b++)
        f->w[b] = b < 10 ? 1 : 1e-12;
    f->plan.schedule.sample = 2;
    f->plan.schedule.keep_all = true;
    f->plan.schedule.uniform = 0.5;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 18);
    long count[B] = {0};
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->n == 2, "%zu blocks", r->n);
        int64_t seq[2];
        policy_order(r, seq);
        CHECK(seq[0] < 10, "round %d: block %lld first", t, (long long)seq[0]);
        count[seq[1]]++;
    }
    double chi2 = 0;
    for (int b = 0; b < B; b++) {
        double e = R * (b < 10 ? 0.9 : 1.0) / (B - 1);
        chi2 += (count[b] - e) * (count[b] - e) / e;
    }
    ck_assert_msg(chi2 < chi2_crit(B - 1), "chi-square %g (critical %g)", chi2,
                  chi2_crit(B - 1));
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* uniform 1: every place is uniform, whatever the weights (chi-square over
 * 60,000 rounds of one candidate, significance 0.001); uniform 0 with the
 * same weights draws block 0 every time. */
START_TEST(test_uniform_all)
{
    enum { B = 12, R = 60000 };
    for (int all = 0; all <= 1; all++) {
        struct fx *f = fx_new(B, PRIO_STATIC, DEP_NONE, false);
        for (int b = 0; b < B; b++)
            f->w[b] = b == 0 ? 1e6 : 0;
        f->plan.schedule.sample = 1;
        f->plan.schedule.uniform = all;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, 2, 19);
        long count[B] = {0};
        for (int t = 0; t < R; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            CHECK(r->n == 1, "%zu blocks", r->n);
            count[r->blocks[0]]++;
        }
        if (!all) {
            ck_assert_int_eq(count[0], R);
        } else {
            double chi2 = 0, e = (double)R / B;
            for (int b = 0; b < B; b++)
                chi2 += (count[b] - e) * (count[b] - e) / e;
            ck_assert_msg(chi2 < chi2_crit(B - 1), "chi-square %g", chi2);
        }
        sch_free(&s);
        fx_free(f);
    }
}
END_TEST

/* ---- dynamic: priorities follow the changes --------------------------------------- */

/* The default priority is the change plus 1e-4: a block told it changed by
 * 10^6 is then drawn first and leads the filter order. */
START_TEST(test_default_priority)
{
    struct fx *f = fx_new(50, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 5;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 15);
    int64_t b = 17;
    double c = 1e6;
    ptm_sched_dynamic.done(s.st, &b, &c, 1);
    for (int t = 0; t < 20; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        int64_t seq[5];
        policy_order(r, seq);
        ck_assert_int_eq(seq[0], 17);
    }
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* ---- dynamic { active } ---------------------------------------------------------- */

/* The blocks of the rounds up to the end of the current pass (rounds of at
 * most 7), each told it changed by change(b), in number order; *n gets
 * how many. Every block comes once. */
static void active_pass(struct sch *s, int64_t *seen, int64_t *n, double (*change)(int64_t))
{
    int64_t B = s->f->B;
    bool *in = calloc((size_t)B, sizeof(bool));
    ck_assert_ptr_nonnull(in);
    *n = 0;
    for (;;) {
        const struct ptm_sched_round *r = sch_next(s);
        double c[7];
        bool repeat = false;
        for (size_t i = 0; i < r->n; i++)
            repeat |= in[r->blocks[i]];
        ck_assert_msg(!repeat, "a block twice in a pass");
        int64_t seq[7];
        policy_order(r, seq);
        for (size_t i = 0; i < r->n; i++) {
            in[seq[i]] = true;
            seen[(*n)++] = seq[i];
            c[i] = change(r->blocks[i]);
        }
        ptm_sched_dynamic.done(s->st, r->blocks, c, r->n);
        int64_t k = 0; /* a pass ends when the blocks it holds are all seen */
        for (int64_t b = 0; b < B; b++)
            k += in[b];
        if (r->n < 7 || k == B)
            break;
    }
    free(in);
}

static double moves_3_11_25(int64_t b) { return b == 3 || b == 11 || b == 25 ? 1.0 : 0; }
static double moves_half(int64_t b) { return b == 3 || b == 11 || b == 25 ? 0.5 : 0; }
static double moves_little(int64_t b) { return b == 3 || b == 11 || b == 25 ? 1e-3 : 0; }
static double moves_huge(int64_t b) { return b == 3 || b == 11 || b == 25 ? 1e308 : 0; }

/* A full pass visits every block once, in number order; then passes over
 * the blocks that moved (change not 0) while they change by more than 1%
 * of the full pass; then every block again. */
START_TEST(test_active_passes)
{
    enum { B = 30 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 7;
    f->plan.schedule.active = true;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 21);
    int64_t seen[B], n;
    active_pass(&s, seen, &n, moves_3_11_25);
    ck_assert_int_eq(n, B);
    for (int64_t i = 0; i < B; i++)
        ck_assert_int_eq(seen[i], i);
    /* the active set, twice: 1.5 is more than 1% of 3, 0.003 is not */
    active_pass(&s, seen, &n, moves_half);
    ck_assert_int_eq(n, 3);
    ck_assert(seen[0] == 3 && seen[1] == 11 && seen[2] == 25);
    active_pass(&s, seen, &n, moves_little);
    ck_assert_int_eq(n, 3);
    ck_assert(seen[0] == 3 && seen[1] == 11 && seen[2] == 25);
    active_pass(&s, seen, &n, moves_3_11_25);
    ck_assert_int_eq(n, B);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* Is order value a before b (a of the lower block): the larger in single
 * precision first, NaN last, equal ones in number order? */
static bool order_before(double a, double b)
{
    float x = (float)a, y = (float)b;
    if (isnan(y))
        return !isnan(x);
    return !isnan(x) && x > y;
}

/* The movers of test_active_order: three of the first pass's blocks. */
static int64_t order_movers[3];
static double moves_of(int64_t b, double c)
{
    return b == order_movers[0] || b == order_movers[1] || b == order_movers[2] ? c : 0;
}
static double order_moves(int64_t b)
{
    return moves_of(b, 1.0);
}
static double moves_one(int64_t b)
{
    (void)b;
    return 1;
}
static double order_moves_half(int64_t b)
{
    return moves_of(b, 0.5);
}
static double order_moves_little(int64_t b)
{
    return moves_of(b, 1e-3);
}

/* The first round of the first pass under `active` with an order: the N
 * (sample) blocks of largest order, from the largest down; their changes
 * told. */
static void order_round(struct sch *s, size_t N, const int64_t *sorted, double (*change)(int64_t))
{
    const struct ptm_sched_round *r = sch_next(s);
    ck_assert_uint_eq(r->n, N);
    int64_t *seq = malloc(N * sizeof(int64_t));
    double *c = malloc(N * sizeof(double));
    ck_assert(seq && c);
    policy_order(r, seq);
    for (size_t i = 0; i < N; i++) {
        ck_assert_msg(seq[i] == sorted[i], "place %zu: block %lld, not %lld", i, (long long)seq[i],
                      (long long)sorted[i]);
        c[i] = change(r->blocks[i]);
    }
    ptm_sched_dynamic.done(s->st, r->blocks, c, N);
    free(seq);
    free(c);
}

/* `order` under `active`: the first pass is the N (sample) blocks of
 * largest order from the largest down (equal ones in single precision, 0
 * and -0 too, in number order; NaN below every number), evaluated by the
 * policy or handed over by the caller, the same on 1 and 3 workers; it
 * counts as a full pass: the active passes after it go over those of its
 * blocks that moved, in number order, while they move by more than 1% of
 * it, and then comes a pass over every block in number order. The
 * reference is an insertion sort. */
START_TEST(test_active_order)
{
    enum { B = 40 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 7;
    f->plan.schedule.active = true;
    for (int64_t b = 0; b < B; b++)
        f->w[b] = (double)((b * 17) % 11) - 5; /* ties */
    f->w[2] = NAN;
    f->w[5] = INFINITY;
    f->w[6] = -INFINITY;
    f->w[7] = -0.0;
    f->w[8] = 0.0;
    f->w[9] = NAN;
    f->w[30] = 1e300;    /* inf in single precision: after block 5 */
    f->w[31] = 1 + 1e-9; /* 1 in single precision */
    f->w[33] = 1 - 1e-3;
    f->bs.has_order = true;
    emit(&f->bs.order, PROG_VAR, 0, 0);
    emit(&f->bs.order, PROG_DATA, 0, 1);
    finish(&f->bs.order, "w[j]");
    int64_t sorted[B];
    for (int64_t b = 0; b < B; b++) { /* insertion: stable */
        int64_t i = b;
        for (; i > 0 && order_before(f->w[b], f->w[sorted[i - 1]]); i--)
            sorted[i] = sorted[i - 1];
        sorted[i] = b;
    }
    ck_assert(sorted[0] == 5 && sorted[1] == 30 && sorted[B - 2] == 2 && sorted[B - 1] == 9);
    /* three of the first round's blocks move: the 2nd, 4th and 7th */
    order_movers[0] = sorted[1];
    order_movers[1] = sorted[3];
    order_movers[2] = sorted[6];
    int64_t movers[3] = {sorted[1], sorted[3], sorted[6]};
    for (int i = 1; i < 3; i++) /* in number order */
        for (int j = i; j > 0 && movers[j - 1] > movers[j]; j--) {
            int64_t t = movers[j];
            movers[j] = movers[j - 1];
            movers[j - 1] = t;
        }
    float given[B];
    for (int64_t b = 0; b < B; b++)
        given[b] = (float)f->w[b];
    for (int k = 0; k < 3; k++) {
        /* k = 2: the caller's values, and a program that would say otherwise */
        f->order = k == 2 ? given : NULL;
        if (k == 2)
            for (int64_t b = 0; b < B; b++)
                f->w[b] = (double)b;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, k == 1 ? 3 : 1, 5);
        int64_t seen[B], n;
        order_round(&s, 7, sorted, order_moves);
        /* 1.5 is more than 1% of 3, 0.003 is not */
        active_pass(&s, seen, &n, order_moves_half);
        ck_assert_int_eq(n, 3);
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(seen[i], movers[i]);
        active_pass(&s, seen, &n, order_moves_little);
        ck_assert_int_eq(n, 3);
        active_pass(&s, seen, &n, order_moves); /* the pass over every block */
        ck_assert_int_eq(n, B);
        for (int64_t i = 0; i < B; i++)
            ck_assert_int_eq(seen[i], i);
        active_pass(&s, seen, &n, order_moves_half); /* movers of the full pass */
        ck_assert_int_eq(n, 3);
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(seen[i], movers[i]);
        sch_free(&s);
    }
    fx_free(f);
}
END_TEST

/* The same over 3000 blocks whose orders take 40 values (many ties),
 * some NaN and some beyond single precision, for several round sizes:
 * the first pass the N first of a stable insertion sort; then, each told
 * it moved, the active pass over them in number order. */
START_TEST(test_active_order_many)
{
    enum { B = 3000 };
    static const size_t sizes[] = {1, 7, 100, 1499, 2999, 3000};
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.active = true;
    struct ptm_rng g;
    ptm_rng_seed(&g, 11);
    for (int64_t b = 0; b < B; b++) {
        uint64_t x = ptm_rng_next(&g) % 44;
        f->w[b] = x == 40 ? NAN : x == 41 ? 1e300 : x == 42 ? -1e300 : (double)x - 20.5;
    }
    f->bs.has_order = true;
    emit(&f->bs.order, PROG_VAR, 0, 0);
    emit(&f->bs.order, PROG_DATA, 0, 1);
    finish(&f->bs.order, "w[j]");
    static int64_t sorted[B], want[B], got[B];
    for (int64_t b = 0; b < B; b++) {
        int64_t i = b;
        for (; i > 0 && order_before(f->w[b], f->w[sorted[i - 1]]); i--)
            sorted[i] = sorted[i - 1];
        sorted[i] = b;
    }
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        size_t N = sizes[z];
        static bool top[B];
        memset(top, 0, sizeof(top));
        for (size_t i = 0; i < N; i++)
            top[sorted[i]] = true;
        int64_t m = 0;
        for (int64_t b = 0; b < B; b++)
            if (top[b])
                want[m++] = b;
        f->plan.schedule.sample = (int64_t)N;
        struct sch sc;
        sch_new(&sc, &ptm_sched_dynamic, f, 2, 3);
        order_round(&sc, N, sorted, moves_one);
        int64_t n = 0;
        while (n < (int64_t)N) { /* the active pass, each block told it moved */
            const struct ptm_sched_round *r = sch_next(&sc);
            double *c = malloc(r->n * sizeof(double));
            ck_assert_ptr_nonnull(c);
            ck_assert(n + (int64_t)r->n <= (int64_t)N);
            policy_order(r, got + n);
            for (size_t i = 0; i < r->n; i++)
                c[i] = 1;
            ptm_sched_dynamic.done(sc.st, r->blocks, c, r->n);
            n += (int64_t)r->n;
            free(c);
        }
        for (int64_t i = 0; i < (int64_t)N; i++)
            ck_assert_msg(got[i] == want[i], "sample %zu: place %lld: block %lld, not %lld", N,
                          (long long)i, (long long)got[i], (long long)want[i]);
        sch_free(&sc);
    }
    fx_free(f);
}
END_TEST

/* The blocks of the pass under way on P workers, in the policy's order,
 * each told it changed by 1, into seq (B of them, each once). */
static void chunk_pass(struct sch *s, int64_t *seq)
{
    int64_t B = s->f->B, n = 0;
    while (n < B) {
        const struct ptm_sched_round *r = sch_next(s);
        double *c = malloc(r->n * sizeof(double));
        ck_assert_ptr_nonnull(c);
        ck_assert(n + (int64_t)r->n <= B);
        policy_order(r, seq + n);
        for (size_t i = 0; i < r->n; i++)
            c[i] = 1;
        ptm_sched_dynamic.done(s->st, r->blocks, c, r->n);
        n += (int64_t)r->n;
        free(c);
    }
}

/* Under `shuffle` an active pass goes over its blocks 256 at a time in
 * number order, the runs in a random order drawn for the pass (the same on
 * any number of workers); a full pass goes in number order, and so does
 * every pass without `shuffle`. */
START_TEST(test_active_chunks)
{
    enum { B = 1200, PASSES = 5 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 100;
    f->plan.schedule.active = true;
    static int64_t plain[PASSES][B];
    struct sch u;
    sch_new(&u, &ptm_sched_dynamic, f, 2, 77);
    for (int p = 0; p < PASSES; p++) {
        chunk_pass(&u, plain[p]);
        for (int64_t i = 0; i < B; i++)
            ck_assert_int_eq(plain[p][i], i);
    }
    sch_free(&u);
    f->plan.schedule.shuffle = true;
    static int64_t seq[2][PASSES][B];
    for (int k = 0; k < 2; k++) {
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, k == 0 ? 1 : 3, 77);
        for (int p = 0; p < PASSES; p++)
            chunk_pass(&s, seq[k][p]);
        sch_free(&s);
    }
    int shuffled = 0;
    for (int p = 0; p < PASSES; p++) {
        bool *in = calloc(B, sizeof(bool));
        ck_assert_ptr_nonnull(in);
        int64_t runs = 0;
        for (int64_t i = 0; i < B; i++) {
            int64_t b = seq[0][p][i];
            ck_assert_int_eq(b, seq[1][p][i]); /* 1 worker as 3 */
            ck_assert(b >= 0 && b < B && !in[b]);
            in[b] = true;
            if (i == 0 || b != seq[0][p][i - 1] + 1) { /* a run starts: at a chunk's start */
                ck_assert_msg(b % 256 == 0, "pass %d: block %lld starts a run", p, (long long)b);
                ck_assert(i == 0 || seq[0][p][i - 1] % 256 == 255 || seq[0][p][i - 1] == B - 1);
                runs++;
            }
        }
        free(in);
        if (p == 0) /* the full pass: number order */
            ck_assert_int_eq(runs, 1);
        shuffled += p > 0 && seq[0][p][0] != 0;
        if (p > 1)
            shuffled += memcmp(seq[0][p], seq[0][p - 1], sizeof(seq[0][p])) != 0;
    }
    ck_assert_msg(shuffled >= 4, "the active passes' chunks came in number order (%d)", shuffled);
    fx_free(f);
}
END_TEST

/* Changes whose sum is too large for a double are numbers all the same:
 * the blocks that made them are the next pass. */
START_TEST(test_active_huge_changes)
{
    enum { B = 30 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 7;
    f->plan.schedule.active = true;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 21);
    int64_t seen[B], n;
    active_pass(&s, seen, &n, moves_huge);
    ck_assert_int_eq(n, B);
    active_pass(&s, seen, &n, moves_half);
    ck_assert_int_eq(n, 3);
    ck_assert(seen[0] == 3 && seen[1] == 11 && seen[2] == 25);
    char err[256];
    ck_assert_int_eq(ptm_sched_dynamic.next(s.st, &s.rd.r, err, sizeof(err)), 0);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* The blocks of the next round in policy order, each told it changed by
 * 1 when moves[b], else by 0; returns how many. */
static size_t active_round(struct sch *s, const bool *moves, int64_t *seq)
{
    const struct ptm_sched_round *r = sch_next(s);
    double c[8];
    ck_assert_uint_le(r->n, 8);
    policy_order(r, seq);
    for (size_t i = 0; i < r->n; i++)
        c[i] = moves[r->blocks[i]] ? 1.0 : 0;
    ptm_sched_dynamic.done(s->st, r->blocks, c, r->n);
    return r->n;
}

/* Under pipeline 1 the next pass is made before the last round's changes
 * are told; a block of that round that moved, outside the pass being made,
 * is in the pass after it, as every block whose last change was not 0. */
START_TEST(test_active_late_changes)
{
    enum { B = 30 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 2;
    f->plan.schedule.active = true;
    f->plan.schedule.pipeline = 1;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 23);
    bool moves[B] = {false};
    moves[3] = moves[11] = moves[25] = moves[29] = true;
    int64_t seq[8];
    for (int64_t b = 0; b < B; b += 2) { /* the full pass, two blocks a round */
        ck_assert_uint_eq(active_round(&s, moves, seq), 2);
        ck_assert(seq[0] == b && seq[1] == b + 1);
    }
    /* 29's change came after this pass was made */
    ck_assert_uint_eq(active_round(&s, moves, seq), 2);
    ck_assert(seq[0] == 3 && seq[1] == 11);
    ck_assert_uint_eq(active_round(&s, moves, seq), 1);
    ck_assert_int_eq(seq[0], 25);
    /* 3 and 11 moved by 2 (more than 1% of the full pass's 4): an active
     * pass again, over 3, 11 and 25 (its change is not told yet) and 29 */
    ck_assert_uint_eq(active_round(&s, moves, seq), 2);
    ck_assert(seq[0] == 3 && seq[1] == 11);
    ck_assert_uint_eq(active_round(&s, moves, seq), 2);
    ck_assert(seq[0] == 25 && seq[1] == 29);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* Under pipeline 1 a pass of one round is made again before its changes
 * are told: it is judged by them once told, not by the changes of the
 * pass before it (here the full pass's last round, which moved nothing). */
START_TEST(test_active_pipeline_judges_its_pass)
{
    enum { B = 30 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_NONE, false);
    f->plan.schedule.sample = 8;
    f->plan.schedule.active = true;
    f->plan.schedule.pipeline = 1;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 24);
    bool moves[B] = {false};
    moves[3] = moves[11] = true;
    int64_t seq[8];
    size_t n = 0;
    while (n < B)
        n += active_round(&s, moves, seq);
    ck_assert_uint_eq(n, B);
    for (int pass = 0; pass < 4; pass++) {
        ck_assert_msg(active_round(&s, moves, seq) == 2 && seq[0] == 3 && seq[1] == 11,
                      "active pass %d is not 3 and 11", pass);
    }
    moves[3] = moves[11] = false; /* they stop: a full pass after at most two more */
    bool full = false;
    for (int r = 0; r < 3 && !full; r++)
        full = active_round(&s, moves, seq) == 8;
    ck_assert(full);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* With dependencies, a candidate left out waits for the next round: a full
 * pass still updates each block exactly once, no round holds two blocks
 * that conflict, and some were left out on the way. */
/* A pass of B blocks updated each block once (count[b] times each, total
 * in all), and the filter left some out on the way. */
static void pass_once(const long *count, int64_t B, int64_t total, int64_t left_out)
{
    ck_assert_int_eq(total, B);
    for (int64_t b = 0; b < B; b++)
        ck_assert_int_eq(count[b], 1);
    ck_assert_int_gt(left_out, 0);
}

START_TEST(test_active_conflicts)
{
    enum { B = 40 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_PRED, false);
    f->density = 0.3;
    f->plan.schedule.sample = 10;
    f->plan.schedule.active = true;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 2, 22);
    long count[B] = {0};
    int64_t total = 0, left_out = 0;
    while (total < B) {
        const struct ptm_sched_round *r = sch_next(&s);
        left_out += r->conflicts;
        for (size_t i = 0; i < r->n; i++) {
            count[r->blocks[i]]++;
            for (size_t j = 0; j < i; j++)
                CHECK(!truth(f, r->blocks[i], r->blocks[j]), "%lld and %lld conflict",
                      (long long)r->blocks[i], (long long)r->blocks[j]);
        }
        total += (int64_t)r->n;
        double c[10] = {0};
        ptm_sched_dynamic.done(s.st, r->blocks, c, r->n);
    }
    pass_once(count, B, total, left_out);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* `keep moved`: next() keeps every candidate; recheck() keeps, in the
 * policy's order, each block that conflicts with no kept block before it
 * that moved (recomputed here from the graph), and the dropped ones come
 * back first in the next round, so that the pass still updates each
 * block once, whichever blocks moved; with no depend nothing is dropped.
 * The rounds and the filter's answers are the same for 1 and 3 workers. */
static void keep_moved_pass(int P, int64_t *kept_order, int64_t *nkept_total, int64_t *dropped)
{
    enum { B = 40, N = 10 };
    struct fx *f = fx_new(B, PRIO_NONE, DEP_PRED, false);
    f->density = 0.3;
    f->plan.schedule.sample = N;
    f->plan.schedule.active = true;
    f->plan.schedule.keep_moved = true;
    f->plan.schedule.pipeline = 0;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, P, 23);
    long count[B] = {0};
    int64_t total = 0, left_out = 0, t = 0;
    uint64_t rng = 99;
    while (total < B) {
        const struct ptm_sched_round *r = sch_next(&s);
        CHECK(r->conflicts == 0, "next() filtered under keep moved");
        int64_t seq[N], kmov[N];
        unsigned char moved[N];
        size_t keep[N], nm = 0, expect = 0;
        policy_order(r, seq);
        for (size_t i = 0; i < r->n; i++)
            moved[i] = (ptm_splitmix64(&rng) >> 62) != 0; /* three in four move */
        int64_t evals = 0;
        size_t nk = ptm_sched_dynamic.recheck(s.st, seq, moved, r->n, keep, &evals);
        /* the rule, recomputed */
        for (size_t i = 0; i < r->n; i++) {
            bool free = true;
            for (size_t j = 0; j < nm; j++)
                free &= !truth(f, seq[i], kmov[j]);
            if (!free)
                continue;
            CHECK(expect < nk && keep[expect] == i, "round %lld: place %zu should be kept",
                  (long long)t, i);
            expect++;
            if (moved[i])
                kmov[nm++] = seq[i];
        }
        CHECK(expect == nk, "round %lld: %zu kept, %zu expected", (long long)t, nk, expect);
        int64_t told[N];
        double c[N];
        for (size_t k = 0; k < nk; k++) {
            told[k] = seq[keep[k]];
            c[k] = moved[keep[k]] ? 1 : 0;
            count[told[k]]++;
            kept_order[total + (int64_t)k] = told[k];
        }
        total += (int64_t)nk;
        left_out += (int64_t)(r->n - nk);
        ptm_sched_dynamic.done(s.st, told, c, nk);
        t++;
    }
    pass_once(count, B, total, left_out);
    *nkept_total = total;
    *dropped = left_out;
    sch_free(&s);
    fx_free(f);
}

START_TEST(test_active_keep_moved)
{
    int64_t o1[40], o3[40], n1, n3, d1, d3;
    keep_moved_pass(1, o1, &n1, &d1);
    keep_moved_pass(3, o3, &n3, &d3);
    ck_assert_int_eq(n1, n3);
    ck_assert_int_eq(d1, d3);
    for (int i = 0; i < 40; i++)
        ck_assert_int_eq(o1[i], o3[i]);
}
END_TEST

/* The first block of the filter order of the next round, after w[x] is
 * raised to 10^9 (and done() is told of `told`, or of nothing). */
static int64_t leader_after(enum prio_kind prio, int64_t told, bool move_rounds)
{
    struct fx *f = fx_new(40, prio, DEP_NONE, false);
    f->plan.schedule.sample = 4;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 1, 16);
    sch_next(&s);
    f->w[9] = 1e9;
    if (told >= 0) {
        double c = 0;
        ptm_sched_dynamic.done(s.st, &told, &c, 1);
    }
    if (move_rounds)
        f->globals[PROG_G_ROUNDS] = 1;
    const struct ptm_sched_round *r = sch_next(&s);
    int64_t seq[4];
    policy_order(r, seq);
    int64_t lead = seq[0];
    sch_free(&s);
    fx_free(f);
    return lead;
}

/* What is re-evaluated when: a priority that reads only its block's own
 * variable, after that block's update; one that reads other elements,
 * after any update; one that reads rounds, when rounds moves; one that
 * reads data only, never. */
START_TEST(test_priority_refresh)
{
    ck_assert_int_ne(leader_after(PRIO_LOCAL, 3, false), 9); /* 9 not updated: stale */
    ck_assert_int_eq(leader_after(PRIO_LOCAL, 9, false), 9);
    ck_assert_int_eq(leader_after(PRIO_NONLOCAL, 3, false), 9);
    ck_assert_int_ne(leader_after(PRIO_NONLOCAL, -1, false), 9); /* nothing committed */
    ck_assert_int_ne(leader_after(PRIO_ROUNDS, -1, false), 9);
    ck_assert_int_eq(leader_after(PRIO_ROUNDS, -1, true), 9);
    ck_assert_int_ne(leader_after(PRIO_STATIC, 9, true), 9); /* data: read once */
}
END_TEST

/* ---- dynamic: assignment ------------------------------------------------------------ */

/* balance: by decreasing cost (ties in filter order) in a round of at
 * most 16 blocks a worker, else in filter order, each to the least loaded
 * worker (ties to the lowest number), recomputed here; max load <= mean
 * + largest cost. balance false: place k to worker k mod P. */
START_TEST(test_balance)
{
    struct ptm_rng g;
    ptm_rng_seed(&g, 17);
    for (int rep = 0; rep < 40; rep++) {
        int P = 1 + rep % 13;
        bool balance = rep % 4 != 3;
        struct fx *f = fx_new(500, PRIO_NONE, DEP_NONE, true);
        for (int64_t b = 0; b < f->B; b++)
            f->cost[b] = floor(ptm_rng_uniform(&g) * (rep % 2 ? 100 : 4));
        f->plan.schedule.sample = 1 + rep * 3;
        f->plan.schedule.keep_all = true;
        f->plan.schedule.balance = balance;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, P, (uint64_t)rep);
        for (int t = 0; t < 20; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            int64_t seq[512];
            policy_order(r, seq);
            double load[16] = {0}, sum = 0, big = 0;
            bool used[512] = {false};
            for (size_t n = 0; n < r->n; n++) {
                int want;
                if (balance) {
                    /* the next by decreasing cost, ties in filter order;
                     * in a large round the next in filter order */
                    bool sorted = r->n <= 16 * (size_t)P;
                    size_t at = sorted ? r->n : n;
                    for (size_t k = 0; sorted && k < r->n; k++)
                        if (!used[k] && (at == r->n || f->cost[seq[k]] > f->cost[seq[at]]))
                            at = k;
                    used[at] = true;
                    want = 0;
                    for (int p = 1; p < P; p++)
                        if (load[p] < load[want])
                            want = p;
                    load[want] += f->cost[seq[at]];
                    ck_assert_int_eq(worker_of(r, P, at), want);
                } else {
                    want = (int)(n % (size_t)P);
                    ck_assert_int_eq(worker_of(r, P, n), want);
                }
                sum += f->cost[seq[n]];
                big = fmax(big, f->cost[seq[n]]);
            }
            if (balance)
                for (int p = 0; p < P; p++)
                    ck_assert_msg(r->load[p] <= sum / P + big + 1e-9,
                                  "P=%d: load %g > mean %g + largest %g", P, r->load[p], sum / P,
                                  big);
            sch_done(&s, t);
        }
        sch_free(&s);
        fx_free(f);
    }
}
END_TEST

/* ---- rounds the caller runs on one worker ------------------------------------------ */

/* A caller's answer that depends on the blocks alone: a round whose
 * blocks hold an even count of multiples of 3. */
static bool alone_even_threes(void *ud, const int64_t *blocks, size_t n)
{
    int *asked = ud;
    size_t threes = 0;
    for (size_t i = 0; i < n; i++)
        threes += blocks[i] % 3 == 0;
    ++*asked;
    return threes % 2 == 0;
}

/* With ptm_sched_info.alone every policy deals the rounds it answers yes
 * for to the first worker, in the policy's order, and every other round as
 * it would without: the same rounds as a scheduler not asked, in another
 * dealing. */
START_TEST(test_alone)
{
    static const struct ptm_sched_ops *const ops[] = {&ptm_sched_dynamic, &ptm_sched_dynamic,
                                                      &ptm_sched_random, &ptm_sched_round_robin};
    const int P = 3;
    for (size_t k = 0; k < PTM_ARRAY_LEN(ops); k++) {
        /* random and round_robin count blocks, not cost */
        struct fx *f = fx_new(200, k == 0 ? PRIO_NONE : PRIO_ABS_DELTA, DEP_NONE, k < 2);
        for (int64_t b = 0; k < 2 && b < f->B; b++)
            f->cost[b] = (double)(1 + b % 13);
        f->plan.schedule.sample = 37;
        f->plan.schedule.per_round = 37;
        f->plan.schedule.keep_all = true;
        f->plan.schedule.balance = true;
        f->plan.schedule.pipeline = k == 1 ? 2 : 0;
        f->plan.schedule.active = k == 1;
        struct sch a, b;
        sch_new(&a, ops[k], f, P, 9);
        int asked = 0;
        struct sched_alone q = {.ud = &asked, .alone = alone_even_threes};
        struct ptm_sched_info info = fx_info(f, P, 9);
        info.alone = &q;
        char err[1024] = "";
        b.ops = ops[k];
        b.f = f;
        ck_assert_msg(ops[k]->create(&info, &b.st, err, sizeof(err)) == 0, "create: %s", err);
        rd_init(&b.rd, ops[k]->cap(b.st), P);
        int alone = 0, dealt = 0;
        for (int t = 0; t < 40; t++) {
            const struct ptm_sched_round *ra = sch_next(&a), *rb = sch_next(&b);
            ck_assert_uint_eq(ra->n, rb->n);
            ck_assert(!ra->alone);
            int64_t sa[64], sb[64];
            policy_order(ra, sa);
            policy_order(rb, sb);
            ck_assert(memcmp(sa, sb, ra->n * sizeof(int64_t)) == 0);
            int before = asked;
            bool want = alone_even_threes(&before, sa, ra->n);
            ck_assert_int_eq(rb->alone, want);
            if (want) {
                alone++;
                ck_assert_uint_eq(rb->part[1], rb->n);
                ck_assert(memcmp(rb->blocks, sa, ra->n * sizeof(int64_t)) == 0);
            } else {
                dealt++;
                ck_assert(memcmp(ra->blocks, rb->blocks, ra->n * sizeof(int64_t)) == 0);
                ck_assert(memcmp(ra->part, rb->part, ((size_t)P + 1) * sizeof(size_t)) == 0);
                ck_assert(memcmp(ra->order, rb->order, ra->n * sizeof(size_t)) == 0);
            }
            sch_done(&a, t);
            sch_done(&b, t);
        }
        ck_assert_msg(alone > 3 && dealt > 3, "policy %zu: %d rounds alone, %d dealt", k, alone,
                      dealt);
        ck_assert_int_gt(asked, 0);
        sch_free(&a);
        sch_free(&b);
        fx_free(f);
    }
}
END_TEST

/* ---- dynamic: determinism and pipelining ------------------------------------------- */

/* The blocks of R rounds in filter order, with done() fed change_of(). */
static void record(int P, uint64_t seed, int pipeline, int R, int64_t *out, size_t *n)
{
    struct fx *f = fx_new(300, PRIO_NONE, DEP_PRED, true);
    for (int64_t b = 0; b < f->B; b++)
        f->cost[b] = (double)(b % 11);
    f->plan.schedule.sample = 40;
    f->plan.schedule.pipeline = pipeline;
    f->plan.schedule.warmup = 1;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, P, seed);
    size_t at = 0;
    for (int t = 0; t < R; t++) {
        const struct ptm_sched_round *r = sch_next(&s);
        policy_order(r, out + at);
        at += r->n;
        out[at++] = -1;
        sch_done(&s, t);
    }
    *n = at;
    sch_free(&s);
    fx_free(f);
}

/* The same seed gives the same rounds, for any number of workers; another
 * seed does not. */
START_TEST(test_deterministic)
{
    enum { R = 60 };
    static int64_t a[R * 41], b[R * 41];
    size_t na, nb;
    for (int pipe = 0; pipe <= 2; pipe++) {
        record(1, 5, pipe, R, a, &na);
        for (int P = 1; P <= 7; P += 3) {
            record(P, 5, pipe, R, b, &nb);
            ck_assert_uint_eq(na, nb);
            ck_assert(memcmp(a, b, na * sizeof(int64_t)) == 0);
        }
        record(1, 6, pipe, R, b, &nb);
        ck_assert(na != nb || memcmp(a, b, na * sizeof(int64_t)) != 0);
    }
}
END_TEST

/* pipeline N: the schedule of round t + N is computed before round t
 * commits, so what done() says about round t shows first in round t + N +
 * 1. A block reported with a change of 10^6 leads the filter order from
 * then on. */
START_TEST(test_pipeline_lag)
{
    for (int N = 0; N <= 3; N++) {
        struct fx *f = fx_new(100, PRIO_NONE, DEP_NONE, false);
        f->plan.schedule.sample = 5;
        f->plan.schedule.pipeline = N;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, 2, 21);
        for (int t = 0; t < 12; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            int64_t seq[5];
            policy_order(r, seq);
            if (t == 2) {
                int64_t b = 77;
                double c = 1e6;
                ptm_sched_dynamic.done(s.st, &b, &c, 1);
            }
            if (t >= 3 + N)
                ck_assert_msg(seq[0] == 77, "pipeline %d, round %d: led by %lld", N, t,
                              (long long)seq[0]);
            else if (t <= 2 + N)
                ck_assert_msg(seq[0] != 77 || t < 3, "pipeline %d, round %d saw the change", N, t);
        }
        sch_free(&s);
        fx_free(f);
    }
}
END_TEST

/* ---- dynamic: odd inputs ------------------------------------------------------------ */

/* One block, more workers than blocks, more samples than blocks. */
START_TEST(test_small)
{
    for (int P = 1; P <= 5; P++) {
        struct fx *f = fx_new(1, PRIO_NONE, DEP_PRED, true);
        f->density = 1;
        struct sch s;
        sch_new(&s, &ptm_sched_dynamic, f, P, 1);
        ck_assert_uint_eq(ptm_sched_dynamic.cap(s.st), 1);
        for (int t = 0; t < 5; t++) {
            const struct ptm_sched_round *r = sch_next(&s);
            ck_assert_uint_eq(r->n, 1);
            ck_assert_int_eq(r->blocks[0], 0);
            ck_assert_int_eq(worker_of(r, P, 0), 0);
            sch_done(&s, t);
        }
        sch_free(&s);
        fx_free(f);
    }
    struct fx *f = fx_new(3, PRIO_STATIC, DEP_NONE, false);
    f->plan.schedule.sample = 1000;
    struct sch s;
    sch_new(&s, &ptm_sched_dynamic, f, 8, 1);
    const struct ptm_sched_round *r = sch_next(&s);
    ck_assert_uint_eq(r->n, 3);
    for (int p = 3; p < 8; p++)
        ck_assert_uint_eq(r->part[p + 1] - r->part[p], 0);
    sch_free(&s);
    fx_free(f);
}
END_TEST

/* Priorities that are not numbers, and costs out of range: errors that
 * name the block. */
START_TEST(test_bad_values)
{
    char err[512];
    void *st;
    /* NaN, read once at create */
    struct fx *f = fx_new(6, PRIO_STATIC, DEP_NONE, false);
    f->w[2] = NAN;
    struct ptm_sched_info info = fx_info(f, 2, 1);
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("bad", 0, err,
                   "the priority of coef(3), 'w[j]', is not a number (NaN): a priority must be a "
                   "number",
                   NULL);
    f->w[2] = INFINITY;
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("bad", 1, err,
                   "the priority of coef(3), 'w[j]', is infinite: a priority must be a number",
                   NULL);
    fx_free(f);
    /* NaN met after an update: the next round fails */
    f = fx_new(6, PRIO_LOCAL, DEP_NONE, false);
    info = fx_info(f, 2, 1);
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), 0);
    struct rd x;
    rd_init(&x, ptm_sched_dynamic.cap(st), 2);
    ck_assert_int_eq(ptm_sched_dynamic.next(st, &x.r, err, sizeof(err)), 0);
    f->w[4] = NAN;
    int64_t b = 4;
    double c = 0;
    ptm_sched_dynamic.done(st, &b, &c, 1);
    ck_assert_int_eq(ptm_sched_dynamic.next(st, &x.r, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("bad", 2, err,
                   "the priority of coef(5), 'beta[j]', is not a number (NaN): a priority must be "
                   "a number",
                   NULL);
    ptm_sched_dynamic.destroy(st);
    fx_free(f);
    /* the default priority of a change that is NaN */
    f = fx_new(6, PRIO_NONE, DEP_NONE, false);
    info = fx_info(f, 2, 1);
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), 0);
    c = NAN;
    b = 0;
    ptm_sched_dynamic.done(st, &b, &c, 1);
    ck_assert_int_eq(ptm_sched_dynamic.next(st, &x.r, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("bad", 3, err,
                   "the change of coef(1) is not a number (NaN), and so is its priority (the "
                   "change plus 1e-4): the update rule diverged",
                   NULL);
    ptm_sched_dynamic.destroy(st);
    rd_release(&x);
    fx_free(f);
    /* a negative cost */
    f = fx_new(6, PRIO_NONE, DEP_NONE, true);
    f->cost[5] = -1;
    info = fx_info(f, 2, 1);
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("bad", 4, err,
                   "the cost of coef(6), 'nnz(col(X, j))', is -1: a cost must be a finite number "
                   "of at least 0",
                   NULL);
    /* expressions without an environment */
    f->cost[5] = 1;
    info.env = NULL;
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text(
        "bad", 5, err,
        "the priority, cost or order of 'coef' reads data, parameters or run-time values, "
        "which this run does not provide",
        NULL);
    fx_free(f);
}
END_TEST

/* Edge lists: each bad file and its whole message (the path is relative
 * to the plan's base directory, here "."). */
static const struct {
    const char *text, *msg;
} bad_edges[] = {
    {"1 2\n0 3\n", "edges.txt:2:1: error: block 0 is out of range: the blocks are 1 .. 10"},
    {"1 11\n", "edges.txt:1:3: error: block 11 is out of range: the blocks are 1 .. 10"},
    {"1 99999999999999999999999\n",
     "edges.txt:1:3: error: block 99999999999999999999999 is out of range: the blocks are 1 .. 10"},
    {"4 4\n", "edges.txt:1:3: error: block 4 cannot depend on itself"},
    {"1 x\n", "edges.txt:1:3: error: expected a block number, found 'x'"},
    {"1,2\n", "edges.txt:1:1: error: expected a block number, found '1,2'"},
    {"-1 2\n", "edges.txt:1:1: error: expected a block number, found '-1'"},
    {"1.5 2\n", "edges.txt:1:1: error: expected a block number, found '1.5'"},
    {"1 2 3\n", "edges.txt:1:5: error: unexpected '3' after the two block numbers"},
    {"1 2 # note\n", "edges.txt:1:5: error: unexpected '#' after the two block numbers"},
    {"\n  7\n", "edges.txt:2:4: error: expected two block numbers, found one"},
    {"1 2\n3\t\t5\n\n9 +1\n", "edges.txt:4:3: error: expected a block number, found '+1'"},
    {"1 2\n3 4\nx y\n2 2\n",
     "edges.txt:3:1: error: expected a block number, found 'x'\n"
     "edges.txt:4:3: error: block 2 cannot depend on itself"},
    {"1 \x01\n", "edges.txt:1:3: error: expected a block number, found '?'"},
};

START_TEST(test_bad_edges)
{
    enter_tmpdir();
    write_file("edges.txt", bad_edges[_i].text);
    struct fx *f = fx_new(10, PRIO_NONE, DEP_FILE, false);
    struct ptm_sched_info info = fx_info(f, 2, 1);
    void *st = NULL;
    char err[4096];
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EDATA);
    tu_expect_text("bad_edges", _i, err, bad_edges[_i].msg, NULL);
    fx_free(f);
    leave_tmpdir();
}
END_TEST

/* More errors than are reported, a missing file, an empty name. */
START_TEST(test_edge_files)
{
    enter_tmpdir();
    FILE *fp = fopen("edges.txt", "w");
    ck_assert_ptr_nonnull(fp);
    for (int k = 0; k < 30; k++)
        fprintf(fp, "%d 0\n", k + 1);
    fclose(fp);
    struct fx *f = fx_new(10, PRIO_NONE, DEP_FILE, false);
    struct ptm_sched_info info = fx_info(f, 2, 1);
    void *st = NULL;
    char err[8192];
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EDATA);
    int lines = 1;
    for (const char *p = err; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, SCHED_MAX_ERRORS + 1);
    ck_assert_ptr_nonnull(strstr(err, "\nedges.txt: note: too many errors, stopped reading"));
    /* a small buffer: whole lines only, still an error */
    char small[80];
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, small, sizeof(small)), PTM_EDATA);
    tu_expect_text("edge_files", 0, small,
                   "edges.txt:1:3: error: block 0 is out of range: the blocks are 1 .. 10", NULL);
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, NULL, 0), PTM_EDATA);
    /* a good file with comments, blank lines, CRLF, repeats */
    write_file("edges.txt", "# conflicts\n\n1 2\r\n  2 1\n\t3 10 \n#\n");
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), 0);
    ptm_sched_dynamic.destroy(st);
    /* an empty file: no conflicts */
    write_file("edges.txt", "");
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), 0);
    ptm_sched_dynamic.destroy(st);
    /* missing */
    f->bs.edges = "nope.txt";
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_ENOENT);
    tu_expect_text("edge_files", 1, err,
                   "nope.txt: error: cannot open the edge list of 'coef': No such file or directory",
                   NULL);
    f->bs.edges = "";
    ck_assert_int_eq(ptm_sched_dynamic.create(&info, &st, err, sizeof(err)), PTM_EINVAL);
    tu_expect_text("edge_files", 2, err, "the edge-list file name of 'coef' is empty", NULL);
    fx_free(f);
    leave_tmpdir();
}
END_TEST

/* The adjacency lists of an edge list: sorted, without repeats, both ways. */
START_TEST(test_edges_read)
{
    const char *text = "3 1\n1 3\n2 5\n5 4\n1 5\n# x\n5 1\n";
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(fp);
    struct sched_edges e;
    char err[256];
    ck_assert_int_eq(sched_edges_read(fp, "mem", 5, &e, err, sizeof(err)), 0);
    fclose(fp);
    static const int64_t off[] = {0, 2, 3, 4, 5, 8};
    static const int64_t adj[] = {2, 4, 4, 0, 4, 0, 1, 3};
    for (int b = 0; b <= 5; b++)
        ck_assert_int_eq(e.off[b], off[b]);
    for (int k = 0; k < 8; k++)
        ck_assert_int_eq(e.adj[k], adj[k]);
    sched_edges_release(&e);
}
END_TEST

/* Every allocation of create failing in turn: PTM_ENOMEM, nothing leaked
 * (ASan checks that), and then success. */
START_TEST(test_fault)
{
    enter_tmpdir();
    write_file("edges.txt", "1 2\n2 3\n");
    static const struct {
        int64_t B;
        enum prio_kind prio;
        enum dep_kind dep;
        int pipeline;
    } rows[] = {
        {50, PRIO_NONE, DEP_PRED, 0},   {9000, PRIO_LOCAL, DEP_PRED, 2},
        {10, PRIO_STATIC, DEP_FILE, 1}, {10, PRIO_ROUNDS, DEP_NONE, 3},
    };
    for (size_t k = 0; k < PTM_ARRAY_LEN(rows); k++) {
        struct fx *f = fx_new(rows[k].B, rows[k].prio, rows[k].dep, true);
        f->plan.schedule.pipeline = rows[k].pipeline;
        struct ptm_sched_info info = fx_info(f, 3, 1);
        char err[512];
        for (unsigned long n = 1;; n++) {
            void *st = NULL;
            ptm_fault_inject(n);
            int rc = ptm_sched_dynamic.create(&info, &st, err, sizeof(err));
            ptm_fault_inject(0);
            if (rc == 0) {
                struct rd x;
                rd_init(&x, ptm_sched_dynamic.cap(st), 3);
                ck_assert_int_eq(ptm_sched_dynamic.next(st, &x.r, err, sizeof(err)), 0);
                rd_release(&x);
                ptm_sched_dynamic.destroy(st);
                ck_assert_uint_gt(n, 5);
                break;
            }
            ck_assert_int_eq(rc, PTM_ENOMEM);
            ck_assert_ptr_null(st);
        }
        fx_free(f);
    }
    leave_tmpdir();
}
END_TEST

/* ---- checkpoints ------------------------------------------------------------------- */

/* Configurations of every policy whose state a checkpoint must carry. */
static const struct ck_row {
    const char *name;
    enum plan_policy policy;
    int64_t B;
    int P;
    enum prio_kind prio;
    enum dep_kind dep;
    bool cost;
    int64_t sample, per_round, pipeline;
    bool active;
    double uniform;
    int64_t warmup;
    enum plan_unit warmup_unit;
    bool decay;  /* the changes shrink over stretches of 40 rounds */
    bool steady; /* blocks 0, 4, 8, ... never move, the others always (else
                    about a third of the changes are 0, at random) */
    bool shuffle;
    bool order; /* an order: nnz(col(X, j)), the fixture's costs */
} ck_rows[] = {
    {"dynamic, the change as priority, a predicate", PLAN_POLICY_DYNAMIC, 60, 3, PRIO_NONE,
     DEP_PRED, false, 12, 0, 0, false, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, abs(delta), uniform 0.5", PLAN_POLICY_DYNAMIC, 60, 2, PRIO_ABS_DELTA, DEP_NONE,
     false, 10, 0, 0, false, 0.5, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, param(j), costs, warmup 3 rounds", PLAN_POLICY_DYNAMIC, 50, 3, PRIO_LOCAL, DEP_NONE,
     true, 16, 0, 0, false, 0, 3, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, a priority read elsewhere", PLAN_POLICY_DYNAMIC, 40, 2, PRIO_NONLOCAL, DEP_PRED,
     false, 8, 0, 0, false, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, a priority that reads rounds, warmup 1 sweep", PLAN_POLICY_DYNAMIC, 45, 1,
     PRIO_ROUNDS, DEP_NONE, false, 9, 0, 0, false, 0, 1, PLAN_UNIT_SWEEPS, false, false, false,
     false},
    {"dynamic, every block a candidate", PLAN_POLICY_DYNAMIC, 20, 2, PRIO_NONE, DEP_PRED, true, 20,
     0, 0, false, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, pipeline 2", PLAN_POLICY_DYNAMIC, 60, 3, PRIO_LOCAL, DEP_PRED, true, 10, 0, 2, false,
     0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"dynamic, active", PLAN_POLICY_DYNAMIC, 60, 2, PRIO_NONE, DEP_PRED, false, 7, 0, 0, true, 0, 0,
     PLAN_UNIT_ROUNDS, true, false, false, false},
    {"dynamic, active, param(j), pipeline 3", PLAN_POLICY_DYNAMIC, 50, 3, PRIO_LOCAL, DEP_NONE,
     false, 6, 0, 3, true, 0, 0, PLAN_UNIT_ROUNDS, true, false, false, false},
    {"dynamic, active, a priority read elsewhere", PLAN_POLICY_DYNAMIC, 40, 1, PRIO_NONLOCAL,
     DEP_NONE, false, 5, 0, 0, true, 0, 0, PLAN_UNIT_ROUNDS, true, false, false, false},
    /* a full pass, then ACTIVE_PASSES active ones of a round each, then a
     * full one */
    {"dynamic, active, passes of a round, pipeline 1", PLAN_POLICY_DYNAMIC, 12, 2, PRIO_ABS_DELTA,
     DEP_NONE, false, 12, 0, 1, true, 0, 0, PLAN_UNIT_ROUNDS, false, true, false, false},
    {"random", PLAN_POLICY_RANDOM, 40, 2, PRIO_NONE, DEP_NONE, false, 0, 5, 0, false, 0, 0,
     PLAN_UNIT_ROUNDS, false, false, false, false},
    {"random, a block a worker", PLAN_POLICY_RANDOM, 40, 3, PRIO_NONE, DEP_NONE, false, 0, 0, 0,
     false, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"round_robin, per_round 7", PLAN_POLICY_ROUND_ROBIN, 40, 3, PRIO_NONE, DEP_NONE, false, 0, 7,
     0, false, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, false},
    {"rotation", PLAN_POLICY_ROTATION, 4, 4, PRIO_NONE, DEP_NONE, false, 0, 0, 0, false, 0, 0,
     PLAN_UNIT_ROUNDS, false, false, false, false},
    /* active passes of several chunks of 256 (blocks 0, 4, 8, ... rest) */
    {"dynamic, active, shuffle, passes of 3 chunks, pipeline 1", PLAN_POLICY_DYNAMIC, 700, 2,
     PRIO_ABS_DELTA, DEP_NONE, false, 64, 0, 1, true, 0, 0, PLAN_UNIT_ROUNDS, false, true, true,
     false},
    /* the first pass by the order, saved inside it and after it */
    {"dynamic, active, an order, pipeline 1", PLAN_POLICY_DYNAMIC, 90, 2, PRIO_ABS_DELTA, DEP_NONE,
     false, 8, 0, 1, true, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, true},
    /* with a predicate: the first pass's blocks left out wait (saved then) */
    {"dynamic, active, an order, a predicate", PLAN_POLICY_DYNAMIC, 90, 2, PRIO_ABS_DELTA, DEP_PRED,
     false, 16, 0, 0, true, 0, 0, PLAN_UNIT_ROUNDS, false, false, false, true},
};

/* A run as the engine drives its scheduler: before each next() the
 * globals are the run's, and after it every block of the round moves its
 * parameter (the fixture's w, which param() and delta() read) by a
 * made-up change of the block and the round, 0 for some (so that `active`
 * passes shrink), and done() is told the changes. */
struct ckrun {
    struct fx *f;
    struct sch s;
    int64_t t, updates;
    bool decay, steady;
};

static void ckrun_new(struct ckrun *r, const struct ck_row *row, int64_t B, int P)
{
    struct fx *f = fx_new(B, row->prio, row->dep, row->cost);
    for (int64_t b = 0; b < B; b++)
        f->cost[b] = (double)(1 + b % 5);
    struct plan_schedule *sc = &f->plan.schedule;
    sc->policy = row->policy;
    sc->sample = row->sample;
    sc->per_round = row->per_round;
    sc->pipeline = row->pipeline;
    sc->active = row->active;
    sc->shuffle = row->shuffle;
    sc->uniform = row->uniform;
    sc->warmup = row->warmup;
    sc->warmup_unit = row->warmup_unit;
    if (row->order) {
        f->bs.has_order = true;
        emit(&f->bs.order, PROG_VAR, 0, 0);
        emit(&f->bs.order, PROG_NNZ_COL, 0, 0);
        finish(&f->bs.order, "nnz(col(X, j))");
    }
    r->f = f;
    r->t = r->updates = 0;
    r->decay = row->decay;
    r->steady = row->steady;
    sch_new(&r->s, ptm_sched_find(row->policy), f, P, 77);
}

static void ckrun_free(struct ckrun *r)
{
    sch_free(&r->s);
    fx_free(r->f);
}

static const struct ptm_sched_round *ckrun_round(struct ckrun *r)
{
    struct fx *f = r->f;
    f->globals[PROG_G_ROUNDS] = (double)r->t;
    f->globals[PROG_G_SWEEPS] = floor((double)r->updates / (double)f->B);
    f->globals[PROG_G_WORKERS] = r->s.rd.P;
    const struct ptm_sched_round *rd = sch_next(&r->s);
    double *c = calloc(rd->n + 1, sizeof(double));
    ck_assert_ptr_nonnull(c);
    for (size_t i = 0; i < rd->n; i++) {
        int64_t b = rd->blocks[i];
        uint64_t x = (uint64_t)b * 0x9e3779b97f4a7c15u ^ (uint64_t)r->t * 1000003u;
        double u = (double)(ptm_splitmix64(&x) >> 11) * 0x1.0p-53;
        bool moves = r->steady ? b % 4 != 0 : u >= 0.35;
        c[i] = moves ? (0.1 + u) * (b % 5 == 0 ? 1 : 0.01) : 0;
        if (r->decay) /* active passes change less and less, then a full one */
            c[i] *= exp(-(double)(r->t % 40) / 4);
        f->w[b] = 0.5 * f->w[b] + c[i];
    }
    if (r->s.ops->done)
        r->s.ops->done(r->s.st, rd->blocks, c, rd->n);
    free(c);
    r->t++;
    r->updates += (int64_t)rd->n;
    return rd;
}

/* Are two rounds the same: blocks, workers' parts, policy order, loads,
 * candidates and conflicts (and evaluations, unless a predicate's cache,
 * which a checkpoint leaves out, may answer some of them)? */
static bool same_round(const struct ptm_sched_round *a, const struct ptm_sched_round *b, int P,
                       bool evals)
{
    if (a->n != b->n || a->candidates != b->candidates || a->conflicts != b->conflicts ||
        (evals && a->evaluations != b->evaluations))
        return false;
    if (memcmp(a->blocks, b->blocks, a->n * sizeof(int64_t)) != 0 ||
        memcmp(a->order, b->order, a->n * sizeof(size_t)) != 0 ||
        memcmp(a->part, b->part, ((size_t)P + 1) * sizeof(size_t)) != 0)
        return false;
    for (int p = 0; p < P; p++)
        if (a->load[p] != b->load[p])
            return false;
    return true;
}

/* The whole of a file. */
static char *slurp(FILE *fp, long *len)
{
    fflush(fp);
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    *len = ftell(fp);
    rewind(fp);
    char *buf = malloc((size_t)*len + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)*len, fp), (size_t)*len);
    return buf;
}

/* A scheduler saved after k rounds and loaded into one created alike (its
 * run given the parameters and counters back, as the engine does) deals
 * the same next rounds as the one saved, and then saves the same bytes;
 * one created alike and not loaded deals other rounds, for most k (a
 * rotation after whole epochs starts again alike, say). */
START_TEST(test_ckpt_resume)
{
    const struct ck_row *row = &ck_rows[_i];
    enum { K = 64, M = 40 };
    int64_t differ_k = 0;
    for (int64_t k = 0; k < K; k++) {
        struct ckrun a, b, fresh;
        ckrun_new(&a, row, row->B, row->P);
        for (int64_t t = 0; t < k; t++)
            ckrun_round(&a);
        FILE *fp = tmpfile();
        ck_assert_ptr_nonnull(fp);
        struct ptm_ckpt ck = {.f = fp};
        a.s.ops->state(a.s.st, &ck);
        ck_assert_msg(ck.err == 0, "%s: save: %s", row->name, ck.msg);
        ck_assert_uint_gt(ck.bytes, 64);

        ckrun_new(&b, row, row->B, row->P);
        memcpy(b.f->w, a.f->w, (size_t)row->B * sizeof(double));
        b.t = a.t;
        b.updates = a.updates;
        rewind(fp);
        struct ptm_ckpt ld = {.f = fp, .load = true};
        b.s.ops->state(b.s.st, &ld);
        ck_assert_msg(ld.err == 0, "%s, after %lld rounds: load: %s", row->name, (long long)k,
                      ld.msg);
        ck_assert_uint_eq(ld.bytes, ck.bytes);
        ck_assert_uint_eq(ld.crc, ck.crc);
        ck_assert_int_eq(fgetc(fp), EOF);
        fclose(fp);

        ckrun_new(&fresh, row, row->B, row->P);
        memcpy(fresh.f->w, a.f->w, (size_t)row->B * sizeof(double));
        fresh.t = a.t;
        fresh.updates = a.updates;
        bool differ = false, evals = row->dep != DEP_PRED;
        for (int m = 0; m < M; m++) {
            const struct ptm_sched_round *ra = ckrun_round(&a), *rb = ckrun_round(&b);
            ck_assert_msg(same_round(ra, rb, row->P, evals),
                          "%s: saved after %lld rounds, round %d after it differs", row->name,
                          (long long)k, m);
            differ |= !same_round(ra, ckrun_round(&fresh), row->P, false);
        }
        differ_k += differ;

        /* what the two hold now: the same, byte for byte */
        FILE *fa = tmpfile(), *fb = tmpfile();
        ck_assert(fa && fb);
        struct ptm_ckpt sa = {.f = fa}, sb = {.f = fb};
        a.s.ops->state(a.s.st, &sa);
        b.s.ops->state(b.s.st, &sb);
        ck_assert(sa.err == 0 && sb.err == 0);
        if (evals) {
            long la, lb;
            char *ba = slurp(fa, &la), *bb = slurp(fb, &lb);
            ck_assert_msg(la == lb && memcmp(ba, bb, (size_t)la) == 0,
                          "%s: the states saved after the same rounds differ", row->name);
            free(ba);
            free(bb);
        }
        fclose(fa);
        fclose(fb);
        ckrun_free(&a);
        ckrun_free(&b);
        ckrun_free(&fresh);
    }
    ck_assert_msg(differ_k >= K / 2,
                  "%s: a scheduler not loaded deals other rounds only %lld times of %d", row->name,
                  (long long)differ_k, K);
}
END_TEST

/* A state loaded into a scheduler set up otherwise (another policy, other
 * blocks, workers, sample, pipeline or `active`), or cut short, is
 * refused as bad data, and the scheduler is freed cleanly. */
START_TEST(test_ckpt_mismatch)
{
    static const struct {
        int from, to;   /* rows of ck_rows */
        int64_t B;      /* the loading scheduler's blocks (0: the row's) */
        int P;          /* its workers (0: the row's) */
        int64_t sample; /* its sample (0: the row's) */
        int active;     /* its `active` (-1: the row's) */
        long cut;       /* > 0: the stream cut to this many bytes */
    } cases[] = {
        {0, 0, 61, 0, 0, -1, 0}, /* other blocks */
        {0, 11, 0, 0, 0, -1, 0}, /* other policies */
        {0, 13, 0, 0, 0, -1, 0},    {0, 14, 0, 0, 0, -1, 0},
        {0, 0, 0, 0, 11, -1, 0},  /* another sample */
        {6, 1, 0, 0, 10, -1, 0},  /* pipeline 2, none */
        {6, 6, 0, 2, 0, -1, 0},   /* the rounds computed ahead were dealt to 3 workers */
        {7, 7, 0, 0, 0, 0, 0},    /* active, not active */
        {1, 1, 0, 0, 0, 1, 0},    /* not active, active */
        {7, 7, 0, 0, 0, -1, 200}, /* cut short */
        {8, 8, 0, 0, 0, -1, 1000},  {11, 11, 39, 0, 0, -1, 0},
        {11, 13, 0, 0, 0, -1, 0},   {11, 0, 0, 0, 0, -1, 0},
        {11, 11, 0, 0, 0, -1, 100}, {13, 13, 41, 0, 0, -1, 0},
        {13, 12, 0, 0, 0, -1, 0},   {13, 14, 0, 0, 0, -1, 0},
        {13, 13, 0, 0, 0, -1, 70},  {14, 14, 5, 5, 0, -1, 0},
        {14, 13, 0, 0, 0, -1, 0},   {14, 0, 0, 0, 0, -1, 0},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(cases); i++) {
        const struct ck_row *from = &ck_rows[cases[i].from], *to = &ck_rows[cases[i].to];
        struct ckrun a, b;
        ckrun_new(&a, from, from->B, from->P);
        for (int t = 0; t < 9; t++)
            ckrun_round(&a);
        FILE *fp = tmpfile();
        ck_assert_ptr_nonnull(fp);
        struct ptm_ckpt ck = {.f = fp};
        a.s.ops->state(a.s.st, &ck);
        ck_assert_int_eq(ck.err, 0);
        if (cases[i].cut > 0) {
            ck_assert_int_lt(cases[i].cut, (long)ck.bytes);
            fflush(fp);
            ck_assert_int_eq(ftruncate(fileno(fp), cases[i].cut), 0);
        }
        struct ck_row alt = *to;
        if (cases[i].sample)
            alt.sample = cases[i].sample;
        if (cases[i].active >= 0)
            alt.active = cases[i].active;
        ckrun_new(&b, &alt, cases[i].B ? cases[i].B : to->B, cases[i].P ? cases[i].P : to->P);
        rewind(fp);
        struct ptm_ckpt ld = {.f = fp, .load = true};
        b.s.ops->state(b.s.st, &ld);
        ck_assert_msg(ld.err == PTM_EDATA, "case %zu (%s into %s): %d, %s", i, from->name, to->name,
                      ld.err, ld.msg);
        ck_assert_msg(ld.msg[0] != '\0', "case %zu: no message", i);
        if (tu_verbose())
            printf("case %zu: %s\n", i, ld.msg);
        fclose(fp);
        ckrun_free(&a);
        ckrun_free(&b);
    }
}
END_TEST

/* Values no run could have saved are refused where a scheduler would
 * index with them: a round_robin position past the last block, a random
 * permutation with a block twice, a dynamic weight that is not a number,
 * and a dynamic pass flag that is not 0 or 1. */
START_TEST(test_ckpt_bad_values)
{
    static const struct {
        int row;
        long at; /* where the bad bytes go: after the tag (64) and the sizes */
        int64_t value;
        bool nan;
    } cases[] = {
        {13, 64 + 8, 40, false}, /* position 40 of blocks 0 .. 39 */
        {13, 64 + 8, -1, false},
        {11, 64 + 8 + 8 * 3, 0, false}, /* perm[3] = 0 = perm[k] for some k */
        {11, 64 + 8 + 8 * 3, 40, false},
        {0, 64 + 4 * 8 + 2 * 8 + 32, 0, true}, /* the weight of block 1 */
        {0, 64 + 4 * 8, -5, false},            /* rounds scheduled */
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(cases); i++) {
        const struct ck_row *row = &ck_rows[cases[i].row];
        struct ckrun a, b;
        ckrun_new(&a, row, row->B, row->P);
        for (int t = 0; t < 5; t++)
            ckrun_round(&a);
        FILE *fp = tmpfile();
        ck_assert_ptr_nonnull(fp);
        struct ptm_ckpt ck = {.f = fp};
        a.s.ops->state(a.s.st, &ck);
        ck_assert_int_eq(ck.err, 0);
        ck_assert_int_eq(fseek(fp, cases[i].at, SEEK_SET), 0);
        if (cases[i].nan) {
            double v = NAN;
            ck_assert_uint_eq(fwrite(&v, sizeof(v), 1, fp), 1);
        } else {
            ck_assert_uint_eq(fwrite(&cases[i].value, sizeof(int64_t), 1, fp), 1);
        }
        ckrun_new(&b, row, row->B, row->P);
        rewind(fp);
        struct ptm_ckpt ld = {.f = fp, .load = true};
        b.s.ops->state(b.s.st, &ld);
        ck_assert_msg(ld.err == PTM_EDATA, "case %zu (%s): %d, %s", i, row->name, ld.err, ld.msg);
        if (tu_verbose())
            printf("bad value %zu: %s\n", i, ld.msg);
        fclose(fp);
        ckrun_free(&a);
        ckrun_free(&b);
    }
}
END_TEST

/* A failure done() met (a priority that is not a number), saved before
 * the next() that reports it, is reported by the scheduler loaded, word
 * for word. */
START_TEST(test_ckpt_failure)
{
    const struct ck_row *row = &ck_rows[2]; /* param(j): evaluated in done() */
    struct ckrun a, b;
    ckrun_new(&a, row, row->B, row->P);
    const struct ptm_sched_round *r = ckrun_round(&a);
    int64_t blk = r->blocks[0];
    double c = 1;
    a.f->w[blk] = NAN;
    a.s.ops->done(a.s.st, &blk, &c, 1);
    FILE *fp = tmpfile();
    ck_assert_ptr_nonnull(fp);
    struct ptm_ckpt ck = {.f = fp};
    a.s.ops->state(a.s.st, &ck);
    ck_assert_int_eq(ck.err, 0);
    ckrun_new(&b, row, row->B, row->P);
    rewind(fp);
    struct ptm_ckpt ld = {.f = fp, .load = true};
    b.s.ops->state(b.s.st, &ld);
    ck_assert_msg(ld.err == 0, "%s", ld.msg);
    fclose(fp);
    char ea[512] = "", eb[512] = "";
    ck_assert_int_eq(a.s.ops->next(a.s.st, &a.s.rd.r, ea, sizeof(ea)), PTM_EINVAL);
    ck_assert_int_eq(b.s.ops->next(b.s.st, &b.s.rd.r, eb, sizeof(eb)), PTM_EINVAL);
    ck_assert_ptr_nonnull(strstr(ea, "not a number"));
    ck_assert_str_eq(ea, eb);
    ckrun_free(&a);
    ckrun_free(&b);
}
END_TEST

/* ---- the dynamic policy in ptm run -------------------------------------------------- */

static double lambda;
static struct ptm_dataset *prob;
static const struct ptm_csc *prob_csc;
static char top[4096]; /* the tests' directory */

/* The Lasso job over the generated problem with schedule and extra lines. */
static struct ptm_plan *lasso_job(const char *schedule, const char *extra, const char *stop)
{
    char text[8192];
    snprintf(text, sizeof(text),
             "job t\n"
             "const lambda = %.17g\n"
             "data X : sparse matrix from \"prob/lasso.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param beta : vector[cols(X)] = 0\n"
             "param r    : vector[rows(X)] = y shard like X\n"
             "blocks coef = beta each 1\n"
             "%s\n"
             "schedule %s\n"
             "update builtin lasso_cd { lambda = lambda }\n"
             "objective builtin lasso_objective { lambda = lambda } every 1 sweeps\n"
             "stop when %s\n",
             lambda, extra, schedule, stop);
    return tu_compile("t.ptm", text, top, true);
}

/* Which jobs keep X's rows beside its columns: a scheduler expression
 * that reads an entry, or a dependency comparing columns with corr() or
 * cos() (its filter and graph go by rows); with keep all the dependency
 * is never evaluated, and nnz(col()) reads the columns. */
START_TEST(test_reads_rows)
{
    static const struct {
        const char *schedule, *extra;
        bool rows;
    } cases[] = {
        {"dynamic { sample 8 }",
         "depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3", true},
        {"dynamic { sample 8 }",
         "depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1", true},
        {"dynamic { sample 8, keep all }",
         "depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3", false},
        {"dynamic { sample 8 }", "priority coef(j) = abs(X[1, j]) + 1e-4", true},
        {"dynamic { sample 8 }", "cost coef(j) = nnz(col(X, j))", false},
        {"round_robin { per_round 8 }", "", false},
    };
    for (size_t k = 0; k < PTM_ARRAY_LEN(cases); k++) {
        struct ptm_plan *plan = lasso_job(cases[k].schedule, cases[k].extra, "rounds > 1");
        ck_assert_msg(rt_sched_reads_entries(plan) == cases[k].rows, "%s %s: %d", cases[k].schedule,
                      cases[k].extra, !cases[k].rows);
        plan_free(plan);
    }
}
END_TEST

static int run_job(const struct ptm_plan *plan, int P, double *beta, struct ptm_data_diags *dg,
                   char *err, size_t errlen)
{
    struct ptm_run_opts o = {.workers = P, .seed = 3, .has_seed = true};
    struct ptm_run *run;
    int rc = ptm_run_new(plan, &o, dg, err, errlen, &run);
    if (rc != 0)
        return rc;
    rc = ptm_run_exec(run, err, errlen);
    if (rc == 0)
        ck_assert_int_eq(ptm_run_param(run, 0, beta, prob_csc->ncols), prob_csc->ncols);
    ptm_run_free(run);
    return rc;
}

static const char *const lasso_structure =
    "depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\n"
    "priority coef(j) = abs(delta(beta[j])) + 1e-4\n"
    "cost coef(j) = nnz(col(X, j))\n";

/* The Lasso under dynamic meets the KKT conditions; the kernel's results
 * do not depend on the number of workers, bit for bit. A priority that
 * reads X[i, j] keeps the rows of X (X is not turned into columns only). */
START_TEST(test_run_lasso)
{
    int64_t d = prob_csc->ncols, n = prob_csc->nrows;
    double *a = calloc((size_t)d, sizeof(double)), *b = calloc((size_t)d, sizeof(double));
    double *r = calloc((size_t)n, sizeof(double)), *g = calloc((size_t)d, sizeof(double));
    ck_assert(a && b && r && g);
    char err[1024];
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_plan *plan =
        lasso_job("dynamic { sample 64, warmup 1 sweeps, pipeline 1 }", lasso_structure,
                  "sweeps >= 200");
    ck_assert_msg(run_job(plan, 2, a, &dg, err, sizeof(err)) == 0, "%s", err);
    lasso_residual(prob_csc, prob->labels.val, a, r);
    lasso_grad_part(prob_csc, r, g);
    double kkt = lasso_kkt(g, a, d, n, lambda, NULL);
    ck_assert_msg(kkt < 1e-6, "KKT residual %g", kkt);
    plan_free(plan);

    plan = lasso_job("dynamic { sample 64, warmup 1 sweeps, pipeline 2 }", lasso_structure,
                     "sweeps >= 15");
    ck_assert_msg(run_job(plan, 1, a, &dg, err, sizeof(err)) == 0, "%s", err);
    for (int P = 2; P <= 3; P++) {
        ck_assert_msg(run_job(plan, P, b, &dg, err, sizeof(err)) == 0, "%s", err);
        ck_assert_msg(memcmp(a, b, (size_t)d * sizeof(double)) == 0, "P=1 and P=%d differ", P);
    }
    plan_free(plan);

    plan = lasso_job("dynamic { sample 32 }",
                     "priority coef(j) = abs(delta(beta[j])) + 1e-4 + 0 * X[1, j]\n",
                     "sweeps >= 5");
    ck_assert_msg(run_job(plan, 2, a, &dg, err, sizeof(err)) == 0, "%s", err);
    plan_free(plan);
    ptm_data_diags_release(&dg);
    free(a);
    free(b);
    free(r);
    free(g);
}
END_TEST

/* A bad edge list stops `ptm run` before the first round as bad data,
 * with the file's location among the data diagnostics. */
START_TEST(test_run_bad_edges)
{
    write_file("prob/edges.txt", "1 2\n2 x\n");
    struct ptm_plan *plan = lasso_job("dynamic", "depend coef from \"prob/edges.txt\"\n", "sweeps >= 1");
    double *a = calloc((size_t)prob_csc->ncols, sizeof(double));
    char err[1024];
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    ck_assert_int_eq(run_job(plan, 2, a, &dg, err, sizeof(err)), PTM_EDATA);
    ck_assert_uint_eq(dg.n, 1);
    char want[8192];
    snprintf(want, sizeof(want), "%s/prob/edges.txt:2:3: error: expected a block number, found 'x'",
             top);
    tu_expect_text("run_bad_edges", 0, dg.msg[0].text, want, NULL);
    ck_assert_uint_eq(dg.msg[0].where, strlen(want) - strlen("error: expected a block number, found 'x'"));
    ptm_data_diags_release(&dg);
    plan_free(plan);
    free(a);
}
END_TEST

static Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("policies");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_rotation);
    tcase_add_test(tc, test_deal);
    tcase_add_loop_test(tc, test_no_conflicts_pred, 0, 6);
    tcase_add_loop_test(tc, test_no_conflicts_edges, 0, 4);
    tcase_add_test(tc, test_filter_greedy);
    tcase_add_test(tc, test_filter_order);
    tcase_add_test(tc, test_no_starvation);
    tcase_add_test(tc, test_sampling_one);
    tcase_add_test(tc, test_sampling_pairs);
    tcase_add_test(tc, test_warmup_uniform);
    tcase_add_test(tc, test_warmup_sweeps);
    tcase_add_test(tc, test_all_zero);
    tcase_add_test(tc, test_uniform_places);
    tcase_add_test(tc, test_uniform_all);
    tcase_add_test(tc, test_default_priority);
    tcase_add_test(tc, test_active_passes);
    tcase_add_test(tc, test_active_chunks);
    tcase_add_test(tc, test_active_order);
    tcase_add_test(tc, test_active_order_many);
    tcase_add_test(tc, test_active_huge_changes);
    tcase_add_test(tc, test_active_late_changes);
    tcase_add_test(tc, test_active_pipeline_judges_its_pass);
    tcase_add_test(tc, test_active_conflicts);
    tcase_add_test(tc, test_active_keep_moved);
    tcase_add_test(tc, test_priority_refresh);
    tcase_add_test(tc, test_balance);
    tcase_add_test(tc, test_alone);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_pipeline_lag);
    tcase_add_test(tc, test_small);
    tcase_add_test(tc, test_bad_values);
    tcase_add_loop_test(tc, test_bad_edges, 0, (int)PTM_ARRAY_LEN(bad_edges));
    tcase_add_test(tc, test_edge_files);
    tcase_add_test(tc, test_edges_read);
    tcase_add_test(tc, test_fault);
    tcase_add_loop_test(tc, test_ckpt_resume, 0, (int)PTM_ARRAY_LEN(ck_rows));
    tcase_add_test(tc, test_ckpt_mismatch);
    tcase_add_test(tc, test_ckpt_bad_values);
    tcase_add_test(tc, test_ckpt_failure);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("engine");
    tcase_set_timeout(te, 120);
    tcase_add_test(te, test_run_lasso);
    tcase_add_test(te, test_run_bad_edges);
    tcase_add_test(te, test_reads_rows);
    suite_add_tcase(s, te);
    return s;
}

/* A Lasso problem with correlated groups, lambda a tenth of lambda_max. */
static int setup(void)
{
    struct gen_lasso_opts o;
    ptm_gen_lasso_defaults(&o);
    o.seed = 12;
    o.rows = 300;
    o.cols = 120;
    o.density = 0.06;
    o.group = 6;
    o.corr = 0.6;
    o.nonzeros = 8;
    if (mkdir("prob", 0777) != 0 || ptm_gen_lasso(&o, "prob") != 0)
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
    free(g);
    return 0;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-sched-main.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0 || !getcwd(top, sizeof(top))) {
        perror("test_sched: temporary directory");
        return EXIT_FAILURE;
    }
    if (setup() != 0) {
        fprintf(stderr, "test_sched: cannot make the Lasso problem\n");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(sched_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    ptm_dataset_free(prob);
    if (chdir("/") == 0)
        tu_remove_tree(dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
