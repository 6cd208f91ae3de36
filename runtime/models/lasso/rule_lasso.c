/*
 * rule_lasso.c - the built-in Lasso rule (update builtin lasso_cd) and
 * objective (objective builtin lasso_objective) behind the engine's
 * interfaces, over the kernel of kernel_lasso.h.
 *
 * The rule's variables are the coefficients (the elements of beta), so a
 * block of several coefficients is several columns of the same round.
 * The residual r = y - X beta lives in the parameter named by the option r
 * when the job declares one, else in a buffer of the rule's; it is
 * computed from beta's initial values at set-up, whatever r's own
 * initializer says, because the kernel is exact only when r is the
 * residual. The rule splits rounds by blocks: a worker computes whole
 * columns' sums.
 *
 * DESIGN: how P workers share the work of a round depends on `within`
 * and on the ranks (enum mode). Each reads the columns of its share
 * once; what differs is how the residual learns the round's changes.
 *
 * - ROWS (within = parallel, one rank): one r, its rows divided among
 *   the workers (whole chunks of CHUNK rows, balanced by non-zeros). A
 *   round is one phase: each worker applies the last round to its rows of
 *   r; a barrier; it pushes its share of the columns against all of r; a
 *   barrier; it adds X delta of the whole round, on its rows only, into
 *   xd, with its chunks' parts of |X delta|^2 and r . X delta, from which
 *   the coordinator takes the round's step (lasso_step) before the
 *   commit; the next phase applies r -= step xd on each worker's rows. A
 *   worker writes 1/P of the rows, so the work of a round divides by P.
 *   X delta is summed in the policy's order and the step's sums by chunk
 *   (each chunk's rows in the order that order first touches them, then
 *   the chunks in order), so the results are the same bits for any P.
 *   A round of fewer non-zeros than split_min() runs on the first worker
 *   alone (the meetings would cost more than the shares save): it pushes
 *   every share and sums X delta on every row, listing the rows in one
 *   list (allrows, in the order one worker lists them), from which the
 *   next apply, alone or split, takes each worker's rows (all_gen).
 * - SEQ1 (within = sequential, one worker): cyclic coordinate descent on
 *   r, nothing to combine.
 * - SEQP (within = sequential, P > 1 workers, one rank): each worker
 *   copies r whole and runs its share one column after the other on the
 *   copy, which then holds r less its share's X delta; a barrier; then on
 *   its rows X delta of the whole round is the sum over the copies of r
 *   less the copy (with the chunks' sums for the step), and the next
 *   phase applies r -= step X delta on its rows. A worker thus reads its
 *   share's columns twice (as one worker alone reads all of them) and
 *   about 2 + 2/P passes over the rows, the copy and the merge; computing
 *   X delta from the columns instead would read every column of the
 *   round again on each worker. A round whose columns hold fewer
 *   non-zeros than split_min() runs instead on the first worker alone,
 *   on r itself, in the policy's order (exact coordinate descent, never
 *   damped: the steps one worker would take), the others not woken; so do
 *   the rounds after a split round that gained too little over what its
 *   shares gained alone (split_verdict).
 * - RANKS (within = parallel under MPI): the rows are the ranks'; each
 *   worker keeps its own copy of its rank's r and applies every round's
 *   changes to it in the same phase as its next push, and rank 0 pulls
 *   the sums over the ranks.
 *
 * INTERCEPT. With the option intercept (a parameter b of one value) the
 * model is y ~ X beta + b, b unpenalised, and r = y - X beta - b. Given
 * beta, the exact minimizer over b is b + mean(r), after which r has mean
 * 0: a step of b is b += c, r -= c with c = mean(r). A step is taken at
 * set-up (from the summed r, over the ranks) and then between rounds; a
 * step of b is an exact minimization that never raises f. b also follows
 * the coefficients' steps, each the minimizer over beta_j with b at its
 * best (coordinate descent on the centred columns, centre_sums): in each
 * step of a round pushed on r itself (SEQ1, SEQP alone:
 * lasso_push_seq_b), or with a round's combined change (ROWS, RANKS:
 * the sums centred, and damp_step's check of the move of beta and b
 * together); a SEQP split round holds b fixed, its shares reading r -
 * owe, and is damped with b fixed.
 *
 * r stands off the residual by owe there (the residual is r - owe), so
 * that moving b costs no pass over the rows: b takes its step after every
 * round, into owe, and the step due once a sweep (INTERCEPT_EVERY_SWEEP)
 * leaves owe in shift, which the next apply subtracts from each worker's
 * rows, summing them by chunk on the way (cs), so that the sum starts
 * exact again, in chunk order (the same bits for any P). The sum itself
 * is not read from the rows after every round: a change delta of beta_j
 * moves it by -delta sum_i x_ij, so it follows from the committed changes
 * and the columns' sums (csum, over all ranks); the coordinator keeps it
 * (in lasso_damp, SEQ1 included, which therefore commits there too).
 * Under RANKS every worker follows the sum, b and what its copy of r owes
 * itself from the rounds it applies, in the policy's order, so every
 * worker of every rank computes the same steps without a message; b is
 * theirs until lasso_sync writes it to its table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "builtins.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "gen_lasso.h"
#include "kernel_lasso.h"
#include "model.h"
#include "predict_lasso.h"
#include "ptm.h"

/* Rows a chunk: under ROWS and SEQP the workers' rows are whole chunks. */
#define CHUNK 256

/* How often r gets what it owes the residual (b itself steps after every
 * round, INTERCEPT): 0 after every round, 1 after the round that
 * completes a sweep (as many updates as blocks). It costs a pass over the
 * rows of r, a round as little as its columns' non-zeros (measured when b
 * stepped with r, before owe): on
 * `ptm gen lasso --seed 1 --offset 10` (1000 x 2000) with rounds of 16
 * columns (within = sequential) a step every round took 1.5 to 3 times
 * the wall time of one every sweep to reach f* (1 + 1e-6), on 1 and 2
 * workers; with the example's rounds of up to 1000 columns, and on 20000 x
 * 5000, the two were within the timings' noise, every round at times a
 * few rounds ahead, never ahead in time. */
#ifndef INTERCEPT_EVERY_SWEEP
#define INTERCEPT_EVERY_SWEEP 1
#endif

struct lasso_opts {
    int32_t x, y, beta, r, b; /* r, b (the intercept): -1 when absent */
    double lambda;
};

enum mode { ROWS, SEQ1, SEQP, RANKS };

/* A worker's own (ROWS, SEQP). */
struct lasso_w {
    int32_t *rows; /* ROWS: the rows of its own that X delta touches, nr of them
                      (SEQP: room for a list a checkpoint's form may hold) */
    size_t nr;
    uint64_t all_seen; /* ROWS: the last list of a round alone applied (all_gen) */
    bool solo;     /* SEQP: the last round ran on the first worker alone */
    double dec;    /* SEQP: how much its share lowered f on its copy */
    int64_t nnz;   /* SEQP: the non-zeros of its share's columns */
};

struct lasso_state {
    struct lasso_opts o;
    enum mode mode;
    const struct ptm_csc *x; /* all of X (of the rank's rows under MPI) */
    double *sq;              /* ||x_j||^2, every column */
    double *r;               /* y - X beta, every row */
    bool own_r;
    double **rw; /* RANKS: worker p's copy of r (rw[0] is r); SEQP, ROWS: its scratch copy */
    /* ROWS and SEQP */
    int64_t *lo, *hi;    /* worker p's rows lo[p] .. hi[p]-1 */
    double *xd;          /* X delta of the round, each worker on its rows */
    unsigned char *mark; /* xd[i] holds a sum (ROWS, RANKS) */
    size_t *pos;         /* ROWS: the dealt place of the block at each policy place */
    int64_t *pvars;      /* ROWS, a variable a block: the round's, in the policy's order
                            (blocks of several: damp_step's scratch for the same) */
    double *pdelta;      /* ... and their changes */
    int32_t **cut;       /* cut[p], 0 < p < P: where worker p's rows start in each
                            column (lasso_row_cut), or NULL: searched for */
    double *ca, *cb;     /* each chunk's part of |X delta|^2 and r . X delta */
    struct lasso_w *wk;  /* P */
    /* SEQP: rounds to run on the first worker alone before splitting is
     * tried again, and the next such wait (see lasso_damp) */
    int64_t solo_left, backoff;
    int64_t split_min; /* SEQP: option split_min (SPLIT_MIN_NNZ) */
    int64_t col_max;   /* SEQP: the most non-zeros a column of X holds */
    /* The intercept (o.b >= 0; see INTERCEPT). */
    double *csum;        /* every column's sum of entries, over all ranks */
    double *sqc;         /* each column's centred square (lasso_centred, over all ranks) */
    double owe;          /* ROWS, SEQP, SEQ1: r stands off the residual by this a row */
    double pend;         /* ROWS, SEQP, SEQ1: how far the round moved b */
    double *cs;          /* ROWS, SEQP, SEQ1: each chunk's sum of r after a shift */
    double rsum;         /* ROWS, SEQP, SEQ1 (the coordinator's): the sum of r after the
                            last round and shift, when not fresh */
    bool fresh;          /* cs holds the sums after the pending round's shift */
    double shift;        /* ROWS, SEQP, SEQ1: what the pending round's apply subtracts
                            from every row of r (b has moved by it) */
    int64_t ups, due;    /* the updates so far, and when the next step of b is due */
    struct lasso_rk *rk; /* RANKS: each worker's */
    int32_t *drows;      /* RANKS: the rank's rows X delta touches (xd, mark) */
    int32_t *allrows;    /* ROWS, P > 1: the rows X delta of a round alone touches, */
    size_t nall;         /* nall of them, in the order it touched them; */
    uint64_t all_gen;    /* counts rounds alone: a worker applied its rows of the
                            list when its all_seen equals it */
};

