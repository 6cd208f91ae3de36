/*
 * pstore.h - the parameter store: tables of doubles shared by the worker
 * threads of one job under bounded staleness (SSP) or asynchronously.
 *
 * Each worker has a clock (the number of pstore_clock() calls it has made),
 * a cache of rows and a log of pending increments. Reads and increments
 * touch only the worker's own cache and log; pstore_clock() flushes the log
 * to the shared master copy and advances the clock. Updates are increments,
 * so those of different workers commute and none is lost.
 *
 * The guarantee, for an SSP table of staleness s (s = 0 is BSP): a worker
 * at clock c sees every update that any worker made in clocks 0 .. c-s-1,
 * and all of its own (read-my-writes); it may or may not see newer ones.
 * pstore_clock() blocks while the worker would get more than s clocks ahead
 * of the slowest unfinished worker, s being the smallest staleness of the
 * store's SSP tables. An async table gives read-my-writes and nothing else
 * (its rows are re-read once per clock) and never makes anyone wait.
 *
 * Threads: one struct pstore_worker per thread, used by that thread only.
 * Tables are added before any worker starts. pstore_abort(), pstore_read()
 * and pstore_visit() may be called from any thread at any time;
 * pstore_fill*(), pstore_write_row() and pstore_free() only while no
 * worker is inside a pstore call (before the workers start or between
 * rounds). Actions return 0 or a negative PTM_E* code (ptm.h).
 */
#ifndef PTM_PSTORE_H
#define PTM_PSTORE_H

#include <stdbool.h>
#include <stdint.h>

struct pstore;
struct pstore_worker;

struct pstore_table_spec {
    int64_t nrows, ncols; /* >= 1 each; ncols <= UINT32_MAX */
    bool sparse;          /* rows keep only their non-zeros; else dense rows */
    bool async;           /* no staleness bound; else SSP with `staleness` */
    int32_t staleness;    /* SSP: s >= 0 */
};

/* A store for nworkers workers, with no tables; caller frees with
 * pstore_free(). PTM_EINVAL when nworkers < 1. */
int pstore_new(struct pstore **out, int nworkers);
void pstore_free(struct pstore *ps);

/* Add a table of zeros; *id is its number (0, 1, ... in order). */
int pstore_add_table(struct pstore *ps, const struct pstore_table_spec *spec, int *id);

/* Worker w's handle (0 <= w < nworkers), owned by ps. */
struct pstore_worker *pstore_worker(struct pstore *ps, int w);

/* ---- a worker's calls (from its own thread) ------------------------------
 * No lock is taken and nothing allocated while the row is cached and fresh
 * enough (and, for sparse rows, the non-zero already has room). */

/* *out = element (row, col) as this worker sees it. */
int pstore_get(struct pstore_worker *w, int table, int64_t row, int64_t col, double *out);
/* Add delta to element (row, col); visible to this worker at once, to the
 * others after its next pstore_clock(). */
int pstore_inc(struct pstore_worker *w, int table, int64_t row, int64_t col, double delta);
/* The same for n elements of one row: deltas[i] to column cols[i] (each
 * column checked first; a column may come more than once). One call for
 * many increments costs much less than one call each. */
int pstore_inc_row(struct pstore_worker *w, int table, int64_t row, const int32_t *cols,
                   const double *deltas, int64_t n);

/* The same for a whole row of a dense table: deltas[c] to column c for
 * every c < ncols (PTM_EINVAL for a sparse table). */
int pstore_inc_dense(struct pstore_worker *w, int table, int64_t row, const double *deltas);
/* A whole row as this worker sees it. Dense tables: *vals has ncols
 * elements. Sparse tables: the nnz non-zeros, cols ascending. The arrays
 * belong to the worker's cache: they show its own later increments, and
 * are good until its next pstore_clock() (sparse: or pstore_inc() on the
 * row), after which they are asked for again. PTM_EINVAL for the other
 * layout. */
int pstore_row_dense(struct pstore_worker *w, int table, int64_t row, const double **vals);
int pstore_row_sparse(struct pstore_worker *w, int table, int64_t row, const uint32_t **cols,
                      const double **vals, uint32_t *nnz);

/* End the worker's current clock: flush its increments, advance its clock,
 * and wait until it is within the staleness bound. Returns the abort status
 * once the store is aborted (the increments are flushed all the same), or
 * PTM_ENOMEM with the clock unchanged and no increment lost (call again). */
int pstore_clock(struct pstore_worker *w);
/* The worker is done: flush its increments and stop holding the others
 * back. Only pstore_worker_clock() and pstore_worker_wait() after this. */
int pstore_finish(struct pstore_worker *w);

/* Clocks completed by worker w; any thread. */
int64_t pstore_worker_clock(const struct pstore_worker *w);
/* Seconds worker w has spent blocked in pstore_clock(); read it from
 * another thread only once w has stopped. */
double pstore_worker_wait(const struct pstore_worker *w);

/* ---- any thread ------------------------------------------------------- */

/* Stop the job: every worker blocked in pstore_clock(), and every later
 * call of it, returns status (< 0). The first status given sticks. Not
 * from a signal handler. */
void pstore_abort(struct pstore *ps, int status);

/* The master copy of a table, nrows * ncols doubles row-major into out.
 * Consistent: each worker's flushes are in it whole or not at all. */
int pstore_read(struct pstore *ps, int table, double *out);

/* fn on every row of the master copy in order, consistently as above:
 * dense rows with cols NULL and n = ncols, sparse rows with their n
 * non-zeros, cols ascending. A non-zero return from fn stops the visit and
 * is returned. fn must not call into the store. */
typedef int (*pstore_row_fn)(void *ud, int64_t row, const uint32_t *cols, const double *vals,
                             uint32_t n);
int pstore_visit(struct pstore *ps, int table, pstore_row_fn fn, void *ud);

/* ---- initial values (no worker inside a pstore call) -------------------
 * They replace the master copy and drop the workers' cached rows; pending
 * increments stay pending. A sparse table can only be filled with 0. */

int pstore_fill(struct pstore *ps, int table, double value);
/* Uniform in [lo, hi], row-major from a PRNG seeded with seed (the same
 * seed gives the same table on every machine). */
int pstore_fill_uniform(struct pstore *ps, int table, double lo, double hi, uint64_t seed);
/* Row `row` = vals[0 .. ncols) (sparse tables keep the non-zeros). */
int pstore_write_row(struct pstore *ps, int table, int64_t row, const double *vals);

/* Checkpoints (runtime/base/ckpt.h): save or load (ck->load) the store's
 * whole state, the master tables, every worker's clock, cache and log, so
 * that a store set up alike (same tables, same workers) and loaded goes on
 * as the saved one would. Only while no worker is inside a pstore call. */
struct ptm_ckpt;
void pstore_state(struct pstore *ps, struct ptm_ckpt *ck);

#endif
