/*
 * dryrun.c - `ptm plan`: run the plan's scheduler against a simulated
 * execution and record the schedule it hands out (struct ptm_trace).
 *
 * DESIGN: the set-up is the engine's (rt_setup_tables: the same data
 * reading and messages, parameter sizes, initial values and block set as
 * `ptm run`, but one copy of every parameter and no workers), and the
 * scheduler is the plan's own, found with ptm_sched_find() and driven
 * through schedulers/scheduler.h as the engine drives it, with the same kind
 * of environment for its expressions (sched_env.h). Only the updates are not run. In their place
 * every scheduled block gets a simulated change (PTM_DRYRUN_MODEL): block b's k-th update changes
 * each of its variables by s_b * 0.8^(k-1), s_b drawn once, log-uniform in [0.01, 1], from the
 * seed. The changes are written where delta() reads them and added to the parameter's values, and
 * done() hears them (the norm over the block's variables), so a policy
 * that samples by priority sees blocks that keep moving (large s_b) and
 * blocks that settle. The same plan, seed, rounds and workers give the
 * same schedule. The dependency graph for pictures is asked of the same
 * conflict rule the dynamic policy filters by (schedulers/conflict.c).
 *
 * A worker's load in a round is the cost of the blocks the scheduler gave
 * it (the block set's `cost`, 1 a block without one): the time it would
 * take if time were cost.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "dryrun.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"
#include "rng.h"
#include "scheduler.h"
#include "sched_env.h"
#include "sched_impl.h"

/* ---- the schedule record ----------------------------------------------------- */

struct ptm_trace *ptm_trace_new(int workers)
{
    struct ptm_trace *t = rt_zalloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->workers = workers < 1 ? 1 : workers;
    t->unit = "cost";
    t->sweeps = NAN;
    t->start = rt_zalloc(1, sizeof(size_t)); /* start[0] = 0 */
    if (!t->start) {
        ptm_free(t);
        return NULL;
    }
    return t;
}

void ptm_trace_free(struct ptm_trace *t)
{
    if (!t)
        return;
    ptm_free(t->source);
    ptm_free(t->job);
    ptm_free(t->policy);
    ptm_free(t->blockset);
    ptm_free(t->note);
    ptm_free(t->cost);
    ptm_free(t->rounds);
    ptm_free(t->start);
    ptm_free(t->load);
    ptm_free(t->blocks);
    if (t->graph) {
        ptm_free(t->graph->priority);
        ptm_free(t->graph->cost);
        ptm_free(t->graph->edges);
        ptm_free(t->graph->depend);
        ptm_free(t->graph);
    }
    if (t->clocks) {
        struct ptm_clock_sched *cs[2] = {&t->clocks->job, &t->clocks->bsp};
        for (int k = 0; k < 2; k++) {
            ptm_free(cs[k]->start);
            ptm_free(cs[k]->end);
            ptm_free(cs[k]->behind);
            ptm_free(cs[k]->all_done);
        }
        ptm_free(t->clocks->dur);
        ptm_free(t->clocks->consistency);
        ptm_free(t->clocks->slow);
        ptm_free(t->clocks);
    }
    ptm_free(t);
}

/* Make room for n elements of size in *p (capacity *cap). */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    if (c > SIZE_MAX / size)
        return PTM_ENOMEM;
    void *q = ptm_realloc(*p, c * size);
    if (!q)
        return PTM_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

int ptm_trace_round(struct ptm_trace *t, const struct ptm_trace_round *r)
{
    size_t P = (size_t)t->workers;
    PTM_ASSERT(t->nrounds == 0 || t->filled == t->workers);
    size_t cap = t->caprounds;
    if (grow((void **)&t->rounds, &t->caprounds, t->nrounds + 1, sizeof(*t->rounds)) != 0)
        return PTM_ENOMEM;
    if (t->caprounds != cap) {
        /* start and load follow the rounds' capacity */
        size_t *s = ptm_realloc(t->start, (t->caprounds * P + 1) * sizeof(size_t));
        if (s)
            t->start = s;
        double *l = s ? ptm_realloc(t->load, t->caprounds * P * sizeof(double)) : NULL;
        if (!s || !l) {
            t->caprounds = cap;
            return PTM_ENOMEM;
        }
        t->load = l;
    }
    t->rounds[t->nrounds] = *r;
    for (size_t p = 1; p <= P; p++)
        t->start[t->nrounds * P + p] = t->nentries;
    for (size_t p = 0; p < P; p++)
        t->load[t->nrounds * P + p] = 0;
    t->nrounds++;
    t->filled = 0;
    return 0;
}

