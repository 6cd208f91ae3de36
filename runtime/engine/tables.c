/*
 * tables.c - what a run holds before its first round: the plan's data
 * read (each rank its part of the data sharded by rows), the rows each
 * worker holds and its view of every data source (its shards), the
 * parameter tables with their sizes and initial values, and the blocks
 * of the scheduled block set; and a round's variables from its blocks.
 *
 * It owns nothing itself: what it allocates hangs off struct ptm_run and
 * ptm_run_free() releases it. rt_make_tables() sets up a run
 * (ptm_run_new()), rt_setup_tables() the dry run's tables
 * (runtime/engine/dryrun.c) from the same steps.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "comm.h"
#include "data_ranks.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"
#include "rng.h"

/* The data sets `ptm check --data` has read, for the sizes of parameters. */
struct check_dims {
    const struct ptm_plan *plan;
    struct ptm_dataset *const *data;
};

void ptm_data_gen_hint(const struct ptm_plan *plan, const char *missing,
                       struct ptm_data_diags *dg)
{
    const char *files[2 * 64];
    size_t n = 0;
    for (uint32_t k = 0; k < plan->ndata && n + 2 <= PTM_ARRAY_LEN(files); k++) {
        if (plan->data[k].path)
            files[n++] = plan->data[k].path;
        if (plan->data[k].vocab)
            files[n++] = plan->data[k].vocab;
    }
    char hint[512];
    if (missing && ptm_gen_hint(missing, files, n, hint, sizeof(hint)))
        ptm_data_diags_note(dg, missing, "%s", hint);
}

/* Whether a metric predicts the rows of data source k (and reads them). */
static bool scored(const struct ptm_run *run, int32_t k)
{
    for (uint32_t q = 0; q < run->plan->nmetrics; q++)
        if (run->plan->metrics[q].data == k)
            return true;
    return false;
}

/* The bytes a column view built side by side may take beside the rows it
 * is built from: a quarter of --memory-limit, or of what the machine has
 * available. */
static uint64_t columns_mem(const struct ptm_run *run)
{
    return (run->opts.memory_limit ? run->opts.memory_limit : ptm_mem_available()) / 4;
}

/* Read every data file of the plan. */
static int load_data(struct ptm_run *run, struct ptm_data_diags *dg)
{
    const struct ptm_plan *plan = run->plan;
    const char *base = plan->base_dir ? plan->base_dir : ".";
    int32_t first = -1; /* the data sharded by rows: under MPI each rank reads its part,
                           and the parts of the MatrixMarket and UCI files sharded alike */
    for (uint32_t k = 0; k < plan->ndata && first < 0; k++)
        if (plan->data[k].shard == PLAN_SHARD_ROWS && plan->data[k].labels_of < 0)
            first = (int32_t)k;
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct plan_data *dd = &plan->data[k];
        if (dd->format == PLAN_FORMAT_LABELS)
            continue; /* read with its data */
        char path[4096], vocab[4096];
        bool rel = dd->path[0] != '/' && strcmp(base, ".") != 0;
        snprintf(path, sizeof(path), rel ? "%s/%s" : "%.0s%s", base, dd->path);
        struct ptm_data_opts o;
        ptm_data_opts_from_plan(dd, &o);
        if (dd->vocab) {
            bool vrel = dd->vocab[0] != '/' && strcmp(base, ".") != 0;
            snprintf(vocab, sizeof(vocab), vrel ? "%s/%s" : "%.0s%s", base, dd->vocab);
            o.vocab = vocab;
        }
        for (uint32_t j = 0; j < plan->ndata; j++)
            if (plan->data[j].labels_of == (int32_t)k && dd->format == PLAN_FORMAT_CSV) {
                o.csv_labels = true;
                o.csv_label = plan->data[j].label_column;
            }
        /* rank r of R reads the lines that start in the r-th R-th of the
         * file: only its own rows, never the whole file */
        struct ptm_byte_range range;
        if (run->nranks > 1 && dd->shard == PLAN_SHARD_ROWS && dd->labels_of < 0 &&
            ((int32_t)k == first || dd->format == PLAN_FORMAT_MM ||
             dd->format == PLAN_FORMAT_UCI)) {
            struct stat st;
            if (stat(path, &st) == 0) {
                int64_t size = (int64_t)st.st_size;
                range.begin = size / run->nranks * run->rank + size % run->nranks * run->rank / run->nranks;
                range.end = run->rank + 1 == run->nranks
                                ? INT64_MAX
                                : size / run->nranks * (run->rank + 1) +
                                      size % run->nranks * (run->rank + 1) / run->nranks;
                o.range = &range;
            }
        }
        o.threads = run->P; /* the workers are idle yet */
        /* their threads build the column view of the pieces they read,
         * where columns_only() would build it side by side from the rows
         * (a rank's columns are known once all ranks have read) */
        o.columns_only = run->columns_only && !scored(run, (int32_t)k) && run->P > 1 &&
                         run->nranks == 1 && dd->matrix;
        o.columns_mem = columns_mem(run);
        int rc = ptm_data_read(path, &o, dg, &run->data[k]);
        if (rc == PTM_ENOENT && run->rank == 0)
            ptm_data_gen_hint(plan, access(path, F_OK) != 0 ? path : dd->vocab ? vocab : NULL, dg);
        if (rc != 0)
            return rc;
        struct ptm_dataset *ds = run->data[k];
        if (!ds->sparse && dd->matrix && plan->update.present && !plan->update.lua) {
            /* the built-in kernels go through rows of non-zeros: a dense
             * matrix is converted once, its zeros dropped (12 bytes a
             * non-zero against 8 an entry: smaller once a third of the
             * entries are zeros), in time linear in its entries */
            struct ptm_csr c;
            rc = ptm_dense_to_csr(&ds->dense, &c);
            if (rc != 0)
                return rc;
            ptm_dense_release(&ds->dense);
            ds->csr = c;
            ds->sparse = true;
        }
    }
    return 0;
}

