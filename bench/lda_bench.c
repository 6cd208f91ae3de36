/*
 * lda_bench.c - how fast the LDA kernel samples, on one core.
 *
 * Usage: lda_bench DIR K [SWEEPS [SAMPLERS [P [MH_STEPS [ALPHA BETA]]]]]
 *        (defaults 20, "dense,alias,sparse,plain", 1, LDA_MH_STEPS, 0.1 0.01)
 * Reads DIR/docword.txt (UCI, as `ptm gen lda --out DIR` writes it) and,
 * for every sampler named, cuts the documents into P shards and the
 * vocabulary into P blocks (even splits, as the engine's `into workers`),
 * gives every token a topic from the same seed (the same start for every
 * sampler), and runs SWEEPS sweeps of P rotation rounds each, the P
 * workers one after another on this core, through lda_sample() as the
 * engine will call it (one exact copy of the topic totals). Each sweep is
 * timed; the log-likelihood per token is computed after every sweep,
 * outside the timing. Prints, one item a line:
 *   problem DOCS WORDS TOKENS K P READ_SECONDS SHARD_SECONDS
 *   sampler NAME MEDIAN_MTOK_S MEDIAN_MTOK_S_CPU LAST_LOGLIK SECONDS1 ...
 *   sweep NAME N SECONDS CPU_SECONDS LOGLIK_PER_TOKEN CHANGED_SHARE
 * (N = 0 is the random start; MTOK_S is millions of tokens a second, the
 * median over sweeps; CPU is the process's CPU time, which a busy machine
 * inflates less.) LDA_ISA=base|avx2|avx512 in the environment picks the
 * dense sampler's code (default: the best the processor has).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "data.h"
#include "kernel_lda.h"
#include "ptm.h"

enum { MAX_SWEEPS = 10000, MAX_P = 64 };

struct run {
    const struct ptm_csr *d;
    int32_t K;
    int P;
    int64_t dbounds[MAX_P + 1], wbounds[MAX_P + 1];
    struct lda_shard sh[MAX_P];
    struct ptm_rng rng[MAX_P];
    int32_t *nwk;
    int64_t *nk, *delta, ntokens;
};

static double loglik(const struct run *r, double alpha, double beta)
{
    double l = lda_loglik_words(r->nwk, r->d->ncols, r->K, beta) +
               lda_loglik_topics(r->nk, r->K, r->d->ncols, beta);
    for (int p = 0; p < r->P; p++)
        l += lda_loglik_docs(&r->sh[p], alpha);
    return l / (double)r->ntokens;
}

static int run(const char *name, const struct ptm_csr *d, int32_t K, int P, int sweeps,
               const struct lda_opts *o)
{
    struct run r;
    memset(&r, 0, sizeof(r));
    r.d = d;
    r.K = K;
    r.P = P;
    ptm_shard_even(d->nrows, P, r.dbounds);
    ptm_shard_even(d->ncols, P, r.wbounds);
    r.nwk = calloc((size_t)(d->ncols * K), sizeof(*r.nwk));
    r.nk = calloc((size_t)K, sizeof(*r.nk));
    r.delta = calloc((size_t)K, sizeof(*r.delta));
    double *wall = malloc((size_t)sweeps * sizeof(double));
    double *cpus = malloc((size_t)sweeps * sizeof(double));
    double *rate = malloc((size_t)sweeps * sizeof(double));
    double *rate_cpu = malloc((size_t)sweeps * sizeof(double));
    if (!r.nwk || !r.nk || !r.delta || !wall || !cpus || !rate || !rate_cpu) {
        fprintf(stderr, "lda_bench: out of memory\n");
        return 1;
    }
    for (int p = 0; p < P; p++) {
        int rc = lda_shard_init(&r.sh[p], d, r.dbounds[p], r.dbounds[p + 1], K, r.wbounds, P);
        if (rc) {
            fprintf(stderr, "lda_bench: shard: %s\n", ptm_strerror(rc));
            return 1;
        }
        ptm_rng_seed(&r.rng[p], 42 + (uint64_t)p);
        for (int b = 0; b < P; b++)
            lda_init_block(&r.sh[p], b, r.nwk + r.wbounds[b] * K, r.nk, r.delta, &r.rng[p]);
        r.ntokens += r.sh[p].ntokens;
    }
    double ll = loglik(&r, o->alpha, o->beta);
    printf("sweep %s 0 0 0 %.6f 1\n", name, ll);
    for (int sw = 0; sw < sweeps; sw++) {
        int64_t changed = 0;
        double t0 = bench_now(), c0 = bench_cpu();
        for (int t = 0; t < P; t++)
            for (int p = 0; p < P; p++) {
                int b = (p + t) % P;
                changed +=
                    lda_sample(&r.sh[p], b, o, r.nwk + r.wbounds[b] * K, r.nk, r.delta, &r.rng[p]);
            }
        wall[sw] = bench_now() - t0;
        cpus[sw] = bench_cpu() - c0;
        rate[sw] = (double)r.ntokens / wall[sw] / 1e6;
        rate_cpu[sw] = (double)r.ntokens / cpus[sw] / 1e6;
        ll = loglik(&r, o->alpha, o->beta);
        printf("sweep %s %d %.6f %.6f %.6f %.4f\n", name, sw + 1, wall[sw], cpus[sw], ll,
               (double)changed / (double)r.ntokens);
        fflush(stdout);
    }
    printf("sampler %s %.3f %.3f %.6f", name, bench_median(rate, sweeps),
           bench_median(rate_cpu, sweeps), ll);
    for (int sw = 0; sw < sweeps; sw++)
        printf(" %.4f", wall[sw]);
    printf("\n");
    for (int p = 0; p < P; p++)
        lda_shard_release(&r.sh[p]);
    free(r.nwk);
    free(r.nk);
    free(r.delta);
    free(wall);
    free(cpus);
    free(rate);
    free(rate_cpu);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: lda_bench DIR K [SWEEPS [SAMPLERS [P [MH_STEPS [ALPHA BETA]]]]]\n");
        return 2;
    }
    int32_t K = atoi(argv[2]);
    int sweeps = argc > 3 ? atoi(argv[3]) : 20;
    const char *samplers = argc > 4 ? argv[4] : "dense,alias,sparse,plain";
    int P = argc > 5 ? atoi(argv[5]) : 1;
    struct lda_opts o = {0.1, 0.01, LDA_SAMPLER_ALIAS, LDA_MH_STEPS, PTM_ISA_BEST};
    if (argc > 6)
        o.mh_steps = atoi(argv[6]);
    if (argc > 8) {
        o.alpha = atof(argv[7]);
        o.beta = atof(argv[8]);
    }
    const char *isa = getenv("LDA_ISA"); /* the dense sampler's code: base, avx2, avx512 */
    if (isa && *isa) {
        o.isa = strcmp(isa, "base") == 0     ? PTM_ISA_BASE
                : strcmp(isa, "avx2") == 0   ? PTM_ISA_AVX2
                : strcmp(isa, "avx512") == 0 ? PTM_ISA_AVX512
                                             : PTM_ISA_BEST;
        if (o.isa == PTM_ISA_BEST || !ptm_isa_has(o.isa)) {
            fprintf(stderr, "lda_bench: LDA_ISA=%s: not base, avx2 or avx512 this processor has\n",
                    isa);
            return 2;
        }
    }
    if (K < 1 || sweeps < 1 || sweeps > MAX_SWEEPS || P < 1 || P > MAX_P || !(o.alpha > 0) ||
        !(o.beta > 0) || o.mh_steps < 1 || o.mh_steps > LDA_MH_STEPS_MAX) {
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
    double t0 = bench_now();
    int rc = ptm_data_read(path, &dopt, &dg, &ds);
    double tread = bench_now() - t0;
    if (rc) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "lda_bench: %s: %s\n", path, ptm_strerror(rc));
        return 1;
    }
    ptm_data_diags_release(&dg);
    const struct ptm_csr *d = &ds->csr;
    if (P > d->nrows)
        P = (int)d->nrows;
    struct lda_shard s;
    int64_t bounds[2] = {0, d->ncols};
    t0 = bench_now();
    rc = lda_shard_init(&s, d, 0, d->nrows, K, bounds, 1);
    double tshard = bench_now() - t0;
    if (rc) {
        fprintf(stderr, "lda_bench: shard: %s\n", ptm_strerror(rc));
        return 1;
    }
    printf("problem %lld %lld %lld %d %d %.3f %.3f\n", (long long)d->nrows, (long long)d->ncols,
           (long long)s.ntokens, K, P, tread, tshard);
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
        if (run(name, d, K, P, sweeps, &o))
            return 1;
    }
    ptm_dataset_free(ds);
    return 0;
}
