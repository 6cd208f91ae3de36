/*
 * gen_lda.c - `ptm gen lda`: documents drawn from an LDA topic model, with
 * the true topics and topic mixes (gen.h).
 *
 * DESIGN: tokens are drawn one by one as the generative process says, the
 * topic from the document's mix and the word from the topic, each from an
 * alias table (gen_impl.h): O(1) a token, O(K) per document and O(K W)
 * once for the topics. A document's tokens are counted
 * in a dense array of W counters with a list of the words touched, which
 * becomes the document's sorted entries. The docword header needs the
 * number of entries before the first entry, so the entries (8 bytes each,
 * at most one a token) are kept until all documents are drawn; the topic
 * mixes are written as they are drawn. Probabilities are written with 9
 * significant digits (printf and its round trip would take most of the
 * time), and the tokens are drawn from the rounded values, so the files
 * hold the exact distributions the tokens came from.
 */
#include "gen_lda.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gen.h"
#include "gen_impl.h"
#include "ptm.h"

enum { STREAM_PHI = 1, STREAM_THETA, STREAM_LENGTH, STREAM_TOKENS };

void ptm_gen_lda_defaults(struct gen_lda_opts *o)
{
    *o = (struct gen_lda_opts){
        .seed = 0,
        .docs = GEN_LDA_DOCS,
        .words = GEN_LDA_WORDS,
        .topics = GEN_LDA_TOPICS,
        .length = GEN_LDA_LENGTH,
        .alpha = GEN_LDA_ALPHA,
        .beta = GEN_LDA_BETA,
    };
}

static bool prior_ok(double a)
{
    return a >= GEN_LDA_PRIOR_MIN && a <= GEN_LDA_PRIOR_MAX;
}

static bool opts_ok(const struct gen_lda_opts *o)
{
    return o->docs >= 1 && o->docs <= INT32_MAX && o->words >= 1 && o->words <= INT32_MAX &&
           o->topics >= 1 && o->topics <= GEN_LDA_TOPICS_MAX &&
           o->topics * o->words <= GEN_LDA_CELLS_MAX && o->length >= 1 && o->length <= 1e9 &&
           prior_ok(o->alpha) && prior_ok(o->beta);
}

/* ---- writing ------------------------------------------------------------------- */

/* The rows of p (n x m) as tab-separated lines of probabilities with 9
 * significant digits; p becomes what the file says. */
static void put_rows(struct gen_out *o, double *p, int64_t n, int64_t m)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < m; k++) {
            char *s = gen_out_room(o);
            int len = gen_fmt_sig(s, &p[i * m + k]);
            s[len] = k + 1 < m ? '\t' : '\n';
            o->len += (size_t)len + 1;
        }
}

