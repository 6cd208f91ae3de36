/*
 * kernel_mf.h - the built-in matrix factorization kernels (mf_sgd, mf_ccd)
 * and the parts of the rmse objective, on the rotation layout of
 * spec/runtime.md. Both kernels minimize (spec/language.md 5.11)
 *
 *     f(W, H) = sum over the observed (i, j) of (r_ij - w_i . h_j)^2
 *               + reg (|W|^2 + |H|^2)
 *
 * with w_i the i-th row of W (rows(R) x rank) and h_j the j-th row of H
 * (cols(R) x rank), both row-major doubles, as the parameter tables hold
 * them.
 *
 * LAYOUT. P workers. Worker p holds the rows lo_p .. hi_p-1 of R
 * (ptm_shard_by_nnz) and the same rows of W (W `shard like R`): every
 * function here takes W pointing at the shard's first row, so W[0] is row
 * lo_p. H's rows are cut into P blocks as `into workers` cuts them
 * (ptm_shard_even: the first cols mod P blocks one row larger); block b is
 * the columns block_lo[b] .. block_lo[b+1]-1 of R, and functions take Hb =
 * H + block_lo[b] * rank, the block's first row. In round t worker p holds
 * block b = (p + t) mod P alone; a sweep is P rounds, in which every
 * (shard, block) pair meets once.
 *
 * A worker's ratings are indexed once, before the first round, by a
 * struct mf_grid: for each block b, where each row of the shard's CSR
 * enters and leaves b (a "cell" is those runs, row by row); the ratings
 * stay in R, not copied. Kernels then run over one cell a call, touching
 * only the shard's rows of W and the held block's rows of H: two workers
 * in one round never write the same variable, and no call takes a lock.
 *
 * SGD (mf_sgd). The sum splits into one term per observed entry,
 *     f = sum over (i, j) of (r_ij - w_i . h_j)^2
 *                         + reg (|w_i|^2 / n_i + |h_j|^2 / m_j)
 * with n_i the ratings of row i and m_j those of column j in all of R, so
 * that the penalty is charged once in all per row and per column (LIBMF
 * charges reg on every rating, which minimizes a frequency-weighted
 * penalty instead). One step on entry (i, j), e = r_ij - w_i . h_j:
 *     w_i += eta (e h_j - reg / n_i  w_i)
 *     h_j += eta (e w_i - reg / m_j  h_j)       (both from the old w_i, h_j)
 * which is -eta/2 times the gradient of the entry's term (the factor 2 is
 * in eta, as LIBMF writes it). The step size of sweep e (e = t / P sweeps
 * completed) is eta = rate * decay^e (mf_step()). A cell's entries are
 * visited in the grid's order: by row, then column (the cache-friendly
 * order LIBMF uses within a block). Per round, worker p:
 *     mf_sgd_cell(&grid_p, b, rank, mf_step(rate, decay, t / P),
 *                 W_p, H + block_lo[b] * rank, rw_p, rh + block_lo[b])
 * with rw_p and rh from mf_reg_rows() and mf_reg_cols() (set-up). Under
 * `penalty = rating` (LIBMF's: reg charged on every rating, minimizing
 * sum of (r_ij - w_i . h_j)^2 + reg (|w_i|^2 + |h_j|^2) over the ratings)
 * rw and rh are reg everywhere instead. With `step = adaptive` the kernel
 * is mf_sgd_ada_cell() (below), with a step per row of W and of H.
 *
 * CCD++ (mf_ccd; Yu, Hsieh, Si and Dhillon 2012). Exact CCD++, run over the
 * rotation. CCD++ updates one rank-one factor k at a time: with the
 * residual R^ = R - sum over k' != k of w_k' h_k'^T on the observed
 * entries, alternately
 *     W[i][k] = sum_j R^_ij H[j][k] / (reg + sum_j H[j][k]^2)   (row i)
 *     H[j][k] = sum_i R^_ij W[i][k] / (reg + sum_i W[i][k]^2)   (column j)
 * (each the exact minimizer of f over that column of W or H, everything
 * else fixed), `inner` times, then moves to k + 1 (mod rank). A W update
 * needs every block of the row, an H update every shard of the column: in
 * a rotation round a worker sees one (shard, block) pair, so one such
 * update takes a whole sweep. The kernel therefore runs one HALF-STEP A
 * SWEEP: sweep e is
 *     k = (e / (2 inner)) mod rank,  a W pass when e mod 2 is 0, else an H pass.
 * In every round of a pass the worker adds its cell's terms to
 * accumulators (numerator and denominator of the ratios above: per shard
 * row for a W pass, kept by the worker; per block column for an H pass,
 * travelling with the block like H's rows); in the last round of the pass
 * (t mod P = P - 1), when every pair has been seen, it sets W[:, k] on its
 * rows (W pass) or H[:, k] on its held block (H pass). The first W pass of
 * factor k also moves the residual kept per entry from "factor k - 1 open"
 * to "factor k open" (adding back w_k h_k^T at its current values,
 * subtracting w_{k-1} h_{k-1}^T at the values its passes just set). So
 * every sweep is one exact block-coordinate minimization: the objective
 * never rises from one sweep to the next, and the values after a sweep are
 * those of serial CCD++ after the same number of half-steps, on any P, up
 * to the order of floating-point sums (the row sums are added block by
 * block in rotation order). W and H change only in
 * the last round of a pass: the objective should be read at sweep ends.
 * One outer CCD++ iteration (every factor once) is 2 * inner * rank sweeps,
 * each costing a few flops per rating rather than O(rank): the same
 * arithmetic as serial CCD++, spread over more, lighter sweeps (so a job's
 * `sweeps` counts half-steps under mf_ccd). Per round, worker p:
 *     mf_ccd_phase(t, P, rank, inner, &ph);
 *     mf_ccd_round(&ccd_p, &grid_p, b, &ph, rank, reg, W_p,
 *                  H + block_lo[b] * rank, hacc + 2 * block_lo[b])
 * with hacc 2 cols(R) doubles that the engine allocates once (block b's
 * accumulators; under MPI they travel with H's block). Before round 0,
 * mf_ccd_init() and mf_ccd_residual_cell() for every block set the
 * residual to R - W H^T.
 *
 * OBJECTIVE. mf_sqerr_csr() (rows of any ratings matrix: the training R
 * or a held-out T) and mf_sqerr_grid() (the shard's training ratings)
 * give a worker's part of the sum of squared errors; rmse = sqrt(sum of
 * parts / sum of counts); f = sum of the training parts + reg (sum over
 * workers of mf_sqnorm(W_p) + mf_sqnorm(H)). The engine adds the parts in
 * worker order.
 *
 * Plain functions on arrays: nothing is allocated after set-up
 * (mf_grid_build, mf_ccd_init), no engine types, no locks.
 */
