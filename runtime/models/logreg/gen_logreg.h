/*
 * gen_logreg.h - `ptm gen logreg`: synthetic data with a known answer (gen.h
 * says what every generator promises).
 */
#ifndef PTM_GEN_LOGREG_H
#define PTM_GEN_LOGREG_H

#include <stdbool.h>
#include <stdint.h>

struct ptm_gen;
/* `ptm gen logreg` (gen.h). */
extern const struct ptm_gen ptm_gen_logreg_cmd;

/* Defaults of `ptm gen logreg`. */
#define GEN_LOGREG_ROWS 10000
#define GEN_LOGREG_COLS 1000
#define GEN_LOGREG_DENSITY 0.05
#define GEN_LOGREG_NONZEROS 100
/* The standard deviation the margin x . w* is scaled to. */
#define GEN_LOGREG_MARGIN 2.0
/* --hard: column j's popularity is proportional to 1 / (j + 1)^ZIPF; a
 * drawn column brings its partner (j xor 1) with probability PARTNER; the
 * mean margin is BIAS (about one row in four positive). */
#define GEN_LOGREG_ZIPF 1.0
#define GEN_LOGREG_PARTNER 0.8
#define GEN_LOGREG_BIAS (-1.5)

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
 * does not depend on nonzeros.
 *
 * hard: data shaped as text is (tf-idf rows), on which first-order
 * methods need tuning: a row's columns are drawn by popularity
 * (GEN_LOGREG_ZIPF), each drawn column followed by its partner column
 * with probability GEN_LOGREG_PARTNER (a pair of columns that nearly
 * always appear together, with values within 10% of each other: strongly
 * correlated), values positive (1 + |N(0, 1)|, times log(1 + cols / (j +
 * 1)), rarer columns weigh more), each row scaled to unit norm before
 * rounding; the margin is x . w* + b, w*'s scale and b chosen from a
 * first pass over the same rows so that x . w* has a standard deviation
 * of about GEN_LOGREG_MARGIN and the margins a mean of GEN_LOGREG_BIAS
 * (b is in info.tsv). */
struct gen_logreg_opts {
    uint64_t seed;
    int64_t rows, cols; /* 1 .. INT32_MAX each */
    double density;     /* (0, 1] */
    int64_t nonzeros;   /* 0 .. cols */
    int64_t test;       /* held-out rows (DIR/test.svm), 0 .. INT32_MAX; 0: none */
    bool hard;          /* text-like rows (see above) */
};

void ptm_gen_logreg_defaults(struct gen_logreg_opts *o);

/* Write into DIR (which must exist):
 *   train.svm   libsvm: "label idx:val ...", labels 1 or -1, 1-based indices
 *   w_true.tsv  w*, one weight a line
 *   info.tsv    "key<TAB>value" lines: the options, the bias b (0 unless
 *               hard), the counts (nnz,
 *               positives), mean_sigmoid (the mean of sigmoid(x . w*) over
 *               the rows: the expected share of +1) and logloss_true (the
 *               mean logistic loss of w* on these labels)
 * Weights are written in the shortest form that reads back to the
 * generator's double, matrix values as exact decimals. Returns as
 * ptm_gen_mf(). */
int ptm_gen_logreg(const struct gen_logreg_opts *o, const char *dir, const char **file);

#endif
