/*
 * test_viz.c - `ptm plan`: the dry run (runtime/engine/dryrun.c), the reader of
 * a run's trace and the renderers (viz/).
 *
 * DESIGN: the dry runs use a tiny data set written here, whose column
 * non-zeros (the costs) and conflicts (an edge list) are known by
 * construction, so the schedules are checked against those, not against
 * earlier output: round_robin's blocks are the next ones in order and
 * each worker's cost is the sum of its columns' non-zeros; dynamic never
 * puts two blocks of an edge in one round; the drawn graph has exactly
 * the file's edges. The trace reader is table-driven: each malformed
 * input with the whole message it must give. Allocation failures are
 * injected into the reader, the dry run and the renderers: each must fail
 * cleanly (ASan finds leaks).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "data.h"
#include "dryrun.h"
#include "plan.h"
#include "ptm.h"
#include "testutil.h"
#include "viz.h"

/* ---- helpers ----------------------------------------------------------------- */

/* The data: 6 rows, 7 columns; column non-zeros 3 3 2 2 2 2 3. */
static const char x_svm[] = "1 1:1 2:1 4:2\n"
                            "2 2:1 3:1 5:1\n"
                            "3 1:2 6:1 7:1\n"
                            "4 3:1 4:1 7:2\n"
                            "5 1:1 5:1\n"
                            "6 2:2 6:1 7:1\n";
static const double col_nnz[7] = {3, 3, 2, 2, 2, 2, 3};
/* The conflicts of edges.txt, 0-based, i < j, deduplicated and sorted. */
static const int64_t edges[][2] = {{0, 1}, {1, 2}, {3, 6}};

static char job_text[4096];

/* lasso_cd's split_min: 0 splits every round among the workers (rounds
 * of these few non-zeros run on the first worker alone by default). */
static const char *split_opt = ", split_min = 0";

static void make_job(const char *schedule, const char *extra)
{
    snprintf(job_text, sizeof(job_text),
             "job t\n"
             "data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param beta : vector[cols(X)] = 0\n"
             "param r : vector[rows(X)] = y shard like X\n"
             "blocks coef = beta each 1\n"
             "cost coef(j) = nnz(col(X, j))\n"
             "%s\n"
             "schedule %s\n"
             "update builtin lasso_cd { lambda = 0.1%s }\n"
             "stop when rounds >= 10\n",
             extra, schedule, split_opt);
}

static struct ptm_plan *compile_job(void)
{
    return tu_compile("t.ptm", job_text, ".", true);
}

static struct ptm_trace *dry(const struct ptm_plan *plan, int workers, int64_t rounds, bool graph)
{
    struct ptm_dryrun_opts o = {
        .workers = workers, .rounds = rounds, .graph = graph, .max_nodes = 500, .max_edges = 5000};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    char err[1024];
    struct ptm_trace *t;
    int rc = ptm_dryrun(plan, &o, &dg, err, sizeof(err), &t);
    if (rc != 0) {
        ptm_data_diags_print(stderr, &dg, false);
        fprintf(stderr, "ptm_dryrun: %s\n", err);
    }
    ptm_data_diags_release(&dg);
    ck_assert_int_eq(rc, 0);
    return t;
}

