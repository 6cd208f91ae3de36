/*
 * dryrun.h - `ptm plan`: the plan's own scheduler run against a simulated
 * execution, and the schedule it hands out (struct ptm_trace), which is
 * also what the trace of a real run reads back as (viz/trace_read.c).
 *
 * A dry run reads the job's data (dependencies and costs need it), sets
 * up the parameters and the scheduled block set as `ptm run` does, and
 * then asks the scheduler (schedulers/scheduler.h) for rounds without running
 * any update. What the updates would have changed is simulated, so that a
 * policy that steers by changes (dynamic's priorities) has something to
 * steer by; the model is PTM_DRYRUN_MODEL (spec/plan-command.md).
 */
#ifndef PTM_DRYRUN_H
#define PTM_DRYRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "engine.h"
#include "plan.h"

/* The simulation, in the words the output uses. */
#define PTM_DRYRUN_DECAY 0.8
#define PTM_DRYRUN_MODEL                                                                           \
    "no update runs; block b's change at its k-th update is s_b * 0.8^(k-1), with s_b "            \
    "log-uniform in [0.01, 1] from the seed; delta() and the parameter values follow "             \
    "these changes"

/* The most nodes a dependency graph may have. */
#define PTM_GRAPH_MAX_NODES 10000

/* Block updates a schedule may hold (rounds times blocks a round). */
#define PTM_TRACE_MAX_ENTRIES ((size_t)1 << 25)

/* One round of a schedule. */
struct ptm_trace_round {
    int64_t round;                 /* as numbered by the run (from 1) */
    double seconds;                /* wall time at its end; NaN: unknown */
    int64_t candidates, conflicts; /* the scheduler's; -1: unknown */
    double objective;              /* NaN: not evaluated */
    /* the trace of a run: how the coordinator spent the round (its seconds
     * scheduling, waiting for the workers' phase, combining their results,
     * evaluating the objective), when has_time */
    bool has_time;
    double schedule, work, combine, evaluate;
};

/* The dependency graph of the scheduled blocks, cut to a size one can
 * draw: blocks 0 .. nnodes-1 and at most max_edges conflicts among them. */
struct ptm_depgraph {
    int64_t nnodes;   /* drawn: the first nnodes blocks */
    double *priority; /* nnodes: each block's priority after the dry run */
    double *cost;     /* nnodes */
    int64_t *edges;   /* 2 * nedges block numbers (0-based), i < j */
    size_t nedges;
    bool more_edges; /* conflicts among the drawn blocks were left out */
    char *depend;    /* how conflicts are declared, for people; owned */
};

/* A schedule: rounds, and each worker's blocks and load in each round. */
struct ptm_trace {
    bool dry;         /* a dry run; else the trace of a run */
    char *source;     /* the job, plan or trace file it came from; owned */
    char *job;        /* the job's name, or NULL; owned */
    char *policy;     /* the policy that scheduled, or NULL; owned */
    char *blockset;   /* the scheduled block set, or NULL; owned */
    char *note;       /* something the reader must know, or NULL; owned */
    const char *unit; /* what load counts: "cost" or "seconds" */
    int workers;      /* >= 1 */
    int64_t nblocks;  /* of the block set; for a trace the largest block seen */
    uint64_t seed;
    double sweeps; /* completed by the end (dry run); NaN: unknown */
    bool has_cost; /* the block set declares a cost */
    double *cost;  /* nblocks, each block's (dry run), or NULL */
    struct ptm_trace_round *rounds;
    size_t nrounds, caprounds;
    /* Worker p of round r holds blocks[start[r * workers + p] ..
     * start[r * workers + p + 1]) (0-based) at load[r * workers + p]. */
    size_t *start; /* nrounds * workers + 1 */
    double *load;  /* nrounds * workers */
    int64_t *blocks;
    size_t nentries, capentries;
    int filled;                 /* workers of the last round given so far */
    struct ptm_depgraph *graph; /* dry run with a graph asked for, or NULL */
    struct ptm_clocks *clocks;  /* a dry run of data_parallel (no rounds), or NULL */
    /* A run's trace: the updates its rounds without blocks counted (ptm
     * run without --trace-blocks; their "updates"), at most INT64_MAX. */
    int64_t unlisted_updates;
};

/* A dry run of schedule data_parallel: P workers each running `clocks`
 * clocks (minibatches) of simulated durations, under the job's
 * consistency and, for comparison, under BSP (spec/plan-command.md 1.2).
 * Clock c (0-based) of worker p is at index p * clocks + c. */
#define PTM_CLOCKS_MAX_CELLS ((size_t)1 << 21) /* workers times clocks */
#define PTM_CLOCKS_UNIT "ms"
struct ptm_clock_sched {
    int32_t staleness; /* s >= 0 (0: BSP); -1: async, no bound */
    double *start;     /* P * clocks: when the clock's work starts */
    double *end;       /* P * clocks: when it ends (start + its duration) */
    int64_t *behind;   /* P * clocks: how many clocks old the read at its start may be:
                          c - the clocks every worker had finished by then (0: fresh) */
    double *all_done;  /* clocks: when every worker had finished clock k (0-based) */
    double makespan;   /* when the last clock ends */
};
struct ptm_clocks {
    int64_t clocks;    /* each worker's */
    int64_t phase;     /* clocks of a phase, which ends in a barrier (>= 1) */
    double work;       /* a clock's work, PTM_CLOCKS_UNIT */
    double *dur;       /* P * clocks: each clock's duration (work and delay) */
    char *consistency; /* the job's: "ssp 2", "bsp", "async"; owned */
    char *slow;        /* the stragglers, as "2:3:0.5, 4:1", or NULL; owned */
    struct ptm_clock_sched job, bsp; /* under the job's consistency; under BSP */
};

