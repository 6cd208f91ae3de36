/*
 * trace_read.c - reading the trace of `ptm run --trace FILE` back into a
 * struct ptm_trace, so that a real run is drawn as a dry run is.
 *
 * The trace is JSON lines, one object a round (runtime/engine/outputs.c,
 * rt_trace_round()):
 *
 *   line    := ws object ws            (blank lines are skipped; so is the
 *                                       run's end, an object with "stopped"
 *                                       and no "round")
 *   object  := '{' [member (',' member)*] '}'
 *   member  := "round": whole >= 0     required; rounds increase
 *            | "blocks": blocks        required
 *            | "seconds": number >= 0
 *            | "candidates": whole >= 0 | "conflicts": whole >= 0
 *            | "objective": number
 *            | "schedule_seconds" | "work_seconds" | "combine_seconds"
 *            | "objective_seconds": number >= 0 (the time split, drawn when
 *              a round has all four; older traces have the first alone)
 *            | "workers": '[' worker (',' worker)* ']'
 *            | string: any JSON value  skipped
 *   worker  := '{' "worker": k, "blocks": blocks, "seconds": number '}'
 *              (k counts 1, 2, ... in order; seconds optional; any other
 *              member, such as "delay", skipped)
 *   blocks  := '[' [whole >= 1 (',' whole >= 1)*] ']'
 *
 * Every line has as many workers as the first; a trace without "workers"
 * is drawn as one worker holding the round's blocks, busy for the seconds
 * between rounds. A bad line is reported as NAME:LINE:COL with what was
 * expected, and reading goes on with the next line until
 * PTM_TRACE_MAX_ERRORS were reported. This is a reader for this
 * format, not a general JSON parser: it accepts exactly JSON's syntax for
 * what it reads and skips, with nesting at most SKIP_DEPTH deep.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "arena.h"
#include "ptm.h"
#include "viz.h"

#define SKIP_DEPTH 32
#define WHOLE_MAX 9007199254740992.0 /* 2^53: every whole number up to it is a double */

struct vec {
    void *a;
    size_t n, cap, size;
};

static int vec_push(struct vec *v, const void *x)
{
    if (v->n == v->cap) {
        size_t c = v->cap ? 2 * v->cap : 64;
        if (c > SIZE_MAX / v->size)
            return PTM_ENOMEM;
        void *a = ptm_realloc(v->a, c * v->size);
        if (!a)
            return PTM_ENOMEM;
        v->a = a;
        v->cap = c;
    }
    memcpy((char *)v->a + v->n * v->size, x, v->size);
    v->n++;
    return 0;
}

/* One line being read, and what it said. */
struct line {
    const char *s;
    size_t len, pos;
    bool failed; /* the first error of the line is in col, msg */
    bool oom;
    size_t col;
    char msg[256];
    /* the members */
    bool has_round, has_blocks, has_seconds, has_cand, has_conf, has_obj, has_workers;
    bool has_stopped; /* the run's end: {"stopped": WHY, ...}, no round */
    bool has_time[4];
    double time[4]; /* schedule, work, combine, objective seconds */
    int64_t round, cand, conf;
    size_t round_col, workers_col;
    double seconds, objective;
    struct vec blocks;  /* int64: the round's, 0-based */
    struct vec wblocks; /* int64: every worker's, one after another */
    struct vec wend;    /* size_t: where each worker's end in wblocks */
    struct vec wsec;    /* double: each worker's seconds (0 when not given) */
};

static bool fail(struct line *l, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(struct line *l, size_t at, const char *fmt, ...)
{
    if (!l->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->msg, sizeof(l->msg), fmt, ap);
        va_end(ap);
        l->col = at + 1;
        l->failed = true;
    }
    return false;
}

static void ws(struct line *l)
{
    while (l->pos < l->len && (l->s[l->pos] == ' ' || l->s[l->pos] == '\t' ||
                               l->s[l->pos] == '\r' || l->s[l->pos] == '\n'))
        l->pos++;
}

