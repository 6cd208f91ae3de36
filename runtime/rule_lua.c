/*
 * rule_lua.c - an update rule and an objective written as Lua hooks
 * (update lua "FILE", objective lua "FILE" "FN"), behind the engine's
 * interfaces, over the worker hosts of lua_host.h.
 *
 * Every worker has its own host (a sandboxed lua_State) with the hook
 * file loaded and these objects registered under their names in the job:
 * each data source (a sparse matrix: the worker's rows of it when it is
 * the data sharded by rows, else all of it; labels(X): the matching
 * labels, read-only), each parameter (one copy: the committed values,
 * read-only, since a model-parallel round changes them only through pull;
 * sharded: the worker's rows, writable; a matrix is one vector of its
 * elements, row by row) and the job's consts. pull runs on the
 * coordinator in worker 1's host, which is idle then. An objective in the
 * update's file runs in the same state; one in another file gets states of
 * its own, so that neither file's globals replace the other's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "engine_impl.h"
#include "lua_host.h"
#include "ptm.h"

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

/* Register the job's objects in host h of worker w. */
static int register_objects(struct rt_worker *w, struct lhost *h, char *err, size_t errlen)
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
            struct lhost_matrix m = {
                .csc = &s->csc, .csr = &s->csr, .rows = rows, .cols = ds->csr.ncols};
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
            rc = lhost_set_vector(h, t->pp->name, t->val, t->len, false);
        else
            rc = lhost_set_vector(h, t->pp->name, w->local[p], (w->hi - w->lo) * t->cols, true);
    }
    for (uint32_t c = 0; c < plan->nconsts && rc == 0; c++) {
        const struct plan_const *pc = &plan->consts[c];
        rc = pc->is_str ? lhost_set_const_str(h, pc->name, pc->str)
                        : lhost_set_const_num(h, pc->name, pc->num);
    }
    if (rc == PTM_EINVAL)
        snprintf(err, errlen, "%s", lhost_error(h));
    return rc;
}

/* A host per worker (w->lua, or w->lua_obj for an objective of its own),
 * with file loaded. */
static int load_everywhere(struct ptm_run *run, bool objective, const char *file, char *err,
                           size_t errlen)
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
        if ((rc = lhost_new(h, &cfg)) != 0 || (rc = register_objects(w, *h, err, errlen)) != 0)
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

static int lua_setup(struct ptm_run *run, char *err, size_t errlen)
{
    const struct plan_hook *u = &run->plan->update;
    int rc = load_everywhere(run, false, u->file, err, errlen);
    if (rc == 0 && (!u->push || !lhost_has(run->w[0].lua, u->push))) {
        snprintf(err, errlen, "\"%s\" defines no function '%s'", u->file, u->push ? u->push : "push");
        rc = PTM_EINVAL;
    }
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

static void lua_release(struct ptm_run *run)
{
    free_hosts(run, false);
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

static int lua_push(struct rt_worker *w, const struct rt_round *rd)
{
    const struct plan_hook *u = &w->run->plan->update;
    lhost_set_round(w->lua, w->run->round + 1);
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

const struct rt_rule rt_rule_lua = {
    .name = "lua",
    .kind = RT_MODEL,
    .setup = lua_setup,
    .release = lua_release,
    .zcap = lua_zcap,
    .push = lua_push,
    .pull = lua_pull,
    .apply = lua_apply,
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
    if (!(u->lua && strcmp(u->file, o->file) == 0))
        rc = load_everywhere(run, true, o->file, err, errlen);
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
}

const struct rt_objective rt_objective_lua = {
    .setup = obj_setup,
    .part = obj_part,
    .finish = obj_finish,
    .release = obj_release,
};
