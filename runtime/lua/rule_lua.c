/*
 * rule_lua.c - an update rule and an objective written as Lua hooks
 * (update lua "FILE", objective lua "FILE" "FN"), behind the engine's
 * interfaces, over the worker hosts of lua_host.h: one rule per kind of
 * round (model-parallel push, pull and apply; rotation; data-parallel
 * clocks over the parameter store).
 *
 * Every worker has its own host (a sandboxed lua_State) with the hook
 * file loaded (and its init run: run_init) and these objects registered under their names in the job:
 * each data source (a sparse matrix: the worker's rows of it when it is
 * the data sharded by rows, else all of it, with every column's count of
 * entries over the whole matrix; labels(X): the matching labels,
 * read-only), each parameter (one copy: the committed values, read-only,
 * since a model-parallel round changes them only through pull; sharded:
 * the worker's rows, writable; a matrix is one vector of its elements,
 * row by row, whose rows W:row(i) gives) and the job's consts. pull runs
 * on the coordinator in worker 1's host, which is idle then. An objective
 * in the update's file runs in the same state; one in another file gets
 * states of its own, so that neither file's globals replace the other's.
 *
 * ROTATION. The hooks also know the blocks (w:block(b), X:row(i, b)).
 * For its push the worker's view of the scheduled parameter is limited to
 * the rows of the block it holds, writable: the rows no other worker
 * touches in the round, so that a hook cannot race with another worker's.
 * Between pushes the parameter is whole again, read-only, for the
 * objective.
 *
 * DATA_PARALLEL. Every parameter with one copy is a dense table of the
 * parameter store (pstore.h) with the parameter's consistency, one row of
 * all its elements. A clock of worker p: copy each table's row as the
 * store lets p see it into p's own buffer, which the hook sees as the
 * parameter, writable; push(w, first, last) over p's next minibatch of
 * rows (a pass over the shard restarts at its first row, so the last
 * minibatch of a pass may be shorter); then every element the hook
 * changed becomes an increment of (new - old) to the store, and
 * pstore_clock(). A clock costs two passes over the tables besides the
 * hook, in return for plain vectors in the hook. Between phases the
 * store's master copy becomes the parameter tables, and the hook's view is
 * the table again, read-only, for the objective.
 *
 * CHECKPOINTS (rt_rule.state, rt_objective.state). What a rule keeps is
 * every worker's host: w.round and w.sweep, both generators, and what the
 * file's save hook returns, handed to its load hook on resume; under
 * data_parallel also the row each worker's next minibatch starts at, the
 * parameter store, and across ranks the tables as the last exchange left
 * them. The engine keeps the parameter tables and the workers' rows, and
 * loads them before the rule, so load sees the parameters of the
 * checkpoint. Lua globals and upvalues are not kept unless save returns
 * them: a resumed run has what the file's top level and init (which
 * runs at set-up, as in any run) made of them, and what a hook builds
 * again from the data at its first call (a cache) is built alike.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ckpt.h"
#include "comm.h"
#include "engine_impl.h"
#include "lua_host.h"
#include "pstore.h"
#include "ptm.h"

/* What the Lua rule (run->rule_state) or a Lua objective in a file of its
 * own (run->obj_state) keeps for its hosts. */
struct lua_state {
    double **colnnz; /* per data source: each column's entries, or NULL */
    /* rotation */
    int64_t *blk_lo; /* nblk + 1: block b is units blk_lo[b] .. blk_lo[b+1]-1 */
    int64_t nblk;
    /* data_parallel */
    struct pstore *ps;
    int *table;          /* per parameter: its table in ps, or -1 (sharded) */
    double **buf;        /* per worker and parameter (P * nparams): the worker's copy, or NULL */
    const double **view; /* the same: the row the store showed in this clock, or NULL */
    int64_t *next;       /* per worker: the shard row its next minibatch starts at */
    int64_t minibatch;
    double **base;       /* across ranks, per parameter: its table after the last exchange */
};

