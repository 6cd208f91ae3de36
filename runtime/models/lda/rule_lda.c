/*
 * rule_lda.c - LDA by collapsed Gibbs sampling on a rotation schedule
 * (update builtin lda_gibbs) and the lda_loglik objective, behind the
 * engine's interfaces, over the kernel of kernel_lda.h.
 *
 * Worker p keeps its documents (the rows of D it holds), their topics and
 * document-topic counts; the word-topic counts n_wk are cut into P blocks
 * of words by the scheduled block set (`nwk rows into workers`), and in
 * round t worker p holds block (p + t) mod P alone. The topic totals n_k
 * are a table of the parameter store with nk's consistency: after its
 * round a worker adds its changes to them, ends its clock and reads them
 * back, at most s clocks stale. The kernel counts in integers, in arrays of
 * this rule's; `sync` copies them into the parameter tables nwk, ndk and
 * nk before the objective and the outputs read those, nwk and ndk only
 * when something reads them (table_read). Once the shards hold the
 * documents, the data's entries are freed (rt_data_drop_entries).
 *
 * Across ranks, worker p of rank r is worker r * P + p of the rotation;
 * the blocks of n_wk go from rank to rank with the rotation, each rank has
 * its store for n_k, and after every round the ranks sum what their
 * stores added since the last round.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "builtins.h"
#include "ckpt.h"
#include "comm.h"
#include "engine_impl.h"
#include "gen_lda.h"
#include "kernel_lda.h"
#include "model.h"
#include "predict_lda.h"
#include "pstore.h"
#include "ptm.h"
#include "wfile.h"

struct lda_state {
    int32_t d, nwk_p, nk_p;
    int32_t ndk_p; /* the document-topic counts' parameter, or -1 */
    int32_t K;
    int64_t W, ntokens;
    struct lda_opts o;
    int64_t *bounds; /* G + 1: the blocks of words */
    struct lda_wk wk; /* n_wk */
    int32_t *row;     /* K: a word's row of a sparse n_wk, zero between uses */
    int32_t *chunk;   /* across ranks: lda_wk_sum()'s scratch */
    struct pstore *ps;
    int64_t gtokens; /* all ranks' tokens */
    double *base;    /* across ranks: n_k after the last exchange */
    double *delta;   /* and room for the change since */
};

static const struct rt_objective objective_ops;

struct lda_worker {
    struct lda_shard s;
    bool has_shard;
    int64_t *nk, *nk_delta; /* K each */
    struct ptm_rng rng;
};

/* D, nwk and nk of hook h, checked. */
static int refs(const struct ptm_run *run, const struct plan_hook *h, const char *who,
                int32_t *d, int32_t *nwk, int32_t *nk, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *od = rt_option(h, "D"), *ow = rt_option(h, "nwk"),
                             *ok = rt_option(h, "nk");
    if (!od || od->kind != PLAN_VALUE_DATA || !ow || ow->kind != PLAN_VALUE_PARAM || !ok ||
        ok->kind != PLAN_VALUE_PARAM || od->ref < 0 || (uint32_t)od->ref >= plan->ndata ||
        ow->ref < 0 || (uint32_t)ow->ref >= plan->nparams || ok->ref < 0 ||
        (uint32_t)ok->ref >= plan->nparams) {
        snprintf(err, errlen, "%s: options D, nwk and nk are missing or of the wrong kind", who);
        return PTM_EINVAL;
    }
    *d = od->ref;
    *nwk = ow->ref;
    *nk = ok->ref;
    const struct ptm_dataset *D = run->data[*d];
    const struct rt_param *a = &run->params[*nwk], *b = &run->params[*nk];
    if (!D || !D->sparse || *d != run->rowdata) {
        snprintf(err, errlen, "%s: D ('%s') must be a sparse matrix of counts sharded by rows", who,
                 plan->data[*d].name);
        return PTM_EINVAL;
    }
    if (!a->val || a->rows != D->csr.ncols || a->cols < 1 || a->cols > INT32_MAX || !b->val ||
        b->len != a->cols) {
        snprintf(err, errlen,
                 "%s: nwk ('%s') must be a matrix[cols(D), topics] and nk ('%s') a "
                 "vector[topics], both with one copy",
                 who, a->pp->name, b->pp->name);
        return PTM_EINVAL;
    }
    return 0;
}