#ifndef PTM_KERNEL_MF_H
#define PTM_KERNEL_MF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "vec4.h"

/* One worker's ratings by column block: no copy of them, an index into
 * the rows lo .. hi-1 of R's CSR. Within a row the columns increase, so
 * the ratings of row i that fall in block b are one run of the row:
 * positions at[b * nrows + i] .. at[(b + 1) * nrows + i] - 1 of col and
 * val. Cell b (the shard against block b) is those runs, row by row. */
struct mf_grid {
    int64_t nrows;      /* rows of the shard */
    int64_t ncols;      /* columns of R */
    int64_t nnz;        /* entries of the shard */
    int nblocks;        /* P */
    int64_t *block_lo;  /* nblocks + 1: block b is columns block_lo[b] .. block_lo[b+1]-1; owned */
    int64_t *cell;      /* nblocks + 1: cell b has cell[b+1] - cell[b] entries; owned */
    int64_t *at;        /* (nblocks + 1) * nrows: where row i enters block b (above); owned */
    const int32_t *col; /* nnz: R's columns of the shard (global), from R->colind; borrowed */
    const double *val;  /* nnz: its ratings, from R->val; borrowed */
};

/* The first and one past the last position of row i's ratings in cell b,
 * into g->col and g->val. */
static inline int64_t mf_cell_lo(const struct mf_grid *g, int b, int64_t i)
{
    return g->at[(int64_t)b * g->nrows + i];
}
static inline int64_t mf_cell_hi(const struct mf_grid *g, int b, int64_t i)
{
    return g->at[(int64_t)(b + 1) * g->nrows + i];
}

