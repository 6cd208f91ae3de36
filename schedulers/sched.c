/*
 * sched.c - the table of schedulers, one entry per policy that has one,
 * and what several policies share: per_round, and dealing a round's blocks
 * to the workers.
 */
#include "scheduler.h"

#include <string.h>

#include "ptm.h"

static const struct {
    enum plan_policy policy;
    const struct ptm_sched_ops *ops;
} table[] = {
    {PLAN_POLICY_DYNAMIC, &ptm_sched_dynamic},
    {PLAN_POLICY_ROTATION, &ptm_sched_rotation},
    {PLAN_POLICY_ROUND_ROBIN, &ptm_sched_round_robin},
    {PLAN_POLICY_RANDOM, &ptm_sched_random},
};

const struct ptm_sched_ops *ptm_sched_find(enum plan_policy policy)
{
    for (size_t i = 0; i < PTM_ARRAY_LEN(table); i++)
        if (table[i].policy == policy)
            return table[i].ops;
    return NULL;
}

size_t ptm_sched_per_round(const struct ptm_sched_info *info)
{
    int64_t k = info->per_round > 0 ? info->per_round : info->workers;
    return (size_t)(k < info->nblocks ? k : info->nblocks);
}

void ptm_sched_split_even(struct ptm_sched_round *out, int workers)
{
    /* the first workers get the longer runs: worker 0 (the caller's
     * thread) is never the one left idle */
    for (int p = 0; p <= workers; p++)
        out->part[p] = (out->n * (size_t)p + (size_t)workers - 1) / (size_t)workers;
    for (int p = 0; out->load && p < workers; p++)
        out->load[p] = (double)(out->part[p + 1] - out->part[p]);
}

void ptm_sched_deal(struct ptm_sched_round *out, const int64_t *chosen, size_t n, int workers)
{
    size_t P = (size_t)workers, at = 0;
    if (P == 1) {
        memcpy(out->blocks, chosen, n * sizeof(int64_t));
        if (out->order)
            for (size_t k = 0; k < n; k++)
                out->order[k] = k;
        out->part[0] = 0;
        out->part[1] = n;
        if (out->load)
            out->load[0] = (double)n;
        out->n = n;
        return;
    }
    for (size_t p = 0; p < P; p++) {
        out->part[p] = at;
        for (size_t k = p; k < n; k += P) {
            out->blocks[at] = chosen[k];
            if (out->order)
                out->order[at] = k;
            at++;
        }
        if (out->load)
            out->load[p] = (double)(at - out->part[p]);
    }
    out->part[P] = at;
    out->n = n;
}