/* RANKS, with an intercept: what each worker keeps, the same on every
 * worker of every rank (see INTERCEPT). */
struct lasso_rk {
    double sum;       /* the sum of the residual over all ranks' rows */
    double b;         /* the intercept */
    double owe;       /* as in struct lasso_state, of the worker's copy */
    int64_t ups, due; /* as in struct lasso_state */
};

/* SEQP: a split round is taken to cost SPLIT_COST / P of a round on one
 * worker (a P-th of the columns, plus merging the copies); it pays while
 * it lowers the objective by at least that share of what the workers'
 * shares lowered it by on their own copies. */
#define SPLIT_COST 1.25
/* the longest wait before splitting is tried again, in rounds */
#define SOLO_MAX 64
/* SEQP: the fewest non-zeros of a round's columns for it to be split
 * (option split_min; never fewer than X has rows). Alone, the first
 * worker reads each non-zero twice (the dot product, then the residual's
 * update); split, each worker does that for its share and passes over the
 * rows about 2 + 2/P times (the copy, the merge, its part of the apply),
 * and the workers meet three times (the phase and two barriers, tens of
 * microseconds each on a virtual machine). A round of many non-zeros a
 * row thus runs nearly P times as fast split, but what decides is the
 * shares' interference, which no single round shows: on two virtual cores
 * (bench/RESULTS.md, Schedulers / Workers), split rounds of a whole sweep
 * reached 1e-6 of f* 3.9 times as fast as one worker on the tall data
 * (cyclic order: 79 sweeps where one worker needs 203) and 1.6 times (a
 * random order each round: 51 sweeps both), but 1.7 times slower on the
 * wide data (34 sweeps where one worker needs 16), each round there
 * lowering f by most of what its shares did alone; rounds of 4000 columns
 * gained nothing on either. So the default, 2^24 non-zeros (about 30 ms
 * of work alone), splits only rounds so large that a run has few of them;
 * split_min = 0 or a lower value splits more. */
#define SPLIT_MIN_NNZ ((int64_t)1 << 24)
/* ROWS: the same for a round computed together. Split or alone, it gives
 * the same results (the same sums in the same order), so only the time
 * decides. Split, each worker pushes its share and sums X delta on its
 * rows, and the workers meet three times; under `keep moved` the filter
 * between runs on the first worker while the others wait. On the bench's
 * two virtual cores (bench/rows_bench.py; rounds' seconds, 1 worker / 2
 * workers split): rounds of 20,000 to 25,000 non-zeros 0.53 to 0.73
 * (round_robin, random and dynamic rounds of 1000 columns on data A, B and
 * wide), 40,000 to 50,000 0.58 to 1.33, 80,000 to 100,000 0.75 to 1.55
 * (random rounds of 4000 columns on data B and wide, of 1000 on the tall
 * data; the second core gave more in some minutes than in others);
 * under `keep moved` 0.63 to 0.91 up to 82,000 non-zeros. Alone, rounds
 * run as fast as on one worker (0.97 to 1.07). Measured again with 7 to 9
 * alternating runs, random rounds of 4000 columns split: data A and B
 * (100,000 non-zeros) 0.72 and 0.74, wide (80,000) 0.91, alone 1.02 to
 * 1.04; the tall data (320,000) 1.09 and 1.57 split. The split's
 * meetings and the first worker's step and commit over every block (its
 * share's changes sit in the other core's cache) cost about as much as
 * half the push saves at 100,000 non-zeros, so a round is split from
 * 2^18 of them: two workers are never slower than one on the bench's
 * shapes, and only rounds that pay are split. */
#define ROWS_SPLIT_MIN_NNZ ((int64_t)1 << 18)
/* ROWS: an objective evaluation (a pass over the rows, about a nanosecond
 * a row) runs on the first worker alone below this many rows, where waking
 * the others costs more than their share saves: on data B (5000 rows),
 * rounds alone, 28 evaluations took 1.65 ms split, 0.13 alone. */
#define ROWS_OBJECTIVE_ALONE ((int64_t)1 << 16)

/* What r owes the residual as the round being pushed reads it (RANKS: the
 * first worker's copy, the same on every worker). */
static double owe_now(const struct lasso_state *k)
{
    return k->rk ? k->rk[0].owe : k->owe;
}

/* With an intercept, push's sums of columns vars[0 .. n) made the
 * centred ones (INTERCEPT): x_j . (r - owe) + sqc_j beta_j, and sqc_j (0
 * for a constant column), so that b follows the steps. */
static void centre_sums(const struct lasso_state *k, const double *beta, const int64_t *vars,
                        size_t n, double *z)
{
    double owe = owe_now(k);
    for (size_t q = 0; q < n; q++) {
        int64_t j = vars[q];
        z[LASSO_K * q] += (k->sqc[j] - z[LASSO_K * q + 1]) * beta[j] - owe * k->csum[j];
        z[LASSO_K * q + 1] = k->sqc[j];
    }
}

/* The residual worker w reads and writes. */
static double *resid(const struct lasso_state *k, const struct rt_worker *w)
{
    return k->mode == RANKS ? k->rw[w->id] : k->r;
}

/* The options of hook h (lasso_cd or lasso_objective), checked against
 * the run. */
static int read_opts(const struct ptm_run *run, const struct plan_hook *h, const char *who,
                     struct lasso_opts *o, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_option *ox = rt_option(h, "X"), *oy = rt_option(h, "y"),
                             *ob = rt_option(h, "beta"), *orr = rt_option(h, "r"),
                             *ol = rt_option(h, "lambda"), *oi = rt_option(h, "intercept");
    if (!ox || ox->kind != PLAN_VALUE_DATA || !oy || oy->kind != PLAN_VALUE_DATA || !ob ||
        ob->kind != PLAN_VALUE_PARAM || !ol || ol->kind != PLAN_VALUE_NUM ||
        (orr && orr->kind != PLAN_VALUE_PARAM) || ox->ref < 0 || (uint32_t)ox->ref >= plan->ndata ||
        oy->ref < 0 || (uint32_t)oy->ref >= plan->ndata || ob->ref < 0 ||
        (uint32_t)ob->ref >= plan->nparams ||
        (orr && (orr->ref < 0 || (uint32_t)orr->ref >= plan->nparams)) ||
        (oi &&
         (oi->kind != PLAN_VALUE_PARAM || oi->ref < 0 || (uint32_t)oi->ref >= plan->nparams))) {
        snprintf(err, errlen, "%s: options X, y, beta and lambda are missing or of the wrong kind",
                 who);
        return PTM_EINVAL;
    }
    o->x = ox->ref;
    o->y = oy->ref;
    o->beta = ob->ref;
    o->r = orr ? orr->ref : -1;
    o->b = oi ? oi->ref : -1;
    o->lambda = ol->num;
    const struct plan_data *dx = &plan->data[o->x], *dy = &plan->data[o->y];
    const struct ptm_dataset *X = run->data[o->x];
    if (dx->format == PLAN_FORMAT_LABELS || !X || !X->sparse) {
        snprintf(err, errlen, "%s: data '%s' must be a sparse matrix (dense X is not supported yet)",
                 who, dx->name);
        return PTM_EINVAL;
    }
    if (dy->labels_of != o->x || !X->has_labels) {
        snprintf(err, errlen, "%s: y must be labels(%s) (a separate label file is not supported yet)",
                 who, dx->name);
        return PTM_EINVAL;
    }
    if (!(o->lambda >= 0) || !isfinite(o->lambda)) {
        snprintf(err, errlen, "%s: lambda must be a finite number >= 0", who);
        return PTM_EINVAL;
    }
    const struct rt_param *b = &run->params[o->beta];
    if (!b->val || b->cols != 1 || b->len != X->csr.ncols) {
        snprintf(err, errlen, "%s: beta ('%s') must be a vector of cols(%s) = %lld values with one copy",
                 who, b->pp->name, dx->name, (long long)X->csr.ncols);
        return PTM_EINVAL;
    }
    if (o->x != run->rowdata && run->rowdata >= 0) {
        snprintf(err, errlen, "%s: X ('%s') must be the data sharded by rows", who, dx->name);
        return PTM_EINVAL;
    }
    if (o->r >= 0) {
        const struct rt_param *r = &run->params[o->r];
        bool sharded_ok = r->shard_like == o->x || (run->rowdata < 0 && r->val);
        if (!sharded_ok || r->cols != 1 || r->len != run->grows) {
            snprintf(err, errlen,
                     "%s: r ('%s') must be a vector of rows(%s) = %lld values sharded like %s", who,
                     r->pp->name, dx->name, (long long)run->grows, dx->name);
            return PTM_EINVAL;
        }
    }
    if (o->b >= 0) {
        const struct rt_param *ip = &run->params[o->b];
        if (!ip->val || ip->len != 1 || o->b == o->beta || o->b == o->r) {
            snprintf(err, errlen,
                     "%s: the intercept ('%s') must be a vector of one value with one copy", who,
                     ip->pp->name);
            return PTM_EINVAL;
        }
    }
    return 0;
}

/* ROWS and SEQP: the workers' rows, whole chunks balanced by non-zeros,
 * and the buffers of X delta. */
