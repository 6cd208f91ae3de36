/*
 * trace_read.c - reading the trace of `ptm run --trace FILE` back into a
 * struct ptm_trace, so that a real run is drawn as a dry run is.
 *
 * The trace is JSON lines, one object a round (runtime/engine/outputs.c,
 * rt_trace_round(); spec/runtime.md "Outputs"). What is read of each:
 *
 *   "round": whole >= 0              required; rounds increase (the
 *                                    run's last line, with "stopped" and
 *                                    no "round", says why it stopped and
 *                                    is skipped)
 *   "blocks": [whole >= 1, ...]      the round's blocks (ptm run
 *                                    --trace-blocks); may be absent
 *   "seconds": number >= 0
 *   "updates", "candidates", "conflicts": whole >= 0 ("updates" is
 *                                    counted for rounds without "blocks")
 *   "objective": number
 *   "schedule_seconds", "work_seconds", "combine_seconds",
 *   "objective_seconds": number >= 0 (the time split, drawn when a round
 *                                    has all four; older traces have the
 *                                    first alone)
 *   "workers": [{"worker": k, "blocks": [...], "seconds": number >= 0}, ...]
 *                                    k counts 1, 2, ... in order; a worker
 *                                    has "blocks" when its round has them
 *
 * Any other member, of a round or of a worker, is skipped. Every line has
 * as many workers as the first; a trace without "workers" is drawn as one
 * worker holding the round's blocks, busy for the seconds between rounds.
 * A round without "blocks" is drawn by its workers' busy seconds alone,
 * and the trace's note says so. Blank lines and a UTF-8 byte order mark
 * are skipped.
 *
 * DESIGN: each line is parsed by jansson (json_loadb()), a JSON library
 * Debian keeps (libjansson-dev), with duplicate keys rejected, and the
 * tree it builds is then checked and copied into the struct ptm_trace. This
 * replaces a parser of our own for this format alone: jansson is strict,
 * fuzzed upstream and gives line and column of a syntax error; what it
 * does not know (a value's meaning) is reported at the line, naming the
 * member. It is slower: a Lasso trace of 10 MB with every block
 * (--trace-blocks) reads in 0.50 s where the hand-written parser took
 * 0.14 s (medians, bench/RESULTS.md "Reading and writing traces"), as
 * jansson allocates a value for each number; the peak memory is the same.
 * We keep it: a trace without --trace-blocks, the default, has few numbers
 * a line, and a reader we need not maintain or fuzz alone is worth more
 * than that half second. Its tree costs about 50 bytes a number while a
 * line is read, so a line
 * is counted first and refused when it holds more numbers than the trace
 * could still take (PTM_TRACE_MAX_ENTRIES), before it is parsed. jansson
 * allocates through ptm_malloc()/ptm_free(), so that out of memory (and
 * the tests' injected allocation failures) is PTM_ENOMEM: jansson itself
 * reports a failed allocation as a syntax error, so the allocator it is
 * given notes the failure (json_oom).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
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

#define WHOLE_MAX 9007199254740992.0 /* 2^53: every whole number up to it is a double */

/* Numbers a line may hold beyond twice the entries the trace can still
 * take (a round's blocks are listed again by its workers; other members
 * hold a few). */
#define LINE_SLACK 4096

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

/* GLOBAL: jansson's allocator is process-wide; set once, before ptm's first
 * JSON value, guarded by json_once. Nothing else in ptm uses jansson. */
static pthread_once_t json_once = PTHREAD_ONCE_INIT;
/* GLOBAL: an allocation for jansson failed on this thread since the flag
 * was cleared. jansson reports a failed allocation as a syntax error (or
 * with no message at all), so the reader asks this instead; one a thread,
 * so no lock. */
static _Thread_local bool json_oom;

static void *json_alloc(size_t size)
{
    void *p = ptm_malloc(size);
    if (!p)
        json_oom = true;
    return p;
}

static void json_alloc_init(void)
{
    json_set_alloc_funcs(json_alloc, ptm_free);
}

/* One line being checked, and what it said. */
struct line {
    bool failed; /* the first error of the line is in msg */
    bool oom;
    char msg[320];
    bool has_blocks, has_seconds, has_cand, has_conf, has_obj, has_workers, has_updates;
    bool has_time[4];
    double time[4]; /* schedule, work, combine, objective seconds */
    int64_t round, cand, conf, updates;
    double seconds, objective;
    struct vec blocks;  /* int64: the round's, 0-based */
    struct vec wblocks; /* int64: every worker's, one after another */
    struct vec wend;    /* size_t: where each worker's end in wblocks */
    struct vec wsec;    /* double: each worker's seconds (0 when not given) */
};

