/*
 * engine_impl.h - what the engine's files (runtime/engine/: engine.c
 * lists them), its backends (backend_*.c) and the update rules (each
 * model's rule_*.c under runtime/models/, and runtime/lua/rule_lua.c)
 * share.
 *
 * A round (spec/runtime.md) of a rule by rows: the scheduler picks
 * blocks; every worker pushes them over its shard (z); the backend sums
 * the workers' z in worker order; the rule's pull turns the sums into new
 * values of the blocks' variables, which the engine commits; every worker
 * applies the changes to its local state. A worker applies round t's
 * changes at the start of its next phase, just before it pushes round
 * t + 1, so a round costs one hand-off between the coordinator and the
 * workers. struct rt_rule says how rules split by blocks, rotation and
 * clocks differ.
 *
 * Ownership: struct ptm_run owns everything here. Workers write only
 * their own struct rt_worker (z, zlen, part, failure) and their own local
 * state, and under a rule split by blocks their share of the round: its
 * vars (under expand_late), its new values in run->newval and, on one
 * rank, its commit (rt_commit()). The coordinator writes the rest of the
 * round, the committed values and the counters, and only while no phase
 * runs.
 */
#ifndef PTM_ENGINE_IMPL_H
#define PTM_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "comm.h"
#include "data.h"
#include "depgraph.h"
#include "engine.h"
#include "lua_host.h"
#include "plan.h"
#include "scheduler.h"
#include "sched_env.h"

/* Values a Lua push may return for one block. */
#define RT_KMAX 16
/* Bytes of a worker's failure message. */
#define RT_MSG_MAX 4096

struct ptm_ckpt;
struct ptm_model;
struct xsum;

/* The variables of one round and what was committed to them. */
struct rt_round {
    size_t n;        /* blocks */
    int64_t *blocks; /* n of the scheduled block set, 0-based */
    int64_t *off;    /* n + 1: block i's variables are vars[off[i] .. off[i+1]) */
    int64_t *vars;   /* element indices of the scheduled parameter (a rotation: none, nvars 0) */
    size_t nvars;
    double *change; /* nvars: new - old, once committed */
    size_t *part;   /* G + 1: the scheduler gives worker g (of run->G) blocks
                       part[g] .. part[g+1]-1 (split rules and rotation push just
                       those; rules by rows push all) */
    size_t *order;  /* n: block i's place in the order the policy chose the blocks,
                       which does not depend on P (apply and rules by rows see the
                       blocks in that order, so results do not depend on P) */
    int64_t candidates, conflicts, evaluations; /* the scheduler's, for the trace */
    bool alone; /* the scheduler dealt every block to the first worker, in the
                   policy's order, as rule->alone_blocks asked; order is then
                   not written (never under ranks: expand_late) */
};

/* `keep moved` (rounds.c, rt_recheck): the policy filters a round after
 * the update, where only the blocks that changed count as kept; the
 * changes of those it does not keep are dropped before anything applies
 * them. */
struct rt_recheck {
    int64_t *pb;         /* cap: the round's blocks in the policy's order */
    unsigned char *flag; /* cap: by policy place, the block changed; then whether
                            its change is dropped */
    size_t *keep;        /* cap: the places kept */
    unsigned char *mark; /* nblocks: dropped this round, by block */
    int64_t *blocks;     /* cap: what done() hears, the dropped left out */
    double *change;
    size_t ndrop;   /* this round's dropped blocks */
    int64_t evals;  /* pairs computed */
    double seconds; /* in the filter (when tracing) */
};

/* A parameter table. A matrix is row-major; a vector has cols 1. */
struct rt_param {
    const struct plan_param *pp; /* borrows */
    int64_t rows, cols, len;
    int32_t shard_like; /* data index whose row shards it follows; -1: one copy */
    double *val;        /* one copy: the committed values; NULL when sharded */
};

/* A worker's part of one data set. */
struct rt_shard {
    bool matrix;       /* a sparse matrix (csr and csc below) */
    bool own_csc;      /* csc is this shard's; else the data set's */
    struct ptm_csr csr; /* rows lo .. hi-1: rowptr points into the data set's
                           (absolute offsets), colind and val are its */
    struct ptm_csc csc; /* the same rows by columns, row indices local; owned */
    double *labels;     /* the rows' labels (into the data set), or NULL */
    int64_t nlabels;
};