/* What is at the current position, for messages. */
static const char *found(const struct line *l)
{
    if (l->pos >= l->len)
        return "the end of the line";
    switch (l->s[l->pos]) {
    case '{':
        return "'{'";
    case '}':
        return "'}'";
    case '[':
        return "'['";
    case ']':
        return "']'";
    case ',':
        return "','";
    case ':':
        return "':'";
    case '"':
        return "a string";
    default:
        return (l->s[l->pos] == '-' || (l->s[l->pos] >= '0' && l->s[l->pos] <= '9')) ? "a number"
                                                                                     : "other text";
    }
}

/* ws, then c; or an error "expected WHAT". */
static bool want(struct line *l, char c, const char *what)
{
    ws(l);
    if (l->pos < l->len && l->s[l->pos] == c) {
        l->pos++;
        return true;
    }
    return fail(l, l->pos, "expected %s, found %s", what, found(l));
}

/* ws, then c if it is there. */
static bool next_is(struct line *l, char c)
{
    ws(l);
    if (l->pos < l->len && l->s[l->pos] == c) {
        l->pos++;
        return true;
    }
    return false;
}

/* A string; its raw contents are s[*b, *e). */
static bool string(struct line *l, size_t *b, size_t *e)
{
    ws(l);
    if (l->pos >= l->len || l->s[l->pos] != '"')
        return fail(l, l->pos, "expected a string, found %s", found(l));
    size_t start = l->pos++;
    *b = l->pos;
    while (l->pos < l->len && l->s[l->pos] != '"') {
        unsigned char c = (unsigned char)l->s[l->pos];
        if (c < 0x20)
            return fail(l, l->pos, "a control character in a string");
        if (c == '\\') {
            l->pos++;
            if (l->pos >= l->len)
                break;
            char x = l->s[l->pos];
            if (x == 'u') {
                for (int k = 1; k <= 4; k++) {
                    char h = l->pos + (size_t)k < l->len ? l->s[l->pos + (size_t)k] : '\0';
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
                          (h >= 'A' && h <= 'F')))
                        return fail(l, l->pos - 1, "a \\u escape needs four hexadecimal digits");
                }
                l->pos += 4;
            } else if (!strchr("\"\\/bfnrt", x) || x == '\0') {
                return fail(l, l->pos - 1, "a bad escape in a string");
            }
        }
        l->pos++;
    }
    if (l->pos >= l->len)
        return fail(l, start, "a string is not closed");
    *e = l->pos++;
    return true;
}

