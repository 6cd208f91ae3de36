/*
 * test_expr_env.c - expressions evaluated over real data: the data
 * callbacks of runtime/engine/expr_env.c, driven by programs the compiler makes.
 *
 * The reference values are computed here another way: correlation by the
 * two-pass mean/variance formula over dense columns, cosines and counts
 * and entries from a dense copy of the matrix; the dependency graph
 * (depgraph.c) pair by pair against the predicate evaluated directly.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "depgraph.h"
#include "expr_env.h"
#include "prog.h"
#include "ptm.h"
#include "sched_env.h"
#include "testutil.h"

/* A 6 x 4 matrix with labels, as libsvm text; column 4 is constant 0
 * (no entries), column 3 is 2 x column 1 (correlation 1). */
static const char svm[] = "1 1:1 2:2 3:2\n"
                          "2 1:2 3:4\n"
                          "3 2:1\n"
                          "4 1:3 2:5 3:6\n"
                          "5 2:-1\n"
                          "6 1:-1 3:-2\n";
enum { NR = 6, NC = 4 };
static double dense[NR][NC];

static void fill_dense(void)
{
    memset(dense, 0, sizeof(dense));
    const char *p = svm;
    for (int i = 0; i < NR; i++) {
        char *end;
        strtod(p, &end);
        p = end;
        while (*p == ' ') {
            long j = strtol(p + 1, &end, 10);
            dense[i][j - 1] = strtod(end + 1, &end);
            p = end;
        }
        p++; /* newline */
    }
}

static double ref_corr(int a, int b)
{
    double ma = 0, mb = 0;
    for (int i = 0; i < NR; i++) {
        ma += dense[i][a];
        mb += dense[i][b];
    }
    ma /= NR;
    mb /= NR;
    double sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < NR; i++) {
        sab += (dense[i][a] - ma) * (dense[i][b] - mb);
        saa += (dense[i][a] - ma) * (dense[i][a] - ma);
        sbb += (dense[i][b] - mb) * (dense[i][b] - mb);
    }
    return sab / sqrt(saa * sbb);
}

struct fixture {
    struct ptm_dataset *X;
    struct expr_source src[2];
    struct expr_data d;
    struct prog_env env;
};

static void setup(struct fixture *f)
{
    fill_dense();
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    ck_assert_int_eq(ptm_data_read_mem(svm, strlen(svm), "t.svm", NULL, 0, NULL, &o, &dg, &f->X), 0);
    ptm_data_diags_release(&dg);
    f->X->csr.ncols = NC; /* the declared width, past the last used column */
    f->src[0] = (struct expr_source){.ds = f->X, .labels_of = -1};
    f->src[1] = (struct expr_source){.ds = NULL, .labels_of = 0}; /* y = labels(X) */
    ck_assert_int_eq(expr_data_init(&f->d, f->src, 2), 0);
    memset(&f->env, 0, sizeof(f->env));
    expr_env_data(&f->env, &f->d);
}

static void teardown(struct fixture *f)
{
    expr_data_release(&f->d);
    ptm_dataset_free(f->X);
}

/* Compile `job` and return a copy of its first block set's predicate
 * (which 0), cost (1) or priority (2). */
static struct prog compile_prog(const char *job, int which)
{
    struct ptm_plan *plan = tu_compile("t.ptm", job, ".", false);
    struct prog out;
    const struct plan_blockset *b = &plan->blocksets[0];
    const struct prog *p = which == 0 ? &b->pred : which == 1 ? &b->cost : &b->priority;
    ck_assert_int_eq(prog_copy(&out, p), 0);
    plan_free(plan);
    return out;
}

static const char job_head[] = "job t\n"
                               "data X : sparse matrix from \"t.svm\"\n"
                               "data y : vector from labels(X)\n"
                               "param beta : vector[cols(X)]\n"
                               "blocks coef = beta\n";
static const char job_tail[] = "schedule dynamic\n"
                               "update builtin lasso_cd { lambda = 0.1 }\n"
                               "stop when rounds > 1\n";

static struct prog job_prog(const char *line, int which)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s%s\n%s", job_head, line, job_tail);
    return compile_prog(buf, which);
}