/* What a renderer writes, as a string (caller frees). */
static char *render(int (*draw)(FILE *, const struct ptm_trace *), const struct ptm_trace *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(draw(f, t), 0);
    fclose(f);
    return text;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Read text as a trace named t.json. */
static int read_text(const char *text, char *err, size_t errlen, struct ptm_trace **t)
{
    FILE *f = fmemopen((void *)text, strlen(text) ? strlen(text) : 1, "r");
    ck_assert_ptr_nonnull(f);
    if (!*text)
        fgetc(f); /* fmemopen refuses size 0: read the one byte (the NUL) as EOF */
    int rc = ptm_trace_read(f, "t.json", err, errlen, t);
    fclose(f);
    return rc;
}

/* ---- reading traces ------------------------------------------------------------ */

static const char good_trace[] =
    "\xef\xbb\xbf{\"round\": 1, \"seconds\": 0.5, \"blocks\": [3, 1], \"candidates\": 4, "
    "\"conflicts\": 2, \"schedule_seconds\": 1e-6, \"workers\": [{\"worker\": 1, \"blocks\": [3], "
    "\"seconds\": 0.25}, {\"worker\": 2, \"blocks\": [1], \"seconds\": 0.125, \"x\": null}]}\r\n"
    "\n"
    "   \n"
    "{\"blocks\": [], \"round\": 3, \"extra\": {\"a\": [1, {\"b\": \"q\\\"\\u00e9\"}], \"c\": "
    "true},"
    " \"workers\": [{\"worker\": 1, \"blocks\": []}, {\"blocks\": [7, 2], \"worker\": 2}], "
    "\"objective\": -1.5e-3}\n";

START_TEST(test_trace_good)
{
    char err[2048];
    struct ptm_trace *t;
    int rc = read_text(good_trace, err, sizeof(err), &t);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(t->workers, 2);
    ck_assert_uint_eq(t->nrounds, 2);
    ck_assert(!t->dry);
    ck_assert_str_eq(t->source, "t.json");
    ck_assert_int_eq(t->nblocks, 7);
    ck_assert_int_eq(t->rounds[0].round, 1);
    ck_assert_int_eq(t->rounds[0].candidates, 4);
    ck_assert_int_eq(t->rounds[0].conflicts, 2);
    ck_assert(t->rounds[0].seconds == 0.5 && isnan(t->rounds[0].objective));
    ck_assert_int_eq(t->rounds[1].round, 3);
    ck_assert_int_eq(t->rounds[1].candidates, -1);
    ck_assert_int_eq(t->rounds[1].conflicts, -1);
    ck_assert(t->rounds[1].objective == -1.5e-3 && isnan(t->rounds[1].seconds));
    size_t n;
    const int64_t *b = ptm_trace_blocks(t, 0, 0, &n);
    ck_assert(n == 1 && b[0] == 2 && t->load[0] == 0.25);
    b = ptm_trace_blocks(t, 0, 1, &n);
    ck_assert(n == 1 && b[0] == 0 && t->load[1] == 0.125);
    ptm_trace_blocks(t, 1, 0, &n);
    ck_assert(n == 0 && t->load[2] == 0);
    b = ptm_trace_blocks(t, 1, 1, &n);
    ck_assert(n == 2 && b[0] == 6 && b[1] == 1);
    ptm_trace_free(t);
}
END_TEST

/* The coordinator's time split: read, counted in the table against the
 * rounds' wall seconds (the rest "other"), and a worker's idle share is
 * its share of the round's wall seconds. */
START_TEST(test_trace_time)
{
    char err[2048];
    struct ptm_trace *t;
    int rc = read_text(
        "{\"round\": 1, \"seconds\": 1, \"blocks\": [1], \"schedule_seconds\": 0.5, "
        "\"work_seconds\": 0.25, \"combine_seconds\": 0.125, \"objective_seconds\": 0, "
        "\"workers\": [{\"worker\": 1, \"blocks\": [1], \"seconds\": 0.2}]}\n"
        "{\"round\": 2, \"seconds\": 3, \"blocks\": [2], \"schedule_seconds\": 1, "
        "\"work_seconds\": 0.5, \"combine_seconds\": 0, \"objective_seconds\": 0.5, "
        "\"workers\": [{\"worker\": 1, \"blocks\": [2], \"seconds\": 0.4}]}\n",
        err, sizeof(err), &t);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert(t->rounds[0].has_time && t->rounds[0].schedule == 0.5 &&
              t->rounds[0].work == 0.25 && t->rounds[0].combine == 0.125 &&
              t->rounds[0].evaluate == 0);
    ck_assert(ptm_trace_span(t, 0) == 1 && ptm_trace_span(t, 1) == 2);
    ck_assert(ptm_trace_round_max(t, 1) == 2);
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    ck_assert_int_eq(ptm_viz_table(f, t), 0);
    fclose(f);
    /* 3 s of wall time: scheduling 1.5 (50%), phases 0.75 (25%), combining
     * 0.125 (4%), objective 0.5 (17%), other 0.125 (4%); the worker busy
     * 0.6 of 3 s: idle 80% */
    ck_assert_msg(strstr(text, "# coordinator over 2 rounds, 3 s: scheduling 1.5 s (50%), the "
                               "workers' phases 0.75 s (25%), combining 0.125 s (4%), objective "
                               "0.5 s (17%), other 0.125 s (4%)\n"),
                  "%s", text);
    ck_assert_msg(strstr(text, "     1        2        0.6   80%\n"), "%s", text);
    free(text);
    ptm_trace_free(t);
    /* an older trace's schedule_seconds alone: no time split */
    rc = read_text("{\"round\": 1, \"blocks\": [1], \"schedule_seconds\": 0.5}\n", err,
                   sizeof(err), &t);
    ck_assert_int_eq(rc, 0);
    ck_assert(!t->rounds[0].has_time);
    ptm_trace_free(t);
    rc = read_text("{\"round\": 1, \"blocks\": [1], \"schedule_seconds\": -1, "
                   "\"work_seconds\": 0, \"combine_seconds\": 0, \"objective_seconds\": 0}\n",
                   err, sizeof(err), &t);
    ck_assert_int_eq(rc, PTM_EDATA);
    ck_assert_str_eq(err, "t.json:1: error: 'schedule_seconds' must be at least 0\n");
}
END_TEST

/* A trace without workers: one worker, busy between rounds. */
START_TEST(test_trace_old)
{
    char err[2048];
    struct ptm_trace *t;
    int rc = read_text("{\"round\": 1, \"seconds\": 0.5, \"blocks\": [1]}\n"
                       "{\"round\": 2, \"seconds\": 2, \"blocks\": [2, 3], \"objective\": 7}\n",
                       err, sizeof(err), &t);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(t->workers, 1);
    ck_assert_uint_eq(t->nrounds, 2);
    ck_assert(t->load[0] == 0.5 && t->load[1] == 1.5);
    size_t n;
    ptm_trace_blocks(t, 1, 0, &n);
    ck_assert_uint_eq(n, 2);
    ptm_trace_free(t);
}
END_TEST

/* A trace of `ptm run --trace` without --trace-blocks: counts and seconds,
 * no "blocks". Each worker is drawn by its busy seconds, the table and the
 * picture say the blocks were not recorded. */
START_TEST(test_trace_no_blocks)
{
    char err[2048];
    struct ptm_trace *t;
    int rc = read_text(
        "{\"round\": 1, \"seconds\": 0.5, \"updates\": 6, \"workers\": [{\"worker\": 1, "
        "\"seconds\": 0.25}, {\"worker\": 2, \"seconds\": 0.125}]}\n"
        "{\"round\": 2, \"seconds\": 1, \"updates\": 6, \"workers\": [{\"worker\": 1, "
        "\"seconds\": 0.5}, {\"worker\": 2, \"seconds\": 0.375}], \"objective\": 3}\n",
        err, sizeof(err), &t);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(t->workers, 2);
    ck_assert_uint_eq(t->nrounds, 2);
    ck_assert_uint_eq(t->nentries, 0);
    ck_assert_int_eq(t->unlisted_updates, 12);
    ck_assert(t->load[0] == 0.25 && t->load[1] == 0.125 && t->load[2] == 0.5 &&
              t->load[3] == 0.375);
    ck_assert_ptr_nonnull(t->note);
    ck_assert_msg(strstr(t->note, "blocks were not recorded (ptm run --trace-blocks"), "%s",
                  t->note);
    char *svg = render(ptm_viz_svg, t);
    ck_assert_msg(strstr(svg, "blocks were not recorded"), "no note in the picture");
    /* each worker's busy seconds a bar: 4 cells */
    ck_assert_uint_eq(count(svg, "</title></rect>"), 4);
    free(svg);
    char *table = render(ptm_viz_table, t);
    ck_assert_msg(strstr(table, "# note: the blocks were not recorded"), "%s", table);
    ck_assert_msg(strstr(table, "# 0 block updates (and 12 updates the run counted in rounds "
                                "whose blocks were not recorded)"),
                  "%s", table);
    free(table);
    ptm_trace_free(t);

    /* the count saturates: 1100 rounds of 2^53 updates */
    size_t cap = 1100 * 64;
    char *many = malloc(cap), *at = many;
    ck_assert_ptr_nonnull(many);
    for (int k = 1; k <= 1100; k++)
        at += sprintf(at, "{\"round\": %d, \"updates\": 9007199254740992}\n", k);
    rc = read_text(many, err, sizeof(err), &t);
    free(many);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(t->unlisted_updates, INT64_MAX);
    ptm_trace_free(t);

    /* a trace resumed with the other form: some rounds have blocks */
    rc = read_text("{\"round\": 1, \"seconds\": 0.5, \"blocks\": [2]}\n"
                   "{\"round\": 2, \"seconds\": 1}\n{\"round\": 3, \"seconds\": 2}\n",
                   err, sizeof(err), &t);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(t->nentries, 1);
    ck_assert(t->load[1] == 0.5 && t->load[2] == 1);
    ck_assert_msg(strstr(t->note, "the blocks of 2 of the 3 rounds were not recorded"), "%s",
                  t->note);
    ptm_trace_free(t);

    /* with blocks: no note */
    rc = read_text(good_trace, err, sizeof(err), &t);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_null(t->note);
    ptm_trace_free(t);
}
END_TEST

/* Nesting deeper than jansson's limit (2048) in a member that is skipped:
 * an error at the line, no crash. */
START_TEST(test_trace_deep)
{
    size_t depth = 5000;
    char *in = malloc(2 * depth + 64);
    ck_assert_ptr_nonnull(in);
    size_t k = (size_t)sprintf(in, "{\"round\": 1, \"a\": ");
    memset(in + k, '[', depth);
    memset(in + k + depth, ']', depth);
    strcpy(in + k + 2 * depth, "}\n");
    char err[1024];
    struct ptm_trace *t = NULL;
    ck_assert_int_eq(read_text(in, err, sizeof(err), &t), PTM_EDATA);
    ck_assert_msg(strncmp(err, "t.json:1:", 9) == 0 && strstr(err, "maximum parsing depth"),
                  "%s", err);
    free(in);
}
END_TEST

static const struct {
    const char *in, *err;
} bad_traces[] = {
    {"", "t.json: error: the trace has no rounds\n"},
    {"\n \n", "t.json: error: the trace has no rounds\n"},
    {"[1, 2]\n", "t.json:1: error: a trace has one JSON object a line, not a list\n"},
    {"{\"round\": 1, \"workers\": [{\"worker\": 1, \"blocks\": [1]}]}\n",
     "t.json:1: error: worker 1 has 'blocks', but the round has none\n"},
    {"{\"blocks\": []}\n", "t.json:1: error: this round has no 'round'\n"},
    {"{\"round\": 1, \"blocks\": [2, 0]}\n",
     "t.json:1: error: entry 2 of 'blocks' (a block number) must be a whole number from 1, not "
     "0\n"},
    {"{\"round\": 1, \"blocks\": [1,]}\n", "t.json:1:27: error: unexpected token near ']'\n"},
    {"{\"round\": 1, \"blocks\": [1 2]}\n", "t.json:1:27: error: ']' expected near '2'\n"},
    {"{\"round\": 1.5, \"blocks\": []}\n",
     "t.json:1: error: 'round' must be a whole number from 0, not 1.5\n"},
    {"{\"round\": -1, \"blocks\": []}\n",
     "t.json:1: error: 'round' must be a whole number from 0, not -1\n"},
    {"{\"round\": 1e999, \"blocks\": []}\n",
     "t.json:1:15: error: real number overflow near '1e999'\n"},
    {"{\"round\": 01, \"blocks\": []}\n", "t.json:1:11: error: invalid token near '0'\n"},
    {"{\"round\": 1., \"blocks\": []}\n", "t.json:1:12: error: invalid token near '1.'\n"},
    {"{\"round\": 1, \"round\": 2, \"blocks\": []}\n",
     "t.json:1:20: error: duplicate object key near '\"round\"'\n"},
    {"{\"round\": 1, \"blocks\": []} x\n",
     "t.json:1:28: error: end of file expected near 'x'\n"},
    {"{\"round\": 1, \"blocks\": []\n", "t.json:1:25: error: '}' expected near end of file\n"},
    {"{\"round\" 1, \"blocks\": []}\n", "t.json:1:10: error: ':' expected near '1'\n"},
    {"{round: 1}\n", "t.json:1:6: error: string or '}' expected near 'round'\n"},
    {"{\"a\": \"x\\q\", \"round\": 1, \"blocks\": []}\n",
     "t.json:1:10: error: invalid escape near '\"x\\q'\n"},
    {"{\"a\": \"x\\u12\", \"round\": 1, \"blocks\": []}\n",
     "t.json:1:13: error: invalid escape near '\"x\\u12\"'\n"},
    {"{\"a\": \"x\n", "t.json:1:8: error: premature end of input near '\"x'\n"},
    {"{\"a\": \"x\ty\", \"round\": 1}\n",
     "t.json:1:8: error: control character 0x9 near '\"x'\n"},
    {"{\"a\": nul, \"round\": 1, \"blocks\": []}\n",
     "t.json:1:9: error: invalid token near 'nul'\n"},
    {"{\"round\": \"1\"}\n", "t.json:1: error: 'round' must be a whole number from 0, not a "
                            "string\n"},
    {"{\"round\": 1, \"blocks\": 5}\n",
     "t.json:1: error: 'blocks' must be a list of block numbers, not 5\n"},
    {"{\"round\": 1, \"seconds\": true}\n",
     "t.json:1: error: 'seconds' must be a number, not true\n"},
    {"{\"round\": 1, \"updates\": -2}\n",
     "t.json:1: error: 'updates' must be a whole number from 0, not -2\n"},
    {"{\"round\": 2, \"blocks\": [1]}\n{\"round\": 2, \"blocks\": [2]}\n",
     "t.json:2: error: round 2 after round 2: rounds must increase\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"worker\": 2, \"blocks\": [1]}]}\n",
     "t.json:1: error: worker 2 where worker 1 was expected: workers count 1, 2, ... in "
     "order\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": []}\n",
     "t.json:1: error: 'workers' is empty\n"},
    {"{\"round\": 1, \"workers\": {}}\n",
     "t.json:1: error: 'workers' must be a list of workers, not an object\n"},
    {"{\"round\": 1, \"workers\": [{\"worker\": 1}, null]}\n",
     "t.json:1: error: worker 2 must be an object, not null\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"blocks\": [1]}]}\n",
     "t.json:1: error: worker 1 has no 'worker'\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"worker\": 1}]}\n",
     "t.json:1: error: worker 1 has no 'blocks', but the round has 'blocks'\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"worker\": 1, \"blocks\": [1.25]}]}\n",
     "t.json:1: error: entry 1 of worker 1's 'blocks' (a block number) must be a whole number "
     "from 1, not 1.25\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"worker\": 1, \"blocks\": [1], \"seconds\": "
     "-1}]}\n",
     "t.json:1: error: worker 1's 'seconds' must be at least 0\n"},
    {"{\"round\": 1, \"blocks\": [1], \"workers\": [{\"worker\": 1, \"blocks\": [1]}]}\n"
     "{\"round\": 2, \"blocks\": [1], \"workers\": [{\"worker\": 1, \"blocks\": [1]}, "
     "{\"worker\": 2, \"blocks\": []}]}\n",
     "t.json:2: error: 2 workers, but line 1 has 1: every round has the same workers\n"},
    {"{\"round\": 1, \"blocks\": [1]}\n"
     "{\"round\": 2, \"blocks\": [1], \"workers\": [{\"worker\": 1, \"blocks\": [1]}]}\n",
     "t.json:2: error: this round has 'workers', but line 1 has none\n"},
    {"{\"round\": 1, \"blocks\": [1]}\n{\"round\": 2, \"blocks\": [1]}\n"
     "{\"round\": 3, \"blocks\": [1]\n{\"round\": 2, \"blocks\": [1]}\n",
     "t.json:3:26: error: '}' expected near end of file\n"
     "t.json:4: error: round 2 after round 2: rounds must increase\n"},
    {"\xef\xbb\xbf{\"round\": 1, \"blocks\": [1],}\n",
     "t.json:1:29: error: string or '}' expected near '}'\n"},
    {"{\"round\": 1, \"a\": \"\xff\"}\n",
     "t.json:1:19: error: unable to decode byte 0xff near '\"'\n"},
    {"x\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\n",
     "t.json:1:1: error: '[' or '{' expected near 'x'\n"
     "t.json:2:1: error: '[' or '{' expected near 'x'\n"
     "t.json:3:1: error: '[' or '{' expected near 'x'\n"
     "t.json:4:1: error: '[' or '{' expected near 'x'\n"
     "t.json:5:1: error: '[' or '{' expected near 'x'\n"
     "t.json:6:1: error: '[' or '{' expected near 'x'\n"
     "t.json:7:1: error: '[' or '{' expected near 'x'\n"
     "t.json:8:1: error: '[' or '{' expected near 'x'\n"
     "t.json:9:1: error: '[' or '{' expected near 'x'\n"
     "t.json:10:1: error: '[' or '{' expected near 'x'\n"
     "t.json: error: too many errors; the rest is not read\n"},
};

