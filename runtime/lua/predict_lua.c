/*
 * predict_lua.c - `ptm predict` for a model whose update is a Lua file:
 * its predict(w, job) hook (lua_host.h), on one host that holds every row
 * of the new data.
 *
 * What the hook sees: the new data under the name of the job's data that
 * the rows are sharded by (the first such data, else the first matrix),
 * its labels under the name of the job's labels() of it, every parameter
 * the job writes (or --param gives) read-only from its file, and the
 * job's consts. Other data and parameters are not there (nil). It returns
 * one prediction a row and, if it likes, a table of named metrics.
 */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "lua_host.h"
#include "predict.h"
#include "ptm.h"

/* The data a Lua model's rows are: the first data sharded by rows, else
 * the first matrix; -1 when the job has none. */
static int32_t row_data(const struct ptm_plan *plan)
{
    int32_t first = -1;
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct plan_data *d = &plan->data[k];
        if (d->labels_of >= 0 || !d->matrix)
            continue;
        if (d->shard == PLAN_SHARD_ROWS)
            return (int32_t)k;
        if (first < 0)
            first = (int32_t)k;
    }
    return first;
}

static int fail(struct lhost *h, int rc, char *err, size_t errlen)
{
    if (rc == PTM_EINVAL)
        snprintf(err, errlen, "%s", lhost_error(h));
    return rc;
}

int rt_lua_predict(struct ptm_predict *pr, char *err, size_t errlen)
{
    const struct ptm_plan *plan = pr->plan;
    const struct plan_hook *u = &plan->update;
    int32_t k = row_data(plan);
    if (k < 0) {
        snprintf(err, errlen, "the job declares no data matrix to predict the rows of");
        return PTM_EINVAL;
    }
    int rc;
    struct ptm_dataset *ds = (struct ptm_dataset *)ptm_predict_data_at(pr, k, &rc, err, errlen);
    if (!ds)
        return rc;
    if (!ds->sparse) {
        snprintf(err, errlen, "data '%s': dense data is not supported in Lua hooks yet",
                 plan->data[k].name);
        return PTM_EINVAL;
    }
    const struct ptm_csc *csc;
    if ((rc = ptm_dataset_csc(ds, &csc)) != 0)
        return rc;
    int64_t n = ptm_dataset_rows(ds);
    char path[4096];
    const char *base = plan->base_dir ? plan->base_dir : ".";
    bool rel = u->file[0] != '/' && strcmp(base, ".") != 0;
    snprintf(path, sizeof(path), rel ? "%s/%s" : "%.0s%s", base, u->file);

    struct lhost *h = NULL;
    struct lhost_config cfg = {.id = 0, .workers = 1, .first = 0, .last = n - 1,
                               .seed = plan->seed};
    if ((rc = lhost_new(&h, &cfg)) != 0)
        return rc;
    double *out = NULL;
    struct lhost_matrix m = {.csc = csc, .csr = &ds->csr, .rows = n, .cols = ds->csr.ncols};
    rc = lhost_set_matrix(h, plan->data[k].name, &m);
    for (uint32_t j = 0; j < plan->ndata && rc == 0; j++)
        if (plan->data[j].labels_of == k && ds->has_labels)
            rc = lhost_set_vector(h, plan->data[j].name, ds->labels.val, n, false);
    for (uint32_t p = 0; p < plan->nparams && rc == 0; p++) {
        if (!ptm_predict_param_known(pr, (int32_t)p))
            continue;
        const struct ptm_values *t = ptm_predict_param_at(pr, (int32_t)p, &rc, err, errlen);
        if (!t)
            goto out;
        rc = lhost_set_table(h, plan->params[p].name, t->val, t->rows, t->cols, false);
    }
    for (uint32_t c = 0; c < plan->nconsts && rc == 0; c++) {
        const struct plan_const *pc = &plan->consts[c];
        rc = pc->is_str ? lhost_set_const_str(h, pc->name, pc->str)
                        : lhost_set_const_num(h, pc->name, pc->num);
    }
    if (rc != 0 || (rc = lhost_load_file(h, path)) != 0) {
        rc = fail(h, rc, err, errlen);
        goto out;
    }
    if (!lhost_has(h, "predict")) {
        snprintf(err, errlen,
                 "\"%s\" defines no function 'predict': a Lua model predicts through "
                 "predict(w, job), which returns one prediction a row (spec/runtime.md, "
                 "\"Lua hooks\")",
                 u->file);
        rc = PTM_EINVAL;
        goto out;
    }
    struct lhost_metric met[PTM_PREDICT_METRICS];
    int nm = 0;
    if (!(out = ptm_malloc((size_t)(n ? n : 1) * sizeof(double)))) {
        rc = PTM_ENOMEM;
        goto out;
    }
    if ((rc = lhost_predict(h, "predict", n, out, met, PTM_PREDICT_METRICS, &nm)) != 0) {
        rc = fail(h, rc, err, errlen);
        goto out;
    }
    for (int i = 0; i < nm; i++) {
        memcpy(pr->names[i], met[i].name, sizeof(pr->names[i]));
        ptm_predict_metric(pr, pr->names[i], met[i].value);
    }
    pr->predicted = n;
    pr->unit = "rows";
    rc = ptm_predict_write(pr, out, n);
out:
    ptm_free(out);
    lhost_free(h);
    return rc;
}
