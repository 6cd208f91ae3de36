/*
 * sched_env.c - parameter values, delta() and the run's counters (as
 * globals) for the expressions of schedulers, on top of the data
 * callbacks of expr_env.c.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"
#include "sched_env.h"

/* Element idx (1-based, one index for a vector, two for a matrix) of an
 * array of rows x cols, or NaN. */
static double element(const double *a, const struct sched_env_param *p, const int64_t *idx, int n)
{
    int64_t i = idx[0] - 1, j = n == 2 ? idx[1] - 1 : 0;
    if ((n == 1 && p->cols != 1) || i < 0 || i >= p->rows || j < 0 || j >= p->cols)
        return NAN;
    return a ? a[i * p->cols + j] : 0;
}

/* The same, recording a bad index of parameter k. */
static double checked(struct sched_env *e, enum expr_fault_kind kind, int32_t k, const double *a,
                      const int64_t *idx, int n)
{
    const struct sched_env_param *p = &e->params[k];
    double v = element(a, p, idx, n);
    if (isnan(v) && (n != 1 || p->cols == 1)) {
        bool row_bad = idx[0] < 1 || idx[0] > p->rows;
        if (row_bad || (n == 2 && (idx[1] < 1 || idx[1] > p->cols)))
            expr_fault_record(&e->data, kind, k, n == 2 && !row_bad, row_bad ? idx[0] : idx[1],
                              row_bad ? p->rows : p->cols);
    }
    return v;
}

static double cb_param(void *ud, int32_t k, const int64_t *idx, int n)
{
    struct sched_env *e = ud;
    if (k < 0 || (uint32_t)k >= e->nparams || !e->params[k].val)
        return NAN;
    return checked(e, EXPR_FAULT_PARAM, k, e->params[k].val, idx, n);
}

static double cb_delta(void *ud, int32_t k, const int64_t *idx, int n)
{
    struct sched_env *e = ud;
    if (k < 0 || (uint32_t)k >= e->nparams || e->params[k].rows == 0)
        return NAN;
    return checked(e, EXPR_FAULT_DELTA, k, e->params[k].delta, idx, n);
}

/* Does an expression of a block set read corr() or cos() of data k? Only
 * then are its columns' sums worth a pass over it. */
static bool prog_reads_stats(const struct prog *p, int32_t k)
{
    for (uint32_t i = 0; i < p->ncode; i++)
        if ((p->code[i].op == PROG_CORR || p->code[i].op == PROG_COS) &&
            (p->code[i].a == k || p->code[i].b == k))
            return true;
    return false;
}

bool sched_order_shape(const struct ptm_plan *plan, const struct prog *p, struct order_shape *out)
{
    const struct prog_insn *c = p->code;
    uint32_t n = p->ncode;
    if ((n != 3 && n != 4) || (n == 4 && c[3].op != PROG_ABS) ||
        (c[2].op != PROG_COS && c[2].op != PROG_CORR))
        return false;
    /* the column's index is the block (var 0), the vector's the constant 1 */
    bool var_first = c[0].op == PROG_VAR && c[0].a == 0 && c[1].op == PROG_CONST;
    bool var_second = c[1].op == PROG_VAR && c[1].a == 0 && c[0].op == PROG_CONST;
    const struct prog_insn *k = var_first ? &c[1] : &c[0];
    if ((!var_first && !var_second) || k->a < 0 || (uint32_t)k->a >= p->nconsts ||
        p->consts[k->a] != 1)
        return false;
    int32_t x = var_first ? c[2].a : c[2].b, v = var_first ? c[2].b : c[2].a;
    if (x < 0 || v < 0 || (uint32_t)x >= plan->ndata || (uint32_t)v >= plan->ndata ||
        !plan->data[x].matrix || !plan->data[x].sparse || plan->data[x].labels_of >= 0 ||
        plan->data[v].matrix)
        return false;
    *out = (struct order_shape){.x = x, .v = v, .corr = c[2].op == PROG_CORR, .abs = n == 4};
    return true;
}

static bool reads_stats(const struct ptm_plan *plan, int32_t k)
{
    for (uint32_t i = 0; i < plan->nblocksets; i++) {
        const struct plan_blockset *bs = &plan->blocksets[i];
        struct order_shape os;
        if (prog_reads_stats(&bs->pred, k) || prog_reads_stats(&bs->priority, k) ||
            prog_reads_stats(&bs->cost, k) ||
            (prog_reads_stats(&bs->order, k) && !sched_order_shape(plan, &bs->order, &os)))
            return true;
    }
    return false;
}

int sched_env_init(struct sched_env *e, const struct ptm_plan *plan, struct ptm_dataset *const *data)
{
    memset(e, 0, sizeof(*e));
    e->nparams = plan->nparams;
    e->src = ptm_malloc((plan->ndata ? plan->ndata : 1) * sizeof(*e->src));
    e->params = ptm_malloc((plan->nparams ? plan->nparams : 1) * sizeof(*e->params));
    if (!e->src || !e->params) {
        sched_env_release(e);
        return PTM_ENOMEM;
    }
    memset(e->params, 0, (plan->nparams ? plan->nparams : 1) * sizeof(*e->params));
    for (uint32_t k = 0; k < plan->ndata; k++) {
        e->src[k].ds = data[k];
        e->src[k].labels_of = plan->data[k].labels_of;
        e->src[k].no_stats = !reads_stats(plan, (int32_t)k);
    }
    if (expr_data_init(&e->data, e->src, plan->ndata) != 0) {
        memset(&e->data, 0, sizeof(e->data)); /* released by expr_data_init */
        sched_env_release(e);
        return PTM_ENOMEM;
    }
    e->env.globals = e->globals;
    expr_env_data(&e->env, &e->data);
    e->env.ud = e; /* e begins with its expr_data */
    e->env.param = cb_param;
    e->env.delta = cb_delta;
    return 0;
}

void sched_env_param(struct sched_env *e, int32_t p, const double *val, const double *delta,
                     int64_t rows, int64_t cols)
{
    e->params[p] = (struct sched_env_param){.val = val, .delta = delta, .rows = rows, .cols = cols};
}

void sched_env_release(struct sched_env *e)
{
    if (e->src)
        expr_data_release(&e->data);
    ptm_free(e->src);
    ptm_free(e->params);
    memset(e, 0, sizeof(*e));
}
