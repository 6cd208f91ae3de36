/*
 * sched_setup.c - the scheduler of a run and what it needs: the policy's
 * state (struct ptm_sched_ops of schedulers/), the environment in which
 * the scheduled block set's expressions (dynamic's dependencies,
 * priorities and costs) read the data, the parameters and the counters,
 * the conflict graph of a depend predicate over data (depgraph.h; under
 * MPI from all ranks' rows, gathered on rank 0 for the purpose), and the
 * buffers of the round loop, sized by the most blocks a round may have;
 * the diagnostics a scheduler renders about bad data; and the message of
 * an index out of range met by those expressions (rt_expr_fault(): the
 * evaluation records it, expr_env.h; the expression and, for a priority
 * or a cost, the block are found again by evaluating it once more).
 *
 * What it allocates hangs off struct ptm_run; ptm_run_free() releases
 * it. The counters the expressions read are kept current by the round
 * loop (rt_sched_globals(), rounds.c).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "engine_impl.h"
#include "ptm.h"

/* The expressions of the scheduled block set that the policy evaluates:
 * under dynamic its depend predicate, priority, cost and (with `active`)
 * order; others ignore them. */
static int sched_progs(const struct ptm_run *run, const struct prog **out)
{
    const struct plan_blockset *bs = run->bs;
    int n = 0;
    if (run->plan->schedule.policy != PLAN_POLICY_DYNAMIC)
        return 0;
    if (bs->depend == PLAN_DEPEND_PRED && !run->plan->schedule.keep_all)
        out[n++] = &bs->pred;
    if (bs->has_priority)
        out[n++] = &bs->priority;
    if (bs->has_cost)
        out[n++] = &bs->cost;
    if (bs->has_order && run->plan->schedule.active)
        out[n++] = &bs->order;
    return n;
}

/* The policy reads entries of a matrix (X[i, j]), or compares its columns
 * in a dependency (corr(), cos(): the filter's lists and the graph's rows
 * go by rows, depgraph.c): those read the CSR, which a job that reads
 * columns only gives up (columns_only), and which the dependency would
 * otherwise build again from the columns, as large. Called before the
 * blocks exist, so it looks at the plan's schedule. */
bool rt_sched_reads_entries(const struct ptm_plan *plan)
{
    int32_t over = plan->schedule.over;
    if (plan->schedule.policy != PLAN_POLICY_DYNAMIC || over < 0 ||
        (uint32_t)over >= plan->nblocksets)
        return false;
    const struct plan_blockset *bs = &plan->blocksets[over];
    const struct prog *progs[4] = {
        bs->depend == PLAN_DEPEND_PRED ? &bs->pred : NULL,
        bs->has_priority ? &bs->priority : NULL,
        bs->has_cost ? &bs->cost : NULL,
        bs->has_order && plan->schedule.active ? &bs->order : NULL,
    };
    for (int k = 0; k < 4; k++)
        for (uint32_t i = 0; progs[k] && i < progs[k]->ncode; i++) {
            const struct prog_insn *in = &progs[k]->code[i];
            if (in->op == PROG_DATA && in->a >= 0 && (uint32_t)in->a < plan->ndata &&
                plan->data[in->a].labels_of < 0 && plan->data[in->a].matrix)
                return true;
            if (k == 0 && !plan->schedule.keep_all &&
                (in->op == PROG_CORR || in->op == PROG_COS))
                return true;
        }
    return false;
}

/* An entry of a matrix on its way to rank 0. */
struct gentry {
    int64_t row, col;
    double v;
};

/* Under MPI, every rank's rows of data source k (sharded by rows) on rank
 * 0, as one data set in *out (NULL on the other ranks), labels too: the
 * graph and an order must see all rows, as one process would. Every rank
 * calls it. A label travels as an entry of column -1. */