static bool fail(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct line *l, const char *fmt, ...)
{
    if (!l->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->msg, sizeof(l->msg), fmt, ap);
        va_end(ap);
        l->failed = true;
    }
    return false;
}

/* A value as messages show it: a number as written (shortest form that
 * reads back), anything else by its kind. */
static const char *shown(const json_t *v, char *buf, size_t len)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    case JSON_REAL: {
        double x = json_real_value(v);
        for (int p = 1; p <= 17; p++) {
            snprintf(buf, len, "%.*g", p, x);
            if (strtod(buf, NULL) == x)
                break;
        }
        return buf;
    }
    case JSON_STRING:
        return "a string";
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    default:
        return "null";
    }
}

/* v as a number, or an error naming what. */
static bool number(struct line *l, const json_t *v, const char *what, double *out)
{
    char buf[32];
    if (!json_is_number(v))
        return fail(l, "%s must be a number, not %s", what, shown(v, buf, sizeof(buf)));
    *out = json_number_value(v);
    return true;
}

/* v as a number >= 0. */
static bool seconds(struct line *l, const json_t *v, const char *what, double *out)
{
    if (!number(l, v, what, out))
        return false;
    if (!(*out >= 0))
        return fail(l, "%s must be at least 0", what);
    return true;
}

/* v as a whole number in [lo, 2^53] into *out. */
static bool is_whole(const json_t *v, int64_t lo, int64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < lo || (double)x > WHOLE_MAX)
            return false;
        *out = (int64_t)x;
        return true;
    }
    double x = json_is_real(v) ? json_real_value(v) : NAN;
    if (!(x == floor(x) && x >= (double)lo && x <= WHOLE_MAX))
        return false;
    *out = (int64_t)x;
    return true;
}

/* v as a whole number in [lo, 2^53]; what names it in messages. */
static bool whole(struct line *l, const json_t *v, int64_t lo, const char *what, int64_t *out)
{
    char buf[32];
    if (!is_whole(v, lo, out))
        return fail(l, "%s must be a whole number from %lld, not %s", what, (long long)lo,
                    shown(v, buf, sizeof(buf)));
    return true;
}

/* A list of block numbers into out (0-based); whose names it ("'blocks'",
 * "worker 2's 'blocks'"). */
static bool block_list(struct line *l, const json_t *v, const char *whose, struct vec *out)
{
    char buf[32];
    if (!json_is_array(v))
        return fail(l, "%s must be a list of block numbers, not %s", whose,
                    shown(v, buf, sizeof(buf)));
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *x = json_array_get(v, i);
        int64_t b;
        if (!is_whole(x, 1, &b))
            return fail(l, "entry %zu of %s (a block number) must be a whole number from 1, not %s",
                        i + 1, whose, shown(x, buf, sizeof(buf)));
        b--;
        if (vec_push(out, &b) != 0) {
            l->oom = true;
            return fail(l, "out of memory");
        }
    }
    return true;
}

/* {"worker": k, "blocks": [...], "seconds": S}, worker k (1-based) of a
 * round that lists its blocks or not. */
static bool worker(struct line *l, const json_t *w, int64_t k)
{
    char buf[32];
    if (!json_is_object(w))
        return fail(l, "worker %lld must be an object, not %s", (long long)k,
                    shown(w, buf, sizeof(buf)));
    const json_t *num = json_object_get(w, "worker");
    const json_t *blocks = json_object_get(w, "blocks");
    const json_t *sec = json_object_get(w, "seconds");
    if (!num)
        return fail(l, "worker %lld has no 'worker'", (long long)k);
    int64_t n;
    if (!whole(l, num, 1, "'worker'", &n))
        return false;
    if (n != k)
        return fail(l,
                    "worker %lld where worker %lld was expected: workers count 1, 2, ... in "
                    "order",
                    (long long)n, (long long)k);
    if (!blocks && l->has_blocks)
        return fail(l, "worker %lld has no 'blocks', but the round has 'blocks'", (long long)k);
    if (blocks && !l->has_blocks)
        return fail(l, "worker %lld has 'blocks', but the round has none", (long long)k);
    char whose[48];
    snprintf(whose, sizeof(whose), "worker %lld's 'blocks'", (long long)k);
    if (blocks && !block_list(l, blocks, whose, &l->wblocks))
        return false;
    double s = 0;
    char what[48];
    snprintf(what, sizeof(what), "worker %lld's 'seconds'", (long long)k);
    if (sec && !seconds(l, sec, what, &s))
        return false;
    size_t end = l->wblocks.n;
    if (vec_push(&l->wend, &end) != 0 || vec_push(&l->wsec, &s) != 0) {
        l->oom = true;
        return fail(l, "out of memory");
    }
    return true;
}