/* The data set behind source k: its own, or for labels() its owner's. */
static const struct ptm_dataset *source(const struct ptm_run *run, int32_t k)
{
    if (k < 0 || (uint32_t)k >= run->plan->ndata)
        return NULL;
    int32_t of = run->plan->data[k].labels_of;
    return of >= 0 ? run->data[of] : run->data[k];
}

/* rows(D) and cols(D) for the parameter sizes. */
static double dim_cb(void *ud, int32_t k, int axis)
{
    const struct ptm_run *run = ud;
    const struct ptm_dataset *ds = source(run, k);
    if (!ds)
        return NAN;
    int32_t owner = run->plan->data[k].labels_of >= 0 ? run->plan->data[k].labels_of : k;
    /* a rank holds some of the rows: rows() is the whole data's */
    int64_t rows = owner == run->rowdata ? run->grows : ptm_dataset_rows(ds);
    if (run->plan->data[k].labels_of >= 0)
        return axis == 0 ? (double)rows : 1;
    return (double)(axis == 0 ? rows : ptm_dataset_cols(ds));
}

/* A size expression's value: a whole number in [lo, PTM_DATA_DIM_MAX]. */
static int eval_size(struct ptm_run *run, const struct prog *p, int64_t lo, const char *what,
                     int64_t *out, char *err, size_t errlen)
{
    double g[PROG_NGLOBALS] = {0};
    g[PROG_G_WORKERS] = run->G;
    struct prog_env env = {.globals = g, .ud = run, .dim = dim_cb};
    double v = prog_eval(p, &env);
    if (!(v >= (double)lo && v <= (double)PTM_DATA_DIM_MAX) || v != floor(v)) {
        snprintf(err, errlen, "%s is %.17g: it must be a whole number from %lld to %lld", what, v,
                 (long long)lo, (long long)PTM_DATA_DIM_MAX);
        return PTM_EINVAL;
    }
    *out = (int64_t)v;
    return 0;
}

/* The data whose row shards the workers hold: the one declared `shard
 * rows`. Without one, every worker would push the same sums, so the run
 * has one worker. */
static int choose_rows(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    run->rowdata = -1;
    for (uint32_t k = 0; k < plan->ndata; k++) {
        /* labels(X) go with X's rows */
        if (plan->data[k].shard != PLAN_SHARD_ROWS || plan->data[k].labels_of >= 0)
            continue;
        if (run->rowdata < 0) {
            run->rowdata = (int32_t)k;
            continue;
        }
        /* another data set sharded by rows (held-out ratings) is cut where
         * the first one is, so that worker p holds the same rows of both */
        int64_t a = ptm_dataset_rows(run->data[run->rowdata]), b = ptm_dataset_rows(run->data[k]);
        if (a != b) {
            snprintf(err, errlen,
                     "data '%s' (%lld rows) and '%s' (%lld rows) are both sharded by rows: "
                     "they must have as many rows (or declare one 'shard none')",
                     plan->data[run->rowdata].name, (long long)a, plan->data[k].name,
                     (long long)b);
            return PTM_EINVAL;
        }
    }
    for (uint32_t k = 0; k < plan->ndata; k++)
        if (plan->data[k].shard == PLAN_SHARD_COLS && plan->data[k].labels_of < 0) {
            snprintf(err, errlen, "data '%s': shard cols is not supported yet", plan->data[k].name);
            return PTM_EINVAL;
        }
    if (run->rowdata < 0) {
        run->P = run->G = 1;
        run->nrows = 0;
        return 0;
    }
    struct ptm_dataset *ds = run->data[run->rowdata];
    bool rotation = run->rule && run->rule->kind == RT_ROTATION && run->nranks > 1;
    if (run->nranks > 1 && ds->sparse && ds->declared_nnz >= 0) {
        /* a MatrixMarket or UCI range holds entries of any rows: they go
         * to the ranks of their rows, split as one process would split
         * them among all the workers; other such data sharded by rows
         * (held-out ratings) is cut where the first is */
        int32_t bad = run->rowdata;
        int rc = ptm_data_to_ranks(ds, plan->data[bad].name, run->P, &run->gbounds, err, errlen);
        for (int32_t k = 0; k < (int32_t)plan->ndata && rc == 0; k++)
            if (k != run->rowdata && plan->data[k].shard == PLAN_SHARD_ROWS &&
                plan->data[k].labels_of < 0 && run->data[k]->sparse &&
                run->data[k]->declared_nnz >= 0) {
                bad = k;
                rc = ptm_data_to_ranks(run->data[k], plan->data[k].name, run->P, &run->gbounds,
                                       err, errlen);
            }
        if (rc == PTM_EDATA) {
            /* a message about the file, as the readers give */
            char msg[1024];
            snprintf(msg, sizeof(msg), "%s", err);
            snprintf(err, errlen, "%s: error: %s", plan->data[bad].path, msg);
        }
        if (rc != 0)
            return rc;
    }
    run->nrows = ptm_dataset_rows(ds);
    run->grows = run->nrows;
    if (run->nranks > 1) {
        /* the rank's rows are a slice of the whole; a libsvm slice knows
         * only the columns it uses */
        run->grows = ptm_comm_sum_i64(run->nrows);
        run->row0 = ptm_comm_prefix_i64(run->nrows);
        if (ds->sparse) {
            int64_t cols = ptm_comm_max_i64(ds->csr.ncols);
            ds->csr.ncols = cols;
        }
        for (uint32_t k = 0; k < plan->ndata; k++)
            if ((int32_t)k != run->rowdata && plan->data[k].shard == PLAN_SHARD_ROWS &&
                plan->data[k].labels_of < 0 && ptm_dataset_rows(run->data[k]) != run->nrows) {
                snprintf(err, errlen,
                         "data '%s': under MPI a second data set sharded by rows must be "
                         "MatrixMarket or UCI with a first one in the same format (declare it "
                         "'shard none')",
                         plan->data[k].name);
                return PTM_EINVAL;
            }
    }
    if (run->nrows < 1) {
        snprintf(err, errlen, "data '%s' has no rows%s", plan->data[run->rowdata].name,
                 run->nranks > 1 ? " on this rank (more ranks than lines?)" : "");
        return PTM_EINVAL;
    }
    if (run->P > run->nrows && !run->gbounds)
        run->P = (int)run->nrows;
    if (rotation) /* every rank has as many workers */
        run->P = (int)-ptm_comm_max_i64(-run->P);
    run->G = rotation ? run->nranks * run->P : run->P;
    return 0;
}

