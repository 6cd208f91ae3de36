/*
 * gen_lda.h - `ptm gen lda`: synthetic data with a known answer (gen.h
 * says what every generator promises).
 */
#ifndef PTM_GEN_LDA_H
#define PTM_GEN_LDA_H

#include <stdint.h>

struct ptm_gen;
/* `ptm gen lda` (gen.h). */
extern const struct ptm_gen ptm_gen_lda_cmd;

/* Defaults of `ptm gen lda`. */
#define GEN_LDA_DOCS 2000
#define GEN_LDA_WORDS 5000
#define GEN_LDA_TOPICS 20
#define GEN_LDA_LENGTH 100.0
#define GEN_LDA_ALPHA 0.1
#define GEN_LDA_BETA 0.01
/* Limits of the Dirichlet parameters. */
#define GEN_LDA_PRIOR_MIN 1e-6
#define GEN_LDA_PRIOR_MAX 1e6
/* Most topics; topics x words is at most GEN_LDA_CELLS_MAX. */
#define GEN_LDA_TOPICS_MAX 100000
#define GEN_LDA_CELLS_MAX ((int64_t)1 << 34)

/* Documents drawn by LDA's generative process: topic k is a distribution
 * phi_k ~ Dirichlet(beta, ..., beta) over the words, document d has topic
 * mix theta_d ~ Dirichlet(alpha, ..., alpha) and 1 + Poisson(length - 1)
 * tokens (so every document has one, and the mean is length); each token
 * draws a topic z from theta_d and then a word from phi_z. phi, theta, the
 * lengths and the tokens come from separate streams of the seed. */
struct gen_lda_opts {
    uint64_t seed;
    int64_t docs;       /* 1 .. INT32_MAX */
    int64_t words;      /* 1 .. INT32_MAX */
    int64_t topics;     /* 1 .. GEN_LDA_TOPICS_MAX; topics * words <= GEN_LDA_CELLS_MAX */
    double length;      /* mean tokens a document, [1, 1e9] */
    double alpha, beta; /* [GEN_LDA_PRIOR_MIN, GEN_LDA_PRIOR_MAX] */
};

void ptm_gen_lda_defaults(struct gen_lda_opts *o);

/* Write into DIR (which must exist):
 *   docword.txt          UCI bag-of-words: lines D, W, NNZ, then "doc word
 *                        count" (1-based), by document then word
 *   vocab.txt            W words "w1" .. "wW", zero-padded to one width
 *                        ("w0017"): line k names word k
 *   topics_true.tsv      phi: topics lines of W probabilities, tab-separated
 *   doc_topics_true.tsv  theta: D lines of K probabilities, tab-separated
 *   info.tsv             "key<TAB>value" lines: the options and the counts
 *                        (tokens, nnz)
 * Probabilities have 9 significant digits, and the tokens are drawn from
 * these rounded values (which sum to 1 within 1e-8). Returns as
 * ptm_gen_mf(). */
int ptm_gen_lda(const struct gen_lda_opts *o, const char *dir, const char **file);

#endif
