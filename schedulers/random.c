/*
 * random.c - the random policy (Shotgun): each round takes per_round
 * distinct blocks drawn uniformly.
 *
 * A permutation of the blocks is kept from round to round; a round is a
 * partial Fisher-Yates shuffle of its first per_round places, which draws
 * them uniformly without replacement whatever order the permutation is in,
 * in time proportional to per_round. The k-th block drawn goes to worker
 * k mod P.
 */
#include "arena.h"
#include "ptm.h"
#include "rng.h"
#include "scheduler.h"

struct rnd {
    int64_t nblocks;
    size_t per_round;
    int workers;
    int64_t *perm; /* nblocks; a round's draws are its first per_round */
    struct ptm_rng g;
};

static int rnd_create(const struct ptm_sched_info *info, void **state, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rnd *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    s->perm = ptm_malloc((size_t)info->nblocks * sizeof(int64_t));
    if (!s->perm) {
        ptm_free(s);
        return PTM_ENOMEM;
    }
    s->nblocks = info->nblocks;
    s->per_round = ptm_sched_per_round(info);
    s->workers = info->workers;
    for (int64_t b = 0; b < s->nblocks; b++)
        s->perm[b] = b;
    ptm_rng_seed(&s->g, info->seed ^ 0x72616e646f6d0000ull); /* "random" stream */
    *state = s;
    return 0;
}

static size_t rnd_cap(const void *state)
{
    return ((const struct rnd *)state)->per_round;
}

/* Uniform in [0, n) by rejection, without the modulo bias. */
static uint64_t below(struct ptm_rng *g, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = ptm_rng_next(g);
    while (x >= limit);
    return x % n;
}

static int rnd_next(void *state, struct ptm_sched_round *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rnd *s = state;
    for (size_t k = 0; k < s->per_round; k++) {
        size_t j = k + (size_t)below(&s->g, (uint64_t)s->nblocks - k);
        int64_t t = s->perm[k];
        s->perm[k] = s->perm[j];
        s->perm[j] = t;
    }
    ptm_sched_deal(out, s->perm, s->per_round, s->workers);
    out->candidates = (int64_t)out->n;
    out->conflicts = 0;
    out->evaluations = 0;
    return 0;
}

static void rnd_destroy(void *state)
{
    struct rnd *s = state;
    ptm_free(s->perm);
    ptm_free(s);
}

const struct ptm_sched_ops ptm_sched_random = {
    .name = "random",
    .create = rnd_create,
    .cap = rnd_cap,
    .next = rnd_next,
    .done = NULL,
    .destroy = rnd_destroy,
};
