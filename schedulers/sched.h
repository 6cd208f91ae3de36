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

/* What a scheduler is told about the run. */
struct ptm_sched_info {
    const struct ptm_plan *plan; /* borrows */
    int64_t nblocks;             /* >= 1 */
    int workers;                 /* >= 1 */
    int64_t per_round;           /* round_robin, random: blocks a round (the
                                    plan's; 0: one per worker) */
    uint64_t seed;
};

struct ptm_sched_ops {
    const char *name;
    /* A new scheduler in *state. Returns 0, PTM_EINVAL (the plan asks for
     * what this policy cannot do; a message in err) or PTM_ENOMEM. */
    int (*create)(const struct ptm_sched_info *info, void **state, char *err, size_t errlen);
    /* The most blocks one round can have. */
    size_t (*cap)(const void *state);
    /* The next round's blocks into blocks[0 .. n), n <= cap(); returns n. */
    size_t (*next)(void *state, int64_t *blocks);
    /* The round's blocks and, for each, the largest |change| of its
     * variables; NULL when the policy does not use them. */
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

#endif
