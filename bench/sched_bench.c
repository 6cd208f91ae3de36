/*
 * sched_bench.c - the dynamic scheduler's speed, one core: candidates a
 * second (drawn by priority, filtered for conflicts, dealt to workers) and
 * dependency evaluations a second, by the way conflicts are known.
 *
 *   none        no depend: sampling, ordering and assignment only
 *   edges       an edge list (a random graph, 10 neighbours a block on
 *               average, read from a temporary file before timing)
 *   pred-dense  a predicate over up to 8192 blocks (bit-matrix cache) with
 *               a cheap callback (a hash of the pair), cold then warm
 *   pred-hash   the same over a million blocks (bounded hash cache): pairs
 *               seldom repeat, so nearly every check is an evaluation
 *   corr        `abs(corr(col(X, i), col(X, j))) > 0.1` over the columns of
 *               a libsvm FILE, through the data callbacks the engine uses
 *               (runtime/engine/expr_env.c): what the Lasso job pays
 *
 * Every scheduler runs sample 256 on 8 workers, balance on (costs
 * 1 .. 100), pipeline 1, no warm-up, the default priority (change plus
 * 1e-4), and done() tells it of changes drawn from a fixed sequence (one
 * block in twenty moves by up to 1, the rest by up to 1e-6). Timings are
 * CPU seconds of this thread, so a busy machine does not count against it.
 *
 * Usage: sched_bench [FILE.svm [ROUNDS]]; SCHED_BENCH_ONLY=CASE runs one
 * case (for profiling). `sched_bench graph FILE.svm T` instead writes the
 * edge list of `abs(corr(col(X, i), col(X, j))) > T` over the file's
 * columns (the same answers as the predicate: overlapping columns through
 * expr_corr() itself, the others by its formula with no common rows), for
 * `depend B from "file"`. One line per case on stdout:
 *   CASE BLOCKS ROUNDS CPU_SECONDS CANDIDATES_PER_S EVALUATIONS_PER_S
 *   US_PER_ROUND KEPT_PER_ROUND
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "bench.h"
#include "data.h"
#include "expr_env.h"
#include "plan.h"
#include "prog.h"
#include "ptm.h"
#include "rng.h"
#include "scheduler.h"

enum { SAMPLE = 256, P = 8 };

static void die(const char *what)
{
    fprintf(stderr, "sched_bench: %s\n", what);
    exit(1);
}

/* The conflict graph of the synthetic cases: a seeded hash of the pair. */
struct world {
    int64_t B;
    double density;
    double globals[PROG_NGLOBALS];
    double *cost;
};

static bool conflict(const struct world *w, int64_t i, int64_t j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    uint64_t x = (lo * 0x9e3779b97f4a7c15u) ^ (hi * 0xc2b2ae3d27d4eb4fu);
    return (double)(ptm_splitmix64(&x) >> 11) * 0x1.0p-53 < w->density;
}

static double cb_corr(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    (void)a;
    (void)b;
    return conflict(ud, i - 1, j - 1) ? 1 : 0;
}

static double cb_nnz(void *ud, int32_t k, int axis, int64_t j)
{
    const struct world *w = ud;
    (void)k;
    (void)axis;
    return w->cost[j - 1];
}

struct result {
    int64_t rounds, candidates, evaluations, kept;
    double seconds;
};

/* Run R rounds of a scheduler (warm first rounds untimed). */
static struct result drive(const struct ptm_sched_info *info, int64_t warm, int64_t R)
{
    void *st;
    char err[1024];
    if (ptm_sched_dynamic.create(info, &st, err, sizeof(err)) != 0)
        die(err);
    size_t cap = ptm_sched_dynamic.cap(st);
    struct ptm_sched_round r = {
        .blocks = malloc(cap * sizeof(int64_t)),
        .part = malloc((P + 1) * sizeof(size_t)),
        .load = malloc(P * sizeof(double)),
        .order = malloc(cap * sizeof(size_t)),
    };
    double *change = malloc(cap * sizeof(double));
    if (!r.blocks || !r.part || !r.load || !r.order || !change)
        die("out of memory");
    struct ptm_rng g;
    ptm_rng_seed(&g, 5);
    struct result res = {0};
    double t0 = 0;
    for (int64_t t = 0; t < warm + R; t++) {
        if (t == warm)
            t0 = bench_thread_cpu();
        if (ptm_sched_dynamic.next(st, &r, err, sizeof(err)) != 0)
            die(err);
        for (size_t i = 0; i < r.n; i++)
            change[i] = ptm_rng_uniform(&g) * (ptm_rng_uniform(&g) < 0.05 ? 1 : 1e-6);
        ptm_sched_dynamic.done(st, r.blocks, change, r.n);
        if (t >= warm) {
            res.candidates += r.candidates;
            res.evaluations += r.evaluations;
            res.kept += (int64_t)r.n;
        }
    }
    res.seconds = bench_thread_cpu() - t0;
    res.rounds = R;
    ptm_sched_dynamic.destroy(st);
    free(r.blocks);
    free(r.part);
    free(r.load);
    free(r.order);
    free(change);
    return res;
}