/* The fewest non-zeros for the workers' threads to build a column view
 * side by side: fewer take a few milliseconds on one, less than starting
 * threads and faulting their pages. */
#define CSC_THREADS_MIN_NNZ ((int64_t)1 << 20)

/* The column view of data read by columns only. With CSC_THREADS_MIN_NNZ
 * non-zeros or more and memory to spare (the matrix's 12 bytes a
 * non-zero under a quarter of --memory-limit, or of what the machine has
 * available), the workers' threads, idle yet, build it side by side, the
 * CSR and the CSC both held at the peak; else one thread builds it in
 * place, the CSR plus 4 bytes an entry. */
static int columns_only(struct ptm_run *run, struct ptm_dataset *ds, const struct ptm_csc **c)
{
    if (ds->csc) { /* built for an earlier worker, or by the reader from its pieces */
        *c = ds->csc;
        return 0;
    }
    double need = 12.0 * (double)ds->csr.nnz;
    int T = run->P > 1 && ds->csr.nnz >= CSC_THREADS_MIN_NNZ && need < (double)columns_mem(run)
                ? run->P
                : 1;
    return ptm_dataset_csc_split(ds, T, c);
}

/* The column view of data whose rows are read too (a dependency that
 * compares columns, a metric on the training rows): the CSR and the CSC
 * are both kept whoever builds it, so with CSC_THREADS_MIN_NNZ non-zeros
 * or more the workers' threads, idle yet, build it side by side. */
static int columns_too(struct ptm_run *run, struct ptm_dataset *ds, const struct ptm_csc **c)
{
    return ptm_dataset_csc_threads(ds, ds->csr.nnz >= CSC_THREADS_MIN_NNZ ? run->P : 1, c);
}

/* Every worker's view of every data source. */
static int make_shards(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    int64_t *bounds = rt_zalloc((size_t)run->P + 1, sizeof(int64_t));
    if (!bounds)
        return PTM_ENOMEM;
    int g0 = run->G > run->P ? run->rank * run->P : 0;
    if (run->gbounds) {
        for (int p = 0; p <= run->P; p++)
            bounds[p] = run->gbounds[run->rank * run->P + p] - run->row0;
    } else if (run->rowdata >= 0) {
        const struct ptm_dataset *ds = run->data[run->rowdata];
        if (ds->sparse)
            ptm_shard_by_nnz(ds->csr.rowptr, run->nrows, run->P, bounds);
        else
            ptm_shard_even(run->nrows, run->P, bounds);
    }
    int rc = 0;
    for (int p = 0; p < run->P && rc == 0; p++) {
        struct rt_worker *w = &run->w[p];
        w->run = run;
        w->id = p;
        w->gid = g0 + p;
        w->lo = bounds[p];
        w->hi = bounds[p + 1];
        w->shard = rt_zalloc(plan->ndata, sizeof(*w->shard));
        w->local = rt_zalloc(plan->nparams, sizeof(*w->local));
        if (!w->shard || !w->local) {
            rc = PTM_ENOMEM;
            break;
        }
        for (uint32_t k = 0; k < plan->ndata && rc == 0; k++) {
            struct rt_shard *s = &w->shard[k];
            const struct plan_data *dd = &plan->data[k];
            int32_t owner = dd->labels_of >= 0 ? dd->labels_of : (int32_t)k;
            struct ptm_dataset *ds = run->data[owner];
            /* a rule that splits by blocks reads all rows on every worker */
            bool sharded = plan->data[owner].shard == PLAN_SHARD_ROWS && run->rowdata >= 0 &&
                           !run->split;
            int64_t lo = sharded ? w->lo : 0, hi = sharded ? w->hi : ptm_dataset_rows(ds);
            if (dd->labels_of >= 0) {
                if (ds->has_labels) {
                    s->labels = ds->labels.val + lo;
                    s->nlabels = hi - lo;
                }
                continue;
            }
            if (!ds->sparse)
                continue; /* dense data: no rule reads it yet */
            s->matrix = true;
            if (sharded) {
                /* only rules by rows read a shard's columns */
                if (run->rule && run->rule->kind == RT_MODEL) {
                    s->own_csc = true;
                    if (ptm_csr_rows_csc(&ds->csr, lo, hi, &s->csc) != 0)
                        rc = PTM_ENOMEM;
                }
            } else {
                const struct ptm_csc *c;
                rc = run->columns_only && !scored(run, (int32_t)k) ? columns_only(run, ds, &c)
                                                                   : columns_too(run, ds, &c);
                if (rc == 0)
                    s->csc = *c;
            }
            s->csr = ds->csr;
            s->csr.nrows = hi - lo;
            s->csr.rowptr = ds->csr.rowptr + lo;
            s->csr.nnz = ds->csr.rowptr[hi] - ds->csr.rowptr[lo];
        }
    }
    ptm_free(bounds);
    (void)err;
    (void)errlen;
    return rc;
}

