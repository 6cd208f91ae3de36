/*
 * test_lda.c - the LDA kernel (runtime/models/lda/kernel_lda.c) and the
 * checkpoint of its rule (rule_lda.c).
 *
 * DESIGN: corpora are made by the generator (ptm_gen_lda) in a temporary
 * directory that is the tests' working directory, and read back with the
 * UCI reader, as a job would see them; the tiny ones are written here. A
 * serial driver plays the engine: P workers, each with its shard of the
 * documents, the vocabulary cut into P blocks, worker p holding block
 * (p + t) mod P in round t, and the topic totals kept as the parameter
 * store would under SSP with staleness s: worker p starts round t from the
 * master copy as it was after round t - 1 - s plus its own increments of
 * rounds t - s .. t - 1 (s = -1: every worker reads and writes one exact
 * copy, which makes the rotation an exact Gibbs sampler).
 *
 * The kernel is checked against criteria computed here: every count
 * recomputed from z after every round; the token layout against the
 * matrix's counts; the log-likelihood against the collapsed joint written
 * out here; the stationary distribution of each sampler against the exact
 * conditional of one token and the exact posterior of a whole tiny corpus
 * (enumerated), by chi-square; the likelihood rising and levelling off;
 * the planted topics recovered; the Metropolis-Hastings sampler reaching
 * the exact sampler's likelihood; shards loaded from a checkpoint going on
 * as the saved ones do, bit for bit.
 *
 * Set PTM_TEST_VERBOSE=1 to print the figures measured.
 */
#define _DEFAULT_SOURCE /* lgamma_r */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
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
#include "gen_lda.h"
#include "kernel_lda.h"
#include "plan.h"
#include "ptm.h"
#include "rng.h"
#include "testutil.h"