/* Read path (relative to the plan's directory) whole. */
static int read_text(const struct ptm_run *run, const char *file, char *path, size_t pathlen,
                     char **text, size_t *len, char *err, size_t errlen)
{
    const char *base = run->plan->base_dir ? run->plan->base_dir : ".";
    bool rel = file[0] != '/' && strcmp(base, ".") != 0;
    snprintf(path, pathlen, rel ? "%s/%s" : "%.0s%s", base, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read Lua file '%s'", path);
        return PTM_EIO;
    }
    size_t cap = 4096, n = 0;
    char *buf = ptm_malloc(cap);
    int rc = buf ? 0 : PTM_ENOMEM;
    while (rc == 0) {
        if (n == cap) {
            char *b = cap > SIZE_MAX / 2 ? NULL : ptm_realloc(buf, cap * 2);
            if (!b) {
                rc = PTM_ENOMEM;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "cannot read Lua file '%s'", path);
                rc = PTM_EIO;
            }
            break;
        }
    }
    fclose(f);
    if (rc != 0) {
        ptm_free(buf);
        return rc;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* Every sparse matrix's count of entries per column over all its rows
 * (every rank's, for the data sharded by rows). */
static int count_columns(struct ptm_run *run, struct lua_state *st)
{
    const struct ptm_plan *plan = run->plan;
    st->colnnz = rt_zalloc(plan->ndata, sizeof(*st->colnnz));
    if (!st->colnnz)
        return PTM_ENOMEM;
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct ptm_dataset *ds = run->data[k];
        if (plan->data[k].labels_of >= 0 || !ds || !ds->sparse)
            continue;
        const struct ptm_csr *r = &ds->csr;
        double *c = rt_zalloc((size_t)r->ncols, sizeof(double));
        if (!c)
            return PTM_ENOMEM;
        st->colnnz[k] = c;
        for (int64_t e = r->rowptr[0]; e < r->rowptr[r->nrows]; e++)
            c[r->colind[e]] += 1;
        if (run->nranks > 1 && (int32_t)k == run->rowdata) {
            ptm_comm_sum_to_root(c, (size_t)r->ncols);
            ptm_comm_bcast(c, (size_t)r->ncols * sizeof(double));
        }
    }
    return 0;
}

static void state_free(struct ptm_run *run, struct lua_state *st)
{
    if (!st)
        return;
    if (st->colnnz)
        for (uint32_t k = 0; k < run->plan->ndata; k++)
            ptm_free(st->colnnz[k]);
    ptm_free(st->colnnz);
    ptm_free(st->blk_lo);
    pstore_free(st->ps);
    ptm_free(st->table);
    if (st->buf)
        for (size_t i = 0; i < (size_t)run->P * run->plan->nparams; i++)
            ptm_free(st->buf[i]);
    ptm_free(st->buf);
    ptm_free(st->view);
    ptm_free(st->next);
    if (st->base)
        for (uint32_t q = 0; q < run->plan->nparams; q++)
            ptm_free(st->base[q]);
    ptm_free(st->base);
    ptm_free(st);
}

/* Register the job's objects in host h of worker w. */
static int register_objects(struct rt_worker *w, struct lhost *h, const struct lua_state *st,
                            char *err, size_t errlen)
{
    struct ptm_run *run = w->run;
    const struct ptm_plan *plan = run->plan;
    int rc = 0;
    for (uint32_t k = 0; k < plan->ndata && rc == 0; k++) {
        const struct plan_data *dd = &plan->data[k];
        const struct rt_shard *s = &w->shard[k];
        if (dd->labels_of >= 0) {
            if (s->labels)
                rc = lhost_set_vector(h, dd->name, s->labels, s->nlabels, false);
        } else if (s->matrix) {
            const struct ptm_dataset *ds = run->data[k];
            /* X:size() is the whole matrix's, across ranks too */
            int64_t rows = (int32_t)k == run->rowdata ? run->grows : ds->csr.nrows;
            struct lhost_matrix m = {.csc = s->csc.colptr ? &s->csc : NULL,
                                     .csr = &s->csr,
                                     .rows = rows,
                                     .cols = ds->csr.ncols,
                                     .colnnz = st->colnnz[k]};
            rc = lhost_set_matrix(h, dd->name, &m);
        } else {
            snprintf(err, errlen, "data '%s': dense data is not supported in Lua hooks yet",
                     dd->name);
            return PTM_EINVAL;
        }
    }
    for (uint32_t p = 0; p < plan->nparams && rc == 0; p++) {
        const struct rt_param *t = &run->params[p];
        if (t->val)
            rc = lhost_set_table(h, t->pp->name, t->val, t->rows, t->cols, false);
        else
            rc = lhost_set_table(h, t->pp->name, w->local[p], w->hi - w->lo, t->cols, true);
    }
    for (uint32_t c = 0; c < plan->nconsts && rc == 0; c++) {
        const struct plan_const *pc = &plan->consts[c];
        rc = pc->is_str ? lhost_set_const_str(h, pc->name, pc->str)
                        : lhost_set_const_num(h, pc->name, pc->num);
    }
    if (rc == 0 && st->nblk)
        lhost_set_blocks(h, st->blk_lo, st->nblk);
    if (rc == PTM_EINVAL)
        snprintf(err, errlen, "%s", lhost_error(h));
    return rc;
}

/* A host per worker (w->lua, or w->lua_obj for an objective of its own),
 * with file loaded. */
static int load_everywhere(struct ptm_run *run, bool objective, const char *file,
                           const struct lua_state *st, char *err, size_t errlen)
{
    char path[4096];
    char *text;
    size_t len;
    int rc = read_text(run, file, path, sizeof(path), &text, &len, err, errlen);
    if (rc != 0)
        return rc;
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *w = &run->w[p];
        struct lhost **h = objective ? &w->lua_obj : &w->lua;
        struct lhost_config cfg = {
            /* numbered across ranks: w.id 1 is one worker of the whole run */
            .id = run->nranks > 1 ? run->rank * run->opts.workers + p : p,
            .workers = run->nranks > 1 ? run->nranks * run->opts.workers : run->P,
            .first = run->row0 + w->lo,
            .last = run->row0 + w->hi - 1,
            .seed = run->seed,
            .mem = run->opts.lua_mem,
            .budget = run->opts.lua_budget,
            .seconds = run->opts.lua_seconds,
        };
        if ((rc = lhost_new(h, &cfg)) != 0 || (rc = register_objects(w, *h, st, err, errlen)) != 0)
            break;
        rc = lhost_load(*h, path, text, len);
        if (rc != 0)
            snprintf(err, errlen, "%s", lhost_error(*h));
    }
    ptm_free(text);
    return rc;
}

