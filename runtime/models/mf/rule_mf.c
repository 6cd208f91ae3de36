/*
 * rule_mf.c - matrix factorization on a rotation schedule (update builtin
 * mf_sgd or mf_ccd) and the rmse objective, behind the engine's
 * interfaces, over the kernels of kernel_mf.h.
 *
 * Worker p keeps its row shard of R and the same rows of W (W `shard like
 * R`); H has one copy, cut into P row blocks by the scheduled block set
 * (`H rows into workers`). In round t the scheduler gives worker p block
 * (p + t) mod P, and the worker runs the kernel over the ratings of its
 * shard in that block, writing its rows of W and the block's rows of H:
 * no two workers write the same variable in a round, so there is no pull
 * and no lock. The ratings are indexed by block once, at set-up, where R
 * holds them (no copy: R lives as long as the run).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "builtins.h"
#include "ckpt.h"
#include "engine_impl.h"
#include "gen_mf.h"
#include "kernel_mf.h"
#include "model.h"
#include "predict_mf.h"
#include "ptm.h"

struct mf_state {
    bool ccd;
    bool adaptive; /* mf_sgd step = adaptive */
    bool rating;   /* penalty = rating: reg on every rating (else reg / count) */
    int32_t r, w, h;
    double rate, decay, reg;
    int inner;
    int64_t rank;
    double *rh;   /* reg / m_j (penalty = total) or reg (penalty = rating) per column (SGD) */
    double *gh;   /* step = adaptive: per column, H's accumulated squared gradient; travels */
    double *hacc; /* 2 per column: the H accumulators that travel with H's blocks (CCD++) */
};

/* A worker's part: its ratings by block, and the kernel's state. */
struct mf_worker {
    struct mf_grid g;
    double *rw; /* reg / n_i or reg for its rows (SGD) */
    double *gw; /* step = adaptive: its rows' accumulated squared gradient */
    struct mf_ccd ccd;
    bool has_ccd;
};