static double lgam(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

static const char *const sampler_name[] = {"sparse", "alias", "plain", "dense"};
#define NSAMPLERS 4

/* ---- corpora ----------------------------------------------------------------------- */

struct corpus {
    struct ptm_dataset *ds;
    const struct ptm_csr *d;
    int64_t D, W, tokens;
    int32_t K;
    double *phi; /* K x W: the true topics; NULL for a corpus written here */
};

static void make_dir(const char *dir)
{
    ck_assert_msg(mkdir(dir, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
}

static void corpus_count(struct corpus *c)
{
    c->d = &c->ds->csr;
    c->D = c->d->nrows;
    c->W = c->d->ncols;
    c->tokens = 0;
    for (int64_t e = 0; e < c->d->nnz; e++)
        c->tokens += (int64_t)c->d->val[e];
}

/* A file of tab-separated numbers, rows x cols of them. */
static double *read_tsv(const char *path, int64_t rows, int64_t cols)
{
    char *text = tu_read_file(path, NULL);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    double *v = malloc((size_t)(rows * cols) * sizeof(*v));
    char *p = text;
    for (int64_t i = 0; i < rows * cols; i++) {
        char *e;
        v[i] = strtod(p, &e);
        ck_assert_msg(e != p, "%s: number %lld missing", path, (long long)i);
        p = e;
    }
    free(text);
    return v;
}

/* Generate o into dir and read it back as a job would. */
static void corpus_gen(const char *dir, const struct gen_lda_opts *o, struct corpus *c)
{
    memset(c, 0, sizeof(*c));
    make_dir(dir);
    const char *file = NULL;
    ck_assert_int_eq(ptm_gen_lda(o, dir, &file), 0);
    char path[256], vocab[256];
    snprintf(path, sizeof(path), "%s/docword.txt", dir);
    snprintf(vocab, sizeof(vocab), "%s/vocab.txt", dir);
    struct ptm_data_opts op;
    memset(&op, 0, sizeof(op));
    op.format = PLAN_FORMAT_UCI;
    op.sparse = true;
    op.integer = true;
    op.vocab = vocab;
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc = ptm_data_read(path, &op, &dg, &c->ds);
    if (rc)
        ptm_data_diags_print(stderr, &dg, false);
    ptm_data_diags_release(&dg);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(c->ds->vocab.n, o->words);
    corpus_count(c);
    ck_assert_int_eq(c->D, o->docs);
    ck_assert_int_eq(c->W, o->words);
    c->K = (int32_t)o->topics;
    snprintf(path, sizeof(path), "%s/topics_true.tsv", dir);
    c->phi = read_tsv(path, o->topics, o->words);
}

/* A UCI docword text. */
static void corpus_text(const char *docword, int32_t K, struct corpus *c)
{
    memset(c, 0, sizeof(*c));
    struct ptm_data_opts op;
    memset(&op, 0, sizeof(op));
    op.format = PLAN_FORMAT_UCI;
    op.sparse = true;
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc =
        ptm_data_read_mem(docword, strlen(docword), "docword", NULL, 0, NULL, &op, &dg, &c->ds);
    if (rc)
        ptm_data_diags_print(stderr, &dg, false);
    ptm_data_diags_release(&dg);
    ck_assert_int_eq(rc, 0);
    corpus_count(c);
    c->K = K;
}

static void corpus_release(struct corpus *c)
{
    ptm_dataset_free(c->ds);
    free(c->phi);
}

/* ---- the serial driver ------------------------------------------------------------- */

#define MAXP 3

struct sim {
    const struct corpus *c;
    int P, s; /* workers; staleness (-1: one exact copy of n_k) */
    int32_t K;
    struct lda_opts o;
    int64_t dbounds[MAXP + 1], wbounds[MAXP + 1];
    struct lda_shard sh[MAXP];
    struct ptm_rng rng[MAXP];
    struct lda_wk wk; /* n_wk */
    int32_t *row;     /* K: scratch of lda_wk_read(), zero */
    int64_t *G, *G0; /* the master copy of n_k; as initialized */
    int64_t *snap;   /* (s + 1) x K: G after round r, at r mod (s + 1) */
    int64_t *own;    /* P x (s + 1) x K: worker p's increments of round r */
    int64_t *nk[MAXP], *delta[MAXP];
    int64_t round;
    int64_t changed; /* tokens moved in the last round */
};

/* Each word's tokens in c (W of them; caller frees). */
static int64_t *word_tokens(const struct corpus *c)
{
    int64_t *n = calloc((size_t)c->W + 1, sizeof(*n));
    for (int64_t e = 0; e < c->d->rowptr[c->d->nrows]; e++)
        n[c->d->colind[e]] += (int64_t)c->d->val[e];
    return n;
}

/* n_wk as form (LDA_WK_DENSE, LDA_WK_SPARSE, or -1: as the rule chooses);
 * the documents' counts as lists when docs is 1, as rows of n_dk when 0,
 * as the sampler needs when -1 (lists for the sparse one). */
static void sim_init_form(struct sim *m, const struct corpus *c, int P, int s,
                          enum lda_sampler kind, double alpha, double beta, uint64_t seed, int form,
                          int docs)
{
    memset(m, 0, sizeof(*m));
    m->c = c;
    m->P = P;
    m->s = s;
    m->K = c->K;
    m->o = (struct lda_opts){alpha, beta, kind, LDA_MH_STEPS, PTM_ISA_BEST};
    int32_t K = c->K;
    ptm_shard_even(c->D, P, m->dbounds);
    ptm_shard_even(c->W, P, m->wbounds);
    int64_t *wt = word_tokens(c);
    ck_assert_int_eq(lda_wk_init(&m->wk, c->W, K, wt, form), 0);
    ck_assert(form < 0 || (int)m->wk.form == form);
    free(wt);
    m->row = calloc((size_t)K, sizeof(*m->row));
    m->G = calloc((size_t)K, sizeof(int64_t));
    m->G0 = calloc((size_t)K, sizeof(int64_t));
    int depth = s >= 0 ? s + 1 : 1;
    m->snap = calloc((size_t)(depth * K), sizeof(int64_t));
    m->own = calloc((size_t)(P * depth * K), sizeof(int64_t));
    for (int p = 0; p < P; p++) {
        ck_assert_int_eq(
            lda_shard_init(&m->sh[p], c->d, m->dbounds[p], m->dbounds[p + 1], K, m->wbounds, P,
                           docs < 0 ? kind == LDA_SAMPLER_SPARSE : docs == 1),
            0);
        ptm_rng_seed(&m->rng[p], seed * 1000 + (uint64_t)p);
        m->nk[p] = calloc((size_t)K, sizeof(int64_t));
        m->delta[p] = calloc((size_t)K, sizeof(int64_t));
        /* The initial epoch, on the master copy. */
        for (int b = 0; b < P; b++)
            lda_init_block(&m->sh[p], b, &m->wk, m->G, m->delta[p], &m->rng[p]);
        memset(m->delta[p], 0, (size_t)K * sizeof(int64_t));
    }
    memcpy(m->G0, m->G, (size_t)K * sizeof(int64_t));
}

static void sim_init(struct sim *m, const struct corpus *c, int P, int s, enum lda_sampler kind,
                     double alpha, double beta, uint64_t seed)
{
    sim_init_form(m, c, P, s, kind, alpha, beta, seed, -1, -1);
}

/* n_wk of word w, topic k. */
static int32_t sim_nwk(const struct sim *m, int64_t w, int32_t k)
{
    return lda_wk_get(&m->wk, w, k);
}

/* One token of shard s's document d moved from topic a to b in n_dk. */
static void shard_move(struct lda_shard *s, int64_t d, int32_t a, int32_t b)
{
    if (!s->sparse_docs) {
        s->ndk[d * s->K + a]--;
        s->ndk[d * s->K + b]++;
        return;
    }
    int32_t *list = s->dnz + s->dnzp[d];
    uint16_t *cnt = s->dnc + s->dnzp[d];
    int32_t m = 0;
    while (list[m] != a)
        m++;
    if (--cnt[m] == 0) {
        int32_t last = --s->dnzn[d];
        list[m] = list[last];
        cnt[m] = cnt[last];
    }
    for (m = 0; m < s->dnzn[d] && list[m] != b; m++)
        ;
    if (m == s->dnzn[d]) {
        list[m] = b;
        cnt[m] = 0;
        s->dnzn[d]++;
    }
    cnt[m]++;
}

/* n_dk of shard s's document d, topic k (from its list under sparse_docs). */
static int32_t shard_ndk(const struct lda_shard *s, int64_t d, int32_t k)
{
    if (!s->sparse_docs)
        return s->ndk[d * s->K + k];
    for (int32_t m = s->dnzp[d]; m < s->dnzp[d] + s->dnzn[d]; m++)
        if (s->dnz[m] == k)
            return s->dnc[m];
    return 0;
}

static void sim_release(struct sim *m)
{
    for (int p = 0; p < m->P; p++) {
        lda_shard_release(&m->sh[p]);
        free(m->nk[p]);
        free(m->delta[p]);
    }
    lda_wk_release(&m->wk);
    free(m->row);
    free(m->G);
    free(m->G0);
    free(m->snap);
    free(m->own);
}

/* Worker p's copy of n_k at the start of round t under staleness s. */
static void sim_view(struct sim *m, int p, int64_t t, int64_t *out)
{
    int32_t K = m->K;
    int64_t s = m->s, depth = s + 1;
    const int64_t *base = t - 1 - s >= 0 ? m->snap + ((t - 1 - s) % depth) * K : m->G0;
    memcpy(out, base, (size_t)K * sizeof(*out));
    for (int64_t r = t - s > 0 ? t - s : 0; r < t; r++) {
        const int64_t *inc = m->own + ((int64_t)p * depth + r % depth) * K;
        for (int32_t k = 0; k < K; k++)
            out[k] += inc[k];
    }
}

static void sim_round(struct sim *m)
{
    int32_t K = m->K;
    int64_t t = m->round;
    m->changed = 0;
    for (int p = 0; p < m->P; p++) {
        int b = (int)((p + t) % m->P);
        if (m->s < 0) {
            m->changed += lda_sample(&m->sh[p], b, &m->o, &m->wk, m->G, m->delta[p], &m->rng[p]);
            continue;
        }
        sim_view(m, p, t, m->nk[p]);
        /* What the kernel relies on: the copy holds at least the worker's
         * own tokens in every topic. */
        for (int32_t k = 0; k < K; k++) {
            int64_t mine = 0;
            for (int64_t d = 0; d < m->sh[p].ndocs; d++)
                mine += shard_ndk(&m->sh[p], d, k);
            EXPECT(m->nk[p][k] >= mine);
        }
        memset(m->delta[p], 0, (size_t)K * sizeof(int64_t));
        m->changed += lda_sample(&m->sh[p], b, &m->o, &m->wk, m->nk[p], m->delta[p], &m->rng[p]);
        memcpy(m->own + ((int64_t)p * (m->s + 1) + t % (m->s + 1)) * K, m->delta[p],
               (size_t)K * sizeof(int64_t));
    }
    if (m->s >= 0) {
        for (int p = 0; p < m->P; p++)
            for (int32_t k = 0; k < K; k++)
                m->G[k] += m->delta[p][k];
        memcpy(m->snap + (t % (m->s + 1)) * K, m->G, (size_t)K * sizeof(int64_t));
    }
    m->round++;
}

static void sim_sweep(struct sim *m)
{
    for (int r = 0; r < m->P; r++)
        sim_round(m);
}

/* The kernel's log-likelihood per token, from its parts. */
static double sim_loglik(const struct sim *m)
{
    double l = 0;
    for (int p = 0; p < m->P; p++)
        l += lda_loglik_docs(&m->sh[p], m->o.alpha);
    for (int b = 0; b < m->P; b++)
        l += lda_loglik_words(&m->wk, m->wbounds[b], m->wbounds[b + 1], m->o.beta);
    l += lda_loglik_topics(m->G, m->K, m->c->W, m->o.beta);
    return l / (double)m->c->tokens;
}

/* Every count recomputed from z: n_dk of every shard, n_wk, the master
 * n_k; the word-order copy of z; the sparse sampler's topic lists when
 * they are current. Returns n_wk recomputed (W x K; caller frees). */
static int32_t *sim_check(const struct sim *m)
{
    int32_t K = m->K;
    int64_t W = m->c->W;
    int32_t *nwk = calloc((size_t)(W * K), sizeof(*nwk));
    for (int p = 0; p < m->P; p++) {
        const struct lda_shard *s = &m->sh[p];
        uint16_t *ndk = calloc((size_t)(s->ndocs * K + 1), sizeof(*ndk));
        for (int64_t d = 0; d < s->ndocs; d++)
            for (int32_t pos = s->dptr[d]; pos < s->dptr[d + 1]; pos++) {
                EXPECT(s->z[pos] >= 0 && s->z[pos] < K);
                ndk[d * K + s->z[pos]]++;
            }
        if (!s->sparse_docs)
            EXPECT(memcmp(ndk, s->ndk, (size_t)(s->ndocs * K) * sizeof(*ndk)) == 0);
        else /* each topic in use once in its document's list, with its count */
            for (int64_t d = 0; d < s->ndocs; d++) {
                int32_t n = 0;
                for (int32_t k = 0; k < K; k++)
                    n += ndk[d * K + k] > 0;
                EXPECT(s->dnzn[d] == n && n <= s->dnzp[d + 1] - s->dnzp[d]);
                for (int32_t k = 0; k < K; k++)
                    EXPECT(shard_ndk(s, d, k) == ndk[d * K + k]);
            }
        for (int64_t i = 0; i < s->bw[s->nblocks]; i++)
            for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
                EXPECT(!s->zw_fresh || s->zw[j] == s->z[s->tok[j].pos]);
                nwk[(int64_t)s->wlist[i] * K + s->z[s->tok[j].pos]]++;
            }
        free(ndk);
    }
    for (int64_t w = 0; w < W; w++) {
        for (int32_t k = 0; k < K; k++)
            EXPECT(sim_nwk(m, w, k) == nwk[w * K + k]);
        if (m->wk.form == LDA_WK_SPARSE) { /* each topic in use once, in the word's room */
            int32_t n = 0;
            for (int32_t k = 0; k < K; k++)
                n += nwk[w * K + k] > 0;
            EXPECT(m->wk.len[w] == n && n <= m->wk.off[w + 1] - m->wk.off[w]);
        }
    }
    int64_t *nk = calloc((size_t)K, sizeof(*nk)), *nk2 = calloc((size_t)K, sizeof(*nk2));
    for (int64_t w = 0; w < W; w++)
        for (int32_t k = 0; k < K; k++)
            nk[k] += nwk[w * K + k];
    EXPECT(memcmp(nk, m->G, (size_t)K * sizeof(*nk)) == 0);
    lda_topic_totals(&m->wk, nk2);
    EXPECT(memcmp(nk, nk2, (size_t)K * sizeof(*nk)) == 0);
    free(nk2);
    int64_t total = 0;
    for (int32_t k = 0; k < K; k++)
        total += nk[k];
    EXPECT(total == m->c->tokens);
    free(nk);
    return nwk;
}

/* The collapsed joint log p(w, z), counting from z alone (the kernel's
 * counts are not read). */
static double joint_from_z(const struct sim *m)
{
    int32_t K = m->K;
    int64_t W = m->c->W;
    double a = m->o.alpha, b = m->o.beta, l = 0;
    int32_t *nwk = calloc((size_t)(W * K), sizeof(*nwk));
    int64_t *nk = calloc((size_t)K, sizeof(*nk));
    int32_t *nd = calloc((size_t)K, sizeof(*nd));
    for (int p = 0; p < m->P; p++) {
        const struct lda_shard *s = &m->sh[p];
        for (int64_t d = 0; d < s->ndocs; d++) {
            memset(nd, 0, (size_t)K * sizeof(*nd));
            for (int32_t pos = s->dptr[d]; pos < s->dptr[d + 1]; pos++)
                nd[s->z[pos]]++;
            l += lgam(K * a) - lgam(s->dptr[d + 1] - s->dptr[d] + K * a);
            for (int32_t k = 0; k < K; k++)
                l += lgam(nd[k] + a) - lgam(a);
        }
        for (int64_t i = 0; i < s->bw[s->nblocks]; i++)
            for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++)
                nwk[(int64_t)s->wlist[i] * K + s->z[s->tok[j].pos]]++;
    }
    for (int64_t w = 0; w < W; w++)
        for (int32_t k = 0; k < K; k++) {
            l += lgam(nwk[w * K + k] + b) - lgam(b);
            nk[k] += nwk[w * K + k];
        }
    for (int32_t k = 0; k < K; k++)
        l += lgam(W * b) - lgam(nk[k] + W * b);
    free(nd);
    free(nk);
    free(nwk);
    return l;
}

/* The same per token, after checking the kernel's counts. */
static double loglik_ref(const struct sim *m)
{
    free(sim_check(m));
    return joint_from_z(m) / (double)m->c->tokens;
}

/* ---- the token layout ------------------------------------------------------------- */

/* Shard p's tokens against the matrix: every (document, word) pair as
 * often as its count, words by block and ascending, documents ascending
 * within a word, every place in z once and inside its document. */
static void check_layout(const struct sim *m, int p)
{
    const struct lda_shard *s = &m->sh[p];
    const struct ptm_csr *d = m->c->d;
    int64_t lo = m->dbounds[p], hi = m->dbounds[p + 1];
    int64_t ntok = 0;
    for (int64_t e = d->rowptr[lo]; e < d->rowptr[hi]; e++)
        ntok += (int64_t)d->val[e];
    EXPECT(s->ntokens == ntok);
    EXPECT(s->ndocs == hi - lo);
    EXPECT(s->dptr[0] == 0 && s->dptr[s->ndocs] == ntok);
    int64_t *seen = calloc((size_t)(d->rowptr[hi] - d->rowptr[lo] + 1), sizeof(*seen));
    char *used = calloc((size_t)ntok + 1, 1);
    EXPECT(s->bw[0] == 0);
    for (int b = 0; b < s->nblocks; b++) {
        for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
            int32_t w = s->wlist[i];
            EXPECT(w >= m->wbounds[b] && w < m->wbounds[b + 1]);
            EXPECT(i == s->bw[b] || s->wlist[i - 1] < w);
            EXPECT(s->wptr[i] < s->wptr[i + 1]);
            for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
                int32_t doc = s->tok[j].doc, pos = s->tok[j].pos;
                EXPECT(doc >= 0 && doc < s->ndocs);
                EXPECT(j == s->wptr[i] || s->tok[j - 1].doc <= doc);
                EXPECT(pos >= s->dptr[doc] && pos < s->dptr[doc + 1]);
                EXPECT(!used[pos]);
                used[pos] = 1;
                /* the matrix entry (lo + doc, w) */
                int64_t e = d->rowptr[lo + doc];
                while (e < d->rowptr[lo + doc + 1] && d->colind[e] != w)
                    e++;
                EXPECT(e < d->rowptr[lo + doc + 1]);
                seen[e - d->rowptr[lo]]++;
            }
        }
    }
    EXPECT(s->wptr[s->bw[s->nblocks]] == ntok);
    for (int64_t e = d->rowptr[lo]; e < d->rowptr[hi]; e++)
        EXPECT(seen[e - d->rowptr[lo]] == (int64_t)d->val[e]);
    free(seen);
    free(used);
}

