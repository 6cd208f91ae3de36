/*
 * chart.h - small SVG charts for the report of a run (viz/report.c): line
 * charts with labelled axes on a linear or log scale, stacked horizontal
 * bars, and the escaping of text for HTML and SVG. Internal to viz/.
 *
 * Each chart is one <svg> element meant to sit inline in an HTML page: no
 * XML declaration, no ids, no scripts. Like the other renderers they
 * write to a FILE and return 0 or PTM_EIO when the stream shows an error.
 */
#ifndef PTM_VIZ_CHART_H
#define PTM_VIZ_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Points drawn of a series at most: a longer one is thinned to every k-th
 * point (and its last), and the chart says so. */
#define VIZ_CHART_MAX_POINTS 1500

/* One line: points (x[i], y[i]); a point with a coordinate that is not a
 * finite number (or not above 0 on a log scale) is left out, and the line
 * joins its neighbours. */
struct viz_series {
    const char *name; /* in the legend; NULL: no legend */
    const double *x, *y;
    size_t n;
};

struct viz_chart {
    const char *title;
    const char *xlabel, *ylabel; /* with their units */
    bool logy;                   /* y on a log scale */
    bool x_from_zero;            /* the x axis starts at 0 */
    const char *note;            /* a line under the axes, or NULL */
};

/* A line chart of the series; one with no point to draw says so. */
int viz_chart_line(FILE *out, const struct viz_chart *c, const struct viz_series *s, size_t ns);

/* One bar: its label and its parts, left to right. */
struct viz_bar {
    const char *label;
    double part[5];
};

/* Stacked horizontal bars on one axis (xlabel, with its unit): nparts (at
 * most 5) parts a bar, named and coloured as part_name and part_color
 * say, in a legend. */
int viz_chart_bars(FILE *out, const char *title, const char *xlabel, const struct viz_bar *b,
                   size_t n, int nparts, const char *const *part_name,
                   const char *const *part_color);

/* s (len bytes) as text of an HTML or SVG element or attribute: & < > "
 * escaped, bytes that are not UTF-8 and control characters other than tab
 * and newline as U+FFFD, so that the page is well-formed XML too. */
void viz_esc(FILE *out, const char *s, size_t len);
/* The same for a NUL-terminated string. */
void viz_escs(FILE *out, const char *s);

/* v with about 4 significant digits, as an axis labels it, into buf. */
void viz_fmt_num(double v, char *buf, size_t len);

#endif