static double eval2(struct fixture *f, const struct prog *p, double i, double j)
{
    double vars[2] = {i, j};
    double globals[PROG_NGLOBALS] = {0};
    f->env.vars = vars;
    f->env.globals = globals;
    return prog_eval(p, &f->env);
}

START_TEST(test_corr_matches_two_pass)
{
    struct fixture f;
    setup(&f);
    /* corr() alone, through a cost (a depend program is a condition). */
    for (int a = 1; a <= 3; a++)
        for (int b = 1; b <= 3; b++) {
            char line[256];
            snprintf(line, sizeof(line), "cost coef(j) = corr(col(X, %d), col(X, %d)) + 2", a, b);
            struct prog c = job_prog(line, 1);
            double got = eval2(&f, &c, 0, 1) - 2;
            double want = ref_corr(a - 1, b - 1);
            ck_assert_msg(fabs(got - want) < 1e-12, "corr(%d, %d) = %.17g, want %.17g", a, b, got,
                          want);
            prog_release(&c);
        }
    /* Column 3 is twice column 1. */
    struct prog c = job_prog("cost coef(j) = corr(col(X, 1), col(X, 3)) + 2", 1);
    ck_assert(fabs(eval2(&f, &c, 0, 1) - 3) < 1e-12);
    prog_release(&c);
    teardown(&f);
}
END_TEST

START_TEST(test_depend_predicate)
{
    struct fixture f;
    setup(&f);
    struct prog p =
        job_prog("depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.5", 0);
    for (int i = 1; i <= 3; i++)
        for (int j = 1; j <= 3; j++) {
            double want = fabs(ref_corr(i - 1, j - 1)) > 0.5;
            ck_assert_msg(eval2(&f, &p, i, j) == want, "pred(%d, %d)", i, j);
        }
    /* A constant (empty) column has no correlation: NaN, so not > 0.5. */
    ck_assert_double_eq(eval2(&f, &p, 1, 4), 0);
    ck_assert_double_eq(eval2(&f, &p, 1, 99), 0); /* out of range: NaN */
    prog_release(&p);
    teardown(&f);
}
END_TEST

START_TEST(test_counts_and_entries)
{
    struct fixture f;
    setup(&f);
    struct prog p = job_prog("cost coef(j) = nnz(col(X, j)) + 10 * rows(X) + 1000 * cols(X)", 1);
    for (int j = 1; j <= NC; j++) {
        int n = 0;
        for (int i = 0; i < NR; i++)
            n += dense[i][j - 1] != 0;
        ck_assert_double_eq(eval2(&f, &p, j, 0), n + 10 * NR + 1000 * NC);
    }
    ck_assert(isnan(eval2(&f, &p, 0, 0)));
    ck_assert(isnan(eval2(&f, &p, NC + 1, 0)));
    prog_release(&p);
    p = job_prog("cost coef(j) = nnz(row(X, j))", 1);
    for (int i = 1; i <= NR; i++) {
        int n = 0;
        for (int j = 0; j < NC; j++)
            n += dense[i - 1][j] != 0;
        ck_assert_double_eq(eval2(&f, &p, i, 0), n);
    }
    prog_release(&p);
    p = job_prog("cost coef(j) = abs(X[j, 2]) + abs(y[j]) * 100", 1);
    for (int i = 1; i <= NR; i++)
        ck_assert_double_eq(eval2(&f, &p, i, 0), fabs(dense[i - 1][1]) + i * 100.0);
    prog_release(&p);
    teardown(&f);
}
END_TEST

START_TEST(test_cos_matches_dense)
{
    struct fixture f;
    setup(&f);
    for (int a = 1; a <= NC; a++)
        for (int b = 1; b <= NC; b++) {
            char line[256];
            snprintf(line, sizeof(line), "cost coef(j) = cos(col(X, %d), col(X, %d)) + 2", a, b);
            struct prog c = job_prog(line, 1);
            double ab = 0, aa = 0, bb = 0;
            for (int i = 0; i < NR; i++) {
                ab += dense[i][a - 1] * dense[i][b - 1];
                aa += dense[i][a - 1] * dense[i][a - 1];
                bb += dense[i][b - 1] * dense[i][b - 1];
            }
            double got = eval2(&f, &c, 0, 1) - 2;
            if (a == NC || b == NC) /* a column of zeros has no direction */
                ck_assert_msg(isnan(got), "cos(%d, %d) = %g, want NaN", a, b, got);
            else
                ck_assert_msg(fabs(got - ab / sqrt(aa * bb)) < 1e-12, "cos(%d, %d) = %.17g", a,
                              b, got);
            prog_release(&c);
        }
    teardown(&f);
}
END_TEST