struct rt_worker {
    struct ptm_run *run;
    int id;
    int gid;               /* among all ranks' workers of the schedule (run->G) */
    int64_t lo, hi;        /* rows of the row-sharded data, as this rank numbers
                              them (run->row0 + lo among all ranks') */
    struct rt_shard *shard; /* per data source of the plan */
    double **local;         /* per parameter: the shard's rows when sharded */
    struct lhost *lua;      /* the worker's Lua state for the update, or NULL */
    struct lhost *lua_obj;  /* for a Lua objective in another file, or NULL */
    void *kernel;           /* a built-in rule's per-worker state */
    double *z;              /* push results, run->zcap doubles */
    size_t zlen;            /* doubles the last push wrote */
    int k;                  /* values per block of the last Lua push */
    double part;            /* the worker's part of the objective */
    double busy;            /* seconds of work since the last trace line */
    struct rt_straggle *straggle; /* slowed on purpose (straggle.c), or NULL */
    int rc;                 /* 0, or the failure of the last phase */
    char msg[RT_MSG_MAX];   /* its message */
    pthread_t thread;
};

/* What a round is for a rule (spec/runtime.md). */
enum rt_kind {
    RT_MODEL,    /* dynamic, round_robin, random: push, pull, commit, apply */
    RT_ROTATION, /* rotation: each worker pushes the block it holds, writing
                    the block's and its shard's variables; nothing else */
    RT_CLOCKS,   /* data_parallel: each worker runs run->work.clocks clocks
                    against the parameter store; `sync` then brings the
                    parameter tables up to date */
};

/* Memory a rule keeps for a block of a rotation: what travels with the
 * block when it moves to another rank. */
#define RT_SPANS 4
struct rt_span {
    void *p;
    size_t bytes;
};

/* An update rule (a built-in kernel or Lua hooks). pull runs on the
 * coordinator; push and apply on every worker, each with its own state. */
/* What progress counts a second (rt_rule's unit_of): block updates, or
 * per sweep the entries, the sum of the values or the rows of the data
 * sharded by rows. */
enum rt_unit_of { RT_UNIT_BLOCKS, RT_UNIT_ENTRIES, RT_UNIT_VALUES, RT_UNIT_ROWS };

/* The sums a rule's damp_part gives, at most. */
#define RT_DAMP_SUMS 2

