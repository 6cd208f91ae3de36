/*
 * predict.c - what every model's prediction shares (predict.h): finding
 * and reading the trained parameters and the new data as the job
 * declares them, and the standard metrics.
 */
#include "predict.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"
#include "wfile.h"

int ptm_predict_init(struct ptm_predict *pr, struct ptm_data_diags *dg)
{
    size_t n = pr->plan->nparams ? pr->plan->nparams : 1;
    pr->dg = dg;
    pr->nmetrics = 0;
    pr->predicted = 0;
    pr->unit = "rows";
    pr->data = NULL;
    pr->borrowed = false;
    pr->tables = ptm_malloc(n * sizeof(*pr->tables));
    pr->paths = ptm_malloc(n * sizeof(*pr->paths));
    if (!pr->tables || !pr->paths) {
        ptm_free(pr->tables);
        ptm_free(pr->paths);
        pr->tables = NULL;
        pr->paths = NULL;
        return PTM_ENOMEM;
    }
    memset(pr->tables, 0, n * sizeof(*pr->tables));
    memset(pr->paths, 0, n * sizeof(*pr->paths));
    return 0;
}

void ptm_predict_release(struct ptm_predict *pr)
{
    if (pr->tables)
        for (uint32_t k = 0; k < pr->plan->nparams; k++) {
            if (!pr->borrowed)
                ptm_free(pr->tables[k].val);
            ptm_free(pr->paths[k]);
        }
    ptm_free(pr->tables);
    ptm_free(pr->paths);
    if (pr->data && !pr->borrowed)
        ptm_dataset_free(pr->data);
    pr->tables = NULL;
    pr->paths = NULL;
    pr->data = NULL;
}