/* A vector data source's values for PLAN_INIT_DATA: labels only. */
static const struct ptm_vec *init_vector(const struct ptm_run *run, int32_t k)
{
    if (k < 0 || (uint32_t)k >= run->plan->ndata || run->plan->data[k].labels_of < 0)
        return NULL;
    const struct ptm_dataset *ds = run->data[run->plan->data[k].labels_of];
    return ds && ds->has_labels ? &ds->labels : NULL;
}

/* Where element e (global, row-major) of parameter p lives in this
 * process, or NULL when another rank holds it. A sharded parameter holds
 * the rows of the rank (row0 .. row0 + nrows - 1), in one array when the
 * rule splits by blocks, else in its workers' shards. */
static double *param_slot(struct ptm_run *run, int32_t p, int64_t e)
{
    struct rt_param *t = &run->params[p];
    if (t->shard_like < 0)
        return &t->val[e];
    int64_t row = e / t->cols - run->row0, at = e - run->row0 * t->cols;
    if (row < 0 || row >= run->nrows)
        return NULL;
    if (t->val)
        return &t->val[at];
    for (int q = 0; q < run->P; q++)
        if (row < run->w[q].hi)
            return &run->w[q].local[p][at - run->w[q].lo * t->cols];
    return NULL;
}

void rt_plan_path(const struct ptm_plan *plan, const char *path, char *buf, size_t len)
{
    const char *base = plan->base_dir ? plan->base_dir : ".";
    bool rel = path[0] != '/' && strcmp(base, ".") != 0;
    snprintf(buf, len, rel ? "%s/%s" : "%.0s%s", base, path);
}

/* " (cols(X))": a size's expression, unless it is a bare number. */
static void size_text(const struct prog *p, char *buf, size_t len)
{
    double v;
    buf[0] = '\0';
    if (p->text && p->text[0] && !prog_is_const(p, &v))
        snprintf(buf, len, " (%s)", p->text);
}

int rt_read_param_file(const struct ptm_plan *plan, int32_t p, int64_t rows, int64_t cols,
                       int64_t lo, int64_t hi, const char *at, struct ptm_data_diags *dg,
                       struct ptm_values *out)
{
    const struct plan_param *pp = &plan->params[p];
    char path[4096];
    rt_plan_path(plan, pp->init_path, path, sizeof(path));
    struct ptm_values_opts o = {
        .integer = pp->integer, .lo = lo, .hi = hi, .cols = cols > 0 ? cols : 0};
    int rc = ptm_data_read_values(path, NULL, &o, dg, out);
    if (rc != 0)
        return rc;
    /* the shape, at the declaration when the job says where it is */
    char msg[8192], what[1024];
    const char *where = at ? at : path;
    if (rows >= 0 && out->rows != rows) {
        size_text(&pp->dims[0], what, sizeof(what));
        snprintf(msg, sizeof(msg), "%s: error: '%s' holds %lld row%s, %s needs %lld%s", where,
                 pp->init_path, (long long)out->rows, out->rows == 1 ? "" : "s", pp->name,
                 (long long)rows, what);
        rt_diags_from_text(dg, msg);
        rc = PTM_EDATA;
    }
    if (cols >= 0 && out->rows > 0 && out->cols != cols) {
        if (pp->matrix)
            size_text(&pp->dims[1], what, sizeof(what));
        else
            snprintf(what, sizeof(what), " (a vector: a value a line)");
        snprintf(msg, sizeof(msg), "%s: error: '%s' holds %lld column%s, %s needs %lld%s", where,
                 pp->init_path, (long long)out->cols, out->cols == 1 ? "" : "s", pp->name,
                 (long long)cols, what);
        rt_diags_from_text(dg, msg);
        rc = PTM_EDATA;
    }
    if (rc != 0) {
        ptm_free(out->val);
        memset(out, 0, sizeof(*out));
    }
    return rc;
}

/* Initial values from the parameter's file: under MPI a sharded
 * parameter's rank reads the rows of its own, the others every row. */
static int init_from_file(struct ptm_run *run, int32_t p, struct ptm_data_diags *dg)
{
    struct rt_param *t = &run->params[p];
    const char *const *at = run->opts.param_at;
    int64_t lo = t->shard_like >= 0 ? run->row0 : 0;
    int64_t hi = t->shard_like >= 0 ? run->row0 + run->nrows : t->rows;
    struct ptm_values v;
    int rc = rt_read_param_file(run->plan, p, t->rows, t->cols, lo, hi, at ? at[p] : NULL, dg, &v);
    if (rc != 0)
        return rc;
    for (int64_t e = lo * t->cols; e < hi * t->cols; e++) {
        double *slot = param_slot(run, p, e);
        if (slot)
            *slot = v.val[e - lo * t->cols];
    }
    ptm_free(v.val);
    return 0;
}

