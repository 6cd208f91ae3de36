/*
 * prog_bench.c - evaluations per second of the expression interpreter, one
 * core, on the two programs the Lasso job runs most:
 *
 *   priority coef(j) = abs(delta(beta[j])) + 1e-4
 *       over j = 0 .. 2^20-1, each change looked up in a 1M-element array
 *       by a callback with a bounds check, results stored as a scheduler
 *       would store them;
 *   depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1
 *       over every pair i < j of a 256-candidate sample, with a cheap
 *       correlation callback (a lookup in a precomputed 256 x 256 table).
 *
 * Both programs are built with prog_emit() exactly as the compiler emits
 * them, then finished and validated. Each is also computed by plain C code
 * calling the same callback, as a reference for the result (which must
 * match) and for the cost of interpretation.
 *
 * Rates are per CPU second of the benchmark's one thread.
 *
 * Usage: prog_bench [RUNS]   (default 5). One line per benchmark on stdout:
 *   NAME INSTRUCTIONS EVALS_PER_RUN MEDIAN_EVALS_PER_S DIRECT_C_EVALS_PER_S RUN1 RUN2 ...
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "prog.h"
#include "ptm.h"

enum { N = 1 << 20, PRIORITY_PASSES = 16, SAMPLE = 256, DEPEND_ROUNDS = 400, MAX_RUNS = 99 };

struct world {
    double *delta; /* N changes of beta */
    int64_t n;
    float *corr; /* SAMPLE x SAMPLE correlations */
};

static double delta_cb(void *ud, int32_t param, const int64_t *idx, int n)
{
    const struct world *w = ud;
    if (param != 0 || n != 1 || idx[0] < 0 || idx[0] >= w->n)
        return NAN;
    return w->delta[idx[0]];
}

static double corr_cb(void *ud, int32_t a, int64_t i, int32_t b, int64_t j)
{
    const struct world *w = ud;
    if (a != 0 || b != 0 || i < 0 || i >= SAMPLE || j < 0 || j >= SAMPLE)
        return NAN;
    return w->corr[i * SAMPLE + j];
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "prog_bench: %s: %s\n", what, ptm_strerror(rc));
    exit(1);
}

/* Finish and validate p for a program of nvars block variables. */
static void check(struct prog *p, uint32_t nvars)
{
    static const uint8_t ndims[1] = {1}, dndims[1] = {2};
    struct prog_limits lim = {nvars, 1, 1, ndims, dndims, 0, true};
    char err[200];
    int rc = prog_finish(p);
    if (rc)
        die("prog_finish", rc);
    if (prog_validate(p, &lim, err, sizeof(err))) {
        fprintf(stderr, "prog_bench: %s\n", err);
        exit(1);
    }
}

static void emit(struct prog *p, enum prog_op op, int32_t a, int32_t b)
{
    int rc = prog_emit(p, op, a, b);
    if (rc)
        die("prog_emit", rc);
}

static void emit_const(struct prog *p, double v)
{
    int rc = prog_emit_const(p, v);
    if (rc)
        die("prog_emit_const", rc);
}