/* ---- generated corpora -------------------------------------------------------------- */

/* seed, docs, words, topics, length, alpha, beta */
static const struct gen_lda_opts small_opts = {11, 120, 60, 4, 25, 0.3, 0.1};
static const struct gen_lda_opts recover_opts = {12, 600, 300, 6, 80, 0.5, 0.02};
static const struct gen_lda_opts compare_opts = {13, 400, 300, 6, 80, 0.5, 0.02};

/* ---- tests: set-up ---------------------------------------------------------------------- */

START_TEST(test_sampler_lookup)
{
    for (int i = 0; i < NSAMPLERS; i++)
        ck_assert_int_eq(lda_sampler_lookup(sampler_name[i]), i);
    ck_assert_int_eq(lda_sampler_lookup("Sparse"), -1);
    ck_assert_int_eq(lda_sampler_lookup(""), -1);
    ck_assert_int_eq(lda_sampler_lookup("mh"), -1);
}
END_TEST

/* Shards for P = 1, 2, 3 (the loop index + 1) hold the matrix's tokens. */
START_TEST(test_layout)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    struct sim m;
    sim_init(&m, &c, _i + 1, 0, LDA_SAMPLER_PLAIN, 0.1, 0.01, 1);
    int64_t total = 0;
    for (int p = 0; p < m.P; p++) {
        check_layout(&m, p);
        total += m.sh[p].ntokens;
    }
    ck_assert_int_eq(total, c.tokens);
    free(sim_check(&m));
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

static const struct {
    const char *docword;
    int64_t lo, hi;
    int32_t K;
    int64_t bounds[3];
    int nblocks;
    int want;
} init_rows[] = {
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 0, {0, 3}, 1, PTM_EINVAL},    /* K = 0 */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 2, {0, 2}, 1, PTM_EINVAL},    /* bounds end short */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 2, {1, 3}, 1, PTM_EINVAL},    /* bounds start late */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 2, {0, 2, 1}, 2, PTM_EINVAL}, /* descending */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 2, {0, 3}, 0, PTM_EINVAL},    /* no block */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 1, 0, 2, {0, 3}, 1, PTM_EINVAL},    /* lo > hi */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 3, 2, {0, 3}, 1, PTM_EINVAL},    /* hi past the end */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 0, 2, 2, {0, 0, 3}, 2, 0},          /* an empty block */
    {"2\n3\n2\n1 1 2\n2 3 1\n", 1, 1, 2, {0, 3}, 1, 0},             /* no documents */
    {"2\n3\n1\n1 1 3000000000\n", 0, 2, 2, {0, 3}, 1, PTM_EINVAL},  /* count > INT32_MAX */
    {"2\n3\n2\n1 1 2000000000\n2 3 2000000000\n", 0, 2, 2, {0, 3}, 1, PTM_ETOOBIG}, /* tokens */
};

START_TEST(test_init_rows)
{
    struct corpus c;
    corpus_text(init_rows[_i].docword, init_rows[_i].K, &c);
    struct lda_shard s;
    int rc = lda_shard_init(&s, c.d, init_rows[_i].lo, init_rows[_i].hi, init_rows[_i].K,
                            init_rows[_i].bounds, init_rows[_i].nblocks, _i % 2 == 1);
    ck_assert_msg(rc == init_rows[_i].want, "row %d: got %d, want %d", _i, rc, init_rows[_i].want);
    if (rc == 0) {
        int64_t t = 0;
        for (int64_t r = init_rows[_i].lo; r < init_rows[_i].hi; r++)
            for (int64_t e = c.d->rowptr[r]; e < c.d->rowptr[r + 1]; e++)
                t += (int64_t)c.d->val[e];
        ck_assert_int_eq(s.ntokens, t);
        lda_shard_release(&s);
    }
    corpus_release(&c);
}
END_TEST

/* Counts that are not whole numbers from 0 to INT32_MAX; 0 is no token. */
START_TEST(test_init_values)
{
    struct corpus c;
    corpus_text("2\n3\n3\n1 1 2\n2 2 1\n2 3 1\n", 2, &c);
    int64_t bounds[2] = {0, 3};
    struct lda_shard s;
    double *v = c.ds->csr.val;
    v[1] = 0.5;
    ck_assert_int_eq(lda_shard_init(&s, c.d, 0, 2, 2, bounds, 1, false), PTM_EINVAL);
    v[1] = -1;
    ck_assert_int_eq(lda_shard_init(&s, c.d, 0, 2, 2, bounds, 1, false), PTM_EINVAL);
    v[1] = NAN;
    ck_assert_int_eq(lda_shard_init(&s, c.d, 0, 2, 2, bounds, 1, false), PTM_EINVAL);
    v[1] = 0;
    ck_assert_int_eq(lda_shard_init(&s, c.d, 0, 2, 2, bounds, 1, false), 0);
    ck_assert_int_eq(s.ntokens, 3);
    ck_assert_int_eq(s.bw[1], 2); /* words 0 and 2 */
    lda_shard_release(&s);
    corpus_release(&c);
}
END_TEST

/* lda_wk_init() in either form: each allocation that fails gives
 * PTM_ENOMEM and an empty wk. */
START_TEST(test_wk_fault)
{
    int64_t tokens[5] = {3, 0, 9, 1, 40};
    int rc;
    for (unsigned long nth = 1;; nth++) {
        struct lda_wk wk;
        ptm_fault_inject(nth);
        rc = lda_wk_init(&wk, 5, 20, tokens, _i ? LDA_WK_SPARSE : LDA_WK_DENSE);
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_eq(wk.form, _i ? LDA_WK_SPARSE : LDA_WK_DENSE);
            if (_i) /* room for min(K, tokens) a word */
                ck_assert_int_eq(wk.off[5], 3 + 0 + 9 + 1 + 20);
            lda_wk_release(&wk);
            break;
        }
        for (size_t i = 0; i < sizeof(wk); i++)
            EXPECT(((const unsigned char *)&wk)[i] == 0);
    }
}
END_TEST

START_TEST(test_fault)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    int64_t bounds[3] = {0, 30, 60};
    int rc;
    for (unsigned long nth = 1;; nth++) {
        struct lda_shard s;
        ptm_fault_inject(nth);
        rc = lda_shard_init(&s, c.d, 10, 100, 4, bounds, 2, nth % 2 == 1);
        ptm_fault_inject(0);
        if (rc != PTM_ENOMEM) {
            ck_assert_int_eq(rc, 0);
            ck_assert_int_gt(nth, 5);
            lda_shard_release(&s);
            break;
        }
        for (size_t i = 0; i < sizeof(s); i++) /* released: all zero */
            EXPECT(((const unsigned char *)&s)[i] == 0);
    }
    corpus_release(&c);
}
END_TEST

/* ---- tests: invariants ------------------------------------------------------------------ */

/* Every sampler on P = 1, 2, 3 with the totals one round stale: every
 * count equals its recount from z after every round. */