static const char *const time_keys[4] = {"schedule_seconds", "work_seconds", "combine_seconds",
                                         "objective_seconds"};

/* The object of one line; false with the error in l. */
static bool object(struct line *l, const json_t *o)
{
    char buf[32];
    if (!json_is_object(o))
        return fail(l, "a trace has one JSON object a line, not %s", shown(o, buf, sizeof(buf)));
    const json_t *v;
    if (!(v = json_object_get(o, "round")))
        return fail(l, "this round has no 'round'");
    if (!whole(l, v, 0, "'round'", &l->round))
        return false;
    if ((v = json_object_get(o, "blocks"))) {
        l->has_blocks = true;
        if (!block_list(l, v, "'blocks'", &l->blocks))
            return false;
    }
    if ((v = json_object_get(o, "seconds"))) {
        l->has_seconds = true;
        if (!seconds(l, v, "'seconds'", &l->seconds))
            return false;
    }
    if ((v = json_object_get(o, "updates"))) {
        l->has_updates = true;
        if (!whole(l, v, 0, "'updates'", &l->updates))
            return false;
    }
    if ((v = json_object_get(o, "candidates"))) {
        l->has_cand = true;
        if (!whole(l, v, 0, "'candidates'", &l->cand))
            return false;
    }
    if ((v = json_object_get(o, "conflicts"))) {
        l->has_conf = true;
        if (!whole(l, v, 0, "'conflicts'", &l->conf))
            return false;
    }
    if ((v = json_object_get(o, "objective"))) {
        l->has_obj = true;
        if (!number(l, v, "'objective'", &l->objective))
            return false;
    }
    for (int k = 0; k < 4; k++) {
        char what[48];
        snprintf(what, sizeof(what), "'%s'", time_keys[k]);
        if ((v = json_object_get(o, time_keys[k]))) {
            l->has_time[k] = true;
            if (!seconds(l, v, what, &l->time[k]))
                return false;
        }
    }
    if ((v = json_object_get(o, "workers"))) {
        l->has_workers = true;
        if (!json_is_array(v))
            return fail(l, "'workers' must be a list of workers, not %s",
                        shown(v, buf, sizeof(buf)));
        if (json_array_size(v) == 0)
            return fail(l, "'workers' is empty");
        if (json_array_size(v) > PTM_TRACE_MAX_WORKERS)
            return fail(l, "more than %d workers", PTM_TRACE_MAX_WORKERS);
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!worker(l, json_array_get(v, i), (int64_t)i + 1))
                return false;
    }
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
    size_t without_blocks; /* rounds that do not list their blocks */
};

static void report(struct reader *r, int64_t lineno, long col, const char *msg)
{
    r->nerrors++;
    if (r->used + 1 >= r->errlen)
        return;
    int n;
    if (lineno > 0 && col > 0)
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s:%lld:%ld: error: %s\n", r->name,
                     (long long)lineno, col, msg);
    else if (lineno > 0)
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s:%lld: error: %s\n", r->name,
                     (long long)lineno, msg);
    else
        n = snprintf(r->err + r->used, r->errlen - r->used, "%s: error: %s\n", r->name, msg);
    if (n > 0)
        r->used += (size_t)n < r->errlen - r->used ? (size_t)n : r->errlen - r->used - 1;
}

static void max_block(struct ptm_trace *t, const struct vec *v)
{
    const int64_t *b = v->a;
    for (size_t i = 0; i < v->n; i++)
        if (b[i] + 1 > t->nblocks)
            t->nblocks = b[i] + 1;
}

static void too_big(struct reader *r, int64_t lineno)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "the trace holds more than %zu block updates: too many to draw",
             PTM_TRACE_MAX_ENTRIES);
    report(r, lineno, 0, msg);
}

