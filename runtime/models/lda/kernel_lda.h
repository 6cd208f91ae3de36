/*
 * kernel_lda.h - the built-in LDA kernel (lda_gibbs, lda_loglik): collapsed
 * Gibbs sampling of the topic z of every token under the rotation policy
 * (spec/runtime.md, "Rotation rounds"), with K topics and symmetric priors
 * alpha (document-topic) and beta (topic-word) over W words.
 *
 * The state is split three ways:
 *
 *   worker p       its documents' tokens, their topics z and the document-
 *                  topic counts n_dk (struct lda_shard): they never move;
 *   block b        rows bounds[b] .. bounds[b+1]-1 of the word-topic counts
 *                  n_wk (W x K, row-major int32, owned by the engine): in
 *                  round t worker p holds block (p + t) mod P exclusively;
 *   shared         the topic totals n_k (K of them), in the parameter store
 *                  under SSP: each worker reads a possibly stale copy.
 *
 * A worker's copy of n_k is a plain int64 array `nk` that the kernel reads
 * and updates in place as it moves tokens, adding the same changes to
 * `nk_delta`. Between rounds the engine pushes nk_delta to the store (and
 * zeroes it), clocks, and refreshes nk from the store's row, which under
 * SSP is the master copy at most s clocks old plus all of the worker's own
 * increments. That keeps nk[k] at least the worker's own tokens in topic
 * k, which is all the kernel needs (every denominator n_k - 1 + W beta of
 * a token's own topic stays positive); a stale nk only perturbs the
 * sampling distribution, as under SSP anywhere. n_dk, n_wk and z are always
 * exactly consistent.
 *
 * One round for worker p holding block b (what the engine calls; engine
 * integration is described in full at lda_sample()):
 *
 *   lda_sample(&shard[p], b, &opts, &nwk, nk[p], nk_delta[p], &rng[p])
 *
 * Samplers (option `sampler` of lda_gibbs, builtins_lda.c):
 *
 *   plain   the exact conditional, O(K) per token:
 *             p(k) ~ (n_dk' + alpha)(n_wk' + beta) / (n_k' + W beta)
 *           with ' meaning "without the current token";
 *   sparse  the same distribution by the SparseLDA decomposition, turned
 *           for word-major order: alpha beta / (n_k' + W beta) (dense,
 *           word-free, its sum kept), alpha n_wk' / (n_k' + W beta) (the
 *           word's non-zero topics, sum kept) and n_dk' (n_wk' + beta) /
 *           (n_k' + W beta) (the document's non-zero topics, summed per
 *           token); O(topics of the document) per token;
 *   dense   the plain sampler's sums in vector registers: the products
 *           (n_dk' + alpha) c_k, c_k = (n_wk' + beta) / (n_k' + W beta)
 *           kept for the word, 16 topics at a time in single precision,
 *           topics k with the same k mod 16 in one lane; the running sums
 *           down the lanes, the lanes' totals, then the draw by counting
 *           the running sums below u (no search loop). O(K) per token,
 *           but with K / 16 vector steps: the fastest exact sampler here
 *           at K = 100, and on long documents up to K = 1000 measured;
 *           sparse wins when K is large and documents are short. Single
 *           precision moves each topic's probability by at most about
 *           1e-6 of the total;
 *   alias   Metropolis-Hastings with O(1) proposals (LightLDA's cycle,
 *           WarpLDA's proposals): each step proposes a topic from the
 *           word proposal n_wk' + beta (one of the word's other tokens,
 *           or an alias table of the other shards' counts), then from
 *           the document proposal n_dk' + alpha (one of the document's
 *           other tokens, or a uniform topic), each accepted by the exact
 *           ratio for the conditional above. Both proposals leave the token
 *           out, so each step keeps the conditional exactly invariant.
 *           O(1) per token plus O(K) per word and round, but it gains
 *           about half as much a sweep as the exact samplers (60 to 70
 *           sweeps where they need 30, on 35-token documents), and there
 *           it was faster a token than dense only from K = 200 on.
 *
 * Tokens of a (shard, block) pair are stored by word, then document, so
 * the word's row of n_wk (and the alias sampler's table and the word's
 * topics) stay in cache while its tokens are sampled; what each token
 * reads of its document (its row of n_dk, its topic list or the tokens
 * its proposals pick) is fetched a few tokens ahead. The log-likelihood is the collapsed joint
 * log p(w, z | alpha, beta) (as the LightLDA and WarpLDA papers report it),
 * split into per-worker parts plus one global term; divided by the number
 * of tokens it is lda_loglik's value.
 *
 * Plain functions on arrays; allocation only in lda_shard_init(),
 * lda_wk_init() and lda_top_words(). Counts are uint16 (n_dk: a document
 * has at most LDA_DOC_MAX tokens, so that the largest table of a shard,
 * D x K, takes 2 bytes a count, and the lists of sparse_docs 6 bytes a
 * topic in use), int32 (n_wk)
 * and int64 (n_k); a shard holds at most INT32_MAX tokens, and the engine
 * must refuse a corpus in which a word has more than INT32_MAX tokens (an
 * n_wk could overflow).
 */
