/*
 * round_robin.c - the round_robin policy: each round takes the next
 * per_round blocks in order, wrapping around after the last, so every
 * block is updated once in each stretch of nblocks updates. Worker p gets
 * the p-th of P runs of nearly equal length: neighbouring blocks (often
 * neighbouring memory, often related) stay with one worker.
 */
#include "arena.h"
#include "ckpt.h"
#include "ptm.h"
#include "scheduler.h"

struct rr {
    int64_t nblocks, next;
    size_t per_round;
    int workers;
    const struct sched_alone *alone;
};

static int rr_create(const struct ptm_sched_info *info, void **state, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rr *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    s->nblocks = info->nblocks;
    s->next = 0;
    s->per_round = ptm_sched_per_round(info);
    s->workers = info->workers;
    s->alone = info->alone;
    *state = s;
    return 0;
}

static size_t rr_cap(const void *state)
{
    return ((const struct rr *)state)->per_round;
}

static int rr_next(void *state, struct ptm_sched_round *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rr *s = state;
    /* runs of consecutive numbers, wrapping after the last block */
    for (size_t k = 0; k < s->per_round;) {
        size_t len = s->per_round - k;
        if ((int64_t)len > s->nblocks - s->next)
            len = (size_t)(s->nblocks - s->next);
        for (size_t i = 0; i < len; i++)
            out->blocks[k + i] = s->next + (int64_t)i;
        k += len;
        if ((s->next += (int64_t)len) == s->nblocks)
            s->next = 0;
    }
    if (ptm_sched_alone(s->alone, s->workers, out->blocks, s->per_round)) {
        ptm_sched_deal_first(out, out->blocks, s->per_round, s->workers);
    } else {
        if (out->order)
            for (size_t k = 0; k < s->per_round; k++)
                out->order[k] = k;
        out->n = s->per_round;
        out->alone = false;
        ptm_sched_split_even(out, s->workers);
    }
    out->candidates = (int64_t)out->n;
    out->conflicts = 0;
    out->evaluations = 0;
    return 0;
}

/* The position; per_round and the workers only deal the rounds. */
static void rr_state(void *state, struct ptm_ckpt *ck)
{
    struct rr *s = state;
    ptm_ck_tag(ck, "sched round_robin");
    ptm_ck_size(ck, s->nblocks, "number of blocks");
    ptm_sched_ck_index(ck, &s->next, 0, s->nblocks - 1, "round_robin position");
}

static void rr_destroy(void *state)
{
    ptm_free(state);
}

const struct ptm_sched_ops ptm_sched_round_robin = {
    .name = "round_robin",
    .create = rr_create,
    .cap = rr_cap,
    .next = rr_next,
    .done = NULL,
    .state = rr_state,
    .destroy = rr_destroy,
};
