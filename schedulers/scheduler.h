/*
 * scheduler.h - the scheduler interface: which blocks a round updates.
 *
 * A policy (spec/language.md, `schedule`) is one file in schedulers/ that
 * fills a struct ptm_sched_ops; ptm_sched_find() looks it up in the table
 * of schedulers/sched.c. The engine creates one scheduler per run, asks it
 * for each round's blocks with next(), and tells it what the round changed
 * with done(), so that a policy can steer by the changes (priorities).
 *
 * Blocks are the 0-based numbers of the blocks of the scheduled block set
 * (struct plan_schedule.over). A round's blocks are distinct. A scheduler
 * owns its state, including its random generator, which it seeds from the
 * job's seed: the same seed and number of workers give the same rounds.
 * A round lists each worker's blocks together (part); which worker gets a
 * block is the policy's (spec/language.md 5.9), and `order` tells the
 * order the policy chose the blocks in, which does not depend on the
 * number of workers.
 *
 * Not thread-safe: one thread calls a scheduler's functions (the engine's
 * coordinator, between phases). Expressions are evaluated inside create,
 * next and done, so the values they read must not change meanwhile.
 */
#ifndef PTM_SCHEDULER_H
#define PTM_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "prog.h"

struct ptm_ckpt;
struct sched_edges;
struct sched_alone;

/* What a scheduler is told about the run. */
struct ptm_sched_info {
    const struct ptm_plan *plan;     /* borrows */
    const struct plan_blockset *bs;  /* the scheduled block set; borrows */
    int64_t nblocks;                 /* >= 1 */
    int workers;                     /* >= 1 */
    int64_t per_round;               /* round_robin, random: blocks a round (the
                                        plan's; 0: one per worker) */
    uint64_t seed;
    /* How the block set's expressions (priority, depend, cost) are
     * evaluated: a template whose callbacks answer data, parameter values
     * and delta() and whose globals are the run's live counters, which the
     * caller keeps current before each next() (rounds, sweeps, workers);
     * a scheduler copies it and sets vars (1-based block numbers, as the
     * language counts). NULL: no data (every expression that is not a
     * constant is then refused by create, except when the policy ignores
     * them). Borrows. */
    const struct prog_env *env;
    /* The conflict graph of the depend predicate, when the caller computed
     * it (runtime/engine/depgraph.h): the filter then looks the pairs up
     * rather than evaluating the predicate. NULL: evaluate. Borrows. */
    const struct sched_edges *graph;
    /* Or a filter the caller runs for each round's candidates, exact as
     * the graph would answer (runtime/engine/depgraph.h). NULL: none.
     * Borrows. */
    const struct sched_pairs *pairs;
    /* Rounds the caller runs on the first worker alone, whatever their
     * dealing (a rule that does small rounds on one worker): the policy
     * asks before it deals, and gives such a round's blocks all to the
     * first worker in the policy's order (order[i] = i), spending nothing
     * on dealing. NULL: never. Borrows for the scheduler's life. */
    const struct sched_alone *alone;
    /* dynamic under `active`: the block set's order (bs->order) of every
     * block, in single precision (as the policy compares them), computed
     * by the caller where env cannot (under MPI, from every rank's rows)
     * or faster. NULL: the policy evaluates it with env. Borrows for
     * create() only. */
    const float *order;
    /* Where create() adds the seconds the order took (its evaluation and
     * sort): the run's time (spec/runtime.md). NULL: not wanted. */
    double *order_seconds;
};

/* alone(ud, blocks, n): whether the round of blocks[0 .. n) (the policy's
 * choice, in its order) runs on the first worker alone. A function of the
 * blocks and the data only: a policy may ask ahead of the round (pipeline). */
struct sched_alone {
    void *ud;
    bool (*alone)(void *ud, const int64_t *blocks, size_t n);
};

/* Conflicts a caller computes round by round: filter visits cand[0 .. n)
 * in order and keeps each candidate that conflicts with none kept before
 * it, into kept (the return value: how many), adding the pairs it
 * computed to *evals; with moved (not NULL), a kept candidate whose
 * moved[i] is 0 does not count as kept for those after it (`keep moved`:
 * a block that did not change interferes with none). graph returns the
 * whole conflict graph once the caller has built it (the filter then
 * looks pairs up in it), else NULL. */
struct sched_pairs {
    void *ud;
    size_t (*filter)(void *ud, const int64_t *cand, const unsigned char *moved, size_t n,
                     int64_t *kept, int64_t *evals);
    const struct sched_edges *(*graph)(void *ud);
};

/* One round as a scheduler hands it out. */
struct ptm_sched_round {
    size_t n;         /* blocks */
    int64_t *blocks;  /* cap() of them, distinct, 0-based */
    size_t *part;     /* workers + 1: worker p is given blocks[part[p] .. part[p+1]) */
    double *load;     /* workers: the cost of each worker's blocks; NULL when the
                       * caller does not want it */
    int64_t candidates; /* blocks considered this round */
    int64_t conflicts;  /* candidates left out because they depend on one kept */
    /* Optional, cap() of them; NULL when the caller does not want it:
     * order[i] is the place of blocks[i] in the order the policy chose the
     * round's blocks (round_robin: number order; random: draw order;
     * dynamic: filter order; rotation: the worker), the same for any
     * number of workers. */
    size_t *order;
    /* Dependency checks computed this round (not answered by a cache). */
    int64_t evaluations;
    /* In: the most blocks the caller wants in the round, 0 for no limit.
     * A policy whose ops->limits is set takes no more candidates than
     * that (after rounds the rule had to damp, the engine asks for fewer:
     * spec/runtime.md, Damped rounds); the others ignore it. */
    size_t limit;
    /* Every block went to the first worker, in the policy's order, because
     * ptm_sched_info.alone said the caller runs the round there alone;
     * order is then not written (it is the identity). */
    bool alone;
};