/* A JSON number. */
static bool number(struct line *l, double *v)
{
    ws(l);
    size_t p = l->pos, n = l->len;
    const char *s = l->s;
    size_t start = p;
    if (p < n && s[p] == '-')
        p++;
    if (p < n && s[p] == '0')
        p++;
    else if (p < n && s[p] >= '1' && s[p] <= '9')
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    else
        return fail(l, start, "expected a number, found %s", found(l));
    if (p < n && s[p] == '.') {
        p++;
        if (!(p < n && s[p] >= '0' && s[p] <= '9'))
            return fail(l, start, "a number needs digits after '.'");
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    if (p < n && (s[p] == 'e' || s[p] == 'E')) {
        p++;
        if (p < n && (s[p] == '+' || s[p] == '-'))
            p++;
        if (!(p < n && s[p] >= '0' && s[p] <= '9'))
            return fail(l, start, "a number needs digits in its exponent");
        while (p < n && s[p] >= '0' && s[p] <= '9')
            p++;
    }
    char buf[64];
    if (p - start >= sizeof(buf))
        return fail(l, start, "a number of more than %zu characters", sizeof(buf) - 1);
    memcpy(buf, s + start, p - start);
    buf[p - start] = '\0';
    *v = strtod(buf, NULL);
    if (!isfinite(*v))
        return fail(l, start, "the number '%s' is too large", buf);
    l->pos = p;
    return true;
}

/* A whole number in [lo, 2^53]; what names it in messages. */
static bool whole(struct line *l, int64_t lo, const char *what, int64_t *out)
{
    ws(l);
    size_t at = l->pos;
    double v;
    if (!number(l, &v))
        return false;
    if (v != floor(v) || v < (double)lo || v > WHOLE_MAX)
        return fail(l, at, "%s must be a whole number from %lld, not %.*s", what, (long long)lo,
                    (int)(l->pos - at > 24 ? 24 : l->pos - at), l->s + at);
    *out = (int64_t)v;
    return true;
}

/* Any JSON value, skipped. */
static bool skip(struct line *l, int depth)
{
    ws(l);
    if (depth > SKIP_DEPTH)
        return fail(l, l->pos, "values nested more than %d deep", SKIP_DEPTH);
    if (l->pos >= l->len)
        return fail(l, l->pos, "expected a value, found the end of the line");
    char c = l->s[l->pos];
    size_t b, e;
    double v;
    if (c == '"')
        return string(l, &b, &e);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        l->pos++;
        if (next_is(l, close))
            return true;
        do {
            if (c == '{' && (!string(l, &b, &e) || !want(l, ':', "':'")))
                return false;
            if (!skip(l, depth + 1))
                return false;
        } while (next_is(l, ','));
        return want(l, close, close == '}' ? "',' or '}'" : "',' or ']'");
    }
    static const char *const words[] = {"true", "false", "null"};
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if (l->len - l->pos >= n && memcmp(l->s + l->pos, words[k], n) == 0) {
            l->pos += n;
            return true;
        }
    }
    return number(l, &v);
}

/* '[' block numbers ']' into v (0-based). */
static bool block_list(struct line *l, struct vec *v)
{
    if (!want(l, '[', "'[' and a list of block numbers"))
        return false;
    if (next_is(l, ']'))
        return true;
    do {
        int64_t b;
        if (!whole(l, 1, "a block number", &b))
            return false;
        b--;
        if (vec_push(v, &b) != 0) {
            l->oom = true;
            return fail(l, l->pos, "out of memory");
        }
    } while (next_is(l, ','));
    return want(l, ']', "',' or ']' after a block number");
}

static bool key_is(const struct line *l, size_t b, size_t e, const char *k)
{
    return e - b == strlen(k) && memcmp(l->s + b, k, e - b) == 0;
}

/* A member given twice. */
static bool twice(struct line *l, bool *seen, size_t at, const char *k)
{
    if (*seen)
        return fail(l, at, "'%s' is given twice", k);
    *seen = true;
    return true;
}

/* {"worker": k, "blocks": [...], "seconds": S} for worker k (1-based). */
static bool worker(struct line *l, int64_t k)
{
    size_t open = l->pos;
    if (!want(l, '{', "'{' and a worker"))
        return false;
    bool has_w = false, has_b = false, has_s = false;
    double sec = 0;
    if (!next_is(l, '}')) {
        do {
            size_t b, e;
            ws(l);
            size_t at = l->pos;
            if (!string(l, &b, &e) || !want(l, ':', "':' after the key"))
                return false;
            if (key_is(l, b, e, "worker")) {
                int64_t w;
                if (!twice(l, &has_w, at, "worker"))
                    return false;
                ws(l);
                size_t wat = l->pos;
                if (!whole(l, 1, "'worker'", &w))
                    return false;
                if (w != k)
                    return fail(l, wat,
                                "worker %lld where worker %lld was expected: workers "
                                "count 1, 2, ... in order",
                                (long long)w, (long long)k);
            } else if (key_is(l, b, e, "blocks")) {
                if (!twice(l, &has_b, at, "blocks") || !block_list(l, &l->wblocks))
                    return false;
            } else if (key_is(l, b, e, "seconds")) {
                ws(l);
                size_t sat = l->pos;
                if (!twice(l, &has_s, at, "seconds") || !number(l, &sec))
                    return false;
                if (sec < 0)
                    return fail(l, sat, "'seconds' must be at least 0");
            } else if (!skip(l, 1)) {
                return false;
            }
        } while (next_is(l, ','));
        if (!want(l, '}', "',' or '}'"))
            return false;
    }
    if (!has_w)
        return fail(l, open, "worker %lld has no 'worker'", (long long)k);
    if (!has_b)
        return fail(l, open, "worker %lld has no 'blocks'", (long long)k);
    size_t end = l->wblocks.n;
    if (vec_push(&l->wend, &end) != 0 || vec_push(&l->wsec, &sec) != 0) {
        l->oom = true;
        return fail(l, l->pos, "out of memory");
    }
    return true;
}

