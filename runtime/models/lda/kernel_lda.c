/*
 * kernel_lda.c - LDA by collapsed Gibbs sampling over document shards and
 * rotating vocabulary blocks (kernel_lda.h): the plain O(K) sampler, its
 * vector form (dense), the SparseLDA decomposition and the Metropolis-
 * Hastings alias sampler.
 *
 * DESIGN: the target of every sampler is the collapsed conditional of a
 * token of word w in document d currently in topic s,
 *
 *     p(k) ~ (n_dk - [k=s] + alpha)(n_wk - [k=s] + beta) / (n_k - [k=s] + W beta),
 *
 * the counts without the token ("-1 corrections"). Tokens are visited word
 * by word (the held block's words in order), so each sampler does its per-
 * word work once for all the word's tokens in the shard.
 *
 * alias: a cycle of two Metropolis-Hastings steps, each with a proposal
 * that is a function of the other tokens' topics only (z without the
 * token), which do not change while the token is resampled: each step is
 * then an MH kernel whose stationary distribution is exactly p, and so is
 * the cycle. With a = n_dk' + alpha, b = n_wk' + beta, c = n_k' + W beta
 * (p = a b / c), from the current topic x:
 *   - word proposal q(k) ~ n_wk' + beta = b_k: with weight m - 1 one of
 *     the word's other m - 1 tokens in this shard, picked uniformly (their
 *     topics are kept in word order in zw, hot in cache); with weight
 *     F + K beta the alias table of n_wk - (this shard's tokens of the
 *     word) + beta, the F tokens of other shards, which cannot change
 *     while this worker holds the block: built once per word and round
 *     (uniform when F = 0, as with one worker). Accept t with
 *     min(1, p(t) b_x / (p(x) b_t)) = min(1, a_t c_x / (a_x c_t)).
 *   - document proposal q(k) ~ n_dk' + alpha = a_k: one of the document's
 *     other tokens (the token's own place is skipped), or with weight
 *     K alpha a uniform topic. Accept with min(1, b_t c_x / (b_x c_t)).
 * LightLDA's proposals count the token itself (the document proposal
 * picks from all of the document's tokens; the word table, frozen when
 * the word's tokens start, counts them at their old topics): proposals
 * that depend on the state being left, which the ratio does not correct
 * exactly. With LightLDA's document proposal this sampler fails the
 * joint chi-square test of test_lda.c (455 on 127 degrees of freedom,
 * where these proposals give 111 to 147). An acceptance compares
 * u * den < num, so no division is made. The alias table is Vose's with
 * 32-bit thresholds: one 64-bit draw gives the column (high half) and the
 * coin (low half); drawing k < K as (r32 * K) >> 32 is biased by at most
 * K / 2^32, far below what sampling can show. The document proposals'
 * random numbers are drawn PF tokens ahead, so that the tokens they pick
 * can be fetched early.
 *
 * sparse: with the word fixed, p(k) = alpha beta c_k + alpha n_wk' c_k +
 * n_dk' (n_wk' + beta) c_k, c_k = 1 / (n_k' + W beta): a dense word-free
 * bucket S (sum kept under the token's changes), a bucket R over the
 * word's non-zero topics (a list with positions, sum kept) and a bucket Q
 * over the document's non-zero topics (summed for every token from the
 * cached (n_wk + beta) c_k). Sums kept across tokens are recomputed at
 * every word, so rounding does not build up. Walks that run off their end
 * through rounding take the bucket's last topic. The lists of the
 * documents' topics are kept by this sampler only (the others mark them
 * stale and the next sparse round rebuilds them from n_dk). A token's row
 * of n_dk and topic list are fetched PF tokens ahead.
 *
 * dense: p(k) = (n_dk' + alpha) c_k with c_k = (n_wk' + beta) / (n_k' +
 * W beta) kept for the word (recomputed at every word, two values changed
 * a token). Topic k sits in lane k mod 16 of vector k / 16; one pass over
 * the K / 16 vectors gives, lane by lane, the running sums down the
 * vectors (stored) and, in four independent sums, the lanes' totals. A
 * scan across the lanes of the totals picks the lane (u = uniform times
 * the whole, the lanes whose running sum is at most u counted in the
 * vector), and counting the lane's stored running sums at most the rest
 * of u picks the vector: no loop ends where u falls, which a cumulative
 * search would mispredict once a token (the branches left on the draw,
 * lane 0 or not and the clamps below, mostly go one way). Nor is there a
 * branch on whether the token moved. Rounding can leave u
 * at or past a total; the counts are then clamped to the last lane and
 * to the lane's last topic, whose p(k) > 0 (alpha, beta > 0). The n_dk
 * array has 16 values of padding after its last row, so that row's last
 * vector (up to 15 values past the row) is read whole;
 * c_k is 0 past K, which zeroes those products. All in 8-float vector
 * types of GCC, a vector of 16 lanes as two of them, compiled three times
 * on x86-64 (baseline, AVX2, AVX-512F with VL for its 32 registers; 16-
 * lane vectors of GCC, a little faster with AVX-512, go through memory
 * without it, at half the speed) and picked at run time; there is no
 * fused multiply-add (ISO C contracts nothing), so every version gives the
 * same bits. Single precision: a
 * running sum of 100 terms is off by a few ulp (2^-24 of the total),
 * which is the most a topic's probability moves; sampling cannot see it,
 * and it halves the vector work against doubles.
 *
 * plain: the O(K) cumulative sum with the counts decremented; written
 * directly from the formula, as the reference the others are tested
 * against.
 */
#define _DEFAULT_SOURCE /* lgamma_r: lgamma() writes the global signgam */
#include "kernel_lda.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "ckpt.h"
#include "ptm.h"