/* A vector stands for a column in corr() and cos(), either side: against
 * the labels y (1 .. 6), references from the dense copy; the empty
 * column has no direction and no correlation (NaN). */
START_TEST(test_vector_operand)
{
    struct fixture f;
    setup(&f);
    for (int a = 1; a <= NC; a++)
        for (int k = 0; k < 4; k++) {
            static const char *const form[] = {
                "cost coef(j) = cos(col(X, %d), y) + 2", "cost coef(j) = cos(y, col(X, %d)) + 2",
                "cost coef(j) = corr(col(X, %d), y) + 2", "cost coef(j) = corr(y, col(X, %d)) + 2"};
            char line[256];
            snprintf(line, sizeof(line), form[k], a);
            struct prog c = job_prog(line, 1);
            double got = eval2(&f, &c, 0, 1) - 2;
            double mx = 0, my = 0;
            for (int i = 0; i < NR; i++) {
                mx += dense[i][a - 1] / NR;
                my += (i + 1.0) / NR;
            }
            double ab = 0, aa = 0, bb = 0;
            for (int i = 0; i < NR; i++) {
                double x = dense[i][a - 1] - (k >= 2 ? mx : 0), y = i + 1 - (k >= 2 ? my : 0);
                ab += x * y;
                aa += x * x;
                bb += y * y;
            }
            if (a == NC)
                ck_assert_msg(isnan(got), "%s: %g, want NaN", line, got);
            else
                ck_assert_msg(fabs(got - ab / sqrt(aa * bb)) < 1e-12, "%s: %.17g, want %.17g", line,
                              got, ab / sqrt(aa * bb));
            prog_release(&c);
        }
    /* y with itself */
    struct prog c = job_prog("cost coef(j) = cos(y, y) + corr(y, y)", 1);
    ck_assert(fabs(eval2(&f, &c, 0, 1) - 2) < 1e-12);
    prog_release(&c);
    teardown(&f);
}
END_TEST

/* A random sparse matrix as libsvm text: GR rows, GC columns; columns 1..4
 * dense and positive on fixed rows (uncentred: the corr() of two of them
 * that share no row is far from 0), column GC empty, the others sparse
 * with mixed signs. */
enum { GR = 80, GC = 60 };
static char *random_svm(unsigned seed)
{
    size_t cap = (size_t)GR * GC * 24 + 64, at = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    srand(seed);
    for (int i = 0; i < GR; i++) {
        at += (size_t)snprintf(buf + at, cap - at, "%d", i % 7);
        for (int j = 1; j < GC; j++) {
            /* column 1 in the even rows, 2 in the odd, 3 and 4 in every fourth */
            bool dense_col = j <= 4;
            if (dense_col ? i % (j <= 2 ? 2 : 4) != (j == 1 || j == 3 ? 0 : 1) : rand() % 100 >= 6)
                continue;
            double v = dense_col ? 1 + rand() % 5 : (rand() % 2 ? 1 : -1) * (1 + rand() % 9) / 4.0;
            if (j == GC - 1 && i == 0)
                v = 0.5; /* the file reaches column GC - 1 */
            at += (size_t)snprintf(buf + at, cap - at, " %d:%g", j, v);
        }
        buf[at++] = '\n';
    }
    buf[at] = '\0';
    return buf;
}

