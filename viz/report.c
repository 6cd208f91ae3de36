/*
 * report.c - the HTML page about a run (report.h): why and where it
 * stopped, its figures, its convergence curves (objective and each metric
 * against seconds and against updates; the gap to the best objective on a
 * log scale), the schedule picture of ptm plan, each worker's busy and
 * idle seconds and where the coordinator's time went, and the job.
 *
 * DESIGN: one file with nothing outside it, so it can be mailed or
 * archived: the CSS is in <style>, the charts are inline SVG
 * (viz/chart.c), the schedule is ptm_viz_svg()'s picture written to
 * memory and inlined without its XML declaration, and nothing is linked.
 * The page uses only HTML 4 elements beside SVG and escapes every text it
 * did not write itself, so it is well-formed XML too (xmllint checks both
 * in tests/cli.sh).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "chart.h"
#include "ptm.h"
#include "report.h"
#include "viz.h"

/* Bars of the workers' load at most: more workers share a bar. */
#define LOAD_BARS 64

static const char css[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;color:#222;margin:24px auto;"
    "max-width:1100px;padding:0 16px;line-height:1.4}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    "p.sub{color:#666;margin:0 0 12px;font-size:13px}p.note{color:#555;font-size:13px}\n"
    "div.stop{background:#eef5ee;border-left:5px solid #3a8a3a;padding:8px 12px;margin:12px 0}\n"
    "div.stop.none{background:#f4f4f4;border-left-color:#999}\n"
    "div.fail{background:#fbeeee;border-left:5px solid #c33;padding:8px 12px;margin:12px 0;"
    "white-space:pre-wrap}\n"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}\n"
    "td,th{border:1px solid #ddd;padding:3px 10px;text-align:left}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f6f6f6}\n"
    "div.charts{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:10px}\n"
    "svg{max-width:100%;height:auto}svg.chart{border:1px solid #eee}\n"
    "div.pic{overflow-x:auto;border:1px solid #eee}\n"
    "pre{background:#f6f8fa;border:1px solid #e4e4e4;padding:10px;overflow-x:auto;"
    "font-size:12.5px}\n"
    "code{background:#f3f3f3;padding:0 3px}\n";

static void num(FILE *out, double v, const char *unit)
{
    if (!isfinite(v)) {
        fputs("&#8212;", out);
        return;
    }
    fprintf(out, "%.6g%s%s", v, unit ? " " : "", unit ? unit : "");
}

static void pct(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.1f%%", v);
    else
        fputs("&#8212;", out);
}

static void row(FILE *out, const char *name, double v, const char *unit)
{
    fputs("<tr><th>", out);
    viz_escs(out, name);
    fputs("</th><td class=\"n\">", out);
    num(out, v, unit);
    fputs("</td></tr>\n", out);
}

static void rowi(FILE *out, const char *name, int64_t v)
{
    fputs("<tr><th>", out);
    viz_escs(out, name);
    if (v >= 0)
        fprintf(out, "</th><td class=\"n\">%lld</td></tr>\n", (long long)v);
    else
        fputs("</th><td class=\"n\">not in the trace</td></tr>\n", out);
}

/* The last finite value of v[0 .. n), or NaN. */
static double last_of(const double *v, size_t n)
{
    while (n > 0)
        if (isfinite(v[--n]))
            return v[n];
    return NAN;
}

/* The workers' busy seconds summed over the run, and the wall seconds
 * of the rounds that know theirs. */
static double busy_and_wall(const struct ptm_trace *t, double *busy)
{
    double wall = 0;
    for (int p = 0; p < t->workers; p++)
        busy[p] = 0;
    for (size_t r = 0; r < t->nrounds; r++) {
        double s = ptm_trace_span(t, r);
        if (isfinite(s) && s > 0)
            wall += s;
        for (int p = 0; p < t->workers; p++)
            busy[p] += t->load[r * (size_t)t->workers + (size_t)p];
    }
    return wall;
}

static int figures(FILE *out, const struct ptm_trace *t, const struct ptm_report *r)
{
    size_t n = r->nrounds;
    int64_t rounds = r->ended && r->end_rounds >= 0 ? r->end_rounds : n ? r->round[n - 1] : -1;
    double seconds = r->ended && isfinite(r->end_seconds) ? r->end_seconds : last_of(r->seconds, n);
    double updates = r->ended && isfinite(r->end_updates) ? r->end_updates : last_of(r->updates, n);
    double fin = r->ended && isfinite(r->end_objective) ? r->end_objective
                                                        : last_of(r->objective, n);
    size_t evals = 0;
    for (size_t i = 0; i < n; i++)
        evals += isfinite(r->objective[i]);
    fputs("<h2>Figures</h2>\n<table>\n", out);
    rowi(out, "rounds", rounds);
    rowi(out, "sweeps", r->ended ? r->end_sweeps : -1);
    row(out, "wall seconds (from the first round)", seconds, "s");
    row(out, "updates", updates, NULL);
    row(out, "updates a second", seconds > 0 ? updates / seconds : NAN, NULL);
    row(out, "final objective", fin, NULL);
    rowi(out, "objective evaluations", (int64_t)evals);
    rowi(out, "workers", t->workers);
    rowi(out, "damped rounds", (int64_t)r->damped);
    if (r->offered) {
        rowi(out, "rounds after which fewer blocks were offered", (int64_t)r->offered);
        rowi(out, "fewest blocks offered", r->offer_min);
    }
    for (size_t k = 0; k < r->nmetrics; k++) {
        double v = NAN;
        for (size_t i = 0; i < r->nmvalues; i++)
            if (r->mindex[i] == k && isfinite(r->mvalue[i]))
                v = r->mvalue[i];
        char name[160];
        snprintf(name, sizeof(name), "final %s", r->metric[k]);
        row(out, name, v, NULL);
    }
    fputs("</table>\n", out);
    return 0;
}

/* The curves of y (NaN where absent) against seconds and against updates. */
static int pair(FILE *out, const char *what, const double *x_sec,
                const double *x_upd, const double *y, size_t n, bool logy, const char *ylabel,
                const char *note)
{
    char title[192];
    struct viz_series s = {.x = x_sec, .y = y, .n = n};
    snprintf(title, sizeof(title), "%s against time", what);
    struct viz_chart c = {.title = title,
                          .xlabel = "wall seconds since the first round (s)",
                          .ylabel = ylabel,
                          .logy = logy,
                          .x_from_zero = true,
                          .note = note};
    int rc = viz_chart_line(out, &c, &s, 1);
    if (rc != 0)
        return rc;
    snprintf(title, sizeof(title), "%s against updates", what);
    s.x = x_upd;
    c.xlabel = "updates, summed over the rounds";
    return viz_chart_line(out, &c, &s, 1);
}

/* Values spanning more than two decades, all above 0: a log scale. */
static bool wide_positive(const double *y, size_t n)
{
    double lo = INFINITY, hi = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            continue;
        if (y[i] <= 0)
            return false;
        lo = fmin(lo, y[i]);
        hi = fmax(hi, y[i]);
        m++;
    }
    return m >= 3 && hi > 100 * lo;
}