START_TEST(test_trace_bad)
{
    char err[4096];
    struct ptm_trace *t = (struct ptm_trace *)1;
    int rc = read_text(bad_traces[_i].in, err, sizeof(err), &t);
    ck_assert_int_eq(rc, PTM_EDATA);
    ck_assert_ptr_null(t);
    tu_expect_text("bad_traces", _i, err, bad_traces[_i].err, NULL);
}
END_TEST

/* A NUL byte inside a line (fmemopen stops at none: the length is given). */
START_TEST(test_trace_nul)
{
    static const char in[] = "{\"round\": 1, \"blocks\": [1]\0}\n";
    FILE *f = fmemopen((void *)in, sizeof(in) - 1, "r");
    ck_assert_ptr_nonnull(f);
    char err[1024];
    struct ptm_trace *t;
    ck_assert_int_eq(ptm_trace_read(f, "t.json", err, sizeof(err), &t), PTM_EDATA);
    fclose(f);
    ck_assert_str_eq(err, "t.json:1:27: error: a NUL byte: a trace is text\n");
}
END_TEST

/* Every prefix of a good trace: read or rejected, never a crash. */
START_TEST(test_trace_prefixes)
{
    size_t len = strlen(good_trace);
    for (size_t k = 0; k <= len; k++) {
        char *in = strndup(good_trace, k);
        char err[4096];
        struct ptm_trace *t = NULL;
        int rc = read_text(in, err, sizeof(err), &t);
        ck_assert_msg(rc == 0 || rc == PTM_EDATA, "prefix %zu: rc %d", k, rc);
        ck_assert(rc == 0 ? t != NULL : t == NULL);
        ptm_trace_free(t);
        free(in);
    }
}
END_TEST

