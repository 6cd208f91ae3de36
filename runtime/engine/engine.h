/*
 * engine.h - running a plan: `ptm run`.
 *
 * A run (struct ptm_run) holds everything a job needs while it runs: the
 * plan (borrowed), the loaded data sets, each worker's shard and local
 * state, the parameter tables, the scheduler, the update rule (a built-in
 * kernel or Lua hooks), the round and sweep counters and the objective
 * history (spec/runtime.md, "The state of a run").
 *
 * A run executes every policy: the model-parallel ones (dynamic,
 * round_robin, random: schedule -> push on every worker -> pull on the
 * coordinator -> commit -> apply on every worker, or the round's blocks
 * split among the workers), rotation (each worker updates the block it
 * holds) and data_parallel (clocks against the parameter store), with a
 * model's built-in update rule and objective, found by the names the plan
 * gives through runtime/models/model.h, or with Lua hooks. Its workers
 * are threads of this process and, under Open MPI, of every rank.
 * spec/runtime.md says what each combination does ("What runs today");
 * runtime/engine/engine_impl.h, how a round goes.
 *
 * The same plan, seed and number of workers give bit-identical results,
 * but where workers read tables of the parameter store with a staleness
 * above 0 or async (data_parallel, LDA's topic totals): what they see
 * there depends on the threads' timing.
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

/* A worker slowed on purpose, for experiments (ptm run --straggler): at
 * the end of each of its clocks, before the clock's updates are published,
 * it sleeps ms milliseconds, on each clock with probability prob, drawn
 * from a generator of its own seeded from the run's seed and the worker's
 * number (the same run gives the same delays). */
#define PTM_STRAGGLER_MAX_MS 60000.0 /* a minute */
struct ptm_straggler {
    int worker;  /* 1-based; 0: every worker, each drawing on its own */
    double ms;   /* > 0, at most PTM_STRAGGLER_MAX_MS */
    double prob; /* in (0, 1] */
};

struct ptm_run_opts {
    int workers;   /* P >= 1; more than the rows of X is cut to the rows */
    bool has_seed; /* seed overrides the plan's */
    uint64_t seed;
    const char *trace; /* JSON lines, one per round; NULL: none; borrows */
    FILE *log;         /* warnings and progress; NULL: silent; borrows */
    bool quiet;        /* no progress lines (warnings still go to log) */
    bool log_tty;      /* log is a terminal: progress is one updating line */
    /* Where the job declares its update and objective ("job.ptm:LINE:COL"),
     * for the messages of a failing hook; NULL: unknown (a plan). */
    const char *update_at, *objective_at;
    /* Where the job declares each parameter (indexed as plan->params), for
     * the messages about a file a parameter starts from; NULL, or NULL
     * entries: unknown (a plan). Borrows. */
    const char *const *param_at;
    /* The same for the depend, priority and cost statements of the
     * scheduled blocks, for an index out of range in them. */
    const char *depend_at, *priority_at, *cost_at, *order_at;
    /* Limits of Lua hooks (lua_host.h); 0: the defaults. */
    size_t lua_mem;    /* bytes a worker's state may hold */
    long lua_budget;   /* instructions a call may run */
    double lua_seconds; /* wall-clock seconds a call may take */
    /* Workers slowed on purpose, each worker named at most once; only for
     * update rules whose workers run clocks of the parameter store
     * (logreg_sgd, lda_gibbs). Borrows. */
    const struct ptm_straggler *stragglers;
    size_t nstragglers;
    /* Bytes the parameter tables may take on this process (with the
     * changes kept of the scheduled one); 0: the memory the machine has
     * available (MemAvailable), checked before they are allocated. */
    uint64_t memory_limit;
    /* The job's file, named in a checkpoint's manifest (`ptm run --resume
     * DIR` without a job runs it again); NULL: none. Borrows. */
    const char *job;
    /* Checkpoints (spec/runtime.md): into this directory, overriding the
     * plan's checkpoint statement; NULL: the plan's, or none. When:
     * every checkpoint_every checkpoint_units, or every
     * checkpoint_seconds; both 0: the plan's, else every 10 minutes. And
     * always when the run ends (a stop, Ctrl-C, SIGTERM). */
    const char *checkpoint;
    int64_t checkpoint_every;
    enum plan_unit checkpoint_unit;
    double checkpoint_seconds;
    /* The directory ptm_run_resume() loaded, whose trace a --trace goes
     * on from. Borrows. */
    const char *resume;
    /* The trace lists each round's blocks, and each worker's (ptm run
     * --trace-blocks); else a round has its counts and seconds only. */
    bool trace_blocks;
    /* After the run only the plan's outputs read the parameter tables (ptm
     * run): a rule that keeps its own state may leave a table no output
     * names as set-up made it (lda_gibbs: nwk and ndk, as doubles the
     * largest of its tables); ptm_run_param() then reads that. */
    bool outputs_only;
};