static int convergence(FILE *out, const struct ptm_report *r)
{
    size_t n = r->nrounds;
    int rc = 0;
    fputs("<h2>Convergence</h2>\n", out);
    double *y = ptm_malloc((n ? n : 1) * sizeof(double));
    if (!y)
        return PTM_ENOMEM;
    size_t evals = 0;
    double first = NAN, lastv = NAN, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double f = r->objective[i];
        if (!isfinite(f))
            continue;
        if (!evals++)
            first = f;
        lastv = f;
        lo = fmin(lo, f);
        hi = fmax(hi, f);
    }
    if (evals == 0) {
        fputs("<p class=\"note\">The trace has no objective: the job declares none, or it was "
              "never evaluated.</p>\n",
              out);
    } else {
        fputs("<div class=\"charts\">\n", out);
        bool logy = wide_positive(r->objective, n);
        rc = pair(out, "objective", r->seconds, r->updates, r->objective, n, logy,
                  logy ? "objective (log scale)" : "objective", NULL);
        /* the gap to the best value seen, on a log scale: which way is
         * better is read from the run (lower at the end: minimized) */
        bool down = lastv <= first;
        size_t positive = 0;
        for (size_t i = 0; i < n; i++) {
            double f = r->objective[i];
            y[i] = isfinite(f) ? (down ? f - lo : hi - f) : NAN;
            positive += y[i] > 0;
        }
        if (rc == 0 && evals >= 3 && positive >= 2)
            rc = pair(out, down ? "objective - lowest" : "highest - objective", r->seconds,
                      r->updates, y, n, true,
                      down ? "objective - lowest seen (log scale)"
                           : "highest seen - objective (log scale)",
                      "the best value itself (a gap of 0) is not drawn");
        fputs("</div>\n", out);
        if (rc == 0 && !(evals >= 3 && positive >= 2))
            fputs("<p class=\"note\">No log-scale gap to the best objective: it needs at least "
                  "three evaluations, two of them off the best.</p>\n",
                  out);
    }
    for (size_t k = 0; rc == 0 && k < r->nmetrics; k++) {
        for (size_t i = 0; i < n; i++)
            y[i] = NAN;
        for (size_t i = 0; i < r->nmvalues; i++)
            if (r->mindex[i] == k)
                y[r->mround[i]] = r->mvalue[i];
        bool logy = wide_positive(y, n);
        char label[160];
        snprintf(label, sizeof(label), "%s%s", r->metric[k], logy ? " (log scale)" : "");
        fputs("<div class=\"charts\">\n", out);
        rc = pair(out, r->metric[k], r->seconds, r->updates, y, n, logy, label, NULL);
        fputs("</div>\n", out);
    }
    if (rc == 0)
        fputs("<p class=\"note\">Seconds are the wall time at the end of each round since the "
              "first began (reading the data not counted); updates are the trace's: block "
              "updates, or minibatches under data_parallel. A point is a round where the "
              "objective and metrics were evaluated.</p>\n",
              out);
    ptm_free(y);
    return rc;
}