static int split_setup(struct ptm_run *run, struct lasso_state *k)
{
    const struct ptm_csc *x = k->x;
    size_t m = (size_t)(x->nrows > 0 ? x->nrows : 1), P = (size_t)run->P;
    int64_t nch = (x->nrows + CHUNK - 1) / CHUNK;
    size_t nc = (size_t)(nch > 0 ? nch : 1);
    k->xd = rt_zalloc(m, sizeof(double));
    k->lo = rt_zalloc(P, sizeof(int64_t));
    k->hi = rt_zalloc(P, sizeof(int64_t));
    k->ca = rt_zalloc(nc, sizeof(double));
    k->cb = rt_zalloc(nc, sizeof(double));
    k->wk = rt_zalloc(P, sizeof(*k->wk));
    int64_t *cnz = rt_zalloc(nc, sizeof(int64_t));
    if (!k->xd || !k->lo || !k->hi || !k->ca || !k->cb || !k->wk || !cnz) {
        ptm_free(cnz);
        return PTM_ENOMEM;
    }
    /* each chunk's non-zeros: from the rows' offsets where the data set
     * keeps them (it does after giving its entries to the columns), else
     * counted over the entries */
    const struct ptm_dataset *X = run->data[k->o.x];
    const int64_t *rp = X && X->sparse && X->csr.nrows == x->nrows ? X->csr.rowptr : NULL;
    if (rp && rp[x->nrows] == x->nnz) {
        for (int64_t ch = 0; ch < nch; ch++)
            cnz[ch] = rp[(ch + 1) * CHUNK < x->nrows ? (ch + 1) * CHUNK : x->nrows] - rp[ch * CHUNK];
    } else {
        for (int64_t e = 0; e < x->nnz; e++) /* rows are >= 0: unsigned, a shift */
            cnz[(uint32_t)x->rowind[e] / CHUNK]++;
    }
    /* worker p takes chunks while that brings the non-zeros before its end
     * nearer to (p + 1) / P of all of them; the last takes the rest */
    int64_t c = 0, seen = 0;
    for (int p = 0; p < run->P; p++) {
        k->lo[p] = c * CHUNK < x->nrows ? c * CHUNK : x->nrows;
        double want = (double)x->nnz * (double)(p + 1) / (double)run->P;
        while (c < nch && (p == run->P - 1 || (double)seen + (double)cnz[c] / 2 <= want)) {
            seen += cnz[c];
            c++;
        }
        k->hi[p] = c * CHUNK < x->nrows ? c * CHUNK : x->nrows;
    }
    ptm_free(cnz);
    /* SEQP: before the first round no split round is pending, as after
     * one alone: the first objective evaluation runs on the first worker
     * alone too, and a run whose rounds all do never wakes the others */
    for (int p = 0; k->mode == SEQP && p < run->P; p++)
        k->wk[p].solo = true;
    size_t B = (size_t)(run->nblocks > 0 ? run->nblocks : 1);
    k->cut = rt_zalloc(P + 1, sizeof(int32_t *));
    if (!k->cut || (k->mode == ROWS && !(k->mark = rt_zalloc(m, 1)))) /* SEQP merges all rows */
        return PTM_ENOMEM;
    if (k->mode == ROWS && !(k->pos = rt_zalloc(B, sizeof(size_t))))
        return PTM_ENOMEM;
    /* ROWS: a round's variables in the policy's order (damp_step) too */
    size_t nv = B;
    if (k->mode == ROWS && (size_t)run->params[k->o.beta].len > nv)
        nv = (size_t)run->params[k->o.beta].len;
    /* written by each round before it reads them: not zeroed, so that
     * their pages are touched only where a round uses them (SEQP's rounds
     * alone in the policy's order never do) */
    if (!(k->pvars = ptm_malloc(nv * sizeof(int64_t))) ||
        !(k->pdelta = ptm_malloc(nv * sizeof(double))))
        return PTM_ENOMEM;
    /* ROWS: the cut tables while they stay within 64 MiB */
    if (k->mode == ROWS &&
        (double)(P - 1) * (double)x->ncols * sizeof(int32_t) <= 64.0 * 1024 * 1024)
        for (int p = 1; p < run->P; p++) {
            if (!(k->cut[p] = rt_zalloc((size_t)(x->ncols > 0 ? x->ncols : 1), sizeof(int32_t))))
                return PTM_ENOMEM;
            lasso_row_cut(x, k->lo[p], k->cut[p]);
        }
    for (int p = 0; p < run->P; p++) {
        int64_t len = k->hi[p] - k->lo[p];
        if (!(k->wk[p].rows = rt_zalloc((size_t)(len > 0 ? len : 1), sizeof(int32_t))))
            return PTM_ENOMEM;
    }
    if (k->mode == ROWS && run->P > 1 &&
        !(k->allrows = rt_zalloc((size_t)(x->nrows > 0 ? x->nrows : 1), sizeof(int32_t))))
        return PTM_ENOMEM;
    return 0;
}

/* r[i] -= c on the rows lo .. hi-1 (whole chunks, but for the last),
 * and each of their chunks' sums into cs. */
static void shift_rows(const struct lasso_state *k, double c, int64_t lo, int64_t hi)
{
    double *restrict r = k->r;
    for (int64_t ch = lo / CHUNK; lo < hi && ch * CHUNK < hi; ch++) {
        int64_t e = (ch + 1) * CHUNK < hi ? (ch + 1) * CHUNK : hi;
        double sum = 0;
        for (int64_t i = ch * CHUNK; i < e; i++) {
            r[i] -= c;
            sum += r[i];
        }
        k->cs[ch] = sum;
    }
}

/* The sum of cs, in chunk order. */
static double chunks_sum(const struct lasso_state *k)
{
    double sum = 0;
    for (int64_t ch = 0; ch * CHUNK < k->x->nrows; ch++)
        sum += k->cs[ch];
    return sum;
}

/* After a round of n blocks: whether the intercept takes its step now. */
static bool step_due(const struct ptm_run *run, int64_t *ups, int64_t *due, size_t n)
{
    *ups += (int64_t)n;
    if (*ups < *due)
        return false;
    if (INTERCEPT_EVERY_SWEEP && run->nblocks > 0)
        *due = (*ups / run->nblocks + 1) * run->nblocks;
    return true;
}

/* The intercept's set-up (INTERCEPT): the columns' sums; r = y - X beta
 * - b from r = y - X beta; the first step of b; the sum of r. Every rank
 * calls it. */
static int intercept_setup(struct ptm_run *run, struct lasso_state *k)
{
    const struct ptm_csc *x = k->x;
    int64_t m = x->nrows, nch = (m + CHUNK - 1) / CHUNK;
    k->cs = rt_zalloc((size_t)(nch > 0 ? nch : 1), sizeof(double));
    if (!k->cs)
        return PTM_ENOMEM;
    if (k->mode == RANKS && !(k->rk = rt_zalloc((size_t)run->P, sizeof(*k->rk))))
        return PTM_ENOMEM;
    /* k->csum: this rank's column sums, from lasso_setup's pass */
    ptm_comm_sum_all(k->csum, (size_t)x->ncols); /* other ranks' rows too */
    double *b = run->params[k->o.b].val, n = (double)run->grows;
    /* the columns' centred squares, from sq over all ranks' rows */
    if (!(k->sqc = rt_zalloc((size_t)x->ncols, sizeof(double))))
        return PTM_ENOMEM;
    memcpy(k->sqc, k->sq, (size_t)x->ncols * sizeof(double));
    ptm_comm_sum_all(k->sqc, (size_t)x->ncols);
    for (int64_t j = 0; j < x->ncols; j++)
        k->sqc[j] = lasso_centred(k->sqc[j], k->csum[j], run->grows);
    shift_rows(k, *b, 0, m);
    double sum = chunks_sum(k);
    ptm_comm_sum_all(&sum, 1);
    double c = sum / n;
    *b += c;
    shift_rows(k, c, 0, m);
    sum = chunks_sum(k);
    ptm_comm_sum_all(&sum, 1);
    k->rsum = sum;
    k->due = INTERCEPT_EVERY_SWEEP ? run->nblocks : 0;
    for (int p = 0; k->rk && p < run->P; p++)
        k->rk[p] = (struct lasso_rk){.sum = sum, .b = *b, .due = k->due};
    return 0;
}

/* Without an intercept, labels whose mean is more than twice their
 * standard deviation have to be fitted by X beta: on non-negative columns
 * by many coefficients, which coordinate descent finds slowly (the bench's
 * tall data, labels of mean 10: the Lasso example's schedule took 130
 * sweeps to 1e-6 of f* without an intercept, 3 sweeps with one). Say so,
 * once, from the labels of every rank. */
static void intercept_note(struct ptm_run *run, const struct lasso_state *k)
{
    const double *y = run->w[0].shard[k->o.y].labels;
    double s[2] = {0, 0}, n = (double)run->grows;
    for (int64_t i = 0; i < k->x->nrows; i++) {
        s[0] += y[i];
        s[1] += y[i] * y[i];
    }
    ptm_comm_sum_all(s, 2);
    double mean = s[0] / n, var = s[1] / n - mean * mean;
    if (run->rank == 0 && run->opts.log && n > 1 && var > 0 && mean * mean > 4 * var)
        fprintf(run->opts.log,
                "note: update lasso_cd has no intercept, and the labels' mean (%.3g) is %.3g "
                "times their standard deviation: X beta has to fit it, which can take many "
                "coefficients and sweeps; `param b : vector[1] = 0` and `intercept = b` fit it "
                "directly (spec/language.md 5.11)\n",
                mean, fabs(mean) / sqrt(var));
}