START_TEST(test_trace_fault)
{
    unsigned long n;
    for (n = 1;; n++) {
        char err[2048];
        struct ptm_trace *t = NULL;
        ptm_fault_inject(n);
        int rc = read_text(good_trace, err, sizeof(err), &t);
        unsigned long calls = ptm_fault_inject(0);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ptm_trace_free(t);
            break;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "allocation %lu failed: rc %d", n, rc);
        ck_assert_ptr_null(t);
    }
    ck_assert_uint_ge(n, 3);
}
END_TEST

/* ---- the renderers on a schedule made here -------------------------------------- */

/* Two workers, two rounds; blocks 0-based; cost of block b is b + 1. */
static struct ptm_trace *small_trace(void)
{
    struct ptm_trace *t = ptm_trace_new(2);
    ck_assert_ptr_nonnull(t);
    t->dry = true;
    t->source = plan_strdup("s.ptm");
    t->job = plan_strdup("s");
    t->policy = plan_strdup("dynamic");
    t->blockset = plan_strdup("coef");
    t->nblocks = 4;
    t->seed = 7;
    t->has_cost = true;
    t->sweeps = 1.25;
    t->cost = calloc(4, sizeof(double));
    for (int b = 0; b < 4; b++)
        t->cost[b] = b + 1;
    struct ptm_trace_round r1 = {
        .round = 1, .seconds = NAN, .candidates = 4, .conflicts = 1, .objective = NAN};
    struct ptm_trace_round r2 = r1;
    r2.round = 2;
    r2.conflicts = 0;
    r2.candidates = 2;
    int64_t a[] = {3}, b[] = {0, 1}, c[] = {2, 1};
    ck_assert_int_eq(ptm_trace_round(t, &r1), 0);
    ck_assert_int_eq(ptm_trace_worker(t, a, 1, 4), 0);
    ck_assert_int_eq(ptm_trace_worker(t, b, 2, 3), 0);
    ck_assert_int_eq(ptm_trace_round(t, &r2), 0);
    ck_assert_int_eq(ptm_trace_worker(t, c, 2, 5), 0);
    ck_assert_int_eq(ptm_trace_worker(t, NULL, 0, 0), 0);
    return t;
}

START_TEST(test_table)
{
    struct ptm_trace *t = small_trace();
    char *text = render(ptm_viz_table, t);
    tu_expect_text(
        "table", 0, text,
        "# dry run of job 's' (s.ptm): schedule dynamic over coef (4 blocks), 2 workers, "
        "2 rounds, seed 7\n"
        "# simulation: " PTM_DRYRUN_MODEL "\n"
        "# cost: the sum of the costs of the worker's blocks (the block set's cost); "
        "idle: the share of the round it waits for the largest cost\n"
        " round worker       cost  idle conflicts  blocks\n"
        "     1      1          4    0%         1  4\n"
        "            2          3   25%            1 2\n"
        "     2      1          5    0%         0  3 2\n"
        "            2          0  100%            \n"
        "# per worker over 2 rounds:\n"
        "worker   blocks       cost  idle\n"
        "     1        3          9    0%\n"
        "     2        2          3   67%\n"
        "# 5 block updates (1.25 sweeps of 4 blocks), 6 candidates, 1 conflicts avoided, "
        "idle share 33%\n",
        NULL);
    free(text);
    ptm_trace_free(t);
}
END_TEST

