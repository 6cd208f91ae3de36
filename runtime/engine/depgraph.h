/*
 * depgraph.h - the conflict graph of a depend predicate that reads data
 * only, computed once before the first round, so that the dynamic
 * policy's filter looks conflicts up instead of evaluating the predicate
 * (spec/runtime.md, "Dependencies").
 *
 * The predicates it takes compare one measure of two columns of a sparse
 * matrix with a constant:
 *
 *     [abs](corr|cos)(col(X, i), col(X, j)) (>|>=) T      (or T (<|<=) ...)
 *
 * Two columns that share no row have x_i . x_j = 0, so their cos() is 0
 * and their corr() is -c_i c_j, c = sum / sqrt(n * variance): the
 * predicate is then evaluated exactly for every pair that shares a row
 * (from X'X, one pass over the rows' pairs of entries), and for the pairs
 * that share none only where |c_i c_j| can pass the threshold. Each value
 * is the one expr_corr() or expr_cos() would give (the same sums in the
 * same order), so the graph answers exactly as the predicate does.
 */
#ifndef PTM_DEPGRAPH_H
#define PTM_DEPGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "expr_env.h"
#include "prog.h"
#include "sched_impl.h"

/* What building the graph cost, for the trace and the bench. */
struct depgraph_info {
    int64_t edges;      /* conflicting pairs */
    int64_t evaluated;  /* pairs whose predicate was evaluated */
    double products;    /* multiply-adds of the pass over X'X */
    size_t bytes;       /* memory the graph keeps */
    double seconds;
};

/* The most products (sum over rows of nnz^2 / 2) and edges a graph may
 * take before the predicate is left to be evaluated per pair. Edges are
 * also bounded by the data: at most DEPGRAPH_EDGES_PER_NNZ a non-zero of
 * the matrix the predicate reads (at least DEPGRAPH_MIN_EDGES), so that a
 * small file whose columns all conflict cannot take a gigabyte (a single
 * row of 12000 values made a graph of 72 million pairs); the bench's data
 * keep 0.2 a non-zero. */
#define DEPGRAPH_MAX_PRODUCTS 4e9
#define DEPGRAPH_MAX_EDGES ((int64_t)1 << 26)
#define DEPGRAPH_EDGES_PER_NNZ 16
#define DEPGRAPH_MIN_EDGES ((int64_t)1 << 20)

/* The data source the graph of pred reads, or -1 when pred is not of the
 * shape above. */
int32_t depgraph_data(const struct prog *pred);

/* The conflict graph of pred over blocks 1 .. nblocks, reading the data
 * of d with the globals of env (a template as schedulers get it). Returns
 * 0 with the graph in out (release with sched_edges_release()); 1 when
 * the predicate is not of the shape above, or the graph would be too big
 * (why, for a note, in why); PTM_ENOMEM. */
int depgraph_build(const struct prog *pred, const struct expr_data *d, const struct prog_env *env,
                   int64_t nblocks, struct sched_edges *out, struct depgraph_info *info,
                   char *why, size_t whylen);

/* The same answers round by round, for the candidates the filter meets
 * (see depgraph.c): the filter of ptm_sched_info.pairs, which computes a
 * block's row of the graph once its passes have cost as much, and the
 * whole graph once all have cost as much as it does. Reads pred,
 * d and env until freed (borrows). Returns 0; 1 when pred is not of the
 * shape above (why); PTM_ENOMEM. */
struct depgraph_lazy;
int depgraph_lazy_new(const struct prog *pred, const struct expr_data *d,
                      const struct prog_env *env, int64_t nblocks, struct depgraph_lazy **out,
                      char *why, size_t whylen);
void depgraph_lazy_free(struct depgraph_lazy *z);
/* What the scheduler's filter calls. */
const struct sched_pairs *depgraph_lazy_ops(const struct depgraph_lazy *z);
/* The whole graph's cost once the filter has built it, else NULL. */
const struct depgraph_info *depgraph_lazy_built(const struct depgraph_lazy *z);
/* What the whole graph would cost, in products of X'X (the sum over X's
 * rows of nnz^2 / 2), and X's non-zeros. */
void depgraph_lazy_price(const struct depgraph_lazy *z, double *products, int64_t *nnz);

#endif