/* The form of n_wk the update's option `counts` asks for: LDA_WK_DENSE,
 * LDA_WK_SPARSE, or -1 (auto: lda_wk_choose() decides). */
static int counts_form(const struct plan_hook *u)
{
    const struct plan_option *o = rt_option(u, "counts");
    if (!o || o->kind != PLAN_VALUE_STR || strcmp(o->str, "auto") == 0)
        return -1;
    return strcmp(o->str, "sparse") == 0 ? LDA_WK_SPARSE : LDA_WK_DENSE;
}

/* The sampler the update's option `sampler` names, or for `auto` (or no
 * option: *chosen then true) the one lda_sampler_auto() takes for K
 * topics and documents of len tokens on average. */
static enum lda_sampler sampler_of(const struct plan_hook *u, int32_t K, double len, bool *chosen)
{
    const struct plan_option *o = rt_option(u, "sampler");
    int smp = o && o->kind == PLAN_VALUE_STR ? lda_sampler_lookup(o->str) : -1;
    *chosen = smp < 0;
    return smp >= 0 ? (enum lda_sampler)smp : lda_sampler_auto(K, len);
}

static int lda_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *u = &run->plan->update;
    struct lda_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    s->ndk_p = -1;
    run->rule_state = s;
    int rc = refs(run, u, "update lda_gibbs", &s->d, &s->nwk_p, &s->nk_p, err, errlen);
    if (rc != 0)
        return rc;
    if (run->sparam != s->nwk_p || run->bs->axis != PLAN_AXIS_ROWS || run->nblocks != run->G) {
        snprintf(err, errlen, "update lda_gibbs: the rotation must be over nwk's rows into workers "
                 "('blocks words = nwk rows into workers')");
        return PTM_EINVAL;
    }
    const struct ptm_dataset *D = run->data[s->d];
    const struct rt_param *nk = &run->params[s->nk_p];
    s->K = (int32_t)nk->len;
    s->W = D->csr.ncols;
    s->o.alpha = rt_option_num(u, "alpha", 0.1);
    s->o.beta = rt_option_num(u, "beta", 0.01);
    s->o.mh_steps = LDA_MH_STEPS;
    s->o.isa = PTM_ISA_BEST; /* dense: the best code this processor has */
    int form = counts_form(u);
    s->bounds = rt_zalloc((size_t)run->G + 1, sizeof(int64_t));
    s->row = rt_zalloc((size_t)s->K, sizeof(int32_t));
    s->base = rt_zalloc((size_t)s->K, sizeof(double));
    s->delta = rt_zalloc((size_t)s->K, sizeof(double));
    if (!s->bounds || !s->row || !s->base || !s->delta)
        return PTM_ENOMEM;
    if (run->nranks > 1) {
        size_t n = LDA_WK_CHUNK > (size_t)s->K ? LDA_WK_CHUNK : (size_t)s->K;
        if (!(s->chunk = rt_zalloc(n, sizeof(int32_t))))
            return PTM_ENOMEM;
    }
    double len = 0; /* the documents' mean tokens */
    { /* each word's tokens over all ranks: the room of its counts, and
       * blocks of about as many tokens */
        int64_t *cnt = rt_zalloc((size_t)s->W + 1, sizeof(int64_t));
        if (!cnt)
            return PTM_ENOMEM;
        const struct ptm_csr *c = &D->csr;
        for (int64_t e = 0; e < c->rowptr[c->nrows]; e++)
            cnt[c->colind[e] + 1] += (int64_t)c->val[e];
        if (run->nranks > 1)
            ptm_comm_sum_all_i64v(cnt + 1, (size_t)s->W);
        rc = lda_wk_init(&s->wk, s->W, s->K, cnt + 1, form);
        for (int64_t w = 0; w < s->W; w++)
            cnt[w + 1] += cnt[w];
        /* auto: dense, unless K is large against the documents' length,
         * where a row of K counts a token costs more than the sparse
         * sampler's lists (measured, 1 worker, to the same sweeps: on
         * 35-token documents dense was faster at K = 400 and sparse at
         * 700; on 150-token documents dense at 700 and sparse at 1000) */
        len = run->grows > 0 ? (double)cnt[s->W] / (double)run->grows : 0;
        bool chosen;
        s->o.sampler = sampler_of(u, s->K, len, &chosen);
        if (chosen && s->o.sampler == LDA_SAMPLER_SPARSE && run->rank == 0 && run->opts.log)
            fprintf(run->opts.log,
                    "note: lda_gibbs samples with sampler = sparse (the default, auto: %d topics "
                    "against documents of %.0f tokens on average, where it is faster than dense "
                    "and keeps each document's topics in use rather than %d counts)\n",
                    (int)s->K, len, (int)s->K);
        ptm_cut_blocks(cnt, s->W, run->G, s->bounds);
        ptm_free(cnt);
        if (rc != 0)
            return rc;
    }
    const struct plan_option *od = rt_option(u, "ndk");
    if (od && od->kind == PLAN_VALUE_PARAM && od->ref >= 0 &&
        (uint32_t)od->ref < run->plan->nparams) {
        s->ndk_p = od->ref;
        const struct rt_param *t = &run->params[s->ndk_p];
        if (t->shard_like != s->d || t->rows != run->grows || t->cols != s->K) {
            snprintf(err, errlen,
                     "update lda_gibbs: ndk ('%s') must be a matrix[rows(%s), %d] sharded like %s "
                     "(the document-topic counts)",
                     t->pp->name, run->plan->data[s->d].name, (int)s->K,
                     run->plan->data[s->d].name);
            return PTM_EINVAL;
        }
    }
    /* the totals, exact at the start: every (shard, block) initialized on
     * this thread into one array */
    int64_t *nk0 = rt_zalloc((size_t)s->K, sizeof(int64_t));
    int64_t *scratch = rt_zalloc((size_t)s->K, sizeof(int64_t));
    if (!nk0 || !scratch) {
        ptm_free(nk0);
        ptm_free(scratch);
        return PTM_ENOMEM;
    }
    /* n_dk counts in 16 bits: a longer document is named, as a user
     * would split it */
    for (int64_t i = 0; i < D->csr.nrows && rc == 0; i++) {
        double t = 0;
        for (int64_t e = D->csr.rowptr[i]; e < D->csr.rowptr[i + 1]; e++)
            t += D->csr.val[e];
        if (t > LDA_DOC_MAX) {
            snprintf(err, errlen,
                     "update lda_gibbs: document %lld of '%s' has %.0f tokens, more than the %d "
                     "a document may hold: split it into documents of at most %d tokens",
                     (long long)(run->row0 + i + 1), run->plan->data[s->d].name, t, LDA_DOC_MAX,
                     LDA_DOC_MAX);
            rc = PTM_EINVAL;
        }
    }
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *w = &run->w[p];
        struct lda_worker *k = rt_zalloc(1, sizeof(*k));
        if (!k) {
            rc = PTM_ENOMEM;
            break;
        }
        w->kernel = k;
        k->nk = rt_zalloc((size_t)s->K, sizeof(int64_t));
        k->nk_delta = rt_zalloc((size_t)s->K, sizeof(int64_t));
        if (!k->nk || !k->nk_delta) {
            rc = PTM_ENOMEM;
            break;
        }
        rc = lda_shard_init(&k->s, &D->csr, w->lo, w->hi, s->K, s->bounds, run->G,
                            lda_docs_sparse(s->o.sampler, s->K, len));
        if (rc != 0) {
            snprintf(err, errlen, "update lda_gibbs: the documents of worker %d: %s", p + 1,
                     rc == PTM_ETOOBIG ? "too many tokens (at most 2147483647 a worker and "
                                         "65535 a document)"
                                       : ptm_strerror(rc));
            /* said here: the command reports PTM_ETOOBIG as bad data
             * without the message */
            rc = rc == PTM_ETOOBIG ? PTM_EINVAL : rc;
            break;
        }
        k->has_shard = true;
        s->ntokens += k->s.ntokens;
        ptm_rng_seed(&k->rng, run->seed ^ (0x6c64610000000000ull + (uint64_t)w->gid)); /* "lda" */
    }
    /* The shards have the documents: their entries can go before the
     * counts are first written (until then n_dk and n_wk take no pages),
     * so that the two never take memory together; unless an objective of
     * the job's own may read them. */
    if (rc == 0 && (!run->obj || run->obj == &objective_ops))
        rt_data_drop_entries(run, s->d);
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct lda_worker *k = run->w[p].kernel;
        for (int b = 0; b < run->G; b++)
            lda_init_block(&k->s, b, &s->wk, nk0, scratch, &k->rng);
    }
    ptm_free(scratch);
    if (rc == 0) {
        /* every rank's documents count in n_wk and n_k */
        if (run->nranks > 1)
            lda_wk_sum(&s->wk, ptm_comm_sum_all_i32v, s->chunk);
        ptm_comm_sum_all_i64v(nk0, (size_t)s->K);
    }
    s->gtokens = ptm_comm_sum_i64(s->ntokens);
    if (rc == 0) {
        struct pstore_table_spec spec = {
            .nrows = 1,
            .ncols = s->K,
            .async = nk->pp->cons == PLAN_CONS_ASYNC,
            .staleness = nk->pp->staleness,
        };
        int id;
        double *row = rt_zalloc((size_t)s->K, sizeof(double));
        if (!row)
            rc = PTM_ENOMEM;
        for (int32_t t = 0; rc == 0 && t < s->K; t++)
            s->base[t] = row[t] = (double)nk0[t];
        if (rc == 0 && ((rc = pstore_new(&s->ps, run->P)) != 0 ||
                        (rc = pstore_add_table(s->ps, &spec, &id)) != 0 ||
                        (rc = pstore_write_row(s->ps, id, 0, row)) != 0))
            rc = rc ? rc : PTM_ENOMEM;
        ptm_free(row);
        for (int p = 0; rc == 0 && p < run->P; p++) {
            struct lda_worker *k = run->w[p].kernel;
            memcpy(k->nk, nk0, (size_t)s->K * sizeof(int64_t));
        }
    }
    ptm_free(nk0);
    return rc;
}