struct rt_rule {
    const char *name;
    enum rt_kind kind;
    /* progress's unit: "ratings", "tokens", "rows"; NULL: "updates" (block
     * updates) */
    const char *unit;
    enum rt_unit_of unit_of;
    /* How the work of a round is split among the workers (threads that
     * share memory):
     * false: by rows. Each worker holds a row shard of the data sharded by
     *   rows and its rows of the parameters sharded like it, and pushes
     *   every block of the round over its rows; the backend sums their z
     *   and pull, on the coordinator, turns the sums into new values.
     * true: by blocks. Every worker sees all the data and one copy of
     *   every parameter; push computes the new values of the worker's
     *   share of the round's variables (rd->part) over all rows, straight
     *   into run->newval, and pull is not used (across ranks push writes
     *   its share's sums into run->zsum and rank 0's pull turns their sums
     *   over the ranks into the new values); apply works on state of
     *   the worker's own (so it shares a phase with the next push), and
     *   the objective on the worker's rows lo .. hi-1. A variable's new
     *   value is one worker's work, so the results need not depend on the
     *   number of workers. */
    bool split_blocks;
    /* Its workers end clocks of the parameter store, each calling
     * rt_end_clock() just before pstore_clock(). */
    bool clocks;
    /* Per-run and per-worker set-up after data and parameters exist.
     * Returns 0, PTM_EINVAL or PTM_EIO (message in err) or PTM_ENOMEM.
     * release undoes what setup did, even a part of it, and may be called
     * again. */
    int (*setup)(struct ptm_run *run, char *err, size_t errlen);
    void (*release)(struct ptm_run *run);
    /* Doubles of z a push of at most nblocks blocks and nvars variables
     * may write (by rows; by blocks across ranks, of run->zsum). */
    size_t (*zcap)(const struct ptm_run *run, size_t nblocks, size_t nvars);
    /* By rows: w->z[0 .. w->zlen) for the round's blocks. By blocks: the
     * new values of the worker's share, into run->newval. */
    int (*push)(struct rt_worker *w, const struct rt_round *rd);
    /* The new value of each of the round's variables from the summed z. */
    int (*pull)(struct ptm_run *run, const struct rt_round *rd, const double *z, size_t zlen,
                double *out);
    /* Bring w's local state up to date with rd->change. */
    int (*apply)(struct rt_worker *w, const struct rt_round *rd);
    /* The parameter tables from the rule's own state (the store, integer
     * counts): RT_CLOCKS after every phase, the others before the
     * objective and the outputs read them. NULL: the tables are the state. */
    int (*sync)(struct ptm_run *run);
    /* RT_ROTATION across ranks: the memory of block b that the rank which
     * holds it next needs (the scheduled parameter's rows and any state of
     * the rule's own), into out; returns how many spans (<= RT_SPANS).
     * NULL: the rule does not run across ranks. */
    int (*spans)(struct ptm_run *run, int64_t b, struct rt_span *out);
    /* RT_CLOCKS, when setup sets run->anchor_every to k > 0: before the
     * first clock and then every k sweeps, a phase in which every worker
     * runs anchor (a pass over its shard at the parameter tables, which
     * sync made current), then anchored once on the coordinator (which
     * combines what the workers found, across ranks too). Phases end at
     * these points. */
    int (*anchor)(struct rt_worker *w);
    int (*anchored)(struct ptm_run *run);
    /* RT_CLOCKS, when setup sets run->batch: a round is one call of batch
     * on the coordinator of every rank instead of a phase of clocks. It
     * makes its passes over the workers' shards with rt_map(run, op),
     * a phase in which every worker runs map(w, op), and combines what
     * they found itself (across ranks too: every rank calls the same
     * rt_map and ptm_comm_* in the same order). */
    int (*batch)(struct ptm_run *run, char *err, size_t errlen);
    int (*map)(struct rt_worker *w, int op);
    /* RT_CLOCKS: the rule runs across ranks; its setup sets
     * run->clock_period and its sync exchanges the ranks' updates. */
    bool ranks_clocks;
    /* RT_ROTATION across ranks: after every round, what the ranks share
     * beyond the blocks (totals in the store), or NULL. A rule with a sync
     * makes its tables whole there (run->holder says which blocks are this
     * rank's); without one, the engine sums the blocks of the scheduled
     * parameter over the ranks. */
    int (*exchange)(struct ptm_run *run);
    /* By blocks, when setup sets run->damps: after every worker (of every
     * rank: see damp_part) has pushed (run->newval holds the round's new values, not yet
     * committed), on the coordinator: the step t in (0, 1] the round's
     * combined change takes (the engine commits old + t (new - old)), so
     * that a round of changes computed together never raises the
     * objective; *rise receives what the whole change would have raised it
     * by. NULL: commit as pushed. */
    double (*damp)(struct ptm_run *run, const struct rt_round *rd, double *rise);
    /* Under MPI, when setup sets run->damps: on every rank, with the
     * round's new values in run->newval (rank 0's, told to all), this
     * rank's part of the RT_DAMP_SUMS sums damp needs, into sums; rank 0
     * then calls damp with their totals over the ranks in run->damp_sums. */
    void (*damp_part)(struct ptm_run *run, struct rt_round *rd, double *sums);
    /* Split rules, on the coordinator before the phase of round rd
     * (expanded, its variables in rd->vars unless expand_late): whether
     * the first worker can do the whole phase (the pending round's apply
     * and rd's push) alone, the others having nothing to do in it; they
     * are then not woken. Asked before the objective's evaluations too,
     * with rd NULL: the first worker's part then covers every row (the
     * others' are 0). NULL: never. */
    bool (*alone)(const struct ptm_run *run, const struct rt_round *rd);
    /* With damps: whether a round alone is never damped; the first
     * worker then commits it in its phase (as without damps), and damp is
     * still called after it, for what the rule keeps (it must return 1),
     * with run->committed set: the tables hold the new values and
     * rd->change the changes. NULL: a round alone is damped as any. */
    bool (*alone_undamped)(const struct ptm_run *run);
    /* Split rules with a variable a block (run->expand_late): whether a
     * round of these blocks runs on the first worker alone by its blocks
     * and the data only (alone above says so for it too): the scheduler
     * then gives them all to the first worker and deals nothing
     * (ptm_sched_info.alone). Asked by the scheduler, perhaps rounds
     * ahead. NULL: never. */
    bool (*alone_blocks)(const struct ptm_run *run, const int64_t *blocks, size_t n);
    /* The same question in a dry run (`ptm plan`), whose run has the plan,
     * the data and the tables but no rule set up, so that the picture
     * deals such rounds as ptm run does. NULL: never. */
    bool (*alone_dry)(struct ptm_run *run, const int64_t *blocks, size_t n);
    /* Checkpoints (runtime/base/ckpt.h, spec/runtime.md): save or load
     * (ck->load) everything of the rule's own that changes from round to
     * round: run->rule_state's and every worker's (w->kernel, Lua states,
     * random generators, a parameter store), not the parameter tables or
     * the workers' sharded parameters (w->local), which the engine keeps.
     * On the coordinator between rounds, every worker's last round
     * applied; on every rank, for its own workers. NULL: the rule cannot
     * be checkpointed (a run asking for checkpoints is refused). */
    void (*state)(struct ptm_run *run, struct ptm_ckpt *ck);
    /* On one rank: whether the rule gives the rows of parameter p itself
     * (row i, the table's cols values, into out), where its table is left
     * unfilled (lda_gibbs's integer counts, after the last sync) or is
     * not the values as they stand (lasso_cd's residual, which r stands
     * off by a constant on one rank with an intercept), so
     * that outputs read them from the rule's state. NULL: the tables hold
     * every value. */
    bool (*rows_own)(const struct ptm_run *run, int32_t p);
    void (*row)(const struct ptm_run *run, int32_t p, int64_t i, double *out);
};

