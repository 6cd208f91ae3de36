/*
 * test_report.c - the report of a run (viz/report.h): what it reads from a
 * trace beside struct ptm_trace, its escaping, and the page.
 *
 * DESIGN: the traces are written here, so what the reader must find is
 * known by construction: the updates summed round by round, each metric's
 * value in its own round, the run's end. Malformed traces are a table of
 * inputs with the whole message each must give. The page is checked for
 * the parts a trace implies (a gap curve whose direction follows the run,
 * a curve per metric, no reference outside it), and allocation failures
 * are injected into the reader and the page (ASan finds leaks).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "chart.h"
#include "dryrun.h"
#include "ptm.h"
#include "report.h"
#include "testutil.h"
#include "viz.h"

/* Three rounds of two workers, with the objective; metrics a and b in
 * rounds 1 and 3 (b null once); a damped round, after which fewer blocks
 * are offered (3, then 4); the run's end. */
static const char trace[] =
    "{\"round\": 1, \"seconds\": 0.5, \"blocks\": [1, 2, 3, 4], \"updates\": 4, "
    "\"schedule_seconds\": 0.1, \"work_seconds\": 0.2, \"combine_seconds\": 0.05, "
    "\"objective_seconds\": 0.05, \"workers\": [{\"worker\": 1, \"blocks\": [1, 2], "
    "\"seconds\": 0.2}, {\"worker\": 2, \"blocks\": [3, 4], \"seconds\": 0.1}], "
    "\"objective\": 10, \"metrics\": {\"a\": 1.5, \"b\": null}}\n"
    "{\"round\": 2, \"seconds\": 1.0, \"blocks\": [1, 2, 3, 4, 5], \"updates\": 5, "
    "\"workers\": [{\"worker\": 1, \"blocks\": [1, 2, 3], \"seconds\": 0.3}, {\"worker\": 2, "
    "\"blocks\": [4, 5], \"seconds\": 0.4}], \"objective\": 6, \"step\": 0.5, \"offer\": 3}\n"
    "\n"
    "{\"round\": 3, \"seconds\": 2.0, \"blocks\": [1, 2, 3, 4, 5, 6], \"updates\": 6, "
    "\"workers\": [{\"worker\": 1, \"blocks\": [1, 2, 3], \"seconds\": 0.5}, {\"worker\": 2, "
    "\"blocks\": [4, 5, 6], \"seconds\": 0.9}], \"objective\": 4, "
    "\"metrics\": {\"b\": 7, \"a\": 2.5}, \"offer\": 4}\n"
    "{\"stopped\": \"sweeps >= 3 (sweeps 3)\", \"rounds\": 3, \"sweeps\": 3, \"seconds\": 2.0, "
    "\"updates\": 15, \"objective\": 4, \"job\": \"dir/j <1>.ptm\"}\n";

static FILE *text_file(const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    return f;
}

static int read_report(const char *text, char *err, size_t errlen, struct ptm_report **r)
{
    FILE *f = text_file(text);
    int rc = ptm_report_read(f, "t.json", err, errlen, r);
    fclose(f);
    return rc;
}

static struct ptm_trace *read_trace(const char *text)
{
    char err[2048];
    struct ptm_trace *t;
    FILE *f = text_file(text);
    int rc = ptm_trace_read(f, "t.json", err, sizeof(err), &t);
    fclose(f);
    ck_assert_msg(rc == 0, "%s", err);
    return t;
}

/* ---- reading ------------------------------------------------------------------- */