static void lda_release(struct ptm_run *run)
{
    for (int p = 0; p < run->P; p++) {
        struct lda_worker *k = run->w[p].kernel;
        if (!k)
            continue;
        if (k->has_shard)
            lda_shard_release(&k->s);
        ptm_free(k->nk);
        ptm_free(k->nk_delta);
        ptm_free(k);
        run->w[p].kernel = NULL;
    }
    struct lda_state *s = run->rule_state;
    if (s) {
        pstore_free(s->ps);
        ptm_free(s->bounds);
        lda_wk_release(&s->wk);
        ptm_free(s->row);
        ptm_free(s->chunk);
        ptm_free(s->base);
        ptm_free(s->delta);
        ptm_free(s);
        run->rule_state = NULL;
    }
}

static size_t lda_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    (void)nvars;
    return 0;
}

/* The worker's round: sample its tokens of the block it holds, then share
 * the totals' changes through the store. */
static int lda_push(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    struct lda_state *s = run->rule_state;
    struct lda_worker *k = w->kernel;
    if (rd->part[w->gid + 1] == rd->part[w->gid])
        return 0;
    int b = (int)rd->blocks[rd->part[w->gid]];
    lda_sample(&k->s, b, &s->o, &s->wk, k->nk, k->nk_delta, &k->rng);
    struct pstore_worker *pw = pstore_worker(s->ps, w->id);
    int rc = 0;
    for (int32_t t = 0; t < s->K && rc == 0; t++)
        if (k->nk_delta[t]) {
            rc = pstore_inc(pw, 0, 0, t, (double)k->nk_delta[t]);
            k->nk_delta[t] = 0;
        }
    rt_end_clock(w);
    while (rc == 0 && (rc = pstore_clock(pw)) == PTM_ENOMEM)
        ; /* nothing was lost: try again */
    const double *v;
    if (rc == 0)
        rc = pstore_row_dense(pw, 0, 0, &v);
    if (rc != 0) {
        rt_fail(w, rc, "the parameter store failed: %s", ptm_strerror(rc));
        pstore_abort(s->ps, rc);
        return rc;
    }
    for (int32_t t = 0; t < s->K; t++)
        k->nk[t] = (int64_t)llround(v[t]);
    return 0;
}