START_TEST(test_svg_small)
{
    struct ptm_trace *t = small_trace();
    char *svg = render(ptm_viz_svg, t);
    ck_assert(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
    ck_assert(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
    /* one segment per block update, in the block's colour */
    ck_assert_uint_eq(count(svg, "</title></rect>"), 5 + 1 /* one conflict bar */);
    char col[8], want[64];
    ptm_viz_block_color(3, col);
    snprintf(want, sizeof(want), "fill=\"%s\"><title>round 1, worker 1: block 4", col);
    ck_assert_msg(strstr(svg, want), "no segment for block 4 in round 1");
    ck_assert(strstr(svg, "Dry run of job &apos;s&apos;: dynamic over coef"));
    ck_assert(strstr(svg, ">block 4</text>"));
    ck_assert(strstr(svg, ">conflicts avoided</text>"));
    ck_assert(!strstr(svg, "Aggregated"));
    /* the tags open and close in pairs */
    ck_assert_uint_eq(count(svg, "<g "), count(svg, "</g>"));
    ck_assert_uint_eq(count(svg, "<text "), count(svg, "</text>"));
    free(svg);
    ptm_trace_free(t);
}
END_TEST

/* Many rounds, workers and blocks: aggregated, and the picture says so;
 * its size stays bounded. */
START_TEST(test_svg_big)
{
    int P = 100;
    struct ptm_trace *t = ptm_trace_new(P);
    ck_assert_ptr_nonnull(t);
    t->nblocks = 100000;
    int64_t b[40];
    for (int64_t r = 0; r < 3000; r++) {
        struct ptm_trace_round rd = {
            .round = r + 1, .candidates = -1, .conflicts = r % 7, .seconds = NAN, .objective = NAN};
        ck_assert_int_eq(ptm_trace_round(t, &rd), 0);
        for (int p = 0; p < P; p++) {
            for (int k = 0; k < 40; k++)
                b[k] = (r * 4000 + p * 40 + k) % t->nblocks;
            ck_assert_int_eq(ptm_trace_worker(t, b, (size_t)(p % 41), p), 0);
        }
    }
    char *svg = render(ptm_viz_svg, t);
    ck_assert(strstr(svg, "Aggregated: 10 rounds a column (more than 300 rounds); 2 workers a row "
                          "(more than 64 workers);"));
    ck_assert(strstr(svg, "round (10 a column)"));
    ck_assert_uint_lt(strlen(svg), 3000000);
    ck_assert(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0);
    free(svg);
    ptm_trace_free(t);
}
END_TEST

START_TEST(test_render_fault)
{
    struct ptm_trace *t = small_trace();
    for (unsigned long n = 1; n < 20; n++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ptm_fault_inject(n);
        int a = ptm_viz_table(f, t), b = ptm_viz_svg(f, t);
        ptm_fault_inject(0);
        fclose(f);
        free(text);
        ck_assert(a == 0 || a == PTM_ENOMEM);
        ck_assert(b == 0 || b == PTM_ENOMEM);
    }
    ptm_trace_free(t);
}
END_TEST

/* ---- dry runs ------------------------------------------------------------------- */

/* round_robin: each round the next 3 blocks in order, worker p getting
 * blocks k of the round with ceil(3 p / 2) <= k < ceil(3 (p + 1) / 2); a
 * worker's cost is the non-zeros of its columns. */
START_TEST(test_dry_round_robin)
{
    make_job("round_robin { per_round 3 }", "");
    struct ptm_plan *plan = compile_job();
    struct ptm_trace *t = dry(plan, 2, 5, false);
    ck_assert_int_eq(t->workers, 2);
    ck_assert_uint_eq(t->nrounds, 5);
    ck_assert_int_eq(t->nblocks, 7);
    ck_assert(t->dry && t->has_cost && fabs(t->sweeps - 15.0 / 7) < 1e-12);
    int64_t next = 0;
    for (size_t r = 0; r < t->nrounds; r++) {
        ck_assert_int_eq(t->rounds[r].round, (int64_t)r + 1);
        ck_assert_int_eq(t->rounds[r].conflicts, 0);
        int64_t want[3];
        for (int k = 0; k < 3; k++)
            want[k] = (next + k) % 7;
        next = (next + 3) % 7;
        for (int p = 0; p < 2; p++) {
            size_t n;
            const int64_t *b = ptm_trace_blocks(t, r, p, &n);
            double cost = 0;
            size_t i = 0;
            for (int k = (3 * p + 1) / 2; k < (3 * (p + 1) + 1) / 2; k++, i++) {
                ck_assert_uint_gt(n, i);
                ck_assert_int_eq(b[i], want[k]);
                cost += col_nnz[want[k]];
            }
            ck_assert_uint_eq(n, i);
            ck_assert(t->load[r * 2 + (size_t)p] == cost);
        }
    }
    ptm_trace_free(t);
    plan_free(plan);
}
END_TEST

/* Rounds whose columns hold fewer non-zeros than lasso_cd's split_min
 * (by default, on these few) run on the first worker alone: the dry run
 * deals each whole to worker 1, in the policy's order, as ptm run does;
 * with split_min at a round's non-zeros, only the rounds of fewer. */
START_TEST(test_dry_alone)
{
    for (int k = 0; k < 2; k++) {
        char opt[64];
        int64_t least = col_nnz[0] + col_nnz[1] + col_nnz[2];
        snprintf(opt, sizeof(opt), ", split_min = %lld", (long long)least);
        split_opt = k == 0 ? "" : opt;
        make_job("round_robin { per_round 3 }", "");
        struct ptm_plan *plan = compile_job();
        struct ptm_trace *t = dry(plan, 2, 5, false);
        int64_t next = 0, alone = 0;
        for (size_t r = 0; r < t->nrounds; r++) {
            int64_t nnz = 0;
            for (int i = 0; i < 3; i++)
                nnz += col_nnz[(next + i) % 7];
            size_t n0, n1;
            const int64_t *b = ptm_trace_blocks(t, r, 0, &n0);
            ptm_trace_blocks(t, r, 1, &n1);
            bool want = k == 0 || nnz < least;
            ck_assert_msg((n1 == 0) == want, "split_min '%s', round %zu: %zu and %zu blocks",
                          split_opt, r + 1, n0, n1);
            for (size_t i = 0; want && i < 3; i++)
                ck_assert_int_eq(b[i], (next + (int64_t)i) % 7);
            alone += want;
            next = (next + 3) % 7;
        }
        ck_assert(k == 0 ? alone == 5 : alone < 5); /* round 1 holds exactly least */
        ptm_trace_free(t);
        plan_free(plan);
    }
    split_opt = ", split_min = 0";
    make_job("round_robin { per_round 3 }", "");
}
END_TEST

/* random: the same seed gives the same rounds; distinct blocks in range. */
START_TEST(test_dry_random)
{
    make_job("random { per_round 4 }", "");
    struct ptm_plan *plan = compile_job();
    struct ptm_trace *a = dry(plan, 3, 30, false), *b = dry(plan, 3, 30, false);
    ck_assert_uint_eq(a->nentries, 120);
    ck_assert_uint_eq(b->nentries, 120);
    ck_assert(memcmp(a->blocks, b->blocks, 120 * sizeof(int64_t)) == 0);
    for (size_t r = 0; r < a->nrounds; r++) {
        bool seen[7] = {false};
        for (int p = 0; p < 3; p++) {
            size_t n;
            const int64_t *bl = ptm_trace_blocks(a, r, p, &n);
            for (size_t i = 0; i < n; i++) {
                ck_assert(bl[i] >= 0 && bl[i] < 7 && !seen[bl[i]]);
                seen[bl[i]] = true;
            }
        }
    }
    ptm_trace_free(a);
    ptm_trace_free(b);
    plan_free(plan);
}
END_TEST

static bool is_edge(int64_t i, int64_t j)
{
    for (size_t k = 0; k < PTM_ARRAY_LEN(edges); k++)
        if ((edges[k][0] == i && edges[k][1] == j) || (edges[k][0] == j && edges[k][1] == i))
            return true;
    return false;
}

/* dynamic: no round holds both blocks of an edge, and conflicts were avoided;
 * the graph is exactly the edge list. */
START_TEST(test_dry_dynamic)
{
    make_job("dynamic { sample 7, warmup 0, keep independent }", "depend coef from \"edges.txt\"");
    struct ptm_plan *plan = compile_job();
    struct ptm_trace *t = dry(plan, 2, 40, true);
    int64_t avoided = 0;
    for (size_t r = 0; r < t->nrounds; r++) {
        avoided += t->rounds[r].conflicts;
        int64_t all[7];
        size_t m = 0;
        for (int p = 0; p < 2; p++) {
            size_t n;
            const int64_t *b = ptm_trace_blocks(t, r, p, &n);
            for (size_t i = 0; i < n; i++)
                all[m++] = b[i];
        }
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++)
                ck_assert_msg(!is_edge(all[i], all[j]), "round %zu holds blocks %lld and %lld",
                              r + 1, (long long)all[i] + 1, (long long)all[j] + 1);
    }
    ck_assert_int_gt(avoided, 0);
    const struct ptm_depgraph *g = t->graph;
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->nnodes, 7);
    ck_assert(!g->more_edges);
    ck_assert_uint_eq(g->nedges, PTM_ARRAY_LEN(edges));
    for (size_t k = 0; k < g->nedges; k++) {
        ck_assert_int_eq(g->edges[2 * k], edges[k][0]);
        ck_assert_int_eq(g->edges[2 * k + 1], edges[k][1]);
    }
    for (int64_t b = 0; b < 7; b++)
        ck_assert(g->cost[b] == col_nnz[b] && g->priority[b] > 0);
    char *dot = render(ptm_viz_dot, t);
    ck_assert(strstr(dot, "\n  1 -- 2;\n  2 -- 3;\n  4 -- 7;\n}\n"));
    ck_assert_uint_eq(count(dot, " -- "), 3);
    ck_assert_uint_eq(count(dot, "[label=\""), 7);
    ck_assert(strstr(dot, "// nodes: blocks 1 to 7 of 7; edges: conflicts, from depend coef from "
                          "\"edges.txt\"\n"));
    ck_assert(!strstr(dot, "cut:"));
    free(dot);
    ptm_trace_free(t);
    plan_free(plan);
}
END_TEST