bool rt_data_drop_entries(struct ptm_run *run, int32_t k)
{
    const struct ptm_plan *plan = run->plan;
    struct ptm_dataset *ds = run->data[k];
    if (!ds || !ds->sparse || ds->csc || rt_sched_reads_entries(plan))
        return false;
    for (uint32_t q = 0; q < plan->nmetrics; q++)
        if (plan->metrics[q].data == k)
            return false;
    for (int p = 0; p < run->P; p++)
        if (run->w[p].shard[k].own_csc)
            return false; /* a rule by rows reads them */
    for (int p = 0; p < run->P; p++) {
        run->w[p].shard[k].csr.colind = NULL;
        run->w[p].shard[k].csr.val = NULL;
    }
    if (k == run->rowdata) { /* count_sweep_units() reads their sum */
        run->dropped = true;
        run->dropped_sum = 0;
        for (int64_t e = 0; e < ds->csr.nnz; e++)
            run->dropped_sum += ds->csr.val[e];
    }
    ptm_free(ds->csr.colind);
    ptm_free(ds->csr.val);
    ds->csr.colind = NULL;
    ds->csr.val = NULL;
    return true;
}

/* What a block costs the policy and the engine beyond the parameter
 * tables, measured with ptm run and ptm plan on 10^8 blocks of one
 * coefficient (peak resident memory): 87 bytes under dynamic (its sampling
 * tree, permutation, stamps and active queues), 38 under round_robin and 46
 * under random (the engine's arrays of every block and variable). */
#define BLOCK_BYTES_DYNAMIC 88.0
#define BLOCK_BYTES 48.0
/* Without --memory-limit a job takes at most CLAIM_FLOOR, or CLAIM_RATIO
 * times the bytes of its data files when that is more. */
#define CLAIM_FLOOR (1024.0 * 1024 * 1024)
#define CLAIM_RATIO 1024

void ptm_mem_add(struct ptm_mem *m, double bytes, const char *fmt, ...)
{
    m->total += bytes;
    if (bytes > m->most) {
        m->most = bytes;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->big, sizeof(m->big), fmt, ap);
        va_end(ap);
    }
}

void ptm_mem_param(struct ptm_mem *m, const struct ptm_plan *plan, int32_t p, double rows,
                   double cols, double count, double own)
{
    const struct plan_param *pp = &plan->params[p];
    int32_t over = plan->schedule.over;
    bool sched = over >= 0 && (uint32_t)over < plan->nblocksets &&
                 plan->blocksets[over].param == p;
    /* the scheduled one's last changes, which a rotation does not keep
     * (make_blocks; unless its schedule reads delta(), rare enough for a
     * floor) */
    bool twice = sched && plan->schedule.policy != PLAN_POLICY_ROTATION;
    if (own >= 0)
        ptm_mem_add(m, own, "parameter '%s': %.0f x %.0f values, as the update's counts",
                    pp->name, rows, cols);
    else
        ptm_mem_add(m, rows * cols * sizeof(double) * (twice ? 2 : 1),
                    "parameter '%s': %.0f x %.0f values%s", pp->name, rows, cols,
                    twice ? " and their changes" : "");
    if (!sched || plan->schedule.policy == PLAN_POLICY_DATA_PARALLEL || !(count >= 1))
        return;
    /* the blocks as make_blocks cuts them */
    const struct plan_blockset *bs = &plan->blocksets[over];
    double units = bs->axis == PLAN_AXIS_ELEMS ? rows * cols
                   : bs->axis == PLAN_AXIS_ROWS ? rows
                                                : cols,
           nb = bs->into ? count : ceil(units / count);
    bool dyn = plan->schedule.policy == PLAN_POLICY_DYNAMIC;
    ptm_mem_add(m, nb * (dyn ? BLOCK_BYTES_DYNAMIC : BLOCK_BYTES),
                "the %s schedule's state of %.0f blocks", dyn ? "dynamic" : "fixed", nb);
}

double ptm_mem_claim_cap(double data_bytes)
{
    return data_bytes * CLAIM_RATIO > CLAIM_FLOOR ? data_bytes * CLAIM_RATIO : CLAIM_FLOOR;
}

/* The memory plan: after the data is read and before anything is sized
 * by it, what the parameter tables (a sharded one this rank's rows; the
 * scheduled one twice, for the changes kept of it, but under rotation),
 * the schedule's state of its blocks and the column indexes of the sparse
 * data will take on this process, against --memory-limit or the memory the machine has
 * available. Over it, the run is refused with the estimate and its
 * largest part. Without --memory-limit, a job whose data files are small
 * may not claim much more (ptm_mem_claim_cap: a 15-byte libsvm row can
 * name column 10^8). The kernels' own state comes on top: this is a
 * floor, not a bound. */