int ptm_trace_worker(struct ptm_trace *t, const int64_t *blocks, size_t n, double load)
{
    size_t P = (size_t)t->workers;
    PTM_ASSERT(t->nrounds > 0 && t->filled < t->workers);
    size_t r = t->nrounds - 1, p = (size_t)t->filled;
    if (n > PTM_TRACE_MAX_ENTRIES - t->nentries)
        return PTM_ETOOBIG;
    if (grow((void **)&t->blocks, &t->capentries, t->nentries + n, sizeof(int64_t)) != 0)
        return PTM_ENOMEM;
    if (n)
        memcpy(t->blocks + t->nentries, blocks, n * sizeof(int64_t));
    t->nentries += n;
    for (size_t q = p + 1; q <= P; q++)
        t->start[r * P + q] = t->nentries;
    t->load[r * P + p] = load;
    t->filled++;
    return 0;
}

const int64_t *ptm_trace_blocks(const struct ptm_trace *t, size_t r, int p, size_t *n)
{
    static const int64_t none[1];
    size_t i = r * (size_t)t->workers + (size_t)p;
    *n = t->start[i + 1] - t->start[i];
    /* a trace of empty rounds holds no blocks at all: no array to point into */
    return t->blocks ? t->blocks + t->start[i] : none;
}

/* ---- the dry run ------------------------------------------------------------- */

struct dry {
    const struct ptm_plan *plan;
    struct ptm_run *run; /* the engine's tables: data, parameters, blocks */
    struct sched_env env;
    bool has_env;
    struct sched_edges graph; /* the depend predicate's, as a run builds it */
    bool has_graph;
    const struct ptm_sched_ops *ops;
    void *state;
    const struct rt_rule *rule; /* when it runs some rounds alone (alone_dry) */
    int64_t nalone;             /* rounds dealt to the first worker alone */
    struct ptm_sched_round sr;
    struct rt_round rd; /* the round's variables */
    double *bchange;    /* cap: each block's change this round */
    int64_t *count;     /* nblocks: updates so far */
    double *scale;      /* nblocks: s_b */
    double *cost;       /* nblocks; the trace's (borrows) */
    /* `keep moved` (cap each; NULL without): the round in the policy's
     * order, every block moved, then whether its change is dropped; the
     * places kept; the same by dealt place */
    int64_t *pb;
    unsigned char *flag, *drop;
    size_t *keep;
};

/* An expression of the block set for block b (0-based), and j (0-based)
 * when the expression has two variables. */
static double eval_block(struct dry *d, const struct prog *p, int64_t b, int64_t j)
{
    double vars[PROG_MAX_VARS] = {(double)(b + 1), (double)(j + 1)};
    struct prog_env env = d->env.env;
    env.vars = vars;
    return prog_eval(p, &env);
}

static int block_costs(struct dry *d, char *err, size_t errlen)
{
    const struct plan_blockset *bs = d->run->bs;
    for (int64_t b = 0; b < d->run->nblocks; b++) {
        double c = bs->has_cost ? eval_block(d, &bs->cost, b, 0) : 1;
        if (!(c >= 0) || !isfinite(c)) {
            snprintf(err, errlen,
                     "the cost of block %lld of '%s' is %g: a cost must be a finite "
                     "number of at least 0",
                     (long long)b + 1, bs->name, c);
            return PTM_EINVAL;
        }
        d->cost[b] = c;
    }
    return 0;
}

/* The Euclidean norm of block b's last changes. */
static double block_change(struct dry *d, int64_t b)
{
    int64_t one = b;
    struct rt_round rd = d->rd;
    rd.blocks = &one;
    rd.n = 1;
    rt_expand_round(d->run, &rd);
    double s = 0;
    for (size_t v = 0; v < rd.nvars; v++) {
        double x = d->run->last_delta[rd.vars[v]];
        s += x * x;
    }
    return sqrt(s);
}

