/*
 * report_read.c - what the report of a run reads from its trace beside
 * struct ptm_trace (report.h): each round's seconds, updates, objective,
 * metrics and damping, and the run's end, the last line
 * {"stopped": WHY, "rounds": R, "sweeps": S, "seconds": T, "updates": U,
 *  "objective": F, "job": FILE} (spec/runtime.md, Outputs).
 *
 * DESIGN: the trace was read by ptm_trace_read() first, which checks it
 * and locates its errors; this second pass takes the members that reader
 * does not keep, one line at a time with jansson (Debian's libjansson, a
 * JSON parser that locates its errors by line and column), and holds a
 * few numbers a round, never a round's blocks. Members of the wrong type
 * are errors here too; members it does not know are skipped.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "arena.h"
#include "plan.h"
#include "ptm.h"
#include "report.h"

/* Reallocate the array at *pp to n elements of size bytes. */
static int resize(void *pp, size_t n, size_t size)
{
    if (n > SIZE_MAX / size)
        return PTM_ENOMEM;
    void *p = ptm_realloc(*(void **)pp, n * size);
    if (!p)
        return PTM_ENOMEM;
    *(void **)pp = p;
    return 0;
}

/* The next capacity of an array of cap elements that must hold n. */
static size_t next_cap(size_t cap, size_t n)
{
    size_t c = cap ? cap : 64;
    while (c < n)
        c *= 2;
    return c;
}

void ptm_report_free(struct ptm_report *r)
{
    if (!r)
        return;
    ptm_free(r->round);
    ptm_free(r->seconds);
    ptm_free(r->updates);
    ptm_free(r->objective);
    for (size_t k = 0; k < r->nmetrics; k++)
        ptm_free(r->metric[k]);
    ptm_free(r->metric);
    ptm_free(r->mround);
    ptm_free(r->mindex);
    ptm_free(r->mvalue);
    ptm_free(r->stopped);
    ptm_free(r->job);
    ptm_free(r);
}

struct reader {
    struct ptm_report *r;
    size_t cap_rounds, cap_metrics, cap_mvalues;
    double updates; /* so far */
    bool no_updates;
    const char *name;
    char *err;
    size_t errlen;
    int64_t line;
};