static int lasso_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lasso_state *k = rt_zalloc(1, sizeof(*k));
    if (!k)
        return PTM_ENOMEM;
    run->rule_state = k;
    int rc = read_opts(run, &run->plan->update, "update lasso_cd", &k->o, err, errlen);
    if (rc != 0)
        return rc;
    if (run->sparam != k->o.beta) {
        snprintf(err, errlen, "update lasso_cd: the scheduled blocks must be of beta ('%s')",
                 run->params[k->o.beta].pp->name);
        return PTM_EINVAL;
    }
    k->x = &run->w[0].shard[k->o.x].csc;
    size_t m = (size_t)(k->x->nrows > 0 ? k->x->nrows : 1);
    k->sq = rt_zalloc((size_t)k->x->ncols, sizeof(double));
    k->r = k->o.r >= 0 ? run->params[k->o.r].val : NULL;
    if (!k->r) {
        k->r = rt_zalloc(m, sizeof(double));
        k->own_r = true;
    }
    if (!k->sq || !k->r)
        return PTM_ENOMEM;
    bool seq = rt_within_sequential(&run->plan->update);
    if (seq && run->nranks > 1 && run->rank == 0 && run->opts.log)
        /* a coordinate's step reads every row, and a rank holds its own:
         * the ranks compute a round's updates together, damped */
        fprintf(run->opts.log,
                "note: update lasso_cd: within = sequential needs every row on one rank; the %d "
                "ranks compute each round's updates together (within = parallel), damped\n",
                run->nranks);
    k->mode = run->nranks > 1 ? RANKS : !seq ? ROWS : run->P == 1 ? SEQ1 : SEQP;
    k->split_min = (int64_t)rt_option_num(&run->plan->update, "split_min",
                                          k->mode == ROWS ? ROWS_SPLIT_MIN_NNZ : SPLIT_MIN_NNZ);
    for (int64_t j = 0; (k->mode == SEQP || k->mode == ROWS) && j < k->x->ncols; j++)
        if (k->x->colptr[j + 1] - k->x->colptr[j] > k->col_max)
            k->col_max = k->x->colptr[j + 1] - k->x->colptr[j];
    /* apply needs the policy's order only to sum X delta in it, which
     * only RANKS does there: ROWS and SEQP sum it in push (in the policy's
     * order, which they read: pvars, and a round alone), so the engine
     * need not copy each round into that order for apply */
    run->apply_dealt = k->mode != RANKS;
    run->want_order = k->mode == ROWS || k->mode == SEQP;
    /* `keep moved`: ROWS drops changes between the push and X delta */
    run->push_rechecks = k->mode == ROWS;
    /* rounds whose changes were computed together are damped (lasso_damp),
     * where the intercept takes its steps too */
    run->damps = k->mode == ROWS || k->mode == SEQP || k->mode == RANKS ||
                 (k->mode == SEQ1 && k->o.b >= 0);
    run->step = 1;
    if ((k->mode == ROWS || k->mode == SEQP) && (rc = split_setup(run, k)) != 0)
        return rc;
    if (k->mode == RANKS && (!(k->xd = rt_zalloc(m, sizeof(double))) ||
                             !(k->mark = rt_zalloc(m, 1)) ||
                             !(k->drows = rt_zalloc(m, sizeof(int32_t)))))
        return PTM_ENOMEM;
    if (!(k->rw = rt_zalloc((size_t)run->P, sizeof(double *))))
        return PTM_ENOMEM;
    for (int p = 0; p < run->P; p++) /* copies of r, taken whole before they are read */
        if (k->mode == SEQP || (k->mode == ROWS && run->P > 1) || (k->mode == RANKS && p > 0))
            if (!(k->rw[p] = ptm_malloc(m * sizeof(double))))
                return PTM_ENOMEM;
    /* the columns' squares, and their sums for an intercept, in one pass */
    if (k->o.b >= 0 && !(k->csum = rt_zalloc((size_t)k->x->ncols, sizeof(double))))
        return PTM_ENOMEM;
    /* the workers' threads are idle yet */
    ptm_csc_colsums(k->x, run->P, k->sq, k->csum);
    lasso_residual(k->x, run->w[0].shard[k->o.y].labels, run->params[k->o.beta].val, k->r);
    if (k->o.b >= 0 && (rc = intercept_setup(run, k)) != 0)
        return rc;
    if (k->o.b < 0)
        intercept_note(run, k);
    if (k->mode == RANKS) {
        k->rw[0] = k->r;
        for (int p = 1; p < run->P; p++)
            memcpy(k->rw[p], k->r, (size_t)k->x->nrows * sizeof(double));
    }
    return 0;
}

static void lasso_release(struct ptm_run *run)
{
    struct lasso_state *k = run->rule_state;
    if (!k)
        return;
    ptm_free(k->sq);
    if (k->rw)
        for (int p = 0; p < run->P; p++)
            if (k->mode == SEQP || (k->mode == ROWS && run->P > 1) || (k->mode == RANKS && p > 0))
                ptm_free(k->rw[p]);
    ptm_free(k->rw);
    if (k->wk)
        for (int p = 0; p < run->P; p++)
            ptm_free(k->wk[p].rows);
    ptm_free(k->wk);
    ptm_free(k->lo);
    ptm_free(k->hi);
    ptm_free(k->xd);
    ptm_free(k->mark);
    ptm_free(k->drows);
    ptm_free(k->pos);
    ptm_free(k->pvars);
    ptm_free(k->pdelta);
    if (k->cut)
        for (int p = 0; p <= run->P; p++)
            ptm_free(k->cut[p]);
    ptm_free(k->cut);
    ptm_free(k->ca);
    ptm_free(k->cb);
    ptm_free(k->csum);
    ptm_free(k->sqc);
    ptm_free(k->cs);
    ptm_free(k->rk);
    ptm_free(k->allrows);
    if (k->own_r)
        ptm_free(k->r);
    ptm_free(k);
    run->rule_state = NULL;
}

static size_t lasso_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    return LASSO_K * nvars;
}

/* The changes of the worker's share, newval - beta, into rd->change,
 * which is scratch until the commit. */
static void share_changes(const struct ptm_run *run, const struct lasso_state *k,
                          const struct rt_round *rd, int64_t v0, size_t nv)
{
    const double *beta = run->params[k->o.beta].val;
    for (size_t v = 0; v < nv; v++)
        rd->change[v0 + (int64_t)v] = run->newval[v0 + (int64_t)v] - beta[rd->vars[v0 + (int64_t)v]];
}

/* xd += X delta of cols[0 .. n) on worker p's rows, listed in its rows
 * (lasso_scatter_rows, with the cut tables when there are some). */
static void scatter_own(const struct ptm_run *run, const struct lasso_state *k, int p,
                        const int64_t *cols, const double *delta, size_t n)
{
    struct lasso_w *d = &k->wk[p];
    lasso_scatter_rows(k->x, cols, delta, n, k->lo[p], k->hi[p], p > 0 ? k->cut[p] : NULL,
                       p + 1 < run->P ? k->cut[p + 1] : NULL, k->xd, k->mark, d->rows, &d->nr);
}

/* The worker's chunks' parts of |X delta|^2 and r . X delta, over the
 * rows it listed (all among lo .. hi-1), in the order it listed them. A
 * worker without rows (lo == hi, which may be rows(X) itself, inside the
 * last worker's chunk) has no chunk. */
static void chunk_sums(const struct lasso_state *k, const int32_t *rows, size_t nr, int64_t lo,
                       int64_t hi)
{
    for (int64_t c = lo / CHUNK; lo < hi && c * CHUNK < hi; c++)
        k->ca[c] = k->cb[c] = 0;
    for (size_t q = 0; q < nr; q++) {
        int32_t i = rows[q];
        double u = k->xd[i];
        k->ca[i / CHUNK] += u * u;
        k->cb[i / CHUNK] += k->r[i] * u;
    }
}

/* ROWS: r -= t X delta on the rows listed in rows[0 .. n) that lie in
 * lo .. hi-1 (a round alone's list, each worker its own rows of it). */
static void apply_listed(const struct lasso_state *k, const int32_t *rows, size_t n, int64_t lo,
                         int64_t hi, double t)
{
    double *restrict r = k->r, *restrict xd = k->xd;
    for (size_t q = 0; q < n; q++) {
        int32_t i = rows[q];
        if (i >= lo && i < hi) {
            r[i] -= t * xd[i];
            xd[i] = 0;
            k->mark[i] = 0;
        }
    }
}

/* Block i of rd (as dealt): its place in the policy's order. */
static inline size_t policy_place(const struct rt_round *rd, size_t i)
{
    return rd->alone ? i : rd->order[i]; /* alone: dealt in that order */
}

/* ROWS under `keep moved`, on the first worker once every share's
 * changes are in: the policy keeps the blocks that changed and conflict
 * with none kept before them; the others' changes become 0 (rd->change,
 * newval, and pdelta that X delta sums). */
static void recheck_rows(struct ptm_run *run, const struct lasso_state *k,
                         const struct rt_round *rd, bool one)
{
    struct rt_recheck *c = &run->rk;
    const double *beta = run->params[k->o.beta].val;
    for (size_t i = 0; i < rd->n; i++)
        c->pb[policy_place(rd, i)] = rd->blocks[i];
    for (size_t q = 0; q < rd->n; q++) {
        bool moved = false;
        if (one) {
            moved = k->pdelta[q] != 0;
        } else {
            size_t i = k->pos[q];
            for (int64_t v = rd->off[i]; v < rd->off[i + 1]; v++)
                moved |= rd->change[v] != 0;
        }
        c->flag[q] = moved;
    }
    if (rt_recheck(run, rd->n) == 0)
        return;
    for (size_t i = 0; i < rd->n; i++) {
        if (!c->flag[policy_place(rd, i)])
            continue;
        if (one)
            k->pdelta[policy_place(rd, i)] = 0;
        for (int64_t v = rd->off[i]; v < rd->off[i + 1]; v++) {
            rd->change[v] = 0;
            run->newval[v] = beta[rd->vars[v]];
        }
    }
}

