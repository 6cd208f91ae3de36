/*
 * sched.c - the table of schedulers, one entry per policy that has one,
 * and what several policies share: per_round, dealing a round's blocks
 * to the workers, and the checks of the indices their state functions
 * load.
 */
#include "scheduler.h"

#include <string.h>

#include "arena.h"
#include "ckpt.h"
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

bool ptm_sched_alone(const struct sched_alone *a, int workers, const int64_t *chosen, size_t n)
{
    return workers > 1 && a && a->alone(a->ud, chosen, n);
}

void ptm_sched_deal_first(struct ptm_sched_round *out, const int64_t *chosen, size_t n,
                          int workers)
{
    if (chosen != out->blocks)
        memcpy(out->blocks, chosen, n * sizeof(int64_t));
    if (out->order && workers == 1)
        for (size_t k = 0; k < n; k++)
            out->order[k] = k;
    out->part[0] = 0;
    for (int p = 1; p <= workers; p++)
        out->part[p] = n;
    for (int p = 0; out->load && p < workers; p++)
        out->load[p] = p == 0 ? (double)n : 0;
    out->n = n;
    out->alone = workers > 1;
}

void ptm_sched_deal(struct ptm_sched_round *out, const int64_t *chosen, size_t n, int workers)
{
    size_t P = (size_t)workers, at = 0;
    if (P == 1) {
        ptm_sched_deal_first(out, chosen, n, 1);
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
    out->alone = false;
}

void ptm_sched_ck_index(struct ptm_ckpt *ck, int64_t *v, int64_t lo, int64_t hi, const char *what)
{
    int64_t x = *v;
    PTM_CK(ck, x);
    if (!ck->load || ck->err)
        return;
    if (x < lo || x > hi) {
        if (hi == INT64_MAX)
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s is %lld, below %lld", what,
                        (long long)x, (long long)lo);
        else
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s is %lld, outside %lld .. %lld", what,
                        (long long)x, (long long)lo, (long long)hi);
        return;
    }
    *v = x;
}

void ptm_sched_ck_blocks(struct ptm_ckpt *ck, int64_t *b, size_t n, int64_t nblocks,
                         const char *what)
{
    PTM_CK_ARRAY(ck, b, n);
    if (!ck->load || ck->err)
        return;
    for (size_t i = 0; i < n; i++)
        if (b[i] < 0 || b[i] >= nblocks) {
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s has block %lld where this run has %lld",
                        what, (long long)b[i] + 1, (long long)nblocks);
            return;
        }
}

void ptm_sched_ck_perm(struct ptm_ckpt *ck, int64_t *perm, int64_t n, const char *what)
{
    ptm_sched_ck_blocks(ck, perm, (size_t)n, n, what);
    if (!ck->load || ck->err)
        return;
    unsigned char *seen = ptm_malloc((size_t)n);
    if (!seen) {
        ptm_ck_fail(ck, PTM_ENOMEM, "no memory to check the checkpoint's %s", what);
        return;
    }
    memset(seen, 0, (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        if (seen[perm[i]]) {
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's %s has block %lld twice", what,
                        (long long)perm[i] + 1);
            break;
        }
        seen[perm[i]] = 1;
    }
    ptm_free(seen);
}