/* Run this case? */
static bool want(const char *name)
{
    const char *only = getenv("SCHED_BENCH_ONLY");
    return !only || !*only || strncmp(name, only, strlen(only)) == 0;
}

static void report(const char *name, int64_t B, struct result r)
{
    printf("%s %lld %lld %.4f %.0f %.0f %.2f %.1f\n", name, (long long)B, (long long)r.rounds,
           r.seconds, (double)r.candidates / r.seconds, (double)r.evaluations / r.seconds,
           r.seconds / (double)r.rounds * 1e6, (double)r.kept / (double)r.rounds);
    fflush(stdout);
}

static void emit(struct prog *p, enum prog_op op, int32_t a, int32_t b)
{
    if (prog_emit(p, op, a, b) != 0)
        die("out of memory");
}

/* The plan around one block set; the caller sets depend and cost. */
struct setup {
    struct ptm_plan plan;
    struct plan_blockset bs;
    struct world w;
    struct prog_env env;
};

static void setup_init(struct setup *s, int64_t B)
{
    memset(s, 0, sizeof(*s));
    s->bs.name = "coef";
    s->bs.axis = PLAN_AXIS_ELEMS;
    if (prog_emit_const(&s->bs.count, 1) != 0 || prog_finish(&s->bs.count) != 0)
        die("out of memory");
    s->bs.has_cost = true;
    emit(&s->bs.cost, PROG_VAR, 0, 0);
    emit(&s->bs.cost, PROG_NNZ_COL, 0, 0);
    prog_finish(&s->bs.cost);
    s->plan.base_dir = ".";
    s->plan.blocksets = &s->bs;
    s->plan.nblocksets = 1;
    s->plan.schedule = (struct plan_schedule){.policy = PLAN_POLICY_DYNAMIC,
                                              .sample = SAMPLE,
                                              .warmup_unit = PLAN_UNIT_SWEEPS,
                                              .balance = true,
                                              .pipeline = 1};
    s->w.B = B;
    s->w.cost = malloc((size_t)B * sizeof(double));
    if (!s->w.cost)
        die("out of memory");
    for (int64_t b = 0; b < B; b++)
        s->w.cost[b] = (double)(1 + (b * 7919) % 100);
    s->env = (struct prog_env){
        .globals = s->w.globals, .ud = &s->w, .corr = cb_corr, .nnz = cb_nnz};
}

static struct ptm_sched_info info_of(struct setup *s)
{
    return (struct ptm_sched_info){.plan = &s->plan,
                                   .bs = &s->bs,
                                   .nblocks = s->w.B,
                                   .workers = P,
                                   .seed = 1,
                                   .env = &s->env};
}

static void setup_release(struct setup *s)
{
    prog_release(&s->bs.count);
    prog_release(&s->bs.cost);
    prog_release(&s->bs.pred);
    free(s->w.cost);
}

static void pred_corr(struct prog *p, double threshold, bool abs_)
{
    emit(p, PROG_VAR, 0, 0);
    emit(p, PROG_VAR, 1, 0);
    emit(p, PROG_CORR, 0, 0);
    if (abs_)
        emit(p, PROG_ABS, 0, 0);
    if (prog_emit_const(p, threshold) != 0)
        die("out of memory");
    emit(p, PROG_GT, 0, 0);
    if (prog_finish(p) != 0)
        die("bad program");
}

/* The corr case over a libsvm file. */
static void corr_case(const char *path, int64_t R)
{
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    if (ptm_data_read(path, &o, &dg, &ds) != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        die("cannot read the data");
    }
    ptm_data_diags_release(&dg);
    struct expr_source src = {.ds = ds, .labels_of = -1};
    struct expr_data d;
    if (expr_data_init(&d, &src, 1) != 0)
        die("out of memory");
    int64_t B = ptm_dataset_cols(ds);
    struct setup s;
    setup_init(&s, B);
    expr_env_data(&s.env, &d);
    s.env.globals = s.w.globals;
    s.bs.depend = PLAN_DEPEND_PRED;
    pred_corr(&s.bs.pred, 0.1, true);
    struct ptm_sched_info info = info_of(&s);
    report("corr", B, drive(&info, 0, R));
    setup_release(&s);
    expr_data_release(&d);
    ptm_dataset_free(ds);
}

/* corr of columns i and j with no row in common: expr_corr()'s
 * arithmetic with the sum of products 0. */
