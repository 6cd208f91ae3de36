/*
 * pstore_bench.c - the parameter store: the hot path, and the time workers
 * spend blocked under bounded staleness.
 *
 * hot: operations per second on rows already in the worker's cache, with 1
 * and then 2 threads on the same table (each thread its own worker), one
 * clock every 2^20 operations. inc_dense: a 64 x 64 dense table; inc_sparse:
 * 64 sparse rows of 4096 columns with 16 non-zeros each, increments to
 * those non-zeros (an LDA word-topic table); get_dense: reads of the dense
 * table. Rates are operations of all threads over the wall time from a
 * common start to the last thread's end. The 1- and 2-thread measurements
 * of one run are taken back to back and their ratio is reported per run,
 * so a load that comes and goes on the shared machine hits both alike.
 *
 * wait: two workers, 100 clocks, staleness s = 0, 1, 3 run back to back.
 *   slow:      worker 0 works 1 ms per clock (increments in a spin loop),
 *              worker 1 sleeps 2 ms per clock;
 *   straggler: both work 1 ms per clock, and each, in 25 of its clocks
 *              picked at random (seeded, the same for every s), sleeps 3 ms
 *              more: equal totals, only the timing of the delays differs.
 * The share of a worker's wall time spent blocked in pstore_clock(), and
 * the run's wall time relative to s = 0 in the same run.
 *
 * Usage: pstore_bench [RUNS]   (default 5). Lines on stdout:
 *   hot OP THREADS MEDIAN_OPS_PER_S MEDIAN_OPS_PER_CPU_S_PER_THREAD RUN1 RUN2 ...
 *   ratio OP MEDIAN_2T_OVER_1T RUN1 RUN2 ...
 *   wait SCENARIO S MEDIAN_BLOCKED_W0 MEDIAN_BLOCKED_W1 MEDIAN_SECONDS MEDIAN_TIME_OVER_S0
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "pstore.h"
#include "ptm.h"

enum { MAX_RUNS = 99, ROWS = 64, COLS = 64, SCOLS = 4096, SNNZ = 16, CLOCK_EVERY = 1 << 20 };
enum { OP_INC_DENSE, OP_INC_SPARSE, OP_GET_DENSE, NOPS };
static const char *const op_names[NOPS] = {"inc_dense", "inc_sparse", "get_dense"};
static const long op_count[NOPS] = {16L << 20, 8L << 20, 16L << 20}; /* per thread */

static void sleep_ms(double ms)
{
    long ns = (long)(ms * 1e6);
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    nanosleep(&ts, NULL);
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "pstore_bench: %s: %s\n", what, ptm_strerror(rc));
    exit(1);
}

#define CHECK(what, call)                                                                          \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_)                                                                                   \
            die(what, rc_);                                                                        \
    } while (0)

/* ---- hot path ----------------------------------------------------------- */

struct hot {
    struct pstore *ps;
    int dense, sparse, op, w;
    pthread_barrier_t *start;
    double end, cpu; /* wall clock at the end; CPU seconds of the loop */
    double sink;
};

static void *hot_worker(void *p)
{
    struct hot *h = p;
    struct pstore_worker *w = pstore_worker(h->ps, h->w);
    /* Warm-up: every row in the cache, every log at its size. */
    for (int r = 0; r < ROWS; r++) {
        double v;
        CHECK("warm-up", pstore_get(w, h->dense, r, 0, &v));
        CHECK("warm-up", pstore_get(w, h->sparse, r, 0, &v));
        for (int k = 0; k < SNNZ; k++)
            CHECK("warm-up", pstore_inc(w, h->sparse, r, k * (SCOLS / SNNZ), 1));
        CHECK("warm-up", pstore_inc(w, h->dense, r, 0, 1));
    }
    CHECK("clock", pstore_clock(w));
    pthread_barrier_wait(h->start);
    double cpu0 = bench_thread_cpu();
    long n = op_count[h->op];
    double sum = 0;
    for (long i = 0; i < n; i++) {
        int row = (int)(i & (ROWS - 1));
        switch (h->op) {
        case OP_INC_DENSE:
            pstore_inc(w, h->dense, row, (i >> 6) & (COLS - 1), 1.0);
            break;
        case OP_INC_SPARSE:
            pstore_inc(w, h->sparse, row, ((i >> 6) & (SNNZ - 1)) * (SCOLS / SNNZ), 1.0);
            break;
        default: {
            double v;
            pstore_get(w, h->dense, row, (i >> 6) & (COLS - 1), &v);
            sum += v;
        }
        }
        if ((i + 1) % CLOCK_EVERY == 0)
            CHECK("clock", pstore_clock(w));
    }
    h->end = bench_now();
    h->cpu = bench_thread_cpu() - cpu0;
    h->sink = sum;
    CHECK("finish", pstore_finish(w));
    return NULL;
}