static void free_hosts(struct ptm_run *run, bool objective)
{
    for (int p = 0; p < run->P; p++) {
        struct lhost **h = objective ? &run->w[p].lua_obj : &run->w[p].lua;
        lhost_free(*h);
        *h = NULL;
    }
}

/* ---- init ------------------------------------------------------------------------ */

/* A failed init's message, as a round's failure reads (rounds.c). */
static int init_failed(struct ptm_run *run, int p, struct lhost *h, int rc, char *err,
                       size_t errlen)
{
    const char *at = run->opts.update_at;
    snprintf(err, errlen, "worker %d: %s%s%s%s", p + 1, lhost_error(h), at ? "\n" : "",
             at ? at : "", at ? ": note: the update rule is declared here" : "");
    return rc;
}

/* init(w, job) on every worker, one after another, before the first round.
 * A worker writes its rows of `shard like` parameters in place, and a copy
 * of every other parameter (its initial values, writable); then each such
 * parameter becomes its initial values plus the sum of every worker's
 * changes to its copy, in worker order (then summed over the ranks): one
 * worker may set a row, or several may each set their share. So the
 * result depends on the seed and the workers, not on threads' timing. */
static int run_init(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    const char *fn = plan->update.init;
    int64_t most = 0;
    for (uint32_t q = 0; q < plan->nparams; q++)
        if (run->params[q].val && run->params[q].len > most)
            most = run->params[q].len;
    double *init0 = NULL, *mine = NULL;
    double **sums = rt_zalloc(plan->nparams, sizeof(double *));
    int rc = PTM_ENOMEM;
    if (!sums || !(init0 = rt_zalloc((size_t)most * plan->nparams + 1, sizeof(double))) ||
        !(mine = rt_zalloc((size_t)most * plan->nparams + 1, sizeof(double))))
        goto out;
    for (uint32_t q = 0; q < plan->nparams; q++) {
        const struct rt_param *t = &run->params[q];
        if (!t->val)
            continue;
        if (!(sums[q] = rt_zalloc((size_t)t->len + 1, sizeof(double))))
            goto out;
        memcpy(init0 + q * most, t->val, (size_t)t->len * sizeof(double));
    }
    rc = 0;
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct lhost *h = run->w[p].lua;
        for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
            const struct rt_param *t = &run->params[q];
            if (!t->val)
                continue;
            memcpy(mine + q * most, init0 + q * most, (size_t)t->len * sizeof(double));
            rc = lhost_set_table(h, t->pp->name, mine + q * most, t->rows, t->cols, true);
        }
        if (rc == 0 && (rc = lhost_init(h, fn)) != 0) {
            init_failed(run, p, h, rc, err, errlen);
            break;
        }
        for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
            const struct rt_param *t = &run->params[q];
            if (!t->val)
                continue;
            const double *a = mine + q * most, *a0 = init0 + q * most;
            for (int64_t k = 0; k < t->len; k++) {
                if (!isfinite(a[k])) {
                    snprintf(err, errlen, "worker %d: hook '%s' set element %lld of '%s' to %s",
                             p + 1, fn, (long long)k + 1, t->pp->name,
                             isnan(a[k]) ? "nan" : a[k] > 0 ? "inf" : "-inf");
                    rc = PTM_EINVAL;
                    break;
                }
                sums[q][k] += a[k] - a0[k];
            }
            /* read-only again, as the rounds show it */
            int rc2 = lhost_set_table(h, t->pp->name, t->val, t->rows, t->cols, false);
            rc = rc ? rc : rc2;
        }
        for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
            const struct rt_param *t = &run->params[q];
            if (t->shard_like < 0 || t->val)
                continue;
            const double *a = run->w[p].local[q];
            for (int64_t k = 0; k < (run->w[p].hi - run->w[p].lo) * t->cols; k++)
                if (!isfinite(a[k])) {
                    snprintf(err, errlen,
                             "worker %d: hook '%s' set element %lld of its rows of '%s' to %s",
                             p + 1, fn, (long long)k + 1, t->pp->name,
                             isnan(a[k]) ? "nan" : a[k] > 0 ? "inf" : "-inf");
                    rc = PTM_EINVAL;
                    break;
                }
        }
    }
    for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
        const struct rt_param *t = &run->params[q];
        if (!t->val)
            continue;
        if (run->nranks > 1)
            ptm_comm_sum_all(sums[q], (size_t)t->len);
        for (int64_t k = 0; k < t->len; k++)
            t->val[k] = init0[q * most + k] + sums[q][k];
    }
out:
    if (sums)
        for (uint32_t q = 0; q < plan->nparams; q++)
            ptm_free(sums[q]);
    ptm_free(sums);
    ptm_free(init0);
    ptm_free(mine);
    return rc;
}

/* ---- the update: set-up common to all kinds ----------------------------------------- */

