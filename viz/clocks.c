/*
 * clocks.c - the dry run of a data_parallel job (t->clocks): its table and
 * its picture, the workers' clocks in time under the job's consistency and
 * under BSP.
 *
 * DESIGN: the picture is worker x time, not worker x round: a clock is as
 * long as it takes, so waiting is seen as the gaps between clocks. Two
 * Gantt panels on one time axis (the job's consistency above, BSP below)
 * make the saving visible as the difference in length, with each panel's
 * end marked in the other. A third panel plots each worker's clocks done
 * against time inside the staleness window (the clocks every worker has
 * finished, up to s + 1 more), the band a worker may not leave. A clock is
 * filled with its worker's colour, hatched when its read may be stale;
 * blocked time is hatched red (the staleness bound, or BSP's barrier at
 * every clock), waiting at a phase's barrier or for the last clock grey.
 * Big runs stay a sane size: at most ROWS_MAX workers are drawn, and
 * when clocks are too many or too thin to draw one by one, each row is
 * drawn a pixel at a time (the kind that covers a pixel), as a line under
 * the title says.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"
#include "svg_impl.h"
#include "viz.h"

#define ROWS_MAX 32
#define CELLS_MAX 6000 /* clocks drawn one by one, with tooltips */
#define ML 130.0       /* left margin: labels */
#define CW 860.0       /* the time axis */
#define PANEL_W 250.0  /* right: each worker's totals */
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define C_TEXT "#222222"
#define C_SUB "#555555"
#define C_GRID "#d5d8dd"
#define C_BAND "#fde9b8"
#define C_END "#b2182b"
#define LEGEND_W 300.0

/* ---- helpers ----------------------------------------------------------------- */