/* ROWS: the worker's share against all of r, then X delta of the whole
 * round on its rows, in the policy's order, and its chunks' sums. A round
 * alone (lasso_alone): the first worker does all of it, every worker's
 * rows in turn, the same sums in the same order. */
static void push_rows(struct rt_worker *w, const struct rt_round *rd, int64_t v0, size_t nv)
{
    struct ptm_run *run = w->run;
    struct lasso_state *k = run->rule_state;
    bool alone = run->work.alone;
    int p0 = alone ? 0 : w->id, p1 = alone ? run->P : w->id + 1;
    const double *r = k->r;
    if (!alone) {
        /* the share's non-zeros: when they outnumber the rows, r is read
         * from a copy taken in one sweep (the other workers' rows sit in
         * their caches; fetched by the push's scattered reads, one line at
         * a time, they cost more than the whole copy) */
        int64_t nnz = rt_cols_nnz(k->x, rd->vars + v0, nv), n = k->x->nrows;
        rt_barrier(w); /* every worker's rows of r hold the last round */
        if (run->P > 1 && nnz >= n) {
            memcpy(k->rw[w->id], k->r, (size_t)n * sizeof(double));
            r = k->rw[w->id];
        }
    }
    const double *beta = run->params[k->o.beta].val;
    lasso_push(k->x, k->sq, r, beta, rd->vars + v0, nv, w->z);
    if (k->sqc)
        centre_sums(k, beta, rd->vars + v0, nv, w->z);
    lasso_pull(w->z, nv, run->grows, k->o.lambda, run->newval + v0);
    share_changes(run, k, rd, v0, nv);
    /* the round in the policy's order: with a variable a block, the
     * variables and changes themselves, else where each block was dealt */
    bool one = rd->nvars == rd->n;
    for (size_t i = rd->part[p0]; i < rd->part[p1]; i++)
        if (one) {
            k->pvars[policy_place(rd, i)] = rd->vars[i];
            k->pdelta[policy_place(rd, i)] = rd->change[i];
        } else {
            k->pos[policy_place(rd, i)] = i;
        }
    if (!alone)
        rt_barrier(w);  /* every share's changes are in */
    if (run->recheck) { /* `keep moved`: the first worker filters, the others wait */
        if (w->id == 0)
            recheck_rows(run, k, rd, one);
        if (!alone)
            rt_barrier(w);
    }
    if (alone) { /* every row at once, then each worker's listed as its own */
        int64_t n = k->x->nrows;
        size_t nall = 0;
        if (one) {
            lasso_scatter_rows(k->x, k->pvars, k->pdelta, rd->nvars, 0, n, NULL, NULL, k->xd,
                               k->mark, k->allrows, &nall);
        } else {
            for (size_t q = 0; q < rd->n; q++) {
                size_t i = k->pos[q];
                int64_t a = rd->off[i], b = rd->off[i + 1];
                lasso_scatter_rows(k->x, rd->vars + a, rd->change + a, (size_t)(b - a), 0, n, NULL,
                                   NULL, k->xd, k->mark, k->allrows, &nall);
            }
        }
        chunk_sums(k, k->allrows, nall, 0, n);
        k->nall = nall;
        k->all_gen++; /* for the next apply, every worker's rows in one list */
        return;
    }
    struct lasso_w *d = &k->wk[w->id];
    if (one) {
        scatter_own(run, k, w->id, k->pvars, k->pdelta, rd->nvars);
    } else {
        for (size_t q = 0; q < rd->n; q++) {
            size_t i = k->pos[q];
            int64_t a = rd->off[i], b = rd->off[i + 1];
            scatter_own(run, k, w->id, rd->vars + a, rd->change + a, (size_t)(b - a));
        }
    }
    chunk_sums(k, d->rows, d->nr, k->lo[w->id], k->hi[w->id]);
}

/* SEQP: the fewest non-zeros of a split round. */
static int64_t split_min(const struct lasso_state *k)
{
    if (k->mode == ROWS)
        return k->split_min;
    return k->x->nrows > k->split_min ? k->x->nrows : k->split_min;
}

/* SEQP: whether the columns vars[0 .. n) hold fewer non-zeros than
 * split_min(); n columns of at most col_max non-zeros need no sum when
 * that is few. */
static bool small_round(const struct lasso_state *k, const int64_t *vars, size_t n)
{
    return (double)n * (double)k->col_max < (double)split_min(k) ||
           rt_cols_nnz(k->x, vars, n) < split_min(k);
}

/* SEQ1, SEQP: a round one column after the other on r itself (by one
 * worker): with an intercept b follows each step (lasso_push_seq_b), and
 * pend says how far (INTERCEPT). */
static void push_on_r(struct ptm_run *run, struct lasso_state *k, const int64_t *vars, size_t n,
                      double *out)
{
    const double *beta = run->params[k->o.beta].val;
    if (k->o.b < 0) {
        lasso_push_seq(k->x, k->sq, k->r, beta, vars, n, run->grows, k->o.lambda, out);
        return;
    }
    struct lasso_icpt ic = {k->csum, k->sqc};
    double off = k->owe;
    lasso_push_seq_b(k->x, k->sq, k->r, beta, vars, n, run->grows, k->o.lambda, out, &ic, &off);
    k->pend = off - k->owe; /* r owes it from round_intercept on */
}

/* SEQP: the round on the first worker alone, on r, one column after the
 * other in the policy's order (with a variable a block; else as dealt),
 * so that a run whose rounds all run alone takes the steps one worker
 * would. */
static void push_alone(struct ptm_run *run, struct lasso_state *k, const struct rt_round *rd,
                       const int64_t *vars)
{
    /* dealt in the policy's order (to this worker alone: lasso_alone_blocks) */
    if (rd->alone || !rd->order || rd->nvars != rd->n) {
        push_on_r(run, k, vars, rd->nvars, run->newval);
        return;
    }
    for (size_t i = 0; i < rd->n; i++)
        k->pvars[rd->order[i]] = vars[i];
    push_on_r(run, k, k->pvars, rd->n, k->pdelta);
    for (size_t i = 0; i < rd->n; i++)
        run->newval[i] = k->pdelta[rd->order[i]];
}

/* SEQP: X delta of the round on the rows lo .. hi-1, from the copies:
 * xd_i = sum over the workers of r_i less their copy's r_i (each copy is r
 * less its share's X delta), with the chunks' parts of |X delta|^2 and r .
 * X delta. */
static void merge_rows(const struct ptm_run *run, const struct lasso_state *k, int64_t lo,
                       int64_t hi)
{
    const double *restrict r = k->r;
    double *restrict xd = k->xd;
    int P = run->P;
    for (int64_t c = lo / CHUNK; lo < hi && c * CHUNK < hi; c++) {
        int64_t e = (c + 1) * CHUNK < hi ? (c + 1) * CHUNK : hi;
        double a = 0, b = 0;
        for (int64_t i = c * CHUNK; i < e; i++) {
            double u = r[i] - k->rw[0][i];
            for (int p = 1; p < P; p++)
                u += r[i] - k->rw[p][i];
            xd[i] = u;
            a += u * u;
            b += (r[i] - k->owe) * u; /* the residual's */
        }
        k->ca[c] = a;
        k->cb[c] = b;
    }
}

/* SEQP: r_i -= t xd_i on the rows lo .. hi-1 (a split round's change,
 * damped by t). */
static void apply_rows(const struct lasso_state *k, double t, int64_t lo, int64_t hi)
{
    double *restrict r = k->r;
    const double *restrict xd = k->xd;
    for (int64_t i = lo; i < hi; i++)
        r[i] -= t * xd[i];
}

/* SEQP: see DESIGN. */
static void push_seqp(struct rt_worker *w, const struct rt_round *rd, int64_t v0, size_t nv)
{
    struct ptm_run *run = w->run;
    struct lasso_state *k = run->rule_state;
    struct lasso_w *d = &k->wk[w->id];
    const double *beta = run->params[k->o.beta].val;
    int64_t n = k->x->nrows;
    /* the whole round's variables: with a variable a block the blocks
     * themselves (the workers fill rd->vars with their shares as they
     * start) */
    const int64_t *vars = run->expand_late ? rd->blocks : rd->vars;
    bool split_before = !d->solo;
    /* alone: the engine woke no other worker (lasso_alone) */
    d->solo = run->work.alone || k->solo_left > 0;
    if (!d->solo) { /* a round of few non-zeros runs alone too */
        d->nnz = rt_cols_nnz(k->x, rd->vars + v0, nv);
        rt_barrier(w); /* r holds the last round; every share's variables are in rd */
        split_before = false;
        int64_t nnz = 0;
        for (int p = 0; p < run->P; p++)
            nnz += k->wk[p].nnz;
        d->solo = nnz < split_min(k);
    }
    if (d->solo && run->work.alone) {
        /* the others sleep: this worker's apply took every worker's rows
         * of a split round (lasso_apply_w) */
        for (int p = 0; p < run->P; p++)
            k->wk[p].solo = true;
        push_alone(run, k, rd, vars);
        return;
    }
    if (d->solo) {
        /* the first worker alone, on r: it waits for the others only when
         * they are applying a split round to their rows */
        if (split_before)
            rt_barrier(w);
        if (w->id == 0)
            push_alone(run, k, rd, vars);
        return;
    }
    /* the copy: r whole (the last round may have moved every row) */
    double *restrict rp = k->rw[w->id];
    memcpy(rp, k->r, (size_t)n * sizeof(double));
    if (k->o.b >= 0) { /* b stays in a split round, where the damping sees it fixed */
        struct lasso_icpt ic = {k->csum, NULL};
        double off = k->owe;
        d->dec = lasso_push_seq_b(k->x, k->sq, rp, beta, rd->vars + v0, nv, run->grows, k->o.lambda,
                                  run->newval + v0, &ic, &off);
    } else {
        d->dec = lasso_push_seq(k->x, k->sq, rp, beta, rd->vars + v0, nv, run->grows, k->o.lambda,
                                run->newval + v0);
    }
    share_changes(run, k, rd, v0, nv);
    rt_barrier(w); /* every copy holds its share's changes */
    merge_rows(run, k, k->lo[w->id], k->hi[w->id]);
}

