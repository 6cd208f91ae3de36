/*
 * sched.h - the scheduler interface: which blocks a round updates.
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
 * job's seed: the same seed gives the same rounds.
 */
#ifndef PTM_SCHED_H
#define PTM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "prog.h"

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
     * and delta() and whose globals are the run's live counters; a
     * scheduler copies it and sets vars (1-based block numbers, as the
     * language counts). NULL: no data (every expression is then refused
     * by create, except when the policy ignores them). Borrows. */
    const struct prog_env *env;
};

/* One round as a scheduler hands it out. */
struct ptm_sched_round {
    size_t n;         /* blocks */
    int64_t *blocks;  /* cap() of them, distinct, 0-based */
    size_t *part;     /* workers + 1: worker p is given blocks[part[p] .. part[p+1]) */
    double *load;     /* workers: the cost of each worker's blocks */
    int64_t candidates; /* blocks considered this round */
    int64_t conflicts;  /* candidates left out because they depend on one kept */
};

struct ptm_sched_ops {
    const char *name;
    /* A new scheduler in *state. Returns 0, PTM_EINVAL (the plan asks for
     * what this policy cannot do; a message in err) or PTM_ENOMEM. */
    int (*create)(const struct ptm_sched_info *info, void **state, char *err, size_t errlen);
    /* The most blocks one round can have. */
    size_t (*cap)(const void *state);
    /* The next round into out (whose arrays the caller sized by cap()
     * and workers). Returns 0, or PTM_EINVAL with a message in err when an
     * expression cannot be evaluated (a NaN priority, say). */
    int (*next)(void *state, struct ptm_sched_round *out, char *err, size_t errlen);
    /* The round's blocks and, for each, the largest |change| of its
     * variables, after they are committed (delta() already answers the
     * new changes). NULL when the policy does not use them. */
    void (*done)(void *state, const int64_t *blocks, const double *change, size_t n);
    void (*destroy)(void *state);
};

/* The scheduler of a policy; NULL when this version has none. */
const struct ptm_sched_ops *ptm_sched_find(enum plan_policy policy);

/* The policies. */
extern const struct ptm_sched_ops ptm_sched_round_robin;
extern const struct ptm_sched_ops ptm_sched_random;

/* Blocks a round_robin or random round takes: info->per_round, or the
 * number of workers when it is 0, at most nblocks. */
size_t ptm_sched_per_round(const struct ptm_sched_info *info);
/* Give the workers runs of out->blocks of about equal length (for
 * policies that do not balance costs); load is the count. */
void ptm_sched_split_even(struct ptm_sched_round *out, int workers);

#endif