#ifndef PTM_KERNEL_LDA_H
#define PTM_KERNEL_LDA_H

#include <stdbool.h>
#include <stdint.h>

#include "data.h"
#include "ptm.h"
#include "rng.h"

/* Metropolis-Hastings steps per token of the alias sampler (each a word
 * proposal and a document proposal) when the engine has no other figure. */
#define LDA_MH_STEPS 2
/* The most the alias sampler takes. */
#define LDA_MH_STEPS_MAX 16
/* The most tokens a document may have (its counts n_dk are 16-bit). */
#define LDA_DOC_MAX 65535

/* The `sampler` option: "sparse", "alias", "plain", "dense". */
enum lda_sampler {
    LDA_SAMPLER_SPARSE,
    LDA_SAMPLER_ALIAS,
    LDA_SAMPLER_PLAIN,
    LDA_SAMPLER_DENSE,
};

/* The sampler named s, or -1. */
int lda_sampler_lookup(const char *s);
/* The sampler `auto` takes for K topics and documents of mean_len tokens
 * on average: sparse when K >= 512 + 2.5 mean_len (where it measured
 * faster than dense: spec/language.md, lda_gibbs), else dense. */
enum lda_sampler lda_sampler_auto(int32_t K, double mean_len);
/* Whether shards keep the documents' counts as lists (sparse_docs) for
 * sampler: always for the sparse sampler, which sums over them; for the
 * others when the lists (6 bytes a topic in use, at most a token each)
 * take at most a quarter of D x K 16-bit counts: K >= 12 mean_len + 16. */
bool lda_docs_sparse(enum lda_sampler sampler, int32_t K, double mean_len);

/* The options of lda_gibbs. */
struct lda_opts {
    double alpha, beta; /* > 0 */
    enum lda_sampler sampler;
    int mh_steps; /* alias: 1 .. LDA_MH_STEPS_MAX */
    enum ptm_isa isa; /* dense: PTM_ISA_BEST, or one ptm_isa_has(); every choice
                       * makes the same arithmetic in the same order: the same
                       * draws, bit for bit */
};

/* The word-topic counts n_wk (W x K), in one of two forms chosen at
 * set-up (lda_wk_init()) for memory:
 *
 *   dense    W x K int32, row-major;
 *   sparse   each word's topics with n_wk > 0 and their counts, in room
 *            for min(K, the word's tokens) of them (no word ever has more
 *            topics in use than tokens), by word: word w's are
 *            ent[off[w] .. off[w] + len[w]), in no particular order.
 *
 * The samplers read and change one word's row at a time, dense: a sparse
 * row is spread into a K-array of the worker's (zero between words) when
 * its word comes up and packed back when the word is done
 * (lda_wk_open()/lda_wk_close()), which costs O(K) a word where the
 * samplers already spend that much (their per-word sums); O(1) a token as
 * before. A word's row belongs to the worker holding its block. */
enum lda_wk_form { LDA_WK_DENSE, LDA_WK_SPARSE };

struct lda_wk_ent {
    int32_t k, n; /* a topic and its count (> 0) */
};

struct lda_wk {
    enum lda_wk_form form;
    int32_t K;
    int64_t W;
    int32_t *dense;         /* dense: W x K */
    int64_t *off;           /* sparse: W + 1, the words' room */
    int32_t *len;           /* sparse: W, the topics in use */
    struct lda_wk_ent *ent; /* sparse: off[W] */
};

/* Room for the counts of W words and K topics, word w with tokens[w]
 * tokens over the whole corpus (every rank's): sparse when that takes at
 * most half the memory of dense (form LDA_WK_DENSE or LDA_WK_SPARSE
 * forces one; -1 chooses). All counts zero. Returns 0, PTM_EINVAL (W < 0
 * or K < 1), PTM_ETOOBIG or PTM_ENOMEM (wk then empty). */
int lda_wk_init(struct lda_wk *wk, int64_t W, int32_t K, const int64_t *tokens, int form);
/* The form lda_wk_init() takes for these (form: as there), and the bytes
 * it then keeps in *bytes (when not NULL). */