/* The worker's share of the round: the sums, then the new values. */
static int lasso_push_w(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    struct lasso_state *k = run->rule_state;
    int64_t v0 = rd->off[rd->part[w->id]], v1 = rd->off[rd->part[w->id + 1]];
    size_t nv = (size_t)(v1 - v0);
    const double *beta = run->params[k->o.beta].val;
    switch (k->mode) {
    case ROWS: /* alone: every share */
        if (run->work.alone)
            push_rows(w, rd, 0, rd->nvars);
        else
            push_rows(w, rd, v0, nv);
        break;
    case SEQP:
        push_seqp(w, rd, v0, nv);
        break;
    case SEQ1: /* the changes go to r as they are made */
        push_on_r(run, k, rd->vars + v0, nv, run->newval + v0);
        break;
    case RANKS: /* this rank's part of the sums: rank 0 pulls them */
        lasso_push(k->x, k->sq, resid(k, w), beta, rd->vars + v0, nv,
                   run->zsum + LASSO_K * v0);
        break;
    }
    return 0;
}

/* RANKS: rank 0 on the sums over the ranks. */
static int lasso_pull_run(struct ptm_run *run, const struct rt_round *rd, const double *z,
                          size_t zlen, double *out)
{
    const struct lasso_state *k = run->rule_state;
    PTM_ASSERT(zlen == LASSO_K * rd->nvars);
    if (k->sqc) { /* the sums centred, with b following the round (INTERCEPT) */
        PTM_ASSERT(z == run->zsum);
        centre_sums(k, run->params[k->o.beta].val, rd->vars, rd->nvars, run->zsum);
    }
    lasso_pull(z, rd->nvars, run->grows, k->o.lambda, out);
    return 0;
}

/* RANKS: a worker's copy of r (m rows) gets what it owes the residual. */
static void pay_owe(double *restrict r, int64_t m, double *owe)
{
    double o = *owe;
    for (int64_t i = 0; i < m && o != 0; i++)
        r[i] -= o;
    *owe = 0;
}

/* RANKS, after worker w applied round rd to its copy of r: the sum of r
 * over the ranks follows the round; when the intercept's step is due, b
 * and the copy move by the mean (INTERCEPT). */
static void ranks_intercept(struct rt_worker *w, const struct rt_round *rd)
{
    const struct ptm_run *run = w->run;
    const struct lasso_state *k = run->rule_state;
    struct lasso_rk *q = &k->rk[w->id];
    double n = (double)run->grows, moved = 0;
    for (size_t v = 0; v < rd->nvars; v++)
        moved += rd->change[v] * k->csum[rd->vars[v]];
    /* b followed the round (pend), then takes its step; r owes both */
    double pend = -moved / n, sum = q->sum - moved - n * pend;
    q->b += pend;
    q->owe += pend;
    double c = sum / n;
    q->b += c;
    q->owe += c;
    q->sum = sum - n * c;
    if (step_due(run, &q->ups, &q->due, rd->n))
        pay_owe(resid(k, w), k->x->nrows, &q->owe);
}

/* The committed round into the worker's residual: ROWS and SEQP r -=
 * step X delta on its rows; RANKS every change on its copy, all its
 * rank's rows, in the policy's order. */
static int lasso_apply_w(struct rt_worker *w, const struct rt_round *rd)
{
    const struct ptm_run *run = w->run;
    struct lasso_state *k = run->rule_state;
    struct lasso_w *d = k->wk ? &k->wk[w->id] : NULL;
    double t = run->step;
    switch (k->mode) {
    case ROWS: { /* alone: every worker's rows */
        int p0 = run->work.alone ? 0 : w->id, p1 = run->work.alone ? run->P : w->id + 1, seen = 0;
        for (int p = p0; p < p1; p++) {
            lasso_scatter_apply(k->xd, k->mark, k->wk[p].rows, &k->wk[p].nr, t, k->r);
            seen += k->wk[p].all_seen == k->all_gen;
        }
        /* a round alone listed every row: the rows of p0 .. p1-1 not yet
         * applied, in one pass when that is all of them */
        if (seen == 0)
            apply_listed(k, k->allrows, k->nall, k->lo[p0], k->hi[p1 - 1], t);
        for (int p = p0; seen > 0 && p < p1; p++)
            if (k->wk[p].all_seen != k->all_gen)
                apply_listed(k, k->allrows, k->nall, k->lo[p], k->hi[p], t);
        for (int p = p0; p < p1; p++)
            k->wk[p].all_seen = k->all_gen;
        if (k->fresh) /* alone: lo[0] .. hi[P-1], every row */
            shift_rows(k, k->shift, k->lo[p0], k->hi[p1 - 1]);
        break;
    }
    case SEQP:
        for (int p = 0; p < run->P; p++) {
            /* its own rows of a split round, or alone every worker's */
            const struct lasso_w *e = &k->wk[p];
            if ((run->work.alone || e == d) && !e->solo)
                apply_rows(k, t, k->lo[p], k->hi[p]);
        }
        if (k->fresh && run->work.alone) /* after a round alone: every row */
            shift_rows(k, k->shift, 0, k->x->nrows);
        else if (k->fresh)
            shift_rows(k, k->shift, k->lo[w->id], k->hi[w->id]);
        break;
    case SEQ1:
        if (k->fresh)
            shift_rows(k, k->shift, 0, k->x->nrows);
        break;
    case RANKS:
        lasso_apply(k->x, rd->vars, rd->change, rd->nvars, resid(k, w));
        if (k->rk)
            ranks_intercept(w, rd);
        break;
    }
    return 0;
}

/* SEQP, after a split round that lowered f by dec (damped as committed)
 * where its shares on their own copies lowered it by own: whether to run
 * the next rounds on the first worker alone. On correlated or uncentred
 * columns the shares undo much of each other's progress (each was
 * computed without the others'), and one worker going through the whole
 * round one column after the other does better for the time: then the
 * next `backoff` rounds run alone, and the wait doubles (up to SOLO_MAX)
 * each time splitting fails again, halving when it pays. The numbers
 * decide, not the clock, so a run gives the same results every time. */
static void split_verdict(struct lasso_state *k, int P, double dec, double own)
{
    if (own > 0 && dec < own * SPLIT_COST / P) {
        k->backoff = k->backoff ? (k->backoff * 2 < SOLO_MAX ? k->backoff * 2 : SOLO_MAX) : 1;
        k->solo_left = k->backoff;
    } else {
        k->backoff /= 2;
    }
}

/* sum over the round's changes (new value minus beta) of change_v
 * csum_j: under ROWS in the policy's order, as push_rows left the round
 * (and rd->change), so that the sum is the same for any P; else as
 * dealt. */
static double round_moved(const struct ptm_run *run, const struct lasso_state *k,
                          const struct rt_round *rd)
{
    double moved = 0;
    if (k->mode == ROWS && rd->nvars == rd->n) {
        for (size_t q = 0; q < rd->n; q++)
            moved += k->pdelta[q] * k->csum[k->pvars[q]];
    } else if (k->mode == ROWS) {
        for (size_t q = 0; q < rd->n; q++)
            for (int64_t v = rd->off[k->pos[q]]; v < rd->off[k->pos[q] + 1]; v++)
                moved += rd->change[v] * k->csum[rd->vars[v]];
    } else if (run->committed) { /* a round alone, committed in its phase */
        for (size_t v = 0; v < rd->nvars; v++)
            moved += rd->change[v] * k->csum[rd->vars[v]];
    } else {
        const double *beta = run->params[k->o.beta].val;
        for (size_t v = 0; v < rd->nvars; v++)
            moved += (run->newval[v] - beta[rd->vars[v]]) * k->csum[rd->vars[v]];
    }
    return moved;
}

/* The step of a round (ROWS, SEQP; SEQ1 takes 1): the chunks' sums in
 * chunk order. rd->change holds the pushed changes. */