/* The save and load hooks hk names (both or none) are functions of host
 * h of their shapes: a plan may come from a file that changed since. */
static int check_state_fns(struct lhost *h, const struct plan_hook *hk, char *err, size_t errlen)
{
    static const char *const shapes[2] = {"save(w, job)", "load(w, t, job)"};
    static const int most[2] = {2, 3};
    if (!hk->save || !hk->load)
        return 0;
    const char *fns[2] = {hk->save, hk->load};
    for (int i = 0; i < 2; i++) {
        bool vararg;
        int np = lhost_params(h, fns[i], &vararg);
        if (np < 0) {
            snprintf(err, errlen, "\"%s\" defines no function '%s'", hk->file, fns[i]);
            return PTM_EINVAL;
        }
        if (np > most[i] && !vararg) {
            snprintf(err, errlen, "\"%s\" defines '%s' with %d parameters; the %s hook is %s",
                     hk->file, fns[i], np, i ? "load" : "save", shapes[i]);
            return PTM_EINVAL;
        }
    }
    return 0;
}

/* The rule's state and every worker's host with the update's file; then
 * what each kind checks. */
static int rule_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *u = &run->plan->update;
    struct lua_state *st = rt_zalloc(1, sizeof(*st));
    if (!st)
        return PTM_ENOMEM;
    run->rule_state = st;
    int rc = count_columns(run, st);
    if (rc == 0 && run->rule->kind == RT_ROTATION) {
        /* rows (or a vector's elements): the units of a block are rows of
         * the parameter, which lhost_limit_rows() can hand out */
        const struct rt_param *t = &run->params[run->sparam];
        if (run->bs->axis == PLAN_AXIS_COLS || (run->bs->axis == PLAN_AXIS_ELEMS && t->cols > 1)) {
            snprintf(err, errlen,
                     "a Lua update under rotation needs blocks of rows of '%s' ('blocks %s = %s "
                     "rows into workers')",
                     t->pp->name, run->bs->name, t->pp->name);
            return PTM_EINVAL;
        }
        if (run->nblocks > 65534) {
            snprintf(err, errlen, "a Lua update under rotation takes at most 65534 blocks");
            return PTM_EINVAL;
        }
        st->nblk = run->nblocks;
        st->blk_lo = rt_zalloc((size_t)st->nblk + 1, sizeof(int64_t));
        if (!st->blk_lo)
            return PTM_ENOMEM;
        for (int64_t b = 0; b < st->nblk; b++)
            rt_block_units(run, b, &st->blk_lo[b], &st->blk_lo[b + 1]);
    }
    if (rc == 0)
        rc = load_everywhere(run, false, u->file, st, err, errlen);
    if (rc == 0 && (!u->push || !lhost_has(run->w[0].lua, u->push))) {
        snprintf(err, errlen, "\"%s\" defines no function '%s'", u->file,
                 u->push ? u->push : "push");
        rc = PTM_EINVAL;
    }
    if (rc == 0)
        rc = check_state_fns(run->w[0].lua, u, err, errlen);
    if (rc == 0 && u->init) {
        bool vararg;
        int np = lhost_params(run->w[0].lua, u->init, &vararg);
        if (np < 0) {
            snprintf(err, errlen, "\"%s\" defines no function '%s'", u->file, u->init);
            rc = PTM_EINVAL;
        } else if (np > 2 && !vararg) {
            snprintf(err, errlen,
                     "\"%s\" defines '%s' with %d parameters; the init hook is init(w, job)",
                     u->file, u->init, np);
            rc = PTM_EINVAL;
        } else {
            rc = run_init(run, err, errlen);
        }
    }
    return rc;
}

static void rule_release(struct ptm_run *run)
{
    free_hosts(run, false);
    state_free(run, run->rule_state);
    run->rule_state = NULL;
}

static size_t lua_zcap(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nvars;
    return RT_KMAX * nblocks;
}

/* A failed call's message, from the host. */
static int hook_failed(struct rt_worker *w, struct lhost *h, int rc)
{
    rt_fail(w, rc, "%s", lhost_error(h));
    return rc;
}

/* ---- checkpoints ------------------------------------------------------------------ */

/* A save or load hook of worker p that failed (or a saved state that is
 * corrupt) as the checkpoint's failure, read as a round's: the worker,
 * as much of the host's message as the checkpoint's holds, and where the
 * job declares the hook. */
static void state_failed(const struct ptm_run *run, int p, const struct lhost *h, int rc,
                         bool objective, struct ptm_ckpt *ck)
{
    const char *at = objective ? run->opts.objective_at : run->opts.update_at;
    char note[256] = "";
    if (at)
        snprintf(note, sizeof(note), "\n%s: note: the %s is declared here", at,
                 objective ? "objective" : "update rule");
    int room = (int)(sizeof(ck->msg) - strlen(note)) - 24;
    ptm_ck_fail(ck, rc, "worker %d: %.*s%s", p + 1, room > 0 ? room : 0, lhost_error(h), note);
}