int lda_sampler_lookup(const char *s)
{
    static const char *const names[] = {
        [LDA_SAMPLER_SPARSE] = "sparse",
        [LDA_SAMPLER_ALIAS] = "alias",
        [LDA_SAMPLER_PLAIN] = "plain",
        [LDA_SAMPLER_DENSE] = "dense",
    };
    for (int i = 0; i < (int)PTM_ARRAY_LEN(names); i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* ---- random numbers ---------------------------------------------------------- */

/* k < n from the high 32 bits of r. */
static inline int32_t below(uint64_t r, int32_t n)
{
    return (int32_t)(((r >> 32) * (uint64_t)n) >> 32);
}

static inline double uniform(struct ptm_rng *g)
{
    return ptm_rng_uniform(g);
}

/* [0, 1) from 32 bits. */
static inline double u32(uint32_t r)
{
    return (double)r * 0x1.0p-32;
}

/* Tokens ahead whose memory the alias and sparse samplers fetch early (a
 * power of 2). */
#define PF 8

/* Cache lines of a row of n_dk the samplers fetch ahead: all of it up to
 * K = 224, the first 8 beyond. */
static int row_lines(int32_t K)
{
    int64_t n = (int64_t)K * (int64_t)sizeof(uint16_t) / 64 + 1;
    return n < 8 ? (int)n : 8;
}

/* The dense sampler's vectors: DLANES floats, topics k with the same
 * k mod DLANES in one lane. */
#define DLANES 16

/* K rounded up to whole vectors. */
static size_t dense_len(int32_t K)
{
    return ((size_t)K + DLANES - 1) / DLANES * DLANES;
}

/* ---- the word-topic counts ---------------------------------------------------- */

/* Room of word w's sparse counts. */
static int64_t wk_room(int64_t tokens, int32_t K)
{
    return tokens < K ? (tokens > 0 ? tokens : 0) : K;
}

enum lda_wk_form lda_wk_choose(int64_t W, int32_t K, const int64_t *tokens, int form,
                               double *bytes)
{
    double room = 0;
    for (int64_t w = 0; w < W; w++)
        room += (double)wk_room(tokens[w], K);
    double sparse = room * (double)sizeof(struct lda_wk_ent) +
                    (double)W * (double)(sizeof(int64_t) + sizeof(int32_t)),
           dense = (double)W * (double)K * (double)sizeof(int32_t);
    if (form < 0) /* sparse when it takes at most half of dense */
        form = sparse <= dense / 2 ? LDA_WK_SPARSE : LDA_WK_DENSE;
    if (bytes)
        *bytes = form == LDA_WK_SPARSE ? sparse : dense;
    return form == LDA_WK_SPARSE ? LDA_WK_SPARSE : LDA_WK_DENSE;
}

enum lda_sampler lda_sampler_auto(int32_t K, double mean_len)
{
    return K >= 512 + 2.5 * mean_len ? LDA_SAMPLER_SPARSE : LDA_SAMPLER_DENSE;
}

int lda_wk_init(struct lda_wk *wk, int64_t W, int32_t K, const int64_t *tokens, int form)
{
    memset(wk, 0, sizeof(*wk));
    if (W < 0 || K < 1)
        return PTM_EINVAL;
    if (W > 0 && (uint64_t)W > SIZE_MAX / sizeof(int32_t) / (uint64_t)K)
        return PTM_ETOOBIG;
    wk->form = lda_wk_choose(W, K, tokens, form, NULL);
    wk->K = K;
    wk->W = W;
    if (wk->form == LDA_WK_DENSE) {
        /* calloc: untouched rows take no memory */
        wk->dense = ptm_calloc(W ? (size_t)(W * K) : 1, sizeof(*wk->dense));
        if (!wk->dense) {
            lda_wk_release(wk);
            return PTM_ENOMEM;
        }
        return 0;
    }
    wk->off = ptm_malloc(((size_t)W + 1) * sizeof(*wk->off));
    wk->len = ptm_calloc(W ? (size_t)W : 1, sizeof(*wk->len));
    if (!wk->off || !wk->len) {
        lda_wk_release(wk);
        return PTM_ENOMEM;
    }
    int64_t at = 0;
    for (int64_t w = 0; w < W; w++) {
        wk->off[w] = at;
        at += wk_room(tokens[w], K);
    }
    wk->off[W] = at;
    if (!(wk->ent = ptm_malloc((at ? (size_t)at : 1) * sizeof(*wk->ent)))) {
        lda_wk_release(wk);
        return PTM_ENOMEM;
    }
    return 0;
}

void lda_wk_release(struct lda_wk *wk)
{
    ptm_free(wk->dense);
    ptm_free(wk->off);
    ptm_free(wk->len);
    ptm_free(wk->ent);
    memset(wk, 0, sizeof(*wk));
}

size_t lda_wk_bytes(const struct lda_wk *wk)
{
    if (wk->form == LDA_WK_DENSE)
        return (size_t)(wk->W * wk->K) * sizeof(int32_t);
    return (size_t)wk->W * (sizeof(*wk->off) + sizeof(*wk->len)) +
           (size_t)wk->off[wk->W] * sizeof(*wk->ent);
}

int32_t lda_wk_get(const struct lda_wk *wk, int64_t w, int32_t k)
{
    if (wk->form == LDA_WK_DENSE)
        return wk->dense[w * wk->K + k];
    const struct lda_wk_ent *e = wk->ent + wk->off[w];
    for (int32_t m = 0; m < wk->len[w]; m++)
        if (e[m].k == k)
            return e[m].n;
    return 0;
}

/* Word w's row to read and change: wk's own, or spread into row (zero). */
static inline int32_t *wk_open(const struct lda_wk *wk, int64_t w, int32_t *row)
{
    if (wk->form == LDA_WK_DENSE)
        return wk->dense + w * wk->K;
    const struct lda_wk_ent *e = wk->ent + wk->off[w];
    for (int32_t m = 0, n = wk->len[w]; m < n; m++)
        row[e[m].k] = e[m].n;
    return row;
}

/* Word w's row back from wk_open(): packed into w's room, row left zero. */
static inline void wk_close(struct lda_wk *wk, int64_t w, int32_t *row)
{
    if (wk->form == LDA_WK_DENSE)
        return;
    struct lda_wk_ent *e = wk->ent + wk->off[w];
    const int32_t K = wk->K;
    int32_t n = 0;
    for (int32_t k = 0; k < K; k++)
        if (row[k] != 0) {
            PTM_ASSERT(n < wk->off[w + 1] - wk->off[w]);
            e[n++] = (struct lda_wk_ent){k, row[k]};
            row[k] = 0;
        }
    wk->len[w] = n;
}

const int32_t *lda_wk_read(const struct lda_wk *wk, int64_t w, int32_t *row)
{
    return wk_open(wk, w, row);
}

void lda_wk_done(const struct lda_wk *wk, int64_t w, int32_t *row)
{
    if (wk->form == LDA_WK_DENSE)
        return;
    const struct lda_wk_ent *e = wk->ent + wk->off[w];
    for (int32_t m = 0; m < wk->len[w]; m++)
        row[e[m].k] = 0;
}

void lda_wk_clear(struct lda_wk *wk, int64_t lo, int64_t hi)
{
    if (lo >= hi)
        return;
    if (wk->form == LDA_WK_DENSE)
        memset(wk->dense + lo * wk->K, 0, (size_t)((hi - lo) * wk->K) * sizeof(*wk->dense));
    else
        memset(wk->len + lo, 0, (size_t)(hi - lo) * sizeof(*wk->len));
}

void lda_wk_sum(struct lda_wk *wk, void (*sum)(int32_t *values, size_t n), int32_t *scratch)
{
    const int32_t K = wk->K;
    if (wk->form == LDA_WK_DENSE) {
        sum(wk->dense, (size_t)(wk->W * K));
        return;
    }
    /* words a chunk at a time, spread, summed and packed back */
    int64_t per = (int64_t)(LDA_WK_CHUNK / (size_t)K);
    per = per > 0 ? per : 1;
    for (int64_t lo = 0; lo < wk->W; lo += per) {
        int64_t hi = lo + per < wk->W ? lo + per : wk->W;
        memset(scratch, 0, (size_t)((hi - lo) * K) * sizeof(*scratch));
        for (int64_t w = lo; w < hi; w++)
            wk_open(wk, w, scratch + (w - lo) * K);
        sum(scratch, (size_t)((hi - lo) * K));
        for (int64_t w = lo; w < hi; w++)
            wk_close(wk, w, scratch + (w - lo) * K);
    }
}

/* ---- set-up -------------------------------------------------------------------- */

void lda_shard_release(struct lda_shard *s)
{
    ptm_free(s->bounds);
    ptm_free(s->dptr);
    ptm_free(s->z);
    ptm_free(s->zw);
    ptm_free(s->ndk);
    ptm_free(s->bw);
    ptm_free(s->wlist);
    ptm_free(s->wptr);
    ptm_free(s->tok);
    ptm_free(s->dnzp);
    ptm_free(s->dnzn);
    ptm_free(s->dnz);
    ptm_free(s->dnc);
    ptm_free(s->sc_row);
    ptm_free(s->sc_nd);
    ptm_free(s->sc_w);
    ptm_free(s->sc_c);
    ptm_free(s->sc_f);
    ptm_free(s->sc_s);
    ptm_free(s->sc_p);
    ptm_free(s->sc_alias);
    ptm_free(s->sc_ring);
    ptm_free(s->sc_lo);
    ptm_free(s->sc_hi);
    ptm_free(s->sc_nz);
    ptm_free(s->sc_nzpos);
    memset(s, 0, sizeof(*s));
}

/* n elements of size sz, or NULL (n may be 0: one element is allocated). */
static void *alloc_n(size_t n, size_t sz)
{
    return ptm_malloc((n ? n : 1) * sz);
}

static bool bounds_ok(const int64_t *bounds, int nblocks, int64_t W)
{
    if (nblocks < 1 || bounds[0] != 0 || bounds[nblocks] != W)
        return false;
    for (int b = 0; b < nblocks; b++)
        if (bounds[b] > bounds[b + 1])
            return false;
    return true;
}

int lda_shard_init(struct lda_shard *s, const struct ptm_csr *d, int64_t lo, int64_t hi, int32_t K,
                   const int64_t *bounds, int nblocks, bool sparse_docs)
{
    memset(s, 0, sizeof(*s));
    if (K < 1 || lo < 0 || lo > hi || hi > d->nrows || !bounds_ok(bounds, nblocks, d->ncols))
        return PTM_EINVAL;
    int64_t W = d->ncols, D = hi - lo, ntok = 0, dnzcap = 0;
    for (int64_t r = lo; r < hi; r++) {
        int64_t nd = 0;
        for (int64_t e = d->rowptr[r]; e < d->rowptr[r + 1]; e++) {
            double v = d->val[e];
            if (!(v >= 0 && v <= INT32_MAX && v == floor(v)))
                return PTM_EINVAL;
            nd += (int64_t)v;
        }
        ntok += nd;
        if (ntok > INT32_MAX || nd > LDA_DOC_MAX)
            return PTM_ETOOBIG;
        dnzcap += nd < K ? nd : K;
    }
    if (D > 0 && (uint64_t)D > SIZE_MAX / sizeof(int32_t) / (uint64_t)K)
        return PTM_ETOOBIG;
    s->K = K;
    s->nblocks = nblocks;
    s->ndocs = D;
    s->nwords = W;
    s->ntokens = ntok;
    s->sparse_docs = sparse_docs;
    size_t nk = (size_t)K;
    s->bounds = alloc_n((size_t)nblocks + 1, sizeof(*s->bounds));
    s->dptr = alloc_n((size_t)D + 1, sizeof(*s->dptr));
    s->z = alloc_n((size_t)ntok, sizeof(*s->z));
    /* calloc: only the alias sampler writes zw, and until then its pages
     * take no memory */
    s->zw = ptm_calloc(ntok ? (size_t)ntok : 1, sizeof(*s->zw));
    /* n_dk with DLANES more values: the dense sampler reads a row's last
     * vector whole, up to DLANES - 1 values past the row. calloc: its
     * pages are taken as lda_init_block() first counts into them. Or the
     * lists, with room for min(K, n_d) topics a document. */
    if (!sparse_docs) {
        s->ndk = ptm_calloc((size_t)D * nk + DLANES, sizeof(*s->ndk));
    } else {
        s->dnzp = alloc_n((size_t)D + 1, sizeof(*s->dnzp));
        s->dnzn = alloc_n((size_t)D, sizeof(*s->dnzn));
        s->dnz = alloc_n((size_t)dnzcap, sizeof(*s->dnz));
        s->dnc = alloc_n((size_t)dnzcap, sizeof(*s->dnc));
    }
    s->bw = alloc_n((size_t)nblocks + 1, sizeof(*s->bw));
    s->tok = alloc_n((size_t)ntok, sizeof(*s->tok));
    s->sc_row = ptm_calloc(nk, sizeof(*s->sc_row));
    /* a document's row spread from its list, read whole by the dense
     * sampler's vectors: zero past K */
    s->sc_nd = sparse_docs ? ptm_calloc(dense_len(K) + DLANES, sizeof(*s->sc_nd)) : NULL;
    s->sc_w = alloc_n(nk, sizeof(*s->sc_w));
    s->sc_c = alloc_n(nk, sizeof(*s->sc_c));
    s->sc_f = alloc_n(2 * dense_len(K), sizeof(*s->sc_f));
    s->sc_s = alloc_n(nk, sizeof(*s->sc_s));
    s->sc_p = alloc_n(nk, sizeof(*s->sc_p));
    s->sc_alias = alloc_n(nk, sizeof(*s->sc_alias));
    s->sc_ring = alloc_n((size_t)PF * LDA_MH_STEPS_MAX, sizeof(*s->sc_ring));
    s->sc_lo = alloc_n(nk, sizeof(*s->sc_lo));
    s->sc_hi = alloc_n(nk, sizeof(*s->sc_hi));
    s->sc_nz = alloc_n(nk, sizeof(*s->sc_nz));
    s->sc_nzpos = alloc_n(nk, sizeof(*s->sc_nzpos));
    /* Per word of the vocabulary while building: tokens, then the cursor. */
    int32_t *at = alloc_n((size_t)W, sizeof(*at));
    bool docs = sparse_docs ? s->dnzp && s->dnzn && s->dnz && s->dnc && s->sc_nd : s->ndk != NULL;
    if (!s->bounds || !s->dptr || !s->z || !s->zw || !docs || !s->bw || !s->tok || !s->sc_row ||
        !s->sc_w || !s->sc_c || !s->sc_f || !s->sc_s || !s->sc_p || !s->sc_alias || !s->sc_ring ||
        !s->sc_lo || !s->sc_hi || !s->sc_nz || !s->sc_nzpos || !at) {
        ptm_free(at);
        lda_shard_release(s);
        return PTM_ENOMEM;
    }
    memcpy(s->bounds, bounds, ((size_t)nblocks + 1) * sizeof(*bounds));
    memset(s->z, 0, (size_t)ntok * sizeof(*s->z));
    memset(at, 0, (size_t)W * sizeof(*at));

    /* Documents: their token ranges and their topic lists' room. */
    int64_t t = 0, c = 0;
    for (int64_t r = lo; r < hi; r++) {
        s->dptr[r - lo] = (int32_t)t;
        if (sparse_docs) {
            s->dnzp[r - lo] = (int32_t)c;
            s->dnzn[r - lo] = 0;
        }
        int64_t nd = 0;
        for (int64_t e = d->rowptr[r]; e < d->rowptr[r + 1]; e++) {
            nd += (int64_t)d->val[e];
            at[d->colind[e]] += (int32_t)d->val[e];
        }
        t += nd;
        c += nd < K ? nd : K;
    }
    s->dptr[D] = (int32_t)t;
    if (sparse_docs)
        s->dnzp[D] = (int32_t)c;

    /* The shard's words in order, which is block order; at[w] becomes the
     * first place of word w's tokens. */
    int64_t nw = 0;
    for (int64_t w = 0; w < W; w++)
        nw += at[w] > 0;
    s->wlist = alloc_n((size_t)nw, sizeof(*s->wlist));
    s->wptr = alloc_n((size_t)nw + 1, sizeof(*s->wptr));
    if (!s->wlist || !s->wptr) {
        ptm_free(at);
        lda_shard_release(s);
        return PTM_ENOMEM;
    }
    int64_t i = 0;
    int32_t place = 0;
    int b = 0;
    for (int64_t w = 0; w < W; w++) {
        while (b < nblocks && bounds[b] <= w)
            s->bw[b++] = i;
        if (at[w] > 0) {
            int32_t n = at[w];
            s->wlist[i] = (int32_t)w;
            s->wptr[i++] = place;
            at[w] = place;
            place += n;
        }
    }
    while (b <= nblocks)
        s->bw[b++] = i;
    s->wptr[nw] = place;

    /* Tokens by word, documents ascending within a word; a document's
     * tokens are placed in z in the order of its entries. */
    for (int64_t r = lo; r < hi; r++) {
        int32_t pos = s->dptr[r - lo];
        for (int64_t e = d->rowptr[r]; e < d->rowptr[r + 1]; e++) {
            int32_t w = d->colind[e];
            for (int64_t n = (int64_t)d->val[e]; n > 0; n--)
                s->tok[at[w]++] = (struct lda_tok){(int32_t)(r - lo), pos++};
        }
    }
    ptm_free(at);
    s->zw_fresh = false;
    return 0;
}

/* Document d's count of topic t, one up, in its list (kept ascending
 * while the initialization fills it: the order the sampler first sums). */
static void list_add(struct lda_shard *s, int64_t d, int32_t t)
{
    int32_t *list = s->dnz + s->dnzp[d];
    uint16_t *cnt = s->dnc + s->dnzp[d];
    int32_t n = s->dnzn[d], m = 0;
    while (m < n && list[m] < t)
        m++;
    if (m < n && list[m] == t) {
        cnt[m]++;
        return;
    }
    PTM_ASSERT(n < s->dnzp[d + 1] - s->dnzp[d]);
    memmove(list + m + 1, list + m, (size_t)(n - m) * sizeof(*list));
    memmove(cnt + m + 1, cnt + m, (size_t)(n - m) * sizeof(*cnt));
    list[m] = t;
    cnt[m] = 1;
    s->dnzn[d] = n + 1;
}

bool lda_docs_sparse(enum lda_sampler sampler, int32_t K, double mean_len)
{
    return sampler == LDA_SAMPLER_SPARSE || K >= 12 * mean_len + 16;
}

/* One token of topic k out of a document's list of n topics in use
 * (there), and one into it: the new length. A topic that drops to 0
 * leaves its place to the last; a new one goes last. */
static inline int32_t list_drop(int32_t *restrict list, uint16_t *restrict cnt, int32_t n,
                                int32_t k)
{
    int32_t m = 0;
    while (list[m] != k)
        m++;
    if (--cnt[m] == 0) {
        n--;
        list[m] = list[n];
        cnt[m] = cnt[n];
    }
    return n;
}

static inline int32_t list_put(int32_t *restrict list, uint16_t *restrict cnt, int32_t n,
                               int32_t k)
{
    int32_t m = 0;
    while (m < n && list[m] != k)
        m++;
    if (m < n) {
        cnt[m]++;
        return n;
    }
    list[n] = k;
    cnt[n] = 1;
    return n + 1;
}

/* Document d's counts as a row of K for the samplers that read rows:
 * its row of n_dk, or (sparse_docs) its list spread into sc_nd (zero). */
static inline uint16_t *doc_open(struct lda_shard *s, int64_t d)
{
    if (!s->sparse_docs)
        return s->ndk + d * s->K;
    uint16_t *row = s->sc_nd;
    const int32_t *list = s->dnz + s->dnzp[d];
    const uint16_t *cnt = s->dnc + s->dnzp[d];
    for (int32_t m = 0, n = s->dnzn[d]; m < n; m++)
        row[list[m]] = cnt[m];
    return row;
}

/* The row from doc_open() back, after its token moved from topic old to
 * t (the row already says so): the list follows, and sc_nd is zero
 * again. */
static inline void doc_close(struct lda_shard *s, int64_t d, int32_t old, int32_t t)
{
    if (!s->sparse_docs)
        return;
    int32_t *list = s->dnz + s->dnzp[d];
    uint16_t *cnt = s->dnc + s->dnzp[d];
    int32_t n = s->dnzn[d];
    if (old != t)
        s->dnzn[d] = n = list_put(list, cnt, list_drop(list, cnt, n, old), t);
    uint16_t *row = s->sc_nd;
    for (int32_t m = 0; m < n; m++)
        row[list[m]] = 0;
    row[old] = 0;
}

void lda_init_block(struct lda_shard *s, int b, struct lda_wk *wk, int64_t *nk, int64_t *nk_delta,
                    struct ptm_rng *rng)
{
    PTM_ASSERT(b >= 0 && b < s->nblocks);
    const int32_t K = s->K;
    for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
        int32_t *nw = wk_open(wk, s->wlist[i], s->sc_row);
        for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
            int32_t t = below(ptm_rng_next(rng), K);
            s->z[s->tok[j].pos] = t;
            if (s->sparse_docs)
                list_add(s, s->tok[j].doc, t);
            else
                s->ndk[(int64_t)s->tok[j].doc * K + t]++;
            nw[t]++;
            nk[t]++;
            nk_delta[t]++;
        }
        wk_close(wk, s->wlist[i], nw);
    }
    s->zw_fresh = false;
}

