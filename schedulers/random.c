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
#include "ckpt.h"
#include "ptm.h"
#include "rng.h"
#include "scheduler.h"

struct rnd {
    int64_t nblocks;
    size_t per_round;
    int workers;
    const struct sched_alone *alone;
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
    s->alone = info->alone;
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

/* Uniform in [0, n), n >= 1, without bias: the high half of x * n for a
 * random 64-bit x, rejecting the few x whose low half falls below 2^64
 * mod n (Lemire's method: a division only in that rare case). */
static uint64_t below(struct ptm_rng *g, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)ptm_rng_next(g) * n;
    if ((uint64_t)m < n) {
        uint64_t floor = (0 - n) % n;
        while ((uint64_t)m < floor)
            m = (unsigned __int128)ptm_rng_next(g) * n;
    }
    return (uint64_t)(m >> 64);
}

/* Places drawn ahead of the swaps, so that the permutation's far entries
 * are asked for before they are needed. */
enum { DRAW_AHEAD = 16 };

static int rnd_next(void *state, struct ptm_sched_round *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rnd *s = state;
    size_t ahead[DRAW_AHEAD];
    for (size_t k0 = 0; k0 < s->per_round; k0 += DRAW_AHEAD) {
        size_t k1 = k0 + DRAW_AHEAD < s->per_round ? k0 + DRAW_AHEAD : s->per_round;
        for (size_t k = k0; k < k1; k++) {
            ahead[k - k0] = k + (size_t)below(&s->g, (uint64_t)s->nblocks - k);
            __builtin_prefetch(s->perm + ahead[k - k0]);
        }
        for (size_t k = k0; k < k1; k++) {
            size_t j = ahead[k - k0];
            int64_t t = s->perm[k];
            s->perm[k] = s->perm[j];
            s->perm[j] = t;
        }
    }
    if (ptm_sched_alone(s->alone, s->workers, s->perm, s->per_round))
        ptm_sched_deal_first(out, s->perm, s->per_round, s->workers);
    else
        ptm_sched_deal(out, s->perm, s->per_round, s->workers);
    out->candidates = (int64_t)out->n;
    out->conflicts = 0;
    out->evaluations = 0;
    return 0;
}

/* The permutation, which the next round shuffles on from, and the
 * generator; per_round and the workers only deal the rounds. */
static void rnd_state(void *state, struct ptm_ckpt *ck)
{
    struct rnd *s = state;
    ptm_ck_tag(ck, "sched random");
    ptm_ck_size(ck, s->nblocks, "number of blocks");
    ptm_sched_ck_perm(ck, s->perm, s->nblocks, "random permutation");
    PTM_CK_ARRAY(ck, s->g.s, PTM_ARRAY_LEN(s->g.s));
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
    .state = rnd_state,
    .destroy = rnd_destroy,
};