/* Host h of worker p: w.round and w.sweep; the hook file's own state, the
 * value of its save hook handed to its load hook (hk names both, or
 * neither); then both generators, restored last, so that nothing the
 * hooks draw counts. Lua globals that no save hook returns are not kept:
 * a resumed run has what the file's top level and init made of them
 * (spec/runtime.md, Lua hooks). */
static void host_state(const struct ptm_run *run, int p, struct lhost *h,
                       const struct plan_hook *hk, bool objective, struct ptm_ckpt *ck)
{
    bool hooks = hk->save && hk->load;
    ptm_ck_tag(ck, hooks ? "lua host, save and load" : "lua host");
    int64_t counters[2] = {lhost_round(h), lhost_sweep(h)};
    PTM_CK_ARRAY(ck, counters, 2);
    if (ck->load && !ck->err) {
        if (counters[0] < 0 || counters[1] < 0)
            ptm_ck_fail(ck, PTM_EDATA, "the checkpoint's round or sweep of worker %d is negative",
                        p + 1);
        lhost_set_round(h, counters[0]);
        lhost_set_sweep(h, counters[1]);
    }
    if (hooks && !ck->err) {
        char *buf = NULL;
        size_t n = 0;
        int rc;
        if (!ck->load && (rc = lhost_state_save(h, hk->save, &buf, &n)) != 0) {
            state_failed(run, p, h, rc, objective, ck);
            return;
        }
        ptm_ck_count(ck, &n, lhost_state_cap(h), "bytes of a worker's Lua state");
        if (ck->load && !ck->err && !(buf = ptm_malloc(n ? n : 1)))
            ptm_ck_fail(ck, PTM_ENOMEM, "out of memory for a worker's Lua state");
        ptm_ck_bytes(ck, buf, n);
        if (ck->load && !ck->err && (rc = lhost_state_load(h, hk->load, buf, n)) != 0)
            state_failed(run, p, h, rc, objective, ck);
        ptm_free(buf);
    }
    uint64_t rng[LHOST_RNG_WORDS];
    lhost_rng_get(h, rng);
    PTM_CK_ARRAY(ck, rng, LHOST_RNG_WORDS);
    if (ck->load && !ck->err)
        lhost_rng_set(h, rng);
}

/* Every worker's host of the update (or of an objective in a file of its
 * own). */
static void hosts_state(struct ptm_run *run, struct ptm_ckpt *ck, bool objective)
{
    const struct plan_hook *hk = objective ? &run->plan->objective : &run->plan->update;
    ptm_ck_size(ck, run->P, "workers of this rank");
    for (int p = 0; p < run->P && !ck->err; p++)
        host_state(run, p, objective ? run->w[p].lua_obj : run->w[p].lua, hk, objective, ck);
}

/* ---- model-parallel: push, pull, apply --------------------------------------------- */

static int lua_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *u = &run->plan->update;
    int rc = rule_setup(run, err, errlen);
    if (rc == 0 && (!u->pull || !lhost_has(run->w[0].lua, u->pull))) {
        snprintf(err, errlen,
                 "the %s policy needs a pull function to combine the workers' results: "
                 "define 'pull' in \"%s\"",
                 plan_policy_name(run->plan->schedule.policy), u->file);
        rc = PTM_EINVAL;
    }
    if (rc == 0 && u->apply && !lhost_has(run->w[0].lua, u->apply)) {
        snprintf(err, errlen, "\"%s\" defines no function '%s'", u->file, u->apply);
        rc = PTM_EINVAL;
    }
    return rc;
}

static int lua_push(struct rt_worker *w, const struct rt_round *rd)
{
    const struct plan_hook *u = &w->run->plan->update;
    lhost_set_round(w->lua, w->run->round + 1);
    lhost_set_sweep(w->lua, w->run->updates / w->run->nblocks);
    int k = 0;
    int rc = lhost_push(w->lua, u->push, rd->blocks, rd->n, RT_KMAX, &k, w->z);
    if (rc != 0)
        return hook_failed(w, w->lua, rc);
    w->k = k;
    w->zlen = (size_t)k * rd->n;
    return 0;
}

static int lua_pull(struct ptm_run *run, const struct rt_round *rd, const double *z, size_t zlen,
                    double *out)
{
    struct rt_worker *w0 = &run->w[0];
    int k = rd->n ? (int)(zlen / rd->n) : 1;
    int rc = lhost_pull(w0->lua, run->plan->update.pull, rd->blocks, rd->n, z, k < 1 ? 1 : k,
                        rd->off, out);
    return rc != 0 ? hook_failed(w0, w0->lua, rc) : 0;
}

static int lua_apply(struct rt_worker *w, const struct rt_round *rd)
{
    const struct plan_hook *u = &w->run->plan->update;
    if (!u->apply)
        return 0;
    int rc = lhost_apply(w->lua, u->apply, rd->blocks, rd->n, rd->off, rd->change);
    return rc != 0 ? hook_failed(w, w->lua, rc) : 0;
}

/* The hosts; z and k are a round's only (pull runs in worker 1's host). */
static void lua_ck(struct ptm_run *run, struct ptm_ckpt *ck)
{
    ptm_ck_tag(ck, "rule lua");
    hosts_state(run, ck, false);
}