/* Across ranks, after a round: the ranks' changes to n_k since the last
 * round, summed, on every rank's store. */
static int lda_exchange(struct ptm_run *run)
{
    struct lda_state *s = run->rule_state;
    int rc = pstore_read(s->ps, 0, s->delta);
    if (rc != 0)
        return rc;
    for (int32_t t = 0; t < s->K; t++)
        s->delta[t] -= s->base[t];
    ptm_comm_sum_all(s->delta, (size_t)s->K);
    for (int32_t t = 0; t < s->K; t++)
        s->base[t] += s->delta[t];
    return pstore_write_row(s->ps, 0, 0, s->base);
}

/* Whether anything reads parameter table p now: metrics or an objective
 * other than lda_loglik (which reads the kernel's counts) during the run;
 * after it (the last sync) an output of p, or anyone when the run was
 * not told that only the outputs read the tables. Otherwise nwk and ndk
 * are left as they are, and untouched they take no memory (rt_zalloc's
 * calloc): as doubles nwk is twice the kernel's int32 n_wk, ndk 8 D K
 * bytes. */
/* After the run, on one rank, when only the outputs read the tables: an
 * output of nwk or ndk writes their rows from the integer counts
 * (lda_rows_own), and the tables stay unfilled. */
static bool streamed(const struct ptm_run *run, int32_t p)
{
    const struct lda_state *s = run->rule_state;
    return s && (p == s->nwk_p || (s->ndk_p >= 0 && p == s->ndk_p)) && run->nranks == 1 &&
           run->sync_final && run->opts.outputs_only && run->plan->nmetrics == 0 &&
           (!run->obj || run->obj == &objective_ops);
}