static int gather_rows(struct ptm_run *run, int32_t k, struct ptm_dataset **out)
{
    *out = NULL;
    struct ptm_dataset *mine = run->data[k];
    const struct ptm_csc *c;
    int rc = ptm_dataset_csc(mine, &c);
    int64_t nl = mine->has_labels ? mine->labels.n : 0;
    int64_t n = rc == 0 ? c->nnz + nl : 0, ncols = ptm_comm_max_i64(rc == 0 ? c->ncols : 0);
    if (ptm_comm_max_i64(rc != 0) != 0)
        return PTM_ENOMEM;
    struct gentry *send = ptm_malloc((size_t)(n ? n : 1) * sizeof(*send));
    int64_t *at = ptm_malloc(((size_t)run->nranks + 1) * sizeof(int64_t));
    rc = send && at ? 0 : PTM_ENOMEM;
    if (ptm_comm_max_i64(rc != 0) != 0) {
        ptm_free(send);
        ptm_free(at);
        return PTM_ENOMEM;
    }
    for (int64_t j = 0, e = 0; j < c->ncols; j++)
        for (; e < c->colptr[j + 1]; e++)
            send[e] = (struct gentry){run->row0 + c->rowind[e], j, c->val[e]};
    for (int64_t i = 0; i < nl; i++)
        send[c->nnz + i] = (struct gentry){run->row0 + i, -1, mine->labels.val[i]};
    at[0] = 0;
    for (int r = 1; r <= run->nranks; r++)
        at[r] = n;
    void *recv = NULL;
    int64_t nrecv = 0;
    rc = ptm_comm_exchange(send, at, sizeof(*send), &recv, &nrecv);
    ptm_free(send);
    ptm_free(at);
    if (rc != 0 || run->rank != 0) {
        ptm_free(recv);
        return rc;
    }
    const struct gentry *g = recv;
    struct ptm_dataset *ds = rt_zalloc(1, sizeof(*ds));
    if (!ds) {
        ptm_free(recv);
        return PTM_ENOMEM;
    }
    ds->format = mine->format;
    ds->sparse = true;
    struct ptm_csr *a = &ds->csr;
    a->nrows = run->grows;
    a->ncols = ncols;
    a->nnz = nrecv;
    a->rowptr = rt_zalloc((size_t)a->nrows + 1, sizeof(int64_t));
    a->colind = ptm_malloc((size_t)(nrecv ? nrecv : 1) * sizeof(int32_t));
    a->val = ptm_malloc((size_t)(nrecv ? nrecv : 1) * sizeof(double));
    ds->has_labels = mine->has_labels;
    ds->labels.n = mine->has_labels ? a->nrows : 0;
    ds->labels.val = rt_zalloc((size_t)ds->labels.n, sizeof(double));
    if (!a->rowptr || !a->colind || !a->val || !ds->labels.val) {
        ptm_free(recv);
        ptm_dataset_free(ds);
        return PTM_ENOMEM;
    }
    /* by row, stably: each row's entries come from one rank, by column */
    for (int64_t e = 0; e < nrecv; e++) {
        if (g[e].col < 0)
            ds->labels.val[g[e].row] = g[e].v;
        else
            a->rowptr[g[e].row + 1]++;
    }
    for (int64_t i = 0; i < a->nrows; i++)
        a->rowptr[i + 1] += a->rowptr[i];
    a->nnz = a->rowptr[a->nrows];
    for (int64_t e = 0; e < nrecv; e++) {
        if (g[e].col < 0)
            continue;
        int64_t to = a->rowptr[g[e].row]++;
        a->colind[to] = (int32_t)g[e].col;
        a->val[to] = g[e].v;
    }
    for (int64_t i = a->nrows; i > 0; i--)
        a->rowptr[i] = a->rowptr[i - 1];
    a->rowptr[0] = 0;
    ptm_free(recv);
    *out = ds;
    return 0;
}

/* Under MPI, on rank 0, the data the scheduler's expressions read with
 * source k (sharded by rows) replaced by every rank's rows (gather_rows):
 * *data over *src, both with *all the caller's (all_rows_release). Every
 * rank calls it; on the others *all stays NULL. */
static int all_rows(struct ptm_run *run, int32_t k, struct ptm_dataset **all,
                    struct expr_source **src, struct expr_data *data)
{
    *src = NULL;
    int rc = gather_rows(run, k, all);
    if (rc != 0 || run->rank != 0)
        return rc;
    uint32_t n = run->senv.data.nsrc;
    if ((*src = rt_zalloc(n, sizeof(**src))) != NULL) {
        memcpy(*src, run->senv.data.src, n * sizeof(**src));
        (*src)[k].ds = *all;
    }
    if (!*src || (rc = expr_data_init(data, *src, n)) != 0) { /* data released */
        ptm_free(*src);
        *src = NULL;
        ptm_dataset_free(*all);
        *all = NULL;
        return rc ? rc : PTM_ENOMEM;
    }
    return 0;
}

