/*
 * rotation.c - the rotation policy (block-cyclic, spec/language.md 5.9):
 * the block set has one block per worker, and in round t worker p holds
 * block (p + t) mod P (0-based), so no two workers hold the same block in
 * a round and P rounds, an epoch, give every worker every block once.
 * Nothing is drawn and nothing depends on the data: the seed and the
 * changes do not matter.
 */
#include <stdio.h>

#include "arena.h"
#include "ckpt.h"
#include "ptm.h"
#include "scheduler.h"

struct rot {
    int workers;
    int64_t t; /* rounds handed out, mod workers */
};

static int rot_create(const struct ptm_sched_info *info, void **state, char *err, size_t errlen)
{
    if (info->nblocks != info->workers) {
        snprintf(err, errlen,
                 "rotation needs one block per worker: block set '%s' has %lld blocks and the "
                 "run has %d workers (write 'blocks %s = ... into workers')",
                 info->bs && info->bs->name ? info->bs->name : "?", (long long)info->nblocks,
                 info->workers, info->bs && info->bs->name ? info->bs->name : "B");
        return PTM_EINVAL;
    }
    struct rot *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    s->workers = info->workers;
    s->t = 0;
    *state = s;
    return 0;
}

static size_t rot_cap(const void *state)
{
    return (size_t)((const struct rot *)state)->workers;
}

static int rot_next(void *state, struct ptm_sched_round *out, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct rot *s = state;
    int64_t P = s->workers;
    for (int64_t p = 0; p < P; p++) {
        out->blocks[p] = (p + s->t) % P;
        out->part[p] = (size_t)p;
        if (out->load)
            out->load[p] = 1;
        if (out->order)
            out->order[p] = (size_t)p;
    }
    out->part[P] = (size_t)P;
    out->n = (size_t)P;
    out->candidates = P;
    out->conflicts = 0;
    out->evaluations = 0;
    s->t = (s->t + 1) % P;
    return 0;
}

/* The round within the epoch. */
static void rot_state(void *state, struct ptm_ckpt *ck)
{
    struct rot *s = state;
    ptm_ck_tag(ck, "sched rotation");
    ptm_ck_size(ck, s->workers, "number of blocks (one a worker)");
    ptm_sched_ck_index(ck, &s->t, 0, s->workers - 1, "rotation's round of the epoch");
}

static void rot_destroy(void *state)
{
    ptm_free(state);
}

const struct ptm_sched_ops ptm_sched_rotation = {
    .name = "rotation",
    .create = rot_create,
    .cap = rot_cap,
    .next = rot_next,
    .done = NULL,
    .state = rot_state,
    .destroy = rot_destroy,
};