START_TEST(test_read)
{
    char err[1024];
    struct ptm_report *r;
    ck_assert_int_eq(read_report(trace, err, sizeof(err), &r), 0);
    ck_assert_uint_eq(r->nrounds, 3);
    const double updates[] = {4, 9, 15}, seconds[] = {0.5, 1.0, 2.0};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(r->round[i], (int64_t)i + 1);
        ck_assert_double_eq(r->updates[i], updates[i]);
        ck_assert_double_eq(r->seconds[i], seconds[i]);
    }
    ck_assert_double_eq(r->objective[0], 10);
    ck_assert_double_eq(r->objective[1], 6);
    ck_assert_double_eq(r->objective[2], 4);
    ck_assert_uint_eq(r->damped, 1);
    ck_assert_uint_eq(r->offered, 2);
    ck_assert_int_eq(r->offer_min, 3);
    /* a and b in the order they first appear, each value in its round */
    ck_assert_uint_eq(r->nmetrics, 2);
    ck_assert_str_eq(r->metric[0], "a");
    ck_assert_str_eq(r->metric[1], "b");
    ck_assert_uint_eq(r->nmvalues, 4);
    double a[3] = {NAN, NAN, NAN}, b[3] = {NAN, NAN, NAN};
    for (size_t i = 0; i < r->nmvalues; i++)
        (r->mindex[i] == 0 ? a : b)[r->mround[i]] = r->mvalue[i];
    ck_assert_double_eq(a[0], 1.5);
    ck_assert_double_eq(a[2], 2.5);
    ck_assert(isnan(b[0])); /* null */
    ck_assert_double_eq(b[2], 7);
    /* the end */
    ck_assert(r->ended);
    ck_assert_str_eq(r->stopped, "sweeps >= 3 (sweeps 3)");
    ck_assert_str_eq(r->job, "dir/j <1>.ptm");
    ck_assert_int_eq(r->end_rounds, 3);
    ck_assert_int_eq(r->end_sweeps, 3);
    ck_assert_double_eq(r->end_updates, 15);
    ck_assert_double_eq(r->end_objective, 4);
    ptm_report_free(r);
}
END_TEST

/* ptm plan's reader skips the run's end: three rounds, not four. */
START_TEST(test_trace_skips_end)
{
    struct ptm_trace *t = read_trace(trace);
    ck_assert_uint_eq(t->nrounds, 3);
    ck_assert_int_eq(t->rounds[2].round, 3);
    ptm_trace_free(t);
}
END_TEST

/* A trace without "updates" (an older one): each round's blocks. */
START_TEST(test_read_old)
{
    char err[1024];
    struct ptm_report *r;
    ck_assert_int_eq(read_report("{\"round\": 1, \"blocks\": [1, 2]}\n"
                                 "{\"round\": 2, \"blocks\": [3]}\n",
                                 err, sizeof(err), &r),
                     0);
    ck_assert_uint_eq(r->nrounds, 2);
    ck_assert_double_eq(r->updates[0], 2);
    ck_assert_double_eq(r->updates[1], 3);
    ck_assert(isnan(r->seconds[0]));
    ck_assert(!r->ended);
    ck_assert_int_eq(r->end_sweeps, -1);
    ptm_report_free(r);
}
END_TEST

static const struct {
    const char *text, *message;
} bad[] = {
    {"{\"round\": 1, \"blocks\": []}\n{\"round\": 2, \"blocks\": [1,]}\n",
     "t.json:2:27: error: unexpected token near ']'"},
    {"{\"round\": 1, \"blocks\": [], \"metrics\": [1]}\n",
     "t.json:1: error: 'metrics' is not an object"},
    {"{\"round\": 1, \"blocks\": [], \"metrics\": {\"m\": \"x\"}}\n",
     "t.json:1: error: the metric 'm' is not a number or null"},
    {"{\"round\": 1, \"blocks\": [], \"seconds\": \"1\"}\n",
     "t.json:1: error: 'seconds' is not a number"},
    {"{\"round\": \"1\", \"blocks\": []}\n", "t.json:1: error: 'round' is not a number"},
    {"{\"round\": 1, \"blocks\": [], \"offer\": 2.5}\n",
     "t.json:1: error: 'offer' is not a number of blocks"},
    {"{\"round\": 1, \"blocks\": [], \"offer\": 0}\n",
     "t.json:1: error: 'offer' is not a number of blocks"},
    {"{\"round\": 1, \"blocks\": [], \"offer\": \"9\"}\n",
     "t.json:1: error: 'offer' is not a number"},
    {"{\"round\": 1, \"blocks\": []}\n{\"stopped\": 3}\n",
     "t.json:2: error: 'stopped' is not a string"},
    {"{\"round\": 1, \"blocks\": []}\n{\"stopped\": \"x\", \"job\": 1}\n",
     "t.json:2: error: 'job' is not a string"},
    {"{\"blocks\": []}\n", "t.json:1: error: this line has neither 'round' nor 'stopped'"},
    {"[1]\n", "t.json:1: error: not a JSON object: a trace has one object a line"},
};