static int memory_plan(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    struct ptm_mem m = {0};
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct plan_param *pp = &plan->params[p];
        int64_t rows, cols = 1, count = -1;
        char what[256];
        snprintf(what, sizeof(what), "the size of parameter '%s'", pp->name);
        int rc = eval_size(run, &pp->dims[0], 1, what, &rows, err, errlen);
        if (rc == 0 && pp->matrix)
            rc = eval_size(run, &pp->dims[1], 1, what, &cols, err, errlen);
        int32_t over = plan->schedule.over;
        if (rc == 0 && over >= 0 && (uint32_t)over < plan->nblocksets &&
            plan->blocksets[over].param == (int32_t)p &&
            plan->schedule.policy != PLAN_POLICY_DATA_PARALLEL) {
            snprintf(what, sizeof(what), "the block count of '%s'", plan->blocksets[over].name);
            rc = eval_size(run, &plan->blocksets[over].count, 1, what, &count, err, errlen);
        }
        if (rc != 0)
            return rc;
        if (pp->shard_like >= 0 && pp->shard_like == run->rowdata && rows == run->grows)
            rows = run->nrows; /* this rank's rows */
        double own = run->nranks == 1 && run->opts.outputs_only && run->model &&
                             run->model->table_bytes
                         ? run->model->table_bytes(plan, (int32_t)p, (double)rows,
                                                   (double)cols, run->data)
                         : -1;
        ptm_mem_param(&m, plan, (int32_t)p, (double)rows, (double)cols, (double)count, own);
    }
    /* the column index of a sparse matrix (every worker's, for a rule by
     * rows), whatever its content: its size follows the columns it claims */
    for (uint32_t k = 0; k < plan->ndata; k++) {
        const struct ptm_dataset *ds = run->data[k];
        if (!ds || !ds->sparse || plan->data[k].labels_of >= 0)
            continue;
        bool per_worker = run->rule && run->rule->kind == RT_MODEL && !run->split &&
                          (int32_t)k == run->rowdata;
        ptm_mem_add(&m, (per_worker ? run->P : 1) * ((double)ds->csr.ncols + 1) * sizeof(int64_t),
                    "the column index of '%s': %lld columns%s", plan->data[k].name,
                    (long long)ds->csr.ncols, per_worker ? ", one a worker" : "");
    }
    double total = m.total, most = m.most;
    const char *big = m.big;
    char need[32], part[32], have[32];
    if (!run->opts.memory_limit) {
        /* sizes claimed against content: without --memory-limit a job
         * takes at most CLAIM_FLOOR, or CLAIM_RATIO times the bytes of its
         * data files when that is more */
        double bytes = 0;
        for (uint32_t k = 0; k < plan->ndata; k++) {
            struct stat st;
            char path[4096];
            const char *files[2] = {plan->data[k].path, plan->data[k].vocab};
            for (int f = 0; f < 2; f++) {
                if (!files[f] || plan->data[k].format == PLAN_FORMAT_LABELS)
                    continue;
                rt_plan_path(plan, files[f], path, sizeof(path));
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                    bytes += (double)st.st_size;
            }
        }
        if (total > ptm_mem_claim_cap(bytes)) {
            char data[32];
            ptm_human_bytes(total, need, sizeof(need));
            ptm_human_bytes(most, part, sizeof(part));
            ptm_human_bytes(bytes, data, sizeof(data));
            snprintf(err, errlen,
                     "the job needs %s (the largest part, %s, %s) from %s of data files, more "
                     "than ptm takes without --memory-limit (1 GiB, or %d times the data): give "
                     "--memory-limit SIZE to allow it",
                     need, big, part, data, CLAIM_RATIO);
            return PTM_EINVAL;
        }
    }
    uint64_t limit = run->opts.memory_limit ? run->opts.memory_limit : ptm_mem_available();
    if (limit == 0 || total <= (double)limit)
        return 0;
    ptm_human_bytes(total, need, sizeof(need));
    ptm_human_bytes(most, part, sizeof(part));
    ptm_human_bytes((double)limit, have, sizeof(have));
    snprintf(err, errlen,
             "the job needs %s (the largest part, %s, %s), more than the %s %s: give "
             "--memory-limit SIZE to allow more",
             need, big, part, have,
             run->opts.memory_limit ? "--memory-limit allows" : "this machine has available");
    return PTM_EINVAL;
}

static int make_params(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    run->params = rt_zalloc(plan->nparams, sizeof(*run->params));
    if (!run->params)
        return PTM_ENOMEM;
    for (uint32_t p = 0; p < plan->nparams; p++) {
        const struct plan_param *pp = &plan->params[p];
        struct rt_param *t = &run->params[p];
        char what[256];
        t->pp = pp;
        t->shard_like = pp->shard_like;
        snprintf(what, sizeof(what), "the size of parameter '%s'", pp->name);
        int rc = eval_size(run, &pp->dims[0], 1, what, &t->rows, err, errlen);
        if (rc == 0 && pp->matrix)
            rc = eval_size(run, &pp->dims[1], 1, what, &t->cols, err, errlen);
        else
            t->cols = 1;
        if (rc != 0)
            return rc;
        if (t->rows > ((int64_t)1 << 40) / t->cols) {
            snprintf(err, errlen, "parameter '%s' has %lld x %lld elements: too many", pp->name,
                     (long long)t->rows, (long long)t->cols);
            return PTM_EINVAL;
        }
        t->len = t->rows * t->cols;
        if (t->shard_like >= 0) {
            if (t->shard_like != run->rowdata || t->rows != run->grows) {
                snprintf(err, errlen,
                         "parameter '%s' is sharded like '%s', which must be the data "
                         "sharded by rows and have as many rows (%lld)",
                         pp->name, plan->data[t->shard_like].name, (long long)t->rows);
                return PTM_EINVAL;
            }
        }
        if (t->shard_like >= 0 && !run->split) {
            for (int q = 0; q < run->P; q++) {
                struct rt_worker *w = &run->w[q];
                w->local[p] = rt_zalloc((size_t)((w->hi - w->lo) * t->cols), sizeof(double));
                if (!w->local[p])
                    return PTM_ENOMEM;
            }
        } else {
            int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            t->val = rt_zalloc((size_t)held, sizeof(double));
            if (!t->val)
                return PTM_ENOMEM;
        }
        /* initial values, element by element in global order, so that they
         * depend neither on the number of workers nor on that of ranks */
        if (pp->init == PLAN_INIT_FILE) {
            if ((rc = init_from_file(run, (int32_t)p, dg)) != 0)
                return rc;
        } else if (pp->init == PLAN_INIT_DATA) {
            /* labels are the rank's own rows when their data is sharded */
            const struct ptm_vec *v = init_vector(run, pp->init_data);
            int64_t want = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            int64_t off = t->shard_like >= 0 ? run->row0 * t->cols : 0;
            if (!v || v->n != want) {
                snprintf(err, errlen,
                         "parameter '%s': its initial data must be a vector of %lld "
                         "values",
                         pp->name, (long long)t->len);
                return PTM_EINVAL;
            }
            for (int64_t e = 0; e < t->len; e++) {
                double *slot = param_slot(run, (int32_t)p, e);
                if (slot)
                    *slot = v->val[e - off];
            }
        } else if (pp->init == PLAN_INIT_RANDOM) {
            struct ptm_rng g;
            ptm_rng_seed(&g, run->seed ^ (0x706172616d000000ull + p)); /* "param" streams */
            for (int64_t e = 0; e < t->len; e++) {
                double x = pp->init_value * (2 * ptm_rng_uniform(&g) - 1), *slot;
                if ((slot = param_slot(run, (int32_t)p, e)))
                    *slot = x;
            }
        } else if (pp->init_value != 0) {
            for (int64_t e = 0; e < t->len; e++) {
                double *slot = param_slot(run, (int32_t)p, e);
                if (slot)
                    *slot = pp->init_value;
            }
        }
    }
    return 0;
}