static bool table_read(const struct ptm_run *run, int32_t p)
{
    if (run->plan->nmetrics > 0 || (run->obj && run->obj != &objective_ops))
        return true;
    if (!run->sync_final)
        return false;
    if (!run->opts.outputs_only)
        return true;
    if (streamed(run, p))
        return false;
    for (uint32_t k = 0; k < run->plan->noutputs; k++)
        if (run->plan->outputs[k].param == p)
            return true;
    return false;
}

/* The parameter tables from the kernel's counts; across ranks, n_wk made
 * whole from the blocks each rank holds. */
/* Word w's counts (nwk's row w) as K doubles. */
static void word_row(const struct lda_state *s, int64_t w, double *out)
{
    const int32_t *row = lda_wk_read(&s->wk, w, s->row);
    for (int32_t t = 0; t < s->K; t++)
        out[t] = row[t];
    lda_wk_done(&s->wk, w, s->row);
}

/* Shard sh's document d's counts (its row of ndk) as K doubles. */
static void doc_row(const struct lda_shard *sh, int64_t d, double *out)
{
    const int32_t K = sh->K;
    if (!sh->sparse_docs) {
        for (int32_t t = 0; t < K; t++)
            out[t] = sh->ndk[d * K + t];
        return;
    }
    memset(out, 0, (size_t)K * sizeof(*out));
    for (int32_t m = sh->dnzp[d]; m < sh->dnzp[d] + sh->dnzn[d]; m++)
        out[sh->dnz[m]] = sh->dnc[m];
}

static int lda_sync(struct ptm_run *run)
{
    struct lda_state *s = run->rule_state;
    double *nwk = run->params[s->nwk_p].val, *nk = run->params[s->nk_p].val;
    const int32_t K = s->K;
    if (run->holder) {
        for (int64_t b = 0; b < run->nblocks; b++) {
            int h = run->holder[b];
            if (h != run->rank && (h >= 0 || run->rank != 0))
                lda_wk_clear(&s->wk, s->bounds[b], s->bounds[b + 1]);
        }
        lda_wk_sum(&s->wk, ptm_comm_sum_all_i32v, s->chunk);
    }
    for (int64_t w = 0, n = table_read(run, s->nwk_p) ? s->W : 0; w < n; w++)
        word_row(s, w, nwk + w * K);
    /* each worker's documents into its rows of ndk */
    bool ndk = s->ndk_p >= 0 && table_read(run, s->ndk_p);
    for (int p = 0; ndk && p < run->P; p++) {
        const struct lda_shard *sh = &((const struct lda_worker *)run->w[p].kernel)->s;
        double *dst = run->w[p].local[s->ndk_p];
        for (int64_t d = 0; d < sh->ndocs; d++)
            doc_row(sh, d, dst + d * K);
    }
    int rc = pstore_read(s->ps, 0, nk);
    return rc;
}

static bool lda_rows_own(const struct ptm_run *run, int32_t p)
{
    return streamed(run, p);
}

