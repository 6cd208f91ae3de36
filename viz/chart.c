/*
 * chart.c - the charts of a run's report (chart.h): line charts with
 * labelled axes and "nice" ticks (1, 2 or 5 times a power of ten; whole
 * decades on a log scale), stacked horizontal bars, and the escaping that
 * keeps the page well-formed.
 *
 * DESIGN: a chart is drawn in its own coordinates (a fixed size, scaled by
 * the page's CSS), the grid before the lines, the lines before the
 * points. A point carries its values in a <title>, which a browser shows
 * on hover without any script.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "ptm.h"

#define W 520.0
#define H 300.0
#define ML 74.0 /* margins: left, right, top, bottom */
#define MR 18.0
#define MT 34.0
#define MB 62.0
#define FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define C_TEXT "#222222"
#define C_SUB "#666666"
#define C_GRID "#e4e4e4"
#define C_AXIS "#888888"
#define MAX_TICKS 12

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is
 * not one (overlong forms, surrogates and code points past U+10FFFF are
 * not). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4, cp = c & 0x07;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return k;
}

void viz_esc(FILE *out, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned c = p[i];
        size_t k = utf8_len(p + i, len - i);
        if (k == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
            fputs("\xef\xbf\xbd", out); /* U+FFFD */
            i++;
            continue;
        }
        switch (c) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fwrite(p + i, 1, k, out);
        }
        i += k;
    }
}

void viz_escs(FILE *out, const char *s)
{
    viz_esc(out, s, strlen(s));
}

void viz_fmt_num(double v, char *buf, size_t len)
{
    if (fabs(v) < 1e-300)
        v = 0; /* no "-0" */
    snprintf(buf, len, "%.4g", v);
}

static void text(FILE *out, double x, double y, const char *anchor, int size, const char *color,
                 const char *s)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" fill=\"%s\">",
            x, y, anchor, size, color);
    viz_escs(out, s);
    fputs("</text>\n", out);
}

