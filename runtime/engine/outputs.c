/*
 * outputs.c - what a run writes (spec/runtime.md, Outputs): the trace,
 * one JSON object a round (ptm run --trace), and the parameter tables,
 * TSV files the plan's outputs name, each written through a temporary
 * file renamed into place; and a parameter's committed values gathered
 * from the workers' shards (ptm_run_param()).
 *
 * Under Open MPI every rank calls ptm_run_write_outputs(): a parameter
 * sharded by rows is gathered to rank 0, which alone writes (`ptm run`
 * gives only rank 0 a trace). A model that writes more beside a table
 * (LDA's top words) does it through its struct ptm_model
 * (runtime/models/model.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "comm.h"
#include "engine_impl.h"
#include "model.h"
#include "ptm.h"
#include "wfile.h"

/* The blocks b[0 .. n), 1-based, as a JSON array. */
static void json_blocks(FILE *t, const int64_t *b, size_t n)
{
    /* by hand, a chunk at a time: printf's number formatting made the
     * trace cost more than a small round */
    char buf[4096];
    size_t at = 0;
    buf[at++] = '[';
    for (size_t k = 0; k < n; k++) {
        char tmp[24];
        int len = 0;
        uint64_t v = (uint64_t)b[k] + 1;
        do {
            tmp[len++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        if (at + (size_t)len + 3 > sizeof(buf)) {
            fwrite(buf, 1, at, t);
            at = 0;
        }
        if (k) {
            buf[at++] = ',';
            buf[at++] = ' ';
        }
        while (len)
            buf[at++] = tmp[--len];
    }
    buf[at++] = ']';
    fwrite(buf, 1, at, t);
}

/* One JSON object for the round just run (spec/runtime.md, Outputs); the
 * workers' busy seconds restart. The blocks, the round's and each
 * worker's, only with opts.trace_blocks (ptm run --trace-blocks): they are
 * most of a trace's bytes.
 *
 * Written with fprintf and the blocks by hand rather than through jansson
 * (which reads traces, viz/trace_read.c): building a jansson value a
 * number and dumping it took about 6 times the CPU of this writer on a
 * Lasso run with --trace-blocks (bench/RESULTS.md, "Reading and writing
 * traces"). */
int rt_trace_round(FILE *t, struct ptm_run *run, const struct rt_round *rd, int64_t updates,
                   bool evaluated)
{
    bool blocks = run->opts.trace_blocks;
    fprintf(t, "{\"round\": %lld, \"seconds\": %.6f", (long long)run->round, run->seconds);
    if (blocks) {
        fputs(", \"blocks\": ", t);
        json_blocks(t, rd->blocks, rd->n);
    }
    fprintf(t,
            ", \"updates\": %lld, \"candidates\": %lld, \"conflicts\": %lld, "
            "\"evaluations\": %lld, \"schedule_seconds\": %.9f, \"work_seconds\": %.9f, "
            "\"combine_seconds\": %.9f, \"objective_seconds\": %.9f, \"workers\": [",
            (long long)updates, (long long)rd->candidates, (long long)rd->conflicts,
            (long long)rd->evaluations, run->sched_seconds, run->work_seconds,
            run->combine_seconds, run->objective_seconds);
    run->work_seconds = run->combine_seconds = run->objective_seconds = 0;
    for (int p = 0; p < run->P; p++) {
        fprintf(t, "%s{\"worker\": %d", p ? ", " : "", p + 1);
        if (blocks) {
            fputs(", \"blocks\": ", t);
            if (run->split || run->rule->kind == RT_ROTATION)
                json_blocks(t, rd->blocks + rd->part[p], rd->part[p + 1] - rd->part[p]);
            else
                json_blocks(t, rd->blocks, rd->n);
        }
        fprintf(t, ", \"seconds\": %.6f", run->w[p].busy);
        if (run->w[p].straggle) /* ptm run --straggler */
            fprintf(t, ", \"delay\": %.6f", rt_straggle_take(&run->w[p]));
        fputc('}', t);
        run->w[p].busy = 0;
    }
    fprintf(t, "]");
    if (evaluated)
        fprintf(t, ", \"objective\": %.17g", run->hist[run->nhist - 1]);
    if (evaluated && run->plan->nmetrics) {
        fprintf(t, ", \"metrics\": {");
        rt_metrics_print(run, t, true);
        fputc('}', t);
    }
    if (run->damps && run->step < 1)
        fprintf(t, ", \"step\": %.17g", run->step);
    if (run->offer > 0)
        fprintf(t, ", \"offer\": %lld", (long long)run->offer);
    const struct depgraph_info *g = NULL;
    if (run->round == 1 && run->has_depgraph)
        g = &run->depgraph_info;
    if (run->lazy && !run->lazy_told && (g = depgraph_lazy_built(run->lazy)) != NULL)
        run->lazy_told = true; /* in the round that built it */
    if (g) {
        fprintf(t,
                ", \"graph\": {\"edges\": %lld, \"pairs\": %lld, \"products\": %.0f, "
                "\"bytes\": %zu, \"seconds\": %.6f}",
                (long long)g->edges, (long long)g->evaluated, g->products, g->bytes, g->seconds);
    }
    fprintf(t, "}\n");
    return ferror(t) ? PTM_EIO : 0;
}

/* s as a JSON string: quotes, backslashes and control characters
 * escaped, other bytes as they are. */
static void json_string(FILE *t, const char *s)
{
    fputc('"', t);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(t, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", t);
        else if (*c < 0x20)
            fprintf(t, "\\u%04x", *c);
        else
            fputc(*c, t);
    }
    fputc('"', t);
}

int rt_trace_end(FILE *t, const struct ptm_run *run, const char *why, int64_t sweeps)
{
    fputs("{\"stopped\": ", t);
    json_string(t, why);
    fprintf(t, ", \"rounds\": %lld, \"sweeps\": %lld, \"seconds\": %.6f, \"updates\": %lld",
            (long long)run->round, (long long)sweeps, run->seconds, (long long)run->updates);
    if (run->nhist && isfinite(run->hist[run->nhist - 1]))
        fprintf(t, ", \"objective\": %.17g", run->hist[run->nhist - 1]);
    if (run->opts.job) {
        fputs(", \"job\": ", t);
        json_string(t, run->opts.job);
    }
    fputs("}\n", t);
    return ferror(t) ? PTM_EIO : 0;
}

/* Whether the rule gives the rows of param itself (rt_rule's rows_own). */
static bool rows_own(const struct ptm_run *run, int32_t param)
{
    return run->nranks == 1 && run->rule && run->rule->rows_own && run->rule->row &&
           run->rule->rows_own(run, param);
}

int64_t ptm_run_param(const struct ptm_run *run, int32_t param, double *out, int64_t cap)
{
    if (param < 0 || (uint32_t)param >= run->plan->nparams)
        return -1;
    const struct rt_param *t = &run->params[param];
    if (rows_own(run, param)) {
        for (int64_t i = 0; i < t->rows && (i + 1) * t->cols <= cap; i++)
            run->rule->row(run, param, i, out + i * t->cols);
        return t->len;
    }
    if (t->val) {
        /* a sharded parameter holds this rank's rows */
        int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
        memcpy(out, t->val, (size_t)(held < cap ? held : cap) * sizeof(double));
        return t->len;
    }
    int64_t at = 0;
    for (int p = 0; p < run->P; p++) {
        const struct rt_worker *w = &run->w[p];
        int64_t m = (w->hi - w->lo) * t->cols;
        for (int64_t i = 0; i < m && at < cap; i++)
            out[at++] = w->local[param][i];
    }
    return t->len;
}

/* Rows of cols values, a row a line, tab-separated. */
static void write_rows(FILE *f, const double *v, int64_t rows, int64_t cols)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            ptm_fput_num(f, v[i * cols + j], j + 1 < cols ? '\t' : '\n');
}

/* Write one parameter to path via a temporary file: a row a line, the
 * columns of a matrix separated by tabs. With several ranks every rank
 * calls it (a sharded parameter is gathered to rank 0) and rank 0 writes;
 * otherwise the values are written where they are, with no copy. */
static int write_tsv(const struct ptm_run *run, int32_t param, const char *path, char *err,
                     size_t errlen)
{
    const struct rt_param *t = &run->params[param];
    bool gather = run->nranks > 1 && t->shard_like >= 0;
    if (run->nranks > 1 && !gather && run->rank != 0)
        return 0;
    double *v = NULL;
    if (gather) {
        v = rt_zalloc((size_t)t->len, sizeof(double));
        double *mine = rt_zalloc((size_t)(run->nrows * t->cols), sizeof(double));
        if (!v || !mine) {
            ptm_free(v);
            ptm_free(mine);
            snprintf(err, errlen, "cannot write '%s': out of memory", path);
            return PTM_ENOMEM;
        }
        ptm_run_param(run, param, mine, run->nrows * t->cols);
        ptm_comm_gather(mine, run->nrows * t->cols, v);
        ptm_free(mine);
        if (run->rank != 0) {
            ptm_free(v);
            return 0;
        }
    }
    double *row = NULL;
    if (rows_own(run, param) && !(row = rt_zalloc((size_t)t->cols, sizeof(double)))) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return PTM_ENOMEM;
    }
    struct ptm_wfile w;
    int rc = ptm_wfile_open(&w, path);
    if (rc == 0) {
        if (row) { /* from the rule's state, a row at a time */
            for (int64_t i = 0; i < t->rows; i++) {
                run->rule->row(run, param, i, row);
                write_rows(w.f, row, 1, t->cols);
            }
        } else if (v || t->val) {
            write_rows(w.f, v ? v : t->val, t->rows, t->cols);
        } else {
            for (int p = 0; p < run->P; p++)
                write_rows(w.f, run->w[p].local[param], run->w[p].hi - run->w[p].lo, t->cols);
        }
        rc = ptm_wfile_commit(&w);
    } else {
        ptm_wfile_abort(&w);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot write '%s': %s", path,
                 rc == PTM_EIO && w.err ? strerror(w.err) : ptm_strerror(rc));
    ptm_free(v);
    ptm_free(row);
    return rc;
}