/* An objective: every worker's part, summed in worker order, then one
 * call on the sum. */
struct rt_objective {
    /* -1: lower is better, 1: higher is better, 0: not known (a Lua
     * objective); a run that gets worse RT_WORSE_RUN times in a row warns */
    int better;
    int (*setup)(struct ptm_run *run, char *err, size_t errlen);
    int (*part)(struct rt_worker *w, double *out);
    double (*finish)(const struct ptm_run *run, double sum);
    /* The sum of every worker's part (over all ranks) at the parameters
     * as they are, when the update has computed it already (logreg_sgd's
     * TRON sums the loss at the point it takes): true and *sum, and the
     * evaluation makes no pass over the data. NULL, or false: a pass. */
    bool (*known)(const struct ptm_run *run, double *sum);
    void (*release)(struct ptm_run *run);
    /* Checkpoints: what the objective keeps from one evaluation to the
     * next (as rt_rule's state). NULL: nothing. */
    void (*state)(struct ptm_run *run, struct ptm_ckpt *ck);
};

/* How workers run: threads of this process (backend_threads.c); other
 * backends implement the same calls. */
struct rt_backend {
    const char *name;
    /* Start the workers. Returns 0, or PTM_ENOMEM with a message. */
    int (*start)(struct ptm_run *run, char *err, size_t errlen);
    /* Before a phase that wakes every worker (not run->work.alone): make
     * sure they are running. A run whose every phase is the first
     * worker's alone never starts the others. Returns 0, or PTM_ENOMEM
     * with a message. */
    int (*ready)(struct ptm_run *run, char *err, size_t errlen);
    /* Run rt_worker_phase() on every worker; return when all are done. */
    void (*phase)(struct ptm_run *run);
    /* sum[i] = the sum over workers p = 0, 1, ... of w[p].z[i], i < n. */
    void (*reduce_z)(struct ptm_run *run, size_t n, double *sum);
    /* The sum over workers of w[p].part, in worker order. */
    double (*reduce_part)(struct ptm_run *run);
    /* Stop and join the workers. */
    void (*stop)(struct ptm_run *run);
    /* rt_barrier() */
    void (*barrier)(struct rt_worker *w);
};

/* What the workers do in a phase. */
struct rt_work {
    const struct rt_round *apply; /* changes to apply first, or NULL */
    const struct rt_round *push;  /* blocks to push, or NULL */
    bool objective;               /* then the objective part */
    int64_t clocks;               /* RT_CLOCKS: clocks each worker runs */
    bool anchor;                  /* RT_CLOCKS: the rule's anchor first */
    int map;                      /* RT_CLOCKS under batch: 1 + the op of map(), or 0 */
    bool exit;                    /* leave */
    bool alone;                   /* the first worker alone (rt_rule.alone) */
};

/* A gate where P - 1 worker threads wait for the coordinator and the
 * coordinator waits for them: spin briefly, then sleep. */
