/*
 * predict_lda.c - `ptm predict` for LDA: the topic mixture of every new
 * document by fold-in, and the per-word log-likelihood of held-out words.
 *
 * Fold-in is collapsed Gibbs sampling of the new documents' topic
 * assignments with the trained topics fixed: phi_kw = (n_wk + beta) /
 * (n_k + V beta) from the word-topic counts (the parameter the update's
 * nwk names; n_k their column sums), and a token of word w in document d
 * takes topic k with probability proportional to (n_dk + alpha) phi_kw,
 * n_dk counting the document's other tokens. Assignments start from
 * phi alone; the mixture theta_dk = (n_dk + alpha) / (N_d + K alpha) is
 * averaged over the sweeps after the first third. Written: a document a
 * line, its K proportions separated by tabs.
 *
 * The score is document completion (Wallach et al. 2009): the tokens of
 * each document, in column order, alternate between an observed half and
 * a held-out half; theta is folded in from the observed half alone and
 * the held-out tokens are scored by log sum_k theta_dk phi_kw. The mean
 * over held-out tokens is `loglik_per_word` (natural log), exp of minus
 * it `perplexity`. Words beyond the model's vocabulary are skipped.
 */
#include "predict_lda.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "predict.h"
#include "ptm.h"
#include "rng.h"

#define LDA_FOLD_SWEEPS 30

struct fold {
    int64_t K, V;
    double alpha;
    const double *phi; /* V x K */
    double *p;         /* K: the sampling weights */
    int32_t *ndk;      /* K */
    int32_t *z;        /* a document's tokens */
    double *theta;     /* K: the average */
    struct ptm_rng rng;
    int64_t sweeps;
};

static int32_t draw(struct fold *f, const double *pw, bool with_counts)
{
    double s = 0;
    for (int64_t k = 0; k < f->K; k++) {
        s += (with_counts ? (double)f->ndk[k] + f->alpha : 1) * pw[k];
        f->p[k] = s;
    }
    double u = ptm_rng_uniform(&f->rng) * s;
    int64_t k = 0;
    while (k < f->K - 1 && f->p[k] <= u)
        k++;
    return (int32_t)k;
}

/* theta of the n tokens w[0 .. n) into f->theta. */
static void fold_in(struct fold *f, const int32_t *w, int64_t n)
{
    int64_t K = f->K;
    memset(f->ndk, 0, (size_t)K * sizeof(*f->ndk));
    memset(f->theta, 0, (size_t)K * sizeof(*f->theta));
    if (n == 0) {
        for (int64_t k = 0; k < K; k++)
            f->theta[k] = 1 / (double)K;
        return;
    }
    for (int64_t t = 0; t < n; t++) {
        f->z[t] = draw(f, f->phi + (int64_t)w[t] * K, false);
        f->ndk[f->z[t]]++;
    }
    int64_t burn = f->sweeps / 3, kept = 0;
    for (int64_t s = 0; s < f->sweeps; s++) {
        for (int64_t t = 0; t < n; t++) {
            f->ndk[f->z[t]]--;
            f->z[t] = draw(f, f->phi + (int64_t)w[t] * K, true);
            f->ndk[f->z[t]]++;
        }
        if (s >= burn) {
            for (int64_t k = 0; k < K; k++)
                f->theta[k] += f->ndk[k];
            kept++;
        }
    }
    double den = (double)n + (double)K * f->alpha;
    for (int64_t k = 0; k < K; k++)
        f->theta[k] = (f->theta[k] / (double)kept + f->alpha) / den;
}