/* ---- checkpoints ---------------------------------------------------------------- */

void lda_shard_state(struct lda_shard *s, struct ptm_ckpt *ck)
{
    const int32_t K = s->K;
    ptm_ck_size(ck, K, "number of topics of a shard");
    ptm_ck_size(ck, s->ndocs, "documents of a shard");
    ptm_ck_size(ck, s->ntokens, "tokens of a shard");
    ptm_ck_size(ck, s->sparse_docs, "document counts as lists");
    PTM_CK_ARRAY(ck, s->z, s->ntokens);
    if (!s->sparse_docs) {
        PTM_CK_ARRAY(ck, s->ndk, s->ndocs * K);
    } else {
        /* each document's list alone: the room past it holds nothing */
        PTM_CK_ARRAY(ck, s->dnzn, s->ndocs);
        for (int64_t d = 0; ck->load && !ck->err && d < s->ndocs; d++)
            if (s->dnzn[d] < 0 || s->dnzn[d] > s->dnzp[d + 1] - s->dnzp[d])
                ptm_ck_fail(ck, PTM_EDATA,
                            "the checkpoint's topic list of document %lld of a shard has %d "
                            "topics where it has room for %d",
                            (long long)d, (int)s->dnzn[d], (int)(s->dnzp[d + 1] - s->dnzp[d]));
        for (int64_t d = 0; !ck->err && d < s->ndocs; d++) {
            PTM_CK_ARRAY(ck, s->dnz + s->dnzp[d], s->dnzn[d]);
            PTM_CK_ARRAY(ck, s->dnc + s->dnzp[d], s->dnzn[d]);
        }
    }
    if (!ck->load || ck->err)
        return;
    s->zw_fresh = false;
}