/* A step of 1, 2 or 5 times a power of ten, at least x. */
static double nice(double x)
{
    double p = pow(10, floor(log10(x > 0 ? x : 1)));
    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* Worker p's colour: ten distinct ones, then golden-angle hues. */
static void worker_color(int p, char out[8])
{
    static const char *const ten[10] = {"#4e79a7", "#59a14f", "#9c755f", "#b07aa1", "#76b7b2",
                                        "#edc948", "#f28e2b", "#bab0ac", "#17becf", "#8c564b"};
    if (p < 10)
        snprintf(out, 8, "%s", ten[p]);
    else
        ptm_viz_block_color(p, out);
}

static void sched_name(const struct ptm_clocks *k, const struct ptm_clock_sched *cs, char *buf,
                       size_t n)
{
    snprintf(buf, n, "%s", cs == &k->bsp ? "bsp" : k->consistency);
}

/* The time worker p is blocked: before its clocks and, after its last, until
 * the last clock of all ends. */
static double blocked(const struct ptm_trace *t, const struct ptm_clock_sched *cs, int p)
{
    const struct ptm_clocks *k = t->clocks;
    double busy = 0;
    for (int64_t c = 0; c < k->clocks; c++)
        busy += k->dur[(size_t)p * (size_t)k->clocks + (size_t)c];
    return cs->makespan - busy;
}

static double busy_all(const struct ptm_trace *t)
{
    const struct ptm_clocks *k = t->clocks;
    double b = 0;
    for (size_t i = 0; i < (size_t)t->workers * (size_t)k->clocks; i++)
        b += k->dur[i];
    return b;
}

static int64_t stale_reads(const struct ptm_trace *t, const struct ptm_clock_sched *cs, int p0,
                           int p1)
{
    const struct ptm_clocks *k = t->clocks;
    int64_t n = 0;
    for (int p = p0; p < p1; p++)
        for (int64_t c = 0; c < k->clocks; c++)
            n += cs->behind[(size_t)p * (size_t)k->clocks + (size_t)c] > 0;
    return n;
}

/* ---- the table --------------------------------------------------------------- */

static void total_line(FILE *out, const struct ptm_trace *t, const struct ptm_clock_sched *cs)
{
    char name[32];
    sched_name(t->clocks, cs, name, sizeof(name));
    double all = cs->makespan * t->workers, wait = all - busy_all(t);
    fprintf(out,
            "# %s: the last clock ends at %.6g %s; %.6g %s blocked of %.6g (%.0f%%); %lld "
            "stale read%s\n",
            name, cs->makespan, PTM_CLOCKS_UNIT, wait, PTM_CLOCKS_UNIT, all,
            all > 0 ? 100 * wait / all : 0, (long long)stale_reads(t, cs, 0, t->workers),
            stale_reads(t, cs, 0, t->workers) == 1 ? "" : "s");
}

int ptm_viz_clocks_table(FILE *out, const struct ptm_trace *t)
{
    const struct ptm_clocks *k = t->clocks;
    int P = t->workers;
    size_t C = (size_t)k->clocks;
    const struct ptm_clock_sched *cs = &k->job;
    fprintf(out,
            "# dry run of %s%s%s%s%s: schedule data_parallel, %d worker%s, %lld clock%s each, "
            "consistency %s, seed %llu\n",
            t->job ? "job '" : "", t->job ? t->job : "", t->job ? "' (" : "",
            t->source ? t->source : "?", t->job ? ")" : "", P, P == 1 ? "" : "s",
            (long long)k->clocks, k->clocks == 1 ? "" : "s", k->consistency,
            (unsigned long long)t->seed);
    fprintf(out,
            "# simulation: a clock's work takes %g %s; %s%s%s; a phase is %lld clock%s and "
            "ends in a barrier\n",
            k->work, PTM_CLOCKS_UNIT, k->slow ? "stragglers " : "no stragglers",
            k->slow ? k->slow : "",
            k->slow ? " (worker W's clock takes MS ms longer with probability PROB, drawn from "
                      "the seed as ptm run draws it)"
                    : "",
            (long long)k->phase, k->phase == 1 ? "" : "s");
    if (cs->staleness > 0)
        fprintf(out,
                "# %s: a worker starts clock c when every worker has finished clock c - %d "
                "(it runs at most %d clock%s ahead of the slowest); bsp: when every worker has "
                "finished clock c - 1\n",
                k->consistency, (int)cs->staleness + 1, (int)cs->staleness,
                cs->staleness == 1 ? "" : "s");
    else if (cs->staleness < 0)
        fprintf(out, "# async: a worker never waits for the others but at a phase's barrier; "
                     "bsp: it starts clock c when every worker has finished clock c - 1\n");
    else
        fprintf(out, "# bsp: a worker starts clock c when every worker has finished clock c - 1\n");
    fprintf(out, "# wait: blocked before the clock; age: how many clocks old its read may be "
                 "(0: every update of the clocks before it is in)\n");
    if (t->note)
        fprintf(out, "# note: %s\n", t->note);
    fprintf(out, "%6s %6s %10s %10s %10s %4s\n", "clock", "worker", "start", "time", "wait", "age");
    for (size_t c = 0; c < C; c++)
        for (int p = 0; p < P; p++) {
            size_t i = (size_t)p * C + c;
            char clock[24] = "";
            if (p == 0)
                snprintf(clock, sizeof(clock), "%zu", c + 1);
            double prev = c > 0 ? cs->end[i - 1] : 0;
            fprintf(out, "%6s %6d %10.6g %10.6g %10.6g %4lld\n", clock, p + 1, cs->start[i],
                    k->dur[i], cs->start[i] - prev, (long long)cs->behind[i]);
        }
    fprintf(out,
            "# per worker over %lld clock%s (%s; blocked: before its clocks and after its "
            "last, until the last clock of all ends):\n",
            (long long)k->clocks, k->clocks == 1 ? "" : "s", PTM_CLOCKS_UNIT);
    fprintf(out, "%6s %7s %10s %10s %6s %12s\n", "worker", "clocks", "busy", "blocked", "stale",
            "bsp blocked");
    for (int p = 0; p < P; p++) {
        double b = blocked(t, &k->bsp, p);
        fprintf(out, "%6d %7lld %10.6g %10.6g %6lld %12.6g\n", p + 1, (long long)k->clocks,
                cs->makespan - blocked(t, cs, p), blocked(t, cs, p),
                (long long)stale_reads(t, cs, p, p + 1), b);
    }
    total_line(out, t, cs);
    if (cs->staleness != 0) {
        total_line(out, t, &k->bsp);
        double all = busy_all(t);
        double wj = cs->makespan * P - all, wb = k->bsp.makespan * P - all;
        fprintf(out,
                "# %s against bsp: %.6g %s less blocked (%.0f%% less), the last clock ends in "
                "%.3g of bsp's time\n",
                k->consistency, wb - wj, PTM_CLOCKS_UNIT, wb > 0 ? 100 * (wb - wj) / wb : 0,
                k->bsp.makespan > 0 ? cs->makespan / k->bsp.makespan : 1);
    }
    return ferror(out) ? PTM_EIO : 0;
}

/* ---- the picture ------------------------------------------------------------- */

enum kind { K_FRESH, K_STALE, K_BLOCKED, K_BARRIER, K_NKINDS };

struct pic {
    FILE *out;
    const struct ptm_trace *t;
    int rows;     /* workers drawn */
    double rowh;  /* pixels a worker */
    double scale; /* pixels a time unit */
    bool each;    /* clocks one by one */
    double tmax;
};

static double xof(const struct pic *g, double time)
{
    return ML + time * g->scale;
}

/* A row's pending segment, pixel mode: merged while the kind is the same,
 * and thinner ones than a pixel are taken into it. */
struct run {
    double x0, x1;
    int kind;
    bool open;
};

static void fill_of(int p, int kind, char *buf, size_t n)
{
    char col[8];
    worker_color(p, col);
    if (kind == K_BLOCKED)
        snprintf(buf, n, "url(#blocked)");
    else if (kind == K_BARRIER)
        snprintf(buf, n, "url(#barrier)");
    else
        snprintf(buf, n, "%s", col);
}

static void emit(const struct pic *g, int p, double y, double h, const struct run *r)
{
    char fill[32];
    fill_of(p, r->kind, fill, sizeof(fill));
    double w = r->x1 - r->x0 > 0.3 ? r->x1 - r->x0 : 0.3;
    fprintf(g->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
            r->x0, y, w, h, fill);
    if (r->kind == K_STALE)
        fprintf(
            g->out,
            "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"url(#stale)\"/>\n",
            r->x0, y, w, h);
}

static void add_seg(const struct pic *g, int p, double y, double h, struct run *r, double x0,
                    double x1, int kind)
{
    if (r->open && (r->kind == kind || x1 - x0 < 1) && x0 - r->x1 < 0.5) {
        r->x1 = x1;
        return;
    }
    if (r->open)
        emit(g, p, y, h, r);
    *r = (struct run){x0, x1, kind, true};
}

/* One Gantt panel at y: the clocks of cs. */
static void gantt(struct pic *g, const struct ptm_clock_sched *cs,
                  const struct ptm_clock_sched *other, double y0, const char *label)
{
    FILE *out = g->out;
    const struct ptm_trace *t = g->t;
    const struct ptm_clocks *k = t->clocks;
    size_t C = (size_t)k->clocks;
    double ch = g->rowh * g->rows;
    char buf[400], oname[32];
    sched_name(k, other, oname, sizeof(oname));
    viz_svg_text(out, ML, y0 - 8, "start", 12, C_TEXT, "bold", label);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
            "stroke=\"%s\"/>\n",
            ML, y0, g->tmax * g->scale, ch, C_GRID);
    for (int p = 0; p < g->rows; p++) {
        double y = y0 + g->rowh * p + 1.5, h = g->rowh - 3;
        int lstep = g->rowh >= 11 ? 1 : (int)ceil(11 / g->rowh);
        snprintf(buf, sizeof(buf), "worker %d", p + 1);
        if (p % lstep == 0)
            viz_svg_text(out, ML - 8, y0 + g->rowh * p + g->rowh / 2 + 4, "end", g->rowh >= 14 ? 11 : 9,
                 C_TEXT, NULL, buf);
        struct run r = {0};
        for (size_t c = 0; c < C; c++) {
            size_t i = (size_t)p * C + c;
            double prev = c > 0 ? cs->end[i - 1] : 0;
            bool barrier = k->phase > 0 && c > 0 && c % (size_t)k->phase == 0;
            int wk = barrier ? K_BARRIER : K_BLOCKED;
            int ck = cs->behind[i] > 0 ? K_STALE : K_FRESH;
            if (g->each) {
                if (cs->start[i] > prev) {
                    struct run b = {xof(g, prev), xof(g, cs->start[i]), wk, true};
                    emit(g, p, y, h, &b);
                }
                struct run a = {xof(g, cs->start[i]), xof(g, cs->end[i]), ck, true};
                char col[8];
                worker_color(p, col);
                fprintf(out,
                        "<g><title>worker %d, clock %zu: %g %s from %.6g to %.6g%s%s; waited "
                        "%.6g before it; its read may be %lld clock%s old</title>\n",
                        p + 1, c + 1, k->dur[i], PTM_CLOCKS_UNIT, cs->start[i], cs->end[i],
                        k->dur[i] > k->work ? " (a straggler's delay)" : "",
                        barrier ? ", the first of a phase" : "", cs->start[i] - prev,
                        (long long)cs->behind[i], cs->behind[i] == 1 ? "" : "s");
                emit(g, p, y, h, &a);
                fprintf(out,
                        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                        "fill=\"none\" stroke=\"#ffffff\" stroke-width=\"0.8\"/>\n",
                        a.x0, y, a.x1 - a.x0, h);
                if (a.x1 - a.x0 >= 16 && h >= 11) {
                    snprintf(buf, sizeof(buf), "%zu", c + 1);
                    viz_svg_text(out, (a.x0 + a.x1) / 2, y + h / 2 + 3.5, "middle", h >= 16 ? 10 : 8,
                         "#ffffff", "bold", buf);
                }
                fprintf(out, "</g>\n");
            } else {
                if (cs->start[i] > prev)
                    add_seg(g, p, y, h, &r, xof(g, prev), xof(g, cs->start[i]), wk);
                add_seg(g, p, y, h, &r, xof(g, cs->start[i]), xof(g, cs->end[i]), ck);
            }
        }
        double last = C ? cs->end[(size_t)p * C + C - 1] : 0;
        if (g->each && cs->makespan > last) {
            struct run b = {xof(g, last), xof(g, cs->makespan), K_BARRIER, true};
            emit(g, p, y, h, &b);
        } else if (!g->each) {
            if (cs->makespan > last)
                add_seg(g, p, y, h, &r, xof(g, last), xof(g, cs->makespan), K_BARRIER);
            if (r.open)
                emit(g, p, y, h, &r);
        }
        /* the worker's totals, at the right */
        double bl = blocked(t, cs, p);
        snprintf(buf, sizeof(buf), "busy %.6g, blocked %.6g %s (%.0f%%)", cs->makespan - bl, bl,
                 PTM_CLOCKS_UNIT, cs->makespan > 0 ? 100 * bl / cs->makespan : 0);
        if (p % lstep == 0)
            viz_svg_text(out, ML + CW + 16, y0 + g->rowh * p + g->rowh / 2 + 4, "start",
                 g->rowh >= 14 ? 10 : 8, C_TEXT, NULL, buf);
    }
    /* where this one ends, and where the other does */
    double xe = xof(g, cs->makespan), xo = xof(g, other->makespan);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"2\"/>\n",
            xe, y0 - 4, xe, y0 + ch + 4, C_TEXT);
    if (other != cs && fabs(xo - xe) > 0.5) {
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                xo, y0 - 4, xo, y0 + ch + 4, C_END);
        snprintf(buf, sizeof(buf), "%s ends at %.6g", oname, other->makespan);
        viz_svg_text(out, xo + (xo > xe ? -4 : 4), y0 - 8, xo > xe ? "end" : "start", 10, C_END, "bold",
             buf);
    }
}