/* The units (elements, rows or columns) block b of the scheduled block set
 * covers: [*u0, *u1). */
static void block_units(const struct ptm_run *run, int64_t b, int64_t *u0, int64_t *u1)
{
    const struct rt_param *t = &run->params[run->sparam];
    int64_t units = run->bs->axis == PLAN_AXIS_ELEMS ? t->len
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->rows
                                                       : t->cols;
    if (run->bs->into) {
        /* nblocks nearly equal blocks, the first units mod nblocks one longer */
        int64_t q = units / run->nblocks, r = units % run->nblocks;
        *u0 = b * q + (b < r ? b : r);
        *u1 = *u0 + q + (b < r);
    } else {
        *u0 = b * run->bsize;
        *u1 = *u0 + run->bsize < units ? *u0 + run->bsize : units;
    }
}

/* The blocks of the scheduled block set. */
static int make_blocks(struct ptm_run *run, char *err, size_t errlen)
{
    const struct ptm_plan *plan = run->plan;
    int32_t over = plan->schedule.over;
    if (plan->schedule.policy == PLAN_POLICY_DATA_PARALLEL)
        return 0;
    if (over < 0 || (uint32_t)over >= plan->nblocksets) {
        snprintf(err, errlen, "the schedule has no block set");
        return PTM_EINVAL;
    }
    run->bs = &plan->blocksets[over];
    run->sparam = run->bs->param;
    const struct rt_param *t = &run->params[run->sparam];
    if (!t->val) {
        snprintf(err, errlen,
                 "blocks '%s' are of parameter '%s', which is sharded: a model-parallel "
                 "schedule updates a parameter with one copy",
                 run->bs->name, t->pp->name);
        return PTM_EINVAL;
    }
    int64_t units = run->bs->axis == PLAN_AXIS_ELEMS ? t->len
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->rows
                                                       : t->cols;
    int64_t count;
    char what[256];
    snprintf(what, sizeof(what), "the block count of '%s'", run->bs->name);
    int rc = eval_size(run, &run->bs->count, 1, what, &count, err, errlen);
    if (rc != 0)
        return rc;
    if (run->bs->into) {
        if (count > units) {
            snprintf(err, errlen, "blocks '%s': %lld blocks of %lld %s", run->bs->name,
                     (long long)count, (long long)units,
                     run->bs->axis == PLAN_AXIS_ELEMS ? "elements" : "rows or columns");
            return PTM_EINVAL;
        }
        run->nblocks = count;
        run->bsize = (units + count - 1) / count;
    } else {
        run->bsize = count < units ? count : units;
        run->nblocks = (units + run->bsize - 1) / run->bsize;
    }
    int64_t width = run->bs->axis == PLAN_AXIS_ELEMS ? 1
                    : run->bs->axis == PLAN_AXIS_ROWS ? t->cols
                                                       : t->rows;
    run->bvars = run->bsize * width; /* the most variables a block has */
    /* A rotation commits no changes: its last changes are kept only when
     * the schedule reads them (rt_make_schedule() allocates them then). */
    if (run->rule && run->rule->kind == RT_ROTATION && !run->split)
        return 0;
    run->last_delta = rt_zalloc((size_t)t->len, sizeof(double));
    return run->last_delta ? 0 : PTM_ENOMEM;
}

