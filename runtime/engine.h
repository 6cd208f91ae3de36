/*
 * engine.h - running a plan: `ptm run`.
 *
 * A run (struct ptm_run) holds everything a job needs while it runs: the
 * plan (borrowed), the loaded data sets, each worker's shard and local
 * state, the parameters, the round and sweep counters and the objective
 * history (spec/runtime.md, "The state of a run").
 *
 * This increment runs the built-in Lasso kernel (update builtin lasso_cd,
 * objective builtin lasso_objective) on threads, one per worker, with
 * round-robin scheduling: each round updates the next `per_round` columns
 * of the coefficient vector in order, wrapping around at the end:
 * per_round from the plan under round_robin and random (0: one column per
 * worker), one column under dynamic (whose dependency filter does not
 * exist yet). The dynamic and random policies are run as round-robin,
 * with a warning. One worker runs on the calling thread. beta lives with the coordinator, which
 * commits every pull; the residual r is sharded by rows like X (ptm_shard_by_nnz). The parameter
 * store comes later.
 *
 * The same plan, seed and number of workers give bit-identical results.
 */
#ifndef PTM_ENGINE_H
#define PTM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data.h"
#include "plan.h"

/* Sweeps a job without a stop rule runs before it stops. */
#define PTM_RUN_SWEEP_CAP 1000

struct ptm_run_opts {
    int workers;   /* P >= 1; more than the rows of X is cut to the rows */
    bool has_seed; /* seed overrides the plan's */
    uint64_t seed;
    const char *trace; /* JSON lines, one per round; NULL: none; borrows */
    FILE *log;         /* warnings and progress; NULL: silent; borrows */
    bool quiet;        /* no progress lines (warnings still go to log) */
    bool log_tty;      /* log is a terminal: progress is one updating line */
};

struct ptm_run;

/* What a run has done so far. */
struct ptm_run_stats {
    int64_t rounds;
    int64_t sweeps;   /* whole sweeps: updates / columns */
    int64_t updates;  /* column updates */
    double seconds;   /* wall time of ptm_run_exec */
    double objective; /* last evaluated; NaN when never */
    int workers;
};

/* Load plan's data (relative paths from plan->base_dir), shard it for
 * opts->workers, initialize the parameters and check that this engine can
 * run the plan. On success returns 0 and *out (caller frees with
 * ptm_run_free(); plan is borrowed and must outlive the run). Otherwise
 * *out is NULL and the return is PTM_EDATA, PTM_ENOENT or PTM_EIO (a data
 * file; the messages are in dg), PTM_EINVAL (the plan asks for something
 * not supported yet, or its data does not fit it; a message in err) or
 * PTM_ENOMEM. */
int ptm_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *opts,
                struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_run **out);
void ptm_run_free(struct ptm_run *run);

/* Run rounds until the stop rule holds, Ctrl-C (with ptm_run_catch_sigint)
 * or, without a stop rule, PTM_RUN_SWEEP_CAP sweeps. Returns 0, PTM_EIO
 * (the trace cannot be written; message in err) or PTM_ENOMEM / PTM_EINVAL
 * (threads could not be started). */
int ptm_run_exec(struct ptm_run *run, char *err, size_t errlen);

/* Write every output of the plan (TSV, %.17g, one value a line) to a
 * temporary file next to its target, renamed into place. Relative output
 * paths are relative to the current directory. Returns 0 or PTM_EIO with a
 * message in err. */
int ptm_run_write_outputs(const struct ptm_run *run, char *err, size_t errlen);

void ptm_run_stats(const struct ptm_run *run, struct ptm_run_stats *st);
/* The objective values evaluated so far, oldest first (the first one
 * before any round); their count in *n. */
const double *ptm_run_history(const struct ptm_run *run, size_t *n);
/* The committed values of parameter param (whole, gathered from the
 * shards) copied into out (at most cap); returns its length, or -1 for a
 * parameter this engine does not hold. */
int64_t ptm_run_param(const struct ptm_run *run, int32_t param, double *out, int64_t cap);

/* Install (on) or remove a SIGINT handler that makes running jobs stop
 * after the current round. */
void ptm_run_catch_sigint(bool on);
/* True when SIGINT stopped a run. */
bool ptm_run_interrupted(void);

#endif