/* Ticks of a linear axis over [*lo, *hi], which widen to whole steps. */
static int lin_ticks(double *lo, double *hi, double *tick)
{
    if (!(*hi > *lo)) {
        double d = fabs(*lo) > 0 ? fabs(*lo) * 0.05 : 1;
        *lo -= d;
        *hi += d;
    }
    double raw = (*hi - *lo) / 5, mag = pow(10, floor(log10(raw))), step = mag;
    if (raw / mag > 5)
        step = 10 * mag;
    else if (raw / mag > 2)
        step = 5 * mag;
    else if (raw / mag > 1)
        step = 2 * mag;
    *lo = floor(*lo / step) * step;
    *hi = ceil(*hi / step) * step;
    int n = 0;
    for (double v = *lo; v <= *hi + step * 1e-9 && n < MAX_TICKS; v += step)
        tick[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* Ticks of a log axis over [*lo, *hi] (both above 0): whole decades, every
 * k-th one when there are many. Returns them as exponents of ten. */
static int log_ticks(double *lo, double *hi, double *tick)
{
    double a = floor(log10(*lo)), b = ceil(log10(*hi));
    if (b <= a)
        b = a + 1;
    int every = (int)ceil((b - a) / (MAX_TICKS - 1));
    b = a + ceil((b - a) / every) * every;
    *lo = a;
    *hi = b;
    int n = 0;
    for (double e = a; e <= b + 1e-9 && n < MAX_TICKS; e += every)
        tick[n++] = e;
    return n;
}

static void fmt_pow10(double e, char *buf, size_t len)
{
    if (e >= -3 && e <= 4)
        snprintf(buf, len, "%g", pow(10, e));
    else
        snprintf(buf, len, "1e%d", (int)e);
}

static bool usable(double x, double y, bool logy)
{
    return isfinite(x) && isfinite(y) && (!logy || y > 0);
}

int viz_chart_line(FILE *out, const struct viz_chart *c, const struct viz_series *s, size_t ns)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t shown = 0, most = 0;
    for (size_t k = 0; k < ns; k++) {
        most = s[k].n > most ? s[k].n : most;
        for (size_t i = 0; i < s[k].n; i++) {
            if (!usable(s[k].x[i], s[k].y[i], c->logy))
                continue;
            xlo = fmin(xlo, s[k].x[i]);
            xhi = fmax(xhi, s[k].x[i]);
            ylo = fmin(ylo, s[k].y[i]);
            yhi = fmax(yhi, s[k].y[i]);
            shown++;
        }
    }
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n",
            W, H, W, H, FONT);
    fputs("<title>", out);
    viz_escs(out, c->title);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", W, H);
    text(out, ML, 20, "start", 13, C_TEXT, c->title);
    if (shown == 0) {
        text(out, W / 2, H / 2, "middle", 12, C_SUB, "nothing to draw: the trace has no such values");
        fputs("</svg>\n", out);
        return ferror(out) ? PTM_EIO : 0;
    }
    if (c->x_from_zero && xlo > 0)
        xlo = 0;
    double xt[MAX_TICKS], yt[MAX_TICKS];
    int nx = lin_ticks(&xlo, &xhi, xt);
    int ny;
    if (c->logy) {
        ny = log_ticks(&ylo, &yhi, yt); /* ylo, yhi: exponents */
    } else {
        ny = lin_ticks(&ylo, &yhi, yt);
    }
    double pw = W - ML - MR, ph = H - MT - MB;
#define PX(v) (ML + pw * ((v)-xlo) / (xhi - xlo))
#define PY(v) (MT + ph * (1 - ((c->logy ? log10(v) : (v)) - ylo) / (yhi - ylo)))
    char buf[64];
    /* the grid and the ticks' labels */
    for (int i = 0; i < nx; i++) {
        double x = ML + pw * (xt[i] - xlo) / (xhi - xlo);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\"/>\n",
                x, MT, x, MT + ph, C_GRID);
        viz_fmt_num(xt[i], buf, sizeof(buf));
        text(out, x, MT + ph + 15, "middle", 10, C_SUB, buf);
    }
    for (int i = 0; i < ny; i++) {
        double y = MT + ph * (1 - (yt[i] - ylo) / (yhi - ylo));
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\"/>\n",
                ML, y, ML + pw, y, C_GRID);
        if (c->logy)
            fmt_pow10(yt[i], buf, sizeof(buf));
        else
            viz_fmt_num(yt[i], buf, sizeof(buf));
        text(out, ML - 6, y + 3.5, "end", 10, C_SUB, buf);
    }
    fprintf(out,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"%s\" stroke-width=\"1\"/>\n",
            ML, MT, pw, ph, C_AXIS);
    text(out, ML + pw / 2, MT + ph + 32, "middle", 11, C_TEXT, c->xlabel);
    fprintf(out,
            "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" fill=\"%s\" "
            "transform=\"rotate(-90 14 %.1f)\">",
            MT + ph / 2, C_TEXT, MT + ph / 2);
    viz_escs(out, c->ylabel);
    fputs("</text>\n", out);
    /* the lines, then the points */
    bool thinned = false;
    for (size_t k = 0; k < ns; k++) {
        const char *col = palette[k % PTM_ARRAY_LEN(palette)];
        size_t every = s[k].n > VIZ_CHART_MAX_POINTS
                           ? (s[k].n + VIZ_CHART_MAX_POINTS - 1) / VIZ_CHART_MAX_POINTS
                           : 1;
        thinned |= every > 1;
        bool open = false;
        size_t drawn = 0;
        for (size_t i = 0; i < s[k].n; i++) {
            if (i % every != 0 && i + 1 != s[k].n)
                continue;
            if (!usable(s[k].x[i], s[k].y[i], c->logy))
                continue; /* a round not evaluated: the line goes on */
            if (!open)
                fprintf(out,
                        "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
                        "points=\"",
                        col);
            fprintf(out, "%s%.2f,%.2f", open ? " " : "", PX(s[k].x[i]), PY(s[k].y[i]));
            open = true;
            drawn++;
        }
        if (open)
            fputs("\"/>\n", out);
        if (drawn > 60)
            continue;
        for (size_t i = 0; i < s[k].n; i++) {
            if (!usable(s[k].x[i], s[k].y[i], c->logy))
                continue;
            char xb[32], yb[32];
            snprintf(xb, sizeof(xb), "%.6g", s[k].x[i]);
            snprintf(yb, sizeof(yb), "%.10g", s[k].y[i]);
            fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.6\" fill=\"%s\"><title>",
                    PX(s[k].x[i]), PY(s[k].y[i]), col);
            if (s[k].name) {
                viz_escs(out, s[k].name);
                fputs(": ", out);
            }
            fprintf(out, "%s at %s</title></circle>\n", yb, xb);
        }
    }
