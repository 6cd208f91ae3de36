/*
 * expr_env.h - what expressions read from data: the data half of struct
 * prog_env (compiler/prog.h) over loaded data sets.
 *
 * The scheduler evaluates depend predicates, priorities and costs with
 * prog_eval(); the callbacks here answer rows(X), cols(X), nnz(col(X, j)),
 * nnz(row(X, i)), X[i, j], y[i], corr(col(X, i), col(Y, j)) and
 * cos(col(X, i), col(Y, j)), where a vector y may stand for a column.
 * Indices
 * in expressions count from 1 (spec/language.md); a bad index gives NaN
 * and is recorded (struct expr_fault) for the engine to report.
 * Parameter values and delta() belong to the engine, which fills in those
 * two callbacks itself.
 */
#ifndef PTM_EXPR_ENV_H
#define PTM_EXPR_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "data.h"
#include "prog.h"

/* Per data source: the data set (NULL when absent), and for a vector made
 * of another's labels the index of that other. */
struct expr_source {
    struct ptm_dataset *ds;
    int32_t labels_of; /* -1: ds is the data itself */
    bool no_stats;     /* no corr() or cos() reads it: no column sums (a pass over X) */
};

/* The first index out of range an evaluation met (what it indexed, the
 * index and the valid range 1..range), for the engine to report; any
 * thread may record one, the first wins. The evaluation itself still gets
 * NaN. */
enum expr_fault_kind {
    EXPR_FAULT_COL,   /* a column of data source src: col(X, k), X[i, k] */
    EXPR_FAULT_ROW,   /* a row of data source src: row(X, k), X[k, j] */
    EXPR_FAULT_LABEL, /* an element of a labels() vector src */
    EXPR_FAULT_PARAM, /* an index of parameter src (beta[k], W[i, j]) */
    EXPR_FAULT_DELTA, /* an index of parameter src in delta() */
};
struct expr_fault {
    _Atomic int state; /* 0 none, 1 being written, 2 recorded */
    enum expr_fault_kind kind;
    int32_t src;
    int axis; /* PARAM, DELTA of a matrix: 0 its row, 1 its column; else 0 */
    int64_t index, range;
};

struct expr_data {
    struct expr_fault fault;
    const struct expr_source *src; /* borrows */
    uint32_t nsrc;
    /* Column sums and sums of squares of each sparse matrix, and the sum
     * and sum of squares of each vector, for corr() and cos() (NULL where
     * the source says no_stats); built by
     * expr_data_init. Owned. */
    double **colsum, **colsumsq;
};

/* Build the column views and statistics corr() and nnz(col()) need. Call
 * before workers start (not thread-safe); evaluation afterwards is.
 * Returns 0 or PTM_ENOMEM (d is then released). */
int expr_data_init(struct expr_data *d, const struct expr_source *src, uint32_t nsrc);
void expr_data_release(struct expr_data *d);

/* Data source k as a vector, a column of its own: the labels of another
 * source, or a dense data set of one column; NULL for anything else. */
const double *expr_vector(const struct expr_data *d, int32_t k, int64_t *len);

/* Record a bad index (the first one wins); thread-safe. */
void expr_fault_record(struct expr_data *d, enum expr_fault_kind kind, int32_t src, int axis,
                       int64_t index, int64_t range);
/* Record f as the fault, whatever was recorded (not thread-safe: for the
 * engine alone, between evaluations). */
void expr_fault_record_again(struct expr_data *d, const struct expr_fault *f);
/* The recorded fault, or NULL. */
const struct expr_fault *expr_fault_get(const struct expr_data *d);

/* Fill the data callbacks of env and set env->ud = d; param and delta are
 * left as they are. The engine's own callbacks receive the same ud: it
 * passes a struct that begins with its struct expr_data. */
void expr_env_data(struct prog_env *env, struct expr_data *d);

/* Pearson correlation of column i of a and column j of b (0-based), both
 * sparse with the same number of rows; NaN when undefined (a constant
 * column, different row counts). */
double expr_corr(const struct ptm_csc *a, const double *sum_a, const double *sumsq_a, int64_t i,
                 const struct ptm_csc *b, const double *sum_b, const double *sumsq_b, int64_t j);

/* The cosine of the angle between column i of a and column j of b
 * (0-based) as stored, zeros included; NaN when either is all zeros or
 * the row counts differ. */
double expr_cos(const struct ptm_csc *a, const double *sumsq_a, int64_t i,
                const struct ptm_csc *b, const double *sumsq_b, int64_t j);
/* The same two from the sum of products ab over the rows, n rows, and
 * each column's sum s and sum of squares q: what expr_corr() and
 * expr_cos() return for them. */
double expr_corr_of(double ab, double n, double sa, double qa, double sb, double qb);
double expr_cos_of(double ab, double qa, double qb);

#endif