/* The graph cut to 3 nodes and 1 edge, and the file says so. */
START_TEST(test_dry_graph_cut)
{
    make_job("dynamic { sample 7 }", "depend coef from \"edges.txt\"");
    struct ptm_plan *plan = compile_job();
    struct ptm_dryrun_opts o = {
        .workers = 2, .rounds = 2, .graph = true, .max_nodes = 3, .max_edges = 1};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    char err[512];
    struct ptm_trace *t;
    ck_assert_int_eq(ptm_dryrun(plan, &o, &dg, err, sizeof(err), &t), 0);
    ptm_data_diags_release(&dg);
    ck_assert_int_eq(t->graph->nnodes, 3);
    ck_assert_uint_eq(t->graph->nedges, 1);
    ck_assert(t->graph->more_edges);
    char *dot = render(ptm_viz_dot, t);
    ck_assert(strstr(dot, "// cut: only blocks 1 to 3 of 7 are drawn"));
    ck_assert(strstr(dot, "// cut: only the first 1 conflicts in block order are drawn"));
    free(dot);
    ptm_trace_free(t);
    plan_free(plan);
}
END_TEST

/* What cannot be dry-run: no data, a bad dependency file, no blocks. */
START_TEST(test_dry_fails)
{
    struct ptm_dryrun_opts o = {
        .workers = 2, .rounds = 2, .graph = true, .max_nodes = 500, .max_edges = 5000};
    char err[2048];
    struct ptm_trace *t = (struct ptm_trace *)1;
    struct ptm_data_diags dg;

    make_job("round_robin", "");
    char *at = strstr(job_text, "x.svm");
    memcpy(at, "n.svm", 5);
    struct ptm_plan *plan = compile_job();
    ptm_data_diags_init(&dg);
    ck_assert_int_eq(ptm_dryrun(plan, &o, &dg, err, sizeof(err), &t), PTM_ENOENT);
    ck_assert_ptr_null(t);
    ck_assert_uint_eq(dg.nerrors, 1);
    ck_assert(strstr(dg.msg[0].text, "n.svm"));
    ptm_data_diags_release(&dg);
    plan_free(plan);

    make_job("dynamic", "depend coef from \"bad-edges.txt\"");
    plan = compile_job();
    ptm_data_diags_init(&dg);
    int rc = ptm_dryrun(plan, &o, &dg, err, sizeof(err), &t);
    ck_assert_int_eq(rc, PTM_EDATA);
    ck_assert_uint_eq(dg.nerrors, 1);
    ck_assert_msg(strstr(dg.msg[0].text, "bad-edges.txt:2:"), "%s", dg.msg[0].text);
    ck_assert_ptr_null(t);
    ptm_data_diags_release(&dg);
    plan_free(plan);
}
END_TEST

START_TEST(test_dry_fault)
{
    make_job("dynamic { sample 7 }", "depend coef from \"edges.txt\"");
    struct ptm_plan *plan = compile_job();
    struct ptm_dryrun_opts o = {
        .workers = 2, .rounds = 3, .graph = true, .max_nodes = 500, .max_edges = 5000};
    unsigned long n;
    for (n = 1;; n++) {
        struct ptm_data_diags dg;
        ptm_data_diags_init(&dg);
        char err[1024];
        struct ptm_trace *t = NULL;
        ptm_fault_inject(n);
        int rc = ptm_dryrun(plan, &o, &dg, err, sizeof(err), &t);
        unsigned long calls = ptm_fault_inject(0);
        ptm_data_diags_release(&dg);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ptm_trace_free(t);
            break;
        }
        if (rc == 0) { /* only shrinking an array failed: harmless */
            ptm_trace_free(t);
            continue;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "allocation %lu failed: rc %d (%s)", n, rc, err);
        ck_assert_ptr_null(t);
    }
    ck_assert_uint_ge(n, 10);
    plan_free(plan);
}
END_TEST

/* ---- data_parallel: the clocks in time ------------------------------------------ */

/* A schedule of P workers and C clocks, its arrays allocated. */
struct sim {
    struct ptm_clock_sched cs;
    double start[64], end[64], all_done[16];
    int64_t behind[64];
};

static void simulate(struct sim *m, int P, int64_t C, const double *dur, int32_t s, int64_t phase)
{
    ck_assert(P * C <= 64 && C <= 16);
    m->cs = (struct ptm_clock_sched){
        .start = m->start, .end = m->end, .behind = m->behind, .all_done = m->all_done};
    ptm_clocks_simulate(P, C, dur, s, phase, &m->cs);
}

static double blocked_of(const struct sim *m, const double *dur, int p, int64_t C)
{
    double busy = 0;
    for (int64_t c = 0; c < C; c++)
        busy += dur[p * C + c];
    return m->cs.makespan - busy;
}

/* Two workers, four clocks; worker 2 slow at its first clock, worker 1 at
 * its third. By hand, under ssp 1: worker 1 runs clocks 1, 2 at [0,1],
 * [1,2], waits for worker 2's clock 1 (ends at 3) to start clock 3 at 3
 * (to 6), clock 4 at [6,7]; worker 2 runs [0,3], [3,4], [4,5], [5,6] and
 * waits 1 at the end: 7 in all, 2 blocked. Under bsp every clock starts
 * when both finished the one before: 0, 3, 4, 7, the end at 8, blocked 2
 * each. With phases of 2 clocks under ssp 1 clock 3 waits for both
 * clock 2s (4): worker 1 runs [4,7], [7,8]; the end at 8. */