void ptm_predict_warn(struct ptm_predict *pr, const char *fmt, ...)
{
    if (!pr->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(pr->log, "ptm: warning: ");
    vfprintf(pr->log, fmt, ap);
    fputc('\n', pr->log);
    va_end(ap);
}

/* The update's option key, or NULL (rt_option). */
static const struct plan_option *option(const struct ptm_predict *pr, const char *key)
{
    return rt_option(&pr->plan->update, key);
}

double ptm_predict_option(const struct ptm_predict *pr, const char *key, double dflt)
{
    const struct plan_option *o = option(pr, key);
    return o && o->kind == PLAN_VALUE_NUM ? o->num : dflt;
}

/* dir/path, or path itself when it is absolute or dir is "." or NULL. */
static char *joined(const char *dir, const char *path)
{
    size_t n = strlen(path) + (dir ? strlen(dir) : 0) + 2;
    char *s = ptm_malloc(n);
    if (!s)
        return NULL;
    if (!dir || path[0] == '/' || strcmp(dir, ".") == 0)
        snprintf(s, n, "%s", path);
    else
        snprintf(s, n, "%s/%s", dir, path);
    return s;
}

static int param_index(const struct ptm_predict *pr, const char *key)
{
    const struct plan_option *o = option(pr, key);
    if (!o || o->kind != PLAN_VALUE_PARAM || o->ref < 0 ||
        (uint32_t)o->ref >= pr->plan->nparams)
        return -1;
    return o->ref;
}

const char *ptm_predict_param_path(const struct ptm_predict *pr, const char *key)
{
    int p = param_index(pr, key);
    return p >= 0 && pr->paths[p] ? pr->paths[p] : "";
}

const struct ptm_values *ptm_predict_param(struct ptm_predict *pr, const char *key, bool required,
                                          int *rc, char *err, size_t errlen)
{
    *rc = 0;
    int p = param_index(pr, key);
    if (p < 0) {
        if (required) {
            snprintf(err, errlen, "the update names no parameter '%s'", key);
            *rc = PTM_EINVAL;
        }
        return NULL;
    }
    return ptm_predict_param_at(pr, p, rc, err, errlen);
}

bool ptm_predict_param_known(const struct ptm_predict *pr, int32_t p)
{
    const struct plan_param *pp = &pr->plan->params[p];
    for (size_t k = 0; k < pr->nfiles; k++)
        if (strcmp(pr->files[k].param, pp->name) == 0)
            return true;
    for (uint32_t k = 0; k < pr->plan->noutputs; k++)
        if (pr->plan->outputs[k].param == p)
            return true;
    return false;
}

const struct ptm_values *ptm_predict_param_at(struct ptm_predict *pr, int32_t p, int *rc,
                                             char *err, size_t errlen)
{
    *rc = 0;
    if (pr->tables[p].val)
        return &pr->tables[p];
    const struct plan_param *pp = &pr->plan->params[p];
    const char *given = NULL;
    for (size_t k = 0; k < pr->nfiles; k++)
        if (strcmp(pr->files[k].param, pp->name) == 0)
            given = pr->files[k].path;
    char *path = NULL;
    if (given) {
        path = joined(NULL, given);
    } else {
        for (uint32_t k = 0; k < pr->plan->noutputs && !path; k++)
            if (pr->plan->outputs[k].param == p)
                path = joined(pr->model_dir, pr->plan->outputs[k].path);
        if (!path) {
            snprintf(err, errlen,
                     "the job writes %s nowhere (no 'output %s to ...'): give "
                     "--param %s=FILE",
                     pp->name, pp->name, pp->name);
            *rc = PTM_EINVAL;
            return NULL;
        }
    }
    if (!path) {
        *rc = PTM_ENOMEM;
        return NULL;
    }
    pr->paths[p] = path;
    struct ptm_values_opts vo = {.integer = pp->integer, .lo = 0, .hi = INT64_MAX};
    *rc = ptm_data_read_values(path, NULL, &vo, pr->dg, &pr->tables[p]);
    if (*rc != 0) {
        snprintf(err, errlen, "cannot read %s from '%s'", pp->name, path);
        return NULL;
    }
    return &pr->tables[p];
}

const struct ptm_dataset *ptm_predict_data(struct ptm_predict *pr, const char *key, int *rc,
                                           char *err, size_t errlen)
{
    *rc = 0;
    if (pr->data)
        return pr->data;
    const struct plan_option *o = option(pr, key);
    if (!o || o->kind != PLAN_VALUE_DATA || o->ref < 0 || (uint32_t)o->ref >= pr->plan->ndata) {
        snprintf(err, errlen, "the update names no data '%s'", key);
        *rc = PTM_EINVAL;
        return NULL;
    }
    return ptm_predict_data_at(pr, o->ref, rc, err, errlen);
}

const struct ptm_dataset *ptm_predict_data_at(struct ptm_predict *pr, int32_t k, int *rc,
                                              char *err, size_t errlen)
{
    *rc = 0;
    if (pr->data)
        return pr->data;
    const struct plan_data *d = &pr->plan->data[k];
    struct ptm_data_opts opts;
    ptm_data_opts_from_plan(d, &opts);
    for (uint32_t j = 0; j < pr->plan->ndata; j++)
        if (pr->plan->data[j].labels_of == k && d->format == PLAN_FORMAT_CSV) {
            opts.csv_labels = true;
            opts.csv_label = pr->plan->data[j].label_column;
        }
    char *vocab = NULL;
    if (d->format == PLAN_FORMAT_UCI) {
        const char *v = pr->vocab_path ? pr->vocab_path : d->vocab;
        if (v) {
            vocab = joined(pr->vocab_path ? NULL : pr->plan->base_dir, v);
            if (!vocab) {
                *rc = PTM_ENOMEM;
                return NULL;
            }
        }
        opts.vocab = vocab;
    }
    *rc = ptm_data_read(pr->data_path, &opts, pr->dg, &pr->data);
    ptm_free(vocab);
    if (*rc != 0) {
        snprintf(err, errlen, "cannot read the data from '%s'", pr->data_path);
        return NULL;
    }
    return pr->data;
}

void ptm_predict_metric(struct ptm_predict *pr, const char *name, double value)
{
    if (pr->nmetrics < PTM_PREDICT_METRICS) {
        pr->metric[pr->nmetrics].name = name;
        pr->metric[pr->nmetrics].value = value;
        pr->nmetrics++;
    }
}

void ptm_predict_regression(struct ptm_predict *pr, const double *y, const double *pred, int64_t n)
{
    if (n <= 0)
        return;
    double mean = 0;
    for (int64_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    double sse = 0, sae = 0, sst = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = y[i] - pred[i], c = y[i] - mean;
        sse += e * e;
        sae += fabs(e);
        sst += c * c;
    }
    ptm_predict_metric(pr, "rmse", sqrt(sse / (double)n));
    ptm_predict_metric(pr, "mae", sae / (double)n);
    ptm_predict_metric(pr, "r2", sst > 0 ? 1 - sse / sst : NAN);
}

struct scored {
    double m;
    bool pos;
};

static int cmp_scored(const void *a, const void *b)
{
    double x = ((const struct scored *)a)->m, y = ((const struct scored *)b)->m;
    return (x > y) - (x < y);
}

/* log(1 + exp(-t)) without overflow. */
static double log1pexp_neg(double t)
{
    return t > 0 ? log1p(exp(-t)) : -t + log1p(exp(t));
}

int ptm_predict_classification(struct ptm_predict *pr, const double *y, const double *m,
                               int64_t n)
{
    if (n <= 0)
        return 0;
    struct scored *s = ptm_malloc((size_t)n * sizeof(*s));
    if (!s)
        return PTM_ENOMEM;
    double loss = 0;
    int64_t right = 0, npos = 0;
    for (int64_t i = 0; i < n; i++) {
        bool pos = y[i] > 0;
        loss += log1pexp_neg(pos ? m[i] : -m[i]);
        right += (m[i] > 0) == pos; /* probability 1/2 counts as negative */
        npos += pos;
        s[i] = (struct scored){m[i], pos};
    }
    ptm_predict_metric(pr, "logloss", loss / (double)n);
    ptm_predict_metric(pr, "accuracy", (double)right / (double)n);
    double auc = NAN;
    if (npos > 0 && npos < n) {
        /* Mann-Whitney: the sum of the positives' ranks (ties share their
         * mean rank), less the smallest it could be, over the pairs */
        qsort(s, (size_t)n, sizeof(*s), cmp_scored);
        double ranksum = 0;
        for (int64_t i = 0; i < n;) {
            int64_t j = i, pos = 0;
            while (j < n && s[j].m == s[i].m)
                pos += s[j++].pos;
            ranksum += (double)pos * ((double)(i + 1) + (double)j) / 2;
            i = j;
        }
        double p = (double)npos, q = (double)(n - npos);
        auc = (ranksum - p * (p + 1) / 2) / (p * q);
    }
    ptm_predict_metric(pr, "auc", auc);
    ptm_free(s);
    return 0;
}

int ptm_predict_run(struct ptm_predict *pr, char *err, size_t errlen)
{
    err[0] = '\0';
    const struct plan_hook *u = &pr->plan->update;
    if (!u->present) {
        snprintf(err, errlen, "the job has no update rule: nothing was trained");
        return PTM_EINVAL;
    }
    if (u->lua)
        return rt_lua_predict(pr, err, errlen);
    const struct ptm_model *model;
    if (!ptm_model_rule(u->builtin, &model) || !model) {
        snprintf(err, errlen, "no model has the update rule '%s'", u->builtin);
        return PTM_EINVAL;
    }
    if (!model->predict) {
        snprintf(err, errlen, "the %s model cannot predict", model->name);
        return PTM_EINVAL;
    }
    return model->predict(pr, err, errlen);
}

int ptm_predict_linear(struct ptm_predict *pr, const char *wkey, double **margin, char *err,
                       size_t errlen)
{
    *margin = NULL;
    int rc;
    const struct ptm_values *w = ptm_predict_param(pr, wkey, true, &rc, err, errlen);
    if (!w)
        return rc;
    const struct ptm_values *b = ptm_predict_param(pr, "intercept", false, &rc, err, errlen);
    if (rc != 0)
        return rc;
    const char *wpath = ptm_predict_param_path(pr, wkey);
    if (w->cols != 1) {
        snprintf(err, errlen, "'%s' holds %lld columns a line: the weights are one value a line",
                 wpath, (long long)w->cols);
        return PTM_EINVAL;
    }
    if (b && b->rows * b->cols != 1) {
        snprintf(err, errlen, "'%s' holds %lld values: the intercept is one",
                 ptm_predict_param_path(pr, "intercept"), (long long)(b->rows * b->cols));
        return PTM_EINVAL;
    }
    const struct ptm_dataset *ds = ptm_predict_data(pr, "X", &rc, err, errlen);
    if (!ds)
        return rc;
    int64_t n = ptm_dataset_rows(ds), d = ptm_dataset_cols(ds);
    if (d > w->rows)
        ptm_predict_warn(pr,
                         "%s: columns %lld .. %lld are beyond the %lld weights in '%s': they "
                         "count as weight 0",
                         pr->data_path, (long long)w->rows + 1, (long long)d, (long long)w->rows,
                         wpath);
    double *m = ptm_malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!m)
        return PTM_ENOMEM;
    double b0 = b ? b->val[0] : 0;
    for (int64_t i = 0; i < n; i++) {
        double s = b0;
        if (ds->sparse) {
            for (int64_t e = ds->csr.rowptr[i]; e < ds->csr.rowptr[i + 1]; e++)
                if (ds->csr.colind[e] < w->rows)
                    s += ds->csr.val[e] * w->val[ds->csr.colind[e]];
        } else {
            const double *x = ds->dense.val + i * d;
            for (int64_t j = 0; j < d && j < w->rows; j++)
                s += x[j] * w->val[j];
        }
        m[i] = s;
    }
    pr->predicted = n;
    *margin = m;
    return 0;
}

int ptm_predict_write(struct ptm_predict *pr, const double *v, int64_t n)
{
    if (!pr->out)
        return 0;
    for (int64_t i = 0; i < n; i++)
        ptm_fput_num(pr->out, v[i], '\n');
    return ferror(pr->out) ? PTM_EIO : 0;
}