static int mf_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_hook *u = &plan->update;
    struct mf_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->rule_state = s;
    s->ccd = strcmp(u->builtin, "mf_ccd") == 0;
    const char *who = s->ccd ? "update mf_ccd" : "update mf_sgd";
    const struct plan_option *orr = rt_option(u, "R"), *ow = rt_option(u, "W"),
                             *oh = rt_option(u, "H");
    if (!orr || orr->kind != PLAN_VALUE_DATA || !ow || ow->kind != PLAN_VALUE_PARAM || !oh ||
        oh->kind != PLAN_VALUE_PARAM || orr->ref < 0 || (uint32_t)orr->ref >= plan->ndata ||
        ow->ref < 0 || (uint32_t)ow->ref >= plan->nparams || oh->ref < 0 ||
        (uint32_t)oh->ref >= plan->nparams) {
        snprintf(err, errlen, "%s: options R, W and H are missing or of the wrong kind", who);
        return PTM_EINVAL;
    }
    s->r = orr->ref;
    s->w = ow->ref;
    s->h = oh->ref;
    s->rate = rt_option_num(u, "rate", 0.2);
    s->decay = rt_option_num(u, "decay", 1);
    s->reg = rt_option_num(u, "reg", 0.05);
    s->inner = (int)rt_option_num(u, "inner", 1);
    const struct plan_option *ost = rt_option(u, "step"), *ope = rt_option(u, "penalty");
    bool fixed = ost && ost->kind == PLAN_VALUE_STR && strcmp(ost->str, "fixed") == 0;
    s->adaptive = !s->ccd && !fixed;
    s->rating = !s->ccd && ope && ope->kind == PLAN_VALUE_STR && strcmp(ope->str, "rating") == 0;
    const struct ptm_dataset *R = run->data[s->r];
    const struct rt_param *W = &run->params[s->w], *H = &run->params[s->h];
    if (!R || !R->sparse || s->r != run->rowdata) {
        snprintf(err, errlen, "%s: R ('%s') must be a sparse matrix sharded by rows", who,
                 plan->data[s->r].name);
        return PTM_EINVAL;
    }
    s->rank = H->cols;
    if (W->val || W->shard_like != s->r || W->rows != run->grows || W->cols != s->rank ||
        !H->val || H->rows != R->csr.ncols) {
        snprintf(err, errlen,
                 "%s: W ('%s') must be a matrix[rows(R), rank] sharded like R and H ('%s') a "
                 "matrix[cols(R), rank] with one copy (here %lld x %lld and %lld x %lld)",
                 who, W->pp->name, H->pp->name, (long long)W->rows, (long long)W->cols,
                 (long long)H->rows, (long long)H->cols);
        return PTM_EINVAL;
    }
    if (run->sparam != s->h || run->bs->axis != PLAN_AXIS_ROWS || run->nblocks != run->G) {
        snprintf(err, errlen, "%s: the rotation must be over H's rows into workers ('blocks hb = %s "
                 "rows into workers')", who, H->pp->name);
        return PTM_EINVAL;
    }
    int64_t d = R->csr.ncols;
    int64_t *cnt = rt_zalloc((size_t)d, sizeof(int64_t));
    s->rh = rt_zalloc((size_t)d, sizeof(double));
    s->hacc = s->ccd ? rt_zalloc(2 * (size_t)d, sizeof(double)) : NULL;
    s->gh = s->adaptive ? rt_zalloc((size_t)d, sizeof(double)) : NULL;
    int rc = cnt && s->rh && (!s->ccd || s->hacc) && (!s->adaptive || s->gh) ? 0 : PTM_ENOMEM;
    if (s->gh)
        mf_fill(s->gh, d, 1);
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *wk = &run->w[p];
        struct mf_worker *m = rt_zalloc(1, sizeof(*m));
        if (!m) {
            rc = PTM_ENOMEM;
            break;
        }
        wk->kernel = m;
        rc = mf_grid_build(&m->g, &R->csr, wk->lo, wk->hi, run->G);
        if (rc != 0)
            break;
        m->rw = rt_zalloc((size_t)(wk->hi - wk->lo), sizeof(double));
        if (!m->rw) {
            rc = PTM_ENOMEM;
            break;
        }
        if (s->rating)
            mf_fill(m->rw, wk->hi - wk->lo, s->reg);
        else
            mf_reg_rows(&m->g, s->reg, m->rw);
        if (s->adaptive) {
            m->gw = rt_zalloc((size_t)(wk->hi - wk->lo), sizeof(double));
            if (!m->gw) {
                rc = PTM_ENOMEM;
                break;
            }
            mf_fill(m->gw, wk->hi - wk->lo, 1);
        }
        mf_col_counts_part(&m->g, cnt);
        if (s->ccd) {
            if ((rc = mf_ccd_init(&m->ccd, &m->g)) != 0)
                break;
            m->has_ccd = true;
            for (int b = 0; b < run->G; b++)
                mf_ccd_residual_cell(&m->ccd, &m->g, b, s->rank, wk->local[s->w],
                                     H->val + m->g.block_lo[b] * s->rank);
        }
    }
    if (rc == 0) {
        ptm_comm_sum_all_i64v(cnt, (size_t)d); /* other ranks' ratings too */
        if (s->rating)
            mf_fill(s->rh, d, s->reg);
        else
            mf_reg_cols(cnt, d, s->reg, s->rh);
    }
    ptm_free(cnt);
    return rc;
}

static void mf_release(struct ptm_run *run)
{
    for (int p = 0; p < run->P; p++) {
        struct mf_worker *m = run->w[p].kernel;
        if (!m)
            continue;
        mf_grid_release(&m->g);
        if (m->has_ccd)
            mf_ccd_release(&m->ccd);
        ptm_free(m->rw);
        ptm_free(m->gw);
        ptm_free(m);
        run->w[p].kernel = NULL;
    }
    struct mf_state *s = run->rule_state;
    if (s) {
        ptm_free(s->rh);
        ptm_free(s->hacc);
        ptm_free(s->gh);
        ptm_free(s);
        run->rule_state = NULL;
    }
}

static size_t mf_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    (void)nvars;
    return 0;
}