static const struct rt_rule rule_lua = {
    .name = "lua",
    .kind = RT_MODEL,
    .setup = lua_setup,
    .release = rule_release,
    .zcap = lua_zcap,
    .push = lua_push,
    .pull = lua_pull,
    .apply = lua_apply,
    .state = lua_ck,
};

/* ---- rotation ---------------------------------------------------------------------- */

static size_t no_z(const struct ptm_run *run, size_t nblocks, size_t nvars)
{
    (void)run;
    (void)nblocks;
    (void)nvars;
    return 0;
}

/* push(w, block) for each block the worker holds in the round (one, for
 * a rotation of one block per worker), with the scheduled parameter
 * limited to its rows. */
static int rot_push(struct rt_worker *w, const struct rt_round *rd)
{
    struct ptm_run *run = w->run;
    const struct lua_state *st = run->rule_state;
    const struct rt_param *t = &run->params[run->sparam];
    const char *name = t->pp->name;
    lhost_set_round(w->lua, run->round + 1);
    lhost_set_sweep(w->lua, run->round / run->G);
    int rc = 0;
    for (size_t i = rd->part[w->gid]; i < rd->part[w->gid + 1] && rc == 0; i++) {
        int64_t b = rd->blocks[i];
        if ((rc = lhost_limit_rows(w->lua, name, st->blk_lo[b], st->blk_lo[b + 1], true)) == 0)
            rc = lhost_push_block(w->lua, run->plan->update.push, b);
    }
    if (rc != 0)
        hook_failed(w, w->lua, rc);
    /* whole again, and read-only: the objective reads it */
    int rc2 = lhost_set_table(w->lua, name, t->val, t->rows, t->cols, false);
    return rc != 0 ? rc : rc2;
}

/* Across ranks: block b's rows of the rotated parameter travel with it
 * (the hook's own Lua values stay with its worker). */
static int rot_spans(struct ptm_run *run, int64_t b, struct rt_span *out)
{
    const struct lua_state *st = run->rule_state;
    const struct rt_param *t = &run->params[run->sparam];
    out[0] = (struct rt_span){t->val + st->blk_lo[b] * t->cols,
                              (size_t)((st->blk_lo[b + 1] - st->blk_lo[b]) * t->cols) *
                                  sizeof(double)};
    return 1;
}

/* The hosts; a push limits the rotated parameter afresh. */
static void rot_ck(struct ptm_run *run, struct ptm_ckpt *ck)
{
    ptm_ck_tag(ck, "rule lua rotation");
    hosts_state(run, ck, false);
}

static const struct rt_rule rule_lua_rotation = {
    .name = "lua",
    .kind = RT_ROTATION,
    .setup = rule_setup,
    .release = rule_release,
    .zcap = no_z,
    .push = rot_push,
    .spans = rot_spans,
    .state = rot_ck,
};

/* ---- data_parallel: clocks over the parameter store --------------------------------- */

static int clk_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    int rc = rule_setup(run, err, errlen);
    if (rc != 0)
        return rc;
    struct lua_state *st = run->rule_state;
    st->minibatch = plan->schedule.minibatch > 0 ? plan->schedule.minibatch : 1000;
    st->table = rt_zalloc(plan->nparams, sizeof(int));
    st->buf = rt_zalloc((size_t)run->P * plan->nparams, sizeof(double *));
    st->view = rt_zalloc((size_t)run->P * plan->nparams, sizeof(double *));
    st->next = rt_zalloc((size_t)run->P, sizeof(int64_t));
    if (!st->table || !st->buf || !st->view || !st->next || (rc = pstore_new(&st->ps, run->P)) != 0)
        return rc ? rc : PTM_ENOMEM;
    for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
        const struct rt_param *t = &run->params[q];
        st->table[q] = -1;
        if (!t->val)
            continue;
        if (t->len > (int64_t)UINT32_MAX) {
            snprintf(err, errlen,
                     "parameter '%s' has more elements than the parameter store "
                     "holds in a row",
                     t->pp->name);
            return PTM_EINVAL;
        }
        struct pstore_table_spec spec = {
            .nrows = 1,
            .ncols = t->len > 0 ? t->len : 1,
            .async = t->pp->cons == PLAN_CONS_ASYNC,
            .staleness = t->pp->staleness,
        };
        if ((rc = pstore_add_table(st->ps, &spec, &st->table[q])) == 0 && t->len > 0)
            rc = pstore_write_row(st->ps, st->table[q], 0, t->val);
        for (int p = 0; p < run->P && rc == 0; p++)
            if (!(st->buf[(size_t)p * plan->nparams + q] =
                      rt_zalloc((size_t)t->len, sizeof(double))))
                rc = PTM_ENOMEM;
    }
    /* a pass of the largest shard (of all ranks) is a sweep */
    int64_t most = 1;
    for (int p = 0; p < run->P; p++)
        if (run->w[p].hi - run->w[p].lo > most)
            most = run->w[p].hi - run->w[p].lo;
    run->clocks_per_sweep = (ptm_comm_max_i64(most) + st->minibatch - 1) / st->minibatch;
    if (rc == 0 && run->nranks > 1) {
        /* phases of at most s + 1 clocks (1 for async), the ranks' changes
         * summed after each (as logreg_sgd does) */
        st->base = rt_zalloc(plan->nparams, sizeof(double *));
        if (!st->base)
            return PTM_ENOMEM;
        for (uint32_t q = 0; q < plan->nparams && rc == 0; q++) {
            const struct rt_param *t = &run->params[q];
            if (st->table[q] < 0)
                continue;
            int64_t period = t->pp->cons == PLAN_CONS_ASYNC ? 1 : (int64_t)t->pp->staleness + 1;
            if (run->clock_period == 0 || period < run->clock_period)
                run->clock_period = period;
            if (!(st->base[q] = rt_zalloc((size_t)t->len, sizeof(double))))
                rc = PTM_ENOMEM;
            else
                memcpy(st->base[q], t->val, (size_t)t->len * sizeof(double));
        }
    }
    return rc;
}