static double damp_step(struct ptm_run *run, const struct rt_round *rd, double *rise)
{
    struct lasso_state *k = run->rule_state;
    *rise = 0;
    if (k->mode == SEQ1)
        return 1;
    if (k->mode == SEQP && k->wk[0].solo) {
        if (k->solo_left > 0)
            k->solo_left--;
        return 1; /* exact coordinate steps one after the other never rise */
    }
    if (rd->nvars < 2)
        return 1;
    double a = 0, b = 0;
    if (k->mode == RANKS) { /* the ranks' parts, summed (lasso_damp_part) */
        a = run->damp_sums[0];
        b = run->damp_sums[1];
    } else {
        for (int64_t c = 0; c * CHUNK < k->x->nrows; c++) {
            a += k->ca[c];
            b += k->cb[c];
        }
    }
    const double *beta = run->params[k->o.beta].val;
    const int64_t *vars = rd->vars;
    const double *change = rd->change;
    if (k->mode == ROWS) {
        /* the penalty's change summed in the policy's order, as the
         * chunks' sums are, so that the step is the same bits for any
         * number of workers (the dealt order depends on it) */
        if (rd->nvars != rd->n) {
            size_t m = 0;
            for (size_t q = 0; q < rd->n; q++)
                for (int64_t v = rd->off[k->pos[q]]; v < rd->off[k->pos[q] + 1]; v++) {
                    k->pvars[m] = rd->vars[v];
                    k->pdelta[m++] = rd->change[v];
                }
        }
        vars = k->pvars;
        change = k->pdelta;
    }
    if (k->sqc && k->mode != SEQP) {
        /* b follows the round: the fitted values move by X delta less its
         * mean S / n, S = sum of change_j csum_j, and r - owe has mean 0 */
        double S = round_moved(run, k, rd), n = (double)run->grows;
        a -= S * (S / n);
        a = a > 0 ? a : 0;
        b -= owe_now(k) * S;
    }
    double t = lasso_step(a, b, beta, vars, change, rd->nvars, run->grows, k->o.lambda, rise);
    if (k->mode == SEQP) {
        /* f(beta + t delta) - f(beta) (at t = 1 lasso_step's rise), and
         * what the shares did alone */
        double df = *rise, own = 0;
        if (t < 1) {
            double l1 = 0;
            for (size_t v = 0; v < rd->nvars; v++) {
                double old = beta[rd->vars[v]];
                l1 += fabs(old + t * rd->change[v]) - fabs(old);
            }
            df = (t * t * a - 2 * t * b) / (2.0 * (double)run->grows) + k->o.lambda * l1;
        }
        for (int p = 0; p < run->P; p++)
            own += k->wk[p].dec;
        split_verdict(k, run->P, -df, own);
    }
    return t;
}

/* ROWS, SEQP, SEQ1, after the step t of round rd is decided: the sum of
 * the residual follows the round (from the chunks' sums when the last
 * apply shifted r, else from the sum kept), with b, which followed the
 * round's steps (pend; ROWS: by the round's change of X beta's mean); b
 * then takes its exact step, which r owes (owe: nothing to pass over),
 * and when the step is due the next apply subtracts owe from the rows
 * (INTERCEPT). */
static void round_intercept(struct ptm_run *run, const struct rt_round *rd, double t)
{
    struct lasso_state *k = run->rule_state;
    double n = (double)run->grows, *b = &run->params[k->o.b].val[0];
    double sum = k->fresh ? chunks_sum(k) : k->rsum, moved = round_moved(run, k, rd);
    sum -= t * moved;
    if (k->mode == ROWS)
        k->pend = -t * moved / n;
    /* r's sum less n owe: the residual's */
    sum -= n * k->pend;
    *b += k->pend;
    k->owe += k->pend;
    k->pend = 0;
    double c = sum / n;
    *b += c;
    k->owe += c;
    k->rsum = sum - n * c;
    k->fresh = step_due(run, &k->ups, &k->due, rd->n);
    if (k->fresh) {
        k->shift = k->owe;
        k->owe = 0;
    }
}

/* The step of a round, then the intercept's. */
static double lasso_damp(struct ptm_run *run, const struct rt_round *rd, double *rise)
{
    const struct lasso_state *k = run->rule_state;
    double t = damp_step(run, rd, rise);
    if (k->o.b >= 0 && k->mode != RANKS) /* RANKS: the workers step b (ranks_intercept) */
        round_intercept(run, rd, t);
    return t;
}

/* RANKS, on every rank: the round's changes (new values less beta, into
 * rd->change, where damp_step reads them on rank 0) and this rank's part of
 * |X delta|^2 and r . X delta over its rows, r as the round's push read it
 * (the first worker's copy), the rows in the order the round's columns
 * first touch them. */
static void lasso_damp_part(struct ptm_run *run, struct rt_round *rd, double *sums)
{
    struct lasso_state *k = run->rule_state;
    const struct ptm_csc *x = k->x;
    const double *beta = run->params[k->o.beta].val, *r = k->rw[0];
    double *restrict xd = k->xd;
    unsigned char *restrict mark = k->mark;
    size_t nr = 0;
    for (size_t v = 0; v < rd->nvars; v++) {
        int64_t j = rd->vars[v];
        double d = run->newval[v] - beta[j];
        rd->change[v] = d;
        if (d == 0)
            continue;
        for (int64_t e = x->colptr[j]; e < x->colptr[j + 1]; e++) {
            int32_t i = x->rowind[e];
            if (!mark[i]) {
                mark[i] = 1;
                xd[i] = 0;
                k->drows[nr++] = i;
            }
            xd[i] += x->val[e] * d;
        }
    }
    double a = 0, b = 0;
    for (size_t q = 0; q < nr; q++) {
        int32_t i = k->drows[q];
        a += xd[i] * xd[i];
        b += r[i] * xd[i];
        mark[i] = 0;
    }
    sums[0] = a;
    sums[1] = b;
}

/* RANKS: the intercept's table from the workers' (the same on all), and
 * after the last round the residual's rows in r's (rows_own is one
 * rank's). */
static int lasso_sync(struct ptm_run *run)
{
    const struct lasso_state *k = run->rule_state;
    if (!k->rk)
        return 0;
    run->params[k->o.b].val[0] = k->rk[0].b;
    if (run->sync_final)
        pay_owe(k->rw[0], k->x->nrows, &k->rk[0].owe);
    return 0;
}

/* A job's r is the residual, which r stands off by owe (one rank, with an
 * intercept): outputs read it a row at a time from here. */
static bool lasso_rows_own(const struct ptm_run *run, int32_t p)
{
    const struct lasso_state *k = run->rule_state;
    return k && p == k->o.r && k->sqc;
}

static void lasso_row(const struct ptm_run *run, int32_t p, int64_t i, double *out)
{
    const struct lasso_state *k = run->rule_state;
    (void)p;
    out[0] = k->r[i] - k->owe;
}

/* SEQP: a round that runs on the first worker alone (splitting is
 * resting, or its columns hold fewer non-zeros than split_min()) need
 * not wake the others: the first worker also applies what they would
 * have of a split round before it (lasso_apply_w). Nor need a phase
 * without a round (the objective's) after a round alone. */
static bool lasso_alone(const struct ptm_run *run, const struct rt_round *rd)
{
    const struct lasso_state *k = run->rule_state;
    const int64_t *vars = rd && run->expand_late ? rd->blocks : rd ? rd->vars : NULL;
    if (k->mode == ROWS && !rd) /* an objective evaluation (and the apply before it) */
        return run->P > 1 && k->x->nrows < ROWS_OBJECTIVE_ALONE;
    if (k->mode == ROWS)
        return run->P > 1 && (rd->alone || small_round(k, vars, rd->nvars));
    if (k->mode != SEQP)
        return false;
    if (!rd)
        return k->wk[0].solo;
    if (k->solo_left > 0 || rd->alone)
        return true;
    return small_round(k, vars, rd->nvars);
}

/* SEQP, ROWS with a variable a block: a round whose columns hold fewer
 * non-zeros than split_min() runs alone (lasso_alone): the scheduler
 * need not deal it. */
static bool lasso_alone_blocks(const struct ptm_run *run, const int64_t *blocks, size_t n)
{
    const struct lasso_state *k = run->rule_state;
    return (k->mode == SEQP || (k->mode == ROWS && run->P > 1)) && small_round(k, blocks, n);
}

/* A round alone is never damped under SEQP (exact steps one after the
 * other); under ROWS it is the split round's combined change, damped. */
static bool lasso_alone_undamped(const struct ptm_run *run)
{
    const struct lasso_state *k = run->rule_state;
    return k->mode == SEQP;
}

/* The dry run's alone_blocks: from the plan's options and X's columns. */
static bool lasso_alone_dry(struct ptm_run *run, const int64_t *blocks, size_t n)
{
    return rt_alone_dry(run, blocks, n, SPLIT_MIN_NNZ, ROWS_SPLIT_MIN_NNZ);
}

/* Checkpoints (rt_rule's state), between rounds with every worker's
 * apply done. What the rule keeps of its own that a later round reads:
 * the residual when it is the rule's buffer (a parameter r is the
 * engine's to keep), and by mode
 * - SEQP: the flags of the last round (solo: which phases run alone)
 *   and splitting's rest and backoff (split_verdict); the workers' copies
 *   of r are taken whole by the next split round, so none is saved (the
 *   form keeps a place for a copy and a list of rows, written empty).
 * - RANKS: every worker's copy of r but the first (r itself).
 * - With an intercept: the sum of r and where it stands (cs, rsum,
 *   fresh), what r owes the residual (owe), the step's counters (ups,
 *   due), and under RANKS each worker's sum, b and counters.
 * Left out: what set-up builds and never changes (X, sq, csum, the
 * workers' rows and cut tables), and what a round makes and reads itself:
 * the copies of r (taken whole when read), X delta (xd, mark, drows:
 * cleared by the apply; ROWS' lists are then empty), pos, pvars, pdelta,
 * the chunks' sums ca and cb and the shares' dec and nnz (read by the
 * round's own damp), and shift (read by the round's own apply). */