/* Row i of nwk (word i's counts) or of ndk (document i's), as doubles. */
static void lda_row(const struct ptm_run *run, int32_t p, int64_t i, double *out)
{
    const struct lda_state *s = run->rule_state;
    if (p == s->nwk_p) {
        word_row(s, i, out);
        return;
    }
    for (int w = 0; w < run->P; w++)
        if (i >= run->w[w].lo && i < run->w[w].hi)
            doc_row(&((const struct lda_worker *)run->w[w].kernel)->s, i - run->w[w].lo, out);
}

/* What travels with block b of words to another rank: its counts (when
 * sparse, its words' topics in use with their counts, in the words' room,
 * and how many each word has). */
static int lda_spans(struct ptm_run *run, int64_t b, struct rt_span *out)
{
    const struct lda_state *s = run->rule_state;
    const struct lda_wk *wk = &s->wk;
    int64_t lo = s->bounds[b], hi = s->bounds[b + 1];
    if (wk->form == LDA_WK_DENSE) {
        out[0] = (struct rt_span){wk->dense + lo * s->K,
                                  (size_t)((hi - lo) * s->K) * sizeof(int32_t)};
        return 1;
    }
    out[0] = (struct rt_span){wk->ent + wk->off[lo],
                              (size_t)(wk->off[hi] - wk->off[lo]) * sizeof(*wk->ent)};
    out[1] = (struct rt_span){wk->len + lo, (size_t)(hi - lo) * sizeof(*wk->len)};
    return 2;
}

/* Checkpoints: the word-topic counts (this rule's integers, of which the
 * table nwk is the last filling sync's image, if any), the store of the topic totals,
 * n_k as of the last exchange across ranks, and every worker's shard
 * (topics, n_dk, the sparse sampler's lists), copy of n_k, increments not
 * yet pushed and generator. Across ranks each rank saves its own: its n_wk
 * is current in the blocks it holds (in all of them after a sync), so the
 * loading run must also know which rank holds which block, which the
 * engine keeps (run->holder). s->delta is exchange's scratch. */
static void lda_ckpt(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct lda_state *s = run->rule_state;
    ptm_ck_tag(ck, "rule lda_gibbs");
    ptm_ck_size(ck, s->K, "number of topics");
    ptm_ck_size(ck, s->W, "number of words");
    ptm_ck_size(ck, run->G, "number of blocks of words");
    ptm_ck_size(ck, run->P, "number of workers");
    /* the shards hold their tokens block by block: a cut of the vocabulary
     * other than this run's would misplace every topic */
    for (int b = 1; b < run->G; b++)
        ptm_ck_size(ck, s->bounds[b], "first word of a block of the vocabulary");
    ptm_ck_size(ck, s->wk.form, "form of the word-topic counts (option counts)");
    if (!ck->err && s->wk.form == LDA_WK_DENSE) {
        PTM_CK_ARRAY(ck, s->wk.dense, s->W * s->K);
    } else if (!ck->err) {
        /* each word's entries alone: its room past them holds nothing */
        PTM_CK_ARRAY(ck, s->wk.len, s->W);
        for (int64_t w = 0; ck->load && !ck->err && w < s->W; w++)
            if (s->wk.len[w] < 0 || s->wk.len[w] > s->wk.off[w + 1] - s->wk.off[w])
                ptm_ck_fail(ck, PTM_EDATA,
                            "the checkpoint's counts of word %lld have %d topics where it has "
                            "room for %lld",
                            (long long)w + 1, (int)s->wk.len[w],
                            (long long)(s->wk.off[w + 1] - s->wk.off[w]));
        for (int64_t w = 0; !ck->err && w < s->W; w++)
            PTM_CK_ARRAY(ck, s->wk.ent + s->wk.off[w], s->wk.len[w]);
    }
    PTM_CK_ARRAY(ck, s->base, s->K);
    pstore_state(s->ps, ck);
    for (int p = 0; p < run->P; p++) {
        struct lda_worker *k = run->w[p].kernel;
        lda_shard_state(&k->s, ck);
        PTM_CK_ARRAY(ck, k->nk, s->K);
        PTM_CK_ARRAY(ck, k->nk_delta, s->K);
        PTM_CK_ARRAY(ck, k->rng.s, PTM_ARRAY_LEN(k->rng.s));
    }
}