/* Add a line that was read to the trace, after the checks that span lines. */
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
        report(r, lineno, 0, msg);
        return 0;
    } else if (P != r->t->workers) {
        snprintf(msg, sizeof(msg),
                 "%d workers, but line %lld has %d: every round has the same workers", P,
                 (long long)r->first_line, r->t->workers);
        report(r, lineno, 0, msg);
        return 0;
    }
    struct ptm_trace *t = r->t;
    if (t->nrounds > 0 && l->round <= t->rounds[t->nrounds - 1].round) {
        snprintf(msg, sizeof(msg), "round %lld after round %lld: rounds must increase",
                 (long long)l->round, (long long)t->rounds[t->nrounds - 1].round);
        report(r, lineno, 0, msg);
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
    if (!l->has_blocks) {
        r->without_blocks++;
        if (l->has_updates)
            t->unlisted_updates = l->updates > INT64_MAX - t->unlisted_updates
                                      ? INT64_MAX
                                      : t->unlisted_updates + l->updates;
    }
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
    if (rc == PTM_ETOOBIG)
        too_big(r, lineno);
    return rc;
}

/* The numbers s[0..len) can hold at most: its commas and colons outside
 * strings, plus one (each number but the last is followed by one). */
static size_t most_numbers(const char *s, size_t len)
{
    size_t n = 1;
    bool in = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in = false;
        } else if (c == '"') {
            in = true;
        } else if (c == ',' || c == ':') {
            n++;
        }
    }
    return n;
}

/* Read one line s[0..len) into l, then into the trace; 0, PTM_ENOMEM or
 * PTM_ETOOBIG. A line that is not good is reported and skipped. */
static int read_line(struct reader *r, struct line *l, const char *s, size_t len, int64_t lineno,
                     long shift)
{
    const char *nul = memchr(s, '\0', len);
    if (nul) {
        report(r, lineno, (long)(nul - s) + 1 + shift, "a NUL byte: a trace is text");
        return 0;
    }
    size_t held = r->t ? r->t->nentries : 0;
    size_t room = held < PTM_TRACE_MAX_ENTRIES ? PTM_TRACE_MAX_ENTRIES - held : 0;
    if (most_numbers(s, len) > 2 * room + LINE_SLACK) {
        too_big(r, lineno);
        return PTM_ETOOBIG;
    }
    json_error_t je;
    json_oom = false;
    json_t *o = json_loadb(s, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        if (json_oom || json_error_code(&je) == json_error_out_of_memory)
            return PTM_ENOMEM;
        report(r, lineno, je.column > 0 ? je.column + shift : 0, je.text);
        return 0;
    }
    int rc = 0;
    if (json_is_object(o) && json_object_get(o, "stopped") && !json_object_get(o, "round"))
        ; /* the run's end (rt_trace_end): why it stopped, for ptm report */
    else if (object(l, o))
        rc = accept(r, l, lineno);
    else if (l->oom)
        rc = PTM_ENOMEM;
    else
        report(r, lineno, 0, l->msg);
    json_decref(o);
    return rc;
}

/* The trace's note when rounds do not list their blocks. */
static int note_blocks(struct reader *r)
{
    size_t n = r->without_blocks, R = r->t->nrounds;
    if (n == 0)
        return 0;
    char note[200];
    if (n == R)
        snprintf(note, sizeof(note),
                 "the blocks were not recorded (ptm run --trace-blocks records them): a bar is a "
                 "worker's busy seconds");
    else
        snprintf(note, sizeof(note),
                 "the blocks of %zu of the %zu rounds were not recorded (ptm run --trace-blocks "
                 "records them): their bars are the workers' busy seconds",
                 n, R);
    r->t->note = plan_strdup(note);
    return r->t->note ? 0 : PTM_ENOMEM;
}

int ptm_trace_read(FILE *f, const char *name, char *err, size_t errlen, struct ptm_trace **out)
{
    *out = NULL;
    err[0] = '\0';
    pthread_once(&json_once, json_alloc_init);
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
        const char *s = buf;
        size_t n = (size_t)len;
        long shift = 0; /* columns before s */
        if (lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
            s += 3; /* a UTF-8 byte order mark */
            n -= 3;
            shift = 1;
        }
        if (strspn(s, " \t\r\n") == n)
            continue;
        if (s[n - 1] == '\n')
            n--; /* so that jansson's columns stay on this line */
        rc = read_line(&r, &l, s, n, lineno, shift);
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
    if (rc == 0)
        rc = note_blocks(&r);
    if (rc != 0) {
        ptm_trace_free(r.t);
        return rc;
    }
    *out = r.t;
    return 0;
}