static bool workers(struct line *l)
{
    if (!want(l, '[', "'[' and a list of workers"))
        return false;
    ws(l);
    if (l->pos < l->len && l->s[l->pos] == ']')
        return fail(l, l->pos, "'workers' is empty");
    int64_t k = 0;
    do {
        if (++k > PTM_TRACE_MAX_WORKERS)
            return fail(l, l->pos, "more than %d workers", PTM_TRACE_MAX_WORKERS);
        if (!worker(l, k))
            return false;
    } while (next_is(l, ','));
    return want(l, ']', "',' or ']' after a worker");
}

static const char *const time_keys[4] = {"schedule_seconds", "work_seconds", "combine_seconds",
                                         "objective_seconds"};

/* Which of time_keys the key b..e is, or -1. */
static int time_key(const struct line *l, size_t b, size_t e)
{
    for (int k = 0; k < 4; k++)
        if (key_is(l, b, e, time_keys[k]))
            return k;
    return -1;
}

/* The object of one line; false with the error in l. */
static bool object(struct line *l)
{
    if (!want(l, '{', "'{': a trace has one JSON object a line"))
        return false;
    if (!next_is(l, '}')) {
        do {
            size_t b, e;
            ws(l);
            size_t at = l->pos;
            if (!string(l, &b, &e) || !want(l, ':', "':' after the key"))
                return false;
            ws(l);
            bool ok;
            if (key_is(l, b, e, "round")) {
                l->round_col = l->pos;
                ok = twice(l, &l->has_round, at, "round") && whole(l, 0, "'round'", &l->round);
            } else if (key_is(l, b, e, "blocks")) {
                ok = twice(l, &l->has_blocks, at, "blocks") && block_list(l, &l->blocks);
            } else if (key_is(l, b, e, "seconds")) {
                size_t sat = l->pos;
                ok = twice(l, &l->has_seconds, at, "seconds") && number(l, &l->seconds);
                if (ok && l->seconds < 0)
                    ok = fail(l, sat, "'seconds' must be at least 0");
            } else if (key_is(l, b, e, "candidates")) {
                ok = twice(l, &l->has_cand, at, "candidates") &&
                     whole(l, 0, "'candidates'", &l->cand);
            } else if (key_is(l, b, e, "conflicts")) {
                ok =
                    twice(l, &l->has_conf, at, "conflicts") && whole(l, 0, "'conflicts'", &l->conf);
            } else if (key_is(l, b, e, "objective")) {
                ok = twice(l, &l->has_obj, at, "objective") && number(l, &l->objective);
            } else if (time_key(l, b, e) >= 0) {
                int k = time_key(l, b, e);
                size_t sat = l->pos;
                ok = twice(l, &l->has_time[k], at, time_keys[k]) && number(l, &l->time[k]);
                if (ok && !(l->time[k] >= 0))
                    ok = fail(l, sat, "'%s' must be at least 0", time_keys[k]);
            } else if (key_is(l, b, e, "stopped")) {
                ok = twice(l, &l->has_stopped, at, "stopped") && skip(l, 1);
            } else if (key_is(l, b, e, "workers")) {
                l->workers_col = l->pos;
                ok = twice(l, &l->has_workers, at, "workers") && workers(l);
            } else {
                ok = skip(l, 1);
            }
            if (!ok)
                return false;
        } while (next_is(l, ','));
        if (!want(l, '}', "',' or '}'"))
            return false;
    }
    ws(l);
    if (l->pos < l->len)
        return fail(l, l->pos, "more text after the object: one object a line");
    if (l->has_stopped && !l->has_round)
        return true; /* the run's end: nothing to draw */
    if (!l->has_round)
        return fail(l, 0, "this round has no 'round'");
    if (!l->has_blocks)
        return fail(l, 0, "this round has no 'blocks'");
    return true;
}