static void all_rows_release(struct ptm_dataset *all, struct expr_source *src,
                             struct expr_data *data)
{
    if (!all)
        return;
    expr_data_release(data);
    ptm_free(src);
    ptm_dataset_free(all);
}

/* The depend predicate's conflicts, when it reads data only (depgraph.h):
 * with every row on this rank, computed for each round's candidates (and
 * the graph once that costs less); across ranks, the graph of all rows,
 * when small enough; else the filter evaluates the predicate per pair,
 * and ptm says why when it would cost much. */
static int make_depgraph(struct ptm_run *run, char *err, size_t errlen);

/* A built-in coordinate update (lasso_cd, logreg_cd) costs about two
 * passes over a column's non-zeros: computing the conflicts its
 * dependencies name can cost many sweeps of them (spec/language.md 5.6,
 * "When it pays"), and under within = sequential they never matter. The
 * user is told once, at set-up, with the figures. */
static void depend_note(const struct ptm_run *run)
{
    const struct plan_hook *u = &run->plan->update;
    if (run->rank != 0 || !run->opts.log || !u->builtin ||
        (strcmp(u->builtin, "lasso_cd") != 0 && strcmp(u->builtin, "logreg_cd") != 0))
        return;
    bool seq = rt_within_sequential(u);
    double products;
    int64_t nnz;
    depgraph_lazy_price(run->lazy, &products, &nnz);
    double sweeps = nnz > 0 ? products / (2.0 * (double)nnz) : 0;
    if (seq)
        fprintf(run->opts.log,
                "note: update %s with within = sequential takes a round's coefficients one "
                "after the other (a split round's shares damped), which needs no "
                "dependencies: those of '%s' only cost time (up to %.3g products of X'X, about "
                "%.0f sweeps of updates); remove the depend\n",
                u->builtin, run->bs->name, products, sweeps);
    else if (sweeps >= 10 && !run->plan->schedule.keep_moved)
        fprintf(run->opts.log,
                "note: the dependencies of '%s' may cost up to %.3g products of X'X, about %.0f "
                "sweeps of %s's updates (two passes over X's %lld non-zeros a sweep); with "
                "updates this cheap, %s reaches the optimum sooner (spec/language.md 5.6)\n",
                run->bs->name, products, sweeps, u->builtin, (long long)nnz,
                /* logreg_cd applies each change as it goes: no keep moved */
                strcmp(u->builtin, "lasso_cd") == 0
                    ? "`keep moved` (the pairs of the blocks that changed only), or within = "
                      "sequential and no depend,"
                    : "within = sequential and no depend");
}

static int make_depgraph(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_blockset *bs = run->bs;
    if (bs->depend != PLAN_DEPEND_PRED || run->plan->schedule.keep_all || !run->has_senv)
        return 0;
    char why[200];
    int32_t k = depgraph_data(&bs->pred);
    struct ptm_dataset *all = NULL;
    struct expr_source *src = NULL;
    struct expr_data data = run->senv.data;
    int rc = 0;
    if (k >= 0 && !(run->nranks > 1 && k == run->rowdata)) {
        /* every row here: the rounds' candidates only, the graph if it pays */
        rc = depgraph_lazy_new(&bs->pred, &run->senv.data, &run->senv.env, run->nblocks,
                               &run->lazy, why, sizeof(why));
        if (rc < 0) {
            snprintf(err, errlen, "cannot prepare the dependencies of '%s': %s", bs->name,
                     ptm_strerror(rc));
            return rc;
        }
        if (rc == 0) {
            depend_note(run);
            return 0;
        }
        /* not of the shape: per pair, as below says */
    }
    if (k >= 0 && run->nranks > 1 && k == run->rowdata) {
        /* the graph of all ranks' rows, on rank 0, which schedules */
        if ((rc = all_rows(run, k, &all, &src, &data)) != 0 || run->rank != 0)
            return rc;
    }
    rc = depgraph_build(&bs->pred, &data, &run->senv.env, run->nblocks, &run->depgraph,
                        &run->depgraph_info, why, sizeof(why));
    all_rows_release(all, src, &data);
    if (rc < 0) {
        snprintf(err, errlen, "cannot build the dependency graph of '%s': %s", bs->name,
                 ptm_strerror(rc));
        return rc;
    }
    run->has_depgraph = rc == 0;
    if (rc == 0) {
        run->setup_sched_seconds = run->depgraph_info.seconds;
        run->seconds += run->depgraph_info.seconds;
    } else if (run->rank == 0 && run->nblocks > 1000 && run->opts.log) {
        fprintf(run->opts.log, "note: the dependencies of '%s' are evaluated per pair of blocks "
                        "as rounds need them: %s\n", bs->name, why);
    }
    return 0;
}