START_TEST(test_invariants)
{
    /* loop index: sampler, P, then n_wk dense or sparse */
    int kind = _i % NSAMPLERS, P = _i / NSAMPLERS % MAXP + 1;
    int form = _i / (NSAMPLERS * MAXP) ? LDA_WK_SPARSE : LDA_WK_DENSE;
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    struct sim m;
    sim_init_form(&m, &c, P, 1, (enum lda_sampler)kind, 0.1, 0.01, 2, form,
                  form == LDA_WK_SPARSE ? 1 : -1);
    free(sim_check(&m));
    int64_t moved = 0;
    for (int r = 0; r < 6 * P; r++) {
        sim_round(&m);
        moved += m.changed;
        free(sim_check(&m));
    }
    ck_assert_int_gt(moved, 0);
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* n_wk kept sparse makes the same draws as dense, bit for bit, and so do
 * the documents' counts kept as lists for the samplers that read rows:
 * every sampler, 2 workers, totals one round stale, K = 100 (more topics
 * than most words have tokens, where the sparse forms save), three sweeps
 * from the same start, the runs' topics and counts alike after each. */
START_TEST(test_wk_forms)
{
    int kind = _i;
    static const struct gen_lda_opts o = {16, 120, 400, 100, 25, 0.3, 0.1};
    struct corpus c;
    corpus_gen("forms", &o, &c);
    struct sim a, b;
    sim_init_form(&a, &c, 2, 1, (enum lda_sampler)kind, 0.1, 0.01, 4, LDA_WK_DENSE, -1);
    sim_init_form(&b, &c, 2, 1, (enum lda_sampler)kind, 0.1, 0.01, 4, LDA_WK_SPARSE, 1);
    ck_assert_int_lt(lda_wk_bytes(&b.wk), lda_wk_bytes(&a.wk));
    int64_t *wt = word_tokens(&c);
    struct lda_wk chosen;
    ck_assert_int_eq(lda_wk_init(&chosen, c.W, c.K, wt, -1), 0);
    ck_assert_int_eq(chosen.form, LDA_WK_SPARSE); /* the rule's choice here */
    lda_wk_release(&chosen);
    free(wt);
    for (int sw = 0; sw < 3; sw++) {
        sim_sweep(&a);
        sim_sweep(&b);
        ck_assert_int_eq(a.changed, b.changed);
        for (int p = 0; p < 2; p++)
            ck_assert(memcmp(a.sh[p].z, b.sh[p].z, (size_t)a.sh[p].ntokens * sizeof(int32_t)) == 0);
        for (int64_t w = 0; w < c.W; w++)
            for (int32_t k = 0; k < c.K; k++)
                EXPECT(sim_nwk(&a, w, k) == sim_nwk(&b, w, k));
        free(sim_check(&b));
        /* the same counts, summed in another order where b keeps lists */
        double la = sim_loglik(&a), lb = sim_loglik(&b);
        ck_assert_msg(fabs(la - lb) <= 1e-13 * fabs(la), "%.17g vs %.17g", la, lb);
    }
    sim_release(&a);
    sim_release(&b);
    corpus_release(&c);
}
END_TEST

/* The other rank's counts for wk_sum_other(): n int32 of them, consumed in
 * order as lda_wk_sum() hands its chunks over. */
static const int32_t *other_rank;
static size_t other_at;

static void wk_sum_other(int32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] += other_rank[other_at + i];
    other_at += n;
}

/* Across ranks: a rank that cleared the words it does not hold and summed
 * with a rank that holds only those ends with every count, in both forms;
 * the sparse form a chunk at a time (K = 3000: a chunk of 349 words). */
START_TEST(test_wk_sum)
{
    const int64_t W = 1000;
    const int32_t K = _i ? 3000 : 7;
    int64_t *wt = calloc((size_t)W, sizeof(*wt));
    int32_t *full = calloc((size_t)(W * K), sizeof(*full)), *other = calloc((size_t)(W * K), sizeof(*other));
    int32_t *row = calloc((size_t)K, sizeof(*row)), *scratch = malloc(LDA_WK_CHUNK * sizeof(int32_t));
    struct ptm_rng g;
    ptm_rng_seed(&g, 5);
    for (int64_t w = 0; w < W; w++) {
        wt[w] = (int64_t)(ptm_rng_next(&g) % 9);
        for (int64_t n = 0; n < wt[w]; n++)
            full[w * K + (int32_t)(ptm_rng_next(&g) % (uint64_t)K)]++;
    }
    for (int form = LDA_WK_DENSE; form <= LDA_WK_SPARSE; form++) {
        struct lda_wk wk;
        ck_assert_int_eq(lda_wk_init(&wk, W, K, wt, form), 0);
        for (int64_t w = 0; w < W; w++) {
            int32_t *r = (int32_t *)lda_wk_read(&wk, w, row);
            memcpy(r, full + w * K, (size_t)K * sizeof(*r));
            if (wk.form == LDA_WK_SPARSE) {
                wk.len[w] = 0;
                for (int32_t k = 0; k < K; k++)
                    if (r[k] > 0)
                        wk.ent[wk.off[w] + wk.len[w]++] = (struct lda_wk_ent){k, r[k]};
                memset(row, 0, (size_t)K * sizeof(*row));
            }
        }
        /* this rank holds words 0 .. 399 and 700 .. 999, the other the rest */
        lda_wk_clear(&wk, 400, 700);
        memset(other, 0, (size_t)(W * K) * sizeof(*other));
        memcpy(other + 400 * K, full + 400 * K, (size_t)(300 * K) * sizeof(*other));
        for (int64_t w = 400; w < 700; w++)
            for (int32_t k = 0; k < K; k++)
                EXPECT(lda_wk_get(&wk, w, k) == 0);
        other_rank = other;
        other_at = 0;
        lda_wk_sum(&wk, wk_sum_other, scratch);
        ck_assert_uint_eq(other_at, (size_t)(W * K));
        for (int64_t w = 0; w < W; w++)
            for (int32_t k = 0; k < K; k++)
                EXPECT(lda_wk_get(&wk, w, k) == full[w * K + k]);
        lda_wk_release(&wk);
    }
    free(wt);
    free(full);
    free(other);
    free(row);
    free(scratch);
}
END_TEST

/* The dense sampler's code for each instruction set this processor has
 * makes the same draws, bit for bit: K = 70 (four vectors at once, then a
 * fifth with padding) and K = 4 (one vector, most lanes padding), two
 * workers, three sweeps from the same start. Loop index: the K. */
static const struct gen_lda_opts isa_opts[] = {{14, 120, 60, 70, 25, 0.3, 0.1},
                                               {15, 120, 60, 4, 25, 0.3, 0.1}};

START_TEST(test_dense_isa)
{
    static const enum ptm_isa isas[] = {PTM_ISA_BASE, PTM_ISA_AVX2, PTM_ISA_AVX512};
    struct corpus c;
    corpus_gen(_i == 0 ? "isa70" : "isa4", &isa_opts[_i], &c);
    int32_t *want[2] = {NULL, NULL};
    int ran = 0;
    for (int i = 0; i < (int)PTM_ARRAY_LEN(isas); i++) {
        if (!ptm_isa_has(isas[i]))
            continue;
        struct sim m;
        sim_init(&m, &c, 2, 0, LDA_SAMPLER_DENSE, 0.3, 0.1, 9);
        m.o.isa = isas[i];
        int64_t moved = 0;
        for (int sw = 0; sw < 3; sw++) {
            sim_sweep(&m);
            moved += m.changed;
        }
        ck_assert_int_gt(moved, 0);
        free(sim_check(&m));
        for (int p = 0; p < 2; p++) {
            size_t n = (size_t)m.sh[p].ntokens * sizeof(int32_t);
            if (!want[p]) {
                want[p] = malloc(n ? n : 1);
                memcpy(want[p], m.sh[p].z, n);
            } else {
                ck_assert_msg(memcmp(want[p], m.sh[p].z, n) == 0, "isa %d: worker %d differs",
                              (int)isas[i], p);
            }
        }
        ran++;
        sim_release(&m);
    }
    ck_assert_int_ge(ran, 1);
    if (tu_verbose())
        printf("dense, K %d: %d instruction sets agree\n", (int)isa_opts[_i].topics, ran);
    free(want[0]);
    free(want[1]);
    corpus_release(&c);
}
END_TEST

/* The parts of the log-likelihood add up to the joint written out here. */
START_TEST(test_loglik_parts)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    struct sim m;
    sim_init(&m, &c, _i + 1, 0, LDA_SAMPLER_SPARSE, 0.3, 0.1, 3);
    for (int sweep = 0; sweep < 3; sweep++) {
        double got = sim_loglik(&m), want = loglik_ref(&m);
        ck_assert_msg(fabs(got - want) <= 1e-12 * fabs(want), "P %d: %.17g vs %.17g", m.P, got,
                      want);
        sim_sweep(&m);
    }
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* One topic, an empty document, a word nobody uses: every sampler keeps
 * every token in topic 0 and the log-likelihood is the joint's. */
START_TEST(test_one_topic)
{
    struct corpus c;
    corpus_text("3\n4\n3\n1 1 2\n1 2 1\n3 4 3\n", 1, &c);
    struct sim m;
    sim_init(&m, &c, 1 + _i % 2, 0, (enum lda_sampler)(_i / 2), 0.5, 0.1, 8);
    for (int sw = 0; sw < 3; sw++) {
        sim_sweep(&m);
        ck_assert_int_eq(m.changed, 0);
        ck_assert_msg(fabs(sim_loglik(&m) - loglik_ref(&m)) < 1e-12, "loglik");
    }
    for (int p = 0; p < m.P; p++)
        for (int64_t t = 0; t < m.sh[p].ntokens; t++)
            ck_assert_int_eq(m.sh[p].z[t], 0);
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* Counts past the log-likelihood's table of small counts (a word 300 and
 * 400 times in a document, two topics): the parts still sum to the joint
 * recomputed from z, sweep after sweep, on 1 and 2 workers. */