/* The graph holds exactly the pairs the predicate says conflict. */
START_TEST(test_depgraph_is_the_predicate)
{
    static const char *const preds[] = {
        "abs(corr(col(X, i), col(X, j))) > 0.1",
        "abs(corr(col(X, j), col(X, i))) >= 0.3",
        "corr(col(X, i), col(X, j)) > 0.2",
        "0.25 < abs(corr(col(X, i), col(X, j)))",
        "abs(cos(col(X, i), col(X, j))) > 0.1",
        "cos(col(X, i), col(X, j)) >= 0.5",
        "0.05 <= cos(col(X, i), col(X, j))",
    };
    char *svm_text = random_svm(7 + (unsigned)_i);
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *X;
    ck_assert_int_eq(ptm_data_read_mem(svm_text, strlen(svm_text), "r.svm", NULL, 0, NULL, &o, &dg, &X), 0);
    ptm_data_diags_release(&dg);
    X->csr.ncols = GC; /* the declared width: column GC is empty */
    struct expr_source src[2] = {{.ds = X, .labels_of = -1}, {.ds = NULL, .labels_of = 0}};
    struct expr_data d;
    ck_assert_int_eq(expr_data_init(&d, src, 2), 0);
    struct prog_env env = {0};
    expr_env_data(&env, &d);
    double globals[PROG_NGLOBALS] = {0}, vars[2];
    env.globals = globals;
    int64_t edges_seen = 0, far = 0;
    for (size_t k = 0; k < sizeof(preds) / sizeof(preds[0]); k++) {
        char line[256];
        snprintf(line, sizeof(line), "depend coef(i), coef(j) when %s", preds[k]);
        struct prog p = job_prog(line, 0);
        int64_t B = GC + 3; /* blocks past the last column never conflict */
        struct sched_edges g;
        struct depgraph_info info;
        char why[200];
        ck_assert_int_eq(depgraph_build(&p, &d, &env, B, &g, &info, why, sizeof(why)), 0);
        int64_t n = 0;
        for (int64_t a = 0; a < B; a++)
            for (int64_t b = a + 1; b < B; b++) {
                env.vars = vars;
                vars[0] = (double)(a + 1);
                vars[1] = (double)(b + 1);
                double r = prog_eval(&p, &env);
                bool want = r != 0 && !isnan(r), got = false;
                for (int64_t e = g.off[a]; e < g.off[a + 1]; e++)
                    got |= g.adj[e] == b;
                ck_assert_msg(got == want, "%s: pair (%lld, %lld): graph %d, predicate %d",
                              preds[k], (long long)a + 1, (long long)b + 1, got, want);
                n += want;
                /* pairs of a dense column and a sparse one it shares no row with */
                if (want && b < 4 && k == 0) {
                    bool share = false;
                    const struct ptm_csc *c = X->csc;
                    for (int64_t p1 = c->colptr[a]; p1 < c->colptr[a + 1]; p1++)
                        for (int64_t p2 = c->colptr[b]; p2 < c->colptr[b + 1]; p2++)
                            share |= c->rowind[p1] == c->rowind[p2];
                    far += !share;
                }
            }
        ck_assert_int_eq(info.edges, n);
        ck_assert_int_eq(g.off[B], 2 * n);
        edges_seen += n;
        sched_edges_release(&g);
        prog_release(&p);
    }
    ck_assert_int_gt(edges_seen, 50);
    ck_assert_int_gt(far, 0); /* the non-sharing path was exercised */
    /* Shapes it does not take: the filter then evaluates per pair. */
    static const char *const others[] = {
        "abs(corr(col(X, i), col(X, j))) > 0.1 and i != j",
        "abs(corr(col(X, i), col(X, j))) > -0.1", /* every pair */
        "cos(col(X, i), col(X, j)) >= 0",          /* every pair sharing no row */
        "corr(col(X, i), col(X, j)) < 0.1",
        "abs(i - j) < 3",
    };
    for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
        char line[256];
        snprintf(line, sizeof(line), "depend coef(i), coef(j) when %s", others[k]);
        struct prog p = job_prog(line, 0);
        struct sched_edges g;
        struct depgraph_info info;
        char why[200] = "";
        ck_assert_msg(depgraph_build(&p, &d, &env, GC, &g, &info, why, sizeof(why)) == 1, "%s",
                      others[k]);
        ck_assert(why[0] != '\0');
        prog_release(&p);
    }
    expr_data_release(&d);
    ptm_dataset_free(X);
    free(svm_text);
}
END_TEST

/* The filter round by round (depgraph_lazy) keeps, of any candidates,
 * exactly what a greedy filter evaluating the predicate keeps, with every
 * kept block counting or (keep moved) only those that moved: through its
 * passes, the members it takes, and after it has built the graph. */