struct rt_gate {
    atomic_uint gen;     /* phases opened */
    atomic_int pending;  /* workers still in the phase */
    atomic_int sleepers; /* threads asleep on cv */
    atomic_int arrived;  /* workers at the barrier (rt_barrier) */
    atomic_uint passed;  /* barriers passed */
    double spin;         /* seconds a wait spins before it sleeps */
    int started;         /* worker threads running (rt_backend.ready) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

struct ptm_run {
    const struct ptm_plan *plan; /* borrows */
    struct ptm_run_opts opts;
    uint64_t seed;
    struct ptm_dataset **data; /* per data source; NULL for labels() */
    struct rt_param *params;   /* per parameter */
    int32_t rowdata;           /* the data sharded by rows, or -1 */
    int rank, nranks;          /* this process among the run's (comm.h) */
    int64_t grows;             /* rows of the data sharded by rows, all ranks' */
    int64_t row0;              /* the first of them this rank holds */
    bool split;                /* the rule splits rounds by blocks */
    bool apply_dealt;          /* set by a split rule's setup: its apply sees a
                                * round as dealt (rd->part tells the worker's
                                * share), not in the policy's order */
    bool want_order;           /* set by such a rule's setup: it reads the
                                * policy's order (rd->order) all the same */
    bool track_delta;          /* an expression of the scheduler reads delta() of
                                * the scheduled parameter: commit keeps last_delta */
    bool expand_late;          /* each worker fills its share of a round's off
                                * and vars (rounds.c: expand_share) */
    bool columns_only;         /* nothing reads rows: the CSR becomes the CSC */
    bool dropped;              /* rt_data_drop_entries() freed the entries of the
                                * data sharded by rows: dropped_sum is their sum */
    double dropped_sum;
    bool sync_final;           /* during the sync after the last round, which the
                                * outputs read: a rule whose tables only the
                                * outputs and metrics read may fill them there
                                * alone (rule_lda.c) */
    bool recheck;              /* `keep moved` in force: struct rt_recheck */
    bool push_rechecks;        /* set by a split rule's setup: its push calls
                                * rt_recheck() between computing the round's new
                                * values and applying any (one rank; across ranks
                                * and for rules by rows the pull does) */
    struct rt_recheck rk;
    bool damps;                /* set by a rule's setup: rounds go through its damp
                                * and are committed on the coordinator */
    int64_t damped;            /* rounds damped so far */
    double step;               /* the step of the last round (1: not damped) */
    int64_t offer;             /* with damps, under a policy that takes a limit: the
                                * most blocks its next rounds may have, 0 for its own
                                * number (rounds.c, offer_after) */
    bool offer_told;           /* the note on the first lowering is written */
    bool committed;            /* in damp: the round is committed already, its changes
                                * in rd->change (rt_rule's alone_undamped) */
    double damp_sums[RT_DAMP_SUMS]; /* MPI: damp_part's totals over the ranks */
    int64_t nrows;             /* its rows this rank holds */
    int P;                     /* this rank's workers */
    int G;                     /* the workers the schedule deals to: all ranks' under
                                  rotation (rank r's are r * P .. r * P + P - 1),
                                  else this rank's */
    int64_t *gbounds;          /* R P + 1 (R ranks of P workers): the global rows of each
                                  worker, when the ranks split the rows together
                                  (data_ranks.h); or NULL */
    int *holder;               /* rotation across ranks: the rank holding each block
                                  (-1: every rank, as at the start) */
    struct ptm_comm_msg *msgs; /* rotation across ranks: room for a round's moves */
    int64_t *say;              /* across ranks: a round as rank 0 tells it */
    size_t say_cap;            /* the most blocks a round has there */
    struct rt_worker *w;
    const struct rt_backend *backend;
    struct rt_gate gate;
    struct rt_work work; /* the current phase's */
    /* the rule */
    const struct ptm_model *model; /* whose built-in rule it is, or NULL (Lua) */
    const struct rt_rule *rule;
    void *rule_state;
    bool failed;     /* a phase failed: no more rounds, no outputs */
    const struct rt_objective *obj;
    void *obj_state;
    size_t zcap;
    double *zsum;   /* zcap */
    double *newval; /* the round's new values */
    /* scheduling */
    const struct ptm_sched_ops *sched;
    void *sched_state;
    const struct plan_blockset *bs;
    int32_t sparam;     /* the scheduled parameter */
    int64_t nblocks;    /* of the scheduled block set */
    int64_t bsize;      /* units (elements, rows or columns) of a block, the last
                           one maybe fewer; under `into`, the longest */
    int64_t bvars;      /* the most variables a block has */
    int64_t clocks_per_sweep; /* RT_CLOCKS: clocks of a pass over the largest shard */
    int64_t clock_period;     /* RT_CLOCKS: the longest phase, or 0 (no bound) */
    int64_t anchor_every;     /* RT_CLOCKS: sweeps between the rule's anchors, or 0 */
    bool batch;               /* RT_CLOCKS: rounds are the rule's batch() calls */
    double *last_delta; /* every variable's last change (kept under track_delta; a
                           rotation without it has none: NULL) */
    double *bchange;    /* each of a round's blocks: the Euclidean norm of its changes */
    struct xsum *l1;    /* P: the scheduled parameter's L1 norm (rt_l1_keep), or NULL */
    struct rt_round rounds[2];
    int cur; /* rounds[cur] is the round being scheduled */
    struct rt_round canon; /* a split round's blocks in the policy's order, for apply
                              (and room to put a round by rows in that order) */
    struct sched_env senv; /* what the block set's expressions read, when they do */
    bool has_senv;
    /* The depend predicate's conflicts, when it reads data only
     * (depgraph.h): with every row here, computed round by round for the
     * candidates (lazy, which keeps the rows of the graph of the blocks
     * met often, and builds the whole graph once that costs less);
     * across ranks, the graph of all ranks' rows, built before the
     * first round, whose cost goes to the first round's schedule seconds. */
    struct depgraph_lazy *lazy;
    bool lazy_told; /* the trace has the graph it built */
    /* the objective getting worse: evaluations in a row, from which value
     * and sweep; said once */
    int worse;
    double worse_from;
    int64_t worse_sweep, eval_sweep;
    bool worse_told;
    struct sched_edges depgraph;
    bool has_depgraph;
    struct sched_alone sched_alone; /* the scheduler's question to rule->alone_blocks */
    struct depgraph_info depgraph_info;
    double setup_sched_seconds;
    double sched_seconds;  /* in the scheduler this round (measured when tracing) */
    /* the coordinator's other seconds this round, when tracing: waiting
     * for the workers' phases, combining their results (reduce, pull,
     * commit, exchange), evaluating the objective and metrics */
    double work_seconds, combine_seconds, objective_seconds;
    bool stop_memo;        /* the stop rule was false at stop_at and stop_seconds,
                              and does not read the rounds */
    int64_t stop_at[2];    /* sweeps, objectives */
    double stop_seconds;
    /* the bounds a top-level part of the stop rule sets (`sweeps >= N`,
     * `seconds > S`, `rounds >= R`; 0: none), for progress's ETA; when
     * progress without an objective last spoke */
    double bound[3];
    double sweep_units; /* rank 0: the rule's units in a sweep, over all ranks */
    double spoke_at;
    int64_t spoke_sweep;
    /* counters */
    int64_t round, updates, obj_mark;
    double seconds;
    double *hist; /* objective history */
    size_t nhist, caphist;
    /* the job's metrics (metrics.c), evaluated with the objective on rank 0 */
    struct rt_metric *metrics;
    double *mvals; /* PROG_METRIC_OF values a metric, what the stop rule reads */
    /* checkpoints (checkpoint.c), or NULL; loaded from one, with the
     * bytes of its trace a --trace starts with */
    struct rt_ckpt *ckpt;
    bool resumed;
    int64_t resume_trace_bytes;
};