/* Operations per second of `threads` threads doing op: all of them over the
 * wall time, and one thread's per CPU second of it (the mean). */
static void hot_run(int op, int threads, double *wall_rate, double *cpu_rate)
{
    struct pstore *ps;
    CHECK("new", pstore_new(&ps, threads));
    struct pstore_table_spec ds = {.nrows = ROWS, .ncols = COLS, .staleness = 1};
    struct pstore_table_spec ss = {.nrows = ROWS, .ncols = SCOLS, .sparse = true, .staleness = 1};
    int dense, sparse;
    CHECK("table", pstore_add_table(ps, &ds, &dense));
    CHECK("table", pstore_add_table(ps, &ss, &sparse));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    struct hot h[2];
    pthread_t th[2];
    for (int i = 0; i < threads; i++) {
        h[i] = (struct hot){ps, dense, sparse, op, i, &start, 0, 0, 0};
        pthread_create(&th[i], NULL, hot_worker, &h[i]);
    }
    pthread_barrier_wait(&start);
    double t0 = bench_now(), end = t0, cpu = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        end = h[i].end > end ? h[i].end : end;
        cpu += h[i].cpu / threads;
    }
    pthread_barrier_destroy(&start);

    /* The increments all arrived. */
    static double all[ROWS * SCOLS];
    long incs = op == OP_GET_DENSE ? 0 : op_count[op];
    double total = 0, want = (double)threads * (incs + ROWS * (op == OP_INC_SPARSE ? SNNZ : 1));
    CHECK("read", pstore_read(ps, op == OP_INC_SPARSE ? sparse : dense, all));
    for (int i = 0; i < ROWS * (op == OP_INC_SPARSE ? SCOLS : COLS); i++)
        total += all[i];
    if (total != want) {
        fprintf(stderr, "pstore_bench: %s: table sums to %.17g, want %.17g\n", op_names[op], total,
                want);
        exit(1);
    }
    pstore_free(ps);
    *wall_rate = (double)threads * (double)op_count[op] / (end - t0);
    *cpu_rate = (double)op_count[op] / cpu;
}

/* ---- blocked time --------------------------------------------------------- */

enum { WAIT_CLOCKS = 100 };
enum { SC_SLOW, SC_STRAGGLER, NSCENARIOS };
static const char *const scenario_names[NSCENARIOS] = {"slow", "straggler"};
static const int stalenesses[] = {0, 1, 3};

struct waiter {
    struct pstore *ps;
    int table, w, scenario;
    uint64_t seed;
    double seconds, blocked;
};

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15u);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Increments on cached rows until ms milliseconds have passed. */
static void work(struct pstore_worker *w, int table, double ms)
{
    double until = bench_now() + ms * 1e-3;
    long i = 0;
    while (bench_now() < until) {
        for (int k = 0; k < 256; k++, i++)
            pstore_inc(w, table, i & (ROWS - 1), (i >> 6) & (COLS - 1), 1.0);
    }
}