struct reader {
    const char *name;
    char *err;
    size_t errlen, used;
    int nerrors;
    struct ptm_trace *t;
    bool no_workers; /* the first round had no "workers" */
    int64_t first_line;
    double last_seconds;
};

static void report(struct reader *r, int64_t lineno, size_t col, const char *msg)
{
    r->nerrors++;
    if (r->used + 1 >= r->errlen)
        return;
    int n;
    if (lineno > 0 && col > 0)
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s:%lld:%zu: error: %s\n", r->name,
                     (long long)lineno, col, msg);
    else if (lineno > 0)
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s:%lld: error: %s\n", r->name,
                     (long long)lineno, msg);
    else
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s: error: %s\n", r->name, msg);
    if (n > 0)
        r->used += (size_t)n < r->errlen - r->used ? (size_t)n : r->errlen - r->used - 1;
}

static int max_block(struct ptm_trace *t, const struct vec *v)
{
    const int64_t *b = v->a;
    for (size_t i = 0; i < v->n; i++)
        if (b[i] + 1 > t->nblocks)
            t->nblocks = b[i] + 1;
    return 0;
}

/* Add a line that parsed to the trace, after the checks that span lines. */
static int accept(struct reader *r, struct line *l, int64_t lineno)
{
    char msg[256];
    int P = l->has_workers ? (int)l->wend.n : 1;
    if (!r->t) {
        r->t = ptm_trace_new(P);
        if (!r->t)
            return PTM_ENOMEM;
        r->t->unit = "seconds";
        r->no_workers = !l->has_workers;
        r->first_line = lineno;
    } else if (r->no_workers != !l->has_workers) {
        snprintf(msg, sizeof(msg), "%s, but line %lld %s",
                 l->has_workers ? "this round has 'workers'" : "this round has no 'workers'",
                 (long long)r->first_line, l->has_workers ? "has none" : "has them");
        report(r, lineno, l->has_workers ? l->workers_col + 1 : 1, msg);
        return 0;
    } else if (P != r->t->workers) {
        snprintf(msg, sizeof(msg),
                 "%d workers, but line %lld has %d: every round has the same "
                 "workers",
                 P, (long long)r->first_line, r->t->workers);
        report(r, lineno, l->workers_col + 1, msg);
        return 0;
    }
    struct ptm_trace *t = r->t;
    if (t->nrounds > 0 && l->round <= t->rounds[t->nrounds - 1].round) {
        snprintf(msg, sizeof(msg), "round %lld after round %lld: rounds must increase",
                 (long long)l->round, (long long)t->rounds[t->nrounds - 1].round);
        report(r, lineno, l->round_col + 1, msg);
        return 0;
    }
    struct ptm_trace_round rd = {
        .round = l->round,
        .seconds = l->has_seconds ? l->seconds : NAN,
        .candidates = l->has_cand ? l->cand : -1,
        .conflicts = l->has_conf ? l->conf : -1,
        .objective = l->has_obj ? l->objective : NAN,
        .has_time = l->has_time[0] && l->has_time[1] && l->has_time[2] && l->has_time[3],
        .schedule = l->time[0],
        .work = l->time[1],
        .combine = l->time[2],
        .evaluate = l->time[3],
    };
    int rc = ptm_trace_round(t, &rd);
    if (rc != 0)
        return rc;
    if (l->has_workers) {
        const int64_t *wb = l->wblocks.a;
        const size_t *end = l->wend.a;
        const double *sec = l->wsec.a;
        for (size_t p = 0; p < l->wend.n && rc == 0; p++) {
            size_t from = p ? end[p - 1] : 0;
            /* workers that all listed no block: no array to point into */
            rc = ptm_trace_worker(t, wb ? wb + from : NULL, end[p] - from, sec[p]);
        }
        max_block(t, &l->wblocks);
    } else {
        double busy = 0;
        if (l->has_seconds)
            busy = l->seconds - (isnan(r->last_seconds) ? 0 : r->last_seconds);
        rc = ptm_trace_worker(t, l->blocks.a, l->blocks.n, busy > 0 ? busy : 0);
    }
    max_block(t, &l->blocks);
    if (l->has_seconds)
        r->last_seconds = l->seconds;
    if (rc == PTM_ETOOBIG) {
        snprintf(msg, sizeof(msg),
                 "the trace holds more than %zu block updates: too many to "
                 "draw",
                 PTM_TRACE_MAX_ENTRIES);
        report(r, lineno, 0, msg);
    }
    return rc;
}