/* Simulate P workers each running C clocks of durations dur (P * C):
 * worker p starts clock c when it has finished clock c - 1, when (s >= 0)
 * every worker has finished clock c - s - 1, and, at the start of a phase
 * (c a multiple of phase, c > 0; phase 0: no phases), when every worker
 * has finished clock c - 1. Fills cs->start, end, behind (P * C) and
 * all_done (C), allocated by the caller, and cs->makespan. */
void ptm_clocks_simulate(int P, int64_t C, const double *dur, int32_t s, int64_t phase,
                         struct ptm_clock_sched *cs);

/* An empty schedule for P workers; NULL when out of memory. Caller frees
 * with ptm_trace_free(). */
struct ptm_trace *ptm_trace_new(int workers);
void ptm_trace_free(struct ptm_trace *t);
/* Append round r; then call ptm_trace_worker() once for each worker, in
 * order. Returns 0, PTM_ENOMEM or PTM_ETOOBIG (PTM_TRACE_MAX_ENTRIES). */
int ptm_trace_round(struct ptm_trace *t, const struct ptm_trace_round *r);
/* The next worker of the last round: its n blocks (0-based) and load. */
int ptm_trace_worker(struct ptm_trace *t, const int64_t *blocks, size_t n, double load);
/* A dry run of rounds whose load is each worker's rows, not blocks
 * (data_parallel with method = tron: rt_dryrun_newton). */
static inline bool ptm_trace_by_rows(const struct ptm_trace *t)
{
    return t->unit && t->unit[0] == 'r' && t->unit[1] == 'o'; /* "rows" */
}
/* Blocks of worker p in round r, their count in *n. */
const int64_t *ptm_trace_blocks(const struct ptm_trace *t, size_t r, int p, size_t *n);

struct ptm_dryrun_opts {
    int workers;    /* requested; lowered to the rows of the data as a run does */
    int64_t rounds; /* >= 1 */
    bool has_seed;  /* seed overrides the plan's */
    uint64_t seed;
    bool graph;        /* also build the dependency graph (out->graph) */
    int64_t max_nodes; /* of the graph; 1 .. PTM_GRAPH_MAX_NODES */
    size_t max_edges;  /* of the graph */
    uint64_t memory_limit; /* as ptm run's --memory-limit; 0: the machine's */
    /* Workers slowed on purpose (ptm run --straggler), each named at most
     * once: their clocks take longer in a dry run of data_parallel; any
     * other policy refuses them. Borrows. */
    const struct ptm_straggler *stragglers;
    size_t nstragglers;
};

/* Dry-run plan: `rounds` rounds of its scheduler. On success returns 0 and
 * *out (caller frees with ptm_trace_free()). Otherwise *out is NULL and
 * the return is PTM_EDATA, PTM_ENOENT, PTM_EIO or PTM_ETOOBIG (a data file
 * of the job, or a file the policy or the graph reads, the edge list of
 * `depend B from "file"`: the messages are in dg), PTM_EINVAL (the plan
 * cannot be dry-run: data_parallel, a size or cost that is no number, a
 * NaN priority, a schedule of more than PTM_TRACE_MAX_ENTRIES block
 * updates, what the engine cannot set up; a message in err) or
 * PTM_ENOMEM. A policy without a scheduler in this version is run as
 * round_robin with one block a round, as `ptm run` would, and says so in
 * (*out)->note. Under data_parallel the dry run simulates the workers'
 * clocks instead ((*out)->clocks, no rounds; PTM_EINVAL also for an
 * update that runs no clocks, a straggler the run does not have, a graph
 * asked for, or more than PTM_CLOCKS_MAX_CELLS clocks in all). Stragglers
 * under another policy are PTM_EINVAL. */
int ptm_dryrun(const struct ptm_plan *plan, const struct ptm_dryrun_opts *opts,
               struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_trace **out);

/* The data_parallel part of ptm_dryrun() (dryrun_clocks.c): whether the
 * plan runs clocks at all, before its data is read (else PTM_EINVAL and a
 * message); then the simulation, run holding the engine's tables and t the
 * schedule's header. */
struct ptm_run;
int rt_dryrun_clocks_check(const struct ptm_plan *plan, const struct ptm_dryrun_opts *o, char *err,
                           size_t errlen);
int rt_dryrun_clocks(struct ptm_run *run, const struct ptm_dryrun_opts *o, struct ptm_trace *t,
                     char *err, size_t errlen);
/* logreg_sgd with method = tron runs Newton iterations, not clocks: its
 * dry run is o->rounds rounds in which every worker's load is its rows. */
bool rt_dryrun_is_tron(const struct ptm_plan *plan);
int rt_dryrun_newton(struct ptm_run *run, const struct ptm_dryrun_opts *o, struct ptm_trace *t);

#endif