/* ---- plain ------------------------------------------------------------------------ */

static int64_t sample_plain(struct lda_shard *s, int b, const struct lda_opts *o,
                            struct lda_wk *wk, int64_t *nk, int64_t *nk_delta, struct ptm_rng *g)
{
    const int32_t K = s->K;
    const double alpha = o->alpha, beta = o->beta, wbeta = (double)s->nwords * beta;
    double *p = s->sc_p;
    int64_t changed = 0;
    for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
        int32_t *nw = wk_open(wk, s->wlist[i], s->sc_row);
        for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
            uint16_t *nd = doc_open(s, s->tok[j].doc);
            int32_t old = s->z[s->tok[j].pos];
            nd[old]--;
            nw[old]--;
            nk[old]--;
            double total = 0;
            for (int32_t k = 0; k < K; k++) {
                total += (nd[k] + alpha) * (nw[k] + beta) / ((double)nk[k] + wbeta);
                p[k] = total;
            }
            double u = uniform(g) * total;
            int32_t t = 0;
            while (t < K - 1 && p[t] <= u)
                t++;
            nd[t]++;
            nw[t]++;
            nk[t]++;
            doc_close(s, s->tok[j].doc, old, t);
            if (t != old) {
                nk_delta[old]--;
                nk_delta[t]++;
                s->z[s->tok[j].pos] = t;
                changed++;
            }
        }
        wk_close(wk, s->wlist[i], nw);
    }
    s->zw_fresh = false;
    return changed;
}

/* ---- alias ------------------------------------------------------------------------ */

/* Vose's alias table for weights w[0 .. K) (not all zero, none negative):
 * tab[k] = threshold (low 32 bits) | alias << 32. p, lo, hi are scratch. */
static void alias_build(const double *w, int32_t K, uint64_t *tab, double *p, int32_t *lo,
                        int32_t *hi)
{
    double sum = 0;
    for (int32_t k = 0; k < K; k++)
        sum += w[k];
    double scale = (double)K / sum;
    int32_t nlo = 0, nhi = 0;
    for (int32_t k = 0; k < K; k++) {
        p[k] = w[k] * scale;
        if (p[k] < 1)
            lo[nlo++] = k;
        else
            hi[nhi++] = k;
    }
    while (nlo > 0 && nhi > 0) {
        int32_t l = lo[--nlo], h = hi[nhi - 1];
        tab[l] = (uint64_t)(uint32_t)(p[l] * 0x1.0p32) | (uint64_t)h << 32;
        p[h] = (p[h] + p[l]) - 1;
        if (p[h] < 1) {
            nhi--;
            lo[nlo++] = h;
        }
    }
    /* What is left has weight 1 up to rounding. */
    while (nhi > 0) {
        int32_t h = hi[--nhi];
        tab[h] = UINT32_MAX | (uint64_t)h << 32;
    }
    while (nlo > 0) {
        int32_t l = lo[--nlo];
        tab[l] = UINT32_MAX | (uint64_t)l << 32;
    }
}

