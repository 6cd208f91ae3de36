/*
 * ranks.c - what the round loop exchanges between Open MPI ranks
 * (spec/runtime.md, "What runs today"): rank 0's decision and round,
 * told to every rank with the new values the others still owe a commit;
 * and under rotation across ranks, the blocks that move to the rank of
 * their next worker, then the scheduled parameter made whole on every
 * rank for the objective and the outputs. With one rank none of this
 * runs (the round loop's pull and commit are in rounds.c).
 *
 * Every rank calls these at the same points of the loop, so the
 * broadcasts and the messages between two ranks pair up in order. The
 * buffers (run->say, run->msgs, run->holder) come from ptm_run_new().
 */
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "engine_impl.h"
#include "ptm.h"

/* Rotation across ranks, before round rd runs: each block whose worker
 * is on another rank than last round's comes over, with what the rule
 * keeps for it. Every rank walks the round in the same order, so the
 * messages between two ranks pair up in order. */
void rt_move_blocks(struct ptm_run *run, const struct rt_round *rd)
{
    size_t n = 0;
    for (int g = 0; g < run->G; g++)
        for (size_t k = rd->part[g]; k < rd->part[g + 1]; k++) {
            int64_t b = rd->blocks[k];
            int to = g / run->P, from = run->holder[b];
            run->holder[b] = to;
            if (from < 0 || from == to || (from != run->rank && to != run->rank))
                continue;
            struct rt_span sp[RT_SPANS];
            int ns = run->rule->spans(run, b, sp);
            for (int i = 0; i < ns; i++)
                run->msgs[n++] = (struct ptm_comm_msg){
                    .buf = sp[i].p,
                    .bytes = sp[i].bytes,
                    .peer = from == run->rank ? to : from,
                    .tag = (int)((b * RT_SPANS + i) % 32768),
                    .send = from == run->rank,
                };
        }
    ptm_comm_post(run->msgs, n);
}

/* Rotation across ranks: the scheduled parameter made whole on every rank
 * from the blocks each rank holds, for the objective and the outputs. */
int rt_gather_blocks(struct ptm_run *run)
{
    struct rt_param *t = &run->params[run->sparam];
    double *sum = rt_zalloc((size_t)t->len, sizeof(double));
    if (!sum)
        return PTM_ENOMEM;
    for (int64_t b = 0; b < run->nblocks; b++) {
        int h = run->holder[b];
        if (h != run->rank && (h >= 0 || run->rank != 0))
            continue; /* another rank's, or everyone's and rank 0 gives it */
        int64_t u0, u1;
        rt_block_units(run, b, &u0, &u1);
        if (run->bs->axis == PLAN_AXIS_COLS) {
            for (int64_t i = 0; i < t->rows; i++)
                for (int64_t j = u0; j < u1; j++)
                    sum[i * t->cols + j] = t->val[i * t->cols + j];
        } else {
            int64_t w = run->bs->axis == PLAN_AXIS_ROWS ? t->cols : 1;
            memcpy(sum + u0 * w, t->val + u0 * w, (size_t)((u1 - u0) * w) * sizeof(double));
        }
    }
    ptm_comm_sum_all(sum, (size_t)t->len);
    memcpy(t->val, sum, (size_t)t->len * sizeof(double));
    ptm_free(sum);
    return 0;
}

/* Rank 0's decision and round to every rank, in one broadcast of
 * run->say: stop, n, then the blocks, their order and the workers'
 * parts, then the new values of the round owed (pulled and committed on
 * rank 0 only, or NULL), which the other ranks commit. */
void rt_tell_round(struct ptm_run *run, struct rt_round *rd, int64_t head[2], struct rt_round *owed)
{
    int64_t *m = run->say, G = run->G;
    size_t cap = run->say_cap, vals = 2 + 2 * cap + (size_t)G + 1;
    if (run->rank == 0) {
        if (owed)
            memcpy(m + vals, run->newval, owed->nvars * sizeof(double));
        m[0] = head[0];
        m[1] = head[1];
        for (size_t i = 0; !head[0] && i < rd->n; i++) {
            m[2 + i] = rd->blocks[i];
            m[2 + cap + i] = (int64_t)rd->order[i];
        }
        for (int64_t p = 0; !head[0] && p <= G; p++)
            m[2 + 2 * cap + p] = (int64_t)rd->part[p];
    }
    ptm_comm_bcast(m, vals * sizeof(int64_t) + (owed ? owed->nvars * sizeof(double) : 0));
    head[0] = m[0];
    head[1] = m[1];
    if (run->rank == 0)
        return;
    if (owed) {
        memcpy(run->newval, m + vals, owed->nvars * sizeof(double));
        rt_commit(run, owed, 0, owed->n, 0);
    }
    if (head[0])
        return;
    rd->n = (size_t)head[1];
    for (size_t i = 0; i < rd->n; i++) {
        rd->blocks[i] = m[2 + i];
        rd->order[i] = (size_t)m[2 + cap + i];
    }
    for (int64_t p = 0; p <= G; p++)
        rd->part[p] = (size_t)m[2 + 2 * cap + p];
}

/* The other ranks commit the round owed now (before the objective). */
void rt_settle(struct ptm_run *run, struct rt_round *owed)
{
    ptm_comm_bcast(run->newval, owed->nvars * sizeof(double));
    if (run->rank != 0)
        rt_commit(run, owed, 0, owed->n, 0);
}