/* A metric's history: its last and best values. */
struct rt_metric {
    double last, best;
    int64_t n, since_best;
};

/* The job's metrics (metrics.c). setup checks them against the run and
 * allocates their state (0, PTM_EINVAL with a message, PTM_ENOMEM); eval
 * scores them from the committed parameters, a collective call on every
 * rank, after the objective; print writes " NAME VALUE..." (progress) or
 * "\"NAME\": VALUE, ..." (json, the trace). */
int rt_metrics_setup(struct ptm_run *run, char *err, size_t errlen);
void rt_metrics_release(struct ptm_run *run);
int rt_metrics_eval(struct ptm_run *run, char *err, size_t errlen);
void rt_metrics_print(const struct ptm_run *run, FILE *f, bool json);

/* The phase of run->work on worker w (the backends call it; rounds.c). */
void rt_worker_phase(struct rt_worker *w);
/* Under rt_rule.batch, on the coordinator: a phase in which every worker
 * runs the rule's map(w, op). Returns 0, or a worker's failure (message
 * in err). */
int rt_map(struct ptm_run *run, int op, char *err, size_t errlen);
/* Inside a phase: wait until every worker of this rank has called it;
 * what each wrote before it is then visible to all. A rule that calls it
 * must call it on every worker, as many times, failure or not. */
void rt_barrier(struct rt_worker *w);
/* Record a failure of worker w: its message and PTM_E* code. */
void rt_fail(struct rt_worker *w, int rc, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Stragglers on purpose (ptm run --straggler; straggle.c). setup gives
 * the workers the run's opts name their delays: PTM_EINVAL (a message in
 * err) when one names a worker the run does not have or the rule runs no
 * clocks, or PTM_ENOMEM. release may be called after a failed setup. */
int rt_straggle_setup(struct ptm_run *run, char *err, size_t errlen);
void rt_straggle_release(struct ptm_run *run);
/* The delay of a slowed worker at the end of a clock (its own thread). */
void rt_straggle(struct rt_worker *w);
/* Seconds of delay w was given since the last call, for the trace (the
 * coordinator, between phases). */
double rt_straggle_take(struct rt_worker *w);

/* Where a rule's worker ends a clock, just before pstore_clock(): a
 * straggler sleeps there. One test of a pointer when nobody straggles. */
static inline void rt_end_clock(struct rt_worker *w)
{
    if (w->straggle)
        rt_straggle(w);
}

/* The option key of hook h, or NULL (also when the job left an optional
 * option out: the plan then holds the empty string). */
const struct plan_option *rt_option(const struct plan_hook *h, const char *key);
/* The number option key of hook h, or dflt when it has none. */
double rt_option_num(const struct plan_hook *h, const char *key, double dflt);
/* Whether hook h has within = sequential (coordinate descent one
 * coefficient after the other). */
bool rt_within_sequential(const struct plan_hook *h);
/* The non-zeros of columns cols[0 .. n) of x. */
int64_t rt_cols_nnz(const struct ptm_csc *x, const int64_t *cols, size_t n);
/* A dry run's rt_rule.alone_dry for a coordinate-descent rule with options
 * X, within and split_min: on several workers, whether the columns
 * blocks[0 .. n) (a variable a block) hold fewer non-zeros than split_min
 * (by default seq_min under within = sequential, and then never fewer
 * than X has rows; par_min under parallel, < 0 for never), so that the
 * round runs on the first worker alone. */