static void lasso_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct lasso_state *k = run->rule_state;
    static const char *const tags[] = {
        [ROWS] = "rule lasso_cd rows", [SEQ1] = "rule lasso_cd seq1",
        [SEQP] = "rule lasso_cd seqp", [RANKS] = "rule lasso_cd ranks"};
    int64_t m = k->x->nrows;
    ptm_ck_tag(ck, tags[k->mode]);
    ptm_ck_size(ck, run->P, "workers");
    ptm_ck_size(ck, m, "rows of X");
    ptm_ck_size(ck, k->own_r, "rule's own residual");
    ptm_ck_size(ck, k->o.b >= 0, "intercept");
    if (k->own_r)
        PTM_CK_ARRAY(ck, k->r, m);
    if (k->mode == SEQP) {
        for (int p = 0; p < run->P; p++) {
            struct lasso_w *d = &k->wk[p];
            /* each split round copies r whole: a copy is saved as stale,
             * with no rows listed (what a checkpoint that lists some holds
             * is read and not used) */
            bool stale = true;
            size_t nr = 0;
            PTM_CK(ck, d->solo);
            PTM_CK(ck, stale);
            ptm_ck_count(ck, &nr, (size_t)(k->hi[p] - k->lo[p]), "rows a worker listed");
            PTM_CK_ARRAY(ck, d->rows, nr);
            if (!stale)
                PTM_CK_ARRAY(ck, k->rw[p], m);
        }
        PTM_CK(ck, k->solo_left);
        PTM_CK(ck, k->backoff);
    } else if (k->mode == ROWS) {
        for (int p = 0; p < run->P; p++) /* no apply pending */
            PTM_ASSERT(ck->load || (k->wk[p].nr == 0 && k->wk[p].all_seen == k->all_gen));
    } else if (k->mode == RANKS) {
        for (int p = 1; p < run->P; p++)
            PTM_CK_ARRAY(ck, k->rw[p], m);
    }
    if (k->o.b >= 0) {
        PTM_CK_ARRAY(ck, k->cs, (m + CHUNK - 1) / CHUNK);
        PTM_CK(ck, k->rsum);
        PTM_CK(ck, k->owe);
        PTM_CK(ck, k->fresh);
        PTM_CK(ck, k->ups);
        PTM_CK(ck, k->due);
        for (int p = 0; k->rk && p < run->P; p++) {
            PTM_CK(ck, k->rk[p].sum);
            PTM_CK(ck, k->rk[p].b);
            PTM_CK(ck, k->rk[p].owe);
            PTM_CK(ck, k->rk[p].ups);
            PTM_CK(ck, k->rk[p].due);
        }
    }
}

static const struct rt_rule rule_ops = {
    .name = "lasso_cd",
    .kind = RT_MODEL,
    .split_blocks = true,
    .setup = lasso_setup,
    .release = lasso_release,
    .zcap = lasso_zcap,
    .push = lasso_push_w,
    .pull = lasso_pull_run,
    .apply = lasso_apply_w,
    .sync = lasso_sync,
    .rows_own = lasso_rows_own,
    .row = lasso_row,
    .damp = lasso_damp,
    .damp_part = lasso_damp_part,
    .alone = lasso_alone,
    .alone_undamped = lasso_alone_undamped,
    .alone_blocks = lasso_alone_blocks,
    .alone_dry = lasso_alone_dry,
    .state = lasso_state,
};

static bool columns_only(const struct ptm_plan *plan)
{
    const struct plan_hook *u = &plan->update, *o = &plan->objective;
    if (!u->present || u->lua || strcmp(u->builtin, "lasso_cd") != 0)
        return false;
    if (!o->present)
        return true;
    if (o->lua || strcmp(o->builtin, "lasso_objective") != 0)
        return false;
    static const char *const keys[] = {"X", "y", "beta", "intercept"};
    for (size_t i = 0; i < PTM_ARRAY_LEN(keys); i++) {
        const struct plan_option *a = rt_option(u, keys[i]), *b = rt_option(o, keys[i]);
        if (i == 3 && !a && !b) /* no intercept */
            continue;
        if (!a || !b || a->kind != b->kind || a->ref != b->ref)
            return false;
    }
    return true;
}

/* ---- the objective ----------------------------------------------------------- */

/* The objective reads the kernel's residual when the update is lasso_cd
 * over the same X, y and beta (a pass over n values); otherwise it
 * computes y - X beta from the rows of its shard (a pass over the
 * non-zeros). */
struct lasso_obj {
    struct lasso_opts o;
    bool kernel_r;
};

static int obj_setup(struct ptm_run *run, char *err, size_t errlen)
{
    struct lasso_obj *s = ptm_malloc(sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->obj_state = s;
    int rc = read_opts(run, &run->plan->objective, "objective lasso_objective", &s->o, err, errlen);
    const struct lasso_state *k = run->rule == &rule_ops ? run->rule_state : NULL;
    s->kernel_r =
        k && k->o.x == s->o.x && k->o.y == s->o.y && k->o.beta == s->o.beta && k->o.b == s->o.b;
    /* lasso_cd changes beta only through the engine's commits */
    if (rc == 0 && k && run->sparam == s->o.beta)
        rc = rt_l1_keep(run);
    return rc;
}

/* beta has a coefficient a column, far more than rows(X) may have: where
 * beta is the scheduled parameter of a rule that splits by blocks (every
 * change is committed by the engine), the engine keeps its L1 norm as the
 * rounds commit (rt_l1_keep), and an evaluation costs no pass over it;
 * else, with one rank, each worker adds the penalty of its share of beta
 * (of P nearly equal runs) to its part. */
static bool penalty_kept(const struct ptm_run *run)
{
    const struct lasso_obj *s = run->obj_state;
    return run->l1 && run->sparam == s->o.beta;
}

static bool penalty_split(const struct ptm_run *run)
{
    return run->split && run->nranks == 1 && !penalty_kept(run);
}

static double penalty_part(const struct rt_worker *w)
{
    const struct ptm_run *run = w->run;
    if (!penalty_split(run))
        return 0;
    const struct lasso_obj *s = run->obj_state;
    const struct rt_param *b = &run->params[s->o.beta];
    int64_t c0 = b->len * w->id / run->P, c1 = b->len * (w->id + 1) / run->P;
    if (run->work.alone) /* the first worker alone: all of it */
        c0 = 0, c1 = b->len;
    return lasso_penalty(b->val + c0, c1 - c0, s->o.lambda);
}

/* The worker's rows: its shard, or under a rule that splits by blocks
 * its rows lo .. hi-1 of all of X. */
static int obj_part(struct rt_worker *w, double *out)
{
    const struct ptm_run *run = w->run;
    const struct lasso_obj *s = run->obj_state;
    const struct rt_shard *x = &w->shard[s->o.x];
    int64_t n = run->grows;
    int64_t lo = run->split ? w->lo : 0, hi = run->split ? w->hi : x->csr.nrows;
    if (run->work.alone) { /* the first worker alone: every row */
        lo = 0;
        hi = x->csr.nrows;
    }
    if (s->kernel_r) {
        const struct lasso_state *k = run->rule_state;
        if ((k->mode == ROWS || k->mode == SEQP) && !run->work.alone) {
            /* the rows its apply brought up to date */
            lo = k->lo[w->id];
            hi = k->hi[w->id];
        }
        double owe = k->rk ? k->rk[w->id].owe : k->owe;
        *out = lasso_loss_part_off(resid(k, w) + lo, hi - lo, n, owe) + penalty_part(w);
        return 0;
    }
    const double *beta = run->params[s->o.beta].val, *y = w->shard[s->o.y].labels;
    double f = 0, b = 0;
    if (s->o.b >= 0) {
        /* under RANKS lasso_cd's workers hold b until lasso_sync */
        const struct lasso_state *k = run->rule == &rule_ops ? run->rule_state : NULL;
        b = k && k->rk && k->o.b == s->o.b ? k->rk[w->id].b : run->params[s->o.b].val[0];
    }
    for (int64_t i = lo; i < hi; i++) {
        double r = y[i] - b;
        for (int64_t e = x->csr.rowptr[i]; e < x->csr.rowptr[i + 1]; e++)
            r -= x->csr.val[e] * beta[x->csr.colind[e]];
        f += r * r;
    }
    *out = f / (2.0 * (double)n) + penalty_part(w);
    return 0;
}

static double obj_finish(const struct ptm_run *run, double sum)
{
    const struct lasso_obj *s = run->obj_state;
    const struct rt_param *b = &run->params[s->o.beta];
    if (penalty_kept(run))
        return sum + s->o.lambda * rt_l1(run);
    return penalty_split(run) ? sum : sum + lasso_penalty(b->val, b->len, s->o.lambda);
}

static void obj_release(struct ptm_run *run)
{
    ptm_free(run->obj_state);
    run->obj_state = NULL;
}

/* The objective keeps nothing from one evaluation to the next: no state
 * for checkpoints. */
static const struct rt_objective objective_ops = {
    .better = -1,
    .setup = obj_setup,
    .part = obj_part,
    .finish = obj_finish,
    .release = obj_release,
};

/* ---- the model ------------------------------------------------------------ */

const struct ptm_model ptm_model_lasso = {
    .name = "lasso",
    .predict = lasso_predict,
    .predict_params = (const char *const[]){"beta", "intercept", NULL},
    .gen = &ptm_gen_lasso_cmd,
    .builtins = ptm_builtins_lasso,
    .rules = (const struct ptm_model_rule[]){{"lasso_cd", &rule_ops}, {NULL, NULL}},
    .objectives =
        (const struct ptm_model_objective[]){{"lasso_objective", &objective_ops}, {NULL, NULL}},
    .columns_only = columns_only,
};