START_TEST(test_clocks_hand)
{
    static const double dur[8] = {1, 1, 3, 1, 3, 1, 1, 1};
    struct sim m;
    simulate(&m, 2, 4, dur, 1, 0);
    static const double s1_start[8] = {0, 1, 3, 6, 0, 3, 4, 5};
    static const int64_t s1_behind[8] = {0, 1, 1, 0, 0, 0, 0, 1};
    for (int i = 0; i < 8; i++) {
        ck_assert_double_eq(m.start[i], s1_start[i]);
        ck_assert_double_eq(m.end[i], s1_start[i] + dur[i]);
        ck_assert_int_eq(m.behind[i], s1_behind[i]);
    }
    ck_assert_double_eq(m.cs.makespan, 7);
    ck_assert_double_eq(blocked_of(&m, dur, 0, 4), 1);
    ck_assert_double_eq(blocked_of(&m, dur, 1, 4), 1);

    simulate(&m, 2, 4, dur, 0, 0);
    static const double bsp_start[8] = {0, 3, 4, 7, 0, 3, 4, 7};
    for (int i = 0; i < 8; i++) {
        ck_assert_double_eq(m.start[i], bsp_start[i]);
        ck_assert_int_eq(m.behind[i], 0); /* bsp never reads stale values */
    }
    ck_assert_double_eq(m.cs.makespan, 8);
    ck_assert_double_eq(blocked_of(&m, dur, 0, 4) + blocked_of(&m, dur, 1, 4), 4);

    simulate(&m, 2, 4, dur, 1, 2);
    static const double ph_start[8] = {0, 1, 4, 7, 0, 3, 4, 5};
    for (int i = 0; i < 8; i++)
        ck_assert_double_eq(m.start[i], ph_start[i]);
    ck_assert_double_eq(m.cs.makespan, 8);

    /* async without phases: nobody waits, the slowest worker's sum */
    simulate(&m, 2, 4, dur, -1, 0);
    ck_assert_double_eq(m.start[3], 5);
    ck_assert_double_eq(m.cs.makespan, 6);
}
END_TEST

/* Random durations: each start, recomputed from its definition (the
 * latest of the worker's previous clock and every worker's clock c - s - 1,
 * or c - 1 at a phase's start), and each read's age counted over the
 * workers one by one; the bound makes the age at most s; a looser bound
 * never ends later. */
START_TEST(test_clocks_rules)
{
    uint64_t x = 12345;
    for (int trial = 0; trial < 200; trial++) {
        int P = 1 + trial % 4;
        int64_t C = 1 + trial % 16;
        if (P * C > 64)
            C = 64 / P;
        double dur[64];
        for (int i = 0; i < P * C; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            dur[i] = 1 + (double)((x >> 33) % 5);
        }
        int32_t s = trial % 5 - 1; /* -1 .. 3 */
        int64_t phase = trial % 3 == 0 ? 0 : 1 + trial % 7;
        struct sim m;
        simulate(&m, P, C, dur, s, phase);
        double prev_makespan = m.cs.makespan;
        for (int p = 0; p < P; p++)
            for (int64_t c = 0; c < C; c++) {
                double want = c > 0 ? m.end[p * C + c - 1] : 0;
                int64_t k = -1;
                if (s >= 0 && c - s - 1 >= 0)
                    k = c - s - 1;
                if (phase > 0 && c > 0 && c % phase == 0)
                    k = c - 1;
                for (int q = 0; q < P && k >= 0; q++)
                    want = fmax(want, m.end[q * C + k]);
                ck_assert_double_eq(m.start[p * C + c], want);
                int64_t least = c;
                for (int q = 0; q < P; q++) {
                    int64_t done = 0;
                    while (done < C && m.end[q * C + done] <= m.start[p * C + c])
                        done++;
                    least = done < least ? done : least;
                }
                ck_assert_int_eq(m.behind[p * C + c], c - least);
                if (s >= 0)
                    ck_assert_int_le(m.behind[p * C + c], s);
            }
        if (s >= 0) {
            simulate(&m, P, C, dur, s + 1, phase);
            ck_assert_double_le(m.cs.makespan, prev_makespan);
        }
    }
}
END_TEST

static void make_dp_job(const char *cons, const char *method)
{
    snprintf(job_text, sizeof(job_text),
             "job dp\n"
             "data X : sparse matrix from \"x.svm\" format libsvm shard rows\n"
             "data y : vector from labels(X)\n"
             "param w : vector[cols(X)] = 0 consistency %s\n"
             "param b : vector[1] = 0\n"
             "schedule data_parallel { minibatch 1 }\n"
             "update builtin logreg_sgd { method = %s, rate = 0.1, intercept = b }\n"
             "stop when sweeps >= 1\n",
             cons, method);
}

static int dry_dp(const struct ptm_plan *plan, int workers, int64_t rounds,
                  const struct ptm_straggler *slow, size_t nslow, char *err, size_t errlen,
                  struct ptm_trace **t)
{
    struct ptm_dryrun_opts o = {.workers = workers,
                                .rounds = rounds,
                                .max_nodes = 500,
                                .max_edges = 5000,
                                .stragglers = slow,
                                .nstragglers = nslow};
    struct ptm_data_diags dg;
    ptm_data_diags_init(&dg);
    int rc = ptm_dryrun(plan, &o, &dg, err, errlen, t);
    ptm_data_diags_release(&dg);
    return rc;
}

/* The dry run of a data_parallel job: the job's staleness, the phase (6
 * rows in 2 shards of 3 rows, a minibatch of 1), delays only on the slowed
 * worker, SSP never later than BSP, and the totals in the table and the
 * picture. */
START_TEST(test_dry_clocks)
{
    make_dp_job("ssp 2", "sgd");
    struct ptm_plan *plan = compile_job();
    struct ptm_straggler slow = {.worker = 2, .ms = 4, .prob = 0.5};
    char err[1024];
    struct ptm_trace *t;
    ck_assert_int_eq(dry_dp(plan, 2, 12, &slow, 1, err, sizeof(err), &t), 0);
    const struct ptm_clocks *k = t->clocks;
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(t->workers, 2);
    ck_assert_int_eq(k->clocks, 12);
    ck_assert_int_eq(k->job.staleness, 2);
    ck_assert_int_eq(k->bsp.staleness, 0);
    ck_assert_str_eq(k->consistency, "ssp 2");
    ck_assert_int_eq(k->phase, 3);
    int delayed = 0;
    for (int64_t c = 0; c < 12; c++) {
        ck_assert_double_eq(k->dur[c], 1);
        ck_assert(k->dur[12 + c] == 1 || k->dur[12 + c] == 5);
        delayed += k->dur[12 + c] == 5;
    }
    ck_assert_int_gt(delayed, 0);
    ck_assert_int_lt(delayed, 12);
    ck_assert_double_le(k->job.makespan, k->bsp.makespan);
    char *table = render(ptm_viz_table, t);
    ck_assert_msg(strstr(table, "schedule data_parallel, 2 workers, 12 clocks each, "
                                "consistency ssp 2"),
                  "%s", table);
    ck_assert(strstr(table, "# ssp 2: the last clock ends at "));
    ck_assert(strstr(table, "# bsp: the last clock ends at "));
    ck_assert(strstr(table, "stragglers 2:4:0.5"));
    char *svg = render(ptm_viz_svg, t);
    ck_assert(strstr(svg, "<svg "));
    ck_assert(strstr(svg, "stale read"));
    ck_assert(strstr(svg, "staleness window"));
    ck_assert_uint_eq(count(svg, "<svg "), 1);
    free(table);
    free(svg);
    /* the same seed, the same delays */
    struct ptm_trace *t2;
    ck_assert_int_eq(dry_dp(plan, 2, 12, &slow, 1, err, sizeof(err), &t2), 0);
    ck_assert_mem_eq(t2->clocks->dur, k->dur, 24 * sizeof(double));
    ptm_trace_free(t2);
    ptm_trace_free(t);
    plan_free(plan);

    /* bsp: the job's schedule is BSP's */
    make_dp_job("bsp", "sgd");
    plan = compile_job();
    ck_assert_int_eq(dry_dp(plan, 2, 12, &slow, 1, err, sizeof(err), &t), 0);
    ck_assert_int_eq(t->clocks->job.staleness, 0);
    ck_assert_mem_eq(t->clocks->job.start, t->clocks->bsp.start, 24 * sizeof(double));
    ptm_trace_free(t);
    plan_free(plan);
}
END_TEST