bool rt_alone_dry(struct ptm_run *run, const int64_t *blocks, size_t n, int64_t seq_min,
                  int64_t par_min);
/* calloc through ptm_malloc; n == 0 gives one zeroed element. */
void *rt_zalloc(size_t n, size_t size);
/* For a rule's setup that has taken what it needs of data k (sparse, by
 * rows): free its entries (column indexes and values; the row pointers
 * and the sizes stay), and every worker's view of them, when nothing
 * reads them later (a metric on k, or the scheduler's X[i, j]). Returns
 * whether it did. */
bool rt_data_drop_entries(struct ptm_run *run, int32_t k);

/* ---- between the engine's files ------------------------------------------- */

/* tables.c. For ptm_run_new(), once the rule is chosen (run->split and
 * run->columns_only set): read the plan's data, choose the data whose
 * rows the workers shard (lowering P to its rows), give every worker its
 * shards, and make the parameter tables and the blocks of the scheduled
 * block set. Returns as ptm_run_new(). */
int rt_make_tables(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen);
/* For the dry run (runtime/engine/dryrun.c): read run->plan's data and set up its
 * parameters and the scheduled block set as ptm_run_new() does, but with
 * one copy of every parameter and no workers, rule, objective or
 * scheduler. run is zeroed but for plan, opts, seed and P (lowered as a run
 * lowers it). Returns as ptm_run_new(); ptm_run_free() releases run. */
int rt_setup_tables(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen);
/* Read the initial values of parameter p of plan from its file (init
 * file, relative to plan->base_dir): rows lo .. hi-1 of a rows x cols
 * parameter into *out (out->val: those rows, row-major; caller frees it
 * with ptm_free()). A file of other rows or columns (rows or cols < 0: not
 * checked) is an error at `at` ("job.ptm:LINE:COL", where the job declares
 * the parameter; NULL: at the file). Returns 0, or PTM_EDATA, PTM_ENOENT,
 * PTM_EIO (messages in dg) or PTM_ENOMEM, with *out empty. */
int rt_read_param_file(const struct ptm_plan *plan, int32_t p, int64_t rows, int64_t cols,
                       int64_t lo, int64_t hi, const char *at, struct ptm_data_diags *dg,
                       struct ptm_values *out);
/* path joined to the plan's base_dir, as data paths are, into buf. */
void rt_plan_path(const struct ptm_plan *plan, const char *path, char *buf, size_t len);
/* Fill rd->off, rd->vars and rd->nvars from rd->blocks[0 .. rd->n). */
void rt_expand_round(const struct ptm_run *run, struct rt_round *rd);
/* The units (elements, rows or columns of the scheduled parameter) block
 * b covers: [*u0, *u1). */
void rt_block_units(const struct ptm_run *run, int64_t b, int64_t *u0, int64_t *u1);

/* sched_setup.c. Does the policy read entries of a matrix (X[i, j] in
 * dynamic's expressions)? Those come from the CSR, which a run that reads
 * columns only (columns_only) gives up. Looks at the plan's schedule, so
 * it may be called before the blocks exist. */
bool rt_sched_reads_entries(const struct ptm_plan *plan);
/* An order of the common shape (sched_env.h) for blocks 1 .. B over the
 * data of d: one pass over X's columns for the products with v and the
 * columns' sums (on nranks > 1 summed across ranks, each holding its rows
 * of both; every rank calls it), then each block's value as expr_env.c's
 * corr() and cos() give it (on one rank the same sums in the same order),
 * into out in single precision (how the policy compares them: half the
 * fresh pages, which cost more than the pass on this machine). A column
 * out of range is recorded in d and gives NaN. Returns 0 or
 * PTM_ENOMEM. */
int rt_order_by_shape(struct expr_data *d, const struct order_shape *os, int64_t B, int nranks,
                      float *out);
/* For ptm_run_new(), after the rule's and the objective's setup: the
 * scheduler (none under data_parallel) with the environment its
 * expressions read, and the buffers of the round loop, sized by the most
 * blocks a round may have. Returns as ptm_run_new(); bad data in a file
 * the policy reads goes to dg. */
int rt_make_schedule(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen);
/* PTM_EINVAL with a message in err when an expression of the scheduler
 * (depend, priority, cost, order) met an index out of range (expr_env.h);
 * else 0. */
int rt_expr_fault(struct ptm_run *run, char *err, size_t errlen);
/* The same for the expressions evaluated in e (the dry run's own). */
int rt_expr_fault_in(const struct ptm_run *run, struct sched_env *e, char *err, size_t errlen);
/* Move diagnostics rendered as text, one a line ("WHERE: error: MESSAGE"
 * or "WHERE: note: MESSAGE": a scheduler's create about a file it reads,
 * the data's rows split among the ranks), to dg, as ptm_run_new() does. */
void rt_diags_from_text(struct ptm_data_diags *dg, const char *text);

