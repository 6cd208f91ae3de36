/*
 * round_robin.c - the round_robin policy: each round takes the next
 * per_round blocks in order, wrapping around after the last, so every
 * block is updated once in each stretch of nblocks updates. The k-th block
 * of a round goes to worker k mod P.
 */
#include "arena.h"
#include "ptm.h"
#include "scheduler.h"

struct rr {
    int64_t nblocks, next;
    size_t per_round;
    int workers;
    int64_t *chosen; /* per_round */
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
    s->chosen = ptm_malloc((s->per_round ? s->per_round : 1) * sizeof(int64_t));
    if (!s->chosen) {
        ptm_free(s);
        return PTM_ENOMEM;
    }
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
    for (size_t k = 0; k < s->per_round; k++) {
        s->chosen[k] = s->next;
        if (++s->next == s->nblocks)
            s->next = 0;
    }
    ptm_sched_deal(out, s->chosen, s->per_round, s->workers);
    out->candidates = (int64_t)out->n;
    out->conflicts = 0;
    out->evaluations = 0;
    return 0;
}

static void rr_destroy(void *state)
{
    struct rr *s = state;
    ptm_free(s->chosen);
    ptm_free(s);
}

const struct ptm_sched_ops ptm_sched_round_robin = {
    .name = "round_robin",
    .create = rr_create,
    .cap = rr_cap,
    .next = rr_next,
    .done = NULL,
    .destroy = rr_destroy,
};