static inline int32_t alias_draw(const uint64_t *tab, int32_t K, uint64_t r)
{
    int32_t k = below(r, K);
    uint64_t e = tab[k];
    return (uint32_t)r < (uint32_t)e ? k : (int32_t)(e >> 32);
}

/* The alias sampler draws token j's document proposals ahead (into ring,
 * PF x steps) and fetches what the token will read: its row of n_dk and
 * the tokens its proposals pick. */
static inline void prime(const struct lda_shard *s, int32_t j, int steps, double kalpha,
                         uint64_t *ring, struct ptm_rng *g)
{
    const struct lda_tok tk = s->tok[j];
    const int32_t d0 = s->dptr[tk.doc];
    const double others = (double)(s->dptr[tk.doc + 1] - d0 - 1);
    if (s->sparse_docs) {
        __builtin_prefetch(&s->dnzn[tk.doc]);
        __builtin_prefetch(s->dnz + s->dnzp[tk.doc]);
        __builtin_prefetch(s->dnc + s->dnzp[tk.doc]);
    } else {
        const char *row = (const char *)(s->ndk + (int64_t)tk.doc * s->K);
        for (int l = 0, lines = row_lines(s->K); l < lines; l++)
            __builtin_prefetch(row + 64 * l);
    }
    uint64_t *rr = ring + (size_t)(j & (PF - 1)) * (size_t)steps;
    for (int step = 0; step < steps; step++) {
        uint64_t r = ptm_rng_next(g);
        double u = (double)(r >> 11) * 0x1.0p-53 * (others + kalpha);
        rr[step] = r;
        if (u < others)
            __builtin_prefetch(&s->z[d0 + (int32_t)u]);
    }
}

static int64_t sample_alias(struct lda_shard *s, int b, const struct lda_opts *o,
                            struct lda_wk *wk, int64_t *nk, int64_t *nk_delta, struct ptm_rng *g)
{
    const int32_t K = s->K;
    const double alpha = o->alpha, beta = o->beta, wbeta = (double)s->nwords * beta;
    const double kalpha = K * alpha, kbeta = K * beta, inv_alpha = 1 / alpha, inv_beta = 1 / beta;
    const int steps = o->mh_steps;
    int32_t *restrict z = s->z;
    int32_t *restrict zw = s->zw;
    int32_t *restrict mine = s->sc_nz; /* the shard's tokens of the word by topic; 0 between */
    const int32_t *restrict dptr = s->dptr;
    const struct lda_tok *restrict tok = s->tok;
    double *restrict weight = s->sc_w;
    uint64_t *restrict tab = s->sc_alias;
    uint64_t *restrict ring = s->sc_ring; /* PF x steps: the document proposals' bits */
    int64_t changed = 0;
    const int32_t first = s->wptr[s->bw[b]], end = s->wptr[s->bw[b + 1]];
    memset(mine, 0, (size_t)K * sizeof(*mine));
    if (!s->zw_fresh) {
        for (int64_t j = 0; j < s->ntokens; j++)
            zw[j] = z[tok[j].pos];
        s->zw_fresh = true;
    }

    for (int32_t j = first; j < end && j < first + PF; j++)
        prime(s, j, steps, kalpha, ring, g);
    for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
        int32_t *restrict nw = wk_open(wk, s->wlist[i], s->sc_row);
        const int32_t j0 = s->wptr[i], jend = s->wptr[i + 1], m = jend - j0;
        /* The word's other tokens: m - 1 of them here, F in other shards,
         * whose counts n_wk - mine_k do not move this round. */
        int64_t nwsum = 0;
        for (int32_t k = 0; k < K; k++)
            nwsum += nw[k];
        const int64_t F = nwsum - m;
        if (F > 0) {
            for (int32_t j = j0; j < jend; j++)
                mine[zw[j]]++;
            for (int32_t k = 0; k < K; k++) {
                weight[k] = nw[k] - mine[k] + beta;
                mine[k] = 0;
            }
            alias_build(weight, K, tab, s->sc_p, s->sc_lo, s->sc_hi);
        }
        const double own = (double)(m - 1), wtotal = own + (double)F + kbeta;
        for (int32_t j = j0; j < jend; j++) {
            const int32_t d = tok[j].doc, pos = tok[j].pos;
            uint16_t *restrict nd = doc_open(s, d);
            const int32_t old = zw[j], d0 = dptr[d], at_d = pos - d0, at_w = j - j0;
            const double others = (double)(dptr[d + 1] - d0 - 1);
            const uint64_t *rr = ring + (size_t)(j & (PF - 1)) * (size_t)steps;
            /* The state: topic x and its counts without the token, plus
             * the priors: a (document), b (word), c (topic total). */
            int32_t x = old;
            double ax = nd[x] - 1 + alpha, bx = nw[x] - 1 + beta, cx = (double)nk[x] - 1 + wbeta;
            for (int step = 0; step < steps; step++) {
                uint64_t coins = ptm_rng_next(g);
                /* word proposal q(k) ~ n_wk' + beta: one of the word's
                 * other tokens here, or the other shards' counts and
                 * beta through the alias table (uniform when F = 0) */
                double u = uniform(g) * wtotal;
                int32_t t;
                if (u < own) {
                    int32_t n = (int32_t)u;
                    t = zw[j0 + n + (n >= at_w)];
                } else if (F > 0) {
                    t = alias_draw(tab, K, ptm_rng_next(g));
                } else {
                    t = (int32_t)((u - own) * inv_beta);
                    t = t < K ? t : K - 1;
                }
                int32_t e = t == old;
                double at = nd[t] - e + alpha, bt = nw[t] - e + beta;
                double ct = (double)nk[t] - e + wbeta;
                /* p(t) q(x) / (p(x) q(t)) = a_t c_x / (a_x c_t) */
                bool acc = u32((uint32_t)(coins >> 32)) * ax * ct < at * cx;
                x = acc ? t : x;
                ax = acc ? at : ax;
                bx = acc ? bt : bx;
                cx = acc ? ct : cx;
                /* document proposal q(k) ~ n_dk' + alpha: one of the
                 * document's other tokens, or a uniform topic */
                u = (double)(rr[step] >> 11) * 0x1.0p-53 * (others + kalpha);
                int32_t n = at_d;
                if (u < others) {
                    n = (int32_t)u;
                    n += n >= at_d;
                }
                int32_t tz = z[d0 + n], ta = (int32_t)((u - others) * inv_alpha);
                t = u < others ? tz : ta < K ? ta : K - 1;
                e = t == old;
                at = nd[t] - e + alpha;
                bt = nw[t] - e + beta;
                ct = (double)nk[t] - e + wbeta;
                /* p(t) q(x) / (p(x) q(t)) = b_t c_x / (b_x c_t) */
                acc = u32((uint32_t)coins) * bx * ct < bt * cx;
                x = acc ? t : x;
                ax = acc ? at : ax;
                bx = acc ? bt : bx;
                cx = acc ? ct : cx;
            }
            if (j + PF < end)
                prime(s, j + PF, steps, kalpha, ring, g);
            if (x != old) {
                nd[old]--;
                nw[old]--;
                nk[old]--;
                nk_delta[old]--;
                nd[x]++;
                nw[x]++;
                nk[x]++;
                nk_delta[x]++;
                z[pos] = x;
                zw[j] = x;
                changed++;
            }
            doc_close(s, d, old, x);
        }
        wk_close(wk, s->wlist[i], nw);
    }
    return changed;
}

/* ---- sparse ----------------------------------------------------------------------- */

/* Each document's counts are its list (sparse_docs): the topics in use and
 * their counts side by side. */