/* Point the hook's view of every table at the worker's copy (writable),
 * or at the parameter table (read-only). */
static int point_tables(struct rt_worker *w, bool own)
{
    struct ptm_run *run = w->run;
    const struct lua_state *st = run->rule_state;
    int rc = 0;
    for (uint32_t q = 0; q < run->plan->nparams && rc == 0; q++) {
        const struct rt_param *t = &run->params[q];
        if (st->table[q] < 0)
            continue;
        double *v = own ? st->buf[(size_t)w->id * run->plan->nparams + q] : t->val;
        rc = lhost_set_table(w->lua, t->pp->name, v, t->rows, t->cols, own);
    }
    return rc;
}

/* A failure of w stops the others too: they may be waiting in
 * pstore_clock() for w to catch up. */
static int clk_fail(struct rt_worker *w, int rc)
{
    const struct lua_state *st = w->run->rule_state;
    pstore_abort(st->ps, rc);
    return rc;
}

/* One clock of worker w: the tables as the store lets w see them into its
 * copies, the hook, the changes as increments. */
static int clock_once(struct rt_worker *w, struct pstore_worker *pw)
{
    struct ptm_run *run = w->run;
    struct lua_state *st = run->rule_state;
    uint32_t np = run->plan->nparams;
    const double **view = st->view + (size_t)w->id * np;
    int rc = 0;
    for (uint32_t q = 0; q < np && rc == 0; q++) {
        view[q] = NULL;
        const struct rt_param *t = &run->params[q];
        if (st->table[q] < 0 || t->len == 0)
            continue;
        if ((rc = pstore_row_dense(pw, st->table[q], 0, &view[q])) == 0)
            memcpy(st->buf[(size_t)w->id * np + q], view[q], (size_t)t->len * sizeof(double));
    }
    if (rc != 0) {
        rt_fail(w, rc, "the parameter store failed: %s", ptm_strerror(rc));
        return clk_fail(w, rc);
    }
    int64_t n = w->hi - w->lo;
    if (n > 0) {
        int64_t begin = st->next[w->id],
                end = begin + st->minibatch < n ? begin + st->minibatch : n;
        lhost_set_round(w->lua, pstore_worker_clock(pw) + 1);
        lhost_set_sweep(w->lua, pstore_worker_clock(pw) / run->clocks_per_sweep);
        if ((rc = lhost_push_rows(w->lua, run->plan->update.push, begin, end)) != 0) {
            hook_failed(w, w->lua, rc);
            return clk_fail(w, rc);
        }
        st->next[w->id] = end == n ? 0 : end;
    }
    for (uint32_t q = 0; q < np; q++) {
        if (!view[q])
            continue;
        const struct rt_param *t = &run->params[q];
        const double *mine = st->buf[(size_t)w->id * np + q];
        for (int64_t k = 0; k < t->len; k++) {
            if (mine[k] == view[q][k])
                continue;
            if (!isfinite(mine[k])) {
                rt_fail(w, PTM_EINVAL, "hook '%s' set element %lld of '%s' to %s",
                        run->plan->update.push, (long long)k + 1, t->pp->name,
                        isnan(mine[k]) ? "nan"
                        : mine[k] > 0  ? "inf"
                                       : "-inf");
                return clk_fail(w, PTM_EINVAL);
            }
            if ((rc = pstore_inc(pw, st->table[q], 0, k, mine[k] - view[q][k])) != 0) {
                rt_fail(w, rc, "the parameter store failed: %s", ptm_strerror(rc));
                return clk_fail(w, rc);
            }
        }
    }
    while ((rc = pstore_clock(pw)) == PTM_ENOMEM)
        ; /* nothing was lost: try again */
    return rc;
}

/* run->work.clocks clocks of worker w. A worker that another one's failure
 * stopped returns 0: the failure is the other's to report. */
static int clk_push(struct rt_worker *w, const struct rt_round *rd)
{
    (void)rd;
    struct ptm_run *run = w->run;
    struct lua_state *st = run->rule_state;
    struct pstore_worker *pw = pstore_worker(st->ps, w->id);
    int rc = point_tables(w, true);
    for (int64_t c = 0; c < run->work.clocks && rc == 0; c++) {
        rc = clock_once(w, pw);
        if (rc != 0 && !w->rc)
            rc = 0, c = run->work.clocks; /* stopped by another worker */
    }
    int rc2 = point_tables(w, false);
    return rc != 0 ? rc : rc2;
}