/* The worker's cell of the round: its shard against the block it holds. */
static int mf_push(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    const struct mf_state *s = run->rule_state;
    struct mf_worker *m = w->kernel;
    if (rd->part[w->gid + 1] == rd->part[w->gid])
        return 0;
    int b = (int)rd->blocks[rd->part[w->gid]];
    double *Wp = w->local[s->w];
    double *Hb = run->params[s->h].val + m->g.block_lo[b] * s->rank;
    if (s->ccd) {
        struct mf_ccd_phase ph;
        mf_ccd_phase(run->round, run->G, s->rank, s->inner, &ph);
        mf_ccd_round(&m->ccd, &m->g, b, &ph, s->rank, s->reg, Wp, Hb,
                     s->hacc + 2 * m->g.block_lo[b]);
    } else if (s->adaptive) {
        int64_t lo = m->g.block_lo[b];
        mf_sgd_ada_cell(&m->g, b, s->rank, mf_step(s->rate, s->decay, run->round / run->G), Wp,
                        Hb, m->rw, s->rh + lo, m->gw, s->gh + lo);
    } else {
        mf_sgd_cell(&m->g, b, s->rank, mf_step(s->rate, s->decay, run->round / run->G), Wp, Hb,
                    m->rw, s->rh + m->g.block_lo[b]);
    }
    return 0;
}

/* What travels with H's block b to another rank: its rows of H, and for
 * CCD++ or adaptive steps their accumulators. */
static int mf_spans(struct ptm_run *run, int64_t b, struct rt_span *out)
{
    const struct mf_state *s = run->rule_state;
    const struct mf_worker *m = run->w[0].kernel;
    int64_t lo = m->g.block_lo[b], n = m->g.block_lo[b + 1] - lo;
    out[0] = (struct rt_span){run->params[s->h].val + lo * s->rank,
                              (size_t)(n * s->rank) * sizeof(double)};
    if (s->adaptive) {
        out[1] = (struct rt_span){s->gh + lo, (size_t)n * sizeof(double)};
        return 2;
    }
    if (!s->ccd)
        return 1;
    out[1] = (struct rt_span){s->hacc + 2 * lo, (size_t)(2 * n) * sizeof(double)};
    return 2;
}

/* Checkpoints (rt_rule's state), between rounds. SGD with fixed steps
 * keeps nothing of its own that changes: W and H are the engine's, the
 * step size follows from run->round, and the grid's index and the
 * penalties' weights are set-up's. With adaptive
 * steps it keeps the accumulated squared gradients of every worker's rows
 * of W and of every row of H (the latter travel with H's blocks, as CCD++'s
 * H accumulators below). CCD++ keeps, per worker, the
 * residual of every rating (moved incrementally as factors open: computed
 * again from W and H it would differ in the last bits) and its rows'
 * accumulators, which add up over the rounds of a W pass; and the H
 * accumulators of every block, which add up over the rounds of an H pass
 * (across ranks, a rank's copy of a block it does not hold is stale and
 * comes back with the block, as between rounds). The phase of round t
 * follows from run->round; hk is scratch filled in every round. */
static void mf_state(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct mf_state *s = run->rule_state;
    ptm_ck_tag(ck, s->ccd ? "rule mf_ccd, residuals in R's order" : "rule mf_sgd");
    ptm_ck_size(ck, run->P, "workers");
    ptm_ck_size(ck, s->rank, "rank");
    if (!s->ccd)
        ptm_ck_tag(ck, s->adaptive ? "mf_sgd adaptive steps" : "mf_sgd fixed steps");
    if (s->adaptive) {
        int64_t d = run->params[s->h].rows;
        ptm_ck_size(ck, d, "rows of H");
        PTM_CK_ARRAY(ck, s->gh, d);
        for (int p = 0; p < run->P; p++) {
            struct mf_worker *m = run->w[p].kernel;
            ptm_ck_size(ck, m->g.nrows, "rows of a worker's shard");
            PTM_CK_ARRAY(ck, m->gw, m->g.nrows);
        }
    }
    if (!s->ccd)
        return;
    int64_t d = run->params[s->h].rows;
    ptm_ck_size(ck, d, "rows of H");
    PTM_CK_ARRAY(ck, s->hacc, 2 * d);
    for (int p = 0; p < run->P; p++) {
        struct mf_worker *m = run->w[p].kernel;
        ptm_ck_size(ck, m->g.nnz, "ratings of a worker's shard");
        ptm_ck_size(ck, m->g.nrows, "rows of a worker's shard");
        PTM_CK_ARRAY(ck, m->ccd.res, m->g.nnz);
        PTM_CK_ARRAY(ck, m->ccd.wacc, 2 * m->g.nrows);
    }
}

static const struct rt_rule rule_ops = {
    .name = "mf",
    .kind = RT_ROTATION,
    .unit = "ratings",
    .unit_of = RT_UNIT_ENTRIES,
    .setup = mf_setup,
    .release = mf_release,
    .zcap = mf_zcap,
    .push = mf_push,
    .spans = mf_spans,
    .state = mf_state,
};