static void *wait_worker(void *p)
{
    struct waiter *a = p;
    struct pstore_worker *w = pstore_worker(a->ps, a->w);
    /* straggler: 3 ms more in WAIT_CLOCKS / 4 clocks picked at random, so
     * both workers have the same total and only the timing differs. */
    bool straggle[WAIT_CLOCKS] = {false};
    uint64_t rs = a->seed;
    for (int c = 0; c < WAIT_CLOCKS / 4; c++)
        straggle[c] = true;
    for (int c = WAIT_CLOCKS - 1; c > 0; c--) {
        int j = (int)(rnd(&rs) % (uint64_t)(c + 1));
        bool t = straggle[c];
        straggle[c] = straggle[j];
        straggle[j] = t;
    }
    double t0 = bench_now();
    for (int c = 0; c < WAIT_CLOCKS; c++) {
        if (a->scenario == SC_SLOW) {
            if (a->w == 0)
                work(w, a->table, 1);
            else
                sleep_ms(2);
        } else {
            work(w, a->table, 1);
            if (straggle[c])
                sleep_ms(3);
        }
        CHECK("clock", pstore_clock(w));
    }
    a->seconds = bench_now() - t0;
    a->blocked = pstore_worker_wait(w);
    CHECK("finish", pstore_finish(w));
    return NULL;
}

/* One run: blocked shares of both workers and the wall time. */
static void wait_run(int scenario, int s, uint64_t seed, double share[2], double *seconds)
{
    struct pstore *ps;
    CHECK("new", pstore_new(&ps, 2));
    struct pstore_table_spec spec = {.nrows = ROWS, .ncols = COLS, .staleness = s};
    int table;
    CHECK("table", pstore_add_table(ps, &spec, &table));
    struct waiter a[2];
    pthread_t th[2];
    double t0 = bench_now();
    for (int i = 0; i < 2; i++) {
        a[i] = (struct waiter){ps, table, i, scenario, seed * 2 + (uint64_t)i, 0, 0};
        pthread_create(&th[i], NULL, wait_worker, &a[i]);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        share[i] = a[i].blocked / a[i].seconds;
    }
    *seconds = bench_now() - t0;
    pstore_free(ps);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: pstore_bench [RUNS]   (1 to %d)\n", MAX_RUNS);
        return 2;
    }

    for (int op = 0; op < NOPS; op++) {
        double wall[2][MAX_RUNS], cpu[2][MAX_RUNS], ratio[MAX_RUNS];
        for (int i = 0; i < runs; i++) {
            hot_run(op, 1, &wall[0][i], &cpu[0][i]);
            hot_run(op, 2, &wall[1][i], &cpu[1][i]);
            ratio[i] = wall[1][i] / wall[0][i];
        }
        for (int t = 0; t < 2; t++) {
            printf("hot %s %d %.0f %.0f", op_names[op], t + 1, bench_median(wall[t], runs),
                   bench_median(cpu[t], runs));
            for (int i = 0; i < runs; i++)
                printf(" %.0f", wall[t][i]);
            printf("\n");
        }
        printf("ratio %s %.2f", op_names[op], bench_median(ratio, runs));
        for (int i = 0; i < runs; i++)
            printf(" %.2f", ratio[i]);
        printf("\n");
        fflush(stdout);
    }

    enum { NS = sizeof(stalenesses) / sizeof(stalenesses[0]) };
    for (int sc = 0; sc < NSCENARIOS; sc++) {
        double w0[NS][MAX_RUNS], w1[NS][MAX_RUNS], secs[NS][MAX_RUNS], rel[NS][MAX_RUNS];
        for (int i = 0; i < runs; i++) {
            for (int k = 0; k < NS; k++) {
                double share[2];
                wait_run(sc, stalenesses[k], (uint64_t)i + 1, share, &secs[k][i]);
                w0[k][i] = share[0];
                w1[k][i] = share[1];
                rel[k][i] = secs[k][i] / secs[0][i];
            }
        }
        for (int k = 0; k < NS; k++) {
            printf("wait %s %d %.3f %.3f %.4f %.3f\n", scenario_names[sc], stalenesses[k],
                   bench_median(w0[k], runs), bench_median(w1[k], runs),
                   bench_median(secs[k], runs), bench_median(rel[k], runs));
        }
        fflush(stdout);
    }
    return 0;
}
