/*
 * gen.h - synthetic data sets with a known answer (`ptm gen MODEL`).
 *
 * Every generator is deterministic: the same options and seed give the
 * same bytes on every run, from the PRNG of rng.h (splitmix64 seeding
 * xoshiro256**), never rand(). Files are written to a temporary
 * name in the target directory and renamed into place, so each file is
 * either absent, the old one, or the whole new one.
 */
#ifndef PTM_GEN_H
#define PTM_GEN_H

#include <stdint.h>

/* Defaults of `ptm gen lasso`; its help text (cli/ptm.c) says them too. */
#define GEN_LASSO_ROWS 1000
#define GEN_LASSO_COLS 10000
#define GEN_LASSO_DENSITY 0.01
#define GEN_LASSO_GROUP 10
#define GEN_LASSO_CORR 0.5
#define GEN_LASSO_NONZEROS 10
#define GEN_LASSO_NOISE 0.1

/* A Lasso problem y = X beta* + noise with correlated feature groups.
 *
 * Columns come in groups of `group` consecutive columns (the last group
 * may be smaller). Each row draws round(density * ngroups) groups
 * uniformly without replacement (randomized rounding of the fraction), so
 * every column is non-zero in a row with probability `density`; in a drawn
 * group every column is non-zero, x_ij = sqrt(corr) f + sqrt(1 - corr) e_ij
 * with f (the group's latent factor in that row) and e_ij standard normal,
 * rounded to a multiple of 10^-6 (an entry that rounds to 0 is left out).
 * Two columns of a group then have correlation corr, columns of different
 * groups none. The last row always draws the last group, so that the file
 * has `cols` columns. beta* has `nonzeros` non-zero coefficients on columns
 * drawn uniformly, each +-(0.5 + U[0, 1)); the label is
 * x_i beta* + noise * N(0, 1). X, beta* and the noise come from separate
 * streams of the seed: X does not depend on nonzeros or noise. */
struct gen_lasso_opts {
    uint64_t seed;
    int64_t rows, cols; /* 1 .. INT32_MAX each */
    double density;     /* (0, 1] */
    int64_t group;      /* >= 1; more than cols makes one group */
    double corr;        /* [0, 1] */
    int64_t nonzeros;   /* 0 .. cols */
    double noise;       /* >= 0, finite */
};

/* The defaults above, seed 0. */
void ptm_gen_lasso_defaults(struct gen_lasso_opts *o);

/* Write DIR/lasso.svm (libsvm: "label idx:val ...", 1-based indices,
 * rows in order) and DIR/beta_true.tsv (beta*, one coefficient a line).
 * Labels and coefficients are written in the shortest form that strtod()
 * reads back to the same double, matrix values as exact decimals, so the
 * data readers get the generator's doubles bit for bit. DIR must exist.
 * Returns 0, PTM_EINVAL (options out of range), PTM_ENOMEM, or PTM_EIO
 * with errno telling why (nothing is left of the file being written). */
int ptm_gen_lasso(const struct gen_lasso_opts *o, const char *dir);

/* ---- matrix factorization ---------------------------------------------- */

/* Defaults of `ptm gen mf`. */
#define GEN_MF_ROWS 2000
#define GEN_MF_COLS 1000
#define GEN_MF_RANK 10
#define GEN_MF_DENSITY 0.05
#define GEN_MF_TEST 0.1
#define GEN_MF_NOISE 0.1
/* Largest rank. */
#define GEN_MF_RANK_MAX 1000

/* Ratings R = W H' + noise, observed on a uniformly random set of cells.
 *
 * W (rows x rank) and H (cols x rank) have independent N(0, 1/sqrt(rank))
 * entries rounded to multiples of 10^-6, so that w_i . h_j has mean 0 and
 * variance about 1. Exactly `ratings` distinct cells are observed, every
 * set of that size being equally likely (ratings = 0: density * rows *
 * cols, rounded, at least 1). Each observed rating is w_i . h_j +
 * noise * N(0, 1), rounded to a multiple of 10^-6. Exactly round(test *
 * ratings) of them, drawn uniformly, are held out for the test file; the
 * others are the training file. W, H, the cells, the split and the noise
 * come from separate streams of the seed: the cells do not depend on the
 * rank or the noise, W and H not on the cells. */