enum lda_wk_form lda_wk_choose(int64_t W, int32_t K, const int64_t *tokens, int form,
                               double *bytes);
void lda_wk_release(struct lda_wk *wk);
/* Bytes the counts take. */
size_t lda_wk_bytes(const struct lda_wk *wk);
/* n_wk of word w, topic k (O(topics of the word) when sparse). */
int32_t lda_wk_get(const struct lda_wk *wk, int64_t w, int32_t k);
/* Word w's row, K counts, read only: wk's own when dense, else spread
 * into row (K, all zero on entry); lda_wk_done() gives row back zeroed. */
const int32_t *lda_wk_read(const struct lda_wk *wk, int64_t w, int32_t *row);
void lda_wk_done(const struct lda_wk *wk, int64_t w, int32_t *row);
/* Every count of words lo .. hi-1 set to zero. */
void lda_wk_clear(struct lda_wk *wk, int64_t lo, int64_t hi);
/* Every count summed over the ranks in place by sum(values, n) (which
 * adds n int32 values over the ranks and leaves the totals on every
 * rank); scratch holds at least LDA_WK_CHUNK int32, and K. Each count stays
 * within its word's room: its tokens over all ranks bound its topics. */
#define LDA_WK_CHUNK ((size_t)1 << 20)
void lda_wk_sum(struct lda_wk *wk, void (*sum)(int32_t *values, size_t n), int32_t *scratch);

/* One token in word-major order: its document (local, 0-based) and its
 * place in z. */
struct lda_tok {
    int32_t doc, pos;
};

/* Worker p's documents and everything it keeps about them. */
struct lda_shard {
    int32_t K;
    int nblocks;           /* P */
    int64_t ndocs, nwords; /* local documents; W, the whole vocabulary */
    int64_t ntokens;
    int64_t *bounds; /* nblocks + 1: block b is words bounds[b] .. bounds[b+1]-1 */

    /* By document: tokens of local document d are z[dptr[d] .. dptr[d+1]). */
    int32_t *dptr; /* ndocs + 1 */
    int32_t *z;    /* ntokens: the topics */
    uint16_t *ndk; /* ndocs x K, row-major: n_dk (at most LDA_DOC_MAX); NULL when
                    * sparse_docs */

    /* By block, word, document: block b's words are wlist[bw[b] .. bw[b+1])
     * (ascending, only those the shard has), and word entry i's tokens are
     * tok[wptr[i] .. wptr[i+1]). */
    int64_t *bw;         /* nblocks + 1 */
    int32_t *wlist;      /* distinct words of the shard */
    int32_t *wptr;       /* entries + 1 */
    struct lda_tok *tok; /* ntokens */
    int32_t *zw;         /* ntokens: zw[j] = z[tok[j].pos], the topics in this order,
                          * when zw_fresh: the alias sampler's (the others read
                          * z[tok[j].pos], and leave zw stale) */
    bool zw_fresh;

    /* sparse_docs (lda_docs_sparse()): in place of n_dk, each document's
     * topics with n_dk > 0 and their counts, dnz[m] and dnc[m] for m in
     * dnzp[d] .. dnzp[d] + dnzn[d] (room for min(K, n_d)), in the order the
     * sparse sampler sums them; NULL otherwise. The other samplers spread
     * a token's list into sc_nd (a row of K, zero between tokens) and
     * fold the token's move back into the list. */
    bool sparse_docs;
    int32_t *dnzp, *dnzn, *dnz;
    uint16_t *dnc, *sc_nd;

    /* Scratch of the samplers, K each (sc_ring: 8 x LDA_MH_STEPS_MAX; sc_row:
     * the word's row of a sparse n_wk, zero between words); the worker's
     * own. */
    double *sc_w, *sc_c, *sc_s, *sc_p;
    float *sc_f; /* the dense sampler's, 2 x K rounded up to vectors */
    uint64_t *sc_alias, *sc_ring;
    int32_t *sc_lo, *sc_hi, *sc_nz, *sc_nzpos, *sc_row;
};

/* ---- set-up --------------------------------------------------------------- */

/* Build worker p's shard from documents lo .. hi-1 of d (the whole corpus
 * as a D x W CSR matrix of counts, as the UCI reader makes it; a count of
 * 0 is no token) for K topics, the vocabulary cut into nblocks blocks by
 * bounds (nblocks + 1 ascending values from 0 to d->ncols, as the block set
 * `nwk rows into workers` cuts it); the documents' counts as lists when
 * sparse_docs (lda_docs_sparse()). Topics
 * are unassigned and n_dk is zero until lda_init_block() has run for every
 * block. Returns 0, PTM_EINVAL (K
 * < 1, bad bounds or range, a count that is not a whole number in
 * 0 .. INT32_MAX), PTM_ETOOBIG (more than INT32_MAX tokens, a document of
 * more than LDA_DOC_MAX, or ndocs * K beyond memory sizes) or PTM_ENOMEM; s is then empty. Caller frees with
 * lda_shard_release(). */