/* After a phase: the store's master copies become the parameter tables. */
static int clk_sync(struct ptm_run *run)
{
    const struct lua_state *st = run->rule_state;
    int rc = 0;
    for (uint32_t q = 0; q < run->plan->nparams && rc == 0; q++) {
        double *v = run->params[q].val, *base = st->base ? st->base[q] : NULL;
        int64_t n = run->params[q].len;
        if (st->table[q] < 0 || n == 0 || (rc = pstore_read(st->ps, st->table[q], v)) != 0 ||
            !base)
            continue;
        /* across ranks: every rank's changes since the last exchange */
        for (int64_t i = 0; i < n; i++)
            v[i] -= base[i];
        ptm_comm_sum_all(v, (size_t)n);
        for (int64_t i = 0; i < n; i++)
            base[i] = v[i] += base[i];
        rc = pstore_write_row(st->ps, st->table[q], 0, v);
    }
    return rc;
}

/* The hosts, the row each worker's next minibatch starts at, the
 * parameter store, and across ranks each table as the last exchange left
 * it. Not the workers' copies of the tables (buf, view): a clock fills
 * them from the store before the hook reads them. */
static void clk_ck(struct ptm_run *run, struct ptm_ckpt *ck)
{
    struct lua_state *st = run->rule_state;
    ptm_ck_tag(ck, "rule lua clocks");
    ptm_ck_size(ck, run->nranks, "ranks");
    hosts_state(run, ck, false);
    PTM_CK_ARRAY(ck, st->next, run->P);
    for (int p = 0; p < run->P && ck->load && !ck->err; p++) {
        int64_t n = run->w[p].hi - run->w[p].lo;
        if (st->next[p] < 0 || (st->next[p] > 0 && st->next[p] >= n))
            ptm_ck_fail(ck, PTM_EDATA,
                        "the checkpoint's next minibatch of worker %d starts at row %lld of its "
                        "%lld",
                        p + 1, (long long)st->next[p] + 1, (long long)n);
    }
    pstore_state(st->ps, ck);
    for (uint32_t q = 0; st->base && q < run->plan->nparams; q++) {
        const struct rt_param *t = &run->params[q];
        if (st->table[q] < 0)
            continue;
        ptm_ck_size(ck, t->len, "elements of a parameter");
        PTM_CK_ARRAY(ck, st->base[q], t->len);
    }
}

static const struct rt_rule rule_lua_clocks = {
    .name = "lua",
    .kind = RT_CLOCKS,
    .setup = clk_setup,
    .release = rule_release,
    .zcap = no_z,
    .push = clk_push,
    .sync = clk_sync,
    .ranks_clocks = true,
    .state = clk_ck,
};

/* ---- the objective ----------------------------------------------------------- */

/* The state the objective runs in. */
static struct lhost *obj_host(const struct rt_worker *w)
{
    return w->lua_obj ? w->lua_obj : w->lua;
}

static int obj_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *o = &run->plan->objective, *u = &run->plan->update;
    int rc = 0;
    if (!(u->lua && strcmp(u->file, o->file) == 0)) {
        struct lua_state *st = rt_zalloc(1, sizeof(*st));
        if (!st)
            return PTM_ENOMEM;
        run->obj_state = st;
        if ((rc = count_columns(run, st)) == 0)
            rc = load_everywhere(run, true, o->file, st, err, errlen);
        if (rc == 0)
            rc = check_state_fns(run->w[0].lua_obj, o, err, errlen);
    }
    if (rc == 0 && !lhost_has(obj_host(&run->w[0]), o->fn)) {
        snprintf(err, errlen, "\"%s\" defines no function '%s'", o->file, o->fn);
        rc = PTM_EINVAL;
    }
    return rc;
}

static int obj_part(struct rt_worker *w, double *out)
{
    struct lhost *h = obj_host(w);
    lhost_set_round(h, w->run->round);
    int rc = lhost_objective(h, w->run->plan->objective.fn, out);
    return rc != 0 ? hook_failed(w, h, rc) : 0;
}

static double obj_finish(const struct ptm_run *run, double sum)
{
    (void)run;
    return sum;
}

static void obj_release(struct ptm_run *run)
{
    free_hosts(run, true);
    state_free(run, run->obj_state);
    run->obj_state = NULL;
}

/* The objective's hosts, when it has its own; in the update's file it
 * runs in the update's, which the rule keeps. */
static void obj_ck(struct ptm_run *run, struct ptm_ckpt *ck)
{
    if (!run->obj_state)
        return;
    ptm_ck_tag(ck, "objective lua");
    hosts_state(run, ck, true);
}

const struct rt_rule *rt_lua_rule(enum plan_policy pol)
{
    return pol == PLAN_POLICY_ROTATION        ? &rule_lua_rotation
           : pol == PLAN_POLICY_DATA_PARALLEL ? &rule_lua_clocks
                                              : &rule_lua;
}

const struct rt_objective rt_objective_lua = {
    .setup = obj_setup,
    .part = obj_part,
    .finish = obj_finish,
    .release = obj_release,
    .state = obj_ck,
};