struct gen_mf_opts {
    uint64_t seed;
    int64_t rows, cols; /* 1 .. INT32_MAX each */
    int64_t rank;       /* 1 .. GEN_MF_RANK_MAX */
    int64_t ratings;    /* 0 .. rows * cols; 0: from density */
    double density;     /* (0, 1]; used when ratings is 0 */
    double test;        /* [0, 1): share held out */
    double noise;       /* 0 .. 1e6 */
};

void ptm_gen_mf_defaults(struct gen_mf_opts *o);
/* The number of ratings o asks for (from ratings or density). */
int64_t ptm_gen_mf_count(const struct gen_mf_opts *o);

/* Write into DIR (which must exist):
 *   ratings.mtx  the training ratings, MatrixMarket coordinate real general,
 *                rows x cols, entries in row-major order
 *   test.mtx     the held-out ratings, the same way (possibly no entries)
 *   W_true.tsv   W, one row a line, values separated by tabs
 *   H_true.tsv   H, the same way
 *   info.tsv     "key<TAB>value" lines: the options, the counts, noise (the
 *                sigma asked for) and train_rmse_true, test_rmse_true (the
 *                RMSE of the true W H' on each file: the floor a fitted
 *                model can reach)
 * Returns 0, PTM_EINVAL (options out of range), PTM_ENOMEM, or PTM_EIO with
 * errno telling why and *file (when file is not NULL) the name of the file
 * that could not be written; nothing is left of a file not written whole. */
int ptm_gen_mf(const struct gen_mf_opts *o, const char *dir, const char **file);

/* ---- LDA topic model ------------------------------------------------------ */

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

/* ---- logistic regression -------------------------------------------------- */

/* Defaults of `ptm gen logreg`. */
#define GEN_LOGREG_ROWS 10000
#define GEN_LOGREG_COLS 1000
#define GEN_LOGREG_DENSITY 0.05
#define GEN_LOGREG_NONZEROS 100
/* The standard deviation the margin x . w* is scaled to. */
#define GEN_LOGREG_MARGIN 2.0

/* Binary classification with P(y = +1 | x) = 1 / (1 + exp(-x . w*)).
 *
 * Each row has round(density * cols) non-zeros (randomized rounding of the
 * fraction) on columns drawn uniformly without replacement, standard
 * normal values rounded to multiples of 10^-6 (an entry that rounds to 0 is
 * left out); the last row always holds the last column, so that the file
 * has `cols` columns. w* has `nonzeros` non-zero weights on columns drawn
 * uniformly, each N(0, s^2) with s = GEN_LOGREG_MARGIN / sqrt(max(1,
 * nonzeros * density)), so that x . w* has a standard deviation of about
 * GEN_LOGREG_MARGIN. The label is +1 with probability sigmoid(x . w*),
 * else -1. X, w* and the labels come from separate streams of the seed: X
 * does not depend on nonzeros. */
struct gen_logreg_opts {
    uint64_t seed;
    int64_t rows, cols; /* 1 .. INT32_MAX each */
    double density;     /* (0, 1] */
    int64_t nonzeros;   /* 0 .. cols */
};

void ptm_gen_logreg_defaults(struct gen_logreg_opts *o);

/* Write into DIR (which must exist):
 *   train.svm   libsvm: "label idx:val ...", labels 1 or -1, 1-based indices
 *   w_true.tsv  w*, one weight a line
 *   info.tsv    "key<TAB>value" lines: the options, the counts (nnz,
 *               positives), mean_sigmoid (the mean of sigmoid(x . w*) over
 *               the rows: the expected share of +1) and logloss_true (the
 *               mean logistic loss of w* on these labels)
 * Weights are written in the shortest form that reads back to the
 * generator's double, matrix values as exact decimals. Returns as
 * ptm_gen_mf(). */
int ptm_gen_logreg(const struct gen_logreg_opts *o, const char *dir, const char **file);

/* ---- number formatting (for the generators and their tests) ------------- */

/* v in the shortest of %.15g, %.16g, %.17g that strtod() reads back to v,
 * NUL-terminated; returns its length. buf holds at least 32 bytes. v is
 * finite. */
int gen_fmt_double(char *buf, double v);
/* The decimal m / 10^q (0 <= q <= 17) exactly, without trailing zeros
 * ("-1.5", "0.000001", "3"); strtod() of it is (double)m / 10^q when
 * |m| < 2^53. Returns its length; buf holds at least 48 bytes. */
int gen_fmt_fixed(char *buf, int64_t m, int q);

#endif