/* Allocation failures in the data_parallel dry run fail cleanly. */
START_TEST(test_dry_clocks_fault)
{
    make_dp_job("ssp 1", "sgd");
    struct ptm_plan *plan = compile_job();
    struct ptm_straggler slow = {.worker = 0, .ms = 2, .prob = 0.5};
    unsigned long n;
    for (n = 1;; n++) {
        char err[1024];
        struct ptm_trace *t = NULL;
        ptm_fault_inject(n);
        int rc = dry_dp(plan, 2, 5, &slow, 1, err, sizeof(err), &t);
        unsigned long calls = ptm_fault_inject(0);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ptm_trace_free(t);
            break;
        }
        if (rc == 0) {
            ptm_trace_free(t);
            continue;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "allocation %lu failed: rc %d (%s)", n, rc, err);
        ck_assert_ptr_null(t);
    }
    ck_assert_uint_ge(n, 10);
    plan_free(plan);
}
END_TEST

START_TEST(test_dry_clocks_fails)
{
    char err[1024];
    struct ptm_trace *t = (struct ptm_trace *)1;
    make_dp_job("ssp 1", "sgd");
    struct ptm_plan *plan = compile_job();
    struct ptm_straggler slow = {.worker = 3, .ms = 4, .prob = 1};
    ck_assert_int_eq(dry_dp(plan, 2, 4, &slow, 1, err, sizeof(err), &t), PTM_EINVAL);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err, "--straggler: there is no worker 3: the run has 2 workers");
    /* more workers than rows: lowered to 6, and said so */
    slow.worker = 7;
    ck_assert_int_eq(dry_dp(plan, 9, 4, &slow, 1, err, sizeof(err), &t), PTM_EINVAL);
    ck_assert_str_eq(err, "--straggler: there is no worker 7: the run has 6 workers (fewer than "
                          "--workers: the data has too few rows)");
    ck_assert_int_eq(dry_dp(plan, 2, 1100000, NULL, 0, err, sizeof(err), &t), PTM_EINVAL);
    ck_assert_msg(strstr(err, "ask for fewer rounds"), "%s", err);
    plan_free(plan);

    make_dp_job("ssp 1", "tron");
    /* tron takes no rate */
    char *at = strstr(job_text, ", rate = 0.1");
    memmove(at, at + 12, strlen(at + 12) + 1);
    plan = compile_job();
    /* rounds (Newton iterations) whose load is each worker's rows: the 6
     * rows in all, every round; a straggler has no clocks to slow */
    ck_assert_int_eq(dry_dp(plan, 2, 4, NULL, 0, err, sizeof(err), &t), 0);
    ck_assert_str_eq(t->unit, "rows");
    ck_assert(ptm_trace_by_rows(t));
    ck_assert_uint_eq(t->nrounds, 4);
    for (size_t r = 0; r < t->nrounds; r++)
        ck_assert_msg(t->load[2 * r] + t->load[2 * r + 1] == 6 && t->load[2 * r] > 0,
                      "round %zu: rows %g + %g", r + 1, t->load[2 * r], t->load[2 * r + 1]);
    ptm_trace_free(t);
    t = NULL;
    slow.worker = 1;
    ck_assert_int_eq(dry_dp(plan, 2, 4, &slow, 1, err, sizeof(err), &t), PTM_EINVAL);
    ck_assert_msg(strstr(err, "method = tron runs Newton iterations, not clocks"), "%s", err);
    plan_free(plan);

    make_job("round_robin", "");
    plan = compile_job();
    slow.worker = 1;
    ck_assert_int_eq(dry_dp(plan, 2, 4, &slow, 1, err, sizeof(err), &t), PTM_EINVAL);
    ck_assert_str_eq(err, "--straggler: schedule round_robin runs rounds, not clocks: a dry run "
                          "slows workers only under schedule data_parallel");
    ck_assert_ptr_null(t);
    plan_free(plan);
}
END_TEST

/* ---- the runner ----------------------------------------------------------------- */

static Suite *viz_suite(void)
{
    Suite *s = suite_create("viz");
    TCase *tc = tcase_create("trace");
    tcase_add_test(tc, test_trace_good);
    tcase_add_test(tc, test_trace_time);
    tcase_add_test(tc, test_trace_old);
    tcase_add_test(tc, test_trace_no_blocks);
    tcase_add_test(tc, test_trace_deep);
    tcase_add_loop_test(tc, test_trace_bad, 0, (int)PTM_ARRAY_LEN(bad_traces));
    tcase_add_test(tc, test_trace_nul);
    tcase_add_test(tc, test_trace_prefixes);
    tcase_add_test(tc, test_trace_fault);
    suite_add_tcase(s, tc);
    tc = tcase_create("render");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_svg_small);
    tcase_add_test(tc, test_svg_big);
    tcase_add_test(tc, test_render_fault);
    suite_add_tcase(s, tc);
    tc = tcase_create("dryrun");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_dry_round_robin);
    tcase_add_test(tc, test_dry_alone);
    tcase_add_test(tc, test_dry_random);
    tcase_add_test(tc, test_dry_dynamic);
    tcase_add_test(tc, test_dry_graph_cut);
    tcase_add_test(tc, test_dry_fails);
    tcase_add_test(tc, test_dry_fault);
    suite_add_tcase(s, tc);
    tc = tcase_create("clocks");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_clocks_hand);
    tcase_add_test(tc, test_clocks_rules);
    tcase_add_test(tc, test_dry_clocks);
    tcase_add_test(tc, test_dry_clocks_fails);
    tcase_add_test(tc, test_dry_clocks_fault);
    suite_add_tcase(s, tc);
    return s;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

int main(void)
{
    char dir[] = "/tmp/ptm-test-viz.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_viz: temporary directory");
        return EXIT_FAILURE;
    }
    if (write_text("x.svm", x_svm) != 0 ||
        write_text("edges.txt", "# conflicts\n1 2\n3 2\n\n1 2\n4 7\n") != 0 ||
        write_text("bad-edges.txt", "1 2\n1 9\n") != 0) {
        perror("test_viz: test files");
        tu_remove_tree(dir);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(viz_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    tu_remove_tree(dir);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
