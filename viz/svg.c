/*
 * svg.c - the schedule as an SVG Gantt chart (ptm plan --svg).
 *
 * DESIGN: rows are workers, columns rounds, all columns one width (a
 * round is a step, not a length of time). In a cell the worker's blocks
 * are segments side by side, each as wide as its share of the worker's
 * load (its cost in a dry run; an equal share of the busy seconds in a
 * trace), and the whole bar is as long as the worker's load over the
 * round's largest (in the trace of a run, over the round's wall seconds):
 * the empty rest of the cell is the worker's idle share. A run's trace
 * with the coordinator's time split gets a lane above the workers: each
 * round's wall time cut into scheduling, the workers' phases, combining
 * their results, the objective and the rest, so that time the workers
 * wait for the coordinator is seen where it goes.
 * A block has one colour in every cell (ptm_viz_block_color). Above the
 * chart a red bar per round counts the conflicts avoided; at the right
 * each worker's total load and idle share.
 *
 * The picture stays a sane size whatever the schedule: at most COLS_MAX
 * columns and ROWS_MAX rows (rounds and workers are binned beyond), and
 * blocks are drawn one by one only when there are at most SEG_MAX of them
 * and each gets a pixel; otherwise each cell is one bar of its load and a
 * line under the title says how the picture was aggregated. The grid is
 * drawn before the bars.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ptm.h"
#include "svg_impl.h"
#include "viz.h"

#define COLS_MAX 300
#define ROWS_MAX 64
#define SEG_MAX 20000
#define SEG_PX 2      /* pixels a block needs to be drawn */
#define WIDE_MAX 2400 /* the widest chart drawn to show blocks */
#define LEGEND_BLOCKS 12
#define LEGEND_W 190.0 /* pixels of a legend entry: "coordinator: workers' phases" */

#define ML 120.0     /* left margin: worker labels */
#define STRIP_H 40.0 /* conflicts strip */
#define PANEL_W 210.0
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define C_IDLE "#eef0f3"
#define C_GRID "#c8ccd2"
#define C_CONFLICT "#d62728"
#define C_AGG "#5b7fb5"
#define C_TEXT "#222222"
#define LANE_H 24.0 /* the coordinator's lane */
/* the coordinator's time: scheduling, the workers' phases, combining,
 * the objective, the rest */
static const char *const lane_color[5] = {"#e6842a", "#8c96a3", "#8e5bb5", "#2e9e5b", "#d9dce1"};
static const char *const lane_name[5] = {"scheduling", "workers' phases", "combining",
                                         "objective", "other"};
#define C_SUB "#555555"

void ptm_viz_block_color(int64_t b, char out[8])
{
    /* golden-angle hues, three saturations and three lightnesses */
    double h = fmod((double)(b % 1000003) * 137.50776405, 360.0) / 60.0;
    double s = 0.55 + 0.15 * (double)(b % 3);
    double l = 0.42 + 0.10 * (double)((b / 3) % 3);
    double c = (1 - fabs(2 * l - 1)) * s, x = c * (1 - fabs(fmod(h, 2) - 1)), m = l - c / 2;
    double rgb[3];
    int k = (int)h;
    double tab[6][3] = {{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}};
    for (int i = 0; i < 3; i++)
        rgb[i] = tab[k < 0 ? 0 : k > 5 ? 5 : k][i] + m;
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround(rgb[0] * 255),
             (unsigned)lround(rgb[1] * 255), (unsigned)lround(rgb[2] * 255));
}

/* text with XML's special characters escaped (and control bytes dropped) */
void viz_svg_esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\'')
            fputs("&apos;", out);
        else if (c >= 0x20 || c == '\t')
            fputc(c, out);
    }
}

void viz_svg_text(FILE *out, double x, double y, const char *anchor, double size, const char *fill,
                  const char *weight, const char *s)
{
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%g\" fill=\"%s\"%s%s%s>", x,
            y, anchor, size, fill, weight ? " font-weight=\"" : "", weight ? weight : "",
            weight ? "\"" : "");
    viz_svg_esc(out, s);
    fputs("</text>\n", out);
}