static int write_vocab(struct gen_out *o, int64_t words)
{
    int width = 1;
    for (int64_t w = words; w >= 10; w /= 10)
        width++;
    for (int64_t w = 1; w <= words; w++) {
        char *s = gen_out_room(o);
        int len = snprintf(s, GEN_OUT_ITEM, "w%0*lld\n", width, (long long)w);
        o->len += (size_t)len;
    }
    return gen_out_finish(o);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* ---- the documents --------------------------------------------------------------- */

/* The documents' entries: words and counts, by document then word. */
struct docs {
    int64_t *start; /* docs + 1; document d is start[d] .. start[d + 1] - 1 */
    int32_t *word, *count;
    int64_t nnz, tokens;
};

/* What drawing the documents needs, allocated once. */
struct work {
    double *phi;             /* topics x words; written, then the topics' alias tables */
    struct gen_alias *topic; /* topics */
    int32_t *topic_alias;    /* topics x words */
    double *theta;           /* topics */
    struct gen_alias mix;    /* the document's topic mix */
    int32_t *small, *large;  /* max(words, topics) */
    int32_t *cnt;            /* words; 0 between documents */
    int32_t *touched;        /* words touched in the document */
    int64_t *len;            /* docs */
};

/* Draw every document: its topic mix (written to fmix), its tokens
 * (counted into d). */
static void draw_docs(const struct gen_lda_opts *o, struct work *w, struct docs *d,
                      struct gen_out *fmix)
{
    struct gen_rng gt, gz;
    gen_rng_seed(&gt, o->seed, STREAM_THETA);
    gen_rng_seed(&gz, o->seed, STREAM_TOKENS);
    int64_t K = o->topics, W = o->words, e = 0;
    for (int64_t doc = 0; doc < o->docs; doc++) {
        gen_rng_dirichlet(&gt, NULL, o->alpha, K, w->theta);
        put_rows(fmix, w->theta, 1, K);
        gen_alias_build(&w->mix, w->theta, w->small, w->large);
        int64_t nt = 0;
        for (int64_t t = 0; t < w->len[doc]; t++) {
            int32_t z = gen_alias_draw(&w->mix, &gz);
            int32_t word = gen_alias_draw(&w->topic[z], &gz);
            if (w->cnt[word]++ == 0)
                w->touched[nt++] = word;
        }
        d->start[doc] = e;
        if (nt * 8 > W) {
            for (int64_t x = 0; x < W; x++)
                if (w->cnt[x]) {
                    d->word[e] = (int32_t)x;
                    d->count[e++] = w->cnt[x];
                    w->cnt[x] = 0;
                }
        } else {
            qsort(w->touched, (size_t)nt, sizeof(*w->touched), cmp_i32);
            for (int64_t k = 0; k < nt; k++) {
                int32_t x = w->touched[k];
                d->word[e] = x;
                d->count[e++] = w->cnt[x];
                w->cnt[x] = 0;
            }
        }
    }
    d->start[o->docs] = e;
    d->nnz = e;
}

static int write_docword(struct gen_out *o, const struct gen_lda_opts *op, const struct docs *d)
{
    char line[96];
    snprintf(line, sizeof(line), "%lld\n%lld\n%lld\n", (long long)op->docs, (long long)op->words,
             (long long)d->nnz);
    gen_out_puts(o, line);
    for (int64_t doc = 0; doc < op->docs; doc++)
        for (int64_t k = d->start[doc]; k < d->start[doc + 1]; k++) {
            char *p = gen_out_room(o), *s = p;
            s += gen_fmt_uint(s, (uint64_t)doc + 1);
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)d->word[k] + 1);
            *s++ = ' ';
            s += gen_fmt_uint(s, (uint64_t)d->count[k]);
            *s++ = '\n';
            o->len += (size_t)(s - p);
        }
    return gen_out_finish(o);
}

static int write_info(struct gen_out *o, const struct gen_lda_opts *op, const struct docs *d)
{
    gen_out_kv_str(o, "model", "lda");
    gen_out_kv_int(o, "seed", (int64_t)op->seed);
    gen_out_kv_int(o, "docs", op->docs);
    gen_out_kv_int(o, "words", op->words);
    gen_out_kv_int(o, "topics", op->topics);
    gen_out_kv_num(o, "length", op->length);
    gen_out_kv_num(o, "alpha", op->alpha);
    gen_out_kv_num(o, "beta", op->beta);
    gen_out_kv_int(o, "tokens", d->tokens);
    gen_out_kv_int(o, "nnz", d->nnz);
    return gen_out_finish(o);
}

enum { F_TOPICS, F_MIX, F_VOCAB, F_DOCWORD, F_INFO, NFILES };

static const char *const file_name[NFILES] = {
    [F_TOPICS] = "topics_true.tsv", [F_MIX] = "doc_topics_true.tsv", [F_VOCAB] = "vocab.txt",
    [F_DOCWORD] = "docword.txt",    [F_INFO] = "info.tsv",
};