/* Time ticks under a panel at y. */
static void ticks(const struct pic *g, double y, bool label)
{
    double step = nice(g->tmax / 10);
    char buf[40];
    for (double v = 0; v <= g->tmax + 1e-9 * g->tmax; v += step) {
        fprintf(g->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                xof(g, v), y, xof(g, v), y + 4, C_SUB);
        snprintf(buf, sizeof(buf), "%g", v);
        viz_svg_text(g->out, xof(g, v), y + 15, "middle", 10, C_TEXT, NULL, buf);
    }
    if (label) {
        snprintf(buf, sizeof(buf), "time (%s)", PTM_CLOCKS_UNIT);
        viz_svg_text(g->out, ML + g->tmax * g->scale / 2, y + 30, "middle", 12, C_TEXT, "bold", buf);
    }
}

/* The clocks done against time, inside the staleness window. */
static void progress(const struct pic *g, double y0, double h)
{
    FILE *out = g->out;
    const struct ptm_trace *t = g->t;
    const struct ptm_clocks *k = t->clocks;
    const struct ptm_clock_sched *cs = &k->job;
    size_t C = (size_t)k->clocks;
    double sy = h / (double)k->clocks;
    char buf[200];
    snprintf(buf, sizeof(buf), "Clocks done under %s%s", k->consistency,
             cs->staleness >= 0 ? ", in the staleness window" : " (no staleness bound)");
    viz_svg_text(out, ML, y0 - 8, "start", 12, C_TEXT, "bold", buf);
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ffffff\" "
            "stroke=\"%s\"/>\n",
            ML, y0, g->tmax * g->scale, h, C_GRID);
    double Y0 = y0 + h; /* clocks done 0 */
    if (cs->staleness >= 0) {
        /* the band: from the clocks every worker has finished (m) to
         * m + s + 1, the most a worker may have finished */
        fprintf(out, "<path fill=\"%s\" stroke=\"none\" d=\"M%.2f %.2f", C_BAND, xof(g, 0), Y0);
        double m = 0;
        for (size_t c = 0; c < C; c++) {
            fprintf(out, " L%.2f %.2f L%.2f %.2f", xof(g, cs->all_done[c]), Y0 - m * sy,
                    xof(g, cs->all_done[c]), Y0 - (m + 1) * sy);
            m += 1;
        }
        fprintf(out, " L%.2f %.2f", xof(g, cs->makespan), Y0 - m * sy);
        /* back along the top, from the end */
        double top = (double)k->clocks;
        fprintf(out, " L%.2f %.2f", xof(g, cs->makespan), Y0 - top * sy);
        for (size_t c = C; c-- > 0;) {
            double up = fmin((double)c + 1 + cs->staleness + 1, top);
            double dn = fmin((double)c + cs->staleness + 1, top);
            fprintf(out, " L%.2f %.2f L%.2f %.2f", xof(g, cs->all_done[c]), Y0 - up * sy,
                    xof(g, cs->all_done[c]), Y0 - dn * sy);
        }
        fprintf(out, " L%.2f %.2f Z\"/>\n", xof(g, 0), Y0 - fmin(cs->staleness + 1, top) * sy);
    }
    for (int p = 0; p < g->rows; p++) {
        char col[8];
        worker_color(p, col);
        /* a worker's line a little apart from the others', where they run together */
        double off = ((double)p - (g->rows - 1) / 2.0) * fmin(1.5, sy * 0.15);
        fprintf(out,
                "<g transform=\"translate(0 %.2f)\"><path fill=\"none\" stroke=\"%s\" "
                "stroke-width=\"1.6\" d=\"M%.2f %.2f",
                off, col, xof(g, 0), Y0);
        for (size_t c = 0; c < C; c++) {
            double e = cs->end[(size_t)p * C + c];
            fprintf(out, " L%.2f %.2f L%.2f %.2f", xof(g, e), Y0 - (double)c * sy, xof(g, e),
                    Y0 - (double)(c + 1) * sy);
        }
        fprintf(out, " L%.2f %.2f\"><title>worker %d</title></path></g>\n", xof(g, cs->makespan),
                Y0 - (double)C * sy, p + 1);
    }
    /* the clock axis */
    double step = nice((double)k->clocks / 5);
    for (double v = 0; v <= (double)k->clocks; v += step) {
        snprintf(buf, sizeof(buf), "%g", v);
        viz_svg_text(out, ML - 6, Y0 - v * sy + 3.5, "end", 10, C_TEXT, NULL, buf);
    }
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
            "font-weight=\"bold\" fill=\"%s\" transform=\"rotate(-90 %.1f %.1f)\">clocks "
            "done</text>\n",
            ML - 40, y0 + h / 2, C_TEXT, ML - 40, y0 + h / 2);
}