struct ptm_run;

/* What a run has done so far. */
struct ptm_run_stats {
    int64_t rounds;
    int64_t sweeps;   /* whole sweeps: updates / columns */
    int64_t updates;  /* block updates */
    double seconds;   /* wall time of ptm_run_exec */
    double objective; /* last evaluated; NaN when never */
    int workers;
    int64_t damped;   /* rounds whose change was damped (spec/runtime.md) */
};

/* Load plan's data (relative paths from plan->base_dir), shard it for
 * opts->workers, initialize the parameters and check that this engine can
 * run the plan. On success returns 0 and *out (caller frees with
 * ptm_run_free(); plan is borrowed and must outlive the run). Otherwise
 * *out is NULL and the return is PTM_EDATA, PTM_ENOENT or PTM_EIO (a data
 * file; the messages are in dg), PTM_EINVAL (the plan asks for something
 * not supported yet, or its data does not fit it, or a straggler names a
 * worker the run does not have or is given to a rule without clocks; a
 * message in err) or PTM_ENOMEM. */
int ptm_run_new(const struct ptm_plan *plan, const struct ptm_run_opts *opts,
                struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_run **out);
void ptm_run_free(struct ptm_run *run);

/* Run rounds until the stop rule holds, Ctrl-C or SIGTERM (with
 * ptm_run_catch_signals)
 * or, without a stop rule, PTM_RUN_SWEEP_CAP sweeps. Returns 0, PTM_EIO
 * (the trace cannot be written), PTM_EINVAL (an update or objective hook
 * failed: its message, the worker and where the job declares the hook; or
 * the objective is not finite) or PTM_ENOMEM (the threads could not be
 * started, or memory ran out), with a message in err. After
 * a failure the run cannot go on and its outputs must not be written. */
int ptm_run_exec(struct ptm_run *run, char *err, size_t errlen);

/* Write every output of the plan (TSV, %.17g, a row a line, a matrix's
 * columns separated by tabs) to a temporary file next to its target,
 * renamed into place, and what the model writes beside it. Relative output
 * paths are relative to the current directory. Returns 0, or PTM_EIO or
 * PTM_ENOMEM (PTM_EINVAL after a failed run) with a message in err. */
int ptm_run_write_outputs(const struct ptm_run *run, char *err, size_t errlen);

void ptm_run_stats(const struct ptm_run *run, struct ptm_run_stats *st);

/* What a checkpoint directory's manifest says (ptm_ckpt_info()). */
struct ptm_ckpt_info {
    char job[4096]; /* the job's file as the run that wrote it named it */
    int workers, ranks;
    uint64_t seed;
    int64_t round, sweeps;
    double seconds, objective; /* objective: NaN when never evaluated */
};
/* Read dir's last committed checkpoint's manifest. Returns 0, PTM_ENOENT
 * (none there), PTM_EIO or PTM_EDATA (damaged), PTM_ENOMEM; a message in
 * err. */