/* Split s into lines of at most width characters at blanks (svg_impl.h). */
int viz_svg_wrap(const char *s, size_t width, char lines[][VIZ_SVG_LINE], int maxlines)
{
    int n = 0;
    while (*s && n < maxlines) {
        size_t len = strlen(s);
        size_t cut = len;
        if (len > width) {
            cut = width;
            while (cut > 0 && s[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = width;
        }
        if (cut > VIZ_SVG_LINE - 1)
            cut = VIZ_SVG_LINE - 1;
        memcpy(lines[n], s, cut);
        lines[n][cut] = '\0';
        n++;
        s += cut;
        while (*s == ' ')
            s++;
    }
    return n;
}

/* A round number step that reads well: 1, 2, 5, 10, 20, 50, ... at least x. */
static int64_t nice_step(double x)
{
    int64_t s = 1;
    while ((double)s < x) {
        if ((double)(s * 2) >= x)
            return s * 2;
        if ((double)(s * 5) >= x)
            return s * 5;
        s *= 10;
    }
    return s;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct layout {
    size_t R;   /* rounds */
    int P;      /* workers */
    size_t bin; /* rounds a column */
    int wbin;   /* workers a row */
    size_t ncols;
    int nrows;
    double colw, rowh;
    double top;    /* of the conflicts strip */
    double cy;     /* of the chart */
    double cw, ch; /* chart size */
    double width, height;
    bool each; /* blocks drawn one by one */
};

int ptm_viz_svg(FILE *out, const struct ptm_trace *t)
{
    if (t->clocks)
        return ptm_viz_clocks_svg(out, t);
    struct layout L = {.R = t->nrounds, .P = t->workers};
    size_t P = (size_t)t->workers;
    L.bin = L.R <= COLS_MAX ? 1 : (size_t)nice_step((double)((L.R + COLS_MAX - 1) / COLS_MAX));
    L.ncols = L.R ? (L.R + L.bin - 1) / L.bin : 1;
    L.wbin = L.P <= ROWS_MAX ? 1 : (L.P + ROWS_MAX - 1) / ROWS_MAX;
    L.nrows = (L.P + L.wbin - 1) / L.wbin;
    L.colw = floor(900.0 / (double)L.ncols);
    L.colw = L.colw < 3 ? 3 : L.colw > 60 ? 60 : L.colw;
    L.rowh = floor(420.0 / L.nrows);
    L.rowh = L.rowh < 8 ? 8 : L.rowh > 36 ? 36 : L.rowh;
    L.cw = L.colw * (double)L.ncols;
    L.ch = L.rowh * L.nrows;

    /* per round: the largest load; per worker: totals */
    double *most = ptm_malloc((L.R ? L.R : 1) * sizeof(double));
    double *wload = ptm_malloc(P * sizeof(double)), *wwait = ptm_malloc(P * sizeof(double));
    int64_t *seen = NULL;
    if (!most || !wload || !wwait) {
        ptm_free(most);
        ptm_free(wload);
        ptm_free(wwait);
        return PTM_ENOMEM;
    }
    double max_all = 0;
    size_t most_seg = 0;
    int64_t conf_max = 0;
    bool conf_known = false;
    for (size_t p = 0; p < P; p++)
        wload[p] = wwait[p] = 0;
    bool lane = false; /* a run's trace with the coordinator's time split */
    for (size_t r = 0; r < L.R; r++) {
        most[r] = ptm_trace_round_max(t, r);
        lane = lane || (t->rounds[r].has_time && !isnan(ptm_trace_span(t, r)));
        for (size_t p = 0; p < P; p++) {
            size_t n;
            ptm_trace_blocks(t, r, (int)p, &n);
            most_seg = n > most_seg ? n : most_seg;
        }
        for (size_t p = 0; p < P; p++) {
            wload[p] += t->load[r * P + p];
            wwait[p] += most[r] - t->load[r * P + p];
        }
        max_all += most[r];
        if (t->rounds[r].conflicts >= 0) {
            conf_known = true;
            conf_max = t->rounds[r].conflicts > conf_max ? t->rounds[r].conflicts : conf_max;
        }
    }
    /* blocks one by one when each gets SEG_PX pixels, widening the chart
     * up to WIDE_MAX when that is what it takes */
    double need = (double)most_seg * SEG_PX + 1;
    if (L.bin == 1 && L.wbin == 1 && t->nentries <= SEG_MAX && need > L.colw &&
        need * (double)L.ncols <= WIDE_MAX)
        L.colw = need;
    L.cw = L.colw * (double)L.ncols;
    L.each = L.bin == 1 && L.wbin == 1 && t->nentries <= SEG_MAX && need <= L.colw;
    double panel_x = ML + L.cw + 20;
    L.width = panel_x + PANEL_W + 10;
    if (L.width < 760)
        L.width = 760;
    double fit = (L.width - 32) / 6.2; /* characters of 11-pixel text a line holds */
    size_t chars = fit < 60 ? 60 : fit > 190 ? 190 : (size_t)fit;

    /* the distinct blocks drawn, for the legend */
    size_t ndistinct = 0;
    if (L.each && t->nentries) {
        seen = ptm_malloc(t->nentries * sizeof(int64_t));
        if (!seen) {
            ptm_free(most);
            ptm_free(wload);
            ptm_free(wwait);
            return PTM_ENOMEM;
        }
        memcpy(seen, t->blocks, t->nentries * sizeof(int64_t));
        qsort(seen, t->nentries, sizeof(int64_t), cmp_i64);
        for (size_t i = 0; i < t->nentries; i++)
            if (i == 0 || seen[i] != seen[i - 1])
                seen[ndistinct++] = seen[i];
    }

    /* title and the lines under it */
    char title[1024], lines[12][VIZ_SVG_LINE], buf[1400];
    int nlines = 0;
    if (t->dry && ptm_trace_by_rows(t))
        snprintf(title, sizeof(title), "Dry run of %s%s%s: %s (tron), %d worker%s, %zu round%s",
                 t->job ? "job '" : "", t->job ? t->job : (t->source ? t->source : "?"),
                 t->job ? "'" : "", t->policy ? t->policy : "?", t->workers,
                 t->workers == 1 ? "" : "s", L.R, L.R == 1 ? "" : "s");
    else if (t->dry)
        snprintf(title, sizeof(title),
                 "Dry run of %s%s%s: %s over %s (%lld blocks), %d worker%s, %zu round%s",
                 t->job ? "job '" : "", t->job ? t->job : (t->source ? t->source : "?"),
                 t->job ? "'" : "", t->policy ? t->policy : "?", t->blockset ? t->blockset : "?",
                 (long long)t->nblocks, t->workers, t->workers == 1 ? "" : "s", L.R,
                 L.R == 1 ? "" : "s");
    else {
        snprintf(title, sizeof(title), "Trace of a run: %s, %d worker%s, %zu round%s",
                 t->source ? t->source : "?", t->workers, t->workers == 1 ? "" : "s", L.R,
                 L.R == 1 ? "" : "s");
        /* numbered otherwise by the run (data_parallel: the clock a phase ends at) */
        if (L.R && (t->rounds[0].round != 1 || t->rounds[L.R - 1].round != (int64_t)L.R)) {
            size_t k = strlen(title);
            snprintf(title + k, sizeof(title) - k, " (numbered %lld to %lld by the run)",
                     (long long)t->rounds[0].round, (long long)t->rounds[L.R - 1].round);
        }
    }
    if (t->dry && ptm_trace_by_rows(t)) {
        snprintf(buf, sizeof(buf),
                 "A worker's load is the rows it sums in each pass of the round; a bar is its "
                 "load over the largest, the rest of the cell is idle.");
    } else if (t->dry) {
        snprintf(buf, sizeof(buf), "Simulated (seed %llu): %s.", (unsigned long long)t->seed,
                 PTM_DRYRUN_MODEL);
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 3);
        snprintf(buf, sizeof(buf),
                 "A worker's load is the cost of its blocks (%s); a bar is its load over the "
                 "round's largest, the rest of the cell is idle.",
                 t->has_cost ? "the block set's cost" : "1 a block: no cost statement");
    } else {
        snprintf(buf, sizeof(buf),
                 "A worker's load is its busy seconds in the round; a bar is its load over the "
                 "round's wall seconds, the rest of the cell is idle%s.",
                 lane ? " (the coordinator's lane above shows where that time went)" : "");
    }
    nlines += viz_svg_wrap(buf, chars, lines + nlines, 2);
    if (t->note) {
        snprintf(buf, sizeof(buf), "Note: %s.", t->note);
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 3);
    }
    if (!L.each) {
        char how[400] = "";
        size_t k = 0;
        if (L.bin > 1)
            k += (size_t)snprintf(how + k, sizeof(how) - k,
                                  "%zu rounds a column (more than %d "
                                  "rounds); ",
                                  L.bin, COLS_MAX);
        if (L.wbin > 1 && k < sizeof(how))
            k += (size_t)snprintf(how + k, sizeof(how) - k,
                                  "%d workers a row (more than %d "
                                  "workers); ",
                                  L.wbin, ROWS_MAX);
        if (t->nentries > SEG_MAX && k < sizeof(how))
            k += (size_t)snprintf(how + k, sizeof(how) - k, "%zu block updates (more than %d); ",
                                  t->nentries, SEG_MAX);
        else if (L.bin == 1 && L.wbin == 1 && k < sizeof(how))
            k += (size_t)snprintf(how + k, sizeof(how) - k,
                                  "up to %zu blocks a worker in a "
                                  "round (too many for %.0f pixels); ",
                                  most_seg, L.colw);
        snprintf(buf, sizeof(buf),
                 "Aggregated: %sa bar is the load of its cell, and its blocks are not drawn one "
                 "by one.",
                 how);
        nlines += viz_svg_wrap(buf, chars, lines + nlines, 3);
    }

    L.top = 40 + 16.0 * nlines + 12;
    double lane_y = L.top + STRIP_H + 8;
    L.cy = L.top + STRIP_H + 10 + (lane ? LANE_H + 8 : 0);
    double legend_y = L.cy + L.ch + 56;
    size_t legend_n = L.each && ndistinct ? (ndistinct < LEGEND_BLOCKS ? ndistinct : LEGEND_BLOCKS)
                                          : 1;
    int lcols = (int)((L.width - 32) / LEGEND_W); /* legend entries a line */
    int legend_rows = (int)((legend_n + 2 + (lane ? 5 : 0) + (size_t)lcols - 1) / (size_t)lcols) +
                      (L.each && ndistinct > LEGEND_BLOCKS);
    L.height = legend_y + 20.0 * legend_rows + 16;

    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n",
            L.width, L.height, L.width, L.height, FONT);
    fprintf(out, "<title>");
    viz_svg_esc(out, title);
    fprintf(out,
            "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            L.width, L.height);
    viz_svg_text(out, 16, 26, "start", 16, C_TEXT, "bold", title);
    for (int i = 0; i < nlines; i++)
        viz_svg_text(out, 16, 46 + 16.0 * i, "start", 11, C_SUB, NULL, lines[i]);

    /* the conflicts strip */
    fprintf(out, "<g id=\"conflicts\">\n");
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbf3f3\"/>\n",
            ML, L.top, L.cw, STRIP_H);
    viz_svg_text(out, ML - 8, L.top + 16, "end", 11, C_TEXT, NULL, "conflicts");
    viz_svg_text(out, ML - 8, L.top + 30, "end", 11, C_TEXT, NULL, "avoided");
    if (!conf_known) {
        viz_svg_text(out, ML + 6, L.top + 24, "start", 11, C_SUB, NULL, "not in the trace");
    } else if (conf_max == 0) {
        viz_svg_text(out, ML + 6, L.top + 24, "start", 11, C_SUB, NULL, "none");
    } else {
        int64_t cmax = 0;
        for (size_t c = 0; c < L.ncols; c++) {
            int64_t k = 0;
            for (size_t r = c * L.bin; r < L.R && r < (c + 1) * L.bin; r++)
                k += t->rounds[r].conflicts > 0 ? t->rounds[r].conflicts : 0;
            cmax = k > cmax ? k : cmax;
        }
        for (size_t c = 0; c < L.ncols; c++) {
            int64_t k = 0;
            for (size_t r = c * L.bin; r < L.R && r < (c + 1) * L.bin; r++)
                k += t->rounds[r].conflicts > 0 ? t->rounds[r].conflicts : 0;
            if (k == 0)
                continue;
            double h = (STRIP_H - 14) * (double)k / (double)cmax;
            double x = ML + L.colw * (double)c;
            size_t r0 = c * L.bin, r1 = r0 + L.bin < L.R ? r0 + L.bin : L.R;
            if (r1 - r0 > 1)
                snprintf(buf, sizeof(buf), "rounds %lld to %lld", (long long)t->rounds[r0].round,
                         (long long)t->rounds[r1 - 1].round);
            else
                snprintf(buf, sizeof(buf), "round %lld", (long long)t->rounds[r0].round);
            fprintf(out,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>%s: %lld conflicts avoided</title></rect>\n",
                    x + 0.5, L.top + STRIP_H - h, L.colw - 1 > 1 ? L.colw - 1 : 1, h, C_CONFLICT,
                    buf, (long long)k);
            if (L.colw >= 22) {
                snprintf(buf, sizeof(buf), "%lld", (long long)k);
                viz_svg_text(out, x + L.colw / 2, L.top + STRIP_H - h - 2, "middle", 9, C_CONFLICT, NULL,
                     buf);
            }
        }
    }
    fprintf(out, "</g>\n");

    /* the coordinator's lane: each column's wall time, cut by what the
     * coordinator did */
    if (lane) {
        fprintf(out, "<g id=\"coordinator\">\n");
        viz_svg_text(out, ML - 8, lane_y + LANE_H / 2 + 4, "end", 11, C_TEXT, NULL, "coordinator");
        for (size_t c = 0; c < L.ncols; c++) {
            size_t r0 = c * L.bin, r1 = r0 + L.bin < L.R ? r0 + L.bin : L.R;
            double part[5];
            double wall = ptm_trace_split(t, r0, r1, part);
            double sum = part[0] + part[1] + part[2] + part[3] + part[4];
            if (!(sum > 0))
                continue;
            double x = ML + L.colw * (double)c + 0.5, w = L.colw - 1;
            if (r1 - r0 > 1)
                snprintf(buf, sizeof(buf), "rounds %lld to %lld", (long long)t->rounds[r0].round,
                         (long long)t->rounds[r1 - 1].round);
            else
                snprintf(buf, sizeof(buf), "round %lld", (long long)t->rounds[r0].round);
            for (int k = 0; k < 5; k++) {
                double sw = w * part[k] / sum;
                if (sw <= 0)
                    continue;
                fprintf(out,
                        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                        "fill=\"%s\"><title>%s: %s %.6g s of %.6g s (%.0f%%)</title></rect>\n",
                        x, lane_y, sw, LANE_H, lane_color[k], buf, lane_name[k], part[k], wall,
                        100 * part[k] / sum);
                x += sw;
            }
        }
        fprintf(out, "</g>\n");
    }

    /* the chart: idle background, grid, bars */
    fprintf(out, "<g id=\"chart\">\n");
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", ML,
            L.cy, L.cw, L.ch, C_IDLE);
    /* ticks every stepc columns: a step of rounds that reads well and is
     * a whole number of columns (bin is 1, 2 or 5 times a power of 10) */
    int64_t step = nice_step(50.0 / L.colw * (double)L.bin);
    while (step % (int64_t)L.bin != 0)
        step = nice_step((double)step + 1);
    size_t stepc = (size_t)step / L.bin;
    for (size_t c = 0; c < L.ncols; c += stepc) {
        double x = ML + L.colw * (double)c;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\"/>\n",
                x, L.top, x, L.cy + L.ch + 4, C_GRID);
    }
    for (int g = 0; g <= L.nrows; g++) {
        double y = L.cy + L.rowh * g;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\"/>\n",
                ML, y, ML + L.cw, y, C_GRID);
    }
    for (int g = 0; g < L.nrows; g++) {
        int p0 = g * L.wbin, p1 = p0 + L.wbin < L.P ? p0 + L.wbin : L.P;
        double y = L.cy + L.rowh * g + 1.5, h = L.rowh - 3;
        for (size_t c = 0; c < L.ncols; c++) {
            size_t r0 = c * L.bin, r1 = r0 + L.bin < L.R ? r0 + L.bin : L.R;
            double x = ML + L.colw * (double)c + 0.5, w = L.colw - 1;
            if (L.each) {
                size_t n;
                const int64_t *b = ptm_trace_blocks(t, r0, p0, &n);
                double load = t->load[r0 * P + (size_t)p0];
                double frac = most[r0] > 0 ? load / most[r0] : 1;
                if (n == 0 && load > 0) /* busy without blocks: data_parallel */
                    fprintf(out,
                            "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                            "fill=\"%s\"><title>round %lld, worker %d: %s %.6g</title></rect>\n",
                            x, y, w * frac > 0.3 ? w * frac : 0.3, h, C_AGG,
                            (long long)t->rounds[r0].round, p0 + 1, t->unit, load);
                if (n == 0)
                    continue;
                double sum = 0;
                for (size_t i = 0; i < n; i++)
                    sum += t->cost ? t->cost[b[i]] : 1;
                double at = x;
                for (size_t i = 0; i < n; i++) {
                    double share = sum > 0 ? (t->cost ? t->cost[b[i]] : 1) / sum : 1.0 / (double)n;
                    double sw = w * frac * share;
                    char col[8];
                    ptm_viz_block_color(b[i], col);
                    fprintf(out,
                            "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                            "fill=\"%s\"><title>round %lld, worker %d: block %lld (%s %.6g)"
                            "</title></rect>\n",
                            at, y, sw > 0.3 ? sw : 0.3, h, col, (long long)t->rounds[r0].round,
                            p0 + 1, (long long)b[i] + 1, t->unit,
                            t->cost ? t->cost[b[i]] : load / (double)n);
                    at += sw;
                }
            } else {
                double load = 0, m = 0;
                size_t n = 0;
                for (size_t r = r0; r < r1; r++)
                    m += most[r];
                for (int p = p0; p < p1; p++)
                    for (size_t r = r0; r < r1; r++) {
                        size_t k;
                        ptm_trace_blocks(t, r, p, &k);
                        n += k;
                        load += t->load[r * P + (size_t)p];
                    }
                if (n == 0 && !(load > 0))
                    continue;
                m *= (double)(p1 - p0);
                double frac = m > 0 ? load / m : 1;
                fprintf(out,
                        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                        "<title>rounds %lld-%lld, workers %d-%d: %zu block updates, %s %.6g"
                        "</title></rect>\n",
                        x, y, w * frac > 0.3 ? w * frac : 0.3, h, C_AGG,
                        (long long)t->rounds[r0].round, (long long)t->rounds[r1 - 1].round, p0 + 1,
                        p1, n, t->unit, load);
            }
        }
    }
    fprintf(out, "</g>\n");

    /* axes */
    fprintf(out, "<g id=\"axes\">\n");
    for (size_t c = 0; c < L.ncols; c += stepc) {
        snprintf(buf, sizeof(buf), "%lld", (long long)t->rounds[c * L.bin].round);
        viz_svg_text(out, ML + L.colw * (double)c + (L.bin == 1 ? L.colw / 2 : 0), L.cy + L.ch + 16,
             L.bin == 1 ? "middle" : "start", 10, C_TEXT, NULL, buf);
    }
    snprintf(buf, sizeof(buf), L.bin > 1 ? "round (%zu a column)" : "round", L.bin);
    viz_svg_text(out, ML + L.cw / 2, L.cy + L.ch + 34, "middle", 12, C_TEXT, "bold", buf);
    int lstep = L.rowh >= 12 ? 1 : (int)ceil(12 / L.rowh);
    for (int g = 0; g < L.nrows; g += lstep) {
        int p0 = g * L.wbin, p1 = p0 + L.wbin < L.P ? p0 + L.wbin : L.P;
        if (L.wbin == 1)
            snprintf(buf, sizeof(buf), "%d", p0 + 1);
        else
            snprintf(buf, sizeof(buf), "%d-%d", p0 + 1, p1);
        viz_svg_text(out, ML - 8, L.cy + L.rowh * g + L.rowh / 2 + 4, "end", L.rowh >= 14 ? 11 : 9, C_TEXT,
             NULL, buf);
    }
    fprintf(out,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
            "font-weight=\"bold\" fill=\"%s\" transform=\"rotate(-90 %.1f %.1f)\">worker</text>\n",
            40.0, L.cy + L.ch / 2, C_TEXT, 40.0, L.cy + L.ch / 2);
    fprintf(out, "</g>\n");

    /* each worker's total load and idle share */
    fprintf(out, "<g id=\"load\">\n");
    snprintf(buf, sizeof(buf), "total %s, idle share", t->unit);
    viz_svg_text(out, panel_x, L.cy - 6, "start", 11, C_TEXT, "bold", buf);
    double wmax = 0;
    for (size_t p = 0; p < P; p++)
        wmax = fmax(wmax, wload[p]);
    for (int g = 0; g < L.nrows; g++) {
        int p0 = g * L.wbin, p1 = p0 + L.wbin < L.P ? p0 + L.wbin : L.P;
        double load = 0, wait = 0;
        for (int p = p0; p < p1; p++) {
            load += wload[p];
            wait += wwait[p];
        }
        double y = L.cy + L.rowh * g;
        double bw = wmax > 0 ? 80 * (load / (p1 - p0)) / wmax : 0;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
                panel_x, y + 2, bw, L.rowh - 4 > 1 ? L.rowh - 4 : 1, C_AGG);
        if (L.rowh >= 10 && (g % lstep) == 0) {
            snprintf(buf, sizeof(buf), "%.4g, idle %.0f%%", load,
                     max_all > 0 ? 100 * wait / (max_all * (p1 - p0)) : 0);
            viz_svg_text(out, panel_x + 86, y + L.rowh / 2 + 4, "start", L.rowh >= 14 ? 10 : 8, C_TEXT,
                 NULL, buf);
        }
    }
    fprintf(out, "</g>\n");

    /* legend */
    fprintf(out, "<g id=\"legend\">\n");
    viz_svg_text(out, 16, legend_y - 8, "start", 11, C_TEXT, "bold", "Legend");
    int slot = 0;
    double lx, ly;