/* ---- set-up ----------------------------------------------------------------- */

/* Index rows lo .. hi-1 of R (0 <= lo <= hi <= R->nrows) by the nblocks
 * column blocks ptm_shard_even(R->ncols, nblocks) cuts. The grid borrows
 * R's columns and ratings: R must outlive it, unchanged. Time linear in
 * the shard's entries, memory (nblocks + 1) * (hi - lo) indexes. Returns
 * 0, PTM_EINVAL (nblocks < 1 or more blocks than columns, a bad range) or
 * PTM_ENOMEM; g is then empty. Caller frees with mf_grid_release(). */
int mf_grid_build(struct mf_grid *g, const struct ptm_csr *R, int64_t lo, int64_t hi, int nblocks);
void mf_grid_release(struct mf_grid *g);

/* rw[i] = reg / n_i for the shard's rows, n_i the row's ratings (0 for an
 * empty row). Rows lie whole in one shard, so this needs no other worker. */
void mf_reg_rows(const struct mf_grid *g, double reg, double *rw);
/* cnt[block_lo[b] + j] += the shard's ratings in each column (cnt has
 * ncols elements): summed over all workers it is m_j. */
void mf_col_counts_part(const struct mf_grid *g, int64_t *cnt);
/* rh[j] = reg / cnt[j] (0 where cnt[j] is 0), for n columns. */
void mf_reg_cols(const int64_t *cnt, int64_t n, double reg, double *rh);

/* The step size of SGD after `sweep` whole sweeps: rate * decay^sweep. */
double mf_step(double rate, double decay, int64_t sweep);

/* ---- SGD ---------------------------------------------------------------------- */

/* One pass over cell b of g, in place: for each entry (i, j, r),
 * e = r - W[i] . Hb[j], then W[i] += eta (e Hb[j] - rw[i] W[i]) and
 * Hb[j] += eta (e W[i] - rhb[j] Hb[j]) from the old values. W is the
 * shard's rows, Hb and rhb block b's (H + block_lo[b] * rank, rh +
 * block_lo[b]). Ranks 8, 10, 16, 20, 32, 50, 64, 100 and 128 run loops
 * unrolled for them; other ranks, a generic loop with the same result.
 * On x86-64 processors with AVX2 the loops run in 256-bit registers
 * (ptm_isa_has(PTM_ISA_AVX2) says whether they do); the baseline code
 * gives the same bits, and mf_sgd_cell_base() runs it wherever. */
void mf_sgd_cell(const struct mf_grid *g, int b, int64_t rank, double eta, double *W, double *Hb,
                 const double *rw, const double *rhb);
void mf_sgd_cell_base(const struct mf_grid *g, int b, int64_t rank, double eta, double *W,
                      double *Hb, const double *rw, const double *rhb);

/* Adaptive steps (mf_sgd's step = adaptive, as LIBMF's): each row i of W
 * and each row j of H keeps gw[i], gh[j], the sum over its past steps of
 * the mean square of its gradient's components, from 1. On entry (i, j, r),
 * with e = r - W[i] . Hb[j] and the gradients (halved, as above)
 *     dw = e Hb[j] - rw[i] W[i],   dh = e W[i] - rhb[j] Hb[j]
 * (both from the old values), W[i] += rate / sqrt(gw[i]) dw and Hb[j] +=
 * rate / sqrt(ghb[j]) dh, then gw[i] += |dw|^2 / rank, ghb[j] += |dh|^2 /
 * rank. ghb is block b's accumulators (gh + block_lo[b]), which travel with
 * its rows of H. Same ranks and vector paths as mf_sgd_cell(). */