/* The environment of the block set's expressions: the data, the
 * parameters with one copy (values, and the changes of the scheduled one),
 * the counters. Only when the policy evaluates expressions: building it
 * costs a pass over the data (and a CSC of a matrix the workers hold by
 * rows). */
static int make_sched_env(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const struct prog *progs[4];
    int np = sched_progs(run, progs);
    double v;
    bool need = false;
    for (int k = 0; k < np; k++) {
        if (!prog_is_const(progs[k], &v))
            need = true;
        for (uint32_t i = 0; i < progs[k]->ncode; i++) {
            const struct prog_insn *in = &progs[k]->code[i];
            if (in->op == PROG_DELTA && in->a == run->sparam)
                run->track_delta = true; /* commit keeps the changes it reads */
            if ((in->op != PROG_PARAM && in->op != PROG_DELTA) || in->a < 0 ||
                (uint32_t)in->a >= plan->nparams || run->params[in->a].val)
                continue;
            snprintf(err, errlen,
                     "the %s of '%s' reads '%s', which is sharded like '%s': the scheduler reads "
                     "only parameters with one copy",
                     progs[k] == &run->bs->priority ? "priority"
                     : progs[k] == &run->bs->cost   ? "cost"
                     : progs[k] == &run->bs->order  ? "order"
                                                    : "dependency",
                     run->bs->name, plan->params[in->a].name,
                     plan->data[run->params[in->a].shard_like].name);
            return PTM_EINVAL;
        }
    }
    if (run->track_delta && !run->last_delta) { /* see make_blocks() */
        run->last_delta = rt_zalloc((size_t)run->params[run->sparam].len, sizeof(double));
        if (!run->last_delta)
            return PTM_ENOMEM;
    }
    if (!need)
        return 0;
    int rc = sched_env_init(&run->senv, plan, run->data);
    if (rc != 0)
        return rc;
    run->has_senv = true;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct rt_param *t = &run->params[p];
        if (t->val)
            sched_env_param(&run->senv, (int32_t)p, t->val,
                            (int32_t)p == run->sparam ? run->last_delta : NULL, t->rows, t->cols);
    }
    rt_sched_globals(run);
    return make_depgraph(run, err, errlen);
}

/* Move diagnostics a scheduler rendered into err (one a line, "WHERE:
 * error: MESSAGE" or "WHERE: note: MESSAGE") to dg, where bad data is
 * reported. */
void rt_diags_from_text(struct ptm_data_diags *dg, const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        const char *e = strstr(text, ": error: "), *n = strstr(text, ": note: ");
        const char *sev = e && (!n || e < n) ? e : n;
        if (dg->n == dg->cap) {
            size_t cap = dg->cap ? 2 * dg->cap : 8;
            struct ptm_data_diag *m = ptm_realloc(dg->msg, cap * sizeof(*m));
            if (!m) {
                dg->oom = true;
                return;
            }
            dg->msg = m;
            dg->cap = cap;
        }
        char *copy = plan_strndup(text, len);
        if (!copy) {
            dg->oom = true;
            return;
        }
        bool note = sev && sev == n;
        dg->msg[dg->n++] = (struct ptm_data_diag){
            .text = copy,
            .where = sev && sev < text + len ? (uint32_t)(sev - text + 2) : 0,
            .note = note,
        };
        if (!note)
            dg->nerrors++;
        text += len + (nl ? 1 : 0);
    }
}

/* Does p read what fault f names? */
static bool reads(const struct prog *p, const struct expr_fault *f)
{
    for (uint32_t i = 0; i < p->ncode; i++) {
        const struct prog_insn *x = &p->code[i];
        bool hit;
        switch (f->kind) {
        case EXPR_FAULT_COL:
            hit = (x->op == PROG_NNZ_COL || x->op == PROG_DATA) && x->a == f->src;
            hit |= (x->op == PROG_CORR || x->op == PROG_COS) && (x->a == f->src || x->b == f->src);
            break;
        case EXPR_FAULT_ROW:
            hit = (x->op == PROG_NNZ_ROW || x->op == PROG_DATA) && x->a == f->src;
            break;
        case EXPR_FAULT_LABEL: hit = x->op == PROG_DATA && x->a == f->src; break;
        case EXPR_FAULT_PARAM: hit = x->op == PROG_PARAM && x->a == f->src; break;
        default: hit = x->op == PROG_DELTA && x->a == f->src; break;
        }
        if (hit)
            return true;
    }
    return false;
}