#define NEXT_SLOT()                                                                                \
    (lx = 16 + LEGEND_W * (slot % lcols), ly = legend_y + 20.0 * (slot / lcols), slot++)
    if (L.each && ndistinct) {
        for (size_t i = 0; i < legend_n; i++) {
            char col[8];
            ptm_viz_block_color(seen[i], col);
            NEXT_SLOT();
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
                    lx, ly, col);
            snprintf(buf, sizeof(buf), "block %lld", (long long)seen[i] + 1);
            viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, buf);
        }
    } else {
        NEXT_SLOT();
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n", lx,
                ly, C_AGG);
        viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL,
             L.each ? "load (no blocks)" : "load (blocks aggregated)");
    }
    NEXT_SLOT();
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\" "
            "stroke=\"%s\"/>\n",
            lx, ly, C_IDLE, C_GRID);
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, "idle");
    NEXT_SLOT();
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n", lx, ly,
            C_CONFLICT);
    viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, "conflicts avoided");
    for (int k = 0; lane && k < 5; k++) {
        NEXT_SLOT();
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
                lx, ly, lane_color[k]);
        snprintf(buf, sizeof(buf), "coordinator: %s", lane_name[k]);
        viz_svg_text(out, lx + 20, ly + 10, "start", 10, C_TEXT, NULL, buf);
    }
#undef NEXT_SLOT
    if (L.each && ndistinct > LEGEND_BLOCKS) {
        snprintf(buf, sizeof(buf),
                 "... %zu blocks are drawn in all; each block has the same colour in every round.",
                 ndistinct);
        viz_svg_text(out, 16, legend_y + 20.0 * ((slot + lcols - 1) / lcols) + 10, "start", 10, C_SUB, NULL,
             buf);
    }
    fprintf(out, "</g>\n</svg>\n");
    ptm_free(seen);
    ptm_free(most);
    ptm_free(wload);
    ptm_free(wwait);
    return ferror(out) ? PTM_EIO : 0;
}