static int64_t sample_sparse(struct lda_shard *s, int b, const struct lda_opts *o,
                             struct lda_wk *wk, int64_t *nk, int64_t *nk_delta, struct ptm_rng *g)
{
    PTM_ASSERT(s->sparse_docs);
    const int32_t K = s->K;
    const double alpha = o->alpha, beta = o->beta, wbeta = (double)s->nwords * beta;
    const double ab = alpha * beta;
    double *restrict inv = s->sc_s;   /* 1 / (n_k + W beta) */
    double *restrict cw = s->sc_c;    /* (n_wk + beta) / (n_k + W beta) */
    double *restrict cum = s->sc_p;   /* the Q bucket's running sums */
    int32_t *restrict wnz = s->sc_nz; /* the word's topics with n_wk > 0 */
    int32_t *restrict wpos = s->sc_nzpos;
    int32_t *restrict z = s->z;
    const struct lda_tok *restrict tok = s->tok;
    const int32_t end = s->wptr[s->bw[b + 1]];
    int64_t changed = 0;
    for (int32_t k = 0; k < K; k++)
        inv[k] = 1 / ((double)nk[k] + wbeta);
    for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
        int32_t *restrict nw = wk_open(wk, s->wlist[i], s->sc_row);
        double S = 0, R = 0;
        int32_t nwz = 0;
        for (int32_t k = 0; k < K; k++) {
            S += inv[k];
            cw[k] = (nw[k] + beta) * inv[k];
            if (nw[k] > 0) {
                wpos[k] = nwz;
                wnz[nwz++] = k;
                R += nw[k] * inv[k];
            } else {
                wpos[k] = -1;
            }
        }
        S *= ab;
        R *= alpha;
        for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
            if (j + PF < end) {
                /* what token j + PF will read: its topic list and counts */
                const struct lda_tok ahead = tok[j + PF];
                __builtin_prefetch(&s->dnzn[ahead.doc]);
                __builtin_prefetch(s->dnz + s->dnzp[ahead.doc]);
                __builtin_prefetch(s->dnc + s->dnzp[ahead.doc]);
                __builtin_prefetch(z + ahead.pos, 1);
            }
            const int32_t d = tok[j].doc, pos = tok[j].pos;
            int32_t *restrict list = s->dnz + s->dnzp[d];
            uint16_t *restrict cnt = s->dnc + s->dnzp[d];
            int32_t n = s->dnzn[d];
            const int32_t old = z[pos];

            /* Take the token out. */
            S -= ab * inv[old];
            R -= alpha * nw[old] * inv[old];
            nw[old]--;
            nk[old]--;
            inv[old] = 1 / ((double)nk[old] + wbeta);
            S += ab * inv[old];
            R += alpha * nw[old] * inv[old];
            cw[old] = (nw[old] + beta) * inv[old];
            if (nw[old] == 0) {
                int32_t at = wpos[old], last = wnz[--nwz];
                wnz[at] = last;
                wpos[last] = at;
                wpos[old] = -1;
            }
            n = list_drop(list, cnt, n, old);

            /* Q, then the draw. */
            double Q = 0;
            for (int32_t m = 0; m < n; m++) {
                Q += cnt[m] * cw[list[m]];
                cum[m] = Q;
            }
            double u = uniform(g) * (Q + R + S);
            int32_t t, at = -1;
            if (n > 0 && u < Q) {
                int32_t m = 0;
                while (m < n - 1 && cum[m] <= u)
                    m++;
                t = list[m];
                at = m;
            } else if (u -= Q, nwz > 0 && u < R) {
                double acc = 0;
                int32_t m = 0;
                for (; m < nwz - 1; m++) {
                    acc += alpha * nw[wnz[m]] * inv[wnz[m]];
                    if (acc > u)
                        break;
                }
                t = wnz[m];
            } else {
                u = (u - R) / ab;
                double acc = 0;
                t = 0;
                for (; t < K - 1; t++) {
                    acc += inv[t];
                    if (acc > u)
                        break;
                }
            }

            /* Put it back in topic t. */
            S -= ab * inv[t];
            R -= alpha * nw[t] * inv[t];
            nw[t]++;
            nk[t]++;
            inv[t] = 1 / ((double)nk[t] + wbeta);
            S += ab * inv[t];
            R += alpha * nw[t] * inv[t];
            cw[t] = (nw[t] + beta) * inv[t];
            if (nw[t] == 1) {
                wpos[t] = nwz;
                wnz[nwz++] = t;
            }
            if (at >= 0)
                cnt[at]++; /* drawn from the document's topics: its place known */
            else
                n = list_put(list, cnt, n, t);
            s->dnzn[d] = n;
            /* no branch on t (see the dense sampler) */
            nk_delta[old]--;
            nk_delta[t]++;
            z[pos] = t;
            changed += t != old;
        }
        wk_close(wk, s->wlist[i], nw);
    }
    s->zw_fresh = false;
    return changed;
}

/* ---- dense ------------------------------------------------------------------------ */

/* DLANES = 16 lanes as two halves (lanes 0-7 and 8-15) of 32-byte vectors:
 * GCC keeps those in registers on every x86-64 target (where the target
 * has no 512-bit registers it lowers 64-byte vectors through memory). */
typedef float vf8 __attribute__((vector_size(8 * sizeof(float)), aligned(4)));
typedef int32_t vi8 __attribute__((vector_size(8 * sizeof(int32_t)), aligned(4)));
typedef uint16_t vu8 __attribute__((vector_size(8 * sizeof(uint16_t)), aligned(2)));

/* 8 16-bit counts as int32: each interleaved with a zero (little-endian
 * lanes), which GCC makes one zero-extension, where a conversion of the
 * vector goes value by value. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define widen(x) ((vi8)__builtin_shufflevector((x), (vu8){0}, 0, 8, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 8))
#else
#define widen(x) __builtin_convertvector((x), vi8)
#endif

/* Half h of vector v of the products (n_dk + alpha) c_k (a macro: a
 * function that returns a vector changes its calling convention with the
 * target). */
#define PRODUCT(nd, cw, v, h, va)                                                                  \
    ((__builtin_convertvector(widen(*(const vu8 *)((nd) + (v) * DLANES + (h) * 8)), vf8) + (va)) * \
     *(const vf8 *)((cw) + (v) * DLANES + (h) * 8))

/* One step of the running sums across the 16 lanes (lo, hi): lane i adds
 * lane i - S, both halves from the values before the step; in the low
 * half lanes below S add a zero, in the high half lane 8 + i - S of the
 * 16 (lo then hi) is index 8 + i - S of the pair (lo, hi) for both. */
#define SCAN_STEP(lo, hi, ...)                                                                     \
    do {                                                                                           \
        const vf8 zero_ = {0};                                                                     \
        vf8 l_ = (lo) + __builtin_shufflevector(zero_, (lo), __VA_ARGS__);                         \
        vf8 h_ = (hi) + __builtin_shufflevector((lo), (hi), __VA_ARGS__);                          \
        (lo) = l_;                                                                                 \
        (hi) = h_;                                                                                 \
    } while (0)