int ptm_trace_read(FILE *f, const char *name, char *err, size_t errlen, struct ptm_trace **out)
{
    *out = NULL;
    err[0] = '\0';
    struct reader r = {.name = name, .err = err, .errlen = errlen, .last_seconds = NAN};
    struct line l = {
        .blocks.size = sizeof(int64_t),
        .wblocks.size = sizeof(int64_t),
        .wend.size = sizeof(size_t),
        .wsec.size = sizeof(double),
    };
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t lineno = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && r.nerrors < PTM_TRACE_MAX_ERRORS && (len = getline(&buf, &cap, f)) >= 0) {
        lineno++;
        struct vec keep[4] = {l.blocks, l.wblocks, l.wend, l.wsec};
        memset(&l, 0, sizeof(l));
        l.blocks = keep[0];
        l.wblocks = keep[1];
        l.wend = keep[2];
        l.wsec = keep[3];
        l.blocks.n = l.wblocks.n = l.wend.n = l.wsec.n = 0;
        l.s = buf;
        l.len = (size_t)len;
        if (lineno == 1 && l.len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
            l.pos = 3; /* a UTF-8 byte order mark */
        ws(&l);
        if (l.pos == l.len)
            continue;
        if (!object(&l)) {
            if (l.oom)
                rc = PTM_ENOMEM;
            else
                report(&r, lineno, l.col, l.msg);
            continue;
        }
        if (!l.has_stopped || l.has_round)
            rc = accept(&r, &l, lineno);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", name, strerror(errno ? errno : EIO));
        rc = PTM_EIO;
    }
    if (rc == 0 && r.nerrors >= PTM_TRACE_MAX_ERRORS)
        report(&r, 0, 0, "too many errors; the rest is not read");
    if (rc == 0 && r.nerrors == 0 && (!r.t || r.t->nrounds == 0))
        report(&r, 0, 0, "the trace has no rounds");
    if (rc == 0 && r.nerrors > 0)
        rc = PTM_EDATA;
    free(buf);
    ptm_free(l.blocks.a);
    ptm_free(l.wblocks.a);
    ptm_free(l.wend.a);
    ptm_free(l.wsec.a);
    if (rc == 0 && !(r.t->source = plan_strdup(name)))
        rc = PTM_ENOMEM;
    if (rc != 0) {
        ptm_trace_free(r.t);
        return rc;
    }
    *out = r.t;
    return 0;
}