static int bad(struct reader *rd, int col, const char *fmt, const char *what)
{
    char msg[256];
    snprintf(msg, sizeof(msg), fmt, what);
    if (col > 0)
        snprintf(rd->err, rd->errlen, "%s:%lld:%d: error: %s", rd->name, (long long)rd->line, col,
                 msg);
    else
        snprintf(rd->err, rd->errlen, "%s:%lld: error: %s", rd->name, (long long)rd->line, msg);
    return PTM_EDATA;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ptm_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* A number member, or NaN when absent; *rc PTM_EDATA when not a number
 * (null counts as NaN where nullable). */
static double num(struct reader *rd, json_t *o, const char *key, bool nullable, int *rc)
{
    json_t *v = json_object_get(o, key);
    if (!v || (nullable && json_is_null(v)))
        return NAN;
    if (!json_is_number(v)) {
        *rc = bad(rd, 0, "'%s' is not a number", key);
        return NAN;
    }
    return json_number_value(v);
}

static int metric_index(struct reader *rd, const char *name, size_t *k)
{
    struct ptm_report *r = rd->r;
    for (*k = 0; *k < r->nmetrics; (*k)++)
        if (strcmp(r->metric[*k], name) == 0)
            return 0;
    if (r->nmetrics == rd->cap_metrics) {
        size_t c = next_cap(rd->cap_metrics, r->nmetrics + 1);
        if (resize(&r->metric, c, sizeof(char *)) != 0)
            return PTM_ENOMEM;
        rd->cap_metrics = c;
    }
    if (!(r->metric[r->nmetrics] = dup_str(name)))
        return PTM_ENOMEM;
    *k = r->nmetrics++;
    return 0;
}

static int round_line(struct reader *rd, json_t *o)
{
    struct ptm_report *r = rd->r;
    int rc = 0;
    json_t *rv = json_object_get(o, "round");
    if (!json_is_number(rv))
        return bad(rd, 0, "'%s' is not a number", "round");
    size_t i = r->nrounds;
    if (i == rd->cap_rounds) {
        size_t c = next_cap(rd->cap_rounds, i + 1);
        if (resize(&r->round, c, sizeof(int64_t)) != 0 ||
            resize(&r->seconds, c, sizeof(double)) != 0 ||
            resize(&r->updates, c, sizeof(double)) != 0 ||
            resize(&r->objective, c, sizeof(double)) != 0)
            return PTM_ENOMEM;
        rd->cap_rounds = c;
    }
    r->round[i] = (int64_t)json_number_value(rv);
    r->seconds[i] = num(rd, o, "seconds", false, &rc);
    r->objective[i] = num(rd, o, "objective", false, &rc);
    double u = num(rd, o, "updates", false, &rc);
    if (isnan(u)) {
        /* an older trace: the round's blocks */
        json_t *b = json_object_get(o, "blocks");
        if (json_is_array(b))
            u = (double)json_array_size(b);
        else
            rd->no_updates = true;
    }
    rd->updates += u;
    r->updates[i] = rd->no_updates ? NAN : rd->updates;
    if (json_object_get(o, "step"))
        r->damped++;
    double off = num(rd, o, "offer", false, &rc);
    if (!isnan(off)) {
        if (!(off >= 1 && off <= 1e15 && off == floor(off)))
            return bad(rd, 0, "'%s' is not a number of blocks", "offer");
        r->offered++;
        if (r->offer_min == 0 || (int64_t)off < r->offer_min)
            r->offer_min = (int64_t)off;
    }
    if (rc != 0)
        return rc;
    r->nrounds++;
    json_t *m = json_object_get(o, "metrics");
    if (!m)
        return 0;
    if (!json_is_object(m))
        return bad(rd, 0, "'%s' is not an object", "metrics");
    const char *key;
    json_t *v;
    json_object_foreach(m, key, v)
    {
        if (!json_is_number(v) && !json_is_null(v))
            return bad(rd, 0, "the metric '%s' is not a number or null", key);
        size_t k, n = r->nmvalues;
        if ((rc = metric_index(rd, key, &k)) != 0)
            return rc;
        if (n == rd->cap_mvalues) {
            size_t c = next_cap(rd->cap_mvalues, n + 1);
            if (resize(&r->mround, c, sizeof(size_t)) != 0 ||
                resize(&r->mindex, c, sizeof(size_t)) != 0 ||
                resize(&r->mvalue, c, sizeof(double)) != 0)
                return PTM_ENOMEM;
            rd->cap_mvalues = c;
        }
        r->mround[n] = i;
        r->mindex[n] = k;
        r->mvalue[n] = json_is_null(v) ? NAN : json_number_value(v);
        r->nmvalues++;
    }
    return 0;
}

static int end_line(struct reader *rd, json_t *o)
{
    struct ptm_report *r = rd->r;
    int rc = 0;
    json_t *s = json_object_get(o, "stopped"), *job = json_object_get(o, "job");
    if (!json_is_string(s))
        return bad(rd, 0, "'%s' is not a string", "stopped");
    if (job && !json_is_string(job))
        return bad(rd, 0, "'%s' is not a string", "job");
    double rounds = num(rd, o, "rounds", false, &rc), sweeps = num(rd, o, "sweeps", false, &rc);
    r->end_seconds = num(rd, o, "seconds", false, &rc);
    r->end_updates = num(rd, o, "updates", false, &rc);
    r->end_objective = num(rd, o, "objective", false, &rc);
    if (rc != 0)
        return rc;
    r->end_rounds = isnan(rounds) ? -1 : (int64_t)rounds;
    r->end_sweeps = isnan(sweeps) ? -1 : (int64_t)sweeps;
    ptm_free(r->stopped);
    ptm_free(r->job);
    r->job = NULL;
    if (!(r->stopped = dup_str(json_string_value(s))))
        return PTM_ENOMEM;
    if (job && !(r->job = dup_str(json_string_value(job))))
        return PTM_ENOMEM;
    r->ended = true;
    return 0;
}

int ptm_report_read(FILE *f, const char *name, char *err, size_t errlen, struct ptm_report **out)
{
    *out = NULL;
    err[0] = '\0';
    struct ptm_report *r = ptm_malloc(sizeof(*r));
    if (!r)
        return PTM_ENOMEM;
    memset(r, 0, sizeof(*r));
    r->end_rounds = r->end_sweeps = -1;
    r->end_seconds = r->end_updates = r->end_objective = NAN;
    struct reader rd = {.r = r, .name = name, .err = err, .errlen = errlen};
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    errno = 0;
    while (rc == 0 && (len = getline(&buf, &cap, f)) >= 0) {
        rd.line++;
        size_t at = 0;
        if (rd.line == 1 && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
            at = 3; /* a UTF-8 byte order mark */
        size_t k = at;
        while (k < (size_t)len && strchr(" \t\r\n", buf[k]))
            k++;
        if (k == (size_t)len)
            continue;
        json_error_t je;
        json_t *o = json_loadb(buf + at, (size_t)len - at, 0, &je);
        if (!o) {
            rc = bad(&rd, je.column > 0 ? je.column + (int)at : 0, "%s", je.text);
            break;
        }
        if (!json_is_object(o))
            rc = bad(&rd, 0, "%s", "not a JSON object: a trace has one object a line");
        else if (json_object_get(o, "round"))
            rc = round_line(&rd, o);
        else if (json_object_get(o, "stopped"))
            rc = end_line(&rd, o);
        else
            rc = bad(&rd, 0, "%s", "this line has neither 'round' nor 'stopped'");
        json_decref(o);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", name, strerror(errno ? errno : EIO));
        rc = PTM_EIO;
    }
    free(buf);
    if (rc != 0) {
        if (rc == PTM_ENOMEM && !err[0])
            snprintf(err, errlen, "%s", ptm_strerror(rc));
        ptm_report_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