/* Append text to *note ("; " between notes). */
static int add_note(char **note, const char *text)
{
    size_t a = *note ? strlen(*note) : 0, b = strlen(text);
    char *s = ptm_realloc(*note, a + b + 3);
    if (!s)
        return PTM_ENOMEM;
    if (a) {
        memcpy(s + a, "; ", 2);
        a += 2;
    }
    memcpy(s + a, text, b + 1);
    *note = s;
    return 0;
}

/* Say so in t->note when the run has fewer workers than asked. */
static int note_workers(const struct ptm_run *run, int asked, struct ptm_trace *t)
{
    if (run->P >= asked)
        return 0;
    char note[160];
    snprintf(note, sizeof(note), "%d worker%s, not %d: %s", run->P, run->P == 1 ? "" : "s", asked,
             run->rowdata < 0 ? "no data is sharded by rows, so a run has one worker"
                              : "a run has at most one worker a row of the data");
    return add_note(&t->note, note);
}

/* The dependency graph of the first max_nodes blocks, by the rule the
 * dynamic policy's filter uses (schedulers/conflict.c). */
static int make_graph(struct dry *d, const struct ptm_dryrun_opts *o,
                      const struct ptm_sched_info *info, struct ptm_trace *t, char *err,
                      size_t errlen)
{
    const struct plan_blockset *bs = d->run->bs;
    struct ptm_depgraph *g = rt_zalloc(1, sizeof(*g));
    if (!g)
        return PTM_ENOMEM;
    t->graph = g;
    int64_t max = o->max_nodes < 1                     ? 1
                  : o->max_nodes > PTM_GRAPH_MAX_NODES ? PTM_GRAPH_MAX_NODES
                                                       : o->max_nodes;
    int64_t n = d->run->nblocks < max ? d->run->nblocks : max;
    g->nnodes = n;
    g->priority = rt_zalloc((size_t)n, sizeof(double));
    g->cost = rt_zalloc((size_t)n, sizeof(double));
    if (!g->priority || !g->cost)
        return PTM_ENOMEM;
    for (int64_t b = 0; b < n; b++) {
        g->cost[b] = d->cost[b];
        g->priority[b] =
            bs->has_priority ? eval_block(d, &bs->priority, b, 0) : block_change(d, b) + 1e-4;
    }
    char what[4200];
    if (bs->depend == PLAN_DEPEND_PRED)
        snprintf(what, sizeof(what), "depend %s(i), %s(j) when %s", bs->name, bs->name,
                 bs->pred.text ? bs->pred.text : "(a predicate)");
    else if (bs->depend == PLAN_DEPEND_FILE)
        snprintf(what, sizeof(what), "depend %s from \"%s\"", bs->name, bs->edges);
    else
        snprintf(what, sizeof(what), "no depend statement for '%s'", bs->name);
    if (!(g->depend = plan_strdup(what)))
        return PTM_ENOMEM;
    struct sched_conflicts *c;
    int rc = sched_conflicts_new(info, false, 1, &c, err, errlen);
    if (rc != 0)
        return rc;
    size_t cap = 0;
    for (int64_t i = 0; i < n && rc == 0 && !g->more_edges; i++)
        for (int64_t j = i + 1; j < n && rc == 0; j++) {
            if (!sched_conflicts_test(c, i, j))
                continue;
            if (g->nedges == o->max_edges) {
                g->more_edges = true;
                break;
            }
            if (grow((void **)&g->edges, &cap, 2 * g->nedges + 2, sizeof(int64_t)) != 0) {
                rc = PTM_ENOMEM;
                break;
            }
            g->edges[2 * g->nedges] = i;
            g->edges[2 * g->nedges + 1] = j;
            g->nedges++;
        }
    sched_conflicts_free(c);
    return rc;
}

/* Sweeps (spec/language.md 5.9), a fraction: B block updates make one,
 * or under rotation P rounds. */