static inline __attribute__((always_inline)) int64_t
dense_run(struct lda_shard *s, int b, const struct lda_opts *o, struct lda_wk *wk, int64_t *nk,
          int64_t *nk_delta, struct ptm_rng *g)
{
    const int32_t K = s->K;
    const int32_t nv = (int32_t)(dense_len(K) / DLANES);
    const int32_t lanes = K < DLANES ? K : DLANES;
    const double alpha = o->alpha, beta = o->beta, wbeta = (double)s->nwords * beta;
    double *restrict inv = s->sc_s;              /* 1 / (n_k + W beta) */
    float *restrict cw = s->sc_f;                /* (n_wk + beta) / (n_k + W beta), 0 past K */
    float *restrict cum = s->sc_f + nv * DLANES; /* by lane, running sums down the vectors */
    int32_t *restrict z = s->z;
    const struct lda_tok *restrict tok = s->tok;
    const int32_t end = s->wptr[s->bw[b + 1]];
    const int lines = row_lines(K);
    const bool sparse_docs = s->sparse_docs;
    const vf8 va = (vf8){0} + (float)alpha;
    int64_t changed = 0;
    for (int32_t k = 0; k < K; k++)
        inv[k] = 1 / ((double)nk[k] + wbeta);
    for (int32_t k = K; k < nv * DLANES; k++)
        cw[k] = 0;
    for (int64_t i = s->bw[b]; i < s->bw[b + 1]; i++) {
        int32_t *restrict nw = wk_open(wk, s->wlist[i], s->sc_row);
        for (int32_t k = 0; k < K; k++)
            cw[k] = (float)((nw[k] + beta) * inv[k]);
        for (int32_t j = s->wptr[i]; j < s->wptr[i + 1]; j++) {
            if (j + PF < end) {
                const struct lda_tok ahead = tok[j + PF];
                __builtin_prefetch(z + ahead.pos, 1);
                if (sparse_docs) {
                    __builtin_prefetch(&s->dnzn[ahead.doc]);
                    __builtin_prefetch(s->dnz + s->dnzp[ahead.doc]);
                    __builtin_prefetch(s->dnc + s->dnzp[ahead.doc]);
                } else {
                    const char *row = (const char *)(s->ndk + (int64_t)ahead.doc * K);
                    for (int l = 0; l < lines; l++)
                        __builtin_prefetch(row + 64 * l);
                }
            }
            const int32_t d = tok[j].doc, pos = tok[j].pos;
            uint16_t *restrict nd = doc_open(s, d);
            const int32_t old = z[pos];
            nd[old]--;
            nw[old]--;
            nk[old]--;
            inv[old] = 1 / ((double)nk[old] + wbeta);
            cw[old] = (float)((nw[old] + beta) * inv[old]);

            /* Down each lane: cum[v][l] = sum over v' <= v of p(v' DLANES + l);
             * the lanes' totals again in four independent sums (vectors v
             * mod 4), which do not wait for the running sums. */
            vf8 acc_lo = {0}, acc_hi = {0}, t0_lo = {0}, t0_hi = {0}, t1_lo = {0}, t1_hi = {0};
            vf8 t2_lo = {0}, t2_hi = {0}, t3_lo = {0}, t3_hi = {0};
            int32_t v = 0;
            for (; v + 4 <= nv; v += 4) {
                vf8 p0_lo = PRODUCT(nd, cw, v, 0, va), p0_hi = PRODUCT(nd, cw, v, 1, va);
                vf8 p1_lo = PRODUCT(nd, cw, v + 1, 0, va), p1_hi = PRODUCT(nd, cw, v + 1, 1, va);
                vf8 p2_lo = PRODUCT(nd, cw, v + 2, 0, va), p2_hi = PRODUCT(nd, cw, v + 2, 1, va);
                vf8 p3_lo = PRODUCT(nd, cw, v + 3, 0, va), p3_hi = PRODUCT(nd, cw, v + 3, 1, va);
                t0_lo += p0_lo;
                t0_hi += p0_hi;
                t1_lo += p1_lo;
                t1_hi += p1_hi;
                t2_lo += p2_lo;
                t2_hi += p2_hi;
                t3_lo += p3_lo;
                t3_hi += p3_hi;
                acc_lo += p0_lo;
                acc_hi += p0_hi;
                *(vf8 *)(cum + v * DLANES) = acc_lo;
                *(vf8 *)(cum + v * DLANES + 8) = acc_hi;
                acc_lo += p1_lo;
                acc_hi += p1_hi;
                *(vf8 *)(cum + (v + 1) * DLANES) = acc_lo;
                *(vf8 *)(cum + (v + 1) * DLANES + 8) = acc_hi;
                acc_lo += p2_lo;
                acc_hi += p2_hi;
                *(vf8 *)(cum + (v + 2) * DLANES) = acc_lo;
                *(vf8 *)(cum + (v + 2) * DLANES + 8) = acc_hi;
                acc_lo += p3_lo;
                acc_hi += p3_hi;
                *(vf8 *)(cum + (v + 3) * DLANES) = acc_lo;
                *(vf8 *)(cum + (v + 3) * DLANES + 8) = acc_hi;
            }
            for (; v < nv; v++) {
                vf8 p0_lo = PRODUCT(nd, cw, v, 0, va), p0_hi = PRODUCT(nd, cw, v, 1, va);
                t0_lo += p0_lo;
                t0_hi += p0_hi;
                acc_lo += p0_lo;
                acc_hi += p0_hi;
                *(vf8 *)(cum + v * DLANES) = acc_lo;
                *(vf8 *)(cum + v * DLANES + 8) = acc_hi;
            }

            /* The lane: l = the lanes whose running sum across the lanes is
             * at most u, all 16 of them (the padding lanes past K have the
             * whole sum). */
            vf8 tot_lo = (t0_lo + t1_lo) + (t2_lo + t3_lo), tot_hi = (t0_hi + t1_hi) + (t2_hi + t3_hi);
            SCAN_STEP(tot_lo, tot_hi, 7, 8, 9, 10, 11, 12, 13, 14);
            SCAN_STEP(tot_lo, tot_hi, 6, 7, 8, 9, 10, 11, 12, 13);
            SCAN_STEP(tot_lo, tot_hi, 4, 5, 6, 7, 8, 9, 10, 11);
            tot_hi += tot_lo;
            float u = (float)uniform(g) * (lanes > 8 ? tot_hi[lanes - 9] : tot_lo[lanes - 1]);
            vi8 past = (tot_lo <= u) + (tot_hi <= u); /* -1 for each lane at most u */
            past += __builtin_shufflevector(past, past, 4, 5, 6, 7, 0, 1, 2, 3);
            past += __builtin_shufflevector(past, past, 2, 3, 0, 1, 6, 7, 4, 5);
            past += __builtin_shufflevector(past, past, 1, 0, 3, 2, 5, 4, 7, 6);
            int32_t l = -past[0];
            if (l > lanes - 1) /* u at the total or past it, by rounding */
                l = lanes - 1;
            if (l > 0)
                u -= l > 8 ? tot_hi[l - 9] : tot_lo[l - 1];
            /* Down the lane, every vector (the same count for every token):
             * those past K have the lane's whole sum. The lane's total and
             * its last running sum differ by rounding, so u may end past it. */
            int32_t in_lane = (K - l + DLANES - 1) / DLANES, m = 0;
            for (v = 0; v < nv; v++)
                m += cum[v * DLANES + l] <= u;
            if (m > in_lane - 1)
                m = in_lane - 1;
            const int32_t t = m * DLANES + l;

            nd[t]++;
            nw[t]++;
            nk[t]++;
            inv[t] = 1 / ((double)nk[t] + wbeta);
            cw[t] = (float)((nw[t] + beta) * inv[t]);
            /* Without a branch on t: about half the tokens move, so a
             * branch would be mispredicted often, and each miss throws
             * away the next token's work already under way. */
            nk_delta[old]--;
            nk_delta[t]++;
            z[pos] = t;
            changed += t != old;
            doc_close(s, d, old, t);
        }
        wk_close(wk, s->wlist[i], nw);
    }
    s->zw_fresh = false;
    return changed;
}

static int64_t dense_base(struct lda_shard *s, int b, const struct lda_opts *o, struct lda_wk *wk,
                          int64_t *nk, int64_t *nk_delta, struct ptm_rng *g)
{
    return dense_run(s, b, o, wk, nk, nk_delta, g);
}

#ifdef PTM_ISA_X86
static __attribute__((target("avx2"))) int64_t dense_avx2(struct lda_shard *s, int b,
                                                        const struct lda_opts *o,
                                                        struct lda_wk *wk, int64_t *nk,
                                                        int64_t *nk_delta, struct ptm_rng *g)
{
    return dense_run(s, b, o, wk, nk, nk_delta, g);
}

static __attribute__((target("avx512f,avx512vl"))) int64_t dense_avx512(struct lda_shard *s, int b,
                                                             const struct lda_opts *o,
                                                             struct lda_wk *wk, int64_t *nk,
                                                             int64_t *nk_delta, struct ptm_rng *g)
{
    return dense_run(s, b, o, wk, nk, nk_delta, g);
}
#endif