int ptm_gen_lda(const struct gen_lda_opts *o, const char *dir, const char **file)
{
    if (file)
        *file = NULL;
    if (!opts_ok(o))
        return PTM_EINVAL;
    int64_t K = o->topics, W = o->words, D = o->docs, big = K > W ? K : W;
    struct gen_out f[NFILES];
    memset(f, 0, sizeof(f));
    struct work w;
    memset(&w, 0, sizeof(w));
    struct docs d;
    memset(&d, 0, sizeof(d));
    int rc = PTM_ENOMEM, at = -1;

    /* The lengths first: they bound the entries. */
    w.len = ptm_malloc((size_t)D * sizeof(*w.len));
    if (!w.len)
        goto out;
    struct gen_rng g;
    gen_rng_seed(&g, o->seed, STREAM_LENGTH);
    for (int64_t doc = 0; doc < D; doc++) {
        w.len[doc] = 1 + gen_rng_poisson(&g, o->length - 1);
        d.tokens += w.len[doc];
    }
    int64_t max_nnz = d.tokens < D * W ? d.tokens : D * W;
    w.phi = ptm_malloc((size_t)(K * W) * sizeof(*w.phi));
    w.topic = ptm_malloc((size_t)K * sizeof(*w.topic));
    w.topic_alias = ptm_malloc((size_t)(K * W) * sizeof(*w.topic_alias));
    w.theta = ptm_malloc((size_t)K * sizeof(*w.theta));
    w.mix.prob = ptm_malloc((size_t)K * sizeof(*w.mix.prob));
    w.mix.alias = ptm_malloc((size_t)K * sizeof(*w.mix.alias));
    w.small = ptm_malloc((size_t)big * sizeof(*w.small));
    w.large = ptm_malloc((size_t)big * sizeof(*w.large));
    w.cnt = ptm_malloc((size_t)W * sizeof(*w.cnt));
    w.touched = ptm_malloc((size_t)W * sizeof(*w.touched));
    d.start = ptm_malloc((size_t)(D + 1) * sizeof(*d.start));
    d.word = ptm_malloc((size_t)max_nnz * sizeof(*d.word));
    d.count = ptm_malloc((size_t)max_nnz * sizeof(*d.count));
    if (!w.phi || !w.topic || !w.topic_alias || !w.theta || !w.mix.prob || !w.mix.alias ||
        !w.small || !w.large || !w.cnt || !w.touched || !d.start || !d.word || !d.count)
        goto out;
    memset(w.cnt, 0, (size_t)W * sizeof(*w.cnt));
    w.mix.n = K;

    /* The topics: written, then turned into alias tables in place. */
    gen_rng_seed(&g, o->seed, STREAM_PHI);
    for (int64_t k = 0; k < K; k++)
        gen_rng_dirichlet(&g, NULL, o->beta, W, w.phi + k * W);
    rc = gen_out_open(&f[at = F_TOPICS], dir, file_name[F_TOPICS]);
    if (rc)
        goto out;
    put_rows(&f[F_TOPICS], w.phi, K, W);
    rc = gen_out_finish(&f[F_TOPICS]);
    if (rc)
        goto out;
    for (int64_t k = 0; k < K; k++) {
        w.topic[k] = (struct gen_alias){w.phi + k * W, w.topic_alias + k * W, W};
        gen_alias_build(&w.topic[k], w.phi + k * W, w.small, w.large);
    }

    rc = gen_out_open(&f[at = F_MIX], dir, file_name[F_MIX]);
    if (rc)
        goto out;
    draw_docs(o, &w, &d, &f[F_MIX]);
    rc = gen_out_finish(&f[F_MIX]);
    if (!rc)
        rc = gen_out_open(&f[at = F_VOCAB], dir, file_name[F_VOCAB]);
    if (!rc)
        rc = write_vocab(&f[F_VOCAB], W);
    if (!rc)
        rc = gen_out_open(&f[at = F_DOCWORD], dir, file_name[F_DOCWORD]);
    if (!rc)
        rc = write_docword(&f[F_DOCWORD], o, &d);
    if (!rc)
        rc = gen_out_open(&f[at = F_INFO], dir, file_name[F_INFO]);
    if (!rc)
        rc = write_info(&f[F_INFO], o, &d);
    for (int k = 0; k < NFILES && !rc; k++)
        rc = gen_out_rename(&f[at = k]);
out:
    if (rc == PTM_EIO && file && at >= 0)
        *file = file_name[at];
    /* No temporary file is left behind. */
    for (int k = 0; k < NFILES; k++)
        gen_out_release(&f[k]);
    ptm_free(w.phi);
    ptm_free(w.topic);
    ptm_free(w.topic_alias);
    ptm_free(w.theta);
    ptm_free(w.mix.prob);
    ptm_free(w.mix.alias);
    ptm_free(w.small);
    ptm_free(w.large);
    ptm_free(w.cnt);
    ptm_free(w.touched);
    ptm_free(w.len);
    ptm_free(d.start);
    ptm_free(d.word);
    ptm_free(d.count);
    return rc;
}

/* ---- `ptm gen lda` ----------------------------------------------------------- */