/* The first block j (0-based) for which p(j) meets the index of fault f,
 * evaluated again now; -1 when none does. The fault stays as it was. */
static int64_t block_of(const struct ptm_run *run, struct sched_env *e, const struct prog *p,
                        const struct expr_fault *f)
{
    struct expr_fault *rec = &e->data.fault;
    struct expr_fault saved = {.kind = f->kind, .src = f->src, .axis = f->axis,
                               .index = f->index, .range = f->range};
    struct prog_env env = e->env;
    double vars[PROG_MAX_VARS] = {0};
    env.vars = vars;
    int64_t found = -1;
    for (int64_t j = 0; j < run->nblocks && found < 0; j++) {
        atomic_store(&rec->state, 0);
        vars[0] = (double)(j + 1);
        (void)prog_eval(p, &env);
        const struct expr_fault *g = expr_fault_get(&e->data);
        if (g && g->kind == saved.kind && g->src == saved.src && g->index == saved.index)
            found = j;
    }
    expr_fault_record_again(&e->data, &saved);
    return found;
}

int rt_expr_fault(struct ptm_run *run, char *err, size_t errlen)
{
    return run->has_senv ? rt_expr_fault_in(run, &run->senv, err, errlen) : 0;
}

int rt_expr_fault_in(const struct ptm_run *run, struct sched_env *e, char *err, size_t errlen)
{
    const struct expr_fault *f = expr_fault_get(&e->data);
    if (!f)
        return 0;
    const struct ptm_plan *plan = run->plan;
    const struct plan_blockset *bs = run->bs;
    const char *stmt = "an expression of the scheduler", *text = NULL, *at = NULL;
    int64_t j = -1;
    char who[160] = "";
    /* priorities, costs and orders have one variable: find the block again */
    if (bs && bs->has_priority && reads(&bs->priority, f) &&
        (j = block_of(run, e, &bs->priority, f)) >= 0)
        stmt = "the priority", text = bs->priority.text, at = run->opts.priority_at;
    else if (bs && bs->has_cost && reads(&bs->cost, f) && (j = block_of(run, e, &bs->cost, f)) >= 0)
        stmt = "the cost", text = bs->cost.text, at = run->opts.cost_at;
    else if (bs && bs->has_order && reads(&bs->order, f) &&
             (j = block_of(run, e, &bs->order, f)) >= 0)
        stmt = "the order", text = bs->order.text, at = run->opts.order_at;
    else if (bs && bs->depend == PLAN_DEPEND_PRED && reads(&bs->pred, f))
        stmt = "the depend predicate", text = bs->pred.text, at = run->opts.depend_at;
    if (j >= 0)
        snprintf(who, sizeof(who), " of %s(%lld)", bs->name, (long long)j + 1);
    bool param = f->kind == EXPR_FAULT_PARAM || f->kind == EXPR_FAULT_DELTA;
    const char *name = param ? plan->params[f->src].name : plan->data[f->src].name;
    bool matrix = param ? plan->params[f->src].matrix : plan->data[f->src].matrix;
    const char *what = f->kind == EXPR_FAULT_COL   ? "column"
                       : f->kind == EXPR_FAULT_ROW ? "row"
                       : !matrix                   ? "index"
                       : f->axis                   ? "column"
                                                   : "row";
    char range[64];
    if (f->range > 0)
        snprintf(range, sizeof(range), "1..%lld", (long long)f->range);
    else
        snprintf(range, sizeof(range), "it has none");
    char index[48];
    if (f->index == -1)
        snprintf(index, sizeof(index), "that is not a finite whole number");
    else
        snprintf(index, sizeof(index), "%lld", (long long)f->index);
    snprintf(err, errlen, "%s%s%s%s%s reads %s %s of '%s', out of range (%s)%s%s%s", stmt, who,
             text ? " '" : "", text ? text : "", text ? "'" : "", what, index, name, range,
             at ? "\n" : "", at ? at : "", at ? ": note: it is declared here" : "");
    return PTM_EINVAL;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Does p read data source k, or the labels of k? */
static bool reads_source(const struct prog *p, const struct ptm_plan *plan, int32_t k)
{
    for (uint32_t i = 0; i < p->ncode; i++) {
        const struct prog_insn *x = &p->code[i];
        int32_t src[2] = {-1, -1};
        switch (x->op) {
        case PROG_DATA:
        case PROG_NNZ_COL:
        case PROG_NNZ_ROW:
        case PROG_ROWS:
        case PROG_COLS:
            src[0] = x->a;
            break;
        case PROG_CORR:
        case PROG_COS:
            src[0] = x->a;
            src[1] = x->b;
            break;
        default:
            break;
        }
        for (int m = 0; m < 2; m++)
            if (src[m] >= 0 && (uint32_t)src[m] < plan->ndata &&
                (src[m] == k || plan->data[src[m]].labels_of == k))
                return true;
    }
    return false;
}

/* An order of the shape from its sums: v's (tail: sum, sum of squares,
 * rows, lengths differ) and the column's (product with v, sum, sum of
 * squares). */
static float shape_value(const struct order_shape *os, const double *tail, double xv, double s1,
                         double q)
{
    double r = tail[3] != 0 ? NAN
               : os->corr   ? expr_corr_of(xv, tail[2], s1, q, tail[0], tail[1])
                            : expr_cos_of(xv, q, tail[1]);
    return (float)(os->abs ? fabs(r) : r);
}

int rt_order_by_shape(struct expr_data *d, const struct order_shape *os, int64_t B, int nranks,
                      float *out)
{
    int64_t len = 0;
    const double *v = expr_vector(d, os->v, &len);
    const struct ptm_csc *c = NULL;
    int rc = ptm_dataset_csc(d->src[os->x].ds, &c);
    if (ptm_comm_max_i64(rc != 0) != 0)
        return PTM_ENOMEM;
    int64_t n = B < c->ncols ? B : c->ncols;
    bool many = nranks > 1;
    /* v's sum and sum of squares, the rows, whether the lengths differ;
     * across ranks also each column's product, sum and sum of squares */
    double tail[4] = {0, 0, (double)c->nrows, 0}, *acc = NULL;
    if (many && ptm_comm_max_i64((acc = ptm_malloc(3 * (size_t)(n ? n : 1) * sizeof(double))) ==
                                 NULL) != 0) {
        ptm_free(acc);
        return PTM_ENOMEM;
    }
    bool fits = v && len == c->nrows;
    for (int64_t i = 0; fits && i < len; i++) {
        tail[0] += v[i];
        tail[1] += v[i] * v[i];
    }
    tail[3] = !fits;
    if (many)
        ptm_comm_sum_all(tail, 4);
    for (int64_t j = 0; j < n; j++) {
        double xv = 0, s1 = 0, q = 0;
        for (int64_t e = c->colptr[j]; fits && e < c->colptr[j + 1]; e++) {
            double x = c->val[e];
            xv += x * v[c->rowind[e]];
            s1 += x;
            q += x * x;
        }
        if (many) {
            acc[3 * j] = xv;
            acc[3 * j + 1] = s1;
            acc[3 * j + 2] = q;
            continue;
        }
        out[j] = shape_value(os, tail, xv, s1, q);
    }
    if (many) {
        ptm_comm_sum_all(acc, 3 * (size_t)n);
        for (int64_t j = 0; j < n; j++) {
            const double *a = acc + 3 * j;
            out[j] = shape_value(os, tail, a[0], a[1], a[2]);
        }
        ptm_free(acc);
    }
    for (int64_t j = n; j < B; j++) { /* as the evaluation would: the first index out of range */
        expr_fault_record(d, EXPR_FAULT_COL, os->x, 0, j + 1, c->ncols);
        out[j] = NAN;
    }
    return 0;
}

/* The order of every block (dynamic, `active`) where the engine computes
 * it: of the common shape, from one pass over the data (order_by_shape);
 * else under MPI, when it reads the data sharded by rows, evaluated on
 * rank 0 over every rank's rows (gather_rows), as one process would,
 * where the scheduler's environment holds rank 0's rows alone. *out
 * stays NULL when the scheduler evaluates it itself; on ranks other than
 * 0, whose schedulers hand out no round, it may hold zeros. Every rank
 * calls it. */
static int order_values(struct ptm_run *run, float **out)
{
    const struct ptm_plan *plan = run->plan;
    const struct plan_blockset *bs = run->bs;
    int32_t k = run->rowdata;
    struct order_shape os;
    *out = NULL;
    if (plan->schedule.policy != PLAN_POLICY_DYNAMIC || !plan->schedule.active || !bs->has_order ||
        !run->has_senv)
        return 0;
    bool shape = sched_order_shape(plan, &bs->order, &os);
    if (!shape && (run->nranks == 1 || k < 0 || !reads_source(&bs->order, plan, k)))
        return 0;
    float *v = rt_zalloc((size_t)run->nblocks, sizeof(float));
    if (ptm_comm_max_i64(v == NULL) != 0) {
        ptm_free(v);
        return PTM_ENOMEM;
    }
    int rc;
    if (shape) {
        if ((rc = rt_order_by_shape(&run->senv.data, &os, run->nblocks, run->nranks, v)) != 0)
            ptm_free(v);
        else
            *out = v;
        return rc;
    }
    struct ptm_dataset *all = NULL;
    struct expr_source *src;
    struct expr_data data;
    if ((rc = all_rows(run, k, &all, &src, &data)) != 0 || run->rank != 0) {
        *out = rc == 0 ? v : NULL;
        if (rc != 0)
            ptm_free(v);
        return rc;
    }
    struct prog_env env = run->senv.env; /* an order reads no parameter */
    double var;
    env.ud = &data;
    env.vars = &var;
    for (int64_t b = 0; b < run->nblocks; b++) {
        var = (double)(b + 1);
        v[b] = (float)prog_eval(&bs->order, &env);
    }
    const struct expr_fault *f = expr_fault_get(&data);
    if (f) /* reported as any expression's (rt_expr_fault) */
        expr_fault_record_again(&run->senv.data, f);
    all_rows_release(all, src, &data);
    *out = v;
    return 0;
}

static bool sched_alone(void *ud, const int64_t *blocks, size_t n)
{
    const struct ptm_run *run = ud;
    return run->rule->alone_blocks(run, blocks, n);
}

/* `keep moved`: whether the rule can drop changes before any is applied
 * (rules by rows and across ranks: in the pull; a split rule on one rank:
 * in its push, when its setup says so), and the filter's scratch. */
static int recheck_setup(struct ptm_run *run, size_t cap, char *err, size_t errlen)
{
    const struct plan_schedule *sc = &run->plan->schedule;
    if (sc->policy != PLAN_POLICY_DYNAMIC || !sc->keep_moved ||
        run->bs->depend == PLAN_DEPEND_NONE || run->rank != 0)
        return 0;
    if (run->split && run->nranks == 1 && !run->push_rechecks) {
        const struct plan_hook *u = &run->plan->update;
        const struct plan_option *ow = rt_option(u, "within");
        const char *w = ow && ow->kind == PLAN_VALUE_STR ? ow->str : NULL;
        snprintf(err, errlen,
                 "schedule dynamic { keep moved } drops the changes of conflicting blocks "
                 "after the update, which needs a round's changes computed before any is "
                 "applied (lasso_cd with within = parallel, a Lua rule); update %s%s%s applies "
                 "each as it computes it: use keep independent (the default)",
                 u->builtin ? u->builtin : "lua", w ? " with within = " : "", w ? w : "");
        return PTM_EINVAL;
    }
    struct rt_recheck *k = &run->rk;
    k->pb = rt_zalloc(cap, sizeof(int64_t));
    k->flag = rt_zalloc(cap, 1);
    k->keep = rt_zalloc(cap, sizeof(size_t));
    k->mark = rt_zalloc((size_t)run->nblocks, 1);
    k->blocks = rt_zalloc(cap, sizeof(int64_t));
    k->change = rt_zalloc(cap, sizeof(double));
    if (!k->pb || !k->flag || !k->keep || !k->mark || !k->blocks || !k->change)
        return PTM_ENOMEM;
    run->recheck = true;
    return 0;
}

int rt_make_schedule(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    if (!run->sched) /* data_parallel: clocks, no rounds of blocks */
        return 0;
    int rc = make_sched_env(run, err, errlen);
    if (rc != 0)
        return rc;
    struct ptm_sched_info info = {
        .plan = plan,
        .bs = run->bs,
        .nblocks = run->nblocks,
        .workers = run->G,
        .per_round = plan->schedule.per_round,
        .seed = run->seed,
        .env = run->has_senv ? &run->senv.env : NULL,
        .graph = run->has_depgraph ? &run->depgraph : NULL,
        .pairs = run->lazy ? depgraph_lazy_ops(run->lazy) : NULL,
    };
    if (run->expand_late && run->rule->alone_blocks) {
        run->sched_alone = (struct sched_alone){.ud = run, .alone = sched_alone};
        info.alone = &run->sched_alone;
    }
    /* an order costs a pass over the data and a sort: the run's time, as
     * the dependency graph's (spec/runtime.md) */
    double t0 = now_seconds(), order_seconds = 0;
    float *order = NULL;
    if ((rc = order_values(run, &order)) != 0)
        return rc;
    if (order) /* gathered and evaluated here */
        order_seconds = now_seconds() - t0;
    info.order = order;
    info.order_seconds = &order_seconds;
    rc = run->sched->create(&info, &run->sched_state, err, errlen);
    ptm_free(order);
    run->setup_sched_seconds += order_seconds;
    run->seconds += order_seconds;
    /* an index out of range says more than the NaN it gave */
    if (rc == 0 && (rc = rt_expr_fault(run, err, errlen)) != 0) {
        run->sched->destroy(run->sched_state);
        run->sched_state = NULL;
        return rc;
    }
    if (rc != 0 && rt_expr_fault(run, err, errlen) != 0) {
        run->sched_state = NULL;
        return PTM_EINVAL;
    }
    if (rc != 0) {
        run->sched_state = NULL;
        if (rc == PTM_EDATA || rc == PTM_ENOENT || rc == PTM_EIO) {
            rt_diags_from_text(dg, err); /* bad data in a file the policy reads */
            err[0] = '\0';
        }
        return rc;
    }
    size_t cap = run->sched->cap(run->sched_state);
    size_t maxvars = cap * (size_t)run->bvars;
    /* A rotation's workers write the blocks they hold in place: its rounds
     * list no variables, changes or new values (as large as the scheduled
     * parameter, three times over). */
    size_t listed = run->rule->kind == RT_ROTATION ? 0 : maxvars;
    for (int i = 0; i < 3; i++) {
        struct rt_round *rd = i < 2 ? &run->rounds[i] : &run->canon;
        rd->blocks = rt_zalloc(cap, sizeof(int64_t));
        rd->off = rt_zalloc(cap + 1, sizeof(int64_t));
        rd->vars = rt_zalloc(listed, sizeof(int64_t));
        rd->change = rt_zalloc(listed, sizeof(double));
        rd->part = rt_zalloc((size_t)run->G + 1, sizeof(size_t));
        rd->order = rt_zalloc(cap, sizeof(size_t));
        if (!rd->blocks || !rd->off || !rd->vars || !rd->change || !rd->part || !rd->order)
            return PTM_ENOMEM;
        for (size_t k = 0; k <= cap; k++) /* for good under expand_late */
            rd->off[k] = (int64_t)k;
    }
    run->bchange = rt_zalloc(cap, sizeof(double));
    if ((rc = recheck_setup(run, cap, err, errlen)) != 0)
        return rc;
    if (run->nranks > 1) {
        run->say_cap = cap;
        run->say = rt_zalloc(2 + 2 * cap + (size_t)run->G + 1 + listed, sizeof(int64_t));
        if (!run->say)
            return PTM_ENOMEM;
    }
    if (run->G > run->P) {
        run->holder = rt_zalloc((size_t)run->nblocks, sizeof(int));
        run->msgs = rt_zalloc((size_t)run->nblocks * RT_SPANS, sizeof(*run->msgs));
        if (!run->holder || !run->msgs)
            return PTM_ENOMEM;
        for (int64_t b = 0; b < run->nblocks; b++)
            run->holder[b] = -1;
    }
    run->newval = rt_zalloc(listed, sizeof(double));
    run->zcap = run->rule->zcap(run, cap, maxvars);
    run->zsum = rt_zalloc(run->zcap, sizeof(double));
    if (!run->bchange || !run->newval || !run->zsum)
        return PTM_ENOMEM;
    for (int p = 0; p < run->P; p++) {
        run->w[p].z = rt_zalloc(run->zcap, sizeof(double));
        if (!run->w[p].z)
            return PTM_ENOMEM;
    }
    return 0;
}