/* Count the values of v[0 .. n) that are not finite, element `base` of
 * the parameter first; the first such in *first and *at. */
static void count_bad(const double *v, int64_t n, int64_t base, int64_t *bad, int64_t *first,
                      double *at)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            if (*first < 0) {
                *first = base + i;
                *at = v[i];
            }
            (*bad)++;
        }
}

/* Every value an output would write is a finite number: else nothing is
 * written (a NaN from a hook, an update that diverged). Read where the
 * values are (ptm_run_param()'s order), with no copy. A collective call
 * under MPI (the count is summed over ranks). */
static int check_finite(const struct ptm_run *run, char *err, size_t errlen)
{
    for (uint32_t k = 0; k < run->plan->noutputs; k++) {
        int32_t param = run->plan->outputs[k].param;
        const struct rt_param *t = &run->params[param];
        int64_t bad = 0, first = -1;
        double at = 0;
        if (rows_own(run, param)) {
            double *row = rt_zalloc((size_t)t->cols, sizeof(double));
            if (!row) {
                snprintf(err, errlen, "out of memory");
                return PTM_ENOMEM;
            }
            for (int64_t i = 0; i < t->rows; i++) {
                run->rule->row(run, param, i, row);
                count_bad(row, t->cols, i * t->cols, &bad, &first, &at);
            }
            ptm_free(row);
        } else if (t->val) {
            /* a sharded parameter holds this rank's rows */
            int64_t held = t->shard_like >= 0 ? run->nrows * t->cols : t->len;
            count_bad(t->val, held, 0, &bad, &first, &at);
        } else {
            int64_t base = 0;
            for (int p = 0; p < run->P; p++) {
                const struct rt_worker *w = &run->w[p];
                int64_t m = (w->hi - w->lo) * t->cols;
                count_bad(w->local[param], m, base, &bad, &first, &at);
                base += m;
            }
        }
        int64_t total = run->nranks > 1 ? ptm_comm_sum_i64(bad) : bad;
        if (total == 0)
            continue;
        if (first >= 0 && run->nranks == 1)
            snprintf(err, errlen,
                     "%s holds %lld value%s that %s not finite (the first, %s, at row %lld, "
                     "column %lld): no outputs are written",
                     run->plan->params[param].name, (long long)total, total == 1 ? "" : "s",
                     total == 1 ? "is" : "are", isnan(at) ? "nan" : at > 0 ? "inf" : "-inf",
                     (long long)(first / t->cols + 1),
                     (long long)(first % t->cols + 1));
        else
            snprintf(err, errlen, "%s holds %lld value%s that %s not finite: no outputs are "
                                  "written",
                     run->plan->params[param].name, (long long)total, total == 1 ? "" : "s",
                     total == 1 ? "is" : "are");
        return PTM_EINVAL;
    }
    return 0;
}

int ptm_run_write_outputs(const struct ptm_run *run, char *err, size_t errlen)
{
    err[0] = '\0';
    if (run->failed) {
        snprintf(err, errlen, "the run failed: no outputs are written");
        return PTM_EINVAL;
    }
    int frc = check_finite(run, err, errlen);
    if (frc != 0)
        return frc;
    for (uint32_t k = 0; k < run->plan->noutputs; k++) {
        const struct plan_output *o = &run->plan->outputs[k];
        int rc = write_tsv(run, o->param, o->path, err, errlen);
        if (rc == 0 && run->model && run->model->write_output)
            rc = run->model->write_output(run, o, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}