static void report(const char *name, const struct prog *p, double evals, double *rates, int runs,
                   double direct)
{
    printf("%s %u %.0f", name, p->ncode, evals);
    printf(" %.0f %.0f", bench_median(rates, runs), direct);
    for (int r = 0; r < runs; r++)
        printf(" %.0f", rates[r]);
    putchar('\n');
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: prog_bench [RUNS]   (1 to %d)\n", MAX_RUNS);
        return 2;
    }

    struct world w = {malloc(N * sizeof(double)), N, malloc(SAMPLE * SAMPLE * sizeof(float))};
    double *prio = malloc(N * sizeof(double));
    if (!w.delta || !w.corr || !prio)
        die("setup", PTM_ENOMEM);
    uint64_t s = 88172645463325252u; /* xorshift64 */
    for (int64_t j = 0; j < N; j++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        w.delta[j] = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 1e-2;
    }
    for (int i = 0; i < SAMPLE; i++)
        for (int j = 0; j < SAMPLE; j++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            float c = (float)((double)(s >> 11) / 9007199254740992.0 * 0.6 - 0.3);
            w.corr[i * SAMPLE + j] = i == j ? 1.0f : c;
            if (j < i)
                w.corr[i * SAMPLE + j] = w.corr[j * SAMPLE + i];
        }

    /* abs(delta(beta[j])) + 1e-4 */
    struct prog prio_prog;
    prog_init(&prio_prog);
    emit(&prio_prog, PROG_VAR, 0, 0);
    emit(&prio_prog, PROG_DELTA, 0, 1);
    emit(&prio_prog, PROG_ABS, 0, 0);
    emit_const(&prio_prog, 1e-4);
    emit(&prio_prog, PROG_ADD, 0, 0);
    check(&prio_prog, 1);

    /* abs(corr(col(X, i), col(X, j))) > 0.1 */
    struct prog dep_prog;
    prog_init(&dep_prog);
    emit(&dep_prog, PROG_VAR, 0, 0);
    emit(&dep_prog, PROG_VAR, 1, 0);
    emit(&dep_prog, PROG_CORR, 0, 0);
    emit(&dep_prog, PROG_ABS, 0, 0);
    emit_const(&dep_prog, 0.1);
    emit(&dep_prog, PROG_GT, 0, 0);
    check(&dep_prog, 2);

    double vars[2];
    struct prog_env env = {.vars = vars, .ud = &w, .delta = delta_cb, .corr = corr_cb};
    double (*volatile delta_fn)(void *, int32_t, const int64_t *, int) = delta_cb;
    double (*volatile corr_fn)(void *, int32_t, int64_t, int32_t, int64_t) = corr_cb;
    double rates[MAX_RUNS];

    /* Priority. */
    double sum_direct = 0, sum = 0, t;
    t = bench_thread_cpu();
    for (int pass = 0; pass < PRIORITY_PASSES; pass++) {
        double (*fn)(void *, int32_t, const int64_t *, int) = delta_fn;
        for (int64_t j = 0; j < N; j++)
            prio[j] = fabs(fn(&w, 0, &j, 1)) + 1e-4;
        sum_direct += prio[pass];
    }
    double direct = (double)PRIORITY_PASSES * N / (bench_thread_cpu() - t);
    for (int64_t j = 0; j < N; j++)
        sum_direct += prio[j];
    for (int r = 0; r < runs; r++) {
        sum = 0;
        t = bench_thread_cpu();
        for (int pass = 0; pass < PRIORITY_PASSES; pass++) {
            for (int64_t j = 0; j < N; j++) {
                vars[0] = (double)j;
                prio[j] = prog_eval(&prio_prog, &env);
            }
            sum += prio[pass];
        }
        rates[r] = (double)PRIORITY_PASSES * N / (bench_thread_cpu() - t);
        for (int64_t j = 0; j < N; j++)
            sum += prio[j];
    }
    if (sum != sum_direct) {
        fprintf(stderr, "prog_bench: priority sums differ: %.17g vs %.17g\n", sum, sum_direct);
        return 1;
    }
    report("priority", &prio_prog, (double)PRIORITY_PASSES * N, rates, runs, direct);

    /* Depend: every pair of the sample, DEPEND_ROUNDS times. */
    const double pairs = (double)SAMPLE * (SAMPLE - 1) / 2 * DEPEND_ROUNDS;
    long conflicts_direct = 0, conflicts = 0;
    t = bench_thread_cpu();
    for (int round = 0; round < DEPEND_ROUNDS; round++) {
        double (*fn)(void *, int32_t, int64_t, int32_t, int64_t) = corr_fn;
        for (int64_t i = 0; i < SAMPLE; i++)
            for (int64_t j = i + 1; j < SAMPLE; j++)
                conflicts_direct += fabs(fn(&w, 0, i, 0, j)) > 0.1;
    }
    direct = pairs / (bench_thread_cpu() - t);
    for (int r = 0; r < runs; r++) {
        conflicts = 0;
        t = bench_thread_cpu();
        for (int round = 0; round < DEPEND_ROUNDS; round++)
            for (int i = 0; i < SAMPLE; i++) {
                vars[0] = i;
                for (int j = i + 1; j < SAMPLE; j++) {
                    vars[1] = j;
                    conflicts += prog_eval(&dep_prog, &env) != 0;
                }
            }
        rates[r] = pairs / (bench_thread_cpu() - t);
        if (conflicts != conflicts_direct) {
            fprintf(stderr, "prog_bench: depend counts differ: %ld vs %ld\n", conflicts,
                    conflicts_direct);
            return 1;
        }
    }
    report("depend", &dep_prog, pairs, rates, runs, direct);

    prog_release(&prio_prog);
    prog_release(&dep_prog);
    free(w.delta);
    free(w.corr);
    free(prio);
    return 0;
}