/* ---- rmse ------------------------------------------------------------------- */

/* sqrt(sum of squared errors / count) over the ratings of `test` (the
 * training ratings R without it); each worker sums the ratings of its
 * rows, where its rows of W are. */
struct rmse_state {
    int32_t t, w, h;
    int64_t rank, count;
};

static int rmse_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_hook *o = &plan->objective;
    struct rmse_state *s = rt_zalloc(1, sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    run->obj_state = s;
    const struct plan_option *ot = rt_option(o, "test"), *orr = rt_option(o, "R"),
                             *ow = rt_option(o, "W"), *oh = rt_option(o, "H");
    const struct plan_option *od = ot && ot->kind == PLAN_VALUE_DATA ? ot : orr;
    if (!od || od->kind != PLAN_VALUE_DATA || !ow || ow->kind != PLAN_VALUE_PARAM || !oh ||
        oh->kind != PLAN_VALUE_PARAM || od->ref < 0 || (uint32_t)od->ref >= plan->ndata ||
        ow->ref < 0 || (uint32_t)ow->ref >= plan->nparams || oh->ref < 0 ||
        (uint32_t)oh->ref >= plan->nparams) {
        snprintf(err, errlen, "objective rmse: options R, W and H are missing or of the wrong kind");
        return PTM_EINVAL;
    }
    s->t = od->ref;
    s->w = ow->ref;
    s->h = oh->ref;
    const struct ptm_dataset *T = run->data[s->t];
    const struct rt_param *W = &run->params[s->w], *H = &run->params[s->h];
    s->rank = H->cols;
    /* under MPI, T is the rank's rows (sharded like R) or all of them */
    if (!T || !T->sparse || W->val || W->cols != s->rank ||
        (T->csr.nrows != W->rows && T->csr.nrows != run->nrows) ||
        T->csr.ncols > H->rows || !H->val) {
        snprintf(err, errlen,
                 "objective rmse: '%s' must be a sparse matrix with the rows of W ('%s', %lld) and "
                 "at most the rows of H ('%s', %lld) as columns, W sharded like R",
                 plan->data[s->t].name, W->pp->name, (long long)W->rows, H->pp->name,
                 (long long)H->rows);
        return PTM_EINVAL;
    }
    /* under MPI, T sharded like R is the rank's part of the ratings */
    s->count = T->csr.nrows == W->rows ? T->csr.nnz : ptm_comm_sum_i64(T->csr.nnz);
    return 0;
}

static int rmse_part(struct rt_worker *w, double *out)
{
    const struct ptm_run *run = w->run;
    const struct rmse_state *s = run->obj_state;
    /* the ratings matrix as a whole: shards of R hold local rows */
    const struct ptm_dataset *T = run->data[s->t];
    int64_t at = T->csr.nrows == run->nrows ? 0 : run->row0; /* T's rows: ours, or all */
    *out = mf_sqerr_csr(&T->csr, at + w->lo, at + w->hi, w->local[s->w], run->params[s->h].val,
                        s->rank);
    return 0;
}

static double rmse_finish(const struct ptm_run *run, double sum)
{
    const struct rmse_state *s = run->obj_state;
    return s->count ? sqrt(sum / (double)s->count) : 0;
}

static void rmse_release(struct ptm_run *run)
{
    ptm_free(run->obj_state);
    run->obj_state = NULL;
}

/* rmse keeps nothing from one evaluation to the next: no state for
 * checkpoints. */
static const struct rt_objective objective_ops = {
    .better = -1,
    .setup = rmse_setup,
    .part = rmse_part,
    .finish = rmse_finish,
    .release = rmse_release,
};

/* ---- the model ------------------------------------------------------------ */

const struct ptm_model ptm_model_mf = {
    .name = "mf",
    .predict = mf_predict,
    .predict_params = (const char *const[]){"W", "H", NULL},
    .gen = &ptm_gen_mf_cmd,
    .builtins = ptm_builtins_mf,
    .rules = (const struct ptm_model_rule[]){{"mf_sgd", &rule_ops},
                                             {"mf_ccd", &rule_ops},
                                             {NULL, NULL}},
    .objectives = (const struct ptm_model_objective[]){{"rmse", &objective_ops}, {NULL, NULL}},
};