static const struct rt_rule rule_ops = {
    .name = "lda_gibbs",
    .kind = RT_ROTATION,
    .unit = "tokens",
    .unit_of = RT_UNIT_VALUES,
    .clocks = true,
    .setup = lda_setup,
    .release = lda_release,
    .zcap = lda_zcap,
    .push = lda_push,
    .sync = lda_sync,
    .spans = lda_spans,
    .exchange = lda_exchange,
    .state = lda_ckpt,
    .rows_own = lda_rows_own,
    .row = lda_row,
};

/* ---- lda_loglik -------------------------------------------------------------- */

/* The collapsed joint log-likelihood per token: the documents' parts on
 * the workers, the words' and topics' terms from the word-topic counts
 * (exact totals recomputed from them, not the store's possibly stale
 * ones). It needs the lda_gibbs update's counts. */
struct loglik_state {
    double alpha, beta;
    int64_t *nk;
};

static int ll_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *o = &run->plan->objective;
    struct loglik_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->obj_state = s;
    if (run->rule != &rule_ops) {
        snprintf(err, errlen, "objective lda_loglik needs the lda_gibbs update");
        return PTM_EINVAL;
    }
    int32_t d, nwk, nk;
    int rc = refs(run, o, "objective lda_loglik", &d, &nwk, &nk, err, errlen);
    if (rc != 0)
        return rc;
    s->alpha = rt_option_num(o, "alpha", 0.1);
    s->beta = rt_option_num(o, "beta", 0.01);
    const struct lda_state *u = run->rule_state;
    s->nk = rt_zalloc((size_t)u->K, sizeof(int64_t));
    return s->nk ? 0 : PTM_ENOMEM;
}

static int ll_part(struct rt_worker *w, double *out)
{
    const struct loglik_state *s = w->run->obj_state;
    const struct lda_worker *k = w->kernel;
    *out = lda_loglik_docs(&k->s, s->alpha);
    return 0;
}

static double ll_finish(const struct ptm_run *run, double sum)
{
    const struct loglik_state *s = run->obj_state;
    const struct lda_state *u = run->rule_state;
    memset(s->nk, 0, (size_t)u->K * sizeof(int64_t));
    lda_topic_totals(&u->wk, s->nk);
    double ll = sum + lda_loglik_words(&u->wk, 0, u->W, s->beta) +
                lda_loglik_topics(s->nk, u->K, u->W, s->beta);
    return u->gtokens ? ll / (double)u->gtokens : 0;
}

static void ll_release(struct ptm_run *run)
{
    struct loglik_state *s = run->obj_state;
    if (s)
        ptm_free(s->nk);
    ptm_free(s);
    run->obj_state = NULL;
}

/* Checkpoints: lda_loglik keeps nothing from one evaluation to the next
 * (its totals are finish's scratch); the tag refuses a checkpoint of
 * another objective. */
static void ll_ckpt(struct ptm_run *run, struct ptm_ckpt *ck)
{
    (void)run;
    ptm_ck_tag(ck, "objective lda_loglik");
}

static const struct rt_objective objective_ops = {
    .better = 1,
    .setup = ll_setup,
    .part = ll_part,
    .finish = ll_finish,
    .release = ll_release,
    .state = ll_ckpt,
};

/* ---- what LDA writes beside its tables ------------------------------------- */

/* Next to the word-topic counts PATH (the output of the scheduled
 * parameter), PATH.top: each topic's 20 words of most tokens, by the
 * vocabulary when the data has one. Rank 0 writes it. */