static double sweeps(const struct dry *d, size_t rounds, int64_t updates)
{
    if (d->plan->schedule.policy == PLAN_POLICY_ROTATION && d->ops == &ptm_sched_rotation)
        return (double)rounds / d->run->P;
    return (double)updates / (double)d->run->nblocks;
}

/* One round: schedule, record, simulate the changes, tell the scheduler. */
static int dry_round(struct dry *d, struct ptm_trace *t, int64_t *updates, double *clock, char *err,
                     size_t errlen)
{
    struct ptm_run *run = d->run;
    int P = run->P;
    double *g = d->env.globals;
    g[PROG_G_ROUNDS] = (double)t->nrounds;
    g[PROG_G_SWEEPS] = floor(sweeps(d, t->nrounds, *updates)); /* whole sweeps */
    g[PROG_G_SECONDS] = *clock;
    int rc = d->ops->next(d->state, &d->sr, err, errlen);
    if (rc != 0)
        return rc;
    d->nalone += d->sr.alone;
    size_t n = d->sr.n, dropped = 0;
    if (d->pb && n > 0) {
        /* `keep moved`: every simulated block changes, so the filter
         * after the update keeps what the one before it would */
        for (size_t i = 0; i < n; i++)
            d->pb[d->sr.alone ? i : d->sr.order[i]] = d->sr.blocks[i];
        memset(d->flag, 1, n);
        int64_t evals = 0;
        size_t nk = d->ops->recheck(d->state, d->pb, d->flag, n, d->keep, &evals);
        memset(d->flag, 1, n);
        for (size_t i = 0; i < nk; i++)
            d->flag[d->keep[i]] = 0;
        for (size_t i = 0; i < n; i++)
            d->drop[i] = d->flag[d->sr.alone ? i : d->sr.order[i]];
        dropped = n - nk;
    }
    struct ptm_trace_round r = {
        .round = (int64_t)t->nrounds + 1,
        .seconds = NAN,
        .candidates = d->sr.candidates,
        .conflicts = d->sr.conflicts + (int64_t)dropped,
        .objective = NAN,
    };
    if ((rc = ptm_trace_round(t, &r)) != 0)
        return rc;
    double longest = 0;
    for (int p = 0; p < P; p++) {
        size_t a = d->sr.part[p], b = d->sr.part[p + 1];
        PTM_ASSERT(a <= b && b <= d->sr.n);
        double load = 0;
        for (size_t i = a; i < b; i++)
            load += d->cost[d->sr.blocks[i]];
        if ((rc = ptm_trace_worker(t, d->sr.blocks + a, b - a, load)) != 0)
            return rc;
        longest = load > longest ? load : longest;
    }
    *clock += longest;
    /* the simulated changes */
    d->rd.blocks = d->sr.blocks;
    d->rd.n = d->sr.n;
    rt_expand_round(run, &d->rd);
    double *val = run->params[run->sparam].val;
    size_t told = 0; /* the blocks done() hears, at the front of sr.blocks */
    for (size_t i = 0; i < d->rd.n; i++) {
        int64_t b = d->rd.blocks[i];
        if (dropped && d->drop[i])
            continue; /* its change is dropped */
        double change = d->scale[b] * pow(PTM_DRYRUN_DECAY, (double)d->count[b]++);
        for (int64_t v = d->rd.off[i]; v < d->rd.off[i + 1]; v++) {
            run->last_delta[d->rd.vars[v]] = change;
            val[d->rd.vars[v]] += change;
        }
        /* done() hears the Euclidean norm of the block's change */
        d->bchange[told] = change * sqrt((double)(d->rd.off[i + 1] - d->rd.off[i]));
        d->sr.blocks[told++] = b; /* read already (rd.blocks is sr.blocks) */
    }
    if (d->ops->done)
        d->ops->done(d->state, d->sr.blocks, d->bchange, told);
    *updates += (int64_t)d->rd.n;
    return 0;
}

static bool dry_alone(void *ud, const int64_t *blocks, size_t n)
{
    struct dry *d = ud;
    return d->rule->alone_dry(d->run, blocks, n);
}