START_TEST(test_loglik_large_counts)
{
    struct corpus c;
    corpus_text("2\n3\n4\n1 1 300\n1 2 5\n2 3 400\n2 1 30\n", 2, &c);
    struct sim m;
    sim_init(&m, &c, 1 + _i, 0, LDA_SAMPLER_DENSE, 0.1, 0.01, 5);
    bool large = false;
    for (int sw = 0; sw < 4; sw++) {
        double got = sim_loglik(&m), want = loglik_ref(&m);
        ck_assert_msg(fabs(got - want) <= 1e-12 * fabs(want), "P %d: %.17g vs %.17g", m.P, got,
                      want);
        for (int64_t w = 0; w < c.W; w++)
            for (int32_t k = 0; k < 2; k++)
                large |= sim_nwk(&m, w, k) >= 256;
        sim_sweep(&m);
    }
    ck_assert_msg(large, "no count reached the table's end");
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* ---- tests: stationary distributions -------------------------------------------------- */

/* Chi-square of counts against probabilities, over bins merged until each
 * expects at least 5; *df its degrees of freedom. */
static double chi_square(const int64_t *count, const double *prob, int n, int64_t total, int *df)
{
    double chi = 0, e = 0, o = 0;
    int bins = 0;
    for (int i = 0; i < n; i++) {
        e += prob[i] * (double)total;
        o += (double)count[i];
        if (e >= 5 || i == n - 1) {
            chi += (o - e) * (o - e) / (e > 0 ? e : 1);
            bins++;
            e = o = 0;
        }
    }
    *df = bins - 1;
    return chi;
}

/* A rough upper quantile of chi-square with df degrees of freedom: the
 * Wilson-Hilferty approximation at z = 4.75 (p about 1e-6). */
static double chi_square_limit(int df)
{
    double k = df, z = 4.75, h = 2 / (9 * k);
    double c = 1 - h + z * sqrt(h);
    return k * c * c * c;
}

/* One token of word 0 (which nothing else has) is resampled alone, again
 * and again: its topic must follow the exact conditional given the other
 * tokens. The alias sampler's draws are taken every 5th call. K = 3, and
 * for the dense sampler's vectors 37 (three, the last part padding) and
 * 70 (four at once and a fifth): loop index sampler + NSAMPLERS x the K. */
static const int32_t single_K[] = {3, 37, 70};

START_TEST(test_single_token)
{
    int kind = _i % NSAMPLERS;
    const int32_t K = single_K[_i / NSAMPLERS];
    const char *docword = "3\n5\n8\n"
                          "1 1 1\n1 2 3\n1 3 1\n"
                          "2 2 1\n2 4 2\n2 5 1\n"
                          "3 3 2\n3 4 1\n";
    struct corpus c;
    corpus_text(docword, K, &c);
    int64_t bounds[3] = {0, 1, 5};
    struct lda_shard s;
    ck_assert_int_eq(lda_shard_init(&s, c.d, 0, 3, K, bounds, 2, kind == LDA_SAMPLER_SPARSE), 0);
    struct lda_wk wk;
    int64_t wt[5] = {1, 4, 3, 3, 1};
    ck_assert_int_eq(lda_wk_init(&wk, 5, K, wt, LDA_WK_DENSE), 0);
    int32_t *nwk = wk.dense;
    int64_t *nk = calloc((size_t)K, sizeof(*nk)), *delta = calloc((size_t)K, sizeof(*delta));
    struct ptm_rng g;
    ptm_rng_seed(&g, 77 + (uint64_t)kind);
    lda_init_block(&s, 0, &wk, nk, delta, &g);
    lda_init_block(&s, 1, &wk, nk, delta, &g);
    /* Move the others so that the conditional is not flat: everything of
     * document 1 (0-based) to topic 2, word 2 to topic 1, the rest (beyond
     * K = 3) spread over the topics. */
    struct lda_opts o = {0.4, 0.3, (enum lda_sampler)kind, LDA_MH_STEPS, PTM_ISA_BEST};
    int32_t pos0 = s.tok[0].pos, doc0 = s.tok[0].doc;
    ck_assert_int_eq(s.wlist[0], 0);
    ck_assert_int_eq(s.wptr[1] - s.wptr[0], 1);
    for (int64_t i = 1; i < s.bw[2]; i++)
        for (int32_t j = s.wptr[i]; j < s.wptr[i + 1]; j++) {
            int32_t want = s.tok[j].doc == 1 ? 2
                           : s.wlist[i] == 2 ? 1
                           : K == 3          ? s.z[s.tok[j].pos]
                                             : (int32_t)((7 * j + 5) % K);
            int32_t *z = &s.z[s.tok[j].pos];
            shard_move(&s, s.tok[j].doc, *z, want);
            nwk[s.wlist[i] * K + *z]--;
            nk[*z]--;
            *z = want;
            nwk[s.wlist[i] * K + want]++;
            nk[want]++;
        }
    /* The exact conditional, from counts without the token. */
    double *p = malloc((size_t)K * sizeof(*p)), sum = 0;
    int32_t cur = s.z[pos0];
    for (int32_t k = 0; k < K; k++) {
        int e = k == cur;
        p[k] = (shard_ndk(&s, doc0, k) - e + o.alpha) * (nwk[k] - e + o.beta) /
               ((double)nk[k] - e + 5 * o.beta);
        sum += p[k];
    }
    for (int32_t k = 0; k < K; k++)
        p[k] /= sum;
    const int64_t N = 60000;
    int thin = kind == LDA_SAMPLER_ALIAS ? 5 : 1;
    int64_t *count = calloc((size_t)K, sizeof(*count));
    for (int64_t n = 0; n < N; n++) {
        for (int r = 0; r < thin; r++)
            lda_sample(&s, 0, &o, &wk, nk, delta, &g);
        count[s.z[pos0]]++;
    }
    int df;
    double chi = chi_square(count, p, K, N, &df);
    if (tu_verbose())
        printf("single token, %s, K %d: p = %.4f %.4f %.4f, observed %.4f %.4f %.4f, chi2 %.2f "
               "on %d df (limit %.1f)\n",
               sampler_name[kind], K, p[0], p[1], p[2], (double)count[0] / N,
               (double)count[1] / N, (double)count[2] / N, chi, df, chi_square_limit(df));
    ck_assert_msg(chi < chi_square_limit(df), "%s, K %d: chi2 %.2f on %d df", sampler_name[kind], K,
                  chi, df);
    lda_shard_release(&s);
    free(count);
    free(p);
    free(nk);
    free(delta);
    lda_wk_release(&wk);
    corpus_release(&c);
}
END_TEST

/* The whole posterior of a corpus of 7 tokens in 2 topics (128 states),
 * enumerated, against the states visited by each sampler on one worker
 * and on two workers with two vocabulary blocks and exact totals (the
 * loop index: sampler + 3 * (P - 1)). A state is recorded every 4 sweeps. */
START_TEST(test_joint)
{
    int kind = _i % NSAMPLERS, P = _i / NSAMPLERS + 1;
    const char *docword = "3\n3\n5\n"
                          "1 1 2\n1 2 1\n"
                          "2 2 1\n2 3 2\n"
                          "3 1 1\n";
    struct corpus c;
    corpus_text(docword, 2, &c);
    ck_assert_int_eq(c.tokens, 7);
    struct sim m;
    sim_init(&m, &c, P, -1, (enum lda_sampler)kind, 0.5, 0.4, 4);
    enum { NT = 7, NS = 1 << NT };
    /* The exact posterior: the joint of every assignment, normalized. */
    double prob[NS], most = -HUGE_VAL, sum = 0;
    int32_t *zs[NT];
    int t = 0;
    for (int p = 0; p < P; p++)
        for (int32_t pos = 0; pos < m.sh[p].ntokens; pos++)
            zs[t++] = &m.sh[p].z[pos];
    ck_assert_int_eq(t, NT);
    int32_t saved[NT];
    for (int i = 0; i < NT; i++)
        saved[i] = *zs[i];
    for (int st = 0; st < NS; st++) {
        for (int i = 0; i < NT; i++)
            *zs[i] = (st >> i) & 1;
        prob[st] = joint_from_z(&m);
        most = fmax(most, prob[st]);
    }
    for (int st = 0; st < NS; st++)
        sum += prob[st] = exp(prob[st] - most);
    for (int st = 0; st < NS; st++)
        prob[st] /= sum;
    for (int i = 0; i < NT; i++)
        *zs[i] = saved[i];
    free(sim_check(&m));

    const int64_t N = 40000;
    int64_t count[NS] = {0};
    for (int64_t n = 0; n < N; n++) {
        for (int r = 0; r < 4; r++)
            sim_sweep(&m);
        int st = 0;
        for (int i = 0; i < NT; i++)
            st |= *zs[i] << i;
        count[st]++;
    }
    free(sim_check(&m));
    int df;
    double chi = chi_square(count, prob, NS, N, &df);
    if (tu_verbose())
        printf("joint, %s on %d worker(s): chi2 %.1f on %d df (limit %.1f)\n", sampler_name[kind],
               P, chi, df, chi_square_limit(df));
    ck_assert_msg(chi < chi_square_limit(df), "%s, P %d: chi2 %.1f on %d df", sampler_name[kind], P,
                  chi, df);
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* ---- tests: convergence --------------------------------------------------------------- */

#define RISE_SWEEPS 120

/* From a random start the log-likelihood rises, and levels off: every
 * sampler on P = 1, 2, 3 with the totals one round stale, for 60 sweeps
 * (the alias sampler, which gains less a sweep, 120). */
START_TEST(test_rises)
{
    int kind = _i % NSAMPLERS, P = _i / NSAMPLERS + 1;
    int sweeps = kind == LDA_SAMPLER_ALIAS ? 120 : 60;
    struct corpus c;
    corpus_gen("compare", &compare_opts, &c);
    struct sim m;
    sim_init(&m, &c, P, 1, (enum lda_sampler)kind, compare_opts.alpha, compare_opts.beta, 5);
    double ll[RISE_SWEEPS + 1];
    ll[0] = sim_loglik(&m);
    for (int sw = 1; sw <= sweeps; sw++) {
        sim_sweep(&m);
        ll[sw] = sim_loglik(&m);
    }
    double early = 0, late = 0;
    for (int sw = sweeps - 19; sw <= sweeps - 10; sw++)
        early += ll[sw] / 10;
    for (int sw = sweeps - 9; sw <= sweeps; sw++)
        late += ll[sw] / 10;
    if (tu_verbose())
        printf("rises, %s on %d: %.4f -> %.4f (1) -> %.4f (10) -> %.4f (%d-%d) -> %.4f "
               "(%d-%d)\n",
               sampler_name[kind], P, ll[0], ll[1], ll[10], early, sweeps - 19, sweeps - 10, late,
               sweeps - 9, sweeps);
    ck_assert_msg(ll[1] > ll[0] + 0.05, "first sweep: %.4f -> %.4f", ll[0], ll[1]);
    ck_assert_msg(ll[10] > ll[1] + 0.5, "ten sweeps: %.4f -> %.4f", ll[1], ll[10]);
    ck_assert_msg(late > ll[10] + 0.1, "%.4f then %.4f", ll[10], late);
    ck_assert_msg(fabs(late - early) < 0.004 * fabs(late), "not level: %.4f then %.4f", early,
                  late);
    ck_assert_msg(fabs(sim_loglik(&m) - loglik_ref(&m)) < 1e-9, "the parts");
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

/* Greedy matching of learned topics to true ones by total variation
 * distance: returns the mean distance, the largest in *worst, and
 * match[k] the true topic of learned topic k. */
static double match_topics(const struct sim *m, int32_t *match, double *worst)
{
    int32_t K = m->K;
    int64_t W = m->c->W;
    size_t nk = K > 0 ? (size_t)K : 1;
    double *tv = malloc(nk * nk * sizeof(*tv));
    for (int32_t k = 0; k < K; k++)
        for (int32_t l = 0; l < K; l++) {
            double s = 0, den = (double)m->G[k] + (double)W * m->o.beta;
            for (int64_t w = 0; w < W; w++)
                s += fabs((sim_nwk(m, w, k) + m->o.beta) / den - m->c->phi[l * W + w]);
            tv[k * K + l] = s / 2;
        }
    bool *used_k = calloc(nk, 1), *used_l = calloc(nk, 1);
    double sum = 0;
    *worst = 0;
    for (int32_t n = 0; n < K; n++) {
        int32_t bk = -1, bl = -1;
        for (int32_t k = 0; k < K; k++)
            for (int32_t l = 0; l < K; l++)
                if (!used_k[k] && !used_l[l] && (bk < 0 || tv[k * K + l] < tv[bk * K + bl])) {
                    bk = k;
                    bl = l;
                }
        used_k[bk] = used_l[bl] = true;
        match[bk] = bl;
        sum += tv[bk * K + bl];
        *worst = fmax(*worst, tv[bk * K + bl]);
    }
    free(tv);
    free(used_k);
    free(used_l);
    return sum / K;
}

static const struct {
    enum lda_sampler kind;
    int P, s, sweeps;
} recover_rows[] = {
    {LDA_SAMPLER_SPARSE, 1, 0, 100}, {LDA_SAMPLER_SPARSE, 3, 1, 100},
    {LDA_SAMPLER_ALIAS, 1, 0, 150},  {LDA_SAMPLER_ALIAS, 2, 1, 150},
    {LDA_SAMPLER_PLAIN, 2, 2, 100},  {LDA_SAMPLER_DENSE, 2, 1, 100},
};

/* The planted topics come back: learned topic-word distributions match
 * topics_true.tsv within a small total variation, and their top words are
 * mostly the true topics' top words. */
START_TEST(test_recover)
{
    struct corpus c;
    corpus_gen("recover", &recover_opts, &c);
    struct sim m;
    sim_init(&m, &c, recover_rows[_i].P, recover_rows[_i].s, recover_rows[_i].kind,
             recover_opts.alpha, recover_opts.beta, 6);
    for (int sw = 0; sw < recover_rows[_i].sweeps; sw++)
        sim_sweep(&m);
    free(sim_check(&m));
    int32_t K = m.K, match[16];
    int64_t W = c.W;
    double worst, mean = match_topics(&m, match, &worst);
    /* Top 10 words: learned (lda_top_words) against the true topic's. */
    enum { N = 10 };
    int32_t *top = malloc((size_t)(K * N) * sizeof(*top));
    ck_assert_int_eq(lda_top_words(&m.wk, N, top, m.row), 0);
    int least = N;
    for (int32_t k = 0; k < K; k++) {
        const double *phi = c.phi + match[k] * W;
        /* the true top N: the N largest phi */
        int32_t truth[N];
        for (int i = 0; i < N; i++) {
            int32_t best = -1;
            for (int64_t w = 0; w < W; w++) {
                bool taken = false;
                for (int j = 0; j < i; j++)
                    taken |= truth[j] == w;
                if (!taken && (best < 0 || phi[w] > phi[best]))
                    best = (int32_t)w;
            }
            truth[i] = best;
        }
        int common = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                common += top[k * N + i] == truth[j];
        least = common < least ? common : least;
    }
    if (tu_verbose())
        printf("recover, %s on %d (s %d), %d sweeps: mean TV %.4f, worst %.4f, top-%d words "
               "shared at least %d, loglik %.4f\n",
               sampler_name[recover_rows[_i].kind], m.P, m.s, recover_rows[_i].sweeps, mean, worst,
               N, least, sim_loglik(&m));
    ck_assert_msg(mean < 0.12, "mean TV %.4f", mean);
    ck_assert_msg(worst < 0.25, "worst TV %.4f", worst);
    ck_assert_msg(least >= 6, "top words: only %d of %d shared", least, N);
    free(top);
    sim_release(&m);
    corpus_release(&c);
}
END_TEST

#define CMP_SWEEPS 200

/* The mean log-likelihood per token over the last 20 of sweeps, from the
 * same start. */
static double plateau(const struct corpus *c, enum lda_sampler kind, int sweeps)
{
    struct sim m;
    sim_init(&m, c, 1, -1, kind, compare_opts.alpha, compare_opts.beta, 7);
    double sum = 0;
    for (int sw = 1; sw <= sweeps; sw++) {
        sim_sweep(&m);
        if (sw > sweeps - 20)
            sum += sim_loglik(&m) / 20;
    }
    sim_release(&m);
    return sum;
}

/* The fast samplers reach the log-likelihood of the exact plain sampler
 * after the same sweeps, within 0.5% (the sparse and dense ones are exact:
 * 0.2%). */
START_TEST(test_vs_plain)
{
    struct corpus c;
    corpus_gen("compare", &compare_opts, &c);
    double plain = plateau(&c, LDA_SAMPLER_PLAIN, CMP_SWEEPS);
    double sparse = plateau(&c, LDA_SAMPLER_SPARSE, CMP_SWEEPS);
    double alias = plateau(&c, LDA_SAMPLER_ALIAS, CMP_SWEEPS);
    double dense = plateau(&c, LDA_SAMPLER_DENSE, CMP_SWEEPS);
    if (tu_verbose())
        printf("after %d sweeps (mean of the last 20): plain %.5f, sparse %.5f (%+.3f%%), alias "
               "%.5f (%+.3f%%), dense %.5f (%+.3f%%)\n",
               CMP_SWEEPS, plain, sparse, 100 * (sparse - plain) / fabs(plain), alias,
               100 * (alias - plain) / fabs(plain), dense, 100 * (dense - plain) / fabs(plain));
    ck_assert_msg(fabs(sparse - plain) < 0.002 * fabs(plain), "sparse %.5f, plain %.5f", sparse,
                  plain);
    ck_assert_msg(fabs(dense - plain) < 0.002 * fabs(plain), "dense %.5f, plain %.5f", dense,
                  plain);
    ck_assert_msg(fabs(alias - plain) < 0.005 * fabs(plain), "alias %.5f, plain %.5f", alias,
                  plain);
    corpus_release(&c);
}
END_TEST

/* ---- tests: checkpoints ------------------------------------------------------------------ */

/* The driver's own state (the engine's and the store's part in a run)
 * from a into b, which has as many workers and the same staleness. */
static void sim_copy(struct sim *b, const struct sim *a)
{
    int32_t K = a->K;
    int64_t depth = a->s >= 0 ? a->s + 1 : 1;
    ck_assert_int_eq(a->wk.form, b->wk.form);
    if (a->wk.form == LDA_WK_DENSE) {
        memcpy(b->wk.dense, a->wk.dense, (size_t)(a->c->W * K) * sizeof(*b->wk.dense));
    } else {
        memcpy(b->wk.len, a->wk.len, (size_t)a->c->W * sizeof(*b->wk.len));
        memcpy(b->wk.ent, a->wk.ent, (size_t)a->wk.off[a->c->W] * sizeof(*b->wk.ent));
    }
    memcpy(b->G, a->G, (size_t)K * sizeof(*b->G));
    memcpy(b->G0, a->G0, (size_t)K * sizeof(*b->G0));
    memcpy(b->snap, a->snap, (size_t)(depth * K) * sizeof(*b->snap));
    memcpy(b->own, a->own, (size_t)(a->P * depth * K) * sizeof(*b->own));
    for (int p = 0; p < a->P; p++) {
        memcpy(b->nk[p], a->nk[p], (size_t)K * sizeof(int64_t));
        memcpy(b->delta[p], a->delta[p], (size_t)K * sizeof(int64_t));
        b->rng[p] = a->rng[p];
    }
    b->round = a->round;
}

/* Shards p of a and b alike, bit for bit: topics, counts, the sparse
 * sampler's lists. */
static void shards_same(const struct sim *a, const struct sim *b, int p)
{
    const struct lda_shard *x = &a->sh[p], *y = &b->sh[p];
    ck_assert_int_eq(x->ntokens, y->ntokens);
    EXPECT(memcmp(x->z, y->z, (size_t)x->ntokens * sizeof(*x->z)) == 0);
    /* zw: a loaded shard rebuilds it when the alias sampler next runs */
    EXPECT(!x->zw_fresh || !y->zw_fresh ||
           memcmp(x->zw, y->zw, (size_t)x->ntokens * sizeof(*x->zw)) == 0);
    EXPECT(x->sparse_docs == y->sparse_docs);
    if (!x->sparse_docs)
        EXPECT(memcmp(x->ndk, y->ndk, (size_t)(x->ndocs * x->K) * sizeof(*x->ndk)) == 0);
    for (int64_t d = 0; x->sparse_docs && d < x->ndocs; d++) {
        EXPECT(x->dnzn[d] == y->dnzn[d]);
        for (int32_t i = 0; i < x->dnzn[d]; i++) {
            EXPECT(x->dnz[x->dnzp[d] + i] == y->dnz[y->dnzp[d] + i]);
            EXPECT(x->dnc[x->dnzp[d] + i] == y->dnc[y->dnzp[d] + i]);
        }
    }
}

/* Every shard of a saved after some rounds and loaded into shards set up
 * from another seed (other topics), the driver's state copied: both then
 * go on alike, bit for bit, for two more sweeps. Every sampler, P = 1, 2,
 * 3, the totals one round stale; after a sparse round the saved shards
 * hold current topic lists, whose order the sparse sampler's draws
 * depend on. */
START_TEST(test_ckpt_resume)
{
    int kind = _i % NSAMPLERS, P = _i / NSAMPLERS + 1;
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    struct sim a, b;
    sim_init(&a, &c, P, 1, (enum lda_sampler)kind, 0.1, 0.01, 2);
    sim_init(&b, &c, P, 1, (enum lda_sampler)kind, 0.1, 0.01, 5);
    for (int r = 0; r < 3 * P + 1; r++)
        sim_round(&a);
    bool differ = false;
    for (int p = 0; p < P; p++)
        differ |= memcmp(a.sh[p].z, b.sh[p].z, (size_t)a.sh[p].ntokens * sizeof(int32_t)) != 0;
    ck_assert(differ);

    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt save = {.f = f, .load = false};
    for (int p = 0; p < P; p++)
        lda_shard_state(&a.sh[p], &save);
    ck_assert_msg(save.err == 0, "save: %s", save.msg);
    rewind(f);
    struct ptm_ckpt load = {.f = f, .load = true};
    for (int p = 0; p < P; p++)
        lda_shard_state(&b.sh[p], &load);
    ck_assert_msg(load.err == 0, "load: %s", load.msg);
    ck_assert_int_eq(load.bytes, save.bytes);
    ck_assert_uint_eq(load.crc, save.crc);
    ck_assert_int_eq(fgetc(f), EOF);
    fclose(f);
    sim_copy(&b, &a);
    free(sim_check(&b));
    for (int p = 0; p < P; p++)
        shards_same(&a, &b, p);

    int64_t moved = 0;
    for (int r = 0; r < 2 * P; r++) {
        sim_round(&a);
        sim_round(&b);
        moved += a.changed;
        ck_assert_int_eq(a.changed, b.changed);
    }
    ck_assert_int_gt(moved, 0);
    for (int p = 0; p < P; p++)
        shards_same(&a, &b, p);
    for (int64_t w = 0; w < c.W; w++)
        for (int32_t k = 0; k < a.K; k++)
            EXPECT(sim_nwk(&a, w, k) == sim_nwk(&b, w, k));
    EXPECT(memcmp(a.G, b.G, (size_t)a.K * sizeof(*a.G)) == 0);
    sim_release(&a);
    sim_release(&b);
    corpus_release(&c);
}
END_TEST

/* A shard's checkpoint loaded into a shard of other documents or another
 * number of topics, or cut short, fails with a message. */
START_TEST(test_ckpt_mismatch)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    struct sim a;
    sim_init(&a, &c, 2, 1, LDA_SAMPLER_SPARSE, 0.1, 0.01, 2);
    sim_sweep(&a);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt save = {.f = f, .load = false};
    lda_shard_state(&a.sh[0], &save);
    ck_assert_int_eq(save.err, 0);
    long size = ftell(f);

    static const struct {
        int P;       /* the loading shard is worker 0 of P */
        int32_t K;   /* its topics */
        long cut;    /* bytes of the checkpoint it reads; 0: all */
        const char *msg;
    } rows[] = {
        {3, 4, 0, "the checkpoint's documents of a shard is 60 where this run's is 40"},
        {2, 5, 0, "the checkpoint's number of topics of a shard is 4 where this run's is 5"},
        {2, 4, -1, "the checkpoint ends early"},
    };
    for (size_t i = 0; i < PTM_ARRAY_LEN(rows); i++) {
        struct corpus cc = c;
        cc.K = rows[i].K;
        struct sim b;
        sim_init(&b, &cc, rows[i].P, 1, LDA_SAMPLER_SPARSE, 0.1, 0.01, 3);
        FILE *g = tmpfile();
        ck_assert_ptr_nonnull(g);
        rewind(f);
        char *buf = malloc((size_t)size);
        ck_assert_int_eq(fread(buf, 1, (size_t)size, f), size);
        long n = rows[i].cut < 0 ? size + rows[i].cut : size;
        ck_assert_int_eq(fwrite(buf, 1, (size_t)n, g), n);
        free(buf);
        rewind(g);
        struct ptm_ckpt load = {.f = g, .load = true};
        lda_shard_state(&b.sh[0], &load);
        ck_assert_int_eq(load.err, PTM_EDATA);
        ck_assert_msg(strstr(load.msg, rows[i].msg) != NULL, "row %zu: %s", i, load.msg);
        fclose(g);
        sim_release(&b);
    }
    fclose(f);
    sim_release(&a);
    corpus_release(&c);
}
END_TEST

/* The rule's checkpoint (rule_lda.c) in a run of the engine, whose rounds
 * this driver plays on one thread: round t gives worker g block
 * (g + t) mod G, as rotation does, and pushes the workers in order. */
static const char ckpt_job[] =
    "job lda\n"
    "const topics = 4\n"
    "data D : sparse int matrix from \"small/docword.txt\" format uci vocab "
    "\"small/vocab.txt\" shard rows\n"
    "param nwk : int matrix[cols(D), topics] = 0\n"
    "param nk : int vector[topics] = 0 consistency ssp 1\n"
    "param ndk : int matrix[rows(D), topics] = 0 shard like D\n"
    "blocks words = nwk rows into workers\n"
    "schedule rotation over words\n"
    "update builtin lda_gibbs { alpha = 0.1, beta = 0.01, sampler = %s }\n"
    "objective builtin lda_loglik every 1 sweeps\n"
    "stop when sweeps >= 3\n";

static struct ptm_plan *ckpt_plan(const char *sampler)
{
    char text[2048];
    snprintf(text, sizeof(text), ckpt_job, sampler);
    return tu_compile("lda.ptm", text, ".", false);
}

static struct ptm_run *ckpt_run(const struct ptm_plan *plan, int P, uint64_t seed)
{
    struct ptm_run_opts o = {.workers = P, .has_seed = true, .seed = seed};
    struct ptm_run *run = tu_run_new(plan, &o);
    ck_assert_int_eq(run->P, P);
    ck_assert_int_eq(run->G, P);
    return run;
}

/* Rotation rounds t0 .. t1-1 of run, every worker's push in turn. */
static void ckpt_rounds(struct ptm_run *run, int64_t t0, int64_t t1)
{
    int64_t blocks[MAXP];
    size_t part[MAXP + 1];
    struct rt_round rd = {.n = (size_t)run->G, .blocks = blocks, .part = part};
    for (int64_t t = t0; t < t1; t++) {
        for (int g = 0; g <= run->G; g++)
            part[g] = (size_t)g;
        for (int g = 0; g < run->G; g++)
            blocks[g] = (g + t) % run->G;
        for (int p = 0; p < run->P; p++)
            ck_assert_int_eq(run->rule->push(&run->w[p], &rd), 0);
    }
}

/* The rule's and the objective's state of run, as saved; its length in
 * *len (caller frees). */
static char *ckpt_save(struct ptm_run *run, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt ck = {.f = f, .load = false};
    run->rule->state(run, &ck);
    run->obj->state(run, &ck);
    ck_assert_msg(ck.err == 0, "save: %s", ck.msg);
    fclose(f);
    return buf;
}

/* The objective as the engine evaluates it, after the rule's sync. */
static double ckpt_objective(struct ptm_run *run)
{
    ck_assert_int_eq(run->rule->sync(run), 0);
    double sum = 0;
    for (int p = 0; p < run->P; p++) {
        double part;
        ck_assert_int_eq(run->obj->part(&run->w[p], &part), 0);
        sum += part;
    }
    return run->obj->finish(run, sum);
}

/* Run a saved after some rounds, loaded into run b set up from another
 * seed: both go on alike, bit for bit (the whole state as saved again,
 * the tables after sync, the objective). Every sampler on 1 to 3 workers,
 * the word-topic counts in either form. */
START_TEST(test_ckpt_rule)
{
    /* loop index: sampler, P, then the word-topic counts dense or sparse */
    int kind = _i % NSAMPLERS, P = _i / NSAMPLERS % MAXP + 1;
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    corpus_release(&c);
    char sampler[64];
    snprintf(sampler, sizeof(sampler), "%s, counts = %s", sampler_name[kind],
             _i / (NSAMPLERS * MAXP) ? "sparse" : "dense");
    struct ptm_plan *plan = ckpt_plan(sampler);
    struct ptm_run *a = ckpt_run(plan, P, 21), *b = ckpt_run(plan, P, 22);
    int64_t k = 2 * P + 1;
    ckpt_rounds(a, 0, k);

    size_t na, nb;
    char *sa = ckpt_save(a, &na), *sb = ckpt_save(b, &nb);
    ck_assert(na != nb || memcmp(sa, sb, na) != 0);
    free(sb);
    FILE *f = fmemopen(sa, na, "r");
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt load = {.f = f, .load = true};
    b->rule->state(b, &load);
    b->obj->state(b, &load);
    ck_assert_msg(load.err == 0, "load: %s", load.msg);
    ck_assert_uint_eq(load.bytes, na);
    fclose(f);
    sb = ckpt_save(b, &nb);
    ck_assert(nb == na && memcmp(sa, sb, na) == 0);
    free(sa);
    free(sb);

    ckpt_rounds(a, k, k + 2 * P);
    ckpt_rounds(b, k, k + 2 * P);
    sa = ckpt_save(a, &na);
    sb = ckpt_save(b, &nb);
    ck_assert(nb == na && memcmp(sa, sb, na) == 0);
    free(sa);
    free(sb);
    double la = ckpt_objective(a), lb = ckpt_objective(b);
    ck_assert_msg(la == lb && isfinite(la), "objective %.17g, resumed %.17g", la, lb);
    for (int32_t i = 0; i < (int32_t)plan->nparams; i++) {
        double none;
        int64_t len = ptm_run_param(a, i, &none, 0);
        double *va = calloc((size_t)len, sizeof(double)), *vb = calloc((size_t)len, sizeof(double));
        ck_assert_int_eq(ptm_run_param(a, i, va, len), len);
        ck_assert_int_eq(ptm_run_param(b, i, vb, len), len);
        ck_assert_msg(memcmp(va, vb, (size_t)len * sizeof(double)) == 0, "parameter %s differs",
                      plan->params[i].name);
        free(va);
        free(vb);
    }
    ptm_run_free(a);
    ptm_run_free(b);
    plan_free(plan);
}
END_TEST

/* A checkpoint of the rule on 2 workers loaded into a run on 3 fails
 * with a message. */
START_TEST(test_ckpt_rule_workers)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    corpus_release(&c);
    struct ptm_plan *plan = ckpt_plan("sparse");
    struct ptm_run *a = ckpt_run(plan, 2, 21), *b = ckpt_run(plan, 3, 21);
    ckpt_rounds(a, 0, 3);
    size_t na;
    char *sa = ckpt_save(a, &na);
    FILE *f = fmemopen(sa, na, "r");
    ck_assert_ptr_nonnull(f);
    struct ptm_ckpt load = {.f = f, .load = true};
    b->rule->state(b, &load);
    ck_assert_int_eq(load.err, PTM_EDATA);
    ck_assert_msg(strstr(load.msg, "number of blocks of words is 2 where this run's is 3"),
                  "%s", load.msg);
    fclose(f);
    free(sa);
    ptm_run_free(a);
    ptm_run_free(b);
    plan_free(plan);
}
END_TEST

/* ---- tests: outputs -------------------------------------------------------------------- */

/* Whole contents of path (caller frees), its length in *n. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (*n + 1 >= cap)
            buf = realloc(buf, cap = cap * 2 + 4096);
        buf[(*n)++] = (char)c;
    }
    fclose(f);
    return buf;
}

/* When only the outputs read nwk and ndk (as ptm run tells the engine),
 * their files are written row by row from the integer counts, with the
 * tables of doubles never filled; they are the same bytes as when the
 * tables are filled. Loop index: the sparse sampler with sparse counts,
 * the dense one with dense counts. */
START_TEST(test_outputs_streamed)
{
    struct corpus c;
    corpus_gen("small", &small_opts, &c);
    corpus_release(&c);
    const char *smp = _i ? "dense, counts = dense" : "sparse, counts = sparse";
    char *file[2];
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof(text),
                 "job lda\n"
                 "const topics = 9\n"
                 "data D : sparse int matrix from \"small/docword.txt\" format uci shard rows\n"
                 "param nwk : int matrix[cols(D), topics] = 0\n"
                 "param nk : int vector[topics] = 0 consistency ssp 1\n"
                 "param ndk : int matrix[rows(D), topics] = 0 shard like D\n"
                 "blocks words = nwk rows into workers\n"
                 "schedule rotation over words\n"
                 "update builtin lda_gibbs { sampler = %s }\n"
                 "objective builtin lda_loglik every 2 sweeps\n"
                 "stop when sweeps >= 4\n"
                 "output nwk to \"out%d_nwk.tsv\"\n"
                 "output ndk to \"out%d_ndk.tsv\"\n",
                 smp, k, k);
        struct ptm_plan *plan = tu_compile("lda.ptm", text, ".", false);
        /* one worker: the same draws both times */
        struct ptm_run_opts o = {.workers = 1, .has_seed = true, .seed = 7, .outputs_only = k == 1};
        struct ptm_run *run = tu_run_new(plan, &o);
        char msg[512];
        ck_assert_msg(ptm_run_exec(run, msg, sizeof(msg)) == 0, "%s", msg);
        ck_assert_msg(ptm_run_write_outputs(run, msg, sizeof(msg)) == 0, "%s", msg);
        if (k == 1) { /* the tables stayed as set-up made them */
            double *v = calloc((size_t)(60 * 9), sizeof(double));
            ck_assert_ptr_nonnull(run->params[0].val);
            for (int64_t i = 0; i < 60 * 9; i++)
                EXPECT(run->params[0].val[i] == 0);
            /* and ptm_run_param() reads the counts */
            ck_assert_int_eq(ptm_run_param(run, 0, v, 60 * 9), 60 * 9);
            double sum = 0;
            for (int64_t i = 0; i < 60 * 9; i++)
                sum += v[i];
            ck_assert(sum > 0);
            free(v);
        }
        char path[64];
        snprintf(path, sizeof(path), "out%d_nwk.tsv", k);
        file[k] = slurp(path, &len[k]);
        snprintf(path, sizeof(path), "out%d_ndk.tsv", k);
        size_t n;
        char *ndk = slurp(path, &n);
        file[k] = realloc(file[k], len[k] + n);
        memcpy(file[k] + len[k], ndk, n);
        len[k] += n;
        free(ndk);
        ptm_run_free(run);
        plan_free(plan);
    }
    ck_assert_uint_eq(len[0], len[1]);
    ck_assert(memcmp(file[0], file[1], len[0]) == 0);
    free(file[0]);
    free(file[1]);
}
END_TEST