#undef PX
#undef PY
    /* the legend, when there are names */
    double ly = MT + 14;
    for (size_t k = 0; k < ns; k++) {
        if (!s[k].name || ns < 2)
            continue;
        const char *col = palette[k % PTM_ARRAY_LEN(palette)];
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n",
                ML + pw - 120, ly - 4, ML + pw - 100, ly - 4, col);
        text(out, ML + pw - 96, ly, "start", 10, C_TEXT, s[k].name);
        ly += 14;
    }
    char note[160];
    note[0] = '\0';
    if (thinned)
        snprintf(note, sizeof(note), "%zu points: every %zu-th drawn", most,
                 (most + VIZ_CHART_MAX_POINTS - 1) / VIZ_CHART_MAX_POINTS);
    if (c->note || note[0]) {
        char both[512];
        snprintf(both, sizeof(both), "%s%s%s", c->note ? c->note : "",
                 c->note && note[0] ? "; " : "", note);
        text(out, ML, H - 8, "start", 10, C_SUB, both);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? PTM_EIO : 0;
}

int viz_chart_bars(FILE *out, const char *title, const char *xlabel, const struct viz_bar *b,
                   size_t n, int nparts, const char *const *part_name,
                   const char *const *part_color)
{
    const double bh = 16, gap = 6, left = 130, right = 24, top = 34;
    double height = top + (double)n * (bh + gap) + 40 + 20 * ((nparts + 2) / 3);
    double total_max = 0;
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (int k = 0; k < nparts; k++)
            sum += b[i].part[k] > 0 ? b[i].part[k] : 0;
        total_max = fmax(total_max, sum);
    }
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart wide\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n",
            2 * W, height, 2 * W, height, FONT);
    fputs("<title>", out);
    viz_escs(out, title);
    fputs("</title>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            2 * W, height);
    text(out, left, 20, "start", 13, C_TEXT, title);
    double pw = 2 * W - left - right;
    double lo = 0, hi = total_max > 0 ? total_max : 1, tick[MAX_TICKS];
    int nt = lin_ticks(&lo, &hi, tick);
    double axis_y = top + (double)n * (bh + gap);
    char buf[64];
    for (int i = 0; i < nt; i++) {
        double x = left + pw * (tick[i] - lo) / (hi - lo);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\"/>\n",
                x, top - 4, x, axis_y, C_GRID);
        viz_fmt_num(tick[i], buf, sizeof(buf));
        text(out, x, axis_y + 13, "middle", 10, C_SUB, buf);
    }
    text(out, left + pw / 2, axis_y + 30, "middle", 11, C_TEXT, xlabel);
    for (size_t i = 0; i < n; i++) {
        double y = top + (double)i * (bh + gap), x = left;
        text(out, left - 8, y + bh - 4, "end", 11, C_TEXT, b[i].label);
        for (int k = 0; k < nparts; k++) {
            double v = b[i].part[k] > 0 ? b[i].part[k] : 0;
            double w = pw * v / (hi - lo);
            if (w <= 0)
                continue;
            fprintf(out,
                    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>",
                    x, y, w, bh, part_color[k]);
            viz_escs(out, b[i].label);
            fputs(": ", out);
            viz_escs(out, part_name[k]);
            fprintf(out, " %.6g</title></rect>\n", v);
            x += w;
        }
    }
    double ly = axis_y + 50;
    for (int k = 0; k < nparts; k++) {
        double lx = left + (double)(k % 3) * 260;
        if (k && k % 3 == 0)
            ly += 20;
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx,
                ly - 10, part_color[k]);
        text(out, lx + 18, ly, "start", 11, C_TEXT, part_name[k]);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? PTM_EIO : 0;
}