void mf_sgd_ada_cell(const struct mf_grid *g, int b, int64_t rank, double rate, double *W,
                     double *Hb, const double *rw, const double *rhb, double *gw, double *ghb);
void mf_sgd_ada_cell_base(const struct mf_grid *g, int b, int64_t rank, double rate, double *W,
                          double *Hb, const double *rw, const double *rhb, double *gw,
                          double *ghb);

/* a[0 .. n) = v (the accumulators' start, 1). */
void mf_fill(double *a, int64_t n, double v);

/* ---- CCD++ ---------------------------------------------------------------------- */

/* What round t of a CCD++ run does (see the top of this file). */
struct mf_ccd_phase {
    int64_t k;    /* the factor updated */
    int64_t prev; /* the factor the residual leaves open before k, or -1 */
    bool hpass;   /* an H pass (else a W pass) */
    bool open;    /* the first W pass of factor k: move the residual */
    bool first;   /* the first round of the pass: clear the accumulators */
    bool last;    /* the last round of the pass: set W[:, k] or H[:, k] */
};

/* The phase of round t (t >= 0: rounds since the residual was set with
 * mf_ccd_residual_cell, so a run restarted from saved W and H starts again
 * at t = 0) for P workers, a rank and `inner` passes per factor (>= 1). */
void mf_ccd_phase(int64_t t, int P, int64_t rank, int inner, struct mf_ccd_phase *ph);

/* A worker's CCD++ state: the residual of each rating, and the
 * accumulators of its rows. */
struct mf_ccd {
    double *res;  /* g->nnz: r_ij minus the factors not open, as g->val is laid out; owned */
    double *wacc; /* 2 nrows: numerator, denominator per row; owned */
    double *hk;   /* 2 * the largest block: H[:, k] and H[:, prev] of the held block; owned */
};

/* Allocate the state for grid g. Returns 0 or PTM_ENOMEM (s is then
 * empty). Caller frees with mf_ccd_release(). */
int mf_ccd_init(struct mf_ccd *s, const struct mf_grid *g);
void mf_ccd_release(struct mf_ccd *s);

/* res = r - W[i] . Hb[j] over cell b: the residual with no factor open,
 * which round 0 expects. Call for every block before the first round. */
void mf_ccd_residual_cell(struct mf_ccd *s, const struct mf_grid *g, int b, int64_t rank,
                          const double *W, const double *Hb);

/* Round work on cell b in phase ph: W the shard's rows, Hb block b's rows,
 * hacc block b's accumulators (2 per column: numerator, denominator). In a
 * last round it writes column ph->k of W (W pass) or of Hb (H pass), where
 * a row or column whose denominator is 0 (no ratings and reg = 0) gets 0. */
void mf_ccd_round(struct mf_ccd *s, const struct mf_grid *g, int b, const struct mf_ccd_phase *ph,
                  int64_t rank, double reg, double *W, double *Hb, double *hacc);

/* ---- objective ----------------------------------------------------------------- */

/* Sum over rows lo .. hi-1 of R of (r_ij - W[i - lo] . H[j])^2, R any
 * ratings matrix over the rows and columns of the training ratings (those
 * themselves, or held-out ones, whose row split need not be the training
 * shards': pass W + lo * rank of the whole W). W holds rows lo .. hi-1, H
 * all of H's rows. The count of those ratings is R->rowptr[hi] -
 * R->rowptr[lo]. */
double mf_sqerr_csr(const struct ptm_csr *R, int64_t lo, int64_t hi, const double *W,
                    const double *H, int64_t rank);
/* The same over the grid's entries (the shard's training ratings), H all
 * of H. */
double mf_sqerr_grid(const struct mf_grid *g, const double *W, const double *H, int64_t rank);
/* Sum of squares of n values (a shard of W, or H: n = rows * rank). */
double mf_sqnorm(const double *a, int64_t n);

#endif
