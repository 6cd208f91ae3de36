/*
 * gen_mf.h - `ptm gen mf`: synthetic data with a known answer (gen.h
 * says what every generator promises).
 */
#ifndef PTM_GEN_MF_H
#define PTM_GEN_MF_H

#include <stdint.h>

struct ptm_gen;
/* `ptm gen mf` (gen.h). */
extern const struct ptm_gen ptm_gen_mf_cmd;

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

#endif