int ptm_viz_clocks_svg(FILE *out, const struct ptm_trace *t)
{
    const struct ptm_clocks *k = t->clocks;
    int P = t->workers;
    bool cmp = k->job.staleness != 0;
    struct pic g = {.out = out, .t = t};
    g.rows = P < ROWS_MAX ? P : ROWS_MAX;
    g.rowh = floor(200.0 / g.rows);
    g.rowh = g.rowh < 8 ? 8 : g.rowh > 28 ? 28 : g.rowh;
    g.tmax = fmax(k->job.makespan, k->bsp.makespan);
    if (!(g.tmax > 0))
        g.tmax = 1;
    g.scale = CW / g.tmax;
    /* clocks one by one when few, and each at least 2 pixels wide */
    g.each = (size_t)g.rows * (size_t)k->clocks <= CELLS_MAX && k->work * g.scale >= 2;

    char title[600], lines[12][VIZ_SVG_LINE], buf[1400], name[32];
    int nlines = 0;
    snprintf(title, sizeof(title),
             "Dry run of %s%s%s: data_parallel, %d worker%s, %lld clocks each, %s%s",
             t->job ? "job '" : "", t->job ? t->job : (t->source ? t->source : "?"),
             t->job ? "'" : "", P, P == 1 ? "" : "s", (long long)k->clocks, k->consistency,
             cmp ? " against bsp" : "");
    size_t chars = 150;
    snprintf(buf, sizeof(buf),
             "Simulated (seed %llu): a clock's work takes %g %s; %s%s. A phase is %lld clock%s "
             "and ends in a barrier.",
             (unsigned long long)t->seed, k->work, PTM_CLOCKS_UNIT,
             k->slow ? "slowed with --straggler " : "no stragglers", k->slow ? k->slow : "",
             (long long)k->phase, k->phase == 1 ? "" : "s");
    nlines += viz_svg_wrap(buf, chars, lines + nlines, 3);
    if (k->job.staleness > 0)
        snprintf(buf, sizeof(buf),
                 "Under %s a worker starts clock c once every worker has finished clock c - %d: "
                 "it runs up to %d clocks ahead of the slowest, reading values up to %d clocks "
                 "old; under bsp everyone waits for the slowest at every clock.",
                 k->consistency, (int)k->job.staleness + 1, (int)k->job.staleness,
                 (int)k->job.staleness);
    else if (k->job.staleness < 0)
        snprintf(buf, sizeof(buf),
                 "Under async a worker never waits but at a phase's barrier; "
                 "under bsp everyone waits for the slowest at every clock.");
    else
        snprintf(buf, sizeof(buf), "Under bsp everyone waits for the slowest at every clock.");
    nlines += viz_svg_wrap(buf, chars, lines + nlines, 3);
    if (t->note) {
        snprintf(buf, sizeof(buf), "Note: %s.", t->note);
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 2);
    }
    if (g.rows < P) {
        snprintf(buf, sizeof(buf), "Workers 1 to %d of %d are drawn; the totals count all.", g.rows,
                 P);
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 1);
    }
    if (!g.each) {
        snprintf(buf, sizeof(buf),
                 "Drawn a pixel at a time (%s): each pixel of a row shows what covers it, "
                 "clock numbers and tooltips are left out.",
                 (size_t)g.rows * (size_t)k->clocks > CELLS_MAX ? "too many clocks"
                                                                : "clocks too short to see");
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 2);
    }

    double ch = g.rowh * g.rows;
    double ya = 40 + 16.0 * nlines + 30;
    double yb = cmp ? ya + ch + 50 : ya;
    double yp = yb + ch + 60, ph = 150;
    double ysum = yp + ph + 50;
    double ylegend = ysum + (cmp ? 48 : 28);
    int nleg = (g.rows < 10 ? g.rows : 10) + 6;
    int lcols = 3;
    double width = ML + CW + PANEL_W;
    double height = ylegend + 20.0 * ((nleg + lcols - 1) / lcols) + 20;

    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n",
            width, height, width, height, FONT);
    fprintf(out, "<title>");
    viz_svg_esc(out, title);
    fprintf(out, "</title>\n<defs>\n"
                 "<pattern id=\"stale\" width=\"7\" height=\"7\" patternUnits=\"userSpaceOnUse\" "
                 "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"7\" "
                 "fill=\"#ffffff\" fill-opacity=\"0.5\"/></pattern>\n"
                 "<pattern id=\"blocked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                 "patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" "
                 "fill=\"#fbe3e1\"/><rect width=\"2\" height=\"6\" fill=\"#d62728\"/></pattern>\n"
                 "<pattern id=\"barrier\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                 "patternTransform=\"rotate(-45)\"><rect width=\"6\" height=\"6\" "
                 "fill=\"#eceef1\"/><rect width=\"1.5\" height=\"6\" fill=\"#8c96a3\"/></pattern>\n"
                 "</defs>\n");
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width,
            height);
    viz_svg_text(out, 16, 26, "start", 16, C_TEXT, "bold", title);
    for (int i = 0; i < nlines; i++)
        viz_svg_text(out, 16, 46 + 16.0 * i, "start", 11, C_SUB, NULL, lines[i]);

    /* a light grid of time across the panels, under everything */
    double step = nice(g.tmax / 10);
    for (double v = step; v <= g.tmax + 1e-9 * g.tmax; v += step)
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"0.6\"/>\n",
                xof(&g, v), ya, xof(&g, v), yp + ph, C_GRID);

    fprintf(out, "<g id=\"job\">\n");
    snprintf(buf, sizeof(buf), "%s%s", k->consistency, cmp ? " (the job's consistency)" : "");
    gantt(&g, &k->job, &k->bsp, ya, buf);
    ticks(&g, ya + ch, false);
    fprintf(out, "</g>\n");
    if (cmp) {
        fprintf(out, "<g id=\"bsp\">\n");
        gantt(&g, &k->bsp, &k->job, yb, "bsp (the same clocks, a barrier at every clock)");
        ticks(&g, yb + ch, false);
        fprintf(out, "</g>\n");
    }
    fprintf(out, "<g id=\"progress\">\n");
    progress(&g, yp, ph);
    ticks(&g, yp + ph, true);
    fprintf(out, "</g>\n");

    /* the totals */
    fprintf(out, "<g id=\"totals\">\n");
    double all = busy_all(t);
    double wj = k->job.makespan * P - all, wb = k->bsp.makespan * P - all;
    sched_name(k, &k->job, name, sizeof(name));
    snprintf(buf, sizeof(buf),
             "%s: the last clock ends at %.6g %s; the workers are blocked %.6g %s of %.6g "
             "(%.0f%%); %lld stale reads",
             name, k->job.makespan, PTM_CLOCKS_UNIT, wj, PTM_CLOCKS_UNIT, k->job.makespan * P,
             k->job.makespan > 0 ? 100 * wj / (k->job.makespan * P) : 0,
             (long long)stale_reads(t, &k->job, 0, P));
    viz_svg_text(out, 16, ysum, "start", 12, C_TEXT, "bold", buf);
    if (cmp) {
        snprintf(buf, sizeof(buf),
                 "bsp: ends at %.6g %s, blocked %.6g %s (%.0f%%). %s waits %.6g %s less (%.0f%% "
                 "less) and ends in %.2f of bsp's time.",
                 k->bsp.makespan, PTM_CLOCKS_UNIT, wb, PTM_CLOCKS_UNIT,
                 k->bsp.makespan > 0 ? 100 * wb / (k->bsp.makespan * P) : 0, k->consistency,
                 wb - wj, PTM_CLOCKS_UNIT, wb > 0 ? 100 * (wb - wj) / wb : 0,
                 k->bsp.makespan > 0 ? k->job.makespan / k->bsp.makespan : 1);
        viz_svg_text(out, 16, ysum + 18, "start", 12, C_TEXT, "bold", buf);
    }
    fprintf(out, "</g>\n");

    /* the legend */
    fprintf(out, "<g id=\"legend\">\n");
    viz_svg_text(out, 16, ylegend - 8, "start", 11, C_TEXT, "bold", "Legend");
    int slot = 0;
    double lx, ly;