int lda_predict(struct ptm_predict *pr, char *err, size_t errlen)
{
    int rc;
    const struct ptm_values *nwk = ptm_predict_param(pr, "nwk", true, &rc, err, errlen);
    if (!nwk)
        return rc;
    const struct ptm_dataset *ds = ptm_predict_data(pr, "D", &rc, err, errlen);
    if (!ds)
        return rc;
    if (!ds->sparse) {
        snprintf(err, errlen, "%s: the documents must be a sparse matrix of counts",
                 pr->data_path);
        return PTM_EINVAL;
    }
    const struct ptm_csr *x = &ds->csr;
    int64_t K = nwk->cols, V = nwk->rows;
    double alpha = ptm_predict_option(pr, "alpha", 0.1), beta = ptm_predict_option(pr, "beta", 0.01);
    if (x->ncols > V)
        ptm_predict_warn(pr, "%s: words %lld .. %lld are beyond the %lld of the model: skipped",
                         pr->data_path, (long long)V + 1, (long long)x->ncols, (long long)V);
    int64_t longest = 0;
    for (int64_t d = 0; d < x->nrows; d++) {
        int64_t n = 0;
        for (int64_t e = x->rowptr[d]; e < x->rowptr[d + 1]; e++) {
            double c = x->val[e];
            if (!(c >= 0 && c <= 1e9 && c == (double)(int64_t)c)) {
                snprintf(err, errlen, "%s: document %lld: the count %g of word %lld is not a "
                                      "whole number",
                         pr->data_path, (long long)d + 1, c, (long long)x->colind[e] + 1);
                return PTM_EINVAL;
            }
            n += (int64_t)c;
        }
        if (n > longest)
            longest = n;
    }
    if (longest > INT32_MAX) {
        snprintf(err, errlen, "%s: a document of %lld tokens is too long", pr->data_path,
                 (long long)longest);
        return PTM_EINVAL;
    }
    struct fold f = {.K = K, .V = V, .alpha = alpha,
                     .sweeps = pr->sweeps > 0 ? pr->sweeps : LDA_FOLD_SWEEPS};
    ptm_rng_seed(&f.rng, pr->seed);
    double *phi = ptm_malloc((size_t)(V * K) * sizeof(double));
    double *nk = ptm_malloc((size_t)K * sizeof(double));
    int32_t *w = ptm_malloc((size_t)(longest + 1) * sizeof(int32_t));
    int32_t *held = ptm_malloc((size_t)(longest + 1) * sizeof(int32_t));
    f.p = ptm_malloc((size_t)K * sizeof(double));
    f.ndk = ptm_malloc((size_t)K * sizeof(int32_t));
    f.z = ptm_malloc((size_t)(longest + 1) * sizeof(int32_t));
    f.theta = ptm_malloc((size_t)K * sizeof(double));
    rc = PTM_ENOMEM;
    if (!phi || !nk || !w || !held || !f.p || !f.ndk || !f.z || !f.theta)
        goto out;
    for (int64_t k = 0; k < K; k++)
        nk[k] = 0;
    for (int64_t v = 0; v < V; v++)
        for (int64_t k = 0; k < K; k++) {
            double c = nwk->val[v * K + k];
            if (c < 0) {
                snprintf(err, errlen, "'%s': line %lld holds a negative count",
                         ptm_predict_param_path(pr, "nwk"), (long long)v + 1);
                rc = PTM_EINVAL;
                goto out;
            }
            nk[k] += c;
        }
    for (int64_t v = 0; v < V; v++)
        for (int64_t k = 0; k < K; k++)
            phi[v * K + k] = (nwk->val[v * K + k] + beta) / (nk[k] + (double)V * beta);
    f.phi = phi;
    double ll = 0;
    int64_t nheld = 0;
    for (int64_t d = 0; d < x->nrows; d++) {
        int64_t n = 0;
        for (int64_t e = x->rowptr[d]; e < x->rowptr[d + 1]; e++)
            if (x->colind[e] < V)
                for (int64_t c = (int64_t)x->val[e]; c > 0; c--)
                    w[n++] = x->colind[e];
        fold_in(&f, w, n);
        if (pr->out)
            for (int64_t k = 0; k < K; k++)
                fprintf(pr->out, "%.17g%c", f.theta[k], k + 1 < K ? '\t' : '\n');
        /* completion: the even tokens observed, the odd ones held out */
        int64_t no = 0, nh = 0;
        for (int64_t t = 0; t < n; t++) {
            if (t % 2)
                held[nh++] = w[t];
            else
                w[no++] = w[t];
        }
        if (nh == 0)
            continue;
        fold_in(&f, w, no);
        for (int64_t t = 0; t < nh; t++) {
            const double *pw = phi + (int64_t)held[t] * K;
            double s = 0;
            for (int64_t k = 0; k < K; k++)
                s += f.theta[k] * pw[k];
            ll += log(s);
        }
        nheld += nh;
    }
    pr->predicted = x->nrows;
    pr->unit = "documents";
    if (nheld > 0) {
        ptm_predict_metric(pr, "loglik_per_word", ll / (double)nheld);
        ptm_predict_metric(pr, "perplexity", exp(-ll / (double)nheld));
    }
    rc = pr->out && ferror(pr->out) ? PTM_EIO : 0;
out:
    ptm_free(phi);
    ptm_free(nk);
    ptm_free(w);
    ptm_free(held);
    ptm_free(f.p);
    ptm_free(f.ndk);
    ptm_free(f.z);
    ptm_free(f.theta);
    return rc;
}