START_TEST(test_lazy_filter_is_the_predicate)
{
    static const char *const preds[] = {
        "abs(corr(col(X, i), col(X, j))) > 0.1",
        "corr(col(X, i), col(X, j)) > 0.2",
        "abs(cos(col(X, i), col(X, j))) > 0.1",
        "0.05 <= cos(col(X, i), col(X, j))",
    };
    char *svm_text = random_svm(11 + (unsigned)_i);
    struct ptm_data_opts o = {.format = PLAN_FORMAT_LIBSVM, .sparse = true};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *X;
    ck_assert_int_eq(ptm_data_read_mem(svm_text, strlen(svm_text), "r.svm", NULL, 0, NULL, &o, &dg, &X), 0);
    ptm_data_diags_release(&dg);
    X->csr.ncols = GC;
    struct expr_source src[2] = {{.ds = X, .labels_of = -1}, {.ds = NULL, .labels_of = 0}};
    struct expr_data d;
    ck_assert_int_eq(expr_data_init(&d, src, 2), 0);
    struct prog_env env = {0};
    expr_env_data(&env, &d);
    double globals[PROG_NGLOBALS] = {0}, vars[2];
    env.globals = globals;
    enum { B = GC + 3, ROUNDS = 400 };
    srand(5 + (unsigned)_i);
    for (size_t k = 0; k < sizeof(preds) / sizeof(preds[0]); k++) {
        char line[256];
        snprintf(line, sizeof(line), "depend coef(i), coef(j) when %s", preds[k]);
        struct prog p = job_prog(line, 0);
        struct depgraph_lazy *z;
        char why[200];
        ck_assert_int_eq(depgraph_lazy_new(&p, &d, &env, B, &z, why, sizeof(why)), 0);
        const struct sched_pairs *ops = depgraph_lazy_ops(z);
        bool built_seen = false;
        int64_t kept_total = 0, cand_total = 0;
        for (int round = 0; round < ROUNDS; round++) {
            /* a few hot blocks in most rounds (they buy rows), the rest drawn */
            int64_t cand[B], kept[B], want[B], evals = 0;
            bool in[B] = {false};
            size_t n = 0, len = 1 + (size_t)(rand() % B);
            for (int64_t h = 0; h < 6 && n < len; h++)
                if (rand() % 4 != 0 && !in[h * 7])
                    in[h * 7] = true, cand[n++] = h * 7;
            while (n < len) {
                int64_t b = rand() % B;
                if (!in[b])
                    in[b] = true, cand[n++] = b;
            }
            /* in half the rounds, only the kept blocks that moved count
             * (keep moved): most of the hot ones, a few others */
            unsigned char moved[B];
            bool use_moved = round % 2 == 1;
            for (size_t i = 0; i < n; i++)
                moved[i] = (unsigned char)(cand[i] % 7 == 0 ? rand() % 5 != 0 : rand() % 3 == 0);
            int64_t counted[B];
            size_t nw = 0, nc = 0;
            for (size_t i = 0; i < n; i++) {
                bool hit = false;
                for (size_t t = 0; t < nc && !hit; t++) {
                    int64_t a = cand[i] < counted[t] ? cand[i] : counted[t];
                    int64_t b = cand[i] < counted[t] ? counted[t] : cand[i];
                    env.vars = vars;
                    vars[0] = (double)(a + 1);
                    vars[1] = (double)(b + 1);
                    double r = prog_eval(&p, &env);
                    hit = r != 0 && !isnan(r);
                }
                if (hit)
                    continue;
                want[nw++] = cand[i];
                if (!use_moved || moved[i])
                    counted[nc++] = cand[i];
            }
            size_t nk = ops->filter(ops->ud, cand, use_moved ? moved : NULL, n, kept, &evals);
            ck_assert_msg(nk == nw, "%s: round %d: kept %zu of %zu, the predicate %zu", preds[k],
                          round, nk, n, nw);
            for (size_t t = 0; t < nk; t++)
                ck_assert_int_eq(kept[t], want[t]);
            built_seen |= ops->graph(ops->ud) != NULL;
            kept_total += (int64_t)nk;
            cand_total += (int64_t)n;
        }
        ck_assert_msg(built_seen, "%s: the graph was never built", preds[k]);
        ck_assert_ptr_nonnull(depgraph_lazy_built(z));
        ck_assert_int_lt(kept_total, cand_total); /* conflicts were found */
        depgraph_lazy_free(z);
        prog_release(&p);
    }
    expr_data_release(&d);
    ptm_dataset_free(X);
    free(svm_text);
}
END_TEST