int lda_shard_init(struct lda_shard *s, const struct ptm_csr *d, int64_t lo, int64_t hi, int32_t K,
                   const int64_t *bounds, int nblocks, bool sparse_docs);
void lda_shard_release(struct lda_shard *s);

/* Give every token of block b a topic drawn uniformly, and count it into
 * n_dk, the block's words' counts in wk, nk and nk_delta. Once per block,
 * before any lda_sample() of it; the engine
 * runs it as an initial epoch of P rotation rounds (or for every (p, b) on
 * one thread before the workers start, on a shared nk). */
void lda_init_block(struct lda_shard *s, int b, struct lda_wk *wk, int64_t *nk, int64_t *nk_delta,
                    struct ptm_rng *rng);

/* ---- checkpoints ------------------------------------------------------------ */

struct ptm_ckpt;
/* Save or load (ck->load, runtime/base/ckpt.h) what of shard s changes
 * from round to round: the topics z, and n_dk or, under sparse_docs, the
 * documents' topic lists with their counts, whose order decides the order
 * of the sparse sampler's sums and so its draws. The rest (the token
 * layout, the scratch) set-up rebuilds, and zw is rebuilt from z when the
 * alias sampler next runs. A shard of other documents, another K or the
 * other form of n_dk fails the load (ck->err). */
void lda_shard_state(struct lda_shard *s, struct ptm_ckpt *ck);

/* ---- one round ------------------------------------------------------------ */

/* Resample the topic of every token of the shard whose word is in block b,
 * word by word, with o->sampler. wk holds n_wk, of which the sampler reads
 * and changes the block's words' rows only, nk the worker's copy of the
 * topic totals and nk_delta the increments not yet pushed (K each); all
 * three are updated in place, as are z and n_dk. Returns the number of
 * tokens whose topic changed. No allocation; no other worker may touch
 * the block's rows meanwhile (rotation guarantees it).
 *
 * The engine, per rotation round t, on worker p:
 *   b = (p + t) mod P
 *   lda_sample(&shard[p], b, &opts, &nwk, nk, nk_delta, &rng)
 *   for k < K: if nk_delta[k]: pstore_inc(w, NK, 0, k, nk_delta[k]); nk_delta[k] = 0
 *   pstore_clock(w)
 *   pstore_row_dense(w, NK, 0, &v); for k < K: nk[k] = (int64_t)v[k]
 * P rounds are a sweep over every token. */
int64_t lda_sample(struct lda_shard *s, int b, const struct lda_opts *o, struct lda_wk *wk,
                   int64_t *nk, int64_t *nk_delta, struct ptm_rng *rng);

/* ---- log-likelihood and topics ------------------------------------------- */

/* The collapsed joint log-likelihood
 *
 *   log p(w, z) = sum_d [ lgamma(K a) - lgamma(n_d + K a)
 *                         + sum_k (lgamma(n_dk + a) - lgamma(a)) ]       (docs)
 *               + sum_w sum_k (lgamma(n_wk + b) - lgamma(b))             (words)
 *               + sum_k [ lgamma(W b) - lgamma(n_k + W b) ]              (topics)
 *
 * as three parts: lda_loglik_docs() on every worker's shard,
 * lda_loglik_words() on words lo .. hi-1 of n_wk (each word once), and
 * lda_loglik_topics() once on the true totals (lda_topic_totals() of the
 * whole n_wk, or the store's master copy once every worker has flushed).
 * lda_loglik's value is their sum over the number of tokens (the sum of
 * the shards' ntokens). */
double lda_loglik_docs(const struct lda_shard *s, double alpha);
double lda_loglik_words(const struct lda_wk *wk, int64_t lo, int64_t hi, double beta);
double lda_loglik_topics(const int64_t *nk, int32_t K, int64_t W, double beta);

/* nk[k] += the sum over the words of n_wk. */
void lda_topic_totals(const struct lda_wk *wk, int64_t *nk);

/* The n words of most tokens in every topic of n_wk: top[k n + i] is topic
 * k's i-th, by count descending and then word ascending; -1 past the W-th.
 * O(W K log n); row is scratch of K int32, all zero. The engine writes them
 * with the vocabulary. Returns 0 or PTM_ENOMEM. */
int lda_top_words(const struct lda_wk *wk, int32_t n, int32_t *top, int32_t *row);

#endif