#define NEXT_SLOT()                                                                                \
    (lx = 16 + LEGEND_W * (slot % lcols), ly = ylegend + 20.0 * (slot / lcols), slot++)
    for (int p = 0; p < g.rows && p < 10; p++) {
        char col[8];
        worker_color(p, col);
        NEXT_SLOT();
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n", lx,
                ly, col);
        snprintf(buf, sizeof(buf), "worker %d: a clock, its read fresh%s", p + 1,
                 p == 9 && g.rows > 10 ? " (and more workers)" : "");
        viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, buf);
    }
    NEXT_SLOT();
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>"
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"url(#stale)\"/>\n",
            lx, ly, "#4e79a7", lx, ly);
    snprintf(buf, sizeof(buf), "stale read: values up to %s clocks old",
             k->job.staleness >= 0 ? "s" : "any number of");
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, buf);
    NEXT_SLOT();
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"url(#blocked)\"/>\n", lx,
            ly);
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL,
         "blocked: s clocks ahead of the slowest (bsp: s = 0)");
    NEXT_SLOT();
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"url(#barrier)\"/>\n", lx,
            ly);
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL,
         "waiting at a phase's barrier or the end");
    if (k->job.staleness >= 0) {
        NEXT_SLOT();
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n", lx,
                ly, C_BAND);
        viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL,
             "staleness window: all finished .. + s + 1");
    }
    NEXT_SLOT();
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
            lx + 7, ly - 1, lx + 7, ly + 13, C_END);
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, "where the other panel's run ends");
#undef NEXT_SLOT
    fprintf(out, "</g>\n</svg>\n");
    return ferror(out) ? PTM_EIO : 0;
}