int ptm_ckpt_info(const char *dir, struct ptm_ckpt_info *out, char *err, size_t errlen);
/* After ptm_run_new() and before ptm_run_exec(): load dir's last
 * checkpoint into run, which must be set up as the run that wrote it was
 * (the same job but for its stop rule and checkpoint statement, data,
 * seed, workers and ranks: each is checked, with a message saying what
 * differs). Every rank loads its own part. The run then goes on from
 * there and, for a deterministic policy, gives the bits the run never
 * stopped would have. Returns 0, PTM_EINVAL (another run's checkpoint),
 * PTM_EDATA (a damaged one), PTM_ENOENT, PTM_EIO or PTM_ENOMEM; after a
 * failure in the middle of loading the run cannot be executed. */
int ptm_run_resume(struct ptm_run *run, const char *dir, char *err, size_t errlen);
/* The objective values evaluated so far, oldest first (the first one
 * before any round); their count in *n. */
const double *ptm_run_history(const struct ptm_run *run, size_t *n);
/* The committed values of parameter param (whole, gathered from the
 * shards in row order; a matrix row-major) copied into out (at most cap);
 * returns its length, or -1 for no such parameter. Under MPI, of a
 * sharded parameter only this rank's rows. */
int64_t ptm_run_param(const struct ptm_run *run, int32_t param, double *out, int64_t cap);

/* For `ptm check --data`: read the file parameter p of plan starts from
 * (init file; relative to plan->base_dir) and check its shape against the
 * parameter's sizes computed from data (the plan's data sets as read,
 * indexed as plan->data; NULL for labels, which take their data's rows).
 * A size that depends on the number of workers is not checked. Sets *rows
 * and *cols to what the file holds (0 when it cannot be read). Returns 0,
 * or PTM_EDATA, PTM_ENOENT, PTM_EIO (messages in dg; a wrong shape at
 * `at`, "job.ptm:LINE:COL", or at the file when at is NULL) or
 * PTM_ENOMEM. */
/* The sizes of parameter p (rows, and columns or 1) with the data sets as
 * `ptm check --data` read them (as ptm_check_param_file); NaN where one
 * depends on the workers or on data that could not be read. */
void ptm_check_param_size(const struct ptm_plan *plan, int32_t p, struct ptm_dataset *const *data,
                          double dims[2]);
/* The memory plan's ledger (spec/runtime.md, Memory): the bytes counted,
 * and the largest part with its description. */
struct ptm_mem {
    double total, most;
    char big[200];
};
/* bytes more, described by fmt when they are the largest part so far. */
void ptm_mem_add(struct ptm_mem *m, double bytes, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Parameter p of rows x cols values (the scheduled one twice, for its
 * changes; own bytes instead when own >= 0, where the model keeps it in a
 * form of its own: ptm_model's table_bytes) and, when it is the scheduled
 * one and count (its block set's count, `each N` or `into N`; NaN or < 1
 * when unknown) is known, the policy's and the engine's state of its
 * blocks. */
void ptm_mem_param(struct ptm_mem *m, const struct ptm_plan *plan, int32_t p, double rows,
                   double cols, double count, double own);
/* The most a job may take without --memory-limit, for data files of
 * data_bytes: 1 GiB, or 1024 times the data when that is more. */
double ptm_mem_claim_cap(double data_bytes);
int ptm_check_param_file(const struct ptm_plan *plan, int32_t p, struct ptm_dataset *const *data,
                         const char *at, struct ptm_data_diags *dg, int64_t *rows, int64_t *cols);

/* After "cannot open" of the plan's data file or vocabulary `missing`
 * (NULL: nothing): a note in dg naming the `ptm gen` command that writes
 * it, when one does. */
void ptm_data_gen_hint(const struct ptm_plan *plan, const char *missing,
                       struct ptm_data_diags *dg);

/* Install (on) or remove the handler of SIGINT and SIGTERM that makes a
 * running job stop after the current round (over an inherited "ignore":
 * install it before the data is read). */
void ptm_run_catch_signals(bool on);
/* True when SIGINT or SIGTERM stopped a run (or came before it began);
 * ptm_run_signal() says which (0: none). */
bool ptm_run_interrupted(void);
int ptm_run_signal(void);

#endif