/* Fill rd->off and rd->vars from rd->blocks. */
static void expand_round(const struct ptm_run *run, struct rt_round *rd)
{
    const struct rt_param *t = &run->params[run->sparam];
    int64_t *restrict off = rd->off, *restrict vars = rd->vars;
    const int64_t *restrict blocks = rd->blocks;
    size_t v = 0;
    if (run->bs->axis == PLAN_AXIS_ELEMS && !run->bs->into && run->bsize == 1) {
        /* a block a variable: the round's variables are its blocks */
        for (size_t i = 0; i < rd->n; i++)
            off[i] = (int64_t)i;
        memcpy(vars, blocks, rd->n * sizeof(int64_t));
        v = rd->n;
    } else {
        for (size_t i = 0; i < rd->n; i++) {
            int64_t u0, u1;
            block_units(run, blocks[i], &u0, &u1);
            off[i] = (int64_t)v;
            switch (run->bs->axis) {
            case PLAN_AXIS_ELEMS:
                for (int64_t u = u0; u < u1; u++)
                    vars[v++] = u;
                break;
            case PLAN_AXIS_ROWS:
                for (int64_t e = u0 * t->cols; e < u1 * t->cols; e++)
                    vars[v++] = e;
                break;
            case PLAN_AXIS_COLS:
                for (int64_t r = 0; r < t->rows; r++)
                    for (int64_t u = u0; u < u1; u++)
                        vars[v++] = r * t->cols + u;
                break;
            }
        }
    }
    off[rd->n] = (int64_t)v;
    rd->nvars = v;
}

int rt_make_tables(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    run->data = rt_zalloc(run->plan->ndata, sizeof(*run->data));
    if (!run->data)
        return PTM_ENOMEM;
    int rc = load_data(run, dg);
    if (rc == 0 && (rc = choose_rows(run, err, errlen)) == PTM_EDATA) {
        rt_diags_from_text(dg, err); /* the data's rows, seen by all ranks */
        err[0] = '\0';
    }
    if (rc != 0)
        return rc;
    if ((rc = memory_plan(run, err, errlen)) != 0)
        return rc;
    run->w = rt_zalloc((size_t)run->P, sizeof(*run->w));
    if (!run->w)
        return PTM_ENOMEM;
    if ((rc = make_shards(run, err, errlen)) != 0 || (rc = make_params(run, dg, err, errlen)) != 0)
        return rc;
    return make_blocks(run, err, errlen);
}

int rt_setup_tables(struct ptm_run *run, struct ptm_data_diags *dg, char *err, size_t errlen)
{
    run->split = true; /* one copy of every parameter, no shards */
    run->data = rt_zalloc(run->plan->ndata, sizeof(*run->data));
    if (!run->data)
        return PTM_ENOMEM;
    int rc = load_data(run, dg);
    if (rc == 0)
        rc = choose_rows(run, err, errlen);
    if (rc == 0)
        rc = memory_plan(run, err, errlen);
    if (rc == 0)
        rc = make_params(run, dg, err, errlen);
    if (rc == 0)
        rc = make_blocks(run, err, errlen);
    return rc;
}

void rt_expand_round(const struct ptm_run *run, struct rt_round *rd)
{
    expand_round(run, rd);
}

void rt_block_units(const struct ptm_run *run, int64_t b, int64_t *u0, int64_t *u1)
{
    block_units(run, b, u0, u1);
}

/* rows(D) and cols(D) of the data sets as `ptm check --data` reads them. */
static double check_dim_cb(void *ud, int32_t k, int axis)
{
    const struct ptm_plan *plan = ((const struct check_dims *)ud)->plan;
    struct ptm_dataset *const *data = ((const struct check_dims *)ud)->data;
    if (k < 0 || (uint32_t)k >= plan->ndata)
        return NAN;
    int32_t owner = plan->data[k].labels_of >= 0 ? plan->data[k].labels_of : k;
    if (owner < 0 || (uint32_t)owner >= plan->ndata || !data[owner])
        return NAN;
    if (plan->data[k].labels_of >= 0)
        return axis == 0 ? (double)ptm_dataset_rows(data[owner]) : 1;
    return (double)(axis == 0 ? ptm_dataset_rows(data[owner]) : ptm_dataset_cols(data[owner]));
}

void ptm_check_param_size(const struct ptm_plan *plan, int32_t p, struct ptm_dataset *const *data,
                          double dims[2])
{
    const struct plan_param *pp = &plan->params[p];
    struct check_dims cd = {plan, data};
    double g[PROG_NGLOBALS];
    for (int i = 0; i < PROG_NGLOBALS; i++)
        g[i] = NAN; /* `workers` is known only when the job runs */
    struct prog_env env = {.globals = g, .ud = &cd, .dim = check_dim_cb};
    dims[0] = prog_eval(&pp->dims[0], &env);
    dims[1] = pp->matrix ? prog_eval(&pp->dims[1], &env) : 1;
}

int ptm_check_param_file(const struct ptm_plan *plan, int32_t p, struct ptm_dataset *const *data,
                         const char *at, struct ptm_data_diags *dg, int64_t *rows, int64_t *cols)
{
    const struct plan_param *pp = &plan->params[p];
    struct check_dims cd = {plan, data};
    /* a size that reads `workers` is known only when the job runs: NaN */
    double g[PROG_NGLOBALS];
    for (int i = 0; i < PROG_NGLOBALS; i++)
        g[i] = NAN;
    struct prog_env env = {.globals = g, .ud = &cd, .dim = check_dim_cb};
    int64_t want[2] = {-1, 1};
    for (int k = 0; k < (pp->matrix ? 2 : 1); k++) {
        double v = prog_eval(&pp->dims[k], &env);
        want[k] = v >= 1 && v <= (double)PTM_DATA_DIM_MAX && v == floor(v) ? (int64_t)v : -1;
    }
    struct ptm_values vals;
    int rc = rt_read_param_file(plan, p, want[0], want[1], 0, 0, at, dg, &vals);
    *rows = vals.rows;
    *cols = vals.cols;
    ptm_free(vals.val);
    return rc;
}