static int64_t sample_dense(struct lda_shard *s, int b, const struct lda_opts *o,
                            struct lda_wk *wk, int64_t *nk, int64_t *nk_delta, struct ptm_rng *g)
{
    enum ptm_isa isa = ptm_isa_pick(o->isa);
    PTM_ASSERT(ptm_isa_has(isa));
#ifdef PTM_ISA_X86
    if (isa == PTM_ISA_AVX512)
        return dense_avx512(s, b, o, wk, nk, nk_delta, g);
    if (isa == PTM_ISA_AVX2)
        return dense_avx2(s, b, o, wk, nk, nk_delta, g);
#endif
    return dense_base(s, b, o, wk, nk, nk_delta, g);
}

int64_t lda_sample(struct lda_shard *s, int b, const struct lda_opts *o, struct lda_wk *wk,
                   int64_t *nk, int64_t *nk_delta, struct ptm_rng *rng)
{
    PTM_ASSERT(b >= 0 && b < s->nblocks);
    PTM_ASSERT(s->sparse_docs || o->sampler != LDA_SAMPLER_SPARSE);
    switch (o->sampler) {
    case LDA_SAMPLER_SPARSE:
        return sample_sparse(s, b, o, wk, nk, nk_delta, rng);
    case LDA_SAMPLER_ALIAS:
        PTM_ASSERT(o->mh_steps >= 1 && o->mh_steps <= LDA_MH_STEPS_MAX);
        return sample_alias(s, b, o, wk, nk, nk_delta, rng);
    case LDA_SAMPLER_PLAIN:
        return sample_plain(s, b, o, wk, nk, nk_delta, rng);
    case LDA_SAMPLER_DENSE:
        return sample_dense(s, b, o, wk, nk, nk_delta, rng);
    }
    PTM_ASSERT(!"unknown sampler");
    return 0;
}

/* ---- log-likelihood ----------------------------------------------------------------- */

static double lgam(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

/* Counts below LGAM_TAB get lgamma(n + prior) - lgamma(prior) from a table
 * made once a call (the same arithmetic, so the same bits as without it):
 * most counts of a sample are small, and an lgamma costs tens of
 * nanoseconds, a lookup one. A zero count adds tab[0] = +0, which leaves
 * the sum as it was, so the loops need no branch on whether a topic is
 * used (a branch that goes either way at random on short documents). */
#define LGAM_TAB 256

static void lgam_table(double prior, double *tab)
{
    const double lp = lgam(prior);
    for (int n = 0; n < LGAM_TAB; n++)
        tab[n] = lgam(n + prior) - lp;
}

static inline double lgam_count(const double *tab, int32_t n, double prior, double lp)
{
    return n < LGAM_TAB ? tab[n] : lgam(n + prior) - lp;
}

double lda_loglik_docs(const struct lda_shard *s, double alpha)
{
    const int32_t K = s->K;
    const double la = lgam(alpha), lka = lgam(K * alpha);
    double tab[LGAM_TAB];
    lgam_table(alpha, tab);
    double sum = 0;
    for (int64_t d = 0; d < s->ndocs; d++) {
        double part = lka - lgam(s->dptr[d + 1] - s->dptr[d] + K * alpha);
        if (s->sparse_docs) {
            const uint16_t *cnt = s->dnc + s->dnzp[d];
            for (int32_t m = 0; m < s->dnzn[d]; m++)
                part += lgam_count(tab, cnt[m], alpha, la);
        } else {
            const uint16_t *nd = s->ndk + d * K;
            for (int32_t k = 0; k < K; k++)
                part += lgam_count(tab, nd[k], alpha, la);
        }
        sum += part;
    }
    return sum;
}

double lda_loglik_words(const struct lda_wk *wk, int64_t lo, int64_t hi, double beta)
{
    const int32_t K = wk->K;
    const double lb = lgam(beta);
    double tab[LGAM_TAB];
    lgam_table(beta, tab);
    double sum = 0;
    for (int64_t w = lo; w < hi; w++) {
        double part = 0;
        if (wk->form == LDA_WK_DENSE) {
            const int32_t *nw = wk->dense + w * K;
            for (int32_t k = 0; k < K; k++)
                part += lgam_count(tab, nw[k], beta, lb);
        } else {
            const struct lda_wk_ent *e = wk->ent + wk->off[w];
            for (int32_t m = 0; m < wk->len[w]; m++)
                part += lgam_count(tab, e[m].n, beta, lb);
        }
        sum += part;
    }
    return sum;
}

double lda_loglik_topics(const int64_t *nk, int32_t K, int64_t W, double beta)
{
    const double wb = (double)W * beta, lwb = lgam(wb);
    double sum = 0;
    for (int32_t k = 0; k < K; k++)
        sum += lwb - lgam((double)nk[k] + wb);
    return sum;
}

void lda_topic_totals(const struct lda_wk *wk, int64_t *nk)
{
    const int32_t K = wk->K;
    for (int64_t w = 0; w < wk->W; w++) {
        if (wk->form == LDA_WK_DENSE) {
            for (int32_t k = 0; k < K; k++)
                nk[k] += wk->dense[w * K + k];
        } else {
            const struct lda_wk_ent *e = wk->ent + wk->off[w];
            for (int32_t m = 0; m < wk->len[w]; m++)
                nk[e[m].k] += e[m].n;
        }
    }
}

/* ---- top words ------------------------------------------------------------------------ */

/* An entry of a topic's heap: a word and its count there. */
struct top_ent {
    int32_t n, w;
};

/* Entry a ranks below entry b: fewer tokens, or as many and a later word. */
static inline bool ranks_below(struct top_ent a, struct top_ent b)
{
    return a.n < b.n || (a.n == b.n && a.w > b.w);
}

/* Restore the heap (lowest-ranked entry at the root) of h[0 .. n) below i. */
static void sift_down(struct top_ent *h, int32_t n, int32_t i)
{
    for (;;) {
        int32_t l = 2 * i + 1, m = i;
        if (l < n && ranks_below(h[l], h[m]))
            m = l;
        if (l + 1 < n && ranks_below(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        struct top_ent tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

int lda_top_words(const struct lda_wk *wk, int32_t n, int32_t *top, int32_t *row)
{
    if (n <= 0)
        return 0;
    const int32_t K = wk->K;
    struct top_ent *heap = ptm_malloc((size_t)K * (size_t)n * sizeof(*heap));
    if (!heap)
        return PTM_ENOMEM;
    /* Every row goes to every topic's heap, so all heaps have one size. */
    int32_t size = 0;
    for (int64_t w = 0; w < wk->W; w++) {
        const int32_t *nw = lda_wk_read(wk, w, row);
        for (int32_t k = 0; k < K; k++) {
            struct top_ent *h = heap + (int64_t)k * n, e = {nw[k], (int32_t)w};
            if (size < n) {
                int32_t i = size;
                h[i] = e;
                while (i > 0 && ranks_below(h[i], h[(i - 1) / 2])) {
                    int32_t p = (i - 1) / 2;
                    struct top_ent tmp = h[i];
                    h[i] = h[p];
                    h[p] = tmp;
                    i = p;
                }
            } else if (ranks_below(h[0], e)) {
                h[0] = e;
                sift_down(h, n, 0);
            }
        }
        lda_wk_done(wk, w, row);
        if (size < n)
            size++;
    }
    /* Heap sort: the lowest-ranked entry goes last. */
    for (int32_t k = 0; k < K; k++) {
        struct top_ent *h = heap + (int64_t)k * n;
        for (int32_t m = size - 1; m > 0; m--) {
            struct top_ent tmp = h[0];
            h[0] = h[m];
            h[m] = tmp;
            sift_down(h, m, 0);
        }
        for (int32_t m = 0; m < n; m++)
            top[(int64_t)k * n + m] = m < size ? h[m].w : -1;
    }
    ptm_free(heap);
    return 0;
}