START_TEST(test_read_bad)
{
    char err[1024];
    struct ptm_report *r = (struct ptm_report *)1;
    ck_assert_int_eq(read_report(bad[_i].text, err, sizeof(err), &r), PTM_EDATA);
    ck_assert_ptr_null(r);
    tu_expect_text("bad", _i, err, bad[_i].message, NULL);
}
END_TEST

START_TEST(test_read_fault)
{
    unsigned long n;
    for (n = 1;; n++) {
        char err[1024];
        struct ptm_report *r = NULL;
        ptm_fault_inject(n);
        int rc = read_report(trace, err, sizeof(err), &r);
        unsigned long calls = ptm_fault_inject(0);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            ptm_report_free(r);
            break;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "allocation %lu failed: rc %d", n, rc);
        ck_assert_ptr_null(r);
    }
    ck_assert_uint_ge(n, 8);
}
END_TEST

/* ---- escaping ------------------------------------------------------------------- */

static const struct {
    const char *in, *out;
} esc_rows[] = {
    {"a < b & c > \"d\" 'e'", "a &lt; b &amp; c &gt; &quot;d&quot; 'e'"},
    {"tab\tnew\nline", "tab\tnew\nline"},
    {"bell\a del\x7f", "bell\xef\xbf\xbd del\xef\xbf\xbd"},
    {"\xc3\xa9t\xc3\xa9 \xe2\x88\x92 \xf0\x9f\x99\x82", "\xc3\xa9t\xc3\xa9 \xe2\x88\x92 \xf0\x9f\x99\x82"},
    {"cut \xc3", "cut \xef\xbf\xbd"},                       /* a sequence cut short */
    {"lone \x80 byte", "lone \xef\xbf\xbd byte"},            /* a continuation byte */
    {"over \xc0\xaf", "over \xef\xbf\xbd\xef\xbf\xbd"},      /* an overlong '/' */
    {"sur \xed\xa0\x80", "sur \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
    {"big \xf4\x90\x80\x80", "big \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
};

START_TEST(test_esc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(m);
    viz_escs(m, esc_rows[_i].in);
    ck_assert_int_eq(fclose(m), 0);
    tu_expect_text("esc", _i, buf, esc_rows[_i].out, NULL);
    free(buf);
}
END_TEST

/* ---- the page -------------------------------------------------------------------- */

static char *page(const char *text, const struct ptm_report_opts *o)
{
    char err[1024];
    struct ptm_report *r;
    ck_assert_int_eq(read_report(text, err, sizeof(err), &r), 0);
    struct ptm_trace *t = read_trace(text);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(ptm_report_html(m, t, r, o), 0);
    ck_assert_int_eq(fclose(m), 0);
    ptm_report_free(r);
    ptm_trace_free(t);
    return buf;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

START_TEST(test_page)
{
    struct ptm_report_opts o = {.trace = "t.json"};
    char *s = page(trace, &o);
    /* objective, its gap, a and b: two curves each; the schedule, the
     * workers' load and the coordinator */
    ck_assert_int_eq(count(s, "<svg "), 8 + 3);
    ck_assert_ptr_nonnull(strstr(s, "<title>objective - lowest against updates</title>"));
    ck_assert_ptr_nonnull(strstr(s, "<title>b against time</title>"));
    ck_assert_ptr_nonnull(strstr(s, "sweeps &gt;= 3 (sweeps 3)</div>"));
    ck_assert_ptr_nonnull(strstr(s, "<b>Stopped at sweep 3</b> (round 3, 2 s)"));
    ck_assert_ptr_nonnull(strstr(s, "<code>dir/j &lt;1&gt;.ptm</code>"));
    ck_assert_ptr_nonnull(strstr(s, "<th>damped rounds</th><td class=\"n\">1</td>"));
    ck_assert_ptr_nonnull(strstr(s, "<th>fewest blocks offered</th><td class=\"n\">3</td>"));
    ck_assert_ptr_null(strstr(s, "<?xml"));
    ck_assert_ptr_null(strstr(s, "<script"));
    ck_assert_ptr_null(strstr(s, "href="));
    ck_assert_ptr_null(strstr(s, "src="));
    /* the workers' busy seconds, summed over the rounds: 1.0 and 1.4 */
    ck_assert_ptr_nonnull(strstr(s, "<tr><td>1</td><td class=\"n\">1 s</td>"));
    ck_assert_ptr_nonnull(strstr(s, "<tr><td>2</td><td class=\"n\">1.4 s</td>"));
    ck_assert_int_eq(strcmp(s + strlen(s) - 8, "</html>\n"), 0);
    free(s);
}
END_TEST

/* An objective that rises (a likelihood): the gap is to the highest. */
START_TEST(test_page_rising)
{
    static const char up[] = "{\"round\": 1, \"blocks\": [1], \"objective\": -9}\n"
                             "{\"round\": 2, \"blocks\": [1], \"objective\": -5}\n"
                             "{\"round\": 3, \"blocks\": [1], \"objective\": -4}\n"
                             "{\"round\": 4, \"blocks\": [1], \"objective\": -3.5}\n";
    struct ptm_report_opts o = {.job = "x.ptm", .job_text = "job x\n<&>\n", .job_len = 10};
    char *s = page(up, &o);
    ck_assert_ptr_nonnull(strstr(s, "<title>highest - objective against time</title>"));
    ck_assert_ptr_null(strstr(s, "objective - lowest"));
    ck_assert_ptr_nonnull(strstr(s, "<pre>job x\n&lt;&amp;&gt;\n</pre>"));
    ck_assert_ptr_nonnull(strstr(s, "The trace does not say why the run stopped"));
    ck_assert_ptr_nonnull(strstr(s, "the trace was not kept"));
    free(s);
}
END_TEST

START_TEST(test_page_fault)
{
    char err[1024];
    struct ptm_report *r;
    ck_assert_int_eq(read_report(trace, err, sizeof(err), &r), 0);
    struct ptm_trace *t = read_trace(trace);
    struct ptm_report_opts o = {0};
    unsigned long n;
    for (n = 1;; n++) {
        FILE *null = fopen("/dev/null", "w");
        ck_assert_ptr_nonnull(null);
        ptm_fault_inject(n);
        int rc = ptm_report_html(null, t, r, &o);
        unsigned long calls = ptm_fault_inject(0);
        fclose(null);
        if (calls < n) {
            ck_assert_int_eq(rc, 0);
            break;
        }
        ck_assert_msg(rc == PTM_ENOMEM, "allocation %lu failed: rc %d", n, rc);
    }
    ck_assert_uint_ge(n, 3);
    ptm_report_free(r);
    ptm_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("read");
    tcase_add_test(tc, test_read);
    tcase_add_test(tc, test_trace_skips_end);
    tcase_add_test(tc, test_read_old);
    tcase_add_loop_test(tc, test_read_bad, 0, (int)PTM_ARRAY_LEN(bad));
    tcase_add_test(tc, test_read_fault);
    suite_add_tcase(s, tc);
    tc = tcase_create("esc");
    tcase_add_loop_test(tc, test_esc, 0, (int)PTM_ARRAY_LEN(esc_rows));
    suite_add_tcase(s, tc);
    tc = tcase_create("page");
    tcase_add_test(tc, test_page);
    tcase_add_test(tc, test_page_rising);
    tcase_add_test(tc, test_page_fault);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
