/*
 * lda_bench.c - how fast the LDA kernel samples, on one core.
 *
 * Usage: lda_bench DIR K [SWEEPS [SAMPLERS [ALPHA BETA [MH_STEPS]]]]
 *        (defaults 20, "alias,sparse,plain", 0.1 0.01, LDA_MH_STEPS)
 * Reads DIR/docword.txt (UCI, as `ptm gen lda --out DIR` writes it) and,
 * for every sampler named, builds one worker's shard holding every
 * document with the vocabulary as one block, gives every token a topic
 * from the same seed (the same start for every sampler), and runs SWEEPS
 * sweeps through lda_sample() as the engine will call it (P = 1: one
 * round is one sweep), timing each. The log-likelihood per token is
 * computed after every sweep, outside the timing. Prints, one item a line:
 *   problem DOCS WORDS TOKENS K READ_SECONDS SHARD_SECONDS
 *   sampler NAME MEDIAN_MTOK_S MEDIAN_MTOK_S_CPU LAST_LOGLIK SECONDS1 ...
 *   sweep NAME K SECONDS CPU_SECONDS LOGLIK_PER_TOKEN CHANGED_SHARE
 * (K = 0 is the random start; MTOK_S is millions of tokens a second,
 * the median over sweeps; CPU is the process's CPU time, which a busy
 * machine inflates less.)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "kernel_lda.h"
#include "ptm.h"

enum { MAX_SWEEPS = 10000 };

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static double cpu(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof(*s));
    memcpy(s, v, (size_t)n * sizeof(*s));
    qsort(s, (size_t)n, sizeof(*s), cmp);
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

static double loglik(const struct lda_shard *s, const int32_t *nwk, const int64_t *nk, double alpha,
                     double beta)
{
    double l = lda_loglik_docs(s, alpha) + lda_loglik_words(nwk, s->nwords, s->K, beta) +
               lda_loglik_topics(nk, s->K, s->nwords, beta);
    return l / (double)s->ntokens;
}

static int run(const char *name, const struct ptm_csr *d, int32_t K, int sweeps,
               const struct lda_opts *o)
{
    struct lda_shard s;
    int64_t bounds[2] = {0, d->ncols};
    int rc = lda_shard_init(&s, d, 0, d->nrows, K, bounds, 1);
    if (rc) {
        fprintf(stderr, "lda_bench: shard: %s\n", ptm_strerror(rc));
        return 1;
    }
    int32_t *nwk = calloc((size_t)(d->ncols * K), sizeof(*nwk));
    int64_t *nk = calloc((size_t)K, sizeof(*nk)), *delta = calloc((size_t)K, sizeof(*delta));
    double *wall = malloc((size_t)sweeps * sizeof(double));
    double *cpus = malloc((size_t)sweeps * sizeof(double));
    double *rate = malloc((size_t)sweeps * sizeof(double));
    double *rate_cpu = malloc((size_t)sweeps * sizeof(double));
    if (!nwk || !nk || !delta || !wall || !cpus || !rate || !rate_cpu) {
        fprintf(stderr, "lda_bench: out of memory\n");
        return 1;
    }
    struct ptm_rng g;
    ptm_rng_seed(&g, 42);
    lda_init_block(&s, 0, nwk, nk, delta, &g);
    double ll = loglik(&s, nwk, nk, o->alpha, o->beta);
    printf("sweep %s 0 0 0 %.6f 1\n", name, ll);
    for (int sw = 0; sw < sweeps; sw++) {
        double t0 = now(), c0 = cpu();
        int64_t changed = lda_sample(&s, 0, o, nwk, nk, delta, &g);
        wall[sw] = now() - t0;
        cpus[sw] = cpu() - c0;
        rate[sw] = (double)s.ntokens / wall[sw] / 1e6;
        rate_cpu[sw] = (double)s.ntokens / cpus[sw] / 1e6;
        ll = loglik(&s, nwk, nk, o->alpha, o->beta);
        printf("sweep %s %d %.6f %.6f %.6f %.4f\n", name, sw + 1, wall[sw], cpus[sw], ll,
               (double)changed / (double)s.ntokens);
        fflush(stdout);
    }
    printf("sampler %s %.3f %.3f %.6f", name, median(rate, sweeps), median(rate_cpu, sweeps), ll);
    for (int sw = 0; sw < sweeps; sw++)
        printf(" %.4f", wall[sw]);
    printf("\n");
    lda_shard_release(&s);
    free(nwk);
    free(nk);
    free(delta);
    free(wall);
    free(cpus);
    free(rate);
    free(rate_cpu);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: lda_bench DIR K [SWEEPS [SAMPLERS [ALPHA BETA [MH_STEPS]]]]\n");
        return 2;
    }
    int32_t K = atoi(argv[2]);
    int sweeps = argc > 3 ? atoi(argv[3]) : 20;
    const char *samplers = argc > 4 ? argv[4] : "alias,sparse,plain";
    struct lda_opts o = {0.1, 0.01, LDA_SAMPLER_ALIAS, LDA_MH_STEPS};
    if (argc > 6) {
        o.alpha = atof(argv[5]);
        o.beta = atof(argv[6]);
    }
    if (argc > 7)
        o.mh_steps = atoi(argv[7]);
    if (K < 1 || sweeps < 1 || sweeps > MAX_SWEEPS || !(o.alpha > 0) || !(o.beta > 0) ||
        o.mh_steps < 1) {
        fprintf(stderr, "lda_bench: bad arguments\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/docword.txt", argv[1]);
    struct ptm_data_opts dopt;
    memset(&dopt, 0, sizeof(dopt));
    dopt.format = PLAN_FORMAT_UCI;
    dopt.sparse = true;
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    struct ptm_dataset *ds = NULL;
    double t0 = now();
    int rc = ptm_data_read(path, &dopt, &dg, &ds);
    double tread = now() - t0;
    if (rc) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "lda_bench: %s: %s\n", path, ptm_strerror(rc));
        return 1;
    }
    ptm_data_diags_release(&dg);
    const struct ptm_csr *d = &ds->csr;
    struct lda_shard s;
    int64_t bounds[2] = {0, d->ncols};
    t0 = now();
    rc = lda_shard_init(&s, d, 0, d->nrows, K, bounds, 1);
    double tshard = now() - t0;
    if (rc) {
        fprintf(stderr, "lda_bench: shard: %s\n", ptm_strerror(rc));
        return 1;
    }
    printf("problem %lld %lld %lld %d %.3f %.3f\n", (long long)d->nrows, (long long)d->ncols,
           (long long)s.ntokens, K, tread, tshard);
    lda_shard_release(&s);

    char list[256];
    snprintf(list, sizeof(list), "%s", samplers);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        int k = lda_sampler_lookup(name);
        if (k < 0) {
            fprintf(stderr, "lda_bench: unknown sampler '%s'\n", name);
            return 2;
        }
        o.sampler = (enum lda_sampler)k;
        if (run(name, d, K, sweeps, &o))
            return 1;
    }
    ptm_dataset_free(ds);
    return 0;
}