static int write_top_words(const struct ptm_run *run, const struct plan_output *o, char *err,
                           size_t errlen)
{
    enum { N = 20 };
    const struct lda_state *s = run->rule == &rule_ops ? run->rule_state : NULL;
    if (!s || run->rank != 0 || o->param != run->sparam)
        return 0;
    int32_t K = s->K;
    int32_t *top = rt_zalloc((size_t)K * N, sizeof(int32_t));
    if (!top) {
        snprintf(err, errlen, "cannot write '%s.top': out of memory", o->path);
        return PTM_ENOMEM;
    }
    if (lda_top_words(&s->wk, N, top, s->row) != 0) {
        ptm_free(top);
        snprintf(err, errlen, "cannot write '%s.top': out of memory", o->path);
        return PTM_ENOMEM;
    }
    const struct ptm_dataset *D = run->data[run->rowdata];
    char name[4200];
    snprintf(name, sizeof(name), "%s.top", o->path);
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, name);
    if (rc == 0) {
        for (int32_t k = 0; k < K; k++) {
            fprintf(w.f, "%d", k + 1);
            for (int32_t i = 0; i < N && top[k * N + i] >= 0; i++) {
                int32_t j = top[k * N + i];
                if (D && j < D->vocab.n)
                    fprintf(w.f, "\t%s", D->vocab.word[j]);
                else
                    fprintf(w.f, "\t%d", j + 1);
            }
            fputc('\n', w.f);
        }
        rc = ptm_wfile_commit(&w);
    } else {
        ptm_wfile_abort(&w);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write '%s': %s", name,
                 rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
    ptm_free(top);
    return rc;
}

/* ---- the model ------------------------------------------------------------ */

/* The memory plan's figure for nwk and ndk when a run on one process
 * streams their outputs from the counts (streamed()): what lda_gibbs
 * keeps of them, as it will choose their forms from the data. */
static double table_bytes(const struct ptm_plan *plan, int32_t p, double rows, double cols,
                          struct ptm_dataset *const *data)
{
    const struct plan_hook *u = &plan->update;
    const struct plan_hook *o = &plan->objective;
    if (!u->builtin || strcmp(u->builtin, "lda_gibbs") != 0 || plan->nmetrics > 0 ||
        (o->present && (!o->builtin || strcmp(o->builtin, "lda_loglik") != 0)))
        return -1;
    const struct plan_option *od = rt_option(u, "D"), *ow = rt_option(u, "nwk"),
                             *on = rt_option(u, "ndk");
    bool nwk = ow && ow->kind == PLAN_VALUE_PARAM && ow->ref == p,
         ndk = on && on->kind == PLAN_VALUE_PARAM && on->ref == p;
    if ((!nwk && !ndk) || !od || od->kind != PLAN_VALUE_DATA || od->ref < 0 ||
        (uint32_t)od->ref >= plan->ndata || !data[od->ref] || !data[od->ref]->sparse ||
        !(cols >= 1 && cols <= INT32_MAX))
        return -1;
    const struct ptm_csr *c = &data[od->ref]->csr;
    const int32_t K = (int32_t)cols;
    double tokens = 0;
    for (int64_t e = 0; e < c->rowptr[c->nrows]; e++)
        tokens += c->val[e];
    if (nwk) {
        int64_t *tok = ptm_calloc(c->ncols ? (size_t)c->ncols : 1, sizeof(*tok));
        if (!tok)
            return -1;
        for (int64_t e = 0; e < c->rowptr[c->nrows]; e++)
            tok[c->colind[e]] += (int64_t)c->val[e];
        double bytes;
        lda_wk_choose(c->ncols, K, tok, counts_form(u), &bytes);
        ptm_free(tok);
        return bytes;
    }
    double len = c->nrows > 0 ? tokens / (double)c->nrows : 0;
    bool chosen;
    if (!lda_docs_sparse(sampler_of(u, K, len, &chosen), K, len))
        return rows * cols * (double)sizeof(uint16_t);
    /* the lists: a topic and a count for each topic in use, room for
     * min(K, n_d) a document */
    double room = 0;
    for (int64_t d = 0; d < c->nrows; d++) {
        double n = 0;
        for (int64_t e = c->rowptr[d]; e < c->rowptr[d + 1]; e++)
            n += c->val[e];
        room += n < cols ? n : cols;
    }
    return room * (double)(sizeof(int32_t) + sizeof(uint16_t)) + rows * 2 * sizeof(int32_t);
}

const struct ptm_model ptm_model_lda = {
    .name = "lda",
    .predict = lda_predict,
    .predict_params = (const char *const[]){"nwk", NULL},
    .gen = &ptm_gen_lda_cmd,
    .builtins = ptm_builtins_lda,
    .rules = (const struct ptm_model_rule[]){{"lda_gibbs", &rule_ops}, {NULL, NULL}},
    .objectives =
        (const struct ptm_model_objective[]){{"lda_loglik", &objective_ops}, {NULL, NULL}},
    .write_output = write_top_words,
    .table_bytes = table_bytes,
};