/* The scheduler's environment sums the columns of a matrix only when an
 * expression reads corr() or cos() of it; whichever reads them, the values
 * are the references, and nnz(col()) needs no sums. */
START_TEST(test_sched_env_sums_what_is_read)
{
    static const struct {
        const char *line;
        int which; /* the program evaluated: 0 predicate, 1 cost, 2 priority, 3 order */
        bool sums;
    } cases[] = {
        {"depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.5", 0, true},
        {"cost coef(j) = cos(col(X, 1), col(X, 3)) + 2", 1, true},
        {"priority coef(j) = corr(col(X, 1), col(X, 2)) + 2", 2, true},
        {"cost coef(j) = nnz(col(X, j)) + 2", 1, false},
        /* an order of the common shape: its pass of its own (sched_setup.c) */
        {"order coef(j) = abs(cos(col(X, j), y))", 3, false},
        {"order coef(j) = abs(cos(col(X, j), y)) + 0", 3, true},
    };
    struct fixture f;
    setup(&f);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char buf[1024];
        snprintf(buf, sizeof(buf), "%s%s\n%s", job_head, cases[k].line, job_tail);
        struct ptm_plan *plan = tu_compile("t.ptm", buf, ".", false);
        struct ptm_dataset *data[2] = {f.X, NULL};
        struct sched_env e;
        ck_assert_int_eq(sched_env_init(&e, plan, data), 0);
        ck_assert_msg((e.data.colsum[0] != NULL) == cases[k].sums, "%s: sums %d", cases[k].line,
                      e.data.colsum[0] != NULL);
        const struct plan_blockset *b = &plan->blocksets[0];
        const struct prog *p = cases[k].which == 0   ? &b->pred
                               : cases[k].which == 1 ? &b->cost
                               : cases[k].which == 2 ? &b->priority
                                                     : &b->order;
        double vars[2] = {1, 3};
        struct prog_env env = e.env;
        env.vars = vars;
        double got = prog_eval(p, &env);
        double want = k == 0   ? fabs(ref_corr(0, 2)) > 0.5
                      : k == 1 ? 1 + 2 /* column 3 is twice column 1 */
                      : k == 2 ? ref_corr(0, 1) + 2
                      : k == 3 ? 4 + 2 /* column 1 (j = 1) has 4 entries */
                               : NAN;
        if (k >= 4) { /* |cos(x_1, y)|, y = 1 .. 6: read only without the order's own pass */
            double ab = 0, aa = 0, bb = 0;
            for (int i = 0; i < NR; i++) {
                ab += dense[i][0] * (i + 1);
                aa += dense[i][0] * dense[i][0];
                bb += (i + 1.0) * (i + 1);
            }
            want = fabs(ab) / sqrt(aa * bb);
        }
        if (k != 4)
            ck_assert_msg(fabs(got - want) < 1e-12, "%s: %.17g, want %.17g", cases[k].line, got,
                          want);
        sched_env_release(&e);
        plan_free(plan);
    }
    teardown(&f);
}
END_TEST

static Suite *env_suite(void)
{
    Suite *s = suite_create("expr_env");
    TCase *t = tcase_create("data");
    tcase_add_test(t, test_corr_matches_two_pass);
    tcase_add_test(t, test_depend_predicate);
    tcase_add_test(t, test_counts_and_entries);
    tcase_add_test(t, test_cos_matches_dense);
    tcase_add_test(t, test_vector_operand);
    tcase_add_test(t, test_sched_env_sums_what_is_read);
    tcase_add_loop_test(t, test_depgraph_is_the_predicate, 0, 3);
    tcase_add_loop_test(t, test_lazy_filter_is_the_predicate, 0, 3);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(env_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