/* ---- tests: top words ------------------------------------------------------------------ */

START_TEST(test_top_words)
{
    /* 5 words x 2 topics */
    const int32_t nwk[] = {
        3, 0, /* word 0 */
        1, 2, /* word 1 */
        3, 2, /* word 2 */
        0, 2, /* word 3 */
        7, 0, /* word 4 */
    };
    /* in either form (loop index), filled by rows as a sampler leaves them */
    struct lda_wk wk;
    int64_t wt[5] = {3, 3, 5, 2, 7};
    ck_assert_int_eq(lda_wk_init(&wk, 5, 2, wt, _i ? LDA_WK_SPARSE : LDA_WK_DENSE), 0);
    int32_t row[2] = {0, 0};
    for (int64_t w = 0; w < 5; w++) {
        int32_t *r = (int32_t *)lda_wk_read(&wk, w, row);
        r[0] = nwk[2 * w];
        r[1] = nwk[2 * w + 1];
        if (wk.form == LDA_WK_SPARSE) { /* packed as lda_sample packs */
            wk.len[w] = 0;
            for (int32_t k = 0; k < 2; k++)
                if (r[k] > 0)
                    wk.ent[wk.off[w] + wk.len[w]++] = (struct lda_wk_ent){k, r[k]};
            row[0] = row[1] = 0;
        }
    }
    for (int64_t w = 0; w < 5; w++)
        for (int32_t k = 0; k < 2; k++)
            ck_assert_int_eq(lda_wk_get(&wk, w, k), nwk[2 * w + k]);
    int32_t top[2 * 6];
    ck_assert_int_eq(lda_top_words(&wk, 3, top, row), 0);
    const int32_t want3[] = {4, 0, 2, /* topic 1 */ 1, 2, 3};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(top[i], want3[i]);
    ck_assert_int_eq(lda_top_words(&wk, 6, top, row), 0);
    const int32_t want6[] = {4, 0, 2, 1, 3, -1, /* topic 1 */ 1, 2, 3, 0, 4, -1};
    for (int i = 0; i < 12; i++)
        ck_assert_int_eq(top[i], want6[i]);
    ck_assert_int_eq(lda_top_words(&wk, 1, top, row), 0);
    ck_assert_int_eq(top[0], 4);
    ck_assert_int_eq(top[1], 1);
    ck_assert(row[0] == 0 && row[1] == 0);
    lda_wk_release(&wk);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

static Suite *lda_suite(void)
{
    Suite *s = suite_create("lda");
    TCase *tc;

    tc = tcase_create("setup");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sampler_lookup);
    tcase_add_loop_test(tc, test_layout, 0, MAXP);
    tcase_add_loop_test(tc, test_init_rows, 0, (int)PTM_ARRAY_LEN(init_rows));
    tcase_add_test(tc, test_init_values);
    tcase_add_test(tc, test_fault);
    tcase_add_loop_test(tc, test_wk_fault, 0, 2);
    tcase_add_loop_test(tc, test_top_words, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("sample");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_invariants, 0, 2 * NSAMPLERS * MAXP);
    tcase_add_loop_test(tc, test_wk_forms, 0, NSAMPLERS);
    tcase_add_loop_test(tc, test_wk_sum, 0, 2);
    tcase_add_loop_test(tc, test_loglik_parts, 0, MAXP);
    tcase_add_loop_test(tc, test_dense_isa, 0, (int)PTM_ARRAY_LEN(isa_opts));
    tcase_add_loop_test(tc, test_one_topic, 0, 2 * NSAMPLERS);
    tcase_add_loop_test(tc, test_loglik_large_counts, 0, 2);
    tcase_add_loop_test(tc, test_single_token, 0, NSAMPLERS * (int)PTM_ARRAY_LEN(single_K));
    tcase_add_loop_test(tc, test_joint, 0, NSAMPLERS * 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("converge");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_rises, 0, NSAMPLERS * MAXP);
    tcase_add_loop_test(tc, test_recover, 0, (int)PTM_ARRAY_LEN(recover_rows));
    tcase_add_test(tc, test_vs_plain);
    suite_add_tcase(s, tc);

    tc = tcase_create("checkpoint");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_ckpt_resume, 0, NSAMPLERS * MAXP);
    tcase_add_test(tc, test_ckpt_mismatch);
    tcase_add_loop_test(tc, test_ckpt_rule, 0, 2 * NSAMPLERS * MAXP);
    tcase_add_test(tc, test_ckpt_rule_workers);
    tcase_add_loop_test(tc, test_outputs_streamed, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-lda.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_lda: temporary directory");
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(lda_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