static int schedule(FILE *out, const struct ptm_trace *t)
{
    char *svg = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&svg, &len);
    if (!m)
        return PTM_ENOMEM;
    int rc = ptm_viz_svg(m, t);
    if (fclose(m) != 0 && rc == 0)
        rc = PTM_ENOMEM;
    if (rc != 0) {
        free(svg);
        return rc == PTM_EIO ? PTM_ENOMEM : rc; /* a stream in memory fails for want of it */
    }
    const char *s = svg;
    if (strncmp(s, "<?xml", 5) == 0) {
        const char *e = strstr(s, "?>");
        s = e ? e + 2 : s;
        while (*s == '\n')
            s++;
    }
    fputs("<h2>Schedule</h2>\n<p class=\"note\">As <code>ptm plan --svg</code> draws the "
          "trace: a row a worker, a column a round; the coordinator's lane above.</p>\n"
          "<div class=\"pic\">\n",
          out);
    fputs(s, out);
    fputs("</div>\n", out);
    free(svg);
    return 0;
}

static int load(FILE *out, const struct ptm_trace *t)
{
    int P = t->workers;
    double *busy = ptm_malloc((size_t)P * sizeof(double));
    if (!busy)
        return PTM_ENOMEM;
    double wall = busy_and_wall(t, busy);
    fputs("<h2>Load</h2>\n", out);
    int per = (P + LOAD_BARS - 1) / LOAD_BARS, nb = (P + per - 1) / per;
    struct viz_bar *bars = ptm_malloc((size_t)nb * sizeof(*bars));
    char(*labels)[48] = ptm_malloc((size_t)nb * sizeof(*labels));
    if (!bars || !labels) {
        ptm_free(busy);
        ptm_free(bars);
        ptm_free(labels);
        return PTM_ENOMEM;
    }
    for (int b = 0; b < nb; b++) {
        int p0 = b * per, p1 = p0 + per < P ? p0 + per : P;
        double sum = 0;
        for (int p = p0; p < p1; p++)
            sum += busy[p];
        sum /= (p1 - p0);
        if (p1 - p0 > 1)
            snprintf(labels[b], sizeof(labels[b]), "workers %d-%d", p0 + 1, p1);
        else
            snprintf(labels[b], sizeof(labels[b]), "worker %d", p0 + 1);
        memset(&bars[b], 0, sizeof(bars[b]));
        bars[b].label = labels[b];
        bars[b].part[0] = sum;
        bars[b].part[1] = wall > sum ? wall - sum : 0;
    }
    static const char *const wname[] = {"busy (the worker's updates)", "idle (of the rounds' wall time)"};
    static const char *const wcolor[] = {"#4e79a7", "#d9d9d9"};
    int rc = viz_chart_bars(out, per > 1 ? "Each worker's seconds (a bar: the mean of its workers)"
                                         : "Each worker's seconds",
                            "seconds over the run (s)", bars, (size_t)nb, 2, wname, wcolor);
    if (rc == 0) {
        double lo = INFINITY, hi = 0, sum = 0;
        for (int p = 0; p < P; p++) {
            lo = fmin(lo, busy[p]);
            hi = fmax(hi, busy[p]);
            sum += busy[p];
        }
        fputs("<table>\n<tr><th>worker</th><th>busy seconds</th><th>share of the wall "
              "time</th></tr>\n",
              out);
        for (int p = 0; p < P && P <= LOAD_BARS; p++) {
            fprintf(out, "<tr><td>%d</td><td class=\"n\">", p + 1);
            num(out, busy[p], "s");
            fputs("</td><td class=\"n\">", out);
            pct(out, wall > 0 ? 100 * busy[p] / wall : NAN);
            fputs("</td></tr>\n", out);
        }
        fputs("<tr><th>mean</th><td class=\"n\">", out);
        num(out, sum / P, "s");
        fputs("</td><td class=\"n\">", out);
        pct(out, wall > 0 ? 100 * sum / P / wall : NAN);
        fputs("</td></tr>\n</table>\n", out);
        fputs("<p class=\"note\">A worker's busy seconds are those the trace gives it in each "
              "round; what it did not work of a round's wall seconds is idle (waiting for the "
              "others, or for the coordinator). The least busy worker: ",
              out);
        num(out, lo, "s");
        fputs(", the busiest: ", out);
        num(out, hi, "s");
        fprintf(out, "; wall seconds of the rounds: ");
        num(out, wall, "s");
        fputs(".</p>\n", out);
    }
    ptm_free(labels);
    ptm_free(bars);
    ptm_free(busy);
    if (rc != 0)
        return rc;
    /* the coordinator */
    double part[5];
    double cwall = ptm_trace_split(t, 0, t->nrounds, part);
    if (!(cwall > 0)) {
        fputs("<p class=\"note\">The trace does not split the coordinator's time (an older "
              "trace).</p>\n",
              out);
        return 0;
    }
    static const char *const cname[] = {"scheduling", "the workers' phases", "combining",
                                        "objective and metrics", "other"};
    static const char *const ccolor[] = {"#e15759", "#4e79a7", "#f28e2b", "#59a14f", "#bab0ac"};
    struct viz_bar cb = {.label = "coordinator"};
    memcpy(cb.part, part, sizeof(part));
    rc = viz_chart_bars(out, "Where the coordinator's time went", "seconds over the run (s)", &cb,
                        1, 5, cname, ccolor);
    if (rc != 0)
        return rc;
    fputs("<table>\n<tr><th>coordinator</th><th>seconds</th><th>share</th></tr>\n", out);
    for (int k = 0; k < 5; k++) {
        fputs("<tr><td>", out);
        viz_escs(out, cname[k]);
        fputs("</td><td class=\"n\">", out);
        num(out, part[k], "s");
        fputs("</td><td class=\"n\">", out);
        pct(out, 100 * part[k] / cwall);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    return 0;
}

static void job(FILE *out, const struct ptm_report *r, const struct ptm_report_opts *o)
{
    const char *path = o->job ? o->job : r->job;
    bool stdin_job = path && strcmp(path, "-") == 0;
    fputs("<h2>Job</h2>\n", out);
    if (o->job_text) {
        fputs("<p class=\"sub\">", out);
        if (path && !stdin_job) {
            viz_escs(out, path);
            fputs(o->job_cut ? " (its beginning)" : "", out);
        } else {
            fputs("the job", out);
        }
        fputs("</p>\n<pre>", out);
        viz_esc(out, o->job_text, o->job_len);
        fputs("</pre>\n", out);
    } else if (stdin_job) {
        fputs("<p class=\"note\">The job was read from standard input; its text is not in the "
              "trace.</p>\n",
              out);
    } else if (path) {
        fputs("<p class=\"note\">The trace names the job <code>", out);
        viz_escs(out, path);
        fputs("</code> (as given to <code>ptm run</code>); its text is not in the trace: "
              "<code>ptm report --job FILE</code> embeds it.</p>\n",
              out);
    } else {
        fputs("<p class=\"note\">The trace does not name its job (it has no last line saying "
              "why the run stopped): <code>ptm report --job FILE</code> embeds it.</p>\n",
              out);
    }
}

int ptm_report_html(FILE *out, const struct ptm_trace *t, const struct ptm_report *r,
                    const struct ptm_report_opts *o)
{
    const char *path = o->job ? o->job : r->job;
    const char *name = path && strcmp(path, "-") != 0 ? path : o->trace ? o->trace : "a run";
    const char *base = strrchr(name, '/');
    base = base && base[1] ? base + 1 : name;
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n<title>ptm report: ",
          out);
    viz_escs(out, base);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
    viz_escs(out, base);
    fputs("</h1>\n<p class=\"sub\">", out);
    if (o->trace) {
        fputs("trace ", out);
        viz_escs(out, o->trace);
    } else {
        fputs("the trace was not kept (<code>ptm run --trace FILE</code> keeps it)", out);
    }
    fprintf(out, "; %d worker%s; made by ptm %s</p>\n", t->workers, t->workers == 1 ? "" : "s",
            PTM_VERSION);
    if (o->failure) {
        fputs("<div class=\"fail\"><b>The run failed:</b> ", out);
        viz_escs(out, o->failure);
        fputs("</div>\n", out);
    }
    if (r->ended) {
        fputs("<div class=\"stop\">", out);
        if (r->end_sweeps >= 0)
            fprintf(out, "<b>Stopped at sweep %lld</b> (round %lld, ", (long long)r->end_sweeps,
                    (long long)r->end_rounds);
        else
            fprintf(out, "<b>Stopped</b> (round %lld, ", (long long)r->end_rounds);
        num(out, r->end_seconds, "s");
        fputs("): ", out);
        viz_escs(out, r->stopped);
        fputs("</div>\n", out);
    } else {
        fputs("<div class=\"stop none\">The trace does not say why the run stopped: it has no "
              "last line {\"stopped\": ...} (the run failed, or an older ptm wrote it).</div>\n",
              out);
    }
    int rc = figures(out, t, r);
    if (rc == 0)
        rc = convergence(out, r);
    if (rc == 0)
        rc = schedule(out, t);
    if (rc == 0)
        rc = load(out, t);
    if (rc == 0)
        job(out, r, o);
    fputs("</body>\n</html>\n", out);
    if (rc == 0 && ferror(out))
        rc = PTM_EIO;
    return rc;
}