struct ptm_sched_ops {
    const char *name;
    /* next() honours ptm_sched_round.limit */
    bool limits;
    /* A new scheduler in *state. Returns 0, PTM_EINVAL (the plan asks for
     * what this policy cannot do, or an expression has a bad value; a
     * message in err), PTM_EDATA, PTM_ENOENT or PTM_EIO (a file the policy
     * reads, the edge list of `depend B from "file"`, is bad or cannot be
     * read: err holds the diagnostics, one a line, each
     * "FILE:LINE:COL: error: MESSAGE" or "FILE: error: MESSAGE", and may end
     * with a "note:" line), or PTM_ENOMEM. */
    int (*create)(const struct ptm_sched_info *info, void **state, char *err, size_t errlen);
    /* The most blocks one round can have. */
    size_t (*cap)(const void *state);
    /* The next round into out (whose arrays the caller sized by cap()
     * and workers; out->order may be NULL). Returns 0, or PTM_EINVAL with
     * a message in err when an expression cannot be evaluated (a NaN
     * priority, say, also one met in the last done()). */
    int (*next)(void *state, struct ptm_sched_round *out, char *err, size_t errlen);
    /* The round's blocks and, for each, the Euclidean norm of the change
     * of its variables (for a block of one variable, |change|), after they
     * are committed (delta() already answers the new changes). Any order.
     * NULL when the policy does not use them. */
    void (*done)(void *state, const int64_t *blocks, const double *change, size_t n);
    /* Under `keep moved` (dynamic), before done() of the round last handed
     * out: its blocks[0 .. n) in the policy's order, moved[i] whether the
     * update changed blocks[i]; the policy keeps each block that conflicts
     * with no block kept before it that changed, and returns how many,
     * their places in blocks (ascending) in keep. The others' changes are
     * dropped (the caller commits none for them and leaves them out of
     * done()), whether they changed or not (one that did not was computed
     * without the change of a block it depends on): the policy updates
     * them again in a later round. Adds the pairs it computed to *evals.
     * NULL: the policy has no such option. */
    size_t (*recheck)(void *state, const int64_t *blocks, const unsigned char *moved, size_t n,
                      size_t *keep, int64_t *evals);
    /* Save or load (ck->load) everything next() and done() change: the
     * position, queues, priorities, the random generator (runtime/base/ckpt.h),
     * so that a scheduler created alike and loaded deals the same rounds
     * as the one saved. Called between rounds. */
    void (*state)(void *state, struct ptm_ckpt *ck);
    void (*destroy)(void *state);
};

/* The scheduler of a policy; NULL when this version has none. */
const struct ptm_sched_ops *ptm_sched_find(enum plan_policy policy);

/* The policies. */
extern const struct ptm_sched_ops ptm_sched_dynamic;
extern const struct ptm_sched_ops ptm_sched_rotation;
extern const struct ptm_sched_ops ptm_sched_round_robin;
extern const struct ptm_sched_ops ptm_sched_random;

/* Blocks a round_robin or random round takes: info->per_round, or the
 * number of workers when it is 0, at most nblocks. */
size_t ptm_sched_per_round(const struct ptm_sched_info *info);
/* Give the workers runs of out->blocks of about equal length (worker p
 * the p-th run, as round_robin does); load is the count. */
void ptm_sched_split_even(struct ptm_sched_round *out, int workers);
/* Deal chosen[0 .. n) (in the policy's order) to the workers as the
 * language says for random and `balance false`: the k-th goes
 * to worker k mod P. Fills out->blocks with each worker's blocks together
 * (in their order), out->n, part, load (the counts) and order. */
void ptm_sched_deal(struct ptm_sched_round *out, const int64_t *chosen, size_t n, int workers);
/* Whether the caller runs the round of chosen[0 .. n) on the first worker
 * alone (a: ptm_sched_info.alone; never with one worker). */
bool ptm_sched_alone(const struct sched_alone *a, int workers, const int64_t *chosen, size_t n);
/* Deal chosen[0 .. n) all to the first worker, in their order (chosen may
 * be out->blocks): out->n, blocks, part, load (the counts), alone (with
 * several workers; else order). */
void ptm_sched_deal_first(struct ptm_sched_round *out, const int64_t *chosen, size_t n,
                          int workers);

/* For the policies' state functions (runtime/base/ckpt.h): an index *v
 * saved or loaded; on load it must be in lo .. hi (else PTM_EDATA, what
 * naming it, and *v keeps its value). */
void ptm_sched_ck_index(struct ptm_ckpt *ck, int64_t *v, int64_t lo, int64_t hi, const char *what);
/* n block numbers at b saved or loaded; on load each must be in 0 ..
 * nblocks - 1 (else PTM_EDATA), so that no loaded block indexes outside
 * an array. */
void ptm_sched_ck_blocks(struct ptm_ckpt *ck, int64_t *b, size_t n, int64_t nblocks,
                         const char *what);
/* A permutation of the n blocks at perm saved or loaded; on load it must
 * be one (else PTM_EDATA; PTM_ENOMEM when the check finds no memory). */
void ptm_sched_ck_perm(struct ptm_ckpt *ck, int64_t *perm, int64_t n, const char *what);

#endif