/* rounds.c. Commit run->newval's values of rd's blocks b0 .. b1-1 to the
 * scheduled parameter; record the changes in rd->change (and
 * run->last_delta under track_delta), and each block's Euclidean norm of
 * them in run->bchange for the scheduler. */
void rt_commit(struct ptm_run *run, struct rt_round *rd, size_t b0, size_t b1, int wid);
/* The L1 norm of the scheduled parameter, sum |v| over its values, kept
 * exactly as rounds commit (in worker wid's accumulator, the
 * coordinator's in the first's: xsum.h) once an objective asks for it at
 * set-up (rt_l1_keep, counted from the values then), so that reading it
 * costs no pass over them; rt_l1 rounds it once, the same bits however
 * the commits were spread. A rule whose values change other than by
 * rt_commit must not ask. rt_l1_recount counts it again (after a
 * checkpoint's load). */
int rt_l1_keep(struct ptm_run *run);
double rt_l1(const struct ptm_run *run);
void rt_l1_recount(struct ptm_run *run);
/* Under run->recheck: round rd's blocks in the policy's order in rk.pb
 * (n of them), rk.flag[q] whether the block at place q changed; the
 * policy keeps those that conflict with no block kept before them that
 * changed (ptm_sched_ops.recheck). Leaves rk.flag[q] set for the blocks
 * whose changes are dropped, marks them (rk.mark), and returns how many.
 * One thread at a time: the coordinator, or one worker while the others
 * wait. */
size_t rt_recheck(struct ptm_run *run, size_t n);
/* Keep the counters the policy's expressions read current (run->senv). */
void rt_sched_globals(struct ptm_run *run);

/* ranks.c: the round loop across ranks (run->nranks > 1); every rank
 * calls them at the same points. Rank 0's decision head (stop, the
 * round's blocks) and round rd to every rank in one broadcast, with the
 * new values of the round owed (pulled and committed on rank 0 only, or
 * NULL), which the other ranks commit. */
void rt_tell_round(struct ptm_run *run, struct rt_round *rd, int64_t head[2],
                   struct rt_round *owed);
/* The other ranks commit the round owed now (before the objective). */
void rt_settle(struct ptm_run *run, struct rt_round *owed);
/* Rotation across ranks, before round rd runs: the blocks whose worker is
 * on another rank than last round's go there, with what the rule keeps
 * for them (struct rt_rule's spans). */
void rt_move_blocks(struct ptm_run *run, const struct rt_round *rd);
/* Rotation across ranks: the scheduled parameter made whole on every rank
 * from the blocks each holds. Returns 0 or PTM_ENOMEM. */
int rt_gather_blocks(struct ptm_run *run);

/* outputs.c. The trace's line for round rd (spec/runtime.md, Outputs),
 * with the objective when it was just evaluated; the workers' busy
 * seconds restart. Returns 0 or PTM_EIO. */
/* updates: the round's block updates, or a data_parallel phase's
 * minibatches (its clocks times the workers). */
int rt_trace_round(FILE *t, struct ptm_run *run, const struct rt_round *rd, int64_t updates,
                   bool evaluated);
/* The trace's last line when the run ends (not when it fails): why it
 * stopped (the progress line's reason), its rounds, sweeps, seconds and
 * updates, its last objective and the job's file. 0 or PTM_EIO. */
int rt_trace_end(FILE *t, const struct ptm_run *run, const char *why, int64_t sweeps);

/* checkpoint.c. setup: the checkpoints the run's opts or plan ask for
 * (the directory made and locked; PTM_EINVAL when the rule or policy
 * cannot be checkpointed); due: rank 0's question after a round (sweeps:
 * the run's); write: a checkpoint of the run as it is now, between rounds
 * with nothing pending (a collective call on every rank; the trace so far
 * saved with it); trace_prefix: a resumed run's trace starts with the
 * trace its checkpoint saved. */
int rt_ckpt_setup(struct ptm_run *run, char *err, size_t errlen);
void rt_ckpt_release(struct ptm_run *run);
bool rt_ckpt_due(struct ptm_run *run, int64_t sweeps);
int rt_ckpt_write(struct ptm_run *run, FILE *trace, int64_t sweeps, char *err, size_t errlen);
int rt_ckpt_trace_prefix(struct ptm_run *run, FILE *trace, char *err, size_t errlen);
/* straggle.c: the slowed workers' random generators, for checkpoints. */
void rt_straggle_state(struct ptm_run *run, struct ptm_ckpt *ck);

/* ---- the backends and the rules -------------------------------------------- */

extern const struct rt_backend rt_backend_threads;
/* The Lua update rule for policy pol, and the Lua objective (rule_lua.c). */
const struct rt_rule *rt_lua_rule(enum plan_policy pol);
extern const struct rt_objective rt_objective_lua;

#endif