enum { FLAG_DOCS, FLAG_WORDS, FLAG_TOPICS, FLAG_LENGTH, FLAG_ALPHA, FLAG_BETA };

static const struct gen_flag flags[] = {
    [FLAG_DOCS] = GEN_INT32("--docs", 1),
    [FLAG_WORDS] = GEN_INT32("--words", 1),
    [FLAG_TOPICS] = GEN_WHOLE("--topics", 1, GEN_LDA_TOPICS_MAX, "a whole number from 1 to 100000"),
    [FLAG_LENGTH] = GEN_REAL("--length", 1, 1e9, false, false, "a number from 1 to 1e9"),
    [FLAG_ALPHA] = GEN_REAL("--alpha", GEN_LDA_PRIOR_MIN, GEN_LDA_PRIOR_MAX, false, false,
             "a number from 1e-6 to 1e6"),
    [FLAG_BETA] = GEN_REAL("--beta", GEN_LDA_PRIOR_MIN, GEN_LDA_PRIOR_MAX, false, false,
             "a number from 1e-6 to 1e6"),
    GEN_FLAGS_END,
};

static const char *check(const struct gen_args *a, char *buf, size_t len)
{
    long long words = a->given[FLAG_WORDS] ? a->whole[FLAG_WORDS] : GEN_LDA_WORDS;
    long long topics = a->given[FLAG_TOPICS] ? a->whole[FLAG_TOPICS] : GEN_LDA_TOPICS;
    if (topics * words > GEN_LDA_CELLS_MAX) {
        snprintf(buf, len,
                 "gen lda: --topics %lld x --words %lld is more than 2^34 topic-word pairs",
                 topics, words);
        return buf;
    }
    return NULL;
}

static int run(const struct gen_args *a, const char *dir, const char **file)
{
    struct gen_lda_opts o;
    ptm_gen_lda_defaults(&o);
    o.seed = a->seed;
    GEN_ARG(a, FLAG_DOCS, whole, o.docs);
    GEN_ARG(a, FLAG_WORDS, whole, o.words);
    GEN_ARG(a, FLAG_TOPICS, whole, o.topics);
    GEN_ARG(a, FLAG_LENGTH, real, o.length);
    GEN_ARG(a, FLAG_ALPHA, real, o.alpha);
    GEN_ARG(a, FLAG_BETA, real, o.beta);
    return ptm_gen_lda(&o, dir, file);
}

static const struct gen_file files[] = {
    {"docword.txt", NULL}, {"vocab.txt", NULL}, {"topics_true.tsv", NULL},
    {"doc_topics_true.tsv", NULL}, {"info.tsv", NULL},
    {NULL, NULL},
};

const struct ptm_gen ptm_gen_lda_cmd = {
    .summary = "documents drawn from an LDA topic model",
    .usage =
        "       ptm gen lda --seed N --out DIR [--docs D] [--words W] [--topics K]\n"
        "                   [--length L] [--alpha A] [--beta B]\n",
    .help =
        "lda: documents from the LDA generative process, UCI bag-of-words.\n"
        "  DIR/docword.txt          D, W and NNZ lines, then 'doc word count'\n"
        "  DIR/vocab.txt            the words w1 .. wW (zero-padded), one a line\n"
        "  DIR/topics_true.tsv      the topics: K lines of W word probabilities\n"
        "  DIR/doc_topics_true.tsv  the topic mixes: D lines of K probabilities\n"
        "  DIR/info.tsv             the options, tokens and entries\n"
        "Each topic is a Dirichlet(B) distribution over the words, each\n"
        "document's topic mix Dirichlet(A); a document has 1 + Poisson(L - 1)\n"
        "tokens, each drawn from a topic drawn from the document's mix.\n"
        "\n"
        "  --docs D       documents (default 2000)\n"
        "  --words W      words in the vocabulary (default 5000)\n"
        "  --topics K     topics, 1 .. 100000 (default 20)\n"
        "  --length L     mean tokens in a document, 1 .. 1e9 (default 100)\n"
        "  --alpha A      Dirichlet prior of the mixes, 1e-6 .. 1e6 (default 0.1)\n"
        "  --beta B       Dirichlet prior of the topics, 1e-6 .. 1e6 (default 0.01)\n",
    .flags = flags,
    .check = check,
    .run = run,
    .files = files,
};