static void dry_release(struct dry *d)
{
    if (d->state)
        d->ops->destroy(d->state);
    if (d->has_env)
        sched_env_release(&d->env);
    if (d->has_graph)
        sched_edges_release(&d->graph);
    ptm_free(d->sr.blocks);
    ptm_free(d->sr.part);
    ptm_free(d->sr.load);
    ptm_free(d->rd.off);
    ptm_free(d->rd.vars);
    ptm_free(d->bchange);
    ptm_free(d->pb);
    ptm_free(d->flag);
    ptm_free(d->drop);
    ptm_free(d->keep);
    ptm_free(d->sr.order);
    ptm_free(d->count);
    ptm_free(d->scale);
    ptm_run_free(d->run);
}

int ptm_dryrun(const struct ptm_plan *plan, const struct ptm_dryrun_opts *o,
               struct ptm_data_diags *dg, char *err, size_t errlen, struct ptm_trace **out)
{
    *out = NULL;
    err[0] = '\0';
    enum plan_policy pol = plan->schedule.policy;
    bool clocks = pol == PLAN_POLICY_DATA_PARALLEL;
    if (o->nstragglers > 0 && !clocks) {
        snprintf(err, errlen,
                 "--straggler: schedule %s runs rounds, not clocks: a dry run slows workers "
                 "only under schedule data_parallel",
                 plan_policy_name(pol));
        return PTM_EINVAL;
    }
    if (clocks && rt_dryrun_clocks_check(plan, o, err, errlen) != 0)
        return PTM_EINVAL;
    if (clocks && o->graph) {
        snprintf(err, errlen,
                 "--dot: schedule data_parallel has no blocks, so no dependency graph to draw");
        return PTM_EINVAL;
    }
    struct dry d = {.plan = plan};
    struct ptm_trace *t = NULL;
    int rc = PTM_ENOMEM;
    d.run = rt_zalloc(1, sizeof(*d.run));
    if (!d.run)
        goto fail;
    struct ptm_run *run = d.run;
    run->plan = plan;
    run->P = o->workers < 1 ? 1 : o->workers;
    run->opts.workers = run->P;
    run->opts.memory_limit = o->memory_limit;
    run->seed = o->has_seed ? o->seed : plan->seed;
    if ((rc = rt_setup_tables(run, dg, err, errlen)) != 0)
        goto fail;
    int P = run->P;
    int64_t B = run->nblocks;
    rc = PTM_ENOMEM;
    if (!(t = ptm_trace_new(P)))
        goto fail;
    t->dry = true;
    t->nblocks = B;
    t->seed = run->seed;
    if (clocks) {
        rc = PTM_ENOMEM;
        if ((plan->job && !(t->job = plan_strdup(plan->job))) ||
            !(t->policy = plan_strdup(plan_policy_name(pol))))
            goto fail;
        if (note_workers(run, o->workers, t) != 0)
            goto fail;
        if (rt_dryrun_is_tron(plan)) {
            if (add_note(&t->note,
                         "method = tron: a round is one Newton iteration, in whose passes (the "
                         "loss and gradient at a candidate, then a Hessian product for each "
                         "conjugate-gradient step, 2 to about 10) every worker sums over its "
                         "own rows and all meet before the next pass: no clocks, no stale "
                         "reads. A worker's load is its rows") != 0 ||
                (rc = rt_dryrun_newton(run, o, t)) != 0)
                goto fail;
        } else if ((rc = rt_dryrun_clocks(run, o, t, err, errlen)) != 0) {
            goto fail;
        }
        dry_release(&d);
        *out = t;
        return 0;
    }
    t->has_cost = run->bs->has_cost;
    d.ops = ptm_sched_find(pol);
    bool fallback = !d.ops;
    if (fallback) {
        d.ops = &ptm_sched_round_robin;
        char note[160];
        snprintf(note, sizeof(note),
                 "this version has no %s scheduler: it is drawn as round_robin, one block a "
                 "round, as ptm run runs it",
                 plan_policy_name(pol));
        if (add_note(&t->note, note) != 0)
            goto fail;
    }
    if (note_workers(run, o->workers, t) != 0)
        goto fail;
    if ((plan->job && !(t->job = plan_strdup(plan->job))) ||
        !(t->policy = plan_strdup(plan_policy_name(pol))) ||
        !(t->blockset = plan_strdup(run->bs->name)))
        goto fail;
    /* the expressions' environment: data, parameter values, simulated changes */
    if ((rc = sched_env_init(&d.env, plan, run->data)) != 0)
        goto fail;
    d.has_env = true;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct rt_param *tp = &run->params[p];
        sched_env_param(&d.env, (int32_t)p, tp->val,
                        (int32_t)p == run->sparam ? run->last_delta : NULL, tp->rows, tp->cols);
    }
    double *g = d.env.globals;
    for (int k = 0; k < PROG_NGLOBALS; k++)
        g[k] = 0;
    g[PROG_G_OBJECTIVE] = NAN;
    g[PROG_G_REL_CHANGE] = INFINITY;
    g[PROG_G_WORKERS] = P;
    rc = PTM_ENOMEM;
    d.cost = t->cost = rt_zalloc((size_t)B, sizeof(double));
    d.count = rt_zalloc((size_t)B, sizeof(int64_t));
    d.scale = rt_zalloc((size_t)B, sizeof(double));
    if (!d.cost || !d.count || !d.scale)
        goto fail;
    if ((rc = block_costs(&d, err, errlen)) != 0)
        goto fail;
    struct ptm_rng rng;
    ptm_rng_seed(&rng, run->seed ^ 0x64727972756e0000ull); /* "dryrun" stream */
    for (int64_t b = 0; b < B; b++)
        d.scale[b] = pow(10, -2 * ptm_rng_uniform(&rng)); /* log-uniform in (0.01, 1] */
    struct ptm_sched_info info = {
        .plan = plan,
        .bs = run->bs,
        .nblocks = B,
        .workers = P,
        .per_round = fallback ? 1 : plan->schedule.per_round,
        .seed = run->seed,
        .env = &d.env.env,
    };
    /* rounds the rule runs on the first worker alone are dealt to it, as
     * in ptm run (a variable a block, one rank: expand_late) */
    const struct ptm_model *model = NULL;
    const struct rt_rule *rule = plan->update.lua ? NULL : ptm_model_rule(plan->update.builtin, &model);
    struct sched_alone alone = {.ud = &d, .alone = dry_alone};
    if (rule && rule->alone_dry && run->bs->axis == PLAN_AXIS_ELEMS && !run->bs->into &&
        run->bsize == 1) {
        d.rule = rule;
        info.alone = &alone;
    }
    if (run->bs->depend == PLAN_DEPEND_PRED && !plan->schedule.keep_all &&
        plan->schedule.policy == PLAN_POLICY_DYNAMIC) {
        struct depgraph_info gi;
        char why[200];
        rc = depgraph_build(&run->bs->pred, &d.env.data, &d.env.env, B, &d.graph, &gi, why,
                            sizeof(why));
        if (rc < 0)
            goto fail;
        d.has_graph = rc == 0;
        info.graph = d.has_graph ? &d.graph : NULL;
    }
    /* an order of the common shape: from its pass, as ptm run computes it
     * (the environment has no column sums for it) */
    struct order_shape os;
    float *order = NULL;
    if (plan->schedule.policy == PLAN_POLICY_DYNAMIC && plan->schedule.active &&
        run->bs->has_order && sched_order_shape(plan, &run->bs->order, &os)) {
        order = rt_zalloc((size_t)B, sizeof(float));
        if (!order || (rc = rt_order_by_shape(&d.env.data, &os, B, 1, order)) != 0) {
            ptm_free(order);
            rc = PTM_ENOMEM;
            goto fail;
        }
        info.order = order;
    }
    rc = d.ops->create(&info, &d.state, err, errlen);
    ptm_free(order);
    if (rc != 0 && rt_expr_fault_in(run, &d.env, err, errlen) != 0)
        rc = PTM_EINVAL; /* an index out of range says more than the NaN it gave */
    if (rc != 0) {
        d.state = NULL;
        goto fail;
    }
    if ((rc = rt_expr_fault_in(run, &d.env, err, errlen)) != 0)
        goto fail;
    if (plan->schedule.policy == PLAN_POLICY_DYNAMIC && plan->schedule.active &&
        run->bs->has_order) {
        char note[400];
        int64_t n = plan->schedule.sample > 0 ? plan->schedule.sample : 256;
        snprintf(note, sizeof(note),
                 "order: the first pass takes the %lld blocks of largest '%s', from the "
                 "largest down; then passes over those of them that moved, then over every block",
                 (long long)(n < B ? n : B), run->bs->order.text ? run->bs->order.text : "order");
        rc = PTM_ENOMEM;
        if (add_note(&t->note, note) != 0)
            goto fail;
    }
    size_t cap = d.ops->cap(d.state);
    rc = PTM_ENOMEM;
    if (cap > PTM_TRACE_MAX_ENTRIES || (size_t)run->bvars > SIZE_MAX / 8 / (cap ? cap : 1))
        goto fail;
    d.sr.blocks = rt_zalloc(cap, sizeof(int64_t));
    d.sr.part = rt_zalloc((size_t)P + 1, sizeof(size_t));
    d.sr.load = rt_zalloc((size_t)P, sizeof(double));
    d.rd.off = rt_zalloc(cap + 1, sizeof(int64_t));
    d.rd.vars = rt_zalloc(cap * (size_t)run->bvars, sizeof(int64_t));
    d.bchange = rt_zalloc(cap, sizeof(double));
    if (!d.sr.blocks || !d.sr.part || !d.sr.load || !d.rd.off || !d.rd.vars || !d.bchange)
        goto fail;
    const struct plan_schedule *sc = &plan->schedule;
    if (sc->policy == PLAN_POLICY_DYNAMIC && sc->keep_moved &&
        run->bs->depend != PLAN_DEPEND_NONE && d.ops->recheck) {
        d.pb = rt_zalloc(cap, sizeof(int64_t));
        d.flag = rt_zalloc(cap, 1);
        d.drop = rt_zalloc(cap, 1);
        d.keep = rt_zalloc(cap, sizeof(size_t));
        d.sr.order = rt_zalloc(cap, sizeof(size_t));
        if (!d.pb || !d.flag || !d.drop || !d.keep || !d.sr.order)
            goto fail;
    }
    int64_t updates = 0;
    double clock = 0;
    rc = 0;
    for (int64_t k = 0; k < o->rounds && rc == 0; k++)
        rc = dry_round(&d, t, &updates, &clock, err, errlen);
    t->sweeps = sweeps(&d, t->nrounds, updates);
    if (rc == 0 && d.nalone > 0) {
        char note[240];
        snprintf(note, sizeof(note),
                 "%lld of the %lld rounds run on worker 1 alone, as ptm run runs them: update "
                 "%s does rounds this small on one worker (see its option split_min)",
                 (long long)d.nalone, (long long)t->nrounds, plan->update.builtin);
        if (add_note(&t->note, note) != 0)
            rc = PTM_ENOMEM;
    }
    if (rc == 0 && d.pb &&
        add_note(&t->note, "keep moved: every simulated block changes, so each round's "
                           "conflicts are the blocks whose changes ptm run would drop after "
                           "the update when all of them move; they are updated again in a "
                           "later round") != 0)
        rc = PTM_ENOMEM;
    if (rc == 0 && o->graph)
        rc = make_graph(&d, o, &info, t, err, errlen);
    if (rc != 0)
        goto fail;
    dry_release(&d);
    *out = t;
    return 0;
fail:
    if ((rc == PTM_EDATA || rc == PTM_ENOENT || rc == PTM_EIO) && err[0]) {
        rt_diags_from_text(dg, err); /* a file the policy reads, as a run reports it */
        err[0] = '\0';
    }
    if (rc == PTM_ETOOBIG && t && t->nrounds > 0) {
        /* the record is full: not the data's fault */
        snprintf(err, errlen,
                 "the schedule would hold more than %zu block updates: ask for "
                 "fewer rounds",
                 PTM_TRACE_MAX_ENTRIES);
        rc = PTM_EINVAL;
    }
    if (rc == PTM_ENOMEM && !err[0])
        snprintf(err, errlen, "%s", ptm_strerror(rc));
    dry_release(&d);
    ptm_trace_free(t);
    return rc;
}
