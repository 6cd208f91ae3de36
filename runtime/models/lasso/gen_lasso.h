/*
 * gen_lasso.h - `ptm gen lasso`: synthetic data with a known answer (gen.h
 * says what every generator promises).
 */
#ifndef PTM_GEN_LASSO_H
#define PTM_GEN_LASSO_H

#include <stdbool.h>
#include <stdint.h>

struct ptm_gen;
/* `ptm gen lasso` (gen.h). */
extern const struct ptm_gen ptm_gen_lasso_cmd;

/* Defaults of `ptm gen lasso`; its help text (gen_lasso.c) says them too. */
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
 * x_i beta* + noise * N(0, 1) + offset. With `nonnegative` every value is
 * replaced by its absolute value (columns then are not centred, as counts
 * and tf-idf are not; the correlation within a group falls with it), and
 * `offset` gives the labels a mean that a model without an intercept must
 * fit through the coefficients. Unless `grouped`, the columns are then
 * renumbered by a uniform permutation of all but the last (which stays
 * last), in X and beta* alike, so that a group's columns are spread over
 * X as the features of real data are, and a schedule that takes columns
 * in order meets no more correlation than one that takes them at random.
 * X, beta*, the noise and the permutation come from separate streams of
 * the seed: X does not depend on nonzeros or noise. */
struct gen_lasso_opts {
    uint64_t seed;
    int64_t rows, cols; /* 1 .. INT32_MAX each */
    double density;     /* (0, 1] */
    int64_t group;      /* >= 1; more than cols makes one group */
    double corr;        /* [0, 1] */
    int64_t nonzeros;   /* 0 .. cols */
    double noise;       /* >= 0, finite */
    bool grouped;       /* each group in consecutive columns (else spread) */
    bool nonnegative;   /* |x| for every value */
    double offset;      /* added to every label; finite */
    int64_t test;       /* held-out rows (DIR/test.svm), 0 .. INT32_MAX; 0: none */
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

#endif