static double corr_disjoint(double n, const double *sum, const double *sumsq, int64_t i, int64_t j)
{
    double ab = 0;
    double cov = ab - sum[i] * sum[j] / n;
    double va = sumsq[i] - sum[i] * sum[i] / n;
    double vb = sumsq[j] - sum[j] * sum[j] / n;
    if (!(va > 0) || !(vb > 0))
        return NAN;
    double r = cov / sqrt(va * vb);
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

static int graph(const char *path, double t)
{
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds;
    if (ptm_data_read(path, &o, &dg, &ds) != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        die("cannot read the data");
    }
    ptm_data_diags_release(&dg);
    struct expr_source src = {.ds = ds, .labels_of = -1};
    struct expr_data d;
    const struct ptm_csc *c;
    if (expr_data_init(&d, &src, 1) != 0 || ptm_dataset_csc(ds, &c) != 0)
        die("out of memory");
    const struct ptm_csr *x = &ds->csr;
    int64_t B = c->ncols;
    uint32_t *mark = calloc((size_t)B, sizeof(uint32_t));
    if (!mark)
        die("out of memory");
    double n = (double)c->nrows;
    int64_t edges = 0;
    for (int64_t i = 0; i < B; i++) {
        for (int64_t e = c->colptr[i]; e < c->colptr[i + 1]; e++) {
            int64_t r = c->rowind[e];
            for (int64_t f = x->rowptr[r]; f < x->rowptr[r + 1]; f++)
                mark[x->colind[f]] = (uint32_t)i + 1;
        }
        for (int64_t j = i + 1; j < B; j++) {
            double v = mark[j] == (uint32_t)i + 1
                           ? expr_corr(c, d.colsum[0], d.colsumsq[0], i, c, d.colsum[0],
                                       d.colsumsq[0], j)
                           : corr_disjoint(n, d.colsum[0], d.colsumsq[0], i, j);
            if (fabs(v) > t) {
                printf("%lld %lld\n", (long long)i + 1, (long long)j + 1);
                edges++;
            }
        }
    }
    fprintf(stderr, "sched_bench graph: %lld columns, %lld edges\n", (long long)B, (long long)edges);
    free(mark);
    expr_data_release(&d);
    ptm_dataset_free(ds);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "graph") == 0)
        return graph(argv[2], atof(argv[3]));
    int64_t R = 2000;
    /* none */
    if (want("none")) {
        struct setup s;
        setup_init(&s, 1000000);
        struct ptm_sched_info info = info_of(&s);
        report("none", s.w.B, drive(&info, 100, R));
        setup_release(&s);
    }
    /* edges: a random graph, degree 10 on average */
    if (want("edges")) {
        int64_t B = 200000;
        char path[] = "/tmp/ptm-sched-bench-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f)
            die("cannot write the edge list");
        struct ptm_rng g;
        ptm_rng_seed(&g, 3);
        for (int64_t k = 0; k < B * 5; k++) {
            int64_t a = (int64_t)(ptm_rng_next(&g) % (uint64_t)B), b;
            do
                b = (int64_t)(ptm_rng_next(&g) % (uint64_t)B);
            while (b == a);
            fprintf(f, "%lld %lld\n", (long long)a + 1, (long long)b + 1);
        }
        fclose(f);
        struct setup s;
        setup_init(&s, B);
        s.bs.depend = PLAN_DEPEND_FILE;
        s.bs.edges = path;
        struct ptm_sched_info info = info_of(&s);
        report("edges", B, drive(&info, 100, R));
        setup_release(&s);
        unlink(path);
    }
    /* pred-dense: cold (the first rounds), then warm */
    if (want("pred-dense")) {
        struct setup s;
        setup_init(&s, 8192);
        s.w.density = 0.002;
        s.bs.depend = PLAN_DEPEND_PRED;
        pred_corr(&s.bs.pred, 0.5, false);
        struct ptm_sched_info info = info_of(&s);
        report("pred-dense-cold", s.w.B, drive(&info, 0, 50));
        report("pred-dense-warm", s.w.B, drive(&info, 20000, R));
        setup_release(&s);
    }
    /* pred-hash: a million blocks */
    if (want("pred-hash")) {
        struct setup s;
        setup_init(&s, 1000000);
        s.w.density = 1e-5;
        s.bs.depend = PLAN_DEPEND_PRED;
        pred_corr(&s.bs.pred, 0.5, false);
        struct ptm_sched_info info = info_of(&s);
        report("pred-hash", s.w.B, drive(&info, 100, R));
        setup_release(&s);
    }
    if (argc > 1 && want("corr"))
        corr_case(argv[1], argc > 2 ? atoll(argv[2]) : 300);
    return 0;
}
